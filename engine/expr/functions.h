#pragma once
// The mechanism functions of the expression language (engine/expr/expression.h), written once
// for a scalar S: double where muparser evaluates them, Dual (engine/math/dual.h) where an
// expression of the state is differentiated (engine/expr/expression_tree.h). A function given
// arguments it cannot take throws FunctionError with the reason.

#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/math/constants.h"

namespace engine::expr {

struct FunctionError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

template <class S>
S maxOf(const S& a, const S& b) {
    return a < b ? b : a;
}
template <class S>
S minOf(const S& a, const S& b) {
    return b < a ? b : a;
}

template <class S>
S cubicStep(S x, S x0, S h0, S x1, S h1) {
    if (x <= x0) return h0;
    if (x >= x1) return h1;
    const S s = (x - x0) / (x1 - x0);
    return h0 + (h1 - h0) * s * s * (3.0 - 2.0 * s);
}

template <class S>
S quinticStep(S x, S x0, S h0, S x1, S h1) {
    if (x <= x0) return h0;
    if (x >= x1) return h1;
    const S s = (x - x0) / (x1 - x0);
    return h0 + (h1 - h0) * s * s * s * (10.0 - 15.0 * s + 6.0 * s * s);
}

template <class S>
S ramp(S x, S x0, S x1, S h0, S h1) {
    if (x <= x0) return h0;
    if (x >= x1) return h1;
    return h0 + (h1 - h0) * (x - x0) / (x1 - x0);
}

template <class S>
S harmonic(S x, S amplitude, S frequency, S phase) {
    using std::sin;
    return amplitude * sin(2.0 * kPi * frequency * x + phase);
}

// table(x, x0, y0, x1, y1, ...): args[0] = x, then pairs.
template <class S>
S table(const S* args, int count) {
    if (count < 3 || (count - 1) % 2 != 0)
        throw FunctionError("table(x, x0, y0, x1, y1, ...) needs x and pairs of points");
    const S x = args[0];
    const int points = (count - 1) / 2;
    auto px = [&](int k) { return args[1 + 2 * k]; };
    auto py = [&](int k) { return args[2 + 2 * k]; };
    for (int k = 1; k < points; ++k)
        if (!(px(k) > px(k - 1)))
            throw FunctionError("table(): the x values must be strictly ascending");
    if (x <= px(0)) return py(0);
    if (x >= px(points - 1)) return py(points - 1);
    int k = 1;
    while (px(k) < x) ++k;
    const S s = (x - px(k - 1)) / (px(k) - px(k - 1));
    return py(k - 1) + s * (py(k) - py(k - 1));
}

template <class S>
S haversine(S x, S x0, S h0, S x1, S h1) {
    using std::cos;
    if (x <= x0) return h0;
    if (x >= x1) return h1;
    return h0 + (h1 - h0) * 0.5 * (1.0 - cos(kPi * (x - x0) / (x1 - x0)));
}

template <class S>
S clamp(S x, S lo, S hi) {
    using std::isnan;
    if (isnan(x) || isnan(lo) || isnan(hi)) return S(std::nan(""));
    if (lo > hi) throw FunctionError("clamp(x, lo, hi) needs lo <= hi");
    return minOf(maxOf(x, lo), hi);
}

// Adams' IMPACT: the force of a one-sided stop at x1 on a coordinate x moving at xd, pushing
// towards larger x while x < x1; the damping grows from 0 at x1 to cmax at penetration d.
template <class S>
S impact(S x, S xd, S x1, S k, S e, S cmax, S d) {
    using std::pow;
    if (!(k >= 0.0) || !(e > 0.0) || !(cmax >= 0.0) || !(d > 0.0))
        throw FunctionError(
            "impact(x, xd, x1, k, e, cmax, d) needs k >= 0, e > 0, cmax >= 0 "
            "and d > 0");
    if (x >= x1) return S(0.0);
    return maxOf(S(0.0), k * pow(x1 - x, e) - cubicStep(x, x1 - d, cmax, x1, S(0.0)) * xd);
}

// Adams' BISTOP: free between x1 and x2, a stop (as impact) at each end.
template <class S>
S bistop(const S* args, int count) {
    if (count != 8) throw FunctionError("bistop(x, xd, x1, x2, k, e, cmax, d) takes 8 values");
    const S x = args[0], xd = args[1], x1 = args[2], x2 = args[3], k = args[4], e = args[5],
            cmax = args[6], d = args[7];
    if (!(x1 < x2)) throw FunctionError("bistop(x, xd, x1, x2, ...) needs x1 < x2");
    if (x < x1) return impact(x, xd, x1, k, e, cmax, d);
    if (x <= x2) {
        if (!(k >= 0.0) || !(e > 0.0) || !(cmax >= 0.0) || !(d > 0.0))
            throw FunctionError(
                "bistop(x, xd, x1, x2, k, e, cmax, d) needs k >= 0, e > 0, "
                "cmax >= 0 and d > 0");
        return S(0.0);
    }
    return -impact(-x, -xd, -x2, k, e, cmax, d);
}

}  // namespace engine::expr
