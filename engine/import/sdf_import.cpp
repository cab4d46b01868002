#include "engine/import/sdf_import.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <vector>

#include <sdf/Box.hh>
#include <sdf/Capsule.hh>
#include <sdf/Collision.hh>
#include <sdf/Console.hh>
#include <sdf/Cylinder.hh>
#include <sdf/Error.hh>
#include <sdf/Geometry.hh>
#include <sdf/Joint.hh>
#include <sdf/JointAxis.hh>
#include <sdf/Link.hh>
#include <sdf/Material.hh>
#include <sdf/Mesh.hh>
#include <sdf/Model.hh>
#include <sdf/ParserConfig.hh>
#include <sdf/Plane.hh>
#include <sdf/Root.hh>
#include <sdf/SDFImpl.hh>
#include <sdf/SemanticPose.hh>
#include <sdf/Sphere.hh>
#include <sdf/Visual.hh>
#include <sdf/World.hh>
#include <sdf/parser.hh>

#include <console_bridge/console.h>

#include "engine/import/import_reporter.h"
#include "engine/import/inertia_fixup.h"
#include "engine/import/link_overlaps.h"
#include "engine/import/resource_path.h"
#include "engine/io/input_file.h"
#include "engine/io/mesh_loader.h"
#include "engine/math/constants.h"
#include "engine/math/number_text.h"
#include "engine/model/mass_properties.h"

// libsdformat reads the file, checks it against the SDF specification and resolves its frame
// graph; this file walks its models with an explicit stack (nested models included) and turns
// them into a scene in two passes:
//   1. links → parts. Each link's pose is resolved in its model's frame (X_ML) and placed in
//      the world through the model's pose (X_WL = X_WM X_ML). A link of a static model, and the
//      root (canonical) link of a model bolted down by fixedBase, lives on the ground part: its
//      frame there is X_GL = X_WL, and its shapes are placed through it.
//   2. joints → joints. The joint frame Jf is resolved in the model frame too (SDF puts it at
//      the child link's frame moved by the joint pose); each axis is resolved in the model's
//      coordinates (ResolveXyz, whatever frame the file expresses it in). The two markers are
//      the joint frame turned so that z lies along the axis: X_WK = X_WJf R(z → axis).
// Diagnostics name the place as "link 'name'" or "joint 'name'" (nested names keep SDF's
// "model::link" scope) and quote at most kExcerptLength characters of the file.

namespace engine::io {
namespace {

constexpr double kPerpendicularTolerance = 1e-9;  // |cos| of a universal joint's cross pins
constexpr double kUnlimited = 1e16;       // SDF's default joint limits (±1e16): no limit given
constexpr double kWaterDensity = 1000.0;  // kg/m³: a massless link's density from geometry

// The last kExcerptLength characters of a path or URI (its file name is what tells), "…" first
// when cut.
std::string tailExcerpt(std::string_view text) {
    if (text.size() <= kExcerptLength) return std::string(text);
    std::size_t start = text.size() - kExcerptLength;
    while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80)
        ++start;  // UTF-8
    return "…" + std::string(text.substr(start));
}

using Reporter = ImportReporter;

Vec3 toVec(const ignition::math::Vector3d& v) {
    return {v.X(), v.Y(), v.Z()};
}
bool isFinite(const ignition::math::Pose3d& p) {
    return std::isfinite(p.Pos().X()) && std::isfinite(p.Pos().Y()) && std::isfinite(p.Pos().Z()) &&
           std::isfinite(p.Rot().W()) && std::isfinite(p.Rot().X()) && std::isfinite(p.Rot().Y()) &&
           std::isfinite(p.Rot().Z());
}
// Only for finite poses (isFinite).
Transform toTransform(const ignition::math::Pose3d& p) {
    const Quat R(p.Rot().W(), p.Rot().X(), p.Rot().Y(), p.Rot().Z());
    return {R.norm() > 0.0 ? R.normalized() : Quat::Identity(), toVec(p.Pos())};
}

// libsdformat's errors as error diagnostics: the file and line, the message, the element.
// An invalid inertia is left to the fix-ups (engine/import/inertia_fixup.h), which say what they
// change (or refuse it when strict).
void reportSdfErrors(const sdf::Errors& errors, const std::string& path, Reporter& report) {
    for (const sdf::Error& e : errors) {
        if (e.Code() == sdf::ErrorCode::LINK_INERTIA_INVALID) continue;
        std::string at = "'" + e.FilePath().value_or(path) + "'";
        if (e.LineNumber()) at += ", line " + std::to_string(*e.LineNumber());
        const std::string element = e.XmlPath().value_or("");
        report.error(element, at + ": " + e.Message() +
                                  (element.empty() ? std::string() : " (" + element + ")"));
    }
}

// A pose resolved in the frame `to`, or nullopt (reported under `owner`) when it cannot be
// resolved or is not finite.
std::optional<Transform> resolved(const sdf::SemanticPose& pose, const std::string& to,
                                  const std::string& owner, const std::string& path,
                                  Reporter& report) {
    ignition::math::Pose3d X;
    const sdf::Errors errors = pose.Resolve(X, to);
    if (!errors.empty()) {
        for (const sdf::Error& e : errors)
            report.error(owner, owner + ": pose cannot be resolved: " + e.Message());
        return std::nullopt;
    }
    if (!isFinite(X)) {
        report.error(owner, owner + ": pose is not finite (in '" + excerpt(path) + "')");
        return std::nullopt;
    }
    return toTransform(X);
}

// A model to walk: its pose in the world, the scope its names live in ("outer::inner::",
// empty for a top-level model) and the prefix its parts' names get.
struct ModelVisit {
    const sdf::Model* model = nullptr;
    Transform X_WM;
    std::string scope;
    std::string namePrefix;
    bool isStatic = false;
};

// Where a link lives: its part, and the link frame L in that part's frame P.
struct LinkSlot {
    std::size_t part = 0;
    Transform X_PL;
};

class SceneBuilder {
public:
    SceneBuilder(const std::string& path, const RobotImportOptions& options, Reporter& report)
        : path_(path), options_(options), report_(report) {
        dir_ = std::filesystem::path(path).parent_path();
        if (dir_.empty()) dir_ = ".";
    }

    std::optional<SceneSpec> build(const sdf::Root& root);

private:
    std::size_t ground();
    std::string uniquePartName(const std::string& base);
    std::string uniqueJointName(const std::string& base);
    void addLink(const ModelVisit& visit, const sdf::Link& link, bool welded);
    void addShapes(const sdf::Link& link, const std::string& owner, const LinkSlot& slot,
                   std::vector<Shape>& into, std::optional<std::uint32_t>& colour);
    std::optional<Shape> toShape(const sdf::Geometry& geometry, const Transform& X_PG,
                                 ShapeRole role, const std::string& owner, const std::string& what,
                                 const std::string& descriptionFile, bool onGround);
    void addJoint(const ModelVisit& visit, const sdf::Joint& joint);
    std::optional<Vec3> axisInWorld(const ModelVisit& visit, const sdf::Joint& joint,
                                    unsigned index, const std::string& owner);
    void axisDynamics(const sdf::Joint& joint, unsigned index, bool limited,
                      const std::string& owner, const std::string& motusJoint, int coordinate = 0);
    void connect(JointType type, const std::string& name, std::size_t partI, const Transform& X_WI,
                 std::size_t partJ, const Transform& X_WJ);
    ResourceResolver& resolverFor(const std::string& descriptionFile);
    void prefetchMeshes(const std::vector<ModelVisit>& models);

