// The block factorisation of S = Φ M⁻¹ Φᵀ (engine/solver/block_ldlt.h) against dense
// factorisations: on random mechanisms' block patterns (chains, trees, loops, many rows between
// one pair of bodies), and along the runs of every example scene, where the accelerations and
// multipliers of the engine must equal those of a dense solve of the same KKT system to 1e-10.

#include "engine/solver/block_ldlt.h"

#include <algorithm>
#include <filesystem>
#include <random>

#include <gtest/gtest.h>
#include <Eigen/Dense>

#include "engine/analysis/forward_dynamics.h"
#include "engine/io/scene_json.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

using RowMatrix = BlockLdlt::RowMatrix;

// Rows between pairs of bodies (−1: the ground), each row with random whole 6-column blocks.
struct Pattern {
    int bodies = 0;
    std::vector<std::pair<int, int>> rows;
};

RowMatrix randomJacobian(const Pattern& p, std::mt19937& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<Eigen::Triplet<double>> entries;
    for (int r = 0; r < static_cast<int>(p.rows.size()); ++r)
        for (const int b : {p.rows[static_cast<std::size_t>(r)].first,
                            p.rows[static_cast<std::size_t>(r)].second})
            if (b >= 0)
                for (int c = 0; c < 6; ++c) entries.emplace_back(r, 6 * b + c, u(rng));
    RowMatrix J(static_cast<Eigen::Index>(p.rows.size()), 6 * p.bodies);
    J.setFromTriplets(entries.begin(), entries.end());
    J.makeCompressed();
    return J;
}

// Every row of the pattern, in order: the rows a factorisation is over.
std::vector<int> allRows(const Pattern& p) {
    std::vector<int> rows(p.rows.size());
    for (std::size_t k = 0; k < rows.size(); ++k) rows[k] = static_cast<int>(k);
    return rows;
}

// The pattern analysed over a random Jacobian of it.
BlockLdlt analyzed(const Pattern& p, unsigned seed) {
    std::mt19937 rng(seed);
    BlockLdlt ldlt;
    ldlt.analyze(randomJacobian(p, rng), allRows(p));
    return ldlt;
}

// n rows of a joint between a and b.
void joint(Pattern& p, int a, int b, int n) {
    for (int k = 0; k < n; ++k) p.rows.emplace_back(a, b);
}

void expectSolvesLikeDense(const Pattern& pattern, unsigned seed) {
    std::mt19937 rng(seed);
    const RowMatrix J = randomJacobian(pattern, rng);
    const int n = static_cast<int>(J.rows());
    Eigen::VectorXd Minv =
        Eigen::VectorXd::Random(J.cols()).cwiseAbs() + Eigen::VectorXd::Constant(J.cols(), 0.2);
    BlockLdlt ldlt;
    ldlt.analyze(J, allRows(pattern));
    ldlt.factor(J, Minv);
    const Eigen::MatrixXd Jd(J);
    const Eigen::MatrixXd S = Jd * Minv.asDiagonal() * Jd.transpose();
    ASSERT_EQ(Eigen::FullPivLU<Eigen::MatrixXd>(S).rank(), n) << "test set-up: independent rows";

    const Eigen::VectorXd b = Eigen::VectorXd::Random(n);
    Eigen::VectorXd x = b;
    ldlt.solveInPlace(x);
    const Eigen::VectorXd expected = S.ldlt().solve(b);
    EXPECT_LT((x - expected).norm(), 1e-10 * expected.norm());

    // Pivots: those of a dense LDLᵀ of S taken in the same elimination order.
    const std::vector<int>& order = ldlt.eliminationOrder();
    ASSERT_EQ(static_cast<int>(order.size()), n);
    Eigen::MatrixXd P = Eigen::MatrixXd::Zero(n, n);
    for (int i = 0; i < n; ++i) P(i, order[static_cast<std::size_t>(i)]) = 1.0;
    const Eigen::MatrixXd permuted = P * S * P.transpose();
    Eigen::MatrixXd A = permuted;  // an unpivoted LDLᵀ by hand (Eigen's LDLT pivots)
    for (int i = 0; i < n; ++i) {
        const double d = A(i, i);
        EXPECT_NEAR(ldlt.pivot(order[static_cast<std::size_t>(i)]), d,
                    1e-10 * std::abs(S(order[static_cast<std::size_t>(i)],
                                       order[static_cast<std::size_t>(i)])));
        for (int r = i + 1; r < n; ++r)
            for (int c = i + 1; c < n; ++c) A(r, c) -= A(r, i) * A(i, c) / d;
    }
    for (int k = 0; k < n; ++k) EXPECT_NEAR(ldlt.diagonal(k), S(k, k), 1e-14 * S(k, k));

    // Products with Φ by the same blocks.
    const Eigen::VectorXd v = Eigen::VectorXd::Random(J.cols());
    Eigen::VectorXd y;
    ldlt.multiply(v, y);
    EXPECT_LT((y - Jd * v).norm(), 1e-13 * (1.0 + (Jd * v).norm()));
    Eigen::VectorXd back = Eigen::VectorXd::Ones(J.cols());
    ldlt.multiplyTransposedAdd(b, -2.0, back);
    EXPECT_LT((back - (Eigen::VectorXd::Ones(J.cols()) - 2.0 * Jd.transpose() * b)).norm(), 1e-12);
}

