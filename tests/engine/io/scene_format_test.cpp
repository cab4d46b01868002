// The scene format is described once (engine/io/scene_format.h); the reader takes its keys from
// the description, and these tests fail when the JSON Schema, the writer or the field tables of
// docs/scene-format.md disagree with it: its keys, and each key's kind, range and default.

#include "engine/io/scene_format.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/io/scene_json.h"

namespace engine::io {
namespace {

using nlohmann::json;
using KeySet = std::set<std::string>;

std::string text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

KeySet keySet(const std::vector<std::string_view>& keys) {
    return {keys.begin(), keys.end()};
}

KeySet requiredKeys(const format::ObjectFormat& object, std::string_view variant = {}) {
    KeySet out;
    const std::vector<std::string_view> keys = object.keys(variant);
    for (const format::Field& f : object.fields)
        if (f.required == "yes" && std::find(keys.begin(), keys.end(), f.key) != keys.end())
            out.insert(std::string(f.key));
    return out;
}

// Keys of the schema object `s`: its properties and those of its alternatives.
KeySet schemaKeys(const json& s) {
    KeySet out;
    if (s.contains("properties"))
        for (const auto& [key, value] : s["properties"].items()) out.insert(key);
    for (const char* alternatives : {"oneOf", "anyOf"})
        if (s.contains(alternatives))
            for (const json& branch : s[alternatives]) out.merge(schemaKeys(branch));
    return out;
}

KeySet schemaRequired(const json& s) {
    KeySet out;
    if (s.contains("required"))
        for (const json& key : s["required"]) out.insert(key.get<std::string>());
    return out;
}

const json& schema() {
    static const json s = json::parse(text(MOTUS_SOURCE_DIR "/resources/scene.schema.json"));
    return s;
}

TEST(SceneFormat, TheSchemaHasTheKeysOfTheDescription) {
    for (const format::ObjectFormat& object : format::sceneFormat()) {
        const json& s = schema().at(json::json_pointer(std::string(object.schema)));
        if (object.variants.empty()) {
            EXPECT_EQ(schemaKeys(s), keySet(object.keys())) << object.name;
            EXPECT_EQ(schemaRequired(s), requiredKeys(object)) << object.name;
            continue;
        }
        // One alternative per group of types (forces): its keys are theirs.
        std::set<std::string> typesInSchema;
        for (const json& branch : s.at("oneOf")) {
            const json& type = branch.at("properties").at("type");
            std::vector<std::string> types;
            if (type.contains("const")) types.push_back(type["const"].get<std::string>());
            if (type.contains("enum")) types = type["enum"].get<std::vector<std::string>>();
            KeySet required = schemaRequired(s);
            required.merge(schemaRequired(branch));
            for (const std::string& t : types) {
                typesInSchema.insert(t);
                EXPECT_EQ(schemaKeys(branch), keySet(object.keys(t))) << object.name << " " << t;
                EXPECT_EQ(required, requiredKeys(object, t)) << object.name << " " << t;
            }
        }
        EXPECT_EQ(typesInSchema, keySet(object.variants)) << object.name;
    }
}

// Each object of the documentation is introduced by `<!-- fields: NAME -->` and its table is
// the description printed. With MOTUS_UPDATE_DOCS set, the test writes the tables instead:
//   MOTUS_UPDATE_DOCS=1 build/release/bin/motus_engine_tests --gtest_filter=SceneFormat.*
TEST(SceneFormat, TheDocumentationTablesAreTheDescription) {
    const std::string path = MOTUS_SOURCE_DIR "/docs/scene-format.md";
    const std::string doc = text(path);
    std::string expected = doc;
    for (const format::ObjectFormat& object : format::sceneFormat()) {
        const std::string marker = "<!-- fields: " + std::string(object.name) + " -->\n";
        const std::size_t at = expected.find(marker);
        ASSERT_NE(at, std::string::npos) << "docs/scene-format.md has no '" << marker << "'";
        const std::size_t start = at + marker.size();
        std::size_t end = start;
        while (end < expected.size() && expected[end] == '|') end = expected.find('\n', end) + 1;
        expected.replace(start, end - start, format::markdownTable(object));
    }
    if (std::getenv("MOTUS_UPDATE_DOCS")) {
        std::ofstream(path, std::ios::binary | std::ios::trunc) << expected;
        return;
    }
    EXPECT_EQ(doc, expected) << "docs/scene-format.md's field tables are not the description "
                                "(engine/io/scene_format.cpp): MOTUS_UPDATE_DOCS=1 rewrites them";
    EXPECT_NE(format::object("scene").fields[2].meaning.find(
                  "this Motus writes " + std::to_string(kSceneFormatMinor) + ")"),
              std::string_view::npos);
}

// Which object of the format a JSON object of a scene file is: its place in the file.
struct Walk {
    // Keys seen per object (and per force type), in a scene file.
    std::map<std::string, KeySet> seen;

