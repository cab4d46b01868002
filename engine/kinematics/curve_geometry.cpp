#include "engine/kinematics/curve_geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/model/curve.h"
#include "engine/model/model.h"
#include "engine/model/surface.h"

namespace engine {

CurveSide::CurveSide(const BodyFrame* f, const MarkerModel& m) : frame(f), marker(&m) {
    if (f) {
        R_WM = f->R * m.R_BM;
        o_W = f->r + f->R * m.X_BM.p;
    } else {
        R_WM = m.R_BM;
        o_W = m.X_BM.p;
    }
}

Row6 CurveSide::pointRow(const Vec3& x, const Vec3& n) const {
    Row6 row = Row6::Zero();
    if (!frame) return row;
    row.leftCols<3>() = n.transpose();
    row.rightCols<3>() = (x - frame->r).cross(n).transpose() * frame->R;
    return row;
}

CurveFoot curveFoot(const CurveSide& I, const CurveSide& J, const Curve& curve) {
    CurveFoot foot;
    foot.P = I.o_W;
    foot.s = curve.nearest(J.R_WM.transpose() * (foot.P - J.o_W));
    const Curve::Point p = curve.at(foot.s);
    foot.C = J.o_W + J.R_WM * p.x;
    foot.t = J.R_WM * p.d1;
    foot.k = J.R_WM * p.d2;
    // Normals: the first in the plane of J's x-y axes where the tangent leaves room for it
    // (a slot in a plate: across the slot, then out of the plate).
    const Vec3 unit = foot.t.normalized();
    Vec3 n1 = unit.cross(J.R_WM.col(2));
    if (n1.norm() < 0.3) n1 = unit.cross(J.R_WM.col(0));
    foot.normal[0] = n1.normalized();
    foot.normal[1] = unit.cross(foot.normal[0]);
    const Vec3 d = foot.P - foot.C;
    const double den = foot.t.squaredNorm() - d.dot(foot.k);
    foot.sdot =
        ((I.velocityAt(foot.P) - J.velocityAt(foot.C)).dot(foot.t) + d.dot(J.w().cross(foot.t))) /
        den;
    return foot;
}

ConstraintRow curveFootRow(const CurveFoot& foot, const CurveSide& I, const CurveSide& J, int k) {
    const Vec3& N = foot.normal[k];
    ConstraintRow r;
    r.value = N.dot(foot.P - foot.C);
    r.rate = N.dot(I.velocityAt(foot.P) - J.velocityAt(foot.C));
    r.Ji = I.pointRow(foot.P, N);
    r.Jj = -J.pointRow(foot.C, N);
    r.gamma = -N.dot(I.kappaAt(foot.P) - J.kappaAt(foot.C) - 2.0 * J.w().cross(foot.t) * foot.sdot -
                     foot.k * foot.sdot * foot.sdot);
    return r;
}

ConstraintRow curveParameterRow(const CurveFoot& foot, const CurveSide& I, const CurveSide& J) {
    const Vec3 d = foot.P - foot.C;
    const double den = foot.t.squaredNorm() - d.dot(foot.k);
    ConstraintRow r;
    r.value = foot.s;
    r.rate = foot.sdot;
    r.Ji = I.pointRow(foot.P, foot.t) / den;
    r.Jj = -J.pointRow(foot.C, foot.t) / den;
    if (J.frame) r.Jj.rightCols<3>() += foot.t.cross(d).transpose() * J.frame->R / den;
    r.gamma = -foot.t.dot(I.kappaAt(foot.P) - J.kappaAt(foot.C) -
                          2.0 * J.w().cross(foot.t) * foot.sdot - foot.k * foot.sdot * foot.sdot) /
              foot.t.squaredNorm();
    return r;
}

SurfaceFoot surfaceFoot(const CurveSide& I, const CurveSide& J, const Surface& surface) {
    SurfaceFoot f;
    f.P = I.o_W;
    surface.nearest(J.R_WM.transpose() * (f.P - J.o_W), f.u, f.v);
    const Surface::Point p = surface.at(f.u, f.v);
    f.S = J.o_W + J.R_WM * p.x;
    f.Su = J.R_WM * p.du;
    f.Sv = J.R_WM * p.dv;
    f.Suu = J.R_WM * p.duu;
    f.Suv = J.R_WM * p.duv;
    f.Svv = J.R_WM * p.dvv;
    f.n = f.Su.cross(f.Sv).normalized();
    Mat2 G;
    G << f.Su.squaredNorm(), f.Su.dot(f.Sv), f.Su.dot(f.Sv), f.Sv.squaredNorm();
    f.Ginv = G.inverse();
    const Vec3 w = I.velocityAt(f.P) - J.velocityAt(f.S);
    const Eigen::Vector2d rates = f.Ginv * Eigen::Vector2d(f.Su.dot(w), f.Sv.dot(w));
    f.udot = rates(0);
    f.vdot = rates(1);
    return f;
}

namespace {

// What the point's acceleration relative to the surface has beyond the bodies' accelerations
// and the parameters' second derivatives: κ_i − κ_j − 2 ω_j × ṡ − (Suu u̇² + 2 Suv u̇ v̇ + Svv v̇²).
Vec3 surfaceKappa(const SurfaceFoot& f, const CurveSide& I, const CurveSide& J) {
    const Vec3 along = f.Su * f.udot + f.Sv * f.vdot;
    return I.kappaAt(f.P) - J.kappaAt(f.S) - 2.0 * J.w().cross(along) -
           (f.Suu * f.udot * f.udot + 2.0 * f.Suv * f.udot * f.vdot + f.Svv * f.vdot * f.vdot);
}

}  // namespace

ConstraintRow surfaceFootRow(const SurfaceFoot& f, const CurveSide& I, const CurveSide& J) {
    ConstraintRow r;
    r.value = f.n.dot(f.P - f.S);
    r.rate = f.n.dot(I.velocityAt(f.P) - J.velocityAt(f.S));
    r.Ji = I.pointRow(f.P, f.n);
    r.Jj = -J.pointRow(f.S, f.n);
    r.gamma = -f.n.dot(surfaceKappa(f, I, J));
    return r;
}

ConstraintRow surfaceParameterRow(const SurfaceFoot& f, const CurveSide& I, const CurveSide& J,
                                  int k) {
    // (u̇, v̇) = G⁻¹ (Su, Sv)ᵀ w: row k of it is c·w with c = G⁻¹(k,0) Su + G⁻¹(k,1) Sv.
    const Vec3 c = f.Ginv(k, 0) * f.Su + f.Ginv(k, 1) * f.Sv;
    ConstraintRow r;
    r.value = k == 0 ? f.u : f.v;
    r.rate = k == 0 ? f.udot : f.vdot;
    r.Ji = I.pointRow(f.P, c);
    r.Jj = -J.pointRow(f.S, c);
    r.gamma = -c.dot(surfaceKappa(f, I, J));
    return r;
}

namespace {

double cross2(const Vec3& a, const Vec3& b) {
    return a.x() * b.y() - a.y() * b.x();
}

// The index range [centre − reach, centre + reach] of a curve's samples, round a closed one.
template <typename Visit>
void around(std::size_t centre, std::size_t reach, std::size_t count, bool closed, Visit&& visit) {
    const long c = static_cast<long>(centre), r = static_cast<long>(reach),
               n = static_cast<long>(count);
    for (long k = c - r; k <= c + r; ++k) {
        if (closed)
            visit(static_cast<std::size_t>((k % n + n) % n));
        else if (k >= 0 && k < n)
            visit(static_cast<std::size_t>(k));
    }
}

}  // namespace

CamContact camContact(const CurveSide& I, const CurveSide& J, const Curve& follower,
                      const Curve& cam) {
    // In the cam's frame, its x-y plane: the follower's contour placed by I's pose in J's.
    const Mat3 R = J.R_WM.transpose() * I.R_WM;
    const Vec3 p = J.R_WM.transpose() * (I.o_W - J.o_W);
    auto flat = [](Vec3 v) {
        v.z() = 0.0;
        return v;
    };
    const std::vector<Vec3>& fs = follower.samples();
    const std::vector<Vec3>& ks = cam.samples();
    std::vector<Vec3> placed(fs.size());
    for (std::size_t i = 0; i < fs.size(); ++i) placed[i] = flat(R * fs[i] + p);
    // The nearest pair of samples, coarsely and then around it.
    const std::size_t strideF = std::max<std::size_t>(1, fs.size() / 64);
    const std::size_t strideK = std::max<std::size_t>(1, ks.size() / 64);
    std::size_t bi = 0, bj = 0;
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < fs.size(); i += strideF)
        for (std::size_t j = 0; j < ks.size(); j += strideK)
            if (const double d = (placed[i] - flat(ks[j])).squaredNorm(); d < best) {
                best = d;
                bi = i;
                bj = j;
            }
    const std::size_t ci = bi, cj = bj;
    around(ci, strideF, fs.size(), follower.closed(), [&](std::size_t i) {
        around(cj, strideK, ks.size(), cam.closed(), [&](std::size_t j) {
            if (const double d = (placed[i] - flat(ks[j])).squaredNorm(); d < best) {
                best = d;
                bi = i;
                bj = j;
            }
        });
    });
    // Newton's method on the contact conditions (F − K)·K' = 0, (F' × K')·z = 0.
    double s1 = follower.sampleParameters()[bi], s2 = cam.sampleParameters()[bj];
    const double step1 = 2.0 * (follower.end() - follower.start()) / static_cast<double>(fs.size());
    const double step2 = 2.0 * (cam.end() - cam.start()) / static_cast<double>(ks.size());
    for (int it = 0; it < 40; ++it) {
        const Curve::Point a = follower.at(s1), b = cam.at(s2);
        const Vec3 f = flat(R * a.x + p), tf = flat(R * a.d1), kf = flat(R * a.d2);
        const Vec3 d = f - flat(b.x);
        const double F1 = d.dot(b.d1), F2 = cross2(tf, b.d1);
        const double a11 = tf.dot(b.d1), a12 = -b.d1.squaredNorm() + d.dot(b.d2);
        const double a21 = cross2(kf, b.d1), a22 = cross2(tf, b.d2);
        const double det = a11 * a22 - a12 * a21;
        if (!(std::abs(det) > 0.0)) break;
        const double ds1 = std::clamp(-(a22 * F1 - a12 * F2) / det, -step1, step1);
        const double ds2 = std::clamp(-(-a21 * F1 + a11 * F2) / det, -step2, step2);
        s1 += ds1;
        s2 += ds2;
        if (std::abs(ds1) <= 1e-13 * step1 && std::abs(ds2) <= 1e-13 * step2) break;
    }
    CamContact c;
    c.s1 = follower.wrap(s1);
    c.s2 = cam.wrap(s2);
    const Curve::Point a = follower.at(c.s1), b = cam.at(c.s2);
    c.F = I.o_W + I.R_WM * a.x;
    c.tF = I.R_WM * a.d1;
    c.kF = I.R_WM * a.d2;
    c.K = J.o_W + J.R_WM * b.x;
    c.tK = J.R_WM * b.d1;
    c.kK = J.R_WM * b.d2;
    c.z = J.R_WM.col(2);
    c.n = cam.orientation() * c.tK.cross(c.z).normalized();
    c.gap = c.n.dot(c.F - c.K);
    return c;
}

