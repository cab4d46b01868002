#include "ui/properties/properties_panel.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

#include <QCheckBox>
#include <QColorDialog>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "engine/io/mesh_loader.h"
#include "engine/model/edit.h"
#include "engine/model/mass_properties.h"
#include "ui/common/text.h"
#include "ui/properties/expression_editor.h"

namespace ui {
namespace {

constexpr double kDeg = engine::radToDeg(1.0);
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
template <class Spec>
auto* markerPartOf(Spec& spec, engine::EntityId id) {
    for (auto& p : spec.parts)
        for (auto& m : p.markers)
            if (m.id == id) return &p;
    return static_cast<decltype(&spec.parts[0])>(nullptr);
}
template <class List>
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
    return (Eigen::AngleAxisd(rpy[2], engine::Vec3::UnitZ()) *
            Eigen::AngleAxisd(rpy[1], engine::Vec3::UnitY()) *
            Eigen::AngleAxisd(rpy[0], engine::Vec3::UnitX()))
        .normalized();
}
Numbers toNumbers(const engine::Vec3& v) {
    return {v.x(), v.y(), v.z()};
}
engine::Vec3 toVec(const Numbers& n) {
    return {n[0], n[1], n[2]};
}

QString number(double v) {
    if (std::abs(v) < 1e-13) v = 0.0;
    return QString::number(v, 'g', 6);  // what is shown; values not retyped keep full precision
}

// A number in its field, whole: the field is wide enough for what it shows and shows it from
// its first character (a field scrolled to its end read "325926" for 0.325926), and the
// tooltip holds the value to the last digit that tells it apart.
void showNumber(QLineEdit* edit, double value) {
    const QString text = number(value);
    edit->setText(text);
    edit->setCursorPosition(0);
    const QString full = QString::number(value, 'g', QLocale::FloatingPointShortest);
    edit->setToolTip(
        QObject::tr(
            "%1\n↑/↓ or the wheel (once clicked into) step the value; Shift: ten times more")
            .arg(full));
    const QMargins margins = edit->textMargins();
    edit->setMinimumWidth(std::max(
        48, edit->fontMetrics().horizontalAdvance(text) + margins.left() + margins.right() + 14));
}

QString colourText(std::uint32_t rgb) {
    return QStringLiteral("#%1").arg(rgb & 0xffffffu, 6, 16, QLatin1Char('0'));
}

// Collision bits as typed: decimal or 0x hexadecimal, 32 bits.
std::optional<std::uint32_t> parseBits(const std::string& text) {
    bool ok = false;
    const qulonglong v = QString::fromStdString(text).toULongLong(&ok, 0);
    if (!ok || v > 0xffffffffull) return std::nullopt;
    return static_cast<std::uint32_t>(v);
}

QStringList allMarkers(const SceneSpec& spec) {
    QStringList out;
    for (const engine::Part& p : spec.parts)
        for (const engine::Marker& m : p.markers) out << toQString(p.name + "." + m.name);
    return out;
}

engine::MarkerRef markerRefOf(const std::string& text) {
    const auto dot = text.find('.');
    if (dot == std::string::npos) return {text, ""};
    return {text.substr(0, dot), text.substr(dot + 1)};
}

}  // namespace

// One editable quantity: a number, three numbers, a text, a switch, a choice, an expression,
// a colour; or a line of information, a button, a heading. Numbers are shown in `scale` × their
// SI value (degrees for angles).
struct PropertiesPanel::Field {
    enum class Kind {
        Number,
        Vector,
        Text,
        Switch,
        Choice,
        Expression,
        Colour,
        Info,
        Button,
        Heading
    };
    Kind kind = Kind::Number;
    QString label, unit, key;
    double scale = 1.0;
    bool integer = false;
    std::function<Numbers(const SceneSpec&)> getNumbers;
    std::function<void(SceneSpec&, const Numbers&)> setNumbers;
    std::function<std::string(const SceneSpec&)> getText;
    std::function<void(SceneSpec&, const std::string&)> setText;
    std::function<QString(const std::string&)> checkText;  // a reason to refuse the text, or empty
    std::function<bool(const SceneSpec&)> getSwitch;
    std::function<void(SceneSpec&, bool)> setSwitch;
    std::function<void(bool)> local;  // a switch of the panel's own (no edit)
    QStringList choices;
    std::function<void(SceneSpec&)> action;  // a button's edit
    QString info;
    QLineEdit* edits[3] = {nullptr, nullptr, nullptr};
    QCheckBox* check = nullptr;
    QComboBox* combo = nullptr;
    ExpressionEditor* expression = nullptr;
    QPushButton* button = nullptr;
    QLabel* infoLabel = nullptr;
    QLabel* message = nullptr;

    // Takes the accessors of an identical field defined for the scene as it is now.
    void adopt(const Field& from) {
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
    }
};

PropertiesPanel::PropertiesPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    title_ = new QLabel;
    title_->setObjectName(QStringLiteral("PropertiesTitle"));
    QFont bold = title_->font();
    bold.setBold(true);
    title_->setFont(bold);
    layout->addWidget(title_);
    scroll_ = new QScrollArea;
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    // Narrower than its fields (a dock made small), the panel scrolls sideways: a unit or the
    // end of a number is never cut off unseen.
    scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    layout->addWidget(scroll_, 1);
}

PropertiesPanel::~PropertiesPanel() = default;

void PropertiesPanel::showEntity(const SceneSpec* spec, engine::EntityId id, int shape) {
    spec_ = spec;
    id_ = id;
    shape_ = shape;
    rebuild();
}

void PropertiesPanel::setMarkerInWorld(bool world) {
    markerInWorld_ = world;
    rebuild();
}

