#include "ui/models/scene_tree.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QIcon>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>
#include <QStandardItemModel>

#include "engine/model/deactivation.h"
#include "engine/model/mass_properties.h"
#include "engine/model/scene_spec.h"
#include "ui/common/text.h"

namespace ui {
namespace {

QString shapeDetails(const engine::Shape& s) {
    const auto mm = [](double m) { return QString::number(m * 1000.0, 'g', 4); };
    switch (s.type) {
    case engine::ShapeType::Box:
        return QStringLiteral("box %1 × %2 × %3 mm")
            .arg(mm(s.size.x()), mm(s.size.y()), mm(s.size.z()));
    case engine::ShapeType::Sphere:
        return QStringLiteral("sphere r %1 mm").arg(mm(s.radius));
    case engine::ShapeType::Mesh:
        return QStringLiteral("mesh %1 (%2 triangles)")
            .arg(QString::fromStdString(s.meshFile))
            .arg(s.mesh ? static_cast<qlonglong>(s.mesh->triangles.size()) : 0);
    default:
        return QStringLiteral("%1 r %2 mm, length %3 mm")
            .arg(toQString(engine::shapeTypeName(s.type)), mm(s.radius), mm(s.length));
    }
}

// What a coupler is, its size and its joints: "gear 1.5 : 1: inputShaft → idlerShaft",
// "rack, r 20 mm: steering → rackSlide", "screw, 5 mm/turn: lead", "linear: a − 2·b (slide)".
QString couplerDetails(const engine::SceneSpec& spec, const engine::CouplerSpec& c) {
    const auto num = [](double v) { return QString::number(v, 'g', 4); };
    const QString joints = QStringLiteral("%1 → %2").arg(toQString(c.jointI), toQString(c.jointJ));
    switch (c.type) {
    case engine::CouplerType::Gear:
        return QObject::tr("gear %1 : 1%2: %3")
            .arg(num(c.ratio), c.internal ? QObject::tr(" internal") : QString(), joints);
    case engine::CouplerType::RackPinion:
        return QObject::tr("rack, r %1 mm: %2").arg(num(c.radius * 1000.0), joints);
    case engine::CouplerType::Screw:
        return QObject::tr("screw, %1 mm/turn%2: %3")
            .arg(num(c.pitch * 1000.0), c.pitch < 0.0 ? QObject::tr(" left-hand") : QString(),
                 toQString(c.jointI));
    case engine::CouplerType::Linear: {
        QString sum;
        for (const engine::CouplerTerm& t : c.terms) {
            const double k = t.coefficient;
            if (!sum.isEmpty())
                sum += k < 0.0 ? QStringLiteral(" − ") : QStringLiteral(" + ");
            else if (k < 0.0)
                sum += QStringLiteral("−");
            if (std::abs(k) != 1.0) sum += num(std::abs(k)) + QStringLiteral("·");
            sum += toQString(t.joint);
            // The slide of a joint that also turns is said so; a slider's is its only one.
            const engine::Joint* joint = spec.findJoint(t.joint);
            if (t.axis == engine::JointAxis::Translation && joint &&
                engine::jointAxes(joint->type).size() > 1)
                sum += QObject::tr(" (slide)");
        }
        if (!std::isnan(c.offset)) sum += QStringLiteral(" = ") + num(c.offset);
        return QObject::tr("linear: %1").arg(sum);
    }
    }
    return {};
}

// Small icons per entity kind, drawn once (no image files to ship).
enum class Kind {
    Part,
    Ground,
    Geometry,
    Marker,
    Joint,
    Force,
    Motion,
    Coupler,
    Contact,
    Plot,
    Variable,
    Sensor,
    Table,
    Group
};

// A small gear of `teeth` teeth about (cx, cy), its teeth `r` to `r` + 1.6 px out.
QPainterPath gearPath(double cx, double cy, double r, int teeth, double phase) {
    QPainterPath path;
    for (int k = 0; k < 4 * teeth; ++k) {
        const double a = phase + 2.0 * 3.14159265358979 * k / (4.0 * teeth);
        const double radius = (k % 4 == 1 || k % 4 == 2) ? r + 1.6 : r;
        const QPointF q(cx + radius * std::cos(a), cy + radius * std::sin(a));
        if (k == 0)
            path.moveTo(q);
        else
            path.lineTo(q);
    }
    path.closeSubpath();
    return path;
}

QIcon icon(Kind kind) {
    static QIcon cache[13];
    QIcon& cached = cache[static_cast<int>(kind)];
    if (!cached.isNull()) return cached;
    QPixmap pixmap(16, 16);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    switch (kind) {
    case Kind::Part:
        p.setBrush(QColor(0xe0, 0x70, 0x3c));
        p.setPen(QColor(0x80, 0x3c, 0x1c));
        p.drawRect(2, 4, 11, 9);
        p.drawLine(2, 4, 5, 1);
        p.drawLine(13, 4, 15, 1);
        break;
    case Kind::Ground:
        p.setPen(QPen(QColor(0x7a, 0x82, 0x8c), 2));
        p.drawLine(1, 10, 15, 10);
        for (int x = 3; x < 15; x += 4) p.drawLine(x, 11, x - 2, 15);
        break;
    case Kind::Geometry:
        p.setPen(QColor(0x8c, 0x9b, 0xab));
        p.setBrush(QColor(0xc8, 0xd0, 0xd8));
        p.drawEllipse(3, 3, 10, 10);
        break;
    case Kind::Marker:
        p.setPen(QPen(QColor(0xf2, 0x40, 0x33), 2));
        p.drawLine(3, 13, 14, 13);
        p.setPen(QPen(QColor(0x4c, 0xd9, 0x4c), 2));
        p.drawLine(3, 13, 3, 2);
        p.setPen(QPen(QColor(0x4c, 0x80, 0xff), 2));
        p.drawLine(3, 13, 10, 6);
        break;
    case Kind::Joint:
        p.setPen(QPen(QColor(0xa0, 0x78, 0x10), 1));
        p.setBrush(QColor(0xf2, 0xb8, 0x33));
        p.drawEllipse(3, 3, 10, 10);
        p.setBrush(Qt::white);
        p.drawEllipse(6, 6, 4, 4);
        break;
    case Kind::Force: {
        p.setPen(QPen(QColor(0xd9, 0xd9, 0x4c), 2));
        QPainterPath coil;
        coil.moveTo(1, 8);
        for (int k = 0; k < 5; ++k) coil.lineTo(3 + 3 * k, k % 2 ? 3 : 13);
        coil.lineTo(15, 8);
        p.drawPath(coil);
        break;
    }
    case Kind::Motion:
        p.setPen(QPen(QColor(0x3c, 0x8e, 0xe0), 2));
        p.drawArc(2, 2, 12, 12, 30 * 16, 270 * 16);
        p.drawLine(13, 4, 14, 9);
        break;
    case Kind::Coupler:
        p.setPen(QPen(QColor(0x5a, 0x3c, 0x9a), 1));
        p.setBrush(QColor(0xb8, 0x8c, 0xff));
        p.drawPath(gearPath(5.5, 6.5, 3.6, 6, 0.0));
        p.setBrush(QColor(0xd8, 0xc4, 0xff));
        p.drawPath(gearPath(11.0, 10.5, 2.8, 5, 0.3));
        break;
    case Kind::Contact:
        p.setPen(QColor(0x50, 0x50, 0x50));
        p.setBrush(QColor(0x4c, 0xe6, 0xff));
        p.drawEllipse(1, 4, 8, 8);
        p.setBrush(QColor(0xff, 0x8c, 0x1a));
        p.drawEllipse(7, 4, 8, 8);
        break;
    case Kind::Plot:
        p.setPen(QColor(0x60, 0x60, 0x60));
        p.drawLine(2, 14, 14, 14);
        p.drawLine(2, 14, 2, 2);
        p.setPen(QPen(QColor(0xe0, 0x70, 0x3c), 2));
        p.drawPolyline(QPolygon({QPoint(3, 11), QPoint(6, 6), QPoint(9, 9), QPoint(13, 3)}));
        break;
    case Kind::Variable: {
        // An italic x: a named quantity.
        QFont font = p.font();
        font.setPixelSize(14);
        font.setItalic(true);
        font.setBold(true);
        p.setFont(font);
        p.setPen(QColor(0x2e, 0x8b, 0x57));
        p.drawText(QRect(0, 0, 16, 16), Qt::AlignCenter, QStringLiteral("x"));
        break;
    }
    case Kind::Table:
        // Measured points and the curve through them.
        p.setPen(QPen(QColor(0x2e, 0x8b, 0x57), 1.5));
        p.drawPolyline(
            QPolygon({QPoint(2, 13), QPoint(5, 9), QPoint(8, 7), QPoint(11, 6), QPoint(14, 2)}));
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0x2e, 0x50, 0x90));
        for (const QPoint c : {QPoint(2, 13), QPoint(8, 7), QPoint(14, 2)}) p.drawEllipse(c, 2, 2);
        break;
    case Kind::Sensor:
        // A level and a curve crossing it, the crossing marked.
        p.setPen(QPen(QColor(0x90, 0x90, 0x90), 1, Qt::DashLine));
        p.drawLine(QPoint(1, 8), QPoint(15, 8));
        p.setPen(QPen(QColor(0x2e, 0x80, 0xd0), 2));
        p.drawPolyline(QPolygon({QPoint(2, 13), QPoint(6, 11), QPoint(10, 5), QPoint(14, 3)}));
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0xd0, 0x40, 0x30));
        p.drawEllipse(QPoint(8, 8), 2, 2);
        break;
    case Kind::Group:
        p.setPen(QColor(0x90, 0x90, 0x90));
        p.setBrush(QColor(0xd8, 0xc8, 0x90));
        p.drawRect(1, 4, 14, 10);
        p.drawRect(1, 2, 6, 2);
        break;
    }
    p.end();
    cached = QIcon(pixmap);
    return cached;
}

