// Two boxes' points found without a persistent manifold (box_box.h) are Bullet's box–box
// algorithm's, bit for bit: random pairs (stacked faces, edges across edges, corners into faces,
// deep and grazing, small and large breaking distances) run through both.

#include <gtest/gtest.h>

#include "engine/contact/box_box.h"
#include "engine/contact/polyhedron_plane.h"

#include <btBulletCollisionCommon.h>

#include <array>
#include <cstring>
#include <memory>
#include <random>

namespace engine::contact {
namespace {

bool sameBits(const btVector3& x, const btVector3& y) {
    return std::memcmp(x.m_floats, y.m_floats, 3 * sizeof(btScalar)) == 0;
}
bool sameBits(btScalar x, btScalar y) {
    return std::memcmp(&x, &y, sizeof x) == 0;
}

struct Rig {
    std::mt19937 rng{2026};
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher{&configuration};

    double uniform(double lo, double hi) { return std::uniform_real_distribution<>(lo, hi)(rng); }
    btQuaternion turn(double angle) {
        btVector3 axis(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
        if (axis.length2() < 1e-6) axis = btVector3(0, 0, 1);
        return btQuaternion(axis.normalized(), angle);
    }

    // Bullet's points for the pair (its algorithm, a btManifoldResult, the manifold refreshed)
    // and ours, compared; the number of points Bullet kept.
    int compare(const btVector3& halfA, const btTransform& X_WA, const btVector3& halfB,
                const btTransform& X_WB, double breaking) {
        btBoxShape boxA(halfA), boxB(halfB);
        btCollisionObject A, B;
        A.setCollisionShape(&boxA);
        B.setCollisionShape(&boxB);
        A.setWorldTransform(X_WA);
        B.setWorldTransform(X_WB);
        const btCollisionObjectWrapper wa(nullptr, &boxA, &A, X_WA, -1, -1);
        const btCollisionObjectWrapper wb(nullptr, &boxB, &B, X_WB, -1, -1);
        btCollisionAlgorithm* algorithm =
            dispatcher.findAlgorithm(&wa, &wb, nullptr, BT_CONTACT_POINT_ALGORITHMS);
        btManifoldArray manifolds;
        algorithm->getAllContactManifolds(manifolds);
        EXPECT_EQ(manifolds.size(), 1);
        btPersistentManifold& manifold = *manifolds[0];
        manifold.setContactBreakingThreshold(breaking);
        btManifoldResult result(&wa, &wb);
        algorithm->processCollision(&wa, &wb, btDispatcherInfo(), &result);

        PairPoints ours;
        boxBoxPoints(boxA, X_WA, boxB, X_WB, manifold.getContactBreakingThreshold(), ours);
        EXPECT_EQ(ours.count, manifold.getNumContacts());
        for (int i = 0; i < std::min(ours.count, manifold.getNumContacts()); ++i) {
            const btManifoldPoint& theirs = manifold.getContactPoint(i);
            const PairPoint& p = ours.points[i];
            EXPECT_TRUE(sameBits(p.localA, theirs.m_localPointA)) << i;
            EXPECT_TRUE(sameBits(p.localB, theirs.m_localPointB)) << i;
            EXPECT_TRUE(sameBits(p.worldA, theirs.m_positionWorldOnA)) << i;
            EXPECT_TRUE(sameBits(p.worldB, theirs.m_positionWorldOnB)) << i;
            EXPECT_TRUE(sameBits(p.normalOnB, theirs.m_normalWorldOnB)) << i;
            EXPECT_TRUE(sameBits(p.distance, theirs.m_distance1)) << i;
        }
        const int kept = manifold.getNumContacts();
        algorithm->~btCollisionAlgorithm();
        dispatcher.freeCollisionAlgorithm(algorithm);
        return kept;
    }
};

TEST(BoxBox, ThePointsAreBulletsBitForBit) {
    Rig rig;
    int pairs = 0, touching = 0, four = 0, replacedOrMerged = 0;
    for (int k = 0; k < 6000; ++k) {
        const btVector3 halfA(rig.uniform(0.01, 0.3), rig.uniform(0.01, 0.3),
                              rig.uniform(0.01, 0.3));
        const btVector3 halfB(rig.uniform(0.01, 0.3), rig.uniform(0.01, 0.3),
                              rig.uniform(0.01, 0.3));
        const btTransform X_WA(
            rig.turn(rig.uniform(0, 3.2)),
            btVector3(rig.uniform(-1, 1), rig.uniform(-1, 1), rig.uniform(-1, 1)));
        btTransform X_AB;
        switch (k % 3) {
        case 0: {  // B on A's top face, nearly aligned, a little apart or into it
            X_AB.setRotation(rig.turn(rig.uniform(0.0, 0.05)));
            X_AB.setOrigin(btVector3(rig.uniform(-halfA.x(), halfA.x()),
                                     rig.uniform(-halfA.y(), halfA.y()),
                                     halfA.z() + halfB.z() + rig.uniform(-5e-3, 5e-3)));
            break;
        }
        case 1: {  // exactly stacked, as a pile's columns start
            X_AB.setIdentity();
            X_AB.setOrigin(btVector3(0, 0, halfA.z() + halfB.z() + rig.uniform(-1e-3, 1e-3)));
            break;
        }
        default: {  // anywhere near, any turn: edges, corners
            X_AB.setRotation(rig.turn(rig.uniform(0, 3.2)));
            const btVector3 d(rig.uniform(-1, 1), rig.uniform(-1, 1), rig.uniform(-1, 1));
            X_AB.setOrigin(d.normalized() * (halfA.length() + halfB.length()) *
                           rig.uniform(0.3, 1.0));
            break;
        }
        }
        const double breaking = std::array<double, 4>{1e-3, 0.01, 0.05, 0.2}[k % 4];
        const int kept = rig.compare(halfA, X_WA, halfB, X_WA * X_AB, breaking);
        ++pairs;
        touching += kept > 0;
        four += kept == 4;
        replacedOrMerged += kept > 0 && kept < 4 && breaking >= 0.05 && k % 3 != 2;
        if (::testing::Test::HasFailure()) break;
    }
    // Every kind of outcome was met: no points, four, fewer merged by a large breaking distance.
    EXPECT_EQ(pairs, 6000);
    EXPECT_GT(touching, 2000);
    EXPECT_GT(pairs - touching, 500);
    EXPECT_GT(four, 1000);
    EXPECT_GT(replacedOrMerged, 100);
}

}  // namespace
}  // namespace engine::contact

namespace engine::contact {
namespace {

// The polyhedron–plane algorithm's points handed over without its manifold
// (polyhedronPlanePoints) are those processCollision leaves in the manifold, bit for bit: boxes,
// hulls, balls, capsules and cylinders of every axis turned at random near planes turned at
// random, breaking distances from 1 mm to 0.2 m, both orders of the pair.
TEST(PolyhedronPlane, ThePointsAreTheManifoldsBitForBit) {
    std::mt19937 rng(77);
    auto uniform = [&](double lo, double hi) {
        return std::uniform_real_distribution<>(lo, hi)(rng);
    };
    auto turn = [&] {
        btVector3 axis(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
        if (axis.length2() < 1e-6) axis = btVector3(0, 0, 1);
        return btQuaternion(axis.normalized(), uniform(0, 3.2));
    };
    btDefaultCollisionConstructionInfo info;
    info.m_customCollisionAlgorithmMaxElementSize =
        static_cast<int>(polyhedronPlaneAlgorithmSize());
    btDefaultCollisionConfiguration configuration(info);
    btCollisionDispatcher dispatcher(&configuration);
    registerPolyhedronPlane(dispatcher);

    int pairs = 0, touching = 0, reduced = 0;
    for (int k = 0; k < 3000; ++k) {
        std::unique_ptr<btCollisionShape> shape;
        const double s = uniform(0.02, 0.3);
        switch (k % 7) {
        case 0:
            shape =
                std::make_unique<btBoxShape>(btVector3(s, uniform(0.02, 0.3), uniform(0.02, 0.3)));
            break;
        case 1:
            shape = std::make_unique<btSphereShape>(s);
            break;
        case 2:
            shape = std::make_unique<btCapsuleShapeZ>(s, uniform(0.0, 0.5));
            break;
        case 3:
            shape = std::make_unique<btCylinderShape>(btVector3(s, uniform(0.02, 0.3), s));
            break;
        case 4:
            shape = std::make_unique<btCylinderShapeZ>(btVector3(s, s, uniform(0.02, 0.3)));
            break;
        case 5:
            shape = std::make_unique<btCylinderShapeX>(btVector3(uniform(0.02, 0.3), s, s));
            break;
        default: {
            auto hull = std::make_unique<btConvexHullShape>();
            for (int v = 0; v < 12; ++v)
                hull->addPoint(btVector3(uniform(-s, s), uniform(-s, s), uniform(-s, s)), false);
            hull->recalcLocalAabb();
            shape = std::move(hull);
        }
        }
        shape->setMargin(0.0);
        btStaticPlaneShape planeShape(
            btVector3(uniform(-0.3, 0.3), uniform(-0.3, 0.3), 1).normalized(), uniform(-0.1, 0.1));
        const btTransform X_WL(turn(), btVector3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)));
        // The shape's centre about its size from the plane, either side of touching.
        const btVector3 n = X_WL.getBasis() * planeShape.getPlaneNormal();
        const btVector3 onPlane = X_WL(planeShape.getPlaneNormal() * planeShape.getPlaneConstant());
        const btTransform X_WP(turn(), onPlane + n * (uniform(-0.5, 3.0) * s));
        btCollisionObject polyhedron, plane;
        polyhedron.setCollisionShape(shape.get());
        polyhedron.setWorldTransform(X_WP);
        plane.setCollisionShape(&planeShape);
        plane.setWorldTransform(X_WL);
        const bool planeFirst = k % 2 == 1;
        const btCollisionObjectWrapper wp(nullptr, shape.get(), &polyhedron, X_WP, -1, -1);
        const btCollisionObjectWrapper wl(nullptr, &planeShape, &plane, X_WL, -1, -1);
        const btCollisionObjectWrapper* w0 = planeFirst ? &wl : &wp;
        const btCollisionObjectWrapper* w1 = planeFirst ? &wp : &wl;
        btCollisionAlgorithm* algorithm =
            dispatcher.findAlgorithm(w0, w1, nullptr, BT_CONTACT_POINT_ALGORITHMS);
        btManifoldArray manifolds;
        algorithm->getAllContactManifolds(manifolds);
        ASSERT_EQ(manifolds.size(), 1);
        btPersistentManifold& manifold = *manifolds[0];
        manifold.setContactBreakingThreshold(std::array<double, 4>{1e-3, 0.01, 0.05, 0.2}[k % 4]);
        ASSERT_EQ(manifold.getBody0(), &polyhedron);

        PairPoints ours;
        polyhedronPlanePoints(*polyhedron.getCollisionShape(), polyhedron.getWorldTransform(),
                              *plane.getCollisionShape(), plane.getWorldTransform(),
                              manifold.getContactBreakingThreshold(), ours);
        btManifoldResult result(w0, w1);
        algorithm->processCollision(w0, w1, btDispatcherInfo(), &result);
        ASSERT_EQ(ours.count, manifold.getNumContacts()) << k;
        for (int i = 0; i < ours.count; ++i) {
            const btManifoldPoint& theirs = manifold.getContactPoint(i);
            const PairPoint& p = ours.points[i];
            EXPECT_TRUE(sameBits(p.localA, theirs.m_localPointA)) << k << " " << i;
            EXPECT_TRUE(sameBits(p.localB, theirs.m_localPointB)) << k << " " << i;
            EXPECT_TRUE(sameBits(p.worldA, theirs.m_positionWorldOnA)) << k << " " << i;
            EXPECT_TRUE(sameBits(p.worldB, theirs.m_positionWorldOnB)) << k << " " << i;
            EXPECT_TRUE(sameBits(p.normalOnB, theirs.m_normalWorldOnB)) << k << " " << i;
            EXPECT_TRUE(sameBits(p.distance, theirs.m_distance1)) << k << " " << i;
        }
        ++pairs;
        touching += ours.count > 0;
        // (a box or a cylinder with more than four vertices in reach: the manifold's reduction)
        int within = 0;
        if (k % 7 == 0) {
            const btVector3 h = static_cast<btBoxShape*>(shape.get())->getHalfExtentsWithMargin();
            for (int v = 0; v < 8; ++v) {
                const btVector3 corner(v & 1 ? h.x() : -h.x(), v & 2 ? h.y() : -h.y(),
                                       v & 4 ? h.z() : -h.z());
                within += (X_WP(corner) - onPlane).dot(n) < manifold.getContactBreakingThreshold();
            }
        }
        reduced += within > 4;
        algorithm->~btCollisionAlgorithm();
        dispatcher.freeCollisionAlgorithm(algorithm);
        if (::testing::Test::HasFailure()) break;
    }
    EXPECT_EQ(pairs, 3000);
    EXPECT_GT(touching, 1000);
    EXPECT_GT(pairs - touching, 200);
    EXPECT_GT(reduced, 10);
}

}  // namespace
}  // namespace engine::contact
