#include "ui/mainwindow/analyses.h"

#include <optional>

#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QStringList>

#include "engine/analysis/modes.h"
#include "engine/analysis/statics.h"
#include "engine/model/construct.h"
#include "engine/model/scene_spec.h"
#include "engine/record/channel_names.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "ui/analysis/modes_panel.h"
#include "ui/common/text.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/dof_status.h"
#include "ui/mainwindow/messages_panel.h"
#include "ui/mainwindow/run_control.h"
#include "ui/plots/plots_panel.h"
#include "ui/session/simulation_session.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {
namespace {

// The stability of an equilibrium, as a user reads it.
QString stabilityText(const engine::StaticResult& result) {
    switch (result.stability) {
    case engine::Stability::Stable:
        return QObject::tr("stable (every small displacement is pushed back)");
    case engine::Stability::Unstable:
        return QObject::tr(
                   "UNSTABLE: %n direction(s) of motion lead away from it (the smallest "
                   "pushes away at %1 1/s²)",
                   nullptr, result.unstableDirections)
            .arg(result.stiffnessEigenvalues.size() > 0 ? result.stiffnessEigenvalues(0) : 0.0, 0,
                 'g', 3);
    case engine::Stability::Neutral:
        return QObject::tr("neutral: along one direction nothing pushes the mechanism back");
    case engine::Stability::Unknown:
        break;
    }
    return QObject::tr("stability not determined");
}

}  // namespace

Analyses::Analyses(const WindowParts& parts) : QObject(parts.window), parts_(parts) {
    // A result belongs to the scene it was computed from: an edit or another document makes
    // it one that is gone.
    connect(parts_.document, &SceneDocument::sceneChanged, this, [this] { ++revision_; });
    connect(parts_.document, &SceneDocument::documentReset, this, [this] { ++revision_; });
}

void Analyses::createActions(QMenu* analysis) {
    analysis->addAction(tr("&Dynamics (Run to…)"), this, &Analyses::startDynamics);
    analysis->addAction(tr("&Kinematics"), this, [this] { startKinematics(false); });
    analysis->addAction(tr("&Inverse Dynamics"), this, [this] { startKinematics(true); });
    analysis->addAction(tr("&Static Equilibrium"), this,
                        [this] { start(Kind::StaticEquilibrium); });
    analysis->addAction(tr("&Assemble"), this, [this] { start(Kind::Assemble); });
    analysis->addAction(tr("&Vibration Modes"), this, [this] { start(Kind::Modes); });
    analysis->addSeparator();
    analysis->addAction(tr("&Cancel Analysis"), this, &Analyses::cancel);
}

bool Analyses::running() const {
    return parts_.session->jobRunning();
}

void Analyses::cancel() {
    parts_.session->cancelJob();
}

void Analyses::startDynamics() {
    // Back from a kinematic analysis: the run integrates the motion again.
    if (parts_.session->kinematic() && parts_.document->scene()) {
        if (!parts_.runs->confirmDropRun(tr("Going back to Dynamics"))) return;
        if (!parts_.runs->startRun(/*kinematic=*/false, tr("Dynamics"))) return;
    }
    parts_.runs->runToDialog();
}

bool Analyses::startKinematics(bool inverseDynamics) {
    const QString what = inverseDynamics ? tr("Inverse dynamics") : tr("Kinematics");
    const engine::SceneSpec* scene = parts_.document->scene();
    QString problem;
    const int dof = parts_.mobility->freeDegreesOfFreedom(&problem);
    if (dof < 0) {
        parts_.messages->add(MessageSeverity::Error, tr("%1: %2").arg(what, problem));
        return false;
    }
    if (dof > 0) {
        parts_.messages->add(MessageSeverity::Error,
                             tr("%1 needs every degree of freedom driven: this mechanism has %2 "
                                "left free (add motions, or run Dynamics)")
                                 .arg(what)
                                 .arg(dof));
        return false;
    }
    // A fully driven mechanism moves as its motions say: the run solves its positions,
    // velocities and accelerations at each instant from the joints and motions (no
    // integration), and the reactions and motion efforts that produce them (inverse dynamics).
    if (!parts_.runs->confirmDropRun(what)) return false;
    if (!parts_.runs->startRun(/*kinematic=*/true, what, [what](const engine::Diagnostic& d) {
            return tr("%1: %2").arg(what, toQString(d.message));
        }))
        return false;
    parts_.messages->add(
        MessageSeverity::Result,
        tr("%1: the mechanism is fully driven; its motion is solved at each instant from "
           "the joints and motions (Play or Run to…; a lock-up stops the run and says "
           "where). Simulate > Analysis > Dynamics goes back to integrating it.")
            .arg(what));
    // (The efforts' plot is raised after the message, which shows the Messages dock.)
    if (inverseDynamics) {
        QStringList efforts;
        for (const engine::MotionSpec& m : scene->motions)
            efforts << toQString(engine::channels::of(m.name, engine::channels::kEffort));
        if (!efforts.isEmpty()) parts_.plots->addPlot(efforts, tr("Driver efforts"));
    }
    return true;
}

