// Joint friction against closed forms: a block on a slide down an incline sticks (exactly) below
// the friction angle and slides at g (sin θ − μ cos θ) above it; the static coefficient holds a
// block at rest that the dynamic one would let slide; a block launched along a level slide
// stops after v0² / (2 μ g) with the friction's work closing the energy balance to round-off;
// a wheel on a pin slows at μ r m g / I; viscous friction decays as e^(−c t / m); bad friction
// is refused at its JSON path.

#include <cmath>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/kinematic_analysis.h"
#include "engine/io/scene_json.h"
#include "engine/math/constants.h"
#include "engine/state/state.h"
#include "tests/support/mechanisms.h"
#include "tests/support/scene_errors.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

using test::compiled;

constexpr double kG = 9.81, kMass = 2.0;

// A 2 kg block on a slide along world x through its centre of mass, gravity tilted by θ so
// that the slide is an incline going down towards −x. The slide's reaction across it is
// m g cos θ and it carries no torque (the markers sit at the centre of mass).
SceneSpec blockOnIncline(double theta, const JointFriction& friction) {
    SceneSpec spec;
    spec.settings.integrator = IntegratorType::TimeStepping;
    spec.gravity = kG * Vec3(-std::sin(theta), 0.0, -std::cos(theta));
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "rail", Vec3::Zero(), Vec3::UnitX());
    spec.parts.push_back(ground);
    Part block = test::box(spec, "block", kMass, Vec3(0.2, 0.1, 0.1), Vec3::Zero());
    test::addMarker(spec, block, "rail", Vec3::Zero(), Vec3::UnitX());
    spec.parts.push_back(block);
    Joint slide = test::joint(spec, "slide", JointType::Prismatic, "block.rail", "ground.rail");
    slide.friction = {friction};
    spec.joints.push_back(slide);
    return spec;
}

JointFriction coulomb(double mu, double muStatic = -1.0) {
    JointFriction f;
    f.coefficient = mu;
    f.staticCoefficient = muStatic;
    return f;
}

double degrees(double d) {
    return d * kPi / 180.0;
}

TEST(JointFriction, ABlockSticksBelowTheFrictionAngleAndSlidesAtTheClosedFormAbove) {
    {
        ForwardDynamics sim(compiled(blockOnIncline(degrees(20.0), coulomb(0.5))));
        ASSERT_TRUE(sim.initialize().ok);
        ASSERT_TRUE(sim.advance(1.0).ok);
        EXPECT_LT(std::abs(sim.state().jointCoordinates(0)), 1e-6);
        // Holding it takes the weight's share along the slide, up the slide (+x).
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        ASSERT_EQ(out.frictionForce.size(), 1u);
        EXPECT_NEAR(out.frictionForce[0], kMass * kG * std::sin(degrees(20.0)), 1e-8);
    }
    {
        const double theta = degrees(35.0), mu = 0.5;
        ForwardDynamics sim(compiled(blockOnIncline(theta, coulomb(mu))));
        ASSERT_TRUE(sim.initialize().ok);
        ASSERT_TRUE(sim.advance(1.0).ok);
        const double a = kG * (std::sin(theta) - mu * std::cos(theta));
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        EXPECT_NEAR(-out.jointRates(0), a * 1.0, 0.01 * a);
        // Sliding, the friction is μ times the reaction across the slide, against the motion.
        EXPECT_NEAR(out.frictionForce[0], mu * kMass * kG * std::cos(theta), 1e-8);
    }
}

