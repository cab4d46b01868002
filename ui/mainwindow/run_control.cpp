#include "ui/mainwindow/run_control.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include <QAction>
#include <QInputDialog>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QTimer>
#include <QToolButton>
#include <QtMath>

#include "engine/io/scene_json.h"
#include "engine/model/scene_spec.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "ui/analysis/modes_panel.h"
#include "ui/common/text.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/dof_status.h"
#include "ui/mainwindow/manipulation.h"
#include "ui/mainwindow/messages_panel.h"
#include "ui/session/simulation_session.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {
namespace {

// What a run is computed from: the scene as the writer writes it, without the user's plots
// (kept with the scene, but no part of the mechanism: a plot added or saved leaves a run
// current).
std::string mechanismText(const engine::SceneSpec& spec) {
    engine::SceneSpec mechanism = spec;
    mechanism.plots.clear();
    return engine::io::sceneToJson(mechanism);
}

}  // namespace

RunControl::RunControl(const WindowParts& parts) : QObject(parts.window), parts_(parts) {
    connect(parts_.session, &SimulationSession::snapshotChanged, this, &RunControl::showSnapshot);
    connect(parts_.session, &SimulationSession::jobProgress, this, &RunControl::showJobProgress);
    connect(parts_.session, &SimulationSession::jobStarted, this, [this] {
        showJobProgress(0.0, 0.0);
        runProgress_->show();
        cancelRun_->show();
    });
    connect(parts_.session, &SimulationSession::jobFinished, this, [this] {
        runProgress_->hide();
        cancelRun_->hide();
    });
}

void RunControl::createActions(QMenu* simulate) {
    QAction* play = simulate->addAction(tr("&Play / Pause"), this, [this] {
        if (runnable()) parts_.session->togglePlay();
    });
    play->setShortcut(Qt::Key_Space);
    QAction* step = simulate->addAction(tr("&Step"), this, [this] {
        if (runnable()) parts_.session->step();
    });
    step->setShortcut(Qt::Key_Period);
    QAction* reset = simulate->addAction(tr("&Reset"), this, &RunControl::resetRun);
    reset->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    rerunAction_ = simulate->addAction(tr("Re-run From &Here"), this, &RunControl::rerunFromHere);
    rerunAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    rerunAction_->setEnabled(false);
    discardPreviousAction_ =
        simulate->addAction(tr("&Discard Previous Run"), this, &RunControl::discardPreviousRun);
    discardPreviousAction_->setToolTip(
        tr("Forget the run as it was before Re-run From Here (its ghost and dashed curves)"));
    discardPreviousAction_->setEnabled(false);
    simulate->addAction(tr("Run &to…"), this, &RunControl::runToDialog)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    simulate
        ->addAction(tr("&Wake Sleeping Parts"), this,
                    [this] {
                        if (runnable()) parts_.session->wake();
                    })
        ->setToolTip(tr("Parts at rest sleep when the scene's contact settings say so (Sleep "
                        "after): the run goes on from its last frame with all of them moving"));
}

void RunControl::createPlaybackActions(QMenu* simulate) {
    // Frame by frame through the recording: the arrow keys in the 3D view and the timeline
    // (in the tree and the fields they keep their usual meaning); Shift steps ten frames.
    simulate->addSeparator();
    const std::tuple<QString, QKeySequence, int> frameSteps[] = {
        {tr("Previous Frame"), QKeySequence(Qt::Key_Left), -1},
        {tr("Next Frame"), QKeySequence(Qt::Key_Right), 1},
        {tr("Ten Frames Back"), QKeySequence(Qt::SHIFT | Qt::Key_Left), -10},
        {tr("Ten Frames On"), QKeySequence(Qt::SHIFT | Qt::Key_Right), 10},
        {tr("First Frame"), QKeySequence(Qt::Key_Home), std::numeric_limits<int>::min()},
        {tr("Last Recorded Frame"), QKeySequence(Qt::Key_End), std::numeric_limits<int>::max()},
    };
    for (const auto& [label, keys, frames] : frameSteps) {
        QAction* a =
            simulate->addAction(label, this, [this, frames = frames] { stepFrames(frames); });
        a->setShortcut(keys);
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        parts_.viewport->addAction(a);
        parts_.timeline->addAction(a);
    }
    simulate->addSeparator();
    QAction* loop = simulate->addAction(tr("&Loop Playback"));
    loop->setCheckable(true);
    loop->setChecked(parts_.session->loop());
    loop->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    connect(loop, &QAction::toggled, parts_.session, &SimulationSession::setLoop);
    connect(parts_.session, &SimulationSession::loopChanged, loop, &QAction::setChecked);
}

