// Force elements and motions against analytic results.

#include <cmath>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "tests/support/mechanisms.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

using test::compiled;

SolverSettings accurate() {
    SolverSettings s;
    s.integrator = IntegratorType::DormandPrince45;
    s.stepSize = 1e-2;
    s.relativeTolerance = 1e-10;
    s.absoluteTolerance = 1e-12;
    return s;
}

// A flywheel (inertia I about z) on a revolute to the ground; no gravity; run accurately.
SceneSpec flywheel(double I) {
    SceneSpec spec = test::flywheel(I);
    spec.settings = accurate();
    return spec;
}

TEST(ForceElements, RotationalSpringGivesATorsionalOscillatorOfFrequencySqrtKOverI) {
    SceneSpec spec = flywheel(0.01);
    spec.parts[1].w_WP_W = Vec3(0, 0, 2.0);  // initial spin 2 rad/s from the free angle
    ForceSpec spring;
    spring.id = spec.newId();
    spring.name = "torsion";
    spring.type = ForceType::RotationalSpringDamper;
    spring.joint = "axle";
    spring.stiffness = 4.0;  // ω = sqrt(4 / 0.01) = 20 rad/s
    spec.forces.push_back(spring);
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    for (int k = 1; k <= 50; ++k) {
        const double t = 0.01 * k;
        ASSERT_TRUE(sim.advance(t).ok);
        // θ(t) = (ω0 / ω) sin(ω t) = 0.1 sin(20 t)
        EXPECT_NEAR(sim.state().jointCoordinates(0), 0.1 * std::sin(20.0 * t), 1e-8) << t;
    }
}

TEST(ForceElements, RotationalDamperDissipatesWhatTheWheelLoses) {
    SceneSpec spec = flywheel(0.01);
    spec.parts[1].w_WP_W = Vec3(0, 0, 10.0);
    ForceSpec damper;
    damper.id = spec.newId();
    damper.name = "drag";
    damper.type = ForceType::RotationalSpringDamper;
    damper.joint = "axle";
    damper.damping = 0.02;  // ω(t) = ω0 exp(−c t / I) = 10 exp(−2 t)
    spec.forces.push_back(damper);
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(1.0).ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_NEAR(out.jointRates(0), 10.0 * std::exp(-2.0), 1e-8);
    EXPECT_NEAR(out.energies.dissipated,
                0.5 * 0.01 * (100.0 - out.jointRates(0) * out.jointRates(0)), 1e-9);
    EXPECT_NEAR(out.energies.balance(), 0.5 * 0.01 * 100.0, 1e-9);
    // The angle runs past π and is reported unwound: θ = (ω0 I / c)(1 − e^(−2)) = 4.32 rad.
    EXPECT_NEAR(out.jointCoordinates(0), 5.0 * (1.0 - std::exp(-2.0)), 1e-7);
}

TEST(ForceElements, ConstantTorqueSpinsAFreeBodyUpAtTOverI) {
    SceneSpec spec;
    spec.gravity = Vec3::Zero();
    spec.settings = accurate();
    Part body = test::box(spec, "body", 1.0, Vec3(0.1, 0.1, 0.1), Vec3::Zero());
    body.I_Pcm_P = Vec3(0.5, 0.5, 0.25).asDiagonal();
    test::addMarker(spec, body, "m", Vec3(0.3, 0, 0));
    spec.parts.push_back(body);
    ForceSpec torque;
    torque.id = spec.newId();
    torque.name = "torque";
    torque.type = ForceType::PointTorque;
    torque.markerI = {"body", "m"};
    torque.components[2] = "0.5";
    spec.forces.push_back(torque);
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(2.0).ok);
    // About the symmetric z axis: ω = T t / I = 0.5 · 2 / 0.25 = 4 rad/s; the COM stays put.
    EXPECT_NEAR((bodyOrientation(sim.state().q, 0) * Vec3(sim.state().v.segment<3>(3))).z(), 4.0,
                1e-9);
    EXPECT_LT(bodyPosition(sim.state().q, 0).norm(), 1e-12);
}

