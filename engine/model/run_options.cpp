#include "engine/model/run_options.h"

#include <sstream>
#include <utility>

namespace engine {

std::optional<RunOptionProblem> applyRunOptions(const RunOptions& options,
                                                SolverSettings& settings) {
    // A step below the smallest one a run can advance with.
    for (const auto& [option, value] :
         {std::pair{"dt", options.dt}, std::pair{"maxStep", options.maxStep}}) {
        if (value <= 0.0 || value >= kMinStepSize) continue;
        std::ostringstream what;
        what << value << " s is below " << kMinStepSize
             << " s: a run could not advance in any reasonable time";
        return RunOptionProblem{option, what.str()};
    }
    if (options.dt > 0.0) settings.stepSize = options.dt;
    if (options.outputDt > 0.0) settings.outputInterval = options.outputDt;
    if (options.maxStep > 0.0) settings.maxStep = options.maxStep;
    if (options.rtol > 0.0) settings.relativeTolerance = options.rtol;
    if (options.atol > 0.0) settings.absoluteTolerance = options.atol;
    if (options.projectionTolerance > 0.0)
        settings.projectionTolerance = options.projectionTolerance;
    if (!options.integrator.empty()) {
        const auto type = integratorFromName(options.integrator);
        if (!type)
            return RunOptionProblem{"integrator",
                                    "unknown integrator '" + options.integrator +
                                        "' (expected symplecticEuler, rk4, dopri45, implicitEuler, "
                                        "trapezoidal or timeStepping)"};
        settings.integrator = *type;
    }
    if (!options.formulation.empty()) {
        const auto formulation = formulationFromName(options.formulation);
        if (!formulation)
            return RunOptionProblem{"formulation", "unknown formulation '" + options.formulation +
                                                       "' (expected auto, recursive or maximal)"};
        settings.formulation = *formulation;
    }
    // Fixed steps land on every output time: an output interval between steps is refused.
    if (options.outputDt > 0.0 || options.dt > 0.0)
        if (const std::string problem = outputSpacingProblem(settings); !problem.empty())
            return RunOptionProblem{options.outputDt > 0.0 ? "outputDt" : "dt", problem};
    return std::nullopt;
}

}  // namespace engine
