#pragma once
// Copies of parts: Copy and Paste (through the system clipboard, as scene JSON, so a mechanism
// can go from one Motus window to another), Duplicate, Mirror (in a plane through a point) and
// Array (n copies along a vector). A copy takes the parts' markers and shapes and everything
// between the copied parts (joints, forces, motions, contact settings: engine/model/edit.h);
// each command is one undoable edit and selects what it made.

#include <functional>
#include <vector>

#include <QObject>
#include <QString>

#include "engine/model/edit.h"
#include "ui/mainwindow/message_severity.h"

class QMenu;
class QWidget;

namespace ui {

class SceneDocument;

class Copies : public QObject {
    Q_OBJECT

public:
    // `selection` gives the ids selected now (parts among them are what is copied).
    Copies(SceneDocument* document, std::function<std::vector<engine::EntityId>()> selection,
           QWidget* window);

    // Edit menu entries; the keys act in `targets` (the scene tree and the 3D view), so that
    // Ctrl+C in a text field still copies text.
    void createActions(QMenu* menu, const std::vector<QWidget*>& targets);

    // The commands (false with a message when there is nothing to act on).
    bool copy();
    bool paste();
    bool duplicate();
    // Mirror images of the selected parts in the plane through `point` whose normal is the
    // world axis `axis` (0 x, 1 y, 2 z).
    bool mirror(int axis, const engine::Vec3& point);
    // `count` copies, the k-th moved by k × `step`.
    bool array(int count, const engine::Vec3& step);

    // The MIME type of Motus parts on the clipboard.
    static QString mimeType();

signals:
    void message(MessageSeverity severity, const QString& text);
    void created(engine::EntityId part);  // the first part a command made

private:
    std::vector<engine::EntityId> selectedParts() const;
    // Adds copies of `parts` of `source` to the document as one edit.
    bool add(const engine::SceneSpec& source, const std::vector<engine::EntityId>& parts,
             const std::vector<engine::CopyPlacement>& placements, const QString& text);
    void mirrorDialog();
    void arrayDialog();

    SceneDocument* document_;
    std::function<std::vector<engine::EntityId>()> selection_;
    QWidget* window_;
};

}  // namespace ui
