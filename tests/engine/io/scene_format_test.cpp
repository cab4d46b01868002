// The scene format is described once (engine/io/scene_format.h); the reader takes its keys from
// the description, and these tests fail when the JSON Schema, the writer or the field tables of
// docs/scene-format.md disagree with it.

#include "engine/io/scene_format.h"

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
        if (name == "force") id += ":" + j.at("type").get<std::string>();
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
            each(j, "plots", "plot");
        } else if (name == "contact") {
            each(j, "pairs", "contactPair");
        } else if (name == "part") {
            each(j, "geometry", "shape");
            each(j, "markers", "marker");
            if (j.contains("material")) visit(j["material"], "material");
            if (j.contains("collision")) visit(j["collision"], "collision");
        } else if (name == "joint") {
            if (j.contains("soft")) visit(j["soft"], "soft");
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

}  // namespace
}  // namespace engine::io
