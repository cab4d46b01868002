#pragma once
// Joint end stops (Model::limits) at one instant, at the acceleration level: what the stops in
// touch do to the accelerations and multipliers found without them. The velocity-level stepper
// solves stops with contact (engine/integrators/time_stepping.cpp); this is for the instants
// no step ended at: the initial state, a state set from elsewhere, an equilibrium.

#include <vector>

#include "engine/constraints/constraints.h"
#include "engine/dynamics/workspace.h"
#include "engine/model/model.h"
#include "engine/state/state.h"

namespace engine {

// After computeAccelerations() at `state` (frames, factorisation, v̇ and λ in `ws`): the stops
// in touch — a limited coordinate at its end, to `tolerance`, not moving away from it — push
// with forces f ≥ 0 complementary to the coordinate's acceleration away from the end
// (0 ≤ f ⟂ ±c̈ ≥ 0), solved exactly (Lemke). ws.vdot and ws.lambda include them on return;
// `limitForce` receives each limit's force or torque on part I along J's z (positive from the
// lower stop; 0 for a stop not in touch).
void resolveStopsAtRest(const Model& model, const State& state, Workspace& ws,
                        std::vector<double>& limitForce, double tolerance = 1e-8);

// After computeAccelerations() at `state`: the Coulomb friction of the joint coordinates that
// slide (faster than `speed`), −sign(ċ) (μ × the reaction term + preload) with μ the dynamic
// coefficient, added to the applied forces ws.g, and v̇, λ solved again with it (a fixed point:
// the reaction term depends on λ). `frictionForce` receives each friction's Coulomb force (0
// for a coordinate at rest, whose static friction an instant cannot tell). For the instants no
// velocity-level step ended at: a kinematic analysis's efforts, an initial state that moves.
void addSlidingFriction(const Model& model, Workspace& ws, std::vector<double>& frictionForce,
                        double speed = 1e-4);

// The force and torque the rows of joint `joint` put on part I at marker I's origin, in marker
// J's axes, for multipliers `lambda` over the model's constraint rows (Jacobian `Phi_q` at the
// pose of `frames`): the reaction of the joint's own equations alone.
void jointRowsReaction(const Model& model, const std::vector<BodyFrame>& frames,
                       const SparseRowMatrix& Phi_q, const Eigen::VectorXd& lambda, int joint,
                       Vec3& force_J, Vec3& torque_J);

}  // namespace engine
