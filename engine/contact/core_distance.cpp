// The nearest points of two convex cores by GJK (core_distance.h).

#include "engine/contact/core_distance.h"

#include "engine/contact/shape_pairs.h"

#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>
#include <btBulletCollisionCommon.h>

#include <BulletCollision/CollisionShapes/btConvexHullShape.h>

#include <algorithm>

namespace engine::contact {
namespace {

// GJK stops when the support point along −v brings v no nearer than this fraction of |v|²
// (Bullet's REL_ERROR2 in double precision: the same points as its GJK, to rounding).
constexpr btScalar kRelative = 1e-12;
// Cores nearer than this squared distance [m²] are left to Bullet's GJK and EPA (its own
// threshold for the penetration solver).
constexpr btScalar kTouching = 1e-12;
constexpr int kMaxIterations = 64;
// Directions within this sine of square to an axis, a face, an edge or a side are taken as square
// to it (besideSides, Core::lowestNear): the points so found are nearest to within this fraction
// of the shapes' size (1e-10 m on a 10 cm part).
constexpr btScalar kSquare = 1e-9;
// The most Newton steps along a cylinder's rim to the point nearest a box (besideRim).
constexpr int kRimSteps = 10;

// A shape's core in its own frame, and its support point along a direction (Bullet's
// localGetSupportVertexWithoutMarginNonVirtual, point for point).
struct Core {
    enum class Kind { Point, Segment, Box, Cylinder, Hull } kind = Kind::Point;
    btVector3 half{0, 0, 0};  // (box: half extents; segment, cylinder: see support)
    int up = 1;
    int across = 0, other = 2;  // (a cylinder's radial axes)
    btScalar margin = 0;
    // (a hull's points)
    const btVector3* points = nullptr;
    int count = 0;

    // A hull's point farthest along d (its first, of several).
    btVector3 farthest(const btVector3& d) const {
        int at = 0;
        btScalar best = points[0].dot(d);
        for (int i = 1; i < count; ++i) {
            const btScalar s = points[i].dot(d);
            if (s > best) {
                best = s;
                at = i;
            }
        }
        return points[at];
    }

    // Of the core's points farthest along d (a face, an edge or a side's line when d is square
    // to it, within kSquare), the one nearest the line through c along d: where a box lies flat
    // on a cylinder's cap, a capsule or a cylinder across it, the point over the cap.
    btVector3 lowestNear(const btVector3& d, const btVector3& c) const;

