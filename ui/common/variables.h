#pragma once
// The scene's variables (named expressions of the mechanism's state, SceneSpec::variables) and
// sensors (SceneSpec::sensors) as the GUI edits them: a new one, one renamed (a variable with
// every expression that reads it), one deleted. Variables and sensors have no EntityId: the
// GUI knows them by their place in their list.

#include <optional>
#include <string>
#include <vector>

#include "engine/model/scene_spec.h"

namespace ui {

// Adds a variable "v1" (else "v2", ...: the first name no variable has) of value 0 at the end
// of the list; returns its index.
int addVariable(engine::SceneSpec& spec);

// Renames variable `index` to `name` and rewrites the expressions that read it (the forces'
// the other variables' and the sensors'); false when there is no such variable. A name inside a measure's
// arguments ("DM(v1.m)": a part) or next to a '.' is a part's or a marker's, not the variable.
// The new name is checked by validate(), not here.
bool renameVariable(engine::SceneSpec& spec, int index, const std::string& name);

// Renames design variable `index` to `name`, in the fields bound to it and in every expression
// that reads it (variables, forces, sensors, motions, moving frames); false when there is no
// such design variable. The new name is checked by validate(), not here.
bool renameDesignVariable(engine::SceneSpec& spec, int index, const std::string& name);

// `text` with every use of the variable `from` read as `to` (as renameVariable does).
std::string renamedInExpression(const std::string& text, const std::string& from,
                                const std::string& to);

// `text` with every call of the function `from` ("from(x)") read as a call of `to`: how renaming
// a table reaches the expressions that read it.
std::string renamedCallInExpression(const std::string& text, const std::string& from,
                                    const std::string& to);

// Adds a table "table1" (else "table2", ...) of the line y = x through (0, 0) and (1, 1),
// interpolated by Akima's spline, at the end of the list; returns its index.
int addTable(engine::SceneSpec& spec);
// Renames table `index` to `name`, in the force laws that take it and in every expression that
// calls it; false when there is no such table. The new name is checked by validate().
bool renameTable(engine::SceneSpec& spec, int index, const std::string& name);
// What uses table `name`: the force laws ("force spring: stiffness") and the expressions that
// call it ("variable v1"), one entry each.
std::vector<std::string> tableUsers(const engine::SceneSpec& spec, const std::string& name);

// Adds a sensor "sensor1" (else "sensor2", ...: the first name no sensor has) watching "0"
// cross 0 either way and stopping the run, at the end of the list; returns its index.
int addSensor(engine::SceneSpec& spec);

// A sensor's direction and action as the scene format writes them ("either", "rising",
// "falling"; "stop", "mark"), and back (nullopt: no such word).
std::string sensorDirectionName(engine::SensorDirection direction);
std::optional<engine::SensorDirection> sensorDirectionFromName(const std::string& name);
std::string sensorActionName(engine::SensorAction action);
std::optional<engine::SensorAction> sensorActionFromName(const std::string& name);

}  // namespace ui
