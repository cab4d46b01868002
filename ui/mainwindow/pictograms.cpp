#include "ui/mainwindow/pictograms.h"

#include <cmath>

#include <QPainter>
#include <QPainterPath>
#include <QPixmap>
#include <QPolygonF>

namespace ui {
namespace {

// Pictograms for the toolbars, drawn in code (no image files to ship): a dark outline on a
// light fill reads on light and dark themes.
struct Ink {
    QPainter& p;
    QColor fill, ink, accent;
    // A line from a to b with a filled head at b.
    void arrow(QPointF a, QPointF b) {
        p.drawLine(a, b);
        const QPointF d = (b - a) / std::hypot(b.x() - a.x(), b.y() - a.y());
        const QPointF n(-d.y(), d.x());
        QPolygonF head;
        head << b << b - 4.5 * d + 2.5 * n << b - 4.5 * d - 2.5 * n;
        p.save();
        p.setBrush(p.pen().color());
        p.drawPolygon(head);
        p.restore();
    }
};

// The palette: select, the shapes, a marker, the ground.
bool paintParts(const QString& what, Ink& k) {
    QPainter& p = k.p;
    const QColor& fill = k.fill;
    const QColor& ink = k.ink;
    const QColor& accent = k.accent;
    auto arrow = [&k](QPointF a, QPointF b) { k.arrow(a, b); };
    if (what == QLatin1String("select")) {
        QPolygonF cursor;
        cursor << QPointF(6, 3) << QPointF(6, 19) << QPointF(10, 15) << QPointF(13, 21)
               << QPointF(15.5, 20) << QPointF(12.5, 14) << QPointF(18, 14);
        p.setBrush(Qt::white);
        p.drawPolygon(cursor);
    } else if (what == QLatin1String("box")) {
        p.drawRect(QRectF(4, 8, 12, 12));
        QPolygonF top;
        top << QPointF(4, 8) << QPointF(9, 3) << QPointF(21, 3) << QPointF(16, 8);
        p.drawPolygon(top);
        QPolygonF side;
        side << QPointF(16, 8) << QPointF(21, 3) << QPointF(21, 15) << QPointF(16, 20);
        p.setBrush(fill.darker(120));
        p.drawPolygon(side);
    } else if (what == QLatin1String("sphere")) {
        QRadialGradient g(QPointF(9, 9), 12);
        g.setColorAt(0, Qt::white);
        g.setColorAt(1, fill.darker(130));
        p.setBrush(g);
        p.drawEllipse(QRectF(3, 3, 18, 18));
    } else if (what == QLatin1String("cylinder")) {
        p.drawRect(QRectF(5, 6, 14, 13));
        p.drawEllipse(QRectF(5, 16, 14, 6));
        p.setPen(Qt::NoPen);
        p.drawRect(QRectF(5.7, 7, 12.6, 11));
        p.setPen(QPen(ink, 1.4));
        p.setBrush(fill.lighter(110));
        p.drawEllipse(QRectF(5, 3, 14, 6));
    } else if (what == QLatin1String("capsule")) {
        p.drawRoundedRect(QRectF(7, 2, 10, 20), 5, 5);
    } else if (what == QLatin1String("cone")) {
        QPolygonF cone;
        cone << QPointF(12, 2) << QPointF(4, 18) << QPointF(20, 18);
        p.drawPolygon(cone);
        p.drawEllipse(QRectF(4, 15, 16, 6));
    } else if (what == QLatin1String("mesh")) {
        QPolygonF outline;
        outline << QPointF(3, 18) << QPointF(9, 4) << QPointF(20, 7) << QPointF(21, 19);
        p.drawPolygon(outline);
        p.drawLine(QPointF(9, 4), QPointF(12, 19));
        p.drawLine(QPointF(12, 19), QPointF(20, 7));
        p.drawLine(QPointF(3, 18), QPointF(12, 19));
    } else if (what == QLatin1String("marker")) {
        p.setPen(QPen(QColor(0xf2, 0x40, 0x33), 2.2));
        arrow(QPointF(6, 18), QPointF(21, 18));
        p.setPen(QPen(QColor(0x2e, 0xa0, 0x3a), 2.2));
        arrow(QPointF(6, 18), QPointF(6, 3));
        p.setPen(QPen(QColor(0x3c, 0x6c, 0xe0), 2.2));
        arrow(QPointF(6, 18), QPointF(15, 9));
    } else if (what == QLatin1String("ground")) {
        p.setPen(QPen(ink, 2));
        p.drawLine(QPointF(2, 14), QPointF(22, 14));
        for (int x = 5; x < 22; x += 5) p.drawLine(QPointF(x, 15), QPointF(x - 3, 21));
        p.setBrush(accent);
        p.setPen(QPen(ink, 1.2));
        p.drawRect(QRectF(8, 4, 8, 9));
    } else {
        return false;
    }
    return true;
}

// The joints, by type name.
bool paintJoints(const QString& what, Ink& k) {
    QPainter& p = k.p;
    const QColor& ink = k.ink;
    const QColor& accent = k.accent;
    auto arrow = [&k](QPointF a, QPointF b) { k.arrow(a, b); };
    if (what == QLatin1String("fixed")) {
        p.drawRect(QRectF(3, 5, 9, 14));
        p.drawRect(QRectF(12, 5, 9, 14));
        p.setPen(QPen(accent, 2));
        p.drawLine(QPointF(12, 4), QPointF(12, 20));
    } else if (what == QLatin1String("revolute")) {
        p.drawEllipse(QRectF(4, 4, 16, 16));
        p.setBrush(accent);
        p.drawEllipse(QRectF(9, 9, 6, 6));
    } else if (what == QLatin1String("prismatic")) {
        p.drawRect(QRectF(2, 13, 20, 4));
        p.setBrush(accent);
        p.drawRect(QRectF(8, 7, 8, 8));
        p.setPen(QPen(ink, 1.2));
        arrow(QPointF(15, 4), QPointF(22, 4));
    } else if (what == QLatin1String("cylindrical")) {
        p.drawRect(QRectF(2, 10, 20, 4));
        p.setBrush(accent);
        p.drawEllipse(QRectF(8, 5, 8, 14));
    } else if (what == QLatin1String("spherical")) {
        p.drawChord(QRectF(3, 3, 18, 18), 200 * 16, 140 * 16);
        p.setBrush(accent);
        p.drawEllipse(QRectF(7, 7, 10, 10));
    } else if (what == QLatin1String("universal")) {
        p.setPen(QPen(ink, 2.4));
        p.drawLine(QPointF(12, 3), QPointF(12, 21));
        p.drawLine(QPointF(3, 12), QPointF(21, 12));
        p.setPen(QPen(ink, 1.2));
        p.setBrush(accent);
        p.drawEllipse(QRectF(9, 9, 6, 6));
    } else if (what == QLatin1String("planar")) {
        QPolygonF plane;
        plane << QPointF(2, 19) << QPointF(8, 9) << QPointF(22, 9) << QPointF(16, 19);
        p.drawPolygon(plane);
        p.setBrush(accent);
        p.drawRect(QRectF(9, 4, 7, 7));
    } else if (what == QLatin1String("distance")) {
        p.setPen(QPen(ink, 1.2, Qt::DashLine));
        p.drawLine(QPointF(5, 19), QPointF(19, 5));
        p.setPen(QPen(ink, 1.2));
        p.setBrush(accent);
        p.drawEllipse(QRectF(2, 16, 6, 6));
        p.drawEllipse(QRectF(16, 2, 6, 6));
    } else if (what == QLatin1String("pointOnLine")) {
        p.setPen(QPen(ink, 2));
        p.drawLine(QPointF(2, 17), QPointF(22, 7));
        p.setPen(QPen(ink, 1.2));
        p.setBrush(accent);
        p.drawEllipse(QRectF(9, 8, 6, 6));
    } else if (what == QLatin1String("pointOnPlane")) {
        QPolygonF plane;
        plane << QPointF(2, 20) << QPointF(8, 11) << QPointF(22, 11) << QPointF(16, 20);
        p.drawPolygon(plane);
        p.setBrush(accent);
        p.drawEllipse(QRectF(9, 10, 6, 6));
    } else if (what == QLatin1String("parallelAxes")) {
        p.setPen(QPen(ink, 2));
        arrow(QPointF(5, 21), QPointF(11, 3));
        p.setPen(QPen(accent, 2));
        arrow(QPointF(13, 21), QPointF(19, 3));
    } else if (what == QLatin1String("perpendicularAxes")) {
        p.setPen(QPen(ink, 2));
        arrow(QPointF(5, 20), QPointF(5, 3));
        p.setPen(QPen(accent, 2));
        arrow(QPointF(5, 20), QPointF(22, 20));
    } else if (what == QLatin1String("pointOnCurve")) {
        // A curved slot with a pin in it.
        QPainterPath slot(QPointF(3, 19));
        slot.cubicTo(QPointF(8, 3), QPointF(15, 22), QPointF(21, 5));
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(ink, 5, Qt::SolidLine, Qt::RoundCap));
        p.drawPath(slot);
        p.setPen(QPen(QColor(Qt::white), 2.6, Qt::SolidLine, Qt::RoundCap));
        p.drawPath(slot);
        p.setPen(QPen(ink, 1.2));
        p.setBrush(accent);
        p.drawEllipse(QRectF(9, 9, 6, 6));
    } else if (what == QLatin1String("curveOnCurve")) {
        // A cam (a disc off its shaft) and a roller riding on it.
        p.drawEllipse(QRectF(2, 9, 14, 13));
        p.setBrush(ink);
        p.drawEllipse(QRectF(6.5, 15, 3, 3));
        p.setBrush(accent);
        p.drawEllipse(QRectF(13, 3, 8, 8));
    } else if (what == QLatin1String("pointOnSurface")) {
        // A curved sheet with a point resting on it.
        QPainterPath sheet(QPointF(2, 18));
        sheet.cubicTo(QPointF(8, 10), QPointF(15, 10), QPointF(22, 16));
        sheet.lineTo(QPointF(22, 22));
        sheet.cubicTo(QPointF(15, 16), QPointF(8, 16), QPointF(2, 23));
        sheet.closeSubpath();
        p.drawPath(sheet);
        p.setBrush(accent);
        p.drawEllipse(QRectF(9, 5, 6, 6));
    } else {
        return false;
    }
    return true;
}

// Forces, motions and contact pairs.
bool paintForces(const QString& what, Ink& k) {
    QPainter& p = k.p;
    const QColor& ink = k.ink;
    const QColor& accent = k.accent;
    auto arrow = [&k](QPointF a, QPointF b) { k.arrow(a, b); };
    if (what == QLatin1String("springDamper")) {
        QPainterPath zigzag(QPointF(3, 21));
        const QPointF pts[] = {{6, 18},  {4, 14}, {11, 15}, {9, 10},
                               {16, 11}, {14, 6}, {18, 6},  {21, 3}};
        for (const QPointF& q : pts) zigzag.lineTo(q);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(ink, 1.8));
        p.drawPath(zigzag);
    } else if (what == QLatin1String("cable")) {
        // A rope over a sheave to a load.
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(ink, 1.4));
        p.drawEllipse(QRectF(7, 3, 10, 10));
        p.setPen(QPen(accent, 1.8));
        p.drawLine(QPointF(7, 8), QPointF(7, 21));
        p.drawLine(QPointF(17, 8), QPointF(17, 15));
        p.setBrush(ink);
        p.setPen(Qt::NoPen);
        p.drawRect(QRectF(14, 15, 6, 6));
    } else if (what == QLatin1String("rotationalSpringDamper")) {
        QPainterPath spiral;
        for (int k = 0; k <= 60; ++k) {
            const double a = k * 0.32, r = 1.0 + k * 0.16;
            const QPointF q(12 + r * std::cos(a), 12 + r * std::sin(a));
            if (k == 0)
                spiral.moveTo(q);
            else
                spiral.lineTo(q);
        }
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(ink, 1.6));
        p.drawPath(spiral);
    } else if (what == QLatin1String("bushing")) {
        p.drawRoundedRect(QRectF(3, 3, 18, 18), 4, 4);
        p.setBrush(accent);
        p.drawEllipse(QRectF(8, 8, 8, 8));
    } else if (what == QLatin1String("pointForce")) {
        p.setPen(QPen(QColor(0xd0, 0x40, 0x30), 2.4));
        arrow(QPointF(4, 20), QPointF(20, 4));
    } else if (what == QLatin1String("pointTorque")) {
        p.setPen(QPen(QColor(0xd0, 0x40, 0x30), 2.2));
        p.setBrush(Qt::NoBrush);
        p.drawArc(QRectF(4, 4, 16, 16), 30 * 16, 270 * 16);
        arrow(QPointF(19.5, 9), QPointF(19, 3.5));
    } else if (what == QLatin1String("jointController")) {
        p.drawEllipse(QRectF(3, 3, 18, 18));
        p.setPen(QPen(accent, 2.2));
        p.drawLine(QPointF(12, 12), QPointF(18, 6));
        p.setPen(QPen(ink, 1.2));
        p.drawLine(QPointF(12, 3), QPointF(12, 6));
        p.drawLine(QPointF(3, 12), QPointF(6, 12));
        p.drawLine(QPointF(21, 12), QPointF(18, 12));
    } else if (what == QLatin1String("computedTorque")) {
        // A servo's dial with the mechanism's model inside: a two-link arm.
        p.drawEllipse(QRectF(3, 3, 18, 18));
        p.setPen(QPen(accent, 2.0));
        p.drawLine(QPointF(7, 16), QPointF(12, 10));
        p.drawLine(QPointF(12, 10), QPointF(17, 13));
        p.setBrush(ink);
        p.setPen(Qt::NoPen);
        p.drawEllipse(QRectF(5.5, 14.5, 3, 3));
        p.drawEllipse(QRectF(10.5, 8.5, 3, 3));
    } else if (what == QLatin1String("lineForce")) {
        // Two ends pushed apart along the line between them by a force of their state.
        p.drawEllipse(QRectF(2, 15, 7, 7));
        p.drawEllipse(QRectF(15, 2, 7, 7));
        p.setPen(QPen(QColor(0xd0, 0x40, 0x30), 2.0));
        arrow(QPointF(10, 14), QPointF(4.5, 19.5));
        arrow(QPointF(14, 10), QPointF(19.5, 4.5));
    } else if (what == QLatin1String("jointForce")) {
        // A joint's pin turned by a torque of its state.
        p.drawEllipse(QRectF(7, 7, 10, 10));
        p.setBrush(accent);
        p.drawEllipse(QRectF(10, 10, 4, 4));
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(QColor(0xd0, 0x40, 0x30), 2.0));
        p.drawArc(QRectF(2.5, 2.5, 19, 19), 200 * 16, 230 * 16);
        arrow(QPointF(18.5, 19), QPointF(21, 15));
    } else if (what == QLatin1String("motion")) {
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(QColor(0x2e, 0x80, 0xd0), 2.4));
        p.drawArc(QRectF(3, 3, 18, 18), 60 * 16, 280 * 16);
        arrow(QPointF(16.5, 4.5), QPointF(21, 8));
    } else if (what == QLatin1String("contact")) {
        p.drawEllipse(QRectF(2, 7, 10, 10));
        p.setBrush(accent);
        p.drawEllipse(QRectF(12, 7, 10, 10));
    } else {
        return false;
    }
    return true;
}

