#pragma once
// Forward dynamics at acceleration level (seeds 001, 002):
//
//     [ M   Φqᵀ ] [ v̇ ]   [ g ]
//     [ Φq   0  ] [ λ ] = [ γ ]
//
// with M = diag(m I3, J') per body, g the applied forces (forces/), γ from constraints/.
// Reactions on part i are −Φq_iᵀ λ (THEORY.md).

#include <Eigen/Core>

#include "engine/dynamics/workspace.h"
#include "engine/model/model.h"
#include "engine/state/state.h"

namespace engine {

// Sets up the workspace for `model` at `state`: mass vector, rank analysis of the constraint
// Jacobian (redundant rows), symbolic factorisation. Fails for a singular system that has
// no consistent solution.
Status prepareWorkspace(const Model& model, const State& state, Workspace& ws);

// Union–find over the model's bodies, the ground one node: join() links a joint's two bodies,
// false when they were joined already (the joint closes a loop).
class BodyGraph {
public:
    explicit BodyGraph(const Model& model);
    bool join(const JointModel& joint);

private:
    int root(int b);
    const Model& model_;
    std::vector<int> parent_;
};

// Whether the joints close a loop among the bodies (the ground one body): only then can rows of
// the constraint Jacobian depend on each other, and the solver's memory keeps their pivots.
bool hasClosedLoops(const Model& model);
// The length of State::solverMemory for the model: the memory (KktSolver::saveMemory) of the
// workspace's solver, then that of an adaptive integrator's own (dopri45 steps in a workspace
// of its own), then (`stepper`) what the joint-space loop stepper carries from step to step
// (LoopStepper::memorySize; run files written before it was kept have none).
int solverMemorySize(const Model& model, bool stepper = true);

// allFinite(x), in blocks on the engine's threads for a long x (a state of many bodies, checked
// every step): the same answer.
bool allFiniteOnThreads(const Eigen::VectorXd& x);

// Applied forces ws.g at (t, q, v) (frames in ws.frames); fails naming a non-finite force.
// Soft joints are evaluated too (ws.soft, ws.softLambda; their elastic energy in
// ws.forceEnergies); `softJointForces` adds their pull −Φsᵀλs to g and their dampers' power
// (explicit methods), a stepper that takes them implicitly passes false. `held` (per body, or
// null): bodies held still through the step whose frames ws.frames already hold at (q, v) —
// their frames are not formed again, their gravity and gyroscopic terms are left out of g
// (computeBodyFrames, computeAppliedForces).
Status evaluateAppliedForces(const Model& model, double t, const Eigen::VectorXd& q,
                             const Eigen::VectorXd& v, const Eigen::VectorXd& jointCoordinates,
                             const Eigen::VectorXd& lagged, Workspace& ws,
                             bool softJointForces = true, const std::vector<char>* held = nullptr);

// The stiffness and damping of each soft row at the rows' Jacobian `Phi_q` (by frequency: from
// each row's effective mass 1 / (Φq_r M⁻¹ Φq_rᵀ)).
void softJointGains(const Model& model, const SparseRowMatrix& Phi_q, const Eigen::VectorXd& Minv,
                    Eigen::VectorXd& stiffness, Eigen::VectorXd& damping);

// Full constraint evaluation at (t, q, v) in ws.constraints and the factorisation of S for
// that Φq, reusing the workspace's factorisation when it already belongs to (t, q). With
// needGamma false and a reusable factorisation, nothing is evaluated. `framesCurrent`: ws.frames
// already hold the frames at (q, v).
Status factorizeConstraints(const Model& model, double t, const Eigen::VectorXd& q,
                            const Eigen::VectorXd& v, Workspace& ws, bool needGamma,
                            bool framesCurrent = false);

// The factorisation of S for the Φq already evaluated in ws.constraints at (t, q) (γ not
// needed), recorded as the workspace's factorisation.
Status factorizeEvaluated(const Model& model, double t, const Eigen::VectorXd& q, Workspace& ws);

// Accelerations ws.vdot and multipliers ws.lambda at (t, q, v).
// `jointCoordinates`, `lagged`: the state's memory of the last step (State::jointCoordinates,
// State::lagged) that forces read.
Status computeAccelerations(const Model& model, double t, const Eigen::VectorXd& q,
                            const Eigen::VectorXd& v, const Eigen::VectorXd& jointCoordinates,
                            const Eigen::VectorXd& lagged, Workspace& ws);

// Time derivative of the state: q̇ (ṙ = v, ė = ½ e ⊗ (0, ω')) and v̇, plus the power put in
// by drivers and the power dissipated by dampers (for the energy balance).
struct StateDerivative {
    Eigen::VectorXd qdot;
    Eigen::VectorXd vdot;
    double driverPower = 0.0;
    double dampingPower = 0.0;
};
Status stateDerivative(const Model& model, double t, const Eigen::VectorXd& q,
                       const Eigen::VectorXd& v, const Eigen::VectorXd& jointCoordinates,
                       const Eigen::VectorXd& lagged, Workspace& ws, StateDerivative& out);

// Name of constraint row `row` for messages: "joint 'pinB' (coincident x)" or
// "motion 'crankDrive'".
std::string constraintRowName(const Model& model, int row);
// The joint or motion row `row` belongs to, for messages: "joint 'pinB'", "motion 'crankDrive'".
std::string constraintRowOwner(const Model& model, int row);
// The entity of row `row`, for programs: its joint's id or its motion's (kNoEntity for none).
EntityId constraintRowEntity(const Model& model, int row);
// A residual of row `row` with its unit for messages: "6e-05 m", "0.0012 rad".
std::string constraintResidualText(const Model& model, int row, double value);
// A row's multiplier with its unit: "600 N", "12 N·m".
std::string constraintReactionText(const Model& model, int row, double value);

}  // namespace engine
