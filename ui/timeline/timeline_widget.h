#pragma once
// The timeline: transport buttons (reset, step, play/pause), speed factor, a slider over the
// recorded frames that scrubs instantly (the 3D view follows), the current time, the recorded
// and the previous run's range (after a re-run), and the real-time factor. The slider has a
// small tick at each sensor's crossing, named in its tooltip.

#include <QWidget>

class QComboBox;
class QLabel;
class QSlider;
class QToolButton;

namespace ui {

class SimulationSession;

class TimelineWidget : public QWidget {
    Q_OBJECT

public:
    explicit TimelineWidget(SimulationSession* session, QWidget* parent = nullptr);

    QSlider* slider() const { return slider_; }
    QToolButton* playButton() const { return play_; }
    QLabel* timeLabel() const { return time_; }
    // What the timeline says when there is no run (e.g. why the scene cannot run); empty:
    // "no simulation".
    void setIdleText(const QString& text);
    // The kind of analysis the run is (Dynamics, Kinematics, Inverse dynamics), always shown.
    void setAnalysis(const QString& name);
    QLabel* noteLabel() const { return note_; }

signals:
    // The reset button: the window decides (it asks before a recorded run is dropped, and
    // starts an edited scene over).
    void resetRequested();

private:
    void refresh();

    SimulationSession* session_;
    QToolButton* reset_;
    QToolButton* step_;
    QToolButton* play_;
    QToolButton* loop_;
    QComboBox* speed_;
    QSlider* slider_;
    QLabel* time_;
    QLabel* rate_;
    QLabel* analysis_;
    QLabel* note_;  // a stale run, said in words
    QString idleText_;
};

}  // namespace ui
