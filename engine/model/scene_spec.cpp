#include "engine/model/scene_spec.h"

#include "engine/expr/expression.h"
#include "engine/math/number_text.h"
#include "engine/model/compile_counts.h"
#include "engine/model/curve.h"
#include "engine/model/model.h"
#include "engine/model/state_functions.h"
#include "engine/model/surface.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <Eigen/Eigenvalues>

namespace engine {
namespace {

constexpr std::array<std::pair<JointType, std::string_view>, 15> kJointNames{{
    {JointType::Fixed, "fixed"},
    {JointType::Revolute, "revolute"},
    {JointType::Prismatic, "prismatic"},
    {JointType::Cylindrical, "cylindrical"},
    {JointType::Spherical, "spherical"},
    {JointType::Universal, "universal"},
    {JointType::Planar, "planar"},
    {JointType::Distance, "distance"},
    {JointType::PointOnLine, "pointOnLine"},
    {JointType::PointOnPlane, "pointOnPlane"},
    {JointType::ParallelAxes, "parallelAxes"},
    {JointType::PerpendicularAxes, "perpendicularAxes"},
    {JointType::PointOnCurve, "pointOnCurve"},
    {JointType::CurveOnCurve, "curveOnCurve"},
    {JointType::PointOnSurface, "pointOnSurface"},
}};

constexpr std::array<std::pair<SurfaceType, std::string_view>, 2> kSurfaceNames{{
    {SurfaceType::Expression, "expression"},
    {SurfaceType::Grid, "grid"},
}};

constexpr std::array<std::pair<CurveType, std::string_view>, 2> kCurveNames{{
    {CurveType::Spline, "spline"},
    {CurveType::Expression, "expression"},
}};

constexpr std::array<std::pair<ShapeRole, std::string_view>, 3> kShapeRoleNames{{
    {ShapeRole::Both, "both"},
    {ShapeRole::Visual, "visual"},
    {ShapeRole::Collision, "collision"},
}};
constexpr std::array<std::pair<ShapeType, std::string_view>, 7> kShapeNames{{
    {ShapeType::Box, "box"},
    {ShapeType::Sphere, "sphere"},
    {ShapeType::Cylinder, "cylinder"},
    {ShapeType::Capsule, "capsule"},
    {ShapeType::Cone, "cone"},
    {ShapeType::Mesh, "mesh"},
    {ShapeType::Plane, "plane"},
}};

constexpr std::array<std::pair<ForceType, std::string_view>, 10> kForceNames{{
    {ForceType::PointForce, "pointForce"},
    {ForceType::PointTorque, "pointTorque"},
    {ForceType::SpringDamper, "springDamper"},
    {ForceType::RotationalSpringDamper, "rotationalSpringDamper"},
    {ForceType::Bushing, "bushing"},
    {ForceType::JointController, "jointController"},
    {ForceType::ComputedTorque, "computedTorque"},
    {ForceType::LineForce, "lineForce"},
    {ForceType::JointForce, "jointForce"},
    {ForceType::Cable, "cable"},
}};

constexpr std::array<std::pair<CouplerType, std::string_view>, 4> kCouplerNames{{
    {CouplerType::Gear, "gear"},
    {CouplerType::RackPinion, "rackPinion"},
    {CouplerType::Screw, "screw"},
    {CouplerType::Linear, "linear"},
}};

constexpr std::array<std::pair<Analysis, std::string_view>, kAnalysisCount> kAnalysisNames{{
    {Analysis::Simulation, "simulate"},
    {Analysis::Kinematics, "kinematics"},
    {Analysis::Statics, "statics"},
    {Analysis::Modes, "modes"},
}};
constexpr std::array<std::pair<IntegratorType, std::string_view>, 6> kIntegratorNames{{
    {IntegratorType::SymplecticEuler, "symplecticEuler"},
    {IntegratorType::RungeKutta4, "rk4"},
    {IntegratorType::DormandPrince45, "dopri45"},
    {IntegratorType::ImplicitEuler, "implicitEuler"},
    {IntegratorType::TimeStepping, "timeStepping"},
    {IntegratorType::Trapezoidal, "trapezoidal"},
}};

constexpr std::array<std::pair<Formulation, std::string_view>, 3> kFormulationNames{{
    {Formulation::Auto, "auto"},
    {Formulation::Recursive, "recursive"},
    {Formulation::Maximal, "maximal"},
}};

template <class Table, class Enum>
std::string_view nameIn(const Table& table, Enum value) {
    for (const auto& [v, name] : table)
        if (v == value) return name;
    return "unknown";
}

template <class Enum, class Table>
std::optional<Enum> valueIn(const Table& table, std::string_view name) {
    for (const auto& [v, n] : table)
        if (n == name) return v;
    return std::nullopt;
}

// Names are referenced as "part.marker" in files and expressions, so they are identifiers:
// a letter or underscore, then letters, digits, '_' or '-'.
bool isValidName(std::string_view name) {
    if (name.empty() || name.size() > 128) return false;
    auto isAlpha = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    };
    auto isDigit = [](char c) { return c >= '0' && c <= '9'; };
    if (!isAlpha(name.front())) return false;
    for (char c : name)
        if (!isAlpha(c) && !isDigit(c) && c != '-') return false;
    return true;
}

// A message quotes names, references and expressions from the scene between single quotes:
// each quote is kept to 60 characters ("…" when cut), control characters shown as \xNN, so a
// 10 MB name or expression makes a one-line message.
std::string boundedQuotes(const std::string& message) {
    constexpr std::size_t kQuoted = 60;
    std::string out;
    out.reserve(std::min<std::size_t>(message.size(), 400));
    std::size_t quoted = 0;
    bool inQuote = false, cut = false;
    for (const char c : message) {
        if (c == '\'') {
            if (inQuote && cut) out += "…";
            inQuote = !inQuote;
            quoted = 0;
            cut = false;
            out += c;
            continue;
        }
        const bool continuation =
            (static_cast<unsigned char>(c) & 0xC0) == 0x80;  // inside a UTF-8 character
        if (inQuote && (cut || (!continuation && ++quoted > kQuoted))) {
            cut = true;
            continue;
        }
        if (static_cast<unsigned char>(c) < 0x20) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x",
                          static_cast<unsigned>(static_cast<unsigned char>(c)));
            out += hex;
        } else {
            out += c;
        }
    }
    if (inQuote && cut) out += "…";
    return out;
}

class Checker {
public:
    void error(std::string where, std::string message) {
        out_.push_back({Severity::Error, std::move(where), boundedQuotes(message)});
    }
    void warning(std::string where, std::string message) {
        out_.push_back({Severity::Warning, std::move(where), boundedQuotes(message)});
    }
    void name(const std::string& where, const std::string& name, std::string_view what) {
        if (!isValidName(name))
            error(where, std::string(what) + " name '" + name +
                             "' is not valid: use a letter or '_' first, then letters, digits, "
                             "'_' or '-' (at most 128 characters)");
    }
    void positive(const std::string& where, double value, std::string_view what) {
        if (!std::isfinite(value) || value <= 0.0)
            error(where,
                  std::string(what) + " must be a positive number, got " + numberText(value, 10));
    }
    Diagnostics take() { return std::move(out_); }

private:
    Diagnostics out_;
};

void checkInertia(Checker& check, const std::string& where, const Mat3& I) {
    if (!I.allFinite()) {
        check.error(where, "inertia contains a non-finite value");
        return;
    }
    if (!I.isApprox(I.transpose(), 1e-12)) {
        check.error(where, "inertia tensor must be symmetric");
        return;
    }
    const Eigen::SelfAdjointEigenSolver<Mat3> eig(I, Eigen::EigenvaluesOnly);
    const Vec3 m = eig.eigenvalues();  // ascending
    if (m(0) <= 0.0) {
        check.error(where,
                    "inertia tensor must be positive definite (smallest principal "
                    "moment is " +
                        numberText(m(0), 10) + " kg·m²)");
        return;
    }
    // A rigid body's principal moments obey the triangle inequality I1 + I2 >= I3.
    if (m(0) + m(1) < m(2) * (1.0 - 1e-9))
        check.error(where,
                    "principal moments of inertia violate the triangle inequality "
                    "(I1 + I2 >= I3): no rigid body has this inertia");
}

void checkShape(Checker& check, const std::string& where, const Shape& s) {
    switch (s.type) {
    case ShapeType::Box:
        for (int k = 0; k < 3; ++k)
            check.positive(where + "/size/" + std::to_string(k), s.size(k), "box edge length");
        break;
    case ShapeType::Sphere:
        check.positive(where + "/radius", s.radius, "sphere radius");
        break;
    case ShapeType::Mesh:
        if (!s.mesh || s.mesh->empty())
            check.error(where + "/file", "mesh '" + s.meshFile + "' has no triangles loaded");
        // A negative scale mirrors the mesh (robot descriptions draw left limbs so).
        for (int k = 0; k < 3; ++k)
            if (!std::isfinite(s.scale(k)) || s.scale(k) == 0.0)
                check.error(where + "/scale/" + std::to_string(k),
                            "mesh scale must be a non-zero number (negative mirrors), got " +
                                numberText(s.scale(k), 10));
        break;
    case ShapeType::Plane:
        break;
    case ShapeType::Cylinder:
    case ShapeType::Capsule:
    case ShapeType::Cone:
        check.positive(where + "/radius", s.radius, std::string(shapeTypeName(s.type)) + " radius");
        check.positive(where + "/length", s.length, std::string(shapeTypeName(s.type)) + " length");
        break;
    }
}

}  // namespace

