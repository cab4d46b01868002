#pragma once
// The forces the solve finds at an instant — constraint multipliers, the stops' and joint
// friction's forces, contact — and each joint's reaction from them (seed 001 "reaction forces
// from multipliers"). Shared by the outputs of a run (engine/analysis/outputs.h) and by what
// expressions read of the previous step (State::lagged).

#include <vector>

#include <Eigen/Core>

#include "engine/dynamics/step_result.h"
#include "engine/dynamics/workspace.h"
#include "engine/model/model.h"
#include "engine/state/state.h"

namespace engine {

// What acts at `state`, with ws.frames, ws.constraints and the soft rows evaluated there.
struct ActingForces {
    // The step that ended here supplied them (its impulses: contact and stops included), else
    // the KKT system was solved at this instant (ws.lambda).
    bool stepped = false;
    const Eigen::VectorXd* lambda = nullptr;  // the multipliers, one per constraint row
    std::vector<double> limitForce;           // per Model::limits
    std::vector<double> frictionForce;        // per Model::frictions (the viscous part in)
};

// Finds what acts at `state`. `step`: the result of the step that ended at state.t, when there
// was one: after a velocity-level step its impulses are taken (the forces that acted, contact
// included); otherwise the KKT system is solved here, with the stops in touch and the sliding
// joints' friction.
Status solveActingForces(const Model& model, const State& state, Workspace& ws,
                         const StepResult* step, ActingForces& out);

// The reaction of joint `joint` (part J on part I: the force, and the torque about marker I's
// origin, world axes; when part I is the ground the opposite of the wrench on part J) from what
// acts (solveActingForces, whose ws it reads).
// What joint `joint`'s soft equations exert on `body` (−Φq_bᵀ λ, λ = k Φ + c Φ̇ at the
// workspace's state: ws.soft, ws.softLambda), added into f (velocity then angular entries).
void addSoftJointForce(const Model& model, const Workspace& ws, int joint, int body,
                       Eigen::Matrix<double, 6, 1>& f);

void jointReaction(const Model& model, const Workspace& ws, const ActingForces& acting, int joint,
                   Vec3& force_W, Vec3& torque_W);

// After an accepted step ending at `state` (or at a run's initial state, `step` null): the
// values expressions read of the previous step (Model::measures that measureIsLagged) found
// anew into state.lagged. Nothing for a model without them.
Status updateLagged(const Model& model, State& state, Workspace& ws, const StepResult* step);

}  // namespace engine
