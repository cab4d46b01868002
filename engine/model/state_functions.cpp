#include "engine/model/state_functions.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <map>

#include "engine/expr/expression_tree.h"
#include "engine/model/scene_spec.h"

namespace engine {
namespace {

// How a measure's arguments are written; each form says its usage, with n the measure's name.
struct ArgumentForm {
    int fewest, most;
    const char* usage;  // "%" stands for the name
};
constexpr ArgumentForm kCoordinate{1, 2, "%(joint) or %(joint, n)"};
constexpr ArgumentForm kOneOrTwo{1, 2, "%(i) or %(i, j)"};
constexpr ArgumentForm kTwo{2, 2, "%(i, j)"};
constexpr ArgumentForm kInFrame{1, 3, "%(i), %(i, j) or %(i, j, k)"};
constexpr ArgumentForm kReaction{1, 2, "%(joint) or %(joint, k)"};
constexpr ArgumentForm kJoint{1, 1, "%(joint)"};
constexpr ArgumentForm kParts{2, 2, "%(partA, partB)"};

struct KindName {
    MeasureKind kind;
    const char* name;
    const char* unit;
    const ArgumentForm& form;
};
constexpr std::array<KindName, kMeasureKinds> kKinds = {{
    {MeasureKind::Q, "q", "rad or m", kCoordinate},
    {MeasureKind::QD, "qd", "rad/s or m/s", kCoordinate},
    {MeasureKind::DM, "DM", "m", kOneOrTwo},
    {MeasureKind::DX, "DX", "m", kInFrame},
    {MeasureKind::DY, "DY", "m", kInFrame},
    {MeasureKind::DZ, "DZ", "m", kInFrame},
    {MeasureKind::VR, "VR", "m/s", kTwo},
    {MeasureKind::VM, "VM", "m/s", kOneOrTwo},
    {MeasureKind::VX, "VX", "m/s", kInFrame},
    {MeasureKind::VY, "VY", "m/s", kInFrame},
    {MeasureKind::VZ, "VZ", "m/s", kInFrame},
    {MeasureKind::WM, "WM", "rad/s", kOneOrTwo},
    {MeasureKind::WX, "WX", "rad/s", kInFrame},
    {MeasureKind::WY, "WY", "rad/s", kInFrame},
    {MeasureKind::WZ, "WZ", "rad/s", kInFrame},
    {MeasureKind::AX, "AX", "rad", kTwo},
    {MeasureKind::AY, "AY", "rad", kTwo},
    {MeasureKind::AZ, "AZ", "rad", kTwo},
    {MeasureKind::FX, "FX", "N", kReaction},
    {MeasureKind::FY, "FY", "N", kReaction},
    {MeasureKind::FZ, "FZ", "N", kReaction},
    {MeasureKind::FM, "FM", "N", kJoint},
    {MeasureKind::TX, "TX", "N·m", kReaction},
    {MeasureKind::TY, "TY", "N·m", kReaction},
    {MeasureKind::TZ, "TZ", "N·m", kReaction},
    {MeasureKind::TM, "TM", "N·m", kJoint},
    {MeasureKind::FN, "FN", "N", kParts},
    {MeasureKind::FT, "FT", "N", kParts},
}};

static_assert(
    [] {
        for (std::size_t k = 0; k < kKinds.size(); ++k)
            if (static_cast<std::size_t>(kKinds[k].kind) != k) return false;
        return true;
    }(),
    "kKinds lists the measures in MeasureKind's order");

const ArgumentForm& formOf(MeasureKind kind) {
    return kKinds[static_cast<std::size_t>(kind)].form;
}

bool isNameStart(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool isNameChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

std::string trimmed(const std::string& s) {
    std::size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

// How many arguments a measure takes: {fewest, most}.
std::pair<int, int> argumentCounts(MeasureKind kind) {
    return {formOf(kind).fewest, formOf(kind).most};
}

std::string usage(MeasureKind kind) {
    std::string out;
    for (const char* c = formOf(kind).usage; *c; ++c)
        out += *c == '%' ? std::string(measureKindName(kind)) : std::string(1, *c);
    return out;
}

// The names muparser or Motus's expressions already give a meaning.
bool isReservedName(const std::string& name) {
    static const char* const reserved[] = {
        "time",   "pi",        "sin",   "cos",   "tan",      "asin",  "acos", "atan",  "atan2",
        "sinh",   "cosh",      "tanh",  "asinh", "acosh",    "atanh", "exp",  "ln",    "log",
        "log2",   "log10",     "sqrt",  "abs",   "sign",     "rint",  "min",  "max",   "sum",
        "avg",    "step",      "step5", "ramp",  "harmonic", "table", "if",   "clamp", "impact",
        "bistop", "haversine", "d",     "_pi",   "_e"};
    for (const char* r : reserved)
        if (name == r) return true;
    return measureKindFromName(name).has_value();
}

}  // namespace

bool measureReadsJoint(MeasureKind kind) {
    return kind == MeasureKind::Q || kind == MeasureKind::QD ||
           (kind >= MeasureKind::FX && kind <= MeasureKind::TM);
}

bool measureIsLagged(MeasureKind kind) {
    return kind >= MeasureKind::FX;
}

std::optional<MeasureKind> measureKindFromName(std::string_view name) {
    for (const KindName& k : kKinds)
        if (name == k.name) return k.kind;
    return std::nullopt;
}

std::string_view measureKindName(MeasureKind kind) {
    for (const KindName& k : kKinds)
        if (k.kind == kind) return k.name;
    return "?";
}

std::string_view measureUnit(MeasureKind kind) {
    for (const KindName& k : kKinds)
        if (k.kind == kind) return k.unit;
    return "";
}

std::string MeasureCall::text() const {
    std::string out(measureKindName(kind));
    out += '(';
    for (std::size_t k = 0; k < arguments.size(); ++k) out += (k ? ", " : "") + arguments[k];
    return out + ')';
}

std::vector<std::string> StateText::inputNames() const {
    std::vector<std::string> out;
    for (std::size_t k = 0; k < calls.size(); ++k) out.push_back("_m" + std::to_string(k));
    out.insert(out.end(), variables.begin(), variables.end());
    return out;
}

std::optional<StateText> splitStateText(const std::string& text,
                                        const std::vector<std::string>& variableNames,
                                        std::string& error,
                                        const std::vector<std::string>& constantNames) {
    StateText out;
    std::string& r = out.rewritten;
    std::size_t k = 0;
    while (k < text.size()) {
        const char c = text[k];
        // A number, with its exponent: "1e5" holds no name.
        if (std::isdigit(static_cast<unsigned char>(c)) ||
            (c == '.' && k + 1 < text.size() &&
             std::isdigit(static_cast<unsigned char>(text[k + 1])))) {
            const std::size_t start = k;
            while (k < text.size() &&
                   (std::isdigit(static_cast<unsigned char>(text[k])) || text[k] == '.'))
                ++k;
            if (k < text.size() && (text[k] == 'e' || text[k] == 'E')) {
                std::size_t e = k + 1;
                if (e < text.size() && (text[e] == '+' || text[e] == '-')) ++e;
                if (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e]))) {
                    k = e;
                    while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k])))
                        ++k;
                }
            }
            r += text.substr(start, k - start);
            continue;
        }
        if (!isNameStart(c)) {
            r += c;
            ++k;
            continue;
        }
        const std::size_t start = k;
        while (k < text.size() && isNameChar(text[k])) ++k;
        const std::string name = text.substr(start, k - start);
        if (const std::optional<MeasureKind> kind = measureKindFromName(name)) {
            std::size_t open = k;
            while (open < text.size() && std::isspace(static_cast<unsigned char>(text[open])))
                ++open;
            if (open >= text.size() || text[open] != '(') {
                error = "'" + name + "' at position " + std::to_string(start) +
                        " is a measure of the state: write " + usage(*kind);
                return std::nullopt;
            }
            // Its arguments: names, separated by commas, up to the matching ')'.
            MeasureCall call;
            call.kind = *kind;
            std::string argument;
            std::size_t at = open + 1;
            bool closed = false;
            for (; at < text.size(); ++at) {
                const char a = text[at];
                if (a == '(') {
                    error = "the arguments of '" + name + "' at position " + std::to_string(start) +
                            " are names (markers, parts, joints), not expressions: write " +
                            usage(*kind);
                    return std::nullopt;
                }
                if (a == ')' || a == ',') {
                    call.arguments.push_back(trimmed(argument));
                    argument.clear();
                    if (a == ')') {
                        closed = true;
                        break;
                    }
                    continue;
                }
                argument += a;
            }
            if (!closed) {
                error =
                    "'" + name + "(' at position " + std::to_string(start) + " has no closing ')'";
                return std::nullopt;
            }
            for (const std::string& a : call.arguments)
                if (a.empty()) {
                    error = "'" + name + "' at position " + std::to_string(start) +
                            " has an empty argument: write " + usage(*kind);
                    return std::nullopt;
                }
            k = at + 1;
            const std::string canonical = call.text();
            std::size_t index = 0;
            while (index < out.calls.size() && out.calls[index].text() != canonical) ++index;
            if (index == out.calls.size()) out.calls.push_back(std::move(call));
            r += "_m" + std::to_string(index);
            continue;
        }
        const bool variable =
            std::find(variableNames.begin(), variableNames.end(), name) != variableNames.end();
        if (variable &&
            std::find(out.variables.begin(), out.variables.end(), name) == out.variables.end())
            out.variables.push_back(name);
        // A name that is no variable, no constant and no function call (nor a number's
        // postfix, 90d): unknown, said before muparser says "unexpected token".
        std::size_t next = k;
        while (next < text.size() && std::isspace(static_cast<unsigned char>(text[next]))) ++next;
        const bool call = next < text.size() && text[next] == '(';
        const bool postfix =
            start > 0 &&
            (std::isdigit(static_cast<unsigned char>(text[start - 1])) || text[start - 1] == '.');
        const bool constant =
            std::find(constantNames.begin(), constantNames.end(), name) != constantNames.end();
        if (!variable && !constant && !call && !postfix && name != "time" && name != "pi" &&
            name != "_pi" && name != "_e" && out.unknown.empty())
            out.unknown = name;
        r += name;
    }
    return out;
}

