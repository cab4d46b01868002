#include "engine/expr/expression_tree.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <string_view>

#include "engine/expr/functions.h"
#include "engine/math/table_curve.h"

namespace engine::expr {

enum class Op {
    Constant,
    Variable,
    Negate,
    Degrees,
    Add,
    Subtract,
    Multiply,
    Divide,
    Power,
    Less,
    Greater,
    LessEqual,
    GreaterEqual,
    Equal,
    NotEqual,
    And,
    Or,
    Ternary,
    Function,
};

enum class Fn {
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Log2,
    Log10,
    Ln,
    Exp,
    Sqrt,
    Sign,
    Rint,
    Abs,
    Atan2,
    Sum,
    Avg,
    Min,
    Max,
    Step,
    Step5,
    Ramp,
    Harmonic,
    Table,
    Haversine,
    If,
    Clamp,
    Impact,
    Bistop,
    Lookup,  // a scene's table by its name
};

struct Tree::Node {
    Op op = Op::Constant;
    double value = 0.0;                       // Constant
    int index = 0;                            // Variable
    Fn fn = Fn::Sin;                          // Function
    std::shared_ptr<const TableCurve> table;  // Lookup
    std::vector<std::unique_ptr<Node>> children;
};

namespace {

using Node = Tree::Node;
using NodePtr = std::unique_ptr<Node>;

struct FunctionName {
    const char* name;
    Fn fn;
    int arguments;  // −1: any number (at least one)
};

constexpr FunctionName kFunctions[] = {
    {"sin", Fn::Sin, 1},       {"cos", Fn::Cos, 1},
    {"tan", Fn::Tan, 1},       {"asin", Fn::Asin, 1},
    {"acos", Fn::Acos, 1},     {"atan", Fn::Atan, 1},
    {"sinh", Fn::Sinh, 1},     {"cosh", Fn::Cosh, 1},
    {"tanh", Fn::Tanh, 1},     {"asinh", Fn::Asinh, 1},
    {"acosh", Fn::Acosh, 1},   {"atanh", Fn::Atanh, 1},
    {"log2", Fn::Log2, 1},     {"log10", Fn::Log10, 1},
    {"ln", Fn::Ln, 1},         {"log", Fn::Ln, 1},
    {"exp", Fn::Exp, 1},       {"sqrt", Fn::Sqrt, 1},
    {"sign", Fn::Sign, 1},     {"rint", Fn::Rint, 1},
    {"abs", Fn::Abs, 1},       {"atan2", Fn::Atan2, 2},
    {"sum", Fn::Sum, -1},      {"avg", Fn::Avg, -1},
    {"min", Fn::Min, -1},      {"max", Fn::Max, -1},
    {"step", Fn::Step, 5},     {"step5", Fn::Step5, 5},
    {"ramp", Fn::Ramp, 5},     {"harmonic", Fn::Harmonic, 4},
    {"table", Fn::Table, -1},  {"haversine", Fn::Haversine, 5},
    {"if", Fn::If, 3},         {"clamp", Fn::Clamp, 3},
    {"impact", Fn::Impact, 7}, {"bistop", Fn::Bistop, -1},
};

NodePtr leaf(double value) {
    auto n = std::make_unique<Node>();
    n->value = value;
    return n;
}
NodePtr node(Op op, NodePtr a) {
    auto n = std::make_unique<Node>();
    n->op = op;
    n->children.push_back(std::move(a));
    return n;
}
// A binary operation; nullptr when its right operand could not be read.
NodePtr node(Op op, NodePtr a, NodePtr b) {
    if (!b) return nullptr;
    NodePtr n = node(op, std::move(a));
    n->children.push_back(std::move(b));
    return n;
}

// Recursive descent over muparser's precedence, lowest first: ?: (right), ||, &&,
// comparisons, + −, * /, signs, ^ (right, its exponent may carry a sign), the postfix `d`.
class Reader {
public:
    Reader(const std::string& text, const std::vector<std::string>& variables,
           const std::vector<std::pair<std::string, double>>& constants, const Tables& tables)
        : text_(text), variables_(variables), constants_(constants), tables_(tables) {}

    NodePtr read() {
        NodePtr n = ternary();
        skip();
        if (!n || at_ != text_.size()) return nullptr;
        return n;
    }

private:
    void skip() {
        while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
    }
    bool take(const char* token) {
        skip();
        const std::string_view t(token);
        if (text_.compare(at_, t.size(), t) != 0) return false;
        at_ += t.size();
        return true;
    }
    bool peek(char c) {
        skip();
        return at_ < text_.size() && text_[at_] == c;
    }

