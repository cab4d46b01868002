#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/modes.h"
#include "engine/analysis/statics.h"
#include "engine/io/csv_export.h"
#include "engine/model/model.h"

namespace cli {

namespace {

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

}  // namespace

// `modes`: natural frequencies, damping ratios and mode shapes about the scene's pose (or, with
// --equilibrium, about the equilibrium nearest it), as CSV: one row per mode, the shape as each
// part's translation and rotation (world axes) in the mode.
int runModes(const ModesOptions& options) {
    const std::string& path = options.scene;
    if (!outputsAreSafe({{"--out", options.out}, {"--matrices", options.matrices}}, {path}))
        return kExitUsage;
    int exitCode = 0;
    const auto model = loadForStatics(path, exitCode, engine::Analysis::Modes);
    if (!model) return exitCode;
    engine::StaticResult at;
    if (options.at >= 0.0) {
        // The pose a run reaches at that time, frozen there (velocities not part of it).
        if (formulationRefused(*model, path, false)) return kExitInvalidInput;
        engine::ForwardDynamics run(model);
        if (engine::Status s = run.initialize(); !s.ok) {
            if (formulationRefusedAtStart(s, path, false)) return kExitInvalidInput;
            printError(s.message, path);
            return cannotAssemble(s) ? kExitCannotAssemble : kExitRunStopped;
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
            return cannotAssemble(at.status) ? kExitCannotAssemble : kExitRunStopped;
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
    // Per part, its centre of mass's displacement and its rotation, world axes.
    for (const std::size_t p : engine::modeShapeParts(*model))
        for (const char* c : {"x", "y", "z", "rx", "ry", "rz"})
            text << ',' << model->parts[p].name << '.' << c;
    text << '\n';
    std::vector<double> shape;
    for (std::size_t k = 0; k < r.modes.size(); ++k) {
        const engine::Mode& m = r.modes[k];
        text << k + 1 << ',' << engine::io::formatDouble(m.frequency) << ','
             << engine::io::formatDouble(m.dampingRatio) << ',' << (m.unstable ? 1 : 0) << ','
             << engine::io::formatDouble(m.growthRate);
        engine::modeShapeByPart(*model, at.state.q, m, shape);
        for (const double v : shape) text << ',' << engine::io::formatDouble(v);
        text << '\n';
    }
    return writeText(text.str(), out);
}

}  // namespace cli
