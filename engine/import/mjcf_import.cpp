#include "engine/import/mjcf_import.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include <mujoco/mujoco.h>

#include "engine/import/import_reporter.h"
#include "engine/import/inertia_fixup.h"
#include "engine/io/child_process.h"
#include "engine/io/input_file.h"
#include "engine/math/number_text.h"

// MuJoCo compiles the file (mj_loadXML), so everything MJCF can say indirectly (defaults,
// classes, <include>, inertiafromgeom, fromto, euler sequences, degrees) arrives resolved in the
// mjModel's arrays. The walk below reads them once, bodies in id order (a parent's id is always
// below its children's), so each body finds its parent's part already made:
//   X_WB[b]  pose of body b's frame in the world at qpos0 = X_WB[parent] · (body_pos, body_quat)
//   partOf[b], X_PB[b]  the part body b became (its own, or the one it merged into) and b's
//            frame in that part's frame P (identity for a body with its own part).
// Joint anchors and axes (jnt_pos, jnt_axis), geoms and sites are in the body frame B and go to
// the part through X_PB.

namespace engine::io {
namespace {

constexpr std::size_t kMaxLoadWarnings = 50;  // MuJoCo warnings kept while a file compiles
constexpr double kSameAnchor = 1e-9;          // m: joint anchors closer than this are one point
constexpr double kAxesAligned = 1e-9;         // |sin| or |cos| of an angle taken as 0
constexpr double kLightFraction = 1e-3;       // an inserted light part's share of its body's mass

// `base`, or base_2, base_3 … when taken; the name returned is taken from then on.
std::string uniqueName(const std::string& base, std::set<std::string>& taken) {
    std::string name = base;
    for (int k = 2; !taken.insert(name).second; ++k) name = base + "_" + std::to_string(k);
    return name;
}

using Reporter = ImportReporter;

// MuJoCo 2.2 reads "nan" and "inf" in a number attribute without complaint (a body at
// pos="nan 0 0" is placed at the origin), so the file's own attribute values are scanned for
// them first. Attributes that hold names or files are not numbers and are skipped. Each element
// found is reported as "line 3: <body name='x'> pos 'nan 0 0' is not a finite number", prefixed
// by the file ("'arm.xml' line 3: ...") when `file` is not empty (an included file). The files
// the elements name (<include file>, <mesh file>, <texture file>, …) and the folders the
// <compiler> gives (meshdir, texturedir, assetdir) are added to `references`.
struct FileReference {
    std::string tag, attribute, value;
    std::size_t line = 0;
};
void reportNonFiniteNumbers(std::string_view xml, const std::string& file, Reporter& report,
                            std::vector<FileReference>& references) {
    static const std::set<std::string_view> textAttributes = {
        "name",     "class",      "childclass", "file",
        "meshdir",  "texturedir", "model",      "mesh",
        "material", "texture",    "hfield",     "joint",
        "joint1",   "joint2",     "body",       "body1",
        "body2",    "geom",       "geom1",      "geom2",
        "site",     "tendon",     "tendon1",    "tendon2",
        "target",   "prefix",     "objname",    "objtype",
        "type",     "cranksite",  "slidersite", "jointinparent",
        "content",  "builtin",    "mark",       "gridlayout",
        "mode",     "integrator", "cone",       "jacobian",
        "solver",   "coordinate", "angle",      "inertiafromgeom",
        "user",     "data",       "key"};
    auto isNonFinite = [](std::string_view token) {
        std::string t;
        for (char c : token) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (!t.empty() && (t[0] == '+' || t[0] == '-')) t.erase(0, 1);
        return t == "nan" || t == "inf" || t == "infinity" || t.starts_with("nan(");
    };
    std::size_t line = 1, counted = 0;
    for (std::size_t i = 0; i < xml.size(); ++i) {
        if (xml[i] != '<') continue;
        line += static_cast<std::size_t>(std::count(xml.begin() + static_cast<long>(counted),
                                                    xml.begin() + static_cast<long>(i), '\n'));
        counted = i;
        if (xml.substr(i).starts_with("<!--")) {
            const std::size_t end = xml.find("-->", i);
            i = end == std::string_view::npos ? xml.size() : end + 2;
            continue;
        }
        if (i + 1 >= xml.size() || !std::isalpha(static_cast<unsigned char>(xml[i + 1]))) continue;
        std::size_t k = i + 1;
        while (k < xml.size() && !std::isspace(static_cast<unsigned char>(xml[k])) &&
               xml[k] != '>' && xml[k] != '/')
            ++k;
        const std::string_view tag = xml.substr(i + 1, k - i - 1);
        std::string elementName, bad;
        // Attributes up to the tag's end: name="value" or name='value'.
        while (k < xml.size() && xml[k] != '>') {
            const std::size_t equals = xml.find_first_of("=>", k);
            if (equals == std::string_view::npos || xml[equals] == '>') break;
            std::size_t nameEnd = equals, nameStart = equals;
            while (nameEnd > k && std::isspace(static_cast<unsigned char>(xml[nameEnd - 1])))
                --nameEnd;
            nameStart = nameEnd;
            while (nameStart > k && !std::isspace(static_cast<unsigned char>(xml[nameStart - 1])))
                --nameStart;
            const std::string_view attribute = xml.substr(nameStart, nameEnd - nameStart);
            const std::size_t open = xml.find_first_of("\"'", equals);
            if (open == std::string_view::npos) break;
            const std::size_t close = xml.find(xml[open], open + 1);
            if (close == std::string_view::npos) break;
            const std::string_view value = xml.substr(open + 1, close - open - 1);
            if (attribute == "name") elementName = std::string(value);
            if (attribute == "file" ||
                (tag == "compiler" &&
                 (attribute == "meshdir" || attribute == "texturedir" || attribute == "assetdir")))
                references.push_back(
                    {std::string(tag), std::string(attribute), std::string(value), line});
            if (bad.empty() && !textAttributes.count(attribute)) {
                for (std::size_t t = value.find_first_not_of(" \t\r\n");
                     t != std::string_view::npos; t = value.find_first_not_of(" \t\r\n", t)) {
                    const std::size_t end =
                        std::min(value.find_first_of(" \t\r\n", t), value.size());
                    if (isNonFinite(value.substr(t, end - t))) {
                        bad = std::string(attribute) + " '" + excerpt(value) + "'";
                        break;
                    }
                    t = end;
                }
            }
            k = close + 1;
        }
        if (!bad.empty()) {
            const std::string place =
                (file.empty() ? std::string() : "'" + excerpt(file) + "' ") + "line " +
                std::to_string(line) + ": <" + excerpt(tag) +
                (elementName.empty() ? std::string() : " name='" + excerpt(elementName) + "'") +
                ">";
            report.error(place, place + " " + bad + " is not a finite number");
        }
        i = k;
    }
}

struct ModelDeleter {
    void operator()(mjModel* m) const { mj_deleteModel(m); }
};

// MuJoCo's warnings go to a global handler (by default: stdout and a log file in the working
// directory). While a file compiles (in its own process) they are collected here instead.
std::vector<std::string>* loadWarnings = nullptr;
void collectWarning(const char* message) {
    if (loadWarnings && loadWarnings->size() < kMaxLoadWarnings) loadWarnings->push_back(message);
}

std::string trimmed(std::string text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
}

// What the compiling child sends back: texts and counts as [length: uint64][bytes].
void appendCount(std::string& out, std::uint64_t count) {
    out.append(reinterpret_cast<const char*>(&count), sizeof count);
}
void appendText(std::string& out, const std::string& text) {
    appendCount(out, text.size());
    out += text;
}
bool takeCount(std::string_view& in, std::uint64_t& count) {
    if (in.size() < sizeof count) return false;
    std::memcpy(&count, in.data(), sizeof count);
    in.remove_prefix(sizeof count);
    return true;
}
bool takeText(std::string_view& in, std::string& text) {
    std::uint64_t size = 0;
    if (!takeCount(in, size) || size > in.size()) return false;
    text.assign(in.substr(0, size));
    in.remove_prefix(size);
    return true;
}

// A mesh face naming a vertex its mesh does not have (inline, or in an OBJ file): MuJoCo's
// compiler copies the indices unchecked, and one that did not crash it leaves garbage behind.
std::string meshFaceProblem(const mjModel& m) {
    for (int i = 0; i < m.nmesh; ++i) {
        const int vertices = m.mesh_vertnum[i];
        for (int f = 0; f < m.mesh_facenum[i]; ++f)
            for (int k = 0; k < 3; ++k)
                if (const int v = m.mesh_face[3 * (m.mesh_faceadr[i] + f) + k];
                    v < 0 || v >= vertices) {
                    const char* name = mj_id2name(&m, mjOBJ_MESH, i);
                    return "mesh '" + std::string(name ? name : std::to_string(i)) + "': face " +
                           std::to_string(f) + " names vertex " + std::to_string(v) + " of " +
                           std::to_string(vertices);
                }
    }
    return "";
}

// The model mj_saveModel wrote, loaded through a one-file virtual file system.
std::unique_ptr<mjModel, ModelDeleter> modelFromBytes(std::string_view bytes) {
    if (bytes.empty() || bytes.size() > static_cast<std::size_t>(INT32_MAX)) return nullptr;
    auto vfs = std::make_unique<mjVFS>();
    mj_defaultVFS(vfs.get());
    const char* name = "compiled.mjb";
    std::unique_ptr<mjModel, ModelDeleter> model;
    if (mj_makeEmptyFileVFS(vfs.get(), name, static_cast<int>(bytes.size())) == 0) {
        const int k = mj_findFileVFS(vfs.get(), name);
        if (k >= 0) {
            std::memcpy(vfs->filedata[k], bytes.data(), bytes.size());
            model.reset(mj_loadModel(name, vfs.get()));
        }
    }
    mj_deleteVFS(vfs.get());
    return model;
}

Vec3 vec3(const mjtNum* v) {
    return {v[0], v[1], v[2]};
}
Quat quat(const mjtNum* q) {
    return Quat(q[0], q[1], q[2], q[3]).normalized();
}
Transform pose(const mjtNum* p, const mjtNum* q) {
    return {quat(q), vec3(p)};
}

// A frame at `p` whose z axis is `axis` (a unit vector).
Transform axisFrame(const Vec3& p, const Vec3& axis) {
    return {Quat::FromTwoVectors(Vec3::UnitZ(), axis), p};
}

std::uint32_t rgb(const float* rgba) {
    auto channel = [](float v) {
        return static_cast<std::uint32_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
    };
    return channel(rgba[0]) << 16 | channel(rgba[1]) << 8 | channel(rgba[2]);
}

const char* jointTypeWord(int type) {
    switch (type) {
    case mjJNT_FREE:
        return "free";
    case mjJNT_BALL:
        return "ball";
    case mjJNT_SLIDE:
        return "slide";
    default:
        return "hinge";
    }
}

// Spreads the low 16 bits of a contact bitmask: Motus parts touch when each one's group meets
// the other's mask, MuJoCo geoms when either one's contype meets the other's conaffinity. With
// group = contype | conaffinity << 16 and mask = conaffinity | contype << 16 the two agree.
CollisionFilter collisionFilter(std::uint32_t contype, std::uint32_t conaffinity) {
    CollisionFilter filter;
    filter.enabled = (contype | conaffinity) != 0;
    filter.group = (contype & 0xffffu) | (conaffinity & 0xffffu) << 16;
    filter.mask = (conaffinity & 0xffffu) | (contype & 0xffffu) << 16;
    return filter;
}

class Importer {
public:
    Importer(const mjModel& m, const std::string& path, const RobotImportOptions& options,
             Reporter& report)
        : m_(m), path_(path), options_(options), report_(report) {}

