#pragma once
// Functions of time written by users, e.g. "30d*sin(2*pi*time)" or "step(time, 0, 0, 1, 90d)".
// Parsed once by muparser; evaluation is thread-safe (an Expression can be shared inside an
// immutable Model).
//
// Language: numbers, + − * / ^, parentheses, the variable `time` [s], the constant `pi`,
// the postfix `d` (degrees to radians: 90d = π/2), muparser's functions (sin, cos, tan, asin,
// acos, atan, atan2, sinh, cosh, tanh, exp, ln, log10, sqrt, abs, sign, min, max, sum, avg,
// the ternary `a ? b : c`) and the mechanism functions
//   step(x, x0, h0, x1, h1)       cubic step from h0 at x0 to h1 at x1, C1 (as in Adams)
//   step5(x, x0, h0, x1, h1)      quintic step, C2
//   ramp(x, x0, x1, h0, h1)       linear from h0 at x0 to h1 at x1, constant outside
//   harmonic(x, a, f, phase)      a·sin(2π f x + phase)
//   table(x, x0, y0, x1, y1, ...) piecewise linear through the points (x ascending),
//                                 constant outside
// `log` is the natural logarithm, as `ln`.
//
// What muparser would read without complaint but not as meant is refused by parse(): a comma
// outside a function's parentheses (muparser gives the last of the values it separates:
// "0,5" is 5 — a decimal comma) and an assignment '=', '+=', '-=', '*=', '/=' ("time=5" is 5).
// A value that is not a number is never hidden: sign, min and max pass a NaN on (muparser's
// sign(NaN) is 0, its min(1, NaN) 1), and an evaluation in which a function makes one
// (sqrt(-1), ln(-1), asin(2)) gives NaN even when a comparison or a condition would drop it
// (sqrt(-1) > 0). A NaN made by an operator (0/0, (-1)^0.5) and then compared is not seen.

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>

namespace engine {

class Expression {
public:
    Expression();  // the constant 0
    static Expression constant(double value);

    // Parses `text`; on failure returns nullopt and sets `error` to a readable reason
    // ("unknown token 'tme' at position 4", "a decimal comma? write 0.5 (',' at position 1
    // ...)", "'=' at position 4 assigns; compare with '=='").
    static std::optional<Expression> parse(const std::string& text, std::string& error);
    // The same for a function of other variables than `time`: a curve's x(s), a surface's
    // z(u, v) (one or two names; eval() takes their values in this order).
    static std::optional<Expression> parse(const std::string& text, std::string& error,
                                           std::initializer_list<const char*> variables);

    double eval(double time) const;
    double eval(double first, double second) const;
    // Time derivatives by five-point central differences (step 1e-3 s, scaled with |time|):
    // about 1e-9 relative for smooth functions; used for drivers' Φt and Φtt. Near a kink
    // (ramp, table corners) they average over ±2 ms. Runs start at time 0, so within 2 ms
    // after it the differences are one-sided (forward, five points): what an expression says
    // before 0 never reaches a motion (a ramp starting at 0 starts with its own slope).
    double derivative(double time) const;
    double secondDerivative(double time) const;

    const std::string& text() const;
    bool isConstant() const;

private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

}  // namespace engine
