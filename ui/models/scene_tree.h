#pragma once
// The scene tree shown in the left dock: Parts (with their geometry and markers as children),
// Joints, Forces, Motions, Couplers, Variables, Tables, Sensors, Contacts (pair entries) and Plots, two
// columns (name,
// details), an icon per kind. Each entity row carries its EntityId in kEntityIdRole so views can select by
// id; the names of entities are editable in place (the window turns that into a rename).

#include <Qt>

class QStandardItemModel;

namespace engine {
struct SceneSpec;
}

namespace ui {

constexpr int kEntityIdRole = Qt::UserRole + 1;
// A geometry row carries its part's id (selecting it shows the part, shapes included) and,
// in this role, its shape's index + 1 (0 on other rows): deleting it removes that shape.
constexpr int kShapeRole = Qt::UserRole + 2;
// A variable's row (SceneSpec::variables: no EntityId) carries its index + 1 in this role, the
// Variables heading −1, other rows 0; a variable's name is editable in place, as entities' are.
constexpr int kVariableRole = Qt::UserRole + 3;
// A sensor's row (SceneSpec::sensors: no EntityId) carries its index + 1 in this role, the
// Sensors heading −1, other rows 0; a sensor's name is editable in place.
constexpr int kSensorRole = Qt::UserRole + 4;
// A table's row (SceneSpec::tables: no EntityId) carries its index + 1 in this role, the Tables
// heading −1, other rows 0; a table's name is editable in place.
constexpr int kTableRole = Qt::UserRole + 5;

// Fills `model` (cleared first) from `spec`.
void populateSceneTree(QStandardItemModel& model, const engine::SceneSpec& spec);

}  // namespace ui
