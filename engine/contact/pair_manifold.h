#pragma once
// The merge of one pair's contact points from query to query, by Bullet's manifold rules on
// compact points. Included by the collision world (and its tests) only: it speaks Bullet's
// vector types.

#include <LinearMath/btTransform.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace engine::contact {

// A contact point of one pair while it is merged: what Bullet's manifold rules read and what
// the state keeps, in Bullet's conventions (A and B as the manifold's bodies, the normal on B
// pointing from B to A). Bullet's own btManifoldPoint carries 376 bytes of solver fields that
// Motus does not use, and the merge copies points several times per step.
struct MergePoint {
    btVector3 local_A, local_B;  // the point on A's and on B's surface, in their object frames
    btVector3 p_WA, p_WB;        // the same in W
    btVector3 n_BA;              // unit normal on B, from B to A, in W
    double distance = 0.0;       // (p_WA − p_WB)·n_BA: negative when the surfaces overlap
    int age = 0;                 // queries that found or kept the point
    double normalImpulse = 0.0;  // the solver's last impulses at the point (warm start)
    btVector3 friction_W;
};

// One pair's points merged by the rules of Bullet's btPersistentManifold (Bullet 3.24: four
// points, keep the deepest, the largest area by three points), with the same arithmetic in the
// same order, so the points kept are those Bullet's manifold keeps, bit for bit:
// - nearest():  getCacheEntry — the kept point whose point on A lies closest to the new one's,
//   within the breaking distance (none: −1);
// - replace():  replaceContactPoint — the new point in its place, with its age and impulses;
// - add():      addManifoldPoint — appended, or when four are held, put in place of the one
//   whose loss leaves the largest area (never the deepest);
// - refresh():  refreshContactPoints — world points and distance from the poses, one query
//   older, and points dropped that separated or slid beyond the breaking distance.
class PairManifold {
public:
    void reset(double breaking) {
        count_ = 0;
        breaking_ = breaking;
    }
    int size() const { return count_; }
    const MergePoint& operator[](int k) const { return points_[static_cast<std::size_t>(k)]; }

    int nearest(const MergePoint& point) const {
        double shortest = breaking_ * breaking_;
        int nearest = -1;
        for (int k = 0; k < count_; ++k) {
            const btVector3 d = (*this)[k].local_A - point.local_A;
            const double distance2 = d.dot(d);
            if (distance2 < shortest) {
                shortest = distance2;
                nearest = k;
            }
        }
        return nearest;
    }

    void replace(const MergePoint& point, int k) {
        MergePoint& kept = at(k);
        const int age = kept.age;
        const double normalImpulse = kept.normalImpulse;
        const btVector3 friction = kept.friction_W;
        kept = point;
        kept.age = age;
        kept.normalImpulse = normalImpulse;
        kept.friction_W = friction;
    }

    void add(const MergePoint& point) {
        int k = count_;
        if (k == kCapacity)
            k = std::max(0, replaced(point));
        else
            ++count_;
        at(k) = point;
    }

    void refresh(const btTransform& X_WA, const btTransform& X_WB) {
        for (int k = count_ - 1; k >= 0; --k) {
            MergePoint& p = at(k);
            p.p_WA = X_WA(p.local_A);
            p.p_WB = X_WB(p.local_B);
            p.distance = (p.p_WA - p.p_WB).dot(p.n_BA);
            ++p.age;
        }
        for (int k = count_ - 1; k >= 0; --k) {
            const MergePoint& p = at(k);
            if (p.distance > breaking_) {  // separated along the normal
                remove(k);
                continue;
            }
            const btVector3 slid = p.p_WB - (p.p_WA - p.n_BA * p.distance);
            if (slid.dot(slid) > breaking_ * breaking_) remove(k);  // slid along the surface
        }
    }

private:
    static constexpr int kCapacity = 4;

    MergePoint& at(int k) { return points_[static_cast<std::size_t>(k)]; }

    // Which of four held points `point` replaces (sortCachedPoints): not the deepest of the
    // five, and of the others the one whose replacement spans the largest area with the rest.
    int replaced(const MergePoint& point) const {
        int deepest = -1;
        double depth = point.distance;
        for (int k = 0; k < kCapacity; ++k) {
            if ((*this)[k].distance < depth) {
                deepest = k;
                depth = (*this)[k].distance;
            }
        }
        const btVector3& a = point.local_A;
        const btVector3& p0 = (*this)[0].local_A;
        const btVector3& p1 = (*this)[1].local_A;
        const btVector3& p2 = (*this)[2].local_A;
        const btVector3& p3 = (*this)[3].local_A;
        const double area[kCapacity] = {
            deepest != 0 ? (a - p1).cross(p3 - p2).length2() : 0.0,
            deepest != 1 ? (a - p0).cross(p3 - p2).length2() : 0.0,
            deepest != 2 ? (a - p0).cross(p3 - p1).length2() : 0.0,
            deepest != 3 ? (a - p0).cross(p2 - p1).length2() : 0.0,
        };
        int largest = -1;
        double most = -BT_LARGE_FLOAT;
        for (int k = 0; k < kCapacity; ++k) {
            if (std::abs(area[k]) > most) {
                largest = k;
                most = std::abs(area[k]);
            }
        }
        return largest;
    }

    // The last point takes the removed one's place (Bullet's order, which the merge keeps).
    void remove(int k) {
        if (k != count_ - 1) at(k) = at(count_ - 1);
        --count_;
    }

    std::array<MergePoint, kCapacity> points_{};
    int count_ = 0;
    double breaking_ = 0.0;
};

}  // namespace engine::contact
