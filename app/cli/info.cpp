#include <iostream>
#include <optional>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "engine/io/mechanism_info.h"
#include "engine/model/model.h"

namespace cli {

// `info`: the mechanism's structure and mobility as JSON on stdout (engine/io/mechanism_info.h).
int runInfo(const std::string& path) {
    engine::Diagnostics diagnostics;
    const auto model = loadModel(path, nullptr, &diagnostics);
    std::optional<engine::SceneSpec> scene;
    if (model)
        if (engine::io::SceneLoadResult loaded = loadScene(path); loaded.scene)
            scene = std::move(*loaded.scene);
    const engine::io::MechanismInfo info =
        engine::io::mechanismInfo(model, scene ? &*scene : nullptr, diagnostics, path);
    for (const auto& [where, message] : info.problems)
        printError(message, where.empty() ? path : path + ":" + where);
    std::cout << info.json;
    return info.ok ? 0 : kExitInvalidInput;
}

}  // namespace cli
