// Forces written as functions of the mechanism's state (engine/model/state_functions.h) against
// the built-in elements they restate and against closed forms: a damper −c VR(a, b) and a spring
// −k (DM(a, b) − l0) run as the built-in spring-damper does; a motor T0 (1 − ω/ω0) spins an
// inertia up along ω0 (1 − e^{−t/τ}), τ = J ω0 / T0; a bistop on a slide is a linear stop's
// closed form (contact for π √(m/k), the speed reversed); the measures' values against their
// definitions; and what is refused, named with its place.

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/io/scene_json.h"
#include "engine/kinematics/state_measures.h"
#include "engine/math/constants.h"
#include "engine/model/model.h"
#include "tests/support/scene_errors.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

SceneSpec parsed(const std::string& text) {
    return test::parsedScene(text);
}

// A 2 kg bob hung from the ground by one force element `force` (JSON), swinging out of plane:
// the spring's line turns and stretches in 3D.
std::string bobScene(const std::string& force, const std::string& integrator,
                     const std::string& variables = "[]") {
    return R"j({"format": "motus-scene", "version": 1, "minorVersion": 12,
      "settings": {"integrator": ")j" +
           integrator + R"j(", "stepSize": 0.0005, "outputInterval": 0.01},
      "parts": [{"name": "ground", "ground": true, "markers": [{"name": "top", "position": [0, 0, 1]}]},
                {"name": "bob", "mass": 2, "inertia": [0.01, 0.02, 0.03], "position": [0.3, 0.1, 0.4],
                 "velocity": [0, 0.8, 0.2], "angularVelocity": [0.5, -0.3, 1.0],
                 "markers": [{"name": "hook", "position": [0.02, 0, 0.05]}]}],
      "forces": [)j" +
           force + R"j(],
      "variables": )j" +
           variables + "}";
}

const char* kBuiltIn = R"j({"name": "spring", "type": "springDamper", "markerI": "bob.hook",
    "markerJ": "ground.top", "stiffness": 400, "damping": 3, "freeLength": 0.5})j";
const char* kWritten = R"j({"name": "spring", "type": "lineForce", "markerI": "bob.hook",
    "markerJ": "ground.top",
    "magnitude": "-400*(DM(bob.hook, ground.top) - 0.5) - 3*VR(bob.hook, ground.top)"})j";

// The bob's pose and velocity after `seconds`; the most Newton iterations a step took to
// `newton` (implicit Euler).
Eigen::VectorXd runFor(const SceneSpec& spec, double seconds, int* newton = nullptr) {
    ForwardDynamics sim(test::compiled(spec));
    const Status started = sim.initialize();
    EXPECT_TRUE(started.ok) << started.message;
    const Status ran = sim.advance(seconds);
    EXPECT_TRUE(ran.ok) << ran.message;
    if (newton) *newton = sim.statistics().mostNewtonIterations;
    Eigen::VectorXd out(sim.state().q.size() + sim.state().v.size());
    out << sim.state().q, sim.state().v;
    return out;
}

TEST(StateFunctions, ASpringAndDamperWrittenWithDmAndVrRunAsTheBuiltInOne) {
    for (const char* integrator : {"dopri45", "implicitEuler", "rk4"}) {
        int builtInNewton = 0, writtenNewton = 0;
        const Eigen::VectorXd builtIn =
            runFor(parsed(bobScene(kBuiltIn, integrator)), 1.0, &builtInNewton);
        const Eigen::VectorXd written =
            runFor(parsed(bobScene(kWritten, integrator)), 1.0, &writtenNewton);
        // Implicit Euler differentiates both exactly (the written one through its
        // expression's tree and its measures): the same Jacobians, the same iterations.
        EXPECT_LT((builtIn - written).lpNorm<Eigen::Infinity>(), 1e-12) << integrator;
        if (std::string(integrator) == "implicitEuler") {
            EXPECT_GE(builtInNewton, 1);
            EXPECT_LE(builtInNewton, 3);
            EXPECT_EQ(writtenNewton, builtInNewton);
        }
        // and the bob did move: the comparison is not of two states at rest
        EXPECT_GT(builtIn.segment(0, 3).norm(), 0.1) << integrator;
    }
}

