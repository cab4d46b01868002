#include "engine/contact/box_box.h"

#include <BulletCollision/CollisionDispatch/btBoxBoxDetector.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>

namespace engine::contact {
namespace {

// The detector's points as btManifoldResult::addContactPoint and btPersistentManifold's point
// cache (four slots) keep them.
class Slots final : public btDiscreteCollisionDetectorInterface::Result {
public:
    Slots(const btTransform& X_WA, const btTransform& X_WB, btScalar breaking, BoxBoxPoints& out)
        : X_WA_(X_WA), X_WB_(X_WB), breaking_(breaking), out_(out) {
        out_.count = 0;
    }

    void setShapeIdentifiersA(int, int) override {}
    void setShapeIdentifiersB(int, int) override {}

    void addContactPoint(const btVector3& normalOnB, const btVector3& pointOnB,
                         btScalar depth) override {
        if (depth > breaking_) return;
        BoxBoxPoint point;
        point.worldA = pointOnB + normalOnB * depth;
        point.worldB = pointOnB;
        point.localA = X_WA_.invXform(point.worldA);
        point.localB = X_WB_.invXform(pointOnB);
        point.normalOnB = normalOnB;
        point.distance = depth;
        // The nearest point already kept within the breaking distance (in A's frame) is
        // replaced; otherwise the point is added, a fifth in the place sortCachedPoints picks.
        btScalar nearestDistance = breaking_ * breaking_;
        int slot = -1;
        for (int i = 0; i < out_.count; ++i) {
            const btVector3 d = out_.points[i].localA - point.localA;
            const btScalar distance = d.dot(d);
            if (distance < nearestDistance) {
                nearestDistance = distance;
                slot = i;
            }
        }
        if (slot < 0) slot = out_.count < 4 ? out_.count++ : replaced(point);
        out_.points[slot] = point;
    }

    // btPersistentManifold::refreshContactPoints: the points moved to the poses (world points
    // and distance from the local ones), then those apart by more than the breaking distance
    // along the normal or across it dropped, the last slot moved into the place of each.
    void refresh() {
        BoxBoxPoint* p = out_.points;
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
    // sortCachedPoints with the deepest point kept and the three-point areas (Bullet's
    // defaults): the slot whose replacement leaves the largest area.
    int replaced(const BoxBoxPoint& point) const {
        const BoxBoxPoint* c = out_.points;
        int deepest = -1;
        btScalar deepestDistance = point.distance;
        for (int i = 0; i < 4; ++i)
            if (c[i].distance < deepestDistance) {
                deepest = i;
                deepestDistance = c[i].distance;
            }
        btScalar area[4] = {0, 0, 0, 0};
        auto cross2 = [](const btVector3& a, const btVector3& b) { return a.cross(b).length2(); };
        if (deepest != 0) area[0] = cross2(point.localA - c[1].localA, c[3].localA - c[2].localA);
        if (deepest != 1) area[1] = cross2(point.localA - c[0].localA, c[3].localA - c[2].localA);
        if (deepest != 2) area[2] = cross2(point.localA - c[0].localA, c[3].localA - c[1].localA);
        if (deepest != 3) area[3] = cross2(point.localA - c[0].localA, c[2].localA - c[1].localA);
        // (btVector4::closestAxis4: the first of the largest magnitudes)
        int largest = -1;
        btScalar largestArea = -BT_LARGE_FLOAT;
        for (int i = 0; i < 4; ++i)
            if (btFabs(area[i]) > largestArea) {
                largest = i;
                largestArea = btFabs(area[i]);
            }
        return largest < 0 ? 0 : largest;
    }

    const btTransform& X_WA_;
    const btTransform& X_WB_;
    btScalar breaking_;
    BoxBoxPoints& out_;
};

}  // namespace

void boxBoxPoints(const btBoxShape& a, const btTransform& X_WA, const btBoxShape& b,
                  const btTransform& X_WB, btScalar breaking, BoxBoxPoints& out) {
    Slots slots(X_WA, X_WB, breaking, out);
    btDiscreteCollisionDetectorInterface::ClosestPointInput input;
    input.m_maximumDistanceSquared = BT_LARGE_FLOAT;
    input.m_transformA = X_WA;
    input.m_transformB = X_WB;
    btBoxBoxDetector detector(&a, &b);
    detector.getClosestPoints(input, slots, nullptr);
    slots.refresh();
}

}  // namespace engine::contact
