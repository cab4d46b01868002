#pragma once
// Time steppers behind one interface, one a file. Each accepted step is followed by projection
// onto the constraint manifold (engine/dynamics/projection.h: positions by Newton steps in the
// mass metric, then velocities), with quaternions renormalised, so no Baumgarte factors are
// needed (seed 003 §0.5).
//
//   symplecticEuler  fixed step h:  v⁺ = v + h v̇(q, v),  q⁺ = q ⊕ h v⁺ (exponential map)
//   rk4              fixed step h, classical Runge–Kutta on (q, v)
//   dopri45          Dormand–Prince 5(4), adaptive with relative/absolute tolerances; the
//                    step size setting is its largest step
//   implicitEuler    fixed step h, backward Euler solved by Newton's method with exact force
//                    Jacobians (stiff springs, dampers and bushings), see implicit_euler.cpp
//   timeStepping     fixed step h, velocity level: joints, contact and friction in one mixed
//                    LCP per step (impacts, stick–slip), see time_stepping.cpp
//
// The fixed-step methods take a step as 2, 4, … equal substeps where a body turns fast (the
// tip of a whipping chain reaches 1000 rad/s: a radian a millisecond) and retry a step that
// fails in more substeps before giving up (detail.h, FixedStepIntegrator).

#include <memory>
#include <string>

#include "engine/dynamics/dynamics.h"
#include "engine/dynamics/projection.h"

namespace engine {

struct IntegratorStatistics {
    long steps = 0;       // accepted steps
    long rejected = 0;    // rejected (adaptive only)
    long subdivided = 0;  // fixed steps taken as substeps (fast rotation, or a retry)
    long retried = 0;  // retries of fixed steps in more substeps (a step refined to 1024 counts 10)
    long evaluations = 0;     // derivative evaluations (KKT solves)
    long projectedSteps = 0;  // Runge–Kutta steps next to a singular position, stages projected
    int projectionIterations = 0;  // Newton iterations of the last position projection
    long impulseIterations = 0;    // symplectic Euler's constraint impulse iterations, all steps
    long newtonIterations = 0;     // implicit Euler's Newton iterations, all steps
    int mostNewtonIterations = 0;  // and the most one step took
    // Wall time in collision detection (timeStepping), all steps: the parts' poses given to the
    // collision world, broad and narrow phase, the points merged with the last step's — not
    // their ordering by island and height for the solve.
    double collisionSeconds = 0.0;
    // The rest of timeStepping's steps, phase by phase, wall time over all steps: the points
    // ordered by island and height; forces, v* and the rows (assembly); the contact solve (with
    // the joint rows' projections around it); the new positions; the positions projected onto
    // the joints, sleeping and the step recorded. (With contact on, in maximal coordinates; in
    // joint coordinates the ordering alone.) Where a step's time goes, and which part of it a
    // second thread shortens.
    double orderingSeconds = 0.0;
    double assemblySeconds = 0.0;
    double solveSeconds = 0.0;
    double integrationSeconds = 0.0;
    double finishSeconds = 0.0;
};

class Integrator {
public:
    virtual ~Integrator() = default;
    // Advances `state` from state.t to exactly tEnd.
    virtual Status advance(const Model& model, State& state, Workspace& ws, double tEnd) = 0;
    // The state was set from elsewhere (initial, restored, resumed): forget step history kept
    // outside the state (an adaptive integrator's step workspace).
    virtual void reset() {}
    // The forces changed between two steps (an input set from outside the run): the masses,
    // the joints and the state are as they were; forget what was computed from the old forces
    // (an adaptive method's first-same-as-last derivative). By default, all of it.
    virtual void forcesChanged() { reset(); }
    // A method that steps in a workspace of its own (dopri45) has a constraint solver of its
    // own, whose rank handling's memory goes with the state (State::solverMemory) after the
    // workspace's: the solver (null while it has none), and a memory to take back when it
    // prepares its workspace next (after reset(); `size` doubles, copied).
    virtual const KktSolver* ownSolver() const { return nullptr; }
    virtual void restoreOwnSolver(const double* /*memory*/, int /*size*/) {}
    // What a stepper carries from one step into the next beyond the state (the joint-space
    // loop stepper's, LoopStepper::memorySize doubles): kept with State::solverMemory after the
    // constraint solvers' memory, and taken back after reset().
    virtual void saveStepMemory(double* /*memory*/, int /*size*/) const {}
    virtual void restoreStepMemory(const double* /*memory*/, int /*size*/) {}
    const IntegratorStatistics& statistics() const { return stats_; }

protected:
    IntegratorStatistics stats_;
};

// The formulation a run of `model` steps in (SolverSettings::formulation resolved) and why:
// joint coordinates where the scene asks for the recursive formulation, maximal coordinates
// otherwise (auto keeps them while they follow the motion more closely at the same settings:
// see integrator.cpp; its reason names what recursive would step). `refused`: the scene asks
// for the recursive formulation and cannot have it (`reason` says why).
struct FormulationChoice {
    Formulation formulation = Formulation::Maximal;
    std::string reason;
    bool refused = false;
};
FormulationChoice chooseFormulation(const Model& model);

// The integrator the settings name, stepping in maximal coordinates or (`formulation`
// Recursive) in joint coordinates.
std::unique_ptr<Integrator> makeIntegrator(const SolverSettings& settings,
                                           Formulation formulation = Formulation::Maximal);

// The motion of a fully driven mechanism solved at each instant from the constraints (a Model
// with `kinematic` set; engine/analysis/kinematic_analysis.h).
std::unique_ptr<Integrator> makeKinematicStepper();

}  // namespace engine
