#include "engine/contact/cylinder_box.h"

#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>
#include <btBulletCollisionCommon.h>

#include <algorithm>
#include <cmath>

namespace engine::contact {
namespace {

// GJK's (or EPA's) one point: B's normal (towards A), the point on B, the signed distance.
struct Nearest final : btDiscreteCollisionDetectorInterface::Result {
    btVector3 normalOnB{0, 0, 1}, pointOnB{0, 0, 0};
    btScalar distance = 0;
    bool found = false;
    void setShapeIdentifiersA(int, int) override {}
    void setShapeIdentifiersB(int, int) override {}
    void addContactPoint(const btVector3& n, const btVector3& p, btScalar depth) override {
        normalOnB = n;
        pointOnB = p;
        distance = depth;
        found = true;
    }
};

// A line's nearest point is given beside the face's points when nearer than all of them by
// this fraction of the cylinder's radius.
constexpr btScalar kNearer = 1e-5;

}  // namespace

bool cylinderBoxPair(const btCollisionShape& a, const btCollisionShape& b) {
    const int ta = a.getShapeType(), tb = b.getShapeType();
    return (ta == CYLINDER_SHAPE_PROXYTYPE && tb == BOX_SHAPE_PROXYTYPE) ||
           (ta == BOX_SHAPE_PROXYTYPE && tb == CYLINDER_SHAPE_PROXYTYPE);
}

void cylinderBoxPoints(const btCollisionShape& a, const btTransform& X_WA,
                       const btCollisionShape& b, const btTransform& X_WB, btScalar breaking,
                       PairPoints& out) {
    out.count = 0;
    const auto& convexA = static_cast<const btConvexShape&>(a);
    const auto& convexB = static_cast<const btConvexShape&>(b);
    // GJK as Bullet's convex–convex algorithm runs it: the shapes' cores, then their margins,
    // pairs nearer than the margins and the breaking distance.
    btVoronoiSimplexSolver simplex;
    btGjkEpaPenetrationDepthSolver epa;
    btGjkPairDetector gjk(&convexA, &convexB, &simplex, &epa);
    btGjkPairDetector::ClosestPointInput input;
    input.m_transformA = X_WA;
    input.m_transformB = X_WB;
    const btScalar reach = convexA.getMargin() + convexB.getMargin() + breaking;
    input.m_maximumDistanceSquared = reach * reach;
    Nearest nearest;
    gjk.getClosestPoints(input, nearest, nullptr);
    if (!nearest.found) return;

    const bool boxIsA = a.getShapeType() == BOX_SHAPE_PROXYTYPE;
    const auto& box = static_cast<const btBoxShape&>(boxIsA ? a : b);
    const auto& cylinder = static_cast<const btCylinderShape&>(boxIsA ? b : a);
    const btTransform& X_WX = boxIsA ? X_WA : X_WB;  // the box's frame
    const btTransform& X_WC = boxIsA ? X_WB : X_WA;  // the cylinder's
    // (a point of the cylinder, at c, and of the box, at x, the box's normal m towards the
    // cylinder, in the world)
    const auto add = [&](const btVector3& c, const btVector3& x, const btVector3& m,
                         btScalar distance) {
        if (distance > breaking) return;
        PairPoint point;
        point.worldA = boxIsA ? x : c;
        point.worldB = boxIsA ? c : x;
        point.normalOnB = boxIsA ? -m : m;
        point.localA = X_WA.invXform(point.worldA);
        point.localB = X_WB.invXform(point.worldB);
        point.distance = distance;
        out.add(point);
    };

    // The face GJK's normal leaves the box by, in the box's frame: x_i = side h_i.
    const btVector3 m_W = boxIsA ? -nearest.normalOnB : nearest.normalOnB;
    const btVector3 m_X = m_W * X_WX.getBasis();  // Rᵀ m
    const btVector3 h = box.getHalfExtentsWithMargin();
    const int face = m_X.absolute().maxAxis();
    const btScalar side = m_X[face] > 0 ? 1 : -1;
    btVector3 f_X(0, 0, 0);
    f_X[face] = side;
    const btVector3 f_W = X_WX.getBasis() * f_X;
    const auto overFace = [&](const btVector3& v) {
        for (int j = 0; j < 3; ++j)
            if (j != face && std::abs(v[j]) > h[j]) return false;
        return true;
    };
    // A point v of the cylinder (box frame) over the face: its gap to the face along f.
    int found = 0;
    btScalar least = BT_LARGE_FLOAT;
    const auto onFace = [&](const btVector3& v) {
        btVector3 x = v;
        x[face] = side * h[face];
        const btScalar distance = side * v[face] - h[face];
        least = std::min(least, distance);
        ++found;
        add(X_WX(v), X_WX(x), f_W, distance);
    };
    // The cylinder in the box's frame: centre, axis, radius, half length; the direction across
    // its axis towards the face (d) and square to both (e).
    const btTransform X_XC = X_WX.inverseTimes(X_WC);
    const int up = cylinder.getUpAxis();
    const btVector3 axis = X_XC.getBasis().getColumn(up), centre = X_XC.getOrigin();
    const btScalar r = cylinder.getRadius(), half = cylinder.getHalfExtentsWithMargin()[up];
    btVector3 d = axis * f_X.dot(axis) - f_X;
    if (d.length2() > btScalar(1e-24))
        d.normalize();
    else
        d = axis.cross(std::abs(axis.x()) < 0.9 ? btVector3(1, 0, 0) : btVector3(0, 1, 0))
                .normalized();  // (the face is a cap's: any direction across)
    const btVector3 e = axis.cross(d);
    for (const btScalar end : {-half, half})
        for (const btVector3& u : {d, e, -d, -e}) {
            const btVector3 v = centre + end * axis + r * u;
            if (overFace(v)) onFace(v);
        }
    // The line nearest the face (through each rim's point towards it) where the face's edges
    // cut it.
    const btVector3 p = centre - half * axis + r * d, q = centre + half * axis + r * d;
    btScalar lo = 0, hi = 1;
    for (int j = 0; j < 3; ++j) {
        if (j == face) continue;
        if (q[j] == p[j]) {  // (along the face's edge: over it or not at all)
            if (std::abs(p[j]) > h[j]) hi = -1;
            continue;
        }
        const btScalar t0 = (-h[j] - p[j]) / (q[j] - p[j]), t1 = (h[j] - p[j]) / (q[j] - p[j]);
        lo = std::max(lo, std::min(t0, t1));
        hi = std::min(hi, std::max(t0, t1));
    }
    if (hi > lo) {
        if (lo > 0) onFace(p + lo * (q - p));
        if (hi < 1) onFace(p + hi * (q - p));
    }
    // GJK's point where none lies over the face or it is nearer than all of them.
    if (found == 0 || nearest.distance < least - kNearer * r) {
        const btVector3 onB = nearest.pointOnB, onA = onB + nearest.normalOnB * nearest.distance;
        const btVector3& c = boxIsA ? onB : onA;
        const btVector3& x = boxIsA ? onA : onB;
        add(c, x, m_W, nearest.distance);
    }
}

}  // namespace engine::contact
