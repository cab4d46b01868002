#pragma once
// Running forward dynamics: assemble the initial state, then integrate with the model's
// integrator, reporting the state and outputs at every output time. One code path serves the
// CLI, the tests and (later) the simulator thread.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/analysis/outputs.h"
#include "engine/integrators/integrator.h"

namespace engine {

// A sensor's crossing (Model::sensors), found as the run went.
struct SensorModel;

struct SensorEvent {
    int sensor = 0;     // index into Model::sensors
    double time = 0.0;  // the instant it crossed its level [s]
};

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

    // Advances to tEnd (one output interval, or several for fixed-step integrators). With
    // sensors, the run is watched every millisecond (at every step of a fixed-step method);
    // a crossing is located (dopri45: to 1e-12 s on its continuous extension; fixed steps:
    // interpolated between the two steps around it) and recorded in sensorEvents(); a sensor
    // that stops ends the advance there, stoppedBy() naming it (the state at its instant, or
    // at the step after it for fixed steps).
    Status advance(double tEnd);
    const std::vector<SensorEvent>& sensorEvents() const { return sensorEvents_; }
    // The event that ended the last advance(), or null when it ran to its end.
    const SensorEvent* stoppedBy() const { return stopped_ ? &sensorEvents_.back() : nullptr; }

    // Sets the held variable in switch slot `slot` (Model::switches, SwitchKind::Held) to
    // `value` between two advances, as a sensor that sets it would: an input fed from outside
    // the run (a controller's command read by a force's expression). The integrator starts
    // afresh from the state: the input is a step.
    Status setHeld(int slot, double value);
    // Wakes every sleeping part (State::rest; ContactSettings::sleepTime): the run goes on
    // from where they slept, stepping them again until they have rested for the sleep time.
    void wake();

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
    // The same confirmed where only the geometry counts (KktSolver::singularPositionNear): what
    // a run's statistics count as a singular position passed.
    bool singularPositionNear() const {
        const KktSolver* own = integrator_->ownSolver();
        return (own ? *own : ws_.solver).singularPositionNear();
    }
    // The last step's result (valid after a velocity-level step until the state is set).
    const StepResult& lastStep() const { return ws_.step; }
    const IntegratorStatistics& statistics() const { return integrator_->statistics(); }
    // The coordinates the run steps in, and why (chooseFormulation; a fully driven mechanism's
    // are maximal).
    const FormulationChoice& formulation() const { return formulation_; }

private:
    // The solvers' memory into state_ (State::solverMemory), and back from a state.
    void saveSolverMemory();
    void restoreSolverMemory(const State& state);

    Status integrate(double tEnd);  // advance() without sensors
    // Cables over pulleys with friction at the state: a gripping one slips where one side pulls
    // more than e^{μθ} times the other, a slipping one grips where its slip would turn back
    // (State::switches), the model switched to it.
    void settleSlip();
    // What a sensor that crossed does besides being recorded: a held variable set, a force or a
    // motion switched (the run's model then derived anew: switchedModel); stops are advance()'s.
    Status act(const SensorModel& sensor);
    // Each sensor's expression less its level at the current state; a failure when one is not
    // a number.
    Status sensorLevels(std::vector<double>& levels);

    std::shared_ptr<const Model> base_;   // as compiled: the switches' initial values
    std::shared_ptr<const Model> model_;  // base_ with the state's switches (State::switches)
    // Of the model's structure, which switches leave alone: whether its joints close a loop
    // (hasClosedLoops) and the length of State::solverMemory (solverMemorySize).
    bool loops_ = false;
    int memorySize_ = 0;
    int stepperMemorySize_ = 0;  // its last part: LoopStepper::memorySize
    std::vector<SensorEvent> sensorEvents_;
    bool stopped_ = false;
    State state_;
    Workspace ws_;
    FormulationChoice formulation_;
    std::unique_ptr<Integrator> integrator_;
    // A run in joint coordinates: the tree its outputs read what the joints transmit from,
    // for the model of serial outputTreeSerial_.
    std::shared_ptr<const JointTree> outputTree_;
    std::uint64_t outputTreeSerial_ = 0;
};

}  // namespace engine
