#pragma once
// Assembly while the user drags a part (direct manipulation in the 3D view).
//
// Each drag event asks for a pose X* of the dragged part. The answer is the pose of the whole
// mechanism nearest to "the dragged part at X*, the others where they were" that satisfies every
// joint and driver:
//
//     min ½ Δqᵀ W Δq   subject to  Φ(q) = 0,        W = M with the dragged body's mass and
//                                                    inertia scaled by kDragWeight
//
// What the user asked for decides what weighs: a move (the part's position matters, it may turn
// to follow: a crank dragged by its end swings round its pivot), a turn (its orientation matters,
// it may shift: a crank turned about its middle turns about its pivot), or the whole pose.
//
// solved by the same Newton projection as every assembly (Δq = −W⁻¹Φqᵀ S⁻¹ Φ), warm-started
// from the previous event's pose. The heavy weight makes the other parts give way to the
// dragged one; a part held by the ground (a crank on its pivot) turns to the nearest pose its
// joints allow instead of following a translation they forbid. Fixed parts (the ground) and
// parts held by drivers (motions at the scene's current time) do not move.
//
// When Newton cannot reach the requested pose from the last one (the mechanism would have to
// pass a toggle position, or the target lies beyond its reach), shorter moves towards it are
// tried; when none holds, the parts stay at the last consistent pose.

#include "engine/dynamics/dynamics.h"

namespace engine {

constexpr double kDragWeight = 1e6;

enum class DragKind { Pose, Move, Turn };

struct DragResult {
    Status status;          // failure: the parts stayed at the last consistent pose
    double followed = 0.0;  // fraction of the requested move that was made (0..1)
    int iterations = 0;     // Newton iterations of the accepted projection
    double residual = 0.0;  // largest joint gap after the event [m or rad]
};

class DragAssembly {
public:
    // Starts a drag of the part `partIndex` (SceneSpec index) of `model` from `start`, which
    // must be assembled. A ground part cannot be dragged (ok() false, reason in status()).
    DragAssembly(const Model& model, const State& start, int partIndex,
                 DragKind kind = DragKind::Pose);

    bool ok() const { return status_.ok; }
    const Status& status() const { return status_; }

    // Moves the dragged part towards X_WP (its part frame in the world).
    DragResult moveTo(const Transform& X_WP);

    // The last consistent state and the part poses (SceneSpec order) it gives.
    const State& state() const { return state_; }
    std::vector<Transform> partPoses() const;
    // Where the dragged part is now.
    Transform draggedPose() const;

private:
    Status project(State& candidate, int& iterations);

    Model model_;  // the scene's model with the dragged body weighted
    State state_;
    Workspace ws_;
    DragKind kind_;
    int part_ = -1;  // the dragged part, on body body_
    int body_ = -1;
    double reach_ = 1.0;  // m per rad when comparing poses
    Status status_;
};

}  // namespace engine
