#pragma once
// The curves of a joint on curves (engine::Joint::curve, follower) as the GUI makes them: the
// ones a new pointOnCurve or curveOnCurve joint starts with, fitted to the parts where they
// are so the joint assembles at once, and a curve turned into the other kind when the user
// switches it in Properties. No Qt.
//
// Defaults (fitJointCurves):
//   pointOnCurve  a straight slot: a spline of 4 points along marker J's x axis, centred on
//                 marker I's origin (in J's frame), 60 % as long as J's part is along that
//                 axis (three times I's part when J's has no geometry; 100 mm when neither has).
//   curveOnCurve  a disc cam and a roller: circles about marker J's z axis and marker I's (x
//                 and y as expressions of s over one turn), touching where the parts are: the
//                 cam as large as J's part reaches across its axis when that leaves the roller
//                 a tenth of the distance between the axes, else three quarters of it, the
//                 roller the rest. Axes that coincide take the cam's size from its part (50 mm
//                 without one) and a roller a quarter of it; with `moveParts` the follower's
//                 part, or else the cam's, moves along J's x axis until they touch.
//   pointOnSurface  a flat patch 200 mm square through marker I's origin, normal to marker
//                 J's z axis: x = u, y = v, z = I's height in J's frame (expressions).

#include "engine/model/scene_spec.h"

namespace ui {

// Gives joint `joint` of `spec` the curves its type needs where it has none (above) and takes
// what its type cannot have off it: curves, follower and lift-off off a joint of another type,
// a surface off a joint that is not on one, friction off a joint on curves or a surface and a
// ball joint, stops that stop nothing off a joint without them (a cam's
// contact restitution once it may not lift off).
void fitJointCurves(engine::SceneSpec& spec, engine::EntityId joint, bool moveParts = false);

// A curve as a spline: a spline's as it is; an expression curve's points, 12 round a closed one
// and 8 along an open one (to the micrometre), or a 100 mm line along x when it is no curve.
engine::CurveSpec asSpline(const engine::CurveSpec& curve);
// A curve as expressions of s: an expression curve's as it is; a closed spline's circle about
// its points' centre through their mean distance in x-y (one turn), an open one's straight line
// from its first point to its last (s from 0 to 1).
engine::CurveSpec asExpression(const engine::CurveSpec& curve);

}  // namespace ui
