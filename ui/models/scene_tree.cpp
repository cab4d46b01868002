#include "ui/models/scene_tree.h"

#include <QStandardItemModel>

#include "engine/model/mass_properties.h"
#include "engine/model/scene_spec.h"

namespace ui {
namespace {

QString toQString(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

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

QList<QStandardItem*> row(const QString& name, const QString& details, engine::EntityId id) {
    auto* nameItem = new QStandardItem(name);
    auto* detailItem = new QStandardItem(details);
    for (QStandardItem* item : {nameItem, detailItem}) {
        item->setEditable(false);
        item->setToolTip(details.isEmpty() ? name : name + QStringLiteral(": ") + details);
        if (id != engine::kNoEntity) item->setData(static_cast<qulonglong>(id), kEntityIdRole);
    }
    return {nameItem, detailItem};
}

}  // namespace

void populateSceneTree(QStandardItemModel& model, const engine::SceneSpec& spec) {
    model.clear();
    model.setHorizontalHeaderLabels({QObject::tr("Name"), QObject::tr("Details")});

    auto parts = row(QObject::tr("Parts"), QString::number(spec.parts.size()), engine::kNoEntity);
    for (const engine::Part& part : spec.parts) {
        QString details = QObject::tr("ground");
        if (!part.ground && part.density)
            details = QObject::tr("%1 kg (%2 kg/m³)")
                          .arg(engine::partMassProperties(part).mass, 0, 'g', 4)
                          .arg(*part.density, 0, 'g', 4);
        else if (!part.ground)
            details = QObject::tr("%1 kg").arg(part.mass, 0, 'g', 4);
        auto partRow = row(toQString(part.name), details, part.id);
        for (const engine::Shape& shape : part.shapes)
            partRow[0]->appendRow(
                row(QObject::tr("geometry"), shapeDetails(shape), engine::kNoEntity));
        for (const engine::Marker& marker : part.markers) {
            const engine::Vec3& p = marker.X_PM.p;
            partRow[0]->appendRow(row(toQString(marker.name),
                                      QObject::tr("marker at (%1, %2, %3) mm")
                                          .arg(p.x() * 1000.0, 0, 'g', 4)
                                          .arg(p.y() * 1000.0, 0, 'g', 4)
                                          .arg(p.z() * 1000.0, 0, 'g', 4),
                                      marker.id));
        }
        parts[0]->appendRow(partRow);
    }
    model.appendRow(parts);

    auto joints =
        row(QObject::tr("Joints"), QString::number(spec.joints.size()), engine::kNoEntity);
    for (const engine::Joint& joint : spec.joints) {
        joints[0]->appendRow(row(toQString(joint.name),
                                 QStringLiteral("%1: %2 → %3")
                                     .arg(toQString(engine::jointTypeName(joint.type)),
                                          QString::fromStdString(joint.markerI.text()),
                                          QString::fromStdString(joint.markerJ.text())),
                                 joint.id));
    }
    model.appendRow(joints);

    auto forces = row(QObject::tr("Forces"), QString::number(spec.forces.size()), engine::kNoEntity);
    for (const engine::ForceSpec& force : spec.forces) {
        QString details = toQString(engine::forceTypeName(force.type));
        if (force.type == engine::ForceType::RotationalSpringDamper || force.type == engine::ForceType::JointController)
            details += QStringLiteral(" on %1").arg(QString::fromStdString(force.joint));
        else if (force.type == engine::ForceType::SpringDamper || force.type == engine::ForceType::Bushing)
            details += QStringLiteral(": %1 → %2")
                           .arg(QString::fromStdString(force.markerI.text()), QString::fromStdString(force.markerJ.text()));
        else
            details += QStringLiteral(" at %1").arg(QString::fromStdString(force.markerI.text()));
        forces[0]->appendRow(row(QString::fromStdString(force.name), details, force.id));
    }
    model.appendRow(forces);

    auto motions = row(QObject::tr("Motions"), QString::number(spec.motions.size()), engine::kNoEntity);
    for (const engine::MotionSpec& motion : spec.motions) {
        motions[0]->appendRow(row(QString::fromStdString(motion.name),
                                  QStringLiteral("%1 %2 = %3")
                                      .arg(QString::fromStdString(motion.joint),
                                           motion.axis == engine::JointAxis::Rotation ? QObject::tr("angle")
                                                                                      : QObject::tr("slide"),
                                           QString::fromStdString(motion.expression)),
                                  motion.id));
    }
    model.appendRow(motions);
}

}  // namespace ui