std::string_view jointTypeName(JointType type) {
    return nameIn(kJointNames, type);
}
std::optional<JointType> jointTypeFromName(std::string_view name) {
    return valueIn<JointType>(kJointNames, name);
}
std::string_view curveTypeName(CurveType type) {
    return nameIn(kCurveNames, type);
}
std::optional<CurveType> curveTypeFromName(std::string_view name) {
    return valueIn<CurveType>(kCurveNames, name);
}
std::string_view surfaceTypeName(SurfaceType type) {
    return nameIn(kSurfaceNames, type);
}
std::optional<SurfaceType> surfaceTypeFromName(std::string_view name) {
    return valueIn<SurfaceType>(kSurfaceNames, name);
}
std::string_view shapeTypeName(ShapeType type) {
    return nameIn(kShapeNames, type);
}
std::optional<ShapeType> shapeTypeFromName(std::string_view name) {
    return valueIn<ShapeType>(kShapeNames, name);
}
std::string_view shapeRoleName(ShapeRole role) {
    return nameIn(kShapeRoleNames, role);
}
std::optional<ShapeRole> shapeRoleFromName(std::string_view name) {
    return valueIn<ShapeRole>(kShapeRoleNames, name);
}
std::string_view forceTypeName(ForceType type) {
    return nameIn(kForceNames, type);
}
std::optional<ForceType> forceTypeFromName(std::string_view name) {
    return valueIn<ForceType>(kForceNames, name);
}
std::string_view couplerTypeName(CouplerType type) {
    return nameIn(kCouplerNames, type);
}
std::optional<CouplerType> couplerTypeFromName(std::string_view name) {
    return valueIn<CouplerType>(kCouplerNames, name);
}
std::string_view contactSolverName(ContactSolverType type) {
    return type == ContactSolverType::Lemke ? "lemke" : "pgs";
}
std::string_view frictionModelName(FrictionModel model) {
    return model == FrictionModel::Cone ? "cone" : "box";
}

std::string outputSpacingProblem(const SolverSettings& st) {
    const double steps = st.outputSpacing() / st.stepSize;
    if (st.integrator == IntegratorType::DormandPrince45 || !std::isfinite(steps) ||
        (steps >= 0.5 && std::abs(steps - std::round(steps)) <= 1e-9 * steps))
        return "";
    return "output interval " + numberText(st.outputSpacing(), 10) +
           " s is not a whole number of steps of " + numberText(st.stepSize, 10) + " s (" +
           std::string(integratorName(st.integrator)) +
           " takes fixed steps and lands on every output time)";
}

std::string_view integratorName(IntegratorType type) {
    return nameIn(kIntegratorNames, type);
}
std::optional<IntegratorType> integratorFromName(std::string_view name) {
    return valueIn<IntegratorType>(kIntegratorNames, name);
}

std::string_view formulationName(Formulation formulation) {
    return nameIn(kFormulationNames, formulation);
}
std::optional<Formulation> formulationFromName(std::string_view name) {
    return valueIn<Formulation>(kFormulationNames, name);
}

std::string_view analysisName(Analysis analysis) {
    return nameIn(kAnalysisNames, analysis);
}
std::optional<Analysis> analysisFromName(std::string_view name) {
    return valueIn<Analysis>(kAnalysisNames, name);
}

const Part* SceneSpec::findPart(std::string_view name) const {
    for (const Part& part : parts)
        if (part.name == name) return &part;
    return nullptr;
}

const Joint* SceneSpec::findJoint(std::string_view name) const {
    for (const Joint& joint : joints)
        if (joint.name == name) return &joint;
    return nullptr;
}

const TableSpec* SceneSpec::findTable(std::string_view name) const {
    for (const TableSpec& table : tables)
        if (table.name == name) return &table;
    return nullptr;
}

std::vector<const MarkerRef*> ForceSpec::markerRefs() const {
    std::vector<const MarkerRef*> out;
    if (actsOnJoint(type)) return out;
    out.push_back(&markerI);
    if (type == ForceType::SpringDamper || type == ForceType::Bushing ||
        type == ForceType::LineForce || type == ForceType::Cable)
        out.push_back(&markerJ);
    if (type == ForceType::Cable)
        for (const CableVia& v : via) out.push_back(&v.marker);
    return out;
}

std::vector<MarkerRef*> ForceSpec::markerRefs() {
    std::vector<MarkerRef*> out;
    for (const MarkerRef* ref : std::as_const(*this).markerRefs())
        out.push_back(const_cast<MarkerRef*>(ref));
    return out;
}

bool ForceSpec::usesTables() const {
    if (!stiffnessTable.empty() || !dampingTable.empty()) return true;
    for (const auto* list : {&translationalStiffnessTables, &translationalDampingTables,
                             &rotationalStiffnessTables, &rotationalDampingTables})
        for (const std::string& name : *list)
            if (!name.empty()) return true;
    return false;
}

const Marker* SceneSpec::findMarker(const MarkerRef& ref) const {
    const Part* part = findPart(ref.part);
    if (!part) return nullptr;
    for (const Marker& marker : part->markers)
        if (marker.name == ref.marker) return &marker;
    return nullptr;
}

std::size_t SceneSpec::markerCount() const {
    std::size_t n = 0;
    for (const Part& part : parts) n += part.markers.size();
    return n;
}

void SceneSpec::placeParts(const std::vector<Transform>& poses) {
    for (std::size_t p = 0; p < parts.size() && p < poses.size(); ++p)
        if (!parts[p].ground) parts[p].X_WP = poses[p];
}

std::optional<std::string> SceneSpec::pointerOf(EntityId id) const {
    if (id == kNoEntity) return std::string();
    auto at = [](const char* list, std::size_t k) { return std::string(list) + std::to_string(k); };
    for (std::size_t p = 0; p < parts.size(); ++p) {
        if (parts[p].id == id) return at("/parts/", p);
        for (std::size_t m = 0; m < parts[p].markers.size(); ++m)
            if (parts[p].markers[m].id == id) return at("/parts/", p) + at("/markers/", m);
    }
    auto find = [&](const auto& items, const char* list) -> std::optional<std::string> {
        for (std::size_t k = 0; k < items.size(); ++k)
            if (items[k].id == id) return at(list, k);
        return std::nullopt;
    };
    if (auto p = find(joints, "/joints/")) return p;
    if (auto p = find(forces, "/forces/")) return p;
    if (auto p = find(motions, "/motions/")) return p;
    if (auto p = find(couplers, "/couplers/")) return p;
    return find(contact.pairs, "/contact/pairs/");
}

EntityId SceneSpec::entityAt(std::string_view pointer) const {
    // The pointer's tokens: "/parts/1/markers/0/name" → parts, 1, markers, 0, name.
    std::vector<std::string_view> tokens;
    while (!pointer.empty() && pointer.front() == '/') {
        pointer.remove_prefix(1);
        const std::size_t end = std::min(pointer.find('/'), pointer.size());
        tokens.push_back(pointer.substr(0, end));
        pointer.remove_prefix(end);
    }
    auto index = [&](std::size_t k, std::size_t size) -> std::optional<std::size_t> {
        if (k >= tokens.size() || tokens[k].empty() || tokens[k].size() > 9) return std::nullopt;
        std::size_t n = 0;
        for (const char c : tokens[k]) {
            if (c < '0' || c > '9') return std::nullopt;
            n = 10 * n + static_cast<std::size_t>(c - '0');
        }
        if (n >= size) return std::nullopt;
        return n;
    };
    if (tokens.empty()) return kNoEntity;
    const std::string_view list = tokens[0];
    if (list == "parts") {
        const auto p = index(1, parts.size());
        if (!p) return kNoEntity;
        const Part& part = parts[*p];
        if (tokens.size() > 2 && tokens[2] == "markers")
            if (const auto m = index(3, part.markers.size())) return part.markers[*m].id;
        return part.id;
    }
    if (list == "joints")
        if (const auto j = index(1, joints.size())) return joints[*j].id;
    if (list == "forces")
        if (const auto f = index(1, forces.size())) return forces[*f].id;
    if (list == "motions")
        if (const auto m = index(1, motions.size())) return motions[*m].id;
    if (list == "couplers")
        if (const auto c = index(1, couplers.size())) return couplers[*c].id;
    if (list == "contact" && tokens.size() > 1 && tokens[1] == "pairs")
        if (const auto c = index(2, contact.pairs.size())) return contact.pairs[*c].id;
    return kNoEntity;
}

