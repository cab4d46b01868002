// The nearest points of two cores by Motus's GJK (core_distance.h) against Bullet's GJK and
// against the shapes themselves: for every pair of a sphere, a capsule, a box and a cylinder
// (each of Bullet's up axes), turned and placed at random from overlapping by 0.5 mm to 30 mm
// apart — the same distance and normal as Bullet's GJK finds, the points on the surfaces (each
// core grown by its margin) across the gap along the normal; cores that meet left to Bullet;
// pairs beyond the reach not reported.

#include <gtest/gtest.h>

#include "engine/contact/core_distance.h"

#include <btBulletCollisionCommon.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <vector>

namespace engine::contact {
namespace {

// Bullet's GJK run to convergence (with a shorter reach it stops early beyond it).
CoreNearest bulletGjk(const btConvexShape& a, const btTransform& X_WA, const btConvexShape& b,
                      const btTransform& X_WB) {
    CoreNearest nearest;
    EXPECT_TRUE(bulletNearest(a, X_WA, b, X_WB, 1.0, nearest));
    return nearest;
}

// How far p (in the shape's frame) lies from the shape's core (0 inside), computed exactly.
double fromCore(const btConvexShape& shape, const btVector3& p) {
    switch (shape.getShapeType()) {
    case SPHERE_SHAPE_PROXYTYPE:
        return p.length();
    case CAPSULE_SHAPE_PROXYTYPE: {
        const auto& capsule = static_cast<const btCapsuleShape&>(shape);
        const int up = capsule.getUpAxis();
        btVector3 c(0, 0, 0);
        c[up] = std::clamp(p[up], -capsule.getHalfHeight(), capsule.getHalfHeight());
        return (p - c).length();
    }
    case BOX_SHAPE_PROXYTYPE: {
        const btVector3 h = static_cast<const btBoxShape&>(shape).getHalfExtentsWithoutMargin();
        const btVector3 c(std::clamp(p.x(), -h.x(), h.x()), std::clamp(p.y(), -h.y(), h.y()),
                          std::clamp(p.z(), -h.z(), h.z()));
        return (p - c).length();
    }
    case CYLINDER_SHAPE_PROXYTYPE: {
        const auto& cylinder = static_cast<const btCylinderShape&>(shape);
        const int up = cylinder.getUpAxis();
        const btVector3 h = cylinder.getHalfExtentsWithoutMargin();
        const double radius = h[up == 0 ? 1 : 0];
        double r2 = 0;
        for (int j = 0; j < 3; ++j)
            if (j != up) r2 += p[j] * p[j];
        const double radial = std::max(0.0, std::sqrt(r2) - radius);
        const double axial = std::max(0.0, std::abs(p[up]) - h[up]);
        return std::hypot(radial, axial);
    }
    default:
        return -1;
    }
}

// The point of the shape's surface (its core grown by its margin) farthest along unit u.
btVector3 surfaceSupport(const btConvexShape& shape, const btVector3& u) {
    return shape.localGetSupportVertexWithoutMarginNonVirtual(u) + shape.getMarginNonVirtual() * u;
}

std::vector<std::unique_ptr<btConvexShape>> shapes() {
    std::vector<std::unique_ptr<btConvexShape>> all;
    all.push_back(std::make_unique<btSphereShape>(0.05));
    all.push_back(std::make_unique<btCapsuleShape>(0.02, 0.2));   // (along y)
    all.push_back(std::make_unique<btCapsuleShapeZ>(0.03, 0.1));  // (along z)
    all.push_back(std::make_unique<btBoxShape>(btVector3(0.1, 0.05, 0.02)));
    all.push_back(std::make_unique<btCylinderShape>(btVector3(0.05, 0.08, 0.05)));   // y
    all.push_back(std::make_unique<btCylinderShapeX>(btVector3(0.1, 0.03, 0.03)));   // x
    all.push_back(std::make_unique<btCylinderShapeZ>(btVector3(0.07, 0.07, 0.02)));  // z
    for (auto& shape : all)
        if (shape->getShapeType() == BOX_SHAPE_PROXYTYPE ||
            shape->getShapeType() == CYLINDER_SHAPE_PROXYTYPE)
            shape->setMargin(1e-3);  // (Motus's margin for such shapes)
    return all;
}

TEST(CoreDistance, TheNearestPointsAreBulletsAndLieOnTheShapesAcrossTheGap) {
    const auto all = shapes();
    std::mt19937 rng(2026);
    const auto uniform = [&](double lo, double hi) {
        return std::uniform_real_distribution<>(lo, hi)(rng);
    };
    const auto turn = [&] {
        return btQuaternion(
            btVector3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1) + 1e-3).normalized(),
            uniform(0, 6.3));
    };
    const btScalar reach = 0.02;
    int found = 0, compared = 0, beyond = 0, unsolved = 0, inexact = 0, bulletInexact = 0;
    for (std::size_t i = 0; i < all.size(); ++i)
        for (std::size_t j = 0; j < all.size(); ++j)
            for (int n = 0; n < 60; ++n) {
                const btConvexShape& a = *all[i];
                const btConvexShape& b = *all[j];
                // B moved from A's centre along a random direction until the surfaces are
                // `gap` apart (by bisection on Bullet's distance), some runs square to the axes.
                btTransform X_WA(turn(), btVector3(uniform(-1, 1), uniform(-1, 1), uniform(0, 1)));
                btQuaternion q = turn();
                if (n % 6 == 0) {
                    X_WA.setRotation(btQuaternion::getIdentity());
                    q = btQuaternion::getIdentity();
                }
                const btVector3 dir =
                    n % 6 == 1 ? btVector3(0, 0, 1)
                               : btVector3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1) + 1e-3)
                                     .normalized();
                const double gap = n % 5 == 0 ? uniform(-5e-4, 1e-6) : uniform(1e-6, 0.03);
                double lo = 0, hi = 1;
                for (int k = 0; k < 60; ++k) {
                    const double mid = 0.5 * (lo + hi);
                    const btTransform X_WB(q, X_WA.getOrigin() + mid * dir);
                    (bulletGjk(a, X_WA, b, X_WB).distance < gap ? lo : hi) = mid;
                }
                const btTransform X_WB(q, X_WA.getOrigin() + hi * dir);
                CoreNearest ours;
                const CoreResult result = nearestCores(a, X_WA, b, X_WB, reach, ours);
                const CoreNearest theirs = bulletGjk(a, X_WA, b, X_WB);
                if (theirs.distance >= reach + a.getMargin() + b.getMargin()) {
                    // (beyond the reach: ours beyond, or reported beyond the reach)
                    if (result == CoreResult::Found) {
                        EXPECT_NEAR(ours.distance, theirs.distance, 1e-10);
                    }
                    ++beyond;
                    continue;
                }
                const double coreGap = theirs.distance + a.getMargin() + b.getMargin();
                if (coreGap < 1e-6) {
                    // (cores that meet, or nearly: Bullet's EPA)
                    EXPECT_EQ(result, CoreResult::Unsolved) << i << ' ' << j << ' ' << n;
                    continue;
                }
                if (result == CoreResult::Unsolved) {
                    ++unsolved;
                    continue;
                }
                ASSERT_EQ(result, CoreResult::Found) << i << ' ' << j << ' ' << n;
                ++found;
                // The distance is the shapes': no farther than the gap between the two planes
                // square to the normal that touch A and B (the shapes lie on either side), and
                // its points (below) lie on them.
                const btVector3& normal = ours.normalOnB;
                EXPECT_NEAR(normal.length(), 1.0, 1e-12);
                const btScalar onPlaneA =
                    normal.dot(X_WA(surfaceSupport(a, -normal * X_WA.getBasis())));
                const btScalar onPlaneB =
                    normal.dot(X_WB(surfaceSupport(b, normal * X_WB.getBasis())));
                // (the same for Bullet's normal)
                const btVector3& m = theirs.normalOnB;
                const btScalar theirA = m.dot(X_WA(surfaceSupport(a, -m * X_WA.getBasis())));
                const btScalar theirB = m.dot(X_WB(surfaceSupport(b, m * X_WB.getBasis())));
                const double ourGap = ours.distance - (onPlaneA - onPlaneB);
                const double theirGap = theirs.distance - (theirA - theirB);
                EXPECT_GE(ourGap, -1e-12) << i << ' ' << j << ' ' << n;
                // Mostly exact; where two rims meet (a cylinder's with a box's edge or another
                // rim), as near as a thin simplex lets GJK come, and never farther than Bullet's.
                EXPECT_LE(ourGap, std::max(1e-10, theirGap)) << i << ' ' << j << ' ' << n;
                if (ourGap > 1e-9) ++inexact;
                if (theirGap > 1e-9) ++bulletInexact;
                // Bullet's GJK as near, or farther: it stops short on curved faces (a ball on a
                // cylinder's side: up to 15 µm, two rims: 0.13 mm).
                EXPECT_LE(ours.distance, theirs.distance + 1e-12) << i << ' ' << j << ' ' << n;
                EXPECT_NEAR(ours.distance, theirs.distance, 2e-4) << i << ' ' << j << ' ' << n;
                ++compared;
                // On B's surface, and across the gap along the normal on A's.
                const btVector3 onB = X_WB.invXform(ours.pointOnB);
                const btVector3 onA = X_WA.invXform(ours.pointOnB + ours.distance * ours.normalOnB);
                EXPECT_NEAR(fromCore(b, onB), b.getMargin(), 1e-9) << i << ' ' << j << ' ' << n;
                EXPECT_NEAR(fromCore(a, onA), a.getMargin(), 1e-9) << i << ' ' << j << ' ' << n;
            }
    EXPECT_GT(found, 1500);
    EXPECT_GT(beyond, 100);
    EXPECT_LT(unsolved, 30);
    // (this run: 36 of 2,725 farther than 1 nm from the planes' gap; Bullet's GJK 1,076)
    EXPECT_LT(inexact, compared / 50);
    EXPECT_GT(bulletInexact, compared / 5);
    EXPECT_EQ(compared, found);
}

