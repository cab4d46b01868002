#pragma once
// One plot: recorded channels against time (Qt Charts), a legend, axes with units, a time
// cursor that follows the timeline, zoom (rubber band, wheel) and pan, and export to PNG,
// SVG and CSV (the CSV at the recording's full resolution).

#include <QString>
#include <QStringList>
#include <QWidget>

class QChart;
class QChartView;
class QLineSeries;
class QValueAxis;

namespace engine {
class Recording;
}

namespace ui {

class PlotWidget : public QWidget {
    Q_OBJECT

public:
    explicit PlotWidget(QWidget* parent = nullptr);

    // Channels by name ("pivotA.Fz"); unknown names are ignored when refreshed.
    void setChannels(const QStringList& names);
    const QStringList& channels() const { return channels_; }
    QString title() const;

    // Pulls the curves from the recording (at most ~2000 points each) and moves the cursor.
    void refresh(const engine::Recording* recording, double cursorTime);
    void setCursorTime(double time);
    void resetZoom();

    bool exportPng(const QString& path) const;
    bool exportSvg(const QString& path) const;
    // Time and every channel at every recorded frame; numbers round-trip exactly.
    bool exportCsv(const QString& path, QString* error = nullptr) const;

    QChart* chart() const { return chart_; }
    int pointCount(int curve) const;

private:
    void updateCursor();

    QStringList channels_;
    const engine::Recording* recording_ = nullptr;
    QChart* chart_;
    QChartView* view_;
    QValueAxis* timeAxis_;
    QValueAxis* valueAxis_;
    QLineSeries* cursor_;
    double cursorTime_ = 0.0;
    bool zoomed_ = false;    // the user zoomed or panned: refresh keeps their ranges
    bool updating_ = false;  // ranges are being set by refresh, not by the user
};

}  // namespace ui
