// Every field of every entity of the scene format (resources/scene.schema.json, documented in
// docs/scene-format.md) has an editor in the properties panel. The test reads the schema when
// it runs and walks it, so a key added to the format without a field in the panel fails here.
//
// How schema keys map to the panel's field keys (PropertiesPanel::keys()):
// - an entity's own keys are plain ("mass", "markerI", "stiffness");
// - keys of an object nested in an entity or the scene get its name as a prefix
//   ("collision.mask", "settings.stepSize", "contact.margin");
// - a part's shapes ("geometry") are shown on the part's page, with keys "shape.<key>";
// - lists of entities (parts, their markers, joints, forces, motions, couplers, contact pairs)
//   are entities of their own, each checked on its own page; a linear coupler's terms are
//   shown on its page, with keys "terms.<key>" (the first term's; the next ones' end "#k");
// - a definition told apart by "type" (a force element's, a coupler's variants) is checked per
//   type, and so
//   are the keys the schema requires for one type ("a mesh needs its file", "a distance joint
//   its length");
// - the six-number inertia also has the products of inertia ("inertia.products");
// - a moving frame's [x, y, z] of expressions has a row each, the second and third keys ending
//   "#1" and "#2" ("frameMotion.rotation#2": the yaw).
// Examples cover every mode: parts with a density and with a mass typed in, the ground part,
// a shape of each type, a joint of each type, a force element of each type, a coupler of each
// type, a moving frame.

#include "ui/properties/properties_panel.h"

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTest>

#include <gtest/gtest.h>

#include "engine/io/mesh_loader.h"
#include "engine/io/scene_format.h"
#include "engine/math/constants.h"
#include "engine/model/scene_spec.h"
#include "tests/support/scene_builders.h"
#include "ui/properties/expression_editor.h"
#include "ui/properties/property_fields.h"

namespace ui {
namespace {

using engine::EntityId;
using engine::SceneSpec;

constexpr const char* kSchemaPath = MOTUS_SOURCE_DIR "/resources/scene.schema.json";
constexpr const char* kMeshPath = MOTUS_SOURCE_DIR "/tests/engine/io/data/box.obj";

// The scene's own page (with its settings and contact), when nothing is selected.
const QString kScene = QStringLiteral("scene");
// A variable's page: the examples of this kind are indices in SceneSpec::variables, not ids.
const QString kVariable = QStringLiteral("variable");
// A sensor's page: indices in SceneSpec::sensors, as variables'.
const QString kSensor = QStringLiteral("sensor");
// A table's page: indices in SceneSpec::tables, as variables'.
const QString kTable = QStringLiteral("table");

// Top-level keys the properties panel does not edit, and why.
const std::map<QString, QString> kNotInProperties = {
    {QStringLiteral("format"), QStringLiteral("the file's format header, written by the writer")},
    {QStringLiteral("version"), QStringLiteral("the file's format header, written by the writer")},
    {QStringLiteral("minorVersion"),
     QStringLiteral("the file's format header, written by the writer")},
    {QStringLiteral("units"), QStringLiteral("the file's format header, written by the writer")},
    {QStringLiteral("plots"), QStringLiteral("edited in the plots panel (ui/plots/plots_panel.h)")},
    {QStringLiteral("analyses"),
     QStringLiteral("edited on each element's page: its 'Left out of …' switches")},
    {QStringLiteral("designVariables"),
     QStringLiteral(
         "edited in the Design Variables panel (ui/mainwindow/design_variables_panel.h)")},
};

// Lists of items that are shown on their owner's page rather than as entities, by the schema
// definition of their items, with the key prefix of their fields.
const std::map<QString, QString> kShownOnOwnerPage = {
    {QStringLiteral("shape"), QStringLiteral("shape.")},
    {QStringLiteral("couplerTerm"), QStringLiteral("terms.")},
};

// A key the panel must show on the page of an entity of kind `owner`: "part", "marker",
// "joint/type=distance" (a distance joint), "part/shape.type=mesh" (a part with a mesh shape),
// "force/type=bushing", "contact.pairs", "scene".
struct Expected {
    QString owner;
    QString key;
    bool operator<(const Expected& other) const {
        return std::pair(owner, key) < std::pair(other.owner, other.key);
    }
};

// A key of a JSON object, and the object under it (empty when it is not one).
QJsonValue at(const QJsonObject& object, const char* key) {
    return object.value(QLatin1String(key));
}
QJsonObject objectAt(const QJsonObject& object, const char* key) {
    return at(object, key).toObject();
}

// Walks the scene schema from its root and lists the keys the panel must show.
class SchemaWalker {
public:
    explicit SchemaWalker(QJsonObject root) : root_(std::move(root)) {
        walkProperties(objectAt(root_, "properties"), kScene, QString(), false);
    }

    const std::set<Expected>& expected() const { return expected_; }

private:
    // Follows "$ref": "#/$defs/<name>"; `defName` gets the last definition's name. A `true`
    // schema (any value) comes back as an empty object.
    QJsonObject resolve(const QJsonValue& node, QString* defName = nullptr) const {
        QJsonObject object = node.toObject();
        static const QString kDefs = QStringLiteral("#/$defs/");
        while (object.contains(QLatin1String("$ref"))) {
            const QString ref = at(object, "$ref").toString();
            if (!ref.startsWith(kDefs)) {
                ADD_FAILURE() << "unexpected $ref " << ref.toStdString();
                return {};
            }
            const QString name = ref.mid(kDefs.size());
            if (defName) *defName = name;
            object = objectAt(root_, "$defs").value(name).toObject();
        }
        return object;
    }

    // The values of the "const" or "enum" of the "type" in `schema`'s properties.
    QStringList typesOf(const QJsonObject& schema) const {
        const QJsonObject type = resolve(at(objectAt(schema, "properties"), "type"));
        QStringList out;
        if (type.contains(QLatin1String("const"))) out << at(type, "const").toString();
        for (const QJsonValue& v : at(type, "enum").toArray()) out << v.toString();
        return out;
    }

    static QString typed(const QString& owner, const QString& prefix, const QString& type) {
        return QStringLiteral("%1/%2type=%3").arg(owner, prefix, type);
    }

    // An entity (or a list item shown on its owner's page, with `prefix`).
    void walkEntity(const QJsonObject& definition, const QString& owner, const QString& prefix) {
        const QJsonObject shared = objectAt(definition, "properties");
        // Variants told apart by "type" (force elements): each variant's keys, and the keys
        // all variants share, on an entity of each of its types.
        const QJsonArray variants = at(definition, "oneOf").toArray();
        if (!variants.isEmpty() && !typesOf(variants.first().toObject()).isEmpty()) {
            for (const QJsonValue& v : variants) {
                const QJsonObject variant = v.toObject();
                for (const QString& type : typesOf(variant)) {
                    walkProperties(shared, typed(owner, prefix, type), prefix, true);
                    walkProperties(objectAt(variant, "properties"), typed(owner, prefix, type),
                                   prefix, true);
                }
            }
            return;
        }
        walkProperties(shared, owner, prefix, false);
        // Keys required for one type ("if type is mesh then file"), on an entity of that type.
        std::vector<QJsonObject> conditions = {definition};
        for (const QJsonValue& c : at(definition, "allOf").toArray())
            conditions.push_back(c.toObject());
        for (const QJsonObject& condition : conditions) {
            const QJsonObject when = objectAt(condition, "if");
            if (!objectAt(when, "properties").contains(QLatin1String("type"))) continue;
            for (const QString& type : typesOf(when))
                for (const QJsonValue& key : at(objectAt(condition, "then"), "required").toArray())
                    expected_.insert({typed(owner, prefix, type), prefix + key.toString()});
        }
    }