// Things lying flat on a drum's cap (a cylinder standing, radius 5 cm, its cap at z = 0.05), all
// wider than the cap and 0.3 mm above it, turned about the vertical: a cube, a capsule across
// it, a cylinder on its side, a second drum standing on it off centre. The gap is the height
// (their lowest points over the cap are its nearest), the normal up, the point on the cap.
TEST(CoreDistance, ThingsLyingFlatOnACapAreAsHighAboveItAsTheyLie) {
    btCylinderShapeZ drum(btVector3(0.05, 0.05, 0.05));
    drum.setMargin(1e-3);
    btBoxShape cube(btVector3(0.08, 0.08, 0.04));
    cube.setMargin(1e-3);
    btCapsuleShapeX capsule(0.02, 0.3);                // (along x)
    btCylinderShapeX log(btVector3(0.2, 0.03, 0.03));  // (along x)
    log.setMargin(1e-3);
    btCylinderShapeZ drum2(btVector3(0.06, 0.06, 0.02));
    drum2.setMargin(1e-3);
    const btTransform X_WA(btQuaternion::getIdentity(), btVector3(0.1, -0.2, 0.05));
    const double gap = 3e-4;
    struct Lying {
        const btConvexShape* shape;
        double halfHeight;  // (its lowest point below its centre)
        btVector3 offset;   // (its centre across the cap's, in the plane)
    };
    for (const Lying& lying :
         {Lying{&cube, 0.04, btVector3(0.03, -0.02, 0)},
          Lying{&capsule, 0.02, btVector3(0.01, 0.03, 0)},
          Lying{&log, 0.03, btVector3(-0.05, 0.02, 0)}, Lying{&drum2, 0.02, btVector3(0.07, 0, 0)}})
        for (const double turn : {0.0, 0.7, 2.0}) {
            const btTransform X_WB(
                btQuaternion(btVector3(0, 0, 1), turn),
                X_WA.getOrigin() + lying.offset + btVector3(0, 0, 0.05 + gap + lying.halfHeight));
            CoreNearest out;
            ASSERT_EQ(nearestCores(drum, X_WA, *lying.shape, X_WB, 0.02, out), CoreResult::Found);
            EXPECT_NEAR(out.distance, gap, 1e-12) << lying.halfHeight << ' ' << turn;
            EXPECT_NEAR(out.normalOnB.z(), -1.0, 1e-12);
            const btVector3 onCap = X_WA.invXform(out.pointOnB + out.distance * out.normalOnB);
            EXPECT_NEAR(onCap.z(), 0.05, 1e-12);
            EXPECT_LE(std::hypot(onCap.x(), onCap.y()), 0.05 + 1e-12);
            CoreNearest swapped;  // (the drum as B)
            ASSERT_EQ(nearestCores(*lying.shape, X_WB, drum, X_WA, 0.02, swapped),
                      CoreResult::Found);
            EXPECT_NEAR(swapped.distance, gap, 1e-12);
            EXPECT_NEAR(swapped.normalOnB.z(), 1.0, 1e-12);
        }
}

