#pragma once
// The builders of the Properties rows (property_fields.h) and what they share: entities found
// by id on a copy of the scene, angles as roll, pitch and yaw, numbers as fields show them.
// Private to ui/properties: the rows of parts and markers (part_fields.cpp) and of the other
// entities and the scene (property_fields.cpp).

#include <algorithm>
#include <optional>

#include <QCoreApplication>
#include <QStringList>

#include "engine/model/edit.h"
#include "ui/common/text.h"
#include "ui/properties/property_fields.h"

namespace ui::fields {

using engine::SceneSpec;

inline QString tr(const char* text) {
    return QCoreApplication::translate("ui::PropertiesPanel", text);
}

inline constexpr double kDeg = engine::radToDeg(1.0);
using engine::SceneSpec;

// Entities by id, for the field accessors (which run on a copy of the scene).
template <class Spec>
inline auto* partOf(Spec& spec, engine::EntityId id) {
    for (auto& p : spec.parts)
        if (p.id == id) return &p;
    return static_cast<decltype(&spec.parts[0])>(nullptr);
}
template <class Spec>
inline auto* markerOf(Spec& spec, engine::EntityId id) {
    for (auto& p : spec.parts)
        for (auto& m : p.markers)
            if (m.id == id) return &m;
    return static_cast<decltype(&spec.parts[0].markers[0])>(nullptr);
}
template <class Spec>
inline auto* markerPartOf(Spec& spec, engine::EntityId id) {
    for (auto& p : spec.parts)
        for (auto& m : p.markers)
            if (m.id == id) return &p;
    return static_cast<decltype(&spec.parts[0])>(nullptr);
}
template <class List>
inline auto* byId(List& list, engine::EntityId id) {
    for (auto& e : list)
        if (e.id == id) return &e;
    return static_cast<decltype(&list[0])>(nullptr);
}

// Roll, pitch, yaw [rad] with R = Rz(yaw) Ry(pitch) Rx(roll), and back.
inline Numbers rpyOf(const engine::Quat& q) {
    const engine::Vec3 ypr = q.toRotationMatrix().eulerAngles(2, 1, 0);
    return {ypr.z(), ypr.y(), ypr.x()};
}
inline engine::Quat quatOf(const Numbers& rpy) {
    return (Eigen::AngleAxisd(rpy[2], engine::Vec3::UnitZ()) *
            Eigen::AngleAxisd(rpy[1], engine::Vec3::UnitY()) *
            Eigen::AngleAxisd(rpy[0], engine::Vec3::UnitX()))
        .normalized();
}
inline Numbers toNumbers(const engine::Vec3& v) {
    return {v.x(), v.y(), v.z()};
}
inline engine::Vec3 toVec(const Numbers& n) {
    return {n[0], n[1], n[2]};
}

inline QString colourText(std::uint32_t rgb) {
    return QStringLiteral("#%1").arg(rgb & 0xffffffu, 6, 16, QLatin1Char('0'));
}

// Collision bits as typed: decimal or 0x hexadecimal, 32 bits.
inline std::optional<std::uint32_t> parseBits(const std::string& text) {
    bool ok = false;
    const qulonglong v = QString::fromStdString(text).toULongLong(&ok, 0);
    if (!ok || v > 0xffffffffull) return std::nullopt;
    return static_cast<std::uint32_t>(v);
}

inline QStringList allMarkers(const SceneSpec& spec) {
    QStringList out;
    for (const engine::Part& p : spec.parts)
        for (const engine::Marker& m : p.markers) out << toQString(p.name + "." + m.name);
    return out;
}

inline engine::MarkerRef markerRefOf(const std::string& text) {
    const auto dot = text.find('.');
    if (dot == std::string::npos) return {text, ""};
    return {text.substr(0, dot), text.substr(dot + 1)};
}

inline QString number(double v) {
    return numberText(v);
}

// The builders of the fields of one entity, each adding one row.
class FieldList {
public:
    FieldList(const SceneSpec& spec, engine::EntityId id,
              std::vector<std::unique_ptr<PropertyField>>& fields)
        : spec(spec), id(id), fields(fields) {}