    std::string path_;
    std::filesystem::path dir_;
    const RobotImportOptions& options_;
    Reporter& report_;
    SceneSpec spec_;
    std::optional<std::size_t> ground_;
    std::set<std::string> partNames_, jointNames_, forceNames_;
    std::map<std::string, LinkSlot> slotOf_;  // link name with its model's prefix → its place
    std::map<std::string, std::unique_ptr<ResourceResolver>> resolvers_;  // by description file
    MeshFiles meshes_;                                                    // (prefetchMeshes)
};

std::size_t SceneBuilder::ground() {
    if (ground_) return *ground_;
    Part part;
    part.id = spec_.newId();
    part.name = uniquePartName("world");
    part.ground = true;
    part.colorRgb = 0x7a828c;
    ground_ = spec_.parts.size();
    spec_.parts.push_back(std::move(part));
    return *ground_;
}

std::string SceneBuilder::uniquePartName(const std::string& base) {
    std::string name = sanitize(base);
    for (int k = 2; !partNames_.insert(name).second; ++k)
        name = sanitize(base).substr(0, 120) + "_" + std::to_string(k);
    return name;
}

std::string SceneBuilder::uniqueJointName(const std::string& base) {
    std::string name = sanitize(base);
    for (int k = 2; !jointNames_.insert(name).second; ++k)
        name = sanitize(base).substr(0, 120) + "_" + std::to_string(k);
    return name;
}

ResourceResolver& SceneBuilder::resolverFor(const std::string& descriptionFile) {
    std::unique_ptr<ResourceResolver>& r = resolvers_[descriptionFile];
    if (!r) r = std::make_unique<ResourceResolver>(descriptionFile, options_.packagePath);
    return *r;
}

// Every mesh file the models' links name (nested models too), read before the links are
// placed: each in a child process of its own, as many at once as the engine has threads.
void SceneBuilder::prefetchMeshes(const std::vector<ModelVisit>& models) {
    std::vector<std::string> files;
    const auto add = [&](const sdf::Geometry* geometry) {
        if (!geometry || geometry->Type() != sdf::GeometryType::MESH || !geometry->MeshShape())
            return;
        const sdf::Mesh& mesh = *geometry->MeshShape();
        const std::string description = mesh.FilePath().empty() ? path_ : mesh.FilePath();
        const ResourceLookup found = resolverFor(description).resolve(mesh.Uri());
        if (found.file) files.push_back(*found.file);
    };
    std::vector<const sdf::Model*> pending;
    for (const ModelVisit& visit : models) pending.push_back(visit.model);
    while (!pending.empty()) {
        const sdf::Model* model = pending.back();
        pending.pop_back();
        if (!model) continue;
        for (std::uint64_t k = 0; k < model->LinkCount(); ++k) {
            const sdf::Link& link = *model->LinkByIndex(k);
            for (std::uint64_t v = 0; v < link.VisualCount(); ++v)
                add(link.VisualByIndex(v)->Geom());
            for (std::uint64_t c = 0; c < link.CollisionCount(); ++c)
                add(link.CollisionByIndex(c)->Geom());
        }
        for (std::uint64_t k = 0; k < model->ModelCount(); ++k)
            pending.push_back(model->ModelByIndex(k));
    }
    meshes_.prefetch(files);
}

std::optional<Shape> SceneBuilder::toShape(const sdf::Geometry& geometry, const Transform& X_PG,
                                           ShapeRole role, const std::string& owner,
                                           const std::string& what,
                                           const std::string& descriptionFile, bool onGround) {
    Shape s;
    s.role = role;
    s.X_PG = X_PG;
    // Each size must be a finite positive length.
    auto length = [&](double value, const char* name) {
        if (std::isfinite(value) && value > 0.0) return true;
        report_.error(owner, owner + ": " + what + " " + name + " " + numberText(value, 10) +
                                 " m is not a positive length");
        return false;
    };
    switch (geometry.Type()) {
    case sdf::GeometryType::BOX: {
        s.type = ShapeType::Box;
        s.size = toVec(geometry.BoxShape()->Size());
        if (!length(s.size.x(), "size x") || !length(s.size.y(), "size y") ||
            !length(s.size.z(), "size z"))
            return std::nullopt;
        return s;
    }
    case sdf::GeometryType::SPHERE:
        s.type = ShapeType::Sphere;
        s.radius = geometry.SphereShape()->Radius();
        if (!length(s.radius, "radius")) return std::nullopt;
        return s;
    case sdf::GeometryType::CYLINDER:
        s.type = ShapeType::Cylinder;
        s.radius = geometry.CylinderShape()->Radius();
        s.length = geometry.CylinderShape()->Length();
        if (!length(s.radius, "radius") || !length(s.length, "length")) return std::nullopt;
        return s;
    case sdf::GeometryType::CAPSULE:
        // SDF's capsule length is its straight part's, as Motus's is.
        s.type = ShapeType::Capsule;
        s.radius = geometry.CapsuleShape()->Radius();
        s.length = geometry.CapsuleShape()->Length();
        if (!length(s.radius, "radius") || !length(s.length, "length")) return std::nullopt;
        return s;
    case sdf::GeometryType::PLANE: {
        if (!onGround) {
            report_.warning(owner, owner + ": " + what +
                                       " is a plane on a moving link (a plane is infinite, only "
                                       "the ground has one): left out");
            return std::nullopt;
        }
        const Vec3 normal = toVec(geometry.PlaneShape()->Normal());
        if (!normal.allFinite() || normal.norm() == 0.0) {
            report_.error(owner, owner + ": " + what + " plane normal has no direction");
            return std::nullopt;
        }
        // The plane's surface is the shape frame's xy plane, its normal the frame's z.
        s.type = ShapeType::Plane;
        s.X_PG = X_PG * Transform{Quat::FromTwoVectors(Vec3::UnitZ(), normal), Vec3::Zero()};
        return s;
    }
    case sdf::GeometryType::MESH: {
        const sdf::Mesh& mesh = *geometry.MeshShape();
        const std::string uri = mesh.Uri();
        const ResourceLookup found = resolverFor(descriptionFile).resolve(uri);
        if (!found.file) {
            report_.warning(owner, owner + ": " + what + " mesh '" + tailExcerpt(uri) +
                                       "' not found (tried " + found.tried + "): left out");
            return std::nullopt;
        }
        const LoadedMesh& loaded = meshes_.read(*found.file);
        if (!(s.mesh = loaded.mesh)) {
            report_.warning(owner, owner + ": " + what + " mesh '" + tailExcerpt(*found.file) +
                                       "' unreadable (" + loaded.error + "): left out");
            return std::nullopt;
        }
        s.type = ShapeType::Mesh;
        std::error_code ec;
        const std::filesystem::path relative = std::filesystem::relative(*found.file, dir_, ec);
        s.meshFile = ec || relative.empty() ? *found.file : relative.string();
        s.scale = toVec(mesh.Scale());
        if (!s.scale.allFinite() || (s.scale.array() == 0.0).any()) {
            report_.error(owner, owner + ": " + what + " mesh scale is not finite and non-zero");
            return std::nullopt;
        }
        if (!mesh.Submesh().empty())
            report_.warning(owner, owner + ": " + what + " submesh '" + excerpt(mesh.Submesh()) +
                                       "': the whole mesh is used");
        return s;
    }
    case sdf::GeometryType::ELLIPSOID:
        report_.warning(owner, owner + ": " + what + " is an ellipsoid: left out");
        return std::nullopt;
    case sdf::GeometryType::HEIGHTMAP:
        report_.warning(owner, owner + ": " + what + " is a heightmap: left out");
        return std::nullopt;
    case sdf::GeometryType::EMPTY:
        break;
    }
    report_.warning(owner, owner + ": " + what + " has no geometry Motus reads: left out");
    return std::nullopt;
}

void SceneBuilder::addShapes(const sdf::Link& link, const std::string& owner, const LinkSlot& slot,
                             std::vector<Shape>& into, std::optional<std::uint32_t>& colour) {
    const bool onGround = ground_ && slot.part == *ground_;
    for (std::uint64_t k = 0; k < link.VisualCount(); ++k) {
        const sdf::Visual& visual = *link.VisualByIndex(k);
        const std::string what = "visual '" + excerpt(visual.Name()) + "'";
        if (!visual.Geom()) continue;
        const std::optional<Transform> X_LG =
            resolved(visual.SemanticPose(), "", owner + " " + what, path_, report_);
        if (!X_LG) continue;
        const std::string file =
            visual.Geom()->MeshShape() ? visual.Geom()->MeshShape()->FilePath() : "";
        if (auto s = toShape(*visual.Geom(), slot.X_PL * *X_LG, ShapeRole::Visual, owner, what,
                             file.empty() ? path_ : file, onGround))
            into.push_back(std::move(*s));
        if (!colour && visual.Material()) {
            const ignition::math::Color c = visual.Material()->Diffuse();
            auto channel = [](float v) {
                return static_cast<std::uint32_t>(
                    std::lround(std::isfinite(v) ? std::clamp(v, 0.0f, 1.0f) * 255.0f : 0.0f));
            };
            if (c.A() > 0.0f) colour = channel(c.R()) << 16 | channel(c.G()) << 8 | channel(c.B());
        }
    }
    for (std::uint64_t k = 0; k < link.CollisionCount(); ++k) {
        const sdf::Collision& collision = *link.CollisionByIndex(k);
        const std::string what = "collision '" + excerpt(collision.Name()) + "'";
        if (!collision.Geom()) continue;
        const std::optional<Transform> X_LG =
            resolved(collision.SemanticPose(), "", owner + " " + what, path_, report_);
        if (!X_LG) continue;
        const std::string file =
            collision.Geom()->MeshShape() ? collision.Geom()->MeshShape()->FilePath() : "";
        if (auto s = toShape(*collision.Geom(), slot.X_PL * *X_LG, ShapeRole::Collision, owner,
                             what, file.empty() ? path_ : file, onGround))
            into.push_back(std::move(*s));
    }
}

// The link's inertial: mass, centre of mass and inertia about it in the link frame L, from
// libsdformat (which gives mass 1 and unit moments to a link without <inertial>).
std::optional<MassProperties> inertialOf(const sdf::Link& link, const std::string& owner,
                                         Reporter& report) {
    const ignition::math::Inertiald& inertial = link.Inertial();
    const ignition::math::Matrix3d& moi = inertial.MassMatrix().Moi();
    MassProperties props;
    props.mass = inertial.MassMatrix().Mass();
    Mat3 I_Icm_I;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) I_Icm_I(r, c) = moi(r, c);
    if (!std::isfinite(props.mass)) {
        report.error(owner + "/inertial/mass", owner + ": mass is not finite");
        return std::nullopt;
    }
    if (!I_Icm_I.allFinite()) {
        report.error(owner + "/inertial/inertia", owner + ": inertia is not finite");
        return std::nullopt;
    }
    if (!isFinite(inertial.Pose())) {
        report.error(owner + "/inertial/pose", owner + ": inertial pose is not finite");
        return std::nullopt;
    }
    Diagnostics negative;
    if (!checkMomentsNotNegative(I_Icm_I.diagonal(), owner, negative)) {
        for (const Diagnostic& d : negative) report.add(d);
        return std::nullopt;
    }
    // The inertial frame I in L: I_Lcm_L = R_LI I_Icm_I R_LIᵀ.
    const Transform X_LI = toTransform(inertial.Pose());
    const Mat3 R_LI = X_LI.rotationMatrix();
    props.p_PPcm = X_LI.p;
    props.I_Pcm_P = R_LI * I_Icm_I * R_LI.transpose();
    return props;
}

