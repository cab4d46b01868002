#include "engine/solver/kkt_solver.h"

#include <limits>
#include <random>

#include <gtest/gtest.h>
#include <Eigen/Dense>

namespace engine {
namespace {

using RowMatrix = KktSolver::RowMatrix;

RowMatrix randomJacobian(int rows, int cols, std::mt19937& rng) {
    std::uniform_real_distribution<double> u(-1, 1);
    Eigen::MatrixXd dense(rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            dense(r, c) = (c / 6 == r % (cols / 6) || c / 6 == (r + 1) % (cols / 6)) ? u(rng) : 0.0;
    return dense.sparseView();
}

TEST(KktSolver, MatchesADenseSolveOfTheSaddlePointSystem) {
    std::mt19937 rng(1);
    const int cols = 24, rows = 10;
    const RowMatrix J = randomJacobian(rows, cols, rng);
    const Eigen::VectorXd Minv =
        Eigen::VectorXd::Random(cols).cwiseAbs() + Eigen::VectorXd::Constant(cols, 0.5);
    const Eigen::VectorXd g = Eigen::VectorXd::Random(cols), c = Eigen::VectorXd::Random(rows);

    KktSolver solver;
    solver.analyze(J, Minv);
    ASSERT_TRUE(solver.redundantRows().empty());
    Eigen::VectorXd x, lambda;
    solver.solve(g, c, x, lambda);

    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(cols + rows, cols + rows);
    K.topLeftCorner(cols, cols) = Minv.cwiseInverse().asDiagonal();
    K.topRightCorner(cols, rows) = Eigen::MatrixXd(J).transpose();
    K.bottomLeftCorner(rows, cols) = Eigen::MatrixXd(J);
    Eigen::VectorXd rhs(cols + rows);
    rhs << g, c;
    const Eigen::VectorXd expected = K.fullPivLu().solve(rhs);
    EXPECT_LT((x - expected.head(cols)).norm(), 1e-10);
    EXPECT_LT((lambda - expected.tail(rows)).norm(), 1e-10);
}

TEST(KktSolver, DropsLaterRowsThatRepeatEarlierOnesAndStillSolves) {
    std::mt19937 rng(2);
    const int cols = 18;
    const RowMatrix base = randomJacobian(6, cols, rng);
    // Rows 6 and 7 are combinations of rows 1, 2 and 4: redundant.
    Eigen::MatrixXd dense(8, cols);
    dense.topRows(6) = Eigen::MatrixXd(base);
    dense.row(6) = 2.0 * dense.row(1) - dense.row(4);
    dense.row(7) = 0.5 * dense.row(2);
    const RowMatrix J = dense.sparseView();
    const Eigen::VectorXd Minv = Eigen::VectorXd::Ones(cols);
    KktSolver solver;
    solver.analyze(J, Minv);
    EXPECT_EQ(solver.rank(), 6);
    EXPECT_EQ(solver.redundantRows(), (std::vector<int>{6, 7}));

    // Consistent right-hand side: the solution meets every row, redundant ones included.
    const Eigen::VectorXd x0 = Eigen::VectorXd::Random(cols);
    const Eigen::VectorXd c = dense * x0;
    Eigen::VectorXd x, lambda;
    solver.solve(Eigen::VectorXd::Random(cols), c, x, lambda);
    EXPECT_LT((dense * x - c).norm(), 1e-10);
    EXPECT_EQ(lambda(6), 0.0);
    EXPECT_EQ(lambda(7), 0.0);
}

TEST(KktSolver, RowsThatBecomeDependentAreDroppedAtThatFactorisation) {
    std::mt19937 rng(3);
    const RowMatrix J0 = randomJacobian(4, 12, rng);
    KktSolver solver;
    const Eigen::VectorXd Minv = Eigen::VectorXd::LinSpaced(12, 0.5, 2.0);
    solver.analyze(J0, Minv);
    ASSERT_EQ(solver.rank(), 4);
    // Same pattern, but now row 3 equals row 0 where both have entries (a singular position).
    Eigen::MatrixXd dense(J0);
    for (int c = 0; c < 12; ++c)
        if (dense(3, c) != 0.0 || dense(0, c) != 0.0) dense(3, c) = dense(0, c);
    RowMatrix J = J0;
    for (int k = 0; k < J.outerSize(); ++k)
        for (RowMatrix::InnerIterator it(J, k); it; ++it) it.valueRef() = dense(it.row(), it.col());
    ASSERT_EQ(Eigen::FullPivLU<Eigen::MatrixXd>(dense).rank(), 3) << "test set-up";

    ASSERT_TRUE(solver.factorize(J, Minv));
    EXPECT_EQ(solver.rank(), 3);
    EXPECT_EQ(solver.redundantRows().size(), 1u);
    EXPECT_EQ(solver.reanalyses(), 1);
    EXPECT_TRUE(solver.nearSingular());

    // A consistent right-hand side: every row met, the dropped one included; the multipliers
    // stay bounded (λ = 0 on the dropped row) and reproduce the KKT equations.
    const Eigen::VectorXd x0 = Eigen::VectorXd::Random(12);
    const Eigen::VectorXd c = dense * x0;
    const Eigen::VectorXd g = Eigen::VectorXd::Random(12);
    Eigen::VectorXd x, lambda;
    solver.solve(g, c, x, lambda);
    EXPECT_EQ(solver.unmetRow(), -1);
    EXPECT_LT((dense * x - c).norm(), 1e-10);
    EXPECT_LT((x - Minv.cwiseProduct(g - dense.transpose() * lambda)).norm(), 1e-10);
    EXPECT_EQ(lambda(solver.redundantRows()[0]), 0.0);
    EXPECT_LT(lambda.norm(), 1e3 * (g.norm() + c.norm()));

    // An inconsistent one (rows 0 and 3 ask for different things: a lock-up) is named.
    Eigen::VectorXd bad = c;
    bad(3) += 1.0;
    solver.solve(g, bad, x, lambda);
    EXPECT_EQ(solver.unmetRow(), solver.redundantRows()[0]);
    EXPECT_GT(solver.unmetResidual(), 1e-3);  // far above the 1e-6 a dependent row is met to

    // Back at the regular position the row is taken back.
    ASSERT_TRUE(solver.factorize(J0, Minv));
    const Eigen::VectorXd c0 = Eigen::MatrixXd(J0) * x0;
    solver.solve(g, c0, x, lambda);
    EXPECT_EQ(solver.rank(), 4);
    EXPECT_EQ(solver.unmetRow(), -1);
    EXPECT_LT((Eigen::MatrixXd(J0) * x - c0).norm(), 1e-10);
}

// The memory a frame keeps (State::solverMemory): a second solver given the first's memory at
// the same Φq continues as the first does (the row dropped at the singular position stays
// dropped, its pivots are judged against the same best), where a fresh analysis there differs.
TEST(KktSolver, AMemoryTakenBackContinuesAsTheSolverThatSavedIt) {
    std::mt19937 rng(3);
    const RowMatrix J0 = randomJacobian(4, 12, rng);
    const Eigen::VectorXd Minv = Eigen::VectorXd::LinSpaced(12, 0.5, 2.0);
    // Row 3 moves towards row 0 and then reaches it (a singular position).
    Eigen::MatrixXd near(J0), at(J0);
    for (int c = 0; c < 12; ++c)
        if (at(3, c) != 0.0 || at(0, c) != 0.0) {
            near(3, c) = 0.999 * at(0, c) + 0.001 * at(3, c);
            at(3, c) = at(0, c);
        }
    auto withValues = [&](const Eigen::MatrixXd& dense) {
        RowMatrix J = J0;
        for (int k = 0; k < J.outerSize(); ++k)
            for (RowMatrix::InnerIterator it(J, k); it; ++it)
                it.valueRef() = dense(it.row(), it.col());
        return J;
    };
    KktSolver original;
    original.analyze(J0, Minv);
    ASSERT_TRUE(original.factorize(withValues(at), Minv));
    ASSERT_EQ(original.rank(), 3);
    ASSERT_TRUE(original.factorize(withValues(near), Minv));  // the row stays dropped
    ASSERT_EQ(original.rank(), 3);

    const bool pivots = true;
    std::vector<double> memory(static_cast<std::size_t>(KktSolver::memorySize(4, pivots)));
    original.saveMemory(memory.data(), pivots);
    EXPECT_EQ(memory[0], 4.0);  // the best rank seen

    KktSolver fresh, restored;
    fresh.analyze(withValues(near), Minv);
    restored.analyze(withValues(near), Minv);
    restored.restoreMemory(memory.data(), pivots);
    ASSERT_TRUE(restored.factorize(withValues(near), Minv));
    EXPECT_EQ(fresh.rank(), 4);  // analysed afresh there: every row independent
    EXPECT_EQ(restored.rank(), original.rank());
    EXPECT_EQ(restored.redundantRows(), original.redundantRows());
    EXPECT_EQ(restored.nearSingular(), original.nearSingular());
    std::vector<double> again(memory.size());
    restored.saveMemory(again.data(), pivots);
    EXPECT_EQ(again, memory);
}

// A memory read from a file may be anything: what is out of range is ignored and the
// factorisation checks the rows as always, so the solver still meets every row.
TEST(KktSolver, AHostileMemoryIsIgnoredWhereItMakesNoSense) {
    std::mt19937 rng(4);
    const RowMatrix J = randomJacobian(10, 24, rng);
    const Eigen::VectorXd Minv = Eigen::VectorXd::Constant(24, 1.5);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const int size = KktSolver::memorySize(10, true);
    std::vector<std::vector<double>> memories = {
        std::vector<double>(static_cast<std::size_t>(size), nan),
        std::vector<double>(static_cast<std::size_t>(size), inf),
        std::vector<double>(static_cast<std::size_t>(size), -1e300),
        std::vector<double>(static_cast<std::size_t>(size), 1e300),
    };
    std::vector<double> allDropped(static_cast<std::size_t>(size), 0.0);
    allDropped[0] = 10;
    allDropped[1] = 1023;  // every row dropped
    for (int k = 2; k < size; ++k) allDropped[static_cast<std::size_t>(k)] = 2.0;
    memories.push_back(allDropped);
    std::vector<double> fraction = allDropped;
    fraction[1] = 0.5;
    memories.push_back(fraction);
    for (const std::vector<double>& memory : memories) {
        KktSolver solver;
        solver.analyze(J, Minv);
        solver.restoreMemory(memory.data(), true);
        ASSERT_TRUE(solver.factorize(J, Minv));
        const Eigen::VectorXd x0 = Eigen::VectorXd::Random(24);
        const Eigen::VectorXd c = J * x0;
        Eigen::VectorXd x, lambda;
        solver.solve(Eigen::VectorXd::Random(24), c, x, lambda);
        EXPECT_EQ(solver.unmetRow(), -1) << memory[1];
        EXPECT_LT((J * x - c).norm(), 1e-9) << memory[1];
        EXPECT_TRUE(x.allFinite());
    }
}

TEST(KktSolver, ANonFiniteJacobianIsReportedInsteadOfFactored) {
    std::mt19937 rng(4);
    RowMatrix J = randomJacobian(4, 12, rng);
    KktSolver solver;
    solver.analyze(J, Eigen::VectorXd::Ones(12));
    J.valuePtr()[J.outerIndexPtr()[2]] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_FALSE(solver.factorize(J, Eigen::VectorXd::Ones(12)));
    EXPECT_EQ(solver.singularRow(), 2);
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

// The rows a greedy pass in row order keeps: each row that adds to the rank of the rows kept
// before it (dense, normalised rows; the reference for the solver's rank analysis).
std::vector<int> greedyRedundantRows(const KktSolver::RowMatrix& J) {
    const Eigen::MatrixXd dense(J);
    std::vector<int> redundant;
    Eigen::MatrixXd kept(0, dense.cols());
    for (int r = 0; r < dense.rows(); ++r) {
        Eigen::MatrixXd trial(kept.rows() + 1, dense.cols());
        trial << kept, dense.row(r) / std::max(1e-300, dense.row(r).norm());
        Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(trial.transpose());
        qr.setThreshold(1e-9);
        if (qr.rank() > kept.rows())
            kept = trial;
        else
            redundant.push_back(r);
    }
    return redundant;
}

TEST(KktSolverRank, SplitsAtBridgesAndFindsTheSameRedundantRowsAsOneGreedyPass) {
    // Random body graphs: a tree of bodies hung from the ground, extra edges closing loops,
    // rows of random joints on each edge (more than a loop can take, so loops have redundant
    // rows), and rows that repeat combinations of others.
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int trial = 0; trial < 100; ++trial) {
        const int bodies = 3 + trial % 12;
        const int cols = 6 * bodies;
        std::vector<Eigen::RowVectorXd> rows;
        // A joint's row is cᵀ (T_a v_a − T_b v_b): c picks what it stops of the relative twist,
        // T_b maps body b's velocity coordinates to its twist at a common point (random,
        // invertible). A rigid motion shared by bodies leaves every row between them at 0,
        // as real joint equations do.
        std::vector<Eigen::MatrixXd> T;
        for (int b = 0; b < bodies; ++b)
            T.push_back(Eigen::MatrixXd::Random(6, 6) + 3.0 * Eigen::MatrixXd::Identity(6, 6));
        auto edgeRows = [&](int a, int b, int count) {  // b = -1: the ground
            for (int k = 0; k < count; ++k) {
                Eigen::RowVectorXd c(6);
                for (int i = 0; i < 6; ++i) c(i) = u(rng);
                Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(cols);
                row.segment(6 * a, 6) = c * T[static_cast<std::size_t>(a)];
                if (b >= 0) row.segment(6 * b, 6) = -c * T[static_cast<std::size_t>(b)];
                rows.push_back(row);
            }
        };
        for (int b = 0; b < bodies; ++b)
            edgeRows(b, b == 0 ? -1 : static_cast<int>(rng() % static_cast<unsigned>(b)),
                     1 + static_cast<int>(rng() % 5));
        for (int loop = 0; loop < trial % 4; ++loop) {
            const int a = static_cast<int>(rng() % static_cast<unsigned>(bodies));
            const int b = static_cast<int>(rng() % static_cast<unsigned>(bodies));
            edgeRows(a, a == b ? -1 : b, 1 + static_cast<int>(rng() % 5));
        }
        // Repeated equations: a combination of two earlier rows of one edge (a joint repeating
        // its own equation, or two joints on one pair of bodies), in most trials; of any two
        // rows — touching three or four bodies — in every fourth (the analysis must then not
        // split).
        const std::size_t base = rows.size();
        for (int extra = 0; extra < 3; ++extra) {
            const std::size_t i = rng() % base;
            std::size_t j = rng() % base;
            if (trial % 4 != 3)
                while (((rows[j].array() != 0.0) != (rows[i].array() != 0.0)).any())
                    j = rng() % base;
            rows.push_back(0.5 * rows[i] - 2.0 * rows[j]);
        }
        Eigen::MatrixXd dense(static_cast<Eigen::Index>(rows.size()), cols);
        for (std::size_t r = 0; r < rows.size(); ++r)
            dense.row(static_cast<Eigen::Index>(r)) = rows[r];
        const KktSolver::RowMatrix J = dense.sparseView();
        KktSolver solver;
        solver.analyze(J, Eigen::VectorXd::Ones(cols));
        EXPECT_EQ(solver.redundantRows(), greedyRedundantRows(J)) << "trial " << trial;
    }
}

TEST(KktSolverRank, ALongChainHasFullRank) {
    // 3,000 bodies in a chain, 5 rows per joint: every row kept (and, being split at every
    // bridge, analysed in time linear in the chain).
    const int bodies = 3000;
    std::vector<Eigen::Triplet<double>> entries;
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int b = 0; b < bodies; ++b)
        for (int k = 0; k < 5; ++k)
            for (int c = 0; c < 6; ++c) {
                entries.emplace_back(5 * b + k, 6 * b + c, u(rng));
                if (b > 0) entries.emplace_back(5 * b + k, 6 * (b - 1) + c, u(rng));
            }
    KktSolver::RowMatrix J(5 * bodies, 6 * bodies);
    J.setFromTriplets(entries.begin(), entries.end());
    KktSolver solver;
    solver.analyze(J, Eigen::VectorXd::Ones(6 * bodies));
    EXPECT_EQ(solver.rank(), 5 * bodies);
    EXPECT_TRUE(solver.redundantRows().empty());
}

}  // namespace
}  // namespace engine
