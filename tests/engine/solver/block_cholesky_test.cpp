// The 6 × 6 block Cholesky factorisation (engine/solver/block_cholesky.h) against a dense one:
// block-tridiagonal systems (a stack's interfaces), grids eliminated in random orders (fill
// between blocks the matrix does not couple), a diagonal alone, new values on a kept pattern,
// and matrices that are not positive definite.

#include "engine/solver/block_cholesky.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <random>

#include <gtest/gtest.h>
#include <Eigen/Dense>

namespace engine {
namespace {

using Block = BlockCholesky6::Block;

// A symmetric positive definite matrix of m blocks coupled where `couples` (pairs i > j): random
// blocks there, each diagonal block a random R Rᵀ plus more than the sum of its row's other
// blocks' norms times the identity (diagonally dominant).
struct System {
    int m = 0;
    std::map<std::pair<int, int>, Block> blocks;  // (row, col), row ≥ col
    Eigen::MatrixXd dense() const {
        Eigen::MatrixXd A = Eigen::MatrixXd::Zero(6 * m, 6 * m);
        for (const auto& [at, value] : blocks) {
            A.block<6, 6>(6 * at.first, 6 * at.second) = value;
            A.block<6, 6>(6 * at.second, 6 * at.first) = value.transpose();
        }
        return A;
    }
    std::vector<std::pair<int, int>> lower() const {  // by column, then row
        std::vector<std::pair<int, int>> out;
        for (const auto& [at, value] : blocks)
            if (at.first != at.second) out.push_back(at);
        std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
            return a.second != b.second ? a.second < b.second : a.first < b.first;
        });
        return out;
    }
    std::vector<BlockCholesky6::Entry> entries() const {
        std::vector<BlockCholesky6::Entry> out;
        for (const auto& [at, value] : blocks) out.push_back({at.first, at.second, value});
        return out;
    }
};

System randomSystem(int m, const std::vector<std::pair<int, int>>& couples, std::mt19937& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const auto random = [&] { return Block::NullaryExpr([&] { return u(rng); }).eval(); };
    System s;
    s.m = m;
    std::vector<double> weight(static_cast<std::size_t>(m), 1.0);
    for (const auto& [i, j] : couples) {
        const Block b = random();
        s.blocks[{std::max(i, j), std::min(i, j)}] = b;
        weight[static_cast<std::size_t>(i)] += b.cwiseAbs().sum();
        weight[static_cast<std::size_t>(j)] += b.cwiseAbs().sum();
    }
    for (int k = 0; k < m; ++k) {
        const Block R = random();
        s.blocks[{k, k}] =
            R * R.transpose() + weight[static_cast<std::size_t>(k)] * Block::Identity();
    }
    return s;
}

// The solution of s for a random right-hand side against a dense LLT's, relative.
double solveError(const System& s, BlockCholesky6& factor, std::mt19937& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const Eigen::VectorXd b = Eigen::VectorXd::NullaryExpr(6 * s.m, [&] { return u(rng); });
    Eigen::VectorXd x = b;
    factor.solveInPlace(x);
    const Eigen::VectorXd expected = s.dense().llt().solve(b);
    return (x - expected).norm() / expected.norm();
}

// A stack of 40 interfaces, each coupled to the next: no fill.
TEST(BlockCholesky6, SolvesABlockTridiagonalSystem) {
    std::mt19937 rng(1);
    std::vector<std::pair<int, int>> couples;
    for (int k = 1; k < 40; ++k) couples.emplace_back(k, k - 1);
    const System s = randomSystem(40, couples, rng);
    BlockCholesky6 factor;
    factor.analyse(s.lower(), s.m);
    ASSERT_TRUE(factor.factorise(s.entries()));
    EXPECT_LT(solveError(s, factor, rng), 1e-12);
}

// A 5 × 4 grid of blocks coupled to their neighbours, numbered in random orders: elimination
// fills in blocks the matrix leaves zero, and the solve is still the dense one's.
TEST(BlockCholesky6, SolvesAGridInAnyEliminationOrder) {
    std::mt19937 rng(2);
    constexpr int kX = 5, kY = 4, kM = kX * kY;
    for (int trial = 0; trial < 10; ++trial) {
        std::vector<int> place(kM);
        std::iota(place.begin(), place.end(), 0);
        std::shuffle(place.begin(), place.end(), rng);
        std::vector<std::pair<int, int>> couples;
        for (int x = 0; x < kX; ++x)
            for (int y = 0; y < kY; ++y) {
                const int k = place[static_cast<std::size_t>(x * kY + y)];
                if (x + 1 < kX)
                    couples.emplace_back(k, place[static_cast<std::size_t>((x + 1) * kY + y)]);
                if (y + 1 < kY)
                    couples.emplace_back(k, place[static_cast<std::size_t>(x * kY + y + 1)]);
            }
        const System s = randomSystem(kM, couples, rng);
        BlockCholesky6 factor;
        factor.analyse(s.lower(), s.m);
        ASSERT_TRUE(factor.factorise(s.entries()));
        EXPECT_LT(solveError(s, factor, rng), 1e-12) << "trial " << trial;
        EXPECT_GT(factor.flops(), 0.0);
    }
}