TEST(StateFunctions, AVariableSharedByTwoElementsIsTheMeasureItNames) {
    // The spring's stretch and its rate as variables, the spring and the damper two elements.
    const std::string variables = R"j([{"name": "rate", "expression": "VR(bob.hook, ground.top)"},
        {"name": "stretch", "expression": "length - 0.5"},
        {"name": "length", "expression": "DM(bob.hook, ground.top)"}])j";
    const std::string forces = R"j({"name": "spring", "type": "lineForce", "markerI": "bob.hook",
        "markerJ": "ground.top", "magnitude": "-400*stretch"},
        {"name": "damper", "type": "lineForce", "markerI": "bob.hook", "markerJ": "ground.top",
         "magnitude": "-3*rate"})j";
    const SceneSpec spec = parsed(bobScene(forces, "dopri45", variables));
    const auto model = test::compiled(spec);
    ASSERT_TRUE(model);
    // Ordered so each follows those it uses: length before stretch.
    ASSERT_EQ(model->variables.size(), 3u);
    EXPECT_EQ(model->variables[0].name, "rate");
    EXPECT_EQ(model->variables[1].name, "length");
    EXPECT_EQ(model->variables[2].name, "stretch");
    EXPECT_EQ(model->measures.size(), 2u);  // DM and VR, each once
    const Eigen::VectorXd builtIn = runFor(parsed(bobScene(kBuiltIn, "dopri45")), 1.0);
    const Eigen::VectorXd written = runFor(spec, 1.0);
    // Two elements add their forces in another order than one: round-off apart.
    EXPECT_LT((builtIn - written).lpNorm<Eigen::Infinity>(), 1e-10);
}

// A rotor of inertia J on a revolute about z, driven by a motor whose torque falls linearly
// with speed to 0 at ω0: ω(t) = ω0 (1 − e^{−t/τ}), τ = J ω0 / T0.
std::string rotorScene(const std::string& force) {
    return R"j({"format": "motus-scene", "version": 1,
      "parts": [{"name": "ground", "ground": true, "markers": [{"name": "axle"}]},
                {"name": "rotor", "mass": 3, "inertia": [0.1, 0.1, 0.05],
                 "markers": [{"name": "hub"}]}],
      "joints": [{"name": "shaft", "type": "revolute", "markerI": "rotor.hub", "markerJ": "ground.axle"}],
      "forces": [)j" +
           force + "]}";
}

TEST(StateFunctions, AMotorWithATorqueSpeedLineSpinsUpExponentially) {
    const double J = 0.05, T0 = 2.0, w0 = 30.0, tau = J * w0 / T0;
    const std::string forces[] = {
        R"j({"name": "motor", "type": "pointTorque", "marker": "rotor.hub",
            "components": [0, 0, "2*(1 - WZ(rotor)/30)"]})j",
        R"j({"name": "motor", "type": "jointForce", "joint": "shaft",
            "magnitude": "2*(1 - qd(shaft)/30)"})j",
        R"j({"name": "motor", "type": "jointForce", "joint": "shaft",
            "magnitude": "2*(1 - WZ(rotor.hub, ground.axle, ground.axle)/30)"})j"};
    for (const std::string& force : forces) {
        ForwardDynamics sim(test::compiled(parsed(rotorScene(force))));
        ASSERT_TRUE(sim.initialize().ok);
        for (double t : {0.25, 0.75, 1.5, 3.0}) {
            ASSERT_TRUE(sim.advance(t).ok);
            Outputs out;
            ASSERT_TRUE(sim.outputs(out).ok);
            const double expected = w0 * (1.0 - std::exp(-t / tau));
            EXPECT_NEAR(out.jointRates(0), expected, 1e-6 * expected) << force << " t = " << t;
            // the angle too: ω0 (t − τ (1 − e^{−t/τ}))
            const double angle = w0 * (t - tau * (1.0 - std::exp(-t / tau)));
            EXPECT_NEAR(out.jointCoordinates(0), angle, 1e-6 * angle) << force << " t = " << t;
        }
    }
}

// A 0.5 kg block on a slide, moving at −1 m/s towards a linear stop at −0.1 m written with
// bistop (e = 1, no damping): in contact for π √(m/k), it leaves at +1 m/s, pressed in by
// v0 √(m/k) at most; free between the stops.
TEST(StateFunctions, ABistopOnASlideIsALinearStop) {
    const double m = 0.5, k = 2e4, v0 = 1.0;
    const std::string scene = R"j({"format": "motus-scene", "version": 1,
      "gravity": [0, 0, 0],
      "parts": [{"name": "ground", "ground": true, "markers": [{"name": "rail"}]},
                {"name": "block", "mass": 0.5, "inertia": [0.01, 0.01, 0.01],
                 "velocity": [0, 0, -1], "markers": [{"name": "m"}]}],
      "joints": [{"name": "slide", "type": "prismatic", "markerI": "block.m", "markerJ": "ground.rail"}],
      "forces": [{"name": "stops", "type": "jointForce", "joint": "slide", "axis": "translation",
                  "magnitude": "bistop(q(slide), qd(slide), -0.1, 0.1, 2e4, 1, 0, 0.001)"}]})j";
    ForwardDynamics sim(test::compiled(parsed(scene)));
    ASSERT_TRUE(sim.initialize().ok);
    const double contact = kPi * std::sqrt(m / k), hit = 0.1 / v0;
    // Deepest at the middle of the contact.
    ASSERT_TRUE(sim.advance(hit + 0.5 * contact).ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_NEAR(out.jointCoordinates(0), -0.1 - v0 * std::sqrt(m / k), 1e-8);
    EXPECT_NEAR(out.jointRates(0), 0.0, 1e-6);
    // Out again at the closed form's time, at +v0.
    ASSERT_TRUE(sim.advance(hit + contact).ok);
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_NEAR(out.jointCoordinates(0), -0.1, 1e-8);
    EXPECT_NEAR(out.jointRates(0), v0, 1e-6);
    // Free across the gap: the other stop at +0.1 m is reached 0.2 s later.
    ASSERT_TRUE(sim.advance(hit + contact + 0.15).ok);
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_NEAR(out.jointCoordinates(0), -0.1 + 0.15 * v0, 1e-8);
    EXPECT_NEAR(out.jointRates(0), v0, 1e-9);
}

