#include "engine/import/urdf_import.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <locale>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include <console_bridge/console.h>
#include <urdf_parser/urdf_parser.h>
#include <Eigen/Eigenvalues>

#include "engine/import/import_reporter.h"
#include "engine/import/inertia_fixup.h"
#include "engine/import/link_overlaps.h"
#include "engine/import/resource_path.h"
#include "engine/io/input_file.h"
#include "engine/io/mesh_loader.h"
#include "engine/math/number_text.h"
#include "engine/model/mass_properties.h"

// The file is read in three passes, each linear in its size, none recursive in it:
//   1. a scan of the raw text refuses elements nested deeper than a URDF ever needs (TinyXML,
//      which urdfdom parses with, recurses once per level and would overflow the stack);
//   2. TinyXML's tree is walked for every number urdfdom will read, so that text which is not
//      a finite number is reported with the link or joint it belongs to (urdfdom only says
//      the file is invalid);
//   3. urdfdom's model becomes the scene: links from the root down with an explicit stack,
//      joints from a map by name. Masses, inertias and axes are checked on the way.
// Diagnostics name the place as "link 'name'/inertial/mass" or "joint 'name'/axis" and quote
// at most kExcerptLength characters of the file.

namespace engine::io {
namespace {

constexpr int kMaxElementDepth = 100;  // a URDF nests about six levels

using Reporter = ImportReporter;

// ---- Pass 1: nesting depth of the raw text ------------------------------------------------

// The deepest nesting of elements in `xml`, counted on the text without building a tree;
// the count stops once it passes `limit`. It skips what TinyXML skips, never more: comments
// to "-->", CDATA to "]]>", declarations and other "<?" or "<!" to the first '>', quoted
// attribute values to their closing quote (TinyXML stops at any other quote in a tag). Where
// the two could differ (a '>' inside a declaration's quotes), this count is the larger.
// Where the text stops being UTF-8 (the byte offset of the first malformed sequence), or npos.
// TinyXML, which urdfdom parses with, reads a multi-byte sequence by the length its lead byte
// announces and runs past the end of the text when it is cut short; a document whose XML
// declaration names another encoding (ISO-8859-1, …) is read byte by byte and not checked.
std::size_t malformedUtf8(std::string_view text) {
    const std::size_t head = text.find("?>");
    if (text.starts_with("<?xml") && head != std::string_view::npos) {
        std::string declaration(text.substr(0, head));
        std::transform(declaration.begin(), declaration.end(), declaration.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        const std::size_t at = declaration.find("encoding");
        if (at != std::string::npos && declaration.find("utf-8", at) == std::string::npos &&
            declaration.find("utf8", at) == std::string::npos)
            return std::string_view::npos;
    }
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        std::size_t length = 0;
        std::uint32_t code = 0;
        if (c < 0x80) {
            ++i;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            length = 2;
            code = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            length = 3;
            code = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            length = 4;
            code = c & 0x07;
        } else {
            return i;
        }
        if (i + length > text.size()) return i;
        for (std::size_t k = 1; k < length; ++k) {
            const auto next = static_cast<unsigned char>(text[i + k]);
            if ((next & 0xC0) != 0x80) return i;
            code = (code << 6) | (next & 0x3F);
        }
        // Overlong forms, surrogates and code points beyond U+10FFFF are malformed too.
        static constexpr std::uint32_t smallest[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
            return i;
        i += length;
    }
    return std::string_view::npos;
}

int elementDepth(std::string_view xml, int limit) {
    int depth = 0, deepest = 0;
    std::size_t i = 0;
    auto skipPast = [&](std::string_view end) {
        const std::size_t k = xml.find(end, i);
        i = k == std::string_view::npos ? xml.size() : k + end.size();
    };
    while ((i = xml.find('<', i)) != std::string_view::npos) {
        const std::string_view rest = xml.substr(i);
        if (rest.starts_with("<!--")) {
            skipPast("-->");
        } else if (rest.starts_with("<![CDATA[")) {
            skipPast("]]>");
        } else if (rest.starts_with("<?") || rest.starts_with("<!")) {
            skipPast(">");
        } else if (rest.starts_with("</")) {
            depth = std::max(0, depth - 1);
            skipPast(">");
        } else {
            // A start tag, up to its '>' outside quoted attribute values; "/>" closes it.
            char quote = 0;
            std::size_t k = i + 1;
            for (; k < xml.size(); ++k) {
                const char c = xml[k];
                if (quote) {
                    if (c == quote) quote = 0;
                } else if (c == '"' || c == '\'') {
                    quote = c;
                } else if (c == '>') {
                    break;
                }
            }
            if (k >= xml.size() || xml[k - 1] != '/') deepest = std::max(deepest, ++depth);
            if (deepest > limit) return deepest;
            i = k + 1;
        }
    }
    return deepest;
}

// ---- Pass 2: every number urdfdom reads is a finite number ----------------------------------

struct NumberAttribute {
    const char* name;
    int count;  // how many numbers, separated by spaces
};

// What is wrong with one number of an attribute, "" when it is a finite number. urdfdom reads
// numbers with a classic-locale stream: a leading '+' is allowed, an underflow reads as 0, and
// "nan", "inf" or an overflow make the whole file invalid.
std::string numberProblem(std::string_view token) {
    const std::string_view digits = token.starts_with('+') ? token.substr(1) : token;
    double value = 0.0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || digits.starts_with('+') || end != digits.data() + digits.size() ||
        (ec != std::errc() && ec != std::errc::result_out_of_range))
        return excerpt(token) + " is not a number";
    if (ec == std::errc::result_out_of_range) {
        std::istringstream stream{std::string(token)};
        stream.imbue(std::locale::classic());
        stream >> value;
        return stream.fail() ? excerpt(token) + " is beyond the range of a double" : "";
    }
    return std::isfinite(value) ? "" : excerpt(token) + " is not a finite number";
}

// Checks the listed attributes of `element` that are present: each must hold `count` finite
// numbers. `owner` is "link 'name'" or "joint 'name'", `where` the element's place.
void checkNumbers(const TiXmlElement* element, std::initializer_list<NumberAttribute> attributes,
                  const std::string& owner, const std::string& where, Reporter& report) {
    if (!element) return;
    for (const NumberAttribute& attribute : attributes) {
        const char* text = element->Attribute(attribute.name);
        if (!text) continue;
        const std::string_view value(text);
        std::string problem;
        int count = 0;
        for (std::size_t i = value.find_first_not_of(" \t\r\n"); i != std::string_view::npos;
             i = value.find_first_not_of(" \t\r\n", i)) {
            const std::size_t end = std::min(value.find_first_of(" \t\r\n", i), value.size());
            if (problem.empty()) problem = numberProblem(value.substr(i, end - i));
            ++count;
            i = end;
        }
        if (problem.empty() && count != attribute.count)
            problem = "holds " + std::to_string(count) + " numbers, " +
                      std::to_string(attribute.count) + " expected";
        if (!problem.empty())
            report.error(where, owner + ": " + element->Value() + " " + attribute.name + " \"" +
                                    excerpt(value) + "\": " + problem);
    }
}

void checkOrigin(const TiXmlElement* parent, const std::string& owner, const std::string& where,
                 Reporter& report) {
    checkNumbers(parent->FirstChildElement("origin"), {{"xyz", 3}, {"rpy", 3}}, owner,
                 where + "/origin", report);
}

// <visual> and <collision>: origin, geometry, and a visual's own material colour.
void checkVisualNumbers(const TiXmlElement* visual, const std::string& owner,
                        const std::string& where, Reporter& report) {
    checkOrigin(visual, owner, where, report);
    if (const TiXmlElement* geometry = visual->FirstChildElement("geometry")) {
        // urdfdom reads the first element in <geometry>, and of it only its shape's sizes.
        if (const TiXmlElement* shape = geometry->FirstChildElement()) {
            const std::string_view type = shape->Value();
            const std::string at = where + "/geometry/" + shape->Value();
            if (type == "box") checkNumbers(shape, {{"size", 3}}, owner, at, report);
            if (type == "cylinder")
                checkNumbers(shape, {{"radius", 1}, {"length", 1}}, owner, at, report);
            if (type == "sphere") checkNumbers(shape, {{"radius", 1}}, owner, at, report);
            if (type == "mesh") checkNumbers(shape, {{"scale", 3}}, owner, at, report);
        }
    }
    if (const TiXmlElement* material = visual->FirstChildElement("material"))
        checkNumbers(material->FirstChildElement("color"), {{"rgba", 4}}, owner,
                     where + "/material/color", report);
}

// "link 'name'", or "link 3" for one without a name (urdfdom refuses it later).
std::string elementPlace(const TiXmlElement* element, std::string_view kind, int index) {
    const char* name = element->Attribute("name");
    if (!name) return std::string(kind) + " " + std::to_string(index);
    return std::string(kind) + " '" + excerpt(name) + "'";
}

void checkNumbersInRobot(const TiXmlElement& robot, Reporter& report) {
    int index = 0;
    for (const TiXmlElement* material = robot.FirstChildElement("material"); material;
         material = material->NextSiblingElement("material"), ++index) {
        const std::string owner = elementPlace(material, "material", index);
        checkNumbers(material->FirstChildElement("color"), {{"rgba", 4}}, owner, owner + "/color",
                     report);
    }
    index = 0;
    for (const TiXmlElement* link = robot.FirstChildElement("link"); link;
         link = link->NextSiblingElement("link"), ++index) {
        const std::string owner = elementPlace(link, "link", index);
        if (const TiXmlElement* inertial = link->FirstChildElement("inertial")) {
            const std::string at = owner + "/inertial";
            checkOrigin(inertial, owner, at, report);
            checkNumbers(inertial->FirstChildElement("mass"), {{"value", 1}}, owner, at + "/mass",
                         report);
            checkNumbers(inertial->FirstChildElement("inertia"),
                         {{"ixx", 1}, {"ixy", 1}, {"ixz", 1}, {"iyy", 1}, {"iyz", 1}, {"izz", 1}},
                         owner, at + "/inertia", report);
        }
        for (const char* kind : {"visual", "collision"}) {
            int k = 0;
            for (const TiXmlElement* visual = link->FirstChildElement(kind); visual;
                 visual = visual->NextSiblingElement(kind), ++k)
                checkVisualNumbers(visual, owner, owner + "/" + kind + "/" + std::to_string(k),
                                   report);
        }
    }
    index = 0;
    for (const TiXmlElement* joint = robot.FirstChildElement("joint"); joint;
         joint = joint->NextSiblingElement("joint"), ++index) {
        const std::string owner = elementPlace(joint, "joint", index);
        checkOrigin(joint, owner, owner, report);
        // urdfdom reads no axis for fixed and floating joints.
        const char* type = joint->Attribute("type");
        const std::string_view typeName = type ? type : "";
        if (typeName != "fixed" && typeName != "floating")
            checkNumbers(joint->FirstChildElement("axis"), {{"xyz", 3}}, owner, owner + "/axis",
                         report);
        checkNumbers(joint->FirstChildElement("limit"),
                     {{"lower", 1}, {"upper", 1}, {"effort", 1}, {"velocity", 1}}, owner,
                     owner + "/limit", report);
        checkNumbers(joint->FirstChildElement("dynamics"), {{"damping", 1}, {"friction", 1}}, owner,
                     owner + "/dynamics", report);
        checkNumbers(joint->FirstChildElement("safety_controller"),
                     {{"soft_lower_limit", 1},
                      {"soft_upper_limit", 1},
                      {"k_position", 1},
                      {"k_velocity", 1}},
                     owner, owner + "/safety_controller", report);
        checkNumbers(joint->FirstChildElement("calibration"), {{"rising", 1}, {"falling", 1}},
                     owner, owner + "/calibration", report);
        checkNumbers(joint->FirstChildElement("mimic"), {{"multiplier", 1}, {"offset", 1}}, owner,
                     owner + "/mimic", report);
    }
}

// ---- Pass 3: urdfdom's model to a scene --------------------------------------------------

Vec3 toVec(const urdf::Vector3& v) {
    return {v.x, v.y, v.z};
}
Quat toQuat(const urdf::Rotation& r) {
    return Quat(r.w, r.x, r.y, r.z).normalized();
}
Transform toTransform(const urdf::Pose& p) {
    return {toQuat(p.rotation), toVec(p.position)};
}
bool isFinite(const urdf::Pose& p) {
    return toVec(p.position).allFinite() &&
           std::isfinite(p.rotation.x + p.rotation.y + p.rotation.z + p.rotation.w);
}

// What one link brings: its inertial data as given (checked for finite numbers), and its
// shapes in the link frame L (visual ones drawn, collision ones in contact).
struct LinkData {
    bool massless = true;        // no <inertial>, or one of zero mass and zero inertia
    MassProperties mass;         // in L, when not massless (after the fix-ups)
    std::vector<Shape> shapes;   // in L
    std::uint32_t colorRgb = 0;  // the first visual's own colour, 0 when none
    bool hasColor = false;
};

// The import's state shared by the links: options, where meshes are looked up, meshes read.
struct LinkReader {
    const RobotImportOptions& options;
    ResourceResolver resolver;
    std::filesystem::path dir;
    MeshFiles meshes;  // (prefetchMeshes)
    double massBound = 1e-3;
    Reporter& report;
};

// A link's <inertial>: mass and the six inertia values must be finite (malformed numbers are
// errors); what is finite but unphysical is fixed (inertia_fixup.h) or, with --strict, refused.
bool readInertial(const urdf::Link& link, LinkReader& reader, LinkData& data) {
    if (!link.inertial) return true;
    const urdf::Inertial& in = *link.inertial;
    const std::string owner = linkPlace(link.name);
    bool finite = true;
    if (!std::isfinite(in.mass)) {
        reader.report.error(owner + "/inertial/mass",
                            owner + ": mass " + numberText(in.mass, 10) + " kg is not finite");
        finite = false;
    }
    const std::pair<const char*, double> values[] = {{"ixx", in.ixx}, {"iyy", in.iyy},
                                                     {"izz", in.izz}, {"ixy", in.ixy},
                                                     {"ixz", in.ixz}, {"iyz", in.iyz}};
    for (const auto& [name, value] : values)
        if (!std::isfinite(value)) {
            reader.report.error(
                owner + "/inertial/inertia",
                owner + ": inertia " + name + " " + numberText(value, 10) + " kg·m² is not finite");
            finite = false;
        }
    if (!isFinite(in.origin)) {
        reader.report.error(owner + "/inertial/origin", owner + ": inertial origin is not finite");
        finite = false;
    }
    if (!finite) return false;
    const bool zeroInertia = in.ixx == 0.0 && in.iyy == 0.0 && in.izz == 0.0 && in.ixy == 0.0 &&
                             in.ixz == 0.0 && in.iyz == 0.0;
    if (in.mass == 0.0 && zeroInertia) return true;  // URDF's way of saying massless
    Mat3 I;
    I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
    const Transform X_LI = toTransform(in.origin);
    const Mat3 R = X_LI.rotationMatrix();
    data.massless = false;
    data.mass = {in.mass, X_LI.p, R * I * R.transpose()};
    Diagnostics found;
    const bool ok = checkMomentsNotNegative(Vec3(in.ixx, in.iyy, in.izz), owner, found) &&
                    fixInertia(data.mass, owner, {reader.options.strict, reader.massBound}, found);
    for (Diagnostic& d : found) {
        d.where = owner + "/inertial";
        if (d.severity == Severity::Error)
            reader.report.error(std::move(d.where), std::move(d.message));
        else
            reader.report.warning(std::move(d.where), std::move(d.message));
    }
    return ok;
}

// One <visual> or <collision> as a shape in L; nullopt (reported) when it cannot be had.
std::optional<Shape> readGeometry(const urdf::Geometry& geometry, const urdf::Pose& origin,
                                  ShapeRole role, const std::string& owner,
                                  const std::string& where, LinkReader& reader) {
    if (!isFinite(origin)) {
        reader.report.error(where + "/origin", owner + ": " + std::string(shapeRoleName(role)) +
                                                   " origin is not finite");
        return std::nullopt;
    }
    Shape s;
    s.role = role;
    s.X_PG = toTransform(origin);
    switch (geometry.type) {
    case urdf::Geometry::BOX:
        s.type = ShapeType::Box;
        s.size = toVec(static_cast<const urdf::Box&>(geometry).dim);
        break;
    case urdf::Geometry::CYLINDER: {
        const auto& c = static_cast<const urdf::Cylinder&>(geometry);
        s.type = ShapeType::Cylinder;
        s.radius = c.radius;
        s.length = c.length;
        break;
    }
    case urdf::Geometry::SPHERE:
        s.type = ShapeType::Sphere;
        s.radius = static_cast<const urdf::Sphere&>(geometry).radius;
        break;
    case urdf::Geometry::MESH: {
        const auto& m = static_cast<const urdf::Mesh&>(geometry);
        const ResourceLookup found = reader.resolver.resolve(m.filename);
        if (!found.file) {
            reader.report.warning(where, owner + ": " + std::string(shapeRoleName(role)) +
                                             " mesh '" + excerpt(m.filename) +
                                             "' not found (looked for " + excerpt(found.tried) +
                                             "): left out");
            return std::nullopt;
        }
        const LoadedMesh& loaded = reader.meshes.read(*found.file);
        if (!loaded.mesh) {
            const std::string& error = loaded.error;
            reader.report.warning(where, owner + ": " + std::string(shapeRoleName(role)) +
                                             " mesh '" + excerpt(*found.file) + "' is unreadable" +
                                             (error.empty() ? "" : " (" + excerpt(error) + ")") +
                                             ": left out");
            return std::nullopt;
        }
        s.type = ShapeType::Mesh;
        s.mesh = loaded.mesh;
        std::error_code ec;
        const std::filesystem::path relative =
            std::filesystem::relative(*found.file, reader.dir, ec);
        s.meshFile = ec || relative.empty() ? *found.file : relative.string();
        s.scale = toVec(m.scale);
        break;
    }
    default:
        return std::nullopt;
    }
    return s;
}

// Every mesh file the links name, read before the links are placed: each in a child process of
// its own, as many at once as the engine has threads (a humanoid names forty-odd files, each
// ~70 ms in its reader). readGeometry then finds them in `reader.meshes`.
void prefetchMeshes(const urdf::ModelInterface& robot, LinkReader& reader) {
    std::vector<std::string> files;
    const auto add = [&](const urdf::GeometrySharedPtr& geometry) {
        if (!geometry || geometry->type != urdf::Geometry::MESH) return;
        const ResourceLookup found =
            reader.resolver.resolve(static_cast<const urdf::Mesh&>(*geometry).filename);
        if (found.file) files.push_back(*found.file);
    };
    for (const auto& [name, link] : robot.links_) {
        if (!link) continue;
        for (const urdf::VisualSharedPtr& visual : link->visual_array)
            if (visual) add(visual->geometry);
        for (const urdf::CollisionSharedPtr& collision : link->collision_array)
            if (collision) add(collision->geometry);
    }
    reader.meshes.prefetch(files);
}

LinkData readLink(const urdf::Link& link, LinkReader& reader) {
    const std::string owner = linkPlace(link.name);
    LinkData data;
    readInertial(link, reader, data);
    for (std::size_t k = 0; k < link.visual_array.size(); ++k) {
        const urdf::VisualSharedPtr& visual = link.visual_array[k];
        if (!visual || !visual->geometry) continue;
        if (auto s = readGeometry(*visual->geometry, visual->origin, ShapeRole::Visual, owner,
                                  owner + "/visual/" + std::to_string(k), reader))
            data.shapes.push_back(std::move(*s));
        if (!data.hasColor && visual->material && visual->material->color.a > 0.0f) {
            const urdf::Color& c = visual->material->color;
            auto channel = [](float v) {
                return static_cast<std::uint32_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
            };
            data.colorRgb = channel(c.r) << 16 | channel(c.g) << 8 | channel(c.b);
            data.hasColor = true;
        }
    }
    for (std::size_t k = 0; k < link.collision_array.size(); ++k) {
        const urdf::CollisionSharedPtr& collision = link.collision_array[k];
        if (!collision || !collision->geometry) continue;
        if (auto s = readGeometry(*collision->geometry, collision->origin, ShapeRole::Collision,
                                  owner, owner + "/collision/" + std::to_string(k), reader))
            data.shapes.push_back(std::move(*s));
    }
    if (reader.options.inertiaFromGeometry) {
        // The solid is the collision geometry, else the visual one; the file's mass is kept.
        const bool anyCollision = std::any_of(data.shapes.begin(), data.shapes.end(),
                                              [](const Shape& s) { return s.collides(); });
        MassProperties unit;  // at density 1 kg/m³
        for (const Shape& s : data.shapes)
            if (s.collides() == anyCollision && s.type != ShapeType::Plane)
                unit = combine(unit, shapeMassProperties(s, 1.0));
        const double volume = unit.mass;
        Vec3 principal = Vec3::Zero();
        if (volume > 0.0)
            principal = Eigen::SelfAdjointEigenSolver<Mat3>(unit.I_Pcm_P).eigenvalues();
        if (!(volume > 0.0) || !unit.I_Pcm_P.allFinite() || principal.minCoeff() <= 0.0) {
            if (!data.shapes.empty() || !data.massless)
                reader.report.warning(owner, owner + ": its geometry encloses no volume (" +
                                                 (data.shapes.empty() ? std::string("no shapes")
                                                                      : "open or flat shapes") +
                                                 "): inertia kept as given");
        } else {
            const double mass = data.massless ? 1000.0 * volume : data.mass.mass;
            const double density = mass / volume;
            data.mass = {mass, unit.p_PPcm, unit.I_Pcm_P * density};
            data.massless = false;
            reader.report.warning(
                owner, owner + ": inertia from its " + (anyCollision ? "collision" : "visual") +
                           " geometry: mass " + numberText(mass, 10) + " kg, centre of mass (" +
                           numberText(unit.p_PPcm.x(), 10) + ", " +
                           numberText(unit.p_PPcm.y(), 10) + ", " +
                           numberText(unit.p_PPcm.z(), 10) + ") m");
        }
    }
    return data;
}

// The unit vector along a joint's axis, or nullopt (reported) when it has no direction. A
// non-unit axis is normalised, as URDF says; it is scaled first so tiny ones do not underflow.
std::optional<Vec3> jointAxis(const urdf::Joint& joint, Reporter& report) {
    const Vec3 axis = toVec(joint.axis);
    const std::string owner = jointPlace(joint.name);
    const std::string text =
        numberText(axis.x(), 10) + " " + numberText(axis.y(), 10) + " " + numberText(axis.z(), 10);
    if (!axis.allFinite()) {
        report.error(owner + "/axis", owner + ": axis " + text + " is not finite");
        return std::nullopt;
    }
    const double largest = axis.cwiseAbs().maxCoeff();
    if (largest == 0.0) {
        const char* role = joint.type == urdf::Joint::PRISMATIC ? "the direction it slides along"
                           : joint.type == urdf::Joint::PLANAR  ? "the normal of its plane"
                                                                : "the direction it turns about";
        report.error(owner + "/axis",
                     owner + ": axis " + text + " has no direction: give xyz, " + role);
        return std::nullopt;
    }
    return Vec3(axis / largest).normalized();
}

// `text` is the whole file; `path` names it (empty: text from elsewhere).
std::optional<SceneSpec> buildScene(const std::string& text, const std::string& path,
                                    const RobotImportOptions& options, Reporter& report) {
    const std::string invalid = (path.empty() ? std::string("the URDF text") : "'" + path + "'") +
                                " is not a valid URDF robot description";

    // Pass 0: the encoding, before TinyXML reads past a cut-short multi-byte sequence.
    if (const std::size_t bad = malformedUtf8(text); bad != std::string_view::npos) {
        const std::string_view before = std::string_view(text).substr(0, bad);
        const std::size_t line =
            1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
        const std::size_t lineStart = before.rfind('\n');
        const std::size_t column =
            bad - (lineStart == std::string_view::npos ? 0 : lineStart + 1) + 1;
        report.error("", invalid + ": the text is not UTF-8 at line " + std::to_string(line) +
                             ", column " + std::to_string(column) + " (byte " +
                             std::to_string(bad) +
                             "), and its XML declaration names no other encoding");
        return std::nullopt;
    }

    // Pass 1: nesting depth, before anything recursive sees the text.
    if (elementDepth(text, kMaxElementDepth) > kMaxElementDepth) {
        report.error("", invalid + ": elements are nested more than " +
                             std::to_string(kMaxElementDepth) + " deep");
        return std::nullopt;
    }

    // Pass 2: the numbers, where each one is.
    {
        TiXmlDocument document;
        document.Parse(text.c_str());
        if (document.Error()) {
            report.error("", invalid + ": " + document.ErrorDesc() + " (line " +
                                 std::to_string(document.ErrorRow()) + ", column " +
                                 std::to_string(document.ErrorCol()) + ")");
            return std::nullopt;
        }
        if (const TiXmlElement* robot = document.FirstChildElement("robot")) {
            checkNumbersInRobot(*robot, report);
            // A loop of joints is refused here, before urdfdom builds it: its links would
            // hold each other by shared pointers and never be freed.
            // A link with two parent joints, or its own parent, is a loop too.
            std::map<std::string, std::string> parentOf, jointOf;
            for (const TiXmlElement* joint = robot->FirstChildElement("joint"); joint;
                 joint = joint->NextSiblingElement("joint")) {
                const TiXmlElement* parent = joint->FirstChildElement("parent");
                const TiXmlElement* child = joint->FirstChildElement("child");
                const char* p = parent ? parent->Attribute("link") : nullptr;
                const char* c = child ? child->Attribute("link") : nullptr;
                if (!p || !c) continue;
                const char* name = joint->Attribute("name");
                const std::string jointName = name ? name : "";
                if (!parentOf.emplace(c, p).second) {
                    report.error(jointPlace(jointName),
                                 linkPlace(c) + " is the child of two joints ('" +
                                     excerpt(jointOf[c]) + "' and '" + excerpt(jointName) +
                                     "'): its joints form a loop (a URDF is a tree)");
                    return std::nullopt;
                }
                jointOf[c] = jointName;
            }
            std::map<std::string, int> state;  // 1: on the current walk up, 2: reaches the root
            for (const auto& [start, unused] : parentOf) {
                std::vector<std::string> walk;
                std::string link = start;
                bool loop = false;
                while (true) {
                    int& s = state[link];
                    if (s == 2) break;
                    if (s == 1) {
                        loop = true;
                        break;
                    }
                    s = 1;
                    walk.push_back(link);
                    const auto up = parentOf.find(link);
                    if (up == parentOf.end()) break;
                    link = up->second;
                }
                for (const std::string& w : walk) state[w] = 2;
                if (loop) {
                    report.error(
                        linkPlace(link),
                        linkPlace(link) +
                            " is its own ancestor: its joints form a loop (a URDF is a tree)");
                    return std::nullopt;
                }
            }
        }
        if (report.hasErrors()) return std::nullopt;
    }

    // Pass 3: urdfdom's model. Why it refuses a file, it says through console_bridge: its
    // first error is the reason given (and nothing is printed behind the user's back).
    struct FirstError : console_bridge::OutputHandler {
        std::string text;
        void log(const std::string& message, console_bridge::LogLevel level, const char*,
                 int) override {
            if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR && text.empty()) text = message;
        }
    };
    FirstError why;
    urdf::ModelInterfaceSharedPtr robot;
    {
        static std::mutex handlerInUse;  // console_bridge's handler is one for the process
        const std::lock_guard<std::mutex> lock(handlerInUse);
        console_bridge::useOutputHandler(&why);
        robot = urdf::parseURDF(text);
        console_bridge::restorePreviousOutputHandler();
    }
    if (!robot || !robot->getRoot()) {
        // The reason quotes the file's names: longer than one name, bounded all the same.
        report.error("", why.text.empty() ? invalid : invalid + ": " + excerpt(why.text, 240));
        return std::nullopt;
    }
    // Meshes are looked up next to the file ("." for a file named without a folder, and for
    // text from elsewhere: an empty folder would make every mesh path relative to it empty).
    std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (dir.empty()) dir = ".";