void PropertiesPanel::defineFields() {
    const SceneSpec& spec = *spec_;
    const engine::EntityId id = id_;
    auto add = [&](Field f) -> Field& {
        fields_.push_back(std::make_unique<Field>(std::move(f)));
        return *fields_.back();
    };
    auto numberField = [&](QString label, QString unit, double scale, QString key,
                           std::function<double(const SceneSpec&)> get,
                           std::function<void(SceneSpec&, double)> set) -> Field& {
        Field f;
        f.kind = Field::Kind::Number;
        f.label = std::move(label);
        f.unit = std::move(unit);
        f.key = std::move(key);
        f.scale = scale;
        f.getNumbers = [get](const SceneSpec& s) { return Numbers{get(s), 0.0, 0.0}; };
        f.setNumbers = [set](SceneSpec& s, const Numbers& n) { set(s, n[0]); };
        return add(std::move(f));
    };
    auto vectorField = [&](QString label, QString unit, double scale, QString key,
                           std::function<Numbers(const SceneSpec&)> get,
                           std::function<void(SceneSpec&, const Numbers&)> set) -> Field& {
        Field f;
        f.kind = Field::Kind::Vector;
        f.label = std::move(label);
        f.unit = std::move(unit);
        f.key = std::move(key);
        f.scale = scale;
        f.getNumbers = std::move(get);
        f.setNumbers = std::move(set);
        return add(std::move(f));
    };
    auto textField = [&](QString label, QString key,
                         std::function<std::string(const SceneSpec&)> get,
                         std::function<void(SceneSpec&, const std::string&)> set,
                         QString unit = QString()) -> Field& {
        Field f;
        f.kind = Field::Kind::Text;
        f.label = std::move(label);
        f.key = std::move(key);
        f.unit = std::move(unit);
        f.getText = std::move(get);
        f.setText = std::move(set);
        return add(std::move(f));
    };
    auto switchField = [&](QString label, QString key, std::function<bool(const SceneSpec&)> get,
                           std::function<void(SceneSpec&, bool)> set) -> Field& {
        Field f;
        f.kind = Field::Kind::Switch;
        f.label = std::move(label);
        f.key = std::move(key);
        f.getSwitch = std::move(get);
        f.setSwitch = std::move(set);
        return add(std::move(f));
    };
    auto choiceField = [&](QString label, QString key, QStringList choices,
                           std::function<std::string(const SceneSpec&)> get,
                           std::function<void(SceneSpec&, const std::string&)> set) -> Field& {
        Field& f = textField(std::move(label), std::move(key), std::move(get), std::move(set));
        f.kind = Field::Kind::Choice;
        f.choices = std::move(choices);
        return f;
    };
    auto expressionField = [&](QString label, QString key, QString unit,
                               std::function<std::string(const SceneSpec&)> get,
                               std::function<void(SceneSpec&, const std::string&)> set) -> Field& {
        Field& f = textField(std::move(label), std::move(key), std::move(get), std::move(set),
                             std::move(unit));
        f.kind = Field::Kind::Expression;
        return f;
    };
    auto infoField = [&](QString label, QString text) {
        Field f;
        f.kind = Field::Kind::Info;
        f.label = std::move(label);
        f.info = std::move(text);
        add(std::move(f));
    };
    auto buttonField = [&](QString label, std::function<void(SceneSpec&)> action) {
        Field f;
        f.kind = Field::Kind::Button;
        f.label = std::move(label);
        f.action = std::move(action);
        add(std::move(f));
    };
    auto heading = [&](QString text) {
        Field f;
        f.kind = Field::Kind::Heading;
        f.label = std::move(text);
        add(std::move(f));
    };
    auto nameField = [&] {
        textField(
            tr("Name"), QStringLiteral("name"),
            [id](const SceneSpec& s) {
                const std::string name = engine::entityName(s, id);  // a marker's is "part.marker"
                return name.substr(name.rfind('.') + 1);
            },
            [id](SceneSpec& s, const std::string& name) { engine::renameEntity(s, id, name); });
    };
    auto poseFields = [&](auto entity, auto member) {
        vectorField(
            tr("Position"), QStringLiteral("m"), 1.0, QStringLiteral("position"),
            [entity, member](const SceneSpec& s) { return toNumbers((entity(s)->*member).p); },
            [entity, member](SceneSpec& s, const Numbers& n) {
                (entity(s)->*member).p = toVec(n);
            });
        vectorField(
            tr("Orientation (roll, pitch, yaw)"), QStringLiteral("°"), kDeg,
            QStringLiteral("orientation"),
            [entity, member](const SceneSpec& s) { return rpyOf((entity(s)->*member).R); },
            [entity, member](SceneSpec& s, const Numbers& n) {
                (entity(s)->*member).R = quatOf(n);
            });
    };
    auto markerChoice = [&](QString label, QString key, auto refMember, auto entity) {
        choiceField(
            std::move(label), std::move(key), allMarkers(spec),
            [entity, refMember](const SceneSpec& s) { return (entity(s)->*refMember).text(); },
            [entity, refMember](SceneSpec& s, const std::string& text) {
                entity(s)->*refMember = markerRefOf(text);
            });
    };
    auto jointChoice = [&](QString label, QString key, auto entity, auto member) {
        QStringList joints;
        for (const engine::Joint& j : spec.joints) joints << toQString(j.name);
        choiceField(
            std::move(label), std::move(key), joints,
            [entity, member](const SceneSpec& s) { return entity(s)->*member; },
            [entity, member](SceneSpec& s, const std::string& text) { entity(s)->*member = text; });
    };
    const QStringList axes = {QStringLiteral("rotation"), QStringLiteral("translation")};
    auto axisOf = [](engine::JointAxis a) {
        return std::string(a == engine::JointAxis::Rotation ? "rotation" : "translation");
    };
    auto axisFrom = [](const std::string& t) {
        return t == "translation" ? engine::JointAxis::Translation : engine::JointAxis::Rotation;
    };

    if (const engine::Part* part = partOf(spec, id)) {
        auto P = [id](auto& s) { return partOf(s, id); };
        title_->setText(part->ground ? tr("Ground part") : tr("Part"));
        nameField();
        switchField(
            tr("Ground (fixed)"), QStringLiteral("ground"),
            [P](const SceneSpec& s) { return P(s)->ground; },
            [P](SceneSpec& s, bool on) { P(s)->ground = on; });
        Field& colour = textField(
            tr("Colour"), QStringLiteral("color"),
            [P](const SceneSpec& s) { return colourText(P(s)->colorRgb).toStdString(); },
            [P](SceneSpec& s, const std::string& text) {
                P(s)->colorRgb = QString::fromStdString(text).mid(1).toUInt(nullptr, 16);
            });
        colour.kind = Field::Kind::Colour;
        colour.checkText = [](const std::string& text) {
            static const QRegularExpression hex(QStringLiteral("^#[0-9a-fA-F]{6}$"));
            return hex.match(QString::fromStdString(text)).hasMatch()
                       ? QString()
                       : tr("a colour is #rrggbb, e.g. #e0703c");
        };
        poseFields(P, &engine::Part::X_WP);
        if (!part->ground) {
            vectorField(
                tr("Velocity"), QStringLiteral("m/s"), 1.0, QStringLiteral("velocity"),
                [P](const SceneSpec& s) { return toNumbers(P(s)->v_WPo_W); },
                [P](SceneSpec& s, const Numbers& n) { P(s)->v_WPo_W = toVec(n); });
            vectorField(
                tr("Angular velocity"), QStringLiteral("°/s"), kDeg,
                QStringLiteral("angularVelocity"),
                [P](const SceneSpec& s) { return toNumbers(P(s)->w_WP_W); },
                [P](SceneSpec& s, const Numbers& n) { P(s)->w_WP_W = toVec(n); });
        }

        heading(tr("Mass and inertia"));
        const QString fromGeometry = tr("from geometry and density"),
                      userDefined = tr("typed in (overrides the geometry)");
        choiceField(
            tr("Mass properties"), QStringLiteral("massProperties"), {fromGeometry, userDefined},
            [P, fromGeometry, userDefined](const SceneSpec& s) {
                return (P(s)->density ? fromGeometry : userDefined).toStdString();
            },
            [P, fromGeometry](SceneSpec& s, const std::string& text) {
                engine::Part& p = *P(s);
                if (text == fromGeometry.toStdString()) {
                    if (p.density) return;
                    // Back to the geometry, keeping the mass where the shapes have volume.
                    engine::Part probe = p;
                    probe.density = 1.0;
                    const double volume = engine::partMassProperties(probe).mass;
                    p.density = volume > 0.0 && p.mass > 0.0 ? p.mass / volume : 7850.0;
                } else if (p.density) {
                    // The override starts from what the geometry gives.
                    const engine::MassProperties m = engine::partMassProperties(p);
                    p.density.reset();
                    p.mass = m.mass;
                    p.p_PPcm = m.p_PPcm;
                    p.I_Pcm_P = m.I_Pcm_P;
                }
            });
        if (part->density) {
            numberField(
                tr("Density"), QStringLiteral("kg/m³"), 1.0, QStringLiteral("density"),
                [P](const SceneSpec& s) { return *P(s)->density; },
                [P](SceneSpec& s, double v) { P(s)->density = v; });
            const engine::MassProperties m = engine::partMassProperties(*part);
            infoField(tr("Mass"), QStringLiteral("%1 kg").arg(number(m.mass)));
            infoField(tr("Centre of mass"),
                      QStringLiteral("%1, %2, %3 m")
                          .arg(number(m.p_PPcm.x()), number(m.p_PPcm.y()), number(m.p_PPcm.z())));
            infoField(tr("Inertia"), QStringLiteral("%1, %2, %3 kg·m²")
                                         .arg(number(m.I_Pcm_P(0, 0)), number(m.I_Pcm_P(1, 1)),
                                              number(m.I_Pcm_P(2, 2))));
        } else {
            numberField(
                tr("Mass"), QStringLiteral("kg"), 1.0, QStringLiteral("mass"),
                [P](const SceneSpec& s) { return P(s)->mass; },
                [P](SceneSpec& s, double v) { P(s)->mass = v; });
            vectorField(
                tr("Centre of mass"), QStringLiteral("m"), 1.0, QStringLiteral("centerOfMass"),
                [P](const SceneSpec& s) { return toNumbers(P(s)->p_PPcm); },
                [P](SceneSpec& s, const Numbers& n) { P(s)->p_PPcm = toVec(n); });
            vectorField(
                tr("Inertia (Ixx, Iyy, Izz)"), QStringLiteral("kg·m²"), 1.0,
                QStringLiteral("inertia"),
                [P](const SceneSpec& s) { return toNumbers(P(s)->I_Pcm_P.diagonal()); },
                [P](SceneSpec& s, const Numbers& n) { P(s)->I_Pcm_P.diagonal() = toVec(n); });
            vectorField(
                tr("Products (Ixy, Ixz, Iyz)"), QStringLiteral("kg·m²"), 1.0,
                QStringLiteral("inertia.products"),
                [P](const SceneSpec& s) {
                    const engine::Mat3& I = P(s)->I_Pcm_P;
                    return Numbers{I(0, 1), I(0, 2), I(1, 2)};
                },
                [P](SceneSpec& s, const Numbers& n) {
                    engine::Mat3& I = P(s)->I_Pcm_P;
                    I(0, 1) = I(1, 0) = n[0];
                    I(0, 2) = I(2, 0) = n[1];
                    I(1, 2) = I(2, 1) = n[2];
                });
        }

        heading(tr("Geometry"));
        const QStringList shapeTypes = {QStringLiteral("box"),      QStringLiteral("sphere"),
                                        QStringLiteral("cylinder"), QStringLiteral("capsule"),
                                        QStringLiteral("cone"),     QStringLiteral("mesh"),
                                        QStringLiteral("plane")};
        for (std::size_t k = 0; k < part->shapes.size(); ++k) {
            auto S = [P, k](auto& s) { return &P(s)->shapes[k]; };
            const QString name = tr("Shape %1").arg(k + 1);
            const engine::Shape& shape = part->shapes[k];
            choiceField(
                name + tr(" type"), QStringLiteral("shape.type"), shapeTypes,
                [S](const SceneSpec& s) { return std::string(engine::shapeTypeName(S(s)->type)); },
                [this, S](SceneSpec& s, const std::string& text) {
                    engine::Shape& sh = *S(s);
                    sh.type = engine::shapeTypeFromName(text).value_or(sh.type);
                    if (sh.type == engine::ShapeType::Mesh && !sh.mesh) {
                        // A mesh needs its file: asked for at once.
                        const QString file = QFileDialog::getOpenFileName(
                            this, tr("Mesh File"), QString(),
                            tr("Meshes (*.obj *.stl *.dae *.OBJ *.STL *.DAE);;All files (*)"));
                        std::string error;
                        if (!file.isEmpty())
                            sh.mesh = engine::io::loadMesh(file.toStdString(), error);
                        if (sh.mesh) sh.meshFile = QFileInfo(file).absoluteFilePath().toStdString();
                    }
                });
            switch (shape.type) {
            case engine::ShapeType::Box:
                vectorField(
                    name + tr(" size"), QStringLiteral("m"), 1.0, QStringLiteral("shape.size"),
                    [S](const SceneSpec& s) { return toNumbers(S(s)->size); },
                    [S](SceneSpec& s, const Numbers& n) { S(s)->size = toVec(n); });
                break;
            case engine::ShapeType::Sphere:
            case engine::ShapeType::Cylinder:
            case engine::ShapeType::Capsule:
            case engine::ShapeType::Cone:
                numberField(
                    name + tr(" radius"), QStringLiteral("m"), 1.0, QStringLiteral("shape.radius"),
                    [S](const SceneSpec& s) { return S(s)->radius; },
                    [S](SceneSpec& s, double v) { S(s)->radius = v; });
                if (shape.type != engine::ShapeType::Sphere)
                    numberField(
                        name + tr(" length"), QStringLiteral("m"), 1.0,
                        QStringLiteral("shape.length"),
                        [S](const SceneSpec& s) { return S(s)->length; },
                        [S](SceneSpec& s, double v) { S(s)->length = v; });
                break;
            case engine::ShapeType::Mesh: {
                Field& file = textField(
                    name + tr(" file"), QStringLiteral("shape.file"),
                    [S](const SceneSpec& s) { return S(s)->meshFile; },
                    [S](SceneSpec& s, const std::string& text) {
                        std::string error;
                        S(s)->mesh = engine::io::loadMesh(text, error);
                        S(s)->meshFile = text;
                    });
                file.checkText = [](const std::string& text) {
                    std::string error;
                    return engine::io::loadMesh(text, error)
                               ? QString()
                               : tr("cannot read the mesh: %1").arg(toQString(error));
                };
                vectorField(
                    name + tr(" scale"), QString(), 1.0, QStringLiteral("shape.scale"),
                    [S](const SceneSpec& s) { return toNumbers(S(s)->scale); },
                    [S](SceneSpec& s, const Numbers& n) { S(s)->scale = toVec(n); });
                break;
            }
            case engine::ShapeType::Plane:
                break;
            }
            choiceField(
                name + tr(" role"), QStringLiteral("shape.role"),
                {QStringLiteral("both"), QStringLiteral("visual"), QStringLiteral("collision")},
                [S](const SceneSpec& s) { return std::string(engine::shapeRoleName(S(s)->role)); },
                [S](SceneSpec& s, const std::string& text) {
                    S(s)->role = engine::shapeRoleFromName(text).value_or(S(s)->role);
                });
            vectorField(
                name + tr(" position"), QStringLiteral("m"), 1.0, QStringLiteral("shape.position"),
                [S](const SceneSpec& s) { return toNumbers(S(s)->X_PG.p); },
                [S](SceneSpec& s, const Numbers& n) { S(s)->X_PG.p = toVec(n); });
            vectorField(
                name + tr(" orientation"), QStringLiteral("°"), kDeg,
                QStringLiteral("shape.orientation"),
                [S](const SceneSpec& s) { return rpyOf(S(s)->X_PG.R); },
                [S](SceneSpec& s, const Numbers& n) { S(s)->X_PG.R = quatOf(n); });
            buttonField(tr("Remove shape %1").arg(k + 1), [P, k](SceneSpec& s) {
                P(s)->shapes.erase(P(s)->shapes.begin() + static_cast<std::ptrdiff_t>(k));
            });
        }
        buttonField(tr("Add shape"), [P](SceneSpec& s) {
            engine::Shape box;
            box.size = engine::Vec3::Constant(0.05);
            P(s)->shapes.push_back(box);
        });
        if (shape_ > 0 && static_cast<std::size_t>(shape_) <= part->shapes.size()) {
            // One shape: only its own fields, under a title that names it.
            title_->setText(tr("Shape %1 of %2").arg(shape_).arg(toQString(part->name)));
            const QString own = tr("Shape %1 ").arg(shape_);
            const QString remove = tr("Remove shape %1").arg(shape_);
            std::erase_if(fields_, [&](const std::unique_ptr<Field>& f) {
                return !f->label.startsWith(own) && f->label != remove;
            });
            return;
        }

        heading(tr("Contact"));
        numberField(
            tr("Friction"), QString(), 1.0, QStringLiteral("material.friction"),
            [P](const SceneSpec& s) { return P(s)->material.friction; },
            [P](SceneSpec& s, double v) { P(s)->material.friction = v; });
        numberField(
            tr("Restitution"), QString(), 1.0, QStringLiteral("material.restitution"),
            [P](const SceneSpec& s) { return P(s)->material.restitution; },
            [P](SceneSpec& s, double v) { P(s)->material.restitution = v; });
        switchField(
            tr("Collides"), QStringLiteral("collision.enabled"),
            [P](const SceneSpec& s) { return P(s)->collision.enabled; },
            [P](SceneSpec& s, bool on) { P(s)->collision.enabled = on; });
        auto bitsField = [&](QString label, QString key,
                             std::uint32_t engine::CollisionFilter::*member) {
            Field& f = textField(
                std::move(label), std::move(key),
                [P, member](const SceneSpec& s) {
                    return QStringLiteral("0x%1")
                        .arg(P(s)->collision.*member, 8, 16, QLatin1Char('0'))
                        .toStdString();
                },
                [P, member](SceneSpec& s, const std::string& text) {
                    P(s)->collision.*member = parseBits(text).value_or(0);
                },
                tr("bits"));
            f.checkText = [](const std::string& text) {
                return parseBits(text) ? QString()
                                       : tr("32 bits, as a number or 0x… in hexadecimal");
            };
        };
        bitsField(tr("Collision group"), QStringLiteral("collision.group"),
                  &engine::CollisionFilter::group);
        bitsField(tr("Collision mask"), QStringLiteral("collision.mask"),
                  &engine::CollisionFilter::mask);
    } else if (markerOf(spec, id)) {
        auto M = [id](auto& s) { return markerOf(s, id); };
        auto MP = [id](auto& s) { return markerPartOf(s, id); };
        title_->setText(tr("Marker on %1").arg(toQString(markerPartOf(spec, id)->name)));
        nameField();
        Field& frame = switchField(tr("In world axes"), QString(),
                                   [this](const SceneSpec&) { return markerInWorld_; }, {});
        frame.local = [this](bool world) { setMarkerInWorld(world); };
        if (!markerInWorld_) {
            poseFields(M, &engine::Marker::X_PM);
        } else {
            vectorField(
                tr("Position"), QStringLiteral("m"), 1.0, QStringLiteral("position"),
                [M, MP](const SceneSpec& s) { return toNumbers(MP(s)->X_WP * M(s)->X_PM.p); },
                [M, MP](SceneSpec& s, const Numbers& n) {
                    M(s)->X_PM.p = MP(s)->X_WP.inverse() * toVec(n);
                });
            vectorField(
                tr("Orientation (roll, pitch, yaw)"), QStringLiteral("°"), kDeg,
                QStringLiteral("orientation"),
                [M, MP](const SceneSpec& s) { return rpyOf(MP(s)->X_WP.R * M(s)->X_PM.R); },
                [M, MP](SceneSpec& s, const Numbers& n) {
                    M(s)->X_PM.R = (MP(s)->X_WP.R.conjugate() * quatOf(n)).normalized();
                });
        }
    } else if (const engine::Joint* joint = byId(spec.joints, id)) {
        auto J = [id](auto& s) { return byId(s.joints, id); };
        title_->setText(tr("Joint (%1)").arg(toQString(engine::jointTypeName(joint->type))));
        nameField();
        QStringList types;
        for (int k = 0; k <= static_cast<int>(engine::JointType::PerpendicularAxes); ++k)
            types << toQString(engine::jointTypeName(static_cast<engine::JointType>(k)));
        choiceField(
            tr("Type"), QStringLiteral("type"), types,
            [J](const SceneSpec& s) { return std::string(engine::jointTypeName(J(s)->type)); },
            [J](SceneSpec& s, const std::string& text) {
                engine::Joint& j = *J(s);
                j.type = engine::jointTypeFromName(text).value_or(j.type);
                if (j.type == engine::JointType::Distance && !(j.length > 0.0)) {
                    // A rod as long as the markers are apart now.
                    const engine::Part* pi = s.findPart(j.markerI.part);
                    const engine::Part* pj = s.findPart(j.markerJ.part);
                    const engine::Marker* mi = s.findMarker(j.markerI);
                    const engine::Marker* mj = s.findMarker(j.markerJ);
                    if (pi && pj && mi && mj)
                        j.length = ((pi->X_WP * mi->X_PM.p) - (pj->X_WP * mj->X_PM.p)).norm();
                    if (!(j.length > 0.0)) j.length = 0.1;
                }
            });
        markerChoice(tr("Marker I"), QStringLiteral("markerI"), &engine::Joint::markerI, J);
        markerChoice(tr("Marker J"), QStringLiteral("markerJ"), &engine::Joint::markerJ, J);
        if (joint->type == engine::JointType::Distance)
            numberField(
                tr("Length"), QStringLiteral("m"), 1.0, QStringLiteral("length"),
                [J](const SceneSpec& s) { return J(s)->length; },
                [J](SceneSpec& s, double v) { J(s)->length = v; });
        switchField(
            tr("Its parts collide"), QStringLiteral("collide"),
            [J](const SceneSpec& s) { return J(s)->collide; },
            [J](SceneSpec& s, bool on) { J(s)->collide = on; });
        // Exact, or soft (engine::JointCompliance) said by frequency or by stiffness.
        const QStringList holds{tr("exact"), tr("soft, by frequency"), tr("soft, by stiffness")};
        auto holdOf = [holds](const engine::JointCompliance& c) {
            return (c.frequency > 0.0 ? holds[1] : c.soft() ? holds[2] : holds[0]).toStdString();
        };
        choiceField(
            tr("Holds"), QStringLiteral("soft"), holds,
            [J, holdOf](const SceneSpec& s) { return holdOf(J(s)->compliance); },
            [J, holds](SceneSpec& s, const std::string& text) {
                engine::JointCompliance& c = J(s)->compliance;
                if (text == holds[1].toStdString()) {
                    if (!(c.frequency > 0.0)) c = {.frequency = 10.0};  // ζ 1: critical
                } else if (text == holds[2].toStdString()) {
                    if (c.frequency > 0.0 || !c.soft()) {
                        // 100 kN/m and 1 kN·m/rad, damped, on what the joint holds
                        const bool lengths = engine::jointHoldsLengths(J(s)->type);
                        const bool angles = engine::jointHoldsAngles(J(s)->type);
                        c = {.stiffness = lengths ? 1e5 : 0.0,
                             .damping = lengths ? 1e3 : 0.0,
                             .rotationalStiffness = angles ? 1e3 : 0.0,
                             .rotationalDamping = angles ? 10.0 : 0.0};
                    }
                } else {
                    c = {};
                }
            });
        using Compliance = engine::JointCompliance;
        auto compliance = [&](QString label, QString unit, QString key,
                              double Compliance::*member) {
            numberField(
                std::move(label), std::move(unit), 1.0, QStringLiteral("soft.") + key,
                [J, member](const SceneSpec& s) { return J(s)->compliance.*member; },
                [J, member](SceneSpec& s, double v) { J(s)->compliance.*member = v; });
        };
        if (joint->compliance.frequency > 0.0) {
            compliance(tr("Frequency"), QStringLiteral("Hz"), QStringLiteral("frequency"),
                       &Compliance::frequency);
            compliance(tr("Damping ratio"), QString(), QStringLiteral("dampingRatio"),
                       &Compliance::dampingRatio);
        } else if (joint->compliance.soft()) {
            // The gains of the equations the joint has (and any the user set regardless).
            const engine::JointCompliance& c = joint->compliance;
            if (engine::jointHoldsLengths(joint->type) || c.stiffness > 0.0 || c.damping > 0.0) {
                compliance(tr("Stiffness"), QStringLiteral("N/m"), QStringLiteral("stiffness"),
                           &Compliance::stiffness);
                compliance(tr("Damping"), QStringLiteral("N·s/m"), QStringLiteral("damping"),
                           &Compliance::damping);
            }
            if (engine::jointHoldsAngles(joint->type) || c.rotationalStiffness > 0.0 ||
                c.rotationalDamping > 0.0) {
                compliance(tr("Rotational stiffness"), QStringLiteral("N·m/rad"),
                           QStringLiteral("rotationalStiffness"), &Compliance::rotationalStiffness);
                compliance(tr("Rotational damping"), QStringLiteral("N·m·s/rad"),
                           QStringLiteral("rotationalDamping"), &Compliance::rotationalDamping);
            }
        }
    } else if (const engine::ForceSpec* force = byId(spec.forces, id)) {
        auto F = [id](auto& s) { return byId(s.forces, id); };
        title_->setText(tr("Force (%1)").arg(toQString(engine::forceTypeName(force->type))));
        nameField();
        QStringList types;
        for (int k = 0; k <= static_cast<int>(engine::ForceType::JointController); ++k)
            types << toQString(engine::forceTypeName(static_cast<engine::ForceType>(k)));
        choiceField(
            tr("Type"), QStringLiteral("type"), types,
            [F](const SceneSpec& s) { return std::string(engine::forceTypeName(F(s)->type)); },
            [F](SceneSpec& s, const std::string& text) {
                F(s)->type = engine::forceTypeFromName(text).value_or(F(s)->type);
            });
        auto scalar = [&](QString label, QString unit, double scale, QString key,
                          double engine::ForceSpec::*member) {
            numberField(
                std::move(label), std::move(unit), scale, std::move(key),
                [F, member](const SceneSpec& s) { return F(s)->*member; },
                [F, member](SceneSpec& s, double v) { F(s)->*member = v; });
        };
        auto vector = [&](QString label, QString unit, QString key,
                          engine::Vec3 engine::ForceSpec::*member) {
            vectorField(
                std::move(label), std::move(unit), 1.0, std::move(key),
                [F, member](const SceneSpec& s) { return toNumbers(F(s)->*member); },
                [F, member](SceneSpec& s, const Numbers& n) { F(s)->*member = toVec(n); });
        };
        auto expression = [&](QString label, QString key, int component, QString unit) {
            expressionField(
                std::move(label), std::move(key), std::move(unit),
                [F, component](const SceneSpec& s) { return F(s)->components[component]; },
                [F, component](SceneSpec& s, const std::string& text) {
                    F(s)->components[component] = text;
                });
        };
        switch (force->type) {
        case engine::ForceType::PointForce:
        case engine::ForceType::PointTorque: {
            const QString unit = force->type == engine::ForceType::PointForce
                                     ? QStringLiteral("N")
                                     : QStringLiteral("N·m");
            markerChoice(tr("Marker"), QStringLiteral("marker"), &engine::ForceSpec::markerI, F);
            expression(tr("X"), QStringLiteral("components"), 0, unit);
            expression(tr("Y"), QStringLiteral("components.y"), 1, unit);
            expression(tr("Z"), QStringLiteral("components.z"), 2, unit);
            choiceField(
                tr("Axes"), QStringLiteral("frame"),
                {QStringLiteral("world"), QStringLiteral("marker")},
                [F](const SceneSpec& s) {
                    return std::string(F(s)->inMarkerFrame ? "marker" : "world");
                },
                [F](SceneSpec& s, const std::string& text) {
                    F(s)->inMarkerFrame = text == "marker";
                });
            break;
        }
        case engine::ForceType::SpringDamper:
            markerChoice(tr("Marker I"), QStringLiteral("markerI"), &engine::ForceSpec::markerI, F);
            markerChoice(tr("Marker J"), QStringLiteral("markerJ"), &engine::ForceSpec::markerJ, F);
            scalar(tr("Stiffness"), QStringLiteral("N/m"), 1.0, QStringLiteral("stiffness"),
                   &engine::ForceSpec::stiffness);
            scalar(tr("Damping"), QStringLiteral("N·s/m"), 1.0, QStringLiteral("damping"),
                   &engine::ForceSpec::damping);
            scalar(tr("Free length"), QStringLiteral("m"), 1.0, QStringLiteral("freeLength"),
                   &engine::ForceSpec::freeLength);
            scalar(tr("Preload"), QStringLiteral("N"), 1.0, QStringLiteral("preload"),
                   &engine::ForceSpec::preload);
            break;
        case engine::ForceType::RotationalSpringDamper:
            jointChoice(tr("Joint"), QStringLiteral("joint"), F, &engine::ForceSpec::joint);
            scalar(tr("Stiffness"), QStringLiteral("N·m/rad"), 1.0, QStringLiteral("stiffness"),
                   &engine::ForceSpec::stiffness);
            scalar(tr("Damping"), QStringLiteral("N·m·s/rad"), 1.0, QStringLiteral("damping"),
                   &engine::ForceSpec::damping);
            scalar(tr("Free angle"), QStringLiteral("°"), kDeg, QStringLiteral("freeAngle"),
                   &engine::ForceSpec::freeLength);
            scalar(tr("Preload"), QStringLiteral("N·m"), 1.0, QStringLiteral("preload"),
                   &engine::ForceSpec::preload);
            break;
        case engine::ForceType::Bushing:
            markerChoice(tr("Marker I"), QStringLiteral("markerI"), &engine::ForceSpec::markerI, F);
            markerChoice(tr("Marker J"), QStringLiteral("markerJ"), &engine::ForceSpec::markerJ, F);
            vector(tr("Translational stiffness"), QStringLiteral("N/m"),
                   QStringLiteral("translationalStiffness"),
                   &engine::ForceSpec::translationalStiffness);
            vector(tr("Translational damping"), QStringLiteral("N·s/m"),
                   QStringLiteral("translationalDamping"),
                   &engine::ForceSpec::translationalDamping);
            vector(tr("Rotational stiffness"), QStringLiteral("N·m/rad"),
                   QStringLiteral("rotationalStiffness"), &engine::ForceSpec::rotationalStiffness);
            vector(tr("Rotational damping"), QStringLiteral("N·m·s/rad"),
                   QStringLiteral("rotationalDamping"), &engine::ForceSpec::rotationalDamping);
            break;
        case engine::ForceType::JointController: {
            const bool angle = force->axis == engine::JointAxis::Rotation;
            jointChoice(tr("Joint"), QStringLiteral("joint"), F, &engine::ForceSpec::joint);
            choiceField(
                tr("Axis"), QStringLiteral("axis"), axes,
                [F, axisOf](const SceneSpec& s) { return axisOf(F(s)->axis); },
                [F, axisFrom](SceneSpec& s, const std::string& text) {
                    F(s)->axis = axisFrom(text);
                });
            expression(tr("Target"), QStringLiteral("target"), 0,
                       angle ? QStringLiteral("rad") : QStringLiteral("m"));
            scalar(tr("kp"), angle ? QStringLiteral("N·m/rad") : QStringLiteral("N/m"), 1.0,
                   QStringLiteral("kp"), &engine::ForceSpec::stiffness);
            scalar(tr("kd"), angle ? QStringLiteral("N·m·s/rad") : QStringLiteral("N·s/m"), 1.0,
                   QStringLiteral("kd"), &engine::ForceSpec::damping);
            scalar(tr("Maximum effort"), angle ? QStringLiteral("N·m") : QStringLiteral("N"), 1.0,
                   QStringLiteral("maxEffort"), &engine::ForceSpec::maxEffort);
            break;
        }
        }
    } else if (byId(spec.contact.pairs, id)) {
        auto C = [id](auto& s) { return byId(s.contact.pairs, id); };
        title_->setText(tr("Contact pair"));
        nameField();
        QStringList parts;
        for (const engine::Part& p : spec.parts) parts << toQString(p.name);
        choiceField(
            tr("Part A"), QStringLiteral("partA"), parts,
            [C](const SceneSpec& s) { return C(s)->partA; },
            [C](SceneSpec& s, const std::string& text) { C(s)->partA = text; });
        choiceField(
            tr("Part B"), QStringLiteral("partB"), parts,
            [C](const SceneSpec& s) { return C(s)->partB; },
            [C](SceneSpec& s, const std::string& text) { C(s)->partB = text; });
        switchField(
            tr("Touch"), QStringLiteral("enabled"),
            [C](const SceneSpec& s) { return C(s)->enabled; },
            [C](SceneSpec& s, bool on) { C(s)->enabled = on; });
        // Optional overrides: blank keeps the parts' combined value.
        auto optional = [&](QString label, QString key,
                            std::optional<double> engine::ContactPairSpec::*member) {
            Field& f = textField(
                std::move(label), std::move(key),
                [C, member](const SceneSpec& s) {
                    const auto& v = C(s)->*member;
                    return v ? number(*v).toStdString() : std::string();
                },
                [C, member](SceneSpec& s, const std::string& text) {
                    auto& v = C(s)->*member;
                    if (text.empty())
                        v.reset();
                    else
                        v = QString::fromStdString(text).toDouble();
                },
                tr("blank: the parts' combined value"));
            f.checkText = [](const std::string& text) {
                bool ok = text.empty();
                if (!ok) QString::fromStdString(text).toDouble(&ok);
                return ok ? QString()
                          : tr("'%1' is not a number").arg(QString::fromStdString(text));
            };
        };
        optional(tr("Friction"), QStringLiteral("friction"), &engine::ContactPairSpec::friction);
        optional(tr("Restitution"), QStringLiteral("restitution"),
                 &engine::ContactPairSpec::restitution);
    } else if (const engine::MotionSpec* motion = byId(spec.motions, id)) {
        auto Mo = [id](auto& s) { return byId(s.motions, id); };
        title_->setText(tr("Motion"));
        nameField();
        QStringList joints;
        for (const engine::Joint& j : spec.joints)
            if (j.type == engine::JointType::Revolute || j.type == engine::JointType::Prismatic ||
                j.type == engine::JointType::Cylindrical)
                joints << toQString(j.name);
        choiceField(
            tr("Joint"), QStringLiteral("joint"), joints,
            [Mo](const SceneSpec& s) { return Mo(s)->joint; },
            [Mo](SceneSpec& s, const std::string& text) { Mo(s)->joint = text; });
        choiceField(
            tr("Axis"), QStringLiteral("axis"), axes,
            [Mo, axisOf](const SceneSpec& s) { return axisOf(Mo(s)->axis); },
            [Mo, axisFrom](SceneSpec& s, const std::string& text) {
                Mo(s)->axis = axisFrom(text);
            });
        const QStringList levels = {QStringLiteral("position"), QStringLiteral("velocity"),
                                    QStringLiteral("acceleration")};
        choiceField(
            tr("Level"), QStringLiteral("level"), levels,
            [Mo, levels](const SceneSpec& s) {
                return levels[static_cast<int>(Mo(s)->level)].toStdString();
            },
            [Mo, levels](SceneSpec& s, const std::string& text) {
                Mo(s)->level = static_cast<engine::MotionLevel>(
                    std::max<qsizetype>(0, levels.indexOf(QString::fromStdString(text))));
            });
        QString unit = motion->axis == engine::JointAxis::Rotation ? QStringLiteral("rad")
                                                                   : QStringLiteral("m");
        if (motion->level == engine::MotionLevel::Velocity) unit += QStringLiteral("/s");
        if (motion->level == engine::MotionLevel::Acceleration) unit += QStringLiteral("/s²");
        expressionField(
            tr("Expression"), QStringLiteral("expression"), unit,
            [Mo](const SceneSpec& s) { return Mo(s)->expression; },
            [Mo](SceneSpec& s, const std::string& text) { Mo(s)->expression = text; });
    } else {
        title_->setText(tr("Scene"));
        textField(
            tr("Scene name"), QStringLiteral("name"), [](const SceneSpec& s) { return s.name; },
            [](SceneSpec& s, const std::string& text) { s.name = text; });
        textField(
            tr("Description"), QStringLiteral("description"),
            [](const SceneSpec& s) { return s.description; },
            [](SceneSpec& s, const std::string& text) { s.description = text; });
        vectorField(
            tr("Gravity"), QStringLiteral("m/s²"), 1.0, QStringLiteral("gravity"),
            [](const SceneSpec& s) { return toNumbers(s.gravity); },
            [](SceneSpec& s, const Numbers& n) { s.gravity = toVec(n); });
        heading(tr("Solver"));
        const QStringList integrators = {
            QStringLiteral("dopri45"), QStringLiteral("rk4"), QStringLiteral("symplecticEuler"),
            QStringLiteral("implicitEuler"), QStringLiteral("timeStepping")};
        choiceField(
            tr("Integrator"), QStringLiteral("settings.integrator"), integrators,
            [](const SceneSpec& s) {
                return std::string(engine::integratorName(s.settings.integrator));
            },
            [](SceneSpec& s, const std::string& text) {
                if (auto type = engine::integratorFromName(text)) s.settings.integrator = *type;
            });
        auto setting = [&](QString label, QString unit, QString key, auto member,
                           bool integer = false) {
            Field& f = numberField(
                std::move(label), std::move(unit), 1.0, std::move(key),
                [member](const SceneSpec& s) { return static_cast<double>(s.settings.*member); },
                [member](SceneSpec& s, double v) {
                    using T = std::remove_reference_t<decltype(s.settings.*member)>;
                    s.settings.*member = static_cast<T>(v);
                });
            f.integer = integer;
        };
        setting(tr("Step size"), QStringLiteral("s"), QStringLiteral("settings.stepSize"),
                &engine::SolverSettings::stepSize);
        setting(tr("Output interval (0: step size)"), QStringLiteral("s"),
                QStringLiteral("settings.outputInterval"), &engine::SolverSettings::outputInterval);
        setting(tr("Largest step (0: none)"), QStringLiteral("s"),
                QStringLiteral("settings.maxStep"), &engine::SolverSettings::maxStep);
        setting(tr("End time (0: none; Play stops there)"), QStringLiteral("s"),
                QStringLiteral("settings.endTime"), &engine::SolverSettings::endTime);
        setting(tr("Relative tolerance"), QString(), QStringLiteral("settings.relativeTolerance"),
                &engine::SolverSettings::relativeTolerance);
        setting(tr("Absolute tolerance"), QString(), QStringLiteral("settings.absoluteTolerance"),
                &engine::SolverSettings::absoluteTolerance);
        setting(tr("Projection tolerance"), QStringLiteral("m"),
                QStringLiteral("settings.projectionTolerance"),
                &engine::SolverSettings::projectionTolerance);
        setting(tr("Projection iterations"), QString(),
                QStringLiteral("settings.maxProjectionIterations"),
                &engine::SolverSettings::maxProjectionIterations, true);
        heading(tr("Contact"));
        switchField(
            tr("Contact"), QStringLiteral("contact.enabled"),
            [](const SceneSpec& s) { return s.contact.enabled; },
            [](SceneSpec& s, bool on) {
                s.contact.enabled = on;
                if (on) s.settings.integrator = engine::IntegratorType::TimeStepping;
            });
        choiceField(
            tr("Contact solver"), QStringLiteral("contact.solver"),
            {QStringLiteral("pgs"), QStringLiteral("lemke")},
            [](const SceneSpec& s) {
                return std::string(engine::contactSolverName(s.contact.solver));
            },
            [](SceneSpec& s, const std::string& text) {
                s.contact.solver = text == "lemke"
                                       ? engine::ContactSolverType::Lemke
                                       : engine::ContactSolverType::ProjectedGaussSeidel;
            });
        choiceField(
            tr("Friction model"), QStringLiteral("contact.friction"),
            {QStringLiteral("box"), QStringLiteral("cone")},
            [](const SceneSpec& s) {
                return std::string(engine::frictionModelName(s.contact.friction));
            },
            [](SceneSpec& s, const std::string& text) {
                s.contact.friction =
                    text == "cone" ? engine::FrictionModel::Cone : engine::FrictionModel::Box;
            });
        auto contact = [&](QString label, QString unit, QString key, auto member,
                           bool integer = false) {
            Field& f = numberField(
                std::move(label), std::move(unit), 1.0, std::move(key),
                [member](const SceneSpec& s) { return static_cast<double>(s.contact.*member); },
                [member](SceneSpec& s, double v) {
                    using T = std::remove_reference_t<decltype(s.contact.*member)>;
                    s.contact.*member = static_cast<T>(v);
                });
            f.integer = integer;
        };
        contact(tr("Cone facets"), QString(), QStringLiteral("contact.coneFacets"),
                &engine::ContactSettings::coneFacets, true);
        contact(tr("Solver sweeps"), QString(), QStringLiteral("contact.iterations"),
                &engine::ContactSettings::iterations, true);
        contact(tr("Solver tolerance"), QStringLiteral("m/s"), QStringLiteral("contact.tolerance"),
                &engine::ContactSettings::tolerance);
        contact(tr("Margin"), QStringLiteral("m"), QStringLiteral("contact.margin"),
                &engine::ContactSettings::margin);
        contact(tr("Restitution threshold"), QStringLiteral("m/s"),
                QStringLiteral("contact.restitutionThreshold"),
                &engine::ContactSettings::restitutionThreshold);
        contact(tr("Stabilization"), QString(), QStringLiteral("contact.stabilization"),
                &engine::ContactSettings::stabilization);
        contact(tr("Slop"), QStringLiteral("m"), QStringLiteral("contact.slop"),
                &engine::ContactSettings::slop);
        contact(tr("Contact stiffness"), QStringLiteral("N/m"), QStringLiteral("contact.stiffness"),
                &engine::ContactSettings::stiffness);
        contact(tr("Contact damping"), QStringLiteral("N·s/m"), QStringLiteral("contact.damping"),
                &engine::ContactSettings::damping);
        contact(tr("Contact frequency"), QStringLiteral("Hz"), QStringLiteral("contact.frequency"),
                &engine::ContactSettings::frequency);
        contact(tr("Contact damping ratio"), QString(), QStringLiteral("contact.dampingRatio"),
                &engine::ContactSettings::dampingRatio);
    }
}

