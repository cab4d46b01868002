#include "engine/io/scene_json.h"

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "engine/io/mesh_loader.h"

namespace engine::io {
namespace {

using nlohmann::json;

constexpr std::uintmax_t kMaxSceneFileBytes = 16u * 1024u * 1024u;  // scenes are kilobytes; 16 MiB is ~20 000 parts

std::string typeName(const json& j) {
    switch (j.type()) {
    case json::value_t::null:
        return "null";
    case json::value_t::object:
        return "an object";
    case json::value_t::array:
        return "an array";
    case json::value_t::string:
        return "a string";
    case json::value_t::boolean:
        return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
        return "a number";
    default:
        return "an unsupported value";
    }
}

// Reads JSON into a SceneSpec while collecting every problem with its JSON pointer.
class Reader {
public:
    Reader(Diagnostics& out, std::string baseDirectory) : out_(out), baseDirectory_(std::move(baseDirectory)) {}

    // A mesh file named in the scene, relative to the scene file's folder; each file is read
    // once per scene.
    std::shared_ptr<const TriangleMesh> mesh(const std::string& file, const std::string& at) {
        std::filesystem::path path(file);
        if (path.is_relative() && !baseDirectory_.empty()) path = std::filesystem::path(baseDirectory_) / path;
        const std::string key = path.lexically_normal().string();
        if (auto it = meshes_.find(key); it != meshes_.end()) return it->second;
        std::string reason;
        auto loaded = loadMesh(key, reason);
        if (!loaded) error(at, "cannot read mesh '" + file + "': " + reason);
        meshes_[key] = loaded;
        return loaded;
    }

    void error(const std::string& where, std::string message) {
        out_.push_back({Severity::Error, where, std::move(message)});
    }

    // Reports keys of `obj` that are not in `known`.
    // Keys of a newer minor version: kept in `extensions` (a JSON object's text) when the file
    // is from a newer minor version and the object can carry them, else errors.
    void checkKeys(const json& obj, const std::string& at,
                   std::initializer_list<std::string_view> known, std::string* extensions = nullptr) {
        json kept = json::object();
        for (auto it = obj.begin(); it != obj.end(); ++it) {
            bool ok = false;
            for (std::string_view k : known) ok = ok || it.key() == k;
            if (!ok && newerMinor_) {
                if (extensions) {
                    kept[it.key()] = it.value();
                    warning(at + "/" + it.key(), "key '" + it.key() + "' of a newer format (1." +
                                                     std::to_string(fileMinor_) + ") kept as it is");
                } else {
                    warning(at + "/" + it.key(), "key '" + it.key() + "' of a newer format (1." +
                                                     std::to_string(fileMinor_) + ") ignored here");
                }
            } else if (!ok) {
                std::string list;
                for (std::string_view k : known)
                    list += (list.empty() ? "" : ", ") + std::string(k);
                error(at + "/" + it.key(),
                      "unknown key '" + it.key() + "' (expected one of: " + list + ")");
            }
        }
        if (extensions && !kept.empty()) *extensions = kept.dump();
    }

    void warning(const std::string& where, std::string message) {
        out_.push_back({Severity::Warning, where, std::move(message)});
    }

    bool isObject(const json& j, const std::string& at) {
        if (j.is_object()) return true;
        error(at, "expected an object, got " + typeName(j));
        return false;
    }

    bool isArray(const json& j, const std::string& at) {
        if (j.is_array()) return true;
        error(at, "expected an array, got " + typeName(j));
        return false;
    }

    // A required member; reports it when absent.
    const json* required(const json& obj, const std::string& at, const char* key) {
        auto it = obj.find(key);
        if (it == obj.end()) {
            error(at, std::string("missing required key '") + key + "'");
            return nullptr;
        }
        return &*it;
    }

    const json* optional(const json& obj, const char* key) {
        auto it = obj.find(key);
        return it == obj.end() ? nullptr : &*it;
    }

    bool number(const json& j, const std::string& at, double& out) {
        if (!j.is_number()) {
            error(at, "expected a number, got " + typeName(j));
            return false;
        }
        const double v = j.get<double>();
        if (!std::isfinite(v)) {
            error(at, "number is out of range (must be finite)");
            return false;
        }
        out = v;
        return true;
    }

    bool string(const json& j, const std::string& at, std::string& out) {
        if (!j.is_string()) {
            error(at, "expected a string, got " + typeName(j));
            return false;
        }
        out = j.get<std::string>();
        return true;
    }

