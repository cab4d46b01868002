// Writing scene files in the documented form (docs/scene-format.md): orientations as unit
// quaternions [w, x, y, z], numbers with 17 significant digits (they read back exactly),
// optional keys only where they differ from their defaults, arrays of numbers on one line so
// a diff shows what changed.

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/io/bindings_json.h"
#include "engine/io/csv_export.h"
#include "engine/io/input_file.h"
#include "engine/io/output_file.h"
#include "engine/io/scene_json.h"

namespace engine::io {
namespace {

using json = nlohmann::ordered_json;

json vec(const Vec3& v) {
    return json::array({v.x(), v.y(), v.z()});
}

// A force law: its constant, or {"table": name} when a table gives it.
json law(double constant, const std::string& table) {
    if (table.empty()) return constant;
    return json{{"table", table}};
}
json laws(const Vec3& constants, const std::array<std::string, 3>& tables) {
    json out = json::array();
    for (int a = 0; a < 3; ++a)
        out.push_back(law(constants(a), tables[static_cast<std::size_t>(a)]));
    return out;
}

// Keys of a newer format version kept with an entity, written back after its own keys.
void putExtensions(json& j, const std::string& extensions) {
    if (extensions.empty()) return;
    const json kept = json::parse(extensions, nullptr, false);
    if (!kept.is_object()) return;
    for (auto it = kept.begin(); it != kept.end(); ++it)
        if (!j.contains(it.key())) j[it.key()] = it.value();
}

// The orientation as the reader takes it back unchanged: it keeps a quaternion of unit length
// to round-off as written and normalises any other, so one that is not (set by code, or of
// components like 1e300) is normalised here, scaled first when its length overflows. One of
// length zero or with a component that is not finite stays as it is: saveSceneFile refuses it.
Quat writtenOrientation(const Quat& R) {
    Quat q = R;
    if (!q.coeffs().allFinite()) return q;
    if (!std::isfinite(q.coeffs().squaredNorm()) && q.coeffs().cwiseAbs().maxCoeff() > 0.0)
        q.coeffs() /= q.coeffs().cwiseAbs().maxCoeff();
    // A normalised quaternion is of unit length to a few ε; rarely a second pass is needed.
    for (int pass = 0; pass < 3 && !detail::isUnitToRoundOff(q.w(), q.x(), q.y(), q.z()); ++pass)
        q.normalize();
    return q;
}

void putPose(json& j, const Transform& X) {
    if (X.p != Vec3::Zero()) j["position"] = vec(X.p);
    const Quat R = writtenOrientation(X.R);
    if (R.coeffs() != Quat::Identity().coeffs())
        j["orientation"] = {{"quaternion", json::array({R.w(), R.x(), R.y(), R.z()})}};
}

std::string hexColor(std::uint32_t rgb) {
    char text[8];
    std::snprintf(text, sizeof text, "#%06x", rgb & 0xffffffu);
    return text;
}

json shapeJson(const Shape& s) {
    json j;
    j["type"] = std::string(shapeTypeName(s.type));
    switch (s.type) {
    case ShapeType::Box:
        j["size"] = vec(s.size);
        break;
    case ShapeType::Sphere:
        j["radius"] = s.radius;
        break;
    case ShapeType::Mesh:
        j["file"] = s.meshFile;
        if (s.scale != Vec3::Ones()) j["scale"] = vec(s.scale);
        break;
    case ShapeType::Plane:
        break;
    default:
        j["radius"] = s.radius;
        j["length"] = s.length;
        break;
    }
    if (s.role != ShapeRole::Both) j["role"] = std::string(shapeRoleName(s.role));
    putPose(j, s.X_PG);
    putExtensions(j, s.extensions);
    return j;
}

// An expression as the reader takes it back: a number when it is one.
json expressionJson(const std::string& text) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end && *end == '\0' && end != text.c_str() && std::isfinite(value)) return value;
    return text;
}

