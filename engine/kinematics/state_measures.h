#pragma once
// The values of what force expressions read of the mechanism's state (Model::measures and
// Model::variables, engine/model/state_functions.h) at one instant.

#include <vector>

#include <Eigen/Core>

#include "engine/kinematics/kinematics.h"

namespace engine {

class Expression;
struct MeasureModel;

// One measure from the body frames; q's angle unwound from `jointCoordinates` (the last known
// coordinates, State::jointCoordinates) when they are given; a lagged measure (a reaction, a
// contact force) is `lagged`'s value (State::lagged; 0 when not given), a constant. For double
// and for Dual frames (engine/math/dual.h: the measure's derivative along their tangents,
// exact).
template <class S>
S measureValue(const Model& model, const MeasureModel& measure,
               const std::vector<BodyFrameOf<S>>& frames, const Eigen::VectorXd& jointCoordinates,
               const Eigen::VectorXd& lagged);

// Every state value: the variables' (in Model::variables' order), then the measures'. On Dual
// frames a variable's tangent is its expression's (Expression::inputTangent).
template <class S>
void evaluateStateValues(const Model& model, double t, const std::vector<BodyFrameOf<S>>& frames,
                         const Eigen::VectorXd& jointCoordinates, const Eigen::VectorXd& lagged,
                         std::vector<S>& values);

// An expression whose input k is values[inputs[k]]; with no inputs, a function of t alone.
double evalStateExpression(const Expression& expression, const std::vector<int>& inputs, double t,
                           const std::vector<double>& values);
// Its value (the expression tree's, engine/expr/expression_tree.h) and its derivative along the
// values' tangents (with no inputs, a constant).
struct Dual;
Dual evalStateExpression(const Expression& expression, const std::vector<int>& inputs, double t,
                         const std::vector<Dual>& values);

}  // namespace engine