    bool boolean(const json& j, const std::string& at, bool& out) {
        if (!j.is_boolean()) {
            error(at, "expected true or false, got " + typeName(j));
            return false;
        }
        out = j.get<bool>();
        return true;
    }

    // Fixed-length array of numbers.
    template <int N>
    bool numbers(const json& j, const std::string& at, Eigen::Matrix<double, N, 1>& out) {
        if (!j.is_array() || j.size() != N) {
            error(at, "expected an array of " + std::to_string(N) + " numbers, got " +
                          (j.is_array() ? "an array of " + std::to_string(j.size()) : typeName(j)));
            return false;
        }
        bool ok = true;
        for (int k = 0; k < N; ++k)
            ok = number(j[static_cast<std::size_t>(k)], at + "/" + std::to_string(k), out(k)) && ok;
        return ok;
    }

    void vec3(const json& obj, const std::string& at, const char* key, Vec3& out) {
        if (const json* j = optional(obj, key)) {
            Vec3 v;
            if (numbers<3>(*j, at + "/" + key, v)) out = v;
        }
    }

    // Orientation: {"quaternion": [w,x,y,z]} | {"axis": [x,y,z], "angleDeg": a} | {"rpyDeg":
    // [r,p,y]}.
    void orientation(const json& obj, const std::string& parent, Quat& out) {
        const json* j = optional(obj, "orientation");
        if (!j) return;
        const std::string at = parent + "/orientation";
        if (!isObject(*j, at)) return;
        checkKeys(*j, at, {"quaternion", "axis", "angleDeg", "rpyDeg"});
        const bool hasQ = j->contains("quaternion"),
                   hasAxis = j->contains("axis") || j->contains("angleDeg"),
                   hasRpy = j->contains("rpyDeg");
        if (int(hasQ) + int(hasAxis) + int(hasRpy) != 1) {
            error(at, "give exactly one of 'quaternion', 'axis' + 'angleDeg', or 'rpyDeg'");
            return;
        }
        if (hasQ) {
            Eigen::Vector4d q;
            if (!numbers<4>((*j)["quaternion"], at + "/quaternion", q)) return;
            const double n = q.norm();
            if (std::abs(n - 1.0) > 1e-6) {
                char norm[32];
                std::snprintf(norm, sizeof norm, "%.10g", n);
                error(at + "/quaternion",
                      std::string("quaternion [w, x, y, z] must have unit length (its length is ") +
                          norm + ")");
                return;
            }
            // Kept as written when already unit to round-off, so saved files read back exactly.
            out = Quat(q(0), q(1), q(2), q(3));
            if (std::abs(n - 1.0) > 4 * std::numeric_limits<double>::epsilon()) out.normalize();
        } else if (hasAxis) {
            Vec3 axis;
            double angleDeg = 0.0;
            const json* ja = required(*j, at, "axis");
            const json* jd = required(*j, at, "angleDeg");
            if (!ja || !jd) return;
            const bool okAxis = numbers<3>(*ja, at + "/axis", axis);
            const bool okAngle = number(*jd, at + "/angleDeg", angleDeg);
            if (!okAxis || !okAngle) return;
            if (axis.norm() < 1e-12) {
                error(at + "/axis", "rotation axis must not be zero");
                return;
            }
            out = quatFromAxisAngle(axis, degToRad(angleDeg));
        } else {
            Vec3 rpy;
            if (!numbers<3>((*j)["rpyDeg"], at + "/rpyDeg", rpy)) return;
            out = quatFromRollPitchYaw(degToRad(rpy(0)), degToRad(rpy(1)), degToRad(rpy(2)));
        }
    }

    void pose(const json& obj, const std::string& at, Transform& X) {
        vec3(obj, at, "position", X.p);
        orientation(obj, at, X.R);
    }

    void name(const json& obj, const std::string& at, std::string& out) {
        if (const json* j = required(obj, at, "name")) string(*j, at + "/name", out);
    }

    void color(const json& obj, const std::string& at, std::uint32_t& out) {
        const json* j = optional(obj, "color");
        if (!j) return;
        std::string text;
        if (!string(*j, at + "/color", text)) return;
        const bool hex = text.size() == 7 && text[0] == '#' &&
                         text.find_first_not_of("0123456789abcdefABCDEF", 1) == std::string::npos;
        if (!hex) {
            error(at + "/color", "expected a colour as \"#rrggbb\", got \"" + text + "\"");
            return;
        }
        out = static_cast<std::uint32_t>(std::stoul(text.substr(1), nullptr, 16));
    }

