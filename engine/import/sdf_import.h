#pragma once
// SDF import (libsdformat): the models of an SDF file — its root model, or every model of its
// first world, nested models included — become one scene. Links are parts placed where the
// file puts them (each pose resolved in the world), with their inertials run through the
// inertia fix-ups (engine/import/inertia_fixup.h), their visuals drawn only and their collisions
// touched only. Joints become joints with markers at the joint frame (the child link's frame
// moved by the joint's pose), z along the axis wherever the file expresses it:
//   revolute, continuous → revolute;  prismatic → prismatic;  fixed → fixed;
//   ball → spherical;  universal → universal (cross pins along axis and axis2);
//   revolute2, and a universal whose axes are not perpendicular → two revolutes joined by a
//   light part of kIntermediateMass at the joint frame (with a warning);
//   screw, gearbox → left out (a warning).
// A joint to "world", and every link of a static model, hold on to the one ground part
// ("world"). Limits, damping, friction and springs are read and reported, not enforced.
// Errors of libsdformat name the file, the line and the element; numbers that are not finite
// and a file with no link are errors too, never an exception.
// <include> URIs are found as libsdformat finds them, then through the package path
// (resource_path.h). Before libsdformat reads anything, the file and its includes are scanned:
// a cycle of includes (or a chain deeper than 32), an included file that is a FIFO or a
// device, and a file whose elements libsdformat would need more than 1.5 GB to read (about
// 0.9 MB a link) are refused, naming the chain, the file or the counts.

#include <string>

#include "engine/import/robot_import.h"

namespace engine::io {

// kg: the part between the two revolutes of a revolute2 joint (a 1 cm ball's worth of inertia).
constexpr double kIntermediateMass = 1e-3;

RobotImportResult importSdfFile(const std::string& path, const RobotImportOptions& options = {});

// The checks above made before libsdformat reads anything (importSdfFile makes them first): ""
// when `path` and what it includes may be read, else why not, naming the file, the chain of
// includes or the counts.
std::string sdfReadProblem(const std::string& path, const RobotImportOptions& options = {});

}  // namespace engine::io
