#include "ui/mainwindow/scene_tree_panel.h"

#include <algorithm>
#include <functional>

#include <QHeaderView>
#include <QMenu>
#include <QScrollBar>
#include <QSet>
#include <QSignalBlocker>
#include <QStandardItemModel>
#include <QStyle>

#include "engine/model/construct.h"
#include "engine/model/edit.h"
#include "engine/model/scene_spec.h"
#include "engine/record/channel_names.h"
#include "ui/common/text.h"
#include "ui/common/variables.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/messages_panel.h"
#include "ui/models/scene_tree.h"
#include "ui/plots/plots_panel.h"
#include "ui/session/simulation_session.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {

SceneTreePanel::SceneTreePanel(const WindowParts& parts, QWidget* parent)
    : QTreeView(parent), parts_(parts) {
    model_ = new QStandardItemModel(this);
    setObjectName(QStringLiteral("SceneTree"));
    setModel(model_);
    setUniformRowHeights(true);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    connect(selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        std::vector<quint64> selected;
        int shape = 0;  // a geometry row: its part, narrowed to that shape
        for (const QModelIndex& index : selectionModel()->selectedRows())
            if (const quint64 id = index.data(kEntityIdRole).toULongLong()) {
                if (selected.empty()) shape = index.data(kShapeRole).toInt();
                selected.push_back(id);
            }
        emit selectionChangedTo(selected, shape);
        if (const int variable = selectedVariable(); variable >= 0 && selected.empty())
            emit variableSelected(variable);
        else if (const int sensor = selectedSensor(); sensor >= 0 && selected.empty())
            emit sensorSelected(sensor);
        else if (const int table = selectedTable(); table >= 0 && selected.empty())
            emit tableSelected(table);
    });
    connect(this, &QTreeView::expanded, this, [this] { fitNameColumn(header()->sectionSize(0)); });
    // Renaming in place: the new name goes through validation and the undo stack, after the
    // tree's own edit has finished (the tree is rebuilt by the edit).
    connect(model_, &QStandardItemModel::itemChanged, this, [this](QStandardItem* item) {
        if (item->column() != 0) return;
        const auto id = static_cast<engine::EntityId>(item->data(kEntityIdRole).toULongLong());
        const QString text = item->text().trimmed();
        if (const int variable = item->data(kVariableRole).toInt() - 1; variable >= 0) {
            QMetaObject::invokeMethod(
                this, [this, variable, text] { renameVariable(variable, text); },
                Qt::QueuedConnection);
            return;
        }
        if (const int sensor = item->data(kSensorRole).toInt() - 1; sensor >= 0) {
            QMetaObject::invokeMethod(
                this, [this, sensor, text] { renameSensor(sensor, text); }, Qt::QueuedConnection);
            return;
        }
        if (const int table = item->data(kTableRole).toInt() - 1; table >= 0) {
            QMetaObject::invokeMethod(
                this, [this, table, text] { renameTable(table, text); }, Qt::QueuedConnection);
            return;
        }
        if (id == engine::kNoEntity) return;
        QMetaObject::invokeMethod(
            this, [this, id, text] { renameEntity(id, text); }, Qt::QueuedConnection);
    });
    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(this, &QTreeView::customContextMenuRequested, this, &SceneTreePanel::showMenu);
}

void SceneTreePanel::rebuild(const engine::SceneSpec* scene, int nameWidth) {
    {
        const QSignalBlocker block(selectionModel());
        if (scene)
            populateSceneTree(*model_, *scene);
        else
            model_->clear();
        expandToDepth(0);
    }
    fitNameColumn(nameWidth);
}

namespace {

// A row as the user knows it across a rebuild: its entity (and shape), its variable, or its
// heading.
QString rowKey(const QModelIndex& index) {
    const quint64 id = index.data(kEntityIdRole).toULongLong();
    if (const int variable = index.data(kVariableRole).toInt(); variable > 0)
        return QStringLiteral("variable/%1").arg(variable);
    if (const int sensor = index.data(kSensorRole).toInt(); sensor > 0)
        return QStringLiteral("sensor/%1").arg(sensor);
    if (const int table = index.data(kTableRole).toInt(); table > 0)
        return QStringLiteral("table/%1").arg(table);
    return id ? QStringLiteral("%1/%2").arg(id).arg(index.data(kShapeRole).toInt())
              : QStringLiteral("-/") + index.data().toString();
}

}  // namespace