    // The keys of a "properties" object; `variant` when the owner is already one type.
    void walkProperties(const QJsonObject& properties, const QString& owner, const QString& prefix,
                        bool variant) {
        for (auto it = properties.begin(); it != properties.end(); ++it) {
            const QString& name = it.key();
            if (owner == kScene && prefix.isEmpty() && kNotInProperties.count(name)) continue;
            const QString key = prefix + name;
            const QJsonObject node = resolve(it.value());
            // A force law (a number, or {"table": name}), or three of them: the number and where
            // the law comes from.
            auto isLaw = [](const QJsonObject& n) {
                return at(n, "type").isArray() && n.contains(QLatin1String("properties"));
            };
            if (isLaw(node) || (at(node, "type").toString() == QLatin1String("array") &&
                                isLaw(resolve(at(node, "items"))))) {
                expected_.insert({owner, key});
                expected_.insert({owner, key + QStringLiteral(".table")});
                continue;
            }
            // A list of objects: entities of their own, or items shown on the owner's page.
            if (at(node, "type").toString() == QLatin1String("array")) {
                QString itemsName = key;  // inline items are named by their place ("contact.pairs")
                const QJsonObject items = resolve(at(node, "items"), &itemsName);
                if (items.contains(QLatin1String("properties"))) {
                    const auto shown = kShownOnOwnerPage.find(itemsName);
                    if (shown != kShownOnOwnerPage.end())
                        walkEntity(items, owner, prefix + shown->second);
                    else
                        walkEntity(items, itemsName, QString());
                    continue;
                }
            }
            // An object of named keys (settings, contact, material, collision): prefixed keys.
            if (node.contains(QLatin1String("properties"))) {
                walkProperties(objectAt(node, "properties"), owner, key + QLatin1Char('.'),
                               variant);
                continue;
            }
            expected_.insert({owner, key});
            // Inertia: three moments, optionally followed by the three products.
            if (at(node, "minItems").toInt() == 3 && at(node, "maxItems").toInt() == 6)
                expected_.insert({owner, key + QStringLiteral(".products")});
            // A choice of type (shapes, joints): an entity of each type shows its fields.
            if (name == QLatin1String("type") && !variant)
                for (const QString& type :
                     typesOf(QJsonObject{{QStringLiteral("properties"), properties}}))
                    expected_.insert({typed(owner, prefix, type), key});
        }
    }

