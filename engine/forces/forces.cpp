#include "engine/forces/forces.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "engine/kinematics/joint_coordinates.h"
#include "engine/kinematics/state_measures.h"
#include "engine/math/finite.h"
#include "engine/math/number_text.h"
#include "engine/model/diagnostic.h"
#include "engine/model/layout.h"
#include "engine/model/model.h"

namespace engine {
namespace {

// Adds a force F (world) acting at world point p on body b, and a torque T (world).
void addWrench(const std::vector<BodyFrame>& frames, int body, const Vec3& p, const Vec3& F,
               const Vec3& T, Eigen::VectorXd& g) {
    if (body == kGround) return;
    const BodyFrame& f = frames[static_cast<std::size_t>(body)];
    layout::linear(g, body) += F;
    layout::angular(g, body) += f.R.transpose() * (T + (p - f.r).cross(F));
}

// Small-angle rotation vector of frame I relative to frame J, in J's axes: the axis-angle of
// R_JI = R_WJᵀ R_WI (exact for any angle below π).
Vec3 rotationVector(const Mat3& R_WJ, const Mat3& R_WI) {
    const Eigen::AngleAxisd aa(Mat3(R_WJ.transpose() * R_WI));
    return aa.angle() * aa.axis();
}

bool usesState(const ForceModel& force) {
    return !force.inputs[0].empty() || !force.inputs[1].empty() || !force.inputs[2].empty();
}

// A force or torque `effort` on a joint's coordinate: about (along) J's z axis on I, its
// opposite on J (a force at I's origin on both, so the pair has no moment).
void addJointEffort(const Model& model, const ForceModel& force,
                    const std::vector<BodyFrame>& frames, double effort, Eigen::VectorXd& g) {
    const JointModel& joint = model.joints[static_cast<std::size_t>(force.joint)];
    const MarkerFrame mi = markerFrame(model, frames, joint.markerI);
    const MarkerFrame mj = markerFrame(model, frames, joint.markerJ);
    const Vec3 axis = mj.R.col(2);
    const int bodyI = model.markers[static_cast<std::size_t>(joint.markerI)].body;
    const int bodyJ = model.markers[static_cast<std::size_t>(joint.markerJ)].body;
    if (joint.coordinates[static_cast<std::size_t>(force.coordinate)] == JointAxis::Rotation) {
        addWrench(frames, bodyI, mi.p, Vec3::Zero(), effort * axis, g);
        addWrench(frames, bodyJ, mj.p, Vec3::Zero(), -effort * axis, g);
    } else {
        addWrench(frames, bodyI, mi.p, effort * axis, Vec3::Zero(), g);
        addWrench(frames, bodyJ, mi.p, -effort * axis, Vec3::Zero(), g);
    }
}

}  // namespace

void applyForceElement(const Model& model, const ForceModel& force, double t,
                       const std::vector<BodyFrame>& frames,
                       const Eigen::VectorXd& jointCoordinates, const std::vector<int>& offsets,
                       Eigen::VectorXd& g, ForceEnergies& energies,
                       const std::vector<double>* stateValues) {
    if (!force.on) return;  // switched off
    // What the element's expressions read of the state, when they read any.
    thread_local std::vector<double> own;
    if (!stateValues && usesState(force)) {
        evaluateStateValues(model, t, frames, jointCoordinates, own);
        stateValues = &own;
    }
    static const std::vector<double> none;
    const std::vector<double>& values = stateValues ? *stateValues : none;
    auto component = [&](int c) {
        return evalStateExpression(force.components[c], force.inputs[c], t, values);
    };
    switch (force.type) {
    case ForceType::PointForce:
    case ForceType::PointTorque: {
        const MarkerFrame m = markerFrame(model, frames, force.markerI);
        Vec3 value(component(0), component(1), component(2));
        if (force.inMarkerFrame) value = m.R * value;
        const int body = model.markers[static_cast<std::size_t>(force.markerI)].body;
        if (force.type == ForceType::PointForce)
            addWrench(frames, body, m.p, value, Vec3::Zero(), g);
        else
            addWrench(frames, body, m.p, Vec3::Zero(), value, g);
        break;
    }
    case ForceType::SpringDamper: {
        const MarkerFrame mi = markerFrame(model, frames, force.markerI);
        const MarkerFrame mj = markerFrame(model, frames, force.markerJ);
        const Vec3 d = mj.p - mi.p;
        const double length = d.norm();
        if (length < 1e-12) break;  // direction undefined; no force (documented)
        const Vec3 u = d / length;
        const double rate = (mj.v - mi.v).dot(u);
        const double stretch = length - force.freeLength;
        const double tension = force.stiffness * stretch + force.damping * rate + force.preload;
        // Tension pulls I towards J and J towards I.
        addWrench(frames, model.markers[static_cast<std::size_t>(force.markerI)].body, mi.p,
                  tension * u, Vec3::Zero(), g);
        addWrench(frames, model.markers[static_cast<std::size_t>(force.markerJ)].body, mj.p,
                  -tension * u, Vec3::Zero(), g);
        energies.elastic += 0.5 * force.stiffness * stretch * stretch + force.preload * stretch;
        energies.dampingPower += force.damping * rate * rate;
        break;
    }
    case ForceType::RotationalSpringDamper: {
        const JointModel& joint = model.joints[static_cast<std::size_t>(force.joint)];
        const ConstraintRow c = jointCoordinate(model, frames, force.joint, 0);
        const double angle = unwindAngle(
            c.value, jointCoordinates.size() > 0
                         ? jointCoordinates(offsets[static_cast<std::size_t>(force.joint)])
                         : 0.0);
        const double twist = angle - force.freeLength;
        const double torque = -(force.stiffness * twist + force.damping * c.rate + force.preload);
        // Torque on I about J's z axis, the opposite on J.
        const MarkerFrame mj = markerFrame(model, frames, joint.markerJ);
        const Vec3 T = torque * mj.R.col(2);
        const MarkerFrame mi = markerFrame(model, frames, joint.markerI);
        addWrench(frames, model.markers[static_cast<std::size_t>(joint.markerI)].body, mi.p,
                  Vec3::Zero(), T, g);
        addWrench(frames, model.markers[static_cast<std::size_t>(joint.markerJ)].body, mj.p,
                  Vec3::Zero(), -T, g);
        energies.elastic += 0.5 * force.stiffness * twist * twist + force.preload * twist;
        energies.dampingPower += force.damping * c.rate * c.rate;
        break;
    }
    case ForceType::JointController: {
        const JointModel& joint = model.joints[static_cast<std::size_t>(force.joint)];
        const Eigen::Index slot = offsets[static_cast<std::size_t>(force.joint)] + force.coordinate;
        const double last = jointCoordinates.size() > slot ? jointCoordinates(slot) : 0.0;
        double rate = 0.0;
        const double effort =
            controllerEffort(model, force, t, frames, last, &rate, stateValues ? &values : nullptr);
        addJointEffort(model, force, frames, effort, g);
        energies.actuatorPower += effort * rate;
        (void)joint;
        break;
    }
    case ForceType::JointForce: {
        // Its work is the actuator's, as a controller's.
        const double effort = component(0);
        addJointEffort(model, force, frames, effort, g);
        energies.actuatorPower +=
            effort * jointCoordinate(model, frames, force.joint, force.coordinate).rate;
        break;
    }
    case ForceType::LineForce: {
        // Positive pushes I and J apart along the line between their origins (Adams' SFORCE).
        const MarkerFrame mi = markerFrame(model, frames, force.markerI);
        const MarkerFrame mj = markerFrame(model, frames, force.markerJ);
        const Vec3 d = mi.p - mj.p;
        const double length = d.norm();
        const double f = component(0);
        if (length < 1e-12) {  // direction undefined: no force, unless it is not a number
            if (!std::isfinite(f)) layout::linear(g, 0).setConstant(f);
            break;
        }
        const Vec3 u = d / length;
        addWrench(frames, model.markers[static_cast<std::size_t>(force.markerI)].body, mi.p, f * u,
                  Vec3::Zero(), g);
        addWrench(frames, model.markers[static_cast<std::size_t>(force.markerJ)].body, mj.p, -f * u,
                  Vec3::Zero(), g);
        energies.actuatorPower += f * (mi.v - mj.v).dot(u);
        break;
    }
    case ForceType::Bushing: {
        // Displacement of I from J and rotation of I relative to J, in J's axes; the force
        // and torque act on I at its origin, their opposites on J (torque about I's origin
        // moved to J's origin by the lever arm, handled by addWrench's world point).
        const MarkerFrame mi = markerFrame(model, frames, force.markerI);
        const MarkerFrame mj = markerFrame(model, frames, force.markerJ);
        const Vec3 x = mj.R.transpose() * (mi.p - mj.p);
        const Vec3 xd = mj.R.transpose() * (mi.v - mj.v - mj.w.cross(mi.p - mj.p));
        const Vec3 theta = rotationVector(mj.R, mi.R);
        const Vec3 thetad = mj.R.transpose() * (mi.w - mj.w);
        const Vec3 F_J = -(force.translationalStiffness.cwiseProduct(x) +
                           force.translationalDamping.cwiseProduct(xd));
        const Vec3 T_J = -(force.rotationalStiffness.cwiseProduct(theta) +
                           force.rotationalDamping.cwiseProduct(thetad));
        const Vec3 F = mj.R * F_J, T = mj.R * T_J;
        addWrench(frames, model.markers[static_cast<std::size_t>(force.markerI)].body, mi.p, F, T,
                  g);
        addWrench(frames, model.markers[static_cast<std::size_t>(force.markerJ)].body, mi.p, -F, -T,
                  g);
        energies.elastic += 0.5 * (x.dot(force.translationalStiffness.cwiseProduct(x)) +
                                   theta.dot(force.rotationalStiffness.cwiseProduct(theta)));
        energies.dampingPower += xd.dot(force.translationalDamping.cwiseProduct(xd)) +
                                 thetad.dot(force.rotationalDamping.cwiseProduct(thetad));
        break;
    }
    }
}

std::string nonFiniteExpression(const ForceModel& force, double t) {
    if (!force.on) return {};
    auto quoted = [](const Expression& e) { return "its expression '" + e.text() + "'"; };
    switch (force.type) {
    case ForceType::PointForce:
    case ForceType::PointTorque: {
        static constexpr const char* axes[3] = {"x", "y", "z"};
        for (int c = 0; c < 3; ++c)
            if (force.inputs[c].empty())
                if (const double value = force.components[c].eval(t); !std::isfinite(value))
                    return quoted(force.components[c]) + " (" + axes[c] + " component) is " +
                           numberText(value) + " at t = " + timeText(t);
        return {};
    }
    case ForceType::LineForce:
    case ForceType::JointForce:
        if (force.inputs[0].empty())
            if (const double value = force.components[0].eval(t); !std::isfinite(value))
                return quoted(force.components[0]) + " (magnitude) is " + numberText(value) +
                       " at t = " + timeText(t);
        return {};
    case ForceType::JointController: {
        const Expression& target = force.components[0];
        if (!force.inputs[0].empty()) return {};
        if (const double value = target.eval(t); !std::isfinite(value))
            return quoted(target) + " (target) is " + numberText(value) + " at t = " + timeText(t);
        const double rate = target.derivative(t);
        if (std::isfinite(rate)) return {};
        // The rate takes the values up to 2 ms ahead (Expression::derivative): where the
        // target itself stops being finite is what the user can act on.
        const std::string rateText = "its rate, taken over the 2 ms ahead, is " + numberText(rate) +
                                     " at t = " + timeText(t);
        for (int k = 1; k <= 40; ++k) {
            const double tk = t + 1e-4 * k;
            if (const double value = target.eval(tk); !std::isfinite(value))
                return quoted(target) + " (target) is " + numberText(value) +
                       " at t = " + timeText(tk) + " (" + rateText + ")";
        }
        return quoted(target) + " (target): " + rateText;
    }
    case ForceType::SpringDamper:
    case ForceType::RotationalSpringDamper:
    case ForceType::Bushing:
        break;  // no expressions
    }
    return {};
}

std::string nonFiniteExpression(const Model& model, const ForceModel& force, double t,
                                const std::vector<BodyFrame>& frames,
                                const Eigen::VectorXd& jointCoordinates) {
    if (std::string cause = nonFiniteExpression(force, t); !cause.empty()) return cause;
    std::vector<double> values;
    evaluateStateValues(model, t, frames, jointCoordinates, values);
    static constexpr const char* axes[3] = {"x component", "y component", "z component"};
    const int count =
        force.type == ForceType::PointForce || force.type == ForceType::PointTorque ? 3 : 1;
    for (int c = 0; c < count; ++c) {
        const std::vector<int>& inputs = force.inputs[c];
        if (inputs.empty()) continue;
        const double value = evalStateExpression(force.components[c], inputs, t, values);
        if (std::isfinite(value)) continue;
        // What it read: the measures and variables, by name, with their values.
        std::string read;
        const int variables = static_cast<int>(model.variables.size());
        for (int k : inputs) {
            const std::string name =
                k < variables ? model.variables[static_cast<std::size_t>(k)].name
                              : model.measures[static_cast<std::size_t>(k - variables)].text;
            read += (read.empty() ? "" : ", ") + name + " = " +
                    numberText(values[static_cast<std::size_t>(k)]);
        }
        return "its expression '" + force.components[c].text() + "' (" +
               (count == 3                                 ? axes[c]
                : force.type == ForceType::JointController ? "target"
                                                           : "magnitude") +
               ") is " + numberText(value) + " at t = " + timeText(t) + ", where " + read;
    }
    return {};
}

double forceMagnitude(const Model& model, const ForceModel& force, double t,
                      const std::vector<BodyFrame>& frames,
                      const Eigen::VectorXd& jointCoordinates) {
    if (!force.on) return 0.0;
    if (force.inputs[0].empty()) return force.components[0].eval(t);
    std::vector<double> values;
    evaluateStateValues(model, t, frames, jointCoordinates, values);
    return evalStateExpression(force.components[0], force.inputs[0], t, values);
}

std::array<int, 2> forceElementBodies(const Model& model, const ForceModel& force) {
    auto bodyOf = [&](int marker) {
        return marker < 0 ? kGround : model.markers[static_cast<std::size_t>(marker)].body;
    };
    if (force.type == ForceType::RotationalSpringDamper ||
        force.type == ForceType::JointController || force.type == ForceType::JointForce) {
        const JointModel& joint = model.joints[static_cast<std::size_t>(force.joint)];
        return {bodyOf(joint.markerI), bodyOf(joint.markerJ)};
    }
    return {bodyOf(force.markerI), bodyOf(force.markerJ)};
}

double controllerEffort(const Model& model, const ForceModel& force, double t,
                        const std::vector<BodyFrame>& frames, double lastValue, double* rate,
                        const std::vector<double>* stateValues) {
    const JointModel& joint = model.joints[static_cast<std::size_t>(force.joint)];
    const ConstraintRow c = jointCoordinate(model, frames, force.joint, force.coordinate);
    if (!force.on) {  // switched off
        if (rate) *rate = c.rate;
        return 0.0;
    }
    const double q =
        joint.coordinates[static_cast<std::size_t>(force.coordinate)] == JointAxis::Rotation
            ? unwindAngle(c.value, lastValue)
            : c.value;
    const Expression& target = force.components[0];
    double goal = 0.0, goalRate = 0.0;
    if (force.inputs[0].empty()) {
        goal = target.eval(t);
        goalRate = target.derivative(t);
    } else {
        // A target that reads the state: its rate is its partial in time, the state held.
        std::vector<double> own;
        if (!stateValues) {
            evaluateStateValues(model, t, frames, Eigen::VectorXd(), own);
            stateValues = &own;
        }
        std::vector<double> in;
        for (int k : force.inputs[0]) in.push_back((*stateValues)[static_cast<std::size_t>(k)]);
        goal = target.eval(t, in.data());
        goalRate = target.derivative(t, in.data());
    }
    double effort = force.stiffness * (goal - q) + force.damping * (goalRate - c.rate);
    if (force.maxEffort > 0.0) effort = std::clamp(effort, -force.maxEffort, force.maxEffort);
    if (rate) *rate = c.rate;
    return effort;
}

int computeAppliedForces(const Model& model, double t, const std::vector<BodyFrame>& frames,
                         const Eigen::VectorXd& v, const Eigen::VectorXd& jointCoordinates,
                         Eigen::VectorXd& g, ForceEnergies* energies) {
    g.setZero(model.velocitySize());
    ForceEnergies local;

    // Gravity and the gyroscopic term, per body.
    for (int b = 0; b < model.bodyCount(); ++b) {
        const BodyModel& body = model.bodies[static_cast<std::size_t>(b)];
        const Vec3 w = layout::angular(v, b);
        layout::linear(g, b) += body.mass * model.gravity;
        layout::angular(g, b) -= w.cross(body.inertia.cwiseProduct(w));
    }

    // Viscous joint friction: −c ċ on the coordinate (its Coulomb part is solved with contact).
    for (const JointFrictionModel& f : model.frictions) {
        if (f.viscous <= 0.0) continue;
        const JointModel& joint = model.joints[static_cast<std::size_t>(f.joint)];
        if (f.ball) {
            // A ball joint's: −c (ω_I − ω_J) on I, the opposite on J.
            const int bi = model.markers[static_cast<std::size_t>(joint.markerI)].body;
            const int bj = model.markers[static_cast<std::size_t>(joint.markerJ)].body;
            const Vec3 wi = bi >= 0 ? frames[static_cast<std::size_t>(bi)].w : Vec3::Zero();
            const Vec3 wj = bj >= 0 ? frames[static_cast<std::size_t>(bj)].w : Vec3::Zero();
            const Vec3 torque = -f.viscous * (wi - wj);
            if (bi >= 0)
                layout::angular(g, bi) +=
                    frames[static_cast<std::size_t>(bi)].R.transpose() * torque;
            if (bj >= 0)
                layout::angular(g, bj) -=
                    frames[static_cast<std::size_t>(bj)].R.transpose() * torque;
            local.dampingPower += f.viscous * (wi - wj).squaredNorm();
            continue;
        }
        const ConstraintRow c = jointCoordinate(model, frames, f.joint, f.coordinate);
        const double force = -f.viscous * c.rate;
        const int bi = model.markers[static_cast<std::size_t>(joint.markerI)].body;
        const int bj = model.markers[static_cast<std::size_t>(joint.markerJ)].body;
        if (bi >= 0) layout::twist(g, bi) += force * c.Ji.transpose();
        if (bj >= 0) layout::twist(g, bj) += force * c.Jj.transpose();
        local.dampingPower += f.viscous * c.rate * c.rate;
    }

    int nonFinite = -1;
    if (model.forces.empty()) {  // (no element to name: non-finite states are caught upstream)
        if (energies) *energies = local;
        return -1;
    }
    const std::vector<int> offsets = jointCoordinateOffsets(model);
    thread_local std::vector<double> values;
    const bool state = model.stateValueCount() > 0;
    if (state) evaluateStateValues(model, t, frames, jointCoordinates, values);
    for (std::size_t index = 0; index < model.forces.size(); ++index) {
        if (nonFinite < 0 && !allFinite(g)) nonFinite = static_cast<int>(index) - 1;
        applyForceElement(model, model.forces[index], t, frames, jointCoordinates, offsets, g,
                          local, state ? &values : nullptr);
    }
    if (nonFinite < 0 && !allFinite(g) && !model.forces.empty())
        nonFinite = static_cast<int>(model.forces.size()) - 1;
    if (energies) *energies = local;
    return nonFinite;
}

}  // namespace engine
