#include "engine/kinematics/frame_motion.h"

#include "engine/model/layout.h"
#include "engine/model/model.h"
#include "engine/state/state.h"

namespace engine {

const char* frameMotionExpressionName(int k) {
    static constexpr const char* kNames[6] = {"translation x",
                                              "translation y",
                                              "translation z",
                                              "rotation about x (roll)",
                                              "rotation about y (pitch)",
                                              "rotation about z (yaw)"};
    return kNames[k];
}

FrameMotionState frameMotionAt(const FrameMotionModel& motion, double t) {
    FrameMotionState s;
    double angle[3], rate[3], acc[3];
    for (int k = 0; k < 3; ++k) {
        const Expression& e = motion.rotation[k];
        angle[k] = e.eval(t);
        rate[k] = e.isConstant() ? 0.0 : e.derivative(t);
        acc[k] = e.isConstant() ? 0.0 : e.secondDerivative(t);
        const Expression& d = motion.translation[k];
        s.frame.r(k) = motion.origin0(k) + d.eval(t);
        s.frame.v(k) = d.isConstant() ? 0.0 : d.derivative(t);
        s.acceleration(k) = d.isConstant() ? 0.0 : d.secondDerivative(t);
    }
    // R = Rz(ψ) Ry(θ) Rx(φ): ω = ψ̇ z + θ̇ u + φ̇ w with u = Rz y and w = Rz Ry x, whose rates
    // are u̇ = ψ̇ z × u and ẇ = (ψ̇ z + θ̇ u) × w.
    const Eigen::AngleAxisd Rx(angle[0], Vec3::UnitX()), Ry(angle[1], Vec3::UnitY()),
        Rz(angle[2], Vec3::UnitZ());
    s.frame.R = (Rz * Ry * Rx).toRotationMatrix();
    const Vec3 z = Vec3::UnitZ();
    const Vec3 u = Rz * Vec3::UnitY();
    const Vec3 w = Rz * (Ry * Vec3::UnitX());
    const Vec3 wzy = rate[2] * z + rate[1] * u;
    s.frame.w = wzy + rate[0] * w;
    s.angularAcceleration = acc[2] * z + acc[1] * u + rate[1] * (rate[2] * z).cross(u) +
                            acc[0] * w + rate[0] * wzy.cross(w);
    return s;
}

void frameMotionRows(const FrameMotionModel& motion, const BodyFrame& body, double t,
                     ConstraintRow rows[6], double nu[6]) {
    const FrameMotionState m = frameMotionAt(motion, t);
    const Vec3& wM = m.frame.w;
    // The target point and its rates: x = r_M + s, ẋ = v_M + ω×s, ẍ = a_M + α×s + ω×(ω×s).
    const Vec3 s = m.frame.R * motion.X_MB.p;
    const Vec3 x = m.frame.r + s;
    const Vec3 xd = m.frame.v + wM.cross(s);
    const Vec3 xdd = m.acceleration + m.angularAcceleration.cross(s) + wM.cross(wM.cross(s));
    for (int k = 0; k < 3; ++k) {
        ConstraintRow& r = rows[k];
        r.value = body.r(k) - x(k);
        r.Ji.setZero();
        r.Ji(k) = 1.0;
        r.Jj.setZero();
        r.gamma = xdd(k);
        r.rate = body.v(k) - xd(k);
        nu[k] = xd(k);
    }
    // a·b, a a body axis, b a target axis:  Ji = [0, (a×b)ᵀR],  ν = −a·ḃ,
    // γ = −(b·ω×(ω×a) + a·b̈ + 2 ȧ·ḃ),  ḃ = ω_M×b,  b̈ = α_M×b + ω_M×(ω_M×b).
    const Mat3 RT = m.frame.R * motion.X_MB.rotationMatrix();
    const Vec3& wB = body.w;
    static constexpr int kPairs[3][2] = {{0, 1}, {1, 2}, {2, 0}};
    for (int k = 0; k < 3; ++k) {
        const Vec3 a = body.R.col(kPairs[k][0]);
        const Vec3 b = RT.col(kPairs[k][1]);
        const Vec3 ad = wB.cross(a), bd = wM.cross(b);
        const Vec3 bdd = m.angularAcceleration.cross(b) + wM.cross(bd);
        ConstraintRow& r = rows[3 + k];
        r.value = a.dot(b);
        r.Ji.leftCols<3>().setZero();
        r.Ji.rightCols<3>() = a.cross(b).transpose() * body.R;
        r.Jj.setZero();
        r.gamma = -(b.dot(wB.cross(ad)) + a.dot(bdd) + 2.0 * ad.dot(bd));
        r.rate = ad.dot(b) + a.dot(bd);
        nu[3 + k] = -a.dot(bd);
    }
}

}  // namespace engine
