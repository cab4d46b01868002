// Mechanisms riding on driven frames against closed forms: a bead on a hoop turned at
// ω = 10 rad/s about its vertical diameter rests at cos θ = g / (ω² r) and rocks about it at
// ω sin θ; a pendulum on a shaking table follows the equation of motion in the table's frame,
// I θ̈ = −m g d sin θ + m d a(t) cos θ, the inertial force −m a included. The same with the
// table and the hoop as first-class moving frames (Part::frameMotion), a bead on a radial slide
// of a turning platform (r = r₀ cosh ω t, seen in the platform), the frame's motion and rows
// against finite differences, and the energy the motion puts in accounted for; those with a
// first-class frame in maximal and in joint coordinates both.

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/integrators/integrator.h"
#include "engine/io/scene_json.h"
#include "engine/kinematics/part_motion.h"
#include "engine/math/constants.h"
#include "engine/model/model.h"
#include "tests/support/scene_errors.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

SceneSpec example(const std::string& name) {
    const io::SceneLoadResult r = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/" + name);
    EXPECT_TRUE(r.scene) << name;
    return r.scene ? *r.scene : SceneSpec{};
}

Part& partNamed(SceneSpec& spec, const std::string& name) {
    for (Part& p : spec.parts)
        if (p.name == name) return p;
    ADD_FAILURE() << "no part " << name;
    return spec.parts.front();
}

// The scene without the joint `joint` and the motions on it.
void dropJoint(SceneSpec& spec, const std::string& joint) {
    std::erase_if(spec.joints, [&](const Joint& j) { return j.name == joint; });
    std::erase_if(spec.motions, [&](const MotionSpec& m) { return m.joint == joint; });
}

constexpr double kG = 9.81, kOmega = 10.0, kRadius = 0.2, kHoopCentre = 0.27;

// The bead placed at angle θ from the hoop's bottom (turned about the hoop's normal, +y).
SceneSpec beadAt(double theta) {
    SceneSpec spec = example("bead_on_hoop.json");
    Part& bead = partNamed(spec, "bead");
    bead.X_WP.R = quatFromAxisAngle(Vec3::UnitY(), theta);
    bead.X_WP.p = Vec3(0, 0, kHoopCentre) + bead.X_WP.R * Vec3(0, 0, -kRadius);
    return spec;
}

TEST(MovingFrames, ABeadOnATurningHoopRestsWhereCentrifugalForceBalancesGravity) {
    const double rest = std::acos(kG / (kOmega * kOmega * kRadius));
    ForwardDynamics sim(test::compiled(beadAt(rest)));
    ASSERT_TRUE(sim.initialize().ok);
    EXPECT_NEAR(sim.state().jointCoordinates(1), rest, 1e-12);
    double worst = 0.0;
    for (int k = 1; k <= 30; ++k) {
        ASSERT_TRUE(sim.advance(0.1 * k).ok);
        worst = std::max(worst, std::abs(sim.state().jointCoordinates(1) - rest));
    }
    EXPECT_LT(worst, 1e-4);
    // The hoop has turned 30 rad meanwhile: the frame really moved.
    EXPECT_NEAR(sim.state().jointCoordinates(0), 30.0, 1e-6);
}