    void inertia(const json& obj, const std::string& at, Mat3& I) {
        const json* j = optional(obj, "inertia");
        if (!j) return;
        const std::string where = at + "/inertia";
        if (j->is_array() && j->size() == 3) {
            Vec3 d;
            if (numbers<3>(*j, where, d)) I = d.asDiagonal();
        } else if (j->is_array() && j->size() == 6) {
            Eigen::Matrix<double, 6, 1> c;  // Ixx, Iyy, Izz, Ixy, Ixz, Iyz
            if (!numbers<6>(*j, where, c)) return;
            I << c(0), c(3), c(4), c(3), c(1), c(5), c(4), c(5), c(2);
        } else {
            error(where,
                  "expected [Ixx, Iyy, Izz] or [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] in kg·m², got " +
                      (j->is_array() ? "an array of " + std::to_string(j->size()) : typeName(*j)));
        }
    }

    void shape(const json& j, const std::string& at, Shape& s) {
        if (!isObject(j, at)) return;
        checkKeys(j, at, {"type", "size", "radius", "length", "file", "scale", "position", "orientation"}, &s.extensions);
        std::string type;
        if (const json* jt = required(j, at, "type"); jt && string(*jt, at + "/type", type)) {
            if (auto t = shapeTypeFromName(type)) {
                s.type = *t;
            } else {
                error(at + "/type", "unknown shape type '" + type +
                                        "' (expected box, sphere, cylinder, capsule, cone, mesh or plane)");
                return;
            }
        } else {
            return;
        }
        auto need = [&](const char* key) { return required(j, at, key); };
        auto forbid = [&](std::initializer_list<const char*> keys) {
            for (const char* k : keys)
                if (j.contains(k))
                    error(at + "/" + k, std::string("a ") + type + " has no '" + k + "'");
        };
        switch (s.type) {
        case ShapeType::Box:
            if (const json* v = need("size")) numbers<3>(*v, at + "/size", s.size);
            forbid({"radius", "length"});
            break;
        case ShapeType::Sphere:
            if (const json* v = need("radius")) number(*v, at + "/radius", s.radius);
            forbid({"size", "length", "file", "scale"});
            break;
        case ShapeType::Mesh:
            if (const json* v = need("file"); v && string(*v, at + "/file", s.meshFile)) s.mesh = mesh(s.meshFile, at + "/file");
            vec3(j, at, "scale", s.scale);
            forbid({"size", "radius", "length"});
            break;
        case ShapeType::Plane:
            forbid({"size", "radius", "length", "file", "scale"});
            break;
        default:
            if (const json* v = need("radius")) number(*v, at + "/radius", s.radius);
            if (const json* v = need("length")) number(*v, at + "/length", s.length);
            forbid({"size", "file", "scale"});
            break;
        }
        if (s.type == ShapeType::Box) forbid({"file", "scale"});
        pose(j, at, s.X_PG);
    }

    void marker(const json& j, const std::string& at, Marker& m) {
        if (!isObject(j, at)) return;
        checkKeys(j, at, {"name", "position", "orientation"}, &m.extensions);
        name(j, at, m.name);
        pose(j, at, m.X_PM);
    }

    void part(const json& j, const std::string& at, SceneSpec& spec, Part& p) {
        if (!isObject(j, at)) return;
        checkKeys(j, at,
                  {"name", "ground", "mass", "density", "centerOfMass", "inertia", "position",
                   "orientation", "velocity", "angularVelocity", "color", "geometry", "markers",
                   "material", "collision"},
                  &p.extensions);
        p.id = spec.newId();
        name(j, at, p.name);
        if (const json* g = optional(j, "ground")) boolean(*g, at + "/ground", p.ground);
        if (const json* d = optional(j, "density")) {
            double density = 0.0;
            if (number(*d, at + "/density", density)) p.density = density;
            for (const char* key : {"mass", "inertia", "centerOfMass"})
                if (j.contains(key))
                    error(at + "/" + key, std::string("give either 'density' (mass from geometry) or '") +
                                              key + "', not both");
        } else if (!p.ground) {
            if (const json* m = required(j, at, "mass")) number(*m, at + "/mass", p.mass);
            if (!j.contains("inertia")) error(at, "missing required key 'inertia'");
        }
        vec3(j, at, "centerOfMass", p.p_PPcm);
        inertia(j, at, p.I_Pcm_P);
        pose(j, at, p.X_WP);
        vec3(j, at, "velocity", p.v_WPo_W);
        vec3(j, at, "angularVelocity", p.w_WP_W);
        color(j, at, p.colorRgb);
        if (const json* shapes = optional(j, "geometry");
            shapes && isArray(*shapes, at + "/geometry")) {
            for (std::size_t k = 0; k < shapes->size(); ++k) {
                Shape s;
                shape((*shapes)[k], at + "/geometry/" + std::to_string(k), s);
                p.shapes.push_back(s);
            }
        }
        if (const json* m = optional(j, "material"); m && isObject(*m, at + "/material")) {
            checkKeys(*m, at + "/material", {"friction", "restitution"});
            if (const json* v = optional(*m, "friction")) number(*v, at + "/material/friction", p.material.friction);
            if (const json* v = optional(*m, "restitution"))
                number(*v, at + "/material/restitution", p.material.restitution);
        }
        if (const json* c = optional(j, "collision"); c && isObject(*c, at + "/collision")) {
            checkKeys(*c, at + "/collision", {"enabled", "group", "mask"});
            if (const json* v = optional(*c, "enabled")) boolean(*v, at + "/collision/enabled", p.collision.enabled);
            if (const json* v = optional(*c, "group")) bits(*v, at + "/collision/group", p.collision.group);
            if (const json* v = optional(*c, "mask")) bits(*v, at + "/collision/mask", p.collision.mask);
        }
        if (const json* markers = optional(j, "markers");
            markers && isArray(*markers, at + "/markers")) {
            for (std::size_t k = 0; k < markers->size(); ++k) {
                Marker m;
                m.id = spec.newId();
                marker((*markers)[k], at + "/markers/" + std::to_string(k), m);
                p.markers.push_back(m);
            }
        }
    }