TEST(StateFunctions, MeasuresAreWhatTheirDefinitionsSay) {
    // The bob turned about z by 30° and about x by 20°, moving and spinning: every measure
    // from its definition, with the ground marker turned too.
    std::string text = bobScene(kWritten, "dopri45");
    const SceneSpec spec = parsed(text);
    SceneSpec turned = spec;
    turned.parts[0].markers[0].X_PM.R = quatFromAxisAngle(Vec3(1, 2, 3).normalized(), 0.7);
    turned.parts[1].X_WP.R = quatFromAxisAngle(Vec3::UnitZ(), 30 * kPi / 180) *
                             quatFromAxisAngle(Vec3::UnitX(), 20 * kPi / 180);
    const auto model = test::compiled(turned);
    ASSERT_TRUE(model);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    std::vector<BodyFrame> frames;
    computeBodyFrames(*model, sim.state().q, sim.state().v, frames);
    const MarkerFrame i = markerFrame(*model, frames, 1), j = markerFrame(*model, frames, 0);
    auto measure = [&](const std::string& text) {
        std::string error;
        StateText split;
        EXPECT_TRUE(parseStateExpression(turned, text, split, error)) << error;
        EXPECT_EQ(split.calls.size(), 1u);
        MeasureModel m;
        m.kind = split.calls[0].kind;
        const MeasureFrame fi{model->markers[1].body, model->markers[1].X_BM, true},
            fj{model->markers[0].body, model->markers[0].X_BM, true};
        m.frames[0] = fi;
        if (split.calls[0].arguments.size() > 1) m.frames[1] = fj;
        if (split.calls[0].arguments.size() > 2) m.frames[2] = fj;
        return measureValue(*model, m, frames, Eigen::VectorXd(), Eigen::VectorXd());
    };
    const Vec3 d = i.p - j.p, dv = i.v - j.v, dw = i.w - j.w;
    EXPECT_NEAR(measure("DM(bob.hook, ground.top)"), d.norm(), 1e-15);
    EXPECT_NEAR(measure("DM(bob.hook)"), i.p.norm(), 1e-15);
    EXPECT_NEAR(measure("DX(bob.hook, ground.top, ground.top)"), j.R.col(0).dot(d), 1e-15);
    EXPECT_NEAR(measure("DZ(bob.hook, ground.top)"), d.z(), 1e-15);
    EXPECT_NEAR(measure("VR(bob.hook, ground.top)"), dv.dot(d) / d.norm(), 1e-15);
    EXPECT_NEAR(measure("VM(bob.hook)"), i.v.norm(), 1e-15);
    EXPECT_NEAR(measure("VY(bob.hook, ground.top, ground.top)"), j.R.col(1).dot(dv), 1e-15);
    EXPECT_NEAR(measure("WZ(bob.hook, ground.top, ground.top)"), j.R.col(2).dot(dw), 1e-15);
    EXPECT_NEAR(measure("WM(bob.hook)"), i.w.norm(), 1e-15);
    // The angles: i's axes seen in j's, atan2 of their projections.
    const Mat3 R = j.R.transpose() * i.R;  // columns: i's axes in j's
    EXPECT_NEAR(measure("AZ(bob.hook, ground.top)"), std::atan2(R(1, 0), R(0, 0)), 1e-15);
    EXPECT_NEAR(measure("AX(bob.hook, ground.top)"), std::atan2(-R(1, 2), R(2, 2)), 1e-15);
    EXPECT_NEAR(measure("AY(bob.hook, ground.top)"), std::atan2(R(0, 2), R(2, 2)), 1e-15);
    // VR is the rate of DM: against a central difference along the motion.
    const double h = 1e-6;
    const Eigen::VectorXd q = sim.state().q;
    auto distanceAt = [&](double dt) {
        Eigen::VectorXd qq = q;
        qq.segment<3>(0) += dt * sim.state().v.segment<3>(0);
        // (the hook is off the centre of mass: its turn counts too)
        const Vec3 w = sim.state().v.segment<3>(3);
        std::vector<BodyFrame> f;
        computeBodyFrames(*model, qq, sim.state().v, f);
        const Eigen::Quaterniond e(qq(3), qq(4), qq(5), qq(6));
        const Eigen::Quaterniond turn(Eigen::AngleAxisd(dt * w.norm(), w.normalized()));
        const Mat3 Rb = (e * turn).toRotationMatrix();
        const Vec3 p = f[0].r + Rb * model->markers[1].X_BM.p;
        return (p - j.p).norm();
    };
    EXPECT_NEAR(measure("VR(bob.hook, ground.top)"), (distanceAt(h) - distanceAt(-h)) / (2 * h),
                1e-8);
}

