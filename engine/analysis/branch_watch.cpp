#include "engine/analysis/branch_watch.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "engine/model/layout.h"
#include "engine/model/model.h"

namespace engine {

namespace {

Eigen::VectorXd massMetric(const Model& model) {
    Eigen::VectorXd w(model.velocitySize());
    for (int b = 0; b < model.bodyCount(); ++b) {
        const BodyModel& body = model.bodies[static_cast<std::size_t>(b)];
        layout::linear(w, b).setConstant(std::sqrt(std::max(body.mass, 0.0)));
        layout::angular(w, b) = body.inertia.cwiseMax(0.0).cwiseSqrt();
    }
    return w;
}

// Angle between two unit vectors, accurate near 0 and π.
double angleBetween(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    return 2.0 * std::atan2((a - b).norm(), (a + b).norm());
}

}  // namespace

BranchWatch::BranchWatch(const Model& model) : BranchWatch(massMetric(model)) {}

BranchWatch::BranchWatch(Eigen::VectorXd weights) : weights_(std::move(weights)) {}

void BranchWatch::reset() {
    havePrevious_ = false;
    inPassage_ = false;
    stepTurn_ = 0.0;
}

double BranchWatch::direction(const Eigen::VectorXd& v, Eigen::VectorXd& u) const {
    u = weights_.cwiseProduct(v);
    const double speed = u.norm();
    if (speed > 0.0 && std::isfinite(speed)) u /= speed;
    return speed;
}

bool BranchWatch::observe(double t, const Eigen::VectorXd& v, bool nearSingular) {
    if (v.size() != weights_.size()) return false;
    const double speed = direction(v, current_);
    const bool moving = speed > 0.0 && std::isfinite(speed);
    bool changed = false;
    if (nearSingular) {
        if (!inPassage_) {
            inPassage_ = true;
            passageTime_ = t;
            stepsAcross_ = 0;
            // Judged only from a regular step with a direction to compare with.
            judged_ = havePrevious_ && speedBefore_ > 0.0;
            before_ = previous_;
        }
        ++stepsAcross_;
        if (!moving || speed < kRestFraction * speedBefore_) judged_ = false;
    } else if (inPassage_) {
        inPassage_ = false;
        if (judged_ && moving && speed >= kRestFraction * speedBefore_) {
            turn_ = angleBetween(before_, current_);
            const double expected = kTurnFactor * (stepsAcross_ + 1) * stepTurn_;
            changed = turn_ > std::max(kMinTurn, expected);
        }
        stepTurn_ = 0.0;  // measured anew after the passage
        speedBefore_ = speed;
    } else {
        if (havePrevious_ && moving) stepTurn_ = angleBetween(previous_, current_);
        speedBefore_ = moving ? speed : 0.0;
    }
    if (moving) {
        std::swap(previous_, current_);
        havePrevious_ = true;
    } else if (!nearSingular) {
        havePrevious_ = false;  // at rest: no direction to carry into a passage
    }
    return changed;
}

}  // namespace engine
