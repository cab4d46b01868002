#pragma once
// Solves saddle-point (KKT) systems with a diagonal mass matrix:
//
//     [ M   Φqᵀ ] [ x ]   [ g ]          M = diag(m, m, m, J'1, J'2, J'3) per body (principal
//     [ Φq   0  ] [ λ ] = [ c ]          axes), so M⁻¹ is a vector
//
// through the Schur complement S = Φq M⁻¹ Φqᵀ:  S λ = Φq M⁻¹ g − c,  x = M⁻¹ (g − Φqᵀ λ).
// S is sparse with the pattern of the joint graph. Φq must store whole 6-column blocks per
// body and row (constraints/ does), so S is filled from per-body block products and factored
// by blocks of rows (a joint's rows), leaves towards the root, in time linear in the number
// of bodies for chains and trees, with fill only around closed loops (block_ldlt.h).
//
// Redundant rows (Φq rank-deficient, e.g. a planar loop built from spatial joints) are found
// by a rank-revealing sparse QR of Φqᵀ taken in row order, so the earliest rows are kept and
// the later dependent ones dropped. Rows depend on each other only around closed loops: the
// analysis splits at the bridges of the body graph (joints on no loop) and runs one small QR
// per bridge and per group of loops, in time linear in the size of a chain or tree; dropped
// rows get λ = 0 and their share of the load is carried by the rows kept.
//
// The rank is not fixed at the start: a mechanism passing a singular position (a parallelogram
// lying flat, a dead centre) loses rows there and gets them back after. Every factorisation
// whose pivot comes out small analyses the rows again at that Φq and drops the weakest until
// S is well conditioned; every solve checks that the rows dropped are met by the solution (a
// dependent row of a consistent system is, to round-off) and takes back rows that no longer
// are (the mechanism has left the singular position). A dropped row still unmet after that is
// an inconsistent system — the mechanism cannot follow its motions: a lock-up — reported by
// unmetRow(). See docs/engine.md ("Rank"). Knows matrices, not joints.

#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include "engine/solver/block_ldlt.h"

namespace engine {

class KktSolver {
public:
    using RowMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor>;

    // Compliant rows (soft constraints): a row r with e_r > 0 is met as Φq_r x − e_r μ_r =
    // target instead of Φq_r x = target, i.e. S + diag(e) (seed 003 §0.11: a spring of
    // stiffness k and damping c stepped implicitly over h has e = 1 / (h (h k + c))). Compliant
    // rows are always kept: never dropped as redundant, no pivot test. Set before analyze();
    // the values may change before each factorize(), the set of compliant rows may not. Empty:
    // every row exact.
    void setCompliance(const Eigen::VectorXd& e) { compliance_ = e; }

    // The relative pivot below which a row is dropped as dependent (default 1e-10, see
    // kkt_solver.cpp). Lower only to see what the rows kept would carry next to a singular
    // position (the diagnosis of a mechanism held at one); set before analyze().
    void setSingularPivot(double pivot) { singularPivot_ = pivot; }
    static constexpr double kDefaultSingularPivot = 1e-10;

    // Rank analysis of Φq and factorisation; call when the model (the pattern of Φq) changes.
    void analyze(const RowMatrix& Phi_q, const Eigen::VectorXd& Minv);

    // Numeric factorisation for Φq (same pattern as analyzed). A small pivot re-establishes
    // the independent rows at this Φq (see above). Returns false only for a Φq that is not
    // finite; singularRow() then names its row.
    bool factorize(const RowMatrix& Phi_q, const Eigen::VectorXd& Minv);

    // Solves with the last factorisation. `c` and `lambda` have one entry per row of Φq
    // (redundant rows: c ignored, λ = 0). May take back dropped rows (see above).
    void solve(const Eigen::VectorXd& g, const Eigen::VectorXd& c, Eigen::VectorXd& x,
               Eigen::VectorXd& lambda);

