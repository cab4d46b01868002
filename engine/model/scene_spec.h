#pragma once
// SceneSpec: the editable description of a mechanism, exactly what the user (or a scene file)
// says. SI units throughout. It is plain data: the GUI edits it through undo commands, the io/
// layer reads and writes it, validate() checks it; the solver never sees it directly.
//
// Frames: each part has a reference frame P whose pose in the world is X_WP. Mass properties,
// geometry and markers are given in P. A marker M is a frame fixed on its part (X_PM).
// A joint connects marker I (on part i) to marker J (on part j).

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/math/spatial.h"
#include "engine/math/table_curve.h"
#include "engine/model/diagnostic.h"
#include "engine/model/entity_id.h"
#include "engine/model/triangle_mesh.h"

namespace engine {

enum class ShapeType { Box, Sphere, Cylinder, Capsule, Cone, Mesh, Plane };

// What a shape is for: drawn and touched (both, what a user builds), drawn only (a robot's
// detailed visual mesh) or touched only (a robot's simplified collision geometry, drawn on
// request). Contact uses the shapes that collide; mass from density uses them too when a part
// has any, its drawn shapes otherwise.
enum class ShapeRole { Both, Visual, Collision };

// A solid in the part frame. Cylinder, capsule and cone have their axis along the local z
// axis of X_PG, centred at its origin (the cone's base at -height/2). A mesh is a triangle
// mesh read from a file (OBJ, STL), scaled per axis, in the shape frame G. A plane (ground
// only, for contact) is the half-space z ≤ 0 of G: its surface is G's xy plane, its normal +z.
// Every entity can carry `extensions`: keys written by a newer minor version of the scene
// format, unknown to this Motus, kept verbatim (a JSON object's text, empty when none) so
// saving the scene writes them back.
struct Shape {
    ShapeType type = ShapeType::Box;
    Transform X_PG;                            // shape frame G in the part frame P
    Vec3 size = Vec3(0.1, 0.1, 0.1);           // box edge lengths [m]
    double radius = 0.05;                      // sphere, cylinder, capsule, cone [m]
    double length = 0.1;                       // cylinder, capsule (straight part), cone [m]
    std::string meshFile;                      // mesh: the file as written in the scene;
                                               // "": in memory only (an MJCF robot's)
    Vec3 scale = Vec3::Ones();                 // mesh: per-axis scale of the file's coordinates
    std::shared_ptr<const TriangleMesh> mesh;  // mesh: loaded by the reader (null if unread)
    ShapeRole role = ShapeRole::Both;
    std::string extensions;

