#pragma once
// What a step's contact solve reports: per contact point, the force part A exerts on part B
// (B gets +, A gets −), averaged over the step (impulse / h), and how the solver did.

#include <vector>

#include "engine/math/spatial.h"

namespace engine {

struct ContactForce {
    int partA = 0, partB = 0;             // SceneSpec part indices
    Vec3 point_W = Vec3::Zero();          // where it acts (between the two surfaces)
    Vec3 normal_W = Vec3::UnitZ();        // unit normal from A to B
    double depth = 0.0;                   // penetration [m] (negative: a gap)
    double normalForce = 0.0;             // ≥ 0 [N]
    Vec3 frictionForce_W = Vec3::Zero();  // tangent to the surface [N]
};

struct ContactSolverReport {
    int contacts = 0;           // contact points in the last step's problem
    int iterations = 0;         // PGS sweeps or Lemke pivots of the last step
    double residual = 0.0;      // PGS: largest velocity change of the last sweep [m/s]
    bool converged = true;      // the last step's solve met the tolerance
    long unconvergedSteps = 0;  // steps so far whose solve did not converge (State's count)
};

}  // namespace engine
