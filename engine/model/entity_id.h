#pragma once
// The identity of a scene's entities, on its own so that what reports about them (a status,
// a diagnostic) need not include the scene.

#include <cstdint>

namespace engine {

// Stable identity of an entity within a document: never reused, survives renames and
// reordering, so the GUI can select, edit and undo by id.
using EntityId = std::uint32_t;
constexpr EntityId kNoEntity = 0;

}  // namespace engine
