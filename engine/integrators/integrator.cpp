#include "engine/integrators/integrator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "engine/forces/forces.h"
#include "engine/integrators/detail.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/math/finite.h"
#include "engine/model/layout.h"

namespace engine {
namespace {

using detail::normaliseQuaternions;
using detail::retract;

// Flattened ODE state y = [q; v; driverWork; dissipatedEnergy] for the Runge–Kutta methods.
struct Flat {
    int nq = 0, nv = 0;
    Eigen::VectorXd pack(const State& s) const {
        Eigen::VectorXd y(nq + nv + 2);
        y << s.q, s.v, s.driverWork, s.dissipatedEnergy;
        return y;
    }
    void unpack(const Eigen::VectorXd& y, State& s) const {
        s.q = y.head(nq);
        s.v = y.segment(nq, nv);
        s.driverWork = y(nq + nv);
        s.dissipatedEnergy = y(nq + nv + 1);
    }
};

// Next to a singular position the constraint manifold is nearly a crossing of two branches
// (Φ ≈ x·y at a parallelogram lying flat), where a residual ε leaves the state up to √ε off
// the branch it follows: the scene's 1e-10 becomes 1e-5 there, and a step's answer then
// depends on how much drift it happened to carry in. Stages and step ends next to a singular
// position are therefore projected 1000 times tighter (round-off stops Newton near 1e-14
// anyway: the scene's tolerance remains what must hold). Measured on the double four-bar
// (rk4, 2e-3 s, over 3 s): 1.8e-8 m from the reference at the scene's tolerance, 1.1e-9 m so.
constexpr double kStageTolerance = 1e-3;
// A stalled projection asks for rows dropped at a singular position back (projectState) only
// for a gap within this many tolerances: one Newton has all but closed (the double four-bar
// driven slowly through its flat position stuck at 1.0003 of its tolerance). A run gone astray
// otherwise — a spring far too stiff for the step flinging a slider 900 m, its rows dependent
// to the analysis at every stage — asked at every stage and took 20 times as long.
constexpr double kTakeBackGap = 10.0;

// f(t, y) for the Runge–Kutta methods on the flattened state. With `onManifold`, f(P(y)): the
// stage's positions and velocities are first projected onto the constraints (as the end of
// a step is). Next to a singular position the plain f is rough across the constraint
// manifold — a stage a little off it (O(h²)) meets rows that nearly depend on each other,
// and the multipliers that hold them amplify the stage's gap by 1/sin of that angle — while
// f(P(y)) only ever sees consistent states, along which the motion is smooth. Both equal f
// on the manifold, where the exact solution lies, so either keeps the method's order.
Status flatDerivative(const Model& model, const Flat& flat, double t, const Eigen::VectorXd& y,
                      const State& reference, Workspace& ws, Eigen::VectorXd& dy,
                      IntegratorStatistics& stats, bool onManifold = false) {
    Eigen::VectorXd q = y.head(flat.nq), v = y.segment(flat.nq, flat.nv);
    const Eigen::VectorXd* coordinates = &reference.jointCoordinates;
    State projected;
    if (onManifold) {
        projected = reference;
        projected.t = t;
        projected.q = q;
        projected.v = v;
        // Tighter than the scene asks (see kStageTolerance): a stage's gap reaches the
        // multipliers divided by the squared angle between rows that nearly depend.
        if (Status s = projectState(model, projected, ws, nullptr,
                                    kStageTolerance * model.settings.projectionTolerance);
            !s.ok)
            return s;
        q = projected.q;
        v = projected.v;
        coordinates = &projected.jointCoordinates;
    }
    StateDerivative d;
    ++stats.evaluations;
    if (Status s = stateDerivative(model, t, q, v, *coordinates, ws, d); !s.ok) return s;
    dy.resize(y.size());
    dy << d.qdot, d.vdot, d.driverPower, d.dampingPower;
    return {};
}

// Symplectic Euler with SHAKE-type constraint impulses (velocity level) and a RATTLE-type
// velocity projection: the impulses μ act along Φq(qₙ)ᵀ, chosen so that the new positions
// satisfy Φ(qₙ₊₁, tₙ₊₁) = 0; this keeps the scheme symplectic for constrained systems, so
// the energy error stays bounded instead of drifting.
//
//   v* = vₙ + h M⁻¹ g(qₙ, vₙ)
//   v⁺ = v* − M⁻¹ Φq(qₙ)ᵀ μ,   qₙ₊₁ = qₙ ⊕ h v⁺,   μ such that every row is met at tₙ₊₁:
//        position rows  Φ(qₙ₊₁) = 0,  velocity rows  Φq v⁺ = ν,  acceleration rows
//        Φq v⁺ = Φq vₙ + h γ
//   vₙ₊₁ = v⁺ projected on Φq(qₙ₊₁) v = ν.
class SymplecticEuler final : public detail::FixedStepIntegrator {
public:
    using FixedStepIntegrator::FixedStepIntegrator;

private:
    Status step(const Model& model, State& state, Workspace& ws, double h) override {
        const double t1 = state.t + h;
        // The step's vectors live in the integrator: no allocation per step. The state is
        // the step's start until the loop below ends (qₙ read in place).
        Eigen::VectorXd &v = v_, &q = q_, &residual = residual_, &impulse = impulse_;
        const Eigen::VectorXd& q0 = state.q;
        const int rows = model.constraintRows();

        // Forces at the start of the step, Φq(qₙ) factored, v*.
        ++stats_.evaluations;
        if (Status s = detail::beginStep(model, state, ws, h, true, start_); !s.ok) return s;
        const double dampingPower = start_.dampingPower;
        const double actuatorPower = start_.actuatorPower;
        // Φq(qₙ) as factored (the solver's copy: a full evaluation in the loop below writes
        // the workspace's).
        const SparseRowMatrix& J0 = ws.solver.jacobian();
        level_ = ws.constraints.level;
        const std::vector<MotionLevel>& level = level_;
        v = start_.vFree;
        const Eigen::VectorXd& accelerationTarget = start_.accelerationTarget;

        // Impulses by quasi-Newton iterations with the start-of-step Schur complement; only
        // residuals are evaluated inside the loop. The iterations converge linearly: when the
        // last ratio of residuals says the next iterate will meet the tolerance, it is
        // evaluated in full (Φ and Φq at the new positions, the velocity projection's first
        // need), so the iterate that ends the loop is not evaluated twice. Only where every
        // row is a position row: velocity and acceleration rows are measured with Φq(qₙ).
        const bool fuse = rows > 0 && allPositionRows(level);
        residual.resize(rows);
        impulse.setZero(rows);
        int k = 0;
        double previous = 0.0, ratio = kFirstRatio;
        bool full = false;  // the last iterate was evaluated in full
        for (;; ++k) {
            const double predicted = previous * ratio;
            full = fuse && k > 0 && predicted <= kFuseMargin * model.settings.projectionTolerance;
            const double worst = full ? fullResiduals(model, h, t1, q0, v, ws, q, residual)
                                      : detail::stepResiduals(model, h, t1, q0, v, J0, level,
                                                              accelerationTarget, ws, q, residual);
            if (rows == 0 || worst <= model.settings.projectionTolerance) break;
            if (k >= 4 * model.settings.maxProjectionIterations) {
                Eigen::Index row = 0;
                residual.cwiseAbs().maxCoeff(&row);
                return Status::failure(
                    "constraint impulses did not converge at t = " + timeText(t1) + ": " +
                        constraintRowName(model, static_cast<int>(row)),
                    {constraintRowEntity(model, static_cast<int>(row))});
            }
            if (k > 0) ratio = std::clamp(worst / previous, kFirstRatio, 1.0);
            previous = worst;
            // v −= M⁻¹Φqₙᵀ μ, μ = S⁻¹ r (the impulses summed only where motions do work).
            ws.solver.projectAdd(residual, v, model.drivers.empty() ? nullptr : &impulse);
        }
        stats_.projectionIterations = k;
        stats_.impulseIterations += k;

        // (exchanged, not copied: the step's vectors are rewritten whole by the next step)
        state.q.swap(q);
        state.v.swap(v);
        state.t = t1;
        state.dissipatedEnergy += h * dampingPower;
        state.driverWork += h * actuatorPower;
        detail::addDriverWork(model, J0, impulse, state.v, state);

        // Velocities onto the constraint manifold at the new positions (RATTLE). The loop above
        // left Φ at these positions in the workspace (and Φq, when evaluated in full): when the
        // joints' gaps, measured as the projection measures them (a point pair by its
        // distance), are within the tolerance, only the velocities are projected.
        if (!full) normaliseQuaternions(model, state.q);
        if (rows == 0 ||
            maxPositionResidual(model, ws.constraints) > model.settings.projectionTolerance) {
            turn_ = 0.0;
            stale_ = false;
            return projectState(model, state, ws, nullptr, 0.0, true);
        }
        if (full) {
            if (Status s = factorizeEvaluated(model, t1, state.q, ws); !s.ok) return s;
        }
        // The joint coordinates (an atan2 and two axes per joint) are refreshed only every
        // radian of turn: between refreshes no joint turns by π, so each angle unwinds to the
        // value a refresh at every step would give, and the step itself never reads them
        // (nothing in it unwinds against them but rotational springs, for which a radian is
        // as good as a step). Motions and joint controllers read them: refreshed every step.
        // Refreshed by the step that ends an advance() (the run's outputs read them), and by
        // settle() where a run stops on a step that failed.
        double fastest = 0.0;
        for (int b = 0; b < model.bodyCount(); ++b)
            fastest = std::max(fastest, layout::angular(state.v, b).squaredNorm());
        turn_ += 2.0 * h * std::sqrt(fastest);  // a joint turns by at most |ω_i| + |ω_j|
        // After a retry the state is the step's start again, with coordinates up to a radian
        // behind it whatever turn_ says: refreshed at once.
        const bool refresh =
            !deferCoordinates(model) || turn_ > kRefreshTurn || endsAdvance_ || retried_;
        retried_ = false;
        if (refresh) turn_ = 0.0;
        stale_ = !refresh;
        return projectVelocities(model, state, ws, true, refresh);
    }

