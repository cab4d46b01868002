// Published benchmark problems (scenes/benchmarks/), each run as a user runs it: the scene file
// with its own settings, which are Motus's defaults (dopri45, rtol 1e-10, atol 1e-12, joints
// to 1e-10 m), checked against closed forms, published reference solutions and conservation
// laws. Sources and derivations: docs/benchmarks.md.

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/outputs.h"
#include "engine/io/scene_json.h"
#include "engine/math/constants.h"
#include "engine/model/layout.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

// The benchmark `name` as its file sets it, stepped in `formulation` (the published problems
// pass in joint coordinates too, with the same tolerances: #46).
std::shared_ptr<const Model> benchmark(const std::string& name,
                                       Formulation formulation = Formulation::Auto) {
    const std::string path = MOTUS_SOURCE_DIR "/scenes/benchmarks/" + name;
    io::SceneLoadResult r = io::loadSceneFile(path);
    EXPECT_TRUE(r.scene) << path << ": " << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
    if (!r.scene) return nullptr;
    // Run with the defaults: a benchmark file sets no tolerance of its own.
    const SolverSettings defaults;
    EXPECT_EQ(r.scene->settings.integrator, defaults.integrator) << name;
    EXPECT_EQ(r.scene->settings.relativeTolerance, defaults.relativeTolerance) << name;
    EXPECT_EQ(r.scene->settings.absoluteTolerance, defaults.absoluteTolerance) << name;
    EXPECT_EQ(r.scene->settings.projectionTolerance, defaults.projectionTolerance) << name;
    EXPECT_EQ(r.scene->settings.maxStep, 0.0) << name;
    r.scene->settings.formulation = formulation;
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
        const Vec3 w = R * Vec3(layout::angular(state.v, b));
        return {bodyPosition(state.q, b) + r, Vec3(layout::linear(state.v, b)) + w.cross(r)};
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
void heavyTop(Formulation formulation) {
    const auto model = benchmark("heavy_top.json", formulation);
    ASSERT_TRUE(model);
    ASSERT_EQ(ForwardDynamics(model).formulation().formulation,
              formulation == Formulation::Recursive ? Formulation::Recursive : Formulation::Maximal)
        << ForwardDynamics(model).formulation().reason;
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
        const Vec3 exact(l * std::sin(theta) * std::cos(azimuth),
                         l * std::sin(theta) * std::sin(azimuth), l * std::cos(theta));
        worst = std::max(worst, (bodyPosition(sim.state().q, top) - exact).norm());
    }
    EXPECT_LT(worst, 1e-8) << "m over 10 s";
    EXPECT_NEAR(totalEnergy(sim) / e0 - 1.0, 0.0, 1e-9);
}
TEST(Benchmarks, HeavyTopKeepsItsSteadyPrecession) {
    heavyTop(Formulation::Auto);
}
// (The ball joint a unit quaternion of the tree's.)
TEST(BenchmarksInJointCoordinates, HeavyTopKeepsItsSteadyPrecession) {
    heavyTop(Formulation::Recursive);
}

