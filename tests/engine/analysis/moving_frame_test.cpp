// Mechanisms riding on driven frames against closed forms: a bead on a hoop turned at
// ω = 10 rad/s about its vertical diameter rests at cos θ = g / (ω² r) and rocks about it at
// ω sin θ; a pendulum on a shaking table follows the equation of motion in the table's frame,
// I θ̈ = −m g d sin θ + m d a(t) cos θ, the inertial force −m a included.

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/io/scene_json.h"
#include "engine/math/constants.h"
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

}  // namespace
}  // namespace engine
