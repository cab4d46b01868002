#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/dynamics/projection.h"
#include "engine/dynamics/reactions.h"
#include "engine/integrators/detail.h"
#include "engine/integrators/runge_kutta.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/math/finite.h"
#include "engine/math/number_text.h"

namespace engine {
namespace {

using detail::Flat;
using detail::flatDerivative;
using detail::kStageTolerance;
using detail::normaliseQuaternions;

// Dormand–Prince 5(4) (Hairer, Nørsett & Wanner, Solving ODEs I, table 5.2), with its
// continuous extension of order 4 (ibid. §II.6, the dense output of DOPRI5).
//
// The method takes its own steps, chosen by the error control alone, and reaches an output
// time by interpolating inside the step that holds it:
//
//   y(t₀ + θh) = r₀ + θ (r₁ + (1−θ) (r₂ + θ (r₃ + (1−θ) r₄))),   0 ≤ θ ≤ 1
//   r₀ = y₀,  r₁ = y₁ − y₀,  r₂ = h k₁ − r₁,  r₃ = r₁ − h k₇ − r₂,  r₄ = h Σ dⱼ kⱼ
//
// and projecting that point onto the constraints. Output times never shorten a step, so the
// solution does not depend on how often it is written. The step that holds an output is
// named in the state (stepStart, stepOrigin, and its size in stepHint): a run resumed there
// takes that step again, and then exactly the steps the original run took.
//
// Steps are evaluated in a workspace of their own, so the outputs (their projection and the
// reactions computed at them) leave nothing behind that a later step could see.
class DormandPrince45 final : public Integrator {
public:
    DormandPrince45(double maxStep, double rtol, double atol, bool joints)
        : maxStep_(maxStep > 0.0 ? maxStep : std::numeric_limits<double>::infinity()),
          rtol_(rtol),
          atol_(atol),
          joints_(joints) {}

    void forcesChanged() override { step_.valid = false; }
    void reset() override {
        step_.valid = false;
        tree_.reset();
        stepWorkspaceReady_ = false;
        pendingMemory_.clear();
    }

    const KktSolver* ownSolver() const override {
        return stepWorkspaceReady_ ? &stepWs_.solver : nullptr;
    }
    void restoreOwnSolver(const double* memory, int size) override {
        pendingMemory_.assign(memory, memory + size);
    }

