// Face pairs (shape_pairs.h): cylinders and hulls with the shapes that lie on their faces.

#include "engine/contact/shape_pairs.h"

#include "engine/contact/core_distance.h"

#include <BulletCollision/CollisionShapes/btConvexPolyhedron.h>
#include <btBulletCollisionCommon.h>

#include <algorithm>
#include <cmath>

namespace engine::contact {
namespace {

// GJK's point is given beside the faces' points when nearer than all of them by this fraction
// of the smaller shape's size (sizeOf).
constexpr btScalar kNearer = 1e-5;

// A shape's size for the tolerance above: a round shape's or a cylinder's radius, a box's
// smallest half edge, a hull's inner radius.
btScalar sizeOf(const btCollisionShape& shape) {
    switch (shape.getShapeType()) {
    case SPHERE_SHAPE_PROXYTYPE:
        return static_cast<const btSphereShape&>(shape).getRadius();
    case CAPSULE_SHAPE_PROXYTYPE:
        return static_cast<const btCapsuleShape&>(shape).getRadius();
    case CYLINDER_SHAPE_PROXYTYPE:
        return static_cast<const btCylinderShape&>(shape).getRadius();
    case BOX_SHAPE_PROXYTYPE: {
        const btVector3 h = static_cast<const btBoxShape&>(shape).getHalfExtentsWithMargin();
        return h[h.minAxis()];
    }
    case CONVEX_HULL_SHAPE_PROXYTYPE: {
        const btConvexPolyhedron* hull =
            static_cast<const btPolyhedralConvexShape&>(shape).getConvexPolyhedron();
        return hull ? hull->m_radius : btScalar(0);
    }
    default:
        return 0;
    }
}

// A flat face of a shape, in the shape's frame: the plane n·x = c (n outward, unit) over a
// rectangle (a box's face: |x_j| ≤ half_j across axis n lies along), a disc (a cylinder's cap:
// radius about the axis) or a convex polygon (a hull's face: inside each edge's plane).
struct Face {
    enum class Region { Rectangle, Disc, Polygon };
    Region region = Region::Rectangle;
    btVector3 n{0, 0, 1};
    btScalar c = 0;
    int axis = 2;  // (rectangle, disc: the axis n lies along)
    btVector3 half{0, 0, 0};
    btScalar radius = 0;
    static constexpr int kEdges = 64;  // (a polygon's edges: its planes m·x ≤ e)
    // (left unset but for the `edges` a polygon's face sets: a Face is made for each face pair,
    // and zeroing 2.5 kB took a fifth of a capsule–cylinder pair's time)
    btVector3 edge[kEdges];
    btScalar edgeOffset[kEdges];
    int edges = 0;
    btScalar depth = 0;  // (how far into the shape a point behind the face may be taken)

