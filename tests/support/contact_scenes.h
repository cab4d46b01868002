#pragma once
// Contact scenes built in code for tests and benchmarks: a ground plane, boxes and balls.

#include <cmath>
#include <string>

#include "engine/model/scene_spec.h"

namespace engine::test {

// Ground with a plane through the origin whose normal is +z turned by `incline` [rad] about
// the y axis (a slope going down towards +x); contact on, time stepping at step h.
inline SceneSpec contactScene(double h = 1e-3, double incline = 0.0, double friction = 0.5) {
    SceneSpec spec;
    spec.name = "contact";
    Part ground;
    ground.id = spec.newId();
    ground.name = "ground";
    ground.ground = true;
    ground.material.friction = friction;
    Shape plane;
    plane.type = ShapeType::Plane;
    plane.X_PG.R = Quat(Eigen::AngleAxisd(incline, Vec3::UnitY()));
    ground.shapes.push_back(plane);
    spec.parts.push_back(ground);
    spec.contact.enabled = true;
    spec.settings.integrator = IntegratorType::TimeStepping;
    spec.settings.stepSize = h;
    return spec;
}

// A box of edges `edges` and mass m with its exact inertia, at X_WP.
inline Part& addBox(SceneSpec& spec, const std::string& name, const Vec3& edges,
                    const Transform& X_WP, double mass = 1.0, double friction = 0.5) {
    Part part;
    part.id = spec.newId();
    part.name = name;
    part.mass = mass;
    const Vec3 e2 = edges.cwiseProduct(edges);
    part.I_Pcm_P =
        (mass / 12.0 * Vec3(e2.y() + e2.z(), e2.x() + e2.z(), e2.x() + e2.y())).asDiagonal();
    part.X_WP = X_WP;
    part.material.friction = friction;
    Shape box;
    box.type = ShapeType::Box;
    box.size = edges;
    part.shapes.push_back(box);
    spec.parts.push_back(part);
    return spec.parts.back();
}

// A solid ball of radius r and mass m at position p.
inline Part& addBall(SceneSpec& spec, const std::string& name, double r, const Vec3& p,
                     double mass = 1.0, double friction = 0.5, double restitution = 0.0) {
    Part part;
    part.id = spec.newId();
    part.name = name;
    part.mass = mass;
    part.I_Pcm_P = Mat3::Identity() * 0.4 * mass * r * r;
    part.X_WP.p = p;
    part.material = {friction, restitution};
    Shape sphere;
    sphere.type = ShapeType::Sphere;
    sphere.radius = r;
    part.shapes.push_back(sphere);
    spec.parts.push_back(part);
    return spec.parts.back();
}

// BENCHMARKS.md pile-K: K cubes of 0.1 m, 1 kg, in 5 × 5 columns on a 0.11 m pitch centred on
// the origin, layers of 25 at z = 0.06 + 0.11 l, at rest; μ = 0.5, e = 0.
inline SceneSpec boxPile(int count, double h = 1e-3) {
    SceneSpec spec = contactScene(h);
    spec.name = "pile-" + std::to_string(count);
    for (int k = 0; k < count; ++k) {
        const int layer = k / 25, column = k % 25;
        Transform X;
        X.p = Vec3(0.11 * (column % 5 - 2), 0.11 * (column / 5 - 2), 0.06 + 0.11 * layer);
        addBox(spec, "box" + std::to_string(k), Vec3::Constant(0.1), X);
    }
    return spec;
}

// One column of `count` such cubes, each 1 cm above the one below (pile-K's column alone).
inline SceneSpec boxStack(int count, double h = 1e-3) {
    SceneSpec spec = contactScene(h);
    spec.name = "stack-" + std::to_string(count);
    for (int k = 0; k < count; ++k) {
        Transform X;
        X.p = Vec3(0.0, 0.0, 0.06 + 0.11 * k);
        addBox(spec, "box" + std::to_string(k), Vec3::Constant(0.1), X);
    }
    return spec;
}

}  // namespace engine::test
