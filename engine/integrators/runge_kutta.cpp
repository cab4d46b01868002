#include "engine/integrators/runge_kutta.h"

#include <cmath>

#include "engine/dynamics/projection.h"
#include "engine/integrators/detail.h"
#include "engine/math/finite.h"

namespace engine {

// See runge_kutta.h.
Status detail::flatDerivative(const Model& model, const Flat& flat, double t,
                              const Eigen::VectorXd& y, const State& reference, Workspace& ws,
                              Eigen::VectorXd& dy, IntegratorStatistics& stats, bool onManifold) {
    Eigen::VectorXd q = y.head(flat.nq), v = y.segment(flat.nq, flat.nv);
    const Eigen::VectorXd* coordinates = &reference.jointCoordinates;
    State projected;
    if (onManifold) {
        projected = reference;
        projected.t = t;
        projected.q = q;
        projected.v = v;
        // Tighter than the scene asks (see kStageTolerance): a stage's gap reaches the
        // multipliers divided by the squared angle between rows that nearly depend.
        if (Status s = projectState(model, projected, ws, nullptr,
                                    kStageTolerance * model.settings.projectionTolerance);
            !s.ok)
            return s;
        q = projected.q;
        v = projected.v;
        coordinates = &projected.jointCoordinates;
    }
    StateDerivative d;
    ++stats.evaluations;
    if (Status s = stateDerivative(model, t, q, v, *coordinates, reference.lagged, ws, d); !s.ok)
        return s;
    dy.resize(y.size());
    dy << d.qdot, d.vdot, d.driverPower, d.dampingPower;
    return {};
}

namespace {

using detail::Flat;
using detail::flatDerivative;
using detail::kStageTolerance;

class RungeKutta4 final : public detail::FixedStepIntegrator {
public:
    using FixedStepIntegrator::FixedStepIntegrator;

private:
    Status step(const Model& model, State& state, Workspace& ws, double h) override {
        const Flat flat{model.positionSize(), model.velocitySize()};
        const Eigen::VectorXd y = flat.pack(state);
        const double t = state.t;
        Eigen::VectorXd k1, k2, k3, k4;
        if (Status s = flatDerivative(model, flat, t, y, state, ws, k1, stats_); !s.ok) return s;
        // Next to a singular position the stages are taken on the manifold (flatDerivative).
        const bool onManifold = ws.solver.nearSingular();
        if (onManifold) {
            ++stats_.projectedSteps;
            if (Status s = flatDerivative(model, flat, t, y, state, ws, k1, stats_, true); !s.ok)
                return s;
        }
        if (Status s = flatDerivative(model, flat, t + 0.5 * h, y + 0.5 * h * k1, state, ws, k2,
                                      stats_, onManifold);
            !s.ok)
            return s;
        if (Status s = flatDerivative(model, flat, t + 0.5 * h, y + 0.5 * h * k2, state, ws, k3,
                                      stats_, onManifold);
            !s.ok)
            return s;
        if (Status s =
                flatDerivative(model, flat, t + h, y + h * k3, state, ws, k4, stats_, onManifold);
            !s.ok)
            return s;
        flat.unpack(y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4), state);
        state.t = t + h;
        return projectState(
            model, state, ws, &stats_.projectionIterations,
            onManifold ? kStageTolerance * model.settings.projectionTolerance : 0.0);
    }
};

}  // namespace

std::unique_ptr<Integrator> detail::makeRungeKutta4(double stepSize) {
    return std::make_unique<RungeKutta4>(stepSize);
}

}  // namespace engine
