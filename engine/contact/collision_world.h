#pragma once
// Collision detection for the parts of a scene, through Bullet (collision only: no Bullet
// dynamics, no Bullet constraint solver). This header keeps Bullet out of its users.
//
// Each part with geometry becomes one collision object (its shape, or a compound of its
// shapes, in the part frame P). Parts that may not touch (ContactModel::mayTouch: switched
// off, group/mask, joined by a joint, pair entry) are filtered before the narrow phase.
// Before a query the caller sets every part pose X_WP; findContacts() returns the contact
// points with the normal n_AB_W pointing from part A to part B and depth > 0 when the two
// overlap (depth < 0: a gap, reported up to the margin as a speculative contact).
//
// Contact points persist from query to query (Bullet's manifolds): the impulses the solver
// found for a point are stored back with it and come out of the next query as its warm start.

#include <cstddef>
#include <memory>
#include <vector>

#include "engine/math/spatial.h"
#include "engine/model/contact_model.h"

namespace engine::contact {

struct ContactPoint {
    std::size_t partA = 0;  // index into SceneSpec::parts
    std::size_t partB = 0;
    Vec3 p_WA_W = Vec3::Zero();   // contact point on A's surface, in W
    Vec3 p_WB_W = Vec3::Zero();   // contact point on B's surface, in W
    Vec3 n_AB_W = Vec3::UnitZ();  // unit normal from A to B
    double depth = 0.0;           // penetration depth [m]; negative: separated by -depth
    // Impulses of the last step at this point (zero for a new point), on B, in W: normal
    // impulse along n_AB_W [N·s] and the friction impulse vector (tangent to the surface).
    double normalImpulse = 0.0;
    Vec3 frictionImpulse_W = Vec3::Zero();
    std::size_t handle = 0;  // which point of the last query this is (for storeImpulses)
};

class CollisionWorld {
public:
    explicit CollisionWorld(const ContactModel& model);
    explicit CollisionWorld(const SceneSpec& spec);
    ~CollisionWorld();
    CollisionWorld(const CollisionWorld&) = delete;
    CollisionWorld& operator=(const CollisionWorld&) = delete;

    void setPartPose(std::size_t partIndex, const Transform& X_WP);

    // All contact points between parts closer than `margin` [m] (0: touching or overlapping).
    // `margin` up to 2 cm (Bullet's pair search pads bounding boxes by that much).
    std::vector<ContactPoint> findContacts(double margin = 0.0);

    // Stores the impulses of points of the last findContacts() (any subset, any order) for
    // the next query's warm start.
    void storeImpulses(const std::vector<ContactPoint>& contacts);

    // Forgets every persistent contact point (a run restarted from another state).
    void clearCache();

    std::size_t objectCount() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Size in bytes of Bullet's scalar in this build: 8 (double precision) is required.
std::size_t bulletScalarBytes();

}  // namespace engine::contact
