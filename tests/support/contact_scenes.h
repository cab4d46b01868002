#pragma once
// Contact scenes built in code for tests and benchmarks: a ground plane, boxes and balls.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/math/constants.h"
#include "engine/model/scene_spec.h"
#include "engine/model/triangle_mesh.h"

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

// A cylinder or a capsule (`type`) of radius r and straight length `length` along its z axis,
// mass m (a solid cylinder's inertia of that length), at X_WP.
inline Part& addRod(SceneSpec& spec, const std::string& name, ShapeType type, double r,
                    double length, const Transform& X_WP, double mass = 1.0) {
    Part part;
    part.id = spec.newId();
    part.name = name;
    part.mass = mass;
    const double across = mass * (3.0 * r * r + length * length) / 12.0;
    part.I_Pcm_P = Vec3(across, across, 0.5 * mass * r * r).asDiagonal();
    part.X_WP = X_WP;
    Shape shape;
    shape.type = type;
    shape.radius = r;
    shape.length = length;
    part.shapes.push_back(shape);
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

// A 64-bit linear congruential generator's numbers in [0, 1) (its top 53 bits): scenes made
// at random, the same on every machine.
struct Uniform {
    std::uint64_t seed;
    double operator()() {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<double>(seed >> 11) * 0x1.0p-53;
    }
};

// A scatter of `count` parts of four shapes in turn — cube of 0.1 m, ball of radius 0.05 m,
// capsule of radius 0.035 m and straight part 0.1 m, cylinder of radius 0.05 m and length 0.1 m —
// all of density 500 kg/m³, each turned at random (a fixed seed), dropped at rest onto the floor
// from two layers: a square grid of 0.3 m pitch (jittered by ±2 cm) at 0.2 m, and the same grid
// moved by half a pitch along x and y at 0.45 m, whose parts land between the first layer's and
// now and then on them. No two parts touch before they land.
inline SceneSpec scatter(int count, double h = 1e-3) {
    SceneSpec spec = contactScene(h);
    spec.name = "scatter-" + std::to_string(count);
    const int side = std::max(1, static_cast<int>(std::ceil(std::sqrt(count / 2.0))));
    const double pitch = 0.3;
    Uniform uniform{0x9e3779b97f4a7c15ull};
    for (int k = 0; k < count; ++k) {
        const int layer = k / (side * side), cell = k % (side * side);
        Part part;
        part.id = spec.newId();
        part.name = "part" + std::to_string(k);
        part.density = 500.0;
        part.colorRgb = 0x5a8fc8u + 0x203000u * static_cast<std::uint32_t>(k % 4);
        Shape shape;
        shape.type = std::array{ShapeType::Box, ShapeType::Sphere, ShapeType::Capsule,
                                ShapeType::Cylinder}[static_cast<std::size_t>(k % 4)];
        shape.size = Vec3::Constant(0.1);
        shape.radius = shape.type == ShapeType::Capsule ? 0.035 : 0.05;
        shape.length = 0.1;
        part.shapes.push_back(shape);
        const double jitterX = 0.04 * (uniform() - 0.5), jitterY = 0.04 * (uniform() - 0.5);
        const double offset = 0.5 * pitch * (layer % 2);
        part.X_WP.p =
            Vec3(pitch * (cell % side - 0.5 * (side - 1)) + offset + jitterX,
                 pitch * (cell / side - 0.5 * (side - 1)) + offset + jitterY, 0.2 + 0.25 * layer);
        const Vec3 axis = Vec3(uniform() - 0.5, uniform() - 0.5, uniform() - 0.5);
        part.X_WP.R = Quat(Eigen::AngleAxisd(2.0 * kPi * uniform(), axis.normalized()));
        spec.parts.push_back(part);
    }
    return spec;
}

// A rock: an icosahedron split once (42 corners, 80 faces) with each corner out from the centre by
// an ellipsoid's radius (half axes 3, 2.5 and 2 cm) times 0.85–1.15 at random (`seed`); Motus
// collides a moving mesh through its convex hull.
inline std::shared_ptr<TriangleMesh> rockMesh(std::uint64_t seed) {
    Uniform uniform{seed};
    const double t = 0.5 * (1.0 + std::sqrt(5.0));
    std::vector<Vec3> v = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                           {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                           {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    const std::vector<std::array<int, 3>> faces = {
        {0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
        {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
        {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
    for (Vec3& p : v) p.normalize();
    auto mesh = std::make_shared<TriangleMesh>();
    std::vector<std::array<int, 3>> split;
    const auto middle = [&](int a, int b) {
        v.push_back((v[static_cast<std::size_t>(a)] + v[static_cast<std::size_t>(b)]).normalized());
        for (std::size_t k = 0; k + 1 < v.size(); ++k)
            if ((v[k] - v.back()).norm() < 1e-12) {
                v.pop_back();
                return static_cast<int>(k);
            }
        return static_cast<int>(v.size()) - 1;
    };
    for (const auto& f : faces) {
        const int ab = middle(f[0], f[1]), bc = middle(f[1], f[2]), ca = middle(f[2], f[0]);
        split.push_back({f[0], ab, ca});
        split.push_back({f[1], bc, ab});
        split.push_back({f[2], ca, bc});
        split.push_back({ab, bc, ca});
    }
    for (const Vec3& p : v)
        mesh->vertices.push_back(p.cwiseProduct(Vec3(0.03, 0.025, 0.02)) *
                                 (0.85 + 0.3 * uniform()));
    // (each face turned outwards: the rock is star-shaped about its centre)
    for (auto f : split) {
        const Vec3& a = mesh->vertices[static_cast<std::size_t>(f[0])];
        const Vec3& b = mesh->vertices[static_cast<std::size_t>(f[1])];
        const Vec3& c = mesh->vertices[static_cast<std::size_t>(f[2])];
        if ((b - a).cross(c - a).dot(a + b + c) < 0) std::swap(f[1], f[2]);
        mesh->triangles.push_back(f);
    }
    return mesh;
}

// A heap of `count` rocks (rockMesh, four of them in turn; density 2500 kg/m³), each turned at
// random, dropped from five layers of a square grid of 7 cm pitch (every other layer moved by half
// a pitch) 7 cm apart from 5 cm up: they land on the floor and on one another. No two touch
// before they fall.
inline SceneSpec rockHeap(int count, double h = 1e-3) {
    SceneSpec spec = contactScene(h);
    spec.name = "rocks-" + std::to_string(count);
    const int side = std::max(1, static_cast<int>(std::ceil(std::sqrt(count / 5.0))));
    const double pitch = 0.07;
    Uniform uniform{0x2545f4914f6cdd1dull};
    std::array<std::shared_ptr<TriangleMesh>, 4> rocks;
    for (std::size_t r = 0; r < rocks.size(); ++r)
        rocks[r] = rockMesh(0x9e3779b97f4a7c15ull * (r + 1));
    for (int k = 0; k < count; ++k) {
        const int layer = k / (side * side), cell = k % (side * side);
        Part part;
        part.id = spec.newId();
        part.name = "rock" + std::to_string(k);
        part.density = 2500.0;
        Shape shape;
        shape.type = ShapeType::Mesh;
        shape.mesh = rocks[static_cast<std::size_t>(k % 4)];
        part.shapes.push_back(shape);
        const double offset = 0.5 * pitch * (layer % 2);
        part.X_WP.p = Vec3(pitch * (cell % side - 0.5 * (side - 1)) + offset,
                           pitch * (cell / side - 0.5 * (side - 1)) + offset, 0.05 + 0.07 * layer);
        const Vec3 axis = Vec3(uniform() - 0.5, uniform() - 0.5, uniform() - 0.5);
        part.X_WP.R = Quat(Eigen::AngleAxisd(2.0 * kPi * uniform(), axis.normalized()));
        spec.parts.push_back(part);
    }
    return spec;
}

// A chain of `links` capsules (radius 0.025 m, 0.1 m between joints, density 1000 kg/m³) joined
// by spherical joints, lying on the floor along −x behind its head at x = −1, whose head is
// pulled along +x at `speed` [m/s] by a moving frame (a spherical joint to the head's front
// end), through pile-`boxes` (the cubes of boxPile) standing at the origin: joints and contact
// in one problem. Links touch the cubes, the floor and each other except their neighbours.
inline SceneSpec chainThroughPile(int links, int boxes, double speed = 1.0, double h = 1e-3) {
    SceneSpec spec = boxPile(boxes, h);
    spec.name = "chain-" + std::to_string(links) + "-through-pile-" + std::to_string(boxes);
    const double pitch = 0.1, radius = 0.025, x0 = -1.0, z = radius + 1e-4;
    const auto marker = [&spec](Part& part, const std::string& name, const Vec3& p) {
        Marker m;
        m.id = spec.newId();
        m.name = name;
        m.X_PM.p = p;
        part.markers.push_back(m);
    };
    Part tractor;
    tractor.id = spec.newId();
    tractor.name = "tractor";
    tractor.X_WP.p = Vec3(x0, 0.0, z);
    tractor.frameMotion = FrameMotion{};
    tractor.frameMotion->translation[0] = std::to_string(speed) + " * time";
    Shape knob;
    knob.type = ShapeType::Sphere;
    knob.radius = 0.03;
    knob.role = ShapeRole::Visual;
    tractor.shapes.push_back(knob);
    marker(tractor, "hitch", Vec3::Zero());
    spec.parts.push_back(tractor);
    const Quat alongX(Eigen::AngleAxisd(0.5 * kPi, Vec3::UnitY()));  // local z onto world x
    for (int k = 0; k < links; ++k) {
        Part link;
        link.id = spec.newId();
        link.name = "link" + std::to_string(k);
        link.density = 1000.0;
        link.colorRgb = 0xc87a3c;
        link.X_WP.p = Vec3(x0 - pitch * (k + 0.5), 0.0, z);
        link.X_WP.R = alongX;
        Shape capsule;
        capsule.type = ShapeType::Capsule;
        capsule.radius = radius;
        capsule.length = pitch - 2.0 * radius;
        link.shapes.push_back(capsule);
        marker(link, "front", Vec3(0.0, 0.0, 0.5 * pitch));  // local z is world +x
        marker(link, "back", Vec3(0.0, 0.0, -0.5 * pitch));
        spec.parts.push_back(link);
    }
    for (int k = 0; k < links; ++k) {
        Joint joint;
        joint.id = spec.newId();
        joint.name = "ball" + std::to_string(k);
        joint.type = JointType::Spherical;
        joint.markerI = {k == 0 ? std::string("tractor") : "link" + std::to_string(k - 1),
                         k == 0 ? "hitch" : "back"};
        joint.markerJ = {"link" + std::to_string(k), "front"};
        spec.joints.push_back(joint);
    }
    return spec;
}

}  // namespace engine::test
