#include "engine/expr/expression.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <utility>

#include <muParser.h>

#include "engine/math/constants.h"

namespace engine {
namespace {

double degrees(double value) {
    return degToRad(value);
}

double cubicStep(double x, double x0, double h0, double x1, double h1) {
    if (x <= x0) return h0;
    if (x >= x1) return h1;
    const double s = (x - x0) / (x1 - x0);
    return h0 + (h1 - h0) * s * s * (3.0 - 2.0 * s);
}

double quinticStep(double x, double x0, double h0, double x1, double h1) {
    if (x <= x0) return h0;
    if (x >= x1) return h1;
    const double s = (x - x0) / (x1 - x0);
    return h0 + (h1 - h0) * s * s * s * (10.0 - 15.0 * s + 6.0 * s * s);
}

double ramp(double x, double x0, double x1, double h0, double h1) {
    if (x <= x0) return h0;
    if (x >= x1) return h1;
    return h0 + (h1 - h0) * (x - x0) / (x1 - x0);
}

double harmonic(double x, double amplitude, double frequency, double phase) {
    return amplitude * std::sin(2.0 * kPi * frequency * x + phase);
}

// table(x, x0, y0, x1, y1, ...): args[0] = x, then pairs.
double table(const double* args, int count) {
    if (count < 3 || (count - 1) % 2 != 0)
        throw mu::ParserError("table(x, x0, y0, x1, y1, ...) needs x and pairs of points");
    const double x = args[0];
    const int points = (count - 1) / 2;
    auto px = [&](int k) { return args[1 + 2 * k]; };
    auto py = [&](int k) { return args[2 + 2 * k]; };
    for (int k = 1; k < points; ++k)
        if (!(px(k) > px(k - 1)))
            throw mu::ParserError("table(): the x values must be strictly ascending");
    if (x <= px(0)) return py(0);
    if (x >= px(points - 1)) return py(points - 1);
    int k = 1;
    while (px(k) < x) ++k;
    const double s = (x - px(k - 1)) / (px(k) - px(k - 1));
    return py(k - 1) + s * (py(k) - py(k - 1));
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
    mu::Parser parser;

    double evalLocked(double t) const {
        time = t;
        return parser.Eval();
    }
};

Expression::Expression() : impl_(std::make_shared<Impl>(std::string(1, '0'), true, 0.0)) {}

Expression Expression::constant(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);
    Expression e;
    e.impl_ = std::make_shared<Impl>(std::string(text), true, value);
    return e;
}

std::optional<Expression> Expression::parse(const std::string& text, std::string& error) {
    Expression e;
    e.impl_ = std::make_shared<Impl>(text, false, 0.0);
    Impl& impl = *e.impl_;
    try {
        mu::Parser& p = impl.parser;
        p.DefineVar("time", &impl.time);
        p.DefineConst("pi", kPi);
        p.DefinePostfixOprt("d", degrees);
        p.DefineFun("step", cubicStep);
        p.DefineFun("step5", quinticStep);
        p.DefineFun("ramp", ramp);
        p.DefineFun("harmonic", harmonic);
        p.DefineFun("table", table);
        p.SetExpr(text);
        // Evaluate once: muparser reports syntax errors lazily, and a constant expression is
        // recognised so it costs nothing later.
        const double value = impl.evalLocked(0.0);
        const mu::varmap_type used = p.GetUsedVar();
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
    if (impl_->constant) return impl_->constantValue;
    std::lock_guard<std::mutex> lock(impl_->mutex);
    try {
        return impl_->evalLocked(t);
    } catch (const mu::Parser::exception_type&) {
        return std::nan("");  // reported by the caller as a non-finite value
    }
}

// Five-point central differences (fourth order) with h = 1e-3 s (scaled with |t|).
double Expression::derivative(double t) const {
    if (impl_->constant) return 0.0;
    const double h = 1e-3 * std::max(1.0, std::abs(t));
    if (t >= 0.0 && t < 2.0 * h)  // forward, fourth order: nothing before time 0
        return (-25.0 * eval(t) + 48.0 * eval(t + h) - 36.0 * eval(t + 2 * h) +
                16.0 * eval(t + 3 * h) - 3.0 * eval(t + 4 * h)) /
               (12.0 * h);
    return (eval(t - 2 * h) - 8.0 * eval(t - h) + 8.0 * eval(t + h) - eval(t + 2 * h)) / (12.0 * h);
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

const std::string& Expression::text() const {
    return impl_->text;
}
bool Expression::isConstant() const {
    return impl_->constant;
}

}  // namespace engine