json partJson(const Part& p) {
    json j;
    j["name"] = p.name;
    if (p.ground) j["ground"] = true;
    if (!p.active) j["active"] = false;
    if (p.density) {
        j["density"] = *p.density;
    } else if (!p.ground) {
        j["mass"] = p.mass;
        const Mat3& I = p.I_Pcm_P;
        if (I(0, 1) == 0.0 && I(0, 2) == 0.0 && I(1, 2) == 0.0)
            j["inertia"] = json::array({I(0, 0), I(1, 1), I(2, 2)});
        else
            j["inertia"] = json::array({I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2)});
        if (p.p_PPcm != Vec3::Zero()) j["centerOfMass"] = vec(p.p_PPcm);
    }
    putPose(j, p.X_WP);
    if (p.v_WPo_W != Vec3::Zero()) j["velocity"] = vec(p.v_WPo_W);
    if (p.w_WP_W != Vec3::Zero()) j["angularVelocity"] = vec(p.w_WP_W);
    j["color"] = hexColor(p.colorRgb);
    if (!p.shapes.empty()) {
        json shapes = json::array();
        for (const Shape& s : p.shapes) shapes.push_back(shapeJson(s));
        j["geometry"] = shapes;
    }
    const ContactMaterial material;
    if (p.material.friction != material.friction ||
        p.material.restitution != material.restitution) {
        json m;
        if (p.material.friction != material.friction) m["friction"] = p.material.friction;
        if (p.material.restitution != material.restitution)
            m["restitution"] = p.material.restitution;
        j["material"] = m;
    }
    const CollisionFilter filter;
    if (p.collision.enabled != filter.enabled || p.collision.group != filter.group ||
        p.collision.mask != filter.mask) {
        json c;
        if (!p.collision.enabled) c["enabled"] = false;
        if (p.collision.group != filter.group) c["group"] = p.collision.group;
        if (p.collision.mask != filter.mask) c["mask"] = p.collision.mask;
        j["collision"] = c;
    }
    if (p.frameMotion) {
        json m;
        auto triple = [](const std::string(&e)[3]) {
            return json::array({expressionJson(e[0]), expressionJson(e[1]), expressionJson(e[2])});
        };
        m["translation"] = triple(p.frameMotion->translation);
        m["rotation"] = triple(p.frameMotion->rotation);
        j["frameMotion"] = m;
    }
    if (!p.markers.empty()) {
        json markers = json::array();
        for (const Marker& m : p.markers) {
            json jm;
            jm["name"] = m.name;
            putPose(jm, m.X_PM);
            putExtensions(jm, m.extensions);
            markers.push_back(jm);
        }
        j["markers"] = markers;
    }
    putExtensions(j, p.extensions);
    return j;
}

json forceJson(const ForceSpec& f) {
    json j;
    j["name"] = f.name;
    j["type"] = std::string(forceTypeName(f.type));
    if (!f.active) j["active"] = false;
    if (!f.startsOn) j["startsOn"] = false;
    switch (f.type) {
    case ForceType::PointForce:
    case ForceType::PointTorque:
        j["marker"] = f.markerI.text();
        j["components"] =
            json::array({expressionJson(f.components[0]), expressionJson(f.components[1]),
                         expressionJson(f.components[2])});
        if (f.inMarkerFrame) j["frame"] = "marker";
        break;
    case ForceType::SpringDamper:
        j["markerI"] = f.markerI.text();
        j["markerJ"] = f.markerJ.text();
        j["stiffness"] = law(f.stiffness, f.stiffnessTable);
        j["damping"] = law(f.damping, f.dampingTable);
        j["freeLength"] = f.freeLength;
        if (f.preload != 0.0) j["preload"] = f.preload;
        break;
    case ForceType::Cable: {
        json points = json::array({f.markerI.text()});
        for (const CableVia& v : f.via) {
            if (!v.pulley) {
                points.push_back(v.marker.text());
                continue;
            }
            json pulley = {{"marker", v.marker.text()}, {"radius", v.radius}};
            if (v.clockwise) pulley["wrap"] = "cw";
            if (!v.joint.empty()) pulley["joint"] = v.joint;
            if (v.friction != 0.0) pulley["friction"] = v.friction;
            points.push_back(pulley);
        }
        points.push_back(f.markerJ.text());
        j["points"] = points;
        j["stiffness"] = law(f.stiffness, f.stiffnessTable);
        j["damping"] = law(f.damping, f.dampingTable);
        j["freeLength"] = f.freeLength;
        if (f.preload != 0.0) j["preload"] = f.preload;
        if (!f.slack) j["slack"] = false;
        if (f.inextensible) j["inextensible"] = true;
        break;
    }
    case ForceType::RotationalSpringDamper:
        j["joint"] = f.joint;
        j["stiffness"] = law(f.stiffness, f.stiffnessTable);
        j["damping"] = law(f.damping, f.dampingTable);
        j["freeAngle"] = f.freeLength;
        if (f.preload != 0.0) j["preload"] = f.preload;
        break;
    case ForceType::JointController:
    case ForceType::ComputedTorque:
        j["joint"] = f.joint;
        if (f.axis == JointAxis::Translation) j["axis"] = "translation";
        j["target"] = expressionJson(f.components[0]);
        j["kp"] = f.stiffness;
        j["kd"] = f.damping;
        if (f.maxEffort > 0.0) j["maxEffort"] = f.maxEffort;
        if (f.gravityCompensation && f.type == ForceType::JointController)
            j["gravityCompensation"] = true;
        break;
    case ForceType::LineForce:
        j["markerI"] = f.markerI.text();
        j["markerJ"] = f.markerJ.text();
        j["magnitude"] = expressionJson(f.components[0]);
        break;
    case ForceType::JointForce:
        j["joint"] = f.joint;
        if (f.axis == JointAxis::Translation) j["axis"] = "translation";
        j["magnitude"] = expressionJson(f.components[0]);
        break;
    case ForceType::Bushing:
        j["markerI"] = f.markerI.text();
        j["markerJ"] = f.markerJ.text();
        j["translationalStiffness"] =
            laws(f.translationalStiffness, f.translationalStiffnessTables);
        j["translationalDamping"] = laws(f.translationalDamping, f.translationalDampingTables);
        j["rotationalStiffness"] = laws(f.rotationalStiffness, f.rotationalStiffnessTables);
        j["rotationalDamping"] = laws(f.rotationalDamping, f.rotationalDampingTables);
        break;
    }
    putExtensions(j, f.extensions);
    return j;
}

