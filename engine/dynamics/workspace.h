#pragma once
// Workspace: per-step scratch of the engine thread (frames, constraint rows, the KKT
// factorisation, forces). Never saved, never shared between threads.

#include <string>
#include <vector>

#include <Eigen/Core>

#include "engine/constraints/constraints.h"
#include "engine/contact/contact_force.h"
#include "engine/forces/forces.h"
#include "engine/kinematics/kinematics.h"
#include "engine/solver/kkt_solver.h"

namespace engine {

struct Workspace {
    std::vector<BodyFrame> frames;
    ConstraintEvaluation constraints;
    KktSolver solver;
    bool prepared = false;
    Eigen::VectorXd Minv;    // 6 per body: 1/m (3), 1/J' (3)
    Eigen::VectorXd g;       // applied generalised forces
    Eigen::VectorXd vdot;    // accelerations (v̇_W, ω̇')
    Eigen::VectorXd lambda;  // multipliers, one per constraint row
    ForceEnergies forceEnergies;
    Eigen::VectorXd velocityResidual;  // scratch of the velocity projection
    Eigen::VectorXd stepDelta;         // scratch of a step's position update
    // The factorisation held by `solver` is that of Φq(factoredQ) at factoredTime when
    // `factored`; `constraints` then holds that Φq. Steps that end where the next begins
    // reuse it instead of factoring the same matrix twice.
    bool factored = false;
    double factoredTime = 0.0;
    Eigen::VectorXd factoredQ;
    // Results of the last velocity-level (time-stepping) step, which ended at stepTime: the
    // constraint multipliers its impulses amount to (impulse / h, the λ of outputs), and the
    // contact forces. Outputs at that instant report these instead of solving the KKT system.
    bool stepResultsValid = false;
    double stepTime = 0.0;
    Eigen::VectorXd stepLambda;
    std::vector<ContactForce> contacts;
    ContactSolverReport contactSolver;
};

// Outcome of an engine operation: failures carry a message naming the entity and time.
struct Status {
    bool ok = true;
    std::string message;
    static Status failure(std::string message) { return {false, std::move(message)}; }
};

}  // namespace engine
