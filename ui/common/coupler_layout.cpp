#include "ui/common/coupler_layout.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace ui {
namespace {

using engine::Transform;
using engine::Vec3;

int partIndex(const engine::SceneSpec& spec, const std::string& name) {
    const engine::Part* part = spec.findPart(name);
    return part ? static_cast<int>(part - spec.parts.data()) : -1;
}

// A joint's marker (I or J) as its part's index and its pose in the part; false if missing.
bool markerOf(const engine::SceneSpec& spec, const engine::MarkerRef& ref, int& part,
              Transform& X_PM) {
    const engine::Marker* marker = spec.findMarker(ref);
    part = partIndex(spec, ref.part);
    if (!marker || part < 0) return false;
    X_PM = marker->X_PM;
    return true;
}

Transform initialPose(const engine::SceneSpec& spec, int part, const Transform& X_PM) {
    return spec.parts[static_cast<std::size_t>(part)].X_WP * X_PM;
}

void addPart(std::vector<int>& parts, int part) {
    if (part >= 0 && std::find(parts.begin(), parts.end(), part) == parts.end())
        parts.push_back(part);
}

}  // namespace

CouplerLayout couplerLayout(const engine::SceneSpec& spec, const engine::CouplerSpec& coupler) {
    CouplerLayout out;
    out.type = coupler.type;
    out.internal = coupler.internal;
    out.ratio = coupler.ratio;
    const engine::Joint* I = spec.findJoint(coupler.jointI);
    const engine::Joint* J = spec.findJoint(coupler.jointJ);
    switch (coupler.type) {
    case engine::CouplerType::Screw:
        if (I) addPart(out.parts, partIndex(spec, I->markerI.part));
        return out;
    case engine::CouplerType::Linear:
        for (const engine::CouplerTerm& t : coupler.terms)
            if (const engine::Joint* joint = spec.findJoint(t.joint))
                addPart(out.parts, partIndex(spec, joint->markerI.part));
        return out;
    case engine::CouplerType::Gear:
    case engine::CouplerType::RackPinion:
        break;
    }
    if (!I || !J) return out;
    // The gears are the parts the joints do not share; the carrier they share holds the axles.
    const std::string &aI = I->markerI.part, &bI = I->markerJ.part;
    const std::string &aJ = J->markerI.part, &bJ = J->markerJ.part;
    if (bI != aJ && bI != bJ && (aI == aJ || aI == bJ)) out.senseI = -1.0;
    if (bJ != aI && bJ != bI && (aJ == aI || aJ == bI)) out.senseJ = -1.0;
    addPart(out.parts, partIndex(spec, out.senseI > 0.0 ? aI : bI));
    addPart(out.parts, partIndex(spec, out.senseJ > 0.0 ? aJ : bJ));
    if (!markerOf(spec, I->markerJ, out.partI, out.X_PI) ||
        !markerOf(spec, J->markerJ, out.partJ, out.X_PJ))
        return out;
    const Transform axleI = initialPose(spec, out.partI, out.X_PI);
    const Transform axleJ = initialPose(spec, out.partJ, out.X_PJ);
    const Vec3 zI = axleI.R * Vec3::UnitZ(), zJ = axleJ.R * Vec3::UnitZ();
    if (coupler.type == engine::CouplerType::Gear) {
        if (std::abs(zI.dot(zJ)) > 1.0 - 1e-9) {
            const Vec3 d = axleJ.p - axleI.p;
            out.centreDistance = (d - d.dot(zI) * zI).norm();
            const double den =
                coupler.internal ? std::abs(coupler.ratio - 1.0) : 1.0 + coupler.ratio;
            if (out.centreDistance > 1e-12 && den > 0.0) {
                out.radiusI = out.centreDistance / den;
                out.radiusJ = coupler.ratio * out.radiusI;
            }
        }
    } else {
        // The rack's side: its joint's marker on the rack.
        const engine::MarkerRef& onRack = out.senseJ > 0.0 ? J->markerI : J->markerJ;
        Transform X_PR;
        if (!markerOf(spec, onRack, out.rackPart, X_PR)) return out;
        out.p_rack = X_PR.p;
        out.radiusI = coupler.radius;
    }
    out.drawn = true;
    return out;
}

CouplerPose couplerPose(const CouplerLayout& layout,
                        const std::vector<engine::Transform>& partPoses) {
    CouplerPose pose;
    const auto size = static_cast<int>(partPoses.size());
    if (!layout.drawn || layout.partI >= size || layout.partJ >= size || layout.rackPart >= size ||
        layout.partI < 0 || layout.partJ < 0)
        return pose;
    const Transform axleI = partPoses[static_cast<std::size_t>(layout.partI)] * layout.X_PI;
    const Transform axleJ = partPoses[static_cast<std::size_t>(layout.partJ)] * layout.X_PJ;
    pose.axleI = axleI.p;
    pose.axleJ = axleJ.p;
    pose.zI = (axleI.R * Vec3::UnitZ()).normalized();
    pose.zJ = (axleJ.R * Vec3::UnitZ()).normalized();
    // A unit vector across axle I toward `to` (any one across it when `to` is on the axle).
    auto across = [&](const Vec3& to) {
        Vec3 u = to - pose.axleI;
        u -= u.dot(pose.zI) * pose.zI;
        return u.norm() > 1e-12 ? Vec3(u.normalized()) : Vec3(pose.zI.unitOrthogonal());
    };
    if (layout.type == engine::CouplerType::Gear) {
        const Vec3 d = pose.axleJ - pose.axleI;
        const Vec3 u = across(pose.axleJ);
        const double C = (d - d.dot(pose.zI) * pose.zI).norm();
        // A ring gear J around pinion I meshes on I's far side from J's axle.
        pose.out = layout.internal && layout.ratio > 1.0 ? Vec3(-u) : u;
        if (layout.radiusI > 0.0 && C > 1e-12) {
            // Gear I's pitch radius across its axle from its joint's marker, as the engine
            // meshes the teeth (CouplerModel::pitchRadius, `toward`).
            pose.pitch = pose.axleI + layout.radiusI * pose.out;
        } else {
            pose.pitch = pose.axleI + d / (1.0 + std::max(layout.ratio, 1e-9));
        }
        // The tooth force on gear I is senseI × force along zI × out (its torque about its
        // joint's axis is force × radius); gear J takes the opposite.
        pose.forceOnJ = -layout.senseI * pose.zI.cross(pose.out);
    } else {
        const Vec3 rack = partPoses[static_cast<std::size_t>(layout.rackPart)] * layout.p_rack;
        // Toward the rack, across the pinion's axle and the rack's slide.
        Vec3 n = rack - pose.axleI;
        n -= n.dot(pose.zI) * pose.zI;
        Vec3 along = pose.zJ - pose.zJ.dot(pose.zI) * pose.zI;
        if (along.norm() > 1e-12) {
            along.normalize();
            n -= n.dot(along) * along;
        }
        if (n.norm() > 1e-12)
            pose.out = n.normalized();
        else
            pose.out = along.norm() > 1e-12 ? Vec3(pose.zI.cross(along).normalized())
                                            : Vec3(pose.zI.unitOrthogonal());
        pose.pitch = pose.axleI + layout.radiusI * pose.out;
        // The recorded force is the rack joint's effort along its marker J's z, on its part I.
        pose.forceOnJ = layout.senseJ * pose.zJ;
    }
    pose.valid = true;
    return pose;
}

}  // namespace ui
