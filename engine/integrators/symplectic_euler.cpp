#include <algorithm>
#include <cmath>

#include "engine/dynamics/projection.h"
#include "engine/forces/forces.h"
#include "engine/integrators/detail.h"
#include "engine/math/finite.h"

namespace engine {
namespace {

using detail::normaliseQuaternions;
using detail::retract;

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
            ws.solver.projectAdd(residual, v, model.hasWorkingRows() ? &impulse : nullptr);
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

    // Whether the step reads the joint coordinates (see step()): a motion, a joint controller
    // or an expression of the state, cached per model.
    bool deferCoordinates(const Model& model) {
        if (deferSerial_ != model.serial) {
            deferSerial_ = model.serial;
            defer_ = model.drivers.empty() && model.stateValueCount() == 0 &&
                     std::none_of(model.forces.begin(), model.forces.end(),
                                  [](const auto& f) { return isJointServo(f.type); });
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

// The same method in joint coordinates (the recursive formulation): q̇ₙ₊₁ = q̇ₙ + h q̈(qₙ, q̇ₙ),
// qₙ₊₁ = qₙ + h q̇ₙ₊₁, q̈ by the articulated-body algorithm. One evaluation a step, nothing to
// iterate or project: the joints hold by construction (a closed tree's loops are held by
// impulses as the maximal step holds joints, LoopStepper; one on a moving frame closed again
// after the step, projectLoopClosure). The semi-implicit Euler that MuJoCo
// and Bullet's multibody step trees with: with a mass matrix that depends on q it is not
// exactly symplectic (the canonical momenta are M(q) q̇), but first order with an energy error
// that stays small over long runs (joint_space_test.cpp measures both). The step starts from
// the bodies' state, whatever set it.
class JointSpaceSymplecticEuler final : public detail::FixedStepIntegrator {
public:
    using FixedStepIntegrator::FixedStepIntegrator;
    void reset() override {
        tree_.reset();
        loops_.reset();
        trees_.reset();
    }
    void forcesChanged() override {}  // nothing kept from a step's forces
    void saveStepMemory(double* memory, int size) const override {
        loops_.saveMemory(memory, size);
    }
    void restoreStepMemory(const double* memory, int size) override {
        loops_.restoreMemory(memory, size);
    }

private:
    Status step(const Model& model, State& state, Workspace& ws, double h) override {
        if (Status s = tree_.build(model, state); !s.ok) return s;
        ++stats_.evaluations;
        // A closed tree's loops held by impulses, as the maximal coordinates hold joints.
        if (LoopStepper::takes(model, *tree_))
            return loops_.step(model, *tree_, state, ws, h, stats_.projectionIterations);
        const bool kept = TreeStepper::takes(model, *tree_);
        if (Status s = kept ? trees_.start(model, *tree_, state, ws, q_, qd_, qdd_)
                            : articulatedAccelerationsAt(model, *tree_, state, q_, qd_, ws, qdd_);
            !s.ok)
            return s;
        qd_ += h * qdd_;
        integrateJointCoordinates(*tree_, q_, qd_, h);
        prescribeMotions(model, *tree_, state.t + h, q_, qd_);
        if (Status s = projectLoopClosure(model, *tree_, state.t + h, q_, qd_, 0.0,
                                          &stats_.projectionIterations, &ws.loopBestPivot);
            !s.ok)
            return s;
        state.dissipatedEnergy += h * ws.forceEnergies.dampingPower;
        // (the motions' work at the step's mean rate, as in TimeStepping's joint-space step)
        state.driverWork +=
            h * ws.forceEnergies.actuatorPower + 0.5 * h * h * ws.forceEnergies.motionPowerRate;
        state.t += h;
        if (kept)
            trees_.finish(model, *tree_, q_, qd_, state);
        else
            bodyStateFromJoints(model, *tree_, q_, qd_, state);
        return {};
    }

    detail::TreeHolder tree_;
    LoopStepper loops_;
    TreeStepper trees_;
    Eigen::VectorXd q_, qd_, qdd_;
};

}  // namespace

std::unique_ptr<Integrator> detail::makeSymplecticEuler(double stepSize, bool joints) {
    if (joints) return std::make_unique<JointSpaceSymplecticEuler>(stepSize);
    return std::make_unique<SymplecticEuler>(stepSize);
}

}  // namespace engine
