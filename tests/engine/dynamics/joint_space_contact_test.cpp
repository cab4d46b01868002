// Joint stops and contact in joint coordinates: the velocity-level time stepping over a tree
// (engine/integrators/time_stepping.cpp, runInJointCoordinates), whose contact and stop rows
// act through the tree's responses (jointSpaceImpulseResponses) and whose reactions come from
// the recursive Newton–Euler pass over the step (jointSpaceTransmittedOverStep). Checked
// against closed forms at rest, against an accurate run of the same motion without the stops,
// and against the same step in maximal coordinates.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/dynamics/joint_space.h"
#include "engine/io/scene_json.h"
#include "engine/math/constants.h"
#include "engine/model/layout.h"
#include "tests/support/robots.h"
#include "tests/support/scene_builders.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

std::shared_ptr<Model> in(const Model& loaded, Formulation formulation) {
    auto model = std::make_shared<Model>(loaded);
    model->settings.formulation = formulation;
    return model;
}

// The door (scenes/door_stop.json: 28.2 kg, held open at 95°, pulled shut by a preloaded closer)
// slams into its stop at 0°, rebounds with restitution 0.3 and comes to rest against it: in
// joint coordinates it never passes the stop, and at rest the stop carries the closer's torque,
// k (0 − θ₀) = 12 × 0.5 = 6 N·m, and the hinge the door's weight, exactly.
TEST(JointSpaceContact, ADoorSlammedAgainstItsStopRestsOnItCarryingTheCloser) {
    const auto loaded = test::exampleModel("door_stop.json");
    ASSERT_TRUE(loaded);
    ForwardDynamics sim(in(*loaded, Formulation::Recursive));
    ASSERT_EQ(sim.formulation().formulation, Formulation::Recursive) << sim.formulation().reason;
    ASSERT_TRUE(sim.initialize().ok);
    double lowest = 1.0;
    int bounces = 0;
    double last = 1.0;
    for (int k = 1; k <= 800; ++k) {
        const Status s = sim.advance(0.005 * k);
        ASSERT_TRUE(s.ok) << s.message;
        const double angle = sim.state().jointCoordinates(0);
        lowest = std::min(lowest, angle);
        if (angle > last && last < 1e-3) ++bounces;  // moving away from the stop
        last = angle;
    }
    EXPECT_GT(lowest, -1e-9);  // the stop holds (rad)
    EXPECT_GE(bounces, 2);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_NEAR(sim.state().jointCoordinates(0), 0.0, 1e-9);
    EXPECT_NEAR(out.limitForce[0], 6.0, 1e-9);
    double mass = 0.0;
    for (const BodyModel& b : loaded->bodies) mass += b.mass;
    EXPECT_NEAR(out.reactions[0].force_W.z(), mass * 9.81, 1e-9 * mass * 9.81);
    EXPECT_NEAR(out.reactions[0].force_W.head<2>().norm(), 0.0, 1e-9);
}

// Swinging shut before it reaches the stop, the door's hinge carries its weight and what turns
// it (the centripetal and tangential loads of 0.5 m of door at up to 2 rad/s): the reactions a
// step reports are the accurate run's (dopri45 at rtol 1e-10 of the same door without stops)
// to the step's first order, in joint coordinates (0.078 N off, of 286 N, at the scene's 0.5 ms
// step; half that at half the step) as in maximal coordinates, where the velocity projection's
// impulses hold the centripetal load (without them 29 N was missing at 0.5 s).
TEST(JointSpaceContact, TheReactionsOfAStepAreThoseOfTheAccurateMotion) {
    const auto loaded = test::exampleModel("door_stop.json");
    ASSERT_TRUE(loaded);
    auto accurate = std::make_shared<Model>(*loaded);
    accurate->limits.clear();
    accurate->settings.integrator = IntegratorType::DormandPrince45;
    accurate->settings.relativeTolerance = 1e-10;
    accurate->settings.absoluteTolerance = 1e-12;
    for (const Formulation formulation : {Formulation::Recursive, Formulation::Maximal}) {
        SCOPED_TRACE(formulationName(formulation));
        double apart[2] = {0.0, 0.0}, largest = 0.0, turning = 0.0;
        for (int run = 0; run < 2; ++run) {
            auto model = in(*loaded, formulation);
            model->settings.stepSize /= 1 + run;
            ForwardDynamics reference(accurate);
            ForwardDynamics stepped(model);
            ASSERT_EQ(stepped.formulation().formulation, formulation);
            ASSERT_TRUE(reference.initialize().ok);
            ASSERT_TRUE(stepped.initialize().ok);
            for (int k = 1; k <= 90; ++k) {  // to 0.9 s, before the stop
                const double t = 0.01 * k;
                ASSERT_TRUE(reference.advance(t).ok);
                ASSERT_TRUE(stepped.advance(t).ok);
                Outputs a, b;
                ASSERT_TRUE(stepped.outputs(a).ok);
                ASSERT_TRUE(reference.outputs(b).ok);
                apart[run] =
                    std::max({apart[run], (a.reactions[0].force_W - b.reactions[0].force_W).norm(),
                              (a.reactions[0].torque_W - b.reactions[0].torque_W).norm()});
                largest = std::max(largest, b.reactions[0].force_W.norm());
                turning = std::max(turning, (bodyOrientation(reference.state().q, 0) *
                                             Vec3(layout::angular(reference.state().v, 0)))
                                                .norm());
            }
        }
        EXPECT_GT(turning, 1.5);  // rad/s: the loads of the turn are there to be missed
        EXPECT_GT(largest, 40.0);
        EXPECT_LT(apart[0], 0.1);
        EXPECT_NEAR(apart[0] / apart[1], 2.0, 0.3);  // first order
        std::printf("door, %s: reactions within %.3g N (step h), %.3g N (h/2) of %.3g N\n",
                    std::string(formulationName(formulation)).c_str(), apart[0], apart[1], largest);
    }
}

