#pragma once
// What a run is asked for beyond its scene: motus-cli simulate's options and the Python
// module's keywords, applied to the scene's solver settings the same way (so the two give the
// same run). A 0 or an empty name leaves the scene's setting.

#include <optional>
#include <string>

#include "engine/model/scene_spec.h"

namespace engine {

struct RunOptions {
    double dt = 0.0;        // s: the fixed-step integrators' step (and output interval)
    double outputDt = 0.0;  // s: between outputs
    double maxStep = 0.0;   // s: dopri45's largest step
    double rtol = 0.0;
    double atol = 0.0;
    double projectionTolerance = 0.0;
    std::string integrator;   // integratorFromName's names
    std::string formulation;  // auto, recursive, maximal
};

// A value refused: the option ("dt", "outputDt", "maxStep", "integrator", "formulation") and
// why, in words that follow the option's name ("1e-09 s is below 1e-07 s: …", "unknown
// integrator 'rk5' (expected …)").
struct RunOptionProblem {
    std::string option;
    std::string message;
};

// `settings` with `options` applied; the first problem, or nullopt.
std::optional<RunOptionProblem> applyRunOptions(const RunOptions& options,
                                                SolverSettings& settings);

}  // namespace engine