TEST(JointFriction, TheStaticCoefficientHoldsWhatTheDynamicOneWouldLetSlide) {
    // At 30° (tan 30° = 0.577): μs = 0.6 holds the block at rest; launched down the slope it
    // slides on with μ = 0.4, speeding up at g (sin θ − 0.4 cos θ).
    const double theta = degrees(30.0);
    ForwardDynamics held(compiled(blockOnIncline(theta, coulomb(0.4, 0.6))));
    ASSERT_TRUE(held.initialize().ok);
    ASSERT_TRUE(held.advance(1.0).ok);
    EXPECT_LT(std::abs(held.state().jointCoordinates(0)), 1e-6);

    SceneSpec launched = blockOnIncline(theta, coulomb(0.4, 0.6));
    launched.parts[1].v_WPo_W = Vec3(-1.0, 0, 0);
    ForwardDynamics sim(compiled(launched));
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(1.0).ok);
    const double a = kG * (std::sin(theta) - 0.4 * std::cos(theta));
    EXPECT_NEAR(-sim.state().v(0), 1.0 + a, 0.01 * a);
}

TEST(JointFriction, ABlockLaunchedAlongALevelSlideStopsWhereItsEnergyRunsOut) {
    // v0 = 2 m/s, μ = 0.3: it stops after v0² / (2 μ g) = 0.680 m, in v0 / (μ g) = 0.680 s,
    // and stays. The friction's work (dissipated energy) is the kinetic energy it had, to
    // round-off: on a level slide the step's energy balance is exact.
    const double mu = 0.3, v0 = 2.0;
    SceneSpec spec = blockOnIncline(0.0, coulomb(mu));
    spec.parts[1].v_WPo_W = Vec3(v0, 0, 0);
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    const double balance0 = out.energies.balance();
    const double kinetic0 = out.energies.kinetic;
    double worst = 0.0;
    for (int k = 1; k <= 150; ++k) {
        ASSERT_TRUE(sim.advance(0.01 * k).ok);
        ASSERT_TRUE(sim.outputs(out).ok);
        worst = std::max(worst, std::abs(out.energies.balance() - balance0));
    }
    const double distance = v0 * v0 / (2.0 * mu * kG);
    EXPECT_NEAR(sim.state().jointCoordinates(0), distance, 0.005 * distance);
    // Stuck: to round-off of round-off (the bound holds the last step's projection impulses,
    // round-off on a level slide: 5e-48 m/s).
    EXPECT_LT(std::abs(sim.state().v(0)), 1e-30);
    EXPECT_LT(worst, 1e-10 * kinetic0);
    EXPECT_NEAR(out.energies.dissipated, kinetic0, 1e-10 * kinetic0);
}

TEST(JointFriction, AWheelOnAPinSlowsAtTheFrictionTorqueOverItsInertia) {
    // A 2 kg wheel on a level axle (a revolute about +y through its centre): the pin carries its
    // weight, so the friction torque is μ r m g, and ω falls at μ r m g / I until it stops.
    SceneSpec spec;
    spec.settings.integrator = IntegratorType::TimeStepping;
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "axle", Vec3::Zero(), Vec3::UnitY());
    spec.parts.push_back(ground);
    Part wheel = test::box(spec, "wheel", kMass, Vec3(0.3, 0.05, 0.3), Vec3::Zero());
    test::addMarker(spec, wheel, "hub", Vec3::Zero(), Vec3::UnitY());
    wheel.w_WP_W = Vec3(0, 10.0, 0);
    spec.parts.push_back(wheel);
    Joint axle = test::joint(spec, "axle", JointType::Revolute, "wheel.hub", "ground.axle");
    JointFriction f = coulomb(0.2);
    f.radius = 0.01;
    f.preload = 0.01;  // N·m, with it
    axle.friction = {f};
    spec.joints.push_back(axle);
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    const double inertia = kMass * (0.3 * 0.3 + 0.3 * 0.3) / 12.0;
    const double torque = 0.2 * 0.01 * kMass * kG + 0.01;
    ASSERT_TRUE(sim.advance(1.0).ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_NEAR(out.jointRates(0), 10.0 - torque / inertia * 1.0, 1e-6);
    EXPECT_NEAR(out.frictionForce[0], -torque, 1e-8);
    // The joint's reaction includes it: the torque on the wheel about the axle.
    EXPECT_NEAR(out.reactions[0].torque_J.z(), -torque, 1e-8);
}