void RunControl::createStatusWidgets(QStatusBar* bar, QWidget* mobility) {
    // Progress of "Run to" or of a job: bar, time left and Cancel (the engine thread or the
    // job's does the work; the GUI only polls).
    runProgress_ = new QProgressBar;
    runProgress_->setObjectName(QStringLiteral("RunProgress"));
    runProgress_->setMaximumWidth(260);
    runProgress_->setRange(0, 1000);
    runProgress_->hide();
    cancelRun_ = new QToolButton;
    cancelRun_->setText(tr("Cancel"));
    cancelRun_->setToolTip(tr("Stop the run here; everything computed so far is kept"));
    cancelRun_->hide();
    connect(cancelRun_, &QToolButton::clicked, this, [this] {
        if (parts_.session->jobRunning())
            parts_.session->cancelJob();
        else
            parts_.session->pause();
    });
    bar->addPermanentWidget(runProgress_);
    bar->addPermanentWidget(cancelRun_);
    bar->addPermanentWidget(mobility);
    simulationStatus_ = new QLabel;
    bar->addPermanentWidget(simulationStatus_);
}

void RunControl::showJobProgress(double done, double elapsed) {
    runProgress_->setRange(0, 1000);
    runProgress_->setValue(static_cast<int>(done * 1000));
    runProgress_->setFormat(
        done > 0.02 ? tr("analysis: %p% — %1 s left").arg(elapsed * (1.0 - done) / done, 0, 'f', 1)
                    : tr("analysis: %p%"));
}

bool RunControl::runnable() {
    if (parts_.session->active()) return true;
    if (!cannotRun_.isEmpty())
        parts_.messages->add(MessageSeverity::Error, tr("Cannot run the scene: %1").arg(cannotRun_),
                             cannotRunEntities_);
    return false;
}

bool RunControl::startRun(bool kinematic, const QString& analysis,
                          const std::function<QString(const engine::Diagnostic&)>& say) {
    const engine::SceneSpec* scene = parts_.document->scene();
    if (!scene) return false;
    const engine::Diagnostics problems =
        parts_.session->start(parts_.document->compiled(), kinematic);
    for (const engine::Diagnostic& d : problems)
        parts_.messages->add(MessagesPanel::severityOf(d), say ? say(d) : toQString(d.message),
                             parts_.messages->entitiesOf(d));
    if (!noteRunStart(problems, analysis)) return false;
    documentEdited_ = false;
    rerunAction_->setEnabled(false);
    return true;
}

QString RunControl::adoptRun(std::shared_ptr<const engine::Model> model,
                             std::unique_ptr<engine::Recording> recording,
                             const engine::SceneSpec& runScene) {
    parts_.session->clear();
    const QString problem = parts_.session->adopt(std::move(model), std::move(recording));
    if (!problem.isEmpty()) return problem;
    const engine::SceneSpec* scene = parts_.document->scene();
    runSceneJson_ = mechanismText(runScene);
    // Edited after the run: as after any edit, Re-run From Here takes the edit in.
    documentEdited_ = !scene || mechanismText(*scene) != runSceneJson_;
    rerunAction_->setEnabled(documentEdited_);
    cannotRun_.clear();
    analysisName_ = tr("Dynamics");
    updateRunState();
    return QString();
}

