#include "ui/plots/plot_widget.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>

#include <QChart>
#include <QChartView>
#include <QFile>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QVBoxLayout>
#include <QValueAxis>

#include "engine/io/csv_export.h"
#include "engine/record/recording.h"

namespace ui {
namespace {

constexpr std::size_t kMaxPoints = 2000;

}  // namespace

PlotWidget::PlotWidget(QWidget* parent) : QWidget(parent) {
    chart_ = new QChart;
    chart_->legend()->setAlignment(Qt::AlignTop);
    timeAxis_ = new QValueAxis;
    timeAxis_->setTitleText(tr("time [s]"));
    valueAxis_ = new QValueAxis;
    valueAxis_->setLabelFormat(QStringLiteral("%.4g"));
    timeAxis_->setLabelFormat(QStringLiteral("%.4g"));
    chart_->addAxis(timeAxis_, Qt::AlignBottom);
    chart_->addAxis(valueAxis_, Qt::AlignLeft);

    cursor_ = new QLineSeries;
    cursor_->setName(QStringLiteral("cursor"));
    QPen pen(QColor(120, 120, 120));
    pen.setStyle(Qt::DashLine);
    cursor_->setPen(pen);
    chart_->addSeries(cursor_);
    cursor_->attachAxis(timeAxis_);
    cursor_->attachAxis(valueAxis_);
    for (QLegendMarker* marker : chart_->legend()->markers(cursor_)) marker->setVisible(false);

    connect(timeAxis_, &QValueAxis::rangeChanged, this,
            [this] { zoomed_ = zoomed_ || !updating_; });

    view_ = new QChartView(chart_);
    view_->setRenderHint(QPainter::Antialiasing);
    view_->setRubberBand(QChartView::RectangleRubberBand);  // drag to zoom, right-click to zoom out
    view_->setMinimumHeight(220);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view_);
}

void PlotWidget::setChannels(const QStringList& names) {
    channels_ = names;
    for (QAbstractSeries* series : chart_->series())
        if (series != cursor_) {
            chart_->removeSeries(series);
            delete series;
        }
    for (const QString& name : names) {
        auto* series = new QLineSeries;
        series->setName(name);
        chart_->addSeries(series);
        series->attachAxis(timeAxis_);
        series->attachAxis(valueAxis_);
    }
    zoomed_ = false;
}

QString PlotWidget::title() const {
    if (channels_.isEmpty()) return tr("(empty)");
    // "pivotA.Fx, pivotA.Fy" → "pivotA Fx, Fy"
    const QString first = channels_.front().section(QLatin1Char('.'), 0, 0);
    QStringList quantities;
    for (const QString& c : channels_) {
        if (c.section(QLatin1Char('.'), 0, 0) != first) return channels_.join(QStringLiteral(", "));
        quantities << c.section(QLatin1Char('.'), 1);
    }
    return first + QLatin1Char(' ') + quantities.join(QStringLiteral(", "));
}

int PlotWidget::pointCount(int curve) const {
    int k = 0;
    for (QAbstractSeries* series : chart_->series()) {
        if (series == cursor_) continue;
        if (k++ == curve) return static_cast<int>(static_cast<QLineSeries*>(series)->count());
    }
    return 0;
}

