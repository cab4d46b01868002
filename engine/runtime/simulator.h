#pragma once
// Simulator: runs a model on its own thread, records every frame, publishes snapshots.
//
// Commands may come from any thread and never block for longer than a queue push; the engine
// thread drains them between output steps. The renderer reads `snapshot()` (an immutable
// copy, replaced atomically) or any recorded frame through `recording()`; nothing it does can
// stall the engine beyond a row copy.
//
// Run modes: paused; real time × speed (0.01–100), paced against the wall clock; as fast as
// possible up to a time (runTo). On a failure (NaN, singular system, non-convergence) the run
// pauses at the last good frame, the recording is kept, and the snapshot carries the message.
// Determinism: the same model and settings give bitwise-identical recordings, and re-running
// from frame k reproduces the frames after k when nothing changed.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/analysis/branch_watch.h"
#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/lift_off_watch.h"
#include "engine/record/recording.h"

namespace engine {

enum class RunMode { Paused, RealTime, AsFastAsPossible };

struct RunStatistics {
    // The sensors' crossings so far (Model::sensors' names, instants), marks and stops.
    std::vector<std::pair<std::string, double>> sensorEvents;
    double stepsPerSecond = 0.0;   // integrator steps per wall-clock second (last second)
    double realTimeFactor = 0.0;   // simulated seconds per wall-clock second (last second)
    int projectionIterations = 0;  // Newton iterations of the last projection
    double constraintError = 0.0;  // largest position residual at the published frame
    long steps = 0;                // since the start of the run
    long outputsComputed = 0;      // output steps whose outputs (reactions, energies) were computed
    // Singular positions passed since the start of the run (a dead centre, a linkage lying
    // flat: ForwardDynamics::singularPositionNear() turning on at an output step), and the time of the
    // last one. Reactions there are large and sensitive to the geometry; the user is told.
    long singularPassages = 0;
    double lastSingularTime = 0.0;
    // Passages in which the motion changed branch (BranchWatch: its direction turned at once
    // by the angle two branches meet at, as a step landed on the other one), when the first
    // began [s] (−1: none) and the angle its direction turned by there [rad]. What follows is
    // not the motion of the mechanism as it started; the user is told.
    long branchChanges = 0;
    double branchChangeTime = -1.0;
    double branchTurn = 0.0;
    // Times a cam's follower left its cam (a cam pair that may lift off, LiftOffWatch), when
    // it first did [s] (−1: never) and the cam pair's name.
    long liftOffs = 0;
    double liftOffTime = -1.0;
    std::string liftOffJoint;
    // In a run whose energy balance (total − driver work + dissipated) is conserved (no
    // contact, no applied forces or controllers, no soft joints): its largest drift from the
    // start [J], the energy the motion exchanges [J] (kinetic + change of gravitational +
    // elastic + driver work + dissipated, the largest seen), and when the drift passed 1 % of
    // that (and 1 µJ) to stay beyond it for 0.1 s at least, −1 if never. The integrator's
    // error, said to the user.
    double energyDrift = 0.0;
    double energyScale = 0.0;
    double energyDriftTime = -1.0;
    // Parts that started the run inside one another (findStartOverlaps, as the run left its
    // first frame): the pairs deeper than the slop and one step's push-out, the deepest [m] and
    // its two parts' names. Contact pushes them apart; the user is told.
    std::size_t startOverlaps = 0;
    double startOverlapDepth = 0.0;
    double startOverlapThreshold = 0.0;
    std::string startOverlapPartA, startOverlapPartB;
    std::string startOverlapText;  // what the user is told, "" when no pair is
    // The coordinates the run steps in (ForwardDynamics::formulation): joint coordinates (the
    // recursive formulation) or the parts' poses (maximal), and why.
    bool jointCoordinates = false;
    std::string formulationReason;
};

// What the renderer needs of one instant (no Eigen expressions, no references into the engine).
struct Snapshot {
    std::uint64_t sequence = 0;          // increases with every publication
    std::shared_ptr<const Model> model;  // the model these numbers come from
    std::size_t frame = 0;               // recording index of this state
    double time = 0.0;
    std::vector<Transform> partPoses;  // X_WP of every part of the spec (ground included)
    // X_WP of every part in the previous run (Recording) at this time; empty when there is
    // none or it starts later.
    std::vector<Transform> previousPoses;
    Outputs outputs;
    RunMode mode = RunMode::Paused;
    double speed = 1.0;
    bool loop = false;       // replay wraps to frame 0 at the end of the recording
    double runToTime = 0.0;  // AsFastAsPossible target
    RunStatistics statistics;
    std::string error;                    // why the run stopped, empty if it did not fail
    std::vector<EntityId> errorEntities;  // what `error` is about (Status::entities)
    std::string notice;                   // e.g. "recording decimated: every 2nd output kept"
    // The sensor that stopped the run at `time` (its name), empty when none did.
    std::string stoppedBy;
};

class Simulator {
public:
    // Assembles the initial state and records it as frame 0 (see initialization()); the engine
    // thread starts paused.
    explicit Simulator(std::shared_ptr<const Model> model, RecordingOptions options = {});
    // Takes over a recorded run (e.g. from a run file) and is ready to continue it from its
    // last frame; nothing is recomputed.
    Simulator(std::shared_ptr<const Model> model, std::unique_ptr<Recording> recording);
    ~Simulator();
    Simulator(const Simulator&) = delete;
    Simulator& operator=(const Simulator&) = delete;

