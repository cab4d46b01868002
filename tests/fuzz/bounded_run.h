#pragma once
// What the fuzz targets that simulate share: a loaded scene runs for a few output steps with
// its outputs (reactions, energies) computed at each, as the simulator does, bounded so that
// no input takes long. libFuzzer reports an input that runs for long as a hang, so the bounds
// are on the work done, whatever the scene asks for:
//
//   - at most kMaxParts parts and kMaxJoints joints (larger scenes are only read and compiled:
//     under the sanitizers a step of the 100-link chain takes ~20 ms);
//   - kOutputSteps output steps of at most kMaxStepSize, so the fixed-step integrators take
//     kOutputSteps steps, each with at most 4 · kMaxProjectionIterations Newton iterations;
//   - contact: at most kMaxContactSweeps PGS sweeps, kMaxConeFacets facets, and Lemke's dense
//     LCP (its pivots grow with the cube of the contacts) only up to kMaxLemkeParts parts;
//   - the adaptive integrator (dopri45) shrinks its step until its error estimate is met and
//     gives up only below 1e-14 s: a stiff spring can make it take 1e11 steps a millisecond.
//     It is advanced in chunks that start at 1 ns and grow eightfold while they take one or
//     two steps, and the run ends after kMaxEvaluations derivative evaluations.
//
// A failure (assembly, convergence, a step) ends the run: it is a reported result, not a bug.

#include <algorithm>
#include <cstddef>
#include <memory>

#include "engine/analysis/forward_dynamics.h"
#include "engine/model/model.h"

namespace fuzz {

constexpr std::size_t kMaxParts = 64;
constexpr std::size_t kMaxJoints = 128;
constexpr int kOutputSteps = 20;
constexpr double kMaxStepSize = 1e-3;  // s
constexpr int kMaxProjectionIterations = 16;
// dopri45 steps allowed per output interval (a corrupted frame can start it at steps of 1e-13 s).
constexpr long kMaxAdaptiveStepsPerOutput = 300;
constexpr int kMaxContactSweeps = 100;
constexpr int kMaxConeFacets = 8;
constexpr std::size_t kMaxLemkeParts = 4;
constexpr long kMaxEvaluations = 300;  // derivative evaluations (KKT solves) per run
constexpr double kFirstChunk = 1e-9;   // s

// Whether the scene is small enough to run.
inline bool runnable(const engine::SceneSpec& spec) {
    return spec.parts.size() <= kMaxParts && spec.joints.size() <= kMaxJoints;
}

// The scene's solver and contact settings within the bounds above.
inline void boundSettings(engine::SceneSpec& spec) {
    engine::SolverSettings& st = spec.settings;
    if (!(st.stepSize <= kMaxStepSize)) st.stepSize = kMaxStepSize;
    st.maxProjectionIterations = std::min(st.maxProjectionIterations, kMaxProjectionIterations);
    st.stallSteps = kMaxAdaptiveStepsPerOutput;
    engine::ContactSettings& ct = spec.contact;
    ct.iterations = std::min(ct.iterations, kMaxContactSweeps);
    ct.coneFacets = std::min(ct.coneFacets, kMaxConeFacets);
    if (ct.solver == engine::ContactSolverType::Lemke && spec.parts.size() > kMaxLemkeParts)
        ct.solver = engine::ContactSolverType::ProjectedGaussSeidel;
}

// kOutputSteps output steps from the assembled initial state, or from `start` (a recorded
// state, resumed without assembly) when it is given.
inline void runBriefly(const std::shared_ptr<const engine::Model>& model,
                       const engine::State* start = nullptr) {
    engine::ForwardDynamics sim(model);
    if (!(start ? sim.resume(*start) : sim.initialize()).ok) return;
    engine::Outputs out;
    if (!sim.outputs(out).ok) return;
    const double interval = model->settings.stepSize;
    const bool adaptive = model->settings.integrator == engine::IntegratorType::DormandPrince45;
    const double t0 = sim.state().t;
    double chunk = kFirstChunk;
    for (int k = 1; k <= kOutputSteps; ++k) {
        const double tOut = t0 + k * interval;
        if (!adaptive) {
            if (!sim.advance(tOut).ok) return;
        }
        while (adaptive && sim.state().t < tOut) {
            const double t = sim.state().t;
            const double end = t + chunk < tOut && t + chunk > t ? t + chunk : tOut;
            const long before = sim.statistics().steps + sim.statistics().rejected;
            if (!sim.advance(end).ok) return;
            if (sim.statistics().evaluations > kMaxEvaluations) return;
            const long steps = sim.statistics().steps + sim.statistics().rejected - before;
            if (steps <= 2) chunk = std::min(8.0 * chunk, interval);
            if (steps > 16) chunk = std::max(0.5 * chunk, kFirstChunk);
        }
        if (!sim.outputs(out).ok) return;
    }
}

}  // namespace fuzz
