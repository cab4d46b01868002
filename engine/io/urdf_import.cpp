#include "engine/io/urdf_import.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <locale>
#include <map>
#include <sstream>
#include <string_view>
#include <vector>

#include <urdf_parser/urdf_parser.h>

#include "engine/io/mesh_loader.h"

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

constexpr std::size_t kExcerptLength = 60;  // characters of a name or value quoted in a message
constexpr int kMaxElementDepth = 100;       // a URDF nests about six levels
constexpr int kMaxListed = 50;              // diagnostics of each severity listed one by one

// At most kExcerptLength characters of `text` (a name or value from the file), "…" when cut.
std::string excerpt(std::string_view text) {
    if (text.size() <= kExcerptLength) return std::string(text);
    std::size_t end = kExcerptLength;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // UTF-8
    return std::string(text.substr(0, end)) + "…";
}

std::string linkPlace(std::string_view name) {
    return "link '" + excerpt(name) + "'";
}
std::string jointPlace(std::string_view name) {
    return "joint '" + excerpt(name) + "'";
}

std::string numberText(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.10g", value);
    return text;
}

// The import's diagnostics. A hostile file can hold a million bad numbers: the first
// kMaxListed of each severity are listed, the others counted in one closing line.
class Reporter {
public:
    explicit Reporter(Diagnostics& out) : out_(out) {}
    void error(std::string where, std::string message) {
        add(Severity::Error, std::move(where), std::move(message));
    }
    void warning(std::string where, std::string message) {
        add(Severity::Warning, std::move(where), std::move(message));
    }
    bool hasErrors() const { return count_[0] > 0; }
    void finish() {
        if (count_[0] > kMaxListed)
            out_.push_back({Severity::Error, "",
                            std::to_string(count_[0] - kMaxListed) + " more errors not listed"});
        if (count_[1] > kMaxListed)
            out_.push_back({Severity::Warning, "",
                            std::to_string(count_[1] - kMaxListed) + " more warnings not listed"});
    }

private:
    void add(Severity severity, std::string where, std::string message) {
        const int kind = severity == Severity::Error ? 0 : 1;
        if (++count_[kind] <= kMaxListed)
            out_.push_back({severity, std::move(where), std::move(message)});
    }
    Diagnostics& out_;
    int count_[2] = {0, 0};  // errors, warnings
};

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

// URDF names may hold characters Motus names do not ('/', '.', spaces): replace them.
std::string sanitize(const std::string& name) {
    std::string out = name.empty() ? std::string("_") : name;
    for (char& c : out)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
    if (std::isdigit(static_cast<unsigned char>(out[0])) || out[0] == '-')
        out.insert(out.begin(), '_');
    return out.substr(0, 128);
}

// "package://pkg/meshes/x.stl" or a relative path: looked for next to the URDF file, in its
// parent folder, and without the package name.
std::optional<std::string> resolveMesh(const std::string& filename,
                                       const std::filesystem::path& urdfDir) {
    std::string rest = filename;
    if (rest.rfind("file://", 0) == 0) rest = rest.substr(7);
    std::vector<std::filesystem::path> candidates;
    if (rest.rfind("package://", 0) == 0) {
        rest = rest.substr(10);
        const auto slash = rest.find('/');
        const std::string withoutPackage =
            slash == std::string::npos ? rest : rest.substr(slash + 1);
        candidates = {urdfDir / withoutPackage, urdfDir.parent_path() / withoutPackage,
                      urdfDir.parent_path() / rest, urdfDir / rest};
    } else {
        candidates = {std::filesystem::path(rest).is_absolute() ? std::filesystem::path(rest)
                                                                : urdfDir / rest};
    }
    // No exceptions from the file system: a name too long, or one it cannot look up, is not found.
    for (const auto& c : candidates) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(c, ec)) return c.lexically_normal().string();
    }
    return std::nullopt;
}

