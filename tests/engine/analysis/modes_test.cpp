// Natural frequencies and mode shapes against closed forms: a compound double pendulum's two
// small-oscillation frequencies and a fixed–free mass–spring chain's, to 1e-8 relative, and the
// damping ratio of a damped oscillator.

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include <Eigen/Eigenvalues>

#include "engine/analysis/assembly.h"
#include "engine/analysis/modes.h"
#include "engine/io/scene_json.h"
#include "engine/model/layout.h"
#include "tests/support/mechanisms.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

// 10,000 free parts asked for dense 60,000² matrices and ended in std::bad_alloc: a
// linearisation beyond the memory bound is refused before it allocates, saying why.
TEST(Modes, ALinearisationBeyondTheMemoryBoundIsRefusedNamingItsSize) {
    const auto model = test::compiled(test::chain(2000, IntegratorType::SymplecticEuler, 1e-3));
    const ModesResult r = modes(*model, initialState(*model));
    EXPECT_FALSE(r.status.ok);
    EXPECT_NE(r.status.message.find("the linearisation of 12000 velocity coordinates (2000 parts) "
                                    "needs dense 12000 × 12000 matrices, about 27.6 GB, beyond "
                                    "its 2 GB bound: linearise fewer parts"),
              std::string::npos)
        << r.status.message;
}

TEST(Modes, ACompoundDoublePendulumHasItsTwoFrequencies) {
    const double m1 = 1.0, L1 = 0.6, m2 = 0.7, L2 = 0.4, w = 0.02, g = 9.81;
    SceneSpec spec;
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "pivot", Vec3::Zero(), Vec3::UnitY());
    Part upper = test::box(spec, "upper", m1, Vec3(w, w, L1), Vec3(0, 0, -L1 / 2));
    test::addMarker(spec, upper, "top", Vec3(0, 0, L1 / 2), Vec3::UnitY());
    test::addMarker(spec, upper, "bottom", Vec3(0, 0, -L1 / 2), Vec3::UnitY());
    Part lower = test::box(spec, "lower", m2, Vec3(w, w, L2), Vec3(0, 0, -L1 - L2 / 2));
    test::addMarker(spec, lower, "top", Vec3(0, 0, L2 / 2), Vec3::UnitY());
    spec.parts = {ground, upper, lower};
    spec.joints.push_back(
        test::joint(spec, "shoulder", JointType::Revolute, "upper.top", "ground.pivot"));
    spec.joints.push_back(
        test::joint(spec, "elbow", JointType::Revolute, "lower.top", "upper.bottom"));
    const auto model = test::compiled(spec);
    const ModesResult r = modes(*model, initialState(*model));
    ASSERT_TRUE(r.status.ok) << r.status.message;
    EXPECT_LT(r.residual, 1e-12);  // hanging straight down: an equilibrium
    ASSERT_EQ(r.modes.size(), 2u);

    // Absolute angles θ1, θ2: M θ̈ + K θ = 0 with
    //   M = [I1 + m2 L1², m2 L1 c2; m2 L1 c2, I2],  K = diag((m1 c1 + m2 L1) g, m2 c2 g),
    // I1, I2 about the links' own pivots, c the distances of the centres of mass from them.
    const double c1 = L1 / 2, c2 = L2 / 2;
    const double I1 = m1 * (w * w + L1 * L1) / 12 + m1 * c1 * c1;
    const double I2 = m2 * (w * w + L2 * L2) / 12 + m2 * c2 * c2;
    Eigen::Matrix2d M, K;
    M << I1 + m2 * L1 * L1, m2 * L1 * c2, m2 * L1 * c2, I2;
    K << (m1 * c1 + m2 * L1) * g, 0, 0, m2 * c2 * g;
    const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::Matrix2d> exact(K, M);
    for (int k = 0; k < 2; ++k) {
        const double f = std::sqrt(exact.eigenvalues()(k)) / kTwoPi;
        EXPECT_NEAR(r.modes[static_cast<std::size_t>(k)].frequency, f, 1e-8 * f);
        EXPECT_NEAR(r.modes[static_cast<std::size_t>(k)].dampingRatio, 0.0, 1e-8);
        EXPECT_FALSE(r.modes[static_cast<std::size_t>(k)].unstable);
    }
    // The linearised equations behind them: N M-orthonormal, K's eigenvalues ω², C zero.
    Eigen::VectorXd Mdiag(model->velocitySize());
    for (int b = 0; b < model->bodyCount(); ++b) {
        layout::linear(Mdiag, b).setConstant(model->bodies[static_cast<std::size_t>(b)].mass);
        layout::angular(Mdiag, b) = model->bodies[static_cast<std::size_t>(b)].inertia;
    }
    ASSERT_EQ(r.N.cols(), 2);
    EXPECT_LT((r.N.transpose() * Mdiag.asDiagonal() * r.N - Eigen::Matrix2d::Identity())
                  .cwiseAbs()
                  .maxCoeff(),
              1e-12);
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> k(0.5 * (r.K + r.K.transpose()));
    for (int j = 0; j < 2; ++j)
        EXPECT_NEAR(k.eigenvalues()(j), exact.eigenvalues()(j), 1e-7 * exact.eigenvalues()(j));
    EXPECT_LT(r.C.cwiseAbs().maxCoeff(), 1e-9);
    EXPECT_LT(r.force.cwiseAbs().maxCoeff(), 1e-9);

    // The first mode swings both links the same way, the second against each other: the
    // lower link's x motion has the upper's sign in the first, the opposite in the second.
    const auto& s1 = r.modes[0].shape;
    const auto& s2 = r.modes[1].shape;
    EXPECT_GT(s1(0) * s1(6), 0.0);
    EXPECT_LT(s2(0) * s2(6), 0.0);
}

