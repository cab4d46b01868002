#include "engine/import/cad_joints.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "engine/math/number_text.h"
#include "engine/model/edit.h"

namespace engine::io {
namespace {

// Directions closer than this are the same (CAD geometry is exact to far better) [rad].
constexpr double kParallel = 1e-6;
// A fit's clearance: a pin and a hole whose radii differ by up to this fraction of the radius
// (or the tolerance) are one pair.
constexpr double kClearance = 0.02;

struct WorldFeature {
    CadFeature f;  // in W
    std::size_t part;
};

bool parallel(const Vec3& a, const Vec3& b) {
    return a.cross(b).norm() <= kParallel;
}

std::string mm(double metres) {
    return numberText(metres * 1e3, 4, "mm");
}

// A frame at `origin` whose z axis is `axis`.
Transform frameOn(const Vec3& origin, const Vec3& axis) {
    Transform X;
    X.R = Quat::FromTwoVectors(Vec3::UnitZ(), axis.normalized()).normalized();
    X.p = origin;
    return X;
}

// Flat faces of the two parts against each other: coplanar, opposed, overlapping.
bool facesMeet(const CadFeature& a, const CadFeature& b, double tolerance) {
    if (a.kind != CadFeature::Kind::Plane || b.kind != CadFeature::Kind::Plane) return false;
    if (a.direction.dot(b.direction) > -1.0 + kParallel) return false;
    if (std::abs((b.point - a.point).dot(a.direction)) > tolerance) return false;
    const Vec3 across = (b.point - a.point) - (b.point - a.point).dot(a.direction) * a.direction;
    return across.norm() < a.radius + b.radius;
}

}  // namespace

std::vector<JointSuggestion> suggestJoints(const SceneSpec& spec,
                                           const std::vector<std::vector<CadFeature>>& features,
                                           double tolerance) {
    // Each part's faces in W, and a sphere about them (centre, radius) for the pairs of parts
    // that may meet; the pins and balls, and the holes and sockets, on their own.
    const std::size_t parts = std::min(features.size(), spec.parts.size());
    std::vector<std::vector<WorldFeature>> byPart(parts);
    std::vector<Vec3> centre(parts, Vec3::Zero());
    std::vector<double> reach(parts, 0.0);
    std::vector<WorldFeature> pins, holes;
    for (std::size_t p = 0; p < parts; ++p) {
        const Transform& X = spec.parts[p].X_WP;
        for (const CadFeature& f : features[p]) {
            WorldFeature w{f, p};
            w.f.point = X * f.point;
            w.f.direction = (X.R * f.direction).normalized();
            byPart[p].push_back(w);
            centre[p] += w.f.point;
            if (f.kind != CadFeature::Kind::Plane) (f.convex ? pins : holes).push_back(w);
        }
        if (byPart[p].empty()) continue;
        centre[p] /= static_cast<double>(byPart[p].size());
        for (const WorldFeature& w : byPart[p])
            reach[p] = std::max(reach[p], (w.f.point - centre[p]).norm() + w.f.radius + w.f.length);
    }
    const auto near = [&](std::size_t a, std::size_t b) {
        return (centre[a] - centre[b]).norm() <= reach[a] + reach[b] + tolerance;
    };
    std::vector<JointSuggestion> out;
    std::set<std::pair<std::size_t, std::size_t>> joined;  // pairs given a pin or a ball
    const auto key = [](std::size_t a, std::size_t b) {
        return std::pair{std::min(a, b), std::max(a, b)};
    };
    // Pins in holes, balls in sockets.
    for (const WorldFeature& pin : pins) {
        for (const WorldFeature& hole : holes) {
            if (hole.part == pin.part || hole.f.kind != pin.f.kind) continue;
            if (joined.count(key(pin.part, hole.part))) continue;
            const double r = pin.f.radius;
            if (std::abs(hole.f.radius - r) > std::max(tolerance, kClearance * r)) continue;
            JointSuggestion s;
            s.partI = pin.part;
            s.partJ = hole.part;
            const std::string& nameI = spec.parts[pin.part].name;
            const std::string& nameJ = spec.parts[hole.part].name;
            if (pin.f.kind == CadFeature::Kind::Sphere) {
                if ((hole.f.point - pin.f.point).norm() > tolerance) continue;
                s.type = JointType::Spherical;
                s.X_WJ = frameOn(pin.f.point, Vec3::UnitZ());
                s.reason = "ball Ø" + mm(2 * r) + " of '" + nameI + "' in socket Ø" +
                           mm(2 * hole.f.radius) + " of '" + nameJ + "'";
            } else {
                const Vec3 axis = pin.f.direction;
                if (!parallel(axis, hole.f.direction)) continue;
                const Vec3 d = hole.f.point - pin.f.point;
                if ((d - d.dot(axis) * axis).norm() > tolerance) continue;
                // The pin's and the hole's extents along the axis, and their overlap.
                const double start = d.dot(axis);
                const double holeLo =
                    hole.f.direction.dot(axis) > 0.0 ? start : start - hole.f.length;
                const double lo = std::max(0.0, holeLo);
                const double hi = std::min(pin.f.length, holeLo + hole.f.length);
                if (hi - lo <= tolerance) continue;  // coaxial, but not one in the other
                // A face across the axis where the two parts meet stops the slide.
                bool stopped = false;
                for (const WorldFeature& a : byPart[pin.part]) {
                    if (a.f.kind != CadFeature::Kind::Plane || !parallel(a.f.direction, axis))
                        continue;
                    for (const WorldFeature& b : byPart[hole.part])
                        if (facesMeet(a.f, b.f, tolerance)) stopped = true;
                }
                s.type = stopped ? JointType::Revolute : JointType::Cylindrical;
                s.X_WJ = frameOn(pin.f.point + 0.5 * (lo + hi) * axis, axis);
                s.reason =
                    "pin Ø" + mm(2 * r) + " of '" + nameI + "' in hole Ø" + mm(2 * hole.f.radius) +
                    " of '" + nameJ + "', coaxial over " + mm(std::max(0.0, hi - lo)) +
                    (stopped ? ", faces across the axis touching" : ", nothing stops the slide");
            }
            joined.insert(key(pin.part, hole.part));
            out.push_back(s);
        }
    }
    // Flat faces against each other, between parts not joined otherwise.
    for (std::size_t a = 0; a < parts; ++a)
        for (std::size_t b = a + 1; b < parts; ++b) {
            if (byPart[a].empty() || byPart[b].empty() || !near(a, b) || joined.count({a, b}))
                continue;
            std::vector<Vec3> normals;
            Vec3 at = Vec3::Zero();
            for (const WorldFeature& fa : byPart[a]) {
                for (const WorldFeature& fb : byPart[b]) {
                    if (!facesMeet(fa.f, fb.f, tolerance)) continue;
                    if (normals.empty()) at = 0.5 * (fa.f.point + fb.f.point);
                    if (std::none_of(normals.begin(), normals.end(),
                                     [&](const Vec3& n) { return parallel(n, fa.f.direction); }))
                        normals.push_back(fa.f.direction);
                }
            }
            if (normals.empty()) continue;
            JointSuggestion s;
            s.partI = a;
            s.partJ = b;
            const std::string faces = "flat faces of '" + spec.parts[a].name + "' and '" +
                                      spec.parts[b].name + "' against each other";
            if (normals.size() == 1) {
                s.type = JointType::Planar;
                s.X_WJ = frameOn(at, normals[0]);
                s.reason = faces + ", all facing one way";
            } else {
                const Vec3 slide = normals[0].cross(normals[1]).normalized();
                if (std::any_of(normals.begin(), normals.end(),
                                [&](const Vec3& n) { return std::abs(n.dot(slide)) > kParallel; }))
                    continue;  // three ways: nothing left to move
                s.type = JointType::Prismatic;
                s.X_WJ = frameOn(at, slide);
                s.reason = faces + " in " + std::to_string(normals.size()) +
                           " directions, leaving a slide";
            }
            out.push_back(s);
        }
    return out;
}

std::size_t addSuggestedJoint(SceneSpec& spec, const JointSuggestion& suggestion) {
    Part& partI = spec.parts.at(suggestion.partI);
    Part& partJ = spec.parts.at(suggestion.partJ);
    std::set<std::string> jointNames;
    for (const Joint& j : spec.joints) jointNames.insert(j.name);
    std::string name = partI.name + "_" + partJ.name;
    for (int k = 2; jointNames.count(name); ++k)
        name = partI.name + "_" + partJ.name + "_" + std::to_string(k);
    auto addMarker = [&spec, &name, &suggestion](Part& part) {
        std::set<std::string> taken;
        for (const Marker& m : part.markers) taken.insert(m.name);
        std::string markerName = name;
        for (int k = 2; taken.count(markerName); ++k) markerName = name + "_" + std::to_string(k);
        Marker marker;
        marker.id = spec.newId();
        marker.name = markerName;
        marker.X_PM = part.X_WP.inverse() * suggestion.X_WJ;
        part.markers.push_back(marker);
        return MarkerRef{part.name, markerName};
    };
    Joint joint;
    joint.id = spec.newId();
    joint.name = name;
    joint.type = suggestion.type;
    joint.markerI = addMarker(partI);
    joint.markerJ = addMarker(partJ);
    spec.joints.push_back(joint);
    return spec.joints.size() - 1;
}

std::vector<EntityId> addImportedScene(SceneSpec& target, const SceneSpec& imported,
                                       std::string& error) {
    std::vector<EntityId> moving;
    const Part* importedGround = nullptr;
    for (const Part& part : imported.parts)
        part.ground ? void(importedGround = &part) : moving.push_back(part.id);
    std::vector<EntityId> added;
    std::map<std::string, std::string> names;  // imported part name → its name in target
    if (!moving.empty()) {
        added = copyParts(target, imported, moving, CopyPlacement{}, error);
        if (added.empty()) return {};
        for (std::size_t k = 0; k < added.size(); ++k)
            names[entityName(imported, moving[k])] = entityName(target, added[k]);
    }
    if (!importedGround) {
        if (added.empty()) error = "the imported scene has no parts";
        return added;
    }
    Part* ground = nullptr;  // (looked up after the copies: they grow target.parts)
    for (Part& part : target.parts)
        if (part.ground) ground = &part;
    if (!ground) {  // (target has no ground: the imported one, whole)
        Part part = *importedGround;
        part.id = target.newId();
        for (Marker& marker : part.markers) marker.id = target.newId();
        std::set<std::string> taken;
        for (const Part& p : target.parts) taken.insert(p.name);
        std::string name = part.name;
        for (int k = 2; taken.count(name); ++k) name = part.name + "_" + std::to_string(k);
        part.name = name;
        target.parts.insert(target.parts.begin(), part);
        ground = &target.parts.front();
        names[importedGround->name] = name;
        added.insert(added.begin(), part.id);
    } else {
        // Its shapes and markers onto target's ground, where they were in the world.
        const Transform X_GI = ground->X_WP.inverse() * importedGround->X_WP;
        for (Shape shape : importedGround->shapes) {
            shape.X_PG = X_GI * shape.X_PG;
            ground->shapes.push_back(shape);
        }
        std::set<std::string> taken;
        for (const Marker& m : ground->markers) taken.insert(m.name);
        for (Marker marker : importedGround->markers) {
            std::string name = marker.name;
            for (int k = 2; taken.count(name); ++k) name = marker.name + "_" + std::to_string(k);
            taken.insert(name);
            marker.id = target.newId();
            marker.X_PM = X_GI * marker.X_PM;
            const std::string was = importedGround->name + "." + marker.name;
            names[was] = ground->name + "." + name;
            marker.name = name;
            ground->markers.push_back(marker);
        }
    }
    // The joints to the imported ground (copyParts copies those among moving parts only).
    std::set<std::string> jointNames;
    for (const Joint& j : target.joints) jointNames.insert(j.name);
    const auto refIn = [&](const MarkerRef& ref) {
        if (ref.part == importedGround->name) {
            const auto it = names.find(ref.text());
            if (it != names.end()) {
                const std::size_t dot = it->second.find('.');
                return MarkerRef{it->second.substr(0, dot), it->second.substr(dot + 1)};
            }
            return MarkerRef{ground->name, ref.marker};  // (the ground taken whole)
        }
        return MarkerRef{names.at(ref.part), ref.marker};
    };
    for (const Joint& original : imported.joints) {
        if (original.markerI.part != importedGround->name &&
            original.markerJ.part != importedGround->name)
            continue;
        Joint joint = original;
        joint.id = target.newId();
        std::string name = original.name;
        for (int k = 2; jointNames.count(name); ++k) name = original.name + "_" + std::to_string(k);
        jointNames.insert(name);
        joint.name = name;
        joint.markerI = refIn(original.markerI);
        joint.markerJ = refIn(original.markerJ);
        target.joints.push_back(joint);
    }
    return added;
}

}  // namespace engine::io