// A handset dropped on a floor (a free part and contact, scenes/drop_test.json): a free part's
// coordinates are its pose, so the step in joint coordinates is the maximal one (to round-off).
TEST(JointSpaceContact, ADroppedHandsetBouncesAsInMaximalCoordinates) {
    const auto loaded = test::exampleModel("drop_test.json");
    ASSERT_TRUE(loaded);
    // (its sensors, which end the run once it is at rest, left out: 2 s of bouncing and
    // tumbling)
    auto unwatched = std::make_shared<Model>(*loaded);
    unwatched->sensors.clear();
    ForwardDynamics recursive(in(*unwatched, Formulation::Recursive));
    ForwardDynamics maximal(in(*unwatched, Formulation::Maximal));
    ASSERT_EQ(recursive.formulation().formulation, Formulation::Recursive);
    ASSERT_TRUE(recursive.initialize().ok);
    ASSERT_TRUE(maximal.initialize().ok);
    double apart = 0.0, force = 0.0, largest = 0.0;
    int touching = 0;
    for (int k = 1; k <= 200; ++k) {
        const double t = 0.01 * k;
        ASSERT_TRUE(maximal.advance(t).ok);
        ASSERT_TRUE(recursive.advance(t).ok);
        Outputs a, b;
        ASSERT_TRUE(recursive.outputs(a).ok);
        ASSERT_TRUE(maximal.outputs(b).ok);
        apart = std::max(apart, (recursive.state().q - maximal.state().q).cwiseAbs().maxCoeff());
        ASSERT_EQ(a.contacts.size(), b.contacts.size()) << "at t = " << t;
        touching += !a.contacts.empty();
        for (std::size_t c = 0; c < a.contacts.size(); ++c) {
            force =
                std::max(force, std::abs(a.contacts[c].normalForce - b.contacts[c].normalForce));
            largest = std::max(largest, b.contacts[c].normalForce);
        }
    }
    EXPECT_GT(touching, 10);
    std::printf(
        "handset: %d outputs touching, poses within %.2g, normal forces within %.2g of "
        "%.3g N\n",
        touching, apart, force, largest);
    EXPECT_LT(apart, 1e-9);
    EXPECT_LT(force, 1e-8 * largest);
}