TEST(ForceElements, OffCentreForceAcceleratesAndTurnsAFreeBody) {
    // F = (0, 1, 0) N at (0.3, 0, 0) from the COM of a 2 kg body: a = F / m and
    // α = (r × F) / I_z at the first instant.
    SceneSpec spec;
    spec.gravity = Vec3::Zero();
    spec.settings = accurate();
    Part body = test::box(spec, "body", 2.0, Vec3(0.1, 0.1, 0.1), Vec3::Zero());
    body.I_Pcm_P = Vec3(0.5, 0.5, 0.25).asDiagonal();
    test::addMarker(spec, body, "m", Vec3(0.3, 0, 0));
    spec.parts.push_back(body);
    ForceSpec force;
    force.id = spec.newId();
    force.name = "push";
    force.type = ForceType::PointForce;
    force.markerI = {"body", "m"};
    force.components[1] = "1";
    spec.forces.push_back(force);
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    Workspace ws;
    ASSERT_TRUE(prepareWorkspace(sim.model(), sim.state(), ws).ok);
    ASSERT_TRUE(computeAccelerations(sim.model(), 0.0, sim.state().q, sim.state().v,
                                     sim.state().jointCoordinates, sim.state().lagged, ws)
                    .ok);
    EXPECT_NEAR(ws.vdot(1), 0.5, 1e-15);
    const Vec3 alpha_W = bodyOrientation(sim.state().q, 0) * Vec3(ws.vdot.segment<3>(3));
    EXPECT_NEAR(alpha_W.z(), 0.3 / 0.25, 1e-14);
}

TEST(ForceElements, BushingDeflectsByLoadOverStiffness) {
    // A 1 kg block hangs from the ground on a bushing; with damping it settles where
    // k_z δ = m g, and a small offset torque about x tilts it by T / k_θ.
    SceneSpec spec;
    spec.settings = accurate();
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "mount", Vec3::Zero());
    spec.parts.push_back(ground);
    Part block = test::box(spec, "block", 1.0, Vec3(0.05, 0.05, 0.05), Vec3::Zero());
    test::addMarker(spec, block, "mount", Vec3::Zero());
    spec.parts.push_back(block);
    ForceSpec bushing;
    bushing.id = spec.newId();
    bushing.name = "rubber";
    bushing.type = ForceType::Bushing;
    bushing.markerI = {"block", "mount"};
    bushing.markerJ = {"ground", "mount"};
    bushing.translationalStiffness = Vec3(2e4, 2e4, 1e4);
    bushing.translationalDamping = Vec3(100, 100, 100);
    bushing.rotationalStiffness = Vec3(50, 50, 50);
    bushing.rotationalDamping = Vec3(0.5, 0.5, 0.5);
    spec.forces.push_back(bushing);
    ForceSpec torque;
    torque.id = spec.newId();
    torque.name = "twist";
    torque.type = ForceType::PointTorque;
    torque.markerI = {"block", "mount"};
    torque.components[0] = "0.05";
    spec.forces.push_back(torque);
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(3.0).ok);
    EXPECT_NEAR(bodyPosition(sim.state().q, 0).z(), -9.81 / 1e4, 1e-9);
    const Eigen::AngleAxisd tilt(bodyOrientation(sim.state().q, 0));
    EXPECT_NEAR(tilt.angle(), 0.05 / 50.0, 1e-8);
    EXPECT_NEAR(std::abs(tilt.axis().x()), 1.0, 1e-6);
}