bool Analyses::start(Kind kind) {
    const engine::SceneSpec* scene = parts_.document->scene();
    if (!scene || running()) return false;
    // Statics and modes leave out what their analysis deactivates (the motor, for the modes of
    // the free mechanism): compiled for it when the scene gives it a set of its own.
    const std::optional<engine::Analysis> analysis =
        kind == Kind::StaticEquilibrium ? std::optional(engine::Analysis::Statics)
        : kind == Kind::Modes           ? std::optional(engine::Analysis::Modes)
                                        : std::nullopt;
    const bool ownSet =
        analysis && !scene->analyses[static_cast<std::size_t>(*analysis)].inactive.empty();
    const engine::CompileResult compiled =
        ownSet ? engine::compile(*scene, analysis) : parts_.document->compiled();
    if (!compiled.model) {
        parts_.messages->add(MessageSeverity::Error,
                             tr("The scene does not compile: %1")
                                 .arg(compiled.diagnostics.empty()
                                          ? QString()
                                          : toQString(compiled.diagnostics.front().message)));
        return false;
    }
    const QString what = kind == Kind::Assemble            ? tr("Assembly")
                         : kind == Kind::StaticEquilibrium ? tr("Static equilibrium")
                                                           : tr("Vibration modes");
    auto model = compiled.model;
    // Modes at a moment of a run: with a recorded frame after the start shown (of the scene as
    // it is), about that frame's pose, frozen; otherwise about the stable equilibrium the
    // mechanism rests in.
    std::optional<engine::State> frame;
    if (kind == Kind::Modes && !parts_.runs->documentEdited()) {
        const auto snap = parts_.session->snapshot();
        const engine::Recording* recording = parts_.session->recording();
        engine::State state;
        engine::Outputs outputs;
        if (snap && recording && snap->time > 0.0 && snap->model && !snap->model->kinematic &&
            recording->read(snap->frame, state, outputs)) {
            if (!ownSet) {
                frame = state;
                model = snap->model;
            } else if (snap->model->bodyCount() == model->bodyCount()) {
                frame = state;  // the run's pose, with what modes leave out left out
            } else {
                parts_.messages->add(
                    MessageSeverity::Warning,
                    tr("%1: the run moves other parts than this analysis (it deactivates "
                       "parts of its own), so the modes are taken about the equilibrium, "
                       "not the frame shown.")
                        .arg(tr("Vibration modes")));
            }
        }
    }
    parts_.messages->add(
        MessageSeverity::Info,
        tr("%1: computing… (Simulate > Analysis > Cancel Analysis stops it)").arg(what));
    const quint64 revision = revision_;
    parts_.session->startJob(
        what, [this, model, kind, what, frame, revision](JobControl& job) -> std::function<void()> {
            const engine::State start = engine::initialState(*model);
            engine::StaticResult result;
            if (frame) {
                result.state = *frame;
                result.state.v.setZero();
            } else {
                result = kind == Kind::Assemble
                             ? engine::assemble(*model, start)
                             : engine::equilibrium(*model, start, 1e-8, &job.cancel, &job.progress,
                                                   /*stable=*/kind == Kind::Modes);
            }
            engine::ModesResult modes;
            if (kind == Kind::Modes && result.status.ok) {
                modes = engine::modes(*model, result.state);
                if (frame) result.residual = modes.residual;
            }
            const double frameTime = frame ? frame->t : -1.0;
            return [this, model, kind, what, frameTime, revision, result = std::move(result),
                    modes = std::move(modes)] {
                finish(kind, what, model, result, modes, frameTime, revision);
            };
        });
    return true;
}

