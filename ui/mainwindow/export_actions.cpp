#include "ui/mainwindow/export_actions.h"

#include <atomic>
#include <sstream>
#include <thread>

#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QProgressDialog>
#include <QSaveFile>
#include <QSettings>
#include <QSpinBox>
#include <QTimer>

#include "engine/io/csv_export.h"
#include "engine/model/scene_spec.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "ui/common/text.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/messages_panel.h"
#include "ui/mainwindow/video_export_dialog.h"
#include "ui/plots/plot_widget.h"
#include "ui/plots/plots_panel.h"
#include "ui/render/video_export.h"
#include "ui/session/simulation_session.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {

ExportActions::ExportActions(const WindowParts& parts) : QObject(parts.window), parts_(parts) {}

void ExportActions::createActions(QMenu* file) {
    file->addAction(tr("Export Run as &CSV…"), this, &ExportActions::exportRunCsvWithDialog);
    exportVideoAction_ =
        file->addAction(tr("Export &Video…"), this, &ExportActions::exportVideoWithDialog);
    exportVideoAction_->setObjectName(QStringLiteral("FileExportVideo"));
    exportVideoAction_->setStatusTip(tr("Write the recorded run as an MP4 or WebM video"));
    // Only a recorded run can be filmed (more than the start frame).
    connect(file, &QMenu::aboutToShow, this, [this] {
        const engine::Recording* recording = parts_.session->recording();
        exportVideoAction_->setEnabled(recording && recording->size() > recording->first() + 1);
    });
    file->addAction(tr("Export &Plot…"), this, &ExportActions::exportPlotWithDialog);
    file->addAction(tr("Export Plots &Report (PDF)…"), this,
                    &ExportActions::exportPlotsReportWithDialog);
}

void ExportActions::exportPlotsReportWithDialog() {
    if (parts_.plots->plotCount() == 0) {
        parts_.messages->add(MessageSeverity::Warning,
                             tr("There is no plot to put in a report: right-click a "
                                "joint or part to plot it."));
        return;
    }
    const QString path = QFileDialog::getSaveFileName(parts_.window, tr("Export Plots Report"),
                                                      QString(), tr("PDF (*.pdf)"));
    if (path.isEmpty()) return;
    exportPlotsReport(path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive)
                          ? path
                          : path + QStringLiteral(".pdf"));
}

bool ExportActions::exportRunCsv(const QString& path, QString* error) {
    const engine::Recording* recording = parts_.session->recording();
    const auto snap = parts_.session->snapshot();
    if (!recording || !snap) {
        if (error) *error = tr("nothing has been simulated");
        return false;
    }
    std::ostringstream text;
    engine::io::CsvWriter csv(*snap->model, text);
    csv.writeHeader();
    for (std::size_t k = 0; k < recording->size(); ++k) {
        engine::State state;
        engine::Outputs outputs;
        recording->read(k, state, outputs);
        csv.writeRow(state, outputs);
    }
    QSaveFile file(path);  // temporary file renamed on commit: all or nothing
    if (!file.open(QIODevice::WriteOnly)) {
        if (error) *error = file.errorString();
        return false;
    }
    file.write(QByteArray::fromStdString(text.str()));
    if (!file.commit()) {
        if (error) *error = file.errorString();
        return false;
    }
    return true;
}