// Things on a drum's rim (a cylinder standing, radius 5 cm, half height 5 cm, 1 mm margin: its
// surface's rim is its core's rim circle rounded by the margin): balls around the rim's edge and
// capsules lying across it, tilted and turned. The distance is the one computed here on its own:
// from the ball's centre, or the nearest of 20,001 points along the capsule's segment refined by
// golden sections, to the core's rim circle, less the margin and the radius — to 1e-12 m; the
// normal along that gap; and the same with the drum as B. The same for cubes leaning on it.
TEST(CoreDistance, ThingsOnADrumsRimAreAsFarFromItAsTheirCoresAreFromItsCircle) {
    btCylinderShapeZ drum(btVector3(0.05, 0.05, 0.05));
    drum.setMargin(1e-3);
    const double coreRadius = 0.049, coreHalf = 0.049;
    const btTransform X_WA(btQuaternion(btVector3(1, 2, 3).normalized(), 0.4),
                           btVector3(0.1, -0.2, 0.3));
    // (the distance of a point in the drum's frame from its top core rim circle)
    const auto fromRim = [&](const btVector3& p) {
        return std::hypot(std::hypot(p.x(), p.y()) - coreRadius, p.z() - coreHalf);
    };
    btSphereShape ball(0.02);
    btCapsuleShapeX rod(0.015, 0.2);  // (along x)
    int checked = 0;
    for (int k = 0; k < 24; ++k) {
        const double around = 0.26 * k;
        const btVector3 radial(std::cos(around), std::sin(around), 0);
        // A ball beyond the rim's edge: its centre 21–29 mm from the rim, out and up.
        const double lean = 0.2 + 0.05 * (k % 6);
        const btVector3 centre = radial * (coreRadius + 0.024 * std::cos(lean)) +
                                 btVector3(0, 0, coreHalf + 0.024 * std::sin(lean));
        // A rod lying across the rim, falling away outwards, its middle beyond the rim, turned
        // about its own tilt line.
        const double tilt = 0.3 + 0.04 * (k % 5), skew = 0.3 * ((k % 7) - 3);
        const btQuaternion turnRod = btQuaternion(btVector3(0, 0, 1), around + skew) *
                                     btQuaternion(btVector3(0, 1, 0), tilt);
        const btVector3 rodCentre = radial * (coreRadius + 0.01) + btVector3(0, 0, 0.075);
        for (int which = 0; which < 2; ++which) {
            const btConvexShape& other = which == 0 ? static_cast<const btConvexShape&>(ball)
                                                    : static_cast<const btConvexShape&>(rod);
            const btTransform X_AB = which == 0 ? btTransform(btQuaternion::getIdentity(), centre)
                                                : btTransform(turnRod, rodCentre);
            double expected = 0;
            if (which == 0) {
                expected = fromRim(centre) - 1e-3 - 0.02;
            } else {
                const btVector3 p = X_AB(btVector3(-0.1, 0, 0)), q = X_AB(btVector3(0.1, 0, 0));
                const auto at = [&](double t) { return fromRim(p + t * (q - p)); };
                double best = 0;
                for (int n = 1; n <= 20000; ++n)
                    if (at(n / 20000.0) < at(best)) best = n / 20000.0;
                double lo = std::max(0.0, best - 1e-4), hi = std::min(1.0, best + 1e-4);
                for (int n = 0; n < 200; ++n) {
                    const double a = lo + 0.382 * (hi - lo), b = hi - 0.382 * (hi - lo);
                    (at(a) < at(b) ? hi : lo) = at(a) < at(b) ? b : a;
                }
                expected = at(0.5 * (lo + hi)) - 1e-3 - 0.015;
            }
            ASSERT_GT(expected, 1e-4) << k << ' ' << which;
            const btTransform X_WB = X_WA * X_AB;
            CoreNearest out;
            ASSERT_EQ(nearestCores(drum, X_WA, other, X_WB, 0.05, out), CoreResult::Found)
                << k << ' ' << which;
            EXPECT_NEAR(out.distance, expected, 1e-12) << k << ' ' << which;
            // (B's point across the gap along the normal lies on the drum's rounded rim)
            const btVector3 onA = X_WA.invXform(out.pointOnB + out.distance * out.normalOnB);
            EXPECT_NEAR(fromRim(onA), 1e-3, 1e-9) << k << ' ' << which;
            CoreNearest swapped;
            ASSERT_EQ(nearestCores(other, X_WB, drum, X_WA, 0.05, swapped), CoreResult::Found);
            EXPECT_NEAR(swapped.distance, expected, 1e-12) << k << ' ' << which;
            EXPECT_NEAR(swapped.normalOnB.dot(out.normalOnB), -1.0, 1e-9);
            ++checked;
        }
    }
    EXPECT_EQ(checked, 48);
    // Cubes leaning on the rim from outside, tilted inwards about the rim's tangent and turned
    // about their own vertical: the distance from the rim's circle to the cube's core (the
    // nearest of 20,001 rim points refined by golden sections) less both margins.
    btBoxShape cube(btVector3(0.03, 0.03, 0.03));
    cube.setMargin(1e-3);
    const double coreCube = 0.029;
    for (int k = 0; k < 24; ++k) {
        const double around = 0.26 * k;
        const btVector3 radial(std::cos(around), std::sin(around), 0);
        const btVector3 tangent(-std::sin(around), std::cos(around), 0);
        const btQuaternion turn = btQuaternion(tangent, 0.2 + 0.05 * (k % 7)) *
                                  btQuaternion(btVector3(0, 0, 1), 0.13 * k);
        const btTransform X_AB(turn, radial * (coreRadius + 0.045) + btVector3(0, 0, 0.08));
        const btTransform X_BA = X_AB.inverse();
        const auto at = [&](double theta) {
            const btVector3 onRim(coreRadius * std::cos(theta), coreRadius * std::sin(theta),
                                  coreHalf);
            const btVector3 x = X_BA(onRim);
            const btVector3 q(std::clamp(x.x(), -coreCube, coreCube),
                              std::clamp(x.y(), -coreCube, coreCube),
                              std::clamp(x.z(), -coreCube, coreCube));
            return (x - q).length();
        };
        double best = 0;
        for (int n = 1; n <= 20000; ++n)
            if (at(2 * M_PI * n / 20000) < at(best)) best = 2 * M_PI * n / 20000;
        double lo = best - 4e-4, hi = best + 4e-4;
        for (int n = 0; n < 200; ++n) {
            const double a = lo + 0.382 * (hi - lo), b = hi - 0.382 * (hi - lo);
            (at(a) < at(b) ? hi : lo) = at(a) < at(b) ? b : a;
        }
        const double expected = at(0.5 * (lo + hi)) - 2e-3;
        ASSERT_GT(expected, 1e-4) << k;
        const btTransform X_WB = X_WA * X_AB;
        CoreNearest out, swapped;
        ASSERT_EQ(nearestCores(drum, X_WA, cube, X_WB, 0.05, out), CoreResult::Found) << k;
        EXPECT_NEAR(out.distance, expected, 1e-12) << k;
        ASSERT_EQ(nearestCores(cube, X_WB, drum, X_WA, 0.05, swapped), CoreResult::Found) << k;
        EXPECT_NEAR(swapped.distance, expected, 1e-12) << k;
    }
}

