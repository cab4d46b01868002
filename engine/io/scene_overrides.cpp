#include "engine/io/scene_overrides.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

namespace engine::io {

namespace {

using nlohmann::json;

// At most kQuoteChars bytes of `text` for a message, cut between characters.
std::string quoted(const std::string& text) {
    if (text.size() <= kQuoteChars) return text;
    std::size_t end = kQuoteChars;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    return text.substr(0, end) + "…";
}

// PATH's steps: a JSON pointer's (with ~1 and ~0 unescaped) or, without a leading '/', the
// dotted form's.
std::vector<std::string> steps(const std::string& path) {
    std::vector<std::string> out;
    if (path.empty()) return out;
    const bool pointer = path.front() == '/';
    const char separator = pointer ? '/' : '.';
    std::string step;
    std::istringstream in(pointer ? path.substr(1) : path);
    while (std::getline(in, step, separator)) {
        if (pointer) {
            for (std::size_t at; (at = step.find("~1")) != std::string::npos;)
                step.replace(at, 2, "/");
            for (std::size_t at; (at = step.find("~0")) != std::string::npos;)
                step.replace(at, 2, "~");
        }
        out.push_back(step);
    }
    return out;
}

// How deep a JSON text nests its arrays and objects (strings skipped): what the scene reader
// allows is checked before anything parses the text.
int nesting(const std::string& text) {
    int depth = 0, deepest = 0;
    bool inString = false;
    for (std::size_t k = 0; k < text.size(); ++k) {
        const char c = text[k];
        if (inString) {
            if (c == '\\')
                ++k;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return deepest;
}

bool isIndex(const std::string& step) {
    return !step.empty() && step.size() < 10 &&
           step.find_first_not_of("0123456789") == std::string::npos;
}

// Applies one override to `doc`; an empty string, or what names nothing.
std::string apply(json& doc, const SceneOverride& o) {
    const std::vector<std::string> path = steps(o.path);
    if (path.empty()) return "names nothing (an empty path)";
    if (o.path.size() > 1 && (o.path.back() == '/' || o.path.back() == '.'))
        return "names nothing (the path ends with a separator)";
    json* at = &doc;
    std::string where;
    for (std::size_t k = 0; k < path.size(); ++k) {
        const std::string& step = path[k];
        const bool last = k + 1 == path.size();
        if (at->is_array()) {
            json* next = nullptr;
            if (isIndex(step)) {
                const auto index = static_cast<std::size_t>(std::stoul(step));
                if (index < at->size()) next = &(*at)[index];
            } else {
                for (json& element : *at)
                    if (element.is_object() && element.contains("name") &&
                        element["name"] == step) {
                        next = &element;
                        break;
                    }
            }
            if (!next)
                return "names nothing: " + (where.empty() ? std::string("/") : where) +
                       " has no element " + (isIndex(step) ? step : "named '" + step + "'");
            at = next;
        } else if (at->is_object()) {
            // The scene's own sections, which a file may leave out (their defaults), are there
            // to set keys in.
            const bool section = k == 0 && (step == "settings" || step == "contact");
            if (!at->contains(step) && !last && !section)
                return "names nothing: " + (where.empty() ? std::string("/") : where) +
                       " has no key '" + step + "'";
            if (section && !at->contains(step)) (*at)[step] = json::object();
            at = &(*at)[step];
        } else {
            return "names nothing: " + where + " is a value, not an object or an array";
        }
        where += "/" + step;
    }
    // JSON where the value is JSON; the text itself otherwise (an expression, a name).
    if (nesting(o.value) > kMaxSceneNesting - static_cast<int>(path.size()))
        return "nests its value deeper than a scene file may";
    json value = json::parse(o.value, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) {
        // A number beyond a double's range is JSON that does not parse: said so, not taken
        // as text (which the reader would then call "a string").
        try {
            const json unused = json::parse(o.value);
            (void)unused;
        } catch (const json::out_of_range& e) {
            const std::string what = e.what();
            const std::size_t open = what.find('\''), close = what.rfind('\'');
            const std::string number = open != std::string::npos && close > open
                                           ? what.substr(open + 1, close - open - 1)
                                           : o.value;
            return "is refused: " + quoted(number) +
                   " is out of range of a double (whose magnitude is at most 1.8e308)";
        } catch (const json::exception&) {
        }
        value = o.value;
    }
    *at = std::move(value);
    return {};
}

}  // namespace

bool parseOverride(const std::string& text, SceneOverride& out, std::string& error) {
    // Overrides come from a terminal or a cases file in any encoding: text that is not UTF-8 is
    // refused here, with where, as in a scene file.
    if (const std::size_t bad = detail::invalidUtf8Offset(text); bad != std::string::npos) {
        error = "an override is UTF-8 text; byte " + std::to_string(bad + 1) + " is not";
        return false;
    }
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0) {
        error = "an override is PATH=VALUE (e.g. /parts/crank/mass=2), got '" + quoted(text) + "'";
        return false;
    }
    out.path = text.substr(0, eq);
    out.value = text.substr(eq + 1);
    return true;
}

SceneLoadResult loadSceneFile(const std::string& path,
                              const std::vector<SceneOverride>& overrides) {
    if (overrides.empty()) return loadSceneFile(path);
    // The file read once, its text read as it is and then as overridden (parseScene below):
    // every check on hostile text applies to the very bytes the overrides are applied to.
    SceneLoadResult result;
    std::string text;
    if (!detail::readSceneFileText(path, text, result.diagnostics)) return result;
    return parseScene(text, std::filesystem::path(path).parent_path().string(), overrides);
}

SceneLoadResult parseScene(std::string_view text, const std::string& baseDirectory,
                           const std::vector<SceneOverride>& overrides) {
    // Every check on hostile text first: then its JSON is bounded and well formed.
    SceneLoadResult plain = parseScene(text, baseDirectory);
    if (overrides.empty() || !plain.scene) return plain;
    SceneLoadResult result;
    json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) {
        result.diagnostics.push_back({Severity::Error, "", "the scene is not JSON"});
        return result;
    }
    for (const SceneOverride& o : overrides) {
        // Text that is not UTF-8 is never quoted back.
        if (const std::size_t bad = detail::invalidUtf8Offset(o.path + "=" + o.value);
            bad != std::string::npos) {
            result.diagnostics.push_back({Severity::Error, "",
                                          "an override is not UTF-8 text (byte " +
                                              std::to_string(bad + 1) + " of PATH=VALUE is not)"});
            return result;
        }
        const std::string problem = apply(doc, o);
        if (!problem.empty()) {
            result.diagnostics.push_back(
                {Severity::Error, "",
                 "override " + quoted(o.path) + "=" + quoted(o.value) + " " + problem});
            return result;
        }
    }
    std::string text2;
    try {
        text2 = doc.dump();
    } catch (const json::exception& e) {
        result.diagnostics.push_back({Severity::Error, "", std::string("overrides: ") + e.what()});
        return result;
    }
    // (each mesh file as loaded by the plain read, where the overrides left its name alone)
    return detail::parseSceneWithMeshesOf(text2, baseDirectory, *plain.scene);
}

}  // namespace engine::io
