#include "engine/kinematics/joint_coordinates.h"

#include <cmath>

#include "engine/kinematics/curve_geometry.h"
#include "engine/math/dual.h"
#include "engine/model/model.h"

namespace engine {
namespace {

const BodyFrame* frameOf(const std::vector<BodyFrame>& frames, int body) {
    return body == kGround ? nullptr : &frames[static_cast<std::size_t>(body)];
}

// Positions only (no Jacobians): a marker's origin and axes in the world.
Vec3 pointValue(const BodyFrame* f, const Transform& X_BM) {
    return f ? Vec3(f->r + f->R * X_BM.p) : X_BM.p;
}
Vec3 axisValue(const BodyFrame* f, const MarkerModel& m, int k) {
    return f ? Vec3(f->R * m.R_BM.col(k)) : Vec3(m.R_BM.col(k));
}

// A ball joint's cone angle: θ between the z axes of I and J, atan2(|z_J × z_I|, z_I·z_J).
// With e = (z_J × z_I)/|z_J × z_I|, θ̇ = e·(ω_I − ω_J) and θ̈ = e·(α_I − α_J) + ė·(ω_I − ω_J).
ConstraintRow coneAngle(const BodyFrame* fi, const MarkerModel& mi, const BodyFrame* fj,
                        const MarkerModel& mj) {
    const Vec3 a = axisValue(fi, mi, 2), b = axisValue(fj, mj, 2);
    const Vec3 m = b.cross(a);
    const double sine = m.norm();
    ConstraintRow r;
    r.value = std::atan2(sine, a.dot(b));
    if (!(sine > 1e-12)) return r;  // along each other: no direction to turn apart in
    const Vec3 e = m / sine;
    const Vec3 wi = fi ? fi->w : Vec3::Zero(), wj = fj ? fj->w : Vec3::Zero();
    r.rate = e.dot(wi - wj);
    if (fi) r.Ji.rightCols<3>() = e.transpose() * fi->R;
    if (fj) r.Jj.rightCols<3>() = -e.transpose() * fj->R;
    const Vec3 mdot = wj.cross(b).cross(a) + b.cross(wi.cross(a));
    const Vec3 edot = (mdot - e * e.dot(mdot)) / sine;
    r.gamma = -edot.dot(wi - wj);
    return r;
}

// The angle of u (fixed in body a) from `from` (fixed in body b) about n (fixed in body c: a or
// b), u and `from` perpendicular to n: atan2((from × u)·n, from·u). Where the joint holds u ⊥ n,
// its rate is (ω_a − ω_b)·n whichever body carries n (the other turning about n moves u or
// `from` in the plane), and its γ: −(ω_a − ω_b)·(ω_c × n).
ConstraintRow pinAngle(const Vec3& u, const Vec3& from, const Vec3& n, const BodyFrame* fa,
                       const BodyFrame* fb, const BodyFrame* fc) {
    ConstraintRow r;
    r.value = std::atan2(from.cross(u).dot(n), from.dot(u));
    const Vec3 wa = fa ? fa->w : Vec3::Zero(), wb = fb ? fb->w : Vec3::Zero();
    const Vec3 wc = fc ? fc->w : Vec3::Zero();
    r.rate = (wa - wb).dot(n);
    r.gamma = -(wa - wb).dot(wc.cross(n));
    if (fa) r.Ji.rightCols<3>() = n.transpose() * fa->R;
    if (fb) r.Jj.rightCols<3>() = -n.transpose() * fb->R;
    return r;
}

// A universal joint's two angles (its pins: J's z axis and I's, kept perpendicular): q0 the turn
// about J's pin, the angle of I's z axis from J's x axis about J's z; q1 the turn about I's
// pin, the angle of I's x axis from J's z axis about I's z.
ConstraintRow universalAngle(const BodyFrame* fi, const MarkerModel& mi, const BodyFrame* fj,
                             const MarkerModel& mj, int coordinate) {
    const Vec3 zi = axisValue(fi, mi, 2), zj = axisValue(fj, mj, 2);
    if (coordinate == 0) return pinAngle(zi, axisValue(fj, mj, 0), zj, fi, fj, fj);
    return pinAngle(axisValue(fi, mi, 0), zj, zi, fi, fj, fi);
}

// A point on a curve's parameter, a cam pair's gap.
ConstraintRow curveCoordinate(const JointModel& joint, const BodyFrame* fi, const MarkerModel& mi,
                              const BodyFrame* fj, const MarkerModel& mj) {
    const CurveSide I(fi, mi), J(fj, mj);
    if (joint.follower) {
        const CamContact c = camContact(I, J, *joint.follower, *joint.curve);
        return camGapRow(c, I, J, *joint.curve);
    }
    return curveParameterRow(curveFoot(I, J, *joint.curve), I, J);
}

}  // namespace

ConstraintRow jointCoordinate(const Model& model, const std::vector<BodyFrame>& frames, int joint,
                              int coordinate) {
    const JointModel& jm = model.joints[static_cast<std::size_t>(joint)];
    const MarkerModel& mi = model.markers[static_cast<std::size_t>(jm.markerI)];
    const MarkerModel& mj = model.markers[static_cast<std::size_t>(jm.markerJ)];
    const BodyFrame* fi = frameOf(frames, mi.body);
    const BodyFrame* fj = frameOf(frames, mj.body);
    if (jm.curve) return curveCoordinate(jm, fi, mi, fj, mj);
    if (jm.type == JointType::Spherical) return coneAngle(fi, mi, fj, mj);
    if (jm.type == JointType::Universal) return universalAngle(fi, mi, fj, mj, coordinate);
    if (jm.surface) {
        const CurveSide I(fi, mi), J(fj, mj);
        return surfaceParameterRow(surfaceFoot(I, J, *jm.surface), I, J, coordinate);
    }
    // A slide along J's z axis; a planar joint's along J's x and y.
    if (jm.coordinates[static_cast<std::size_t>(coordinate)] == JointAxis::Translation) {
        const int axis = jm.type == JointType::Planar ? coordinate : 2;
        return dot(markerAxis(fj, mj.R_BM.col(axis), 1),
                   markerPoint(fi, mi.X_BM, 0) - markerPoint(fj, mj.X_BM, 1));
    }

    // Angle of I's x axis from J's x axis about J's z axis. With the joint's axes aligned,
    // θ̇ = (ω_i − ω_j)·z_J and θ̈ = (α_i − α_j)·z_J + (ω_j × z_J)·(ω_i − ω_j).
    // (the axes' values only: their Jacobians are not needed here)
    const Vec3 zj = axisValue(fj, mj, 2);
    const Vec3 xi = axisValue(fi, mi, 0);
    const Vec3 xj = axisValue(fj, mj, 0);
    ConstraintRow r;
    r.value = std::atan2(xj.cross(xi).dot(zj), xj.dot(xi));
    const Vec3 wi = fi ? fi->w : Vec3::Zero();
    const Vec3 wj = fj ? fj->w : Vec3::Zero();
    r.rate = (wi - wj).dot(zj);
    r.gamma = -wj.cross(zj).dot(wi - wj);
    if (fi) r.Ji.rightCols<3>() = zj.transpose() * fi->R;
    if (fj) r.Jj.rightCols<3>() = -zj.transpose() * fj->R;
    return r;
}

double jointCoordinateValue(const Model& model, const std::vector<BodyFrame>& frames,
                            int jointIndex, int coordinate) {
    const JointModel& joint = model.joints[static_cast<std::size_t>(jointIndex)];
    const MarkerModel& mi = model.markers[static_cast<std::size_t>(joint.markerI)];
    const MarkerModel& mj = model.markers[static_cast<std::size_t>(joint.markerJ)];
    const BodyFrame* fi = frameOf(frames, mi.body);
    const BodyFrame* fj = frameOf(frames, mj.body);
    if (joint.curve) return curveCoordinate(joint, fi, mi, fj, mj).value;
    if (joint.type == JointType::Spherical) {
        const Vec3 a = axisValue(fi, mi, 2), b = axisValue(fj, mj, 2);
        return std::atan2(b.cross(a).norm(), a.dot(b));
    }
    if (joint.surface) {
        const CurveSide I(fi, mi), J(fj, mj);
        const SurfaceFoot foot = surfaceFoot(I, J, *joint.surface);
        return coordinate == 0 ? foot.u : foot.v;
    }
    if (joint.type == JointType::Universal) return universalAngle(fi, mi, fj, mj, coordinate).value;
    const Vec3 zj = axisValue(fj, mj, 2);
    if (joint.coordinates[static_cast<std::size_t>(coordinate)] == JointAxis::Translation)
        return axisValue(fj, mj, joint.type == JointType::Planar ? coordinate : 2)
            .dot(pointValue(fi, mi.X_BM) - pointValue(fj, mj.X_BM));
    const Vec3 xi = axisValue(fi, mi, 0), xj = axisValue(fj, mj, 0);
    return std::atan2(xj.cross(xi).dot(zj), xj.dot(xi));
}

Vec3 relativeAngularVelocity(const Model& model, const std::vector<BodyFrame>& frames, int joint) {
    const JointModel& jm = model.joints[static_cast<std::size_t>(joint)];
    const BodyFrame* fi = frameOf(frames, model.markers[static_cast<std::size_t>(jm.markerI)].body);
    const BodyFrame* fj = frameOf(frames, model.markers[static_cast<std::size_t>(jm.markerJ)].body);
    return (fi ? fi->w : Vec3::Zero()) - (fj ? fj->w : Vec3::Zero());
}

namespace {

// A marker's axis, origin and its velocity on frames of S (null: the ground).
template <class S>
using Vec3Of = Eigen::Matrix<S, 3, 1>;

template <class S>
Vec3Of<S> axisOf(const BodyFrameOf<S>* f, const MarkerModel& m, int k) {
    const Vec3Of<S> a = m.R_BM.col(k).template cast<S>();
    return f ? Vec3Of<S>(f->R * a) : a;
}
template <class S>
Vec3Of<S> pointOf(const BodyFrameOf<S>* f, const MarkerModel& m) {
    const Vec3Of<S> p = m.X_BM.p.template cast<S>();
    return f ? Vec3Of<S>(f->r + f->R * p) : p;
}
template <class S>
Vec3Of<S> pointVelocityOf(const BodyFrameOf<S>* f, const MarkerModel& m) {
    if (!f) return Vec3Of<S>::Zero();
    return f->v + f->w.cross(Vec3Of<S>(f->R * m.X_BM.p.template cast<S>()));
}
template <class S>
Vec3Of<S> spinOf(const BodyFrameOf<S>* f) {
    return f ? f->w : Vec3Of<S>::Zero();
}

// The frames moved by h along the dual frames' tangents (a rotation's tangent R' = R [e]×
// turned into R exp(h [e]×)).
std::vector<BodyFrame> alongTangent(const std::vector<BodyFrameOf<Dual>>& frames, double h) {
    std::vector<BodyFrame> out(frames.size());
    for (std::size_t b = 0; b < frames.size(); ++b) {
        const BodyFrameOf<Dual>& f = frames[b];
        Mat3 R, dR;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                R(i, j) = f.R(i, j).a;
                dR(i, j) = f.R(i, j).b;
            }
        const Mat3 E = R.transpose() * dR;
        const Vec3 e(0.5 * (E(2, 1) - E(1, 2)), 0.5 * (E(0, 2) - E(2, 0)),
                     0.5 * (E(1, 0) - E(0, 1)));
        const double angle = h * e.norm();
        out[b].R = angle > 0.0 ? Mat3(R * Eigen::AngleAxisd(angle, e.normalized())) : R;
        for (int i = 0; i < 3; ++i) {
            out[b].r(i) = f.r(i).a + h * f.r(i).b;
            out[b].v(i) = f.v(i).a + h * f.v(i).b;
            out[b].w(i) = f.w(i).a + h * f.w(i).b;
        }
    }
    return out;
}

template <class S>
CoordinateMotion<S> motionOf(const Model& model, const std::vector<BodyFrameOf<S>>& frames,
                             int joint, int coordinate) {
    const JointModel& jm = model.joints[static_cast<std::size_t>(joint)];
    const MarkerModel& mi = model.markers[static_cast<std::size_t>(jm.markerI)];
    const MarkerModel& mj = model.markers[static_cast<std::size_t>(jm.markerJ)];
    const BodyFrameOf<S>* fi =
        mi.body == kGround ? nullptr : &frames[static_cast<std::size_t>(mi.body)];
    const BodyFrameOf<S>* fj =
        mj.body == kGround ? nullptr : &frames[static_cast<std::size_t>(mj.body)];
    using std::atan2;
    CoordinateMotion<S> out;
    // An angle atan2((from × u)·n, from·u) turning at (ω_a − ω_b)·n (pinAngle, coneAngle).
    auto angle = [&](const Vec3Of<S>& u, const Vec3Of<S>& from, const Vec3Of<S>& n) {
        out.value = atan2(from.cross(u).dot(n), from.dot(u));
        out.rate = (spinOf(fi) - spinOf(fj)).dot(n);
        return out;
    };
    if (jm.type == JointType::Spherical) {
        const Vec3Of<S> a = axisOf(fi, mi, 2), b = axisOf(fj, mj, 2);
        const Vec3Of<S> m = b.cross(a);
        using std::sqrt;
        const S sine = sqrt(m.squaredNorm());
        out.value = atan2(sine, a.dot(b));
        if (valueOf(sine) > 1e-12) out.rate = (m / sine).dot(spinOf(fi) - spinOf(fj));
        return out;
    }
    if (jm.type == JointType::Universal) {
        const Vec3Of<S> zi = axisOf(fi, mi, 2), zj = axisOf(fj, mj, 2);
        return coordinate == 0 ? angle(zi, axisOf(fj, mj, 0), zj)
                               : angle(axisOf(fi, mi, 0), zj, zi);
    }
    if (jm.coordinates[static_cast<std::size_t>(coordinate)] == JointAxis::Translation) {
        const int k = jm.type == JointType::Planar ? coordinate : 2;
        const Vec3Of<S> axis = axisOf(fj, mj, k);
        const Vec3Of<S> d = pointOf(fi, mi) - pointOf(fj, mj);
        out.value = axis.dot(d);
        out.rate = spinOf(fj).cross(axis).dot(d) +
                   axis.dot(pointVelocityOf(fi, mi) - pointVelocityOf(fj, mj));
        return out;
    }
    return angle(axisOf(fi, mi, 0), axisOf(fj, mj, 0), axisOf(fj, mj, 2));
}

}  // namespace

