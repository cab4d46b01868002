#include "engine/expr/expression.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>
#include <utility>
#include <vector>

#include <muParser.h>

#include "engine/expr/expression_tree.h"
#include "engine/expr/functions.h"
#include "engine/math/constants.h"
#include "engine/math/number_text.h"
#include "engine/math/table_curve.h"

namespace engine {
namespace {

double degrees(double value) {
    return degToRad(value);
}

// The mechanism functions (engine/expr/functions.h) for muparser: its errors for theirs.
template <class F>
auto reported(F f) {
    try {
        return f();
    } catch (const expr::FunctionError& e) {
        throw mu::ParserError(e.what());
    }
}
double cubicStep(double x, double x0, double h0, double x1, double h1) {
    return expr::cubicStep(x, x0, h0, x1, h1);
}
double quinticStep(double x, double x0, double h0, double x1, double h1) {
    return expr::quinticStep(x, x0, h0, x1, h1);
}
double ramp(double x, double x0, double x1, double h0, double h1) {
    return expr::ramp(x, x0, x1, h0, h1);
}
double harmonic(double x, double amplitude, double frequency, double phase) {
    return expr::harmonic(x, amplitude, frequency, phase);
}
// A scene's table called by its name: the user data is the curve.
double lookUp(void* curve, double x) {
    return static_cast<const TableCurve*>(curve)->value(x);
}

double table(const double* args, int count) {
    return reported([&] { return expr::table(args, count); });
}
double haversine(double x, double x0, double h0, double x1, double h1) {
    return expr::haversine(x, x0, h0, x1, h1);
}
double choose(double condition, double a, double b) {
    if (std::isnan(condition)) return condition;
    return condition != 0.0 ? a : b;
}
double clamp(double x, double lo, double hi) {
    return reported([&] { return expr::clamp(x, lo, hi); });
}
double impact(double x, double xd, double x1, double k, double e, double cmax, double d) {
    return reported([&] { return expr::impact(x, xd, x1, k, e, cmax, d); });
}
double bistop(const double* args, int count) {
    return reported([&] { return expr::bistop(args, count); });
}

// Set by the functions below when one turns numbers into a value that is not a number
// (sqrt(-1), ln(-1), asin(2)): a comparison or a condition would otherwise hide it
// (sqrt(-1) > 0 is 0), so an evaluation that raised it gives NaN whatever its result.
thread_local bool madeNotANumber = false;

double noted(double value) {
    if (std::isnan(value)) madeNotANumber = true;
    return value;
}

// muparser's own functions, each passing a NaN on (muparser's sign(NaN) is 0 and its
// min(1, NaN) is 1) and noting one it makes.
template <double (*f)(double)>
double checked(double x) {
    return std::isnan(x) ? x : noted(f(x));
}
double sign(double x) {
    return std::isnan(x) ? x : static_cast<double>((x > 0.0) - (x < 0.0));
}
double minimum(const double* args, int count) {
    if (count < 1) throw mu::ParserError("min() needs at least one value");
    double out = args[0];
    for (int k = 0; k < count; ++k) {
        if (std::isnan(args[k])) return args[k];
        out = std::min(out, args[k]);
    }
    return out;
}
double maximum(const double* args, int count) {
    if (count < 1) throw mu::ParserError("max() needs at least one value");
    double out = args[0];
    for (int k = 0; k < count; ++k) {
        if (std::isnan(args[k])) return args[k];
        out = std::max(out, args[k]);
    }
    return out;
}

// What muparser reads without complaint but not as a user means it, as the reason to refuse
// it; empty when there is none.
//  - A control character (but tab and line ends): muparser skips it, or ends the text at a NUL.
//  - A comma outside a function's parentheses separates expressions, and muparser gives the
//    last one's value: "0,5" (a decimal comma) is 5.
//  - '=' assigns to the variable on its left and gives the value: "time=5" is 5 (and sets
//    the time); muparser has no '+=', '-=', '*=' or '/=', which are refused the same way.
// Positions count from 0, as muparser's own messages do.
std::string misreading(const std::string& text) {
    auto isName = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    std::vector<bool> functionCall;  // per open parenthesis: it holds a function's arguments
    for (std::size_t k = 0; k < text.size(); ++k) {
        const char c = text[k];
        // muparser skips control characters, or stops at a NUL, reading what was not meant.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r')
            return "a control character (code " + std::to_string(static_cast<int>(c)) +
                   ") at position " + std::to_string(k) + ": an expression is text";
        if (c == '(') {
            std::size_t before = k;
            while (before > 0 && std::isspace(static_cast<unsigned char>(text[before - 1])))
                --before;
            std::size_t start = before;
            while (start > 0 && isName(text[start - 1])) --start;
            functionCall.push_back(start < before &&
                                   !std::isdigit(static_cast<unsigned char>(text[start])));
        } else if (c == ')') {
            if (!functionCall.empty()) functionCall.pop_back();
        } else if (c == ',' && (functionCall.empty() || !functionCall.back())) {
            // The number the comma may sit in: digits on both sides.
            std::size_t start = k, end = k + 1;
            while (start > 0 && std::isdigit(static_cast<unsigned char>(text[start - 1]))) --start;
            while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
            const std::string suggestion =
                start < k && end > k + 1
                    ? text.substr(start, k - start) + "." + text.substr(k + 1, end - k - 1)
                    : std::string("a decimal point");
            return "a decimal comma? write " + suggestion + " (',' at position " +
                   std::to_string(k) +
                   " is outside a function's parentheses, where only the value after it would "
                   "count)";
        } else if (c == '=') {
            const char previous = k > 0 ? text[k - 1] : ' ';
            const char next = k + 1 < text.size() ? text[k + 1] : ' ';
            if (next == '=' || previous == '=' || previous == '<' || previous == '>' ||
                previous == '!')
                continue;
            const bool compound =
                previous == '+' || previous == '-' || previous == '*' || previous == '/';
            const std::string op = compound ? std::string{previous, '='} : std::string("=");
            return "'" + op + "' at position " + std::to_string(compound ? k - 1 : k) +
                   " assigns; compare with '=='";
        }
    }
    return {};
}

}  // namespace

struct Expression::Impl {
    Impl(std::string text_, bool constant_, double value_)
        : text(std::move(text_)), constant(constant_), constantValue(value_) {}
    std::string text;
    bool constant = false;
    double constantValue = 0.0;
    mutable std::mutex mutex;  // muparser evaluates through the bound variable
    mutable double time = 0.0;
    mutable double second = 0.0;         // a function of two variables' second one
    mutable std::vector<double> inputs;  // parseWithInputs: sized once (muparser keeps pointers)
    std::vector<bool> usedInputs;
    bool usedTime = false;
    // A parsed expression's (a constant has none: muparser's set-up of its functions costs more
    // than most evaluations, and constants are made as runs go: held variables, switches).
    std::unique_ptr<mu::Parser> parser;
    std::unique_ptr<expr::Tree> tree;  // its variables: time (or the first), then the inputs
    std::vector<std::shared_ptr<const TableCurve>> tables;  // the tables it may call

