#pragma once
// What a step found besides the new state. Outputs at the instant a step ended read the
// multipliers, contact forces and solver figures from here instead of solving again.

#include <vector>

#include <Eigen/Core>

#include "engine/contact/contact_force.h"
#include "engine/dynamics/status.h"

namespace engine {

struct StepResult {
    Status status;  // a failed step names why (the state is then the step's start)
    // Set by the steppers that solve for impulses at the step's end (the velocity-level time
    // stepping): the fields below describe the state at time t until anything else changes
    // it (a new step, a restored or resumed state).
    bool valid = false;
    double t = 0.0;
    double h = 0.0;           // the step's size
    Eigen::VectorXd impulse;  // joint impulses μ, one per constraint row [N·s, N·m·s]
    Eigen::VectorXd lambda;   // the multipliers they amount to, μ / h [N, N·m]
    // The soft joints' rows' pull over the step, μs / h (what the step applied; at its end
    // k Φ + c Φ̇ of a stiff joint differs from it by k times the step's second-order
    // position error) [N, N·m].
    Eigen::VectorXd softLambda;
    std::vector<double> limitForce;     // per joint limit: its stops' force or torque [N, N·m]
    std::vector<double> frictionForce;  // per joint friction: its Coulomb force or torque
    // Per force element, an inextensible cable's spans' tensions over the step [N] (a span out
    // of reach of its free length, none: 0); empty when the step had no cable rows.
    std::vector<std::vector<double>> cableTension;
    // With welds folded away (Model::unfolded): the bodies' accelerations over the step,
    // (v⁺ − vₙ) / h, from which the welds' reactions are recovered; else empty.
    Eigen::VectorXd bodyAccelerations;
    std::vector<ContactForce> contacts;  // contact forces (idle speculative contacts left out)
    ContactSolverReport contactSolver;   // the contact solve's figures
    // In joint coordinates: per rate, the step's (q̇⁺ − q̇ₙ) / h, from which the
    // joints' reactions over the step are found (empty in maximal coordinates).
    Eigen::VectorXd jointAccelerations;
    // With them on a closed tree: its cut rows' and couplers' multipliers over the step.
    Eigen::VectorXd loopMultipliers;
};

}  // namespace engine
