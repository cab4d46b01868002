// motus-cli: the headless front end. Links the engine only (no Qt).
//
// Conventions, shared by every subcommand:
//   * results go to stdout (or to the file named by an option);
//   * errors go to stderr, one per line, as "motus-cli: error: <what> (<where>)", where <where>
//     is a file and JSON pointer, a file, or "command line";
//   * exit status (scripts can tell the cases apart):
//       0  success
//       1  invalid input: a file that cannot be read or is not a valid scene (or URDF, run file),
//          or an output that cannot be written
//       2  command-line usage error
//       3  the mechanism cannot be assembled (its joints and motions cannot all hold at t = 0)
//       4  the run stopped on a numerical fault (the message gives the time and the element)
//       5  interrupted (SIGINT, SIGTERM or SIGHUP): every row computed so far is written
//   * output files are written through engine/io/output_file.h: a unique temporary renamed
//     over the target, a FIFO or device written in place, never an input overwritten; what
//     goes to stdout is checked once written (a full disk is an error, exit status 1).

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "app/cli/command_line.h"
#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/kinematic_analysis.h"
#include "engine/analysis/mobility.h"
#include "engine/analysis/modes.h"
#include "engine/analysis/statics.h"
#include "engine/io/csv_export.h"
#include "engine/io/input_file.h"
#include "engine/io/output_file.h"
#include "engine/io/robot_import.h"
#include "engine/io/run_file.h"
#include "engine/io/scene_json.h"
#include "engine/io/scene_overrides.h"
#include "engine/math/constants.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#ifdef MOTUS_HAVE_RENDER
#include "ui/render/video_export.h"
#endif

using cli::BatchOptions;
using cli::KinematicCommandOptions;
using cli::ModesOptions;
using cli::RenderOptions;
using cli::SimulateOptions;