// Newton's cradle (five balls on hinges, contact between them): the impacts pass the momentum
// along the row in joint coordinates as in maximal coordinates, every ball's velocity within
// a few mm/s of the maximal run's over 1 s (both first order; measured 1.5 mm/s).
TEST(JointSpaceContact, NewtonsCradlePassesItsMomentumAlongAsInMaximalCoordinates) {
    const auto loaded = test::exampleModel("newtons_cradle.json");
    ASSERT_TRUE(loaded);
    ForwardDynamics recursive(in(*loaded, Formulation::Recursive));
    ForwardDynamics maximal(in(*loaded, Formulation::Maximal));
    ASSERT_EQ(recursive.formulation().formulation, Formulation::Recursive);
    ASSERT_TRUE(recursive.initialize().ok);
    ASSERT_TRUE(maximal.initialize().ok);
    double apart = 0.0, fastest = 0.0;
    for (int k = 1; k <= 100; ++k) {
        const double t = 0.01 * k;
        ASSERT_TRUE(maximal.advance(t).ok);
        ASSERT_TRUE(recursive.advance(t).ok);
        for (int b = 0; b < loaded->bodyCount(); ++b) {
            apart = std::max(apart, (layout::linear(recursive.state().v, b) -
                                     layout::linear(maximal.state().v, b))
                                        .norm());
            fastest = std::max(fastest, layout::linear(maximal.state().v, b).norm());
        }
    }
    EXPECT_GT(fastest, 0.5);
    std::printf("cradle: velocities within %.3g m/s of the maximal run's (fastest %.3g m/s)\n",
                apart, fastest);
    EXPECT_LT(apart, 5e-3);
}

// A hinge with a constant friction torque T₀ (preload alone, as URDF's <dynamics friction> and
// the imported Go1's 0.2 N·m): a 1 kg bar 0.1 m long, level, carries a gravity torque
// m g l = 0.4905 N·m about it. Held by T₀ = 1 N·m it sticks, the friction carrying exactly that
// torque; against T₀ = 0.2 N·m it falls as I θ̈ = −m g l cos θ + T₀ says (I = 3.367e-3 kg m²),
// in joint coordinates as in maximal coordinates to the step's first order (5.7e-3 rad at 1 ms
// over 0.75 rad swung in 0.2 s).
TEST(JointSpaceContact, AHingeWithAConstantFrictionTorqueSticksOrSlipsAsItsLoadSays) {
    const double weightTorque = 9.81 * 0.05;
    const double inertia = (0.1 * 0.1 + 0.02 * 0.02) / 12.0 + 0.05 * 0.05;
    for (const double preload : {1.0, 0.2}) {
        SCOPED_TRACE(preload);
        SceneSpec spec = test::pendulum();
        spec.gravity = Vec3(0.0, -9.81, 0.0);
        spec.settings.integrator = IntegratorType::TimeStepping;
        JointFriction friction;
        friction.preload = preload;
        spec.joints[0].friction = {friction};
        const auto model = test::compiled(spec);
        ASSERT_TRUE(model);
        // Per formulation and step (1 ms, 0.5 ms): the angle's largest distance over 0.2 s from
        // the exact fall, I θ̈ = −m g l cos θ + T₀ while it turns down (RK4 at 10 µs).
        double apart[2][2] = {};
        for (int f = 0; f < 2; ++f)
            for (int halved = 0; halved < 2; ++halved) {
                auto stepped = in(*model, f == 0 ? Formulation::Recursive : Formulation::Maximal);
                stepped->settings.stepSize /= 1 + halved;
                ForwardDynamics sim(stepped);
                ASSERT_EQ(sim.formulation().formulation, stepped->settings.formulation)
                    << sim.formulation().reason;
                ASSERT_TRUE(sim.initialize().ok);
                double theta = 0.0, rate = 0.0;
                auto acceleration = [&](double a) {
                    return preload > weightTorque
                               ? 0.0
                               : (-weightTorque * std::cos(a) + preload) / inertia;
                };
                const double h = 1e-5;
                for (int k = 1; k <= 50; ++k) {
                    ASSERT_TRUE(sim.advance(0.004 * k).ok);
                    for (int n = 0; n < 400; ++n) {
                        const double k1a = rate, k1b = acceleration(theta);
                        const double k2a = rate + 0.5 * h * k1b,
                                     k2b = acceleration(theta + 0.5 * h * k1a);
                        const double k3a = rate + 0.5 * h * k2b,
                                     k3b = acceleration(theta + 0.5 * h * k2a);
                        const double k4a = rate + h * k3b, k4b = acceleration(theta + h * k3a);
                        theta += h / 6.0 * (k1a + 2.0 * k2a + 2.0 * k3a + k4a);
                        rate += h / 6.0 * (k1b + 2.0 * k2b + 2.0 * k3b + k4b);
                    }
                    apart[f][halved] = std::max(apart[f][halved],
                                                std::abs(sim.state().jointCoordinates(0) - theta));
                }
                Outputs out;
                ASSERT_TRUE(sim.outputs(out).ok);
                if (preload > weightTorque) {
                    EXPECT_NEAR(sim.state().jointCoordinates(0), 0.0, 1e-12);
                    EXPECT_NEAR(std::abs(out.frictionForce[0]), weightTorque, 1e-9);
                } else {
                    EXPECT_LT(sim.state().jointCoordinates(0), -0.5);  // it fell
                    EXPECT_NEAR(std::abs(out.frictionForce[0]), preload, 1e-9);
                }
            }
        for (int f = 0; f < 2; ++f) {
            EXPECT_LT(apart[f][0], 1e-2);
            if (preload < weightTorque) {  // first order
                EXPECT_NEAR(apart[f][0] / apart[f][1], 2.0, 0.3);
            }
        }
        std::printf(
            "hinge, friction %.1f N·m: off the exact fall by %.2g rad (1 ms), %.2g rad (0.5 ms) "
            "in joint coordinates, %.2g and %.2g rad in maximal coordinates\n",
            preload, apart[0][0], apart[0][1], apart[1][0], apart[1][1]);
    }
}

