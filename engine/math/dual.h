#pragma once
// Dual numbers a + b ε (ε² = 0): forward-mode differentiation along one direction. A function
// written for a scalar type S, evaluated on Dual with the inputs' tangents set, gives its value
// and its directional derivative, exact to round-off (no step to choose). The implicit
// integrators differentiate the force elements this way (engine/forces/force_jacobian.h).
//
// Usable as an Eigen scalar (NumTraits below; mixed with double in coefficient-wise
// operations). Comparisons compare values: a branch is differentiated as the branch taken.

#include <cmath>
#include <limits>

#include <Eigen/Core>

namespace engine {

struct Dual {
    double a = 0.0;  // value
    double b = 0.0;  // tangent

    constexpr Dual() = default;
    constexpr Dual(double value) : a(value) {}  // NOLINT: a constant, tangent 0
    constexpr Dual(double value, double tangent) : a(value), b(tangent) {}

    Dual& operator+=(const Dual& o) {
        a += o.a;
        b += o.b;
        return *this;
    }
    Dual& operator-=(const Dual& o) {
        a -= o.a;
        b -= o.b;
        return *this;
    }
    Dual& operator*=(const Dual& o) { return *this = Dual(a * o.a, b * o.a + a * o.b); }
    Dual& operator/=(const Dual& o) {
        return *this = Dual(a / o.a, (b * o.a - a * o.b) / (o.a * o.a));
    }
};

inline Dual operator+(const Dual& x) {
    return x;
}
inline Dual operator-(const Dual& x) {
    return {-x.a, -x.b};
}
inline Dual operator+(Dual x, const Dual& y) {
    return x += y;
}
inline Dual operator-(Dual x, const Dual& y) {
    return x -= y;
}
inline Dual operator*(Dual x, const Dual& y) {
    return x *= y;
}
inline Dual operator/(Dual x, const Dual& y) {
    return x /= y;
}
inline Dual operator+(const Dual& x, double y) {
    return {x.a + y, x.b};
}
inline Dual operator+(double x, const Dual& y) {
    return {x + y.a, y.b};
}
inline Dual operator-(const Dual& x, double y) {
    return {x.a - y, x.b};
}
inline Dual operator-(double x, const Dual& y) {
    return {x - y.a, -y.b};
}
inline Dual operator*(const Dual& x, double y) {
    return {x.a * y, x.b * y};
}
inline Dual operator*(double x, const Dual& y) {
    return {x * y.a, x * y.b};
}
inline Dual operator/(const Dual& x, double y) {
    return {x.a / y, x.b / y};
}
inline Dual operator/(double x, const Dual& y) {
    return {x / y.a, -x * y.b / (y.a * y.a)};
}

inline bool operator<(const Dual& x, const Dual& y) {
    return x.a < y.a;
}
inline bool operator>(const Dual& x, const Dual& y) {
    return x.a > y.a;
}
inline bool operator<=(const Dual& x, const Dual& y) {
    return x.a <= y.a;
}
inline bool operator>=(const Dual& x, const Dual& y) {
    return x.a >= y.a;
}
inline bool operator==(const Dual& x, const Dual& y) {
    return x.a == y.a;
}
inline bool operator!=(const Dual& x, const Dual& y) {
    return x.a != y.a;
}

// The value of a double or of a Dual, for code written for either.
inline double valueOf(double x) {
    return x;
}
inline double valueOf(const Dual& x) {
    return x.a;
}

inline Dual sqrt(const Dual& x) {
    const double s = std::sqrt(x.a);
    return {s, x.b / (2.0 * s)};
}
inline Dual abs(const Dual& x) {
    return x.a < 0.0 ? -x : x;
}
inline Dual fabs(const Dual& x) {
    return abs(x);
}
inline Dual sin(const Dual& x) {
    return {std::sin(x.a), std::cos(x.a) * x.b};
}
inline Dual cos(const Dual& x) {
    return {std::cos(x.a), -std::sin(x.a) * x.b};
}
inline Dual tan(const Dual& x) {
    const double t = std::tan(x.a);
    return {t, (1.0 + t * t) * x.b};
}
inline Dual asin(const Dual& x) {
    return {std::asin(x.a), x.b / std::sqrt(1.0 - x.a * x.a)};
}
inline Dual acos(const Dual& x) {
    return {std::acos(x.a), -x.b / std::sqrt(1.0 - x.a * x.a)};
}
inline Dual atan(const Dual& x) {
    return {std::atan(x.a), x.b / (1.0 + x.a * x.a)};
}
inline Dual atan2(const Dual& y, const Dual& x) {
    const double r2 = x.a * x.a + y.a * y.a;
    return {std::atan2(y.a, x.a), r2 > 0.0 ? (x.a * y.b - y.a * x.b) / r2 : 0.0};
}
inline Dual sinh(const Dual& x) {
    return {std::sinh(x.a), std::cosh(x.a) * x.b};
}
inline Dual cosh(const Dual& x) {
    return {std::cosh(x.a), std::sinh(x.a) * x.b};
}
inline Dual tanh(const Dual& x) {
    const double t = std::tanh(x.a);
    return {t, (1.0 - t * t) * x.b};
}
inline Dual asinh(const Dual& x) {
    return {std::asinh(x.a), x.b / std::sqrt(x.a * x.a + 1.0)};
}
inline Dual acosh(const Dual& x) {
    return {std::acosh(x.a), x.b / std::sqrt(x.a * x.a - 1.0)};
}
inline Dual atanh(const Dual& x) {
    return {std::atanh(x.a), x.b / (1.0 - x.a * x.a)};
}
inline Dual exp(const Dual& x) {
    const double e = std::exp(x.a);
    return {e, e * x.b};
}
inline Dual log(const Dual& x) {
    return {std::log(x.a), x.b / x.a};
}
inline Dual log2(const Dual& x) {
    return {std::log2(x.a), x.b / (x.a * std::log(2.0))};
}
inline Dual log10(const Dual& x) {
    return {std::log10(x.a), x.b / (x.a * std::log(10.0))};
}
// x^y; the tangent's y part only where x > 0 (elsewhere x^y is defined for integer y alone,
// constant in y), its x part y x^(y−1) (0 at x = 0 for y > 1, as the limit).
inline Dual pow(const Dual& x, const Dual& y) {
    const double value = std::pow(x.a, y.a);
    double tangent = 0.0;
    if (x.b != 0.0) {
        if (y.a == 0.0)
            tangent = 0.0;
        else if (x.a != 0.0)
            tangent = y.a * std::pow(x.a, y.a - 1.0) * x.b;
        else if (y.a == 1.0)
            tangent = x.b;
        else if (y.a > 1.0)
            tangent = 0.0;
        else
            tangent = std::numeric_limits<double>::infinity() * x.b;
    }
    if (y.b != 0.0 && x.a > 0.0) tangent += value * std::log(x.a) * y.b;
    return {value, tangent};
}
inline bool isfinite(const Dual& x) {
    return std::isfinite(x.a) && std::isfinite(x.b);
}
inline bool isnan(const Dual& x) {
    return std::isnan(x.a) || std::isnan(x.b);
}
inline Dual abs2(const Dual& x) {
    return x * x;
}
inline const Dual& conj(const Dual& x) {
    return x;
}
inline const Dual& real(const Dual& x) {
    return x;
}
inline Dual imag(const Dual&) {
    return Dual();
}

}  // namespace engine