    QJsonObject root_;
    std::set<Expected> expected_;
};

std::optional<QJsonObject> readSchema() {
    QFile file(QString::fromUtf8(kSchemaPath));
    if (!file.open(QIODevice::ReadOnly)) return std::nullopt;
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) return std::nullopt;
    return document.object();
}

QString toQString(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

engine::Marker marker(SceneSpec& spec, const std::string& name, const engine::Vec3& p_PM) {
    engine::Marker m;
    m.id = spec.newId();
    m.name = name;
    m.X_PM.p = p_PM;
    return m;
}

// A scene with an example of every entity in every mode: the ground with a plane; parts with
// a shape of each type, some with a density and some with their mass typed in; a moving frame;
// a joint of each type; a force element of each type; a motion; a contact pair.
SceneSpec everyEntity(std::shared_ptr<const engine::TriangleMesh> mesh) {
    SceneSpec spec;
    spec.name = "every_entity";
    spec.description = "one of each entity";

    engine::Part ground;
    ground.id = spec.newId();
    ground.name = "ground";
    ground.ground = true;
    engine::Shape plane;
    plane.type = engine::ShapeType::Plane;
    ground.shapes.push_back(plane);
    ground.markers.push_back(marker(spec, "origin", engine::Vec3::Zero()));
    spec.parts.push_back(ground);

    // One moving part per solid shape type, each with a marker "m".
    const std::pair<const char*, engine::ShapeType> solids[] = {
        {"block", engine::ShapeType::Box},    {"ball", engine::ShapeType::Sphere},
        {"rod", engine::ShapeType::Cylinder}, {"pill", engine::ShapeType::Capsule},
        {"tip", engine::ShapeType::Cone},     {"hull", engine::ShapeType::Mesh},
    };
    for (std::size_t k = 0; k < std::size(solids); ++k) {
        engine::Part part;
        part.id = spec.newId();
        part.name = solids[k].first;
        part.X_WP.p = engine::Vec3(0.3 * static_cast<double>(k + 1), 0.0, 0.5);
        engine::Shape shape;
        shape.type = solids[k].second;
        if (shape.type == engine::ShapeType::Mesh) {
            shape.mesh = mesh;
            shape.meshFile = kMeshPath;
        }
        part.shapes.push_back(shape);
        // The box and the mesh from a density; the others with their mass typed in.
        if (shape.type == engine::ShapeType::Box || shape.type == engine::ShapeType::Mesh)
            part.density = 7850.0;
        else
            part.mass = 2.0;
        part.markers.push_back(marker(spec, "m", engine::Vec3(0.0, 0.0, 0.05)));
        spec.parts.push_back(part);
    }

    // A joint of each type between a moving part and the ground, named after its type.
    for (int k = 0; k <= static_cast<int>(engine::JointType::PointOnSurface); ++k) {
        engine::Joint joint;
        joint.id = spec.newId();
        joint.type = static_cast<engine::JointType>(k);
        joint.name = std::string(engine::jointTypeName(joint.type));
        joint.markerI = {solids[static_cast<std::size_t>(k) % std::size(solids)].first, "m"};
        joint.markerJ = {"ground", "origin"};
        if (joint.type == engine::JointType::Distance) joint.length = 0.5;
        // Soft joints of both kinds: the fixed one by frequency, the revolute by stiffness.
        if (joint.type == engine::JointType::Fixed) joint.compliance.frequency = 20.0;
        if (joint.type == engine::JointType::Revolute) {
            joint.compliance.stiffness = 1e5;
            joint.compliance.rotationalStiffness = 1e3;
            // End stops of every kind: both ends and compliant here, the slide's lower end of
            // the cylindrical joint below.
            joint.limits = {{.lower = -1.0, .upper = 1.0, .frequency = 30.0}};
        }
        // Curves of both kinds: the point on a curve's a spline, the cam's contour expressions
        // and its follower a closed spline; the cam's follower may lift off.
        if (joint.type == engine::JointType::PointOnCurve)
            joint.curve.points = {
                {0.0, 0.0, 0.05}, {0.05, 0.02, 0.05}, {0.1, 0.02, 0.05}, {0.15, 0.0, 0.05}};
        if (joint.type == engine::JointType::CurveOnCurve) {
            joint.curve.type = engine::CurveType::Expression;
            joint.curve.x = "0.04*cos(s)";
            joint.curve.y = "0.01 + 0.04*sin(s)";
            joint.curve.end = 2.0 * engine::kPi;
            joint.curve.closed = true;
            joint.follower.points = {
                {0.01, 0.0, 0.0}, {0.0, 0.01, 0.0}, {-0.01, 0.0, 0.0}, {0.0, -0.01, 0.0}};
            joint.follower.closed = true;
            joint.liftOff = true;
            joint.limits = {{.restitution = 0.2}};
        }
        // A point on a surface of expressions (its grid kind's keys are the same field's).
        if (joint.type == engine::JointType::PointOnSurface) {
            joint.surface.x = "u";
            joint.surface.y = "v";
            joint.surface.z = "0.05 + 0.5*(u^2 + v^2)";
            joint.surface.uStart = joint.surface.vStart = -0.1;
            joint.surface.uEnd = joint.surface.vEnd = 0.1;
        }
        if (joint.type == engine::JointType::Cylindrical) {
            joint.limits = {{}, {.lower = -0.1}};
            // Friction on both coordinates: a pin's and a slide's.
            joint.friction = {{.coefficient = 0.1, .radius = 0.01},
                              {.coefficient = 0.2, .length = 0.05, .preload = 1.0}};
        }
        spec.joints.push_back(joint);
    }

    // A force element of each type, named after its type.
    auto force = [&](engine::ForceType type) -> engine::ForceSpec& {
        engine::ForceSpec f;
        f.id = spec.newId();
        f.type = type;
        f.name = std::string(engine::forceTypeName(type));
        spec.forces.push_back(f);
        return spec.forces.back();
    };
    force(engine::ForceType::PointForce).markerI = {"ball", "m"};
    spec.forces.back().components[2] = "-10*sin(time)";
    force(engine::ForceType::PointTorque).markerI = {"rod", "m"};
    spec.forces.back().inMarkerFrame = true;
    engine::ForceSpec& spring = force(engine::ForceType::SpringDamper);
    spring.markerI = {"block", "m"};
    spring.markerJ = {"ground", "origin"};
    spring.stiffness = 100.0;
    spring.damping = 2.0;
    spring.freeLength = 0.4;
    engine::ForceSpec& torsion = force(engine::ForceType::RotationalSpringDamper);
    torsion.joint = "revolute";
    torsion.stiffness = 5.0;
    // A table, the torsion spring's damping law.
    spec.tables.push_back({.name = "drag",
                           .interpolation = engine::TableInterpolation::Cubic,
                           .x = {-1.0, 0.0, 1.0},
                           .y = {-0.5, 0.0, 0.5},
                           .extensions = {}});
    // (a second torsion spring: the first keeps its constant law, whose number has a row)
    engine::ForceSpec& tabled = force(engine::ForceType::RotationalSpringDamper);
    tabled.name = "tabledTorsion";
    tabled.joint = "revolute";
    tabled.dampingTable = "drag";
    // A cable from the block over the ground's origin and the rod to the ball.
    engine::ForceSpec& cable = force(engine::ForceType::Cable);
    cable.markerI = {"block", "m"};
    cable.via = {engine::CableVia{.marker = {"ground", "origin"}},
                 engine::CableVia{.marker = {"rod", "m"}}};
    cable.markerJ = {"ball", "m"};
    cable.stiffness = 1e3;
    cable.freeLength = 1.0;
    engine::ForceSpec& bushing = force(engine::ForceType::Bushing);
    bushing.markerI = {"pill", "m"};
    bushing.markerJ = {"ground", "origin"};
    bushing.translationalStiffness = engine::Vec3::Constant(1e3);
    engine::ForceSpec& servo = force(engine::ForceType::JointController);
    servo.joint = "prismatic";
    servo.axis = engine::JointAxis::Translation;
    servo.components[0] = "0.1*sin(time)";
    servo.stiffness = 50.0;
    servo.damping = 1.0;
    servo.maxEffort = 20.0;
    engine::ForceSpec& computed = force(engine::ForceType::ComputedTorque);
    computed.joint = "prismatic";
    computed.axis = engine::JointAxis::Translation;
    computed.components[0] = "0.05*(1 - cos(time))";
    computed.stiffness = 400.0;
    computed.damping = 40.0;
    // Forces of the state: along a line, and on a joint's coordinate (the cylindrical joint's
    // slide: a joint with both coordinates offers the choice of axis).
    engine::ForceSpec& line = force(engine::ForceType::LineForce);
    line.markerI = {"ball", "m"};
    line.markerJ = {"ground", "origin"};
    line.components[0] = "-100*(DM(ball.m, ground.origin) - 0.3) - 2*VR(ball.m, ground.origin)";
    engine::ForceSpec& motor = force(engine::ForceType::JointForce);
    motor.joint = "cylindrical";
    motor.axis = engine::JointAxis::Translation;
    motor.components[0] = "-0.5*qd(cylindrical, 1) - stretch";

    // A variable, which the motor reads.
    spec.variables.push_back(
        {.name = "stretch", .expression = "DM(ball.m, ground.origin) - 0.3", .extensions = {}});
    // A sensor, which reads the variable.
    spec.sensors.push_back({.name = "taut",
                            .expression = "stretch",
                            .value = 0.05,
                            .direction = engine::SensorDirection::Rising,
                            .action = engine::SensorAction::Mark,
                            .extensions = {}});
    // A held variable, a sensor that sets it and one that switches the motor off; the motor
    // then starts off.
    spec.variables.push_back({.name = "laps", .extensions = {}, .initial = 0.0});
    spec.sensors.push_back({.name = "lap",
                            .expression = "time",
                            .value = 1.0,
                            .action = engine::SensorAction::Set,
                            .target = "laps",
                            .to = "laps + 1",
                            .extensions = {}});
    spec.sensors.push_back({.name = "cut",
                            .expression = "time",
                            .value = 2.0,
                            .action = engine::SensorAction::SwitchOn,
                            .target = motor.name,
                            .extensions = {}});
    motor.startsOn = false;

    // A moving frame: a deck turning and heaving, with nothing built on it.
    engine::Part deck;
    deck.id = spec.newId();
    deck.name = "deck";
    deck.X_WP.p = engine::Vec3(0.0, 0.5, 0.5);
    engine::Shape plate;
    plate.size = engine::Vec3(0.4, 0.3, 0.02);
    deck.shapes.push_back(plate);
    deck.mass = 5.0;
    deck.frameMotion.emplace();
    deck.frameMotion->translation[2] = "0.01*sin(2*pi*time)";
    deck.frameMotion->rotation[2] = "2*time";
    spec.parts.push_back(deck);

    engine::MotionSpec motion;
    motion.id = spec.newId();
    motion.name = "spin";
    motion.joint = "cylindrical";
    motion.expression = "2*time";
    spec.motions.push_back(motion);

    // A coupler of each type, on the joints that have the coordinates it needs.
    using engine::CouplerType;
    auto coupler = [&](const char* name, CouplerType type, const char* jointI, const char* jointJ) {
        return engine::test::addCoupler(spec, name, type, jointI, jointJ);
    };
    coupler("mesh", CouplerType::Gear, "revolute", "cylindrical")->ratio = 2.0;
    coupler("teeth", CouplerType::RackPinion, "revolute", "prismatic")->radius = 0.02;
    coupler("lead", CouplerType::Screw, "cylindrical", "")->pitch = 0.005;
    engine::CouplerSpec* belt = coupler("belt", CouplerType::Linear, "", "");
    belt->terms = {{"revolute", engine::JointAxis::Rotation, 1.0},
                   {"prismatic", engine::JointAxis::Translation, -0.5}};
    belt->offset = 0.1;

    engine::ContactPairSpec pair;
    pair.id = spec.newId();
    pair.name = "blockOnBall";
    pair.partA = "block";
    pair.partB = "ball";
    pair.friction = 0.3;
    spec.contact.pairs.push_back(pair);
    return spec;
}

// The kinds of entity each example is (as the walker names them), with the ids to show.
std::map<QString, std::vector<EntityId>> examplesOf(const SceneSpec& spec) {
    std::map<QString, std::vector<EntityId>> out;
    out[kScene].push_back(engine::kNoEntity);
    for (const engine::Part& part : spec.parts) {
        out[QStringLiteral("part")].push_back(part.id);
        for (const engine::Shape& shape : part.shapes) {
            const QString type = toQString(engine::shapeTypeName(shape.type));
            out[QStringLiteral("part/shape.type=") + type].push_back(part.id);
        }
        for (const engine::Marker& m : part.markers) out[QStringLiteral("marker")].push_back(m.id);
    }
    for (const engine::Joint& joint : spec.joints) {
        out[QStringLiteral("joint")].push_back(joint.id);
        out[QStringLiteral("joint/type=") + toQString(engine::jointTypeName(joint.type))].push_back(
            joint.id);
    }
    for (const engine::ForceSpec& force : spec.forces) {
        out[QStringLiteral("force")].push_back(force.id);
        out[QStringLiteral("force/type=") + toQString(engine::forceTypeName(force.type))].push_back(
            force.id);
    }
    for (const engine::MotionSpec& motion : spec.motions)
        out[QStringLiteral("motion")].push_back(motion.id);
    for (const engine::CouplerSpec& coupler : spec.couplers) {
        out[QStringLiteral("coupler")].push_back(coupler.id);
        out[QStringLiteral("coupler/type=") + toQString(engine::couplerTypeName(coupler.type))]
            .push_back(coupler.id);
    }
    for (const engine::ContactPairSpec& pair : spec.contact.pairs)
        out[QStringLiteral("contact.pairs")].push_back(pair.id);
    // Variables have no id: known by their index (kVariable pages).
    for (std::size_t k = 0; k < spec.variables.size(); ++k)
        out[kVariable].push_back(static_cast<EntityId>(k));
    for (std::size_t k = 0; k < spec.sensors.size(); ++k)
        out[kSensor].push_back(static_cast<EntityId>(k));
    for (std::size_t k = 0; k < spec.tables.size(); ++k)
        out[kTable].push_back(static_cast<EntityId>(k));
    return out;
}

// A widget the user can type into, pick from or switch.
bool isEditor(QWidget* widget) {
    if (!widget || !widget->isEnabled()) return false;
    if (auto* edit = qobject_cast<QLineEdit*>(widget)) return !edit->isReadOnly();
    if (auto* lines = qobject_cast<QPlainTextEdit*>(widget)) return !lines->isReadOnly();
    return qobject_cast<QComboBox*>(widget) || qobject_cast<QCheckBox*>(widget) ||
           qobject_cast<ExpressionEditor*>(widget);
}

class PropertiesSchemaTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string error;
        mesh = engine::io::loadMesh(kMeshPath, error);
        ASSERT_TRUE(mesh) << error;
        spec = everyEntity(mesh);
        for (const engine::Diagnostic& d : engine::validate(spec))
            ASSERT_NE(d.severity, engine::Severity::Error) << d.where << ": " << d.message;
        const std::optional<QJsonObject> schema = readSchema();
        ASSERT_TRUE(schema) << "cannot read " << kSchemaPath;
        walker.emplace(*schema);
        panel.resize(360, 800);
        panel.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
        QObject::connect(
            &panel, &PropertiesPanel::editRequested, &panel,
            [this](const SceneSpec& after, const QString&, const QString&) { edited = after; });
    }

