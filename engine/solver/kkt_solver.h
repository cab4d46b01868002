#pragma once
// Solves saddle-point (KKT) systems with a diagonal mass matrix:
//
//     [ M   Φqᵀ ] [ x ]   [ g ]          M = diag(m, m, m, J'1, J'2, J'3) per body (principal
//     [ Φq   0  ] [ λ ] = [ c ]          axes), so M⁻¹ is a vector
//
// through the Schur complement S = Φq M⁻¹ Φqᵀ:  S λ = Φq M⁻¹ g − c,  x = M⁻¹ (g − Φqᵀ λ).
// S is sparse with the pattern of the joint graph. Φq must store whole 6-column blocks per
// body and row (constraints/ does), so S is filled in place from per-body block products
// whose positions are worked out once; a sparse LDLᵀ with an approximate minimum degree
// ordering (symbolic analysis once) factors it in time linear in the number of bodies for
// chains and trees.
//
// Redundant rows (Φq rank-deficient, e.g. a planar loop built from spatial joints) are found
// once by a rank-revealing sparse QR of Φqᵀ taken in row order, so the earliest rows are kept
// and the later dependent ones dropped. Rows depend on each other only around closed loops:
// the analysis splits at the bridges of the body graph (joints on no loop) and runs one small
// QR per bridge and per group of loops, in time linear in the size of a chain or tree; dropped rows get λ = 0 and their share of the load is
// carried by the rows kept (see docs/engine.md). Knows matrices, not joints.

#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

namespace engine {

class KktSolver {
public:
    using RowMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor>;

    // Rank analysis of Φq and symbolic factorisation; call when the model (the pattern of Φq)
    // changes or the configuration moved far (rank can change at singular positions).
    void analyze(const RowMatrix& Phi_q, const Eigen::VectorXd& Minv);

    // Numeric factorisation for the current Φq (same pattern as analyzed). Returns false when
    // S is singular; singularRow() then names the row found dependent.
    bool factorize(const RowMatrix& Phi_q, const Eigen::VectorXd& Minv);

    // Solves with the last factorisation. `c` and `lambda` have one entry per row of Φq
    // (redundant rows: c ignored, λ = 0).
    void solve(const Eigen::VectorXd& g, const Eigen::VectorXd& c, Eigen::VectorXd& x,
               Eigen::VectorXd& lambda) const;

    // Minimum-norm correction in the mass metric: x = −M⁻¹ Φqᵀ μ with μ = S⁻¹ r (projection
    // steps, impulses); μ (one entry per row, 0 for redundant rows) is returned on request.
    void project(const Eigen::VectorXd& r, Eigen::VectorXd& x, Eigen::VectorXd* mu = nullptr) const;

    int rows() const { return rows_; }
    int rank() const { return static_cast<int>(active_.size()); }
    const std::vector<int>& redundantRows() const { return redundant_; }
    const std::vector<int>& activeRows() const { return active_; }
    int singularRow() const { return singularRow_; }

private:
    void buildSchurPattern(const RowMatrix& Phi_q);
    Eigen::VectorXd multiplyActive(const Eigen::VectorXd& x) const;
    Eigen::VectorXd multiplyActiveTransposed(const Eigen::VectorXd& y) const;

    // S(k, l) += Σ_c Φq(k, c) M⁻¹(c) Φq(l, c) over the 6 columns of one body.
    struct Contribution {
        int slot;    // index into S's values
        int rowK;    // start of row k's block in Φq's values
        int rowL;    // start of row l's block
        int column;  // first column of the body
    };

    int rows_ = 0;
    std::vector<int> active_;     // rows kept, ascending
    std::vector<int> redundant_;  // rows dropped, ascending
    RowMatrix Phi_q_;             // the Φq of the last factorisation
    Eigen::SparseMatrix<double> S_;  // lower triangle of S over the active rows
    std::vector<Contribution> contributions_;
    Eigen::VectorXd Minv_;
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt_;
    bool patternAnalyzed_ = false;
    int singularRow_ = -1;
};

}  // namespace engine