    bool collides() const { return role != ShapeRole::Visual; }
    bool drawn() const { return role != ShapeRole::Collision; }
};

struct Marker {
    EntityId id = kNoEntity;
    std::string name;
    Transform X_PM;  // marker frame M in its part frame P
    std::string extensions;
};

// Contact material of a part. A touching pair combines its parts' values: friction
// μ = √(μ_A μ_B), restitution e = max(e_A, e_B); a contact pair entry can override both.
struct ContactMaterial {
    double friction = 0.5;     // Coulomb coefficient μ
    double restitution = 0.0;  // normal restitution e (0: plastic, 1: elastic)
};

// Which other parts a part touches: two parts collide when both are enabled and each one's
// group shares a bit with the other's mask (and no joint or contact pair entry says no).
struct CollisionFilter {
    bool enabled = true;
    std::uint32_t group = 1;
    std::uint32_t mask = 0xffffffffu;
};

// A moving frame (seed 004): a part whose pose is prescribed as expressions of `time`, for the
// rest of the mechanism to ride on (a shaking table, a ship's deck, a turning platform). Its
// origin is at its initial position plus `translation` (world axes, m), and it is turned from
// its initial orientation about its origin by R(t) = Rz(rotation[2]) Ry(rotation[1])
// Rx(rotation[0]) (angles about world x, y, z: roll, pitch, yaw, rad):
//   X_WP(t) = (p0 + d(t), R(t) R0).
// The mechanism on it feels the inertial effects of the motion; the force and torque the motion
// takes are the part's reactions.
struct FrameMotion {
    std::string translation[3] = {"0", "0", "0"};
    std::string rotation[3] = {"0", "0", "0"};
};

struct Part {
    EntityId id = kNoEntity;
    std::string name;
    bool ground = false;  // the fixed part: never moves, needs no mass
    // Deactivated (false): kept in the scene, left out of the model with every joint, force,
    // motion, coupler and contact pair attached to it; it stays where it is placed.
    bool active = true;
    // When set, mass, centre of mass and inertia are computed from the shapes (uniform
    // density, kg/m³) and the three fields below are not used.
    std::optional<double> density;
    double mass = 1.0;                       // kg
    Vec3 p_PPcm = Vec3::Zero();              // centre of mass in P [m]
    Mat3 I_Pcm_P = Mat3::Identity() * 1e-3;  // inertia about the COM, expressed in P [kg·m²]
    Transform X_WP;                          // initial pose
    Vec3 v_WPo_W = Vec3::Zero();             // initial velocity of P's origin [m/s]
    Vec3 w_WP_W = Vec3::Zero();              // initial angular velocity [rad/s]
    std::uint32_t colorRgb = 0x8c9bab;       // display colour, 0xRRGGBB
    std::vector<Shape> shapes;
    std::vector<Marker> markers;
    ContactMaterial material;
    CollisionFilter collision;
    std::optional<FrameMotion> frameMotion;  // a moving frame (not on the ground)
    std::string extensions;
};

enum class JointType {
    Fixed,
    Revolute,
    Prismatic,
    Cylindrical,
    Spherical,
    Universal,
    Planar,
    Distance,
    PointOnLine,
    PointOnPlane,
    ParallelAxes,
    PerpendicularAxes,
    PointOnCurve,    // marker I's origin on a curve fixed in marker J's frame (a pin in a slot)
    CurveOnCurve,    // a cam pair: the follower's contour (in I's x-y plane) touching the cam's
    PointOnSurface,  // marker I's origin on a surface fixed in marker J's frame
};

// File and display names of joint types ("revolute", "pointOnLine", ...), and back.
std::string_view jointTypeName(JointType type);
std::optional<JointType> jointTypeFromName(std::string_view name);
std::string_view shapeTypeName(ShapeType type);
std::optional<ShapeType> shapeTypeFromName(std::string_view name);
std::string_view shapeRoleName(ShapeRole role);  // "both", "visual", "collision"
std::optional<ShapeRole> shapeRoleFromName(std::string_view name);

// A reference to a marker by name: "part.marker".
struct MarkerRef {
    std::string part;
    std::string marker;
    std::string text() const { return part + "." + marker; }
};

// A soft joint: its equations held by springs and dampers instead of exactly — a rubber mount,
// a compliant pin, a flexible coupling, a joint that gives under load as real ones do. Each
// equation Φ_r of the joint pulls back with λ_r = k Φ_r + c Φ̇_r (its multiplier, as an exact
// row's is: a force along a length equation, a torque about an angle one).
//
// Said either as users think of it (Box2D v3's joint hertz, MuJoCo's solref): every equation
// rings at `frequency` [Hz] with `dampingRatio` whatever the masses, k = m ω², c = 2 ζ m ω with
// ω = 2π f and m the equation's effective mass (1 / (Φq_r M⁻¹ Φq_rᵀ), the two parts alone);
// or as stiffness and damping: `stiffness`/`damping` on the joint's length equations (point
// gaps, in-plane distances, a rod's length) [N/m, N·s/m], `rotationalStiffness`/
// `rotationalDamping` on its angle equations (axes kept perpendicular) [N·m/rad, N·m·s/rad].
// Equations whose pair is zero stay exact.
struct JointCompliance {
    double frequency = 0.0;  // Hz; > 0: every equation soft, by frequency and damping ratio
    double dampingRatio = 1.0;
    double stiffness = 0.0;            // N/m
    double damping = 0.0;              // N·s/m
    double rotationalStiffness = 0.0;  // N·m/rad
    double rotationalDamping = 0.0;    // N·m·s/rad
    bool soft() const {
        return frequency > 0.0 || stiffness > 0.0 || damping > 0.0 || rotationalStiffness > 0.0 ||
               rotationalDamping > 0.0;
    }
    bool softLengths() const { return frequency > 0.0 || stiffness > 0.0 || damping > 0.0; }
    bool softAngles() const {
        return frequency > 0.0 || rotationalStiffness > 0.0 || rotationalDamping > 0.0;
    }
};

// Whether a joint type has equations on lengths (point gaps, in-plane distances, a rod's
// length) and on angles (axes kept perpendicular): what a soft joint's stiffness and its
// rotational stiffness act on.
bool jointHoldsLengths(JointType type);
bool jointHoldsAngles(JointType type);

// An end stop on one joint coordinate (a door's stop, a slide's end of travel): the coordinate
// stays within [lower, upper] as a unilateral constraint, held exactly when reached and free
// otherwise (no spring), solved with contact in one complementarity problem. An infinite end
// has no stop. Reaching a stop faster than the contact restitution threshold rebounds with
// `restitution`; a `frequency` > 0 makes the stop compliant (it gives as a spring-damper of
// that frequency and damping ratio on the coordinate's effective mass, as soft contact does).
struct JointLimit {
    double lower = -std::numeric_limits<double>::infinity();  // rad or m
    double upper = std::numeric_limits<double>::infinity();
    double restitution = 0.0;   // 0 (plastic) to 1 (elastic)
    double frequency = 0.0;     // Hz; 0: rigid
    double dampingRatio = 1.0;  // ζ of `frequency`
    bool limited() const {
        return lower > -std::numeric_limits<double>::infinity() ||
               upper < std::numeric_limits<double>::infinity();
    }
};

// Friction in a joint coordinate's bearing or slide, as Adams models it: Coulomb friction on
// the joint's own reaction, a constant part, and viscous damping. On an angle, the friction
// torque is μ r |F⊥| + preload (F⊥: the reaction force across the axis, r the pin radius); on
// a slide, the friction force is μ (|F⊥| + |T⊥| / length) + preload (F⊥: the reaction force
// across the slide; T⊥: the reaction torque, carried over the bearing's length when it is
// given). A coordinate at rest sticks, exactly, until the force needed to hold it exceeds the
// static (breakaway) value; sliding, the dynamic coefficient applies. Stiction and Coulomb
// friction are solved with contact in the velocity-level problem; the viscous part
// (−c × the coordinate's rate) is an applied force.
struct JointFriction {
    double coefficient = 0.0;         // μ while sliding
    double staticCoefficient = -1.0;  // μs at rest (breakaway); −1: the same as μ
    double radius = 0.0;              // an angle's lever: the pin radius [m]
    double length = 0.0;              // a slide's bearing length [m]; 0: its torques ignored
    double preload = 0.0;             // constant friction [N·m or N]
    double viscous = 0.0;             // [N·m·s/rad or N·s/m]
    double breakaway() const { return staticCoefficient < 0.0 ? coefficient : staticCoefficient; }
    bool coulomb() const { return (coefficient > 0.0 || breakaway() > 0.0) || preload > 0.0; }
    bool active() const { return coulomb() || viscous > 0.0; }
};

// A curve fixed in a marker's frame (seed 004's curve end frames): a cubic spline through
// points, or x(s), y(s), z(s) as expressions of the parameter `s`. A spline is parametrised by
// the length of the chords between its points [m]; an open one is natural (no curvature at
// its ends) and goes on straight beyond them, a closed one is periodic through its last point
// back to its first. An expression curve runs over [start, end] (a closed one repeats there
// with that period; an open one follows its expressions beyond it).
enum class CurveType { Spline, Expression };
std::string_view curveTypeName(CurveType type);  // "spline", "expression"
std::optional<CurveType> curveTypeFromName(std::string_view name);

struct CurveSpec {
    CurveType type = CurveType::Spline;
    std::vector<Vec3> points;  // spline: at least 4, consecutive ones apart [m]
    bool closed = false;
    std::string x = "0", y = "0", z = "0";  // expression: functions of s [m]
    double start = 0.0, end = 1.0;          // expression: the parameter's range
    bool empty() const { return type == CurveType::Spline && points.empty(); }
};

// A surface fixed in a marker's frame: x(u, v), y(u, v), z(u, v) as expressions of the
// parameters `u` and `v` over [uStart, uEnd] × [vStart, vEnd] (followed beyond them), or a grid
// of heights z over x and y (a bicubic spline: natural cubic splines along x and then y,
// parameters u = x, v = y [m], going on flat-sloped beyond the grid).
enum class SurfaceType { Expression, Grid };
std::string_view surfaceTypeName(SurfaceType type);  // "expression", "grid"
std::optional<SurfaceType> surfaceTypeFromName(std::string_view name);

struct SurfaceSpec {
    SurfaceType type = SurfaceType::Expression;
    std::string x, y, z;  // expression: functions of u and v [m]
    double uStart = 0.0, uEnd = 1.0, vStart = 0.0, vEnd = 1.0;
    std::vector<double> xs, ys;                // grid: ascending, at least 4 each [m]
    std::vector<std::vector<double>> heights;  // grid: heights[j][i] at (xs[i], ys[j]) [m]
    bool empty() const {
        return type == SurfaceType::Expression && x.empty() && y.empty() && z.empty();
    }
};

struct Joint {
    EntityId id = kNoEntity;
    std::string name;
    JointType type = JointType::Revolute;
    MarkerRef markerI;
    MarkerRef markerJ;
    bool active = true;    // false: left out of the model, with its motions, couplers and forces
    double length = 0.0;   // distance joint only [m]
    bool collide = false;  // the two parts it joins may touch (contact); off by default
    JointCompliance compliance;  // exact unless soft() (see above)
    // End stops, one per joint coordinate in the order of jointAxes(type) (empty: none; an
    // entry that is not limited() stops nothing).
    std::vector<JointLimit> limits;
    // Friction, one per joint coordinate in the same order (empty: none).
    std::vector<JointFriction> friction;
    // Point on curve: the curve, in marker J's frame. Cam pair: the cam's contour, in marker
    // J's x-y plane (z ignored), and the follower's contour in marker I's.
    CurveSpec curve;
    CurveSpec follower;
    // Point on surface: the surface, in marker J's frame.
    SurfaceSpec surface;
    // Cam pair: the follower may leave the cam (the contact is unilateral, gap ≥ 0, solved
    // with contact) instead of being held on it.
    bool liftOff = false;
    std::string extensions;
    bool limited() const {
        for (const JointLimit& l : limits)
            if (l.limited()) return true;
        return false;
    }
    bool hasFriction() const {
        for (const JointFriction& f : friction)
            if (f.active()) return true;
        return false;
    }
    // Friction solved with contact (stiction, Coulomb): as limits, it needs time stepping.
    bool hasCoulombFriction() const {
        for (const JointFriction& f : friction)
            if (f.coulomb()) return true;
        return false;
    }
    // Stops, Coulomb friction, a cam's contact that may open: the joint's contact, solved at
    // the velocity level (time stepping) whatever the scene's integrator.
    bool steppedWithContact() const { return limited() || hasCoulombFriction() || liftOff; }
};

enum class JointAxis { Rotation, Translation };  // a joint's angle or slide

// The coordinates of a joint type, in order: revolute {angle}, prismatic {slide}, cylindrical
// {angle, slide}, point on curve {the curve's parameter s}, cam pair {the gap between the
// contours along the cam's outward normal}, point on surface {its parameters u, v}; the other
// types have none
// (engine/kinematics/joint_coordinates.h). The last three are reported as slides.
std::vector<JointAxis> jointAxes(JointType type);
// "angle", "slide": a coordinate as users name it.
std::string_view jointAxisName(JointAxis axis);

// Force elements. Expressions are functions of `time` (see engine/expr/expression.h) and of the
// mechanism's state: its measures and variables (engine/model/state_functions.h).
enum class ForceType {
    PointForce,              // force on marker I's part at marker I's origin [N]
    PointTorque,             // torque on marker I's part [N·m]
    SpringDamper,            // translational, between the origins of markers I and J
    RotationalSpringDamper,  // about a revolute (or cylindrical) joint's axis
    Bushing,                 // 6-DOF linear spring-damper between frames I and J
    JointController,         // PD servo on a joint coordinate, tracking a target of time
    ComputedTorque,          // model-based servo: M(q)(q̈_d + kd ė + kp e) + h(q, q̇)
    LineForce,               // along the line between markers I and J, magnitude an expression
    JointForce,              // on a joint coordinate (torque or force), an expression
    Cable,                   // a multipoint spring from marker I through `via` to marker J
};

std::string_view forceTypeName(ForceType type);
// A servo on a joint coordinate: a target, gains kp and kd, an effort limit, an effort channel.
inline bool isJointServo(ForceType type) {
    return type == ForceType::JointController || type == ForceType::ComputedTorque;
}
// An element on one joint's coordinate (its `joint`), not on markers.
inline bool actsOnJoint(ForceType type) {
    return isJointServo(type) || type == ForceType::RotationalSpringDamper ||
           type == ForceType::JointForce;
}
std::optional<ForceType> forceTypeFromName(std::string_view name);

// A point a cable passes: a marker's origin, or a pulley — a cylinder of `radius` about the
// marker's z axis, centred at its origin, round which the cable wraps counterclockwise about z
// (`clockwise`: the other way), along the shortest path on its surface (a helix when its
// neighbours lie off its mid-plane). A frictionless pulley lets the cable slide and lifts off
// when the cable would wrap less than nothing. With a `joint` (a revolute or cylindrical joint
// of the pulley's part, about its axis) the pulley turns with the cable, which grips it: the
// cable is cut there into spans, each with its own tension, their difference turning the
// pulley; a turning pulley keeps the cable. With `friction` μ > 0 (and no joint) the cable grips
// the pulley too, but slips over it where one side's tension would exceed the other's times
// e^{μθ} (θ its wrap: the capstan, or belt friction), the ratio held while it slips; the grip
// is switched at the ends of steps.
struct CableVia {
    MarkerRef marker;
    bool pulley = false;
    double radius = 0.0;  // m, > 0 for a pulley
    bool clockwise = false;
    std::string joint = {};  // "": frictionless
    double friction = 0.0;   // μ, ≥ 0
};

struct ForceSpec {
    EntityId id = kNoEntity;
    std::string name;
    ForceType type = ForceType::SpringDamper;
    bool active = true;  // false: left out of the model
    // false: in the model but off (no force) until a sensor switches it on (SensorAction).
    bool startsOn = true;
    MarkerRef markerI;  // point force/torque: where it acts; springs, bushing: first end
    MarkerRef markerJ;  // springs, bushing: second end
    std::string joint;  // rotational spring-damper: the joint whose angle it resists
    // Point force/torque: x, y, z components as expressions, in world axes or, when
    // inMarkerFrame, in marker I's axes (which turn with the part).
    std::string components[3] = {"0", "0", "0"};
    bool inMarkerFrame = false;
    // Spring-damper: f = stiffness (l − freeLength) + damping l̇ + preload, pulling I and J
    // together when positive [N/m, N·s/m, m, N]. Rotational: torque = −(stiffness (θ − freeAngle)
    // + damping θ̇ + preload) [N·m/rad, N·m·s/rad, rad, N·m].
    double stiffness = 0.0;
    double damping = 0.0;
    double freeLength = 0.0;  // also freeAngle for the rotational spring
    double preload = 0.0;
    // A spring's or rotational spring's law from a table (SceneSpec::tables) by name, in place
    // of the constant's: the elastic force (torque) as a function of the deflection l − freeLength
    // (θ − freeAngle) for the stiffness, the damping force (torque) as a function of the rate l̇
    // (θ̇) for the damping; "" for the constant's linear law. Signs as the linear law's: for the
    // spring, positive pulls I and J together; for the rotational spring, positive resists a
    // positive twist.
    std::string stiffnessTable, dampingTable;
    // Bushing: per axis of marker J, on the displacement of I from J and on the small-angle
    // rotation of I relative to J [N/m, N·s/m, N·m/rad, N·m·s/rad].
    Vec3 translationalStiffness = Vec3::Zero();
    Vec3 translationalDamping = Vec3::Zero();
    Vec3 rotationalStiffness = Vec3::Zero();
    Vec3 rotationalDamping = Vec3::Zero();
    // Cable (a multipoint spring, seed 003 §0.14): a line from marker I's origin through its
    // `via` points (in order, on any parts) to marker J's. Its length l is the sum of its
    // segments' and of its wraps round pulleys; its tension is the spring's law on it,
    // k (l − freeLength) + c l̇ + preload (the stiffness and damping may be tables), pulling each
    // point along its two segments. `slack`: a rope, which pushes nothing — no tension while
    // l ≤ freeLength, and never a negative one. A via point may be a pulley (CableVia).
    std::vector<CableVia> via;
    bool slack = true;
    // `inextensible`: a rope that cannot stretch — its length held at most freeLength (each span
    // at its share where turning pulleys cut it) by a unilateral row of the velocity-level
    // contact problem (the scene steps with timeStepping), its tension whatever holds it; no
    // stiffness, damping or preload. Each span may pull at most two moving parts.
    bool inextensible = false;
    // The markers it names: I, then J (two-marker elements and cables), then a cable's via
    // points; none for an element on a joint.
    std::vector<MarkerRef*> markerRefs();
    std::vector<const MarkerRef*> markerRefs() const;
    // Per axis, a bushing's law from a table in place of the constant's ("" for the constant):
    // the force (torque) resisting the displacement (rotation) along (about) that axis of J, as
    // a function of it, and likewise of its rate.
    std::array<std::string, 3> translationalStiffnessTables, translationalDampingTables,
        rotationalStiffnessTables, rotationalDampingTables;
    bool usesTables() const;
    // Joint controller on `joint`'s coordinate `axis`: effort = kp (target − q) + kd (target' − q̇)
    // (stiffness = kp, damping = kd; target in components[0], rad or m), limited to ±maxEffort
    // when maxEffort > 0 [N·m or N]. Torque (force) on marker I's part about (along) J's z.
    // Gravity compensation: the effort the joint needs to hold the mechanism against gravity
    // where it is, g(q) from the joint-space tree (engine/dynamics/joint_control.h), is added.
    //
    // Computed torque on `joint`'s coordinate `axis`: all the scene's computed-torque elements
    // that are on make one controller over the mechanism's tree of joints, giving their
    // coordinates the accelerations  q̈ = q̈_d + kd (q̇_d − q̇) + kp (q_d − q)  by
    // τ = M(q) q̈ + h(q, q̇) — M and h (gravity, the velocity products, every other force
    // element) from the engine, the coordinates it does not control left free (collocated
    // partial feedback linearisation), those a motion drives at the motion's q̈. kp [1/s²],
    // kd [1/s]; target a function of time (rad or m), differentiated exactly; limited to
    // ±maxEffort when maxEffort > 0.
    JointAxis axis = JointAxis::Rotation;
    double maxEffort = 0.0;
    bool gravityCompensation = false;  // joint controller
    // Line force (Adams' translational SFORCE): components[0] is its magnitude [N], positive
    // pushing I and J apart along the line between their origins.
    // Joint force: components[0] is the torque about (force along) J's z axis on marker I's
    // part, its opposite on J's, on the joint's coordinate `axis` [N·m or N]: a motor.
    std::string extensions;
};

// A named expression of time and of the mechanism's state (engine/model/state_functions.h),
// used by name in force expressions and in other variables: a measure several elements share.
struct VariableSpec {
    std::string name;
    std::string expression = "0";
    std::string extensions;
    // A held variable: a number the run keeps, starting at this value and changed only by
    // sensors (SensorAction::Set) — a latch, a count, a value taken at an event. Its
    // `expression` is then unused.
    std::optional<double> initial = {};
};

// A table: a curve through measured points (engine/math/table_curve.h), named, read by that
// name as a function of one argument in any expression ("shock(VR(body.top, wheel.hub))") and
// taken by springs, rotational springs and bushings as their elastic or damping law
// (ForceSpec::stiffnessTable, …). Its units are those of its use: for a spring's stiffness, x is
// the deflection [m or rad] and y the elastic force [N or N·m]; for its damping, x the rate
// [m/s or rad/s] and y the damping force.
struct TableSpec {
    std::string name;
    TableInterpolation interpolation = TableInterpolation::Akima;
    std::vector<double> x, y;  // x strictly increasing, at least 2 points
    std::string extensions;
};

// A design variable: a named number that numeric fields of the scene are bound to ("=L_crank",
// "=2*L_crank + 0.01"), so that changing it changes them all, and that a study sweeps
// (engine/io/design_variables.h). Its unit is that of the fields it feeds.
struct DesignVariableSpec {
    std::string name;
    double value = 0.0;
    // The range a slider offers; NaN: none given (the GUI then offers value/2 … 2·value).
    double minimum = std::numeric_limits<double>::quiet_NaN();
    double maximum = std::numeric_limits<double>::quiet_NaN();
    std::string extensions;
};

// A numeric field of the scene bound to an expression of design variables: the field holds the
// expression's value, and the scene file keeps the expression ("=expression"). The field is
// named from the entity that holds it, so that the binding follows the entity when others are
// added, deleted or reordered: `owner` (a part, marker, joint, force, motion, coupler or contact
// pair; kNoEntity for the scene's own settings and lists without ids) and `field`, a JSON
// pointer from the owner's object ("/mass", "/position/0", "/orientation/angleDeg").
// `group` is the pointer (from the owner) of the object or array that holds the field as the
// file wrote it, `groupJson` its text there (with the bindings): an orientation bound by its
// angle is written back in axis-angle form, and a vector left out as zero is written back.
struct BindingSpec {
    EntityId owner = kNoEntity;
    std::string field;
    std::string expression;
    std::string group;
    std::string groupJson;
};

// A sensor watches an expression of time and the state cross a value during a run, the instant
// located within the integrator's step (dopri45: to 1e-12 s on its dense output; fixed-step
// methods: between two steps, the run stopping at the step after it), and then acts.
enum class SensorDirection { Either, Rising, Falling };
// Stop: the run ends at the instant. Mark: the instant is recorded, the run goes on. Set: a held
// variable (`target`) takes the value of `to` at the instant. SwitchOn, SwitchOff: a force or a
// motion (`target`) is switched on or off from the instant on.
enum class SensorAction { Stop, Mark, Set, SwitchOn, SwitchOff };
std::string_view sensorActionName(SensorAction action);  // "stop", "mark", "set", "switchOn", ...

struct SensorSpec {
    std::string name;
    std::string expression = "0";
    double value = 0.0;  // the level crossed, in the expression's unit
    SensorDirection direction = SensorDirection::Either;
    SensorAction action = SensorAction::Stop;
    std::string target = {};  // Set: a held variable; SwitchOn, SwitchOff: a force or a motion
    std::string to = "0";     // Set: an expression of time and the state, evaluated at the instant
    std::string extensions;
};

// A motion prescribes one coordinate of a joint as a function of time.
enum class MotionLevel { Position, Velocity, Acceleration };

struct MotionSpec {
    EntityId id = kNoEntity;
    std::string name;
    std::string joint;
    bool active = true;  // false: left out of the model (the coordinate moves freely)
    // false: in the model but off (its coordinate free) until a sensor switches it on.
    bool startsOn = true;
    JointAxis axis = JointAxis::Rotation;
    MotionLevel level = MotionLevel::Position;
    std::string expression = "0";  // rad or m (per s, per s² for velocity and acceleration)
    std::string extensions;
};

// A coupler ties joint coordinates together: gears, a rack and its pinion, a screw's thread, or
// any linear relation Σ cᵢ qᵢ = offset (a differential, a mimic joint, a belt). It is one exact
// constraint row on the coordinates' Jacobians, held to the projection tolerance like a joint's,
// its multiplier the force the teeth (thread, belt) carry. The relation holds from the
// configuration the parts are placed in: the offset of a gear, rack or screw is the value of
// Σ cᵢ qᵢ at the parts' initial poses (a linear coupler may give it instead).
enum class CouplerType {
    Gear,        // two revolute (or cylindrical) joints: θ̇I = ∓ ratio θ̇J
    RackPinion,  // a revolute (pinion) and a prismatic (rack): ṡJ = ± radius θ̇I
    Screw,       // a cylindrical joint's angle and slide: ṡ = pitch θ̇ / 2π
    Linear,      // Σ cᵢ q̇ᵢ = 0 over any joint coordinates
};

std::string_view couplerTypeName(CouplerType type);  // "gear", "rackPinion", "screw", "linear"
std::optional<CouplerType> couplerTypeFromName(std::string_view name);

// One term cᵢ qᵢ of a linear coupler: a joint's angle or slide and its coefficient.
struct CouplerTerm {
    std::string joint;
    JointAxis axis = JointAxis::Rotation;
    double coefficient = 1.0;
};

struct CouplerSpec {
    EntityId id = kNoEntity;
    std::string name;
    CouplerType type = CouplerType::Gear;
    bool active = true;  // false: left out of the model
    // Gear: the two gears' joints (revolute or cylindrical); rack and pinion: the pinion's
    // revolute (or cylindrical) joint I and the rack's prismatic (or cylindrical) joint J;
    // screw: the cylindrical joint, in jointI.
    std::string jointI, jointJ;
    // Gear: the speed ratio |ωI / ωJ| (teeth of J over teeth of I, > 0). External gears turn
    // opposite ways, an internal (ring) gear pair the same way, about their joints' axes when
    // these point the same way (the senses swap when the axes are opposed).
    double ratio = 1.0;
    bool internal = false;
    double radius = 0.0;  // rack and pinion: the pinion's pitch radius [m], > 0
    double pitch = 0.0;   // screw: the advance per turn [m]; negative for a left-hand thread
    std::vector<CouplerTerm> terms;  // linear: at least two
    // Linear: Σ cᵢ qᵢ = offset [rad or m]; NaN: the value at the parts' initial poses.
    double offset = std::numeric_limits<double>::quiet_NaN();
    std::string extensions;
};

enum class IntegratorType {
    SymplecticEuler,
    RungeKutta4,
    DormandPrince45,
    ImplicitEuler,
    TimeStepping,
    Trapezoidal,
};

std::string_view integratorName(IntegratorType type);
std::optional<IntegratorType> integratorFromName(std::string_view name);

// The coordinates a run steps in (docs/engine.md, Formulations): every part's pose with the
// joints as constraint rows (maximal), or the joints' own coordinates over a tree of parts
// (recursive: the articulated-body algorithm, nothing to iterate or project); auto chooses
// (engine/integrators/integrator.h, chooseFormulation).
enum class Formulation { Auto, Recursive, Maximal };

std::string_view formulationName(Formulation formulation);
std::optional<Formulation> formulationFromName(std::string_view name);

// The smallest step (and output interval) a scene may ask for [s].
constexpr double kMinStepSize = 1e-7;

struct SolverSettings {
    IntegratorType integrator = IntegratorType::DormandPrince45;
    Formulation formulation = Formulation::Auto;
    // Parts welded together (exact `fixed` joints whose markers coincide) move as one body:
    // folded into it before the solve, a weld costs no rows (engine/model/welds.h). Off: every
    // weld is held as a joint of six rows.
    bool foldWelds = true;
    double stepSize = 1e-3;  // s: the step of fixed-step integrators
    // s: time between outputs (recorded frames, CSV rows); 0: the step size. Fixed-step
    // integrators need a whole number of steps per output; dopri45 steps on its own and
    // interpolates (dense output), so output density never changes a solution.
    double outputInterval = 0.0;
    double maxStep = 0.0;  // s: dopri45's largest step; 0: no limit
    // s: where the scene's run ends (Play stops there; motus-cli simulate runs to it when no
    // --duration is given); 0: none (Play runs until paused).
    double endTime = 0.0;
    // dopri45: local error per step, relative to each position and velocity and absolute.
    // Tight by default, at the level the joints are held to: a non-symplectic method's phase
    // error grows with every period, and a pendulum run for 2000 s (1000 periods) stays
    // within 0.11 mm of the exact motion only so (1.2 mm at 1e-9, 14 mm at 1e-8).
    double relativeTolerance = 1e-10;
    double absoluteTolerance = 1e-12;
    // m and rad: after every step each joint's point gap (Euclidean) and angular error are
    // below this
    double projectionTolerance = 1e-10;
    int maxProjectionIterations = 8;
    // dopri45: a run whose last stallSteps steps (accepted or rejected) advanced it by less
    // than stallSteps × kMinStepSize stops as stalled (steps of 1e-13 s would otherwise look
    // like a hang). A run-time limit, not stored in scene files.
    long stallSteps = 50000;
    std::string extensions;