TEST(CoreDistance, PairsBeyondTheReachAreNotReportedAndMeetingCoresAreLeftToBullet) {
    const auto all = shapes();
    const btConvexShape& box = *all[3];
    const btConvexShape& cylinder = *all[4];
    const btTransform X_WA = btTransform::getIdentity();
    CoreNearest out;
    // The box's top face (z = 0.02) under the cylinder's side (radius 0.05, along y): apart by
    // 0.1 m, beyond a reach of 2 cm and both margins.
    const btTransform far(btQuaternion::getIdentity(), btVector3(0.01, 0, 0.17));
    EXPECT_EQ(nearestCores(box, X_WA, cylinder, far, 0.02, out), CoreResult::Beyond);
    // 1 cm apart: found, the normal up the box's face normal, B's point on its side.
    const btTransform near(btQuaternion::getIdentity(), btVector3(0.01, 0, 0.08));
    ASSERT_EQ(nearestCores(box, X_WA, cylinder, near, 0.02, out), CoreResult::Found);
    EXPECT_NEAR(out.distance, 0.01, 1e-12);
    EXPECT_NEAR(out.normalOnB.z(), -1.0, 1e-12);
    EXPECT_NEAR(out.pointOnB.z(), 0.03, 1e-12);
    // (along the side's curve GJK's point converges as fast as its distance's square root)
    EXPECT_NEAR(out.pointOnB.x(), 0.01, 1e-8);
    // Overlapping by 1 cm: the cores meet.
    const btTransform into(btQuaternion::getIdentity(), btVector3(0.01, 0, 0.06));
    EXPECT_EQ(nearestCores(box, X_WA, cylinder, into, 0.02, out), CoreResult::Unsolved);
    // A hull is not taken.
    btConvexHullShape hull;
    hull.addPoint(btVector3(0, 0, 0));
    EXPECT_FALSE(coreShape(hull.getShapeType()));
    EXPECT_TRUE(coreShape(box.getShapeType()));
}

