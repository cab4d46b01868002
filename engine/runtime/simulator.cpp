#include "engine/runtime/simulator.h"

#include <algorithm>
#include <cmath>

#include "engine/analysis/start_overlaps.h"
#include "engine/math/number_text.h"
#include "engine/model/model.h"

namespace engine {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPublishInterval = std::chrono::milliseconds(4);

bool sameStructure(const Model& a, const Model& b) {
    if (a.bodyCount() != b.bodyCount() || a.joints.size() != b.joints.size() ||
        a.drivers.size() != b.drivers.size() || a.constraintRows() != b.constraintRows())
        return false;
    for (std::size_t j = 0; j < a.joints.size(); ++j)
        if (a.joints[j].coordinates != b.joints[j].coordinates) return false;
    return true;
}

}  // namespace

Simulator::Simulator(std::shared_ptr<const Model> model, RecordingOptions options)
    : model_(std::move(model)),
      dynamics_(std::make_unique<ForwardDynamics>(model_)),
      recording_(std::make_unique<Recording>(*model_, options)) {
    initialization_ = dynamics_->initialize();
    if (initialization_.ok) {
        Outputs outputs;
        initialization_ = dynamics_->outputs(outputs);
        if (initialization_.ok) recording_->append(dynamics_->state(), outputs);
    }
    if (!initialization_.ok) {
        error_ = initialization_.message;
        errorEntities_ = initialization_.entities;
    }
    startThread();
}

Simulator::Simulator(std::shared_ptr<const Model> model, std::unique_ptr<Recording> recording)
    : model_(std::move(model)),
      dynamics_(std::make_unique<ForwardDynamics>(model_)),
      recording_(std::move(recording)) {
    if (!recording_) recording_ = std::make_unique<Recording>(*model_, RecordingOptions{});
    State last;
    Outputs outputs;
    if (recording_->size() == 0 || !recording_->read(recording_->size() - 1, last, outputs)) {
        initialization_ = Status::failure("the run has no frames");
    } else {
        initialization_ = dynamics_->resume(last);
        currentFrame_ = recording_->size() - 1;
    }
    if (!initialization_.ok) {
        error_ = initialization_.message;
        errorEntities_ = initialization_.entities;
    }
    startThread();
}

void Simulator::startThread() {
    branches_ = std::make_unique<BranchWatch>(*model_);
    liftOffs_ = std::make_unique<LiftOffWatch>(*model_);
    // The energy balance is conserved only where every force that does work is bookkept:
    // gravity, springs, dampers (dissipated) and drivers (driver work).
    // (A force or motion switched by a sensor puts in or takes out what it held at once.)
    energyConserved_ = !model_->kinematic && !model_->contact.enabled && model_->softRows == 0 &&
                       std::all_of(model_->switches.begin(), model_->switches.end(),
                                   [](const SwitchModel& k) { return k.kind == SwitchKind::Held; });
    for (const ForceModel& f : model_->forces)
        energyConserved_ =
            energyConserved_ &&
            (f.type == ForceType::SpringDamper || f.type == ForceType::RotationalSpringDamper ||
             f.type == ForceType::Bushing || f.type == ForceType::Cable);
    statsWall_ = Clock::now();
    publish();
    thread_ = std::thread([this] { run(); });
}

Simulator::~Simulator() {
    stop();
}

