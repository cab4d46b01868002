#include "engine/model/shape_features.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace engine {
namespace {

using Kind = ShapeFeature::Kind;

ShapeFeature feature(Kind kind, const Vec3& p, const Vec3& z) {
    return {kind, p, z.normalized()};
}

}  // namespace

std::vector<ShapeFeature> shapeFeatures(const Shape& s) {
    std::vector<ShapeFeature> out;
    const Mat3 R = s.X_PG.rotationMatrix();
    const Vec3 c = s.X_PG.p;
    const Vec3 axis = R.col(2);
    switch (s.type) {
    case ShapeType::Box: {
        const Vec3 h = 0.5 * s.size;
        out.push_back(feature(Kind::Centre, c, axis));
        // Faces: centre, z along the outward normal.
        for (int k = 0; k < 3; ++k)
            for (double sign : {-1.0, 1.0})
                out.push_back(
                    feature(Kind::FaceCentre, c + sign * h(k) * R.col(k), sign * R.col(k)));
        // Edges: midpoint, z along the edge (a hinge there turns about it).
        for (int k = 0; k < 3; ++k) {
            const int a = (k + 1) % 3, b = (k + 2) % 3;
            for (double sa : {-1.0, 1.0})
                for (double sb : {-1.0, 1.0})
                    out.push_back(feature(Kind::EdgeMidpoint,
                                          c + sa * h(a) * R.col(a) + sb * h(b) * R.col(b),
                                          R.col(k)));
        }
        // Vertices: z along the shape's z.
        for (double sx : {-1.0, 1.0})
            for (double sy : {-1.0, 1.0})
                for (double sz : {-1.0, 1.0})
                    out.push_back(feature(Kind::Vertex,
                                          c + R * Vec3(sx * h.x(), sy * h.y(), sz * h.z()), axis));
        break;
    }
    case ShapeType::Sphere:
        out.push_back(feature(Kind::Centre, c, axis));
        break;
    case ShapeType::Cylinder:
    case ShapeType::Capsule:
    case ShapeType::Cone: {
        // The axis: its centre and the two ends (cap centres, cone base and apex), z along it
        // and outward at the ends.
        out.push_back(feature(Kind::Centre, c, axis));
        out.push_back(feature(Kind::FaceCentre, c + 0.5 * s.length * axis, axis));
        out.push_back(feature(Kind::FaceCentre, c - 0.5 * s.length * axis, -axis));
        break;
    }
    case ShapeType::Mesh:
        if (s.mesh)
            for (const auto& v : s.mesh->vertices)
                out.push_back(feature(Kind::Vertex, s.X_PG * Vec3(s.scale.cwiseProduct(v)), axis));
        break;
    case ShapeType::Plane:
        break;
    }
    return out;
}

ShapeFeature snapFeature(const Part& part, const Vec3& p_P) {
    ShapeFeature best{Kind::Centre, Vec3::Zero(), Vec3::UnitZ()};
    double bestDistance = std::numeric_limits<double>::infinity();
    auto consider = [&](const ShapeFeature& f) {
        const double d = (f.p_P - p_P).norm();
        if (d < bestDistance) {
            bestDistance = d;
            best = f;
        }
    };
    for (const Shape& s : part.shapes) {
        for (const ShapeFeature& f : shapeFeatures(s)) consider(f);
        if (s.type == ShapeType::Cylinder || s.type == ShapeType::Capsule ||
            s.type == ShapeType::Cone) {
            // The point of the axis nearest to p_P (a pin anywhere along a shaft).
            const Vec3 axis = s.X_PG.R * Vec3::UnitZ();
            const double t = std::clamp(axis.dot(p_P - s.X_PG.p), -0.5 * s.length, 0.5 * s.length);
            consider(feature(Kind::Axis, s.X_PG.p + t * axis, axis));
        }
    }
    if (!std::isfinite(bestDistance)) best.p_P = Vec3::Zero();
    return best;
}

}  // namespace engine