namespace {

constexpr int kExitInvalidInput = 1;
constexpr int kExitUsage = 2;
constexpr int kExitCannotAssemble = 3;
constexpr int kExitRunStopped = 4;
constexpr int kExitInterrupted = 5;
constexpr double kMaxVideoFrames = 500000;  // frames of one video, at most (2.3 h at 60 fps)

// SIGINT / SIGTERM / SIGHUP during a run: the run stops at the next poll, what was computed is
// kept. At any other time they end the process as they would, but first remove the temporaries
// of outputs not yet complete (their targets are untouched).
volatile std::sig_atomic_t interrupted = 0;
extern "C" void onInterrupt(int) {
    interrupted = 1;
}
extern "C" void onFatalSignal(int signal) {
    engine::io::removePendingTemporaries();
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
void catchInterrupts() {
    for (const int signal : kStopSignals) std::signal(signal, onInterrupt);
}
void releaseInterrupts() {
    for (const int signal : kStopSignals) std::signal(signal, onFatalSignal);
}

void printError(const std::string& what, const std::string& where) {
    std::cerr << "motus-cli: error: " << what << " (" << where << ")\n";
}

// Set once an error about stdout was printed (main() then does not print it again).
bool gStdoutReported = false;

// Why a write to stdout failed, from the errno it left (`error`); without one the system gave
// no cause, and none is guessed.
std::string stdoutFailure(int error) {
    const bool writeError = error == ENOSPC || error == EDQUOT || error == EIO || error == EFBIG ||
                            error == EPIPE || error == EBADF;
    return "cannot write the output: " +
           (writeError ? engine::io::fileErrorText(error)
                       : std::string("the system gave no cause (the output may have been closed)"));
}

// The errno of the first failed write to stdout, kept where it happened (errno is per thread,
// and later calls overwrite it): 0 until one fails.
std::atomic<int> gStdoutErrno{0};

// Called where a write to stdout is seen to have failed: keeps its cause.
void noteStdoutFailure() {
    int none = 0;
    if (errno != 0) gStdoutErrno.compare_exchange_strong(none, errno);
}

void printStdoutError() {
    printError(stdoutFailure(gStdoutErrno != 0 ? gStdoutErrno.load() : errno), "stdout");
    gStdoutReported = true;
}

// Files read by the command beyond the scene it names (batch's cases file): no output may be
// one of them.
std::vector<std::string> gInputs;

// Refuses, before any work, an output that is the same file as an input (a CSV written over
// the scene it came from), or two outputs that are one file. `outputs`: option and path.
bool outputsAreSafe(const std::vector<std::pair<std::string, std::string>>& outputs,
                    std::vector<std::string> inputs) {
    inputs.insert(inputs.end(), gInputs.begin(), gInputs.end());
    for (std::size_t k = 0; k < outputs.size(); ++k) {
        const auto& [option, path] = outputs[k];
        if (path.empty()) continue;
        if (const std::string problem = engine::io::sameFileProblem(path, inputs);
            !problem.empty()) {
            printError(problem, "command line: " + option);
            return false;
        }
        // Two outputs to one regular file (or one new name) would leave one of them; a device
        // or a FIFO may take both.
        for (std::size_t j = 0; j < k; ++j) {
            const std::string& other = outputs[j].second;
            if (other.empty()) continue;
            std::error_code ec;
            const bool device =
                std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec);
            const bool same = std::filesystem::equivalent(path, other, ec) ||
                              std::filesystem::weakly_canonical(path, ec) ==
                                  std::filesystem::weakly_canonical(other, ec);
            if (same && !device) {
                printError(outputs[j].first + " and " + option + " name the same file '" + path +
                               "': one would replace the other",
                           "command line: " + option);
                return false;
            }
        }
    }
    return true;
}

void printDiagnostics(const engine::Diagnostics& diagnostics, const std::string& file) {
    for (const engine::Diagnostic& d : diagnostics) {
        const std::string where = d.where.empty() ? file : file + ":" + d.where;
        if (d.severity == engine::Severity::Error)
            printError(d.message, where);
        else
            std::cerr << "motus-cli: warning: " << d.message << " (" << where << ")\n";
    }
}

// --set PATH=VALUE overrides of the command line (engine/io/scene_overrides.h), applied to
// every scene a command reads; batch sets them case by case.
std::vector<engine::io::SceneOverride> gOverrides;

engine::io::SceneLoadResult loadScene(const std::string& path) {
    return engine::io::loadSceneFile(path, gOverrides);
}

// `check <scene>`: read and validate a scene, print what it contains.
int runCheck(const std::string& path) {
    const engine::io::SceneLoadResult result = loadScene(path);
    printDiagnostics(result.diagnostics, path);
    if (!result.scene) return kExitInvalidInput;

    const engine::SceneSpec& scene = *result.scene;
    std::size_t grounds = 0;
    for (const engine::Part& part : scene.parts) grounds += part.ground ? 1 : 0;
    std::map<std::string, int> jointsByType;
    for (const engine::Joint& joint : scene.joints)
        ++jointsByType[std::string(engine::jointTypeName(joint.type))];

    std::cout << "scene:   " << (scene.name.empty() ? "(unnamed)" : scene.name) << "\n"
              << "file:    " << path << "\n"
              << "parts:   " << scene.parts.size() << " (" << grounds << " ground)\n"
              << "markers: " << scene.markerCount() << "\n"
              << "joints:  " << scene.joints.size();
    if (!jointsByType.empty()) {
        std::cout << " (";
        bool first = true;
        for (const auto& [type, count] : jointsByType) {
            std::cout << (first ? "" : ", ") << count << " " << type;
            first = false;
        }
        std::cout << ")";
    }
    std::cout << "\n";
    // Valid means it runs: it compiles, assembles and takes one step.
    const engine::CompileResult compiled = engine::compile(scene);
    printDiagnostics(compiled.diagnostics, path);
    if (!compiled.model) {
        std::cout << "status:  invalid (does not compile)\n";
        return kExitInvalidInput;
    }
    // A plot of a channel the run does not record draws nothing: said, with the close names.
    const engine::FrameLayout channels(*compiled.model);
    for (std::size_t k = 0; k < scene.plots.size(); ++k) {
        const engine::PlotSpec& plot = scene.plots[k];
        if (const std::string problem =
                engine::unknownPlotChannels(plot.name, plot.channels, plot.x, channels);
            !problem.empty())
            std::cerr << "motus-cli: warning: " << problem << " (" << path << ":/plots/" << k
                      << ")\n";
    }
    engine::ForwardDynamics sim(compiled.model);
    if (const engine::Status s = sim.initialize(); !s.ok) {
        printError(s.message, path);
        std::cout << "status:  invalid (cannot be assembled)\n";
        return kExitCannotAssemble;
    }
    if (const engine::Status s = sim.advance(compiled.model->settings.stepSize); !s.ok) {
        printError("the first step failed: " + s.message, path);
        std::cout << "status:  invalid (the first step fails)\n";
        return kExitRunStopped;
    }
    std::cout << "status:  valid (compiles, assembles and takes a step)\n";
    return 0;
}

// Reads and compiles a scene; prints every problem. Null on failure.
std::shared_ptr<const engine::Model> loadModel(const std::string& path,
                                               const engine::SolverSettings* overrides,
                                               engine::Diagnostics* diagnosticsOut = nullptr) {
    engine::io::SceneLoadResult loaded = loadScene(path);
    if (diagnosticsOut) *diagnosticsOut = loaded.diagnostics;
    printDiagnostics(loaded.diagnostics, path);
    if (!loaded.scene) return nullptr;
    if (overrides) loaded.scene->settings = *overrides;
    engine::CompileResult compiled = engine::compile(*loaded.scene);
    if (diagnosticsOut)
        diagnosticsOut->insert(diagnosticsOut->end(), compiled.diagnostics.begin(),
                               compiled.diagnostics.end());
    printDiagnostics(compiled.diagnostics, path);
    return compiled.model;
}

int runSimulateFor(const SimulateOptions& options, engine::SceneSpec& spec);

// `simulate`: forward dynamics to `duration` (else the scene's end time), one CSV row per
// output step (t = 0 first).
int runSimulate(const SimulateOptions& options) {
    if (!outputsAreSafe({{"--out", options.out}, {"--run", options.run}}, {options.scene}))
        return kExitUsage;
    engine::io::SceneLoadResult loaded = loadScene(options.scene);
    printDiagnostics(loaded.diagnostics, options.scene);
    if (!loaded.scene) return kExitInvalidInput;
    engine::SceneSpec& spec = *loaded.scene;
    // A step below the smallest one a run can advance with is refused, naming the option.
    for (const auto& [option, value] :
         {std::pair{"--dt", options.dt}, std::pair{"--max-step", options.maxStep}}) {
        if (value <= 0.0 || value >= engine::kMinStepSize) continue;
        std::ostringstream what;
        what << option << ' ' << value << " s is below " << engine::kMinStepSize
             << " s: a run could not advance in any reasonable time";
        printError(what.str(), std::string("command line: ") + option);
        return kExitUsage;
    }
    // How long: --duration, else the end time the scene keeps.
    SimulateOptions timed = options;
    if (!(timed.duration > 0.0)) timed.duration = spec.settings.endTime;
    if (!(timed.duration > 0.0)) {
        printError(
            "how long to simulate: give --duration, or an end time in the scene "
            "(settings.endTime)",
            "command line");
        return kExitUsage;
    }
    return runSimulateFor(timed, spec);
}

// The run itself, once its length is known.
int runSimulateFor(const SimulateOptions& options, engine::SceneSpec& spec) {
    if (options.dt > 0.0) spec.settings.stepSize = options.dt;
    if (options.outputDt > 0.0) spec.settings.outputInterval = options.outputDt;
    if (options.maxStep > 0.0) spec.settings.maxStep = options.maxStep;
    if (options.rtol > 0.0) spec.settings.relativeTolerance = options.rtol;
    if (options.atol > 0.0) spec.settings.absoluteTolerance = options.atol;
    if (options.projectionTolerance > 0.0)
        spec.settings.projectionTolerance = options.projectionTolerance;
    if (!options.integrator.empty()) {
        const auto type = engine::integratorFromName(options.integrator);
        if (!type) {
            printError(
                "unknown integrator '" + options.integrator +
                    "' (expected symplecticEuler, rk4, dopri45, implicitEuler or timeStepping)",
                "command line: --integrator");
            return kExitUsage;
        }
        spec.settings.integrator = *type;
    }
    // Fixed steps land on every output time: an output interval between steps is refused
    // here, in the command line's terms, rather than as the scene's setting.
    if (options.outputDt > 0.0 || options.dt > 0.0) {
        if (const std::string problem = engine::outputSpacingProblem(spec.settings);
            !problem.empty()) {
            printError(problem,
                       options.outputDt > 0.0 ? "command line: --output-dt" : "command line: --dt");
            return kExitUsage;
        }
    }
    const engine::CompileResult compiled = engine::compile(spec);
    printDiagnostics(compiled.diagnostics, options.scene);
    if (!compiled.model) return kExitInvalidInput;
    // A run that would write more rows than any use has is refused before it starts.
    const double rows =
        options.duration / spec.settings.outputSpacing() / std::max(1, options.every);
    if (rows > 1e8) {
        std::ostringstream what;
        what << "--duration " << options.duration << " s at outputs every "
             << spec.settings.outputSpacing() << " s would write about " << rows
             << " rows (more than 100 million): use a larger --output-dt or --every";
        printError(what.str(), "command line");
        return kExitUsage;
    }

    // The run goes through the same runtime as the GUI. Every recorded frame (one output step
    // in --every) goes, as it is computed and on the engine thread, to the CSV and the run file
    // (a frame sink), so a run of any length writes every row in bounded memory: the recording
    // keeps only its latest frames (64 MiB), the files have the rest. Rows are flushed at least
    // every 200 ms; the files are synced at the end, also after a failure or an interruption.
    engine::RecordingOptions recordingOptions;
    recordingOptions.recordEvery = options.every;
    recordingOptions.policy = engine::MemoryPolicy::DropOldest;
    recordingOptions.maxBytes = std::size_t(64) << 20;
    engine::Simulator sim(compiled.model, recordingOptions);
    if (!sim.initialization().ok) {
        sim.stop();
        printError(sim.initialization().message, options.scene);
        return kExitCannotAssemble;
    }

    // Results go to a temporary file renamed at the end (also after a failure or an
    // interruption), so a reader never sees half a file under the final name; a FIFO or a
    // device is written in place (engine/io/output_file.h).
    engine::io::OutputFile file;
    std::ostream* out = &std::cout;
    if (!options.out.empty()) {
        std::string error;
        if (!file.open(options.out, error)) {
            sim.stop();
            printError(error, options.out);
            return kExitInvalidInput;
        }
        out = &file.stream();
    }
    engine::io::RunFileWriter runFile;
    if (!options.run.empty()) {
        std::string error;
        if (!runFile.open(spec, sim.recording().layout(), options.run, error)) {
            sim.stop();
            file.abandon();
            printError(error, options.run);
            return kExitInvalidInput;
        }
    }
    engine::io::CsvWriter csv(*compiled.model, *out);
    csv.writeHeader();
    std::mutex outputMutex;  // the engine thread writes rows, the main thread flushes
    std::size_t written = 0;
    // A file that cannot be written stops the run; the other keeps what was written.
    bool csvFailed = false, runFailed = false;
    sim.setFrameSink(
        [&](const engine::State& state, const engine::Outputs& outputs, std::string& error) {
            std::lock_guard lock(outputMutex);
            csv.writeRow(state, outputs);
            if (!*out) {
                if (options.out.empty()) noteStdoutFailure();
                csvFailed = true;
                error = options.out.empty() ? "cannot write results to stdout" : file.failure();
                return false;
            }
            if (!options.run.empty() && !runFile.append(state, outputs, error)) {
                runFailed = true;
                return false;
            }
            ++written;
            return true;
        });
    catchInterrupts();
    sim.runTo(options.duration);
    bool stoppedByUser = false, outOfTime = false;
    const auto started = std::chrono::steady_clock::now();
    while (!sim.waitUntilIdle(std::chrono::milliseconds(200))) {
        {
            std::lock_guard lock(outputMutex);
            if (!out->flush() && options.out.empty()) noteStdoutFailure();
        }
        if (interrupted) {
            stoppedByUser = true;
            sim.pause();
        }
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - started;
        if (options.maxWallTime > 0.0 && elapsed.count() > options.maxWallTime && !outOfTime) {
            outOfTime = true;
            sim.pause();
        }
    }
    releaseInterrupts();
    stoppedByUser = stoppedByUser || interrupted;
    const auto snapshot = sim.snapshot();
    std::string failure = snapshot->error;
    if (failure.empty() && !stoppedByUser && snapshot->time < options.duration - 1e-9)
        failure = snapshot->notice;
    sim.stop();
    // The results: renamed into place with every row written (also after a failure or an
    // interruption), or removed when they could not be written.
    if (!options.out.empty()) {
        std::string error;
        if (csvFailed || !file.commit(error)) {
            printError(csvFailed ? file.failure() : error, options.out);
            file.abandon();
            return kExitInvalidInput;
        }
    } else if (!std::cout.flush() || csvFailed) {
        noteStdoutFailure();
        printStdoutError();
        return kExitInvalidInput;
    }
    if (!options.run.empty()) {
        std::string error = runFailed ? failure : std::string();
        if (runFailed || !runFile.finish(error)) {
            if (error.empty()) error = "a frame could not be written";
            printError("cannot write the run file: " + error, options.run);
            return kExitInvalidInput;
        }
    }
    // A contact solve that stopped at its sweep limit is not an error, but it is said.
    const engine::Recording& recording = sim.recording();
    if (recording.size() > 0 && compiled.model->contact.enabled) {
        engine::State state;
        engine::Outputs outputs;
        recording.read(recording.size() - 1, state, outputs);
        if (outputs.contactSolver.unconvergedSteps > 0)
            std::cerr << "motus-cli: warning: the contact solver stopped at its sweep limit before "
                         "reaching its "
                         "tolerance in "
                      << outputs.contactSolver.unconvergedSteps
                      << " steps (raise contact.iterations or loosen contact.tolerance) ("
                      << options.scene << ")\n";
    }
    // The integrator's error seen in a conserved energy balance is said, with the figures.
    if (const engine::RunStatistics& stats = snapshot->statistics; stats.energyDriftTime >= 0.0)
        std::cerr << "motus-cli: warning: the energy balance drifted by " << stats.energyDrift
                  << " J, more than 1 % of the " << stats.energyScale
                  << " J the motion exchanges, from t = " << stats.energyDriftTime
                  << " s in a mechanism that conserves it: the step is too coarse for this "
                     "motion (a smaller --dt, or --integrator dopri45, keeps it) ("
                  << options.scene << ")\n";
    // Singular positions passed, and a change of branch at one, are said with their times (a
    // run that stopped says why instead: the error names a singular position it stopped at).
    if (const engine::RunStatistics& stats = snapshot->statistics;
        stats.singularPassages > 0 && snapshot->error.empty()) {
        std::cerr << "motus-cli: warning: the mechanism passed a singular position "
                  << stats.singularPassages << (stats.singularPassages == 1 ? " time" : " times")
                  << " (the last at t = " << stats.lastSingularTime
                  << " s): its joints' equations came close to depending on each other, the "
                     "reactions there peak and depend on small errors in the geometry ("
                  << options.scene << ")\n";
        if (stats.branchChangeTime >= 0.0)
            std::cerr << "motus-cli: warning: the mechanism changed branch at the singular "
                         "position passed at t = "
                      << stats.branchChangeTime << " s (its direction of motion turned by "
                      << std::lround(engine::radToDeg(stats.branchTurn))
                      << "° at once): the run from there is not the motion of the mechanism as "
                         "built (a smaller --dt, or --integrator dopri45, passes on its branch) ("
                      << options.scene << ")\n";
    }
    if (outOfTime && !stoppedByUser) {
        std::ostringstream what;
        what << "simulation stopped: the wall-time limit of " << options.maxWallTime
             << " s was reached at t = " << snapshot->time << " s (" << written << " rows written)";
        printError(what.str(), options.scene);
        return kExitRunStopped;
    }
    if (stoppedByUser) {
        std::ostringstream where;
        where << "interrupted at t = " << snapshot->time << " s; the " << written
              << " rows computed so far are written";
        printError(where.str(), options.scene);
        return kExitInterrupted;
    }
    if (!failure.empty()) {
        printError("simulation stopped: " + failure, options.scene);
        return kExitRunStopped;
    }
    return 0;
}

// `kinematics` / `inverse`: the kinematic analysis of a fully driven mechanism (positions,
// velocities, accelerations from the constraints alone), and with `inverse` the reactions,
// motion efforts and power that produce it. CSV as `simulate`'s, plus accelerations and the
// motions' effort and power (engine/io/csv_export.h).
int runKinematic(const KinematicCommandOptions& options, bool inverse) {
    if (!outputsAreSafe({{"--out", options.out}}, {options.scene})) return kExitUsage;
    engine::io::SceneLoadResult loaded = loadScene(options.scene);
    printDiagnostics(loaded.diagnostics, options.scene);
    if (!loaded.scene) return kExitInvalidInput;
    engine::SceneSpec& spec = *loaded.scene;
    if (options.dt > 0.0 && options.dt < engine::kMinStepSize) {
        std::ostringstream what;
        what << "--dt " << options.dt << " s is below " << engine::kMinStepSize << " s";
        printError(what.str(), "command line: --dt");
        return kExitUsage;
    }
    if (options.outputDt > 0.0 && options.outputDt < engine::kMinStepSize) {
        std::ostringstream what;
        what << "--output-dt " << options.outputDt << " s is below " << engine::kMinStepSize
             << " s";
        printError(what.str(), "command line: --output-dt");
        return kExitUsage;
    }
    if (options.dt > 0.0) spec.settings.stepSize = options.dt;
    const engine::CompileResult compiled = engine::compile(spec);
    printDiagnostics(compiled.diagnostics, options.scene);
    if (!compiled.model) return kExitInvalidInput;
    engine::KinematicOptions analysis;
    analysis.duration = options.duration;
    analysis.outputInterval =
        options.outputDt > 0.0 ? options.outputDt : spec.settings.outputSpacing();
    analysis.inverseDynamics = inverse;
    const double rows = options.duration / analysis.outputInterval;
    if (rows > 1e8) {
        std::ostringstream what;
        what << "--duration " << options.duration << " s at outputs every "
             << analysis.outputInterval
             << " s would write more than 100 million rows: use a larger --output-dt";
        printError(what.str(), "command line");
        return kExitUsage;
    }

    engine::io::OutputFile file;
    std::ostream* out = &std::cout;
    if (!options.out.empty()) {
        std::string error;
        if (!file.open(options.out, error)) {
            printError(error, options.out);
            return kExitInvalidInput;
        }
        out = &file.stream();
    }
    engine::io::CsvWriter csv(*compiled.model, *out);
    csv.addKinematicColumns();
    csv.writeHeader();
    bool csvFailed = false;
    catchInterrupts();
    const engine::KinematicResult result = engine::kinematicAnalysis(
        compiled.model, analysis, [&](const engine::KinematicFrame& frame, std::string& error) {
            csv.writeRow(frame.state, frame.outputs, frame.vdot, frame.motionPower);
            if (!*out) {
                if (options.out.empty()) noteStdoutFailure();
                csvFailed = true;
                error = options.out.empty() ? "cannot write results to stdout" : file.failure();
                return false;
            }
            if (interrupted) {
                error = "interrupted";
                return false;
            }
            return true;
        });
    releaseInterrupts();
    // The rows written so far are kept (also after a lock-up or an interruption).
    if (!options.out.empty()) {
        std::string error;
        if (csvFailed || !file.commit(error)) {
            printError(csvFailed ? file.failure() : error, options.out);
            file.abandon();
            return kExitInvalidInput;
        }
    } else if (!std::cout.flush() || csvFailed) {
        noteStdoutFailure();
        printStdoutError();
        return kExitInvalidInput;
    }
    if (inverse && result.status.ok && result.redundantEquations > 0)
        std::cerr << "motus-cli: warning: " << result.redundantEquations
                  << " redundant equations: the reactions of the joints they belong to are one "
                     "of many that balance the mechanism (motus-cli info names them) ("
                  << options.scene << ")\n";
    if (result.status.ok) return 0;
    if (interrupted) {
        std::ostringstream where;
        where << "interrupted at t = " << result.reached << " s; the " << result.frames
              << " rows computed so far are written";
        printError(where.str(), options.scene);
        return kExitInterrupted;
    }
    if (result.frames == 0) {
        printError(result.status.message, options.scene);
        return result.status.message.find("assembled") != std::string::npos ? kExitCannotAssemble
                                                                            : kExitInvalidInput;
    }
    printError((inverse ? "inverse dynamics stopped: " : "kinematic analysis stopped: ") +
                   result.status.message,
               options.scene);
    return kExitRunStopped;
}

// Writes `text` to `out` atomically (engine/io/output_file.h), or to stdout.
int writeText(const std::string& text, const std::string& out) {
    if (out.empty()) {
        std::cout << text;
        if (!std::cout.flush()) {
            printStdoutError();
            return kExitInvalidInput;
        }
        return 0;
    }
    std::string error;
    if (!engine::io::writeFileSafely(out, text, error)) {
        printError(error, out);
        return kExitInvalidInput;
    }
    return 0;
}

// Loads, compiles and assembles a scene for the static analyses; null after printing why.
std::shared_ptr<const engine::Model> loadForStatics(const std::string& path, int& exitCode) {
    engine::io::SceneLoadResult loaded = loadScene(path);
    printDiagnostics(loaded.diagnostics, path);
    exitCode = kExitInvalidInput;
    if (!loaded.scene) return nullptr;
    const engine::CompileResult compiled = engine::compile(*loaded.scene);
    printDiagnostics(compiled.diagnostics, path);
    return compiled.model;
}

std::string stabilityWord(const engine::StaticResult& r) {
    switch (r.stability) {
    case engine::Stability::Stable:
        return "stable";
    case engine::Stability::Unstable:
        return "unstable";
    case engine::Stability::Neutral:
        return "neutral";
    case engine::Stability::Unknown:
        break;
    }
    return "unknown";
}

// `statics`: the equilibrium nearest the scene's pose (Newton; relaxation for a far start),
// one CSV row in `simulate`'s columns (reactions and efforts at equilibrium); its stability on
// stderr.
int runStatics(const std::string& path, const std::string& out) {
    if (!outputsAreSafe({{"--out", out}}, {path})) return kExitUsage;
    int exitCode = 0;
    const auto model = loadForStatics(path, exitCode);
    if (!model) return exitCode;
    const engine::StaticResult r = engine::equilibrium(*model, engine::initialState(*model));
    if (!r.status.ok) {
        printError("no static equilibrium: " + r.status.message, path);
        return r.status.message.find("cannot be assembled") != std::string::npos
                   ? kExitCannotAssemble
                   : kExitRunStopped;
    }
    engine::Workspace ws;
    engine::Outputs outputs;
    if (engine::Status s = engine::prepareWorkspace(*model, r.state, ws);
        !s.ok || !(s = engine::computeOutputs(*model, r.state, ws, outputs)).ok) {
        printError(s.message, path);
        return kExitRunStopped;
    }
    std::ostringstream text;
    engine::io::CsvWriter csv(*model, text);
    csv.writeHeader();
    csv.writeRow(r.state, outputs);
    std::cerr << "motus-cli: equilibrium: " << stabilityWord(r);
    if (r.stability == engine::Stability::Unstable)
        std::cerr << " (" << r.unstableDirections << " direction(s) lead away from it)";
    std::cerr << ", largest acceleration at rest " << r.residual << " (" << path << ")\n";
    return writeText(text.str(), out);
}

// The linearised equations z̈ + C ż + K z = f in the minimal coordinates, as JSON: N's columns
// over the bodies' velocity coordinates (named), K, C and f.
std::string linearisedJson(const engine::Model& model, const engine::ModesResult& r, double t) {
    nlohmann::json doc;
    doc["equations"] = "zdd + C zd + K z = f, z the minimal coordinates (M-orthonormal)";
    doc["time"] = t;
    nlohmann::json names = nlohmann::json::array();
    for (const engine::BodyModel& body : model.bodies)
        for (const char* c : {"vx", "vy", "vz", "wx'", "wy'", "wz'"})
            names.push_back(body.name + "." + c);
    doc["velocityCoordinates"] = names;
    auto matrix = [](const Eigen::MatrixXd& m) {
        nlohmann::json rows = nlohmann::json::array();
        for (Eigen::Index i = 0; i < m.rows(); ++i) {
            nlohmann::json row = nlohmann::json::array();
            for (Eigen::Index j = 0; j < m.cols(); ++j) row.push_back(m(i, j));
            rows.push_back(row);
        }
        return rows;
    };
    doc["N"] = matrix(r.N);
    doc["K"] = matrix(r.K);
    doc["C"] = matrix(r.C);
    doc["f"] = std::vector<double>(r.force.data(), r.force.data() + r.force.size());
    return doc.dump(1) + "\n";
}

// `modes`: natural frequencies, damping ratios and mode shapes about the scene's pose (or, with
// --equilibrium, about the equilibrium nearest it), as CSV: one row per mode, the shape as each
// part's translation and rotation (world axes) in the mode.
int runModes(const ModesOptions& options) {
    const std::string& path = options.scene;
    if (!outputsAreSafe({{"--out", options.out}, {"--matrices", options.matrices}}, {path}))
        return kExitUsage;
    int exitCode = 0;
    const auto model = loadForStatics(path, exitCode);
    if (!model) return exitCode;
    engine::StaticResult at;
    if (options.at >= 0.0) {
        // The pose a run reaches at that time, frozen there (velocities not part of it).
        engine::ForwardDynamics run(model);
        if (engine::Status s = run.initialize(); !s.ok) {
            printError(s.message, path);
            return s.message.find("cannot be assembled") != std::string::npos ? kExitCannotAssemble
                                                                              : kExitRunStopped;
        }
        // Output interval by output interval, as `simulate` runs, so that Ctrl+C stops a long
        // run (--at 1e6) between two of them; after a second, its progress is said every
        // five seconds.
        const double interval = model->settings.outputSpacing();
        const auto started = std::chrono::steady_clock::now();
        double lastSaid = 1.0 - 5.0;  // s of wall time
        catchInterrupts();
        while (run.state().t < options.at - 1e-12 * std::max(1.0, options.at)) {
            const double next = std::min(options.at, run.state().t + interval);
            if (engine::Status s = run.advance(next); !s.ok) {
                releaseInterrupts();
                printError(
                    "the run to t = " + engine::timeText(options.at) + " stopped: " + s.message,
                    path);
                return kExitRunStopped;
            }
            if (interrupted) {
                releaseInterrupts();
                printError("interrupted at t = " + engine::timeText(run.state().t) +
                               " of the run to t = " + engine::timeText(options.at) +
                               ": no modes were computed",
                           path);
                return kExitInterrupted;
            }
            const double wall =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            if (wall >= lastSaid + 5.0) {
                lastSaid = wall;
                std::cerr << "motus-cli: modes: the run to t = " << engine::timeText(options.at)
                          << " has reached t = " << engine::timeText(run.state().t) << " in "
                          << static_cast<long>(wall) << " s (Ctrl+C stops it)\n";
            }
        }
        releaseInterrupts();
        at.state = run.state();
    } else {
        at = options.atEquilibrium ? engine::equilibrium(*model, engine::initialState(*model), 1e-8,
                                                         nullptr, nullptr, /*stable=*/true)
                                   : engine::assemble(*model, engine::initialState(*model));
        if (!at.status.ok) {
            printError(at.status.message, path);
            return at.status.message.find("cannot be assembled") != std::string::npos
                       ? kExitCannotAssemble
                       : kExitRunStopped;
        }
    }
    at.state.v.setZero();
    const engine::ModesResult r = engine::modes(*model, at.state);
    if (!r.status.ok) {
        printError(r.status.message, path);
        return kExitRunStopped;
    }
    if (r.residual > 1e-6)
        std::cerr << "motus-cli: warning: the pose is not an equilibrium (largest acceleration at "
                     "rest "
                  << r.residual
                  << "): the modes are those of the mechanism frozen in it; use --equilibrium for "
                     "vibrations about where it rests ("
                  << path << ")\n";
    if (!options.matrices.empty())
        if (const int written = writeText(linearisedJson(*model, r, at.state.t), options.matrices);
            written != 0)
            return written;
    const std::string& out = options.out;
    std::ostringstream text;
    text << "mode,frequency,dampingRatio,unstable,growthRate";
    for (const engine::BodyModel& body : model->bodies)
        for (const char* c : {"x", "y", "z", "rx", "ry", "rz"})
            text << ',' << body.name << '.' << c;
    text << '\n';
    for (std::size_t k = 0; k < r.modes.size(); ++k) {
        const engine::Mode& m = r.modes[k];
        text << k + 1 << ',' << engine::io::formatDouble(m.frequency) << ','
             << engine::io::formatDouble(m.dampingRatio) << ',' << (m.unstable ? 1 : 0) << ','
             << engine::io::formatDouble(m.growthRate);
        for (int b = 0; b < model->bodyCount(); ++b) {
            const engine::Vec3 t = m.shape.segment<3>(6 * b);
            const engine::Vec3 w = engine::bodyOrientation(at.state.q, b) *
                                   engine::Vec3(m.shape.segment<3>(6 * b + 3));
            for (double v : {t.x(), t.y(), t.z(), w.x(), w.y(), w.z()})
                text << ',' << engine::io::formatDouble(v);
        }
        text << '\n';
    }
    return writeText(text.str(), out);
}

// `assemble`: the scene with its parts where every joint and motion holds, nearest (in the mass
// metric) to where they were placed (stdout, or --out atomically); how far they moved on
// stderr. A mechanism that cannot close is explained: which joint, by how much, the loop.
int runAssemble(const std::string& path, const std::string& out) {
    engine::io::SceneLoadResult loaded = loadScene(path);
    printDiagnostics(loaded.diagnostics, path);
    if (!loaded.scene) return kExitInvalidInput;
    const engine::CompileResult compiled = engine::compile(*loaded.scene);
    printDiagnostics(compiled.diagnostics, path);
    if (!compiled.model) return kExitInvalidInput;
    const engine::Model& model = *compiled.model;
    const engine::StaticResult r = engine::assemble(model, engine::initialState(model));
    if (!r.status.ok) {
        printError(r.status.message, path);
        return kExitCannotAssemble;
    }
    engine::SceneSpec scene = *loaded.scene;
    const std::vector<engine::Transform> poses = engine::partPoses(model, r.state);
    double moved = 0.0, turned = 0.0;
    for (std::size_t p = 0; p < scene.parts.size() && p < poses.size(); ++p) {
        if (scene.parts[p].ground) continue;
        moved = std::max(moved, (poses[p].p - scene.parts[p].X_WP.p).norm());
        turned = std::max(turned, scene.parts[p].X_WP.R.angularDistance(poses[p].R));
        scene.parts[p].X_WP = poses[p];
    }
    std::cerr << "motus-cli: assembled: parts moved up to " << moved * 1e3
              << " mm and turned up to " << engine::radToDeg(turned) << " deg (" << path << ")\n";
    if (out.empty()) {
        std::cout << engine::io::sceneToJson(scene);
        return 0;
    }
    std::string error;
    if (!engine::io::saveSceneFile(scene, out, error)) {
        printError(error, out);
        return kExitInvalidInput;
    }
    return 0;
}

// The fields of one CSV line: "…" quotes a field that holds commas ([0, 0, 1]); "" inside
// quotes is a quote.
std::vector<std::string> csvFields(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t k = 0; k < line.size(); ++k) {
        const char c = line[k];
        if (quoted && c == '"' && k + 1 < line.size() && line[k + 1] == '"') {
            fields.back() += '"';
            ++k;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            fields.emplace_back();
        } else if (c != '\r') {
            fields.back() += c;
        }
    }
    return fields;
}

