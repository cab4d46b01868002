// Two boxes' points found without a persistent manifold (box_box.h) are Bullet's box–box
// algorithm's, bit for bit: random pairs (stacked faces, edges across edges, corners into faces,
// deep and grazing, small and large breaking distances) run through both.

#include <gtest/gtest.h>

#include "engine/contact/box_box.h"

#include <btBulletCollisionCommon.h>

#include <array>
#include <cstring>
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

        BoxBoxPoints ours;
        boxBoxPoints(boxA, X_WA, boxB, X_WB, manifold.getContactBreakingThreshold(), ours);
        EXPECT_EQ(ours.count, manifold.getNumContacts());
        for (int i = 0; i < std::min(ours.count, manifold.getNumContacts()); ++i) {
            const btManifoldPoint& theirs = manifold.getContactPoint(i);
            const BoxBoxPoint& p = ours.points[i];
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
