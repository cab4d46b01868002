// Expressions that read joint reactions and contact forces (FX … TM, FN, FT), which the solve of
// an instant finds from the forces and which expressions therefore read as of the previous step
// (engine/model/state_functions.h, Causality): a slide braked by μ times its own normal
// reaction decelerates at μ g with every integrator; what a force reads is exactly the reaction
// a run records one step earlier; a box pushed up by half its contact force rests on 2/3 of its
// weight; a run resumed from a recorded frame goes on bit for bit; and what is refused.

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/state_value.h"
#include "engine/io/scene_json.h"
#include "engine/model/edit.h"
#include "engine/model/model.h"
#include "engine/record/recording.h"
#include "tests/support/contact_scenes.h"
#include "tests/support/scene_errors.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

constexpr double g = 9.81;

std::string firstError(const std::string& scene) {
    return test::firstError(io::parseScene(scene).diagnostics);
}

// A 2 kg block on a slide along the world's z axis, gravity along −x pressing it on its rail,
// moving at 3 m/s, braked by `brake` (a joint force's magnitude on the slide).
std::string slideScene(const std::string& integrator, const std::string& brake) {
    return R"j({"format": "motus-scene", "version": 1,
      "gravity": [-9.81, 0, 0],
      "settings": {"integrator": ")j" +
           integrator + R"j(", "stepSize": 0.001, "outputInterval": 0.01},
      "parts": [{"name": "ground", "ground": true, "markers": [{"name": "rail"}]},
                {"name": "block", "mass": 2, "inertia": [0.01, 0.01, 0.01],
                 "velocity": [0, 0, 3], "markers": [{"name": "m"}]}],
      "joints": [{"name": "slide", "type": "prismatic", "markerI": "block.m", "markerJ": "ground.rail"}],
      "forces": [{"name": "brake", "type": "jointForce", "joint": "slide", "axis": "translation",
                  "magnitude": ")j" +
           brake + R"j("}]})j";
}

TEST(LaggedMeasures, ASlideBrakedByItsOwnNormalReactionDeceleratesAtMuG) {
    const double mu = 0.4, v0 = 3.0, t = 0.5;
    // The reaction on the block (part I) is the rail's push, +m g along x: read in the world's
    // axes, in the rail's, as its magnitude.
    for (const char* brake :
         {"-0.4*FX(slide)*sign(qd(slide))", "-0.4*FX(slide, ground.rail)*sign(qd(slide))",
          "-0.4*FM(slide)*sign(qd(slide))"})
        for (const char* integrator : {"rk4", "dopri45", "implicitEuler", "timeStepping"}) {
            ForwardDynamics sim(test::compiled(test::parsedScene(slideScene(integrator, brake))));
            ASSERT_TRUE(sim.initialize().ok);
            ASSERT_TRUE(sim.advance(t).ok) << integrator;
            Outputs out;
            ASSERT_TRUE(sim.outputs(out).ok);
            EXPECT_NEAR(out.reactions[0].force_W.x(), 2.0 * g, 1e-9) << integrator;
            // A constant deceleration: the speed exact with every method, the distance with the
            // explicit Runge–Kutta ones (the velocity-level steppers' position is first order,
            // a h t / 2 off).
            EXPECT_NEAR(out.jointRates(0), v0 - mu * g * t, 1e-9) << brake << " " << integrator;
            const bool firstOrder = std::string(integrator) == "timeStepping" ||
                                    std::string(integrator) == "implicitEuler";
            EXPECT_NEAR(out.jointCoordinates(0), v0 * t - 0.5 * mu * g * t * t,
                        firstOrder ? 2e-3 : 1e-9)
                << brake << " " << integrator;
        }
}

// A pendulum on a revolute pivot (swinging in the xy plane), damped by a torque proportional to the load on its pivot.
std::string pendulumScene(const std::string& integrator, double outputInterval) {
    return R"j({"format": "motus-scene", "version": 1,
      "gravity": [0, -9.81, 0],
      "settings": {"integrator": ")j" +
           integrator + R"j(", "stepSize": 0.001, "outputInterval": )j" +
           std::to_string(outputInterval) + R"j(},
      "parts": [{"name": "ground", "ground": true,
                 "markers": [{"name": "top", "position": [0, 0, 1]}]},
                {"name": "bob", "mass": 1.5, "inertia": [0.02, 0.02, 0.02], "position": [0.5, 0, 1],
                 "markers": [{"name": "pin", "position": [-0.5, 0, 0]}]}],
      "joints": [{"name": "pivot", "type": "revolute", "markerI": "bob.pin", "markerJ": "ground.top"}],
      "variables": [{"name": "load", "expression": "FM(pivot)"}],
      "forces": [{"name": "drag", "type": "jointForce", "joint": "pivot",
                  "magnitude": "-0.0002*load*qd(pivot) + 0*TZ(pivot, ground.top)"}]})j";
}

