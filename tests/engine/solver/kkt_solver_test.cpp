#include "engine/solver/kkt_solver.h"

#include <random>

#include <Eigen/Dense>
#include <gtest/gtest.h>

namespace engine {
namespace {

using RowMatrix = KktSolver::RowMatrix;

RowMatrix randomJacobian(int rows, int cols, std::mt19937& rng) {
    std::uniform_real_distribution<double> u(-1, 1);
    Eigen::MatrixXd dense(rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) dense(r, c) = (c / 6 == r % (cols / 6) || c / 6 == (r + 1) % (cols / 6)) ? u(rng) : 0.0;
    return dense.sparseView();
}

TEST(KktSolver, MatchesADenseSolveOfTheSaddlePointSystem) {
    std::mt19937 rng(1);
    const int cols = 24, rows = 10;
    const RowMatrix J = randomJacobian(rows, cols, rng);
    const Eigen::VectorXd Minv = Eigen::VectorXd::Random(cols).cwiseAbs() + Eigen::VectorXd::Constant(cols, 0.5);
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

TEST(KktSolver, ReportsASingularSystemInsteadOfReturningGarbage) {
    std::mt19937 rng(3);
    const RowMatrix J0 = randomJacobian(4, 12, rng);
    KktSolver solver;
    solver.analyze(J0, Eigen::VectorXd::Ones(12));
    // Same pattern, but now row 3 equals row 0: the factorisation must say so.
    Eigen::MatrixXd dense(J0);
    for (int c = 0; c < 12; ++c)
        if (dense(3, c) != 0.0 || dense(0, c) != 0.0) dense(3, c) = dense(0, c);
    RowMatrix J = J0;
    for (int k = 0; k < J.outerSize(); ++k)
        for (RowMatrix::InnerIterator it(J, k); it; ++it) it.valueRef() = dense(it.row(), it.col());
    if (Eigen::FullPivLU<Eigen::MatrixXd>(Eigen::MatrixXd(J)).rank() == 4) GTEST_FAIL() << "test set-up";
    EXPECT_FALSE(solver.factorize(J, Eigen::VectorXd::Ones(12)));
    EXPECT_GE(solver.singularRow(), 0);
}

}  // namespace
}  // namespace engine
