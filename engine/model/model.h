#pragma once
// Model: the compiled, immutable form of a SceneSpec that the solver works on. Shared across
// threads as std::shared_ptr<const Model>; any edit of the spec compiles a new Model.
//
// Frames and indices:
//   * every moving part becomes a body b (dense index 0..nb-1) whose frame B sits at the
//     part's centre of mass on its principal axes (seed 004), so the inertia J'_b is diagonal;
//     X_PB places B in the part frame P.
//   * the ground part is not a body: its markers have body == kGround and X_BM = X_WM.
//   * a marker's X_BM is its pose in its body frame.
//   * a joint becomes a list of constraint primitives on the axes of its markers I and J.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/expr/expression.h"
#include "engine/math/spatial.h"
#include "engine/model/contact_model.h"
#include "engine/model/diagnostic.h"
#include "engine/model/layout.h"
#include "engine/model/scene_spec.h"
#include "engine/model/state_functions.h"

namespace engine {

constexpr int kGround = -1;

class Curve;
class Surface;

struct BodyModel {
    EntityId id = kNoEntity;
    std::string name;
    int partIndex = 0;            // index into SceneSpec::parts
    double mass = 1.0;            // kg
    Vec3 inertia = Vec3::Ones();  // principal moments J' [kg·m²], about the COM
    Transform X_PB;               // body frame B (COM, principal axes) in the part frame P
    // Initial state, from the part's initial pose and velocity.
    Transform X_WB0;
    Vec3 v_WBcm0_W = Vec3::Zero();  // COM velocity [m/s]
    Vec3 w_WB0_B = Vec3::Zero();    // angular velocity in body axes [rad/s]
};

// A scene part as the model moves it: with body `body` (kGround: it is the ground), its frame P
// at X_BP in the body's frame B (the ground's: X_WP), its centre of mass at com_B. Every
// output that shows a part (its pose, its centre of mass's motion, its collision shapes) goes
// through this: partPose().
struct PartModel {
    std::string name;
    int body = kGround;
    Transform X_BP;
    Vec3 com_B = Vec3::Zero();
};

struct MarkerModel {
    EntityId id = kNoEntity;
    std::string name;  // "part.marker"
    int body = kGround;
    int part = 0;                  // index into SceneSpec::parts (Model::parts)
    Transform X_BM;                // in the body frame; for ground markers, in the world
    Mat3 R_BM = Mat3::Identity();  // X_BM's rotation: its columns are the marker's axes
};

// Constraint primitives (seed 001), on the axes (0 = x, 1 = y, 2 = z) of the joint's markers.
// P_I, P_J are the marker origins, d = P_J − P_I, a_I^k the k-th axis of marker I.
enum class PrimitiveType {
    Coincident,  // d = 0                                  (3 rows) "spherical"
    Dot1,        // a_I^k · a_J^l = 0                      (1 row)  axes perpendicular
    Dot2,        // a_I^k · d = 0                          (1 row)  P_J in a plane of I
    Distance,    // (d·d − L²) / (2L) = 0                  (1 row)  rod of length L
    OnCurve,     // P_I on the curve of J: N_k·(P_I − C(s*)) = 0 (2 rows) pin in a slot
    CamContact,  // the follower's contour on the cam's: gap = 0 (1 row)  cam pair
    OnSurface,   // P_I on the surface of J: n·(P_I − S(u*, v*)) = 0 (1 row)
};               // (the last three: engine/kinematics/curve_geometry.h)

struct Primitive {
    PrimitiveType type = PrimitiveType::Coincident;
    int axisI = 2;        // k
    int axisJ = 2;        // l (Dot1 only)
    double length = 0.0;  // Distance only [m]
    // OnCurve: the curve (in marker J's frame); CamContact: the cam's contour (J's) and the
    // follower's (I's).
    std::shared_ptr<const Curve> curve, follower;
    std::shared_ptr<const Surface> surface;  // OnSurface: in marker J's frame
    int rows() const {
        return type == PrimitiveType::Coincident ? 3 : type == PrimitiveType::OnCurve ? 2 : 1;
    }
};

// A moving frame (Part::frameMotion) resolved: the pose of body `body` prescribed as
//   X_WB(t) = M(t) X_MB,  M(t) = (origin0 + d(t), R(t)),
// d the translation's expressions, R(t) = Rz(rotation[2]) Ry(rotation[1]) Rx(rotation[0]).
// A hidden joint holds it (JointModel::frameMotion, engine/kinematics/frame_motion.h).
struct FrameMotionModel {
    int body = 0;
    Expression translation[3], rotation[3];
    Vec3 origin0 = Vec3::Zero();  // the part origin's initial position
    Transform X_MB;               // the body frame in M
};

struct JointModel {
    EntityId id = kNoEntity;
    std::string name;
    JointType type = JointType::Revolute;
    int markerI = 0;  // index into Model::markers
    int markerJ = 0;
    std::vector<Primitive> primitives;  // its exact equations (a soft joint's are below)
    int rows = 0;                       // exact constraint equations
    int softRowOffset = 0;              // first row of its soft equations (Model::softRows)
    int softRows = 0;                   // soft equations (JointCompliance)
    // Joint coordinates: revolute {angle}, prismatic {slide}, cylindrical {angle, slide},
    // universal {angle about J's z, angle about I's z}, planar {slide along J's x, along J's y,
    // angle about J's z} (engine/kinematics/joint_coordinates.h);
    // the other types have none. The angle is the rotation of marker I relative to marker J
    // about J's z axis [rad]; the slide is the displacement of I's origin from J's along J's
    // z axis [m].
    std::vector<JointAxis> coordinates;
    std::vector<std::string> rowLabels;  // per row, e.g. "coincident x", "dot1(x_I, z_J)"
    // A point on a curve: its curve (in marker J's frame); a cam pair: the cam's contour (J's)
    // and the follower's (I's); a point on a surface: its surface. Null for the other types.
    std::shared_ptr<const Curve> curve, follower;
    std::shared_ptr<const Surface> surface;
    // A moving frame's joint (type Fixed, named as its part, after the scene's joints): its
    // six rows hold its body to the prescribed pose (marker J: a ground marker at the body's
    // initial pose, carried by the motion).
    std::shared_ptr<const FrameMotionModel> frameMotion;
    // A weld folded away (its parts one body: engine/model/welds.h): no rows; `carried`, the
    // parts on its side away from the group's root (or the ground), whose loads its reaction
    // is recovered from (empty: a weld that closes a loop of welds carries nothing).
    bool folded = false;
    std::vector<int> carried;
};

// A measure of the state an expression reads (engine/model/state_functions.h), resolved: its
// frames as points of bodies (a marker, or a part's own frame), j the world origin and k the
// world axes when not given.
struct MeasureFrame {
    int body = kGround;
    Transform X_BM;  // in the body frame; on the ground, in the world
    bool given = false;
};

struct MeasureModel {
    MeasureKind kind = MeasureKind::DM;
    std::string text;        // canonical: "DM(crank.pin, ground.O)"
    MeasureFrame frames[3];  // i, j, k
    int joint = -1;          // q, qd and the reactions: index into Model::joints
    int coordinate = 0;      // q, qd: index into the joint's coordinates
    // q: index into State::jointCoordinates (unwinding an angle); a lagged measure
    // (measureIsLagged: reactions, contact forces): its value's index into State::lagged.
    int slot = 0;
    int partA = -1, partB = -1;  // FN, FT: SceneSpec part indices
};

// A scene variable, compiled: its expression's input k reads value inputs[k] of the state values
// (the variables', in Model::variables' order, then the measures': Model::stateValueCount).
struct VariableModel {
    std::string name;
    Expression expression;
    std::vector<int> inputs;
    int held = -1;  // a held variable: its slot in State::switches (its value the expression's)
};

// A sensor (SensorSpec), compiled: its expression's inputs as a force's.
struct SensorModel {
    std::string name;
    Expression expression;
    std::vector<int> inputs;
    double value = 0.0;
    SensorDirection direction = SensorDirection::Either;
    SensorAction action = SensorAction::Stop;
    int target = -1;  // Set, SwitchOn, SwitchOff: the slot in State::switches it changes
    Expression to;    // Set: the value, with its inputs as a force's
    std::vector<int> toInputs;
};

// What a run switches as it goes (State::switches, one slot each): a held variable's value, or
// whether a force element or a motion is on (1) or off (0). A run's model is the compiled one
// with the state's switches applied (switchedModel, engine/model/switches.h).
// A cable's slip over a pulley with friction (Slip: the length of cable that has slipped over
// it, m, toward the cable's end J; Slipping: whether it grips, 0, or slips toward J, +1, or
// toward I, −1; the run switches them at the ends of steps) is held there too.
enum class SwitchKind { Held, Force, Motion, Slip, Slipping };

struct SwitchModel {
    SwitchKind kind = SwitchKind::Held;
    int index = 0;  // into Model::variables, forces or drivers
    int via = 0;    // Slip: the pulley's index in the cable's via points
    double initial = 0.0;
    std::string name;  // the variable's, force's or motion's
};

// A force element with its references resolved (see ForceSpec for the laws and units).
struct ForceModel {
    EntityId id = kNoEntity;
    std::string name;
    ForceType type = ForceType::SpringDamper;
    int markerI = -1;
    int markerJ = -1;
    std::vector<int> via;  // cable: the markers it passes, from I to J
    bool slack = true;     // cable: no tension while slack, never a push
    // Cable: held at most its free length (each span its share) by unilateral rows of the
    // velocity-level contact problem (cableSpanRows), its tension theirs; no elastic law.
    bool inextensible = false;
    // Cable: per via point, a pulley's wrap (radius 0: a point). A turning pulley (`joint` ≥ 0,
    // the revolute or cylindrical joint it turns on, `turning` the sign of its turn about the
    // marker's z in the joint's angle) cuts the cable into spans: `material` is the angle, in
    // the pulley's marker frame at the initial poses, of the cable's point fixed on it where
    // they meet (the wrap's middle then), `carrier` that angle plus turning × the joint's angle
    // then: the wrap's middle in the frame of the part the pulley turns on, which counts the
    // pulley's whole turns with the joint's unwound angle.
    // A pulley with friction (`friction` μ > 0, no joint) cuts it too, where the cable is
    // fixed on it while it grips: `slip` [m] is how much has slipped toward J, the cut
    // `material` + slip / radius along the wrap; while it slips (`slipping` ±1, toward J or I)
    // the cut is where the capstan balance puts it (switches of the run: SwitchKind::Slip,
    // Slipping).
    struct Wrap {
        double radius = 0.0;
        int sense = 1;
        int joint = -1;
        int turning = 1;
        double material = 0.0, carrier = 0.0;
        double friction = 0.0, slip = 0.0;
        int slipping = 0;
        bool cuts() const { return joint >= 0 || friction > 0.0; }
    };
    std::vector<Wrap> wraps;
    // Cable: per span, the cable's whole initial length over the span's: the spans' free
    // lengths share the cable's in proportion (one strain), and each span's law is the
    // cable's on its strain (a span of half the length twice as stiff).
    std::vector<double> spanScale{1.0};
    int joint = -1;            // rotational spring-damper
    Expression components[3];  // point force / torque; a line or joint force's magnitude
    // Per component, its expression's inputs as indices into the state values (empty: a
    // function of time alone).
    std::vector<int> inputs[3];
    // The bodies the element's force depends on through its expressions' measures, and a
    // cable's via points' bodies (besides those of I and J): the implicit integrators
    // differentiate over them too.
    std::vector<int> stateBodies;
    bool inMarkerFrame = false;
    double stiffness = 0.0, damping = 0.0, freeLength = 0.0, preload = 0.0;
    Vec3 translationalStiffness = Vec3::Zero(), translationalDamping = Vec3::Zero();
    Vec3 rotationalStiffness = Vec3::Zero(), rotationalDamping = Vec3::Zero();
    // Laws from tables (ForceSpec::stiffnessTable, …), null for the constant's linear law: a
    // spring's or rotational spring's elastic and damping force as functions of its deflection
    // and rate; a bushing's per axis, the three translations then the three rotations. Where a
    // law is a table, `stiffness` (`damping`, the bushing's gain on that axis) holds its steepest
    // slope, what the stiffness estimates (engine/model/stiffness.h) take.
    std::shared_ptr<const TableCurve> elasticLaw, dampingLaw;
    std::shared_ptr<const TableCurve> bushingElastic[6], bushingDamping[6];
    int coordinate = 0;      // joint controller: index into the joint's coordinates
    double maxEffort = 0.0;  // joint controller: 0 for no limit
    bool gravityCompensation =
        false;       // joint controller: g(q) added (engine/dynamics/joint_control.h)
    bool on = true;  // switched off by a sensor (or until one switches it on): no force
};

// An equation of a soft joint (JointCompliance): evaluated as the exact one (constraints/), but
// pulled back by λ = k Φ + c Φ̇ instead of held. By frequency, k and c come from the equation's
// effective mass at each instant.
struct SoftConstraint {
    int joint = 0;  // index into Model::joints
    Primitive primitive;
    double stiffness = 0.0;     // per row: N/m (length) or N·m/rad (angle)
    double damping = 0.0;       // N·s/m or N·m·s/rad
    double frequency = 0.0;     // Hz; > 0: k = m ω², c = 2 ζ m ω
    double dampingRatio = 1.0;  // ζ
};

// An end stop on a joint coordinate (JointLimit): the coordinate c stays in [lower, upper] as
// one unilateral row per finite end, c − lower ≥ 0 and upper − c ≥ 0, solved with contact at
// the velocity level (engine/integrators/time_stepping.cpp). Its multiplier is the stop's
// force or torque on part I along J's z axis (positive from the lower stop).
struct LimitModel {
    int joint = 0;       // index into Model::joints
    int coordinate = 0;  // index into the joint's coordinates
    int slot = 0;        // index into State::jointCoordinates
    JointAxis axis = JointAxis::Rotation;
    double lower = 0.0, upper = 0.0;  // ±∞: no stop on that side
    double restitution = 0.0;
    double frequency = 0.0;  // Hz; 0: rigid
    double dampingRatio = 1.0;
    bool liftOff = false;  // a cam's contact that may open (CurveOnCurve with liftOff)
};

// Friction on a joint coordinate (JointFriction), its coefficients resolved: a bounded row on
// the coordinate in the velocity-level problem (|impulse| ≤ h × (μ × the reaction's lever
// term + preload), μ the static coefficient while the coordinate rests), and a viscous force.
struct JointFrictionModel {
    int joint = 0;
    int coordinate = 0;
    int slot = 0;  // index into State::jointCoordinates
    JointAxis axis = JointAxis::Rotation;
    double coefficient = 0.0, staticCoefficient = 0.0;
    double radius = 0.0, length = 0.0;
    double preload = 0.0, viscous = 0.0;
    // A ball joint's: a torque against the relative turn ω_I − ω_J whatever its axis, at most
    // μ r |F| + preload (F: the joint's whole reaction force), viscous −c (ω_I − ω_J).
    bool ball = false;
    bool coulomb() const { return coefficient > 0.0 || staticCoefficient > 0.0 || preload > 0.0; }
};

// A driver: one rheonomic constraint row  c(q) − f(t) = 0  on a joint coordinate c (position
// level), or  ċ − f(t) = 0  (velocity level), or  c̈ = f(t)  (acceleration level). Its
// multiplier is the actuator force or torque.
struct DriverModel {
    EntityId id = kNoEntity;
    std::string name;
    int joint = 0;
    int coordinate = 0;  // index into the joint's coordinates
    MotionLevel level = MotionLevel::Position;
    Expression f;
    bool on = true;  // switched off: its row is empty (the solver drops it), the coordinate free
};

// A coupler (CouplerSpec) resolved into one constraint row on joint coordinates:
//   Φ = Σ cᵢ qᵢ − offset = 0
// with qᵢ the coordinates unwound (angles counted in whole turns, engine/constraints/). Its
// multiplier λ puts the generalised force −cᵢ λ on each coordinate.
struct CouplerTermModel {
    int joint = 0;
    int coordinate = 0;  // index into the joint's coordinates
    int slot = 0;        // index into State::jointCoordinates
    double coefficient = 1.0;
};

struct CouplerModel {
    EntityId id = kNoEntity;
    std::string name;
    CouplerType type = CouplerType::Gear;
    std::vector<CouplerTermModel> terms;
    double offset = 0.0;
    // What the row's force is reported as (`<name>.force`): the generalised force on the first
    // term divided by `lever`: a gear's tooth force (lever: gear I's pitch radius), a rack's
    // (the pinion's), a screw's axial force (lever 1 on the slide's term); 0: the multiplier.
    int forceTerm = 0;
    double lever = 0.0;
    // Gears and racks whose joints share a carrier part roll at a pitch point P: the row's
    // Jacobian and γ are then those of the rolling condition t·(v_I(P) − v_J(P)) / rollScale
    // (t the common tangent, v_b(P) the velocity of body b's material point at P), equal to
    // the coordinates' relation wherever the joints hold, so that the tooth force acts at P and
    // the joints' reactions (the bearings) carry it. Φ stays the coordinates' relation.
    bool rolling = false;
    int gearBodies[2] = {kGround, kGround};  // gear I (the pinion), gear J (the rack)
    int carrier = kGround;                   // the part both joints hold them to
    int axleMarkers[2] = {-1, -1};           // joints I and J's markers J (their z: the axes)
    double pitchRadius = 0.0;                // gear I's, the pinion's [m]
    // Gear: P = O_I + r_I û, û pointing from I's axle towards J's (+1, external gears and a
    // ring I) or away from it (−1, a ring J). Rack: P = O + r σ (d × z)/|d × z|, σ = `toward`.
    double toward = 1.0;
    double rollScale = 1.0;
};

// Primitive lists of each joint type (exposed for tests and for the DOF report).
std::vector<Primitive> jointPrimitives(JointType type, double length);

struct Model {
    std::uint64_t serial = 0;  // unique per compiled model in this process (caches key on it)
    std::string name;
    Vec3 gravity = Vec3(0.0, 0.0, -9.81);
    std::vector<BodyModel> bodies;
    std::vector<MarkerModel> markers;
    std::vector<JointModel> joints;
    std::vector<ForceModel> forces;
    std::vector<DriverModel> drivers;
    std::vector<CouplerModel> couplers;         // their rows follow the joints' (couplerRowOffset)
    std::vector<LimitModel> limits;             // joint order, then coordinate order
    std::vector<JointFrictionModel> frictions;  // joint order, then coordinate order
    // What force expressions read of the state: the variables, in an order in which each
    // follows those it uses, then the measures; their values in this order
    // (engine/kinematics/state_measures.h).
    std::vector<MeasureModel> measures;
    std::vector<VariableModel> variables;
    std::vector<SensorModel> sensors;
    std::vector<SwitchModel> switches;  // State::switches' slots
    int stateValueCount() const { return static_cast<int>(measures.size() + variables.size()); }
    int laggedCount = 0;  // measures read as of the previous step (State::lagged's size)
    SolverSettings settings;
    // Runs solve the motion at each instant from the joints and motions instead of integrating
    // it (a fully driven mechanism: kinematic analysis and inverse dynamics); set on a copy of
    // a compiled model by kinematicModel() (engine/analysis/kinematic_analysis.h).
    bool kinematic = false;
    // What the model leaves out of the scene (deactivated, or hanging on what is), one line
    // each: "motion 'drive': deactivated for modes".
    std::vector<std::string> inactive;
    std::vector<int> bodyOfPart;         // per SceneSpec part: body index or kGround
    std::vector<PartModel> parts;        // per SceneSpec part
    std::vector<std::string> weldNotes;  // welds held as joints that could have folded, and why
    // With welds folded: the same scene with every part a body of its own (foldWelds off), its
    // markers, joints and forces indexed alike; what acts on each part is found on it
    // (engine/analysis/weld_reactions.h). Null when no weld folds.
    std::shared_ptr<const Model> unfolded;
    std::vector<Transform> partPoses0;  // per SceneSpec part: initial X_WP (the ground's stays)
    std::vector<int> jointRowOffset;    // first constraint row of each joint
    std::vector<int> frameJoints;       // the moving frames' joints (after the scene's)
    // Rows before the motions': the joints' (jointRowOffset), then one per coupler from
    // couplerRowOffset on; the motions' (driver) rows follow.
    int jointRows = 0;
    int couplerRowOffset = 0;
    int jointCoordinateCount = 0;                 // the size of State::jointCoordinates
    std::vector<SoftConstraint> softConstraints;  // the soft joints' equations, joint order
    int softRows = 0;                             // their rows
    ContactModel contact;  // collision geometry, filters, materials (used when enabled)

