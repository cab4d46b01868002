#include "engine/math/table_curve.h"

#include <algorithm>
#include <cmath>

#include "engine/math/number_text.h"

namespace engine {

std::string_view tableInterpolationName(TableInterpolation interpolation) {
    switch (interpolation) {
    case TableInterpolation::Linear:
        return "linear";
    case TableInterpolation::Cubic:
        return "cubic";
    case TableInterpolation::Akima:
        return "akima";
    }
    return "linear";
}

std::optional<TableInterpolation> tableInterpolationFromName(std::string_view name) {
    for (TableInterpolation t :
         {TableInterpolation::Linear, TableInterpolation::Cubic, TableInterpolation::Akima})
        if (name == tableInterpolationName(t)) return t;
    return std::nullopt;
}

std::optional<TableCurve> TableCurve::make(TableInterpolation interpolation, std::vector<double> x,
                                           std::vector<double> y, std::string& error, int* where) {
    if (where) *where = -1;
    auto refuse = [&](std::string reason, int at) -> std::optional<TableCurve> {
        error = std::move(reason);
        if (where) *where = at;
        return std::nullopt;
    };
    if (x.size() != y.size())
        return refuse("x has " + std::to_string(x.size()) + " values and y " +
                          std::to_string(y.size()) + ": one y for each x",
                      -1);
    if (x.size() < 2)
        return refuse("a table needs at least 2 points, it has " + std::to_string(x.size()), -1);
    const int n = static_cast<int>(x.size());
    for (int k = 0; k < n; ++k) {
        const auto i = static_cast<std::size_t>(k);
        if (!std::isfinite(x[i])) return refuse("x is not a finite number", k);
        if (!std::isfinite(y[i])) return refuse("y is not a finite number", k);
        if (k > 0 && !(x[i] > x[i - 1]))
            return refuse("x does not increase: " + numberText(x[i]) + " after " +
                              numberText(x[i - 1]) + " (each x above the one before)",
                          k);
    }
    TableCurve t;
    t.interpolation_ = interpolation;
    t.x_ = std::move(x);
    t.y_ = std::move(y);
    const std::vector<double>& X = t.x_;
    const std::vector<double>& Y = t.y_;
    const int segments = n - 1;
    std::vector<double> h(static_cast<std::size_t>(segments)), m(h.size());  // widths, chords
    for (std::size_t k = 0; k < h.size(); ++k) {
        h[k] = X[k + 1] - X[k];
        m[k] = (Y[k + 1] - Y[k]) / h[k];
    }
    t.b_.assign(h.size(), 0.0);
    t.c_.assign(h.size(), 0.0);
    t.d_.assign(h.size(), 0.0);
    // Cubic Hermite segments from the slopes at the points.
    auto hermite = [&](const std::vector<double>& slope) {
        for (std::size_t k = 0; k < h.size(); ++k) {
            t.b_[k] = slope[k];
            t.c_[k] = (3.0 * m[k] - 2.0 * slope[k] - slope[k + 1]) / h[k];
            t.d_[k] = (slope[k] + slope[k + 1] - 2.0 * m[k]) / (h[k] * h[k]);
        }
    };
    if (interpolation == TableInterpolation::Linear || n == 2) {
        t.b_ = m;
    } else if (interpolation == TableInterpolation::Cubic) {
        // Second derivatives M at the points, M₀ = M_{n−1} = 0 (natural):
        // h_{k−1} M_{k−1} + 2 (h_{k−1} + h_k) M_k + h_k M_{k+1} = 6 (m_k − m_{k−1}),
        // tridiagonal, solved by elimination (the Thomas algorithm; diagonally dominant).
        std::vector<double> M(static_cast<std::size_t>(n), 0.0), diag(M.size()), rhs(M.size());
        for (int k = 1; k < n - 1; ++k) {
            const auto i = static_cast<std::size_t>(k);
            diag[i] = 2.0 * (h[i - 1] + h[i]);
            rhs[i] = 6.0 * (m[i] - m[i - 1]);
            if (k > 1) {
                const double w = h[i - 1] / diag[i - 1];
                diag[i] -= w * h[i - 1];
                rhs[i] -= w * rhs[i - 1];
            }
        }
        for (int k = n - 2; k >= 1; --k) {
            const auto i = static_cast<std::size_t>(k);
            M[i] = (rhs[i] - (k < n - 2 ? h[i] * M[i + 1] : 0.0)) / diag[i];
        }
        for (std::size_t k = 0; k < h.size(); ++k) {
            t.b_[k] = m[k] - h[k] * (2.0 * M[k] + M[k + 1]) / 6.0;
            t.c_[k] = 0.5 * M[k];
            t.d_[k] = (M[k + 1] - M[k]) / (6.0 * h[k]);
        }
    } else {
        // Akima: the chords extended by two on each side (m₋₁ = 2 m₀ − m₁, …), each point's
        // slope (|m_{k+1} − m_k| m_{k−1} + |m_{k−1} − m_{k−2}| m_k) / (the two weights' sum),
        // the mean of m_{k−1} and m_k where both weights vanish.
        std::vector<double> e(static_cast<std::size_t>(segments + 4));
        for (int k = 0; k < segments; ++k)
            e[static_cast<std::size_t>(k + 2)] = m[static_cast<std::size_t>(k)];
        e[1] = 2.0 * e[2] - e[3];
        e[0] = 2.0 * e[1] - e[2];
        const auto beyond = static_cast<std::size_t>(segments + 2);  // past the last chord
        e[beyond] = 2.0 * e[beyond - 1] - e[beyond - 2];
        e[beyond + 1] = 2.0 * e[beyond] - e[beyond - 1];
        std::vector<double> slope(static_cast<std::size_t>(n));
        for (int k = 0; k < n; ++k) {
            const auto i = static_cast<std::size_t>(k + 2);  // m_k in e
            const double w1 = std::abs(e[i + 1] - e[i]), w2 = std::abs(e[i - 1] - e[i - 2]);
            const double sum = w1 + w2;
            // (a relative threshold: equal chords up to round-off weigh as equal)
            const double scale = std::abs(e[i - 1]) + std::abs(e[i]) + 1e-300;
            slope[static_cast<std::size_t>(k)] =
                sum > 1e-12 * scale ? (w1 * e[i - 1] + w2 * e[i]) / sum : 0.5 * (e[i - 1] + e[i]);
        }
        hermite(slope);
    }
    const std::size_t lastSegment = h.size() - 1;
    const double H = h[lastSegment];
    t.endSlope_ = t.b_[lastSegment] + 2.0 * t.c_[lastSegment] * H + 3.0 * t.d_[lastSegment] * H * H;
    t.area_.assign(static_cast<std::size_t>(n), 0.0);
    for (std::size_t k = 0; k < h.size(); ++k) {
        const double s = h[k];
        t.area_[k + 1] =
            t.area_[k] + s * (Y[k] + s * (t.b_[k] / 2.0 + s * (t.c_[k] / 3.0 + s * t.d_[k] / 4.0)));
    }
    // The steepest slope: at the points, the ends, and where a segment's slope peaks inside it
    // (b + 2 c s + 3 d s² is extreme at s = −c / (3 d)).
    double steepest = std::max(std::abs(t.b_[0]), std::abs(t.endSlope_));
    for (std::size_t k = 0; k < h.size(); ++k) {
        steepest = std::max(steepest, std::abs(t.b_[k]));
        if (t.d_[k] != 0.0) {
            const double s = -t.c_[k] / (3.0 * t.d_[k]);
            if (s > 0.0 && s < h[k])
                steepest = std::max(steepest,
                                    std::abs(t.b_[k] + 2.0 * t.c_[k] * s + 3.0 * t.d_[k] * s * s));
        }
    }
    t.steepest_ = steepest;
    return t;
}

int TableCurve::segment(double x) const {
    if (x < x_.front()) return -1;
    const int last = static_cast<int>(x_.size()) - 1;
    if (x >= x_.back()) return last;
    // the k with x_[k] ≤ x < x_[k + 1]
    return static_cast<int>(std::upper_bound(x_.begin(), x_.end(), x) - x_.begin()) - 1;
}

double TableCurve::value(double x) const {
    if (std::isnan(x)) return x;
    const int k = segment(x);
    if (k < 0) return y_.front() + b_.front() * (x - x_.front());
    const auto i = static_cast<std::size_t>(k);
    if (i + 1 == x_.size()) return y_.back() + endSlope_ * (x - x_.back());
    const double s = x - x_[i];
    return y_[i] + s * (b_[i] + s * (c_[i] + s * d_[i]));
}

double TableCurve::slope(double x) const {
    if (std::isnan(x)) return x;
    const int k = segment(x);
    if (k < 0) return b_.front();
    const auto i = static_cast<std::size_t>(k);
    if (i + 1 == x_.size()) return endSlope_;
    const double s = x - x_[i];
    return b_[i] + s * (2.0 * c_[i] + 3.0 * s * d_[i]);
}

double TableCurve::curvature(double x) const {
    if (std::isnan(x)) return x;
    const int k = segment(x);
    const auto i = static_cast<std::size_t>(k);
    if (k < 0 || i + 1 == x_.size()) return 0.0;
    return 2.0 * c_[i] + 6.0 * d_[i] * (x - x_[i]);
}

double TableCurve::integral(double a, double b) const {
    // G(x) = ∫ from x_[0] to x.
    auto G = [&](double x) {
        const int k = segment(x);
        if (k < 0) {
            const double s = x - x_.front();
            return s * (y_.front() + 0.5 * b_.front() * s);
        }
        const auto i = static_cast<std::size_t>(k);
        const double s = x - x_[i];
        if (i + 1 == x_.size()) return area_.back() + s * (y_.back() + 0.5 * endSlope_ * s);
        return area_[i] + s * (y_[i] + s * (b_[i] / 2.0 + s * (c_[i] / 3.0 + s * d_[i] / 4.0)));
    };
    return G(b) - G(a);
}

Dual TableCurve::operator()(const Dual& x) const {
    return Dual(value(x.a), slope(x.a) * x.b);
}

Jet2 TableCurve::operator()(const Jet2& x) const {
    return chain(x, value(x.v), slope(x.v), curvature(x.v));
}

}  // namespace engine