// Real robots on a floor: ANYmal C and Unitree Go1 (URDF, floating bases, twelve joints with
// stops, Go1's with 0.2 N·m of friction) dropped 0.1 m onto a floor, no motors: they land on
// their feet, their legs fold onto their stops and they come to rest on the floor (ANYmal on its
// belly, 34 contacts; Go1 on 12). Joint coordinates put the base where maximal coordinates do
// (two first-order schemes through hundreds of impacts: within 1.2 and 1.4 mm), at rest: no
// part falls through the floor or moves at the end.
TEST(JointSpaceContact, LeggedRobotsDroppedOnAFloorLandAsInMaximalCoordinates) {
    const std::pair<test::Robot, double> runs[] = {{test::Robot::AnymalC, 1.5},
                                                   {test::Robot::Go1, 1.5}};
    for (const auto& [which, duration] : runs) {
        SCOPED_TRACE(test::kRobotFiles[static_cast<int>(which)]);
        std::string error;
        const std::optional<SceneSpec> spec = test::robot(which, false, error);
        ASSERT_TRUE(spec) << error;
        const CompileResult compiled = compile(*spec);
        ASSERT_TRUE(compiled.model);
        ForwardDynamics recursive(in(*compiled.model, Formulation::Recursive));
        ForwardDynamics maximal(in(*compiled.model, Formulation::Maximal));
        ASSERT_EQ(recursive.formulation().formulation, Formulation::Recursive)
            << recursive.formulation().reason;
        ASSERT_TRUE(recursive.initialize().ok);
        ASSERT_TRUE(maximal.initialize().ok);
        const Status a = recursive.advance(duration), b = maximal.advance(duration);
        ASSERT_TRUE(a.ok) << a.message;
        ASSERT_TRUE(b.ok) << b.message;
        const int base = 0;  // (the root link: the first part)
        const double dropped = bodyPosition(recursive.state().q, base).z() -
                               bodyPosition(initialState(*compiled.model).q, base).z();
        EXPECT_LT(dropped, -0.05);  // it fell onto the floor ...
        EXPECT_LT((bodyPosition(recursive.state().q, base) - bodyPosition(maximal.state().q, base))
                      .norm(),
                  3e-3);
        double fastest = 0.0;
        for (int k = 0; k < compiled.model->bodyCount(); ++k)
            fastest = std::max(fastest, layout::linear(recursive.state().v, k).norm());
        EXPECT_LT(fastest, 1e-2);  // ... and rests there (m/s)
        Outputs out;
        ASSERT_TRUE(recursive.outputs(out).ok);
        EXPECT_FALSE(out.contacts.empty());
        std::printf(
            "%s: base dropped %.3f m, %.2g m from the maximal run's, parts within %.2g "
            "m/s of rest, %zu contacts\n",
            test::kRobotFiles[static_cast<int>(which)], dropped,
            (bodyPosition(recursive.state().q, base) - bodyPosition(maximal.state().q, base))
                .norm(),
            fastest, out.contacts.size());
    }
}

