#pragma once
// Projection onto the constraint manifold, after every step of every method and wherever a
// state is set (assembly, a drag, a restored run): positions by Newton steps in the mass
// metric Δq = −M⁻¹Φqᵀ S⁻¹ Φ, then velocities v ← v − M⁻¹Φqᵀ S⁻¹ (Φq v − ν), quaternions
// renormalised and the unwound joint coordinates refreshed.

#include "engine/dynamics/dynamics.h"

namespace engine {

// Projects the state onto Φ = 0 (position rows) and Φq v = ν (position and velocity rows),
// renormalises quaternions and updates the unwound joint coordinates. Fails when Newton does
// not converge within settings.maxProjectionIterations. `tolerance` (m, rad) replaces the
// scene's projection tolerance when positive.
//
// `driverWork`: the motions' share of the velocity correction is work they do, added to
// state.driverWork — for the velocity-level steppers, whose step meets a motion's position and
// whose projection its rate (a run-up gets half its speed there). The Runge–Kutta methods
// integrate the motions' power instead, and their corrections are round-off.
//
// `velocityImpulse`: the impulses μ of the velocity correction, v ← v − M⁻¹Φqᵀμ, one per row
// (what turns a velocity-level step's velocity, tangent to the joints at its start, onto them at
// its end: the centripetal share of the joints' reactions over the step).
//
// `still` (per body, or null): bodies a stepper held where they were (sleeping parts): their
// quaternions are left as they are and, without position rows, their frames too.
Status projectState(const Model& model, State& state, Workspace& ws, int* iterations = nullptr,
                    double tolerance = 0.0, bool driverWork = false,
                    Eigen::VectorXd* velocityImpulse = nullptr,
                    const std::vector<char>* still = nullptr);

// The velocity stage of projectState alone, for a step whose positions already meet the
// position rows (to the projection tolerance, measured as projectState measures it) and whose
// workspace frames are at state.q unless Φq(state.q) still has to be factored. `coordinates`:
// refresh State::jointCoordinates; a caller that refreshes them itself before any joint could
// have turned by π since (so every angle unwinds to the same value) may leave them.
Status projectVelocities(const Model& model, State& state, Workspace& ws, bool driverWork = false,
                         bool coordinates = true, Eigen::VectorXd* impulse = nullptr);

// Refreshes State::jointCoordinates from the positions (angles unwound from the last values).
void updateJointCoordinates(const Model& model, State& state, Workspace& ws);

}  // namespace engine
