#pragma once
// Positions and velocities of bodies and markers in the world, from a State.
//
// Per body b: R = R_WB, r = p_WBcm_W, v = v_WBcm_W, w = ω_WB_W (world axes; the state holds
// ω' in body axes, w = R ω').

#include <vector>

#include <Eigen/Core>

#include "engine/math/spatial.h"

namespace engine {

struct Model;
struct State;

struct BodyFrame {
    Mat3 R = Mat3::Identity();
    Vec3 r = Vec3::Zero();
    Vec3 v = Vec3::Zero();
    Vec3 w = Vec3::Zero();
};

void computeBodyFrames(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                       std::vector<BodyFrame>& frames);
BodyFrame bodyFrame(const Eigen::VectorXd& q, const Eigen::VectorXd& v, int body);

// Marker pose X_WM and the velocity of its origin and its angular velocity, in world axes.
struct MarkerFrame {
    Mat3 R = Mat3::Identity();  // R_WM
    Vec3 p = Vec3::Zero();      // p_WMo_W
    Vec3 v = Vec3::Zero();      // velocity of the origin
    Vec3 w = Vec3::Zero();      // angular velocity of the marker (its body's)
};
MarkerFrame markerFrame(const Model& model, const std::vector<BodyFrame>& frames, int marker);

// Skew-symmetric matrix [a]× with [a]× b = a × b.
inline Mat3 skew(const Vec3& a) {
    Mat3 m;
    m << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
    return m;
}

}  // namespace engine