// The contact block: written when contact is on or anything differs from the defaults.
// A joint's end stops as the reader takes them: an object for a joint of one coordinate, a list
// (null for a coordinate without stops) for a joint of several. Infinite ends are left out.
json limitsJson(const Joint& joint) {
    auto one = [](const JointLimit& l) {
        json j = json::object();
        if (std::isfinite(l.lower)) j["lower"] = l.lower;
        if (std::isfinite(l.upper)) j["upper"] = l.upper;
        const JointLimit plain;
        if (l.restitution != plain.restitution) j["restitution"] = l.restitution;
        if (l.frequency != plain.frequency) j["frequency"] = l.frequency;
        if (l.dampingRatio != plain.dampingRatio) j["dampingRatio"] = l.dampingRatio;
        return j;
    };
    if (jointAxes(joint.type).size() == 1) return one(joint.limits.front());
    json list = json::array();
    for (const JointLimit& l : joint.limits) list.push_back(l.limited() ? one(l) : json());
    return list;
}

// A curve of a joint on curves.
json curveJson(const CurveSpec& c) {
    json j;
    j["type"] = std::string(curveTypeName(c.type));
    if (c.type == CurveType::Spline) {
        json points = json::array();
        for (const Vec3& p : c.points) points.push_back(vec(p));
        j["points"] = points;
    } else {
        j["x"] = expressionJson(c.x);
        j["y"] = expressionJson(c.y);
        j["z"] = expressionJson(c.z);
        j["start"] = c.start;
        j["end"] = c.end;
    }
    if (c.closed) j["closed"] = true;
    return j;
}

// A surface of a point-on-surface joint.
json surfaceJson(const SurfaceSpec& c) {
    json j;
    j["type"] = std::string(surfaceTypeName(c.type));
    if (c.type == SurfaceType::Grid) {
        j["xs"] = c.xs;
        j["ys"] = c.ys;
        j["heights"] = c.heights;
        return j;
    }
    j["x"] = expressionJson(c.x);
    j["y"] = expressionJson(c.y);
    j["z"] = expressionJson(c.z);
    j["uStart"] = c.uStart;
    j["uEnd"] = c.uEnd;
    j["vStart"] = c.vStart;
    j["vEnd"] = c.vEnd;
    return j;
}

