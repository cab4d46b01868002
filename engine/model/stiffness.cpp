#include "engine/model/stiffness.h"

#include <algorithm>
#include <cmath>

#include "engine/math/constants.h"
#include "engine/math/number_text.h"
#include "engine/model/model.h"

namespace engine {
namespace {

// Inverse effective mass of body b for a force along world direction n at world point p.
double inverseMass(const Model& model, const std::vector<Transform>& X_WB, int b, const Vec3& p,
                   const Vec3& n) {
    if (b == kGround) return 0.0;
    const BodyModel& body = model.bodies[static_cast<std::size_t>(b)];
    const Transform& X = X_WB[static_cast<std::size_t>(b)];
    const Vec3 c = X.R.conjugate() * (p - X.p).cross(n);
    return 1.0 / body.mass + c.cwiseProduct(c).dot(body.inertia.cwiseInverse());
}

// Inverse moment of inertia of a free body b for a torque about the world axis a: aᵀ I⁻¹ a in
// body axes (it turns about its centre of mass).
double inverseFreeInertia(const Model& model, const std::vector<Transform>& X_WB, int b,
                          const Vec3& a) {
    if (b == kGround) return 0.0;
    const BodyModel& body = model.bodies[static_cast<std::size_t>(b)];
    const Vec3 ab = X_WB[static_cast<std::size_t>(b)].R.conjugate() * a;
    return ab.cwiseProduct(ab).dot(body.inertia.cwiseInverse());
}

// Inverse moment of inertia of body b turning about the world axis a through world point p
// (parallel axes: the part turns about the joint, not its centre).
double inverseInertia(const Model& model, const std::vector<Transform>& X_WB, int b, const Vec3& p,
                      const Vec3& a) {
    if (b == kGround) return 0.0;
    const BodyModel& body = model.bodies[static_cast<std::size_t>(b)];
    const Transform& X = X_WB[static_cast<std::size_t>(b)];
    const Vec3 ab = X.R.conjugate() * a;
    const Vec3 r = X.p - p;
    const double offAxis = (r - r.dot(a) * a).squaredNorm();
    const double I = ab.cwiseProduct(ab).dot(body.inertia) + body.mass * offAxis;
    return I > 0.0 ? 1.0 / I : 0.0;
}

Transform markerPose(const Model& model, const std::vector<Transform>& X_WB, int marker) {
    const MarkerModel& m = model.markers[static_cast<std::size_t>(marker)];
    return m.body == kGround ? m.X_BM : X_WB[static_cast<std::size_t>(m.body)] * m.X_BM;
}

void add(std::vector<StiffnessEstimate>& out, int force, double k, double c, double inverse,
         bool rotational) {
    if (inverse <= 0.0 || (k <= 0.0 && c <= 0.0)) return;
    StiffnessEstimate e;
    e.force = force;
    e.stiffness = k;
    e.damping = c;
    e.mass = 1.0 / inverse;
    e.rotational = rotational;
    const double omega = std::sqrt(std::max(k, 0.0) * inverse), decay = std::max(c, 0.0) * inverse;
    e.rate = std::max(omega, decay);
    e.byDamping = decay > omega;
    out.push_back(e);
}

}  // namespace

std::vector<StiffnessEstimate> stiffnessEstimates(const Model& model,
                                                  const std::vector<Transform>& X_WB) {
    std::vector<StiffnessEstimate> out;
    for (int f = 0; f < static_cast<int>(model.forces.size()); ++f) {
        const ForceModel& force = model.forces[static_cast<std::size_t>(f)];
        switch (force.type) {
        case ForceType::SpringDamper: {
            const Transform I = markerPose(model, X_WB, force.markerI),
                            J = markerPose(model, X_WB, force.markerJ);
            const Vec3 d = J.p - I.p;
            const int bI = model.markers[static_cast<std::size_t>(force.markerI)].body;
            const int bJ = model.markers[static_cast<std::size_t>(force.markerJ)].body;
            // Along the spring; a spring of no length pulls any way: the worst axis.
            std::vector<Vec3> directions;
            if (d.norm() > 1e-12)
                directions = {d.normalized()};
            else
                directions = {Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()};
            double inverse = 0.0;
            for (const Vec3& n : directions)
                inverse = std::max(inverse, inverseMass(model, X_WB, bI, I.p, n) +
                                                inverseMass(model, X_WB, bJ, J.p, n));
            add(out, f, force.stiffness, force.damping, inverse, false);
            break;
        }
        case ForceType::Bushing: {
            const Transform I = markerPose(model, X_WB, force.markerI),
                            J = markerPose(model, X_WB, force.markerJ);
            const int bI = model.markers[static_cast<std::size_t>(force.markerI)].body;
            const int bJ = model.markers[static_cast<std::size_t>(force.markerJ)].body;
            for (int axis = 0; axis < 3; ++axis) {
                const Vec3 n = J.R * Vec3::Unit(axis);
                add(out, f, force.translationalStiffness(axis), force.translationalDamping(axis),
                    inverseMass(model, X_WB, bI, I.p, n) + inverseMass(model, X_WB, bJ, J.p, n),
                    false);
                add(out, f, force.rotationalStiffness(axis), force.rotationalDamping(axis),
                    inverseFreeInertia(model, X_WB, bI, n) + inverseFreeInertia(model, X_WB, bJ, n),
                    true);
            }
            break;
        }
        case ForceType::ComputedTorque:
            // Its error's rate is √kp and kd whatever the inertia: as a unit mass.
            add(out, f, force.stiffness, force.damping, 1.0,
                model.joints.at(static_cast<std::size_t>(force.joint))
                        .coordinates.at(static_cast<std::size_t>(force.coordinate)) ==
                    JointAxis::Rotation);
            break;
        case ForceType::RotationalSpringDamper:
        case ForceType::JointController: {
            if (force.joint < 0) break;
            const JointModel& joint = model.joints[static_cast<std::size_t>(force.joint)];
            const Transform I = markerPose(model, X_WB, joint.markerI),
                            J = markerPose(model, X_WB, joint.markerJ);
            const int bI = model.markers[static_cast<std::size_t>(joint.markerI)].body;
            const int bJ = model.markers[static_cast<std::size_t>(joint.markerJ)].body;
            const Vec3 axis = J.R * Vec3::UnitZ();
            const bool controller = force.type == ForceType::JointController;
            const bool rotation =
                !controller || joint.coordinates.at(static_cast<std::size_t>(force.coordinate)) ==
                                   JointAxis::Rotation;
            const double inverse = rotation ? inverseInertia(model, X_WB, bI, J.p, axis) +
                                                  inverseInertia(model, X_WB, bJ, J.p, axis)
                                            : inverseMass(model, X_WB, bI, I.p, axis) +
                                                  inverseMass(model, X_WB, bJ, J.p, axis);
            add(out, f, force.stiffness, force.damping, inverse, rotation);
            break;
        }
        case ForceType::Cable: {
            // Each point pulled along its segments: the most mobile point along the cable.
            const std::vector<int> points = [&] {
                std::vector<int> p{force.markerI};
                p.insert(p.end(), force.via.begin(), force.via.end());
                p.push_back(force.markerJ);
                return p;
            }();
            double inverse = 0.0;
            for (std::size_t i = 0; i + 1 < points.size(); ++i) {
                const Transform A = markerPose(model, X_WB, points[i]),
                                B = markerPose(model, X_WB, points[i + 1]);
                const Vec3 d = B.p - A.p;
                if (d.norm() < 1e-12) continue;
                const Vec3 n = d.normalized();
                for (int m : {points[i], points[i + 1]}) {
                    const int b = model.markers[static_cast<std::size_t>(m)].body;
                    inverse = std::max(inverse,
                                       inverseMass(model, X_WB, b, m == points[i] ? A.p : B.p, n));
                }
            }
            add(out, f, force.stiffness, force.damping, inverse, false);
            break;
        }
        case ForceType::PointForce:
        case ForceType::PointTorque:
        case ForceType::LineForce:  // (an expression: its stiffness is not known beforehand)
        case ForceType::JointForce:
            break;
        }
    }
    // Soft joints, where they are forces: a bushing on the joint's markers, each kind of
    // equation with its gains (by frequency: ω = 2π f and a decay of 2 ζ ω, whatever the mass).
    const IntegratorType integrator = model.settings.integrator;
    if (integrator == IntegratorType::TimeStepping || integrator == IntegratorType::ImplicitEuler ||
        integrator == IntegratorType::Trapezoidal)
        return out;
    for (const SoftConstraint& sc : model.softConstraints) {
        const std::size_t before = out.size();
        const JointModel& joint = model.joints[static_cast<std::size_t>(sc.joint)];
        const bool angle = sc.primitive.type == PrimitiveType::Dot1;
        const Transform I = markerPose(model, X_WB, joint.markerI),
                        J = markerPose(model, X_WB, joint.markerJ);
        const int bI = model.markers[static_cast<std::size_t>(joint.markerI)].body;
        const int bJ = model.markers[static_cast<std::size_t>(joint.markerJ)].body;
        double inverse = 0.0;  // the worst axis
        for (int axis = 0; axis < 3; ++axis) {
            const Vec3 n = J.R * Vec3::Unit(axis);
            inverse = std::max(inverse, angle ? inverseFreeInertia(model, X_WB, bI, n) +
                                                    inverseFreeInertia(model, X_WB, bJ, n)
                                              : inverseMass(model, X_WB, bI, I.p, n) +
                                                    inverseMass(model, X_WB, bJ, J.p, n));
        }
        if (sc.frequency > 0.0) {
            const double omega = 2.0 * kPi * sc.frequency;
            add(out, -1, omega * omega / inverse, 2.0 * sc.dampingRatio * omega / inverse, inverse,
                angle);
        } else {
            add(out, -1, sc.stiffness, sc.damping, inverse, angle);
        }
        for (std::size_t k = before; k < out.size(); ++k) out[k].joint = sc.joint;
    }
    return out;
}

double stabilityLimit(IntegratorType integrator) {
    switch (integrator) {
    case IntegratorType::SymplecticEuler:
    case IntegratorType::TimeStepping:
        return 2.0;
    case IntegratorType::RungeKutta4:
        return 2.78;
    case IntegratorType::DormandPrince45:
    case IntegratorType::ImplicitEuler:
    case IntegratorType::Trapezoidal:
        break;
    }
    return std::numeric_limits<double>::infinity();
}

std::string stiffnessMessage(const Model& model, const StiffnessEstimate& e, double h) {
    const double limit = stabilityLimit(model.settings.integrator);
    const std::string integrator(integratorName(model.settings.integrator));
    const char* massUnit = e.rotational ? " kg·m²" : " kg";
    const bool joint = e.joint >= 0;
    std::string what =
        joint ? "soft joint '" + model.joints[static_cast<std::size_t>(e.joint)].name + "' ("
              : "force '" + model.forces[static_cast<std::size_t>(e.force)].name + "' (";
    // What takes the element at any step: soft joints are rows of the velocity-level step.
    const std::string stable =
        joint ? "the timeStepping or implicitEuler integrator (which take soft joints "
                "implicitly, stable at any step)"
              : "the implicitEuler integrator (stable for stiff springs and dampers at any step)";
    if (!joint && model.forces[static_cast<std::size_t>(e.force)].type == ForceType::ComputedTorque)
        return what + "computed torque, kp " + numberText(e.stiffness, 3) + " /s², kd " +
               numberText(e.damping, 3) + " /s) makes its error decay or ring at up to " +
               numberText(e.rate, 3) + " /s: " + integrator +
               (std::isfinite(limit)
                    ? " is stable only for steps below " + numberText(limit / e.rate, 3) + " s"
                    : " has to take steps of about " + numberText(3.3 / e.rate, 3) +
                          " s to follow it") +
               ". Lower its gains (every integrator takes computed torque explicitly)";
    if (e.byDamping)
        what += "damping " + numberText(e.damping, 3) + (e.rotational ? " N·m·s/rad" : " N·s/m") +
                " on " + numberText(e.mass, 3) + massUnit + ") damps at a rate of " +
                numberText(e.rate, 3) + " /s";
    else
        what += "stiffness " + numberText(e.stiffness, 3) + (e.rotational ? " N·m/rad" : " N/m") +
                " on " + numberText(e.mass, 3) + massUnit + ") vibrates at up to " +
                numberText(e.rate, 3) + " rad/s";
    if (!std::isfinite(limit)) {
        // An adaptive method follows it with steps of about 3/ω: for 1 s, 3e-1 ω steps.
        return what + ": " + integrator + " has to take steps of about " +
               numberText(3.3 / e.rate, 3) + " s to follow it. Use " + stable +
               ", or make the element softer";
    }
    const double longest = limit / e.rate;
    return what + ": " + integrator + " is stable only for steps below " + numberText(longest, 3) +
           " s (" + (e.byDamping ? "c h / m" : "ω h") + " < " + numberText(limit, 3) +
           "), the step is " + numberText(h, 3) + " s. Take a step below " +
           numberText(longest, 3) + " s, or " + stable;
}

StiffnessEstimate stiffestBeyondLimit(const Model& model, const std::vector<Transform>& X_WB,
                                      double step) {
    const double limit = stabilityLimit(model.settings.integrator);
    // A method without a limit is held back by an element it must resolve: ω h of order one.
    const double threshold = std::isfinite(limit) ? limit : 0.05;
    if (!(step > 0.0)) step = model.settings.stepSize;
    StiffnessEstimate worst;
    for (const StiffnessEstimate& e : stiffnessEstimates(model, X_WB))
        if (e.rate * step > threshold && e.rate > worst.rate) worst = e;
    return worst;
}

Diagnostics stiffnessWarnings(const Model& model, const SceneSpec& spec) {
    std::vector<Transform> X_WB;
    for (const BodyModel& body : model.bodies) X_WB.push_back(body.X_WB0);
    const double limit = stabilityLimit(model.settings.integrator);
    Diagnostics out;
    if (!std::isfinite(limit)) return out;
    int lastForce = -1, lastJoint = -1;
    for (const StiffnessEstimate& e : stiffnessEstimates(model, X_WB)) {
        if (e.rate * model.settings.stepSize <= limit) continue;
        // One warning per element (a bushing has six axes, a soft joint several equations).
        if (e.joint >= 0 ? e.joint == lastJoint : e.force == lastForce) continue;
        (e.joint >= 0 ? lastJoint : lastForce) = e.joint >= 0 ? e.joint : e.force;
        std::string where;
        if (e.joint >= 0) {
            const std::string& name = model.joints[static_cast<std::size_t>(e.joint)].name;
            for (std::size_t k = 0; k < spec.joints.size(); ++k)
                if (spec.joints[k].name == name) where = "/joints/" + std::to_string(k) + "/soft";
        } else {
            const std::string& name = model.forces[static_cast<std::size_t>(e.force)].name;
            for (std::size_t k = 0; k < spec.forces.size(); ++k)
                if (spec.forces[k].name == name) where = "/forces/" + std::to_string(k);
        }
        out.push_back(
            {Severity::Warning, where,
             stiffnessMessage(model, e, model.settings.stepSize) + ": the run would blow up"});
    }
    return out;
}

}  // namespace engine
