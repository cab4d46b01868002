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

namespace {

// `text` with the name `from` read as `to`: as a variable's name (`call` false) or as a
// function's, called (`call` true).
std::string renamed(const std::string& text, const std::string& from, const std::string& to,
                    bool calls);

}  // namespace

std::string renamedInExpression(const std::string& text, const std::string& from,
                                const std::string& to) {
    return renamed(text, from, to, false);
}

std::string renamedCallInExpression(const std::string& text, const std::string& from,
                                    const std::string& to) {
    return renamed(text, from, to, true);
}

namespace {

std::string renamed(const std::string& text, const std::string& from, const std::string& to,
                    bool calls) {
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
        out += name == from && call == calls && !dotted ? to : name;
    }
    return out;
}

// Every expression of the scene, with what it belongs to ("force spring", "variable v1").
// (`Spec` a SceneSpec, const or not: `visit` takes the text as such.)
template <class Spec, class Visit>
void forEachExpression(Spec& spec, const Visit& visit) {
    for (auto& v : spec.variables) visit(v.expression, "variable " + v.name);
    for (auto& force : spec.forces)
        for (auto& component : force.components) visit(component, "force " + force.name);
    for (auto& sensor : spec.sensors) {
        visit(sensor.expression, "sensor " + sensor.name);
        visit(sensor.to, "sensor " + sensor.name);
    }
    for (auto& m : spec.motions) visit(m.expression, "motion " + m.name);
    for (auto& part : spec.parts)
        if (part.frameMotion)
            for (int c = 0; c < 3; ++c) {
                visit(part.frameMotion->translation[c], "moving frame " + part.name);
                visit(part.frameMotion->rotation[c], "moving frame " + part.name);
            }
}

// Every force law that may name a table, with its force and what it is ("stiffness").
template <class Spec, class Visit>
void forEachLaw(Spec& spec, const Visit& visit) {
    static const char* const axes[3] = {"x", "y", "z"};
    for (auto& f : spec.forces) {
        const std::string of = "force " + f.name + ": ";
        visit(f.stiffnessTable, of + "stiffness");
        visit(f.dampingTable, of + "damping");
        for (int a = 0; a < 3; ++a) {
            const auto i = static_cast<std::size_t>(a);
            visit(f.translationalStiffnessTables[i], of + "translational stiffness " + axes[a]);
            visit(f.translationalDampingTables[i], of + "translational damping " + axes[a]);
            visit(f.rotationalStiffnessTables[i], of + "rotational stiffness " + axes[a]);
            visit(f.rotationalDampingTables[i], of + "rotational damping " + axes[a]);
        }
    }
}

}  // namespace

int addTable(engine::SceneSpec& spec) {
    std::string name;
    for (int k = 1; name.empty() || spec.findTable(name); ++k) name = "table" + std::to_string(k);
    engine::TableSpec table;
    table.name = name;
    table.interpolation = engine::TableInterpolation::Akima;
    table.x = {0.0, 1.0};
    table.y = {0.0, 1.0};
    spec.tables.push_back(table);
    return static_cast<int>(spec.tables.size()) - 1;
}

bool renameTable(engine::SceneSpec& spec, int index, const std::string& name) {
    if (index < 0 || index >= static_cast<int>(spec.tables.size())) return false;
    const std::string old = spec.tables[static_cast<std::size_t>(index)].name;
    spec.tables[static_cast<std::size_t>(index)].name = name;
    if (old.empty() || old == name) return true;
    forEachExpression(spec, [&](std::string& text, const std::string&) {
        text = renamedCallInExpression(text, old, name);
    });
    forEachLaw(spec, [&](std::string& table, const std::string&) {
        if (table == old) table = name;
    });
    return true;
}

std::vector<std::string> tableUsers(const engine::SceneSpec& spec, const std::string& name) {
    std::vector<std::string> users;
    forEachLaw(spec, [&](const std::string& table, const std::string& what) {
        if (table == name) users.push_back(what);
    });
    forEachExpression(spec, [&](const std::string& text, const std::string& what) {
        if (renamedCallInExpression(text, name, name + "\x01") != text &&
            (users.empty() || users.back() != what))
            users.push_back(what);
    });
    return users;
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