    // Shows the page of entity `id` (kNoEntity: the scene's).
    void show(EntityId id) { panel.showEntity(&spec, id); }

    const engine::ForceSpec* forceOf(const SceneSpec& s, engine::ForceType type) const {
        for (const engine::ForceSpec& f : s.forces)
            if (f.type == type) return &f;
        return nullptr;
    }

    std::shared_ptr<const engine::TriangleMesh> mesh;
    SceneSpec spec;
    std::optional<SchemaWalker> walker;
    PropertiesPanel panel;
    std::optional<SceneSpec> edited;  // the scene of the last edit the panel offered
};

TEST_F(PropertiesSchemaTest, WalkerFindsTheKeysOfEveryEntityInTheSchema) {
    // The walk itself, checked on keys named in docs/scene-format.md: if it found nothing (or
    // the wrong names), the coverage test below would pass for no reason.
    const std::set<Expected>& expected = walker->expected();
    for (const Expected& e : std::vector<Expected>{
             {"scene", "gravity"},
             {"scene", "settings.stepSize"},
             {"scene", "contact.coneFacets"},
             {"part", "density"},
             {"part", "inertia"},
             {"part", "inertia.products"},
             {"part", "shape.orientation"},
             {"part", "material.restitution"},
             {"part", "collision.mask"},
             {"part", "frameMotion.translation"},
             {"part", "frameMotion.rotation"},
             {"part/shape.type=mesh", "shape.file"},
             {"part/shape.type=cone", "shape.length"},
             {"marker", "orientation"},
             {"joint/type=distance", "length"},
             {"joint", "soft.frequency"},
             {"joint", "soft.rotationalDamping"},
             {"joint/type=universal", "type"},
             {"joint/type=pointOnCurve", "curve"},
             {"joint/type=curveOnCurve", "follower"},
             {"joint/type=pointOnSurface", "surface"},
             {"joint", "liftOff"},
             {"force/type=pointTorque", "components"},
             {"force/type=pointForce", "frame"},
             {"force/type=rotationalSpringDamper", "freeAngle"},
             {"force/type=jointController", "maxEffort"},
             {"force/type=bushing", "rotationalDamping"},
             {"force/type=lineForce", "magnitude"},
             {"force/type=jointForce", "axis"},
             {"variable", "name"},
             {"variable", "expression"},
             {"sensor", "value"},
             {"sensor", "direction"},
             {"motion", "level"},
             {"coupler/type=gear", "ratio"},
             {"coupler/type=gear", "internal"},
             {"coupler/type=rackPinion", "radius"},
             {"coupler/type=screw", "joint"},
             {"coupler/type=linear", "terms.coefficient"},
             {"coupler/type=linear", "offset"},
             {"contact.pairs", "partB"},
         })
        EXPECT_TRUE(expected.count(e)) << e.owner.toStdString() << ": " << e.key.toStdString();
    // Keys that are not fields of their own: the header, entity lists, shapes' list.
    for (const char* key : {"format", "version", "plots", "parts", "joints", "forces", "motions",
                            "couplers", "contact.pairs"})
        EXPECT_FALSE(expected.count({kScene, QString::fromUtf8(key)})) << key;
    EXPECT_FALSE(expected.count({QStringLiteral("part"), QStringLiteral("geometry")}));
    EXPECT_FALSE(expected.count({QStringLiteral("part"), QStringLiteral("markers")}));
    // Every exemption names a top-level key of the schema (none is stale).
    const std::optional<QJsonObject> schema = readSchema();
    ASSERT_TRUE(schema);
    for (const auto& [key, reason] : kNotInProperties)
        EXPECT_TRUE(objectAt(*schema, "properties").contains(key))
            << key.toStdString() << " (" << reason.toStdString() << ")";
}

