#include "engine/analysis/outputs.h"

#include <algorithm>
#include <cmath>

#include "engine/dynamics/reactions.h"
#include "engine/forces/forces.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/kinematics/state_measures.h"
#include "engine/model/layout.h"

namespace engine {

double kineticEnergy(const Model& model, const State& state) {
    double e = 0.0;
    for (int b = 0; b < model.bodyCount(); ++b) {
        const BodyModel& body = model.bodies[static_cast<std::size_t>(b)];
        const Vec3 w = layout::angular(state.v, b);
        e += 0.5 * body.mass * layout::linear(state.v, b).squaredNorm() +
             0.5 * w.dot(body.inertia.cwiseProduct(w));
    }
    return e;
}

double gravitationalEnergy(const Model& model, const State& state) {
    double e = 0.0;
    for (int b = 0; b < model.bodyCount(); ++b)
        e -= model.bodies[static_cast<std::size_t>(b)].mass *
             model.gravity.dot(bodyPosition(state.q, b));
    return e;
}

Status computeOutputs(const Model& model, const State& state, Workspace& ws, Outputs& out,
                      const StepResult* step) {
    ActingForces acting;
    if (Status s = solveActingForces(model, state, ws, step, acting); !s.ok) return s;
    const Eigen::VectorXd& lambda = *acting.lambda;
    out.t = state.t;
    out.contacts.clear();
    if (acting.stepped) out.contacts = step->contacts;
    out.contactSolver = step ? step->contactSolver : ContactSolverReport{};
    out.contactSolver.unconvergedSteps = state.unconvergedContactSteps;
    // The stops' and friction's forces (the step's), and so their share of each reaction.
    out.limitForce = acting.limitForce;
    out.frictionForce = acting.frictionForce;

    // Reactions from each joint's rows.
    out.reactions.assign(model.joints.size(), {});
    for (std::size_t j = 0; j < model.joints.size(); ++j) {
        JointReaction& r = out.reactions[j];
        jointReaction(model, ws, acting, static_cast<int>(j), r.force_W, r.torque_W);
        const MarkerFrame J = markerFrame(model, ws.frames, model.joints[j].markerJ);
        r.force_J = J.R.transpose() * r.force_W;
        r.torque_J = J.R.transpose() * r.torque_W;
    }

    // Driver efforts: a driver row's generalised force is −Jᵀλ, i.e. an actuator force or
    // torque −λ along the driven coordinate.
    out.driverEffort.assign(model.drivers.size(), 0.0);
    for (std::size_t d = 0; d < model.drivers.size(); ++d)
        out.driverEffort[d] = -lambda(model.jointRows + static_cast<int>(d));

    // Couplers: the generalised force −cᵢ λ on each coordinate; their force on the lever.
    out.couplerForce.assign(model.couplers.size(), 0.0);
    out.couplerEffortI.assign(model.couplers.size(), 0.0);
    out.couplerEffortJ.assign(model.couplers.size(), 0.0);
    for (std::size_t k = 0; k < model.couplers.size(); ++k) {
        const CouplerModel& c = model.couplers[k];
        const double l = lambda(model.couplerRowOffset + static_cast<int>(k));
        auto effort = [&](std::size_t t) {
            return t < c.terms.size() ? -c.terms[t].coefficient * l : 0.0;
        };
        out.couplerEffortI[k] = effort(0);
        out.couplerEffortJ[k] = effort(1);
        out.couplerForce[k] =
            c.lever > 0.0 ? effort(static_cast<std::size_t>(c.forceTerm)) / c.lever : -l;
    }

    // Joint controllers' efforts at this instant.
    out.controllerEffort.clear();
    const std::vector<int> offsets = jointCoordinateOffsets(model);
    std::vector<double> values;  // what targets read of the state
    if (model.stateValueCount() > 0)
        evaluateStateValues(model, state.t, ws.frames, state.jointCoordinates, state.lagged,
                            values);
    for (const ForceModel& force : model.forces) {
        if (force.type == ForceType::JointForce) {  // a motor's torque, recorded as a servo's
            out.controllerEffort.push_back(forceMagnitude(model, force, state.t, ws.frames,
                                                          state.jointCoordinates, state.lagged));
            continue;
        }
        if (!isJointServo(force.type)) continue;
        // (the model-based efforts as the force evaluation at this state left them)
        const std::size_t index = static_cast<std::size_t>(&force - model.forces.data());
        const double modelBased = index < ws.controlEfforts.size() ? ws.controlEfforts[index] : 0.0;
        if (force.type == ForceType::ComputedTorque) {
            out.controllerEffort.push_back(modelBased);
            continue;
        }
        const Eigen::Index slot = offsets[static_cast<std::size_t>(force.joint)] + force.coordinate;
        const double last =
            state.jointCoordinates.size() > slot ? state.jointCoordinates(slot) : 0.0;
        out.controllerEffort.push_back(
            controllerEffort(model, force, state.t, ws.frames, last, nullptr, &values) +
            modelBased);
    }

    // Joint coordinates (unwound in the state) and their rates.
    out.jointCoordinates = state.jointCoordinates;
    out.jointRates.resize(state.jointCoordinates.size());
    int n = 0;
    for (int j = 0; j < static_cast<int>(model.joints.size()); ++j)
        for (int c = 0;
             c < static_cast<int>(model.joints[static_cast<std::size_t>(j)].coordinates.size());
             ++c)
            out.jointRates(n++) = jointCoordinate(model, ws.frames, j, c).rate;

    out.energies.kinetic = kineticEnergy(model, state);
    out.energies.gravitational = gravitationalEnergy(model, state);
    out.energies.elastic = ws.forceEnergies.elastic;
    out.energies.driverWork = state.driverWork;
    out.energies.dissipated = state.dissipatedEnergy;
    out.constraintError = maxPositionResidual(model, ws.constraints);
    return {};
}

}  // namespace engine
