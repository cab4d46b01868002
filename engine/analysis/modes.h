#pragma once
// Small vibrations about a state at rest: natural frequencies, damping ratios and mode shapes.
//
// About an equilibrium the linearised motion in the minimal coordinates z of linearisation.h
// (M-orthonormal, so the reduced mass is the identity) is  z̈ + C ż + K z = 0. Its modes are the
// eigenpairs of the first-order system  [ż; z̈] = [0 I; −K −C] [z; ż]: an eigenvalue
// s = −ζ ω ± i ω √(1 − ζ²) gives the natural frequency ω = |s| and the damping ratio
// ζ = −Re s / |s|; with no damping, ω² are the eigenvalues of K. An eigenvalue with a
// positive real part is an instability (a mode that grows), reported as such. Shapes are given
// in the velocity coordinates of the bodies (N times the modal vector: each body's
// translation and rotation in the mode), scaled so the largest translation (or, if none,
// rotation) is 1.

#include <vector>

#include <Eigen/Core>

#include "engine/dynamics/dynamics.h"

namespace engine {

struct Mode {
    double frequency = 0.0;     // natural frequency ω / 2π [Hz]
    double dampingRatio = 0.0;  // ζ (1: critical; > 1 overdamped)
    bool unstable = false;      // the mode grows (a negative stiffness, or negative damping)
    double growthRate = 0.0;    // its largest Re s [1/s], > 0 when unstable
    // 6 per body (v_W, ω' body axes), scaled so that the part whose centre of mass moves most
    // moves 1 (a mode that only turns: its largest entry 1)
    Eigen::VectorXd shape;
};

struct ModesResult {
    Status status;
    std::vector<Mode> modes;  // ascending frequency; unstable modes first
    double residual = 0.0;    // the largest acceleration at rest: about 0 at an equilibrium
    // The linearised equations z̈ + C ż + K z = f in the minimal coordinates z (linearisation.h):
    // N (6n × f) maps them to the bodies' velocity coordinates; f is the reduced force at the
    // state (0 at an equilibrium).
    Eigen::MatrixXd N, K, C;
    Eigen::VectorXd force;
};

// The modes about `state`'s pose, at rest: an equilibrium, for the results to describe
// vibrations. About the pose of a moment of a run (not at rest, or not in equilibrium) they are
// those of the mechanism frozen there: the velocities, with their centrifugal and gyroscopic
// terms, are not part of it (world-fixed minimal coordinates would see a turning part's own
// motion as a displacement), and `residual` says how far from equilibrium the pose is.
ModesResult modes(const Model& model, const State& state);

// A mode's shape part by part (not body by body: welded parts move as one, model/welds.h): the
// parts it is given for, every part but the ground's and those welded to it, in the scene's
// order; and for each, its centre of mass's displacement and its rotation (world axes), 6
// values per part, at the pose `q` the modes were computed about.
std::vector<std::size_t> modeShapeParts(const Model& model);
void modeShapeByPart(const Model& model, const Eigen::VectorXd& q, const Mode& mode,
                     std::vector<double>& out);

}  // namespace engine
