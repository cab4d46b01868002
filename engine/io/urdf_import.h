#pragma once
// URDF import (urdfdom): links become parts with their inertials and visual geometry (box,
// cylinder, sphere, meshes), joints become revolute (revolute, continuous), prismatic, fixed
// or planar joints with markers at the joint frames (the joint axis is the markers' z). A
// link named "world" is the ground; otherwise the root link floats. Joint limits are read and
// reported, not yet enforced (they arrive with contact).
//
// Nothing is substituted for a bad value: a mass or moment of inertia that is not positive, a
// joint axis of zero length, any number that is not finite, a loop of joints, are errors that
// name the link or joint ("link 'upper_arm'/inertial/mass"). A link without <inertial> (URDF's
// massless frames) is given 1 g with a warning. Large files import in O(n log n) time with no
// recursion over the file's contents.

#include <optional>
#include <string>
#include <string_view>

#include "engine/io/robot_import.h"

namespace engine::io {

using UrdfImportResult = RobotImportResult;

UrdfImportResult importUrdfFile(const std::string& path, const RobotImportOptions& options = {});

// The same from URDF text. `path` is where the text came from: messages name it and meshes
// are looked up next to it. Empty for text from elsewhere: messages say "the URDF text" and
// relative mesh paths are looked up in the working directory.
UrdfImportResult importUrdf(std::string_view text, const std::string& path = "",
                            const RobotImportOptions& options = {});

}  // namespace engine::io