void SceneBuilder::addLink(const ModelVisit& visit, const sdf::Link& link, bool welded) {
    // Keyed by the name prefix, which tells the top-level models of a world apart (two copies
    // of one model hold links of the same names); named in messages by their model's scope.
    const std::string key = visit.namePrefix + link.Name();
    const std::string owner = linkPlace(visit.scope + link.Name());
    const std::optional<Transform> X_ML =
        resolved(link.SemanticPose(), "__model__", owner, path_, report_);
    if (!X_ML) return;
    const Transform X_WL = visit.X_WM * *X_ML;
    std::optional<std::uint32_t> colour;

    // A static model's links, and a link bolted down, are on the ground.
    if (visit.isStatic || welded) {
        const LinkSlot slot{ground(), X_WL};
        slotOf_[key] = slot;
        std::vector<Shape> shapes;
        addShapes(link, owner, slot, shapes, colour);
        Part& g = spec_.parts[slot.part];
        g.shapes.insert(g.shapes.end(), shapes.begin(), shapes.end());
        return;
    }

    const std::size_t index = spec_.parts.size();
    const std::uint32_t palette[] = {0x7a828c, 0xe0703c, 0x3c8ee0, 0x4fb45a, 0xd9b43c, 0x9b6cd0};
    Part part;
    part.id = spec_.newId();
    part.name = uniquePartName(visit.namePrefix + link.Name());
    part.X_WP = X_WL;
    part.colorRgb = palette[index % 6];
    const LinkSlot slot{index, Transform::identity()};
    slotOf_[key] = slot;
    spec_.parts.push_back(std::move(part));

    std::vector<Shape> shapes;
    addShapes(link, owner, slot, shapes, colour);
    std::optional<MassProperties> props = inertialOf(link, owner, report_);
    if (props && options_.inertiaFromGeometry) {
        // The collision geometry (the visual when there is none), scaled to the file's mass.
        const bool anyCollision = std::any_of(shapes.begin(), shapes.end(), [](const Shape& s) {
            return s.role == ShapeRole::Collision;
        });
        MassProperties geometry;
        for (const Shape& s : shapes) {
            if ((s.role == ShapeRole::Collision) != anyCollision) continue;
            if (s.type == ShapeType::Mesh && !s.mesh) continue;
            geometry = combine(geometry, shapeMassProperties(s, 1.0));
        }
        if (geometry.mass > 0.0 && std::isfinite(geometry.mass)) {
            const double mass = props->mass > 0.0 ? props->mass : kWaterDensity * geometry.mass;
            props->mass = mass;
            props->p_PPcm = geometry.p_PPcm;
            props->I_Pcm_P = geometry.I_Pcm_P * (mass / geometry.mass);
        } else {
            report_.warning(owner, owner + ": has no geometry with a volume: its inertial is kept");
        }
    }
    if (props) {
        Diagnostics fixes;
        fixInertia(*props, owner, InertiaFixupOptions{options_.strict}, fixes);
        for (const Diagnostic& d : fixes) report_.add(d);
    }
    Part& p = spec_.parts[index];
    if (props) {
        p.mass = props->mass;
        p.p_PPcm = props->p_PPcm;
        p.I_Pcm_P = props->I_Pcm_P;
    }
    p.shapes = std::move(shapes);
    if (colour) p.colorRgb = *colour;
}

std::optional<Vec3> SceneBuilder::axisInWorld(const ModelVisit& visit, const sdf::Joint& joint,
                                              unsigned index, const std::string& owner) {
    const char* name = index == 0 ? "axis" : "axis2";
    const sdf::JointAxis* axis = joint.Axis(index);
    if (!axis) {
        report_.error(owner + "/" + name, owner + ": has no <" + name + ">");
        return std::nullopt;
    }
    ignition::math::Vector3d xyz;
    const sdf::Errors errors = axis->ResolveXyz(xyz, "__model__");
    if (!errors.empty()) {
        for (const sdf::Error& e : errors)
            report_.error(owner + "/" + name,
                          owner + ": " + name + " cannot be resolved: " + e.Message());
        return std::nullopt;
    }
    const Vec3 a_M = toVec(xyz);
    const Vec3 raw = toVec(axis->Xyz());
    if (!a_M.allFinite() || !raw.allFinite()) {
        report_.error(owner + "/" + name, owner + ": " + name + " xyz is not finite");
        return std::nullopt;
    }
    const double largest = a_M.cwiseAbs().maxCoeff();
    if (largest == 0.0) {
        report_.error(owner + "/" + name, owner + ": " + name + " xyz has no direction");
        return std::nullopt;
    }
    return Vec3(visit.X_WM.R * Vec3(a_M / largest).normalized());
}

