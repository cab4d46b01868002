// Model-based joint control (engine/dynamics/joint_control.h): computed torque tracks its
// targets as exactly as the run is integrated, its efforts are inverse dynamics' efforts for
// the same motion, it linearises only the joints it controls (the others swing free), gravity
// compensation holds a mechanism where it is; the targets' rates come from the expressions
// themselves (Expression::timeJet, exact to round-off); what it cannot model is refused with
// the place and the reason.

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/kinematic_analysis.h"
#include "engine/analysis/modes.h"
#include "engine/expr/expression.h"
#include "engine/io/scene_json.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/math/jet.h"
#include "engine/model/model.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

constexpr double kPiValue = 3.14159265358979323846;

// The two-link arm of scenes/two_link_arm_pd.json, its servos made computed-torque ones
// (error at 5 Hz, critically damped) on the same targets.
SceneSpec computedTorqueArm() {
    const io::SceneLoadResult r =
        io::loadSceneFile(std::string(MOTUS_SOURCE_DIR) + "/scenes/two_link_arm_pd.json");
    EXPECT_TRUE(r.scene);
    SceneSpec spec = *r.scene;
    const double omega = 2.0 * kPiValue * 5.0;
    for (ForceSpec& f : spec.forces) {
        f.type = ForceType::ComputedTorque;
        f.stiffness = omega * omega;
        f.damping = 2.0 * omega;
        f.maxEffort = 0.0;
    }
    spec.settings.relativeTolerance = 1e-12;
    return spec;
}

const char* kShoulder = "-0.3*(1 - cos(pi*time))";
const char* kElbow = "0.8*(1 - cos(pi*time))";

double coordinate(const Model& model, const State& state, const char* joint) {
    for (std::size_t j = 0; j < model.joints.size(); ++j)
        if (model.joints[j].name == joint) {
            std::vector<BodyFrame> frames;
            computeBodyFrames(model, state.q, state.v, frames);
            return jointCoordinateValue(model, frames, static_cast<int>(j), 0);
        }
    ADD_FAILURE() << "no joint " << joint;
    return 0.0;
}

std::string text(const Diagnostics& diagnostics) {
    std::string out;
    for (const Diagnostic& d : diagnostics) out += d.where + ": " + d.message + "\n";
    return out;
}

double target(const char* text, double t) {
    std::string error;
    return Expression::parse(text, error)->eval(t);
}

