#pragma once
// The properties dock: the fields of the selected entity (or of the scene when nothing is
// selected) with their units — lengths in m, angles in degrees — validated as they are
// committed. A valid edit is not applied here: it is offered as the whole scene after it, and
// the window pushes it onto the undo stack. An invalid one stays in its field with the reason
// beside it.

#include <memory>
#include <vector>

#include <QString>
#include <QWidget>

#include "engine/model/scene_spec.h"

class QFormLayout;
class QLabel;
class QVBoxLayout;

namespace ui {

class PropertiesPanel : public QWidget {
    Q_OBJECT

public:
    explicit PropertiesPanel(QWidget* parent = nullptr);
    ~PropertiesPanel() override;

    // Shows entity `id` of `spec` (the scene's own settings for kNoEntity; nothing for null).
    // `spec` must outlive the panel's use of it (show again after every document change).
    void showEntity(const engine::SceneSpec* spec, engine::EntityId id);
    engine::EntityId entity() const { return id_; }

    // Tests and scripting: the editor of the field labelled `label` (component 0..2 of a
    // vector), its inline message, and committing what it holds.
    QWidget* editor(const QString& label, int component = 0) const;
    QString message(const QString& label) const;
    void commit(const QString& label);

signals:
    void editRequested(const engine::SceneSpec& after, const QString& description);

private:
    struct Field;
    void rebuild();
    void commitField(Field& field);

    const engine::SceneSpec* spec_ = nullptr;
    engine::EntityId id_ = engine::kNoEntity;
    QLabel* title_ = nullptr;
    QVBoxLayout* layout_ = nullptr;
    QWidget* body_ = nullptr;  // the form of the entity shown
    QFormLayout* form_ = nullptr;
    std::vector<std::unique_ptr<Field>> fields_;
};

}  // namespace ui
