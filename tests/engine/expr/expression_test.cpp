#include "engine/expr/expression.h"

#include "engine/math/spatial.h"

#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace engine {
namespace {

Expression parsed(const std::string& text) {
    std::string error;
    auto e = Expression::parse(text, error);
    EXPECT_TRUE(e.has_value()) << text << ": " << error;
    return e ? *e : Expression();
}

TEST(Expression, EvaluatesFunctionsOfTimeWithDegrees) {
    const Expression e = parsed("30d*sin(2*pi*time)");
    EXPECT_FALSE(e.isConstant());
    EXPECT_NEAR(e.eval(0.25), 30.0 * kPi / 180.0, 1e-15);
    EXPECT_NEAR(e.eval(0.0), 0.0, 1e-15);
    // d/dt = 30° · 2π cos(2π t), d²/dt² = −30° · 4π² sin(2π t): to about 1e-9 relative.
    EXPECT_NEAR(e.derivative(0.1), kPi / 6 * 2 * kPi * std::cos(0.2 * kPi), 3e-9);
    EXPECT_NEAR(e.secondDerivative(0.1), -kPi / 6 * 4 * kPi * kPi * std::sin(0.2 * kPi), 3e-8);
}

TEST(Expression, ConstantsAreRecognised) {
    const Expression e = parsed("2*pi");
    EXPECT_TRUE(e.isConstant());
    EXPECT_DOUBLE_EQ(e.eval(123.0), 2 * kPi);
    EXPECT_EQ(e.derivative(1.0), 0.0);
    EXPECT_EQ(Expression::constant(4.5).eval(0.0), 4.5);
    EXPECT_EQ(Expression().eval(1.0), 0.0);
}

// && and || take their operands by value, whether they are constants or read the time: a part
// of an expression that happens to be constant gives what it gives with a variable there
// (muparser's optimiser alone folds constants as integers: "0.5 || 0" would be 0).
TEST(Expression, LogicalOperatorsReadValuesConstantOrNot) {
    EXPECT_EQ(parsed("0.5 || 0").eval(0.0), 1.0);
    EXPECT_EQ(parsed("(0.2 + 0.3) || 0").eval(0.0), 1.0);
    EXPECT_EQ(parsed("1.7 && 0.4").eval(0.0), 1.0);
    EXPECT_EQ(parsed("0*time^0 || 5e-8").eval(0.3), 1.0);
    EXPECT_EQ(parsed("time || 0").eval(0.5), 1.0);
    EXPECT_EQ(parsed("time && 0").eval(0.5), 0.0);
    EXPECT_EQ(parsed("0 || 0").eval(0.5), 0.0);
    EXPECT_EQ(parsed("(time > 1 || 0.5) * 3").eval(0.0), 3.0);
}

TEST(Expression, CubicStepIsSmoothAndHitsItsEnds) {
    const Expression e = parsed("step(time, 1, 0, 2, 90d)");
    EXPECT_EQ(e.eval(0.5), 0.0);
    EXPECT_NEAR(e.eval(1.5), kPi / 4, 1e-15);  // half-way
    EXPECT_NEAR(e.eval(3.0), kPi / 2, 1e-15);
    EXPECT_NEAR(e.derivative(1.0 + 1e-3), 0.0, 1e-2);     // starts with zero slope (C1)
    EXPECT_NEAR(e.derivative(1.5), 1.5 * kPi / 2, 1e-7);  // peak slope 3/2 (h1 − h0)/(x1 − x0)
}

TEST(Expression, DerivativesAtTheStartDoNotLookBeforeIt) {
    // A ramp from rest at 0 has slope 10 from 0 on; the cusp of |time| is not seen either.
    const Expression ramp = parsed("ramp(time, 0, 2, 0, 20)");
    EXPECT_NEAR(ramp.derivative(0.0), 10.0, 1e-9);
    EXPECT_NEAR(ramp.derivative(1e-3), 10.0, 1e-9);
    EXPECT_NEAR(ramp.secondDerivative(0.0), 0.0, 1e-6);
    EXPECT_NEAR(parsed("abs(time)^3").secondDerivative(0.0), 0.0, 1e-5);
    // Smooth functions keep their accuracy there (fourth- and third-order stencils).
    const Expression wave = parsed("sin(2*pi*time)");
    EXPECT_NEAR(wave.derivative(0.0), 2.0 * kPi, 1e-8);
    EXPECT_NEAR(wave.derivative(1.5e-3), 2.0 * kPi * std::cos(2.0 * kPi * 1.5e-3), 1e-8);
    EXPECT_NEAR(wave.secondDerivative(1e-3), -4.0 * kPi * kPi * std::sin(2.0 * kPi * 1e-3), 1e-4);
}

TEST(Expression, RampHarmonicAndTable) {
    EXPECT_NEAR(parsed("ramp(time, 0, 2, 1, 5)").eval(0.5), 2.0, 1e-15);
    EXPECT_NEAR(parsed("harmonic(time, 3, 0.5, 0)").eval(0.5), 3.0 * std::sin(kPi / 2), 1e-15);
    const Expression table = parsed("table(time, 0, 0, 1, 10, 3, 4)");
    EXPECT_NEAR(table.eval(0.5), 5.0, 1e-15);
    EXPECT_NEAR(table.eval(2.0), 7.0, 1e-15);
    EXPECT_NEAR(table.eval(-1.0), 0.0, 1e-15);
    EXPECT_NEAR(table.eval(9.0), 4.0, 1e-15);
    EXPECT_NEAR(parsed("step5(time, 0, 0, 1, 1)").eval(0.5), 0.5, 1e-15);
}

TEST(Expression, ReportsSyntaxErrorsAndUnknownNames) {
    std::string error;
    EXPECT_FALSE(Expression::parse("sin(tme)", error));
    EXPECT_NE(error.find("tme"), std::string::npos) << error;
    EXPECT_FALSE(Expression::parse("1 +", error));
    EXPECT_FALSE(error.empty());
    EXPECT_FALSE(Expression::parse("table(time, 1, 0, 0, 1)", error));  // x not ascending
}

TEST(Expression, RefusesACommaOutsideAFunctionAsADecimalComma) {
    // muparser separates expressions with a comma and gives the last: "0,5" would be 5.
    std::string error;
    EXPECT_FALSE(Expression::parse("0,5", error));
    EXPECT_NE(error.find("a decimal comma? write 0.5"), std::string::npos) << error;
    EXPECT_FALSE(Expression::parse("30d*sin(2*pi*time) + 1,25", error));
    EXPECT_NE(error.find("write 1.25"), std::string::npos) << error;
    EXPECT_FALSE(Expression::parse("2*(0,5)", error));  // parentheses that call nothing
    EXPECT_NE(error.find("write 0.5"), std::string::npos) << error;
    // Between a function's parentheses a comma separates its arguments.
    EXPECT_NEAR(parsed("step(time, 0, 0, 1, 2)").eval(0.5), 1.0, 1e-15);
    EXPECT_NEAR(parsed("min(time, max(2, 3)) + atan2(1, 1)").eval(0.5), 0.5 + kPi / 4, 1e-15);
}

TEST(Expression, RefusesAssignmentsAndSaysHowToCompare) {
    // muparser's '=' assigns: "time=5" is 5 (and moves the time it is evaluated at).
    std::string error;
    for (const char* text : {"time=5", "time = 5", "time+=1", "time-=1", "time*=2", "time/=2"}) {
        EXPECT_FALSE(Expression::parse(text, error)) << text;
        EXPECT_NE(error.find("assigns; compare with '=='"), std::string::npos) << error;
    }
    EXPECT_FALSE(Expression::parse("time+=1", error));
    EXPECT_NE(error.find("'+=' at position 4"), std::string::npos) << error;
    // Comparisons stay.
    EXPECT_EQ(parsed("time == 1").eval(1.0), 1.0);
    EXPECT_EQ(parsed("time != 1").eval(1.0), 0.0);
    EXPECT_EQ(parsed("time >= 1 ? 2 : 3").eval(1.0), 2.0);
    EXPECT_EQ(parsed("time <= 1 ? 2 : 3").eval(1.5), 3.0);
}

TEST(Expression, ANotANumberMadeInsideIsNotHidden) {
    // muparser's sign(NaN) is 0, its min(1, NaN) 1, and a comparison with NaN is 0.
    for (const char* text : {"sign(sqrt(-1))", "min(1, sqrt(-1))", "max(1, ln(-1))", "sqrt(-1) > 0",
                             "asin(2) ? 1 : 2", "sign(sqrt(1 - time))"})
        EXPECT_TRUE(std::isnan(parsed(text).eval(2.0))) << text;
    // Later in a run too, and only where it is made.
    const Expression e = parsed("sign(sqrt(1 - time)) + (sqrt(1 - time) > 0)");
    EXPECT_EQ(e.eval(0.5), 2.0);
    EXPECT_TRUE(std::isnan(e.eval(2.0)));
    EXPECT_EQ(e.eval(0.5), 2.0);
    // A branch not taken makes nothing; taken, it does (even where its parts are constants).
    EXPECT_EQ(parsed("time < 1 ? sqrt(1 - time) : 0").eval(2.0), 0.0);
    const Expression branch = parsed("time < 1 ? 0 : sqrt(-1) > 0");
    EXPECT_EQ(branch.eval(0.5), 0.0);
    EXPECT_TRUE(std::isnan(branch.eval(2.0)));
    EXPECT_EQ(parsed("sign(time - 1)").eval(0.5), -1.0);
    EXPECT_EQ(parsed("min(3, 1, 2) + max(3, 1, 2)").eval(0.0), 4.0);
}

TEST(Expression, ManyThreadsCanEvaluateOneExpression) {
    const Expression e = parsed("time*time");
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int k = 0; k < 4; ++k)
        threads.emplace_back([&, k] {
            for (int i = 0; i < 2000; ++i) {
                const double t = k + i * 1e-3;
                if (e.eval(t) != t * t) ++wrong;
            }
        });
    for (auto& t : threads) t.join();
    EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace engine
