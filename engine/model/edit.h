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
// when there is no such entity or it is the ground part.
std::vector<std::string> deleteEntity(SceneSpec& spec, EntityId id);

// Name of entity `id` (part, marker as "part.marker", joint, force, motion, contact pair), or
// empty.
std::string entityName(const SceneSpec& spec, EntityId id);

}  // namespace engine
