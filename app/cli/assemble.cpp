#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/common.h"
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
    }
    scene.placeParts(poses);
    std::cerr << "motus-cli: assembled: parts moved up to " << moved * 1e3
              << " mm and turned up to " << engine::radToDeg(turned) << " deg (" << path << ")\n";
    return writeScene(scene, out);
}

}  // namespace cli
