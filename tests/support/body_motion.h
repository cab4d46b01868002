#pragma once
// Moving bodies' configurations by hand, for tests that check constraint rows against finite
// differences.

#include <Eigen/Core>

#include "engine/model/layout.h"
#include "engine/model/model.h"
#include "engine/state/state.h"

namespace engine::test {

// Moves body b by Δ = (δr, δπ') (δπ' a body-axes rotation vector): coordinate 0–2 along the
// world axes, 3–5 about the body's axes.
inline void perturb(Eigen::VectorXd& q, int b, int coordinate, double eps) {
    if (coordinate < 3) {
        layout::position(q, b)(coordinate) += eps;
        return;
    }
    const Quat e =
        (bodyOrientation(q, b) * Quat(Eigen::AngleAxisd(eps, Vec3::Unit(coordinate - 3))))
            .normalized();
    layout::orientation(q, b) << e.w(), e.x(), e.y(), e.z();
}

// Configuration after time t of motion with constant v_W and ω' (body axes) per body.
inline Eigen::VectorXd moved(const Model& model, const State& s, double t) {
    Eigen::VectorXd q = s.q;
    for (int b = 0; b < model.bodyCount(); ++b) {
        layout::position(q, b) += t * layout::linear(s.v, b);
        const Vec3 w = layout::angular(s.v, b);
        if (w.norm() == 0.0) continue;
        const Quat e =
            (bodyOrientation(s.q, b) * Quat(Eigen::AngleAxisd(w.norm() * t, w.normalized())))
                .normalized();
        layout::orientation(q, b) << e.w(), e.x(), e.y(), e.z();
    }
    return q;
}

}  // namespace engine::test
