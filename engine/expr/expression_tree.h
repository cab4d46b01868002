#pragma once
// An expression's own syntax tree, read from its text with muparser's grammar (the language of
// engine/expr/expression.h: precedence, right-associative '^', signs below '^', the postfix
// `d`, the ternary), evaluated on dual numbers: the exact derivatives of an expression of the
// state with respect to its inputs, which muparser cannot give. Values come from muparser; the
// tree is checked against it (tests/engine/expr/expression_tree_test.cpp and the expression
// fuzzer).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/math/dual.h"
#include "engine/math/jet.h"

namespace engine {
class TableCurve;  // engine/math/table_curve.h
}

namespace engine::expr {

// Named tables read as functions of one argument (Expression::Tables).
using Tables = std::vector<std::pair<std::string, std::shared_ptr<const TableCurve>>>;

class Tree {
public:
    // Reads `text` with `variables` (their values are eval()'s arguments, in this order) and the
    // named constants; nullptr when the text is not one this grammar reads.
    static std::unique_ptr<Tree> parse(const std::string& text,
                                       const std::vector<std::string>& variables,
                                       const std::vector<std::pair<std::string, double>>& constants,
                                       const Tables& tables = {});
    ~Tree();

    // Its value and tangent at `variables`; NaN where a function refuses its arguments.
    Dual eval(const Dual* variables) const;
    // Its value and first and second derivatives along one direction of the variables (their
    // jets): a function of time's ẋ and ẍ exact to round-off.
    Jet2 eval(const Jet2* variables) const;

    // Where the expression puts together quantities of different known units: adds,
    // subtracts, compares or chooses between them (+ − < == min max clamp if ?: table step
    // ramp haversine atan2 sum avg), gives a rate that is not its coordinate's (impact and
    // bistop's xd), or takes the sine of what is not an angle; "" when it does not. `units`:
    // per variable its unit ("m", "m/s", "rad", "rad/s", "s"; "" unknown). A number has any
    // unit (a coefficient carries one), and a product or quotient an unknown one.
    std::string unitMismatch(const std::vector<std::string>& units) const;
    // The unit of its value by the same rules ("" any or unknown).
    std::string unit(const std::vector<std::string>& units) const;

    struct Node;

private:
    Tree() = default;
    std::unique_ptr<Node> root_;
};

}  // namespace engine::expr
