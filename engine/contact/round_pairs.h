#pragma once
// Contact points of round shapes — spheres and capsules, against each other and against boxes —
// found in closed form for the narrow phase, without a persistent manifold (collision_world.cpp
// and its test only).
//
// Bullet finds these pairs' points by GJK between the shapes' cores (a sphere's centre, a
// capsule's segment, a box shrunk by its margin) through a persistent manifold: about a
// microsecond a pair, one point a query. A sphere's and a capsule's core is a point or a
// segment, so the nearest points of two cores are found exactly here (a point or a segment
// against a segment, or against a box: the nearest point of a segment to a box minimises a
// convex piecewise quadratic, solved piece by piece), and the surfaces are the cores grown by
// the radii. The box is the true box (Bullet's GJK rounds its edges by the margin, 1 mm).
//
// A capsule lying along another or on a box's face touches along a line: it gets the line's two
// ends (capsules within 3° of parallel: the ends of their overlap and the nearest points if
// nearer; on a face: the segment clipped to the face), so a capsule set down flat rests on two
// points from its first step, as on the ground plane (polyhedron_plane.h).
//
// Where the cores meet (a sphere's centre inside a box, two segments crossing) the normal is
// not defined by the nearest points: the pair is left to Bullet (roundPoints answers false).

#include "engine/contact/pair_points.h"

class btCollisionShape;

namespace engine::contact {

// Whether roundPoints takes shapes a and b (by Bullet's shape types): a sphere or a capsule
// with a sphere, a capsule or a box.
bool roundPair(const btCollisionShape& a, const btCollisionShape& b);

// The points of a roundPair of shapes A and B at poses X_WA and X_WB closer than `breaking`,
// A as Bullet's body 0; false (and no points) when their cores meet: Bullet's algorithm to
// find them.
bool roundPoints(const btCollisionShape& a, const btTransform& X_WA, const btCollisionShape& b,
                 const btTransform& X_WB, btScalar breaking, PairPoints& out);

}  // namespace engine::contact
