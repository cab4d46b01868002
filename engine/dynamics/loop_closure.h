#pragma once
// The closure equations of a mechanism's loops in joint coordinates (joint_space.cpp): the
// saddle-point system of the free coordinates' mass matrix and the cut joints' rows, factored
// with the rank handling of the maximal solver. Small dense matrices (a loop has a few free
// coordinates and a few rows): loop_closure.cpp is compiled without the auto-vectoriser, whose
// set-up for loops of a few entries costs more than their arithmetic.

#include <vector>

#include <Eigen/Core>

namespace engine {

// y = A x for the small dense matrices of the loops (a plain loop: Eigen's general product
// costs more than the arithmetic at these sizes); the columns where x is 0 are skipped.
void multiply(const Eigen::MatrixXd& A, const Eigen::VectorXd& x, Eigen::VectorXd& y);

// The closure's saddle-point system over the free coordinates F: with M_FF = L Lᵀ and
// Y = M_FF⁻¹ J_Fᵀ, S = J_F Y, factored in row order with the rows that depend on earlier ones
// dropped (their λ = 0: the load goes to the rows kept), as the maximal solver drops them
// (kkt_solver.h): a row whose pivot is below 1e-10 of its diagonal, or a row of zeros.
class LoopClosure {
public:
    // Factors M_FF and S for J (all links' columns). False when M_FF is not positive definite.
    // (Small dense matrices, factored in place without allocating once sized.)
    // With `best` (per row, the largest pivot it has had in a run: the rank handling's memory),
    // a row whose pivot falls below kDroppedPivot of its best is dropped too, as next to a
    // singular position, where it is about to depend on the others; weakestPivot() is then
    // relative to the best.
    bool factor(const Eigen::MatrixXd& M, const Eigen::MatrixXd& J, const std::vector<int>& free,
                std::vector<double>* best = nullptr);
    // x ← M_FF⁻¹ x.
    void solveMass(Eigen::VectorXd& x) const;
    // λ (all rows; 0 for those dropped) with S_kk λ_k = r_k.
    void multipliers(const Eigen::VectorXd& r, Eigen::VectorXd& lambda);
    // The free coordinates' least change in the mass metric, −Y S⁻¹ r, that takes J_F x by −r.
    void correction(const Eigen::VectorXd& r, Eigen::VectorXd& dx);
    // The multipliers of the last correction.
    const Eigen::VectorXd& correctionMultipliers() const { return lambda_; }
    const Eigen::MatrixXd& JF() const { return JF_; }
    const Eigen::MatrixXd& Y() const;  // (made when first asked for after a factorisation)
    // y = Y x (as multiply(Y(), x, y), without making Y).
    void applyY(const Eigen::VectorXd& x, Eigen::VectorXd& y) const;
    int rank() const { return static_cast<int>(kept_.size()); }
    // The smallest pivot of a row kept relative to its diagonal (1 for none).
    double weakestPivot() const { return weakest_; }
    // Whether a row was dropped as next to a singular position (by its best pivot).
    bool droppedNearSingular() const { return nearSingular_; }

    static constexpr double kSingularPivot = 1e-10;
    static constexpr double kDroppedPivot = 1e-6;

private:
    Eigen::MatrixXd L_M_, JF_, S_, L_, Wt_, Yt_;
    mutable Eigen::MatrixXd Y_;
    mutable bool yMade_ = false;
    Eigen::VectorXd x_, lambda_;
    std::vector<int> kept_;
    std::vector<double> invM_, invS_;  // the reciprocals of L_M_'s and L_'s diagonals
    double weakest_ = 1.0;
    bool nearSingular_ = false;
};

}  // namespace engine
