// A cylinder's and a box's points (cylinder_box.h): each a point of the cylinder and the box's
// point across the gap along the normal; none nearer than the shapes are (by brute force over
// the cylinder's surface); the nearest as near as GJK's; a cylinder lying on a face touching at
// the two ends of its line over the face, one standing on it at four points of its rim.

#include <gtest/gtest.h>

#include "engine/contact/cylinder_box.h"

#include <btBulletCollisionCommon.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace engine::contact {
namespace {

constexpr double kR = 0.05, kHalf = 0.08;  // the cylinder: radius, half length (along z)
const btVector3 kBoxHalf(0.12, 0.1, 0.06);

double boxDistance(const btTransform& X_WX, const btVector3& p_W) {
    const btVector3 l = X_WX.invXform(p_W);
    const btVector3 c(std::clamp(l.x(), -kBoxHalf.x(), kBoxHalf.x()),
                      std::clamp(l.y(), -kBoxHalf.y(), kBoxHalf.y()),
                      std::clamp(l.z(), -kBoxHalf.z(), kBoxHalf.z()));
    return (l - c).length();
}

// How far p lies outside the cylinder at X_WC (0 inside).
double outsideCylinder(const btTransform& X_WC, const btVector3& p_W) {
    const btVector3 l = X_WC.invXform(p_W);
    const double radial = std::max(0.0, std::hypot(l.x(), l.y()) - kR);
    const double axial = std::max(0.0, std::abs(l.z()) - kHalf);
    return std::hypot(radial, axial);
}

// The shapes' gap by brute force: the cylinder's surface sampled (caps and side), each sample's
// distance to the box (exact); 0 when they overlap.
double bruteGap(const btTransform& X_WC, const btTransform& X_WX) {
    double gap = 1e9;
    constexpr int kRound = 720, kAlong = 160, kRings = 40;
    for (int i = 0; i < kRound; ++i) {
        const double a = 2.0 * SIMD_PI * i / kRound;
        const btVector3 u(std::cos(a), std::sin(a), 0);
        for (int k = 0; k <= kAlong; ++k)
            gap = std::min(
                gap,
                boxDistance(X_WX, X_WC(kR * u + btVector3(0, 0, -kHalf + 2 * kHalf * k / kAlong))));
        for (int k = 0; k <= kRings; ++k)
            for (const double z : {-kHalf, kHalf})
                gap = std::min(gap,
                               boxDistance(X_WX, X_WC(kR * k / kRings * u + btVector3(0, 0, z))));
    }
    return gap;
}

struct Shapes {
    btCylinderShapeZ cylinder{btVector3(kR, kR, kHalf)};
    btBoxShape box{kBoxHalf};
    Shapes() {
        cylinder.setMargin(1e-3);
        box.setMargin(1e-3);
    }
};

TEST(CylinderBox, PointsLieOnTheShapesAndNoneIsNearerThanTheShapesAre) {
    Shapes s;
    std::mt19937 rng(77);
    const auto uniform = [&](double lo, double hi) {
        return std::uniform_real_distribution<>(lo, hi)(rng);
    };
    int separated = 0;
    for (int n = 0; n < 300; ++n) {
        const btVector3 axis =
            btVector3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)) + btVector3(0, 0, 1e-3);
        const btTransform X_WX(btQuaternion(axis.normalized(), uniform(0, 6.3)));
        // Placed over one of the box's faces at random, turned at random, a few mm to a few cm
        // off it (some runs: lying or standing exactly).
        const btVector3 dir =
            btVector3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)).normalized();
        btQuaternion turn(btVector3(uniform(-1, 1), uniform(-1, 1), 1).normalized(),
                          uniform(0, 6.3));
        if (n % 5 == 0) turn = btQuaternion(btVector3(1, 0, 0), 0.5 * SIMD_PI);
        if (n % 5 == 1) turn = btQuaternion::getIdentity();
        const btTransform X_WC = X_WX * btTransform(turn, 0.2 * dir);
        const bool cylinderFirst = n % 2 == 0;
        const btTransform& X_WA = cylinderFirst ? X_WC : X_WX;
        const btTransform& X_WB = cylinderFirst ? X_WX : X_WC;
        const btCollisionShape& a =
            cylinderFirst ? static_cast<btCollisionShape&>(s.cylinder) : s.box;
        const btCollisionShape& b =
            cylinderFirst ? static_cast<btCollisionShape&>(s.box) : s.cylinder;
        ASSERT_TRUE(cylinderBoxPair(a, b));
        PairPoints points;
        cylinderBoxPoints(a, X_WA, b, X_WB, 0.1, points);
        const double gap = bruteGap(X_WC, X_WX);
        if (gap <= 0.0 || points.count == 0) continue;
        ++separated;
        double nearest = 1e9;
        for (int i = 0; i < points.count; ++i) {
            const PairPoint& p = points.points[i];
            const btVector3& onCylinder = cylinderFirst ? p.worldA : p.worldB;
            const btVector3& onBox = cylinderFirst ? p.worldB : p.worldA;
            // On the cylinder (its rims rounded by Bullet's 1 mm margin where GJK's point is one)
            // and on the box's surface, along the normal, the local points the world ones.
            EXPECT_LT(outsideCylinder(X_WC, onCylinder), 1e-9) << n;
            EXPECT_NEAR(boxDistance(X_WX, onBox), 0.0, 1e-9) << n;
            EXPECT_NEAR((p.worldA - p.worldB).dot(p.normalOnB), p.distance, 1e-12) << n;
            EXPECT_NEAR(p.normalOnB.length(), 1.0, 1e-12);
            EXPECT_NEAR((X_WA(p.localA) - p.worldA).length(), 0.0, 1e-12);
            EXPECT_NEAR((X_WB(p.localB) - p.worldB).length(), 0.0, 1e-12);
            // No point nearer than the shapes are (the brute force's sampling: 0.1 mm).
            EXPECT_GE(p.distance, gap - 1e-4) << n << ' ' << i;
            nearest = std::min(nearest, double(p.distance));
        }
        // The nearest as near as the shapes are, to Bullet's 1 mm rounding of the rims.
        EXPECT_LE(nearest, gap + 1.5e-3) << n;
    }
    EXPECT_GT(separated, 150);
}

