#include "engine/io/scene_json.h"

#include "engine/io/scene_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/io/bindings_json.h"
#include "engine/io/input_file.h"
#include "engine/io/mesh_loader.h"
#include "engine/math/number_text.h"

namespace engine::io {
namespace {

using nlohmann::json;

constexpr std::uintmax_t kMaxSceneFileBytes =
    16u * 1024u * 1024u;  // scenes are kilobytes; 16 MiB is ~20 000 parts

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

// One character of UTF-8 text: a well-formed sequence of `length` bytes, or (valid false) the
// `length` bytes read before the sequence went wrong, the last of them the offending one unless
// the text ended first.
struct Utf8Char {
    std::size_t length = 1;
    bool valid = true;
    bool truncated = false;  // not valid because the text ends inside it
};

// The character that starts at text[k] (RFC 3629: no overlong forms, no surrogates, nothing
// above U+10FFFF; Unicode table 3-7 gives the allowed range of each byte).
Utf8Char utf8At(std::string_view text, std::size_t k) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(k);
    if (lead < 0x80) return {1, true};
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xbf;  // range of the second byte
    if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        length = 3;
        if (lead == 0xe0) low = 0xa0;   // overlong
        if (lead == 0xed) high = 0x9f;  // surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4;
        if (lead == 0xf0) low = 0x90;   // overlong
        if (lead == 0xf4) high = 0x8f;  // above U+10FFFF
    } else {
        return {1, false};
    }
    for (std::size_t i = 1; i < length; ++i) {
        if (k + i >= text.size()) return {i, false, true};
        const unsigned char c = byte(k + i);
        if (c < (i == 1 ? low : 0x80) || c > (i == 1 ? high : 0xbf)) return {i + 1, false};
    }
    return {length, true};
}

// Text from the file as a message quotes it: at most `maxChars` characters, control characters
// escaped (\n, \u001b), bytes that are not UTF-8 written as \xff, "…" where it is cut. The
// one way file content gets into a message (a JSON value goes through valueExcerpt()).
class Excerpt {
public:
    explicit Excerpt(std::size_t maxChars) : left_(maxChars) {}

    bool full() const { return cut_; }

    // Punctuation and numbers: ASCII of our own making.
    void plain(std::string_view s) {
        for (char c : s)
            if (room(1)) out_ += c;
    }

    // Text from the file; `jsonString` also escapes '"' and '\' (inside a JSON string).
    void text(std::string_view s, bool jsonString) {
        for (std::size_t k = 0; k < s.size() && !cut_;) {
            const auto c = static_cast<unsigned char>(s[k]);
            const Utf8Char u = utf8At(s, k);
            char escape[8] = "";
            if (!u.valid) {
                std::snprintf(escape, sizeof escape, "\\x%02x", c);
            } else if (c == '\n') {
                std::snprintf(escape, sizeof escape, "\\n");
            } else if (c == '\t') {
                std::snprintf(escape, sizeof escape, "\\t");
            } else if (c == '\r') {
                std::snprintf(escape, sizeof escape, "\\r");
            } else if (c < 0x20 || c == 0x7f) {
                std::snprintf(escape, sizeof escape, "\\u%04x", c);
            } else if (jsonString && (c == '"' || c == '\\')) {
                std::snprintf(escape, sizeof escape, "\\%c", c);
            }
            if (escape[0] != '\0') {
                plain(escape);
                ++k;
            } else {
                if (room(1)) out_.append(s.substr(k, u.length));  // one character
                k += u.length;
            }
        }
    }

    std::string str() const { return cut_ ? out_ + "…" : out_; }

private:
    bool room(std::size_t chars) {
        if (cut_ || chars > left_) {
            cut_ = true;
            return false;
        }
        left_ -= chars;
        return true;
    }

    std::string out_;
    std::size_t left_;
    bool cut_ = false;
};

std::string excerpt(std::string_view text, std::size_t maxChars = kQuoteChars) {
    Excerpt out(maxChars);
    out.text(text, false);
    return out.str();
}

// A value from the file as its compact JSON text, cut like the text above. Depth first with
// a stack of its own, and only as far as the excerpt reaches.
std::string valueExcerpt(const json& value) {
    Excerpt out(kQuoteChars);
    struct Open {
        const json* container;
        json::const_iterator next;
    };
    std::vector<Open> open;
    const json* j = &value;
    while (!out.full()) {
        if (j) {
            if (j->is_structured()) {
                out.plain(j->is_object() ? "{" : "[");
                open.push_back({j, j->cbegin()});
            } else if (j->is_string()) {
                out.plain("\"");
                out.text(j->get_ref<const std::string&>(), true);
                out.plain("\"");
            } else {
                out.plain(j->dump());  // a number, true, false or null
            }
            j = nullptr;
            continue;
        }
        if (open.empty()) break;
        Open& top = open.back();
        if (top.next == top.container->cend()) {
            out.plain(top.container->is_object() ? "}" : "]");
            open.pop_back();
            continue;
        }
        if (top.next != top.container->cbegin()) out.plain(",");
        if (top.container->is_object()) {
            out.plain("\"");
            out.text(top.next.key(), true);
            out.plain("\":");
        }
        j = &*top.next;
        ++top.next;
    }
    return out.str();
}

// Text that did not come from the file but may hold bytes from it or from the file system (a
// path, a message of the expression parser): whole, with bytes that are not UTF-8 as \xff.
std::string validUtf8(std::string text) {
    if (detail::invalidUtf8Offset(text) == std::string::npos) return text;
    return excerpt(text, std::numeric_limits<std::size_t>::max());
}

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

std::string hexBytes(std::string_view bytes) {
    std::string out;
    for (char c : bytes) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "%s0x%02x", out.empty() ? "" : " ",
                      static_cast<unsigned char>(c));
        out += hex;
    }
    return out;
}

// One pass over the text before it is parsed, without recursion: the text must be UTF-8 and
// nest arrays and objects at most kMaxSceneNesting deep (brackets inside strings, escaped
// quotes included, do not count). The first problem found, if any.
std::optional<Diagnostic> scanText(std::string_view text) {
    int depth = 0;
    bool inString = false, escaped = false;
    for (std::size_t k = 0; k < text.size();) {
        const auto c = static_cast<unsigned char>(text[k]);
        if (c >= 0x80) {
            const Utf8Char u = utf8At(text, k);
            if (!u.valid) {
                const std::string bytes = hexBytes(text.substr(k, u.length));
                const std::string at = " at offset " + std::to_string(k);
                const std::string what = u.truncated ? "byte sequence " + bytes + at +
                                                           " is cut short by the end of the file"
                                         : u.length == 1 ? "invalid byte " + bytes + at
                                                         : "invalid byte sequence " + bytes + at;
                return Diagnostic{Severity::Error, lineColumn(text, k),
                                  "the file is not UTF-8 text: " + what};
            }
            k += u.length;
            escaped = false;
            continue;
        }
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxSceneNesting)
                return Diagnostic{Severity::Error, lineColumn(text, k),
                                  "nesting deeper than " + std::to_string(kMaxSceneNesting) +
                                      " levels (arrays and objects inside one another) at offset " +
                                      std::to_string(k) +
                                      ": a scene file nests them at most 7 deep"};
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
        ++k;
    }
    return std::nullopt;
}

// Builds the document as json::parse does, and keeps the first error with its byte offset
// (json::parse's exception for a number that overflows does not say where it is).
class DocumentBuilder {
public:
    explicit DocumentBuilder(json& root) : root_(root) {}

