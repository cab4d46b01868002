// Chain-N (a tree: every link on one path from the ground) in the two formulations. One
// evaluation of the accelerations: the maximal coordinates' KKT solve (computeAccelerations:
// forces, constraint rows, the block factorisation, the solve) against joint coordinates by the
// articulated-body algorithm (O(n)) and by the mass matrix, factored densely (O(n³) on a chain),
// per link, so an O(n) method reads flat across N. And one whole symplectic step of each, and
// one instant's outputs.

#include <memory>
#include <optional>
#include <string>

#include <benchmark/benchmark.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/dynamics/dynamics.h"
#include "engine/dynamics/joint_space.h"
#include "tests/support/mechanisms.h"

namespace {

using namespace engine;

enum class Method { Maximal, Articulated, MassMatrix };

// Chain-N run 0.2 s by the maximal coordinates (bent and moving), and the same state in joint
// coordinates; `error` says why not.
struct BentChain {
    explicit BentChain(int links) {
        SceneSpec spec = test::chain(links, IntegratorType::SymplecticEuler, 1e-3);
        spec.settings.formulation = Formulation::Maximal;
        const CompileResult compiled = compile(spec);
        spec.settings.formulation = Formulation::Recursive;
        const CompileResult recursive = compile(spec);
        if (!compiled.model || !recursive.model) {
            error = "scene did not compile";
            return;
        }
        model = compiled.model;
        sim = std::make_unique<ForwardDynamics>(model);
        if (!sim->initialize().ok || !sim->advance(0.2).ok) {
            error = "the run failed";
            return;
        }
        start = sim->state();
        joints = std::make_unique<ForwardDynamics>(recursive.model);
        if (!joints->resume(start).ok) {
            error = "the recursive run did not start";
            return;
        }
        tree = buildJointTree(*model, start, error);
        if (!tree) return;
        jointSpaceState(*model, *tree, start, q, qd);
        if (!prepareWorkspace(*model, start, ws).ok) error = "no workspace";
    }
    std::string error;
    std::shared_ptr<const Model> model;
    std::unique_ptr<ForwardDynamics> sim;     // maximal coordinates
    std::unique_ptr<ForwardDynamics> joints;  // the recursive formulation
    State start;
    std::optional<JointTree> tree;
    Eigen::VectorXd q, qd;
    Workspace ws;
};

void evaluate(benchmark::State& bench, Method method) {
    const int links = static_cast<int>(bench.range(0));
    BentChain chain(links);
    if (!chain.error.empty()) {
        bench.SkipWithError(chain.error.c_str());
        return;
    }
    const Model& model = *chain.model;
    const State& state = chain.start;
    const JointTree& tree = *chain.tree;
    Workspace& ws = chain.ws;
    Eigen::VectorXd qdd;
    for (auto _ : bench) {
        Status s;
        switch (method) {
        case Method::Maximal:
            s = computeAccelerations(model, state.t, state.q, state.v, state.jointCoordinates,
                                     state.lagged, ws);
            benchmark::DoNotOptimize(ws.vdot.data());
            break;
        case Method::Articulated:
            s = articulatedAccelerations(model, tree, state.t, chain.q, chain.qd, state, ws, qdd);
            benchmark::DoNotOptimize(qdd.data());
            break;
        case Method::MassMatrix:
            s = jointSpaceAccelerations(model, tree, state.t, chain.q, chain.qd, state, ws, qdd);
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

// One symplectic Euler step of chain-N at 1e-3 s, the run going on from the same bent, moving
// state: the maximal coordinates' whole step (ForwardDynamics::advance: forces, the impulse
// iterations until the joints hold, projection, joint coordinates) against the recursive
// formulation's (the same call: the joint coordinates from the bodies' state, one articulated
// evaluation, q̇ and q updated, the bodies' state from them; nothing to hold).
void step(benchmark::State& bench, bool jointSpace, bool withOutputs = false) {
    BentChain chain(static_cast<int>(bench.range(0)));
    if (!chain.error.empty()) {
        bench.SkipWithError(chain.error.c_str());
        return;
    }
    ForwardDynamics& sim = jointSpace ? *chain.joints : *chain.sim;
    const State& start = chain.start;
    // Back to the start every 0.2 s of run: the same stretch of motion timed over and over.
    double t = start.t;
    Outputs out;
    long steps = 0;
    for (auto _ : bench) {
        if (++steps % 200 == 0) {
            bench.PauseTiming();
            sim.restore(start);
            t = start.t;
            bench.ResumeTiming();
        }
        Status s = sim.advance(t + 1e-3);
        t += 1e-3;
        if (s.ok && withOutputs) {
            s = sim.outputs(out);
            benchmark::DoNotOptimize(out.reactions.data());
        }
        if (!s.ok) {
            bench.SkipWithError(s.message.c_str());
            return;
        }
    }
}

void BM_ChainStepMaximal(benchmark::State& s) {
    step(s, false);
}
void BM_ChainStepJointSpace(benchmark::State& s) {
    step(s, true);
}

// The outputs of one instant of chain-N (ForwardDynamics::outputs: reactions, efforts,
// coordinates, energies, as a run records them at every output): the maximal coordinates' KKT
// solve for the multipliers against what the joints transmit by the recursive Newton–Euler
// pass in a run in joint coordinates.
void outputs(benchmark::State& bench, bool jointSpace) {
    BentChain chain(static_cast<int>(bench.range(0)));
    if (!chain.error.empty()) {
        bench.SkipWithError(chain.error.c_str());
        return;
    }
    ForwardDynamics& sim = jointSpace ? *chain.joints : *chain.sim;
    sim.restore(chain.start);
    Outputs out;
    for (auto _ : bench) {
        const Status s = sim.outputs(out);
        benchmark::DoNotOptimize(out.reactions.data());
        if (!s.ok) {
            bench.SkipWithError(s.message.c_str());
            return;
        }
    }
}

// A step and its outputs, as a run that outputs every step (the default) goes.
void BM_ChainStepOutputsMaximal(benchmark::State& s) {
    step(s, false, true);
}
void BM_ChainStepOutputsJointSpace(benchmark::State& s) {
    step(s, true, true);
}

void BM_ChainOutputsMaximal(benchmark::State& s) {
    outputs(s, false);
}
void BM_ChainOutputsJointSpace(benchmark::State& s) {
    outputs(s, true);
}

BENCHMARK(BM_ChainOutputsMaximal)->Arg(16)->Arg(64)->Arg(256);
BENCHMARK(BM_ChainOutputsJointSpace)->Arg(16)->Arg(64)->Arg(256);
BENCHMARK(BM_ChainStepOutputsMaximal)->Arg(16)->Arg(64)->Arg(256);
BENCHMARK(BM_ChainStepOutputsJointSpace)->Arg(16)->Arg(64)->Arg(256);

BENCHMARK(BM_ChainStepMaximal)->Arg(16)->Arg(64)->Arg(256);
BENCHMARK(BM_ChainStepJointSpace)->Arg(16)->Arg(64)->Arg(256)->Arg(1024);

BENCHMARK(BM_ChainAccelerationsMaximal)->Arg(16)->Arg(64)->Arg(256)->Arg(1024);
BENCHMARK(BM_ChainAccelerationsArticulated)->Arg(16)->Arg(64)->Arg(256)->Arg(1024);
BENCHMARK(BM_ChainAccelerationsMassMatrix)->Arg(16)->Arg(64)->Arg(256);

}  // namespace
