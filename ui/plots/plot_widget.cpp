#include "ui/plots/plot_widget.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QChart>
#include <QChartView>
#include <QGraphicsLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QSaveFile>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>
#include <QWheelEvent>

#include "engine/io/csv_export.h"
#include "engine/record/recording.h"

namespace ui {
namespace {

constexpr std::size_t kMaxPoints = 2000;

// "N" → "force [N]": the axis title names the quantity where the unit tells it.
QString axisTitle(const QStringList& units) {
    if (units.isEmpty()) return {};
    if (units.size() > 1) return QStringLiteral("[%1]").arg(units.join(QStringLiteral(", ")));
    static const std::vector<std::pair<QString, QString>> kQuantities = {
        {"N", "force"},      {"N·m", "torque"},
        {"N m", "torque"},   {"m", "position"},
        {"m/s", "velocity"}, {"m/s²", "acceleration"},
        {"rad", "angle"},    {"rad/s", "angular velocity"},
        {"J", "energy"},     {"W", "power"},
        {"s", "time"}};
    for (const auto& [unit, quantity] : kQuantities)
        if (units.front() == unit) return QStringLiteral("%1 [%2]").arg(quantity, unit);
    return QStringLiteral("[%1]").arg(units.front());
}

// Curve colours, the same on screen and in exports (distinct, legible on white).
QColor curveColour(int k) {
    static const QColor kPalette[] = {
        {31, 119, 180}, {255, 127, 14},  {44, 160, 44},   {214, 39, 40},  {148, 103, 189},
        {140, 86, 75},  {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207}};
    return kPalette[k % 10];
}

double nan() {
    return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

// The chart view with the plot's mouse: click and drag seek, Shift-drag zooms into a
// rectangle, the middle button pans, the wheel zooms about the pointer, right-click zooms out,
// a double-click shows everything again.
class PlotView : public QChartView {
public:
    PlotView(QChart* chart, PlotWidget* plot) : QChartView(chart), plot_(plot) {
        setRubberBand(QChartView::RectangleRubberBand);
        setMouseTracking(false);
    }

protected:
    void mousePressEvent(QMouseEvent* event) override {
        if (event->button() == Qt::LeftButton && !(event->modifiers() & Qt::ShiftModifier)) {
            seeking_ = true;
            seek(event->position());
            event->accept();
            return;
        }
        if (event->button() == Qt::MiddleButton) {
            panFrom_ = event->position();
            panning_ = true;
            event->accept();
            return;
        }
        QChartView::mousePressEvent(event);
    }
    void mouseMoveEvent(QMouseEvent* event) override {
        if (seeking_) {
            seek(event->position());
            event->accept();
            return;
        }
        if (panning_) {
            const QPointF d = event->position() - panFrom_;
            panFrom_ = event->position();
            chart()->scroll(-d.x(), d.y());
            event->accept();
            return;
        }
        QChartView::mouseMoveEvent(event);
    }
    void mouseReleaseEvent(QMouseEvent* event) override {
        if (seeking_ || panning_) {
            seeking_ = panning_ = false;
            event->accept();
            return;
        }
        QChartView::mouseReleaseEvent(event);
    }
    void mouseDoubleClickEvent(QMouseEvent* event) override {
        if (event->button() == Qt::LeftButton) {
            plot_->resetZoom();
            event->accept();
            return;
        }
        QChartView::mouseDoubleClickEvent(event);
    }
    void wheelEvent(QWheelEvent* event) override {
        const double notches = event->angleDelta().y() / 120.0;
        if (notches == 0.0) return;
        plot_->zoomAbout(event->position(), std::pow(0.8, notches));
        event->accept();
    }

private:
    void seek(const QPointF& position) {
        const double t = plot_->timeAt(position);
        if (std::isfinite(t)) emit plot_->seekRequested(t);
    }

    PlotWidget* plot_;
    bool seeking_ = false, panning_ = false;
    QPointF panFrom_;
};

PlotWidget::PlotWidget(QWidget* parent) : QWidget(parent) {
    chart_ = new QChart;
    chart_->legend()->setAlignment(Qt::AlignTop);
    chart_->setMargins(QMargins(6, 2, 8, 2));
    chart_->layout()->setContentsMargins(0, 0, 0, 0);
    chart_->setBackgroundRoundness(0);
    xAxis_ = new QValueAxis;
    valueAxis_ = new QValueAxis;
    for (QValueAxis* axis : {xAxis_, valueAxis_}) {
        axis->setTickType(QValueAxis::TicksDynamic);
        axis->setTickAnchor(0.0);
        axis->setMinorTickCount(0);
    }
    chart_->addAxis(xAxis_, Qt::AlignBottom);
    chart_->addAxis(valueAxis_, Qt::AlignLeft);

    cursor_ = new QLineSeries;
    QPen pen(QColor(120, 120, 120));
    pen.setStyle(Qt::DashLine);
    cursor_->setPen(pen);
    cursorDots_ = new QScatterSeries;
    cursorDots_->setMarkerSize(9);
    cursorDots_->setColor(QColor(60, 60, 60));
    cursorDots_->setBorderColor(Qt::white);
    for (QXYSeries* series : std::initializer_list<QXYSeries*>{cursor_, cursorDots_}) {
        chart_->addSeries(series);
        series->attachAxis(xAxis_);
        series->attachAxis(valueAxis_);
        for (QLegendMarker* marker : chart_->legend()->markers(series)) marker->setVisible(false);
    }

    for (QValueAxis* axis : {xAxis_, valueAxis_})
        connect(axis, &QValueAxis::rangeChanged, this, [this] {
            zoomed_ = zoomed_ || !updating_;
            updateTicks();
            if (!updating_) updateCursor();
        });

    view_ = new PlotView(chart_, this);
    view_->setRenderHint(QPainter::Antialiasing);
    view_->setMinimumHeight(200);
    view_->setToolTip(
        tr("Click or drag: move the time there · Shift-drag: zoom into a box · "
           "wheel: zoom · middle drag: pan · double-click: show all"));
    missing_ = new QLabel(this);
    missing_->setObjectName(QStringLiteral("PlotMissingChannels"));
    missing_->setWordWrap(true);
    missing_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    missing_->setStyleSheet(QStringLiteral("QLabel { color: #a15c00; padding: 2px 6px; }"));
    missing_->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(missing_);
    layout->addWidget(view_);
}

QString PlotWidget::missingChannels() const {
    return missing_->text();
}

void PlotWidget::setChannels(const QStringList& names, const QString& x) {
    channels_ = names;
    x_ = x;
    missingFor_ = nullptr;
    missing_->clear();
    missing_->hide();
    for (QLineSeries* series : curves_) {
        chart_->removeSeries(series);
        delete series;
    }
    for (QLineSeries* series : previous_) {
        chart_->removeSeries(series);
        delete series;
    }
    curves_.clear();
    previous_.clear();
    times_.assign(static_cast<std::size_t>(names.size()), {});
    for (const QString& name : names) {
        auto* series = new QLineSeries;
        series->setName(name);
        // Round caps and joins: the segments Qt Charts draws one by one meet without corners.
        series->setPen(QPen(curveColour(static_cast<int>(curves_.size())), 2.0, Qt::SolidLine,
                            Qt::RoundCap, Qt::RoundJoin));
        chart_->addSeries(series);
        series->attachAxis(xAxis_);
        series->attachAxis(valueAxis_);
        curves_.push_back(series);
    }
    // The previous run's curves: the same colours, dashed, no legend entry of their own.
    for (QLineSeries* current : curves_) {
        auto* series = new QLineSeries;
        QPen pen(current->color().lighter(125), 1.5, Qt::DashLine);
        series->setPen(pen);
        series->setName(current->name() + tr(" (previous run)"));
        chart_->addSeries(series);
        series->attachAxis(xAxis_);
        series->attachAxis(valueAxis_);
        for (QLegendMarker* marker : chart_->legend()->markers(series)) marker->setVisible(false);
        series->setVisible(false);
        previous_.push_back(series);
    }
    xAxis_->setTitleText(x_.isEmpty() ? tr("time [s]") : x_);
    zoomed_ = false;
}

QString PlotWidget::title() const {
    if (channels_.isEmpty()) return tr("(empty)");
    // "pivotA.Fx, pivotA.Fy" → "pivotA Fx, Fy"
    const QString first = channels_.front().section(QLatin1Char('.'), 0, 0);
    QStringList quantities;
    QString text;
    for (const QString& c : channels_) {
        if (c.section(QLatin1Char('.'), 0, 0) != first) {
            text = channels_.join(QStringLiteral(", "));
            break;
        }
        quantities << c.section(QLatin1Char('.'), 1);
    }
    if (text.isEmpty()) text = first + QLatin1Char(' ') + quantities.join(QStringLiteral(", "));
    if (x_.isEmpty()) return text;
    // "coupler.y against coupler.x" → "coupler y vs x"
    if (x_.section(QLatin1Char('.'), 0, 0) == first && quantities.size() == channels_.size())
        return text + tr(" vs ") + x_.section(QLatin1Char('.'), 1);
    return text + tr(" vs ") + x_;
}

void PlotWidget::setHeading(const QString& heading) {
    heading_ = heading;
    chart_->setTitle(heading);
}

int PlotWidget::pointCount(int curve) const {
    if (curve < 0 || curve >= static_cast<int>(curves_.size())) return 0;
    return static_cast<int>(curves_[static_cast<std::size_t>(curve)]->count());
}

int PlotWidget::previousCurveCount() const {
    int n = 0;
    for (QLineSeries* series : previous_)
        if (series->isVisible() && series->count() > 0) ++n;
    return n;
}

double PlotWidget::tickInterval(bool vertical) const {
    return (vertical ? valueAxis_ : xAxis_)->tickInterval();
}

void PlotWidget::refresh(const engine::Recording* recording, double cursorTime) {
    recording_ = recording;
    cursorTime_ = cursorTime;
    if (!recording) return;
    const engine::FrameLayout& layout = recording->layout();
    if (recording != missingFor_ || layout.channels().size() != missingChannelCount_) {
        // Said once per run: a curve of a channel the run does not record stays empty.
        missingFor_ = recording;
        missingChannelCount_ = layout.channels().size();
        std::vector<std::string> names;
        for (const QString& c : channels_) names.push_back(c.toStdString());
        const std::string text =
            engine::unknownPlotChannels(title().toStdString(), names, x_.toStdString(), layout);
        QString shown = QString::fromStdString(text);
        if (!shown.isEmpty()) shown[0] = shown[0].toUpper();
        missing_->setText(shown);
        missing_->setVisible(!text.empty());
    }
    const std::size_t frames = recording->size();
    const std::size_t stride = std::max<std::size_t>(1, (frames + kMaxPoints - 1) / kMaxPoints);
    const int xChannel = x_.isEmpty() ? -1 : layout.findChannel(x_.toStdString());
    double xLo = std::numeric_limits<double>::infinity(), xHi = -xLo;
    double lo = xLo, hi = -xLo;
    QStringList units;
    // A channel at every stride-th frame and the last one, so the curve reaches the end.
    const auto sample = [&](int channel, std::vector<double>& t, std::vector<double>& v) {
        recording->series(channel, 0, frames, stride, t, v);
        if (frames > 0 && (frames - 1) % stride != 0) {
            std::vector<double> t1, v1;
            recording->series(channel, frames - 1, frames, 1, t1, v1);
            t.insert(t.end(), t1.begin(), t1.end());
            v.insert(v.end(), v1.begin(), v1.end());
        }
    };
    const bool hasPrevious = recording->hasPrevious();
    const std::size_t previousStride = std::max<std::size_t>(
        1, (static_cast<std::size_t>(hasPrevious ? frames : 0) + kMaxPoints - 1) / kMaxPoints);
    std::vector<double> xTimes, xValues, previousXTimes, previousXValues;
    if (xChannel >= 0) {
        sample(xChannel, xTimes, xValues);
        if (hasPrevious)
            recording->previousSeries(xChannel, previousStride, previousXTimes, previousXValues);
    }
    const auto toPoints = [&](const std::vector<double>& t, const std::vector<double>& v,
                              const std::vector<double>& xs) {
        QList<QPointF> points;
        points.reserve(static_cast<qsizetype>(t.size()));
        for (std::size_t i = 0; i < t.size(); ++i) {
            const double x = xChannel >= 0 ? (i < xs.size() ? xs[i] : nan()) : t[i];
            points.append(QPointF(x, v[i]));
            if (std::isfinite(x) && std::isfinite(v[i])) {
                lo = std::min(lo, v[i]);
                hi = std::max(hi, v[i]);
                xLo = std::min(xLo, x);
                xHi = std::max(xHi, x);
            }
        }
        return points;
    };
    std::vector<double> times, values;
    for (std::size_t k = 0; k < curves_.size(); ++k) {
        const int channel = layout.findChannel(channels_[static_cast<int>(k)].toStdString());
        if (channel < 0 || (!x_.isEmpty() && xChannel < 0)) continue;
        sample(channel, times, values);
        curves_[k]->replace(toPoints(times, values, xValues));
        times_[k] = times;
        const QString unit =
            QString::fromStdString(layout.channels()[static_cast<std::size_t>(channel)].unit);
        if (!units.contains(unit)) units << unit;
        if (hasPrevious) {
            recording->previousSeries(channel, previousStride, times, values);
            previous_[k]->replace(toPoints(times, values, previousXValues));
        } else {
            previous_[k]->clear();
        }
        previous_[k]->setVisible(hasPrevious);
    }
    valueAxis_->setTitleText(axisTitle(units));
    if (xChannel >= 0) {
        const QString unit =
            QString::fromStdString(layout.channels()[static_cast<std::size_t>(xChannel)].unit);
        xAxis_->setTitleText(QStringLiteral("%1 [%2]").arg(x_, unit));
    }
    if (!zoomed_ && std::isfinite(lo)) {
        updating_ = true;
        if (xChannel < 0) {
            const double tEnd = frames ? recording->time(frames - 1) : 1.0;
            setRange(xAxis_, 0.0,
                     std::max({tEnd, hasPrevious ? recording->previousUntil() : 0.0, 1e-6}));
        } else {
            const double pad = xHi - xLo > 1e-12 ? 0.04 * (xHi - xLo) : 0.5;
            setRange(xAxis_, xLo - pad, xHi + pad);
            xAxis_->applyNiceNumbers();
        }
        // A flat curve (e.g. a reaction that stays zero) gets a readable range around it.
        const double spread = hi - lo;
        const double pad = spread > 1e-9 * std::max(1.0, std::abs(hi))
                               ? 0.05 * spread
                               : std::max(1.0, 0.1 * std::abs(hi));
        setRange(valueAxis_, lo - pad, hi + pad);
        valueAxis_->applyNiceNumbers();
        updating_ = false;
        updateTicks();
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
    if (x_.isEmpty()) {
        cursor_->replace(
            QList<QPointF>{{cursorTime_, valueAxis_->min()}, {cursorTime_, valueAxis_->max()}});
        cursorDots_->clear();
    } else {
        // The point of each curve at the last sample at or before the time.
        QList<QPointF> dots;
        for (std::size_t k = 0; k < curves_.size(); ++k) {
            const std::vector<double>& t = times_[k];
            const auto it = std::upper_bound(t.begin(), t.end(), cursorTime_ + 1e-12);
            if (it == t.begin()) continue;
            const auto i = static_cast<qsizetype>(it - t.begin()) - 1;
            if (i < curves_[k]->count()) dots.append(curves_[k]->at(i));
        }
        cursorDots_->replace(dots);
        cursor_->clear();
    }
    updating_ = wasUpdating;
}

void PlotWidget::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    updateTicks();
}

// The tick counts follow the widget's size, not the chart's plot area: the area depends on the
// tick labels' widths, and following it could make two steps chase each other for ever.
void PlotWidget::updateTicks() {
    for (QValueAxis* axis : {xAxis_, valueAxis_}) setTicks(axis, axis->min(), axis->max());
}

// At least three intervals, so that a short plot still has two or three values to read.
void PlotWidget::setTicks(QValueAxis* axis, double lo, double hi) {
    const bool vertical = axis == valueAxis_;
    const double pixels = vertical ? std::max(150, height() - 110) : std::max(300, width() - 90);
    const double step =
        niceTickStep(hi - lo, std::clamp(int(pixels / (vertical ? 32.0 : 90.0)), 3, 10));
    if (!(step > 0.0)) return;
    axis->setTickInterval(step);
    const int decimals = tickDecimals(step);
    axis->setLabelFormat(decimals > 6 ? QStringLiteral("%.4g")
                                      : QStringLiteral("%.%1f").arg(decimals));
}

// The tick interval is set for the new range first: Qt Charts lays the ticks out as soon as
// the range changes, and the old interval over a range a million times wider would be
// millions of ticks.
void PlotWidget::setRange(QValueAxis* axis, double lo, double hi) {
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo)) return;
    setTicks(axis, lo, hi);
    axis->setRange(lo, hi);
}

void PlotWidget::zoomAbout(const QPointF& position, double factor) {
    const QPointF at =
        chart_->mapToValue(chart_->mapFromScene(view_->mapToScene(position.toPoint())));
    const auto scale = [&](QValueAxis* axis, double centre) {
        if (!std::isfinite(centre)) centre = 0.5 * (axis->min() + axis->max());
        setRange(axis, centre + (axis->min() - centre) * factor,
                 centre + (axis->max() - centre) * factor);
    };
    scale(xAxis_, at.x());
    if (!x_.isEmpty()) scale(valueAxis_, at.y());  // x-y plots keep their aspect
}

double PlotWidget::timeAt(const QPointF& position) const {
    if (!recording_ || recording_->size() == 0) return nan();
    const QPointF inChart = chart_->mapFromScene(view_->mapToScene(position.toPoint()));
    if (x_.isEmpty()) {
        const double tEnd = recording_->time(recording_->size() - 1);
        return std::clamp(chart_->mapToValue(inChart).x(), 0.0, tEnd);
    }
    // x-y: the time of the sample drawn nearest to the pointer.
    double best = std::numeric_limits<double>::infinity(), time = nan();
    for (std::size_t k = 0; k < curves_.size(); ++k) {
        const QList<QPointF> points = curves_[k]->points();
        for (qsizetype i = 0; i < points.size() && i < qsizetype(times_[k].size()); ++i) {
            const QPointF d = chart_->mapToPosition(points[i], curves_[k]) - inChart;
            const double d2 = d.x() * d.x() + d.y() * d.y();
            if (d2 < best) {
                best = d2;
                time = times_[k][static_cast<std::size_t>(i)];
            }
        }
    }
    return time;
}

void PlotWidget::resetZoom() {
    zoomed_ = false;  // refresh sets the ranges of the whole run
    refresh(recording_, cursorTime_);
}

PlotPicture PlotWidget::picture(const QString& title) const {
    PlotPicture p;
    p.title = title;
    p.xLabel = xAxis_->titleText();
    p.yLabel = valueAxis_->titleText();
    p.xMin = xAxis_->min();
    p.xMax = xAxis_->max();
    p.yMin = valueAxis_->min();
    p.yMax = valueAxis_->max();
    bool anyPrevious = false;
    for (std::size_t k = 0; k < curves_.size(); ++k) {
        if (previous_[k]->isVisible() && previous_[k]->count() > 0) {
            p.curves.push_back({QString(), curves_[k]->color(), previous_[k]->points(), true});
            anyPrevious = true;
        }
    }
    for (QLineSeries* series : curves_)
        p.curves.push_back({series->name(), series->color(), series->points(), false});
    if (anyPrevious) p.curves.push_back({tr("previous run"), QColor(120, 120, 120), {}, true});
    return p;
}

bool PlotWidget::exportImage(const QString& path, const PlotExportOptions& options,
                             const QString& title, QString* error) const {
    const QString heading =
        !title.isEmpty() ? title : (!heading_.isEmpty() ? heading_ : this->title());
    return exportPlot(picture(heading), path, options, error);
}

bool PlotWidget::exportPng(const QString& path) const {
    return exportImage(path, {});
}

bool PlotWidget::exportSvg(const QString& path) const {
    return exportImage(path, {});
}

bool PlotWidget::exportCsv(const QString& path, QString* error) const {
    if (!recording_) {
        if (error) *error = tr("nothing recorded yet");
        return false;
    }
    const engine::FrameLayout& layout = recording_->layout();
    QStringList names = channels_;
    if (!x_.isEmpty()) names.prepend(x_);
    std::vector<int> columns;
    for (const QString& name : names) columns.push_back(layout.findChannel(name.toStdString()));
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
    for (const QString& name : names) text += ',' + name.toUtf8();
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