    btVector3 support(const btVector3& d) const {
        switch (kind) {
        case Kind::Point:
            return {0, 0, 0};
        case Kind::Segment: {
            btVector3 p(0, 0, 0);
            p[up] = d[up] < 0 ? -half[up] : half[up];
            return p;
        }
        case Kind::Box:
            return {d.x() >= 0 ? half.x() : -half.x(), d.y() >= 0 ? half.y() : -half.y(),
                    d.z() >= 0 ? half.z() : -half.z()};
        case Kind::Cylinder: {
            btVector3 p;
            const btScalar radius = half[across];
            const btScalar s = btSqrt(d[across] * d[across] + d[other] * d[other]);
            if (s != 0) {
                const btScalar k = radius / s;
                p[across] = d[across] * k;
                p[other] = d[other] * k;
            } else {
                p[across] = radius;
                p[other] = 0;
            }
            p[up] = d[up] < 0 ? -half[up] : half[up];
            return p;
        }
        case Kind::Hull:
            return farthest(d);
        }
        return {0, 0, 0};
    }
};

btVector3 Core::lowestNear(const btVector3& d, const btVector3& c) const {
    const btScalar flat = kSquare * d.length();
    switch (kind) {
    case Kind::Point:
    case Kind::Hull:  // (any of a face's points square to d: the caller takes each alike)
        return support(d);
    case Kind::Segment: {
        if (btFabs(d[up]) > flat) return support(d);
        btVector3 p(0, 0, 0);
        p[up] = btClamped(c[up], -half[up], half[up]);
        return p;
    }
    case Kind::Box: {
        btVector3 p;
        for (int i = 0; i < 3; ++i)
            p[i] = btFabs(d[i]) <= flat ? btClamped(c[i], -half[i], half[i])
                                        : (d[i] >= 0 ? half[i] : -half[i]);
        return p;
    }
    case Kind::Cylinder: {
        const btScalar radius = half[across];
        const btScalar s = btSqrt(d[across] * d[across] + d[other] * d[other]);
        if (btFabs(d[up]) <= flat && s > 0) {  // (its side's line along d)
            btVector3 p = support(d);
            p[up] = btClamped(c[up], -half[up], half[up]);
            return p;
        }
        if (s <= flat) {  // (its cap, square to d)
            btVector3 p(0, 0, 0);
            p[up] = d[up] < 0 ? -half[up] : half[up];
            const btScalar r = btSqrt(c[across] * c[across] + c[other] * c[other]);
            const btScalar k = r > radius ? radius / r : 1;
            p[across] = k * c[across];
            p[other] = k * c[other];
            return p;
        }
        return support(d);
    }
    }
    return support(d);
}

// (`own`: a box's or a hull's own points, without margin, not its core)
bool coreOf(const btCollisionShape& shape, Core& core, bool own = false) {
    const auto& convex = static_cast<const btConvexShape&>(shape);
    switch (shape.getShapeType()) {
    case SPHERE_SHAPE_PROXYTYPE:
        core.kind = Core::Kind::Point;
        break;
    case CAPSULE_SHAPE_PROXYTYPE: {
        const auto& capsule = static_cast<const btCapsuleShape&>(shape);
        core.kind = Core::Kind::Segment;
        core.up = capsule.getUpAxis();
        core.half = btVector3(0, 0, 0);
        core.half[core.up] = capsule.getHalfHeight();
        break;
    }
    case BOX_SHAPE_PROXYTYPE:
        core.kind = Core::Kind::Box;
        if (own) {
            core.half = static_cast<const btBoxShape&>(shape).getHalfExtentsWithMargin();
            core.margin = 0;
            return true;
        }
        core.half = static_cast<const btBoxShape&>(shape).getImplicitShapeDimensions();
        break;
    case CYLINDER_SHAPE_PROXYTYPE: {
        const auto& cylinder = static_cast<const btCylinderShape&>(shape);
        core.kind = Core::Kind::Cylinder;
        core.half = cylinder.getImplicitShapeDimensions();
        core.up = cylinder.getUpAxis();
        // (Bullet's mapping of the radius onto the half extents: XX, ZZ of its support)
        core.across = core.up == 0 ? 1 : 0;
        core.other = core.up == 2 ? 1 : 2;
        break;
    }
    case CONVEX_HULL_SHAPE_PROXYTYPE: {
        // (its own points, for polytope pairs only)
        const auto& hull = static_cast<const btConvexHullShape&>(shape);
        if (!own || hull.getLocalScalingNV() != btVector3(1, 1, 1) || hull.getNumPoints() < 1)
            return false;
        core.kind = Core::Kind::Hull;
        core.points = hull.getUnscaledPoints();
        core.count = hull.getNumPoints();
        core.margin = 0;
        return true;
    }
    default:
        return false;
    }
    core.margin = convex.getMarginNonVirtual();
    return true;
}

// The simplex: its points w = a − b of the Minkowski difference, with a on A and b on B.
struct Simplex {
    btVector3 w[4], a[4], b[4];
    btScalar weight[4];  // (barycentric, of the nearest point)
    int n = 0;

