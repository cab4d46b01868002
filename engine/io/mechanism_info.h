#pragma once
// What `motus-cli info` and `motus.info()` tell of a mechanism, as JSON: each part with its own
// mass properties (welded parts naming the body they move as), the bodies the solver moves, the
// joints with their equations, motions, what the scene deactivates, measures, variables,
// sensors, the mobility at the initial pose with each redundant equation explained, and the
// formulation a run steps in (for auto: which and why).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/diagnostic.h"

namespace engine {
struct Model;
struct SceneSpec;
}  // namespace engine

namespace engine::io {

struct MechanismInfo {
    std::string json;  // the document, indented by 2, ended by a line break
    // Errors the document lists that make the mechanism unable to run: (JSON path, message)
    std::vector<std::pair<std::string, std::string>> problems;
    bool ok = false;  // it compiled, its mobility is known and its formulation can run
};

// `model` (null when the scene could not be compiled: the document lists `diagnostics`' errors)
// compiled from `scene` (null if unknown); `file` is the document's "file".
MechanismInfo mechanismInfo(const std::shared_ptr<const Model>& model, const SceneSpec* scene,
                            const Diagnostics& diagnostics, const std::string& file);

}  // namespace engine::io
