#pragma once
// URDF import (urdfdom): links become parts with their inertials, visual geometry (drawn) and
// collision geometry (in contact): box, cylinder, sphere, meshes (STL, OBJ, Collada through
// Assimp; `package://` found as resource_path.h says). Joints become revolute (revolute,
// continuous), prismatic, fixed or planar joints with markers at the joint frames (the joint
// axis is the markers' z). A link named "world" is the ground, as is the root with fixedBase;
// otherwise the root link floats. Joint limits are read and reported, not yet enforced.
//
// Inertia data as found in the wild is imported: what is finite but unphysical (a zero or
// negative mass, a zero principal moment, moments violating the triangle inequality) is fixed
// as MuJoCo's compiler does, with a warning per link saying what was changed
// (engine/import/inertia_fixup.h); with `strict` it is an error instead. A massless link (no
// <inertial>, or zero mass and inertia) on a fixed joint is merged into its parent's part, as
// is a link fixed to a massless parent; a moving part with no mass at all is given a small
// one, with a warning. What is malformed — a number that is not finite, a joint axis of zero
// length, a loop of joints, a file with no links — is an error naming the link or joint
// ("link 'upper_arm'/inertial/mass"). Large files import in O(n log n) time with no recursion
// over the file's contents.

#include <optional>
#include <string>
#include <string_view>

#include "engine/import/robot_import.h"

namespace engine::io {

using UrdfImportResult = RobotImportResult;

UrdfImportResult importUrdfFile(const std::string& path, const RobotImportOptions& options = {});

// The same from URDF text. `path` is where the text came from: messages name it and meshes
// are looked up next to it. Empty for text from elsewhere: messages say "the URDF text" and
// relative mesh paths are looked up in the working directory.
UrdfImportResult importUrdf(std::string_view text, const std::string& path = "",
                            const RobotImportOptions& options = {});

}  // namespace engine::io