void Simulator::stop() {
    {
        std::lock_guard lock(mutex_);
        quit_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    std::lock_guard lock(mutex_);
    busy_ = false;
    idle_.notify_all();
}

void Simulator::post(Command command) {
    {
        std::lock_guard lock(mutex_);
        if (quit_) return;
        commands_.push_back(std::move(command));
        busy_ = true;
    }
    wake_.notify_all();
}

void Simulator::play() {
    post([this] {
        if (!initialization_.ok || ((!error_.empty() || replayOnly_) && !replaying())) return;
        // At the scene's end time Play replays from the start instead of running on (Run to
        // and Step still go on).
        const double endTime = model_->settings.endTime;
        if (endTime > 0.0 && !replaying() && recording_->time(currentFrame_) >= endTime - 1e-12) {
            currentFrame_ = recording_->first();
            if (!replaying()) return;
        }
        mode_ = RunMode::RealTime;
        playStartedInRecording_ = replaying();
        paceWall_ = Clock::now();
        paceSim_ = recording_->time(currentFrame_);
    });
}

void Simulator::setFrameSink(FrameSink sink) {
    post([this, sink = std::move(sink)] {
        sink_ = sink;
        for (std::size_t k = recording_->first(), n = recording_->size(); k < n; ++k) {
            State state;
            Outputs outputs;
            if (recording_->read(k, state, outputs) && !recorded(state, outputs)) return;
        }
    });
}

bool Simulator::recorded(const State& state, const Outputs& outputs) {
    if (!sink_) return true;
    std::string error;
    if (sink_(state, outputs, error)) return true;
    sink_ = nullptr;  // nothing more goes to a sink that failed
    mode_ = RunMode::Paused;
    error_ = error.empty() ? "the frames could not be written" : error;
    publish();
    return false;
}

void Simulator::setLoop(bool loop) {
    post([this, loop] {
        loop_ = loop;
        publish();
    });
}

void Simulator::pause() {
    post([this] {
        mode_ = RunMode::Paused;
        publish();
    });
}

void Simulator::step() {
    post([this] {
        if (!initialization_.ok) return;
        mode_ = RunMode::Paused;
        if (replaying()) {
            ++currentFrame_;
        } else if (error_.empty() && !replayOnly_) {
            advanceOneOutput();
        }
        publish();
    });
}

bool Simulator::replaying() const {
    return currentFrame_ + 1 < recording_->size();
}

void Simulator::runTo(double time) {
    post([this, time] {
        if (!initialization_.ok || !error_.empty() || replayOnly_) return;
        if (time <= dynamics_->state().t) return;
        currentFrame_ = recording_->size() - 1;  // computing continues from the end of the run
        runToTime_ = time;
        mode_ = RunMode::AsFastAsPossible;
    });
}

void Simulator::seek(std::size_t frame) {
    post([this, frame] {
        mode_ = RunMode::Paused;
        const std::size_t n = recording_->size();
        if (n == 0) return;
        currentFrame_ = std::clamp(frame, std::min(recording_->first(), n - 1), n - 1);
        publish();
    });
}

void Simulator::wake() {
    post([this] {
        if (dynamics_) dynamics_->wake();
    });
}

void Simulator::setSpeed(double factor) {
    post([this, factor] {
        speed_ = std::clamp(factor, 0.01, 100.0);
        paceWall_ = Clock::now();
        paceSim_ = recording_->time(currentFrame_);
        publish();
    });
}

void Simulator::setReplayOnly(bool on) {
    post([this, on] {
        replayOnly_ = on;
        if (on && mode_ == RunMode::AsFastAsPossible) mode_ = RunMode::Paused;
        publish();
    });
}

void Simulator::reset() {
    post([this] {
        mode_ = RunMode::Paused;
        replayOnly_ = false;
        if (!initialization_.ok) return;
        // Back to the first frame held (frame 0 unless the recording dropped its oldest).
        const std::size_t first = recording_->first();
        State state;
        Outputs outputs;
        if (!recording_->read(first, state, outputs)) return;
        recording_->truncateAfter(first);
        recording_->discardPrevious();  // a reset starts over: no run to compare with
        dynamics_->restore(state);
        statistics_.singularPassages = 0;
        nearSingular_ = false;
        statistics_.branchChanges = 0;
        statistics_.branchChangeTime = -1.0;
        statistics_.branchTurn = 0.0;
        branches_->reset();
        statistics_.liftOffs = 0;
        statistics_.liftOffTime = -1.0;
        statistics_.liftOffJoint.clear();
        liftOffs_->reset();
        overlapsChecked_ = false;
        statistics_.startOverlaps = 0;
        statistics_.startOverlapText.clear();
        statistics_.energyDrift = statistics_.energyScale = 0.0;
        statistics_.energyDriftTime = -1.0;
        statistics_.sensorEvents.clear();
        stoppedBy_.clear();
        driftSince_ = -1.0;
        currentFrame_ = first;
        error_.clear();
        errorEntities_.clear();
        publish();
    });
}

void Simulator::rerunFrom(std::size_t frame, std::shared_ptr<const Model> model) {
    post([this, frame, model] {
        mode_ = RunMode::Paused;
        replayOnly_ = false;
        if (!initialization_.ok) return;
        if (model && model != model_) {
            if (!sameStructure(*model, *model_)) {
                error_ =
                    "cannot re-run with a model of another structure (parts, joints or motions "
                    "were added or removed): start a new run";
                publish();
                return;
            }
            model_ = model;
            dynamics_ = std::make_unique<ForwardDynamics>(model_);
            branches_ = std::make_unique<BranchWatch>(*model_);
            liftOffs_ = std::make_unique<LiftOffWatch>(*model_);
        }
        branches_->reset();
        State state;
        Outputs outputs;
        if (!recording_->read(frame, state, outputs)) return;
        recording_->truncateAfter(frame);
        if (model) {
            // New parameters: prepare the solver for them at the recorded state.
            if (Status s = dynamics_->initialize(state); !s.ok) {
                fail(s);
                return;
            }
        } else {
            dynamics_->restore(state);
        }
        currentFrame_ = frame;
        if (frame == 0) overlapsChecked_ = false;  // (the run from its first frame again)
        error_.clear();
        errorEntities_.clear();
        notice_.clear();
        publish();
    });
}

std::shared_ptr<const Snapshot> Simulator::snapshot() const {
    std::lock_guard lock(mutex_);
    return snapshot_;
}

std::shared_ptr<const Model> Simulator::model() const {
    std::lock_guard lock(mutex_);
    return snapshot_->model;
}

bool Simulator::waitUntilIdle(std::chrono::milliseconds timeout) const {
    std::unique_lock lock(mutex_);
    return idle_.wait_for(lock, timeout, [this] { return !busy_; });
}

double Simulator::outputInterval() const {
    return model_->settings.outputSpacing();
}

void Simulator::fail(const Status& status) {
    // Pause at the last good frame: the recording is untouched, the engine state goes back to it.
    mode_ = RunMode::Paused;
    error_ = status.message;
    errorEntities_ = status.entities;
    State state;
    Outputs outputs;
    if (recording_->read(currentFrame_, state, outputs)) dynamics_->restore(state);
    branches_->reset();
    publish();
}

void Simulator::advanceOneOutput() {
    const double interval = outputInterval();
    const double t = dynamics_->state().t;
    // Output times lie on the grid t_k = k · interval, so runs line up frame by frame.
    const double k = std::floor(t / interval + 0.5) + 1.0;
    double tNext = k * interval;
    if (mode_ == RunMode::AsFastAsPossible) tNext = std::min(tNext, runToTime_);
    // Play ends where the scene says its run ends, on that instant.
    const double endTime = model_->settings.endTime;
    const bool playing = mode_ == RunMode::RealTime;
    if (playing && endTime > t + 1e-12) tNext = std::min(tNext, endTime);
    if (tNext <= t) tNext = t + interval;

    if (!stoppedBy_.empty()) {  // going on after a sensor's stop: its notice is read
        stoppedBy_.clear();
        notice_.clear();
    }
    // Parts that start inside one another are said once, as the run leaves its first frame.
    if (!overlapsChecked_ && currentFrame_ == 0) checkStartOverlaps();
    overlapsChecked_ = true;
    const long stepsBefore = dynamics_->statistics().steps;
    if (Status s = dynamics_->advance(tNext); !s.ok) {
        fail(s);
        return;
    }
    // Sensors: each crossing is an event; one that stops ends the run at its instant (the
    // frame recorded below, as where a run pauses).
    if (statistics_.sensorEvents.size() != dynamics_->sensorEvents().size()) {
        statistics_.sensorEvents.clear();
        for (const SensorEvent& e : dynamics_->sensorEvents())
            statistics_.sensorEvents.emplace_back(
                model_->sensors[static_cast<std::size_t>(e.sensor)].name, e.time);
    }
    if (const SensorEvent* e = dynamics_->stoppedBy()) {
        mode_ = RunMode::Paused;
        stoppedBy_ = model_->sensors[static_cast<std::size_t>(e->sensor)].name;
        notice_ = "sensor '" + stoppedBy_ + "' stopped the run at t = " + timeText(e->time);
    }
    const bool nearSingular = dynamics_->singularPositionNear();
    if (nearSingular && !nearSingular_) {
        ++statistics_.singularPassages;
        statistics_.lastSingularTime = dynamics_->state().t;
    }
    nearSingular_ = nearSingular;
    if (const StepResult& step = dynamics_->lastStep();
        liftOffs_->watching() && step.valid &&
        liftOffs_->observe(dynamics_->state().t, step.limitForce)) {
        statistics_.liftOffs = liftOffs_->liftOffs();
        statistics_.liftOffTime = liftOffs_->firstTime();
        statistics_.liftOffJoint = liftOffs_->firstJoint();
    }
    if (branches_->observe(dynamics_->state().t, dynamics_->state().v, nearSingular) &&
        statistics_.branchChanges++ == 0) {
        statistics_.branchChangeTime = branches_->passageTime();
        statistics_.branchTurn = branches_->turn();
    }
    // Where the run pauses (end of a run-to or a step) the frame is always recorded. Outputs
    // (reactions, energies) are computed only for the frames recorded.
    const bool atEnd = playing && endTime > 0.0 && dynamics_->state().t >= endTime - 1e-12;
    if (atEnd) mode_ = RunMode::Paused;
    const bool pausing = mode_ == RunMode::Paused || (mode_ == RunMode::AsFastAsPossible &&
                                                      dynamics_->state().t >= runToTime_ - 1e-12);
    Outputs outputs;
    const bool recordable = pausing || recording_->recordsNext();
    if (Status s = recordable ? dynamics_->outputs(outputs) : Status{}; !s.ok) {
        fail(s);
        return;
    }
    statistics_.outputsComputed += recordable;
    if (recordable) watchEnergy(outputs);
    switch (recording_->append(dynamics_->state(), outputs, pausing)) {
    case Recording::Append::Recorded:
        currentFrame_ = recording_->size() - 1;
        if (!recorded(dynamics_->state(), outputs)) return;
        break;
    case Recording::Append::Skipped:
        break;
    case Recording::Append::Decimated:
        currentFrame_ = recording_->size() - 1;
        if (!recorded(dynamics_->state(), outputs)) return;
        notice_ =
            "recording reached its memory limit: older frames were thinned out; now keeping one "
            "output in " +
            std::to_string(recording_->recordEvery());
        break;
    case Recording::Append::Full:
        mode_ = RunMode::Paused;
        notice_ = "recording reached its memory limit (" +
                  std::to_string(recording_->options().maxBytes >> 20) +
                  " MiB) and the policy is to stop: the run is paused; raise the limit or re-run "
                  "with fewer frames";
        dynamics_->restore([&] {
            State last;
            Outputs unused;
            recording_->read(currentFrame_, last, unused);
            return last;
        }());
        publish();
        return;
    }

    // Statistics over about one second of wall time.
    statsSteps_ += dynamics_->statistics().steps - stepsBefore;
    statistics_.steps = dynamics_->statistics().steps;
    statistics_.projectionIterations = dynamics_->statistics().projectionIterations;
    if (recordable) statistics_.constraintError = outputs.constraintError;
    const auto now = Clock::now();
    const double wall = std::chrono::duration<double>(now - statsWall_).count();
    if (wall >= 1.0) {
        statistics_.stepsPerSecond = static_cast<double>(statsSteps_) / wall;
        statistics_.realTimeFactor = (dynamics_->state().t - statsSim_) / wall;
        statsWall_ = now;
        statsSim_ = dynamics_->state().t;
        statsSteps_ = 0;
    }
    if (mode_ == RunMode::AsFastAsPossible && dynamics_->state().t >= runToTime_ - 1e-12)
        mode_ = RunMode::Paused;
    if (mode_ == RunMode::Paused || now - lastPublish_ >= kPublishInterval) publish();
}

void Simulator::checkStartOverlaps() {
    const StartOverlaps found = findStartOverlaps(*model_, dynamics_->state());
    statistics_.startOverlaps = found.pairs;
    statistics_.startOverlapDepth = found.depth;
    statistics_.startOverlapThreshold = found.threshold;
    statistics_.startOverlapPartA.clear();
    statistics_.startOverlapPartB.clear();
    statistics_.startOverlapText.clear();
    if (found.pairs == 0) return;
    const std::string& a = model_->parts[static_cast<std::size_t>(found.partA)].name;
    const std::string& b = model_->parts[static_cast<std::size_t>(found.partB)].name;
    statistics_.startOverlapPartA = a;
    statistics_.startOverlapPartB = b;
    const ContactSettings& contact = model_->contact.settings;
    std::string text = "parts '" + a + "' and '" + b + "' start " +
                       numberText(found.depth, 3, "m") + " inside one another";
    if (found.pairs > 1)
        text += " (" + std::to_string(found.pairs - 1) + " more pair" +
                (found.pairs > 2 ? "s" : "") + " of parts deeper than " +
                numberText(found.threshold, 3, "m") + ")";
    text += ": contact pushes them apart";
    if (contact.stiffness <= 0.0 && contact.frequency <= 0.0)  // (rigid: pushSpeed applies)
        text += " at up to the push-out speed (contact.pushSpeed, " +
                numberText(contact.pushSpeed, 3, "m/s") + ")";
    text +=
        ", so the run does not start from the scene as placed; move them apart, or switch "
        "contact between them off (a contact pair with enabled false)";
    statistics_.startOverlapText = text;
}

std::vector<Transform> Simulator::partPosesAt(const Eigen::VectorXd& q) const {
    std::vector<Transform> poses = model_->partPoses0;
    // No state to show (a run that could not start, e.g. one of no frames): the design poses.
    if (q.size() < static_cast<Eigen::Index>(7 * model_->bodies.size())) return poses;
    for (std::size_t p = 0; p < model_->parts.size(); ++p) {
        const int b = model_->parts[p].body;
        if (b == kGround) continue;
        poses[p] = partPose(*model_, p, {bodyOrientation(q, b).normalized(), bodyPosition(q, b)});
    }
    return poses;
}

void Simulator::watchEnergy(const Outputs& outputs) {
    if (!energyConserved_) return;
    if (!energyStarted_) {
        State first;
        Outputs start;
        if (!recording_->read(recording_->first(), first, start)) return;
        energy0_ = start.energies.balance();
        gravitational0_ = start.energies.gravitational;
        energyStarted_ = true;
    }
    const Energies& e = outputs.energies;
    const double scale = std::abs(e.kinetic) + std::abs(e.gravitational - gravitational0_) +
                         std::abs(e.elastic) + std::abs(e.driverWork) + std::abs(e.dissipated);
    const double drift = std::abs(e.balance() - energy0_);
    if (!std::isfinite(scale) || !std::isfinite(drift)) return;
    statistics_.energyScale = std::max(statistics_.energyScale, scale);
    statistics_.energyDrift = std::max(statistics_.energyDrift, drift);
    // Judged over 0.1 s of motion: the first instants, when the motion has exchanged almost
    // no energy yet, make any round-off look large.
    const bool beyond = drift > 1e-6 && drift > 0.01 * statistics_.energyScale;
    if (!beyond) {
        driftSince_ = -1.0;
    } else if (driftSince_ < 0.0) {
        driftSince_ = outputs.t;
    } else if (statistics_.energyDriftTime < 0.0 && outputs.t - driftSince_ >= 0.1) {
        statistics_.energyDriftTime = driftSince_;
    }
}

void Simulator::discardPrevious() {
    post([this] {
        recording_->discardPrevious();
        publish();
    });
}

void Simulator::publish() {
    // The snapshot shows the current recorded frame (the live end of the run, or the frame
    // the user sought or is replaying); before anything is recorded, the engine's state.
    auto snap = std::make_shared<Snapshot>();
    State recorded;
    const bool fromRecording = recording_->read(currentFrame_, recorded, snap->outputs);
    const State& state = fromRecording ? recorded : dynamics_->state();
    snap->model = model_;
    snap->frame = currentFrame_;
    snap->time = state.t;
    snap->partPoses = partPosesAt(state.q);
    // The previous run (after a re-run) at the same time: the view draws it as a ghost.
    if (recording_->hasPrevious() && state.t >= recording_->previousFrom()) {
        State previous;
        Outputs unused;
        if (recording_->readPrevious(state.t, previous, unused))
            snap->previousPoses = partPosesAt(previous.q);
    }
    snap->mode = mode_;
    snap->speed = speed_;
    snap->loop = loop_;
    snap->runToTime = runToTime_;
    statistics_.jointCoordinates = dynamics_->formulation().formulation == Formulation::Recursive;
    statistics_.formulationReason = dynamics_->formulation().reason;
    snap->statistics = statistics_;
    snap->error = error_;
    snap->errorEntities = errorEntities_;
    snap->notice = notice_;
    snap->stoppedBy = stoppedBy_;
    lastPublish_ = Clock::now();
    std::lock_guard lock(mutex_);
    snap->sequence = ++sequence_;
    snapshot_ = std::move(snap);
}

void Simulator::run() {
    std::unique_lock lock(mutex_);
    while (!quit_) {
        if (commands_.empty() && mode_ == RunMode::Paused) {
            busy_ = false;
            idle_.notify_all();
            wake_.wait(lock, [this] { return quit_ || !commands_.empty(); });
            continue;
        }
        // Commands first, each outside the lock.
        while (!commands_.empty() && !quit_) {
            Command command = std::move(commands_.front());
            commands_.pop_front();
            lock.unlock();
            command();
            lock.lock();
        }
        if (quit_ || mode_ == RunMode::Paused) continue;

        if (mode_ == RunMode::RealTime) {
            // Wait until the wall clock catches up with the next frame's time: a recorded one
            // when replaying from an earlier frame, else the next output to compute.
            const bool replay = replaying();
            if (!replay && loop_ && playStartedInRecording_ && currentFrame_ > 0) {
                // Loop playback: the last recorded frame has been shown; start over at frame 0.
                lock.unlock();
                currentFrame_ = recording_->first();
                paceWall_ = Clock::now();
                paceSim_ = recording_->time(currentFrame_);
                publish();
                lock.lock();
                continue;
            }
            const double tNext = replay ? recording_->time(currentFrame_ + 1)
                                        : dynamics_->state().t + outputInterval();
            const auto due =
                paceWall_ + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>((tNext - paceSim_) / speed_));
            if (due > Clock::now()) {
                wake_.wait_until(lock, due, [this] { return quit_ || !commands_.empty(); });
                continue;
            }
            if (replay) {
                lock.unlock();
                ++currentFrame_;
                if (Clock::now() - lastPublish_ >= kPublishInterval || !replaying()) publish();
                lock.lock();
                continue;
            }
            const double endTime = model_->settings.endTime;
            if (!error_.empty() || replayOnly_ ||  // replayed up to a failure, or replay only,
                (endTime > 0.0 && dynamics_->state().t >= endTime - 1e-12)) {  // or the end
                mode_ = RunMode::Paused;
                lock.unlock();
                publish();
                lock.lock();
                continue;
            }
        }
        lock.unlock();
        advanceOneOutput();
        lock.lock();
    }
}

}  // namespace engine