    void markerRef(const json& obj, const std::string& at, const char* key, MarkerRef& ref) {
        const json* j = required(obj, at, key);
        std::string text;
        if (!j || !string(*j, at + "/" + key, text)) return;
        const auto dot = text.find('.');
        if (dot == std::string::npos || dot == 0 || dot + 1 == text.size() ||
            text.find('.', dot + 1) != std::string::npos) {
            error(at + "/" + key,
                  "expected a marker reference \"part.marker\", got \"" + text + "\"");
            return;
        }
        ref.part = text.substr(0, dot);
        ref.marker = text.substr(dot + 1);
    }

    void joint(const json& j, const std::string& at, Joint& jt) {
        if (!isObject(j, at)) return;
        checkKeys(j, at, {"name", "type", "markerI", "markerJ", "length", "collide"}, &jt.extensions);
        if (const json* c = optional(j, "collide")) boolean(*c, at + "/collide", jt.collide);
        name(j, at, jt.name);
        std::string type;
        if (const json* t = required(j, at, "type"); t && string(*t, at + "/type", type)) {
            if (auto parsed = jointTypeFromName(type)) {
                jt.type = *parsed;
            } else {
                std::string list;
                for (int k = 0; k <= static_cast<int>(JointType::PerpendicularAxes); ++k)
                    list += (k ? ", " : "") + std::string(jointTypeName(static_cast<JointType>(k)));
                error(at + "/type",
                      "unknown joint type '" + type + "' (expected one of: " + list + ")");
            }
        }
        markerRef(j, at, "markerI", jt.markerI);
        markerRef(j, at, "markerJ", jt.markerJ);
        if (const json* len = optional(j, "length")) {
            if (jt.type != JointType::Distance)
                error(at + "/length", "only a distance joint has a 'length'");
            else
                number(*len, at + "/length", jt.length);
        } else if (jt.type == JointType::Distance) {
            error(at, "missing required key 'length' (distance joint)");
        }
    }

