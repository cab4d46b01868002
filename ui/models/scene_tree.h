#pragma once
// The scene tree shown in the left dock: Parts (with their geometry and markers as children),
// Joints, Forces and Motions, two columns (name, details). Each entity row carries its EntityId in
// kEntityIdRole so views can select by id.

#include <Qt>

class QStandardItemModel;

namespace engine {
struct SceneSpec;
}

namespace ui {

constexpr int kEntityIdRole = Qt::UserRole + 1;

// Fills `model` (cleared first) from `spec`.
void populateSceneTree(QStandardItemModel& model, const engine::SceneSpec& spec);

}  // namespace ui
