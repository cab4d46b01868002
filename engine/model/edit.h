#pragma once
// Edits of a SceneSpec that keep it consistent: renaming an entity updates every reference to
// it (markers named "part.marker" in joints and forces, joints named by motions and force
// elements, parts named by contact pairs, channels of the user's plots).

#include <string>
#include <vector>

#include "engine/model/scene_spec.h"

namespace engine {

// Renames entity `id` to `name` and rewrites the references. False (spec unchanged) when
// there is no such entity; the new name is checked by validate(), not here.
bool renameEntity(SceneSpec& spec, EntityId id, const std::string& name);

// Deletes entity `id` and what cannot exist without it: a part takes its markers, the joints
// and forces on them, the motions and controllers on those joints and its contact pairs; a
// marker takes its joints and forces (and their dependants); a joint takes its motions and
// the forces acting on it. Returns the names of everything removed (the entity first), empty
// when there is no such entity or it is the ground part. The force elements, variables and
// sensors whose expressions read what went (a measure of a removed part, marker or joint, a
// removed variable) go with it.
std::vector<std::string> deleteEntity(SceneSpec& spec, EntityId id);
// The same without the expressions' readers.
std::vector<std::string> deleteEntityOnly(SceneSpec& spec, EntityId id);

// Where copies go: first mirrored in the plane through `mirrorPoint` whose normal is the world
// axis `mirrorAxis` (0 x, 1 y, 2 z; −1 no mirror), then moved by the rigid motion X (world).
// A mirrored part is a proper rigid body again: with S the reflection, its pose becomes
// (S R S, S p) and everything in its own frame (markers, shapes, centre of mass, inertia S I S)
// is reflected by the same S, so every point lands on its mirror image and joints between
// mirrored parts stay closed.
struct CopyPlacement {
    Transform X;
    int mirrorAxis = -1;
    Vec3 mirrorPoint = Vec3::Zero();
};

// Copies the parts `parts` of `source` (by id; not the ground) into `target` with their
// markers and shapes, and with everything whose every reference lies inside the copy: joints
// between the copied parts, the forces on their markers or on those joints, motions and
// controllers on those joints, contact pair settings between them. Copies get fresh ids and
// names unique in `target` (a name taken already: "crank" → "crank_2"), and the references among them follow. Returns
// the new parts' ids in order; empty with `error` set when nothing can be copied (no such part,
// the ground, a mesh shape to mirror: a mirrored mesh would need a file of its own).
std::vector<EntityId> copyParts(SceneSpec& target, const SceneSpec& source,
                                const std::vector<EntityId>& parts, const CopyPlacement& placement,
                                std::string& error);

// Name of entity `id` (part, marker as "part.marker", joint, force, motion, contact pair), or
// empty.
std::string entityName(const SceneSpec& spec, EntityId id);

}  // namespace engine