    void scene(const json& root, SceneSpec& spec) {
        if (!isObject(root, "")) return;
        // The minor version decides how unknown keys are taken, so it is read first.
        if (const json* m = optional(root, "minorVersion")) {
            if (!m->is_number_integer() || m->get<long long>() < 0 || m->get<long long>() > 1000000)
                error("/minorVersion", "expected a non-negative integer, got " + m->dump());
            else
                spec.formatMinor = static_cast<int>(m->get<long long>());
        }
        fileMinor_ = spec.formatMinor;
        newerMinor_ = spec.formatMinor > kSceneFormatMinor;
        checkKeys(root, "",
                  {"format", "version", "minorVersion", "units", "name", "description", "gravity", "settings",
                   "contact", "parts", "joints", "forces", "motions", "plots"},
                  &spec.extensions);

        // Header: identifies the file before anything else is trusted.
        std::string format;
        if (const json* f = required(root, "", "format");
            f && string(*f, "/format", format) && format != "motus-scene") {
            error("/format", "expected \"motus-scene\", got \"" + format + "\"");
            return;
        }
        if (const json* v = required(root, "", "version")) {
            if (!v->is_number_integer()) {
                error("/version", "expected an integer, got " + typeName(*v));
            } else if (v->get<long long>() < 1 || v->get<long long>() > kSceneFormatVersion) {
                error("/version", "unsupported scene format version " + v->dump() +
                                      " (this Motus reads versions 1 to " +
                                      std::to_string(kSceneFormatVersion) + ")");
                return;
            }
        }

        if (const json* u = optional(root, "units")) {
            std::string units;
            if (string(*u, "/units", units) && units != "SI")
                error("/units", "Motus scenes are in SI units (m, kg, s, N, rad): expected \"SI\", got \"" + units + "\"");
        }
        if (const json* plots = optional(root, "plots"); plots && isArray(*plots, "/plots")) {
            for (std::size_t k = 0; k < plots->size(); ++k) {
                const json& pj = (*plots)[k];
                const std::string at = "/plots/" + std::to_string(k);
                if (!isObject(pj, at)) continue;
                PlotSpec plot;
                checkKeys(pj, at, {"name", "channels"}, &plot.extensions);
                if (const json* n = optional(pj, "name")) string(*n, at + "/name", plot.name);
                if (const json* c = required(pj, at, "channels"); c && isArray(*c, at + "/channels")) {
                    if (c->empty()) error(at + "/channels", "a plot needs at least one channel");
                    for (std::size_t i = 0; i < c->size(); ++i) {
                        std::string channel;
                        if (string((*c)[i], at + "/channels/" + std::to_string(i), channel))
                            plot.channels.push_back(channel);
                    }
                }
                spec.plots.push_back(std::move(plot));
            }
        }
        if (const json* n = optional(root, "name")) string(*n, "/name", spec.name);
        if (const json* d = optional(root, "description"))
            string(*d, "/description", spec.description);
        vec3(root, "", "gravity", spec.gravity);

        if (const json* parts = optional(root, "parts"); parts && isArray(*parts, "/parts")) {
            for (std::size_t k = 0; k < parts->size(); ++k) {
                Part p;
                part((*parts)[k], "/parts/" + std::to_string(k), spec, p);
                spec.parts.push_back(std::move(p));
            }
        }
        if (const json* joints = optional(root, "joints"); joints && isArray(*joints, "/joints")) {
            for (std::size_t k = 0; k < joints->size(); ++k) {
                Joint jt;
                jt.id = spec.newId();
                joint((*joints)[k], "/joints/" + std::to_string(k), jt);
                spec.joints.push_back(std::move(jt));
            }
        }
        if (const json* forces = optional(root, "forces"); forces && isArray(*forces, "/forces")) {
            for (std::size_t k = 0; k < forces->size(); ++k) {
                ForceSpec f;
                f.id = spec.newId();
                force((*forces)[k], "/forces/" + std::to_string(k), f);
                spec.forces.push_back(std::move(f));
            }
        }
        if (const json* motions = optional(root, "motions"); motions && isArray(*motions, "/motions")) {
            for (std::size_t k = 0; k < motions->size(); ++k) {
                MotionSpec m;
                m.id = spec.newId();
                motion((*motions)[k], "/motions/" + std::to_string(k), m);
                spec.motions.push_back(std::move(m));
            }
        }
        if (const json* ct = optional(root, "contact")) contact(*ct, "/contact", spec);
        const json* st = optional(root, "settings");
        // A scene with contact steps at the velocity level unless it says otherwise.
        if (spec.contact.enabled && !(st && st->is_object() && st->contains("integrator")))
            spec.settings.integrator = IntegratorType::TimeStepping;
        if (st) settings(*st, "/settings", spec.settings);
    }

    // A 32-bit collision group or mask: an integer, or a list of bit numbers 0..31.
    void bits(const json& j, const std::string& at, std::uint32_t& out) {
        if (j.is_number_integer() && j.get<long long>() >= 0 && j.get<long long>() <= 0xffffffffLL) {
            out = static_cast<std::uint32_t>(j.get<long long>());
        } else if (j.is_array()) {
            out = 0;
            for (std::size_t k = 0; k < j.size(); ++k) {
                const json& b = j[k];
                if (!b.is_number_integer() || b.get<long long>() < 0 || b.get<long long>() > 31)
                    error(at + "/" + std::to_string(k), "expected a bit number from 0 to 31, got " + b.dump());
                else
                    out |= std::uint32_t(1) << b.get<long long>();
            }
        } else {
            error(at, "expected a 32-bit integer or a list of bit numbers (0 to 31), got " + j.dump());
        }
    }

