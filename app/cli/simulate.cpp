#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "engine/io/csv_export.h"
#include "engine/io/output_file.h"
#include "engine/io/run_file.h"
#include "engine/model/model.h"
#include "engine/model/run_options.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"

namespace cli {

// `simulate`: forward dynamics to `duration` (else the scene's end time), one CSV row per
// output step (t = 0 first).
int runSimulate(const SimulateOptions& options) {
    if (!outputsAreSafe({{"--out", options.out}, {"--run", options.run}}, {options.scene}))
        return kExitUsage;
    engine::io::SceneLoadResult loaded = loadScene(options.scene);
    printDiagnostics(loaded.diagnostics, options.scene);
    if (!loaded.scene) return kExitInvalidInput;
    engine::SceneSpec& spec = *loaded.scene;
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
    engine::RunOptions asked;
    asked.dt = options.dt;
    asked.outputDt = options.outputDt;
    asked.maxStep = options.maxStep;
    asked.rtol = options.rtol;
    asked.atol = options.atol;
    asked.projectionTolerance = options.projectionTolerance;
    asked.integrator = options.integrator;
    asked.formulation = options.formulation;
    if (const auto problem = engine::applyRunOptions(asked, spec.settings)) {
        // (named as the command line names it)
        const std::string option = problem->option == "outputDt"  ? "--output-dt"
                                   : problem->option == "maxStep" ? "--max-step"
                                                                  : "--" + problem->option;
        const bool value = problem->option == "dt" || problem->option == "maxStep";
        printError(value && problem->message.find(" s is below ") != std::string::npos
                       ? option + " " + problem->message
                       : problem->message,
                   "command line: " + option);
        return kExitUsage;
    }
    const engine::CompileResult compiled = engine::compile(spec, engine::Analysis::Simulation);
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

    // A formulation asked for that the mechanism cannot have is the input's fault.
    if (formulationRefused(*compiled.model, options.scene, !options.formulation.empty()))
        return kExitInvalidInput;

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
        if (formulationRefusedAtStart(sim.initialization(), options.scene,
                                      !options.formulation.empty()))
            return kExitInvalidInput;
        printError(sim.initialization().message, options.scene);
        return kExitCannotAssemble;
    }

    // Results go to a temporary file renamed at the end (also after a failure or an
    // interruption), so a reader never sees half a file under the final name; a FIFO or a
    // device is written in place (engine/io/output_file.h).
    ResultsOutput results(options.out);
    if (!results.open()) {
        sim.stop();
        return kExitInvalidInput;
    }
    engine::io::RunFileWriter runFile;
    if (!options.run.empty()) {
        std::string error;
        if (!runFile.open(spec, sim.recording().layout(), options.run, error)) {
            sim.stop();
            results.abandon();
            printError(error, options.run);
            return kExitInvalidInput;
        }
    }
    engine::io::CsvWriter csv(*compiled.model, results.stream());
    csv.writeHeader();
    std::mutex outputMutex;  // the engine thread writes rows, the main thread flushes
    std::size_t written = 0;
    // A file that cannot be written stops the run; the other keeps what was written.
    bool runFailed = false;
    sim.setFrameSink(
        [&](const engine::State& state, const engine::Outputs& outputs, std::string& error) {
            std::lock_guard lock(outputMutex);
            csv.writeRow(state, outputs);
            if (!results.rowWritten(error)) return false;
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
            results.flush();
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
    if (failure.empty() && !stoppedByUser && snapshot->time < options.duration - 1e-9 &&
        snapshot->stoppedBy.empty())
        failure = snapshot->notice;
    sim.stop();
    // The results: renamed into place with every row written (also after a failure or an
    // interruption), or removed when they could not be written.
    if (const int status = results.commit(); status != 0) return status;
    if (!options.run.empty()) {
        std::string error = runFailed ? failure : std::string();
        if (runFailed || !runFile.finish(error)) {
            if (error.empty()) error = "a frame could not be written";
            printError("cannot write the run file: " + error, options.run);
            return kExitInvalidInput;
        }
    }
    // Parts that started inside one another are said, the deepest pair named.
    if (const engine::RunStatistics& stats = snapshot->statistics; stats.startOverlaps > 0)
        std::cerr << "motus-cli: warning: " << stats.startOverlapText << " (" << options.scene
                  << ")\n";
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
    // A cam's follower leaving its cam is said with when it first did.
    if (const engine::RunStatistics& stats = snapshot->statistics; stats.liftOffTime >= 0.0)
        std::cerr << "motus-cli: note: the follower of cam pair '" << stats.liftOffJoint
                  << "' lifted off its cam at t = " << stats.liftOffTime << " s"
                  << (stats.liftOffs > 1 ? " (followers left their cams " +
                                               std::to_string(stats.liftOffs) + " times in the run)"
                                         : std::string())
                  << ": the contact could not hold it down; plot '" << stats.liftOffJoint
                  << ".q0' for the gap (" << options.scene << ")\n";
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
    // The sensors' crossings, and the one that ended the run: what the run is for, said.
    const auto& events = snapshot->statistics.sensorEvents;
    for (std::size_t k = 0; k < events.size(); ++k) {
        const bool stopped = k + 1 == events.size() && events[k].first == snapshot->stoppedBy;
        std::cerr << "motus-cli: sensor '" << events[k].first
                  << (stopped ? "' stopped the run at t = " : "' crossed its level at t = ")
                  << engine::numberText(events[k].second, 12) << " s\n";
    }
    return 0;
}

}  // namespace cli