void PropertiesPanel::refreshValues() {
    const SceneSpec& spec = *spec_;
    for (auto& owned : fields_) {
        Field& f = *owned;
        switch (f.kind) {
        case Field::Kind::Number:
        case Field::Kind::Vector: {
            const Numbers values = f.getNumbers(spec);
            for (int k = 0; k < 3; ++k)
                if (f.edits[k])
                    showNumber(f.edits[k], values[static_cast<std::size_t>(k)] * f.scale);
            break;
        }
        case Field::Kind::Text:
        case Field::Kind::Colour:
            f.edits[0]->setText(QString::fromStdString(f.getText(spec)));
            f.edits[0]->setCursorPosition(0);  // read from its start, not its tail
            f.edits[0]->setToolTip(f.edits[0]->text());
            break;
        case Field::Kind::Switch: {
            const QSignalBlocker block(f.check);
            f.check->setChecked(f.getSwitch(spec));
            break;
        }
        case Field::Kind::Choice: {
            const QSignalBlocker block(f.combo);
            f.combo->setCurrentText(QString::fromStdString(f.getText(spec)));
            break;
        }
        case Field::Kind::Expression:
            f.expression->setText(QString::fromStdString(f.getText(spec)));
            break;
        case Field::Kind::Info:
            if (f.infoLabel) f.infoLabel->setText(f.info);
            break;
        case Field::Kind::Button:
        case Field::Kind::Heading:
            break;
        }
    }
}

