#include "ui/properties/properties_panel.h"

#include <array>
#include <cmath>
#include <functional>

#include <QCheckBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

#include "engine/model/edit.h"

namespace ui {
namespace {

constexpr double kDeg = 180.0 / 3.14159265358979323846;
using Numbers = std::array<double, 3>;
using engine::SceneSpec;

// Entities by id, for the field accessors (which run on a copy of the scene).
template <class Spec>
auto* partOf(Spec& spec, engine::EntityId id) {
    for (auto& p : spec.parts)
        if (p.id == id) return &p;
    return static_cast<decltype(&spec.parts[0])>(nullptr);
}
template <class Spec>
auto* markerOf(Spec& spec, engine::EntityId id) {
    for (auto& p : spec.parts)
        for (auto& m : p.markers)
            if (m.id == id) return &m;
    return static_cast<decltype(&spec.parts[0].markers[0])>(nullptr);
}
template <class Spec, class List>
auto* byId(List& list, engine::EntityId id) {
    for (auto& e : list)
        if (e.id == id) return &e;
    return static_cast<decltype(&list[0])>(nullptr);
}

// Roll, pitch, yaw [rad] with R = Rz(yaw) Ry(pitch) Rx(roll), and back.
Numbers rpyOf(const engine::Quat& q) {
    const engine::Vec3 ypr = q.toRotationMatrix().eulerAngles(2, 1, 0);
    return {ypr.z(), ypr.y(), ypr.x()};
}
engine::Quat quatOf(const Numbers& rpy) {
    return (Eigen::AngleAxisd(rpy[2], engine::Vec3::UnitZ()) * Eigen::AngleAxisd(rpy[1], engine::Vec3::UnitY()) *
            Eigen::AngleAxisd(rpy[0], engine::Vec3::UnitX()))
        .normalized();
}

QString number(double v) {
    if (std::abs(v) < 1e-13) v = 0.0;
    return QString::number(v, 'g', 6);  // what is shown; values not retyped keep full precision
}

}  // namespace

// One editable quantity: a number, three numbers, a text or a switch, shown in `scale` ×
// its SI value (degrees for angles).
struct PropertiesPanel::Field {
    enum class Kind { Number, Vector, Text, Switch };
    Kind kind = Kind::Number;
    QString label, unit;
    double scale = 1.0;
    std::function<Numbers(const SceneSpec&)> getNumbers;
    std::function<void(SceneSpec&, const Numbers&)> setNumbers;
    std::function<std::string(const SceneSpec&)> getText;
    std::function<void(SceneSpec&, const std::string&)> setText;
    std::function<QString(const std::string&)> checkText;  // a reason to refuse the text, or empty
    std::function<bool(const SceneSpec&)> getSwitch;
    std::function<void(SceneSpec&, bool)> setSwitch;
    QLineEdit* edits[3] = {nullptr, nullptr, nullptr};
    QCheckBox* check = nullptr;
    QLabel* message = nullptr;
};

PropertiesPanel::PropertiesPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    title_ = new QLabel;
    title_->setObjectName(QStringLiteral("PropertiesTitle"));
    QFont bold = title_->font();
    bold.setBold(true);
    title_->setFont(bold);
    layout->addWidget(title_);
    layout_ = layout;
    layout->addStretch(1);
}

PropertiesPanel::~PropertiesPanel() = default;

void PropertiesPanel::showEntity(const SceneSpec* spec, engine::EntityId id) {
    spec_ = spec;
    id_ = id;
    rebuild();
}