    // The tree's value and tangent; central differences of muparser's where there is none.
    Dual tangent(double t, const double* in, const double* dir) const {
        const std::size_t n = inputs.size();
        if (tree) {
            Dual buffer[17];
            std::vector<Dual> more;
            Dual* variables = buffer;
            if (n + 1 > 17) {
                more.resize(n + 1);
                variables = more.data();
            }
            variables[0] = Dual(t);
            for (std::size_t k = 0; k < n; ++k) variables[k + 1] = Dual(in[k], dir[k]);
            return tree->eval(variables);
        }
        double scale = 0.0;
        for (std::size_t k = 0; k < n; ++k) scale = std::max(scale, std::abs(in[k]));
        const double h = 1e-6 * std::max(1.0, scale);
        std::vector<double> plus(in, in + n), minus(in, in + n);
        for (std::size_t k = 0; k < n; ++k) {
            plus[k] += h * dir[k];
            minus[k] -= h * dir[k];
        }
        std::lock_guard<std::mutex> lock(mutex);
        try {
            const double value = evalLocked(t, 0.0, in);
            return Dual(
                value,
                (evalLocked(t, 0.0, plus.data()) - evalLocked(t, 0.0, minus.data())) / (2.0 * h));
        } catch (const mu::Parser::exception_type&) {
            return Dual(std::nan(""), std::nan(""));
        }
    }

