#include "engine/analysis/statics.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>
#include <Eigen/LU>

#include "engine/analysis/assembly.h"
#include "engine/analysis/linearisation.h"
#include "engine/analysis/outputs.h"
#include "engine/integrators/integrator.h"
#include "engine/math/number_text.h"
#include "engine/model/layout.h"

namespace engine {

namespace {

// Parts that nothing holds against gravity: a group of bodies joined to each other (joints,
// springs, bushings) but not to the ground, with no applied force or torque on any of them,
// has its centre of mass accelerating at g whatever the pose, so it has no equilibrium (contact
// is not part of statics). Found before any work (the relaxation would run its 200,000 steps
// for nothing: 10,000 free boxes took 173 s to say so). "" when there is none, else the
// reason naming the first such part and counting the others.
std::string unsupportedPartsProblem(const Model& model) {
    if (model.gravity.norm() == 0.0 || model.bodyCount() == 0) return "";
    const int ground = model.bodyCount();
    std::vector<int> root(static_cast<std::size_t>(ground) + 1);
    for (std::size_t k = 0; k < root.size(); ++k) root[k] = static_cast<int>(k);
    const auto find = [&](int b) {
        while (root[static_cast<std::size_t>(b)] != b)
            b = root[static_cast<std::size_t>(b)] =
                root[static_cast<std::size_t>(root[static_cast<std::size_t>(b)])];
        return b;
    };
    const auto bodyOfMarker = [&](int marker) {
        if (marker < 0 || marker >= static_cast<int>(model.markers.size())) return ground;
        const int body = model.markers[static_cast<std::size_t>(marker)].body;
        return body == kGround ? ground : body;
    };
    const auto join = [&](int a, int b) { root[static_cast<std::size_t>(find(a))] = find(b); };
    for (const JointModel& joint : model.joints)
        join(bodyOfMarker(joint.markerI), bodyOfMarker(joint.markerJ));
    for (const ForceModel& force : model.forces) {
        if (force.type == ForceType::PointForce || force.type == ForceType::PointTorque) {
            join(bodyOfMarker(force.markerI), ground);  // an applied load may hold it
        } else if (force.joint >= 0 && force.joint < static_cast<int>(model.joints.size())) {
            const JointModel& joint = model.joints[static_cast<std::size_t>(force.joint)];
            join(bodyOfMarker(joint.markerI), bodyOfMarker(joint.markerJ));
        } else {
            join(bodyOfMarker(force.markerI), bodyOfMarker(force.markerJ));
        }
    }
    int first = -1, count = 0;
    for (int b = 0; b < ground; ++b)
        if (find(b) != find(ground) && count++ == 0) first = b;
    if (count == 0) return "";
    return "part '" + model.bodies[static_cast<std::size_t>(first)].name + "'" +
           (count > 1 ? " (and " + std::to_string(count - 1) + " other parts)" : std::string()) +
           " is held by no joint or force, only pulled by gravity: a free part has no static "
           "equilibrium (statics leaves contact out); join it to the ground, or simulate to "
           "let it come to rest on what it touches";
}

}  // namespace

std::vector<Transform> partPoses(const Model& model, const State& state) {
    std::vector<Transform> poses = model.partPoses0;
    for (std::size_t p = 0; p < model.parts.size(); ++p) {
        const int b = model.parts[p].body;
        if (b == kGround) continue;
        poses[p] = partPose(model, p, {bodyOrientation(state.q, b), bodyPosition(state.q, b)});
    }
    return poses;
}

StaticResult assemble(const Model& model, const State& start) {
    AssemblyResult a = assembleMechanism(model, start);
    StaticResult out;
    out.status = std::move(a.status);
    out.state = std::move(a.state);
    out.newtonIterations = a.newtonIterations;
    return out;
}

namespace {

// The scene's pose assembled and at rest, where both searches start; a failed status when
// statics cannot take the scene.
StaticResult assembledAtRest(const Model& model, const State& start) {
    if (std::string problem = unsupportedPartsProblem(model); !problem.empty()) {
        StaticResult out;
        out.status = Status::failure(problem);
        return out;
    }
    StaticResult out = assemble(model, start);
    if (out.status.ok) out.state.v.setZero();
    return out;
}

}  // namespace

StaticResult staticEquilibrium(const Model& model, const State& start, double tolerance,
                               long maxSteps, const std::atomic<bool>* cancel,
                               std::atomic<double>* progress) {
    double firstResidual = -1.0;
    StaticResult out = assembledAtRest(model, start);
    if (!out.status.ok) return out;
    State& s = out.state;
    if (model.velocitySize() == 0) return out;  // ground alone: nothing to settle
    Workspace ws;
    if (Status st = prepareWorkspace(model, s, ws); !st.ok) {
        out.status = st;
        return out;
    }
    // The relaxation's dynamics: symplectic Euler, the scene's step, its time held at the
    // start's (each step ends there, so the drivers hold their value then). Its energy stays
    // bounded through the first fall of a long chain, whose end whips round at hundreds of
    // rad/s: the integrator takes such steps as substeps of at most 0.1 rad. (A step of its
    // own, explicit, then projected, gained energy there and came to rest nowhere.)
    SolverSettings settings = model.settings;
    settings.integrator = IntegratorType::SymplecticEuler;
    const std::unique_ptr<Integrator> integrator = makeIntegrator(settings);
    const double t = s.t;
    const double h = model.settings.stepSize;
    double lastKinetic = 0.0;
    bool atRest = true;
    for (long step = 0; step <= maxSteps; ++step) {
        if (cancel && cancel->load()) {
            out.status = Status::failure("cancelled", {}, Cause::Cancelled);
            return out;
        }
        // At rest, the accelerations are the static residual: zero at equilibrium.
        if (atRest) {
            if (Status st =
                    computeAccelerations(model, t, s.q, s.v, s.jointCoordinates, s.lagged, ws);
                !st.ok) {
                out.status = st;
                return out;
            }
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
        s.t = t - h;
        if (Status st = integrator->advance(model, s, ws, t); !st.ok) {
            out.status = st;
            return out;
        }
        s.t = t;
        // Kinetic damping: the kinetic energy peaks where potential energy is lowest along
        // the path; stopping there every time walks down to the minimum.
        const double kinetic = kineticEnergy(model, s);
        atRest = kinetic < lastKinetic;
        if (atRest) {
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
        body.name + "' still accelerates at " + numberText(out.residual, 3) +
        " (is it supported? a free part under gravity has no equilibrium)");
    return out;
}

namespace {

// Newton from out.state (assembled, at rest) on f(z) = 0; false where it cannot proceed.
bool newton(const Model& model, StaticResult& out, Workspace& ws, double tolerance,
            const std::atomic<bool>* cancel) {
    State& s = out.state;
    for (int k = 0; k <= 50; ++k) {
        if (cancel && cancel->load()) return false;
        const Linearisation L = linearise(model, s, ws);
        if (!L.status.ok) return false;
        out.residual = L.residual;
        out.newtonIterations = k;
        if (L.residual <= tolerance) {
            // The stability, from the stiffness at the equilibrium.
            if (L.K.size() == 0) {
                out.stability = Stability::Stable;  // nothing can move
                return true;
            }
            const Eigen::EigenSolver<Eigen::MatrixXd> eigen(L.K, false);
            Eigen::VectorXd values = eigen.eigenvalues().real();
            std::sort(values.begin(), values.end());
            out.stiffnessEigenvalues = values;
            const double largest = values.cwiseAbs().maxCoeff();
            out.unstableDirections = 0;
            for (double v : values) out.unstableDirections += v < -1e-6 * largest;
            out.stability = out.unstableDirections > 0    ? Stability::Unstable
                            : values(0) <= 1e-6 * largest ? Stability::Neutral
                                                          : Stability::Stable;
            return true;
        }
        if (L.K.size() == 0) return false;
        const Eigen::FullPivLU<Eigen::MatrixXd> lu(L.K);
        if (!lu.isInvertible()) return false;  // a neutral direction: no Newton step
        Eigen::VectorXd dz = lu.solve(L.force);
        // No point moves by more than a tenth of the mechanism's size per step.
        double size = 0.1;
        for (int b = 0; b < model.bodyCount(); ++b)
            size = std::max(size, bodyPosition(s.q, b).norm());
        const Eigen::VectorXd step = L.N * dz;
        double largest = 0.0;
        for (int b = 0; b < model.bodyCount(); ++b)
            largest = std::max(
                {largest, layout::linear(step, b).norm(), size * layout::angular(step, b).norm()});
        if (largest > 0.1 * size) dz *= 0.1 * size / largest;
        State next;
        if (!displace(model, s, L.N, dz, ws, next).ok) return false;
        s = next;
    }
    return false;
}

}  // namespace

namespace {

StaticResult equilibriumWithoutStops(const Model& model, const State& start, double tolerance,
                                     const std::atomic<bool>* cancel, std::atomic<double>* progress,
                                     bool stable);

}  // namespace

// With end stops, an active set: the equilibrium of the mechanism with the stops it would pass
// held at their ends, and those that would have to pull to hold let go, until neither changes
// (each round starts from the scene's pose again).
StaticResult equilibrium(const Model& model, const State& start, double tolerance,
                         const std::atomic<bool>* cancel, std::atomic<double>* progress,
                         bool stable) {
    if (model.limits.empty())
        return equilibriumWithoutStops(model, start, tolerance, cancel, progress, stable);
    std::vector<HeldStop> held;
    StaticResult out;
    const double slack = 10.0 * model.settings.projectionTolerance;
    for (std::size_t round = 0; round <= 2 * model.limits.size() + 1; ++round) {
        const Model holding = holdingStops(model, held);
        out = equilibriumWithoutStops(holding, start, tolerance, cancel, progress, stable);
        if (!out.status.ok) return out;
        bool changed = false;
        // Stops held that pull (their force against their side) let go.
        if (!held.empty()) {
            Workspace ws;
            Status s = prepareWorkspace(holding, out.state, ws);
            if (s.ok)
                s = computeAccelerations(holding, out.state.t, out.state.q, out.state.v,
                                         out.state.jointCoordinates, out.state.lagged, ws);
            if (!s.ok) {
                out.status = s;
                return out;
            }
            std::vector<HeldStop> kept;
            const int first = holding.jointRows + static_cast<int>(model.drivers.size());
            for (std::size_t k = 0; k < held.size(); ++k) {
                const double force = -ws.lambda(first + static_cast<int>(k));
                if (held[k].side * force >= -1e-9 * (1.0 + std::abs(force)))
                    kept.push_back(held[k]);
                else
                    changed = true;
            }
            held = kept;
        }
        // Stops passed are held.
        const std::vector<HeldStop> passed = stopsPassed(model, out.state, slack, held);
        held.insert(held.end(), passed.begin(), passed.end());
        if (!changed && passed.empty()) return out;
    }
    out.status = Status::failure(
        "the end stops could not be settled: the equilibrium keeps leaving one stop for "
        "another (stops that hold the mechanism in turn)");
    return out;
}

namespace {

StaticResult equilibriumWithoutStops(const Model& model, const State& start, double tolerance,
                                     const std::atomic<bool>* cancel, std::atomic<double>* progress,
                                     bool stable) {
    StaticResult out = assembledAtRest(model, start);
    if (!out.status.ok) return out;
    Workspace ws;
    if (Status st = prepareWorkspace(model, out.state, ws); !st.ok) {
        out.status = st;
        return out;
    }
    if (!stable && newton(model, out, ws, tolerance, cancel)) {
        if (progress) progress->store(1.0);
        return out;
    }
    if (cancel && cancel->load()) {
        out.status = Status::failure("cancelled", {}, Cause::Cancelled);
        return out;
    }
    // A far start: down to a stable equilibrium by relaxation, then Newton to round-off.
    StaticResult relaxed =
        staticEquilibrium(model, start, std::max(tolerance, 1e-6), 200000, cancel, progress);
    if (!relaxed.status.ok) return relaxed;
    Workspace polish;
    if (Status st = prepareWorkspace(model, relaxed.state, polish); !st.ok) {
        relaxed.status = st;
        return relaxed;
    }
    if (!newton(model, relaxed, polish, tolerance, cancel))
        relaxed.status = Status::failure(
            "the relaxation came to rest (largest acceleration " + numberText(relaxed.residual, 3) +
            ") but Newton could not settle it to " + numberText(tolerance, 3) +
            ": a neutral direction (nothing restores the mechanism along it)?");
    return relaxed;
}

}  // namespace

const char* stabilityName(Stability stability) {
    switch (stability) {
    case Stability::Stable:
        return "stable";
    case Stability::Unstable:
        return "unstable";
    case Stability::Neutral:
        return "neutral";
    case Stability::Unknown:
        break;
    }
    return "unknown";
}

}  // namespace engine
