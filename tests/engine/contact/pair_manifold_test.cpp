// The merge of one pair's points on compact points keeps exactly the points Bullet's
// btPersistentManifold keeps, with the same ages and impulses, bit for bit: random sequences of
// queries (kept points put back, new points merged, a refresh at new poses) run through both.

#include <gtest/gtest.h>

#include "engine/contact/pair_manifold.h"

#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>

#include <random>

namespace engine::contact {
namespace {

struct Rig {
    std::mt19937 rng{12345};

    double uniform(double lo, double hi) { return std::uniform_real_distribution<>(lo, hi)(rng); }
    btVector3 vector(double scale) {
        return {uniform(-scale, scale), uniform(-scale, scale), uniform(-scale, scale)};
    }
    btTransform pose(double spread) {
        btQuaternion q(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
        q.normalize();
        return btTransform(q, vector(spread));
    }

    // A new point found at the poses: near the face z = 0 of A, B's point a little below or above.
    MergePoint found(const btTransform& X_WA, const btTransform& X_WB, double patch) {
        MergePoint p;
        p.local_A = btVector3(uniform(-patch, patch), uniform(-patch, patch), 0.0);
        p.p_WA = X_WA(p.local_A);
        p.n_BA = X_WA.getBasis() * btVector3(0, 0, -1);
        p.distance = uniform(-2e-3, 2e-3);
        p.p_WB = p.p_WA - p.n_BA * p.distance;
        p.local_B = X_WB.inverse()(p.p_WB);
        p.age = 0;
        p.normalImpulse = 0.0;
        p.friction_W.setZero();
        return p;
    }
};

btManifoldPoint asBullet(const MergePoint& p) {
    btManifoldPoint b;
    b.m_localPointA = p.local_A;
    b.m_localPointB = p.local_B;
    b.m_positionWorldOnA = p.p_WA;
    b.m_positionWorldOnB = p.p_WB;
    b.m_normalWorldOnB = p.n_BA;
    b.m_distance1 = p.distance;
    b.m_lifeTime = p.age;
    b.m_appliedImpulse = p.normalImpulse;
    b.m_appliedImpulseLateral1 = p.friction_W.x();
    b.m_appliedImpulseLateral2 = p.friction_W.y();
    b.m_prevRHS = p.friction_W.z();
    return b;
}

bool same(const btVector3& a, const btVector3& b) {
    return a.x() == b.x() && a.y() == b.y() && a.z() == b.z();
}

TEST(PairManifold, KeepsThePointsBulletsManifoldKeepsBitForBit) {
    Rig rig;
    long compared = 0, full = 0, replaced = 0, dropped = 0;
    for (int run = 0; run < 200; ++run) {
        // Patches from well inside the breaking distance to well beyond it, so every rule acts:
        // replacement of a near point, the four-point cap, drops by separation and by sliding.
        const double patch = rig.uniform(0.002, 0.1);
        const double breaking = rig.uniform(0.005, 0.03);
        std::vector<MergePoint> kept;  // the points carried from query to query
        btTransform X_WA = rig.pose(0.5), X_WB = rig.pose(0.5);
        for (int query = 0; query < 40; ++query) {
            // The poses move a little (sometimes a lot), the solver writes impulses.
            X_WA.setOrigin(X_WA.getOrigin() + rig.vector(query % 7 == 0 ? 0.02 : 0.002));
            X_WB.setOrigin(X_WB.getOrigin() + rig.vector(0.002));
            for (MergePoint& p : kept) {
                p.normalImpulse = rig.uniform(0.0, 2.0);
                p.friction_W = rig.vector(0.5);
            }
            btPersistentManifold bullet(nullptr, nullptr, 0, breaking, 0.0);
            PairManifold ours;
            ours.reset(breaking);
            for (const MergePoint& p : kept) {
                bullet.addManifoldPoint(asBullet(p), true);
                ours.add(p);
            }
            const int fresh = std::uniform_int_distribution<>(0, 8)(rig.rng);
            for (int k = 0; k < fresh; ++k) {
                const MergePoint p = rig.found(X_WA, X_WB, patch);
                const btManifoldPoint b = asBullet(p);
                const int nearest = bullet.getCacheEntry(b);
                ASSERT_EQ(ours.nearest(p), nearest);
                if (nearest >= 0) {
                    bullet.replaceContactPoint(b, nearest);
                    ours.replace(p, nearest);
                    ++replaced;
                } else {
                    full += bullet.getNumContacts() == 4;
                    bullet.addManifoldPoint(b, true);
                    ours.add(p);
                }
            }
            const int before = bullet.getNumContacts();
            bullet.refreshContactPoints(X_WA, X_WB);
            ours.refresh(X_WA, X_WB);
            dropped += before - bullet.getNumContacts();
            ASSERT_EQ(ours.size(), bullet.getNumContacts());
            kept.clear();
            for (int k = 0; k < ours.size(); ++k) {
                const MergePoint& p = ours[k];
                const btManifoldPoint& b = bullet.getContactPoint(k);
                EXPECT_TRUE(same(p.local_A, b.m_localPointA));
                EXPECT_TRUE(same(p.local_B, b.m_localPointB));
                EXPECT_TRUE(same(p.p_WA, b.m_positionWorldOnA));
                EXPECT_TRUE(same(p.p_WB, b.m_positionWorldOnB));
                EXPECT_TRUE(same(p.n_BA, b.m_normalWorldOnB));
                EXPECT_EQ(p.distance, b.m_distance1);
                EXPECT_EQ(p.age, b.m_lifeTime);
                EXPECT_EQ(p.normalImpulse, b.m_appliedImpulse);
                EXPECT_EQ(p.friction_W.x(), b.m_appliedImpulseLateral1);
                EXPECT_EQ(p.friction_W.y(), b.m_appliedImpulseLateral2);
                EXPECT_EQ(p.friction_W.z(), b.m_prevRHS);
                kept.push_back(p);
                ++compared;
            }
        }
    }
    // Every rule was exercised, many times.
    EXPECT_GT(compared, 5000);
    EXPECT_GT(full, 500);
    EXPECT_GT(replaced, 500);
    EXPECT_GT(dropped, 500);
}

}  // namespace
}  // namespace engine::contact
