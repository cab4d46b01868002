#include "engine/analysis/forward_dynamics.h"

#include <algorithm>

namespace engine {

ForwardDynamics::ForwardDynamics(std::shared_ptr<const Model> model)
    : model_(std::move(model)), integrator_(makeIntegrator(model_->settings)) {}

Status ForwardDynamics::initialize() { return initialize(initialState(*model_)); }

Status ForwardDynamics::initialize(const State& state) {
    state_ = state;
    integrator_->reset();
    ws_.stepResultsValid = false;
    if (Status s = prepareWorkspace(*model_, state_, ws_); !s.ok) return s;
    if (Status s = projectState(*model_, state_, ws_); !s.ok)
        return Status::failure("the mechanism cannot be assembled: " + s.message);
    return {};
}

Status ForwardDynamics::resume(const State& state) {
    state_ = state;
    integrator_->reset();
    ws_.stepResultsValid = false;
    return prepareWorkspace(*model_, state_, ws_);
}

void ForwardDynamics::restore(const State& state) {
    state_ = state;
    integrator_->reset();
    ws_.stepResultsValid = false;
    ws_.factored = false;
}

Status ForwardDynamics::advance(double tEnd) {
    // Nothing moves in a scene of ground alone (what File > New makes): time just passes.
    if (model_->velocitySize() == 0) {
        state_.t = std::max(state_.t, tEnd);
        return {};
    }
    return integrator_->advance(*model_, state_, ws_, tEnd);
}

Status ForwardDynamics::outputs(Outputs& out) { return computeOutputs(*model_, state_, ws_, out); }

}  // namespace engine
