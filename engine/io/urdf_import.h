#pragma once
// URDF import (urdfdom): links become parts with their inertials and visual geometry (box,
// cylinder, sphere, meshes), joints become revolute (revolute, continuous), prismatic, fixed
// or planar joints with markers at the joint frames (the joint axis is the markers' z). A
// link named "world" is the ground; otherwise the root link floats. Joint limits are read and
// reported, not yet enforced (they arrive with contact).

#include <optional>
#include <string>

#include "engine/model/diagnostic.h"
#include "engine/model/scene_spec.h"

namespace engine::io {

struct UrdfImportResult {
    std::optional<SceneSpec> scene;
    Diagnostics diagnostics;  // errors, and warnings for what was approximated or skipped
};

UrdfImportResult importUrdfFile(const std::string& path);

}  // namespace engine::io