    Status advance(const Model& model, State& state, Workspace& ws, double tEnd) override {
        if (joints_)
            if (Status s = tree_.build(model, state); !s.ok) return s;
        flat_ = joints_ ? Flat::joints(model, *tree_) : Flat::bodies(model);
        origin_ = Flat::bodies(model);
        if (!stepWorkspaceReady_) {
            if (Status s = prepareWorkspace(model, state, stepWs_); !s.ok) return s;
            stepWorkspaceReady_ = true;
            if (!pendingMemory_.empty()) {
                stepWs_.solver.restoreMemory(pendingMemory_.data(), hasClosedLoops(model));
                stepWs_.factored = false;
                pendingMemory_.clear();
            }
        }
        // Where the run goes on from: the start of the step that holds this state, or the
        // state itself when it is a step point (or was set from elsewhere).
        State start = state;
        double proposal = state.stepHint;
        if (hasStepOrigin(state)) {
            start.t = state.stepStart;
            origin_.unpack(state.stepOrigin, start);
        }
        start.stepOrigin.resize(0);
        if (!(proposal > 0.0)) proposal = std::min(maxStep_, 1e-3);

        const double tStart = state.t;
        const double eps = 1e-12 * std::max(1.0, std::abs(tEnd));
        long windowSteps = stats_.steps + stats_.rejected;
        double windowStart = start.t;
        // The same over a window 50 times shorter (1000 steps) while the steps are taken next
        // to a singular position: there every stage is projected (factorisations at every
        // Newton iteration), and the full window took 80 s on a linkage held stretched
        // straight between two pivots, while a passage does not crawl (the double four-bar's
        // 1000 projected steps in a row advance it by 1.9 s or more, at rtol 1e-12).
        long singularSteps = 0;
        double singularStart = start.t;
        bool cached = step_.valid && step_.start.t == start.t &&
                      (step_.proposal == proposal || step_.h == proposal) &&
                      sameVector(step_.y0, flat_.pack(start));
        for (;;) {
            if (!cached) {
                // Steps so small that the run cannot go on in any reasonable time: a stall,
                // said as such (with what drives it), not a hang.
                const long window = model.settings.stallSteps;
                auto stalled = [&](long steps, double advanced, bool singular) {
                    const double last = step_.valid ? step_.h : proposal;
                    state = start;
                    underflowFromExpression_ = false;
                    Status failed = Status::failure(
                        "the adaptive integrator stalled at t = " + timeText(start.t) + ": " +
                        std::to_string(steps) + " steps (the last of " + timeText(last) +
                        ") advanced the run by " + timeText(advanced) + " on the way from t = " +
                        timeText(tStart) + " to t = " + timeText(tEnd) + " (" +
                        (singular
                             ? std::string("all of them taken next to a singular position") +
                                   (absoluteNote(model).empty() ? "" : "; ") + absoluteNote(model)
                             : underflowCause(model, start.t, worst_)) +
                        ")");
                    failed.expressionCause = underflowFromExpression_;
                    return failed;
                };
                if (stats_.steps + stats_.rejected - windowSteps > window) {
                    if (start.t - windowStart < static_cast<double>(window) * kMinStepSize)
                        return stalled(window, start.t - windowStart, false);
                    windowSteps = stats_.steps + stats_.rejected;
                    windowStart = start.t;
                }
                const long singularWindow = std::max(1L, window / kSingularWindowDivisor);
                if (singularSteps > singularWindow) {
                    if (start.t - singularStart < static_cast<double>(singularSteps) * kMinStepSize)
                        return stalled(singularSteps, start.t - singularStart, true);
                    singularSteps = 0;
                    singularStart = start.t;
                }
                const long before = stats_.steps + stats_.rejected;
                if (Status s = takeStep(model, start, proposal); !s.ok) {
                    state = start;  // the last good step point
                    return s;
                }
                if (step_.onManifold) {
                    singularSteps += stats_.steps + stats_.rejected - before;
                } else {
                    singularSteps = 0;
                    singularStart = step_.end.t;
                }
            }
            cached = false;
            if (step_.end.t >= tEnd - eps) break;
            start = step_.end;
            proposal = step_.next;
        }

        // The output: the step's end where it lands on tEnd, else a point inside the step.
        if (std::abs(step_.end.t - tEnd) <= eps) {
            state = step_.end;
            state.t = tEnd;
            state.stepHint = step_.next;
            return {};
        }
        const double theta = (tEnd - step_.start.t) / step_.h;
        const double theta1 = 1.0 - theta;
        const Eigen::VectorXd y =
            step_.r[0] +
            theta *
                (step_.r[1] + theta1 * (step_.r[2] + theta * (step_.r[3] + theta1 * step_.r[4])));
        flat_.unpack(y, state, tEnd);
        if (!joints_)  // (joint coordinates are the continuous angles themselves)
            state.jointCoordinates = step_.start.jointCoordinates;  // unwound within one step
        state.lagged = step_.start.lagged;                          // constant over the step
        state.t = tEnd;
        state.stepStart = step_.start.t;
        state.stepOrigin = step_.origin;
        state.stepHint = step_.h;
        return flat_.settle(
            model, state, ws, &stats_.projectionIterations,
            step_.onManifold ? kStageTolerance * model.settings.projectionTolerance : 0.0);
    }

private:
    // Why the step had to shrink to nothing, in terms of the scene: a motion that changes
    // too fast there (a pole, a kink, a value that is not a number), a force element's
    // expression that stops being a number or races off, else the part whose motion the error
    // estimate could not follow.
    std::string underflowCause(const Model& model, double t, Eigen::Index worst) const {
        // The motions over the next 10 ms: one that stops being a number (or races off) just
        // ahead is what the step size shrank towards.
        for (const DriverModel& d : model.drivers) {
            if (!d.on) continue;
            for (int k = 0; k <= 100; ++k) {
                const double tk = t + 1e-4 * k;
                const double values[3] = {d.f.eval(tk), d.f.derivative(tk),
                                          d.f.secondDerivative(tk)};
                for (int order = 0; order < 3; ++order) {
                    if (std::isfinite(values[order]) && std::abs(values[order]) <= 1e6) continue;
                    const char* what = order == 0   ? "its value"
                                       : order == 1 ? "its rate"
                                                    : "its acceleration";
                    // (the motion's expression is the cause: no lock-up to explain)
                    underflowFromExpression_ = true;
                    return "motion '" + d.name + "': " + what + " is " +
                           (std::isfinite(values[order]) ? "beyond 1e6" : "not finite") +
                           " at t = " + timeText(tk) + " (" + d.f.text() + ")";
                }
            }
        }
        if (std::string cause = detail::forceExpressionCause(model, t); !cause.empty()) {
            underflowFromExpression_ = true;
            return cause;
        }
        bool velocity = false;
        if (const std::string entity =
                (judgedOnBodies_ ? origin_ : flat_).entityOf(model, worst, velocity);
            !entity.empty())
            return "the motion of " + entity +
                   " changes too fast to follow: stiff or discontinuous forces on it?";
        return "stiff or discontinuous forces?";
    }

