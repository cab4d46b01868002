// The velocity-level step as a pipeline: outputs at a step's end are the step's own results
// (its impulses as multipliers, its contact forces), not a second solve; elsewhere outputs
// solve at the instant.

#include <gtest/gtest.h>

#include <cmath>

#include "engine/analysis/forward_dynamics.h"
#include "engine/math/constants.h"
#include "tests/support/contact_scenes.h"
#include "tests/support/mechanisms.h"
#include "tests/support/scene_builders.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

// The pendulum (hinge axis z) with gravity along −y, hanging straight down at rest.
SceneSpec hanging(IntegratorType integrator) {
    SceneSpec spec = test::pendulum();
    spec.gravity = Vec3(0.0, -9.81, 0.0);
    Transform& X = spec.parts[1].X_WP;
    X.R = Quat(Eigen::AngleAxisd(-0.5 * kPi, Vec3::UnitZ()));  // the link's x along −y
    X.p = Vec3(0.0, -0.05, 0.0);                               // its pivot at the origin
    spec.settings.integrator = integrator;
    spec.settings.stepSize = 1e-3;
    return spec;
}

TEST(StepPipeline, ReactionsAtAStepsEndAreTheStepsImpulsesOverItsLength) {
    // (maximal coordinates: the joint rows' impulses; a tree in joint coordinates has none,
    // its reactions are what the joints transmit over the step, JointSpaceContact.*)
    SceneSpec spec = hanging(IntegratorType::TimeStepping);
    spec.settings.formulation = Formulation::Maximal;
    ForwardDynamics fd(test::compiled(spec));
    ASSERT_TRUE(fd.initialize().ok);
    ASSERT_TRUE(fd.advance(0.1).ok);
    const StepResult& step = fd.lastStep();
    ASSERT_TRUE(step.valid);
    EXPECT_EQ(step.t, fd.state().t);
    EXPECT_DOUBLE_EQ(step.h, 1e-3);
    ASSERT_EQ(step.lambda.size(), fd.model().constraintRows());
    for (Eigen::Index r = 0; r < step.lambda.size(); ++r)
        EXPECT_EQ(step.lambda(r), step.impulse(r) / step.h);

    Outputs out;
    ASSERT_TRUE(fd.outputs(out).ok);
    // At rest the hinge carries the weight: m g upwards on the link (the part of marker I).
    const double m = fd.model().bodies[0].mass;
    ASSERT_EQ(out.reactions.size(), 1u);
    EXPECT_LT((out.reactions[0].force_W + m * spec.gravity).norm(), 1e-9 * m * 9.81);
    EXPECT_GT(out.reactions[0].force_W.y(), 0.0);
    EXPECT_LT(out.reactions[0].torque_W.norm(), 1e-9);
}

TEST(StepPipeline, DriverEffortIsReadFromTheStepNotSolvedAgain) {
    // A crank turned at 2 rad/s through the horizontal: the effort varies within a step, so
    // the step's mean (impulse / h) differs from the instant's KKT multiplier.
    // (timeStepping in both formulations: in maximal coordinates the effort is the motion row's
    // impulse over the step; in joint coordinates what the hinge transmits over the step.)
    const std::pair<IntegratorType, Formulation> runs[] = {
        {IntegratorType::TimeStepping, Formulation::Maximal},
        {IntegratorType::TimeStepping, Formulation::Recursive},
        {IntegratorType::SymplecticEuler, Formulation::Maximal}};
    for (const auto& [integrator, formulation] : runs) {
        SCOPED_TRACE(formulationName(formulation));
        SceneSpec spec = hanging(integrator);
        spec.settings.formulation = formulation;
        spec.motions.push_back(MotionSpec{.id = spec.newId(),
                                          .name = "drive",
                                          .joint = "hinge",
                                          .axis = JointAxis::Rotation,
                                          .level = MotionLevel::Position,
                                          .expression = "2 * time",
                                          .extensions = {}});
        ForwardDynamics fd(test::compiled(spec));
        ASSERT_TRUE(fd.initialize().ok);
        ASSERT_TRUE(fd.advance(0.7).ok);
        Outputs out;
        ASSERT_TRUE(fd.outputs(out).ok);
        ASSERT_EQ(out.driverEffort.size(), 1u);
        const int row = fd.model().jointRows;
        if (integrator == IntegratorType::TimeStepping) {
            ASSERT_TRUE(fd.lastStep().valid);
            if (formulation == Formulation::Maximal) {
                ASSERT_GT(fd.lastStep().lambda.size(), row);
                EXPECT_EQ(out.driverEffort[0], -fd.lastStep().lambda(row));
            }
        } else {
            // Acceleration-level integrators leave no step result: outputs solve at the instant.
            EXPECT_FALSE(fd.lastStep().valid);
        }
        // Either way the effort balances gravity's moment about the hinge (turning at a
        // constant rate about a fixed axis needs no torque): |τ| = m g |x_cm|, x_cm the
        // horizontal lever arm of the centre of mass; the step's mean is within O(h ω) of the
        // instant's.
        const double m = fd.model().bodies[0].mass;
        const double arm = bodyPosition(fd.state().q, 0).x();
        EXPECT_GT(std::abs(arm), 0.005);  // well away from hanging straight down
        EXPECT_NEAR(std::abs(out.driverEffort[0]), m * 9.81 * std::abs(arm), 5e-3 * m * 9.81 * 0.05)
            << integratorName(integrator);
    }
}