namespace {

// An expression must parse and be a number where the run starts (sqrt(-1) or 1/0 would
// otherwise reach the solver as NaN). Later poles are caught when the run reaches them.
void checkExpression(Checker& check, const std::string& where, const std::string& text,
                     const SceneSpec& spec) {
    std::string error;
    const std::optional<Expression> e =
        Expression::parseWithConstants(text, error, designConstants(spec), {}, sceneTables(spec));
    if (!e) {
        if (std::string bad = badTableCall(spec, text); !bad.empty()) error = bad;
        // A measure of the state where only time is known: said as such.
        std::string ignored;
        if (const auto split = splitStateText(text, {}, ignored); split && !split->calls.empty())
            error = "'" + std::string(measureKindName(split->calls.front().kind)) +
                    "' measures the mechanism's state, which this expression cannot use: it is "
                    "a function of time only (state measures are for forces and variables)";
        check.error(where, "bad expression '" + text + "': " + error);
        return;
    }
    if (const double v = e->eval(0.0); !std::isfinite(v))
        check.error(where, "expression '" + text + "' is " +
                               (std::isnan(v) ? "not a number" : "infinite") + " at t = 0 s");
}

// An expression of time and of the scene's state (its measures and variables).
// `ofTimeAlone`: what an expression that must not read the state is (a computed-torque
// target: its rate and acceleration are taken from it, and its q̈_d must not hang on the state
// it acts on), or null.
void checkStateExpression(Checker& check, const std::string& where, const SceneSpec& spec,
                          const std::string& text, const char* ofTimeAlone = nullptr) {
    std::string error;
    StateText split;
    const std::optional<Expression> e = parseStateExpression(spec, text, split, error);
    if (!e) {
        check.error(where, "bad expression '" + text + "': " + error);
        return;
    }
    if (split.usesState() && ofTimeAlone) {
        check.error(where, std::string(ofTimeAlone) + " must be a function of time alone: '" +
                               text + "' reads the mechanism's state");
        return;
    }
    if (split.usesState()) {  // its value needs a state: checked as it runs
        if (std::string mismatch = stateUnitMismatch(spec, text); !mismatch.empty())
            check.warning(where, "expression '" + text + "' " + mismatch +
                                     ": units that do not match (a coefficient missing, or "
                                     "another measure meant?)");
        return;
    }
    if (const double v = e->eval(0.0); !std::isfinite(v))
        check.error(where, "expression '" + text + "' is " +
                               (std::isnan(v) ? "not a number" : "infinite") + " at t = 0 s");
}

// What a sensor acts on: a held variable it sets (with an expression of the state), a force or a
// motion it switches, each in the model.
void checkSensorAction(Checker& check, const std::string& at, const SceneSpec& spec,
                       const SensorSpec& sensor) {
    switch (sensor.action) {
    case SensorAction::Stop:
    case SensorAction::Mark:
        return;
    case SensorAction::Set: {
        const auto v = std::find_if(spec.variables.begin(), spec.variables.end(),
                                    [&](const VariableSpec& x) { return x.name == sensor.target; });
        if (v == spec.variables.end())
            check.error(at + "/target", "no variable named '" + sensor.target + "' to set");
        else if (!v->initial)
            check.error(at + "/target",
                        "variable '" + sensor.target +
                            "' is an expression: a sensor sets a held variable, one given "
                            "'initial' instead of 'expression'");
        checkStateExpression(check, at + "/to", spec, sensor.to);
        return;
    }
    case SensorAction::SwitchOn:
    case SensorAction::SwitchOff: {
        const auto force =
            std::find_if(spec.forces.begin(), spec.forces.end(),
                         [&](const ForceSpec& f) { return f.name == sensor.target; });
        const auto motion =
            std::find_if(spec.motions.begin(), spec.motions.end(),
                         [&](const MotionSpec& m) { return m.name == sensor.target; });
        const bool isForce = force != spec.forces.end(), isMotion = motion != spec.motions.end();
        if (!isForce && !isMotion)
            check.error(at + "/target",
                        "no force or motion named '" + sensor.target + "' to switch " +
                            (sensor.action == SensorAction::SwitchOn ? "on" : "off"));
        else if (isForce && isMotion)
            check.error(at + "/target",
                        "'" + sensor.target + "' names both a force and a motion: rename one");
        return;
    }
    }
}

}  // namespace

std::string_view sensorActionName(SensorAction action) {
    switch (action) {
    case SensorAction::Stop:
        return "stop";
    case SensorAction::Mark:
        return "mark";
    case SensorAction::Set:
        return "set";
    case SensorAction::SwitchOn:
        return "switchOn";
    case SensorAction::SwitchOff:
        return "switchOff";
    }
    return "stop";
}

std::vector<JointAxis> jointAxes(JointType type) {
    switch (type) {
    case JointType::Revolute:
        return {JointAxis::Rotation};
    case JointType::Prismatic:
        return {JointAxis::Translation};
    case JointType::Cylindrical:
        return {JointAxis::Rotation, JointAxis::Translation};
    case JointType::PointOnCurve:
    case JointType::CurveOnCurve:
        return {JointAxis::Translation};
    case JointType::PointOnSurface:
        return {JointAxis::Translation, JointAxis::Translation};
    case JointType::Spherical:
        return {JointAxis::Rotation};  // the cone angle between the z axes
    case JointType::Universal:
        return {JointAxis::Rotation, JointAxis::Rotation};  // about J's pin, about I's
    case JointType::Planar:
        return {JointAxis::Translation, JointAxis::Translation, JointAxis::Rotation};
    default:
        return {};
    }
}

std::string_view jointAxisName(JointAxis axis) {
    return axis == JointAxis::Rotation ? "angle" : "slide";
}

bool jointHoldsLengths(JointType type) {
    for (const Primitive& p : jointPrimitives(type, 1.0))
        if (p.type != PrimitiveType::Dot1) return true;
    return false;
}

bool jointHoldsAngles(JointType type) {
    for (const Primitive& p : jointPrimitives(type, 1.0))
        if (p.type == PrimitiveType::Dot1) return true;
    return false;
}