TEST(StateFunctions, QUnwindsAnAngleAndCountsASlide) {
    // After 3 s the motor-driven rotor has turned many times: q is the whole angle.
    const std::string force = R"j({"name": "motor", "type": "jointForce", "joint": "shaft",
        "magnitude": "if(q(shaft) < 20, 2, 0)"})j";
    ForwardDynamics sim(test::compiled(parsed(rotorScene(force))));
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(3.0).ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    // The torque stops once q passes 20 rad (about three turns): ω = √(2 T0 · 20 / J) after.
    EXPECT_NEAR(out.jointRates(0), std::sqrt(2 * 2.0 * 20.0 / 0.05), 0.05);
    EXPECT_GT(out.jointCoordinates(0), 20.0);
}

// The first error a scene's text gives, "where: message".
std::string firstError(const std::string& scene) {
    return test::firstError(io::parseScene(scene).diagnostics);
}

TEST(StateFunctions, WhatCannotBeReadIsRefusedWithItsPlace) {
    auto withMagnitude = [](const std::string& magnitude) {
        return bobScene(R"j({"name": "f", "type": "lineForce", "markerI": "bob.hook",
            "markerJ": "ground.top", "magnitude": ")j" +
                            magnitude + "\"}",
                        "dopri45");
    };
    EXPECT_EQ(firstError(withMagnitude("DM(bob.hook, ground.tip)")),
              "/forces/0/magnitude: bad expression 'DM(bob.hook, ground.tip)': "
              "DM(bob.hook, ground.tip): no marker 'ground.tip'");
    EXPECT_NE(firstError(withMagnitude("DM(bob.hook, ground.top, ground.top)"))
                  .find("DM takes 1 to 2 arguments, got 3"),
              std::string::npos);
    EXPECT_NE(firstError(withMagnitude("DM + 1")).find("is a measure of the state: write DM(i)"),
              std::string::npos);
    EXPECT_NE(firstError(withMagnitude("DM(bob.hook, sin(time))")).find("are names"),
              std::string::npos);
    EXPECT_NE(firstError(withMagnitude("q(nothing)")).find("no joint 'nothing'"),
              std::string::npos);
    EXPECT_NE(firstError(withMagnitude("speed * 2"))
                  .find("unknown name 'speed': not a variable or design variable of the scene (it "
                        "has none)"),
              std::string::npos)
        << firstError(withMagnitude("speed * 2"));
    // A cycle of variables, named around.
    const std::string cycle = bobScene(kWritten, "dopri45",
                                       R"j([{"name": "a", "expression": "b + 1"},
                                           {"name": "b", "expression": "c * 2"},
                                           {"name": "c", "expression": "a - DM(bob.hook)"}])j");
    EXPECT_EQ(firstError(cycle),
              "/variables: the variables a → b → c → a are defined through one another in a "
              "cycle: none of them has a value");
    EXPECT_NE(firstError(bobScene(kWritten, "dopri45", R"j([{"name": "DM", "expression": "1"}])j"))
                  .find("/variables/0/name: variable name 'DM' is already"),
              std::string::npos);
    EXPECT_NE(
        firstError(
            bobScene(kWritten, "dopri45",
                     R"j([{"name": "a", "expression": "1"}, {"name": "a", "expression": "2"}])j"))
            .find("duplicate variable name 'a'"),
        std::string::npos);
    // A motion is a function of time: a measure there is named as what it is.
    const std::string motion = R"j({"format": "motus-scene", "version": 1,
      "parts": [{"name": "ground", "ground": true, "markers": [{"name": "axle"}]},
                {"name": "rotor", "mass": 3, "inertia": [0.1, 0.1, 0.05], "markers": [{"name": "hub"}]}],
      "joints": [{"name": "shaft", "type": "revolute", "markerI": "rotor.hub", "markerJ": "ground.axle"}],
      "motions": [{"name": "drive", "joint": "shaft", "expression": "q(shaft) + time"}]})j";
    EXPECT_NE(firstError(motion).find("/motions/0/expression: bad expression 'q(shaft) + time': "
                                      "'q' measures the mechanism's state"),
              std::string::npos)
        << firstError(motion);
}

