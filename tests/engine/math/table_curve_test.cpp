// Curves through measured points against closed forms: through the points, straight lines kept
// straight, the natural spline's known values, Akima's flat stretches, exact slopes, curvatures
// and integrals, and the points refused.

#include "engine/math/table_curve.h"

#include <cmath>

#include <gtest/gtest.h>

namespace engine {
namespace {

constexpr TableInterpolation kAll[] = {TableInterpolation::Linear, TableInterpolation::Cubic,
                                       TableInterpolation::Akima};

TableCurve curve(TableInterpolation interpolation, std::vector<double> x, std::vector<double> y) {
    std::string error;
    auto c = TableCurve::make(interpolation, std::move(x), std::move(y), error);
    EXPECT_TRUE(c) << error;
    return *c;
}

TEST(TableCurve, GoesThroughItsPointsWhateverTheInterpolation) {
    const std::vector<double> x{-1.0, -0.2, 0.0, 0.5, 2.0, 2.1};
    const std::vector<double> y{3.0, -1.0, 0.25, 4.0, 4.0, -2.0};
    for (TableInterpolation i : kAll) {
        const TableCurve c = curve(i, x, y);
        for (std::size_t k = 0; k < x.size(); ++k)
            EXPECT_NEAR(c.value(x[k]), y[k], 1e-14) << tableInterpolationName(i) << " " << k;
    }
}

TEST(TableCurve, PointsOnALineGiveThatLineEverywhereAndBeyond) {
    // A spring's law k x through 5 unevenly spaced points: each interpolation is the line, and
    // it goes on as the line beyond the points (its slope there).
    const double k = 2500.0;
    const std::vector<double> x{-0.1, -0.04, 0.0, 0.03, 0.1};
    std::vector<double> y;
    for (double xi : x) y.push_back(k * xi);
    for (TableInterpolation i : kAll) {
        const TableCurve c = curve(i, x, y);
        for (double s = -0.3; s <= 0.3; s += 0.0137) {
            EXPECT_NEAR(c.value(s), k * s, 1e-12 * k) << tableInterpolationName(i) << " " << s;
            EXPECT_NEAR(c.slope(s), k, 1e-9 * k) << tableInterpolationName(i) << " " << s;
            EXPECT_NEAR(c.curvature(s), 0.0, 1e-7 * k) << tableInterpolationName(i) << " " << s;
            EXPECT_NEAR(c.integral(0.0, s), 0.5 * k * s * s, 1e-12 * k)
                << tableInterpolationName(i) << " " << s;
        }
        EXPECT_NEAR(c.steepestSlope(), k, 1e-9 * k);
    }
}

TEST(TableCurve, TheNaturalSplineHasItsClosedFormValues) {
    // Through (0, 0), (1, 1), (2, 0): M₁ = −3 (from 4 M₁ = 6 (−1 − 1)), so on [0, 1]
    // y = 1.5 s − 0.5 s³, on [1, 2] symmetric; beyond, straight with slope ±1.5.
    const TableCurve c = curve(TableInterpolation::Cubic, {0.0, 1.0, 2.0}, {0.0, 1.0, 0.0});
    for (double s = 0.0; s <= 1.0; s += 0.125) {
        EXPECT_NEAR(c.value(s), 1.5 * s - 0.5 * s * s * s, 1e-15) << s;
        EXPECT_NEAR(c.value(2.0 - s), 1.5 * s - 0.5 * s * s * s, 1e-15) << s;
        EXPECT_NEAR(c.slope(s), 1.5 - 1.5 * s * s, 1e-15) << s;
        EXPECT_NEAR(c.curvature(s), -3.0 * s, 1e-15) << s;
    }
    EXPECT_NEAR(c.value(-0.5), -0.75, 1e-15);
    EXPECT_NEAR(c.value(3.0), -1.5, 1e-15);
    EXPECT_NEAR(c.curvature(-0.5), 0.0, 0.0);  // natural: no curvature at the ends, none beyond
    // ∫₀² = 2 (1.5/2 − 0.5/4) = 1.25
    EXPECT_NEAR(c.integral(0.0, 2.0), 1.25, 1e-15);
    EXPECT_NEAR(c.integral(2.0, 0.0), -1.25, 1e-15);
    EXPECT_NEAR(c.steepestSlope(), 1.5, 1e-15);
}

TEST(TableCurve, AkimaKeepsFlatStretchesFlatWhereTheSplineOvershoots) {
    // A step: 0, 0, 0, 1, 1, 1. Akima's curve stays 0 on [0, 2] and 1 on [3, 5], rising
    // monotonically between; the natural spline rings below 0 and above 1.
    const std::vector<double> x{0, 1, 2, 3, 4, 5}, y{0, 0, 0, 1, 1, 1};
    const TableCurve akima = curve(TableInterpolation::Akima, x, y);
    const TableCurve cubic = curve(TableInterpolation::Cubic, x, y);
    double lowest = 0.0, highest = 1.0, previous = -1.0;
    for (double s = 0.0; s <= 5.0; s += 0.01) {
        if (s <= 2.0) {
            EXPECT_EQ(akima.value(s), 0.0) << s;
        }
        if (s >= 3.0) {
            EXPECT_NEAR(akima.value(s), 1.0, 1e-15) << s;
        }
        EXPECT_GE(akima.value(s), previous - 1e-15) << s;
        previous = akima.value(s);
        lowest = std::min(lowest, cubic.value(s));
        highest = std::max(highest, cubic.value(s));
    }
    EXPECT_LT(lowest, -0.01);
    EXPECT_GT(highest, 1.01);
    // Akima's slope at the step's corners: the weights give all to the flat side.
    EXPECT_EQ(akima.slope(2.0), 0.0);
    EXPECT_EQ(akima.slope(3.0), 0.0);
}

TEST(TableCurve, SlopeCurvatureAndIntegralAreTheCurvesOwn) {
    // A damper's digressive curve: finite differences of value() give slope() and curvature(),
    // Simpson's rule on value() gives integral(), inside and beyond the points.
    const std::vector<double> x{-1.0, -0.3, -0.05, 0.0, 0.05, 0.3, 1.0};
    const std::vector<double> y{-1800.0, -1100.0, -400.0, 0.0, 600.0, 1500.0, 2400.0};
    for (TableInterpolation i : kAll) {
        const TableCurve c = curve(i, x, y);
        const double h = 1e-6;
        for (double s : {-1.4, -0.7, -0.2, -0.01, 0.02, 0.1, 0.6, 1.3}) {
            EXPECT_NEAR(c.slope(s), (c.value(s + h) - c.value(s - h)) / (2 * h), 1e-5)
                << tableInterpolationName(i) << " " << s;
            if (i != TableInterpolation::Linear) {
                EXPECT_NEAR(c.curvature(s), (c.slope(s + h) - c.slope(s - h)) / (2 * h), 1e-3)
                    << tableInterpolationName(i) << " " << s;
            }
            // Dual numbers and jets carry the same derivatives.
            const Dual d = c(Dual(s, 2.0));
            EXPECT_EQ(d.a, c.value(s));
            EXPECT_EQ(d.b, 2.0 * c.slope(s));
            const Jet2 j = c(Jet2(s, 2.0, 3.0));
            EXPECT_EQ(j.d1, 2.0 * c.slope(s));
            EXPECT_NEAR(j.d2, 4.0 * c.curvature(s) + 3.0 * c.slope(s), 1e-9);
        }
        // Simpson over a fine grid spanning the points and the straight ends: the pieces are
        // cubics, exact on each panel that does not straddle a point.
        const double a = -1.5, b = 1.5;
        const int n = 6000;
        double sum = c.value(a) + c.value(b);
        for (int k = 1; k < n; ++k) sum += (k % 2 ? 4.0 : 2.0) * c.value(a + (b - a) * k / n);
        EXPECT_NEAR(c.integral(a, b), sum * (b - a) / (3.0 * n), 1e-6) << tableInterpolationName(i);
        // Its steepest slope is no less than any sampled one.
        for (double s = -1.5; s <= 1.5; s += 0.001)
            EXPECT_LE(std::abs(c.slope(s)), c.steepestSlope() * (1 + 1e-12));
    }
}

TEST(TableCurve, RefusesPointsThatMakeNoCurve) {
    std::string error;
    int where = 0;
    EXPECT_FALSE(TableCurve::make(TableInterpolation::Akima, {1.0}, {2.0}, error, &where));
    EXPECT_NE(error.find("at least 2 points"), std::string::npos) << error;
    EXPECT_EQ(where, -1);
    EXPECT_FALSE(TableCurve::make(TableInterpolation::Cubic, {0, 1, 2}, {0, 1}, error, &where));
    EXPECT_NE(error.find("one y for each x"), std::string::npos) << error;
    EXPECT_FALSE(
        TableCurve::make(TableInterpolation::Linear, {0, 1, 1, 2}, {0, 1, 2, 3}, error, &where));
    EXPECT_NE(error.find("does not increase"), std::string::npos) << error;
    EXPECT_EQ(where, 2);
    EXPECT_FALSE(TableCurve::make(TableInterpolation::Linear, {0, 2, 1}, {0, 1, 2}, error, &where));
    EXPECT_EQ(where, 2);
    EXPECT_FALSE(TableCurve::make(TableInterpolation::Akima, {0, std::nan(""), 2}, {0, 1, 2}, error,
                                  &where));
    EXPECT_EQ(error.rfind("x is not a finite number", 0), 0u) << error;
    EXPECT_EQ(where, 1);
    EXPECT_FALSE(
        TableCurve::make(TableInterpolation::Akima, {0, 1, 2}, {0, 1, INFINITY}, error, &where));
    EXPECT_EQ(error.rfind("y is not a finite number", 0), 0u) << error;
    EXPECT_EQ(where, 2);
    // A NaN argument gives NaN, not a value of the curve.
    const TableCurve c = curve(TableInterpolation::Akima, {0, 1}, {0, 1});
    EXPECT_TRUE(std::isnan(c.value(std::nan(""))));
}

}  // namespace
}  // namespace engine
