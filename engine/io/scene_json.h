#pragma once
// Reading scene files ("format": "motus-scene"). The layout is documented in
// docs/scene-format.md. Every problem in a file is reported at once, each with the JSON
// pointer of the offending value; structural problems (syntax, types, unknown keys) come
// from the reader, semantic ones (references, mass properties) from validate().

#include <optional>
#include <string>
#include <string_view>

#include "engine/model/diagnostic.h"
#include "engine/model/scene_spec.h"

namespace engine::io {

constexpr int kSceneFormatVersion = 1;

struct SceneLoadResult {
    std::optional<SceneSpec> scene;  // set when the file has no errors
    Diagnostics diagnostics;         // errors and warnings, in file order
};

// Parses scene JSON text. Mesh files named with relative paths are looked up in
// `baseDirectory` (the scene file's folder; the working directory when empty).
SceneLoadResult parseScene(std::string_view text, const std::string& baseDirectory = "");

// Reads and parses a scene file. I/O failures are reported as a diagnostic with where = "".
SceneLoadResult loadSceneFile(const std::string& path);

}  // namespace engine::io
