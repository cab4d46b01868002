#pragma once
// Tiny scenes for tests, built in code (larger examples live in scenes/).

#include <string>
#include <utility>

#include "engine/model/scene_spec.h"

namespace engine::test {

// A 1 kg box part of edges (a, b, c) with its box inertia m/12 (b²+c², a²+c², a²+b²).
inline Part boxPart(SceneSpec& spec, const std::string& name, const Vec3& edges,
                    const Vec3& position) {
    Part part;
    part.id = spec.newId();
    part.name = name;
    part.mass = 1.0;
    const double a2 = edges.x() * edges.x(), b2 = edges.y() * edges.y(), c2 = edges.z() * edges.z();
    part.I_Pcm_P = (Vec3(b2 + c2, a2 + c2, a2 + b2) / 12.0).asDiagonal();
    part.X_WP.p = position;
    Shape box;
    box.type = ShapeType::Box;
    box.size = edges;
    part.shapes.push_back(box);
    return part;
}

// The ground part, markers to be added.
inline Part groundPart(SceneSpec& spec) {
    Part ground;
    ground.id = spec.newId();
    ground.name = "ground";
    ground.ground = true;
    return ground;
}

inline Marker marker(SceneSpec& spec, const std::string& name, const Vec3& p_PM) {
    Marker m;
    m.id = spec.newId();
    m.name = name;
    m.X_PM.p = p_PM;
    return m;
}

// Ground + one hinged link: "ground.pivot" -- "link.pivot", revolute.
inline SceneSpec pendulum() {
    SceneSpec spec;
    spec.name = "pendulum";
    Part ground;
    ground.id = spec.newId();
    ground.name = "ground";
    ground.ground = true;
    ground.markers.push_back(marker(spec, "pivot", Vec3::Zero()));
    Part link = boxPart(spec, "link", Vec3(0.1, 0.02, 0.02), Vec3(0.05, 0, 0));
    link.markers.push_back(marker(spec, "pivot", Vec3(-0.05, 0, 0)));
    spec.parts = {ground, link};
    Joint hinge;
    hinge.id = spec.newId();
    hinge.name = "hinge";
    hinge.type = JointType::Revolute;
    hinge.markerI = {"link", "pivot"};
    hinge.markerJ = {"ground", "pivot"};
    spec.joints = {hinge};
    return spec;
}

// A joint of `type` from marker I to marker J ("part", "marker").
inline Joint joint(SceneSpec& spec, const std::string& name, JointType type, MarkerRef i,
                   MarkerRef j) {
    Joint out;
    out.id = spec.newId();
    out.name = name;
    out.type = type;
    out.markerI = std::move(i);
    out.markerJ = std::move(j);
    return out;
}

// A coupler of `type` between joints I and J (a screw: I alone; a linear coupler: none, its
// terms set by the caller), added to the scene; the caller sets its size. The pointer holds
// until the next coupler is added.
inline CouplerSpec* addCoupler(SceneSpec& spec, const std::string& name, CouplerType type,
                               const std::string& jointI, const std::string& jointJ = "") {
    CouplerSpec c;
    c.id = spec.newId();
    c.name = name;
    c.type = type;
    c.jointI = jointI;
    c.jointJ = jointJ;
    spec.couplers.push_back(c);
    return &spec.couplers.back();
}

}  // namespace engine::test
