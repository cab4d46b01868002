#include "engine/analysis/outputs.h"

#include <algorithm>
#include <cmath>

#include "engine/dynamics/stops.h"
#include "engine/forces/forces.h"
#include "engine/kinematics/joint_coordinates.h"
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
    // At the end of a step that left its result (the velocity-level stepper: its impulses are
    // the reactions of the step), the multipliers and contact forces are the step's: only the
    // kinematics, forces and constraint rows are evaluated here. Elsewhere (the initial state,
    // the acceleration-level integrators) the KKT system is solved at this instant. (The
    // fixed-step loop snaps its last step's end onto the requested time.)
    const bool stepped = step && step->valid &&
                         std::abs(step->t - state.t) <= 1e-9 * std::max(1.0, std::abs(state.t)) &&
                         step->lambda.size() == model.constraintRows();
    if (stepped) {
        if (Status s =
                evaluateAppliedForces(model, state.t, state.q, state.v, state.jointCoordinates, ws);
            !s.ok)
            return s;
        if (model.constraintRows() > 0) {
            if (Status s = factorizeConstraints(model, state.t, state.q, state.v, ws, false, true);
                !s.ok)
                return s;
        }
    } else if (Status s = computeAccelerations(model, state.t, state.q, state.v,
                                               state.jointCoordinates, ws);
               !s.ok) {
        return s;
    }
    // Elsewhere the stops in touch act on the accelerations just found.
    std::vector<double> restingStops, slidingFriction;
    if (!stepped) {
        addSlidingFriction(model, ws, slidingFriction);
        resolveStopsAtRest(model, state, ws, restingStops);
    }
    const Eigen::VectorXd& lambda = stepped ? step->lambda : ws.lambda;
    out.t = state.t;
    out.contacts.clear();
    if (stepped) out.contacts = step->contacts;
    out.contactSolver = step ? step->contactSolver : ContactSolverReport{};
    out.contactSolver.unconvergedSteps = state.unconvergedContactSteps;
    const auto& Phi_q = ws.constraints.Phi_q;

    // The stops' forces (the step's), and so their share of each joint's reaction.
    out.limitForce = restingStops;
    out.limitForce.resize(model.limits.size(), 0.0);
    if (stepped && step->limitForce.size() == model.limits.size())
        out.limitForce = step->limitForce;
    out.frictionForce = slidingFriction;
    out.frictionForce.resize(model.frictions.size(), 0.0);
    if (stepped && step->frictionForce.size() == model.frictions.size())
        out.frictionForce = step->frictionForce;
    for (std::size_t k = 0; k < model.frictions.size(); ++k)  // the viscous part, at this state
        if (const JointFrictionModel& f = model.frictions[k]; f.viscous > 0.0 && !f.ball)
            out.frictionForce[k] -=
                f.viscous * jointCoordinate(model, ws.frames, f.joint, f.coordinate).rate;
        else if (f.ball && f.viscous > 0.0)  // a ball joint's: the torque's size, both parts
            out.frictionForce[k] +=
                f.viscous * relativeAngularVelocity(model, ws.frames, f.joint).norm();

    // Reactions from each joint's rows.
    out.reactions.assign(model.joints.size(), {});
    for (std::size_t j = 0; j < model.joints.size(); ++j) {
        const JointModel& joint = model.joints[j];
        const MarkerModel& mi = model.markers[static_cast<std::size_t>(joint.markerI)];
        const MarkerModel& mj = model.markers[static_cast<std::size_t>(joint.markerJ)];
        const bool onI = mi.body != kGround;
        const int body = onI ? mi.body : mj.body;
        // Generalised constraint force on `body` from this joint's rows: −Φq_bᵀ λ.
        Eigen::Matrix<double, 6, 1> f = Eigen::Matrix<double, 6, 1>::Zero();
        const int first = model.jointRowOffset[j];
        for (int r = first; r < first + joint.rows; ++r)
            for (SparseRowMatrix::InnerIterator it(Phi_q, r); it; ++it)
                if (const Eigen::Index k = it.col() - layout::velocityIndex(body);
                    k >= 0 && k < layout::kVelocitiesPerBody)
                    f(k) -= it.value() * lambda(r);
        // A soft joint's rows pull with λ = k Φ + c Φ̇ at this state.
        for (int r = joint.softRowOffset; r < joint.softRowOffset + joint.softRows; ++r)
            for (SparseRowMatrix::InnerIterator it(ws.soft.Phi_q, r); it; ++it)
                if (const Eigen::Index k = it.col() - layout::velocityIndex(body);
                    k >= 0 && k < layout::kVelocitiesPerBody)
                    f(k) -= it.value() * ws.softLambda(r);
        // Its stops and its friction push along the coordinate's row (+Jᵀ × their force).
        auto along = [&](int coordinate, double force) {
            if (force == 0.0) return;
            const ConstraintRow c =
                jointCoordinate(model, ws.frames, static_cast<int>(j), coordinate);
            f += (onI ? c.Ji : c.Jj).transpose() * force;
        };
        for (std::size_t l = 0; l < model.limits.size(); ++l)
            if (model.limits[l].joint == static_cast<int>(j))
                along(model.limits[l].coordinate, out.limitForce[l]);
        for (std::size_t k = 0; k < model.frictions.size(); ++k)
            if (model.frictions[k].joint == static_cast<int>(j))
                along(model.frictions[k].coordinate, out.frictionForce[k]);
        const BodyFrame& frame = ws.frames[static_cast<std::size_t>(body)];
        const MarkerFrame I = markerFrame(model, ws.frames, joint.markerI);
        const MarkerFrame J = markerFrame(model, ws.frames, joint.markerJ);
        const Vec3 F = f.head<3>();
        const Vec3 N = frame.R * f.tail<3>();         // about the COM, world axes
        const Vec3 T = N - (I.p - frame.r).cross(F);  // about I's origin
        JointReaction& r = out.reactions[j];
        r.force_W = onI ? F : Vec3(-F);
        r.torque_W = onI ? T : Vec3(-T);
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
    for (const ForceModel& force : model.forces) {
        if (force.type == ForceType::JointForce) {  // a motor's torque, recorded as a servo's
            out.controllerEffort.push_back(
                forceMagnitude(model, force, state.t, ws.frames, state.jointCoordinates));
            continue;
        }
        if (force.type != ForceType::JointController) continue;
        const Eigen::Index slot = offsets[static_cast<std::size_t>(force.joint)] + force.coordinate;
        const double last =
            state.jointCoordinates.size() > slot ? state.jointCoordinates(slot) : 0.0;
        out.controllerEffort.push_back(controllerEffort(model, force, state.t, ws.frames, last));
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