    // A tree: each link is the child of one joint at most. (urdfdom keeps the last.)
    std::map<std::string, std::string> parentJointOf;  // child link name → joint name
    for (const auto& [name, joint] : robot->joints_) {
        const auto [it, added] = parentJointOf.emplace(joint->child_link_name, name);
        if (!added)
            report.error(jointPlace(name),
                         linkPlace(joint->child_link_name) + " is the child of joints '" +
                             excerpt(it->second) + "' and '" + excerpt(name) +
                             "': a URDF is a tree, each link has one parent joint");
    }
    if (report.hasErrors()) return std::nullopt;

    // The mass a moving link is given at least: a thousandth of the robot's, at most 1 g.
    double totalMass = 0.0;
    for (const auto& [name, link] : robot->links_)
        if (link->inertial && std::isfinite(link->inertial->mass) && link->inertial->mass > 0.0)
            totalMass += link->inertial->mass;
    LinkReader reader{options, ResourceResolver(path, options.packagePath), dir,
                      {},      std::clamp(1e-3 * totalMass, 1e-6, 1e-3),    report};

    prefetchMeshes(*robot, reader);

    SceneSpec spec;
    spec.name = robot->getName();
    spec.description = path.empty()
                           ? std::string("Imported from URDF text")
                           : "Imported from " + std::filesystem::path(path).filename().string();
    // Where each URDF link went: its part, and the link frame L in the part frame P (a link
    // merged into its parent is not at the part's origin).
    struct Placed {
        std::size_t part;
        Transform X_PL;
    };
    std::map<std::string, Placed> partOf;
    std::vector<MassProperties> partMass;  // per part, in P: the links' inertials combined
    std::vector<char> partMassless;        // per part: no link of it has mass
    std::set<std::string> mergedJoints;    // fixed joints whose child went into the parent
    const std::uint32_t palette[] = {0x7a828c, 0xe0703c, 0x3c8ee0, 0x4fb45a, 0xd9b43c, 0x9b6cd0};