// IFToMM A01: the pendulum released horizontal, 2000 s (about 845 periods). Exact motion, the
// angle θ from the downward vertical: sin(θ/2) = k sn(K − ω t | k²), k = sin(π/4), with
// ω² = m g L / (m L² + I) for the scene's P1 (a point mass but for 1e-9 kg m² of its own
// inertia). Published tolerance: 1e-3 m on P1 at 4000 outputs (every 0.5 s).
void simplePendulumA01(Formulation formulation) {
    const auto model = benchmark("simple_pendulum.json", formulation);
    ASSERT_TRUE(model);
    ASSERT_EQ(ForwardDynamics(model).formulation().formulation,
              formulation == Formulation::Recursive ? Formulation::Recursive : Formulation::Maximal)
        << ForwardDynamics(model).formulation().reason;
    const int p1 = bodyIndex(*model, "P1");
    const double m = 0.5, k = std::sqrt(m), K = ellipticK(m),
                 omega = std::sqrt(9.81 / (1.0 + 1e-9));
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
    // Measured: 6.1e-5 m (at the defaults; 1.2e-3 m with rtol 1e-9, 1.4e-2 m with 1e-8); in
    // joint coordinates, which are not projected after each step, 2.45e-4 m and an energy
    // error of 2.4e-6 J (docs/performance.md, Joint coordinates). The published tolerance
    // holds in both; the tighter guards are each formulation's own.
    const bool joints = formulation == Formulation::Recursive;
    EXPECT_LT(worst, 1e-3) << "at t = " << worstAt;
    EXPECT_LT(worst, joints ? 3e-4 : 2e-4) << "at t = " << worstAt;
    EXPECT_NEAR(totalEnergy(sim), e0, joints ? 3e-6 : 1e-6);
}
TEST(Benchmarks, SimplePendulumA01FollowsTheEllipticSolutionFor2000Seconds) {
    simplePendulumA01(Formulation::Auto);
}
TEST(BenchmarksInJointCoordinates, SimplePendulumA01FollowsTheEllipticSolutionFor2000Seconds) {
    simplePendulumA01(Formulation::Recursive);
}

