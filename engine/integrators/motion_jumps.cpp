#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/integrators/detail.h"
#include "engine/kinematics/frame_motion.h"
#include "engine/math/finite.h"
#include "engine/math/jet.h"
#include "engine/math/number_text.h"

namespace engine {

// A position-level motion whose expression jumps (`time < 1 ? 0 : 90d`) asks the parts to be
// somewhere else from one instant to the next. Every method met it by moving them there in one
// step's projection — a teleport, with a spike of reaction and of the motion's work that
// depends on the step — so a run now stops before the step that holds such a jump. Found from
// the expression's values alone (its derivatives smear a jump over ±2 ms): the change over the
// step is halved towards where it happens; a continuous motion spreads it out within a halving
// or two, a jump keeps it in an interval of a picosecond. A turn by whole turns is no jump.
namespace {
constexpr double kJumpSmallest = 1e-3;  // m or rad: changes below this are not looked at
}  // namespace

// See detail.h. Sampled every 0.1 ms; a first time that is not a number is found by halving.
std::string detail::forceExpressionCause(const Model& model, double t, double span, double growth) {
    for (const ForceModel& force : model.forces) {
        if (!force.on) continue;
        const Expression* expressions[3] = {&force.components[0], &force.components[1],
                                            &force.components[2]};
        const int count =
            isJointServo(force.type) || force.type == ForceType::LineForce ||
                    force.type == ForceType::JointForce
                ? 1
            : force.type == ForceType::PointForce || force.type == ForceType::PointTorque ? 3
                                                                                          : 0;
        const int samples = static_cast<int>(std::min(1e5, std::ceil(span / 1e-4)));
        for (int k = 0; k <= samples; ++k) {
            const double tk = t + span * k / samples;
            if (nonFiniteExpression(force, tk).empty()) continue;
            double good = t, bad = tk;  // finite at `good` (or k == 0), not at `bad`
            if (k > 0)
                for (int halving = 0; halving < 60 && bad - good > 0.0; ++halving) {
                    const double middle = 0.5 * (good + bad);
                    if (middle <= good || middle >= bad) break;
                    (nonFiniteExpression(force, middle).empty() ? good : bad) = middle;
                }
            return "force '" + force.name + "': " + nonFiniteExpression(force, bad);
        }
        if (force.type == ForceType::ComputedTorque) {
            // It gives its coordinate the target's acceleration: one that races off (a kink,
            // a pole of the rate) asks for an effort that does.
            const Expression& e = force.components[0];
            const double before = std::abs(e.timeJet(std::max(0.0, t - 1e-2)).d2);
            for (int k = 0; k <= samples; ++k) {
                const double tk = t + span * k / samples;
                const double a = e.timeJet(tk).d2;
                if (std::isfinite(a) && !(std::abs(a) > growth * std::max(1.0, before))) continue;
                return "force '" + force.name + "': the acceleration of its target '" + e.text() +
                       "' races off to " + numberText(a) + " at t = " + numberText(tk, 9, "s") +
                       " (" + numberText(before) +
                       " 10 ms before), and computed torque gives the coordinate that "
                       "acceleration: a kink or a pole in the target?";
            }
        }
        static constexpr const char* axes[3] = {"x", "y", "z"};
        for (int c = 0; c < count; ++c) {
            const Expression& e = *expressions[c];
            // (an expression of the state has no value from time alone)
            if (e.isConstant() || !force.inputs[c].empty()) continue;
            const double before = std::abs(e.eval(std::max(0.0, t - 1e-2)));
            for (int k = 0; k <= samples; ++k) {
                const double tk = t + span * k / samples;
                const double value = e.eval(tk);
                if (!(std::abs(value) > growth * std::max(1.0, before))) continue;
                return "force '" + force.name + "': its expression '" + e.text() + "' (" +
                       (count == 3                 ? std::string(axes[c]) + " component"
                        : isJointServo(force.type) ? std::string("target")
                                                   : std::string("magnitude")) +
                       ") races off to " + numberText(value) + " at t = " + numberText(tk, 9, "s") +
                       " (" + numberText(before) + " 10 ms before): a pole?";
            }
        }
    }
    // A moving frame's motion: its pose, rate and acceleration all enter its rows.
    for (const int j : model.frameJoints) {
        const JointModel& joint = model.joints[static_cast<std::size_t>(j)];
        for (int k = 0; k < 6; ++k) {
            const Expression& e =
                k < 3 ? joint.frameMotion->translation[k] : joint.frameMotion->rotation[k - 3];
            if (e.isConstant()) continue;
            const double before = std::abs(e.eval(std::max(0.0, t - 1e-2)));
            const int samples = static_cast<int>(std::min(1e5, std::ceil(span / 1e-4)));
            for (int s = 0; s <= samples; ++s) {
                const double ts = t + span * s / samples;
                const double value = e.eval(ts);
                const bool finite = std::isfinite(value) && std::isfinite(e.derivative(ts)) &&
                                    std::isfinite(e.secondDerivative(ts));
                if (finite && !(std::abs(value) > growth * std::max(1.0, before))) continue;
                return "moving frame '" + joint.name + "': its " + frameMotionExpressionName(k) +
                       " '" + e.text() + "' " +
                       (finite ? "races off to " + numberText(value) +
                                     " at t = " + numberText(ts, 9, "s") + " (" +
                                     numberText(before) + " 10 ms before): a pole?"
                               : "or its rate is not a number at t = " + timeText(ts));
            }
        }
    }
    return {};
}

namespace {

// Where `f` jumps within [t0, t1]: a change of more than kJumpSmallest that stays at least half
// of itself however closely it is bracketed (angles compared modulo a turn). False when none.
bool findJump(const Expression& f, bool angle, double t0, double t1, double& size, double& at) {
    auto change = [&](double from, double to) {
        const double d = to - from;
        return angle ? std::remainder(d, 2.0 * kPi) : d;
    };
    double a = t0, b = t1, fa = f.eval(t0), fb = f.eval(t1);
    const double total = change(fa, fb);
    if (!std::isfinite(total) || !(std::abs(total) > kJumpSmallest)) return false;
    while (b - a > 1e-12 * std::max(1.0, std::abs(t1))) {
        const double m = 0.5 * (a + b), fm = f.eval(m);
        const double left = change(fa, fm), right = change(fm, fb);
        if (!std::isfinite(left) || !std::isfinite(right))
            return false;  // (a value that is not a number is said where it is evaluated)
        if (std::abs(left) >= std::abs(right)) {
            b = m;
            fb = fm;
        } else {
            a = m;
            fa = fm;
        }
        if (std::abs(change(fa, fb)) < 0.5 * std::abs(total)) return false;
    }
    size = std::abs(change(fa, fb));
    at = b;
    return true;
}

constexpr const char* kJumpAdvice =
    ": the parts cannot be somewhere else from one instant to the next. Make the change over "
    "some time, e.g. with step(time, t0, from, t1, to)";

}  // namespace

Status detail::checkMotionJumps(const Model& model, double t0, double t1) {
    double size = 0.0, at = 0.0;
    for (const DriverModel& driver : model.drivers) {
        if (driver.level != MotionLevel::Position || !driver.on) continue;
        const JointModel& joint = model.joints[static_cast<std::size_t>(driver.joint)];
        const bool angle =
            joint.coordinates[static_cast<std::size_t>(driver.coordinate)] == JointAxis::Rotation;
        if (!findJump(driver.f, angle, t0, t1, size, at)) continue;
        Status s = Status::failure(
            "motion '" + driver.name + "' jumps by " + numberText(size, 4, angle ? "rad" : "m") +
                " at t = " + timeText(at) + " (" + driver.f.text() + ")" + kJumpAdvice +
                ", or switch a speed with a velocity-level motion",
            {driver.id});
        s.expressionCause = true;
        return s;
    }
    for (const int j : model.frameJoints) {
        const JointModel& joint = model.joints[static_cast<std::size_t>(j)];
        for (int k = 0; k < 6; ++k) {
            const bool angle = k >= 3;
            const Expression& f =
                angle ? joint.frameMotion->rotation[k - 3] : joint.frameMotion->translation[k];
            if (f.isConstant() || !findJump(f, angle, t0, t1, size, at)) continue;
            Status s = Status::failure(
                "moving frame '" + joint.name + "': its " + frameMotionExpressionName(k) +
                    " jumps by " + numberText(size, 4, angle ? "rad" : "m") +
                    " at t = " + timeText(at) + " (" + f.text() + ")" + kJumpAdvice,
                {joint.id});
            s.expressionCause = true;
            return s;
        }
    }
    return {};
}

}  // namespace engine