    void contact(const json& j, const std::string& at, SceneSpec& spec) {
        if (!isObject(j, at)) return;
        checkKeys(j, at, {"enabled", "solver", "friction", "coneFacets", "iterations", "tolerance", "margin",
                          "restitutionThreshold", "stabilization", "slop", "stiffness", "damping", "pairs"},
                  &spec.contact.extensions);
        ContactSettings& ct = spec.contact;
        ct.enabled = true;  // a contact block switches contact on unless it says "enabled": false
        if (const json* v = optional(j, "enabled")) boolean(*v, at + "/enabled", ct.enabled);
        if (const json* v = optional(j, "solver"))
            word<ContactSolverType>(*v, at + "/solver",
                                    {{"pgs", ContactSolverType::ProjectedGaussSeidel}, {"lemke", ContactSolverType::Lemke}},
                                    ct.solver);
        if (const json* v = optional(j, "friction"))
            word<FrictionModel>(*v, at + "/friction", {{"box", FrictionModel::Box}, {"cone", FrictionModel::Cone}},
                                ct.friction);
        for (auto [key, target] : {std::pair{"coneFacets", &ct.coneFacets}, std::pair{"iterations", &ct.iterations}}) {
            if (const json* v = optional(j, key)) {
                if (!v->is_number_integer())
                    error(at + "/" + key, "expected an integer, got " + typeName(*v));
                else
                    *target = static_cast<int>(std::clamp<long long>(v->get<long long>(), -1, 100000));
            }
        }
        for (auto [key, target] : {std::pair{"tolerance", &ct.tolerance}, std::pair{"margin", &ct.margin},
                                   std::pair{"restitutionThreshold", &ct.restitutionThreshold},
                                   std::pair{"stabilization", &ct.stabilization}, std::pair{"slop", &ct.slop},
                                   std::pair{"stiffness", &ct.stiffness}, std::pair{"damping", &ct.damping}})
            if (const json* v = optional(j, key)) number(*v, at + "/" + key, *target);
        if (const json* pairs = optional(j, "pairs"); pairs && isArray(*pairs, at + "/pairs")) {
            for (std::size_t k = 0; k < pairs->size(); ++k) {
                const json& pj = (*pairs)[k];
                const std::string pat = at + "/pairs/" + std::to_string(k);
                if (!isObject(pj, pat)) continue;
                ContactPairSpec pair;
                checkKeys(pj, pat, {"name", "partA", "partB", "enabled", "friction", "restitution"}, &pair.extensions);
                pair.id = spec.newId();
                name(pj, pat, pair.name);
                if (const json* v = required(pj, pat, "partA")) string(*v, pat + "/partA", pair.partA);
                if (const json* v = required(pj, pat, "partB")) string(*v, pat + "/partB", pair.partB);
                if (const json* v = optional(pj, "enabled")) boolean(*v, pat + "/enabled", pair.enabled);
                double value = 0.0;
                if (const json* v = optional(pj, "friction"); v && number(*v, pat + "/friction", value))
                    pair.friction = value;
                if (const json* v = optional(pj, "restitution"); v && number(*v, pat + "/restitution", value))
                    pair.restitution = value;
                ct.pairs.push_back(std::move(pair));
            }
        }
    }

    // An expression of time: a number or a string.
    void expression(const json& j, const std::string& at, std::string& out) {
        if (j.is_number()) {
            double value = 0.0;
            if (number(j, at, value)) {
                char text[32];
                std::snprintf(text, sizeof text, "%.17g", value);
                out = text;
            }
        } else if (j.is_string()) {
            out = j.get<std::string>();
        } else {
            error(at, "expected a number or an expression of time (a string), got " + typeName(j));
        }
    }

    // One of a fixed set of words.
    template <class Enum>
    bool word(const json& j, const std::string& at, std::initializer_list<std::pair<const char*, Enum>> choices,
              Enum& out) {
        std::string text;
        if (!string(j, at, text)) return false;
        std::string list;
        for (const auto& [name, value] : choices) {
            if (text == name) {
                out = value;
                return true;
            }
            list += (list.empty() ? "" : ", ") + std::string(name);
        }
        error(at, "unknown value '" + text + "' (expected one of: " + list + ")");
        return false;
    }