// Limits, damping, friction and springs of one axis. `motusJoint` is the revolute, prismatic or
// universal joint the axis became, whose coordinate `coordinate` is the axis's position (its
// markers' z is the axis, and the two coincide in the model's pose, where SDF's positions are
// zero); "" when the axis is no coordinate of a Motus joint: then what it holds is reported,
// not enforced. A universal joint's axes take limits; their damping, springs and friction are
// reported. `limited`: the joint type has limits (a continuous joint's are not read).
void SceneBuilder::axisDynamics(const sdf::Joint& joint, unsigned index, bool limited,
                                const std::string& owner, const std::string& motusJoint,
                                int coordinate) {
    const sdf::JointAxis* axis = joint.Axis(index);
    if (!axis) return;
    const std::string name = index == 0 ? "axis" : "axis2";
    Joint* found = nullptr;
    for (Joint& j : spec_.joints)
        if (!motusJoint.empty() && j.name == motusJoint) found = &j;
    const bool revolute = !found || found->type != JointType::Prismatic;
    const char* unit = revolute ? "rad" : "m";
    const double lower = axis->Lower(), upper = axis->Upper();
    if (limited && (lower > -kUnlimited || upper < kUnlimited)) {
        const std::string range =
            name + " limits [" + numberText(lower, 10) + ", " + numberText(upper, 10) + "] " + unit;
        if (!found) {
            report_.warning(owner, owner + ": " + range + " are not enforced: the axis is no " +
                                       "coordinate of a Motus joint");
        } else if (!std::isfinite(lower) || !std::isfinite(upper)) {
            report_.warning(owner, owner + ": " + range + " are not finite: left out");
        } else if (!(lower < upper)) {
            report_.warning(owner, owner + ": " + range +
                                       (lower == upper ? ": a locked axis is not modelled, "
                                                       : ": the lower end is above the upper, ") +
                                       "the axis moves freely");
        } else {
            // An end at SDF's default ±1e16 is no stop.
            JointLimit stop;
            if (lower > -kUnlimited) stop.lower = lower;
            if (upper < kUnlimited) stop.upper = upper;
            if (static_cast<int>(found->limits.size()) <= coordinate)
                found->limits.resize(static_cast<std::size_t>(coordinate) + 1);
            found->limits[static_cast<std::size_t>(coordinate)] = stop;
            // The parts are placed at position 0: a run starts by moving the joint onto the
            // stop it is beyond.
            if (stop.lower > 0.0 || stop.upper < 0.0)
                report_.warning(owner, owner + ": the model's pose (position 0) is outside its " +
                                           range +
                                           ": a run starts with it moved onto the "
                                           "nearer stop");
            // Stops are unilateral constraints, solved with contact by the time-stepping
            // integrator.
            spec_.settings.integrator = IntegratorType::TimeStepping;
        }
    }
    // A universal joint's axes have stops only (no spring, damper or friction on its angles).
    if (found && found->type == JointType::Universal) found = nullptr;
    const double damping = axis->Damping(), stiffness = axis->SpringStiffness();
    const double reference = axis->SpringReference();
    const bool damped = std::isfinite(damping) && damping > 0.0;
    const bool sprung = std::isfinite(stiffness) && stiffness > 0.0 && std::isfinite(reference);
    if (found && (damped || sprung)) {
        // A spring-damper on the coordinate, at rest at spring_reference: a rotational
        // spring-damper on a revolute, a joint controller holding a prismatic there.
        ForceSpec f;
        f.id = spec_.newId();
        const std::string base = sanitize(motusJoint + (sprung ? "_spring" : "_damper"));
        f.name = base;
        for (int k = 2; !forceNames_.insert(f.name).second; ++k)
            f.name = base + "_" + std::to_string(k);
        f.joint = motusJoint;
        f.stiffness = sprung ? stiffness : 0.0;
        f.damping = damped ? damping : 0.0;
        const double restAt = sprung ? reference : 0.0;
        if (revolute) {
            f.type = ForceType::RotationalSpringDamper;
            f.freeLength = restAt;
        } else {
            f.type = ForceType::JointController;
            f.axis = JointAxis::Translation;
            f.components[0] = numberText(restAt, 17);
        }
        spec_.forces.push_back(std::move(f));
    }
    if (damping != 0.0 && !(found && damped))
        report_.warning(owner,
                        owner + ": " + name + " damping " + numberText(damping, 10) +
                            (found ? " is not a positive number: left out" : " is not modelled"));
    const double friction = axis->Friction();
    if (found && std::isfinite(friction) && friction > 0.0) {
        // SDF's joint friction: a constant Coulomb friction torque or force on the axis,
        // stiction included, solved with contact by the time-stepping integrator.
        found->friction = {JointFriction{}};
        found->friction[0].preload = friction;
        spec_.settings.integrator = IntegratorType::TimeStepping;
    } else if (friction != 0.0) {
        report_.warning(owner, owner + ": " + name + " friction " + numberText(friction, 10) +
                                   (found ? " is not a positive number: left out"
                                          : " is not modelled: the axis is no coordinate of a "
                                            "Motus joint"));
    }
    if (stiffness != 0.0 && !(found && sprung))
        report_.warning(owner,
                        owner + ": " + name + " spring stiffness " + numberText(stiffness, 10) +
                            " (reference " + numberText(reference, 10) + ")" +
                            (found ? " is not a positive number: left out" : " is not modelled"));
}

// A joint of `type` between marker I on part I (the child's side) and marker J on part J
// (the parent's), each given by its pose in the world.
void SceneBuilder::connect(JointType type, const std::string& name, std::size_t partI,
                           const Transform& X_WI, std::size_t partJ, const Transform& X_WJ) {
    const std::string markerName = "j_" + name;
    Part& pi = spec_.parts[partI];
    Marker onI;
    onI.id = spec_.newId();
    onI.name = markerName;
    onI.X_PM = pi.X_WP.inverse() * X_WI;
    pi.markers.push_back(onI);
    Part& pj = spec_.parts[partJ];
    Marker onJ;
    onJ.id = spec_.newId();
    onJ.name = markerName;
    onJ.X_PM = pj.X_WP.inverse() * X_WJ;
    pj.markers.push_back(onJ);
    Joint j;
    j.id = spec_.newId();
    j.name = name;
    j.type = type;
    j.markerI = {pi.name, markerName};
    j.markerJ = {pj.name, markerName};
    spec_.joints.push_back(std::move(j));
}