TEST(BlockLdlt, AChainFactorsWithoutFill) {
    Pattern p;
    p.bodies = 12;
    joint(p, -1, 0, 5);
    for (int b = 1; b < p.bodies; ++b) joint(p, b - 1, b, 5);
    expectSolvesLikeDense(p, 1);
    const BlockLdlt ldlt = analyzed(p, 1);
    EXPECT_EQ(ldlt.blocks(), 12);
    EXPECT_EQ(ldlt.offDiagonalBlocks(), 11);  // S's own blocks: block tridiagonal, no fill
}

TEST(BlockLdlt, ATreeFactorsWithoutFill) {
    // A base on the ground with three legs of three links each.
    Pattern p;
    p.bodies = 10;
    joint(p, -1, 0, 6);
    for (int leg = 0; leg < 3; ++leg) {
        const int first = 1 + 3 * leg;
        joint(p, 0, first, 5);
        joint(p, first, first + 1, 4);
        joint(p, first + 1, first + 2, 3);
    }
    expectSolvesLikeDense(p, 2);
    const BlockLdlt ldlt = analyzed(p, 2);
    // S couples the four blocks at the base (6 pairs) and each leg's consecutive blocks (2 × 3).
    EXPECT_EQ(ldlt.offDiagonalBlocks(), 6 + 2 * 3);
}

TEST(BlockLdlt, ClosedLoopsAndCrowdedPairsSolve) {
    Pattern ring;  // a ring of 8 bodies hung from the ground at two points
    ring.bodies = 8;
    joint(ring, -1, 0, 3);
    for (int b = 1; b < 8; ++b) joint(ring, b - 1, b, 3);
    joint(ring, 7, 0, 2);
    joint(ring, -1, 4, 2);
    expectSolvesLikeDense(ring, 3);

    Pattern crowded;  // eight rows between one pair (two blocks), one row to the ground alone
    crowded.bodies = 2;
    joint(crowded, 0, 1, 8);
    joint(crowded, -1, 1, 1);
    expectSolvesLikeDense(crowded, 4);
}

TEST(BlockLdlt, AWeakPivotIsReportedAndTheRestStaysFinite) {
    Pattern p;
    p.bodies = 3;
    joint(p, -1, 0, 3);
    joint(p, 0, 1, 3);
    joint(p, 1, 2, 3);
    std::mt19937 rng(5);
    RowMatrix J = randomJacobian(p, rng);
    // Row 4 repeats row 3 (the same pair of bodies): S is singular.
    for (int c = 0; c < 12; ++c)
        J.valuePtr()[J.outerIndexPtr()[4] + c] = J.valuePtr()[J.outerIndexPtr()[3] + c];
    BlockLdlt ldlt;
    ldlt.analyze(J, allRows(p));
    ldlt.factor(J, Eigen::VectorXd::Ones(18));
    EXPECT_LT(std::abs(ldlt.pivot(4)) / ldlt.diagonal(4), 1e-12);
    Eigen::VectorXd b = Eigen::VectorXd::Ones(9);
    ldlt.solveInPlace(b);
    EXPECT_TRUE(b.allFinite());
}