    void force(const json& j, const std::string& at, ForceSpec& f) {
        if (!isObject(j, at)) return;
        name(j, at, f.name);
        std::string type;
        const json* jt = required(j, at, "type");
        if (!jt || !string(*jt, at + "/type", type)) return;
        const auto parsed = forceTypeFromName(type);
        if (!parsed) {
            error(at + "/type", "unknown force type '" + type +
                                    "' (expected pointForce, pointTorque, springDamper, "
                                    "rotationalSpringDamper, bushing or jointController)");
            return;
        }
        f.type = *parsed;
        auto scalar = [&](const char* key, double& out) {
            if (const json* v = optional(j, key)) number(*v, at + "/" + key, out);
        };
        switch (f.type) {
        case ForceType::PointForce:
        case ForceType::PointTorque: {
            checkKeys(j, at, {"name", "type", "marker", "components", "frame"}, &f.extensions);
            markerRef(j, at, "marker", f.markerI);
            if (const json* c = required(j, at, "components")) {
                if (!c->is_array() || c->size() != 3) {
                    error(at + "/components", "expected [x, y, z]: three numbers or expressions of time");
                } else {
                    for (std::size_t k = 0; k < 3; ++k)
                        expression((*c)[k], at + "/components/" + std::to_string(k), f.components[k]);
                }
            }
            if (const json* frame = optional(j, "frame"))
                word<bool>(*frame, at + "/frame", {{"world", false}, {"marker", true}}, f.inMarkerFrame);
            break;
        }
        case ForceType::SpringDamper:
            checkKeys(j, at, {"name", "type", "markerI", "markerJ", "stiffness", "damping", "freeLength", "preload"}, &f.extensions);
            markerRef(j, at, "markerI", f.markerI);
            markerRef(j, at, "markerJ", f.markerJ);
            scalar("stiffness", f.stiffness);
            scalar("damping", f.damping);
            scalar("freeLength", f.freeLength);
            scalar("preload", f.preload);
            break;
        case ForceType::RotationalSpringDamper:
            checkKeys(j, at, {"name", "type", "joint", "stiffness", "damping", "freeAngle", "preload"}, &f.extensions);
            if (const json* jj = required(j, at, "joint")) string(*jj, at + "/joint", f.joint);
            scalar("stiffness", f.stiffness);
            scalar("damping", f.damping);
            scalar("freeAngle", f.freeLength);
            scalar("preload", f.preload);
            break;
        case ForceType::JointController:
            checkKeys(j, at, {"name", "type", "joint", "axis", "target", "kp", "kd", "maxEffort"}, &f.extensions);
            if (const json* jj = required(j, at, "joint")) string(*jj, at + "/joint", f.joint);
            if (const json* a = optional(j, "axis"))
                word<JointAxis>(*a, at + "/axis",
                                {{"rotation", JointAxis::Rotation}, {"translation", JointAxis::Translation}}, f.axis);
            if (const json* e = required(j, at, "target")) expression(*e, at + "/target", f.components[0]);
            scalar("kp", f.stiffness);
            scalar("kd", f.damping);
            scalar("maxEffort", f.maxEffort);
            break;
        case ForceType::Bushing:
            checkKeys(j, at, {"name", "type", "markerI", "markerJ", "translationalStiffness",
                              "translationalDamping", "rotationalStiffness", "rotationalDamping"},
                      &f.extensions);
            markerRef(j, at, "markerI", f.markerI);
            markerRef(j, at, "markerJ", f.markerJ);
            vec3(j, at, "translationalStiffness", f.translationalStiffness);
            vec3(j, at, "translationalDamping", f.translationalDamping);
            vec3(j, at, "rotationalStiffness", f.rotationalStiffness);
            vec3(j, at, "rotationalDamping", f.rotationalDamping);
            break;
        }
    }

    void motion(const json& j, const std::string& at, MotionSpec& m) {
        if (!isObject(j, at)) return;
        checkKeys(j, at, {"name", "joint", "axis", "level", "expression"}, &m.extensions);
        name(j, at, m.name);
        if (const json* jj = required(j, at, "joint")) string(*jj, at + "/joint", m.joint);
        if (const json* a = optional(j, "axis"))
            word<JointAxis>(*a, at + "/axis", {{"rotation", JointAxis::Rotation}, {"translation", JointAxis::Translation}},
                            m.axis);
        if (const json* l = optional(j, "level"))
            word<MotionLevel>(*l, at + "/level",
                              {{"position", MotionLevel::Position},
                               {"velocity", MotionLevel::Velocity},
                               {"acceleration", MotionLevel::Acceleration}},
                              m.level);
        if (const json* e = required(j, at, "expression")) expression(*e, at + "/expression", m.expression);
    }