void PropertiesPanel::rebuild() {
    std::vector<std::unique_ptr<Field>> previous = std::move(fields_);
    fields_.clear();
    if (spec_)
        defineFields();
    else
        title_->setText(tr("No scene"));
    // The same entity with the same fields (an edit of a value): the editors stay, keyboard
    // focus and scrolling with them, and show the new values. Stepping a value with the arrow
    // keys keeps working across the edits it makes.
    const bool sameFields = spec_ && id_ == shownId_ && shape_ == shownShape_ &&
                            !previous.empty() && previous.size() == fields_.size() &&
                            std::equal(previous.begin(), previous.end(), fields_.begin(),
                                       [](const auto& a, const auto& b) {
                                           return a->kind == b->kind && a->label == b->label &&
                                                  a->key == b->key && a->unit == b->unit &&
                                                  a->choices == b->choices && a->scale == b->scale;
                                       });
    if (sameFields) {
        for (std::size_t k = 0; k < fields_.size(); ++k) previous[k]->adopt(*fields_[k]);
        fields_ = std::move(previous);
        refreshValues();
        return;
    }
    shownId_ = id_;
    shownShape_ = shape_;
    // A rebuild can come from inside an editor's own signal (an edit applied): the old editors
    // are disconnected and deleted later, never under their own feet.
    for (const auto& f : previous) {
        for (QLineEdit* edit : f->edits)
            if (edit) edit->disconnect(this);
        if (f->check) f->check->disconnect(this);
        if (f->combo) f->combo->disconnect(this);
        if (f->expression) f->expression->disconnect(this);
        if (f->button) f->button->disconnect(this);
    }
    previous.clear();
    const int scrolled = scroll_->verticalScrollBar()->value();
    if (QWidget* old = scroll_->takeWidget()) {
        old->hide();
        old->deleteLater();
    }
    body_ = new QWidget;
    auto* column = new QVBoxLayout(body_);
    column->setContentsMargins(0, 0, 0, 0);
    form_ = new QFormLayout;
    column->addLayout(form_);
    column->addStretch(1);  // fields keep their natural height; the space left goes below them
    form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form_->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form_->setContentsMargins(0, 0, 0, 0);
    if (!spec_) {
        scroll_->setWidget(body_);
        return;
    }
    const SceneSpec& spec = *spec_;
    // Editors for the fields, filled with the current values.
    for (auto& owned : fields_) {
        Field& f = *owned;
        if (f.kind == Field::Kind::Heading) {
            auto* label = new QLabel(f.label);
            QFont font = label->font();
            font.setBold(true);
            label->setFont(font);
            label->setContentsMargins(0, 8, 0, 0);
            form_->addRow(label);
            continue;
        }
        if (f.kind == Field::Kind::Button) {
            f.button = new QPushButton(f.label);
            connect(f.button, &QPushButton::clicked, this, [this, &f] { commitField(f); });
            form_->addRow(QString(), f.button);
            continue;
        }
        auto* row = new QWidget;
        auto* rowLayout = new QVBoxLayout(row);
        rowLayout->setContentsMargins(0, 0, 0, 0);
        auto* line = new QHBoxLayout;
        switch (f.kind) {
        case Field::Kind::Switch:
            f.check = new QCheckBox;
            f.check->setChecked(f.getSwitch(spec));
            connect(f.check, &QCheckBox::toggled, this, [this, &f](bool on) {
                if (f.local)
                    f.local(on);
                else
                    commitField(f);
            });
            line->addWidget(f.check);
            break;
        case Field::Kind::Text:
        case Field::Kind::Colour:
            f.edits[0] = new QLineEdit(QString::fromStdString(f.getText(spec)));
            f.edits[0]->setCursorPosition(0);  // read from its start, not its tail
            f.edits[0]->setToolTip(f.edits[0]->text());
            line->addWidget(f.edits[0]);
            if (f.kind == Field::Kind::Colour) {
                auto* pick = new QToolButton;
                pick->setText(QStringLiteral("…"));
                pick->setToolTip(tr("Choose a colour"));
                pick->setStyleSheet(QStringLiteral("background: %1;").arg(f.edits[0]->text()));
                connect(pick, &QToolButton::clicked, this, [this, &f] {
                    const QColor colour =
                        QColorDialog::getColor(QColor(f.edits[0]->text()), this, tr("Part colour"));
                    if (!colour.isValid()) return;
                    f.edits[0]->setText(colour.name());
                    commitField(f);
                });
                line->addWidget(pick);
            }
            break;
        case Field::Kind::Choice: {
            f.combo = new QComboBox;
            f.combo->addItems(f.choices);
            const QString current = QString::fromStdString(f.getText(spec));
            if (f.combo->findText(current) < 0)
                f.combo->addItem(current);  // e.g. a dangling reference
            f.combo->setCurrentText(current);
            connect(f.combo, &QComboBox::activated, this, [this, &f] { commitField(f); });
            line->addWidget(f.combo, 1);
            break;
        }
        case Field::Kind::Expression:
            f.expression = new ExpressionEditor;
            f.expression->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
            f.expression->setUnit(f.unit);
            f.expression->setText(QString::fromStdString(f.getText(spec)));
            connect(f.expression, &ExpressionEditor::committed, this,
                    [this, &f] { commitField(f); });
            line->addWidget(f.expression);
            break;
        case Field::Kind::Info: {
            auto* label = new QLabel(f.info);
            f.infoLabel = label;
            label->setTextInteractionFlags(Qt::TextSelectableByMouse);
            label->setStyleSheet(QStringLiteral("color: palette(mid);"));
            line->addWidget(label);
            break;
        }
        default: {
            const Numbers values = f.getNumbers(spec);
            for (int k = 0; k < (f.kind == Field::Kind::Vector ? 3 : 1); ++k) {
                f.edits[k] = new QLineEdit;
                f.edits[k]->installEventFilter(this);  // arrow keys and the wheel step the value
                f.edits[k]->setAlignment(Qt::AlignRight);
                showNumber(f.edits[k], values[static_cast<std::size_t>(k)] * f.scale);
                line->addWidget(f.edits[k]);
            }
        }
        }
        for (QLineEdit* edit : f.edits)
            if (edit)
                connect(edit, &QLineEdit::editingFinished, this, [this, &f] { commitField(f); });
        if (!f.unit.isEmpty() && f.kind != Field::Kind::Expression)
            line->addWidget(new QLabel(f.unit));
        rowLayout->addLayout(line);
        f.message = new QLabel;
        f.message->setWordWrap(true);
        f.message->setStyleSheet(QStringLiteral("color: #d9534f;"));
        f.message->hide();
        rowLayout->addWidget(f.message);
        auto* label = new QLabel(f.label);
        label->setWordWrap(true);
        if (!f.key.isEmpty()) label->setToolTip(tr("Scene file key: %1").arg(f.key));
        form_->addRow(label, row);
    }
    scroll_->setWidget(body_);
    scroll_->verticalScrollBar()->setValue(scrolled);
}