TEST(StateFunctions, AForceThatStopsBeingANumberIsNamedWithWhatItRead) {
    // sqrt(0.9 − DM) stops being a number once the falling bob's hook is 0.9 m from the top.
    const std::string force = R"j({"name": "f", "type": "lineForce", "markerI": "bob.hook",
        "markerJ": "ground.top", "magnitude": "sqrt(0.9 - DM(bob.hook, ground.top))"})j";
    ForwardDynamics sim(test::compiled(parsed(bobScene(force, "rk4"))));
    ASSERT_TRUE(sim.initialize().ok);
    const Status s = sim.advance(3.0);
    ASSERT_FALSE(s.ok);
    EXPECT_NE(s.message.find("force 'f' is not finite"), std::string::npos) << s.message;
    EXPECT_NE(s.message.find("its expression 'sqrt(0.9 - DM(bob.hook, ground.top))' (magnitude) "
                             "is nan"),
              std::string::npos)
        << s.message;
    EXPECT_NE(s.message.find("where DM(bob.hook, ground.top) = 0.9"), std::string::npos)
        << s.message;
}

TEST(StateFunctions, ALineForceOfTimeThatRacesOffIsNamedAsSuch) {
    // A pole at 0.5 s in a magnitude of time alone: the adaptive steps crawl up to it, and the
    // stall is explained by the expression, named with the element and what it is.
    const std::string force = R"j({"name": "f", "type": "lineForce", "markerI": "bob.hook",
        "markerJ": "ground.top", "magnitude": "1/(0.5 - time)^2"})j";
    ForwardDynamics sim(test::compiled(parsed(bobScene(force, "dopri45"))));
    ASSERT_TRUE(sim.initialize().ok);
    const Status s = sim.advance(1.0);
    ASSERT_FALSE(s.ok);
    EXPECT_NE(s.message.find("force 'f'"), std::string::npos) << s.message;
    EXPECT_NE(s.message.find("'1/(0.5 - time)^2' (magnitude)"), std::string::npos) << s.message;
}

TEST(StateFunctions, TheHelpersAreAdamsFunctions) {
    std::string error;
    auto value = [&](const std::string& text) {
        const auto e = Expression::parse(text, error);
        EXPECT_TRUE(e) << text << ": " << error;
        return e ? e->eval(0.0) : std::nan("");
    };
    EXPECT_DOUBLE_EQ(value("haversine(0.25, 0, 1, 1, 3)"), 1 + 2 * 0.5 * (1 - std::cos(kPi / 4)));
    EXPECT_DOUBLE_EQ(value("haversine(-1, 0, 1, 1, 3)"), 1.0);
    EXPECT_DOUBLE_EQ(value("if(1 > 2, 5, 7)"), 7.0);
    EXPECT_DOUBLE_EQ(value("clamp(5, -1, 2)"), 2.0);
    EXPECT_DOUBLE_EQ(value("clamp(-5, -1, 2)"), -1.0);
    // impact: k (x1 − x)^e − step(x, x1 − d, cmax, x1, 0) ẋ, never pulling
    EXPECT_DOUBLE_EQ(value("impact(0.9, -2, 1, 100, 1.5, 10, 0.05)"),
                     100 * std::pow(0.1, 1.5) + 10 * 2);
    EXPECT_DOUBLE_EQ(value("impact(1.1, -2, 1, 100, 1.5, 10, 0.05)"), 0.0);
    EXPECT_DOUBLE_EQ(value("impact(0.99, 50, 1, 100, 1, 10, 0.05)"), 0.0);  // would pull
    EXPECT_DOUBLE_EQ(value("bistop(0, 1, -1, 1, 100, 1, 0, 0.1)"), 0.0);
    EXPECT_DOUBLE_EQ(value("bistop(1.5, 0, -1, 1, 100, 1, 0, 0.1)"), -50.0);
    EXPECT_DOUBLE_EQ(value("bistop(-1.5, 0, -1, 1, 100, 1, 0, 0.1)"), 50.0);
    EXPECT_FALSE(Expression::parse("bistop(0, 1, 1, -1, 100, 1, 0, 0.1)", error));  // x1 > x2
    EXPECT_NE(error.find("needs x1 < x2"), std::string::npos) << error;
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

// A ball dropped from h0 = 1 m, watched by a sensor on its height.
std::string dropScene(const std::string& sensors, double outputInterval,
                      const std::string& integrator = "dopri45") {
    return R"j({"format": "motus-scene", "version": 1, "minorVersion": 12,
      "settings": {"integrator": ")j" +
           integrator + R"j(", "stepSize": 0.001, "outputInterval": )j" +
           std::to_string(outputInterval) + R"j(},
      "parts": [{"name": "ground", "ground": true},
                {"name": "ball", "mass": 1, "inertia": [0.004, 0.004, 0.004], "position": [0, 0, 1],
                 "markers": [{"name": "centre"}]}],
      "sensors": )j" +
           sensors + "}";
}