void ExportActions::exportRunCsvWithDialog() {
    if (!parts_.session->active()) return;
    const QString path = QFileDialog::getSaveFileName(parts_.window, tr("Export Run as CSV"),
                                                      QString(), tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    QString error;
    if (exportRunCsv(path, &error))
        parts_.messages->add(MessageSeverity::Info, tr("Exported the run to %1").arg(path));
    else
        parts_.messages->add(MessageSeverity::Error,
                             tr("Could not export the run (%1): %2").arg(path, error));
}

bool ExportActions::exportVideo(const VideoExportOptions& requested, QString* error) {
    const engine::Recording* recording = parts_.session->recording();
    const auto snap = parts_.session->snapshot();
    if (!recording || !snap || !parts_.document->scene() ||
        recording->size() <= recording->first() + 1) {
        if (error) *error = tr("nothing has been simulated: run the scene first");
        return false;
    }
    if (const std::string problem = videoOptionsProblem(requested); !problem.empty()) {
        if (error) *error = QString::fromStdString(problem);
        return false;
    }
    // The 3D view's camera and what it shows; the frames' poses read here, on the GUI thread,
    // so the worker needs nothing that the session may change.
    VideoExportOptions options = requested;
    RenderCamera camera;
    double eye[3], centre[3], up[3];
    parts_.viewport->cameraView(eye, centre, up, camera.fovyDeg, options.cullMask);
    camera.eye = engine::Vec3(eye[0], eye[1], eye[2]);
    camera.centre = engine::Vec3(centre[0], centre[1], centre[2]);
    camera.up = engine::Vec3(up[0], up[1], up[2]);
    options.camera = camera;
    const std::vector<ShownFrame> frames = videoFrames(*snap->model, *recording, options);
    const engine::SceneSpec spec = *parts_.document->scene();

    QProgressDialog progress(
        tr("Rendering %1…").arg(QFileInfo(QString::fromStdString(options.path)).fileName()),
        tr("Cancel"), 0, static_cast<int>(frames.size()), parts_.window);
    progress.setObjectName(QStringLiteral("VideoExportProgress"));
    progress.setWindowTitle(tr("Export Video"));
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(0);
    progress.setValue(0);
    std::atomic<int> done{0};
    std::atomic<bool> cancelled{false}, finished{false};
    VideoExportResult result;
    std::thread worker([&] {
        result = ui::exportVideo(spec, frames, options, [&](int count, int) {
            done = count;
            return !cancelled;
        });
        finished = true;
    });
    // The window's events go on while the worker renders; the dialog follows it.
    QEventLoop loop;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (progress.wasCanceled()) cancelled = true;
        if (finished) {
            loop.quit();
            return;
        }
        progress.setValue(done);
    });
    poll.start(30);
    loop.exec();
    worker.join();
    progress.reset();
    switch (result.outcome) {
    case VideoExportResult::Outcome::Written:
        return true;
    case VideoExportResult::Outcome::Cancelled:
        if (error) *error = tr("cancelled: no video was written");
        return false;
    case VideoExportResult::Outcome::Failed:
        break;
    }
    if (error) *error = QString::fromStdString(result.error);
    return false;
}

void ExportActions::exportVideoWithDialog() {
    const engine::Recording* recording = parts_.session->recording();
    if (!recording || recording->size() <= recording->first() + 1) {
        QMessageBox::information(parts_.window, tr("Export Video"),
                                 tr("Nothing is recorded yet: run the simulation first (Simulate "
                                    "▸ Play or Run to…), then export the run as a video."));
        return;
    }
    const qreal dpr = parts_.viewport->devicePixelRatioF();
    VideoExportDialog dialog(parts_.viewport->size() * dpr, recording->time(recording->first()),
                             recording->time(recording->size() - 1), parts_.window);
    if (!parts_.document->path().isEmpty())
        dialog.setPath(QFileInfo(parts_.document->path())
                           .dir()
                           .filePath(QFileInfo(parts_.document->path()).completeBaseName() +
                                     QStringLiteral(".mp4")));
    if (dialog.exec() != QDialog::Accepted) return;
    const VideoExportOptions options = dialog.options();
    const QString path = QString::fromStdString(options.path);
    QString error;
    if (exportVideo(options, &error))
        parts_.messages->add(MessageSeverity::Info,
                             tr("Exported the run as a video to %1").arg(path));
    else
        parts_.messages->add(MessageSeverity::Error,
                             tr("Could not export the video (%1): %2").arg(path, error));
}