    // Links, from the root down (depth first, children in the file's order), with their world
    // poses at zero joint positions. The stack holds the links still to place. A massless link
    // on a fixed joint (a tool flange, a sensor frame) is merged into its parent's part; so is
    // a link fixed to a massless parent (a base_footprint above a base_link).
    struct PendingLink {
        urdf::LinkConstSharedPtr link;
        Transform X_WL;
        const urdf::Joint* joint;  // the joint to its parent, null for the root
        bool parentMassless;
    };
    std::vector<PendingLink> pending{{robot->getRoot(), Transform::identity(), nullptr, false}};
    while (!pending.empty()) {
        const PendingLink next = std::move(pending.back());
        pending.pop_back();
        const urdf::Link& link = *next.link;
        if (partOf.count(link.name)) continue;
        LinkData data = readLink(link, reader);
        const urdf::Joint* joint = next.joint;
        std::size_t index = spec.parts.size();
        Transform X_PL = Transform::identity();
        bool merged = false;
        if (joint && joint->type == urdf::Joint::FIXED &&
            isFinite(joint->parent_to_joint_origin_transform)) {
            const Placed& parent = partOf.at(joint->parent_link_name);
            const bool parentGround = spec.parts[parent.part].ground;
            merged = data.massless || (next.parentMassless && !parentGround);
            if (merged) {
                index = parent.part;
                X_PL = parent.X_PL * toTransform(joint->parent_to_joint_origin_transform);
                mergedJoints.insert(joint->name);
                report.warning(jointPlace(joint->name),
                               linkPlace(link.name) + (data.massless ? " (massless)" : "") +
                                   " on fixed " + jointPlace(joint->name) +
                                   " is merged into part '" + spec.parts[index].name + "'");
            }
        }
        if (!merged) {
            // The root is the ground when it is the world, or when the user bolts it down.
            const bool isWorld = !joint && (link.name == "world" || options.fixedBase);
            Part part;
            part.id = spec.newId();
            part.name = sanitize(link.name);
            part.X_WP = next.X_WL;
            part.ground = isWorld;
            part.colorRgb = palette[spec.parts.size() % 6];
            spec.parts.push_back(std::move(part));
            partMass.emplace_back();
            partMassless.push_back(1);
        }
        Part& part = spec.parts[index];
        if (data.hasColor && !merged) part.colorRgb = data.colorRgb;
        for (Shape& shape : data.shapes) {
            shape.X_PG = X_PL * shape.X_PG;
            part.shapes.push_back(std::move(shape));
        }
        if (!data.massless) {
            MassProperties inP = data.mass;
            const Mat3 R = X_PL.rotationMatrix();
            inP.p_PPcm = X_PL * data.mass.p_PPcm;
            inP.I_Pcm_P = R * data.mass.I_Pcm_P * R.transpose();
            partMass[index] = combine(partMass[index], inP);
            partMassless[index] = 0;
        }
        partOf.emplace(link.name, Placed{index, X_PL});
        for (auto child = link.child_joints.rbegin(); child != link.child_joints.rend(); ++child)
            pending.push_back({robot->getLink((*child)->child_link_name),
                               next.X_WL * toTransform((*child)->parent_to_joint_origin_transform),
                               child->get(), data.massless});
    }

