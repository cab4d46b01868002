#pragma once
// The properties dock: every field of the selected entity (or of the scene when nothing is
// selected) with its unit — lengths in m, angles in degrees — validated as it is committed.
// A part shows its shapes (each with its type, dimensions and place), its mass properties
// (from the geometry and a density, or typed in as an override), its contact material and
// whether it is a moving frame (its pose prescribed as six expressions of time); a
// marker its place in its part's axes or the world's; a joint its type, markers and collide
// switch, and a joint on curves its curves (a spline's points, one a line, or x, y and z as
// expressions of s, checked as they are typed); force elements and motions their parameters, expressions with a live check and
// preview; a coupler its type, joints, sizes (a gear pair's pitch radii said from its axles)
// and a linear coupler's terms. A valid edit is not applied here: it is offered as the whole
// scene after it, and the window pushes it onto the undo stack. An invalid one stays in its
// field with the reason beside it; nothing is lost.
//
// Each field carries the scene-format key it edits ("mass", "markerI", "shape.radius",
// "collision.mask"...), so tests can find an editor for every key of docs/scene-format.md.

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <QString>
#include <QStringList>
#include <QWidget>

#include "engine/model/scene_spec.h"
#include "engine/state/state.h"

class QFormLayout;
class QLabel;
class QScrollArea;
class QTimer;
class QVBoxLayout;

namespace ui {

struct PropertyField;

class PropertiesPanel : public QWidget {
    Q_OBJECT

public:
    explicit PropertiesPanel(QWidget* parent = nullptr);
    ~PropertiesPanel() override;

    // Shows entity `id` of `spec` (the scene's own settings for kNoEntity; nothing for null).
    // `spec` must outlive the panel's use of it (show again after every document change).
    // `shape` (1-based) narrows a part to one of its shapes: its type, dimensions and place
    // ("Shape 2 of crank"), what a geometry row of the scene tree shows.
    void showEntity(const engine::SceneSpec* spec, engine::EntityId id, int shape = 0);
    engine::EntityId entity() const { return id_; }
    int shape() const { return shape_; }
    // Shows the scene's variable `index` (variables have no id: known by their place); an
    // index out of the list shows the scene's own settings.
    void showVariable(const engine::SceneSpec* spec, int index);
    int variable() const { return variable_; }  // the variable shown, −1: none
    // Shows the scene's sensor `index` (known by its place, as variables are); an index out of
    // the list shows the scene's own settings.
    void showSensor(const engine::SceneSpec* spec, int index);
    int sensor() const { return sensor_; }  // the sensor shown, −1: none
    // Shows the scene's table `index` (known by its place, as variables are); an index out of
    // range shows nothing.
    void showTable(const engine::SceneSpec* spec, int index);
    int table() const { return table_; }  // the table shown, −1: none

    // Tests and scripting: the editor of the field labelled `label` (component 0..2 of a
    // vector), its inline message, and committing what it holds. A label may also be the
    // field's format key (see above); for shapes the label names the shape ("Shape 1 radius").
    QWidget* editor(const QString& label, int component = 0) const;
    QWidget* editorForKey(const QString& key, int component = 0) const;
    QStringList keys() const;  // the format keys of the fields shown
    QString message(const QString& label) const;
    void commit(const QString& label);
    // Presses a button field ("Add shape", "From geometry", ...).
    bool press(const QString& label);

    // The state of the frame on screen (a recorded frame of the run), for the value of an
    // expression of the state under its field; null or nullopt: none. Call frameChanged() when
    // the frame changes.
    void setFrameState(std::function<std::optional<engine::State>()> frame);
    void frameChanged();

    // Markers' position and orientation in their part's axes (default) or the world's.
    void setMarkerInWorld(bool world);

    // While editRequested is handled: the label of the field edited, and the receiver's
    // refusal of the edit (the document's, which validates it), said beside the field.
    const QString& editedField() const { return editedField_; }
    void refuseEdit(const QString& reason);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

signals:
    // `key` names the entity and field: consecutive edits of one key merge into one undo step.
    // The receiver applies the edit or refuses it (refuseEdit) before returning.
    void editRequested(const engine::SceneSpec& after, const QString& description,
                       const QString& key);

private:
    using Field = PropertyField;
    std::function<std::optional<engine::State>()> frame_;
    QTimer* frameTimer_ = nullptr;  // coalesces frameChanged()
    void rebuild();
    void defineFields();   // the fields of the entity shown, without editors
    void refreshValues();  // the editors show the scene's values
    void commitField(Field& field);
    QWidget* makeEditorRow(Field& field, const engine::SceneSpec& spec);
    Field* find(const QString& labelOrKey) const;
    // The scene-file pointer of a number a row shows ("/parts/1/markers/0/position/2"), empty
    // when the row shows no number as the file holds it (a marker's position in world axes).
    QString filePointer(const Field& field, int component) const;
    // Marks the rows' numbers bound to design variables (a tint, the expression in the tooltip).
    void markBoundNumbers();

    const engine::SceneSpec* spec_ = nullptr;
    engine::EntityId id_ = engine::kNoEntity;
    int shape_ = 0;      // 1-based: one shape of the part
    int variable_ = -1;  // a variable shown instead of an entity
    int shownVariable_ = -1;
    int sensor_ = -1;  // a sensor shown instead of an entity
    int table_ = -1;   // a table shown instead of an entity
    int shownTable_ = -1;
    int shownSensor_ = -1;
    engine::EntityId shownId_ = engine::kNoEntity;  // whose editors are built
    int shownShape_ = 0;
    bool markerInWorld_ = false;
    QLabel* title_ = nullptr;
    QScrollArea* scroll_ = nullptr;
    QWidget* body_ = nullptr;  // the form of the entity shown
    QFormLayout* form_ = nullptr;
    std::vector<std::unique_ptr<Field>> fields_;
    QString editedField_;  // editedField()
    QString refusal_;      // refuseEdit()
};

}  // namespace ui
