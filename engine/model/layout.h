#pragma once
// The coordinates of a model's bodies in the state vectors (state.h):
//
//   q  per body 7: r = p_WBcm_W (3), then e_WB = (w, x, y, z) unit quaternion
//   v  per body 6: v_WBcm_W (3, world axes), then ω'_WB (3, body axes)
//
// Every vector over the velocities follows v: v̇, the applied forces g (force, then torque in
// body axes), M⁻¹ (1/m three times, then 1/J'), and the columns of Φq (6 per body).

#include <Eigen/Core>

namespace engine {

// Where a body's entries sit: the layout of q and of every vector over the velocities (v, v̇, the
// applied forces g, M⁻¹, and the columns of Φq, 6 per body). Offsets are written here only.
namespace layout {

constexpr int kPositionsPerBody = 7;   // r (3), e (4)
constexpr int kVelocitiesPerBody = 6;  // v (3), ω' (3)

// Index of body b's first entry in q, and in a vector over the velocities (its first column).
constexpr Eigen::Index positionIndex(int b) {
    return kPositionsPerBody * Eigen::Index(b);
}
constexpr Eigen::Index velocityIndex(int b) {
    return kVelocitiesPerBody * Eigen::Index(b);
}

// The N entries of body b starting at `offset` within its block of `perBody`.
template <int N, int perBody, int offset, typename X>
auto bodyEntries(X&& x, int b) {
    return x.template segment<N>(perBody * Eigen::Index(b) + offset);
}

// Views of body b's entries (writable when the vector is): in q its position r, orientation
// e = (w, x, y, z) and both (the pose); in a vector over the velocities its translational part
// (v, a force), rotational part (ω', a torque in body axes) and both (the twist).
// clang-format off
template <typename Q> auto position(Q&& q, int b) { return bodyEntries<3, kPositionsPerBody, 0>(q, b); }
template <typename Q> auto orientation(Q&& q, int b) { return bodyEntries<4, kPositionsPerBody, 3>(q, b); }
template <typename Q> auto pose(Q&& q, int b) { return bodyEntries<7, kPositionsPerBody, 0>(q, b); }
template <typename V> auto linear(V&& v, int b) { return bodyEntries<3, kVelocitiesPerBody, 0>(v, b); }
template <typename V> auto angular(V&& v, int b) { return bodyEntries<3, kVelocitiesPerBody, 3>(v, b); }
template <typename V> auto twist(V&& v, int b) { return bodyEntries<6, kVelocitiesPerBody, 0>(v, b); }
// clang-format on

}  // namespace layout

}  // namespace engine