std::string measureCallError(const SceneSpec& spec, const MeasureCall& call) {
    const auto [fewest, most] = argumentCounts(call.kind);
    const int n = static_cast<int>(call.arguments.size());
    const std::string name(measureKindName(call.kind));
    if (n < fewest || n > most)
        return name + " takes " +
               (fewest == most ? std::to_string(fewest)
                               : std::to_string(fewest) + " to " + std::to_string(most)) +
               " arguments, got " + std::to_string(n) + ": write " + usage(call.kind);
    if (call.kind == MeasureKind::Q || call.kind == MeasureKind::QD) {
        const Joint* joint = spec.findJoint(call.arguments[0]);
        if (!joint)
            return name + "(" + call.arguments[0] + "): no joint '" + call.arguments[0] + "'";
        const std::size_t count = jointAxes(joint->type).size();
        if (count == 0)
            return name + "(" + call.arguments[0] + "): joint '" + joint->name + "' (" +
                   std::string(jointTypeName(joint->type)) + ") has no coordinate";
        if (n == 2) {
            const std::string& index = call.arguments[1];
            const bool digits =
                !index.empty() && std::all_of(index.begin(), index.end(), [](char c) {
                    return std::isdigit(static_cast<unsigned char>(c));
                });
            if (!digits || index.size() > 3 || std::stoul(index) >= count)
                return call.text() + ": joint '" + joint->name + "' (" +
                       std::string(jointTypeName(joint->type)) + ") has " + std::to_string(count) +
                       (count == 1 ? " coordinate: n is 0"
                                   : " coordinates: n is 0 to " + std::to_string(count - 1));
        }
        return {};
    }
    if (measureReadsJoint(call.kind)) {  // a reaction: the joint, then the axes' frame
        if (!spec.findJoint(call.arguments[0]))
            return call.text() + ": no joint '" + call.arguments[0] + "'";
    }
    if (call.kind == MeasureKind::FN || call.kind == MeasureKind::FT) {
        for (const std::string& argument : call.arguments)
            if (!spec.findPart(argument))
                return call.text() + ": no part '" + argument + "'" +
                       (argument.find('.') != std::string::npos
                            ? " (contact forces are between parts: write the part's name)"
                            : "");
        if (call.arguments[0] == call.arguments[1])
            return call.text() + ": a part has no contact with itself";
        return {};
    }
    for (std::size_t a = measureReadsJoint(call.kind) ? 1 : 0; a < call.arguments.size(); ++a) {
        const std::string& argument = call.arguments[a];
        const std::size_t dot = argument.find('.');
        if (dot == std::string::npos) {
            if (!spec.findPart(argument))
                return call.text() + ": no part or marker '" + argument +
                       "' (a marker is written part.marker)";
            continue;
        }
        const MarkerRef ref{argument.substr(0, dot), argument.substr(dot + 1)};
        if (!spec.findMarker(ref)) return call.text() + ": no marker '" + argument + "'";
    }
    return {};
}

