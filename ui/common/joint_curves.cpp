#include "ui/common/joint_curves.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/math/constants.h"
#include "engine/math/number_text.h"
#include "engine/model/construct.h"
#include "engine/model/curve.h"

namespace ui {
namespace {

using engine::CurveSpec;
using engine::CurveType;
using engine::Vec3;

// Kept to a decimal grid (1e-5: 10 µm), as the decimal number closest (clean numbers in
// Properties: -0.3, not -0.30000000000000004).
double roundTo(double value, double grid) {
    const double steps = std::round(1.0 / grid);
    const double r = std::round(value * steps) / steps;
    return r == 0.0 ? 0.0 : r;  // no −0
}
Vec3 roundTo(const Vec3& p, double grid) {
    return {roundTo(p.x(), grid), roundTo(p.y(), grid), roundTo(p.z(), grid)};
}

// A number as an expression's text: six significant digits, 0 for round-off.
std::string text(double value) {
    return engine::numberText(std::abs(value) < 1e-12 ? 0.0 : value, 6);
}

CurveSpec circle(const Vec3& centre, double radius) {
    CurveSpec c;
    c.type = CurveType::Expression;
    auto plus = [](double at, const std::string& term) {
        if (std::abs(at) < 1e-12) return term;
        return text(at) + " + " + term;
    };
    c.x = plus(centre.x(), text(radius) + "*cos(s)");
    c.y = plus(centre.y(), text(radius) + "*sin(s)");
    c.z = text(centre.z());
    c.start = 0.0;
    c.end = 2.0 * engine::kPi;
    c.closed = true;
    return c;
}

// How far a part's geometry reaches from the point p along the unit direction n (both in the
// part frame); 0 for a part without geometry.
double reach(const engine::Part& part, const Vec3& p, const Vec3& n) {
    const bool any = std::any_of(part.shapes.begin(), part.shapes.end(),
                                 [](const auto& s) { return s.type != engine::ShapeType::Plane; });
    return any ? std::max(0.0, engine::supportDistance(part, n) - n.dot(p)) : 0.0;
}

// A part no other joint holds, which a new joint may move.
bool freeToMove(const engine::SceneSpec& spec, const engine::Part& part, engine::EntityId joint) {
    if (part.ground) return false;
    return std::none_of(spec.joints.begin(), spec.joints.end(), [&](const engine::Joint& j) {
        return j.id != joint && (j.markerI.part == part.name || j.markerJ.part == part.name);
    });
}

// A straight slot along marker J's x axis through marker I's origin.
CurveSpec slot(const engine::SceneSpec& spec, const engine::Joint& joint) {
    const engine::Part* pi = spec.findPart(joint.markerI.part);
    const engine::Part* pj = spec.findPart(joint.markerJ.part);
    const engine::Marker* mi = spec.findMarker(joint.markerI);
    const engine::Marker* mj = spec.findMarker(joint.markerJ);
    Vec3 p = Vec3::Zero();  // I's origin in J's frame
    double length = 0.0;
    if (pi && pj && mi && mj) {
        const engine::Transform X_WJ = pj->X_WP * mj->X_PM;
        p = X_WJ.inverse() * (pi->X_WP * mi->X_PM.p);
        const Vec3 x_W = X_WJ.R * Vec3::UnitX();
        const Vec3 atJ = pj->X_WP.inverse() * X_WJ.p, alongJ = pj->X_WP.R.inverse() * x_W;
        const double widthJ = reach(*pj, atJ, alongJ) + reach(*pj, atJ, -alongJ);
        const Vec3 atI = mi->X_PM.p, alongI = pi->X_WP.R.inverse() * x_W;
        const double widthI = reach(*pi, atI, alongI) + reach(*pi, atI, -alongI);
        length = widthJ > 0.0 ? 0.6 * widthJ : 3.0 * widthI;
    }
    length = length > 0.0 ? std::max(0.01, roundTo(length, 1e-3)) : 0.1;
    CurveSpec c;
    c.type = CurveType::Spline;
    for (const double at : {-0.5, -1.0 / 6.0, 1.0 / 6.0, 0.5})
        c.points.push_back(roundTo(Vec3(p + at * length * Vec3::UnitX()), 1e-5));
    return c;
}

// A flat patch through marker I's origin, normal to marker J's z axis (see the header).
engine::SurfaceSpec plane(const engine::SceneSpec& spec, const engine::Joint& joint) {
    const engine::Part* pi = spec.findPart(joint.markerI.part);
    const engine::Part* pj = spec.findPart(joint.markerJ.part);
    const engine::Marker* mi = spec.findMarker(joint.markerI);
    const engine::Marker* mj = spec.findMarker(joint.markerJ);
    Vec3 p = Vec3::Zero();  // I's origin in J's frame
    if (pi && pj && mi && mj) p = (pj->X_WP * mj->X_PM).inverse() * (pi->X_WP * mi->X_PM.p);
    p = roundTo(p, 1e-5);
    engine::SurfaceSpec out;
    out.type = engine::SurfaceType::Expression;
    out.x = "u";
    out.y = "v";
    out.z = text(p.z());
    out.uStart = roundTo(p.x() - 0.1, 1e-5);
    out.uEnd = roundTo(p.x() + 0.1, 1e-5);
    out.vStart = roundTo(p.y() - 0.1, 1e-5);
    out.vEnd = roundTo(p.y() + 0.1, 1e-5);
    return out;
}

// A disc cam on marker J's axis and a roller on marker I's, touching (see the header).
void camAndRoller(engine::SceneSpec& spec, engine::Joint& joint, bool moveParts) {
    engine::Part* pi = nullptr;
    engine::Part* pj = nullptr;
    for (engine::Part& part : spec.parts) {
        if (part.name == joint.markerI.part) pi = &part;
        if (part.name == joint.markerJ.part) pj = &part;
    }
    const engine::Marker* mi = spec.findMarker(joint.markerI);
    const engine::Marker* mj = spec.findMarker(joint.markerJ);
    double cam = 0.05, roller = 0.0125;
    if (pi && pj && mi && mj) {
        const engine::Transform X_WJ = pj->X_WP * mj->X_PM;
        const Vec3 p = X_WJ.inverse() * (pi->X_WP * mi->X_PM.p);
        const double apart = std::hypot(p.x(), p.y());
        // How far the cam's part reaches across its axis.
        double across = 0.0;
        for (const Vec3& n :
             {Vec3(1.0, 0.0, 0.0), Vec3(-1.0, 0.0, 0.0), Vec3(0.0, 1.0, 0.0), Vec3(0.0, -1.0, 0.0)})
            across = std::max(across, reach(*pj, mj->X_PM.p, mj->X_PM.R * n));
        across = roundTo(across, 1e-4);
        if (apart > 1e-6) {
            cam = across > 0.0 && across < 0.9 * apart ? across : 0.75 * apart;
            roller = apart - cam;
        } else {
            if (across > 0.0) cam = across;
            roller = 0.25 * cam;
            // The follower (or else the cam) moves out along J's x axis until they touch.
            const Vec3 out = (cam + roller) * (X_WJ.R * Vec3::UnitX());
            if (moveParts && freeToMove(spec, *pi, joint.id))
                pi->X_WP.p += out;
            else if (moveParts && freeToMove(spec, *pj, joint.id))
                pj->X_WP.p -= out;
        }
    }
    if (joint.curve.empty()) joint.curve = circle(Vec3::Zero(), cam);
    if (joint.follower.empty()) joint.follower = circle(Vec3::Zero(), roller);
}

}  // namespace

void fitJointCurves(engine::SceneSpec& spec, engine::EntityId id, bool moveParts) {
    engine::Joint* joint = nullptr;
    for (engine::Joint& j : spec.joints)
        if (j.id == id) joint = &j;
    if (!joint) return;
    using engine::JointType;
    const bool onCurve = joint->type == JointType::PointOnCurve;
    const bool cam = joint->type == JointType::CurveOnCurve;
    const bool onSurface = joint->type == JointType::PointOnSurface;
    if (onSurface && joint->surface.empty()) joint->surface = plane(spec, *joint);
    if (!onSurface) joint->surface = {};
    if (onSurface || joint->type == JointType::Spherical) joint->friction.clear();
    if (onCurve && joint->curve.empty()) joint->curve = slot(spec, *joint);
    if (cam) camAndRoller(spec, *joint, moveParts);
    if (!onCurve && !cam) joint->curve = {};
    if (!cam) {
        joint->follower = {};
        joint->liftOff = false;
    }
    if (onCurve || cam) joint->friction.clear();
    const bool stops = std::any_of(joint->limits.begin(), joint->limits.end(),
                                   [](const engine::JointLimit& l) { return l.limited(); });
    if (!stops && (engine::jointAxes(joint->type).empty() || (cam && !joint->liftOff)))
        joint->limits.clear();
}

CurveSpec asSpline(const CurveSpec& curve) {
    if (curve.type == CurveType::Spline) return curve;
    CurveSpec out;
    out.type = CurveType::Spline;
    out.closed = curve.closed;
    std::string error, key;
    const std::shared_ptr<const engine::Curve> made = engine::Curve::make(curve, error, key);
    if (!made) {
        out.closed = false;
        for (int k = 0; k < 4; ++k) out.points.push_back(Vec3(0.1 * k / 3.0, 0.0, 0.0));
        return out;
    }
    const int count = curve.closed ? 12 : 8;
    for (int k = 0; k < count; ++k) {
        const double s =
            curve.start + (curve.end - curve.start) * k / (curve.closed ? count : count - 1);
        const Vec3 p = roundTo(made->at(s).x, 1e-6);
        if (out.points.empty() || (p - out.points.back()).norm() > 0.0) out.points.push_back(p);
    }
    return out;
}

CurveSpec asExpression(const CurveSpec& curve) {
    if (curve.type == CurveType::Expression) return curve;
    CurveSpec out;
    out.type = CurveType::Expression;
    out.closed = curve.closed;
    const std::vector<Vec3>& p = curve.points;
    if (p.size() < 2) return circle(Vec3::Zero(), 0.05);
    if (curve.closed) {
        Vec3 centre = Vec3::Zero();
        for (const Vec3& q : p) centre += q;
        centre /= static_cast<double>(p.size());
        double radius = 0.0;
        for (const Vec3& q : p) radius += std::hypot(q.x() - centre.x(), q.y() - centre.y());
        radius /= static_cast<double>(p.size());
        return circle(roundTo(centre, 1e-6), radius > 1e-9 ? roundTo(radius, 1e-6) : 0.05);
    }
    // The line from the first point to the last, s from 0 to 1.
    const Vec3 a = p.front(), d = p.back() - p.front();
    auto line = [](double from, double by) {
        if (std::abs(by) < 1e-12) return text(from);
        return std::abs(from) < 1e-12 ? text(by) + "*s" : text(from) + " + " + text(by) + "*s";
    };
    out.x = line(a.x(), d.x());
    out.y = line(a.y(), d.y());
    out.z = line(a.z(), d.z());
    out.start = 0.0;
    out.end = 1.0;
    return out;
}

}  // namespace ui