TEST_F(PropertiesSchemaTest, EveryFieldOfEveryEntityHasAnEditor) {
    const std::map<QString, std::vector<EntityId>> examples = examplesOf(spec);
    std::map<QString, std::set<QString>> shown;  // per kind of entity, the keys of its pages
    for (const auto& [owner, ids] : examples) {
        for (EntityId id : ids) {
            if (owner == kVariable)
                panel.showVariable(&spec, static_cast<int>(id));
            else if (owner == kSensor)
                panel.showSensor(&spec, static_cast<int>(id));
            else if (owner == kTable)
                panel.showTable(&spec, static_cast<int>(id));
            else
                show(id);
            for (const QString& key : panel.keys()) {
                shown[owner].insert(key);
                EXPECT_TRUE(isEditor(panel.editorForKey(key)))
                    << owner.toStdString() << " #" << id << ": the field of '" << key.toStdString()
                    << "' has no editor";
            }
        }
    }
    QStringList missing, noExample;
    for (const Expected& e : walker->expected()) {
        // A table's y is edited with its x, in one list of points (the row of "x").
        if (e.owner == kTable && e.key == QLatin1String("y")) {
            EXPECT_TRUE(shown[e.owner].count(QStringLiteral("x")));
            continue;
        }
        if (!examples.count(e.owner))
            noExample << e.owner;
        else if (!shown[e.owner].count(e.key))
            missing << QStringLiteral("%1: %2").arg(e.owner, e.key);
    }
    noExample.removeDuplicates();
    EXPECT_TRUE(noExample.isEmpty()) << "no example entity in the test scene for: "
                                     << noExample.join(QStringLiteral(", ")).toStdString();
    EXPECT_TRUE(missing.isEmpty()) << "schema keys without a field in the properties panel:\n  "
                                   << missing.join(QStringLiteral("\n  ")).toStdString();
}

// Whether a row of `kind` edits a value of the format's `rule`: numbers in number fields (whole
// numbers for integers), words in a choice of exactly the format's words, and so on.
bool rowFits(const PropertyField& f, const engine::io::format::Rule& rule, std::string& why) {
    using K = engine::io::format::Rule::Kind;
    using R = PropertyField::Kind;
    switch (f.kind) {
    case R::Number:
        if (rule.kind != K::Number && rule.kind != K::Integer) return false;
        if (f.integer != (rule.kind == K::Integer)) why = "whole numbers or not";
        return why.empty();
    case R::Vector:  // three numbers; an orientation as roll, pitch, yaw; inertia's moments
        return rule.kind == K::Vector3 || rule.kind == K::Object || rule.kind == K::Any;
    case R::Switch:  // on or off; or an object there or not (a part's moving frame)
        return rule.kind == K::Bool || rule.kind == K::Object;
    case R::Colour:
        return rule.kind == K::String;
    case R::Expression:
        return rule.kind == K::Expression || rule.kind == K::Any;
    case R::Points:  // a list of [x, y, z]
        return rule.kind == K::Array;
    case R::Text:  // text, or a number that may be left blank (a contact pair's overrides), or
                   // the tables of a bushing's laws, one per axis
        return rule.kind == K::String || rule.kind == K::Any ||
               (rule.kind == K::Number && f.format->value.empty()) || rule.orTable;
    case R::Choice:
        if (rule.kind == K::Word) {
            QStringList words;
            for (std::string_view w : rule.words) words << toQString(w);
            if (f.choices != words)
                why = "choices " + f.choices.join(QLatin1Char(' ')).toStdString() +
                      " are not the format's " + words.join(QLatin1Char(' ')).toStdString();
            return why.empty();
        }
        // A name of the scene (a marker, a joint, a part), how a soft joint holds, which ends
        // a joint coordinate's stops have (its limits: an object, or a list of them), or where
        // a force law comes from (its constant or a table).
        return rule.kind == K::String || rule.kind == K::Object || rule.kind == K::Any ||
               rule.orTable;
    case R::Info:
    case R::Button:
    case R::Heading:
        return true;
    }
    return false;
}

TEST_F(PropertiesSchemaTest, EveryRowHasTheKindRangeAndDefaultOfItsKeyInTheFormat) {
    // Rows of the panel's own, with no key of the file behind them.
    const std::set<QString> own = {
        QStringLiteral("massProperties"), QStringLiteral("analyses.simulate"),
        QStringLiteral("analyses.kinematics"), QStringLiteral("analyses.statics"),
        QStringLiteral("analyses.modes")};
    std::size_t rows = 0;
    for (const auto& [owner, ids] : examplesOf(spec))
        for (EntityId id : ids) {
            std::vector<std::unique_ptr<PropertyField>> fields;
            FieldOptions options;
            if (owner == kVariable) options.variable = static_cast<int>(id);
            if (owner == kSensor) options.sensor = static_cast<int>(id);
            if (owner == kTable) options.table = static_cast<int>(id);
            defineFields(
                spec,
                owner == kVariable || owner == kSensor || owner == kTable ? engine::kNoEntity : id,
                options, fields);
            for (const auto& field : fields) {
                const PropertyField& f = *field;
                if (f.key.isEmpty() || own.count(f.key)) continue;
                const std::string where = owner.toStdString() + " #" + std::to_string(id) + ": '" +
                                          f.key.toStdString() + "'";
                ASSERT_TRUE(f.format) << where << " is no key of the scene format";
                ++rows;
                const engine::io::format::Rule rule = f.format->rule();
                std::string why;
                EXPECT_TRUE(rowFits(f, rule, why))
                    << where << ": a row of kind " << static_cast<int>(f.kind)
                    << " for the format's '" << f.format->check << "' " << why;
                // Its tooltip says what the format says: the range and the default.
                if (rule.range.bounded()) {
                    EXPECT_TRUE(f.help.contains(toQString(rule.range.text()).toHtmlEscaped()))
                        << where;
                }
                if (f.format->fallback != "—") {
                    EXPECT_TRUE(f.help.contains(
                        toQString(f.format->fallback).remove(QLatin1Char('`')).toHtmlEscaped()))
                        << where << ": " << f.help.toStdString();
                }
            }
        }
    EXPECT_GT(rows, 100u);
    // How a row's key finds its field of the format.
    EXPECT_EQ(formatField("scene", "", "contact.solver"),
              &engine::io::format::object("contact").field("solver"));
    EXPECT_EQ(formatField("part", "", "inertia.products"),
              &engine::io::format::object("part").field("inertia"));
    EXPECT_EQ(formatField("force", "bushing", "kp"), nullptr);
    EXPECT_EQ(formatField("part", "", "massProperties"), nullptr);
}

