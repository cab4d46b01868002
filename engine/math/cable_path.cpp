#include "engine/math/cable_path.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include <Eigen/QR>

#include "engine/math/constants.h"
#include "engine/math/dual.h"

namespace engine {
namespace {

template <class S>
using Vec3Of = Eigen::Matrix<S, 3, 1>;
template <class S>
using VectorOf = Eigen::Matrix<S, Eigen::Dynamic, 1>;
using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;

// Below this a straight piece or a wrap has no direction to speak of [m].
constexpr double kTiny = 1e-14;
// How far below nothing a wrap may be guessed [rad].
constexpr double kWrapBelow = 0.1;

// The point at angle φ and height h on pulley a, and its derivative in φ.
template <class S>
Vec3Of<S> onPulley(const CableAnchorOf<S>& a, const S& phi, const S& h) {
    using std::cos;
    using std::sin;
    return a.p + a.R * Vec3Of<S>(a.radius * cos(phi), a.radius * sin(phi), h);
}
template <class S>
Vec3Of<S> alongPulley(const CableAnchorOf<S>& a, const S& phi) {
    using std::cos;
    using std::sin;
    return a.R * Vec3Of<S>(-a.radius * sin(phi), a.radius * cos(phi), S(0.0));
}

// Where the cable arrives at (leaves) anchor k for the variables x.
template <class S>
Vec3Of<S> arrival(const CableAnchorOf<S>& a, int slot, const VectorOf<S>& x) {
    return slot < 0 ? a.p : onPulley(a, x(slot), x(slot + 1));
}
template <class S>
Vec3Of<S> departure(const CableAnchorOf<S>& a, int slot, const VectorOf<S>& x) {
    return slot < 0 ? a.p : onPulley(a, x(slot + 2), x(slot + 3));
}

// The anchors the path goes through, in order (points and touching pulleys).
std::vector<int> present(const std::vector<int>& slot, const std::vector<bool>& lifted) {
    std::vector<int> out;
    for (std::size_t k = 0; k < slot.size(); ++k)
        if (!lifted[k]) out.push_back(static_cast<int>(k));
    return out;
}

// The helix's length on a pulley of radius r between (φ_in, h_in) and (φ_out, h_out).
template <class S>
S helix(double r, const S& dphi, const S& dh) {
    using std::sqrt;
    const S square = r * r * dphi * dphi + dh * dh;
    return valueOf(square) < kTiny * kTiny ? S(0.0) : sqrt(square);
}

std::vector<CableAnchorOf<Dual>> asDual(const std::vector<CableAnchor>& anchors) {
    std::vector<CableAnchorOf<Dual>> out(anchors.size());
    for (std::size_t k = 0; k < anchors.size(); ++k) {
        out[k].R = anchors[k].R.cast<Dual>();
        out[k].p = anchors[k].p.cast<Dual>();
        out[k].radius = anchors[k].radius;
        out[k].sense = anchors[k].sense;
        out[k].liftsOff = anchors[k].liftsOff;
    }
    return out;
}

// The conditions the shortest path meets where it touches a pulley (the geodesic's): each
// straight piece tangent to the cylinder where it meets it, u·n = 0, n the surface's normal
// there, and its slope along the axis the helix's, u·z = Δh / (its length). (The gradient of
// the length vanishes there too, but only to second order in the angle in a pulley's plane —
// its roots are double there; these are simple.)
template <class S>
VectorOf<S> tangency(const std::vector<CableAnchorOf<S>>& anchors, const std::vector<int>& through,
                     const std::vector<int>& slot, const VectorOf<S>& x) {
    using std::cos;
    using std::sin;
    using std::sqrt;
    VectorOf<S> F = VectorOf<S>::Zero(x.size());
    auto normal = [](const CableAnchorOf<S>& a, const S& phi) {
        return Vec3Of<S>(a.R * Vec3Of<S>(cos(phi), sin(phi), S(0.0)));
    };
    for (std::size_t i = 0; i + 1 < through.size(); ++i) {
        const auto a = static_cast<std::size_t>(through[i]);
        const auto b = static_cast<std::size_t>(through[i + 1]);
        const Vec3Of<S> d = arrival(anchors[b], slot[b], x) - departure(anchors[a], slot[a], x);
        const S length = sqrt(d.squaredNorm());
        if (valueOf(length) < kTiny) continue;
        const Vec3Of<S> u = d / length;
        if (const int s = slot[b]; s >= 0) {
            F(s) = u.dot(normal(anchors[b], x(s)));
            F(s + 1) = u.dot(anchors[b].R.col(2));
        }
        if (const int s = slot[a]; s >= 0) {
            F(s + 2) = u.dot(normal(anchors[a], x(s + 2)));
            F(s + 3) = u.dot(anchors[a].R.col(2));
        }
    }
    for (std::size_t k = 0; k < anchors.size(); ++k) {
        const int s = slot[k];
        if (s < 0) continue;
        const S dh = x(s + 3) - x(s + 1);
        const S h = helix(anchors[k].radius, S(x(s + 2) - x(s)), dh);
        const S slope = valueOf(h) < kTiny ? S(0.0) : S(dh / h);
        F(s + 1) -= slope;
        F(s + 3) -= slope;
    }
    return F;
}

// The conditions' Jacobian in x (dual numbers along each variable).
Eigen::MatrixXd tangencyJacobian(const std::vector<CableAnchorOf<Dual>>& anchors,
                                 const std::vector<int>& through, const std::vector<int>& slot,
                                 const Eigen::VectorXd& x) {
    const Eigen::Index n = x.size();
    Eigen::MatrixXd J(n, n);
    for (Eigen::Index c = 0; c < n; ++c) {
        VectorOf<Dual> xd = x.cast<Dual>();
        xd(c).b = 1.0;
        const VectorOf<Dual> F = tangency(anchors, through, slot, xd);
        for (Eigen::Index r = 0; r < n; ++r) J(r, c) = F(r).b;
    }
    return J;
}

// The direction of the straight line leaving circle A (centre a, signed radius ρa: positive
// counterclockwise) for circle B, tangent to both on the sides their senses say; false where
// there is none (one circle inside the other's reach).
bool tangentDirection(const Vec2& a, double ra, const Vec2& b, double rb, Vec2& t) {
    const Vec2 d = b - a;
    const double D = d.norm();
    if (D < kTiny) return false;
    const double s = (ra - rb) / D;
    if (std::abs(s) >= 1.0) return false;
    const Vec2 e = d / D, normal(-e.y(), e.x());
    t = std::sqrt(1.0 - s * s) * e + s * normal;
    return true;
}
// Where a line of direction t touches a circle about the origin of signed radius ρ.
Vec2 touching(const Vec2& t, double rho) {
    return -rho * Vec2(-t.y(), t.x());
}

// A neighbour of pulley k as seen in k's plane: its centre, signed radius and height.
struct Seen {
    Vec2 centre;
    double rho = 0.0, height = 0.0;
};
Seen seenFrom(const CableAnchor& k, const CableAnchor& other, bool touches) {
    const Vec3 q = k.R.transpose() * (other.p - k.p);
    Seen s{q.head<2>(), 0.0, q.z()};
    // (a tilted pulley seen smaller: the guess goes on continuously as the axes turn)
    if (touches && other.radius > 0.0)
        s.rho = other.sense * other.radius * other.R.col(2).dot(k.R.col(2));
    return s;
}

// The wrap s (φ_out − φ_in) taken between −0.1 rad and a turn less 0.1 rad: a pulley is taken
// up where the path runs into it, so wrapped by more than nothing (the guess, in the pulley's
// plane, may say a hair less).
double wrapAngle(int sense, double phiIn, double phiOut) {
    const double theta = sense * (phiOut - phiIn);
    return theta - 2.0 * kPi * std::floor((theta + kWrapBelow) / (2.0 * kPi));
}

// The path in each pulley's plane: where it touches, and its wrap; false where a neighbour is
// inside a pulley's reach (pulley `bad`).
bool planarGuess(const std::vector<CableAnchor>& anchors, const std::vector<int>& through,
                 const std::vector<int>& slot, Eigen::VectorXd& x, int& bad) {
    for (std::size_t i = 1; i + 1 < through.size(); ++i) {
        const auto k = static_cast<std::size_t>(through[i]);
        const int s = slot[k];
        if (s < 0) continue;
        const CableAnchor& pulley = anchors[k];
        const Seen a = seenFrom(pulley, anchors[static_cast<std::size_t>(through[i - 1])], true);
        const Seen b = seenFrom(pulley, anchors[static_cast<std::size_t>(through[i + 1])], true);
        const double rho = pulley.sense * pulley.radius;
        Vec2 tIn, tOut;
        if (!tangentDirection(a.centre, a.rho, Vec2::Zero(), rho, tIn) ||
            !tangentDirection(Vec2::Zero(), rho, b.centre, b.rho, tOut)) {
            bad = static_cast<int>(k);
            return false;
        }
        const Vec2 in = touching(tIn, rho), out = touching(tOut, rho);
        const double phiIn = std::atan2(in.y(), in.x());
        double theta = wrapAngle(pulley.sense, phiIn, std::atan2(out.y(), out.x()));
        // A pulley taken up because the path ran into it is wrapped: the guess (its neighbours
        // seen in its plane) starts Newton's method on that side of the length's kink.
        if (pulley.liftsOff) theta = std::max(theta, 1e-3);
        // Heights: along the unrolled path, straight from one neighbour's height to the other's.
        const double la = (in - (a.centre + touching(tIn, a.rho))).norm();
        const double lb = (b.centre + touching(tOut, b.rho) - out).norm();
        const double arc = pulley.radius * std::max(theta, 0.0);
        const double total = std::max(la + arc + lb, kTiny);
        x(s) = phiIn;
        x(s + 1) = a.height + (b.height - a.height) * la / total;
        x(s + 2) = phiIn + pulley.sense * theta;
        x(s + 3) = a.height + (b.height - a.height) * (la + arc) / total;
    }
    return true;
}

// Slots for the pulleys not lifted, and the variables' count.
Eigen::Index assignSlots(const std::vector<CableAnchor>& anchors, const std::vector<bool>& lifted,
                         std::vector<int>& slot) {
    slot.assign(anchors.size(), -1);
    int n = 0;
    for (std::size_t k = 1; k + 1 < anchors.size(); ++k)
        if (anchors[k].radius > 0.0 && !lifted[k]) {
            slot[k] = n;
            n += 4;
        }
    return n;
}

// Newton's method on the tangency conditions from the planar guess, its steps shortened while
// they do not bring the conditions nearer to holding.
bool solveTangency(const std::vector<CableAnchor>& anchors, const std::vector<int>& through,
                   const std::vector<int>& slot, Eigen::VectorXd& x, Eigen::MatrixXd& J) {
    const std::vector<CableAnchorOf<Dual>> dual = asDual(anchors);
    Eigen::VectorXd F = tangency(anchors, through, slot, x);
    for (int iteration = 0; iteration < 60; ++iteration) {
        J = tangencyJacobian(dual, through, slot, x);
        if (F.lpNorm<Eigen::Infinity>() < 1e-14) return true;
        const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(J);
        const Eigen::VectorXd step = qr.solve(-F);
        if (!step.allFinite()) return false;
        double alpha = 1.0;
        Eigen::VectorXd next = x + step, Fnext = tangency(anchors, through, slot, next);
        while (alpha > 1e-6 && !(Fnext.squaredNorm() < F.squaredNorm())) {
            alpha *= 0.5;
            next = x + alpha * step;
            Fnext = tangency(anchors, through, slot, next);
        }
        if (!(Fnext.squaredNorm() < F.squaredNorm())) return F.lpNorm<Eigen::Infinity>() < 1e-10;
        x = next;
        F = Fnext;
    }
    return F.lpNorm<Eigen::Infinity>() < 1e-10;
}

}  // namespace

CableContacts solveCablePath(const std::vector<CableAnchor>& anchors) {
    // From the straight line through the points (the pulleys a cable may lift off lifted), the
    // first pulley the path runs into is taken up, and the path solved again, until it runs
    // into none; one taken up that the cable would wrap by less than nothing is lifted again
    // for good (as is one a neighbour comes inside the reach of).
    CableContacts out;
    const std::size_t n = anchors.size();
    std::vector<bool> lifted(n, false), settled(n, false);
    for (std::size_t k = 1; k + 1 < n; ++k)
        lifted[k] = anchors[k].radius > 0.0 && anchors[k].liftsOff;
    for (std::size_t round = 0; round <= 2 * n + 2; ++round) {
        const Eigen::Index count = assignSlots(anchors, lifted, out.slot);
        const std::vector<int> through = present(out.slot, lifted);
        out.x = Eigen::VectorXd::Zero(count);
        out.jacobian.resize(0, 0);
        out.converged = true;
        int bad = -1;
        if (!planarGuess(anchors, through, out.slot, out.x, bad)) {
            lifted[static_cast<std::size_t>(bad)] = settled[static_cast<std::size_t>(bad)] = true;
            continue;
        }
        if (count > 0)
            out.converged = solveTangency(anchors, through, out.slot, out.x, out.jacobian);
        // A pulley taken up that the cable wraps by less than nothing. (Where Newton's method
        // fails, the pulley it left least wrapped goes too, if it left it hardly wrapped.)
        int worst = -1;
        double least = out.converged ? 1e-9 : 1e-4;
        for (std::size_t k = 0; k < n; ++k) {
            const int s = out.slot[k];
            if (s < 0 || !anchors[k].liftsOff) continue;
            if (const double theta = anchors[k].sense * (out.x(s + 2) - out.x(s)); theta < least) {
                least = theta;
                worst = static_cast<int>(k);
            }
        }
        if (worst >= 0) {
            lifted[static_cast<std::size_t>(worst)] = settled[static_cast<std::size_t>(worst)] =
                true;
            continue;
        }
        // A lifted pulley the straight piece past it runs into: in its plane, the piece's line
        // passes its centre on the side the cable wraps it by less than its radius — beside the
        // piece or beyond its ends, as a sheave above a rope's two hanging runs. (Taken from the
        // parts' positions alone, a pulley that the line's extension beyond an end sweeps across
        // is taken up at once, the long way round.) The first
        // along the cable is taken up first (where taking up one would free another, as a
        // rope over a sheave clears a wheel that pressed it from below, the one nearer the
        // cable's start holds it).
        int first = -1;
        const double depth = 1e-12;
        for (std::size_t k = 1; k + 1 < n && first < 0; ++k) {
            if (!lifted[k] || settled[k]) continue;
            std::size_t a = k - 1, b = k + 1;
            while (lifted[a]) --a;
            while (lifted[b]) ++b;
            const CableAnchor& pulley = anchors[k];
            const Vec3 from =
                pulley.R.transpose() * (departure(anchors[a], out.slot[a], out.x) - pulley.p);
            const Vec3 to =
                pulley.R.transpose() * (arrival(anchors[b], out.slot[b], out.x) - pulley.p);
            Vec2 t = (to - from).head<2>();
            if (t.norm() < kTiny) continue;
            t.normalize();
            const Vec2 centre = -from.head<2>();
            const double side = pulley.sense * (t.x() * centre.y() - t.y() * centre.x());
            if (pulley.radius - side > depth) first = static_cast<int>(k);
        }
        if (first < 0) return out;
        lifted[static_cast<std::size_t>(first)] = false;
    }
    return out;
}

template <class S>
CablePathOf<S> cablePath(const std::vector<CableAnchorOf<S>>& anchors,
                         const CableContacts& solved) {
    using std::sqrt;
    const std::vector<int>& slot = solved.slot;
    std::vector<int> through;
    for (std::size_t k = 0; k < anchors.size(); ++k)
        if (slot[k] >= 0 || anchors[k].radius <= 0.0) through.push_back(static_cast<int>(k));
    // The variables on S: their values solved, their tangents by the implicit function theorem
    // on the tangency conditions F, J dx = −∂F/∂(anchors) d(anchors).
    VectorOf<S> x = solved.x.cast<S>();
    if constexpr (!std::is_same_v<S, double>) {
        if (solved.x.size() > 0 && solved.jacobian.rows() == solved.x.size()) {
            const VectorOf<S> F = tangency(anchors, through, slot, x);
            Eigen::VectorXd tangent(F.size());
            for (Eigen::Index i = 0; i < F.size(); ++i) tangent(i) = F(i).b;
            Eigen::VectorXd dx = -solved.jacobian.colPivHouseholderQr().solve(tangent);
            if (!dx.allFinite()) dx.setZero();
            for (Eigen::Index i = 0; i < x.size(); ++i) x(i).b = dx(i);
        }
    }
    CablePathOf<S> path;
    path.phiIn.assign(anchors.size(), S(0.0));
    path.phiOut.assign(anchors.size(), S(0.0));
    path.wrapped.assign(anchors.size(), S(0.0));
    for (std::size_t i = 0; i + 1 < through.size(); ++i) {
        const auto a = static_cast<std::size_t>(through[i]);
        const auto b = static_cast<std::size_t>(through[i + 1]);
        CablePieceOf<S> piece;
        piece.from = static_cast<int>(a);
        piece.to = static_cast<int>(b);
        piece.a = departure(anchors[a], slot[a], x);
        piece.b = arrival(anchors[b], slot[b], x);
        const Vec3Of<S> d = piece.b - piece.a;
        piece.length = sqrt(d.squaredNorm());
        piece.u = valueOf(piece.length) < kTiny ? Vec3Of<S>::Zero() : Vec3Of<S>(d / piece.length);
        if (valueOf(piece.length) < kTiny) piece.length = S(0.0);
        path.length += piece.length;
        path.pieces.push_back(piece);
    }
    for (std::size_t k = 0; k < anchors.size(); ++k) {
        const int s = slot[k];
        if (s < 0) continue;
        path.phiIn[k] = x(s);
        path.phiOut[k] = x(s + 2);
        path.wrapped[k] = helix(anchors[k].radius, S(x(s + 2) - x(s)), S(x(s + 3) - x(s + 1)));
        path.length += path.wrapped[k];
    }
    return path;
}

template <class S>
CableSpansOf<S> cableSpans(const std::vector<CableAnchorOf<S>>& anchors, const CablePathOf<S>& path,
                           const std::vector<double>& cut) {
    CableSpansOf<S> spans;
    spans.length.push_back(S(0.0));
    for (const CablePieceOf<S>& piece : path.pieces) {
        spans.pieceSpan.push_back(static_cast<int>(spans.length.size()) - 1);
        spans.length.back() += piece.length;
        // The anchor it reaches: its wrap to this span, or cut between this span and the next.
        const auto k = static_cast<std::size_t>(piece.to);
        if (k + 1 == anchors.size()) break;
        const S& wrapped = path.wrapped[k];
        if (std::isnan(cut[k])) {
            spans.length.back() += wrapped;
            continue;
        }
        // The wrap in angle, s (φ_out − φ_in), and the part of it before the cut: the helix's
        // length shared in proportion (all of it where the cable lies in the pulley's plane).
        const double r = anchors[k].radius;
        const S theta = anchors[k].sense * (path.phiOut[k] - path.phiIn[k]);
        const S before = anchors[k].sense * (S(cut[k]) - path.phiIn[k]);
        const S share = valueOf(theta) * r > 1e-12 ? S(wrapped / (r * theta)) : S(1.0);
        spans.length.back() += r * before * share;
        spans.length.push_back(wrapped - r * before * share);
    }
    return spans;
}

template CableSpansOf<double> cableSpans(const std::vector<CableAnchorOf<double>>&,
                                         const CablePathOf<double>&, const std::vector<double>&);
template CableSpansOf<Dual> cableSpans(const std::vector<CableAnchorOf<Dual>>&,
                                       const CablePathOf<Dual>&, const std::vector<double>&);

template CablePathOf<double> cablePath(const std::vector<CableAnchorOf<double>>&,
                                       const CableContacts&);
template CablePathOf<Dual> cablePath(const std::vector<CableAnchorOf<Dual>>&, const CableContacts&);

std::vector<Eigen::Vector3d> cablePolyline(const std::vector<CableAnchor>& anchors, double step) {
    std::vector<Eigen::Vector3d> out;
    if (anchors.size() < 2) return out;
    const CableContacts solved = solveCablePath(anchors);
    for (std::size_t k = 0; k < anchors.size(); ++k) {
        const int s = solved.slot[k];
        if (s < 0) {
            if (anchors[k].radius <= 0.0) out.push_back(anchors[k].p);
            continue;
        }
        const Eigen::Vector4d v = solved.x.segment<4>(s);
        const int pieces = std::max(1, static_cast<int>(std::ceil(std::abs(v(2) - v(0)) / step)));
        for (int i = 0; i <= pieces; ++i) {
            const double f = static_cast<double>(i) / pieces;
            out.push_back(onPulley(anchors[k], v(0) + f * (v(2) - v(0)), v(1) + f * (v(3) - v(1))));
        }
    }
    return out;
}

}  // namespace engine