// Runs output by output (as the runtime does) up to `until` or a sensor's stop.
ForwardDynamics& runOutputs(ForwardDynamics& sim, double interval, double until) {
    EXPECT_TRUE(sim.initialize().ok);
    for (int k = 1; k * interval <= until + 1e-12; ++k) {
        const Status s = sim.advance(k * interval);
        EXPECT_TRUE(s.ok) << s.message;
        if (sim.stoppedBy()) break;
    }
    return sim;
}

TEST(Sensors, AFallingBallStopsWhereItCrossesTheLevelWhateverTheOutputInterval) {
    const double expected = std::sqrt(2.0 * (1.0 - 0.1) / 9.81);
    const std::string sensor =
        R"j([{"name": "landed", "expression": "DZ(ball.centre)", "value": 0.1, "direction": "falling"}])j";
    for (double interval : {0.1, 0.013, 0.5, 0.001}) {
        ForwardDynamics sim(test::compiled(parsed(dropScene(sensor, interval))));
        runOutputs(sim, interval, 2.0);
        ASSERT_TRUE(sim.stoppedBy()) << interval;
        EXPECT_EQ(sim.stoppedBy()->sensor, 0);
        EXPECT_NEAR(sim.stoppedBy()->time, expected, 1e-9) << interval;
        // The run is where the sensor stopped it: the ball at the level.
        EXPECT_NEAR(sim.state().t, expected, 1e-9);
        EXPECT_NEAR(sim.state().q(2), 0.1, 1e-8);
    }
}

TEST(Sensors, ADirectionSelectsTheCrossingsAndAMarkLetsTheRunGoOn) {
    // Thrown up at 3 m/s: up through 1.2 m at the first root, down through it at the second.
    const std::string scene = R"j({"format": "motus-scene", "version": 1, "minorVersion": 12,
      "parts": [{"name": "ground", "ground": true},
                {"name": "ball", "mass": 1, "inertia": [0.004, 0.004, 0.004], "position": [0, 0, 1],
                 "velocity": [0, 0, 3], "markers": [{"name": "centre"}]}],
      "sensors": [{"name": "up", "expression": "DZ(ball.centre)", "value": 1.2, "direction": "rising", "action": "mark"},
                  {"name": "down", "expression": "DZ(ball.centre)", "value": 1.2, "direction": "falling", "action": "mark"},
                  {"name": "floor", "expression": "DZ(ball.centre) - 0.5", "value": 0}]})j";
    ForwardDynamics sim(test::compiled(parsed(scene)));
    runOutputs(sim, 0.01, 3.0);
    // z = 1 + 3 t − g t²/2: 1.2 at t = (3 ∓ √(9 − 2 g 0.2)) / g, 0.5 at (3 + √(9 + 2 g 0.5)) / g.
    const double g = 9.81, root = std::sqrt(9.0 - 2.0 * g * 0.2);
    ASSERT_EQ(sim.sensorEvents().size(), 3u);
    EXPECT_EQ(sim.sensorEvents()[0].sensor, 0);
    EXPECT_NEAR(sim.sensorEvents()[0].time, (3.0 - root) / g, 1e-9);
    EXPECT_EQ(sim.sensorEvents()[1].sensor, 1);
    EXPECT_NEAR(sim.sensorEvents()[1].time, (3.0 + root) / g, 1e-9);
    ASSERT_TRUE(sim.stoppedBy());
    EXPECT_EQ(sim.stoppedBy()->sensor, 2);
    EXPECT_NEAR(sim.stoppedBy()->time, (3.0 + std::sqrt(9.0 + 2.0 * g * 0.5)) / g, 1e-9);
}

TEST(Sensors, FixedStepsStopAtTheStepAfterTheCrossingAndInterpolateItsInstant) {
    const double expected = std::sqrt(2.0 * (1.0 - 0.1) / 9.81);
    const std::string sensor =
        R"j([{"name": "landed", "expression": "DZ(ball.centre)", "value": 0.1}])j";
    ForwardDynamics sim(test::compiled(parsed(dropScene(sensor, 0.01, "rk4"))));
    runOutputs(sim, 0.01, 2.0);
    ASSERT_TRUE(sim.stoppedBy());
    // Linear between two steps of 1 ms: z is a parabola, off by g h² / 8 at most in height.
    EXPECT_NEAR(sim.stoppedBy()->time, expected, 1e-6);
    EXPECT_NEAR(sim.state().t, std::ceil(expected / 0.001) * 0.001, 1e-12);
}

