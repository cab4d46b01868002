#pragma once
// Static analyses on a compiled model, at a fixed instant (drivers held at their value then):
//
//   assemble          the pose closest (in the mass metric) to the given one that satisfies
//                     every joint and driver: the projection every run starts with
//   staticEquilibrium a stable equilibrium reached from the given pose by kinetic damping
//                     (dynamic relaxation): the constrained dynamics run with its velocities
//                     zeroed whenever the kinetic energy peaks, until the accelerations at
//                     rest vanish; it finds the minimum of potential energy nearest downhill
//
// Contact is not part of either (joints, forces and drivers only).

#include <atomic>

#include "engine/dynamics/dynamics.h"

namespace engine {

struct StaticResult {
    Status status;
    State state;            // the pose found, at rest (velocities zero for equilibrium)
    long steps = 0;         // relaxation steps (equilibrium)
    double residual = 0.0;  // largest acceleration at rest [m/s², rad/s²]
};

StaticResult assemble(const Model& model, const State& start);

// Stops with success when the largest acceleration at rest is below `tolerance`, with a
// failure naming the part still moving after `maxSteps`, or when `cancel` becomes true.
// `progress` (0..1, for a progress bar) follows the residual's way down to the tolerance on a
// logarithmic scale.
StaticResult staticEquilibrium(const Model& model, const State& start, double tolerance = 1e-8,
                               long maxSteps = 200000, const std::atomic<bool>* cancel = nullptr,
                               std::atomic<double>* progress = nullptr);

// The scene's part poses X_WP for a state of `model` (ground parts where the model has them).
std::vector<Transform> partPoses(const Model& model, const State& state);

}  // namespace engine