void SceneTreePanel::update(const engine::SceneSpec& scene) {
    QSet<QString> expanded, headings;
    for (QModelIndex row = model_->index(0, 0); row.isValid(); row = indexBelow(row))
        if (isExpanded(row)) expanded.insert(rowKey(row));
    for (int k = 0; k < model_->rowCount(); ++k) headings.insert(rowKey(model_->index(k, 0)));
    const int scrolled = verticalScrollBar()->value();
    const int nameWidth = header()->sectionSize(0);
    {
        const QSignalBlocker block(selectionModel());
        populateSceneTree(*model_, scene);
        // Depth first, so a row opens once its parent is open.
        std::vector<QModelIndex> rows{QModelIndex()};
        while (!rows.empty()) {
            const QModelIndex parent = rows.back();
            rows.pop_back();
            for (int k = 0; k < model_->rowCount(parent); ++k) {
                const QModelIndex row = model_->index(k, 0, parent);
                // A heading the edit brought (the first joint's Joints) opens, as at the start.
                const bool fresh = !parent.isValid() && !headings.contains(rowKey(row));
                if (!fresh && !expanded.contains(rowKey(row))) continue;
                expand(row);
                rows.push_back(row);
            }
        }
    }
    fitNameColumn(nameWidth);
    verticalScrollBar()->setValue(scrolled);
}

std::vector<engine::EntityId> SceneTreePanel::selectedEntities() const {
    std::vector<engine::EntityId> ids;
    for (const QModelIndex& index : selectionModel()->selectedRows())
        if (!index.data(kShapeRole).toInt())
            if (const quint64 id = index.data(kEntityIdRole).toULongLong())
                ids.push_back(static_cast<engine::EntityId>(id));
    return ids;
}