    // (the indices ascending: each point moved down in place)
    void keep(const int* index, const btScalar* lambda, int count) {
        for (int i = 0; i < count; ++i) {
            if (index[i] != i) {
                w[i] = w[index[i]];
                a[i] = a[index[i]];
                b[i] = b[index[i]];
            }
            weight[i] = lambda[i];
        }
        n = count;
    }
};

// The nearest point to the origin of a feature of the simplex (indices `in`, count 1–3), as the
// indices of the sub-feature that holds it and their weights.
struct Feature {
    int index[3];
    btScalar lambda[3];
    int count = 0;
    btVector3 point;
};

Feature onSegment(const btVector3* w, int i, int j) {
    Feature f;
    const btVector3 d = w[j] - w[i];
    const btScalar dd = d.length2();
    const btScalar t = dd > 0 ? -w[i].dot(d) / dd : 0;
    if (t <= 0) {
        f.index[0] = i;
        f.lambda[0] = 1;
        f.count = 1;
        f.point = w[i];
    } else if (t >= 1) {
        f.index[0] = j;
        f.lambda[0] = 1;
        f.count = 1;
        f.point = w[j];
    } else {
        f.index[0] = i;
        f.index[1] = j;
        f.lambda[0] = 1 - t;
        f.lambda[1] = t;
        f.count = 2;
        f.point = w[i] + t * d;
    }
    return f;
}

// (Ericson's closest point of a triangle, its Voronoi regions in turn; a triangle without area:
// the nearest of its edges)
Feature onTriangle(const btVector3* w, int i, int j, int k) {
    const btVector3& a = w[i];
    const btVector3& b = w[j];
    const btVector3& c = w[k];
    const btVector3 ab = b - a, ac = c - a;
    Feature f;
    const auto vertex = [&](int v) {
        f.index[0] = v;
        f.lambda[0] = 1;
        f.count = 1;
        f.point = w[v];
        return f;
    };
    const auto edge = [&](int p, int q, btScalar t) {
        f.index[0] = p;
        f.index[1] = q;
        f.lambda[0] = 1 - t;
        f.lambda[1] = t;
        f.count = 2;
        f.point = w[p] + t * (w[q] - w[p]);
        return f;
    };
    const btScalar d1 = -ab.dot(a), d2 = -ac.dot(a);
    if (d1 <= 0 && d2 <= 0) return vertex(i);
    const btScalar d3 = -ab.dot(b), d4 = -ac.dot(b);
    if (d3 >= 0 && d4 <= d3) return vertex(j);
    const btScalar vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) return edge(i, j, d1 / (d1 - d3));
    const btScalar d5 = -ab.dot(c), d6 = -ac.dot(c);
    if (d6 >= 0 && d5 <= d6) return vertex(k);
    const btScalar vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) return edge(i, k, d2 / (d2 - d6));
    const btScalar va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
        return edge(j, k, (d4 - d3) / ((d4 - d3) + (d5 - d6)));
    const btScalar sum = va + vb + vc;
    if (!(sum > 0)) {
        Feature best = onSegment(w, i, j);
        for (const Feature& e : {onSegment(w, i, k), onSegment(w, j, k)})
            if (e.point.length2() < best.point.length2()) best = e;
        return best;
    }
    const btScalar v = vb / sum, u = vc / sum;
    f.index[0] = i;
    f.index[1] = j;
    f.index[2] = k;
    f.lambda[0] = 1 - v - u;
    f.lambda[1] = v;
    f.lambda[2] = u;
    f.count = 3;
    f.point = a + v * ab + u * ac;
    return f;
}

// The feature of the simplex nearest the origin (its points' indices and weights, the point);
// false: the origin lies inside the tetrahedron (the cores meet).
bool nearestFeature(const Simplex& s, Feature& f) {
    switch (s.n) {
    case 1:
        f.index[0] = 0;
        f.lambda[0] = 1;
        f.count = 1;
        f.point = s.w[0];
        return true;
    case 2:
        f = onSegment(s.w, 0, 1);
        return true;
    case 3:
        f = onTriangle(s.w, 0, 1, 2);
        return true;
    default: {
        // Each face the origin lies outside of (across its plane from the fourth point); a flat
        // tetrahedron: every face.
        static constexpr int kFaces[4][4] = {
            {0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0}};
        const btVector3* w = s.w;
        const btScalar volume = (w[1] - w[0]).dot((w[2] - w[0]).cross(w[3] - w[0]));
        const btScalar scale =
            (w[1] - w[0]).length() * (w[2] - w[0]).length() * (w[3] - w[0]).length();
        const bool flat = !(btFabs(volume) > 1e-12 * scale);
        bool outside = false;
        btScalar best = BT_LARGE_FLOAT;
        for (const auto& face : kFaces) {
            const btVector3& p = w[face[0]];
            const btVector3 normal = (w[face[1]] - p).cross(w[face[2]] - p);
            const btScalar origin = -p.dot(normal), opposite = (w[face[3]] - p).dot(normal);
            if (!flat && !(origin * opposite < 0)) continue;
            outside = true;
            const Feature g = onTriangle(w, face[0], face[1], face[2]);
            const btScalar d = g.point.length2();
            if (d < best) {
                best = d;
                f = g;
            }
        }
        return outside;
    }
    }
}

