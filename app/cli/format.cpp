#include <iostream>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "engine/io/scene_json.h"

namespace cli {

// `format`: the scene rewritten in the documented form (stdout, or --out atomically).
int runFormat(const std::string& path, const std::string& out) {
    const engine::io::SceneLoadResult loaded = loadScene(path);
    printDiagnostics(loaded.diagnostics, path);
    if (!loaded.scene) return kExitInvalidInput;
    return writeScene(*loaded.scene, out);
}

}  // namespace cli
