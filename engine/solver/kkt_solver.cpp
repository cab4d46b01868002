#include "engine/solver/kkt_solver.h"

#include <algorithm>

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
    buildSchurPattern(Phi_q);
    patternAnalyzed_ = false;
    factorize(Phi_q, Minv);
}

void KktSolver::buildSchurPattern(const RowMatrix& Phi_q) {
    // Φq stores, per row, whole 6-column blocks of the bodies it touches. Group the active
    // rows' blocks by body: every pair of rows sharing a body contributes to S.
    const int bodies = static_cast<int>(Phi_q.cols() / 6);
    std::vector<std::vector<std::pair<int, int>>> blocksOfBody(static_cast<std::size_t>(bodies));
    for (int k = 0; k < static_cast<int>(active_.size()); ++k) {
        const int r = active_[static_cast<std::size_t>(k)];
        for (int p = Phi_q.outerIndexPtr()[r]; p < Phi_q.outerIndexPtr()[r + 1]; p += 6)
            blocksOfBody[static_cast<std::size_t>(Phi_q.innerIndexPtr()[p] / 6)].emplace_back(k, p);
    }
    std::vector<Eigen::Triplet<double>> pattern;
    for (const auto& blocks : blocksOfBody)
        for (const auto& [k, pk] : blocks)
            for (const auto& [l, pl] : blocks)
                if (k >= l) pattern.emplace_back(k, l, 0.0);
    const int n = static_cast<int>(active_.size());
    S_.resize(n, n);
    S_.setFromTriplets(pattern.begin(), pattern.end());  // duplicates merge
    S_.makeCompressed();

    // Each contribution: S(k, l) += Σ_c Φq(k, c) M⁻¹(c) Φq(l, c) over one body's 6 columns.
    contributions_.clear();
    for (int b = 0; b < bodies; ++b)
        for (const auto& [k, pk] : blocksOfBody[static_cast<std::size_t>(b)])
            for (const auto& [l, pl] : blocksOfBody[static_cast<std::size_t>(b)]) {
                if (k < l) continue;
                const int* begin = S_.innerIndexPtr() + S_.outerIndexPtr()[l];
                const int* end = S_.innerIndexPtr() + S_.outerIndexPtr()[l + 1];
                const int slot = static_cast<int>(std::lower_bound(begin, end, k) - S_.innerIndexPtr());
                contributions_.push_back({slot, pk, pl, 6 * b});
            }
}

bool KktSolver::factorize(const RowMatrix& Phi_q, const Eigen::VectorXd& Minv) {
    Minv_ = Minv;
    Phi_q_ = Phi_q;
    singularRow_ = -1;
    if (active_.empty()) return true;

    double* S = S_.valuePtr();
    std::fill(S, S + S_.nonZeros(), 0.0);
    const double* J = Phi_q_.valuePtr();
    for (const Contribution& c : contributions_) {
        double sum = 0.0;
        for (int k = 0; k < 6; ++k) sum += J[c.rowK + k] * Minv_(c.column + k) * J[c.rowL + k];
        S[c.slot] += sum;
    }
    if (!patternAnalyzed_) {
        ldlt_.analyzePattern(S_);
        patternAnalyzed_ = true;
    }
    ldlt_.factorize(S_);
    const Eigen::VectorXd& D = ldlt_.vectorD();
    const double largest = D.cwiseAbs().maxCoeff();
    Eigen::Index worst = 0;
    const double smallest = D.minCoeff(&worst);
    if (ldlt_.info() != Eigen::Success || !(smallest > kSingularPivot * largest)) {
        // D is in the permuted order: map the weakest pivot back to a row of Φq.
        const Eigen::Index permuted = ldlt_.permutationPinv().indices()(worst);
        singularRow_ = active_[static_cast<std::size_t>(permuted)];
        return false;
    }
    return true;
}

// y_a = Φq_a x (active rows only).
Eigen::VectorXd KktSolver::multiplyActive(const Eigen::VectorXd& x) const {
    Eigen::VectorXd y(static_cast<Eigen::Index>(active_.size()));
    for (std::size_t k = 0; k < active_.size(); ++k) {
        double sum = 0.0;
        for (RowMatrix::InnerIterator it(Phi_q_, active_[k]); it; ++it) sum += it.value() * x(it.col());
        y(static_cast<Eigen::Index>(k)) = sum;
    }
    return y;
}

// x = Φq_aᵀ y_a.
Eigen::VectorXd KktSolver::multiplyActiveTransposed(const Eigen::VectorXd& y) const {
    Eigen::VectorXd x = Eigen::VectorXd::Zero(Phi_q_.cols());
    for (std::size_t k = 0; k < active_.size(); ++k)
        for (RowMatrix::InnerIterator it(Phi_q_, active_[k]); it; ++it)
            x(it.col()) += it.value() * y(static_cast<Eigen::Index>(k));
    return x;
}

void KktSolver::solve(const Eigen::VectorXd& g, const Eigen::VectorXd& c, Eigen::VectorXd& x,
                      Eigen::VectorXd& lambda) const {
    lambda.setZero(rows_);
    const Eigen::VectorXd Minv_g = Minv_.cwiseProduct(g);
    if (active_.empty()) {
        x = Minv_g;
        return;
    }
    Eigen::VectorXd rhs = multiplyActive(Minv_g);
    for (std::size_t k = 0; k < active_.size(); ++k) rhs(static_cast<Eigen::Index>(k)) -= c(active_[k]);
    const Eigen::VectorXd lambda_a = ldlt_.solve(rhs);
    for (std::size_t k = 0; k < active_.size(); ++k) lambda(active_[k]) = lambda_a(static_cast<Eigen::Index>(k));
    x = Minv_g - Minv_.cwiseProduct(multiplyActiveTransposed(lambda_a));
}

void KktSolver::project(const Eigen::VectorXd& r, Eigen::VectorXd& x, Eigen::VectorXd* mu) const {
    if (mu) mu->setZero(rows_);
    if (active_.empty()) {
        x.setZero(Minv_.size());
        return;
    }
    Eigen::VectorXd r_a(static_cast<Eigen::Index>(active_.size()));
    for (std::size_t k = 0; k < active_.size(); ++k) r_a(static_cast<Eigen::Index>(k)) = r(active_[k]);
    const Eigen::VectorXd mu_a = ldlt_.solve(r_a);
    x = -Minv_.cwiseProduct(multiplyActiveTransposed(mu_a));
    if (mu)
        for (std::size_t k = 0; k < active_.size(); ++k) (*mu)(active_[k]) = mu_a(static_cast<Eigen::Index>(k));
}

}  // namespace engine
