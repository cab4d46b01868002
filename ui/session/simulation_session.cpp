#include "ui/session/simulation_session.h"

#include <exception>
#include <thread>

#include <QDateTime>
#include <QEventLoop>

#include "engine/analysis/kinematic_analysis.h"
#include "engine/model/model.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"

namespace ui {
namespace {

// Runs `work` on a worker thread while the GUI thread keeps painting and running its timers
// (user input waits, so nothing can start another set-up meanwhile). Set-up — the rank
// analysis of the constraints and the assembly — grows with the mechanism: it never freezes
// the window.
template <class Work>
void offTheGuiThread(Work&& work) {
    QEventLoop loop;
    std::exception_ptr failure;  // rethrown here, where the caller can handle it
    std::thread worker([&] {
        try {
            work();
        } catch (...) {
            failure = std::current_exception();
        }
        QMetaObject::invokeMethod(&loop, &QEventLoop::quit, Qt::QueuedConnection);
    });
    loop.exec(QEventLoop::ExcludeUserInputEvents);
    worker.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace

struct SimulationSession::Job {
    JobControl control;
    std::thread thread;
    double started = 0.0;  // seconds since the epoch
};

SimulationSession::SimulationSession(QObject* parent) : QObject(parent) {
    timer_.setInterval(16);  // display rate
    connect(&timer_, &QTimer::timeout, this, &SimulationSession::poll);
    jobTimer_.setInterval(100);
    connect(&jobTimer_, &QTimer::timeout, this, [this] {
        if (!job_) return;
        emit jobProgress(job_->control.progress.load(),
                         QDateTime::currentMSecsSinceEpoch() / 1000.0 - job_->started);
    });
}

SimulationSession::~SimulationSession() {
    // A job still working is told to stop; its result has nowhere to go.
    if (job_) {
        job_->control.cancel = true;
        if (job_->thread.joinable()) job_->thread.join();
    }
}

bool SimulationSession::startJob(const QString& name, JobWork work) {
    if (jobRunning_) return false;
    if (job_ && job_->thread.joinable()) job_->thread.join();  // finished: its result shown
    job_ = std::make_unique<Job>();
    job_->started = QDateTime::currentMSecsSinceEpoch() / 1000.0;
    jobRunning_ = true;
    jobName_ = name;
    Job* job = job_.get();
    job->thread = std::thread([this, job, work = std::move(work)] {
        std::function<void()> finish = work(job->control);
        QMetaObject::invokeMethod(
            this,
            [this, finish = std::move(finish)] {
                jobRunning_ = false;
                jobTimer_.stop();
                if (finish) finish();
                emit jobFinished();
            },
            Qt::QueuedConnection);
    });
    jobTimer_.start();
    emit jobStarted();
    return true;
}

void SimulationSession::cancelJob() {
    if (job_) job_->control.cancel = true;
}

engine::Diagnostics SimulationSession::start(const engine::SceneSpec& spec, bool kinematic) {
    return start(engine::compile(
                     spec, kinematic ? engine::Analysis::Kinematics : engine::Analysis::Simulation),
                 kinematic);
}

engine::Diagnostics SimulationSession::start(engine::CompileResult compiled, bool kinematic) {
    if (!compiled.model) return compiled.diagnostics;
    if (kinematic) {
        if (const engine::Status problem = engine::fullyDrivenProblem(compiled.model);
            !problem.ok) {
            compiled.diagnostics.push_back(
                {engine::Severity::Error, "", problem.message, problem.entities});
            return compiled.diagnostics;
        }
        compiled.model = engine::kinematicModel(*compiled.model);
    }
    std::unique_ptr<engine::Simulator> simulator;
    offTheGuiThread([&] { simulator = std::make_unique<engine::Simulator>(compiled.model); });
    if (!simulator->initialization().ok) {
        compiled.diagnostics.push_back(
            {engine::Severity::Error, "",
             "the mechanism cannot start: " + simulator->initialization().message,
             simulator->initialization().entities});
        return compiled.diagnostics;
    }
    install(std::move(simulator));
    kinematic_ = kinematic;
    return compiled.diagnostics;
}

engine::Diagnostics SimulationSession::rerunFrom(int frame, const engine::SceneSpec& spec) {
    return rerunFrom(frame, engine::compile(spec, engine::Analysis::Simulation));
}

engine::Diagnostics SimulationSession::rerunFrom(int frame, engine::CompileResult compiled) {
    if (!compiled.model || !simulator_ || frame < 0) return compiled.diagnostics;
    if (kinematic_) compiled.model = engine::kinematicModel(*compiled.model);
    simulator_->rerunFrom(static_cast<std::size_t>(frame), compiled.model);
    markStale(QString());
    return compiled.diagnostics;
}

void SimulationSession::discardPrevious() {
    if (simulator_) simulator_->discardPrevious();
}

void SimulationSession::install(std::unique_ptr<engine::Simulator> simulator) {
    simulator_ = std::move(simulator);
    if (loop_) simulator_->setLoop(true);
    lastSequence_ = 0;
    lastError_.clear();
    lastNotice_.clear();
    markStale(QString());
    timer_.start();
    emit started();
    poll();
}

QString SimulationSession::adopt(std::shared_ptr<const engine::Model> model,
                                 std::unique_ptr<engine::Recording> recording) {
    std::unique_ptr<engine::Simulator> simulator;
    offTheGuiThread([&] {
        simulator = std::make_unique<engine::Simulator>(std::move(model), std::move(recording));
    });
    if (!simulator->initialization().ok)
        return QString::fromStdString(simulator->initialization().message);
    install(std::move(simulator));
    kinematic_ = false;  // a recorded run continues as dynamics
    return {};
}

void SimulationSession::clear() {
    timer_.stop();
    simulator_.reset();
    markStale(QString());
    emit snapshotChanged();
}

void SimulationSession::markStale(const QString& reason) {
    if (reason == staleReason_) return;
    staleReason_ = reason;
    if (simulator_) simulator_->setReplayOnly(!reason.isEmpty());
    emit staleChanged();
}

bool SimulationSession::refusedAsStale() {
    if (staleReason_.isEmpty()) return false;
    const auto snap = snapshot();
    const engine::Recording* recorded = recording();
    if (!snap || !recorded || snap->frame + 1 < recorded->size()) return false;  // replays
    emit runMessage(true, tr("Nothing more is computed for this run: %1").arg(staleReason_));
    return true;
}

bool SimulationSession::active() const {
    return simulator_ != nullptr;
}

std::shared_ptr<const engine::Snapshot> SimulationSession::snapshot() const {
    return simulator_ ? simulator_->snapshot() : nullptr;
}

const engine::Recording* SimulationSession::recording() const {
    return simulator_ ? &simulator_->recording() : nullptr;
}

void SimulationSession::play() {
    if (simulator_ && !refusedAsStale()) simulator_->play();
}

void SimulationSession::pause() {
    if (simulator_) simulator_->pause();
}

void SimulationSession::togglePlay() {
    const auto snap = snapshot();
    if (!snap) return;
    if (snap->mode == engine::RunMode::Paused)
        play();
    else
        pause();
}

void SimulationSession::step() {
    if (simulator_ && !refusedAsStale()) simulator_->step();
}

void SimulationSession::reset() {
    if (simulator_) simulator_->reset();
}

void SimulationSession::runTo(double time) {
    if (!simulator_) return;
    if (!staleReason_.isEmpty()) {
        emit runMessage(true, tr("Nothing more is computed for this run: %1").arg(staleReason_));
        return;
    }
    simulator_->runTo(time);
}

void SimulationSession::wake() {
    if (simulator_) simulator_->wake();
}

void SimulationSession::setSpeed(double factor) {
    if (simulator_) simulator_->setSpeed(factor);
}

void SimulationSession::setLoop(bool loop) {
    if (loop == loop_) return;
    loop_ = loop;
    if (simulator_) simulator_->setLoop(loop);
    emit loopChanged(loop);
}

void SimulationSession::seekFrame(int frame) {
    if (simulator_ && frame >= 0) simulator_->seek(static_cast<std::size_t>(frame));
}

void SimulationSession::poll() {
    const auto snap = snapshot();
    if (!snap || snap->sequence == lastSequence_) return;
    lastSequence_ = snap->sequence;
    if (!snap->error.empty() && snap->error != lastError_)
        emit runMessage(true, QString::fromStdString(snap->error), snap->errorEntities);
    if (!snap->notice.empty() && snap->notice != lastNotice_)
        emit runMessage(false, QString::fromStdString(snap->notice));
    lastError_ = snap->error;
    lastNotice_ = snap->notice;
    emit snapshotChanged();
}

}  // namespace ui