void PlotWidget::refresh(const engine::Recording* recording, double cursorTime) {
    recording_ = recording;
    cursorTime_ = cursorTime;
    if (!recording) return;
    const engine::FrameLayout& layout = recording->layout();
    const std::size_t frames = recording->size();
    const std::size_t stride = std::max<std::size_t>(1, (frames + kMaxPoints - 1) / kMaxPoints);
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    QStringList units;
    std::vector<double> times, values;
    int k = 0;
    for (QAbstractSeries* abstract : chart_->series()) {
        if (abstract == cursor_) continue;
        auto* series = static_cast<QLineSeries*>(abstract);
        const int channel = layout.findChannel(channels_[k++].toStdString());
        if (channel < 0) continue;
        recording->series(channel, 0, frames, stride, times, values);
        // Always include the last frame so the curve reaches the end of the run.
        if (frames > 0 && (frames - 1) % stride != 0) {
            std::vector<double> t1, v1;
            recording->series(channel, frames - 1, frames, 1, t1, v1);
            times.push_back(t1.front());
            values.push_back(v1.front());
        }
        QList<QPointF> points;
        points.reserve(static_cast<qsizetype>(times.size()));
        for (std::size_t i = 0; i < times.size(); ++i) {
            points.append(QPointF(times[i], values[i]));
            lo = std::min(lo, values[i]);
            hi = std::max(hi, values[i]);
        }
        series->replace(points);
        const QString unit =
            QString::fromStdString(layout.channels()[static_cast<std::size_t>(channel)].unit);
        if (!units.contains(unit)) units << unit;
    }
    valueAxis_->setTitleText(
        units.isEmpty() ? QString() : QStringLiteral("[%1]").arg(units.join(QStringLiteral(", "))));
    if (!zoomed_ && std::isfinite(lo)) {
        updating_ = true;
        const double tEnd = frames ? recording->time(frames - 1) : 1.0;
        timeAxis_->setRange(0.0, std::max(tEnd, 1e-6));
        // A flat curve (e.g. a reaction that stays zero) gets a readable range around it.
        const double spread = hi - lo;
        const double pad = spread > 1e-9 * std::max(1.0, std::abs(hi))
                               ? 0.05 * spread
                               : std::max(1.0, 0.1 * std::abs(hi));
        valueAxis_->setRange(lo - pad, hi + pad);
        valueAxis_->applyNiceNumbers();
        updating_ = false;
    }
    updateCursor();
}

void PlotWidget::setCursorTime(double time) {
    cursorTime_ = time;
    updateCursor();
}

void PlotWidget::updateCursor() {
    const bool wasUpdating = updating_;
    updating_ = true;
    cursor_->replace(
        QList<QPointF>{{cursorTime_, valueAxis_->min()}, {cursorTime_, valueAxis_->max()}});
    updating_ = wasUpdating;
}

void PlotWidget::resetZoom() {
    chart_->zoomReset();
    zoomed_ = false;
    refresh(recording_, cursorTime_);
}

bool PlotWidget::exportPng(const QString& path) const {
    return view_->grab().save(path, "PNG");
}

bool PlotWidget::exportSvg(const QString& path) const {
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(view_->size());
    generator.setViewBox(view_->rect());
    generator.setTitle(title());
    QPainter painter;
    if (!painter.begin(&generator)) return false;
    view_->render(&painter);
    return painter.end() && QFile(path).size() > 0;
}

bool PlotWidget::exportCsv(const QString& path, QString* error) const {
    if (!recording_) {
        if (error) *error = tr("nothing recorded yet");
        return false;
    }
    const engine::FrameLayout& layout = recording_->layout();
    std::vector<int> columns;
    for (const QString& name : channels_) columns.push_back(layout.findChannel(name.toStdString()));
    const std::size_t frames = recording_->size();
    std::vector<std::vector<double>> data(columns.size());
    std::vector<double> times, unused;
    for (std::size_t c = 0; c < columns.size(); ++c)
        recording_->series(columns[c], 0, frames, 1, times, data[c]);
    recording_->series(0, 0, frames, 1, unused, times);  // channel 0 is time

    // Written to a temporary file and renamed: a reader never sees half a file.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error) *error = file.errorString();
        return false;
    }
    QByteArray text = "time";
    for (const QString& name : channels_) text += ',' + name.toUtf8();
    text += '\n';
    for (std::size_t k = 0; k < times.size(); ++k) {
        text += QByteArray::fromStdString(engine::io::formatDouble(times[k]));
        for (const auto& column : data)
            text += ',' + QByteArray::fromStdString(
                              k < column.size() ? engine::io::formatDouble(column[k]) : "");
        text += '\n';
    }
    file.write(text);
    if (!file.commit()) {
        if (error) *error = file.errorString();
        return false;
    }
    return true;
}

}  // namespace ui
