#include "ui/properties/property_fields.h"

#include "ui/properties/field_list.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

#include <QCoreApplication>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QRegularExpression>

#include "engine/io/mesh_loader.h"
#include "engine/io/scene_format.h"
#include "engine/io/table_csv.h"
#include "engine/math/constants.h"
#include "engine/model/construct.h"
#include "engine/model/curve.h"
#include "engine/model/edit.h"
#include "engine/model/mass_properties.h"
#include "engine/model/surface.h"
#include "ui/common/coupler_layout.h"
#include "ui/common/joint_curves.h"
#include "ui/common/text.h"
#include "ui/common/variables.h"

namespace ui {
namespace fields {
namespace {

// A cable's point as written one a line in Properties: "part.marker", or a pulley
// "part.marker r=0.05 cw joint=hinge" (its radius in m; ccw by default; a joint it turns on;
// mu=0.3, belt friction).
std::optional<engine::CableVia> parseCablePoint(const QString& line, QString& error) {
    const QStringList words = line.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (words.isEmpty()) {
        error = tr("empty");
        return std::nullopt;
    }
    engine::CableVia v;
    const QString& ref = words.front();
    const qsizetype dot = ref.indexOf(QLatin1Char('.'));
    if (dot <= 0 || dot + 1 >= ref.size()) {
        error = tr("'%1' is not part.marker").arg(ref);
        return std::nullopt;
    }
    v.marker = {ref.left(dot).toStdString(), ref.mid(dot + 1).toStdString()};
    bool radius = false;
    for (qsizetype k = 1; k < words.size(); ++k) {
        const QString& w = words[k];
        if (w.startsWith(QLatin1String("r="))) {
            bool ok = false;
            v.radius = QLocale::c().toDouble(w.mid(2), &ok);
            if (!ok || !std::isfinite(v.radius) || v.radius <= 0.0) {
                error = tr("a pulley's radius is a positive number of m: '%1'").arg(w);
                return std::nullopt;
            }
            v.pulley = radius = true;
        } else if (w == QLatin1String("cw") || w == QLatin1String("ccw")) {
            v.clockwise = w == QLatin1String("cw");
        } else if (w.startsWith(QLatin1String("joint=")) && w.size() > 6) {
            v.joint = w.mid(6).toStdString();
        } else if (w.startsWith(QLatin1String("mu="))) {
            bool ok = false;
            v.friction = QLocale::c().toDouble(w.mid(3), &ok);
            if (!ok || !std::isfinite(v.friction) || v.friction < 0.0) {
                error = tr("a pulley's friction is a number, 0 or more: '%1'").arg(w);
                return std::nullopt;
            }
        } else {
            error = tr("'%1' is not r=radius, cw, ccw, joint=name or mu=friction").arg(w);
            return std::nullopt;
        }
    }
    if (!radius && words.size() > 1) {
        error = tr("cw, ccw, joint= and mu= belong to a pulley: give its radius, r=0.05");
        return std::nullopt;
    }
    return v;
}

std::string cablePointText(const engine::CableVia& v) {
    std::string text = v.marker.text();
    if (!v.pulley) return text;
    text += " r=" + QString::number(v.radius, 'g', 12).toStdString();
    if (v.clockwise) text += " cw";
    if (!v.joint.empty()) text += " joint=" + v.joint;
    if (v.friction > 0.0) text += " mu=" + QString::number(v.friction, 'g', 12).toStdString();
    return text;
}

void limitFields(FieldList& b);
void frictionFields(FieldList& b);
void camContactFields(FieldList& b);
void surfaceFields(FieldList& b);
void curveFields(FieldList& b, const QString& what, const QString& key,
                 engine::CurveSpec engine::Joint::*member);

void jointFields(FieldList& b) {
    const SceneSpec& spec = b.spec;
    const engine::EntityId id = b.id;
    const engine::Joint* joint = byId(spec.joints, id);
    auto J = [id](auto& s) { return byId(s.joints, id); };
    b.title = tr("Joint (%1)").arg(toQString(engine::jointTypeName(joint->type)));
    b.name();
    b.choice(
        tr("Type"), QStringLiteral("type"), b.words(QStringLiteral("type")),
        [J](const SceneSpec& s) { return std::string(engine::jointTypeName(J(s)->type)); },
        [J](SceneSpec& s, const std::string& text) {
            engine::Joint& j = *J(s);
            j.type = engine::jointTypeFromName(text).value_or(j.type);
            // A joint on curves gets curves through its markers where they are; another
            // type leaves them.
            fitJointCurves(s, j.id);
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
    b.markerChoice(tr("Marker I"), QStringLiteral("markerI"), &engine::Joint::markerI, J);
    b.markerChoice(tr("Marker J"), QStringLiteral("markerJ"), &engine::Joint::markerJ, J);
    if (joint->type == engine::JointType::Distance)
        b.number(
            tr("Length"), QStringLiteral("m"), 1.0, QStringLiteral("length"),
            [J](const SceneSpec& s) { return J(s)->length; },
            [J](SceneSpec& s, double v) { J(s)->length = v; });
    b.toggle(
        tr("Its parts collide"), QStringLiteral("collide"),
        [J](const SceneSpec& s) { return J(s)->collide; },
        [J](SceneSpec& s, bool on) { J(s)->collide = on; });
    // Exact, or soft (engine::JointCompliance) said by frequency or by stiffness.
    const QStringList holds{tr("exact"), tr("soft, by frequency"), tr("soft, by stiffness")};
    auto holdOf = [holds](const engine::JointCompliance& c) {
        return (c.frequency > 0.0 ? holds[1] : c.soft() ? holds[2] : holds[0]).toStdString();
    };
    b.choice(
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
    auto compliance = [&](QString label, QString unit, QString key, double Compliance::*member) {
        b.number(
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
    using engine::JointType;
    if (joint->type == JointType::CurveOnCurve) {
        camContactFields(b);
        b.heading(tr("Cam contour (in marker J's x-y plane)"));
        curveFields(b, tr("Cam"), QStringLiteral("curve"), &engine::Joint::curve);
        b.heading(tr("Follower contour (in marker I's x-y plane)"));
        curveFields(b, tr("Follower"), QStringLiteral("follower"), &engine::Joint::follower);
        return;
    }
    limitFields(b);
    frictionFields(b);
    if (joint->type == JointType::PointOnCurve) {
        b.heading(tr("Curve (in marker J's frame)"));
        curveFields(b, tr("Curve"), QStringLiteral("curve"), &engine::Joint::curve);
    }
    if (joint->type == JointType::PointOnSurface) {
        b.heading(tr("Surface (in marker J's frame)"));
        surfaceFields(b);
    }
}

// A joint's curve as a curve (null when it is none): for the parameter's range.
std::shared_ptr<const engine::Curve> curveOf(const engine::CurveSpec& spec) {
    std::string error, key;
    return engine::Curve::make(spec, error, key);
}

// A point as a list of points shows it: x, y, z to the last digit that tells the number apart
// (what is typed comes back unchanged), −0 and round-off as 0.
QString pointText(const engine::Vec3& p) {
    QStringList numbers;
    for (int k = 0; k < 3; ++k) {
        const double v = std::abs(p(k)) < 1e-13 ? 0.0 : p(k);
        numbers << QString::number(v, 'g', QLocale::FloatingPointShortest);
    }
    return numbers.join(QStringLiteral(", "));
}

std::string pointsText(const std::vector<engine::Vec3>& points) {
    QStringList lines;
    for (const engine::Vec3& p : points) lines << pointText(p);
    return lines.join(QLatin1Char('\n')).toStdString();
}

// Points typed one a line as x, y, z (commas, semicolons, spaces or tabs between the numbers,
// brackets ignored: a spreadsheet's columns or a scene file's [x, y, z] pasted in; blank lines
// skipped). Empty with `error` saying which line is not a point.
std::vector<engine::Vec3> parsePoints(const std::string& text, QString& error) {
    std::vector<engine::Vec3> points;
    const QStringList lines = QString::fromStdString(text).split(QLatin1Char('\n'));
    static const QRegularExpression separators(QStringLiteral("[,;\\s\\[\\]]+"));
    for (qsizetype n = 0; n < lines.size(); ++n) {
        const QStringList numbers = lines[n].split(separators, Qt::SkipEmptyParts);
        if (numbers.isEmpty()) continue;
        if (numbers.size() != 3) {
            error =
                tr("line %1: %2 numbers; a point is three, x, y, z").arg(n + 1).arg(numbers.size());
            return {};
        }
        engine::Vec3 p;
        for (int k = 0; k < 3; ++k) {
            bool ok = false;
            p(k) = numbers[k].toDouble(&ok);
            if (!ok || !std::isfinite(p(k))) {
                error = tr("line %1: '%2' is not a number").arg(n + 1).arg(numbers[k]);
                return {};
            }
        }
        points.push_back(p);
    }
    if (points.empty()) error = tr("no points: type one a line, x, y, z");
    return points;
}

// The rows of a curve of a joint on curves (`member`, rows keyed "<key>.<curve key>"): its
// type, whether it is closed, and a spline's points or x, y, z as expressions of s with the
// range of s. `what` names it in the labels ("Curve", "Cam", "Follower").
void curveFields(FieldList& b, const QString& what, const QString& key,
                 engine::CurveSpec engine::Joint::*member) {
    const engine::EntityId id = b.id;
    auto C = [id, member](auto& s) { return &(byId(s.joints, id)->*member); };
    const engine::CurveSpec& curve = *C(b.spec);
    const QString prefix = key + QLatin1Char('.');
    b.choice(
        tr("%1 type").arg(what), key, b.words(prefix + QStringLiteral("type")),
        [C](const SceneSpec& s) { return std::string(engine::curveTypeName(C(s)->type)); },
        [C](SceneSpec& s, const std::string& text) {
            // The curve as the other kind: a spline through the expression's points, or
            // expressions of the spline's circle or line.
            const auto type = engine::curveTypeFromName(text);
            if (!type || *type == C(s)->type) return;
            *C(s) = *type == engine::CurveType::Spline ? asSpline(*C(s)) : asExpression(*C(s));
        });
    b.toggle(
        tr("%1 closed").arg(what), prefix + QStringLiteral("closed"),
        [C](const SceneSpec& s) { return C(s)->closed; },
        [C](SceneSpec& s, bool on) {
            engine::CurveSpec& c = *C(s);
            c.closed = on;
            // A spline closes by itself from its last point back to its first: a last point
            // on the first is one too many.
            if (on && c.type == engine::CurveType::Spline && c.points.size() > 4 &&
                (c.points.back() - c.points.front()).norm() < 1e-9)
                c.points.pop_back();
        });
    const std::shared_ptr<const engine::Curve> made = curveOf(curve);
    if (curve.type == engine::CurveType::Spline) {
        PropertyField f;
        f.kind = PropertyField::Kind::Points;
        f.label = tr("%1 points").arg(what);
        f.unit = QStringLiteral("m");
        f.key = prefix + QStringLiteral("points");
        f.getText = [C](const SceneSpec& s) { return pointsText(C(s)->points); };
        f.setText = [C](SceneSpec& s, const std::string& text) {
            QString error;
            C(s)->points = parsePoints(text, error);
        };
        f.checkText = [](const std::string& text) {
            QString error;
            parsePoints(text, error);
            return error;
        };
        b.add(std::move(f));
        if (made)
            b.info(tr("%1 length").arg(what),
                   tr("%1 m (its parameter s runs along it from 0 at its first point)")
                       .arg(number(made->end())));
        return;
    }
    for (const auto& [axis, component] : {std::pair{QStringLiteral("x"), &engine::CurveSpec::x},
                                          std::pair{QStringLiteral("y"), &engine::CurveSpec::y},
                                          std::pair{QStringLiteral("z"), &engine::CurveSpec::z}}) {
        PropertyField& f = b.expression(
            tr("%1 %2(s)").arg(what, axis), prefix + axis, QStringLiteral("m"),
            [C, component](const SceneSpec& s) { return C(s)->*component; },
            [C, component](SceneSpec& s, const std::string& text) { C(s)->*component = text; });
        f.variable = QStringLiteral("s");
        f.rangeStart = curve.start;
        f.rangeEnd = curve.end;
    }
    b.number(
        tr("%1 s from").arg(what), QString(), 1.0, prefix + QStringLiteral("start"),
        [C](const SceneSpec& s) { return C(s)->start; },
        [C](SceneSpec& s, double v) { C(s)->start = v; });
    b.number(
        tr("%1 s to").arg(what), QString(), 1.0, prefix + QStringLiteral("end"),
        [C](const SceneSpec& s) { return C(s)->end; },
        [C](SceneSpec& s, double v) { C(s)->end = v; });
}

// Numbers on a line (commas, semicolons, spaces or tabs between them); `error` says what is
// not a number.
std::vector<double> parseNumbers(const std::string& line, QString& error) {
    std::vector<double> out;
    std::string cleaned = line;
    for (char& c : cleaned)
        if (c == ',' || c == ';' || c == '\t' || c == '[' || c == ']') c = ' ';
    std::istringstream in(cleaned);
    std::string word;
    while (in >> word) {
        char* end = nullptr;
        const double v = std::strtod(word.c_str(), &end);
        if (end == word.c_str() || *end != '\0' || !std::isfinite(v)) {
            error = tr("'%1' is not a number").arg(QString::fromStdString(word));
            return {};
        }
        out.push_back(v);
    }
    return out;
}

std::string numbersText(const std::vector<double>& values) {
    std::string out;
    for (std::size_t k = 0; k < values.size(); ++k)
        out += (k ? ", " : "") + engine::numberText(values[k], 10);
    return out;
}

// Rows of numbers, one a line (a grid's heights: a row per y value).
std::vector<std::vector<double>> parseRows(const std::string& text, QString& error) {
    std::vector<std::vector<double>> rows;
    std::istringstream in(text);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (line.find_first_not_of(" \t,;[]") == std::string::npos) continue;
        QString why;
        rows.push_back(parseNumbers(line, why));
        if (!why.isEmpty()) {
            error = tr("line %1: %2").arg(n).arg(why);
            return {};
        }
    }
    if (rows.empty()) error = tr("no heights: type a row of them a line, one row per y value");
    return rows;
}

// The surface of a point on a surface (rows keyed "surface.<key>"): its type, and x, y, z as
// expressions of u and v with their ranges, or a grid's x and y values and heights.
void surfaceFields(FieldList& b) {
    const engine::EntityId id = b.id;
    auto S = [id](auto& s) { return &byId(s.joints, id)->surface; };
    const engine::SurfaceSpec& surface = *S(b.spec);
    b.choice(
        tr("Surface type"), QStringLiteral("surface"), b.words(QStringLiteral("surface.type")),
        [S](const SceneSpec& s) { return std::string(engine::surfaceTypeName(S(s)->type)); },
        [S](SceneSpec& s, const std::string& text) {
            // The other kind over the same patch: a grid of the expression's heights over its
            // (u, v) range, or the expressions of a flat patch over the grid's.
            const auto type = engine::surfaceTypeFromName(text);
            if (!type || *type == S(s)->type) return;
            engine::SurfaceSpec& c = *S(s);
            engine::SurfaceSpec out;
            out.type = *type;
            if (*type == engine::SurfaceType::Grid) {
                std::string error, key;
                const auto made = engine::Surface::make(c, error, key);
                for (int k = 0; k < 5; ++k) {
                    out.xs.push_back(c.uStart + (c.uEnd - c.uStart) * k / 4.0);
                    out.ys.push_back(c.vStart + (c.vEnd - c.vStart) * k / 4.0);
                }
                for (double v : out.ys) {
                    out.heights.emplace_back();
                    for (double u : out.xs)
                        out.heights.back().push_back(made ? made->at(u, v).x.z() : 0.0);
                }
            } else {
                out.x = "u";
                out.y = "v";
                out.z = "0";
                if (c.xs.size() >= 2 && c.ys.size() >= 2) {
                    out.uStart = c.xs.front();
                    out.uEnd = c.xs.back();
                    out.vStart = c.ys.front();
                    out.vEnd = c.ys.back();
                }
            }
            c = out;
        });
    if (surface.type == engine::SurfaceType::Expression) {
        for (const auto& [axis, component] :
             {std::pair{QStringLiteral("x"), &engine::SurfaceSpec::x},
              std::pair{QStringLiteral("y"), &engine::SurfaceSpec::y},
              std::pair{QStringLiteral("z"), &engine::SurfaceSpec::z}}) {
            PropertyField& f = b.expression(
                tr("Surface %1(u, v)").arg(axis), QStringLiteral("surface.") + axis,
                QStringLiteral("m"),
                [S, component](const SceneSpec& s) { return S(s)->*component; },
                [S, component](SceneSpec& s, const std::string& text) { S(s)->*component = text; });
            f.variable = QStringLiteral("u, v");
            f.rangeStart = surface.uStart;
            f.rangeEnd = surface.uEnd;
        }
        for (const auto& [label, key, member] :
             {std::tuple{tr("Surface u from"), QStringLiteral("uStart"),
                         &engine::SurfaceSpec::uStart},
              std::tuple{tr("Surface u to"), QStringLiteral("uEnd"), &engine::SurfaceSpec::uEnd},
              std::tuple{tr("Surface v from"), QStringLiteral("vStart"),
                         &engine::SurfaceSpec::vStart},
              std::tuple{tr("Surface v to"), QStringLiteral("vEnd"), &engine::SurfaceSpec::vEnd}})
            b.number(
                label, QString(), 1.0, QStringLiteral("surface.") + key,
                [S, member](const SceneSpec& s) { return S(s)->*member; },
                [S, member](SceneSpec& s, double v) { S(s)->*member = v; });
        return;
    }
    for (const auto& [label, key, member] :
         {std::tuple{tr("Grid x values"), QStringLiteral("xs"), &engine::SurfaceSpec::xs},
          std::tuple{tr("Grid y values"), QStringLiteral("ys"), &engine::SurfaceSpec::ys}})
        b.text(
            label, QStringLiteral("surface.") + key,
            [S, member](const SceneSpec& s) { return numbersText(S(s)->*member); },
            [S, member](SceneSpec& s, const std::string& text) {
                QString error;
                const std::vector<double> values = parseNumbers(text, error);
                if (error.isEmpty()) S(s)->*member = values;
            },
            QStringLiteral("m"));
    PropertyField f;
    f.kind = PropertyField::Kind::Points;
    f.label = tr("Grid heights (a row per y value)");
    f.unit = QStringLiteral("m");
    f.key = QStringLiteral("surface.heights");
    f.getText = [S](const SceneSpec& s) {
        std::string out;
        for (const std::vector<double>& row : S(s)->heights) out += numbersText(row) + "\n";
        return out;
    };
    f.setText = [S](SceneSpec& s, const std::string& text) {
        QString error;
        S(s)->heights = parseRows(text, error);
    };
    f.checkText = [](const std::string& text) {
        QString error;
        parseRows(text, error);
        return error;
    };
    b.add(std::move(f));
}

// A cam's contact: held, or free to lift off with the restitution and compliance of its
// contact (the cam's `limits` object, keys as limitFields').
void camContactFields(FieldList& b) {
    const engine::EntityId id = b.id;
    const engine::Joint* joint = byId(b.spec.joints, id);
    auto J = [id](auto& s) { return byId(s.joints, id); };
    b.toggle(
        tr("Follower may lift off"), QStringLiteral("liftOff"),
        [J](const SceneSpec& s) { return J(s)->liftOff; },
        [J](SceneSpec& s, bool on) {
            J(s)->liftOff = on;
            fitJointCurves(s, J(s)->id);  // held on, its contact has no restitution
        });
    if (!joint->liftOff) return;
    auto contactOf = [J](SceneSpec& s) -> engine::JointLimit& {
        std::vector<engine::JointLimit>& limits = J(s)->limits;
        if (limits.empty()) limits.resize(1);
        return limits[0];
    };
    auto read = [J](const SceneSpec& s) {
        const std::vector<engine::JointLimit>& limits = J(s)->limits;
        return limits.empty() ? engine::JointLimit{} : limits[0];
    };
    b.number(
        tr("Contact restitution"), QString(), 1.0, QStringLiteral("limit.restitution"),
        [read](const SceneSpec& s) { return read(s).restitution; },
        [contactOf](SceneSpec& s, double v) { contactOf(s).restitution = v; });
    b.number(
        tr("Contact frequency (0: rigid)"), QStringLiteral("Hz"), 1.0,
        QStringLiteral("limit.frequency"), [read](const SceneSpec& s) { return read(s).frequency; },
        [contactOf](SceneSpec& s, double v) { contactOf(s).frequency = v; });
    if (read(b.spec).frequency > 0.0)
        b.number(
            tr("Contact damping ratio"), QString(), 1.0, QStringLiteral("limit.dampingRatio"),
            [read](const SceneSpec& s) { return read(s).dampingRatio; },
            [contactOf](SceneSpec& s, double v) { contactOf(s).dampingRatio = v; });
}

// Joints whose coordinates are a shaft's turn or a slide's travel (revolute, prismatic,
// cylindrical): what friction, motions, controllers and couplers act on.
bool drivable(engine::JointType type) {
    return type == engine::JointType::Revolute || type == engine::JointType::Prismatic ||
           type == engine::JointType::Cylindrical;
}

// A joint's end stops (engine::JointLimit), per coordinate: which ends it has, where they are,
// and how a stop takes a hit. Rows of coordinate k > 0 have keys ending "#k".
void limitFields(FieldList& b) {
    const engine::EntityId id = b.id;
    const engine::Joint* joint = byId(b.spec.joints, id);
    auto J = [id](auto& s) { return byId(s.joints, id); };
    const std::vector<engine::JointAxis> axes = engine::jointAxes(joint->type);
    constexpr double kNone = std::numeric_limits<double>::infinity();
    const QStringList ends{tr("none"), tr("lower"), tr("upper"), tr("lower and upper")};
    // A point on a curve stops along it, at the curve's ends when first given stops (a slot's).
    const bool onCurve = joint->type == engine::JointType::PointOnCurve;
    std::optional<std::pair<double, double>> curveEnds;
    if (onCurve)
        if (const auto curve = curveOf(joint->curve))
            curveEnds = std::pair{curve->start(), curve->end()};
    for (std::size_t k = 0; k < axes.size(); ++k) {
        const bool angle = axes[k] == engine::JointAxis::Rotation;
        const QString suffix = k == 0 ? QString() : QStringLiteral("#%1").arg(k);
        // A universal or planar joint's coordinates by their axes.
        QString what = onCurve ? tr("Pin") : angle ? tr("Angle") : tr("Slide");
        if (joint->type == engine::JointType::Universal)
            what = k == 0 ? tr("Angle about J's pin") : tr("Angle about I's pin");
        else if (joint->type == engine::JointType::Planar)
            what = k == 0 ? tr("Slide along x") : k == 1 ? tr("Slide along y") : tr("Angle");
        // The limit of coordinate k, made when first set.
        auto limitOf = [J, k, n = axes.size()](SceneSpec& s) -> engine::JointLimit& {
            std::vector<engine::JointLimit>& limits = J(s)->limits;
            if (limits.size() < n) limits.resize(n);
            return limits[k];
        };
        auto read = [J, k](const SceneSpec& s) {
            const std::vector<engine::JointLimit>& limits = J(s)->limits;
            return k < limits.size() ? limits[k] : engine::JointLimit{};
        };
        b.choice(
            tr("%1 stops").arg(what), QStringLiteral("limits") + suffix, ends,
            [read, ends](const SceneSpec& s) {
                const engine::JointLimit l = read(s);
                const int which =
                    (std::isfinite(l.lower) ? 1 : 0) + (std::isfinite(l.upper) ? 2 : 0);
                return ends[which].toStdString();
            },
            [limitOf, ends, angle, curveEnds](SceneSpec& s, const std::string& text) {
                engine::JointLimit& l = limitOf(s);
                const int which = static_cast<int>(ends.indexOf(QString::fromStdString(text)));
                if (curveEnds && (which & 1) && !std::isfinite(l.lower)) l.lower = curveEnds->first;
                if (curveEnds && (which & 2) && !std::isfinite(l.upper))
                    l.upper = curveEnds->second;
                // A new end a quarter turn (or 10 cm) beyond the other, or about zero.
                const double span = angle ? engine::kPi / 2.0 : 0.1;
                if (which & 1) {
                    if (!std::isfinite(l.lower))
                        l.lower = std::isfinite(l.upper) ? std::min(-span, l.upper - span) : -span;
                } else {
                    l.lower = -kNone;
                }
                if (which & 2) {
                    if (!std::isfinite(l.upper))
                        l.upper = std::isfinite(l.lower) ? std::max(span, l.lower + span) : span;
                } else {
                    l.upper = kNone;
                }
            });
        const engine::JointLimit now = read(b.spec);
        if (!now.limited()) continue;
        // Along a curve of expressions: in its parameter s.
        const QString unit = angle ? QStringLiteral("°")
                             : onCurve && joint->curve.type == engine::CurveType::Expression
                                 ? QString()
                                 : QStringLiteral("m");
        const double scale = angle ? kDeg : 1.0;
        if (std::isfinite(now.lower))
            b.number(
                tr("%1: lower stop").arg(what), unit, scale, QStringLiteral("limit.lower") + suffix,
                [read](const SceneSpec& s) { return read(s).lower; },
                [limitOf](SceneSpec& s, double v) { limitOf(s).lower = v; });
        if (std::isfinite(now.upper))
            b.number(
                tr("%1: upper stop").arg(what), unit, scale, QStringLiteral("limit.upper") + suffix,
                [read](const SceneSpec& s) { return read(s).upper; },
                [limitOf](SceneSpec& s, double v) { limitOf(s).upper = v; });
        b.number(
            tr("%1: stop restitution").arg(what), QString(), 1.0,
            QStringLiteral("limit.restitution") + suffix,
            [read](const SceneSpec& s) { return read(s).restitution; },
            [limitOf](SceneSpec& s, double v) { limitOf(s).restitution = v; });
        b.number(
            tr("%1: stop frequency").arg(what), QStringLiteral("Hz"), 1.0,
            QStringLiteral("limit.frequency") + suffix,
            [read](const SceneSpec& s) { return read(s).frequency; },
            [limitOf](SceneSpec& s, double v) { limitOf(s).frequency = v; });
        if (now.frequency > 0.0)
            b.number(
                tr("%1: stop damping ratio").arg(what), QString(), 1.0,
                QStringLiteral("limit.dampingRatio") + suffix,
                [read](const SceneSpec& s) { return read(s).dampingRatio; },
                [limitOf](SceneSpec& s, double v) { limitOf(s).dampingRatio = v; });
    }
}

// A joint's friction (engine::JointFriction), per coordinate: whether it has any, then its
// coefficients, lever, constant and viscous parts. Keys as limitFields'.
void frictionFields(FieldList& b) {
    const engine::EntityId id = b.id;
    const engine::Joint* joint = byId(b.spec.joints, id);
    auto J = [id](auto& s) { return byId(s.joints, id); };
    // Friction goes on revolute, prismatic, cylindrical and spherical joints.
    const bool ball = joint->type == engine::JointType::Spherical;
    if (!drivable(joint->type) && !ball) return;
    const std::vector<engine::JointAxis> axes = engine::jointAxes(joint->type);
    const QStringList kinds{tr("none"), tr("friction")};
    for (std::size_t k = 0; k < axes.size(); ++k) {
        const bool angle = axes[k] == engine::JointAxis::Rotation;
        const QString suffix = k == 0 ? QString() : QStringLiteral("#%1").arg(k);
        const QString what = ball ? tr("Ball") : angle ? tr("Angle") : tr("Slide");
        auto frictionOf = [J, k, n = axes.size()](SceneSpec& s) -> engine::JointFriction& {
            std::vector<engine::JointFriction>& all = J(s)->friction;
            if (all.size() < n) all.resize(n);
            return all[k];
        };
        auto read = [J, k](const SceneSpec& s) {
            const std::vector<engine::JointFriction>& all = J(s)->friction;
            return k < all.size() ? all[k] : engine::JointFriction{};
        };
        b.choice(
            tr("%1 friction").arg(what), QStringLiteral("friction") + suffix, kinds,
            [read, kinds](const SceneSpec& s) {
                return kinds[read(s).active() ? 1 : 0].toStdString();
            },
            [frictionOf, kinds, angle](SceneSpec& s, const std::string& text) {
                engine::JointFriction& f = frictionOf(s);
                if (text == kinds[1].toStdString()) {
                    // Steel on steel, lubricated, on a 1 cm pin (a slide: no lever).
                    if (!f.active()) f = {.coefficient = 0.1, .radius = angle ? 0.01 : 0.0};
                } else {
                    f = {};
                }
            });
        if (!read(b.spec).active()) continue;
        auto number = [&](QString label, QString unit, QString key,
                          double engine::JointFriction::*member) {
            b.number(
                tr("%1: %2").arg(what, label), std::move(unit), 1.0,
                QStringLiteral("friction.") + key + suffix,
                [read, member](const SceneSpec& s) { return read(s).*member; },
                [frictionOf, member](SceneSpec& s, double v) { frictionOf(s).*member = v; });
        };
        number(tr("friction coefficient"), QString(), QStringLiteral("coefficient"),
               &engine::JointFriction::coefficient);
        b.number(
            tr("%1: static coefficient").arg(what), QString(), 1.0,
            QStringLiteral("friction.staticCoefficient") + suffix,
            [read](const SceneSpec& s) { return read(s).breakaway(); },
            [frictionOf](SceneSpec& s, double v) { frictionOf(s).staticCoefficient = v; });
        if (angle)
            number(tr("pin radius"), QStringLiteral("m"), QStringLiteral("radius"),
                   &engine::JointFriction::radius);
        else
            number(tr("bearing length"), QStringLiteral("m"), QStringLiteral("length"),
                   &engine::JointFriction::length);
        number(tr("friction preload"), angle ? QStringLiteral("N·m") : QStringLiteral("N"),
               QStringLiteral("preload"), &engine::JointFriction::preload);
        number(tr("viscous friction"),
               angle ? QStringLiteral("N·m·s/rad") : QStringLiteral("N·s/m"),
               QStringLiteral("viscous"), &engine::JointFriction::viscous);
    }
}

void forceFields(FieldList& b) {
    const SceneSpec& spec = b.spec;
    const engine::EntityId id = b.id;
    const engine::ForceSpec* force = byId(spec.forces, id);
    auto F = [id](auto& s) { return byId(s.forces, id); };
    b.title = tr("Force (%1)").arg(toQString(engine::forceTypeName(force->type)));
    b.name();
    QStringList types;
    for (int k = 0; k <= static_cast<int>(engine::ForceType::Cable); ++k)
        types << toQString(engine::forceTypeName(static_cast<engine::ForceType>(k)));
    b.choice(
        tr("Type"), QStringLiteral("type"), types,
        [F](const SceneSpec& s) { return std::string(engine::forceTypeName(F(s)->type)); },
        [F](SceneSpec& s, const std::string& text) {
            engine::ForceSpec& f = *F(s);
            const engine::ForceType to = engine::forceTypeFromName(text).value_or(f.type);
            // (a servo's gains change units between a PD servo and computed torque)
            engine::convertServoGains(s, f, f.type, to);
            f.type = to;
        });
    auto scalar = [&](QString label, QString unit, double scale, QString key,
                      double engine::ForceSpec::*member) {
        b.number(
            std::move(label), std::move(unit), scale, std::move(key),
            [F, member](const SceneSpec& s) { return F(s)->*member; },
            [F, member](SceneSpec& s, double v) { F(s)->*member = v; });
    };
    auto vector = [&](QString label, QString unit, QString key,
                      engine::Vec3 engine::ForceSpec::*member) {
        b.vector(
            std::move(label), std::move(unit), 1.0, std::move(key),
            [F, member](const SceneSpec& s) { return toNumbers(F(s)->*member); },
            [F, member](SceneSpec& s, const Numbers& n) { F(s)->*member = toVec(n); });
    };
    // A spring's stiffness or damping: a constant (its number), or a table of the scene giving
    // the force over the deflection or the rate. The choice shows when the scene has tables (or
    // the law is one); the number when the law is the constant.
    auto law = [&](QString label, QString unit, QString key, double engine::ForceSpec::*constant,
                   std::string engine::ForceSpec::*table, QString over) {
        const std::string& named = force->*table;
        if (!spec.tables.empty() || !named.empty()) {
            QStringList choices{tr("constant")};
            for (const engine::TableSpec& t : spec.tables)
                choices << tr("table %1").arg(toQString(t.name));
            b.choice(
                tr("%1 law").arg(label), key + QStringLiteral(".table"), choices,
                [F, table](const SceneSpec& s) {
                    const std::string& n = F(s)->*table;
                    return n.empty() ? tr("constant").toStdString()
                                     : tr("table %1").arg(toQString(n)).toStdString();
                },
                [F, table](SceneSpec& s, const std::string& text) {
                    const QString prefix = tr("table ");
                    const QString t = toQString(text);
                    F(s)->*table =
                        t.startsWith(prefix) ? t.mid(prefix.size()).toStdString() : std::string();
                });
        }
        if (named.empty()) {
            scalar(std::move(label), std::move(unit), 1.0, std::move(key), constant);
            return;
        }
        const engine::TableSpec* t = spec.findTable(named);
        b.info(label, t ? tr("table '%1': %2 over %3, %4 points")
                              .arg(toQString(named),
                                   force->type == engine::ForceType::RotationalSpringDamper
                                       ? tr("torque (N·m)")
                                       : tr("force (N)"),
                                   over, QString::number(t->x.size()))
                        : tr("no table '%1' in the scene").arg(toQString(named)));
    };
    // A spring's or a cable's law along its length (`over`: what its stiffness table is of),
    // its free length and its preload.
    auto lengthLaw = [&](QString over) {
        law(tr("Stiffness"), QStringLiteral("N/m"), QStringLiteral("stiffness"),
            &engine::ForceSpec::stiffness, &engine::ForceSpec::stiffnessTable, std::move(over));
        law(tr("Damping"), QStringLiteral("N·s/m"), QStringLiteral("damping"),
            &engine::ForceSpec::damping, &engine::ForceSpec::dampingTable, tr("rate (m/s)"));
        scalar(tr("Free length"), QStringLiteral("m"), 1.0, QStringLiteral("freeLength"),
               &engine::ForceSpec::freeLength);
        scalar(tr("Preload"), QStringLiteral("N"), 1.0, QStringLiteral("preload"),
               &engine::ForceSpec::preload);
    };
    // A force's expressions may read the mechanism's state: its measures and variables.
    auto expression = [&](QString label, QString key, int component, QString unit) {
        b.expression(
             std::move(label), std::move(key), std::move(unit),
             [F, component](const SceneSpec& s) { return F(s)->components[component]; },
             [F, component](SceneSpec& s, const std::string& text) {
                 F(s)->components[component] = text;
             })
            .ofState = true;
    };
    switch (force->type) {
    case engine::ForceType::PointForce:
    case engine::ForceType::PointTorque: {
        const QString unit = force->type == engine::ForceType::PointForce ? QStringLiteral("N")
                                                                          : QStringLiteral("N·m");
        b.markerChoice(tr("Marker"), QStringLiteral("marker"), &engine::ForceSpec::markerI, F);
        expression(tr("X"), QStringLiteral("components"), 0, unit);
        expression(tr("Y"), QStringLiteral("components.y"), 1, unit);
        expression(tr("Z"), QStringLiteral("components.z"), 2, unit);
        b.choice(
            tr("Axes"), QStringLiteral("frame"), b.words(QStringLiteral("frame")),
            [F](const SceneSpec& s) {
                return std::string(F(s)->inMarkerFrame ? "marker" : "world");
            },
            [F](SceneSpec& s, const std::string& text) { F(s)->inMarkerFrame = text == "marker"; });
        break;
    }
    case engine::ForceType::SpringDamper:
        b.markerChoice(tr("Marker I"), QStringLiteral("markerI"), &engine::ForceSpec::markerI, F);
        b.markerChoice(tr("Marker J"), QStringLiteral("markerJ"), &engine::ForceSpec::markerJ, F);
        lengthLaw(tr("deflection l − l0 (m)"));
        break;
    case engine::ForceType::Cable: {
        // Its path, one marker a line from I to J; then its law, as a spring's.
        QStringList markers;
        for (const engine::Part& part : spec.parts)
            for (const engine::Marker& m : part.markers)
                markers << toQString(part.name + "." + m.name);
        PropertyField f;
        f.kind = PropertyField::Kind::Points;
        f.label = tr("Points");
        f.key = QStringLiteral("points");
        f.help =
            tr("One point a line, from I to J: part.marker, or a pulley round which the "
               "cable wraps: part.marker r=0.05 (its radius in m, about the marker's z "
               "axis; ccw by default, or cw), and joint=name for a pulley that turns on "
               "that joint with the cable (no slip), or mu=0.3 for belt friction on one "
               "that does not turn (the capstan)");
        f.getText = [F](const SceneSpec& s) {
            std::string text = F(s)->markerI.text();
            for (const engine::CableVia& v : F(s)->via) text += "\n" + cablePointText(v);
            return text + "\n" + F(s)->markerJ.text();
        };
        f.setText = [F](SceneSpec& s, const std::string& text) {
            std::vector<engine::CableVia> points;
            for (const QString& line : toQString(text).split(QLatin1Char('\n'))) {
                QString error;
                if (std::optional<engine::CableVia> v = parseCablePoint(line, error))
                    points.push_back(*v);
            }
            if (points.size() < 2) return;
            F(s)->markerI = points.front().marker;
            F(s)->markerJ = points.back().marker;
            F(s)->via.assign(points.begin() + 1, points.end() - 1);
        };
        f.checkText = [markers](const std::string& text) {
            int count = 0, line = 0;
            const QStringList lines = toQString(text).split(QLatin1Char('\n'));
            for (const QString& t : lines) {
                ++line;
                if (t.trimmed().isEmpty()) continue;
                ++count;
                QString error;
                const std::optional<engine::CableVia> v = parseCablePoint(t, error);
                if (!v) return tr("line %1: %2").arg(line).arg(error);
                if (!markers.contains(toQString(v->marker.text())))
                    return tr("line %1: no marker '%2' (write part.marker)")
                        .arg(line)
                        .arg(toQString(v->marker.text()));
            }
            if (count < 2) return tr("a cable needs its two ends: one marker a line, part.marker");
            int seen = 0;
            for (const QString& t : lines) {
                if (t.trimmed().isEmpty()) continue;
                QString error;
                const bool end = seen == 0 || seen == count - 1;
                ++seen;
                if (end && parseCablePoint(t, error)->pulley)
                    return tr("'%1': a cable's ends are points where it is tied, not pulleys")
                        .arg(t.trimmed());
            }
            return QString();
        };
        b.add(std::move(f));
        b.toggle(
            tr("Slack (a rope)"), QStringLiteral("slack"),
            [F](const SceneSpec& s) { return F(s)->slack; },
            [F](SceneSpec& s, bool on) { F(s)->slack = on; });
        // A rope that cannot stretch has no law of its own: turned on, its stiffness, damping
        // and preload go (in the same undoable edit), and it is a rope.
        b.toggle(
            tr("Inextensible"), QStringLiteral("inextensible"),
            [F](const SceneSpec& s) { return F(s)->inextensible; },
            [F](SceneSpec& s, bool on) {
                engine::ForceSpec& f = *F(s);
                f.inextensible = on;
                if (!on) return;
                f.slack = true;
                f.stiffness = f.damping = f.preload = 0.0;
                f.stiffnessTable.clear();
                f.dampingTable.clear();
            });
        lengthLaw(tr("stretch l − l0 (m)"));
        break;
    }
    case engine::ForceType::RotationalSpringDamper:
        b.jointChoice(tr("Joint"), QStringLiteral("joint"), F, &engine::ForceSpec::joint);
        law(tr("Stiffness"), QStringLiteral("N·m/rad"), QStringLiteral("stiffness"),
            &engine::ForceSpec::stiffness, &engine::ForceSpec::stiffnessTable,
            tr("twist θ − θ0 (rad)"));
        law(tr("Damping"), QStringLiteral("N·m·s/rad"), QStringLiteral("damping"),
            &engine::ForceSpec::damping, &engine::ForceSpec::dampingTable, tr("rate (rad/s)"));
        scalar(tr("Free angle"), QStringLiteral("°"), kDeg, QStringLiteral("freeAngle"),
               &engine::ForceSpec::freeLength);
        scalar(tr("Preload"), QStringLiteral("N·m"), 1.0, QStringLiteral("preload"),
               &engine::ForceSpec::preload);
        break;
    case engine::ForceType::Bushing: {
        b.markerChoice(tr("Marker I"), QStringLiteral("markerI"), &engine::ForceSpec::markerI, F);
        b.markerChoice(tr("Marker J"), QStringLiteral("markerJ"), &engine::ForceSpec::markerJ, F);
        // Per vector its three constants and, when the scene has tables, which axes take a
        // table's law instead: three names ("-" for the constant), "-, rubber, -".
        auto laws = [&](QString label, QString unit, QString key,
                        engine::Vec3 engine::ForceSpec::*constants,
                        std::array<std::string, 3> engine::ForceSpec::*tables) {
            vector(label, std::move(unit), key, constants);
            const auto& named = force->*tables;
            const bool any = std::any_of(named.begin(), named.end(),
                                         [](const std::string& n) { return !n.empty(); });
            if (spec.tables.empty() && !any) return;
            PropertyField& f = b.text(
                tr("%1 tables").arg(label), key + QStringLiteral(".table"),
                [F, tables](const SceneSpec& s) {
                    std::string text;
                    for (const std::string& n : F(s)->*tables)
                        text += (text.empty() ? "" : ", ") + (n.empty() ? std::string("-") : n);
                    return text;
                },
                [F, tables](SceneSpec& s, const std::string& text) {
                    const QStringList names =
                        toQString(text).split(QLatin1Char(','), Qt::KeepEmptyParts);
                    for (int a = 0; a < 3; ++a) {
                        const QString n = names.value(a).trimmed();
                        (F(s)->*tables)[static_cast<std::size_t>(a)] =
                            n == QLatin1String("-") ? std::string() : n.toStdString();
                    }
                });
            QStringList known;
            for (const engine::TableSpec& t : spec.tables) known << toQString(t.name);
            f.checkText = [known](const std::string& text) {
                const QStringList names = toQString(text).split(QLatin1Char(','));
                if (names.size() != 3)
                    return tr("three names, one per axis x, y, z ('-' for the constant)");
                for (const QString& name : names) {
                    const QString n = name.trimmed();
                    if (n != QLatin1String("-") && !n.isEmpty() && !known.contains(n))
                        return tr("no table '%1' in the scene").arg(n);
                }
                return QString();
            };
        };
        laws(tr("Translational stiffness"), QStringLiteral("N/m"),
             QStringLiteral("translationalStiffness"), &engine::ForceSpec::translationalStiffness,
             &engine::ForceSpec::translationalStiffnessTables);
        laws(tr("Translational damping"), QStringLiteral("N·s/m"),
             QStringLiteral("translationalDamping"), &engine::ForceSpec::translationalDamping,
             &engine::ForceSpec::translationalDampingTables);
        laws(tr("Rotational stiffness"), QStringLiteral("N·m/rad"),
             QStringLiteral("rotationalStiffness"), &engine::ForceSpec::rotationalStiffness,
             &engine::ForceSpec::rotationalStiffnessTables);
        laws(tr("Rotational damping"), QStringLiteral("N·m·s/rad"),
             QStringLiteral("rotationalDamping"), &engine::ForceSpec::rotationalDamping,
             &engine::ForceSpec::rotationalDampingTables);
        break;
    }
    case engine::ForceType::JointController:
    case engine::ForceType::ComputedTorque: {
        const bool angle = force->axis == engine::JointAxis::Rotation;
        const bool computed = force->type == engine::ForceType::ComputedTorque;
        b.jointChoice(tr("Joint"), QStringLiteral("joint"), F, &engine::ForceSpec::joint);
        b.choice(
            tr("Axis"), QStringLiteral("axis"), b.words(QStringLiteral("axis")),
            [F](const SceneSpec& s) { return axisOf(F(s)->axis); },
            [F](SceneSpec& s, const std::string& text) { F(s)->axis = axisFrom(text); });
        expression(tr("Target"), QStringLiteral("target"), 0,
                   angle ? QStringLiteral("rad") : QStringLiteral("m"));
        // Computed torque's gains set the error's own dynamics, ë + kd ė + kp e = 0.
        scalar(tr("kp"),
               computed ? QStringLiteral("1/s²")
               : angle  ? QStringLiteral("N·m/rad")
                        : QStringLiteral("N/m"),
               1.0, QStringLiteral("kp"), &engine::ForceSpec::stiffness);
        scalar(tr("kd"),
               computed ? QStringLiteral("1/s")
               : angle  ? QStringLiteral("N·m·s/rad")
                        : QStringLiteral("N·s/m"),
               1.0, QStringLiteral("kd"), &engine::ForceSpec::damping);
        scalar(tr("Maximum effort"), angle ? QStringLiteral("N·m") : QStringLiteral("N"), 1.0,
               QStringLiteral("maxEffort"), &engine::ForceSpec::maxEffort);
        if (!computed)
            b.toggle(
                tr("Gravity compensation"), QStringLiteral("gravityCompensation"),
                [F](const SceneSpec& s) { return F(s)->gravityCompensation; },
                [F](SceneSpec& s, bool on) { F(s)->gravityCompensation = on; });
        break;
    }
    case engine::ForceType::LineForce:
        b.markerChoice(tr("Marker I"), QStringLiteral("markerI"), &engine::ForceSpec::markerI, F);
        b.markerChoice(tr("Marker J"), QStringLiteral("markerJ"), &engine::ForceSpec::markerJ, F);
        expression(tr("Magnitude"), QStringLiteral("magnitude"), 0, QStringLiteral("N"));
        break;
    case engine::ForceType::JointForce: {
        // The joints with a turn or a slide to act on; another joint chosen takes the force to
        // its coordinate when the one acted on is not there (a revolute's angle, a slider's).
        QStringList joints;
        for (const engine::Joint& j : spec.joints)
            if (drivable(j.type)) joints << toQString(j.name);
        b.choice(
            tr("Joint"), QStringLiteral("joint"), joints,
            [F](const SceneSpec& s) { return F(s)->joint; },
            [F](SceneSpec& s, const std::string& text) {
                engine::ForceSpec& f = *F(s);
                f.joint = text;
                if (const engine::Joint* j = s.findJoint(text)) {
                    const std::vector<engine::JointAxis> axes = engine::jointAxes(j->type);
                    if (!axes.empty() && std::find(axes.begin(), axes.end(), f.axis) == axes.end())
                        f.axis = axes.front();
                }
            });
        // Which coordinate, only where the joint has both (a cylindrical joint's angle or slide).
        const engine::Joint* joint = spec.findJoint(force->joint);
        const std::vector<engine::JointAxis> axes =
            joint ? engine::jointAxes(joint->type) : std::vector<engine::JointAxis>{};
        const bool both =
            std::find(axes.begin(), axes.end(), engine::JointAxis::Rotation) != axes.end() &&
            std::find(axes.begin(), axes.end(), engine::JointAxis::Translation) != axes.end();
        if (both || !joint)
            b.choice(
                tr("Axis"), QStringLiteral("axis"), b.words(QStringLiteral("axis")),
                [F](const SceneSpec& s) { return axisOf(F(s)->axis); },
                [F](SceneSpec& s, const std::string& text) { F(s)->axis = axisFrom(text); });
        // A torque on an angle, a force on a slide.
        expression(tr("Magnitude"), QStringLiteral("magnitude"), 0,
                   force->axis == engine::JointAxis::Rotation ? QStringLiteral("N·m")
                                                              : QStringLiteral("N"));
        break;
    }
    }
}

// A variable of the scene (by its index: variables have no id): its name, which the
// expressions that read it follow, and its expression of time and the state.
void variableFields(FieldList& b, int index) {
    const auto at = static_cast<std::size_t>(index);
    auto V = [at](auto& s) { return at < s.variables.size() ? &s.variables[at] : nullptr; };
    b.title = tr("Variable");
    b.text(
        tr("Name"), QStringLiteral("name"),
        [V](const SceneSpec& s) { return V(s) ? V(s)->name : std::string(); },
        [index](SceneSpec& s, const std::string& name) { renameVariable(s, index, name); });
    // An expression of the state, or held: a number that sensors set as the run goes.
    const engine::VariableSpec* now = V(b.spec);
    if (now && now->initial) {
        b.number(
            tr("Initial value"), QString(), 1.0, QStringLiteral("initial"),
            [V](const SceneSpec& s) { return V(s) && V(s)->initial ? *V(s)->initial : 0.0; },
            [V](SceneSpec& s, double v) {
                if (V(s)) V(s)->initial = v;
            });
        b.info(tr("Held"), tr("kept by the run; sensors that 'set' it change it"));
        b.button(tr("Make it an expression"), [V](SceneSpec& s) {
            if (V(s)) {
                V(s)->expression = engine::numberText(V(s)->initial.value_or(0.0), 17);
                V(s)->initial.reset();
            }
        });
        return;
    }
    b.expression(
         tr("Expression"), QStringLiteral("expression"), QString(),
         [V](const SceneSpec& s) { return V(s) ? V(s)->expression : std::string(); },
         [V](SceneSpec& s, const std::string& text) {
             if (V(s)) V(s)->expression = text;
         })
        .ofState = true;
    b.button(tr("Make it held (set by sensors)"), [V](SceneSpec& s) {
        if (V(s)) V(s)->initial = 0.0;
    });
}

// A table's points one a line as "x, y", to the last digit that tells each number apart.
std::string tablePointsText(const engine::TableSpec& t) {
    QStringList lines;
    for (std::size_t k = 0; k < std::min(t.x.size(), t.y.size()); ++k)
        lines << QStringLiteral("%1, %2").arg(
            QString::number(t.x[k], 'g', QLocale::FloatingPointShortest),
            QString::number(t.y[k], 'g', QLocale::FloatingPointShortest));
    return lines.join(QLatin1Char('\n')).toStdString();
}

// Points typed one a line as x, y (commas, semicolons, spaces or tabs between them: a
// spreadsheet's two columns pasted in). False with `error` saying which line is not a point.
bool parseTablePoints(const std::string& text, std::vector<double>& x, std::vector<double>& y,
                      QString& error) {
    x.clear();
    y.clear();
    const QStringList lines = QString::fromStdString(text).split(QLatin1Char('\n'));
    static const QRegularExpression separators(QStringLiteral("[,;\\s\\[\\]]+"));
    for (qsizetype n = 0; n < lines.size(); ++n) {
        const QStringList numbers = lines[n].split(separators, Qt::SkipEmptyParts);
        if (numbers.isEmpty()) continue;
        if (numbers.size() != 2) {
            error = tr("line %1: %2 numbers; a point is two, x, y").arg(n + 1).arg(numbers.size());
            return false;
        }
        double v[2] = {0.0, 0.0};
        for (int k = 0; k < 2; ++k) {
            bool ok = false;
            v[k] = numbers[k].toDouble(&ok);
            if (!ok || !std::isfinite(v[k])) {
                error = tr("line %1: '%2' is not a number").arg(n + 1).arg(numbers[k]);
                return false;
            }
        }
        x.push_back(v[0]);
        y.push_back(v[1]);
    }
    if (x.size() < 2) {
        error = tr("%1 point; a table needs at least 2, one a line: x, y").arg(x.size());
        return false;
    }
    for (std::size_t k = 1; k < x.size(); ++k)
        if (!(x[k] > x[k - 1])) {
            error = tr("point %1: x = %2 after %3; each x above the one before")
                        .arg(k + 1)
                        .arg(QString::number(x[k], 'g', 10), QString::number(x[k - 1], 'g', 10));
            return false;
        }
    return true;
}

// A table of the scene (by its index: tables have no id): its name, which the force laws and
// expressions that read it follow, its interpolation, its points (typed, pasted or imported from
// a CSV file), what uses it, and its curve drawn over its points and a little beyond.
void tableFields(FieldList& b, int index, const FieldOptions& o) {
    const auto at = static_cast<std::size_t>(index);
    auto T = [at](auto& s) { return at < s.tables.size() ? &s.tables[at] : nullptr; };
    const engine::TableSpec* now = T(b.spec);
    if (!now) return;
    b.title = tr("Table");
    b.text(
        tr("Name"), QStringLiteral("name"),
        [T](const SceneSpec& s) { return T(s) ? T(s)->name : std::string(); },
        [index](SceneSpec& s, const std::string& name) { renameTable(s, index, name); });
    b.choice(
        tr("Interpolation"), QStringLiteral("interpolation"),
        b.words(QStringLiteral("interpolation")),
        [T](const SceneSpec& s) {
            return T(s) ? std::string(engine::tableInterpolationName(T(s)->interpolation))
                        : std::string();
        },
        [T](SceneSpec& s, const std::string& text) {
            if (T(s))
                T(s)->interpolation =
                    engine::tableInterpolationFromName(text).value_or(T(s)->interpolation);
        });
    PropertyField f;
    f.kind = PropertyField::Kind::Points;
    f.label = tr("Points (x, y)");
    f.key = QStringLiteral("x");
    f.getText = [T](const SceneSpec& s) { return T(s) ? tablePointsText(*T(s)) : std::string(); };
    f.setText = [T](SceneSpec& s, const std::string& text) {
        QString error;
        if (T(s)) parseTablePoints(text, T(s)->x, T(s)->y, error);
    };
    f.checkText = [](const std::string& text) {
        std::vector<double> x, y;
        QString error;
        parseTablePoints(text, x, y, error);
        return error;
    };
    b.add(std::move(f));
    b.button(tr("Import CSV…"), [T, parent = o.dialogParent](SceneSpec& s) {
        if (!T(s)) return;
        const QString file =
            QFileDialog::getOpenFileName(parent, tr("Import Table"), QString(),
                                         tr("Tables (*.csv *.txt *.tsv *.dat);;All files (*)"));
        if (file.isEmpty()) return;
        QFile in(file);
        engine::io::TableColumns columns;
        std::string error;
        if (!in.open(QIODevice::ReadOnly))
            error = in.errorString().toStdString();
        else if (in.size() > (8 << 20))
            error = "the file is larger than 8 MB: not a table";
        else
            engine::io::readTableColumns(in.readAll().toStdString(), columns, error);
        if (!error.empty()) {
            QMessageBox::warning(
                parent, tr("Import Table"),
                tr("%1 holds no table: %2").arg(QFileInfo(file).fileName(), toQString(error)));
            return;
        }
        T(s)->x = columns.x;
        T(s)->y = columns.y;
    });
    const std::vector<std::string> users = tableUsers(b.spec, now->name);
    QStringList used;
    for (const std::string& u : users) used << toQString(u);
    b.info(tr("Used by"), used.isEmpty() ? tr("nothing yet: a spring's law, or name(x) in any "
                                              "expression")
                                         : used.join(QStringLiteral("; ")));
    // Its curve, over its points and a tenth of their span beyond each end (where it goes on
    // straight); the text may be changed to look at another expression of x (not kept).
    if (now->x.size() >= 2 && now->x.back() > now->x.front()) {
        const double span = now->x.back() - now->x.front();
        PropertyField& preview = b.expression(
            tr("Curve"), QString(), QString(),
            [name = now->name](const SceneSpec&) { return name + "(x)"; },
            [](SceneSpec&, const std::string&) {});
        preview.variable = QStringLiteral("x");
        preview.plotted = true;
        preview.rangeStart = now->x.front() - 0.1 * span;
        preview.rangeEnd = now->x.back() + 0.1 * span;
    }
}

// What a sensor of `action` can act on in `spec`: the held variables (set), else the forces
// and motions; `current` first when it is none of them (a name being fixed).
QStringList sensorTargets(const SceneSpec& spec, engine::SensorAction action,
                          const std::string& current) {
    QStringList names;
    if (action == engine::SensorAction::Set) {
        for (const engine::VariableSpec& v : spec.variables)
            if (v.initial) names << toQString(v.name);
    } else {
        for (const engine::ForceSpec& f : spec.forces) names << toQString(f.name);
        for (const engine::MotionSpec& m : spec.motions) names << toQString(m.name);
    }
    if (!current.empty() && !names.contains(toQString(current))) names.prepend(toQString(current));
    return names;
}

// A sensor of the scene (by its index): its name, the expression of time and the state it
// watches (in its own unit), the level, which crossings count and what one does.
void sensorFields(FieldList& b, int index) {
    const auto at = static_cast<std::size_t>(index);
    auto S = [at](auto& s) { return at < s.sensors.size() ? &s.sensors[at] : nullptr; };
    b.title = tr("Sensor");
    b.text(
        tr("Name"), QStringLiteral("name"),
        [S](const SceneSpec& s) { return S(s) ? S(s)->name : std::string(); },
        [S](SceneSpec& s, const std::string& name) {
            if (S(s)) S(s)->name = name;
        });
    b.expression(
         tr("Expression"), QStringLiteral("expression"), QString(),
         [S](const SceneSpec& s) { return S(s) ? S(s)->expression : std::string(); },
         [S](SceneSpec& s, const std::string& text) {
             if (S(s)) S(s)->expression = text;
         })
        .ofState = true;
    // The level is in the expression's unit, whatever that is.
    b.number(
        tr("Value"), QString(), 1.0, QStringLiteral("value"),
        [S](const SceneSpec& s) { return S(s) ? S(s)->value : 0.0; },
        [S](SceneSpec& s, double v) {
            if (S(s)) S(s)->value = v;
        });
    b.choice(
        tr("Direction"), QStringLiteral("direction"), b.words(QStringLiteral("direction")),
        [S](const SceneSpec& s) {
            return S(s) ? sensorDirectionName(S(s)->direction) : std::string();
        },
        [S](SceneSpec& s, const std::string& text) {
            if (S(s)) S(s)->direction = sensorDirectionFromName(text).value_or(S(s)->direction);
        });
    b.choice(
        tr("Action"), QStringLiteral("action"), b.words(QStringLiteral("action")),
        [S](const SceneSpec& s) {
            return S(s) ? ui::sensorActionName(S(s)->action) : std::string();
        },
        [S](SceneSpec& s, const std::string& text) {
            if (!S(s)) return;
            S(s)->action = sensorActionFromName(text).value_or(S(s)->action);
            // A target of the kind the action needs, the first there is (the user picks).
            S(s)->target = sensorTargets(s, S(s)->action, S(s)->target).value(0).toStdString();
            if (S(s)->action != engine::SensorAction::Set) S(s)->to = "0";
        });
    const engine::SensorSpec* now = S(b.spec);
    if (!now || now->action == engine::SensorAction::Stop ||
        now->action == engine::SensorAction::Mark)
        return;
    b.choice(
        now->action == engine::SensorAction::Set ? tr("Variable") : tr("Force or motion"),
        QStringLiteral("target"), sensorTargets(b.spec, now->action, now->target),
        [S](const SceneSpec& s) { return S(s) ? S(s)->target : std::string(); },
        [S](SceneSpec& s, const std::string& text) {
            if (S(s)) S(s)->target = text;
        });
    if (now->action != engine::SensorAction::Set) return;
    b.expression(
         tr("Set to"), QStringLiteral("to"), QString(),
         [S](const SceneSpec& s) { return S(s) ? S(s)->to : std::string(); },
         [S](SceneSpec& s, const std::string& text) {
             if (S(s)) S(s)->to = text;
         })
        .ofState = true;
}

void contactPairFields(FieldList& b) {
    const SceneSpec& spec = b.spec;
    const engine::EntityId id = b.id;
    auto C = [id](auto& s) { return byId(s.contact.pairs, id); };
    b.title = tr("Contact pair");
    b.name();
    QStringList parts;
    for (const engine::Part& p : spec.parts) parts << toQString(p.name);
    b.choice(
        tr("Part A"), QStringLiteral("partA"), parts,
        [C](const SceneSpec& s) { return C(s)->partA; },
        [C](SceneSpec& s, const std::string& text) { C(s)->partA = text; });
    b.choice(
        tr("Part B"), QStringLiteral("partB"), parts,
        [C](const SceneSpec& s) { return C(s)->partB; },
        [C](SceneSpec& s, const std::string& text) { C(s)->partB = text; });
    b.toggle(
        tr("Touch"), QStringLiteral("enabled"), [C](const SceneSpec& s) { return C(s)->enabled; },
        [C](SceneSpec& s, bool on) { C(s)->enabled = on; });
    // Optional overrides: blank keeps the parts' combined value.
    auto optional = [&](QString label, QString key,
                        std::optional<double> engine::ContactPairSpec::*member) {
        PropertyField& f = b.text(
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
            return ok ? QString() : tr("'%1' is not a number").arg(QString::fromStdString(text));
        };
    };
    optional(tr("Friction"), QStringLiteral("friction"), &engine::ContactPairSpec::friction);
    optional(tr("Restitution"), QStringLiteral("restitution"),
             &engine::ContactPairSpec::restitution);
}

void motionFields(FieldList& b) {
    const SceneSpec& spec = b.spec;
    const engine::EntityId id = b.id;
    const engine::MotionSpec* motion = byId(spec.motions, id);
    auto Mo = [id](auto& s) { return byId(s.motions, id); };
    b.title = tr("Motion");
    b.name();
    QStringList joints;
    for (const engine::Joint& j : spec.joints)
        if (j.type == engine::JointType::Revolute || j.type == engine::JointType::Prismatic ||
            j.type == engine::JointType::Cylindrical || j.type == engine::JointType::PointOnCurve)
            joints << toQString(j.name);
    b.choice(
        tr("Joint"), QStringLiteral("joint"), joints,
        [Mo](const SceneSpec& s) { return Mo(s)->joint; },
        [Mo](SceneSpec& s, const std::string& text) { Mo(s)->joint = text; });
    b.choice(
        tr("Axis"), QStringLiteral("axis"), b.words(QStringLiteral("axis")),
        [Mo](const SceneSpec& s) { return axisOf(Mo(s)->axis); },
        [Mo](SceneSpec& s, const std::string& text) { Mo(s)->axis = axisFrom(text); });
    const QStringList levels = b.words(QStringLiteral("level"));
    b.choice(
        tr("Level"), QStringLiteral("level"), levels,
        [Mo, levels](const SceneSpec& s) {
            return levels[static_cast<int>(Mo(s)->level)].toStdString();
        },
        [Mo, levels](SceneSpec& s, const std::string& text) {
            Mo(s)->level = static_cast<engine::MotionLevel>(
                std::max<qsizetype>(0, levels.indexOf(QString::fromStdString(text))));
        });
    QString unit =
        motion->axis == engine::JointAxis::Rotation ? QStringLiteral("rad") : QStringLiteral("m");
    if (motion->level == engine::MotionLevel::Velocity) unit += QStringLiteral("/s");
    if (motion->level == engine::MotionLevel::Acceleration) unit += QStringLiteral("/s²");
    b.expression(
        tr("Expression"), QStringLiteral("expression"), unit,
        [Mo](const SceneSpec& s) { return Mo(s)->expression; },
        [Mo](SceneSpec& s, const std::string& text) { Mo(s)->expression = text; });
}

// The joints of `spec` that have the coordinates `needed` (none: any coordinate).
QStringList jointsWith(const SceneSpec& spec, std::initializer_list<engine::JointAxis> needed) {
    QStringList out;
    for (const engine::Joint& j : spec.joints) {
        if (!drivable(j.type) && j.type != engine::JointType::PointOnCurve) continue;
        const std::vector<engine::JointAxis> axes = engine::jointAxes(j.type);
        if (!axes.empty() && std::all_of(needed.begin(), needed.end(), [&](engine::JointAxis a) {
                return std::find(axes.begin(), axes.end(), a) != axes.end();
            }))
            out << toQString(j.name);
    }
    return out;
}

// A coupler made another type: it keeps its joints (I and J, or its terms' first two, in
// order) and takes the sizes a new coupler of that type gets from the parts' geometry
// (engine::addCoupler: a ratio from the gears' cylinders, a pinion's radius, a 5 mm pitch, a
// linear coupler qI − qJ). Joints that do not fit the type stay named: the document's check
// says why beside the field.
void retype(SceneSpec& s, engine::CouplerSpec& c, engine::CouplerType to) {
    using engine::CouplerType;
    if (c.type == to) return;
    std::vector<std::string> joints;
    auto keep = [&](const std::string& name) {
        if (!name.empty() && std::find(joints.begin(), joints.end(), name) == joints.end())
            joints.push_back(name);
    };
    if (c.type == CouplerType::Linear)
        for (const engine::CouplerTerm& t : c.terms) keep(t.joint);
    keep(c.jointI);
    keep(c.jointJ);
    joints.resize(std::max<std::size_t>(joints.size(), 2));
    // A rack's pinion is the joint that turns: the picks swap when the first only slides.
    auto has = [&](const std::string& name, engine::JointAxis axis) {
        const engine::Joint* j = s.findJoint(name);
        if (!j) return false;
        const std::vector<engine::JointAxis> axes = engine::jointAxes(j->type);
        return std::find(axes.begin(), axes.end(), axis) != axes.end();
    };
    if (to == CouplerType::RackPinion && !has(joints[0], engine::JointAxis::Rotation) &&
        has(joints[1], engine::JointAxis::Rotation))
        std::swap(joints[0], joints[1]);
    c.type = to;
    c.jointI = to == CouplerType::Linear ? "" : joints[0];
    c.jointJ = to == CouplerType::Gear || to == CouplerType::RackPinion ? joints[1] : "";
    c.terms.clear();
    c.offset = std::numeric_limits<double>::quiet_NaN();
    if (!(c.ratio > 0.0)) c.ratio = 1.0;
    if (!(c.radius > 0.0)) c.radius = 0.05;
    if (c.pitch == 0.0) c.pitch = 0.005;
    if (to == CouplerType::Linear)
        for (std::size_t k = 0; k < 2; ++k)
            if (const engine::Joint* j = s.findJoint(joints[k]);
                j && !engine::jointAxes(j->type).empty())
                c.terms.push_back({joints[k], engine::jointAxes(j->type).front(), k ? -1.0 : 1.0});
    // The sizes from the geometry, where the joints fit.
    const engine::Joint* I = s.findJoint(joints[0]);
    const engine::Joint* J = s.findJoint(joints[1]);
    SceneSpec scratch = s;
    const engine::EntityId made = engine::addCoupler(scratch, to, I ? I->id : engine::kNoEntity,
                                                     J ? J->id : engine::kNoEntity);
    if (made == engine::kNoEntity) return;
    const engine::CouplerSpec& sized = scratch.couplers.back();
    c.ratio = sized.ratio;
    c.radius = sized.radius;
    if (to == CouplerType::Screw) c.pitch = sized.pitch;
    if (to == CouplerType::Linear) c.terms = sized.terms;
}

void couplerFields(FieldList& b) {
    using engine::CouplerType;
    using engine::JointAxis;
    const SceneSpec& spec = b.spec;
    const engine::EntityId id = b.id;
    const engine::CouplerSpec* coupler = byId(spec.couplers, id);
    auto C = [id](auto& s) { return byId(s.couplers, id); };
    const QString kinds[] = {tr("gear pair"), tr("rack and pinion"), tr("screw"), tr("linear")};
    b.title = tr("Coupler (%1)").arg(kinds[static_cast<int>(coupler->type)]);
    b.name();
    b.choice(
        tr("Type"), QStringLiteral("type"), b.words(QStringLiteral("type")),
        [C](const SceneSpec& s) { return std::string(engine::couplerTypeName(C(s)->type)); },
        [C](SceneSpec& s, const std::string& text) {
            if (const auto type = engine::couplerTypeFromName(text)) retype(s, *C(s), *type);
        });
    // A joint of the scene, among those with the coordinates the coupler needs.
    auto joint = [&](QString label, QString key, std::string engine::CouplerSpec::*member,
                     std::initializer_list<JointAxis> needed) {
        b.choice(
            std::move(label), std::move(key), jointsWith(spec, needed),
            [C, member](const SceneSpec& s) { return C(s)->*member; },
            [C, member](SceneSpec& s, const std::string& text) { C(s)->*member = text; });
    };
    const CouplerLayout layout = couplerLayout(spec, *coupler);
    auto mm = [](double m) { return QString::number(m * 1000.0, 'g', 4); };
    switch (coupler->type) {
    case CouplerType::Gear:
        joint(tr("Gear I's joint"), QStringLiteral("jointI"), &engine::CouplerSpec::jointI,
              {JointAxis::Rotation});
        joint(tr("Gear J's joint"), QStringLiteral("jointJ"), &engine::CouplerSpec::jointJ,
              {JointAxis::Rotation});
        b.number(
            tr("Ratio ωI / ωJ"), QString(), 1.0, QStringLiteral("ratio"),
            [C](const SceneSpec& s) { return C(s)->ratio; },
            [C](SceneSpec& s, double v) { C(s)->ratio = v; });
        b.toggle(
            tr("Internal (ring gear)"), QStringLiteral("internal"),
            [C](const SceneSpec& s) { return C(s)->internal; },
            [C](SceneSpec& s, bool on) { C(s)->internal = on; });
        // What the ratio and the axles make of the gears.
        if (layout.radiusI > 0.0)
            b.info(tr("Pitch radii"),
                   tr("%1 mm, %2 mm (axles %3 mm apart)")
                       .arg(mm(layout.radiusI), mm(layout.radiusJ), mm(layout.centreDistance)));
        else if (layout.drawn)
            b.info(tr("Pitch radii"), tr("none (axles not parallel)"));
        break;
    case CouplerType::RackPinion:
        joint(tr("Pinion's joint"), QStringLiteral("jointI"), &engine::CouplerSpec::jointI,
              {JointAxis::Rotation});
        joint(tr("Rack's joint"), QStringLiteral("jointJ"), &engine::CouplerSpec::jointJ,
              {JointAxis::Translation});
        b.number(
            tr("Pinion pitch radius"), QStringLiteral("m"), 1.0, QStringLiteral("radius"),
            [C](const SceneSpec& s) { return C(s)->radius; },
            [C](SceneSpec& s, double v) { C(s)->radius = v; });
        b.info(tr("Rack travel"),
               tr("%1 mm per turn").arg(mm(2.0 * engine::kPi * coupler->radius)));
        break;
    case CouplerType::Screw:
        joint(tr("Joint (cylindrical)"), QStringLiteral("joint"), &engine::CouplerSpec::jointI,
              {JointAxis::Rotation, JointAxis::Translation});
        b.number(
            tr("Pitch (advance per turn)"), QStringLiteral("m/turn"), 1.0, QStringLiteral("pitch"),
            [C](const SceneSpec& s) { return C(s)->pitch; },
            [C](SceneSpec& s, double v) { C(s)->pitch = v; });
        b.info(tr("Thread"),
               coupler->pitch < 0.0 ? tr("left-hand (negative pitch)") : tr("right-hand"));
        break;
    case CouplerType::Linear: {
        // Σ coefficient × coordinate = offset: each term's rows, keys "terms.<key>#k".
        const QStringList joints = jointsWith(spec, {});
        const QStringList axes = b.words(QStringLiteral("terms.axis"));
        for (std::size_t k = 0; k < coupler->terms.size(); ++k) {
            const QString suffix = k == 0 ? QString() : QStringLiteral("#%1").arg(k);
            const QString term = tr("Term %1").arg(k + 1);
            auto T = [C, k](auto& s) { return &C(s)->terms[k]; };
            b.choice(
                tr("%1: joint").arg(term), QStringLiteral("terms.joint") + suffix, joints,
                [T](const SceneSpec& s) { return T(s)->joint; },
                [T](SceneSpec& s, const std::string& text) { T(s)->joint = text; });
            b.choice(
                tr("%1: axis").arg(term), QStringLiteral("terms.axis") + suffix, axes,
                [T](const SceneSpec& s) { return axisOf(T(s)->axis); },
                [T](SceneSpec& s, const std::string& text) { T(s)->axis = axisFrom(text); });
            b.number(
                tr("%1: coefficient").arg(term),
                coupler->terms[k].axis == JointAxis::Rotation ? tr("per rad") : tr("per m"), 1.0,
                QStringLiteral("terms.coefficient") + suffix,
                [T](const SceneSpec& s) { return T(s)->coefficient; },
                [T](SceneSpec& s, double v) { T(s)->coefficient = v; });
        }
        b.button(tr("Add term"), [C](SceneSpec& s) {
            // The first revolute, prismatic or cylindrical joint coordinate not in the sum yet.
            engine::CouplerSpec& c = *C(s);
            for (const engine::Joint& j : s.joints)
                for (const JointAxis axis :
                     drivable(j.type) ? engine::jointAxes(j.type) : std::vector<JointAxis>{})
                    if (std::none_of(c.terms.begin(), c.terms.end(), [&](const auto& t) {
                            return t.joint == j.name && t.axis == axis;
                        })) {
                        c.terms.push_back({j.name, axis, 1.0});
                        return;
                    }
        });
        if (coupler->terms.size() > 2)
            b.button(tr("Remove last term"), [C](SceneSpec& s) { C(s)->terms.pop_back(); });
        // Blank: the sum as the parts are placed (the offset taken at the initial poses).
        const bool angle =
            coupler->terms.empty() || coupler->terms.front().axis == JointAxis::Rotation;
        PropertyField& f = b.text(
            tr("Offset (blank: as the parts are placed)"), QStringLiteral("offset"),
            [C](const SceneSpec& s) {
                const double v = C(s)->offset;
                return std::isnan(v) ? std::string() : number(v).toStdString();
            },
            [C](SceneSpec& s, const std::string& text) {
                C(s)->offset = text.empty() ? std::numeric_limits<double>::quiet_NaN()
                                            : QString::fromStdString(text).toDouble();
            },
            angle ? QStringLiteral("rad") : QStringLiteral("m"));
        f.checkText = [](const std::string& text) {
            bool ok = text.empty();
            if (!ok) QString::fromStdString(text).toDouble(&ok);
            return ok ? QString() : tr("'%1' is not a number").arg(QString::fromStdString(text));
        };
        break;
    }
    }
}

void sceneFields(FieldList& b) {
    b.title = tr("Scene");
    b.text(
        tr("Scene name"), QStringLiteral("name"), [](const SceneSpec& s) { return s.name; },
        [](SceneSpec& s, const std::string& text) { s.name = text; });
    b.text(
        tr("Description"), QStringLiteral("description"),
        [](const SceneSpec& s) { return s.description; },
        [](SceneSpec& s, const std::string& text) { s.description = text; });
    b.vector(
        tr("Gravity"), QStringLiteral("m/s²"), 1.0, QStringLiteral("gravity"),
        [](const SceneSpec& s) { return toNumbers(s.gravity); },
        [](SceneSpec& s, const Numbers& n) { s.gravity = toVec(n); });
    b.heading(tr("Solver"));
    b.choice(
        tr("Integrator"), QStringLiteral("settings.integrator"),
        b.words(QStringLiteral("settings.integrator")),
        [](const SceneSpec& s) {
            return std::string(engine::integratorName(s.settings.integrator));
        },
        [](SceneSpec& s, const std::string& text) {
            if (auto type = engine::integratorFromName(text)) s.settings.integrator = *type;
        });
    b.choice(
        tr("Formulation"), QStringLiteral("settings.formulation"),
        b.words(QStringLiteral("settings.formulation")),
        [](const SceneSpec& s) {
            return std::string(engine::formulationName(s.settings.formulation));
        },
        [](SceneSpec& s, const std::string& text) {
            if (auto f = engine::formulationFromName(text)) s.settings.formulation = *f;
        });
    b.toggle(
        tr("Welded parts as one body"), QStringLiteral("settings.foldWelds"),
        [](const SceneSpec& s) { return s.settings.foldWelds; },
        [](SceneSpec& s, bool on) { s.settings.foldWelds = on; });
    auto setting = [&](QString label, QString unit, QString key, auto member,
                       bool integer = false) {
        PropertyField& f = b.number(
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
    setting(tr("Largest step (0: none)"), QStringLiteral("s"), QStringLiteral("settings.maxStep"),
            &engine::SolverSettings::maxStep);
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
    b.heading(tr("Contact"));
    b.toggle(
        tr("Contact"), QStringLiteral("contact.enabled"),
        [](const SceneSpec& s) { return s.contact.enabled; },
        [](SceneSpec& s, bool on) {
            s.contact.enabled = on;
            if (on) s.settings.integrator = engine::IntegratorType::TimeStepping;
        });
    b.choice(
        tr("Contact solver"), QStringLiteral("contact.solver"),
        b.words(QStringLiteral("contact.solver")),
        [](const SceneSpec& s) { return std::string(engine::contactSolverName(s.contact.solver)); },
        [](SceneSpec& s, const std::string& text) {
            s.contact.solver = text == "lemke" ? engine::ContactSolverType::Lemke
                                               : engine::ContactSolverType::ProjectedGaussSeidel;
        });
    b.choice(
        tr("Friction model"), QStringLiteral("contact.friction"),
        b.words(QStringLiteral("contact.friction")),
        [](const SceneSpec& s) {
            return std::string(engine::frictionModelName(s.contact.friction));
        },
        [](SceneSpec& s, const std::string& text) {
            s.contact.friction =
                text == "cone" ? engine::FrictionModel::Cone : engine::FrictionModel::Box;
        });
    auto contact = [&](QString label, QString unit, QString key, auto member,
                       bool integer = false) {
        PropertyField& f = b.number(
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
    contact(tr("Push-out speed"), QStringLiteral("m/s"), QStringLiteral("contact.pushSpeed"),
            &engine::ContactSettings::pushSpeed);
    contact(tr("Contact stiffness"), QStringLiteral("N/m"), QStringLiteral("contact.stiffness"),
            &engine::ContactSettings::stiffness);
    contact(tr("Contact damping"), QStringLiteral("N·s/m"), QStringLiteral("contact.damping"),
            &engine::ContactSettings::damping);
    contact(tr("Contact frequency"), QStringLiteral("Hz"), QStringLiteral("contact.frequency"),
            &engine::ContactSettings::frequency);
    contact(tr("Contact damping ratio"), QString(), QStringLiteral("contact.dampingRatio"),
            &engine::ContactSettings::dampingRatio);
    contact(tr("Sleep after"), QStringLiteral("s"), QStringLiteral("contact.sleepTime"),
            &engine::ContactSettings::sleepTime);
    contact(tr("Sleep speed"), QStringLiteral("m/s"), QStringLiteral("contact.sleepSpeed"),
            &engine::ContactSettings::sleepSpeed);
}

// The tooltip of a row: what the format says of its key, without Markdown's backticks, as rich
// text (Qt wraps a rich tooltip's lines; a long meaning would be one line across the screen).
QString helpOf(const engine::io::format::Field& field, const QString& key) {
    auto plain = [](std::string_view text) {
        return toQString(text).remove(QLatin1Char('`')).toHtmlEscaped();
    };
    QStringList paragraphs;
    if (QString meaning = plain(field.meaning); !meaning.isEmpty()) {
        meaning[0] = meaning[0].toUpper();
        paragraphs << meaning;
    }
    QStringList facts;
    const engine::io::format::Rule rule = field.rule();
    if (rule.range.bounded())
        facts << tr("Accepts %1.").arg(toQString(rule.range.text()).toHtmlEscaped());
    if (field.fallback != "—") facts << tr("Default: %1.").arg(plain(field.fallback));
    if (!facts.isEmpty()) paragraphs << facts.join(QLatin1Char(' '));
    paragraphs << tr("Scene file key: <code>%1</code>").arg(key.toHtmlEscaped());
    return QStringLiteral("<p>") + paragraphs.join(QStringLiteral("</p><p>")) +
           QStringLiteral("</p>");
}

}  // namespace

QStringList FieldList::words(const QString& key) const {
    QStringList out;
    if (const engine::io::format::Field* f = formatField(object, variant, key.toStdString()))
        for (std::string_view word : f->rule().words) out << toQString(word);
    return out;
}

}  // namespace fields

const engine::io::format::Field* formatField(std::string_view object, std::string_view variant,
                                             std::string_view key) {
    namespace format = engine::io::format;
    // "limit.lower#1": the key of a list's item k (a joint's coordinate k), "limit.lower".
    if (const std::size_t hash = key.find('#'); hash != std::string_view::npos)
        key = key.substr(0, hash);
    // "soft.frequency": a key of the object "soft"; "inertia.products": part of "inertia";
    // "terms.coefficient": a key of an item of a list (a coupler's terms: "couplerTerm").
    if (const std::size_t dot = key.find('.'); dot != std::string_view::npos) {
        const std::string_view prefix = key.substr(0, dot);
        if (object == "coupler" && prefix == "terms") {
            object = "couplerTerm";
            variant = {};
            key = key.substr(dot + 1);
        } else if (object == "joint" && (prefix == "curve" || prefix == "follower")) {
            object = "curve";  // "follower.points": a key of the follower's curve
            variant = {};
            key = key.substr(dot + 1);
        } else if (format::findObject(prefix)) {
            object = prefix;
            variant = {};
            key = key.substr(dot + 1);
        } else {
            key = prefix;
        }
    }
    const format::ObjectFormat* o = format::findObject(object);
    if (!o) return nullptr;
    const std::vector<std::string_view> keys = o->keys(variant);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) return nullptr;
    return &o->field(key);
}

QString numberText(double v) {
    if (std::abs(v) < 1e-13) v = 0.0;
    return QString::number(v, 'g', 6);  // what is shown; values not retyped keep full precision
}

QString defineFields(const engine::SceneSpec& spec, engine::EntityId id,
                     const FieldOptions& options,
                     std::vector<std::unique_ptr<PropertyField>>& fields) {
    using namespace fields;
    FieldList b(spec, id, fields);
    const std::size_t first = fields.size();
    if (options.variable >= 0 && options.variable < static_cast<int>(spec.variables.size())) {
        b.object = "variable";
        variableFields(b, options.variable);
    } else if (options.sensor >= 0 && options.sensor < static_cast<int>(spec.sensors.size())) {
        b.object = "sensor";
        sensorFields(b, options.sensor);
    } else if (options.table >= 0 && options.table < static_cast<int>(spec.tables.size())) {
        b.object = "table";
        tableFields(b, options.table, options);
    } else if (const engine::Part* part = partOf(spec, id)) {
        b.object = "part";
        partFields(b, options);
        if (!part->ground) {  // (the ground is what the mechanism stands on)
            const auto P = [id](auto& s) { return partOf(s, id); };
            b.activeSwitch(P);
            b.analysesSwitches(P, &engine::InactiveSet::parts);
        }
    } else if (markerOf(spec, id)) {
        b.object = "marker";
        markerFields(b, options);
    } else if (byId(spec.joints, id)) {
        b.object = "joint";
        jointFields(b);
        const auto J = [id](auto& s) { return byId(s.joints, id); };
        b.activeSwitch(J);
        b.analysesSwitches(J, &engine::InactiveSet::joints);
    } else if (const engine::ForceSpec* force = byId(spec.forces, id)) {
        b.object = "force";
        b.variant = engine::forceTypeName(force->type);
        forceFields(b);
        const auto F = [id](auto& s) { return byId(s.forces, id); };
        b.activeSwitch(F);
        b.startsOnSwitch(F);
        b.analysesSwitches(F, &engine::InactiveSet::forces);
    } else if (byId(spec.contact.pairs, id)) {
        b.object = "contactPair";
        contactPairFields(b);
        b.heading(tr("Deactivation"));
        b.analysesSwitches([id](auto& s) { return byId(s.contact.pairs, id); },
                           &engine::InactiveSet::contactPairs);
    } else if (byId(spec.motions, id)) {
        b.object = "motion";
        motionFields(b);
        const auto M = [id](auto& s) { return byId(s.motions, id); };
        b.activeSwitch(M);
        b.startsOnSwitch(M);
        b.analysesSwitches(M, &engine::InactiveSet::motions);
    } else if (const engine::CouplerSpec* coupler = byId(spec.couplers, id)) {
        b.object = "coupler";
        b.variant = engine::couplerTypeName(coupler->type);
        couplerFields(b);
        const auto C = [id](auto& s) { return byId(s.couplers, id); };
        b.activeSwitch(C);
        b.analysesSwitches(C, &engine::InactiveSet::couplers);
    } else {
        sceneFields(b);
    }
    for (std::size_t k = first; k < fields.size(); ++k) {
        PropertyField& f = *fields[k];
        if (f.format) f.help = helpOf(*f.format, f.key);
    }
    return b.title;
}

}  // namespace ui