TEST_F(PropertiesSchemaTest, JointTypeChosenInItsComboReachesTheScene) {
    const engine::Joint& fixed = spec.joints[static_cast<std::size_t>(engine::JointType::Fixed)];
    ASSERT_EQ(fixed.type, engine::JointType::Fixed);
    show(fixed.id);
    auto* combo = qobject_cast<QComboBox*>(panel.editorForKey(QStringLiteral("type")));
    ASSERT_TRUE(combo);
    const int spherical = combo->findText(QStringLiteral("spherical"));
    ASSERT_GE(spherical, 0);
    combo->setCurrentIndex(spherical);
    panel.commit(QStringLiteral("type"));
    ASSERT_TRUE(edited) << panel.message(QStringLiteral("type")).toStdString();
    const engine::Joint* after = edited->findJoint("fixed");
    ASSERT_TRUE(after);
    EXPECT_EQ(after->type, engine::JointType::Spherical);
    EXPECT_EQ(after->id, fixed.id);
}

TEST_F(PropertiesSchemaTest, StiffnessTypedIntoASpringReachesTheScene) {
    const engine::ForceSpec* spring = forceOf(spec, engine::ForceType::SpringDamper);
    ASSERT_TRUE(spring);
    show(spring->id);
    auto* edit = qobject_cast<QLineEdit*>(panel.editorForKey(QStringLiteral("stiffness")));
    ASSERT_TRUE(edit);
    EXPECT_EQ(edit->text(), QStringLiteral("100"));
    // Typed and confirmed with Return, as the user would.
    edit->selectAll();
    QTest::keyClicks(edit, QStringLiteral("250"));
    QTest::keyClick(edit, Qt::Key_Return);
    ASSERT_TRUE(edited) << panel.message(QStringLiteral("stiffness")).toStdString();
    const engine::ForceSpec* after = forceOf(*edited, engine::ForceType::SpringDamper);
    ASSERT_TRUE(after);
    EXPECT_EQ(after->stiffness, 250.0);
    EXPECT_EQ(after->damping, spring->damping);  // the other fields are untouched
}

TEST_F(PropertiesSchemaTest, StopsGivenToAJointInThePanelReachTheScene) {
    // The prismatic joint has no stops: its slide gets both ends, then its upper end typed.
    const engine::Joint* prismatic = spec.findJoint("prismatic");
    ASSERT_TRUE(prismatic);
    ASSERT_FALSE(prismatic->limited());
    show(prismatic->id);
    EXPECT_FALSE(panel.editorForKey(QStringLiteral("limit.upper")));
    auto* combo = qobject_cast<QComboBox*>(panel.editorForKey(QStringLiteral("limits")));
    ASSERT_TRUE(combo);
    EXPECT_EQ(combo->currentText(), QStringLiteral("none"));
    combo->setCurrentIndex(combo->findText(QStringLiteral("lower and upper")));
    panel.commit(QStringLiteral("limits"));
    ASSERT_TRUE(edited) << panel.message(QStringLiteral("limits")).toStdString();
    ASSERT_EQ(edited->findJoint("prismatic")->limits.size(), 1u);
    EXPECT_EQ(edited->findJoint("prismatic")->limits[0].lower, -0.1);
    EXPECT_EQ(edited->findJoint("prismatic")->limits[0].upper, 0.1);
    spec = *edited;
    edited.reset();
    show(prismatic->id);
    auto* upper = qobject_cast<QLineEdit*>(panel.editorForKey(QStringLiteral("limit.upper")));
    ASSERT_TRUE(upper);
    upper->selectAll();
    QTest::keyClicks(upper, QStringLiteral("0.25"));
    QTest::keyClick(upper, Qt::Key_Return);
    ASSERT_TRUE(edited) << panel.message(QStringLiteral("limit.upper")).toStdString();
    EXPECT_EQ(edited->findJoint("prismatic")->limits[0].upper, 0.25);
    EXPECT_EQ(edited->findJoint("prismatic")->limits[0].lower, -0.1);
    // The cylindrical joint's second coordinate (its slide) has its own rows, marked "#1".
    const engine::Joint* cylindrical = spec.findJoint("cylindrical");
    show(cylindrical->id);
    auto* slide = qobject_cast<QComboBox*>(panel.editorForKey(QStringLiteral("limits#1")));
    ASSERT_TRUE(slide);
    EXPECT_EQ(slide->currentText(), QStringLiteral("lower"));
    EXPECT_TRUE(panel.editorForKey(QStringLiteral("limit.lower#1")));
    EXPECT_FALSE(panel.editorForKey(QStringLiteral("limit.lower")));  // the angle has none
}

TEST_F(PropertiesSchemaTest, UniversalPlanarAndBallJointsOfferTheirStopsAndFriction) {
    // A universal joint: stops on both pins' angles ("#1" the second), no friction rows.
    const engine::Joint* universal = spec.findJoint("universal");
    ASSERT_TRUE(universal);
    show(universal->id);
    EXPECT_TRUE(panel.editorForKey(QStringLiteral("limits")));
    auto* second = qobject_cast<QComboBox*>(panel.editorForKey(QStringLiteral("limits#1")));
    ASSERT_TRUE(second);
    EXPECT_FALSE(panel.editorForKey(QStringLiteral("friction")));
    second->setCurrentIndex(second->findText(QStringLiteral("upper")));
    panel.commit(QStringLiteral("limits#1"));
    ASSERT_TRUE(edited) << panel.message(QStringLiteral("limits#1")).toStdString();
    const engine::Joint* after = edited->findJoint("universal");
    ASSERT_EQ(after->limits.size(), 2u);
    EXPECT_FALSE(after->limits[0].limited());
    EXPECT_EQ(after->limits[1].upper, engine::kPi / 2.0);  // a quarter turn, as an angle's
    for (const engine::Diagnostic& d : engine::validate(*edited))
        EXPECT_NE(d.severity, engine::Severity::Error) << d.where << ": " << d.message;
    // A planar joint: two slides and an angle.
    const engine::Joint* planar = spec.findJoint("planar");
    ASSERT_TRUE(planar);
    show(planar->id);
    EXPECT_TRUE(panel.editorForKey(QStringLiteral("limits#1")));
    EXPECT_TRUE(panel.editorForKey(QStringLiteral("limits#2")));
    EXPECT_FALSE(panel.editorForKey(QStringLiteral("friction")));
    // A ball joint: one friction, its torque against the turn about any axis.
    const engine::Joint* ball = spec.findJoint("spherical");
    ASSERT_TRUE(ball);
    show(ball->id);
    auto* friction = qobject_cast<QComboBox*>(panel.editorForKey(QStringLiteral("friction")));
    ASSERT_TRUE(friction);
    friction->setCurrentIndex(friction->findText(QStringLiteral("friction")));
    panel.commit(QStringLiteral("friction"));
    ASSERT_TRUE(edited) << panel.message(QStringLiteral("friction")).toStdString();
    ASSERT_EQ(edited->findJoint("spherical")->friction.size(), 1u);
    for (const engine::Diagnostic& d : engine::validate(*edited))
        EXPECT_NE(d.severity, engine::Severity::Error) << d.where << ": " << d.message;
}

