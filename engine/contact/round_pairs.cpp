// Round pairs (shape_pairs.h): spheres and capsules with spheres, capsules and boxes.

#include "engine/contact/shape_pairs.h"

#include <btBulletCollisionCommon.h>

#include <algorithm>
#include <array>

namespace engine::contact {
namespace {

// A round shape's core in the world: the segment [p, q] (a point for a sphere) and the radius
// the surface lies at around it.
struct Core {
    btVector3 p, q;
    btScalar radius;
};

Core coreOf(const btCollisionShape& shape, const btTransform& X_WS) {
    if (shape.getShapeType() == SPHERE_SHAPE_PROXYTYPE)
        return {X_WS.getOrigin(), X_WS.getOrigin(),
                static_cast<const btSphereShape&>(shape).getRadius()};
    const auto& capsule = static_cast<const btCapsuleShape&>(shape);
    btVector3 end(0, 0, 0);
    end[capsule.getUpAxis()] = capsule.getHalfHeight();
    return {X_WS(-end), X_WS(end), capsule.getRadius()};
}

btScalar clamp01(btScalar x) {
    return std::clamp(x, btScalar(0), btScalar(1));
}

// Cores nearer than this fraction of the radii's sum meet: the normal is left to Bullet.
constexpr btScalar kMeet = 1e-6;
// A line's nearest points are given beside its ends' when nearer than both by this fraction of
// the radii.
constexpr btScalar kNearer = 1e-5;
// Two capsules whose axes are within this sine² of parallel (3°) touch along a line.
constexpr btScalar kParallel2 = 0.0027;

// The points of A and B being found: each from the pair of nearest core points on A and on B.
class Points {
public:
    Points(const btTransform& X_WA, const btTransform& X_WB, btScalar breaking, PairPoints& out)
        : X_WA_(X_WA), X_WB_(X_WB), breaking_(breaking), out_(out) {
        out_.count = 0;
    }