    bool null() { return put(nullptr); }
    bool boolean(bool value) { return put(value); }
    bool number_integer(json::number_integer_t value) { return put(value); }
    bool number_unsigned(json::number_unsigned_t value) { return put(value); }
    bool number_float(json::number_float_t value, const json::string_t&) { return put(value); }
    bool string(json::string_t& value) { return put(std::move(value)); }
    bool binary(json::binary_t& value) { return put(json::binary(std::move(value))); }
    bool start_object(std::size_t) { return open(json::object()); }
    bool start_array(std::size_t) { return open(json::array()); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(json::string_t& name) {
        member_ = &(*open_.back())[name];
        return true;
    }
    bool parse_error(std::size_t offset, const std::string& lastToken, const json::exception& e) {
        failed = true;
        errorOffset = offset;
        errorToken = lastToken;
        errorId = e.id;
        errorWhat = e.what();
        return false;
    }

    bool failed = false;
    std::size_t errorOffset = 0;  // bytes read when the error was found
    std::string errorToken;       // the token read last (nlohmann escapes control characters)
    int errorId = 0;              // nlohmann's exception id: 1xx syntax, 406 number overflow
    std::string errorWhat;

private:
    template <class Value>
    json* place(Value&& value) {
        if (open_.empty()) {
            root_ = json(std::forward<Value>(value));
            return &root_;
        }
        if (open_.back()->is_array()) {
            open_.back()->push_back(json(std::forward<Value>(value)));
            return &open_.back()->back();
        }
        *member_ = json(std::forward<Value>(value));
        return member_;
    }
    template <class Value>
    bool put(Value&& value) {
        place(std::forward<Value>(value));
        return true;
    }
    bool open(json container) {
        open_.push_back(place(std::move(container)));
        return true;
    }
    bool close() {
        open_.pop_back();
        return true;
    }

    json& root_;
    std::vector<json*> open_;  // the arrays and objects being filled, innermost last
    json* member_ = nullptr;   // the object member the next value goes to
};

// Reads JSON into a SceneSpec while collecting every problem with its JSON pointer.
class Reader {
public:
    Reader(Diagnostics& out, std::string baseDirectory)
        : out_(out), baseDirectory_(std::move(baseDirectory)) {}

    // A mesh file named in the scene, relative to the scene file's folder; each file is read
    // once per scene (most before the scene is read: prefetchMeshes), and one that cannot be
    // read is reported where it is first named.
    std::shared_ptr<const TriangleMesh> mesh(const std::string& file, const std::string& at) {
        // Read anew from a scene in memory: its shape's mesh as it is (held in memory or not),
        // when the shape still names the same file.
        if (auto it = known_.find(at); it != known_.end() && it->second.file == file)
            return it->second.mesh;
        const std::string key = meshKey(file);
        const LoadedMesh& read = meshes_.read(key);
        if (!read.mesh && unreadableReported_.insert(key).second)
            error(at, "cannot read mesh '" + excerpt(file) +
                          "': " + excerpt(read.error, 4 * kQuoteChars));
        return read.mesh;
    }

    // The mesh files the scene's shapes name, read before the scene is: each in a child process
    // of its own, as many at once as the engine has threads (a robot's scene names dozens).
    // Whatever is not as expected is left to the reading, which reports it.
    void prefetchMeshes(const json& root) {
        const auto parts = root.find("parts");
        if (!root.is_object() || parts == root.end() || !parts->is_array()) return;
        std::vector<std::string> files;
        for (std::size_t p = 0; p < parts->size(); ++p) {
            const json& part = (*parts)[p];
            const auto geometry = part.is_object() ? part.find("geometry") : part.end();
            if (!part.is_object() || geometry == part.end() || !geometry->is_array()) continue;
            for (std::size_t k = 0; k < geometry->size(); ++k) {
                const json& shape = (*geometry)[k];
                if (!shape.is_object()) continue;
                const auto type = shape.find("type"), file = shape.find("file");
                if (type == shape.end() || !type->is_string() || *type != "mesh" ||
                    file == shape.end() || !file->is_string())
                    continue;
                const std::string& name = file->get_ref<const std::string&>();
                const std::string at =
                    "/parts/" + std::to_string(p) + "/geometry/" + std::to_string(k) + "/file";
                if (auto it = known_.find(at); it != known_.end() && it->second.file == name)
                    continue;
                files.push_back(meshKey(name));
            }
        }
        meshes_.prefetch(files);
    }

    void error(const std::string& where, std::string message) {
        out_.push_back({Severity::Error, where, std::move(message)});
    }