void PropertiesPanel::commitField(Field& f) {
    if (!spec_) return;
    SceneSpec after = *spec_;
    auto refuse = [&](const QString& reason) {
        if (!f.message) return;
        f.message->setText(reason);
        f.message->show();
    };
    if (f.message) f.message->hide();
    switch (f.kind) {
    case Field::Kind::Heading:
    case Field::Kind::Info:
        return;
    case Field::Kind::Button:
        f.action(after);
        break;
    case Field::Kind::Switch:
        f.setSwitch(after, f.check->isChecked());
        break;
    case Field::Kind::Choice:
    case Field::Kind::Expression:
    case Field::Kind::Text:
    case Field::Kind::Colour: {
        const QString shown = f.kind == Field::Kind::Choice       ? f.combo->currentText()
                              : f.kind == Field::Kind::Expression ? f.expression->text()
                                                                  : f.edits[0]->text();
        const std::string text = shown.trimmed().toStdString();
        if (text == f.getText(*spec_)) return;
        if (f.kind == Field::Kind::Expression && !f.expression->isValid())
            return refuse(f.expression->error());
        if (f.checkText) {
            if (const QString reason = f.checkText(text); !reason.isEmpty()) return refuse(reason);
        }
        f.setText(after, text);
        break;
    }
    case Field::Kind::Number:
    case Field::Kind::Vector: {
        Numbers values = f.getNumbers(*spec_);
        bool changed = false;
        for (int k = 0; k < 3 && f.edits[k]; ++k) {
            bool ok = false;
            const double shown = f.edits[k]->text().trimmed().toDouble(&ok);
            if (!ok || !std::isfinite(shown))
                return refuse(tr("'%1' is not a number").arg(f.edits[k]->text()));
            if (f.integer && shown != std::round(shown))
                return refuse(tr("'%1' is not a whole number").arg(f.edits[k]->text()));
            // Only values the user changed are taken back (a shown value is rounded).
            if (f.edits[k]->text().trimmed() !=
                number(values[static_cast<std::size_t>(k)] * f.scale)) {
                values[static_cast<std::size_t>(k)] = shown / f.scale;
                changed = true;
            }
        }
        if (!changed) return;
        f.setNumbers(after, values);
        break;
    }
    }
    // The edit must not break the scene: the document refuses a problem it brings (one the
    // scene did not have before) with its reason, which stays beside the field (refuseEdit).
    const QString what = f.kind == Field::Kind::Button
                             ? f.label
                             : tr("Edit %1 of %2").arg(f.label.toLower(), title_->text().toLower());
    refusal_.clear();
    editedField_ = f.label;
    emit editRequested(
        after, what,
        f.kind == Field::Kind::Button ? QString() : QStringLiteral("%1/%2").arg(id_).arg(f.label));
    if (refusal_.isEmpty()) return;
    // Buttons have no line of their own: the reason goes under the title.
    if (f.kind == Field::Kind::Button) title_->setToolTip(refusal_);
    refuse(refusal_);
}

