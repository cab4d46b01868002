#include "engine/io/scene_format.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "engine/math/number_text.h"

namespace engine::io::format {
namespace {

// clang-format off
std::vector<ObjectFormat> describe() {
    std::vector<ObjectFormat> objects;
    objects.push_back({"scene", "", {
        {"format", "string", "enum motus-scene", "", "yes", "—", "always `\"motus-scene\"`"},
        {"version", "integer", "integer 1..1", "", "yes", "—", "format version; this Motus reads 1"},
        {"minorVersion", "integer", "integer >=0", "0", "no", "0", "minor version (this Motus writes 22). Minor versions only add keys. A file of a newer minor version than this Motus knows loads with its unknown keys as warnings, kept verbatim with their entity (scene, settings, contact, part, marker, shape, joint, force, motion, coupler, variable, table, sensor, design variable, contact pair, analysis, plot) and written back on save, with the file's minor version; in other files unknown keys are errors"},
        {"units", "`\"SI\"`", "enum SI", "\"SI\"", "no", "`\"SI\"`", "a note for readers: every quantity is in SI units (m, kg, s, N, rad); anything else is an error"},
        {"name", "string", "string", "\"\"", "no", "`\"\"`", "shown in the title bar"},
        {"description", "string", "string", "\"\"", "no", "`\"\"`", "free text"},
        {"gravity", "[x, y, z] m/s²", "vec3", "[0, 0, -9.81]", "no", "`[0, 0, -9.81]`", "world z is up"},
        {"designVariables", "array of design variables", "array", "[]", "no", "`[]`", "named numbers that any numeric field may be bound to, as `\"=name\"` or `\"=expression\"` (below; minor version 14)"},
        {"settings", "settings", "object", "", "no", "see below", "solver and integrator"},
        {"contact", "contact", "object", "", "no", "off", "contact between parts with geometry (below, docs/contact.md)"},
        {"parts", "array of parts", "array", "[]", "no", "`[]`", ""},
        {"joints", "array of joints", "array", "[]", "no", "`[]`", ""},
        {"forces", "array of force elements", "array", "[]", "no", "`[]`", ""},
        {"motions", "array of motions", "array", "[]", "no", "`[]`", "prescribed joint coordinates"},
        {"couplers", "array of couplers", "array", "[]", "no", "`[]`", "gears, racks, screws and linear relations between joint coordinates (minor version 9)"},
        {"variables", "array of variables", "array", "[]", "no", "`[]`", "named expressions of time and of the mechanism's state, read by name in force expressions (below; minor version 12)"},
        {"tables", "array of tables", "array", "[]", "no", "`[]`", "named curves through measured points: force laws of springs, rotational springs and bushings, and functions `name(x)` in any expression (below; minor version 19)"},
        {"sensors", "array of sensors", "array", "[]", "no", "`[]`", "expressions watched for crossing a level as the mechanism runs, stopping the run, marking the instant, setting a held variable or switching a force or motion (below; minor version 12, actions beyond stop and mark 15)"},
        {"analyses", "analyses", "object", "{}", "no", "`{}`", "per analysis (`simulate`, `kinematics`, `statics`, `modes`), the elements it leaves out of the model on top of those deactivated (below; minor version 13)"},
        {"plots", "array of plots", "array", "[]", "no", "`[]`", "the plots the user set up (reopened with the scene)"},
    }, {}});
    objects.push_back({"analysis", "/$defs/analysis", {
        {"inactive", "inactive set", "object", "{}", "no", "`{}`", "what this analysis leaves out: `simulate` (Play, `motus-cli simulate`, `render`), `kinematics` (kinematic analysis and inverse dynamics), `statics`, `modes` (modes and the linearised equations)"},
    }, {}});
    objects.push_back({"inactive", "/$defs/analysis/properties/inactive", {
        {"parts", "array of part names", "array", "[]", "no", "`[]`", "not the ground"},
        {"joints", "array of joint names", "array", "[]", "no", "`[]`", ""},
        {"forces", "array of force names", "array", "[]", "no", "`[]`", ""},
        {"motions", "array of motion names", "array", "[]", "no", "`[]`", "e.g. the motor, for the modes of the free mechanism"},
        {"couplers", "array of coupler names", "array", "[]", "no", "`[]`", ""},
        {"contactPairs", "array of contact pair names", "array", "[]", "no", "`[]`", "the pair's parts do not touch"},
    }, {}});
    objects.push_back({"variable", "/$defs/variable", {
        {"name", "string", "string", "", "yes", "—", "a letter or `_` first, then letters, digits or `_`; unique; not a function's, a measure's, `time` or `pi`"},
        {"expression", "number or expression of `time` and the state", "expression", "", "no", "— (required unless `initial`)", "may read measures (`DM(a.m, b.m)`, `q(crank)`, …) and other variables, in no cycle"},
        {"initial", "number", "number", "", "no", "— (instead of `expression`)", "a held variable: a number the run keeps, starting at this value and changed only by sensors that `set` it (minor version 15)"},
    }, {}});
    objects.push_back({"table", "/$defs/table", {
        {"name", "string", "string", "", "yes", "—", "a letter or `_` first, then letters, digits or `_`; unique; not a variable's, a design variable's, a function's or a measure's; an expression reads the table as `name(x)`"},
        {"interpolation", "`\"linear\"`, `\"cubic\"` or `\"akima\"`", "enum linear cubic akima", "\"akima\"", "no", "`\"akima\"`", "between the points: straight lines; the natural cubic spline (C2); Akima's spline (C1, no overshoot beside a kink). Beyond the first and last points the curve goes on straight with its slope there"},
        {"x", "array of numbers", "array", "", "yes", "—", "at least 2, strictly increasing, finite; for a spring's `stiffness` the deflection l − l0 (m, rad for a rotational spring or a bushing's rotation), for its `damping` the rate (m/s, rad/s)"},
        {"y", "array of numbers", "array", "", "yes", "—", "one per x, finite; for a spring's `stiffness` the elastic force (N, N·m), for its `damping` the damping force"},
    }, {}});
    objects.push_back({"designVariable", "/$defs/designVariable", {
        {"name", "string", "string", "", "yes", "—", "a letter or `_` first, then letters, digits or `_`; unique among design variables and variables"},
        {"value", "number, in the unit of the fields bound to it", "number", "", "yes", "—", "e.g. a crank length in m, an angle in degrees when bound to an `angleDeg`"},
        {"minimum", "number", "number", "", "no", "value / 2", "the low end of its slider in the GUI (a study may go beyond)"},
        {"maximum", "number", "number", "", "no", "2 × value", "the high end of its slider, above the minimum"},
    }, {}});
    objects.push_back({"sensor", "/$defs/sensor", {
        {"name", "string", "string", "", "yes", "—", "identifier, unique among sensors"},
        {"expression", "number or expression of `time` and the state", "expression", "", "yes", "—", "what it watches, e.g. `\"DZ(ball.centre)\"`"},
        {"value", "number", "number", "", "yes", "—", "the level, in the expression's unit"},
        {"direction", "`\"either\"`, `\"rising\"` or `\"falling\"`", "enum either rising falling", "\"either\"", "no", "`\"either\"`", "which crossings count: upwards, downwards or both"},
        {"action", "`\"stop\"`, `\"mark\"`, `\"set\"`, `\"switchOn\"` or `\"switchOff\"`", "enum stop mark set switchOn switchOff", "\"stop\"", "no", "`\"stop\"`", "stop: the run ends at the instant, recorded as its last frame; mark: the run goes on and the instant is recorded as an event; set: the held variable `target` takes the value of `to`; switchOn, switchOff: the force or motion `target` is switched on or off from the instant on (minor version 15)"},
        {"target", "variable, force or motion name", "string", "", "no", "— (required by set, switchOn, switchOff)", "set: a held variable; switchOn, switchOff: a force or a motion (minor version 15)"},
        {"to", "number or expression of `time` and the state", "expression", "", "no", "— (required by set)", "the value a `set` gives its variable, evaluated at the instant; may read that variable (`\"laps + 1\"`) (minor version 15)"},
    }, {}});
    objects.push_back({"plot", "/properties/plots/items", {
        {"name", "string", "string", "\"\"", "no", "`\"\"`", "shown above the plot"},
        {"channels", "array of channel names", "array", "", "yes", "—", "at least one; recorded quantities such as `\"crankPin.Fz\"`, `\"energy.kinetic\"`, `\"<controller>.effort\"`"},
        {"x", "channel name", "string", "", "no", "time", "the horizontal axis: another channel makes an x-y plot, e.g. `\"coupler.x\"` (minor version 5)"},
    }, {}});
    objects.push_back({"part", "/$defs/part", {
        {"name", "string", "string", "", "yes", "—", "identifier: letter or `_` first, then letters, digits, `_`, `-`; unique"},
        {"ground", "bool", "bool", "false", "no", "`false`", "the fixed part (at most one); needs no mass"},
        {"active", "bool", "bool", "true", "no", "`true`", "`false`: deactivated, kept in the scene and left out of the model with the joints, forces and contact pairs attached to it; it stays where it is placed (not the ground; minor version 13)"},
        {"density", "number, kg/m³", "number >0", "", "no", "—", "mass, centre of mass and inertia computed from the shapes that collide (role `both` or `collision`; `visual` shapes weigh nothing); excludes `mass`, `inertia`, `centerOfMass`"},
        {"mass", "number, kg", "number >0", "", "unless ground or density", "—", "> 0"},
        {"inertia", "[Ixx, Iyy, Izz] or [Ixx, Iyy, Izz, Ixy, Ixz, Iyz], kg·m²", "", "", "unless ground or density", "—", "about the centre of mass, in P; positive definite and obeying I1 + I2 ≥ I3"},
        {"centerOfMass", "[x, y, z] m", "vec3", "[0, 0, 0]", "no", "`[0, 0, 0]`", "in P"},
        {"position", "[x, y, z] m", "vec3", "[0, 0, 0]", "no", "`[0, 0, 0]`", "origin of P in the world"},
        {"orientation", "orientation", "object", "{\"quaternion\": [1, 0, 0, 0]}", "no", "identity", "of P in the world"},
        {"velocity", "[x, y, z] m/s", "vec3", "[0, 0, 0]", "no", "`[0, 0, 0]`", "initial velocity of P's origin, world axes"},
        {"angularVelocity", "[x, y, z] rad/s", "vec3", "[0, 0, 0]", "no", "`[0, 0, 0]`", "initial, world axes"},
        {"color", "`\"#rrggbb\"`", "string", "\"#8c9bab\"", "no", "`\"#8c9bab\"`", "display colour"},
        {"geometry", "array of shapes", "array", "[]", "no", "`[]`", ""},
        {"markers", "array of markers", "array", "[]", "no", "`[]`", ""},
        {"material", "material", "object", "{\"friction\": 0.5, \"restitution\": 0}", "no", "μ 0.5, e 0", "contact material"},
        {"collision", "collision filter", "object", "{\"enabled\": true, \"group\": 1, \"mask\": 4294967295}", "no", "on, group 1, mask all", "which parts it touches"},
        {"frameMotion", "frame motion", "object", "", "no", "none", "makes the part a moving frame: its pose prescribed as expressions of time (below), the mechanism on it feeling the motion's inertial effects; not on the ground (minor version 11)"},
    }, {}});
    objects.push_back({"frameMotion", "/$defs/part/properties/frameMotion", {
        {"translation", "[x, y, z]: numbers or expressions of `time`, m", "", "[0, 0, 0]", "no", "`[0, 0, 0]`", "the part origin's offset from its initial position, world axes, e.g. `[\"0.05*sin(2*pi*1.5*time)\", 0, 0]`"},
        {"rotation", "[roll, pitch, yaw]: numbers or expressions of `time`, rad", "", "[0, 0, 0]", "no", "`[0, 0, 0]`", "the turn R = Rz(yaw) Ry(pitch) Rx(roll) of the part about its origin from its initial orientation, angles about world x, y, z, e.g. `[0, 0, \"2*time\"]` for a platform turning at 2 rad/s"},
    }, {}});
    objects.push_back({"material", "/$defs/part/properties/material", {
        {"friction", "number ≥ 0", "number >=0", "0.5", "no", "0.5", "Coulomb friction coefficient μ; a pair of parts uses the geometric mean of theirs, √(μA μB), unless a contact pair says otherwise"},
        {"restitution", "number, 0–1", "number 0..1", "0", "no", "0", "coefficient of restitution e; a pair uses the larger of theirs"},
    }, {}});
    objects.push_back({"collision", "/$defs/part/properties/collision", {
        {"enabled", "bool", "bool", "true", "no", "`true`", "`false`: the part touches nothing"},
        {"group", "bits", "", "1", "no", "1 (bit 0)", "the groups the part belongs to: a 32-bit integer or a list of bit numbers, e.g. `[0, 3]`"},
        {"mask", "bits", "", "4294967295", "no", "all", "the groups it touches; two parts touch when each one's group meets the other's mask"},
    }, {}});
    objects.push_back({"orientation", "/$defs/orientation", {
        {"quaternion", "[w, x, y, z]", "", "", "one form of three", "—", "unit length (within 1e-6)"},
        {"axis", "[x, y, z]", "vec3", "", "with `angleDeg`", "—", "rotation axis; need not be unit, must not be zero"},
        {"angleDeg", "number, degrees", "number", "", "with `axis`", "—", "rotation angle about `axis`"},
        {"rpyDeg", "[roll, pitch, yaw] degrees", "vec3", "", "one form of three", "—", "R = Rz(yaw) Ry(pitch) Rx(roll), as in URDF"},
    }, {}});
    objects.push_back({"shape", "/$defs/shape", {
        {"type", "string", "enum box sphere cylinder capsule cone plane mesh", "", "yes", "—", "`box`, `sphere`, `cylinder`, `capsule`, `cone`, `plane` or `mesh` (table below)"},
        {"size", "[x, y, z] m", "vec3 >0", "", "box", "—", "edge lengths"},
        {"radius", "number, m", "number >0", "", "sphere, cylinder, capsule, cone", "—", "> 0"},
        {"length", "number, m", "number >0", "", "cylinder, capsule, cone", "—", "along G's z (a capsule's without its caps)"},
        {"file", "path", "string", "", "mesh", "—", "OBJ, STL, or another format Assimp reads; relative to the scene file"},
        {"scale", "[x, y, z]", "vec3", "[1, 1, 1]", "no", "`[1, 1, 1]`", "mesh: scale of the file's coordinates"},
        {"role", "string", "enum both visual collision", "\"both\"", "no", "`both`", "`both` (drawn and in contact), `visual` (drawn only) or `collision` (contact only)"},
        {"position", "[x, y, z] m", "vec3", "[0, 0, 0]", "no", "`[0, 0, 0]`", "origin of the shape frame G in the part frame"},
        {"orientation", "orientation", "object", "{\"quaternion\": [1, 0, 0, 0]}", "no", "identity", "of G in the part frame"},
    }, {}});
    objects.push_back({"marker", "/$defs/marker", {
        {"name", "string", "string", "", "yes", "—", "identifier, unique on its part"},
        {"position", "[x, y, z] m", "vec3", "[0, 0, 0]", "no", "`[0, 0, 0]`", "origin in the part frame"},
        {"orientation", "orientation", "object", "{\"quaternion\": [1, 0, 0, 0]}", "no", "identity", "axes in the part frame; a joint's axis is the marker's z"},
    }, {}});
    objects.push_back({"joint", "/$defs/joint", {
        {"name", "string", "string", "", "yes", "—", "identifier, unique among joints"},
        {"type", "string", "enum fixed revolute prismatic cylindrical spherical universal planar distance pointOnLine pointOnPlane parallelAxes perpendicularAxes pointOnCurve curveOnCurve pointOnSurface", "", "yes", "—", "`fixed`, `revolute`, `prismatic`, `cylindrical`, `spherical`, `universal`, `planar`, `distance`, `pointOnLine`, `pointOnPlane`, `parallelAxes`, `perpendicularAxes`, `pointOnCurve`, `curveOnCurve`, `pointOnSurface` (the last three: minor version 10)"},
        {"markerI", "`\"part.marker\"`", "string", "", "yes", "—", "marker on part i"},
        {"markerJ", "`\"part.marker\"`", "string", "", "yes", "—", "marker on part j (a different part)"},
        {"length", "number, m", "number >0", "", "distance joints", "—", "> 0"},
        {"active", "bool", "bool", "true", "no", "`true`", "`false`: deactivated, left out of the model with its motions, couplers and the forces on its coordinates (minor version 13)"},
        {"collide", "bool", "bool", "false", "no", "`false`", "`false`: the two parts it joins do not touch each other; `true` lets them (contact)"},
        {"soft", "soft", "object", "{}", "no", "exact", "a soft joint: its equations held by springs and dampers instead of exactly (below; minor version 4)"},
        {"limits", "limit, or [limit or null, …]", "", "", "no", "none", "end stops on the joint's coordinates (below): an object for a revolute or prismatic joint, a list in coordinate order for a cylindrical one (angle, slide) or a point on a surface (u, v), `null` for a coordinate without stops (minor version 8); on a spherical joint, a cone: `{\"upper\": half-angle}`, the largest angle between its markers' z axes; on a point on a curve, the slot's ends along the curve's parameter (minor version 10); a list on a universal joint (its angle about J's z axis, of I's z axis from J's x; its angle about I's z axis, of I's x axis from J's z) and on a planar one (its slides along J's x and y, its angle about J's z) (minor version 11)"},
        {"friction", "friction, or [friction or null, …]", "", "", "no", "none", "friction in the joint's bearings and slides (below), laid out as `limits` are (minor version 8); on a spherical joint, one object: a torque against the parts' relative turn about any axis, at most μ × `radius` × the joint's whole reaction force + `preload`, viscous −c (ω_I − ω_J) (minor version 11)"},
        {"curve", "curve", "object", "", "pointOnCurve, curveOnCurve", "—", "pointOnCurve: the curve marker I's origin rides on, in marker J's frame (a slot, a track, a helix); curveOnCurve: the cam's contour, in marker J's x-y plane (below; minor version 10)"},
        {"follower", "curve", "object", "", "curveOnCurve", "—", "the follower's contour, in marker I's x-y plane: a roller's circle, a flat face's line (minor version 10)"},
        {"surface", "surface", "object", "", "pointOnSurface", "—", "the surface marker I's origin rides on, in marker J's frame (below; minor version 10)"},
        {"liftOff", "bool", "bool", "false", "no", "`false`", "curveOnCurve: the follower may leave the cam (a unilateral contact, gap ≥ 0, solved with contact by `timeStepping`; its `limits` object may give the contact's `restitution` and compliance); `false` holds it on (minor version 10)"},
    }, {}});
    objects.push_back({"curve", "/$defs/curve", {
        {"type", "string", "enum spline expression", "", "yes", "—", "a cubic spline through points, or x(s), y(s), z(s) as expressions of the parameter `s`"},
        {"points", "array of [x, y, z] m", "array", "", "yes", "—", "at least 4, consecutive ones apart; the spline's parameter is the length of the chords between them (m). An open spline is natural (straight at its ends) and goes on straight beyond them", "spline"},
        {"x", "number or expression of `s`", "expression", "", "yes", "—", "the curve's x in its marker's frame [m], e.g. `\"0.04*cos(s)\"`", "expression"},
        {"y", "number or expression of `s`", "expression", "", "yes", "—", "its y [m]", "expression"},
        {"z", "number or expression of `s`", "expression", "", "yes", "—", "its z [m]", "expression"},
        {"start", "number", "number", "", "yes", "—", "the parameter's first value", "expression"},
        {"end", "number", "number", "", "yes", "—", "its last value (> `start`); a closed curve repeats with the period end − start", "expression"},
        {"closed", "bool", "bool", "false", "no", "`false`", "a closed curve: a spline runs from its last point back to its first (periodic), an expression repeats over [start, end)"},
    }, {"spline", "expression"}});
    objects.push_back({"surface", "/$defs/surface", {
        {"type", "string", "enum expression grid", "", "yes", "—", "x(u, v), y(u, v), z(u, v) as expressions, or a grid of heights z over x and y"},
        {"x", "number or expression of `u`, `v`", "expression", "", "yes", "—", "the surface's x in its marker's frame [m]", "expression"},
        {"y", "number or expression of `u`, `v`", "expression", "", "yes", "—", "its y [m]", "expression"},
        {"z", "number or expression of `u`, `v`", "expression", "", "yes", "—", "its z [m], e.g. `\"0.5*(u^2 + v^2)\"`", "expression"},
        {"uStart", "number", "number", "", "yes", "—", "u's first value", "expression"},
        {"uEnd", "number", "number", "", "yes", "—", "u's last value (> `uStart`)", "expression"},
        {"vStart", "number", "number", "", "yes", "—", "v's first value", "expression"},
        {"vEnd", "number", "number", "", "yes", "—", "v's last value (> `vStart`)", "expression"},
        {"xs", "array of numbers, m", "array", "", "yes", "—", "the grid's x values, ascending, at least 4; the parameter u is x", "grid"},
        {"ys", "array of numbers, m", "array", "", "yes", "—", "its y values, ascending, at least 4; v is y", "grid"},
        {"heights", "array of arrays of numbers, m", "array", "", "yes", "—", "z at each (x, y): one row per y value, one height per x value in each", "grid"},
    }, {"expression", "grid"}});
    objects.push_back({"friction", "/$defs/friction", {
        {"coefficient", "number ≥ 0", "number >=0", "0", "no", "0", "μ while the coordinate slides: the friction is μ r |F⊥| on an angle (F⊥ the joint's reaction force across its axis, r the `radius`), μ (|F⊥| + |T⊥| / `length`) on a slide"},
        {"staticCoefficient", "number ≥ 0", "number >=0", "", "no", "`coefficient`", "μs at rest: the coordinate sticks, exactly, until holding it takes more than this friction (breakaway)"},
        {"radius", "number, m", "number >=0", "0", "no", "0", "an angle's lever: the pin radius"},
        {"length", "number, m", "number >=0", "0", "no", "0: torques ignored", "a slide's bearing length: its reaction torque over it adds to the force across the slide"},
        {"preload", "number, N·m or N", "number >=0", "0", "no", "0", "friction torque or force there always is, with or without a coefficient"},
        {"viscous", "number, N·m·s/rad or N·s/m", "number >=0", "0", "no", "0", "viscous friction: −c × the coordinate's rate"},
    }, {}});
    objects.push_back({"limit", "/$defs/limit", {
        {"lower", "number, rad or m", "number", "", "no", "none", "the coordinate's lowest value; left out: no lower stop"},
        {"upper", "number, rad or m", "number", "", "no", "none", "the coordinate's highest value (≥ `lower`); left out: no upper stop"},
        {"restitution", "number", "number 0..1", "0", "no", "0", "a stop reached faster than the contact `restitutionThreshold` rebounds at this fraction of the speed (0: it stays, 1: elastic)"},
        {"frequency", "number, Hz", "number >=0", "0", "no", "0: rigid", "when > 0, the stop gives as a spring-damper ringing at this frequency on the coordinate's effective mass (a rubber bumper); 0 holds it exactly"},
        {"dampingRatio", "number ≥ 0", "number >=0", "1", "no", "1", "ζ of `frequency`"},
    }, {}});
    objects.push_back({"soft", "/$defs/joint/properties/soft", {
        {"frequency", "number, Hz", "number >=0", "0", "no", "0", "when > 0, every equation of the joint rings at this frequency with `dampingRatio` whatever the masses (k = m ω², c = 2 ζ m ω, ω = 2π f, m the equation's effective mass between the two parts; Box2D v3's joint hertz, MuJoCo's solref). Either this or the stiffnesses and dampings"},
        {"dampingRatio", "number ≥ 0", "number >=0", "1", "no", "1", "ζ of `frequency`; 1 is critically damped"},
        {"stiffness", "number, N/m", "number >=0", "0", "no", "0", "on the joint's length equations (point gaps, in-plane distances, a rod's length): each pulls back with k·gap + c·(its rate)"},
        {"damping", "number, N·s/m", "number >=0", "0", "no", "0", "c of the length equations"},
        {"rotationalStiffness", "number, N·m/rad", "number >=0", "0", "no", "0", "on the joint's angle equations (axes kept perpendicular)"},
        {"rotationalDamping", "number, N·m·s/rad", "number >=0", "0", "no", "0", "c of the angle equations"},
    }, {}});
    objects.push_back({"settings", "/$defs/settings", {
        {"integrator", "`\"dopri45\"`, `\"rk4\"`, `\"symplecticEuler\"`, `\"implicitEuler\"`, `\"trapezoidal\"`, `\"timeStepping\"`", "enum dopri45 rk4 symplecticEuler implicitEuler trapezoidal timeStepping", "", "no", "`\"dopri45\"`; `\"timeStepping\"` when the scene has a `contact` block", "see docs/engine.md; contact needs `timeStepping` (`\"trapezoidal\"`: minor version 18)"},
        {"formulation", "`\"auto\"`, `\"recursive\"`, `\"maximal\"`", "enum auto recursive maximal", "\"auto\"", "no", "`\"auto\"`", "the coordinates a run steps in: `\"maximal\"` every part's pose, the joints held as constraint rows; `\"recursive\"` the joints' own coordinates over a tree of parts (the articulated-body algorithm: nothing to iterate or project; `symplecticEuler`, `rk4`, `dopri45`, and `timeStepping` with stops, contact, joint friction and couplers); `\"auto\"` whichever follows the motion as closely at the scene's settings and faster (today maximal: `motus-cli info` says why, and whether recursive can step the mechanism). See docs/engine.md, Formulations (minor version 16)"},
        {"foldWelds", "bool", "bool", "true", "no", "`true`", "parts welded together (exact `fixed` joints whose markers coincide at the parts' poses) move as one body: folded into it before the solve (mass, centre of mass and inertia combined), a weld costs no rows and no iterations, and its reaction is recovered from the parts' motion; `false`: every weld is six constraint rows (see Welded parts, below; minor version 21)"},
        {"stepSize", "number, s", "number >0", "0.001", "no", "0.001", "step of the fixed-step integrators (`rk4`, `symplecticEuler`, `implicitEuler`, `trapezoidal`, `timeStepping`); not used by `dopri45` except as the default output interval"},
        {"outputInterval", "number, s", "number >=0", "0", "no", "0: `stepSize`", "time between outputs (recorded frames, CSV rows). Fixed-step integrators need a whole number of steps per output; `dopri45` takes its own steps and interpolates to the output times (dense output), so the output interval never changes its solution. (minor version 2)"},
        {"maxStep", "number, s", "number >=0", "0", "no", "0: none", "largest step of `dopri45` (minor version 2)"},
        {"endTime", "number, s", "number >=0", "0", "no", "0: none", "where the scene's run ends: Play stops there (Run to and Step go on if asked), and `motus-cli simulate` runs to it when no `--duration` is given (minor version 7)"},
        {"relativeTolerance", "number", "number >0", "1e-10", "no", "1e-10", "`dopri45`: local error allowed per step, relative to the size of each position and velocity"},
        {"absoluteTolerance", "number", "number >0", "1e-12", "no", "1e-12", "`dopri45`: local error allowed per step, absolute (m, rad, m/s, rad/s)"},
        {"projectionTolerance", "number, m and rad", "number >0", "1e-10", "no", "1e-10", "after every step, each joint's point gap (Euclidean distance, m) and angular error (rad) is below this"},
        {"maxProjectionIterations", "integer ≥ 1", "integer >=1", "8", "no", "8", "Newton iterations of the projection"},
    }, {}});
    objects.push_back({"contact", "/$defs/contact", {
        {"enabled", "bool", "bool", "true", "no", "`true` when the block is present", ""},
        {"solver", "`\"pgs\"` or `\"lemke\"`", "enum pgs lemke", "\"pgs\"", "no", "`\"pgs\"`", "projected Gauss–Seidel with warm starting, or Lemke's exact pivoting method (small scenes)"},
        {"friction", "`\"box\"` or `\"cone\"`", "enum box cone", "\"box\"", "no", "`\"box\"`", "per-tangent bounds μz, or a polyhedral cone of `coneFacets` edges"},
        {"coneFacets", "integer 3–64", "integer 3..64", "8", "no", "8", ""},
        {"iterations", "integer ≥ 1", "integer >=1", "100", "no", "100", "PGS sweeps per step at most"},
        {"tolerance", "number, m/s", "number >0", "1e-6", "no", "1e-6", "PGS stops when a sweep changes no velocity by more"},
        {"margin", "number, m, ≤ 0.02", "number 0..0.02", "0.005", "no", "0.005", "gaps up to this are kept as speculative contacts (no tunnelling below margin / step)"},
        {"restitutionThreshold", "number, m/s", "number >=0", "0.05", "no", "0.05", "impacts slower than this are plastic"},
        {"stabilization", "number, 0–1", "number 0..1", "0.2", "no", "0.2", "fraction of a penetration (beyond `slop`) pushed out per step"},
        {"slop", "number, m", "number >=0", "1e-5", "no", "1e-5", "penetration left alone (keeps resting contact still)"},
        {"pushSpeed", "number, m/s", "number >0", "1", "no", "1", "the fastest a penetration is pushed out: parts started inside one another come apart at this speed, not at a fifth of their overlap a step"},
        {"stiffness", "number, N/m", "number >=0", "0", "no", "0", "soft contact when > 0: normal force k·depth + c·(rate of penetration)"},
        {"damping", "number, N·s/m", "number >=0", "0", "no", "0", "soft contact's damping c"},
        {"frequency", "number, Hz", "number >=0", "0", "no", "0", "soft contact as users think of it, when > 0: every contact rings at this frequency with `dampingRatio` whatever the masses (k = m ω², c = 2 ζ m ω, ω = 2π f, m the contact's effective mass along its normal; Box2D v3's contact hertz, MuJoCo's solref). A resting part sinks g / ω² (2.5 mm at 10 Hz). Either this or `stiffness`/`damping` (minor version 3)"},
        {"dampingRatio", "number ≥ 0", "number >=0", "1", "no", "1", "ζ of soft contact given by `frequency`; 1 is critically damped (minor version 3)"},
        {"sleepTime", "number, s", "number >=0", "0", "no", "0: parts never sleep", "sleeping: a group of free parts touching one another (and the ground), none of whose points has moved faster than `sleepSpeed` for this long, is no longer stepped (it costs next to nothing) until a moving part touches it; its parts hold their poses and its contacts their forces. Parts on joints, driven or pulled by force elements never sleep, nor do parts in a run in joint coordinates (minor version 22)"},
        {"sleepSpeed", "number, m/s", "number >0", "0.001", "no", "0.001", "the speed under which a part counts as at rest: its centre's speed plus its angular speed times its bounding radius (minor version 22)"},
        {"pairs", "array of contact pairs", "array", "[]", "no", "`[]`", "per pair of parts: switch contact off, or override the combined friction and restitution"},
    }, {}});
    objects.push_back({"contactPair", "/$defs/contact/properties/pairs/items", {
        {"name", "string", "string", "", "yes", "—", "identifier; the pair's force totals are recorded as channels `<name>.Fn`, `<name>.Ft`"},
        {"partA", "part name", "string", "", "yes", "—", ""},
        {"partB", "part name", "string", "", "yes", "—", "another part"},
        {"enabled", "bool", "bool", "true", "no", "`true`", "`false`: the two parts do not touch"},
        {"friction", "number ≥ 0", "number >=0", "", "no", "combined", "μ of this pair instead of the parts' combined one"},
        {"restitution", "number, 0–1", "number 0..1", "", "no", "combined", "e of this pair instead of the parts' combined one"},
    }, {}});
    objects.push_back({"force", "/$defs/force", {
        {"name", "string", "string", "", "yes", "—", "identifier, unique among forces"},
        {"type", "string", "enum pointForce pointTorque springDamper rotationalSpringDamper bushing jointController computedTorque lineForce jointForce cable", "", "yes", "—", "the force law (table below)"},
        {"active", "bool", "bool", "true", "no", "`true`", "`false`: deactivated, left out of the model (minor version 13)"},
        {"startsOn", "bool", "bool", "true", "no", "`true`", "`false`: in the model but off (no force) until a sensor switches it on (minor version 15)"},
        {"marker", "`\"part.marker\"`", "string", "", "yes", "—", "where the force acts (its origin), or the part the torque acts on", "pointForce pointTorque"},
        {"components", "[x, y, z]: numbers or expressions of `time` and the state; N or N·m", "", "", "yes", "—", "", "pointForce pointTorque"},
        {"frame", "`\"world\"` or `\"marker\"`", "enum world marker", "\"world\"", "no", "`\"world\"`", "the axes of `components`", "pointForce pointTorque"},
        {"markerI", "`\"part.marker\"`", "string", "", "yes", "—", "on part I", "springDamper bushing lineForce"},
        {"markerJ", "`\"part.marker\"`", "string", "", "yes", "—", "on part J", "springDamper bushing lineForce"},
        {"joint", "joint name", "string", "", "yes", "—", "rotationalSpringDamper: a revolute or cylindrical joint; jointController, jointForce: a revolute, prismatic or cylindrical joint; computedTorque: a revolute or prismatic joint of the mechanism's tree", "rotationalSpringDamper jointController computedTorque jointForce"},
        {"points", "array of `\"part.marker\"` or pulleys", "array", "", "yes", "—", "at least 2: the cable's ends (the first is I, the last J; points where it is tied) and what it passes between, in order, on any parts: a marker's origin, or a pulley (table below) round which it wraps (minor version 19; pulleys 20)", "cable"},
        {"slack", "bool", "bool", "true", "no", "`true`", "a rope: no tension while it is no longer than its free length, and never a push; `false`: a spring along the line, pushing when short (minor version 19)", "cable"},
        {"inextensible", "bool", "bool", "false", "no", "`false`", "a rope that cannot stretch: its length held at most `freeLength` by a unilateral row of the contact problem (the scene steps with `timeStepping`), its tension whatever holds it; no `stiffness`, `damping` or `preload`; each span (between pulleys that turn) pulls at most two moving parts (minor version 21)", "cable"},
        {"stiffness", "number ≥ 0, N/m (N·m/rad), or `{\"table\": name}`", "number >=0 table", "0", "no", "0", "k; or a table of the elastic force (torque) over the deflection l − l0 (θ − θ0) in place of k (l − l0) (minor version 19)", "springDamper rotationalSpringDamper cable"},
        {"damping", "number ≥ 0, N·s/m (N·m·s/rad), or `{\"table\": name}`", "number >=0 table", "0", "no", "0", "c; or a table of the damping force (torque) over the rate l̇ (θ̇) in place of c l̇ (minor version 19)", "springDamper rotationalSpringDamper cable"},
        {"freeLength", "number, m", "number >=0", "0", "no", "0", "l0 (a cable's: of its whole length)", "springDamper cable"},
        {"freeAngle", "number, rad", "number", "0", "no", "0", "θ0", "rotationalSpringDamper"},
        {"preload", "number, N (N·m)", "number", "0", "no", "0", "added to the spring's force (torque); a slack cable's ≥ 0", "springDamper rotationalSpringDamper cable"},
        {"translationalStiffness", "[x, y, z] N/m, each a number or `{\"table\": name}`", "vec3 >=0 table", "[0, 0, 0]", "no", "`[0, 0, 0]`", "in marker J's axes; a table gives the force along the axis over the displacement (minor version 19)", "bushing"},
        {"translationalDamping", "[x, y, z] N·s/m, each a number or `{\"table\": name}`", "vec3 >=0 table", "[0, 0, 0]", "no", "`[0, 0, 0]`", "in marker J's axes; a table gives the force over the displacement's rate (minor version 19)", "bushing"},
        {"rotationalStiffness", "[x, y, z] N·m/rad, each a number or `{\"table\": name}`", "vec3 >=0 table", "[0, 0, 0]", "no", "`[0, 0, 0]`", "in marker J's axes; a table gives the torque about the axis over the rotation (minor version 19)", "bushing"},
        {"rotationalDamping", "[x, y, z] N·m·s/rad, each a number or `{\"table\": name}`", "vec3 >=0 table", "[0, 0, 0]", "no", "`[0, 0, 0]`", "in marker J's axes; a table gives the torque over the rotation's rate (minor version 19)", "bushing"},
        {"axis", "`\"rotation\"` or `\"translation\"`", "enum rotation translation", "\"rotation\"", "no", "`\"rotation\"`", "the joint coordinate it drives", "jointController computedTorque jointForce"},
        {"target", "number or expression of `time` (jointController: and the state), rad or m", "expression", "", "yes", "—", "the coordinate it servoes to (computedTorque: its rate and acceleration taken from the expression exactly)", "jointController computedTorque"},
        {"magnitude", "number or expression of `time` and the state; N (lineForce), N·m or N (jointForce)", "expression", "", "yes", "—", "lineForce: positive pushes I and J apart along the line between their origins; jointForce: the torque about (force along) J's z axis on I's part, its opposite on J's", "lineForce jointForce"},
        {"kp", "number ≥ 0; jointController N·m/rad (N/m), computedTorque 1/s²", "number >=0", "0", "no", "0", "proportional gain (computedTorque: ω², ω the error's natural frequency in rad/s)", "jointController computedTorque"},
        {"kd", "number ≥ 0; jointController N·m·s/rad (N·s/m), computedTorque 1/s", "number >=0", "0", "no", "0", "derivative gain (computedTorque: 2ζω, ζ the error's damping ratio)", "jointController computedTorque"},
        {"maxEffort", "number ≥ 0, N·m (N)", "number >=0", "0", "no", "0: no limit", "the effort is limited to ±maxEffort", "jointController computedTorque"},
        {"gravityCompensation", "bool", "bool", "false", "no", "`false`", "`true`: the effort the joint needs to hold the mechanism's tree against gravity where it is, g(q), is added to the servo's (minor version 17)", "jointController"},
    }, {"pointForce", "pointTorque", "springDamper", "rotationalSpringDamper", "bushing", "jointController", "computedTorque", "lineForce", "jointForce", "cable"}});
    objects.push_back({"motion", "/$defs/motion", {
        {"name", "string", "string", "", "yes", "—", "identifier, unique among motions"},
        {"joint", "joint name", "string", "", "yes", "—", "a revolute, prismatic or cylindrical joint"},
        {"axis", "`\"rotation\"` or `\"translation\"`", "enum rotation translation", "\"rotation\"", "no", "`\"rotation\"`", "the joint's angle or slide"},
        {"level", "`\"position\"`, `\"velocity\"` or `\"acceleration\"`", "enum position velocity acceleration", "\"position\"", "no", "`\"position\"`", "what the expression prescribes"},
        {"active", "bool", "bool", "true", "no", "`true`", "`false`: deactivated, left out of the model: the coordinate moves freely (minor version 13)"},
        {"startsOn", "bool", "bool", "true", "no", "`true`", "`false`: in the model but off (the coordinate free) until a sensor switches it on (minor version 15)"},
        {"expression", "number or expression of `time`", "expression", "", "yes", "—", "rad or m (per s, per s²)"},
    }, {}});
    objects.push_back({"pulley", "/$defs/pulley", {
        {"marker", "`\"part.marker\"`", "string", "", "yes", "—", "its centre (the origin) and axis (z)"},
        {"radius", "number > 0, m", "number >0", "", "yes", "—", "the radius the cable wraps at (a sheave's groove's)"},
        {"wrap", "`\"ccw\"` or `\"cw\"`", "enum ccw cw", "\"ccw\"", "no", "`\"ccw\"`", "the sense the cable goes round it, from I towards J, about the marker's z axis"},
        {"joint", "joint name", "string", "", "no", "none: frictionless", "a revolute or cylindrical joint of the pulley's part about its axis: the pulley turns with the cable, which grips it (no slip); the spans on either side then have their own tensions"},
        {"friction", "number ≥ 0", "number >=0", "0", "no", "0: frictionless", "μ, belt friction on a pulley that does not turn (no `joint`): the cable grips it until one side's tension is e^{μθ} times the other's (θ the wrap: the capstan equation), then slips over it with that ratio, until the slip would turn back; recorded as `<name>.slip<k>` (m slipped toward the cable's end, k the point's index) and `<name>.slipping<k>` (0 gripping, ±1 slipping toward the end or the start) (minor version 21)"},
    }, {}});
    objects.push_back({"coupler", "/$defs/coupler", {
        {"name", "string", "string", "", "yes", "—", "identifier, unique among couplers; its force is recorded as `<name>.force`, the efforts on its first two coordinates as `<name>.effortI`, `<name>.effortJ`"},
        {"type", "string", "enum gear rackPinion screw linear", "", "yes", "—", "the relation (table below)"},
        {"active", "bool", "bool", "true", "no", "`true`", "`false`: deactivated, left out of the model (minor version 13)"},
        {"jointI", "joint name", "string", "", "yes", "—", "gear: the first gear's revolute or cylindrical joint; rackPinion: the pinion's", "gear rackPinion"},
        {"jointJ", "joint name", "string", "", "yes", "—", "gear: the second gear's revolute or cylindrical joint; rackPinion: the rack's prismatic or cylindrical joint", "gear rackPinion"},
        {"ratio", "number > 0", "number >0", "", "yes", "—", "the speed ratio ωI / ωJ (teeth of gear J over teeth of gear I)", "gear"},
        {"internal", "bool", "bool", "false", "no", "`false`", "`true`: a ring gear pair, turning the same way; external gears turn opposite ways", "gear"},
        {"radius", "number > 0, m", "number >0", "", "yes", "—", "the pinion's pitch radius: the rack advances radius × the pinion's angle", "rackPinion"},
        {"joint", "joint name", "string", "", "yes", "—", "a cylindrical joint whose slide follows its angle", "screw"},
        {"pitch", "number ≠ 0, m per turn", "number", "", "yes", "—", "advance per turn; negative for a left-hand thread", "screw"},
        {"terms", "array of coupler terms", "array", "", "yes", "—", "Σ coefficient × coordinate = offset; at least two", "linear"},
        {"offset", "number, rad or m", "number", "", "no", "the value at the initial poses", "the constant the sum keeps", "linear"},
    }, {"gear", "rackPinion", "screw", "linear"}});
    objects.push_back({"couplerTerm", "/$defs/couplerTerm", {
        {"joint", "joint name", "string", "", "yes", "—", "a revolute, prismatic or cylindrical joint"},
        {"axis", "`\"rotation\"` or `\"translation\"`", "enum rotation translation", "\"rotation\"", "no", "`\"rotation\"`", "the joint's angle or slide"},
        {"coefficient", "number ≠ 0", "number", "", "yes", "—", "its coefficient (per rad or per m)"},
    }, {}});
    return objects;
}
// clang-format on

// The words of a list separated by single spaces.
std::vector<std::string_view> words(std::string_view list) {
    std::vector<std::string_view> out;
    for (std::size_t at = 0; at < list.size();) {
        std::size_t end = list.find(' ', at);
        if (end == std::string_view::npos) end = list.size();
        out.push_back(list.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

double numberIn(std::string_view text, std::string_view check) {
    double x = 0.0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), x);
    if (error != std::errc() || end != text.data() + text.size())
        throw std::logic_error("scene format: bad number in check '" + std::string(check) + "'");
    return x;
}

// One bound of a range: ">0", ">=1", "<=0.02", "<1", or both ends "0..1".
void readBound(std::string_view word, std::string_view check, Range& range) {
    if (const std::size_t dots = word.find(".."); dots != std::string_view::npos) {
        range.min = numberIn(word.substr(0, dots), check);
        range.max = numberIn(word.substr(dots + 2), check);
    } else if (word.starts_with(">=")) {
        range.min = numberIn(word.substr(2), check);
    } else if (word.starts_with(">")) {
        range.min = numberIn(word.substr(1), check);
        range.openMin = true;
    } else if (word.starts_with("<=")) {
        range.max = numberIn(word.substr(2), check);
    } else if (word.starts_with("<")) {
        range.max = numberIn(word.substr(1), check);
        range.openMax = true;
    } else {
        throw std::logic_error("scene format: bad range in check '" + std::string(check) + "'");
    }
}

}  // namespace

std::string Range::text() const {
    const bool low = min > -std::numeric_limits<double>::infinity();
    const bool high = max < std::numeric_limits<double>::infinity();
    if (low && high && !openMin && !openMax) return numberText(min) + " to " + numberText(max);
    std::string out;
    if (low) out += std::string(openMin ? "> " : "≥ ") + numberText(min);
    if (high)
        out += std::string(out.empty() ? "" : " and ") + (openMax ? "< " : "≤ ") + numberText(max);
    return out;
}

Rule Field::rule() const {
    static constexpr std::pair<std::string_view, Rule::Kind> kKinds[] = {
        {"number", Rule::Kind::Number},
        {"integer", Rule::Kind::Integer},
        {"bool", Rule::Kind::Bool},
        {"string", Rule::Kind::String},
        {"enum", Rule::Kind::Word},
        {"vec3", Rule::Kind::Vector3},
        {"expression", Rule::Kind::Expression},
        {"object", Rule::Kind::Object},
        {"array", Rule::Kind::Array},
    };
    Rule rule;
    if (check.empty()) return rule;
    const std::vector<std::string_view> parts = words(check);
    const auto kind = std::find_if(std::begin(kKinds), std::end(kKinds),
                                   [&](const auto& k) { return k.first == parts.front(); });
    if (kind == std::end(kKinds))
        throw std::logic_error("scene format: unknown kind in check '" + std::string(check) + "'");
    rule.kind = kind->second;
    for (std::size_t k = 1; k < parts.size(); ++k) {
        if (parts[k] == "table" && rule.kind != Rule::Kind::Word)
            rule.orTable = true;
        else if (rule.kind == Rule::Kind::Word)
            rule.words.push_back(parts[k]);
        else
            readBound(parts[k], check, rule.range);
    }
    return rule;
}

const Field& ObjectFormat::field(std::string_view key) const {
    for (const Field& f : fields)
        if (f.key == key) return f;
    throw std::out_of_range("the scene format's " + std::string(name) + " has no key '" +
                            std::string(key) + "'");
}

std::vector<std::string_view> ObjectFormat::keys(std::string_view variant) const {
    std::vector<std::string_view> out;
    for (const Field& f : fields) {
        const std::vector<std::string_view> types = words(f.variants);
        if (variant.empty() || types.empty() ||
            std::find(types.begin(), types.end(), variant) != types.end())
            out.push_back(f.key);
    }
    return out;
}

const std::vector<ObjectFormat>& sceneFormat() {
    static const std::vector<ObjectFormat> objects = describe();
    return objects;
}

const ObjectFormat* findObject(std::string_view name) {
    for (const ObjectFormat& o : sceneFormat())
        if (o.name == name) return &o;
    return nullptr;
}

const ObjectFormat& object(std::string_view name) {
    if (const ObjectFormat* o = findObject(name)) return *o;
    throw std::out_of_range("the scene format has no object '" + std::string(name) + "'");
}

std::string markdownTable(const ObjectFormat& object) {
    const bool variants = !object.variants.empty();
    std::string out = variants ? "| key | for | type | required | default | meaning |\n"
                                 "|---|---|---|---|---|---|\n"
                               : "| key | type | required | default | meaning |\n"
                                 "|---|---|---|---|---|\n";
    for (const Field& f : object.fields) {
        out += "| `" + std::string(f.key) + "` | ";
        if (variants) {
            std::string types;
            for (std::string_view type : words(f.variants))
                types += (types.empty() ? "`" : ", `") + std::string(type) + "`";
            out += (types.empty() ? std::string("all") : types) + " | ";
        }
        out += std::string(f.type) + " | " + std::string(f.required) + " | " +
               std::string(f.fallback) + " | " + std::string(f.meaning) + " |\n";
    }
    return out;
}

}  // namespace engine::io::format
