#pragma once
// Direct manipulation: the selected part or marker carries the view's manipulator (arrows to
// move it, rings to turn it; world or its own axes; snapping to a grid step and an angle
// increment). A part dragged by it takes the parts joined to it along: at every drag event the
// engine's drag assembly (engine/analysis/drag.h) finds the pose nearest the drag that closes
// every joint, warm-started from the last one; a drag it cannot follow leaves the parts at the
// last consistent pose. An assembly slower than a frame sends the drag's next events to a worker
// thread (one solve at a time, the newest target waiting), so the view keeps drawing; the drag
// ends where the pointer left it. A marker dragged on its part moves on the part, and the joints on it
// close again by moving the other parts. The whole drag is one undoable edit; Esc cancels it.
//
// The manipulator edits the mechanism's design pose: while a recorded run is shown it is
// hidden (Reset brings it back).

#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include <QObject>
#include <QString>

#include "engine/model/scene_spec.h"
#include "ui/mainwindow/message_severity.h"
#include "ui/viewport/viewport_widget.h"

class QAction;
class QDoubleSpinBox;
class QMenu;
class QToolBar;
class QWidget;

namespace engine {
class DragAssembly;
}

namespace ui {

class SceneDocument;

class Manipulation : public QObject {
    Q_OBJECT

public:
    Manipulation(SceneDocument* document, ViewportWidget* viewport, QWidget* window);
    ~Manipulation() override;

    // Fills the Edit ▸ Manipulate menu and the manipulator toolbar.
    void createActions(QMenu* menu, QToolBar* toolbar);

    // The selected entity: a part (not the ground) or a marker gets the manipulator.
    void setSelection(engine::EntityId entity);
    // False while the view shows something else than the design pose (a recorded run).
    void setDesignPoseShown(bool shown);
    // False while a building tool takes the view's clicks (the manipulator is Select's).
    void setSelecting(bool selecting);

    void setMode(GizmoMode mode);
    void setLocalAxes(bool local);
    void setSnapping(bool on);
    void setGridStep(double metres);
    void setAngleStep(double radians);
    // Motions hold the joints they drive, so a part they drive cannot be dragged; with this
    // on (Edit ▸ Manipulate ▸ Suspend Motions While Dragging) a drag moves the parts as if
    // there were none (a run starts from the motions' own values again).
    void setSuspendMotions(bool on);
    bool suspendMotions() const { return suspendMotions_; }
    bool localAxes() const { return local_; }
    bool snapping() const { return snapping_; }
    double gridStep() const { return gridStep_; }
    double angleStep() const { return angleStep_; }

    // The drag under way, for the status bar and tests: events answered, the largest joint gap
    // after any of them, events the mechanism could not follow (fully).
    struct DragFigures {
        int events = 0;
        double worstGap = 0.0;          // m or rad
        int held = 0;                   // events where the parts stopped short of the drag
        double lastEventSeconds = 0.0;  // assembly time of the last event
        int workerSolves = 0;           // events solved off the GUI thread
    };
    const DragFigures& figures() const { return figures_; }
    // An assembly slower than this (default: a frame at 60 fps) sends the drag's next events
    // to a worker thread: the newest target is solved while the view keeps drawing.
    void setAsyncAfter(double seconds);

signals:
    void message(MessageSeverity severity, const QString& text);
    void status(const QString& text);  // what the drag does now

private:
    void refresh();  // the manipulator on the selection, or hidden
    void started(GizmoHandle handle);
    void dragged(double amount);
    void finished(bool accepted);
    void settingsChanged();
    engine::Transform gizmoFrame(const engine::SceneSpec& spec) const;
    // Moves a marker on its part to X_WM (the part held, the others closing its joints).
    bool moveMarker(const engine::Transform& X_WM);
    // Shows an event's answer: the parts' poses (empty: unchanged), whether the drag was
    // followed, and the assembly's time.
    void applied(bool followed, const std::vector<engine::Transform>& poses, double seconds);
    void solveOnWorker(const engine::Transform& target);
    // Why the drag stops short: the motions that hold it, or the joints.
    QString heldReason() const;

    SceneDocument* document_;
    ViewportWidget* viewport_;
    QWidget* window_;
    engine::EntityId selection_ = engine::kNoEntity;
    bool designShown_ = true;
    bool selecting_ = true;
    GizmoMode mode_ = GizmoMode::Translate;
    bool local_ = false;
    bool snapping_ = false;
    double gridStep_ = 0.01;
    double angleStep_ = 0.2617993877991494;  // 15°
    QAction* moveAction_ = nullptr;
    QAction* rotateAction_ = nullptr;
    QAction* localAction_ = nullptr;
    QAction* snapAction_ = nullptr;
    QAction* suspendAction_ = nullptr;
    bool suspendMotions_ = false;
    QDoubleSpinBox* gridBox_ = nullptr;
    QDoubleSpinBox* angleBox_ = nullptr;

    // The drag under way.
    bool dragging_ = false;
    GizmoHandle handle_;
    engine::SceneSpec before_;     // the scene when the drag began
    engine::SceneSpec current_;    // with the last consistent poses (and marker place)
    int partIndex_ = -1;           // the part dragged, or the part of the dragged marker
    std::size_t markerIndex_ = 0;  // the marker dragged in its part
    bool marker_ = false;
    engine::Transform X_WG0_;  // the manipulator's frame when the drag began
    engine::Transform X_W0_;   // the dragged part's or marker's pose then
    std::unique_ptr<engine::DragAssembly> drag_;
    DragFigures figures_;
    // Off the GUI thread: one solve at a time on `worker_`, the newest target waiting.
    double asyncAfter_ = 1.0 / 60.0;
    bool async_ = false;
    bool solving_ = false;
    std::optional<engine::Transform> pending_, lastTarget_;
    std::thread worker_;
    int generation_ = 0;  // answers of an ended drag are dropped
};

}  // namespace ui
