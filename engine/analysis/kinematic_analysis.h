#pragma once
// Kinematic analysis and inverse dynamics of a fully driven mechanism (seed 001): the motion is
// solved at each instant from the constraints alone, with no time integration.
//
//   position      Φ(q, t) = 0   by Newton, from the last solution carried forward by its
//                               velocity and acceleration, q ⊕ (h v + ½ h² v̇)
//   velocity      Φq v = ν      (ν = −Φt: the motions' rates)
//   acceleration  Φq v̇ = γ
//
// With every degree of freedom driven, Φq is square and regular (redundant equations aside), so
// none of the three depends on masses or forces; they are solved to the round-off of the
// constraints, not to a step's truncation error. Inverse dynamics reads the multipliers of the
// equations of motion at that motion, M v̇ + Φqᵀ λ = g: the reaction of every joint and the
// effort of every motion (the force or torque its actuator must give), and the motion's power
// (effort × rate of its coordinate).
//
// Lock-up: where Φq loses rank — a dead centre, a toggle position — the motions cannot be
// followed further. The analysis solves at least every `step` (the scene's step size) between
// outputs; where an instant cannot be solved, or is solved only with an equation dependent on
// the others, it bisects between the last good instant and that one down to 1e-12 s and stops
// with a failure that says when and which equation gives out. Every frame before it has been
// delivered.

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "engine/analysis/outputs.h"

namespace engine {

struct KinematicOptions {
    double duration = 1.0;
    double outputInterval = 0.0;  // s between frames; 0: the scene's output spacing
    bool inverseDynamics = true;  // false: no masses or forces evaluated (efforts left 0)
    const std::atomic<bool>* cancel = nullptr;
    std::atomic<double>* progress = nullptr;  // 0..1
};

// One solved instant, as handed to the sink. `outputs` carries the reactions and efforts
// (inverse dynamics; NaN, not computed, in a kinematic analysis) and the joint coordinates,
// energies and constraint error (always).
struct KinematicFrame {
    const State& state;
    const Eigen::VectorXd& vdot;  // accelerations (v̇_W, ω̇' per body)
    const Outputs& outputs;
    const std::vector<double>& motionPower;  // per motion: effort × rate [W]
};

// Returns false to stop the analysis (the sink's own failure, e.g. a file that cannot be
// written: its message in `error`).
using KinematicSink = std::function<bool(const KinematicFrame&, std::string& error)>;

struct KinematicResult {
    Status status;         // failure: not fully driven, cancelled, the sink's, or a lock-up
    long frames = 0;       // frames delivered
    double reached = 0.0;  // the last instant solved [s]
    int maxNewtonIterations = 0;
    int redundantEquations = 0;  // reactions of the joints they belong to are not unique
    bool lockedUp = false;
    double lockUpTime = 0.0;     // the last instant the mechanism still follows its motions
    std::string lockUpEquation;  // the joints and motions the lock-up is about, named
};

KinematicResult kinematicAnalysis(const std::shared_ptr<const Model>& model,
                                  const KinematicOptions& options, const KinematicSink& sink);

// Why `model` cannot be analysed kinematically (a free degree of freedom at its initial pose,
// said with its count; or it cannot be assembled, with the cause and entities of that), or ok
// when it can.
Status fullyDrivenProblem(const std::shared_ptr<const Model>& model);

// A copy of `model` whose runs (ForwardDynamics, the Simulator) solve the motion at each
// instant: the same outputs, recording and replay as a dynamics run.
std::shared_ptr<const Model> kinematicModel(const Model& model);

}  // namespace engine