TEST_F(PropertiesSchemaTest, AJointMadeSoftByFrequencyReachesTheScene) {
    const engine::Joint* prismatic = spec.findJoint("prismatic");
    ASSERT_TRUE(prismatic);
    ASSERT_FALSE(prismatic->compliance.soft());
    show(prismatic->id);
    EXPECT_FALSE(panel.editorForKey(QStringLiteral("soft.frequency")));  // exact: no gains
    auto* combo = qobject_cast<QComboBox*>(panel.editorForKey(QStringLiteral("soft")));
    ASSERT_TRUE(combo);
    EXPECT_EQ(combo->currentText(), QStringLiteral("exact"));
    combo->setCurrentIndex(combo->findText(QStringLiteral("soft, by frequency")));
    panel.commit(QStringLiteral("soft"));
    ASSERT_TRUE(edited) << panel.message(QStringLiteral("soft")).toStdString();
    const engine::Joint* after = edited->findJoint("prismatic");
    ASSERT_TRUE(after);
    EXPECT_EQ(after->compliance.frequency, 10.0);
    EXPECT_EQ(after->compliance.dampingRatio, 1.0);
    EXPECT_EQ(after->compliance.stiffness, 0.0);
    // Its page now offers the frequency, typed as the user would.
    spec = *edited;
    edited.reset();
    show(after->id);
    auto* frequency =
        qobject_cast<QLineEdit*>(panel.editorForKey(QStringLiteral("soft.frequency")));
    ASSERT_TRUE(frequency);
    frequency->selectAll();
    QTest::keyClicks(frequency, QStringLiteral("25"));
    QTest::keyClick(frequency, Qt::Key_Return);
    ASSERT_TRUE(edited);
    EXPECT_EQ(edited->findJoint("prismatic")->compliance.frequency, 25.0);
}

TEST_F(PropertiesSchemaTest, CollisionSwitchReachesTheScene) {
    const engine::Part& ball = *spec.findPart("ball");
    ASSERT_TRUE(ball.collision.enabled);
    show(ball.id);
    auto* check = qobject_cast<QCheckBox*>(panel.editorForKey(QStringLiteral("collision.enabled")));
    ASSERT_TRUE(check);
    EXPECT_TRUE(check->isChecked());
    check->click();
    ASSERT_TRUE(edited);
    const engine::Part* after = edited->findPart("ball");
    ASSERT_TRUE(after);
    EXPECT_FALSE(after->collision.enabled);
    EXPECT_EQ(after->mass, ball.mass);
}

// A joint controller's "Gravity compensation" switch reaches the scene; a computed-torque
// element has none (its model holds gravity already) and its gains are the error's rates.
TEST_F(PropertiesSchemaTest, GravityCompensationSwitchesAndComputedTorqueShowsItsGains) {
    const engine::ForceSpec* servo = forceOf(spec, engine::ForceType::JointController);
    ASSERT_TRUE(servo);
    ASSERT_FALSE(servo->gravityCompensation);
    show(servo->id);
    auto* check =
        qobject_cast<QCheckBox*>(panel.editorForKey(QStringLiteral("gravityCompensation")));
    ASSERT_TRUE(check);
    check->click();
    ASSERT_TRUE(edited);
    const engine::ForceSpec* after = forceOf(*edited, engine::ForceType::JointController);
    ASSERT_TRUE(after);
    EXPECT_TRUE(after->gravityCompensation);
    EXPECT_EQ(after->stiffness, servo->stiffness);

    const engine::ForceSpec* computed = forceOf(spec, engine::ForceType::ComputedTorque);
    ASSERT_TRUE(computed);
    show(computed->id);
    EXPECT_FALSE(panel.editorForKey(QStringLiteral("gravityCompensation")));
    ASSERT_TRUE(panel.editorForKey(QStringLiteral("kp")));
    ASSERT_TRUE(panel.editorForKey(QStringLiteral("target")));
    if (qEnvironmentVariableIsSet("MOTUS_SCREENSHOT_DIR"))
        panel.grab().save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") + "/computed_torque.png");
}

// A PD servo turned into computed torque in its Type combo keeps its behaviour on the part it
// moves: its gains are divided by that part's moment of inertia about the joint's axis (N·m/rad
// become 1/s²), and turned back they are what they were.
TEST_F(PropertiesSchemaTest, AServoTurnedIntoComputedTorqueKeepsItsFrequency) {
    const engine::ForceSpec* servo = forceOf(spec, engine::ForceType::JointController);
    ASSERT_TRUE(servo);
    const engine::EntityId id = servo->id;
    const double kp = servo->stiffness, kd = servo->damping;
    ASSERT_GT(kp, 0.0);
    auto turnInto = [&](const char* type) {
        show(id);
        auto* combo = qobject_cast<QComboBox*>(panel.editorForKey(QStringLiteral("type")));
        ASSERT_TRUE(combo);
        combo->setCurrentIndex(combo->findText(QString::fromLatin1(type)));
        panel.commit(QStringLiteral("type"));
        ASSERT_TRUE(edited) << panel.message(QStringLiteral("type")).toStdString();
        spec = *edited;
        edited.reset();
    };
    auto withId = [&](engine::EntityId e) -> const engine::ForceSpec* {
        for (const engine::ForceSpec& f : spec.forces)
            if (f.id == e) return &f;
        return nullptr;
    };
    turnInto("computedTorque");
    if (qEnvironmentVariableIsSet("MOTUS_SCREENSHOT_DIR")) {
        show(id);
        panel.grab().save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") + "/servo_turned.png");
    }
    const engine::ForceSpec* computed = withId(id);
    ASSERT_TRUE(computed);
    ASSERT_EQ(computed->type, engine::ForceType::ComputedTorque);
    // The same ratio kd / kp (the damping ratio at one frequency), other numbers: kp / I.
    EXPECT_NE(computed->stiffness, kp);
    EXPECT_NEAR(computed->damping / computed->stiffness, kd / kp, 1e-12 * kd / kp);
    turnInto("jointController");
    const engine::ForceSpec* back = withId(id);
    ASSERT_TRUE(back);
    EXPECT_NEAR(back->stiffness, kp, 1e-12 * kp);
    EXPECT_NEAR(back->damping, kd, 1e-12 * kd);
}