// Hostile input: a pose that is not a number, cores whose centres coincide, a cylinder of no
// size — each answered (left to Bullet, or found where it is defined), never a hang or a
// non-finite point.
TEST(CoreDistance, PosesNotNumbersAndShapesOfNoSizeAreLeftToBulletOrFound) {
    btCylinderShape drum(btVector3(0.05, 0.05, 0.05));
    drum.setMargin(1e-3);
    btCapsuleShape rod(0.02, 0.1);
    btCylinderShape flat(btVector3(0.0, 0.0, 0.0));  // (no size: margin and radius 0)
    flat.setMargin(0.0);
    const btTransform X_WA = btTransform::getIdentity();
    CoreNearest out;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (const double bad : {nan, inf}) {
        const btTransform X_WB(btQuaternion::getIdentity(), btVector3(bad, 0, 0.2));
        EXPECT_EQ(nearestCores(drum, X_WA, rod, X_WB, 0.02, out), CoreResult::Unsolved);
        const btTransform turned(btQuaternion(bad, 0, 0, 1), btVector3(0.2, 0, 0));
        EXPECT_NE(nearestCores(drum, X_WA, rod, turned, 0.02, out), CoreResult::Found);
    }
    // Centres that coincide: the cores meet.
    EXPECT_EQ(nearestCores(drum, X_WA, rod, X_WA, 0.02, out), CoreResult::Unsolved);
    // A cylinder of no size, 0.1 m beside a drum's side: a point 0.05 m from its surface.
    const btTransform beside(btQuaternion::getIdentity(), btVector3(0.1, 0.0, 0.0));
    ASSERT_EQ(nearestCores(drum, X_WA, flat, beside, 0.1, out), CoreResult::Found);
    EXPECT_NEAR(out.distance, 0.05, 1e-12);
    EXPECT_TRUE(std::isfinite(out.pointOnB.x()) && std::isfinite(out.normalOnB.x()));
    // A cube leaning on the drum's rim (the rim's closed form) at a pose not a number, and a
    // ball on its rim at one: left to Bullet or not found, never a point not a number.
    btBoxShape cube(btVector3(0.03, 0.03, 0.03));
    cube.setMargin(1e-3);
    btSphereShape ball(0.02);
    for (const double bad : {nan, inf}) {
        const btTransform leaning(btQuaternion(btVector3(0, 0, 1), 0.4),
                                  btVector3(0.09, bad, 0.08));
        for (const btConvexShape* other :
             {static_cast<const btConvexShape*>(&cube), static_cast<const btConvexShape*>(&ball)})
            if (nearestCores(drum, X_WA, *other, leaning, 0.02, out) == CoreResult::Found)
                ADD_FAILURE() << "a pose not a number found a point";
    }
    // A cube and a ball beside a cylinder of no size (a point): 5 cm and 2 cm from it, exactly.
    const btTransform nearFlat(btQuaternion::getIdentity(), btVector3(0.0, 0.08, 0.0));
    ASSERT_EQ(
        nearestCores(flat, beside, cube,
                     btTransform(beside.getRotation(), beside.getOrigin() + nearFlat.getOrigin()),
                     0.1, out),
        CoreResult::Found);
    EXPECT_NEAR(out.distance, 0.05, 1e-12);
    ASSERT_EQ(
        nearestCores(ball,
                     btTransform(beside.getRotation(), beside.getOrigin() + btVector3(0.04, 0, 0)),
                     flat, beside, 0.1, out),
        CoreResult::Found);
    EXPECT_NEAR(out.distance, 0.02, 1e-12);
}

}  // namespace
}  // namespace engine::contact