namespace {

// A soft joint's compliance: finite, not negative, said one way (frequency or stiffness), and
// acting on equations the joint has.
void checkCompliance(Checker& check, const std::string& at, const Joint& joint) {
    const JointCompliance& c = joint.compliance;
    const std::pair<double, const char*> values[] = {{c.frequency, "frequency"},
                                                     {c.dampingRatio, "dampingRatio"},
                                                     {c.stiffness, "stiffness"},
                                                     {c.damping, "damping"},
                                                     {c.rotationalStiffness, "rotationalStiffness"},
                                                     {c.rotationalDamping, "rotationalDamping"}};
    bool bad = false;
    for (const auto& [value, key] : values)
        if (!std::isfinite(value) || value < 0.0) {
            check.error(at + "/" + key, std::string("soft joint ") + key +
                                            " must be zero or positive, got " +
                                            numberText(value, 10));
            bad = true;
        }
    if (bad || !c.soft()) return;
    if (c.frequency > 0.0 && (c.stiffness > 0.0 || c.damping > 0.0 || c.rotationalStiffness > 0.0 ||
                              c.rotationalDamping > 0.0)) {
        check.error(at, "joint '" + joint.name +
                            "' is made soft twice: give either a frequency (with its damping "
                            "ratio) or stiffness and damping, not both");
        return;
    }
    const std::string type(jointTypeName(joint.type));
    if (!jointHoldsLengths(joint.type) && (c.stiffness > 0.0 || c.damping > 0.0))
        check.warning(at + "/stiffness", "joint '" + joint.name + "' (" + type +
                                             ") holds no lengths: its stiffness and damping act "
                                             "on nothing (rotationalStiffness acts on its angles)");
    if (!jointHoldsAngles(joint.type) && (c.rotationalStiffness > 0.0 || c.rotationalDamping > 0.0))
        check.warning(at + "/rotationalStiffness",
                      "joint '" + joint.name + "' (" + type +
                          ") holds no angles: its rotational stiffness and damping act on nothing "
                          "(stiffness acts on its lengths)");
}

// A joint's end stops: on coordinates the joint has, finite numbers in their ranges, the lower
// end below the upper one. Paths name the stop as the file spells it: the object itself for a
// joint of one coordinate, the list's entry for a joint of several.
void checkLimits(Checker& check, const std::string& at, const Joint& joint) {
    if (joint.limits.empty()) return;
    constexpr double kInfinity = std::numeric_limits<double>::infinity();
    const std::vector<JointAxis> axes = jointAxes(joint.type);
    const std::string type(jointTypeName(joint.type));
    if (axes.empty()) {
        check.error(at, "joint '" + joint.name + "' (" + type +
                            ") has no coordinate to limit: limits go on revolute, prismatic, "
                            "cylindrical, universal, planar, spherical, point-on-curve and "
                            "point-on-surface joints");
        return;
    }
    if (joint.type == JointType::Spherical) {
        // A ball joint's stop is a cone about J's z axis that I's z axis stays within.
        const JointLimit& l = joint.limits[0];
        if (joint.limits.size() > 1 || l.lower > -kInfinity || !(l.upper > 0.0 && l.upper <= kPi))
            check.error(at, "joint '" + joint.name +
                                "' (spherical): a ball joint's stop is a cone, the largest angle "
                                "between the z axes of its markers: give it as 'upper', above 0 "
                                "and at most π rad, without 'lower'");
    }
    if (joint.type == JointType::CurveOnCurve) {
        // A cam's only stop is its contact: its restitution and compliance, when it may lift off.
        const JointLimit& l = joint.limits[0];
        if (joint.limits.size() > 1 || l.limited() || !joint.liftOff)
            check.error(at, "joint '" + joint.name +
                                "' (curveOnCurve) has no ends to stop at: its contact is its "
                                "stop when the follower may lift off ('liftOff': true), and its "
                                "limits give only that contact's restitution and compliance");
    }
    if (joint.limits.size() > axes.size()) {
        check.error(at, "joint '" + joint.name + "' (" + type + ") has " +
                            std::to_string(axes.size()) + " coordinate" +
                            (axes.size() == 1 ? "" : "s") + ", got " +
                            std::to_string(joint.limits.size()) + " limits");
        return;
    }
    for (std::size_t c = 0; c < joint.limits.size(); ++c) {
        const JointLimit& l = joint.limits[c];
        const std::string where = axes.size() == 1 ? at : at + "/" + std::to_string(c);
        const bool angle = axes[c] == JointAxis::Rotation;
        const char* unit = angle ? "rad" : "m";
        bool ends = true;
        for (auto [value, key] : {std::pair{l.lower, "lower"}, std::pair{l.upper, "upper"}})
            if (std::isnan(value) || (key == std::string_view("lower") && value == kInfinity) ||
                (key == std::string_view("upper") && value == -kInfinity)) {
                check.error(where + "/" + key, std::string("the ") + key +
                                                   " stop must be a number (" + unit + "), got " +
                                                   numberText(value, 10));
                ends = false;
            }
        if (ends && l.lower > l.upper)
            check.error(where, "joint '" + joint.name + "': the lower stop " +
                                   numberText(l.lower, 10, unit) + " is above the upper stop " +
                                   numberText(l.upper, 10, unit));
        if (!(l.restitution >= 0.0 && l.restitution <= 1.0))
            check.error(where + "/restitution",
                        "restitution must be from 0 to 1, got " + numberText(l.restitution, 10));
        for (auto [value, key] :
             {std::pair{l.frequency, "frequency"}, std::pair{l.dampingRatio, "dampingRatio"}})
            if (!std::isfinite(value) || value < 0.0)
                check.error(
                    where + "/" + key,
                    std::string(key) + " must be zero or positive, got " + numberText(value, 10));
    }
}

// The curves of a joint on curves: each one a curve (Curve::make says why not), none given to
// a joint of another type.
void checkCurves(Checker& check, const std::string& at, const Joint& joint) {
    const bool onCurve = joint.type == JointType::PointOnCurve;
    const bool cam = joint.type == JointType::CurveOnCurve;
    const std::string type(jointTypeName(joint.type));
    auto one = [&](const CurveSpec& spec, const char* key) {
        if (spec.empty()) {
            check.error(at + "/" + key, "joint '" + joint.name + "' (" + type + ") needs its '" +
                                            key +
                                            "': a spline through points or x(s), y(s), "
                                            "z(s) as expressions");
            return;
        }
        std::string error, where;
        if (!Curve::make(spec, error, where))
            check.error(at + "/" + key + (where.empty() ? "" : "/" + where),
                        "joint '" + joint.name + "': " + error);
    };
    if (onCurve || cam) one(joint.curve, "curve");
    if (cam) one(joint.follower, "follower");
    if (!onCurve && !cam && !joint.curve.empty())
        check.error(at + "/curve", "joint '" + joint.name + "' (" + type +
                                       ") has no curve: curves go on pointOnCurve and "
                                       "curveOnCurve joints");
    if (!cam && !joint.follower.empty())
        check.error(at + "/follower", "joint '" + joint.name + "' (" + type +
                                          ") has no follower: a follower's contour goes on a "
                                          "curveOnCurve joint");
    const bool onSurface = joint.type == JointType::PointOnSurface;
    if (onSurface) {
        if (joint.surface.empty()) {
            check.error(at + "/surface",
                        "joint '" + joint.name +
                            "' (pointOnSurface) needs its 'surface': x(u, v), "
                            "y(u, v), z(u, v) as expressions or a grid of heights");
        } else {
            std::string error, where;
            if (!Surface::make(joint.surface, error, where))
                check.error(at + "/surface" + (where.empty() ? "" : "/" + where),
                            "joint '" + joint.name + "': " + error);
        }
    } else if (!joint.surface.empty()) {
        check.error(at + "/surface", "joint '" + joint.name + "' (" + type +
                                         ") has no surface: surfaces go on pointOnSurface joints");
    }
    if (!cam && joint.liftOff)
        check.error(at + "/liftOff", "joint '" + joint.name + "' (" + type +
                                         ") cannot lift off: only a cam's follower "
                                         "(curveOnCurve) can");
}

// A joint's friction: on coordinates the joint has, finite numbers not below zero, the
// lever each kind of coordinate has (a radius on an angle, a length on a slide).
void checkFriction(Checker& check, const std::string& at, const Joint& joint) {
    if (joint.friction.empty()) return;
    const std::vector<JointAxis> axes = jointAxes(joint.type);
    const std::string type(jointTypeName(joint.type));
    if (axes.empty()) {
        check.error(at, "joint '" + joint.name + "' (" + type +
                            ") has no coordinate for friction: friction goes on revolute, "
                            "prismatic, cylindrical and spherical joints");
        return;
    }
    if (joint.type == JointType::PointOnCurve || joint.type == JointType::CurveOnCurve ||
        joint.type == JointType::PointOnSurface || joint.type == JointType::Universal ||
        joint.type == JointType::Planar) {
        check.error(at, "joint '" + joint.name + "' (" + type +
                            "): friction goes on revolute, prismatic, cylindrical and spherical "
                            "joints");
        return;
    }
    if (joint.friction.size() > axes.size()) {
        check.error(at, "joint '" + joint.name + "' (" + type + ") has " +
                            std::to_string(axes.size()) + " coordinate" +
                            (axes.size() == 1 ? "" : "s") + ", got friction for " +
                            std::to_string(joint.friction.size()));
        return;
    }
    for (std::size_t c = 0; c < joint.friction.size(); ++c) {
        const JointFriction& f = joint.friction[c];
        const std::string where = axes.size() == 1 ? at : at + "/" + std::to_string(c);
        for (auto [value, key] : {std::pair{f.coefficient, "coefficient"},
                                  std::pair{f.radius, "radius"}, std::pair{f.length, "length"},
                                  std::pair{f.preload, "preload"}, std::pair{f.viscous, "viscous"}})
            if (!std::isfinite(value) || value < 0.0)
                check.error(
                    where + "/" + key,
                    std::string(key) + " must be zero or positive, got " + numberText(value, 10));
        if (!std::isfinite(f.staticCoefficient) ||
            (f.staticCoefficient < 0.0 && f.staticCoefficient != -1.0))
            check.error(where + "/staticCoefficient",
                        "staticCoefficient must be zero or positive, got " +
                            numberText(f.staticCoefficient, 10));
        const bool angle = axes[c] == JointAxis::Rotation;
        if (angle && f.length > 0.0)
            check.error(where + "/length", "joint '" + joint.name +
                                               "': a length is the lever of a slide's friction; "
                                               "an angle's is its pin radius ('radius')");
        if (!angle && f.radius > 0.0)
            check.error(where + "/radius", "joint '" + joint.name +
                                               "': a radius is the lever of an angle's friction; "
                                               "a slide's is its bearing length ('length')");
        if (angle && f.radius == 0.0 && (f.coefficient > 0.0 || f.breakaway() > 0.0))
            check.warning(where + "/radius",
                          "joint '" + joint.name +
                              "': a friction coefficient on an angle needs the pin radius "
                              "('radius') to make a torque; without it only the preload acts");
        if (f.staticCoefficient >= 0.0 && f.staticCoefficient < f.coefficient)
            check.warning(where + "/staticCoefficient",
                          "joint '" + joint.name + "': the static coefficient " +
                              numberText(f.staticCoefficient, 10) + " is below the dynamic one " +
                              numberText(f.coefficient, 10) +
                              " (breakaway usually takes more than sliding)");
    }
}

}  // namespace

std::atomic<std::uint64_t> detail::validationCount{0};

