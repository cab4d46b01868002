#pragma once
// The Scene panel: the document's parts (with their markers and shapes), joints, forces,
// motions, couplers, variables, sensors and contact pairs as a tree. Selecting rows selects the entities
// everywhere; names are edited in place (through validation and the undo stack); Delete
// removes the selection and what depends on it; the context menu plots what a run records of
// an entity. Rebuilt after an edit, it keeps the user's column widths.

#include <vector>

#include <QString>
#include <QTreeView>

#include "engine/model/entity_id.h"
#include "ui/mainwindow/window_parts.h"

class QMenu;
class QStandardItemModel;

namespace engine {
struct SceneSpec;
}

namespace ui {

class PlotWidget;

class SceneTreePanel : public QTreeView {
    Q_OBJECT

public:
    explicit SceneTreePanel(const WindowParts& parts, QWidget* parent = nullptr);

    // Fills the tree with `scene` (none: empty), its top level expanded, the Name column at
    // least `nameWidth` and wide enough for the names it shows. The selection signals stay
    // quiet.
    void rebuild(const engine::SceneSpec* scene, int nameWidth);
    // The same scene after an edit: the rows the user expanded stay expanded, the scroll
    // position and the column widths stay.
    void update(const engine::SceneSpec& scene);
    // Selects the entity's row; `shape` (1-based) a part's geometry row; 0 clears. `scroll`:
    // scrolled into view.
    void selectEntity(quint64 entity, int shape = 0, bool scroll = true);
    // The selected entities (whole ones: a shape's row is not its part).
    std::vector<engine::EntityId> selectedEntities() const;

    // Edit > Delete: the selected entities and what depends on them, as one undoable edit.
    void deleteSelection();
    // Edit > Add Part: a 0.1 m, 1 kg cube 0.5 m above the origin, selected for editing.
    void addPart();
    // Edit > Add Variable: a variable "v1" (or the next free name) of value 0, selected for
    // editing; returns its index (−1: not added).
    int addVariable();
    // Selects the row of the scene's variable `index`.
    void selectVariable(int index, bool scroll = true);
    // The selected variable's index (the first selected), −1 when none is.
    int selectedVariable() const;
    // Renames variable `index` and the expressions that read it, as one undoable edit.
    void renameVariable(int index, const QString& name);
    // Edit > Add Sensor: a sensor "sensor1" (or the next free name) watching "0" cross 0 either
    // way and stopping the run, selected for editing; returns its index (−1: not added).
    int addSensor();
    // Selects the row of the scene's sensor `index`.
    void selectSensor(int index, bool scroll = true);
    // The selected sensor's index (the first selected), −1 when none is.
    int selectedSensor() const;
    // Renames sensor `index`, as one undoable edit (refused, with the reason in the messages,
    // for a name another sensor has or that is no identifier).
    void renameSensor(int index, const QString& name);
    // Edit > Add Table: a table "table1" (or the next free name) of the line y = x through two
    // points, selected for editing. Its index, −1 when there is no scene.
    int addTable();
    // Selects the row of the scene's table `index`.
    void selectTable(int index, bool scroll = true);
    // The selected table's index (the first selected), −1 when none is.
    int selectedTable() const;
    // Renames table `index` with the force laws and expressions that read it, as one undoable
    // edit (refused, with the reason in the messages, for a name taken or not an identifier).
    void renameTable(int index, const QString& name);
    // Renames an entity (as typed in the tree), through validation and the undo stack.
    void renameEntity(quint64 id, const QString& name);
    // The context menu's Plot Reaction Force: world Fx, Fy, Fz and |F| of a joint of the open
    // scene (null with no run, or no such joint).
    PlotWidget* plotReactionForce(const QString& joint);

    // The context menu of an entity's row: plots of what a run records of it (with a run),
    // a part's translucency.
    void fillMenu(QMenu& menu, engine::EntityId id);

signals:
    // The user selected these rows (the first entity's `shape` row, 0 for a whole entity).
    void selectionChangedTo(const std::vector<quint64>& entities, int shape);
    // The user selected a variable's row and no entity (its index in SceneSpec::variables).
    void variableSelected(int index);
    // The user selected a sensor's row and no entity (its index in SceneSpec::sensors).
    void sensorSelected(int index);
    // The user selected a table's row and no entity (its index in SceneSpec::tables).
    void tableSelected(int index);
    // selectEntity() picked this entity (also when it was selected already).
    void entityPicked(engine::EntityId entity);

private:
    void showMenu(const QPoint& position);
    void fitNameColumn(int width);
    // Selects the row whose `role` (kVariableRole, kSensorRole) holds `index` + 1.
    void selectListed(int role, int index, bool scroll);
    // The first selected row's `role` index, −1 when none has one.
    int selectedListed(int role) const;
    // The scene `after` a rename of `old` to `name` as one undoable edit; a refusal is said in
    // Messages and the old name comes back in the tree. False when refused.
    bool commitRename(engine::SceneSpec after, const QString& old, const QString& name);
    // The scene `after` adding `what` (a variable, a sensor) called `name`, as one undoable
    // edit; a refusal is said in Messages. False when refused.
    bool commitAdd(engine::SceneSpec after, const QString& what, const QString& name);

    WindowParts parts_;
    QStandardItemModel* model_ = nullptr;
};

}  // namespace ui
