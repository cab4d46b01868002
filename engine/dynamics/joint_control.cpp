#include "engine/dynamics/joint_control.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include <Eigen/Cholesky>

#include "engine/dynamics/joint_space.h"
#include "engine/forces/forces.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/math/jet.h"
#include "engine/math/number_text.h"
#include "engine/model/model.h"

namespace engine {
namespace {

bool modelBased(const ForceModel& force) {
    return force.type == ForceType::ComputedTorque ||
           (force.type == ForceType::JointController && force.gravityCompensation);
}

// The tree the controllers model, built once per model (its prismatic turns are exact, so the
// same from any state of a run).
Status controlTree(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                   Workspace& ws) {
    if (ws.controlTree && ws.controlTreeSerial == model.serial) return {};
    ws.controlTree.reset();
    std::string why;
    std::optional<JointTree> tree = buildJointTree(model, q, v, why, TreeScope::Control);
    if (!tree) {
        for (const ForceModel& force : model.forces)
            if (modelBased(force))
                return Status::failure(
                    "force '" + force.name + "': " +
                        (force.type == ForceType::ComputedTorque ? "computed torque"
                                                                 : "gravity compensation") +
                        " models the mechanism as a tree of joints from the ground, but " + why,
                    {force.id});
    }
    ws.controlTree = std::make_shared<const JointTree>(std::move(*tree));
    ws.controlTreeSerial = model.serial;
    return {};
}

}  // namespace

bool hasModelBasedControl(const Model& model) {
    for (const ForceModel& force : model.forces)
        if (modelBased(force)) return true;
    return false;
}

Status applyModelBasedControl(const Model& model, double t, const Eigen::VectorXd& q,
                              const Eigen::VectorXd& v, const Eigen::VectorXd& jointCoordinates,
                              Workspace& ws) {
    ws.controlEfforts.assign(model.forces.size(), 0.0);
    bool any = false;
    for (const ForceModel& force : model.forces) any = any || (modelBased(force) && force.on);
    if (!any) return {};
    if (Status s = controlTree(model, q, v, ws); !s.ok) return s;
    const JointTree& tree = *ws.controlTree;
    const int n = tree.nv;

    // Each element's rate on the tree (its coordinate of its joint's link).
    thread_local std::vector<int> linkOf;
    linkOf.assign(model.forces.size(), -1);
    for (std::size_t f = 0; f < model.forces.size(); ++f) {
        const ForceModel& force = model.forces[f];
        if (!modelBased(force) || !force.on) continue;
        for (const JointTree::Link& link : tree.links)
            if (link.joint == force.joint && link.kind != LinkKind::Spherical &&
                force.coordinate >= 0 && force.coordinate < link.nv)
                linkOf[f] = link.iv + force.coordinate;
        if (linkOf[f] < 0)
            return Status::failure(
                "force '" + force.name + "': joint '" +
                    model.joints[static_cast<std::size_t>(force.joint)].name +
                    "' is not on the tree of joints that holds the mechanism from the ground "
                    "(its parts hang from no joint to the ground)",
                {force.id});
    }

    thread_local Eigen::VectorXd qj, qd, h, G;
    thread_local Eigen::MatrixXd M;
    jointSpaceDynamicsAtBodies(model, tree, q, v, jointCoordinates, ws, qj, qd, M, h, G);

    auto apply = [&](std::size_t f, double effort, int k) {
        const ForceModel& force = model.forces[f];
        ws.controlEfforts[f] = effort;
        applyJointEffort(model, force, ws.frames, effort, ws.g);
        ws.forceEnergies.actuatorPower += effort * qd(k);
    };

    // Gravity compensation: G_k on each compensated servo (the servo's PD share is in ws.g).
    for (std::size_t f = 0; f < model.forces.size(); ++f) {
        const ForceModel& force = model.forces[f];
        if (force.type != ForceType::JointController || linkOf[f] < 0) continue;
        const int k = linkOf[f];
        double effort = G(k);
        if (force.maxEffort > 0.0) {  // the servo's whole effort stays within its limit
            const double pd = controllerEffort(
                model, force, t, ws.frames,
                jointCoordinates.size() > 0
                    ? jointCoordinates(tree.links[static_cast<std::size_t>(
                                                      tree.rateLink[static_cast<std::size_t>(k)])]
                                           .slot +
                                       force.coordinate)
                    : 0.0);
            const double total = std::clamp(pd + effort, -force.maxEffort, force.maxEffort);
            effort = total - pd;
        }
        apply(f, effort, k);
        h(k) -= effort;  // an applied effort on the coordinate, for computed torque below
    }

    // Computed torque: the accelerations given (controlled and driven coordinates), the
    // others free.
    thread_local std::vector<double> given;
    thread_local std::vector<int> controlled;
    given.assign(static_cast<std::size_t>(n), std::numeric_limits<double>::quiet_NaN());
    controlled.assign(static_cast<std::size_t>(n), -1);
    bool anyTorque = false;
    for (std::size_t f = 0; f < model.forces.size(); ++f) {
        const ForceModel& force = model.forces[f];
        if (force.type != ForceType::ComputedTorque || linkOf[f] < 0) continue;
        const int k = linkOf[f];
        const Jet2 target = force.components[0].timeJet(t);
        if (!isfinite(target)) {
            Status s =
                Status::failure("force '" + force.name + "': " + nonFiniteExpression(force, t),
                                {force.id}, Cause::NotFinite);
            s.expressionCause = true;
            return s;
        }
        const JointTree::Link& link =
            tree.links[static_cast<std::size_t>(tree.rateLink[static_cast<std::size_t>(k)])];
        const double error = target.v - qj(link.iq + (k - link.iv)), rate = target.d1 - qd(k);
        given[static_cast<std::size_t>(k)] =
            target.d2 + force.damping * rate + force.stiffness * error;
        controlled[static_cast<std::size_t>(k)] = static_cast<int>(f);
        anyTorque = true;
    }
    if (!anyTorque) return {};
    for (int k = 0; k < n; ++k) {
        const int d = tree.rateDriver[static_cast<std::size_t>(k)];
        if (d < 0 || !model.drivers[static_cast<std::size_t>(d)].on) continue;
        const DriverModel& driver = model.drivers[static_cast<std::size_t>(d)];
        given[static_cast<std::size_t>(k)] =
            driver.level == MotionLevel::Position   ? driver.f.secondDerivative(t)
            : driver.level == MotionLevel::Velocity ? driver.f.derivative(t)
                                                    : driver.f.eval(t);
        if (!std::isfinite(given[static_cast<std::size_t>(k)]))
            return Status::failure("motion '" + driver.name + "': its acceleration is " +
                                       numberText(given[static_cast<std::size_t>(k)]) +
                                       " at t = " + timeText(t) + " (" + driver.f.text() + ")",
                                   {driver.id}, Cause::NotFinite);
    }
    thread_local std::vector<int> known, free;
    known.clear();
    free.clear();
    for (int k = 0; k < n; ++k)
        (std::isnan(given[static_cast<std::size_t>(k)]) ? free : known).push_back(k);
    thread_local Eigen::VectorXd qdd;
    qdd.setZero(n);
    for (int k : known) qdd(k) = given[static_cast<std::size_t>(k)];
    if (!free.empty()) {
        const int m = static_cast<int>(free.size());
        Eigen::MatrixXd Mpp(m, m);
        Eigen::VectorXd rhs(m);
        for (int i = 0; i < m; ++i) {
            for (int j = 0; j < m; ++j)
                Mpp(i, j) = M(free[static_cast<std::size_t>(i)], free[static_cast<std::size_t>(j)]);
            double r = h(free[static_cast<std::size_t>(i)]);
            for (int k : known) r += M(free[static_cast<std::size_t>(i)], k) * qdd(k);
            rhs(i) = -r;
        }
        const Eigen::LLT<Eigen::MatrixXd> llt(Mpp);
        if (llt.info() != Eigen::Success)
            return Status::failure(
                "computed torque: the mass matrix of the joints it leaves free "
                "is not positive definite at t = " +
                timeText(t) + " (a part of no mass on a joint?)");
        const Eigen::VectorXd free_qdd = llt.solve(rhs);
        for (int i = 0; i < m; ++i) qdd(free[static_cast<std::size_t>(i)]) = free_qdd(i);
    }
    for (int k = 0; k < n; ++k) {
        const int f = controlled[static_cast<std::size_t>(k)];
        if (f < 0) continue;
        const ForceModel& force = model.forces[static_cast<std::size_t>(f)];
        double effort = M.row(k).dot(qdd) + h(k);
        if (force.maxEffort > 0.0) effort = std::clamp(effort, -force.maxEffort, force.maxEffort);
        if (!std::isfinite(effort))
            return Status::failure("force '" + force.name + "': its computed torque is " +
                                       numberText(effort) + " at t = " + timeText(t),
                                   {force.id}, Cause::NotFinite);
        apply(static_cast<std::size_t>(f), effort, k);
    }
    return {};
}

}  // namespace engine