// GJK on the cores (B's at R, o in A's frame), from direction `start` (A − B): their nearest
// points onA, onB in A's frame
// (Found), cores apart by more than sqrt(reach2) (Beyond), or cores that meet, come nearer than
// kTouching, or a simplex that does not converge (Unsolved).
CoreResult gjk(const Core& A, const Core& B, const btMatrix3x3& R, const btVector3& o,
               const btVector3& start, btScalar reach2, btVector3& onA, btVector3& onB) {
    Simplex s;
    // (the first direction: from B towards A, `start`)
    btVector3 v = start;
    btScalar vv = v.length2();
    if (!(vv > kTouching)) return CoreResult::Unsolved;
    bool converged = false;
    bool fromSimplex = false;  // (v is the simplex's nearest point, not the start)
    for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
        const btVector3 pa = A.support(-v);
        const btVector3 pb = R * B.support(v * R) + o;
        const btVector3 w = pa - pb;
        const btScalar vw = v.dot(w);
        // (the cores apart by more than the reach along v)
        if (vw > 0 && vw * vw > vv * reach2) return CoreResult::Beyond;
        if (s.n > 0) {
            bool seen = false;
            for (int i = 0; i < s.n && !seen; ++i) seen = s.w[i] == w;
            if (seen || vv - vw <= kRelative * vv) {
                converged = true;
                break;
            }
        }
        s.w[s.n] = w;
        s.a[s.n] = pa;
        s.b[s.n] = pb;
        ++s.n;
        Feature f;
        if (!nearestFeature(s, f)) return CoreResult::Unsolved;
        const btScalar nn = f.point.length2();
        if (!(nn > kTouching)) return CoreResult::Unsolved;
        // No nearer than the simplex before (which is a face of this one): as near as rounding
        // lets it come (a thin triangle's point, along a rim lying on a face). The simplex
        // before stands.
        if (fromSimplex && nn >= vv) {
            --s.n;
            converged = true;
            break;
        }
        s.keep(f.index, f.lambda, f.count);
        v = f.point;
        vv = nn;
        fromSimplex = true;
    }
    if (!converged || s.n == 0) return CoreResult::Unsolved;
    onA = onB = btVector3(0, 0, 0);
    for (int i = 0; i < s.n; ++i) {
        onA += s.weight[i] * s.a[i];
        onB += s.weight[i] * s.b[i];
    }
    return CoreResult::Found;
}

