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
// Bullet answers a pure geometric query: it keeps no contact point from one query to the next.
// Persistence is the caller's, in State::contacts: query() takes the points of the last query
// (each with the impulses the solver found there) and merges the new points into them pair by
// pair with Bullet's manifold rules (btPersistentManifold's, on compact points): a new point
// within the breaking distance of a kept one replaces it and inherits its impulses (the
// solver's warm start), at most four points per pair of shapes, chosen for the largest contact
// area; kept points that separated or slid beyond the breaking distance are dropped. The
// result depends on the poses, the given points and the parts the caller marks asleep or quiet
// only (setPartAsleep, setPartQuiet); the time stepping derives those marks from the state (its
// velocities, rest times and time), so a run resumed from a recorded state reproduces the
// original bit for bit.

#include <cstddef>
#include <memory>
#include <vector>

#include "engine/math/spatial.h"
#include "engine/model/contact_model.h"
#include "engine/state/state.h"

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
    std::size_t persistent = 0;  // this point in ContactQuery::persistent
};

struct ContactQuery {
    std::vector<ContactPoint> points;  // within the margin
    // Every point kept for the next query (points beyond the margin but within the breaking
    // distance too), in a canonical order: by part pair and shape pair, then as merged.
    std::vector<ContactPointState> persistent;
    // The points between parts that sleep (or a sleeping part and the ground): kept as they
    // were, not looked at again and not in `points`. Their indices in `persistent`, those within
    // the margin (the contacts a sleeping part rests on).
    std::vector<std::size_t> resting;
    // A query asked for its points in ranges (PointsIn::Ranges) that ran on several threads
    // leaves them in `rangeCount` consecutive ranges instead, as its threads wrote them (no
    // copy into `points`, whose contents are then stale): the points are the ranges' in order.
    // (The time stepping reorders the points anyway: it reads them from there.)
    std::size_t rangeCount = 0;
    std::vector<std::vector<ContactPoint>> pointRanges;  // (buffers kept beyond rangeCount)
    // The ranges' points into `points`, and no ranges; nothing when there are none.
    void joinRanges();
};

// How a query hands its points over (ContactQuery::rangeCount).
enum class PointsIn { Points, Ranges };

class CollisionWorld {
public:
    explicit CollisionWorld(const ContactModel& model);
    explicit CollisionWorld(const SceneSpec& spec);
    ~CollisionWorld();
    CollisionWorld(const CollisionWorld&) = delete;
    CollisionWorld& operator=(const CollisionWorld&) = delete;

    void setPartPose(std::size_t partIndex, const Transform& X_WP);
    // Each part's frame in its body's frame (X_BP, by part index): setPartPoseFromBody then
    // poses a part from its body's pose X_WB with one product (its frame and its object's
    // folded into one; no product when both are the body's).
    void setBodyFrames(const std::vector<Transform>& X_BP);
    void setPartPoseFromBody(std::size_t partIndex, const Transform& X_WB);
    // A sleeping part is not looked at against the ground or another sleeping part: their
    // points are kept as they are (ContactQuery::resting). Moving parts still find it.
    void setPartAsleep(std::size_t partIndex, bool asleep);
    bool partAsleep(std::size_t partIndex) const;
    // A quiet part moved so little since the last query (the caller's measure: TimeStepping's
    // kQuietDistance) that its pairs with other quiet parts (or the ground) keep their points,
    // moved with their parts (the merge's refresh), without the narrow phase; the caller looks
    // at each part afresh often enough to bound how far such points drift. Parts are not quiet
    // unless told; a sleeping part is quiet whatever it was told. A settled part (quiet too)
    // moved far less still: its pairs with other settled parts, sleeping parts or the ground
    // are looked at afresh less often (setQuietTurn's settledEvery).
    void setPartQuiet(std::size_t partIndex, bool quiet, bool settled = false);
    // Pairs of quiet parts looked at afresh in turn, each one query in `every`: the next query
    // is the query `step` of the turn, and it looks at the quiet pair of parts a < b when
    // step + 2a + b is a multiple of `every` (spread over the turn for a part with the ground,
    // a < b = the part, and for neighbours a, a + k alike); a settled pair when it is a multiple
    // of `settledEvery` (made a multiple of `every`; at most `every`: as a quiet pair). every ≤ 0
    // (as constructed): never.
    void setQuietTurn(long long step, int every, int settledEvery = 0);
    // The three at once for a part moved with its body, as a stepper sets every part each step:
    // setPartQuiet(quiet, settled), setPartAsleep(asleep), and setPartPoseFromBody(*X_WB) when
    // X_WB is given (one call a part: at 10,000 parts the calls and their checks were a third of
    // the pass).
    void setPartFromBody(std::size_t partIndex, bool quiet, bool settled, bool asleep,
                         const Transform* X_WB);
    // A point given in a part's collision frame (ContactPointState::local_A, local_B) in W.
    Vec3 worldPoint(std::size_t partIndex, const Vec3& local) const;

    // The contact points between parts closer than `margin` [m] (0: touching or overlapping),
    // merged into `previous` (the last query's persistent points; points naming parts that
    // cannot touch are ignored). The pair search pads each bounding box by half of
    // max(margin, the shape's breaking distance): no pair farther apart reaches the narrow phase.
    ContactQuery query(double margin, const std::vector<ContactPointState>& previous);
    // The same into `out` (its vectors reused: no allocation in a steady run). `out` may not
    // be `previous`'s owner.
    void query(double margin, const std::vector<ContactPointState>& previous, ContactQuery& out,
               PointsIn pointsIn = PointsIn::Points);

    // The points of a query with nothing kept from before.
    std::vector<ContactPoint> findContacts(double margin = 0.0);

    std::size_t objectCount() const;
    // Pairs of objects whose bounding boxes overlap, as the broadphase holds them now (each may
    // reach the narrow phase).
    std::size_t overlappingPairCount() const;
    // How many times a part's box has been put into the broadphase's tree since the world was
    // made (a part that moved out of the box its proxy holds).
    std::size_t boxesPutInTree() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Size in bytes of Bullet's scalar in this build: 8 (double precision) is required.
std::size_t bulletScalarBytes();

}  // namespace engine::contact
