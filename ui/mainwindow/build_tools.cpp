#include "ui/mainwindow/build_tools.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <QAction>
#include <QActionGroup>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QToolBar>

#include "engine/analysis/assembly.h"
#include "engine/io/mesh_loader.h"
#include "engine/math/number_text.h"
#include "engine/model/construct.h"
#include "engine/model/curve.h"
#include "engine/model/edit.h"
#include "engine/model/mass_properties.h"
#include "engine/model/model.h"
#include "engine/model/shape_features.h"
#include "engine/state/state.h"
#include "ui/common/joint_curves.h"
#include "ui/common/text.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/pictograms.h"

namespace ui {
namespace {

using engine::Vec3;
constexpr MessageSeverity kError = MessageSeverity::Error, kWarning = MessageSeverity::Warning,
                          kInfo = MessageSeverity::Info;

Vec3 vec(const double (&v)[3]) {
    return {v[0], v[1], v[2]};
}

// A clicked point is only as precise as a pixel: it is kept to 10 µm (clean numbers in the
// properties), and a surface normal within a hair of an axis is taken as that axis (picking
// computes in single precision).
constexpr double kClickGrid = 1e-5;  // m
Vec3 rounded(const Vec3& p) {
    return (p / kClickGrid).array().round().matrix() * kClickGrid;
}
Vec3 cleanDirection(const Vec3& n) {
    Vec3 u = n.normalized();
    for (int k = 0; k < 3; ++k)
        if (std::abs(std::abs(u(k)) - 1.0) < 1e-5) return Vec3::Unit(k) * (u(k) > 0 ? 1.0 : -1.0);
    return u;
}

// Colours new parts take in turn, so neighbours differ.
constexpr std::uint32_t kPartColours[] = {0xe0703c, 0x3c8ee0, 0x4fb45a, 0xd9b23c,
                                          0x9b6ad6, 0x3cc2c2, 0xd65a8a};

// Human names of joint and force types for menus ("point on line").
QString spaced(std::string_view camel) {
    QString out;
    for (const char c : camel) {
        if (c >= 'A' && c <= 'Z') {
            out += QLatin1Char(' ');
            out += QLatin1Char(static_cast<char>(c - 'A' + 'a'));
        } else {
            out += QLatin1Char(c);
        }
    }
    out[0] = out[0].toUpper();
    return out;
}

}  // namespace

engine::EntityId BuildTools::jointOf(engine::EntityId id) const {
    const engine::SceneSpec* spec = document_->scene();
    if (!spec || id == engine::kNoEntity) return engine::kNoEntity;
    for (const engine::Joint& j : spec->joints)
        if (j.id == id) return id;
    // A marker stands for the joint it belongs to (a joint's glyph sits on its markers).
    const engine::Part* part = engine::partOfMarker(*spec, id);
    const engine::Marker* marker = engine::markerById(*spec, id);
    if (!part || !marker) return engine::kNoEntity;
    for (const engine::Joint& j : spec->joints)
        for (const engine::MarkerRef* ref : {&j.markerI, &j.markerJ})
            if (ref->part == part->name && ref->marker == marker->name) return j.id;
    return engine::kNoEntity;
}

void mate(engine::SceneSpec& spec, engine::EntityId jointId) {
    const engine::Joint* joint = nullptr;
    for (const engine::Joint& j : spec.joints)
        if (j.id == jointId) joint = &j;
    // A rod keeps its length; a cam and its follower touch at their contours (their curves are
    // fitted to where the parts are: fitJointCurves).
    if (!joint || joint->type == engine::JointType::Distance ||
        joint->type == engine::JointType::CurveOnCurve)
        return;
    auto joinedElsewhere = [&](const std::string& part) {
        for (const engine::Joint& j : spec.joints)
            if (j.id != jointId && (j.markerI.part == part || j.markerJ.part == part)) return true;
        return false;
    };
    auto partNamed = [&](const std::string& name) -> engine::Part* {
        for (engine::Part& p : spec.parts)
            if (p.name == name) return &p;
        return nullptr;
    };
    engine::Part* pi = partNamed(joint->markerI.part);
    engine::Part* pj = partNamed(joint->markerJ.part);
    const engine::Marker* mi = spec.findMarker(joint->markerI);
    const engine::Marker* mj = spec.findMarker(joint->markerJ);
    if (!pi || !pj || !mi || !mj) return;
    // The free part takes the pose that lays its marker on the other one: J's part first (the
    // one clicked second), else I's.
    if (!pj->ground && !joinedElsewhere(pj->name)) {
        pj->X_WP = (pi->X_WP * mi->X_PM) * mj->X_PM.inverse();
    } else if (!pi->ground && !joinedElsewhere(pi->name)) {
        pi->X_WP = (pj->X_WP * mj->X_PM) * mi->X_PM.inverse();
    }
}

namespace {

// The scene assembled after a tool's edit (engine::assembleScene). False with `problem` saying
// why; when the tool's new joint is the one that cannot close, also by how much where the parts
// come nearest (the assembly's gap, in the tool's words).
bool assembleAfterEdit(engine::SceneSpec& spec, QString& problem, engine::EntityId newJoint,
                       std::vector<engine::EntityId>* entities) {
    const engine::SceneAssembly assembled = engine::assembleScene(spec);
    const engine::AssemblyResult& r = assembled.result;
    if (r.status.ok) return true;
    problem = toQString(r.status.message);
    if (entities) *entities = r.status.entities;
    if (!assembled.model || r.joint < 0 || newJoint == engine::kNoEntity) return false;
    const engine::JointModel& joint = assembled.model->joints[static_cast<std::size_t>(r.joint)];
    if (joint.id != newJoint) return false;
    const QString gap =
        r.angular
            ? QObject::tr("its axes are %1° out of line").arg(engine::radToDeg(r.gap), 0, 'f', 1)
            : QObject::tr("its markers are %1 mm apart").arg(r.gap * 1000.0, 0, 'f', 1);
    problem = QObject::tr(
                  "joint '%1' cannot close: %2 where the parts come nearest, and the "
                  "parts it joins cannot move there without opening the other joints (%3)")
                  .arg(toQString(joint.name), gap, problem);
    return false;
}

}  // namespace

BuildTools::BuildTools(SceneDocument* document, ViewportWidget* viewport, QWidget* window)
    : QObject(window), document_(document), viewport_(viewport), window_(window) {
    // A first pick refers to the scene as it was: any change (an undo, another document)
    // forgets it, and the tool asks for its first pick again.
    auto forget = [this] {
        if (!first_ && firstJoint_ == engine::kNoEntity) return;
        first_.reset();
        firstJoint_ = engine::kNoEntity;
        if (tool_ != Tool::Select) emit hint(hint_);
    };
    QObject::connect(document_, &SceneDocument::sceneChanged, this, forget);
    QObject::connect(document_, &SceneDocument::documentReset, this, forget);
}

void BuildTools::createActions(QMenu* menu, QToolBar* parts, QToolBar* joints, QToolBar* forces) {
    group_ = new QActionGroup(this);
    group_->setExclusive(true);
    auto toolAction = [&](const QString& icon, const QString& text, const QString& name,
                          auto slot) {
        QAction* a = new QAction(pictogram(icon), text, this);
        a->setObjectName(name);
        a->setCheckable(true);
        group_->addAction(a);
        QObject::connect(a, &QAction::triggered, this, slot);
        return a;
    };
    selectAction_ = toolAction(QStringLiteral("select"), tr("Select"), QStringLiteral("ToolSelect"),
                               [this] { cancel(); });
    selectAction_->setChecked(true);
    selectAction_->setToolTip(tr("Select (Esc): click parts, markers and joints to edit them"));
    parts->addAction(selectAction_);

    QMenu* partMenu = menu->addMenu(tr("&Part"));
    const std::pair<engine::ShapeType, QString> shapes[] = {
        {engine::ShapeType::Box, tr("&Box")},
        {engine::ShapeType::Sphere, tr("&Sphere")},
        {engine::ShapeType::Cylinder, tr("&Cylinder")},
        {engine::ShapeType::Capsule, tr("C&apsule")},
        {engine::ShapeType::Cone, tr("C&one")},
    };
    for (const auto& [type, label] : shapes) {
        const QString name = toQString(engine::shapeTypeName(type));
        QAction* a = toolAction(name, label, QStringLiteral("CreatePart_") + name,
                                [this, type] { placePart(type); });
        a->setToolTip(tr("%1: click on the ground, on a part or in space to place one")
                          .arg(QString(label).remove(QLatin1Char('&'))));
        partMenu->addAction(a);
        parts->addAction(a);
    }
    QAction* mesh = toolAction(
        QStringLiteral("mesh"), tr("&Mesh from File…"), QStringLiteral("CreatePart_mesh"), [this] {
            const QString file = QFileDialog::getOpenFileName(
                window_, tr("Part from a Mesh"), QString(),
                tr("Meshes (*.obj *.stl *.dae *.OBJ *.STL *.DAE);;All files (*)"));
            if (file.isEmpty())
                cancel();
            else
                placeMesh(file);
        });
    partMenu->addAction(mesh);
    parts->addAction(mesh);
    parts->addSeparator();
    QAction* marker = toolAction(QStringLiteral("marker"), tr("&Marker"),
                                 QStringLiteral("CreateMarker"), [this] { addMarkers(); });
    marker->setToolTip(
        tr("Marker: click on a part (Shift: snap to a face centre, edge, vertex or axis)"));
    menu->addAction(marker);
    parts->addAction(marker);

    QMenu* jointMenu = menu->addMenu(tr("&Joint"));
    for (int k = 0; k <= static_cast<int>(engine::JointType::PointOnSurface); ++k) {
        const auto type = static_cast<engine::JointType>(k);
        const QString name = toQString(engine::jointTypeName(type));
        // The joints on curves get their names as users know them, and say what they start as.
        const QString label =
            type == engine::JointType::PointOnCurve     ? tr("Point on Curve (Pin in Slot)")
            : type == engine::JointType::CurveOnCurve   ? tr("Curve on Curve (Cam)")
            : type == engine::JointType::PointOnSurface ? tr("Point on Surface")
                                                        : spaced(engine::jointTypeName(type));
        QAction* a = toolAction(name, label, QStringLiteral("CreateJoint_") + name,
                                [this, type] { connectParts(type); });
        if (type == engine::JointType::PointOnCurve)
            a->setToolTip(
                tr("Point on curve (a pin in a slot): click the pin (a marker or a point "
                   "on its part), then the part with the slot. The slot starts straight "
                   "along the second marker's x axis through the pin; edit its curve in "
                   "Properties"));
        else if (type == engine::JointType::PointOnSurface)
            a->setToolTip(
                tr("Point on surface: click the point (a marker or a point on its part), then "
                   "the part with the surface. The surface starts as a flat 200 mm patch "
                   "through the point, normal to the second marker's z axis; edit its "
                   "expressions or make it a grid of heights in Properties"));
        else if (type == engine::JointType::CurveOnCurve)
            a->setToolTip(
                tr("Curve on curve (a cam and its follower): click the follower's axis "
                   "(a marker or a point on its part), then the cam's. Both contours "
                   "start as circles touching where the parts are (a disc cam and a "
                   "roller); edit them in Properties"));
        else
            a->setToolTip(tr("%1 joint: click two markers or two points on two parts (empty "
                             "space: the ground)")
                              .arg(spaced(engine::jointTypeName(type))));
        jointMenu->addAction(a);
        joints->addAction(a);
    }
    // Couplers: gears, a rack, a screw, a linear relation between the joints' coordinates.
    QMenu* couplerMenu = menu->addMenu(tr("C&oupler"));
    joints->addSeparator();
    const std::tuple<engine::CouplerType, QString, QString> couplers[] = {
        {engine::CouplerType::Gear, tr("&Gear Pair"),
         tr("Gear pair: select two revolute joints (Ctrl+click in the tree) or click them, gear "
            "I's then gear J's; the ratio comes from their cylinders")},
        {engine::CouplerType::RackPinion, tr("&Rack and Pinion"),
         tr("Rack and pinion: select or click the pinion's revolute joint and the rack's "
            "prismatic joint; the pitch radius comes from the pinion's cylinder")},
        {engine::CouplerType::Screw, tr("&Screw"),
         tr("Screw: select or click a cylindrical joint; its slide follows its angle (5 mm per "
            "turn)")},
        {engine::CouplerType::Linear, tr("&Linear Coupler"),
         tr("Linear coupler: select or click two joints; their coordinates keep qI − qJ (edit "
            "the terms in Properties)")},
    };
    for (const auto& [type, label, tip] : couplers) {
        const QString name = toQString(engine::couplerTypeName(type));
        QAction* a = toolAction(name, label, QStringLiteral("CreateCoupler_") + name,
                                [this, t = type] { addCouplers(t); });
        a->setToolTip(tip);
        couplerMenu->addAction(a);
        joints->addAction(a);
    }

    QMenu* forceMenu = menu->addMenu(tr("&Force"));
    const engine::ForceType betweenTwo[] = {
        engine::ForceType::SpringDamper, engine::ForceType::Bushing,
        engine::ForceType::LineForce,    engine::ForceType::Cable,
        engine::ForceType::PointForce,   engine::ForceType::PointTorque};
    for (const engine::ForceType type : betweenTwo) {
        const QString name = toQString(engine::forceTypeName(type));
        QAction* a =
            toolAction(name, spaced(engine::forceTypeName(type)),
                       QStringLiteral("CreateForce_") + name, [this, type] { attachForce(type); });
        forceMenu->addAction(a);
        forces->addAction(a);
    }
    QAction* pair = toolAction(QStringLiteral("contact"), tr("&Contact Pair"),
                               QStringLiteral("CreateContactPair"), [this] { addContactPairs(); });
    pair->setToolTip(tr("Contact pair: click two parts to set how they touch"));
    forceMenu->addAction(pair);
    forces->addAction(pair);
    forces->addSeparator();
    // Commands on the selected joint or part (or the next one clicked).
    const std::pair<engine::ForceType, QString> onJoint[] = {
        {engine::ForceType::RotationalSpringDamper, QStringLiteral("rotationalSpringDamper")},
        {engine::ForceType::JointController, QStringLiteral("jointController")},
        {engine::ForceType::ComputedTorque, QStringLiteral("computedTorque")},
        {engine::ForceType::JointForce, QStringLiteral("jointForce")},
    };
    QAction* motion = toolAction(
        QStringLiteral("motion"), tr("M&otion on Joint"), QStringLiteral("CreateMotion"), [this] {
            onPick_ = OnPick::Motion;
            if (const engine::EntityId joint = jointOf(selection_); joint && addMotion(joint))
                return cancel();
            start(Tool::OnJoint, tr("Motion: click the joint to drive"));
        });
    motion->setToolTip(tr("Motion: drive the selected joint's coordinate (or click a joint)"));
    menu->addAction(motion);
    forces->addAction(motion);
    for (const auto& [type, icon] : onJoint) {
        QAction* a =
            toolAction(icon, spaced(engine::forceTypeName(type)),
                       QStringLiteral("CreateForce_") + icon, [this, t = type] {
                           forceType_ = t;
                           onPick_ = OnPick::Force;
                           if (const engine::EntityId joint = jointOf(selection_);
                               joint && addOnJoint(t, joint))
                               return cancel();
                           start(Tool::OnJoint,
                                 tr("%1: click the joint").arg(spaced(engine::forceTypeName(t))));
                       });
        forceMenu->addAction(a);
        forces->addAction(a);
    }
    QAction* fix = toolAction(
        QStringLiteral("ground"), tr("&Fix Part to Ground"), QStringLiteral("FixToGround"), [this] {
            onPick_ = OnPick::Fix;
            // The selected part, or the part of the selected marker.
            if (const engine::SceneSpec* spec = document_->scene()) {
                const engine::Part* part = engine::partById(*spec, selection_);
                if (!part) part = engine::partOfMarker(*spec, selection_);
                if (part && !part->ground && fixToGround(part->id)) return cancel();
            }
            start(Tool::OnJoint, tr("Fix to ground: click the part"));
        });
    menu->addAction(fix);
    forces->addAction(fix);
}

void BuildTools::start(Tool tool, const QString& text) {
    emit toolStarted();
    tool_ = tool;
    first_.reset();
    firstJoint_ = engine::kNoEntity;
    hint_ = text + tr("  (Esc: done)");
    emit hint(hint_);
    emit toolChanged();
}

void BuildTools::cancel() {
    tool_ = Tool::Select;
    first_.reset();
    firstJoint_ = engine::kNoEntity;
    if (selectAction_) selectAction_->setChecked(true);
    emit hint(QString());
    emit toolChanged();
}

void BuildTools::placePart(engine::ShapeType type) {
    shape_ = type;
    meshFile_.clear();
    start(Tool::PlacePart, tr("%1: click on the ground, on a part or in space")
                               .arg(spaced(engine::shapeTypeName(type))));
}

void BuildTools::placeMesh(const QString& file) {
    shape_ = engine::ShapeType::Mesh;
    meshFile_ = file;
    start(Tool::PlacePart, tr("Mesh %1: click where it goes").arg(QFileInfo(file).fileName()));
}

void BuildTools::addMarkers() {
    start(Tool::Marker,
          tr("Marker: click on a part (Shift: snap to a face centre, edge, vertex or axis)"));
}

void BuildTools::connectParts(engine::JointType type) {
    jointType_ = type;
    start(Tool::Joint, tr("%1 joint: click the first marker or point on a part")
                           .arg(spaced(engine::jointTypeName(type))));
}

void BuildTools::attachForce(engine::ForceType type) {
    forceType_ = type;
    const bool single =
        type == engine::ForceType::PointForce || type == engine::ForceType::PointTorque;
    start(Tool::Force,
          single ? tr("%1: click where it acts").arg(spaced(engine::forceTypeName(type)))
                 : tr("%1: click the first end").arg(spaced(engine::forceTypeName(type))));
}

void BuildTools::addContactPairs() {
    start(Tool::ContactPair, tr("Contact pair: click the first part"));
}

std::optional<BuildTools::End> BuildTools::endFrom(const PickResult& hit,
                                                   Qt::KeyboardModifiers modifiers,
                                                   bool groundAllowed) {
    const engine::SceneSpec* spec = document_->scene();
    if (!spec) return std::nullopt;
    End end;
    end.p_W = vec(hit.point);
    end.n_W = vec(hit.normal);
    switch (hit.kind) {
    case PickResult::Kind::Marker:
        end.marker = static_cast<engine::EntityId>(hit.entity);
        return end;
    case PickResult::Kind::Part: {
        const engine::Part* part =
            engine::partById(*spec, static_cast<engine::EntityId>(hit.entity));
        if (!part) return std::nullopt;
        if (part->ground) {
            end.ground = true;
            end.part = part->id;
        } else {
            end.part = part->id;
        }
        // The view may show a frame of a run: the point is taken on the part as drawn, then
        // placed on the part where the document has it.
        const engine::Transform shown =
            viewport_->partPose(static_cast<std::size_t>(part - spec->parts.data()));
        const engine::Transform toDocument = part->X_WP * shown.inverse();
        end.p_W = toDocument * end.p_W;
        end.n_W = toDocument.R * end.n_W;
        const engine::Transform X_PW = part->X_WP.inverse();
        if (modifiers & Qt::ShiftModifier) {
            // Snap to the shape's nearest feature, in the part frame.
            const engine::ShapeFeature f = engine::snapFeature(*part, X_PW * end.p_W);
            end.p_W = part->X_WP * f.p_P;
            // An edge (or a corner) gives a slide its direction; a hinge, a ball or a weld
            // placed on it turns about the normal of the face clicked, as without Shift (an
            // end edge's direction would put a revolute's axis in the mechanism's plane).
            const bool edge = f.kind == engine::ShapeFeature::Kind::EdgeMidpoint ||
                              f.kind == engine::ShapeFeature::Kind::Vertex;
            const bool slides = jointType_ == engine::JointType::Prismatic ||
                                jointType_ == engine::JointType::Cylindrical;
            if (edge && tool_ == Tool::Joint && !slides)
                end.n_W = part->X_WP.R * cleanDirection(X_PW.R * end.n_W);
            else
                end.n_W = part->X_WP.R * f.z_P;
        } else {
            end.p_W = part->X_WP * rounded(X_PW * end.p_W);
            end.n_W = part->X_WP.R * cleanDirection(X_PW.R * end.n_W);
        }
        return end;
    }
    case PickResult::Kind::Joint:
    case PickResult::Kind::Nothing:
        return std::nullopt;
    case PickResult::Kind::Ground:
    case PickResult::Kind::Space:
        if (!groundAllowed) return std::nullopt;
        end.ground = true;
        end.p_W = rounded(end.p_W);
        end.n_W = cleanDirection(end.n_W);
        return end;
    }
    return std::nullopt;
}

engine::EntityId BuildTools::markerAt(engine::SceneSpec& spec, const End& end,
                                      const engine::Quat* R_WM) {
    if (end.marker != engine::kNoEntity)
        return engine::markerById(spec, end.marker) ? end.marker : engine::kNoEntity;
    engine::Part* found = end.ground ? &engine::groundPart(spec) : engine::partById(spec, end.part);
    if (!found) return engine::kNoEntity;
    engine::Part& part = *found;
    const engine::Quat R = R_WM ? *R_WM : engine::rotationWithZAlong(end.n_W);
    const engine::Transform X_WM{R, end.p_W};
    return engine::addMarker(spec, part.id, part.X_WP.inverse() * X_WM);
}

bool BuildTools::resolve(engine::SceneSpec& spec, const End& a, const End& b,
                         engine::EntityId& markerI, engine::EntityId& markerJ, QString& reason,
                         bool keepGroundPoint) {
    if (a.ground && b.ground) {
        reason = tr("both ends are on the ground: pick a part for at least one of them");
        return false;
    }
    // A ground end without a marker takes the other end's place and orientation: the joint is
    // closed where it is made, with the other part where the user put it.
    if (a.ground && a.marker == engine::kNoEntity) {
        markerJ = markerAt(spec, b, nullptr);
        if (markerJ == engine::kNoEntity) {
            reason = tr("the part picked is gone");
            return false;
        }
        const engine::Transform X_WM = engine::markerWorldPose(spec, markerJ);
        End placed = a;
        if (!keepGroundPoint) placed.p_W = X_WM.p;
        markerI = markerAt(spec, placed, &X_WM.R);
        std::swap(markerI, markerJ);  // the moving part is I, the ground J
    } else {
        markerI = markerAt(spec, a, nullptr);
        if (markerI == engine::kNoEntity) {
            reason = tr("the part picked is gone");
            return false;
        }
        const engine::Transform X_WI = engine::markerWorldPose(spec, markerI);
        End other = b;
        if (b.ground && b.marker == engine::kNoEntity && !keepGroundPoint) other.p_W = X_WI.p;
        // Aligned with the first: a pin made from two clicks turns about one axis.
        markerJ = markerAt(spec, other, &X_WI.R);
    }
    const engine::Part* pi = engine::partOfMarker(spec, markerI);
    const engine::Part* pj = engine::partOfMarker(spec, markerJ);
    if (!pi || !pj || pi == pj) {
        reason = tr("both ends are on '%1': a joint or a force joins two different parts")
                     .arg(pi ? toQString(pi->name) : QString());
        return false;
    }
    return true;
}

bool BuildTools::click(const PickResult& hit, Qt::KeyboardModifiers modifiers) {
    const engine::SceneSpec* spec = document_->scene();
    if (tool_ == Tool::Select || !spec) return false;
    switch (tool_) {
    case Tool::Select:
        return false;
    case Tool::PlacePart:
        placeAt(hit);
        return true;
    case Tool::Marker: {
        const std::optional<End> end = endFrom(hit, modifiers, true);
        if (!end || end->marker != engine::kNoEntity) {
            emit hint(tr("Marker: click on a part's surface or on the ground"));
            return true;
        }
        engine::SceneSpec after = *spec;
        const engine::EntityId id = markerAt(after, *end, nullptr);
        commitAdd(std::move(after), id, tr("Add marker"));
        return true;
    }
    case Tool::Joint:
    case Tool::Force:
    case Tool::ContactPair: {
        const bool single = tool_ == Tool::Force && (forceType_ == engine::ForceType::PointForce ||
                                                     forceType_ == engine::ForceType::PointTorque);
        const std::optional<End> end =
            endFrom(hit, modifiers, tool_ != Tool::ContactPair && !single);
        if (!end) {
            emit hint(tr("Click a marker or a point on a part"));
            return true;
        }
        if (single) {
            engine::SceneSpec after = *spec;
            const engine::EntityId m = markerAt(after, *end, nullptr);
            const engine::EntityId id =
                engine::addForce(after, forceType_, m, engine::kNoEntity, engine::kNoEntity);
            commitAdd(std::move(after), id,
                      tr("Add %1").arg(spaced(engine::forceTypeName(forceType_)).toLower()));
            return true;
        }
        if (!first_) {
            first_ = end;
            emit hint(tr("Now the second marker, point or part (empty space: the ground)"));
            return true;
        }
        finishPair(*end);
        return true;
    }
    case Tool::Coupler: {
        engine::EntityId joint = jointOf(static_cast<engine::EntityId>(hit.entity));
        // A gear clicked stands for its shaft: the one joint with an angle or a slide on it.
        if (!joint && hit.kind == PickResult::Kind::Part)
            if (const engine::Part* part =
                    engine::partById(*spec, static_cast<engine::EntityId>(hit.entity))) {
                int found = 0;
                for (const engine::Joint& j : spec->joints)
                    if ((j.markerI.part == part->name || j.markerJ.part == part->name) &&
                        !engine::jointAxes(j.type).empty() && found++ == 0)
                        joint = j.id;
                if (found != 1) joint = engine::kNoEntity;
            }
        if (!joint)
            emit hint(
                tr("Click a joint's glyph or a gear on one shaft (or select the joints in "
                   "the tree)"));
        else
            pickCouplerJoint(joint);
        return true;
    }
    case Tool::OnJoint: {
        const auto id = static_cast<engine::EntityId>(hit.entity);
        if (onPick_ == OnPick::Fix) {
            if (hit.kind == PickResult::Kind::Part)
                fixToGround(id);
            else
                emit hint(tr("Fix to ground: click a part"));
            return true;
        }
        const engine::EntityId joint = jointOf(id);
        if (!joint) {
            emit hint(tr("Click a joint's glyph (or select the joint in the tree)"));
            return true;
        }
        if (onPick_ == OnPick::Motion)
            addMotion(joint);
        else
            addOnJoint(forceType_, joint);
        return true;
    }
    }
    return false;
}

void BuildTools::finishPair(const End& second) {
    const End first = *first_;
    first_.reset();
    engine::SceneSpec after = *document_->scene();
    if (tool_ == Tool::ContactPair) {
        const engine::EntityId id = engine::addContactPair(after, first.part, second.part);
        if (id == engine::kNoEntity) {
            emit message(kError, tr("A contact pair needs two different parts."));
            return;
        }
        if (!after.contact.enabled) {
            after.contact.enabled = true;
            after.settings.integrator = engine::IntegratorType::TimeStepping;
        }
        commitAdd(std::move(after), id, tr("Add contact pair"));
        return;
    }
    engine::EntityId markerI = engine::kNoEntity, markerJ = engine::kNoEntity;
    QString reason;
    // A spring acts along the line between its ends: an end clicked in empty space (the
    // ground) stays where it was clicked, so the spring has a length and a direction. A joint
    // or a bushing is closed where it is made: its ground end joins the part's.
    const bool alongALine =
        tool_ == Tool::Force &&
        (forceType_ == engine::ForceType::SpringDamper ||
         forceType_ == engine::ForceType::LineForce || forceType_ == engine::ForceType::Cable);
    if (!resolve(after, first, second, markerI, markerJ, reason, alongALine)) {
        emit message(kError, tr("Not made: %1.").arg(reason));
        return;
    }
    if (alongALine &&
        (engine::markerWorldPose(after, markerI).p - engine::markerWorldPose(after, markerJ).p)
                .norm() < 1e-6) {
        emit message(kError, tr("Not made: a %1 needs two different points (it acts along the line "
                                "between them); click its second end elsewhere.")
                                 .arg(forceType_ == engine::ForceType::LineForce ? tr("line force")
                                                                                 : tr("spring")));
        return;
    }
    if (tool_ == Tool::Force) {
        const engine::EntityId id =
            engine::addForce(after, forceType_, markerI, markerJ, engine::kNoEntity);
        commitAdd(std::move(after), id,
                  tr("Add %1").arg(spaced(engine::forceTypeName(forceType_)).toLower()));
        return;
    }
    const engine::EntityId joint = engine::addJoint(after, jointType_, markerI, markerJ);
    mate(after, joint);
    fitJointCurves(after, joint, /*moveParts=*/true);  // a slot, or a cam and its roller
    QString problem;
    std::vector<engine::EntityId> entities;
    if (!assembleAfterEdit(after, problem, joint, &entities)) {
        // The new joint is not in the scene left as it was: the entities that are.
        std::erase(entities, joint);
        emit message(kError, tr("%1 — the scene is left as it was.").arg(problem), entities);
        return;
    }
    commitAdd(std::move(after), joint,
              tr("Add %1 joint").arg(toQString(engine::jointTypeName(jointType_))));
}

void BuildTools::placeAt(const PickResult& hit) {
    const engine::SceneSpec* spec = document_->scene();
    engine::Part part;
    if (shape_ == engine::ShapeType::Mesh) {
        std::string error;
        auto mesh = engine::io::loadMesh(meshFile_.toStdString(), error);
        if (!mesh) {
            emit message(kError,
                         tr("Could not read the mesh %1: %2").arg(meshFile_, toQString(error)));
            cancel();
            return;
        }
        engine::Shape shape;
        shape.type = engine::ShapeType::Mesh;
        shape.meshFile = QFileInfo(meshFile_).absoluteFilePath().toStdString();
        shape.mesh = mesh;
        part.shapes.push_back(shape);
        // A closed mesh gets steel's density; an open one (no volume) 1 kg and the inertia of
        // its bounding box, which the user can then type.
        part.density = 7850.0;
        if (!(engine::partMassProperties(part).mass > 0.0)) {
            part.density.reset();
            engine::Vec3 lo = mesh->vertices.front(), hi = lo;
            for (const engine::Vec3& v : mesh->vertices) {
                lo = lo.cwiseMin(v);
                hi = hi.cwiseMax(v);
            }
            const engine::Vec3 e = (hi - lo).cwiseMax(engine::Vec3::Constant(1e-3));
            part.mass = 1.0;
            part.p_PPcm = 0.5 * (lo + hi);
            part.I_Pcm_P =
                (engine::Vec3(e.y() * e.y() + e.z() * e.z(), e.x() * e.x() + e.z() * e.z(),
                              e.x() * e.x() + e.y() * e.y()) /
                 12.0)
                    .asDiagonal();
            emit message(
                kWarning,
                tr("The mesh %1 is not closed: its part has 1 kg and its bounding box's inertia "
                   "(type the real values in Properties).")
                    .arg(QFileInfo(meshFile_).fileName()));
        }
    } else {
        part = engine::primitivePart(shape_);
    }
    part.colorRgb = kPartColours[colourIndex_++ % std::size(kPartColours)];
    // Resting on what was clicked: lifted along the surface normal by its own extent. A part
    // placed in space or on the ground lands on a 1 mm grid.
    Vec3 at = rounded(vec(hit.point));
    Vec3 normal = vec(hit.normal);
    if (hit.kind == PickResult::Kind::Space || hit.kind == PickResult::Kind::Ground)
        at = (vec(hit.point) * 1000.0).array().round().matrix() / 1000.0;
    if (hit.kind == PickResult::Kind::Part) {
        // On the part as drawn (maybe a frame of a run), placed where the document has it.
        for (std::size_t k = 0; k < spec->parts.size(); ++k) {
            if (spec->parts[k].id != hit.entity) continue;
            const engine::Transform toDocument =
                spec->parts[k].X_WP * viewport_->partPose(k).inverse();
            at = rounded(toDocument * vec(hit.point));
            normal = toDocument.R * normal;
        }
    }
    if (hit.kind == PickResult::Kind::Part || hit.kind == PickResult::Kind::Ground) {
        const Vec3 n = cleanDirection(normal);
        at += n * engine::supportDistance(part, -n);
    } else if (hit.kind == PickResult::Kind::Marker || hit.kind == PickResult::Kind::Joint ||
               hit.kind == PickResult::Kind::Nothing) {
        emit hint(tr("Click on the ground, on a part's surface or in empty space"));
        return;
    }
    part.X_WP.p = at;
    engine::SceneSpec after = *spec;
    const engine::EntityId id =
        engine::addPart(after, std::move(part),
                        shape_ == engine::ShapeType::Mesh ? std::string_view("mesh")
                                                          : engine::shapeTypeName(shape_));
    commitAdd(std::move(after), id, tr("Add %1").arg(toQString(engine::shapeTypeName(shape_))));
}

bool BuildTools::commitAdd(engine::SceneSpec after, engine::EntityId entity, const QString& text) {
    if (entity == engine::kNoEntity) {
        emit message(kError, tr("Not made: the picks do not fit this kind of entity."));
        return false;
    }
    if (const auto refused = document_->add(std::move(after), text)) {
        emit message(kError, tr("Not made: %1").arg(toQString(refused->message)),
                     refused->entities);
        return false;
    }
    lastCreated_ = entity;
    if (tool_ != Tool::Select) emit hint(hint_);  // ready for the next one
    emit created(entity);
    emit message(kInfo, tr("%1: '%2' (Ctrl+Z undoes)")
                            .arg(text, toQString(engine::entityName(*document_->scene(), entity))));
    return true;
}

namespace {

// A motion of a point on a curve along it, from where the point is: an open curve's to and fro
// (a second's period, 80 % of the way to the nearer end), a closed one's round it (once in
// 4 s). kNoEntity for another joint or a curve that is none.
engine::EntityId addMotionAlongCurve(engine::SceneSpec& spec, engine::EntityId jointId) {
    const engine::Joint* joint = nullptr;
    for (const engine::Joint& j : spec.joints)
        if (j.id == jointId && j.type == engine::JointType::PointOnCurve) joint = &j;
    if (!joint) return engine::kNoEntity;
    std::string error, key;
    const auto curve = engine::Curve::make(joint->curve, error, key);
    const engine::Part* pi = spec.findPart(joint->markerI.part);
    const engine::Part* pj = spec.findPart(joint->markerJ.part);
    const engine::Marker* mi = spec.findMarker(joint->markerI);
    const engine::Marker* mj = spec.findMarker(joint->markerJ);
    if (!curve || !pi || !pj || !mi || !mj) return engine::kNoEntity;
    const Vec3 p_J = (pj->X_WP * mj->X_PM).inverse() * (pi->X_WP * mi->X_PM.p);
    const double s0 = curve->wrap(curve->nearest(p_J));
    const double span = curve->end() - curve->start();
    auto text = [](double v, int digits) {
        return engine::numberText(std::abs(v) < 1e-12 ? 0.0 : v, digits);
    };
    engine::MotionSpec motion;
    motion.id = spec.newId();
    motion.name = engine::freshName(spec, engine::NameSpace::Motion, "motion");
    motion.joint = joint->name;
    motion.axis = engine::JointAxis::Translation;
    if (curve->closed()) {
        motion.expression = text(s0, 6) + " + " + text(span / 4.0, 4) + "*time";
    } else {
        double amplitude = 0.8 * std::min(s0 - curve->start(), curve->end() - s0);
        if (!(amplitude > 1e-3 * span)) amplitude = 0.25 * span;
        motion.expression = text(s0, 6) + " + " + text(amplitude, 3) + "*sin(2*pi*time)";
    }
    spec.motions.push_back(motion);
    return motion.id;
}

}  // namespace

bool BuildTools::addMotion(engine::EntityId joint) {
    const engine::SceneSpec* spec = document_->scene();
    if (!spec) return false;
    engine::SceneSpec after = *spec;
    engine::EntityId id = engine::addMotion(after, joint);
    if (id == engine::kNoEntity) id = addMotionAlongCurve(after, joint);
    if (id == engine::kNoEntity) {
        emit message(kError, tr("A motion drives a revolute, prismatic, cylindrical or "
                                "point-on-curve joint: select one (in the tree or the view) "
                                "first."));
        return false;
    }
    QString problem;
    std::vector<engine::EntityId> entities;
    if (!assembleAfterEdit(after, problem, engine::kNoEntity, &entities)) {
        emit message(
            kError,
            tr("The motion cannot hold at t = 0: %1 — the scene is left as it was.").arg(problem),
            entities);
        return false;
    }
    return commitAdd(std::move(after), id, tr("Add motion"));
}

bool BuildTools::addOnJoint(engine::ForceType type, engine::EntityId joint) {
    const engine::SceneSpec* spec = document_->scene();
    if (!spec) return false;
    engine::SceneSpec after = *spec;
    const engine::EntityId id =
        engine::addForce(after, type, engine::kNoEntity, engine::kNoEntity, joint);
    if (id == engine::kNoEntity) {
        emit message(kError, tr("A %1 acts on a joint: select one first.")
                                 .arg(spaced(engine::forceTypeName(type)).toLower()));
        return false;
    }
    return commitAdd(std::move(after), id,
                     tr("Add %1").arg(spaced(engine::forceTypeName(type)).toLower()));
}

namespace {

// What a coupler of `type` calls itself in messages and hints.
QString couplerWord(engine::CouplerType type) {
    switch (type) {
    case engine::CouplerType::Gear:
        return QObject::tr("Gear pair");
    case engine::CouplerType::RackPinion:
        return QObject::tr("Rack and pinion");
    case engine::CouplerType::Screw:
        return QObject::tr("Screw");
    case engine::CouplerType::Linear:
        return QObject::tr("Linear coupler");
    }
    return {};
}

const engine::Joint* jointWithId(const engine::SceneSpec& spec, engine::EntityId id) {
    for (const engine::Joint& j : spec.joints)
        if (j.id == id) return &j;
    return nullptr;
}

bool hasAxis(const engine::Joint& joint, engine::JointAxis axis) {
    const std::vector<engine::JointAxis> axes = engine::jointAxes(joint.type);
    return std::find(axes.begin(), axes.end(), axis) != axes.end();
}

}  // namespace

QString BuildTools::couplerMisfit(engine::CouplerType type, engine::EntityId id, int which) const {
    const engine::SceneSpec* spec = document_->scene();
    const engine::Joint* joint = spec ? jointWithId(*spec, id) : nullptr;
    if (!joint) return tr("the joint picked is gone");
    const QString is =
        tr("'%1' is a %2 joint")
            .arg(toQString(joint->name), spaced(engine::jointTypeName(joint->type)).toLower());
    using engine::JointAxis;
    switch (type) {
    case engine::CouplerType::Gear:
        if (!hasAxis(*joint, JointAxis::Rotation))
            return tr("A gear pair couples two revolute or cylindrical joints: %1.").arg(is);
        break;
    case engine::CouplerType::RackPinion:
        // The pinion turns, the rack slides; a first pick may be either (the rack first).
        if ((which == 0 && !hasAxis(*joint, JointAxis::Rotation) &&
             !hasAxis(*joint, JointAxis::Translation)) ||
            (which == 1 && !hasAxis(*joint, JointAxis::Translation) &&
             !hasAxis(*joint, JointAxis::Rotation)))
            return tr("A rack and pinion couples the pinion's revolute (or cylindrical) joint "
                      "and the rack's prismatic (or cylindrical) joint: %1.")
                .arg(is);
        break;
    case engine::CouplerType::Screw:
        if (!hasAxis(*joint, JointAxis::Rotation) || !hasAxis(*joint, JointAxis::Translation))
            return tr("A screw couples the angle and the slide of one cylindrical joint: %1.")
                .arg(is);
        break;
    case engine::CouplerType::Linear:
        if (engine::jointAxes(joint->type).empty())
            return tr("A linear coupler relates joint angles and slides (revolute, prismatic or "
                      "cylindrical joints): %1, which has neither.")
                .arg(is);
        break;
    }
    return {};
}

void BuildTools::addCouplers(engine::CouplerType type) {
    couplerType_ = type;
    // The joints selected (a marker stands for its joint), in the order they were selected.
    std::vector<engine::EntityId> joints;
    for (const engine::EntityId id : selected_)
        if (const engine::EntityId joint = jointOf(id);
            joint && std::find(joints.begin(), joints.end(), joint) == joints.end())
            joints.push_back(joint);
    const bool screw = type == engine::CouplerType::Screw;
    if (screw && !joints.empty() && addCoupler(type, joints[0])) return cancel();
    if (!screw && joints.size() >= 2 && addCoupler(type, joints[0], joints[1])) return cancel();
    const QString what = couplerWord(type);
    start(Tool::Coupler,
          screw ? tr("Screw: click the cylindrical joint whose slide follows its angle")
          : type == engine::CouplerType::RackPinion
              ? tr("Rack and pinion: click the pinion's joint, then the rack's")
              : tr("%1: click the first joint, then the second").arg(what));
    // One joint selected: the first pick.
    if (!screw && joints.size() == 1 && couplerMisfit(type, joints[0], 0).isEmpty())
        pickCouplerJoint(joints[0]);
}

void BuildTools::pickCouplerJoint(engine::EntityId joint) {
    const int which = firstJoint_ == engine::kNoEntity ? 0 : 1;
    if (couplerType_ == engine::CouplerType::Screw) {
        addCoupler(couplerType_, joint);
        return;
    }
    if (const QString misfit = couplerMisfit(couplerType_, joint, which); !misfit.isEmpty()) {
        emit message(kError, misfit, {joint});
        return;
    }
    if (which == 0) {
        firstJoint_ = joint;
        emit hint(tr("%1: '%2' is the first joint; now click the second  (Esc: done)")
                      .arg(couplerWord(couplerType_),
                           toQString(engine::entityName(*document_->scene(), joint))));
        return;
    }
    const engine::EntityId first = firstJoint_;
    firstJoint_ = engine::kNoEntity;
    addCoupler(couplerType_, first, joint);
}

bool BuildTools::addCoupler(engine::CouplerType type, engine::EntityId jointI,
                            engine::EntityId jointJ) {
    const engine::SceneSpec* spec = document_->scene();
    if (!spec) return false;
    const bool screw = type == engine::CouplerType::Screw;
    const QString what = couplerWord(type);
    if (!jointWithId(*spec, jointI) || (!screw && !jointWithId(*spec, jointJ))) {
        emit message(kError, screw ? tr("A screw acts on a cylindrical joint: select one (in the "
                                        "tree or the view) first.")
                                   : tr("%1: select two joints (Ctrl+click in the tree) or click "
                                        "them in the view.")
                                         .arg(what));
        return false;
    }
    if (!screw && jointI == jointJ) {
        emit message(kError,
                     tr("%1: pick two different joints ('%2' twice).")
                         .arg(what, toQString(engine::entityName(*spec, jointI))),
                     {jointI});
        return false;
    }
    // A rack picked before its pinion: the one that turns is the pinion.
    if (type == engine::CouplerType::RackPinion) {
        const engine::Joint& I = *jointWithId(*spec, jointI);
        const engine::Joint& J = *jointWithId(*spec, jointJ);
        if (!hasAxis(I, engine::JointAxis::Rotation) && hasAxis(J, engine::JointAxis::Rotation))
            std::swap(jointI, jointJ);
        const engine::Joint& pinion = *jointWithId(*spec, jointI);
        const engine::Joint& rack = *jointWithId(*spec, jointJ);
        const QString both =
            tr("A rack and pinion couples the pinion's revolute (or cylindrical) joint and the "
               "rack's prismatic (or cylindrical) joint: ");
        if (!hasAxis(pinion, engine::JointAxis::Rotation) ||
            !hasAxis(rack, engine::JointAxis::Translation)) {
            emit message(kError,
                         both + tr("'%1' is a %2 joint and '%3' a %4 joint.")
                                    .arg(toQString(pinion.name),
                                         spaced(engine::jointTypeName(pinion.type)).toLower(),
                                         toQString(rack.name),
                                         spaced(engine::jointTypeName(rack.type)).toLower()),
                         {jointI, jointJ});
            return false;
        }
    }
    for (const auto& [joint, which] : {std::pair{jointI, 0}, std::pair{jointJ, 1}}) {
        if (screw && which == 1) continue;
        if (const QString misfit = couplerMisfit(type, joint, which); !misfit.isEmpty()) {
            emit message(kError, misfit, {joint});
            return false;
        }
    }
    engine::SceneSpec after = *spec;
    const engine::EntityId id = engine::addCoupler(after, type, jointI, jointJ);
    if (id == engine::kNoEntity) {
        emit message(kError, tr("%1: these joints cannot be coupled.").arg(what));
        return false;
    }
    QString problem;
    std::vector<engine::EntityId> entities;
    if (!assembleAfterEdit(after, problem, engine::kNoEntity, &entities)) {
        std::erase(entities, id);
        emit message(kError,
                     tr("The %1 cannot hold as the parts are placed: %2 — the scene is left as "
                        "it was.")
                         .arg(what.toLower(), problem),
                     entities);
        return false;
    }
    return commitAdd(std::move(after), id, tr("Add %1").arg(what.toLower()));
}

bool BuildTools::fixToGround(engine::EntityId partId) {
    const engine::SceneSpec* spec = document_->scene();
    const engine::Part* part = spec ? engine::partById(*spec, partId) : nullptr;
    if (!part || part->ground) {
        emit message(kError, tr("Fix to ground: select a moving part first."));
        return false;
    }
    engine::SceneSpec after = *spec;
    // A marker at the part's origin along its axes, and one on the ground in the same place.
    const engine::EntityId markerI = engine::addMarker(after, partId, engine::Transform{});
    const engine::EntityId groundId = engine::groundPart(after).id;
    const engine::EntityId markerJ = engine::addMarker(
        after, groundId, engine::partById(after, groundId)->X_WP.inverse() * part->X_WP);
    const engine::EntityId id = engine::addJoint(after, engine::JointType::Fixed, markerI, markerJ);
    commitAdd(std::move(after), id, tr("Fix %1 to the ground").arg(toQString(part->name)));
    return true;
}

}  // namespace ui
