#pragma once
// Moving on the configuration space: q ⊕ Δ (positions by addition, orientations by the
// exponential map of a body-axes rotation vector) and unit quaternions kept unit. Used by the
// projection onto the constraints, the steppers and the analyses.

#include <vector>

#include <Eigen/Core>

#include "engine/model/layout.h"
#include "engine/model/model.h"
#include "engine/solver/worker_pool.h"
#include "engine/state/state.h"

namespace engine {

// e ← e ⊗ exp(½ θ') for a rotation vector θ' in body axes.
inline void rotateBody(Eigen::VectorXd& q, int b, const Vec3& theta) {
    const double angle = theta.norm();
    Quat dq = Quat::Identity();
    if (angle > 0.0) dq = Quat(Eigen::AngleAxisd(angle, theta / angle));
    const Quat e = (bodyOrientation(q, b) * dq).normalized();
    layout::orientation(q, b) << e.w(), e.x(), e.y(), e.z();
}

// (`still`, per body or null: bodies left as they are)
inline void normaliseQuaternions(const Model& model, Eigen::VectorXd& q,
                                 const std::vector<char>* still = nullptr) {
    runRanges(static_cast<std::size_t>(model.bodyCount()), kParallelBodies,
              [&](std::size_t first, std::size_t last) {
                  for (std::size_t b = first; b < last; ++b)
                      if (!still || !(*still)[b])
                          layout::orientation(q, static_cast<int>(b)).normalize();
              });
}

// q ⊕ h v: positions by addition, orientations by the exponential map of the body-axes rotation
// vector h v(3..5); each body on its own (on the engine's threads for many). `still` (per body,
// or null): bodies left where they are.
inline void retract(const Model& model, Eigen::VectorXd& q, const Eigen::VectorXd& v, double h,
                    const std::vector<char>* still = nullptr) {
    runRanges(static_cast<std::size_t>(model.bodyCount()), kParallelBodies,
              [&](std::size_t first, std::size_t last) {
                  for (std::size_t body = first; body < last; ++body) {
                      if (still && (*still)[body]) continue;
                      const int b = static_cast<int>(body);
                      layout::position(q, b) += h * layout::linear(v, b);
                      rotateBody(q, b, h * layout::angular(v, b));
                  }
              });
}

// q ⊕ Δ.
inline void retract(const Model& model, Eigen::VectorXd& q, const Eigen::VectorXd& delta) {
    retract(model, q, delta, 1.0);
}

}  // namespace engine