    // Reports keys of `obj` that are not in `known`.
    // Keys of a newer minor version: kept in `extensions` (a JSON object's text) when the file
    // is from a newer minor version and the object can carry them, else errors.
    void checkKeys(const json& obj, const std::string& at,
                   const std::vector<std::string_view>& known, std::string* extensions = nullptr) {
        json kept = json::object();
        for (auto it = obj.begin(); it != obj.end(); ++it) {
            bool ok = false;
            for (std::string_view k : known) ok = ok || it.key() == k;
            if (ok) continue;
            const std::string key = excerpt(it.key());
            if (newerMinor_) {
                if (extensions) {
                    // Copying (and dump() below) recurse, as deep as the text: kMaxSceneNesting.
                    kept[it.key()] = it.value();
                    warning(at + "/" + key, "key '" + key + "' of a newer format (1." +
                                                std::to_string(fileMinor_) + ") kept as it is");
                } else {
                    warning(at + "/" + key, "key '" + key + "' of a newer format (1." +
                                                std::to_string(fileMinor_) + ") ignored here");
                }
            } else {
                std::string list;
                for (std::string_view k : known)
                    list += (list.empty() ? "" : ", ") + std::string(k);
                error(at + "/" + key, "unknown key '" + key + "' (expected one of: " + list + ")");
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
        checkKeys(*j, at, format::object("orientation").keys());
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
                error(at + "/quaternion",
                      "quaternion [w, x, y, z] must have unit length (its length is " +
                          numberText(n, 10) + ")");
                return;
            }
            // Kept as written when already unit to round-off, so saved files read back exactly.
            out = Quat(q(0), q(1), q(2), q(3));
            if (!detail::isUnitToRoundOff(q(0), q(1), q(2), q(3))) out.normalize();
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
            // An axis whose length overflows (1e300) is scaled first: normalising it directly
            // would give a zero axis and a quaternion that is no rotation.
            if (!std::isfinite(axis.squaredNorm())) axis /= axis.cwiseAbs().maxCoeff();
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
            error(at + "/color", "expected a colour as \"#rrggbb\", got \"" + excerpt(text) + "\"");
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
        checkKeys(j, at, format::object("shape").keys(), &s.extensions);
        std::string type;
        if (const json* jt = required(j, at, "type"); jt && string(*jt, at + "/type", type)) {
            if (auto t = shapeTypeFromName(type)) {
                s.type = *t;
            } else {
                error(at + "/type",
                      "unknown shape type '" + excerpt(type) +
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
            if (const json* v = need("file"); v && string(*v, at + "/file", s.meshFile))
                s.mesh = mesh(s.meshFile, at + "/file");
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
        if (const json* r = optional(j, "role")) {
            std::string role;
            if (string(*r, at + "/role", role)) {
                if (auto value = shapeRoleFromName(role))
                    s.role = *value;
                else
                    error(at + "/role", "unknown shape role '" + excerpt(role) +
                                            "' (expected both, visual or collision)");
            }
        }
        pose(j, at, s.X_PG);
    }

    void marker(const json& j, const std::string& at, Marker& m) {
        if (!isObject(j, at)) return;
        checkKeys(j, at, format::object("marker").keys(), &m.extensions);
        name(j, at, m.name);
        pose(j, at, m.X_PM);
    }

    void part(const json& j, const std::string& at, SceneSpec& spec, Part& p) {
        if (!isObject(j, at)) return;
        checkKeys(j, at, format::object("part").keys(), &p.extensions);
        p.id = spec.newId();
        name(j, at, p.name);
        if (const json* g = optional(j, "ground")) boolean(*g, at + "/ground", p.ground);
        if (const json* a = optional(j, "active")) boolean(*a, at + "/active", p.active);
        if (const json* d = optional(j, "density")) {
            double density = 0.0;
            if (number(*d, at + "/density", density)) p.density = density;
            for (const char* key : {"mass", "inertia", "centerOfMass"})
                if (j.contains(key))
                    error(at + "/" + key,
                          std::string("give either 'density' (mass from geometry) or '") + key +
                              "', not both");
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
            checkKeys(*m, at + "/material", format::object("material").keys());
            if (const json* v = optional(*m, "friction"))
                number(*v, at + "/material/friction", p.material.friction);
            if (const json* v = optional(*m, "restitution"))
                number(*v, at + "/material/restitution", p.material.restitution);
        }
        if (const json* c = optional(j, "collision"); c && isObject(*c, at + "/collision")) {
            checkKeys(*c, at + "/collision", format::object("collision").keys());
            if (const json* v = optional(*c, "enabled"))
                boolean(*v, at + "/collision/enabled", p.collision.enabled);
            if (const json* v = optional(*c, "group"))
                bits(*v, at + "/collision/group", p.collision.group);
            if (const json* v = optional(*c, "mask"))
                bits(*v, at + "/collision/mask", p.collision.mask);
        }
        if (const json* m = optional(j, "frameMotion"); m && isObject(*m, at + "/frameMotion")) {
            const std::string where = at + "/frameMotion";
            checkKeys(*m, where, format::object("frameMotion").keys());
            FrameMotion motion;
            for (auto [key, target] : {std::pair{"translation", &motion.translation},
                                       std::pair{"rotation", &motion.rotation}}) {
                const json* v = optional(*m, key);
                if (!v) continue;
                if (!v->is_array() || v->size() != 3) {
                    error(where + "/" + key,
                          "expected [x, y, z]: three numbers or expressions of time");
                    continue;
                }
                for (std::size_t k = 0; k < 3; ++k)
                    expression((*v)[k], where + "/" + key + "/" + std::to_string(k), (*target)[k]);
            }
            p.frameMotion = motion;
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
                  "expected a marker reference \"part.marker\", got \"" + excerpt(text) + "\"");
            return;
        }
        ref.part = text.substr(0, dot);
        ref.marker = text.substr(dot + 1);
    }

    // Per joint coordinate: an object for a joint of one coordinate, a list in coordinate order
    // (null or {} for a coordinate without it) for a joint of several. `what` names it in
    // messages ("limits", "friction"); `item` reads one object into one entry of `out`.
    template <typename T, typename Item>
    void perCoordinate(const json& j, const std::string& at, const Joint& jt, const char* what,
                       std::vector<T>& out, Item item) {
        const std::vector<JointAxis> axes = jointAxes(jt.type);
        const std::string type(jointTypeName(jt.type));
        if (axes.empty()) {
            error(at, "a " + type + " joint has no coordinate for " + what + ": " + what +
                          " go on revolute, prismatic and cylindrical joints");
            return;
        }
        if (axes.size() == 1) {
            if (j.is_array()) {
                error(at, "a " + type + " joint has one coordinate: its " + what +
                              (what == std::string_view("limits") ? " are" : " is") +
                              " an object, not a list");
                return;
            }
            if (!isObject(j, at)) return;
            out.resize(1);
            item(j, at, out[0]);
            return;
        }
        if (!j.is_array()) {
            std::string names;
            for (JointAxis a : axes)
                names += (names.empty() ? "" : ", ") + std::string(jointAxisName(a));
            error(at, "a " + type + " joint has " + std::to_string(axes.size()) + " coordinates (" +
                          names + "): its " + what +
                          " is a list of one object (or null) per coordinate, got " + typeName(j));
            return;
        }
        if (j.size() > axes.size()) {
            error(at, "a " + type + " joint has " + std::to_string(axes.size()) +
                          " coordinates, got a list of " + std::to_string(j.size()));
            return;
        }
        out.resize(j.size());
        for (std::size_t c = 0; c < j.size(); ++c) {
            const std::string here = at + "/" + std::to_string(c);
            if (j[c].is_null()) continue;
            if (isObject(j[c], here)) item(j[c], here, out[c]);
        }
    }

    void limit(const json& j, const std::string& at, JointLimit& l) {
        checkKeys(j, at, format::object("limit").keys());
        for (auto [key, target] :
             {std::pair{"lower", &l.lower}, std::pair{"upper", &l.upper},
              std::pair{"restitution", &l.restitution}, std::pair{"frequency", &l.frequency},
              std::pair{"dampingRatio", &l.dampingRatio}})
            if (const json* v = optional(j, key)) number(*v, at + "/" + key, *target);
    }

    void friction(const json& j, const std::string& at, JointFriction& f) {
        checkKeys(j, at, format::object("friction").keys());
        for (auto [key, target] :
             {std::pair{"coefficient", &f.coefficient},
              std::pair{"staticCoefficient", &f.staticCoefficient}, std::pair{"radius", &f.radius},
              std::pair{"length", &f.length}, std::pair{"preload", &f.preload},
              std::pair{"viscous", &f.viscous}})
            if (const json* v = optional(j, key)) number(*v, at + "/" + key, *target);
        // (left out, it is the dynamic one: a negative value in the spec says so)
        if (const json* v = optional(j, "staticCoefficient");
            v && v->is_number() && !(f.staticCoefficient >= 0.0)) {
            error(at + "/staticCoefficient",
                  "staticCoefficient must be zero or positive, got " + valueExcerpt(*v));
            f.staticCoefficient = 0.0;
        }
    }

    // A curve of a joint on curves: a spline through points or x, y, z expressions of s.
    void curve(const json& j, const std::string& at, CurveSpec& c) {
        if (!isObject(j, at)) return;
        std::string type;
        const json* t = required(j, at, "type");
        if (!t || !string(*t, at + "/type", type)) return;
        const auto parsed = curveTypeFromName(type);
        if (!parsed) {
            error(at + "/type",
                  "unknown curve type '" + excerpt(type) + "' (expected spline or expression)");
            return;
        }
        c.type = *parsed;
        checkKeys(j, at, format::object("curve").keys(type));
        if (const json* v = optional(j, "closed")) boolean(*v, at + "/closed", c.closed);
        if (c.type == CurveType::Spline) {
            if (const json* p = required(j, at, "points"); p && isArray(*p, at + "/points"))
                for (std::size_t k = 0; k < p->size(); ++k) {
                    Vec3 v;
                    if (numbers<3>((*p)[k], at + "/points/" + std::to_string(k), v))
                        c.points.push_back(v);
                }
            return;
        }
        for (auto [key, target] :
             {std::pair{"x", &c.x}, std::pair{"y", &c.y}, std::pair{"z", &c.z}})
            if (const json* v = required(j, at, key)) expression(*v, at + "/" + key, *target);
        for (auto [key, target] : {std::pair{"start", &c.start}, std::pair{"end", &c.end}})
            if (const json* v = required(j, at, key)) number(*v, at + "/" + key, *target);
    }

    // A surface of a point-on-surface joint: expressions of u and v, or a grid of heights.
    void surface(const json& j, const std::string& at, SurfaceSpec& c) {
        if (!isObject(j, at)) return;
        std::string type;
        const json* t = required(j, at, "type");
        if (!t || !string(*t, at + "/type", type)) return;
        const auto parsed = surfaceTypeFromName(type);
        if (!parsed) {
            error(at + "/type",
                  "unknown surface type '" + excerpt(type) + "' (expected expression or grid)");
            return;
        }
        c.type = *parsed;
        checkKeys(j, at, format::object("surface").keys(type));
        auto list = [&](const json& a, const std::string& where, std::vector<double>& out) {
            if (!isArray(a, where)) return;
            for (std::size_t k = 0; k < a.size(); ++k) {
                double v = 0.0;
                if (number(a[k], where + "/" + std::to_string(k), v)) out.push_back(v);
            }
        };
        if (c.type == SurfaceType::Grid) {
            if (const json* v = required(j, at, "xs")) list(*v, at + "/xs", c.xs);
            if (const json* v = required(j, at, "ys")) list(*v, at + "/ys", c.ys);
            if (const json* h = required(j, at, "heights"); h && isArray(*h, at + "/heights"))
                for (std::size_t r = 0; r < h->size(); ++r) {
                    c.heights.emplace_back();
                    list((*h)[r], at + "/heights/" + std::to_string(r), c.heights.back());
                }
            return;
        }
        for (auto [key, target] :
             {std::pair{"x", &c.x}, std::pair{"y", &c.y}, std::pair{"z", &c.z}})
            if (const json* v = required(j, at, key)) expression(*v, at + "/" + key, *target);
        for (auto [key, target] : {std::pair{"uStart", &c.uStart}, std::pair{"uEnd", &c.uEnd},
                                   std::pair{"vStart", &c.vStart}, std::pair{"vEnd", &c.vEnd}})
            if (const json* v = required(j, at, key)) number(*v, at + "/" + key, *target);
    }

    void joint(const json& j, const std::string& at, Joint& jt) {
        if (!isObject(j, at)) return;
        checkKeys(j, at, format::object("joint").keys(), &jt.extensions);
        if (const json* c = optional(j, "collide")) boolean(*c, at + "/collide", jt.collide);
        if (const json* a = optional(j, "active")) boolean(*a, at + "/active", jt.active);
        if (const json* soft = optional(j, "soft"); soft && isObject(*soft, at + "/soft")) {
            // (keys of a newer minor version here are said and left out)
            checkKeys(*soft, at + "/soft", format::object("soft").keys());
            JointCompliance& c = jt.compliance;
            for (auto [key, target] :
                 {std::pair{"frequency", &c.frequency}, std::pair{"dampingRatio", &c.dampingRatio},
                  std::pair{"stiffness", &c.stiffness}, std::pair{"damping", &c.damping},
                  std::pair{"rotationalStiffness", &c.rotationalStiffness},
                  std::pair{"rotationalDamping", &c.rotationalDamping}})
                if (const json* v = optional(*soft, key)) number(*v, at + "/soft/" + key, *target);
        }
        name(j, at, jt.name);
        std::string type;
        if (const json* t = required(j, at, "type"); t && string(*t, at + "/type", type)) {
            if (auto parsed = jointTypeFromName(type)) {
                jt.type = *parsed;
            } else {
                std::string list;
                for (int k = 0; k <= static_cast<int>(JointType::PointOnSurface); ++k)
                    list += (k ? ", " : "") + std::string(jointTypeName(static_cast<JointType>(k)));
                error(at + "/type",
                      "unknown joint type '" + excerpt(type) + "' (expected one of: " + list + ")");
            }
        }
        markerRef(j, at, "markerI", jt.markerI);
        markerRef(j, at, "markerJ", jt.markerJ);
        if (const json* l = optional(j, "limits"))
            perCoordinate(
                *l, at + "/limits", jt, "limits", jt.limits,
                [this](const json& o, const std::string& p, JointLimit& x) { limit(o, p, x); });
        if (const json* f = optional(j, "friction"))
            perCoordinate(*f, at + "/friction", jt, "friction", jt.friction,
                          [this](const json& o, const std::string& p, JointFriction& x) {
                              friction(o, p, x);
                          });
        if (const json* c = optional(j, "curve")) curve(*c, at + "/curve", jt.curve);
        if (const json* c = optional(j, "follower")) curve(*c, at + "/follower", jt.follower);
        if (const json* c = optional(j, "surface")) surface(*c, at + "/surface", jt.surface);
        if (const json* v = optional(j, "liftOff")) boolean(*v, at + "/liftOff", jt.liftOff);
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
                error("/minorVersion", "expected a non-negative integer, got " + valueExcerpt(*m));
            else
                spec.formatMinor = static_cast<int>(m->get<long long>());
        }
        fileMinor_ = spec.formatMinor;
        newerMinor_ = spec.formatMinor > kSceneFormatMinor;
        checkKeys(root, "", format::object("scene").keys(), &spec.extensions);

        // Header: identifies the file before anything else is trusted.
        std::string format;
        if (const json* f = required(root, "", "format");
            f && string(*f, "/format", format) && format != "motus-scene") {
            error("/format", "expected \"motus-scene\", got \"" + excerpt(format) + "\"");
            return;
        }
        if (const json* v = required(root, "", "version")) {
            if (!v->is_number_integer()) {
                error("/version", "expected an integer, got " + typeName(*v));
            } else if (v->get<long long>() < 1 || v->get<long long>() > kSceneFormatVersion) {
                error("/version", "unsupported scene format version " + valueExcerpt(*v) +
                                      " (this Motus reads versions 1 to " +
                                      std::to_string(kSceneFormatVersion) + ")");
                return;
            }
        }

        if (const json* u = optional(root, "units")) {
            std::string units;
            if (string(*u, "/units", units) && units != "SI")
                error("/units",
                      "Motus scenes are in SI units (m, kg, s, N, rad): expected \"SI\", got \"" +
                          excerpt(units) + "\"");
        }
        if (const json* plots = optional(root, "plots"); plots && isArray(*plots, "/plots")) {
            for (std::size_t k = 0; k < plots->size(); ++k) {
                const json& pj = (*plots)[k];
                const std::string at = "/plots/" + std::to_string(k);
                if (!isObject(pj, at)) continue;
                PlotSpec plot;
                checkKeys(pj, at, format::object("plot").keys(), &plot.extensions);
                if (const json* n = optional(pj, "name")) string(*n, at + "/name", plot.name);
                if (const json* c = required(pj, at, "channels");
                    c && isArray(*c, at + "/channels")) {
                    if (c->empty()) error(at + "/channels", "a plot needs at least one channel");
                    for (std::size_t i = 0; i < c->size(); ++i) {
                        std::string channel;
                        if (string((*c)[i], at + "/channels/" + std::to_string(i), channel))
                            plot.channels.push_back(channel);
                    }
                }
                if (const json* x = optional(pj, "x")) string(*x, at + "/x", plot.x);
                spec.plots.push_back(std::move(plot));
            }
        }
        if (const json* n = optional(root, "name")) string(*n, "/name", spec.name);
        if (const json* d = optional(root, "description"))
            string(*d, "/description", spec.description);
        vec3(root, "", "gravity", spec.gravity);

        // The lists of entities, each item read by `read` into a new entity with a new id.
        auto list = [&](const char* key, auto& into, auto read) {
            const std::string at = std::string("/") + key;
            const json* items = optional(root, key);
            if (!items || !isArray(*items, at)) return;
            for (std::size_t k = 0; k < items->size(); ++k) {
                auto& item = into.emplace_back();
                read((*items)[k], at + "/" + std::to_string(k), item);
            }
        };
        list("parts", spec.parts,
             [&](const json& j, const std::string& at, Part& p) { part(j, at, spec, p); });
        list("joints", spec.joints, [&](const json& j, const std::string& at, Joint& jt) {
            jt.id = spec.newId();
            joint(j, at, jt);
        });
        list("forces", spec.forces, [&](const json& j, const std::string& at, ForceSpec& f) {
            f.id = spec.newId();
            force(j, at, f);
        });
        list("motions", spec.motions, [&](const json& j, const std::string& at, MotionSpec& m) {
            m.id = spec.newId();
            motion(j, at, m);
        });
        list("couplers", spec.couplers, [&](const json& j, const std::string& at, CouplerSpec& c) {
            c.id = spec.newId();
            coupler(j, at, c);
        });
        list("variables", spec.variables,
             [&](const json& j, const std::string& at, VariableSpec& v) { variable(j, at, v); });
        list("tables", spec.tables,
             [&](const json& j, const std::string& at, TableSpec& t) { table(j, at, t); });
        list("sensors", spec.sensors,
             [&](const json& j, const std::string& at, SensorSpec& s) { sensor(j, at, s); });
        list("designVariables", spec.designVariables,
             [&](const json& j, const std::string& at, DesignVariableSpec& v) {
                 designVariable(j, at, v);
             });
        if (const json* ct = optional(root, "contact")) contact(*ct, "/contact", spec);
        if (const json* an = optional(root, "analyses")) analyses(*an, spec);
        const json* st = optional(root, "settings");
        // A scene with contact or joint limits steps at the velocity level unless it says
        // otherwise.
        const bool limited = std::any_of(spec.joints.begin(), spec.joints.end(),
                                         [](const Joint& jt) { return jt.steppedWithContact(); });
        if ((spec.contact.enabled || limited) &&
            !(st && st->is_object() && st->contains("integrator")))
            spec.settings.integrator = IntegratorType::TimeStepping;
        if (st) settings(*st, "/settings", spec.settings);
        // Before minor version 2, a dopri45 scene's step size was also its largest step: such
        // a file keeps that meaning (and says so when saved again).
        if (fileMinor_ < 2 && spec.settings.integrator == IntegratorType::DormandPrince45 &&
            spec.settings.maxStep == 0.0)
            spec.settings.maxStep = spec.settings.stepSize;
    }

    // A 32-bit collision group or mask: an integer, or a list of bit numbers 0..31.
    void bits(const json& j, const std::string& at, std::uint32_t& out) {
        if (j.is_number_integer() && j.get<long long>() >= 0 &&
            j.get<long long>() <= 0xffffffffLL) {
            out = static_cast<std::uint32_t>(j.get<long long>());
        } else if (j.is_array()) {
            out = 0;
            for (std::size_t k = 0; k < j.size(); ++k) {
                const json& b = j[k];
                if (!b.is_number_integer() || b.get<long long>() < 0 || b.get<long long>() > 31)
                    error(at + "/" + std::to_string(k),
                          "expected a bit number from 0 to 31, got " + valueExcerpt(b));
                else
                    out |= std::uint32_t(1) << b.get<long long>();
            }
        } else {
            error(at, "expected a 32-bit integer or a list of bit numbers (0 to 31), got " +
                          valueExcerpt(j));
        }
    }

    void contact(const json& j, const std::string& at, SceneSpec& spec) {
        if (!isObject(j, at)) return;
        checkKeys(j, at, format::object("contact").keys(), &spec.contact.extensions);
        ContactSettings& ct = spec.contact;
        ct.enabled = true;  // a contact block switches contact on unless it says "enabled": false
        if (const json* v = optional(j, "enabled")) boolean(*v, at + "/enabled", ct.enabled);
        if (const json* v = optional(j, "solver"))
            word<ContactSolverType>(*v, at + "/solver",
                                    {{"pgs", ContactSolverType::ProjectedGaussSeidel},
                                     {"lemke", ContactSolverType::Lemke}},
                                    ct.solver);
        if (const json* v = optional(j, "friction"))
            word<FrictionModel>(*v, at + "/friction",
                                {{"box", FrictionModel::Box}, {"cone", FrictionModel::Cone}},
                                ct.friction);
        for (auto [key, target] :
             {std::pair{"coneFacets", &ct.coneFacets}, std::pair{"iterations", &ct.iterations}}) {
            if (const json* v = optional(j, key)) {
                if (!v->is_number_integer())
                    error(at + "/" + key, "expected an integer, got " + typeName(*v));
                else
                    *target =
                        static_cast<int>(std::clamp<long long>(v->get<long long>(), -1, 100000));
            }
        }
        for (auto [key, target] :
             {std::pair{"tolerance", &ct.tolerance}, std::pair{"margin", &ct.margin},
              std::pair{"restitutionThreshold", &ct.restitutionThreshold},
              std::pair{"stabilization", &ct.stabilization}, std::pair{"slop", &ct.slop},
              std::pair{"pushSpeed", &ct.pushSpeed}, std::pair{"stiffness", &ct.stiffness},
              std::pair{"damping", &ct.damping}, std::pair{"frequency", &ct.frequency},
              std::pair{"dampingRatio", &ct.dampingRatio}, std::pair{"sleepTime", &ct.sleepTime},
              std::pair{"sleepSpeed", &ct.sleepSpeed}})
            if (const json* v = optional(j, key)) number(*v, at + "/" + key, *target);
        if (const json* pairs = optional(j, "pairs"); pairs && isArray(*pairs, at + "/pairs")) {
            for (std::size_t k = 0; k < pairs->size(); ++k) {
                const json& pj = (*pairs)[k];
                const std::string pat = at + "/pairs/" + std::to_string(k);
                if (!isObject(pj, pat)) continue;
                ContactPairSpec pair;
                checkKeys(pj, pat, format::object("contactPair").keys(), &pair.extensions);
                pair.id = spec.newId();
                name(pj, pat, pair.name);
                if (const json* v = required(pj, pat, "partA"))
                    string(*v, pat + "/partA", pair.partA);
                if (const json* v = required(pj, pat, "partB"))
                    string(*v, pat + "/partB", pair.partB);
                if (const json* v = optional(pj, "enabled"))
                    boolean(*v, pat + "/enabled", pair.enabled);
                double value = 0.0;
                if (const json* v = optional(pj, "friction");
                    v && number(*v, pat + "/friction", value))
                    pair.friction = value;
                if (const json* v = optional(pj, "restitution");
                    v && number(*v, pat + "/restitution", value))
                    pair.restitution = value;
                ct.pairs.push_back(std::move(pair));
            }
        }
    }

    // An expression of time: a number or a string.
    void expression(const json& j, const std::string& at, std::string& out) {
        if (j.is_number()) {
            double value = 0.0;
            if (number(j, at, value)) out = numberText(value, 17);
        } else if (j.is_string()) {
            out = j.get<std::string>();
        } else {
            error(at, "expected a number or an expression of time (a string), got " + typeName(j));
        }
    }

    // One of a fixed set of words.
    template <class Enum>
    bool word(const json& j, const std::string& at,
              std::initializer_list<std::pair<const char*, Enum>> choices, Enum& out) {
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
        error(at, "unknown value '" + excerpt(text) + "' (expected one of: " + list + ")");
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
            error(at + "/type", "unknown force type '" + excerpt(type) +
                                    "' (expected pointForce, pointTorque, springDamper, "
                                    "rotationalSpringDamper, bushing, jointController, "
                                    "computedTorque, lineForce, jointForce or cable)");
            return;
        }
        f.type = *parsed;
        checkKeys(j, at, format::object("force").keys(type), &f.extensions);  // the type's keys
        if (const json* a = optional(j, "active")) boolean(*a, at + "/active", f.active);
        if (const json* a = optional(j, "startsOn")) boolean(*a, at + "/startsOn", f.startsOn);
        auto scalar = [&](const char* key, double& out) {
            if (const json* v = optional(j, key)) number(*v, at + "/" + key, out);
        };
        switch (f.type) {
        case ForceType::PointForce:
        case ForceType::PointTorque: {
            markerRef(j, at, "marker", f.markerI);
            if (const json* c = required(j, at, "components")) {
                if (!c->is_array() || c->size() != 3) {
                    error(at + "/components",
                          "expected [x, y, z]: three numbers or expressions of time");
                } else {
                    for (std::size_t k = 0; k < 3; ++k)
                        expression((*c)[k], at + "/components/" + std::to_string(k),
                                   f.components[k]);
                }
            }
            if (const json* frame = optional(j, "frame"))
                word<bool>(*frame, at + "/frame", {{"world", false}, {"marker", true}},
                           f.inMarkerFrame);
            break;
        }
        case ForceType::SpringDamper:
            markerRef(j, at, "markerI", f.markerI);
            markerRef(j, at, "markerJ", f.markerJ);
            law(j, at + "/stiffness", "stiffness", f.stiffness, f.stiffnessTable);
            law(j, at + "/damping", "damping", f.damping, f.dampingTable);
            scalar("freeLength", f.freeLength);
            scalar("preload", f.preload);
            break;
        case ForceType::Cable:
            if (const json* pts = required(j, at, "points"); pts && isArray(*pts, at + "/points")) {
                if (pts->size() < 2) {
                    error(at + "/points",
                          "a cable needs at least 2 points (its two ends), it has " +
                              std::to_string(pts->size()));
                } else {
                    // Each a "part.marker", or a pulley {marker, radius, wrap, joint}.
                    std::vector<CableVia> points(pts->size());
                    for (std::size_t k = 0; k < pts->size(); ++k) {
                        const std::string where = at + "/points/" + std::to_string(k);
                        CableVia& v = points[k];
                        if (!(*pts)[k].is_object()) {
                            const json one = {{std::to_string(k), (*pts)[k]}};
                            markerRef(one, at + "/points", std::to_string(k).c_str(), v.marker);
                            continue;
                        }
                        const json& p = (*pts)[k];
                        checkKeys(p, where, format::object("pulley").keys());
                        markerRef(p, where, "marker", v.marker);
                        if (const json* r = optional(p, "radius")) {
                            v.pulley = true;
                            number(*r, where + "/radius", v.radius);
                        }
                        if (const json* w = optional(p, "wrap")) {
                            std::string sense;
                            string(*w, where + "/wrap", sense);
                            if (sense == "cw" || sense == "ccw")
                                v.clockwise = sense == "cw";
                            else if (w->is_string())
                                error(where + "/wrap",
                                      "a pulley's wrap is \"ccw\" or \"cw\" (about its marker's "
                                      "z axis), not '" +
                                          sense + "'");
                        }
                        if (const json* jn = optional(p, "joint"))
                            string(*jn, where + "/joint", v.joint);
                        if (const json* mu = optional(p, "friction"))
                            number(*mu, where + "/friction", v.friction);
                        if (!v.pulley && (optional(p, "wrap") || optional(p, "joint") ||
                                          optional(p, "friction")))
                            error(where,
                                  "'wrap', 'joint' and 'friction' belong to a pulley: give its "
                                  "radius");
                    }
                    f.markerI = points.front().marker;
                    f.markerJ = points.back().marker;
                    for (std::size_t k : {std::size_t{0}, points.size() - 1})
                        if (points[k].pulley)
                            error(at + "/points/" + std::to_string(k),
                                  "a cable's ends are points where it is tied, not pulleys: "
                                  "tie it to a marker (on a drum's part to wind it)");
                    f.via.assign(points.begin() + 1, points.end() - 1);
                }
            }
            if (const json* sl = optional(j, "slack")) boolean(*sl, at + "/slack", f.slack);
            if (const json* ie = optional(j, "inextensible"))
                boolean(*ie, at + "/inextensible", f.inextensible);
            law(j, at + "/stiffness", "stiffness", f.stiffness, f.stiffnessTable);
            law(j, at + "/damping", "damping", f.damping, f.dampingTable);
            scalar("freeLength", f.freeLength);
            scalar("preload", f.preload);
            break;
        case ForceType::RotationalSpringDamper:
            if (const json* jj = required(j, at, "joint")) string(*jj, at + "/joint", f.joint);
            law(j, at + "/stiffness", "stiffness", f.stiffness, f.stiffnessTable);
            law(j, at + "/damping", "damping", f.damping, f.dampingTable);
            scalar("freeAngle", f.freeLength);
            scalar("preload", f.preload);
            break;
        case ForceType::JointController:
        case ForceType::ComputedTorque:
            if (const json* jj = required(j, at, "joint")) string(*jj, at + "/joint", f.joint);
            if (const json* a = optional(j, "axis"))
                word<JointAxis>(
                    *a, at + "/axis",
                    {{"rotation", JointAxis::Rotation}, {"translation", JointAxis::Translation}},
                    f.axis);
            if (const json* e = required(j, at, "target"))
                expression(*e, at + "/target", f.components[0]);
            scalar("kp", f.stiffness);
            scalar("kd", f.damping);
            scalar("maxEffort", f.maxEffort);
            if (f.type == ForceType::JointController)
                if (const json* g = optional(j, "gravityCompensation"))
                    boolean(*g, at + "/gravityCompensation", f.gravityCompensation);
            break;
        case ForceType::LineForce:
            markerRef(j, at, "markerI", f.markerI);
            markerRef(j, at, "markerJ", f.markerJ);
            if (const json* e = required(j, at, "magnitude"))
                expression(*e, at + "/magnitude", f.components[0]);
            break;
        case ForceType::JointForce:
            if (const json* jj = required(j, at, "joint")) string(*jj, at + "/joint", f.joint);
            if (const json* a = optional(j, "axis"))
                word<JointAxis>(
                    *a, at + "/axis",
                    {{"rotation", JointAxis::Rotation}, {"translation", JointAxis::Translation}},
                    f.axis);
            if (const json* e = required(j, at, "magnitude"))
                expression(*e, at + "/magnitude", f.components[0]);
            break;
        case ForceType::Bushing:
            markerRef(j, at, "markerI", f.markerI);
            markerRef(j, at, "markerJ", f.markerJ);
            laws(j, at, "translationalStiffness", f.translationalStiffness,
                 f.translationalStiffnessTables);
            laws(j, at, "translationalDamping", f.translationalDamping,
                 f.translationalDampingTables);
            laws(j, at, "rotationalStiffness", f.rotationalStiffness, f.rotationalStiffnessTables);
            laws(j, at, "rotationalDamping", f.rotationalDamping, f.rotationalDampingTables);
            break;
        }
    }

    // A force law: a number (the constant of a linear law) or {"table": name}, the law a table
    // of the scene gives.
    void law(const json& obj, const std::string& at, const char* key, double& constant,
             std::string& table) {
        const json* j = optional(obj, key);
        if (!j) return;
        if (j->is_object()) {
            checkKeys(*j, at, {"table"});
            if (const json* t = required(*j, at, "table")) string(*t, at + "/table", table);
            return;
        }
        if (!j->is_number()) {
            error(at, "expected a number or {\"table\": name}, got " + typeName(*j));
            return;
        }
        number(*j, at, constant);
    }
    // Three laws, one per axis: [x, y, z], each a number or {"table": name}.
    void laws(const json& obj, const std::string& at, const char* key, Vec3& constants,
              std::array<std::string, 3>& tables) {
        const json* j = optional(obj, key);
        if (!j) return;
        const std::string where = at + "/" + key;
        if (!j->is_array() || j->size() != 3) {
            error(where, "expected [x, y, z]: per axis a number or {\"table\": name}");
            return;
        }
        for (std::size_t a = 0; a < 3; ++a) {
            const json one = {{"law", (*j)[a]}};
            law(one, where + "/" + std::to_string(a), "law", constants(static_cast<int>(a)),
                tables[a]);
        }
    }

    void table(const json& j, const std::string& at, TableSpec& t) {
        if (!isObject(j, at)) return;
        checkKeys(j, at, format::object("table").keys(), &t.extensions);
        name(j, at, t.name);
        if (const json* i = optional(j, "interpolation"))
            word<TableInterpolation>(*i, at + "/interpolation",
                                     {{"linear", TableInterpolation::Linear},
                                      {"cubic", TableInterpolation::Cubic},
                                      {"akima", TableInterpolation::Akima}},
                                     t.interpolation);
        auto list = [&](const char* key, std::vector<double>& out) {
            const std::string where = at + "/" + key;
            const json* a = required(j, at, key);
            if (!a || !isArray(*a, where)) return;
            for (std::size_t k = 0; k < a->size(); ++k) {
                double v = 0.0;
                if (number((*a)[k], where + "/" + std::to_string(k), v)) out.push_back(v);
            }
        };
        list("x", t.x);
        list("y", t.y);
    }

    void variable(const json& j, const std::string& at, VariableSpec& v) {
        if (!isObject(j, at)) return;
        checkKeys(j, at, format::object("variable").keys(), &v.extensions);
        if (const json* n = required(j, at, "name")) string(*n, at + "/name", v.name);
        // An expression, or a held value that sensors set (not both).
        const json* initial = optional(j, "initial");
        if (initial) {
            double value = 0.0;
            number(*initial, at + "/initial", value);
            v.initial = value;
            if (optional(j, "expression"))
                error(at + "/expression",
                      "a variable is an expression or a held value ('initial'), not both");
        } else if (const json* e = required(j, at, "expression")) {
            expression(*e, at + "/expression", v.expression);
        }
    }

    void designVariable(const json& j, const std::string& at, DesignVariableSpec& v) {
        if (!isObject(j, at)) return;
        checkKeys(j, at, format::object("designVariable").keys(), &v.extensions);
        name(j, at, v.name);
        if (const json* n = required(j, at, "value")) number(*n, at + "/value", v.value);
        if (const json* n = optional(j, "minimum")) number(*n, at + "/minimum", v.minimum);
        if (const json* n = optional(j, "maximum")) number(*n, at + "/maximum", v.maximum);
    }

    void sensor(const json& j, const std::string& at, SensorSpec& s) {
        if (!isObject(j, at)) return;
        checkKeys(j, at, format::object("sensor").keys(), &s.extensions);
        name(j, at, s.name);
        if (const json* e = required(j, at, "expression"))
            expression(*e, at + "/expression", s.expression);
        if (const json* v = required(j, at, "value")) number(*v, at + "/value", s.value);
        if (const json* d = optional(j, "direction"))
            word<SensorDirection>(*d, at + "/direction",
                                  {{"either", SensorDirection::Either},
                                   {"rising", SensorDirection::Rising},
                                   {"falling", SensorDirection::Falling}},
                                  s.direction);
        if (const json* a = optional(j, "action"))
            word<SensorAction>(*a, at + "/action",
                               {{"stop", SensorAction::Stop},
                                {"mark", SensorAction::Mark},
                                {"set", SensorAction::Set},
                                {"switchOn", SensorAction::SwitchOn},
                                {"switchOff", SensorAction::SwitchOff}},
                               s.action);
        const bool acts = s.action == SensorAction::Set || s.action == SensorAction::SwitchOn ||
                          s.action == SensorAction::SwitchOff;
        if (acts) {
            if (const json* t = required(j, at, "target")) string(*t, at + "/target", s.target);
        } else if (optional(j, "target")) {
            error(at + "/target",
                  "only a sensor that sets a variable or switches an element "
                  "has a target");
        }
        if (s.action == SensorAction::Set) {
            if (const json* e = required(j, at, "to")) expression(*e, at + "/to", s.to);
        } else if (optional(j, "to")) {
            error(at + "/to", "only a sensor that sets a variable ('action': 'set') has 'to'");
        }
    }

    // "analyses": {"modes": {"inactive": {"motions": ["drive"]}}}: per analysis, what it
    // leaves out of the model.
    void analyses(const json& j, SceneSpec& spec) {
        if (!isObject(j, "/analyses")) return;
        for (auto it = j.begin(); it != j.end(); ++it) {
            const std::string at = "/analyses/" + excerpt(it.key());
            const std::optional<Analysis> analysis = analysisFromName(it.key());
            if (!analysis) {
                const std::string message = "unknown analysis '" + excerpt(it.key()) +
                                            "' (expected simulate, kinematics, statics or modes)";
                if (newerMinor_)
                    warning(at, message + ": of a newer format, ignored here");
                else
                    error(at, message);
                continue;
            }
            if (!isObject(it.value(), at)) continue;
            AnalysisSpec& a = spec.analyses[static_cast<std::size_t>(*analysis)];
            checkKeys(it.value(), at, format::object("analysis").keys(), &a.extensions);
            const json* inactive = optional(it.value(), "inactive");
            if (!inactive || !isObject(*inactive, at + "/inactive")) continue;
            checkKeys(*inactive, at + "/inactive", format::object("inactive").keys());
            for (auto [key, list] :
                 {std::pair{"parts", &a.inactive.parts}, std::pair{"joints", &a.inactive.joints},
                  std::pair{"forces", &a.inactive.forces},
                  std::pair{"motions", &a.inactive.motions},
                  std::pair{"couplers", &a.inactive.couplers},
                  std::pair{"contactPairs", &a.inactive.contactPairs}}) {
                const json* names = optional(*inactive, key);
                const std::string where = at + "/inactive/" + key;
                if (!names || !isArray(*names, where)) continue;
                for (std::size_t k = 0; k < names->size(); ++k) {
                    std::string name;
                    if (string((*names)[k], where + "/" + std::to_string(k), name))
                        list->push_back(std::move(name));
                }
            }
        }
    }

    void motion(const json& j, const std::string& at, MotionSpec& m) {
        if (!isObject(j, at)) return;
        checkKeys(j, at, format::object("motion").keys(), &m.extensions);
        name(j, at, m.name);
        if (const json* a = optional(j, "active")) boolean(*a, at + "/active", m.active);
        if (const json* a = optional(j, "startsOn")) boolean(*a, at + "/startsOn", m.startsOn);
        if (const json* jj = required(j, at, "joint")) string(*jj, at + "/joint", m.joint);
        if (const json* a = optional(j, "axis"))
            word<JointAxis>(
                *a, at + "/axis",
                {{"rotation", JointAxis::Rotation}, {"translation", JointAxis::Translation}},
                m.axis);
        if (const json* l = optional(j, "level"))
            word<MotionLevel>(*l, at + "/level",
                              {{"position", MotionLevel::Position},
                               {"velocity", MotionLevel::Velocity},
                               {"acceleration", MotionLevel::Acceleration}},
                              m.level);
        if (const json* e = required(j, at, "expression"))
            expression(*e, at + "/expression", m.expression);
    }

    void coupler(const json& j, const std::string& at, CouplerSpec& c) {
        if (!isObject(j, at)) return;
        name(j, at, c.name);
        std::string type;
        const json* jt = required(j, at, "type");
        if (!jt || !string(*jt, at + "/type", type)) return;
        const auto parsed = couplerTypeFromName(type);
        if (!parsed) {
            error(at + "/type", "unknown coupler type '" + excerpt(type) +
                                    "' (expected gear, rackPinion, screw or linear)");
            return;
        }
        c.type = *parsed;
        checkKeys(j, at, format::object("coupler").keys(type), &c.extensions);
        if (const json* a = optional(j, "active")) boolean(*a, at + "/active", c.active);
        auto jointName = [&](const char* key, std::string& out) {
            if (const json* v = required(j, at, key)) string(*v, at + "/" + key, out);
        };
        auto scalar = [&](const char* key, double& out, bool needed) {
            if (const json* v = needed ? required(j, at, key) : optional(j, key))
                number(*v, at + "/" + key, out);
        };
        switch (c.type) {
        case CouplerType::Gear:
            jointName("jointI", c.jointI);
            jointName("jointJ", c.jointJ);
            scalar("ratio", c.ratio, true);
            if (const json* v = optional(j, "internal")) boolean(*v, at + "/internal", c.internal);
            break;
        case CouplerType::RackPinion:
            jointName("jointI", c.jointI);
            jointName("jointJ", c.jointJ);
            scalar("radius", c.radius, true);
            break;
        case CouplerType::Screw:
            jointName("joint", c.jointI);
            scalar("pitch", c.pitch, true);
            break;
        case CouplerType::Linear: {
            scalar("offset", c.offset, false);
            const json* terms = required(j, at, "terms");
            if (!terms) break;
            if (!terms->is_array()) {
                error(at + "/terms",
                      "expected a list of terms {\"joint\", \"axis\", \"coefficient\"}");
                break;
            }
            for (std::size_t k = 0; k < terms->size(); ++k) {
                const json& t = (*terms)[k];
                const std::string tat = at + "/terms/" + std::to_string(k);
                CouplerTerm& term = c.terms.emplace_back();
                if (!isObject(t, tat)) continue;
                checkKeys(t, tat, format::object("couplerTerm").keys(), nullptr);
                if (const json* v = required(t, tat, "joint"))
                    string(*v, tat + "/joint", term.joint);
                if (const json* a = optional(t, "axis"))
                    word<JointAxis>(*a, tat + "/axis",
                                    {{"rotation", JointAxis::Rotation},
                                     {"translation", JointAxis::Translation}},
                                    term.axis);
                if (const json* v = required(t, tat, "coefficient"))
                    number(*v, tat + "/coefficient", term.coefficient);
            }
            break;
        }
        }
    }

    void settings(const json& j, const std::string& at, SolverSettings& st) {
        if (!isObject(j, at)) return;
        checkKeys(j, at, format::object("settings").keys(), &st.extensions);
        if (const json* i = optional(j, "integrator"))
            word<IntegratorType>(*i, at + "/integrator",
                                 {{"symplecticEuler", IntegratorType::SymplecticEuler},
                                  {"rk4", IntegratorType::RungeKutta4},
                                  {"dopri45", IntegratorType::DormandPrince45},
                                  {"implicitEuler", IntegratorType::ImplicitEuler},
                                  {"timeStepping", IntegratorType::TimeStepping},
                                  {"trapezoidal", IntegratorType::Trapezoidal}},
                                 st.integrator);
        if (const json* f = optional(j, "formulation"))
            word<Formulation>(*f, at + "/formulation",
                              {{"auto", Formulation::Auto},
                               {"recursive", Formulation::Recursive},
                               {"maximal", Formulation::Maximal}},
                              st.formulation);
        if (const json* fw = optional(j, "foldWelds"))
            boolean(*fw, at + "/foldWelds", st.foldWelds);
        for (auto [key, target] :
             {std::pair{"stepSize", &st.stepSize}, std::pair{"outputInterval", &st.outputInterval},
              std::pair{"maxStep", &st.maxStep}, std::pair{"endTime", &st.endTime},
              std::pair{"relativeTolerance", &st.relativeTolerance},
              std::pair{"absoluteTolerance", &st.absoluteTolerance},
              std::pair{"projectionTolerance", &st.projectionTolerance}})
            if (const json* v = optional(j, key)) number(*v, at + "/" + key, *target);
        if (const json* v = optional(j, "maxProjectionIterations")) {
            if (!v->is_number_integer())
                error(at + "/maxProjectionIterations", "expected an integer, got " + typeName(*v));
            else
                st.maxProjectionIterations =
                    static_cast<int>(std::clamp<long long>(v->get<long long>(), -1, 1000));
        }
    }

private:
    Diagnostics& out_;
    int fileMinor_ = 0;
    bool newerMinor_ = false;  // the file is of a newer minor version: unknown keys are kept
    std::string baseDirectory_;
    // A mesh file's path as read: relative to the scene's folder, normalised.
    std::string meshKey(const std::string& file) const {
        std::filesystem::path path(file);
        if (path.is_relative() && !baseDirectory_.empty())
            path = std::filesystem::path(baseDirectory_) / path;
        return path.lexically_normal().string();
    }
    MeshFiles meshes_;                          // by meshKey
    std::set<std::string> unreadableReported_;  // (each unreadable file reported once)

public:
    // The meshes of the scene read before (reparseScene, parseSceneWithMeshesOf), by the JSON
    // pointer of their shape's "file".
    struct KnownMesh {
        std::string file;  // as written
        std::shared_ptr<const TriangleMesh> mesh;
    };
    std::map<std::string, KnownMesh> known_;
};

}  // namespace

namespace {

// What a read takes from the scene read before it.
enum class Reuse {
    Meshes,        // the meshes of shapes at the same place naming the same file
    MeshesAndIds,  // those, and every entity's id (text written from that scene)
};

SceneLoadResult readDocument(json& root, const std::string& baseDirectory,
                             const SceneSpec* previous, Reuse reuse, bool validateIt,
                             SceneLoadResult result);

// parseScene, reusing what `previous` holds when it is given.
SceneLoadResult parseText(std::string_view text, const std::string& baseDirectory,
                          const SceneSpec* previous, Reuse reuse, bool validateIt) {
    SceneLoadResult result;
    // A run file given where a scene is expected: say what it is rather than how its bytes fail.
    if (text.substr(0, 8) == "MOTUSRUN") {
        result.diagnostics.push_back(
            {Severity::Error, "",
             "this is a Motus run file (.motusrun: a scene with its recorded frames), not a "
             "scene: open it with File > Open Run in the GUI"});
        return result;
    }
    // Bytes that are not UTF-8 and nesting deeper than any scene are refused before parsing:
    // nothing below then meets a document deeper than kMaxSceneNesting.
    if (std::optional<Diagnostic> refused = scanText(text)) {
        result.diagnostics.push_back(std::move(*refused));
        return result;
    }
    json root;
    DocumentBuilder builder(root);
    json::sax_parse(text.begin(), text.end(), &builder);
    if (builder.failed && builder.errorId == 406) {
        // A number too large for a double: point at its first digit.
        const std::size_t start =
            builder.errorOffset - std::min(builder.errorOffset, builder.errorToken.size());
        result.diagnostics.push_back({Severity::Error, lineColumn(text, start),
                                      "invalid JSON: number overflow parsing '" +
                                          excerpt(builder.errorToken) +
                                          "' (numbers must be finite doubles)"});
        return result;
    }
    if (builder.failed) {
        // nlohmann's message already says what was expected; add a human position, and quote
        // the token it read last (a whole unterminated string, perhaps) as an excerpt.
        std::string what = builder.errorWhat;
        if (const auto pos = what.find("parse error"); pos != std::string::npos)
            what = what.substr(pos);
        constexpr std::string_view kLastRead = "; last read: '";
        if (const auto pos = what.find(kLastRead); pos != std::string::npos) {
            const auto tail = what.rfind("'; expected ");
            const std::size_t end = tail != std::string::npos && tail >= pos + kLastRead.size()
                                        ? tail
                                        : what.size() - 1;
            const std::size_t begin = pos + kLastRead.size();
            what = what.substr(0, begin) +
                   excerpt(std::string_view(what).substr(begin, end - begin)) + what.substr(end);
        }
        const std::size_t byte = builder.errorOffset;
        result.diagnostics.push_back({Severity::Error, lineColumn(text, byte == 0 ? 0 : byte - 1),
                                      "invalid JSON: " + validUtf8(what)});
        return result;
    }

    return readDocument(root, baseDirectory, previous, reuse, validateIt, std::move(result));
}

// Gives `spec` (read from text written from `previous`) the ids of `previous`, entity by
// entity, and its bindings' owners accordingly.
void keepIds(SceneSpec& spec, const SceneSpec& previous) {
    std::map<EntityId, EntityId> ids;
    auto take = [&](auto& items, const auto& from) {
        for (std::size_t k = 0; k < items.size() && k < from.size(); ++k) {
            ids[items[k].id] = from[k].id;
            items[k].id = from[k].id;
        }
    };
    for (std::size_t p = 0; p < spec.parts.size() && p < previous.parts.size(); ++p) {
        ids[spec.parts[p].id] = previous.parts[p].id;
        spec.parts[p].id = previous.parts[p].id;
        take(spec.parts[p].markers, previous.parts[p].markers);
    }
    take(spec.joints, previous.joints);
    take(spec.forces, previous.forces);
    take(spec.motions, previous.motions);
    take(spec.couplers, previous.couplers);
    take(spec.contact.pairs, previous.contact.pairs);
    for (BindingSpec& b : spec.bindings)
        if (auto it = ids.find(b.owner); it != ids.end()) b.owner = it->second;
    spec.nextId = std::max(spec.nextId, previous.nextId);
    spec.formatMinor = previous.formatMinor;
}

SceneLoadResult readDocument(json& root, const std::string& baseDirectory,
                             const SceneSpec* previous, Reuse reuse, bool validateIt,
                             SceneLoadResult result) {
    // Design variables' bindings first: the reader then meets numbers where they were.
    const std::vector<detail::FoundBinding> found =
        detail::resolveBindings(root, result.diagnostics);
    SceneSpec spec;
    Reader reader(result.diagnostics, baseDirectory);
    if (previous)
        for (std::size_t p = 0; p < previous->parts.size(); ++p)
            for (std::size_t k = 0; k < previous->parts[p].shapes.size(); ++k)
                if (const Shape& shape = previous->parts[p].shapes[k];
                    shape.type == ShapeType::Mesh)
                    reader.known_["/parts/" + std::to_string(p) + "/geometry/" + std::to_string(k) +
                                  "/file"] = {shape.meshFile, shape.mesh};
    reader.prefetchMeshes(root);
    reader.scene(root, spec);
    if (hasErrors(result.diagnostics)) return result;
    detail::attachBindings(spec, found);
    if (previous && reuse == Reuse::MeshesAndIds) keepIds(spec, *previous);
    if (!validateIt) {
        result.scene = std::move(spec);
        return result;
    }

    Diagnostics semantic = validate(spec);
    result.diagnostics.insert(result.diagnostics.end(), semantic.begin(), semantic.end());
    // validate() quotes names and expressions, and the expression parser may quote a byte
    // from the middle of a character.
    for (Diagnostic& d : result.diagnostics) {
        d.where = validUtf8(std::move(d.where));
        d.message = validUtf8(std::move(d.message));
    }
    if (!hasErrors(result.diagnostics)) result.scene = std::move(spec);
    return result;
}

}  // namespace

SceneLoadResult parseScene(std::string_view text, const std::string& baseDirectory) {
    return parseText(text, baseDirectory, nullptr, Reuse::Meshes, true);
}

SceneLoadResult loadSceneFile(const std::string& path) {
    SceneLoadResult result;
    std::string text;
    if (!detail::readSceneFileText(path, text, result.diagnostics)) return result;
    return parseScene(text, std::filesystem::path(path).parent_path().string());
}

bool detail::readSceneFileText(const std::string& path, std::string& text,
                               Diagnostics& diagnostics) {
    // Looked at before it is opened: a FIFO would block, a device never end, a folder open as
    // a stream of nonsense length.
    std::uintmax_t size = 0;
    if (const std::string problem = inputFileProblem(path, "scene file", &size, validUtf8(path));
        !problem.empty()) {
        diagnostics.push_back({Severity::Error, "", problem});
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        diagnostics.push_back(
            {Severity::Error, "", "cannot open scene file '" + validUtf8(path) + "'"});
        return false;
    }
    if (size > kMaxSceneFileBytes) {
        diagnostics.push_back({Severity::Error, "",
                               "scene file '" + validUtf8(path) + "' is " +
                                   std::to_string(size >> 20) +
                                   " MiB; scene files are limited to " +
                                   std::to_string(kMaxSceneFileBytes >> 20) + " MiB"});
        return false;
    }
    text.assign(static_cast<std::size_t>(size), '\0');
    if (!in.read(text.data(), static_cast<std::streamsize>(size))) {
        diagnostics.push_back(
            {Severity::Error, "", "cannot read scene file '" + validUtf8(path) + "'"});
        return false;
    }
    return true;
}

namespace detail {

SceneLoadResult reparseScene(std::string_view text, const std::string& baseDirectory,
                             const SceneSpec& previous, bool validate) {
    return parseText(text, baseDirectory, &previous, Reuse::MeshesAndIds, validate);
}

SceneLoadResult parseSceneWithMeshesOf(std::string_view text, const std::string& baseDirectory,
                                       const SceneSpec& previous) {
    return parseText(text, baseDirectory, &previous, Reuse::Meshes, true);
}

bool isUnitToRoundOff(double w, double x, double y, double z) {
    const double n = Eigen::Vector4d(w, x, y, z).norm();
    return std::abs(n - 1.0) <= 4 * std::numeric_limits<double>::epsilon();
}

std::size_t invalidUtf8Offset(std::string_view text) {
    for (std::size_t k = 0; k < text.size();) {
        const Utf8Char u = utf8At(text, k);
        if (!u.valid) return k;
        k += u.length;
    }
    return std::string_view::npos;
}

std::string withValidUtf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t k = 0; k < text.size();) {
        const Utf8Char u = utf8At(text, k);
        if (u.valid) {
            out.append(text.substr(k, u.length));
            k += u.length;
        } else {
            out += "\xEF\xBF\xBD";  // U+FFFD
            ++k;
        }
    }
    return out;
}

}  // namespace detail

}  // namespace engine::io