TEST(MovingFrames, ABeadOnATurningHoopRocksAtOmegaSinTheta) {
    const double rest = std::acos(kG / (kOmega * kOmega * kRadius));
    ForwardDynamics sim(test::compiled(beadAt(rest + 0.01)));
    ASSERT_TRUE(sim.initialize().ok);
    // Upward crossings of the rest angle, interpolated between samples 1 ms apart.
    std::vector<double> crossings;
    double t0 = 0.0, e0 = sim.state().jointCoordinates(1) - rest;
    for (int k = 1; k <= 4000; ++k) {
        const double t = 1e-3 * k;
        ASSERT_TRUE(sim.advance(t).ok);
        const double e = sim.state().jointCoordinates(1) - rest;
        if (e0 < 0.0 && e >= 0.0) crossings.push_back(t0 + (t - t0) * (-e0) / (e - e0));
        t0 = t;
        e0 = e;
    }
    ASSERT_GE(crossings.size(), 4u);
    const double period =
        (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
    const double expected = kOmega * std::sin(rest);
    EXPECT_NEAR(2.0 * kPi / period, expected, 0.01 * expected);
    std::printf("bead on hoop: rocks at %.6f rad/s (ω sin θ = %.6f)\n", 2.0 * kPi / period,
                expected);
}

TEST(MovingFrames, APendulumOnAShakingTableFollowsItsEquationInTheTablesFrame) {
    SceneSpec spec = example("shaking_table.json");
    const auto model = test::compiled(spec);
    ASSERT_TRUE(model);
    // The arm: 1 kg, its centre 0.15 m below the pivot, moment of inertia about the pivot.
    const Part& arm = partNamed(spec, "arm");
    const double m = arm.mass, d = 0.15, I = arm.I_Pcm_P(1, 1) + m * d * d;
    const double A = 0.05, W = 2.0 * kPi * 1.5;  // the table: x = A (1 − cos W t)
    // The same equation, RK4 with a step of 10 µs.
    auto accel = [&](double t, double th) {
        const double a = A * W * W * std::cos(W * t);
        return (-m * kG * d * std::sin(th) + m * d * a * std::cos(th)) / I;
    };
    double th = 0.0, om = 0.0;
    const double h = 1e-5;
    long step = 0;
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    double largest = 0.0;
    for (int k = 1; k <= 40; ++k) {
        const double until = 0.1 * k;
        for (; step < 10000L * k; ++step) {
            const double t = h * static_cast<double>(step);
            const double k1 = om, l1 = accel(t, th);
            const double k2 = om + 0.5 * h * l1, l2 = accel(t + 0.5 * h, th + 0.5 * h * k1);
            const double k3 = om + 0.5 * h * l2, l3 = accel(t + 0.5 * h, th + 0.5 * h * k2);
            const double k4 = om + h * l3, l4 = accel(t + h, th + h * k3);
            th += h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4);
            om += h / 6.0 * (l1 + 2 * l2 + 2 * l3 + l4);
        }
        ASSERT_TRUE(sim.advance(until).ok);
        EXPECT_NEAR(sim.state().jointCoordinates(1), th, 1e-6) << "t " << until;
        largest = std::max(largest, std::abs(th));
    }
    EXPECT_GT(largest, 0.3);  // it swings well away from the linear range
}

// The shaking table as a moving frame: the table's slide and its motion replaced by the same
// motion prescribed on the table itself. The arm swings as it did on the driven slide.
SceneSpec tableAsFrame() {
    SceneSpec spec = example("shaking_table.json");
    dropJoint(spec, "slide");
    FrameMotion motion;
    motion.translation[0] = "0.05*(1-cos(2*pi*1.5*time))";
    partNamed(spec, "table").frameMotion = motion;
    return spec;
}

// The formulations a test runs in: the part a frame moves is a root of its own in joint
// coordinates, its six rates given.
constexpr Formulation kBoth[] = {Formulation::Maximal, Formulation::Recursive};

// `spec` asking for `formulation`, compiled; checks that it is the one that runs.
std::shared_ptr<const Model> compiledIn(SceneSpec spec, Formulation formulation) {
    spec.settings.formulation = formulation;
    auto model = test::compiled(spec);
    if (model) {
        EXPECT_EQ(chooseFormulation(*model).formulation, formulation)
            << chooseFormulation(*model).reason;
    }
    return model;
}

TEST(MovingFrames, ATableMovedAsAFrameShakesItsPendulumAsTheDrivenSlideDid) {
    for (const Formulation formulation : kBoth) {
        SCOPED_TRACE(formulationName(formulation));
        const auto framed = compiledIn(tableAsFrame(), formulation);
        const auto slid = test::compiled(example("shaking_table.json"));
        ASSERT_TRUE(framed && slid);
        ASSERT_EQ(framed->frameJoints.size(), 1u);
        ForwardDynamics a(framed), b(slid);
        ASSERT_TRUE(a.initialize().ok && b.initialize().ok);
        double largest = 0.0, worst = 0.0;
        for (int k = 1; k <= 40; ++k) {
            ASSERT_TRUE(a.advance(0.1 * k).ok && b.advance(0.1 * k).ok);
            // The arm's angle: the frame's joint has no coordinate, the slide had one.
            const double th = a.state().jointCoordinates(0),
                         expected = b.state().jointCoordinates(1);
            worst = std::max(worst, std::abs(th - expected));
            largest = std::max(largest, std::abs(expected));
        }
        EXPECT_LT(worst, 1e-6);
        EXPECT_GT(largest, 0.3);
    }
}

