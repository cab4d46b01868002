// BranchWatch on the two branches of a slider-crank whose crank is as long as its rod (L), in
// the coordinates (crank angle θ, rod angle φ, slider x): the loop closes on
//   A  φ = −θ,     x = 2L cos θ   (the slider runs, and passes the crank pivot at θ = 90°)
//   B  φ = θ + π,  x = 0          (folded: the slider stays at the crank pivot)
// which meet at θ = 90°, the singular position. Moving at θ̇ = ω, the velocities are
//   A  (1, −1, −2L sin θ) ω        B  (1, 1, 0) ω
// The solver reports the singular position within 5° of it.

#include "engine/analysis/branch_watch.h"

#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

namespace engine {
namespace {

constexpr double kL = 0.05;
constexpr double kDeg = std::numbers::pi / 180.0;

Eigen::VectorXd onA(double theta, double omega) {
    return Eigen::Vector3d(1.0, -1.0, -2.0 * kL * std::sin(theta)) * omega;
}
Eigen::VectorXd onB(double /*theta*/, double omega) {
    return Eigen::Vector3d(1.0, 1.0, 0.0) * omega;
}
bool nearSingular(double theta) {
    return std::abs(theta - 90.0 * kDeg) < 5.0 * kDeg;
}

// Weights as the mass metric gives them: √J of crank and rod, √m of the slider.
BranchWatch watch() {
    return BranchWatch(Eigen::Vector3d(std::sqrt(4.3e-5), std::sqrt(1e-3), std::sqrt(0.5)));
}

struct Verdict {
    int changes = 0;
    double time = -1.0, turn = 0.0;
};

// θ from 60° to 120° in steps of 2° (one output step each, 1 s apart), on branch `before`
// until the singular position and on `after` from there.
template <typename Before, typename After>
Verdict pass(Before before, After after, double omega = 2.0) {
    BranchWatch w = watch();
    Verdict v;
    for (int k = 0; k <= 30; ++k) {
        const double theta = (60.0 + 2.0 * k) * kDeg;
        const Eigen::VectorXd velocity =
            theta <= 90.0 * kDeg ? before(theta, omega) : after(theta, omega);
        if (w.observe(k, velocity, nearSingular(theta))) {
            if (v.changes++ == 0) {
                v.time = w.passageTime();
                v.turn = w.turn();
            }
        }
    }
    return v;
}

TEST(BranchWatch, APassageOnTheSameBranchIsNoChange) {
    EXPECT_EQ(pass(onA, onA).changes, 0);
    EXPECT_EQ(pass(onB, onB).changes, 0);
    // Slowly or fast, and turning back the other way: the same.
    EXPECT_EQ(pass(onA, onA, 0.01).changes, 0);
    EXPECT_EQ(pass(onA, onA, -50.0).changes, 0);
}

TEST(BranchWatch, LandingOnTheOtherBranchIsAChangeWithTheAngleTheBranchesMeetAt) {
    const Verdict ab = pass(onA, onB);
    EXPECT_EQ(ab.changes, 1);
    EXPECT_EQ(ab.time, 13.0) << "the passage begins at θ = 86°, output step 13";
    // The turn is the angle between the branches' directions in the mass metric.
    const Eigen::Vector3d w(std::sqrt(4.3e-5), std::sqrt(1e-3), std::sqrt(0.5));
    const Eigen::Vector3d a = w.cwiseProduct(Eigen::Vector3d(onA(84.0 * kDeg, 1.0))).normalized();
    const Eigen::Vector3d b = w.cwiseProduct(Eigen::Vector3d(onB(96.0 * kDeg, 1.0))).normalized();
    EXPECT_NEAR(ab.turn, std::acos(a.dot(b)), 1e-12);
    EXPECT_GT(ab.turn, BranchWatch::kMinTurn);
    EXPECT_EQ(pass(onB, onA).changes, 1);
}

// The direction of a motion at rest says nothing: a mechanism that stops at the singular
// position and goes back (a pendulum-like rocking into the dead centre) gets no verdict, nor
// does a run that starts in a passage.
TEST(BranchWatch, AMotionAtRestInThePassageGetsNoVerdict) {
    BranchWatch w = watch();
    int changes = 0;
    for (int k = 0; k <= 30; ++k) {
        const double theta = (60.0 + 2.0 * std::min(k, 15)) * kDeg;
        const double omega = k < 15 ? 1.0 : (k == 15 ? 0.0 : -1.0);
        changes += w.observe(k, k < 15 ? onA(theta, omega) : onB(theta, omega),
                             nearSingular(theta) || (k > 15 && k < 19));
    }
    EXPECT_EQ(changes, 0);

    BranchWatch fromInside = watch();
    changes = fromInside.observe(0, onA(88.0 * kDeg, 1.0), true);
    changes += fromInside.observe(1, onB(92.0 * kDeg, 1.0), true);
    changes += fromInside.observe(2, onB(98.0 * kDeg, 1.0), false);
    EXPECT_EQ(changes, 0);
}

// A direction that turns fast before the passage may turn as fast across it: the bound scales
// with the turn per output step measured just before.
TEST(BranchWatch, TheBoundFollowsTheTurnBeforeThePassage) {
    BranchWatch w(Eigen::Vector2d(1.0, 1.0));
    int changes = 0;
    // A direction turning 15° per output step, through a passage of two steps.
    for (int k = 0; k < 12; ++k) {
        const double a = 15.0 * k * kDeg;
        changes += w.observe(k, Eigen::Vector2d(std::cos(a), std::sin(a)), k == 5 || k == 6);
    }
    EXPECT_EQ(changes, 0);
    // The same passage turning 90° at once while the motion before hardly turned.
    BranchWatch still(Eigen::Vector2d(1.0, 1.0));
    for (int k = 0; k < 12; ++k) {
        const double a = (k < 6 ? 0.1 * k : 90.0 + 0.1 * k) * kDeg;
        changes += still.observe(k, Eigen::Vector2d(std::cos(a), std::sin(a)), k == 5 || k == 6);
    }
    EXPECT_EQ(changes, 1);
}

}  // namespace
}  // namespace engine
