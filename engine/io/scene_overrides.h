#pragma once
// Values of a scene file set from outside it, for parameter studies (motus-cli --set and batch).
//
// An override is PATH=VALUE. PATH is a JSON pointer into the scene file ("/parts/1/mass") in
// which an array step may name an element by its "name" instead of its index
// ("/parts/crank/mass", "/motions/drive/expression"); the same with dots ("parts.crank.mass")
// for the shell. VALUE is JSON (2, 1e-3, [0, 0, 1], true, "text") or, when it is not, the text
// itself (360d*time); a number beyond a double's range (1e999) is refused as such. A key
// missing from an object is added (the reader then judges it as in a file); a step that names
// nothing is an error naming the override and the step.
//
// The file is read as usual first (every check on hostile files applies before anything else
// touches it), the overrides applied to its JSON in order, and the result read again: the
// diagnostics are those of the scene as overridden.

#include <string>
#include <string_view>
#include <vector>

#include "engine/io/scene_json.h"

namespace engine::io {

struct SceneOverride {
    std::string path;   // as given
    std::string value;  // as given
};

// Splits PATH=VALUE at the first '='; false with `error` set when there is none or no path.
bool parseOverride(const std::string& text, SceneOverride& out, std::string& error);

// Reads a scene file with `overrides` applied (loadSceneFile when there are none).
SceneLoadResult loadSceneFile(const std::string& path, const std::vector<SceneOverride>& overrides);
// The same for a scene's text (which parseScene() has read without errors: the overrides are
// applied to its JSON, then it is read again), its meshes' paths relative to `baseDirectory`.
SceneLoadResult parseScene(std::string_view text, const std::string& baseDirectory,
                           const std::vector<SceneOverride>& overrides);

}  // namespace engine::io
