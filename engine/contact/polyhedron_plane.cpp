#include "engine/contact/polyhedron_plane.h"

#include <btBulletCollisionCommon.h>

namespace engine::contact {
namespace {

// The plane of a shape–plane pair, and each point found on it: the shape (P) is A, the plane
// (L) B.
struct OnPlane {
    const btTransform& X_WP;
    const btTransform& X_WL;
    btVector3 n_W;

    // The point at v_P (in P) `distance` from the plane, written into `point` field by field
    // (built in place: a point built aside and copied in was read back before its stores
    // had landed, a stall per field).
    void write(const btVector3& v_P, btScalar distance, PairPoint& point) const {
        point.worldA = X_WP(v_P);
        point.worldB = point.worldA - distance * n_W;
        point.localA = v_P;
        point.localB = X_WL.invXform(point.worldB);
        point.normalOnB = n_W;
        point.distance = distance;
    }
};

// Each candidate point of the shape closer to the plane than `breaking` (the pair's breaking
// distance), to `take(v_P, distance, plane)`: on the polyhedron (A) at v_P in its frame, and on
// the plane (B), the plane's normal (OnPlane::write makes the point).
template <class Take>
void planePoints(const btCollisionShape& shape, const btTransform& X_WP,
                 const btCollisionShape& planeShape, const btTransform& X_WL, btScalar breaking,
                 Take&& take) {
    const auto& plane = static_cast<const btStaticPlaneShape&>(planeShape);
    // The plane in the polyhedron's frame P: n_P · v = c_P.  (L: the plane's frame)
    const OnPlane on{X_WP, X_WL, X_WL.getBasis() * plane.getPlaneNormal()};
    const btVector3& n_W = on.n_W;
    const btVector3 n_P = n_W * X_WP.getBasis();  // Rᵀ n
    const btScalar c_P =
        plane.getPlaneConstant() + n_W.dot(X_WL.getOrigin()) - n_W.dot(X_WP.getOrigin());
    auto touch = [&](const btVector3& v_P) {
        const btScalar distance = n_P.dot(v_P) - c_P;
        if (distance >= breaking) return;
        take(v_P, distance, on);
    };
    const int type = shape.getShapeType();
    if (type == SPHERE_SHAPE_PROXYTYPE) {
        const btScalar r = static_cast<const btSphereShape&>(shape).getRadius();
        touch(-r * n_P);
    } else if (type == CAPSULE_SHAPE_PROXYTYPE) {
        // The two end spheres' lowest points.
        const auto& capsule = static_cast<const btCapsuleShape&>(shape);
        btVector3 end(0, 0, 0);
        end[capsule.getUpAxis()] = capsule.getHalfHeight();
        const btVector3 down = -capsule.getRadius() * n_P;
        touch(end + down);
        touch(-end + down);
    } else if (type == CYLINDER_SHAPE_PROXYTYPE) {
        // Each rim's lowest point and the points a quarter, a half and three quarters round
        // from it: a cylinder on its side touches at two points (its line), one standing
        // or nearly so at four of its bottom rim (a square in the circle: it stands).
        const auto& cylinder = static_cast<const btCylinderShape&>(shape);
        const int up = cylinder.getUpAxis();
        btVector3 a(0, 0, 0);
        a[up] = 1;
        const btScalar r = cylinder.getRadius(), h = cylinder.getHalfExtentsWithMargin()[up];
        btVector3 d = a * n_P.dot(a) - n_P;  // −n across the axis: towards the plane
        if (d.length2() > btScalar(1e-24))
            d.normalize();
        else
            d = btVector3(0, 0, 0), d[(up + 1) % 3] = 1;  // flat on a cap: any direction
        const btVector3 e = a.cross(d);
        // (d, e, −d, −e round each rim, the top's first: r (−u) is −(r u) to the bit)
        const btVector3 rd = r * d, re = r * e;
        for (const btScalar side : {h, -h}) {
            const btVector3 centre = side * a;
            touch(centre + rd);
            touch(centre + re);
            touch(centre - rd);
            touch(centre - re);
        }
    } else if (type == BOX_SHAPE_PROXYTYPE) {
        const btVector3 h = static_cast<const btBoxShape&>(shape).getHalfExtentsWithMargin();
        for (int i = 0; i < 8; ++i)
            touch(
                btVector3(i & 1 ? h.x() : -h.x(), i & 2 ? h.y() : -h.y(), i & 4 ? h.z() : -h.z()));
    } else {
        const auto& hull = static_cast<const btConvexHullShape&>(shape);
        const btVector3* vertices = hull.getUnscaledPoints();
        const btVector3& scale = hull.getLocalScalingNV();
        for (int i = 0; i < hull.getNumPoints(); ++i) touch(vertices[i] * scale);
    }
}

class PolyhedronPlaneAlgorithm final : public btCollisionAlgorithm {
public:
    PolyhedronPlaneAlgorithm(const btCollisionAlgorithmConstructionInfo& info,
                             const btCollisionObjectWrapper* body0,
                             const btCollisionObjectWrapper* body1, bool swapped)
        : btCollisionAlgorithm(info), manifold_(info.m_manifold), swapped_(swapped) {
        const btCollisionObject* polyhedron = (swapped ? body1 : body0)->getCollisionObject();
        const btCollisionObject* plane = (swapped ? body0 : body1)->getCollisionObject();
        if (!manifold_ && m_dispatcher->needsCollision(polyhedron, plane)) {
            // The manifold's body 0 is the polyhedron whatever the order of the pair: the points
            // below are given on the plane (Bullet's B) with the plane's normal.
            manifold_ = m_dispatcher->getNewManifold(polyhedron, plane);
            ownManifold_ = true;
        }
    }

