#include "engine/dynamics/loop_closure.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>

namespace engine {

namespace {

// W, S and Y of LoopClosure::factor for m rows (R = m where it is small: the compiler unrolls
// the loops over the rows; R = 0 any m), from the lower triangle L of M_FF = L Lᵀ (nf × nf)
// and J_F (m × nf), all column-major: W = L⁻¹ J_Fᵀ, S = Wᵀ W (its upper triangle; S zero on
// entry), Y = L⁻ᵀ W (invL: the reciprocals of L's diagonal), a free coordinate at a time over all rows (Wᵀ and Yᵀ: each coordinate's
// m entries in a row).
template <int R>
void closureRows(const double* L, const double* invL, int nf, int rows, const double* JF,
                 double* Wt, double* S, double* Yt) {
    const int m = R > 0 ? R : rows;
    for (int a = 0; a < nf; ++a) {
        double* w = Wt + static_cast<std::ptrdiff_t>(a) * m;
        const double* jf = JF + static_cast<std::ptrdiff_t>(a) * m;
        for (int r = 0; r < m; ++r) w[r] = jf[r];
        for (int c = 0; c < a; ++c) {
            const double l = L[a + c * nf];
            const double* wc = Wt + static_cast<std::ptrdiff_t>(c) * m;
            for (int r = 0; r < m; ++r) w[r] -= l * wc[r];
        }
        const double d = invL[a];
        for (int r = 0; r < m; ++r) w[r] *= d;
    }
    for (int a = 0; a < nf; ++a) {
        const double* w = Wt + static_cast<std::ptrdiff_t>(a) * m;
        for (int i = 0; i < m; ++i) {
            const double x = w[i];
            double* column = S + static_cast<std::ptrdiff_t>(i) * m;
            for (int k = 0; k <= i; ++k) column[k] += w[k] * x;
        }
    }
    for (int a = nf; a-- > 0;) {
        double* y = Yt + static_cast<std::ptrdiff_t>(a) * m;
        const double* w = Wt + static_cast<std::ptrdiff_t>(a) * m;
        for (int r = 0; r < m; ++r) y[r] = w[r];
        for (int c = a + 1; c < nf; ++c) {
            const double l = L[c + a * nf];
            const double* yc = Yt + static_cast<std::ptrdiff_t>(c) * m;
            for (int r = 0; r < m; ++r) y[r] -= l * yc[r];
        }
        const double d = invL[a];
        for (int r = 0; r < m; ++r) y[r] *= d;
    }
}

using RowsKernel = void (*)(const double*, const double*, int, int, const double*, double*, double*,
                            double*);

// The kernel for m rows: unrolled up to 12 (two cut joints of six rows), general beyond.
RowsKernel rowsKernel(int m) {
    static constexpr RowsKernel kUnrolled[] = {
        closureRows<0>,  closureRows<1>,  closureRows<2>, closureRows<3>, closureRows<4>,
        closureRows<5>,  closureRows<6>,  closureRows<7>, closureRows<8>, closureRows<9>,
        closureRows<10>, closureRows<11>, closureRows<12>};
    return m < static_cast<int>(std::size(kUnrolled)) ? kUnrolled[m] : closureRows<0>;
}

}  // namespace

void multiply(const Eigen::MatrixXd& A, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
    const Eigen::Index rows = A.rows(), cols = A.cols();
    y.setZero(rows);
    const double* a = A.data();
    for (Eigen::Index c = 0; c < cols; ++c) {
        const double xc = x(c);
        if (xc == 0.0) continue;
        for (Eigen::Index r = 0; r < rows; ++r) y(r) += a[r + c * rows] * xc;
    }
}

bool LoopClosure::factor(const Eigen::MatrixXd& M, const Eigen::MatrixXd& J,
                         const std::vector<int>& free, std::vector<double>* best) {
    const int nf = static_cast<int>(free.size()), m = static_cast<int>(J.rows());
    L_M_.resize(nf, nf);
    // (All coordinates free, as where no motion drives one: J_F is J.)
    bool all = nf == J.cols();
    for (int a = 0; a < nf && all; ++a) all = free[static_cast<std::size_t>(a)] == a;
    if (all)
        JF_ = J;
    else
        JF_.resize(m, nf);
    for (int a = 0; a < nf; ++a) {
        const int fa = free[static_cast<std::size_t>(a)];
        const double* row = M.data() + fa;
        for (int b = 0; b <= a; ++b)
            L_M_(a, b) =
                row[static_cast<Eigen::Index>(free[static_cast<std::size_t>(b)]) * M.rows()];
        if (!all) JF_.col(a) = J.col(fa);
    }
    // M_FF = L Lᵀ (lower triangle of L_M_; the reciprocals of its diagonal in invM_: the
    // solves multiply by them, a division costing many multiplications' time).
    invM_.resize(static_cast<std::size_t>(nf));
    for (int a = 0; a < nf; ++a) {
        for (int b = 0; b < a; ++b) {
            double v = L_M_(a, b);
            for (int c = 0; c < b; ++c) v -= L_M_(a, c) * L_M_(b, c);
            L_M_(a, b) = v * invM_[static_cast<std::size_t>(b)];
        }
        double d = L_M_(a, a);
        for (int c = 0; c < a; ++c) d -= L_M_(a, c) * L_M_(a, c);
        if (!(d > 0.0)) return false;
        L_M_(a, a) = std::sqrt(d);
        invM_[static_cast<std::size_t>(a)] = 1.0 / L_M_(a, a);
    }
    // W = L⁻¹ J_Fᵀ, S = J_F M_FF⁻¹ J_Fᵀ = Wᵀ W, Y = M_FF⁻¹ J_Fᵀ = L⁻ᵀ W, a free coordinate
    // at a time over all rows (Wᵀ and Yᵀ column-major: each coordinate's m entries in a row;
    // S's upper triangle, all the row-order Cholesky reads).
    Wt_.resize(m, nf);
    S_.setZero(m, m);
    Yt_.resize(m, nf);
    rowsKernel(m)(L_M_.data(), invM_.data(), nf, m, JF_.data(), Wt_.data(), S_.data(), Yt_.data());
    yMade_ = false;
    // Row-order Cholesky with dropping.
    kept_.clear();
    invS_.clear();
    weakest_ = 1.0;
    nearSingular_ = false;
    L_.resize(m, m);
    const double largest = m > 0 ? S_.diagonal().maxCoeff() : 0.0;
    for (int i = 0; i < m; ++i) {
        const int a = static_cast<int>(kept_.size());
        for (int c = 0; c < a; ++c) {
            double v = S_(kept_[static_cast<std::size_t>(c)], i);
            for (int e = 0; e < c; ++e) v -= L_(c, e) * L_(a, e);
            L_(a, c) = v * invS_[static_cast<std::size_t>(c)];
        }
        double d = S_(i, i);
        for (int c = 0; c < a; ++c) d -= L_(a, c) * L_(a, c);
        if (!(S_(i, i) > 1e-20 * largest) || !(d > kSingularPivot * S_(i, i))) continue;
        double reference = S_(i, i);
        if (best) {
            if (best->size() != static_cast<std::size_t>(m))
                best->assign(static_cast<std::size_t>(m), 0.0);
            double& most = (*best)[static_cast<std::size_t>(i)];
            most = std::max(most, d);
            if (d < kDroppedPivot * most) {
                nearSingular_ = true;
                continue;
            }
            reference = most;
        }
        L_(a, a) = std::sqrt(d);
        invS_.push_back(1.0 / L_(a, a));
        kept_.push_back(i);
        weakest_ = std::min(weakest_, d / reference);
    }
    return true;
}

void LoopClosure::solveMass(Eigen::VectorXd& x) const {
    const Eigen::Index nf = L_M_.rows();
    for (Eigen::Index a = 0; a < nf; ++a) {
        double v = x(a);
        for (Eigen::Index c = 0; c < a; ++c) v -= L_M_(a, c) * x(c);
        x(a) = v * invM_[static_cast<std::size_t>(a)];
    }
    for (Eigen::Index a = nf; a-- > 0;) {
        double v = x(a);
        for (Eigen::Index c = a + 1; c < nf; ++c) v -= L_M_(c, a) * x(c);
        x(a) = v * invM_[static_cast<std::size_t>(a)];
    }
}

void LoopClosure::multipliers(const Eigen::VectorXd& r, Eigen::VectorXd& lambda) {
    const int a = static_cast<int>(kept_.size());
    x_.resize(a);
    for (int i = 0; i < a; ++i) {
        double v = r(kept_[static_cast<std::size_t>(i)]);
        for (int c = 0; c < i; ++c) v -= L_(i, c) * x_(c);
        x_(i) = v * invS_[static_cast<std::size_t>(i)];
    }
    for (int i = a; i-- > 0;) {
        double v = x_(i);
        for (int c = i + 1; c < a; ++c) v -= L_(c, i) * x_(c);
        x_(i) = v * invS_[static_cast<std::size_t>(i)];
    }
    lambda.setZero(r.size());
    for (int i = 0; i < a; ++i) lambda(kept_[static_cast<std::size_t>(i)]) = x_(i);
}

void LoopClosure::correction(const Eigen::VectorXd& r, Eigen::VectorXd& dx) {
    multipliers(r, lambda_);
    applyY(lambda_, dx);
    dx = -dx;
}

const Eigen::MatrixXd& LoopClosure::Y() const {
    if (!yMade_) {
        Y_ = Yt_.transpose();
        yMade_ = true;
    }
    return Y_;
}

void LoopClosure::applyY(const Eigen::VectorXd& x, Eigen::VectorXd& y) const {
    const Eigen::Index m = Yt_.rows(), nf = Yt_.cols();
    y.resize(nf);
    for (Eigen::Index a = 0; a < nf; ++a) {
        const double* column = Yt_.data() + a * m;
        double sum = 0.0;
        for (Eigen::Index r = 0; r < m; ++r)
            if (const double xr = x(r); xr != 0.0) sum += column[r] * xr;
        y(a) = sum;
    }
}

}  // namespace engine
