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

namespace engine::expr {

class Tree {
public:
    // Reads `text` with `variables` (their values are eval()'s arguments, in this order) and the
    // named constants; nullptr when the text is not one this grammar reads.
    static std::unique_ptr<Tree> parse(
        const std::string& text, const std::vector<std::string>& variables,
        const std::vector<std::pair<std::string, double>>& constants);
    ~Tree();

    // Its value and tangent at `variables`; NaN where a function refuses its arguments.
    Dual eval(const Dual* variables) const;

    struct Node;

private:
    Tree() = default;
    std::unique_ptr<Node> root_;
};

}  // namespace engine::expr