void SceneTreePanel::selectEntity(quint64 entity, int shape, bool scroll) {
    // Picking in the view selects the entity's row in the tree (empty space clears it).
    if (entity == 0) {
        clearSelection();
        return;
    }
    QModelIndexList hits =
        model_->match(model_->index(0, 0), kEntityIdRole, QVariant::fromValue(entity), -1,
                      Qt::MatchExactly | Qt::MatchRecursive);
    // A part's own row comes first; a shape's row is the one carrying its index.
    hits.removeIf([shape](const QModelIndex& index) {
        return index.column() != 0 || index.data(kShapeRole).toInt() != shape;
    });
    if (hits.isEmpty()) return;
    setCurrentIndex(hits.front());
    selectionModel()->select(hits.front(),
                             QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    if (scroll) scrollTo(hits.front());
    emit entityPicked(static_cast<engine::EntityId>(entity));  // also when selected already
}

void SceneTreePanel::selectListed(int role, int index, bool scroll) {
    QModelIndexList hits = model_->match(model_->index(0, 0), role, QVariant::fromValue(index + 1),
                                         -1, Qt::MatchExactly | Qt::MatchRecursive);
    hits.removeIf([](const QModelIndex& hit) { return hit.column() != 0; });
    if (hits.isEmpty()) return;
    setCurrentIndex(hits.front());
    selectionModel()->select(hits.front(),
                             QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    if (scroll) scrollTo(hits.front());
}

int SceneTreePanel::selectedListed(int role) const {
    for (const QModelIndex& index : selectionModel()->selectedRows())
        if (const int k = index.data(role).toInt(); k > 0) return k - 1;
    return -1;
}

void SceneTreePanel::selectVariable(int index, bool scroll) {
    selectListed(kVariableRole, index, scroll);
}

int SceneTreePanel::selectedVariable() const {
    return selectedListed(kVariableRole);
}

void SceneTreePanel::selectSensor(int index, bool scroll) {
    selectListed(kSensorRole, index, scroll);
}

int SceneTreePanel::selectedSensor() const {
    return selectedListed(kSensorRole);
}

void SceneTreePanel::selectTable(int index, bool scroll) {
    selectListed(kTableRole, index, scroll);
}

int SceneTreePanel::selectedTable() const {
    return selectedListed(kTableRole);
}

void SceneTreePanel::fitNameColumn(int width) {
    // The width the user gave it, widened until the names shown fit (the details keep at least
    // 80 pixels).
    int needed = 0;
    const QFontMetrics metrics = fontMetrics();
    const int icon = style()->pixelMetric(QStyle::PM_SmallIconSize);
    for (QModelIndex row = model_->index(0, 0); row.isValid(); row = indexBelow(row)) {
        int depth = rootIsDecorated() ? 1 : 0;
        for (QModelIndex up = row.parent(); up.isValid(); up = up.parent()) ++depth;
        needed = std::max(needed, depth * indentation() + icon +
                                      metrics.horizontalAdvance(row.data().toString()) + 16);
    }
    const int names = std::min(needed, viewport()->width() - 80);
    header()->resizeSection(0, std::max({width, names, 120}));
}

void SceneTreePanel::renameEntity(quint64 entity, const QString& name) {
    const auto id = static_cast<engine::EntityId>(entity);
    if (!parts_.document->scene()) return;
    std::string old = engine::entityName(*parts_.document->scene(), id);
    old = old.substr(old.rfind('.') + 1);  // a marker's own name
    if (old.empty() || name.toStdString() == old) return;
    engine::SceneSpec after = *parts_.document->scene();
    engine::renameEntity(after, id, name.toStdString());
    commitRename(std::move(after), toQString(old), name);
}

bool SceneTreePanel::commitRename(engine::SceneSpec after, const QString& old,
                                  const QString& name) {
    if (const auto refused =
            parts_.document->rename(std::move(after), tr("Rename %1 to %2").arg(old, name))) {
        parts_.messages->add(
            MessageSeverity::Error,
            tr("Cannot rename '%1' to '%2': %3").arg(old, name, toQString(refused->message)));
        update(*parts_.document->scene());  // the old name back in the tree
        return false;
    }
    return true;
}

bool SceneTreePanel::commitAdd(engine::SceneSpec after, const QString& what, const QString& name) {
    if (const auto refused =
            parts_.document->add(std::move(after), tr("Add %1 %2").arg(what, name))) {
        parts_.messages->add(MessageSeverity::Error,
                             tr("Cannot add a %1: %2").arg(what, toQString(refused->message)));
        return false;
    }
    return true;
}

void SceneTreePanel::renameVariable(int index, const QString& name) {
    const engine::SceneSpec* scene = parts_.document->scene();
    if (!scene || index < 0 || index >= static_cast<int>(scene->variables.size())) return;
    const QString old = toQString(scene->variables[static_cast<std::size_t>(index)].name);
    if (name == old) return;
    engine::SceneSpec after = *scene;
    ui::renameVariable(after, index, name.toStdString());
    if (commitRename(std::move(after), old, name)) selectVariable(index, /*scroll=*/false);
}

int SceneTreePanel::addVariable() {
    if (!parts_.document->scene()) return -1;
    engine::SceneSpec after = *parts_.document->scene();
    const int index = ui::addVariable(after);
    const QString name = toQString(after.variables[static_cast<std::size_t>(index)].name);
    if (!commitAdd(std::move(after), tr("variable"), name)) return -1;
    selectVariable(index);
    return index;
}

void SceneTreePanel::renameSensor(int index, const QString& name) {
    const engine::SceneSpec* scene = parts_.document->scene();
    if (!scene || index < 0 || index >= static_cast<int>(scene->sensors.size())) return;
    const QString old = toQString(scene->sensors[static_cast<std::size_t>(index)].name);
    if (name == old) return;
    engine::SceneSpec after = *scene;
    after.sensors[static_cast<std::size_t>(index)].name = name.toStdString();
    if (commitRename(std::move(after), old, name)) selectSensor(index, /*scroll=*/false);
}

int SceneTreePanel::addSensor() {
    if (!parts_.document->scene()) return -1;
    engine::SceneSpec after = *parts_.document->scene();
    const int index = ui::addSensor(after);
    const QString name = toQString(after.sensors[static_cast<std::size_t>(index)].name);
    if (!commitAdd(std::move(after), tr("sensor"), name)) return -1;
    selectSensor(index);
    return index;
}

void SceneTreePanel::renameTable(int index, const QString& name) {
    const engine::SceneSpec* scene = parts_.document->scene();
    if (!scene || index < 0 || index >= static_cast<int>(scene->tables.size())) return;
    const QString old = toQString(scene->tables[static_cast<std::size_t>(index)].name);
    if (name == old) return;
    engine::SceneSpec after = *scene;
    ui::renameTable(after, index, name.toStdString());
    if (commitRename(std::move(after), old, name)) selectTable(index, /*scroll=*/false);
}

int SceneTreePanel::addTable() {
    if (!parts_.document->scene()) return -1;
    engine::SceneSpec after = *parts_.document->scene();
    const int index = ui::addTable(after);
    const QString name = toQString(after.tables[static_cast<std::size_t>(index)].name);
    if (!commitAdd(std::move(after), tr("table"), name)) return -1;
    selectTable(index);
    return index;
}

void SceneTreePanel::deleteSelection() {
    if (!parts_.document->scene()) return;
    engine::SceneSpec after = *parts_.document->scene();
    QStringList removed;
    // Variables, highest index first, so the indices of the others stay valid. An expression
    // that still reads one keeps it (the edit is refused, naming it).
    std::vector<int> variables;
    for (const QModelIndex& index : selectionModel()->selectedRows())
        if (const int variable = index.data(kVariableRole).toInt(); variable > 0)
            variables.push_back(variable - 1);
    std::sort(variables.begin(), variables.end(), std::greater<>());
    variables.erase(std::unique(variables.begin(), variables.end()), variables.end());
    for (const int k : variables)
        if (k < static_cast<int>(after.variables.size())) {
            removed << tr("variable %1")
                           .arg(toQString(after.variables[static_cast<std::size_t>(k)].name));
            after.variables.erase(after.variables.begin() + k);
        }
    // Sensors, highest index first: nothing reads them.
    std::vector<int> sensors;
    for (const QModelIndex& index : selectionModel()->selectedRows())
        if (const int sensor = index.data(kSensorRole).toInt(); sensor > 0)
            sensors.push_back(sensor - 1);
    std::sort(sensors.begin(), sensors.end(), std::greater<>());
    sensors.erase(std::unique(sensors.begin(), sensors.end()), sensors.end());
    for (const int k : sensors)
        if (k < static_cast<int>(after.sensors.size())) {
            removed
                << tr("sensor %1").arg(toQString(after.sensors[static_cast<std::size_t>(k)].name));
            after.sensors.erase(after.sensors.begin() + k);
        }
    // Tables, highest index first. A force law or an expression that still reads one keeps it
    // (the edit is refused, naming it).
    std::vector<int> tables;
    for (const QModelIndex& index : selectionModel()->selectedRows())
        if (const int table = index.data(kTableRole).toInt(); table > 0)
            tables.push_back(table - 1);
    std::sort(tables.begin(), tables.end(), std::greater<>());
    tables.erase(std::unique(tables.begin(), tables.end()), tables.end());
    for (const int k : tables)
        if (k < static_cast<int>(after.tables.size())) {
            const std::string& name = after.tables[static_cast<std::size_t>(k)].name;
            if (const std::vector<std::string> users = ui::tableUsers(after, name);
                !users.empty()) {
                QStringList list;
                for (const std::string& u : users) list << toQString(u);
                parts_.messages->add(MessageSeverity::Error,
                                     tr("Cannot delete table '%1': %2 reads it (give it another "
                                        "law or expression first)")
                                         .arg(toQString(name), list.join(QStringLiteral("; "))));
                return;
            }
            removed << tr("table %1").arg(toQString(name));
            after.tables.erase(after.tables.begin() + k);
        }
    // Shapes first, highest index first, so the indices of the others stay valid.
    std::vector<std::pair<engine::EntityId, int>> shapes;
    for (const QModelIndex& index : selectionModel()->selectedRows())
        if (const int shape = index.data(kShapeRole).toInt())
            shapes.emplace_back(
                static_cast<engine::EntityId>(index.data(kEntityIdRole).toULongLong()), shape - 1);
    std::sort(shapes.begin(), shapes.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [partId, shape] : shapes)
        if (engine::Part* part = engine::partById(after, partId);
            part && shape < static_cast<int>(part->shapes.size())) {
            part->shapes.erase(part->shapes.begin() + shape);
            removed << tr("shape %1 of %2").arg(shape + 1).arg(toQString(part->name));
        }
    for (const QModelIndex& index : selectionModel()->selectedRows()) {
        if (index.data(kShapeRole).toInt()) continue;
        const auto id = static_cast<engine::EntityId>(index.data(kEntityIdRole).toULongLong());
        for (const std::string& name : engine::deleteEntity(after, id)) removed << toQString(name);
    }
    if (removed.isEmpty()) {
        parts_.messages->add(
            MessageSeverity::Warning,
            tr("Nothing to delete: select parts, markers, joints, forces, motions, couplers, "
               "variables, tables, sensors or contact pairs (the ground part stays)."));
        return;
    }
    if (const auto refused =
            parts_.document->remove(std::move(after), tr("Delete %1").arg(removed.front()))) {
        parts_.messages->add(MessageSeverity::Error,
                             tr("Cannot delete that: %1").arg(toQString(refused->message)));
        return;
    }
    if (removed.size() > 1)
        parts_.messages->add(
            MessageSeverity::Info,
            tr("Deleted %1 (Ctrl+Z undoes).").arg(removed.join(QStringLiteral(", "))));
}

void SceneTreePanel::addPart() {
    if (!parts_.document->scene()) return;
    engine::SceneSpec after = *parts_.document->scene();
    std::string name;
    for (int k = 1; name.empty() || after.findPart(name); ++k) name = "part" + std::to_string(k);
    engine::Part part;
    part.id = after.newId();
    part.name = name;
    part.density = 1000.0;  // a 0.1 m cube of water-like density: 1 kg
    engine::Shape cube;
    cube.size = engine::Vec3::Constant(0.1);
    part.shapes.push_back(cube);
    part.X_WP.p = engine::Vec3(0.0, 0.0, 0.5);
    after.parts.push_back(part);
    if (const auto refused =
            parts_.document->add(std::move(after), tr("Add %1").arg(toQString(name)))) {
        parts_.messages->add(MessageSeverity::Error,
                             tr("Cannot add a part: %1").arg(toQString(refused->message)));
        return;
    }
    selectEntity(part.id);
}

PlotWidget* SceneTreePanel::plotReactionForce(const QString& joint) {
    const engine::SceneSpec* scene = parts_.document->scene();
    if (!parts_.session->active() || !scene) return nullptr;
    if (std::none_of(scene->joints.begin(), scene->joints.end(), [&](const engine::Joint& j) {
            return QString::fromStdString(j.name) == joint;
        }))
        return nullptr;  // no such joint: nothing to plot
    namespace ch = engine::channels;
    QStringList channels;
    for (const char* quantity :
         {ch::kReaction[0], ch::kReaction[1], ch::kReaction[2], ch::kForceMagnitude})
        channels << toQString(ch::of(joint.toStdString(), quantity));
    return parts_.plots->addPlot(channels);
}

void SceneTreePanel::showMenu(const QPoint& position) {
    const QModelIndex index = indexAt(position);
    if (!index.isValid() || !parts_.document->scene()) return;
    const auto id = static_cast<engine::EntityId>(index.data(kEntityIdRole).toULongLong());
    QMenu menu;
    // Variables: added from their heading or a variable's row, deleted from its row.
    const QModelIndex name = index.siblingAtColumn(0);
    const int variable = name.data(kVariableRole).toInt() - 1;
    const bool variablesHeading = name.data(kVariableRole).toInt() < 0;
    if (variable >= 0 || variablesHeading) {
        menu.addAction(tr("Add Variable"), this, [this] { addVariable(); });
        if (variable >= 0)
            menu.addAction(tr("Delete Variable"), this, [this, variable] {
                selectVariable(variable, /*scroll=*/false);
                deleteSelection();
            });
        menu.exec(viewport()->mapToGlobal(position));
        return;
    }
    // Sensors: the same, from their heading or a sensor's row.
    const int sensor = name.data(kSensorRole).toInt() - 1;
    if (sensor >= 0 || name.data(kSensorRole).toInt() < 0) {
        menu.addAction(tr("Add Sensor"), this, [this] { addSensor(); });
        if (sensor >= 0)
            menu.addAction(tr("Delete Sensor"), this, [this, sensor] {
                selectSensor(sensor, /*scroll=*/false);
                deleteSelection();
            });
        menu.exec(viewport()->mapToGlobal(position));
        return;
    }
    // Tables: the same, and a table's points from a CSV file.
    const int table = name.data(kTableRole).toInt() - 1;
    if (table >= 0 || name.data(kTableRole).toInt() < 0) {
        menu.addAction(tr("Add Table"), this, [this] { addTable(); });
        if (table >= 0)
            menu.addAction(tr("Delete Table"), this, [this, table] {
                selectTable(table, /*scroll=*/false);
                deleteSelection();
            });
        menu.exec(viewport()->mapToGlobal(position));
        return;
    }
    if (id == engine::kNoEntity) return;
    fillMenu(menu, id);
    if (!menu.isEmpty()) menu.exec(viewport()->mapToGlobal(position));
}

void SceneTreePanel::fillMenu(QMenu& menu, engine::EntityId id) {
    if (!parts_.document->scene()) return;
    // Plots need a run to plot; drawing a part translucent does not.
    auto plot = [&](const QString& label, const QString& entity, QStringList quantities) {
        if (!parts_.session->active()) return;
        menu.addAction(label, this, [this, entity, quantities] {
            QStringList channels;
            for (const QString& q : quantities) channels << entity + QLatin1Char('.') + q;
            parts_.plots->addPlot(channels);
        });
    };
    for (const engine::Joint& joint : parts_.document->scene()->joints)
        if (joint.id == id) {
            const QString name = QString::fromStdString(joint.name);
            if (parts_.session->active())
                menu.addAction(tr("Plot Reaction Force"), this,
                               [this, name] { plotReactionForce(name); });
            plot(tr("Plot Reaction Torque"), name, {"Tx", "Ty", "Tz", "T"});
            plot(tr("Plot Reaction in Marker J Axes"), name, {"FxJ", "FyJ", "FzJ"});
            if (joint.type == engine::JointType::Revolute ||
                joint.type == engine::JointType::Prismatic ||
                joint.type == engine::JointType::Cylindrical)
                plot(tr("Plot Joint Coordinate"), name, {"q0"});
            // A pin's place along its slot; a cam's gap (0 in contact) and contact force.
            if (joint.type == engine::JointType::PointOnCurve)
                plot(tr("Plot Place along the Curve"), name, {"q0"});
            if (joint.type == engine::JointType::CurveOnCurve)
                plot(tr("Plot Cam Gap"), name, {"q0"});
        }
    for (const engine::Part& part : parts_.document->scene()->parts)
        if (part.id == id && !part.ground) {
            const QString name = QString::fromStdString(part.name);
            plot(tr("Plot Position"), name, {"x", "y", "z"});
            plot(tr("Plot Velocity"), name, {"vx", "vy", "vz"});
            plot(tr("Plot Angular Velocity"), name, {"wx", "wy", "wz"});
            QAction* see = menu.addAction(tr("Draw Translucent"));
            see->setCheckable(true);
            see->setChecked(parts_.viewport->partTranslucent(id));
            connect(see, &QAction::toggled, parts_.viewport,
                    [this, id](bool on) { parts_.viewport->setPartTranslucent(id, on); });
        }
    for (const engine::MotionSpec& motion : parts_.document->scene()->motions) {
        if (motion.id != id) continue;
        plot(tr("Plot Motor Effort"), QString::fromStdString(motion.name), {"effort"});
        plot(tr("Plot Motor Power"), QString::fromStdString(motion.name), {"power"});
    }
    for (const engine::ForceSpec& force : parts_.document->scene()->forces) {
        if (force.id != id || !engine::isJointServo(force.type)) continue;
        plot(tr("Plot Controller Effort"), QString::fromStdString(force.name), {"effort"});
        plot(tr("Plot Controller Power"), QString::fromStdString(force.name), {"power"});
    }
    for (const engine::CouplerSpec& coupler : parts_.document->scene()->couplers) {
        if (coupler.id != id) continue;
        namespace ch = engine::channels;
        const QString name = QString::fromStdString(coupler.name);
        const bool teeth = coupler.type == engine::CouplerType::Gear ||
                           coupler.type == engine::CouplerType::RackPinion;
        plot(teeth                                        ? tr("Plot Tooth Force")
             : coupler.type == engine::CouplerType::Screw ? tr("Plot Axial Force")
                                                          : tr("Plot Coupler Force"),
             name, {QString::fromLatin1(ch::kCouplerForce)});
        plot(tr("Plot Coupler Efforts on Its Joints"), name,
             {QString::fromLatin1(ch::kCouplerEffort[0]),
              QString::fromLatin1(ch::kCouplerEffort[1])});
    }
    for (const engine::ContactPairSpec& pair : parts_.document->scene()->contact.pairs)
        if (pair.id == id)
            plot(tr("Plot Contact Forces"), QString::fromStdString(pair.name), {"Fn", "Ft"});
}

}  // namespace ui
