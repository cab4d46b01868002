#pragma once
// The plots dock: PlotWidgets over the running simulation's recording, as tabs or side by
// side in a grid. Curves refresh at about 10 Hz while the run goes on; cursors follow the
// timeline on every snapshot; clicking in a plot moves the timeline there.

#include <vector>

#include <QString>
#include <QStringList>
#include <QTimer>
#include <QWidget>

class QGridLayout;
class QLabel;
class QScrollArea;
class QTabWidget;
class QToolButton;

namespace ui {

class PlotWidget;
class SimulationSession;

// What a scene file keeps of a plot.
struct PlotEntry {
    QString title;
    QStringList channels;
    QString x;  // the horizontal axis' channel, empty for time
};

class PlotsPanel : public QWidget {
    Q_OBJECT

public:
    explicit PlotsPanel(SimulationSession* session, QWidget* parent = nullptr);

    // The most curves one plot draws, and the most plots the panel holds: beyond them a plot
    // (a scene file can name any number) would freeze the window and show nothing readable.
    static constexpr int kMaxCurves = 24;
    static constexpr int kMaxPlots = 64;
    // Adds a plot of these channels (against channel `x`, or time) and shows it, titled
    // `title` (default: from its channels). Only its first kMaxCurves channels are drawn;
    // beyond kMaxPlots plots none is added (null).
    PlotWidget* addPlot(const QStringList& channels, const QString& title = QString(),
                        const QString& x = QString());
    // Every plot, in order (what a scene file keeps).
    std::vector<PlotEntry> plots() const;
    PlotWidget* plot(int index) const;
    PlotWidget* currentPlot() const;
    QString titleOf(const PlotWidget* plot) const;
    int plotCount() const;
    void removePlot(int index);
    void clear();

    // Side by side: every plot at once in a grid of two columns; otherwise one tab each.
    void setSideBySide(bool sideBySide);
    bool sideBySide() const { return sideBySide_; }

    // A PDF report of every plot, headed by `heading`.
    bool exportReport(const QString& path, const QString& heading, QString* error) const;

    // Asks the user for channels (filterable list of the recording's channels) and for the
    // horizontal axis (time or another channel).
    void addPlotWithPicker();

signals:
    void plotAdded(PlotWidget* plot);

private:
    void relayout();
    void refreshAll();
    void moveCursors();
    void seek(double time);

    struct Entry {
        PlotWidget* plot;
        QString title;
    };
    SimulationSession* session_;
    std::vector<Entry> plots_;
    QTabWidget* tabs_;
    QScrollArea* scroll_;
    QWidget* grid_;
    QGridLayout* gridLayout_;
    QToolButton* sideBySideButton_;
    QLabel* staleNote_;  // shown while the run is stale (SimulationSession::markStale)
    bool sideBySide_ = false;
    QTimer refresh_;
};

}  // namespace ui
