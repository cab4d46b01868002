// Velocity-level time stepping (Anitescu–Potra, Stewart–Trinkle; seed 003 §0.10): one mixed
// LCP per step for joints, contact and friction.
//
//   v* = vₙ + h M⁻¹ g(qₙ, vₙ)                                     applied forces
//   v⁺ = v* − M⁻¹Φqᵀ μ + Σ_r M⁻¹J_rᵀ x_r                          joint and contact impulses
//   Φq v⁺ = b   (position rows b = −Φ(qₙ, tₙ₊₁)/h: the motion to tₙ₊₁ plus the full
//               correction of any residual; velocity rows ν(tₙ₊₁); acceleration rows
//               Φq vₙ + h γ)
//   contact rows complementary (contact_solver.h), qₙ₊₁ = qₙ ⊕ h v⁺, then projection.
//
// The joint rows are solved exactly (the KKT solver's Schur complement): the free velocity
// v_f meets them, and each contact row's response is projected onto them, so the iterative
// contact solver never sees a joint row and closed loops stay exact however few sweeps it
// makes. Without joints the responses are the free-body ones (12 numbers per row).

#include <algorithm>
#include <cmath>

#include "engine/contact/collision_world.h"
#include "engine/contact/contact_solver.h"
#include "engine/integrators/detail.h"
#include "engine/model/layout.h"