    NodePtr ternary() {
        NodePtr condition = orExpression();
        if (!condition || !take("?")) return condition;
        NodePtr a = ternary();
        if (!a || !take(":")) return nullptr;
        NodePtr b = ternary();
        auto n = node(Op::Ternary, std::move(condition), std::move(a));
        if (!n || !b) return nullptr;
        n->children.push_back(std::move(b));
        return n;
    }
    // One level of left-associative binary operators: operands read by `next`, the operators
    // tried in the order given (a longer token before its prefix: "<=" before "<").
    struct Operator {
        const char* token;
        Op op;
    };
    NodePtr leftToRight(NodePtr (Reader::*next)(), std::initializer_list<Operator> operators) {
        NodePtr a = (this->*next)();
        while (a) {
            const Operator* found = nullptr;
            for (const Operator& o : operators)
                if (take(o.token)) {
                    found = &o;
                    break;
                }
            if (!found) break;
            a = node(found->op, std::move(a), (this->*next)());
        }
        return a;
    }
    NodePtr orExpression() { return leftToRight(&Reader::andExpression, {{"||", Op::Or}}); }
    NodePtr andExpression() { return leftToRight(&Reader::comparison, {{"&&", Op::And}}); }
    NodePtr comparison() {
        return leftToRight(&Reader::sum, {{"<=", Op::LessEqual},
                                          {">=", Op::GreaterEqual},
                                          {"==", Op::Equal},
                                          {"!=", Op::NotEqual},
                                          {"<", Op::Less},
                                          {">", Op::Greater}});
    }
    NodePtr sum() { return leftToRight(&Reader::product, {{"+", Op::Add}, {"-", Op::Subtract}}); }
    NodePtr product() {
        return leftToRight(&Reader::signed_, {{"*", Op::Multiply}, {"/", Op::Divide}});
    }
    NodePtr signed_() {
        if (take("-")) {
            NodePtr a = power();
            return a ? node(Op::Negate, std::move(a)) : nullptr;
        }
        if (take("+")) return power();
        return power();
    }
    NodePtr power() {
        NodePtr base = postfix();
        if (!base || !take("^")) return base;
        NodePtr exponent = signed_();
        if (!exponent) return nullptr;
        return node(Op::Power, std::move(base), std::move(exponent));
    }
    NodePtr postfix() {
        NodePtr a = primary();
        while (a) {
            skip();
            // The postfix `d` (degrees): a 'd' not starting a longer name.
            if (at_ < text_.size() && text_[at_] == 'd' &&
                (at_ + 1 == text_.size() || !isNameChar(text_[at_ + 1]))) {
                ++at_;
                a = node(Op::Degrees, std::move(a));
            } else {
                break;
            }
        }
        return a;
    }
    NodePtr primary() {
        skip();
        if (at_ >= text_.size()) return nullptr;
        const char c = text_[at_];
        if (c == '(') {
            ++at_;
            NodePtr a = ternary();
            if (!a || !take(")")) return nullptr;
            return a;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
        if (isNameChar(c)) return name();
        return nullptr;
    }
    NodePtr number() {
        const std::size_t start = at_;
        while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) ++at_;
        if (at_ < text_.size() && text_[at_] == '.') {
            ++at_;
            while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_])))
                ++at_;
        }
        if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
            std::size_t k = at_ + 1;
            if (k < text_.size() && (text_[k] == '+' || text_[k] == '-')) ++k;
            if (k < text_.size() && std::isdigit(static_cast<unsigned char>(text_[k]))) {
                while (k < text_.size() && std::isdigit(static_cast<unsigned char>(text_[k]))) ++k;
                at_ = k;
            }
        }
        const std::string digits = text_.substr(start, at_ - start);
        if (digits == ".") return nullptr;
        return leaf(std::strtod(digits.c_str(), nullptr));
    }
    NodePtr name() {
        const std::size_t start = at_;
        while (at_ < text_.size() && isNameChar(text_[at_])) ++at_;
        const std::string word = text_.substr(start, at_ - start);
        if (std::isdigit(static_cast<unsigned char>(word[0]))) return nullptr;
        if (peek('(')) return call(word);
        for (std::size_t k = 0; k < variables_.size(); ++k)
            if (variables_[k] == word) {
                auto n = std::make_unique<Node>();
                n->op = Op::Variable;
                n->index = static_cast<int>(k);
                return n;
            }
        for (const auto& [constant, value] : constants_)
            if (constant == word) return leaf(value);
        if (word == "pi" || word == "_pi") return leaf(kPi);
        if (word == "_e") return leaf(std::exp(1.0));
        return nullptr;
    }
    NodePtr call(const std::string& word) {
        const FunctionName* f = nullptr;
        for (const FunctionName& candidate : kFunctions)
            if (word == candidate.name) f = &candidate;
        static constexpr FunctionName kLookup{"", Fn::Lookup, 1};
        std::shared_ptr<const TableCurve> table;
        for (const auto& [name, curve] : tables_)
            if (word == name) {
                f = &kLookup;
                table = curve;
            }
        if (!f || !take("(")) return nullptr;
        auto n = std::make_unique<Node>();
        n->op = Op::Function;
        n->fn = f->fn;
        n->table = std::move(table);
        if (!peek(')')) {
            do {
                NodePtr argument = ternary();
                if (!argument) return nullptr;
                n->children.push_back(std::move(argument));
            } while (take(","));
        }
        if (!take(")")) return nullptr;
        const int count = static_cast<int>(n->children.size());
        if (f->arguments >= 0 ? count != f->arguments : count < 1) return nullptr;
        return n;
    }

    static bool isNameChar(char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    }

    const std::string& text_;
    const std::vector<std::string>& variables_;
    const std::vector<std::pair<std::string, double>>& constants_;
    const Tables& tables_;
    std::size_t at_ = 0;
};

