#pragma once
// One pair's contact points as a Bullet persistent manifold keeps a query's (four slots), for the
// narrow phase's own algorithms to hand their points over without a manifold (box_box.h,
// polyhedron_plane.h; collision_world.cpp reads them). A manifold point is 376 bytes of solver
// fields Motus does not use, written and read back for every contact of a pile; these are the
// fields Motus reads, kept by Bullet's rules, bit for bit.

#include <LinearMath/btTransform.h>

namespace engine::contact {

// One point: on A and on B in their own frames and in the world, B's normal (towards A), and
// the signed distance along it (< 0: overlapping). A is the manifold's body 0.
struct PairPoint {
    btVector3 localA, localB, worldA, worldB, normalOnB;
    btScalar distance;
};

struct PairPoints {
    PairPoint points[4];
    int count = 0;

    // btPersistentManifold::addManifoldPoint: appended while there is room; a fifth replaces
    // the point whose loss leaves the largest area, the deepest kept (sortCachedPoints with
    // Bullet's defaults: the deepest point kept, areas of three points).
    void add(const PairPoint& point) {
        const int slot = count < 4 ? count++ : replaced(point.localA, point.distance);
        points[slot] = point;
    }

    // The slot a fifth point (on A at localA, at `distance`) takes.
    int replaced(const btVector3& localA, btScalar distance) const {
        const PairPoint* c = points;
        int deepest = -1;
        btScalar deepestDistance = distance;
        for (int i = 0; i < 4; ++i)
            if (c[i].distance < deepestDistance) {
                deepest = i;
                deepestDistance = c[i].distance;
            }
        btScalar area[4] = {0, 0, 0, 0};
        auto cross2 = [](const btVector3& a, const btVector3& b) { return a.cross(b).length2(); };
        if (deepest != 0) area[0] = cross2(localA - c[1].localA, c[3].localA - c[2].localA);
        if (deepest != 1) area[1] = cross2(localA - c[0].localA, c[3].localA - c[2].localA);
        if (deepest != 2) area[2] = cross2(localA - c[0].localA, c[3].localA - c[1].localA);
        if (deepest != 3) area[3] = cross2(localA - c[0].localA, c[2].localA - c[1].localA);
        // (btVector4::closestAxis4: the first of the largest magnitudes; none: slot 0)
        int largest = -1;
        btScalar largestArea = -BT_LARGE_FLOAT;
        for (int i = 0; i < 4; ++i)
            if (btFabs(area[i]) > largestArea) {
                largest = i;
                largestArea = btFabs(area[i]);
            }
        return largest < 0 ? 0 : largest;
    }
};

}  // namespace engine::contact