    double evalLocked(double t, double u = 0.0, const double* in = nullptr) const {
        time = t;
        second = u;
        for (std::size_t k = 0; k < inputs.size(); ++k) inputs[k] = in ? in[k] : 0.0;
        madeNotANumber = false;
        const double value = parser->Eval();
        return madeNotANumber ? std::nan("") : value;
    }
};

Expression::Expression() : impl_(std::make_shared<Impl>(std::string(1, '0'), true, 0.0)) {}

Expression Expression::constant(double value) {
    Expression e;
    e.impl_ = std::make_shared<Impl>(numberText(value, 17), true, value);
    return e;
}

std::optional<Expression> Expression::parse(const std::string& text, std::string& error) {
    return parse(text, error, {"time"});
}

std::optional<Expression> Expression::parse(const std::string& text, std::string& error,
                                            std::initializer_list<const char*> variables) {
    return parseWith(text, error, std::vector<const char*>(variables), {});
}

std::optional<Expression> Expression::parse(const std::string& text, std::string& error,
                                            std::initializer_list<const char*> variables,
                                            const Tables& tables) {
    return parseWith(text, error, std::vector<const char*>(variables), {}, {}, tables);
}

std::optional<Expression> Expression::parseWithInputs(const std::string& text, std::string& error,
                                                      const std::vector<std::string>& inputs) {
    return parseWith(text, error, {"time"}, inputs);
}

std::optional<Expression> Expression::parseWithConstants(const std::string& text,
                                                         std::string& error,
                                                         const Constants& constants,
                                                         const std::vector<std::string>& inputs,
                                                         const Tables& tables) {
    return parseWith(text, error, {"time"}, inputs, constants, tables);
}

std::optional<Expression> Expression::parseWith(const std::string& text, std::string& error,
                                                const std::vector<const char*>& variables,
                                                const std::vector<std::string>& inputs,
                                                const Constants& constants, const Tables& tables) {
    Expression e;
    e.impl_ = std::make_shared<Impl>(text, false, 0.0);
    Impl& impl = *e.impl_;
    if (std::string reason = misreading(text); !reason.empty()) {
        error = std::move(reason);
        return std::nullopt;
    }
    try {
        impl.parser = std::make_unique<mu::Parser>();
        mu::Parser& p = *impl.parser;
        double* slots[] = {&impl.time, &impl.second};
        int slot = 0;
        for (const char* name : variables)
            if (slot < 2) p.DefineVar(name, slots[slot++]);
        impl.inputs.assign(inputs.size(), 0.0);
        for (std::size_t k = 0; k < inputs.size(); ++k) p.DefineVar(inputs[k], &impl.inputs[k]);
        // muparser's functions that may make or hide a NaN, replaced (same names, same values
        // otherwise): see `checked`.
        p.DefineFun("sin", checked<static_cast<double (*)(double)>(std::sin)>);
        p.DefineFun("cos", checked<static_cast<double (*)(double)>(std::cos)>);
        p.DefineFun("tan", checked<static_cast<double (*)(double)>(std::tan)>);
        p.DefineFun("asin", checked<static_cast<double (*)(double)>(std::asin)>);
        p.DefineFun("acos", checked<static_cast<double (*)(double)>(std::acos)>);
        p.DefineFun("acosh", checked<static_cast<double (*)(double)>(std::acosh)>);
        p.DefineFun("atanh", checked<static_cast<double (*)(double)>(std::atanh)>);
        p.DefineFun("sqrt", checked<static_cast<double (*)(double)>(std::sqrt)>);
        p.DefineFun("ln", checked<static_cast<double (*)(double)>(std::log)>);
        p.DefineFun("log", checked<static_cast<double (*)(double)>(std::log)>);
        p.DefineFun("log2", checked<static_cast<double (*)(double)>(std::log2)>);
        p.DefineFun("log10", checked<static_cast<double (*)(double)>(std::log10)>);
        p.DefineFun("sign", sign);
        p.DefineFun("min", minimum);
        p.DefineFun("max", maximum);
        p.DefineConst("pi", kPi);
        p.DefineConst("_pi", kPi);  // muparser's own is 3.141592653589
        for (const auto& [name, value] : constants) p.DefineConst(name, value);
        p.DefinePostfixOprt("d", degrees);
        p.DefineFun("step", cubicStep);
        p.DefineFun("step5", quinticStep);
        p.DefineFun("ramp", ramp);
        p.DefineFun("harmonic", harmonic);
        p.DefineFun("table", table);
        p.DefineFun("haversine", haversine);
        p.DefineFun("if", choose);
        p.DefineFun("clamp", clamp);
        p.DefineFun("impact", impact);
        p.DefineFun("bistop", bistop);
        for (const auto& [name, curve] : tables) {
            impl.tables.push_back(curve);  // kept alive with the parser that calls it
            p.DefineFunUserData(name, lookUp, const_cast<TableCurve*>(curve.get()));
        }
        // muparser's optimiser folds a constant `a && b` or `a || b` as integers ((int) 0.5 is
        // false) while it evaluates one of variables as numbers (0.5 is true): "0.5 || 0" would
        // be 0 and "x || 0" at x = 0.5 would be 1. Unfolded, every operand is a number, as the
        // expression's syntax tree reads it (expression_tree.h).
        if (text.find("&&") != std::string::npos || text.find("||") != std::string::npos)
            p.EnableOptimizer(false);
        p.SetExpr(text);
        // muparser compiles on the first evaluation and folds the constant parts then, calling
        // the functions once: one that makes a NaN there (a branch "time < 1 ? 0 : sqrt(-1)"
        // not taken yet) is compiled unfolded, so that it is made, and seen, where it is taken.
        madeNotANumber = false;
        p.Eval();
        if (madeNotANumber) {
            p.EnableOptimizer(false);
            p.SetExpr(text);
        }
        // Evaluate once: muparser reports syntax errors lazily, and a constant expression is
        // recognised so it costs nothing later.
        const double value = impl.evalLocked(0.0);
        const mu::varmap_type used = p.GetUsedVar();
        impl.usedInputs.assign(inputs.size(), false);
        for (std::size_t k = 0; k < inputs.size(); ++k)
            impl.usedInputs[k] = used.count(inputs[k]) > 0;
        impl.usedTime = used.count("time") > 0;
        std::vector<std::string> treeVariables;
        if (!variables.empty()) treeVariables.emplace_back(variables[0]);
        treeVariables.insert(treeVariables.end(), inputs.begin(), inputs.end());
        if (variables.size() <= 1)
            impl.tree = expr::Tree::parse(text, treeVariables, constants, tables);
        if (used.empty()) {
            impl.constant = true;
            impl.constantValue = value;
        }
    } catch (const mu::Parser::exception_type& ex) {
        error = ex.GetMsg();
        return std::nullopt;
    }
    return e;
}

double Expression::eval(double t) const {
    return eval(t, 0.0);
}

double Expression::eval(double first, double second) const {
    if (impl_->constant) return impl_->constantValue;
    std::lock_guard<std::mutex> lock(impl_->mutex);
    try {
        return impl_->evalLocked(first, second);
    } catch (const mu::Parser::exception_type&) {
        return std::nan("");  // reported by the caller as a non-finite value
    }
}

double Expression::eval(double time, const double* inputs) const {
    if (impl_->constant) return impl_->constantValue;
    std::lock_guard<std::mutex> lock(impl_->mutex);
    try {
        return impl_->evalLocked(time, 0.0, inputs);
    } catch (const mu::Parser::exception_type&) {
        return std::nan("");
    }
}

bool Expression::usesInput(int k) const {
    return k >= 0 && static_cast<std::size_t>(k) < impl_->usedInputs.size() &&
           impl_->usedInputs[static_cast<std::size_t>(k)];
}

bool Expression::usesTime() const {
    return impl_->usedTime;
}

int Expression::inputCount() const {
    return static_cast<int>(impl_->inputs.size());
}

// Five-point central differences (fourth order) with h = 1e-3 s (scaled with |t|).
double Expression::derivative(double t) const {
    return derivative(t, nullptr);
}

namespace {
// The five-point rate of f at t (Expression::derivative).
template <class F>
double fivePoint(const F& f, double t) {
    const double h = 1e-3 * std::max(1.0, std::abs(t));
    if (t >= 0.0 && t < 2.0 * h)  // forward, fourth order: nothing before time 0
        return (-25.0 * f(t) + 48.0 * f(t + h) - 36.0 * f(t + 2 * h) + 16.0 * f(t + 3 * h) -
                3.0 * f(t + 4 * h)) /
               (12.0 * h);
    return (f(t - 2 * h) - 8.0 * f(t - h) + 8.0 * f(t + h) - f(t + 2 * h)) / (12.0 * h);
}
}  // namespace

double Expression::derivative(double t, const double* inputs) const {
    if (impl_->constant) return 0.0;
    return fivePoint([&](double time) { return inputs ? eval(time, inputs) : eval(time); }, t);
}

double Expression::secondDerivative(double t) const {
    if (impl_->constant) return 0.0;
    const double h = 1e-3 * std::max(1.0, std::abs(t));
    if (t >= 0.0 && t < 2.0 * h)  // forward, third order
        return (35.0 * eval(t) - 104.0 * eval(t + h) + 114.0 * eval(t + 2 * h) -
                56.0 * eval(t + 3 * h) + 11.0 * eval(t + 4 * h)) /
               (12.0 * h * h);
    return (-eval(t - 2 * h) + 16.0 * eval(t - h) - 30.0 * eval(t) + 16.0 * eval(t + h) -
            eval(t + 2 * h)) /
           (12.0 * h * h);
}

double Expression::inputTangent(double t, const double* inputs, const double* tangents,
                                double* value) const {
    if (impl_->constant || impl_->inputs.empty()) {
        if (value) *value = eval(t, inputs);
        return 0.0;
    }
    const Dual d = impl_->tangent(t, inputs, tangents);
    if (value) *value = d.a;
    return d.b;
}

// derivative(t, inputs), each of its points differentiated along the direction.
double Expression::derivativeTangent(double t, const double* inputs, const double* tangents) const {
    if (impl_->constant || impl_->inputs.empty()) return 0.0;
    return fivePoint([&](double time) { return impl_->tangent(time, inputs, tangents).b; }, t);
}

Jet2 Expression::timeJet(double t) const {
    if (impl_->constant) return Jet2(impl_->constantValue);
    if (impl_->tree) {
        std::vector<Jet2> variables(impl_->inputs.size() + 1);
        variables[0] = Jet2(t, 1.0, 0.0);
        return impl_->tree->eval(variables.data());
    }
    return {eval(t), derivative(t), secondDerivative(t)};
}

bool Expression::exactTangents() const {
    return impl_->constant || impl_->tree != nullptr;
}

const std::string& Expression::text() const {
    return impl_->text;
}
void Expression::setText(std::string text) {
    impl_->text = std::move(text);  // (called on a fresh expression, before it is shared)
}
bool Expression::isConstant() const {
    return impl_->constant;
}

}  // namespace engine
