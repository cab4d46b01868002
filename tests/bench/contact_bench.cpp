// BENCHMARKS.md pile-K: K cubes dropped 1 cm onto the ground in 5 × 5 columns, 3 s at
// dt = 1 ms with the default contact settings (PGS, box friction, warm starting). Counters:
// µs per step and the share of it in collision queries, and at t = 3 s the deepest
// penetration, the largest box speed, and the boxes that fell through the ground or left their
// column (moved > 2 cm sideways or tilted > 10°). With them, core_round_trip_ns: what one cache
// line passed from one thread to another and back cost as the run ended.

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include <benchmark/benchmark.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/math/constants.h"
#include "engine/model/layout.h"
#include "engine/solver/worker_pool.h"
#include "tests/support/contact_scenes.h"

namespace {

using namespace engine;

// Advances `sim` to t, adding the wall time to `seconds`; false (the benchmark told) on an error.
bool timedAdvance(benchmark::State& state, ForwardDynamics& sim, double t, double& seconds) {
    const auto start = std::chrono::steady_clock::now();
    const Status status = sim.advance(t);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!status.ok) state.SkipWithError(status.message.c_str());
    return status.ok;
}

double deepest(const Outputs& out) {
    double depth = 0.0;
    for (const ContactForce& c : out.contacts) depth = std::max(depth, c.depth);
    return depth;
}

// A run's time, steps and time in each phase of the step, over the benchmark's iterations.
struct Totals {
    double seconds = 0.0, collision = 0.0;
    long steps = 0;
    // (IntegratorStatistics: the ordering, assembly, solve, integration, finish)
    std::array<double, 5> phases{};
    // What a simulation spent from `before` to `after` added.
    void add(const IntegratorStatistics& after, const IntegratorStatistics& before = {}) {
        steps += after.steps - before.steps;
        collision += after.collisionSeconds - before.collisionSeconds;
        const auto of = [](const IntegratorStatistics& s) {
            return std::array<double, 5>{s.orderingSeconds, s.assemblySeconds, s.solveSeconds,
                                         s.integrationSeconds, s.finishSeconds};
        };
        const std::array<double, 5> a = of(after), b = of(before);
        for (std::size_t k = 0; k < phases.size(); ++k) phases[k] += a[k] - b[k];
    }
};

// sim from its start to t, timed, into the totals; false (the benchmark skipped) on an error.
bool runFromStart(benchmark::State& state, ForwardDynamics& sim, double t, Totals& totals) {
    if (!sim.initialize().ok) {
        state.SkipWithError("initialisation failed");
        return false;
    }
    if (!timedAdvance(state, sim, t, totals.seconds)) return false;
    totals.add(sim.statistics());
    return true;
}

