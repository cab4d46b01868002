#include "engine/solver/kkt_solver.h"

#include <Eigen/OrderingMethods>
#include <Eigen/SparseQR>

namespace engine {
namespace {

// Relative size below which a row of the rank-revealing QR counts as dependent. The rows are
// normalised first, so this is a tolerance on directions, independent of units.
constexpr double kRankTolerance = 1e-9;
// Pivot of S below this fraction of the largest: singular.
constexpr double kSingularPivot = 1e-13;

}  // namespace

void KktSolver::analyze(const RowMatrix& Phi_q, const Eigen::VectorXd& Minv) {
    rows_ = static_cast<int>(Phi_q.rows());
    Minv_ = Minv;
    active_.clear();
    redundant_.clear();
    if (rows_ > 0) {
        // Φqᵀ with unit columns, factored in natural column order: a column whose pivot
        // vanishes is a combination of earlier ones.
        Eigen::SparseMatrix<double> A = Phi_q.transpose();
        for (int k = 0; k < A.outerSize(); ++k) {
            const double n = A.col(k).norm();
            if (n > 0.0) A.col(k) /= n;
        }
        A.makeCompressed();
        Eigen::SparseQR<Eigen::SparseMatrix<double>, Eigen::NaturalOrdering<int>> qr;
        qr.setPivotThreshold(kRankTolerance);
        qr.compute(A);
        const auto& perm = qr.colsPermutation().indices();
        std::vector<char> kept(static_cast<std::size_t>(rows_), 0);
        for (Eigen::Index k = 0; k < qr.rank(); ++k) kept[static_cast<std::size_t>(perm(k))] = 1;
        for (int r = 0; r < rows_; ++r) (kept[static_cast<std::size_t>(r)] ? active_ : redundant_).push_back(r);
    }
    patternAnalyzed_ = false;
    factorize(Phi_q, Minv);
}

void KktSolver::selectActive(const RowMatrix& Phi_q) {
    if (redundant_.empty()) {
        Phi_a_ = Phi_q;
        return;
    }
    Phi_a_.resize(static_cast<Eigen::Index>(active_.size()), Phi_q.cols());
    std::vector<Eigen::Triplet<double>> triplets;
    for (std::size_t k = 0; k < active_.size(); ++k)
        for (RowMatrix::InnerIterator it(Phi_q, active_[k]); it; ++it)
            triplets.emplace_back(static_cast<int>(k), static_cast<int>(it.col()), it.value());
    Phi_a_.setFromTriplets(triplets.begin(), triplets.end());
}

bool KktSolver::factorize(const RowMatrix& Phi_q, const Eigen::VectorXd& Minv) {
    Minv_ = Minv;
    singularRow_ = -1;
    selectActive(Phi_q);
    if (Phi_a_.rows() == 0) return true;
    const Eigen::SparseMatrix<double> S = Phi_a_ * Minv_.asDiagonal() * Phi_a_.transpose();
    if (!patternAnalyzed_) {
        ldlt_.analyzePattern(S);
        patternAnalyzed_ = true;
    }
    ldlt_.factorize(S);
    const Eigen::VectorXd& D = ldlt_.vectorD();
    const double largest = D.cwiseAbs().maxCoeff();
    Eigen::Index worst = 0;
    const double smallest = D.minCoeff(&worst);
    if (ldlt_.info() != Eigen::Success || !(smallest > kSingularPivot * largest)) {
        // D is in the permuted order: map the weakest pivot back to a row of Φq.
        const Eigen::Index permuted = ldlt_.permutationPinv().indices()(worst);
        singularRow_ = active_.empty() ? static_cast<int>(permuted) : active_[static_cast<std::size_t>(permuted)];
        return false;
    }
    return true;
}

void KktSolver::solve(const Eigen::VectorXd& g, const Eigen::VectorXd& c, Eigen::VectorXd& x,
                      Eigen::VectorXd& lambda) const {
    lambda.setZero(rows_);
    if (Phi_a_.rows() == 0) {
        x = Minv_.cwiseProduct(g);
        return;
    }
    Eigen::VectorXd c_a(Phi_a_.rows());
    for (Eigen::Index k = 0; k < c_a.size(); ++k) c_a(k) = c(active_[static_cast<std::size_t>(k)]);
    const Eigen::VectorXd Minv_g = Minv_.cwiseProduct(g);
    const Eigen::VectorXd lambda_a = ldlt_.solve(Phi_a_ * Minv_g - c_a);
    for (Eigen::Index k = 0; k < lambda_a.size(); ++k) lambda(active_[static_cast<std::size_t>(k)]) = lambda_a(k);
    x = Minv_g - Minv_.cwiseProduct(Phi_a_.transpose() * lambda_a);
}

void KktSolver::project(const Eigen::VectorXd& r, Eigen::VectorXd& x, Eigen::VectorXd* mu) const {
    if (mu) mu->setZero(rows_);
    if (Phi_a_.rows() == 0) {
        x.setZero(Minv_.size());
        return;
    }
    Eigen::VectorXd r_a(Phi_a_.rows());
    for (Eigen::Index k = 0; k < r_a.size(); ++k) r_a(k) = r(active_[static_cast<std::size_t>(k)]);
    const Eigen::VectorXd mu_a = ldlt_.solve(r_a);
    x = -Minv_.cwiseProduct(Phi_a_.transpose() * mu_a);
    if (mu)
        for (Eigen::Index k = 0; k < mu_a.size(); ++k) (*mu)(active_[static_cast<std::size_t>(k)]) = mu_a(k);
}

}  // namespace engine