// A joint's friction, laid out as its limits are.
json frictionJson(const Joint& joint) {
    auto one = [](const JointFriction& f) {
        json j = json::object();
        const JointFriction none;
        for (auto [key, value, fallback] :
             {std::tuple{"coefficient", f.coefficient, none.coefficient},
              std::tuple{"staticCoefficient", f.staticCoefficient, none.staticCoefficient},
              std::tuple{"radius", f.radius, none.radius},
              std::tuple{"length", f.length, none.length},
              std::tuple{"preload", f.preload, none.preload},
              std::tuple{"viscous", f.viscous, none.viscous}})
            if (value != fallback) j[key] = value;
        return j;
    };
    if (jointAxes(joint.type).size() == 1) return one(joint.friction.front());
    json list = json::array();
    for (const JointFriction& f : joint.friction) {
        json j = one(f);
        list.push_back(j.empty() ? json() : j);
    }
    return list;
}

// Whether a joint's friction says anything (a radius alone does nothing yet is kept).
bool writesFriction(const Joint& joint) {
    const JointFriction none;
    for (const JointFriction& f : joint.friction)
        if (f.coefficient != none.coefficient || f.staticCoefficient != none.staticCoefficient ||
            f.radius != none.radius || f.length != none.length || f.preload != none.preload ||
            f.viscous != none.viscous)
            return true;
    return false;
}

json contactJson(const ContactSettings& ct) {
    const ContactSettings d;
    json j;
    j["enabled"] = ct.enabled;
    if (ct.solver != d.solver) j["solver"] = std::string(contactSolverName(ct.solver));
    if (ct.friction != d.friction) j["friction"] = std::string(frictionModelName(ct.friction));
    if (ct.coneFacets != d.coneFacets) j["coneFacets"] = ct.coneFacets;
    if (ct.iterations != d.iterations) j["iterations"] = ct.iterations;
    for (auto [key, value, fallback] :
         {std::tuple{"tolerance", ct.tolerance, d.tolerance},
          std::tuple{"margin", ct.margin, d.margin},
          std::tuple{"restitutionThreshold", ct.restitutionThreshold, d.restitutionThreshold},
          std::tuple{"stabilization", ct.stabilization, d.stabilization},
          std::tuple{"slop", ct.slop, d.slop}, std::tuple{"pushSpeed", ct.pushSpeed, d.pushSpeed},
          std::tuple{"stiffness", ct.stiffness, d.stiffness},
          std::tuple{"damping", ct.damping, d.damping},
          std::tuple{"frequency", ct.frequency, d.frequency},
          std::tuple{"dampingRatio", ct.dampingRatio, d.dampingRatio},
          std::tuple{"sleepTime", ct.sleepTime, d.sleepTime},
          std::tuple{"sleepSpeed", ct.sleepSpeed, d.sleepSpeed}})
        if (value != fallback) j[key] = value;
    if (!ct.pairs.empty()) {
        json pairs = json::array();
        for (const ContactPairSpec& p : ct.pairs) {
            json jp;
            jp["name"] = p.name;
            jp["partA"] = p.partA;
            jp["partB"] = p.partB;
            if (!p.enabled) jp["enabled"] = false;
            if (p.friction) jp["friction"] = *p.friction;
            if (p.restitution) jp["restitution"] = *p.restitution;
            putExtensions(jp, p.extensions);
            pairs.push_back(jp);
        }
        j["pairs"] = pairs;
    }
    putExtensions(j, ct.extensions);
    if (!ct.enabled && j.size() == 1) return json();  // nothing to say
    return j;
}

