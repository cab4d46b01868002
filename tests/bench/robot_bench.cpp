// Imported robots in both formulations: how much faster than real time a run goes, per
// second simulated (#46's acceptance: the canonical robots faster than real time by a stated
// factor). From tests/data/robots: ANYmal C (URDF, floating base, 12 joints with stops) and
// Unitree Go1 (URDF, floating base, 12 joints with stops and 0.2 N·m of joint friction), each
// dropped 0.1 m onto a floor that their parts touch (but not each other);
// Franka Panda (URDF, bolted down, 7 joints with stops, its fingers coupled) hanging limp
// against its stops. The `real_time` counter is simulated seconds per wall second.

#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/model/model.h"
#include "tests/support/robots.h"

namespace {

using namespace engine;

// Args: the robot (test::Robot), the formulation (0 maximal, 1 joint coordinates). 1 s of motion.
void BM_RobotRealTime(benchmark::State& bench) {
    const int which = static_cast<int>(bench.range(0));
    const bool joints = bench.range(1) == 1;
    std::string error;
    std::optional<SceneSpec> spec = test::robot(static_cast<test::Robot>(which), which == 2, error);
    if (!spec) {
        bench.SkipWithError(error.c_str());
        return;
    }
    spec->settings.formulation = joints ? Formulation::Recursive : Formulation::Maximal;
    const CompileResult compiled = compile(*spec);
    if (!compiled.model) {
        bench.SkipWithError("the robot's scene did not compile");
        return;
    }
    const double seconds = 1.0;
    for (auto _ : bench) {
        ForwardDynamics sim(compiled.model);
        if (sim.formulation().refused) {
            bench.SkipWithError(sim.formulation().reason.c_str());
            return;
        }
        if (Status s = sim.initialize(); !s.ok) {
            bench.SkipWithError(s.message.c_str());
            return;
        }
        if (Status s = sim.advance(seconds); !s.ok) {
            bench.SkipWithError(s.message.c_str());
            return;
        }
        benchmark::DoNotOptimize(sim.state().q.data());
    }
    bench.counters["real_time"] =
        benchmark::Counter(seconds, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_RobotRealTime)
    ->ArgsProduct({{0, 1, 2}, {0, 1}})
    ->ArgNames({"robot", "joints"})
    ->Unit(benchmark::kMillisecond);

}  // namespace