// A link's <inertial>: mass and the six inertia values must be finite, the mass and the
// three moments positive. No substitute is given for a bad value.
bool checkInertial(const urdf::Inertial& in, const std::string& owner, Reporter& report) {
    bool ok = true;
    if (!std::isfinite(in.mass) || in.mass <= 0.0) {
        report.error(owner + "/inertial/mass",
                     owner + ": mass " + numberText(in.mass) + " kg is not " +
                         (std::isfinite(in.mass) ? "positive" : "finite"));
        ok = false;
    }
    const std::pair<const char*, double> values[] = {{"ixx", in.ixx}, {"iyy", in.iyy},
                                                     {"izz", in.izz}, {"ixy", in.ixy},
                                                     {"ixz", in.ixz}, {"iyz", in.iyz}};
    for (std::size_t k = 0; k < 6; ++k) {
        const auto [name, value] = values[k];
        const bool moment = k < 3;  // the products of inertia may be zero or negative
        if (!std::isfinite(value) || (moment && value <= 0.0)) {
            report.error(owner + "/inertial/inertia",
                         owner + ": inertia " + name + " " + numberText(value) + " kg·m² is not " +
                             (std::isfinite(value) ? "positive" : "finite"));
            ok = false;
        }
    }
    if (!isFinite(in.origin)) {
        report.error(owner + "/inertial/origin", owner + ": inertial origin is not finite");
        ok = false;
    }
    return ok;
}

// The part for one link, placed at X_WL (the link's frame at zero joint positions).
Part linkToPart(const urdf::Link& link, bool isWorld, const Transform& X_WL,
                const std::filesystem::path& dir, std::uint32_t colorRgb, Reporter& report) {
    const std::string owner = linkPlace(link.name);
    Part part;
    part.name = sanitize(link.name);
    part.X_WP = X_WL;
    part.colorRgb = colorRgb;
    part.ground = isWorld;
    if (!isWorld) {
        if (link.inertial) {
            const urdf::Inertial& in = *link.inertial;
            if (checkInertial(in, owner, report)) {
                Mat3 I;
                I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
                const Transform X_LI = toTransform(in.origin);
                const Mat3 R = X_LI.rotationMatrix();
                part.mass = in.mass;
                part.p_PPcm = X_LI.p;
                part.I_Pcm_P = R * I * R.transpose();
            }
        } else {
            // A link without <inertial> (a frame, or a root such as base_link) is massless in
            // URDF; a moving part needs some mass.
            part.mass = 1e-3;
            part.I_Pcm_P = Mat3::Identity() * 1e-7;
            report.warning(owner, "has no inertial: given 1 g and a small inertia");
        }
    }
    for (std::size_t k = 0; k < link.visual_array.size(); ++k) {
        const urdf::VisualSharedPtr& visual = link.visual_array[k];
        if (!visual || !visual->geometry) continue;
        if (!isFinite(visual->origin)) {
            report.error(owner + "/visual/" + std::to_string(k) + "/origin",
                         owner + ": visual origin is not finite");
            continue;
        }
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
                report.warning(
                    owner, "mesh '" + excerpt(m->filename) + "' not found or unreadable: left out");
                continue;
            }
            s.type = ShapeType::Mesh;
            std::error_code ec;
            const std::filesystem::path relative = std::filesystem::relative(*file, dir, ec);
            s.meshFile = ec || relative.empty() ? *file : relative.string();
            s.scale = toVec(m->scale);
            break;
        }
        }
        if (visual->material && visual->material->color.a > 0.0f) {
            const urdf::Color& c = visual->material->color;
            auto channel = [](float v) {
                return static_cast<std::uint32_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
            };
            part.colorRgb = channel(c.r) << 16 | channel(c.g) << 8 | channel(c.b);
        }
        part.shapes.push_back(s);
    }
    return part;
}