    // One step of iterative refinement of a solve's x and λ on the whole saddle-point system:
    // its residual (g − M x − Φqᵀ λ, c − Φq x) solved for again with the same factorisation.
    // The Schur complement loses digits where M⁻¹ spans many decades (a point mass of inertia
    // 1e-9 on a pendulum: λ to 4e-8 of itself), the residual of the whole system does not;
    // what reactions are reported from (the steps keep the plain solve). Nothing where a body
    // has no mass or inertia along an axis.
    void refine(const Eigen::VectorXd& g, const Eigen::VectorXd& c, Eigen::VectorXd& x,
                Eigen::VectorXd& lambda) const;

    // Minimum-norm correction in the mass metric: x = −M⁻¹ Φqᵀ μ with μ = S⁻¹ r (projection
    // steps, impulses), so that Φq x = −r; μ (one entry per row, 0 for redundant rows) is
    // returned on request. For a linear system (velocities, impulses) a positive `termScale`
    // — the size of the terms of the equations corrected, e.g. max |Φq| |v| + |ν| — takes back
    // dropped rows the correction misses by more than round-off of that size (see above); a
    // Newton step on positions, where dependent rows are missed to second order, passes 0.
    void project(const Eigen::VectorXd& r, Eigen::VectorXd& x, Eigen::VectorXd* mu = nullptr,
                 double termScale = 0.0);
    // The same correction added to x (x += −M⁻¹ Φqᵀ μ), and μ to muSum (may be null): the
    // iterations of a step's impulses, which accumulate their corrections (termScale 0).
    void projectAdd(const Eigen::VectorXd& r, Eigen::VectorXd& x, Eigen::VectorXd* muSum);

    int rows() const { return rows_; }
    // The Φq of the last factorisation.
    const RowMatrix& jacobian() const { return Phi_q_; }
    int rank() const { return static_cast<int>(active_.size()); }
    // The most rows kept since the analysis (rows − bestRank: the structural redundancy).
    int bestRank() const { return bestRank_; }
    const std::vector<int>& redundantRows() const { return redundant_; }
    const std::vector<int>& activeRows() const { return active_; }
    // The row of a non-finite Φq, or the last row dropped for a small pivot.
    int singularRow() const { return singularRow_; }
    // After solve() or project(): a dropped row the solution misses by more than round-off
    // (relative to the terms of its equation), else −1, and by how much (relative).
    int unmetRow() const { return unmetRow_; }
    double unmetResidual() const { return unmetResidual_; }
    // How many times the rows were analysed again (a singular position entered or left).
    long reanalyses() const { return reanalyses_; }
    // The smallest pivot of the last factorisation relative to its row's diagonal: the squared
    // sine of the angle by which the rows kept are independent (1 for orthogonal rows).
    double weakestPivot() const { return weakestPivot_; }
    // The same over the rows on closed loops only (1 where there are none): the rows that can
    // come to depend on each other at a singular position.
    double weakestLoopPivot() const { return weakestLoopPivot_; }
    // Next to a singular position: rows dropped beyond those of the start (or of the best
    // rank seen since), or a pivot of a row on a closed loop below 1e-2 of the best it has
    // had in the factorisations so far (rows within ~6° of depending on each other).
    // (What the integrators take their stages on the manifold for: cautious.)
    bool nearSingular() const { return nearSingular_ || rank() < bestRank_; }
    // What the user is told of (a run's singular passages): nearSingular confirmed in the
    // geometric metric (setGeometricMetric): rows dropped beyond the best rank, or the loop's
    // rows kept whose pivots dropped also within ~6° of depending on each other there, where
    // the geometry alone counts. In the mass metric, parts of very different masses and
    // inertias (thin plates from CAD) move a loop's pivots by two orders of magnitude in
    // ordinary motion, far from any singular position.
    bool singularPositionNear() const;
    // The geometric metric, per velocity coordinate: 1 for a translation, 1/L² for a rotation,
    // L the mechanism's size. Empty (the default): singularPositionNear() is nearSingular().
    void setGeometricMetric(Eigen::VectorXd W) { geometric_ = std::move(W); }

