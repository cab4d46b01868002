#pragma once
// A plot drawn for a report: title, legend, axes with nice tick values and units, one path per
// curve (a dashed one for a previous run), on white. The same drawing goes to PNG (at a chosen
// size and resolution), SVG and PDF. Qt Charts draws the plot on screen; it writes every line
// segment of a curve as its own SVG element and lays text out for the screen only, so exports
// are drawn here.

#include <vector>

#include <QColor>
#include <QList>
#include <QPointF>
#include <QSize>
#include <QString>

class QPainter;
class QRectF;

namespace ui {

struct PlotCurve {
    QString name;
    QColor colour;
    QList<QPointF> points;
    bool dashed = false;  // a previous run, drawn under the current one
};

struct PlotPicture {
    QString title;
    QString xLabel, yLabel;  // with units: "time [s]", "force [N]"
    double xMin = 0.0, xMax = 1.0, yMin = 0.0, yMax = 1.0;
    std::vector<PlotCurve> curves;
};

struct PlotExportOptions {
    QSize pixels{1600, 900};  // the image (PNG) or the page (SVG, PDF) in pixels at `dpi`
    double dpi = 150.0;       // text and lines keep their physical size: 96 dpi is 1 px a point
};

// Step between tick values: 1, 2, 2.5 or 5 × 10ᵏ, giving at most `maxTicks` intervals over
// `span` (at least 1 interval). 0 for an empty or non-finite span.
double niceTickStep(double span, int maxTicks);
// Decimals that show every multiple of `step` exactly ("0.25" for 0.25, "10" for 10).
int tickDecimals(double step);
// A tick value as text with those decimals, without "-0".
QString tickText(double value, int decimals);

// Draws the plot into `rect` (device-independent pixels at 96 dpi; scale the painter for more).
void drawPlot(QPainter& painter, const QRectF& rect, const PlotPicture& picture);

// Writes the plot to `path` (.png, .svg or .pdf by extension), atomically: a reader never sees
// half a file. On failure returns false and says why in `error`.
bool exportPlot(const PlotPicture& picture, const QString& path, const PlotExportOptions& options,
                QString* error = nullptr);

// A PDF report: a heading, then the plots, two to an A4 landscape page.
bool exportPlotReport(const std::vector<PlotPicture>& plots, const QString& heading,
                      const QString& path, QString* error = nullptr);

}  // namespace ui
