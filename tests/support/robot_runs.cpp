#include "tests/support/robot_runs.h"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/outputs.h"
#include "engine/model/model.h"
#include "tests/support/simulation.h"

namespace engine::test {

StoppedRun runWithStops(const SceneSpec& spec, double seconds) {
    StoppedRun run;
    CompileResult compiled = compile(spec);
    run.diagnostics = compiled.diagnostics;
    if (!compiled.model) {
        run.failure = "the scene does not compile";
        return run;
    }
    ForwardDynamics sim(compiled.model);
    Outputs out;
    for (const Status& s : {sim.initialize(), sim.outputs(out)})
        if (!s.ok) {
            run.failure = s.message;
            return run;
        }
    const Energies start = out.energies;
    for (int k = 1; k <= 100; ++k) {
        const Status advanced = sim.advance(seconds * k / 100);
        const Status read = advanced.ok ? sim.outputs(out) : advanced;
        if (!read.ok) {
            run.failure = read.message;
            return run;
        }
        const Energies& e = out.energies;
        run.drift = std::max(run.drift, std::abs(e.balance() - start.balance()));
        run.exchanged =
            std::max(run.exchanged, e.kinetic + std::abs(e.gravitational - start.gravitational) +
                                        std::abs(e.elastic) + std::abs(e.driverWork) +
                                        std::abs(e.dissipated));
        run.constraintError = std::max(run.constraintError, out.constraintError);
        for (const LimitModel& l : sim.model().limits) {
            const double q = sim.state().jointCoordinates(l.slot);
            run.overshoot = std::max({run.overshoot, l.lower - q, q - l.upper});
        }
    }
    run.kinetic = out.energies.kinetic;
    run.ran = true;
    return run;
}

int countStepWarnings(const Diagnostics& diagnostics) {
    int stepWarnings = 0;
    for (const Diagnostic& d : diagnostics) {
        const bool step =
            d.message.find("timeStepping is stable only for steps below") != std::string::npos;
        stepWarnings += step;
        if (!step) ADD_FAILURE() << d.where << ": " << d.message;
    }
    return stepWarnings;
}

Rested restFor(const SceneSpec& spec, double seconds) {
    Rested r;
    r.sim = std::make_unique<ForwardDynamics>(compiled(spec));
    EXPECT_TRUE(r.sim->initialize().ok);
    EXPECT_TRUE(r.sim->advance(seconds).ok);
    EXPECT_TRUE(r.sim->outputs(r.out).ok);
    return r;
}

SceneSpec withoutFriction(SceneSpec spec) {
    for (Joint& j : spec.joints) j.friction.clear();
    return spec;
}

SceneSpec withoutStops(SceneSpec spec, bool withoutDampers) {
    for (Joint& j : spec.joints) {
        j.limits.clear();
        j.friction.clear();
    }
    if (withoutDampers) spec.forces.clear();
    spec.settings.integrator = SolverSettings{}.integrator;
    return spec;
}

}  // namespace engine::test