TEST(LaggedMeasures, AStepReadsTheReactionTheRunRecordsAtItsStart) {
    // With a frame at every step, frame k's `load` is the reaction the run records at frame k:
    // what the step from frame k to k + 1 reads throughout. (The frame's own reaction is solved
    // with the forces reading it, the value the step before found with the forces reading the
    // frame before: they differ by the drag's share of the change, c |q̇| m L / (I + m L²) ≤ 2e-3
    // of the change from one frame to the next.)
    const SceneSpec spec = test::parsedScene(pendulumScene("rk4", 0.001));
    ForwardDynamics sim(test::compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    std::string error;
    // At t = 0 the assembled state's own: a bar released level from rest, whose pivot carries
    // m g I / (I + m L²) while its centre starts to fall.
    const double start = 1.5 * g * 0.02 / (0.02 + 1.5 * 0.25);
    EXPECT_NEAR(out.reactions[0].force_W.norm(), start, 1e-9);
    EXPECT_NEAR(stateExpressionValue(spec, sim.state(), "load", error).value_or(-1.0), start, 1e-9);
    double largest = 0.0, previous = start, lag = 0.0;
    for (int k = 1; k <= 500; ++k) {
        ASSERT_TRUE(sim.advance(0.001 * k).ok);
        const std::optional<double> load = stateExpressionValue(spec, sim.state(), "load", error);
        ASSERT_TRUE(load) << error;
        ASSERT_TRUE(sim.outputs(out).ok);
        const double reaction = out.reactions[0].force_W.norm();
        EXPECT_LE(std::abs(*load - reaction), 0.01 * std::abs(reaction - previous) + 1e-12)
            << "step " << k;
        lag = std::max(lag, std::abs(reaction - previous) / reaction);
        previous = reaction;
        largest = std::max(largest, reaction);
    }
    // (Not a comparison of constants: the load changes by up to 1 % a step, and at the bottom
    // the bar pulls with m g (1 + 2 m L² / (I + m L²)).)
    EXPECT_GT(lag, 1e-3);
    EXPECT_GT(largest, 2.5 * 1.5 * g);
    // A reaction no expression of the scene reads is the solve's at the frame itself.
    const std::optional<double> fz = stateExpressionValue(spec, sim.state(), "FY(pivot)", error);
    ASSERT_TRUE(fz) << error;
    EXPECT_NEAR(*fz, out.reactions[0].force_W.y(), 1e-9 * largest);
}

TEST(LaggedMeasures, TheLagIsOneStepAndShrinksWithIt) {
    // The damping torque reads the previous step's load: an error of order h in the force,
    // which fixed-step rk4 then carries as a first-order error of the angle.
    auto angleAt = [](double h) {
        std::string text = pendulumScene("rk4", 0.02);
        text.replace(text.find("0.001"), 5, std::to_string(h));
        ForwardDynamics sim(test::compiled(test::parsedScene(text)));
        EXPECT_TRUE(sim.initialize().ok);
        EXPECT_TRUE(sim.advance(1.0).ok);
        Outputs out;
        EXPECT_TRUE(sim.outputs(out).ok);
        return out.jointCoordinates(0);
    };
    const double a1 = angleAt(4e-3), a2 = angleAt(2e-3), a3 = angleAt(1e-3);
    const double ratio = (a1 - a2) / (a2 - a3);
    EXPECT_NEAR(ratio, 2.0, 0.3) << a1 << " " << a2 << " " << a3;
    EXPECT_LT(std::abs(a2 - a3), 1e-3);
}

TEST(LaggedMeasures, ABoxPushedUpByHalfItsContactForceRestsOnTwoThirdsOfItsWeight) {
    SceneSpec spec = test::contactScene();
    Transform X;
    X.p = Vec3(0.0, 0.0, 0.052);
    Part& box = test::addBox(spec, "box", Vec3(0.2, 0.1, 0.1), X, 2.0);
    box.markers.push_back({spec.newId(), "c", Transform(), ""});
    ForceSpec lift;
    lift.id = spec.newId();
    lift.name = "lift";
    lift.type = ForceType::PointForce;
    lift.markerI = {"box", "c"};
    lift.components[2] = "0.5*FN(ground, box) + 0*FT(box, ground)";
    spec.forces.push_back(lift);
    ForwardDynamics sim(test::compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(1.0).ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    double normal = 0.0;
    for (const ContactForce& c : out.contacts) normal += c.normalForce;
    // N = m g − N / 2: a fixed point the one-step lag reaches by halving the gap each step.
    EXPECT_NEAR(normal, 2.0 / 3.0 * 2.0 * g, 1e-6 * g);
    std::string error;
    EXPECT_NEAR(stateExpressionValue(spec, sim.state(), "FN(box, ground)", error).value_or(0.0),
                normal, 1e-9)
        << error;
    EXPECT_NEAR(stateExpressionValue(spec, sim.state(), "FT(ground, box)", error).value_or(1.0),
                0.0, 1e-6)
        << error;
    // A contact force no expression of the scene reads is not kept with the run: said, not
    // made up.
    SceneSpec fewer = spec;
    fewer.forces[0].components[2] = "0.5*FN(ground, box)";
    EXPECT_FALSE(stateExpressionValue(fewer, sim.state(), "FT(box, ground)", error));
    EXPECT_NE(error.find("FT(box, ground) is not kept with the run"), std::string::npos) << error;
    // Without contact (another integrator) there is no contact force to read.
    spec.contact.enabled = false;
    spec.settings.integrator = IntegratorType::RungeKutta4;
    ForwardDynamics free(test::compiled(spec));
    ASSERT_TRUE(free.initialize().ok);
    ASSERT_TRUE(free.advance(0.1).ok);
    EXPECT_NEAR(layout::linear(free.state().v, 0).z(), -g * 0.1, 1e-9);
}

TEST(LaggedMeasures, ARunResumedFromARecordedFrameGoesOnBitForBit) {
    for (const char* integrator : {"dopri45", "rk4"}) {
        const auto model = test::compiled(test::parsedScene(pendulumScene(integrator, 0.01)));
        const FrameLayout layout(*model);
        ForwardDynamics sim(model);
        ASSERT_TRUE(sim.initialize().ok);
        ASSERT_TRUE(sim.advance(0.305).ok);  // (dopri45: inside one of its steps)
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        std::vector<double> row(static_cast<std::size_t>(layout.size()));
        layout.encode(sim.state(), out, row.data());
        State frame;
        Outputs frameOut;
        layout.decode(row.data(), frame, frameOut);
        ASSERT_EQ(frame.lagged.size(), 2);
        EXPECT_EQ(frame.lagged, sim.state().lagged);
        ASSERT_TRUE(sim.advance(0.6).ok);
        ForwardDynamics resumed(model);
        ASSERT_TRUE(resumed.resume(frame).ok);
        ASSERT_TRUE(resumed.advance(0.6).ok);
        EXPECT_EQ(resumed.state().q, sim.state().q) << integrator;
        EXPECT_EQ(resumed.state().v, sim.state().v) << integrator;
        EXPECT_EQ(resumed.state().lagged, sim.state().lagged) << integrator;
    }
}

TEST(LaggedMeasures, WhatCannotBeReadIsRefusedWithItsPlace) {
    auto withBrake = [](const std::string& brake) { return firstError(slideScene("rk4", brake)); };
    EXPECT_EQ(withBrake("FX(rail)"),
              "/forces/0/magnitude: bad expression 'FX(rail)': FX(rail): no joint 'rail'");
    EXPECT_NE(withBrake("FM(slide, ground.rail)").find("FM takes 1 arguments, got 2"),
              std::string::npos)
        << withBrake("FM(slide, ground.rail)");
    EXPECT_NE(withBrake("FX(slide, ground.nothing)").find("no marker 'ground.nothing'"),
              std::string::npos);
    EXPECT_NE(withBrake("FN(block.m, ground)")
                  .find("no part 'block.m' (contact forces are between parts: write the part's "
                        "name)"),
              std::string::npos);
    EXPECT_NE(withBrake("FN(block, block)").find("a part has no contact with itself"),
              std::string::npos);
    EXPECT_EQ(withBrake("-0.4*FX(slide)*sign(qd(slide))"), "");  // (the check is not vacuous)
    // Units: a force added to a length is said.
    bool said = false;
    for (const Diagnostic& d :
         io::parseScene(slideScene("rk4", "FX(slide) + q(slide)")).diagnostics)
        said |= d.message.find("adds N and m") != std::string::npos;
    EXPECT_TRUE(said);
    // A reaction of a joint left out of the model is refused, naming why.
    SceneSpec spec = test::parsedScene(slideScene("rk4", "0"));
    spec.variables.push_back({"load", "FM(slide)", "", std::nullopt});
    spec.joints[0].active = false;
    const CompileResult compiled = compile(spec);
    ASSERT_FALSE(compiled.diagnostics.empty());
    EXPECT_NE(test::firstError(compiled.diagnostics)
                  .find("reads 'FM(slide)', but joint 'slide' is deactivated"),
              std::string::npos)
        << test::firstError(compiled.diagnostics);
}

TEST(LaggedMeasures, RenamingAJointOrAMarkerRewritesTheReactionsThatReadThem) {
    SceneSpec spec =
        test::parsedScene(slideScene("rk4", "-0.4*FX(slide, ground.rail) + 0*FN(block, ground)"));
    ASSERT_TRUE(renameEntity(spec, spec.joints[0].id, "track"));
    ASSERT_TRUE(renameEntity(spec, spec.parts[0].markers[0].id, "guide"));
    ASSERT_TRUE(renameEntity(spec, spec.parts[1].id, "carriage"));
    EXPECT_EQ(spec.forces[0].components[0],
              "-0.4*FX(track, ground.guide) + 0*FN(carriage, ground)");
}

}  // namespace
}  // namespace engine
