#pragma once
// The plots dock: tabs of PlotWidgets over the running simulation's recording. Curves refresh
// at about 10 Hz while the run goes on; cursors follow the timeline on every snapshot.

#include <utility>
#include <vector>

#include <QStringList>
#include <QTimer>
#include <QWidget>

class QTabWidget;

namespace ui {

class PlotWidget;
class SimulationSession;

class PlotsPanel : public QWidget {
    Q_OBJECT

public:
    explicit PlotsPanel(SimulationSession* session, QWidget* parent = nullptr);

    // Adds a plot of these channels and shows it, titled `title` (default: from its channels).
    PlotWidget* addPlot(const QStringList& channels, const QString& title = QString());
    // Every plot's tab title and channels, in tab order (what a scene file keeps).
    std::vector<std::pair<QString, QStringList>> plots() const;
    PlotWidget* currentPlot() const;
    int plotCount() const;
    void clear();

    // Asks the user for channels (filterable list of the recording's channels).
    void addPlotWithPicker();

private:
    void refreshAll();
    void moveCursors();

    SimulationSession* session_;
    QTabWidget* tabs_;
    QTimer refresh_;
};

}  // namespace ui
