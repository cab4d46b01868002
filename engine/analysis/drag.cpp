#include "engine/analysis/drag.h"

#include <algorithm>

#include "engine/analysis/assembly.h"
#include "engine/analysis/statics.h"
#include "engine/constraints/constraints.h"
#include "engine/integrators/integrator.h"
#include "engine/kinematics/kinematics.h"

namespace engine {

DragAssembly::DragAssembly(const Model& model, const State& start, int partIndex, DragKind kind)
    : model_(model), state_(start), kind_(kind) {
    if (partIndex < 0 || static_cast<std::size_t>(partIndex) >= model_.bodyOfPart.size() ||
        model_.bodyOfPart[static_cast<std::size_t>(partIndex)] == kGround) {
        status_ = Status::failure("the ground part does not move");
        return;
    }
    part_ = partIndex;
    body_ = model_.bodyOfPart[static_cast<std::size_t>(partIndex)];
    BodyModel& dragged = model_.bodies[static_cast<std::size_t>(body_)];
    if (kind != DragKind::Turn) dragged.mass *= kDragWeight;
    if (kind != DragKind::Move) dragged.inertia *= kDragWeight;
    state_.v.setZero();
    // The length that makes a turn comparable with a move: the dragged body's radius of
    // gyration (a turn of one radian moves its mass about that far).
    reach_ = std::sqrt(std::max(dragged.inertia.sum() / (2.0 * dragged.mass), 1e-12));
    status_ = prepareWorkspace(model_, state_, ws_);
}

Status DragAssembly::project(State& candidate, int& iterations) {
    // A tenth of the scene's tolerance: every joint stays closed well within it.
    const double tolerance = 0.1 * model_.settings.projectionTolerance;
    const State guess = candidate;
    Status s = projectState(model_, candidate, ws_, &iterations, tolerance);
    if (!s.ok) return s;
    // End stops: a stop the pose passes is held at its end and the guess projected again, so
    // the part stops at the stop instead of passing it (and leaves it when dragged back).
    std::vector<HeldStop> held;
    for (std::size_t round = 0; round < 2 * model_.limits.size(); ++round) {
        const std::vector<HeldStop> passed =
            stopsPassed(model_, candidate, model_.settings.projectionTolerance, held);
        if (passed.empty()) break;
        held.insert(held.end(), passed.begin(), passed.end());
        const Model holding = holdingStops(model_, held);
        Workspace ws;
        State again = guess;
        int more = 0;
        if (s = prepareWorkspace(holding, again, ws); !s.ok) return s;
        if (s = projectState(holding, again, ws, &more, tolerance); !s.ok) return s;
        iterations += more;
        candidate = std::move(again);
    }
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
    const Transform from{bodyOrientation(state_.q, body_), bodyPosition(state_.q, body_)};
    Transform to = X_WP * model_.parts[static_cast<std::size_t>(part_)].X_BP.inverse();
    // The quaternion on the same hemisphere as the current one (the shorter way round).
    if (from.R.coeffs().dot(to.R.coeffs()) < 0.0) to.R.coeffs() = -to.R.coeffs();
    // The part of the target the drag asks for (what weighs), over the pose the part has now.
    auto pulled = [&](const Transform& now) {
        return Transform{kind_ == DragKind::Move ? now.R : to.R,
                         kind_ == DragKind::Turn ? now.p : to.p};
    };
    auto distance = [&](const State& s) {
        const Transform at{bodyOrientation(s.q, body_), bodyPosition(s.q, body_)};
        return (kind_ == DragKind::Turn ? 0.0 : (at.p - to.p).norm()) +
               (kind_ == DragKind::Move ? 0.0 : reach_ * at.R.angularDistance(to.R));
    };
    // A move Newton cannot make in one go (a long jump of the pointer, a worker that fell
    // behind) is made in shorter pieces, each from the last consistent pose: up to eight.
    const double start = distance(state_);
    bool moved = false;
    for (int piece = 0; piece < 8; ++piece) {
        const Transform now{bodyOrientation(state_.q, body_), bodyPosition(state_.q, body_)};
        Transform goal = to;
        if (now.R.coeffs().dot(goal.R.coeffs()) < 0.0) goal.R.coeffs() = -goal.R.coeffs();
        bool reached = false, progressed = false;
        for (double fraction : {1.0, 0.5, 0.25, 0.125, 0.0625}) {
            State candidate = state_;
            // The first guess: a move keeps the part's present orientation (it may have
            // swung); a turn or a pose goes the requested way in both.
            const Transform X_WB{
                kind_ == DragKind::Move ? now.R : now.R.slerp(fraction, goal.R).normalized(),
                now.p + fraction * (goal.p - now.p)};
            setBodyPose(candidate.q, body_, X_WB);
            int iterations = 0;
            if (!project(candidate, iterations).ok) continue;
            state_ = std::move(candidate);
            state_.v.setZero();
            result.iterations += iterations;
            progressed = true;
            reached = fraction == 1.0;
            break;
        }
        if (!progressed) break;
        moved = true;
        if (reached) {
            // One projection gives a pose on the joints' manifold near the target, to first
            // order. Pulling the dragged body to the target again and projecting again
            // converges to the nearest one (in the weighted metric): a few rounds while it gains.
            for (int round = 0; round < 8; ++round) {
                const double before = distance(state_);
                if (before < 1e-13) break;
                State again = state_;
                setBodyPose(
                    again.q, body_,
                    pulled({bodyOrientation(state_.q, body_), bodyPosition(state_.q, body_)}));
                int more = 0;
                if (!project(again, more).ok || !(distance(again) < 0.9 * before)) break;
                state_ = std::move(again);
                state_.v.setZero();
                result.iterations += more;
            }
            result.followed = 1.0;
            break;
        }
    }
    if (moved) {
        if (result.followed < 1.0)
            result.followed =
                start > 0.0 ? std::clamp(1.0 - distance(state_) / start, 0.0, 0.999) : 0.0;
        computeBodyFrames(model_, state_.q, state_.v, ws_.frames);
        evaluateConstraintResiduals(model_, state_.t, ws_.frames, ws_.constraints);
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
    return partPose(model_, static_cast<std::size_t>(part_),
                    {bodyOrientation(state_.q, body_), bodyPosition(state_.q, body_)});
}

}  // namespace engine
