#pragma once
// Positions and velocities of bodies and markers in the world, from a State.
//
// Per body b: R = R_WB, r = p_WBcm_W, v = v_WBcm_W, w = ω_WB_W (world axes; the state holds
// ω' in body axes, w = R ω').

#include <cmath>
#include <vector>

#include <Eigen/Core>

#include "engine/math/spatial.h"

namespace engine {

struct Model;
struct State;

// On a scalar S: double, or Dual (engine/math/dual.h) for the derivatives of the force
// elements along a direction of the bodies' coordinates (engine/forces/force_jacobian.h).
template <class S>
struct BodyFrameOf {
    Eigen::Matrix<S, 3, 3> R = Eigen::Matrix<S, 3, 3>::Identity();
    Eigen::Matrix<S, 3, 1> r = Eigen::Matrix<S, 3, 1>::Zero();
    Eigen::Matrix<S, 3, 1> v = Eigen::Matrix<S, 3, 1>::Zero();
    Eigen::Matrix<S, 3, 1> w = Eigen::Matrix<S, 3, 1>::Zero();
};
using BodyFrame = BodyFrameOf<double>;

// `held` (per body, or null): bodies whose frames already are those at (q, v) — left as they
// are (sleeping parts at rest, a stepper that knows their state has not changed).
void computeBodyFrames(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                       std::vector<BodyFrame>& frames, const std::vector<char>* held = nullptr);
BodyFrame bodyFrame(const Eigen::VectorXd& q, const Eigen::VectorXd& v, int body);
// The rotation of a quaternion e = (w, x, y, z) as stored in q, made unit length again first
// (state.h's unitQuaternionScale): what bodyFrame() and the integrators' step ends form, so
// every frame at a pose has the same R to the last bit, however the pose was reached.
inline Mat3 rotationOfStored(const double* e) {
    const double n2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3];
    const double scale =
        std::abs(n2 - 1.0) < 1e-8 ? 0.5 * (3.0 - n2) : 1.0 / std::sqrt(n2);  // unitQuaternionScale
    const double w = e[0] * scale, x = e[1] * scale, y = e[2] * scale, z = e[3] * scale;
    const double tx = 2.0 * x, ty = 2.0 * y, tz = 2.0 * z;
    const double twx = tx * w, twy = ty * w, twz = tz * w;
    const double txx = tx * x, txy = ty * x, txz = tz * x;
    const double tyy = ty * y, tyz = tz * y, tzz = tz * z;
    Mat3 R;
    R << 1.0 - (tyy + tzz), txy - twz, txz + twy,  //
        txy + twz, 1.0 - (txx + tzz), tyz - twx,   //
        txz - twy, tyz + twx, 1.0 - (txx + tyy);
    return R;
}

// Marker pose X_WM and the velocity of its origin and its angular velocity, in world axes.
template <class S>
struct MarkerFrameOf {
    Eigen::Matrix<S, 3, 3> R = Eigen::Matrix<S, 3, 3>::Identity();  // R_WM
    Eigen::Matrix<S, 3, 1> p = Eigen::Matrix<S, 3, 1>::Zero();      // p_WMo_W
    Eigen::Matrix<S, 3, 1> v = Eigen::Matrix<S, 3, 1>::Zero();      // velocity of the origin
    Eigen::Matrix<S, 3, 1> w = Eigen::Matrix<S, 3, 1>::Zero();      // its body's angular velocity
};
using MarkerFrame = MarkerFrameOf<double>;
// (for double and Dual)
template <class S>
MarkerFrameOf<S> markerFrame(const Model& model, const std::vector<BodyFrameOf<S>>& frames,
                             int marker);

// Skew-symmetric matrix [a]× with [a]× b = a × b.
inline Mat3 skew(const Vec3& a) {
    Mat3 m;
    m << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
    return m;
}

}  // namespace engine