    void settings(const json& j, const std::string& at, SolverSettings& st) {
        if (!isObject(j, at)) return;
        checkKeys(j, at, {"integrator", "stepSize", "relativeTolerance", "absoluteTolerance",
                          "projectionTolerance", "maxProjectionIterations"},
                  &st.extensions);
        if (const json* i = optional(j, "integrator"))
            word<IntegratorType>(*i, at + "/integrator",
                                 {{"symplecticEuler", IntegratorType::SymplecticEuler},
                                  {"rk4", IntegratorType::RungeKutta4},
                                  {"dopri45", IntegratorType::DormandPrince45},
                                  {"implicitEuler", IntegratorType::ImplicitEuler},
                                  {"timeStepping", IntegratorType::TimeStepping}},
                                 st.integrator);
        for (auto [key, target] : {std::pair{"stepSize", &st.stepSize},
                                   std::pair{"relativeTolerance", &st.relativeTolerance},
                                   std::pair{"absoluteTolerance", &st.absoluteTolerance},
                                   std::pair{"projectionTolerance", &st.projectionTolerance}})
            if (const json* v = optional(j, key)) number(*v, at + "/" + key, *target);
        if (const json* v = optional(j, "maxProjectionIterations")) {
            if (!v->is_number_integer())
                error(at + "/maxProjectionIterations", "expected an integer, got " + typeName(*v));
            else
                st.maxProjectionIterations = static_cast<int>(std::clamp<long long>(v->get<long long>(), -1, 1000));
        }
    }

private:
    Diagnostics& out_;
    int fileMinor_ = 0;
    bool newerMinor_ = false;  // the file is of a newer minor version: unknown keys are kept
    std::string baseDirectory_;
    std::map<std::string, std::shared_ptr<const TriangleMesh>> meshes_;
};

// Line and column (1-based) of a byte offset, for syntax errors.
std::string lineColumn(std::string_view text, std::size_t byte) {
    std::size_t line = 1, column = 1;
    for (std::size_t k = 0; k < byte && k < text.size(); ++k) {
        if (text[k] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

SceneLoadResult parseScene(std::string_view text, const std::string& baseDirectory) {
    SceneLoadResult result;
    json root;
    try {
        root = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        // nlohmann's message already says what was expected; add a human position.
        std::string what = e.what();
        if (const auto pos = what.find("parse error"); pos != std::string::npos)
            what = what.substr(pos);
        result.diagnostics.push_back({Severity::Error,
                                      lineColumn(text, e.byte == 0 ? 0 : e.byte - 1),
                                      "invalid JSON: " + what});
        return result;
    } catch (const json::out_of_range& e) {
        // A number too large for a double ("number overflow parsing '1e999'"): point at it.
        std::string what = e.what();
        std::string where;
        if (const auto open = what.find('\''), close = what.rfind('\'');
            open != std::string::npos && close > open) {
            const auto at = text.find(what.substr(open + 1, close - open - 1));
            if (at != std::string_view::npos) where = lineColumn(text, at);
        }
        if (const auto pos = what.find("number overflow"); pos != std::string::npos)
            what = what.substr(pos);
        result.diagnostics.push_back(
            {Severity::Error, where,
             "invalid JSON: " + what + " (numbers must be finite doubles)"});
        return result;
    }

    SceneSpec spec;
    Reader reader(result.diagnostics, baseDirectory);
    reader.scene(root, spec);
    if (hasErrors(result.diagnostics)) return result;

    Diagnostics semantic = validate(spec);
    result.diagnostics.insert(result.diagnostics.end(), semantic.begin(), semantic.end());
    if (!hasErrors(result.diagnostics)) result.scene = std::move(spec);
    return result;
}

SceneLoadResult loadSceneFile(const std::string& path) {
    SceneLoadResult result;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        result.diagnostics.push_back(
            {Severity::Error, "", "cannot open scene file '" + path + "'"});
        return result;
    }
    in.seekg(0, std::ios::end);
    const auto size = static_cast<std::uintmax_t>(in.tellg());
    if (size > kMaxSceneFileBytes) {
        result.diagnostics.push_back({Severity::Error, "",
                                      "scene file '" + path + "' is " + std::to_string(size >> 20) +
                                          " MiB; scene files are limited to " +
                                          std::to_string(kMaxSceneFileBytes >> 20) + " MiB"});
        return result;
    }
    in.seekg(0, std::ios::beg);
    std::string text(static_cast<std::size_t>(size), '\0');
    if (!in.read(text.data(), static_cast<std::streamsize>(size))) {
        result.diagnostics.push_back(
            {Severity::Error, "", "cannot read scene file '" + path + "'"});
        return result;
    }
    return parseScene(text, std::filesystem::path(path).parent_path().string());
}

}  // namespace engine::io