    // Next to a singular position the rows that nearly depend on each other amplify round-off
    // in the accelerations (by 1/pivot), and a velocity that is zero there is judged by the
    // absolute tolerance alone: a linkage driven slowly through its dead point, whose couplers
    // do not turn, stalled at the default 1e-12 rad/s and passed at 1e-10. Said when the
    // largest error of the last try was such a one.
    std::string absoluteNote(const Model& model) const {
        if (!worstAbsolute_) return "";
        bool velocity = false;
        const std::string entity =
            (judgedOnBodies_ ? origin_ : flat_).entityOf(model, worst_, velocity);
        if (entity.empty()) return "";
        return "the largest error, in " + entity + "'s " + (velocity ? "velocity" : "position") +
               ", is judged by the absolute tolerance alone (" + numberText(atol_) +
               "), which round-off exceeds next to a singular position: a mechanism passing "
               "it rather than held in it gets through with a looser absolute tolerance";
    }

    // One accepted step from `start`: its size, its projected end, the coefficients of the
    // interpolant over it, and the proposal for the step after it. Fills step_.
    Status takeStep(const Model& model, const State& start, double proposal) {
        static constexpr double c[7] = {0.0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1.0, 1.0};
        static constexpr double a[7][6] = {
            {},
            {1.0 / 5},
            {3.0 / 40, 9.0 / 40},
            {44.0 / 45, -56.0 / 15, 32.0 / 9},
            {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
            {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
            {35.0 / 384, 0.0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
        // Difference between the 5th- and 4th-order weights: the local error estimate.
        static constexpr double e[7] = {35.0 / 384 - 5179.0 / 57600,
                                        0.0,
                                        500.0 / 1113 - 7571.0 / 16695,
                                        125.0 / 192 - 393.0 / 640,
                                        -2187.0 / 6784 + 92097.0 / 339200,
                                        11.0 / 84 - 187.0 / 2100,
                                        -1.0 / 40};
        // Dense output weights (Hairer's CONTD5).
        static constexpr double d[7] = {
            -12715105075.0 / 11282082432.0,  0.0,
            87487479700.0 / 32700410799.0,   -10690763975.0 / 1880347072.0,
            701980252875.0 / 199316789632.0, -1453857185.0 / 822651844.0,
            69997945.0 / 29380423.0};
        Workspace& w = stepWs_;
        auto f = [&](double t, const Eigen::VectorXd& y, Eigen::VectorXd& dy,
                     bool onManifold = false) {
            return flatDerivative(model, flat_, t, y, start, w, dy, stats_, onManifold);
        };
        const double t = start.t;
        step_.valid = false;
        step_.start = start;
        step_.y0 = flat_.pack(start);
        step_.origin = joints_ ? origin_.pack(start) : step_.y0;
        step_.proposal = proposal;
        const Eigen::VectorXd& y = step_.y0;
        Eigen::VectorXd* k = step_.k;
        if (Status s = f(t, y, k[0]); !s.ok) return s;
        // Next to a singular position the stages are taken on the manifold (flatDerivative).
        const bool onManifold = joints_ ? w.loopsNearSingular() : w.solver.nearSingular();
        if (onManifold) {
            ++stats_.projectedSteps;
            if (Status s = f(t, y, k[0], true); !s.ok) return s;
        }
        // A step turns no part by more than kMaxTurn, so that joint angles are followed past
        // ±π from one step to the next (and an output from the step it lies in).
        double fastest = 0.0;
        for (int b = 0; b < model.bodyCount(); ++b)
            fastest = std::max(fastest, layout::angular(start.v, b).norm());
        const double largest = std::min(maxStep_, fastest > 0.0 ? kMaxTurn / fastest : maxStep_);
        double hTry = proposal;
        for (int attempt = 0;; ++attempt) {
            const double h = std::min(hTry, largest);
            if (h < 1e-14 * std::max(1.0, std::abs(t)) || attempt > 60) {
                underflowFromExpression_ = false;
                Status failed = Status::failure(
                    "the adaptive integrator could not meet its tolerance at t = " + timeText(t) +
                    " (step size underflow: " +
                    (onManifold && !absoluteNote(model).empty()
                         ? absoluteNote(model)
                         : underflowCause(model, t, worst_)) +
                    ")");
                failed.expressionCause = underflowFromExpression_;
                return failed;
            }
            Eigen::VectorXd yNew;
            bool evaluated = true;
            for (int stage = 1; stage < 7 && evaluated; ++stage) {
                Eigen::VectorXd yStage = y;
                for (int j = 0; j < stage; ++j)
                    if (a[stage][j] != 0.0) yStage += h * a[stage][j] * k[j];
                if (stage == 6) yNew = yStage;
                Status s = f(t + c[stage] * h, yStage, k[stage], onManifold);
                if (!s.ok) {
                    // A failed evaluation inside the step (e.g. a singular intermediate
                    // configuration): retry smaller before giving up.
                    if (attempt > 20) return s;
                    evaluated = false;
                }
            }
            if (!evaluated) {
                hTry = 0.25 * h;
                ++stats_.rejected;
                continue;
            }
            Eigen::VectorXd err = Eigen::VectorXd::Zero(y.size());
            for (int j = 0; j < 7; ++j)
                if (e[j] != 0.0) err += h * e[j] * k[j];
            // Only q and v steer the step; the work accumulators follow along. The error is
            // judged on the parts' poses and velocities whichever coordinates the step is in, so
            // that a tolerance asks the same of both formulations: in joint coordinates, the
            // parts' state where the step ends against where the estimate moves that end.
            // (Judged on the joints' own coordinates, the IFToMM pendulum A01 ended 3.1e-4 m
            // from the exact motion at the default tolerance; judged on the parts, 2.5e-4 m.) A
            // step whose end is not a number is judged as it is (and rejected).
            const Eigen::VectorXd *y0 = &y, *y1 = &yNew, *e1 = &err;
            judgedOnBodies_ = joints_ && allFinite(yNew) && allFinite(err);
            if (judgedOnBodies_) {
                flat_.unpack(yNew, judge_);
                bodyNew_ = origin_.pack(judge_);
                flat_.unpack(yNew + err, judge_);
                bodyError_ = origin_.pack(judge_) - bodyNew_;
                y0 = &step_.origin;
                y1 = &bodyNew_;
                e1 = &bodyError_;
            }
            const Flat& judged = judgedOnBodies_ ? origin_ : flat_;
            const Eigen::Index n = judged.nq + judged.nv;
            const Eigen::ArrayXd scale =
                atol_ + rtol_ * y0->head(n).cwiseAbs().array().max(y1->head(n).cwiseAbs().array());
            const double norm = std::sqrt((e1->head(n).array() / scale).square().mean());
            (e1->head(n).array() / scale).abs().maxCoeff(&worst_);  // for the diagnosis
            worstAbsolute_ = atol_ >= 0.5 * scale(worst_);
            const double factor =
                norm == 0.0 ? 5.0 : std::clamp(0.9 * std::pow(norm, -0.2), 0.2, 5.0);
            if (!(norm <= 1.0 && allFinite(yNew))) {
                ++stats_.rejected;
                hTry = h * std::min(factor, 0.5);
                continue;
            }
            // A motion whose rate jumps (a speed switched at an instant, a kink in a position)
            // is met only where a step ends: every stage takes the rate and acceleration the
            // expression has on the near side, so the embedded error cannot see the jump, and
            // the projection at the step's end makes up for it by moving the motion's
            // coordinate (a crank switched from 1 to 0.01 rad/s at 1.5 s ended 0.017 rad off,
            // a step of 17 ms having straddled the switch). What the motions' rates miss at the
            // step's end, times the step, is judged like the error: far beyond the tolerance,
            // the step is taken again smaller, until the one that holds the jump is too short
            // for it to matter.
            if (model.hasWorkingRows()) {
                if (Status s = detail::checkMotionJumps(model, t, t + h); !s.ok) return s;
            }
            if (!model.drivers.empty() && motionMiss(model, t + h, yNew, h) > kMotionMiss) {
                ++stats_.rejected;
                hTry = 0.25 * h;
                continue;
            }
            ++stats_.steps;
            step_.h = h;
            step_.next = h * factor;
            step_.onManifold = onManifold;
            Eigen::VectorXd* r = step_.r;
            r[0] = y;
            r[1] = yNew - y;
            r[2] = h * k[0] - r[1];
            r[3] = r[1] - h * k[6] - r[2];
            r[4] = Eigen::VectorXd::Zero(y.size());
            for (int j = 0; j < 7; ++j)
                if (d[j] != 0.0) r[4] += h * d[j] * k[j];
            step_.end = start;
            flat_.unpack(yNew, step_.end, t + h);
            step_.end.t = t + h;
            if (Status s = flat_.settle(
                    model, step_.end, w, &stats_.projectionIterations,
                    onManifold ? kStageTolerance * model.settings.projectionTolerance : 0.0);
                !s.ok)
                return s;
            // What expressions read of the previous step: the solve where this one ended.
            if (Status s = updateLagged(model, step_.end, w, nullptr); !s.ok) return s;
            step_.valid = true;
            return {};
        }
    }

    // What the motions' rows miss at a step's end (before its projection), in units of the
    // step's tolerance on the motion's coordinate: the rate against the one its expression asks
    // there (a position-level motion's, the expression's derivative), times the step.
    double motionMiss(const Model& model, double t1, const Eigen::VectorXd& y, double h) {
        flat_.unpack(y, missState_);
        computeBodyFrames(model, missState_.q, missState_.v, missFrames_);
        double worst = 0.0;
        for (const DriverModel& driver : model.drivers) {
            if (driver.level == MotionLevel::Acceleration || !driver.on) continue;
            const ConstraintRow c =
                jointCoordinate(model, missFrames_, driver.joint, driver.coordinate);
            const double rate =
                driver.level == MotionLevel::Velocity ? driver.f.eval(t1) : driver.f.derivative(t1);
            const double miss = h * std::abs(c.rate - rate) / (atol_ + rtol_ * std::abs(c.value));
            if (miss > worst) worst = miss;
        }
        return worst;
    }

    // Whether the state names the step that holds it (see State::stepOrigin).
    bool hasStepOrigin(const State& s) const {
        return s.stepOrigin.size() == origin_.nq + origin_.nv + 2 && s.stepHint > 0.0 &&
               s.stepStart <= s.t && s.t <= s.stepStart + s.stepHint * (1.0 + 1e-9) &&
               s.stepOrigin.allFinite();
    }

    static bool sameVector(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
        return a.size() == b.size() && std::equal(a.data(), a.data() + a.size(), b.data());
    }

    static constexpr double kMaxTurn = 1.0;             // rad per step
    static constexpr long kSingularWindowDivisor = 50;  // (see advance())
    static constexpr double kMotionMiss = 10.0;         // tolerances a motion's row may miss by
    State missState_;
    std::vector<BodyFrame> missFrames_;
    double maxStep_, rtol_, atol_;
    Flat flat_;    // the coordinates it steps in
    Flat origin_;  // and those of State::stepOrigin (the bodies', whichever they are)
    bool joints_;  // joint coordinates (the recursive formulation) over tree_
    detail::TreeHolder tree_;
    State judge_;                  // (joint coordinates: the parts' state the error is judged on)
    bool judgedOnBodies_ = false;  // the last try's error was judged on the parts' state
    Eigen::VectorXd bodyNew_, bodyError_;
    Eigen::Index worst_ = 0;  // the state entry with the largest scaled error of the last try
    // Whether the last underflowCause() found a force element's expression (Status::expressionCause).
    mutable bool underflowFromExpression_ = false;
    bool worstAbsolute_ = false;  // and its scale was mostly the absolute tolerance
    Workspace stepWs_;
    bool stepWorkspaceReady_ = false;
    std::vector<double> pendingMemory_;  // the step solver's memory to take back (see above)
    struct Step {
        bool valid = false;
        State start;              // where it began (the reference for joint coordinates too)
        Eigen::VectorXd y0;       // start, flattened
        Eigen::VectorXd origin;   // and in the bodies' coordinates (State::stepOrigin)
        double proposal = 0.0;    // the size asked for
        double h = 0.0;           // the size taken
        double next = 0.0;        // the proposal for the step after it
        bool onManifold = false;  // next to a singular position (stages projected)
        State end;                // projected: the next step's start
        Eigen::VectorXd k[7];     // stage derivatives
        Eigen::VectorXd r[5];     // interpolant coefficients
    } step_;
};

}  // namespace

std::unique_ptr<Integrator> detail::makeDormandPrince45(double maxStep, double relativeTolerance,
                                                        double absoluteTolerance, bool joints) {
    return std::make_unique<DormandPrince45>(maxStep, relativeTolerance, absoluteTolerance, joints);
}

}  // namespace engine