TEST(MovingFrames, TheEnergyAMovingFramePutsInIsAccountedFor) {
    // Kinetic + potential − the motion's work stays constant (no damping in the scene): the
    // frame's rows (in joint coordinates, its given rates' generalised forces) are counted with
    // the motions' in energy.driverWork. Over 2 s: the largest departure of the balance, the
    // largest kinetic energy, the largest work.
    struct Run {
        double drift = 0.0, largest = 0.0, work = 0.0;
    };
    auto run = [](Formulation formulation, IntegratorType integrator, double h) {
        SceneSpec spec = tableAsFrame();
        spec.settings.integrator = integrator;
        spec.settings.stepSize = h;
        ForwardDynamics sim(compiledIn(spec, formulation));
        Run r;
        EXPECT_TRUE(sim.initialize().ok);
        Outputs out;
        EXPECT_TRUE(sim.outputs(out).ok);
        const double start = out.energies.balance();
        for (int k = 1; k <= 20; ++k) {
            EXPECT_TRUE(sim.advance(0.1 * k).ok);
            EXPECT_TRUE(sim.outputs(out).ok);
            const Energies& e = out.energies;
            r.drift = std::max(r.drift, std::abs(e.balance() - start));
            r.largest = std::max(r.largest, e.kinetic);
            r.work = std::max(r.work, std::abs(e.driverWork));
        }
        return r;
    };
    for (const Formulation formulation : kBoth) {
        SCOPED_TRACE(formulationName(formulation));
        const Run smooth = run(formulation, IntegratorType::DormandPrince45, 1e-4);
        EXPECT_GT(smooth.work, 0.1 * smooth.largest) << "the motion does work";
        EXPECT_LT(smooth.drift, 1e-6 * smooth.largest);
        // The velocity-level step is first order: its balance departs by O(h), halved with h
        // (measured: 1.96e-3 and 9.8e-4 of 1.06 J in maximal coordinates, 8.1e-3 and 4.0e-3
        // in joint coordinates, whose semi-implicit step takes the frame's force at the step's
        // start, as it does a driven slide's: the same figures).
        const Run coarse = run(formulation, IntegratorType::TimeStepping, 1e-4);
        const Run fine = run(formulation, IntegratorType::TimeStepping, 5e-5);
        EXPECT_GT(coarse.work, 0.1 * coarse.largest);
        EXPECT_LT(coarse.drift,
                  (formulation == Formulation::Maximal ? 2e-3 : 1e-2) * coarse.largest);
        EXPECT_NEAR(fine.drift / coarse.drift, 0.5, 0.05);
    }
}

TEST(MovingFrames, AHoopTurnedAsAFrameHoldsItsBeadWhereCentrifugalForceBalancesGravity) {
    for (const Formulation formulation : kBoth) {
        SCOPED_TRACE(formulationName(formulation));
        const double rest = std::acos(kG / (kOmega * kOmega * kRadius));
        SceneSpec spec = beadAt(rest);
        dropJoint(spec, "spin");
        FrameMotion turn;
        turn.rotation[2] = "10*time";
        partNamed(spec, "hoop").frameMotion = turn;
        const auto model = compiledIn(spec, formulation);
        ASSERT_TRUE(model);
        ForwardDynamics sim(model);
        ASSERT_TRUE(sim.initialize().ok);
        double worst = 0.0;
        for (int k = 1; k <= 30; ++k) {
            ASSERT_TRUE(sim.advance(0.1 * k).ok);
            worst = std::max(worst, std::abs(sim.state().jointCoordinates(0) - rest));
        }
        EXPECT_LT(worst, 1e-4);
        // The hoop turned 30 rad: its part frame's x axis is at 30 rad about z.
        const int hoop = model->bodyOfPart[1];
        const Mat3 R =
            bodyOrientation(sim.state().q, hoop).toRotationMatrix() *
            model->bodies[static_cast<std::size_t>(hoop)].X_PB.rotationMatrix().transpose();
        EXPECT_NEAR(std::atan2(R(1, 0), R(0, 0)), std::remainder(30.0, 2.0 * kPi), 1e-6);
    }
}