    void object(const json& j, const std::string& name) {
        std::string id = name;
        if (name == "force" || name == "coupler" || name == "curve" || name == "surface")
            id += ":" + j.at("type").get<std::string>();
        for (const auto& [key, value] : j.items()) {
            seen[id].insert(key);
            if (key == "orientation") object(value, "orientation");
        }
    }
    void each(const json& j, const char* key, const std::string& name) {
        if (j.contains(key))
            for (const json& item : j[key]) visit(item, name);
    }
    void visit(const json& j, const std::string& name) {
        object(j, name);
        if (name == "scene") {
            if (j.contains("settings")) visit(j["settings"], "settings");
            if (j.contains("contact")) visit(j["contact"], "contact");
            each(j, "parts", "part");
            each(j, "joints", "joint");
            each(j, "forces", "force");
            each(j, "motions", "motion");
            each(j, "couplers", "coupler");
            each(j, "variables", "variable");
            each(j, "tables", "table");
            each(j, "sensors", "sensor");
            each(j, "designVariables", "designVariable");
            each(j, "plots", "plot");
            if (j.contains("analyses"))
                for (const auto& [analysis, value] : j["analyses"].items())
                    visit(value, "analysis");
        } else if (name == "analysis") {
            if (j.contains("inactive")) visit(j["inactive"], "inactive");
        } else if (name == "contact") {
            each(j, "pairs", "contactPair");
        } else if (name == "coupler") {
            each(j, "terms", "couplerTerm");
        } else if (name == "force" && j.contains("points") && j["points"].is_array()) {
            for (const json& point : j["points"])  // a cable's pulleys
                if (point.is_object()) visit(point, "pulley");
        } else if (name == "part") {
            each(j, "geometry", "shape");
            each(j, "markers", "marker");
            if (j.contains("material")) visit(j["material"], "material");
            if (j.contains("collision")) visit(j["collision"], "collision");
            if (j.contains("frameMotion")) visit(j["frameMotion"], "frameMotion");
        } else if (name == "joint") {
            if (j.contains("soft")) visit(j["soft"], "soft");
            for (const char* key : {"curve", "follower"})
                if (j.contains(key)) visit(j[key], "curve");
            if (j.contains("surface")) visit(j["surface"], "surface");
            // A joint's stops and friction: one object, or a list of them (and nulls).
            for (const auto& [key, name] :
                 {std::pair{"limits", "limit"}, std::pair{"friction", "friction"}}) {
                if (!j.contains(key)) continue;
                if (j[key].is_object()) visit(j[key], name);
                if (j[key].is_array())
                    for (const json& l : j[key])
                        if (l.is_object()) visit(l, name);
            }
        }
    }
    KeySet keys(const format::ObjectFormat& o, std::string_view variant = {}) const {
        std::string id(o.name);
        if (!variant.empty()) id += ":" + std::string(variant);
        const auto it = seen.find(id);
        return it == seen.end() ? KeySet{} : it->second;
    }
};

// Scenes with every key of the format between them (tests/engine/io/data/every_key*.json) load,
// and the writer writes every key of them back — no key it does not know, none it forgets —
// except the two other spellings of an orientation (it writes quaternions).
TEST(SceneFormat, TheReaderAndTheWriterKnowEveryKeyOfTheDescription) {
    Walk input, written;
    for (const char* name : {"every_key.json", "every_key_stiffness.json"}) {
        const std::string path = MOTUS_SOURCE_DIR "/tests/engine/io/data/" + std::string(name);
        const SceneLoadResult loaded = loadSceneFile(path);
        ASSERT_TRUE(loaded.scene) << name << ": "
                                  << (loaded.diagnostics.empty()
                                          ? ""
                                          : loaded.diagnostics[0].where + ": " +
                                                loaded.diagnostics[0].message);
        input.visit(json::parse(text(path)), "scene");
        written.visit(json::parse(sceneToJson(*loaded.scene)), "scene");
    }
    const KeySet orientationsNotWritten = {"axis", "angleDeg", "rpyDeg"};
    for (const format::ObjectFormat& object : format::sceneFormat()) {
        const std::vector<std::string_view> variants =
            object.variants.empty() ? std::vector<std::string_view>{""} : object.variants;
        for (std::string_view variant : variants) {
            const KeySet described = keySet(object.keys(variant));
            EXPECT_EQ(input.keys(object, variant), described)
                << "every_key.json does not use every key of " << object.name << " " << variant;
            KeySet expected = described;
            if (object.name == "orientation")
                for (const std::string& k : orientationsNotWritten) expected.erase(k);
            EXPECT_EQ(written.keys(object, variant), expected)
                << "the writer's keys of " << object.name << " " << variant;
        }
    }
}

// ---- Each key's kind, range and default ----------------------------------------------------

const char* const kEveryKeyFiles[] = {"every_key.json", "every_key_stiffness.json"};

std::string dataPath(const std::string& name) {
    return MOTUS_SOURCE_DIR "/tests/engine/io/data/" + name;
}

// A key of the description, at a place in one of the every_key files where it is written.
struct Place {
    const format::ObjectFormat* object = nullptr;
    std::string_view variant;
    const format::Field* field = nullptr;
    std::string file;       // every_key*.json
    json::json_pointer at;  // the object holding the key
    std::string where() const { return at.to_string() + "/" + std::string(field->key); }
    std::string name() const {
        return std::string(object->name) + (variant.empty() ? "" : ":" + std::string(variant)) +
               "." + std::string(field->key) + " (" + where() + " in " + file + ")";
    }
};

// Where each object of the format is in a scene file, by id ("force:bushing"): every place.
struct Locate {
    std::map<std::string, std::vector<json::json_pointer>> at;

