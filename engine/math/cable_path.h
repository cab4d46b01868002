#pragma once
// The path of a cable through points and round pulleys (seed 003 §0.14, wrapping): from its
// first anchor to its last, straight between anchors, and round each pulley — a cylinder about
// the z axis of its frame — along the shortest way on its surface, a helix where the cable's
// neighbours lie off the pulley's mid-plane (a circular arc where they lie in it). The path is
// the shortest one of its kind: each straight piece leaves one surface and meets the next
// tangentially, which is also where a frictionless cable held by tension lies.
//
// Being shortest, its length's derivative in the anchors' poses is that of its straight pieces
// with their ends held on their anchors (the points where it touches a pulley carried by the
// pulley): a cable's force is its tension along each piece, at the piece's two ends — and the
// points' own motion, found by the implicit function theorem from the tangency conditions,
// enters only the force's Jacobian (cablePath on dual numbers).
//
// A pulley the cable would wrap by less than nothing (the straight line past it on its free
// side) is lifted off: the path passes it by, as a rope leaves a sheave it no longer presses.
// Wraps are taken up to a turn (less 6°): a cable wound further round a drum is tied to the
// drum's part instead.

#include <vector>

#include <Eigen/Core>

namespace engine {

// An anchor of a cable: a point (radius 0), its frame's origin; or a pulley of `radius` about
// its frame's z axis through its origin, the cable going round it counterclockwise about z
// (sense +1) or clockwise (−1). A pulley that `liftsOff` is passed by where the cable would
// wrap it by less than nothing; one that does not (a turning pulley the cable grips) keeps it.
template <class S>
struct CableAnchorOf {
    Eigen::Matrix<S, 3, 3> R = Eigen::Matrix<S, 3, 3>::Identity();
    Eigen::Matrix<S, 3, 1> p = Eigen::Matrix<S, 3, 1>::Zero();
    double radius = 0.0;
    int sense = 1;
    bool liftsOff = true;
};
using CableAnchor = CableAnchorOf<double>;

// The solved path: which pulleys the cable touches and where. Per touching pulley, in `x` from
// its `slot`: the angle (about z from the frame's x axis) and the height along z where the cable
// arrives, then where it leaves (φ_in, h_in, φ_out, h_out); the wrap s (φ_out − φ_in) is the
// angle it goes round. `jacobian`: of the tangency conditions that fix x, there (for
// cablePath's tangents).
struct CableContacts {
    std::vector<int> slot;  // per anchor: its first index in x; −1 for a point or a lifted pulley
    Eigen::VectorXd x;
    Eigen::MatrixXd jacobian;
    bool converged = true;
};

// The shortest path through `anchors` (the first and last are points), pulleys that would be
// wrapped by less than nothing lifted off.
CableContacts solveCablePath(const std::vector<CableAnchor>& anchors);

// A piece of the path: straight from anchor `from` (at a) to anchor `to` (at b), unit u.
template <class S>
struct CablePieceOf {
    int from = 0, to = 0;
    Eigen::Matrix<S, 3, 1> a, b, u;
    S length = S(0.0);
};

// The path on anchors of S (double, or dual numbers for its tangent), where `solved` says it
// lies for their values: its straight pieces, and per anchor the angles where the cable arrives
// and leaves and the length it wraps (0 for points and lifted pulleys).
template <class S>
struct CablePathOf {
    std::vector<CablePieceOf<S>> pieces;
    std::vector<S> phiIn, phiOut, wrapped;
    S length = S(0.0);  // the pieces' and the wraps'
};
template <class S>
CablePathOf<S> cablePath(const std::vector<CableAnchorOf<S>>& anchors, const CableContacts& solved);

// A cable cut into spans at the pulleys it grips (turning pulleys, no slip), each span with its
// own tension: per span its length, and per piece of the path its span. `cut` per anchor: NaN,
// or for a pulley the cable grips the angle (as the path's φ) of the point of the cable fixed
// on it where the spans meet — the wrap on either side of it counts to the span on that side.
template <class S>
struct CableSpansOf {
    std::vector<S> length;
    std::vector<int> pieceSpan;
};
template <class S>
CableSpansOf<S> cableSpans(const std::vector<CableAnchorOf<S>>& anchors, const CablePathOf<S>& path,
                           const std::vector<double>& cut);

// The path as a polyline for drawing: the anchors' points and each wrap in steps of at most
// `step` radians.
std::vector<Eigen::Vector3d> cablePolyline(const std::vector<CableAnchor>& anchors,
                                           double step = 0.15);

}  // namespace engine