// The nearest points of two cores, one a cylinder's and the other a point, a segment, a box or
// a cylinder, where the cylinders are met on their sides (onA, onB in A's frame; B's core at R,
// o): every point of a cylinder lies within its radius of its axis, so no points are nearer than
// the axis's nearest points to the other (its axis, segment, point or box) less the radii; and
// those are met where the gap between them is square to the axis (inside its length, or at an
// end when the other lies along it: a cylinder lying on a box). False: GJK's to find (a rim or
// a cap the nearest, or the cores meet).
bool besideSides(const Core& A, const Core& B, const btMatrix3x3& R, const btVector3& o,
                 btVector3& onA, btVector3& onB, btVector3& start) {
    if (A.kind == Core::Kind::Hull || B.kind == Core::Kind::Hull) return false;
    // (a core's segment in A's frame, p → q, a point's of length 0, and the radius about it)
    const auto lineOf = [&](const Core& core, bool isB, btVector3& p, btVector3& q,
                            btScalar& radius) {
        p = q = btVector3(0, 0, 0);
        radius = 0;
        if (core.kind == Core::Kind::Segment || core.kind == Core::Kind::Cylinder) {
            p[core.up] = -core.half[core.up];
            q[core.up] = core.half[core.up];
        }
        if (core.kind == Core::Kind::Cylinder) radius = core.half[core.across];
        if (isB) {
            p = R * p + o;
            q = R * q + o;
        }
    };
    btVector3 p1, q1, p2, q2;
    btScalar r1, r2;
    lineOf(A, false, p1, q1, r1);
    lineOf(B, true, p2, q2, r2);
    btVector3 c1, c2;  // (the nearest points of the lines, or of a line and the box)
    if (A.kind == Core::Kind::Box || B.kind == Core::Kind::Box) {
        if (A.kind == B.kind || (r1 == 0 && r2 == 0)) return false;
        // (in the box's frame: the box A's at the origin, or B's at R, o)
        const bool boxIsA = A.kind == Core::Kind::Box;
        const btVector3& h = boxIsA ? A.half : B.half;
        const btVector3 p = boxIsA ? p2 : (p1 - o) * R;
        const btVector3 d = boxIsA ? q2 - p2 : (q1 - p1) * R;
        const btVector3 onLine = p + nearestToBox(p, d, h) * d;
        const btVector3 onBox(btClamped(onLine.x(), -h.x(), h.x()),
                              btClamped(onLine.y(), -h.y(), h.y()),
                              btClamped(onLine.z(), -h.z(), h.z()));
        c1 = boxIsA ? onBox : R * onLine + o;
        c2 = boxIsA ? onLine : R * onBox + o;
    } else {
        if (r1 == 0 && r2 == 0) return false;
        // (Ericson, Real-Time Collision Detection 5.1.9: segments p1 → q1, p2 → q2 at s and t)
        const btVector3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
        const btScalar a = d1.length2(), e = d2.length2(), f = d2.dot(r);
        btScalar s = 0, t = 0;
        if (a == 0) {
            t = e > 0 ? btClamped(f / e, btScalar(0), btScalar(1)) : 0;
        } else {
            const btScalar c = d1.dot(r);
            if (e == 0) {
                s = btClamped(-c / a, btScalar(0), btScalar(1));
            } else {
                const btScalar b = d1.dot(d2), denominator = a * e - b * b;
                s = denominator > 0
                        ? btClamped((b * f - c * e) / denominator, btScalar(0), btScalar(1))
                        : 0;
                t = (b * s + f) / e;
                if (t < 0) {
                    t = 0;
                    s = btClamped(-c / a, btScalar(0), btScalar(1));
                } else if (t > 1) {
                    t = 1;
                    s = btClamped((b - c) / a, btScalar(0), btScalar(1));
                }
            }
        }
        c1 = p1 + s * d1;
        c2 = p2 + t * d2;
    }
    const btVector3 gap = c2 - c1;
    const btScalar d = gap.length();
    if (!(d - r1 - r2 > btSqrt(kTouching))) return false;  // (cores that meet: GJK's and EPA's)
    start = -gap;  // (for GJK: the lines' gap, nearer the answer than the centres' difference)
    const btVector3 u = gap / d;
    // (square to each cylinder's axis)
    if (r1 > 0 && btFabs(u.dot(q1 - p1)) > kSquare * (q1 - p1).length()) return false;
    if (r2 > 0 && btFabs(u.dot(q2 - p2)) > kSquare * (q2 - p2).length()) return false;
    onA = c1 + r1 * u;
    onB = c2 - r2 * u;
    return true;
}

// The nearest points of a cylinder's core and another core (onA, onB in A's frame; B's core at
// R, o) where the other lies wholly beyond one of the cylinder's caps and its point nearest the
// cap (its support point along the axis, towards the cylinder) lies over the cap: every point
// of the cylinder lies below the cap's plane and every point of the other above that point, so
// none are nearer than it and the cap's point under it. False: GJK's to find.
bool besideCap(const Core& A, const Core& B, const btMatrix3x3& R, const btVector3& o,
               btVector3& onA, btVector3& onB) {
    for (int owner = 0; owner < 2; ++owner) {
        const Core& C = owner == 0 ? A : B;
        if (C.kind != Core::Kind::Cylinder) continue;
        // (the cylinder's axis and centre in A's frame, and the other's support point)
        btVector3 axis(0, 0, 0);
        axis[C.up] = 1;
        btVector3 centre(0, 0, 0);
        if (owner == 1) {
            axis = R * axis;
            centre = o;
        }
        // (the other's point farthest along d nearest the cylinder's axis: lowestNear)
        const auto other = [&](const btVector3& d) {
            return owner == 0 ? R * B.lowestNear(d * R, (centre - o) * R) + o
                              : A.lowestNear(d, centre);
        };
        const btScalar half = C.half[C.up], radius = C.half[C.across];
        for (const btScalar side : {btScalar(1), btScalar(-1)}) {
            const btVector3 n = side * axis;  // (the cap's outward normal)
            const btVector3 e = other(-n);
            const btVector3 local = e - centre;
            const btScalar height = local.dot(n) - half;
            if (!(height > btSqrt(kTouching))) continue;
            const btVector3 across = local - local.dot(n) * n;
            if (across.length2() > radius * radius) break;  // (beyond the cap's rim)
            const btVector3 onCap = centre + across + half * n;
            onA = owner == 0 ? onCap : e;
            onB = owner == 0 ? e : onCap;
            return true;
        }
    }
    return false;
}