// A ball held by a ball joint at its centre (a sphere's inertia I about every axis), spun
// about an oblique axis. `gravity`: the joint carries its weight m g.
SceneSpec ballOnBallJoint(const JointFriction& f, const Vec3& spin, bool gravity) {
    SceneSpec spec;
    spec.settings.integrator = IntegratorType::TimeStepping;
    if (!gravity) spec.gravity = Vec3::Zero();
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "socket", Vec3::Zero());
    spec.parts.push_back(ground);
    Part ball = test::box(spec, "ball", kMass, Vec3(0.1, 0.1, 0.1), Vec3::Zero());
    ball.I_Pcm_P = Mat3::Identity() * 0.01;
    test::addMarker(spec, ball, "centre", Vec3::Zero());
    ball.w_WP_W = spin;
    spec.parts.push_back(ball);
    Joint socket =
        test::joint(spec, "socket", JointType::Spherical, "ball.centre", "ground.socket");
    socket.friction = {f};
    spec.joints.push_back(socket);
    return spec;
}

TEST(JointFriction, ABallJointSlowsItsSpinAtTheFrictionTorqueAboutAnyAxisAndThenSticks) {
    // ω0 = 10 rad/s about (1, 2, 2)/3, I = 0.01: with a constant friction torque of 0.02 N·m,
    // ω falls at 2 rad/s² about the same axis and stops, exactly, at 5 s; the friction's work
    // is the kinetic energy it had.
    const Vec3 axis = Vec3(1, 2, 2) / 3.0;
    JointFriction f;
    f.preload = 0.02;
    ForwardDynamics sim(compiled(ballOnBallJoint(f, 10.0 * axis, false)));
    ASSERT_TRUE(sim.initialize().ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    const double kinetic0 = out.energies.kinetic;
    EXPECT_NEAR(kinetic0, 0.5 * 0.01 * 100.0, 1e-12);
    const Vec3 w0 = sim.state().v.segment<3>(3);  // (body axes)
    for (const double t : {1.0, 2.5, 4.0}) {
        ASSERT_TRUE(sim.advance(t).ok);
        ASSERT_TRUE(sim.outputs(out).ok);
        const Vec3 w = bodyOrientation(sim.state().q, 0) * Vec3(sim.state().v.segment<3>(3));
        EXPECT_NEAR(w.norm(), 10.0 - 2.0 * t, 1e-6) << "t " << t;
        EXPECT_LT((w.normalized() - axis).norm(), 1e-9) << "t " << t << ": about the same axis";
        EXPECT_NEAR(out.frictionForce[0], 0.02, 1e-9) << "t " << t;
    }
    ASSERT_TRUE(sim.advance(6.0).ok);
    EXPECT_EQ(sim.state().v.segment<3>(3).norm(), 0.0) << w0.transpose();  // stuck, exactly
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_NEAR(out.energies.dissipated, kinetic0, 1e-9 * kinetic0);
}

TEST(JointFriction, ABallJointCarryingAWeightRubsWithMuRTimesItsLoad) {
    // Spun about the vertical, the joint carries m g: the torque is μ r m g + preload.
    JointFriction f = coulomb(0.3);
    f.radius = 0.02;
    ForwardDynamics sim(compiled(ballOnBallJoint(f, Vec3(0, 0, 10.0), true)));
    ASSERT_TRUE(sim.initialize().ok);
    const double torque = 0.3 * 0.02 * kMass * kG;
    ASSERT_TRUE(sim.advance(0.5).ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    const Vec3 w = bodyOrientation(sim.state().q, 0) * Vec3(sim.state().v.segment<3>(3));
    EXPECT_NEAR(w.z(), 10.0 - torque / 0.01 * 0.5, 1e-6);
    EXPECT_NEAR(out.frictionForce[0], torque, 1e-8);
}

TEST(JointFriction, ABallJointHoldsAnArmWhoseMomentItsFrictionExceeds) {
    // A 2 kg arm 0.3 m long on a ball joint, released 30° from hanging: gravity's moment about
    // the joint is m g d sin 30° = 2.94 N·m. A static friction torque of 3.1 N·m holds it,
    // exactly; 2.8 N·m lets it fall.
    for (const double preload : {3.1, 2.8}) {
        SceneSpec spec;
        spec.settings.integrator = IntegratorType::TimeStepping;
        Part ground = test::groundPart(spec);
        test::addMarker(spec, ground, "socket", Vec3::Zero());
        spec.parts.push_back(ground);
        const Quat tilt(Eigen::AngleAxisd(kPi / 6.0, Vec3(1, 1, 0).normalized()));
        Part arm =
            test::box(spec, "arm", kMass, Vec3(0.04, 0.04, 0.6), tilt * Vec3(0, 0, -0.3), tilt);
        test::addMarker(spec, arm, "top", Vec3(0, 0, 0.3));
        spec.parts.push_back(arm);
        Joint socket =
            test::joint(spec, "socket", JointType::Spherical, "arm.top", "ground.socket");
        JointFriction f;
        f.preload = preload;
        socket.friction = {f};
        spec.joints.push_back(socket);
        ForwardDynamics sim(compiled(spec));
        ASSERT_TRUE(sim.initialize().ok);
        const Vec3 start = sim.state().q.head<3>();
        ASSERT_TRUE(sim.advance(1.0).ok);
        const double moved = (sim.state().q.head<3>() - start).norm();
        if (preload > 3.0)
            EXPECT_LT(moved, 1e-9) << "held";
        else
            EXPECT_GT(moved, 0.01) << "falls";
    }
}

TEST(JointFriction, ViscousFrictionDecaysTheSpeedExponentially) {
    // Viscous only: an applied force, so any integrator takes it (dopri45 here).
    JointFriction f;
    f.viscous = 3.0;
    SceneSpec spec = blockOnIncline(0.0, f);
    spec.settings.integrator = IntegratorType::DormandPrince45;
    spec.parts[1].v_WPo_W = Vec3(1.0, 0, 0);
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    for (int k = 1; k <= 10; ++k) {
        const double t = 0.1 * k;
        ASSERT_TRUE(sim.advance(t).ok);
        EXPECT_NEAR(sim.state().v(0), std::exp(-3.0 * t / kMass), 1e-8) << t;
    }
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_NEAR(out.frictionForce[0], -3.0 * sim.state().v(0), 1e-9);
    // Its work is dissipated: the balance closes to the integrator's tolerance.
    EXPECT_NEAR(out.energies.dissipated, 0.5 * kMass * (1.0 - std::pow(sim.state().v(0), 2)), 1e-8);
}

TEST(JointFriction, AKinematicAnalysisCountsTheSlidingFrictionInTheMotionsEffort) {
    // The block driven along a level slide at 0.5 m/s: the motion's force is the friction,
    // μ m g = 5.886 N (inverse dynamics), and the work it does is dissipated.
    SceneSpec spec = blockOnIncline(0.0, coulomb(0.3));
    MotionSpec drive = test::motion(spec, "drive", "slide", "0.5*time");
    drive.axis = JointAxis::Translation;
    spec.motions.push_back(drive);
    const auto model = compiled(spec);
    KinematicOptions options;
    options.duration = 1.0;
    std::vector<double> efforts, dissipated, work;
    const KinematicResult r =
        kinematicAnalysis(model, options, [&](const KinematicFrame& frame, std::string&) {
            efforts.push_back(frame.outputs.driverEffort[0]);
            dissipated.push_back(frame.state.dissipatedEnergy);
            work.push_back(frame.state.driverWork);
            return true;
        });
    ASSERT_TRUE(r.status.ok) << r.status.message;
    ASSERT_GT(efforts.size(), 10u);
    for (std::size_t k = 1; k < efforts.size(); ++k)
        EXPECT_NEAR(efforts[k], 0.3 * kMass * kG, 1e-9) << k;
    // In 1 s it slid 0.5 m against μ m g: 2.943 J, all of the motion's work.
    EXPECT_NEAR(dissipated.back(), 0.3 * kMass * kG * 0.5, 1e-6);
    EXPECT_NEAR(work.back(), dissipated.back(), 1e-9);
}

// ---- Bad friction ------------------------------------------------------------------------

TEST(JointFriction, BadFrictionIsRefusedWithItsPathAndReason) {
    const std::string slide =
        R"({"name": "slide", "type": "prismatic", "markerI": "arm.m", "markerJ": "ground.m", )";
    EXPECT_EQ(test::firstJointError(slide + R"("friction": {"coefficient": -0.2}})"),
              "/joints/0/friction/coefficient: coefficient must be zero or positive, got -0.2");
    EXPECT_EQ(test::firstJointError(slide + R"("friction": {"coefficient": 0.2, "radius": 0.01}})"),
              "/joints/0/friction/radius: joint 'slide': a radius is the lever of an angle's "
              "friction; a slide's is its bearing length ('length')");
    EXPECT_EQ(test::firstJointError(slide + R"("friction": {"staticCoefficient": -1}})"),
              "/joints/0/friction/staticCoefficient: staticCoefficient must be zero or "
              "positive, got -1");
    EXPECT_EQ(test::firstJointError(slide + R"("friction": {"mu": 0.2}})")
                  .rfind("/joints/0/friction/mu: unknown key 'mu'", 0),
              0u);
    EXPECT_EQ(
        test::firstJointError(
            R"({"name": "cross", "type": "universal", "markerI": "arm.m", "markerJ": "ground.m",
                      "friction": [{"coefficient": 0.1}, null]})")
            .rfind("/joints/0/friction: joint 'cross' (universal): friction goes on revolute, "
                   "prismatic, cylindrical and spherical joints",
                   0),
        0u);
    // A ball joint's friction is an angle's: its lever is the ball's radius.
    EXPECT_EQ(
        test::firstJointError(
            R"({"name": "ball", "type": "spherical", "markerI": "arm.m", "markerJ": "ground.m",
                      "friction": {"coefficient": 0.1, "length": 0.02}})")
            .rfind("/joints/0/friction/length: ", 0),
        0u);
    EXPECT_EQ(
        test::firstJointError(
            R"({"name": "sleeve", "type": "cylindrical", "markerI": "arm.m", "markerJ": "ground.m",
                      "friction": [{"coefficient": 0.1, "length": 0.2}]})"),
        "/joints/0/friction/0/length: joint 'sleeve': a length is the lever of a slide's "
        "friction; an angle's is its pin radius ('radius')");
}

TEST(JointFriction, FrictionSurvivesASaveAndALoad) {
    JointFriction f = coulomb(0.3, 0.45);
    f.length = 0.12;
    f.preload = 2.0;
    f.viscous = 0.5;
    SceneSpec spec = blockOnIncline(0.1, f);
    const io::SceneLoadResult loaded = io::parseScene(io::sceneToJson(spec));
    ASSERT_TRUE(loaded.scene);
    ASSERT_EQ(loaded.scene->joints[0].friction.size(), 1u);
    const JointFriction& back = loaded.scene->joints[0].friction[0];
    EXPECT_EQ(back.coefficient, 0.3);
    EXPECT_EQ(back.staticCoefficient, 0.45);
    EXPECT_EQ(back.length, 0.12);
    EXPECT_EQ(back.preload, 2.0);
    EXPECT_EQ(back.viscous, 0.5);
    EXPECT_EQ(loaded.scene->settings.integrator, IntegratorType::TimeStepping);
}

}  // namespace
}  // namespace engine