TEST(Sensors, ASensorThatIsNotANumberStopsTheRunWithItsName) {
    const std::string sensor =
        R"j([{"name": "odd", "expression": "sqrt(DZ(ball.centre) - 0.5)", "value": 2}])j";
    ForwardDynamics sim(test::compiled(parsed(dropScene(sensor, 0.01))));
    ASSERT_TRUE(sim.initialize().ok);
    Status s;
    for (int k = 1; k <= 100 && s.ok; ++k) s = sim.advance(0.01 * k);
    ASSERT_FALSE(s.ok);
    EXPECT_NE(s.message.find("sensor 'odd': its expression 'sqrt(DZ(ball.centre) - 0.5)' is nan"),
              std::string::npos)
        << s.message;
    // and refused before the run where it names what does not exist
    EXPECT_EQ(
        test::firstError(
            io::parseScene(
                dropScene(R"j([{"name": "s", "expression": "DZ(ball.top)", "value": 0}])j", 0.01))
                .diagnostics),
        "/sensors/0/expression: bad expression 'DZ(ball.top)': DZ(ball.top): no marker "
        "'ball.top'");
}

}  // namespace
}  // namespace engine

#include "engine/model/edit.h"

namespace engine {
namespace {

TEST(StateFunctions, RenamingAPartAMarkerOrAJointRewritesTheMeasuresThatReadIt) {
    SceneSpec spec = parsed(bobScene(
        R"j({"name": "f", "type": "lineForce", "markerI": "bob.hook", "markerJ": "ground.top",
             "magnitude": "-400*(DM( bob.hook , ground.top) - 0.5) - 3*VR(bob.hook, ground.top) + 0*WZ(bob)"})j",
        "dopri45",
        R"j([{"name": "bobby", "expression": "DZ(bob.hook, ground.top, bob) + 0*DM(ground)"}])j"));
    ASSERT_EQ(spec.parts.size(), 2u);
    ASSERT_TRUE(renameEntity(spec, spec.parts[1].id, "weight"));
    EXPECT_EQ(spec.forces[0].components[0],
              "-400*(DM( weight.hook , ground.top) - 0.5) - 3*VR(weight.hook, ground.top) + "
              "0*WZ(weight)");
    EXPECT_EQ(spec.variables[0].expression, "DZ(weight.hook, ground.top, weight) + 0*DM(ground)");
    EXPECT_TRUE(compile(spec).model);
    ASSERT_TRUE(renameEntity(spec, spec.parts[0].markers[0].id, "pivot"));
    EXPECT_EQ(spec.forces[0].components[0],
              "-400*(DM( weight.hook , ground.pivot) - 0.5) - 3*VR(weight.hook, ground.pivot) + "
              "0*WZ(weight)");
    // A joint's name in q and qd, and nowhere else.
    SceneSpec rotor =
        parsed(rotorScene(R"j({"name": "motor", "type": "jointForce", "joint": "shaft",
        "magnitude": "2*(1 - qd(shaft)/30) + 0*q(shaft, 0) + 0*DM(rotor.hub)"})j"));
    ASSERT_TRUE(renameEntity(rotor, rotor.joints[0].id, "axle"));
    EXPECT_EQ(rotor.forces[0].components[0],
              "2*(1 - qd(axle)/30) + 0*q(axle, 0) + 0*DM(rotor.hub)");
    EXPECT_EQ(rotor.forces[0].joint, "axle");
    EXPECT_TRUE(compile(rotor).model);
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

TEST(StateFunctions, DeletingWhatAnExpressionReadsTakesItsReadersAlong) {
    // The hook goes: the variable reading DM(bob.hook, …) goes with it, and then the force and
    // the sensor reading that variable; what reads the rest stays.
    const std::string scene = R"j({"format": "motus-scene", "version": 1, "minorVersion": 12,
      "parts": [{"name": "ground", "ground": true, "markers": [{"name": "top", "position": [0, 0, 1]}]},
                {"name": "bob", "mass": 2, "inertia": [0.01, 0.02, 0.03], "position": [0.3, 0.1, 0.4],
                 "markers": [{"name": "hook"}, {"name": "eye"}]}],
      "variables": [{"name": "reach", "expression": "DM(bob.hook, ground.top)"},
                    {"name": "height", "expression": "DZ(bob.eye)"}],
      "sensors": [{"name": "far", "expression": "reach", "value": 2},
                  {"name": "low", "expression": "height", "value": 0}],
      "forces": [{"name": "push", "type": "pointForce", "marker": "bob.eye",
                  "components": [0, 0, "-reach"]},
                 {"name": "lift", "type": "pointForce", "marker": "bob.eye",
                  "components": [0, 0, "height"]}]})j";
    SceneSpec spec = parsed(scene);
    ASSERT_EQ(spec.parts.size(), 2u);
    const std::vector<std::string> removed = deleteEntity(spec, spec.parts[1].markers[0].id);
    EXPECT_EQ(removed, (std::vector<std::string>{"bob.hook", "reach", "push", "far"}));
    ASSERT_EQ(spec.variables.size(), 1u);
    EXPECT_EQ(spec.variables[0].name, "height");
    ASSERT_EQ(spec.sensors.size(), 1u);
    EXPECT_EQ(spec.sensors[0].name, "low");
    ASSERT_EQ(spec.forces.size(), 1u);
    EXPECT_EQ(spec.forces[0].name, "lift");
    EXPECT_TRUE(compile(spec).model);
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