    int constraintRows() const { return jointRows + static_cast<int>(drivers.size()); }
    // Whether constraint row `row` is prescribed by expressions of time: a motion's or a moving
    // frame's (its failures are then the expressions' to explain).
    bool prescribedRow(int row) const {
        if (row >= jointRows) return true;
        for (const int j : frameJoints)
            if (row >= jointRowOffset[static_cast<std::size_t>(j)] &&
                row < jointRowOffset[static_cast<std::size_t>(j)] + 6)
                return true;
        return false;
    }
    // Whether some rows do work on the mechanism: motions' or moving frames'.
    bool hasWorkingRows() const { return !drivers.empty() || !frameJoints.empty(); }
    // Calls f(row) for each such row: the motions' rows, then the moving frames' six each.
    template <class F>
    void forEachWorkingRow(F&& f) const {
        for (int d = 0; d < static_cast<int>(drivers.size()); ++d) f(jointRows + d);
        for (const int j : frameJoints)
            for (int k = 0; k < 6; ++k) f(jointRowOffset[static_cast<std::size_t>(j)] + k);
    }

    int bodyCount() const { return static_cast<int>(bodies.size()); }
    int positionSize() const { return layout::kPositionsPerBody * bodyCount(); }   // q (layout.h)
    int velocitySize() const { return layout::kVelocitiesPerBody * bodyCount(); }  // v (layout.h)
};

struct CompileResult {
    std::shared_ptr<const Model> model;  // null when there are errors
    Diagnostics diagnostics;
};

// A serial no compiled model has had: for a model derived from another with other rows.
std::uint64_t newModelSerial();

// Validates the spec and compiles it, leaving out what is deactivated in the scene and, for an
// analysis, in its own set (engine/model/deactivation.h). Errors name the entity and the
// reason.
CompileResult compile(const SceneSpec& spec, std::optional<Analysis> analysis = std::nullopt);

// Part p's pose X_WP from its body's pose X_WB (a part on the ground: where it stands).
inline Transform partPose(const Model& model, std::size_t p, const Transform& X_WB) {
    const PartModel& part = model.parts[p];
    return part.body == kGround ? part.X_BP : X_WB * part.X_BP;
}

}  // namespace engine