    bool over(const btVector3& v) const {
        switch (region) {
        case Region::Disc: {
            btScalar r2 = 0;
            for (int j = 0; j < 3; ++j)
                if (j != axis) r2 += v[j] * v[j];
            return r2 <= radius * radius;
        }
        case Region::Rectangle:
            for (int j = 0; j < 3; ++j)
                if (j != axis && std::abs(v[j]) > half[j]) return false;
            return true;
        case Region::Polygon:
            for (int k = 0; k < edges; ++k)
                if (edge[k].dot(v) > edgeOffset[k]) return false;
            return true;
        }
        return false;
    }
    btScalar gap(const btVector3& v) const { return n.dot(v) - c; }
    btVector3 onFace(const btVector3& v) const { return v - gap(v) * n; }
    // The part [lo, hi] of the segment p → q over the face (hi < lo: none).
    void clip(const btVector3& p, const btVector3& q, btScalar& lo, btScalar& hi) const {
        lo = 0;
        hi = 1;
        const btVector3 w = q - p;
        switch (region) {
        case Region::Disc: {
            // |p⊥ + t w⊥|² ≤ r²
            btScalar a = 0, b = 0, k = -radius * radius;
            for (int j = 0; j < 3; ++j) {
                if (j == axis) continue;
                a += w[j] * w[j];
                b += p[j] * w[j];
                k += p[j] * p[j];
            }
            if (a == 0) {
                if (k > 0) hi = -1;
                return;
            }
            const btScalar discriminant = b * b - a * k;
            if (discriminant < 0) {
                hi = -1;
                return;
            }
            const btScalar s = std::sqrt(discriminant);
            lo = std::max(lo, (-b - s) / a);
            hi = std::min(hi, (-b + s) / a);
            return;
        }
        case Region::Rectangle:
            clipOverBoxFace(p, q, half, axis, lo, hi);
            return;
        case Region::Polygon:
            for (int k = 0; k < edges; ++k) {
                const btScalar f0 = edge[k].dot(p) - edgeOffset[k];
                const btScalar f1 = edge[k].dot(q) - edgeOffset[k];
                if (f0 > 0 && f1 > 0) {
                    hi = -1;
                    return;
                }
                if (f0 > 0) lo = std::max(lo, f0 / (f0 - f1));
                if (f1 > 0) hi = std::min(hi, f0 / (f0 - f1));
            }
            return;
        }
    }
};

// The flat face of shape S that direction u (in S's frame, unit) leaves it by: a box's face most
// along u, a cylinder's cap when u is more along its axis than across it, a hull's face most
// along u; false: none.
bool faceOf(const btCollisionShape& shape, const btVector3& u, Face& face) {
    switch (shape.getShapeType()) {
    case BOX_SHAPE_PROXYTYPE: {
        face.region = Face::Region::Rectangle;
        face.half = static_cast<const btBoxShape&>(shape).getHalfExtentsWithMargin();
        face.axis = u.absolute().maxAxis();
        face.n = btVector3(0, 0, 0);
        face.n[face.axis] = u[face.axis] > 0 ? 1 : -1;
        face.c = face.half[face.axis];
        face.depth = face.c;
        return true;
    }
    case CYLINDER_SHAPE_PROXYTYPE: {
        const auto& cylinder = static_cast<const btCylinderShape&>(shape);
        const int up = cylinder.getUpAxis();
        if (u[up] * u[up] < btScalar(0.5) * u.length2()) return false;
        face.region = Face::Region::Disc;
        face.axis = up;
        face.n = btVector3(0, 0, 0);
        face.n[up] = u[up] > 0 ? 1 : -1;
        face.c = cylinder.getHalfExtentsWithMargin()[up];
        face.depth = face.c;
        face.radius = cylinder.getRadius();
        return true;
    }
    case CONVEX_HULL_SHAPE_PROXYTYPE: {
        const btConvexPolyhedron* hull =
            static_cast<const btPolyhedralConvexShape&>(shape).getConvexPolyhedron();
        if (!hull || hull->m_faces.size() == 0) return false;
        int best = -1;
        btScalar bestDot = -BT_LARGE_FLOAT;
        for (int f = 0; f < hull->m_faces.size(); ++f) {
            const btScalar* plane = hull->m_faces[f].m_plane;
            const btScalar dot = plane[0] * u.x() + plane[1] * u.y() + plane[2] * u.z();
            if (dot > bestDot) best = f, bestDot = dot;
        }
        const btFace& f = hull->m_faces[best];
        const int count = f.m_indices.size();
        if (count < 3 || count > Face::kEdges) return false;
        face.region = Face::Region::Polygon;
        face.n = btVector3(f.m_plane[0], f.m_plane[1], f.m_plane[2]);
        const btScalar length = face.n.length();
        if (length <= 0) return false;
        face.n /= length;
        face.c = -f.m_plane[3] / length;
        btVector3 centre(0, 0, 0);
        for (int k = 0; k < count; ++k) centre += hull->m_vertices[f.m_indices[k]];
        centre /= btScalar(count);
        face.edges = 0;
        for (int k = 0; k < count; ++k) {
            const btVector3& p = hull->m_vertices[f.m_indices[k]];
            const btVector3& q = hull->m_vertices[f.m_indices[(k + 1) % count]];
            btVector3 m = (q - p).cross(face.n);
            if (m.length2() <= 0) continue;
            m.normalize();
            if (m.dot(centre - p) > 0) m = -m;  // (outwards)
            face.edge[face.edges] = m;
            face.edgeOffset[face.edges++] = m.dot(p);
        }
        face.depth = hull->m_radius > 0 ? hull->m_radius : BT_LARGE_FLOAT;
        return true;
    }
    default:
        return false;
    }
}

// Each point of shape I (at X_SI in the face's shape's frame) a face's points are taken from,
// to `take` (in that frame): a sphere's point nearest the face's plane, a capsule's line nearest
// it (its ends and where the face's edge cuts it), a cylinder's rim points (polyhedron_plane.h)
// and its line nearest the face where the edge cuts it, a box's corners; those over the face.
template <class Take>
void pointsOver(const btCollisionShape& shape, const btTransform& X_SI, const Face& face,
                Take&& take) {
    const btVector3& f = face.n;  // (towards I)
    const auto maybe = [&](const btVector3& v) {
        if (face.over(v)) take(v);
    };
    // The segment p → q: where the face's edge cuts it (its ends: `ends`).
    const auto line = [&](const btVector3& p, const btVector3& q, bool ends) {
        if (ends) {
            maybe(p);
            maybe(q);
        }
        btScalar lo = 0, hi = 1;
        face.clip(p, q, lo, hi);
        if (hi <= lo) return;
        if (lo > 0) take(p + lo * (q - p));
        if (hi < 1) take(p + hi * (q - p));
    };
    switch (shape.getShapeType()) {
    case SPHERE_SHAPE_PROXYTYPE:
        maybe(X_SI.getOrigin() - static_cast<const btSphereShape&>(shape).getRadius() * f);
        return;
    case CAPSULE_SHAPE_PROXYTYPE: {
        const auto& capsule = static_cast<const btCapsuleShape&>(shape);
        btVector3 end(0, 0, 0);
        end[capsule.getUpAxis()] = capsule.getHalfHeight();
        const btVector3 down = -capsule.getRadius() * f;
        line(X_SI(-end) + down, X_SI(end) + down, true);
        return;
    }
    case CYLINDER_SHAPE_PROXYTYPE: {
        const auto& cylinder = static_cast<const btCylinderShape&>(shape);
        const int up = cylinder.getUpAxis();
        const btVector3 axis = X_SI.getBasis().getColumn(up), centre = X_SI.getOrigin();
        const btScalar r = cylinder.getRadius(), half = cylinder.getHalfExtentsWithMargin()[up];
        // Across the axis towards the face (d; a cap on the face: any direction), and square to
        // both (e).
        btVector3 d = axis * f.dot(axis) - f;
        if (d.length2() > btScalar(1e-24))
            d.normalize();
        else
            d = axis.cross(std::abs(axis.x()) < 0.9 ? btVector3(1, 0, 0) : btVector3(0, 1, 0))
                    .normalized();
        const btVector3 e = axis.cross(d);
        for (const btScalar end : {-half, half})
            for (const btVector3& u : {d, e, -d, -e}) maybe(centre + end * axis + r * u);
        line(centre - half * axis + r * d, centre + half * axis + r * d, false);
        return;
    }
    case BOX_SHAPE_PROXYTYPE: {
        const btVector3 h = static_cast<const btBoxShape&>(shape).getHalfExtentsWithMargin();
        for (int i = 0; i < 8; ++i)
            maybe(X_SI(
                btVector3(i & 1 ? h.x() : -h.x(), i & 2 ? h.y() : -h.y(), i & 4 ? h.z() : -h.z())));
        return;
    }
    case CONVEX_HULL_SHAPE_PROXYTYPE: {
        const auto& hull = static_cast<const btConvexHullShape&>(shape);
        const btVector3* vertices = hull.getUnscaledPoints();
        const btVector3& scale = hull.getLocalScalingNV();
        for (int i = 0; i < hull.getNumPoints(); ++i) maybe(X_SI(vertices[i] * scale));
        return;
    }
    default:
        return;
    }
}

}  // namespace

void clipOverBoxFace(const btVector3& p, const btVector3& q, const btVector3& half, int axis,
                     btScalar& lo, btScalar& hi) {
    lo = 0;
    hi = 1;
    const btVector3 w = q - p;
    for (int j = 0; j < 3; ++j) {
        if (j == axis) continue;
        if (w[j] == 0) {  // (along the face's edge: over it or not at all)
            if (std::abs(p[j]) > half[j]) hi = -1;
            continue;
        }
        const btScalar t0 = (-half[j] - p[j]) / w[j], t1 = (half[j] - p[j]) / w[j];
        lo = std::max(lo, std::min(t0, t1));
        hi = std::min(hi, std::max(t0, t1));
    }
}

bool facePair(const btCollisionShape& a, const btCollisionShape& b) {
    const int ta = a.getShapeType(), tb = b.getShapeType();
    const auto withCylinder = [](int type) {
        return type == BOX_SHAPE_PROXYTYPE || type == CYLINDER_SHAPE_PROXYTYPE ||
               type == CONVEX_HULL_SHAPE_PROXYTYPE || roundShape(type);
    };
    const auto withHull = [](int type) { return roundShape(type); };
    return (ta == CYLINDER_SHAPE_PROXYTYPE && withCylinder(tb)) ||
           (tb == CYLINDER_SHAPE_PROXYTYPE && withCylinder(ta)) ||
           (ta == CONVEX_HULL_SHAPE_PROXYTYPE && withHull(tb)) ||
           (tb == CONVEX_HULL_SHAPE_PROXYTYPE && withHull(ta));
}

void facePoints(const btCollisionShape& a, const btTransform& X_WA, const btCollisionShape& b,
                const btTransform& X_WB, btScalar breaking, PairPoints& out) {
    out.count = 0;
    // The nearest points as Bullet's convex–convex algorithm finds them (GJK on the shapes'
    // cores, then their margins; pairs nearer than the margins and the breaking distance):
    // Motus's own GJK for the shapes whose cores it takes (a hull: its own points), Bullet's for
    // the others and for cores that meet (core_distance.h).
    CoreNearest nearest;
    const int ta = a.getShapeType(), tb = b.getShapeType();
    const bool hull = ta == CONVEX_HULL_SHAPE_PROXYTYPE || tb == CONVEX_HULL_SHAPE_PROXYTYPE;
    const CoreResult solved = (coreShape(ta) || ta == CONVEX_HULL_SHAPE_PROXYTYPE) &&
                                      (coreShape(tb) || tb == CONVEX_HULL_SHAPE_PROXYTYPE)
                                  ? (hull ? nearestPolytopes(a, X_WA, b, X_WB, breaking, nearest)
                                          : nearestCores(a, X_WA, b, X_WB, breaking, nearest))
                                  : CoreResult::Unsolved;
    if (solved == CoreResult::Beyond) return;
    if (solved == CoreResult::Unsolved && !bulletNearest(a, X_WA, b, X_WB, breaking, nearest))
        return;

    // Each flat face the normal leaves a shape by (A's towards B: −n; B's towards A: n), and the
    // other shape's points over it.
    int found = 0;
    btScalar least = BT_LARGE_FLOAT;
    for (int owner = 0; owner < 2; ++owner) {
        const btCollisionShape& S = owner == 0 ? a : b;
        const btCollisionShape& I = owner == 0 ? b : a;
        const btTransform& X_WS = owner == 0 ? X_WA : X_WB;
        const btTransform& X_WI = owner == 0 ? X_WB : X_WA;
        const btVector3 toward = owner == 0 ? -nearest.normalOnB : nearest.normalOnB;
        Face face;
        if (!faceOf(S, toward * X_WS.getBasis(), face)) continue;
        const btVector3 f_W = X_WS.getBasis() * face.n;
        pointsOver(I, X_WS.inverseTimes(X_WI), face, [&](const btVector3& v) {
            const btScalar gap = face.gap(v);
            if (gap < -face.depth) return;  // (beyond the face's shape's middle)
            ++found;
            least = std::min(least, gap);
            if (gap > breaking) return;
            PairPoint point;
            const btVector3 onI = X_WS(v), onS = X_WS(face.onFace(v));
            point.worldA = owner == 0 ? onS : onI;
            point.worldB = owner == 0 ? onI : onS;
            point.normalOnB = owner == 0 ? -f_W : f_W;
            point.localA = X_WA.invXform(point.worldA);
            point.localB = X_WB.invXform(point.worldB);
            point.distance = gap;
            out.add(point);
        });
    }
    // GJK's point where no point lies over a face or it is nearer than all of them.
    if ((found == 0 || nearest.distance < least - kNearer * std::min(sizeOf(a), sizeOf(b))) &&
        nearest.distance <= breaking) {
        PairPoint point;
        point.worldB = nearest.pointOnB;
        point.worldA = nearest.pointOnB + nearest.normalOnB * nearest.distance;
        point.normalOnB = nearest.normalOnB;
        point.localA = X_WA.invXform(point.worldA);
        point.localB = X_WB.invXform(point.worldB);
        point.distance = nearest.distance;
        out.add(point);
    }
}

}  // namespace engine::contact
