#include "ui/timeline/timeline_widget.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QPainter>
#include <QSlider>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QToolButton>
#include <QToolTip>

#include "engine/model/model.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "ui/session/simulation_session.h"

namespace ui {
namespace {

// The slider over the recorded frames, with a small tick at each sensor's crossing (its name
// and instant the tick's tooltip). The marks are also its "marks" property ("name@time"), for
// tests and scripting.
class MarkedSlider : public QSlider {
public:
    MarkedSlider() : QSlider(Qt::Horizontal) {}

    // The crossings (sensor, time) on a run recorded from `start` to `end` s.
    void setMarks(std::vector<std::pair<std::string, double>> marks, double start, double end) {
        if (marks == marks_ && start == start_ && end == end_) return;
        marks_ = std::move(marks);
        start_ = start;
        end_ = end;
        QStringList text;
        for (const auto& [name, time] : marks_)
            text << QStringLiteral("%1@%2").arg(QString::fromStdString(name)).arg(time, 0, 'g', 9);
        setProperty("marks", text);
        update();
    }

protected:
    void paintEvent(QPaintEvent* event) override {
        QSlider::paintEvent(event);
        if (marks_.empty()) return;
        QPainter p(this);
        p.setPen(QPen(QColor(0xd0, 0x40, 0x30), 2));
        const QRect groove = grooveRect();
        for (const auto& mark : marks_) {
            const int x = xOf(mark.second);
            p.drawLine(x, groove.top() - 3, x, groove.top() + 2);
            p.drawLine(x, groove.bottom() - 2, x, groove.bottom() + 3);
        }
    }

    bool event(QEvent* event) override {
        if (event->type() == QEvent::ToolTip && !marks_.empty()) {
            // Over a tick: the crossings there, by name and instant.
            const QPoint at = static_cast<QHelpEvent*>(event)->pos();
            QStringList lines;
            for (const auto& [name, time] : marks_)
                if (std::abs(xOf(time) - at.x()) <= 4)
                    lines << tr("sensor '%1' at t = %2 s")
                                 .arg(QString::fromStdString(name))
                                 .arg(time, 0, 'f', 4);
            if (!lines.isEmpty()) {
                QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(),
                                   lines.join(QLatin1Char('\n')), this);
                return true;
            }
        }
        return QSlider::event(event);
    }

private:
    QRect grooveRect() const {
        QStyleOptionSlider option;
        initStyleOption(&option);
        return style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderGroove, this);
    }
    // Where the handle's centre stands at `time` (the frames taken as evenly spaced in time).
    int xOf(double time) const {
        QStyleOptionSlider option;
        initStyleOption(&option);
        const QRect groove =
            style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderGroove, this);
        const QRect handle =
            style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderHandle, this);
        const int span = groove.width() - handle.width();
        const double f =
            end_ > start_ ? std::clamp((time - start_) / (end_ - start_), 0.0, 1.0) : 0.0;
        return groove.left() + handle.width() / 2 + static_cast<int>(std::lround(f * span));
    }

    std::vector<std::pair<std::string, double>> marks_;
    double start_ = 0.0, end_ = 0.0;
};

}  // namespace

