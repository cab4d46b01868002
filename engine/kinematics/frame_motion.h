#pragma once
// Moving frames (seed 004; FrameMotionModel): the prescribed motion M(t) of a part that a
// mechanism rides on, and the six rows that hold the part's body to it.
//
// The rows are a fixed joint's between the body's frame B and its target M(t) X_MB, the target
// moving on its own: three for the position, (r_B − r_T)_k, and three for the orientation,
// a_x·b_y, a_y·b_z, a_z·b_x (a_k the body's axes, b_k the target's; each the rotation error
// about one axis to first order, none singular at any orientation). Being rheonomic, each row
// has ν = −(the target's share of Φ̇) and its γ holds the target's acceleration.

#include "engine/kinematics/kinematic_vector.h"

namespace engine {

struct FrameMotionModel;
struct Model;

// M(t) with its rates, all in world axes: R and r (frame.r: M's origin), the velocity of the
// origin and the angular velocity (frame.v, frame.w), and their derivatives.
struct FrameMotionState {
    BodyFrame frame;
    Vec3 acceleration = Vec3::Zero();
    Vec3 angularAcceleration = Vec3::Zero();
};

FrameMotionState frameMotionAt(const FrameMotionModel& motion, double t);

// The k-th of a frame motion's expressions as a user names it: "translation x" … "rotation
// about z (yaw)".
const char* frameMotionExpressionName(int k);

// The six rows at time t for the body's frame `body`: value, Jacobian on the body (Ji, with
// respect to (v_W, ω' in body axes)), γ; `nu` receives ν.
void frameMotionRows(const FrameMotionModel& motion, const BodyFrame& body, double t,
                     ConstraintRow rows[6], double nu[6]);

// A part seen in a moving frame (the frame's body `frameBody`, its part frame F, X_PB the body
// frame in F: BodyModel::X_PB): the position of the part's centre of mass from F's origin, its velocity relative to F and its angular
// velocity relative to F, all in F's axes:
//   x' = R_Fᵀ (x − o_F),  v' = R_Fᵀ (v − v_F − ω_F × (x − x_F)),  ω' = R_Fᵀ (ω − ω_F).
struct SeenInFrame {
    Vec3 position, velocity, angularVelocity;
};
// (seenInFrame(): engine/kinematics/part_motion.h, for a part as its body moves it)

}  // namespace engine
