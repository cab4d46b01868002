#include "engine/dynamics/dynamics.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "engine/dynamics/joint_control.h"
#include "engine/dynamics/joint_space.h"
#include "engine/forces/forces.h"
#include "engine/math/constants.h"
#include "engine/math/finite.h"
#include "engine/math/number_text.h"
#include "engine/model/layout.h"
#include "engine/solver/worker_pool.h"

namespace engine {

namespace {
// The coupler whose row `row` is, or null.
const CouplerModel* couplerOfRow(const Model& model, int row) {
    const int k = row - model.couplerRowOffset;
    return k >= 0 && k < static_cast<int>(model.couplers.size())
               ? &model.couplers[static_cast<std::size_t>(k)]
               : nullptr;
}
}  // namespace

std::string constraintRowOwner(const Model& model, int row) {
    if (const CouplerModel* c = couplerOfRow(model, row)) return "coupler '" + c->name + "'";
    if (row < model.jointRows) {
        for (std::size_t j = 0; j < model.joints.size(); ++j)
            if (row < model.jointRowOffset[j] + model.joints[j].rows)
                return (model.joints[j].frameMotion ? "moving frame '" : "joint '") +
                       model.joints[j].name + "'";
    }
    return constraintRowName(model, row);
}

std::string constraintRowName(const Model& model, int row) {
    if (const CouplerModel* c = couplerOfRow(model, row))
        return "coupler '" + c->name + "' (" + std::string(couplerTypeName(c->type)) + ")";
    if (row < model.jointRows) {
        for (std::size_t j = 0; j < model.joints.size(); ++j) {
            const int first = model.jointRowOffset[j];
            if (row < first + model.joints[j].rows)
                return (model.joints[j].frameMotion ? "moving frame '" : "joint '") +
                       model.joints[j].name + "' (" +
                       model.joints[j].rowLabels[static_cast<std::size_t>(row - first)] + ")";
        }
    }
    const int d = row - model.jointRows;
    if (d >= 0 && d < static_cast<int>(model.drivers.size()))
        return "motion '" + model.drivers[static_cast<std::size_t>(d)].name + "'";
    return "row " + std::to_string(row);
}

EntityId constraintRowEntity(const Model& model, int row) {
    if (row < 0) return kNoEntity;
    if (const CouplerModel* c = couplerOfRow(model, row)) return c->id;
    if (row < model.jointRows) {
        for (std::size_t j = 0; j < model.joints.size(); ++j)
            if (row < model.jointRowOffset[j] + model.joints[j].rows) return model.joints[j].id;
    }
    const int d = row - model.jointRows;
    if (d >= 0 && d < static_cast<int>(model.drivers.size()))
        return model.drivers[static_cast<std::size_t>(d)].id;
    return kNoEntity;
}

namespace {
// Whether row `row` measures an angle: a row keeping axes perpendicular, or a motion of a
// rotational coordinate (its multiplier is then a torque).
bool angularRow(const Model& model, int row) {
    if (const CouplerModel* c = couplerOfRow(model, row)) {
        const CouplerTermModel& t = c->terms.front();
        return model.joints[static_cast<std::size_t>(t.joint)]
                   .coordinates[static_cast<std::size_t>(t.coordinate)] == JointAxis::Rotation;
    }
    if (row < model.jointRows) {
        for (std::size_t j = 0; j < model.joints.size(); ++j) {
            const int first = model.jointRowOffset[j];
            if (row < first + model.joints[j].rows)
                return model.joints[j].rowLabels[static_cast<std::size_t>(row - first)].rfind(
                           "perpendicular", 0) == 0;
        }
    } else if (const int d = row - model.jointRows; d < static_cast<int>(model.drivers.size())) {
        const DriverModel& driver = model.drivers[static_cast<std::size_t>(d)];
        return model.joints[static_cast<std::size_t>(driver.joint)]
                   .coordinates[static_cast<std::size_t>(driver.coordinate)] == JointAxis::Rotation;
    }
    return false;
}
}  // namespace

std::string constraintResidualText(const Model& model, int row, double value) {
    return numberText(value, 3, angularRow(model, row) ? "rad" : "m");
}

std::string constraintReactionText(const Model& model, int row, double value) {
    return numberText(value, 3, angularRow(model, row) ? "N·m" : "N");
}

Status prepareWorkspace(const Model& model, const State& state, Workspace& ws) {
    ws.Minv.resize(model.velocitySize());
    for (int b = 0; b < model.bodyCount(); ++b) {
        const BodyModel& body = model.bodies[static_cast<std::size_t>(b)];
        layout::linear(ws.Minv, b).setConstant(1.0 / body.mass);
        layout::angular(ws.Minv, b) = body.inertia.cwiseInverse();
    }
    // Singular positions confirmed where only the geometry counts: parts of unit mass and
    // moments L², L the farthest a marker sits from its part's centre of mass.
    double L2 = 0.0;
    for (const MarkerModel& m : model.markers)
        if (m.body != kGround) L2 = std::max(L2, m.X_BM.p.squaredNorm());
    if (!(L2 > 0.0)) L2 = 1.0;
    Eigen::VectorXd geometric(model.velocitySize());
    for (int b = 0; b < model.bodyCount(); ++b) {
        layout::linear(geometric, b).setOnes();
        layout::angular(geometric, b).setConstant(1.0 / L2);
    }
    ws.solver.setGeometricMetric(std::move(geometric));
    computeBodyFrames(model, state.q, state.v, ws.frames);
    if (!model.couplers.empty())
        seedCouplerCoordinates(model, state.jointCoordinates, ws.constraints);
    evaluateConstraints(model, state.t, ws.frames, ws.constraints);
    ws.solver.analyze(ws.constraints.Phi_q, ws.Minv);
    ws.prepared = true;
    ws.factored = ws.solver.singularRow() < 0;
    ws.factoredTime = state.t;
    ws.factoredQ = state.q;
    if (ws.solver.singularRow() >= 0)
        return Status::failure("singular constraint system at t = " + timeText(state.t) + ": " +
                                   constraintRowName(model, ws.solver.singularRow()) +
                                   " cannot be satisfied together with the others",
                               {constraintRowEntity(model, ws.solver.singularRow())});
    return {};
}

void softJointGains(const Model& model, const SparseRowMatrix& Phi_q, const Eigen::VectorXd& Minv,
                    Eigen::VectorXd& stiffness, Eigen::VectorXd& damping) {
    stiffness.resize(model.softRows);
    damping.resize(model.softRows);
    int row = 0;
    for (const SoftConstraint& sc : model.softConstraints) {
        for (int k = 0; k < sc.primitive.rows(); ++k, ++row) {
            if (!(sc.frequency > 0.0)) {
                stiffness(row) = sc.stiffness;
                damping(row) = sc.damping;
                continue;
            }
            double inverseMass = 0.0;
            for (SparseRowMatrix::InnerIterator it(Phi_q, row); it; ++it)
                inverseMass += it.value() * it.value() * Minv(it.col());
            // A row that moves nothing (an axis pair at a singular pose) holds with nothing.
            const double mass = inverseMass > 0.0 ? 1.0 / inverseMass : 0.0;
            const double omega = 2.0 * kPi * sc.frequency;
            stiffness(row) = mass * omega * omega;
            damping(row) = 2.0 * sc.dampingRatio * mass * omega;
        }
    }
}

bool allFiniteOnThreads(const Eigen::VectorXd& x) {
    constexpr Eigen::Index kBlock = 4096;
    const Eigen::Index n = x.size();
    if (n < 8 * kBlock || workerThreads() < 2) return allFinite(x);
    const auto blocks = static_cast<std::size_t>((n + kBlock - 1) / kBlock);
    std::atomic<bool> finite{true};
    runRanges(blocks, 8, [&](std::size_t first, std::size_t last) {
        const Eigen::Index from = static_cast<Eigen::Index>(first) * kBlock;
        const Eigen::Index to = std::min(n, static_cast<Eigen::Index>(last) * kBlock);
        if (!allFinite(x.segment(from, to - from))) finite.store(false, std::memory_order_relaxed);
    });
    return finite.load();
}

Status evaluateAppliedForces(const Model& model, double t, const Eigen::VectorXd& q,
                             const Eigen::VectorXd& v, const Eigen::VectorXd& jointCoordinates,
                             const Eigen::VectorXd& lagged, Workspace& ws, bool softJointForces,
                             const std::vector<char>* held) {
    if (!allFiniteOnThreads(q) || !allFiniteOnThreads(v)) {
        for (int b = 0; b < model.bodyCount(); ++b)
            if (!layout::pose(q, b).allFinite() || !layout::twist(v, b).allFinite())
                return Status::failure(
                    "the state of part '" + model.bodies[static_cast<std::size_t>(b)].name +
                        "' is not finite (NaN or infinity) at t = " + timeText(t),
                    {model.bodies[static_cast<std::size_t>(b)].id}, Cause::NotFinite);
    }
    computeBodyFrames(model, q, v, ws.frames, held);
    const int badForce = computeAppliedForces(model, t, ws.frames, v, jointCoordinates, lagged,
                                              ws.g, &ws.forceEnergies, held);
    if (badForce >= 0) {
        // An expression that stops being a number is the cause, named with its value.
        const ForceModel& force = model.forces[static_cast<std::size_t>(badForce)];
        const std::string cause =
            nonFiniteExpression(model, force, t, ws.frames, jointCoordinates, lagged);
        Status s = Status::failure("force '" + force.name +
                                       "' is not finite (NaN or infinity) at t = " + timeText(t) +
                                       (cause.empty() ? "" : ": " + cause),
                                   {force.id}, Cause::NotFinite);
        s.expressionCause = !cause.empty();
        return s;
    }
    if (hasModelBasedControl(model)) {
        if (Status s = applyModelBasedControl(model, t, q, v, jointCoordinates, ws); !s.ok)
            return s;
    } else {
        ws.controlEfforts.clear();
    }
    if (model.softRows > 0) {
        // Soft joints: λ = k Φ + c Φ̇ per row, pulling back with −Φqᵀλ.
        evaluateSoftConstraints(model, ws.frames, ws.soft);
        softJointGains(model, ws.soft.Phi_q, ws.Minv, ws.softStiffness, ws.softDamping);
        const Eigen::VectorXd rate = ws.soft.Phi_q * v;
        ws.softLambda =
            ws.softStiffness.cwiseProduct(ws.soft.Phi) + ws.softDamping.cwiseProduct(rate);
        ws.forceEnergies.elastic +=
            0.5 * ws.soft.Phi.dot(ws.softStiffness.cwiseProduct(ws.soft.Phi));
        if (softJointForces) {
            ws.g.noalias() -= ws.soft.Phi_q.transpose() * ws.softLambda;
            ws.forceEnergies.dampingPower += rate.dot(ws.softDamping.cwiseProduct(rate));
        }
        if (!allFinite(ws.softLambda)) {
            int row = 0;
            for (const SoftConstraint& sc : model.softConstraints) {
                row += sc.primitive.rows();
                if (!ws.softLambda.head(row).allFinite())
                    return Status::failure(
                        "soft joint '" + model.joints[static_cast<std::size_t>(sc.joint)].name +
                            "' pulls back with a force that is not finite at t = " + timeText(t),
                        {model.joints[static_cast<std::size_t>(sc.joint)].id}, Cause::NotFinite);
            }
        }
    } else {
        ws.softLambda.resize(0);
    }
    if (!allFiniteOnThreads(ws.g)) {
        for (int b = 0; b < model.bodyCount(); ++b)
            if (!layout::twist(ws.g, b).allFinite())
                return Status::failure("gravity or inertia forces on part '" +
                                           model.bodies[static_cast<std::size_t>(b)].name +
                                           "' are not finite at t = " + timeText(t),
                                       {model.bodies[static_cast<std::size_t>(b)].id},
                                       Cause::NotFinite);
    }
    return {};
}

BodyGraph::BodyGraph(const Model& model)
    : model_(model), parent_(static_cast<std::size_t>(model.bodyCount() + 1)) {
    for (std::size_t b = 0; b < parent_.size(); ++b) parent_[b] = static_cast<int>(b);
}

int BodyGraph::root(int b) {
    while (parent_[static_cast<std::size_t>(b)] != b)
        b = parent_[static_cast<std::size_t>(b)] =
            parent_[static_cast<std::size_t>(parent_[static_cast<std::size_t>(b)])];
    return b;
}

bool BodyGraph::join(const JointModel& joint) {
    const int ground = model_.bodyCount();
    auto node = [&](int marker) {
        const int body = model_.markers[static_cast<std::size_t>(marker)].body;
        return body >= 0 && body < ground ? body : ground;
    };
    const int a = root(node(joint.markerI)), b = root(node(joint.markerJ));
    if (a == b) return false;
    parent_[static_cast<std::size_t>(a)] = b;
    return true;
}

bool hasClosedLoops(const Model& model) {
    BodyGraph graph(model);
    for (const JointModel& joint : model.joints)
        if (!graph.join(joint)) return true;
    // A coupler ties joints' coordinates already free in the tree: its row closes a loop of
    // the constraint graph (the KKT solver's rank analysis must see it).
    return !model.couplers.empty();
}

int solverMemorySize(const Model& model, bool stepper) {
    const int one = KktSolver::memorySize(model.constraintRows(), hasClosedLoops(model));
    return (model.settings.integrator == IntegratorType::DormandPrince45 ? 2 * one : one) +
           (stepper ? LoopStepper::memorySize(model) : 0);
}

Status factorizeConstraints(const Model& model, double t, const Eigen::VectorXd& q,
                            const Eigen::VectorXd& v, Workspace& ws, bool needGamma,
                            bool framesCurrent) {
    const bool reusable =
        ws.factored && ws.factoredTime == t && ws.factoredQ.size() == q.size() && ws.factoredQ == q;
    if (reusable && !needGamma) return {};
    if (!framesCurrent) computeBodyFrames(model, q, v, ws.frames);
    evaluateConstraints(model, t, ws.frames, ws.constraints, needGamma);
    if (!allFinite(ws.constraints.gamma)) {
        for (Eigen::Index r = 0; r < ws.constraints.gamma.size(); ++r)
            if (!std::isfinite(ws.constraints.gamma(r))) {
                Status s = Status::failure(
                    constraintRowName(model, static_cast<int>(r)) +
                        " is not finite at t = " + timeText(t) +
                        (model.prescribedRow(static_cast<int>(r))
                             ? " (an expression whose rate or acceleration is not a number there?)"
                             : ""),
                    {constraintRowEntity(model, static_cast<int>(r))}, Cause::NotFinite);
                s.expressionCause = model.prescribedRow(static_cast<int>(r));
                return s;
            }
    }
    if (reusable) return {};
    return factorizeEvaluated(model, t, q, ws);
}

Status factorizeEvaluated(const Model& model, double t, const Eigen::VectorXd& q, Workspace& ws) {
    ws.factored = false;
    if (!ws.solver.factorize(ws.constraints.Phi_q, ws.Minv))
        return Status::failure("singular constraint system at t = " + timeText(t) + ": " +
                                   constraintRowName(model, ws.solver.singularRow()) +
                                   " became dependent on the others (a singular position?)",
                               {constraintRowEntity(model, ws.solver.singularRow())});
    ws.factored = true;
    ws.factoredTime = t;
    ws.factoredQ = q;
    return {};
}

Status computeAccelerations(const Model& model, double t, const Eigen::VectorXd& q,
                            const Eigen::VectorXd& v, const Eigen::VectorXd& jointCoordinates,
                            const Eigen::VectorXd& lagged, Workspace& ws) {
    if (Status s = evaluateAppliedForces(model, t, q, v, jointCoordinates, lagged, ws); !s.ok)
        return s;
    // The forces left the frames at (q, v).
    if (Status s = factorizeConstraints(model, t, q, v, ws, true, true); !s.ok) return s;
    ws.solver.solve(ws.g, ws.constraints.gamma, ws.vdot, ws.lambda);
    return {};
}

Status stateDerivative(const Model& model, double t, const Eigen::VectorXd& q,
                       const Eigen::VectorXd& v, const Eigen::VectorXd& jointCoordinates,
                       const Eigen::VectorXd& lagged, Workspace& ws, StateDerivative& out) {
    if (Status s = computeAccelerations(model, t, q, v, jointCoordinates, lagged, ws); !s.ok)
        return s;
    out.vdot = ws.vdot;
    out.qdot.resize(q.size());
    for (int b = 0; b < model.bodyCount(); ++b) {
        layout::position(out.qdot, b) = layout::linear(v, b);
        // ė = ½ e ⊗ (0, ω')
        const auto e = layout::orientation(q, b);
        const double w = e(0), x = e(1), y = e(2), z = e(3);
        const auto omega = layout::angular(v, b);
        const double wx = omega(0), wy = omega(1), wz = omega(2);
        layout::orientation(out.qdot, b) << 0.5 * (-x * wx - y * wy - z * wz),
            0.5 * (w * wx + y * wz - z * wy), 0.5 * (w * wy + z * wx - x * wz),
            0.5 * (w * wz + x * wy - y * wx);
    }
    // Driver power: each motion's or moving frame's row's generalised force −Jᵀλ times v,
    // i.e. −λ ċ.
    out.driverPower = 0.0;
    const auto& Phi_q = ws.constraints.Phi_q;
    model.forEachWorkingRow([&](int row) {
        double rate = 0.0;
        for (SparseRowMatrix::InnerIterator it(Phi_q, row); it; ++it)
            rate += it.value() * v(it.col());
        out.driverPower -= ws.lambda(row) * rate;
    });
    out.dampingPower = ws.forceEnergies.dampingPower;
    out.driverPower +=
        ws.forceEnergies.actuatorPower;  // joint controllers put energy in like drivers
    return {};
}

}  // namespace engine
