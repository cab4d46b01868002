#pragma once
// Model-based joint control (seed 002, "Control" in THEORY.md): servos whose efforts come from
// the mechanism's own dynamics in joint coordinates (joint_space.h), over the tree of joints
// that reaches its parts from the ground.
//
// - Gravity compensation (a joint controller's option): the servo adds G_k(q), the effort its
//   coordinate needs to hold the tree still against gravity where it is.
// - Computed torque (ForceType::ComputedTorque): the elements that are on make one controller.
//   Their coordinates (set c) get q̈_c = q̈_d + kd (q̇_d − q̇) + kp (q_d − q), the target's
//   rates taken exactly from its expression (Expression::timeJet); the coordinates motions
//   drive get the motions' q̈; the others (set p) are left free, so
//       q̈_p = −M_pp⁻¹ (M_pa q̈_a + h_p),   τ_c = M_ca q̈_a + M_cp q̈_p + h_c
//   (a: the coordinates whose q̈ is given; collocated partial feedback linearisation, Spong
//   1994). With every coordinate controlled this is τ = M q̈ + h: the efforts inverse dynamics
//   gives for the same motion. Each τ is limited to ±maxEffort. h holds gravity, the velocity
//   products and every force element but the computed-torque ones (other servos and the
//   compensated servos' gravity share among them); stops, contact and what is not on the tree
//   are not in the controller's model.

#include <vector>

#include <Eigen/Core>

#include "engine/dynamics/status.h"
#include "engine/dynamics/workspace.h"

namespace engine {

struct Model;

// Whether `model` has a computed-torque element or a gravity-compensated joint controller.
bool hasModelBasedControl(const Model& model);

// Adds the model-based efforts to ws.g at the bodies' state q, v (ws.frames and ws.g hold the
// frames and the other applied forces evaluated there), their power to
// ws.forceEnergies.actuatorPower, and each element's effort to ws.controlEfforts. Fails naming
// the element when the mechanism is not a tree it can model or an effort is not finite.
Status applyModelBasedControl(const Model& model, double t, const Eigen::VectorXd& q,
                              const Eigen::VectorXd& v, const Eigen::VectorXd& jointCoordinates,
                              Workspace& ws);

}  // namespace engine
