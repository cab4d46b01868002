#pragma once
// Running forward dynamics: assemble the initial state, then integrate with the model's
// integrator, reporting the state and outputs at every output time. One code path serves the
// CLI, the tests and (later) the simulator thread.

#include <functional>
#include <memory>

#include "engine/analysis/outputs.h"
#include "engine/integrators/integrator.h"

namespace engine {

class ForwardDynamics {
public:
    explicit ForwardDynamics(std::shared_ptr<const Model> model);

    // Prepares the solver and assembles the initial state (Φ = 0, Φq v = ν, by projection in
    // the mass metric). Must succeed before advance().
    Status initialize();
    Status initialize(const State& state);

    // Continues from a state this model produced (a recorded frame), exactly: no assembly.
    void restore(const State& state);
    // Like initialize(state) for a recorded state: prepares the solver, no assembly.
    Status resume(const State& state);

    // Advances to tEnd (one output interval, or several for fixed-step integrators).
    Status advance(double tEnd);

    Status outputs(Outputs& out);
    // The accelerations (v̇_W, ω̇' per body) at the state, as outputs() found them.
    const Eigen::VectorXd& accelerations() const { return ws_.vdot; }

    const State& state() const { return state_; }
    const Model& model() const { return *model_; }
    const KktSolver& solver() const { return ws_.solver; }
    // The constraint solver of the last step is next to a singular position (KktSolver::
    // nearSingular: rows dropped beyond the start's, or a loop's rows within ~6° of depending
    // on each other), whichever solver the integrator steps with.
    bool nearSingular() const {
        const KktSolver* own = integrator_->ownSolver();
        return (own ? *own : ws_.solver).nearSingular();
    }
    // The last step's result (valid after a velocity-level step until the state is set).
    const StepResult& lastStep() const { return ws_.step; }
    const IntegratorStatistics& statistics() const { return integrator_->statistics(); }

private:
    // The solvers' memory into state_ (State::solverMemory), and back from a state.
    void saveSolverMemory();
    void restoreSolverMemory(const State& state);

    std::shared_ptr<const Model> model_;
    State state_;
    Workspace ws_;
    std::unique_ptr<Integrator> integrator_;
};

}  // namespace engine