    void reset() override {
        turn_ = 0.0;
        stale_ = false;
    }

    void settle(const Model& model, State& state, Workspace& ws) override {
        if (!stale_ && !retried_) return;
        retried_ = false;
        updateJointCoordinates(model, state, ws);
        turn_ = 0.0;
        stale_ = false;
    }

    // Whether the step reads the joint coordinates (see step()): a motion or a joint
    // controller, cached per model.
    bool deferCoordinates(const Model& model) {
        if (deferSerial_ != model.serial) {
            deferSerial_ = model.serial;
            defer_ = model.drivers.empty() &&
                     std::none_of(model.forces.begin(), model.forces.end(), [](const auto& f) {
                         return f.type == ForceType::JointController;
                     });
        }
        return defer_;
    }

    static constexpr double kRefreshTurn = 1.0;  // rad of turn between refreshes at most
    double turn_ = 0.0;                          // bound on any joint's turn since the last one
    bool stale_ = false;                         // the state's joint coordinates lag its q
    std::uint64_t deferSerial_ = 0;
    bool defer_ = false;

    // The first iterations' ratio of residuals, assumed until one is measured, and how far
    // below the tolerance a prediction must be for the full evaluation.
    static constexpr double kFirstRatio = 1e-2;
    static constexpr double kFuseMargin = 1.0;

    static bool allPositionRows(const std::vector<MotionLevel>& level) {
        return std::all_of(level.begin(), level.end(),
                           [](MotionLevel l) { return l == MotionLevel::Position; });
    }