// n masses m on a line along x, each sliding on the ground (prismatic), the first tied to a
// wall by a spring k, each to the next by another: fixed–free, with a damper c on each spring.
SceneSpec massSpringChain(int n, double m, double k, double c) {
    SceneSpec spec;
    spec.gravity = Vec3::Zero();
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "wall", Vec3::Zero());
    test::addMarker(spec, ground, "rail", Vec3::Zero(), Vec3::UnitX());
    spec.parts = {ground};
    for (int i = 1; i <= n; ++i) {
        Part mass = test::box(spec, "m" + std::to_string(i), m, Vec3(0.1, 0.1, 0.1),
                              Vec3(static_cast<double>(i), 0, 0));
        test::addMarker(spec, mass, "c", Vec3::Zero());
        test::addMarker(spec, mass, "slide", Vec3::Zero(), Vec3::UnitX());
        spec.parts.push_back(mass);
        spec.joints.push_back(test::joint(spec, "rail" + std::to_string(i), JointType::Prismatic,
                                          "m" + std::to_string(i) + ".slide", "ground.rail"));
        ForceSpec spring;
        spring.id = spec.newId();
        spring.name = "spring" + std::to_string(i);
        spring.type = ForceType::SpringDamper;
        spring.markerI =
            i == 1 ? MarkerRef{"ground", "wall"} : MarkerRef{"m" + std::to_string(i - 1), "c"};
        spring.markerJ = {"m" + std::to_string(i), "c"};
        spring.stiffness = k;
        spring.damping = c;
        spring.freeLength = 1.0;
        spec.forces.push_back(spring);
    }
    return spec;
}

TEST(Modes, AMassSpringChainHasItsClosedFormFrequencies) {
    const int n = 4;
    const double m = 2.0, k = 300.0;
    const auto model = test::compiled(massSpringChain(n, m, k, 0.0));
    const ModesResult r = modes(*model, initialState(*model));
    ASSERT_TRUE(r.status.ok) << r.status.message;
    ASSERT_EQ(r.modes.size(), static_cast<std::size_t>(n));
    // Fixed–free chain: ω_j = 2 √(k/m) sin((2j − 1) π / (2 (2n + 1))).
    for (int j = 1; j <= n; ++j) {
        const double omega =
            2 * std::sqrt(k / m) * std::sin((2 * j - 1) * std::numbers::pi / (2 * (2 * n + 1)));
        const Mode& mode = r.modes[static_cast<std::size_t>(j - 1)];
        EXPECT_NEAR(mode.frequency, omega / kTwoPi, 1e-8 * omega / kTwoPi) << "mode " << j;
        EXPECT_NEAR(mode.dampingRatio, 0.0, 1e-8);
    }
    // The first mode moves every mass the same way, the last one the most.
    const Mode& first = r.modes[0];
    for (int b = 0; b < n; ++b) EXPECT_GT(first.shape(6 * b) * first.shape(0), 0.0);
    EXPECT_NEAR(std::abs(first.shape(6 * (n - 1))), 1.0, 1e-12);
}

