#pragma once
// File ▸ Export: the recorded run as CSV (the motus-cli simulate column contract) or as a
// video, the plot in front as an image or CSV, every plot as a PDF report. Each writes
// atomically and says in Messages what it wrote or why it could not.

#include <QObject>
#include <QString>

#include "ui/mainwindow/window_parts.h"

class QAction;
class QMenu;

namespace ui {

struct VideoExportOptions;

class ExportActions : public QObject {
    Q_OBJECT

public:
    explicit ExportActions(const WindowParts& parts);

    // The export entries of the File menu.
    void createActions(QMenu* file);

    // Writes the recorded run as CSV (the motus-cli simulate column contract).
    bool exportRunCsv(const QString& path, QString* error = nullptr);
    // File ▸ Export Video…: the recorded run (the part `options` names) as a video, drawn off
    // screen from the recording as the 3D view shows it (its camera, the kinds of node it
    // shows), with a progress dialog whose Cancel stops it. Rendering runs on a worker thread
    // that owns its OpenGL context; the window stays responsive. False with the reason when no
    // file was written (nothing recorded, cancelled, an error): then nothing is left on the
    // disk and a file of that name is as it was.
    bool exportVideo(const VideoExportOptions& options, QString* error = nullptr);
    // A PDF of every plot, headed by the scene's name and the run's length.
    bool exportPlotsReport(const QString& path, QString* error = nullptr);

private:
    void exportRunCsvWithDialog();
    void exportVideoWithDialog();
    void exportPlotWithDialog();
    void exportPlotsReportWithDialog();

    WindowParts parts_;
    QAction* exportVideoAction_ = nullptr;
};

}  // namespace ui