    // Commands (any thread).
    // Real time × speed from the current frame: recorded frames after it are replayed (not
    // recomputed), then the run continues from the end of the recording, up to the scene's
    // end time (SolverSettings::endTime) when it has one; played at the end time, it replays
    // from the start.
    void play();
    void pause();
    void step();                   // the next recorded frame, or one new output step; paused
    void seek(std::size_t frame);  // make a recorded frame current (paused); nothing discarded
    void runTo(double time);       // as fast as possible until `time`, then paused
    void setSpeed(double factor);  // clamped to [0.01, 100]
    // Every sleeping part wakes (ContactSettings::sleepTime): the run goes on from its last
    // frame stepping them all again.
    void wake();
    // Loop playback: a play() started inside the recording replays it to its end and wraps
    // to frame 0, over and over, computing nothing. A play() from the end of the recording
    // still computes new frames.
    void setLoop(bool loop);
    // Replay only: the recorded frames can be played, stepped and scrubbed, but nothing new
    // is computed (play and step stop at the last recorded frame, runTo does nothing). For a
    // run whose scene has been edited since: its model is no longer the document's, so it
    // must not be extended as if it were. rerunFrom() and reset() end it.
    void setReplayOnly(bool on);
    void reset();  // back to t = 0 (recording cleared to frame 0)
    // Continue from recorded frame `frame` with `model` (same structure; null: the current
    // one): the frames after it become the recording's previous run (Recording) and the run
    // pauses there.
    void rerunFrom(std::size_t frame, std::shared_ptr<const Model> model = nullptr);
    // Forgets the previous run kept by the last rerunFrom.
    void discardPrevious();
    void stop();  // ends the thread; the recording stays readable
    // Every recorded frame, on the engine thread, as it is recorded: first the frames held so
    // far, then each new one. A sink that returns false stops the run with its `error` (e.g.
    // a full disk). With a sink, the recording may keep only its latest frames
    // (MemoryPolicy::DropOldest): the sink has the rest.
    using FrameSink =
        std::function<bool(const State& state, const Outputs& outputs, std::string& error)>;
    void setFrameSink(FrameSink sink);

    // Reads (any thread).
    std::shared_ptr<const Snapshot> snapshot() const;
    const Recording& recording() const { return *recording_; }
    std::shared_ptr<const Model> model() const;
    // Blocks until the engine is paused with no command pending, or the timeout passes.
    bool waitUntilIdle(std::chrono::milliseconds timeout) const;
    // The initialisation result (assembly); when it failed the simulator never runs.
    const Status& initialization() const { return initialization_; }

private:
    using Command = std::function<void()>;
    void post(Command command);
    void run();
    void startThread();
    void advanceOneOutput();
    void publish();
    std::vector<Transform> partPosesAt(const Eigen::VectorXd& q) const;  // X_WP of every part
    void fail(const Status& status);
    bool recorded(const State& state, const Outputs& outputs);  // to the sink; false: failed
    bool replaying() const;  // the current frame is before the end of the recording
    void watchEnergy(const Outputs& outputs);  // RunStatistics::energyDrift
    void checkStartOverlaps();                 // RunStatistics::startOverlaps
    double outputInterval() const;

    // Engine-thread state.
    std::shared_ptr<const Model> model_;
    std::unique_ptr<ForwardDynamics> dynamics_;
    std::unique_ptr<Recording> recording_;
    FrameSink sink_;
    Status initialization_;
    RunMode mode_ = RunMode::Paused;
    double speed_ = 1.0;
    bool loop_ = false;
    bool playStartedInRecording_ = false;     // set by play(): loop playback wraps only then
    bool replayOnly_ = false;                 // see setReplayOnly()
    bool nearSingular_ = false;               // at the last output step (RunStatistics)
    bool overlapsChecked_ = false;            // RunStatistics::startOverlaps, for this run
    std::unique_ptr<LiftOffWatch> liftOffs_;  // RunStatistics::liftOffs
    std::unique_ptr<BranchWatch> branches_;   // of the model run (RunStatistics::branchChanges)
    bool energyConserved_ = false;            // the balance is a conserved quantity (RunStatistics)
    bool energyStarted_ = false;
    double energy0_ = 0.0, gravitational0_ = 0.0;  // at the first frame
    double driftSince_ = -1.0;  // the drift has been beyond the bound since then (−1: it is not)
    double runToTime_ = 0.0;
    std::size_t currentFrame_ = 0;
    std::string error_, notice_, stoppedBy_;
    std::vector<EntityId> errorEntities_;  // what error_ is about
    // Pacing: wall clock and simulated time when real-time play (re)started.
    std::chrono::steady_clock::time_point paceWall_;
    double paceSim_ = 0.0;
    // Statistics window.
    std::chrono::steady_clock::time_point statsWall_;
    double statsSim_ = 0.0;
    long statsSteps_ = 0;
    RunStatistics statistics_;
    std::chrono::steady_clock::time_point lastPublish_;

    // Shared with other threads.
    mutable std::mutex mutex_;
    mutable std::condition_variable wake_;
    mutable std::condition_variable idle_;
    std::deque<Command> commands_;
    bool quit_ = false;
    bool busy_ = false;  // engine is running or has commands (for waitUntilIdle)
    std::shared_ptr<const Snapshot> snapshot_;
    std::uint64_t sequence_ = 0;
    std::thread thread_;
};

}  // namespace engine
