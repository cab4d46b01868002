#include "engine/constraints/constraints.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/kinematics/curve_geometry.h"
#include "engine/kinematics/frame_motion.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/model/layout.h"
#include "engine/model/model.h"

namespace engine {
namespace {

const BodyFrame* frameOf(const std::vector<BodyFrame>& frames, int body) {
    return body == kGround ? nullptr : &frames[static_cast<std::size_t>(body)];
}

// One side of a joint: a marker on a body (or on the ground), with what every primitive needs
// of it, in world axes: the point x, its offset s from the body's centre of mass, the body's
// rotation R, and the marker's axes and velocity terms (computed on first use).
//
// Jacobians are with respect to (v_W, ω' in body axes): a point has [I, −[s]×R], an axis a
// has [0, −[a]×R], so a row uᵀ·(point) has rotational part (s × u)ᵀR and uᵀ·(axis), (a × u)ᵀR.
// Their second derivatives beyond the accelerations (κ): ω×(ω×s) and ω×(ω×a).
class MarkerSide {
public:
    MarkerSide(const BodyFrame* f, const MarkerModel& m) : f_(f), m_(m), R_(f ? f->R : identity()) {
        if (f) {
            s_.noalias() = f->R * m.X_BM.p;
            x_ = f->r + s_;
        } else {
            s_.setZero();
            x_ = m.X_BM.p;
        }
    }
    const Vec3& point() const { return x_; }
    const Vec3& offset() const { return s_; }
    const BodyFrame* frame() const { return f_; }
    const MarkerModel& marker() const { return m_; }
    Vec3 w() const { return f_ ? f_->w : Vec3::Zero(); }
    Vec3 pointRate() const { return f_ ? Vec3(f_->v + f_->w.cross(s_)) : Vec3::Zero(); }
    Vec3 pointKappa() const { return f_ ? Vec3(f_->w.cross(f_->w.cross(s_))) : Vec3::Zero(); }
    const Vec3& axis(int k) {
        if (!(have_ & (1u << k))) {
            axes_[k].noalias() = R_ * m_.R_BM.col(k);
            have_ |= 1u << k;
        }
        return axes_[k];
    }
    Vec3 axisRate(int k) { return w().cross(axis(k)); }
    Vec3 axisKappa(int k) { return w().cross(w().cross(axis(k))); }
    // out[0..2] = sign · cᵀR: the rotational part of a row whose world-axes sensitivity to the
    // body's rotation is c.
    void rotational(const Vec3& c, double sign, double* out) const {
        for (int j = 0; j < 3; ++j) out[j] = sign * c.dot(R_.col(j));
    }
    // out[0..2] of row k = sign · (s × e_k)ᵀR, for k = 0, 1, 2 (the rows of a point's three
    // components; column j of the 3 × 3 block is R_j × s), rows `stride` apart.
    void pointRotational(double sign, double* out, std::ptrdiff_t stride) const {
        for (int j = 0; j < 3; ++j) {
            const Vec3 c = R_.col(j).cross(s_);
            for (int k = 0; k < 3; ++k) out[k * stride + j] = sign * c(k);
        }
    }

private:
    static const Mat3& identity() {
        static const Mat3 I = Mat3::Identity();
        return I;
    }
    const BodyFrame* f_;
    const MarkerModel& m_;
    const Mat3& R_;
    Vec3 s_, x_;
    Vec3 axes_[3];
    unsigned have_ = 0;
};

// Where the entries of the rows being written go: 6 per side and row, straight into Φq's
// values (a side on the ground into scratch).
struct RowTargets {
    double* values;
    const int* slotI;
    const int* slotJ;
    double scratch[12];
    double* sideI(int row) { return slotI[row] >= 0 ? values + slotI[row] : scratch; }
    double* sideJ(int row) { return slotJ[row] >= 0 ? values + slotJ[row] : scratch + 6; }
};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double wrapAngle(double a) {
    a = std::remainder(a, 2.0 * kPi);
    return a <= -kPi ? a + 2.0 * kPi : a;
}

// The rows of a joint on curves or a surface (engine/kinematics/curve_geometry.h), apart from
// primitiveRows() so that the common joints' rows stay as they were compiled.
template <bool kJacobian>
[[gnu::noinline]] int curveRows(const Primitive& p, MarkerSide& I, MarkerSide& J, bool withGamma,
                                int row, ConstraintEvaluation& out, RowTargets* to) {
    // engine/kinematics/curve_geometry.h
    const CurveSide ci(I.frame(), I.marker()), cj(J.frame(), J.marker());
    ConstraintRow rows[2];
    int count = 1;
    if (p.type == PrimitiveType::OnCurve) {
        const CurveFoot foot = curveFoot(ci, cj, *p.curve);
        rows[0] = curveFootRow(foot, ci, cj, 0);
        rows[1] = curveFootRow(foot, ci, cj, 1);
        count = 2;
    } else if (p.type == PrimitiveType::OnSurface) {
        rows[0] = surfaceFootRow(surfaceFoot(ci, cj, *p.surface), ci, cj);
    } else {
        rows[0] = camGapRow(camContact(ci, cj, *p.follower, *p.curve), ci, cj, *p.curve);
    }
    for (int k = 0; k < count; ++k) {
        out.Phi(row + k) = rows[k].value;
        if constexpr (kJacobian) {
            double* ji = to->sideI(row + k);
            double* jj = to->sideJ(row + k);
            for (int e = 0; e < 6; ++e) {
                ji[e] = rows[k].Ji(e);
                jj[e] = rows[k].Jj(e);
            }
            out.gamma(row + k) = withGamma ? rows[k].gamma : 0.0;
        }
    }
    return row + count;
}

// The rows of one primitive (seed 001) between markers I and J, d = P_J − P_I, from `row` on:
// Φ always; with kJacobian also the Jacobian entries (into `to`) and γ when asked (−(the part of
// Φ̈ that does not multiply accelerations)). Returns the next row. The residual-only evaluation
// and the full one share these lines, so each Φ is written once.
template <bool kJacobian>
int primitiveRows(const Primitive& p, MarkerSide& I, MarkerSide& J, const Vec3& d, bool withGamma,
                  int row, ConstraintEvaluation& out, RowTargets* to) {
    auto setTranslation = [](double* side, const Vec3& u, double sign) {
        side[0] = sign * u(0);
        side[1] = sign * u(1);
        side[2] = sign * u(2);
    };
    switch (p.type) {
    case PrimitiveType::Coincident: {
        // d_k:  Ji = [−e_kᵀ, −(s_I × e_k)ᵀ R_i],  Jj = [e_kᵀ, (s_J × e_k)ᵀ R_j],  γ = −(κ_J − κ_I)_k
        for (int k = 0; k < 3; ++k) out.Phi(row + k) = d(k);
        if constexpr (kJacobian) {
            const Vec3 gamma = withGamma ? Vec3(I.pointKappa() - J.pointKappa()) : Vec3::Zero();
            double* ji[3] = {to->sideI(row), to->sideI(row + 1), to->sideI(row + 2)};
            double* jj[3] = {to->sideJ(row), to->sideJ(row + 1), to->sideJ(row + 2)};
            double rotI[9], rotJ[9];
            I.pointRotational(-1.0, rotI, 3);
            J.pointRotational(1.0, rotJ, 3);
            for (int k = 0; k < 3; ++k) {
                for (int c = 0; c < 3; ++c) {
                    ji[k][c] = c == k ? -1.0 : 0.0;
                    jj[k][c] = c == k ? 1.0 : 0.0;
                    ji[k][3 + c] = rotI[3 * k + c];
                    jj[k][3 + c] = rotJ[3 * k + c];
                }
                out.gamma(row + k) = gamma(k);
            }
        }
        return row + 3;
    }
    case PrimitiveType::Dot1: {
        // a·b:  Ji = [0, (a × b)ᵀ R_i],  Jj = [0, −(a × b)ᵀ R_j],  γ = −(b·κ_a + a·κ_b + 2 ȧ·ḃ)
        const Vec3& a = I.axis(p.axisI);
        const Vec3& b = J.axis(p.axisJ);
        out.Phi(row) = a.dot(b);
        if constexpr (kJacobian) {
            const Vec3 axb = a.cross(b);
            double* ji = to->sideI(row);
            double* jj = to->sideJ(row);
            setTranslation(ji, Vec3::Zero(), 1.0);
            setTranslation(jj, Vec3::Zero(), 1.0);
            I.rotational(axb, 1.0, ji + 3);
            J.rotational(axb, -1.0, jj + 3);
            out.gamma(row) = withGamma
                                 ? -(b.dot(I.axisKappa(p.axisI)) + a.dot(J.axisKappa(p.axisJ)) +
                                     2.0 * I.axisRate(p.axisI).dot(J.axisRate(p.axisJ)))
                                 : 0.0;
        }
        return row + 1;
    }
    case PrimitiveType::Dot2: {
        // a·d:  Ji = [−aᵀ, (a × (s_I + d))ᵀ R_i],  Jj = [aᵀ, −(a × s_J)ᵀ R_j],
        //       γ = −(d·κ_a + a·κ_d + 2 ȧ·ḋ)
        const Vec3& a = I.axis(p.axisI);
        out.Phi(row) = a.dot(d);
        if constexpr (kJacobian) {
            double* ji = to->sideI(row);
            double* jj = to->sideJ(row);
            setTranslation(ji, a, -1.0);
            setTranslation(jj, a, 1.0);
            I.rotational(a.cross(I.offset() + d), 1.0, ji + 3);
            J.rotational(a.cross(J.offset()), -1.0, jj + 3);
            double gamma = 0.0;
            if (withGamma) {
                const Vec3 dd = J.pointRate() - I.pointRate();
                gamma = -(d.dot(I.axisKappa(p.axisI)) + a.dot(J.pointKappa() - I.pointKappa()) +
                          2.0 * I.axisRate(p.axisI).dot(dd));
            }
            out.gamma(row) = gamma;
        }
        return row + 1;
    }
    case PrimitiveType::Distance: {
        // (d·d − L²) / (2L), scaled so that the multiplier is the rod's force [N]:
        //   Ji = [−dᵀ, −(s_I × d)ᵀ R_i] / L,  Jj = [dᵀ, (s_J × d)ᵀ R_j] / L,  γ = −(d·κ_d + ḋ·ḋ) / L
        const double L = p.length;
        out.Phi(row) = (d.squaredNorm() - L * L) / (2.0 * L);
        if constexpr (kJacobian) {
            double* ji = to->sideI(row);
            double* jj = to->sideJ(row);
            setTranslation(ji, d, -1.0 / L);
            setTranslation(jj, d, 1.0 / L);
            I.rotational(I.offset().cross(d), -1.0 / L, ji + 3);
            J.rotational(J.offset().cross(d), 1.0 / L, jj + 3);
            double gamma = 0.0;
            if (withGamma) {
                const Vec3 dd = J.pointRate() - I.pointRate();
                gamma = -(d.dot(J.pointKappa() - I.pointKappa()) + dd.dot(dd)) / L;
            }
            out.gamma(row) = gamma;
        }
        return row + 1;
    }
    case PrimitiveType::OnCurve:
    case PrimitiveType::CamContact:
    case PrimitiveType::OnSurface:
        return curveRows<kJacobian>(p, I, J, withGamma, row, out, to);
    }
    return row;
}

// The rows of `count` primitives from `first` on between `joint`'s markers, from `row` on.
template <bool kJacobian>
int jointRows(const Model& model, const JointModel& joint, const std::vector<BodyFrame>& frames,
              const Primitive* first, std::size_t count, bool withGamma, int row,
              ConstraintEvaluation& out, RowTargets* to) {
    if (count == 0) return row;  // (a weld folded away: no rows)
    const MarkerModel& mi = model.markers[static_cast<std::size_t>(joint.markerI)];
    const MarkerModel& mj = model.markers[static_cast<std::size_t>(joint.markerJ)];
    MarkerSide I(frameOf(frames, mi.body), mi), J(frameOf(frames, mj.body), mj);
    const Vec3 d = J.point() - I.point();
    for (std::size_t k = 0; k < count; ++k)
        row = primitiveRows<kJacobian>(first[k], I, J, d, withGamma, row, out, to);
    return row;
}

// A moving frame's six rows (engine/kinematics/frame_motion.h), from `row` on: Φ and ν always,
// with kJacobian the body's Jacobian entries and γ.
template <bool kJacobian>
int frameRows(const JointModel& joint, const std::vector<BodyFrame>& frames, double t, int row,
              ConstraintEvaluation& out, RowTargets* to) {
    const FrameMotionModel& motion = *joint.frameMotion;
    ConstraintRow rows[6];
    double nu[6];
    frameMotionRows(motion, frames[static_cast<std::size_t>(motion.body)], t, rows, nu);
    for (int k = 0; k < 6; ++k) {
        out.Phi(row + k) = rows[k].value;
        out.nu(row + k) = nu[k];
        if constexpr (kJacobian) {
            double* ji = to->sideI(row + k);
            for (int e = 0; e < 6; ++e) ji[e] = rows[k].Ji(e);
            out.gamma(row + k) = rows[k].gamma;
        }
    }
    return row + 6;
}

// A motion's row: c(q) − f(t) = 0 (an angle wrapped to (−π, π]), ċ = f(t), or c̈ = f(t); Φ and
// ν from the joint coordinate's value c.
void driverRow(const Model& model, const DriverModel& driver, double t, double c, int row,
               ConstraintEvaluation& out) {
    if (!driver.on) {  // switched off: an empty row, which the solver drops
        out.Phi(row) = 0.0;
        out.nu(row) = 0.0;
        return;
    }
    const JointModel& joint = model.joints[static_cast<std::size_t>(driver.joint)];
    switch (driver.level) {
    case MotionLevel::Position: {
        const double residual = c - driver.f.eval(t);
        const bool angle =
            joint.coordinates[static_cast<std::size_t>(driver.coordinate)] == JointAxis::Rotation;
        out.Phi(row) = angle ? wrapAngle(residual) : residual;
        out.nu(row) = driver.f.derivative(t);
        break;
    }
    case MotionLevel::Velocity:
        out.Phi(row) = 0.0;
        out.nu(row) = driver.f.eval(t);
        break;
    case MotionLevel::Acceleration:
        out.Phi(row) = 0.0;
        break;
    }
}

// A coupler's term's coordinate unwound from the last value the evaluation saw (cache entry
// `at`), which it then keeps.
double unwoundCoordinate(const Model& model, const CouplerTermModel& t, double value,
                         ConstraintEvaluation& out, std::size_t at) {
    const JointModel& joint = model.joints[static_cast<std::size_t>(t.joint)];
    if (joint.coordinates[static_cast<std::size_t>(t.coordinate)] != JointAxis::Rotation)
        return value;
    if (at >= out.couplerCoordinates.size()) out.couplerCoordinates.resize(at + 1, kNaN);
    double& last = out.couplerCoordinates[at];
    last = std::isnan(last) ? value : unwindAngle(value, last);
    return last;
}

// The rolling form of a gear's or rack's row (CouplerModel::rolling): t·(v_I(P) − v_J(P)) /
// scale, with P the pitch point and t the common tangent, its entries added into the row's
// body blocks (`add(body, entries)`), its γ returned. False (nothing added) where the pitch
// point is not defined (axles that met, a rack along the pinion's axis).
template <typename Add>
bool rollingRow(const Model& model, const CouplerModel& c, const std::vector<BodyFrame>& frames,
                Add&& add, double& gamma) {
    const MarkerModel& mI = model.markers[static_cast<std::size_t>(c.axleMarkers[0])];
    const MarkerModel& mJ = model.markers[static_cast<std::size_t>(c.axleMarkers[1])];
    const BodyFrame* fI = frameOf(frames, mI.body);
    const BodyFrame* fJ = frameOf(frames, mJ.body);
    auto origin = [](const BodyFrame* f, const MarkerModel& m) {
        return f ? Vec3(f->r + f->R * m.X_BM.p) : Vec3(m.X_BM.p);
    };
    auto zAxis = [](const BodyFrame* f, const MarkerModel& m) {
        return f ? Vec3(f->R * m.R_BM.col(2)) : Vec3(m.R_BM.col(2));
    };
    const Vec3 O = origin(fI, mI), z = zAxis(fI, mI);
    Vec3 P, t;
    double scale = c.rollScale;
    if (c.type == CouplerType::Gear) {
        Vec3 u = origin(fJ, mJ) - O;
        u -= u.dot(z) * z;
        const double n = u.norm();
        if (!(n > 1e-12)) return false;
        u *= c.toward / n;
        P = O + c.pitchRadius * u;
        t = z.cross(u);
    } else {
        t = zAxis(fJ, mJ);  // the rack's direction
        Vec3 n = t.cross(z);
        const double len = n.norm();
        if (!(len > 1e-9)) return false;
        n *= c.toward / len;
        P = O + c.pitchRadius * n;
        scale *= len;
    }
    // Velocities of the bodies' material points at P, and of P (fixed in the carrier).
    auto twist = [&](int b, Vec3& v, Vec3& w, Vec3& r) {
        const BodyFrame* f = frameOf(frames, b);
        v = f ? f->v : Vec3::Zero();
        w = f ? f->w : Vec3::Zero();
        r = f ? f->r : Vec3::Zero();
    };
    Vec3 vI, wI, rI, vJ, wJ, rJ, vC, wC, rC;
    twist(c.gearBodies[0], vI, wI, rI);
    twist(c.gearBodies[1], vJ, wJ, rJ);
    twist(c.carrier, vC, wC, rC);
    const Vec3 pointI = vI + wI.cross(P - rI), pointJ = vJ + wJ.cross(P - rJ);
    const Vec3 Pdot = c.carrier == kGround ? Vec3::Zero() : Vec3(vC + wC.cross(P - rC));
    // Ṙ − Jv̇ = ṫ·Δv + t·(ω_I × (Ṗ − v_I) − ω_J × (Ṗ − v_J)), ṫ = ω_C × t.
    gamma = -(wC.cross(t).dot(pointI - pointJ) + t.dot(wI.cross(Pdot - vI) - wJ.cross(Pdot - vJ))) /
            scale;
    for (int side = 0; side < 2; ++side) {
        const int b = c.gearBodies[side];
        const BodyFrame* f = frameOf(frames, b);
        if (!f) continue;
        const double sign = (side == 0 ? 1.0 : -1.0) / scale;
        Row6 J;
        J.leftCols<3>() = sign * t.transpose();
        J.rightCols<3>() = sign * (P - f->r).cross(t).transpose() * f->R;
        add(b, J);
    }
    return true;
}

}  // namespace

bool rollingCouplerEntries(const Model& model, int coupler, const std::vector<BodyFrame>& frames,
                           double entries[12]) {
    const CouplerModel& c = model.couplers[static_cast<std::size_t>(coupler)];
    std::fill(entries, entries + 12, 0.0);
    double gamma = 0.0;
    return rollingRow(
        model, c, frames,
        [&](int b, const Row6& J) {
            for (int side = 0; side < 2; ++side)
                if (c.gearBodies[side] == b)
                    for (int e = 0; e < 6; ++e) entries[6 * side + e] += J(e);
        },
        gamma);
}

namespace {

// A coupler's row: Φ = Σ cᵢ qᵢ − offset; with kJacobian, Φq = Σ cᵢ ∂qᵢ/∂v (added on each
// term's two bodies) and γ = Σ cᵢ γᵢ, or the rolling form of a gear or rack. `term` is the
// coupler's first term's cache index.
template <bool kJacobian>
void couplerRow(const Model& model, std::size_t k, const std::vector<BodyFrame>& frames, int row,
                std::size_t term, ConstraintEvaluation& out) {
    const CouplerModel& coupler = model.couplers[k];
    double phi = -coupler.offset, gamma = 0.0;
    double* values = nullptr;
    if constexpr (kJacobian) {
        values = out.Phi_q.valuePtr();
        const int begin = out.Phi_q.outerIndexPtr()[row], end = out.Phi_q.outerIndexPtr()[row + 1];
        std::fill(values + begin, values + end, 0.0);
    }
    // Adds `scale` × J into the row's block of body b.
    auto addTo = [&](int b, const Row6& J, double scale) {
        if (b == kGround) return;
        for (int s = out.couplerBegin[k]; s < out.couplerBegin[k + 1]; ++s)
            if (out.couplerBodies[static_cast<std::size_t>(s)] == b) {
                double* to = values + out.couplerSlots[static_cast<std::size_t>(s)];
                for (int e = 0; e < 6; ++e) to[e] += scale * J(e);
                return;
            }
    };
    bool rolled = false;
    if constexpr (kJacobian)
        if (coupler.rolling)
            rolled = rollingRow(
                model, coupler, frames, [&](int b, const Row6& J) { addTo(b, J, 1.0); }, gamma);
    for (const CouplerTermModel& t : coupler.terms) {
        if constexpr (kJacobian) {
            if (rolled) {
                const double value = jointCoordinateValue(model, frames, t.joint, t.coordinate);
                phi += t.coefficient * unwoundCoordinate(model, t, value, out, term++);
                continue;
            }
            const ConstraintRow c = jointCoordinate(model, frames, t.joint, t.coordinate);
            phi += t.coefficient * unwoundCoordinate(model, t, c.value, out, term++);
            gamma += t.coefficient * c.gamma;
            const JointModel& joint = model.joints[static_cast<std::size_t>(t.joint)];
            addTo(model.markers[static_cast<std::size_t>(joint.markerI)].body, c.Ji, t.coefficient);
            addTo(model.markers[static_cast<std::size_t>(joint.markerJ)].body, c.Jj, t.coefficient);
        } else {
            const double value = jointCoordinateValue(model, frames, t.joint, t.coordinate);
            phi += t.coefficient * unwoundCoordinate(model, t, value, out, term++);
        }
    }
    out.Phi(row) = phi;
    if constexpr (kJacobian) out.gamma(row) = gamma;
}

}  // namespace

namespace {

void layOutRows(const Model& model, ConstraintEvaluation& out);

// Φq's pattern for the model: every entry of each row's body blocks stored (zero until written),
// and where each row's block per side starts in the value array.
void layOutJacobian(const Model& model, ConstraintEvaluation& out) {
    const int nc = model.constraintRows();
    out.bodyI.assign(static_cast<std::size_t>(nc), kGround);
    out.bodyJ.assign(static_cast<std::size_t>(nc), kGround);
    out.slotI.assign(static_cast<std::size_t>(nc), -1);
    out.slotJ.assign(static_cast<std::size_t>(nc), -1);
    int row = 0;
    auto rowBodies = [&](const JointModel& joint, int count) {
        for (int k = 0; k < count; ++k, ++row) {
            out.bodyI[static_cast<std::size_t>(row)] =
                model.markers[static_cast<std::size_t>(joint.markerI)].body;
            out.bodyJ[static_cast<std::size_t>(row)] =
                model.markers[static_cast<std::size_t>(joint.markerJ)].body;
        }
    };
    for (const JointModel& joint : model.joints)
        for (const Primitive& p : joint.primitives) rowBodies(joint, p.rows());
    // Coupler rows: their bodies listed apart (bodyI, bodyJ stay the ground).
    out.couplerBegin.assign(1, 0);
    out.couplerBodies.clear();
    for (const CouplerModel& coupler : model.couplers) {
        std::vector<int> bodies;
        for (const CouplerTermModel& t : coupler.terms) {
            const JointModel& joint = model.joints[static_cast<std::size_t>(t.joint)];
            for (const int m : {joint.markerI, joint.markerJ})
                if (const int b = model.markers[static_cast<std::size_t>(m)].body; b != kGround)
                    bodies.push_back(b);
        }
        std::sort(bodies.begin(), bodies.end());
        bodies.erase(std::unique(bodies.begin(), bodies.end()), bodies.end());
        out.couplerBodies.insert(out.couplerBodies.end(), bodies.begin(), bodies.end());
        out.couplerBegin.push_back(static_cast<int>(out.couplerBodies.size()));
        ++row;
    }
    for (const DriverModel& driver : model.drivers)
        rowBodies(model.joints[static_cast<std::size_t>(driver.joint)], 1);
    layOutRows(model, out);
    // A coupler row's bodies ascend, so body k of the row starts 6 k entries in.
    out.couplerSlots.assign(out.couplerBodies.size(), -1);
    for (std::size_t k = 0; k < model.couplers.size(); ++k) {
        const int begin = out.Phi_q.outerIndexPtr()[model.couplerRowOffset + static_cast<int>(k)];
        for (int b = out.couplerBegin[k]; b < out.couplerBegin[k + 1]; ++b)
            out.couplerSlots[static_cast<std::size_t>(b)] = begin + 6 * (b - out.couplerBegin[k]);
    }
    // Unwound coordinates seeded before the first evaluation are kept.
    std::size_t terms = 0;
    for (const CouplerModel& coupler : model.couplers) terms += coupler.terms.size();
    if (out.couplerCoordinates.size() != terms)
        out.couplerCoordinates.assign(terms, std::numeric_limits<double>::quiet_NaN());
}

// The same for the soft joints' rows (Model::softConstraints).
void layOutSoftJacobian(const Model& model, ConstraintEvaluation& out) {
    out.bodyI.clear();
    out.bodyJ.clear();
    for (const SoftConstraint& sc : model.softConstraints) {
        const JointModel& joint = model.joints[static_cast<std::size_t>(sc.joint)];
        for (int k = 0; k < sc.primitive.rows(); ++k) {
            out.bodyI.push_back(model.markers[static_cast<std::size_t>(joint.markerI)].body);
            out.bodyJ.push_back(model.markers[static_cast<std::size_t>(joint.markerJ)].body);
        }
    }
    out.slotI.assign(out.bodyI.size(), -1);
    out.slotJ.assign(out.bodyI.size(), -1);
    out.couplerBegin.clear();
    out.couplerBodies.clear();
    layOutRows(model, out);
}

void layOutRows(const Model& model, ConstraintEvaluation& out) {
    const int nc = static_cast<int>(out.bodyI.size());
    std::vector<Eigen::Triplet<double>> triplets;
    triplets.reserve(static_cast<std::size_t>(nc) * 12);
    for (int r = 0; r < nc; ++r)
        for (const int b :
             {out.bodyI[static_cast<std::size_t>(r)], out.bodyJ[static_cast<std::size_t>(r)]})
            if (b != kGround)
                for (int c = 0; c < layout::kVelocitiesPerBody; ++c)
                    triplets.emplace_back(r, layout::velocityIndex(b) + c, 0.0);
    for (std::size_t k = 0; k + 1 < out.couplerBegin.size(); ++k)
        for (int b = out.couplerBegin[k]; b < out.couplerBegin[k + 1]; ++b)
            for (int c = 0; c < layout::kVelocitiesPerBody; ++c)
                triplets.emplace_back(
                    model.couplerRowOffset + static_cast<int>(k),
                    layout::velocityIndex(out.couplerBodies[static_cast<std::size_t>(b)]) + c, 0.0);
    out.Phi_q.resize(nc, model.velocitySize());
    out.Phi_q.setFromTriplets(triplets.begin(), triplets.end());
    out.Phi_q.makeCompressed();
    // Where each row's body blocks start in the value array (columns ascend within a row).
    for (int r = 0; r < nc; ++r) {
        const int begin = out.Phi_q.outerIndexPtr()[r];
        const int bi = out.bodyI[static_cast<std::size_t>(r)],
                  bj = out.bodyJ[static_cast<std::size_t>(r)];
        if (bi != kGround)
            out.slotI[static_cast<std::size_t>(r)] = begin + (bj != kGround && bj < bi ? 6 : 0);
        if (bj != kGround)
            out.slotJ[static_cast<std::size_t>(r)] = begin + (bi != kGround && bi < bj ? 6 : 0);
    }
    out.patternSerial = model.serial;
}

}  // namespace

void evaluateConstraints(const Model& model, double t, const std::vector<BodyFrame>& frames,
                         ConstraintEvaluation& out, bool withGamma) {
    const int nc = model.constraintRows();
    out.Phi.resize(nc);
    out.nu.setZero(nc);
    out.gamma.resize(nc);
    out.level.assign(static_cast<std::size_t>(nc), MotionLevel::Position);

    // Φq has a fixed pattern per model (the solver's symbolic analysis stays valid), laid out
    // once; every evaluation writes its values in place.
    if (out.patternSerial != model.serial || out.Phi_q.rows() != nc) layOutJacobian(model, out);
    RowTargets to{out.Phi_q.valuePtr(), out.slotI.data(), out.slotJ.data(), {}};

    // Joints.
    int row = 0;
    for (const JointModel& joint : model.joints)
        row = joint.frameMotion
                  ? frameRows<true>(joint, frames, t, row, out, &to)
                  : jointRows<true>(model, joint, frames, joint.primitives.data(),
                                    joint.primitives.size(), withGamma, row, out, &to);

    // Couplers.
    for (std::size_t k = 0, term = 0; k < model.couplers.size(); ++k, ++row) {
        couplerRow<true>(model, k, frames, row, term, out);
        term += model.couplers[k].terms.size();
    }

    // Motions: Φ and ν from their joint coordinate; γ = that coordinate's γ plus what the
    // motion prescribes of its second derivative.
    for (const DriverModel& driver : model.drivers) {
        const ConstraintRow c = jointCoordinate(model, frames, driver.joint, driver.coordinate);
        out.level[static_cast<std::size_t>(row)] = driver.level;
        driverRow(model, driver, t, c.value, row, out);
        if (!driver.on) {  // switched off: Φq's row zero (its pattern kept), no γ
            out.gamma(row) = 0.0;
            double* ji = to.sideI(row);
            double* jj = to.sideJ(row);
            for (int k = 0; k < 6; ++k) ji[k] = jj[k] = 0.0;
            ++row;
            continue;
        }
        switch (driver.level) {
        case MotionLevel::Position:
            out.gamma(row) = c.gamma + driver.f.secondDerivative(t);
            break;
        case MotionLevel::Velocity:
            out.gamma(row) = c.gamma + driver.f.derivative(t);
            break;
        case MotionLevel::Acceleration:
            out.gamma(row) = c.gamma + driver.f.eval(t);
            break;
        }
        double* ji = to.sideI(row);
        double* jj = to.sideJ(row);
        for (int k = 0; k < 6; ++k) {
            ji[k] = c.Ji(k);
            jj[k] = c.Jj(k);
        }
        ++row;
    }
}

void evaluateConstraintResiduals(const Model& model, double t, const std::vector<BodyFrame>& frames,
                                 ConstraintEvaluation& out) {
    const int nc = model.constraintRows();
    out.Phi.resize(nc);
    out.nu.setZero(nc);
    int row = 0;
    for (const JointModel& joint : model.joints)
        row = joint.frameMotion
                  ? frameRows<false>(joint, frames, t, row, out, nullptr)
                  : jointRows<false>(model, joint, frames, joint.primitives.data(),
                                     joint.primitives.size(), false, row, out, nullptr);
    for (std::size_t k = 0, term = 0; k < model.couplers.size(); ++k, ++row) {
        couplerRow<false>(model, k, frames, row, term, out);
        term += model.couplers[k].terms.size();
    }
    for (const DriverModel& driver : model.drivers) {
        const double c = driver.level == MotionLevel::Position
                             ? jointCoordinateValue(model, frames, driver.joint, driver.coordinate)
                             : 0.0;
        driverRow(model, driver, t, c, row++, out);
    }
}

void evaluateSoftConstraints(const Model& model, const std::vector<BodyFrame>& frames,
                             ConstraintEvaluation& out) {
    const int ns = model.softRows;
    out.Phi.resize(ns);
    out.nu.setZero(ns);
    out.gamma.setZero(ns);
    out.level.assign(static_cast<std::size_t>(ns), MotionLevel::Position);
    if (out.patternSerial != model.serial || out.Phi_q.rows() != ns) layOutSoftJacobian(model, out);
    RowTargets to{out.Phi_q.valuePtr(), out.slotI.data(), out.slotJ.data(), {}};
    int row = 0;
    for (const SoftConstraint& sc : model.softConstraints)
        row = jointRows<true>(model, model.joints[static_cast<std::size_t>(sc.joint)], frames,
                              &sc.primitive, 1, false, row, out, &to);
}

int evaluateJointRows(const Model& model, int joint, const std::vector<BodyFrame>& frames,
                      bool jacobian, bool withGamma, Eigen::Ref<Eigen::VectorXd> Phi,
                      Eigen::Ref<Eigen::VectorXd> gamma, double* blocks) {
    const JointModel& j = model.joints[static_cast<std::size_t>(joint)];
    // The rows are written into a scratch evaluation of the joint's rows alone, each row's two
    // sides 12 entries apart in `blocks`.
    thread_local ConstraintEvaluation scratch;
    thread_local std::vector<int> slotI, slotJ;
    scratch.Phi.resize(j.rows);
    scratch.gamma.setZero(j.rows);
    slotI.resize(static_cast<std::size_t>(j.rows));
    slotJ.resize(static_cast<std::size_t>(j.rows));
    for (int r = 0; r < j.rows; ++r) {
        slotI[static_cast<std::size_t>(r)] = 12 * r;
        slotJ[static_cast<std::size_t>(r)] = 12 * r + 6;
    }
    if (jacobian) {
        RowTargets to{blocks, slotI.data(), slotJ.data(), {}};
        jointRows<true>(model, j, frames, j.primitives.data(), j.primitives.size(), withGamma, 0,
                        scratch, &to);
    } else {
        jointRows<false>(model, j, frames, j.primitives.data(), j.primitives.size(), false, 0,
                         scratch, nullptr);
    }
    Phi = scratch.Phi;
    if (jacobian) gamma = scratch.gamma;
    return j.rows;
}

void seedCouplerCoordinates(const Model& model, const Eigen::VectorXd& jointCoordinates,
                            ConstraintEvaluation& out) {
    std::size_t at = 0;
    for (const CouplerModel& coupler : model.couplers)
        for (const CouplerTermModel& t : coupler.terms) {
            if (at >= out.couplerCoordinates.size()) out.couplerCoordinates.resize(at + 1, kNaN);
            out.couplerCoordinates[at++] =
                t.slot < jointCoordinates.size() ? jointCoordinates(t.slot) : kNaN;
        }
}

double maxPositionResidual(const Model& model, const ConstraintEvaluation& evaluation, int* where) {
    double worst = 0.0;
    Eigen::Index row = 0;
    auto consider = [&](double gap, Eigen::Index at) {
        if (gap <= worst) return;
        worst = gap;
        if (where) *where = static_cast<int>(at);
    };
    if (where) *where = 0;
    for (const JointModel& joint : model.joints) {
        for (const Primitive& primitive : joint.primitives) {
            if (primitive.type == PrimitiveType::Coincident) {
                consider(evaluation.Phi.segment<3>(row).norm(), row);
                row += 3;
            } else if (primitive.type == PrimitiveType::OnCurve) {
                consider(evaluation.Phi.segment<2>(row).norm(), row);
                row += 2;
            } else {
                consider(std::abs(evaluation.Phi(row)), row);
                ++row;
            }
        }
    }
    for (; row < evaluation.Phi.size(); ++row)
        if (evaluation.level[static_cast<std::size_t>(row)] == MotionLevel::Position)
            consider(std::abs(evaluation.Phi(row)), row);
    return worst;
}

}  // namespace engine
