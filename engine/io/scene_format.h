#pragma once
// The scene format described once: every object of a scene file ("motus-scene", version 1) and
// every key it may have, with its type and unit, whether it is required, its default and its
// meaning. The reader takes each object's keys from here (an unknown key is an error that lists
// them); the field tables of docs/scene-format.md are these descriptions printed as Markdown
// (markdownTable). Each key also says, for machines, what values it takes (`check`: a kind and a
// range or a list of words) and its default as JSON (`value`). The tests hold the reader's type
// checks, validate()'s ranges, the writer's defaults, resources/scene.schema.json and the
// Properties panel's rows to these, so none of them can disagree with the description.

#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace engine::io::format {

// The numbers a key accepts: [min, max], either end open; unbounded by default.
struct Range {
    double min = -std::numeric_limits<double>::infinity();
    double max = std::numeric_limits<double>::infinity();
    bool openMin = false, openMax = false;

    bool bounded() const {
        return min > -std::numeric_limits<double>::infinity() ||
               max < std::numeric_limits<double>::infinity();
    }
    bool contains(double x) const {
        return (openMin ? x > min : x >= min) && (openMax ? x < max : x <= max);
    }
    // "> 0", "≥ 0", "0 to 1", "3 to 64"; empty when unbounded.
    std::string text() const;
};

// What a key's value is, as the reader and validate() check it.
struct Rule {
    enum class Kind {
        Any,         // checked by hand: inertia, bits, a quaternion, force components
        Number,      // a JSON number in `range`
        Integer,     // a JSON integer in `range`
        Bool,        // true or false
        String,      // any text (names, references, files and colours are checked further)
        Word,        // one of `words`
        Vector3,     // three numbers, each in `range`
        Expression,  // a number or an expression of time (text)
        Object,      // a JSON object of keys of its own
        Array,       // a JSON array
    };
    Kind kind = Kind::Any;
    Range range = {};
    // A force law (Number, Vector3: each item): the number, or {"table": name}, the law a table
    // of the scene gives ("number >=0 table").
    bool orTable = false;
    std::vector<std::string_view> words = {};
};

struct Field {
    std::string_view key;
    std::string_view type;  // what the value is, with its unit: "number, kg", "[x, y, z] m"
    // For machines: the kind ("number", "integer", "bool", "string", "enum", "vec3",
    // "expression", "object", "array"; empty: checked by hand) and its range (">0", ">=1",
    // "0..1") or, for "enum", its words: "number >0", "integer 3..64", "enum pgs lemke"; "table"
    // after a number's or a vec3's range: a force law, also {"table": name}.
    std::string_view check;
    // The default as JSON text ("0.001", "[0, 0, 0]", "\"box\""); empty when the key has none or
    // its default depends on other keys.
    std::string_view value;
    std::string_view required;  // "yes", "no", or when: "distance joints"
    std::string_view fallback;  // the default as documented ("—": none)
    std::string_view meaning;
    // For objects whose keys depend on their `type` (forces): the types that take the key,
    // separated by spaces; empty: every type.
    std::string_view variants = {};

    Rule rule() const;  // `check` read
};

struct ObjectFormat {
    std::string_view name;    // "part", "force", ...
    std::string_view schema;  // JSON pointer of its definition in resources/scene.schema.json
    std::vector<Field> fields;
    // The types of a variant object (forces), empty otherwise.
    std::vector<std::string_view> variants;

    // The keys of the object, or of one of its types.
    std::vector<std::string_view> keys(std::string_view variant = {}) const;
    // The field called `key`; throws std::out_of_range for a key the object does not have.
    const Field& field(std::string_view key) const;
};

// Every object of the format, the scene itself first.
const std::vector<ObjectFormat>& sceneFormat();
// The object called `name`; throws std::out_of_range for a name the format does not have.
const ObjectFormat& object(std::string_view name);
// The object called `name`, or nullptr.
const ObjectFormat* findObject(std::string_view name);

// The object's field table as docs/scene-format.md shows it (a line per key).
std::string markdownTable(const ObjectFormat& object);

}  // namespace engine::io::format
