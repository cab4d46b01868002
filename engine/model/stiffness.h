#pragma once
// How fast the force elements make parts vibrate, against what a step of the integrator can
// follow: a scene whose spring is too stiff for its step is said before it runs (a compile
// warning) and named when a run blows up, instead of the joint that fails first.
//
// A spring of stiffness k on an effective mass m vibrates at ω = √(k/m); a damper of
// coefficient c decays at rate c/m. With constraints the effective mass can only grow, so these
// are upper bounds (Rayleigh). The effective inverse mass of a part along a direction n at a
// point r from its centre of mass is 1/m + (r × n)ᵀ I⁻¹ (r × n); the two parts of an element
// add. An explicit method is stable for |λ| h below its limit: symplectic Euler and time
// stepping 2, rk4 2.78; implicit Euler takes these forces implicitly and dopri45 adapts its
// step, so neither has a limit here.

#include <limits>
#include <string>
#include <vector>

#include "engine/math/spatial.h"
#include "engine/model/diagnostic.h"
#include "engine/model/scene_spec.h"

namespace engine {

struct Model;

struct StiffnessEstimate {
    int force = -1;          // index into Model::forces
    int joint = -1;          // or into Model::joints: a soft joint (JointCompliance)
    double stiffness = 0.0;  // the element's k [N/m or N·m/rad] (a bushing's, on its worst axis)
    double damping = 0.0;    // and c [N·s/m or N·m·s/rad]
    double rate = 0.0;       // |λ| [1/s]: ω = √(k/m), or c/m where damping dominates
    double mass = 0.0;       // effective mass [kg] or moment of inertia [kg·m²]
    bool rotational = false;
    bool byDamping = false;  // the rate is the damper's c/m
};

// Every force element with stiffness or damping, at body poses X_WB (one per body), and every
// soft joint for the integrators that take soft joints as forces (not timeStepping nor
// implicitEuler, which take them implicitly).
std::vector<StiffnessEstimate> stiffnessEstimates(const Model& model,
                                                  const std::vector<Transform>& X_WB);

// The largest |λ| h the integrator's explicit treatment of forces is stable for; infinity for
// methods without such a limit.
double stabilityLimit(IntegratorType integrator);

// "force 'spring' (stiffness 1e+09 N/m on 0.5 kg) vibrates at 4.47e+04 rad/s: rk4 is stable only
// for steps below 6.2e-05 s …" for an estimate beyond the limit at step h.
std::string stiffnessMessage(const Model& model, const StiffnessEstimate& estimate, double h);

// Compile warnings for the elements beyond the limit at the initial poses, located at
// "/forces/<index>" of the scene.
Diagnostics stiffnessWarnings(const Model& model, const SceneSpec& spec);

// The element furthest beyond the limit at poses X_WB for steps of `step` (0: the scene's step),
// or force and joint −1 when none is. For methods without a limit (dopri45), the element whose time scale
// the steps had to come down to (|λ| h > 0.05).
StiffnessEstimate stiffestBeyondLimit(const Model& model, const std::vector<Transform>& X_WB,
                                      double step = 0.0);

}  // namespace engine
