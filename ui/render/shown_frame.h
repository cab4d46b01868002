#pragma once
// What the 3D view shows of a run at one instant: every part's pose and the contact forces,
// read from a recording; and the scene graph posed to show it. The video export renders one
// such frame per picture.
//
// Between recorded frames the poses are interpolated: with frames k and k + 1 at t_k ≤ t ≤
// t_k+1, each part's position goes linearly and its rotation by slerp, both with the fraction
// (t − t_k) / (t_k+1 − t_k); at a recorded frame's time that frame is shown exactly. A video
// whose frame rate is above the recording's output rate then moves smoothly instead of in
// steps. Contact and coupler forces are not interpolated: they are the nearer frame's.

#include <vector>

#include "engine/contact/contact_force.h"
#include "engine/math/spatial.h"

namespace engine {
struct Model;
class Recording;
}  // namespace engine

namespace ui {

struct SceneGraph;

struct ShownFrame {
    double time = 0.0;                           // s
    std::vector<engine::Transform> partPoses;    // X_WP per SceneSpec part
    std::vector<engine::ContactForce> contacts;  // of the nearer recorded frame
    std::vector<double> couplerForces;           // per coupler, of the nearer recorded frame
};

// The run at time `t` [s] as `recording` (of `model`) holds it; a time outside the frames it
// holds is clamped to them. The recording must hold at least one frame.
ShownFrame shownFrameAt(const engine::Model& model, const engine::Recording& recording, double t);

// Moves the parts of `graph` (built from the model's scene) to the frame's poses, with their
// springs and couplers, and redraws the contact and tooth force arrows.
void poseSceneGraph(SceneGraph& graph, const ShownFrame& frame);

}  // namespace ui
