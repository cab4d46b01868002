#pragma once
// Workspace: per-step scratch of the engine thread (frames, constraint rows, the KKT
// factorisation, forces). Never saved, never shared between threads.

#include <cstdint>
#include <memory>
#include <vector>

#include <Eigen/Core>

#include "engine/constraints/constraints.h"
#include "engine/dynamics/step_result.h"
#include "engine/forces/forces.h"
#include "engine/kinematics/kinematics.h"
#include "engine/solver/kkt_solver.h"

namespace engine {

struct JointTree;  // engine/dynamics/joint_space.h

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
    // The soft joints' rows at the last force evaluation, and their λ = k Φ + c Φ̇ there (one
    // per soft row: the force or torque each pulls back with), with k and c per row.
    ConstraintEvaluation soft;
    Eigen::VectorXd softLambda, softStiffness, softDamping;
    Eigen::VectorXd velocityResidual;  // scratch of the velocity projection
    Eigen::VectorXd velocityImpulse;   // and its impulses (driver work)
    Eigen::VectorXd stepDelta;         // scratch of a step's position update
    // The factorisation held by `solver` is that of Φq(factoredQ) at factoredTime when
    // `factored`; `constraints` then holds that Φq. Steps that end where the next begins
    // reuse it instead of factoring the same matrix twice.
    bool factored = false;
    double factoredTime = 0.0;
    Eigen::VectorXd factoredQ;
    // The last step's result (multipliers, contact forces, solver figures) when a stepper
    // leaves one: outputs at its end read it (step_result.h).
    StepResult step;
    // Model-based joint control (joint_control.h): the tree it models, built for the model of
    // serial controlTreeSerial, and the efforts it gave at the last force evaluation, one per
    // force element (0 for the others; a gravity-compensated servo's gravity share).
    std::shared_ptr<const JointTree> controlTree;
    std::uint64_t controlTreeSerial = 0;
    std::vector<double> controlEfforts;
    // Joint coordinates' loop closure (joint_space.h) at its last solve: how many of the cut
    // rows it kept, the most it has kept in this workspace, and the smallest pivot of a row
    // kept relative to its diagonal (1: none nearly dependent). Next to a singular position a
    // run takes its stages on the loops' positions (loopsNearSingular).
    int loopRank = 0, loopBestRank = 0;
    double loopPivot = 1.0;
    std::vector<double> loopBestPivot;  // per cut row, the largest pivot it has had
    bool loopsNearSingular() const { return loopRank < loopBestRank || loopPivot < 1e-2; }
};

}  // namespace engine