template <>
CoordinateMotion<double> jointCoordinateMotion(const Model& model,
                                               const std::vector<BodyFrame>& frames, int joint,
                                               int coordinate) {
    const ConstraintRow r = jointCoordinate(model, frames, joint, coordinate);
    return {r.value, r.rate};
}

template <>
CoordinateMotion<Dual> jointCoordinateMotion(const Model& model,
                                             const std::vector<BodyFrameOf<Dual>>& frames,
                                             int joint, int coordinate) {
    const JointModel& jm = model.joints[static_cast<std::size_t>(joint)];
    if (!jm.curve && !jm.surface) return motionOf(model, frames, joint, coordinate);
    // A foot point found by iteration: central differences along the tangent.
    const double h = 1e-7;
    const ConstraintRow at = jointCoordinate(model, alongTangent(frames, 0.0), joint, coordinate);
    const ConstraintRow plus = jointCoordinate(model, alongTangent(frames, h), joint, coordinate);
    const ConstraintRow minus = jointCoordinate(model, alongTangent(frames, -h), joint, coordinate);
    return {Dual(at.value, (plus.value - minus.value) / (2.0 * h)),
            Dual(at.rate, (plus.rate - minus.rate) / (2.0 * h))};
}

double unwindAngle(double wrapped, double reference) {
    return wrapped + 2.0 * kPi * std::round((reference - wrapped) / (2.0 * kPi));
}

std::vector<int> jointCoordinateOffsets(const Model& model) {
    std::vector<int> offsets;
    int n = 0;
    for (const JointModel& joint : model.joints) {
        offsets.push_back(n);
        n += static_cast<int>(joint.coordinates.size());
    }
    return offsets;
}

}  // namespace engine