Diagnostics validate(const SceneSpec& spec) {
    detail::validationCount.fetch_add(1, std::memory_order_relaxed);
    Checker check;

    if (!spec.gravity.allFinite()) check.error("/gravity", "gravity must be finite");

    // Parts, their shapes and markers.
    std::set<std::string> partNames;
    std::string firstGround;
    for (std::size_t i = 0; i < spec.parts.size(); ++i) {
        const Part& part = spec.parts[i];
        const std::string at = "/parts/" + std::to_string(i);
        check.name(at + "/name", part.name, "part");
        if (!partNames.insert(part.name).second)
            check.error(at + "/name", "duplicate part name '" + part.name + "'");
        if (part.frameMotion) {
            if (part.ground)
                check.error(at + "/frameMotion",
                            "the ground cannot move: make another part the moving frame and "
                            "build the mechanism on it");
            for (int c = 0; c < 3; ++c) {
                checkExpression(check, at + "/frameMotion/translation/" + std::to_string(c),
                                part.frameMotion->translation[c], spec);
                checkExpression(check, at + "/frameMotion/rotation/" + std::to_string(c),
                                part.frameMotion->rotation[c], spec);
            }
            // Its reactions are channels of its name, as a joint's are.
            for (std::size_t k = 0; k < spec.joints.size(); ++k)
                if (spec.joints[k].name == part.name)
                    check.error("/joints/" + std::to_string(k) + "/name",
                                "joint '" + part.name +
                                    "' has the name of a moving frame (their reactions would "
                                    "share channels): rename one");
        }
        if (part.ground) {
            if (!firstGround.empty())
                check.error(at + "/ground",
                            "only one part can be ground; '" + firstGround + "' already is");
            else
                firstGround = part.name;
        } else if (part.density) {
            check.positive(at + "/density", *part.density, "density (kg/m³)");
            if (part.shapes.empty())
                check.error(at + "/density",
                            "part '" + part.name +
                                "' has a density but no geometry to compute its mass from");
            else if (std::none_of(part.shapes.begin(), part.shapes.end(),
                                  [](const Shape& s) { return s.collides(); }))
                check.error(at + "/density",
                            "part '" + part.name +
                                "' has a density but only visual shapes, which are drawn and "
                                "weigh nothing: give a shape role 'both' or 'collision', or "
                                "the part a mass and inertia");
            for (std::size_t k = 0; k < part.shapes.size(); ++k) {
                const Shape& shape = part.shapes[k];
                if (shape.collides() && shape.type == ShapeType::Mesh && shape.mesh &&
                    !shape.mesh->empty() &&
                    (!shape.mesh->isClosed() || shape.mesh->signedVolume() <= 0.0))
                    check.error(
                        at + "/geometry/" + std::to_string(k) + "/file",
                        "mesh '" + shape.meshFile +
                            "' does not enclose a volume (open, or its triangles face "
                            "inwards): give the part a mass and inertia instead of a density");
            }
        } else {
            check.positive(at + "/mass", part.mass, "part mass (kg)");
            checkInertia(check, at + "/inertia", part.I_Pcm_P);
        }
        if (!part.p_PPcm.allFinite()) check.error(at + "/centerOfMass", "must be finite");
        if (!part.X_WP.p.allFinite() || !part.X_WP.R.coeffs().allFinite())
            check.error(at + "/position", "initial pose must be finite");
        if (!part.v_WPo_W.allFinite() || !part.w_WP_W.allFinite())
            check.error(at + "/velocity", "initial velocity must be finite");

        for (std::size_t s = 0; s < part.shapes.size(); ++s) {
            checkShape(check, at + "/geometry/" + std::to_string(s), part.shapes[s]);
            if (part.shapes[s].type == ShapeType::Plane && !part.ground)
                check.error(at + "/geometry/" + std::to_string(s),
                            "a plane is infinite: only the ground part can have one (part '" +
                                part.name + "')");
        }
        if (!std::isfinite(part.material.friction) || part.material.friction < 0.0)
            check.error(at + "/material/friction",
                        "friction coefficient must be zero or positive, got " +
                            numberText(part.material.friction, 10));
        if (!std::isfinite(part.material.restitution) || part.material.restitution < 0.0 ||
            part.material.restitution > 1.0)
            check.error(at + "/material/restitution",
                        "restitution must be between 0 and 1, got " +
                            numberText(part.material.restitution, 10));

        std::set<std::string> markerNames;
        for (std::size_t m = 0; m < part.markers.size(); ++m) {
            const Marker& marker = part.markers[m];
            const std::string mat = at + "/markers/" + std::to_string(m);
            check.name(mat + "/name", marker.name, "marker");
            if (!markerNames.insert(marker.name).second)
                check.error(mat + "/name", "duplicate marker name '" + marker.name + "' on part '" +
                                               part.name + "'");
        }
    }

    // Joints: unique names, markers that exist, on two different parts. Markers are looked
    // up by "part.marker" in a map so large mechanisms validate in O(n log n).
    std::map<std::string, const Marker*, std::less<>> markerByRef;
    for (const Part& part : spec.parts)
        for (const Marker& marker : part.markers)
            markerByRef.emplace(part.name + "." + marker.name, &marker);
    auto findMarker = [&](const MarkerRef& ref) -> const Marker* {
        const auto it = markerByRef.find(ref.text());
        return it == markerByRef.end() ? nullptr : it->second;
    };
    std::set<std::string> jointNames;
    for (std::size_t k = 0; k < spec.joints.size(); ++k) {
        const Joint& joint = spec.joints[k];
        const std::string at = "/joints/" + std::to_string(k);
        check.name(at + "/name", joint.name, "joint");
        if (!jointNames.insert(joint.name).second)
            check.error(at + "/name", "duplicate joint name '" + joint.name + "'");
        const Marker* mi = findMarker(joint.markerI);
        const Marker* mj = findMarker(joint.markerJ);
        if (!mi)
            check.error(at + "/markerI",
                        "no marker '" + joint.markerI.text() +
                            "' (expected \"part.marker\" naming an existing marker)");
        if (!mj)
            check.error(at + "/markerJ",
                        "no marker '" + joint.markerJ.text() +
                            "' (expected \"part.marker\" naming an existing marker)");
        if (mi && mj && joint.markerI.part == joint.markerJ.part)
            check.error(at, "joint '" + joint.name + "' connects two markers of the same part '" +
                                joint.markerI.part + "'");
        if (joint.type == JointType::Distance)
            check.positive(at + "/length", joint.length, "distance joint length (m)");
        checkCompliance(check, at + "/soft", joint);
        checkCurves(check, at, joint);
        checkLimits(check, at + "/limits", joint);
        checkFriction(check, at + "/friction", joint);
    }

    // Force elements.
    std::set<std::string> forceNames;
    for (std::size_t k = 0; k < spec.forces.size(); ++k) {
        const ForceSpec& force = spec.forces[k];
        const std::string at = "/forces/" + std::to_string(k);
        check.name(at + "/name", force.name, "force");
        if (!forceNames.insert(force.name).second)
            check.error(at + "/name", "duplicate force name '" + force.name + "'");
        const bool twoMarkers = force.type == ForceType::SpringDamper ||
                                force.type == ForceType::Bushing ||
                                force.type == ForceType::LineForce;
        const bool onJoint = actsOnJoint(force.type);
        if (force.type == ForceType::Cable) {
            // Its points, I, the via points, J: markers of the scene; a segment between two
            // markers of one part is fixed, but a cable wholly on one part does nothing.
            const std::size_t n = force.via.size() + 2;
            std::set<std::string> parts;
            for (std::size_t p = 0; p < n; ++p) {
                const MarkerRef& ref = p == 0       ? force.markerI
                                       : p == n - 1 ? force.markerJ
                                                    : force.via[p - 1].marker;
                if (!findMarker(ref))
                    check.error(at + "/points/" + std::to_string(p),
                                "no marker '" + ref.text() + "'");
                parts.insert(ref.part);
            }
            // Its pulleys: a radius, and a turning pulley's joint about its axis.
            for (std::size_t p = 0; p < force.via.size(); ++p) {
                const CableVia& v = force.via[p];
                const std::string where = at + "/points/" + std::to_string(p + 1);
                if (!v.pulley) continue;
                if (!std::isfinite(v.radius) || v.radius <= 0.0)
                    check.error(where + "/radius", "a pulley's radius must be positive, it is " +
                                                       numberText(v.radius) + " m");
                if (!std::isfinite(v.friction) || v.friction < 0.0)
                    check.error(where + "/friction",
                                "a pulley's friction must be zero or positive, it is " +
                                    numberText(v.friction));
                else if (v.friction > 0.0 && !v.joint.empty())
                    check.error(where + "/friction",
                                "pulley '" + v.marker.text() + "' turns on joint '" + v.joint +
                                    "' with the cable, which grips it: friction is for a pulley "
                                    "that does not turn");
                if (v.joint.empty()) continue;
                const Joint* joint = spec.findJoint(v.joint);
                if (!joint) {
                    check.error(where + "/joint", "no joint '" + v.joint + "'");
                    continue;
                }
                if (joint->type != JointType::Revolute && joint->type != JointType::Cylindrical) {
                    check.error(where + "/joint", "pulley '" + v.marker.text() +
                                                      "' turns on a revolute or cylindrical "
                                                      "joint; '" +
                                                      v.joint + "' is neither");
                    continue;
                }
                const bool onI = joint->markerI.part == v.marker.part;
                if (!onI && joint->markerJ.part != v.marker.part) {
                    check.error(where + "/joint", "joint '" + v.joint + "' does not hold part '" +
                                                      v.marker.part + "', which pulley '" +
                                                      v.marker.text() + "' is on");
                    continue;
                }
                const Marker* pulley = findMarker(v.marker);
                const Marker* own = findMarker(onI ? joint->markerI : joint->markerJ);
                if (pulley && own &&
                    std::abs((pulley->X_PM.R * Vec3::UnitZ()).dot(own->X_PM.R * Vec3::UnitZ())) <
                        1.0 - 1e-9)
                    check.error(where + "/joint", "pulley '" + v.marker.text() +
                                                      "' turns about its marker's z axis, "
                                                      "which is not joint '" +
                                                      v.joint + "''s axis");
            }
            if (parts.size() == 1)
                check.error(at + "/points", "cable '" + force.name +
                                                "' runs between markers of one part '" +
                                                force.markerI.part + "' only: it pulls nothing");
            if (!std::isfinite(force.freeLength) || force.freeLength < 0.0)
                check.error(at + "/freeLength", "free length must be zero or positive");
            if (force.slack && force.preload < 0.0)
                check.error(at + "/preload",
                            "a slack cable's preload must be zero or positive: a rope pushes "
                            "nothing");
            if (force.inextensible) {
                // A rope that cannot stretch: its tension is what holds its length, nothing
                // else; each span a row of the contact problem on at most two moving parts.
                const std::string why =
                    ": an inextensible cable's tension is whatever holds "
                    "its length (remove it, or make the cable elastic)";
                if (force.stiffness != 0.0 || !force.stiffnessTable.empty())
                    check.error(at + "/stiffness", "an inextensible cable has no stiffness" + why);
                if (force.damping != 0.0 || !force.dampingTable.empty())
                    check.error(at + "/damping", "an inextensible cable has no damping" + why);
                if (force.preload != 0.0)
                    check.error(at + "/preload", "an inextensible cable has no preload" + why);
                if (!force.slack)
                    check.error(at + "/slack",
                                "an inextensible cable is a rope: it goes slack and pushes "
                                "nothing ('slack' must stay true)");
                std::set<std::string> moving;
                auto spanEnds = [&](std::size_t p) {
                    if (moving.size() > 2) {
                        std::string names;
                        for (const std::string& m : moving)
                            names += (names.empty() ? "'" : ", '") + m + "'";
                        check.error(at + "/points",
                                    "inextensible cable '" + force.name +
                                        "': its span ending at "
                                        "point " +
                                        std::to_string(p) + " pulls " +
                                        std::to_string(moving.size()) + " moving parts (" + names +
                                        "); an inextensible span pulls at most two (cut it with a "
                                        "pulley that turns, or make the cable elastic)");
                    }
                    moving.clear();
                };
                for (std::size_t p = 0; p < n; ++p) {
                    const MarkerRef& ref = p == 0       ? force.markerI
                                           : p == n - 1 ? force.markerJ
                                                        : force.via[p - 1].marker;
                    const Part* part = spec.findPart(ref.part);
                    if (part && !part->ground) moving.insert(ref.part);
                    if (p > 0 && p + 1 < n) {
                        const CableVia& v = force.via[p - 1];
                        if (v.pulley && v.friction > 0.0)
                            check.error(at + "/points/" + std::to_string(p) + "/friction",
                                        "an inextensible cable over a pulley with friction is "
                                        "not modelled: make the cable elastic (stiffness) to "
                                        "let it slip with the capstan's ratio");
                        if (v.pulley && !v.joint.empty()) {
                            spanEnds(p);
                            if (part && !part->ground) moving.insert(ref.part);
                        }
                    }
                }
                spanEnds(n - 1);
            }
        } else if (!onJoint && !findMarker(force.markerI)) {
            check.error(at + (twoMarkers ? "/markerI" : "/marker"),
                        "no marker '" + force.markerI.text() + "'");
        }
        if (twoMarkers) {
            if (!findMarker(force.markerJ))
                check.error(at + "/markerJ", "no marker '" + force.markerJ.text() + "'");
            else if (force.markerI.part == force.markerJ.part)
                check.error(at, "force '" + force.name +
                                    "' connects two markers of the same part '" +
                                    force.markerI.part + "'");
        }
        if (force.type == ForceType::PointForce || force.type == ForceType::PointTorque) {
            for (int c = 0; c < 3; ++c) {
                checkStateExpression(check, at + "/components/" + std::to_string(c), spec,
                                     force.components[c]);
            }
        }
        if (force.type == ForceType::LineForce || force.type == ForceType::JointForce)
            checkStateExpression(check, at + "/magnitude", spec, force.components[0]);
        if (force.type == ForceType::JointController)
            checkStateExpression(check, at + "/target", spec, force.components[0]);
        if (force.type == ForceType::ComputedTorque) {
            checkStateExpression(check, at + "/target", spec, force.components[0],
                                 "a computed-torque target");
            const Joint* joint = spec.findJoint(force.joint);
            if (joint && joint->type != JointType::Revolute && joint->type != JointType::Prismatic)
                check.error(at + "/joint",
                            "computed torque controls the revolute and prismatic joints of a tree; "
                            "joint '" +
                                force.joint + "' is " + std::string(jointTypeName(joint->type)));
            for (const MotionSpec& motion : spec.motions)
                if (force.active && motion.active && motion.joint == force.joint)
                    check.error(at + "/joint", "joint '" + force.joint + "' is driven by motion '" +
                                                   motion.name +
                                                   "': its coordinate is not free to control");
            for (std::size_t e = 0; e < k; ++e)
                if (spec.forces[e].type == ForceType::ComputedTorque && spec.forces[e].active &&
                    force.active && spec.forces[e].joint == force.joint)
                    check.error(at + "/joint", "joint '" + force.joint +
                                                   "' has two computed-torque controllers ('" +
                                                   spec.forces[e].name + "' and '" + force.name +
                                                   "')");
        }
        if (isJointServo(force.type) || force.type == ForceType::JointForce) {
            if (!std::isfinite(force.maxEffort) || force.maxEffort < 0.0)
                check.error(at + "/maxEffort",
                            "maximum effort must be zero (no limit) or positive, got " +
                                numberText(force.maxEffort, 10));
            const Joint* joint = spec.findJoint(force.joint);
            if (!joint) {
                check.error(at + "/joint", "no joint '" + force.joint + "'");
            } else {
                const bool rotates =
                    joint->type == JointType::Revolute || joint->type == JointType::Cylindrical;
                const bool slides =
                    joint->type == JointType::Prismatic || joint->type == JointType::Cylindrical;
                if ((force.axis == JointAxis::Rotation && !rotates) ||
                    (force.axis == JointAxis::Translation && !slides))
                    check.error(
                        at + "/axis",
                        "joint '" + force.joint + "' (" + std::string(jointTypeName(joint->type)) +
                            ") has no " +
                            (force.axis == JointAxis::Rotation ? "rotation" : "translation") +
                            (force.type == ForceType::JointForce ? " coordinate to act on"
                                                                 : " coordinate to control"));
            }
        }
        if (force.type == ForceType::RotationalSpringDamper) {
            const Joint* joint = spec.findJoint(force.joint);
            if (!joint)
                check.error(at + "/joint", "no joint '" + force.joint + "'");
            else if (joint->type != JointType::Revolute && joint->type != JointType::Cylindrical)
                check.error(at + "/joint",
                            "a rotational spring-damper needs a revolute or "
                            "cylindrical joint; '" +
                                force.joint + "' is " + std::string(jointTypeName(joint->type)));
        }
        const bool controller = isJointServo(force.type);
        for (auto [value, key] : {std::pair{force.stiffness, controller ? "kp" : "stiffness"},
                                  std::pair{force.damping, controller ? "kd" : "damping"}})
            if (!std::isfinite(value) || value < 0.0)
                check.error(at + "/" + key, std::string(key) + " must be zero or positive, got " +
                                                numberText(value, 10));
        if (force.type == ForceType::SpringDamper &&
            (!std::isfinite(force.freeLength) || force.freeLength < 0.0))
            check.error(at + "/freeLength", "free length must be zero or positive");
        // Laws from tables: each names a table of the scene.
        auto tableRef = [&](const std::string& name, const std::string& where) {
            if (!name.empty() && !spec.findTable(name))
                check.error(where, "no table '" + name + "'" +
                                       (spec.tables.empty() ? " (the scene has none)" : ""));
        };
        // A damping law pushes against the rate: a point with the force along it feeds the
        // motion energy instead (a table's sign turned round, most likely).
        auto dampingSign = [&](const std::string& name, const std::string& where) {
            const TableSpec* t = name.empty() ? nullptr : spec.findTable(name);
            if (!t) return;
            for (std::size_t k = 0; k < std::min(t->x.size(), t->y.size()); ++k)
                if (t->x[k] * t->y[k] < 0.0) {
                    check.warning(where, "table '" + name + "' gives a damping force of " +
                                             numberText(t->y[k], 6) + " at a rate of " +
                                             numberText(t->x[k], 6) +
                                             ": along the motion, so it feeds energy in "
                                             "(a damping law's force has its rate's sign)");
                    return;
                }
        };
        tableRef(force.stiffnessTable, at + "/stiffness/table");
        tableRef(force.dampingTable, at + "/damping/table");
        dampingSign(force.dampingTable, at + "/damping/table");
        for (int axis = 0; axis < 3; ++axis) {
            const auto a = static_cast<std::size_t>(axis);
            const std::string n = "/" + std::to_string(axis) + "/table";
            tableRef(force.translationalStiffnessTables[a], at + "/translationalStiffness" + n);
            tableRef(force.translationalDampingTables[a], at + "/translationalDamping" + n);
            tableRef(force.rotationalStiffnessTables[a], at + "/rotationalStiffness" + n);
            tableRef(force.rotationalDampingTables[a], at + "/rotationalDamping" + n);
            dampingSign(force.translationalDampingTables[a], at + "/translationalDamping" + n);
            dampingSign(force.rotationalDampingTables[a], at + "/rotationalDamping" + n);
        }
        if (force.type == ForceType::Bushing) {
            const std::pair<const Vec3*, const char*> gains[] = {
                {&force.translationalStiffness, "translationalStiffness"},
                {&force.translationalDamping, "translationalDamping"},
                {&force.rotationalStiffness, "rotationalStiffness"},
                {&force.rotationalDamping, "rotationalDamping"}};
            for (const auto& [g, key] : gains)
                if (!g->allFinite() || g->minCoeff() < 0.0)
                    check.error(at + "/" + key, std::string("bushing ") + key +
                                                    " must be zero or positive on every axis");
        }
    }

    // Tables: named as variables are, unique, their points a curve.
    std::set<std::string> tableNames;
    for (std::size_t k = 0; k < spec.tables.size(); ++k) {
        const TableSpec& table = spec.tables[k];
        const std::string at = "/tables/" + std::to_string(k);
        if (std::string reason = variableNameError(table.name); !reason.empty())
            check.error(at + "/name", "table " + reason.substr(std::string("variable ").size()));
        else if (!tableNames.insert(table.name).second)
            check.error(at + "/name", "duplicate table name '" + table.name + "'");
        std::string error;
        int bad = -1;
        if (!TableCurve::make(table.interpolation, table.x, table.y, error, &bad)) {
            std::string where = at;
            if (bad >= 0)
                where += (error.rfind("y ", 0) == 0 ? "/y/" : "/x/") + std::to_string(bad);
            else if (table.x.size() != table.y.size())
                where += "/y";
            check.error(where, "table '" + table.name + "': " + error);
        }
    }

    // Variables: named expressions of the state, unique, in no cycle.
    std::set<std::string> variableNames;
    for (std::size_t k = 0; k < spec.variables.size(); ++k) {
        const VariableSpec& variable = spec.variables[k];
        const std::string at = "/variables/" + std::to_string(k);
        if (std::string reason = variableNameError(variable.name); !reason.empty())
            check.error(at + "/name", reason);
        else if (!variableNames.insert(variable.name).second)
            check.error(at + "/name", "duplicate variable name '" + variable.name + "'");
        else if (tableNames.count(variable.name))
            check.error(
                at + "/name",
                "'" + variable.name + "' names a table too: a variable needs a name of its own");
        if (variable.initial) {
            if (!std::isfinite(*variable.initial))
                check.error(at + "/initial",
                            "a held variable's initial value must be a finite "
                            "number, got " +
                                numberText(*variable.initial, 10));
        } else {
            checkStateExpression(check, at + "/expression", spec, variable.expression);
        }
    }
    if (std::string cycle; !variableOrder(spec, cycle))
        check.error("/variables", "the variables " + cycle +
                                      " are defined through one another in a cycle: none of "
                                      "them has a value");

    // Sensors: unique names, an expression of the state, a finite level.
    std::set<std::string> sensorNames;
    for (std::size_t k = 0; k < spec.sensors.size(); ++k) {
        const SensorSpec& sensor = spec.sensors[k];
        const std::string at = "/sensors/" + std::to_string(k);
        check.name(at + "/name", sensor.name, "sensor");
        if (!sensorNames.insert(sensor.name).second)
            check.error(at + "/name", "duplicate sensor name '" + sensor.name + "'");
        checkStateExpression(check, at + "/expression", spec, sensor.expression);
        if (!std::isfinite(sensor.value))
            check.error(at + "/value",
                        "the level a sensor watches for must be a finite number, got " +
                            numberText(sensor.value, 10));
        checkSensorAction(check, at, spec, sensor);
    }

    // Design variables: names as variables' (unique among both), finite values and ranges.
    std::set<std::string> designNames;
    for (std::size_t k = 0; k < spec.designVariables.size(); ++k) {
        const DesignVariableSpec& dv = spec.designVariables[k];
        const std::string at = "/designVariables/" + std::to_string(k);
        if (std::string reason = variableNameError(dv.name); !reason.empty())
            check.error(at + "/name", "design " + reason);
        else if (!designNames.insert(dv.name).second)
            check.error(at + "/name", "duplicate design variable name '" + dv.name + "'");
        else if (variableNames.count(dv.name))
            check.error(at + "/name", "'" + dv.name +
                                          "' names a variable too: a design variable needs a "
                                          "name of its own");
        if (tableNames.count(dv.name))
            check.error(at + "/name", "'" + dv.name +
                                          "' names a table too: a design variable needs a "
                                          "name of its own");
        if (!std::isfinite(dv.value))
            check.error(at + "/value", "a design variable's value must be a finite number");
        for (const auto& [bound, key] : {std::pair{dv.minimum, "minimum"}, {dv.maximum, "maximum"}})
            if (std::isinf(bound))
                check.error(at + "/" + key, std::string("the ") + key + " must be a finite number");
        if (dv.minimum >= dv.maximum)
            check.error(at + "/maximum", "the maximum (" + numberText(dv.maximum, 10) +
                                             ") must be above the minimum (" +
                                             numberText(dv.minimum, 10) + ")");
    }

    // Motions: a joint coordinate that exists, driven once, by a valid expression.
    std::set<std::string> motionNames;
    std::set<std::pair<std::string, int>> drivenAxes;
    for (std::size_t k = 0; k < spec.motions.size(); ++k) {
        const MotionSpec& motion = spec.motions[k];
        const std::string at = "/motions/" + std::to_string(k);
        check.name(at + "/name", motion.name, "motion");
        if (!motionNames.insert(motion.name).second)
            check.error(at + "/name", "duplicate motion name '" + motion.name + "'");
        checkExpression(check, at + "/expression", motion.expression, spec);
        const Joint* joint = spec.findJoint(motion.joint);
        if (!joint) {
            check.error(at + "/joint", "no joint '" + motion.joint + "'");
            continue;
        }
        const bool rotates =
            joint->type == JointType::Revolute || joint->type == JointType::Cylindrical;
        // A point on a curve is driven along it (its parameter); a cam by its shafts.
        const bool slides = joint->type == JointType::Prismatic ||
                            joint->type == JointType::Cylindrical ||
                            joint->type == JointType::PointOnCurve;
        if ((motion.axis == JointAxis::Rotation && !rotates) ||
            (motion.axis == JointAxis::Translation && !slides))
            check.error(at + "/axis",
                        std::string("joint '") + motion.joint + "' (" +
                            std::string(jointTypeName(joint->type)) + ") has no " +
                            (motion.axis == JointAxis::Rotation ? "rotation" : "translation") +
                            " coordinate to drive");
        else if (!drivenAxes.insert({motion.joint, static_cast<int>(motion.axis)}).second)
            check.error(at, "joint '" + motion.joint + "' already has a motion on this coordinate");
    }

    // Couplers: joints of the kinds each needs, distinct coordinates, finite positive ratios.
    std::set<std::string> couplerNames;
    for (std::size_t k = 0; k < spec.couplers.size(); ++k) {
        const CouplerSpec& coupler = spec.couplers[k];
        const std::string at = "/couplers/" + std::to_string(k);
        check.name(at + "/name", coupler.name, "coupler");
        if (!couplerNames.insert(coupler.name).second)
            check.error(at + "/name", "duplicate coupler name '" + coupler.name + "'");
        // The joint named at `key` must have coordinate `axis`.
        auto needs = [&](const std::string& key, const std::string& name, JointAxis axis,
                         std::string_view role) {
            const Joint* joint = spec.findJoint(name);
            if (!joint) {
                check.error(at + "/" + key, "no joint '" + name + "'");
                return false;
            }
            // (the coordinates of revolute, prismatic and cylindrical joints: a ball joint's cone
            // angle or a curve's parameter is not a shaft's turn or a slide's travel)
            const bool shaft = joint->type == JointType::Revolute ||
                               joint->type == JointType::Prismatic ||
                               joint->type == JointType::Cylindrical;
            const std::vector<JointAxis> axes =
                shaft ? jointAxes(joint->type) : std::vector<JointAxis>{};
            if (std::find(axes.begin(), axes.end(), axis) == axes.end()) {
                check.error(at + "/" + key,
                            std::string(role) + " needs a joint with " +
                                (axis == JointAxis::Rotation ? "an angle" : "a slide") + "; '" +
                                name + "' is " + std::string(jointTypeName(joint->type)));
                return false;
            }
            return true;
        };
        switch (coupler.type) {
        case CouplerType::Gear:
            needs("jointI", coupler.jointI, JointAxis::Rotation, "a gear");
            needs("jointJ", coupler.jointJ, JointAxis::Rotation, "a gear");
            if (coupler.jointI == coupler.jointJ)
                check.error(at + "/jointJ", "a gear pair needs two different joints; both are '" +
                                                coupler.jointI + "'");
            check.positive(at + "/ratio", coupler.ratio, "gear ratio");
            if (coupler.internal && coupler.ratio == 1.0)
                check.error(
                    at + "/ratio",
                    "an internal gear pair of ratio 1 is one gear: the ring must be larger");
            break;
        case CouplerType::RackPinion:
            needs("jointI", coupler.jointI, JointAxis::Rotation, "a pinion");
            needs("jointJ", coupler.jointJ, JointAxis::Translation, "a rack");
            if (coupler.jointI == coupler.jointJ)
                check.error(at + "/jointJ",
                            "a rack and pinion needs two different joints; both are '" +
                                coupler.jointI + "' (a screw couples one joint's angle and slide)");
            check.positive(at + "/radius", coupler.radius, "pinion pitch radius (m)");
            break;
        case CouplerType::Screw:
            if (needs("joint", coupler.jointI, JointAxis::Rotation, "a screw"))
                needs("joint", coupler.jointI, JointAxis::Translation, "a screw");
            if (!std::isfinite(coupler.pitch) || coupler.pitch == 0.0)
                check.error(at + "/pitch",
                            "screw pitch must be a non-zero number (m per turn), got " +
                                numberText(coupler.pitch, 10));
            break;
        case CouplerType::Linear: {
            if (coupler.terms.size() < 2)
                check.error(at + "/terms", "a linear coupler needs at least two terms, got " +
                                               std::to_string(coupler.terms.size()));
            std::set<std::pair<std::string, int>> seen;
            for (std::size_t t = 0; t < coupler.terms.size(); ++t) {
                const CouplerTerm& term = coupler.terms[t];
                const std::string termAt = "terms/" + std::to_string(t);
                needs(termAt + "/joint", term.joint, term.axis, "a coupler term");
                if (!seen.insert({term.joint, static_cast<int>(term.axis)}).second)
                    check.error(at + "/" + termAt, "joint '" + term.joint + "' " +
                                                       std::string(jointAxisName(term.axis)) +
                                                       " appears twice in the coupler");
                if (!std::isfinite(term.coefficient) || term.coefficient == 0.0)
                    check.error(at + "/" + termAt + "/coefficient",
                                "coefficient must be a non-zero number, got " +
                                    numberText(term.coefficient, 10));
            }
            if (std::isinf(coupler.offset))
                check.error(at + "/offset", "offset must be a finite number");
            break;
        }
        }
    }

    // Solver settings.
    const SolverSettings& st = spec.settings;
    check.positive("/settings/stepSize", st.stepSize, "step size (s)");
    if (st.stepSize > 0.0 && st.stepSize < kMinStepSize)
        check.error("/settings/stepSize",
                    "step size " + numberText(st.stepSize, 10) +
                        " s is below 1e-7 s: a run could not advance in any reasonable time");
    if (st.outputInterval != 0.0) {
        check.positive("/settings/outputInterval", st.outputInterval, "output interval (s)");
        if (st.outputInterval > 0.0 && st.outputInterval < kMinStepSize)
            check.error("/settings/outputInterval",
                        "output interval " + numberText(st.outputInterval, 10) +
                            " s is below 1e-7 s: a run could not advance in any reasonable time");
        if (st.outputInterval > 0.0 && st.stepSize > 0.0)
            if (std::string problem = outputSpacingProblem(st); !problem.empty())
                check.error("/settings/outputInterval", problem);
    }
    if (st.maxStep != 0.0) {
        check.positive("/settings/maxStep", st.maxStep, "largest step (s)");
        if (st.maxStep > 0.0 && st.maxStep < kMinStepSize)
            check.error("/settings/maxStep",
                        "largest step " + numberText(st.maxStep, 10) +
                            " s is below 1e-7 s: a run could not advance in any reasonable time");
    }
    if (st.endTime != 0.0) check.positive("/settings/endTime", st.endTime, "end time (s)");
    check.positive("/settings/relativeTolerance", st.relativeTolerance, "relative tolerance");
    check.positive("/settings/absoluteTolerance", st.absoluteTolerance, "absolute tolerance");
    check.positive("/settings/projectionTolerance", st.projectionTolerance, "projection tolerance");
    if (st.maxProjectionIterations < 1)
        check.error("/settings/maxProjectionIterations", "must be at least 1");

    // Contact.
    const ContactSettings& ct = spec.contact;
    if (ct.enabled && st.integrator != IntegratorType::TimeStepping)
        check.error(
            "/settings/integrator",
            "a scene with contact needs the timeStepping integrator (velocity level, solves "
            "contact impulses); " +
                std::string(integratorName(st.integrator)) + " cannot handle impacts");
    if (!ct.enabled && st.integrator != IntegratorType::TimeStepping &&
        (std::any_of(spec.joints.begin(), spec.joints.end(),
                     [](const Joint& j) { return j.steppedWithContact(); }) ||
         std::any_of(spec.forces.begin(), spec.forces.end(),
                     [](const ForceSpec& f) { return f.inextensible; })))
        check.warning("/settings/integrator",
                      "joint limits, joint friction, cams that may lift off and inextensible "
                      "cables are solved with contact at the "
                      "velocity level: this scene runs with the timeStepping integrator (step " +
                          timeText(st.stepSize) + ") instead of " +
                          std::string(integratorName(st.integrator)));
    if (ct.iterations < 1) check.error("/contact/iterations", "must be at least 1");
    if (ct.coneFacets < 3 || ct.coneFacets > 64)
        check.error("/contact/coneFacets", "a polyhedral friction cone needs 3 to 64 facets, got " +
                                               std::to_string(ct.coneFacets));
    check.positive("/contact/tolerance", ct.tolerance, "contact solver tolerance (m/s)");
    for (auto [value, key] :
         {std::pair{ct.margin, "margin"},
          std::pair{ct.restitutionThreshold, "restitutionThreshold"}, std::pair{ct.slop, "slop"},
          std::pair{ct.stiffness, "stiffness"}, std::pair{ct.damping, "damping"},
          std::pair{ct.sleepTime, "sleepTime"}})
        if (!std::isfinite(value) || value < 0.0)
            check.error(
                std::string("/contact/") + key,
                std::string(key) + " must be zero or positive, got " + numberText(value, 10));
    if (ct.margin > 0.02)
        check.error("/contact/margin",
                    "at most 0.02 m (a gap wider than 2 cm is no contact to keep), got " +
                        numberText(ct.margin, 10));
    check.positive("/contact/sleepSpeed", ct.sleepSpeed,
                   "speed under which a part is at rest (m/s)");
    check.positive("/contact/pushSpeed", ct.pushSpeed,
                   "the fastest a penetration is pushed out (m/s)");
    if (!std::isfinite(ct.stabilization) || ct.stabilization < 0.0 || ct.stabilization > 1.0)
        check.error("/contact/stabilization",
                    "must be between 0 and 1, got " + numberText(ct.stabilization, 10));
    if (ct.stiffness == 0.0 && ct.damping > 0.0)
        check.error("/contact/damping", "soft contact damping needs a stiffness as well");
    if (!std::isfinite(ct.frequency) || ct.frequency < 0.0)
        check.error("/contact/frequency", "must be a frequency ≥ 0 Hz (0: not soft), got " +
                                              numberText(ct.frequency, 10));
    if (!std::isfinite(ct.dampingRatio) || ct.dampingRatio < 0.0)
        check.error("/contact/dampingRatio",
                    "must be ≥ 0 (1: critically damped), got " + numberText(ct.dampingRatio, 10));
    if (ct.frequency > 0.0 && (ct.stiffness > 0.0 || ct.damping > 0.0))
        check.error("/contact/frequency",
                    "soft contact is given either by frequency and dampingRatio or by stiffness "
                    "and damping, not both");
    std::set<std::string> pairNames;
    std::set<std::pair<std::string, std::string>> pairParts;
    for (std::size_t k = 0; k < ct.pairs.size(); ++k) {
        const ContactPairSpec& pair = ct.pairs[k];
        const std::string at = "/contact/pairs/" + std::to_string(k);
        check.name(at + "/name", pair.name, "contact pair");
        if (!pairNames.insert(pair.name).second)
            check.error(at + "/name", "duplicate contact pair name '" + pair.name + "'");
        if (!spec.findPart(pair.partA)) check.error(at + "/partA", "no part '" + pair.partA + "'");
        if (!spec.findPart(pair.partB)) check.error(at + "/partB", "no part '" + pair.partB + "'");
        if (pair.partA == pair.partB) check.error(at, "a contact pair needs two different parts");
        if (!pairParts.insert(std::minmax(pair.partA, pair.partB)).second)
            check.error(at, "parts '" + pair.partA + "' and '" + pair.partB +
                                "' already have a contact pair entry");
        if (pair.friction && (!std::isfinite(*pair.friction) || *pair.friction < 0.0))
            check.error(at + "/friction", "friction coefficient must be zero or positive");
        if (pair.restitution && (!std::isfinite(*pair.restitution) || *pair.restitution < 0.0 ||
                                 *pair.restitution > 1.0))
            check.error(at + "/restitution", "restitution must be between 0 and 1");
    }

    // Deactivation: the ground stays; an analysis' set names elements the scene has.
    for (std::size_t i = 0; i < spec.parts.size(); ++i)
        if (spec.parts[i].ground && !spec.parts[i].active)
            check.error("/parts/" + std::to_string(i) + "/active",
                        "the ground cannot be deactivated: it is what the mechanism stands on");
    for (int a = 0; a < kAnalysisCount; ++a) {
        const InactiveSet& set = spec.analyses[static_cast<std::size_t>(a)].inactive;
        const std::string at =
            "/analyses/" + std::string(analysisName(static_cast<Analysis>(a))) + "/inactive/";
        const auto names = [&](const std::vector<std::string>& list, const char* key,
                               const char* noun, auto exists) {
            for (std::size_t k = 0; k < list.size(); ++k)
                if (!exists(list[k]))
                    check.error(at + key + "/" + std::to_string(k),
                                std::string("no ") + noun + " '" + list[k] + "' to deactivate");
        };
        const auto named = [](const auto& elements) {
            return [&elements](const std::string& name) {
                return std::any_of(elements.begin(), elements.end(),
                                   [&](const auto& e) { return e.name == name; });
            };
        };
        names(set.parts, "parts", "part", named(spec.parts));
        names(set.joints, "joints", "joint", named(spec.joints));
        names(set.forces, "forces", "force", named(spec.forces));
        names(set.motions, "motions", "motion", named(spec.motions));
        names(set.couplers, "couplers", "coupler", named(spec.couplers));
        names(set.contactPairs, "contactPairs", "contact pair", named(spec.contact.pairs));
        for (std::size_t k = 0; k < set.parts.size(); ++k)
            if (const Part* part = spec.findPart(set.parts[k]); part && part->ground)
                check.error(at + "parts/" + std::to_string(k),
                            "the ground cannot be deactivated: it is what the mechanism stands "
                            "on");
    }

    return check.take();
}

}  // namespace engine
