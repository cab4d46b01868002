#pragma once
// Design variables: named numbers (SceneSpec::designVariables) that numeric fields of a scene
// are bound to. In a scene file a bound field holds "=" and an expression of the design
// variables instead of its number: "length": "=L_crank", "position": ["=L_crank/2", 0, 0],
// "angleDeg": "=tilt". The reader evaluates each binding and keeps it (SceneSpec::bindings,
// named from the entity holding the field so that it follows the entity through edits); the
// writer writes the expression back for every field that still holds its binding's value. A
// field edited to another number is no longer bound: the edit wins, and the file then keeps
// the number.
//
// Changing a design variable re-evaluates every binding and reads the scene anew, with every
// check a file gets (a crank length that makes the mechanism impossible is then reported as
// the scene's error). Studies (motus-cli batch, the GUI's study table) set a design variable
// by its name as a column of their cases.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/scene_spec.h"

namespace engine::io {

// A bound field as a user sees it: where it is in the scene file, what it is bound to and its
// value now.
struct BoundField {
    std::string pointer;     // "/parts/1/markers/0/position/0"
    std::string expression;  // "L_crank/2", without the '='
    double value = 0.0;
};

// The fields of `spec` that hold their bindings (those an edit replaced are left out), in the
// order of the bindings.
std::vector<BoundField> boundFields(const SceneSpec& spec);

// The binding of the field at `pointer`, when it holds one.
std::optional<BoundField> boundFieldAt(const SceneSpec& spec, const std::string& pointer);

// Gives design variables new values (name, value) and re-evaluates every bound field. The scene
// is read anew from its file form (mesh files looked up in `baseDirectory`, the meshes already
// read reused), keeping every entity's id. False with `error` ("/parts/1/mass: …") when a name
// is no design variable or the scene with the new values cannot be read; `spec` then stays as
// it was. Semantic problems (a mass that became negative) are left to validate(), as for any
// edit.
bool setDesignVariables(SceneSpec& spec, const std::vector<std::pair<std::string, double>>& values,
                        const std::string& baseDirectory, std::string& error);

// Binds the numeric field at `pointer` (as boundFields names them) to `expression` (without the
// '='), the field taking its value. False with `error` when the expression is not one of the
// design variables or the field takes no number.
bool bindField(SceneSpec& spec, const std::string& pointer, const std::string& expression,
               const std::string& baseDirectory, std::string& error);

// Frees the field at `pointer` from its binding; it keeps its value. False when it had none.
bool unbindField(SceneSpec& spec, const std::string& pointer);

// Renames a design variable in every binding that reads it (the variable itself is renamed by
// the caller).
void renameDesignVariableInBindings(SceneSpec& spec, const std::string& from,
                                    const std::string& to);

// Why `name` cannot name a new design variable of `spec` (empty when it can): the rules of
// variables' names, and unique among design variables and variables.
std::string designVariableNameError(const SceneSpec& spec, const std::string& name);

}  // namespace engine::io