    ~PolyhedronPlaneAlgorithm() override {
        if (ownManifold_ && manifold_) m_dispatcher->releaseManifold(manifold_);
    }

    void processCollision(const btCollisionObjectWrapper* body0,
                          const btCollisionObjectWrapper* body1, const btDispatcherInfo&,
                          btManifoldResult* result) override {
        if (!manifold_) return;
        const btCollisionObjectWrapper* polyhedronWrap = swapped_ ? body1 : body0;
        const btCollisionObjectWrapper* planeWrap = swapped_ ? body0 : body1;
        // A whole object (not a child of a compound): its points go straight into the manifold,
        // with the polyhedron as body 0 and the plane as body 1.
        const bool whole = polyhedronWrap->getCollisionObject()->getCollisionShape() ==
                           polyhedronWrap->getCollisionShape();
        result->setPersistentManifold(manifold_);
        planePoints(*polyhedronWrap->getCollisionShape(), polyhedronWrap->getWorldTransform(),
                    *planeWrap->getCollisionShape(), planeWrap->getWorldTransform(),
                    manifold_->getContactBreakingThreshold(),
                    [&](const btVector3& v_P, btScalar distance, const OnPlane& plane) {
                        PairPoint found;
                        plane.write(v_P, distance, found);
                        if (!whole) {
                            result->addContactPoint(found.normalOnB, found.worldB, found.distance);
                            return;
                        }
                        // (One point reused: Bullet's constructor sets some forty solver fields.)
                        btManifoldPoint& point = point_;
                        point.m_localPointA = found.localA;
                        point.m_localPointB = found.localB;
                        point.m_normalWorldOnB = found.normalOnB;
                        point.m_distance1 = found.distance;
                        point.m_positionWorldOnA = found.worldA;
                        point.m_positionWorldOnB = found.worldB;
                        manifold_->addManifoldPoint(point);
                    });
        // No refresh: the points were found at the current poses.
    }

    btScalar calculateTimeOfImpact(btCollisionObject*, btCollisionObject*, const btDispatcherInfo&,
                                   btManifoldResult*) override {
        return 1.0;  // no continuous collision detection: Motus uses speculative contacts
    }

    void getAllContactManifolds(btManifoldArray& manifolds) override {
        if (manifold_ && ownManifold_) manifolds.push_back(manifold_);
    }

private:
    btPersistentManifold* manifold_;
    // A point on no child shape, fresh (no age, no impulses): each found point rewrites the
    // fields that place it.
    // (Bullet's four-argument constructor sets every field, the shape indices to −1.)
    btManifoldPoint point_{btVector3(0, 0, 0), btVector3(0, 0, 0), btVector3(0, 0, 1), 0.0};
    bool ownManifold_ = false;
    bool swapped_;
};

struct CreateFunc final : btCollisionAlgorithmCreateFunc {
    explicit CreateFunc(bool swapped) { m_swapped = swapped; }
    btCollisionAlgorithm* CreateCollisionAlgorithm(btCollisionAlgorithmConstructionInfo& info,
                                                   const btCollisionObjectWrapper* body0,
                                                   const btCollisionObjectWrapper* body1) override {
        void* memory =
            info.m_dispatcher1->allocateCollisionAlgorithm(sizeof(PolyhedronPlaneAlgorithm));
        return new (memory) PolyhedronPlaneAlgorithm(info, body0, body1, m_swapped);
    }
};

}  // namespace

void polyhedronPlanePoints(const btCollisionShape& shape, const btTransform& X_WS,
                           const btCollisionShape& plane, const btTransform& X_WP,
                           btScalar breaking, PairPoints& out) {
    out.count = 0;
    planePoints(shape, X_WS, plane, X_WP, breaking,
                [&](const btVector3& v_P, btScalar distance, const OnPlane& on) {
                    // (into its slot while there is one; a fifth point aside, then as add())
                    if (out.count < 4) {
                        on.write(v_P, distance, out.points[out.count++]);
                        return;
                    }
                    PairPoint fifth;
                    on.write(v_P, distance, fifth);
                    out.add(fifth);
                });
}

std::size_t polyhedronPlaneAlgorithmSize() {
    return sizeof(PolyhedronPlaneAlgorithm);
}

void registerPolyhedronPlane(btCollisionDispatcher& dispatcher) {
    // The dispatcher keeps the pointers: one pair of create functions for the whole program.
    static CreateFunc polyhedronFirst(false), planeFirst(true);
    for (int type : {BOX_SHAPE_PROXYTYPE, CONVEX_HULL_SHAPE_PROXYTYPE, SPHERE_SHAPE_PROXYTYPE,
                     CAPSULE_SHAPE_PROXYTYPE, CYLINDER_SHAPE_PROXYTYPE}) {
        dispatcher.registerCollisionCreateFunc(type, STATIC_PLANE_PROXYTYPE, &polyhedronFirst);
        dispatcher.registerCollisionCreateFunc(STATIC_PLANE_PROXYTYPE, type, &planeFirst);
    }
}

}  // namespace engine::contact
