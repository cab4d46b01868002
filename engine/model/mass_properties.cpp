#include "engine/model/mass_properties.h"

#include <algorithm>
#include <cmath>

namespace engine {
namespace {

// Inertia of a point mass m at offset c about the origin: m (|c|² I − c cᵀ).
Mat3 steiner(double m, const Vec3& c) {
    return m * (c.squaredNorm() * Mat3::Identity() - c * c.transpose());
}

}  // namespace

// Closed triangle mesh (vertices scaled per axis, mirrored by negative scales), by the divergence theorem: each triangle
// (a, b, c) spans a tetrahedron with the origin, of volume a·(b × c)/6, centroid (a+b+c)/4 and
// second moment ∫x xᵀ = V/20 (a aᵀ + b bᵀ + c cᵀ + s sᵀ), s = a + b + c.
MassProperties meshMassProperties(const TriangleMesh& mesh, const Vec3& scale, double density) {
    // A mirrored mesh (an odd number of negative scales) has its triangles turned inside out.
    const double orientation = scale.prod() < 0.0 ? -1.0 : 1.0;
    double volume = 0.0;
    Vec3 first = Vec3::Zero();
    Mat3 second = Mat3::Zero();
    for (const auto& t : mesh.triangles) {
        const Vec3 a = scale.cwiseProduct(mesh.vertices[static_cast<std::size_t>(t[0])]);
        const Vec3 b = scale.cwiseProduct(mesh.vertices[static_cast<std::size_t>(t[1])]);
        const Vec3 c = scale.cwiseProduct(mesh.vertices[static_cast<std::size_t>(t[2])]);
        const double v = orientation * a.dot(b.cross(c)) / 6.0;
        const Vec3 sum = a + b + c;
        volume += v;
        first += v * sum / 4.0;
        second +=
            v / 20.0 *
            (a * a.transpose() + b * b.transpose() + c * c.transpose() + sum * sum.transpose());
    }
    MassProperties out;
    out.mass = density * volume;
    if (volume <= 0.0) return out;
    out.p_PPcm = first / volume;
    // Inertia about the origin: tr(C) I − C, then moved to the centre of mass.
    const Mat3 I_O = density * (second.trace() * Mat3::Identity() - second);
    out.I_Pcm_P = I_O - steiner(out.mass, out.p_PPcm);
    return out;
}

MassProperties shapeMassProperties(const Shape& s, double density) {
    if (s.type == ShapeType::Mesh) {
        MassProperties local =
            s.mesh ? meshMassProperties(*s.mesh, s.scale, density) : MassProperties{};
        const Mat3 R_PG = s.X_PG.rotationMatrix();
        local.p_PPcm = s.X_PG * local.p_PPcm;
        local.I_Pcm_P = R_PG * local.I_Pcm_P * R_PG.transpose();
        return local;
    }
    // In the shape frame G: mass, centre of mass c_G and principal inertia about it.
    double m = 0.0;
    Vec3 c_G = Vec3::Zero();
    Vec3 I = Vec3::Zero();
    const double r = s.radius, L = s.length, r2 = r * r;
    switch (s.type) {
    case ShapeType::Box: {
        const Vec3 e = s.size;
        m = density * e.prod();
        I = m / 12.0 *
            Vec3(e.y() * e.y() + e.z() * e.z(), e.x() * e.x() + e.z() * e.z(),
                 e.x() * e.x() + e.y() * e.y());
        break;
    }
    case ShapeType::Sphere:
        m = density * 4.0 / 3.0 * kPi * r2 * r;
        I = Vec3::Constant(0.4 * m * r2);
        break;
    case ShapeType::Cylinder:
        m = density * kPi * r2 * L;
        I = Vec3(m * (3.0 * r2 + L * L) / 12.0, m * (3.0 * r2 + L * L) / 12.0, 0.5 * m * r2);
        break;
    case ShapeType::Cone:
        // Base at z = −L/2, apex at +L/2: the centroid is a quarter of the height above the base.
        m = density * kPi * r2 * L / 3.0;
        c_G = Vec3(0.0, 0.0, -0.25 * L);
        I = Vec3(m * (0.15 * r2 + 0.0375 * L * L), m * (0.15 * r2 + 0.0375 * L * L), 0.3 * m * r2);
        break;
    case ShapeType::Mesh:   // handled above
    case ShapeType::Plane:  // ground only: no mass
        break;
    case ShapeType::Capsule: {
        // Cylinder of length L plus two hemispheres; each hemisphere's centroid is 3r/8 from
        // its flat face, and its inertia about its centroid (transverse) is 83/320 m r².
        const double mc = density * kPi * r2 * L;
        const double mh = density * 2.0 / 3.0 * kPi * r2 * r;  // one hemisphere
        const double offset = 0.5 * L + 0.375 * r;
        m = mc + 2.0 * mh;
        const double transverse =
            mc * (3.0 * r2 + L * L) / 12.0 + 2.0 * (mh * 83.0 / 320.0 * r2 + mh * offset * offset);
        I = Vec3(transverse, transverse, 0.5 * mc * r2 + 2.0 * 0.4 * mh * r2);
        break;
    }
    }
    MassProperties out;
    out.mass = m;
    out.p_PPcm = s.X_PG * c_G;
    const Mat3 R_PG = s.X_PG.rotationMatrix();
    out.I_Pcm_P = R_PG * I.asDiagonal() * R_PG.transpose();
    return out;
}

MassProperties combine(const MassProperties& a, const MassProperties& b) {
    MassProperties out;
    out.mass = a.mass + b.mass;
    if (out.mass <= 0.0) return out;
    out.p_PPcm = (a.mass * a.p_PPcm + b.mass * b.p_PPcm) / out.mass;
    out.I_Pcm_P = a.I_Pcm_P + steiner(a.mass, a.p_PPcm - out.p_PPcm) + b.I_Pcm_P +
                  steiner(b.mass, b.p_PPcm - out.p_PPcm);
    return out;
}

MassProperties partMassProperties(const Part& part) {
    if (!part.density) return {part.mass, part.p_PPcm, part.I_Pcm_P};
    // The solid is what collides (role both or collision); a shape that is only drawn is a
    // picture and weighs nothing (a part without a solid shape is refused by validate()).
    MassProperties total;
    for (const Shape& shape : part.shapes)
        if (shape.collides()) total = combine(total, shapeMassProperties(shape, *part.density));
    return total;
}

}  // namespace engine