// A platform turning at ω about z carries a radial slide; a block on it, released at r₀ at rest
// in the platform, moves out as r = r₀ cosh ω t (no gravity along the slide), as seen in the
// platform, and keeps on the slide's line there.
TEST(MovingFrames, ABlockOnATurningPlatformsRadialSlideMovesOutAsCoshOmegaT) {
    for (const Formulation formulation : kBoth) {
        SCOPED_TRACE(formulationName(formulation));
        const double omega = 2.0, r0 = 0.05;
        SceneSpec spec;
        Part ground;
        ground.name = "ground";
        ground.ground = true;
        Part platform;
        platform.name = "platform";
        platform.mass = 5.0;
        platform.I_Pcm_P = Mat3::Identity() * 0.1;
        platform.X_WP.p = Vec3(0.3, -0.2, 0.1);  // its centre, off the world's origin
        platform.X_WP.R = quatFromAxisAngle(Vec3::UnitZ(), 0.4);
        platform.frameMotion = FrameMotion{};
        platform.frameMotion->rotation[2] = std::to_string(omega) + "*time";
        Marker rail;
        rail.name = "rail";
        rail.X_PM.R = quatFromAxisAngle(Vec3::UnitY(), kPi / 2);  // z along the platform's x
        platform.markers.push_back(rail);
        Part block;
        block.name = "block";
        block.mass = 0.2;
        block.I_Pcm_P = Mat3::Identity() * 1e-4;
        block.X_WP = platform.X_WP * Transform{Quat::Identity(), Vec3(r0, 0, 0)};
        // At rest in the platform: moving with it at t = 0.
        block.v_WPo_W = Vec3::UnitZ().cross(platform.X_WP.R * Vec3(r0, 0, 0)) * omega;
        block.w_WP_W = Vec3(0, 0, omega);
        block.markers.push_back(rail);
        spec.parts = {ground, platform, block};
        Joint slide;
        slide.name = "slide";
        slide.type = JointType::Prismatic;
        slide.markerI = {"block", "rail"};
        slide.markerJ = {"platform", "rail"};
        spec.joints = {slide};
        const auto model = compiledIn(spec, formulation);
        ASSERT_TRUE(model);
        ForwardDynamics sim(model);
        ASSERT_TRUE(sim.initialize().ok);
        const int platformBody = model->bodyOfPart[1];
        for (int k = 1; k <= 10; ++k) {
            const double t = 0.1 * k;
            ASSERT_TRUE(sim.advance(t).ok);
            const SeenInFrame seen = seenInFrame(
                model->bodies[static_cast<std::size_t>(platformBody)].X_PB, sim.state().q,
                sim.state().v, platformBody, partMotion(*model, 2, sim.state().q, sim.state().v));
            const double r = r0 * std::cosh(omega * t);
            EXPECT_NEAR(seen.position.x(), r, 1e-7 * r) << "t " << t;
            EXPECT_NEAR(seen.velocity.x(), r0 * omega * std::sinh(omega * t), 1e-6) << "t " << t;
            EXPECT_NEAR(seen.position.y(), 0.0, 1e-9);
            EXPECT_NEAR(seen.angularVelocity.norm(), 0.0, 1e-9);
            EXPECT_NEAR(sim.state().jointCoordinates(0), r,
                        1e-7 * r);  // from the platform's centre
        }
    }
}