// The iCub humanoid (URDF: 39 parts, 32 joints with stops and 1 N·m·s/rad dampers, a branched
// tree) bolted down by its root link and let go: its legs, arms and head swing down under
// gravity onto their stops. Joint coordinates move every part as maximal coordinates do (both
// first-order in the step through the stops' impacts: the largest gap between the runs over
// 1 s, 6.2e-6 m at 1 ms, halves with the step).
TEST(JointSpaceContact, TheICubHumanoidBoltedDownSwingsAsInMaximalCoordinates) {
    std::string error;
    const std::optional<SceneSpec> spec = test::robot(test::Robot::ICub, true, error);
    ASSERT_TRUE(spec) << error;
    const CompileResult compiled = compile(*spec);
    ASSERT_TRUE(compiled.model);
    double gap[2] = {};
    for (int run = 0; run < 2; ++run) {
        auto model = std::make_shared<Model>(*compiled.model);
        model->settings.stepSize = 1e-3 / (1 + run);
        ForwardDynamics recursive(in(*model, Formulation::Recursive));
        ForwardDynamics maximal(in(*model, Formulation::Maximal));
        ASSERT_EQ(recursive.formulation().formulation, Formulation::Recursive)
            << recursive.formulation().reason;
        ASSERT_TRUE(recursive.initialize().ok);
        ASSERT_TRUE(maximal.initialize().ok);
        for (int k = 1; k <= 10; ++k) {
            const Status a = recursive.advance(0.1 * k), b = maximal.advance(0.1 * k);
            ASSERT_TRUE(a.ok) << a.message;
            ASSERT_TRUE(b.ok) << b.message;
            for (int p = 0; p < model->bodyCount(); ++p)
                gap[run] = std::max(gap[run], (bodyPosition(recursive.state().q, p) -
                                               bodyPosition(maximal.state().q, p))
                                                  .norm());
        }
    }
    std::printf("iCub bolted down, 1 s: parts apart by %.2g m (1 ms), %.2g m (0.5 ms)\n", gap[0],
                gap[1]);
    EXPECT_LT(gap[0], 2e-5);
    EXPECT_LT(gap[1], 0.6 * gap[0]);
}

// A four-bar swinging free under gravity (scenes/four_bar.json), stepped at the velocity level:
// in joint coordinates its loop is closed by a cut joint whose rows are held with multipliers
// through the step (q̈ with the loop's multipliers, projectLoopClosure after). Against an
// accurate run (dopri45, rtol 1e-10), the crank's angle and every joint's reaction, the cut
// joint's among them (from the step's multipliers), converge at first order, in joint
// coordinates as in maximal coordinates.
TEST(JointSpaceContact, AClosedLoopSteppedAtTheVelocityLevelConvergesAtFirstOrder) {
    const auto loaded = test::exampleModel("four_bar.json");
    ASSERT_TRUE(loaded);
    auto accurate = std::make_shared<Model>(*loaded);
    accurate->settings.integrator = IntegratorType::DormandPrince45;
    accurate->settings.relativeTolerance = 1e-10;
    accurate->settings.absoluteTolerance = 1e-12;
    for (const Formulation formulation : {Formulation::Recursive, Formulation::Maximal}) {
        SCOPED_TRACE(formulationName(formulation));
        double angle[2] = {}, reaction[2] = {}, largest = 0.0;
        for (int run = 0; run < 2; ++run) {
            auto model = in(*loaded, formulation);
            model->settings.integrator = IntegratorType::TimeStepping;
            model->settings.stepSize = 1e-3 / (1 + run);
            ForwardDynamics reference(accurate);
            ForwardDynamics stepped(model);
            ASSERT_EQ(stepped.formulation().formulation, formulation)
                << stepped.formulation().reason;
            ASSERT_TRUE(reference.initialize().ok);
            ASSERT_TRUE(stepped.initialize().ok);
            for (int k = 1; k <= 25; ++k) {
                const double t = 0.01 * k;
                ASSERT_TRUE(reference.advance(t).ok);
                const Status s = stepped.advance(t);
                ASSERT_TRUE(s.ok) << s.message;
                Outputs a, b;
                ASSERT_TRUE(stepped.outputs(a).ok);
                ASSERT_TRUE(reference.outputs(b).ok);
                angle[run] =
                    std::max(angle[run], std::abs(a.jointCoordinates(0) - b.jointCoordinates(0)));
                for (std::size_t j = 0; j < b.reactions.size(); ++j) {
                    reaction[run] = std::max(
                        reaction[run], (a.reactions[j].force_W - b.reactions[j].force_W).norm());
                    largest = std::max(largest, b.reactions[j].force_W.norm());
                }
            }
        }
        EXPECT_NEAR(angle[0] / angle[1], 2.0, 0.3);
        EXPECT_NEAR(reaction[0] / reaction[1], 2.0, 0.3);
        EXPECT_LT(reaction[0], 0.05 * largest);
        std::printf(
            "four-bar, %s: crank within %.2g rad (1 ms), %.2g (0.5 ms); reactions within %.2g N, "
            "%.2g N of %.3g N\n",
            std::string(formulationName(formulation)).c_str(), angle[0], angle[1], reaction[0],
            reaction[1], largest);
    }
}

