#pragma once
// What the Runge–Kutta methods share (rk4 in runge_kutta.cpp, dopri45 in dormand_prince.cpp):
// the flattened state and its derivative, projected onto the constraints next to a singular
// position. Private to engine/integrators.

#include <Eigen/Core>

#include "engine/dynamics/dynamics.h"
#include "engine/integrators/integrator.h"

namespace engine::detail {

// Flattened ODE state y = [q; v; driverWork; dissipatedEnergy] for the Runge–Kutta methods.
struct Flat {
    int nq = 0, nv = 0;
    Eigen::VectorXd pack(const State& s) const {
        Eigen::VectorXd y(nq + nv + 2);
        y << s.q, s.v, s.driverWork, s.dissipatedEnergy;
        return y;
    }
    void unpack(const Eigen::VectorXd& y, State& s) const {
        s.q = y.head(nq);
        s.v = y.segment(nq, nv);
        s.driverWork = y(nq + nv);
        s.dissipatedEnergy = y(nq + nv + 1);
    }
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
