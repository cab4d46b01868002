#include "ui/common/variables.h"

#include <cctype>

#include "engine/io/design_variables.h"
#include "engine/model/state_functions.h"

namespace ui {
namespace {

bool nameStart(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool nameChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool digit(char c) {
    return std::isdigit(static_cast<unsigned char>(c));
}

}  // namespace

int addVariable(engine::SceneSpec& spec) {
    auto taken = [&](const std::string& name) {
        for (const engine::VariableSpec& v : spec.variables)
            if (v.name == name) return true;
        return false;
    };
    std::string name;
    for (int k = 1; name.empty() || taken(name); ++k) name = "v" + std::to_string(k);
    engine::VariableSpec variable;
    variable.name = name;
    variable.expression = "0";
    spec.variables.push_back(variable);
    return static_cast<int>(spec.variables.size()) - 1;
}

std::string renamedInExpression(const std::string& text, const std::string& from,
                                const std::string& to) {
    std::string out;
    std::size_t k = 0;
    while (k < text.size()) {
        const char c = text[k];
        // A number with its exponent and postfix (1e5, 90d) holds no name.
        if (digit(c) || (c == '.' && k + 1 < text.size() && digit(text[k + 1]))) {
            const std::size_t start = k;
            while (k < text.size() && (digit(text[k]) || text[k] == '.')) ++k;
            if (k < text.size() && (text[k] == 'e' || text[k] == 'E')) {
                std::size_t e = k + 1;
                if (e < text.size() && (text[e] == '+' || text[e] == '-')) ++e;
                if (e < text.size() && digit(text[e])) {
                    k = e;
                    while (k < text.size() && digit(text[k])) ++k;
                }
            }
            while (k < text.size() && nameChar(text[k])) ++k;  // a postfix: 90d
            out += text.substr(start, k - start);
            continue;
        }
        if (!nameStart(c)) {
            out += c;
            ++k;
            continue;
        }
        const std::size_t start = k;
        while (k < text.size() && nameChar(text[k])) ++k;
        const std::string name = text.substr(start, k - start);
        std::size_t next = k;
        while (next < text.size() && std::isspace(static_cast<unsigned char>(text[next]))) ++next;
        const bool call = next < text.size() && text[next] == '(';
        // A measure's arguments name parts, markers and joints: kept as written.
        if (call && engine::measureKindFromName(name)) {
            const std::size_t close = text.find(')', next);
            const std::size_t end = close == std::string::npos ? text.size() : close + 1;
            out += text.substr(start, end - start);
            k = end;
            continue;
        }
        const bool dotted =
            (start > 0 && text[start - 1] == '.') || (k < text.size() && text[k] == '.');
        out += name == from && !call && !dotted ? to : name;
    }
    return out;
}

bool renameVariable(engine::SceneSpec& spec, int index, const std::string& name) {
    if (index < 0 || index >= static_cast<int>(spec.variables.size())) return false;
    const std::string old = spec.variables[static_cast<std::size_t>(index)].name;
    spec.variables[static_cast<std::size_t>(index)].name = name;
    if (old.empty() || old == name) return true;
    for (engine::VariableSpec& v : spec.variables)
        v.expression = renamedInExpression(v.expression, old, name);
    for (engine::ForceSpec& force : spec.forces)
        for (std::string& component : force.components)
            component = renamedInExpression(component, old, name);
    for (engine::SensorSpec& s : spec.sensors) {
        s.expression = renamedInExpression(s.expression, old, name);
        s.to = renamedInExpression(s.to, old, name);
        if (s.action == engine::SensorAction::Set && s.target == old) s.target = name;
    }
    return true;
}

bool renameDesignVariable(engine::SceneSpec& spec, int index, const std::string& name) {
    if (index < 0 || index >= static_cast<int>(spec.designVariables.size())) return false;
    const std::string old = spec.designVariables[static_cast<std::size_t>(index)].name;
    spec.designVariables[static_cast<std::size_t>(index)].name = name;
    if (old.empty() || old == name) return true;
    engine::io::renameDesignVariableInBindings(spec, old, name);
    auto rename = [&](std::string& text) { text = renamedInExpression(text, old, name); };
    for (engine::VariableSpec& v : spec.variables) rename(v.expression);
    for (engine::ForceSpec& force : spec.forces)
        for (std::string& component : force.components) rename(component);
    for (engine::SensorSpec& s : spec.sensors) {
        rename(s.expression);
        rename(s.to);
    }
    for (engine::MotionSpec& m : spec.motions) rename(m.expression);
    for (engine::Part& part : spec.parts)
        if (part.frameMotion)
            for (int c = 0; c < 3; ++c) {
                rename(part.frameMotion->translation[c]);
                rename(part.frameMotion->rotation[c]);
            }
    return true;
}

int addSensor(engine::SceneSpec& spec) {
    auto taken = [&](const std::string& name) {
        for (const engine::SensorSpec& s : spec.sensors)
            if (s.name == name) return true;
        return false;
    };
    std::string name;
    for (int k = 1; name.empty() || taken(name); ++k) name = "sensor" + std::to_string(k);
    engine::SensorSpec sensor;
    sensor.name = name;
    sensor.expression = "0";
    sensor.value = 0.0;
    sensor.direction = engine::SensorDirection::Either;
    sensor.action = engine::SensorAction::Stop;
    spec.sensors.push_back(sensor);
    return static_cast<int>(spec.sensors.size()) - 1;
}

std::string sensorDirectionName(engine::SensorDirection direction) {
    switch (direction) {
    case engine::SensorDirection::Rising:
        return "rising";
    case engine::SensorDirection::Falling:
        return "falling";
    case engine::SensorDirection::Either:
        break;
    }
    return "either";
}

std::optional<engine::SensorDirection> sensorDirectionFromName(const std::string& name) {
    if (name == "either") return engine::SensorDirection::Either;
    if (name == "rising") return engine::SensorDirection::Rising;
    if (name == "falling") return engine::SensorDirection::Falling;
    return std::nullopt;
}

std::string sensorActionName(engine::SensorAction action) {
    return std::string(engine::sensorActionName(action));
}

std::optional<engine::SensorAction> sensorActionFromName(const std::string& name) {
    for (const engine::SensorAction a :
         {engine::SensorAction::Stop, engine::SensorAction::Mark, engine::SensorAction::Set,
          engine::SensorAction::SwitchOn, engine::SensorAction::SwitchOff})
        if (engine::sensorActionName(a) == name) return a;
    return std::nullopt;
}

}  // namespace ui
