#include "ui/plots/plot_render.h"

#include <algorithm>
#include <cmath>

#include <QFileInfo>
#include <QFontMetricsF>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPainterPath>
#include <QPdfWriter>
#include <QRectF>
#include <QSaveFile>
#include <QSvgGenerator>

namespace ui {
namespace {

constexpr double kPad = 10.0;  // px at 96 dpi around everything

QFont fontOf(double pixels, bool bold = false) {
    QFont font;
    font.setPixelSize(static_cast<int>(std::lround(pixels)));
    font.setBold(bold);
    return font;
}

std::vector<double> ticksOf(double lo, double hi, double step) {
    std::vector<double> ticks;
    if (!(step > 0.0) || !std::isfinite(lo) || !std::isfinite(hi)) return ticks;
    for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + 1e-9 * step; k += 1.0) {
        const double v = k * step;
        ticks.push_back(std::abs(v) < 1e-9 * step ? 0.0 : v);
        if (ticks.size() > 1000) break;
    }
    return ticks;
}

// Liang–Barsky: the part of segment a→b inside [x0,x1]×[y0,y1]; false if none.
bool clipSegment(QPointF& a, QPointF& b, double x0, double x1, double y0, double y1) {
    double t0 = 0.0, t1 = 1.0;
    const double dx = b.x() - a.x(), dy = b.y() - a.y();
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {a.x() - x0, x1 - a.x(), a.y() - y0, y1 - a.y()};
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0.0) {
            if (q[i] < 0.0) return false;
            continue;
        }
        const double t = q[i] / p[i];
        if (p[i] < 0.0)
            t0 = std::max(t0, t);
        else
            t1 = std::min(t1, t);
        if (t0 > t1) return false;
    }
    const QPointF start = a;
    a = start + t0 * QPointF(dx, dy);
    b = start + t1 * QPointF(dx, dy);
    return true;
}

// One path for the curve: the pieces inside the plot's ranges, joined where they meet.
QPainterPath curvePath(const PlotCurve& curve, const PlotPicture& p, const QRectF& area) {
    const double sx = area.width() / (p.xMax - p.xMin), sy = area.height() / (p.yMax - p.yMin);
    const auto toArea = [&](const QPointF& v) {
        return QPointF(area.left() + (v.x() - p.xMin) * sx, area.bottom() - (v.y() - p.yMin) * sy);
    };
    QPainterPath path;
    bool open = false;  // the path's current piece ends at the previous point
    for (qsizetype k = 0; k + 1 < curve.points.size(); ++k) {
        QPointF a = curve.points[k], b = curve.points[k + 1];
        if (!std::isfinite(a.x()) || !std::isfinite(a.y()) || !std::isfinite(b.x()) ||
            !std::isfinite(b.y()) || !clipSegment(a, b, p.xMin, p.xMax, p.yMin, p.yMax)) {
            open = false;
            continue;
        }
        if (!open || a != curve.points[k]) path.moveTo(toArea(a));
        path.lineTo(toArea(b));
        open = b == curve.points[k + 1];
    }
    if (curve.points.size() == 1) {  // a single sample: a dot
        const QPointF v = curve.points.front();
        if (v.x() >= p.xMin && v.x() <= p.xMax && v.y() >= p.yMin && v.y() <= p.yMax)
            path.addEllipse(toArea(v), 1.5, 1.5);
    }
    return path;
}

QString extensionOf(const QString& path) {
    return QFileInfo(path).suffix().toLower();
}

}  // namespace

double niceTickStep(double span, int maxTicks) {
    if (!(span > 0.0) || !std::isfinite(span)) return 0.0;
    maxTicks = std::max(1, maxTicks);
    const double raw = span / maxTicks;
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * decade >= raw * (1.0 - 1e-12)) return m * decade;
    return 10.0 * decade;
}

int tickDecimals(double step) {
    if (!(step > 0.0) || !std::isfinite(step)) return 0;
    const double k = std::floor(std::log10(step) + 1e-9);
    const double mantissa = step / std::pow(10.0, k);
    const int extra = std::abs(mantissa - 2.5) < 1e-6 ? 1 : 0;
    return std::max(0, static_cast<int>(-k) + extra);
}