// A case name as a file name: letters, digits, '-', '_' and '.' kept, the rest '_'; "summary"
// is the batch's own.
std::string fileNameOf(const std::string& name) {
    std::string out = name;
    for (char& c : out)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
            c = '_';
    if (out.empty() || out.front() == '.') out = "case" + out;
    std::string lower = out;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower == "summary" ? out + "_case" : out;
}

std::string trimmed(const std::string& text) {
    const std::size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// `batch`: a parameter study. Each row of the cases file sets the scene values its header
// names (--set's paths) and runs the analysis into <out-dir>/<case>.csv; summary.csv (and
// stdout) lists each case with its outcome. A failing case is reported and the others still
// run.
int runBatch(const BatchOptions& o) {
    // The cases file, whole: a regular file of at most 16 MiB (a FIFO would block, /dev/zero
    // never end), its lines ended by LF, CR LF or CR alone.
    constexpr std::uintmax_t kMaxCasesBytes = std::uintmax_t(16) << 20;
    std::uintmax_t size = 0;
    if (std::string problem = engine::io::inputFileProblem(o.cases, "the cases file", &size);
        !problem.empty() || size > kMaxCasesBytes) {
        if (problem.empty())
            problem = "the cases file is " + std::to_string(size >> 20) +
                      " MiB; a cases file is limited to 16 MiB";
        printError(problem, o.cases);
        return kExitInvalidInput;
    }
    std::string text;
    {
        std::ifstream file(o.cases, std::ios::binary);
        std::ostringstream bytes;
        if (!file || !(bytes << file.rdbuf())) {
            printError("cannot read the cases file", o.cases);
            return kExitInvalidInput;
        }
        text = std::move(bytes).str();
    }
    std::string lines;  // every line ended by LF alone
    lines.reserve(text.size());
    for (std::size_t k = 0; k < text.size(); ++k) {
        if (text[k] != '\r') {
            lines += text[k];
            continue;
        }
        lines += '\n';
        if (k + 1 < text.size() && text[k + 1] == '\n') ++k;
    }
    std::istringstream in(lines);
    const std::set<std::string> analyses{"simulate", "kinematics", "inverse", "statics", "modes"};
    if (!analyses.count(o.analysis)) {
        printError("--analysis is simulate, kinematics, inverse, statics or modes, got '" +
                       o.analysis + "'",
                   "command line");
        return kExitUsage;
    }
    const bool timed =
        o.analysis == "simulate" || o.analysis == "kinematics" || o.analysis == "inverse";
    if (timed && !(o.duration > 0.0)) {
        printError("--duration is needed for a " + o.analysis + " batch", "command line");
        return kExitUsage;
    }
    std::string line;
    std::vector<std::string> header;
    int lineNumber = 0;
    while (header.empty() && std::getline(in, line)) {
        ++lineNumber;
        if (lineNumber == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a BOM
        if (line.find_first_not_of(" \t\r") != std::string::npos) header = csvFields(line);
    }
    for (std::string& column : header) column = trimmed(column);
    const bool named = !header.empty() && header.front() == "case";
    if (header.size() < (named ? 2u : 1u)) {
        printError("the cases file has no header of scene paths to set", o.cases);
        return kExitInvalidInput;
    }
    // No result may replace the scene or the cases file (a case named like the cases file).
    const std::string summaryFile = (std::filesystem::path(o.outDir) / "summary.csv").string();
    if (!outputsAreSafe({{"--out-dir", summaryFile}}, {o.scene, o.cases})) return kExitUsage;
    gInputs = {o.cases};
    std::error_code ec;
    std::filesystem::create_directories(o.outDir, ec);
    if (ec) {
        printError("cannot create the output folder: " + ec.message(), o.outDir);
        return kExitInvalidInput;
    }
    std::ostringstream summary;
    summary << "case,status,exit,file\n";
    int firstFailure = 0, cases = 0;
    std::set<std::string> used;  // file names, compared without case
    // Ctrl+C stops the batch between cases (a running case keeps what it computed); the summary
    // lists what ran.
    interrupted = 0;
    while (!interrupted && std::getline(in, line)) {
        catchInterrupts();
        ++lineNumber;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::vector<std::string> fields = csvFields(line);
        ++cases;
        std::string name = named && !fields.empty() ? fields.front() : "";
        name = fileNameOf(trimmed(name).empty() ? "case-" + std::to_string(cases) : trimmed(name));
        auto folded = [](std::string text) {
            for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            return text;
        };
        while (!used.insert(folded(name)).second) name += "_";
        const std::string file = (std::filesystem::path(o.outDir) / (name + ".csv")).string();
        int code = 0;
        if (fields.size() != header.size()) {
            printError("line " + std::to_string(lineNumber) + " has " +
                           std::to_string(fields.size()) + " values for " +
                           std::to_string(header.size()) + " columns",
                       o.cases);
            code = kExitInvalidInput;
        } else {
            gOverrides.clear();
            for (std::size_t k = named ? 1 : 0; k < header.size(); ++k)
                gOverrides.push_back({header[k], trimmed(fields[k])});
            std::cerr << "motus-cli: case " << name << "\n";
            if (o.analysis == "simulate") {
                SimulateOptions sim;
                sim.scene = o.scene;
                sim.duration = o.duration;
                sim.outputDt = o.outputDt;
                sim.out = file;
                code = runSimulate(sim);
            } else if (o.analysis == "kinematics" || o.analysis == "inverse") {
                KinematicCommandOptions kin;
                kin.scene = o.scene;
                kin.duration = o.duration;
                kin.outputDt = o.outputDt;
                kin.out = file;
                code = runKinematic(kin, o.analysis == "inverse");
            } else if (o.analysis == "statics") {
                code = runStatics(o.scene, file);
            } else {
                ModesOptions m;
                m.scene = o.scene;
                m.atEquilibrium = true;
                m.out = file;
                code = runModes(m);
            }
            gOverrides.clear();
        }
        if (code != 0 && firstFailure == 0) firstFailure = code;
        summary << name << ',' << (code == 0 ? "ok" : "failed") << ',' << code << ','
                << (code == 0 ? file : std::string()) << '\n';
    }
    releaseInterrupts();
    if (interrupted) {
        std::cerr << "motus-cli: batch interrupted after " << cases << " case(s)\n";
        if (firstFailure == 0) firstFailure = kExitInterrupted;
    } else if (cases == 0) {
        printError("the cases file has a header but no case (no line of values after it)", o.cases);
        if (firstFailure == 0) firstFailure = kExitInvalidInput;
    }
    std::cout << summary.str();
    if (const int written = writeText(summary.str(), summaryFile); written != 0) return written;
    return firstFailure;
}

// `format`: the scene rewritten in the documented form (stdout, or --out atomically).
int runFormat(const std::string& path, const std::string& out) {
    const engine::io::SceneLoadResult loaded = loadScene(path);
    printDiagnostics(loaded.diagnostics, path);
    if (!loaded.scene) return kExitInvalidInput;
    if (out.empty()) {
        std::cout << engine::io::sceneToJson(*loaded.scene);
        return 0;
    }
    std::string error;
    if (!engine::io::saveSceneFile(*loaded.scene, out, error)) {
        printError(error, out);
        return kExitInvalidInput;
    }
    return 0;
}

// `import` (and `import-urdf`): a robot description — URDF, MJCF or SDF, told by the file — as
// a Motus scene (stdout, or --out atomically).
int runImport(const std::string& path, const std::string& out,
              const engine::io::RobotImportOptions& options) {
    if (!outputsAreSafe({{"--out", out}}, {path})) return kExitUsage;
    const engine::io::RobotImportResult imported = engine::io::importRobotFile(path, options);
    printDiagnostics(imported.diagnostics, path);
    if (!imported.scene) return kExitInvalidInput;
    // Mesh files are named relative to the scene file: re-anchor them from the robot file's
    // folder to the scene's, or, on stdout (whose file and folder are not known), name them by
    // absolute path. Meshes in no file (an MJCF robot's, as MuJoCo compiled them) are written
    // beside the scene by saveSceneFile: they need --out.
    engine::SceneSpec scene = *imported.scene;
    if (out.empty() && engine::io::sceneHoldsMeshesInMemory(scene)) {
        printError(
            "the robot's meshes are in no file Motus can name (MuJoCo re-centres the "
            "meshes it compiles); they are written as files beside the scene: give the "
            "scene's file with --out",
            path);
        return kExitUsage;
    }
    std::error_code ec;
    const auto robotDir = std::filesystem::absolute(path, ec).parent_path();
    const auto outDir = std::filesystem::absolute(out.empty() ? "." : out, ec).parent_path();
    for (engine::Part& part : scene.parts)
        for (engine::Shape& shape : part.shapes)
            if (shape.type == engine::ShapeType::Mesh && !shape.meshFile.empty()) {
                const auto file = (robotDir / shape.meshFile).lexically_normal();
                const auto relative = std::filesystem::relative(file, outDir, ec);
                if (out.empty())
                    shape.meshFile = file.string();
                else if (!ec && !relative.empty())
                    shape.meshFile = relative.string();
            }
    if (out.empty()) {
        std::cout << engine::io::sceneToJson(scene);
        return 0;
    }
    std::string error;
    if (!engine::io::saveSceneFile(scene, out, error)) {
        printError(error, out);
        return kExitInvalidInput;
    }
    return 0;
}

// `info`: the mechanism's structure and mobility as JSON on stdout.
int runInfo(const std::string& path) {
    nlohmann::ordered_json info;
    info["file"] = path;
    engine::Diagnostics diagnostics;
    const auto model = loadModel(path, nullptr, &diagnostics);
    nlohmann::ordered_json errors = nlohmann::json::array();
    for (const engine::Diagnostic& d : diagnostics)
        if (d.severity == engine::Severity::Error)
            errors.push_back({{"where", d.where}, {"message", d.message}});
    if (!model) {
        info["errors"] = errors;
        std::cout << info.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return kExitInvalidInput;
    }
    info["name"] = model->name;
    nlohmann::ordered_json parts = nlohmann::json::array();
    for (const engine::BodyModel& body : model->bodies)
        parts.push_back(
            {{"name", body.name},
             {"mass", body.mass},
             {"principalInertia", {body.inertia.x(), body.inertia.y(), body.inertia.z()}}});
    info["parts"] = parts;
    nlohmann::ordered_json joints = nlohmann::json::array();
    for (const engine::JointModel& joint : model->joints) {
        // Exact equations remove degrees of freedom; a soft joint's are springs (none).
        nlohmann::ordered_json j = {{"name", joint.name},
                                    {"type", std::string(engine::jointTypeName(joint.type))},
                                    {"equations", joint.rows}};
        if (joint.softRows > 0) j["softEquations"] = joint.softRows;
        joints.push_back(j);
    }
    info["joints"] = joints;
    nlohmann::ordered_json motions = nlohmann::json::array();
    for (const engine::DriverModel& d : model->drivers)
        motions.push_back({{"name", d.name},
                           {"joint", model->joints[static_cast<std::size_t>(d.joint)].name},
                           {"expression", d.f.text()}});
    info["motions"] = motions;

    // Mobility at the initial pose, each redundant equation with what it means and what would
    // remove it (the same analysis the GUI shows).
    const engine::MobilityReport mobility = engine::mobility(model);
    info["dof"] = {{"gruebler", mobility.grueblerDof}, {"actual", mobility.actualDof}};
    nlohmann::ordered_json redundant = nlohmann::json::array();
    for (const engine::RedundantEquation& r : mobility.redundant) {
        nlohmann::ordered_json entry;
        if (r.motion.empty()) {
            entry["joint"] = r.joint;
        } else {
            entry["motion"] = r.motion;
        }
        entry["equation"] = r.equation;
        entry["meaning"] = r.meaning;
        entry["remedy"] = r.remedy;
        redundant.push_back(entry);
    }
    info["redundantConstraints"] = redundant;
    info["redundantCount"] = mobility.redundantCount;
    info["summary"] = mobility.summary();
    if (!mobility.ok) {
        errors.push_back({{"where", ""}, {"message", mobility.message}});
        printError(mobility.message, path);
    }
    info["errors"] = errors;
    std::cout << info.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return mobility.ok ? 0 : kExitInvalidInput;
}

}  // namespace

// The command line as given (render hands it to the renderer's program unchanged).
int gArgc = 0;
char** gArgv = nullptr;

// `render <run> --out FILE.mp4|.webm`: the recorded run as a video, drawn off screen as the
// GUI's 3D view draws it (ui/render/video_export.h). Progress on stderr; the file appears only
// when it is complete.
int runRender(const RenderOptions& options) {
    if (!outputsAreSafe({{"--out", options.out}}, {options.run})) return kExitUsage;
#ifdef MOTUS_HAVE_RENDER
    ui::VideoExportOptions video;
    video.path = options.out;
    video.fps = options.fps;
    video.from = options.from;
    video.to = options.to;
    video.view = options.view;
    {
        // --size WxH
        char x = 0, rest = 0;
        std::istringstream text(options.size);
        if (!(text >> video.width >> x >> video.height) || (x != 'x' && x != 'X') ||
            (text >> rest)) {
            printError(
                "--size must be WIDTHxHEIGHT in pixels, e.g. 1280x720, got '" + options.size + "'",
                "command line: --size");
            return kExitUsage;
        }
    }
    if (const std::string problem = ui::videoOptionsProblem(video); !problem.empty()) {
        printError(problem, "command line");
        return kExitUsage;
    }
    auto displayAvailable = [] {
        if (ui::offscreenDisplayProblem().empty()) return true;
        printError(
            "motus-cli render needs an X display; run it under xvfb-run (DISPLAY is not set)",
            "environment");
        return false;
    };
    std::string error;
    // A scene is run first, as `simulate` runs it (in memory), then filmed.
    const bool scene = std::filesystem::path(options.run).extension() == ".json";
    if (scene != (options.duration > 0.0)) {
        printError(scene ? "a scene needs --duration: how long to run it before filming"
                         : "--duration is for a scene (.json); a run file is filmed as recorded",
                   "command line: --duration");
        return kExitUsage;
    }
    if (!scene && !gOverrides.empty()) {
        printError("--set changes a scene (.json); a run file is filmed as recorded",
                   "command line: --set");
        return kExitUsage;
    }
    // A video of more than kMaxVideoFrames is refused before anything runs or is drawn
    // (--duration 1e9 at 60 fps would be 6·10¹⁰ frames, and the run to film first without end).
    const auto tooManyFrames = [&](double start, double end) {
        const double last = options.to >= 0.0 ? std::min(options.to, end) : end;
        const double count = (last - std::max(options.from, start)) * options.fps;
        if (!(count > kMaxVideoFrames)) return false;
        std::ostringstream what;
        what << "the video would have " << std::setprecision(3) << count << " frames ("
             << engine::timeText(last - std::max(options.from, start)) << " at " << options.fps
             << " fps), more than the " << static_cast<long>(kMaxVideoFrames)
             << " a video may have (over 2 hours at 60 fps): film a shorter time (--from, --to"
             << (scene ? ", --duration" : "") << ") or at a lower --fps";
        printError(what.str(), "command line");
        return true;
    };
    if (scene && tooManyFrames(0.0, options.duration)) return kExitUsage;
    std::optional<engine::io::LoadedRun> run;
    std::unique_ptr<engine::Simulator> simulator;
    if (scene) {
        if (!displayAvailable()) return kExitInvalidInput;  // before a run that could not be filmed
        engine::io::SceneLoadResult loaded = loadScene(options.run);
        printDiagnostics(loaded.diagnostics, options.run);
        if (!loaded.scene) return kExitInvalidInput;
        const engine::CompileResult compiled = engine::compile(*loaded.scene);
        printDiagnostics(compiled.diagnostics, options.run);
        if (!compiled.model) return kExitInvalidInput;
        simulator = std::make_unique<engine::Simulator>(compiled.model);
        if (!simulator->initialization().ok) {
            simulator->stop();
            printError(simulator->initialization().message, options.run);
            return kExitCannotAssemble;
        }
        // Ctrl+C stops the run to film as it stops the filming.
        catchInterrupts();
        simulator->runTo(options.duration);
        while (!simulator->waitUntilIdle(std::chrono::milliseconds(200))) {
            if (interrupted) {
                simulator->stop();
                releaseInterrupts();
                printError("interrupted at t = " + engine::timeText(simulator->snapshot()->time) +
                               " of the run to film: no video was written",
                           options.out);
                return kExitInterrupted;
            }
        }
        releaseInterrupts();
        simulator->stop();
        const auto snapshot = simulator->snapshot();
        if (!snapshot->error.empty()) {
            printError("simulation stopped: " + snapshot->error, options.run);
            return kExitRunStopped;
        }
        run.emplace();
        run->spec = std::move(*loaded.scene);
        run->model = compiled.model;
    } else {
        run = engine::io::loadRunFile(options.run, error);
        if (!run) {
            printError("cannot read the run file: " + error, options.run);
            return kExitInvalidInput;
        }
    }
    const engine::Recording& recording = scene ? simulator->recording() : *run->recording;
    if (recording.size() <= recording.first()) {
        printError(scene ? "the run recorded no frame" : "the run file holds no frame",
                   options.run);
        return kExitInvalidInput;
    }
    const double end = recording.time(recording.size() - 1);
    if (!scene && tooManyFrames(recording.time(recording.first()), end)) return kExitUsage;
    if (options.from > end + 1e-9) {
        printError("--from " + engine::timeText(options.from) + " is after the run's end at " +
                       engine::timeText(end),
                   "command line: --from");
        return kExitUsage;
    }
    if (!displayAvailable()) return kExitInvalidInput;
    const std::vector<ui::ShownFrame> frames = ui::videoFrames(*run->model, recording, video);

    // Progress: a line per tenth (a terminal sees one line rewritten).
    const bool terminal = isatty(STDERR_FILENO) != 0;
    int lastTenth = -1;
    catchInterrupts();
    const ui::VideoExportResult result =
        ui::exportVideo(run->spec, frames, video, [&](int done, int total) {
            const int tenth = done * 10 / total;
            if (terminal) {
                std::cerr << "\rmotus-cli: render: frame " << done << " of " << total
                          << (done == total ? "\n" : "") << std::flush;
            } else if (tenth != lastTenth) {
                std::cerr << "motus-cli: render: frame " << done << " of " << total << " ("
                          << tenth * 10 << " %)\n";
            }
            lastTenth = tenth;
            return !interrupted;
        });
    releaseInterrupts();
    switch (result.outcome) {
    case ui::VideoExportResult::Outcome::Written: {
        std::ostringstream summary;
        summary << "wrote " << options.out << ": " << result.frames << " frames of " << video.width
                << "x" << video.height << " at " << video.fps << " fps ("
                << engine::timeText(frames.front().time) << " to "
                << engine::timeText(frames.back().time) << "), " << result.codec << ", in "
                << std::fixed << std::setprecision(1) << result.seconds << " s\n";
        std::cout << summary.str();
        return 0;
    }
    case ui::VideoExportResult::Outcome::Cancelled:
        if (terminal) std::cerr << "\n";
        printError("interrupted: no video was written", options.out);
        return kExitInterrupted;
    case ui::VideoExportResult::Outcome::Failed:
        break;
    }
    if (terminal && result.frames > 0) std::cerr << "\n";
    printError(result.error, options.out);
    return kExitInvalidInput;
#elif defined(MOTUS_RENDER_PROGRAM)
    // The renderer (OpenSceneGraph, FFmpeg: over a hundred libraries) lives in a program of its
    // own next to this one, so that every other command starts at once: it takes over this
    // process with the same arguments.
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    const std::filesystem::path program = self.parent_path() / MOTUS_RENDER_PROGRAM;
    if (!error && gArgv) {
        std::vector<char*> argv(gArgv, gArgv + gArgc);
        argv.push_back(nullptr);
        ::execv(program.c_str(), argv.data());
    }
    printError("the renderer " + program.string() + " cannot be started (" +
                   (error ? error.message() : std::string(std::strerror(errno))) +
                   "): it is installed next to motus-cli",
               options.out);
    return kExitInvalidInput;
#else
    printError("this motus-cli was built without the renderer (MOTUS_BUILD_GUI=OFF)", options.run);
    return kExitUsage;
#endif
}

int runCommand(int argc, char** argv) {
    gArgc = argc;
    gArgv = argv;
    const cli::CommandLine line = cli::parseCommandLine(argc, argv, std::cout, std::cerr);
    if (line.exitStatus) return *line.exitStatus;
    gOverrides = line.overrides;
    switch (line.command) {
    case cli::Command::Batch:
        return runBatch(line.batch);
    case cli::Command::Check:
        return runCheck(line.scenePath);
    case cli::Command::Simulate:
        return runSimulate(line.simulate);
    case cli::Command::Info:
        return runInfo(line.infoPath);
    case cli::Command::Kinematics:
        return runKinematic(line.kinematic, false);
    case cli::Command::Statics:
        return runStatics(line.staticsPath, line.staticsOut);
    case cli::Command::Modes:
        return runModes(line.modes);
    case cli::Command::Inverse:
        return runKinematic(line.kinematic, true);
    case cli::Command::Assemble:
        return runAssemble(line.assemblePath, line.assembleOut);
    case cli::Command::Format:
        return runFormat(line.formatPath, line.formatOut);
    case cli::Command::Import:
        return runImport(line.urdfPath, line.urdfOut, line.import);
    case cli::Command::Render:
        return runRender(line.render);
    case cli::Command::None:
        break;
    }
    return kExitUsage;
}

int main(int argc, char** argv) {
    releaseInterrupts();
    // No exception ends the program unexplained: what escapes a command is said and is an error.
    int code = kExitInvalidInput;
    const std::string command = argc > 1 ? argv[1] : "motus-cli";
    try {
        code = runCommand(argc, argv);
    } catch (const std::bad_alloc&) {
        printError("out of memory while running '" + command +
                       "': the input asks for more memory than this machine has",
                   command);
    } catch (const std::exception& e) {
        printError("'" + command + "' stopped on an unexpected error: " + e.what(), command);
    }
    // What went to stdout is checked once all of it is written: on a full disk or a closed
    // output the loss shows only now (`import robot.urdf > robot.json`), and exit status 0
    // would say the output is there.
    const int earlier = errno;  // a failed write's cause, when nothing changed it since
    std::cout.flush();
    errno = 0;
    const bool flushed = std::fflush(stdout) == 0;
    if ((!flushed || std::ferror(stdout) || !std::cout) && !gStdoutReported) {
        printError(stdoutFailure(errno != 0 ? errno : earlier), "stdout");
        if (code == 0) code = kExitInvalidInput;
    }
    return code;
}
