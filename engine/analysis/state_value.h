#pragma once
// The value of an expression of time and the state (a force's, a variable's, a sensor's) at a
// state of a run: what the expression editor shows for the frame on screen. The expression is
// read against `spec` as the scene's own expressions are (its measures, variables — held ones
// at the state's values — and design variables), and evaluated at `state`, which must be a
// state of a model compiled from `spec` (the same parts, joints and switches). Reactions and
// contact forces are those of the previous step the state keeps (State::lagged); one that no
// expression of the scene reads is not kept: the solve at the state gives it.

#include <optional>
#include <string>

namespace engine {

struct SceneSpec;
struct State;

// The value, or nullopt with the reason in `error` (the text does not parse, the scene does not
// compile, the state is of another mechanism).
std::optional<double> stateExpressionValue(const SceneSpec& spec, const State& state,
                                           const std::string& text, std::string& error);

}  // namespace engine