json sceneJson(const SceneSpec& spec, bool withBindings = true) {
    json j;
    j["format"] = "motus-scene";
    j["version"] = kSceneFormatVersion;
    j["minorVersion"] = std::max(kSceneFormatMinor, spec.formatMinor);
    j["units"] = "SI";
    if (!spec.name.empty()) j["name"] = spec.name;
    if (!spec.description.empty()) j["description"] = spec.description;
    j["gravity"] = vec(spec.gravity);
    if (!spec.designVariables.empty()) {
        json variables = json::array();
        for (const DesignVariableSpec& v : spec.designVariables) {
            json jv;
            jv["name"] = v.name;
            jv["value"] = v.value;
            if (!std::isnan(v.minimum)) jv["minimum"] = v.minimum;
            if (!std::isnan(v.maximum)) jv["maximum"] = v.maximum;
            putExtensions(jv, v.extensions);
            variables.push_back(jv);
        }
        j["designVariables"] = variables;
    }
    const SolverSettings defaults;
    const SolverSettings& st = spec.settings;
    json settings;
    if (st.integrator != defaults.integrator)
        settings["integrator"] = std::string(integratorName(st.integrator));
    if (st.formulation != defaults.formulation)
        settings["formulation"] = std::string(formulationName(st.formulation));
    if (st.foldWelds != defaults.foldWelds) settings["foldWelds"] = st.foldWelds;
    if (st.stepSize != defaults.stepSize) settings["stepSize"] = st.stepSize;
    if (st.outputInterval != defaults.outputInterval)
        settings["outputInterval"] = st.outputInterval;
    if (st.maxStep != defaults.maxStep) settings["maxStep"] = st.maxStep;
    if (st.endTime != defaults.endTime) settings["endTime"] = st.endTime;
    if (st.relativeTolerance != defaults.relativeTolerance)
        settings["relativeTolerance"] = st.relativeTolerance;
    if (st.absoluteTolerance != defaults.absoluteTolerance)
        settings["absoluteTolerance"] = st.absoluteTolerance;
    if (st.projectionTolerance != defaults.projectionTolerance)
        settings["projectionTolerance"] = st.projectionTolerance;
    if (st.maxProjectionIterations != defaults.maxProjectionIterations)
        settings["maxProjectionIterations"] = st.maxProjectionIterations;
    putExtensions(settings, st.extensions);
    if (!settings.empty()) j["settings"] = settings;
    if (json c = contactJson(spec.contact); !c.empty()) j["contact"] = c;

    json parts = json::array();
    for (const Part& p : spec.parts) parts.push_back(partJson(p));
    j["parts"] = parts;
    json joints = json::array();
    for (const Joint& joint : spec.joints) {
        json jj;
        jj["name"] = joint.name;
        jj["type"] = std::string(jointTypeName(joint.type));
        if (!joint.active) jj["active"] = false;
        jj["markerI"] = joint.markerI.text();
        jj["markerJ"] = joint.markerJ.text();
        if (joint.type == JointType::Distance) jj["length"] = joint.length;
        if (joint.collide) jj["collide"] = true;
        const JointCompliance& c = joint.compliance;
        const JointCompliance exact;
        json soft;
        for (auto [key, value, fallback] :
             {std::tuple{"frequency", c.frequency, exact.frequency},
              std::tuple{"dampingRatio", c.dampingRatio, exact.dampingRatio},
              std::tuple{"stiffness", c.stiffness, exact.stiffness},
              std::tuple{"damping", c.damping, exact.damping},
              std::tuple{"rotationalStiffness", c.rotationalStiffness, exact.rotationalStiffness},
              std::tuple{"rotationalDamping", c.rotationalDamping, exact.rotationalDamping}})
            if (value != fallback) soft[key] = value;
        if (!soft.empty()) jj["soft"] = soft;
        if (joint.type == JointType::PointOnCurve || joint.type == JointType::CurveOnCurve)
            jj["curve"] = curveJson(joint.curve);
        if (joint.type == JointType::PointOnSurface) jj["surface"] = surfaceJson(joint.surface);
        if (joint.type == JointType::CurveOnCurve) {
            jj["follower"] = curveJson(joint.follower);
            if (joint.liftOff) jj["liftOff"] = true;
        }
        // (a cam's limits give its contact's restitution and compliance alone)
        if (joint.limited() || (joint.type == JointType::CurveOnCurve && !joint.limits.empty()))
            jj["limits"] = limitsJson(joint);
        if (writesFriction(joint)) jj["friction"] = frictionJson(joint);
        putExtensions(jj, joint.extensions);
        joints.push_back(jj);
    }
    j["joints"] = joints;
    if (!spec.forces.empty()) {
        json forces = json::array();
        for (const ForceSpec& f : spec.forces) forces.push_back(forceJson(f));
        j["forces"] = forces;
    }
    if (!spec.motions.empty()) {
        json motions = json::array();
        for (const MotionSpec& m : spec.motions) {
            json jm;
            jm["name"] = m.name;
            jm["joint"] = m.joint;
            if (!m.active) jm["active"] = false;
            if (!m.startsOn) jm["startsOn"] = false;
            jm["axis"] = m.axis == JointAxis::Rotation ? "rotation" : "translation";
            jm["level"] = m.level == MotionLevel::Position   ? "position"
                          : m.level == MotionLevel::Velocity ? "velocity"
                                                             : "acceleration";
            jm["expression"] = expressionJson(m.expression);
            putExtensions(jm, m.extensions);
            motions.push_back(jm);
        }
        j["motions"] = motions;
    }
    if (!spec.couplers.empty()) {
        json couplers = json::array();
        for (const CouplerSpec& c : spec.couplers) {
            json jc;
            jc["name"] = c.name;
            jc["type"] = std::string(couplerTypeName(c.type));
            if (!c.active) jc["active"] = false;
            switch (c.type) {
            case CouplerType::Gear:
                jc["jointI"] = c.jointI;
                jc["jointJ"] = c.jointJ;
                jc["ratio"] = c.ratio;
                if (c.internal) jc["internal"] = true;
                break;
            case CouplerType::RackPinion:
                jc["jointI"] = c.jointI;
                jc["jointJ"] = c.jointJ;
                jc["radius"] = c.radius;
                break;
            case CouplerType::Screw:
                jc["joint"] = c.jointI;
                jc["pitch"] = c.pitch;
                break;
            case CouplerType::Linear: {
                json terms = json::array();
                for (const CouplerTerm& t : c.terms)
                    terms.push_back(
                        {{"joint", t.joint},
                         {"axis", t.axis == JointAxis::Rotation ? "rotation" : "translation"},
                         {"coefficient", t.coefficient}});
                jc["terms"] = terms;
                if (!std::isnan(c.offset)) jc["offset"] = c.offset;
                break;
            }
            }
            putExtensions(jc, c.extensions);
            couplers.push_back(jc);
        }
        j["couplers"] = couplers;
    }
    if (!spec.variables.empty()) {
        json variables = json::array();
        for (const VariableSpec& v : spec.variables) {
            json jv;
            jv["name"] = v.name;
            if (v.initial)
                jv["initial"] = *v.initial;
            else
                jv["expression"] = expressionJson(v.expression);
            putExtensions(jv, v.extensions);
            variables.push_back(jv);
        }
        j["variables"] = variables;
    }
    if (!spec.tables.empty()) {
        json tables = json::array();
        for (const TableSpec& t : spec.tables) {
            json jt;
            jt["name"] = t.name;
            jt["interpolation"] = std::string(tableInterpolationName(t.interpolation));
            jt["x"] = t.x;
            jt["y"] = t.y;
            putExtensions(jt, t.extensions);
            tables.push_back(jt);
        }
        j["tables"] = tables;
    }
    if (!spec.sensors.empty()) {
        json sensors = json::array();
        for (const SensorSpec& sensor : spec.sensors) {
            json js;
            js["name"] = sensor.name;
            js["expression"] = expressionJson(sensor.expression);
            js["value"] = sensor.value;
            if (sensor.direction != SensorDirection::Either)
                js["direction"] =
                    sensor.direction == SensorDirection::Rising ? "rising" : "falling";
            if (sensor.action != SensorAction::Stop)
                js["action"] = std::string(sensorActionName(sensor.action));
            if (!sensor.target.empty()) js["target"] = sensor.target;
            if (sensor.action == SensorAction::Set) js["to"] = expressionJson(sensor.to);
            putExtensions(js, sensor.extensions);
            sensors.push_back(js);
        }
        j["sensors"] = sensors;
    }
    json analyses = json::object();
    for (int a = 0; a < kAnalysisCount; ++a) {
        const AnalysisSpec& analysis = spec.analyses[static_cast<std::size_t>(a)];
        json ja = json::object();
        json inactive = json::object();
        for (auto [key, list] : {std::pair{"parts", &analysis.inactive.parts},
                                 std::pair{"joints", &analysis.inactive.joints},
                                 std::pair{"forces", &analysis.inactive.forces},
                                 std::pair{"motions", &analysis.inactive.motions},
                                 std::pair{"couplers", &analysis.inactive.couplers},
                                 std::pair{"contactPairs", &analysis.inactive.contactPairs}})
            if (!list->empty()) inactive[key] = *list;
        if (!inactive.empty()) ja["inactive"] = inactive;
        putExtensions(ja, analysis.extensions);
        if (!ja.empty()) analyses[std::string(analysisName(static_cast<Analysis>(a)))] = ja;
    }
    if (!analyses.empty()) j["analyses"] = analyses;
    if (!spec.plots.empty()) {
        json plots = json::array();
        for (const PlotSpec& plot : spec.plots) {
            json jp;
            if (!plot.name.empty()) jp["name"] = plot.name;
            jp["channels"] = plot.channels;
            if (!plot.x.empty()) jp["x"] = plot.x;
            putExtensions(jp, plot.extensions);
            plots.push_back(jp);
        }
        j["plots"] = plots;
    }
    putExtensions(j, spec.extensions);
    if (withBindings && !spec.bindings.empty()) detail::putBindings(spec, j);
    return j;
}

