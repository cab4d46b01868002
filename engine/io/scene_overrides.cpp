#include "engine/io/scene_overrides.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace engine::io {

namespace {

using nlohmann::json;

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

bool isIndex(const std::string& step) {
    return !step.empty() && step.size() < 10 &&
           step.find_first_not_of("0123456789") == std::string::npos;
}

// Applies one override to `doc`; an empty string, or what names nothing.
std::string apply(json& doc, const SceneOverride& o) {
    const std::vector<std::string> path = steps(o.path);
    if (path.empty()) return "names nothing (an empty path)";
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
            if (!at->contains(step) && !last)
                return "names nothing: " + (where.empty() ? std::string("/") : where) +
                       " has no key '" + step + "'";
            at = &(*at)[step];
        } else {
            return "names nothing: " + where + " is a value, not an object or an array";
        }
        where += "/" + step;
    }
    // JSON where the value is JSON; the text itself otherwise (an expression, a name).
    json value = json::parse(o.value, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) value = o.value;
    *at = std::move(value);
    return {};
}

}  // namespace

bool parseOverride(const std::string& text, SceneOverride& out, std::string& error) {
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0) {
        error = "an override is PATH=VALUE (e.g. /parts/crank/mass=2), got '" + text + "'";
        return false;
    }
    out.path = text.substr(0, eq);
    out.value = text.substr(eq + 1);
    return true;
}

SceneLoadResult loadSceneFile(const std::string& path,
                              const std::vector<SceneOverride>& overrides) {
    SceneLoadResult plain = loadSceneFile(path);
    if (overrides.empty() || !plain.scene) return plain;
    // The file passed every check: its JSON is bounded and well formed.
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    json doc = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    SceneLoadResult result;
    if (doc.is_discarded()) {
        result.diagnostics.push_back({Severity::Error, "", "the scene file changed while read"});
        return result;
    }
    for (const SceneOverride& o : overrides)
        if (const std::string problem = apply(doc, o); !problem.empty()) {
            result.diagnostics.push_back(
                {Severity::Error, o.path, "override " + o.path + "=" + o.value + " " + problem});
            return result;
        }
    return parseScene(doc.dump(), std::filesystem::path(path).parent_path().string());
}

}  // namespace engine::io
