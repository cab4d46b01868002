#pragma once
// One plot: recorded channels against time, or against another channel (an x-y plot, e.g. a
// coupler curve), drawn with Qt Charts: a legend, axes with units and nice tick values, a
// cursor at the timeline's time, the previous run (after a re-run) dashed under the current
// one. Click or drag in the plot to move the time there; Shift-drag zooms into a rectangle,
// the wheel zooms, right-click zooms out. Exports to PNG (chosen size and resolution), SVG
// (one path per curve) and PDF drawn by plot_render, and to CSV at the recording's full
// resolution.

#include <vector>

#include <QString>
#include <QStringList>
#include <QWidget>

#include "ui/plots/plot_render.h"

class QChart;
class QChartView;
class QLabel;
class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace engine {
class Recording;
}

namespace ui {

class PlotWidget : public QWidget {
    Q_OBJECT

public:
    explicit PlotWidget(QWidget* parent = nullptr);

    // Channels by name ("pivotA.Fz"); `x`: the channel of the horizontal axis, empty for time.
    // Names the run does not record draw nothing: a line above the plot says which, with the
    // close names the run has (missingChannels()).
    void setChannels(const QStringList& names, const QString& x = QString());
    const QStringList& channels() const { return channels_; }
    const QString& xChannel() const { return x_; }
    // A title made from the channels: "pivotA Fx, Fy", "coupler y vs x".
    QString title() const;
    // Shown above the plot (side-by-side plots; exports always have one).
    void setHeading(const QString& heading);

    // Pulls the curves from the recording (at most ~2000 points each) and moves the cursor.
    void refresh(const engine::Recording* recording, double cursorTime);
    void setCursorTime(double time);
    void resetZoom();

    // What an export draws: the visible ranges, the curves (the previous run's dashed), the
    // axis titles with units; no cursor.
    PlotPicture picture(const QString& title) const;
    // PNG, SVG or PDF by the file's extension; titled `title` (default: the heading or title()).
    bool exportImage(const QString& path, const PlotExportOptions& options,
                     const QString& title = QString(), QString* error = nullptr) const;
    bool exportPng(const QString& path) const;
    bool exportSvg(const QString& path) const;
    // Time and every channel at every recorded frame; numbers round-trip exactly.
    bool exportCsv(const QString& path, QString* error = nullptr) const;

    QChart* chart() const { return chart_; }
    // What the line above the plot says of channels the run does not record ("" when none).
    QString missingChannels() const;
    int pointCount(int curve) const;
    int previousCurveCount() const;  // dashed curves of the previous run shown
    double tickInterval(bool vertical) const;
    // The time of the recorded sample nearest to `position` (widget pixels); NaN if none.
    double timeAt(const QPointF& position) const;

signals:
    // The user clicked or dragged in the plot: move the time there.
    void seekRequested(double time);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    friend class PlotView;
    void updateCursor();
    void updateTicks();
    void setTicks(QValueAxis* axis, double lo, double hi);
    void setRange(QValueAxis* axis, double lo, double hi);
    void zoomAbout(const QPointF& position, double factor);

    QStringList channels_;
    QString x_;
    QString heading_;
    const engine::Recording* recording_ = nullptr;
    QChart* chart_;
    QChartView* view_;
    QLabel* missing_;  // channels the run does not record, and the close names it has
    // What `missing_` was worked out for: the recording and its channel count.
    const engine::Recording* missingFor_ = nullptr;
    std::size_t missingChannelCount_ = 0;
    QValueAxis* xAxis_;
    QValueAxis* valueAxis_;
    std::vector<QLineSeries*> curves_, previous_;
    std::vector<std::vector<double>> times_;  // per curve: the time of each point
    QLineSeries* cursor_;                     // plots against time: a vertical line
    QScatterSeries* cursorDots_;              // x-y plots: a dot on each curve
    double cursorTime_ = 0.0;
    bool zoomed_ = false;    // the user zoomed or panned: refresh keeps their ranges
    bool updating_ = false;  // ranges are being set by refresh, not by the user
};

}  // namespace ui