// The first value of the document the reader would refuse, as "<pointer>: <why>", or "": a
// number that is not finite, an orientation that is no rotation, text that is not UTF-8.
// Depth first with a stack of its own (extensions kept from a file nest as deep as it did).
std::string firstUnreadable(const json& document) {
    std::vector<std::pair<const json*, std::string>> todo{{&document, ""}};
    while (!todo.empty()) {
        const auto [j, at] = todo.back();
        todo.pop_back();
        if (j->is_number_float() && !std::isfinite(j->get<double>()))
            return at + ": the number " + formatDouble(j->get<double>()) + " is not finite";
        if (j->is_string()) {
            if (const std::size_t k = detail::invalidUtf8Offset(j->get_ref<const std::string&>());
                k != std::string::npos)
                return at + ": the text is not UTF-8 (byte " + std::to_string(k) + ")";
        }
        if (j->is_array() && j->size() == 4 && at.ends_with("/orientation/quaternion")) {
            Eigen::Vector4d q = Eigen::Vector4d::Zero();
            for (std::size_t k = 0; k < 4; ++k)
                if ((*j)[k].is_number()) q(static_cast<Eigen::Index>(k)) = (*j)[k].get<double>();
            if (!(std::abs(q.norm() - 1.0) <= 1e-6))  // the reader's tolerance
                return at +
                       ": the orientation is no rotation (a quaternion that cannot be normalised)";
        }
        // Children pushed last first, so they come off the stack in file order.
        if (j->is_object()) {
            const std::size_t first = todo.size();
            for (auto it = j->begin(); it != j->end(); ++it)
                todo.emplace_back(&it.value(), at + "/" + it.key());
            std::reverse(todo.begin() + static_cast<std::ptrdiff_t>(first), todo.end());
        } else if (j->is_array()) {
            for (std::size_t k = j->size(); k-- > 0;)
                todo.emplace_back(&(*j)[k], at + "/" + std::to_string(k));
        }
    }
    return "";
}

