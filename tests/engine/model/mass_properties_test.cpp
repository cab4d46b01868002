#include "engine/model/mass_properties.h"

#include <cmath>
#include <functional>

#include <gtest/gtest.h>

namespace engine {
namespace {

Shape shape(ShapeType type, double radius, double length) {
    Shape s;
    s.type = type;
    s.radius = radius;
    s.length = length;
    return s;
}

// Monte-Carlo-free check: integrate a shape's indicator on a fine grid (midpoint rule).
MassProperties integrate(const std::function<bool(const Vec3&)>& inside, const Vec3& lo,
                         const Vec3& hi, int n) {
    MassProperties mp;
    const Vec3 step = (hi - lo) / n;
    const double dv = step.prod();
    Vec3 first = Vec3::Zero();
    Mat3 second = Mat3::Zero();
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < n; ++k) {
                const Vec3 p =
                    lo + Vec3((i + 0.5) * step.x(), (j + 0.5) * step.y(), (k + 0.5) * step.z());
                if (!inside(p)) continue;
                mp.mass += dv;
                first += dv * p;
                second += dv * (p.squaredNorm() * Mat3::Identity() - p * p.transpose());
            }
    mp.p_PPcm = first / mp.mass;
    const Vec3 c = mp.p_PPcm;
    mp.I_Pcm_P = second - mp.mass * (c.squaredNorm() * Mat3::Identity() - c * c.transpose());
    return mp;
}

void expectClose(const MassProperties& a, const MassProperties& b, double rel) {
    EXPECT_NEAR(a.mass / b.mass, 1.0, rel);
    EXPECT_LT((a.p_PPcm - b.p_PPcm).norm(), rel * 0.1);
    EXPECT_LT((a.I_Pcm_P - b.I_Pcm_P).norm() / b.I_Pcm_P.norm(), rel);
}

TEST(MassProperties, ConeAndCapsuleMatchNumericalIntegration) {
    const double r = 0.05, L = 0.12;
    const MassProperties cone = shapeMassProperties(shape(ShapeType::Cone, r, L), 1.0);
    expectClose(cone,
                integrate(
                    [&](const Vec3& p) {
                        const double s = (p.z() + L / 2) / L;  // 0 at the base, 1 at the apex
                        return s >= 0 && s <= 1 && std::hypot(p.x(), p.y()) <= r * (1 - s);
                    },
                    Vec3(-r, -r, -L / 2), Vec3(r, r, L / 2), 120),
                2e-2);
    EXPECT_NEAR(cone.p_PPcm.z(), -L / 4, 1e-15);

    const MassProperties capsule = shapeMassProperties(shape(ShapeType::Capsule, r, L), 1.0);
    expectClose(capsule,
                integrate(
                    [&](const Vec3& p) {
                        const double z = std::max(0.0, std::abs(p.z()) - L / 2);
                        return p.x() * p.x() + p.y() * p.y() + z * z <= r * r;
                    },
                    Vec3(-r, -r, -L / 2 - r), Vec3(r, r, L / 2 + r), 120),
                2e-2);
}

TEST(MassProperties, CombiningUsesTheParallelAxisTheorem) {
    // Two 1 kg point-like spheres 1 m apart: about their middle, I = 2 · 1 · 0.5² on the
    // transverse axes.
    Shape a = shape(ShapeType::Sphere, 1e-4, 0);
    Shape b = a;
    a.X_PG.p = Vec3(-0.5, 0, 0);
    b.X_PG.p = Vec3(0.5, 0, 0);
    const double density = 1.0 / (4.0 / 3.0 * kPi * 1e-12);
    const MassProperties both =
        combine(shapeMassProperties(a, density), shapeMassProperties(b, density));
    EXPECT_NEAR(both.mass, 2.0, 1e-12);
    EXPECT_LT(both.p_PPcm.norm(), 1e-15);
    EXPECT_NEAR(both.I_Pcm_P(1, 1), 0.5, 1e-6);
    EXPECT_NEAR(both.I_Pcm_P(2, 2), 0.5, 1e-6);
    EXPECT_NEAR(both.I_Pcm_P(0, 0), 0.0, 1e-6);
}

TEST(MassProperties, ADensityWeighsOnlyTheShapesThatCollideNotThoseOnlyDrawn) {
    // A 0.1 m steel cube that collides, drawn with a 10 m box around it: 7.85 kg, not 7.85e6.
    Part part;
    part.name = "link";
    part.density = 7850.0;
    Shape solid;
    solid.type = ShapeType::Box;
    solid.size = Vec3::Constant(0.1);
    solid.role = ShapeRole::Collision;
    Shape picture = solid;
    picture.size = Vec3::Constant(10.0);
    picture.role = ShapeRole::Visual;
    part.shapes = {solid, picture};
    EXPECT_NEAR(partMassProperties(part).mass, 7.85, 1e-12);
    part.shapes[0].role = ShapeRole::Both;
    EXPECT_NEAR(partMassProperties(part).mass, 7.85, 1e-12);
    // Shapes that are only drawn weigh nothing (validate() refuses such a part).
    part.shapes = {picture};
    EXPECT_EQ(partMassProperties(part).mass, 0.0);
}

TEST(MassProperties, RotatedBoxInertiaIsRotated) {
    Shape s;
    s.type = ShapeType::Box;
    s.size = Vec3(0.3, 0.1, 0.05);
    s.X_PG.R = quatFromAxisAngle(Vec3::UnitZ(), kPi / 2);  // long axis along y
    const MassProperties mp = shapeMassProperties(s, 1000.0);
    const double m = 1000.0 * 0.3 * 0.1 * 0.05;
    EXPECT_NEAR(mp.mass, m, 1e-12);
    EXPECT_NEAR(mp.I_Pcm_P(1, 1), m / 12 * (0.1 * 0.1 + 0.05 * 0.05), 1e-12);
    EXPECT_NEAR(mp.I_Pcm_P(0, 0), m / 12 * (0.3 * 0.3 + 0.05 * 0.05), 1e-12);
}

}  // namespace
}  // namespace engine
