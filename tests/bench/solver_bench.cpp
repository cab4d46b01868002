// The KKT solve alone, block factorisation (engine/solver/block_ldlt.h) against a dense one, on
// the Jacobians of the four-bar and chain-N at their assembled start: what a step pays for one
// factorisation of S = Φ M⁻¹ Φᵀ over the rows kept and one solve with it. Decides whether small
// mechanisms gain from a dense path (docs/performance.md).

#include <benchmark/benchmark.h>
#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "engine/analysis/forward_dynamics.h"
#include "tests/support/mechanisms.h"

namespace {

using namespace engine;

struct System {
    SparseRowMatrix Phi_q;
    Eigen::VectorXd Minv;
    std::vector<int> active;
};

System systemOf(const SceneSpec& spec) {
    const CompileResult compiled = compile(spec);
    ForwardDynamics sim(compiled.model);
    (void)sim.initialize();
    Workspace ws;
    (void)prepareWorkspace(*compiled.model, sim.state(), ws);
    return {ws.constraints.Phi_q, ws.Minv, ws.solver.activeRows()};
}

SceneSpec sceneOf(int n) {
    return n == 0 ? test::fourBar(IntegratorType::SymplecticEuler, 1e-3)
                  : test::chain(n, IntegratorType::SymplecticEuler, 1e-3);
}

// range(0): 0 for the four-bar, else the chain's links.
void BM_KktBlock(benchmark::State& state) {
    const System s = systemOf(sceneOf(static_cast<int>(state.range(0))));
    BlockLdlt ldlt;
    ldlt.analyze(s.Phi_q, s.active);
    const Eigen::VectorXd r = Eigen::VectorXd::Ones(s.Phi_q.rows());
    Eigen::VectorXd x, mu = Eigen::VectorXd::Zero(s.Phi_q.rows());
    for (auto _ : state) {
        ldlt.factor(s.Phi_q, s.Minv);
        ldlt.correct(r, x, &mu);
        benchmark::DoNotOptimize(x.data());
    }
    state.counters["rows"] = static_cast<double>(s.active.size());
}
BENCHMARK(BM_KktBlock)->Arg(0)->Arg(4)->Arg(16)->Arg(64);

// Dense: the rows kept gathered into a dense Φr, S = Φr M⁻¹ Φrᵀ, Cholesky, one solve.
void BM_KktDense(benchmark::State& state) {
    const System s = systemOf(sceneOf(static_cast<int>(state.range(0))));
    const auto n = static_cast<Eigen::Index>(s.active.size());
    const Eigen::Index columns = s.Phi_q.cols();
    Eigen::MatrixXd J(n, columns), JM(n, columns), S(n, n);
    Eigen::LLT<Eigen::MatrixXd> llt(n);
    const Eigen::VectorXd r = Eigen::VectorXd::Ones(n);
    Eigen::VectorXd mu(n), x(columns);
    for (auto _ : state) {
        J.setZero();
        for (Eigen::Index k = 0; k < n; ++k)
            for (SparseRowMatrix::InnerIterator it(s.Phi_q, s.active[static_cast<std::size_t>(k)]);
                 it; ++it)
                J(k, it.col()) = it.value();
        JM.noalias() = J * s.Minv.asDiagonal();
        S.noalias() = JM * J.transpose();
        llt.compute(S);
        mu = llt.solve(r);
        x.noalias() = -JM.transpose() * mu;
        benchmark::DoNotOptimize(x.data());
    }
    state.counters["rows"] = static_cast<double>(n);
}
BENCHMARK(BM_KktDense)->Arg(0)->Arg(4)->Arg(16)->Arg(64);

}  // namespace
