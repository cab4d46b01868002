#pragma once
// The equations of motion linearised about a state at rest, in minimal coordinates.
//
// The motions the joints and motions allow at q (held at the state's time) are the null space
// of Φq: a basis N (6n × f) with Φq N = 0, orthonormal in the mass metric (Nᵀ M N = I). A
// displacement z of the f minimal coordinates moves the parts to q ⊕ N z, projected back onto
// Φ = 0. The reduced force at rest is
//
//     f(z) = Nᵀ M v̇(q(z), 0)        (M v̇ = g − Φqᵀλ: the net force the joints let act)
//
// zero exactly at an equilibrium; its Jacobian gives the reduced stiffness K = −∂f/∂z (which
// carries the geometric stiffness of the joints' reactions through λ) and, from velocities
// v = N ż, the reduced damping C = −∂f/∂ż. Both by central differences (a step of 1e-6 of the
// mechanism's size). Small motions about an equilibrium obey z̈ + C ż + K z = 0.

#include <Eigen/Core>

#include "engine/dynamics/dynamics.h"

namespace engine {

struct Linearisation {
    Status status;
    Eigen::MatrixXd N;      // 6n × f: M-orthonormal basis of the allowed motions
    Eigen::VectorXd force;  // f: the reduced force at rest at the state (0 at equilibrium)
    Eigen::MatrixXd K;      // f × f: reduced stiffness
    Eigen::MatrixXd C;      // f × f: reduced damping (only when asked)
    double residual = 0.0;  // the largest acceleration at rest [m/s², rad/s²]
    // The size of the stiffness terms [1/s²]: the largest entry of K, and at least gravity over
    // the mechanism's size (a neutral mechanism — gravity along its hinges, or none — has a K
    // of round-off alone). K is known to ~1e-9 of it (central differences of forces whose
    // terms are of that size): an eigenvalue ω² below that is zero.
    double stiffnessScale = 0.0;
};

// `state` must satisfy the constraints (an assembled or recorded state); its velocities are
// taken as zero. Dense: for mechanisms of up to a few hundred coordinates.
Linearisation linearise(const Model& model, const State& state, Workspace& ws,
                        bool withDamping = false);

// The state moved by the minimal displacement z along `N` (q ⊕ N z, projected onto Φ = 0),
// at rest.
Status displace(const Model& model, const State& from, const Eigen::MatrixXd& N,
                const Eigen::VectorXd& z, Workspace& ws, State& to);

}  // namespace engine
