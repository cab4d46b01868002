#pragma once
// Second-order jets f + f' ε + f'' ε²/2 along one variable: a function written for a scalar S,
// evaluated on Jet2 with the variable's jet (x, 1, 0), gives its value, first and second
// derivatives, exact to round-off. What a computed-torque controller needs of its target: q_d,
// q̇_d and q̈_d from the expression itself, not by differences
// (engine/expr/expression_tree.h). Comparisons compare values: a branch is differentiated as
// the branch taken.

#include <cmath>
#include <limits>

namespace engine {

struct Jet2 {
    double v = 0.0;   // value
    double d1 = 0.0;  // first derivative
    double d2 = 0.0;  // second derivative

    constexpr Jet2() = default;
    constexpr Jet2(double value) : v(value) {}  // NOLINT: a constant
    constexpr Jet2(double value, double first, double second) : v(value), d1(first), d2(second) {}

    Jet2& operator+=(const Jet2& o) {
        v += o.v;
        d1 += o.d1;
        d2 += o.d2;
        return *this;
    }
    Jet2& operator-=(const Jet2& o) {
        v -= o.v;
        d1 -= o.d1;
        d2 -= o.d2;
        return *this;
    }
    Jet2& operator*=(const Jet2& o) {
        return *this = Jet2(v * o.v, d1 * o.v + v * o.d1, d2 * o.v + 2.0 * d1 * o.d1 + v * o.d2);
    }
    Jet2& operator/=(const Jet2& o) {
        // q = a/b: q' = (a' − q b')/b, q'' = (a'' − 2 q' b' − q b'')/b
        const double q = v / o.v;
        const double q1 = (d1 - q * o.d1) / o.v;
        const double q2 = (d2 - 2.0 * q1 * o.d1 - q * o.d2) / o.v;
        return *this = Jet2(q, q1, q2);
    }
};

// f(x) for f with value f0 and derivatives f1, f2 at x.v: the chain rule to second order.
inline Jet2 chain(const Jet2& x, double f0, double f1, double f2) {
    return {f0, f1 * x.d1, f2 * x.d1 * x.d1 + f1 * x.d2};
}

inline Jet2 operator+(const Jet2& x) {
    return x;
}
inline Jet2 operator-(const Jet2& x) {
    return {-x.v, -x.d1, -x.d2};
}
inline Jet2 operator+(Jet2 x, const Jet2& y) {
    return x += y;
}
inline Jet2 operator-(Jet2 x, const Jet2& y) {
    return x -= y;
}
inline Jet2 operator*(Jet2 x, const Jet2& y) {
    return x *= y;
}
inline Jet2 operator/(Jet2 x, const Jet2& y) {
    return x /= y;
}
inline Jet2 operator+(const Jet2& x, double y) {
    return {x.v + y, x.d1, x.d2};
}
inline Jet2 operator+(double x, const Jet2& y) {
    return {x + y.v, y.d1, y.d2};
}
inline Jet2 operator-(const Jet2& x, double y) {
    return {x.v - y, x.d1, x.d2};
}
inline Jet2 operator-(double x, const Jet2& y) {
    return {x - y.v, -y.d1, -y.d2};
}
inline Jet2 operator*(const Jet2& x, double y) {
    return {x.v * y, x.d1 * y, x.d2 * y};
}
inline Jet2 operator*(double x, const Jet2& y) {
    return {x * y.v, x * y.d1, x * y.d2};
}
inline Jet2 operator/(const Jet2& x, double y) {
    return {x.v / y, x.d1 / y, x.d2 / y};
}
inline Jet2 operator/(double x, const Jet2& y) {
    return Jet2(x) / y;
}

inline bool operator<(const Jet2& x, const Jet2& y) {
    return x.v < y.v;
}
inline bool operator>(const Jet2& x, const Jet2& y) {
    return x.v > y.v;
}
inline bool operator<=(const Jet2& x, const Jet2& y) {
    return x.v <= y.v;
}
inline bool operator>=(const Jet2& x, const Jet2& y) {
    return x.v >= y.v;
}
inline bool operator==(const Jet2& x, const Jet2& y) {
    return x.v == y.v;
}
inline bool operator!=(const Jet2& x, const Jet2& y) {
    return x.v != y.v;
}

inline double valueOf(const Jet2& x) {
    return x.v;
}

inline Jet2 sqrt(const Jet2& x) {
    const double s = std::sqrt(x.v);
    return chain(x, s, 0.5 / s, -0.25 / (s * x.v));
}
inline Jet2 abs(const Jet2& x) {
    return x.v < 0.0 ? -x : x;
}
inline Jet2 fabs(const Jet2& x) {
    return abs(x);
}
inline Jet2 sin(const Jet2& x) {
    const double s = std::sin(x.v), c = std::cos(x.v);
    return chain(x, s, c, -s);
}
inline Jet2 cos(const Jet2& x) {
    const double s = std::sin(x.v), c = std::cos(x.v);
    return chain(x, c, -s, -c);
}
inline Jet2 tan(const Jet2& x) {
    const double t = std::tan(x.v), f1 = 1.0 + t * t;
    return chain(x, t, f1, 2.0 * t * f1);
}
inline Jet2 asin(const Jet2& x) {
    const double r = 1.0 - x.v * x.v, f1 = 1.0 / std::sqrt(r);
    return chain(x, std::asin(x.v), f1, x.v * f1 / r);
}
inline Jet2 acos(const Jet2& x) {
    const double r = 1.0 - x.v * x.v, f1 = 1.0 / std::sqrt(r);
    return chain(x, std::acos(x.v), -f1, -x.v * f1 / r);
}
inline Jet2 atan(const Jet2& x) {
    const double f1 = 1.0 / (1.0 + x.v * x.v);
    return chain(x, std::atan(x.v), f1, -2.0 * x.v * f1 * f1);
}
// atan2(y, x) = θ: θ' = (x y' − y x')/r², θ'' = (x y'' − y x'')/r² − 2 θ' (x x' + y y')/r².
inline Jet2 atan2(const Jet2& y, const Jet2& x) {
    const double r2 = x.v * x.v + y.v * y.v;
    if (!(r2 > 0.0)) return {std::atan2(y.v, x.v), 0.0, 0.0};
    const double t1 = (x.v * y.d1 - y.v * x.d1) / r2;
    const double t2 = (x.v * y.d2 - y.v * x.d2) / r2 - 2.0 * t1 * (x.v * x.d1 + y.v * y.d1) / r2;
    return {std::atan2(y.v, x.v), t1, t2};
}
inline Jet2 sinh(const Jet2& x) {
    const double s = std::sinh(x.v), c = std::cosh(x.v);
    return chain(x, s, c, s);
}
inline Jet2 cosh(const Jet2& x) {
    const double s = std::sinh(x.v), c = std::cosh(x.v);
    return chain(x, c, s, c);
}
inline Jet2 tanh(const Jet2& x) {
    const double t = std::tanh(x.v), f1 = 1.0 - t * t;
    return chain(x, t, f1, -2.0 * t * f1);
}
inline Jet2 asinh(const Jet2& x) {
    const double r = x.v * x.v + 1.0, f1 = 1.0 / std::sqrt(r);
    return chain(x, std::asinh(x.v), f1, -x.v * f1 / r);
}
inline Jet2 acosh(const Jet2& x) {
    const double r = x.v * x.v - 1.0, f1 = 1.0 / std::sqrt(r);
    return chain(x, std::acosh(x.v), f1, -x.v * f1 / r);
}
inline Jet2 atanh(const Jet2& x) {
    const double f1 = 1.0 / (1.0 - x.v * x.v);
    return chain(x, std::atanh(x.v), f1, 2.0 * x.v * f1 * f1);
}
inline Jet2 exp(const Jet2& x) {
    const double e = std::exp(x.v);
    return chain(x, e, e, e);
}
inline Jet2 log(const Jet2& x) {
    return chain(x, std::log(x.v), 1.0 / x.v, -1.0 / (x.v * x.v));
}
inline Jet2 log2(const Jet2& x) {
    const double k = 1.0 / std::log(2.0);
    return chain(x, std::log2(x.v), k / x.v, -k / (x.v * x.v));
}
inline Jet2 log10(const Jet2& x) {
    const double k = 1.0 / std::log(10.0);
    return chain(x, std::log10(x.v), k / x.v, -k / (x.v * x.v));
}
// x^y. A constant exponent: y x^(y−1), y (y−1) x^(y−2) (taken as their limits at x = 0 where
// they are finite); one that varies: exp(y ln x), defined for x > 0 only.
inline Jet2 pow(const Jet2& x, const Jet2& y) {
    const double value = std::pow(x.v, y.v);
    if (y.d1 == 0.0 && y.d2 == 0.0) {
        if (x.d1 == 0.0 && x.d2 == 0.0) return Jet2(value);
        const double n = y.v;
        if (n == 0.0) return Jet2(value);
        const double f1 = n == 1.0 ? 1.0 : n * std::pow(x.v, n - 1.0);
        const double f2 = n == 1.0 ? 0.0 : n == 2.0 ? 2.0 : n * (n - 1.0) * std::pow(x.v, n - 2.0);
        return chain(x, value, f1, f2);
    }
    if (!(x.v > 0.0))
        return {value, std::numeric_limits<double>::quiet_NaN(),
                std::numeric_limits<double>::quiet_NaN()};
    return exp(y * log(x));
}
inline bool isfinite(const Jet2& x) {
    return std::isfinite(x.v) && std::isfinite(x.d1) && std::isfinite(x.d2);
}
inline bool isnan(const Jet2& x) {
    return std::isnan(x.v) || std::isnan(x.d1) || std::isnan(x.d2);
}

}  // namespace engine