// M(t)'s angular velocity and acceleration against differences of R(t), and the six rows'
// ν and γ against the time derivatives of Φ along a body moving at constant v and ω.
TEST(MovingFrames, TheFramesMotionAndRowsMatchFiniteDifferences) {
    FrameMotionModel motion;
    std::string error;
    auto e = [&](const char* text) {
        auto x = Expression::parse(text, error);
        EXPECT_TRUE(x) << error;
        return x ? *x : Expression();
    };
    motion.translation[0] = e("0.1*sin(3*time)");
    motion.translation[2] = e("0.05*time*time");
    motion.rotation[0] = e("0.3*sin(2*time)");
    motion.rotation[1] = e("0.2*cos(time)+0.1");
    motion.rotation[2] = e("1.5*time");
    motion.origin0 = Vec3(0.2, 0.1, -0.3);
    motion.X_MB =
        Transform{quatFromAxisAngle(Vec3(1, 2, 3).normalized(), 0.7), Vec3(0.1, -0.2, 0.05)};
    const double t = 0.8, h = 1e-5;
    const FrameMotionState m = frameMotionAt(motion, t);
    auto R = [&](double s) { return frameMotionAt(motion, s).frame.R; };
    const Mat3 Rdot = (R(t + h) - R(t - h)) / (2 * h);
    const Mat3 W = Rdot * m.frame.R.transpose();  // [ω]×
    EXPECT_LT((Vec3(W(2, 1), W(0, 2), W(1, 0)) - m.frame.w).norm(), 1e-8);
    const Vec3 alpha =
        (frameMotionAt(motion, t + h).frame.w - frameMotionAt(motion, t - h).frame.w) / (2 * h);
    EXPECT_LT((alpha - m.angularAcceleration).norm(), 1e-6);
    const Vec3 a =
        (frameMotionAt(motion, t + h).frame.v - frameMotionAt(motion, t - h).frame.v) / (2 * h);
    EXPECT_LT((a - m.acceleration).norm(), 1e-6);

    // A body near the target, moving at constant v and world ω (so v̇ = 0 in the solver's
    // velocity coordinates): Φ̇ = Ji v − ν and Φ̈ = −γ.
    const Vec3 v(0.3, -0.1, 0.2), w(0.5, 1.2, -0.7);
    const Mat3 R0 = (m.frame.R * motion.X_MB.rotationMatrix()) *
                    quatFromAxisAngle(Vec3::UnitX(), 0.01).toRotationMatrix();
    const Vec3 r0 = m.frame.r + m.frame.R * motion.X_MB.p + Vec3(0.002, -0.001, 0.003);
    auto body = [&](double s) {
        BodyFrame f;
        f.R = Eigen::AngleAxisd(w.norm() * (s - t), w.normalized()).toRotationMatrix() * R0;
        f.r = r0 + v * (s - t);
        f.v = v;
        f.w = w;
        return f;
    };
    auto rowsAt = [&](double s, ConstraintRow rows[6], double nu[6]) {
        frameMotionRows(motion, body(s), s, rows, nu);
    };
    ConstraintRow rows[6], before[6], after[6];
    double nu[6], nb[6], na[6];
    rowsAt(t, rows, nu);
    rowsAt(t - h, before, nb);
    rowsAt(t + h, after, na);
    Eigen::Matrix<double, 6, 1> twist;
    twist << v, body(t).R.transpose() * w;
    for (int k = 0; k < 6; ++k) {
        const double rate = (after[k].value - before[k].value) / (2 * h);
        EXPECT_NEAR(rate, rows[k].Ji.dot(twist) - nu[k], 1e-8) << "row " << k;
        const double second = (after[k].value - 2 * rows[k].value + before[k].value) / (h * h);
        EXPECT_NEAR(second, -rows[k].gamma, 2e-4) << "row " << k;
    }
}

TEST(MovingFrames, BadMovingFramesAreRefusedWithTheirPlace) {
    SceneSpec spec = tableAsFrame();
    partNamed(spec, "floor").frameMotion = FrameMotion{};
    EXPECT_NE(test::firstError(validate(spec)).find("/parts/0/frameMotion"), std::string::npos)
        << test::firstError(validate(spec));
    spec = tableAsFrame();
    partNamed(spec, "table").frameMotion->rotation[2] = "2*tim";
    EXPECT_NE(test::firstError(validate(spec)).find("/parts/1/frameMotion/rotation/2"),
              std::string::npos)
        << test::firstError(validate(spec));
    spec = tableAsFrame();
    spec.joints.front().name = "table";
    EXPECT_NE(test::firstError(validate(spec)).find("moving frame"), std::string::npos)
        << test::firstError(validate(spec));
    const io::SceneLoadResult r = io::parseScene(
        R"({"format": "motus-scene", "version": 1, "minorVersion": 11, "parts": [
            {"name": "deck", "mass": 1, "inertia": [1, 1, 1], "frameMotion": {"translation": [0, 1]}}]})");
    ASSERT_FALSE(r.scene);
    EXPECT_NE(test::firstError(r.diagnostics).find("/parts/0/frameMotion/translation"),
              std::string::npos)
        << test::firstError(r.diagnostics);
}

}  // namespace
}  // namespace engine