namespace engine {
namespace {

using contact::ContactRows;
using contact::Vec6;

// The first friction direction: along the slip when the contact slides (so box friction and
// the polyhedral cone both resist sliding with exactly μ z), else a fixed perpendicular to n.
Vec3 tangentOf(const Vec3& n, const Vec3& relativeVelocity = Vec3::Zero()) {
    const Vec3 slip = relativeVelocity - relativeVelocity.dot(n) * n;
    if (slip.norm() > 1e-6) return slip.normalized();
    const Vec3 helper = std::abs(n.x()) < 0.6 ? Vec3::UnitX() : Vec3::UnitY();
    return n.cross(helper).normalized();
}

class TimeStepping final : public detail::FixedStepIntegrator {
public:
    using FixedStepIntegrator::FixedStepIntegrator;

private:
    Status step(const Model& model, State& state, Workspace& ws, double h) override {
        const double t1 = state.t + h;
        const Eigen::VectorXd q0 = state.q, v0 = state.v;
        const int rows = model.constraintRows();
        const bool accelerationRows = detail::hasAccelerationDrivers(model);

        ++stats_.evaluations;
        if (Status s = evaluateAppliedForces(model, state.t, q0, v0, state.jointCoordinates, ws);
            !s.ok)
            return s;
        const double dampingPower = ws.forceEnergies.dampingPower;
        const double actuatorPower = ws.forceEnergies.actuatorPower;
        Eigen::VectorXd v = v0 + h * ws.Minv.cwiseProduct(ws.g);

        // Joint rows: factor Φq(qₙ) and meet Φq v = b.
        SparseRowMatrix J0;
        Eigen::VectorXd b;
        if (rows > 0) {
            if (Status s = factorizeConstraints(model, state.t, q0, v0, ws, accelerationRows, true);
                !s.ok)
                return s;
            J0 = ws.constraints.Phi_q;
            const std::vector<MotionLevel> level = ws.constraints.level;
            const Eigen::VectorXd accelerationTarget =
                accelerationRows ? Eigen::VectorXd(J0 * v0 + h * ws.constraints.gamma)
                                 : Eigen::VectorXd();
            evaluateConstraintResiduals(model, t1, ws.frames, ws.constraints);  // frames are at qₙ
            b.resize(rows);
            for (int r = 0; r < rows; ++r) {
                switch (level[static_cast<std::size_t>(r)]) {
                case MotionLevel::Position:
                    b(r) = -ws.constraints.Phi(r) / h;
                    break;
                case MotionLevel::Velocity:
                    b(r) = ws.constraints.nu(r);
                    break;
                case MotionLevel::Acceleration:
                    b(r) = accelerationTarget(r);
                    break;
                }
            }
            Eigen::VectorXd dv;
            // (with the size of its terms: a joint row dropped at a singular position that the
            // mechanism has left is taken back, kkt_solver.h)
            ws.solver.project(J0 * v - b, dv, nullptr, equationScale(J0, v, b));
            v += dv;
        }

        // Contact.
        contact::ContactProblem problem;
        contact::ContactQuery found;
        std::vector<contact::ContactPoint>& points = found.points;
        if (model.contact.enabled) {
            if (Status s = buildContactProblem(model, state, h, ws, problem, found); !s.ok)
                return s;
            if (rows > 0 && !problem.contacts.empty()) projectResponses(model, J0, ws, problem);
            const ContactSettings& settings = model.contact.settings;
            const contact::ContactSolveReport report =
                settings.solver == ContactSolverType::Lemke
                    ? contact::solveLemke(problem, v)
                    : contact::solvePgs(problem, v, settings.iterations, settings.tolerance);
            ws.contactSolver.contacts = static_cast<int>(problem.contacts.size());
            ws.contactSolver.iterations = report.iterations;
            ws.contactSolver.residual = report.residual;
            ws.contactSolver.converged = report.converged;
            if (!report.converged) ++state.unconvergedContactSteps;
            if (!v.allFinite())
                return Status::failure("the contact solve produced a non-finite velocity at t = " +
                                       timeText(t1));
        }

        // The joint impulses the step amounts to: μ with v⁺ = v_c − M⁻¹Φqᵀμ where v_c is v* plus
        // the contact impulses (for reactions, driver work and the energy balance).
        Eigen::VectorXd impulse = Eigen::VectorXd::Zero(rows);
        if (rows > 0) {
            Eigen::VectorXd vc = v0 + h * ws.Minv.cwiseProduct(ws.g);
            for (std::size_t ci = 0; ci < problem.contacts.size(); ++ci) {
                const ContactRows& c = problem.contacts[ci];
                for (int r = 0; r < 3; ++r) {
                    if (c.bodyA >= 0) layout::twist(vc, c.bodyA) += c.MinvJ[r][0] * c.impulse[r];
                    if (c.bodyB >= 0) layout::twist(vc, c.bodyB) += c.MinvJ[r][1] * c.impulse[r];
                }
            }
            Eigen::VectorXd dv;
            ws.solver.project(J0 * vc - b, dv, &impulse);
        }

        // Energy taken out by contact and friction: minus the work of their impulses at the
        // mean of the velocities before and after the step, x·J(vₙ + v⁺)/2 (the step's change
        // of kinetic energy is the work of all its impulses at that mean velocity; a resting
        // or rolling contact does none).
        double contactWork = 0.0;
        for (const ContactRows& c : problem.contacts)
            for (int r = 0; r < 3; ++r)
                contactWork += c.impulse[r] * 0.5 *
                               (contact::rowVelocity(c, r, v0) + contact::rowVelocity(c, r, v));

        state.q = q0;
        detail::retract(model, state.q, h * v);
        state.v = v;
        state.t = t1;
        state.dissipatedEnergy += h * dampingPower - contactWork;
        state.driverWork += h * actuatorPower;
        if (rows > 0) detail::addDriverWork(model, J0, impulse, v, state);

        // Results for outputs at tₙ₊₁ and the warm start of the next step.
        ws.stepLambda = impulse / h;
        ws.contacts.clear();
        for (std::size_t ci = 0; ci < problem.contacts.size(); ++ci) {
            const ContactRows& c = problem.contacts[ci];
            contact::ContactPoint& p = points[ci];
            const Vec3& t1Dir = tangents_[ci];
            const Vec3 t2Dir = p.n_AB_W.cross(t1Dir);
            p.normalImpulse = c.impulse[0];
            p.frictionImpulse_W = c.impulse[1] * t1Dir + c.impulse[2] * t2Dir;
            ContactPointState& kept = found.persistent[p.persistent];
            kept.normalImpulse = p.normalImpulse;
            kept.frictionImpulse_W = p.frictionImpulse_W;
            if (c.impulse[0] <= 0.0 && p.depth < 0.0) continue;  // an idle speculative contact
            ContactForce f;
            f.partA = static_cast<int>(p.partA);
            f.partB = static_cast<int>(p.partB);
            f.point_W = 0.5 * (p.p_WA_W + p.p_WB_W);
            f.normal_W = p.n_AB_W;
            f.depth = p.depth;
            f.normalForce = c.impulse[0] / h;
            f.frictionForce_W = p.frictionImpulse_W / h;
            ws.contacts.push_back(f);
        }
        state.contacts = std::move(found.persistent);

        if (Status s = projectState(model, state, ws, &stats_.projectionIterations); !s.ok)
            return s;
        ws.stepResultsValid = true;
        ws.stepTime = state.t;
        return {};
    }