// A row: the name (renamable in place for entities with a name of their own) and details.
QList<QStandardItem*> row(const QString& name, const QString& details, engine::EntityId id,
                          Kind kind, bool renamable = false) {
    auto* nameItem = new QStandardItem(icon(kind), name);
    auto* detailItem = new QStandardItem(details);
    for (QStandardItem* item : {nameItem, detailItem}) {
        item->setEditable(false);
        item->setToolTip(details.isEmpty() ? name : name + QStringLiteral(": ") + details);
        if (id != engine::kNoEntity) item->setData(static_cast<qulonglong>(id), kEntityIdRole);
    }
    nameItem->setEditable(renamable && id != engine::kNoEntity);
    return {nameItem, detailItem};
}

// Says, on each element row under `group`, whether the model leaves it out ("inactive: on
// deactivated part 'rocker'", the row greyed and in italics) or an analysis does ("left out of
// modes"), before its details.
void markDeactivation(QStandardItem* group, const engine::SceneSpec& spec,
                      const std::map<std::string, std::string, std::less<>>& out,
                      std::vector<std::string> engine::InactiveSet::*kind) {
    for (int r = 0; r < group->rowCount(); ++r) {
        QStandardItem* nameItem = group->child(r, 0);
        QStandardItem* detailItem = group->child(r, 1);
        if (!nameItem || !detailItem) continue;
        const std::string name = nameItem->text().toStdString();
        QString note;
        if (const auto it = out.find(name); it != out.end()) {
            note = QObject::tr("inactive: %1").arg(toQString(it->second));
            for (QStandardItem* item : {nameItem, detailItem}) {
                item->setForeground(QBrush(QColor(0x8a, 0x8f, 0x96)));
                QFont font = item->font();
                font.setItalic(true);
                item->setFont(font);
            }
        } else {
            QStringList analyses;
            for (int a = 0; a < engine::kAnalysisCount; ++a) {
                const std::vector<std::string>& names =
                    spec.analyses[static_cast<std::size_t>(a)].inactive.*kind;
                if (std::find(names.begin(), names.end(), name) != names.end())
                    analyses << toQString(engine::analysisName(static_cast<engine::Analysis>(a)));
            }
            if (!analyses.isEmpty())
                note = QObject::tr("left out of %1").arg(analyses.join(QStringLiteral(", ")));
        }
        if (note.isEmpty()) continue;
        const QString details = detailItem->text().isEmpty()
                                    ? note
                                    : QStringLiteral("%1 · %2").arg(note, detailItem->text());
        detailItem->setText(details);
        for (QStandardItem* item : {nameItem, detailItem})
            item->setToolTip(nameItem->text() + QStringLiteral(": ") + details);
    }
}

}  // namespace

