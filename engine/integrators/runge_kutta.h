#pragma once
// What the Runge–Kutta methods share (rk4 in runge_kutta.cpp, dopri45 in dormand_prince.cpp):
// the flattened state and its derivative, projected onto the constraints next to a singular
// position. Private to engine/integrators.

#include <Eigen/Core>

#include <limits>
#include <string>

#include "engine/dynamics/dynamics.h"
#include "engine/dynamics/joint_space.h"
#include "engine/integrators/integrator.h"

namespace engine::detail {

// Flattened ODE state y = [q; v; driverWork; dissipatedEnergy] for the Runge–Kutta methods:
// the bodies' poses and velocities (maximal coordinates), or, with a joint tree (the recursive
// formulation), the joints' coordinates and rates, the bodies' state found from them.
struct Flat {
    int nq = 0, nv = 0;
    const Model* model = nullptr;     // (joint coordinates only)
    const JointTree* tree = nullptr;  // null: maximal coordinates

    static Flat bodies(const Model& model) {
        return {model.positionSize(), model.velocitySize(), nullptr, nullptr};
    }
    static Flat joints(const Model& model, const JointTree& tree) {
        return {tree.nq, tree.nv, &model, &tree};
    }
    Eigen::VectorXd pack(const State& s) const;
    // y into `s`; with `t` (a step's end, an output), the motions' coordinates in joint
    // coordinates put where they prescribe them at t first (as the projection does in maximal
    // coordinates).
    void unpack(const Eigen::VectorXd& y, State& s,
                double t = std::numeric_limits<double>::quiet_NaN()) const;
    // What ends a step at `s` (unpacked): maximal coordinates are projected onto the
    // constraints (tighter by `tighter` < 1 next to a singular position); joint coordinates
    // hold the joints of the tree by construction, a closed tree's loops are projected.
    Status settle(const Model& model, State& s, Workspace& ws, int* iterations,
                  double tolerance = 0.0) const;
    // The scene's name of entry `i` of y (a part's, or a joint's): what the error control of
    // dopri45 could not follow.
    std::string entityOf(const Model& model, Eigen::Index i, bool& velocity) const;
};

// Next to a singular position the constraint manifold is nearly a crossing of two branches
// (Φ ≈ x·y at a parallelogram lying flat), where a residual ε leaves the state up to √ε off
// the branch it follows: the scene's 1e-10 becomes 1e-5 there, and a step's answer then
// depends on how much drift it happened to carry in. Stages and step ends next to a singular
// position are therefore projected 1000 times tighter (round-off stops Newton near 1e-14
// anyway: the scene's tolerance remains what must hold). Measured on the double four-bar
// (rk4, 2e-3 s, over 3 s): 1.8e-8 m from the reference at the scene's tolerance, 1.1e-9 m so.
constexpr double kStageTolerance = 1e-3;

// f(t, y) for the Runge–Kutta methods on the flattened state. With `onManifold`, f(P(y)): the
// stage's positions and velocities are first projected onto the constraints (as the end of
// a step is). Next to a singular position the plain f is rough across the constraint
// manifold — a stage a little off it (O(h²)) meets rows that nearly depend on each other,
// and the multipliers that hold them amplify the stage's gap by 1/sin of that angle — while
// f(P(y)) only ever sees consistent states, along which the motion is smooth. Both equal f
// on the manifold, where the exact solution lies, so either keeps the method's order.
Status flatDerivative(const Model& model, const Flat& flat, double t, const Eigen::VectorXd& y,
                      const State& reference, Workspace& ws, Eigen::VectorXd& dy,
                      IntegratorStatistics& stats, bool onManifold = false);

}  // namespace engine::detail