// A gear outline about `c`: `teeth` teeth between radii r and r + depth, turned by `phase`.
QPolygonF gear(QPointF c, double r, double depth, int teeth, double phase) {
    QPolygonF outline;
    for (int k = 0; k < 4 * teeth; ++k) {
        const double a = phase + 2.0 * 3.14159265358979 * k / (4.0 * teeth);
        const double radius = (k % 4 == 1 || k % 4 == 2) ? r + depth : r;
        outline << c + QPointF(radius * std::cos(a), radius * std::sin(a));
    }
    return outline;
}

// The couplers, by type name: two gears meshing, a pinion on a rack, a screw and its nut, a
// belt over two pulleys (a linear relation).
bool paintCouplers(const QString& what, Ink& k) {
    QPainter& p = k.p;
    const QColor& ink = k.ink;
    const QColor& accent = k.accent;
    if (what == QLatin1String("gear")) {
        p.setPen(QPen(ink, 1.1));
        p.drawPolygon(gear(QPointF(8.5, 9), 5.2, 2.2, 8, 0.0));
        p.setBrush(accent);
        p.drawPolygon(gear(QPointF(17, 16.5), 3.6, 2.0, 6, 0.26));
        p.setBrush(Qt::white);
        p.drawEllipse(QPointF(8.5, 9), 1.6, 1.6);
        p.drawEllipse(QPointF(17, 16.5), 1.2, 1.2);
    } else if (what == QLatin1String("rackPinion")) {
        p.setPen(QPen(ink, 1.1));
        p.setBrush(accent);
        p.drawPolygon(gear(QPointF(12, 8), 4.6, 2.0, 8, 0.0));
        p.setBrush(Qt::white);
        p.drawEllipse(QPointF(12, 8), 1.4, 1.4);
        QPolygonF rack;
        rack << QPointF(1.5, 22) << QPointF(1.5, 17);
        for (double x = 1.5; x < 22; x += 4.0)
            rack << QPointF(x + 0.8, 17) << QPointF(x + 1.6, 15) << QPointF(x + 2.6, 15)
                 << QPointF(x + 3.4, 17);
        rack << QPointF(22.5, 17) << QPointF(22.5, 22);
        p.setBrush(k.fill);
        p.drawPolygon(rack);
    } else if (what == QLatin1String("screw")) {
        p.setPen(QPen(ink, 1.2));
        p.drawRect(QRectF(3, 9.5, 18, 5));
        for (double x = 4.5; x < 21; x += 3.0) p.drawLine(QPointF(x, 14.5), QPointF(x + 2.0, 9.5));
        p.setBrush(accent);
        p.drawRect(QRectF(11, 6, 5, 12));
    } else if (what == QLatin1String("linear")) {
        p.setPen(QPen(ink, 1.2));
        p.drawEllipse(QPointF(7, 12), 4.5, 4.5);
        p.setBrush(accent);
        p.drawEllipse(QPointF(18, 12), 3.0, 3.0);
        p.setPen(QPen(ink, 1.8));
        p.drawLine(QPointF(7, 7.5), QPointF(18, 9));
        p.drawLine(QPointF(7, 16.5), QPointF(18, 15));
    } else {
        return false;
    }
    return true;
}

}  // namespace

QIcon pictogram(const QString& what) {
    QPixmap pixmap(24, 24);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    Ink k{p, QColor(0xc8, 0xd4, 0xe2), QColor(0x33, 0x3d, 0x4a), QColor(0xe0, 0x8a, 0x2c)};
    p.setPen(QPen(k.ink, 1.4));
    p.setBrush(k.fill);
    if (!paintParts(what, k) && !paintJoints(what, k) && !paintForces(what, k))
        paintCouplers(what, k);
    return QIcon(pixmap);
}

}  // namespace ui