void populateSceneTree(QStandardItemModel& model, const engine::SceneSpec& spec) {
    model.clear();
    model.setHorizontalHeaderLabels({QObject::tr("Name"), QObject::tr("Details")});
    const engine::Deactivation out = engine::deactivation(spec, std::nullopt);

    auto parts = row(QObject::tr("Parts"), QString::number(spec.parts.size()), engine::kNoEntity,
                     Kind::Group);
    for (const engine::Part& part : spec.parts) {
        QString details = QObject::tr("ground");
        if (!part.ground && part.density)
            details = QObject::tr("%1 kg (%2 kg/m³)")
                          .arg(engine::partMassProperties(part).mass, 0, 'g', 4)
                          .arg(*part.density, 0, 'g', 4);
        else if (!part.ground)
            details = QObject::tr("%1 kg").arg(part.mass, 0, 'g', 4);
        // Moved by its prescribed motion, with the mechanism built on it riding along: said
        // first, where a narrow column still shows it.
        if (part.frameMotion) details = QObject::tr("moving frame, %1").arg(details);
        auto partRow = row(toQString(part.name), details, part.id,
                           part.ground ? Kind::Ground : Kind::Part, true);
        for (std::size_t k = 0; k < part.shapes.size(); ++k) {
            auto shapeRow = row(QObject::tr("shape %1").arg(k + 1), shapeDetails(part.shapes[k]),
                                part.id, Kind::Geometry);
            for (QStandardItem* item : shapeRow) item->setData(static_cast<int>(k + 1), kShapeRole);
            partRow[0]->appendRow(shapeRow);
        }
        for (const engine::Marker& marker : part.markers) {
            const engine::Vec3& p = marker.X_PM.p;
            partRow[0]->appendRow(row(toQString(marker.name),
                                      QObject::tr("marker at (%1, %2, %3) mm")
                                          .arg(p.x() * 1000.0, 0, 'g', 4)
                                          .arg(p.y() * 1000.0, 0, 'g', 4)
                                          .arg(p.z() * 1000.0, 0, 'g', 4),
                                      marker.id, Kind::Marker, true));
        }
        parts[0]->appendRow(partRow);
    }
    markDeactivation(parts[0], spec, out.parts, &engine::InactiveSet::parts);
    model.appendRow(parts);

    auto joints = row(QObject::tr("Joints"), QString::number(spec.joints.size()), engine::kNoEntity,
                      Kind::Group);
    for (const engine::Joint& joint : spec.joints) {
        joints[0]->appendRow(
            row(toQString(joint.name),
                QStringLiteral("%1%2%3: %4 → %5")
                    .arg(toQString(engine::jointTypeName(joint.type)),
                         joint.compliance.soft() ? QObject::tr(" (soft)") : QString(),
                         joint.limited() ? QObject::tr(" (stops)") : QString(),
                         QString::fromStdString(joint.markerI.text()),
                         QString::fromStdString(joint.markerJ.text())),
                joint.id, Kind::Joint, true));
    }
    markDeactivation(joints[0], spec, out.joints, &engine::InactiveSet::joints);
    model.appendRow(joints);

    auto forces = row(QObject::tr("Forces"), QString::number(spec.forces.size()), engine::kNoEntity,
                      Kind::Group);
    for (const engine::ForceSpec& force : spec.forces) {
        QString details = toQString(engine::forceTypeName(force.type));
        if (engine::actsOnJoint(force.type))
            details += QStringLiteral(" on %1").arg(QString::fromStdString(force.joint));
        else if (force.type == engine::ForceType::SpringDamper ||
                 force.type == engine::ForceType::Bushing ||
                 force.type == engine::ForceType::LineForce)
            details += QStringLiteral(": %1 → %2")
                           .arg(QString::fromStdString(force.markerI.text()),
                                QString::fromStdString(force.markerJ.text()));
        else if (force.type == engine::ForceType::Cable) {
            // Its path: "ground.top → boom.sheave (pulley) → load.hook".
            QStringList path{QString::fromStdString(force.markerI.text())};
            for (const engine::CableVia& v : force.via)
                path << QString::fromStdString(v.marker.text()) +
                            (v.pulley ? QStringLiteral(" (pulley)") : QString());
            path << QString::fromStdString(force.markerJ.text());
            details += QStringLiteral(": ") + path.join(QString::fromUtf8(" → "));
        } else
            details += QStringLiteral(" at %1").arg(QString::fromStdString(force.markerI.text()));
        forces[0]->appendRow(
            row(QString::fromStdString(force.name), details, force.id, Kind::Force, true));
    }
    markDeactivation(forces[0], spec, out.forces, &engine::InactiveSet::forces);
    model.appendRow(forces);

    auto motions = row(QObject::tr("Motions"), QString::number(spec.motions.size()),
                       engine::kNoEntity, Kind::Group);
    for (const engine::MotionSpec& motion : spec.motions) {
        motions[0]->appendRow(
            row(QString::fromStdString(motion.name),
                QStringLiteral("%1 %2 = %3")
                    .arg(QString::fromStdString(motion.joint),
                         motion.axis == engine::JointAxis::Rotation ? QObject::tr("angle")
                                                                    : QObject::tr("slide"),
                         QString::fromStdString(motion.expression)),
                motion.id, Kind::Motion, true));
    }
    markDeactivation(motions[0], spec, out.motions, &engine::InactiveSet::motions);
    model.appendRow(motions);

    // Couplers: gears, racks, screws and linear relations, with their sizes and joints.
    auto couplers = row(QObject::tr("Couplers"), QString::number(spec.couplers.size()),
                        engine::kNoEntity, Kind::Group);
    for (const engine::CouplerSpec& coupler : spec.couplers)
        couplers[0]->appendRow(row(toQString(coupler.name), couplerDetails(spec, coupler),
                                   coupler.id, Kind::Coupler, true));
    markDeactivation(couplers[0], spec, out.couplers, &engine::InactiveSet::couplers);
    model.appendRow(couplers);

    // Variables: named expressions of the state the forces read, known by their place.
    auto variables = row(QObject::tr("Variables"), QString::number(spec.variables.size()),
                         engine::kNoEntity, Kind::Group);
    for (std::size_t k = 0; k < spec.variables.size(); ++k) {
        const engine::VariableSpec& variable = spec.variables[k];
        // A held variable shows where it starts ("held, from 0").
        auto variableRow =
            row(toQString(variable.name),
                variable.initial
                    ? QObject::tr("held, from %1").arg(QString::number(*variable.initial, 'g', 6))
                    : QStringLiteral("= %1").arg(toQString(variable.expression)),
                engine::kNoEntity, Kind::Variable);
        for (QStandardItem* item : variableRow)
            item->setData(static_cast<int>(k + 1), kVariableRole);
        variableRow[0]->setEditable(true);
        variables[0]->appendRow(variableRow);
    }
    variables[0]->setData(-1, kVariableRole);
    model.appendRow(variables);

    // Tables: curves through measured points, known by their place.
    auto tables = row(QObject::tr("Tables"), QString::number(spec.tables.size()), engine::kNoEntity,
                      Kind::Group);
    for (std::size_t k = 0; k < spec.tables.size(); ++k) {
        const engine::TableSpec& table = spec.tables[k];
        // "akima, 7 points, x −1 … 1"
        const QString interpolation =
            toQString(engine::tableInterpolationName(table.interpolation));
        QString details = table.x.size() == 1
                              ? QObject::tr("%1, 1 point").arg(interpolation)
                              : QObject::tr("%1, %2 points").arg(interpolation).arg(table.x.size());
        if (!table.x.empty())
            details += QObject::tr(", x %1 … %2")
                           .arg(QString::number(table.x.front(), 'g', 6),
                                QString::number(table.x.back(), 'g', 6));
        auto tableRow = row(toQString(table.name), details, engine::kNoEntity, Kind::Table);
        for (QStandardItem* item : tableRow) item->setData(static_cast<int>(k + 1), kTableRole);
        tableRow[0]->setEditable(true);
        tables[0]->appendRow(tableRow);
    }
    tables[0]->setData(-1, kTableRole);
    model.appendRow(tables);

    // Sensors: expressions watched for crossing a level, known by their place.
    auto sensors = row(QObject::tr("Sensors"), QString::number(spec.sensors.size()),
                       engine::kNoEntity, Kind::Group);
    for (std::size_t k = 0; k < spec.sensors.size(); ++k) {
        const engine::SensorSpec& sensor = spec.sensors[k];
        // "DZ(ball.centre) ↓ 0.1 · stop": what crosses which level, which way, and then what.
        const char* crossing = sensor.direction == engine::SensorDirection::Rising    ? "↑"
                               : sensor.direction == engine::SensorDirection::Falling ? "↓"
                                                                                      : "↕";
        QString action;
        switch (sensor.action) {
        case engine::SensorAction::Stop:
            action = QObject::tr("stop");
            break;
        case engine::SensorAction::Mark:
            action = QObject::tr("mark");
            break;
        case engine::SensorAction::Set:
            action = QObject::tr("%1 = %2").arg(toQString(sensor.target), toQString(sensor.to));
            break;
        case engine::SensorAction::SwitchOn:
            action = QObject::tr("%1 on").arg(toQString(sensor.target));
            break;
        case engine::SensorAction::SwitchOff:
            action = QObject::tr("%1 off").arg(toQString(sensor.target));
            break;
        }
        auto sensorRow = row(toQString(sensor.name),
                             QString::fromUtf8("%1 %2 %3 · %4")
                                 .arg(toQString(sensor.expression), QString::fromUtf8(crossing),
                                      QString::number(sensor.value, 'g', 6), action),
                             engine::kNoEntity, Kind::Sensor);
        for (QStandardItem* item : sensorRow) item->setData(static_cast<int>(k + 1), kSensorRole);
        sensorRow[0]->setEditable(true);
        sensors[0]->appendRow(sensorRow);
    }
    sensors[0]->setData(-1, kSensorRole);
    model.appendRow(sensors);

    // Contact: the scene's switch and solver, and the pair entries.
    const engine::ContactSettings& contact = spec.contact;
    auto contacts =
        row(QObject::tr("Contacts"),
            contact.enabled ? QObject::tr("on: %1, %2 friction")
                                  .arg(toQString(engine::contactSolverName(contact.solver)),
                                       toQString(engine::frictionModelName(contact.friction)))
                            : QObject::tr("off"),
            engine::kNoEntity, Kind::Group);
    for (const engine::ContactPairSpec& pair : contact.pairs) {
        QString details =
            QStringLiteral("%1 ↔ %2").arg(toQString(pair.partA), toQString(pair.partB));
        if (!pair.enabled) details += QObject::tr(", off");
        if (pair.friction) details += QObject::tr(", μ %1").arg(*pair.friction);
        if (pair.restitution) details += QObject::tr(", e %1").arg(*pair.restitution);
        contacts[0]->appendRow(row(toQString(pair.name), details, pair.id, Kind::Contact, true));
    }
    markDeactivation(contacts[0], spec, out.contactPairs, &engine::InactiveSet::contactPairs);
    model.appendRow(contacts);

    // Outputs: the plots saved with the scene.
    auto outputs = row(QObject::tr("Plots"), QString::number(spec.plots.size()), engine::kNoEntity,
                       Kind::Group);
    for (const engine::PlotSpec& plot : spec.plots) {
        QStringList channels;
        for (const std::string& c : plot.channels) channels << toQString(c);
        outputs[0]->appendRow(
            row(plot.name.empty() ? channels.join(QStringLiteral(", ")) : toQString(plot.name),
                channels.join(QStringLiteral(", ")), engine::kNoEntity, Kind::Plot));
    }
    model.appendRow(outputs);
}

}  // namespace ui
