#include "engine/integrators/integrator.h"

#include "engine/integrators/detail.h"

namespace engine {

// The methods, one a file: symplectic_euler.cpp, runge_kutta.cpp (rk4), dormand_prince.cpp
// (dopri45), implicit_euler.cpp, time_stepping.cpp; what the fixed-step ones share in
// fixed_step.cpp, the check of motions that jump in motion_jumps.cpp, projection onto the
// constraints in engine/dynamics/projection.cpp.
std::unique_ptr<Integrator> makeIntegrator(const SolverSettings& settings) {
    switch (settings.integrator) {
    case IntegratorType::SymplecticEuler:
        return detail::makeSymplecticEuler(settings.stepSize);
    case IntegratorType::RungeKutta4:
        return detail::makeRungeKutta4(settings.stepSize);
    case IntegratorType::DormandPrince45:
        return detail::makeDormandPrince45(settings.maxStep, settings.relativeTolerance,
                                           settings.absoluteTolerance);
    case IntegratorType::ImplicitEuler:
        return detail::makeImplicitEuler(settings.stepSize);
    case IntegratorType::TimeStepping:
        return detail::makeTimeStepping(settings.stepSize);
    }
    return nullptr;
}

}  // namespace engine
