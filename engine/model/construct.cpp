#include "engine/model/construct.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

#include <Eigen/Eigenvalues>

#include "engine/math/number_text.h"
#include "engine/model/mass_properties.h"

namespace engine {
namespace {

constexpr double kSteelDensity = 7850.0;  // kg/m³

template <class List>
bool nameTaken(const List& list, const std::string& name) {
    return std::any_of(list.begin(), list.end(), [&](const auto& e) { return e.name == name; });
}

template <class List>
auto* findById(List& list, EntityId id) {
    for (auto& e : list)
        if (e.id == id) return &e;
    return static_cast<decltype(&*list.begin())>(nullptr);
}

// Support function of one shape along the unit direction n_P: max of n·x over its points.
double shapeSupport(const Shape& s, const Vec3& n_P) {
    const Vec3 c = s.X_PG.p;
    const Vec3 a = s.X_PG.R * Vec3::UnitZ();  // axis of bodies of revolution
    const double along = n_P.dot(a);
    const double across = std::sqrt(std::max(0.0, 1.0 - along * along));
    switch (s.type) {
    case ShapeType::Box: {
        const Mat3 R = s.X_PG.rotationMatrix();
        double h = n_P.dot(c);
        for (int k = 0; k < 3; ++k) h += 0.5 * s.size(k) * std::abs(n_P.dot(R.col(k)));
        return h;
    }
    case ShapeType::Sphere:
        return n_P.dot(c) + s.radius;
    case ShapeType::Cylinder:
        return n_P.dot(c) + s.radius * across + 0.5 * s.length * std::abs(along);
    case ShapeType::Capsule:
        return n_P.dot(c) + s.radius + 0.5 * s.length * std::abs(along);
    case ShapeType::Cone:
        return std::max(n_P.dot(c) + 0.5 * s.length * along,
                        n_P.dot(c) - 0.5 * s.length * along + s.radius * across);
    case ShapeType::Mesh: {
        if (!s.mesh || s.mesh->vertices.empty()) return n_P.dot(c);
        double h = -std::numeric_limits<double>::infinity();
        for (const Vec3& v : s.mesh->vertices)
            h = std::max(h, n_P.dot(s.X_PG * Vec3(s.scale.cwiseProduct(v))));
        return h;
    }
    case ShapeType::Plane:
        break;
    }
    return n_P.dot(c);
}

// A value kept to two significant digits (defaults a user reads and edits).
double twoDigits(double v) {
    if (!(v > 0.0)) return v;
    const double scale = std::pow(10.0, std::floor(std::log10(v)) - 1.0);
    return std::round(v / scale) * scale;
}

// Stiffness and damping that give a body of inertia `inertia` (kg or kg·m²) a natural
// frequency of `hz` with damping ratio ζ = 0.3: soft enough for a 1 ms step of any integrator
// (ω h ≪ 1), stiff enough to hold. Defaults sized to the parts, not to one scale of mechanism.
// What a joint's coordinate moves: part I's mass for a slide, its moment of inertia about the
// joint axis (through marker I) for a turn; 1 kg or 1e-3 kg·m² where part I is the ground.
double jointInertia(const SceneSpec& spec, const Joint& joint, bool slide) {
    const Part* part = spec.findPart(joint.markerI.part);
    const Marker* marker = spec.findMarker(joint.markerI);
    if (!part || !marker || part->ground) return slide ? 1.0 : 1e-3;
    const MassProperties m = partMassProperties(*part);
    const Vec3 a = marker->X_PM.R * Vec3::UnitZ();
    const Vec3 d = m.p_PPcm - marker->X_PM.p;
    return slide ? m.mass : a.dot(m.I_Pcm_P * a) + m.mass * (d - d.dot(a) * a).squaredNorm();
}

std::pair<double, double> tuned(double inertia, double hz) {
    const double omega = 2.0 * kPi * hz;
    return {twoDigits(inertia * omega * omega), twoDigits(2.0 * 0.3 * inertia * omega)};
}

// The mass and the smallest principal moment of inertia (about the centre of mass) of a part;
// the ground counts as infinitely heavy.
std::pair<double, double> massAndInertia(const Part& part) {
    if (part.ground)
        return {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
    const MassProperties m = partMassProperties(part);
    const Eigen::SelfAdjointEigenSolver<Mat3> eigen(m.I_Pcm_P);
    return {m.mass, eigen.eigenvalues().minCoeff()};
}

// Two bodies held together feel the reduced value a b / (a + b) (one of them: the other).
double reduced(double a, double b) {
    if (!std::isfinite(a)) return b;
    if (!std::isfinite(b)) return a;
    return a * b / (a + b);
}

}  // namespace

std::string freshName(const SceneSpec& spec, NameSpace kind, std::string_view stem) {
    for (int k = 1;; ++k) {
        const std::string name = std::string(stem) + std::to_string(k);
        bool taken = false;
        switch (kind) {
        case NameSpace::Part:
            taken = nameTaken(spec.parts, name);
            break;
        case NameSpace::Joint:
            taken = nameTaken(spec.joints, name);
            break;
        case NameSpace::Force:
            taken = nameTaken(spec.forces, name);
            break;
        case NameSpace::Motion:
            taken = nameTaken(spec.motions, name);
            break;
        case NameSpace::Coupler:
            taken = nameTaken(spec.couplers, name);
            break;
        case NameSpace::ContactPair:
            taken = nameTaken(spec.contact.pairs, name);
            break;
        }
        if (!taken) return name;
    }
}

std::string freshMarkerName(const Part& part, std::string_view stem) {
    for (int k = 1;; ++k) {
        const std::string name = std::string(stem) + std::to_string(k);
        if (!nameTaken(part.markers, name)) return name;
    }
}

Part primitivePart(ShapeType type) {
    Part part;
    part.density = kSteelDensity;
    Shape shape;
    shape.type = type;
    switch (type) {
    case ShapeType::Box:
        shape.size = Vec3(0.2, 0.04, 0.04);
        break;
    case ShapeType::Sphere:
        shape.radius = 0.04;
        break;
    case ShapeType::Cylinder:
    case ShapeType::Capsule:
        shape.radius = 0.02;
        shape.length = 0.2;
        break;
    case ShapeType::Cone:
        shape.radius = 0.04;
        shape.length = 0.1;
        break;
    case ShapeType::Mesh:
    case ShapeType::Plane:
        break;
    }
    part.shapes.push_back(shape);
    return part;
}

double supportDistance(const Part& part, const Vec3& n_P) {
    double h = 0.0;
    bool any = false;
    for (const Shape& s : part.shapes) {
        if (s.type == ShapeType::Plane) continue;
        h = any ? std::max(h, shapeSupport(s, n_P)) : shapeSupport(s, n_P);
        any = true;
    }
    return any ? h : 0.0;
}

EntityId addPart(SceneSpec& spec, Part part, std::string_view stem) {
    part.id = spec.newId();
    if (part.name.empty() || nameTaken(spec.parts, part.name))
        part.name = freshName(spec, NameSpace::Part, stem);
    for (Marker& m : part.markers) m.id = spec.newId();
    spec.parts.push_back(std::move(part));
    return spec.parts.back().id;
}

EntityId addMarker(SceneSpec& spec, EntityId partId, const Transform& X_PM, std::string_view stem) {
    Part* part = partById(spec, partId);
    if (!part) return kNoEntity;
    Marker marker;
    marker.id = spec.newId();
    marker.name = freshMarkerName(*part, stem);
    marker.X_PM = X_PM;
    marker.X_PM.R.normalize();
    part->markers.push_back(marker);
    return marker.id;
}

EntityId addJoint(SceneSpec& spec, JointType type, EntityId markerI, EntityId markerJ) {
    const Part* partI = partOfMarker(spec, markerI);
    const Part* partJ = partOfMarker(spec, markerJ);
    if (!partI || !partJ) return kNoEntity;
    Joint joint;
    joint.id = spec.newId();
    joint.name = freshName(spec, NameSpace::Joint, jointTypeName(type));
    joint.type = type;
    joint.markerI = {partI->name, markerById(spec, markerI)->name};
    joint.markerJ = {partJ->name, markerById(spec, markerJ)->name};
    if (type == JointType::Distance) {
        // The distance the markers are apart now (a rod of that length), or 0.1 m.
        const double d =
            (markerWorldPose(spec, markerI).p - markerWorldPose(spec, markerJ).p).norm();
        joint.length = d > 1e-9 ? d : 0.1;
    }
    spec.joints.push_back(joint);
    return joint.id;
}

EntityId addForce(SceneSpec& spec, ForceType type, EntityId markerI, EntityId markerJ,
                  EntityId jointId) {
    ForceSpec force;
    force.type = type;
    auto refOf = [&](EntityId marker) -> std::optional<MarkerRef> {
        const Part* part = partOfMarker(spec, marker);
        if (!part) return std::nullopt;
        return MarkerRef{part->name, markerById(spec, marker)->name};
    };
    switch (type) {
    case ForceType::PointForce:
    case ForceType::PointTorque: {
        const auto ref = refOf(markerI);
        if (!ref) return kNoEntity;
        force.markerI = *ref;
        if (type == ForceType::PointForce)
            force.components[2] = "-10";
        else
            force.components[2] = "1";
        break;
    }
    case ForceType::SpringDamper:
    case ForceType::Cable:
    case ForceType::Bushing:
    case ForceType::LineForce: {
        const auto i = refOf(markerI), j = refOf(markerJ);
        if (!i || !j) return kNoEntity;
        force.markerI = *i;
        force.markerJ = *j;
        const auto [mi, Ii] = massAndInertia(*partOfMarker(spec, markerI));
        const auto [mj, Ij] = massAndInertia(*partOfMarker(spec, markerJ));
        const double m = reduced(mi, mj), I = reduced(Ii, Ij);
        if (type == ForceType::SpringDamper || type == ForceType::Cable) {
            // At its free length where it is made: the spring pulls only once the parts move
            // (a cable, once they move apart); 2 Hz on the parts it joins.
            std::tie(force.stiffness, force.damping) = tuned(std::isfinite(m) ? m : 1.0, 2.0);
            force.freeLength =
                (markerWorldPose(spec, markerI).p - markerWorldPose(spec, markerJ).p).norm();
        } else if (type == ForceType::LineForce) {
            // The same spring and damper written out, to be edited: what the measures read.
            const auto [k, c] = tuned(std::isfinite(m) ? m : 1.0, 2.0);
            const double length =
                (markerWorldPose(spec, markerI).p - markerWorldPose(spec, markerJ).p).norm();
            const std::string pair = i->text() + ", " + j->text();
            force.components[0] = "-" + numberText(k, 4) + "*(DM(" + pair + ") - " +
                                  numberText(length, 6) + ") - " + numberText(c, 4) + "*VR(" +
                                  pair + ")";
        } else {
            // A firm mount: 10 Hz in translation and rotation.
            const auto [kt, ct] = tuned(std::isfinite(m) ? m : 1.0, 10.0);
            const auto [kr, cr] = tuned(std::isfinite(I) ? I : 1e-3, 10.0);
            force.translationalStiffness = Vec3::Constant(kt);
            force.translationalDamping = Vec3::Constant(ct);
            force.rotationalStiffness = Vec3::Constant(kr);
            force.rotationalDamping = Vec3::Constant(cr);
        }
        break;
    }
    case ForceType::RotationalSpringDamper:
    case ForceType::JointController:
    case ForceType::ComputedTorque:
    case ForceType::JointForce: {
        const Joint* joint = findById(spec.joints, jointId);
        if (!joint) return kNoEntity;
        // Only joints with a coordinate of that kind: an angle for a torsion spring, an angle or
        // a slide for a controller.
        const bool turns =
            joint->type == JointType::Revolute || joint->type == JointType::Cylindrical;
        if (!turns &&
            (type == ForceType::RotationalSpringDamper || joint->type != JointType::Prismatic))
            return kNoEntity;
        force.joint = joint->name;
        // Sized to what the joint moves.
        const bool slide = joint->type == JointType::Prismatic;
        const double inertia = jointInertia(spec, *joint, slide);
        if (type == ForceType::RotationalSpringDamper) {
            std::tie(force.stiffness, force.damping) =
                tuned(inertia, 2.0);  // a 2 Hz torsion spring
        } else if (type == ForceType::JointForce) {
            // A viscous drag on the coordinate, written out to be edited: what q and qd read.
            force.axis = slide ? JointAxis::Translation : JointAxis::Rotation;
            const double c = tuned(inertia, 2.0).second;
            force.components[0] = "-" + numberText(c, 4) + "*qd(" + joint->name + ")";
        } else if (type == ForceType::ComputedTorque) {
            // One axis of a tree: a revolute or prismatic joint. The error's own dynamics at
            // 5 Hz, critically damped: kp = ω², kd = 2ω.
            if (joint->type == JointType::Cylindrical) return kNoEntity;
            force.axis = slide ? JointAxis::Translation : JointAxis::Rotation;
            const double omega = 2.0 * kPi * 5.0;
            force.stiffness = omega * omega;
            force.damping = 2.0 * omega;
            force.components[0] = "0";
        } else {
            force.axis = slide ? JointAxis::Translation : JointAxis::Rotation;
            std::tie(force.stiffness, force.damping) = tuned(inertia, 5.0);  // a 5 Hz servo
            force.components[0] = "0";
        }
        break;
    }
    }
    force.id = spec.newId();
    force.name = freshName(spec, NameSpace::Force, forceTypeName(type));
    spec.forces.push_back(force);
    return force.id;
}

void convertServoGains(const SceneSpec& spec, ForceSpec& force, ForceType from, ForceType to) {
    const bool pd = from == ForceType::JointController && to == ForceType::ComputedTorque;
    const bool back = from == ForceType::ComputedTorque && to == ForceType::JointController;
    if (!pd && !back) return;
    const Joint* joint = spec.findJoint(force.joint);
    if (!joint) return;
    const double inertia = jointInertia(spec, *joint, force.axis == JointAxis::Translation);
    if (!(inertia > 0.0) || !std::isfinite(inertia)) return;
    const double scale = pd ? 1.0 / inertia : inertia;
    force.stiffness *= scale;
    force.damping *= scale;
}

EntityId addMotion(SceneSpec& spec, EntityId jointId) {
    const Joint* joint = findById(spec.joints, jointId);
    if (!joint) return kNoEntity;
    MotionSpec motion;
    motion.joint = joint->name;
    switch (joint->type) {
    case JointType::Revolute:
    case JointType::Cylindrical:
        motion.axis = JointAxis::Rotation;
        motion.expression = "360d*time";
        break;
    case JointType::Prismatic:
        motion.axis = JointAxis::Translation;
        motion.expression = "0.05*sin(2*pi*time)";
        break;
    default:
        return kNoEntity;  // only these joints have a coordinate to drive
    }
    motion.id = spec.newId();
    motion.name = freshName(spec, NameSpace::Motion, "motion");
    spec.motions.push_back(motion);
    return motion.id;
}

namespace {
// The part a joint turns or slides of the two it joins: the one it does not share with
// `other` (the carrier both sit on, often the ground); part I when they share none.
const Part* movingPartOf(const SceneSpec& spec, const Joint& joint, const Joint* other) {
    auto shares = [&](const std::string& part) {
        return other && (other->markerI.part == part || other->markerJ.part == part);
    };
    const std::string& name = shares(joint.markerI.part) && !shares(joint.markerJ.part)
                                  ? joint.markerJ.part
                                  : joint.markerI.part;
    return spec.findPart(name);
}
// A joint's marker J in the world at the parts' poses (its z: the axle, or the slide).
std::optional<Transform> axleOf(const SceneSpec& spec, const Joint& joint) {
    const Part* part = spec.findPart(joint.markerJ.part);
    const Marker* marker = spec.findMarker(joint.markerJ);
    if (!part || !marker) return std::nullopt;
    return part->X_WP * marker->X_PM;
}
// The radius of the gear (pinion) on `part` that turns about `axle` (z) and meshes at the
// level of `mate` (a point on the other joint's axle or slide): of the part's cylinders along
// the axle, the one whose length reaches nearest that level, the largest of those equally near
// (a pinion on its shaft, not the steering wheel at the shaft's other end); the part's largest
// cylinder when none lies along the axle or the axle is unknown; 0 without a cylinder.
double cylinderRadius(const Part* part, const std::optional<Transform>& axle,
                      const std::optional<Transform>& mate) {
    double largest = 0.0, best = 0.0, nearest = std::numeric_limits<double>::infinity();
    if (!part) return 0.0;
    for (const Shape& shape : part->shapes) {
        if (shape.type != ShapeType::Cylinder) continue;
        largest = std::max(largest, shape.radius);
        if (!axle || !mate) continue;
        const Transform X_WG = part->X_WP * shape.X_PG;
        const Vec3 z = axle->R * Vec3::UnitZ(), zG = X_WG.R * Vec3::UnitZ();
        Vec3 off = X_WG.p - axle->p;
        off -= off.dot(z) * z;
        if (std::abs(z.dot(zG)) < 1.0 - 1e-6 || off.norm() > 1e-6 * (1.0 + shape.radius))
            continue;  // not along the axle
        const double level = z.dot(mate->p - X_WG.p);
        const double gap = std::max(0.0, std::abs(level) - 0.5 * shape.length);
        if (gap < nearest - 1e-12 || (gap < nearest + 1e-12 && shape.radius > best)) {
            nearest = std::min(nearest, gap);
            best = shape.radius;
        }
    }
    return best > 0.0 ? best : largest;
}
}  // namespace

EntityId addCoupler(SceneSpec& spec, CouplerType type, EntityId jointI, EntityId jointJ) {
    const Joint* I = findById(spec.joints, jointI);
    const Joint* J = findById(spec.joints, jointJ);
    if (!I || (type != CouplerType::Screw && (!J || I == J))) return kNoEntity;
    auto has = [](const Joint* joint, JointAxis axis) {
        const std::vector<JointAxis> axes = jointAxes(joint->type);
        return std::find(axes.begin(), axes.end(), axis) != axes.end();
    };
    CouplerSpec c;
    c.type = type;
    c.jointI = I->name;
    switch (type) {
    case CouplerType::Gear: {
        if (!has(I, JointAxis::Rotation) || !has(J, JointAxis::Rotation)) return kNoEntity;
        c.jointJ = J->name;
        const double rI =
            cylinderRadius(movingPartOf(spec, *I, J), axleOf(spec, *I), axleOf(spec, *J));
        const double rJ =
            cylinderRadius(movingPartOf(spec, *J, I), axleOf(spec, *J), axleOf(spec, *I));
        c.ratio = rI > 0.0 && rJ > 0.0 ? rJ / rI : 1.0;
        break;
    }
    case CouplerType::RackPinion: {
        if (!has(I, JointAxis::Rotation) || !has(J, JointAxis::Translation)) return kNoEntity;
        c.jointJ = J->name;
        const double r =
            cylinderRadius(movingPartOf(spec, *I, J), axleOf(spec, *I), axleOf(spec, *J));
        c.radius = r > 0.0 ? r : 0.05;
        break;
    }
    case CouplerType::Screw:
        if (!has(I, JointAxis::Rotation) || !has(I, JointAxis::Translation)) return kNoEntity;
        c.pitch = 0.005;
        break;
    case CouplerType::Linear: {
        const std::vector<JointAxis> axesI = jointAxes(I->type), axesJ = jointAxes(J->type);
        if (axesI.empty() || axesJ.empty()) return kNoEntity;
        c.jointI.clear();
        c.terms = {{I->name, axesI.front(), 1.0}, {J->name, axesJ.front(), -1.0}};
        break;
    }
    }
    c.id = spec.newId();
    c.name = freshName(spec, NameSpace::Coupler, couplerTypeName(type));
    spec.couplers.push_back(c);
    return c.id;
}

EntityId addContactPair(SceneSpec& spec, EntityId partA, EntityId partB) {
    const Part* a = partById(spec, partA);
    const Part* b = partById(spec, partB);
    if (!a || !b || a == b) return kNoEntity;
    ContactPairSpec pair;
    pair.id = spec.newId();
    pair.name = freshName(spec, NameSpace::ContactPair, "contact");
    pair.partA = a->name;
    pair.partB = b->name;
    spec.contact.pairs.push_back(pair);
    return pair.id;
}

const Part* partOfMarker(const SceneSpec& spec, EntityId marker) {
    for (const Part& p : spec.parts)
        for (const Marker& m : p.markers)
            if (m.id == marker) return &p;
    return nullptr;
}

Part* partOfMarker(SceneSpec& spec, EntityId marker) {
    return const_cast<Part*>(partOfMarker(static_cast<const SceneSpec&>(spec), marker));
}

const Part* partById(const SceneSpec& spec, EntityId part) {
    return findById(spec.parts, part);
}

Part* partById(SceneSpec& spec, EntityId part) {
    return findById(spec.parts, part);
}

const Marker* markerById(const SceneSpec& spec, EntityId marker) {
    for (const Part& p : spec.parts)
        for (const Marker& m : p.markers)
            if (m.id == marker) return &m;
    return nullptr;
}

Transform markerWorldPose(const SceneSpec& spec, EntityId marker) {
    const Part* part = partOfMarker(spec, marker);
    if (!part) return {};
    return part->X_WP * markerById(spec, marker)->X_PM;
}

Part& groundPart(SceneSpec& spec) {
    for (Part& p : spec.parts)
        if (p.ground) return p;
    Part ground;
    ground.ground = true;
    ground.name =
        nameTaken(spec.parts, "ground") ? freshName(spec, NameSpace::Part, "ground") : "ground";
    ground.id = spec.newId();
    spec.parts.insert(spec.parts.begin(), ground);
    return spec.parts.front();
}

Quat rotationWithZAlong(const Vec3& n) {
    // The turn about z × u by the angle from z to u, both from u's components: sin = |u_xy|
    // and cos = u_z keep full precision up to u = −z (Quat::FromTwoVectors goes through
    // 1 + z·u, which loses the direction of u near −z).
    const Vec3 u = n.normalized();
    const double sine = std::hypot(u.x(), u.y());
    if (sine == 0.0)  // u = ±z (a zero n gives no turn); z → −z turns about x and keeps it
        return u.z() >= 0.0 ? Quat::Identity() : Quat(Eigen::AngleAxisd(kPi, Vec3::UnitX()));
    const Vec3 axis(-u.y() / sine, u.x() / sine, 0.0);
    return Quat(Eigen::AngleAxisd(std::atan2(sine, u.z()), axis));
}

}  // namespace engine