TEST(ExpressionJets, TheTimeRatesAreTheClosedForms) {
    struct Case {
        const char* text;
        double (*f)(double), (*d1)(double), (*d2)(double);
    };
    const Case cases[] = {
        {"0.3*(1 - cos(pi*time))", [](double t) { return 0.3 * (1 - std::cos(kPiValue * t)); },
         [](double t) { return 0.3 * kPiValue * std::sin(kPiValue * t); },
         [](double t) { return 0.3 * kPiValue * kPiValue * std::cos(kPiValue * t); }},
        {"exp(-time)*sin(3*time)", [](double t) { return std::exp(-t) * std::sin(3 * t); },
         [](double t) { return std::exp(-t) * (3 * std::cos(3 * t) - std::sin(3 * t)); },
         [](double t) { return std::exp(-t) * (-8 * std::sin(3 * t) - 6 * std::cos(3 * t)); }},
        {"time^3/(1 + time)", [](double t) { return t * t * t / (1 + t); },
         [](double t) { return (3 * t * t * (1 + t) - t * t * t) / ((1 + t) * (1 + t)); },
         [](double t) {
             return (2 * t * t * t + 6 * t * t + 6 * t) / ((1 + t) * (1 + t) * (1 + t));
         }},
        {"2^time + sqrt(1 + time) + 30d*ln(2 + time)",
         [](double t) {
             return std::pow(2, t) + std::sqrt(1 + t) + kPiValue / 6 * std::log(2 + t);
         },
         [](double t) {
             return std::log(2) * std::pow(2, t) + 0.5 / std::sqrt(1 + t) + kPiValue / 6 / (2 + t);
         },
         [](double t) {
             return std::log(2) * std::log(2) * std::pow(2, t) - 0.25 * std::pow(1 + t, -1.5) -
                    kPiValue / 6 / ((2 + t) * (2 + t));
         }},
        {"atan2(time, 1) + tanh(time) + asin(time/4)",
         [](double t) { return std::atan(t) + std::tanh(t) + std::asin(t / 4); },
         [](double t) {
             const double c = std::cosh(t);
             return 1 / (1 + t * t) + 1 / (c * c) + 0.25 / std::sqrt(1 - t * t / 16);
         },
         [](double t) {
             const double c = std::cosh(t);
             return -2 * t / ((1 + t * t) * (1 + t * t)) - 2 * std::tanh(t) / (c * c) +
                    t / 64 / std::pow(1 - t * t / 16, 1.5);
         }},
        // A quintic step: value, rate and acceleration of 10s³ − 15s⁴ + 6s⁵ over [0.5, 2.5].
        {"step5(time, 0.5, 0, 2.5, 2)",
         [](double t) {
             const double s = (t - 0.5) / 2;
             return 2 * s * s * s * (10 - 15 * s + 6 * s * s);
         },
         [](double t) {
             const double s = (t - 0.5) / 2;
             return 2 * 30 * s * s * (1 - s) * (1 - s) / 2;
         },
         [](double t) {
             const double s = (t - 0.5) / 2;
             return 2 * 60 * s * (1 - s) * (1 - 2 * s) / 4;
         }},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.text);
        std::string error;
        const std::optional<Expression> e = Expression::parse(c.text, error);
        ASSERT_TRUE(e) << error;
        for (double t : {0.7, 1.3, 2.1}) {
            const Jet2 j = e->timeJet(t);
            const double scale =
                std::max({1.0, std::abs(c.f(t)), std::abs(c.d1(t)), std::abs(c.d2(t))});
            EXPECT_NEAR(j.v, c.f(t), 1e-14 * scale) << t;
            EXPECT_NEAR(j.d1, c.d1(t), 1e-13 * scale) << t;
            EXPECT_NEAR(j.d2, c.d2(t), 1e-13 * scale) << t;
        }
    }
}

TEST(ComputedTorque, TheArmTracksItsTargetsAsExactlyAsItIsIntegrated) {
    // The same targets under the scene's PD servos miss by 1.8e-2 rad; computed torque starts on
    // them (both at 0, at rest) and stays there, in both formulations.
    for (Formulation formulation : {Formulation::Maximal, Formulation::Recursive}) {
        SCOPED_TRACE(formulationName(formulation));
        SceneSpec spec = computedTorqueArm();
        spec.settings.relativeTolerance = 1e-10;  // the scene's default
        spec.settings.formulation = formulation;
        const auto model = test::compiled(spec);
        ASSERT_TRUE(model);
        ForwardDynamics sim(model);
        ASSERT_TRUE(sim.initialize().ok);
        double worst = 0.0;
        for (int k = 1; k <= 200; ++k) {
            const double t = 0.01 * k;
            const Status s = sim.advance(t);
            ASSERT_TRUE(s.ok) << s.message;
            worst = std::max(
                {worst,
                 std::abs(coordinate(*model, sim.state(), "shoulder") - target(kShoulder, t)),
                 std::abs(coordinate(*model, sim.state(), "elbow") - target(kElbow, t))});
        }
        EXPECT_LT(worst, 1e-6);  // (the bound: 1e-4 rad)
        EXPECT_EQ(sim.formulation().formulation, formulation);
    }
}