    // Regularised minimum-norm correction over every row, dropped ones included:
    // x = −M⁻¹ Φqᵀ (S + ε I)⁻¹ r with S over all rows and ε = 1e-10 of its largest diagonal.
    // Directions the rows hold firmly are corrected in full, directions they barely hold
    // (near a singular position) in part, directions they do not hold (redundancy) not at
    // all; repeated, it converges where the rows kept alone cannot close a row dropped as
    // only nearly dependent. Factors S over all rows once per Φq.
    void projectRegularized(const Eigen::VectorXd& r, Eigen::VectorXd& x);

    // The rank handling's memory, which the decisions above depend on besides Φq: the rows
    // dropped, the best pivot each row on a closed loop has had and the best rank seen. Written
    // with every recorded frame (State::solverMemory), so that a run resumed from the frame
    // decides singular positions as the run that recorded it did. Layout (memorySize doubles):
    // the best rank (−1: no memory), the rows dropped as a bit set of 52 rows a double, and
    // with `pivots` (a mechanism with closed loops) the best pivot of every row.
    static int memorySize(int rows, bool pivots);
    void saveMemory(double* out, bool pivots) const;
    // Takes a memory back (the same rows as analysed; read from a file: anything out of range
    // is ignored, and the next factorisation checks the rows as always). Φq is factored again
    // before the next solve.
    void restoreMemory(const double* in, bool pivots);

private:
    void chooseIndependentRows(const RowMatrix& Phi_q);
    void rememberGroups(const std::vector<std::vector<int>>& groups);
    void settleRows(const RowMatrix& Phi_q);
    bool factorNumeric();
    void reanalyze();
    int worstDroppedRow(const Eigen::VectorXd& x, const Eigen::VectorXd& target, double sign,
                        double& relative, double termScale = 0.0) const;
    void solveActive(const Eigen::VectorXd& Minv_g, const Eigen::VectorXd& c, Eigen::VectorXd& x,
                     Eigen::VectorXd& lambda) const;
    void projectActive(const Eigen::VectorXd& r, Eigen::VectorXd& x, Eigen::VectorXd* mu) const;

    bool compliant(int row) const { return compliance_.size() > 0 && compliance_(row) > 0.0; }

    int rows_ = 0;
    Eigen::VectorXd compliance_;  // per row (empty: none)
    std::vector<int> active_;     // rows kept, ascending
    std::vector<int> redundant_;  // rows dropped, ascending
    RowMatrix Phi_q_;             // the Φq of the last factorisation
    Eigen::VectorXd Minv_;
    BlockLdlt schur_;  // S over the active rows
    BlockLdlt full_;   // S over every row (regularised projection), built on demand
    bool fullPatternBuilt_ = false;
    bool fullFactoredHere_ = false;
    bool reanalyzedHere_ = false;  // the rows were analysed again at this Φq
    int singularRow_ = -1;
    int unmetRow_ = -1;
    double unmetResidual_ = 0.0;
    long reanalyses_ = 0;
    double weakestPivot_ = 1.0;
    double weakestLoopPivot_ = 1.0;
    double singularPivot_ = kDefaultSingularPivot;
    bool nearSingular_ = false;
    std::vector<double> bestPivot_;  // per row of Φq: the largest relative pivot it has had
    std::vector<char> onLoop_;       // per row of Φq: joins bodies on a closed loop
    std::vector<int> rowGroup_;      // per row of Φq: its group of independentRowGroups
    Eigen::VectorXd geometric_;      // setGeometricMetric
    std::vector<int> suspects_;      // loop rows of the last factorisation far below their best
    // Whether the active rows of the groups holding `rows` are within ~6° of depending on each
    // other in the geometric metric (relative pivots, in the elimination order, below 1e-2).
    bool geometricallyWeak(const std::vector<int>& rows) const;
    int bestRank_ = 0;
};

// The size of the terms of A x = b, max over rows of Σ|A_rj x_j| + |b_r|: the `termScale` a
// correction's equations are met to round-off of.
double equationScale(const KktSolver::RowMatrix& A, const Eigen::VectorXd& x,
                     const Eigen::VectorXd& b);

}  // namespace engine
