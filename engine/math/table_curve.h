#pragma once
// A curve through measured points y(x): a force law from a data sheet (a spring's force over its
// deflection, a damper's over its rate), a motion profile, anything an expression reads through
// the table's name (a scene's `tables`, engine/model/scene_spec.h).
//
// Interpolation, each a piecewise cubic (Adams' CUBSPL and AKISPL, Simscape's lookup tables):
//   linear  straight between the points (C0)
//   cubic   the natural cubic spline (C2, no curvature at the end points): through points of a
//           straight line, that line
//   akima   Akima's spline (C1): each point's slope a weighted mean of its neighbours' chords,
//           which keeps a flat stretch flat and does not overshoot beside a kink as the cubic
//           spline does (Akima, J. ACM 17 (1970) 589)
// Beyond the first and last points the curve goes on straight with its slope there (C1): a
// spring stiffens no less than at its last point, a damper keeps its last slope. All three give
// value, slope and curvature exactly (the polynomials themselves), and the integral, which is a
// nonlinear spring's elastic energy.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/math/dual.h"
#include "engine/math/jet.h"

namespace engine {

enum class TableInterpolation { Linear, Cubic, Akima };
std::string_view tableInterpolationName(TableInterpolation interpolation);  // "linear", …
std::optional<TableInterpolation> tableInterpolationFromName(std::string_view name);

class TableCurve {
public:
    // The curve through (x[k], y[k]); nullopt with the reason when the points cannot make one:
    // fewer than 2, x and y of different lengths, a value that is not finite, x not strictly
    // increasing. `where` receives the index (into x or y) of the first bad value, or −1.
    static std::optional<TableCurve> make(TableInterpolation interpolation, std::vector<double> x,
                                          std::vector<double> y, std::string& error,
                                          int* where = nullptr);

    double value(double x) const;
    double slope(double x) const;
    double curvature(double x) const;
    // ∫ from a to b of y(x) dx.
    double integral(double a, double b) const;
    // The steepest slope anywhere (|y'|, largest on the points or on the straight ends; within a
    // segment the cubic's extreme is checked too): what a stiffness estimate takes.
    double steepestSlope() const { return steepest_; }

    // The curve of a dual number or a jet: its tangent (first and second derivatives) by the
    // chain rule from the exact slope and curvature.
    double operator()(double x) const { return value(x); }
    Dual operator()(const Dual& x) const;
    Jet2 operator()(const Jet2& x) const;

    TableInterpolation interpolation() const { return interpolation_; }
    const std::vector<double>& xs() const { return x_; }
    const std::vector<double>& ys() const { return y_; }

private:
    // Segment k from x_[k] to x_[k + 1]: y = a + b s + c s² + d s³, s = x − x_[k]; below x_[0]
    // (k = −1) and above the last point (k = n − 1) the straight ends.
    int segment(double x) const;
    TableInterpolation interpolation_ = TableInterpolation::Linear;
    std::vector<double> x_, y_;
    std::vector<double> b_, c_, d_;  // per segment (a is y_)
    std::vector<double> area_;       // ∫ from x_[0] to x_[k]
    double endSlope_ = 0.0;          // at the last point
    double steepest_ = 0.0;
};

}  // namespace engine