// The point of segment p → p + d (in cylinder C's frame) nearest C's rim at height `cap`, at
// p + t·d: the distance from the segment's point at t to the rim's circle is closed form,
// g(t) = (h(t) − cap)² + (ρ(t) − radius)² with h the height along the axis and ρ the distance
// from it, and its minimum over t is found by Newton's method (safeguarded to the segment),
// from the segment's point in the rim's plane. False: the segment meets the axis there (every
// rim point alike).
bool segmentNearRim(const Core& C, const btVector3& p, const btVector3& d, btScalar cap,
                    btScalar& t) {
    const int up = C.up, i = C.across, j = C.other;
    const btScalar radius = C.half[i];
    const btScalar dd = d[i] * d[i] + d[j] * d[j];
    t = 0;
    if (!(dd > 0)) {
        // (a point; or a segment along the axis: its point level with the rim)
        if (d[up] != 0) t = btClamped((cap - p[up]) / d[up], btScalar(0), btScalar(1));
        return true;
    }
    t = d[up] != 0 ? btClamped((cap - p[up]) / d[up], btScalar(0), btScalar(1)) : 0.5;
    for (int k = 0; k < 16; ++k) {
        const btScalar wi = p[i] + t * d[i], wj = p[j] + t * d[j];
        const btScalar rho = btSqrt(wi * wi + wj * wj);
        if (!(rho > kSquare * radius)) return false;
        // (half of g′ and g″: ρ′ = wd, ρ″ = (dd − wd²)/ρ)
        const btScalar wd = (wi * d[i] + wj * d[j]) / rho;
        const btScalar first = (p[up] + t * d[up] - cap) * d[up] + (rho - radius) * wd;
        const btScalar second = d[up] * d[up] + wd * wd + (rho - radius) * (dd - wd * wd) / rho;
        btScalar next = second > 0 ? t - first / second : (first > 0 ? 0 : 1);
        next = btClamped(next, btScalar(0), btScalar(1));
        const btScalar step = btFabs(next - t);
        t = next;
        if (step <= 1e-14) break;  // (quadratic: the point to rounding)
    }
    return true;
}

// The point of cylinder C's rim at height `cap` nearest x (in C's frame), out from the axis
// towards it; false for x no farther from the axis than the rim (over the cap, not the rim's).
bool rimPointNear(const Core& C, const btVector3& x, btScalar cap, btVector3& onRim) {
    const int i = C.across, j = C.other;
    const btScalar radius = C.half[i];
    const btScalar rho = btSqrt(x[i] * x[i] + x[j] * x[j]);
    if (!(rho > radius)) return false;
    onRim[i] = x[i] * (radius / rho);
    onRim[j] = x[j] * (radius / rho);
    onRim[C.up] = cap;
    return true;
}

// GJK's test of two points, onA on A's core and onB on B's (in A's frame; B's core at R, o):
// no nearer points exist when the cores' support points along their gap v = onA − onB lie
// within kRelative·|v|² of them (then no point of either lies nearer the other along v).
bool nearestSoFar(const Core& A, const Core& B, const btMatrix3x3& R, const btVector3& o,
                  const btVector3& onA, const btVector3& onB) {
    const btVector3 v = onA - onB;
    const btScalar vv = v.length2();
    if (!(vv > kTouching)) return false;
    const btVector3 w = A.support(-v) - (R * B.support(v * R) + o);
    return vv - v.dot(w) <= kRelative * vv;
}

