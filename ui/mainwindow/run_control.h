#pragma once
// The run shown and what it is of. Simulate ▸ Play, Step, Reset, Re-run From Here, Run to,
// the frame keys and Loop; the run's state in the status bar (analysis, time, progress and
// Cancel of a run-to or a job); and the trust rules: a run belongs to the document version it
// was computed from (a stale one is marked so in the view, the timeline, the plots and the
// status bar and computes nothing new), a scene that cannot run says why wherever the user
// asks it to run, and a recorded run is never dropped without asking.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <QObject>
#include <QString>

#include "engine/model/diagnostic.h"
#include "engine/model/entity_id.h"
#include "ui/mainwindow/window_parts.h"

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QStatusBar;
class QToolButton;
class QWidget;

namespace engine {
struct Model;
struct RunStatistics;
struct SceneSpec;
class Recording;
}  // namespace engine

namespace ui {

class RunControl : public QObject {
    Q_OBJECT

public:
    explicit RunControl(const WindowParts& parts);

    // Simulate: Play, Step, Reset, Re-run From Here, Discard Previous Run, Run to.
    void createActions(QMenu* simulate);
    // Simulate: the frame keys (in the 3D view and the timeline) and Loop Playback.
    void createPlaybackActions(QMenu* simulate);
    // The status bar: progress and Cancel, `mobility` (the DOF readout), the run's state.
    void createStatusWidgets(QStatusBar* bar, QWidget* mobility);

    // Starts a run of the document as it is (`kinematic`: solved at each instant), called
    // `analysis` (Dynamics, Kinematics, ...). Its problems are said (through `say`, else as
    // they are); when it cannot start, the run shown stays, marked stale with the reason, and
    // false is returned.
    bool startRun(bool kinematic, const QString& analysis,
                  const std::function<QString(const engine::Diagnostic&)>& say = {});
    // Takes over a recorded run of `runScene` (a run file, a recovery): current when the
    // document is that scene, else stale until Re-run From Here. Empty, or why it cannot.
    QString adoptRun(std::shared_ptr<const engine::Model> model,
                     std::unique_ptr<engine::Recording> recording,
                     const engine::SceneSpec& runScene);

    // After an edit, its undo or redo: an unstarted run restarts with the edit, a run with
    // recorded frames keeps them and offers Re-run From Here.
    void sceneEdited();
    // A different document: nothing of its run is edited yet.
    void documentReset();

    // Before an action that drops the recorded run (`action`, e.g. "Reset"): asks the user
    // when there is one worth keeping. True when it is fine to go on.
    bool confirmDropRun(const QString& action);
    // The recorded run as it was last saved to (or opened from) a run file: New, Open and Quit
    // ask before dropping a run that is not.
    bool runIsSaved() const;
    void noteRunSaved();
    // The document was edited since the run's model was compiled.
    bool documentEdited() const { return documentEdited_; }
    const QString& analysisName() const { return analysisName_; }

    // Moves the shown frame by `frames` recorded frames (paused; INT_MIN: the first, INT_MAX:
    // the last); one frame past the last recorded one computes it.
    void stepFrames(int frames);
    // Continues the run from the shown frame with the edited scene.
    void rerunFromHere();
    // Starts the run over (with the document as edited).
    void resetRun();
    // Simulate ▸ Discard Previous Run: the run before the last Re-run From Here is forgotten.
    void discardPreviousRun();
    void runToDialog();
    // The session's snapshot in the view, the status bar and the messages it calls for.
    void showSnapshot();

private:
    bool noteRunStart(const engine::Diagnostics& problems, const QString& analysis);
    // Whether the run shown is the document's: a stale one is marked so in the view, the
    // timeline, the plots and the status bar, and computes nothing new; with no run, why the
    // scene cannot run (when it cannot).
    void updateRunState();
    // Play or Step with no run: says why the scene cannot run. True when there is a run.
    bool runnable();
    // The run's warnings, each said once per run: the energy balance drifting, a singular
    // position passed, a change of branch.
    void warnAbout(const engine::RunStatistics& statistics);
    void showJobProgress(double done, double elapsed);

    WindowParts parts_;
    QAction* rerunAction_ = nullptr;
    QAction* discardPreviousAction_ = nullptr;
    QLabel* simulationStatus_ = nullptr;
    QProgressBar* runProgress_ = nullptr;
    QToolButton* cancelRun_ = nullptr;
    bool documentEdited_ = false;  // the document changed since the run's model was compiled
    std::string runSceneJson_;     // the mechanism the session's run was computed from
    QString cannotRun_;            // why the document as edited cannot run (empty: it can)
    std::vector<engine::EntityId> cannotRunEntities_;  // what cannotRun_ is about
    QString analysisName_;                             // what the run computes: Dynamics, ...
    const engine::Recording* savedRun_ = nullptr;      // noteRunSaved()
    std::size_t savedRunFrames_ = 0;
    long singularTold_ = 0;           // singular passages of the run the user was told of
    bool branchTold_ = false;         // the run's change of branch was said
    bool startOverlapsTold_ = false;  // the run's parts started inside one another: said
    bool liftOffTold_ = false;        // the run's first lift-off of a cam's follower was said
    bool energyDriftTold_ = false;    // the run's energy drift was said
    double runStartTime_ = -1.0;      // simulated time when the current run-to began
    bool showPending_ = false;        // a snapshot waits for a slow view (showSnapshot)
};

}  // namespace ui
