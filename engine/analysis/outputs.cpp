#include "engine/analysis/outputs.h"

#include "engine/analysis/weld_reactions.h"
#include "engine/dynamics/dynamics.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine/constraints/constraints.h"
#include "engine/dynamics/joint_space.h"
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

namespace {

using Vec6 = Eigen::Matrix<double, 6, 1>;

// A joint's reaction (jointReaction's convention: on part I, the torque about marker I's origin,
// world axes; the opposite of the wrench on part J where I is the ground) from the spatial force
// `onChild` it transmits to the tree link's body (about the world origin), less the effort of
// the motion that drives it, with its viscous friction (which the maximal reaction holds too).
void treeReaction(const Model& model, const Workspace& ws, const ActingForces& acting,
                  const JointTree::Link& link, const double* driverEffort, const Vec6& onChild,
                  Vec3& force_W, Vec3& torque_W) {
    const int j = link.joint;
    const JointModel& joint = model.joints[static_cast<std::size_t>(j)];
    const MarkerModel& mi = model.markers[static_cast<std::size_t>(joint.markerI)];
    const bool onI = mi.body != kGround;
    // The part jointReaction reports on: I's, or J's where I is the ground.
    const int body = onI ? mi.body : link.body;
    const bool onTreeChild = body == link.body;
    const Vec6 wrench = onTreeChild ? onChild : Vec6(-onChild);  // massless joint: opposite
    const BodyFrame& frame = ws.frames[static_cast<std::size_t>(body)];
    // As a generalised force on the body: the force at its centre, the torque about it in its
    // axes.
    Vec6 f;
    f.head<3>() = wrench.tail<3>();
    f.tail<3>() = frame.R.transpose() * (wrench.head<3>() - frame.r.cross(wrench.tail<3>()));
    const bool bodyHoldsI = onI;  // (the reported part holds marker I unless I is the ground)
    auto along = [&](int coordinate, double effort) {
        if (effort == 0.0) return;
        const ConstraintRow c = jointCoordinate(model, ws.frames, j, coordinate);
        f += (bodyHoldsI ? c.Ji : c.Jj).transpose() * effort;
    };
    for (int c = 0; c < link.nv; ++c) along(c, -driverEffort[c]);
    for (std::size_t k = 0; k < model.frictions.size(); ++k)
        if (model.frictions[k].joint == j)
            along(model.frictions[k].coordinate, acting.frictionForce[k]);
    const MarkerFrame I = markerFrame(model, ws.frames, joint.markerI);
    const Vec3 F = f.head<3>();
    const Vec3 N = frame.R * f.tail<3>();
    const Vec3 T = N - (I.p - frame.r).cross(F);
    force_W = onI ? F : Vec3(-F);
    torque_W = onI ? T : Vec3(-T);
}

// A cut joint's reaction (a joint closing a loop of a run in joint coordinates) from its rows'
// multipliers `lambda` (jointReaction's convention and friction).
void cutReaction(const Model& model, const Workspace& ws, const ActingForces& acting, int j,
                 const Eigen::Ref<const Eigen::VectorXd>& lambda, Vec3& force_W, Vec3& torque_W) {
    const JointModel& joint = model.joints[static_cast<std::size_t>(j)];
    const MarkerModel& mi = model.markers[static_cast<std::size_t>(joint.markerI)];
    const MarkerModel& mj = model.markers[static_cast<std::size_t>(joint.markerJ)];
    const bool onI = mi.body != kGround;
    const int body = onI ? mi.body : mj.body;
    thread_local std::vector<double> blocks;
    thread_local Eigen::VectorXd Phi, gamma;
    blocks.resize(static_cast<std::size_t>(12 * joint.rows));
    Phi.resize(joint.rows);
    gamma.resize(joint.rows);
    evaluateJointRows(model, j, ws.frames, true, false, Phi, gamma, blocks.data());
    Vec6 f = Vec6::Zero();  // −Φq_bᵀ λ on the reported part
    for (int r = 0; r < joint.rows; ++r)
        for (int k = 0; k < 6; ++k)
            f(k) -= blocks[static_cast<std::size_t>(12 * r + (onI ? 0 : 6) + k)] * lambda(r);
    addSoftJointForce(model, ws, j, body, f);  // (a soft joint: its equations' pull)
    for (std::size_t k = 0; k < model.frictions.size(); ++k)
        if (model.frictions[k].joint == j && acting.frictionForce[k] != 0.0) {
            const ConstraintRow c =
                jointCoordinate(model, ws.frames, j, model.frictions[k].coordinate);
            f += (onI ? c.Ji : c.Jj).transpose() * acting.frictionForce[k];
        }
    const BodyFrame& frame = ws.frames[static_cast<std::size_t>(body)];
    const MarkerFrame I = markerFrame(model, ws.frames, joint.markerI);
    const Vec3 F = f.head<3>();
    const Vec3 T = frame.R * f.tail<3>() - (I.p - frame.r).cross(F);  // about I's origin
    force_W = onI ? F : Vec3(-F);
    torque_W = onI ? T : Vec3(-T);
}

}  // namespace