TEST(ComputedTorque, ItsEffortsAreInverseDynamicsEffortsForTheSameMotion) {
    // The arm under computed torque, and the same arm driven by motions on the targets: the
    // controllers' torques are the motions' efforts, to round-off and the run's tracking.
    const SceneSpec controlled = computedTorqueArm();
    SceneSpec driven = controlled;
    driven.forces.clear();
    for (const auto& [joint, text] : {std::pair{"shoulder", kShoulder}, {"elbow", kElbow}}) {
        MotionSpec m;
        m.name = std::string(joint) + "Motion";
        m.joint = joint;
        m.expression = text;
        m.id = driven.newId();
        driven.motions.push_back(m);
    }
    const auto inverseModel = test::compiled(driven);
    ASSERT_TRUE(inverseModel);
    std::vector<std::vector<double>> efforts;  // per 0.05 s: shoulder, elbow
    KinematicOptions options;
    options.duration = 2.0;
    options.outputInterval = 0.05;
    const KinematicResult inverse =
        kinematicAnalysis(inverseModel, options, [&](const KinematicFrame& frame, std::string&) {
            efforts.push_back(frame.outputs.driverEffort);
            return true;
        });
    ASSERT_TRUE(inverse.status.ok) << inverse.status.message;
    ASSERT_EQ(efforts.size(), 41u);

    const auto model = test::compiled(controlled);
    ASSERT_TRUE(model);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    double largest = 0.0, worst = 0.0;
    for (std::size_t k = 0; k < efforts.size(); ++k) {
        if (k > 0) {
            ASSERT_TRUE(sim.advance(0.05 * static_cast<double>(k)).ok);
        }
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        ASSERT_EQ(out.controllerEffort.size(), 2u);
        for (std::size_t c = 0; c < 2; ++c) {
            largest = std::max(largest, std::abs(efforts[k][c]));
            worst = std::max(worst, std::abs(out.controllerEffort[c] - efforts[k][c]));
        }
    }
    EXPECT_GT(largest, 1.0);  // (gravity alone on the arm: about 3 N·m)
    EXPECT_LT(worst, 1e-8 * largest) << "largest effort " << largest << " N·m";
}

TEST(ComputedTorque, AJointItDoesNotControlSwingsFreeWhileTheOtherTracks) {
    // Computed torque on the elbow alone: the shoulder is a free pendulum joint carrying it. The
    // elbow follows its target exactly whatever the shoulder does (a PD servo cannot), and the
    // shoulder moves (it is not held).
    SceneSpec spec = computedTorqueArm();
    spec.forces.erase(spec.forces.begin());  // the shoulder's
    const auto model = test::compiled(spec);
    ASSERT_TRUE(model);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    double worst = 0.0, swing = 0.0;
    for (int k = 1; k <= 100; ++k) {
        const double t = 0.02 * k;
        ASSERT_TRUE(sim.advance(t).ok);
        worst =
            std::max(worst, std::abs(coordinate(*model, sim.state(), "elbow") - target(kElbow, t)));
        swing = std::max(swing, std::abs(coordinate(*model, sim.state(), "shoulder")));
    }
    EXPECT_LT(worst, 1e-8);
    EXPECT_GT(swing, 0.3);
}

TEST(ComputedTorque, TheLinearisedArmHasTheErrorDynamicsItsGainsSet) {
    // About its target at rest the arm under computed torque is e'' + kd e' + kp e = 0 on each
    // joint whatever its inertia: two modes at √kp / 2π = 5 Hz, damping ratio kd / 2√kp = 1.
    const auto model = test::compiled(computedTorqueArm());
    ASSERT_TRUE(model);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    const ModesResult r = modes(*model, sim.state());
    ASSERT_TRUE(r.status.ok) << r.status.message;
    ASSERT_EQ(r.modes.size(), 2u);
    for (const Mode& m : r.modes) {
        EXPECT_FALSE(m.unstable);
        // (the linearisation's differences: 6e-5 Hz here)
        EXPECT_NEAR(m.frequency, 5.0, 2e-4);
        EXPECT_NEAR(m.dampingRatio, 1.0, 1e-4);
    }
}

