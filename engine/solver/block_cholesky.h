#pragma once
// Cholesky factorisation L Lᵀ of a sparse symmetric positive definite matrix given in 6 × 6
// blocks, in the order its block rows and columns are numbered (the caller's elimination
// order: a minimum-degree one keeps the fill small). Per block column j:
//
//     L_jj = chol(A_jj − Σ_k L_jk L_jkᵀ),   L_ij = (A_ij − Σ_k L_ik L_jkᵀ) L_jj⁻ᵀ   (k < j < i)
//
// taken right-looking: once column j is factored, every pair of its blocks i ≥ k updates
// block (i, k). The blocks L holds are those of A below the diagonal and those elimination
// fills in, found once by analyse() (each column's rows merged into its parent's in the
// elimination tree) and kept while the pattern is. Every product is a fixed-size 6 × 6 one.
// The contact solve's coarse corrections (a pile's interfaces between parts, six unknowns
// each: a stack is block-tridiagonal) are such systems; a scalar sparse factorisation indexed
// each of their entries and spent most of its time doing so.

#include <cstddef>
#include <utility>
#include <vector>

#include <Eigen/Core>

namespace engine {

class BlockCholesky6 {
public:
    using Block = Eigen::Matrix<double, 6, 6>;
    // A block of the matrix: its block row and column and its entries.
    struct Entry {
        int row = 0, col = 0;
        Block value;
    };

    // The pattern of L for a matrix of m block columns whose blocks below the diagonal are
    // `lower` (row > column, ordered by column, then row).
    void analyse(const std::vector<std::pair<int, int>>& lower, int m);
    // The factorisation's flops, counted as a scalar one counts them: Σ over L's scalar columns
    // of their entries below the diagonal, squared.
    double flops() const { return flops_; }
    std::size_t columns() const { return diagonal_.size(); }

    // L for the matrix's lower blocks `entries` (every diagonal block and the blocks below it,
    // in the analysed pattern; any order): false when a pivot block is not positive definite
    // or an entry lies outside the pattern.
    bool factorise(const std::vector<Entry>& entries);

    // b ← (L Lᵀ)⁻¹ b, b of 6 · columns().
    void solveInPlace(Eigen::VectorXd& b) const;

private:
    // The place in below_ of block (i, j), i > j, in the pattern.
    std::size_t find(int i, std::size_t j) const;

    std::vector<std::size_t>
        start_;              // column j's blocks below the diagonal: [start_[j], start_[j + 1])
    std::vector<int> rows_;  // their block rows, increasing in each column
    std::vector<Block> diagonal_, below_;
    double flops_ = 0.0;
    // (analyse()'s workspace, kept: a new pattern allocates nothing once seen at its size)
    std::vector<std::vector<int>> children_;
    std::vector<int> merged_;
};

}  // namespace engine