void SceneBuilder::addJoint(const ModelVisit& visit, const sdf::Joint& joint) {
    const std::string scoped = visit.scope + joint.Name();
    const std::string owner = jointPlace(scoped);
    // The two links, by the names they have in the whole file ("world" is the ground).
    auto slotOf = [&](bool parent) -> std::optional<LinkSlot> {
        std::string link;
        const sdf::Errors errors =
            parent ? joint.ResolveParentLink(link) : joint.ResolveChildLink(link);
        if (!errors.empty()) {
            for (const sdf::Error& e : errors)
                report_.error(owner, owner + ": " + (parent ? "parent" : "child") +
                                         " cannot be resolved: " + e.Message());
            return std::nullopt;
        }
        if (link == "world") return LinkSlot{ground(), Transform::identity()};
        const auto it = slotOf_.find(visit.namePrefix + link);
        if (it == slotOf_.end()) {
            report_.error(owner, owner + ": " + (parent ? "parent" : "child") + " link '" +
                                     excerpt(link) + "' is not a link of the model");
            return std::nullopt;
        }
        return it->second;
    };
    const std::optional<LinkSlot> parent = slotOf(true);
    const std::optional<LinkSlot> child = slotOf(false);
    if (!parent || !child) return;

    // The joint frame Jf in the world.
    const std::optional<Transform> X_MJf =
        resolved(joint.SemanticPose(), "__model__", owner, path_, report_);
    if (!X_MJf) return;
    const Transform X_WJf = visit.X_WM * *X_MJf;
    // The joint frame turned so that its z lies along a (a unit vector in the world).
    auto along = [&](const Vec3& a_W) {
        const Vec3 a_Jf = X_WJf.R.conjugate() * a_W;
        return X_WJf * Transform{Quat::FromTwoVectors(Vec3::UnitZ(), a_Jf), Vec3::Zero()};
    };

    if (parent->part == child->part) {
        // Two links on the ground (a static model's joints): nothing to join.
        if (!(ground_ && parent->part == *ground_))
            report_.warning(owner, owner + ": joins a link to itself: left out");
        return;
    }

    const std::string name = uniqueJointName(visit.namePrefix + joint.Name());
    switch (joint.Type()) {
    case sdf::JointType::FIXED:
        connect(JointType::Fixed, name, child->part, X_WJf, parent->part, X_WJf);
        return;
    case sdf::JointType::BALL:
        connect(JointType::Spherical, name, child->part, X_WJf, parent->part, X_WJf);
        return;
    case sdf::JointType::REVOLUTE:
    case sdf::JointType::CONTINUOUS:
    case sdf::JointType::PRISMATIC: {
        const std::optional<Vec3> a_W = axisInWorld(visit, joint, 0, owner);
        if (!a_W) return;
        const Transform X_WK = along(*a_W);
        connect(
            joint.Type() == sdf::JointType::PRISMATIC ? JointType::Prismatic : JointType::Revolute,
            name, child->part, X_WK, parent->part, X_WK);
        axisDynamics(joint, 0, joint.Type() != sdf::JointType::CONTINUOUS, owner, name);
        return;
    }
    case sdf::JointType::UNIVERSAL:
    case sdf::JointType::REVOLUTE2: {
        // Axis 1 turns the cross in the parent, axis 2 the child on the cross.
        const std::optional<Vec3> a1_W = axisInWorld(visit, joint, 0, owner);
        const std::optional<Vec3> a2_W = axisInWorld(visit, joint, 1, owner);
        if (!a1_W || !a2_W) return;
        const bool perpendicular = std::abs(a1_W->dot(*a2_W)) < kPerpendicularTolerance;
        if (joint.Type() == sdf::JointType::UNIVERSAL && perpendicular) {
            // Markers whose angles are SDF's positions (0 in the model's pose): J's z along
            // axis 1 and x along axis 2, I's z along axis 2 and x along axis 1, so that the
            // joint's q0 is the cross's turn about axis 1 and q1 the child's about axis 2.
            auto pins = [&](const Vec3& z, const Vec3& x) {
                Mat3 R;
                R.col(0) = x.normalized();
                R.col(2) = z.normalized();
                R.col(1) = R.col(2).cross(R.col(0));
                return Transform{Quat(R).normalized(), X_WJf.p};
            };
            connect(JointType::Universal, name, child->part, pins(*a2_W, *a1_W), parent->part,
                    pins(*a1_W, *a2_W));
            axisDynamics(joint, 0, true, owner, name, 0);
            axisDynamics(joint, 1, true, owner, name, 1);
            return;
        }
        // Two revolutes through a light cross at the joint frame.
        Part cross;
        cross.id = spec_.newId();
        cross.name = uniquePartName(name + "_cross");
        cross.X_WP = X_WJf;
        cross.mass = kIntermediateMass;
        cross.I_Pcm_P = Mat3::Identity() * (0.4 * kIntermediateMass * 0.01 * 0.01);
        cross.colorRgb = 0x7a828c;
        const std::size_t crossPart = spec_.parts.size();
        spec_.parts.push_back(std::move(cross));
        // Each revolute's angle is its axis's position: the cross's turn in the parent, the
        // child's on the cross.
        const std::string first = uniqueJointName(name + "_1");
        const std::string second = uniqueJointName(name + "_2");
        connect(JointType::Revolute, first, crossPart, along(*a1_W), parent->part, along(*a1_W));
        connect(JointType::Revolute, second, child->part, along(*a2_W), crossPart, along(*a2_W));
        axisDynamics(joint, 0, true, owner, first);
        axisDynamics(joint, 1, true, owner, second);
        report_.warning(owner, owner + ": " +
                                   (joint.Type() == sdf::JointType::UNIVERSAL
                                        ? std::string("universal joint whose axes are not "
                                                      "perpendicular")
                                        : std::string("revolute2 joint")) +
                                   ": two revolute joints through a part of " +
                                   numberText(kIntermediateMass, 10) + " kg at the joint frame");
        return;
    }
    case sdf::JointType::SCREW: {
        // A cylindrical joint whose slide follows its angle: a screw coupler. libsdformat's
        // thread_pitch is Gazebo's: radians per metre, positive for a left-hand thread; the
        // coupler's pitch is metres per turn, positive for a right-hand one.
        const std::optional<Vec3> a_W = axisInWorld(visit, joint, 0, owner);
        if (!a_W) return;
        const double threadPitch = joint.ThreadPitch();
        if (!std::isfinite(threadPitch) || threadPitch == 0.0) {
            report_.warning(owner, owner + ": screw joint of thread_pitch " +
                                       numberText(threadPitch, 10) +
                                       " rad/m, which is no thread: left out");
            return;
        }
        const Transform X_WK = along(*a_W);
        connect(JointType::Cylindrical, name, child->part, X_WK, parent->part, X_WK);
        CouplerSpec thread;
        thread.id = spec_.newId();
        thread.name = name + "_thread";
        thread.type = CouplerType::Screw;
        thread.jointI = name;
        thread.pitch = -2.0 * kPi / threadPitch;
        spec_.couplers.push_back(std::move(thread));
        axisDynamics(joint, 0, true, owner, "");
        return;
    }
    case sdf::JointType::GEARBOX:
        report_.warning(owner, owner + ": gearbox joint: left out");
        return;
    case sdf::JointType::INVALID:
        break;
    }
    report_.warning(owner, owner + ": unknown joint type: left out");
}

