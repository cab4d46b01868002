#include "engine/expr/expression_tree.h"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/expr/expression.h"

namespace engine {
namespace {

// Texts of the expression language with two inputs, x and v, covering its grammar (precedence,
// signs, '^' to the right, the postfix d, the ternary, comparisons) and every function.
const std::vector<std::string> kTexts = {
    "x",
    "-x^2",
    "2^-x",
    "x^3^0.5",
    "-x*-v",
    "3 - -x",
    "x d + 2^90d - (x + v)d",
    "1e-2*x + .5*v + 2.*x + 1E+1",
    "x < v ? x*v : x/v",
    "x > 0 && v < 0 || x == v ? sin(x) : cos(v)",
    "x ? 1 : v > 0 ? 2*v : 3*x",
    "1 + 2 < 4 == 1",
    "x != v",
    "x <= v + 1 || x >= 3",
    "sin(x) + cos(v) + tan(x/3) + asin(x/4) + acos(v/3) + atan(x*v)",
    "sinh(x) + cosh(v) + tanh(x) + asinh(v) + acosh(2 + x^2) + atanh(x/3)",
    "log2(2 + x) + log10(3 + v^2) + ln(4 + x) + log(5 + x) + exp(-v)",
    "sqrt(2 + x) * sign(v) + abs(v) + rint(x) + atan2(v, x)",
    "sum(x, v, 1) + avg(x, v) + min(x, v, 0.2) + max(x, 2*v, -1)",
    "step(x, -1, 0, 2, 5) + step5(v, -1, 1, 1, 2)",
    "ramp(x, 0, 2, 1, 3) + harmonic(x, 2, 0.5, v) + haversine(v, -2, 0, 2, 1)",
    "table(x, -1, 0, 0, 2, 1, 1, 3, 4)",
    "if(x - 0.3, v^2, -v) + clamp(3*x, -1, 1)",
    "impact(x, v, 1, 1e4, 1.5, 50, 0.1)",
    "bistop(x, v, -0.5, 0.25, 2e3, 2, 30, 0.05)",
    "-400*(x - 0.5) - 3*v",
    "pi*x + _pi*v + _e",
    "  ( ( x ) )  *  2 ",
    "(x || 0) + (0.5 || 0) + (0.2 + 0.3 && 1) + (x*v && v)",
};

// Points of (x, v), some in each branch of the piecewise functions, none on a kink.
const double kPoints[][2] = {{0.31, -0.73}, {0.83, 0.47},   {1.71, 2.13}, {-0.47, 1.29},
                             {0.93, -1.17}, {-0.61, -0.13}, {0.27, 0.91}};

TEST(ExpressionTree, ReadsTheLanguageAsMuparserDoesAndGivesItsValues) {
    for (const std::string& text : kTexts) {
        std::string error;
        const auto e = Expression::parseWithInputs(text, error, {"x", "v"});
        ASSERT_TRUE(e) << text << ": " << error;
        EXPECT_TRUE(e->exactTangents()) << text;
        const auto tree = expr::Tree::parse(text, {"time", "x", "v"}, {});
        ASSERT_TRUE(tree) << text;
        for (const auto& p : kPoints) {
            const double expected = e->eval(0.5, p);
            const Dual variables[3] = {Dual(0.5), Dual(p[0]), Dual(p[1])};
            const double got = tree->eval(variables).a;
            if (std::isnan(expected)) {
                EXPECT_TRUE(std::isnan(got)) << text;
                continue;
            }
            EXPECT_NEAR(got, expected, 1e-13 * std::max(1.0, std::abs(expected)))
                << text << " at (" << p[0] << ", " << p[1] << ")";
        }
    }
}

TEST(ExpressionTree, ItsTangentsAreTheDerivativesOfTheValues) {
    // Central differences of muparser's values, step 1e-6: agree to ~1e-9 where the function
    // is smooth around the point (the points above keep off the kinks by more than the step).
    for (const std::string& text : kTexts) {
        std::string error;
        const auto e = Expression::parseWithInputs(text, error, {"x", "v"});
        ASSERT_TRUE(e) << text << ": " << error;
        for (const auto& p : kPoints) {
            const double direction[2] = {0.6, -0.8};
            const double h = 1e-6;
            const double plus[2] = {p[0] + h * direction[0], p[1] + h * direction[1]};
            const double minus[2] = {p[0] - h * direction[0], p[1] - h * direction[1]};
            const double expected = (e->eval(0.5, plus) - e->eval(0.5, minus)) / (2 * h);
            if (std::isnan(e->eval(0.5, p))) continue;  // x^3^0.5 for x < 0
            const double got = e->inputTangent(0.5, p, direction);
            EXPECT_NEAR(got, expected, 2e-6 * std::max(1.0, std::abs(expected)))
                << text << " at (" << p[0] << ", " << p[1] << ")";
        }
    }
}

TEST(ExpressionTree, ExactWhereDifferencesAreNot) {
    // d/dx of x^7 at x = 1.1: 7 x^6, to the last bits (differences lose half the digits).
    std::string error;
    const auto e = Expression::parseWithInputs("x^7 + 0*v", error, {"x", "v"});
    ASSERT_TRUE(e) << error;
    const double in[2] = {1.1, 0.0}, along[2] = {1.0, 0.0};
    EXPECT_NEAR(e->inputTangent(0.0, in, along), 7.0 * std::pow(1.1, 6), 1e-14 * 7 * 1.8);
    // A design constant reads as pi does; time is held.
    const auto c = Expression::parseWithConstants("k*x*time", error, {{"k", 3.0}}, {"x"});
    ASSERT_TRUE(c) << error;
    const double x[1] = {2.0}, one[1] = {1.0};
    EXPECT_DOUBLE_EQ(c->inputTangent(0.25, x, one), 0.75);
    // derivativeTangent: ∂/∂x of ∂/∂t (x·time²) = 2 time.
    const auto d = Expression::parseWithInputs("x*time^2", error, {"x"});
    ASSERT_TRUE(d) << error;
    EXPECT_NEAR(d->derivativeTangent(0.5, x, one), 1.0, 1e-9);
}

TEST(ExpressionTree, AControlCharacterIsRefusedAsMuparserWouldSkipIt) {
    // (the expression fuzzer's find: muparser read "pi*x + _pi*v" and stopped at a NUL)
    std::string error;
    EXPECT_FALSE(Expression::parseWithInputs(std::string("x + v\0+ 5", 9), error, {"x", "v"}));
    EXPECT_EQ(error, "a control character (code 0) at position 5: an expression is text");
    EXPECT_FALSE(Expression::parse("time\x01+1", error));
    EXPECT_TRUE(Expression::parse("time\t+\n1", error)) << error;
}

TEST(ExpressionTree, RefusesWhatIsNotTheLanguage) {
    for (const char* text : {"x +", "(x", "x)", "sin(x, v)", "foo(x)", "y", "x v", "1..2",
                             "step(x, 1, 2)", "x ? 1", ""})
        EXPECT_FALSE(expr::Tree::parse(text, {"time", "x", "v"}, {})) << text;
}

}  // namespace
}  // namespace engine