// A value as text: numbers in their shortest exact form ("0", "-9.81"), −0 written as 0. Text
// that is not UTF-8 (which saveSceneFile refuses) is written with U+FFFD instead of throwing.
std::string scalar(const json& j) {
    if (j.is_number_float()) {
        const double v = j.get<double>();
        return v == 0.0 ? "0" : formatDouble(v);
    }
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Pretty printing with arrays of plain values on one line.
void print(const json& j, int indent, std::ostringstream& out) {
    const std::string pad(static_cast<std::size_t>(indent), ' ');
    if (j.is_object()) {
        if (j.empty()) {
            out << "{}";
            return;
        }
        out << "{\n";
        bool first = true;
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (!first) out << ",\n";
            first = false;
            out << pad << "  " << scalar(json(it.key())) << ": ";
            print(it.value(), indent + 2, out);
        }
        out << "\n" << pad << "}";
    } else if (j.is_array()) {
        bool flat = true;
        for (const auto& e : j) flat = flat && !e.is_structured();
        if (flat) {
            out << "[";
            for (std::size_t k = 0; k < j.size(); ++k) out << (k ? ", " : "") << scalar(j[k]);
            out << "]";
            return;
        }
        out << "[\n";
        for (std::size_t k = 0; k < j.size(); ++k) {
            out << pad << "  ";
            print(j[k], indent + 2, out);
            out << (k + 1 < j.size() ? ",\n" : "\n");
        }
        out << pad << "]";
    } else {
        out << scalar(j);
    }
}

std::string printed(const json& document) {
    std::ostringstream out;
    print(document, 0, out);
    out << "\n";
    return out.str();
}

// A mesh as OBJ text: its vertices with 9 significant digits (single precision, as Motus reads
// mesh coordinates, exactly) and its triangles.
std::string objText(const TriangleMesh& mesh, const std::string& what) {
    std::string text = "# " + what + "\n";
    char line[96];
    for (const Vec3& v : mesh.vertices) {
        std::snprintf(line, sizeof line, "v %.9g %.9g %.9g\n", v.x(), v.y(), v.z());
        text += line;
    }
    for (const auto& t : mesh.triangles) {
        std::snprintf(line, sizeof line, "f %d %d %d\n", t[0] + 1, t[1] + 1, t[2] + 1);
        text += line;
    }
    return text;
}

