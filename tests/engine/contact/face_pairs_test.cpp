// A cylinder's points with a box, a ball, a capsule or a cylinder (shape_pairs.h): each a
// point of the cylinder and the other's across the gap along the normal; none nearer than the shapes are (by brute force over
// the cylinder's surface); the nearest as near as GJK's; a cylinder lying on a face touching at
// the two ends of its line over the face, one standing on it at four points of its rim. With a
// cylinder's cap as the face: a capsule lying across it, a box standing on it.

#include <gtest/gtest.h>

#include "engine/contact/shape_pairs.h"

#include <btBulletCollisionCommon.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace engine::contact {
namespace {

constexpr double kR = 0.05, kHalf = 0.08;  // the cylinder: radius, half length (along z)
const btVector3 kBoxHalf(0.12, 0.1, 0.06);
// The other shapes: a sphere, a capsule (along z), a second cylinder (along z).
constexpr double kBallR = 0.06, kRodR = 0.03, kRodHalf = 0.1, kDrumR = 0.07, kDrumHalf = 0.05;

double boxDistance(const btTransform& X_WX, const btVector3& p_W) {
    const btVector3 l = X_WX.invXform(p_W);
    const btVector3 c(std::clamp(l.x(), -kBoxHalf.x(), kBoxHalf.x()),
                      std::clamp(l.y(), -kBoxHalf.y(), kBoxHalf.y()),
                      std::clamp(l.z(), -kBoxHalf.z(), kBoxHalf.z()));
    return (l - c).length();
}

// How far p lies outside a cylinder of radius r and half length h at X_WC (0 inside).
double outsideCylinder(const btTransform& X_WC, const btVector3& p_W, double r = kR,
                       double h = kHalf) {
    const btVector3 l = X_WC.invXform(p_W);
    const double radial = std::max(0.0, std::hypot(l.x(), l.y()) - r);
    const double axial = std::max(0.0, std::abs(l.z()) - h);
    return std::hypot(radial, axial);
}

enum Other { kBox, kBall, kRod, kDrum, kHull };  // (the hull: the box's corners)

// How far p lies outside the other shape (of kind `other`, at X_WO; 0 inside).
double outsideOther(Other other, const btTransform& X_WO, const btVector3& p_W) {
    const btVector3 l = X_WO.invXform(p_W);
    switch (other) {
    case kBox:
    case kHull:
        return boxDistance(X_WO, p_W);
    case kBall:
        return std::max(0.0, l.length() - kBallR);
    case kRod: {
        const btVector3 c(0, 0, std::clamp(l.z(), -kRodHalf, kRodHalf));
        return std::max(0.0, (l - c).length() - kRodR);
    }
    case kDrum:
        return outsideCylinder(X_WO, p_W, kDrumR, kDrumHalf);
    }
    return 0.0;
}

// The shapes' gap by brute force: the cylinder's surface sampled (caps and side), each sample's
// distance to the other shape (exact); 0 when they overlap.
double bruteGap(const btTransform& X_WC, Other other, const btTransform& X_WO) {
    double gap = 1e9;
    constexpr int kRound = 720, kAlong = 160, kRings = 40;
    for (int i = 0; i < kRound; ++i) {
        const double a = 2.0 * SIMD_PI * i / kRound;
        const btVector3 u(std::cos(a), std::sin(a), 0);
        for (int k = 0; k <= kAlong; ++k)
            gap = std::min(
                gap, outsideOther(other, X_WO,
                                  X_WC(kR * u + btVector3(0, 0, -kHalf + 2 * kHalf * k / kAlong))));
        for (int k = 0; k <= kRings; ++k)
            for (const double z : {-kHalf, kHalf})
                gap = std::min(
                    gap, outsideOther(other, X_WO, X_WC(kR * k / kRings * u + btVector3(0, 0, z))));
    }
    return gap;
}

// The box's eight corners as a convex hull (no margin, Bullet's polyhedral faces: as Motus makes
// a moving mesh part's).
void makeBoxHull(btConvexHullShape& hull) {
    for (int i = 0; i < 8; ++i)
        hull.addPoint(
            btVector3(i & 1 ? kBoxHalf.x() : -kBoxHalf.x(), i & 2 ? kBoxHalf.y() : -kBoxHalf.y(),
                      i & 4 ? kBoxHalf.z() : -kBoxHalf.z()),
            false);
    hull.recalcLocalAabb();
    hull.setMargin(0.0);
    hull.initializePolyhedralFeatures();
}

struct Shapes {
    btCylinderShapeZ cylinder{btVector3(kR, kR, kHalf)};
    btBoxShape box{kBoxHalf};
    btSphereShape ball{kBallR};
    btCapsuleShapeZ rod{kRodR, 2 * kRodHalf};
    btCylinderShapeZ drum{btVector3(kDrumR, kDrumR, kDrumHalf)};
    btConvexHullShape hull;
    Shapes() {
        cylinder.setMargin(1e-3);
        box.setMargin(1e-3);
        drum.setMargin(1e-3);
        makeBoxHull(hull);
    }
    const btCollisionShape& of(Other other) const {
        switch (other) {
        case kBox:
            return box;
        case kBall:
            return ball;
        case kRod:
            return rod;
        case kDrum:
            return drum;
        case kHull:
            return hull;
        }
        return box;
    }
};

TEST(FacePairs, PointsLieOnTheShapesAndNoneIsNearerThanTheShapesAre) {
    Shapes s;
    std::mt19937 rng(77);
    const auto uniform = [&](double lo, double hi) {
        return std::uniform_real_distribution<>(lo, hi)(rng);
    };
    int separated[5] = {0, 0, 0, 0, 0};
    for (int n = 0; n < 750; ++n) {
        // The cylinder and a box, a ball, a capsule, a cylinder or a hull, either first; placed 0.2 m
        // from the other's centre in a random direction, turned at random (some runs: both
        // upright, or the cylinder lying, exactly).
        const auto other = static_cast<Other>(n % 5);
        const btVector3 axis =
            btVector3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)) + btVector3(0, 0, 1e-3);
        const btTransform X_WO(btQuaternion(axis.normalized(), uniform(0, 6.3)));
        const btVector3 dir =
            btVector3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1) + 1e-3).normalized();
        btQuaternion turn(btVector3(uniform(-1, 1), uniform(-1, 1), 1).normalized(),
                          uniform(0, 6.3));
        if (n % 10 < 2) turn = btQuaternion(btVector3(1, 0, 0), 0.5 * SIMD_PI);
        if (n % 10 >= 8) turn = btQuaternion::getIdentity();
        const btTransform X_WC = X_WO * btTransform(turn, 0.2 * dir);
        const bool cylinderFirst = (n / 5) % 2 == 0;
        const btTransform& X_WA = cylinderFirst ? X_WC : X_WO;
        const btTransform& X_WB = cylinderFirst ? X_WO : X_WC;
        const btCollisionShape& a =
            cylinderFirst ? static_cast<const btCollisionShape&>(s.cylinder) : s.of(other);
        const btCollisionShape& b =
            cylinderFirst ? s.of(other) : static_cast<const btCollisionShape&>(s.cylinder);
        ASSERT_TRUE(facePair(a, b));
        PairPoints points;
        facePoints(a, X_WA, b, X_WB, 0.1, points);
        const double gap = bruteGap(X_WC, other, X_WO);
        if (gap <= 0.0 || points.count == 0) continue;
        ++separated[other];
        double nearest = 1e9;
        for (int i = 0; i < points.count; ++i) {
            const PairPoint& p = points.points[i];
            const btVector3& onCylinder = cylinderFirst ? p.worldA : p.worldB;
            const btVector3& onOther = cylinderFirst ? p.worldB : p.worldA;
            // On (or, where Bullet's 1 mm margin rounds a rim or an edge for GJK's point, just
            // inside) each shape, along the normal, the local points the world ones.
            EXPECT_LT(outsideCylinder(X_WC, onCylinder), 1e-9) << n;
            EXPECT_LT(outsideOther(other, X_WO, onOther), 1e-9) << n;
            EXPECT_NEAR((p.worldA - p.worldB).dot(p.normalOnB), p.distance, 1e-12) << n;
            EXPECT_NEAR(p.normalOnB.length(), 1.0, 1e-12);
            EXPECT_NEAR((X_WA(p.localA) - p.worldA).length(), 0.0, 1e-12);
            EXPECT_NEAR((X_WB(p.localB) - p.worldB).length(), 0.0, 1e-12);
            // No point nearer than the shapes are (the brute force's sampling: 0.1 mm).
            EXPECT_GE(p.distance, gap - 1e-4) << n << ' ' << i;
            nearest = std::min(nearest, double(p.distance));
        }
        // The nearest as near as the shapes are, to Bullet's 1 mm rounding of rims and edges.
        EXPECT_LE(nearest, gap + 1.5e-3) << n;
    }
    for (const int count : separated) EXPECT_GT(count, 60);
}

