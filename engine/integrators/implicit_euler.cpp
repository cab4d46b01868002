// Implicit (backward) Euler for stiff springs, dampers and bushings (seed 003 §0.9.2), and the
// trapezoidal rule (§0.10) — the θ-method with θ = 1 and θ = ½.
//
// The step solves, for v⁺ and the constraint impulses μ,
//
//     M (v⁺ − v) = h [(1 − θ) M v̇ + θ g(t⁺, q⁺, v⁺)] − Φqᵀ μ,
//     q⁺ = q ⊕ h [(1 − θ) v + θ v⁺],    the rows met at the end
//
// (v̇ the accelerations at the step's start, the joints' forces in them: μ is the end's share of
// the rows' impulse, θ h λ⁺; with θ = ½ the average-acceleration Newmark step)
//
// (position rows Φ(q⁺) = 0, velocity and acceleration rows their velocity residuals, as in the
// symplectic Euler step) by Newton's method on the matrix
//
//     [ A   Φqᵀ ]        A = M − θ h D − θ² h² K,   K = ∂g/∂q (in the retraction coordinates
//     [ Φq   0  ]        δr, δπ'), D = ∂g/∂v,  both at the step's start
//
// factored once per step. K and D are exact: the gyroscopic term analytically, every force
// element by forward-mode dual numbers (forceElementJacobian, engine/forces/forces.h), its
// expressions' measures and variables included (cost linear in the number of elements); soft
// joints as −Φsᵀ(k Φs + c Φ̇s) with Φs's turning left out. The iterations stop when the rows
// are met to the projection tolerance and the force the equations leave over would move the
// bodies, free, by less than it over the step; positions and velocities are then projected
// at q⁺. Implicit Euler: stiff springs that make explicit methods blow up are damped instead:
// the method is L-stable, first order, and loses energy at high frequencies, which is its
// purpose. The trapezoidal rule is A-stable and second order and keeps the energy of an
// undamped linear oscillation at any step (its vibration is not damped away but stays, its
// period slightly lengthened): for lightly damped vibration, mounts and bushings rung at a step
// near their period, where implicit Euler's damping would be the answer's error. (A very stiff
// mode it cannot follow it rings at the step's frequency instead of decaying: implicit Euler's
// case.) Its work of the dampers and the motions is taken at the step's mean, as its positions.

#include <algorithm>
#include <limits>
#include <string>

#include <Eigen/SparseLU>

#include "engine/forces/forces.h"
#include "engine/integrators/detail.h"
#include "engine/integrators/integrator.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/math/finite.h"
#include "engine/model/layout.h"

namespace engine {
namespace {

class ThetaMethod final : public detail::FixedStepIntegrator {
public:
    ThetaMethod(double stepSize, double theta)
        : FixedStepIntegrator(stepSize),
          theta_(theta),
          name_(theta == 1.0 ? "the implicit step" : "the trapezoidal step") {}

private:
    const double theta_;
    const std::string name_;
    ConstraintEvaluation end_;  // the trapezoidal rule's rows at the iterate
    // Newton iterations a step may take; exact Jacobians need two or three where the forces
    // are smooth, more where a force has a kink within the step (a stop closing).
    static constexpr int kMaxIterations = 50;
    std::vector<BodyFrame> frames_;
    std::vector<int> bodies_;
    Eigen::MatrixXd K_, D_;

