// Implicit (backward) Euler for stiff springs, dampers and bushings (seed 003 §0.9.2).
//
// The step solves, for v⁺ and the constraint impulses μ,
//
//     M (v⁺ − v) = h g(t⁺, q⁺, v⁺) − Φqᵀ μ,    q⁺ = q ⊕ h v⁺,    the rows met at the end
//
// (position rows Φ(q⁺) = 0, velocity and acceleration rows their velocity residuals, as in the
// symplectic Euler step) by Newton's method on the matrix
//
//     [ A   Φqᵀ ]        A = M − h D − h² K,   K = ∂g/∂q (in the retraction coordinates δr,
//     [ Φq   0  ]        δπ'), D = ∂g/∂v,  both at the step's start
//
// factored once per step. K and D are exact: the gyroscopic term analytically, every force
// element by forward-mode dual numbers (forceElementJacobian, engine/forces/forces.h), its
// expressions' measures and variables included (cost linear in the number of elements); soft
// joints as −Φsᵀ(k Φs + c Φ̇s) with Φs's turning left out. The iterations stop when the rows
// are met to the projection tolerance and the force the equations leave over would move the
// bodies, free, by less than it over the step; positions and velocities are then projected
// at q⁺. Stiff springs that make
// explicit methods blow up are damped instead: the method is L-stable and loses energy at high
// frequencies, which is its purpose.

#include <algorithm>
#include <limits>

#include <Eigen/SparseLU>

#include "engine/forces/forces.h"
#include "engine/integrators/detail.h"
#include "engine/integrators/integrator.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/math/finite.h"
#include "engine/model/layout.h"

namespace engine {
namespace {

class ImplicitEuler final : public detail::FixedStepIntegrator {
public:
    using FixedStepIntegrator::FixedStepIntegrator;

private:
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
        const ConstraintEvaluation start = ws.constraints;
        const std::vector<int>& active = ws.solver.activeRows();
        const int na = static_cast<int>(active.size());

        // A = M − h D − h² K. The gyroscopic term −ω' × J'ω' is differentiated analytically;
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
                                          -h * Dgyro(r, c));
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
                            const double value = -h * D_(at, along) - h * h * K_(at, along);
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
                        jacobian.emplace_back(static_cast<int>(a.col()), static_cast<int>(b.col()),
                                              (h * c + h * h * k) * a.value() * b.value());
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
            return Status::failure("the implicit step's linear system is singular at t = " +
                                   timeText(state.t));

        // Newton's iterations on the step's equations, the matrix at the step's start. What
        // the equations leave over at an iterate is not formed from M (v − vₙ) + Φqᵀ μ (whose
        // impulses are huge near a singular position, and their round-off with them) but from
        // what the last solve left out: the forces' departure from their linear model,
        //     N = h (g(q, v) − g₀) + (A − M)(v − v₀),   the right-hand side N − N_previous,
        // after the first, h g₀ (g₀ at q ⊕ h vₙ, vₙ).
        const int rows = model.constraintRows();
        const Eigen::VectorXd accelerationTarget = start.Phi_q * v0 + h * start.gamma;
        Eigen::VectorXd v = v0, q = q0, residual(rows), rhs(n + na), g0(n), left(n);
        Eigen::VectorXd impulse = Eigen::VectorXd::Zero(rows);
        for (int iteration = 0;; ++iteration) {
            const double worst = detail::stepResiduals(
                model, h, t1, q0, v, start.Phi_q, start.level, accelerationTarget, ws, q, residual);
            // The forces where the iterate puts the bodies.
            ++stats_.evaluations;
            if (Status s = evaluateAppliedForces(model, t1, q, v, state.jointCoordinates,
                                                 state.lagged, ws, true);
                !s.ok)
                return s;
            if (iteration == 0) {
                g0 = ws.g;
                rhs.head(n) = h * g0;
                left.setZero();
            } else {
                Eigen::VectorXd departure = h * (ws.g - g0);
                departure.noalias() += G * (v - v0);
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
                return Status::failure("the implicit step did not converge at t = " + timeText(t1));
            for (int k = 0; k < na; ++k)
                rhs(n + k) = -residual(active[static_cast<std::size_t>(k)]);
            const Eigen::VectorXd solution = lu.solve(rhs);
            if (!allFinite(solution))
                return Status::failure(
                    "the implicit step produced a non-finite velocity at t = " + timeText(t1), {},
                    Cause::NotFinite);
            v += solution.head(n);
            for (int k = 0; k < na; ++k)
                impulse(active[static_cast<std::size_t>(k)]) += solution(n + k);
        }

        state.q = q;
        state.v = v;
        state.t = t1;
        state.dissipatedEnergy += h * dampingPower;
        state.driverWork += h * actuatorPower;
        detail::addDriverWork(model, start.Phi_q, impulse, v, state);
        return projectState(model, state, ws, &stats_.projectionIterations, 0.0, true);
    }
};

}  // namespace

std::unique_ptr<Integrator> detail::makeImplicitEuler(double stepSize) {
    return std::make_unique<ImplicitEuler>(stepSize);
}

}  // namespace engine
