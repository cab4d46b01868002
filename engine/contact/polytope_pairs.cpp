// Polytope pairs (shape_pairs.h): a convex hull with a hull or a box, clipped face against face.

#include "engine/contact/core_distance.h"
#include "engine/contact/manifold_slots.h"
#include "engine/contact/shape_pairs.h"

#include <BulletCollision/CollisionShapes/btConvexPolyhedron.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>
#include <BulletCollision/NarrowPhaseCollision/btPolyhedralContactClipping.h>
#include <LinearMath/btConvexHullComputer.h>
#include <btBulletCollisionCommon.h>

#include <algorithm>

namespace engine::contact {
namespace {

// The nearest point is given beside the clipped points when deeper than all of them by this
// fraction of the smaller shape's inner radius (as face pairs do theirs).
constexpr btScalar kDeeper = 1e-5;

const btConvexPolyhedron* polyhedronOf(const btCollisionShape& shape) {
    return static_cast<const btPolyhedralConvexShape&>(shape).getConvexPolyhedron();
}

// Where shapes A and B overlap, their deepest points by Bullet's GJK and EPA (btGjkEpaSolver2,
// once: Bullet's pair detector ran two GJKs of its own before it), as Bullet's pair detector
// reports them: B's normal towards A, B's point, minus the depth. About the pair's midpoint,
// as Bullet takes them, for precision far from the origin.
bool deepestPoints(const btCollisionShape& a, const btTransform& X_WA, const btCollisionShape& b,
                   const btTransform& X_WB, CoreNearest& out) {
    const btVector3 offset = 0.5 * (X_WA.getOrigin() + X_WB.getOrigin());
    btTransform A = X_WA, B = X_WB;
    A.getOrigin() -= offset;
    B.getOrigin() -= offset;
    btGjkEpaSolver2::sResults results;
    if (!btGjkEpaSolver2::Penetration(static_cast<const btConvexShape*>(&a), A,
                                      static_cast<const btConvexShape*>(&b), B,
                                      B.getOrigin() - A.getOrigin(), results))
        return false;
    const btVector3 gap = results.witnesses[1] - results.witnesses[0];
    const btScalar length = gap.length();
    if (!(length > SIMD_EPSILON)) return false;
    out.normalOnB = gap / length;
    out.pointOnB = results.witnesses[1] + offset;
    out.distance = -length;
    return true;
}

// The face of the polyhedron at X_WS whose normal lies most along u (world): its index.
int faceMostAlong(const btConvexPolyhedron& polyhedron, const btTransform& X_WS,
                  const btVector3& u) {
    const btVector3 d = u * X_WS.getBasis();
    int best = -1;
    btScalar most = -BT_LARGE_FLOAT;
    for (int f = 0; f < polyhedron.m_faces.size(); ++f) {
        const btScalar* plane = polyhedron.m_faces[f].m_plane;
        const btScalar s = plane[0] * d.x() + plane[1] * d.y() + plane[2] * d.z();
        if (s > most) {
            most = s;
            best = f;
        }
    }
    return best;
}

// A face's outward normal and plane offset in the world (n·x + offset = 0 on it).
void facePlane(const btFace& face, const btTransform& X_WS, btVector3& n, btScalar& offset) {
    n = X_WS.getBasis() * btVector3(face.m_plane[0], face.m_plane[1], face.m_plane[2]);
    offset = face.m_plane[3] - n.dot(X_WS.getOrigin());
}

// The contact face of polytopes A and B along B's normal towards A: the reference face (A's face
// most against the normal or B's most along it, whichever lies nearer square to it) and the
// incident face of the other (most against the reference face's normal), the incident face
// clipped to the reference face's sides; each clipped point within `breaking` of the reference
// face's plane (its distance from it, no less than `least`) given with the reference face's
// normal, on the incident face and over it on the reference face.
void clipFaces(const btConvexPolyhedron& pa, const btTransform& X_WA, const btConvexPolyhedron& pb,
               const btTransform& X_WB, const btVector3& normalOnB, btScalar least,
               btScalar breaking, btDiscreteCollisionDetectorInterface::Result& result) {
    const int fa = faceMostAlong(pa, X_WA, -normalOnB);
    const int fb = faceMostAlong(pb, X_WB, normalOnB);
    if (fa < 0 || fb < 0) return;
    btVector3 na, nb;
    btScalar da, db;
    facePlane(pa.m_faces[fa], X_WA, na, da);
    facePlane(pb.m_faces[fb], X_WB, nb, db);
    const bool referenceIsA = -na.dot(normalOnB) >= nb.dot(normalOnB);
    const btConvexPolyhedron& reference = referenceIsA ? pa : pb;
    const btConvexPolyhedron& incident = referenceIsA ? pb : pa;
    const btTransform& X_WR = referenceIsA ? X_WA : X_WB;
    const btTransform& X_WI = referenceIsA ? X_WB : X_WA;
    const btFace& face = reference.m_faces[referenceIsA ? fa : fb];
    const btVector3 n = referenceIsA ? na : nb;  // (the reference face's outward normal)
    const btScalar offset = referenceIsA ? da : db;
    thread_local btVertexArray polygon, scratch;
    polygon.resize(0);
    const int fi = faceMostAlong(incident, X_WI, -n);
    if (fi < 0) return;
    const btFace& incidentFace = incident.m_faces[fi];
    for (int k = 0; k < incidentFace.m_indices.size(); ++k)
        polygon.push_back(X_WI(incident.m_vertices[incidentFace.m_indices[k]]));
    // (each side's plane: outward, through the edge, square to the face)
    const int corners = face.m_indices.size();
    for (int k = 0; k < corners && polygon.size() > 0; ++k) {
        const btVector3 p = X_WR(reference.m_vertices[face.m_indices[k]]);
        const btVector3 q = X_WR(reference.m_vertices[face.m_indices[(k + 1) % corners]]);
        const btVector3 side = (q - p).cross(n);
        scratch.resize(0);
        btPolyhedralContactClipping::clipFace(polygon, scratch, side, -side.dot(p));
        polygon.copyFromArray(scratch);
    }
    for (int k = 0; k < polygon.size(); ++k) {
        const btVector3& v = polygon[k];
        const btScalar distance = std::max(n.dot(v) + offset, least);
        if (distance > breaking) continue;
        if (referenceIsA)  // (v on B's face: B's normal −n, the point over it on A's face)
            result.addContactPoint(-n, v, distance);
        else  // (v on A's face: B's normal n, its point on B's face under v)
            result.addContactPoint(n, v - distance * n, distance);
    }
}

}  // namespace

bool setExactPolyhedron(btConvexHullShape& hull) {
    const int n = hull.getNumPoints();
    const btVector3* points = hull.getUnscaledPoints();
    if (n < 4) return false;
    btConvexHullComputer computer;
    if (computer.compute(points[0].m_floats, static_cast<int>(sizeof(btVector3)), n, 0, 0) < 0 ||
        computer.faces.size() < 4)
        return false;
    btConvexPolyhedron polyhedron;
    const int m = computer.vertices.size();
    polyhedron.m_vertices.resize(m);
    for (int i = 0; i < m; ++i)
        polyhedron.m_vertices[i] = points[computer.original_vertex_index[i]];
    for (int f = 0; f < computer.faces.size(); ++f) {
        btFace& face = polyhedron.m_faces.expand();
        // Its corners in the computer's order (counter-clockwise seen from outside), its normal
        // by Newell's method, its plane through the hull's outermost point along it (a face the
        // computer found on its grid may be a little out of plane on the points themselves: its
        // plane then touches the hull, every point on or under it).
        const btConvexHullComputer::Edge* first = &computer.edges[computer.faces[f]];
        const btConvexHullComputer::Edge* edge = first;
        btVector3 normal(0, 0, 0);
        do {
            face.m_indices.push_back(edge->getSourceVertex());
            const btVector3& p = polyhedron.m_vertices[edge->getSourceVertex()];
            const btVector3& q = polyhedron.m_vertices[edge->getTargetVertex()];
            normal +=
                btVector3((p.y() - q.y()) * (p.z() + q.z()), (p.z() - q.z()) * (p.x() + q.x()),
                          (p.x() - q.x()) * (p.y() + q.y()));
            edge = edge->getNextEdgeOfFace();
        } while (edge != first);
        if (!(normal.length2() > 0)) return false;
        normal.normalize();
        btScalar outermost = -BT_LARGE_FLOAT;
        for (int k = 0; k < n; ++k) outermost = std::max(outermost, normal.dot(points[k]));
        face.m_plane[0] = normal.x();
        face.m_plane[1] = normal.y();
        face.m_plane[2] = normal.z();
        face.m_plane[3] = -outermost;
    }
    polyhedron.initialize();
    hull.setPolyhedralFeatures(polyhedron);
    return true;
}

bool polytopePair(const btCollisionShape& a, const btCollisionShape& b) {
    const int ta = a.getShapeType(), tb = b.getShapeType();
    const auto polytope = [](int type) {
        return type == CONVEX_HULL_SHAPE_PROXYTYPE || type == BOX_SHAPE_PROXYTYPE;
    };
    return polytope(ta) && polytope(tb) &&
           (ta == CONVEX_HULL_SHAPE_PROXYTYPE || tb == CONVEX_HULL_SHAPE_PROXYTYPE);
}

void polytopePoints(const btCollisionShape& a, const btTransform& X_WA, const btCollisionShape& b,
                    const btTransform& X_WB, btScalar breaking, PairPoints& out) {
    out.count = 0;
    // The shapes' nearest points apart (Motus's GJK), or their deepest where they touch or
    // overlap (Bullet's EPA; its whole pair detector should that fail).
    CoreNearest nearest;
    switch (nearestPolytopes(a, X_WA, b, X_WB, breaking, nearest)) {
    case CoreResult::Beyond:
        return;
    case CoreResult::Found:
        break;
    case CoreResult::Unsolved:
        if (!deepestPoints(a, X_WA, b, X_WB, nearest) &&
            !bulletNearest(a, X_WA, b, X_WB, breaking, nearest))
            return;
        break;
    }
    // B's face most along the normal clipped against the sides of A's face most against it, each
    // clipped point's distance from A's face (a point of B's face over A's face: its distance
    // from A), kept as a manifold keeps them; then the nearest point where nothing was clipped
    // (a corner over an edge) or where it lies deeper than every clipped point (an edge across
    // an edge). (A shape without its polyhedral features: the nearest point alone.)
    ManifoldSlots slots(X_WA, X_WB, breaking, out);
    const btConvexPolyhedron* pa = polyhedronOf(a);
    const btConvexPolyhedron* pb = polyhedronOf(b);
    if (pa && pb)
        clipFaces(*pa, X_WA, *pb, X_WB, nearest.normalOnB, nearest.distance - breaking, breaking,
                  slots);
    btScalar least = BT_LARGE_FLOAT;
    for (int i = 0; i < out.count; ++i) least = std::min(least, out.points[i].distance);
    const btScalar size = pa && pb ? std::min(pa->m_radius, pb->m_radius) : 0;
    if (nearest.distance <= breaking &&
        (out.count == 0 || nearest.distance < least - kDeeper * size))
        slots.addContactPoint(nearest.normalOnB, nearest.pointOnB, nearest.distance);
    slots.refresh();
}

}  // namespace engine::contact
