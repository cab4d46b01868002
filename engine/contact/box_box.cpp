#include "engine/contact/box_box.h"

#include "engine/contact/manifold_slots.h"

#include <BulletCollision/CollisionDispatch/btBoxBoxDetector.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>

namespace engine::contact {

void boxBoxPoints(const btBoxShape& a, const btTransform& X_WA, const btBoxShape& b,
                  const btTransform& X_WB, btScalar breaking, PairPoints& out) {
    ManifoldSlots slots(X_WA, X_WB, breaking, out);
    btDiscreteCollisionDetectorInterface::ClosestPointInput input;
    input.m_maximumDistanceSquared = BT_LARGE_FLOAT;
    input.m_transformA = X_WA;
    input.m_transformB = X_WB;
    btBoxBoxDetector detector(&a, &b);
    detector.getClosestPoints(input, slots, nullptr);
    slots.refresh();
}

}  // namespace engine::contact