// Coulomb friction on the joint's reaction (scenes/tilting_incline.json: a 2 kg block on a board
// tilted up at 0.2 rad/s, its slide with μs = 0.55, μ = 0.45): in joint coordinates the bound is
// the reaction the slide passes over the step (the recursive Newton–Euler pass, a fixed point
// with the bound), as in maximal coordinates (the step's joint impulses and the last step's
// projection impulses, which hold the centripetal and Coriolis loads). The block sticks, the friction carrying m g sin θ and the centripetal load of
// turning with the board (m ω² r = 0.024 N at r = 0.3 m along it; the step's first order gives
// 0.0201–0.0205 N), until the board passes atan 0.55 (t = 2.51 s; it slips by the 2.54 s output,
// as in maximal coordinates),
// then slides with the friction μ times the slide's reaction across it (the Coriolis load of
// sliding on the turning board, 2 m ω v, in it: 0.5 N at 0.6 m/s), to its end stop.
TEST(JointSpaceContact, ABlockOnATiltingBoardSticksThenSlidesOnItsSlidesReaction) {
    const auto loaded = test::exampleModel("tilting_incline.json");
    ASSERT_TRUE(loaded);
    int slide = -1;
    for (std::size_t j = 0; j < loaded->joints.size(); ++j)
        if (loaded->joints[j].name == "slide") slide = static_cast<int>(j);
    ASSERT_GE(slide, 0);
    for (const Formulation formulation : {Formulation::Recursive, Formulation::Maximal}) {
        SCOPED_TRACE(formulationName(formulation));
        ForwardDynamics sim(in(*loaded, formulation));
        ASSERT_EQ(sim.formulation().formulation, formulation) << sim.formulation().reason;
        ASSERT_TRUE(sim.initialize().ok);
        const double start = sim.state().jointCoordinates(1);
        double slipped = -1.0, worstHold = 0.0, worstSlide = 0.0;
        for (int k = 1; k <= 290; ++k) {  // to 2.9 s, before the end stop
            const double t = 0.01 * k;
            ASSERT_TRUE(sim.advance(t).ok);
            Outputs out;
            ASSERT_TRUE(sim.outputs(out).ok);
            const double theta = 0.2 * t;
            const double friction = std::abs(out.frictionForce[0]);
            if (slipped < 0.0 && std::abs(sim.state().jointCoordinates(1) - start) > 1e-4)
                slipped = t;
            if (slipped < 0.0 && t < 2.5)
                worstHold = std::max(worstHold, std::abs(friction - 2.0 * 9.81 * std::sin(theta) -
                                                         2.0 * 0.04 * 0.3));
            if (slipped > 0.0 && t > slipped + 0.05) {
                const Vec3& F = out.reactions[static_cast<std::size_t>(slide)].force_J;
                worstSlide = std::max(
                    worstSlide, std::abs(friction - 0.45 * std::hypot(F.x(), F.y())) / friction);
            }
        }
        EXPECT_LT(worstHold, 5e-3);  // N
        EXPECT_NEAR(slipped, 2.54, 0.015);
        EXPECT_LT(worstSlide, 0.01);  // the bound at the step's start, the reaction at its end
        std::printf(
            "tilting incline, %s: holds to %.2g N, slips at %.2f s, slides within %.2g of μ "
            "times its reaction\n",
            std::string(formulationName(formulation)).c_str(), worstHold, slipped, worstSlide);
    }
}