    // Contact points at qₙ (merged into the persistent points of the state) and their rows:
    // normal and tangents, targets, friction.
    Status buildContactProblem(const Model& model, const State& state, double h, Workspace& ws,
                               contact::ContactProblem& problem, contact::ContactQuery& found) {
        const Eigen::VectorXd& q = state.q;
        const Eigen::VectorXd& v = state.v;
        std::vector<contact::ContactPoint>& points = found.points;
        if (!world_ || worldSerial_ != model.serial) {
            world_ = std::make_unique<contact::CollisionWorld>(model.contact);
            worldSerial_ = model.serial;
        }
        for (int b = 0; b < model.bodyCount(); ++b) {
            const BodyModel& body = model.bodies[static_cast<std::size_t>(b)];
            const Transform X_WB{bodyOrientation(q, b), bodyPosition(q, b)};
            world_->setPartPose(static_cast<std::size_t>(body.partIndex),
                                X_WB * body.X_PB.inverse());
        }
        const ContactSettings& settings = model.contact.settings;
        found = world_->query(settings.margin, state.contacts);
        // Highest contacts first (along gravity): the first Gauss–Seidel sweep then carries the
        // weight of a stack down to its base.
        if (model.gravity.norm() > 0.0) {
            const Vec3 up = -model.gravity.normalized();
            std::vector<std::pair<double, std::size_t>> order(points.size());
            for (std::size_t k = 0; k < points.size(); ++k)
                order[k] = {-(points[k].p_WA_W + points[k].p_WB_W).dot(up), k};
            std::sort(order.begin(), order.end());
            std::vector<contact::ContactPoint> sorted;
            sorted.reserve(points.size());
            for (const auto& entry : order) sorted.push_back(points[entry.second]);
            points = std::move(sorted);
        }
        // Per body, once: orientation as a matrix and world angular velocity.
        rotation_.resize(static_cast<std::size_t>(model.bodyCount()));
        for (int b = 0; b < model.bodyCount(); ++b)
            rotation_[static_cast<std::size_t>(b)] = bodyOrientation(q, b).toRotationMatrix();
        auto pointVelocity = [&](int b, const Vec3& point) -> Vec3 {
            if (b < 0) return Vec3::Zero();
            const Vec3 w = rotation_[static_cast<std::size_t>(b)] * Vec3(layout::angular(v, b));
            return layout::linear(v, b) + w.cross(point - bodyPosition(q, b));
        };
        problem.friction = settings.friction;
        problem.coneFacets = settings.coneFacets;
        problem.contacts.reserve(points.size());
        tangents_.clear();
        const bool byFrequency = settings.frequency > 0.0;
        const bool soft = settings.stiffness > 0.0 || byFrequency;
        const double omega = 2.0 * kPi * settings.frequency;
        std::vector<contact::ContactPoint> kept;
        kept.reserve(points.size());
        for (const contact::ContactPoint& p : points) {
            ContactRows c;
            c.bodyA = model.bodyOfPart[p.partA];
            c.bodyB = model.bodyOfPart[p.partB];
            if (c.bodyA < 0 && c.bodyB < 0) continue;
            const Vec3 point = 0.5 * (p.p_WA_W + p.p_WB_W);
            const Vec3 n = p.n_AB_W;
            const Vec3 t1 =
                tangentOf(n, pointVelocity(c.bodyB, point) - pointVelocity(c.bodyA, point));
            const Vec3 t2 = n.cross(t1);
            const Vec3 directions[3] = {n, t1, t2};
            for (int side = 0; side < 2; ++side) {
                const int body = side == 0 ? c.bodyA : c.bodyB;
                if (body < 0) continue;
                const double sign = side == 0 ? -1.0 : 1.0;
                const Mat3& R = rotation_[static_cast<std::size_t>(body)];
                const Vec3 arm = point - bodyPosition(q, body);
                for (int r = 0; r < 3; ++r) {
                    Vec6 row;
                    row << sign * directions[r], sign * (R.transpose() * arm.cross(directions[r]));
                    c.J[r][side] = row;
                    c.MinvJ[r][side] = layout::twist(ws.Minv, body).cwiseProduct(row);
                }
            }
            const ContactMaterial material =
                model.contact.combined(static_cast<int>(p.partA), static_cast<int>(p.partB));
            c.friction = material.friction;

            // The normal row's bound: close a gap at most, push a penetration out.
            const double approach =
                contact::rowVelocity(c, 0, v);  // before the step; < 0 approaching
            // Soft contact acts from touching on (a part set down exactly on a surface, or
            // within `slop` of it, sinks into it as the spring says); a wider gap closes first.
            if (p.depth > 0.0 || (soft && p.depth > -settings.slop)) {
                if (soft) {
                    // k and c given, or from the frequency and damping ratio with the mass the
                    // contact's normal row moves: m = 1 / (J M⁻¹ Jᵀ).
                    double k = settings.stiffness, d = settings.damping;
                    if (byFrequency) {
                        double inverseMass = 0.0;
                        for (int side = 0; side < 2; ++side)
                            if ((side == 0 ? c.bodyA : c.bodyB) >= 0)
                                inverseMass += c.J[0][side].dot(c.MinvJ[0][side]);
                        const double m = 1.0 / inverseMass;
                        k = m * omega * omega;
                        d = 2.0 * settings.dampingRatio * m * omega;
                    }
                    c.compliance = 1.0 / (h * (h * k + d));
                    c.target = h * k / (h * k + d) * p.depth / h;
                } else {
                    c.target = settings.stabilization * std::max(0.0, p.depth - settings.slop) / h;
                }
            } else {
                c.target = p.depth / h;  // = −gap / h
            }
            // An impact within this step bounces with restitution e.
            if (material.restitution > 0.0 && approach < -settings.restitutionThreshold &&
                -p.depth <= -approach * h)
                c.target = std::max(c.target, -material.restitution * approach);

            // Warm start from the stored impulses of a persistent point.
            c.impulse[0] = p.normalImpulse;
            c.impulse[1] = p.frictionImpulse_W.dot(t1);
            c.impulse[2] = p.frictionImpulse_W.dot(t2);
            problem.contacts.push_back(c);
            kept.push_back(p);
            tangents_.push_back(t1);
        }
        points = std::move(kept);
        return {};
    }

