#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "engine/analysis/forward_dynamics.h"
#include "engine/model/model.h"
#include "engine/record/recording.h"

namespace cli {

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
    // What the compiler says again of what reading the file said (the same checks run in both,
    // e.g. the units of an expression) is said once.
    engine::Diagnostics fresh;
    for (const engine::Diagnostic& d : compiled.diagnostics)
        if (std::none_of(result.diagnostics.begin(), result.diagnostics.end(),
                         [&](const engine::Diagnostic& seen) {
                             return seen.severity == d.severity && seen.where == d.where &&
                                    seen.message == d.message;
                         }))
            fresh.push_back(d);
    printDiagnostics(fresh, path);
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
    if (sim.formulation().refused) {
        printError("the scene asks for the recursive formulation, but " + sim.formulation().reason,
                   path + ":/settings/formulation");
        std::cout << "status:  invalid (the recursive formulation cannot step it)\n";
        return kExitInvalidInput;
    }
    if (const engine::Status s = sim.initialize(); !s.ok) {
        if (formulationRefusedAtStart(s, path, false)) {
            std::cout << "status:  invalid (the recursive formulation cannot step it)\n";
            return kExitInvalidInput;
        }
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

}  // namespace cli
