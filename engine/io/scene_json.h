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
// Minor versions add keys and never change what existing keys mean. A file of a newer minor
// version than this Motus reads with its unknown keys kept as extensions (warnings, not
// errors), and saving writes them back. 1: contact, materials, collision filters, planes,
// joint controllers.
constexpr int kSceneFormatMinor = 1;

struct SceneLoadResult {
    std::optional<SceneSpec> scene;  // set when the file has no errors
    Diagnostics diagnostics;         // errors and warnings, in file order
};

// Parses scene JSON text. Mesh files named with relative paths are looked up in
// `baseDirectory` (the scene file's folder; the working directory when empty).
SceneLoadResult parseScene(std::string_view text, const std::string& baseDirectory = "");

// Reads and parses a scene file. I/O failures are reported as a diagnostic with where = "".
SceneLoadResult loadSceneFile(const std::string& path);

// The scene in the documented form (orientations as quaternions, exact numbers, defaults left
// out). Loading the result gives the same scene back, bit for bit.
std::string sceneToJson(const SceneSpec& spec);

// Writes the scene atomically (temporary file, flushed, renamed over `path`). False with
// `error` set on failure; the previous file is then untouched.
bool saveSceneFile(const SceneSpec& spec, const std::string& path, std::string& error);

}  // namespace engine::io
