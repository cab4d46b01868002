#pragma once
// A cylinder's contact points with a box, a cylinder, a capsule or a sphere for the narrow
// phase, without a persistent manifold (collision_world.cpp and its test only).
//
// Bullet's convex–convex algorithm gives such a pair one point a query (GJK's nearest points,
// EPA's when they overlap), and a cylinder lying on a box, or a capsule or cylinder lying across
// a cylinder's cap, touches along a line or over a patch: with one point a query it rocked and
// crept (a cylinder laid across a box: 5 mm/s a second later; a capsule across a drum's cap:
// 2 mm/s). Here GJK's point is kept, and each flat face the pair's normal leaves by — the box's
// face, a cylinder's cap — gets the other shape's points over it: a cylinder's rim points
// nearest the face and those a quarter, a half and three quarters round from them (as on the
// ground plane, polyhedron_plane.h), the ends of its line nearest the face (a capsule's too)
// where the face's edge cuts it, a box's corners. A point of a shape over a face (within the
// face's rectangle or disc, seen along its normal) is nearest the face's plane, so each gap is
// exact, along the face's normal. GJK's point is kept beside them where it is nearer than all
// (over an edge or a rim).

#include "engine/contact/pair_points.h"

class btCollisionShape;

namespace engine::contact {

// Whether shapes a and b are a cylinder and a box, a cylinder, a capsule or a sphere (either
// order).
bool cylinderPair(const btCollisionShape& a, const btCollisionShape& b);

// The points of a cylinderPair of shapes A and B at poses X_WA and X_WB closer than `breaking`,
// A as Bullet's body 0 (at most four: a fifth replaces one as Bullet's manifold does).
void cylinderPoints(const btCollisionShape& a, const btTransform& X_WA, const btCollisionShape& b,
                    const btTransform& X_WB, btScalar breaking, PairPoints& out);

}  // namespace engine::contact
