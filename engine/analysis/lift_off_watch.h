#pragma once
// When a cam's follower leaves the cam (a cam pair that may lift off: CurveOnCurve with
// liftOff, whose contact is a stop at gap 0, LimitModel::liftOff).
//
// The follower is on its cam while the contact pushes (the stop's force > 0) and leaves it
// when the force it would take to hold it turns negative: the step after which the contact
// carries nothing. The instant in between is where the force reaches zero, found by
// extending the last two forces in contact to zero (linearly: within a step, to second order
// in it).

#include <string>
#include <vector>

namespace engine {

struct Model;

class LiftOffWatch {
public:
    explicit LiftOffWatch(const Model& model);

    // A new run: every follower on its cam, nothing seen yet.
    void reset();

    // One observation at time t with the stops' forces (StepResult::limitForce, per
    // Model::limits; empty: none known). True when a follower left its cam since the last one.
    bool observe(double t, const std::vector<double>& limitForce);

    long liftOffs() const { return liftOffs_; }
    // The first lift-off: when [s] (−1: none yet) and the cam pair's joint name.
    double firstTime() const { return firstTime_; }
    const std::string& firstJoint() const { return firstJoint_; }
    bool watching() const { return !watched_.empty(); }

private:
    struct Watched {
        int limit = 0;
        std::string joint;
        bool touching = false;
        int known = 0;  // forces in contact remembered (0 to 2)
        double t0 = 0.0, f0 = 0.0, t1 = 0.0, f1 = 0.0;
    };
    std::vector<Watched> watched_;
    long liftOffs_ = 0;
    double firstTime_ = -1.0;
    std::string firstJoint_;
};

}  // namespace engine
