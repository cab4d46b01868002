// libFuzzer target for the expression language: any text must be read without a crash, a hang
// or undefined behaviour; and every text muparser accepts (as a function of time and two
// inputs x and v, with a scene's table `lut` to call) must be read by the expression's own syntax tree too, which must give the
// same values (its derivatives are the implicit integrators' Jacobians,
// engine/expr/expression_tree.h). Values where either side is not a number are left out (the
// language makes a NaN from a function's domain whatever a comparison does with it after), and so
// are evaluations that went through an infinity or a NaN on the way (an overflow, an invalid
// operation, a division by zero): muparser's bytecode regroups products and sums, so 1·x·∞ may
// come out of it as NaN where the tree gives −∞, and a comparison then turns the two into 0 and 1.

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/expr/expression.h"
#include "engine/expr/expression_tree.h"
#include "engine/math/table_curve.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 4096) return 0;
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::string error;
    static const engine::Expression::Tables tables = [] {
        std::string ignored;
        return engine::Expression::Tables{
            {"lut", std::make_shared<const engine::TableCurve>(*engine::TableCurve::make(
                        engine::TableInterpolation::Akima, {-1.0, 0.0, 0.5, 2.0},
                        {3.0, 0.0, 0.25, -1.0}, ignored))}};
    }();
    const auto e = engine::Expression::parseWithConstants(text, error, {}, {"x", "v"}, tables);
    if (!e) return 0;
    const auto tree = engine::expr::Tree::parse(text, {"time", "x", "v"}, {}, tables);
    if (!tree) {
        std::fprintf(stderr, "muparser reads '%s', the tree does not\n", text.c_str());
        std::abort();
    }
    const double points[][3] = {{0.0, 0.3, -0.7}, {1.3, -2.1, 0.4}, {-0.6, 5.5, 17.0}};
    for (const auto& p : points) {
        const double in[2] = {p[1], p[2]};
        std::feclearexcept(FE_ALL_EXCEPT);
        const double expected = e->eval(p[0], in);
        const engine::Dual variables[3] = {engine::Dual(p[0]), engine::Dual(p[1]),
                                           engine::Dual(p[2])};
        const double got = tree->eval(variables).a;
        const bool throughInfinity = std::fetestexcept(FE_OVERFLOW | FE_INVALID | FE_DIVBYZERO);
        if (!std::isfinite(expected) || !std::isfinite(got) || throughInfinity) continue;
        if (std::abs(got - expected) > 1e-9 * std::max(1.0, std::abs(expected))) {
            std::fprintf(stderr, "'%s' at (%g, %g, %g): muparser %.17g, the tree %.17g\n",
                         text.c_str(), p[0], p[1], p[2], expected, got);
            std::abort();
        }
        // and its tangent is a number wherever the value is (or the Jacobians would carry one)
        const double along[2] = {1.0, -0.5};
        (void)e->inputTangent(p[0], in, along);
    }
    return 0;
}
