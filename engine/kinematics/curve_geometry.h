#pragma once
// The geometry of the joints on curves, at one instant: a point on a curve (a pin in a slot)
// and two contours in contact (a cam and its follower), with their constraint rows.
//
// Point on curve. Marker I's origin P rides on a curve C(s) fixed in marker J's frame. The
// curve's parameter at P is that of the nearest point, s* with (P − C(s*))·C'(s*) = 0, so the
// two rows N_k·(P − C(s*)) (N₁, N₂ unit normals to the tangent t = C'(s*)) say P is on the
// curve without s being a coordinate of their own; s* is the joint's coordinate. At P = C:
//   rows    Ji = [N_kᵀ, ((P − r_i) × N_k)ᵀ R_i],  Jj = −[N_kᵀ, ((C − r_j) × N_k)ᵀ R_j]
//   ṡ       t·(u_i(P) − u_j(C)) / |t|²  (u_b(x): body b's material velocity at x)
//   γ       −N_k·(κ_i − κ_j − 2 ω_j × t ṡ − C'' ṡ²)  (κ_b = ω_b × (ω_b × (x − r_b)))
// the last two terms the Coriolis and curvature accelerations of a point running along a
// curve that turns.
//
// Cam pair. The follower's contour F(s₁) (in marker I's x-y plane) and the cam's K(s₂) (in
// marker J's) touch where their tangents are parallel and the line between the two points is
// normal to the cam: (F − K)·K' = 0 and (F' × K')·z_J = 0. The gap is g = n·(F − K), n the
// cam's outward normal (K' × z_J for a counter-clockwise contour), 0 in contact, > 0 apart:
//   row     ġ = n·(u_i(F) − u_j(K))
//   γ       −(ṅ·(u_i(F) − u_j(K)) + n·(κ_i − κ_j + ω_i × F' ṡ₁ − ω_j × K' ṡ₂)),
// ṡ₁, ṡ₂ from the contact conditions' derivative, ṅ = ω_j × n + (dn/ds₂) ṡ₂. The mechanism is
// taken as planar about z_J (what a cam pair is): out-of-plane motion is left to its joints.

#include <vector>

#include "engine/kinematics/kinematic_vector.h"

namespace engine {

struct MarkerModel;
class Curve;
class Surface;
using Mat2 = Eigen::Matrix2d;

// A marker with its body's frame (null for the ground), in the world.
struct CurveSide {
    const BodyFrame* frame = nullptr;
    const MarkerModel* marker = nullptr;
    Mat3 R_WM = Mat3::Identity();  // the marker's axes
    Vec3 o_W = Vec3::Zero();       // its origin
    CurveSide(const BodyFrame* f, const MarkerModel& m);
    Vec3 bodyOrigin() const { return frame ? frame->r : Vec3::Zero(); }
    Vec3 w() const { return frame ? frame->w : Vec3::Zero(); }
    Vec3 velocityAt(const Vec3& x) const {
        return frame ? Vec3(frame->v + frame->w.cross(x - frame->r)) : Vec3::Zero();
    }
    Vec3 kappaAt(const Vec3& x) const {
        return frame ? Vec3(frame->w.cross(frame->w.cross(x - frame->r))) : Vec3::Zero();
    }
    // The row of n·u(x): [nᵀ, ((x − r) × n)ᵀ R] (zero on the ground).
    Row6 pointRow(const Vec3& x, const Vec3& n) const;
};

struct CurveFoot {
    double s = 0.0;   // the curve's parameter at the foot
    Vec3 P, C, t, k;  // marker I's origin, the foot, C'(s), C''(s) (world)
    Vec3 normal[2];   // N₁, N₂
    double sdot = 0.0;
};
CurveFoot curveFoot(const CurveSide& I, const CurveSide& J, const Curve& curve);
// Row k of a point on a curve (see above).
ConstraintRow curveFootRow(const CurveFoot& foot, const CurveSide& I, const CurveSide& J, int k);
// The curve's parameter as a row (the joint coordinate).
ConstraintRow curveParameterRow(const CurveFoot& foot, const CurveSide& I, const CurveSide& J);

// Point on surface: marker I's origin P on a surface S(u, v) fixed in marker J's frame, at the
// parameters of the nearest point; one row n·(P − S) along the unit normal n, and the
// parameters as the joint's two coordinates. With w = u_i(P) − u_j(S) and G the first
// fundamental form, (u̇, v̇) = G⁻¹ (Su·w, Sv·w), and
//   γ = −n·(κ_i − κ_j − 2 ω_j × (Su u̇ + Sv v̇) − (Suu u̇² + 2 Suv u̇ v̇ + Svv v̇²)).
struct SurfaceFoot {
    double u = 0.0, v = 0.0;
    Vec3 P, S, n;                   // the point, the foot, the unit normal (world)
    Vec3 Su, Sv, Suu, Suv, Svv;     // derivatives (world)
    double udot = 0.0, vdot = 0.0;  // parameter rates
    Mat2 Ginv;                      // inverse of the first fundamental form
};
SurfaceFoot surfaceFoot(const CurveSide& I, const CurveSide& J, const Surface& surface);
ConstraintRow surfaceFootRow(const SurfaceFoot& foot, const CurveSide& I, const CurveSide& J);
// Parameter k (0: u, 1: v) as a row (the joint's coordinates).
ConstraintRow surfaceParameterRow(const SurfaceFoot& foot, const CurveSide& I, const CurveSide& J,
                                  int k);

struct CamContact {
    double s1 = 0.0, s2 = 0.0;  // follower's and cam's parameters
    Vec3 F, K, tF, tK, kF, kK;  // points, tangents, second derivatives (world)
    Vec3 n, z;                  // the cam's outward normal and its plane's normal
    double gap = 0.0;
};
CamContact camContact(const CurveSide& I, const CurveSide& J, const Curve& follower,
                      const Curve& cam);
ConstraintRow camGapRow(const CamContact& c, const CurveSide& I, const CurveSide& J,
                        const Curve& cam);

}  // namespace engine