void RunControl::sceneEdited() {
    const engine::SceneSpec* scene = parts_.document->scene();
    if (!scene) return;
    // A run not yet under way simply restarts with the edit; one with recorded frames keeps
    // them (they are what the user is looking at) until Re-run From Here or Reset.
    const auto snap = parts_.session->snapshot();
    const engine::Recording* recording = parts_.session->recording();
    if (!snap || !recording || recording->size() <= 1) {
        // The analysis stays what the user chose (and shown), as long as it can run: a
        // mechanism no longer fully driven goes back to Dynamics, and says so.
        bool kinematic = parts_.session->active() && parts_.session->kinematic();
        QString analysis = analysisName_;
        if (kinematic && parts_.mobility->freeDegreesOfFreedom() != 0) {
            kinematic = false;
            analysis = tr("Dynamics");
            parts_.messages->add(MessageSeverity::Info,
                                 tr("%1 needs every degree of freedom driven: the analysis "
                                    "is Dynamics again.")
                                     .arg(analysisName_));
        }
        // A scene that cannot run has no run: the one before the edit is not its own.
        if (!startRun(kinematic, analysis)) parts_.session->clear();
        documentEdited_ = false;
        rerunAction_->setEnabled(false);
        updateRunState();
    } else {
        if (!documentEdited_)
            parts_.messages->add(MessageSeverity::Info,
                                 tr("Scene edited: Simulate > Re-run From Here (Ctrl+Shift+R) "
                                    "continues from t = %1 s "
                                    "with the change; Reset (Ctrl+R) starts over with it.")
                                     .arg(snap->time, 0, 'f', 3));
        documentEdited_ = true;
        rerunAction_->setEnabled(true);
        parts_.viewport->setPartPoses(snap->partPoses);
        updateRunState();
    }
}

void RunControl::documentReset() {
    documentEdited_ = false;
    rerunAction_->setEnabled(false);
}

bool RunControl::noteRunStart(const engine::Diagnostics& problems, const QString& analysis) {
    const auto error = std::find_if(problems.begin(), problems.end(), [](const auto& d) {
        return d.severity == engine::Severity::Error;
    });
    if (error != problems.end()) {
        cannotRun_ = toQString(error->message);
        cannotRunEntities_ = parts_.messages->entitiesOf(*error);
        updateRunState();
        return false;
    }
    cannotRun_.clear();
    const engine::SceneSpec* scene = parts_.document->scene();
    runSceneJson_ = scene ? mechanismText(*scene) : std::string();
    analysisName_ = analysis;
    updateRunState();
    return true;
}

void RunControl::updateRunState() {
    const QString analysis = analysisName_.isEmpty() ? tr("Dynamics") : analysisName_;
    parts_.timeline->setAnalysis(analysis);
    const engine::SceneSpec* scene = parts_.document->scene();
    if (!parts_.session->active() || !scene) {
        const QString why =
            cannotRun_.isEmpty() ? QString() : tr("The scene cannot run: %1").arg(cannotRun_);
        parts_.viewport->setBanner(why);
        parts_.timeline->setIdleText(cannotRun_.isEmpty() ? QString()
                                                          : tr("cannot run (see the view)"));
        return;
    }
    parts_.timeline->setIdleText(QString());
    QString stale;
    if (mechanismText(*scene) != runSceneJson_)
        stale = cannotRun_.isEmpty()
                    ? tr("the scene was edited after this run, so its frames, plots and exports "
                         "are of the scene before the edit. Simulate ▸ Re-run From Here "
                         "(Ctrl+Shift+R) or Reset (Ctrl+R) runs the scene as edited.")
                    : tr("the scene as edited cannot run (%1); the frames shown are of the scene "
                         "before the edit.")
                          .arg(cannotRun_);
    parts_.session->markStale(stale);
    parts_.viewport->setBanner(stale.isEmpty() ? QString() : tr("Stale run: %1").arg(stale));
}