std::optional<SceneSpec> SceneBuilder::build(const sdf::Root& root) {
    // The top-level models: the root model, or the first world's.
    std::vector<ModelVisit> models;
    const sdf::World* world = nullptr;
    if (const sdf::Model* model = root.Model()) {
        const std::optional<Transform> X_WM = resolved(
            model->SemanticPose(), "", "model '" + excerpt(model->Name()) + "'", path_, report_);
        models.push_back({model, X_WM.value_or(Transform::identity()), "", "", model->Static()});
        spec_.name = model->Name();
    } else if (root.WorldCount() > 0) {
        world = root.WorldByIndex(0);
        if (root.WorldCount() > 1)
            report_.warning("", "'" + path_ + "' holds " + std::to_string(root.WorldCount()) +
                                    " worlds: only the first, '" + excerpt(world->Name()) +
                                    "', is read");
        spec_.name = world->Name();
        const Vec3 gravity = toVec(world->Gravity());
        if (gravity.allFinite())
            spec_.gravity = gravity;
        else
            report_.error("", "world '" + excerpt(world->Name()) + "': gravity is not finite");
        const bool several = world->ModelCount() > 1;
        for (std::uint64_t k = 0; k < world->ModelCount(); ++k) {
            const sdf::Model* model = world->ModelByIndex(k);
            const std::string where = "model '" + excerpt(model->Name()) + "'";
            const std::optional<Transform> X_WM =
                resolved(model->SemanticPose(), "world", where, path_, report_);
            if (!X_WM) continue;
            models.push_back({model, *X_WM, "", several ? model->Name() + "::" : std::string(),
                              model->Static()});
        }
        // A world holding one robot (Gazebo names its worlds "default") is that robot's scene.
        if (world->ModelCount() == 1) spec_.name = world->ModelByIndex(0)->Name();
    }
    if (models.empty()) {
        report_.error("", "'" + path_ + "' holds no model");
        return std::nullopt;
    }
    spec_.description = "Imported from " + std::filesystem::path(path_).filename().string();

    prefetchMeshes(models);

    // Links, top-level models first, then nested ones (an explicit stack, in the file's
    // order); a model's root link is bolted down by fixedBase unless a joint holds it to the
    // world already.
    std::vector<ModelVisit> visited;
    std::vector<ModelVisit> pending(models.rbegin(), models.rend());
    while (!pending.empty()) {
        const ModelVisit visit = std::move(pending.back());
        pending.pop_back();
        visited.push_back(visit);
        const sdf::Model& model = *visit.model;
        std::string welded;  // the link bolted down, by its name in this model's scope
        if (options_.fixedBase && visit.scope.empty() && !visit.isStatic) {
            bool held = false;
            for (std::uint64_t k = 0; k < model.JointCount(); ++k) {
                std::string parent;
                if (model.JointByIndex(k)->ResolveParentLink(parent).empty() && parent == "world")
                    held = true;
            }
            if (!held) welded = model.CanonicalLinkAndRelativeName().second;
        }
        for (std::uint64_t k = 0; k < model.LinkCount(); ++k) {
            const sdf::Link& link = *model.LinkByIndex(k);
            addLink(visit, link, !welded.empty() && link.Name() == welded);
        }
        std::vector<ModelVisit> nested;
        for (std::uint64_t k = 0; k < model.ModelCount(); ++k) {
            const sdf::Model* inner = model.ModelByIndex(k);
            const std::string where =
                "model '" + excerpt(visit.scope + model.Name() + "::" + inner->Name()) + "'";
            const std::optional<Transform> X_MN =
                resolved(inner->SemanticPose(), "__model__", where, path_, report_);
            if (!X_MN) continue;
            const std::string scope = visit.scope + inner->Name() + "::";
            nested.push_back(
                {inner, visit.X_WM * *X_MN, scope,
                 visit.namePrefix + inner->Name() + "::", visit.isStatic || inner->Static()});
            // A nested model's canonical link bolted down with its parent's (fixedBase).
            if (!welded.empty() && welded.starts_with(inner->Name() + "::"))
                report_.warning(where, where +
                                           ": the root link is in a nested model; the "
                                           "model is not bolted down");
        }
        if (model.InterfaceModelCount() > 0)
            report_.warning("model '" + excerpt(model.Name()) + "'",
                            "model '" + excerpt(model.Name()) +
                                "': models read by custom parsers are left out");
        pending.insert(pending.end(), nested.rbegin(), nested.rend());
    }
    if (slotOf_.empty()) {
        report_.error("", "'" + path_ + "' holds no link");
        return std::nullopt;
    }
    // Joints, once every link has its part (a joint may name a link of a nested model).
    for (const ModelVisit& visit : visited)
        for (std::uint64_t k = 0; k < visit.model->JointCount(); ++k)
            addJoint(visit, *visit.model->JointByIndex(k));
    if (report_.hasErrors()) return std::nullopt;
    return std::move(spec_);
}

// libsdformat prints what it finds wrong to the terminal (its sdferr and sdfwarn, in colour),
// often the only place that says why (a pose of 3 values: "must have 6 values"), and so does
// the URDF parser it tries a file with when the file is not SDF (through console_bridge).
// While a file is read both are collected here, to become diagnostics: nothing is printed
// behind the user's back, and an error fails the import. One file at a time (the streams are
// the process's).
class ConsoleCapture : public console_bridge::OutputHandler {
public:
    // (libsdformat also writes some errors straight to std::cerr — "Error: Detected delimiter
    // '::' in element name in" and the element — which are taken too while it reads.)
    ConsoleCapture() : stream_(sdf::Console::Instance()->GetMsgStream()) {
        previous_ = stream_.GetStream();
        stream_.SetStream(&text_);
        console_bridge::useOutputHandler(this);
        previousCerr_ = std::cerr.rdbuf(cerrText_.rdbuf());
    }
    ~ConsoleCapture() override {
        std::cerr.rdbuf(previousCerr_);
        console_bridge::restorePreviousOutputHandler();
        stream_.SetStream(previous_);
    }
    ConsoleCapture(const ConsoleCapture&) = delete;
    ConsoleCapture& operator=(const ConsoleCapture&) = delete;

    void log(const std::string& message, console_bridge::LogLevel level, const char*,
             int) override {
        if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) urdfErrors_.push_back(message);
    }

    // libsdformat's messages as diagnostics ("Error [Param.cc:598] The value ..." becomes the
    // error "libsdformat: The value ..."); the URDF parser's errors only when nothing else
    // said why the file was refused (it is tried on files that are not SDF) — `refused`: the
    // reader's own list of errors did.
    void report(Reporter& report, bool refused = false) const {
        std::vector<std::pair<bool, std::string>> messages;  // (error, text)
        // Its colours are written whatever the stream (ESC [ ... m): dropped. What it wrote to
        // std::cerr ("Error: ...", then the element on lines of their own) is read the same.
        std::string text = text_.str();
        {
            std::istringstream lines(cerrText_.str());
            for (std::string line; std::getline(lines, line);) {
                if (line.starts_with("Error: "))
                    text += "\nError [] " + line.substr(7);
                else if (line.starts_with("Warning: "))
                    text += "\nWarning [] " + line.substr(9);
                else
                    text += "\n" + line;
            }
        }
        for (std::size_t at; (at = text.find('\x1b')) != std::string::npos;) {
            const std::size_t end = text.find('m', at);
            text.erase(at, end == std::string::npos ? std::string::npos : end - at + 1);
        }
        std::istringstream lines(text);
        for (std::string line; std::getline(lines, line);) {
            const bool error = line.starts_with("Error [");
            if (error || line.starts_with("Warning [")) {
                const std::size_t end = line.find("] ");
                messages.push_back({error, end == std::string::npos ? line : line.substr(end + 2)});
            } else if (!messages.empty() && line.find_first_not_of(" \t") != std::string::npos) {
                messages.back().second += " " + line.substr(line.find_first_not_of(" \t"));
            }
        }
        for (const auto& [error, text] : messages) {
            const std::string message = "libsdformat: " + excerpt(text, 4 * kExcerptLength);
            if (error)
                report.error("", message);
            else
                report.warning("", message);
        }
        if (!report.hasErrors() && !refused)
            for (const std::string& text : urdfErrors_)
                report.error("", "libsdformat, reading the file as URDF: " +
                                     excerpt(text, 4 * kExcerptLength));
    }

private:
    sdf::Console::ConsoleStream& stream_;
    std::ostream* previous_ = nullptr;
    std::ostringstream text_, cerrText_;
    std::streambuf* previousCerr_ = nullptr;
    std::vector<std::string> urdfErrors_;
};

// What libsdformat is given is looked at first, because it follows what a file says without
// bounds: an <include> cycle (a model including itself, or A including B including A) grows
// its memory until the process dies, and it keeps about a megabyte for every link it reads
// (10,000 links: 9.9 GB). So the file, and every file its <include> elements name (found as
// libsdformat finds them: sdf::findFile, and a model folder's model.config), are scanned as
// text once, before libsdformat opens any of them:
//   - an include found in the chain of files that includes it is a cycle, refused naming the
//     chain; includes nested deeper than kMaxIncludeDepth are refused the same way;
//   - an included file (or a model.config) that is a FIFO or a device is refused (input_file.h);
//   - elements are counted, each included file as many times as it is included, and what
//     libsdformat would take to read them is estimated from what it was measured to take
//     (libsdformat 12.3: per model, link, visual or collision, other element); a file above
//     kSdfMemoryBound is refused with the counts and the estimate.
constexpr int kMaxIncludeDepth = 32;                   // files in a chain of includes, at most
constexpr std::uintmax_t kMaxSdfFileBytes = 64 << 20;  // B of one SDF file, at most
constexpr double kModelBytes = 2.3e6;                  // B libsdformat keeps per <model>
constexpr double kLinkBytes = 0.9e6;                   // B per <link>
constexpr double kShapeBytes = 0.17e6;                 // B per <visual> or <collision>
constexpr double kElementBytes = 10e3;                 // B per other element
constexpr double kSdfMemoryBound = 1.5e9;              // B an SDF import may have libsdformat take