// The unit vector along a joint's axis, or nullopt (reported) when it has no direction. A
// non-unit axis is normalised, as URDF says; it is scaled first so tiny ones do not underflow.
std::optional<Vec3> jointAxis(const urdf::Joint& joint, Reporter& report) {
    const Vec3 axis = toVec(joint.axis);
    const std::string owner = jointPlace(joint.name);
    const std::string text =
        numberText(axis.x()) + " " + numberText(axis.y()) + " " + numberText(axis.z());
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

    // Pass 3: urdfdom's model.
    const urdf::ModelInterfaceSharedPtr robot = urdf::parseURDF(text);
    if (!robot || !robot->getRoot()) {
        report.error("", invalid);
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

    SceneSpec spec;
    spec.name = robot->getName();
    spec.description = path.empty()
                           ? std::string("Imported from URDF text")
                           : "Imported from " + std::filesystem::path(path).filename().string();
    std::map<std::string, std::size_t> partOf;  // URDF link name → part index
    const std::uint32_t palette[] = {0x7a828c, 0xe0703c, 0x3c8ee0, 0x4fb45a, 0xd9b43c, 0x9b6cd0};

    // Links, from the root down (depth first, children in the file's order), with their world
    // poses at zero joint positions. The stack holds the links still to place.
    struct PendingLink {
        urdf::LinkConstSharedPtr link;
        Transform X_WL;
    };
    std::vector<PendingLink> pending{{robot->getRoot(), Transform::identity()}};
    while (!pending.empty()) {
        const PendingLink next = std::move(pending.back());
        pending.pop_back();
        const urdf::Link& link = *next.link;
        if (!partOf.emplace(link.name, spec.parts.size()).second) continue;
        // The root is the ground when it is the world, or when the user bolts the robot down.
        const bool isWorld =
            next.link == robot->getRoot() && (link.name == "world" || options.fixedBase);
        Part part =
            linkToPart(link, isWorld, next.X_WL, dir, palette[spec.parts.size() % 6], report);
        part.id = spec.newId();
        spec.parts.push_back(std::move(part));
        for (auto joint = link.child_joints.rbegin(); joint != link.child_joints.rend(); ++joint)
            pending.push_back(
                {robot->getLink((*joint)->child_link_name),
                 next.X_WL * toTransform((*joint)->parent_to_joint_origin_transform)});
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
    // with z along the joint axis.
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
        Quat R_axis = Quat::Identity();  // fixed joints have no axis
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
        Part& parent = spec.parts[partOf.at(joint->parent_link_name)];
        Part& child = spec.parts[partOf.at(joint->child_link_name)];
        const std::string markerName = "j_" + sanitize(name);
        Marker onParent, onChild;
        onParent.id = spec.newId();
        onParent.name = markerName;
        onParent.X_PM =
            toTransform(joint->parent_to_joint_origin_transform) * Transform{R_axis, Vec3::Zero()};
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
        if (limits && joint->type != urdf::Joint::CONTINUOUS && limits->upper > limits->lower)
            report.warning(owner, "limits [" + std::to_string(limits->lower) + ", " +
                                      std::to_string(limits->upper) + "] are not enforced yet");
    }
    if (report.hasErrors()) return std::nullopt;
    return spec;
}

}  // namespace

UrdfImportResult importUrdfFile(const std::string& path, const RobotImportOptions& options) {
    // The whole file, read once.
    std::ifstream file(path, std::ios::binary);
    std::error_code ec;
    if (!file || std::filesystem::is_directory(path, ec)) {
        UrdfImportResult result;
        result.diagnostics.push_back({Severity::Error, "", "cannot open URDF file '" + path + "'"});
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
    if (!spec) return result;
    Diagnostics problems = validate(*spec);
    result.diagnostics.insert(result.diagnostics.end(), problems.begin(), problems.end());
    if (!hasErrors(result.diagnostics)) result.scene = std::move(spec);
    return result;
}

}  // namespace engine::io