namespace {

// A measure call's unit; q and qd by their joint's coordinate.
std::string callUnit(const SceneSpec& spec, const MeasureCall& call) {
    if (call.kind != MeasureKind::Q && call.kind != MeasureKind::QD)
        return std::string(measureUnit(call.kind));
    const Joint* joint = spec.findJoint(call.arguments[0]);
    if (!joint) return {};
    const std::vector<JointAxis> axes = jointAxes(joint->type);
    const std::size_t n = call.arguments.size() == 2 ? std::stoul(call.arguments[1]) : 0;
    if (n >= axes.size()) return {};
    const std::string unit = axes[n] == JointAxis::Rotation ? "rad" : "m";
    return call.kind == MeasureKind::Q ? unit : unit + "/s";
}

// The unit of `text`'s value ("" any) and its first mismatch; `depth` guards a cycle of
// variables (refused elsewhere).
std::string unitOf(const SceneSpec& spec, const std::string& text, std::string* mismatch,
                   int depth) {
    if (depth > 64) return {};
    std::string error;
    StateText split;
    if (!parseStateExpression(spec, text, split, error)) return {};
    std::vector<std::string> units{"s"};
    for (const MeasureCall& call : split.calls) units.push_back(callUnit(spec, call));
    for (const std::string& name : split.variables) {
        const auto v = std::find_if(spec.variables.begin(), spec.variables.end(),
                                    [&](const VariableSpec& x) { return x.name == name; });
        units.push_back(v == spec.variables.end() || v->initial
                            ? std::string()
                            : unitOf(spec, v->expression, nullptr, depth + 1));
    }
    std::vector<std::string> names{"time"};
    for (const std::string& input : split.inputNames()) names.push_back(input);
    const auto tree =
        expr::Tree::parse(split.rewritten, names, designConstants(spec), sceneTables(spec));
    if (!tree) return {};
    if (mismatch) *mismatch = tree->unitMismatch(units);
    return tree->unit(units);
}

}  // namespace

