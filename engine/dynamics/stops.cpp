#include "engine/dynamics/stops.h"

#include <cmath>

#include "engine/contact/contact_solver.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/kinematics/kinematics.h"
#include "engine/model/layout.h"

namespace engine {

void resolveStopsAtRest(const Model& model, const State& state, Workspace& ws,
                        std::vector<double>& limitForce, double tolerance) {
    limitForce.assign(model.limits.size(), 0.0);
    if (model.limits.empty()) return;
    struct Touch {
        int limit = 0;
        double sign = 1.0;  // +1 lower, −1 upper
        ConstraintRow row;
        int bodyI = kGround, bodyJ = kGround;
    };
    std::vector<Touch> touching;
    for (int l = 0; l < static_cast<int>(model.limits.size()); ++l) {
        const LimitModel& limit = model.limits[static_cast<std::size_t>(l)];
        const ConstraintRow c = jointCoordinate(model, ws.frames, limit.joint, limit.coordinate);
        const double value = state.jointCoordinates.size() > limit.slot
                                 ? state.jointCoordinates(limit.slot)
                                 : c.value;
        const JointModel& joint = model.joints[static_cast<std::size_t>(limit.joint)];
        for (const double sign : {1.0, -1.0}) {
            const double end = sign > 0.0 ? limit.lower : limit.upper;
            if (!std::isfinite(end) || sign * (value - end) > tolerance ||
                sign * c.rate > tolerance)
                continue;
            touching.push_back({l, sign, c,
                                model.markers[static_cast<std::size_t>(joint.markerI)].body,
                                model.markers[static_cast<std::size_t>(joint.markerJ)].body});
        }
    }
    if (touching.empty()) return;

    // Each stop's unit response through the joints, u = w − M⁻¹Φqᵀ S⁻¹ Φq w with w = M⁻¹ Jsᵀ
    // (the joints' multipliers change by S⁻¹ Φq w), and the coordinates' accelerations now.
    const Eigen::Index n = static_cast<Eigen::Index>(touching.size());
    const Eigen::Index nv = model.velocitySize();
    const int rows = model.constraintRows();
    Eigen::MatrixXd U(nv, n), multipliers(rows, n);
    Eigen::VectorXd w(nv), x, mu, away(n);
    for (Eigen::Index k = 0; k < n; ++k) {
        const Touch& t = touching[static_cast<std::size_t>(k)];
        w.setZero();
        double acceleration = -t.row.gamma;
        if (t.bodyI >= 0) {
            layout::twist(w, t.bodyI) +=
                layout::twist(ws.Minv, t.bodyI).cwiseProduct(t.sign * t.row.Ji.transpose());
            acceleration += t.row.Ji.dot(layout::twist(ws.vdot, t.bodyI));
        }
        if (t.bodyJ >= 0) {
            layout::twist(w, t.bodyJ) +=
                layout::twist(ws.Minv, t.bodyJ).cwiseProduct(t.sign * t.row.Jj.transpose());
            acceleration += t.row.Jj.dot(layout::twist(ws.vdot, t.bodyJ));
        }
        away(k) = t.sign * acceleration;
        if (rows > 0) {
            ws.solver.project(ws.constraints.Phi_q * w, x, &mu);
            U.col(k) = w + x;
            multipliers.col(k) = mu;
        } else {
            U.col(k) = w;
        }
    }
    Eigen::MatrixXd W(n, n);
    for (Eigen::Index i = 0; i < n; ++i) {
        const Touch& t = touching[static_cast<std::size_t>(i)];
        for (Eigen::Index k = 0; k < n; ++k) {
            double a = 0.0;
            if (t.bodyI >= 0) a += t.row.Ji.dot(layout::twist(U.col(k), t.bodyI));
            if (t.bodyJ >= 0) a += t.row.Jj.dot(layout::twist(U.col(k), t.bodyJ));
            W(i, k) = t.sign * a;
        }
    }
    Eigen::VectorXd f;
    if (!contact::lemke(W, away, f, static_cast<int>(50 * n + 100))) return;
    ws.vdot += U * f;
    if (rows > 0) ws.lambda += multipliers * f;
    for (Eigen::Index k = 0; k < n; ++k) {
        const Touch& t = touching[static_cast<std::size_t>(k)];
        limitForce[static_cast<std::size_t>(t.limit)] += t.sign * f(k);
    }
}

void addSlidingFriction(const Model& model, Workspace& ws, std::vector<double>& frictionForce,
                        double speed) {
    frictionForce.assign(model.frictions.size(), 0.0);
    if (model.frictions.empty()) return;
    const Eigen::VectorXd g0 = ws.g;
    for (int round = 0; round < 8; ++round) {
        ws.g = g0;
        bool moved = false;
        for (std::size_t k = 0; k < model.frictions.size(); ++k) {
            const JointFrictionModel& f = model.frictions[k];
            if (!f.coulomb()) continue;
            const ConstraintRow c = jointCoordinate(model, ws.frames, f.joint, f.coordinate);
            if (std::abs(c.rate) <= speed) continue;
            Vec3 force_J, torque_J;
            jointRowsReaction(model, ws.frames, ws.constraints.Phi_q, ws.lambda, f.joint, force_J,
                              torque_J);
            const double across = std::hypot(force_J.x(), force_J.y());
            const double lever =
                f.axis == JointAxis::Rotation
                    ? f.radius * across
                    : across + (f.length > 0.0 ? std::hypot(torque_J.x(), torque_J.y()) / f.length
                                               : 0.0);
            const double force = -std::copysign(f.coefficient * lever + f.preload, c.rate);
            if (std::abs(force - frictionForce[k]) > 1e-12 * std::max(1.0, std::abs(force)))
                moved = true;
            frictionForce[k] = force;
            const JointModel& joint = model.joints[static_cast<std::size_t>(f.joint)];
            const int bi = model.markers[static_cast<std::size_t>(joint.markerI)].body;
            const int bj = model.markers[static_cast<std::size_t>(joint.markerJ)].body;
            if (bi >= 0) layout::twist(ws.g, bi) += force * c.Ji.transpose();
            if (bj >= 0) layout::twist(ws.g, bj) += force * c.Jj.transpose();
        }
        if (!moved) return;
        if (model.constraintRows() > 0)
            ws.solver.solve(ws.g, ws.constraints.gamma, ws.vdot, ws.lambda);
        else
            ws.vdot = ws.Minv.cwiseProduct(ws.g);
    }
}

void jointRowsReaction(const Model& model, const std::vector<BodyFrame>& frames,
                       const SparseRowMatrix& Phi_q, const Eigen::VectorXd& lambda, int joint,
                       Vec3& force_J, Vec3& torque_J) {
    const JointModel& j = model.joints[static_cast<std::size_t>(joint)];
    const MarkerModel& mi = model.markers[static_cast<std::size_t>(j.markerI)];
    const MarkerModel& mj = model.markers[static_cast<std::size_t>(j.markerJ)];
    const bool onI = mi.body != kGround;
    const int body = onI ? mi.body : mj.body;
    // Generalised constraint force on `body` from the joint's rows: −Φq_bᵀ λ.
    Eigen::Matrix<double, 6, 1> f = Eigen::Matrix<double, 6, 1>::Zero();
    const int first = model.jointRowOffset[static_cast<std::size_t>(joint)];
    for (int r = first; r < first + j.rows; ++r)
        for (SparseRowMatrix::InnerIterator it(Phi_q, r); it; ++it)
            if (const Eigen::Index k = it.col() - layout::velocityIndex(body);
                k >= 0 && k < layout::kVelocitiesPerBody)
                f(k) -= it.value() * lambda(r);
    const BodyFrame& frame = frames[static_cast<std::size_t>(body)];
    const MarkerFrame I = markerFrame(model, frames, j.markerI);
    const MarkerFrame J = markerFrame(model, frames, j.markerJ);
    const Vec3 F = f.head<3>();
    const Vec3 N = frame.R * f.tail<3>();         // about the COM, world axes
    const Vec3 T = N - (I.p - frame.r).cross(F);  // about I's origin
    force_J = J.R.transpose() * (onI ? F : Vec3(-F));
    torque_J = J.R.transpose() * (onI ? T : Vec3(-T));
}

}  // namespace engine