void PropertiesPanel::refuseEdit(const QString& reason) {
    refusal_ = reason;
}

bool PropertiesPanel::eventFilter(QObject* watched, QEvent* event) {
    int direction = 0;
    bool coarse = false;
    if (event->type() == QEvent::KeyPress) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Up) direction = 1;
        if (key->key() == Qt::Key_Down) direction = -1;
        coarse = key->modifiers() & Qt::ShiftModifier;
    } else if (event->type() == QEvent::Wheel && static_cast<QWidget*>(watched)->hasFocus()) {
        const auto* wheel = static_cast<QWheelEvent*>(event);
        direction = wheel->angleDelta().y() > 0 ? 1 : wheel->angleDelta().y() < 0 ? -1 : 0;
        coarse = wheel->modifiers() & Qt::ShiftModifier;
    }
    if (direction == 0) return QWidget::eventFilter(watched, event);
    for (auto& f : fields_)
        for (QLineEdit* edit : f->edits) {
            if (edit != watched) continue;
            bool ok = false;
            const double shown = edit->text().trimmed().toDouble(&ok);
            if (!ok) return true;
            // A step of the value's second significant digit (1° for angles, 1 for whole
            // numbers), ten times that with Shift; each step is an edit, and the steps of one
            // burst merge into one undo step.
            double step = f->integer        ? 1.0
                          : f->scale != 1.0 ? 1.0
                          : shown == 0.0
                              ? 0.001
                              : std::pow(10.0, std::floor(std::log10(std::abs(shown))) - 1.0);
            if (coarse) step *= 10.0;
            showNumber(edit, shown + direction * step);
            commitField(*f);
            return true;
        }
    return QWidget::eventFilter(watched, event);
}