TimelineWidget::TimelineWidget(SimulationSession* session, QWidget* parent)
    : QWidget(parent), session_(session) {
    setObjectName(QStringLiteral("Timeline"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 2, 6, 2);

    auto button = [&](QStyle::StandardPixmap icon, const QString& tip) {
        auto* b = new QToolButton;
        b->setIcon(style()->standardIcon(icon));
        b->setToolTip(tip);
        b->setAutoRaise(true);
        layout->addWidget(b);
        return b;
    };
    reset_ = button(QStyle::SP_MediaSkipBackward, tr("Reset to t = 0"));
    play_ = button(QStyle::SP_MediaPlay, tr("Play / pause (Space)"));
    play_->setObjectName(QStringLiteral("PlayButton"));
    step_ = button(QStyle::SP_MediaSeekForward, tr("Step one output"));
    connect(reset_, &QToolButton::clicked, this, &TimelineWidget::resetRequested);
    connect(play_, &QToolButton::clicked, session_, &SimulationSession::togglePlay);
    connect(step_, &QToolButton::clicked, session_, &SimulationSession::step);
    loop_ =
        button(QStyle::SP_BrowserReload, tr("Loop playback: replay the recorded run from the start "
                                            "at its end (computes nothing new)"));
    loop_->setObjectName(QStringLiteral("LoopButton"));
    loop_->setCheckable(true);
    loop_->setChecked(session_->loop());
    connect(loop_, &QToolButton::toggled, session_, &SimulationSession::setLoop);
    connect(session_, &SimulationSession::loopChanged, loop_, &QToolButton::setChecked);

    analysis_ = new QLabel(tr("Dynamics"));
    analysis_->setObjectName(QStringLiteral("TimelineAnalysis"));
    analysis_->setToolTip(tr("What Play and Run to compute (Simulate ▸ Analysis changes it)"));
    analysis_->setStyleSheet(QStringLiteral("QLabel { font-weight: bold; padding: 0 4px; }"));
    layout->addWidget(analysis_);

    speed_ = new QComboBox;
    speed_->setToolTip(tr("Playback speed (simulated seconds per second)"));
    for (double factor : {0.01, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 100.0})
        speed_->addItem(QStringLiteral("%1×").arg(factor), factor);
    speed_->setCurrentIndex(4);
    connect(speed_, &QComboBox::currentIndexChanged, this,
            [this](int index) { session_->setSpeed(speed_->itemData(index).toDouble()); });
    layout->addWidget(speed_);

    slider_ = new MarkedSlider;
    slider_->setObjectName(QStringLiteral("TimelineSlider"));
    slider_->setToolTip(tr("Drag to look at any recorded moment"));
    slider_->setRange(0, 0);
    connect(slider_, &QSlider::sliderMoved, session_, &SimulationSession::seekFrame);
    connect(slider_, &QSlider::actionTriggered, this, [this](int action) {
        // Clicks on the groove and arrow keys also scrub.
        if (action != QAbstractSlider::SliderMove) session_->seekFrame(slider_->sliderPosition());
    });
    layout->addWidget(slider_, 1);

    note_ = new QLabel;
    note_->setObjectName(QStringLiteral("TimelineNote"));
    note_->setStyleSheet(QStringLiteral(
        "QLabel { background: #fff3cd; color: #5c3b00; padding: 1px 6px; border-radius: 3px; }"));
    note_->hide();
    layout->addWidget(note_);

    time_ = new QLabel;
    time_->setObjectName(QStringLiteral("TimelineTime"));
    time_->setMinimumWidth(220);
    layout->addWidget(time_);
    rate_ = new QLabel;
    rate_->setMinimumWidth(90);
    rate_->setToolTip(tr("Real-time factor: simulated seconds per wall-clock second"));
    layout->addWidget(rate_);

    connect(session_, &SimulationSession::snapshotChanged, this, &TimelineWidget::refresh);
    connect(session_, &SimulationSession::staleChanged, this, &TimelineWidget::refresh);
    refresh();
}

void TimelineWidget::setIdleText(const QString& text) {
    idleText_ = text;
    refresh();
}

void TimelineWidget::setAnalysis(const QString& name) {
    analysis_->setText(name);
}

void TimelineWidget::refresh() {
    const auto snap = session_->snapshot();
    const engine::Recording* recording = session_->recording();
    const bool active = snap && recording;
    for (QWidget* w : std::initializer_list<QWidget*>{reset_, play_, step_, speed_, slider_})
        w->setEnabled(active);
    note_->setVisible(active && session_->stale());
    note_->setText(tr("stale run"));
    note_->setToolTip(session_->staleReason());
    if (!active) {
        time_->setText(idleText_.isEmpty() ? tr("no simulation") : idleText_);
        time_->setToolTip(idleText_);
        rate_->clear();
        static_cast<MarkedSlider*>(slider_)->setMarks({}, 0.0, 0.0);
        return;
    }
    time_->setToolTip(QString());
    const bool running = snap->mode != engine::RunMode::Paused;
    play_->setIcon(style()->standardIcon(running ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));

    const int frames = static_cast<int>(recording->size());
    slider_->setRange(0, std::max(0, frames - 1));
    if (!slider_->isSliderDown()) {
        const QSignalBlocker block(slider_);
        slider_->setValue(static_cast<int>(snap->frame));
    }
    const double end = frames > 0 ? recording->time(static_cast<std::size_t>(frames - 1)) : 0.0;
    // The sensors' crossings so far, a tick each on the slider.
    static_cast<MarkedSlider*>(slider_)->setMarks(snap->statistics.sensorEvents,
                                                  frames > 0 ? recording->time(0) : 0.0, end);
    QString text = tr("t = %1 s  of %2 s").arg(snap->time, 0, 'f', 3).arg(end, 0, 'f', 3);
    if (snap->model && snap->model->settings.endTime > 0.0)
        text += tr("  · ends at %1 s").arg(snap->model->settings.endTime, 0, 'g', 6);
    if (recording->hasPrevious())
        text += tr("  · previous run %1–%2 s")
                    .arg(recording->previousFrom(), 0, 'f', 3)
                    .arg(recording->previousUntil(), 0, 'f', 3);
    time_->setText(text);
    rate_->setText(running && snap->statistics.realTimeFactor > 0
                       ? tr("%1× real time").arg(snap->statistics.realTimeFactor, 0, 'g', 3)
                       : QString());
}

}  // namespace ui