    // The surfaces' points about core points cA of A and cB of B, along n (B towards A, unit),
    // |cA − cB| apart; kept when nearer than the breaking distance.
    void add(const btVector3& cA, btScalar rA, const btVector3& cB, btScalar rB, const btVector3& n,
             btScalar apart) {
        const btScalar distance = apart - rA - rB;
        if (distance > breaking_ || out_.count == 4) return;
        PairPoint& point = out_.points[out_.count++];
        point.worldA = cA - rA * n;
        point.worldB = cB + rB * n;
        point.localA = X_WA_.invXform(point.worldA);
        point.localB = X_WB_.invXform(point.worldB);
        point.normalOnB = n;
        point.distance = distance;
    }

private:
    const btTransform& X_WA_;
    const btTransform& X_WB_;
    btScalar breaking_;
    PairPoints& out_;
};

// The parameters (s on [p1, q1], t on [p2, q2]) of the nearest points of two segments (a
// segment may be a point). Ericson, Real-Time Collision Detection, 5.1.9.
std::array<btScalar, 2> nearestOfSegments(const btVector3& p1, const btVector3& q1,
                                          const btVector3& p2, const btVector3& q2) {
    const btVector3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
    const btScalar a = d1.dot(d1), e = d2.dot(d2), f = d2.dot(r);
    constexpr btScalar kTiny = 1e-30;
    if (a <= kTiny && e <= kTiny) return {0, 0};
    if (a <= kTiny) return {0, clamp01(f / e)};
    const btScalar c = d1.dot(r);
    if (e <= kTiny) return {clamp01(-c / a), 0};
    const btScalar b = d1.dot(d2), denominator = a * e - b * b;
    btScalar s = denominator > 0 ? clamp01((b * f - c * e) / denominator) : 0;
    btScalar t = (b * s + f) / e;
    if (t < 0) {
        t = 0;
        s = clamp01(-c / a);
    } else if (t > 1) {
        t = 1;
        s = clamp01((b - c) / a);
    }
    return {s, t};
}

// Two round shapes (cores A and B).
bool roundRound(const Core& A, const Core& B, Points& points) {
    const btScalar meet = kMeet * (A.radius + B.radius);
    const auto [s, t] = nearestOfSegments(A.p, A.q, B.p, B.q);
    const btVector3 cA = A.p + s * (A.q - A.p), cB = B.p + t * (B.q - B.p);
    const btScalar apart = (cA - cB).length();
    if (apart <= meet) return false;
    const btVector3 dA = A.q - A.p, dB = B.q - B.p;
    const btScalar a = dA.length2(), e = dB.length2();
    if (a > 0 && e > 0 && dA.cross(dB).length2() < kParallel2 * a * e) {
        // Nearly parallel: the ends of their overlap along A (each with B's nearest point),
        // and the nearest points where they are nearer than both ends (segments crossing).
        const btScalar u0 = (B.p - A.p).dot(dA) / a, u1 = (B.q - A.p).dot(dA) / a;
        const btScalar lo = std::max(btScalar(0), std::min(u0, u1));
        const btScalar hi = std::min(btScalar(1), std::max(u0, u1));
        if (hi > lo) {
            btVector3 ends[2][2];
            btScalar endApart[2];
            for (int k = 0; k < 2; ++k) {
                const btVector3 pA = A.p + (k == 0 ? lo : hi) * dA;
                const btVector3 pB = B.p + clamp01((pA - B.p).dot(dB) / e) * dB;
                ends[k][0] = pA;
                ends[k][1] = pB;
                endApart[k] = (pA - pB).length();
                if (endApart[k] <= meet) return false;
            }
            for (int k = 0; k < 2; ++k)
                points.add(ends[k][0], A.radius, ends[k][1], B.radius,
                           (ends[k][0] - ends[k][1]) / endApart[k], endApart[k]);
            if (apart < std::min(endApart[0], endApart[1]) - kNearer * (A.radius + B.radius))
                points.add(cA, A.radius, cB, B.radius, (cA - cB) / apart, apart);
            return true;
        }
    }
    points.add(cA, A.radius, cB, B.radius, (cA - cB) / apart, apart);
    return true;
}

// A round shape (core R) and a box of half extents h at X_WX; the box is A when boxIsA.
bool roundBox(const Core& R, const btVector3& h, const btTransform& X_WX, bool boxIsA,
              Points& points) {
    const btScalar meet = kMeet * R.radius;
    const btVector3 a = X_WX.invXform(R.p), d = X_WX.invXform(R.q) - a;
    const btScalar t = nearestToBox(a, d, h);
    const btVector3 p = a + t * d;
    const btVector3 q(std::clamp(p.x(), -h.x(), h.x()), std::clamp(p.y(), -h.y(), h.y()),
                      std::clamp(p.z(), -h.z(), h.z()));
    const btScalar apart = (p - q).length();
    if (apart <= meet) return false;
    const btMatrix3x3& R_WX = X_WX.getBasis();
    // (points given in the box's frame; the normal from the box towards the round shape)
    const auto add = [&](const btVector3& onCore, const btVector3& onBox, const btVector3& n_X,
                         btScalar distance) {
        const btVector3 n = R_WX * n_X;
        if (boxIsA)
            points.add(X_WX(onBox), 0, X_WX(onCore), R.radius, -n, distance);
        else
            points.add(X_WX(onCore), R.radius, X_WX(onBox), 0, n, distance);
    };
    if (d.length2() > 0) {
        // A capsule: its core's part over the face the nearest points leave by (the axis along
        // which they are most apart), clipped to the face's edges, is at a distance linear
        // along it from the face: each end of that part is a point (a sphere about it and the
        // face), and the nearest points too if nearer than both (over an edge or a corner).
        const btVector3 gap = p - q;
        const int face = gap.absolute().maxAxis();
        const btScalar side = gap[face] > 0 ? 1 : -1;
        btScalar lo = 0, hi = 1;
        clipOverBoxFace(a, a + d, h, face, lo, hi);
        btVector3 ends[2];
        btScalar endApart[2] = {0, 0};
        for (int k = 0; k < 2; ++k) {
            ends[k] = a + (k == 0 ? lo : hi) * d;
            endApart[k] = side * ends[k][face] - h[face];
        }
        if (hi > lo && std::min(endApart[0], endApart[1]) > meet) {
            btVector3 n_X(0, 0, 0);
            n_X[face] = side;
            for (int k = 0; k < 2; ++k) {
                btVector3 onBox = ends[k];
                onBox[face] = side * h[face];
                for (int j = 0; j < 3; ++j) onBox[j] = std::clamp(onBox[j], -h[j], h[j]);
                add(ends[k], onBox, n_X, endApart[k]);
            }
            if (apart < std::min(endApart[0], endApart[1]) - kNearer * R.radius)
                add(p, q, gap / apart, apart);
            return true;
        }
    }
    add(p, q, (p - q) / apart, apart);
    return true;
}

}  // namespace

// (shape_pairs.h)
btScalar nearestToBox(const btVector3& a, const btVector3& d, const btVector3& h) {
    std::array<btScalar, 8> cuts{};
    int n = 0;
    cuts[n++] = 0;
    for (int i = 0; i < 3; ++i) {
        if (d[i] == 0) continue;
        for (const btScalar side : {-h[i], h[i]}) {
            const btScalar t = (side - a[i]) / d[i];
            if (t > 0 && t < 1) cuts[n++] = t;
        }
    }
    cuts[n++] = 1;
    for (int k = 1; k < n; ++k)  // (at most eight: in place)
        for (int j = k; j > 0 && cuts[j] < cuts[j - 1]; --j) std::swap(cuts[j], cuts[j - 1]);
    btScalar best = 0, bestSquared = BT_LARGE_FLOAT;
    for (int k = 0; k + 1 < n; ++k) {
        const btScalar t0 = cuts[k], t1 = cuts[k + 1], middle = 0.5 * (t0 + t1);
        // On this piece each coordinate is above its face, below it, or between: the squared
        // distance Σ (c_i + t d_i)² over those outside, least at t = −Σ c_i d_i / Σ d_i².
        btScalar cd = 0, dd = 0;
        btVector3 c(0, 0, 0);
        bool outside[3] = {false, false, false};
        for (int i = 0; i < 3; ++i) {
            const btScalar x = a[i] + middle * d[i];
            if (x > h[i])
                c[i] = a[i] - h[i];
            else if (x < -h[i])
                c[i] = a[i] + h[i];
            else
                continue;
            outside[i] = true;
            cd += c[i] * d[i];
            dd += d[i] * d[i];
        }
        const btScalar t = dd > 0 ? std::clamp(-cd / dd, t0, t1) : t0;
        btScalar squared = 0;
        for (int i = 0; i < 3; ++i)
            if (outside[i]) squared += (c[i] + t * d[i]) * (c[i] + t * d[i]);
        if (squared < bestSquared) {
            bestSquared = squared;
            best = t;
        }
    }
    return best;
}

bool roundShape(int type) {
    return type == SPHERE_SHAPE_PROXYTYPE || type == CAPSULE_SHAPE_PROXYTYPE;
}

bool roundPair(const btCollisionShape& a, const btCollisionShape& b) {
    const int ta = a.getShapeType(), tb = b.getShapeType();
    return (roundShape(ta) && (roundShape(tb) || tb == BOX_SHAPE_PROXYTYPE)) ||
           (roundShape(tb) && ta == BOX_SHAPE_PROXYTYPE);
}

bool roundPoints(const btCollisionShape& a, const btTransform& X_WA, const btCollisionShape& b,
                 const btTransform& X_WB, btScalar breaking, PairPoints& out) {
    Points points(X_WA, X_WB, breaking, out);
    bool found = false;
    if (a.getShapeType() == BOX_SHAPE_PROXYTYPE)
        found =
            roundBox(coreOf(b, X_WB), static_cast<const btBoxShape&>(a).getHalfExtentsWithMargin(),
                     X_WA, true, points);
    else if (b.getShapeType() == BOX_SHAPE_PROXYTYPE)
        found =
            roundBox(coreOf(a, X_WA), static_cast<const btBoxShape&>(b).getHalfExtentsWithMargin(),
                     X_WB, false, points);
    else
        found = roundRound(coreOf(a, X_WA), coreOf(b, X_WB), points);
    if (!found) out.count = 0;
    return found;
}

}  // namespace engine::contact