// A 2 kg block resting on a 10 kg platform that heaves as a moving frame, z = A sin(2π f t)
// with A = 2 cm, f = 2 Hz (its acceleration, up to 3.2 m/s², never lifts the block off): the
// block rides on it, and what moves the frame (its hidden joint's reaction) carries both,
// (10 + 2)(g + z̈), to the velocity-level step's first order — in joint coordinates (the
// platform a root whose rates are given) as in maximal coordinates.
TEST(JointSpaceContact, ABlockRidesAHeavingPlatformThatCarriesItsWeightAndItsAcceleration) {
    const char* text = R"json({
      "format": "motus-scene", "version": 1, "units": "SI", "gravity": [0, 0, -9.81],
      "settings": {"integrator": "timeStepping", "stepSize": 0.001},
      "contact": {"enabled": true},
      "parts": [
        {"name": "ground", "ground": true},
        {"name": "platform", "mass": 10, "inertia": [0.9, 0.9, 1.7],
         "geometry": [{"type": "box", "size": [1, 1, 0.1]}],
         "frameMotion": {"translation": [0, 0, "0.02*sin(2*pi*2*time)"]
}
},
        {"name": "block", "mass": 2, "inertia": [0.0067, 0.0067, 0.0067],
         "position": [0, 0, 0.15], "geometry": [{"type": "box", "size": [0.2, 0.2, 0.2]}]}
      ]
})json";
    const io::SceneLoadResult r = io::parseScene(text);
    ASSERT_TRUE(r.scene);
    const auto loaded = test::compiled(*r.scene);
    ASSERT_TRUE(loaded);
    const int platform = loaded->bodyOfPart[1], block = loaded->bodyOfPart[2];
    const int frame = loaded->frameJoints.front();
    std::vector<Eigen::VectorXd> poses[2];
    for (const Formulation formulation : {Formulation::Maximal, Formulation::Recursive}) {
        SCOPED_TRACE(formulationName(formulation));
        ForwardDynamics sim(in(*loaded, formulation));
        ASSERT_EQ(sim.formulation().formulation, formulation) << sim.formulation().reason;
        ASSERT_TRUE(sim.initialize().ok);
        double riding = 0.0, carried = 0.0;
        for (int k = 1; k <= 100; ++k) {
            const double t = 0.01 * k;
            const Status s = sim.advance(t);
            ASSERT_TRUE(s.ok) << s.message;
            const State& state = sim.state();
            riding = std::max(riding, std::abs(bodyPosition(state.q, block).z() -
                                               bodyPosition(state.q, platform).z() - 0.15));
            Outputs out;
            ASSERT_TRUE(sim.outputs(out).ok);
            const double w = 2.0 * kPi * 2.0, zdd = -0.02 * w * w * std::sin(w * t);
            carried = std::max(carried,
                               std::abs(out.reactions[static_cast<std::size_t>(frame)].force_W.z() -
                                        12.0 * (9.81 + zdd)));
            poses[formulation == Formulation::Recursive].push_back(state.q);
        }
        std::printf(
            "heaving platform, %s: the block rides within %.2g m, the frame carries "
            "both within %.2g N of %.3g\n",
            std::string(formulationName(formulation)).c_str(), riding, carried,
            12.0 * (9.81 + 3.16));
        EXPECT_LT(riding, 1e-6);  // (the contact's own settling: measured 4.9e-8 m in both)
        EXPECT_LT(carried, 0.01 * 12.0 * 9.81);
    }
    double apart = 0.0;
    for (std::size_t k = 0; k < poses[0].size(); ++k)
        apart = std::max(apart, (poses[0][k] - poses[1][k]).cwiseAbs().maxCoeff());
    EXPECT_LT(apart, 1e-6);  // (before the platform's rates were its mean ones: 1.8e-5 m)
}