void Analyses::finish(Kind analysis, const QString& what,
                      const std::shared_ptr<const engine::Model>& model,
                      const engine::StaticResult& result, const engine::ModesResult& modes,
                      double frameTime, quint64 revision) {
    // An edit (or another file) while it ran: its poses belong to a scene that is gone.
    if (revision != revision_) {
        parts_.messages->add(MessageSeverity::Warning,
                             tr("%1: the scene changed while it ran, so its result is not "
                                "applied; run it again.")
                                 .arg(what));
        return;
    }
    if (!result.status.ok || !modes.status.ok) {
        // A loop that cannot close: the view shows the nearest the mechanism comes (the gap in
        // plain sight) until time moves or the scene changes.
        const bool explained =
            analysis == Kind::Assemble && result.status.cause == engine::Cause::LoopCannotClose;
        if (explained) parts_.viewport->setPartPoses(engine::partPoses(*model, result.state));
        const engine::Status& failed = result.status.ok ? modes.status : result.status;
        parts_.messages->add(
            MessageSeverity::Error,
            tr("%1: %2").arg(what, toQString(failed.message)) +
                (explained ? tr(" (the 3D view shows the nearest the mechanism comes)")
                           : QString()),
            failed.entities);
        return;
    }
    const engine::SceneSpec* scene = parts_.document->scene();
    if (!scene) return;
    if (analysis == Kind::Modes) {
        showModes(model, result, modes, frameTime);
        return;
    }
    // The parts where the analysis put them, as an undoable edit.
    engine::SceneSpec after = *scene;
    after.placeParts(engine::partPoses(*model, result.state));
    if (analysis == Kind::StaticEquilibrium)
        for (engine::Part& part : after.parts) {  // at rest there
            if (part.ground) continue;
            part.v_WPo_W.setZero();
            part.w_WP_W.setZero();
        }
    if (const auto refused = parts_.document->move(
            std::move(after),
            analysis == Kind::Assemble ? tr("Assemble") : tr("Move to static equilibrium"))) {
        parts_.messages->add(MessageSeverity::Error,
                             tr("%1: %2").arg(what, toQString(refused->message)),
                             refused->entities);
        return;
    }
    parts_.messages->add(
        MessageSeverity::Result,
        analysis == Kind::Assemble
            ? tr("Assembled: the parts now start where every joint and motion holds.")
            : tr("Static equilibrium found (%1; largest acceleration at rest %2): "
                 "%3. The parts now start there, at rest (Ctrl+Z undoes).")
                  .arg(result.steps > 0 ? tr("%1 relaxation steps, then %2 Newton iterations")
                                              .arg(result.steps)
                                              .arg(result.newtonIterations)
                                        : tr("%1 Newton iterations").arg(result.newtonIterations))
                  .arg(result.residual, 0, 'g', 3)
                  .arg(stabilityText(result)));
}

void Analyses::showModes(const std::shared_ptr<const engine::Model>& model,
                         const engine::StaticResult& at, const engine::ModesResult& modes,
                         double frameTime) {
    const QString about =
        frameTime >= 0.0
            ? tr("About the pose at t = %1 s of the run, frozen there: its velocities are not "
                 "part of it%2. Select a mode to see it move.")
                  .arg(frameTime, 0, 'f', 3)
                  .arg(at.residual > 1e-6
                           ? tr(", and it is not an equilibrium (largest acceleration at rest "
                                "%1): the modes are those of the mechanism held there")
                                 .arg(at.residual, 0, 'g', 3)
                           : QString())
            : tr("About the stable equilibrium the mechanism rests in (largest acceleration at "
                 "rest %1; found in %2 Newton iterations%3). Select a mode to see it move.")
                  .arg(at.residual, 0, 'g', 3)
                  .arg(at.newtonIterations)
                  .arg(at.steps > 0 ? tr(" after %1 relaxation steps").arg(at.steps) : QString());
    // The message first: the Modes tab, raised after it, stays in front of Messages.
    QStringList list;
    for (std::size_t k = 0; k < modes.modes.size() && k < 6; ++k)
        list << tr("%1 Hz").arg(modes.modes[k].frequency, 0, 'g', 4);
    if (modes.modes.size() > 6) list << QStringLiteral("…");
    parts_.messages->add(
        MessageSeverity::Result,
        modes.modes.empty()
            ? tr("Vibration modes: none (the mechanism has no free motion).")
            : tr("Vibration modes: %n mode(s) about %2: %1. The Modes tab lists them; "
                 "select one to see it move.",
                 nullptr, static_cast<int>(modes.modes.size()))
                  .arg(list.join(QStringLiteral(", ")))
                  .arg(frameTime >= 0.0 ? tr("the pose at t = %1 s").arg(frameTime, 0, 'f', 3)
                                        : tr("the stable equilibrium")));
    parts_.modes->setModes(model, at.state, modes, about);
    if (auto* dock = qobject_cast<QDockWidget*>(parts_.modes->parentWidget())) {
        dock->show();
        dock->raise();
        parts_.window->resizeDocks({dock}, {std::max(dock->height(), 190)}, Qt::Vertical);
    }
    // The lowest mode moves at once, framed in the view (the equilibrium may hang elsewhere
    // than the parts were drawn).
    if (!modes.modes.empty()) {
        parts_.viewport->setPartPoses(engine::partPoses(*model, at.state));
        parts_.viewport->fitToScene();
        parts_.modes->animateMode(0);
    }
}

}  // namespace ui
