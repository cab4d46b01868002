#pragma once
// A detector's points (Bullet's Result interface: btBoxBoxDetector, the polyhedra's clipping)
// kept in a pair's four slots as btManifoldResult::addContactPoint and btPersistentManifold's
// point cache keep them, without a manifold (box_box.cpp, polytope_pairs.cpp only).

#include "engine/contact/pair_points.h"

#include <BulletCollision/NarrowPhaseCollision/btDiscreteCollisionDetectorInterface.h>

namespace engine::contact {

class ManifoldSlots final : public btDiscreteCollisionDetectorInterface::Result {
public:
    ManifoldSlots(const btTransform& X_WA, const btTransform& X_WB, btScalar breaking,
                  PairPoints& out)
        : X_WA_(X_WA), X_WB_(X_WB), breaking_(breaking), out_(out) {
        out_.count = 0;
    }

    void setShapeIdentifiersA(int, int) override {}
    void setShapeIdentifiersB(int, int) override {}

    void addContactPoint(const btVector3& normalOnB, const btVector3& pointOnB,
                         btScalar depth) override {
        if (depth > breaking_) return;
        // (Written in its slot at once: a point built aside and copied in cost as much as the
        // rest of this, at four points per pair of a pile.)
        const btVector3 worldA = pointOnB + normalOnB * depth;
        const btVector3 localA = X_WA_.invXform(worldA);
        // The nearest point already kept within the breaking distance (in A's frame) is
        // replaced; otherwise the point is added, a fifth in the place sortCachedPoints picks.
        btScalar nearestDistance = breaking_ * breaking_;
        int slot = -1;
        for (int i = 0; i < out_.count; ++i) {
            const btVector3 d = out_.points[i].localA - localA;
            const btScalar distance = d.dot(d);
            if (distance < nearestDistance) {
                nearestDistance = distance;
                slot = i;
            }
        }
        if (slot < 0) slot = out_.count < 4 ? out_.count++ : out_.replaced(localA, depth);
        PairPoint& point = out_.points[slot];
        point.worldA = worldA;
        point.worldB = pointOnB;
        point.localA = localA;
        point.localB = X_WB_.invXform(pointOnB);
        point.normalOnB = normalOnB;
        point.distance = depth;
    }

    // btPersistentManifold::refreshContactPoints: the points moved to the poses (world points
    // and distance from the local ones), then those apart by more than the breaking distance
    // along the normal or across it dropped, the last slot moved into the place of each.
    void refresh() {
        PairPoint* p = out_.points;
        for (int i = out_.count - 1; i >= 0; --i) {
            p[i].worldA = X_WA_(p[i].localA);
            p[i].worldB = X_WB_(p[i].localB);
            p[i].distance = (p[i].worldA - p[i].worldB).dot(p[i].normalOnB);
        }
        const btScalar breaking2 = breaking_ * breaking_;
        for (int i = out_.count - 1; i >= 0; --i) {
            bool drop = !(p[i].distance <= breaking_);
            if (!drop) {
                const btVector3 projected = p[i].worldA - p[i].normalOnB * p[i].distance;
                const btVector3 across = p[i].worldB - projected;
                drop = across.dot(across) > breaking2;
            }
            if (!drop) continue;
            const int last = out_.count - 1;
            if (i != last) p[i] = p[last];
            --out_.count;
        }
    }

private:
    const btTransform& X_WA_;
    const btTransform& X_WB_;
    btScalar breaking_;
    PairPoints& out_;
};

}  // namespace engine::contact
