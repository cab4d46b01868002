#pragma once
// Spatial types used throughout the engine: SI units, world frame W right-handed, z up.
//
//   Vec3, Mat3      fixed-size Eigen vectors and matrices (double)
//   Quat            unit quaternion (w, x, y, z) = Euler parameters (E4, E1, E2, E3)
//   Transform X_AB  pose of frame B in frame A: p_AB (origin of B from A, expressed in A)
//                   and R_AB; X_AB * X_BC = X_AC, X_AB * p_B = p_A.

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "engine/math/constants.h"

namespace engine {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Quat = Eigen::Quaterniond;

struct Transform {
    Quat R = Quat::Identity();  // R_AB
    Vec3 p = Vec3::Zero();      // p_AB, expressed in A

    static Transform identity() { return {}; }

    Transform operator*(const Transform& X_BC) const {
        return {(R * X_BC.R).normalized(), p + R * X_BC.p};
    }
    Vec3 operator*(const Vec3& p_B) const { return p + R * p_B; }
    Transform inverse() const {
        const Quat R_BA = R.conjugate();
        return {R_BA, -(R_BA * p)};
    }
    Mat3 rotationMatrix() const { return R.toRotationMatrix(); }
};

// X is the identity exactly (R = 1 + 0i + 0j + 0k, p = 0). X_AB * X would equal X_AB up to the
// last bit that operator* may round in renormalising; a caller that skips it saves that too.
inline bool isIdentity(const Transform& X) {
    return X.R.w() == 1.0 && X.R.x() == 0.0 && X.R.y() == 0.0 && X.R.z() == 0.0 && X.p.x() == 0.0 &&
           X.p.y() == 0.0 && X.p.z() == 0.0;
}

// Rotation of `angle` radians about `axis` (need not be unit; must be non-zero).
inline Quat quatFromAxisAngle(const Vec3& axis, double angle) {
    return Quat(Eigen::AngleAxisd(angle, axis.normalized()));
}

// Roll-pitch-yaw (radians): R = Rz(yaw) * Ry(pitch) * Rx(roll), the URDF convention.
inline Quat quatFromRollPitchYaw(double roll, double pitch, double yaw) {
    return Quat(Eigen::AngleAxisd(yaw, Vec3::UnitZ()) * Eigen::AngleAxisd(pitch, Vec3::UnitY()) *
                Eigen::AngleAxisd(roll, Vec3::UnitX()));
}

}  // namespace engine