// A part's name as a file name: letters, digits, '-' and '_' kept, anything else '_'.
std::string fileNamePart(const std::string& name) {
    std::string out;
    for (char c : name.substr(0, 60)) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                           (c >= '0' && c <= '9') || c == '-' || c == '_';
        out += plain ? c : '_';
    }
    return out.empty() ? "part" : out;
}

bool holdsMeshInMemory(const Shape& s) {
    return s.type == ShapeType::Mesh && s.meshFile.empty() && s.mesh && !s.mesh->empty();
}

}  // namespace

bool sceneHoldsMeshesInMemory(const SceneSpec& spec) {
    for (const Part& part : spec.parts)
        for (const Shape& s : part.shapes)
            if (holdsMeshInMemory(s)) return true;
    return false;
}

std::string sceneToJson(const SceneSpec& spec) {
    return printed(sceneJson(spec));
}

namespace detail {

std::string sceneTextWithoutBindings(const SceneSpec& spec) {
    return sceneJson(spec, false).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace detail

bool writeMeshesBeside(SceneSpec& written, const std::string& scenePath, std::string& error) {
    namespace fs = std::filesystem;
    if (!sceneHoldsMeshesInMemory(written)) return true;
    // A device or a FIFO has no folder beside it to hold the meshes.
    struct stat info {};
    if (::stat(scenePath.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
        error = "cannot write '" + scenePath +
                "': the scene holds meshes that are in no file (a robot's meshes as MuJoCo "
                "compiled them), written as files beside the scene, so it must be written to a "
                "file";
        return false;
    }
    const fs::path scene(scenePath);
    const std::string folderName = scene.stem().string() + "_meshes";
    const fs::path folder = scene.parent_path() / folderName;
    if (::mkdir(folder.c_str(), 0777) != 0 && errno != EEXIST) {
        error = "cannot create the folder '" + folder.string() +
                "' for the scene's meshes: " + fileErrorText(errno);
        return false;
    }
    std::map<const TriangleMesh*, std::string> named;  // one file per mesh shared by shapes
    std::set<std::string> used;
    for (Part& part : written.parts)
        for (std::size_t k = 0; k < part.shapes.size(); ++k) {
            Shape& s = part.shapes[k];
            if (!holdsMeshInMemory(s)) continue;
            auto [it, added] = named.emplace(s.mesh.get(), std::string());
            if (added) {
                std::string name = fileNamePart(part.name) + "_" + std::to_string(k);
                for (int n = 2; !used.insert(name).second; ++n)
                    name =
                        fileNamePart(part.name) + "_" + std::to_string(k) + "_" + std::to_string(n);
                it->second = name + ".obj";
                const fs::path file = folder / it->second;
                const std::string text = objText(
                    *s.mesh, "The mesh of part '" + part.name + "', shape " + std::to_string(k) +
                                 ", written by Motus with " + scene.filename().string());
                std::uintmax_t size = 0;
                std::string old;
                if (inputFileProblem(file.string(), "mesh", &size).empty() && size == text.size()) {
                    std::ifstream existing(file, std::ios::binary);
                    old.assign(std::istreambuf_iterator<char>(existing),
                               std::istreambuf_iterator<char>());
                }
                if (old != text && !writeFileSafely(file.string(), text, error)) return false;
            }
            s.meshFile = folderName + "/" + it->second;
        }
    return true;
}

bool saveSceneFile(const SceneSpec& spec, const std::string& path, std::string& error) {
    // Atomic: a crash or a full disk leaves the old file as it was.
    SceneSpec written = spec;
    if (!writeMeshesBeside(written, path, error)) return false;
    const json document = sceneJson(written);
    if (const std::string problem = firstUnreadable(document); !problem.empty()) {
        error = "the scene would not read back: " + problem;
        return false;
    }
    // Through an OutputFile (engine/io/output_file.h): a unique temporary synced and renamed
    // over the target (a link followed), or a FIFO or device written in place.
    return writeFileSafely(path, printed(document), error);
}

}  // namespace engine::io