ConstraintRow camGapRow(const CamContact& c, const CurveSide& I, const CurveSide& J,
                        const Curve& cam) {
    ConstraintRow r;
    const Vec3 uF = I.velocityAt(c.F), uK = J.velocityAt(c.K);
    const Vec3 wI = I.w(), wJ = J.w();
    r.value = c.gap;
    r.rate = c.n.dot(uF - uK);
    r.Ji = I.pointRow(c.F, c.n);
    r.Jj = -J.pointRow(c.K, c.n);
    // ṡ₁, ṡ₂ from d/dt of the contact conditions.
    const Vec3 d = c.F - c.K;
    const Vec3& z = c.z;
    const double a11 = c.tF.dot(c.tK), a12 = -c.tK.squaredNorm() + d.dot(c.kK);
    const double a21 = c.kF.cross(c.tK).dot(z), a22 = c.tF.cross(c.kK).dot(z);
    const double b1 = -((uF - uK).dot(c.tK) + d.dot(wJ.cross(c.tK)));
    const double b2 = -((wI.cross(c.tF)).cross(c.tK).dot(z) + c.tF.cross(wJ.cross(c.tK)).dot(z) +
                        c.tF.cross(c.tK).dot(wJ.cross(z)));
    const double det = a11 * a22 - a12 * a21;
    double s1dot = 0.0, s2dot = 0.0;
    if (std::abs(det) > 0.0) {
        s1dot = (a22 * b1 - a12 * b2) / det;
        s2dot = (-a21 * b1 + a11 * b2) / det;
    }
    const double len = c.tK.norm();
    const Vec3 unit = c.tK / len;
    const Vec3 unitRate = (c.kK - c.kK.dot(unit) * unit) / len;  // d t̂ / ds₂
    const Vec3 ndot = wJ.cross(c.n) + cam.orientation() * unitRate.cross(z) * s2dot;
    r.gamma = -(ndot.dot(uF - uK) + c.n.dot(I.kappaAt(c.F) - J.kappaAt(c.K) +
                                            wI.cross(c.tF) * s1dot - wJ.cross(c.tK) * s2dot));
    return r;
}

}  // namespace engine