    Status step(const Model& model, State& state, Workspace& ws, double h) override {
        const double t1 = state.t + h;
        const Eigen::VectorXd q0 = state.q, v0 = state.v;
        const int n = model.velocitySize();

        // Forces and constraint rows at the start of the step.
        ++stats_.evaluations;
        if (Status s = computeAccelerations(model, state.t, q0, v0, state.jointCoordinates,
                                            state.lagged, ws);
            !s.ok)
            return s;
        const double dampingPower = ws.forceEnergies.dampingPower;
        const double actuatorPower = ws.forceEnergies.actuatorPower;
        const double theta = theta_;
        // The explicit share: M v̇ at the step's start, the joints' forces in it (g − Φqᵀ λ, as
        // the average-acceleration Newmark step takes them: positions and velocities both move
        // by the mean of the start's and the end's accelerations), and the start's multipliers.
        const Eigen::VectorXd gStart = ws.vdot.cwiseQuotient(ws.Minv);
        const Eigen::VectorXd lambdaStart = ws.lambda;
        const ConstraintEvaluation start = ws.constraints;
        const std::vector<int>& active = ws.solver.activeRows();
        const int na = static_cast<int>(active.size());

        // A = M − θ h D − θ² h² K. The gyroscopic term −ω' × J'ω' is differentiated analytically;
        // each force element exactly over the coordinates of the (at most two) bodies it acts
        // on and those its expressions read, so the cost grows with the number of elements.
        // `jacobian` holds A − M = −h D − h² K, `triplets` the whole saddle-point matrix.
        std::vector<Eigen::Triplet<double>> triplets, jacobian;
        for (int b = 0; b < model.bodyCount(); ++b) {
            const Vec3 J = model.bodies[static_cast<std::size_t>(b)].inertia;
            const Vec3 w = layout::angular(v0, b);
            // ∂(−ω × Jω)/∂ω = −[ω]× J + [Jω]×
            const Mat3 Dgyro = -skew(w) * J.asDiagonal().toDenseMatrix() + skew(J.cwiseProduct(w));
            for (int r = 0; r < 3; ++r) {
                const Eigen::Index at = layout::velocityIndex(b) + r, angular = at + 3;
                triplets.emplace_back(at, at, 1.0 / ws.Minv(at));
                triplets.emplace_back(angular, angular, 1.0 / ws.Minv(angular));
                for (int c = 0; c < 3; ++c)
                    jacobian.emplace_back(angular, layout::velocityIndex(b) + 3 + c,
                                          -theta * h * Dgyro(r, c));
            }
        }
        const std::vector<int> offsets = jointCoordinateOffsets(model);
        computeBodyFrames(model, q0, v0, frames_);
        for (const ForceModel& force : model.forces) {
            if (!force.on) continue;
            // The bodies it acts on, then those its expressions' measures read.
            bodies_.clear();
            for (int b : forceElementBodies(model, force))
                if (b != kGround && std::find(bodies_.begin(), bodies_.end(), b) == bodies_.end())
                    bodies_.push_back(b);
            for (int b : force.stateBodies)
                if (std::find(bodies_.begin(), bodies_.end(), b) == bodies_.end())
                    bodies_.push_back(b);
            forceElementJacobian(model, force, state.t, frames_, state.jointCoordinates,
                                 state.lagged, offsets, bodies_, K_, D_);
            stats_.evaluations += 1;
            for (std::size_t i = 0; i < bodies_.size(); ++i)
                for (std::size_t k = 0; k < bodies_.size(); ++k)
                    for (int r = 0; r < layout::kVelocitiesPerBody; ++r)
                        for (int c = 0; c < layout::kVelocitiesPerBody; ++c) {
                            const Eigen::Index at =
                                layout::kVelocitiesPerBody * static_cast<Eigen::Index>(i) + r;
                            const Eigen::Index along =
                                layout::kVelocitiesPerBody * static_cast<Eigen::Index>(k) + c;
                            const double value =
                                -theta * h * D_(at, along) - theta * theta * h * h * K_(at, along);
                            if (value != 0.0)
                                jacobian.emplace_back(layout::velocityIndex(bodies_[i]) + r,
                                                      layout::velocityIndex(bodies_[k]) + c, value);
                        }
        }
        // Soft joints (JointCompliance) pull with −Φsᵀλ, λ = k Φs + c Φs q̇: D = −Φsᵀ c Φs and
        // K ≈ −Φsᵀ k Φs (the part from Φs turning with the bodies left out, as the step's
        // linearisation may), the rows as computeAccelerations left them at (q₀, v₀).
        if (model.softRows > 0) {
            const SparseRowMatrix& Js = ws.soft.Phi_q;
            for (int r = 0; r < model.softRows; ++r) {
                const double k = ws.softStiffness(r), c = ws.softDamping(r);
                for (SparseRowMatrix::InnerIterator a(Js, r); a; ++a) {
                    for (SparseRowMatrix::InnerIterator b(Js, r); b; ++b)
                        jacobian.emplace_back(
                            static_cast<int>(a.col()), static_cast<int>(b.col()),
                            (theta * h * c + theta * theta * h * h * k) * a.value() * b.value());
                }
            }
        }
        // The constraint blocks of the saddle-point matrix (active rows only).
        for (int k = 0; k < na; ++k)
            for (SparseRowMatrix::InnerIterator it(start.Phi_q,
                                                   active[static_cast<std::size_t>(k)]);
                 it; ++it) {
                triplets.emplace_back(n + k, static_cast<int>(it.col()), it.value());
                triplets.emplace_back(static_cast<int>(it.col()), n + k, it.value());
            }
        Eigen::SparseMatrix<double> G(n, n);  // A − M
        G.setFromTriplets(jacobian.begin(), jacobian.end());
        triplets.insert(triplets.end(), jacobian.begin(), jacobian.end());
        Eigen::SparseMatrix<double> kkt(n + na, n + na);
        kkt.setFromTriplets(triplets.begin(), triplets.end());
        kkt.makeCompressed();
        Eigen::SparseLU<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> lu;
        lu.compute(kkt);
        if (lu.info() != Eigen::Success)
            return Status::failure(name_ +
                                   "'s linear system is singular at t = " + timeText(state.t));

        // Newton's iterations on the step's equations, the matrix at the step's start. What
        // the equations leave over at an iterate is not formed from M (v − vₙ) + Φqᵀ μ (whose
        // impulses are huge near a singular position, and their round-off with them) but from
        // what the last solve left out: the forces' departure from their linear model,
        //     N = θ h (g(q, v) − g₀) + (A − M)(v − v₀),   the right-hand side N − N_previous,
        // after the first, h [(1 − θ) M v̇ₙ + θ g₀] (g₀ at q ⊕ h vₙ, vₙ). The positions
        // move at the rate w = (1 − θ) vₙ + θ v: a position row's residual Φ(q)/h moves by
        // θ Φq δv, a velocity row's by Φq δv.
        const int rows = model.constraintRows();
        const Eigen::VectorXd accelerationTarget = start.Phi_q * v0 + h * start.gamma;
        Eigen::VectorXd v = v0, q = q0, residual(rows), rhs(n + na), g0(n), left(n), w(n);
        Eigen::VectorXd impulse = Eigen::VectorXd::Zero(rows);
        double dampingEnd = 0.0, actuatorEnd = 0.0;
        for (int iteration = 0;; ++iteration) {
            if (theta == 1.0)
                w = v;
            else
                w = (1.0 - theta) * v0 + theta * v;
            double worst = detail::stepResiduals(model, h, t1, q0, w, start.Phi_q, start.level,
                                                 accelerationTarget, ws, q, residual);
            if (theta != 1.0 && rows > 0) {
                // The rows at the iterate's positions: their Jacobian is the end's share's
                // direction (and the velocity rows' at the end).
                evaluateConstraints(model, t1, ws.frames, end_, false);
                worst = 0.0;
                const Eigen::VectorXd rates = end_.Phi_q * v;
                for (int r = 0; r < rows; ++r) {
                    switch (start.level[static_cast<std::size_t>(r)]) {
                    case MotionLevel::Position:
                        worst = std::max(worst, std::abs(residual(r)) * h);
                        residual(r) /= theta;
                        break;
                    case MotionLevel::Velocity:
                        residual(r) = rates(r) - end_.nu(r);
                        worst = std::max(worst, h * std::abs(residual(r)));
                        break;
                    case MotionLevel::Acceleration:
                        residual(r) = rates(r) - accelerationTarget(r);
                        worst = std::max(worst, h * std::abs(residual(r)));
                        break;
                    }
                }
            }
            // The forces where the iterate puts the bodies.
            ++stats_.evaluations;
            if (Status s = evaluateAppliedForces(model, t1, q, v, state.jointCoordinates,
                                                 state.lagged, ws, true);
                !s.ok)
                return s;
            dampingEnd = ws.forceEnergies.dampingPower;
            actuatorEnd = ws.forceEnergies.actuatorPower;
            if (iteration == 0) {
                g0 = ws.g;
                if (theta == 1.0)
                    rhs.head(n) = h * g0;
                else
                    rhs.head(n) = h * ((1.0 - theta) * gStart + theta * g0);
                left.setZero();
            } else {
                Eigen::VectorXd departure = theta * h * (ws.g - g0);
                departure.noalias() += G * (v - v0);
                // (the end's share of the rows' push along the rows at the iterate, not at the
                // start: Φq(q)ᵀ μ, the matrix having taken Φq(qₙ)ᵀ μ)
                if (theta != 1.0 && rows > 0) {
                    departure.noalias() -= end_.Phi_q.transpose() * impulse;
                    departure.noalias() += start.Phi_q.transpose() * impulse;
                }
                rhs.head(n) = departure - left;
                left = departure;
                // Converged: the rows are met, and what the forces leave over would move the
                // bodies, free, by less than the tolerance over the step.
                const double leftOver =
                    h * ws.Minv.cwiseProduct(rhs.head(n)).lpNorm<Eigen::Infinity>();
                if (worst <= model.settings.projectionTolerance &&
                    leftOver <= model.settings.projectionTolerance) {
                    stats_.newtonIterations += iteration;
                    stats_.mostNewtonIterations = std::max(stats_.mostNewtonIterations, iteration);
                    break;
                }
            }
            if (iteration >= kMaxIterations)
                return Status::failure(name_ + " did not converge at t = " + timeText(t1));
            for (int k = 0; k < na; ++k)
                rhs(n + k) = -residual(active[static_cast<std::size_t>(k)]);
            const Eigen::VectorXd solution = lu.solve(rhs);
            if (!allFinite(solution))
                return Status::failure(
                    name_ + " produced a non-finite velocity at t = " + timeText(t1), {},
                    Cause::NotFinite);
            v += solution.head(n);
            for (int k = 0; k < na; ++k)
                impulse(active[static_cast<std::size_t>(k)]) += solution(n + k);
        }

        state.q = q;
        state.v = v;
        state.t = t1;
        // (the dampers' and controllers' power: implicit Euler's at the step's start, the
        // trapezoidal rule's the mean of the start's and the end's, as it takes their forces;
        // the motions' impulses' work at the positions' rate)
        const double mean = theta == 1.0 ? 0.0 : 0.5;
        state.dissipatedEnergy += h * ((1.0 - mean) * dampingPower + mean * dampingEnd);
        state.driverWork += h * ((1.0 - mean) * actuatorPower + mean * actuatorEnd);
        if (theta == 1.0) {
            detail::addDriverWork(model, start.Phi_q, impulse, v, state);
        } else if (rows > 0) {  // (the end's share along the end's rows, the start's along its)
            detail::addDriverWork(model, end_.Phi_q, impulse, w, state);
            if (lambdaStart.size() == impulse.size())
                detail::addDriverWork(model, start.Phi_q, (1.0 - theta) * h * lambdaStart, w,
                                      state);
        }
        return projectState(model, state, ws, &stats_.projectionIterations, 0.0, true);
    }
};

}  // namespace

std::unique_ptr<Integrator> detail::makeImplicitEuler(double stepSize) {
    return std::make_unique<ThetaMethod>(stepSize, 1.0);
}

std::unique_ptr<Integrator> detail::makeTrapezoidal(double stepSize) {
    return std::make_unique<ThetaMethod>(stepSize, 0.5);
}

}  // namespace engine
