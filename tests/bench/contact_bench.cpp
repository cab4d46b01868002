// BENCHMARKS.md pile-K: K cubes dropped 1 cm onto the ground in 5 × 5 columns, 3 s at
// dt = 1 ms with the default contact settings (PGS, box friction, warm starting). Counters:
// µs per step, and at t = 3 s the deepest penetration, the largest box speed, and the boxes
// that fell through the ground or left their column (moved > 2 cm sideways or tilted > 10°).

#include <algorithm>
#include <chrono>
#include <cmath>

#include <benchmark/benchmark.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/math/constants.h"
#include "engine/model/layout.h"
#include "tests/support/contact_scenes.h"

namespace {

using namespace engine;

void runPile(benchmark::State& state, const SceneSpec& spec) {
    const CompileResult compiled = compile(spec);
    if (!compiled.model) {
        state.SkipWithError("scene did not compile");
        return;
    }
    double seconds = 0.0, depth = 0.0, speed = 0.0, iterations = 0.0;
    long steps = 0, unconverged = 0;
    int fell = 0, toppled = 0;
    for (auto _ : state) {
        ForwardDynamics sim(compiled.model);
        if (!sim.initialize().ok) {
            state.SkipWithError("initialisation failed");
            return;
        }
        const auto start = std::chrono::steady_clock::now();
        const Status status = sim.advance(3.0);
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!status.ok) {
            state.SkipWithError(status.message.c_str());
            return;
        }
        steps += sim.statistics().steps;
        Outputs out;
        (void)sim.outputs(out);
        depth = 0.0;
        for (const ContactForce& c : out.contacts) depth = std::max(depth, c.depth);
        iterations = out.contactSolver.iterations;
        unconverged = out.contactSolver.unconvergedSteps;
        speed = 0.0;
        fell = toppled = 0;
        const Eigen::VectorXd& q = sim.state().q;
        for (int b = 0; b < sim.model().bodyCount(); ++b) {
            speed = std::max(speed, layout::linear(sim.state().v, b).norm());
            const Vec3 p = bodyPosition(q, b),
                       p0 = spec.parts[static_cast<std::size_t>(b) + 1].X_WP.p;
            if (p.z() < 0.0) ++fell;
            const double tilt =
                std::acos(std::clamp((bodyOrientation(q, b) * Vec3::UnitZ()).z(), -1.0, 1.0));
            if ((p - p0).head<2>().norm() > 0.02 || tilt > degToRad(10.0)) ++toppled;
        }
    }
    state.counters["us_per_step"] = 1e6 * seconds / static_cast<double>(steps);
    state.counters["max_depth_m"] = depth;
    state.counters["max_speed"] = speed;
    state.counters["fell"] = fell;
    state.counters["toppled"] = toppled;
    state.counters["last_sweeps"] = iterations;
    state.counters["unconverged_steps"] = static_cast<double>(unconverged);
}
void BM_ContactPile(benchmark::State& state) {
    runPile(state, test::boxPile(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_ContactPile)
    ->Arg(25)
    ->Arg(100)
    ->Arg(400)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// One column of pile-K's cubes: how the contact solve carries a load down a stack of k parts.
void BM_ContactStack(benchmark::State& state) {
    runPile(state, test::boxStack(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_ContactStack)->Arg(4)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond)->Iterations(1);

// pile-K with sleeping parts (sleepTime 0.5 s): settled and asleep after 3 s, then timed over
// one more second; with its figures at the end (the pile does not move while it sleeps).
void BM_ContactPileAsleep(benchmark::State& state) {
    SceneSpec spec = test::boxPile(static_cast<int>(state.range(0)));
    spec.contact.sleepTime = 0.5;
    const CompileResult compiled = compile(spec);
    if (!compiled.model) {
        state.SkipWithError("scene did not compile");
        return;
    }
    double seconds = 0.0, depth = 0.0;
    long steps = 0;
    int asleep = 0;
    for (auto _ : state) {
        ForwardDynamics sim(compiled.model);
        if (!sim.initialize().ok || !sim.advance(3.0).ok) {
            state.SkipWithError("the pile did not settle");
            return;
        }
        const long before = sim.statistics().steps;
        const auto start = std::chrono::steady_clock::now();
        const Status status = sim.advance(4.0);
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!status.ok) {
            state.SkipWithError(status.message.c_str());
            return;
        }
        steps += sim.statistics().steps - before;
        asleep = static_cast<int>(std::count_if(sim.state().rest.begin(), sim.state().rest.end(),
                                                [](double rest) { return rest < 0.0; }));
        Outputs out;
        (void)sim.outputs(out);
        depth = 0.0;
        for (const ContactForce& c : out.contacts) depth = std::max(depth, c.depth);
    }
    state.counters["us_per_step"] = 1e6 * seconds / static_cast<double>(steps);
    state.counters["asleep"] = asleep;
    state.counters["max_depth_m"] = depth;
}
BENCHMARK(BM_ContactPileAsleep)->Arg(400)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