std::string stateUnitMismatch(const SceneSpec& spec, const std::string& text) {
    std::string mismatch;
    unitOf(spec, text, &mismatch, 0);
    return mismatch;
}

Expression::Constants designConstants(const SceneSpec& spec) {
    Expression::Constants constants;
    for (const DesignVariableSpec& v : spec.designVariables)
        if (variableNameError(v.name).empty()) constants.emplace_back(v.name, v.value);
    return constants;
}

std::string badTableCall(const SceneSpec& spec, const std::string& text) {
    for (const TableSpec& t : spec.tables) {
        std::string error;
        if (TableCurve::make(t.interpolation, t.x, t.y, error)) continue;
        // Its name called: the name, then '(' (spaces between), not inside a longer name.
        for (std::size_t at = text.find(t.name); at != std::string::npos;
             at = text.find(t.name, at + 1)) {
            const std::size_t end = at + t.name.size();
            if (at > 0 && isNameChar(text[at - 1])) continue;
            std::size_t open = end;
            while (open < text.size() && std::isspace(static_cast<unsigned char>(text[open])))
                ++open;
            if (open < text.size() && text[open] == '(')
                return "it calls table '" + t.name + "', whose points make no curve: " + error;
        }
    }
    return {};
}

Expression::Tables sceneTables(const SceneSpec& spec) {
    Expression::Tables tables;
    for (const TableSpec& t : spec.tables) {
        std::string ignored;
        if (variableNameError(t.name).empty())
            if (auto curve = TableCurve::make(t.interpolation, t.x, t.y, ignored))
                tables.emplace_back(t.name, std::make_shared<const TableCurve>(std::move(*curve)));
    }
    return tables;
}

std::optional<Expression> parseStateExpression(const SceneSpec& spec, const std::string& text,
                                               StateText& split, std::string& error) {
    std::vector<std::string> variableNames, constantNames;
    for (const VariableSpec& v : spec.variables) variableNames.push_back(v.name);
    const Expression::Constants constants = designConstants(spec);
    for (const auto& c : constants) constantNames.push_back(c.first);
    std::optional<StateText> s = splitStateText(text, variableNames, error, constantNames);
    if (!s) return std::nullopt;
    for (const MeasureCall& call : s->calls)
        if (std::string reason = measureCallError(spec, call); !reason.empty()) {
            error = reason;
            return std::nullopt;
        }
    if (!s->unknown.empty()) {
        error = "unknown name '" + s->unknown + "': not a variable or design variable of the scene";
        std::vector<std::string> known = variableNames;
        known.insert(known.end(), constantNames.begin(), constantNames.end());
        error +=
            known.empty() ? " (it has none)" : " (" + std::to_string(known.size()) + ": " + [&] {
                std::string list;
                for (std::size_t k = 0; k < known.size() && k < 8; ++k)
                    list += (k ? ", " : "") + known[k];
                return list + (known.size() > 8 ? ", …" : "");
            }() + ")";
        error += ", `time`, `pi` or a measure such as DM(i, j) or q(joint)";
        return std::nullopt;
    }
    std::optional<Expression> e = Expression::parseWithConstants(
        s->rewritten, error, constants, s->inputNames(), sceneTables(spec));
    if (!e) {
        if (std::string bad = badTableCall(spec, text); !bad.empty()) {
            error = bad;
            return std::nullopt;
        }
        // muparser's positions count in the rewritten text; say what it read.
        if (s->rewritten != text) error += " (in '" + s->rewritten + "', each _mN a measure)";
        return std::nullopt;
    }
    e->setText(text);
    split = std::move(*s);
    return e;
}