// The warnings about units the reader gives a bob scene whose line force is `magnitude`.
std::vector<std::string> unitWarnings(const std::string& magnitude) {
    const io::SceneLoadResult r =
        io::parseScene(bobScene(R"j({"name": "f", "type": "lineForce", "markerI": "bob.hook",
            "markerJ": "ground.top", "magnitude": ")j" +
                                    magnitude + "\"}",
                                "dopri45"));
    std::vector<std::string> out;
    for (const Diagnostic& d : r.diagnostics)
        if (d.severity == Severity::Warning && d.message.find("units") != std::string::npos)
            out.push_back(d.where + ": " + d.message);
    return out;
}

TEST(StateFunctions, UnitsThatDoNotMatchAreSaid) {
    // A length added to a speed, the coefficients forgotten: said, with the place.
    const auto added = unitWarnings("DM(bob.hook, ground.top) + VR(bob.hook, ground.top)");
    ASSERT_EQ(added.size(), 1u);
    EXPECT_EQ(added[0],
              "/forces/0/magnitude: expression 'DM(bob.hook, ground.top) + VR(bob.hook, "
              "ground.top)' adds m and m/s: units that do not match (a coefficient missing, or "
              "another measure meant?)");
    // An angle compared with a length; a stop's rate that is not its coordinate's; the sine
    // of a length; a stop placed in metres on an angle.
    EXPECT_EQ(unitWarnings("AZ(bob.hook, ground.top) > DZ(bob.hook) ? 1 : 0").size(), 1u);
    EXPECT_NE(unitWarnings("impact(DZ(bob.hook), WZ(bob.hook), 0.1, 1e4, 1.5, 10, 0.01)")
                  .at(0)
                  .find("gives rad/s as the rate of m (expected m/s)"),
              std::string::npos);
    EXPECT_NE(unitWarnings("sin(DM(bob.hook))").at(0).find("takes the sine of m, not an angle"),
              std::string::npos);
    EXPECT_EQ(unitWarnings("step(AX(bob.hook, ground.top), DZ(bob.hook), 0, 1, 5)").size(), 1u);
    // Through a variable: its expression's unit.
    const std::string viaVariable = bobScene(
        R"j({"name": "f", "type": "lineForce", "markerI": "bob.hook", "markerJ": "ground.top",
            "magnitude": "gap - VZ(bob.hook)"})j",
        "dopri45", R"j([{"name": "gap", "expression": "DZ(bob.hook) - 0.1"}])j");
    bool said = false;
    for (const Diagnostic& d : io::parseScene(viaVariable).diagnostics)
        said |= d.where == "/forces/0/magnitude" &&
                d.message.find("subtracts m and m/s") != std::string::npos;
    EXPECT_TRUE(said);
    // What is right, or cannot be known, is left be: numbers carry any unit (a coefficient),
    // products an unknown one, degrees are radians, sin(time) is a habit.
    for (const char* fine :
         {"-400*(DM(bob.hook, ground.top) - 0.5) - 3*VR(bob.hook, ground.top)",
          "DM(bob.hook, ground.top) * 2 + VR(bob.hook, ground.top)",
          "AZ(bob.hook, ground.top) > 30d ? 1 : 0",
          "impact(DZ(bob.hook), VZ(bob.hook), 0.1, 1e4, 1.5, 10, 0.01)", "sin(time)",
          "step(time, 0, 0, 1, 5) * WM(bob.hook)", "max(DX(bob.hook), DY(bob.hook), 0)"}) {
        EXPECT_TRUE(unitWarnings(fine).empty()) << fine;
        EXPECT_EQ(firstError(bobScene(R"j({"name": "f", "type": "lineForce", "markerI": "bob.hook",
            "markerJ": "ground.top", "magnitude": ")j" +
                                          std::string(fine) + "\"}",
                                      "dopri45")),
                  "")
            << fine;  // (read: the check is not vacuous)
    }
}

TEST(StateFunctions, TheExampleScenesPutUnitsTogetherRightly) {
    int read = 0;
    for (const auto& entry : std::filesystem::directory_iterator(MOTUS_SOURCE_DIR "/scenes")) {
        if (entry.path().extension() != ".json") continue;
        const io::SceneLoadResult r = io::loadSceneFile(entry.path().string());
        for (const Diagnostic& d : r.diagnostics)
            EXPECT_EQ(d.message.find("units that do not match"), std::string::npos)
                << entry.path() << " " << d.where << ": " << d.message;
        ++read;
    }
    EXPECT_GT(read, 10);
}

}  // namespace
}  // namespace engine
