#pragma once
// Helpers shared by the integrators (not part of the engine's interface).

#include <memory>

#include "engine/model/model.h"
#include "engine/state/state.h"

namespace engine {
class Integrator;
}

namespace engine::detail {

// e ← e ⊗ exp(½ θ') for a rotation vector θ' in body axes.
inline void rotateBody(Eigen::VectorXd& q, int b, const Vec3& theta) {
    const double angle = theta.norm();
    Quat dq = Quat::Identity();
    if (angle > 0.0) dq = Quat(Eigen::AngleAxisd(angle, theta / angle));
    const Quat e = (bodyOrientation(q, b) * dq).normalized();
    q.segment<4>(7 * b + 3) << e.w(), e.x(), e.y(), e.z();
}

inline void normaliseQuaternions(const Model& model, Eigen::VectorXd& q) {
    for (int b = 0; b < model.bodyCount(); ++b) q.segment<4>(7 * b + 3).normalize();
}

// q ⊕ Δ: positions by addition, orientations by the exponential map of the body-axes
// rotation vector Δ(3..5).
inline void retract(const Model& model, Eigen::VectorXd& q, const Eigen::VectorXd& delta) {
    for (int b = 0; b < model.bodyCount(); ++b) {
        q.segment<3>(7 * b) += delta.segment<3>(6 * b);
        rotateBody(q, b, delta.segment<3>(6 * b + 3));
    }
}

std::unique_ptr<engine::Integrator> makeImplicitEuler(double stepSize);

}  // namespace engine::detail
