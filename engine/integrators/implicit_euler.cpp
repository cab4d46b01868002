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
// with the same factorisation; then velocities are projected at q⁺. K and D are taken by
// forward differences of the applied forces, one body coordinate at a time (cost grows with
// the square of the number of bodies: meant for the stiff parts of a mechanism, not for
// long chains). Stiff springs that make explicit methods blow up are damped instead: the
// method is L-stable and loses energy at high frequencies, which is its purpose.

#include <Eigen/SparseLU>

#include "engine/forces/forces.h"
#include "engine/integrators/detail.h"
#include "engine/integrators/integrator.h"

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
        if (Status s = computeAccelerations(model, state.t, q0, v0, state.jointCoordinates, ws); !s.ok) return s;
        const Eigen::VectorXd g0 = ws.g;
        const double dampingPower = ws.forceEnergies.dampingPower;
        const ConstraintEvaluation start = ws.constraints;
        const std::vector<int>& active = ws.solver.activeRows();
        const int na = static_cast<int>(active.size());

        // A = M − h D − h² K by forward differences, and K v for the right-hand side.
        std::vector<Eigen::Triplet<double>> triplets;
        Eigen::VectorXd Kv = Eigen::VectorXd::Zero(n), g;
        std::vector<BodyFrame> frames;
        const double eps = 1e-7;
        for (int c = 0; c < n; ++c) {
            const int b = c / 6, k = c % 6;
            Eigen::VectorXd q = q0;
            if (k < 3) {
                q(7 * b + k) += eps;
            } else {
                detail::rotateBody(q, b, eps * Vec3::Unit(k - 3));
            }
            computeBodyFrames(model, q, v0, frames);
            computeAppliedForces(model, state.t, frames, v0, state.jointCoordinates, g);
            const Eigen::VectorXd Kcol = (g - g0) / eps;
            Eigen::VectorXd v = v0;
            const double epsV = eps * std::max(1.0, std::abs(v0(c)));
            v(c) += epsV;
            computeBodyFrames(model, q0, v, frames);
            computeAppliedForces(model, state.t, frames, v, state.jointCoordinates, g);
            const Eigen::VectorXd Dcol = (g - g0) / epsV;
            stats_.evaluations += 2;
            Kv += Kcol * v0(c);
            Eigen::VectorXd column = -h * Dcol - h * h * Kcol;
            column(c) += 1.0 / ws.Minv(c);
            for (int r = 0; r < n; ++r)
                if (column(r) != 0.0 && (r == c || std::abs(column(r)) > 1e-14 * std::abs(column(c))))
                    triplets.emplace_back(r, c, column(r));
        }
        // The constraint blocks of the saddle-point matrix (active rows only).
        for (int k = 0; k < na; ++k)
            for (SparseRowMatrix::InnerIterator it(start.Phi_q, active[static_cast<std::size_t>(k)]); it; ++it) {
                triplets.emplace_back(n + k, static_cast<int>(it.col()), it.value());
                triplets.emplace_back(static_cast<int>(it.col()), n + k, it.value());
            }
        Eigen::SparseMatrix<double> kkt(n + na, n + na);
        kkt.setFromTriplets(triplets.begin(), triplets.end());
        kkt.makeCompressed();
        Eigen::SparseLU<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> lu;
        lu.compute(kkt);
        if (lu.info() != Eigen::Success)
            return Status::failure("the implicit step's linear system is singular at t = " + timeText(state.t));

        // Iterations: the first carries the force terms, all drive the row residuals to zero.
        const int rows = model.constraintRows();
        const Eigen::VectorXd accelerationTarget = start.Phi_q * v0 + h * start.gamma;
        Eigen::VectorXd v = v0, q = q0, residual(rows), rhs(n + na);
        Eigen::VectorXd impulse = Eigen::VectorXd::Zero(rows);
        for (int iteration = 0;; ++iteration) {
            const double worst =
                detail::stepResiduals(model, h, t1, q0, v, start.Phi_q, start.level, accelerationTarget, ws, q, residual);
            if (iteration > 0 && worst <= model.settings.projectionTolerance) break;
            if (iteration > 4 * model.settings.maxProjectionIterations)
                return Status::failure("the implicit step did not converge at t = " + timeText(t1));
            rhs.setZero();
            if (iteration == 0) rhs.head(n) = h * g0 + h * h * Kv;
            for (int k = 0; k < na; ++k) rhs(n + k) = -residual(active[static_cast<std::size_t>(k)]);
            const Eigen::VectorXd solution = lu.solve(rhs);
            if (!solution.allFinite())
                return Status::failure("the implicit step produced a non-finite velocity at t = " + timeText(t1));
            v += solution.head(n);
            for (int k = 0; k < na; ++k) impulse(active[static_cast<std::size_t>(k)]) += solution(n + k);
        }

        state.q = q;
        state.v = v;
        state.t = t1;
        state.dissipatedEnergy += h * dampingPower;
        detail::addDriverWork(model, start.Phi_q, impulse, v, state);
        return projectState(model, state, ws, &stats_.projectionIterations);
    }
};

}  // namespace

std::unique_ptr<Integrator> detail::makeImplicitEuler(double stepSize) {
    return std::make_unique<ImplicitEuler>(stepSize);
}

}  // namespace engine
