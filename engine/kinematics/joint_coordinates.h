#pragma once
// Joint coordinates: the angle or slide of each of a joint's free axes, measured from its two
// markers (JointModel::coordinates). A rotation is the angle of I's x axis from J's x axis
// about J's z axis, a translation the offset of I's origin from J's along J's z axis.
//
// As rows (value, rate, Jacobian, γ) they drive motions and joint springs, dampers and
// controllers; their values alone give the joint coordinates of outputs and State.

#include <vector>

#include "engine/kinematics/kinematic_vector.h"

namespace engine {

struct Model;

// Joint coordinate `coordinate` of `joint` (angle or slide, see JointModel) as a row: value,
// rate, Jacobian blocks, and gamma = −(the part of its second derivative that does not
// multiply accelerations). Angles are in (−π, π].
ConstraintRow jointCoordinate(const Model& model, const std::vector<BodyFrame>& frames, int joint,
                              int coordinate);

// The value alone of jointCoordinate(): the angle or slide, nothing else computed.
double jointCoordinateValue(const Model& model, const std::vector<BodyFrame>& frames, int joint,
                            int coordinate);

// The value and rate of jointCoordinate() alone, for double, and for Dual frames (their
// derivatives along the frames' tangents, engine/math/dual.h): exact for the joints whose
// coordinates are formed from their markers' axes and origins; along a curve or a surface (a
// foot point found by iteration) central differences of the double value and rate.
template <class S>
struct CoordinateMotion {
    S value = S(0.0);
    S rate = S(0.0);
};
template <class S>
CoordinateMotion<S> jointCoordinateMotion(const Model& model,
                                          const std::vector<BodyFrameOf<S>>& frames, int joint,
                                          int coordinate);

// ω_I − ω_J of a joint's two parts, world axes [rad/s].
Vec3 relativeAngularVelocity(const Model& model, const std::vector<BodyFrame>& frames, int joint);

// The angle `wrapped` (in (−π, π]) shifted by whole turns to lie nearest `reference`.
double unwindAngle(double wrapped, double reference);

// Offset of each joint's first coordinate in State::jointCoordinates.
std::vector<int> jointCoordinateOffsets(const Model& model);

}  // namespace engine
