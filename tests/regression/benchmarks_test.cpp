// Published benchmark problems (scenes/benchmarks/), each run as a user runs it: the scene file
// with its own settings, which are Motus's defaults (dopri45, rtol 1e-10, atol 1e-12, joints
// to 1e-10 m), checked against closed forms, published reference solutions and conservation
// laws. Sources and derivations: docs/benchmarks.md.

#include <cmath>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/outputs.h"
#include "engine/io/scene_json.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

constexpr double kPi = 3.14159265358979323846;

std::shared_ptr<const Model> benchmark(const std::string& name) {
    const std::string path = MOTUS_SOURCE_DIR "/scenes/benchmarks/" + name;
    const io::SceneLoadResult r = io::loadSceneFile(path);
    EXPECT_TRUE(r.scene) << path << ": " << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
    if (!r.scene) return nullptr;
    // Run with the defaults: a benchmark file sets no tolerance of its own.
    const SolverSettings defaults;
    EXPECT_EQ(r.scene->settings.integrator, defaults.integrator) << name;
    EXPECT_EQ(r.scene->settings.relativeTolerance, defaults.relativeTolerance) << name;
    EXPECT_EQ(r.scene->settings.absoluteTolerance, defaults.absoluteTolerance) << name;
    EXPECT_EQ(r.scene->settings.projectionTolerance, defaults.projectionTolerance) << name;
    EXPECT_EQ(r.scene->settings.maxStep, 0.0) << name;
    return test::compiled(*r.scene);
}

int bodyIndex(const Model& model, const std::string& name) {
    for (int b = 0; b < model.bodyCount(); ++b)
        if (model.bodies[static_cast<std::size_t>(b)].name == name) return b;
    ADD_FAILURE() << "no part '" << name << "'";
    return 0;
}

// A marker's origin in the world and its velocity, from the state.
struct PointMotion {
    Vec3 p, v;
};
PointMotion markerMotion(const Model& model, const State& state, const std::string& name) {
    for (const MarkerModel& m : model.markers) {
        if (m.name != name) continue;
        const int b = m.body;
        const Quat R = bodyOrientation(state.q, b);
        const Vec3 r = R * m.X_BM.p;
        const Vec3 w = R * Vec3(state.v.segment<3>(6 * b + 3));
        return {bodyPosition(state.q, b) + r, Vec3(state.v.segment<3>(6 * b)) + w.cross(r)};
    }
    ADD_FAILURE() << "no marker '" << name << "'";
    return {};
}

double totalEnergy(ForwardDynamics& sim) {
    Outputs out;
    EXPECT_TRUE(sim.outputs(out).ok);
    return out.energies.kinetic + out.energies.gravitational + out.energies.elastic;
}

// Jacobi's elliptic sine sn(u | m) by the arithmetic-geometric mean (Abramowitz & Stegun
// 16.4), and the complete elliptic integral K(m) = π / (2 AGM(1, √(1−m))).
double jacobiSn(double u, double m) {
    double a[32], c[32];
    a[0] = 1.0;
    double b = std::sqrt(1.0 - m);
    c[0] = std::sqrt(m);
    int n = 0;
    while (n < 30 && std::abs(c[n]) > 1e-16 * a[n]) {
        a[n + 1] = 0.5 * (a[n] + b);
        c[n + 1] = 0.5 * (a[n] - b);
        b = std::sqrt(a[n] * b);
        ++n;
    }
    double phi = std::ldexp(a[n] * u, n);
    for (; n > 0; --n) phi = 0.5 * (phi + std::asin(c[n] / a[n] * std::sin(phi)));
    return std::sin(phi);
}

double ellipticK(double m) {
    double a = 1.0, b = std::sqrt(1.0 - m);
    for (int k = 0; k < 40 && std::abs(a - b) > 1e-15 * a; ++k) {
        const double next = 0.5 * (a + b);
        b = std::sqrt(a * b);
        a = next;
    }
    return kPi / (2.0 * a);
}

TEST(Benchmarks, EllipticFunctionsMatchTheirTables) {
    EXPECT_NEAR(ellipticK(0.5), 1.854074677301372, 1e-15);  // A&S table 17.1
    EXPECT_NEAR(jacobiSn(ellipticK(0.5), 0.5), 1.0, 1e-15);
    EXPECT_NEAR(jacobiSn(0.3, 0.0), std::sin(0.3), 1e-15);
    EXPECT_NEAR(jacobiSn(0.3, 1.0 - 1e-12), std::tanh(0.3), 1e-9);
}

// A heavy symmetric top released on its steady precession (tools/make_heavy_top.py): the exact
// motion keeps the centre of mass on a horizontal circle of radius l sin θ, turning at φ'.
TEST(Benchmarks, HeavyTopKeepsItsSteadyPrecession) {
    const auto model = benchmark("heavy_top.json");
    ASSERT_TRUE(model);
    const int top = bodyIndex(*model, "top");
    const double l = 0.1, theta = kPi / 6, m = 1.0, I1 = 0.004, I3 = 0.006, omega3 = 100.0;
    const double A = I1 + m * l * l, a = A * std::cos(theta), b = -I3 * omega3, c = m * 9.81 * l;
    const double phi = (-b - std::sqrt(b * b - 4 * a * c)) / (2 * a);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    const double e0 = totalEnergy(sim);
    double worst = 0.0;
    for (int k = 1; k <= 100; ++k) {
        const double t = 0.1 * k;
        ASSERT_TRUE(sim.advance(t).ok);
        const double azimuth = -kPi / 2 + phi * t;  // the top leans towards −y at t = 0
        const Vec3 exact(l * std::sin(theta) * std::cos(azimuth), l * std::sin(theta) * std::sin(azimuth),
                         l * std::cos(theta));
        worst = std::max(worst, (bodyPosition(sim.state().q, top) - exact).norm());
    }
    EXPECT_LT(worst, 1e-8) << "m over 10 s";
    EXPECT_NEAR(totalEnergy(sim) / e0 - 1.0, 0.0, 1e-9);
}

