// Linearly implicit Euler for stiff springs, dampers and bushings (seed 003 §0.9.2).
//
// With q⁺ ≈ q ⊕ h v⁺ and g(q⁺, v⁺) ≈ g + K h v⁺ + D (v⁺ − v), where K = ∂g/∂q (in the
// retraction coordinates δr, δπ') and D = ∂g/∂v, the step solves
//
//     [ A   Φqᵀ ] [ Δv ]   [ h g + h² K v ]        A = M − h D − h² K
//     [ Φq   0  ] [ μ  ] = [ −r           ]        v⁺ = v + Δv,  q⁺ = q ⊕ h v⁺
//
// with the constraint rows met at the end of the step as in the symplectic Euler step (r:
// position rows Φ(q⁺)/h, velocity and acceleration rows their velocity residuals), iterated
// with the same factorisation; then velocities are projected at q⁺. K and D: the gyroscopic
// term analytically, every force element by forward differences of that element alone (cost
// linear in the number of elements). Stiff springs that make explicit methods blow up are
// damped instead: the method is L-stable and loses energy at high frequencies, which is its
// purpose.

#include <algorithm>

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
    Status step(const Model& model, State& state, Workspace& ws, double h) override {
        const double t1 = state.t + h;
        const Eigen::VectorXd q0 = state.q, v0 = state.v;
        const int n = model.velocitySize();

        // Forces and constraint rows at the start of the step.
        ++stats_.evaluations;
        if (Status s = computeAccelerations(model, state.t, q0, v0, state.jointCoordinates, ws);
            !s.ok)
            return s;
        const Eigen::VectorXd g0 = ws.g;
        const double dampingPower = ws.forceEnergies.dampingPower;
        const double actuatorPower = ws.forceEnergies.actuatorPower;
        const ConstraintEvaluation start = ws.constraints;
        const std::vector<int>& active = ws.solver.activeRows();
        const int na = static_cast<int>(active.size());

        // A = M − h D − h² K and K v for the right-hand side. The gyroscopic term −ω' × J'ω'
        // is differentiated analytically; each force element by finite differences of that
        // element alone, over the coordinates of the (at most two) bodies it acts on, so the
        // cost grows with the number of elements.
        std::vector<Eigen::Triplet<double>> triplets;
        Eigen::VectorXd Kv = Eigen::VectorXd::Zero(n);
        for (int b = 0; b < model.bodyCount(); ++b) {
            const Vec3 J = model.bodies[static_cast<std::size_t>(b)].inertia;
            const Vec3 w = layout::angular(v0, b);
            // ∂(−ω × Jω)/∂ω = −[ω]× J + [Jω]×
            const Mat3 Dgyro = -skew(w) * J.asDiagonal().toDenseMatrix() + skew(J.cwiseProduct(w));
            for (int r = 0; r < 3; ++r) {
                const Eigen::Index at = layout::velocityIndex(b) + r, angular = at + 3;
                triplets.emplace_back(at, at, 1.0 / ws.Minv(at));
                for (int c = 0; c < 3; ++c)
                    triplets.emplace_back(
                        angular, layout::velocityIndex(b) + 3 + c,
                        (r == c ? 1.0 / ws.Minv(angular) : 0.0) - h * Dgyro(r, c));
            }
        }
        const std::vector<int> offsets = jointCoordinateOffsets(model);
        std::vector<BodyFrame> frames;
        computeBodyFrames(model, q0, v0, frames);
        Eigen::VectorXd g = Eigen::VectorXd::Zero(n);
        ForceEnergies scratch;
        const double eps = 1e-7;
        for (const ForceModel& force : model.forces) {
            // The bodies it acts on, then those its expressions' measures read: its force
            // depends on all of them, and acts on the first ones only.
            std::vector<int> bodies;
            for (int b : forceElementBodies(model, force))
                if (b != kGround && std::find(bodies.begin(), bodies.end(), b) == bodies.end())
                    bodies.push_back(b);
            for (int b : force.stateBodies)
                if (std::find(bodies.begin(), bodies.end(), b) == bodies.end()) bodies.push_back(b);
            // The element's generalised force on its bodies (12 numbers at most).
            auto evaluate = [&] {
                for (int b : bodies) layout::twist(g, b).setZero();
                applyForceElement(model, force, state.t, frames, state.jointCoordinates, offsets, g,
                                  scratch);
                Eigen::VectorXd out(layout::kVelocitiesPerBody *
                                    static_cast<Eigen::Index>(bodies.size()));
                for (std::size_t k = 0; k < bodies.size(); ++k)
                    layout::twist(out, static_cast<int>(k)) = layout::twist(g, bodies[k]);
                return out;
            };
            const Eigen::VectorXd base = evaluate();
            for (int a : bodies) {
                const BodyFrame saved = frames[static_cast<std::size_t>(a)];
                for (int c = 0; c < layout::kVelocitiesPerBody; ++c) {
                    // ∂/∂q: move body a by ε along coordinate c (position, or body-axes rotation).
                    Eigen::VectorXd q = q0;
                    if (c < 3)
                        layout::position(q, a)(c) += eps;
                    else
                        detail::rotateBody(q, a, eps * Vec3::Unit(c - 3));
                    frames[static_cast<std::size_t>(a)] = bodyFrame(q, v0, a);
                    const Eigen::VectorXd Kcol = (evaluate() - base) / eps;
                    // ∂/∂v
                    Eigen::VectorXd v = v0;
                    const double epsV = eps * std::max(1.0, std::abs(layout::twist(v0, a)(c)));
                    layout::twist(v, a)(c) += epsV;
                    frames[static_cast<std::size_t>(a)] = bodyFrame(q0, v, a);
                    const Eigen::VectorXd Dcol = (evaluate() - base) / epsV;
                    frames[static_cast<std::size_t>(a)] = saved;
                    stats_.evaluations += 2;
                    const Eigen::Index column = layout::velocityIndex(a) + c;
                    for (std::size_t k = 0; k < bodies.size(); ++k)
                        for (int r = 0; r < layout::kVelocitiesPerBody; ++r) {
                            const Eigen::Index i = layout::velocityIndex(static_cast<int>(k)) + r;
                            const Eigen::Index row = layout::velocityIndex(bodies[k]) + r;
                            Kv(row) += Kcol(i) * v0(column);
                            const double value = -h * Dcol(i) - h * h * Kcol(i);
                            if (value != 0.0) triplets.emplace_back(row, column, value);
                        }
                }
            }
        }
        // Soft joints (JointCompliance) pull with −Φsᵀλ, λ = k Φs + c Φs q̇: D = −Φsᵀ c Φs and
        // K ≈ −Φsᵀ k Φs (the part from Φs turning with the bodies left out, as the step's
        // linearisation may), the rows as computeAccelerations left them at (q₀, v₀).
        if (model.softRows > 0) {
            const SparseRowMatrix& Js = ws.soft.Phi_q;
            const Eigen::VectorXd rate = Js * v0;
            for (int r = 0; r < model.softRows; ++r) {
                const double k = ws.softStiffness(r), c = ws.softDamping(r);
                for (SparseRowMatrix::InnerIterator a(Js, r); a; ++a) {
                    Kv(a.col()) -= a.value() * k * rate(r);
                    for (SparseRowMatrix::InnerIterator b(Js, r); b; ++b)
                        triplets.emplace_back(static_cast<int>(a.col()), static_cast<int>(b.col()),
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
        Eigen::SparseMatrix<double> kkt(n + na, n + na);
        kkt.setFromTriplets(triplets.begin(), triplets.end());
        kkt.makeCompressed();
        Eigen::SparseLU<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> lu;
        lu.compute(kkt);
        if (lu.info() != Eigen::Success)
            return Status::failure("the implicit step's linear system is singular at t = " +
                                   timeText(state.t));

        // Iterations: the first carries the force terms, all drive the row residuals to zero.
        const int rows = model.constraintRows();
        const Eigen::VectorXd accelerationTarget = start.Phi_q * v0 + h * start.gamma;
        Eigen::VectorXd v = v0, q = q0, residual(rows), rhs(n + na);
        Eigen::VectorXd impulse = Eigen::VectorXd::Zero(rows);
        for (int iteration = 0;; ++iteration) {
            const double worst = detail::stepResiduals(
                model, h, t1, q0, v, start.Phi_q, start.level, accelerationTarget, ws, q, residual);
            if (iteration > 0 && worst <= model.settings.projectionTolerance) break;
            if (iteration > 4 * model.settings.maxProjectionIterations)
                return Status::failure("the implicit step did not converge at t = " + timeText(t1));
            rhs.setZero();
            if (iteration == 0) rhs.head(n) = h * g0 + h * h * Kv;
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