struct ElementTally {
    double models = 0, links = 0, shapes = 0, others = 0;  // counts (doubles: no overflow)
    void add(const ElementTally& o) {
        models += o.models;
        links += o.links;
        shapes += o.shapes;
        others += o.others;
    }
    double bytes() const {
        return models * kModelBytes + links * kLinkBytes + shapes * kShapeBytes +
               others * kElementBytes;
    }
};

struct IncludeUri {
    std::string uri;
    std::size_t line = 0;
};

std::string decodedXmlText(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        static const std::pair<std::string_view, char> entities[] = {
            {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
        bool replaced = false;
        for (const auto& [entity, c] : entities)
            if (text.substr(i).starts_with(entity)) {
                out += c;
                i += entity.size() - 1;
                replaced = true;
                break;
            }
        if (!replaced) out += text[i];
    }
    const auto first = out.find_first_not_of(" \t\r\n");
    const auto last = out.find_last_not_of(" \t\r\n");
    return first == std::string::npos ? "" : out.substr(first, last - first + 1);
}

// The elements of an SDF text counted into `tally`, and the <uri> of each <include> (its
// child, as libsdformat reads it) added to `includes`; comments, CDATA, processing
// instructions and declarations are skipped. Malformed XML is counted as far as it goes
// (libsdformat says what is wrong with it).
void scanSdfText(std::string_view xml, ElementTally& tally, std::vector<IncludeUri>& includes) {
    std::size_t line = 1, counted = 0;
    long depth = 0, includeDepth = -1;
    auto skipTo = [&](std::size_t from, std::string_view end) {
        const std::size_t at = xml.find(end, from);
        return at == std::string_view::npos ? xml.size() : at + end.size();
    };
    for (std::size_t i = xml.find('<'); i < xml.size(); i = xml.find('<', i)) {
        line += static_cast<std::size_t>(std::count(xml.begin() + static_cast<long>(counted),
                                                    xml.begin() + static_cast<long>(i), '\n'));
        counted = i;
        const std::string_view rest = xml.substr(i);
        if (rest.starts_with("<!--")) {
            i = skipTo(i, "-->");
        } else if (rest.starts_with("<![CDATA[")) {
            i = skipTo(i, "]]>");
        } else if (rest.starts_with("<?")) {
            i = skipTo(i, "?>");
        } else if (rest.starts_with("<!")) {
            i = skipTo(i, ">");
        } else if (rest.starts_with("</")) {
            if (--depth == includeDepth) includeDepth = -1;
            i = skipTo(i, ">");
        } else {
            std::size_t k = i + 1;
            while (k < xml.size() && !std::isspace(static_cast<unsigned char>(xml[k])) &&
                   xml[k] != '>' && xml[k] != '/')
                ++k;
            const std::string_view tag = xml.substr(i + 1, k - i - 1);
            // The tag's end, past attribute values (which may hold '>').
            char quote = 0;
            while (k < xml.size() && (quote || xml[k] != '>')) {
                if (quote ? xml[k] == quote : (xml[k] == '"' || xml[k] == '\''))
                    quote = quote ? 0 : xml[k];
                ++k;
            }
            const bool empty = k > i && k < xml.size() && xml[k - 1] == '/';
            if (tag == "model")
                ++tally.models;
            else if (tag == "link")
                ++tally.links;
            else if (tag == "visual" || tag == "collision")
                ++tally.shapes;
            else
                ++tally.others;
            if (tag == "uri" && !empty && includeDepth >= 0 && depth == includeDepth + 1) {
                const std::size_t end = std::min(xml.find('<', k), xml.size());
                if (k < end)
                    includes.push_back({decodedXmlText(xml.substr(k + 1, end - k - 1)), line});
            }
            if (tag == "include" && !empty && includeDepth < 0) includeDepth = depth;
            if (!empty) ++depth;
            i = k;
        }
    }
}

class IncludeScan {
public:
    // "" when `path` and what it includes may be read by libsdformat, else why not.
    std::string problem(const std::string& path) {
        const std::optional<ElementTally> tally = scan(path, "");
        if (!tally) return problem_;
        if (tally->bytes() <= kSdfMemoryBound) return "";
        const auto count = [](double n, const char* one, const char* several) {
            return numberText(n, 15, n == 1 ? one : several);
        };
        return "'" + path + "' is too large to import: it holds " +
               count(tally->models, "model", "models") + ", " +
               count(tally->links, "link", "links") + ", " +
               count(tally->shapes, "visual or collision", "visuals or collisions") + " and " +
               count(tally->others, "other element", "other elements") +
               " (an included file counted each time it is included), which libsdformat would "
               "take about " +
               numberText(tally->bytes() / 1e9, 2, "GB") +
               " to read (0.9 MB a link, 2.3 MB a model), more than " +
               numberText(kSdfMemoryBound / 1e9, 2, "GB");
    }

private:
    // The elements of `file` and of what it includes, or nullopt with `problem_` set. `from`:
    // the include naming it ("'outer.sdf' line 3: <include> 'model://arm'"), empty at the top.
    std::optional<ElementTally> scan(const std::string& file, const std::string& from) {
        std::error_code ec;
        std::string key = std::filesystem::weakly_canonical(file, ec).string();
        if (ec) key = file;
        if (const auto at = std::find(keys_.begin(), keys_.end(), key); at != keys_.end()) {
            problem_ = from +
                       ": the includes form a cycle, which libsdformat would follow "
                       "without end: " +
                       chain(static_cast<std::size_t>(at - keys_.begin())) + " → " + file;
            return std::nullopt;
        }
        if (keys_.size() >= static_cast<std::size_t>(kMaxIncludeDepth)) {
            problem_ = from + ": includes nested more than " + std::to_string(kMaxIncludeDepth) +
                       " deep: " + chain(0) + " → " + file;
            return std::nullopt;
        }
        if (const auto known = done_.find(key); known != done_.end()) return known->second;
        std::uintmax_t size = 0;
        if (const std::string why = inputFileProblem(file, "included SDF file", &size);
            !why.empty()) {
            problem_ = from.empty() ? why : from + ": " + why;
            return std::nullopt;
        }
        if (size > kMaxSdfFileBytes) {
            problem_ = (from.empty() ? std::string() : from + ": ") + "'" + file + "' is " +
                       std::to_string(size >> 20) + " MiB; an SDF file is limited to " +
                       std::to_string(kMaxSdfFileBytes >> 20) + " MiB";
            return std::nullopt;
        }
        std::string text(static_cast<std::size_t>(size), '\0');
        std::ifstream(file, std::ios::binary).read(text.data(), static_cast<std::streamsize>(size));
        ElementTally tally;
        std::vector<IncludeUri> includes;
        scanSdfText(text, tally, includes);
        text = {};
        keys_.push_back(key);
        files_.push_back(file);
        for (const IncludeUri& include : includes) {
            const std::string where = "'" + file + "' line " + std::to_string(include.line) +
                                      ": <include> '" + tailExcerpt(include.uri) + "'";
            std::string why;
            const std::string found = includedFile(include.uri, why);
            if (!why.empty()) {
                problem_ = where + ": " + why;
                return std::nullopt;
            }
            if (found.empty()) continue;  // libsdformat says it cannot find it
            const std::optional<ElementTally> inner = scan(found, where);
            if (!inner) return std::nullopt;
            tally.add(*inner);
        }
        keys_.pop_back();
        files_.pop_back();
        done_.emplace(key, tally);
        return tally;
    }

    // The file an include's URI names, as libsdformat's parser finds it ("" when it does
    // not): sdf::findFile, and for a model's folder the file its model.config names — read
    // only when it is a regular file (else `why` says what it is).
    static std::string includedFile(const std::string& uri, std::string& why) {
        const std::string found =
            uri.empty() ? "" : sdf::findFile(uri, true, true, sdf::ParserConfig::GlobalConfig());
        std::error_code ec;
        if (found.empty() || !std::filesystem::is_directory(found, ec)) return found;
        for (const char* name : {"model.config", "manifest.xml"}) {
            const std::filesystem::path config = std::filesystem::path(found) / name;
            if (!std::filesystem::exists(config, ec)) continue;
            why = inputFileProblem(config.string(), "model configuration");
            return why.empty() ? sdf::getModelFilePath(found) : "";
        }
        return "";
    }

    // The files of the chain from the `first`-th, "a.sdf → b.sdf → …".
    std::string chain(std::size_t first) const {
        std::string out;
        for (std::size_t k = first; k < files_.size(); ++k)
            out += (k == first ? "" : " → ") + files_[k];
        return out;
    }

    std::vector<std::string> keys_, files_;  // the chain being scanned: canonical, as found
    std::map<std::string, ElementTally> done_;
    std::string problem_;
};

// While a file is read, libsdformat's sdf::findFile asks Motus for what it cannot find
// itself (its own search: the SDF_PATH folders, the working folder): `model://NAME/…` and
// `package://NAME/…` through the package path (resource_path.h), `model://NAME` as the
// model's folder. Installed for one import at a time (the parser's configuration is global).
class FindFileCallback {
public:
    FindFileCallback(const std::string& path, const RobotImportOptions& options)
        : previous_(sdf::ParserConfig::GlobalConfig().FindFileCallback()) {
        auto resolver = std::make_shared<ResourceResolver>(path, options.packagePath);
        sdf::ParserConfig::GlobalConfig().SetFindCallback([resolver](const std::string& uri) {
            if (const ResourceLookup found = resolver->resolve(uri); found.file) return *found.file;
            for (std::string_view scheme : {"model://", "package://"}) {
                if (!std::string_view(uri).starts_with(scheme)) continue;
                std::string name = uri.substr(scheme.size());
                while (!name.empty() && name.back() == '/') name.pop_back();
                if (!name.empty() && name.find('/') == std::string::npos)
                    return resolver->packageFolderOf(name).value_or("");
            }
            return std::string();
        });
    }
    ~FindFileCallback() { sdf::ParserConfig::GlobalConfig().SetFindCallback(previous_); }
    FindFileCallback(const FindFileCallback&) = delete;
    FindFileCallback& operator=(const FindFileCallback&) = delete;

private:
    std::function<std::string(const std::string&)> previous_;
};

// One import (or scan) at a time: libsdformat's console and its find-file callback are global.
std::mutex& sdfParserInUse() {
    static std::mutex inUse;
    return inUse;
}

// The scan of `path` and its includes before libsdformat reads them, with the parser's lock
// held and FindFileCallback installed.
std::string scannedProblem(const std::string& path) {
    const ConsoleCapture console;  // what sdf::findFile prints is said again by Load
    return IncludeScan().problem(path);
}

// libsdformat's description of the format (root.sdf and the ~60 element files it includes),
// parsed once and cloned for each file read. sdf::Root::Load(path) parses it anew for every
// file: 45 ms of the 50-95 ms a small robot takes to read (libsdformat does the same for the
// files a model includes). Called with the parser's lock held.
sdf::SDFPtr freshSdfDocument() {
    static const sdf::SDFPtr description = [] {
        auto sdf = std::make_shared<sdf::SDF>();
        if (!sdf::init(sdf))
            throw std::runtime_error("libsdformat's description of the format cannot be read");
        return sdf;
    }();
    // The document's root element: the description's <sdf> with its attributes, and the
    // descriptions of what it may hold shared, not copied (reading copies each description it
    // makes an element of; none is changed).
    const sdf::ElementPtr& from = description->Root();
    auto top = std::make_shared<sdf::Element>();
    top->SetName(from->GetName());
    top->SetRequired(from->GetRequired());
    top->SetDescription(from->GetDescription());
    top->SetCopyChildren(from->GetCopyChildren());
    for (std::size_t a = 0; a < from->GetAttributeCount(); ++a) {
        const sdf::ParamPtr attribute = from->GetAttribute(static_cast<unsigned>(a));
        top->AddAttribute(attribute->GetKey(), attribute->GetTypeName(),
                          attribute->GetDefaultAsString(), attribute->GetRequired(),
                          attribute->GetDescription());
    }
    for (std::size_t e = 0; e < from->GetElementDescriptionCount(); ++e)
        top->AddElementDescription(from->GetElementDescription(static_cast<unsigned>(e)));
    auto document = std::make_shared<sdf::SDF>();
    document->Root(top);
    return document;
}

// sdf::Root::Load(path) with the description cloned instead of parsed again.
sdf::Errors loadSdfRoot(sdf::Root& root, const std::string& path) {
    const sdf::ParserConfig& config = sdf::ParserConfig::GlobalConfig();
    sdf::Errors errors;
    const sdf::SDFPtr document = freshSdfDocument();
    if (!sdf::readFile(path, config, document, errors)) {
        errors.push_back({sdf::ErrorCode::FILE_READ, "Unable to read file:" + path});
        return errors;
    }
    sdf::Errors loadErrors = root.Load(document, config);
    errors.insert(errors.end(), loadErrors.begin(), loadErrors.end());
    return errors;
}

}  // namespace

