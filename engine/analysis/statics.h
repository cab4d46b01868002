#pragma once
// Static analyses on a compiled model, at a fixed instant (drivers held at their value then):
//
//   assemble          the pose closest (in the mass metric) to the given one that satisfies
//                     every joint and driver: the projection every run starts with
//   equilibrium       the equilibrium nearest the given pose, stable or not, by Newton, and
//                     its stability (relaxation below as the fallback for a far start)
//   staticEquilibrium a stable equilibrium reached from the given pose by kinetic damping
//                     (dynamic relaxation): the constrained dynamics (symplectic Euler, time
//                     held) run with its velocities zeroed whenever the kinetic energy peaks,
//                     until the accelerations at rest vanish; it finds the minimum of
//                     potential energy nearest downhill
//
// Contact is not part of either (joints, forces and drivers only).

#include <atomic>

#include "engine/dynamics/dynamics.h"

namespace engine {

// The stability of an equilibrium, from the eigenvalues of its reduced stiffness K
// (linearisation.h): stable when every one is positive (a minimum of potential energy for
// conservative forces), unstable when one is negative, neutral when the smallest is zero to
// 1e-6 of the largest (a direction along which nothing restores the mechanism).
enum class Stability { Unknown, Stable, Unstable, Neutral };
// "stable", "unstable", "neutral", "unknown": as motus-cli and the Python module say it.
const char* stabilityName(Stability stability);

struct StaticResult {
    Status status;
    State state;     // the pose found, at rest (velocities zero for equilibrium)
    long steps = 0;  // relaxation steps (equilibrium)
    int newtonIterations = 0;
    double residual = 0.0;  // largest acceleration at rest [m/s², rad/s²]
    Stability stability = Stability::Unknown;
    int unstableDirections = 0;            // negative eigenvalues of K
    Eigen::VectorXd stiffnessEigenvalues;  // real parts, ascending [1/s² in the mass metric]
};

StaticResult assemble(const Model& model, const State& start);

// Stops with success when the largest acceleration at rest is below `tolerance`, with a
// failure naming the part still moving after `maxSteps`, or when `cancel` becomes true.
// `progress` (0..1, for a progress bar) follows the residual's way down to the tolerance on a
// logarithmic scale.
StaticResult staticEquilibrium(const Model& model, const State& start, double tolerance = 1e-8,
                               long maxSteps = 200000, const std::atomic<bool>* cancel = nullptr,
                               std::atomic<double>* progress = nullptr);

// The equilibrium nearest `start`, stable or not: Newton on the reduced equilibrium equations
// f(z) = 0 (linearisation.h) with K as its Jacobian, steps limited to a tenth of the
// mechanism's size. Where Newton cannot proceed (a far start, a singular stiffness, no
// convergence in 50 iterations) the damped relaxation of staticEquilibrium() takes the
// mechanism down to a stable equilibrium and Newton finishes there. Reports the stability.
// `stable`: a stable equilibrium only (the relaxation first, Newton to finish), e.g. to
// vibrate about.
StaticResult equilibrium(const Model& model, const State& start, double tolerance = 1e-8,
                         const std::atomic<bool>* cancel = nullptr,
                         std::atomic<double>* progress = nullptr, bool stable = false);

// The scene's part poses X_WP for a state of `model` (ground parts where the model has them).
std::vector<Transform> partPoses(const Model& model, const State& state);

}  // namespace engine
