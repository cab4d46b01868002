#include "engine/analysis/statics.h"

#include <algorithm>
#include <cmath>

#include "engine/analysis/outputs.h"
#include "engine/integrators/detail.h"
#include "engine/integrators/integrator.h"
#include "engine/model/layout.h"

namespace engine {

std::vector<Transform> partPoses(const Model& model, const State& state) {
    std::vector<Transform> poses = model.partPoses0;
    for (int b = 0; b < model.bodyCount(); ++b) {
        const BodyModel& body = model.bodies[static_cast<std::size_t>(b)];
        poses[static_cast<std::size_t>(body.partIndex)] =
            Transform{bodyOrientation(state.q, b), bodyPosition(state.q, b)} * body.X_PB.inverse();
    }
    return poses;
}

StaticResult assemble(const Model& model, const State& start) {
    StaticResult out;
    out.state = start;
    Workspace ws;
    if (Status s = prepareWorkspace(model, out.state, ws); !s.ok) {
        out.status = s;
        return out;
    }
    if (Status s = projectState(model, out.state, ws); !s.ok)
        out.status = Status::failure("the mechanism cannot be assembled: " + s.message);
    return out;
}

StaticResult staticEquilibrium(const Model& model, const State& start, double tolerance,
                               long maxSteps, const std::atomic<bool>* cancel,
                               std::atomic<double>* progress) {
    double firstResidual = -1.0;
    StaticResult out = assemble(model, start);
    if (!out.status.ok) return out;
    State& s = out.state;
    s.v.setZero();
    Workspace ws;
    if (Status st = prepareWorkspace(model, s, ws); !st.ok) {
        out.status = st;
        return out;
    }
    const double h = model.settings.stepSize;
    double lastKinetic = 0.0;
    for (long step = 0; step <= maxSteps; ++step) {
        if (cancel && cancel->load()) {
            out.status = Status::failure("cancelled");
            return out;
        }
        if (Status st = computeAccelerations(model, s.t, s.q, s.v, s.jointCoordinates, ws);
            !st.ok) {
            out.status = st;
            return out;
        }
        // At rest, the accelerations are the static residual: zero at equilibrium.
        if (s.v.isZero(0.0)) {
            out.residual = ws.vdot.cwiseAbs().maxCoeff();
            if (firstResidual < 0.0) firstResidual = std::max(out.residual, tolerance * 10.0);
            if (progress && out.residual > 0.0)
                progress->store(std::clamp(
                    std::log(firstResidual / out.residual) / std::log(firstResidual / tolerance),
                    0.0, 1.0));
            if (out.residual <= tolerance) {
                out.steps = step;
                return out;
            }
        }
        // Semi-implicit Euler with the time held (a static problem), then projection.
        s.v += h * ws.vdot;
        const double t = s.t;
        detail::retract(model, s.q, h * s.v);
        if (Status st = projectState(model, s, ws); !st.ok) {
            out.status = st;
            return out;
        }
        s.t = t;
        // Kinetic damping: the kinetic energy peaks where potential energy is lowest along
        // the path; stopping there every time walks down to the minimum.
        const double kinetic = kineticEnergy(model, s);
        if (kinetic < lastKinetic) {
            s.v.setZero();
            lastKinetic = 0.0;
        } else {
            lastKinetic = kinetic;
        }
        out.steps = step;
    }
    // The body accelerating most is the one without equilibrium.
    Eigen::Index worst = 0;
    ws.vdot.cwiseAbs().maxCoeff(&worst);
    const BodyModel& body =
        model.bodies[static_cast<std::size_t>(worst / layout::kVelocitiesPerBody)];
    out.status = Status::failure(
        "no static equilibrium found in " + std::to_string(maxSteps) + " steps: part '" +
        body.name + "' still accelerates at " + std::to_string(out.residual) +
        " (is it supported? a free part under gravity has no equilibrium)");
    return out;
}

}  // namespace engine