    std::optional<SceneSpec> run();

private:
    std::string name(int type, int id) const {
        const char* n = mj_id2name(&m_, type, id);
        return n ? std::string(n) : std::string();
    }
    std::string bodyName(int b) const {
        const std::string n = name(mjOBJ_BODY, b);
        return n.empty() ? "body" + std::to_string(b) : n;
    }
    std::string jointName(int j) const {
        const std::string n = name(mjOBJ_JOINT, j);
        return n.empty() ? "joint" + std::to_string(j) : n;
    }
    std::string bodyPlace(int b) const { return "body '" + excerpt(bodyName(b)) + "'"; }
    std::string jointPlace(int j) const { return "joint '" + excerpt(jointName(j)) + "'"; }

    int ground();
    int addPart(const std::string& name, const Transform& X_WP);
    std::string addJoint(const std::string& name, JointType type, int parentPart,
                         const Transform& X_WM_parent, int childPart, const Transform& X_WM_child);
    void placeBody(int b);
    void jointsOfBody(int b, int part);
    void jointProperties(int j, bool single, const std::string& motusJoint);
    void jointLimit(int j, const std::string& motusJoint, std::size_t coordinate, bool reversed);
    void geoms();
    void sites();
    void equalities();
    void jointEquality(int e, const std::string& owner, const std::string& label);
    void armature(const std::string& motusJoint, double inertia);
    void actuators();
    void contact();