    // Contact responses projected onto the joint constraints: u = w − M⁻¹Φqᵀ S⁻¹ Φq w with
    // w = M⁻¹Jᵀ (a contact impulse moves jointed bodies together).
    static void projectResponses(const Model& model, const SparseRowMatrix& J0, Workspace& ws,
                                 contact::ContactProblem& problem) {
        const Eigen::Index nv = model.velocitySize();
        problem.U.setZero(nv, static_cast<Eigen::Index>(3 * problem.contacts.size()));
        Eigen::VectorXd w(nv), dv;
        for (std::size_t ci = 0; ci < problem.contacts.size(); ++ci) {
            const ContactRows& c = problem.contacts[ci];
            for (int r = 0; r < 3; ++r) {
                w.setZero();
                if (c.bodyA >= 0) layout::twist(w, c.bodyA) += c.MinvJ[r][0];
                if (c.bodyB >= 0) layout::twist(w, c.bodyB) += c.MinvJ[r][1];
                ws.solver.project(J0 * w, dv);
                problem.U.col(static_cast<Eigen::Index>(3 * ci) + r) = w + dv;
            }
        }
    }

    std::unique_ptr<contact::CollisionWorld> world_;
    std::vector<Vec3> tangents_;  // per contact of the step: its first friction direction
    std::vector<Mat3> rotation_;  // per body: R_WB at the start of the step
    std::uint64_t worldSerial_ = 0;
};

}  // namespace

std::unique_ptr<Integrator> detail::makeTimeStepping(double stepSize) {
    return std::make_unique<TimeStepping>(stepSize);
}

}  // namespace engine