    // stepResiduals for position rows, with Φq evaluated at the end positions as well.
    static double fullResiduals(const Model& model, double h, double t1, const Eigen::VectorXd& q0,
                                const Eigen::VectorXd& v, Workspace& ws, Eigen::VectorXd& q,
                                Eigen::VectorXd& residual) {
        detail::stepPositions(model, h, q0, v, q, ws.frames);
        ws.factored = false;  // ws.constraints no longer holds the factored Φq
        evaluateConstraints(model, t1, ws.frames, ws.constraints, false);
        residual = ws.constraints.Phi * (1.0 / h);
        return ws.constraints.Phi.cwiseAbs().maxCoeff();
    }

    Eigen::VectorXd v_, q_, residual_, impulse_;
    detail::StepStart start_;
    std::vector<MotionLevel> level_;
};

class RungeKutta4 final : public detail::FixedStepIntegrator {
public:
    using FixedStepIntegrator::FixedStepIntegrator;

private:
    Status step(const Model& model, State& state, Workspace& ws, double h) override {
        const Flat flat{model.positionSize(), model.velocitySize()};
        const Eigen::VectorXd y = flat.pack(state);
        const double t = state.t;
        Eigen::VectorXd k1, k2, k3, k4;
        if (Status s = flatDerivative(model, flat, t, y, state, ws, k1, stats_); !s.ok) return s;
        // Next to a singular position the stages are taken on the manifold (flatDerivative).
        const bool onManifold = ws.solver.nearSingular();
        if (onManifold) {
            ++stats_.projectedSteps;
            if (Status s = flatDerivative(model, flat, t, y, state, ws, k1, stats_, true); !s.ok)
                return s;
        }
        if (Status s = flatDerivative(model, flat, t + 0.5 * h, y + 0.5 * h * k1, state, ws, k2,
                                      stats_, onManifold);
            !s.ok)
            return s;
        if (Status s = flatDerivative(model, flat, t + 0.5 * h, y + 0.5 * h * k2, state, ws, k3,
                                      stats_, onManifold);
            !s.ok)
            return s;
        if (Status s =
                flatDerivative(model, flat, t + h, y + h * k3, state, ws, k4, stats_, onManifold);
            !s.ok)
            return s;
        flat.unpack(y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4), state);
        state.t = t + h;
        return projectState(
            model, state, ws, &stats_.projectionIterations,
            onManifold ? kStageTolerance * model.settings.projectionTolerance : 0.0);
    }
};

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
    DormandPrince45(double maxStep, double rtol, double atol)
        : maxStep_(maxStep > 0.0 ? maxStep : std::numeric_limits<double>::infinity()),
          rtol_(rtol),
          atol_(atol) {}

    void reset() override {
        step_.valid = false;
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
        flat_ = {model.positionSize(), model.velocitySize()};
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
            flat_.unpack(state.stepOrigin, start);
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
                    return Status::failure(
                        "the adaptive integrator stalled at t = " + timeText(start.t) + ": " +
                        std::to_string(steps) + " steps (the last of " + timeText(last) +
                        ") advanced the run by " + timeText(advanced) + " on the way from t = " +
                        timeText(tStart) + " to t = " + timeText(tEnd) + " (" +
                        (singular
                             ? std::string("all of them taken next to a singular position") +
                                   (absoluteNote(model).empty() ? "" : "; ") + absoluteNote(model)
                             : underflowCause(model, start.t, worst_)) +
                        ")");
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
        flat_.unpack(y, state);
        state.jointCoordinates = step_.start.jointCoordinates;  // unwound within one step
        state.t = tEnd;
        state.stepStart = step_.start.t;
        state.stepOrigin = step_.y0;
        state.stepHint = step_.h;
        return projectState(
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
            for (int k = 0; k <= 100; ++k) {
                const double tk = t + 1e-4 * k;
                const double values[3] = {d.f.eval(tk), d.f.derivative(tk),
                                          d.f.secondDerivative(tk)};
                for (int order = 0; order < 3; ++order) {
                    if (std::isfinite(values[order]) && std::abs(values[order]) <= 1e6) continue;
                    const char* what = order == 0   ? "its value"
                                       : order == 1 ? "its rate"
                                                    : "its acceleration";
                    return "motion '" + d.name + "': " + what + " is " +
                           (std::isfinite(values[order]) ? "beyond 1e6" : "not finite") +
                           " at t = " + timeText(tk) + " (" + d.f.text() + ")";
                }
            }
        }
        if (std::string cause = detail::forceExpressionCause(model, t); !cause.empty())
            return cause;
        const Eigen::Index n = flat_.nq;
        const int body = worst < n ? static_cast<int>(worst / layout::kPositionsPerBody)
                                   : static_cast<int>((worst - n) / layout::kVelocitiesPerBody);
        if (body >= 0 && body < model.bodyCount())
            return "the motion of part '" + model.bodies[static_cast<std::size_t>(body)].name +
                   "' changes too fast to follow: stiff or discontinuous forces on it?";
        return "stiff or discontinuous forces?";
    }

