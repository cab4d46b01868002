#pragma once
// The reactions of welds folded away (JointModel::folded, engine/model/welds.h): a folded weld
// has no rows, so what it carries is recovered from the motion. The parts on its far side from
// its group's root (JointModel::carried, S) move with the body; what holds them to that motion
// beyond what acts on them — gravity, the force elements at their markers, the other joints'
// reactions and efforts, contact, cables — is the weld's pull:
//
//     W_S = Σ_{p∈S} (m_p a_p, I_p α + ω × I_p ω)  −  Σ (the loads on S)     (about I's origin)
//
// reported as any joint's reaction (on part I at marker I's origin).

#include "engine/analysis/outputs.h"
#include "engine/dynamics/status.h"
#include "engine/dynamics/step_result.h"
#include "engine/dynamics/workspace.h"
#include "engine/model/model.h"
#include "engine/state/state.h"

namespace engine {

// After computeOutputs' reactions, efforts and contact forces at `state` (ws.frames the
// model's there): the folded welds' entries of out.reactions. `vdot`: the bodies'
// accelerations (layout terms) — the step's when it ended here, else solved at the state.
Status foldedWeldReactions(const Model& model, const State& state, const Eigen::VectorXd& vdot,
                           const StepResult* step, const std::vector<BodyFrame>& frames,
                           Outputs& out);

}  // namespace engine
