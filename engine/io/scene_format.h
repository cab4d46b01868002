#pragma once
// The scene format described once: every object of a scene file ("motus-scene", version 1) and
// every key it may have, with its type and unit, whether it is required, its default and its
// meaning. The reader takes each object's keys from here (an unknown key is an error that lists
// them); the field tables of docs/scene-format.md are these descriptions printed as Markdown
// (markdownTable); the tests check resources/scene.schema.json and the writer against them, so
// the reader, the writer, the schema and the documentation cannot disagree.

#include <string>
#include <string_view>
#include <vector>

namespace engine::io::format {

struct Field {
    std::string_view key;
    std::string_view type;      // what the value is, with its unit: "number, kg", "[x, y, z] m"
    std::string_view required;  // "yes", "no", or when: "distance joints"
    std::string_view fallback;  // the default as documented ("—": none)
    std::string_view meaning;
    // For objects whose keys depend on their `type` (forces): the types that take the key,
    // separated by spaces; empty: every type.
    std::string_view variants = {};
};

struct ObjectFormat {
    std::string_view name;    // "part", "force", ...
    std::string_view schema;  // JSON pointer of its definition in resources/scene.schema.json
    std::vector<Field> fields;
    // The types of a variant object (forces), empty otherwise.
    std::vector<std::string_view> variants;

    // The keys of the object, or of one of its types.
    std::vector<std::string_view> keys(std::string_view variant = {}) const;
};

// Every object of the format, the scene itself first.
const std::vector<ObjectFormat>& sceneFormat();
// The object called `name`; throws std::out_of_range for a name the format does not have.
const ObjectFormat& object(std::string_view name);

// The object's field table as docs/scene-format.md shows it (a line per key).
std::string markdownTable(const ObjectFormat& object);

}  // namespace engine::io::format
