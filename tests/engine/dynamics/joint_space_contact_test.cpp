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

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/dynamics/joint_space.h"
#include "engine/io/scene_json.h"
#include "engine/model/layout.h"
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

// What joint coordinates cannot step with contact is named: Coulomb joint friction (its bound
// comes from the joint's reaction), a loop closed among the parts.
TEST(JointSpaceContact, WhatJointCoordinatesCannotStepWithContactIsNamed) {
    const auto incline = test::exampleModel("tilting_incline.json");
    ASSERT_TRUE(incline);
    std::string why;
    EXPECT_FALSE(buildJointTree(*incline, initialState(*incline), why));
    EXPECT_NE(why.find("Coulomb joint friction"), std::string::npos) << why;

    const auto fourBar = test::exampleModel("four_bar.json");
    ASSERT_TRUE(fourBar);
    auto touching = std::make_shared<Model>(*fourBar);
    touching->contact.enabled = true;
    why.clear();
    EXPECT_FALSE(buildJointTree(*touching, initialState(*touching), why));
    EXPECT_NE(why.find("closes a loop"), std::string::npos) << why;
    EXPECT_NE(why.find("stops and contact"), std::string::npos) << why;
}

}  // namespace
}  // namespace engine