Status computeOutputs(const Model& model, const State& state, Workspace& ws, Outputs& out,
                      const StepResult* step, const JointTree* tree) {
    ActingForces acting;
    thread_local std::vector<Vec6> transmitted;
    thread_local Eigen::VectorXd alongAxis, treeRates, cutLambda, qdd;
    // Where no step has just ended (a run's start, a restored state) of a mechanism with stops or
    // contact, what acts is found as in maximal coordinates: the stops already in touch hold it
    // (the recursions know no stops).
    const bool afterStep = step && step->valid && step->jointAccelerations.size() > 0 &&
                           std::abs(step->t - state.t) <= 1e-9 * std::max(1.0, std::abs(state.t));
    if (tree && !afterStep && (!model.limits.empty() || model.contact.enabled)) tree = nullptr;
    if (tree) {
        // What the joints transmit; the constraint rows only for their gap. After a
        // velocity-level step, over the step: with its accelerations and its contact forces
        // (and so its stops' torques, which act within the joints).
        acting.stepped = step && step->valid && step->jointAccelerations.size() == tree->nv &&
                         std::abs(step->t - state.t) <= 1e-9 * std::max(1.0, std::abs(state.t));
        if (acting.stepped) {
            thread_local std::vector<Vec6> external;
            external.assign(model.bodies.size(), Vec6::Zero());
            for (const ContactForce& c : step->contacts) {
                const Vec3 F = c.normalForce * c.normal_W + c.frictionForce_W;  // on B
                Vec6 onB;
                onB.head<3>() = c.point_W.cross(F);
                onB.tail<3>() = F;
                const int a = model.bodyOfPart[static_cast<std::size_t>(c.partA)];
                const int b = model.bodyOfPart[static_cast<std::size_t>(c.partB)];
                if (a >= 0) external[static_cast<std::size_t>(a)] -= onB;
                if (b >= 0) external[static_cast<std::size_t>(b)] += onB;
            }
            // The inextensible cables' tensions over the step pull their parts: −T Jᵀ on each
            // (J the span's length rate over the part's twist: [u; R_WBᵀ (p − r) × u]).
            if (!step->cableTension.empty()) {
                const std::vector<int> offsets = jointCoordinateOffsets(model);
                for (std::size_t f = 0; f < model.forces.size(); ++f) {
                    const std::vector<double>& tension = step->cableTension[f];
                    if (tension.empty()) continue;
                    const std::vector<CableSpanRow> spans = cableSpanRows(
                        model, model.forces[f], ws.frames, state.jointCoordinates, offsets);
                    for (std::size_t s = 0; s < spans.size() && s < tension.size(); ++s)
                        for (int side = 0; side < 2; ++side) {
                            const int b = spans[s].body[side];
                            if (b == kGround) continue;
                            const BodyFrame& frame = ws.frames[static_cast<std::size_t>(b)];
                            const Vec3 F = -tension[s] * spans[s].J[side].head<3>();
                            const Vec3 T = -tension[s] * (frame.R * spans[s].J[side].tail<3>());
                            Vec6 on;
                            on.head<3>() = T + frame.r.cross(F);
                            on.tail<3>() = F;
                            external[static_cast<std::size_t>(b)] += on;
                        }
                }
            }
            if (Status s = jointSpaceTransmittedOverStep(
                    model, *tree, state, ws, step->jointAccelerations, external,
                    step->loopMultipliers, treeRates, transmitted, alongAxis, &step->softLambda);
                !s.ok)
                return s;
            cutLambda = step->loopMultipliers;
        } else if (Status s = jointSpaceTransmitted(model, *tree, state, ws, treeRates, qdd,
                                                    transmitted, alongAxis, &cutLambda);
                   !s.ok) {
            return s;
        }
        // (Φ alone once the rows' layout is known; the couplers' angles unwound as the run's
        // joint coordinates have them, which no projection here keeps)
        if (!model.couplers.empty())
            seedCouplerCoordinates(model, state.jointCoordinates, ws.constraints);
        if (ws.constraints.patternSerial == model.serial &&
            ws.constraints.Phi.size() == model.constraintRows())
            evaluateConstraintResiduals(model, state.t, ws.frames, ws.constraints);
        else
            evaluateConstraints(model, state.t, ws.frames, ws.constraints, false);
        if (acting.stepped)
            acting.limitForce = step->limitForce;
        else
            acting.limitForce.assign(model.limits.size(), 0.0);
        acting.frictionForce.assign(model.frictions.size(), 0.0);
        for (std::size_t k = 0; k < model.frictions.size(); ++k)
            if (const JointFrictionModel& f = model.frictions[k]; f.viscous > 0.0 && !f.ball)
                acting.frictionForce[k] =
                    -f.viscous * jointCoordinate(model, ws.frames, f.joint, f.coordinate).rate;
    } else if (Status s = solveActingForces(model, state, ws, step, acting); !s.ok) {
        return s;
    }
    out.t = state.t;
    out.contacts.clear();
    if (acting.stepped) out.contacts = step->contacts;
    out.contactSolver = step ? step->contactSolver : ContactSolverReport{};
    out.contactSolver.unconvergedSteps = state.unconvergedContactSteps;
    // The stops' and friction's forces (the step's), and so their share of each reaction.
    out.limitForce = acting.limitForce;
    out.frictionForce = acting.frictionForce;
    // (In joint coordinates the step's Coulomb friction acts within its joint, as a stop does:
    // in what the joint transmits over the step, and not added to its reaction again.)
    if (tree && acting.stepped && step->frictionForce.size() == out.frictionForce.size())
        for (std::size_t k = 0; k < out.frictionForce.size(); ++k)
            out.frictionForce[k] += step->frictionForce[k];

    out.reactions.assign(model.joints.size(), {});
    out.driverEffort.assign(model.drivers.size(), 0.0);
    out.couplerForce.assign(model.couplers.size(), 0.0);
    out.couplerEffortI.assign(model.couplers.size(), 0.0);
    out.couplerEffortJ.assign(model.couplers.size(), 0.0);
    if (tree) {
        // What the couplers exert along their coordinates: −cₜ λ, λ their rows' multipliers
        // (after the cut joints').
        thread_local Eigen::VectorXd coupled;
        coupled.setZero(tree->nv);
        const int firstCoupler = tree->cutRows - static_cast<int>(tree->couplerRows.size());
        const bool coupling = cutLambda.size() == tree->cutRows;
        for (std::size_t k = 0; k < tree->couplerRows.size() && coupling; ++k) {
            const JointTree::CouplerRow& row = tree->couplerRows[k];
            // (a rolling gear's tooth force acts on the gears' bodies, not within the joints:
            // in what the joints transmit, the bearings' reactions; where its pitch point is not
            // defined, within the joints as the coordinates' relation)
            double entries[12];
            if (model.couplers[static_cast<std::size_t>(row.coupler)].rolling &&
                rollingCouplerEntries(model, row.coupler, ws.frames, entries))
                continue;
            for (std::size_t t = 0; t < row.rates.size(); ++t)
                coupled(row.rates[t]) -=
                    row.coefficients[t] * cutLambda(firstCoupler + static_cast<int>(k));
        }
        // A motion's effort is the generalised force the joint transmits along its axis (the
        // power it puts in over q̇) less what a coupler exerts there; the reaction is the rest.
        for (int k = 0; k < tree->size(); ++k) {
            const JointTree::Link& link = tree->links[static_cast<std::size_t>(k)];
            if (link.joint < 0) continue;  // (a free part: no joint)
            const Vec6& onChild = transmitted[static_cast<std::size_t>(k)];
            double effort[6] = {};
            for (int c = 0; c < link.nv; ++c) {
                const int e = link.iv + c;
                effort[c] = coupled(e);
                const int d = tree->rateDriver[static_cast<std::size_t>(e)];
                if (d < 0 || !model.drivers[static_cast<std::size_t>(d)].on) continue;
                effort[c] = alongAxis(e);
                out.driverEffort[static_cast<std::size_t>(d)] = alongAxis(e) - coupled(e);
            }
            JointReaction& r = out.reactions[static_cast<std::size_t>(link.joint)];
            treeReaction(model, ws, acting, link, effort, onChild, r.force_W, r.torque_W);
        }
        // The joints that close its loops: from their rows' multipliers.
        for (int row = 0; const int j : tree->cuts) {
            const int rows = model.joints[static_cast<std::size_t>(j)].rows;
            JointReaction& r = out.reactions[static_cast<std::size_t>(j)];
            cutReaction(model, ws, acting, j, cutLambda.segment(row, rows), r.force_W, r.torque_W);
            row += rows;
        }
        // Soft joints with no exact equation: their pull alone.
        for (std::size_t j = 0; j < model.joints.size(); ++j)
            if (model.joints[j].rows == 0 && model.joints[j].softRows > 0) {
                JointReaction& r = out.reactions[j];
                cutReaction(model, ws, acting, static_cast<int>(j), Eigen::VectorXd(), r.force_W,
                            r.torque_W);
            }
    } else {
        // Reactions from each joint's rows.
        for (std::size_t j = 0; j < model.joints.size(); ++j) {
            if (model.joints[j].folded) continue;  // (below: foldedWeldReactions)
            JointReaction& r = out.reactions[j];
            jointReaction(model, ws, acting, static_cast<int>(j), r.force_W, r.torque_W);
        }
        // Driver efforts: a driver row's generalised force is −Jᵀλ, i.e. an actuator force
        // or torque −λ along the driven coordinate.
        for (std::size_t d = 0; d < model.drivers.size(); ++d)
            out.driverEffort[d] = -(*acting.lambda)(model.jointRows + static_cast<int>(d));
    }
    for (std::size_t j = 0; j < model.joints.size(); ++j) {
        JointReaction& r = out.reactions[j];
        const MarkerFrame J = markerFrame(model, ws.frames, model.joints[j].markerJ);
        r.force_J = J.R.transpose() * r.force_W;
        r.torque_J = J.R.transpose() * r.torque_W;
    }

    // Couplers: the generalised force −cᵢ λ on each coordinate; their force on the lever (in
    // joint coordinates their multipliers follow the cut joints').
    for (std::size_t k = 0; k < model.couplers.size(); ++k) {
        const CouplerModel& c = model.couplers[k];
        const int first = tree ? tree->cutRows - static_cast<int>(model.couplers.size()) : 0;
        if (tree && cutLambda.size() != tree->cutRows) break;
        const double l = tree ? cutLambda(first + static_cast<int>(k))
                              : (*acting.lambda)(model.couplerRowOffset + static_cast<int>(k));
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

    // Springs: force, length and rate.
    out.springForce.clear();
    out.springLength.clear();
    out.springRate.clear();
    // (an inextensible cable's tension: the greatest of its spans' over the step that ended here)
    const bool stepEnded = step && step->valid &&
                           std::abs(step->t - state.t) <= 1e-9 * std::max(1.0, std::abs(state.t));
    for (std::size_t f = 0; f < model.forces.size(); ++f)
        if (const ForceModel& force = model.forces[f];
            force.type == ForceType::SpringDamper || force.type == ForceType::Cable ||
            force.type == ForceType::RotationalSpringDamper) {
            SpringReading r =
                springReading(model, force, ws.frames, state.jointCoordinates, offsets);
            if (force.inextensible && force.on && stepEnded && f < step->cableTension.size())
                for (const double t : step->cableTension[f]) r.force = std::max(r.force, t);
            out.springForce.push_back(r.force);
            out.springLength.push_back(r.length);
            out.springRate.push_back(r.rate);
        }

    // Joint coordinates (unwound in the state) and their rates.
    out.jointCoordinates = state.jointCoordinates;
    out.jointRates.resize(state.jointCoordinates.size());
    {
        int n = 0;
        for (int j = 0; j < static_cast<int>(model.joints.size()); ++j)
            for (int c = 0;
                 c < static_cast<int>(model.joints[static_cast<std::size_t>(j)].coordinates.size());
                 ++c)
                out.jointRates(n++) = jointCoordinate(model, ws.frames, j, c).rate;
    }

    // The welds folded away: their reactions from the carried parts' motion and loads, with the
    // step's accelerations where a step ended here, else the accelerations at the state.
    if (model.unfolded) {
        const bool stepEnded =
            step && step->valid && step->bodyAccelerations.size() == model.velocitySize() &&
            std::abs(step->t - state.t) <= 1e-9 * std::max(1.0, std::abs(state.t));
        thread_local Workspace scratch;
        thread_local std::uint64_t scratchModel = 0;
        if (!stepEnded) {
            if (scratchModel != model.serial) {
                if (Status s = prepareWorkspace(model, state, scratch); !s.ok) return s;
                scratchModel = model.serial;
            }
            if (Status s = computeAccelerations(model, state.t, state.q, state.v,
                                                state.jointCoordinates, state.lagged, scratch);
                !s.ok)
                return s;
        }
        if (Status s = foldedWeldReactions(model, state,
                                           stepEnded ? step->bodyAccelerations : scratch.vdot, step,
                                           ws.frames, out);
            !s.ok)
            return s;
    }

    out.energies.kinetic = kineticEnergy(model, state);
    out.energies.gravitational = gravitationalEnergy(model, state);
    out.energies.elastic = ws.forceEnergies.elastic;
    out.energies.driverWork = state.driverWork;
    out.energies.dissipated = state.dissipatedEnergy;
    out.constraintError = maxPositionResidual(model, ws.constraints);
    return {};
}

}  // namespace engine