TEST(StepPipeline, ARestoredStateHasNoStepResultUntilTheNextStep) {
    SceneSpec spec = test::boxPile(1);
    ForwardDynamics fd(test::compiled(spec));
    ASSERT_TRUE(fd.initialize().ok);
    ASSERT_TRUE(fd.advance(0.2).ok);
    ASSERT_TRUE(fd.lastStep().valid);
    Outputs resting;
    ASSERT_TRUE(fd.outputs(resting).ok);
    // The box rests on its four corners: the contact forces carry its weight.
    double carried = 0.0;
    for (const ContactForce& c : resting.contacts) carried += c.normalForce;
    EXPECT_EQ(resting.contacts.size(), 4u);
    EXPECT_NEAR(carried, fd.model().bodies[0].mass * 9.81, 1e-6);

    fd.restore(fd.state());
    EXPECT_FALSE(fd.lastStep().valid);
    Outputs restored;
    ASSERT_TRUE(fd.outputs(restored).ok);
    EXPECT_TRUE(restored.contacts.empty());  // no step: no contact forces to report
    ASSERT_TRUE(fd.advance(0.201).ok);
    EXPECT_TRUE(fd.lastStep().valid);
}

// A flywheel (I = 0.01 kg·m²) run up by a position-level motion θ = 10 t²: at t = 1 s it spins
// at 20 rad/s, and the motion has done exactly its kinetic energy, ½ I ω² = 2 J, in work. The
// velocity-level steppers meet the motion's angle in the step and its rate in the projection
// (half the speed each, per step): both are the motion's work.
TEST(StepPipeline, AMotionsRunUpIsWorkTheMotionDoes) {
    // (in joint coordinates too: the motion's effort Q on its rate, its work taken at each
    // step's mean rate)
    const std::pair<IntegratorType, Formulation> runs[] = {
        {IntegratorType::TimeStepping, Formulation::Maximal},
        {IntegratorType::TimeStepping, Formulation::Recursive},
        {IntegratorType::SymplecticEuler, Formulation::Maximal},
        {IntegratorType::SymplecticEuler, Formulation::Recursive},
        {IntegratorType::ImplicitEuler, Formulation::Maximal},
        {IntegratorType::RungeKutta4, Formulation::Maximal},
        {IntegratorType::RungeKutta4, Formulation::Recursive}};
    for (const auto& [integrator, formulation] : runs) {
        SCOPED_TRACE(formulationName(formulation));
        SceneSpec spec = test::flywheel(0.01);
        spec.settings.integrator = integrator;
        spec.settings.formulation = formulation;
        spec.settings.stepSize = 1e-3;
        MotionSpec motion;
        motion.id = spec.newId();
        motion.name = "runUp";
        motion.joint = "axle";
        motion.expression = "10*time^2";
        spec.motions.push_back(motion);
        ForwardDynamics sim(test::compiled(spec));
        ASSERT_EQ(sim.formulation().formulation, formulation) << sim.formulation().reason;
        ASSERT_TRUE(sim.initialize().ok);
        ASSERT_TRUE(sim.advance(1.0).ok);
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        EXPECT_NEAR(out.energies.kinetic, 2.0, 1e-9) << integratorName(integrator);
        // First-order steppers to O(h) (measured 2.0005 at 1 ms), rk4 to its order.
        EXPECT_NEAR(out.energies.driverWork, 2.0, 1e-3) << integratorName(integrator);
        EXPECT_NEAR(out.energies.balance(), 0.0, 1e-3) << integratorName(integrator);
    }
}

}  // namespace
}  // namespace engine
