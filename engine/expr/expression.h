#pragma once
// Functions of time written by users, e.g. "30d*sin(2*pi*time)" or "step(time, 0, 0, 1, 90d)".
// Parsed once by muparser; evaluation is thread-safe (an Expression can be shared inside an
// immutable Model).
//
// Language: numbers, + − * / ^, parentheses, the variable `time` [s], the constants `pi`
// (also `_pi`) and `_e`,
// the postfix `d` (degrees to radians: 90d = π/2), muparser's functions (sin, cos, tan, asin,
// acos, atan, atan2, sinh, cosh, tanh, exp, ln, log10, sqrt, abs, sign, min, max, sum, avg,
// the ternary `a ? b : c`) and the mechanism functions
//   step(x, x0, h0, x1, h1)       cubic step from h0 at x0 to h1 at x1, C1 (as in Adams)
//   step5(x, x0, h0, x1, h1)      quintic step, C2
//   ramp(x, x0, x1, h0, h1)       linear from h0 at x0 to h1 at x1, constant outside
//   harmonic(x, a, f, phase)      a·sin(2π f x + phase)
//   table(x, x0, y0, x1, y1, ...) piecewise linear through the points (x ascending),
//                                 constant outside
//   haversine(x, x0, h0, x1, h1)  h0 + (h1 − h0)(1 − cos(π (x − x0)/(x1 − x0)))/2 between x0
//                                 and x1, constant outside (Adams' HAVSIN)
//   if(c, a, b)                   a where c ≠ 0, else b (both are evaluated)
//   clamp(x, lo, hi)              x limited to [lo, hi]
//   impact(x, xd, x1, k, e, cmax, d)  a one-sided contact force (Adams' IMPACT): 0 for x ≥ x1,
//                                 else max(0, k (x1 − x)^e − step(x, x1 − d, cmax, x1, 0) xd)
//   bistop(x, xd, x1, x2, k, e, cmax, d)  a gap between two stops (Adams' BISTOP): as impact
//                                 below x1, 0 between x1 and x2, above x2
//                                 min(0, −k (x − x2)^e − step(x, x2, 0, x2 + d, cmax) xd)
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
#include <utility>
#include <vector>

namespace engine {

struct Jet2;       // engine/math/jet.h
class TableCurve;  // engine/math/table_curve.h

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

    // The same with the scene's tables as functions of one argument (see Tables below).
    using Tables = std::vector<std::pair<std::string, std::shared_ptr<const TableCurve>>>;
    static std::optional<Expression> parse(const std::string& text, std::string& error,
                                           std::initializer_list<const char*> variables,
                                           const Tables& tables);

    // A function of `time` and of named inputs (the measures and variables of the mechanism's
    // state, engine/model/state_functions.h): eval(time, inputs) takes their values in this
    // order. An input's name is a muparser name (letters, digits, '_', not starting with a
    // digit).
    static std::optional<Expression> parseWithInputs(const std::string& text, std::string& error,
                                                     const std::vector<std::string>& inputs);
    // Named constants (a scene's design variables: name, value) read by name as `pi` is, with
    // a function of time (`inputs` empty) or of time and inputs.
    using Constants = std::vector<std::pair<std::string, double>>;
    // Tables: named tables (a scene's `tables`), each read as a function of one argument,
    // `name(x)`, the curve through its points (engine/math/table_curve.h), differentiated
    // exactly.
    static std::optional<Expression> parseWithConstants(const std::string& text, std::string& error,
                                                        const Constants& constants,
                                                        const std::vector<std::string>& inputs = {},
                                                        const Tables& tables = {});

    double eval(double time) const;  // inputs, if any, read as 0
    double eval(double first, double second) const;
    double eval(double time, const double* inputs) const;
    // Which of the inputs the expression uses (muparser's list of used variables).
    bool usesInput(int k) const;
    int inputCount() const;
    // Whether the expression reads `time` (a design variable's binding must not).
    bool usesTime() const;
    // Time derivatives by five-point central differences (step 1e-3 s, scaled with |time|):
    // about 1e-9 relative for smooth functions; used for drivers' Φt and Φtt. Near a kink
    // (ramp, table corners) they average over ±2 ms. Runs start at time 0, so within 2 ms
    // after it the differences are one-sided (forward, five points): what an expression says
    // before 0 never reaches a motion (a ramp starting at 0 starts with its own slope).
    double derivative(double time) const;
    // The partial derivative in time, the inputs held at their values.
    double derivative(double time, const double* inputs) const;
    double secondDerivative(double time) const;
    // Its value and first and second time derivatives at `time`, inputs read as 0: exact to
    // round-off, the syntax tree evaluated on second-order jets (engine/math/jet.h); the
    // differences above where the tree could not read the text (none known).
    Jet2 timeJet(double time) const;

    // Derivatives along a direction of the inputs, `time` held: Σₖ ∂f/∂inputₖ · tangents[k], of
    // eval(time, inputs) and of derivative(time, inputs) (the same five points, each
    // differentiated). Exact to round-off: the expression's own syntax tree evaluated on dual
    // numbers (engine/expr/expression_tree.h); where that tree could not read a text muparser
    // accepts (none known: the expression fuzzer compares the two), central differences.
    // (`value`, when given, receives the value the tangent goes with: the tree's, equal to
    // eval()'s up to round-off.)
    double inputTangent(double time, const double* inputs, const double* tangents,
                        double* value = nullptr) const;
    double derivativeTangent(double time, const double* inputs, const double* tangents) const;
    bool exactTangents() const;

    const std::string& text() const;
    // Shows `text` instead of what was parsed (an expression of the state shows what the user
    // wrote, not its measures' inputs).
    void setText(std::string text);
    bool isConstant() const;

private:
    static std::optional<Expression> parseWith(const std::string& text, std::string& error,
                                               const std::vector<const char*>& variables,
                                               const std::vector<std::string>& inputs,
                                               const Constants& constants = {},
                                               const Tables& tables = {});
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

}  // namespace engine