// The nearest points of a cylinder's rim and a point, a segment or a box (the other core: onA,
// onB in A's frame; B's core at R, o), where the side and the caps did not hold them
// (besideSides, besideCap): a capsule lying across a drum's rim, a ball on its edge, a cube
// leaning on it. A point's or a segment's are found along the segment (segmentNearRim); a box's
// along the rim, by Newton's method on the rim's angle. The points so found are kept only when
// GJK's test certifies them (nearestSoFar): GJK's to find otherwise. GJK converges slowly
// there, the rim being curved: 1–3 µs a pair, against 0.1–0.3 here.
bool besideRim(const Core& A, const Core& B, const btMatrix3x3& R, const btVector3& o,
               btVector3& onA, btVector3& onB) {
    const bool cylinderIsA = A.kind == Core::Kind::Cylinder;
    const Core& C = cylinderIsA ? A : B;
    const Core& S = cylinderIsA ? B : A;
    if (C.kind != Core::Kind::Cylinder || S.kind == Core::Kind::Cylinder ||
        S.kind == Core::Kind::Hull)
        return false;
    // The other's frame in the cylinder's: x_C = Q x_S + c.
    const btMatrix3x3 Q = cylinderIsA ? R : R.transpose();
    const btVector3 c = cylinderIsA ? o : -(o * R);
    const btScalar half = C.half[C.up];
    const btScalar cap = c[C.up] >= 0 ? half : -half;
    btVector3 onC, onS;
    if (S.kind != Core::Kind::Box) {
        // (its segment p → p + d, of length 0 for a point)
        btVector3 p = c, d(0, 0, 0);
        if (S.kind == Core::Kind::Segment) {
            const btVector3 axis = Q.getColumn(S.up);
            p = c - S.half[S.up] * axis;
            d = 2 * S.half[S.up] * axis;
        }
        btScalar t;
        if (!segmentNearRim(C, p, d, cap, t)) return false;
        onS = p + t * d;
        if (!rimPointNear(C, onS, cap, onC)) return false;
    } else {
        // Newton's method along the rim: f = |g|², g = C − P from the box's point P nearest the
        // rim's point C (clamped in the box's frame: a vertex, an edge or a face, on which P
        // moves with C by the part of C′ along that feature), C = radius·u + cap·axis for a unit
        // u square to the axis, turned by each step's angle (u ← u + δ u⊥, made unit again).
        // From the rim's point out towards the box's centre (which may lie over the cap: a cube
        // leaning on the rim from above).
        const int i = C.across, j = C.other, up = C.up;
        const btScalar radius = C.half[i];
        btScalar ui = c[i], uj = c[j];
        const btScalar out = btSqrt(ui * ui + uj * uj);
        if (!(out > kSquare * radius)) return false;
        ui /= out;
        uj /= out;
        const btVector3& h = S.half;
        bool converged = false;
        btScalar last = 0;  // (the step before)
        for (int step = 0; step < kRimSteps && !converged; ++step) {
            onC[i] = radius * ui;
            onC[j] = radius * uj;
            onC[up] = cap;
            btVector3 along(0, 0, 0);  // C′
            along[i] = -radius * uj;
            along[j] = radius * ui;
            const btVector3 x = (onC - c) * Q;  // (in the box's frame)
            btVector3 q, moves = along * Q;     // (P′ in the box's frame: C′ along free axes)
            bool inside = true;
            for (int k = 0; k < 3; ++k) {
                q[k] = btClamped(x[k], -h[k], h[k]);
                if (q[k] != x[k]) {
                    inside = false;
                    moves[k] = 0;
                }
            }
            if (inside) return false;  // (the rim's point in the box: the cores meet)
            onS = Q * q + c;
            const btVector3 g = onC - onS;
            btVector3 radial(0, 0, 0);  // (−C″)
            radial[i] = radius * ui;
            radial[j] = radius * uj;
            // (half of f′ and f″)
            const btScalar first = g.dot(along);
            const btScalar second = (along - Q * moves).dot(along) - g.dot(radial);
            btScalar change = second > 0 ? -first / second : (first > 0 ? -0.25 : 0.25);
            change = btClamped(change, btScalar(-0.5), btScalar(0.5));
            // (a step back across a kink of f″, where a feature gives way to another, no shorter
            // than half the one before: Newton's steps would go to and fro; half of it)
            if (change * last < 0 && btFabs(change) > 0.5 * btFabs(last)) change *= 0.5;
            last = change;
            converged = btFabs(change) <= 1e-13;
            if (converged) break;
            const btScalar ti = ui - change * uj, tj = uj + change * ui;
            const btScalar length = btSqrt(ti * ti + tj * tj);
            ui = ti / length;
            uj = tj / length;
        }
        if (!converged) return false;
    }
    onA = cylinderIsA ? onC : R * onS + o;
    onB = cylinderIsA ? onS : R * onC + o;
    return nearestSoFar(A, B, R, o, onA, onB);
}

}  // namespace

bool coreShape(int type) {
    return type == SPHERE_SHAPE_PROXYTYPE || type == CAPSULE_SHAPE_PROXYTYPE ||
           type == BOX_SHAPE_PROXYTYPE || type == CYLINDER_SHAPE_PROXYTYPE;
}