// The engine on its four rubber mounts (soft ball joints, 5e4 N/m) under timeStepping, whose
// velocity-level step holds soft joints implicitly: in joint coordinates (their pull at the
// step's end velocity, the mounts' stiffness and damping added to the tree's mass matrix,
// jointSpaceSoftStep) it goes where the maximal step goes (both first order: each within the
// distance of either from a run at a tenth of the step), its energy balance kept (the work the
// mounts' impulses take out and do not store counted as dissipated), and mounts 20 000 times as
// stiff stay stable at the same step, as the maximal step's do.
TEST(JointSpaceContact, SoftMountsSteppedImplicitlyGoWhereTheMaximalStepGoes) {
    const io::SceneLoadResult r =
        io::loadSceneFile(std::string(MOTUS_SOURCE_DIR) + "/scenes/engine_mount.json");
    ASSERT_TRUE(r.scene);
    struct Run {
        std::vector<Eigen::VectorXd> poses;
        double drift = 0.0, exchanged = 0.0, worstForce = 0.0;
    };
    auto run = [&](SceneSpec spec, Formulation formulation, double h, double until) {
        spec.settings.integrator = IntegratorType::TimeStepping;
        spec.settings.stepSize = h;
        spec.settings.formulation = formulation;
        ForwardDynamics sim(test::compiled(spec));
        EXPECT_EQ(sim.formulation().formulation, formulation) << sim.formulation().reason;
        Run out;
        EXPECT_TRUE(sim.initialize().ok);
        Outputs o;
        EXPECT_TRUE(sim.outputs(o).ok);
        const double start = o.energies.balance();
        for (int k = 1; k <= 40; ++k) {
            const Status st = sim.advance(until * k / 40.0);
            EXPECT_TRUE(st.ok) << st.message;
            if (!st.ok) break;
            EXPECT_TRUE(sim.outputs(o).ok);
            out.poses.push_back(sim.state().q);
            out.drift = std::max(out.drift, std::abs(o.energies.balance() - start));
            out.exchanged = std::max(out.exchanged, std::abs(o.energies.driverWork));
            for (const JointReaction& reaction : o.reactions)
                out.worstForce = std::max(out.worstForce, reaction.force_W.norm());
        }
        return out;
    };
    auto apart = [](const Run& a, const Run& b) {
        double d = 0.0;
        for (std::size_t k = 0; k < std::min(a.poses.size(), b.poses.size()); ++k)
            d = std::max(d, (a.poses[k] - b.poses[k]).cwiseAbs().maxCoeff());
        return d;
    };
    const Run maximal = run(*r.scene, Formulation::Maximal, 1e-3, 2.0);
    const Run recursive = run(*r.scene, Formulation::Recursive, 1e-3, 2.0);
    const Run fine = run(*r.scene, Formulation::Maximal, 1e-4, 2.0);
    const double between = apart(maximal, recursive), maximalError = apart(maximal, fine),
                 recursiveError = apart(recursive, fine);
    std::printf(
        "engine mounts at 1 ms: the formulations %.2g apart, %.2g and %.2g from 0.1 ms; balance "
        "within %.2g and %.2g J of %.3g J put in\n",
        between, maximalError, recursiveError, maximal.drift, recursive.drift, maximal.exchanged);
    EXPECT_EQ(recursive.poses.size(), 40u);
    EXPECT_LT(between, std::max(maximalError, recursiveError));
    EXPECT_LT(recursiveError, 2.0 * maximalError);
    EXPECT_LT(recursive.drift, 2.0 * maximal.drift + 1e-9 * maximal.exchanged);
    // Stiff mounts (1e9 N/m, damped 3e4 N·s/m): their natural period, 1.3 ms, barely above the
    // step; an explicit pull would blow up.
    SceneSpec stiff = *r.scene;
    for (Joint& joint : stiff.joints)
        if (joint.compliance.soft()) {
            joint.compliance.stiffness = 1e9;
            joint.compliance.damping = 3e4;
        }
    const Run hard = run(stiff, Formulation::Recursive, 1e-3, 1.0);
    const Run hardMaximal = run(stiff, Formulation::Maximal, 1e-3, 1.0);
    std::printf("stiff mounts: the formulations %.2g apart, largest reaction %.4g and %.4g N\n",
                apart(hard, hardMaximal), hard.worstForce, hardMaximal.worstForce);
    EXPECT_EQ(hard.poses.size(), 40u);
    // No mount carries more than the whole load: the weight of 43 kg and the rotor's unbalance,
    // 3 kg × 5 mm × (41.9 rad/s)² at 1 s — in either formulation, the mounts' pull reported as
    // the step applied it (μs / h), not as k Φ + c Φ̇ at its end, which for mounts this stiff
    // is k times the step's second-order position error (maximal coordinates reported up to
    // 1055 N from it).
    const double load = 43.0 * 9.81 + 3.0 * 0.005 * 41.9 * 41.9;
    EXPECT_LT(hard.worstForce, load);
    EXPECT_LT(hardMaximal.worstForce, load);
    EXPECT_LT(apart(hard, hardMaximal), 1e-5);
}

// What joint coordinates cannot step is named: Coulomb friction on a joint that closes a loop.
TEST(JointSpaceContact, WhatJointCoordinatesCannotStepWithContactIsNamed) {
    const auto fourBar = test::exampleModel("four_bar.json");
    ASSERT_TRUE(fourBar);
    std::string why;
    const std::optional<JointTree> tree = buildJointTree(*fourBar, initialState(*fourBar), why);
    ASSERT_TRUE(tree) << why;
    ASSERT_FALSE(tree->cuts.empty());
    auto rubbing = std::make_shared<Model>(*fourBar);
    JointFrictionModel friction;
    friction.joint = tree->cuts.front();
    friction.coefficient = 0.3;
    friction.radius = 0.01;
    rubbing->frictions.push_back(friction);
    EXPECT_FALSE(buildJointTree(*rubbing, initialState(*rubbing), why));
    EXPECT_NE(why.find("closes a loop and has Coulomb friction"), std::string::npos) << why;
}

}  // namespace
}  // namespace engine