QString tickText(double value, int decimals) {
    if (decimals > 6 || std::abs(value) >= 1e6) {
        if (value == 0.0) return QStringLiteral("0");
        return QString::number(value, 'g', 6);
    }
    QString text = QString::number(value, 'f', decimals);
    if (text.startsWith(QLatin1Char('-')) && text.mid(1).toDouble() == 0.0) text.remove(0, 1);
    return text;
}

void drawPlot(QPainter& painter, const QRectF& rect, const PlotPicture& picture) {
    PlotPicture p = picture;
    if (!(p.xMax > p.xMin)) p.xMax = p.xMin + 1.0;
    if (!(p.yMax > p.yMin)) p.yMax = p.yMin + 1.0;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(rect, Qt::white);
    const QColor ink(40, 40, 40);
    const QFont titleFont = fontOf(17, true), labelFont = fontOf(13), tickFont = fontOf(12);
    const QFontMetricsF titleMetrics(titleFont), labelMetrics(labelFont), tickMetrics(tickFont);

    double y = rect.top() + kPad;
    painter.setPen(ink);
    if (!p.title.isEmpty()) {
        painter.setFont(titleFont);
        const QRectF line(rect.left() + kPad, y, rect.width() - 2 * kPad, titleMetrics.height());
        painter.drawText(line, Qt::AlignCenter, p.title);
        y += titleMetrics.height() + 6;
    }

    // Legend: a line sample and the name per curve, in rows as wide as the plot.
    painter.setFont(labelFont);
    const double sample = 26.0, rowHeight = labelMetrics.height();
    double x = rect.left() + kPad;
    bool anyNamed = false;
    for (const PlotCurve& curve : p.curves) {
        if (curve.name.isEmpty()) continue;
        const double width = sample + 6 + labelMetrics.horizontalAdvance(curve.name);
        if (anyNamed && x + width > rect.right() - kPad) {
            x = rect.left() + kPad;
            y += rowHeight;
        }
        anyNamed = true;
        QPen pen(curve.colour, 2.0, curve.dashed ? Qt::DashLine : Qt::SolidLine, Qt::FlatCap);
        painter.setPen(pen);
        painter.drawLine(QPointF(x, y + rowHeight / 2), QPointF(x + sample, y + rowHeight / 2));
        painter.setPen(ink);
        painter.drawText(QRectF(x + sample + 6, y, width, rowHeight), Qt::AlignVCenter, curve.name);
        x += width + 18;
    }
    if (anyNamed) y += rowHeight + 8;

    // Plot area: room for the y label, the widest y tick, the x ticks and the x label.
    const double areaHeightGuess = rect.bottom() - y - 2 * tickMetrics.height() - kPad;
    const double yStep =
        niceTickStep(p.yMax - p.yMin, std::clamp(static_cast<int>(areaHeightGuess / 45), 2, 10));
    const std::vector<double> yTicks = ticksOf(p.yMin, p.yMax, yStep);
    const int yDecimals = tickDecimals(yStep);
    double yTickWidth = 0;
    for (double v : yTicks)
        yTickWidth = std::max(yTickWidth, tickMetrics.horizontalAdvance(tickText(v, yDecimals)));
    const double left =
        rect.left() + kPad + (p.yLabel.isEmpty() ? 0 : labelMetrics.height() + 6) + yTickWidth + 8;
    const double xStep = niceTickStep(
        p.xMax - p.xMin, std::clamp(static_cast<int>((rect.right() - left) / 90), 2, 12));
    const std::vector<double> xTicks = ticksOf(p.xMin, p.xMax, xStep);
    const int xDecimals = tickDecimals(xStep);
    const double lastTickHalf =
        xTicks.empty() ? 0 : tickMetrics.horizontalAdvance(tickText(xTicks.back(), xDecimals)) / 2;
    const double right = rect.right() - kPad - lastTickHalf;
    const double bottom = rect.bottom() - kPad -
                          (p.xLabel.isEmpty() ? 0 : labelMetrics.height() + 2) -
                          tickMetrics.height() - 6;
    const double top = y + tickMetrics.height() / 2;
    const QRectF area(QPointF(left, top), QPointF(right, bottom));
    if (area.width() < 10 || area.height() < 10) {
        painter.restore();
        return;
    }
    const auto px = [&](double v) {
        return area.left() + (v - p.xMin) / (p.xMax - p.xMin) * area.width();
    };
    const auto py = [&](double v) {
        return area.bottom() - (v - p.yMin) / (p.yMax - p.yMin) * area.height();
    };

    // Grid, frame, ticks and their values.
    painter.setPen(QPen(QColor(222, 222, 222), 1.0));
    for (double v : xTicks)
        painter.drawLine(QPointF(px(v), area.top()), QPointF(px(v), area.bottom()));
    for (double v : yTicks)
        painter.drawLine(QPointF(area.left(), py(v)), QPointF(area.right(), py(v)));
    painter.setPen(QPen(ink, 1.0));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(area);
    painter.setFont(tickFont);
    for (double v : xTicks) {
        painter.drawLine(QPointF(px(v), area.bottom()), QPointF(px(v), area.bottom() + 4));
        const QString text = tickText(v, xDecimals);
        const double w = tickMetrics.horizontalAdvance(text);
        painter.drawText(QRectF(px(v) - w / 2 - 2, area.bottom() + 5, w + 4, tickMetrics.height()),
                         Qt::AlignCenter, text);
    }
    for (double v : yTicks) {
        painter.drawLine(QPointF(area.left() - 4, py(v)), QPointF(area.left(), py(v)));
        const QString text = tickText(v, yDecimals);
        painter.drawText(QRectF(area.left() - 6 - yTickWidth - 2, py(v) - tickMetrics.height() / 2,
                                yTickWidth + 2, tickMetrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter, text);
    }
    painter.setFont(labelFont);
    if (!p.xLabel.isEmpty())
        painter.drawText(QRectF(area.left(), rect.bottom() - kPad - labelMetrics.height(),
                                area.width(), labelMetrics.height()),
                         Qt::AlignCenter, p.xLabel);
    if (!p.yLabel.isEmpty()) {
        painter.save();
        painter.translate(rect.left() + kPad, area.center().y());
        painter.rotate(-90);
        painter.drawText(QRectF(-area.height() / 2, 0, area.height(), labelMetrics.height()),
                         Qt::AlignCenter, p.yLabel);
        painter.restore();
    }

    // Curves: previous runs first, under the current one; one path each.
    for (const bool dashed : {true, false})
        for (const PlotCurve& curve : p.curves) {
            if (curve.dashed != dashed) continue;
            QPen pen(curve.colour, 1.6, dashed ? Qt::DashLine : Qt::SolidLine, Qt::RoundCap,
                     Qt::RoundJoin);
            painter.setPen(pen);
            painter.setBrush(Qt::NoBrush);
            painter.drawPath(curvePath(curve, p, area));
        }
    painter.restore();
}

bool exportPlot(const PlotPicture& picture, const QString& path, const PlotExportOptions& options,
                QString* error) {
    const auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    const QString format = extensionOf(path);
    if (format != QLatin1String("png") && format != QLatin1String("svg") &&
        format != QLatin1String("pdf"))
        return fail(
            QStringLiteral("unknown plot format '.%1' (use .png, .svg or .pdf)").arg(format));
    if (options.pixels.width() < 64 || options.pixels.height() < 64 ||
        options.pixels.width() > 20000 || options.pixels.height() > 20000)
        return fail(QStringLiteral("a plot of %1 × %2 pixels: choose 64 to 20000 pixels a side")
                        .arg(options.pixels.width())
                        .arg(options.pixels.height()));
    if (!(options.dpi >= 24.0 && options.dpi <= 2400.0))
        return fail(QStringLiteral("a resolution of %1 dpi: choose 24 to 2400").arg(options.dpi));
    // Logical size at 96 dpi: text and lines keep their physical size at any resolution.
    const double scale = options.dpi / 96.0;
    const QRectF logical(0, 0, options.pixels.width() / scale, options.pixels.height() / scale);

    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return fail(file.errorString());
    if (format == QLatin1String("png")) {
        QImage image(options.pixels, QImage::Format_ARGB32_Premultiplied);
        const int dotsPerMeter = static_cast<int>(std::lround(options.dpi / 0.0254));
        image.setDotsPerMeterX(dotsPerMeter);
        image.setDotsPerMeterY(dotsPerMeter);
        image.fill(Qt::white);
        QPainter painter(&image);
        painter.scale(scale, scale);
        drawPlot(painter, logical, picture);
        painter.end();
        if (!image.save(&file, "PNG"))
            return fail(QStringLiteral("could not encode the PNG image"));
    } else if (format == QLatin1String("svg")) {
        QSvgGenerator generator;
        generator.setOutputDevice(&file);
        generator.setSize(options.pixels);
        generator.setViewBox(logical);
        generator.setResolution(static_cast<int>(std::lround(options.dpi)));
        generator.setTitle(picture.title);
        generator.setDescription(QStringLiteral("Motus plot"));
        QPainter painter;
        if (!painter.begin(&generator)) return fail(QStringLiteral("could not start the SVG"));
        drawPlot(painter, logical, picture);
        painter.end();
    } else {
        QPdfWriter writer(&file);
        writer.setCreator(QStringLiteral("Motus"));
        writer.setTitle(picture.title);
        writer.setResolution(static_cast<int>(std::lround(options.dpi)));
        const QSizeF points(options.pixels.width() * 72.0 / options.dpi,
                            options.pixels.height() * 72.0 / options.dpi);
        writer.setPageLayout(
            QPageLayout(QPageSize(points, QPageSize::Point), QPageLayout::Portrait, QMarginsF()));
        QPainter painter;
        if (!painter.begin(&writer)) return fail(QStringLiteral("could not start the PDF"));
        const QRect page = painter.viewport();
        painter.scale(page.width() / logical.width(), page.height() / logical.height());
        drawPlot(painter, logical, picture);
        painter.end();
    }
    if (!file.commit()) return fail(file.errorString());
    return true;
}

bool exportPlotReport(const std::vector<PlotPicture>& plots, const QString& heading,
                      const QString& path, QString* error) {
    const auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    if (plots.empty()) return fail(QStringLiteral("there is no plot to put in a report"));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return fail(file.errorString());
    QPdfWriter writer(&file);
    writer.setCreator(QStringLiteral("Motus"));
    writer.setTitle(heading);
    writer.setResolution(300);
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Landscape,
                                     QMarginsF(12, 12, 12, 12), QPageLayout::Millimeter));
    QPainter painter;
    if (!painter.begin(&writer)) return fail(QStringLiteral("could not start the PDF"));
    // The page in 96-dpi pixels, so that the plots' text has its usual size.
    const double scale = writer.resolution() / 96.0;
    const QRect page = painter.viewport();
    const QRectF logical(0, 0, page.width() / scale, page.height() / scale);
    painter.scale(scale, scale);
    const QFont headingFont = fontOf(15, true);
    const double headingHeight = QFontMetricsF(headingFont).height() + 8;
    for (std::size_t k = 0; k < plots.size(); k += 2) {
        if (k > 0) writer.newPage();
        painter.setFont(headingFont);
        painter.setPen(QColor(40, 40, 40));
        const int pages = static_cast<int>((plots.size() + 1) / 2);
        painter.drawText(QRectF(0, 0, logical.width(), headingHeight), Qt::AlignLeft | Qt::AlignTop,
                         heading);
        painter.drawText(QRectF(0, 0, logical.width(), headingHeight),
                         Qt::AlignRight | Qt::AlignTop,
                         QStringLiteral("%1 / %2").arg(k / 2 + 1).arg(pages));
        const double h = (logical.height() - headingHeight) / 2;
        for (std::size_t i = k; i < std::min(k + 2, plots.size()); ++i)
            drawPlot(painter, QRectF(0, headingHeight + (i - k) * h, logical.width(), h - 6),
                     plots[i]);
    }
    painter.end();
    if (!file.commit()) return fail(file.errorString());
    return true;
}

}  // namespace ui