namespace {

CoreResult nearest(const btCollisionShape& a, const btTransform& X_WA, const btCollisionShape& b,
                   const btTransform& X_WB, btScalar reach, bool own, CoreNearest& out) {
    Core A, B;
    if (!coreOf(a, A, own) || !coreOf(b, B, own)) return CoreResult::Unsolved;
    // In A's frame: B's core at X_AB.
    const btTransform X_AB = X_WA.inverseTimes(X_WB);
    const btMatrix3x3& R = X_AB.getBasis();
    const btVector3& o = X_AB.getOrigin();
    // Bullet's GJK reports surfaces nearer than the reach and both margins, cores nearer than
    // that and the margins again. (A box's or a cylinder's surface is its core grown by the
    // margin, its edges rounded: the shape's own points lie no farther out than that, so a pair
    // with points within the reach is reported.)
    const btScalar reported = reach + A.margin + B.margin;
    const btScalar coreReach = reported + A.margin + B.margin;
    // Most pairs whose padded boxes overlap do not touch: those apart by more than the reach
    // along the line of their centres, found so by one support point each (GJK's first step),
    // are not looked at further.
    const btScalar oo = o.length2();
    if (oo > 0) {
        const btVector3 w = A.support(o) - (R * B.support(-o * R) + o);
        const btScalar vw = -o.dot(w);
        if (vw > 0 && vw * vw > oo * coreReach * coreReach) return CoreResult::Beyond;
    }
    btVector3 onA, onB;
    btVector3 start = -o;  // (the centres' difference: A − B)
    if (!besideSides(A, B, R, o, onA, onB, start) && !besideCap(A, B, R, o, onA, onB) &&
        !besideRim(A, B, R, o, onA, onB)) {
        const CoreResult found = gjk(A, B, R, o, start, coreReach * coreReach, onA, onB);
        if (found != CoreResult::Found) return found;
    }
    const btVector3 gap = onA - onB;
    const btScalar length = gap.length();
    if (!(length * length > kTouching)) return CoreResult::Unsolved;
    const btVector3 n_A = gap / length;  // (B's normal towards A, in A's frame)
    out.normalOnB = X_WA.getBasis() * n_A;
    out.pointOnB = X_WA(onB + B.margin * n_A);
    out.distance = length - A.margin - B.margin;
    return out.distance < reported ? CoreResult::Found : CoreResult::Beyond;
}

}  // namespace

CoreResult nearestCores(const btCollisionShape& a, const btTransform& X_WA,
                        const btCollisionShape& b, const btTransform& X_WB, btScalar reach,
                        CoreNearest& out) {
    return nearest(a, X_WA, b, X_WB, reach, false, out);
}

CoreResult nearestPolytopes(const btCollisionShape& a, const btTransform& X_WA,
                            const btCollisionShape& b, const btTransform& X_WB, btScalar reach,
                            CoreNearest& out) {
    return nearest(a, X_WA, b, X_WB, reach, true, out);
}

bool bulletNearest(const btCollisionShape& a, const btTransform& X_WA, const btCollisionShape& b,
                   const btTransform& X_WB, btScalar reach, CoreNearest& out) {
    // (GJK's or EPA's one point: B's normal towards A, the point on B, the signed distance)
    struct Result final : btDiscreteCollisionDetectorInterface::Result {
        CoreNearest& out;
        bool found = false;
        explicit Result(CoreNearest& nearest) : out(nearest) {}
        void setShapeIdentifiersA(int, int) override {}
        void setShapeIdentifiersB(int, int) override {}
        void addContactPoint(const btVector3& n, const btVector3& p, btScalar depth) override {
            out.normalOnB = n;
            out.pointOnB = p;
            out.distance = depth;
            found = true;
        }
    } result(out);
    const auto& convexA = static_cast<const btConvexShape&>(a);
    const auto& convexB = static_cast<const btConvexShape&>(b);
    btVoronoiSimplexSolver simplex;
    btGjkEpaPenetrationDepthSolver epa;
    btGjkPairDetector gjk(&convexA, &convexB, &simplex, &epa);
    btGjkPairDetector::ClosestPointInput input;
    input.m_transformA = X_WA;
    input.m_transformB = X_WB;
    const btScalar r = convexA.getMargin() + convexB.getMargin() + reach;
    input.m_maximumDistanceSquared = r * r;
    gjk.getClosestPoints(input, result, nullptr);
    return result.found;
}

}  // namespace engine::contact
