#pragma once
// SimulationSession: the GUI's handle on the engine's Simulator. It compiles the document's
// scene, owns the simulator (whose thread does all physics), forwards commands, and polls the
// published snapshot on a display-rate QTimer, announcing new frames with one signal. No Qt
// signal is emitted per engine step and nothing here waits for the engine.

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include <QObject>
#include <QString>
#include <QTimer>

#include "engine/model/diagnostic.h"

namespace engine {
struct CompileResult;
struct Model;
struct SceneSpec;
struct Snapshot;
class Simulator;
class Recording;
}  // namespace engine

namespace ui {

// What a job (SimulationSession::startJob) reads and writes while it works on its own thread:
// whether the user cancelled it, and how far it is (0 to 1).
struct JobControl {
    std::atomic<bool> cancel{false};
    std::atomic<double> progress{0.0};
};

class SimulationSession : public QObject {
    Q_OBJECT

public:
    explicit SimulationSession(QObject* parent = nullptr);
    ~SimulationSession() override;

    // Compiles `spec` and starts a paused simulator at its assembled initial state. Problems
    // (model errors, an assembly that fails) are returned; the previous run is then kept. The
    // set-up (rank analysis, assembly) runs on a worker thread; the window keeps painting.
    // `kinematic`: the run solves the motion of a fully driven mechanism at each instant
    // (kinematic analysis and inverse dynamics) instead of integrating it; re-runs from a frame
    // keep the kind of run. The caller checks that the mechanism is fully driven.
    engine::Diagnostics start(const engine::SceneSpec& spec, bool kinematic = false);
    // The same, from the scene compiled already (the document compiles each edit once).
    engine::Diagnostics start(engine::CompileResult compiled, bool kinematic = false);
    // Re-runs from recorded frame `frame` with `spec` compiled (an edited scene of the same
    // structure): the frames after it are kept as the previous run (a ghost in the view,
    // dashed curves in the plots) and the run continues from it, paused.
    engine::Diagnostics rerunFrom(int frame, const engine::SceneSpec& spec);
    engine::Diagnostics rerunFrom(int frame, engine::CompileResult compiled);
    void discardPrevious();
    // Takes over a recorded run (from a run file), ready to scrub or continue.
    QString adopt(std::shared_ptr<const engine::Model> model,
                  std::unique_ptr<engine::Recording> recording);
    void clear();

    // A stale run: the document has been edited since the run was computed (or can no longer
    // be run at all), so its recorded frames are not of the scene on screen. `reason` says so
    // to the user; empty: the run is the document's. A stale run can be replayed and scrubbed
    // but computes nothing new (engine::Simulator::setReplayOnly): Play, Step and Run to at
    // its last frame are refused with the reason (runMessage). A new run (start, rerunFrom,
    // adopt) is current.
    void markStale(const QString& reason);
    bool stale() const { return !staleReason_.isEmpty(); }
    const QString& staleReason() const { return staleReason_; }

    bool active() const;
    bool kinematic() const { return kinematic_; }
    std::shared_ptr<const engine::Snapshot> snapshot() const;
    const engine::Recording* recording() const;

    // Jobs: work beside the run on a thread of their own (the analyses: assembly, static
    // equilibrium, vibration modes), one at a time, with progress and Cancel. `work` gets the
    // job's control and returns what to do with its result; that runs on the GUI thread once
    // the work is done (jobFinished() follows it). False when a job is already running.
    using JobWork = std::function<std::function<void()>(JobControl&)>;
    bool startJob(const QString& name, JobWork work);
    bool jobRunning() const { return jobRunning_; }
    const QString& jobName() const { return jobName_; }
    void cancelJob();

public slots:
    void play();
    void pause();
    void togglePlay();
    void step();
    void reset();
    void runTo(double time);
    void setSpeed(double factor);
    void wake();  // every sleeping part (Simulator::wake)
    // Loop playback (kept across re-opened and re-run scenes): play inside the recording
    // replays it from the start whenever it reaches the end.
    void setLoop(bool loop);
    bool loop() const { return loop_; }
    void seekFrame(int frame);

signals:
    // A new snapshot (at most once per poll).
    void snapshotChanged();
    // The run stopped with an error, or the recording posted a notice (once per message).
    // `entities`: what it is about (the run's failure names its joints, Status::entities).
    void runMessage(bool error, const QString& text,
                    const std::vector<engine::EntityId>& entities = {});
    void started();
    void loopChanged(bool loop);
    // markStale() changed whether the run is stale, or why.
    void staleChanged();
    // A job is under way: `done` of it (0 to 1) after `elapsed` seconds (ten times a second).
    void jobProgress(double done, double elapsed);
    void jobStarted();
    void jobFinished();

private:
    void poll();
    void install(std::unique_ptr<engine::Simulator> simulator);
    // Play, Step or Run to would compute past the end of a stale run: says why not. True when
    // it was refused.
    bool refusedAsStale();

    std::unique_ptr<engine::Simulator> simulator_;
    QTimer timer_;
    std::uint64_t lastSequence_ = 0;
    std::string lastError_, lastNotice_;
    bool loop_ = false;
    bool kinematic_ = false;  // the run solves the motion at each instant (see start())
    QString staleReason_;     // see markStale()
    struct Job;               // the running job's thread and control
    std::unique_ptr<Job> job_;
    bool jobRunning_ = false;
    QString jobName_;
    QTimer jobTimer_;
};

}  // namespace ui
