#pragma once
// A cylinder's and a box's contact points for the narrow phase, without a persistent manifold
// (collision_world.cpp and its test only).
//
// Bullet's convex–convex algorithm gives such a pair one point a query (GJK's nearest points,
// EPA's when they overlap), and a cylinder lying on a box touches it along a line, standing on
// it over a disc: with one point a query it rocked and crept (5 mm/s a second after being laid
// across a box). Here GJK's point is kept, and the face of the box it points out of gets the
// cylinder's points over it as the ground plane does (polyhedron_plane.h: each rim's point
// nearest the face and the points a quarter, a half and three quarters round from it) where
// they lie over the face, and the ends of the cylinder's line nearest the face where the face's
// edges cut it: the point of the cylinder over the face is nearest the face's plane, so each
// such point's gap is exact, along the face's normal. GJK's point is kept beside them where it
// is nearer than all (over an edge or a corner of the box).

#include "engine/contact/pair_points.h"

class btCollisionShape;

namespace engine::contact {

// Whether shapes a and b are a cylinder and a box, in either order.
bool cylinderBoxPair(const btCollisionShape& a, const btCollisionShape& b);

// The points of a cylinderBoxPair of shapes A and B at poses X_WA and X_WB closer than
// `breaking`, A as Bullet's body 0 (at most four: a fifth replaces one as Bullet's manifold does).
void cylinderBoxPoints(const btCollisionShape& a, const btTransform& X_WA,
                       const btCollisionShape& b, const btTransform& X_WB, btScalar breaking,
                       PairPoints& out);

}  // namespace engine::contact
