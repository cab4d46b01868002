#include "engine/analysis/lift_off_watch.h"

#include <algorithm>

#include "engine/model/model.h"

namespace engine {

LiftOffWatch::LiftOffWatch(const Model& model) {
    for (std::size_t l = 0; l < model.limits.size(); ++l)
        if (model.limits[l].liftOff) {
            Watched w;
            w.limit = static_cast<int>(l);
            w.joint = model.joints[static_cast<std::size_t>(model.limits[l].joint)].name;
            watched_.push_back(w);
        }
}

void LiftOffWatch::reset() {
    for (Watched& w : watched_) {
        w.touching = false;
        w.known = 0;
    }
    liftOffs_ = 0;
    firstTime_ = -1.0;
    firstJoint_.clear();
}

bool LiftOffWatch::observe(double t, const std::vector<double>& limitForce) {
    bool left = false;
    for (Watched& w : watched_) {
        const std::size_t l = static_cast<std::size_t>(w.limit);
        const double f = l < limitForce.size() ? limitForce[l] : 0.0;
        if (f > 0.0) {
            w.touching = true;
            w.t0 = w.t1;
            w.f0 = w.f1;
            w.t1 = t;
            w.f1 = f;
            w.known = std::min(w.known + 1, 2);
            continue;
        }
        if (!w.touching) continue;
        // Left since the last observation: where the force in contact runs out.
        double when = w.t1;
        if (w.known == 2 && w.f0 > w.f1 && w.t1 > w.t0)
            when = std::clamp(w.t1 + w.f1 * (w.t1 - w.t0) / (w.f0 - w.f1), w.t1, t);
        w.touching = false;
        w.known = 0;
        if (liftOffs_++ == 0) {
            firstTime_ = when;
            firstJoint_ = w.joint;
        }
        left = true;
    }
    return left;
}

}  // namespace engine
