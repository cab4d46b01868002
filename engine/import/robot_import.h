#pragma once
// Robot descriptions as people have them — URDF (urdfdom), MJCF (MuJoCo's own compiler) and
// SDF (libsdformat) — each becomes a scene: links or bodies are parts with their inertials
// and shapes (visual geometry drawn, collision geometry in contact), joints are joints with
// markers at the joint frames. What has no counterpart in Motus is listed in the warnings,
// never dropped silently; what is malformed (a number that is not finite, a file that is not a
// robot description) is an error naming the place.

#include <optional>
#include <string>
#include <vector>

#include "engine/io/child_process.h"
#include "engine/model/diagnostic.h"
#include "engine/model/scene_spec.h"

namespace engine::io {

enum class RobotFormat { Urdf, Mjcf, Sdf };

struct RobotImportOptions {
    // Inertia data that is degenerate or physically inconsistent (engine/import/inertia_fixup.h):
    // refused with an error instead of fixed with a warning.
    bool strict = false;
    // Every link's centre of mass and inertia computed from its collision geometry (its visual
    // geometry when it has none), keeping the file's mass (a massless link gets water's
    // density). URDF and SDF; MJCF has its compiler's own `inertiafromgeom`.
    bool inertiaFromGeometry = false;
    // The root link welded to the ground instead of floating (a robot arm bolted down).
    bool fixedBase = false;
    // Folders searched for `package://NAME/…` (each folder is NAME itself when its package.xml
    // names NAME, or holds NAME below it); then the folders of ROS_PACKAGE_PATH, then the
    // folders above the file.
    std::vector<std::string> packagePath;
    // Memory and time given to MuJoCo's compiler (MJCF), which runs in a process of its own.
    ChildLimits compilerLimits;
};

struct RobotImportResult {
    std::optional<SceneSpec> scene;  // set when there are no errors
    Diagnostics diagnostics;         // errors, and warnings for what was changed or left out
};

// The format of a description file: by its extension (.urdf; .mjcf; .sdf, .world), and for
// .xml by its root element (<robot>, <mujoco>, <sdf>). Nullopt with `why` set otherwise.
std::optional<RobotFormat> robotFormatOf(const std::string& path, std::string& why);

std::string_view robotFormatName(RobotFormat format);  // "URDF", "MJCF", "SDF"

// Reads the file in its format (robotFormatOf).
RobotImportResult importRobotFile(const std::string& path, const RobotImportOptions& options = {});

}  // namespace engine::io