template <class S>
S truth(bool b) {
    return S(b ? 1.0 : 0.0);
}

template <class S>
S evaluate(const Node& n, const S* variables);

template <class S>
S function(const Node& n, const S* variables) {
    S args[8];
    std::vector<S> many;
    const int count = static_cast<int>(n.children.size());
    S* a = args;
    if (count > 8) {
        many.resize(static_cast<std::size_t>(count));
        a = many.data();
    }
    for (int k = 0; k < count; ++k)
        a[k] = evaluate<S>(*n.children[static_cast<std::size_t>(k)], variables);
    // A NaN argument gives NaN, as the muparser side's functions pass it on.
    switch (n.fn) {
    case Fn::Sin:
        return sin(a[0]);
    case Fn::Cos:
        return cos(a[0]);
    case Fn::Tan:
        return tan(a[0]);
    case Fn::Asin:
        return asin(a[0]);
    case Fn::Acos:
        return acos(a[0]);
    case Fn::Atan:
        return atan(a[0]);
    case Fn::Sinh:
        return sinh(a[0]);
    case Fn::Cosh:
        return cosh(a[0]);
    case Fn::Tanh:
        return tanh(a[0]);
    case Fn::Asinh:
        return asinh(a[0]);
    case Fn::Acosh:
        return acosh(a[0]);
    case Fn::Atanh:
        return atanh(a[0]);
    case Fn::Log2:
        return log2(a[0]);
    case Fn::Log10:
        return log10(a[0]);
    case Fn::Ln:
        return log(a[0]);
    case Fn::Exp:
        return exp(a[0]);
    case Fn::Sqrt:
        return sqrt(a[0]);
    case Fn::Sign:
        if (std::isnan(valueOf(a[0]))) return a[0];
        return S(static_cast<double>((valueOf(a[0]) > 0.0) - (valueOf(a[0]) < 0.0)));
    case Fn::Rint:  // muparser's: the nearest integer, halves up
        return S(std::floor(valueOf(a[0]) + 0.5));
    case Fn::Abs:
        return abs(a[0]);
    case Fn::Atan2:
        return atan2(a[0], a[1]);
    case Fn::Sum:
    case Fn::Avg: {
        S total;
        for (int k = 0; k < count; ++k) total += a[k];
        return n.fn == Fn::Sum ? total : total / static_cast<double>(count);
    }
    case Fn::Min:
    case Fn::Max: {
        S out = a[0];
        for (int k = 0; k < count; ++k) {
            if (std::isnan(valueOf(a[k]))) return a[k];
            out = n.fn == Fn::Min ? minOf(out, a[k]) : maxOf(out, a[k]);
        }
        return out;
    }
    case Fn::Step:
        return cubicStep(a[0], a[1], a[2], a[3], a[4]);
    case Fn::Step5:
        return quinticStep(a[0], a[1], a[2], a[3], a[4]);
    case Fn::Ramp:
        return ramp(a[0], a[1], a[2], a[3], a[4]);
    case Fn::Harmonic:
        return harmonic(a[0], a[1], a[2], a[3]);
    case Fn::Table:
        return table(a, count);
    case Fn::Haversine:
        return haversine(a[0], a[1], a[2], a[3], a[4]);
    case Fn::If:
        if (std::isnan(valueOf(a[0]))) return a[0];
        return valueOf(a[0]) != 0.0 ? a[1] : a[2];
    case Fn::Clamp:
        return clamp(a[0], a[1], a[2]);
    case Fn::Impact:
        return impact(a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
    case Fn::Bistop:
        return bistop(a, count);
    case Fn::Lookup:
        return (*n.table)(a[0]);
    }
    return S(std::nan(""));
}

template <class S>
S evaluate(const Node& n, const S* variables) {
    auto child = [&](std::size_t k) { return evaluate<S>(*n.children[k], variables); };
    switch (n.op) {
    case Op::Constant:
        return S(n.value);
    case Op::Variable:
        return variables[n.index];
    case Op::Negate:
        return -child(0);
    case Op::Degrees:
        return child(0) * (kPi / 180.0);
    case Op::Add:
        return child(0) + child(1);
    case Op::Subtract:
        return child(0) - child(1);
    case Op::Multiply:
        return child(0) * child(1);
    case Op::Divide:
        return child(0) / child(1);
    case Op::Power:
        return pow(child(0), child(1));
    case Op::Less:
        return truth<S>(valueOf(child(0)) < valueOf(child(1)));
    case Op::Greater:
        return truth<S>(valueOf(child(0)) > valueOf(child(1)));
    case Op::LessEqual:
        return truth<S>(valueOf(child(0)) <= valueOf(child(1)));
    case Op::GreaterEqual:
        return truth<S>(valueOf(child(0)) >= valueOf(child(1)));
    case Op::Equal:
        return truth<S>(valueOf(child(0)) == valueOf(child(1)));
    case Op::NotEqual:
        return truth<S>(valueOf(child(0)) != valueOf(child(1)));
    case Op::And:
    case Op::Or: {
        // Operands by value, constant or not ("0.5 || 0" is 1 as "x || 0" at x = 0.5 is:
        // Expression keeps muparser from folding them as integers).
        const double a = valueOf(child(0)), b = valueOf(child(1));
        return truth<S>(n.op == Op::And ? a != 0.0 && b != 0.0 : a != 0.0 || b != 0.0);
    }
    case Op::Ternary:
        return valueOf(child(0)) != 0.0 ? child(1) : child(2);
    case Op::Function:
        return function<S>(n, variables);
    }
    return S(std::nan(""));
}

// The unit of a node ("" any or unknown), the first mismatch found to `mismatch`.
class Units {
public:
    Units(const std::vector<std::string>& variables, std::string& mismatch)
        : variables_(variables), mismatch_(mismatch) {}

    std::string of(const Node& n) {
        auto child = [&](std::size_t k) { return of(*n.children[k]); };
        switch (n.op) {
        case Op::Constant:
            return {};
        case Op::Variable:
            return n.index < static_cast<int>(variables_.size())
                       ? variables_[static_cast<std::size_t>(n.index)]
                       : std::string();
        case Op::Negate:
            return child(0);
        case Op::Degrees:
            return child(0).empty() ? "rad" : child(0);
        case Op::Add:
            return same(child(0), child(1), "adds");
        case Op::Subtract:
            return same(child(0), child(1), "subtracts");
        case Op::Less:
        case Op::Greater:
        case Op::LessEqual:
        case Op::GreaterEqual:
        case Op::Equal:
        case Op::NotEqual:
            same(child(0), child(1), "compares");
            return {};
        case Op::Ternary:
            child(0);
            return same(child(1), child(2), "chooses between");
        case Op::Multiply:
        case Op::Divide:
        case Op::Power:
        case Op::And:
        case Op::Or:
            for (std::size_t k = 0; k < n.children.size(); ++k) child(k);
            return {};
        case Op::Function:
            return function(n);
        }
        return {};
    }

private:
    std::string same(const std::string& a, const std::string& b, const char* verb) {
        if (!a.empty() && !b.empty() && a != b && mismatch_.empty())
            mismatch_ = std::string(verb) + " " + a + " and " + b;
        return a.empty() ? b : a;
    }
    std::string function(const Node& n) {
        std::vector<std::string> u;
        for (const auto& c : n.children) u.push_back(of(*c));
        auto sameAll = [&](std::size_t from, std::size_t step, const char* verb) {
            std::string unit;
            for (std::size_t k = from; k < u.size(); k += step) unit = same(unit, u[k], verb);
            return unit;
        };
        auto rateOf = [&](const std::string& x, const std::string& xd) {
            if (!x.empty() && !xd.empty() && xd != x + "/s" && mismatch_.empty())
                mismatch_ = "gives " + xd + " as the rate of " + x + " (expected " + x + "/s)";
        };
        switch (n.fn) {
        case Fn::Sin:
        case Fn::Cos:
        case Fn::Tan:
            // (of time alone it is left be: sin(time) reads as sin(1 rad/s · time))
            if (!u[0].empty() && u[0] != "rad" && u[0] != "s" && mismatch_.empty())
                mismatch_ = "takes the " +
                            std::string(n.fn == Fn::Sin   ? "sine"
                                        : n.fn == Fn::Cos ? "cosine"
                                                          : "tangent") +
                            " of " + u[0] + ", not an angle";
            return {};
        case Fn::Asin:
        case Fn::Acos:
        case Fn::Atan:
            return "rad";
        case Fn::Atan2:
            same(u[0], u[1], "divides (atan2)");
            return "rad";
        case Fn::Abs:
            return u[0];
        case Fn::Sum:
        case Fn::Avg:
            return sameAll(0, 1, "adds");
        case Fn::Min:
        case Fn::Max:
            return sameAll(0, 1, "compares");
        case Fn::Clamp:
            return sameAll(0, 1, "clamps between");
        case Fn::If:
            return same(u[1], u[2], "chooses between");
        case Fn::Step:
        case Fn::Step5:
        case Fn::Haversine:  // (x, x0, h0, x1, h1)
            same(same(u[0], u[1], "steps from"), u[3], "steps to");
            return same(u[2], u[4], "steps between");
        case Fn::Ramp:  // (x, x0, x1, h0, h1)
            same(same(u[0], u[1], "ramps from"), u[2], "ramps to");
            return same(u[3], u[4], "ramps between");
        case Fn::Table:
            sameAll(0, 2, "looks up");
            return sameAll(2, 2, "tabulates");
        case Fn::Impact:  // (x, xd, x1, k, e, cmax, d)
            rateOf(u[0], u[1]);
            same(same(u[0], u[2], "puts a stop"), u[6], "gives a penetration");
            return {};
        case Fn::Bistop:  // (x, xd, x1, x2, k, e, cmax, d)
            if (u.size() == 8) {
                rateOf(u[0], u[1]);
                same(same(same(u[0], u[2], "puts a stop"), u[3], "puts a stop"), u[7],
                     "gives a penetration");
            }
            return {};
        default:
            return {};
        }
    }

    const std::vector<std::string>& variables_;
    std::string& mismatch_;
};

}  // namespace

std::string Tree::unitMismatch(const std::vector<std::string>& units) const {
    std::string mismatch;
    Units(units, mismatch).of(*root_);
    return mismatch;
}

std::string Tree::unit(const std::vector<std::string>& units) const {
    std::string mismatch;
    return Units(units, mismatch).of(*root_);
}

Tree::~Tree() = default;

std::unique_ptr<Tree> Tree::parse(const std::string& text,
                                  const std::vector<std::string>& variables,
                                  const std::vector<std::pair<std::string, double>>& constants,
                                  const Tables& tables) {
    NodePtr root = Reader(text, variables, constants, tables).read();
    if (!root) return nullptr;
    std::unique_ptr<Tree> tree(new Tree());
    tree->root_ = std::move(root);
    return tree;
}

Dual Tree::eval(const Dual* variables) const {
    try {
        return evaluate<Dual>(*root_, variables);
    } catch (const FunctionError&) {
        return Dual(std::nan(""), std::nan(""));
    }
}

Jet2 Tree::eval(const Jet2* variables) const {
    try {
        return evaluate<Jet2>(*root_, variables);
    } catch (const FunctionError&) {
        const double nan = std::nan("");
        return Jet2(nan, nan, nan);
    }
}

}  // namespace engine::expr
