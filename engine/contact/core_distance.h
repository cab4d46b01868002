#pragma once
// The nearest points of two convex shapes' cores, by GJK, for the face pairs' narrow phase
// (face_pairs.cpp, shape_pairs.h). Bullet's GJK (btGjkPairDetector with its Voronoi simplex
// solver) gives the same points but spends 400–900 ns on a cylinder pair: its simplex solver's
// bookkeeping, a virtual support function, and after it converges four more support points to
// check its normal's direction. Here the support functions of a sphere's, capsule's, box's and
// cylinder's cores are Bullet's own (the same points), called directly, and the simplex is
// reduced by the Voronoi regions of its features (Ericson, Real-Time Collision Detection, 5.1).
//
// A shape's core is the shape less its margin (Bullet's convex shapes: a sphere's core is its
// centre, a capsule's its segment, a box's and a cylinder's the shape shrunk by the margin); the
// surface is the core grown by the margin, as Bullet's GJK takes it. Cores that meet or come
// within a micrometre (Bullet's GJK then runs EPA), or a simplex that stops making progress
// without converging, are left to Bullet.

#include <LinearMath/btTransform.h>

class btCollisionShape;

namespace engine::contact {

// The nearest points of two surfaces: B's normal (unit, towards A), the point on B's surface
// and the signed distance along the normal (Bullet's GJK result).
struct CoreNearest {
    btVector3 normalOnB{0, 0, 1};
    btVector3 pointOnB{0, 0, 0};
    btScalar distance = 0;
};

enum class CoreResult {
    Found,    // out holds the nearest points (as Bullet's GJK reports them: closer than the reach
              // and both margins)
    Beyond,   // the shapes are farther apart than the reach
    Unsolved  // cores meet or too near: Bullet's GJK and EPA to find them
};

// Whether nearestCores takes a shape of Bullet's type: a sphere, capsule, box or cylinder.
bool coreShape(int type);

// The nearest points of shapes A and B (coreShape each) at poses X_WA and X_WB, for points of
// theirs within `reach` of each other.
CoreResult nearestCores(const btCollisionShape& a, const btTransform& X_WA,
                        const btCollisionShape& b, const btTransform& X_WB, btScalar reach,
                        CoreNearest& out);

// The nearest points of a convex hull (no local scaling) and a hull, a box, a sphere, a capsule
// or a cylinder at poses X_WA and X_WB, a hull and a box on their own points (a box's corners, not
// its core: no margin), the round shapes' and the cylinder's as nearestCores takes them, for
// points within `reach`; Unsolved where the cores touch or overlap (Bullet's EPA to find them). A
// hull's support point is found among its points, as Bullet's.
CoreResult nearestPolytopes(const btCollisionShape& a, const btTransform& X_WA,
                            const btCollisionShape& b, const btTransform& X_WB, btScalar reach,
                            CoreNearest& out);

// The same by Bullet's GJK (and EPA for cores that meet) as its convex–convex algorithm runs it,
// for any two convex shapes: false when it reports none (the shapes farther apart than the reach
// and both margins).
bool bulletNearest(const btCollisionShape& a, const btTransform& X_WA, const btCollisionShape& b,
                   const btTransform& X_WB, btScalar reach, CoreNearest& out);

}  // namespace engine::contact