// A motion's "Active" switch deactivates it in the scene; its "Left out of vibration modes"
// switch puts it in the modes analysis' set only, the motion staying active for the others.
TEST_F(PropertiesSchemaTest, DeactivationSwitchesReachTheScene) {
    ASSERT_FALSE(spec.motions.empty());
    const engine::MotionSpec motion = spec.motions.front();
    show(motion.id);
    auto* active = qobject_cast<QCheckBox*>(panel.editorForKey(QStringLiteral("active")));
    ASSERT_TRUE(active);
    EXPECT_TRUE(active->isChecked());
    active->click();
    ASSERT_TRUE(edited);
    EXPECT_FALSE(edited->motions.front().active);

    edited.reset();
    show(motion.id);
    auto* modes = qobject_cast<QCheckBox*>(panel.editorForKey(QStringLiteral("analyses.modes")));
    ASSERT_TRUE(modes);
    if (qEnvironmentVariableIsSet("MOTUS_SCREENSHOT_DIR"))
        panel.grab().save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") + "/deactivation.png");
    EXPECT_FALSE(modes->isChecked());
    modes->click();
    ASSERT_TRUE(edited);
    EXPECT_TRUE(edited->motions.front().active);
    EXPECT_EQ(edited->analyses[static_cast<std::size_t>(engine::Analysis::Modes)].inactive.motions,
              std::vector<std::string>{motion.name});
    EXPECT_TRUE(
        edited->analyses[static_cast<std::size_t>(engine::Analysis::Statics)].inactive.empty());

    // The ground has no switch: it cannot be deactivated.
    for (const engine::Part& part : spec.parts)
        if (part.ground) {
            show(part.id);
            EXPECT_EQ(panel.editorForKey(QStringLiteral("active")), nullptr);
        }
}

const engine::CouplerSpec* couplerNamed(const SceneSpec& s, const std::string& name) {
    for (const engine::CouplerSpec& c : s.couplers)
        if (c.name == name) return &c;
    return nullptr;
}

TEST_F(PropertiesSchemaTest, AGearRatioTypedInReachesTheSceneAndTheJointsArePickedByName) {
    const engine::CouplerSpec* mesh = couplerNamed(spec, "mesh");
    ASSERT_TRUE(mesh);
    show(mesh->id);
    EXPECT_EQ(panel.findChild<QLabel*>(QStringLiteral("PropertiesTitle"))->text(),
              "Coupler (gear pair)");
    auto* ratio = qobject_cast<QLineEdit*>(panel.editorForKey(QStringLiteral("ratio")));
    ASSERT_TRUE(ratio);
    EXPECT_EQ(ratio->text(), QStringLiteral("2"));
    ratio->selectAll();
    QTest::keyClicks(ratio, QStringLiteral("1.5"));
    QTest::keyClick(ratio, Qt::Key_Return);
    ASSERT_TRUE(edited) << panel.message(QStringLiteral("ratio")).toStdString();
    EXPECT_EQ(couplerNamed(*edited, "mesh")->ratio, 1.5);
    // A gear's joints are the ones that turn: the prismatic joint is not offered.
    auto* jointJ = qobject_cast<QComboBox*>(panel.editorForKey(QStringLiteral("jointJ")));
    ASSERT_TRUE(jointJ);
    EXPECT_EQ(jointJ->currentText(), QStringLiteral("cylindrical"));
    EXPECT_LT(jointJ->findText(QStringLiteral("prismatic")), 0);
    EXPECT_GE(jointJ->findText(QStringLiteral("revolute")), 0);
    // The rack's joint is one that slides.
    show(couplerNamed(spec, "teeth")->id);
    auto* rack = qobject_cast<QComboBox*>(panel.editorForKey(QStringLiteral("jointJ")));
    ASSERT_TRUE(rack);
    EXPECT_GE(rack->findText(QStringLiteral("prismatic")), 0);
    EXPECT_LT(rack->findText(QStringLiteral("revolute")), 0);
}

TEST_F(PropertiesSchemaTest, ALinearCouplersTermsAndOffsetAreEditedRowByRow) {
    const engine::CouplerSpec* belt = couplerNamed(spec, "belt");
    ASSERT_TRUE(belt);
    show(belt->id);
    // The second term's rows end "#1"; its coefficient is per metre (a slide).
    auto* coefficient =
        qobject_cast<QLineEdit*>(panel.editorForKey(QStringLiteral("terms.coefficient#1")));
    ASSERT_TRUE(coefficient);
    EXPECT_EQ(coefficient->text(), QStringLiteral("-0.5"));
    coefficient->selectAll();
    QTest::keyClicks(coefficient, QStringLiteral("-2"));
    QTest::keyClick(coefficient, Qt::Key_Return);
    ASSERT_TRUE(edited) << panel.message(QStringLiteral("terms.coefficient#1")).toStdString();
    EXPECT_EQ(couplerNamed(*edited, "belt")->terms[1].coefficient, -2.0);
    EXPECT_EQ(couplerNamed(*edited, "belt")->terms[0].coefficient, 1.0);
    // The offset left blank: taken as the parts are placed.
    edited.reset();
    auto* offset = qobject_cast<QLineEdit*>(panel.editorForKey(QStringLiteral("offset")));
    ASSERT_TRUE(offset);
    EXPECT_EQ(offset->text(), QStringLiteral("0.1"));
    offset->clear();
    QTest::keyClick(offset, Qt::Key_Return);
    ASSERT_TRUE(edited);
    EXPECT_TRUE(std::isnan(couplerNamed(*edited, "belt")->offset));
    // A third term, then the button to take it away again.
    edited.reset();
    ASSERT_TRUE(panel.press(QStringLiteral("Add term")));
    ASSERT_TRUE(edited);
    EXPECT_EQ(couplerNamed(*edited, "belt")->terms.size(), 3u);
}

TEST_F(PropertiesSchemaTest, ACouplerOfAnotherTypeKeepsItsJoints) {
    // The gear pair between the revolute and the cylindrical joint becomes a linear coupler of
    // their angles, qI − qJ, as the parts are placed.
    const engine::CouplerSpec* mesh = couplerNamed(spec, "mesh");
    show(mesh->id);
    auto* type = qobject_cast<QComboBox*>(panel.editorForKey(QStringLiteral("type")));
    ASSERT_TRUE(type);
    type->setCurrentIndex(type->findText(QStringLiteral("linear")));
    panel.commit(QStringLiteral("type"));
    ASSERT_TRUE(edited) << panel.message(QStringLiteral("type")).toStdString();
    const engine::CouplerSpec* after = couplerNamed(*edited, "mesh");
    ASSERT_EQ(after->terms.size(), 2u);
    EXPECT_EQ(after->terms[0].joint, "revolute");
    EXPECT_EQ(after->terms[1].joint, "cylindrical");
    EXPECT_EQ(after->terms[0].coefficient, 1.0);
    EXPECT_EQ(after->terms[1].coefficient, -1.0);
    EXPECT_TRUE(after->jointI.empty());
    for (const engine::Diagnostic& d : engine::validate(*edited))
        EXPECT_NE(d.severity, engine::Severity::Error) << d.where << ": " << d.message;
}

}  // namespace
}  // namespace ui