    // The time between outputs actually used: outputInterval, else the step size.
    double outputSpacing() const { return outputInterval > 0.0 ? outputInterval : stepSize; }
};

// Why a fixed-step integrator cannot write outputs at this spacing (it is not a whole number of
// steps: an output between two steps would shorten a step, and the answer would depend on how
// often it is written), or empty when it can (and always for dopri45, which interpolates).
std::string outputSpacingProblem(const SolverSettings& settings);

// Contact (docs/contact.md). With contact enabled, parts with geometry touch each other and
// the ground, and the run uses the velocity-level time-stepping integrator, which solves
// joints, contact and friction together in one mixed LCP per step.
enum class ContactSolverType { ProjectedGaussSeidel, Lemke };
enum class FrictionModel { Box, Cone };  // box: |β_k| ≤ μz per tangent; cone: polyhedral

std::string_view contactSolverName(ContactSolverType type);
std::string_view frictionModelName(FrictionModel model);

// Settings for one pair of parts: switch their contact off, or override combined values.
struct ContactPairSpec {
    EntityId id = kNoEntity;
    std::string name;
    std::string partA;
    std::string partB;
    bool enabled = true;
    std::optional<double> friction;
    std::optional<double> restitution;
    std::string extensions;
};

struct ContactSettings {
    bool enabled = false;
    ContactSolverType solver = ContactSolverType::ProjectedGaussSeidel;
    FrictionModel friction = FrictionModel::Box;
    int coneFacets = 8;                  // cone: edges of the polyhedral cone (≥ 3)
    int iterations = 100;                // PGS sweeps per step at most
    double tolerance = 1e-6;             // PGS: largest velocity change of a sweep [m/s]
    double margin = 5e-3;                // gaps up to this are kept as speculative contacts [m]
    double restitutionThreshold = 0.05;  // slower impacts are plastic [m/s]
    double stabilization = 0.2;          // fraction of penetration (beyond slop) removed per step
    double slop = 1e-5;                  // penetration left alone [m]
    double pushSpeed = 1.0;              // the fastest a penetration is pushed out [m/s]
    double stiffness = 0.0;              // soft contact when > 0 [N/m] (seed 003 §0.11)
    double damping = 0.0;                // soft contact damping [N·s/m]
    // Soft contact said as users think of it (as Box2D v3's contact hertz and MuJoCo's solref
    // do): each contact rings at `frequency` [Hz] with `dampingRatio` (1: critically damped),
    // whatever the masses: k = m ω², c = 2 ζ m ω with ω = 2π f and m the contact's effective
    // mass along its normal. Either this or stiffness/damping.
    double frequency = 0.0;
    double dampingRatio = 1.0;
    // Sleeping: a group of free parts touching one another (an island) whose every point has
    // moved slower than `sleepSpeed` for `sleepTime` stops being stepped until something
    // touches it (0: parts never sleep).
    double sleepTime = 0.0;    // [s]
    double sleepSpeed = 1e-3;  // [m/s], of any point of a part's bounding sphere
    std::vector<ContactPairSpec> pairs;
    std::string extensions;
};

// The elements one analysis leaves out of the model on top of those deactivated in the scene
// (e.g. the motor, for the modes of the free mechanism), by name per kind.
struct InactiveSet {
    std::vector<std::string> parts, joints, forces, motions, couplers, contactPairs;
    bool empty() const {
        return parts.empty() && joints.empty() && forces.empty() && motions.empty() &&
               couplers.empty() && contactPairs.empty();
    }
};

// The analyses a scene can give its own set of deactivated elements: forward dynamics (the
// GUI's Play, motus-cli simulate and render), kinematics (kinematic analysis and inverse
// dynamics), statics, and modes (vibration modes and the linearised equations).
enum class Analysis { Simulation, Kinematics, Statics, Modes };
constexpr int kAnalysisCount = 4;
std::string_view analysisName(Analysis analysis);  // "simulate", "kinematics", "statics", "modes"
std::optional<Analysis> analysisFromName(std::string_view name);

struct AnalysisSpec {
    InactiveSet inactive;
    std::string extensions;
};

// A plot the user set up: recorded channels by name ("crankPin.Fz", "energy.kinetic", ...),
// shown again when the scene is reopened.
struct PlotSpec {
    std::string name;
    std::vector<std::string> channels;
    std::string x;  // the horizontal axis' channel (an x-y plot); empty: time
    std::string extensions;
};

struct SceneSpec {
    std::string name;
    std::string description;
    Vec3 gravity = Vec3(0.0, 0.0, -9.81);  // m/s²
    std::vector<Part> parts;
    std::vector<Joint> joints;
    std::vector<ForceSpec> forces;
    std::vector<MotionSpec> motions;
    std::vector<CouplerSpec> couplers;
    std::vector<VariableSpec> variables;
    std::vector<TableSpec> tables;
    std::vector<SensorSpec> sensors;
    std::vector<DesignVariableSpec> designVariables;
    std::vector<BindingSpec> bindings;  // the fields bound to design variables
    SolverSettings settings;
    ContactSettings contact;
    std::vector<PlotSpec> plots;
    // Per analysis (indexed by Analysis): what it leaves out of the model.
    std::array<AnalysisSpec, kAnalysisCount> analyses;
    EntityId nextId = 1;  // next id to hand out; ids are never reused within a document
    // The minor version of the format the file was written in (0 when it had none): a file
    // from a newer minor version keeps its unknown keys as extensions, and is saved with
    // its minor version so they stay valid.
    int formatMinor = 0;
    std::string extensions;  // unknown top-level keys

    EntityId newId() { return nextId++; }

    const Part* findPart(std::string_view name) const;
    const Joint* findJoint(std::string_view name) const;
    const TableSpec* findTable(std::string_view name) const;
    const Marker* findMarker(const MarkerRef& ref) const;
    std::size_t markerCount() const;
    // The entity a JSON pointer into the scene file names ("/joints/3", "/parts/1/markers/0",
    // "/parts/2/mass": the part), what a diagnostic's `where` says; kNoEntity when it names none.
    EntityId entityAt(std::string_view pointer) const;
    // The JSON pointer of an entity's object in the scene file ("/parts/1/markers/0"); empty
    // for kNoEntity (the file's root), nullopt when the scene holds no such entity.
    std::optional<std::string> pointerOf(EntityId id) const;
    // Moves each moving part to its pose in `poses` (one per part, as partPoses gives them for
    // a solved state); the ground stays. The one place a solved pose is written back.
    void placeParts(const std::vector<Transform>& poses);
};

// Semantic checks on a spec (the file structure is checked by the reader): names unique and
// well formed, references resolve, mass properties physical, joints between distinct parts.
// `where` paths follow the scene file layout ("/parts/2/mass").
Diagnostics validate(const SceneSpec& spec);

}  // namespace engine
