#include "engine/analysis/drag.h"

#include <algorithm>

#include "engine/analysis/statics.h"
#include "engine/constraints/constraints.h"
#include "engine/integrators/integrator.h"
#include "engine/kinematics/kinematics.h"

namespace engine {

DragAssembly::DragAssembly(const Model& model, const State& start, int partIndex)
    : model_(model), state_(start) {
    if (partIndex < 0 || static_cast<std::size_t>(partIndex) >= model_.bodyOfPart.size() ||
        model_.bodyOfPart[static_cast<std::size_t>(partIndex)] == kGround) {
        status_ = Status::failure("the ground part does not move");
        return;
    }
    body_ = model_.bodyOfPart[static_cast<std::size_t>(partIndex)];
    BodyModel& dragged = model_.bodies[static_cast<std::size_t>(body_)];
    dragged.mass *= kDragWeight;
    dragged.inertia *= kDragWeight;
    state_.v.setZero();
    status_ = prepareWorkspace(model_, state_, ws_);
}

Status DragAssembly::project(State& candidate, int& iterations) {
    // A tenth of the scene's tolerance: every joint stays closed well within it.
    const double tolerance = 0.1 * model_.settings.projectionTolerance;
    Status s = projectState(model_, candidate, ws_, &iterations, tolerance);
    if (!s.ok) return s;
    computeBodyFrames(model_, candidate.q, candidate.v, ws_.frames);
    evaluateConstraintResiduals(model_, candidate.t, ws_.frames, ws_.constraints);
    for (Eigen::Index r = 0; r < ws_.constraints.Phi.size(); ++r)
        if (!std::isfinite(ws_.constraints.Phi(r))) return Status::failure("not finite");
    return {};
}

DragResult DragAssembly::moveTo(const Transform& X_WP) {
    DragResult result;
    if (!status_.ok) {
        result.status = status_;
        return result;
    }
    const BodyModel& body = model_.bodies[static_cast<std::size_t>(body_)];
    const Transform from{bodyOrientation(state_.q, body_), bodyPosition(state_.q, body_)};
    Transform to = X_WP * body.X_PB;
    // The quaternion on the same hemisphere as the current one (the shorter way round).
    if (from.R.coeffs().dot(to.R.coeffs()) < 0.0) to.R.coeffs() = -to.R.coeffs();
    for (double fraction : {1.0, 0.5, 0.25, 0.125, 0.0625}) {
        State candidate = state_;
        const Transform X_WB{from.R.slerp(fraction, to.R).normalized(),
                             from.p + fraction * (to.p - from.p)};
        setBodyPose(candidate.q, body_, X_WB);
        int iterations = 0;
        if (!project(candidate, iterations).ok) continue;
        state_ = std::move(candidate);
        state_.v.setZero();
        result.followed = fraction;
        result.iterations = iterations;
        result.residual = maxPositionResidual(model_, ws_.constraints);
        return result;
    }
    // Nothing held: the last consistent pose stays, and so does the workspace's Φq (it is
    // re-evaluated from the state at the next event).
    result.status = Status::failure("the joints cannot follow the drag there");
    result.residual = 0.0;
    return result;
}

std::vector<Transform> DragAssembly::partPoses() const {
    return engine::partPoses(model_, state_);
}

Transform DragAssembly::draggedPose() const {
    const BodyModel& body = model_.bodies[static_cast<std::size_t>(body_)];
    return Transform{bodyOrientation(state_.q, body_), bodyPosition(state_.q, body_)} *
           body.X_PB.inverse();
}

}  // namespace engine
