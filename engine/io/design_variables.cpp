#include "engine/io/design_variables.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>

#include "engine/expr/expression.h"
#include "engine/io/bindings_json.h"
#include "engine/io/scene_json.h"
#include "engine/math/number_text.h"
#include "engine/model/state_functions.h"

namespace engine::io {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// RFC 6901: '~' and '/' in a key.
std::string escaped(const std::string& key) {
    std::string out;
    for (const char c : key) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

std::vector<std::string> tokensOf(const std::string& pointer) {
    std::vector<std::string> tokens;
    std::size_t k = 0;
    while (k < pointer.size() && pointer[k] == '/') {
        const std::size_t end = std::min(pointer.find('/', k + 1), pointer.size());
        tokens.push_back(pointer.substr(k + 1, end - k - 1));
        k = end;
    }
    return tokens;
}

std::string joined(const std::vector<std::string>& tokens, std::size_t count) {
    std::string out;
    for (std::size_t k = 0; k < count && k < tokens.size(); ++k) out += "/" + tokens[k];
    return out;
}

// What holds the field at `pointer`: its orientation object when it is inside one (written back
// whole, in the form the file gave it), else its parent.
std::string groupOf(const std::string& pointer) {
    const std::vector<std::string> tokens = tokensOf(pointer);
    for (std::size_t k = 0; k + 1 < tokens.size(); ++k)
        if (tokens[k] == "orientation") return joined(tokens, k + 1);
    return joined(tokens, tokens.empty() ? 0 : tokens.size() - 1);
}

bool isOrientationGroup(const std::string& group) {
    return group.size() >= 12 && group.compare(group.size() - 12, 12, "/orientation") == 0;
}

// The design variables a document defines, as far as they can be read (the reader judges them).
struct Variables {
    std::vector<std::string> names;
    std::vector<double> values;
};

template <class Json>
Variables documentVariables(const Json& root) {
    Variables v;
    if (!root.is_object() || !root.contains("designVariables")) return v;
    const Json& list = root["designVariables"];
    if (!list.is_array()) return v;
    for (const Json& item : list) {
        if (!item.is_object() || !item.contains("name") || !item.contains("value")) continue;
        if (!item["name"].is_string() || !item["value"].is_number()) continue;
        v.names.push_back(item["name"].template get<std::string>());
        v.values.push_back(item["value"].template get<double>());
    }
    return v;
}

Variables specVariables(const SceneSpec& spec) {
    Variables v;
    for (const DesignVariableSpec& dv : spec.designVariables) {
        v.names.push_back(dv.name);
        v.values.push_back(dv.value);
    }
    return v;
}

// The value of a binding's expression; nullopt with the reason.
std::optional<double> evaluate(const std::string& expression, const Variables& variables,
                               std::string& error) {
    const std::size_t first = expression.find_first_not_of(" \t");
    if (first == std::string::npos) {
        error = "'=' must be followed by an expression of the design variables";
        return std::nullopt;
    }
    // Only names that can be muparser inputs: a malformed design variable is the reader's
    // error, not this binding's.
    Variables usable;
    for (std::size_t k = 0; k < variables.names.size(); ++k)
        if (variableNameError(variables.names[k]).empty() &&
            std::find(usable.names.begin(), usable.names.end(), variables.names[k]) ==
                usable.names.end()) {
            usable.names.push_back(variables.names[k]);
            usable.values.push_back(variables.values[k]);
        }
    std::string reason;
    const std::optional<Expression> e =
        Expression::parseWithInputs(expression, reason, usable.names);
    if (!e) {
        if (reason.find("nexpected token") != std::string::npos ||
            reason.find("nknown") != std::string::npos)
            reason += usable.names.empty() ? " (the scene defines no design variables)"
                                           : " (the design variables are " +
                                                 [&] {
                                                     std::string list;
                                                     for (const std::string& n : usable.names)
                                                         list += (list.empty() ? "" : ", ") + n;
                                                     return list;
                                                 }() +
                                                 ")";
        error = "bad binding '=" + expression + "': " + reason;
        return std::nullopt;
    }
    if (e->usesTime()) {
        error = "the binding '=" + expression +
                "' reads time: a field is bound to design variables only (its value is fixed "
                "before the run starts)";
        return std::nullopt;
    }
    const double value = e->eval(0.0, usable.values.data());
    if (!std::isfinite(value)) {
        error = "the binding '=" + expression + "' is " +
                (std::isnan(value) ? "not a number" : "infinite") +
                " with the design variables' values";
        return std::nullopt;
    }
    return value;
}

// At most this many bound fields in a scene (a file of "=L" strings all through it is refused
// before it takes long to read and to write).
constexpr std::size_t kMaxBindings = 100000;

// What resolving a document keeps: the values of the expressions met (by their text).
struct Resolving {
    const Variables& vars;
    std::vector<detail::FoundBinding>& found;
    Diagnostics& out;
    std::map<std::string, std::pair<std::optional<double>, std::string>> values;
    bool tooMany = false;
};

void resolve(json& node, const json& original, const std::string& pointer, Resolving& r) {
    if (node.is_object()) {
        for (auto it = node.begin(); it != node.end(); ++it) {
            const std::string& key = it.key();
            // Text: names, descriptions, mesh files.
            if (key == "name" || key == "description" || key == "file") continue;
            // The header and the design variables themselves are never bound.
            if (pointer.empty() && (key == "designVariables" || key == "version" ||
                                    key == "minorVersion" || key == "format"))
                continue;
            resolve(it.value(), original, pointer + "/" + escaped(key), r);
        }
        return;
    }
    if (node.is_array()) {
        for (std::size_t k = 0; k < node.size(); ++k)
            resolve(node[k], original, pointer + "/" + std::to_string(k), r);
        return;
    }
    if (!node.is_string()) return;
    const std::string& text = node.get_ref<const std::string&>();
    if (text.empty() || text.front() != '=') return;
    const std::string expression = text.substr(1);
    if (r.found.size() >= kMaxBindings) {
        if (!r.tooMany)
            r.out.push_back({Severity::Error, pointer,
                             "more than " + std::to_string(kMaxBindings) +
                                 " fields bound to design variables: a scene binds at most " +
                                 std::to_string(kMaxBindings)});
        r.tooMany = true;
        node = 0.0;
        return;
    }
    auto known = r.values.find(expression);
    if (known == r.values.end()) {
        std::string error;
        const std::optional<double> value = evaluate(expression, r.vars, error);
        known = r.values.emplace(expression, std::pair{value, error}).first;
    }
    const std::optional<double> value = known->second.first;
    if (!value) {
        r.out.push_back({Severity::Error, pointer, known->second.second});
        node = 0.0;
        return;
    }
    detail::FoundBinding b;
    b.pointer = pointer;
    b.expression = expression;
    b.group = groupOf(pointer);
    const json& holder = original.at(json::json_pointer(b.group));
    if (holder.is_array() || isOrientationGroup(b.group)) b.groupJson = holder.dump();
    r.found.push_back(std::move(b));
    // An integral value as an integer, so that integer fields (iterations) can be bound too.
    if (*value == std::floor(*value) && std::abs(*value) < 9007199254740992.0)
        node = static_cast<std::int64_t>(*value);
    else
        node = *value;
}

// Where each entity's object is in the file ("/parts/1/markers/0"), made once per write.
using Places = std::map<EntityId, std::string>;

Places placesOf(const SceneSpec& spec) {
    Places places{{kNoEntity, std::string()}};
    auto at = [](const char* list, std::size_t k) { return std::string(list) + std::to_string(k); };
    for (std::size_t p = 0; p < spec.parts.size(); ++p) {
        places[spec.parts[p].id] = at("/parts/", p);
        for (std::size_t m = 0; m < spec.parts[p].markers.size(); ++m)
            places[spec.parts[p].markers[m].id] = at("/parts/", p) + at("/markers/", m);
    }
    auto list = [&](const auto& items, const char* name) {
        for (std::size_t k = 0; k < items.size(); ++k) places[items[k].id] = at(name, k);
    };
    list(spec.joints, "/joints/");
    list(spec.forces, "/forces/");
    list(spec.motions, "/motions/");
    list(spec.couplers, "/couplers/");
    list(spec.contact.pairs, "/contact/pairs/");
    return places;
}

// The binding's field and holder from the file's root; false when its entity is gone.
bool placeOf(const Places& places, const BindingSpec& b, std::string& field, std::string& group) {
    const auto it = places.find(b.owner);
    if (it == places.end()) return false;
    field = it->second + b.field;
    group = it->second + b.group;
    return true;
}

// `doc` with the binding `b` put in; false when its entity is gone or its place is no more.
bool putBinding(const Places& places, const BindingSpec& b, ordered_json& doc) {
    std::string field, group;
    if (!placeOf(places, b, field, group)) return false;
    using Pointer = ordered_json::json_pointer;
    try {
        const Pointer parent = Pointer(field).parent_pointer();
        const bool parentHere = doc.contains(parent);
        if (isOrientationGroup(group) && !b.groupJson.empty()) {
            if (!doc.contains(Pointer(group).parent_pointer())) return false;
            doc[Pointer(group)] = ordered_json::parse(b.groupJson);
            return true;
        }
        if (parentHere) {
            ordered_json& holder = doc[parent];
            const std::string last = tokensOf(field).back();
            if (holder.is_array()) {
                if (last.empty() || last.size() > 9 ||
                    last.find_first_not_of("0123456789") != std::string::npos)
                    return false;
                const std::size_t index = std::stoul(last);
                if (index >= holder.size()) return false;
                holder[index] = "=" + b.expression;
                return true;
            }
            if (!holder.is_object()) return false;
            doc[Pointer(field)] = "=" + b.expression;
            return true;
        }
        if (!b.groupJson.empty()) {
            // A vector the writer left out (all zero): the file's own, with its bindings.
            const Pointer above = Pointer(group).parent_pointer();
            if (!doc.contains(above) || !doc[above].is_object()) return false;
            doc[Pointer(group)] = ordered_json::parse(b.groupJson);
            return true;
        }
        // An object the writer left out (all defaults), made on the way.
        for (Pointer p = parent; !p.empty(); p = p.parent_pointer())
            if (doc.contains(p) && !doc[p].is_object()) return false;
        doc[Pointer(field)] = "=" + b.expression;
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

std::string absolute(const SceneSpec& spec, const BindingSpec& b) {
    const std::optional<std::string> owner = spec.pointerOf(b.owner);
    return owner ? *owner + b.field : std::string();
}

// The value at `pointer` of `doc`, or null when it has none.
ordered_json valueAt(const ordered_json& doc, const std::string& pointer) {
    try {
        const ordered_json::json_pointer p(pointer);
        return doc.contains(p) ? doc.at(p) : ordered_json();
    } catch (const std::exception&) {
        return ordered_json();
    }
}

// The bindings of `spec` that hold, by index: written back, the document reads back as the
// scene written without them. One reading of the document tells which ones do not (their
// field, or orientation, reads back otherwise); those are left out and the rest read again,
// a few times at most — whatever the number of bindings, a write costs a few readings.
std::vector<std::size_t> holdingBindings(const SceneSpec& spec) {
    if (spec.bindings.empty()) return {};
    const Places places = placesOf(spec);
    const ordered_json written = ordered_json::parse(detail::sceneTextWithoutBindings(spec));
    const std::string text = written.dump();
    std::vector<std::size_t> candidates;
    {
        ordered_json probe = written;
        for (std::size_t k = 0; k < spec.bindings.size(); ++k)
            if (putBinding(places, spec.bindings[k], probe)) candidates.push_back(k);
    }
    for (int pass = 0; pass < 4 && !candidates.empty(); ++pass) {
        ordered_json doc = written;
        for (const std::size_t k : candidates) putBinding(places, spec.bindings[k], doc);
        const SceneLoadResult again = detail::reparseScene(doc.dump(), "", spec, false);
        if (!again.scene) return {};
        const ordered_json back =
            ordered_json::parse(detail::sceneTextWithoutBindings(*again.scene));
        if (back.dump() == text) return candidates;
        // Those whose place reads back otherwise do not hold.
        std::vector<std::size_t> kept;
        for (const std::size_t k : candidates) {
            std::string field, group;
            placeOf(places, spec.bindings[k], field, group);
            const std::string& where = isOrientationGroup(group) ? group : field;
            if (valueAt(back, where) == valueAt(written, where)) kept.push_back(k);
        }
        if (kept.size() == candidates.size()) return {};  // cannot tell which: none
        candidates = std::move(kept);
    }
    return {};
}

}  // namespace

namespace detail {

std::vector<FoundBinding> resolveBindings(json& root, Diagnostics& out) {
    std::vector<FoundBinding> found;
    if (!root.is_object()) return found;
    const Variables vars = documentVariables(root);
    const json original = root;
    Resolving r{vars, found, out, {}, false};
    resolve(root, original, "", r);
    return found;
}

void attachBindings(SceneSpec& spec, const std::vector<FoundBinding>& found) {
    for (const FoundBinding& f : found) {
        BindingSpec b;
        b.owner = spec.entityAt(f.pointer);
        const std::string owner = spec.pointerOf(b.owner).value_or("");
        b.field = f.pointer.substr(owner.size());
        b.group = f.group.size() >= owner.size() ? f.group.substr(owner.size()) : std::string();
        b.groupJson = f.groupJson;
        b.expression = f.expression;
        spec.bindings.push_back(std::move(b));
    }
}

void putBindings(const SceneSpec& spec, ordered_json& j) {
    const Places places = placesOf(spec);
    for (const std::size_t k : holdingBindings(spec)) putBinding(places, spec.bindings[k], j);
}

}  // namespace detail

std::vector<BoundField> boundFields(const SceneSpec& spec) {
    std::vector<BoundField> fields;
    const Variables vars = specVariables(spec);
    const Places places = placesOf(spec);
    for (const std::size_t k : holdingBindings(spec)) {
        const BindingSpec& b = spec.bindings[k];
        std::string error, field, group;
        placeOf(places, b, field, group);
        fields.push_back(
            {field, b.expression, evaluate(b.expression, vars, error).value_or(std::nan(""))});
    }
    return fields;
}

std::optional<BoundField> boundFieldAt(const SceneSpec& spec, const std::string& pointer) {
    for (BoundField& f : boundFields(spec))
        if (f.pointer == pointer) return std::move(f);
    return std::nullopt;
}

namespace {

// Reads `doc` anew in place of `spec` (ids kept); false with `error` (the first error).
bool rereadInto(SceneSpec& spec, const ordered_json& doc, const std::string& baseDirectory,
                std::string& error) {
    SceneLoadResult again = detail::reparseScene(doc.dump(), baseDirectory, spec, false);
    if (!again.scene) {
        for (const Diagnostic& d : again.diagnostics)
            if (d.severity == Severity::Error) {
                error = (d.where.empty() ? "" : d.where + ": ") + d.message;
                break;
            }
        if (error.empty()) error = "the scene cannot be read with these values";
        return false;
    }
    spec = std::move(*again.scene);
    return true;
}

}  // namespace

bool setDesignVariables(SceneSpec& spec, const std::vector<std::pair<std::string, double>>& values,
                        const std::string& baseDirectory, std::string& error) {
    ordered_json doc = ordered_json::parse(sceneToJson(spec));
    for (const auto& set : values) {
        const std::string& name = set.first;
        const double value = set.second;
        auto it = std::find_if(spec.designVariables.begin(), spec.designVariables.end(),
                               [&name](const DesignVariableSpec& v) { return v.name == name; });
        if (it == spec.designVariables.end()) {
            error = "no design variable '" + name + "'";
            return false;
        }
        if (!std::isfinite(value)) {
            error = "design variable '" + name + "' must be a finite number, got " +
                    numberText(value, 10);
            return false;
        }
        const std::size_t k = static_cast<std::size_t>(it - spec.designVariables.begin());
        doc["designVariables"][k]["value"] = value;
    }
    return rereadInto(spec, doc, baseDirectory, error);
}

bool bindField(SceneSpec& spec, const std::string& pointer, const std::string& expression,
               const std::string& baseDirectory, std::string& error) {
    std::string reason;
    if (!evaluate(expression, specVariables(spec), reason)) {
        error = pointer + ": " + reason;
        return false;
    }
    ordered_json doc = ordered_json::parse(sceneToJson(spec));
    using Pointer = ordered_json::json_pointer;
    try {
        const Pointer field(pointer);
        const Pointer parent = field.parent_pointer();
        const std::string last = tokensOf(pointer).empty() ? "" : tokensOf(pointer).back();
        if (!doc.contains(parent)) {
            // A vector left out as its default: zero, a scale one.
            const std::string key = tokensOf(pointer).size() >= 2
                                        ? tokensOf(pointer)[tokensOf(pointer).size() - 2]
                                        : "";
            doc[parent] = key == "scale" ? ordered_json::array({1.0, 1.0, 1.0})
                                         : ordered_json::array({0.0, 0.0, 0.0});
        }
        ordered_json& holder = doc[parent];
        if (holder.is_array()) {
            const std::size_t index = std::stoul(last);
            if (index >= holder.size() || !holder[index].is_number()) {
                error = pointer + ": no number there to bind";
                return false;
            }
            holder[index] = "=" + expression;
        } else if (holder.is_object()) {
            if (holder.contains(last) && !holder[last].is_number() && !holder[last].is_string()) {
                error = pointer + ": no number there to bind";
                return false;
            }
            doc[field] = "=" + expression;
        } else {
            error = pointer + ": no number there to bind";
            return false;
        }
    } catch (const std::exception&) {
        error = pointer + ": no such field in the scene";
        return false;
    }
    SceneSpec bound = spec;
    if (!rereadInto(bound, doc, baseDirectory, error)) return false;
    if (!boundFieldAt(bound, pointer)) {
        error = pointer + ": this field cannot be bound (it takes no number)";
        return false;
    }
    spec = std::move(bound);
    return true;
}

bool unbindField(SceneSpec& spec, const std::string& pointer) {
    const auto before = spec.bindings.size();
    std::erase_if(spec.bindings,
                  [&](const BindingSpec& b) { return absolute(spec, b) == pointer; });
    return spec.bindings.size() != before;
}

void renameDesignVariableInBindings(SceneSpec& spec, const std::string& from,
                                    const std::string& to) {
    auto isName = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    auto renamed = [&](const std::string& text) {
        std::string out;
        std::size_t k = 0;
        while (k < text.size()) {
            if (isName(text[k])) {
                std::size_t end = k;
                while (end < text.size() && isName(text[end])) ++end;
                const std::string word = text.substr(k, end - k);
                out += word == from ? to : word;
                k = end;
            } else {
                out += text[k++];
            }
        }
        return out;
    };
    for (BindingSpec& b : spec.bindings) {
        b.expression = renamed(b.expression);
        if (!b.groupJson.empty()) {
            // The holder's text keeps its bindings as "=…" strings.
            json holder = json::parse(b.groupJson, nullptr, false);
            auto walk = [&](auto&& self, json& node) -> void {
                if (node.is_structured()) {
                    for (auto& child : node) self(self, child);
                } else if (node.is_string()) {
                    const std::string& text = node.get_ref<const std::string&>();
                    if (!text.empty() && text.front() == '=') node = "=" + renamed(text.substr(1));
                }
            };
            walk(walk, holder);
            if (!holder.is_discarded()) b.groupJson = holder.dump();
        }
    }
}

std::string designVariableNameError(const SceneSpec& spec, const std::string& name) {
    if (std::string reason = variableNameError(name); !reason.empty()) {
        if (reason.rfind("variable name", 0) == 0) reason = "design " + reason;
        return reason;
    }
    for (const DesignVariableSpec& v : spec.designVariables)
        if (v.name == name) return "a design variable is already named '" + name + "'";
    for (const VariableSpec& v : spec.variables)
        if (v.name == name) return "a variable is already named '" + name + "'";
    return {};
}

}  // namespace engine::io