std::string renameMeasureArguments(
    const std::string& text,
    const std::function<std::string(MeasureKind, int, const std::string&)>& rename) {
    std::string out;
    std::size_t k = 0;
    while (k < text.size()) {
        if (!isNameStart(text[k]) || (k > 0 && isNameChar(text[k - 1]))) {
            out += text[k++];
            continue;
        }
        std::size_t end = k;
        while (end < text.size() && isNameChar(text[end])) ++end;
        const std::optional<MeasureKind> kind = measureKindFromName(text.substr(k, end - k));
        std::size_t open = end;
        while (open < text.size() && std::isspace(static_cast<unsigned char>(text[open]))) ++open;
        const std::size_t close = open < text.size() ? text.find(')', open) : std::string::npos;
        if (!kind || open >= text.size() || text[open] != '(' || close == std::string::npos) {
            out += text.substr(k, end - k);
            k = end;
            continue;
        }
        // The call: its arguments renamed, the spaces around each kept.
        out += text.substr(k, open + 1 - k);
        int index = 0;
        std::size_t at = open + 1;
        while (at <= close) {
            std::size_t stop = text.find_first_of(",)", at);
            const std::string raw = text.substr(at, stop - at);
            const std::size_t a = raw.find_first_not_of(" \t"), b = raw.find_last_not_of(" \t");
            if (a == std::string::npos)
                out += raw;
            else
                out += raw.substr(0, a) + rename(*kind, index, raw.substr(a, b - a + 1)) +
                       raw.substr(b + 1);
            out += text[stop];
            ++index;
            at = stop + 1;
        }
        k = close + 1;
    }
    return out;
}

std::string variableNameError(const std::string& name) {
    if (name.empty() || !isNameStart(name[0]) ||
        !std::all_of(name.begin(), name.end(), isNameChar) || name.size() > 128)
        return "variable name '" + name +
               "' is not valid: use a letter or '_' first, then letters, digits or '_'";
    if (name[0] == '_' && name.size() > 1 && name[1] == 'm')
        return "variable name '" + name + "' is kept for measures (names starting with '_m')";
    if (isReservedName(name))
        return "variable name '" + name + "' is already a function, a measure or a constant";
    return {};
}

std::optional<std::vector<int>> variableOrder(const SceneSpec& spec, std::string& cycle) {
    const int n = static_cast<int>(spec.variables.size());
    std::vector<std::string> names;
    for (const VariableSpec& v : spec.variables) names.push_back(v.name);
    std::vector<std::vector<int>> uses(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) {
        std::string error;
        if (const auto s = splitStateText(spec.variables[static_cast<std::size_t>(k)].expression,
                                          names, error))
            for (const std::string& used : s->variables)
                uses[static_cast<std::size_t>(k)].push_back(
                    static_cast<int>(std::find(names.begin(), names.end(), used) - names.begin()));
    }
    // Depth-first, in the scene's order: 0 unseen, 1 on the path, 2 placed.
    std::vector<int> mark(static_cast<std::size_t>(n), 0), order, path;
    std::function<bool(int)> visit = [&](int k) {
        if (mark[static_cast<std::size_t>(k)] == 2) return true;
        if (mark[static_cast<std::size_t>(k)] == 1) {
            const auto from = std::find(path.begin(), path.end(), k);
            for (auto it = from; it != path.end(); ++it)
                cycle += names[static_cast<std::size_t>(*it)] + " → ";
            cycle += names[static_cast<std::size_t>(k)];
            return false;
        }
        mark[static_cast<std::size_t>(k)] = 1;
        path.push_back(k);
        for (int u : uses[static_cast<std::size_t>(k)])
            if (!visit(u)) return false;
        path.pop_back();
        mark[static_cast<std::size_t>(k)] = 2;
        order.push_back(k);
        return true;
    };
    for (int k = 0; k < n; ++k)
        if (!visit(k)) return std::nullopt;
    return order;
}

}  // namespace engine