TEST(Motions, ConstantSpeedMotorCarriesTheGravityTorqueOfAHorizontalArm) {
    // A 1 kg, 0.1 m arm turned at 1 rev/s about +y in a vertical plane: with no angular
    // acceleration the motor torque balances gravity, τ = −m g d cos θ (sign by axis).
    SceneSpec spec = test::chain(1, IntegratorType::DormandPrince45, 1e-3);
    spec.settings = accurate();
    spec.settings.stepSize = 1e-3;
    MotionSpec motor;
    motor.id = spec.newId();
    motor.name = "motor";
    motor.joint = "j0";
    motor.expression = "360d*time";
    spec.motions.push_back(motor);
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    for (int k = 0; k <= 100; ++k) {
        const double t = 0.01 * k;
        if (k > 0) {
            ASSERT_TRUE(sim.advance(t).ok);
        }
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        // Gravity's torque about the pivot is m g times the COM's horizontal lever arm; the
        // motor must supply exactly that (no angular acceleration).
        const Vec3 com = bodyPosition(sim.state().q, 0);
        EXPECT_NEAR(std::abs(out.driverEffort[0]), 9.81 * std::abs(com.x()), 1e-7) << t;
        EXPECT_NEAR(out.jointRates(0), 2 * kPi, 1e-7);
    }
}

TEST(Motions, VelocityAndAccelerationLevelMotionsDriveTheCoordinate) {
    for (MotionLevel level : {MotionLevel::Velocity, MotionLevel::Acceleration}) {
        SceneSpec spec = flywheel(0.01);
        MotionSpec motion;
        motion.id = spec.newId();
        motion.name = "drive";
        motion.joint = "axle";
        motion.level = level;
        motion.expression =
            level == MotionLevel::Velocity ? "3*time" : "3";  // θ = 1.5 t² either way
        spec.motions.push_back(motion);
        ForwardDynamics sim(compiled(spec));
        ASSERT_TRUE(sim.initialize().ok);
        ASSERT_TRUE(sim.advance(1.0).ok);
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        EXPECT_NEAR(out.jointCoordinates(0), 1.5, 1e-7);
        EXPECT_NEAR(out.jointRates(0), 3.0, 1e-7);
        // τ = I θ̈ = 0.03 N·m, and the work done equals the kinetic energy.
        EXPECT_NEAR(std::abs(out.driverEffort[0]), 0.03, 1e-7);
        EXPECT_NEAR(out.energies.driverWork, out.energies.kinetic, 1e-7);
    }
}

// A motion that starts with a corner at time 0 (a ramp from rest) runs with its own slope from
// the first instant: what the expression says before 0 is not part of the run. At the velocity
// level, rk4 then keeps its order: θ = 5 t² to 1e-9 at 1 ms (averaging the corner with the
// zero before it made rk4 a first-order method here: 3e-7 rad).
TEST(Motions, AMotionWithACornerAtTheStartRunsFromItsOwnSlope) {
    for (MotionLevel level : {MotionLevel::Velocity, MotionLevel::Position}) {
        SceneSpec spec = test::flywheel(0.01);
        spec.settings.integrator = IntegratorType::RungeKutta4;
        spec.settings.stepSize = 1e-3;
        MotionSpec motion;
        motion.id = spec.newId();
        motion.name = "runUp";
        motion.joint = "axle";
        motion.level = level;
        motion.expression = level == MotionLevel::Velocity ? "ramp(time, 0, 2, 0, 20)"
                                                           : "ramp(time, 0, 2, 0, 20)^2 / 20";
        spec.motions.push_back(motion);
        ForwardDynamics sim(compiled(spec));
        ASSERT_TRUE(sim.initialize().ok);
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        EXPECT_NEAR(std::abs(out.driverEffort[0]), 0.01 * 10.0, 1e-9);  // τ = I θ̈ from 0 on
        ASSERT_TRUE(sim.advance(1.0).ok);
        ASSERT_TRUE(sim.outputs(out).ok);
        EXPECT_NEAR(out.jointCoordinates(0), 5.0, 1e-9);
        EXPECT_NEAR(out.jointRates(0), 10.0, 1e-9);
    }
}