bool RunControl::confirmDropRun(const QString& action) {
    const engine::Recording* recording = parts_.session->recording();
    if (!recording || recording->size() <= 1) return true;
    const double from = recording->time(recording->first());
    const double until = recording->time(recording->size() - 1);
    QMessageBox box(
        QMessageBox::Question, tr("Discard the run?"),
        tr("%1 discards the recorded run (%2–%3 s, %4 frames)%5 and what its plots "
           "show. This cannot be undone.")
            .arg(action)
            .arg(from, 0, 'f', 3)
            .arg(until, 0, 'f', 3)
            .arg(recording->size() - recording->first())
            .arg(recording->hasPrevious() ? tr(", the previous run's ghost") : QString()),
        QMessageBox::NoButton, parts_.window);
    box.setObjectName(QStringLiteral("DiscardRunQuestion"));
    QPushButton* go = box.addButton(tr("Discard Run"), QMessageBox::DestructiveRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    return box.clickedButton() == go;
}

void RunControl::stepFrames(int frames) {
    const auto snap = parts_.session->snapshot();
    const engine::Recording* recording = parts_.session->recording();
    if (!snap || !recording || recording->size() == 0) return;
    parts_.session->pause();
    const auto last = static_cast<long long>(recording->size()) - 1;
    const auto current = static_cast<long long>(snap->frame);
    // Past the last recorded frame, one step forward computes the next one.
    if (frames == 1 && current >= last) {
        parts_.session->step();
        return;
    }
    long long target = frames == std::numeric_limits<int>::min()   ? 0
                       : frames == std::numeric_limits<int>::max() ? last
                                                                   : current + frames;
    target = std::clamp(target, 0LL, last);
    if (target != current) parts_.session->seekFrame(static_cast<int>(target));
}

void RunControl::showSnapshot() {
    // A view slow to draw (many thousands of parts drawn in software) is given the run's states
    // no faster than it draws them, the latest one once the wait is over: the window keeps half
    // its time for the user's clicks (Pause among them).
    if (const double wait = parts_.viewport->secondsBeforeNextFrame(); wait > 0.0) {
        if (!showPending_) {
            showPending_ = true;
            QTimer::singleShot(static_cast<int>(std::ceil(1000.0 * wait)), this, [this] {
                showPending_ = false;
                showSnapshot();
            });
        }
        return;
    }
    const auto snap = parts_.session->snapshot();
    if (!snap) {
        simulationStatus_->clear();
        return;
    }
    if (parts_.viewport->gizmoDragging()) return;  // the drag's poses are shown
    // Time moved or the scene changed: the mode animation gives the view back (its stop
    // shows this snapshot).
    if (parts_.modes->animatedMode() >= 0) {
        parts_.modes->animateMode(-1);
        return;
    }
    parts_.viewport->setPartPoses(snap->partPoses);
    parts_.viewport->setContacts(snap->outputs.contacts);
    parts_.viewport->setCouplerForces(snap->outputs.couplerForce);
    parts_.viewport->setGhostPoses(snap->previousPoses);
    // The manipulator edits the design pose: not while a recorded run is shown.
    const engine::Recording* recording = parts_.session->recording();
    discardPreviousAction_->setEnabled(recording && recording->hasPrevious());
    parts_.manipulation->setDesignPoseShown(!recording || recording->size() <= 1);
    warnAbout(snap->statistics);
    // Which coordinates the run steps in, and why (settings.formulation).
    const QString coordinates = snap->statistics.jointCoordinates ? tr(" · joint coordinates")
                                                                  : tr(" · maximal coordinates");
    simulationStatus_->setToolTip(
        snap->statistics.formulationReason.empty()
            ? QString()
            : tr("Steps in %1: %2")
                  .arg(snap->statistics.jointCoordinates ? tr("joint coordinates")
                                                         : tr("maximal coordinates"))
                  .arg(QString::fromStdString(snap->statistics.formulationReason)));
    simulationStatus_->setText(
        tr("%1 · t = %2 s")
            .arg(analysisName_.isEmpty() ? tr("Dynamics") : analysisName_)
            .arg(snap->time, 0, 'f', 3) +
        (analysisName_.isEmpty() || analysisName_ == tr("Dynamics") ? coordinates : QString()) +
        (parts_.session->stale() ? tr(" · stale run") : QString()) +
        (snap->error.empty() ? QString() : tr("  — stopped: see Messages")));

    const bool runningTo = snap->mode == engine::RunMode::AsFastAsPossible;
    if (runningTo) {
        if (runStartTime_ < 0.0) runStartTime_ = snap->time;
        const double span = std::max(1e-12, snap->runToTime - runStartTime_);
        const double done = std::clamp((snap->time - runStartTime_) / span, 0.0, 1.0);
        runProgress_->setValue(static_cast<int>(done * 1000));
        const double rate = snap->statistics.realTimeFactor;
        runProgress_->setFormat(rate > 0
                                    ? tr("to %1 s: %p% — %2 s left")
                                          .arg(snap->runToTime, 0, 'g', 4)
                                          .arg((snap->runToTime - snap->time) / rate, 0, 'f', 0)
                                    : tr("to %1 s: %p%").arg(snap->runToTime, 0, 'g', 4));
    } else {
        runStartTime_ = -1.0;
    }
    if (!parts_.session->jobRunning()) {
        runProgress_->setVisible(runningTo);
        cancelRun_->setVisible(runningTo);
    }
}

void RunControl::warnAbout(const engine::RunStatistics& stats) {
    // An energy balance that drifts (in a mechanism that conserves it) is said once per run:
    // the integrator's step is too coarse for the motion.
    if (stats.energyDriftTime < 0.0) energyDriftTold_ = false;  // a new run
    if (stats.energyDriftTime >= 0.0 && !energyDriftTold_) {
        energyDriftTold_ = true;
        parts_.messages->add(
            MessageSeverity::Warning,
            tr("The energy balance drifted by more than 1 % of the energy the motion "
               "exchanges by t = %1 s (%2 J of %3 J so far), in a mechanism that "
               "conserves it: the integrator's step is too coarse for this motion. A "
               "smaller step size, or dopri45, keeps it.")
                .arg(stats.energyDriftTime, 0, 'f', 3)
                .arg(stats.energyDrift, 0, 'g', 3)
                .arg(stats.energyScale, 0, 'g', 3));
    }
    // A singular position passed (a dead centre, a linkage lying flat) is said once per run:
    // the motion may be right, but the reactions there are not to be trusted blindly.
    if (stats.singularPassages < singularTold_) singularTold_ = 0;  // a new run
    if (stats.singularPassages > 0 && singularTold_ == 0) {
        singularTold_ = stats.singularPassages;
        parts_.messages->add(
            MessageSeverity::Warning,
            tr("The mechanism passed a singular position at t = %1 s: its joints' "
               "equations came close to depending on each other (a dead centre, a "
               "linkage lying flat, a crank as long as its rod). There the reactions "
               "peak and depend on small errors in the geometry, and the mechanism can "
               "change branch; check the lengths, or plot the reactions around it.")
                .arg(stats.lastSingularTime, 0, 'f', 3));
    }
    // Parts that start the run inside one another are said once per run, the deepest pair
    // highlighted: what the run shows first is contact pushing them apart.
    if (stats.startOverlaps == 0) startOverlapsTold_ = false;  // a new run
    if (stats.startOverlaps > 0 && !startOverlapsTold_) {
        startOverlapsTold_ = true;
        std::vector<engine::EntityId> entities;
        if (const engine::SceneSpec* scene = parts_.document->scene())
            for (const std::string& name : {stats.startOverlapPartA, stats.startOverlapPartB})
                if (const engine::Part* part = scene->findPart(name)) entities.push_back(part->id);
        QString text = QString::fromStdString(stats.startOverlapText);
        if (!text.isEmpty()) text[0] = text[0].toUpper();
        parts_.messages->add(MessageSeverity::Warning, text + tr("."), entities);
    }
    // A follower leaving its cam is said once per run, when it first does.
    if (stats.liftOffTime < 0.0) liftOffTold_ = false;  // a new run
    if (stats.liftOffTime >= 0.0 && !liftOffTold_) {
        liftOffTold_ = true;
        parts_.messages->add(
            MessageSeverity::Info,
            tr("The follower of cam pair '%1' lifted off its cam at t = %2 s: the contact "
               "could not hold it down any longer (its spring and weight are too weak for "
               "the follower's deceleration there). Plot '%1.q0' for the gap and "
               "'%1.limit' for the contact force.")
                .arg(QString::fromStdString(stats.liftOffJoint))
                .arg(stats.liftOffTime, 0, 'f', 4));
    }
    // A change of branch at a singular position is said once per run: from there on the run
    // is another mechanism's motion (a slider-crank folded, a parallelogram crossed).
    if (stats.branchChangeTime < 0.0) branchTold_ = false;  // a new run
    if (stats.branchChangeTime >= 0.0 && !branchTold_) {
        branchTold_ = true;
        parts_.messages->add(
            MessageSeverity::Warning,
            tr("The mechanism changed branch at the singular position it passed at "
               "t = %1 s: its direction of motion turned by %2° at once, as a step "
               "landed on the other way its joints can close (a slider-crank folding, a "
               "parallelogram crossing) and kinetic energy was lost. The run from there "
               "is not the motion of the mechanism as built; a smaller step size (or "
               "dopri45 with a tighter tolerance) passes on its branch, and lengths "
               "that are not equal avoid the singular position.")
                .arg(stats.branchChangeTime, 0, 'f', 3)
                .arg(qRadiansToDegrees(stats.branchTurn), 0, 'f', 0));
    }
}

void RunControl::rerunFromHere() {
    const auto snap = parts_.session->snapshot();
    const engine::SceneSpec* scene = parts_.document->scene();
    if (!scene || !snap) return;
    const engine::Diagnostics problems =
        parts_.session->rerunFrom(static_cast<int>(snap->frame), parts_.document->compiled());
    parts_.messages->addDiagnostics(problems);
    // When it cannot, the run stays as it was: stale, and why the scene as edited cannot run.
    if (!noteRunStart(problems, analysisName_)) return;
    documentEdited_ = false;
    rerunAction_->setEnabled(false);
    // As the menu says: the run goes on from here with the edit.
    parts_.session->play();
}

void RunControl::resetRun() {
    if (!confirmDropRun(tr("Reset"))) return;
    if ((documentEdited_ || parts_.session->stale() || !parts_.session->active()) &&
        parts_.document->scene()) {
        // A scene that cannot run keeps the run shown, marked stale with the reason.
        startRun(parts_.session->kinematic(), analysisName_);
        return;
    }
    parts_.session->reset();
}

void RunControl::discardPreviousRun() {
    parts_.session->discardPrevious();
    discardPreviousAction_->setEnabled(false);
}

void RunControl::runToDialog() {
    const auto snap = parts_.session->snapshot();
    if (!snap) {
        if (!cannotRun_.isEmpty())
            parts_.messages->add(MessageSeverity::Error,
                                 tr("Cannot run the scene: %1").arg(cannotRun_),
                                 cannotRunEntities_);
        return;
    }
    if (parts_.session->stale()) {  // says why nothing more is computed for it
        parts_.session->runTo(snap->time + 1.0);
        return;
    }
    bool ok = false;
    // The scene's end time when the run is short of it, else a second on.
    const engine::SceneSpec* scene = parts_.document->scene();
    const double endTime = scene ? scene->settings.endTime : 0.0;
    const double t = QInputDialog::getDouble(
        parts_.window, tr("Run to"), tr("Simulate as fast as possible until t [s]:"),
        endTime > snap->time + 1e-9 ? endTime : snap->time + 1.0, snap->time, 1e6, 3, &ok);
    if (ok) parts_.session->runTo(t);
}

bool RunControl::runIsSaved() const {
    const engine::Recording* recording = parts_.session->recording();
    return recording && recording == savedRun_ && recording->size() == savedRunFrames_;
}

void RunControl::noteRunSaved() {
    const engine::Recording* recording = parts_.session->recording();
    savedRun_ = recording;
    savedRunFrames_ = recording ? recording->size() : 0;
}

}  // namespace ui
