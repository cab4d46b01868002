#include "engine/analysis/state_value.h"

#include <algorithm>

#include "engine/dynamics/dynamics.h"
#include "engine/dynamics/reactions.h"
#include "engine/kinematics/kinematics.h"
#include "engine/kinematics/state_measures.h"
#include "engine/model/model.h"
#include "engine/model/state_functions.h"
#include "engine/model/switches.h"
#include "engine/state/state.h"

namespace engine {
namespace {

// Whether two lagged measures read the same value: the same text, or the contact force between
// the same two parts written either way round.
bool sameLagged(const MeasureModel& a, const MeasureModel& b) {
    if (a.kind != b.kind) return false;
    if (a.kind == MeasureKind::FN || a.kind == MeasureKind::FT)
        return (a.partA == b.partA && a.partB == b.partB) ||
               (a.partA == b.partB && a.partB == b.partA);
    return a.text == b.text;
}

// What the probe's measures of the previous step read (State::lagged in the probe's order):
// those the scene's own expressions read are kept with the state (in the order of the scene's
// model); a joint reaction only the probe reads is the solve's at the state itself; a contact
// force only the probe reads cannot be known (the run's steps find contact forces): nullopt.
std::optional<Eigen::VectorXd> laggedValues(const SceneSpec& spec, const Model& probe,
                                            const State& state, std::string& error) {
    Eigen::VectorXd lagged = Eigen::VectorXd::Zero(probe.laggedCount);
    if (probe.laggedCount == 0) return lagged;
    const CompileResult own = compile(spec);
    auto keptSlot = [&](const MeasureModel& m) {
        if (own.model)
            for (const MeasureModel& o : own.model->measures)
                if (measureIsLagged(o.kind) && sameLagged(o, m) && o.slot < state.lagged.size())
                    return o.slot;
        return -1;
    };
    bool missing = false;
    for (const MeasureModel& m : probe.measures) {
        if (!measureIsLagged(m.kind)) continue;
        if (const int slot = keptSlot(m); slot >= 0) {
            lagged(m.slot) = state.lagged(slot);
            continue;
        }
        if ((m.kind == MeasureKind::FN || m.kind == MeasureKind::FT) && probe.contact.enabled) {
            error = m.text +
                    " is not kept with the run: the run's steps find contact forces, and no "
                    "expression of the scene reads this one (plot the contact pair's channels)";
            return std::nullopt;
        }
        missing = true;
    }
    if (!missing) return lagged;
    State at = state;
    at.lagged = lagged;  // the scene's forces read what the run kept
    Workspace ws;
    Status solved = prepareWorkspace(probe, at, ws);
    if (solved.ok) solved = updateLagged(probe, at, ws, nullptr);
    if (!solved.ok) {
        error = solved.message;
        return std::nullopt;
    }
    for (const MeasureModel& m : probe.measures)
        if (measureIsLagged(m.kind) && keptSlot(m) < 0) lagged(m.slot) = at.lagged(m.slot);
    return lagged;
}

}  // namespace

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
        // Reading a weld's reaction keeps the weld as a joint (engine/model/welds.h): in a run
        // that folded it, the value is found once the scene reads it and runs again.
        const CompileResult own = compile(spec);
        if (own.model && own.model->positionSize() == state.q.size() && own.model->unfolded) {
            for (const MeasureCall& call : split.calls)
                if (measureIsLagged(call.kind) && measureReadsJoint(call.kind))
                    for (const JointModel& joint : own.model->joints)
                        if (joint.folded && joint.name == call.arguments[0]) {
                            error = "'" + call.arguments[0] +
                                    "' is a weld this run folded into one body (its reaction is in "
                                    "its channels): once an expression of the scene reads it, the "
                                    "weld is held as a joint and the next run reads it";
                            return std::nullopt;
                        }
        }
        error = "the frame is of another mechanism (run the scene again)";
        return std::nullopt;
    }
    std::vector<BodyFrame> frames;
    computeBodyFrames(*model, state.q, state.v, frames);
    std::vector<double> values;
    const std::optional<Eigen::VectorXd> lagged = laggedValues(spec, *model, state, error);
    if (!lagged) return std::nullopt;
    evaluateStateValues(*model, state.t, frames, state.jointCoordinates, *lagged, values);
    for (std::size_t k = 0; k < model->variables.size(); ++k)
        if (model->variables[k].name == name) return values[k];
    error = "the expression has no value here";
    return std::nullopt;
}

}  // namespace engine