    // Mass properties of the parts: their links' combined; a moving part with none is given
    // the bound (a massless frame between two joints, or a massless floating root).
    for (std::size_t i = 0; i < spec.parts.size(); ++i) {
        Part& part = spec.parts[i];
        if (part.ground) continue;
        if (partMassless[i]) {
            part.mass = reader.massBound;
            part.p_PPcm = Vec3::Zero();
            const double r = 1e-2;  // m: the inertia of the mass at 1 cm
            part.I_Pcm_P = Mat3::Identity() * reader.massBound * r * r;
            report.warning(linkPlace(part.name),
                           "part '" + part.name +
                               "' has no mass (its links have no inertial): given " +
                               numberText(reader.massBound * 1e3, 10) + " g and " +
                               numberText(part.I_Pcm_P(0, 0), 10) + " kg·m²");
        } else {
            part.mass = partMass[i].mass;
            part.p_PPcm = partMass[i].p_PPcm;
            part.I_Pcm_P = partMass[i].I_Pcm_P;
        }
    }

    // Links the walk did not reach hang from a loop of joints.
    if (partOf.size() != robot->links_.size()) {
        for (const auto& [name, link] : robot->links_) {
            if (partOf.count(name)) continue;
            const std::size_t others = robot->links_.size() - partOf.size() - 1;
            report.error(
                linkPlace(name),
                linkPlace(name) +
                    (others == 0 ? std::string(" is")
                                 : " and " + std::to_string(others) +
                                       (others == 1 ? " other link are" : " other links are")) +
                    " not connected to the root link '" + excerpt(robot->getRoot()->name) +
                    "': their joints form a loop (a URDF is a tree)");
            break;
        }
        return std::nullopt;
    }