void ExportActions::exportPlotWithDialog() {
    PlotWidget* plot = parts_.plots->currentPlot();
    if (!plot) {
        parts_.messages->add(
            MessageSeverity::Warning,
            tr("There is no plot to export: right-click a joint or part to plot it."));
        return;
    }
    QString filter;
    QString path = QFileDialog::getSaveFileName(
        parts_.window, tr("Export Plot"), QString(),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf);;CSV data (*.csv)"),
        &filter);
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty())
        path += filter.contains(QLatin1String("*.svg"))   ? QStringLiteral(".svg")
                : filter.contains(QLatin1String("*.pdf")) ? QStringLiteral(".pdf")
                : filter.contains(QLatin1String("*.csv")) ? QStringLiteral(".csv")
                                                          : QStringLiteral(".png");
    QString error;
    bool ok = false;
    if (path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive)) {
        ok = plot->exportCsv(path, &error);
    } else {
        // Title, size and resolution, remembered from the last export.
        QSettings settings;
        QDialog dialog(parts_.window);
        dialog.setWindowTitle(tr("Export Plot"));
        auto* title = new QLineEdit(parts_.plots->titleOf(plot));
        auto* width = new QSpinBox;
        auto* height = new QSpinBox;
        for (QSpinBox* box : {width, height}) {
            box->setRange(64, 20000);
            box->setSuffix(tr(" px"));
        }
        width->setValue(settings.value(QStringLiteral("plotExport/width"), 1600).toInt());
        height->setValue(settings.value(QStringLiteral("plotExport/height"), 900).toInt());
        auto* dpi = new QSpinBox;
        dpi->setRange(24, 2400);
        dpi->setSuffix(tr(" dpi"));
        dpi->setValue(settings.value(QStringLiteral("plotExport/dpi"), 150).toInt());
        dpi->setToolTip(
            tr("Text and lines keep their printed size: 150 dpi at 1600 px wide is "
               "a plot 27 cm wide"));
        auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
        connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
        connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
        auto* form = new QFormLayout(&dialog);
        form->addRow(tr("Title:"), title);
        form->addRow(tr("Width:"), width);
        form->addRow(tr("Height:"), height);
        form->addRow(tr("Resolution:"), dpi);
        form->addRow(buttons);
        if (dialog.exec() != QDialog::Accepted) return;
        settings.setValue(QStringLiteral("plotExport/width"), width->value());
        settings.setValue(QStringLiteral("plotExport/height"), height->value());
        settings.setValue(QStringLiteral("plotExport/dpi"), dpi->value());
        PlotExportOptions options;
        options.pixels = QSize(width->value(), height->value());
        options.dpi = dpi->value();
        ok = plot->exportImage(path, options, title->text(), &error);
    }
    parts_.messages->add(ok ? MessageSeverity::Info : MessageSeverity::Error,
                         ok ? tr("Exported the plot to %1").arg(path)
                            : tr("Could not export the plot (%1): %2").arg(path, error));
}

bool ExportActions::exportPlotsReport(const QString& path, QString* error) {
    // Heading: the scene and the run shown.
    QString heading = parts_.document->scene() && !parts_.document->scene()->name.empty()
                          ? toQString(parts_.document->scene()->name)
                          : tr("Motus");
    if (const engine::Recording* recording = parts_.session->recording();
        recording && recording->size())
        heading += tr(" — run to %1 s").arg(recording->time(recording->size() - 1), 0, 'g', 4);
    QString why;
    const bool ok = parts_.plots->exportReport(path, heading, &why);
    parts_.messages->add(
        ok ? MessageSeverity::Info : MessageSeverity::Error,
        ok ? tr("Exported %1 plots to the report %2").arg(parts_.plots->plotCount()).arg(path)
           : tr("Could not export the plots report (%1): %2").arg(path, why));
    if (error) *error = why;
    return ok;
}

}  // namespace ui