    void object(const json& j, const json::json_pointer& p, const std::string& name) {
        std::string id = name;
        if (name == "force" || name == "coupler" || name == "curve" || name == "surface")
            id += ":" + j.at("type").get<std::string>();
        at[id].push_back(p);
        if (j.contains("orientation")) object(j["orientation"], p / "orientation", "orientation");
    }
    void each(const json& j, const json::json_pointer& p, const char* key, const char* name) {
        if (!j.contains(key)) return;
        for (std::size_t k = 0; k < j[key].size(); ++k) visit(j[key][k], p / key / k, name);
    }
    void visit(const json& j, const json::json_pointer& p, const std::string& name) {
        object(j, p, name);
        if (name == "inactive") return;  // lists of names, not of objects
        const std::pair<const char*, const char*> inner[] = {
            {"settings", "settings"},   {"contact", "contact"},         {"material", "material"},
            {"collision", "collision"}, {"frameMotion", "frameMotion"}, {"soft", "soft"}};
        for (const auto& [key, object] : inner)
            if (j.contains(key) && j[key].is_object() &&
                (name == "scene" || name == "part" || name == "joint"))
                visit(j[key], p / key, object);
        for (const char* key : {"curve", "follower"})
            if (name == "joint" && j.contains(key) && j[key].is_object())
                visit(j[key], p / key, "curve");
        if (name == "joint" && j.contains("surface") && j["surface"].is_object())
            visit(j["surface"], p / "surface", "surface");
        for (const auto& [key, item] :
             {std::pair{"limits", "limit"}, std::pair{"friction", "friction"}}) {
            if (name != "joint" || !j.contains(key)) continue;
            const json& l = j[key];
            if (l.is_object()) visit(l, p / key, item);
            if (l.is_array())
                for (std::size_t k = 0; k < l.size(); ++k)
                    if (l[k].is_object()) visit(l[k], p / key / k, item);
        }
        if (name == "force" && j.contains("points") && j["points"].is_array())  // pulleys
            for (std::size_t k = 0; k < j["points"].size(); ++k)
                if (j["points"][k].is_object()) visit(j["points"][k], p / "points" / k, "pulley");
        if (name == "scene" && j.contains("analyses"))
            for (const auto& [analysis, value] : j["analyses"].items())
                visit(value, p / "analyses" / analysis, "analysis");
        if (name == "analysis" && j.contains("inactive"))
            visit(j["inactive"], p / "inactive", "inactive");
        each(j, p, "parts", "part");
        each(j, p, "joints", "joint");
        each(j, p, "forces", "force");
        each(j, p, "motions", "motion");
        each(j, p, "couplers", "coupler");
        each(j, p, "variables", "variable");
        each(j, p, "tables", "table");
        each(j, p, "sensors", "sensor");
        each(j, p, "designVariables", "designVariable");
        each(j, p, "terms", "couplerTerm");
        each(j, p, "plots", "plot");
        each(j, p, "pairs", "contactPair");
        each(j, p, "geometry", "shape");
        each(j, p, "markers", "marker");
    }
};

const json& everyKeyFile(const std::string& name) {
    static std::map<std::string, json> files;
    auto it = files.find(name);
    if (it == files.end()) it = files.emplace(name, json::parse(text(dataPath(name)))).first;
    return it->second;
}

// Every key of the description at the first place an every_key file writes it.
std::vector<Place> everyPlace() {
    std::vector<Place> out;
    for (const format::ObjectFormat& object : format::sceneFormat()) {
        const std::vector<std::string_view> variants =
            object.variants.empty() ? std::vector<std::string_view>{""} : object.variants;
        for (std::string_view variant : variants) {
            for (std::string_view key : object.keys(variant)) {
                Place place{&object, variant, &object.field(key), "", json::json_pointer()};
                for (const char* file : kEveryKeyFiles) {
                    Locate locate;
                    locate.visit(everyKeyFile(file), json::json_pointer(), "scene");
                    std::string id(object.name);
                    if (!variant.empty()) id += ":" + std::string(variant);
                    for (const json::json_pointer& p : locate.at[id])
                        if (everyKeyFile(file).at(p).contains(std::string(key))) {
                            place.file = file;
                            place.at = p;
                            break;
                        }
                    if (!place.file.empty()) break;
                }
                EXPECT_FALSE(place.file.empty())
                    << "no every_key file writes " << object.name << " " << variant << " " << key;
                if (!place.file.empty()) out.push_back(place);
            }
        }
    }
    return out;
}

// The place's file with its key set to `value` (or taken out when `value` is discarded). Mesh
// shapes other than the place's own are drawn as small spheres instead (a mesh file takes
// 80 ms to read, in a process of its own: the tests read these files a thousand times).
SceneLoadResult loadWith(const Place& place, const json& value) {
    json file = everyKeyFile(place.file);
    for (std::size_t p = 0; p < file.value("parts", json::array()).size(); ++p) {
        json& geometry = file["parts"][p];
        if (!geometry.contains("geometry")) continue;
        for (std::size_t k = 0; k < geometry["geometry"].size(); ++k) {
            json& shape = geometry["geometry"][k];
            const std::string at = "/parts/" + std::to_string(p) + "/geometry/" + std::to_string(k);
            const std::string inside = place.at.to_string();
            if (shape.value("type", "") == "mesh" && inside != at && !inside.starts_with(at + "/"))
                shape = {{"type", "sphere"}, {"radius", 0.01}, {"role", "visual"}};
        }
    }
    json& object = file.at(place.at);
    if (value.is_discarded())
        object.erase(std::string(place.field->key));
    else
        object[std::string(place.field->key)] = value;
    return parseScene(file.dump(), MOTUS_SOURCE_DIR "/tests/engine/io/data");
}

// Whether an error of `loaded` is at `where` or inside it.
bool errorAt(const SceneLoadResult& loaded, const std::string& where) {
    for (const Diagnostic& d : loaded.diagnostics)
        if (d.severity == Severity::Error && (d.where == where || d.where.starts_with(where + "/")))
            return true;
    return false;
}

std::string diagnosticsText(const SceneLoadResult& loaded) {
    std::string out;
    for (const Diagnostic& d : loaded.diagnostics) out += "\n  " + d.where + ": " + d.message;
    return out;
}

TEST(SceneFormat, EveryKeyHasAKindAndTheChecksReadThem) {
    std::size_t checked = 0;
    for (const Place& place : everyPlace()) {
        const format::Rule rule = place.field->rule();  // throws on a malformed check
        if (rule.kind != format::Rule::Kind::Any) ++checked;
        EXPECT_EQ(rule.kind == format::Rule::Kind::Word, !rule.words.empty()) << place.name();
        if (!place.field->value.empty()) {
            EXPECT_FALSE(json::parse(place.field->value, nullptr, false).is_discarded())
                << place.name() << ": its default is not JSON";
        }
    }
    EXPECT_GT(checked, 100u);
    const format::Rule facets = format::object("contact").field("coneFacets").rule();
    EXPECT_EQ(facets.kind, format::Rule::Kind::Integer);
    EXPECT_EQ(facets.range.min, 3.0);
    EXPECT_EQ(facets.range.max, 64.0);
    EXPECT_EQ(facets.range.text(), "3 to 64");
    const format::Rule mass = format::object("part").field("mass").rule();
    EXPECT_TRUE(mass.range.openMin);
    EXPECT_FALSE(mass.range.contains(0.0));
    EXPECT_EQ(mass.range.text(), "> 0");
    EXPECT_EQ(format::object("material").field("restitution").rule().range.text(), "0 to 1");
    EXPECT_EQ(format::object("soft").field("damping").rule().range.text(), "≥ 0");
    EXPECT_EQ(format::object("motion").field("level").rule().words,
              (std::vector<std::string_view>{"position", "velocity", "acceleration"}));
}

// Values of another kind than the description's, for each kind.
std::vector<json> wrongKinds(const format::Rule& rule) {
    using K = format::Rule::Kind;
    switch (rule.kind) {
    case K::Number:
        return {"1", true, json::array({1})};
    case K::Integer:
        return {1.5, "1", false};
    case K::Bool:
        return {1, "true"};
    case K::String:
        return {5, json::array({"a"})};
    case K::Word:
        return {"noSuchWord", 3};
    case K::Vector3:
        return {json::array({1, 2}), json::array({1, 2, "x"}), 5, json::array({1, 2, 3, 4})};
    case K::Expression:
        return {true, json::array({1})};
    case K::Object:
        return {5, json::array()};
    case K::Array:
        return {5, json::object()};
    case K::Any:
        return {};
    }
    return {};
}

TEST(SceneFormat, TheReaderRefusesAValueOfAnotherKindThanTheDescriptions) {
    for (const Place& place : everyPlace())
        for (const json& wrong : wrongKinds(place.field->rule())) {
            const SceneLoadResult loaded = loadWith(place, wrong);
            EXPECT_FALSE(loaded.scene) << place.name() << " = " << wrong.dump();
            EXPECT_TRUE(errorAt(loaded, place.where()))
                << place.name() << " = " << wrong.dump() << diagnosticsText(loaded);
        }
}

// Values just outside a range and at its ends (just inside an open end).
struct Probes {
    std::vector<double> outside, inside;
};
Probes probesOf(const format::Rule& rule) {
    Probes out;
    const format::Range& r = rule.range;
    const bool integer = rule.kind == format::Rule::Kind::Integer;
    const auto step = [&](double x) { return integer ? 1.0 : 1e-6 * (1.0 + std::abs(x)); };
    if (std::isfinite(r.min)) {
        out.outside.push_back(r.openMin ? r.min : r.min - step(r.min));
        out.inside.push_back(r.openMin ? r.min + step(r.min) : r.min);
    }
    if (std::isfinite(r.max)) {
        out.outside.push_back(r.openMax ? r.max : r.max + step(r.max));
        out.inside.push_back(r.openMax ? r.max - step(r.max) : r.max);
    }
    return out;
}

TEST(SceneFormat, TheReaderAndValidateHoldTheDescriptionsRanges) {
    std::size_t ranges = 0;
    for (const Place& place : everyPlace()) {
        const format::Rule rule = place.field->rule();
        if (!rule.range.bounded()) continue;
        ++ranges;
        const bool vector = rule.kind == format::Rule::Kind::Vector3;
        auto value = [&](double x) {
            if (rule.kind == format::Rule::Kind::Integer) return json(std::llround(x));
            return vector ? json::array({x, x, x}) : json(x);
        };
        const Probes probes = probesOf(rule);
        for (double x : probes.outside) {
            const SceneLoadResult loaded = loadWith(place, value(x));
            EXPECT_TRUE(errorAt(loaded, place.where()))
                << place.name() << " = " << x << " is outside " << rule.range.text()
                << " and was taken" << diagnosticsText(loaded);
        }
        for (double x : probes.inside) {
            const SceneLoadResult loaded = loadWith(place, value(x));
            EXPECT_FALSE(errorAt(loaded, place.where()))
                << place.name() << " = " << x << " is inside " << rule.range.text()
                << " and was refused" << diagnosticsText(loaded);
        }
    }
    EXPECT_GT(ranges, 40u);
}

// A key left out reads as its default written out; the writer leaves it out or writes the
// default.
TEST(SceneFormat, AKeyLeftOutIsItsDescribedDefaultToTheReaderAndTheWriter) {
    std::size_t defaults = 0;
    for (const Place& place : everyPlace()) {
        if (place.field->value.empty()) continue;
        ++defaults;
        EXPECT_EQ(place.field->required, "no") << place.name() << " has a default";
        const json value = json::parse(place.field->value);
        const SceneLoadResult left = loadWith(place, json(json::value_t::discarded));
        const SceneLoadResult given = loadWith(place, value);
        ASSERT_EQ(left.scene.has_value(), given.scene.has_value())
            << place.name() << diagnosticsText(left)
            << "\nwith the default:" << diagnosticsText(given);
        if (!left.scene) {
            EXPECT_EQ(diagnosticsText(left), diagnosticsText(given)) << place.name();
            continue;
        }
        const std::string written = sceneToJson(*left.scene);
        EXPECT_EQ(written, sceneToJson(*given.scene))
            << place.name() << ": left out, it is not " << place.field->value;
        const json parsed = json::parse(written);
        // (an object left with nothing but defaults — an analysis with no set — is left out)
        if (!parsed.contains(place.at)) continue;
        const json& object = parsed.at(place.at);
        const std::string key(place.field->key);
        // The writer writes the minor version it writes, whatever the file read said.
        if (object.contains(key) && key != "minorVersion") {
            EXPECT_EQ(object[key], value) << place.name() << ": the writer's default";
        }
    }
    EXPECT_GT(defaults, 60u);
}

// A schema node with its "$ref"s followed; the keys beside a "$ref" win over the definition's.
json resolved(const json& node) {
    json out = node;
    while (out.contains("$ref")) {
        const std::string ref = out["$ref"].get<std::string>();
        out.erase("$ref");
        json definition = schema().at(json::json_pointer(ref.substr(1)));  // "#/$defs/x"
        for (auto& [key, value] : out.items()) definition[key] = value;
        out = std::move(definition);
    }
    return out;
}

// The schema's node for a key: in the object's properties or in its variant's alternative.
std::optional<json> schemaNode(const Place& place) {
    const json object =
        resolved(schema().at(json::json_pointer(std::string(place.object->schema))));
    const std::string key(place.field->key);
    if (object.contains("properties") && object["properties"].contains(key))
        return resolved(object["properties"][key]);
    for (const char* alternatives : {"oneOf", "anyOf"})
        if (object.contains(alternatives))
            for (const json& branch : object[alternatives]) {
                if (!branch.contains("properties") || !branch["properties"].contains(key)) continue;
                const json& type = branch["properties"].contains("type")
                                       ? branch["properties"]["type"]
                                       : json::object();
                const bool forVariant =
                    place.variant.empty() ||
                    (type.contains("const") && type["const"] == place.variant) ||
                    (type.contains("enum") &&
                     std::find(type["enum"].begin(), type["enum"].end(),
                               std::string(place.variant)) != type["enum"].end());
                if (forVariant) return resolved(branch["properties"][key]);
            }
    return std::nullopt;
}

// The schema's range of a number node.
format::Range schemaRange(const json& node) {
    format::Range r;
    if (node.contains("minimum")) r.min = node["minimum"].get<double>();
    if (node.contains("exclusiveMinimum")) {
        r.min = node["exclusiveMinimum"].get<double>();
        r.openMin = true;
    }
    if (node.contains("maximum")) r.max = node["maximum"].get<double>();
    if (node.contains("exclusiveMaximum")) {
        r.max = node["exclusiveMaximum"].get<double>();
        r.openMax = true;
    }
    return r;
}

bool sameRange(const format::Range& a, const format::Range& b) {
    return a.min == b.min && a.max == b.max && a.openMin == b.openMin && a.openMax == b.openMax;
}

// A number a scene may bind to design variables: the number, or text "=expression". A design
// variable's own numbers and the file's version are numbers only.
bool bindable(const json& node, const std::string& kind) {
    return node.value("type", json()) == json::array({kind, "string"}) &&
           node.value("pattern", "") == "^=";
}
// A force law: the number (bindable), or {"table": name}.
bool law(const json& node) {
    return node.value("type", json()) == json::array({"number", "string", "object"}) &&
           node.value("pattern", "") == "^=" && node.value("required", json()) == json({"table"}) &&
           node.contains("properties") && node["properties"].contains("table") &&
           node.value("additionalProperties", true) == false;
}

TEST(SceneFormat, TheSchemaHasTheKindRangeAndDefaultOfEveryKey) {
    using K = format::Rule::Kind;
    for (const Place& place : everyPlace()) {
        const std::optional<json> found = schemaNode(place);
        ASSERT_TRUE(found) << place.name() << " is not in the schema";
        const json& node = *found;
        const format::Rule rule = place.field->rule();
        const json type = node.value("type", json());
        switch (rule.kind) {
        case K::Number:
        case K::Integer:
            if (place.object->name == "designVariable" ||
                (place.object->name == "scene" &&
                 (place.field->key == "version" || place.field->key == "minorVersion")))
                EXPECT_EQ(type, rule.kind == K::Number ? "number" : "integer") << place.name();
            else if (rule.orTable)
                EXPECT_TRUE(law(node)) << place.name();
            else
                EXPECT_TRUE(bindable(node, rule.kind == K::Number ? "number" : "integer"))
                    << place.name();
            EXPECT_TRUE(sameRange(schemaRange(node), rule.range))
                << place.name() << ": the schema's range is not " << rule.range.text();
            break;
        case K::Bool:
            EXPECT_EQ(type, "boolean") << place.name();
            break;
        case K::String:
            EXPECT_EQ(type, "string") << place.name();
            break;
        case K::Word: {
            std::vector<std::string> words;
            if (node.contains("const")) words.push_back(node["const"].get<std::string>());
            if (node.contains("enum")) words = node["enum"].get<std::vector<std::string>>();
            std::set<std::string> expected(rule.words.begin(), rule.words.end());
            // A variant object's type: each alternative of the schema takes some of the types.
            if (!place.variant.empty() && place.field->key == "type") {
                EXPECT_TRUE(std::find(words.begin(), words.end(), place.variant) != words.end())
                    << place.name();
                for (const std::string& w : words) EXPECT_TRUE(expected.count(w)) << w;
                break;
            }
            EXPECT_EQ(std::set<std::string>(words.begin(), words.end()), expected) << place.name();
            break;
        }
        case K::Vector3: {
            EXPECT_EQ(type, "array") << place.name();
            EXPECT_EQ(node.value("minItems", 0), 3) << place.name();
            EXPECT_EQ(node.value("maxItems", 0), 3) << place.name();
            const json items = resolved(node.value("items", json::object()));
            EXPECT_TRUE(rule.orTable ? law(items) : bindable(items, "number")) << place.name();
            EXPECT_TRUE(sameRange(schemaRange(items), rule.range))
                << place.name() << ": the schema's range is not " << rule.range.text();
            break;
        }
        case K::Expression:
            EXPECT_EQ(type, json::array({"number", "string"})) << place.name();
            break;
        case K::Object:
            EXPECT_TRUE(type == "object" || node.contains("properties")) << place.name();
            break;
        case K::Array:
            EXPECT_EQ(type, "array") << place.name();
            break;
        case K::Any:
            break;
        }
        if (place.field->value.empty()) {
            EXPECT_FALSE(node.contains("default")) << place.name();
        } else {
            EXPECT_EQ(node.value("default", json()), json::parse(place.field->value))
                << place.name() << ": the schema's default";
        }
    }
}

}  // namespace
}  // namespace engine::io
