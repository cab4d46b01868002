#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "engine/io/run_file.h"
#include "engine/model/model.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "ui/render/video_export.h"

namespace cli {
namespace {

constexpr double kMaxVideoFrames = 500000;  // frames of one video, at most (2.3 h at 60 fps)

}  // namespace

// `render <run> --out FILE.mp4|.webm`: the recorded run as a video, drawn off screen as the
// GUI's 3D view draws it (ui/render/video_export.h). Progress on stderr; the file appears only
// when it is complete.
int runRender(const RenderOptions& options) {
    if (!outputsAreSafe({{"--out", options.out}}, {options.run})) return kExitUsage;
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
        const engine::CompileResult compiled =
            engine::compile(*loaded.scene, engine::Analysis::Simulation);
        printDiagnostics(compiled.diagnostics, options.run);
        if (!compiled.model) return kExitInvalidInput;
        if (formulationRefused(*compiled.model, options.run, false)) return kExitInvalidInput;
        simulator = std::make_unique<engine::Simulator>(compiled.model);
        if (!simulator->initialization().ok) {
            simulator->stop();
            if (formulationRefusedAtStart(simulator->initialization(), options.run, false))
                return kExitInvalidInput;
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
}

}  // namespace cli
