#pragma once
// Building blocks of every constraint primitive (seed 001): vectors attached to the two
// bodies i and j of a joint, with what the constraint row needs of them.
//
// For a vector u(q) built from marker points and axes:
//   x      its value (world axes)
//   xd     its time derivative u̇ = Ji vᵢ + Jj vⱼ
//   Ji,Jj  its Jacobians (3×6) with respect to each body's velocity (v_W, ω' in body axes)
//   kappa  the part of ü that does not multiply accelerations: ü = Ji v̇ᵢ + Jj v̇ⱼ + kappa
// For a point on body b at world offset s from its COM:  Jb = [I, −[s]× R_b],
// kappa = ω × (ω × s); for an axis a fixed in b:  Jb = [0, −[a]× R_b], kappa = ω × (ω × a).
//
// A scalar row Φ = u · w then has
//   ∂Φ/∂v = wᵀ J_u + uᵀ J_w,   Φ̇ = u̇·w + u·ẇ,   γ = −(w·κ_u + u·κ_w + 2 u̇·ẇ),
// with γ the right-hand side of Φq v̇ = γ.

#include <Eigen/Core>

#include "engine/kinematics/kinematics.h"

namespace engine {

using Mat36 = Eigen::Matrix<double, 3, 6>;
using Row6 = Eigen::Matrix<double, 1, 6>;

struct KinematicVector {
    Vec3 x = Vec3::Zero();
    Vec3 xd = Vec3::Zero();
    Vec3 kappa = Vec3::Zero();
    Mat36 Ji = Mat36::Zero();
    Mat36 Jj = Mat36::Zero();
};

// One constraint row between bodies i and j.
struct ConstraintRow {
    double value = 0.0;  // Φ
    double rate = 0.0;   // Φ̇ (from the velocities)
    double gamma = 0.0;  // γ
    Row6 Ji = Row6::Zero();
    Row6 Jj = Row6::Zero();
};

// side: 0 for body i, 1 for body j. `frame` is null for the ground.
inline KinematicVector markerPoint(const BodyFrame* frame, const Transform& X_BM, int side) {
    KinematicVector k;
    if (!frame) {
        k.x = X_BM.p;
        return k;
    }
    const Vec3 s = frame->R * X_BM.p;
    k.x = frame->r + s;
    k.xd = frame->v + frame->w.cross(s);
    k.kappa = frame->w.cross(frame->w.cross(s));
    Mat36& J = side == 0 ? k.Ji : k.Jj;
    J.leftCols<3>().setIdentity();
    J.rightCols<3>() = -skew(s) * frame->R;
    return k;
}

// a_B: the axis in the body frame (for the ground, in the world).
inline KinematicVector markerAxis(const BodyFrame* frame, const Vec3& a_B, int side) {
    KinematicVector k;
    if (!frame) {
        k.x = a_B;
        return k;
    }
    const Vec3 a = frame->R * a_B;
    k.x = a;
    k.xd = frame->w.cross(a);
    k.kappa = frame->w.cross(frame->w.cross(a));
    Mat36& J = side == 0 ? k.Ji : k.Jj;
    J.rightCols<3>() = -skew(a) * frame->R;
    return k;
}

inline KinematicVector operator-(const KinematicVector& u, const KinematicVector& w) {
    KinematicVector k;
    k.x = u.x - w.x;
    k.xd = u.xd - w.xd;
    k.kappa = u.kappa - w.kappa;
    k.Ji = u.Ji - w.Ji;
    k.Jj = u.Jj - w.Jj;
    return k;
}

inline ConstraintRow dot(const KinematicVector& u, const KinematicVector& w) {
    ConstraintRow r;
    r.value = u.x.dot(w.x);
    r.rate = u.xd.dot(w.x) + u.x.dot(w.xd);
    r.gamma = -(w.x.dot(u.kappa) + u.x.dot(w.kappa) + 2.0 * u.xd.dot(w.xd));
    r.Ji = w.x.transpose() * u.Ji + u.x.transpose() * w.Ji;
    r.Jj = w.x.transpose() * u.Jj + u.x.transpose() * w.Jj;
    return r;
}

// Component k of a vector as a row: Φ = u_k.
inline ConstraintRow component(const KinematicVector& u, int k) {
    ConstraintRow r;
    r.value = u.x(k);
    r.rate = u.xd(k);
    r.gamma = -u.kappa(k);
    r.Ji = u.Ji.row(k);
    r.Jj = u.Jj.row(k);
    return r;
}

}  // namespace engine
