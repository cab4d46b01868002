// Scene set-up: compile, the rank analysis of Φq and the assembly (what `motus-cli check`
// and every GUI edit pay before the first step), on chain-N.

#include <benchmark/benchmark.h>

#include "engine/analysis/forward_dynamics.h"
#include "tests/support/mechanisms.h"

namespace {

void BM_SetupChain(benchmark::State& state) {
    const engine::SceneSpec spec = engine::test::chain(
        static_cast<int>(state.range(0)), engine::IntegratorType::SymplecticEuler, 1e-3);
    for (auto _ : state) {
        const engine::CompileResult compiled = engine::compile(spec);
        engine::ForwardDynamics sim(compiled.model);
        if (!sim.initialize().ok) state.SkipWithError("chain does not assemble");
        benchmark::DoNotOptimize(sim.solver().rank());
    }
}
BENCHMARK(BM_SetupChain)->Arg(100)->Arg(500)->Arg(1000)->Arg(2000)->Unit(benchmark::kMillisecond);

}  // namespace
