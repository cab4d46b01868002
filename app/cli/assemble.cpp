#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "engine/analysis/assembly.h"
#include "engine/analysis/statics.h"
#include "engine/io/scene_json.h"
#include "engine/math/constants.h"
#include "engine/model/model.h"

namespace cli {

// `assemble`: the scene with its parts where every joint and motion holds, nearest (in the mass
// metric) to where they were placed (stdout, or --out atomically); how far they moved on
// stderr. A mechanism that cannot close is explained: which joint, by how much, the loop.
int runAssemble(const std::string& path, const std::string& out) {
    engine::io::SceneLoadResult loaded = loadScene(path);
    printDiagnostics(loaded.diagnostics, path);
    if (!loaded.scene) return kExitInvalidInput;
    engine::SceneSpec scene = *loaded.scene;
    const engine::SceneAssembly assembled = engine::assembleScene(scene);
    printDiagnostics(assembled.diagnostics, path);
    if (!assembled.model) return kExitInvalidInput;
    if (!assembled.result.status.ok) {
        printError(assembled.result.status.message, path);
        return kExitCannotAssemble;
    }
    std::cerr << "motus-cli: assembled: parts moved up to " << assembled.moved * 1e3
              << " mm and turned up to " << engine::radToDeg(assembled.turned) << " deg (" << path
              << ")\n";
    return writeScene(scene, out);
}

}  // namespace cli
