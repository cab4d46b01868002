#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "engine/analysis/statics.h"
#include "engine/io/csv_export.h"
#include "engine/model/model.h"

namespace cli {

// `statics`: the equilibrium nearest the scene's pose (Newton; relaxation for a far start),
// one CSV row in `simulate`'s columns (reactions and efforts at equilibrium); its stability on
// stderr.
int runStatics(const std::string& path, const std::string& out) {
    if (!outputsAreSafe({{"--out", out}}, {path})) return kExitUsage;
    int exitCode = 0;
    const auto model = loadForStatics(path, exitCode, engine::Analysis::Statics);
    if (!model) return exitCode;
    const engine::StaticResult r = engine::equilibrium(*model, engine::initialState(*model));
    if (!r.status.ok) {
        printError("no static equilibrium: " + r.status.message, path);
        return cannotAssemble(r.status) ? kExitCannotAssemble : kExitRunStopped;
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
    std::cerr << "motus-cli: equilibrium: " << engine::stabilityName(r.stability);
    if (r.stability == engine::Stability::Unstable)
        std::cerr << " (" << r.unstableDirections << " direction(s) lead away from it)";
    std::cerr << ", largest acceleration at rest " << r.residual << " (" << path << ")\n";
    return writeText(text.str(), out);
}

}  // namespace cli