namespace Eigen {

template <>
struct NumTraits<engine::Dual> : GenericNumTraits<engine::Dual> {
    using Real = engine::Dual;
    using NonInteger = engine::Dual;
    using Nested = engine::Dual;
    using Literal = engine::Dual;
    enum {
        IsComplex = 0,
        IsInteger = 0,
        IsSigned = 1,
        RequireInitialization = 1,
        ReadCost = 2,
        AddCost = 2,
        MulCost = 4
    };
    static engine::Dual epsilon() { return std::numeric_limits<double>::epsilon(); }
    static engine::Dual dummy_precision() { return 1e-12; }
    static engine::Dual highest() { return std::numeric_limits<double>::max(); }
    static engine::Dual lowest() { return std::numeric_limits<double>::lowest(); }
    static int digits10() { return std::numeric_limits<double>::digits10; }
};

template <typename BinaryOp>
struct ScalarBinaryOpTraits<engine::Dual, double, BinaryOp> {
    using ReturnType = engine::Dual;
};
template <typename BinaryOp>
struct ScalarBinaryOpTraits<double, engine::Dual, BinaryOp> {
    using ReturnType = engine::Dual;
};

}  // namespace Eigen

namespace engine {

using DualVec3 = Eigen::Matrix<Dual, 3, 1>;
using DualMat3 = Eigen::Matrix<Dual, 3, 3>;

}  // namespace engine