TEST(FacePairs, ALyingCylinderTouchesAtTheEndsOfItsLineOverTheFace) {
    Shapes s;
    // Lying along x across the box's top face (x in ±0.12), 1 mm above it, its line longer
    // than the face is wide: the two points where the face's edges cut its lowest line.
    const btTransform X_WX = btTransform::getIdentity();
    btCylinderShapeZ longer(btVector3(kR, kR, 0.2));
    longer.setMargin(1e-3);
    const btTransform X_WC(btQuaternion(btVector3(0, 1, 0), 0.5 * SIMD_PI),
                           btVector3(0.03, 0, kBoxHalf.z() + kR + 1e-3));
    PairPoints points;
    facePoints(longer, X_WC, s.box, X_WX, 0.01, points);
    ASSERT_EQ(points.count, 2);
    for (int i = 0; i < 2; ++i) {
        EXPECT_NEAR(std::abs(points.points[i].worldB.x()), kBoxHalf.x(), 1e-12);
        EXPECT_NEAR(points.points[i].distance, 1e-3, 1e-12);
        EXPECT_NEAR(points.points[i].normalOnB.z(), 1.0, 1e-12);
    }
    // Standing on its cap, 1 mm above the face, the box first: four points of its rim.
    const btTransform X_WS(btQuaternion::getIdentity(),
                           btVector3(0.02, -0.01, kBoxHalf.z() + kHalf + 1e-3));
    facePoints(s.box, X_WX, s.cylinder, X_WS, 0.01, points);
    ASSERT_EQ(points.count, 4);
    for (int i = 0; i < 4; ++i) {
        const btVector3 rim = points.points[i].worldB - X_WS.getOrigin();
        EXPECT_NEAR(std::hypot(rim.x(), rim.y()), kR, 1e-12);
        EXPECT_NEAR(points.points[i].distance, 1e-3, 1e-12);
        EXPECT_NEAR(points.points[i].normalOnB.z(), -1.0, 1e-12);
    }
}