// A four-bar with gravity along its hinges is neutral, as without gravity: its one mode turns
// it freely, frequency 0, neither oscillating nor unstable. Its K is round-off (~1e-14 /s²),
// whose square root read as a rate of 2e-7 /s had flagged the mode unstable.
TEST(Modes, AMechanismWithGravityAlongItsHingesIsNeutralNotUnstable) {
    SceneSpec spec = *io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/four_bar.json").scene;
    for (const Vec3& gravity : {Vec3(0, -9.81, 0), Vec3(0, 9.81, 0), Vec3(0, 0, 0)}) {
        spec.gravity = gravity;  // the hinges are along y
        const auto model = test::compiled(spec);
        const ModesResult r = modes(*model, assembleMechanism(*model, initialState(*model)).state);
        ASSERT_TRUE(r.status.ok) << r.status.message;
        ASSERT_EQ(r.modes.size(), 1u);
        EXPECT_EQ(r.modes[0].frequency, 0.0) << gravity.transpose();
        EXPECT_EQ(r.modes[0].growthRate, 0.0) << gravity.transpose();
        EXPECT_FALSE(r.modes[0].unstable) << gravity.transpose();
    }
    // With gravity in its plane it swings: a frequency well above the threshold.
    spec.gravity = Vec3(0, 0, -9.81);
    const auto model = test::compiled(spec);
    const ModesResult r = modes(*model, assembleMechanism(*model, initialState(*model)).state);
    ASSERT_TRUE(r.status.ok) << r.status.message;
    ASSERT_EQ(r.modes.size(), 1u);
    EXPECT_GT(r.modes[0].frequency + r.modes[0].growthRate, 0.1);
}

TEST(Modes, ADampedOscillatorHasItsDampingRatio) {
    // One mass on one spring and damper: ζ = c / (2 √(k m)), ω = √(k/m).
    const double m = 2.0, k = 300.0, c = 6.0;
    const auto model = test::compiled(massSpringChain(1, m, k, c));
    const ModesResult r = modes(*model, initialState(*model));
    ASSERT_TRUE(r.status.ok) << r.status.message;
    ASSERT_EQ(r.modes.size(), 1u);
    EXPECT_NEAR(r.modes[0].frequency, std::sqrt(k / m) / kTwoPi, 1e-8 * std::sqrt(k / m));
    EXPECT_NEAR(r.modes[0].dampingRatio, c / (2 * std::sqrt(k * m)), 1e-8);
}

// A chain of n rods hanging straight down, hinged end to end about y: in the rods' absolute
// angles θ, M_jk = Σ_i m (∂x_i/∂θ_j)(∂x_i/∂θ_k) + I δ_jk with x_i = l Σ_{k<i} θ_k + (l/2) θ_i
// the centre of rod i, and K_jj = m g l (n − j + 1/2) (j from 1 at the top). Its frequencies
// tend to those of the continuous hanging chain, (z_j / 2) √(g / L) with z_j the zeros of J0
// (the 100-link example's three lowest are within 0.05 % of them).
TEST(Modes, AHangingChainHasTheFrequenciesOfItsEigenproblem) {
    const int n = 12;
    const double m = 0.1, l = 0.05, w = 0.01, g = 9.81;
    SceneSpec spec;
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "pivot", Vec3::Zero(), Vec3::UnitY());
    spec.parts.push_back(ground);
    for (int i = 0; i < n; ++i) {
        Part rod = test::box(spec, "rod" + std::to_string(i), m, Vec3(w, w, l),
                             Vec3(0, 0, -l * (i + 0.5)));
        test::addMarker(spec, rod, "top", Vec3(0, 0, l / 2), Vec3::UnitY());
        test::addMarker(spec, rod, "bottom", Vec3(0, 0, -l / 2), Vec3::UnitY());
        spec.parts.push_back(rod);
        spec.joints.push_back(
            test::joint(spec, "hinge" + std::to_string(i), JointType::Revolute,
                        "rod" + std::to_string(i) + ".top",
                        i == 0 ? "ground.pivot" : "rod" + std::to_string(i - 1) + ".bottom"));
    }
    const auto model = test::compiled(spec);
    const ModesResult r = modes(*model, initialState(*model));
    ASSERT_TRUE(r.status.ok) << r.status.message;
    EXPECT_LT(r.residual, 1e-10);
    ASSERT_EQ(r.modes.size(), static_cast<std::size_t>(n));

    Eigen::MatrixXd X = Eigen::MatrixXd::Zero(n, n);  // ∂x_i/∂θ_j
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < i; ++j) X(i, j) = l;
        X(i, i) = l / 2;
    }
    const Eigen::MatrixXd M =
        m * X.transpose() * X + m * (l * l + w * w) / 12.0 * Eigen::MatrixXd::Identity(n, n);
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n, n);
    for (int j = 0; j < n; ++j) K(j, j) = m * g * l * (n - j - 0.5);
    const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> exact(K, M);
    for (int k = 0; k < n; ++k) {
        const double f = std::sqrt(exact.eigenvalues()(k)) / kTwoPi;
        EXPECT_NEAR(r.modes[static_cast<std::size_t>(k)].frequency, f, 1e-7 * f) << k;
    }
}

}  // namespace
}  // namespace engine
