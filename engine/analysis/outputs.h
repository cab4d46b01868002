#pragma once
// What a run reports at an instant besides the state: joint reactions, driver efforts, joint
// coordinates and rates, energies and the constraint error (seed 001 "reaction forces from
// multipliers").
//
// Reaction of joint k: the force and torque that part j exerts on part i, at marker I's
// origin, in world axes and in marker J's axes. From the joint's rows, −Φq_iᵀ λ is the
// generalised force on body i (force at the COM, torque in body axes); moved to I's origin
// the torque becomes n − s × f with s from the COM to the origin. When part i is the ground,
// the opposite of the wrench on part j (taken about I's origin) is reported.
// Rows found redundant carry no load: their share appears in the rows kept (docs/engine.md).

#include <vector>

#include <Eigen/Core>

#include "engine/dynamics/dynamics.h"
#include "engine/dynamics/step_result.h"

namespace engine {

struct JointTree;  // engine/dynamics/joint_space.h

struct JointReaction {
    Vec3 force_W = Vec3::Zero();   // N
    Vec3 torque_W = Vec3::Zero();  // N·m, about marker I's origin
    Vec3 force_J = Vec3::Zero();   // the same in marker J's axes
    Vec3 torque_J = Vec3::Zero();
};

struct Energies {
    double kinetic = 0.0;
    double gravitational = 0.0;  // −Σ m g·r
    double elastic = 0.0;        // springs and bushings
    double driverWork = 0.0;     // energy put in by drivers since t = 0
    double dissipated = 0.0;     // energy taken out by dampers since t = 0
    double potential() const { return gravitational + elastic; }
    double total() const { return kinetic + potential(); }
    // Conserved quantity: total − driverWork + dissipated.
    double balance() const { return total() - driverWork + dissipated; }
};

struct Outputs {
    double t = 0.0;
    std::vector<JointReaction> reactions;  // per joint
    std::vector<double>
        driverEffort;  // per driver: force [N] or torque [N·m] on part i along J's z
    std::vector<double>
        controllerEffort;              // per joint controller and joint force (in order), likewise
    Eigen::VectorXd jointCoordinates;  // as State::jointCoordinates
    Eigen::VectorXd jointRates;
    Energies energies;
    double constraintError = 0.0;  // largest position-level |Φ|
    // Per joint limit (Model::limits): the force or torque its stops put on part I along J's
    // z axis [N, N·m], positive from the lower stop; also in the joint's reaction.
    std::vector<double> limitForce;
    // Per joint friction (Model::frictions): its Coulomb force or torque on part I along J's z
    // (the step's; 0 elsewhere), viscous part included; also in the joint's reaction.
    std::vector<double> frictionForce;
    // Per coupler (Model::couplers): its force (a gear's or rack's tooth force, a screw's axial
    // force [N]; a linear coupler's multiplier) and the efforts it puts on its first two
    // coordinates [N·m or N] (on the joints' parts I along their J's z).
    std::vector<double> couplerForce, couplerEffortI, couplerEffortJ;
    // Per spring-damper and rotational spring-damper (in Model::forces' order): its force
    // (torque), length (angle) and the rate of it (engine/forces/forces.h, springReading).
    std::vector<double> springForce, springLength, springRate;
    std::vector<ContactForce> contacts;  // contact forces of the step that ended here
    ContactSolverReport contactSolver;
};

// Fills `out` at `state` (the workspace must be prepared). `step`: the result of the step that
// ended at state.t, when there was one: after a velocity-level step (time stepping) the
// reactions and efforts are that step's impulses (the forces that acted, contact included)
// and its contacts are reported; otherwise (no step, or one that left no impulses) the KKT
// system is solved at this instant.
// `tree`, when given (a run in joint coordinates, engine/dynamics/joint_space.h): the reactions
// and motion efforts are what the joints transmit by the recursive Newton–Euler pass, with no
// constraint solve.
Status computeOutputs(const Model& model, const State& state, Workspace& ws, Outputs& out,
                      const StepResult* step = nullptr, const JointTree* tree = nullptr);

// Kinetic and gravitational energy only (no solve needed).
double kineticEnergy(const Model& model, const State& state);
double gravitationalEnergy(const Model& model, const State& state);

}  // namespace engine
