#pragma once
// Runs of imported robots for the importer tests (tests/engine/import/): as imported, their
// joint limits stops and the run time-stepped, and as they were before limits were imported.

#include <memory>
#include <string>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/outputs.h"
#include "engine/model/diagnostic.h"
#include "engine/model/scene_spec.h"

namespace engine::test {

// A run of a scene as imported, its stops time-stepped: what the compiler said and, over
// `seconds` in 100 slices, the largest overshoot of a stop, the energy balance's largest drift
// and the largest energy the motion exchanged (kinetic, change of gravitational, elastic,
// driver work, dissipated), and the joints' largest gap. `ran` is false (and `failure` says
// why) when it could not start or stopped.
struct StoppedRun {
    bool ran = false;
    std::string failure;
    Diagnostics diagnostics;
    double kinetic = 0.0, drift = 0.0, exchanged = 0.0, constraintError = 0.0, overshoot = 0.0;
};

StoppedRun runWithStops(const SceneSpec& spec, double seconds);

// A scene run from rest for `seconds`: the simulation and its outputs at the end (each step a
// test failure if it fails).
struct Rested {
    std::unique_ptr<ForwardDynamics> sim;
    Outputs out;
};
Rested restFor(const SceneSpec& spec, double seconds = 2.0);

// The compiler's warnings that the time-stepping integrator's explicit step is too long for a
// damper ("timeStepping is stable only for steps below"), counted; every other diagnostic is a
// test failure.
int countStepWarnings(const Diagnostics& diagnostics);

// The scene as it was before joint limits and friction (and, with `withoutDampers`, joint
// damping: every force) were imported: no stops, no joint friction, the default integrator.
SceneSpec withoutStops(SceneSpec spec, bool withoutDampers = false);
// The scene without its joints' friction (its stops kept).
SceneSpec withoutFriction(SceneSpec spec);

}  // namespace engine::test