// IFToMM A01: the pendulum released horizontal, 2000 s (about 845 periods). Exact motion, the
// angle θ from the downward vertical: sin(θ/2) = k sn(K − ω t | k²), k = sin(π/4), with
// ω² = m g L / (m L² + I) for the scene's P1 (a point mass but for 1e-9 kg m² of its own
// inertia). Published tolerance: 1e-3 m on P1 at 4000 outputs (every 0.5 s).
TEST(Benchmarks, SimplePendulumA01FollowsTheEllipticSolutionFor2000Seconds) {
    const auto model = benchmark("simple_pendulum.json");
    ASSERT_TRUE(model);
    const int p1 = bodyIndex(*model, "P1");
    const double m = 0.5, k = std::sqrt(m), K = ellipticK(m), omega = std::sqrt(9.81 / (1.0 + 1e-9));
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    const double e0 = totalEnergy(sim);
    double worst = 0.0, worstAt = 0.0;
    for (int n = 1; n <= 4000; ++n) {
        const double t = 0.5 * n;
        const Status s = sim.advance(t);
        ASSERT_TRUE(s.ok) << s.message;
        const double theta = 2.0 * std::asin(k * jacobiSn(K - omega * t, m));
        const Vec3 exact(std::sin(theta), -std::cos(theta), 0.0);
        const double error = (bodyPosition(sim.state().q, p1) - exact).norm();
        if (error > worst) worst = error, worstAt = t;
    }
    // Measured: 6.1e-5 m (at the defaults; 1.2e-3 m with rtol 1e-9, 1.4e-2 m with 1e-8).
    EXPECT_LT(worst, 1e-3) << "at t = " << worstAt;
    EXPECT_LT(worst, 2e-4) << "at t = " << worstAt;
    EXPECT_NEAR(totalEnergy(sim), e0, 1e-6);
}

// IFToMM A02 with N = 2: on its physical branch the mechanism is J φ'' = −c cos φ with every
// crank at φ from the ground line (docs/benchmarks.md); B0, the tip of crank 0, at 10 s from
// that reduction: (0.328458111541, 0.944518538179) m, velocity (1.42305147021, −0.494868845487)
// m/s (Exudyn's step-refined 3-DOF-per-body result converges to the same digits).
TEST(Benchmarks, DoubleFourBarA02PassesItsSingularPositionsOnTheReferenceBranch) {
    const auto model = benchmark("n_four_bar.json");
    ASSERT_TRUE(model);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    const double e0 = totalEnergy(sim);
    const Status s = sim.advance(10.0);
    ASSERT_TRUE(s.ok) << s.message;
    const auto [B0, vB0] = markerMotion(*model, sim.state(), "crank0.B");
    EXPECT_LT((B0 - Vec3(0.328458111541, 0.944518538179, 0)).norm(), 1e-6) << B0.transpose();
    EXPECT_LT((vB0 - Vec3(1.42305147021, -0.494868845487, 0)).norm(), 1e-5) << vB0.transpose();
    EXPECT_NEAR(totalEnergy(sim), e0, 1e-6);
}

// IFToMM A04, the Bricard mechanism: zero degrees of freedom by the count, one in fact. On its
// branch through the start, with q1 the angle at P1, q3 = q5 = q1, q2 = q4 = −atan(sin q1 /
// √(1 + 2 sin q1)), and P3 = (cos q1, −√(1 + 2 s), −s) / (1 + s), s = sin q1; q1(t) by
// quadrature of the energy (docs/benchmarks.md). It swings between q1 = 0 and π every 4.9917 s.
TEST(Benchmarks, BricardA04MovesThroughItsRedundancy) {
    const auto model = benchmark("bricard.json");
    ASSERT_TRUE(model);
    struct Sample {
        double t, x, y, z;
    };
    const Sample table[] = {{0.5, 0.774717808039, -0.979815047656, -0.199906158954},
                            {1.0, 0.274481319264, -0.886707938735, -0.462330002688},
                            {1.5, -0.279017575422, -0.887361378833, -0.461074596303},
                            {2.0, -0.778135373034, -0.980352683443, -0.197252670616},
                            {2.5, -0.999983185293, -0.999999999859, -1.68146e-5},
                            {3.0, -0.771281358967, -0.979269329839, -0.202562532655},
                            {4.0, 0.283551079085, -0.888022814123, -0.459799392775},
                            {5.0, 0.999932742302, -0.999999997738, -6.72554e-5},
                            {7.5, -0.999848674421, -0.999999988552, -1.51314e-4},
                            {10.0, 0.999730987304, -0.999999963826, -2.68977e-4}};
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    const double e0 = totalEnergy(sim);
    EXPECT_NEAR(e0, -3.0 * 9.81, 1e-9);
    double worst = 0.0;
    for (const Sample& sample : table) {
        const Status s = sim.advance(sample.t);
        ASSERT_TRUE(s.ok) << s.message;
        const Vec3 P3 = markerMotion(*model, sim.state(), "bar3.P3").p;
        const double error = (P3 - Vec3(sample.x, sample.y, sample.z)).norm();
        worst = std::max(worst, error);
        EXPECT_LT(error, 1e-5) << "t = " << sample.t << ": P3 = " << P3.transpose();
        EXPECT_NEAR(totalEnergy(sim), e0, 1e-7) << "t = " << sample.t;
    }
    RecordProperty("P3_error_m", std::to_string(worst));
}

}  // namespace
}  // namespace engine