    PropertyField& add(PropertyField f) {
        if (!f.key.isEmpty()) f.format = formatField(object, variant, f.key.toStdString());
        fields.push_back(std::make_unique<PropertyField>(std::move(f)));
        return *fields.back();
    }
    PropertyField& number(QString label, QString unit, double scale, QString key,
                          std::function<double(const SceneSpec&)> get,
                          std::function<void(SceneSpec&, double)> set) {
        PropertyField f;
        f.kind = PropertyField::Kind::Number;
        f.label = std::move(label);
        f.unit = std::move(unit);
        f.key = std::move(key);
        f.scale = scale;
        f.getNumbers = [get](const SceneSpec& s) { return Numbers{get(s), 0.0, 0.0}; };
        f.setNumbers = [set](SceneSpec& s, const Numbers& n) { set(s, n[0]); };
        return add(std::move(f));
    }
    PropertyField& vector(QString label, QString unit, double scale, QString key,
                          std::function<Numbers(const SceneSpec&)> get,
                          std::function<void(SceneSpec&, const Numbers&)> set) {
        PropertyField f;
        f.kind = PropertyField::Kind::Vector;
        f.label = std::move(label);
        f.unit = std::move(unit);
        f.key = std::move(key);
        f.scale = scale;
        f.getNumbers = std::move(get);
        f.setNumbers = std::move(set);
        return add(std::move(f));
    }
    PropertyField& text(QString label, QString key,
                        std::function<std::string(const SceneSpec&)> get,
                        std::function<void(SceneSpec&, const std::string&)> set,
                        QString unit = QString()) {
        PropertyField f;
        f.kind = PropertyField::Kind::Text;
        f.label = std::move(label);
        f.key = std::move(key);
        f.unit = std::move(unit);
        f.getText = std::move(get);
        f.setText = std::move(set);
        return add(std::move(f));
    }
    PropertyField& toggle(QString label, QString key, std::function<bool(const SceneSpec&)> get,
                          std::function<void(SceneSpec&, bool)> set) {
        PropertyField f;
        f.kind = PropertyField::Kind::Switch;
        f.label = std::move(label);
        f.key = std::move(key);
        f.getSwitch = std::move(get);
        f.setSwitch = std::move(set);
        return add(std::move(f));
    }
    PropertyField& choice(QString label, QString key, QStringList choices,
                          std::function<std::string(const SceneSpec&)> get,
                          std::function<void(SceneSpec&, const std::string&)> set) {
        PropertyField& f = text(std::move(label), std::move(key), std::move(get), std::move(set));
        f.kind = PropertyField::Kind::Choice;
        f.choices = std::move(choices);
        return f;
    }
    PropertyField& expression(QString label, QString key, QString unit,
                              std::function<std::string(const SceneSpec&)> get,
                              std::function<void(SceneSpec&, const std::string&)> set) {
        PropertyField& f =
            text(std::move(label), std::move(key), std::move(get), std::move(set), std::move(unit));
        f.kind = PropertyField::Kind::Expression;
        return f;
    }
    PropertyField& info(QString label, QString text) {
        PropertyField f;
        f.kind = PropertyField::Kind::Info;
        f.label = std::move(label);
        f.info = std::move(text);
        return add(std::move(f));
    }
    void button(QString label, std::function<void(SceneSpec&)> action) {
        PropertyField f;
        f.kind = PropertyField::Kind::Button;
        f.label = std::move(label);
        f.action = std::move(action);
        add(std::move(f));
    }
    void heading(QString text) {
        PropertyField f;
        f.kind = PropertyField::Kind::Heading;
        f.label = std::move(text);
        add(std::move(f));
    }
    // Deactivation (engine/model/deactivation.h): the element's "Active" switch (`element`
    // finds it in a scene).
    template <class Find>
    void activeSwitch(Find element) {
        heading(tr("Deactivation"));
        toggle(
            tr("Active"), QStringLiteral("active"),
            [element](const SceneSpec& s) { return element(s)->active; },
            [element](SceneSpec& s, bool on) { element(s)->active = on; });
    }
    // A force's or motion's state at the start of a run: off until a sensor switches it on.
    template <class Find>
    void startsOnSwitch(Find element) {
        toggle(
            tr("Starts on"), QStringLiteral("startsOn"),
            [element](const SceneSpec& s) { return element(s)->startsOn; },
            [element](SceneSpec& s, bool on) { element(s)->startsOn = on; });
    }
    // Per analysis, whether it leaves the element out (its name in that analysis' set of
    // `kind`): rows of the panel's own, "analyses.<analysis>", the format's "analyses" object
    // being edited through them.
    template <class Find>
    void analysesSwitches(Find element, std::vector<std::string> engine::InactiveSet::*kind) {
        const QString labels[engine::kAnalysisCount] = {tr("Off in simulations"),
                                                        tr("Off in kinematics"),
                                                        tr("Off in statics"), tr("Off in modes")};
        for (int a = 0; a < engine::kAnalysisCount; ++a) {
            const auto listed = [element, kind, a](const SceneSpec& s) {
                const std::vector<std::string>& names =
                    s.analyses[static_cast<std::size_t>(a)].inactive.*kind;
                return std::find(names.begin(), names.end(), element(s)->name) != names.end();
            };
            PropertyField& f =
                toggle(labels[a],
                       QStringLiteral("analyses.") +
                           toQString(engine::analysisName(static_cast<engine::Analysis>(a))),
                       listed, [element, kind, a, listed](SceneSpec& s, bool on) {
                           std::vector<std::string>& names =
                               s.analyses[static_cast<std::size_t>(a)].inactive.*kind;
                           if (on && !listed(s)) names.push_back(element(s)->name);
                           if (!on) std::erase(names, element(s)->name);
                       });
            f.help =
                tr("On: this analysis leaves the element out (and what hangs on it), the "
                   "others keep it; saved with the scene under \"analyses\".");
        }
    }
    // The entity's own name (a marker's without its part's).
    void name() {
        text(
            tr("Name"), QStringLiteral("name"),
            [id = id](const SceneSpec& s) {
                const std::string name = engine::entityName(s, id);  // a marker's is "part.marker"
                return name.substr(name.rfind('.') + 1);
            },
            [id = id](SceneSpec& s, const std::string& name) {
                engine::renameEntity(s, id, name);
            });
    }
    // Position and orientation (roll, pitch, yaw in degrees) of the transform `member` of the
    // entity `entity` finds.
    template <class Entity, class Member>
    void pose(Entity entity, Member member) {
        vector(
            tr("Position"), QStringLiteral("m"), 1.0, QStringLiteral("position"),
            [entity, member](const SceneSpec& s) { return toNumbers((entity(s)->*member).p); },
            [entity, member](SceneSpec& s, const Numbers& n) {
                (entity(s)->*member).p = toVec(n);
            });
        vector(
            tr("Orientation (roll, pitch, yaw)"), QStringLiteral("°"), kDeg,
            QStringLiteral("orientation"),
            [entity, member](const SceneSpec& s) { return rpyOf((entity(s)->*member).R); },
            [entity, member](SceneSpec& s, const Numbers& n) {
                (entity(s)->*member).R = quatOf(n);
            });
    }
    // A marker of the scene, chosen from all of them.
    template <class Entity, class Member>
    void markerChoice(QString label, QString key, Member refMember, Entity entity) {
        choice(
            std::move(label), std::move(key), allMarkers(spec),
            [entity, refMember](const SceneSpec& s) { return (entity(s)->*refMember).text(); },
            [entity, refMember](SceneSpec& s, const std::string& text) {
                entity(s)->*refMember = markerRefOf(text);
            });
    }
    // A joint of the scene, by name.
    template <class Entity, class Member>
    void jointChoice(QString label, QString key, Entity entity, Member member) {
        QStringList joints;
        for (const engine::Joint& j : spec.joints) joints << toQString(j.name);
        choice(
            std::move(label), std::move(key), joints,
            [entity, member](const SceneSpec& s) { return entity(s)->*member; },
            [entity, member](SceneSpec& s, const std::string& text) { entity(s)->*member = text; });
    }

    // The words the scene format allows for `key` (a choice among them).
    QStringList words(const QString& key) const;

    const SceneSpec& spec;
    const engine::EntityId id;
    std::vector<std::unique_ptr<PropertyField>>& fields;
    QString title;
    std::string_view object = "scene";  // the entity's object in the scene format
    std::string variant;                // a force's type
};

inline std::string axisOf(engine::JointAxis a) {
    return a == engine::JointAxis::Rotation ? "rotation" : "translation";
}
inline engine::JointAxis axisFrom(const std::string& t) {
    return t == "translation" ? engine::JointAxis::Translation : engine::JointAxis::Rotation;
}

// The rows of one kind of entity (the title is set on `b`).
void partFields(FieldList& b, const FieldOptions& o);
void markerFields(FieldList& b, const FieldOptions& o);

}  // namespace ui::fields
