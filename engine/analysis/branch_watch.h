#pragma once
// Whether a run changed branch where it passed a singular position.
//
// At a singular position (a dead centre, a linkage lying flat) two branches of a mechanism's
// motion can meet: a slider-crank whose crank is as long as its rod can turn on, or fold so that
// the slider stays at the crank pivot; a parallelogram four-bar lying flat can go on as a
// parallelogram or cross into an antiparallelogram. The true motion keeps its velocity through
// the passage (no impulse acts there), so it stays on the branch whose direction it has. A step
// that lands on the other branch has its velocity projected onto that branch: within the passage
// the direction of motion turns by the angle between the branches, and kinetic energy is lost.
// What follows is the motion of another mechanism, as far as the user is concerned.
//
// The watch measures the direction of motion in the mass metric, u = M^½ v / |M^½ v| (M^½:
// √m for a body's velocity, √J' for its angular velocity), at every output step. Across a
// passage (from the last output step before the solver saw the singular position to the first
// after) it compares the turn of u with the turn the motion had per output step just before:
//
//   branch change  ⇔  turn > max(kMinTurn, kTurnFactor · (steps across + 1) · turn per step before)
//
// A smooth passage turns u about as fast as before it; landing on another branch turns it by
// the angle the branches meet at, at once. Where the motion comes to rest within the passage
// (speed below kRestFraction of its speed before), its direction says nothing and no verdict is
// given.

#include <Eigen/Core>

namespace engine {

struct Model;

class BranchWatch {
public:
    static constexpr double kMinTurn = 0.35;       // rad (20°)
    static constexpr double kTurnFactor = 4.0;     // × the turn expected from the motion before
    static constexpr double kRestFraction = 0.05;  // of the speed before the passage

    // The mass metric of a model's velocities (M^½ per coordinate, layout.h), or given directly.
    explicit BranchWatch(const Model& model);
    explicit BranchWatch(Eigen::VectorXd weights);

    // The direction forgotten: the next observation starts anew (a new run, a restored frame).
    void reset();

    // One output step: its time, velocities and whether the solver is next to a singular
    // position there. True when it ends a passage in which the motion changed branch; then
    // turn() is the angle its direction turned by [rad] and passageTime() when the passage began.
    bool observe(double t, const Eigen::VectorXd& v, bool nearSingular);

    double turn() const { return turn_; }
    double passageTime() const { return passageTime_; }

private:
    // u = M^½ v normalised into `u`; returns |M^½ v|.
    double direction(const Eigen::VectorXd& v, Eigen::VectorXd& u) const;

    Eigen::VectorXd weights_;
    Eigen::VectorXd before_, previous_, current_;  // u before the passage, at the last step
    bool havePrevious_ = false;
    double stepTurn_ = 0.0;     // turn of u over the last regular output step
    double speedBefore_ = 0.0;  // |M^½ v| at the last regular output step
    bool inPassage_ = false;
    bool judged_ = true;  // the passage can be judged (no rest within it)
    int stepsAcross_ = 0;
    double passageTime_ = 0.0, turn_ = 0.0;
};

}  // namespace engine
