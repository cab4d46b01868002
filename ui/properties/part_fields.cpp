#include <QFileDialog>
#include <QFileInfo>
#include <QRegularExpression>

#include "engine/io/mesh_loader.h"
#include "engine/model/mass_properties.h"
#include "ui/properties/field_list.h"

namespace ui::fields {
namespace {

// Shape `k` of the part: type, dimensions, role, place, Remove.
void shapeFields(FieldList& b, const FieldOptions& o, std::size_t k) {
    const engine::EntityId id = b.id;
    auto P = [id](auto& s) { return partOf(s, id); };
    const engine::Part* part = partOf(b.spec, id);
    auto S = [P, k](auto& s) { return &P(s)->shapes[k]; };
    const QString name = tr("Shape %1").arg(k + 1);
    const engine::Shape& shape = part->shapes[k];
    b.choice(
        name + tr(" type"), QStringLiteral("shape.type"), b.words(QStringLiteral("shape.type")),
        [S](const SceneSpec& s) { return std::string(engine::shapeTypeName(S(s)->type)); },
        [parent = o.dialogParent, S](SceneSpec& s, const std::string& text) {
            engine::Shape& sh = *S(s);
            sh.type = engine::shapeTypeFromName(text).value_or(sh.type);
            if (sh.type == engine::ShapeType::Mesh && !sh.mesh) {
                // A mesh needs its file: asked for at once.
                const QString file = QFileDialog::getOpenFileName(
                    parent, tr("Mesh File"), QString(),
                    tr("Meshes (*.obj *.stl *.dae *.OBJ *.STL *.DAE);;All files (*)"));
                std::string error;
                if (!file.isEmpty()) sh.mesh = engine::io::loadMesh(file.toStdString(), error);
                if (sh.mesh) sh.meshFile = QFileInfo(file).absoluteFilePath().toStdString();
            }
        });
    switch (shape.type) {
    case engine::ShapeType::Box:
        b.vector(
            name + tr(" size"), QStringLiteral("m"), 1.0, QStringLiteral("shape.size"),
            [S](const SceneSpec& s) { return toNumbers(S(s)->size); },
            [S](SceneSpec& s, const Numbers& n) { S(s)->size = toVec(n); });
        break;
    case engine::ShapeType::Sphere:
    case engine::ShapeType::Cylinder:
    case engine::ShapeType::Capsule:
    case engine::ShapeType::Cone:
        b.number(
            name + tr(" radius"), QStringLiteral("m"), 1.0, QStringLiteral("shape.radius"),
            [S](const SceneSpec& s) { return S(s)->radius; },
            [S](SceneSpec& s, double v) { S(s)->radius = v; });
        if (shape.type != engine::ShapeType::Sphere)
            b.number(
                name + tr(" length"), QStringLiteral("m"), 1.0, QStringLiteral("shape.length"),
                [S](const SceneSpec& s) { return S(s)->length; },
                [S](SceneSpec& s, double v) { S(s)->length = v; });
        break;
    case engine::ShapeType::Mesh: {
        PropertyField& file = b.text(
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
        b.vector(
            name + tr(" scale"), QString(), 1.0, QStringLiteral("shape.scale"),
            [S](const SceneSpec& s) { return toNumbers(S(s)->scale); },
            [S](SceneSpec& s, const Numbers& n) { S(s)->scale = toVec(n); });
        break;
    }
    case engine::ShapeType::Plane:
        break;
    }
    b.choice(
        name + tr(" role"), QStringLiteral("shape.role"), b.words(QStringLiteral("shape.role")),
        [S](const SceneSpec& s) { return std::string(engine::shapeRoleName(S(s)->role)); },
        [S](SceneSpec& s, const std::string& text) {
            S(s)->role = engine::shapeRoleFromName(text).value_or(S(s)->role);
        });
    b.vector(
        name + tr(" position"), QStringLiteral("m"), 1.0, QStringLiteral("shape.position"),
        [S](const SceneSpec& s) { return toNumbers(S(s)->X_PG.p); },
        [S](SceneSpec& s, const Numbers& n) { S(s)->X_PG.p = toVec(n); });
    b.vector(
        name + tr(" orientation"), QStringLiteral("°"), kDeg, QStringLiteral("shape.orientation"),
        [S](const SceneSpec& s) { return rpyOf(S(s)->X_PG.R); },
        [S](SceneSpec& s, const Numbers& n) { S(s)->X_PG.R = quatOf(n); });
    b.button(tr("Remove shape %1").arg(k + 1), [P, k](SceneSpec& s) {
        P(s)->shapes.erase(P(s)->shapes.begin() + static_cast<std::ptrdiff_t>(k));
    });
}

// The part's contact material and collision filter.
void partContactFields(FieldList& b) {
    const engine::EntityId id = b.id;
    auto P = [id](auto& s) { return partOf(s, id); };
    b.heading(tr("Contact"));
    b.number(
        tr("Friction"), QString(), 1.0, QStringLiteral("material.friction"),
        [P](const SceneSpec& s) { return P(s)->material.friction; },
        [P](SceneSpec& s, double v) { P(s)->material.friction = v; });
    b.number(
        tr("Restitution"), QString(), 1.0, QStringLiteral("material.restitution"),
        [P](const SceneSpec& s) { return P(s)->material.restitution; },
        [P](SceneSpec& s, double v) { P(s)->material.restitution = v; });
    b.toggle(
        tr("Collides"), QStringLiteral("collision.enabled"),
        [P](const SceneSpec& s) { return P(s)->collision.enabled; },
        [P](SceneSpec& s, bool on) { P(s)->collision.enabled = on; });
    auto bitsField = [&](QString label, QString key,
                         std::uint32_t engine::CollisionFilter::*member) {
        PropertyField& f = b.text(
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
            return parseBits(text) ? QString() : tr("32 bits, as a number or 0x… in hexadecimal");
        };
    };
    bitsField(tr("Collision group"), QStringLiteral("collision.group"),
              &engine::CollisionFilter::group);
    bitsField(tr("Collision mask"), QStringLiteral("collision.mask"),
              &engine::CollisionFilter::mask);
}

// A moving frame: the part's pose prescribed as expressions of time, its origin's offset from
// where it starts (world axes) and its turn about that origin (roll, pitch, yaw about the world
// axes), for the mechanism built on it to ride on. The ground cannot be one.
void frameMotionFields(FieldList& b) {
    const engine::EntityId id = b.id;
    const engine::Part* part = partOf(b.spec, id);
    auto P = [id](auto& s) { return partOf(s, id); };
    b.heading(tr("Moving frame"));
    if (part->ground && !part->frameMotion) {
        PropertyField& why =
            b.info(tr("Moved by a prescribed motion"), tr("the ground cannot move"));
        why.help =
            tr("<p>The ground cannot move. To shake, tilt or turn a mechanism, make "
               "another part the moving frame (its pose prescribed as expressions of "
               "time) and build the mechanism on it.</p>");
        return;
    }
    b.toggle(
        tr("Moved by a prescribed motion (moving frame)"), QStringLiteral("frameMotion"),
        [P](const SceneSpec& s) { return P(s)->frameMotion.has_value(); },
        [P](SceneSpec& s, bool on) {
            engine::Part& p = *P(s);
            if (!on)
                p.frameMotion.reset();
            else if (!p.frameMotion)
                p.frameMotion.emplace();  // at rest where it is until its expressions are typed
        });
    if (!part->frameMotion) return;
    // Each component an expression of time, as a motion's is; "#k": item k of the format's
    // [x, y, z] or [roll, pitch, yaw].
    using Triple = std::string(engine::FrameMotion::*)[3];
    auto components = [&](Triple triple, const QString(&labels)[3], const QString& key,
                          const QString& unit) {
        for (int c = 0; c < 3; ++c)
            b.expression(
                labels[c], c == 0 ? key : key + QStringLiteral("#%1").arg(c), unit,
                [P, triple, c](const SceneSpec& s) { return ((*P(s)->frameMotion).*triple)[c]; },
                [P, triple, c](SceneSpec& s, const std::string& text) {
                    ((*P(s)->frameMotion).*triple)[c] = text;
                });
    };
    components(&engine::FrameMotion::translation,
               {tr("Translation x"), tr("Translation y"), tr("Translation z")},
               QStringLiteral("frameMotion.translation"), QStringLiteral("m"));
    components(&engine::FrameMotion::rotation,
               {tr("Roll (about x)"), tr("Pitch (about y)"), tr("Yaw (about z)")},
               QStringLiteral("frameMotion.rotation"), QStringLiteral("rad"));
}

}  // namespace

// A part: name, ground, colour, pose and velocities, moving frame, mass properties, shapes,
// contact.
void partFields(FieldList& b, const FieldOptions& o) {
    const SceneSpec& spec = b.spec;
    const engine::EntityId id = b.id;
    const engine::Part* part = partOf(spec, id);
    auto P = [id](auto& s) { return partOf(s, id); };
    b.title = part->ground ? tr("Ground part") : tr("Part");
    b.name();
    b.toggle(
        tr("Ground (fixed)"), QStringLiteral("ground"),
        [P](const SceneSpec& s) { return P(s)->ground; },
        [P](SceneSpec& s, bool on) { P(s)->ground = on; });
    PropertyField& colour = b.text(
        tr("Colour"), QStringLiteral("color"),
        [P](const SceneSpec& s) { return colourText(P(s)->colorRgb).toStdString(); },
        [P](SceneSpec& s, const std::string& text) {
            P(s)->colorRgb = QString::fromStdString(text).mid(1).toUInt(nullptr, 16);
        });
    colour.kind = PropertyField::Kind::Colour;
    colour.checkText = [](const std::string& text) {
        static const QRegularExpression hex(QStringLiteral("^#[0-9a-fA-F]{6}$"));
        return hex.match(QString::fromStdString(text)).hasMatch()
                   ? QString()
                   : tr("a colour is #rrggbb, e.g. #e0703c");
    };
    b.pose(P, &engine::Part::X_WP);
    if (!part->ground) {
        b.vector(
            tr("Velocity"), QStringLiteral("m/s"), 1.0, QStringLiteral("velocity"),
            [P](const SceneSpec& s) { return toNumbers(P(s)->v_WPo_W); },
            [P](SceneSpec& s, const Numbers& n) { P(s)->v_WPo_W = toVec(n); });
        b.vector(
            tr("Angular velocity"), QStringLiteral("°/s"), kDeg, QStringLiteral("angularVelocity"),
            [P](const SceneSpec& s) { return toNumbers(P(s)->w_WP_W); },
            [P](SceneSpec& s, const Numbers& n) { P(s)->w_WP_W = toVec(n); });
    }
    frameMotionFields(b);

    b.heading(tr("Mass and inertia"));
    const QString fromGeometry = tr("from geometry and density"),
                  userDefined = tr("typed in (overrides the geometry)");
    b.choice(
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
        b.number(
            tr("Density"), QStringLiteral("kg/m³"), 1.0, QStringLiteral("density"),
            [P](const SceneSpec& s) { return *P(s)->density; },
            [P](SceneSpec& s, double v) { P(s)->density = v; });
        const engine::MassProperties m = engine::partMassProperties(*part);
        b.info(tr("Mass"), QStringLiteral("%1 kg").arg(number(m.mass)));
        b.info(tr("Centre of mass"),
               QStringLiteral("%1, %2, %3 m")
                   .arg(number(m.p_PPcm.x()), number(m.p_PPcm.y()), number(m.p_PPcm.z())));
        b.info(tr("Inertia"),
               QStringLiteral("%1, %2, %3 kg·m²")
                   .arg(number(m.I_Pcm_P(0, 0)), number(m.I_Pcm_P(1, 1)), number(m.I_Pcm_P(2, 2))));
    } else {
        b.number(
            tr("Mass"), QStringLiteral("kg"), 1.0, QStringLiteral("mass"),
            [P](const SceneSpec& s) { return P(s)->mass; },
            [P](SceneSpec& s, double v) { P(s)->mass = v; });
        b.vector(
            tr("Centre of mass"), QStringLiteral("m"), 1.0, QStringLiteral("centerOfMass"),
            [P](const SceneSpec& s) { return toNumbers(P(s)->p_PPcm); },
            [P](SceneSpec& s, const Numbers& n) { P(s)->p_PPcm = toVec(n); });
        b.vector(
            tr("Inertia (Ixx, Iyy, Izz)"), QStringLiteral("kg·m²"), 1.0, QStringLiteral("inertia"),
            [P](const SceneSpec& s) { return toNumbers(P(s)->I_Pcm_P.diagonal()); },
            [P](SceneSpec& s, const Numbers& n) { P(s)->I_Pcm_P.diagonal() = toVec(n); });
        b.vector(
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

    b.heading(tr("Geometry"));
    for (std::size_t k = 0; k < part->shapes.size(); ++k) shapeFields(b, o, k);
    b.button(tr("Add shape"), [P](SceneSpec& s) {
        engine::Shape box;
        box.size = engine::Vec3::Constant(0.05);
        P(s)->shapes.push_back(box);
    });
    if (o.shape > 0 && static_cast<std::size_t>(o.shape) <= part->shapes.size()) {
        // One shape: only its own fields, under a title that names it.
        b.title = tr("Shape %1 of %2").arg(o.shape).arg(toQString(part->name));
        const QString own = tr("Shape %1 ").arg(o.shape);
        const QString remove = tr("Remove shape %1").arg(o.shape);
        std::erase_if(b.fields, [&](const std::unique_ptr<PropertyField>& f) {
            return !f->label.startsWith(own) && f->label != remove;
        });
        return;
    }

    partContactFields(b);
}

void markerFields(FieldList& b, const FieldOptions& o) {
    const SceneSpec& spec = b.spec;
    const engine::EntityId id = b.id;
    auto M = [id](auto& s) { return markerOf(s, id); };
    auto MP = [id](auto& s) { return markerPartOf(s, id); };
    b.title = tr("Marker on %1").arg(toQString(markerPartOf(spec, id)->name));
    b.name();
    PropertyField& frame =
        b.toggle(tr("In world axes"), QString(),
                 [world = o.markerInWorld](const SceneSpec&) { return world; }, {});
    frame.local = [o](bool world) { o.setMarkerInWorld(world); };
    if (!o.markerInWorld) {
        b.pose(M, &engine::Marker::X_PM);
    } else {
        b.vector(
            tr("Position"), QStringLiteral("m"), 1.0, QStringLiteral("position"),
            [M, MP](const SceneSpec& s) { return toNumbers(MP(s)->X_WP * M(s)->X_PM.p); },
            [M, MP](SceneSpec& s, const Numbers& n) {
                M(s)->X_PM.p = MP(s)->X_WP.inverse() * toVec(n);
            });
        b.vector(
            tr("Orientation (roll, pitch, yaw)"), QStringLiteral("°"), kDeg,
            QStringLiteral("orientation"),
            [M, MP](const SceneSpec& s) { return rpyOf(MP(s)->X_WP.R * M(s)->X_PM.R); },
            [M, MP](SceneSpec& s, const Numbers& n) {
                M(s)->X_PM.R = (MP(s)->X_WP.R.conjugate() * quatOf(n)).normalized();
            });
    }
}

}  // namespace ui::fields
