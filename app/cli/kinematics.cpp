#include <iostream>
#include <sstream>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "engine/analysis/kinematic_analysis.h"
#include "engine/io/csv_export.h"
#include "engine/io/output_file.h"
#include "engine/model/model.h"

namespace cli {

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
    const engine::CompileResult compiled = engine::compile(spec, engine::Analysis::Kinematics);
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

    ResultsOutput results(options.out);
    if (!results.open()) return kExitInvalidInput;
    engine::io::CsvWriter csv(*compiled.model, results.stream());
    csv.addKinematicColumns();
    csv.writeHeader();
    catchInterrupts();
    const engine::KinematicResult result = engine::kinematicAnalysis(
        compiled.model, analysis, [&](const engine::KinematicFrame& frame, std::string& error) {
            csv.writeRow(frame.state, frame.outputs, frame.vdot, frame.motionPower);
            if (!results.rowWritten(error)) return false;
            if (interrupted) {
                error = "interrupted";
                return false;
            }
            return true;
        });
    releaseInterrupts();
    // The rows written so far are kept (also after a lock-up or an interruption).
    if (const int status = results.commit(); status != 0) return status;
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
        return result.status.cause == engine::Cause::CannotAssemble ||
                       result.status.cause == engine::Cause::LoopCannotClose
                   ? kExitCannotAssemble
                   : kExitInvalidInput;
    }
    printError((inverse ? "inverse dynamics stopped: " : "kinematic analysis stopped: ") +
                   result.status.message,
               options.scene);
    return kExitRunStopped;
}

}  // namespace cli
