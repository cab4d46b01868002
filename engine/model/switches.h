#pragma once
// Switches: what sensors change as a run goes (Model::switches, State::switches) — a held
// variable's value, a force element or a motion switched on or off. The compiled model holds
// the switches' initial values; a run steps with the model whose switches are its state's,
// derived from the compiled one. Only values differ (a force's `on`, a motion's `on`, a held
// variable's constant): the bodies, the rows and their pattern are the same, so the derived
// model keeps the compiled one's serial (the caches keyed on it stay valid), its states and
// recordings are laid out alike, and a switch is a discontinuity the integrator restarts at.

#include <memory>
#include <string>
#include <vector>

namespace engine {

struct Model;

// `base` with `switches` (one per Model::switches slot) applied; `base` itself when they are
// its initial values (or the sizes differ: a state of another model).
std::shared_ptr<const Model> switchedModel(const std::shared_ptr<const Model>& base,
                                           const std::vector<double>& switches);

// What switch slot `slot` reads as, for messages and the timeline: "latch = 1", "force 'brake'
// on", "motion 'drive' off".
std::string switchText(const Model& model, int slot, double value);

}  // namespace engine
