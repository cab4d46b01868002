#pragma once
// MJCF import (MuJoCo's own compiler, libmujoco): the file is compiled by mj_loadXML exactly
// as MuJoCo would simulate it (defaults, <include>, inertiafromgeom, mesh inertias, angle
// units and euler sequences all resolved by MuJoCo), and the compiled mjModel becomes a scene:
//   - bodies are parts at their world poses at qpos0, with body_mass and body_inertia (principal
//     moments about the frame body_ipos/body_iquat) turned into p_PPcm and I_Pcm_P; the world
//     body is the ground part "world" when it has geoms or something is fixed or attached to it;
//   - joints: hinge → revolute, slide → prismatic, ball → spherical, free → none (the part
//     floats). A body with several joints (MuJoCo composes them, Motus joins two parts with one
//     joint): two perpendicular hinges at one anchor → universal; three hinges with independent
//     axes at one anchor → spherical (a warning says so); otherwise light intermediate parts,
//     one per extra joint, each named in a warning with its mass;
//   - joint stiffness and damping on a hinge → a rotational spring-damper; range, armature,
//     frictionloss, and stiffness or damping on other joints → a warning each;
//   - geoms are shapes (sphere, capsule, cylinder, box, plane on the world, meshes from the
//     compiled vertices and faces); contype = conaffinity = 0 makes a shape visual only;
//   - equalities: connect → spherical joint at the two points MuJoCo joins, weld → fixed joint
//     at the relative pose MuJoCo holds (its relpose, or the pose at qpos0), others → a warning;
//   - actuators: position servos → joint controllers holding the joint at its qpos0 angle;
//     motors and the rest have no control input in Motus and are left out with a warning;
//   - contact stays off; each part's collision filter comes from its geoms' contype and
//     conaffinity, and <exclude> pairs are contact pairs switched off. Gravity from the option.
// A file MuJoCo refuses is an error carrying MuJoCo's message; a model with no body besides
// the world is "not a robot description"; a number in the file that is not finite (which
// MuJoCo 2.2 reads without complaint) is an error naming its line and element.

#include <string>

#include "engine/import/robot_import.h"

namespace engine::io {

RobotImportResult importMjcfFile(const std::string& path, const RobotImportOptions& options = {});

}  // namespace engine::io
