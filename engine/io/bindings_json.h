#pragma once
// The reader's and the writer's side of design-variable bindings (engine/io/design_variables.h),
// on the JSON document. Included by the scene reader and writer only.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/model/diagnostic.h"
#include "engine/model/scene_spec.h"

namespace engine::io::detail {

// A binding as the reader found it: the field's pointer from the file's root, the expression
// (without '='), the pointer of what holds the field and that holder's text in the file.
struct FoundBinding {
    std::string pointer;
    std::string expression;
    std::string group;
    std::string groupJson;  // empty: the holder is an object that can be made anew
};

// Replaces each "=expression" string of the document (not in names, descriptions or the design
// variables themselves) by the expression's value over the design variables the document
// defines; each one that cannot be evaluated is an error at its pointer (and becomes 0).
std::vector<FoundBinding> resolveBindings(nlohmann::json& root, Diagnostics& out);

// Names each found binding from the entity of `spec` holding it (spec.bindings).
void attachBindings(SceneSpec& spec, const std::vector<FoundBinding>& found);

// The written document `j` (numbers only) with the bindings of `spec` put back, each one that
// still holds (the document read back gives the same scene): those whose field an edit replaced
// are left as numbers.
void putBindings(const SceneSpec& spec, nlohmann::ordered_json& j);

}  // namespace engine::io::detail