// What one cache line passed from one thread to another and back costs now, in ns (0 with one
// hardware thread), over at most 20,000 trips or 0.2 s. Runs on two threads share their parts'
// data between the cores, and what that costs changes with where the host puts the two vCPUs:
// 110–170 ns and 440–600 ns within one hour on this machine (docs/performance.md), the same
// binary's pile-400 1.38–1.75× faster on two threads than on one across such windows.
double coreRoundTripNs() {
    if (std::thread::hardware_concurrency() < 2) return 0.0;
    constexpr int kTrips = 20000;
    struct alignas(64) Line {
        std::atomic<int> value{0};
    } line;
    std::atomic<bool> stop{false};
    std::thread other([&] {
        for (int i = 0; i < kTrips; ++i) {
            while (line.value.load(std::memory_order_acquire) != 2 * i + 1)
                if (stop.load(std::memory_order_relaxed)) return;
            line.value.store(2 * i + 2, std::memory_order_release);
        }
    });
    const auto start = std::chrono::steady_clock::now();
    const auto late = start + std::chrono::milliseconds(200);
    int trips = 0;
    for (; trips < kTrips; ++trips) {
        line.value.store(2 * trips + 1, std::memory_order_release);
        long spins = 0;
        while (line.value.load(std::memory_order_acquire) != 2 * trips + 2)
            if (++spins % 4096 == 0 && std::chrono::steady_clock::now() > late) break;
        if (line.value.load(std::memory_order_acquire) != 2 * trips + 2) break;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stop.store(true);
    other.join();
    return trips > 0 ? 1e9 * seconds / trips : 0.0;
}

// us_per_step and collision_share; each phase's µs a step (collision_us, order_us — the points
// by island and height —, assemble_us — forces, v*, rows —, solve_us, integrate_us, finish_us —
// the joints' projection, sleeping, the record —): which of them a second thread shortens.
void reportTotals(benchmark::State& state, const Totals& totals) {
    const double steps = static_cast<double>(std::max(totals.steps, 1L));
    state.counters["us_per_step"] = 1e6 * totals.seconds / steps;
    state.counters["collision_share"] = totals.collision / totals.seconds;
    state.counters["collision_us"] = 1e6 * totals.collision / steps;
    constexpr std::array<const char*, 5> kPhases = {"order_us", "assemble_us", "solve_us",
                                                    "integrate_us", "finish_us"};
    for (std::size_t k = 0; k < kPhases.size(); ++k)
        state.counters[kPhases[k]] = 1e6 * totals.phases[k] / steps;
    state.counters["core_round_trip_ns"] = coreRoundTripNs();
}

int partsAsleep(const ForwardDynamics& sim) {
    return static_cast<int>(std::count_if(sim.state().rest.begin(), sim.state().rest.end(),
                                          [](double rest) { return rest < 0.0; }));
}

// The scene run to t = 3 s (settled), then timed to 4 s into `totals` (steps and collision time
// of that second alone); `atEnd` reads the simulation at 4 s. False (the benchmark skipped) on
// an error.
template <class AtEnd>
bool settledThenTimed(benchmark::State& state, const SceneSpec& spec, Totals& totals,
                      AtEnd&& atEnd) {
    const CompileResult compiled = compile(spec);
    if (!compiled.model) {
        state.SkipWithError("scene did not compile");
        return false;
    }
    for (auto _ : state) {
        ForwardDynamics sim(compiled.model);
        if (!sim.initialize().ok || !sim.advance(3.0).ok) {
            state.SkipWithError("the scene did not settle");
            return false;
        }
        const IntegratorStatistics before = sim.statistics();
        if (!timedAdvance(state, sim, 4.0, totals.seconds)) return false;
        totals.add(sim.statistics(), before);
        atEnd(sim);
    }
    return true;
}

// (`cubes`: the figures of the first so many bodies, the pile's; −1: every body)
void runPile(benchmark::State& state, const SceneSpec& spec, int cubes = -1) {
    const CompileResult compiled = compile(spec);
    if (!compiled.model) {
        state.SkipWithError("scene did not compile");
        return;
    }
    Totals totals;
    double depth = 0.0, speed = 0.0, iterations = 0.0;
    long unconverged = 0;
    int fell = 0, toppled = 0;
    for (auto _ : state) {
        ForwardDynamics sim(compiled.model);
        if (!runFromStart(state, sim, 3.0, totals)) return;
        Outputs out;
        (void)sim.outputs(out);
        depth = deepest(out);
        iterations = out.contactSolver.iterations;
        unconverged = out.contactSolver.unconvergedSteps;
        speed = 0.0;
        fell = toppled = 0;
        const Eigen::VectorXd& q = sim.state().q;
        for (int b = 0; b < (cubes < 0 ? sim.model().bodyCount() : cubes); ++b) {
            speed = std::max(speed, layout::linear(sim.state().v, b).norm());
            const Vec3 p = bodyPosition(q, b),
                       p0 = spec.parts[static_cast<std::size_t>(b) + 1].X_WP.p;
            if (p.z() < 0.0) ++fell;
            const double tilt =
                std::acos(std::clamp((bodyOrientation(q, b) * Vec3::UnitZ()).z(), -1.0, 1.0));
            if ((p - p0).head<2>().norm() > 0.02 || tilt > degToRad(10.0)) ++toppled;
        }
    }
    reportTotals(state, totals);
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

// Two worlds of one scene stepped side by side: each millisecond, the step of each is one task
// of a run (runTasks), so that with two threads each core steps its own world from start to
// end — no data shared, one hand-out a step. It is the step of a perfectly partitioned problem:
// what two threads can give the scene on this machine at this moment at most, measured beside
// the scene's own benchmark (us_per_step: a world's step, the round's time halved). The two
// worlds must end the same bit for bit (worlds_differ: 0). Args: the scene (0: pile-K,
// BM_ContactPile; 1: scatter-K awake, BM_ContactScatter/parts:K/sleep:0) and K. Two worlds
// double the data the cores' shared cache holds: two scatter-5,000 side by side hold what one
// scatter-10,000 split between the cores would (their round: that split world's step).
void BM_ContactSideBySide(benchmark::State& state) {
    const int count = static_cast<int>(state.range(1));
    const CompileResult compiled =
        compile(state.range(0) == 0 ? test::boxPile(count) : test::scatter(count));
    if (!compiled.model) {
        state.SkipWithError("scene did not compile");
        return;
    }
    double seconds = 0.0;
    long steps = 0;
    bool differ = false;
    for (auto _ : state) {
        ForwardDynamics a(compiled.model), b(compiled.model);
        ForwardDynamics* worlds[2] = {&a, &b};
        if (!a.initialize().ok || !b.initialize().ok) {
            state.SkipWithError("initialisation failed");
            return;
        }
        bool ok[2] = {true, true};
        const auto start = std::chrono::steady_clock::now();
        for (int k = 1; k <= 3000 && ok[0] && ok[1]; ++k)
            runTasks(2, [&](int w) { ok[w] = worlds[w]->advance(1e-3 * k).ok; });
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!ok[0] || !ok[1]) {
            state.SkipWithError("a world's step failed");
            return;
        }
        steps += a.statistics().steps;
        differ = differ || a.state().q != b.state().q || a.state().v != b.state().v;
    }
    state.counters["us_per_step"] = 1e6 * seconds / (2.0 * static_cast<double>(steps));
    state.counters["worlds_differ"] = differ ? 1 : 0;
}
BENCHMARK(BM_ContactSideBySide)
    ->ArgNames({"scene", "parts"})
    ->Args({0, 400})
    ->Args({1, 5000})
    ->Args({1, 10000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// pile-K beside a mechanism that never touches it: a chain of three capsules on spherical joints
// lying on the floor 0.75 m away (test::chainThroughPile, its tractor standing). Its joints put
// the whole contact problem in row space (each row's response through the joints); the
// counters are the pile's, as pile-K's.
void BM_ContactPileBesideAChain(benchmark::State& state) {
    const int boxes = static_cast<int>(state.range(0));
    runPile(state, test::chainThroughPile(3, boxes, 0.0), boxes);
}
BENCHMARK(BM_ContactPileBesideAChain)
    ->Arg(100)
    ->Arg(400)
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
    Totals totals;
    double depth = 0.0;
    int asleep = 0;
    if (!settledThenTimed(state, spec, totals, [&](ForwardDynamics& sim) {
            asleep = partsAsleep(sim);
            Outputs out;
            (void)sim.outputs(out);
            depth = deepest(out);
        }))
        return;
    state.counters["us_per_step"] = 1e6 * totals.seconds / static_cast<double>(totals.steps);
    state.counters["asleep"] = asleep;
    state.counters["max_depth_m"] = depth;
}
BENCHMARK(BM_ContactPileAsleep)->Arg(400)->Unit(benchmark::kMillisecond)->Iterations(1);

// A scene run from rest for `seconds`: µs per step and the collision share, and at its end the
// contact points, the steps whose contact solve did not converge, the deepest penetration, the
// largest speed and the parts below the floor; `atEnd` adds its own.
template <typename AtEnd>
void runLanding(benchmark::State& state, const SceneSpec& spec, double seconds, AtEnd&& atEnd) {
    const CompileResult compiled = compile(spec);
    if (!compiled.model) {
        state.SkipWithError("scene did not compile");
        return;
    }
    Totals totals;
    for (auto _ : state) {
        ForwardDynamics sim(compiled.model);
        if (!runFromStart(state, sim, seconds, totals)) return;
        Outputs out;
        (void)sim.outputs(out);
        state.counters["contacts"] = static_cast<double>(out.contacts.size());
        state.counters["unconverged_steps"] =
            static_cast<double>(out.contactSolver.unconvergedSteps);
        state.counters["max_depth_m"] = deepest(out);
        double speed = 0.0;
        int fell = 0;
        for (int b = 0; b < sim.model().bodyCount(); ++b) {
            speed = std::max(speed, layout::linear(sim.state().v, b).norm());
            if (bodyPosition(sim.state().q, b).z() < 0.0) ++fell;
        }
        state.counters["max_speed"] = speed;
        state.counters["fell"] = fell;
        atEnd(sim);
    }
    reportTotals(state, totals);
}

// A scatter of K parts of four shapes (cubes, balls, capsules, cylinders; test::scatter) dropped
// onto the floor from two layers, 3 s at dt = 1 ms; Arg 2 sleeping (sleepTime 0.5 s) off or on.
// Counters: µs per step and the share of it spent in collision queries, and at t = 3 s the
// deepest penetration, the largest speed, the parts asleep and the parts below the floor, the
// contact points and the steps whose contact solve did not converge.
void BM_ContactScatter(benchmark::State& state) {
    SceneSpec spec = test::scatter(static_cast<int>(state.range(0)));
    if (state.range(1) == 1) spec.contact.sleepTime = 0.5;
    runLanding(state, spec, 3.0,
               [&](ForwardDynamics& sim) { state.counters["asleep"] = partsAsleep(sim); });
}
BENCHMARK(BM_ContactScatter)
    ->ArgsProduct({{1000, 10000}, {0, 1}})
    ->ArgNames({"parts", "sleep"})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// A heap of K rocks (test::rockHeap: convex meshes of 42 corners) falling onto the floor and one
// another, 1 s at dt = 1 ms: hull against hull (counters: runLanding's).
void BM_ContactRocks(benchmark::State& state) {
    runLanding(state, test::rockHeap(static_cast<int>(state.range(0))), 1.0,
               [](ForwardDynamics&) {});
}
BENCHMARK(BM_ContactRocks)->Arg(200)->Arg(1000)->Unit(benchmark::kMillisecond)->Iterations(1);

// The scatter of K parts settled (3 s), then timed over one more second with sleeping off or on
// (sleepTime 0.5 s: by then ~90 % of the parts asleep, the cylinders and balls still rolling
// awake): what parts at rest cost beside moving ones. Counters: µs per step and the collision
// share over that second, the parts asleep at its end.
void BM_ContactScatterSettled(benchmark::State& state) {
    SceneSpec spec = test::scatter(static_cast<int>(state.range(0)));
    if (state.range(1) == 1) spec.contact.sleepTime = 0.5;
    Totals totals;
    int asleep = 0;
    if (!settledThenTimed(state, spec, totals,
                          [&](ForwardDynamics& sim) { asleep = partsAsleep(sim); }))
        return;
    reportTotals(state, totals);
    state.counters["asleep"] = asleep;
}
BENCHMARK(BM_ContactScatterSettled)
    ->ArgsProduct({{1000, 10000}, {0, 1}})
    ->ArgNames({"parts", "sleep"})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// A chain of 30 capsules on spherical joints pulled at 1 m/s by its head through pile-100 (4
// layers of 25 cubes; test::chainThroughPile), 4 s at dt = 1 ms: joints and contact in one
// problem. Counters: µs per step and its collision share, the largest gap opened at a joint over
// the run (sampled every 10 ms), the deepest penetration, the cubes below the floor.
void BM_ChainThroughPile(benchmark::State& state) {
    const int links = static_cast<int>(state.range(0)), boxes = static_cast<int>(state.range(1));
    const SceneSpec spec = test::chainThroughPile(links, boxes);
    const CompileResult compiled = compile(spec);
    if (!compiled.model) {
        state.SkipWithError("scene did not compile");
        return;
    }
    const Model& model = *compiled.model;
    // Each joint's two points in its parts' frames (I on the leader, J on the follower).
    std::vector<std::array<int, 2>> bodies;
    std::vector<std::array<Vec3, 2>> points;
    for (const Joint& joint : spec.joints) {
        std::array<int, 2> b{};
        std::array<Vec3, 2> p;
        for (int end = 0; end < 2; ++end) {
            const MarkerRef& ref = end == 0 ? joint.markerI : joint.markerJ;
            const std::size_t part = static_cast<std::size_t>(
                std::find_if(spec.parts.begin(), spec.parts.end(),
                             [&](const Part& x) { return x.name == ref.part; }) -
                spec.parts.begin());
            b[static_cast<std::size_t>(end)] = model.parts[part].body;
            p[static_cast<std::size_t>(end)] =
                model.parts[part].X_BP *
                std::find_if(spec.parts[part].markers.begin(), spec.parts[part].markers.end(),
                             [&](const Marker& m) { return m.name == ref.marker; })
                    ->X_PM.p;
        }
        bodies.push_back(b);
        points.push_back(p);
    }
    Totals totals;
    double gap = 0.0, depth = 0.0;
    int fell = 0;
    for (auto _ : state) {
        ForwardDynamics sim(compiled.model);
        if (!sim.initialize().ok) {
            state.SkipWithError("initialisation failed");
            return;
        }
        gap = 0.0;
        for (int sample = 1; sample <= 400; ++sample) {
            if (!timedAdvance(state, sim, 0.01 * sample, totals.seconds)) return;
            const Eigen::VectorXd& q = sim.state().q;
            for (std::size_t j = 0; j < bodies.size(); ++j) {
                Vec3 world[2];
                for (std::size_t end = 0; end < 2; ++end) {
                    const int b = bodies[j][end];
                    world[end] =
                        b == kGround
                            ? points[j][end]
                            : Vec3(bodyPosition(q, b) + bodyOrientation(q, b) * points[j][end]);
                }
                if (bodies[j][0] == kGround || bodies[j][1] == kGround) continue;
                gap = std::max(gap, (world[0] - world[1]).norm());
            }
        }
        totals.add(sim.statistics());
        Outputs out;
        (void)sim.outputs(out);
        depth = deepest(out);
        fell = 0;
        for (int b = 0; b < model.bodyCount(); ++b)
            if (bodyPosition(sim.state().q, b).z() < 0.0) ++fell;
    }
    reportTotals(state, totals);
    state.counters["max_joint_gap_m"] = gap;
    state.counters["max_depth_m"] = depth;
    state.counters["fell"] = fell;
}
BENCHMARK(BM_ChainThroughPile)
    ->Args({30, 100})
    ->ArgNames({"links", "boxes"})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
