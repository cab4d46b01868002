// Round shapes' points found in closed form (shape_pairs.h) against the nearest points found by
// brute force (the cores' distance minimised over a fine sampling, then refined: it is convex
// along a segment), against Bullet's GJK where the shapes are round both, and in the cases that
// make a line of contact (a capsule lying on a face or along another capsule: two points).

#include <gtest/gtest.h>

#include "engine/contact/shape_pairs.h"

#include <btBulletCollisionCommon.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <random>

namespace engine::contact {
namespace {

constexpr double kBig = 10.0;  // a breaking distance that keeps every point

// A shape's core in the world: segment [p, q] and radius (a box: its half extents and pose).
struct Solid {
    std::unique_ptr<btCollisionShape> shape;
    btTransform X;
    bool box = false;
    btVector3 p{0, 0, 0}, q{0, 0, 0};
    double radius = 0;
};

Solid sphere(double r, const btTransform& X) {
    Solid s;
    s.shape = std::make_unique<btSphereShape>(r);
    s.X = X;
    s.p = s.q = X.getOrigin();
    s.radius = r;
    return s;
}
Solid capsule(double r, double length, const btTransform& X) {
    Solid s;
    s.shape = std::make_unique<btCapsuleShapeZ>(r, length);
    s.X = X;
    s.p = X(btVector3(0, 0, -0.5 * length));
    s.q = X(btVector3(0, 0, 0.5 * length));
    s.radius = r;
    return s;
}
Solid box(const btVector3& half, const btTransform& X) {
    Solid s;
    s.shape = std::make_unique<btBoxShape>(half);
    s.X = X;
    s.box = true;
    return s;
}

// The distance from point x (world) to a solid's core (a box: to the box).
double coreDistance(const Solid& s, const btVector3& x) {
    if (s.box) {
        const btVector3 h = static_cast<const btBoxShape&>(*s.shape).getHalfExtentsWithMargin();
        const btVector3 l = s.X.invXform(x);
        const btVector3 c(std::clamp(l.x(), -h.x(), h.x()), std::clamp(l.y(), -h.y(), h.y()),
                          std::clamp(l.z(), -h.z(), h.z()));
        return (l - c).length();
    }
    const btVector3 d = s.q - s.p;
    const double t = d.length2() > 0 ? std::clamp((x - s.p).dot(d) / d.length2(), 0.0, 1.0) : 0;
    return (x - (s.p + t * d)).length();
}

// min over t in [0, 1] of a convex f: sampled, then golden-section refined.
double minimise(const std::function<double(double)>& f) {
    constexpr int kSamples = 4000;
    int best = 0;
    for (int k = 1; k <= kSamples; ++k)
        if (f(double(k) / kSamples) < f(double(best) / kSamples)) best = k;
    double lo = std::max(0.0, double(best - 1) / kSamples);
    double hi = std::min(1.0, double(best + 1) / kSamples);
    const double g = 0.5 * (std::sqrt(5.0) - 1.0);
    for (int i = 0; i < 120; ++i) {
        const double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
        if (f(x1) < f(x2))
            hi = x2;
        else
            lo = x1;
    }
    return std::min({f(0.5 * (lo + hi)), f(0.0), f(1.0)});
}

// The surfaces' distance of a round solid R and another solid S, by brute force.
double bruteDistance(const Solid& R, const Solid& S) {
    const double core = minimise([&](double t) { return coreDistance(S, R.p + t * (R.q - R.p)); });
    return core - R.radius - S.radius;
}

struct Rig {
    std::mt19937 rng{1234};
    double uniform(double lo, double hi) { return std::uniform_real_distribution<>(lo, hi)(rng); }
    btTransform pose(const btVector3& at) {
        btVector3 axis(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
        if (axis.length2() < 1e-6) axis = btVector3(0, 0, 1);
        return btTransform(btQuaternion(axis.normalized(), uniform(0, 6.3)), at);
    }
    btVector3 direction() {
        btVector3 d(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
        return d.length2() < 1e-6 ? btVector3(1, 0, 0) : d.normalized();
    }
    Solid make(int kind, const btTransform& X) {
        switch (kind) {
        case 0:
            return sphere(uniform(0.02, 0.1), X);
        case 1:
            return capsule(uniform(0.02, 0.06), uniform(0.02, 0.3), X);
        default:
            return box(btVector3(uniform(0.02, 0.2), uniform(0.02, 0.2), uniform(0.02, 0.2)), X);
        }
    }
};

// Every point is a pair of spheres' (or a sphere's and a box face's) nearest points: each
// sphere of its shape's radius about a point of its core, the normal along the line of their
// centres, its distance their gap, its local points the world ones in each frame. (A capsule's
// line of contact is given by spheres about its core's points: a point's sphere lies inside the
// capsule, its gap no less than the shapes'.)
void expectConsistent(const Solid& A, const Solid& B, const PairPoints& points) {
    for (int i = 0; i < points.count; ++i) {
        const PairPoint& p = points.points[i];
        EXPECT_NEAR(p.normalOnB.length(), 1.0, 1e-12);
        EXPECT_NEAR(coreDistance(A, p.worldA + A.radius * p.normalOnB), 0.0, 1e-12) << i;
        EXPECT_NEAR(coreDistance(B, p.worldB - B.radius * p.normalOnB), 0.0, 1e-12) << i;
        EXPECT_LE(coreDistance(A, p.worldA), A.radius + 1e-12) << i;
        EXPECT_LE(coreDistance(B, p.worldB), B.radius + 1e-12) << i;
        EXPECT_NEAR((p.worldA - p.worldB).dot(p.normalOnB), p.distance, 1e-12) << i;
        EXPECT_NEAR((p.worldA - p.worldB).cross(p.normalOnB).length(), 0.0, 1e-12) << i;
        EXPECT_NEAR((A.X(p.localA) - p.worldA).length(), 0.0, 1e-12) << i;
        EXPECT_NEAR((B.X(p.localB) - p.worldB).length(), 0.0, 1e-12) << i;
    }
}

TEST(RoundPairs, NearestPointsAreTheShapesNearestByBruteForce) {
    Rig rig;
    int found = 0, left = 0;
    for (int n = 0; n < 3000; ++n) {
        // A round shape (sphere or capsule) and a sphere, capsule or box, in either order, set
        // near each other (touching, apart, overlapping by up to a radius).
        const int kindR = n % 2, kindS = (n / 2) % 3;
        Solid R = rig.make(kindR, rig.pose(btVector3(0, 0, 0)));
        Solid S = rig.make(kindS, rig.pose(0.15 * rig.direction()));
        const bool roundFirst = (n / 6) % 2 == 0;
        const Solid& A = roundFirst ? R : S;
        const Solid& B = roundFirst ? S : R;
        ASSERT_TRUE(roundPair(*A.shape, *B.shape));
        PairPoints points;
        const bool taken = roundPoints(*A.shape, A.X, *B.shape, B.X, kBig, points);
        const double brute = bruteDistance(R, S);
        const double sum = R.radius + S.radius;
        if (!taken) {
            // Left to Bullet only where the cores meet (within a millionth of the radii).
            EXPECT_LE(brute + sum, 1e-6 * sum + 1e-9) << n;
            EXPECT_EQ(points.count, 0);
            ++left;
            continue;
        }
        ++found;
        ASSERT_GE(points.count, 1) << n;
        double nearest = kBig;
        for (int i = 0; i < points.count; ++i)
            nearest = std::min(nearest, double(points.points[i].distance));
        // (exact, or a line's end standing for its nearest point within 1e-5 of the radii)
        EXPECT_GE(nearest, brute - 1e-9) << n << " kinds " << kindR << ' ' << kindS;
        EXPECT_LE(nearest, brute + 1e-5 * sum + 1e-12) << n << " kinds " << kindR << ' ' << kindS;
        expectConsistent(A, B, points);
    }
    EXPECT_GT(found, 2000);  // (most pairs: the cores apart)
    EXPECT_GT(left, 10);     // (some overlap deeply enough to be Bullet's)
}

TEST(RoundPairs, RoundShapesAgreeWithBulletsGjk) {
    Rig rig;
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher(&configuration);
    int compared = 0;
    for (int n = 0; n < 500; ++n) {
        Solid A = rig.make(n % 2, rig.pose(btVector3(0, 0, 0)));
        Solid B = rig.make((n / 2) % 2, rig.pose(0.12 * rig.direction()));
        PairPoints ours;
        if (!roundPoints(*A.shape, A.X, *B.shape, B.X, kBig, ours)) continue;
        btCollisionObject a, b;
        a.setCollisionShape(A.shape.get());
        b.setCollisionShape(B.shape.get());
        a.setWorldTransform(A.X);
        b.setWorldTransform(B.X);
        const btCollisionObjectWrapper wa(nullptr, A.shape.get(), &a, A.X, -1, -1);
        const btCollisionObjectWrapper wb(nullptr, B.shape.get(), &b, B.X, -1, -1);
        btCollisionAlgorithm* algorithm =
            dispatcher.findAlgorithm(&wa, &wb, nullptr, BT_CONTACT_POINT_ALGORITHMS);
        btManifoldResult result(&wa, &wb);
        btDispatcherInfo info;
        algorithm->processCollision(&wa, &wb, info, &result);
        btManifoldArray manifolds;
        algorithm->getAllContactManifolds(manifolds);
        // Bullet's deepest point against ours (its manifold may hold one point only: the
        // nearest); where it has one, the same distance and normal.
        if (manifolds.size() == 1 && manifolds[0]->getNumContacts() > 0) {
            const btPersistentManifold& m = *manifolds[0];
            int deepest = 0;
            for (int i = 1; i < m.getNumContacts(); ++i)
                if (m.getContactPoint(i).m_distance1 < m.getContactPoint(deepest).m_distance1)
                    deepest = i;
            const btManifoldPoint& theirs = m.getContactPoint(deepest);
            int ourDeepest = 0;
            for (int i = 1; i < ours.count; ++i)
                if (ours.points[i].distance < ours.points[ourDeepest].distance) ourDeepest = i;
            const PairPoint& p = ours.points[ourDeepest];
            EXPECT_NEAR(p.distance, theirs.m_distance1, 1e-6) << n;
            if (ours.count == 1) {
                EXPECT_NEAR((p.normalOnB - theirs.m_normalWorldOnB).length(), 0.0, 1e-4) << n;
            }
            ++compared;
        }
        algorithm->~btCollisionAlgorithm();
        dispatcher.freeCollisionAlgorithm(algorithm);
    }
    EXPECT_GT(compared, 200);
}

TEST(RoundPairs, CoresThatMeetAreLeftToBullet) {
    const btTransform I = btTransform::getIdentity();
    PairPoints points;
    // A sphere whose centre is inside a box.
    Solid s = sphere(0.05, btTransform(btQuaternion::getIdentity(), btVector3(0.01, 0, 0.02)));
    Solid b = box(btVector3(0.1, 0.1, 0.1), I);
    EXPECT_FALSE(roundPoints(*s.shape, s.X, *b.shape, b.X, kBig, points));
    EXPECT_FALSE(roundPoints(*b.shape, b.X, *s.shape, s.X, kBig, points));
    // Two capsules crossing.
    Solid c1 = capsule(0.03, 0.2, I);
    Solid c2 = capsule(0.03, 0.2, btTransform(btQuaternion(btVector3(1, 0, 0), 1.2)));
    EXPECT_FALSE(roundPoints(*c1.shape, c1.X, *c2.shape, c2.X, kBig, points));
    EXPECT_EQ(points.count, 0);
    // A capsule through a box.
    EXPECT_FALSE(roundPoints(*c1.shape, c1.X, *b.shape, b.X, kBig, points));
}

TEST(RoundPairs, ACapsuleLyingOnAFaceTouchesAtTheEndsOfItsLine) {
    // A capsule (radius 2 cm, core 0.3 m) lying along x on a 0.2 m box's top face, 1 mm above
    // it, tilted by 1 mrad: two points where its core leaves the face (x = ±0.1), their gaps
    // 1 mm ∓ 0.1 mrad·m.
    const double r = 0.02, gap = 1e-3, tilt = 1e-3;
    const btTransform X_WC(btQuaternion(btVector3(0, 1, 0), 0.5 * SIMD_PI + tilt),
                           btVector3(0, 0, 0.1 + r + gap));
    Solid c = capsule(r, 0.3, X_WC);
    Solid b = box(btVector3(0.1, 0.1, 0.1), btTransform::getIdentity());
    PairPoints points;
    ASSERT_TRUE(roundPoints(*c.shape, c.X, *b.shape, b.X, 0.01, points));
    ASSERT_EQ(points.count, 2);
    expectConsistent(c, b, points);
    for (int i = 0; i < 2; ++i) {
        const PairPoint& p = points.points[i];
        EXPECT_NEAR(std::abs(p.worldB.x()), 0.1, 1e-12);  // at the face's edges
        EXPECT_NEAR(p.worldB.z(), 0.1, 1e-15);
        EXPECT_NEAR(p.normalOnB.z(), 1.0, 1e-15);  // the face's normal, towards the capsule
        // (the core's height above the face at x, less the radius)
        const double x = p.worldB.x();
        EXPECT_NEAR(p.distance, gap - std::tan(tilt) * x, 1e-12);
    }
    // Shorter than the face: its core's two ends; the box first, the normal reversed.
    Solid shortOne = capsule(r, 0.1, X_WC);
    ASSERT_TRUE(roundPoints(*b.shape, b.X, *shortOne.shape, shortOne.X, 0.01, points));
    ASSERT_EQ(points.count, 2);
    expectConsistent(b, shortOne, points);
    for (int i = 0; i < 2; ++i) {
        EXPECT_NEAR(std::abs(points.points[i].worldA.x()), 0.05 * std::cos(tilt), 1e-12);
        EXPECT_NEAR(points.points[i].normalOnB.z(), -1.0, 1e-15);
    }
    // Lying along the face's edge beside it (exactly along x, its core 3 cm out in y and 1 mm
    // above): one point, at the edge, the gap from the edge.
    Solid beside = capsule(r, 0.3,
                           btTransform(X_WC.getRotation() * btQuaternion(btVector3(0, 1, 0), -tilt),
                                       btVector3(0, 0.13, 0.1 + 1e-3)));
    ASSERT_TRUE(roundPoints(*beside.shape, beside.X, *b.shape, b.X, 0.05, points));
    ASSERT_EQ(points.count, 1);
    EXPECT_NEAR(points.points[0].distance, std::hypot(0.03, 1e-3) - r, 1e-15);
    EXPECT_NEAR(points.points[0].worldB.y(), 0.1, 1e-15);
    EXPECT_NEAR(points.points[0].worldB.z(), 0.1, 1e-15);
    // Standing on its end: one point, under it.
    Solid upright = capsule(
        r, 0.1, btTransform(btQuaternion::getIdentity(), btVector3(0.03, 0, 0.1 + 0.05 + r + gap)));
    ASSERT_TRUE(roundPoints(*upright.shape, upright.X, *b.shape, b.X, 0.01, points));
    ASSERT_EQ(points.count, 1);
    EXPECT_NEAR(points.points[0].distance, gap, 1e-15);
}

TEST(RoundPairs, ParallelCapsulesTouchAtTheEndsOfTheirOverlap) {
    // Two capsules along x, side by side 1 mm apart in y, overlapping over x in [0, 0.1].
    const double r = 0.02;
    const btQuaternion alongX(btVector3(0, 1, 0), 0.5 * SIMD_PI);
    Solid a = capsule(r, 0.2, btTransform(alongX, btVector3(0, 0, 0)));
    Solid b = capsule(r, 0.2, btTransform(alongX, btVector3(0.1, 2 * r + 1e-3, 0)));
    PairPoints points;
    ASSERT_TRUE(roundPoints(*a.shape, a.X, *b.shape, b.X, 0.01, points));
    ASSERT_EQ(points.count, 2);
    expectConsistent(a, b, points);
    for (int i = 0; i < 2; ++i) {
        EXPECT_NEAR(points.points[i].distance, 1e-3, 1e-15);
        EXPECT_NEAR(points.points[i].normalOnB.y(), -1.0, 1e-15);
    }
    EXPECT_NEAR(std::min(points.points[0].worldA.x(), points.points[1].worldA.x()), 0.0, 1e-15);
    EXPECT_NEAR(std::max(points.points[0].worldA.x(), points.points[1].worldA.x()), 0.1, 1e-15);
    // Crossing at 2° above one another: the overlap's ends and the nearest points between.
    Solid c = capsule(r, 0.2,
                      btTransform(btQuaternion(btVector3(0, 0, 1), 0.035) * alongX,
                                  btVector3(0, 0, 2 * r + 1e-4)));
    ASSERT_TRUE(roundPoints(*a.shape, a.X, *c.shape, c.X, 0.01, points));
    ASSERT_EQ(points.count, 3);
    expectConsistent(a, c, points);
    EXPECT_NEAR(points.points[2].distance, 1e-4, 1e-12);  // the nearest, where they cross
}

}  // namespace
}  // namespace engine::contact
