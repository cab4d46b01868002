#pragma once
// State: everything needed to resume a run exactly. Small and cheap to copy (history).
//
//   q  per body, 7 entries: r = p_WBcm_W (3), then e_WB = (w, x, y, z) unit quaternion
//   v  per body, 6 entries: v_WBcm_W (3, world axes), then ω'_WB (3, body axes)
//   work accumulators [J]: energy put in by drivers, and dissipated by dampers
//   contacts: the persistent contact points of the last step and their impulses (the next
//             contact step's warm start), so a run resumed here goes on bit for bit
//   solverMemory: what the constraint solver remembers of singular positions passed

#include <cmath>
#include <vector>

#include <Eigen/Core>

#include "engine/math/spatial.h"
#include "engine/model/layout.h"

namespace engine {

struct Model;

// A contact point that persists from step to step (contact/collision_world.h): which surfaces
// touch and where, as of the last collision query, and the impulses the last contact solve found
// there. A new query matches its points against these (by the point on A, within the contact
// breaking distance), carrying the impulses over as the solver's warm start.
struct ContactPointState {
    int partA = 0, partB = 0;     // SceneSpec part indices, partA < partB
    int shapeA = 0, shapeB = 0;   // which shape of a part with several (0 otherwise)
    int age = 0;                  // collision queries that found or kept the point
    Vec3 local_A = Vec3::Zero();  // the point on A's surface, in A's collision frame
    Vec3 local_B = Vec3::Zero();  // the point on B's surface, in B's collision frame
    Vec3 n_AB_W = Vec3::UnitZ();  // unit normal from A to B
    double distance = 0.0;        // signed gap along the normal (−penetration depth) [m]
    double normalImpulse = 0.0;   // on B along n_AB_W [N·s]
    Vec3 frictionImpulse_W = Vec3::Zero();  // on B, tangent to the surface [N·s]
};

struct State {
    double t = 0.0;
    Eigen::VectorXd q;
    Eigen::VectorXd v;
    double driverWork = 0.0;           // ∫ driver power dt
    double dissipatedEnergy = 0.0;     // ∫ damper power dt (≥ 0)
    long unconvergedContactSteps = 0;  // contact steps so far whose solve did not converge
    double stepHint = 0.0;             // adaptive integrators' next step size [s] (0: choose)
    // Adaptive integrators (dopri45) take their own steps and interpolate to the output times.
    // A state between two steps names the step that holds it: it began at stepStart from
    // stepOrigin (q, v, driverWork, dissipatedEnergy) with size stepHint, and a run resumed
    // from this state takes that step again, then exactly the steps the original run took.
    // Empty when the state is a step point itself (or was set from elsewhere).
    double stepStart = 0.0;
    Eigen::VectorXd stepOrigin;
    // Last value of every joint coordinate (flattened over joints), so angles are reported
    // continuously past ±π.
    Eigen::VectorXd jointCoordinates;
    // What expressions read as of the previous step (Model::laggedCount values, in the order of
    // MeasureModel::slot): joint reactions and contact forces as the solve found them where the
    // last accepted step ended (engine/model/state_functions.h, Causality).
    Eigen::VectorXd lagged;
    // Contact steppers only (in the order of the collision query that found them).
    std::vector<ContactPointState> contacts;
    // The rank handling's memory of the constraint solvers that stepped here (which rows they
    // dropped at a singular position, the best pivots they have seen: KktSolver::saveMemory),
    // so a run resumed here decides singular positions as the original did. Written by
    // ForwardDynamics with every state it hands out; empty: none (the rows analysed afresh).
    std::vector<double> solverMemory;
    // What sensors have switched (Model::switches): held variables' values, elements on (1) or
    // off (0); empty for a model with none.
    std::vector<double> switches;
    // Sleeping (ContactSettings::sleepTime > 0): per body, how long it has been at rest (below
    // the sleep speed) [s], or −1 while it sleeps (its island no longer stepped). Empty when
    // parts do not sleep.
    std::vector<double> rest;
};

// The model's initial state (t = 0), before assembly.
State initialState(const Model& model);

inline Vec3 bodyPosition(const Eigen::VectorXd& q, int b) {
    return layout::position(q, b);
}
inline Quat bodyOrientation(const Eigen::VectorXd& q, int b) {
    const auto e = layout::orientation(q, b);
    return Quat(e(0), e(1), e(2), e(3));
}
// The factor that makes a quaternion of squared norm n² unit: within 1e-8 of unit (as the
// integrators keep them) one Newton step of 1/√n², (3 − n²)/2, exact to round-off there (its
// error is 3/8 (n² − 1)²) and one multiplication instead of a square root and a division;
// farther off (a state set from elsewhere), 1/√n².
inline double unitQuaternionScale(double n2) {
    return std::abs(n2 - 1.0) < 1e-8 ? 0.5 * (3.0 - n2) : 1.0 / std::sqrt(n2);
}
inline void setBodyPose(Eigen::VectorXd& q, int b, const Transform& X_WB) {
    layout::position(q, b) = X_WB.p;
    layout::orientation(q, b) << X_WB.R.w(), X_WB.R.x(), X_WB.R.y(), X_WB.R.z();
}

}  // namespace engine
