#include "engine/io/urdf_import.h"

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>

#include <urdf_parser/urdf_parser.h>

#include "engine/io/mesh_loader.h"

namespace engine::io {
namespace {

Vec3 toVec(const urdf::Vector3& v) { return {v.x, v.y, v.z}; }
Quat toQuat(const urdf::Rotation& r) { return Quat(r.w, r.x, r.y, r.z).normalized(); }
Transform toTransform(const urdf::Pose& p) { return {toQuat(p.rotation), toVec(p.position)}; }

// URDF names may hold characters Motus names do not ('/', '.', spaces): replace them.
std::string sanitize(const std::string& name) {
    std::string out = name.empty() ? std::string("_") : name;
    for (char& c : out)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
    if (std::isdigit(static_cast<unsigned char>(out[0])) || out[0] == '-') out.insert(out.begin(), '_');
    return out.substr(0, 128);
}

// "package://pkg/meshes/x.stl" or a relative path: looked for next to the URDF file, in its
// parent folder, and without the package name.
std::optional<std::string> resolveMesh(const std::string& filename, const std::filesystem::path& urdfDir) {
    std::string rest = filename;
    if (rest.rfind("file://", 0) == 0) rest = rest.substr(7);
    std::vector<std::filesystem::path> candidates;
    if (rest.rfind("package://", 0) == 0) {
        rest = rest.substr(10);
        const auto slash = rest.find('/');
        const std::string withoutPackage = slash == std::string::npos ? rest : rest.substr(slash + 1);
        candidates = {urdfDir / withoutPackage, urdfDir.parent_path() / withoutPackage, urdfDir.parent_path() / rest,
                      urdfDir / rest};
    } else {
        candidates = {std::filesystem::path(rest).is_absolute() ? std::filesystem::path(rest) : urdfDir / rest};
    }
    for (const auto& c : candidates)
        if (std::filesystem::exists(c)) return c.lexically_normal().string();
    return std::nullopt;
}

Quat zTo(const Vec3& axis) {
    return axis.norm() < 1e-12 ? Quat::Identity() : Quat::FromTwoVectors(Vec3::UnitZ(), axis.normalized());
}

}  // namespace

UrdfImportResult importUrdfFile(const std::string& path) {
    UrdfImportResult result;
    auto warn = [&](const std::string& where, const std::string& message) {
        result.diagnostics.push_back({Severity::Warning, where, message});
    };
    if (!std::filesystem::exists(path)) {
        result.diagnostics.push_back({Severity::Error, "", "cannot open URDF file '" + path + "'"});
        return result;
    }
    const urdf::ModelInterfaceSharedPtr robot = urdf::parseURDFFile(path);
    if (!robot || !robot->getRoot()) {
        result.diagnostics.push_back({Severity::Error, "", "'" + path + "' is not a valid URDF robot description"});
        return result;
    }
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();

    SceneSpec spec;
    spec.name = robot->getName();
    spec.description = "Imported from " + std::filesystem::path(path).filename().string();
    std::map<std::string, std::size_t> partOf;  // URDF link name → part index
    std::map<std::string, Transform> worldPose;
    const std::uint32_t palette[] = {0x7a828c, 0xe0703c, 0x3c8ee0, 0x4fb45a, 0xd9b43c, 0x9b6cd0};

    // Links, from the root down, with their world poses at zero joint positions.
    std::function<void(const urdf::LinkConstSharedPtr&, const Transform&)> addLink =
        [&](const urdf::LinkConstSharedPtr& link, const Transform& X_WL) {
            Part part;
            part.id = spec.newId();
            part.name = sanitize(link->name);
            part.X_WP = X_WL;
            part.colorRgb = palette[spec.parts.size() % 6];
            const bool isWorld = link == robot->getRoot() && link->name == "world";
            part.ground = isWorld;
            if (!isWorld) {
                if (link->inertial && link->inertial->mass > 0.0) {
                    const urdf::Inertial& in = *link->inertial;
                    Mat3 I;
                    I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
                    const Transform X_LI = toTransform(in.origin);
                    const Mat3 R = X_LI.rotationMatrix();
                    part.mass = in.mass;
                    part.p_PPcm = X_LI.p;
                    part.I_Pcm_P = R * I * R.transpose();
                } else {
                    part.mass = 1e-3;
                    part.I_Pcm_P = Mat3::Identity() * 1e-7;
                    warn("link '" + link->name + "'", "has no inertial: given 1 g and a small inertia");
                }
            }
            for (const urdf::VisualSharedPtr& visual : link->visual_array) {
                if (!visual || !visual->geometry) continue;
                Shape s;
                s.X_PG = toTransform(visual->origin);
                switch (visual->geometry->type) {
                case urdf::Geometry::BOX: {
                    const auto* box = static_cast<const urdf::Box*>(visual->geometry.get());
                    s.type = ShapeType::Box;
                    s.size = toVec(box->dim);
                    break;
                }
                case urdf::Geometry::CYLINDER: {
                    const auto* c = static_cast<const urdf::Cylinder*>(visual->geometry.get());
                    s.type = ShapeType::Cylinder;
                    s.radius = c->radius;
                    s.length = c->length;
                    break;
                }
                case urdf::Geometry::SPHERE:
                    s.type = ShapeType::Sphere;
                    s.radius = static_cast<const urdf::Sphere*>(visual->geometry.get())->radius;
                    break;
                case urdf::Geometry::MESH: {
                    const auto* m = static_cast<const urdf::Mesh*>(visual->geometry.get());
                    const auto file = resolveMesh(m->filename, dir);
                    std::string error;
                    if (!file || !(s.mesh = loadMesh(*file, error))) {
                        warn("link '" + link->name + "'", "mesh '" + m->filename + "' not found or unreadable: left out");
                        continue;
                    }
                    s.type = ShapeType::Mesh;
                    s.meshFile = std::filesystem::relative(*file, dir).string();
                    s.scale = toVec(m->scale);
                    break;
                }
                }
                if (visual->material && visual->material->color.a > 0.0f) {
                    const urdf::Color& c = visual->material->color;
                    auto channel = [](float v) { return static_cast<std::uint32_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
                    part.colorRgb = channel(c.r) << 16 | channel(c.g) << 8 | channel(c.b);
                }
                part.shapes.push_back(s);
            }
            partOf[link->name] = spec.parts.size();
            worldPose[link->name] = X_WL;
            spec.parts.push_back(part);
            for (const urdf::JointSharedPtr& joint : link->child_joints)
                addLink(robot->getLink(joint->child_link_name), X_WL * toTransform(joint->parent_to_joint_origin_transform));
        };
    addLink(robot->getRoot(), Transform::identity());

    // Joints: a marker on the parent at the joint frame and one at the child's origin, both
    // with z along the joint axis.
    for (const auto& [name, joint] : robot->joints_) {
        JointType type = JointType::Fixed;
        switch (joint->type) {
        case urdf::Joint::REVOLUTE:
        case urdf::Joint::CONTINUOUS: type = JointType::Revolute; break;
        case urdf::Joint::PRISMATIC: type = JointType::Prismatic; break;
        case urdf::Joint::FIXED: type = JointType::Fixed; break;
        case urdf::Joint::PLANAR: type = JointType::Planar; break;
        case urdf::Joint::FLOATING:
            warn("joint '" + name + "'", "floating joint: the child moves freely");
            continue;
        default:
            warn("joint '" + name + "'", "unknown joint type: left out");
            continue;
        }
        Part& parent = spec.parts[partOf.at(joint->parent_link_name)];
        Part& child = spec.parts[partOf.at(joint->child_link_name)];
        const Quat R_axis = zTo(toVec(joint->axis));
        const std::string markerName = "j_" + sanitize(name);
        Marker onParent, onChild;
        onParent.id = spec.newId();
        onParent.name = markerName;
        onParent.X_PM = toTransform(joint->parent_to_joint_origin_transform) * Transform{R_axis, Vec3::Zero()};
        onChild.id = spec.newId();
        onChild.name = markerName;
        onChild.X_PM = Transform{R_axis, Vec3::Zero()};
        parent.markers.push_back(onParent);
        child.markers.push_back(onChild);
        Joint j;
        j.id = spec.newId();
        j.name = sanitize(name);
        j.type = type;
        j.markerI = {child.name, markerName};
        j.markerJ = {parent.name, markerName};
        spec.joints.push_back(j);
        if (joint->limits && joint->type != urdf::Joint::CONTINUOUS && joint->limits->upper > joint->limits->lower)
            warn("joint '" + name + "'", "limits [" + std::to_string(joint->limits->lower) + ", " +
                                             std::to_string(joint->limits->upper) + "] are not enforced yet");
    }

    Diagnostics problems = validate(spec);
    result.diagnostics.insert(result.diagnostics.end(), problems.begin(), problems.end());
    if (!hasErrors(result.diagnostics)) result.scene = std::move(spec);
    return result;
}

}  // namespace engine::io