TEST(CylinderBox, ALyingCylinderTouchesAtTheEndsOfItsLineOverTheFace) {
    Shapes s;
    // Lying along x across the box's top face (x in ±0.12), 1 mm above it, its line longer
    // than the face is wide: the two points where the face's edges cut its lowest line.
    const btTransform X_WX = btTransform::getIdentity();
    btCylinderShapeZ longer(btVector3(kR, kR, 0.2));
    longer.setMargin(1e-3);
    const btTransform X_WC(btQuaternion(btVector3(0, 1, 0), 0.5 * SIMD_PI),
                           btVector3(0.03, 0, kBoxHalf.z() + kR + 1e-3));
    PairPoints points;
    cylinderBoxPoints(longer, X_WC, s.box, X_WX, 0.01, points);
    ASSERT_EQ(points.count, 2);
    for (int i = 0; i < 2; ++i) {
        EXPECT_NEAR(std::abs(points.points[i].worldB.x()), kBoxHalf.x(), 1e-12);
        EXPECT_NEAR(points.points[i].distance, 1e-3, 1e-12);
        EXPECT_NEAR(points.points[i].normalOnB.z(), 1.0, 1e-12);
    }
    // Standing on its cap, 1 mm above the face, the box first: four points of its rim.
    const btTransform X_WS(btQuaternion::getIdentity(),
                           btVector3(0.02, -0.01, kBoxHalf.z() + kHalf + 1e-3));
    cylinderBoxPoints(s.box, X_WX, s.cylinder, X_WS, 0.01, points);
    ASSERT_EQ(points.count, 4);
    for (int i = 0; i < 4; ++i) {
        const btVector3 rim = points.points[i].worldB - X_WS.getOrigin();
        EXPECT_NEAR(std::hypot(rim.x(), rim.y()), kR, 1e-12);
        EXPECT_NEAR(points.points[i].distance, 1e-3, 1e-12);
        EXPECT_NEAR(points.points[i].normalOnB.z(), -1.0, 1e-12);
    }
}

}  // namespace
}  // namespace engine::contact