PropertiesPanel::Field* PropertiesPanel::find(const QString& labelOrKey) const {
    auto editable = [](const Field& f) {
        return f.kind != Field::Kind::Heading && f.kind != Field::Kind::Info;
    };
    for (const auto& f : fields_)
        if (f->label == labelOrKey && editable(*f)) return f.get();
    for (const auto& f : fields_)
        if (!f->key.isEmpty() && f->key == labelOrKey) return f.get();
    return nullptr;
}

QWidget* PropertiesPanel::editor(const QString& label, int component) const {
    const Field* f = find(label);
    if (!f) return nullptr;
    switch (f->kind) {
    case Field::Kind::Switch:
        return f->check;
    case Field::Kind::Choice:
        return f->combo;
    case Field::Kind::Expression:
        return f->expression;
    case Field::Kind::Button:
        return f->button;
    default:
        return component >= 0 && component < 3 ? f->edits[component] : nullptr;
    }
}

QWidget* PropertiesPanel::editorForKey(const QString& key, int component) const {
    for (const auto& f : fields_)
        if (f->key == key) return editor(f->label, component);
    return nullptr;
}

QStringList PropertiesPanel::keys() const {
    QStringList out;
    for (const auto& f : fields_)
        if (!f->key.isEmpty() && editor(f->label)) out << f->key;
    return out;
}

QString PropertiesPanel::message(const QString& label) const {
    const Field* f = find(label);
    if (!f || !f->message) return {};
    return f->message->isHidden() ? QString() : f->message->text();
}

void PropertiesPanel::commit(const QString& label) {
    if (Field* f = find(label)) commitField(*f);
}

bool PropertiesPanel::press(const QString& label) {
    Field* f = find(label);
    if (!f || f->kind != Field::Kind::Button) return false;
    commitField(*f);
    return true;
}

}  // namespace ui