TEST(FacePairs, ACapsuleAcrossADrumsCapAndABoxOnItTouchAtTheirPointsOverTheCap) {
    // A drum (radius 0.1 m) standing with its top cap at z = 0; a capsule (radius 2 cm, core
    // 0.3 m) lying across it along x through its axis, 1 mm above, tilted by 1 mrad: the two
    // points where the cap's rim cuts its lowest line, x = ±0.1.
    btCylinderShapeZ drum(btVector3(0.1, 0.1, 0.05));
    drum.setMargin(1e-3);
    const btTransform X_WD(btQuaternion::getIdentity(), btVector3(0, 0, -0.05));
    const double r = 0.02, tilt = 1e-3;
    btCapsuleShapeZ rod(r, 0.3);
    const btTransform X_WR(btQuaternion(btVector3(0, 1, 0), 0.5 * SIMD_PI + tilt),
                           btVector3(0, 0, r + 1e-3));
    ASSERT_TRUE(facePair(rod, drum));
    PairPoints points;
    facePoints(rod, X_WR, drum, X_WD, 0.01, points);
    ASSERT_EQ(points.count, 2);
    for (int i = 0; i < 2; ++i) {
        const PairPoint& p = points.points[i];
        EXPECT_NEAR(std::abs(p.worldB.x()), 0.1, 1e-12);  // on the rim
        EXPECT_NEAR(p.worldB.z(), 0.0, 1e-12);
        EXPECT_NEAR(p.normalOnB.z(), 1.0, 1e-12);
        EXPECT_NEAR(p.distance, 1e-3 - std::tan(tilt) * p.worldB.x(), 1e-12);
        EXPECT_NEAR((p.worldA - p.worldB).dot(p.normalOnB), p.distance, 1e-12);
    }
    // A 4 cm cube standing on the cap off its axis, 1 mm above, the drum first: its four
    // bottom corners.
    btBoxShape cube(btVector3(0.02, 0.02, 0.02));
    cube.setMargin(1e-3);
    const btTransform X_WC(btQuaternion(btVector3(0, 0, 1), 0.3), btVector3(0.03, 0.02, 0.021));
    facePoints(drum, X_WD, cube, X_WC, 0.01, points);
    ASSERT_EQ(points.count, 4);
    for (int i = 0; i < 4; ++i) {
        EXPECT_NEAR(points.points[i].distance, 1e-3, 1e-12);
        EXPECT_NEAR(points.points[i].worldB.z(), 1e-3, 1e-12);  // the cube's corner
        EXPECT_NEAR(points.points[i].normalOnB.z(), -1.0, 1e-12);
    }
}

