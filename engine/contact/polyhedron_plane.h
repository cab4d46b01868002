#pragma once
// Polyhedra and round primitives against a static plane, for Bullet's narrow phase
// (collision_world.cpp only).
//
// A polyhedron (box, convex hull of a mesh) touches a plane n·x = c at its vertices. Every
// vertex v closer than the manifold's breaking distance d_break is a contact point:
//
//     distance = n·v − c,   point on the plane = v − distance·n,   normal on the plane = n,
//
// reported in one query, vertex by vertex, so a face resting on the ground gets all its
// corners at once (Bullet's own convex–plane algorithm finds one supporting vertex per query and
// perturbs the pose a few times to find more: three extra support searches per pair and step,
// which may still miss a corner). Round shapes the same way at their candidate points: a ball
// its lowest point, a capsule its end spheres' lowest points, a cylinder each rim's lowest point
// and the rim points a quarter, a half and three quarters round from it (two points on its
// side, four of the bottom rim standing).

#include <cstddef>

#include "engine/contact/pair_points.h"

class btCollisionDispatcher;
class btCollisionObject;
class btCollisionShape;

namespace engine::contact {

// Registers the algorithm for boxes, convex hulls, balls, capsules and cylinders against static
// planes, both orders.
void registerPolyhedronPlane(btCollisionDispatcher& dispatcher);

// For the narrow phase, without the algorithm: the points of a whole shape object (not a
// compound's child) on a static plane closer than `breaking` (the pair's breaking distance),
// into `out` as processCollision would leave them in the pair's manifold (the shape its body 0):
// the same points, order and bits.
void polyhedronPlanePoints(const btCollisionShape& shape, const btTransform& X_WS,
                           const btCollisionShape& plane, const btTransform& X_WP,
                           btScalar breaking, PairPoints& out);

// The bytes one instance of the algorithm takes. Bullet hands collision algorithms blocks of
// its configuration's pool, each of the largest size it was told of, and writes past a block
// too small without a word: the configuration must be made with at least this
// (btDefaultCollisionConstructionInfo::m_customCollisionAlgorithmMaxElementSize).
std::size_t polyhedronPlaneAlgorithmSize();

}  // namespace engine::contact