std::string sdfReadProblem(const std::string& path, const RobotImportOptions& options) {
    if (const std::string problem = inputFileProblem(path, "SDF file"); !problem.empty())
        return problem;
    try {
        const std::lock_guard<std::mutex> lock(sdfParserInUse());
        const FindFileCallback findFile(path, options);
        return scannedProblem(path);
    } catch (const std::exception& e) {
        return "'" + path + "' cannot be read as SDF: " + excerpt(e.what());
    } catch (...) {
        return "'" + path + "' cannot be read as SDF";
    }
}

RobotImportResult importSdfFile(const std::string& path, const RobotImportOptions& options) {
    RobotImportResult result;
    Reporter report(result.diagnostics);
    if (const std::string problem = inputFileProblem(path, "SDF file"); !problem.empty()) {
        report.error("", problem);
        report.finish();
        return result;
    }
    std::optional<SceneSpec> spec;
    // libsdformat reports what it finds as errors, but may throw on what it does not expect:
    // nothing escapes.
    try {
        const std::lock_guard<std::mutex> lock(sdfParserInUse());
        const FindFileCallback findFile(path, options);
        if (const std::string refused = scannedProblem(path); !refused.empty()) {
            report.error("", refused);
            report.finish();
            return result;
        }
        sdf::Root root;
        sdf::Errors errors;
        {
            const ConsoleCapture console;
            errors = loadSdfRoot(root, path);
            console.report(report, !errors.empty());
        }
        reportSdfErrors(errors, path, report);
        if (!report.hasErrors()) {
            const ConsoleCapture console;
            SceneBuilder builder(path, options, report);
            spec = builder.build(root);
            console.report(report);
            if (report.hasErrors()) spec.reset();
        }
    } catch (const std::exception& e) {
        report.error("", "'" + path + "' cannot be read as SDF: " + excerpt(e.what()));
        spec.reset();
    } catch (...) {
        report.error("", "'" + path + "' cannot be read as SDF");
        spec.reset();
    }
    report.finish();
    if (spec && !hasErrors(result.diagnostics))
        switchOffOverlappingLinks(*spec, result.diagnostics);
    finishImport(std::move(spec), result);
    return result;
}

}  // namespace engine::io