// A convex hull (a box's eight corners, Bullet's polyhedral faces) and a ball or a capsule: the
// hull's faces as polygons, checked as the cylinder's pairs are, against the box's exact
// distance.
TEST(FacePairs, AHullsFacesTakeTheRoundShapesPointsOverThem) {
    btConvexHullShape hull;
    makeBoxHull(hull);
    btSphereShape ball(kBallR);
    btCapsuleShapeZ rod(kRodR, 2 * kRodHalf);
    std::mt19937 rng(5);
    const auto uniform = [&](double lo, double hi) {
        return std::uniform_real_distribution<>(lo, hi)(rng);
    };
    int separated = 0, lines = 0;
    for (int n = 0; n < 400; ++n) {
        const bool isRod = n % 2 == 0;
        const btCollisionShape& round = isRod ? static_cast<const btCollisionShape&>(rod) : ball;
        const btTransform X_WH(btQuaternion(
            btVector3(uniform(-1, 1), uniform(-1, 1), 1).normalized(), uniform(0, 6.3)));
        const btVector3 dir =
            btVector3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1) + 1e-3).normalized();
        btQuaternion turn(btVector3(uniform(-1, 1), uniform(-1, 1), 1).normalized(),
                          uniform(0, 6.3));
        if (n % 8 < 2) turn = btQuaternion(btVector3(1, 0, 0), 0.5 * SIMD_PI);  // lying flat
        const btTransform X_WR = X_WH * btTransform(turn, 0.16 * dir);
        const bool hullFirst = (n / 2) % 2 == 0;
        ASSERT_TRUE(facePair(hullFirst ? static_cast<const btCollisionShape&>(hull) : round,
                             hullFirst ? round : static_cast<const btCollisionShape&>(hull)));
        PairPoints points;
        if (hullFirst)
            facePoints(hull, X_WH, round, X_WR, 0.1, points);
        else
            facePoints(round, X_WR, hull, X_WH, 0.1, points);
        // The gap by brute force: the core's distance to the box, less the radius.
        const double r = isRod ? kRodR : kBallR, half = isRod ? kRodHalf : 0.0;
        double core = 1e9;
        for (int k = 0; k <= 20000; ++k)
            core = std::min(
                core, boxDistance(X_WH, X_WR(btVector3(0, 0, -half + 2 * half * k / 20000.0))));
        const double gap = core - r;
        if (core <= 0.0 || points.count == 0) continue;
        ++separated;
        lines += points.count > 1;
        double nearest = 1e9;
        for (int i = 0; i < points.count; ++i) {
            const PairPoint& p = points.points[i];
            const btVector3& onHull = hullFirst ? p.worldA : p.worldB;
            const btVector3& onRound = hullFirst ? p.worldB : p.worldA;
            EXPECT_NEAR(boxDistance(X_WH, onHull), 0.0, 1e-9) << n;
            const btVector3 l = X_WR.invXform(onRound);
            const btVector3 c(0, 0, std::clamp(l.z(), -half, half));
            EXPECT_LT((l - c).length(), r + 1e-9) << n;  // on or inside the round shape
            EXPECT_NEAR((p.worldA - p.worldB).dot(p.normalOnB), p.distance, 1e-12) << n;
            EXPECT_GE(p.distance, gap - 1e-6) << n << ' ' << i;
            nearest = std::min(nearest, double(p.distance));
        }
        EXPECT_NEAR(nearest, gap, 1e-6) << n;
    }
    EXPECT_GT(separated, 200);
    EXPECT_GT(lines, 20);  // (capsules lying along a face: two points)
}

}  // namespace
}  // namespace engine::contact