void PropertiesPanel::rebuild() {
    // A rebuild can come from inside an editor's own signal (an edit applied): the old editors
    // are disconnected and deleted later, never under their own feet.
    for (const auto& f : fields_) {
        for (QLineEdit* edit : f->edits)
            if (edit) edit->disconnect(this);
        if (f->check) f->check->disconnect(this);
    }
    fields_.clear();
    if (body_) {
        layout_->removeWidget(body_);
        body_->hide();
        body_->deleteLater();
    }
    body_ = new QWidget;
    form_ = new QFormLayout(body_);
    form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    layout_->insertWidget(1, body_);
    body_->show();
    layout_->activate();
    if (!spec_) {
        title_->setText(tr("No scene"));
        return;
    }
    const SceneSpec& spec = *spec_;
    const engine::EntityId id = id_;
    auto add = [&](Field f) { fields_.push_back(std::make_unique<Field>(std::move(f))); };
    auto numberField = [&](QString label, QString unit, double scale, std::function<double(const SceneSpec&)> get,
                           std::function<void(SceneSpec&, double)> set) {
        Field f;
        f.kind = Field::Kind::Number;
        f.label = std::move(label);
        f.unit = std::move(unit);
        f.scale = scale;
        f.getNumbers = [get](const SceneSpec& s) { return Numbers{get(s), 0.0, 0.0}; };
        f.setNumbers = [set](SceneSpec& s, const Numbers& n) { set(s, n[0]); };
        add(std::move(f));
    };
    auto vectorField = [&](QString label, QString unit, double scale, std::function<Numbers(const SceneSpec&)> get,
                           std::function<void(SceneSpec&, const Numbers&)> set) {
        Field f;
        f.kind = Field::Kind::Vector;
        f.label = std::move(label);
        f.unit = std::move(unit);
        f.scale = scale;
        f.getNumbers = std::move(get);
        f.setNumbers = std::move(set);
        add(std::move(f));
    };
    auto textField = [&](QString label, std::function<std::string(const SceneSpec&)> get,
                         std::function<void(SceneSpec&, const std::string&)> set, QString unit = QString()) {
        Field f;
        f.kind = Field::Kind::Text;
        f.label = std::move(label);
        f.unit = std::move(unit);
        f.getText = std::move(get);
        f.setText = std::move(set);
        add(std::move(f));
    };
    auto switchField = [&](QString label, std::function<bool(const SceneSpec&)> get, std::function<void(SceneSpec&, bool)> set) {
        Field f;
        f.kind = Field::Kind::Switch;
        f.label = std::move(label);
        f.getSwitch = std::move(get);
        f.setSwitch = std::move(set);
        add(std::move(f));
    };
    auto nameField = [&] {
        textField(tr("Name"),
                  [id](const SceneSpec& s) {
                      const std::string name = engine::entityName(s, id);  // a marker's is "part.marker"
                      return name.substr(name.rfind('.') + 1);
                  },
                  [id](SceneSpec& s, const std::string& name) { engine::renameEntity(s, id, name); });
    };
    auto toVec = [](const engine::Vec3& v) { return Numbers{v.x(), v.y(), v.z()}; };
    auto fromVec = [](const Numbers& n) { return engine::Vec3(n[0], n[1], n[2]); };

    if (const engine::Part* part = partOf(spec, id)) {
        title_->setText(part->ground ? tr("Ground part") : tr("Part"));
        nameField();
        if (!part->ground && !part->density)
            numberField(tr("Mass"), QStringLiteral("kg"), 1.0, [id](const SceneSpec& s) { return partOf(s, id)->mass; },
                        [id](SceneSpec& s, double v) { partOf(s, id)->mass = v; });
        if (part->density)
            numberField(tr("Density"), QStringLiteral("kg/m³"), 1.0, [id](const SceneSpec& s) { return *partOf(s, id)->density; },
                        [id](SceneSpec& s, double v) { partOf(s, id)->density = v; });
        vectorField(tr("Position"), QStringLiteral("m"), 1.0, [id, toVec](const SceneSpec& s) { return toVec(partOf(s, id)->X_WP.p); },
                    [id, fromVec](SceneSpec& s, const Numbers& n) { partOf(s, id)->X_WP.p = fromVec(n); });
        vectorField(tr("Orientation (roll, pitch, yaw)"), QStringLiteral("°"), kDeg,
                    [id](const SceneSpec& s) { return rpyOf(partOf(s, id)->X_WP.R); },
                    [id](SceneSpec& s, const Numbers& n) { partOf(s, id)->X_WP.R = quatOf(n); });
        if (!part->ground) {
            vectorField(tr("Velocity"), QStringLiteral("m/s"), 1.0, [id, toVec](const SceneSpec& s) { return toVec(partOf(s, id)->v_WPo_W); },
                        [id, fromVec](SceneSpec& s, const Numbers& n) { partOf(s, id)->v_WPo_W = fromVec(n); });
            vectorField(tr("Angular velocity"), QStringLiteral("°/s"), kDeg,
                        [id, toVec](const SceneSpec& s) { return toVec(partOf(s, id)->w_WP_W); },
                        [id, fromVec](SceneSpec& s, const Numbers& n) { partOf(s, id)->w_WP_W = fromVec(n); });
        }
        numberField(tr("Friction"), QString(), 1.0, [id](const SceneSpec& s) { return partOf(s, id)->material.friction; },
                    [id](SceneSpec& s, double v) { partOf(s, id)->material.friction = v; });
        numberField(tr("Restitution"), QString(), 1.0, [id](const SceneSpec& s) { return partOf(s, id)->material.restitution; },
                    [id](SceneSpec& s, double v) { partOf(s, id)->material.restitution = v; });
        switchField(tr("Collides"), [id](const SceneSpec& s) { return partOf(s, id)->collision.enabled; },
                    [id](SceneSpec& s, bool on) { partOf(s, id)->collision.enabled = on; });
    } else if (markerOf(spec, id)) {
        title_->setText(tr("Marker"));
        nameField();
        vectorField(tr("Position"), QStringLiteral("m"), 1.0, [id, toVec](const SceneSpec& s) { return toVec(markerOf(s, id)->X_PM.p); },
                    [id, fromVec](SceneSpec& s, const Numbers& n) { markerOf(s, id)->X_PM.p = fromVec(n); });
        vectorField(tr("Orientation (roll, pitch, yaw)"), QStringLiteral("°"), kDeg,
                    [id](const SceneSpec& s) { return rpyOf(markerOf(s, id)->X_PM.R); },
                    [id](SceneSpec& s, const Numbers& n) { markerOf(s, id)->X_PM.R = quatOf(n); });
    } else if (const engine::Joint* joint = byId<const SceneSpec>(spec.joints, id)) {
        title_->setText(tr("Joint (%1)").arg(QString::fromStdString(std::string(engine::jointTypeName(joint->type)))));
        nameField();
        if (joint->type == engine::JointType::Distance)
            numberField(tr("Length"), QStringLiteral("m"), 1.0, [id](const SceneSpec& s) { return byId<const SceneSpec>(s.joints, id)->length; },
                        [id](SceneSpec& s, double v) { byId<SceneSpec>(s.joints, id)->length = v; });
        switchField(tr("Its parts collide"), [id](const SceneSpec& s) { return byId<const SceneSpec>(s.joints, id)->collide; },
                    [id](SceneSpec& s, bool on) { byId<SceneSpec>(s.joints, id)->collide = on; });
    } else if (const engine::ForceSpec* force = byId<const SceneSpec>(spec.forces, id)) {
        title_->setText(tr("Force (%1)").arg(QString::fromStdString(std::string(engine::forceTypeName(force->type)))));
        nameField();
        auto scalar = [&](QString label, QString unit, double scale, double engine::ForceSpec::*member) {
            numberField(std::move(label), std::move(unit), scale,
                        [id, member](const SceneSpec& s) { return byId<const SceneSpec>(s.forces, id)->*member; },
                        [id, member](SceneSpec& s, double v) { byId<SceneSpec>(s.forces, id)->*member = v; });
        };
        auto vector = [&](QString label, QString unit, engine::Vec3 engine::ForceSpec::*member) {
            vectorField(std::move(label), std::move(unit), 1.0,
                        [id, member, toVec](const SceneSpec& s) { return toVec(byId<const SceneSpec>(s.forces, id)->*member); },
                        [id, member, fromVec](SceneSpec& s, const Numbers& n) { byId<SceneSpec>(s.forces, id)->*member = fromVec(n); });
        };
        auto expression = [&](QString label, int component, QString unit) {
            textField(std::move(label), [id, component](const SceneSpec& s) { return byId<const SceneSpec>(s.forces, id)->components[component]; },
                      [id, component](SceneSpec& s, const std::string& text) { byId<SceneSpec>(s.forces, id)->components[component] = text; },
                      std::move(unit));
        };
        switch (force->type) {
        case engine::ForceType::PointForce:
        case engine::ForceType::PointTorque: {
            const QString unit = force->type == engine::ForceType::PointForce ? QStringLiteral("N") : QStringLiteral("N·m");
            expression(tr("X"), 0, unit);
            expression(tr("Y"), 1, unit);
            expression(tr("Z"), 2, unit);
            break;
        }
        case engine::ForceType::SpringDamper:
            scalar(tr("Stiffness"), QStringLiteral("N/m"), 1.0, &engine::ForceSpec::stiffness);
            scalar(tr("Damping"), QStringLiteral("N·s/m"), 1.0, &engine::ForceSpec::damping);
            scalar(tr("Free length"), QStringLiteral("m"), 1.0, &engine::ForceSpec::freeLength);
            scalar(tr("Preload"), QStringLiteral("N"), 1.0, &engine::ForceSpec::preload);
            break;
        case engine::ForceType::RotationalSpringDamper:
            scalar(tr("Stiffness"), QStringLiteral("N·m/rad"), 1.0, &engine::ForceSpec::stiffness);
            scalar(tr("Damping"), QStringLiteral("N·m·s/rad"), 1.0, &engine::ForceSpec::damping);
            scalar(tr("Free angle"), QStringLiteral("°"), kDeg, &engine::ForceSpec::freeLength);
            scalar(tr("Preload"), QStringLiteral("N·m"), 1.0, &engine::ForceSpec::preload);
            break;
        case engine::ForceType::Bushing:
            vector(tr("Translational stiffness"), QStringLiteral("N/m"), &engine::ForceSpec::translationalStiffness);
            vector(tr("Translational damping"), QStringLiteral("N·s/m"), &engine::ForceSpec::translationalDamping);
            vector(tr("Rotational stiffness"), QStringLiteral("N·m/rad"), &engine::ForceSpec::rotationalStiffness);
            vector(tr("Rotational damping"), QStringLiteral("N·m·s/rad"), &engine::ForceSpec::rotationalDamping);
            break;
        case engine::ForceType::JointController: {
            const bool angle = force->axis == engine::JointAxis::Rotation;
            expression(tr("Target"), 0, angle ? QStringLiteral("rad") : QStringLiteral("m"));
            scalar(tr("kp"), angle ? QStringLiteral("N·m/rad") : QStringLiteral("N/m"), 1.0, &engine::ForceSpec::stiffness);
            scalar(tr("kd"), angle ? QStringLiteral("N·m·s/rad") : QStringLiteral("N·s/m"), 1.0, &engine::ForceSpec::damping);
            scalar(tr("Maximum effort"), angle ? QStringLiteral("N·m") : QStringLiteral("N"), 1.0, &engine::ForceSpec::maxEffort);
            break;
        }
        }
    } else if (byId<const SceneSpec>(spec.contact.pairs, id)) {
        title_->setText(tr("Contact pair"));
        nameField();
        switchField(tr("Touch"), [id](const SceneSpec& s) { return byId<const SceneSpec>(s.contact.pairs, id)->enabled; },
                    [id](SceneSpec& s, bool on) { byId<SceneSpec>(s.contact.pairs, id)->enabled = on; });
        // Optional overrides: blank keeps the parts' combined value.
        auto optional = [&](QString label, std::optional<double> engine::ContactPairSpec::*member) {
            textField(std::move(label),
                      [id, member](const SceneSpec& s) {
                          const auto& v = byId<const SceneSpec>(s.contact.pairs, id)->*member;
                          return v ? number(*v).toStdString() : std::string();
                      },
                      [id, member](SceneSpec& s, const std::string& text) {
                          auto& v = byId<SceneSpec>(s.contact.pairs, id)->*member;
                          if (text.empty()) v.reset();
                          else v = QString::fromStdString(text).toDouble();
                      },
                      tr("blank: the parts' combined value"));
            fields_.back()->checkText = [](const std::string& text) {
                bool ok = text.empty();
                if (!ok) QString::fromStdString(text).toDouble(&ok);
                return ok ? QString() : tr("'%1' is not a number").arg(QString::fromStdString(text));
            };
        };
        optional(tr("Friction"), &engine::ContactPairSpec::friction);
        optional(tr("Restitution"), &engine::ContactPairSpec::restitution);
    } else if (byId<const SceneSpec>(spec.motions, id)) {
        title_->setText(tr("Motion"));
        nameField();
        textField(tr("Expression"), [id](const SceneSpec& s) { return byId<const SceneSpec>(s.motions, id)->expression; },
                  [id](SceneSpec& s, const std::string& text) { byId<SceneSpec>(s.motions, id)->expression = text; },
                  tr("rad or m, of time"));
    } else {
        title_->setText(tr("Scene"));
        vectorField(tr("Gravity"), QStringLiteral("m/s²"), 1.0, [toVec](const SceneSpec& s) { return toVec(s.gravity); },
                    [fromVec](SceneSpec& s, const Numbers& n) { s.gravity = fromVec(n); });
        textField(tr("Integrator"), [](const SceneSpec& s) { return std::string(engine::integratorName(s.settings.integrator)); },
                  [](SceneSpec& s, const std::string& text) {
                      if (auto type = engine::integratorFromName(text)) s.settings.integrator = *type;
                  });
        fields_.back()->checkText = [](const std::string& text) {
            return engine::integratorFromName(text)
                       ? QString()
                       : tr("unknown integrator '%1' (expected dopri45, rk4, symplecticEuler, implicitEuler or timeStepping)")
                             .arg(QString::fromStdString(text));
        };
        numberField(tr("Step size"), QStringLiteral("s"), 1.0, [](const SceneSpec& s) { return s.settings.stepSize; },
                    [](SceneSpec& s, double v) { s.settings.stepSize = v; });
        switchField(tr("Contact"), [](const SceneSpec& s) { return s.contact.enabled; },
                    [](SceneSpec& s, bool on) {
                        s.contact.enabled = on;
                        if (on) s.settings.integrator = engine::IntegratorType::TimeStepping;
                    });
    }

    // Editors for the fields, filled with the current values.
    for (auto& owned : fields_) {
        Field& f = *owned;
        auto* row = new QWidget;
        auto* rowLayout = new QVBoxLayout(row);
        rowLayout->setContentsMargins(0, 0, 0, 0);
        auto* line = new QHBoxLayout;
        if (f.kind == Field::Kind::Switch) {
            f.check = new QCheckBox;
            f.check->setChecked(f.getSwitch(spec));
            connect(f.check, &QCheckBox::toggled, this, [this, &f] { commitField(f); });
            line->addWidget(f.check);
        } else if (f.kind == Field::Kind::Text) {
            f.edits[0] = new QLineEdit(QString::fromStdString(f.getText(spec)));
            line->addWidget(f.edits[0]);
        } else {
            const Numbers values = f.getNumbers(spec);
            for (int k = 0; k < (f.kind == Field::Kind::Vector ? 3 : 1); ++k) {
                f.edits[k] = new QLineEdit(number(values[static_cast<std::size_t>(k)] * f.scale));
                f.edits[k]->setAlignment(Qt::AlignRight);
                f.edits[k]->setMinimumWidth(52);
                f.edits[k]->setCursorPosition(0);
                line->addWidget(f.edits[k]);
            }
        }
        for (QLineEdit* edit : f.edits)
            if (edit) connect(edit, &QLineEdit::editingFinished, this, [this, &f] { commitField(f); });
        if (!f.unit.isEmpty()) line->addWidget(new QLabel(f.unit));
        rowLayout->addLayout(line);
        f.message = new QLabel;
        f.message->setWordWrap(true);
        f.message->setStyleSheet(QStringLiteral("color: #d9534f;"));
        f.message->hide();
        rowLayout->addWidget(f.message);
        form_->addRow(f.label, row);
    }
}