// Every example scene, along 0.5 s of its own run: the engine's accelerations and multipliers
// against a dense solve of the KKT system over the rows the solver keeps.
std::vector<std::filesystem::path> examples() {
    std::vector<std::filesystem::path> files;
    for (const char* folder : {MOTUS_SOURCE_DIR "/scenes", MOTUS_SOURCE_DIR "/scenes/benchmarks"})
        for (const auto& entry : std::filesystem::directory_iterator(folder))
            if (entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

TEST(BlockLdlt, EveryExampleSolvesItsKktSystemLikeADenseFactorisation) {
    int compared = 0;
    for (const auto& file : examples()) {
        SCOPED_TRACE(file.string());
        const io::SceneLoadResult loaded = io::loadSceneFile(file.string());
        ASSERT_TRUE(loaded.scene.has_value());
        const auto model = test::compiled(*loaded.scene);
        ASSERT_TRUE(model);
        if (model->constraintRows() == 0) continue;
        ForwardDynamics sim(model);
        ASSERT_TRUE(sim.initialize().ok);
        Workspace ws;
        for (int k = 0; k <= 10; ++k) {
            if (k > 0) {
                ASSERT_TRUE(sim.advance(0.05 * k).ok);
            }
            const State& s = sim.state();
            ASSERT_TRUE(prepareWorkspace(*model, s, ws).ok);
            ASSERT_TRUE(
                computeAccelerations(*model, s.t, s.q, s.v, s.jointCoordinates, s.lagged, ws).ok);

            // Dense reference over the rows kept.
            const Eigen::MatrixXd J(ws.constraints.Phi_q);
            const std::vector<int>& active = ws.solver.activeRows();
            Eigen::MatrixXd Ja(static_cast<Eigen::Index>(active.size()), J.cols());
            Eigen::VectorXd gamma_a(Ja.rows());
            for (std::size_t r = 0; r < active.size(); ++r) {
                Ja.row(static_cast<Eigen::Index>(r)) = J.row(active[r]);
                gamma_a(static_cast<Eigen::Index>(r)) = ws.constraints.gamma(active[r]);
            }
            const Eigen::MatrixXd S = Ja * ws.Minv.asDiagonal() * Ja.transpose();
            const Eigen::VectorXd Minv_g = ws.Minv.cwiseProduct(ws.g);
            const Eigen::VectorXd lambda_a = S.ldlt().solve(Ja * Minv_g - gamma_a);
            const Eigen::VectorXd vdot = Minv_g - ws.Minv.cwiseProduct(Ja.transpose() * lambda_a);

            // Equal to 1e-10, unless S is so ill-conditioned (a point mass on a rod: rotational
            // inertia 1e-9) that round-off of either solve is larger: then to its condition
            // number times round-off, and the engine's solution must meet the KKT equations to
            // round-off (backward error).
            const Eigen::VectorXd eigenvalues =
                Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(S).eigenvalues();
            const double condition = eigenvalues.maxCoeff() / eigenvalues.minCoeff();
            const double tolerance = std::max(1e-10, 1e-15 * condition);
            const double lambdaScale = std::max(1.0, lambda_a.cwiseAbs().maxCoeff());
            for (std::size_t r = 0; r < active.size(); ++r)
                EXPECT_NEAR(ws.lambda(active[r]), lambda_a(static_cast<Eigen::Index>(r)),
                            tolerance * lambdaScale)
                    << "t = " << s.t << ", condition " << condition;
            const double vdotScale = std::max(1.0, vdot.cwiseAbs().maxCoeff());
            EXPECT_LT((ws.vdot - vdot).cwiseAbs().maxCoeff(), tolerance * vdotScale)
                << "t = " << s.t;
            Eigen::VectorXd engineLambda_a(Ja.rows());
            for (std::size_t r = 0; r < active.size(); ++r)
                engineLambda_a(static_cast<Eigen::Index>(r)) = ws.lambda(active[r]);
            const Eigen::VectorXd force =
                ws.vdot.cwiseQuotient(ws.Minv) + Ja.transpose() * engineLambda_a - ws.g;
            const double forceScale = ws.g.cwiseAbs().maxCoeff() +
                                      (Ja.transpose() * engineLambda_a).cwiseAbs().maxCoeff() +
                                      ws.vdot.cwiseQuotient(ws.Minv).cwiseAbs().maxCoeff();
            EXPECT_LE(force.cwiseAbs().maxCoeff(), 1e-12 * forceScale) << "t = " << s.t;
            const Eigen::VectorXd rows = Ja * ws.vdot - gamma_a;
            // The size of the terms of Ja M⁻¹ (g − Jaᵀ λ) = γ.
            const Eigen::VectorXd terms =
                Ja.cwiseAbs() *
                    (Minv_g.cwiseAbs() +
                     ws.Minv.cwiseProduct(Ja.transpose().cwiseAbs() * engineLambda_a.cwiseAbs())) +
                gamma_a.cwiseAbs();
            EXPECT_LE(rows.cwiseAbs().maxCoeff(), 1e-12 * terms.maxCoeff()) << "t = " << s.t;
            ++compared;
        }
    }
    EXPECT_GE(compared, 100);
}

}  // namespace
}  // namespace engine