    // Joints: a marker on the parent at the joint frame and one at the child's origin, both
    // with z along the joint axis; their limits, damping and what is not modelled.
    bool anyLimit = false;  // stops or joint friction: time stepping
    std::set<std::string> forceNames;
    std::vector<std::pair<std::string, const urdf::JointMimic*>> mimics;
    for (const auto& [name, joint] : robot->joints_) {
        const std::string owner = jointPlace(name);
        JointType type = JointType::Fixed;
        switch (joint->type) {
        case urdf::Joint::REVOLUTE:
        case urdf::Joint::CONTINUOUS:
            type = JointType::Revolute;
            break;
        case urdf::Joint::PRISMATIC:
            type = JointType::Prismatic;
            break;
        case urdf::Joint::FIXED:
            type = JointType::Fixed;
            break;
        case urdf::Joint::PLANAR:
            type = JointType::Planar;
            break;
        case urdf::Joint::FLOATING:
            report.warning(owner, "floating joint: the child moves freely");
            continue;
        default:
            report.warning(owner, "unknown joint type: left out");
            continue;
        }
        if (!isFinite(joint->parent_to_joint_origin_transform)) {
            report.error(owner + "/origin", owner + ": origin is not finite");
            continue;
        }
        if (mergedJoints.count(name)) continue;  // its child is part of its parent's part
        Quat R_axis = Quat::Identity();          // fixed joints have no axis
        if (joint->type != urdf::Joint::FIXED) {
            const std::optional<Vec3> axis = jointAxis(*joint, report);
            if (!axis) continue;
            R_axis = Quat::FromTwoVectors(Vec3::UnitZ(), *axis);
        }
        const urdf::JointLimits* limits = joint->limits.get();
        if (limits && !(std::isfinite(limits->lower) && std::isfinite(limits->upper) &&
                        std::isfinite(limits->effort) && std::isfinite(limits->velocity))) {
            report.error(owner + "/limit", owner + ": limit is not finite");
            continue;
        }
        const Placed& onParentLink = partOf.at(joint->parent_link_name);
        const Placed& onChildLink = partOf.at(joint->child_link_name);
        Part& parent = spec.parts[onParentLink.part];
        Part& child = spec.parts[onChildLink.part];
        const std::string markerName = "j_" + sanitize(name);
        Marker onParent, onChild;
        onParent.id = spec.newId();
        onParent.name = markerName;
        onParent.X_PM = onParentLink.X_PL * toTransform(joint->parent_to_joint_origin_transform) *
                        Transform{R_axis, Vec3::Zero()};
        onChild.id = spec.newId();
        onChild.name = markerName;
        onChild.X_PM = onChildLink.X_PL * Transform{R_axis, Vec3::Zero()};
        parent.markers.push_back(onParent);
        child.markers.push_back(onChild);
        Joint j;
        j.id = spec.newId();
        j.name = sanitize(name);
        j.type = type;
        j.markerI = {child.name, markerName};
        j.markerJ = {parent.name, markerName};
        // The URDF joint position is the Motus coordinate: marker I rides on the child's frame
        // and J on the joint frame in the parent, both with z along the axis, so the child
        // turned (moved) by q about (along) the axis puts I at angle (offset) q from J.
        const bool revolute = type == JointType::Revolute;
        const bool coordinate = revolute || type == JointType::Prismatic;
        const char* unit = revolute ? "rad" : "m";
        if (limits && coordinate && joint->type != urdf::Joint::CONTINUOUS) {
            // lower = upper = 0 is what urdfdom reads from a <limit> giving only effort and
            // velocity: no stops, not a locked joint.
            if (limits->upper > limits->lower) {
                JointLimit stop;
                stop.lower = limits->lower;
                stop.upper = limits->upper;
                j.limits = {stop};
                anyLimit = true;
                // The parts are placed at position 0: a run starts by moving the joint onto
                // the stop it is beyond.
                if (stop.lower > 0.0 || stop.upper < 0.0)
                    report.warning(
                        owner + "/limit",
                        owner + ": the file's pose (position 0) is outside its limits [" +
                            numberText(stop.lower, 10) + ", " + numberText(stop.upper, 10) + "] " +
                            unit + ": a run starts with it moved onto the nearer stop");
            } else if (limits->lower > limits->upper) {
                report.warning(owner + "/limit",
                               owner + ": limit lower " + numberText(limits->lower, 10, unit) +
                                   " is above upper " + numberText(limits->upper, 10, unit) +
                                   ": no stops");
            }
        }
        spec.joints.push_back(j);
        const urdf::JointDynamics* dynamics = joint->dynamics.get();
        if (dynamics && type != JointType::Fixed) {
            const char* perRate = revolute ? " N·m·s/rad" : " N·s/m";
            if (!std::isfinite(dynamics->damping) || !std::isfinite(dynamics->friction)) {
                report.error(owner + "/dynamics", owner + ": dynamics is not finite");
                continue;
            }
            if (dynamics->damping != 0.0 && !coordinate) {
                report.warning(owner + "/dynamics",
                               owner + ": damping " + numberText(dynamics->damping, 10) + " on a " +
                                   std::string(jointTypeName(type)) + " joint: left out");
            } else if (dynamics->damping < 0.0) {
                report.warning(owner + "/dynamics", owner + ": damping " +
                                                        numberText(dynamics->damping, 10) +
                                                        perRate + " is negative: left out");
            } else if (dynamics->damping > 0.0) {
                // A damper on the joint's coordinate: a rotational spring-damper of stiffness
                // 0 on a revolute, a joint controller of kp 0 on a prismatic.
                ForceSpec f;
                f.id = spec.newId();
                const std::string base = sanitize(j.name + "_damper");
                f.name = base;
                for (int k = 2; !forceNames.insert(f.name).second; ++k)
                    f.name = base + "_" + std::to_string(k);
                f.joint = j.name;
                f.damping = dynamics->damping;
                if (revolute) {
                    f.type = ForceType::RotationalSpringDamper;
                } else {
                    f.type = ForceType::JointController;
                    f.axis = JointAxis::Translation;
                }
                spec.forces.push_back(std::move(f));
            }
            if (dynamics->friction < 0.0) {
                report.warning(owner + "/dynamics", owner + ": friction " +
                                                        numberText(dynamics->friction, 10) +
                                                        " is negative: left out");
            } else if (dynamics->friction > 0.0 && !coordinate) {
                report.warning(owner + "/dynamics",
                               owner + ": friction " + numberText(dynamics->friction, 10) +
                                   " on a " + std::string(jointTypeName(type)) +
                                   " joint: left out");
            } else if (dynamics->friction > 0.0) {
                // The joint's static friction (URDF: "the physical static friction value"): a
                // constant Coulomb friction torque or force, stiction included.
                Joint& added = spec.joints.back();
                added.friction.resize(1);
                added.friction[0].preload = dynamics->friction;
                anyLimit = true;
            }
        }
        if (const urdf::JointMimic* mimic = joint->mimic.get()) mimics.push_back({name, mimic});
    }
    // Mimic joints: q = multiplier × q_leader + offset, a linear coupler of the two coordinates
    // (absolute: the parts are placed at position 0, so a run starts by assembling it).
    std::set<std::string> couplerNames;
    for (const auto& [name, mimic] : mimics) {
        const std::string owner = jointPlace(name) + "/mimic";
        const Joint* follower = spec.findJoint(sanitize(name));
        const Joint* leader = spec.findJoint(sanitize(mimic->joint_name));
        auto coordinateOf = [](const Joint* j) -> std::optional<JointAxis> {
            if (!j) return std::nullopt;
            if (j->type == JointType::Revolute) return JointAxis::Rotation;
            if (j->type == JointType::Prismatic) return JointAxis::Translation;
            return std::nullopt;
        };
        const auto followerAxis = coordinateOf(follower), leaderAxis = coordinateOf(leader);
        std::string why;
        if (!std::isfinite(mimic->multiplier) || !std::isfinite(mimic->offset))
            why = "its multiplier or offset is not finite";
        else if (!leader)
            why = "there is no movable joint '" + excerpt(mimic->joint_name) + "' to mimic";
        else if (!followerAxis || !leaderAxis)
            why = "only revolute, continuous and prismatic joints can be coupled";
        else if (follower == leader)
            why = "a joint cannot mimic itself";
        if (!why.empty()) {
            report.warning(owner, jointPlace(name) + ": mimics joint '" +
                                      excerpt(mimic->joint_name) + "', but " + why +
                                      ": the joint moves on its own");
            continue;
        }
        if (mimic->multiplier == 0.0) {
            // Held at its offset: a motion of constant value.
            MotionSpec hold;
            hold.id = spec.newId();
            hold.name = sanitize(name + "_mimic");
            hold.joint = follower->name;
            hold.axis = *followerAxis;
            hold.expression = numberText(mimic->offset, 17);
            spec.motions.push_back(std::move(hold));
            continue;
        }
        CouplerSpec c;
        c.id = spec.newId();
        c.name = sanitize(name + "_mimic");
        for (int k = 2; !couplerNames.insert(c.name).second; ++k)
            c.name = sanitize(name + "_mimic") + "_" + std::to_string(k);
        c.type = CouplerType::Linear;
        c.terms = {{follower->name, *followerAxis, 1.0},
                   {leader->name, *leaderAxis, -mimic->multiplier}};
        c.offset = mimic->offset;
        spec.couplers.push_back(std::move(c));
    }
    if (report.hasErrors()) return std::nullopt;
    // End stops and joint friction are solved with contact by the time-stepping integrator.
    if (anyLimit) spec.settings.integrator = IntegratorType::TimeStepping;
    return spec;
}

}  // namespace

UrdfImportResult importUrdfFile(const std::string& path, const RobotImportOptions& options) {
    // The whole file, read once (looked at first: a FIFO would block, a device never end).
    std::string problem = inputFileProblem(path, "URDF file");
    std::ifstream file;
    if (problem.empty()) {
        file.open(path, std::ios::binary);
        if (!file) problem = "cannot open URDF file '" + path + "'";
    }
    if (!problem.empty()) {
        UrdfImportResult result;
        result.diagnostics.push_back({Severity::Error, "", problem});
        return result;
    }
    std::ostringstream content;
    content << file.rdbuf();
    return importUrdf(std::move(content).str(), path, options);
}

UrdfImportResult importUrdf(std::string_view text, const std::string& path,
                            const RobotImportOptions& options) {
    UrdfImportResult result;
    Reporter report(result.diagnostics);
    std::optional<SceneSpec> spec = buildScene(std::string(text), path, options, report);
    report.finish();
    if (spec && !hasErrors(result.diagnostics))
        switchOffOverlappingLinks(*spec, result.diagnostics);
    finishImport(std::move(spec), result);
    return result;
}

}  // namespace engine::io