// IFToMM A02 with N = 2: on its physical branch the mechanism is J φ'' = −c cos φ with every
// crank at φ from the ground line (docs/benchmarks.md); B0, the tip of crank 0, at 10 s from
// that reduction: (0.328458111541, 0.944518538179) m, velocity (1.42305147021, −0.494868845487)
// m/s (Exudyn's step-refined 3-DOF-per-body result converges to the same digits).
void doubleFourBarA02(Formulation formulation) {
    const auto model = benchmark("n_four_bar.json", formulation);
    ASSERT_TRUE(model);
    ASSERT_EQ(ForwardDynamics(model).formulation().formulation,
              formulation == Formulation::Recursive ? Formulation::Recursive : Formulation::Maximal)
        << ForwardDynamics(model).formulation().reason;
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
TEST(Benchmarks, DoubleFourBarA02PassesItsSingularPositionsOnTheReferenceBranch) {
    doubleFourBarA02(Formulation::Auto);
}
// (The closure's memory of each cut row's best pivot carries it through: docs/engine.md.)
TEST(BenchmarksInJointCoordinates, DoubleFourBarA02PassesItsSingularPositionsOnTheReferenceBranch) {
    doubleFourBarA02(Formulation::Recursive);
}

// IFToMM A04, the Bricard mechanism: zero degrees of freedom by the count, one in fact. On its
// branch through the start, with q1 the angle at P1, q3 = q5 = q1, q2 = q4 = −atan(sin q1 /
// √(1 + 2 sin q1)), and P3 = (cos q1, −√(1 + 2 s), −s) / (1 + s), s = sin q1; q1(t) by
// quadrature of the energy (docs/benchmarks.md). It swings between q1 = 0 and π every 4.9917 s.
void bricardA04(Formulation formulation) {
    const auto model = benchmark("bricard.json", formulation);
    ASSERT_TRUE(model);
    ASSERT_EQ(ForwardDynamics(model).formulation().formulation,
              formulation == Formulation::Recursive ? Formulation::Recursive : Formulation::Maximal)
        << ForwardDynamics(model).formulation().reason;
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
    ::testing::Test::RecordProperty("P3_error_m", std::to_string(worst));
}
TEST(Benchmarks, BricardA04MovesThroughItsRedundancy) {
    bricardA04(Formulation::Auto);
}
TEST(BenchmarksInJointCoordinates, BricardA04MovesThroughItsRedundancy) {
    bricardA04(Formulation::Recursive);
}

// A planar body's turn about z since t = 0, followed through the outputs (unwrapped).
struct TurnTracker {
    std::vector<double> turn;
    void update(const State& state) {
        const int n = static_cast<int>(state.q.size() / 7);
        turn.resize(static_cast<std::size_t>(n), 0.0);
        for (int b = 0; b < n; ++b) {
            const Quat R = bodyOrientation(state.q, b);
            const double wrapped = 2.0 * std::atan2(R.z(), R.w());
            double& t = turn[static_cast<std::size_t>(b)];
            t += std::remainder(wrapped - t, 2.0 * kPi);
        }
    }
};

// IFToMM A03, Andrews' squeezing mechanism, with the data and the reference solution of the
// Hairer–Wanner test set (problem 'andrews', PSIDE at rtol = atol = 1e-14): the seven
// coordinates β, Θ, γ, Φ, δ, Ω, ε at 0.03 s and their rates. Every part of the scene starts
// with the world's axes, so a part's turn since t = 0 gives its absolute angle: β = β0 + turn
// of OF, Θ = turn of FE − turn of OF, γ = γ0 + turn of BDE, Φ = Φ0 + turn of GE − turn of AG,
// δ = δ0 + turn of AG, Ω = Ω0 + turn of HE − turn of AH, ε = ε0 + turn of AH. No gravity and
// no damping: the energy grows by the torque's work, 0.033 (β − β0).
void andrewsSqueezerA03(Formulation formulation) {
    const auto model = benchmark("andrews_squeezer.json", formulation);
    ASSERT_TRUE(model);
    ASSERT_EQ(ForwardDynamics(model).formulation().formulation,
              formulation == Formulation::Recursive ? Formulation::Recursive : Formulation::Maximal)
        << ForwardDynamics(model).formulation().reason;
    const char* names[] = {"OF", "FE", "BDE", "GE", "AG", "HE", "AH"};
    int body[7];
    for (int k = 0; k < 7; ++k) body[k] = bodyIndex(*model, names[k]);
    const double q0[7] = {-0.0617138900142764496, 0.0,
                          0.455279819163070380,   0.222668390165885885,
                          0.487364979543842550,   -0.222668390165885885,
                          1.23054744454982119};
    const double qRef[7] = {15.81077119629904,   -15.75637105984298, 0.04082224013073101,
                            -0.5347301163226948, 0.5244099658805304, 0.5347301163226948,
                            1.048080741042263};
    const double vRef[7] = {1139.920302151208, -1424.379294994111, 11.03291221937134,
                            19.29337464421385, 0.5735699284790808, -19.29337464421385,
                            0.3231791658026955};
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    const double e0 = totalEnergy(sim);
    EXPECT_NEAR(e0, 1.43579639916167, 1e-11) << "the spring's energy at the start";
    TurnTracker turns;
    turns.update(sim.state());
    double worstBalance = 0.0;
    for (int n = 1; n <= 300; ++n) {  // every 0.1 ms: no part turns by π between outputs
        const Status s = sim.advance(1e-4 * n);
        ASSERT_TRUE(s.ok) << s.message;
        turns.update(sim.state());
        const double beta = q0[0] + turns.turn[static_cast<std::size_t>(body[0])];
        worstBalance =
            std::max(worstBalance, std::abs(totalEnergy(sim) - e0 - 0.033 * (beta - q0[0])));
    }
    auto turn = [&](int k) { return turns.turn[static_cast<std::size_t>(body[k])]; };
    auto rate = [&](int k) {
        return layout::angular(sim.state().v, body[k])(2);
    };  // planar: body z is world z
    const double q[7] = {
        q0[0] + turn(0), turn(1) - turn(0),         q0[2] + turn(2), q0[3] + turn(3) - turn(4),
        q0[4] + turn(4), q0[5] + turn(5) - turn(6), q0[6] + turn(6)};
    const double v[7] = {rate(0), rate(1) - rate(0), rate(2), rate(3) - rate(4),
                         rate(4), rate(5) - rate(6), rate(6)};
    double worstQ = 0.0, worstV = 0.0;
    for (int k = 0; k < 7; ++k) {
        worstQ = std::max(worstQ, std::abs(q[k] - qRef[k]));
        worstV = std::max(worstV, std::abs(v[k] - vRef[k]) / (1.0 + std::abs(vRef[k])));
        EXPECT_NEAR(q[k], qRef[k], 1e-7) << "rad, coordinate " << k + 1;
    }
    std::printf(
        "Andrews: worst angle error %.3g rad, worst rate error %.3g (relative), energy balance "
        "%.3g J\n",
        worstQ, worstV, worstBalance);
    EXPECT_LT(worstV, 1e-6);
    EXPECT_LT(worstBalance, 1e-8) << "J";
    ::testing::Test::RecordProperty("angle_error_rad", std::to_string(worstQ));
}
TEST(Benchmarks, AndrewsSqueezerA03MatchesTheTestSetSolution) {
    andrewsSqueezerA03(Formulation::Auto);
}
TEST(BenchmarksInJointCoordinates, AndrewsSqueezerA03MatchesTheTestSetSolution) {
    andrewsSqueezerA03(Formulation::Recursive);
}

// The angular momentum of all parts about the world z axis.
double momentumZ(const Model& model, const State& state) {
    double Lz = 0.0;
    for (int b = 0; b < model.bodyCount(); ++b) {
        const BodyModel& body = model.bodies[static_cast<std::size_t>(b)];
        const Vec3 c = bodyPosition(state.q, b);
        const Vec3 v = layout::linear(state.v, b);
        const Vec3 w = layout::angular(state.v, b);
        Lz += body.mass * c.cross(v).z() +
              (bodyOrientation(state.q, b) * Vec3(body.inertia.cwiseProduct(w))).z();
    }
    return Lz;
}

// IFToMM A05, the stiff flyball governor (stiff: the dampers' time constant is about 0.1 ms).
// The shaft is free and gravity lies along it, so the angular momentum about the shaft is
// conserved, 53.8689987 kg m²/s (I_z = 8.573517416 kg m² at 2π rad/s); the energy never rises,
// and what it loses is the dampers' work; the two sides stay mirror images.
void flyballGovernorA05(Formulation formulation) {
    const auto model = benchmark("flyball_governor.json", formulation);
    ASSERT_TRUE(model);
    ASSERT_EQ(ForwardDynamics(model).formulation().formulation,
              formulation == Formulation::Recursive ? Formulation::Recursive : Formulation::Maximal)
        << ForwardDynamics(model).formulation().reason;
    const int slider = bodyIndex(*model, "slider"), rodA = bodyIndex(*model, "rodA"),
              rodB = bodyIndex(*model, "rodB");
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    const double e0 = totalEnergy(sim), L0 = momentumZ(*model, sim.state());
    EXPECT_NEAR(e0, 238.8854504, 1e-6);
    EXPECT_NEAR(L0, 53.8689987, 1e-6);
    double previous = e0, worstRise = 0.0, worstBalance = 0.0, worstL = 0.0, worstMirror = 0.0;
    double sMin = 1.0, sMax = 0.0;
    for (int n = 1; n <= 1000; ++n) {
        const Status s = sim.advance(0.01 * n);
        ASSERT_TRUE(s.ok) << s.message;
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        const double e = out.energies.total();
        worstRise = std::max(worstRise, e - previous);
        worstBalance = std::max(worstBalance, std::abs(e + out.energies.dissipated - e0));
        previous = e;
        worstL = std::max(worstL, std::abs(momentumZ(*model, sim.state()) - L0));
        // Mirror images through the shaft's axis: rod B's centre of mass is rod A's turned by π
        // about the shaft (their height the same, their horizontal offsets opposite).
        const Vec3 a = bodyPosition(sim.state().q, rodA), b = bodyPosition(sim.state().q, rodB);
        worstMirror = std::max(
            worstMirror, (a + b - Vec3(0, 0, a.z() + b.z())).norm() + std::abs(a.z() - b.z()));
        const double height = bodyPosition(sim.state().q, slider).z();
        sMin = std::min(sMin, height), sMax = std::max(sMax, height);
    }
    std::printf(
        "Flyball: |dLz| %.3g, energy rise %.3g J, balance %.3g J, mirror %.3g m, s in [%.4f, "
        "%.4f]\n",
        worstL, worstRise, worstBalance, worstMirror, sMin, sMax);
    EXPECT_LT(worstL, 1e-7) << "kg m^2/s";
    EXPECT_LT(worstRise, 1e-8) << "J";
    EXPECT_LT(worstBalance, 1e-6) << "J";
    EXPECT_LT(worstMirror, 1e-8) << "m";
    EXPECT_GT(previous, e0 - 0.1) << "the dampers take little: the springs hardly stretch";
    EXPECT_LT(previous, e0 - 1e-4) << "but they take something";
}
TEST(Benchmarks, FlyballGovernorA05ConservesItsMomentumAndLosesEnergyOnlyToItsDampers) {
    flyballGovernorA05(Formulation::Auto);
}
TEST(BenchmarksInJointCoordinates,
     FlyballGovernorA05ConservesItsMomentumAndLosesEnergyOnlyToItsDampers) {
    flyballGovernorA05(Formulation::Recursive);
}

// The IFToMM spatial slider-crank (Haug's): crank, conrod on a ball joint and a universal
// joint, slider on x; one degree of freedom, the crank angle θ. Exact motion by quadrature of
// the energy, t(θ) = ∫ √(M(θ) / (2 (E − V(θ)))) dθ (docs/benchmarks.md): the crank turns once
// in 0.57889743960071 s; x_C at the tabulated times below.
void spatialSliderCrank(Formulation formulation) {
    const auto model = benchmark("spatial_slider_crank.json", formulation);
    ASSERT_TRUE(model);
    ASSERT_EQ(ForwardDynamics(model).formulation().formulation,
              formulation == Formulation::Recursive ? Formulation::Recursive : Formulation::Maximal)
        << ForwardDynamics(model).formulation().reason;
    const int slider = bodyIndex(*model, "slider");
    struct Sample {
        double t, x, vx;
    };
    const Sample table[] = {{0.1, 0.22678718855292, 0.305277006935},
                            {0.5, 0.1849526297778, -0.00456029063252},
                            {1.0, 0.21172166139344, -0.503491864925},
                            {2.0, 0.28908519706714, 0.216539423453},
                            {5.0, 0.24071957372962, -0.595984412045}};
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    const double e0 = totalEnergy(sim);
    EXPECT_NEAR(e0, 0.76643568, 1e-8);
    double worst = 0.0;
    for (const Sample& sample : table) {
        const Status s = sim.advance(sample.t);
        ASSERT_TRUE(s.ok) << s.message;
        const Vec3 C = bodyPosition(sim.state().q, slider);
        const double vx = layout::linear(sim.state().v, slider)(0);
        worst = std::max(worst, std::abs(C.x() - sample.x));
        EXPECT_NEAR(C.x(), sample.x, 1e-8) << "t = " << sample.t;
        EXPECT_NEAR(vx, sample.vx, 1e-7) << "t = " << sample.t;
        EXPECT_NEAR(totalEnergy(sim), e0, 1e-9) << "t = " << sample.t;
    }
    std::printf("Slider-crank (%s): worst x_C error %.3g m\n",
                std::string(formulationName(formulation)).c_str(), worst);
    ::testing::Test::RecordProperty("x_C_error_m", std::to_string(worst));
}
TEST(Benchmarks, SpatialSliderCrankFollowsItsOneDegreeOfFreedomReduction) {
    spatialSliderCrank(Formulation::Auto);
}
// (A tree of the crank's hinge, the conrod's ball joint and the slider's slide; the universal
// joint closes the loop.)
TEST(BenchmarksInJointCoordinates, SpatialSliderCrankFollowsItsOneDegreeOfFreedomReduction) {
    spatialSliderCrank(Formulation::Recursive);
}

}  // namespace
}  // namespace engine
