#pragma once
// Contact points of shape pairs found without Bullet's algorithms and persistent manifolds, for
// the narrow phase (collision_world.cpp and the tests only). Bullet found these pairs' points
// by GJK through a manifold: about a microsecond a pair, one point a query — and a capsule or a
// cylinder lying along a face, touching it along a line, rocked and crept on that one point (a
// capsule laid across a box: 1 cm/s a second later; a cylinder: 5 mm/s; either across a drum's
// cap: 2 and 9 mm/s).
//
// Round pairs (round_pairs.cpp) — a sphere or capsule with a sphere, capsule or box — in closed
// form: a sphere's and a capsule's core is a point or a segment, so the nearest points of two
// cores are found exactly (a point or a segment against a segment; a segment against a box by
// minimising its convex piecewise-quadratic squared distance piece by piece) and the surfaces
// are the cores grown by the radii (the box is the true box: Bullet's GJK rounds its edges by
// its 1 mm margin). A capsule lying along another (within 3°) or on a box's face gets its line's
// two ends. Where the cores meet (a sphere's centre inside a box, two segments crossing) the
// normal is not defined by the nearest points: the pair is left to Bullet.
//
// Face pairs (face_pairs.cpp) — a cylinder with a box, cylinder, hull, capsule or sphere, a
// convex hull with a capsule or sphere: the nearest points (core_distance.h: Motus's GJK, or
// the axes' nearest points where a cylinder's side is met; Bullet's GJK with a hull), and each
// flat face the pair's normal leaves by — a box's face, a cylinder's cap, a hull's face — gets
// the other shape's points over it: a cylinder's rim points nearest the face and those a
// quarter, a half and three quarters round (as on the ground plane, polyhedron_plane.h), the
// ends of its line nearest the face (a capsule's too) where the face's edge cuts it, a sphere's
// nearest point, a box's or a hull's corners. A point of a shape over a face (within the face's
// rectangle, disc or polygon, seen along its normal) is nearest the face's plane, so each gap is
// exact, along the face's normal. The nearest points are kept beside them where nearer than all
// (over an edge or a rim).

//
// Polytope pairs (polytope_pairs.cpp) — a convex hull (a moving mesh part) with a hull or a box:
// the shapes' nearest points (Motus's GJK on their own points) or, where they touch or overlap,
// their deepest (Bullet's EPA), then the face of B most along the normal clipped against the
// face of A most against it (Bullet's btPolyhedralContactClipping, on faces through the hulls'
// own points), and the nearest point beside the clipped ones where deeper than all of them.
// Bullet's convex algorithm ran its GJK twice over both hulls' every point (a boolean test, then
// the distance) for each pair, most of a heap's pairs apart by more than the breaking distance,
// and gave shapes apart GJK's one point: a column of cubes as meshes, its cubes a little apart
// and a little into each other by turns, crept sideways.

#include "engine/contact/pair_points.h"

class btCollisionShape;
class btConvexHullShape;

namespace engine::contact {

// Whether roundPoints takes shapes a and b: a sphere or a capsule with a sphere, a capsule or a
// box.
bool roundPair(const btCollisionShape& a, const btCollisionShape& b);

// The points of a roundPair of shapes A and B at poses X_WA and X_WB closer than `breaking`, A
// as Bullet's body 0; false (and no points) when their cores meet: Bullet's algorithm to find
// them.
bool roundPoints(const btCollisionShape& a, const btTransform& X_WA, const btCollisionShape& b,
                 const btTransform& X_WB, btScalar breaking, PairPoints& out);

// Whether facePoints takes shapes a and b: a cylinder and a box, a cylinder, a hull, a capsule or
// a sphere, or a hull and a capsule or a sphere (either order).
bool facePair(const btCollisionShape& a, const btCollisionShape& b);

// The points of a facePair of shapes A and B at poses X_WA and X_WB closer than `breaking`, A
// as Bullet's body 0 (at most four: a fifth replaces one as Bullet's manifold does).
void facePoints(const btCollisionShape& a, const btTransform& X_WA, const btCollisionShape& b,
                const btTransform& X_WB, btScalar breaking, PairPoints& out);

// Gives a hull its polyhedral features (faces, their planes, edges) on its own points, the faces
// as its hull's are (Bullet's initializePolyhedralFeatures puts the faces' corners where its hull
// computer rounds them to its integer grid: a rock's faces micrometres to a tenth of a millimetre
// off its points, and its clipped points so far off each shape). False for a hull without an
// inside (its points on a plane).
bool setExactPolyhedron(btConvexHullShape& hull);

// Whether polytopePoints takes shapes a and b: a convex hull and a hull or a box (either order).
bool polytopePair(const btCollisionShape& a, const btCollisionShape& b);

// The points of a polytopePair of shapes A and B at poses X_WA and X_WB closer than `breaking`,
// A as Bullet's body 0 (at most four, kept as Bullet's manifold keeps them).
void polytopePoints(const btCollisionShape& a, const btTransform& X_WA, const btCollisionShape& b,
                    const btTransform& X_WB, btScalar breaking, PairPoints& out);

// The parameter on [a, a + d] of the segment's point nearest to the box [−h, h] (a point: 0):
// the squared distance, Σ_i max(0, |a_i + t d_i| − h_i)², is convex and quadratic between the
// parameters where the segment crosses a face's plane — each piece's minimum, the least of them.
btScalar nearestToBox(const btVector3& a, const btVector3& d, const btVector3& h);

// Whether Bullet's shape type is a sphere's or a capsule's.
bool roundShape(int type);

// The part [lo, hi] of the segment p → q (in a box's frame, half extents `half`) that lies over
// the box's faces square to `axis`, seen along it (hi < lo: none).
void clipOverBoxFace(const btVector3& p, const btVector3& q, const btVector3& half, int axis,
                     btScalar& lo, btScalar& hi);

}  // namespace engine::contact