TEST(GravityCompensation, HoldsTheArmStillWhereItIs) {
    // Servos of no gains with gravity compensation: the arm, at rest, stays at rest (without it
    // it falls a quarter turn in 0.5 s).
    for (bool compensated : {true, false}) {
        SCOPED_TRACE(compensated ? "compensated" : "not compensated");
        const io::SceneLoadResult r =
            io::loadSceneFile(std::string(MOTUS_SOURCE_DIR) + "/scenes/two_link_arm_pd.json");
        ASSERT_TRUE(r.scene);
        SceneSpec spec = *r.scene;
        for (ForceSpec& f : spec.forces) {
            f.stiffness = f.damping = 0.0;
            f.gravityCompensation = compensated;
        }
        const auto model = test::compiled(spec);
        ASSERT_TRUE(model);
        ForwardDynamics sim(model);
        ASSERT_TRUE(sim.initialize().ok);
        ASSERT_TRUE(sim.advance(0.5).ok);
        const double moved = std::abs(coordinate(*model, sim.state(), "shoulder")) +
                             std::abs(coordinate(*model, sim.state(), "elbow"));
        if (compensated)
            EXPECT_LT(moved, 1e-9);
        else
            EXPECT_GT(moved, 0.3);
        // The servos' recorded efforts hold the arm's weight: m g × lever about the shoulder.
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        if (compensated) {
            const double g = 9.81;  // the scene's gravity
            const double shoulder = -(1.2 * g * 0.15 + 0.8 * g * 0.425);
            EXPECT_NEAR(std::abs(out.controllerEffort[0]), std::abs(shoulder), 1e-6);
        }
    }
}

TEST(ComputedTorque, WhatItCannotModelIsRefusedWithThePlaceAndTheReason) {
    {  // a target that reads the state
        SceneSpec spec = computedTorqueArm();
        spec.forces[0].components[0] = "0.5*q(elbow)";
        const CompileResult r = compile(spec);
        EXPECT_FALSE(r.model);
        EXPECT_NE(text(r.diagnostics).find("/forces/0/target"), std::string::npos)
            << text(r.diagnostics);
        EXPECT_NE(text(r.diagnostics).find("a function of time alone"), std::string::npos);
    }
    {  // a joint a motion drives
        SceneSpec spec = computedTorqueArm();
        MotionSpec m;
        m.name = "lift";
        m.joint = "elbow";
        m.expression = "0";
        spec.motions.push_back(m);
        const CompileResult r = compile(spec);
        EXPECT_FALSE(r.model);
        EXPECT_NE(text(r.diagnostics).find("driven by motion 'lift'"), std::string::npos)
            << text(r.diagnostics);
    }
    {  // a loop: the four-bar's crank under computed torque
        const io::SceneLoadResult r =
            io::loadSceneFile(std::string(MOTUS_SOURCE_DIR) + "/scenes/four_bar.json");
        ASSERT_TRUE(r.scene);
        SceneSpec spec = *r.scene;
        spec.motions.clear();
        ForceSpec f;
        f.name = "crankControl";
        f.type = ForceType::ComputedTorque;
        f.joint = spec.joints.front().name;
        f.components[0] = "time";
        f.stiffness = 100;
        f.damping = 20;
        f.id = spec.newId();
        spec.forces.push_back(f);
        const auto model = test::compiled(spec);
        ASSERT_TRUE(model);
        ForwardDynamics sim(model);
        const Status s = sim.initialize().ok ? sim.advance(0.1) : sim.initialize();
        ASSERT_FALSE(s.ok);
        EXPECT_NE(s.message.find("force 'crankControl'"), std::string::npos) << s.message;
        EXPECT_NE(s.message.find("closes a loop"), std::string::npos) << s.message;
    }
    {  // a target whose acceleration is not a number where the run reaches
        SceneSpec spec = computedTorqueArm();
        spec.forces[1].components[0] = "sqrt(abs(time - 0.25))";
        const auto model = test::compiled(spec);
        ASSERT_TRUE(model);
        ForwardDynamics sim(model);
        ASSERT_TRUE(sim.initialize().ok);
        const Status s = sim.advance(0.5);
        ASSERT_FALSE(s.ok);
        EXPECT_NE(s.message.find("elbowServo"), std::string::npos) << s.message;
    }
}

}  // namespace
}  // namespace engine