// The same pattern analysed once, factorised with new values again and again (the coarse
// correction's every sweep on a pile at rest); a diagonal alone (interfaces that share no part).
TEST(BlockCholesky6, KeepsItsPatternForNewValuesAndSolvesADiagonal) {
    std::mt19937 rng(3);
    const std::vector<std::pair<int, int>> couples = {{1, 0}, {2, 0}, {3, 1}, {3, 2}, {4, 3}};
    BlockCholesky6 factor;
    factor.analyse(randomSystem(5, couples, rng).lower(), 5);
    for (int round = 0; round < 3; ++round) {
        const System s = randomSystem(5, couples, rng);
        ASSERT_TRUE(factor.factorise(s.entries()));
        EXPECT_LT(solveError(s, factor, rng), 1e-12) << "round " << round;
    }
    const System diagonal = randomSystem(3, {}, rng);
    factor.analyse(diagonal.lower(), 3);
    EXPECT_EQ(factor.columns(), 3u);
    ASSERT_TRUE(factor.factorise(diagonal.entries()));
    EXPECT_LT(solveError(diagonal, factor, rng), 1e-12);
}

// Not positive definite — a pivot block with a negative direction, a singular one, one that
// turns indefinite only once the blocks before it are eliminated, a NaN — is refused.
TEST(BlockCholesky6, RefusesAMatrixThatIsNotPositiveDefinite) {
    std::mt19937 rng(4);
    const std::vector<std::pair<int, int>> couples = {{1, 0}, {2, 1}};
    BlockCholesky6 factor;
    {
        System s = randomSystem(3, couples, rng);
        s.blocks[{2, 2}](3, 3) = -1e3;
        factor.analyse(s.lower(), s.m);
        EXPECT_FALSE(factor.factorise(s.entries()));
    }
    {
        System s = randomSystem(3, couples, rng);
        s.blocks[{1, 1}].setZero();
        EXPECT_FALSE(factor.factorise(s.entries()));
    }
    {
        // [[I, 2I], [2I, I]]: each diagonal block positive, the matrix not (its Schur
        // complement I − 4I).
        System s;
        s.m = 2;
        s.blocks[{0, 0}] = Block::Identity();
        s.blocks[{1, 1}] = Block::Identity();
        s.blocks[{1, 0}] = 2.0 * Block::Identity();
        factor.analyse(s.lower(), s.m);
        EXPECT_FALSE(factor.factorise(s.entries()));
    }
    {
        System s = randomSystem(3, couples, rng);
        s.blocks[{1, 0}](2, 4) = std::numeric_limits<double>::quiet_NaN();
        factor.analyse(s.lower(), s.m);
        EXPECT_FALSE(factor.factorise(s.entries()));
    }
}

// Blocks the analysis was not told of — below the diagonal where the pattern has none, above
// the diagonal, beyond the last column — are refused, and the pattern still factors after.
TEST(BlockCholesky6, RefusesABlockOutsideItsPattern) {
    std::mt19937 rng(5);
    const std::vector<std::pair<int, int>> couples = {{1, 0}, {2, 1}};
    const System s = randomSystem(3, couples, rng);
    BlockCholesky6 factor;
    factor.analyse(s.lower(), s.m);
    for (const auto& [row, col] :
         std::vector<std::pair<int, int>>{{2, 0}, {0, 1}, {3, 0}, {3, 3}}) {
        std::vector<BlockCholesky6::Entry> entries = s.entries();
        entries.push_back({row, col, Block::Identity()});
        EXPECT_FALSE(factor.factorise(entries)) << "block (" << row << ", " << col << ")";
    }
    ASSERT_TRUE(factor.factorise(s.entries()));
    EXPECT_LT(solveError(s, factor, rng), 1e-12);
}

}  // namespace
}  // namespace engine