    // Next to a singular position the rows that nearly depend on each other amplify round-off
    // in the accelerations (by 1/pivot), and a velocity that is zero there is judged by the
    // absolute tolerance alone: a linkage driven slowly through its dead point, whose couplers
    // do not turn, stalled at the default 1e-12 rad/s and passed at 1e-10. Said when the
    // largest error of the last try was such a one.
    std::string absoluteNote(const Model& model) const {
        if (!worstAbsolute_) return "";
        const Eigen::Index n = flat_.nq;
        const bool velocity = worst_ >= n;
        const int body = velocity ? static_cast<int>((worst_ - n) / layout::kVelocitiesPerBody)
                                  : static_cast<int>(worst_ / layout::kPositionsPerBody);
        if (body < 0 || body >= model.bodyCount()) return "";
        char tolerance[32];
        std::snprintf(tolerance, sizeof tolerance, "%g", atol_);
        return std::string("the largest error, in part '") +
               model.bodies[static_cast<std::size_t>(body)].name + "''s " +
               (velocity ? "velocity" : "position") +
               ", is judged by the absolute tolerance alone (" + tolerance +
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
        step_.proposal = proposal;
        const Eigen::VectorXd& y = step_.y0;
        Eigen::VectorXd* k = step_.k;
        if (Status s = f(t, y, k[0]); !s.ok) return s;
        // Next to a singular position the stages are taken on the manifold (flatDerivative).
        const bool onManifold = w.solver.nearSingular();
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
            if (h < 1e-14 * std::max(1.0, std::abs(t)) || attempt > 60)
                return Status::failure(
                    "the adaptive integrator could not meet its tolerance at t = " + timeText(t) +
                    " (step size underflow: " +
                    (onManifold && !absoluteNote(model).empty()
                         ? absoluteNote(model)
                         : underflowCause(model, t, worst_)) +
                    ")");
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
            // Only q and v steer the step; the work accumulators follow along.
            const Eigen::Index n = flat_.nq + flat_.nv;
            const Eigen::ArrayXd scale =
                atol_ + rtol_ * y.head(n).cwiseAbs().array().max(yNew.head(n).cwiseAbs().array());
            const double norm = std::sqrt((err.head(n).array() / scale).square().mean());
            (err.head(n).array() / scale).abs().maxCoeff(&worst_);  // for the diagnosis
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
            if (!model.drivers.empty()) {
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
            flat_.unpack(yNew, step_.end);
            step_.end.t = t + h;
            if (Status s = projectState(
                    model, step_.end, w, &stats_.projectionIterations,
                    onManifold ? kStageTolerance * model.settings.projectionTolerance : 0.0);
                !s.ok)
                return s;
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
            if (driver.level == MotionLevel::Acceleration) continue;
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
        return s.stepOrigin.size() == flat_.nq + flat_.nv + 2 && s.stepHint > 0.0 &&
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
    Flat flat_;
    Eigen::Index worst_ = 0;      // the state entry with the largest scaled error of the last try
    bool worstAbsolute_ = false;  // and its scale was mostly the absolute tolerance
    Workspace stepWs_;
    bool stepWorkspaceReady_ = false;
    std::vector<double> pendingMemory_;  // the step solver's memory to take back (see above)
    struct Step {
        bool valid = false;
        State start;              // where it began (the reference for joint coordinates too)
        Eigen::VectorXd y0;       // start, flattened
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

namespace {

// The joint coordinates from ws.frames, which hold the frames at state.q.
void updateJointCoordinatesFromFrames(const Model& model, State& state, const Workspace& ws) {
    int n = 0;
    for (int j = 0; j < static_cast<int>(model.joints.size()); ++j) {
        const JointModel& joint = model.joints[static_cast<std::size_t>(j)];
        for (int c = 0; c < static_cast<int>(joint.coordinates.size()); ++c, ++n) {
            const double value = jointCoordinateValue(model, ws.frames, j, c);
            state.jointCoordinates(n) =
                joint.coordinates[static_cast<std::size_t>(c)] == JointAxis::Rotation
                    ? unwindAngle(value, state.jointCoordinates(n))
                    : value;
        }
    }
}

}  // namespace

void updateJointCoordinates(const Model& model, State& state, Workspace& ws) {
    computeBodyFrames(model, state.q, state.v, ws.frames);
    updateJointCoordinatesFromFrames(model, state, ws);
}

Status projectState(const Model& model, State& state, Workspace& ws, int* iterations,
                    double tolerance, bool driverWork) {
    normaliseQuaternions(model, state.q);
    const SolverSettings& settings = model.settings;
    if (model.constraintRows() > 0) {
        // Positions: Newton steps Δq = −M⁻¹Φqᵀ S⁻¹ Φ on the position-level rows (non-position
        // rows carry Φ = 0: they keep their coordinates still). Residuals alone are cheap;
        // Φq is evaluated and factored only when a correction is needed.
        Eigen::VectorXd delta, before;
        int k = 0;
        double previous = 0.0;
        bool regularised = false, tookBack = false;
        for (;; ++k) {
            computeBodyFrames(model, state.q, state.v, ws.frames);
            evaluateConstraintResiduals(model, state.t, ws.frames, ws.constraints);
            const Eigen::VectorXd residual = ws.constraints.Phi;
            // A NaN compares false with every tolerance: name the row (a motion whose
            // expression is not a number there, a part flung to infinity) instead.
            for (Eigen::Index r = 0; r < residual.size(); ++r)
                if (!std::isfinite(residual(r)))
                    return Status::failure(
                        constraintRowName(model, static_cast<int>(r)) + " is not finite at t = " +
                            timeText(state.t) + " (an expression that is not a number there?)",
                        {constraintRowEntity(model, static_cast<int>(r))}, Cause::NotFinite);
            // Joint gaps as a user measures them (a point pair's distance, not its components).
            int row = 0;
            const double worst = maxPositionResidual(model, ws.constraints, &row);
            if (worst <= (tolerance > 0.0 ? tolerance : settings.projectionTolerance)) break;
            // A tighter goal (stages next to a singular position, where Newton slows down)
            // is met as far as it can be: the scene's tolerance is what must hold. A step that
            // widened the gap from an iterate that met it is taken back, and the projection
            // ends there: where the rows are within a pivot of being dropped, a Newton step
            // along their weak direction overshoots (9e-11 m → 1e-5 m on the double four-bar
            // driven slowly through its flat position), and the regularised steps after it
            // closed that too slowly to meet even the scene's tolerance.
            if (tolerance > 0.0 && k >= 1 && worst > previous &&
                previous <= settings.projectionTolerance) {
                state.q = before;
                computeBodyFrames(model, state.q, state.v, ws.frames);
                evaluateConstraintResiduals(model, state.t, ws.frames, ws.constraints);
                break;
            }
            if (k >= settings.maxProjectionIterations + (tolerance > 0.0 ? 2 : 0) &&
                worst <= settings.projectionTolerance)
                break;
            // ... and no further once Newton stops closing it (at a position the mechanism is
            // held in, where the rows stay dependent, it no longer halves the gap).
            if (tolerance > 0.0 && k >= 2 && worst > 0.5 * previous &&
                worst <= settings.projectionTolerance)
                break;
            if (k >= settings.maxProjectionIterations + (tolerance > 0.0 ? 2 : 0)) {
                return Status::failure(
                    "constraints could not be satisfied at t = " + timeText(state.t) + ": " +
                        constraintRowName(model, static_cast<int>(row)) + " is off by " +
                        constraintResidualText(model, static_cast<int>(row), worst) + " after " +
                        std::to_string(k) + " Newton iterations",
                    {constraintRowEntity(model, static_cast<int>(row))});
            }
            if (Status s = factorizeConstraints(model, state.t, state.q, state.v, ws, false); !s.ok)
                return s;
            // Newton converges quadratically while the rows kept hold every direction the
            // residual needs. Where it stalls with rows dropped at a singular position, the
            // solver is first asked to take back those the correction misses (as a velocity
            // projection does): the mechanism may have left that position, and a dropped row
            // gets no correction (the double four-bar driven slowly through its flat position
            // kept a row dropped after it, and its gap stayed at 1.0003e-10 m). Next to a
            // singular position a row dropped as dependent is only nearly so and its gap does
            // not close: from then on, regularised steps over every row (kkt_solver.h).
            const bool stalled = k >= 1 && worst > 0.1 * previous;
            // (only for a gap Newton had all but closed: kTakeBackGap)
            const bool takeBack = stalled && !tookBack && ws.solver.rank() < ws.solver.bestRank() &&
                                  worst <= kTakeBackGap * settings.projectionTolerance;
            tookBack = tookBack || takeBack;
            if (stalled && !takeBack && ws.solver.rank() < model.constraintRows())
                regularised = true;
            previous = worst;
            if (regularised)
                ws.solver.projectRegularized(residual, delta);
            else
                ws.solver.project(residual, delta, nullptr, takeBack ? worst : 0.0);
            if (tolerance > 0.0 && worst <= settings.projectionTolerance) before = state.q;
            retract(model, state.q, delta);
        }
        if (iterations) *iterations = k;
        return projectVelocities(model, state, ws, driverWork);
    }
    updateJointCoordinates(model, state, ws);
    return {};
}

Status projectVelocities(const Model& model, State& state, Workspace& ws, bool driverWork,
                         bool coordinates) {
    if (model.constraintRows() > 0) {
        // Velocities: v ← v − M⁻¹Φqᵀ S⁻¹ (Φq v − ν) on position- and velocity-level rows, with
        // Φq at the final positions (factored here; the next step starts from it).
        Eigen::VectorXd delta;
        if (Status s = factorizeConstraints(model, state.t, state.q, state.v, ws, false); !s.ok)
            return s;
        for (Eigen::Index r = 0; r < ws.constraints.nu.size(); ++r)
            if (!std::isfinite(ws.constraints.nu(r)))
                return Status::failure(
                    constraintRowName(model, static_cast<int>(r)) +
                        "'s rate is not finite at t = " + timeText(state.t) +
                        " (an expression whose derivative is not a number there?)",
                    {constraintRowEntity(model, static_cast<int>(r))}, Cause::NotFinite);
        // Φq v − ν (acceleration-level rows: 0), and the size of the terms of Φq v = ν (a
        // residual below round-off of it is met), in one pass over Φq.
        const SparseRowMatrix& A = ws.constraints.Phi_q;
        Eigen::VectorXd& residual = ws.velocityResidual;
        residual.resize(A.rows());
        // Rows store whole 6-column body blocks (constraints.h): a block at a time.
        auto velocityResidual = [&] {
            using Vec6 = Eigen::Matrix<double, 6, 1>;
            double scale = 0.0;
            const double* values = A.valuePtr();
            const int* columns = A.innerIndexPtr();
            const int* starts = A.outerIndexPtr();
            for (Eigen::Index r = 0; r < A.outerSize(); ++r) {
                double sum = -ws.constraints.nu(r), terms = std::abs(ws.constraints.nu(r));
                for (int p = starts[r]; p < starts[r + 1]; p += 6) {
                    const Vec6 term = Eigen::Map<const Vec6>(values + p)
                                          .cwiseProduct(state.v.segment<6>(columns[p]));
                    sum += term.sum();
                    terms += term.cwiseAbs().sum();
                }
                scale = std::max(scale, terms);
                residual(r) =
                    ws.constraints.level[static_cast<std::size_t>(r)] == MotionLevel::Acceleration
                        ? 0.0
                        : sum;
            }
            return scale;
        };
        const double scale = velocityResidual();
        if ((model.drivers.empty() || !driverWork) && ws.solver.redundantRows().empty()) {
            // Every row kept (no dropped row to check against the scale): added in place.
            ws.solver.projectAdd(residual, state.v, nullptr);
        } else if (model.drivers.empty() || !driverWork) {
            ws.solver.project(residual, delta, nullptr, scale);
            state.v += delta;
        } else {
            // A motion's row does work here too: a position-level motion's step meets the
            // motion's position, this correction its rate, so a run-up gets part of its speed
            // here (half of it, for a motion stepped at the velocity level). Its impulse μ
            // works at the mean of the velocities before and after, −μ Φq_d (v + v')/2.
            Eigen::VectorXd& mu = ws.velocityImpulse;
            ws.solver.project(residual, delta, &mu, scale);
            for (int d = 0; d < static_cast<int>(model.drivers.size()); ++d) {
                const int row = model.jointRows + d;
                double rate = 0.0;
                for (SparseRowMatrix::InnerIterator it(A, row); it; ++it)
                    rate += it.value() * (state.v(it.col()) + 0.5 * delta(it.col()));
                state.driverWork -= mu(row) * rate;
            }
            state.v += delta;
        }
        // A row dropped as dependent that the correction misses (next to a singular position):
        // regularised corrections over every row until all are met, a few suffice.
        if (ws.solver.unmetRow() >= 0) {
            for (int pass = 0; pass < 4; ++pass) {
                velocityResidual();  // measured against the first residual's terms
                if (residual.cwiseAbs().maxCoeff() <= 1e-13 * scale) break;
                ws.solver.projectRegularized(residual, delta);
                state.v += delta;
            }
        }
        // The position loop ended with the frames at these positions.
        if (coordinates) updateJointCoordinatesFromFrames(model, state, ws);
        return {};
    }
    if (coordinates) updateJointCoordinates(model, state, ws);
    return {};
}

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
        const Expression* expressions[3] = {&force.components[0], &force.components[1],
                                            &force.components[2]};
        const int count =
            force.type == ForceType::JointController                                      ? 1
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
        static constexpr const char* axes[3] = {"x", "y", "z"};
        for (int c = 0; c < count; ++c) {
            const Expression& e = *expressions[c];
            if (e.isConstant()) continue;
            const double before = std::abs(e.eval(std::max(0.0, t - 1e-2)));
            for (int k = 0; k <= samples; ++k) {
                const double tk = t + span * k / samples;
                const double value = e.eval(tk);
                if (!(std::abs(value) > growth * std::max(1.0, before))) continue;
                char text[96];
                std::snprintf(text, sizeof text, "%g at t = %.9g s (%g 10 ms before)", value, tk,
                              before);
                return "force '" + force.name + "': its expression '" + e.text() + "' (" +
                       (count == 1 ? "target" : std::string(axes[c]) + " component") +
                       ") races off to " + text + ": a pole?";
            }
        }
    }
    return {};
}

Status detail::checkMotionJumps(const Model& model, double t0, double t1) {
    for (const DriverModel& driver : model.drivers) {
        if (driver.level != MotionLevel::Position) continue;
        const JointModel& joint = model.joints[static_cast<std::size_t>(driver.joint)];
        const bool angle =
            joint.coordinates[static_cast<std::size_t>(driver.coordinate)] == JointAxis::Rotation;
        auto change = [&](double from, double to) {
            const double d = to - from;
            return angle ? std::remainder(d, 2.0 * kPi) : d;
        };
        double a = t0, b = t1, fa = driver.f.eval(t0), fb = driver.f.eval(t1);
        const double total = change(fa, fb);
        if (!std::isfinite(total) || !(std::abs(total) > kJumpSmallest)) continue;
        bool jump = true;
        while (b - a > 1e-12 * std::max(1.0, std::abs(t1))) {
            const double m = 0.5 * (a + b), fm = driver.f.eval(m);
            const double left = change(fa, fm), right = change(fm, fb);
            if (!std::isfinite(left) || !std::isfinite(right)) {
                jump = false;  // (a value that is not a number is said where it is evaluated)
                break;
            }
            if (std::abs(left) >= std::abs(right)) {
                b = m;
                fb = fm;
            } else {
                a = m;
                fa = fm;
            }
            if (std::abs(change(fa, fb)) < 0.5 * std::abs(total)) {
                jump = false;
                break;
            }
        }
        if (!jump) continue;
        char text[64];
        std::snprintf(text, sizeof text, "%.4g %s", std::abs(change(fa, fb)), angle ? "rad" : "m");
        return Status::failure(
            "motion '" + driver.name + "' jumps by " + text + " at t = " + timeText(b) + " (" +
                driver.f.text() +
                "): the parts cannot be somewhere else from one instant to the next. Make the "
                "change "
                "over some time, e.g. with step(time, t0, from, t1, to), or switch a speed with a "
                "velocity-level motion",
            {driver.id});
    }
    return {};
}

// A mechanism held at a singular position — a linkage stretched straight between two pivots and
// loaded across it — carries the load as an internal force of about W/θ along the rows that
// lose a direction there, θ the angle the projection tolerance leaves them (about
// √(tolerance / L)): reactions set by the joint tolerance, not by the physics, and different
// for every step size (0.6 MN at 1 ms, 0.9 MN at 0.1 ms on a 5 kg linkage under gravity), while
// the motion itself goes on unharmed, so nothing else stops the run. Watched after every step:
// rows on a closed loop within 1e-3 rad of depending on each other (relative pivot below 1e-6)
// or rows dropped as dependent, kHoldSteps steps in a row. Then the reactions are found at the
// state as it is and again with the joints met kHoldTighter times more closely: reactions that
// physics determines move by round-off between the two (1e-12 of them at the IFToMM double
// four-bar's passages), reactions the tolerance sets by their own size; the run stops when
// they still do kHoldAgain later, the rows dependent all along. A passage through a singular
// position never stays that long (12 steps of 0.1 ms at most on the double four-bar; driven
// through it at 0.01 rad/s, the reactions depend on the tolerance for about 3 ms); a mechanism
// resting at one with nothing pushing it across (no reactions) is not stopped, and is looked
// at again after twice as many steps each time, up to kHoldLongest.
namespace {
constexpr long kHoldSteps = 50;
constexpr long kHoldLongest = 800;
constexpr double kHoldPivot = 1e-6;
constexpr double kHoldTighter = 100.0;
constexpr double kHoldChange = 0.1;  // of the reactions, between the two
constexpr double kHoldKeep = 1e-15;  // relative pivot down to which the rows are kept there
constexpr double kHoldAgain = 0.05;  // s from reactions the tolerance sets to the confirmation
}  // namespace

Status detail::FixedStepIntegrator::watchHold(const Model& model, double stepStart,
                                              const State& state, const Workspace& ws) {
    const KktSolver& solver = ws.solver;
    const bool dependent = solver.rows() > 0 && (solver.rank() < solver.bestRank() ||
                                                 solver.weakestLoopPivot() < kHoldPivot);
    if (!dependent || stepStart != holdEnd_) {  // (a state set from elsewhere starts afresh)
        holdSteps_ = 0;
        holdInterval_ = kHoldSteps;
        holdCheck_ = kHoldSteps;
        holdSeen_ = -1.0;
    }
    holdEnd_ = state.t;
    if (!dependent || ++holdSteps_ < holdCheck_) return {};
    if (holdSeen_ >= 0.0 && state.t < holdSeen_ + kHoldAgain) {
        holdCheck_ = holdSteps_ + 1;  // (a confirmation waits for its time)
        return {};
    }

    // The reactions at the state, and with the joints met more closely: the rigid model's, each
    // in a workspace of its own whose rows are analysed afresh at the state and kept down to
    // pivots of kHoldKeep (not the run's, which may have dropped one of them there — its
    // reactions then come and go with the row — and whose memory the run goes on with).
    auto reactions = [&](State at, bool tighter, Eigen::VectorXd& lambda) -> Status {
        Workspace scratch;
        scratch.solver.setSingularPivot(kHoldKeep);
        if (Status s = prepareWorkspace(model, at, scratch); !s.ok) return s;
        if (tighter) {
            if (Status s = projectState(model, at, scratch, nullptr,
                                        model.settings.projectionTolerance / kHoldTighter);
                !s.ok)
                return s;
        }
        if (Status s = computeAccelerations(model, at.t, at.q, at.v, at.jointCoordinates, scratch);
            !s.ok)
            return s;
        lambda = scratch.lambda;
        return {};
    };
    Eigen::VectorXd loose, tight;
    if (!reactions(state, false, loose).ok || !reactions(state, true, tight).ok) return {};
    const int rows = model.constraintRows();
    if (loose.size() < rows || tight.size() < rows) return {};
    Eigen::Index row = 0;
    const double change = (tight.head(rows) - loose.head(rows)).cwiseAbs().maxCoeff(&row);
    const double size =
        std::max(loose.head(rows).cwiseAbs().maxCoeff(), tight.head(rows).cwiseAbs().maxCoeff());
    if (!(change > kHoldChange * size) || !(size > 0.0)) {
        holdSeen_ = -1.0;
        holdInterval_ = std::min(2 * holdInterval_, kHoldLongest);
        holdCheck_ = holdSteps_ + holdInterval_;
        return {};
    }
    // Seen once: a slow passage (a linkage driven through its dead point at 0.01 rad/s) has
    // such reactions too, for the few steps it is within about √(10 tolerance / L) of the
    // position. Held, they are still there kHoldAgain later, the rows dependent all along.
    if (holdSeen_ < 0.0) {
        holdSeen_ = state.t;
        holdCheck_ = holdSteps_ + kHoldSteps;
        return {};
    }
    const int r = static_cast<int>(row);
    char tighterText[32];
    std::snprintf(tighterText, sizeof tighterText, "%g", kHoldTighter);
    return Status::failure("at t = " + timeText(state.t) +
                               " the reactions depend on how closely the joints are met: " +
                               constraintRowName(model, r) + " carries " +
                               constraintReactionText(model, r, loose(row)) +
                               " with the joints met to the scene's projection tolerance, " +
                               constraintReactionText(model, r, tight(row)) + " with them met " +
                               tighterText + " times more closely",
                           {constraintRowEntity(model, r)});
}

void detail::stepPositions(const Model& model, double h, const Eigen::VectorXd& q0,
                           const Eigen::VectorXd& v, Eigen::VectorXd& q,
                           std::vector<BodyFrame>& frames) {
    const int n = model.bodyCount();
    q.resize(q0.size());
    frames.resize(static_cast<std::size_t>(n));
    const double* qIn = q0.data();
    const double* vIn = v.data();
    double* qOut = q.data();
    for (int b = 0; b < n; ++b) {
        BodyFrame& f = frames[static_cast<std::size_t>(b)];
        const double* p0 = qIn + layout::positionIndex(b);
        const double* vb = vIn + layout::velocityIndex(b);
        double* p1 = qOut + layout::positionIndex(b);
        f.r = Vec3(p0[0] + h * vb[0], p0[1] + h * vb[1], p0[2] + h * vb[2]);
        p1[0] = f.r.x();
        p1[1] = f.r.y();
        p1[2] = f.r.z();
        // exp(½ θ') = (cos a, sin(a)/a · ½θ'), a = |½θ'|: by their Taylor series to the a⁸
        // term below a = 0.05 (a step turning a body by at most 0.1 rad, as the fixed-step
        // methods' substeps keep it: truncation below 1e-19), else from sin and cos. The
        // series' coefficients are multiplied, not divided by (a division costs ten
        // multiplications' time, and these four are in a chain).
        const double hx = 0.5 * h * vb[3], hy = 0.5 * h * vb[4], hz = 0.5 * h * vb[5];
        const double a2 = hx * hx + hy * hy + hz * hz;
        double c, sinc;
        if (a2 < 0.0025) {
            constexpr double k2 = 1.0 / 2.0, k12 = 1.0 / 12.0, k30 = 1.0 / 30.0, k56 = 1.0 / 56.0;
            constexpr double k6 = 1.0 / 6.0, k20 = 1.0 / 20.0, k42 = 1.0 / 42.0, k72 = 1.0 / 72.0;
            c = 1.0 - a2 * k2 * (1.0 - a2 * k12 * (1.0 - a2 * k30 * (1.0 - a2 * k56)));
            sinc = 1.0 - a2 * k6 * (1.0 - a2 * k20 * (1.0 - a2 * k42 * (1.0 - a2 * k72)));
        } else {
            const double a = std::sqrt(a2);
            c = std::cos(a);
            sinc = std::sin(a) / a;
        }
        const double dx = sinc * hx, dy = sinc * hy, dz = sinc * hz;
        // e = e₀ ⊗ (c, d), stored (w, x, y, z).
        const double w0 = p0[3], x0 = p0[4], y0 = p0[5], z0 = p0[6];
        double w = w0 * c - x0 * dx - y0 * dy - z0 * dz;
        double x = w0 * dx + x0 * c + y0 * dz - z0 * dy;
        double y = w0 * dy - x0 * dz + y0 * c + z0 * dx;
        double z = w0 * dz + x0 * dy - y0 * dx + z0 * c;
        // Unit length again (the product of unit quaternions is one to round-off).
        const double scale = unitQuaternionScale(w * w + x * x + y * y + z * z);
        w *= scale;
        x *= scale;
        y *= scale;
        z *= scale;
        p1[3] = w;
        p1[4] = x;
        p1[5] = y;
        p1[6] = z;
    }
    // R from the quaternion as stored, as every other frame at this pose forms it: a re-run
    // from a recorded pose then starts from the same Φq to the last bit. (A pass of its own:
    // each body's chain of dependent operations is shorter, so more bodies are in flight.)
    for (int b = 0; b < n; ++b) {
        BodyFrame& f = frames[static_cast<std::size_t>(b)];
        f.R = rotationOfStored(qOut + layout::positionIndex(b) + 3);
        // Poses only: v is an iterate, not the step's end velocity (projected after), so no
        // frame velocity is formed; NaN, so that nothing takes one for it.
        f.v = f.w = Vec3::Constant(std::numeric_limits<double>::quiet_NaN());
    }
}

double detail::stepResiduals(const Model& model, double h, double t1, const Eigen::VectorXd& q0,
                             const Eigen::VectorXd& v, const SparseRowMatrix& J0,
                             const std::vector<MotionLevel>& level,
                             const Eigen::VectorXd& accelerationTarget, Workspace& ws,
                             Eigen::VectorXd& q, Eigen::VectorXd& residual) {
    stepPositions(model, h, q0, v, q, ws.frames);
    const int rows = model.constraintRows();
    residual.resize(rows);
    if (rows == 0) return 0.0;
    evaluateConstraintResiduals(model, t1, ws.frames, ws.constraints);
    auto Jv = [&](int r) {
        double sum = 0.0;
        for (SparseRowMatrix::InnerIterator it(J0, r); it; ++it) sum += it.value() * v(it.col());
        return sum;
    };
    double worst = 0.0;
    const double inverseH = 1.0 / h;
    for (int r = 0; r < rows; ++r) {
        switch (level[static_cast<std::size_t>(r)]) {
        case MotionLevel::Position:
            residual(r) = ws.constraints.Phi(r) * inverseH;
            worst = std::max(worst, std::abs(ws.constraints.Phi(r)));
            break;
        case MotionLevel::Velocity:
            residual(r) = Jv(r) - ws.constraints.nu(r);
            worst = std::max(worst, h * std::abs(residual(r)));
            break;
        case MotionLevel::Acceleration:
            residual(r) = Jv(r) - accelerationTarget(r);
            worst = std::max(worst, h * std::abs(residual(r)));
            break;
        }
    }
    return worst;
}

Status detail::beginStep(const Model& model, const State& state, Workspace& ws, double h,
                         bool softJointForces, StepStart& out) {
    if (Status s = evaluateAppliedForces(model, state.t, state.q, state.v, state.jointCoordinates,
                                         ws, softJointForces);
        !s.ok)
        return s;
    out.dampingPower = ws.forceEnergies.dampingPower;
    out.actuatorPower = ws.forceEnergies.actuatorPower;
    out.vFree = state.v + h * ws.Minv.cwiseProduct(ws.g);
    out.accelerationTarget.resize(0);
    if (model.constraintRows() == 0) return {};
    const bool accelerationRows = hasAccelerationDrivers(model);
    // (the forces left the frames at (qₙ, vₙ))
    if (Status s =
            factorizeConstraints(model, state.t, state.q, state.v, ws, accelerationRows, true);
        !s.ok)
        return s;
    if (accelerationRows)
        out.accelerationTarget = ws.solver.jacobian() * state.v + h * ws.constraints.gamma;
    return {};
}

void detail::addDriverWork(const Model& model, const SparseRowMatrix& J0,
                           const Eigen::VectorXd& impulse, const Eigen::VectorXd& v, State& state) {
    for (int d = 0; d < static_cast<int>(model.drivers.size()); ++d) {
        const int row = model.jointRows + d;
        double rate = 0.0;
        for (SparseRowMatrix::InnerIterator it(J0, row); it; ++it) rate += it.value() * v(it.col());
        state.driverWork -= impulse(row) * rate;
    }
}

std::unique_ptr<Integrator> makeIntegrator(const SolverSettings& settings) {
    switch (settings.integrator) {
    case IntegratorType::SymplecticEuler:
        return std::make_unique<SymplecticEuler>(settings.stepSize);
    case IntegratorType::RungeKutta4:
        return std::make_unique<RungeKutta4>(settings.stepSize);
    case IntegratorType::DormandPrince45:
        return std::make_unique<DormandPrince45>(settings.maxStep, settings.relativeTolerance,
                                                 settings.absoluteTolerance);
    case IntegratorType::ImplicitEuler:
        return detail::makeImplicitEuler(settings.stepSize);
    case IntegratorType::TimeStepping:
        return detail::makeTimeStepping(settings.stepSize);
    }
    return nullptr;
}

}  // namespace engine
