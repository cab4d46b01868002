#pragma once
// Two boxes' contact points for the narrow phase, without a persistent manifold (collision_world.cpp
// and its test only).
//
// Bullet's box–box algorithm runs ODE's detector (btBoxBoxDetector: a separating-axis test, then
// the reference face clipped against the incident one, at most four points) and hands each point
// to a btManifoldResult, which writes it into the pair's persistent manifold; the narrow phase
// then read the manifold back and emptied it. A manifold point is 376 bytes of solver fields
// Motus does not use, written and read for every contact of a pile. Here the detector's points go
// into four slots of the fields Motus reads, kept exactly as the manifold keeps them: a point
// nearer than the breaking distance to one already found (in A's frame) replaces it, a fifth
// replaces the one whose loss keeps the largest area, the deepest kept; then every point is
// moved to the boxes' current poses and dropped when apart by more than the breaking distance
// along the normal or across it (btPersistentManifold::refreshContactPoints). The points, their
// order and every bit of them are Bullet's (test: BoxBox.ThePointsAreBulletsBitForBit).

#include "engine/contact/pair_points.h"

class btBoxShape;

namespace engine::contact {

// The points of boxes A and B at poses X_WA and X_WB closer than `breaking` (the pair's
// manifold's breaking distance), as Bullet's box–box algorithm leaves them in an empty manifold
// whose body 0 is A.
void boxBoxPoints(const btBoxShape& a, const btTransform& X_WA, const btBoxShape& b,
                  const btTransform& X_WB, btScalar breaking, PairPoints& out);

}  // namespace engine::contact
