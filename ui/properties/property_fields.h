#pragma once
// The rows of the Properties panel, as data: for the entity shown, one PropertyField per
// editable quantity (label, unit, scale, scene-format key, and how it reads and writes a copy
// of the scene), made by one function per kind of entity (property_fields.cpp). The panel
// (properties_panel.h) builds an editor per field and turns what is typed into an edit.

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <QString>
#include <QStringList>

#include "engine/model/scene_spec.h"

namespace engine::io::format {
struct Field;
}

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QWidget;

namespace ui {

class ExpressionEditor;

using Numbers = std::array<double, 3>;

// One editable quantity: a number, three numbers, a text, a switch, a choice, an expression,
// a colour, a list of points; or a line of information, a button, a heading. Numbers are shown
// in `scale` × their SI value (degrees for angles).
struct PropertyField {
    enum class Kind {
        Number,
        Vector,
        Text,
        Switch,
        Choice,
        Expression,
        Colour,
        Points,  // a text of one point a line, "x, y, z" (getText, setText, checkText)
        Info,
        Button,
        Heading
    };
    Kind kind = Kind::Number;
    QString label, unit, key;
    // What the scene format says of `key` (engine/io/scene_format.h): its kind, range, default
    // and meaning; nullptr for a row of the panel's own ("massProperties").
    const engine::io::format::Field* format = nullptr;
    QString help;  // the tooltip of the row: the format's meaning, default and range
    double scale = 1.0;
    bool integer = false;
    std::function<Numbers(const engine::SceneSpec&)> getNumbers;
    std::function<void(engine::SceneSpec&, const Numbers&)> setNumbers;
    std::function<std::string(const engine::SceneSpec&)> getText;
    std::function<void(engine::SceneSpec&, const std::string&)> setText;
    std::function<QString(const std::string&)> checkText;  // a reason to refuse the text, or empty
    std::function<bool(const engine::SceneSpec&)> getSwitch;
    std::function<void(engine::SceneSpec&, bool)> setSwitch;
    std::function<void(bool)> local;  // a switch of the panel's own (no edit)
    QStringList choices;
    // An expression of time and of the mechanism's state (a force's, a variable's): measures
    // and the scene's variables are checked against the scene (engine::parseStateExpression).
    bool ofState = false;
    // An expression of another variable than time (a curve's "s"), checked on its range.
    QString variable;
    double rangeStart = 0.0, rangeEnd = 0.0;
    // That variable's unit, and whether the expression is plotted over its range (a table's
    // curve).
    QString variableUnit;
    bool plotted = false;
    std::function<void(engine::SceneSpec&)> action;  // a button's edit
    QString info;
    QLineEdit* edits[3] = {nullptr, nullptr, nullptr};
    QPlainTextEdit* lines = nullptr;  // Points
    QCheckBox* check = nullptr;
    QComboBox* combo = nullptr;
    ExpressionEditor* expression = nullptr;
    QPushButton* button = nullptr;
    QLabel* infoLabel = nullptr;
    QLabel* message = nullptr;

    // Takes the accessors of an identical field defined for the scene as it is now.
    void adopt(const PropertyField& from) {
        getNumbers = from.getNumbers;
        setNumbers = from.setNumbers;
        getText = from.getText;
        setText = from.setText;
        checkText = from.checkText;
        getSwitch = from.getSwitch;
        setSwitch = from.setSwitch;
        local = from.local;
        action = from.action;
        info = from.info;
        integer = from.integer;
        rangeStart = from.rangeStart;
        rangeEnd = from.rangeEnd;
    }
};

// What the fields depend on besides the scene.
struct FieldOptions {
    int shape = 0;                                    // 1-based: one shape of a part only
    bool markerInWorld = false;                       // a marker's pose in the world's axes
    std::function<void(bool)> setMarkerInWorld = {};  // the panel's own switch
    QWidget* dialogParent = nullptr;                  // for a file asked for (a mesh)
    // ≥ 0: the scene's variable of that index instead of an entity (variables have no id).
    int variable = -1;
    // ≥ 0: the scene's sensor of that index (sensors have no id either).
    int sensor = -1;
    // ≥ 0: the scene's table of that index (nor have tables).
    int table = -1;
};

// The fields of entity `id` of `spec` (kNoEntity: the scene's settings; options.variable: a
// variable; options.sensor: a sensor) into `fields`; returns the panel's title for it.
QString defineFields(const engine::SceneSpec& spec, engine::EntityId id,
                     const FieldOptions& options,
                     std::vector<std::unique_ptr<PropertyField>>& fields);

// The scene-format field a row edits: `object` is the entity's object in the format ("part",
// "force", "scene"), `variant` a force's type, `key` the row's ("mass", "soft.frequency",
// "shape.radius", "settings.stepSize", "inertia.products", "components.y"); nullptr when the
// format has no such key.
const engine::io::format::Field* formatField(std::string_view object, std::string_view variant,
                                             std::string_view key);

// A number as a field shows it: 6 significant digits, −0 and round-off shown as 0.
QString numberText(double value);

}  // namespace ui
