#pragma once
// Block factorisation of the Schur complement S = Φr M⁻¹ Φrᵀ over a set of rows r of Φq,
// following the body–joint graph (Baraff, "Linear-time dynamics using Lagrange multipliers",
// SIGGRAPH 1996, carried to S):
//
//   rows touching the same bodies (a joint's rows, a motion on it) form a block of at most 6
//   rows; two blocks are coupled in S when they share a body:
//
//       S_ij = Σ_b Φ_ib M_b⁻¹ Φ_jbᵀ        (b: the bodies blocks i and j both touch)
//
//   the blocks are eliminated in an order that creates no fill for a tree of bodies (a block
//   whose body has no other blocks left goes first: leaves towards the root, by minimum
//   degree on the block graph), so a chain or a tree factors in time linear in its size; a
//   closed loop fills in only the blocks around the loop (the "cut" rows' small Schur
//   complement). Per block column j, with W the blocks of S updated so far:
//
//       C_j = chol(W_jj),   L_ij = W_ij C_j⁻ᵀ,   W_ik −= L_ij L_kjᵀ   (i, k after j)
//
//   (C_j taken as L̃ D^½ from W_jj = L̃ D L̃ᵀ, the updates as Y_ijᵀ D⁻¹ Y_kj with Y = L̃⁻¹ W_ijᵀ:
//   no square root between one block and the next). What is kept for the solves is the same
//   factorisation as S = L̂ D̂ L̂ᵀ with L̂_ij = W_ij W_jj⁻¹ and D̂ = diag(W_jj): W_jj⁻¹ and
//   L̂_ij, so that a solve waits on one W × W product per block each way.
//
// Blocks are fixed-size W × W, W the largest block (a block of fewer rows is padded with zero
// rows and a unit diagonal), every product is a fixed-size Eigen product, the pattern and the order of every
// update are worked out once in analyze(), and nothing is allocated while factoring or
// solving. Φq must store whole 6-column blocks per body and row (constraints/ does).
//
// The pivots d_k of row k (the squared diagonal of C before its square root) are kept with
// S's diagonal S_kk: d_k / S_kk is the squared sine of the angle, in the mass metric, between
// row k and the rows eliminated before it. A pivot that is not positive is replaced by S_kk
// (the row decoupled) so that the factorisation completes and the caller, who decides what a
// weak pivot means (kkt_solver.h), sees every pivot.

#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>

namespace engine {

class BlockLdlt {
public:
    using RowMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor>;

    // The pattern: which rows of Φq (ascending; their order is the order of the local rows
    // 0 … n−1 of every vector below), their blocks, the elimination order and the fill.
    void analyze(const RowMatrix& Phi_q, const std::vector<int>& rows);

    // S + shift·I + diag(rowShift) over the rows, from the values of Φq (same pattern as
    // analysed), factored; rowShift (may be null) is indexed by Φq's rows (compliance).
    void factor(const RowMatrix& Phi_q, const Eigen::VectorXd& Minv, double shift = 0.0,
                const Eigen::VectorXd* rowShift = nullptr);

    int size() const { return n_; }
    // S_kk (without the shift) and the pivot d_k of local row k, of the last factor().
    double diagonal(int k) const { return sDiagonal_[static_cast<std::size_t>(k)]; }
    double pivot(int k) const { return pivot_[static_cast<std::size_t>(k)]; }
    // Local rows in the order they were eliminated (pivots are meaningful in this order).
    const std::vector<int>& eliminationOrder() const { return order_; }

    // b ← S⁻¹ b (b over the local rows).
    void solveInPlace(Eigen::VectorXd& b) const;
    // y = Φr x (y over the local rows, x over the velocity coordinates).
    void multiply(const Eigen::VectorXd& x, Eigen::VectorXd& y) const;
    // x += scale · Φrᵀ y.
    void multiplyTransposedAdd(const Eigen::VectorXd& y, double scale, Eigen::VectorXd& x) const;

