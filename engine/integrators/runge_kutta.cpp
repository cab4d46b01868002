#include "engine/integrators/runge_kutta.h"

#include <cmath>

#include "engine/dynamics/projection.h"
#include "engine/integrators/detail.h"
#include "engine/math/finite.h"

namespace engine {

// See runge_kutta.h.
Eigen::VectorXd detail::Flat::pack(const State& s) const {
    Eigen::VectorXd y(nq + nv + 2);
    if (tree) {
        thread_local Eigen::VectorXd q, qd;
        jointSpaceState(*model, *tree, s, q, qd);
        y << q, qd, s.driverWork, s.dissipatedEnergy;
    } else {
        y << s.q, s.v, s.driverWork, s.dissipatedEnergy;
    }
    return y;
}

void detail::Flat::unpack(const Eigen::VectorXd& y, State& s, double t) const {
    if (tree) {
        thread_local Eigen::VectorXd q, qd;
        q = y.head(nq);
        qd = y.segment(nq, nv);
        if (!std::isnan(t)) prescribeMotions(*model, *tree, t, q, qd);
        bodyStateFromJoints(*model, *tree, q, qd, s);
    } else {
        s.q = y.head(nq);
        s.v = y.segment(nq, nv);
    }
    s.driverWork = y(nq + nv);
    s.dissipatedEnergy = y(nq + nv + 1);
}

Status detail::Flat::settle(const Model& m, State& s, Workspace& ws, int* iterations,
                            double tolerance) const {
    if (tree) {
        if (!tree->closed()) return {};
        // A closed tree's loops: its coordinates projected onto the cut joints' rows.
        thread_local Eigen::VectorXd q, qd;
        jointSpaceState(m, *tree, s, q, qd);
        if (Status st =
                projectLoopClosure(m, *tree, s.t, q, qd, tolerance, iterations, &ws.loopBestPivot);
            !st.ok)
            return st;
        bodyStateFromJoints(m, *tree, q, qd, s);
        return {};
    }
    return projectState(m, s, ws, iterations, tolerance);
}

std::string detail::Flat::entityOf(const Model& m, Eigen::Index i, bool& velocity) const {
    velocity = i >= nq;
    if (tree) {
        const Eigen::Index k = velocity ? i - nq : i;
        const std::vector<int>& links = velocity ? tree->rateLink : tree->coordinateLink;
        if (k < 0 || k >= static_cast<Eigen::Index>(links.size())) return "";
        const JointTree::Link& link = tree->links[static_cast<std::size_t>(links[k])];
        if (link.joint < 0)
            return "free part '" + m.bodies[static_cast<std::size_t>(link.body)].name + "'";
        if (link.frame)
            return "moving frame '" + m.joints[static_cast<std::size_t>(link.joint)].name + "'";
        return "joint '" + m.joints[static_cast<std::size_t>(link.joint)].name + "'";
    }
    const int body = velocity ? static_cast<int>((i - nq) / layout::kVelocitiesPerBody)
                              : static_cast<int>(i / layout::kPositionsPerBody);
    if (body < 0 || body >= m.bodyCount()) return "";
    return "part '" + m.bodies[static_cast<std::size_t>(body)].name + "'";
}

Status detail::flatDerivative(const Model& model, const Flat& flat, double t,
                              const Eigen::VectorXd& y, const State& reference, Workspace& ws,
                              Eigen::VectorXd& dy, IntegratorStatistics& stats, bool onManifold) {
    if (flat.tree) {  // joint coordinates: (q̇, q̈) by the articulated-body algorithm
        ++stats.evaluations;
        thread_local Eigen::VectorXd q, qd, qdd;
        q = y.head(flat.nq);
        qd = y.segment(flat.nq, flat.nv);
        // Next to a singular position, the stage's loops closed first (as maximal coordinates
        // project the stage, and for the same reason).
        if (onManifold)
            if (Status s = projectLoopClosure(model, *flat.tree, t, q, qd,
                                              kStageTolerance * model.settings.projectionTolerance,
                                              nullptr, &ws.loopBestPivot);
                !s.ok)
                return s;
        if (Status s = articulatedAccelerations(model, *flat.tree, t, q, qd, reference, ws, qdd);
            !s.ok)
            return s;
        dy.resize(y.size());
        jointCoordinateRates(*flat.tree, q, qd, dy.head(flat.nq));
        dy.segment(flat.nq, flat.nv) = qdd;
        dy(flat.nq + flat.nv) = ws.forceEnergies.actuatorPower;
        dy(flat.nq + flat.nv + 1) = ws.forceEnergies.dampingPower;
        return {};
    }
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
    RungeKutta4(double stepSize, bool joints) : FixedStepIntegrator(stepSize), joints_(joints) {}
    void reset() override { tree_.reset(); }
    void forcesChanged() override {}  // each step evaluates its own stages

private:
    Status step(const Model& model, State& state, Workspace& ws, double h) override {
        if (joints_)
            if (Status s = tree_.build(model, state); !s.ok) return s;
        const Flat flat = joints_ ? Flat::joints(model, *tree_) : Flat::bodies(model);
        const Eigen::VectorXd y = flat.pack(state);
        const double t = state.t;
        Eigen::VectorXd k1, k2, k3, k4;
        if (Status s = flatDerivative(model, flat, t, y, state, ws, k1, stats_); !s.ok) return s;
        // Next to a singular position the stages are taken on the manifold (flatDerivative).
        const bool onManifold = joints_ ? ws.loopsNearSingular() : ws.solver.nearSingular();
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
        flat.unpack(y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4), state, t + h);
        state.t = t + h;
        return flat.settle(model, state, ws, &stats_.projectionIterations,
                           onManifold ? kStageTolerance * model.settings.projectionTolerance : 0.0);
    }

    bool joints_;
    detail::TreeHolder tree_;
};

}  // namespace

std::unique_ptr<Integrator> detail::makeRungeKutta4(double stepSize, bool joints) {
    return std::make_unique<RungeKutta4>(stepSize, joints);
}

}  // namespace engine
