#pragma once
// Edits of a SceneSpec that keep it consistent: renaming an entity updates every reference to
// it (markers named "part.marker" in joints and forces, joints named by motions and force
// elements, parts named by contact pairs, channels of the user's plots).

#include <string>

#include "engine/model/scene_spec.h"

namespace engine {

// Renames entity `id` to `name` and rewrites the references. False (spec unchanged) when
// there is no such entity; the new name is checked by validate(), not here.
bool renameEntity(SceneSpec& spec, EntityId id, const std::string& name);

// Name of entity `id` (part, marker as "part.marker", joint, force, motion, contact pair), or
// empty.
std::string entityName(const SceneSpec& spec, EntityId id);

}  // namespace engine