void PropertiesPanel::commitField(Field& f) {
    if (!spec_) return;
    SceneSpec after = *spec_;
    f.message->hide();
    switch (f.kind) {
    case Field::Kind::Switch: f.setSwitch(after, f.check->isChecked()); break;
    case Field::Kind::Text: {
        const std::string text = f.edits[0]->text().trimmed().toStdString();
        if (text == f.getText(*spec_)) return;
        if (f.checkText) {
            if (const QString reason = f.checkText(text); !reason.isEmpty()) {
                f.message->setText(reason);
                f.message->show();
                return;
            }
        }
        f.setText(after, text);
        break;
    }
    default: {
        Numbers values = f.getNumbers(*spec_);
        bool changed = false;
        for (int k = 0; k < 3 && f.edits[k]; ++k) {
            bool ok = false;
            const double shown = f.edits[k]->text().trimmed().toDouble(&ok);
            if (!ok || !std::isfinite(shown)) {
                f.message->setText(tr("'%1' is not a number").arg(f.edits[k]->text()));
                f.message->show();
                return;
            }
            // Only values the user changed are taken back (a shown value is rounded).
            if (f.edits[k]->text().trimmed() != number(values[static_cast<std::size_t>(k)] * f.scale)) {
                values[static_cast<std::size_t>(k)] = shown / f.scale;
                changed = true;
            }
        }
        if (!changed) return;
        f.setNumbers(after, values);
        break;
    }
    }
    // The edit must leave a valid scene: otherwise the reason stays beside the field.
    const engine::Diagnostics problems = engine::validate(after);
    for (const engine::Diagnostic& d : problems) {
        if (d.severity != engine::Severity::Error) continue;
        f.message->setText(QString::fromStdString(d.message));
        f.message->show();
        return;
    }
    emit editRequested(after, tr("Edit %1 of %2").arg(f.label.toLower(), title_->text().toLower()));
}

QWidget* PropertiesPanel::editor(const QString& label, int component) const {
    for (const auto& f : fields_)
        if (f->label == label) return f->kind == Field::Kind::Switch ? static_cast<QWidget*>(f->check) : f->edits[component];
    return nullptr;
}

QString PropertiesPanel::message(const QString& label) const {
    for (const auto& f : fields_)
        if (f->label == label) return f->message->isHidden() ? QString() : f->message->text();
    return {};
}

void PropertiesPanel::commit(const QString& label) {
    for (auto& f : fields_)
        if (f->label == label) commitField(*f);
}

}  // namespace ui