TEST(Motions, AMotionFightingAFixedJointStopsWithAnErrorNamingIt) {
    SceneSpec spec = flywheel(0.01);
    // Weld the wheel to the ground as well: the motor cannot turn it.
    test::addMarker(spec, spec.parts[0], "weld", Vec3(0.05, 0, 0));
    test::addMarker(spec, spec.parts[1], "weld", Vec3(0.05, 0, 0));
    spec.joints.push_back(test::joint(spec, "weld", JointType::Fixed, "wheel.weld", "ground.weld"));
    MotionSpec motor;
    motor.id = spec.newId();
    motor.name = "motor";
    motor.joint = "axle";
    motor.expression = "time";
    spec.motions.push_back(motor);
    ForwardDynamics sim(compiled(spec));
    Status s = sim.initialize();
    if (s.ok) s = sim.advance(0.5);
    ASSERT_FALSE(s.ok);
    EXPECT_NE(s.message.find("motion 'motor'"), std::string::npos) << s.message;
    EXPECT_NE(s.message.find("t = "), std::string::npos) << s.message;
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

ForceSpec controller(SceneSpec& spec, const std::string& joint, const std::string& target,
                     double kp, double kd) {
    ForceSpec c;
    c.id = spec.newId();
    c.name = "servo";
    c.type = ForceType::JointController;
    c.joint = joint;
    c.components[0] = target;
    c.stiffness = kp;
    c.damping = kd;
    return c;
}

TEST(JointController, HoldsAHangingLinkWhereItsStiffnessBalancesGravity) {
    // The chain-1 link (1 kg, 0.1 m, COM 0.05 m out) held at θd = 0 (horizontal) by
    // kp = 50 N·m/rad: it sags until kp θ = m g d cos θ.
    SceneSpec spec = test::chain(1, IntegratorType::DormandPrince45, 1e-3);
    spec.settings = accurate();
    spec.forces.push_back(controller(spec, "j0", "0", 50.0, 5.0));
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(5.0).ok);
    double theta = 0.0;
    for (int k = 0; k < 50; ++k) theta = 9.81 * 0.05 * std::cos(theta) / 50.0;
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_NEAR(std::abs(out.jointCoordinates(0)), theta, 1e-7);
    EXPECT_NEAR(std::abs(out.controllerEffort[0]), 50.0 * theta, 1e-5);
    EXPECT_LT(std::abs(out.jointRates(0)), 1e-6);
}

TEST(JointController, TracksATrajectoryAndItsWorkClosesTheEnergyBalance) {
    SceneSpec spec = test::chain(1, IntegratorType::DormandPrince45, 1e-3);
    spec.settings = accurate();
    spec.forces.push_back(controller(spec, "j0", "0.3*sin(2*pi*time)", 400.0, 10.0));
    spec.forces.back().maxEffort = 5.0;
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    const double balance0 = out.energies.balance();
    double worstTracking = 0.0, worstBalance = 0.0, largestEffort = 0.0;
    for (int k = 1; k <= 300; ++k) {
        const double t = 0.01 * k;
        ASSERT_TRUE(sim.advance(t).ok);
        ASSERT_TRUE(sim.outputs(out).ok);
        if (t > 1.0)
            worstTracking = std::max(
                worstTracking, std::abs(out.jointCoordinates(0) - 0.3 * std::sin(2 * kPi * t)));
        worstBalance = std::max(worstBalance, std::abs(out.energies.balance() - balance0));
        largestEffort = std::max(largestEffort, std::abs(out.controllerEffort[0]));
    }
    // Gravity's 0.49 N·m against kp = 400: about 1.2e-3 rad of lag and sag.
    EXPECT_LT(worstTracking, 5e-3);
    EXPECT_LT(worstBalance, 1e-6);
    EXPECT_LE(largestEffort, 5.0 + 1e-12);    // the limit holds
    EXPECT_NE(out.energies.driverWork, 0.0);  // the controller did work
}

}  // namespace
}  // namespace engine
