#pragma once
// Assembly: the pose nearest a start where every joint and motion holds, and, where there is
// none, why in mechanism terms.
//
// Nearest is in the mass metric: Δ, the displacement from the start (each body's translation
// and body-axes rotation vector), minimises ½ Δᵀ M Δ subject to Φ(q₀ ⊕ Δ) = 0. The projection
// of every run (Newton's minimum-norm steps Δq = −M⁻¹Φqᵀ S⁻¹ Φ) reaches the constraint
// manifold; SQP steps on the linearised problem
//     min ½ ‖Δ + δ‖²_M  subject to  Φ + Φq δ = 0   ⇒   δ = −Δ + M⁻¹Φqᵀ S⁻¹ (Φq Δ − Φ)
// then slide along it to the stationary point, where M Δ lies in the row space of Φq (no
// motion along the mechanism's free directions is left that could be taken back).
//
// A start where an equation that keeps two axes perpendicular has no gradient — the axes
// exactly parallel, e.g. a universal joint's cross placed in line — is turned by 1e-3 rad
// about an axis normal to them first: Newton then sees which way to turn.
//
// When Newton cannot close the equations, Levenberg–Marquardt on ½‖Φ‖² finds the nearest the
// mechanism comes. If that closes them (a far start Newton overshot), the mechanism is
// assembled from there. If not, the joint that cannot close is cut: the loop's joints share
// the gap at that least-squares pose, and the one the user closed the loop with (the last of
// them in the scene) is opened while every other equation is held (a penalty of 10⁴ on them);
// its gap there is by how much the loop cannot close in any position. The loop through it (a
// shortest path between its two parts over the other joints) names the parts involved, and the
// loop's shape at that pose says whether it is too short (stretched towards the gap) or too
// long.

#include <string>
#include <vector>

#include "engine/dynamics/dynamics.h"

namespace engine {

struct AssemblyResult {
    Status status;
    State state;  // assembled; on failure, the nearest pose the mechanism comes to
    int newtonIterations = 0;
    // On failure: what cannot close (a joint or a motion, index; −1 for none), its smallest gap
    // [m, or rad for axes out of line] and the names of the parts of the loop through it
    // (ground included), in loop order.
    int joint = -1;
    int motion = -1;
    double gap = 0.0;
    bool angular = false;  // the gap is an angle between axes
    std::vector<std::string> loopParts;
};

// With joint end stops (Model::limits) the pose is also within them: a stop the nearest pose
// passes is held at its end (see holdingStops) and the mechanism assembled again, until none is
// passed.
AssemblyResult assembleMechanism(const Model& model, const State& start);

// A joint end stop held at its end: its limit (index into Model::limits) and side (+1 the
// lower end, −1 the upper one).
struct HeldStop {
    int limit = 0;
    double side = 1.0;
    bool operator==(const HeldStop& o) const { return limit == o.limit && side == o.side; }
};

// `model` with the stops `held` holding their coordinates at their ends: one position driver
// each after the model's own (named "<joint> lower stop" or "… upper stop", with its joint's
// id; its effort is the stop's force), under a serial of its own. How assembly, statics and
// dragging keep a mechanism within its stops.
Model holdingStops(const Model& model, const std::vector<HeldStop>& held);

// The stops that `state` passes by more than `slack` (its joint coordinates beyond their ends),
// leaving out those in `held`.
std::vector<HeldStop> stopsPassed(const Model& model, const State& state, double slack,
                                  const std::vector<HeldStop>& held = {});

// A scene assembled and written back: compiled, its parts moved from where they are to the pose
// assembleMechanism finds, and placed there (SceneSpec::placeParts). The one way a front end
// assembles a scene: the CLI's `assemble` and the GUI's building tools. On failure `spec` is
// left as it was and `result` says why (its status's cause and entities; the joint or motion
// that cannot close, its gap and loop).
struct SceneAssembly {
    Diagnostics diagnostics;             // the compiler's; with an error, nothing was assembled
    std::shared_ptr<const Model> model;  // the scene compiled (null: it does not compile)
    AssemblyResult result;
    double moved = 0.0;   // the farthest a part moved [m]
    double turned = 0.0;  // the most a part turned [rad]
};
SceneAssembly assembleScene(SceneSpec& spec);

// How far each joint of `model` (in Model::joints' order) is from holding at `state`'s
// position: the largest distance of its point equations [m] and the largest angle of its axis
// equations [rad], as assembly reports a gap.
struct JointGap {
    double length = 0.0;
    double angle = 0.0;
};
std::vector<JointGap> jointGapsAt(const Model& model, const State& state);

// The displacement from `from` to `to` in velocity coordinates (per body: translation, and the
// rotation vector of R_fromᵀ R_to in the body axes).
Eigen::VectorXd displacement(const Model& model, const Eigen::VectorXd& from,
                             const Eigen::VectorXd& to);

// The metric of parts of unit mass and moments of inertia L², L the mechanism's size (the
// farthest any marker sits from its part's centre of mass; 1 m without markers): per body
// 1, 1, 1, L², L², L². What judges a mechanism's geometry alone, where masses and inertias
// many orders of magnitude apart make their own metric useless. L² in `size2` if asked.
Eigen::VectorXd unitPartMetric(const Model& model, double* size2 = nullptr);

}  // namespace engine