    // The same on vectors indexed by Φq's rows (as numbered in the Φq given to analyze()),
    // without copies to and from the local numbering, M⁻¹ the one factored:
    //   correct:  μ = S⁻¹ r,  x = −M⁻¹ Φrᵀ μ  (μ's rows outside the set untouched; may be null)
    //   solve:    λ = S⁻¹ (Φr y − c),  x = y − M⁻¹ Φrᵀ λ  (λ's rows outside the set untouched)
    void correct(const Eigen::VectorXd& r, Eigen::VectorXd& x, Eigen::VectorXd* mu) const;
    //   correctAdd: the same correction added, x −= M⁻¹ Φrᵀ μ, and μ added to muSum (may be
    //   null): an iteration that accumulates its corrections without copying them
    void correctAdd(const Eigen::VectorXd& r, Eigen::VectorXd& x, Eigen::VectorXd* muSum) const;
    void solve(const Eigen::VectorXd& y, const Eigen::VectorXd& c, Eigen::VectorXd& x,
               Eigen::VectorXd& lambda) const;

    // The number of blocks and of L blocks below the diagonal (fill included).
    int blocks() const { return blocks_; }
    int offDiagonalBlocks() const { return static_cast<int>(lowerRow_.size()); }

private:
    // S(target) += Φ_a M_b⁻¹ Φ_cᵀ, a and c sides (a block's rows on one body b); target ≥ 0 an
    // L block, else the diagonal block −1 − target.
    struct Contribution {
        int a, c, target;
        bool first;  // the first to its target: assigned, not added (no pass zeroing S first)
    };
    // W(target) −= L_a L_cᵀ, a and c L blocks of one column; target as above.
    struct Update {
        int a, c, target;
    };

    // The kernels, for blocks of W rows (W the largest block of the pattern: 5 for a chain of
    // revolutes, 3 for spherical joints; smaller blocks are padded to W).
    template <int W>
    void factorBlocks(const RowMatrix& Phi_q, const Eigen::VectorXd& Minv, double shift,
                      const Eigen::VectorXd* rowShift);
    template <int W>
    void solveBlocks() const;  // work_ ← S⁻¹ work_
    template <int W>
    void addTransposed(double scale,
                       Eigen::VectorXd& x) const;  // x.segment(body) += scale · Φ_sᵀ work_
    template <int W>
    void gatherProducts(const Eigen::VectorXd& y,
                        const Eigen::VectorXd* c) const;  // work_ = Φ y − c (c may be null)
    template <int W>
    void subtractScaledTransposed(Eigen::VectorXd& x) const;  // x.segment(body) −= M_b⁻¹ Φ_sᵀ work_
    void solveBlocks() const;
    void addTransposed(double scale, Eigen::VectorXd& x) const;
    void gatherRows(const Eigen::VectorXd& r) const;  // work_ = r over the rows (Φq's numbering)

    int n_ = 0;
    int blocks_ = 0;
    Eigen::Index velocities_ = 0;  // the length of M⁻¹ factored
    int width_ = 1;                // W
    // Blocks are numbered in elimination order. Per block j: its local rows (W each, −1 for
    // padding), the same as rows of Φq, and its sides sideBegin_[j] … sideBegin_[j + 1] − 1.
    std::vector<int> blockRows_;
    std::vector<int> blockPhiRows_;
    std::vector<int> sideBegin_;
    // Per side: its body, and per row (W each) where the row's 6 values on that body start in
    // Φq's value array (−1 for padding).
    std::vector<int> sideBody_;
    std::vector<int> sideStart_;
    std::vector<Contribution> contributions_;
    std::vector<int> untouched_;  // targets no contribution reaches (the fill): zeroed
    // Per block column j: its L blocks columnBegin_[j] … columnBegin_[j + 1] − 1 (block rows
    // ascending in lowerRow_) and its updates updateBegin_[j] … updateBegin_[j + 1] − 1.
    std::vector<int> columnBegin_, lowerRow_;
    std::vector<Update> updates_;
    std::vector<int> updateBegin_;
    std::vector<int> order_;

    // Fixed-size blocks kept in flat arrays (column-major), read through Eigen maps:
    std::vector<double> jacobian_;  // per side, 6 × W: Φ_ibᵀ (a row of Φ per column), zero padding
    std::vector<double> scaled_;       // per side, 6 × W: M_b⁻¹ Φ_ibᵀ
    std::vector<double> lower_;        // per L block, W × W: L̂_ijᵀ (stored transposed)
    std::vector<double> scaledLower_;  // per L block, while factoring: D_j⁻¹ L̃_j⁻¹ W_ijᵀ
    std::vector<double> diagonal_;     // per block, W × W: W_jj while factoring, then W_jj⁻¹
    std::vector<double> sDiagonal_, pivot_;
    mutable std::vector<double> work_;  // per block, W: a solve's vector
};

}  // namespace engine