    const mjModel& m_;
    const std::string& path_;
    const RobotImportOptions& options_;
    Reporter& report_;
    SceneSpec spec_;
    int ground_ = -1;                        // the world's part, made when something needs it
    std::vector<Transform> X_WB_;            // per body: its frame in the world at qpos0
    std::vector<int> partOf_;                // per body: the part it became or merged into
    std::vector<Transform> X_PB_;            // per body: its frame in that part's frame
    std::vector<std::string> motusJointOf_;  // per MuJoCo joint: the Motus joint it alone became
    std::set<std::string> couplerNames_;     // names given to couplers so far
    std::vector<char> limitTaken_;           // per MuJoCo joint: its range is a Motus joint's stops
    std::vector<std::uint32_t> contype_, conaffinity_;  // per part: union over colliding geoms
    std::vector<bool> mixedContact_;  // per part: geoms with different contact bits
    std::set<std::string> partNames_, jointNames_, forceNames_;
};

int Importer::ground() {
    if (ground_ < 0) {
        Part world;
        world.id = spec_.newId();
        world.name = uniqueName("world", partNames_);
        world.ground = true;
        world.colorRgb = 0x7a828c;
        spec_.parts.push_back(std::move(world));
        ground_ = static_cast<int>(spec_.parts.size()) - 1;
        contype_.push_back(0);
        conaffinity_.push_back(0);
        mixedContact_.push_back(false);
    }
    return ground_;
}

int Importer::addPart(const std::string& name, const Transform& X_WP) {
    Part part;
    part.id = spec_.newId();
    part.name = uniqueName(sanitize(name), partNames_);
    part.X_WP = X_WP;
    static constexpr std::uint32_t palette[] = {0xe0703c, 0x3c8ee0, 0x4fb45a,
                                                0xd9b43c, 0x9b6cd0, 0x7a828c};
    part.colorRgb = palette[spec_.parts.size() % 6];
    spec_.parts.push_back(std::move(part));
    contype_.push_back(0);
    conaffinity_.push_back(0);
    mixedContact_.push_back(false);
    return static_cast<int>(spec_.parts.size()) - 1;
}

// A joint between two parts, with a marker on each at the world frame given (the two frames
// coincide at qpos0; z is the axis). Marker I is on the child, J on the parent, as the URDF
// importer has it, so the joint's coordinate is the child's angle or slide from the parent.
std::string Importer::addJoint(const std::string& name, JointType type, int parentPart,
                               const Transform& X_WM_parent, int childPart,
                               const Transform& X_WM_child) {
    Joint joint;
    joint.id = spec_.newId();
    joint.name = uniqueName(sanitize(name), jointNames_);
    joint.type = type;
    const std::string markerName = "j_" + joint.name;
    Part& parent = spec_.parts[static_cast<std::size_t>(parentPart)];
    Part& child = spec_.parts[static_cast<std::size_t>(childPart)];
    Marker onParent, onChild;
    onParent.id = spec_.newId();
    onParent.name = markerName;
    onParent.X_PM = parent.X_WP.inverse() * X_WM_parent;
    onChild.id = spec_.newId();
    onChild.name = markerName;
    onChild.X_PM = child.X_WP.inverse() * X_WM_child;
    parent.markers.push_back(onParent);
    child.markers.push_back(onChild);
    joint.markerI = {child.name, markerName};
    joint.markerJ = {parent.name, markerName};
    spec_.joints.push_back(joint);
    return joint.name;
}

// One body: its part (or the part it merges into), its mass properties, its joints.
void Importer::placeBody(int b) {
    const int parent = m_.body_parentid[b];
    const std::size_t bi = static_cast<std::size_t>(b);
    X_WB_[bi] =
        X_WB_[static_cast<std::size_t>(parent)] * pose(m_.body_pos + 3 * b, m_.body_quat + 4 * b);
    const std::string owner = bodyPlace(b);
    const int jointCount = m_.body_jntnum[b];
    const bool mocap = m_.body_mocapid[b] >= 0;

    // A massless body without joints is a frame of its parent (it holds geoms, sites or
    // children): MuJoCo simulates it as part of the parent's rigid body, and so does Motus.
    if (jointCount == 0 && !mocap && m_.body_mass[b] <= 0.0) {
        const int into = parent == 0 ? ground() : partOf_[static_cast<std::size_t>(parent)];
        partOf_[bi] = into;
        X_PB_[bi] = spec_.parts[static_cast<std::size_t>(into)].X_WP.inverse() * X_WB_[bi];
        return;
    }

    const int part = addPart(bodyName(b), X_WB_[bi]);
    partOf_[bi] = part;
    X_PB_[bi] = Transform::identity();

    // Mass properties: principal moments about the inertial frame (body_ipos, body_iquat).
    MassProperties props;
    props.mass = m_.body_mass[b];
    props.p_PPcm = vec3(m_.body_ipos + 3 * b);
    const Mat3 R_BI = quat(m_.body_iquat + 4 * b).toRotationMatrix();
    props.I_Pcm_P = R_BI * vec3(m_.body_inertia + 3 * b).asDiagonal() * R_BI.transpose();
    props.I_Pcm_P = 0.5 * (props.I_Pcm_P + props.I_Pcm_P.transpose());
    Diagnostics fixups;
    fixInertia(props, owner, InertiaFixupOptions{.strict = options_.strict}, fixups);
    report_.take(fixups);
    Part& p = spec_.parts[static_cast<std::size_t>(part)];
    p.mass = props.mass;
    p.p_PPcm = props.p_PPcm;
    p.I_Pcm_P = props.I_Pcm_P;

    const int parentPart = parent == 0 ? -1 : partOf_[static_cast<std::size_t>(parent)];
    auto weld = [&](const char* why) {
        if (why) report_.warning(owner, owner + ": " + why);
        const int to = parentPart < 0 ? ground() : parentPart;
        addJoint(bodyName(b) + "_fixed", JointType::Fixed, to, X_WB_[bi], part, X_WB_[bi]);
    };
    if (mocap) {
        weld("a mocap body (moved by the user in MuJoCo): fixed to the ground");
        return;
    }
    if (jointCount == 0) {
        weld(nullptr);  // MuJoCo welds a body without joints to its parent
        return;
    }
    jointsOfBody(b, part);
}

// A body's joints. One joint joins it to its parent directly; several (MuJoCo composes them
// in order, each axis turned by the ones before) become one Motus joint where they are one
// (universal, spherical, cylindrical, planar), a chain through light parts otherwise.
void Importer::jointsOfBody(int b, int part) {
    const std::size_t bi = static_cast<std::size_t>(b);
    const int parent = m_.body_parentid[b];
    const int first = m_.body_jntadr[b];
    const int count = m_.body_jntnum[b];
    const std::string owner = bodyPlace(b);
    const Transform& X_WB = X_WB_[bi];
    auto parentPart = [&] {
        return parent == 0 ? ground() : partOf_[static_cast<std::size_t>(parent)];
    };
    auto anchor = [&](int j) { return vec3(m_.jnt_pos + 3 * j); };
    auto axis = [&](int j) { return vec3(m_.jnt_axis + 3 * j).normalized(); };
    auto type = [&](int j) { return m_.jnt_type[j]; };

    // A free joint: the part floats (or is bolted down on request).
    if (type(first) == mjJNT_FREE) {
        for (int j = first + 1; j < first + count; ++j)
            report_.warning(jointPlace(j), jointPlace(j) + ": a " + jointTypeWord(type(j)) +
                                               " joint beside a free joint: left out");
        if (options_.fixedBase)
            addJoint(bodyName(b) + "_fixed", JointType::Fixed, ground(), X_WB, part, X_WB);
        return;
    }

    if (count == 1) {
        const int j = first;
        const Vec3 a = axis(j);
        const Transform X_WM =
            X_WB * axisFrame(anchor(j), type(j) == mjJNT_BALL ? Vec3::UnitZ() : a);
        const JointType t = type(j) == mjJNT_HINGE   ? JointType::Revolute
                            : type(j) == mjJNT_SLIDE ? JointType::Prismatic
                                                     : JointType::Spherical;
        const std::string name = addJoint(jointName(j), t, parentPart(), X_WM, part, X_WM);
        jointProperties(j, true, type(j) == mjJNT_BALL ? "" : name);
        return;
    }

    // Several joints: what they are together.
    std::vector<int> hinges, slides, balls;
    for (int j = first; j < first + count; ++j)
        (type(j) == mjJNT_HINGE ? hinges : type(j) == mjJNT_SLIDE ? slides : balls).push_back(j);
    const double scale = std::max(1.0, anchor(first).norm());
    auto sameAnchor = [&](int i, int j) {
        return (anchor(i) - anchor(j)).norm() <= kSameAnchor * scale;
    };
    std::string names = "'" + excerpt(jointName(first)) + "'";
    for (int j = first + 1; j < first + count; ++j)
        names += (j + 1 == first + count ? " and '" : ", '") + excerpt(jointName(j)) + "'";
    std::string combined = jointName(first);
    for (int j = first + 1; j < first + count; ++j) combined += "_" + jointName(j);

    std::optional<JointType> one;
    Transform X_WM_parent, X_WM_child;
    if (balls.empty() && slides.empty() && count == 2 && sameAnchor(first, first + 1) &&
        std::abs(axis(first).dot(axis(first + 1))) <= kAxesAligned) {
        // Two perpendicular hinges through one point: a universal joint, the first axis on the
        // parent (J's z), the second on the child (I's z).
        one = JointType::Universal;
        X_WM_parent = X_WB * axisFrame(anchor(first), axis(first));
        X_WM_child = X_WB * axisFrame(anchor(first), axis(first + 1));
    } else if (balls.empty() && slides.empty() && count == 3 && sameAnchor(first, first + 1) &&
               sameAnchor(first, first + 2)) {
        Mat3 axes;
        axes << axis(first), axis(first + 1), axis(first + 2);
        if (std::abs(axes.determinant()) > 1e-6) {
            one = JointType::Spherical;
            X_WM_parent = X_WM_child = X_WB * axisFrame(anchor(first), Vec3::UnitZ());
            report_.warning(owner, owner + ": hinges " + names +
                                       " turn about independent axes through one point: joined "
                                       "as one spherical joint '" +
                                       excerpt(sanitize(combined)) + "'");
        }
    } else if (balls.empty() && hinges.size() == 1 && slides.size() == 1) {
        // A hinge and a slide along one line: a cylindrical joint.
        const int h = hinges[0], s = slides[0];
        if (axis(h).cross(axis(s)).norm() <= kAxesAligned) {
            one = JointType::Cylindrical;
            X_WM_parent = X_WM_child = X_WB * axisFrame(anchor(h), axis(h));
        }
    } else if (balls.empty() && hinges.size() == 1 && slides.size() == 2) {
        // Two slides across a plane and a hinge about its normal: a planar joint (the normal is
        // the markers' z), whatever their order.
        const int h = hinges[0];
        const Vec3 normal = axis(slides[0]).cross(axis(slides[1]));
        if (std::abs(axis(slides[0]).dot(axis(slides[1]))) <= kAxesAligned &&
            normal.cross(axis(h)).norm() <= kAxesAligned) {
            one = JointType::Planar;
            X_WM_parent = X_WM_child = X_WB * axisFrame(anchor(h), axis(h));
        }
    }
    if (one) {
        const std::string name =
            addJoint(combined, *one, parentPart(), X_WM_parent, part, X_WM_child);
        if (*one == JointType::Cylindrical) {
            // Its angle is the hinge's (the markers' z is the hinge's axis), its slide the
            // slide's along that axis or against it.
            jointLimit(hinges[0], name, 0, false);
            jointLimit(slides[0], name, 1, axis(slides[0]).dot(axis(hinges[0])) < 0.0);
        }
        for (int j = first; j < first + count; ++j) jointProperties(j, false, "");
        return;
    }

    // Otherwise a chain: the parent, a light part after each joint but the last, the body.
    // The light parts sit at the body's frame with their centre of mass at their joint's anchor.
    const Part& body = spec_.parts[static_cast<std::size_t>(part)];
    const double lightMass = std::max(kLightFraction * body.mass, 1e-6);
    const double lightMoment =
        std::max(kLightFraction * body.I_Pcm_P.trace() / 3.0, lightMass * 1e-4);
    int previous = parentPart();
    for (int j = first; j < first + count; ++j) {
        int next = part;
        if (j + 1 < first + count) {
            next = addPart(bodyName(b) + "_" + jointName(j), X_WB);
            Part& light = spec_.parts[static_cast<std::size_t>(next)];
            light.mass = lightMass;
            light.p_PPcm = anchor(j);
            light.I_Pcm_P = Mat3::Identity() * lightMoment;
            light.collision.enabled = false;
        }
        const Transform X_WM =
            X_WB * axisFrame(anchor(j), type(j) == mjJNT_BALL ? Vec3::UnitZ() : axis(j));
        const JointType t = type(j) == mjJNT_HINGE   ? JointType::Revolute
                            : type(j) == mjJNT_SLIDE ? JointType::Prismatic
                                                     : JointType::Spherical;
        const std::string name = addJoint(jointName(j), t, previous, X_WM, next, X_WM);
        jointProperties(j, true, type(j) == mjJNT_BALL ? "" : name);
        previous = next;
    }
    report_.warning(owner, owner + ": joints " + names + " (" + std::to_string(count) +
                               " in one body) are chained through " + std::to_string(count - 1) +
                               (count == 2 ? " light part of " : " light parts of ") +
                               numberText(lightMass, 10) + (count == 2 ? " kg (" : " kg each (") +
                               numberText(kLightFraction, 10) +
                               " of the body's mass): a Motus joint joins two parts");
}

// A hinge's or slide's range as the stops of coordinate `coordinate` of the Motus joint it
// became. MuJoCo's range is on its qpos; the Motus coordinate is zero where the parts were
// placed, at qpos0 (the joint's `ref`), and turns (slides) the same way, or the other way when
// `reversed` (a slide against its cylindrical joint's axis). MuJoCo's stops are soft (solref,
// solimp, margin); Motus's are rigid. Nothing when the model switches its limits off (the
// range is then warned about by jointProperties).
void Importer::jointLimit(int j, const std::string& motusJoint, std::size_t coordinate,
                          bool reversed) {
    if (!m_.jnt_limited[j] || (m_.opt.disableflags & mjDSBL_LIMIT)) return;
    const double zero = m_.qpos0[m_.jnt_qposadr[j]];
    const double lower = m_.jnt_range[2 * j] - zero, upper = m_.jnt_range[2 * j + 1] - zero;
    if (!(lower <= upper)) return;  // warned about by jointProperties
    for (Joint& joint : spec_.joints) {
        if (joint.name != motusJoint) continue;
        if (joint.limits.size() <= coordinate) joint.limits.resize(coordinate + 1);
        JointLimit& stop = joint.limits[coordinate];
        stop.lower = reversed ? -upper : lower;
        stop.upper = reversed ? -lower : upper;
        limitTaken_[static_cast<std::size_t>(j)] = 1;
        // The bodies are placed at qpos0: a run starts by moving the joint onto the stop it
        // is beyond.
        if (lower > 0.0 || upper < 0.0) {
            const bool hinge = m_.jnt_type[j] == mjJNT_HINGE;
            report_.warning(jointPlace(j), jointPlace(j) + ": qpos0 " + numberText(zero, 10) +
                                               " is outside its range [" +
                                               numberText(m_.jnt_range[2 * j], 10) + ", " +
                                               numberText(m_.jnt_range[2 * j + 1], 10) + "] " +
                                               (hinge ? "rad" : "m") +
                                               ": a run starts with it moved onto the nearer stop");
        }
        // Stops are unilateral constraints, solved with contact by the time-stepping integrator.
        spec_.settings.integrator = IntegratorType::TimeStepping;
        return;
    }
}

// What a joint carries besides its kinematics: its range (stops on the Motus joint's
// coordinate), a spring and damper (a rotational spring-damper on a hinge, a joint controller
// holding a slide's spring position); armature and friction loss have no counterpart yet.
// `motusJoint` is the Motus joint the MuJoCo joint alone became ("" when it is part of a
// combined joint or a ball).
void Importer::jointProperties(int j, bool single, const std::string& motusJoint) {
    const std::size_t ji = static_cast<std::size_t>(j);
    motusJointOf_[ji] = single ? motusJoint : "";
    const std::string owner = jointPlace(j);
    const int dof = m_.jnt_dofadr[j];
    const int qpos = m_.jnt_qposadr[j];
    const bool hinge = m_.jnt_type[j] == mjJNT_HINGE;
    const bool ball = m_.jnt_type[j] == mjJNT_BALL;
    const bool angular = hinge || ball;
    if (!motusJoint.empty()) jointLimit(j, motusJoint, 0, false);
    if (m_.jnt_limited[j] && !limitTaken_[ji]) {
        const std::string range = "range [" + numberText(m_.jnt_range[2 * j], 10) + ", " +
                                  numberText(m_.jnt_range[2 * j + 1], 10) + "] " +
                                  (angular ? "rad" : "m");
        std::string why;
        if (m_.opt.disableflags & mjDSBL_LIMIT)
            why = " is switched off by the model's options (limit): left out";
        else if (ball)
            why = " (the largest angle of a ball joint's turn) has no counterpart: not enforced";
        else if (m_.jnt_range[2 * j] > m_.jnt_range[2 * j + 1])
            why = ": the lower end is above the upper one: not enforced";
        else
            why = " on a joint that is part of a combined joint: not enforced";
        report_.warning(owner, owner + ": " + range + why);
    }
    if (m_.dof_armature[dof] > 0.0) {
        if (motusJoint.empty())
            report_.warning(owner, owner + ": armature " + numberText(m_.dof_armature[dof], 10) +
                                       (angular ? " kg·m²" : " kg") +
                                       " on a joint that is part of a combined or ball joint: "
                                       "left out");
        else
            armature(motusJoint, m_.dof_armature[dof]);
    }
    if (m_.dof_frictionloss[dof] > 0.0 && !(m_.opt.disableflags & mjDSBL_FRICTIONLOSS)) {
        if (motusJoint.empty()) {
            report_.warning(owner, owner + ": frictionloss " +
                                       numberText(m_.dof_frictionloss[dof], 10) +
                                       (angular ? " N·m" : " N") +
                                       " on a joint that is part of a combined or ball joint: "
                                       "left out");
        } else {
            // MuJoCo's friction loss is a constant dry friction on the coordinate: the joint's
            // Coulomb friction of that size (stiction included), solved with contact.
            for (Joint& joint : spec_.joints) {
                if (joint.name != motusJoint) continue;
                if (joint.friction.empty()) joint.friction.resize(1);
                joint.friction[0].preload = m_.dof_frictionloss[dof];
                spec_.settings.integrator = IntegratorType::TimeStepping;
            }
        }
    }
    const double stiffness = m_.jnt_stiffness[j];
    const double damping = m_.dof_damping[dof];
    if (stiffness <= 0.0 && damping <= 0.0) return;
    if (m_.opt.disableflags & mjDSBL_PASSIVE) {
        report_.warning(owner, owner +
                                   ": stiffness and damping are switched off by the model's "
                                   "options (passive): left out");
        return;
    }
    if (motusJoint.empty()) {
        report_.warning(owner,
                        owner + ": stiffness " + numberText(stiffness, 10) + " and damping " +
                            numberText(damping, 10) +
                            " on a joint that is part of a combined or ball joint: left out");
        return;
    }
    // MuJoCo's passive force −k (q − q_spring) − c q̇, with Motus' coordinate θ = q − qpos0.
    ForceSpec f;
    f.id = spec_.newId();
    f.name = uniqueName(sanitize(motusJoint + "_spring"), forceNames_);
    f.joint = motusJoint;
    f.stiffness = stiffness;
    f.damping = damping;
    const double springAt = m_.qpos_spring[qpos] - m_.qpos0[qpos];
    if (hinge) {
        f.type = ForceType::RotationalSpringDamper;
        f.freeLength = springAt;
    } else {
        // A slide's spring: a controller pulling the slide to its spring position.
        f.type = ForceType::JointController;
        f.axis = JointAxis::Translation;
        f.components[0] = numberText(springAt, 17);
    }
    spec_.forces.push_back(std::move(f));
}

// Geoms become shapes of their body's part, in the part frame.
void Importer::geoms() {
    std::vector<bool> coloured(spec_.parts.size(), false);
    std::map<int, std::shared_ptr<const TriangleMesh>> meshes;  // by MuJoCo's mesh id
    for (int g = 0; g < m_.ngeom; ++g) {
        const int b = m_.geom_bodyid[g];
        const std::size_t bi = static_cast<std::size_t>(b);
        const int type = m_.geom_type[g];
        const std::string geomName = name(mjOBJ_GEOM, g);
        const std::string owner = bodyPlace(b);
        const std::string what =
            "geom " + (geomName.empty() ? std::to_string(g) : "'" + excerpt(geomName) + "'");
        const int partIndex = b == 0 ? ground() : partOf_[bi];
        const Transform X_PB = b == 0 ? Transform::identity() : X_PB_[bi];
        if (coloured.size() < spec_.parts.size()) coloured.resize(spec_.parts.size(), false);
        Part& part = spec_.parts[static_cast<std::size_t>(partIndex)];
        const mjtNum* size = m_.geom_size + 3 * g;
        Shape s;
        s.X_PG = X_PB * pose(m_.geom_pos + 3 * g, m_.geom_quat + 4 * g);
        const bool visualOnly = m_.geom_contype[g] == 0 && m_.geom_conaffinity[g] == 0;
        s.role = visualOnly ? ShapeRole::Visual : ShapeRole::Both;
        switch (type) {
        case mjGEOM_SPHERE:
            s.type = ShapeType::Sphere;
            s.radius = size[0];
            break;
        case mjGEOM_CAPSULE:
        case mjGEOM_CYLINDER:
            s.type = type == mjGEOM_CAPSULE ? ShapeType::Capsule : ShapeType::Cylinder;
            s.radius = size[0];
            s.length = 2.0 * size[1];
            break;
        case mjGEOM_BOX:
            s.type = ShapeType::Box;
            s.size = 2.0 * vec3(size);
            break;
        case mjGEOM_PLANE:
            if (!part.ground) {
                report_.warning(owner, owner + ": " + what +
                                           " is a plane on a moving body (Motus has planes on "
                                           "the ground only): left out");
                continue;
            }
            s.type = ShapeType::Plane;
            break;
        case mjGEOM_MESH: {
            const int mesh = m_.geom_dataid[g];
            s.type = ShapeType::Mesh;
            // MuJoCo moves a mesh to its centre of mass and principal axes when it compiles it
            // (and a mesh may be given inline): the shape holds the compiled vertices, in no
            // file (saving the scene writes them beside it, engine/io/scene_json.h). Geoms of
            // one mesh share them.
            if (const auto known = meshes.find(mesh); known != meshes.end()) {
                s.mesh = known->second;
                break;
            }
            auto triangles = std::make_shared<TriangleMesh>();
            const int vertAdr = m_.mesh_vertadr[mesh], faceAdr = m_.mesh_faceadr[mesh];
            for (int v = 0; v < m_.mesh_vertnum[mesh]; ++v) {
                const float* p = m_.mesh_vert + 3 * (vertAdr + v);
                triangles->vertices.emplace_back(p[0], p[1], p[2]);
            }
            for (int f = 0; f < m_.mesh_facenum[mesh]; ++f) {
                const int* t = m_.mesh_face + 3 * (faceAdr + f);
                triangles->triangles.push_back({t[0], t[1], t[2]});
            }
            s.mesh = std::move(triangles);
            meshes.emplace(mesh, s.mesh);
            break;
        }
        case mjGEOM_ELLIPSOID:
            report_.warning(owner, owner + ": " + what + " is an ellipsoid (semi-axes " +
                                       numberText(size[0], 10) + ", " + numberText(size[1], 10) +
                                       ", " + numberText(size[2], 10) +
                                       " m), which Motus has no shape for: left out of the "
                                       "geometry (its mass is in the body's)");
            continue;
        default:
            report_.warning(
                owner,
                owner + ": " + what + " is a height field, which Motus has no shape for: left out");
            continue;
        }
        if (!coloured[static_cast<std::size_t>(partIndex)] && s.drawn()) {
            const int material = m_.geom_matid[g];
            part.colorRgb = rgb(material >= 0 ? m_.mat_rgba + 4 * material : m_.geom_rgba + 4 * g);
            coloured[static_cast<std::size_t>(partIndex)] = true;
        }
        if (s.collides()) {
            const std::uint32_t ct = static_cast<std::uint32_t>(m_.geom_contype[g]);
            const std::uint32_t ca = static_cast<std::uint32_t>(m_.geom_conaffinity[g]);
            const std::size_t pi = static_cast<std::size_t>(partIndex);
            if ((contype_[pi] | conaffinity_[pi]) != 0 &&
                (contype_[pi] != ct || conaffinity_[pi] != ca))
                mixedContact_[pi] = true;
            contype_[pi] |= ct;
            conaffinity_[pi] |= ca;
        }
        part.shapes.push_back(std::move(s));
    }
}

// Sites are named frames on bodies: markers, where Motus measures and applies things.
void Importer::sites() {
    for (int s = 0; s < m_.nsite; ++s) {
        const std::string siteName = name(mjOBJ_SITE, s);
        if (siteName.empty()) continue;
        const int b = m_.site_bodyid[s];
        const std::size_t bi = static_cast<std::size_t>(b);
        const int partIndex = b == 0 ? ground() : partOf_[bi];
        const Transform X_PB = b == 0 ? Transform::identity() : X_PB_[bi];
        Part& part = spec_.parts[static_cast<std::size_t>(partIndex)];
        Marker marker;
        marker.id = spec_.newId();
        std::set<std::string> taken;
        for (const Marker& other : part.markers) taken.insert(other.name);
        marker.name = uniqueName(sanitize(siteName), taken);
        marker.X_PM = X_PB * pose(m_.site_pos + 3 * s, m_.site_quat + 4 * s);
        part.markers.push_back(std::move(marker));
    }
}

// MuJoCo's armature: a rotor's inertia felt on the joint's coordinate alone (added to the mass
// matrix's diagonal). The same kinetic energy ½ a q̇² comes from a rotor of inertia a turning
// on a fixed axle on the ground, geared 1 : 1 (1 rad per m for a slide) to the joint's
// coordinate by a linear coupler: it adds nothing to any other motion, and nothing under
// gravity (its centre stays on its axle). It sits at the joint's place at qpos0, with no shape.
void Importer::armature(const std::string& motusJoint, double inertia) {
    const Joint* joint = spec_.findJoint(motusJoint);
    const Part* parent = joint ? spec_.findPart(joint->markerJ.part) : nullptr;
    const Marker* marker = joint ? spec_.findMarker(joint->markerJ) : nullptr;
    if (!parent || !marker) return;
    const Transform X_WA = parent->X_WP * marker->X_PM;
    const JointAxis axis =
        joint->type == JointType::Prismatic ? JointAxis::Translation : JointAxis::Rotation;
    const int rotor = addPart(motusJoint + "_armature", X_WA);
    Part& part = spec_.parts[static_cast<std::size_t>(rotor)];
    // Its mass matters to nothing (the axle holds it): of the order of its inertia, so that
    // the parts' masses stay within the solver's range.
    part.mass = std::max(inertia, 1e-6);
    part.I_Pcm_P = Mat3::Identity() * inertia;
    const std::string bearing =
        addJoint(motusJoint + "_armature", JointType::Revolute, ground(), X_WA, rotor, X_WA);
    CouplerSpec coupling;
    coupling.id = spec_.newId();
    coupling.name = uniqueName(sanitize(motusJoint + "_armature"), couplerNames_);
    coupling.type = CouplerType::Linear;
    // The rotor's angle means nothing: the relation holds from wherever the parts are placed.
    coupling.terms = {{bearing, JointAxis::Rotation, 1.0}, {motusJoint, axis, -1.0}};
    spec_.couplers.push_back(std::move(coupling));
}

// A joint equality: MuJoCo's q1 − q1₀ = Σ polycoef[k] (q2 − q2₀)^k (qpos0 the reference, the
// pose Motus places the parts in) becomes a linear coupler of the two Motus joints' coordinates
// when the polynomial is linear, and a motion holding joint 1 when there is no joint 2.
void Importer::jointEquality(int e, const std::string& owner, const std::string& label) {
    if (!m_.eq_active[e]) {
        report_.warning(owner, owner + ": inactive in the model: left out");
        return;
    }
    const int j1 = m_.eq_obj1id[e], j2 = m_.eq_obj2id[e];
    const mjtNum* poly = m_.eq_data + mjNEQDATA * e;
    auto motusOf = [&](int j) {
        return j >= 0 && j < m_.njnt ? motusJointOf_[static_cast<std::size_t>(j)] : std::string();
    };
    const std::string first = motusOf(j1), second = motusOf(j2);
    if (first.empty() || (j2 >= 0 && second.empty())) {
        report_.warning(owner, owner +
                                   ": couples a joint that is part of a combined or ball "
                                   "joint: left out");
        return;
    }
    if (poly[2] != 0.0 || poly[3] != 0.0 || poly[4] != 0.0) {
        report_.warning(owner, owner + ": its polynomial is not linear (polycoef " +
                                   numberText(poly[0], 10) + " " + numberText(poly[1], 10) + " " +
                                   numberText(poly[2], 10) + " " + numberText(poly[3], 10) + " " +
                                   numberText(poly[4], 10) +
                                   "), which a Motus coupler is not: left out");
        return;
    }
    auto axisOf = [&](int j) {
        return m_.jnt_type[j] == mjJNT_HINGE ? JointAxis::Rotation : JointAxis::Translation;
    };
    if (j2 < 0 || poly[1] == 0.0) {
        // Joint 1 held at qpos0 + polycoef[0]: a motion of constant value.
        MotionSpec hold;
        hold.id = spec_.newId();
        std::set<std::string> taken;
        for (const MotionSpec& m : spec_.motions) taken.insert(m.name);
        hold.name = uniqueName(sanitize(label), taken);
        hold.joint = first;
        hold.axis = axisOf(j1);
        hold.expression = numberText(poly[0], 17);
        spec_.motions.push_back(std::move(hold));
        return;
    }
    CouplerSpec c;
    c.id = spec_.newId();
    c.name = uniqueName(sanitize(label), couplerNames_);
    c.type = CouplerType::Linear;
    c.terms = {{first, axisOf(j1), 1.0}, {second, axisOf(j2), -poly[1]}};
    c.offset = poly[0];
    spec_.couplers.push_back(std::move(c));
}

// connect → spherical joint at the anchor, weld → fixed joint holding the two bodies as they
// are at qpos0; the others are listed.
void Importer::equalities() {
    for (int e = 0; e < m_.neq; ++e) {
        const std::string eqName = name(mjOBJ_EQUALITY, e);
        const std::string label = eqName.empty() ? "equality" + std::to_string(e) : eqName;
        const std::string owner = "equality '" + excerpt(label) + "'";
        const int type = m_.eq_type[e];
        if (type == mjEQ_JOINT) {
            jointEquality(e, owner, label);
            continue;
        }
        if (type != mjEQ_CONNECT && type != mjEQ_WELD) {
            const char* kind = type == mjEQ_TENDON ? "tendon" : "distance";
            report_.warning(owner, owner + ": a " + std::string(kind) +
                                       " equality, which Motus has no joint for: left out");
            continue;
        }
        if (!m_.eq_active[e]) {
            report_.warning(owner, owner + ": inactive in the model: left out");
            continue;
        }
        const int b1 = m_.eq_obj1id[e], b2 = m_.eq_obj2id[e];
        const int p1 = b1 == 0 ? ground() : partOf_[static_cast<std::size_t>(b1)];
        const int p2 = b2 == 0 ? ground() : partOf_[static_cast<std::size_t>(b2)];
        if (p1 == p2) {
            report_.warning(owner, owner +
                                       ": joins a body to itself (the two bodies are one "
                                       "part): left out");
            continue;
        }
        const Transform& X_W1 = X_WB_[static_cast<std::size_t>(b1)];
        const Transform& X_W2 = X_WB_[static_cast<std::size_t>(b2)];
        // MuJoCo's compiled data (engine_setconst.c): connect holds body 1's point data[0..2]
        // on body 2's point data[3..5]; weld holds body 1's point data[3..5] on body 2's
        // point data[0..2], with body 2 turned by the quaternion data[6..9] from body 1 (the
        // relpose given in the file, or the one at qpos0).
        const mjtNum* data = m_.eq_data + mjNEQDATA * e;
        Transform X_WM1, X_WM2;
        if (type == mjEQ_CONNECT) {
            X_WM1 = {Quat::Identity(), X_W1 * vec3(data)};
            X_WM2 = {Quat::Identity(), X_W2 * vec3(data + 3)};
        } else {
            X_WM1 = X_W1 * Transform{Quat::Identity(), vec3(data + 3)};
            X_WM2 = X_W2 * Transform{quat(data + 6).conjugate(), vec3(data)};
        }
        addJoint(label, type == mjEQ_CONNECT ? JointType::Spherical : JointType::Fixed, p2, X_WM2,
                 p1, X_WM1);
        const double gap = (X_WM1.p - X_WM2.p).norm();
        const double turn = type == mjEQ_WELD ? X_WM1.R.angularDistance(X_WM2.R) : 0.0;
        if (gap > kSameAnchor || turn > kAxesAligned)
            report_.warning(owner, owner + ": is not met at the reference pose (" +
                                       numberText(gap, 10) + " m, " + numberText(turn, 10) +
                                       " rad apart): the run starts by assembling it");
    }
}

// Actuators on hinges and slides whose bias makes them a spring and damper at ctrl 0 (position
// and velocity servos) hold their joint as MuJoCo's would with no control input; the others
// have nothing to drive them in Motus.
void Importer::actuators() {
    if (m_.opt.disableflags & mjDSBL_ACTUATION) {
        if (m_.nu > 0)
            report_.warning("", std::to_string(m_.nu) +
                                    " actuators are switched off by the model's options: left out");
        return;
    }
    for (int u = 0; u < m_.nu; ++u) {
        const std::string actName = name(mjOBJ_ACTUATOR, u);
        const std::string label = actName.empty() ? "actuator" + std::to_string(u) : actName;
        const std::string owner = "actuator '" + excerpt(label) + "'";
        const int trn = m_.actuator_trntype[u];
        const int j = m_.actuator_trnid[2 * u];
        const bool onJoint = (trn == mjTRN_JOINT || trn == mjTRN_JOINTINPARENT) && j >= 0;
        if (!onJoint) {
            report_.warning(owner, owner +
                                       ": drives a tendon, site or body, which Motus has no "
                                       "transmission for: left out");
            continue;
        }
        const std::string joint = "'" + excerpt(jointName(j)) + "'";
        const mjtNum* gain = m_.actuator_gainprm + mjNGAIN * u;
        const mjtNum* bias = m_.actuator_biasprm + mjNBIAS * u;
        const double gear = m_.actuator_gear[6 * u];
        const bool affine = m_.actuator_dyntype[u] == mjDYN_NONE &&
                            m_.actuator_gaintype[u] == mjGAIN_FIXED &&
                            m_.actuator_biastype[u] == mjBIAS_AFFINE;
        if (m_.actuator_biastype[u] == mjBIAS_NONE) {
            report_.warning(owner, "motor " + owner.substr(9) + " on joint " + joint +
                                       " has no control input in Motus: left out");
            continue;
        }
        // With ctrl c (0, clamped to ctrlrange) the joint force is
        // gear (g c + b0 + b1 gear q + b2 gear q̇) = −kp (q − q*) − kd q̇.
        const double kp = -bias[1] * gear * gear;
        const double kd = -bias[2] * gear * gear;
        double ctrl = 0.0;
        if (m_.actuator_ctrllimited[u])
            ctrl = std::clamp(0.0, m_.actuator_ctrlrange[2 * u], m_.actuator_ctrlrange[2 * u + 1]);
        const double constant = gear * (gain[0] * ctrl + bias[0]);
        const std::string& motusJoint = motusJointOf_[static_cast<std::size_t>(j)];
        if (!affine || kp < 0.0 || kd < 0.0 || (kp == 0.0 && kd == 0.0) ||
            (kp == 0.0 && constant != 0.0)) {
            report_.warning(owner, owner + " on joint " + joint +
                                       " is not a position or velocity servo, and has no control "
                                       "input in Motus: left out");
            continue;
        }
        if (motusJoint.empty()) {
            report_.warning(owner, owner + " on joint " + joint +
                                       ", which is part of a combined or ball joint: left out");
            continue;
        }
        const int qpos = m_.jnt_qposadr[j];
        const double target = (kp > 0.0 ? constant / kp : 0.0) - m_.qpos0[qpos];
        ForceSpec f;
        f.id = spec_.newId();
        f.name = uniqueName(sanitize(label), forceNames_);
        f.type = ForceType::JointController;
        f.joint = motusJoint;
        f.axis = m_.jnt_type[j] == mjJNT_HINGE ? JointAxis::Rotation : JointAxis::Translation;
        f.stiffness = kp;
        f.damping = kd;
        f.components[0] = numberText(target, 17);
        if (m_.actuator_forcelimited[u]) {
            const double lo = m_.actuator_forcerange[2 * u], hi = m_.actuator_forcerange[2 * u + 1];
            f.maxEffort = std::abs(gear) * std::min(std::abs(lo), std::abs(hi));
            if (lo != -hi)
                report_.warning(owner, owner + ": force range [" + numberText(lo, 10) + ", " +
                                           numberText(hi, 10) + "] limited to ±" +
                                           numberText(f.maxEffort, 10) +
                                           " (Motus limits symmetrically)");
        }
        report_.warning(owner, owner + " on joint " + joint + ": a joint controller (kp " +
                                   numberText(kp, 10) + ", kd " + numberText(kd, 10) +
                                   ") holding the joint where MuJoCo's does with no control input");
        spec_.forces.push_back(std::move(f));
    }
}

// Contact stays off (as the caller chooses), but who may touch whom is kept: collision
// filters from contype/conaffinity, <exclude> pairs switched off.
void Importer::contact() {
    for (std::size_t p = 0; p < spec_.parts.size(); ++p) {
        Part& part = spec_.parts[p];
        const bool collides = std::any_of(part.shapes.begin(), part.shapes.end(),
                                          [](const Shape& s) { return s.collides(); });
        if (!collides) continue;
        part.collision = collisionFilter(contype_[p], conaffinity_[p]);
        if (((contype_[p] | conaffinity_[p]) >> 16) != 0)
            report_.warning("part '" + part.name + "'",
                            "part '" + part.name +
                                "': contype or conaffinity bits above the 16th are not kept");
        if (mixedContact_[p])
            report_.warning("part '" + part.name + "'",
                            "part '" + part.name +
                                "': its geoms have different contype/conaffinity; the part "
                                "touches what any of them touches");
    }
    std::set<std::string> pairNames;
    for (int k = 0; k < m_.nexclude; ++k) {
        const int signature = m_.exclude_signature[k];
        const int b1 = (signature >> 16) - 1, b2 = (signature & 0xffff) - 1;
        if (b1 < 0 || b2 < 0 || b1 >= m_.nbody || b2 >= m_.nbody) continue;
        const int p1 = b1 == 0 ? ground() : partOf_[static_cast<std::size_t>(b1)];
        const int p2 = b2 == 0 ? ground() : partOf_[static_cast<std::size_t>(b2)];
        if (p1 == p2) continue;
        ContactPairSpec pair;
        pair.id = spec_.newId();
        pair.partA = spec_.parts[static_cast<std::size_t>(p1)].name;
        pair.partB = spec_.parts[static_cast<std::size_t>(p2)].name;
        pair.name = uniqueName(sanitize("exclude_" + pair.partA + "_" + pair.partB), pairNames);
        pair.enabled = false;
        spec_.contact.pairs.push_back(std::move(pair));
    }
    if (m_.npair > 0)
        report_.warning("", std::to_string(m_.npair) +
                                " explicit contact pairs (<pair>) are not imported: parts touch "
                                "by their geoms' contype and conaffinity");
}

std::optional<SceneSpec> Importer::run() {
    const std::string file = "'" + path_ + "'";
    if (m_.nbody <= 1) {
        report_.error("", file + " is not a robot description: it has no body besides the world");
        return std::nullopt;
    }
    const char* modelName = m_.names;  // the model's name comes first in the names buffer
    spec_.name = modelName && *modelName ? modelName : std::filesystem::path(path_).stem().string();
    spec_.description = "Imported from " + std::filesystem::path(path_).filename().string();
    spec_.gravity = (m_.opt.disableflags & mjDSBL_GRAVITY) ? Vec3::Zero() : vec3(m_.opt.gravity);

    const std::size_t nbody = static_cast<std::size_t>(m_.nbody);
    X_WB_.assign(nbody, Transform::identity());
    partOf_.assign(nbody, -1);
    X_PB_.assign(nbody, Transform::identity());
    motusJointOf_.assign(static_cast<std::size_t>(m_.njnt), "");
    limitTaken_.assign(static_cast<std::size_t>(m_.njnt), 0);
    // The world's own geoms (a floor) come first, so the ground is the first part.
    if (m_.body_geomnum[0] > 0) ground();
    for (int b = 1; b < m_.nbody; ++b) placeBody(b);
    geoms();
    sites();
    equalities();
    actuators();
    contact();

    // What MuJoCo simulates and Motus has no element for.
    if (m_.ntendon > 0)
        report_.warning(
            "", std::to_string(m_.ntendon) + " tendons have no counterpart in Motus: left out");
    if (m_.opt.density > 0.0 || m_.opt.viscosity > 0.0 || vec3(m_.opt.wind).norm() > 0.0)
        report_.warning("",
                        "the medium's density, viscosity and wind (fluid forces) have no "
                        "counterpart in Motus: left out");
    if (m_.ncam > 0 || m_.nlight > 0)
        report_.warning("", std::to_string(m_.ncam) + " cameras and " + std::to_string(m_.nlight) +
                                " lights are not imported");
    if (report_.hasErrors()) return std::nullopt;
    return std::move(spec_);
}

}  // namespace

RobotImportResult importMjcfFile(const std::string& path, const RobotImportOptions& options) {
    RobotImportResult result;
    Reporter report(result.diagnostics);
    if (const std::string problem = inputFileProblem(path, "MJCF file"); !problem.empty()) {
        report.error("", problem);
        report.finish();
        return result;
    }
    if (options.inertiaFromGeometry)
        report.warning("",
                       "MJCF computes inertia from geometry by its own compiler setting "
                       "(<compiler inertiafromgeom>): the import option is not used");

    {
        // The file and the files it includes (MuJoCo reads an include's path from the main
        // file's folder; the including file's is tried too), each once, at most
        // kMaxScannedFiles: what they hold reaches the model as much as the file's own numbers.
        // The files they name are looked at before MuJoCo opens them: an include, a mesh or a
        // texture that is a FIFO or a device would block its compiler (it would wait on a FIFO
        // until its time bound, 120 s) or read without end.
        constexpr std::size_t kMaxScannedFiles = 1000;
        const std::filesystem::path folder = std::filesystem::path(path).parent_path();
        std::vector<std::pair<std::string, std::string>> pending = {{path, ""}};  // path, label
        std::set<std::string> seen;
        std::vector<std::pair<FileReference, std::string>> assets;  // with the file naming it
        std::map<std::string, std::string> assetFolders;            // meshdir, texturedir, assetdir
        // "'<file>' line N: <tag file='x'>: " for an error about what the element names.
        const auto place = [](const std::string& file, const FileReference& ref) {
            return "'" + file + "' line " + std::to_string(ref.line) + ": <" + excerpt(ref.tag) +
                   " " + ref.attribute + "='" + excerpt(ref.value) + "'>: ";
        };
        // A path that is there but is no regular file (stat follows links, opens nothing).
        const auto notAFile = [](const std::filesystem::path& p) {
            std::error_code ec;
            return std::filesystem::exists(p, ec) && !isRegularFile(p.string());
        };
        while (!pending.empty() && seen.size() < kMaxScannedFiles) {
            const auto [file, label] = pending.back();
            pending.pop_back();
            std::error_code ec;
            const std::string key = std::filesystem::weakly_canonical(file, ec).string();
            if (!seen.insert(ec ? file : key).second || !isRegularFile(file)) continue;
            std::ifstream in(file, std::ios::binary);
            std::ostringstream text;
            text << in.rdbuf();
            std::vector<FileReference> references;
            reportNonFiniteNumbers(std::move(text).str(), label, report, references);
            for (const FileReference& ref : references) {
                if (ref.attribute != "file") {
                    assetFolders[ref.attribute] = ref.value;
                    continue;
                }
                const std::filesystem::path named(ref.value);
                if (ref.tag != "include") {
                    assets.emplace_back(ref, file);
                    continue;
                }
                std::filesystem::path found = named.is_absolute() ? named : folder / named;
                if (!std::filesystem::exists(found, ec))
                    found = std::filesystem::path(file).parent_path() / named;
                if (notAFile(found)) {
                    report.error(
                        "", place(file, ref) + inputFileProblem(found.string(), "included file"));
                    continue;
                }
                pending.emplace_back(found.string(), ref.value);
            }
        }
        // MuJoCo looks for an asset in the <compiler>'s folder for its kind, relative to the
        // main file's folder unless absolute: each place it may look is checked.
        for (const auto& [ref, file] : assets) {
            const std::filesystem::path named(ref.value);
            std::vector<std::filesystem::path> candidates = {named.is_absolute() ? named
                                                                                 : folder / named};
            for (const auto& [attribute, dir] : assetFolders) {
                const std::filesystem::path base(dir);
                candidates.push_back((base.is_absolute() ? base : folder / base) / named);
            }
            for (const std::filesystem::path& candidate : candidates)
                if (notAFile(candidate)) {
                    report.error("",
                                 place(file, ref) + inputFileProblem(candidate.string(), "file"));
                    break;
                }
        }
        if (report.hasErrors()) {
            report.finish();
            return result;
        }
    }

    // MuJoCo's compiler, in a child process (child_process.h): it indexes an OBJ's or an inline
    // mesh's faces unchecked (a face naming vertex 99999 of 4 crashes it) and allocates what
    // <size> asks for (nkey="1e8": 10 GB), so it runs bounded. The child sends back the compiled
    // model as mj_saveModel writes it, MuJoCo's message and its warnings.
    std::unique_ptr<mjModel, ModelDeleter> model;
    std::string message;  // MuJoCo's message for a model it compiled
    std::vector<std::string> warnings;
    std::string bytes, failure;
    bool childFailed = false;
    const auto compile = [&](std::string& out, std::string& reason) {
        std::vector<std::string> collected;
        loadWarnings = &collected;
        mju_user_warning = collectWarning;
        mju_user_error = [](const char* text) { failInChildProcess("MuJoCo: " + trimmed(text)); };
        char error[1024] = "";
        const std::unique_ptr<mjModel, ModelDeleter> compiled(
            mj_loadXML(path.c_str(), nullptr, error, sizeof error));
        if (!compiled) {
            reason = "MuJoCo says: " + trimmed(error).substr(0, 400);
            return false;
        }
        appendText(out, error);
        appendCount(out, collected.size());
        for (const std::string& w : collected) appendText(out, w);
        std::string saved(static_cast<std::size_t>(mj_sizeModel(compiled.get())), '\0');
        mj_saveModel(compiled.get(), nullptr, saved.data(), static_cast<int>(saved.size()));
        out += saved;
        return true;
    };
    try {
        if (runInChildProcess(compile, options.compilerLimits, bytes, failure, &childFailed)) {
            std::string_view rest = bytes;
            std::uint64_t count = 0;
            if (takeText(rest, message) && takeCount(rest, count) && count <= kMaxLoadWarnings) {
                warnings.resize(count);
                for (std::string& w : warnings)
                    if (!takeText(rest, w)) rest = {};
                model = modelFromBytes(rest);
            }
            if (!model)
                failure = "MuJoCo's compiled model could not be read back";
            else if (failure = meshFaceProblem(*model); !failure.empty())
                model.reset();
        }
    } catch (const std::bad_alloc&) {
        failure = "out of memory while reading back MuJoCo's compiled model";
    } catch (const std::exception& e) {
        failure = e.what();
    }
    if (!model) {
        report.error("", "'" + path + "' is not a valid MJCF model: " +
                             (childFailed ? "MuJoCo's compiler " + failure +
                                                ": the file, or a mesh it names, is malformed or "
                                                "asks for too much"
                                          : failure));
        report.finish();
        return result;
    }
    if (!trimmed(message).empty()) report.warning("", "MuJoCo: " + trimmed(message));
    for (const std::string& w : warnings) report.warning("", "MuJoCo: " + trimmed(w));

    std::optional<SceneSpec> spec = Importer(*model, path, options, report).run();
    report.finish();
    finishImport(std::move(spec), result);
    return result;
}

}  // namespace engine::io
