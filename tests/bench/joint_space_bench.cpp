// One evaluation of the accelerations of chain-N (a tree: every link on one path from the
// ground), in the two formulations: the maximal coordinates' KKT solve (computeAccelerations:
// forces, constraint rows, the block factorisation, the solve) against joint coordinates by the
// articulated-body algorithm (O(n)) and by the mass matrix, factored densely (O(n³) on a chain).
// Per link, so an O(n) method reads flat across N.

#include <string>

#include <benchmark/benchmark.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/dynamics/dynamics.h"
#include "engine/dynamics/joint_space.h"
#include "tests/support/mechanisms.h"

namespace {

using namespace engine;

enum class Method { Maximal, Articulated, MassMatrix };

void evaluate(benchmark::State& bench, Method method) {
    const int links = static_cast<int>(bench.range(0));
    const CompileResult compiled =
        compile(test::chain(links, IntegratorType::SymplecticEuler, 1e-3));
    if (!compiled.model) {
        bench.SkipWithError("scene did not compile");
        return;
    }
    const Model& model = *compiled.model;
    ForwardDynamics sim(compiled.model);
    if (!sim.initialize().ok || !sim.advance(0.2).ok) {  // a moving, bent chain
        bench.SkipWithError("the run failed");
        return;
    }
    const State& state = sim.state();
    std::string why;
    const std::optional<JointTree> tree = buildJointTree(model, state, why);
    if (!tree) {
        bench.SkipWithError(why.c_str());
        return;
    }
    Eigen::VectorXd q, qd, qdd;
    jointSpaceState(model, *tree, state, q, qd);
    Workspace ws;
    if (!prepareWorkspace(model, state, ws).ok) {
        bench.SkipWithError("no workspace");
        return;
    }
    for (auto _ : bench) {
        Status s;
        switch (method) {
        case Method::Maximal:
            s = computeAccelerations(model, state.t, state.q, state.v, state.jointCoordinates,
                                     state.lagged, ws);
            benchmark::DoNotOptimize(ws.vdot.data());
            break;
        case Method::Articulated:
            s = articulatedAccelerations(model, *tree, state.t, q, qd, state, ws, qdd);
            benchmark::DoNotOptimize(qdd.data());
            break;
        case Method::MassMatrix:
            s = jointSpaceAccelerations(model, *tree, state.t, q, qd, state, ws, qdd);
            benchmark::DoNotOptimize(qdd.data());
            break;
        }
        if (!s.ok) {
            bench.SkipWithError(s.message.c_str());
            return;
        }
    }
    bench.counters["per_link"] = benchmark::Counter(
        static_cast<double>(links),
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_ChainAccelerationsMaximal(benchmark::State& s) {
    evaluate(s, Method::Maximal);
}
void BM_ChainAccelerationsArticulated(benchmark::State& s) {
    evaluate(s, Method::Articulated);
}
void BM_ChainAccelerationsMassMatrix(benchmark::State& s) {
    evaluate(s, Method::MassMatrix);
}

BENCHMARK(BM_ChainAccelerationsMaximal)->Arg(16)->Arg(64)->Arg(256)->Arg(1024);
BENCHMARK(BM_ChainAccelerationsArticulated)->Arg(16)->Arg(64)->Arg(256)->Arg(1024);
BENCHMARK(BM_ChainAccelerationsMassMatrix)->Arg(16)->Arg(64)->Arg(256);

}  // namespace
