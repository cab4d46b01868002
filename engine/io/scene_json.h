#pragma once
// Reading scene files ("format": "motus-scene"). The layout is documented in
// docs/scene-format.md. Every problem in a file is reported at once, each with the JSON
// pointer of the offending value; structural problems (syntax, types, unknown keys) come
// from the reader, semantic ones (references, mass properties) from validate().

#include <cstddef>
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
// joint controllers. 2: settings outputInterval and maxStep (a dopri45 file of an earlier
// minor version reads its stepSize as its largest step too, as it was then). 3: soft contact
// by frequency and dampingRatio. 4: soft joints (a joint's `soft` block). 5: a plot's `x`
// channel (x-y plots). 6: a shape's `role` (visual or collision only). 7: settings
// endTime. 8: joint limits (a joint's `limits`).
constexpr int kSceneFormatMinor = 22;

// Hostile files. A scene nests arrays and objects at most 7 deep (a shape's orientation
// quaternion, in a shape, in a part); a file nested deeper than this is refused before it is
// parsed, so nothing in Motus ever walks a deeper document. A file that is not UTF-8 text is
// refused with the offset of its first bad byte. Messages quote at most kQuoteChars characters
// of anything from the file, escaped, and never contain bytes that are not UTF-8.
constexpr int kMaxSceneNesting = 64;
constexpr std::size_t kQuoteChars = 60;

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
// out; an orientation not of unit length to round-off is normalised). Loading the result gives
// the same scene back, bit for bit. A mesh held in memory only is written with an empty file
// name, which the reader refuses: only saveSceneFile writes such meshes
// (sceneHoldsMeshesInMemory tells).
std::string sceneToJson(const SceneSpec& spec);

// Writes the scene atomically (engine/io/output_file.h: a unique temporary, synced, renamed
// over `path`; a FIFO or a character device written in place). False with
// `error` set on failure; the previous file is then untouched. A scene the reader would refuse
// (a number that is not finite, an orientation that is no rotation, text that is not UTF-8)
// is not written: false, with `error` naming the value. Meshes held in memory only (a shape
// with mesh triangles and no meshFile: an MJCF robot's meshes as MuJoCo compiled them) are
// written as OBJ files in a folder beside the scene named after it ("robot.json":
// "robot_meshes/<part>_<shape>.obj"), which the written scene names; a file already holding
// the same mesh is left as it is. Such a scene cannot be written to a FIFO or a device.
bool saveSceneFile(const SceneSpec& spec, const std::string& path, std::string& error);

// Whether a mesh shape of the scene is held in memory only (see saveSceneFile).
bool sceneHoldsMeshesInMemory(const SceneSpec& spec);

// The meshes `spec` holds in memory only, written as saveSceneFile writes them beside the file
// `path` (a scene, or a run file whose scene holds them), and named in `spec` relative to it.
// False with `error` set.
bool writeMeshesBeside(SceneSpec& spec, const std::string& path, std::string& error);

namespace detail {

// Whether a quaternion [w, x, y, z] has unit length to round-off (within 4 ε): the reader keeps
// such a quaternion exactly as written and normalises any other, so the writer writes only these.
bool isUnitToRoundOff(double w, double x, double y, double z);

// Offset of the first byte of `text` that is not part of well-formed UTF-8 (RFC 3629), or npos.
std::size_t invalidUtf8Offset(std::string_view text);

// `text` with each byte that is not part of well-formed UTF-8 replaced by U+FFFD: free text from
// an imported file (a robot's name) kept as a scene can hold.
std::string withValidUtf8(std::string_view text);

// Reads scene text written from `previous` (its structure: the same entities in the same
// order) as parseScene does, reusing the meshes `previous` holds shape by shape (those held in
// memory only too) and giving every entity the id it has in `previous`; validate() runs only
// when `validate` is set. How a scene is read anew after its design variables change.
SceneLoadResult reparseScene(std::string_view text, const std::string& baseDirectory,
                             const SceneSpec& previous, bool validate);

// Reads `text` as parseScene does, but a shape naming the same mesh file at the same place as in
// `previous` (read from the same folder) takes the mesh `previous` holds: a scene read once more
// with a few values changed (motus-cli --set) loads each mesh once, not twice.
SceneLoadResult parseSceneWithMeshesOf(std::string_view text, const std::string& baseDirectory,
                                       const SceneSpec& previous);

// A scene file's text, read with loadSceneFile's checks (a regular file within the size limit);
// false with the problem in `diagnostics` (where = "").
bool readSceneFileText(const std::string& path, std::string& text, Diagnostics& diagnostics);

// The scene's file text without its bindings (every bound field as its number), compact.
std::string sceneTextWithoutBindings(const SceneSpec& spec);

}  // namespace detail

}  // namespace engine::io
