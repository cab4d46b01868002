#include "engine/dynamics/reactions.h"

#include <algorithm>
#include <cmath>

#include "engine/dynamics/dynamics.h"
#include "engine/dynamics/stops.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/model/layout.h"

namespace engine {

Status solveActingForces(const Model& model, const State& state, Workspace& ws,
                         const StepResult* step, ActingForces& out) {
    // At the end of a step that left its result (the velocity-level stepper: its impulses are
    // the reactions of the step), the multipliers and contact forces are the step's: only the
    // kinematics, forces and constraint rows are evaluated here. Elsewhere (the initial state,
    // the acceleration-level integrators) the KKT system is solved at this instant. (The
    // fixed-step loop snaps its last step's end onto the requested time.)
    out.stepped = step && step->valid &&
                  std::abs(step->t - state.t) <= 1e-9 * std::max(1.0, std::abs(state.t)) &&
                  step->lambda.size() == model.constraintRows();
    if (out.stepped) {
        if (Status s = evaluateAppliedForces(model, state.t, state.q, state.v,
                                             state.jointCoordinates, state.lagged, ws);
            !s.ok)
            return s;
        // (the soft joints' pull: the step's, as its joint rows' multipliers are)
        if (model.softRows > 0 && step->softLambda.size() == model.softRows)
            ws.softLambda = step->softLambda;
        if (model.constraintRows() > 0) {
            if (Status s = factorizeConstraints(model, state.t, state.q, state.v, ws, false, true);
                !s.ok)
                return s;
        }
    } else if (Status s = computeAccelerations(model, state.t, state.q, state.v,
                                               state.jointCoordinates, state.lagged, ws);
               !s.ok) {
        return s;
    } else if (model.constraintRows() > 0) {
        // (What is reported to the digits the whole system holds: kkt_solver.h, refine.)
        ws.solver.refine(ws.g, ws.constraints.gamma, ws.vdot, ws.lambda);
    }
    // Elsewhere the stops in touch act on the accelerations just found.
    out.limitForce.clear();
    out.frictionForce.clear();
    if (!out.stepped) {
        addSlidingFriction(model, ws, out.frictionForce);
        resolveStopsAtRest(model, state, ws, out.limitForce);
    }
    out.lambda = out.stepped ? &step->lambda : &ws.lambda;
    out.limitForce.resize(model.limits.size(), 0.0);
    if (out.stepped && step->limitForce.size() == model.limits.size())
        out.limitForce = step->limitForce;
    out.frictionForce.resize(model.frictions.size(), 0.0);
    if (out.stepped && step->frictionForce.size() == model.frictions.size())
        out.frictionForce = step->frictionForce;
    for (std::size_t k = 0; k < model.frictions.size(); ++k)  // the viscous part, at this state
        if (const JointFrictionModel& f = model.frictions[k]; f.viscous > 0.0 && !f.ball)
            out.frictionForce[k] -=
                f.viscous * jointCoordinate(model, ws.frames, f.joint, f.coordinate).rate;
        else if (f.ball && f.viscous > 0.0)  // a ball joint's: the torque's size, both parts
            out.frictionForce[k] +=
                f.viscous * relativeAngularVelocity(model, ws.frames, f.joint).norm();
    return {};
}

void addSoftJointForce(const Model& model, const Workspace& ws, int joint, int body,
                       Eigen::Matrix<double, 6, 1>& f) {
    // A soft joint's rows pull with λ = k Φ + c Φ̇ at this state.
    const JointModel& j = model.joints[static_cast<std::size_t>(joint)];
    if (j.softRows == 0 || ws.softLambda.size() < j.softRowOffset + j.softRows) return;
    for (int r = j.softRowOffset; r < j.softRowOffset + j.softRows; ++r)
        for (SparseRowMatrix::InnerIterator it(ws.soft.Phi_q, r); it; ++it)
            if (const Eigen::Index k = it.col() - layout::velocityIndex(body);
                k >= 0 && k < layout::kVelocitiesPerBody)
                f(k) -= it.value() * ws.softLambda(r);
}

void jointReaction(const Model& model, const Workspace& ws, const ActingForces& acting, int j,
                   Vec3& force_W, Vec3& torque_W) {
    const JointModel& joint = model.joints[static_cast<std::size_t>(j)];
    const MarkerModel& mi = model.markers[static_cast<std::size_t>(joint.markerI)];
    const MarkerModel& mj = model.markers[static_cast<std::size_t>(joint.markerJ)];
    const bool onI = mi.body != kGround;
    const int body = onI ? mi.body : mj.body;
    const auto& Phi_q = ws.constraints.Phi_q;
    const Eigen::VectorXd& lambda = *acting.lambda;
    // Generalised constraint force on `body` from this joint's rows: −Φq_bᵀ λ.
    Eigen::Matrix<double, 6, 1> f = Eigen::Matrix<double, 6, 1>::Zero();
    const int first = model.jointRowOffset[static_cast<std::size_t>(j)];
    for (int r = first; r < first + joint.rows; ++r)
        for (SparseRowMatrix::InnerIterator it(Phi_q, r); it; ++it)
            if (const Eigen::Index k = it.col() - layout::velocityIndex(body);
                k >= 0 && k < layout::kVelocitiesPerBody)
                f(k) -= it.value() * lambda(r);
    addSoftJointForce(model, ws, j, body, f);
    // Its stops and its friction push along the coordinate's row (+Jᵀ × their force).
    auto along = [&](int coordinate, double force) {
        if (force == 0.0) return;
        const ConstraintRow c = jointCoordinate(model, ws.frames, j, coordinate);
        f += (onI ? c.Ji : c.Jj).transpose() * force;
    };
    for (std::size_t l = 0; l < model.limits.size(); ++l)
        if (model.limits[l].joint == j) along(model.limits[l].coordinate, acting.limitForce[l]);
    for (std::size_t k = 0; k < model.frictions.size(); ++k)
        if (model.frictions[k].joint == j)
            along(model.frictions[k].coordinate, acting.frictionForce[k]);
    const BodyFrame& frame = ws.frames[static_cast<std::size_t>(body)];
    const MarkerFrame I = markerFrame(model, ws.frames, joint.markerI);
    const Vec3 F = f.head<3>();
    const Vec3 N = frame.R * f.tail<3>();         // about the COM, world axes
    const Vec3 T = N - (I.p - frame.r).cross(F);  // about I's origin
    force_W = onI ? F : Vec3(-F);
    torque_W = onI ? T : Vec3(-T);
}

namespace {

// The axes a reaction's components are taken in (MeasureFrame k; the world's when not given).
Mat3 axesOf(const MeasureFrame& k, const std::vector<BodyFrame>& frames) {
    if (!k.given) return Mat3::Identity();
    const Mat3 R_BM = k.X_BM.rotationMatrix();
    return k.body == kGround ? R_BM : Mat3(frames[static_cast<std::size_t>(k.body)].R * R_BM);
}

}  // namespace

Status updateLagged(const Model& model, State& state, Workspace& ws, const StepResult* step) {
    if (model.laggedCount == 0) return {};
    ActingForces acting;
    if (Status s = solveActingForces(model, state, ws, step, acting); !s.ok) return s;
    Eigen::VectorXd lagged = Eigen::VectorXd::Zero(model.laggedCount);
    for (const MeasureModel& m : model.measures) {
        if (!measureIsLagged(m.kind)) continue;
        double value = 0.0;
        if (m.kind == MeasureKind::FN || m.kind == MeasureKind::FT) {
            // Contact: the step's points between the two parts, either way round.
            Vec3 friction = Vec3::Zero();
            if (acting.stepped)
                for (const ContactForce& c : step->contacts)
                    if ((c.partA == m.partA && c.partB == m.partB) ||
                        (c.partA == m.partB && c.partB == m.partA)) {
                        value += c.normalForce;
                        friction +=
                            c.partA == m.partA ? c.frictionForce_W : Vec3(-c.frictionForce_W);
                    }
            if (m.kind == MeasureKind::FT) value = friction.norm();
        } else {
            Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
            // (a weld whose reaction an expression reads is never folded: engine/model/welds.h)
            if (!model.joints[static_cast<std::size_t>(m.joint)].folded)
                jointReaction(model, ws, acting, m.joint, force, torque);
            const int kind = static_cast<int>(m.kind);
            if (m.kind == MeasureKind::FM)
                value = force.norm();
            else if (m.kind == MeasureKind::TM)
                value = torque.norm();
            else if (m.kind <= MeasureKind::FZ)
                value = axesOf(m.frames[2], ws.frames)
                            .col(kind - static_cast<int>(MeasureKind::FX))
                            .dot(force);
            else
                value = axesOf(m.frames[2], ws.frames)
                            .col(kind - static_cast<int>(MeasureKind::TX))
                            .dot(torque);
        }
        if (!std::isfinite(value))
            return Status::failure(
                m.text + ", which an expression reads, is not finite at t = " + timeText(state.t),
                {}, Cause::NotFinite);
        lagged(m.slot) = value;
    }
    state.lagged = std::move(lagged);
    return {};
}

}  // namespace engine
