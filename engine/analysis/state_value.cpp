#include "engine/analysis/state_value.h"

#include <algorithm>

#include "engine/kinematics/kinematics.h"
#include "engine/kinematics/state_measures.h"
#include "engine/model/model.h"
#include "engine/model/state_functions.h"
#include "engine/model/switches.h"
#include "engine/state/state.h"

namespace engine {

std::optional<double> stateExpressionValue(const SceneSpec& spec, const State& state,
                                           const std::string& text, std::string& error) {
    StateText split;
    if (!parseStateExpression(spec, text, split, error)) return std::nullopt;
    // The expression as one more variable of the scene, compiled with it: its measures
    // resolved as the scene's own are.
    SceneSpec probe = spec;
    std::string name = "motus_value";
    while (std::any_of(probe.variables.begin(), probe.variables.end(),
                       [&](const VariableSpec& v) { return v.name == name; }))
        name += "_";
    probe.variables.push_back({name, text, "", std::nullopt});
    const CompileResult compiled = compile(probe);
    if (!compiled.model) {
        error = "the scene does not compile: " +
                (compiled.diagnostics.empty() ? std::string("?") : compiled.diagnostics[0].message);
        return std::nullopt;
    }
    const std::shared_ptr<const Model> model = switchedModel(compiled.model, state.switches);
    if (state.q.size() != model->positionSize() || state.v.size() != model->velocitySize()) {
        error = "the frame is of another mechanism (run the scene again)";
        return std::nullopt;
    }
    std::vector<BodyFrame> frames;
    computeBodyFrames(*model, state.q, state.v, frames);
    std::vector<double> values;
    evaluateStateValues(*model, state.t, frames, state.jointCoordinates, values);
    for (std::size_t k = 0; k < model->variables.size(); ++k)
        if (model->variables[k].name == name) return values[k];
    error = "the expression has no value here";
    return std::nullopt;
}

}  // namespace engine
