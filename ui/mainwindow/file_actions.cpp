#include "ui/mainwindow/file_actions.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>

#include "engine/import/robot_import.h"
#include "engine/io/run_file.h"
#include "engine/io/scene_json.h"
#include "engine/model/scene_spec.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "ui/analysis/modes_panel.h"
#include "ui/common/text.h"
#include "ui/document/recovery.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/cad_import.h"
#include "ui/mainwindow/messages_panel.h"
#include "ui/mainwindow/robot_import_dialog.h"
#include "ui/mainwindow/run_control.h"
#include "ui/plots/plots_panel.h"
#include "ui/session/simulation_session.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {
namespace {

constexpr int kMaxRecentFiles = 8;

}  // namespace

FileActions::FileActions(const WindowParts& parts)
    : QObject(parts.window), parts_(parts), cad_(new CadImport(parts, this)) {}

const engine::SceneSpec* FileActions::scene() const {
    return parts_.document->scene();
}

void FileActions::createActions(QMenu* file) {
    QAction* newAction = file->addAction(tr("&New"), this, [this] {
        if (maybeSave()) newScene();
    });
    newAction->setObjectName(QStringLiteral("FileNew"));
    newAction->setShortcut(QKeySequence::New);
    QAction* open = file->addAction(tr("&Open…"), this, &FileActions::openWithDialog);
    open->setObjectName(QStringLiteral("FileOpen"));
    open->setShortcut(QKeySequence::Open);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    QAction* save = file->addAction(tr("&Save"), this, &FileActions::save);
    save->setObjectName(QStringLiteral("FileSave"));
    save->setShortcut(QKeySequence::Save);
    file->addAction(tr("Save &As…"), this, &FileActions::saveWithDialog)
        ->setShortcut(QKeySequence::SaveAs);
    file->addSeparator();
    QAction* importAction =
        file->addAction(tr("&Import Robot…"), this, &FileActions::importWithDialog);
    importAction->setObjectName(QStringLiteral("FileImportRobot"));
    importAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    QAction* cadAction = file->addAction(tr("Import &CAD…"), cad_, &CadImport::importWithDialog);
    cadAction->setObjectName(QStringLiteral("FileImportCad"));
    cadAction->setStatusTip(
        tr("A STEP assembly as parts with exact mass properties, joined by the joints its "
           "geometry suggests; or a changed file read again into its scene"));
    file->addAction(tr("Open R&un…"), this, &FileActions::openRunWithDialog);
    file->addAction(tr("Save Ru&n As…"), this, &FileActions::saveRunWithDialog);
}

void FileActions::importWithDialog() {
    if (!maybeSave()) return;
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        parts_.window, tr("Import Robot"),
        settings.value(QStringLiteral("robotImport/folder")).toString(),
        tr("Robot descriptions (*.urdf *.xml *.mjcf *.sdf *.world);;URDF (*.urdf *.xml);;"
           "MJCF: MuJoCo (*.xml *.mjcf);;SDF: Gazebo (*.sdf *.world);;All files (*)"));
    if (path.isEmpty()) return;
    settings.setValue(QStringLiteral("robotImport/folder"), QFileInfo(path).absolutePath());
    RobotImportDialog dialog(path, parts_.window);
    if (dialog.exec() != QDialog::Accepted) return;
    dialog.remember();
    importRobot(path, dialog.options());
}

void FileActions::openRunWithDialog() {
    if (!maybeSave()) return;
    const QString path = QFileDialog::getOpenFileName(parts_.window, tr("Open Run"), QString(),
                                                      tr("Motus runs (*.motusrun)"));
    if (!path.isEmpty()) openRun(path);
}

void FileActions::saveRunWithDialog() {
    const QString path = QFileDialog::getSaveFileName(parts_.window, tr("Save Run"), QString(),
                                                      tr("Motus runs (*.motusrun)"));
    if (!path.isEmpty())
        saveRun(path.endsWith(QLatin1String(".motusrun")) ? path
                                                          : path + QStringLiteral(".motusrun"));
}

void FileActions::newScene() {
    auto spec = std::make_unique<engine::SceneSpec>();  // no name: the file's name is its title
    engine::Part ground;
    ground.id = spec->newId();
    ground.name = "ground";
    ground.ground = true;
    spec->parts.push_back(ground);
    showDocument(std::move(spec), QString(), tr("Untitled"));
    parts_.viewport->setStandardView(ViewportWidget::StandardView::Front);
    parts_.messages->add(
        MessageSeverity::Info,
        tr("New scene, seen from the front: place parts from the toolbar (click in the view), "
           "then connect them with joints."));
}

bool FileActions::openScene(const QString& path) {
    // A run file opened as a scene (File > Open, a recent file, the command line) opens as the run.
    {
        QFile file(path);
        if (file.open(QIODevice::ReadOnly) && file.read(8) == QByteArrayLiteral("MOTUSRUN"))
            return openRun(path);
    }
    const engine::io::SceneLoadResult result = engine::io::loadSceneFile(path.toStdString());
    const QString name = QFileInfo(path).fileName();
    // About the file being read, not the open document: no entity of it is named.
    parts_.messages->addFileDiagnostics(result.diagnostics, name);
    if (!result.scene) {
        parts_.messages->add(MessageSeverity::Error,
                             tr("Could not open %1; the current scene is unchanged.").arg(path));
        parts_.window->statusBar()->showMessage(tr("Could not open %1 — see Messages").arg(name));
        return false;
    }

    showDocument(std::make_unique<engine::SceneSpec>(*result.scene),
                 QFileInfo(path).absoluteFilePath(),
                 result.scene->name.empty() ? name : toQString(result.scene->name));
    parts_.messages->add(MessageSeverity::Info, tr("Opened %1").arg(parts_.document->path()));
    addRecentFile(parts_.document->path());
    return true;
}

// The plots on screen become part of the document (a scene file keeps them).
void FileActions::keepPlotsInScene() {
    if (!scene()) return;
    std::vector<engine::PlotSpec> plots;
    for (const PlotEntry& entry : parts_.plots->plots()) {
        engine::PlotSpec plot;
        plot.name = entry.title.toStdString();
        for (const QString& channel : entry.channels)
            plot.channels.push_back(channel.toStdString());
        plot.x = entry.x.toStdString();
        plots.push_back(std::move(plot));
    }
    parts_.document->setPlots(std::move(plots));
}

// The scene's plots, shown again; channels the run does not record are reported.
void FileActions::restorePlots() {
    if (!scene()) return;
    const engine::Recording* recording = parts_.session->recording();
    // Whatever a file holds, the window stays responsive: a few plots of a few curves each are
    // drawn, the rest said in one message per plot (a scene of 100,000 channels froze it).
    int shown = 0;
    for (const engine::PlotSpec& plot : scene()->plots) {
        if (shown == PlotsPanel::kMaxPlots) {
            parts_.messages->add(MessageSeverity::Warning,
                                 tr("The scene keeps %1 plots: the first %2 are shown.")
                                     .arg(scene()->plots.size())
                                     .arg(PlotsPanel::kMaxPlots));
            break;
        }
        // Channels the run does not record, each with the close names it has (a typo).
        if (recording) {
            QString unknown = toQString(
                engine::unknownPlotChannels(plot.name, plot.channels, plot.x, recording->layout()));
            if (!unknown.isEmpty()) {
                unknown[0] = unknown[0].toUpper();
                parts_.messages->add(MessageSeverity::Warning, unknown);
            }
        }
        if (plot.channels.size() > static_cast<std::size_t>(PlotsPanel::kMaxCurves))
            parts_.messages->add(MessageSeverity::Warning,
                                 tr("Plot '%1' names %2 channels: its first %3 are drawn.")
                                     .arg(toQString(plot.name))
                                     .arg(plot.channels.size())
                                     .arg(PlotsPanel::kMaxCurves));
        QStringList channels;
        for (std::size_t k = 0;
             k < plot.channels.size() && k < static_cast<std::size_t>(PlotsPanel::kMaxCurves); ++k)
            channels << toQString(plot.channels[k]);
        parts_.plots->addPlot(channels, toQString(plot.name), toQString(plot.x));
        ++shown;
    }
}

bool FileActions::saveSceneAs(const QString& path) {
    if (!scene()) {
        parts_.messages->add(MessageSeverity::Warning, tr("There is no scene to save."));
        return false;
    }
    keepPlotsInScene();
    std::string error;
    if (!parts_.document->save(path, error)) {
        parts_.messages->add(MessageSeverity::Error,
                             tr("Could not save %1: %2 (the scene is still open, unchanged)")
                                 .arg(path, QString::fromStdString(error)));
        return false;
    }
    parts_.messages->add(MessageSeverity::Info, tr("Saved %1").arg(parts_.document->path()));
    addRecentFile(parts_.document->path());
    return true;
}

bool FileActions::save() {
    if (!scene()) return false;
    if (parts_.document->path().isEmpty()) {
        const QString path = QFileDialog::getSaveFileName(parts_.window, tr("Save Scene As"),
                                                          QString(), tr("Motus scenes (*.json)"));
        if (path.isEmpty()) return false;
        return saveSceneAs(path.endsWith(QLatin1String(".json")) ? path
                                                                 : path + QStringLiteral(".json"));
    }
    return saveSceneAs(parts_.document->path());
}

bool FileActions::maybeSave() {
    if (!parts_.document->isModified()) return maybeKeepRun();
    const engine::Recording* recording = parts_.session->recording();
    const bool run = recording && recording->size() > 1 && !parts_.runs->runIsSaved();
    QMessageBox box(QMessageBox::Warning, tr("Save changes?"),
                    tr("“%1” has changes that are not saved.").arg(parts_.document->title()),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, parts_.window);
    box.setObjectName(QStringLiteral("SaveChangesDialog"));
    box.setInformativeText(run ? tr("Save them before going on? Discard loses them, and the "
                                    "recorded run with them.")
                               : tr("Save them before going on? Discard loses them."));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save:
        return save() && maybeKeepRun();  // the scene kept, the run is asked about
    case QMessageBox::Discard:
        return true;
    default:
        return false;
    }
}

// The recorded run goes with the document (New, Open, Import, Quit): a run the user has not
// saved, of more than its first frame, is not dropped without asking. It can be saved as a run
// file on the way (Save Run…), discarded, or the action cancelled.
bool FileActions::maybeKeepRun() {
    const engine::Recording* recording = parts_.session->recording();
    if (!recording || recording->size() <= 1 || parts_.runs->runIsSaved()) return true;
    const double from = recording->time(recording->first());
    const double until = recording->time(recording->size() - 1);
    QMessageBox box(QMessageBox::Question, tr("Keep the run?"),
                    tr("The recorded run of “%1” (%2–%3 s, %4 frames) is not saved.")
                        .arg(parts_.document->title())
                        .arg(from, 0, 'f', 3)
                        .arg(until, 0, 'f', 3)
                        .arg(recording->size() - recording->first()),
                    QMessageBox::NoButton, parts_.window);
    box.setObjectName(QStringLiteral("KeepRunQuestion"));
    box.setInformativeText(
        tr("Save it as a run file (File ▸ Open Run replays it, with its "
           "plots) before going on? Discard loses it."));
    QPushButton* keep = box.addButton(tr("Save Run…"), QMessageBox::AcceptRole);
    QPushButton* drop = box.addButton(tr("Discard Run"), QMessageBox::DestructiveRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(keep);
    box.exec();
    if (box.clickedButton() == drop) return true;
    if (box.clickedButton() != keep) return false;
    QString start = parts_.document->path().isEmpty()
                        ? QString()
                        : QFileInfo(parts_.document->path()).path() + QLatin1Char('/') +
                              QFileInfo(parts_.document->path()).completeBaseName() +
                              QStringLiteral(".motusrun");
    QString path = QFileDialog::getSaveFileName(parts_.window, tr("Save Run As"), start,
                                                tr("Motus runs (*.motusrun)"));
    if (path.isEmpty()) return false;
    if (!path.endsWith(QLatin1String(".motusrun"))) path += QStringLiteral(".motusrun");
    return saveRun(path);
}

bool FileActions::saveRun(const QString& path) {
    const engine::Recording* recording = parts_.session->recording();
    if (!scene() || !recording) {
        parts_.messages->add(MessageSeverity::Warning, tr("There is no run to save."));
        return false;
    }
    keepPlotsInScene();
    std::string error;
    if (!engine::io::saveRunFile(*scene(), *recording, path.toStdString(), error)) {
        parts_.messages->add(
            MessageSeverity::Error,
            tr("Could not save the run to %1: %2").arg(path, QString::fromStdString(error)));
        return false;
    }
    parts_.runs->noteRunSaved();
    parts_.messages->add(MessageSeverity::Info,
                         tr("Saved the run (%1 frames) to %2").arg(recording->size()).arg(path));
    return true;
}

bool FileActions::openRun(const QString& path) {
    std::string error;
    auto run = engine::io::loadRunFile(path.toStdString(), error);
    if (!run) {
        parts_.messages->add(MessageSeverity::Error,
                             tr("Could not open %1: %2; the current scene is unchanged.")
                                 .arg(path, QString::fromStdString(error)));
        return false;
    }
    auto spec = std::make_unique<engine::SceneSpec>(std::move(run->spec));
    const QString title =
        spec->name.empty() ? QFileInfo(path).fileName() : QString::fromStdString(spec->name);
    // A run is not a scene file: the document has none (Save As writes one).
    parts_.document->reset(std::move(spec), QString(), tr("%1 (run)").arg(title));
    if (const QString problem =
            parts_.runs->adoptRun(run->model, std::move(run->recording), *scene());
        !problem.isEmpty())
        parts_.messages->add(MessageSeverity::Error,
                             tr("Could not continue the run: %1").arg(problem));
    parts_.runs->noteRunSaved();  // as it is in its file
    restorePlots();
    parts_.messages->add(MessageSeverity::Info, tr("Opened the run %1").arg(path));
    return true;
}

void FileActions::saveWithDialog() {
    if (!scene()) return;
    const QString path = QFileDialog::getSaveFileName(
        parts_.window, tr("Save Scene As"), parts_.document->path(), tr("Motus scenes (*.json)"));
    if (!path.isEmpty())
        saveSceneAs(path.endsWith(QLatin1String(".json")) ? path : path + QStringLiteral(".json"));
}

void FileActions::showDocument(std::unique_ptr<engine::SceneSpec> spec, const QString& path,
                               const QString& title, bool unsavedWork) {
    parts_.document->reset(std::move(spec), path, title, unsavedWork);
    parts_.modes->clear();
    parts_.session->clear();
    parts_.runs->startRun(
        /*kinematic=*/false, tr("Dynamics"), [title](const engine::Diagnostic& d) {
            return QStringLiteral("%1 (%2)").arg(
                toQString(d.message),
                d.where.empty() ? title : title + QLatin1Char(':') + toQString(d.where));
        });
    restorePlots();
    parts_.window->statusBar()->showMessage(tr("%1: %2 parts, %3 markers, %4 joints")
                                                .arg(title)
                                                .arg(scene()->parts.size())
                                                .arg(scene()->markerCount())
                                                .arg(scene()->joints.size()));
}

bool FileActions::importRobot(const QString& path, const engine::io::RobotImportOptions& options) {
    QApplication::setOverrideCursor(Qt::WaitCursor);  // meshes of a big robot take seconds
    const engine::io::RobotImportResult imported =
        engine::io::importRobotFile(path.toStdString(), options);
    QApplication::restoreOverrideCursor();
    const QString name = QFileInfo(path).fileName();
    const int warnings = parts_.messages->addFileDiagnostics(imported.diagnostics, name);
    if (!imported.scene) {
        parts_.messages->add(MessageSeverity::Error,
                             tr("Could not import %1; the current scene is unchanged.").arg(path));
        return false;
    }
    // Meshes are named relative to the description's folder; anchor them absolutely until saved.
    auto spec = std::make_unique<engine::SceneSpec>(*imported.scene);
    for (engine::Part& part : spec->parts)
        for (engine::Shape& shape : part.shapes)
            if (shape.type == engine::ShapeType::Mesh && !shape.meshFile.empty())
                shape.meshFile =
                    QFileInfo(QFileInfo(path).dir(), QString::fromStdString(shape.meshFile))
                        .absoluteFilePath()
                        .toStdString();
    const std::size_t parts = spec->parts.size(), joints = spec->joints.size();
    showDocument(std::move(spec), QString(), toQString(imported.scene->name), /*unsavedWork=*/true);
    parts_.messages->add(
        MessageSeverity::Info,
        tr("Imported %1: %2 parts, %3 joints%4. File ▸ Save As keeps it as a Motus scene")
            .arg(path)
            .arg(parts)
            .arg(joints)
            .arg(warnings
                     ? tr(", %1 warnings above saying what was changed or left out").arg(warnings)
                     : QString()));
    return true;
}

void FileActions::openWithDialog() {
    if (!maybeSave()) return;
    const QString start = parts_.document->path().isEmpty()
                              ? QString()
                              : QFileInfo(parts_.document->path()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(parts_.window, tr("Open Scene"), start,
                                                      tr("Motus scenes (*.json);;All files (*)"));
    if (!path.isEmpty()) openScene(path);
}

void FileActions::addRecentFile(const QString& path) {
    QSettings settings;
    QStringList files = settings.value(QStringLiteral("recentFiles")).toStringList();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles) files.removeLast();
    settings.setValue(QStringLiteral("recentFiles"), files);
    rebuildRecentMenu();
}

void FileActions::rebuildRecentMenu() {
    recentMenu_->clear();
    const QStringList files = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    for (const QString& path : files)
        recentMenu_
            ->addAction(QFileInfo(path).fileName(), this,
                        [this, path] {
                            if (maybeSave()) openScene(path);
                        })
            ->setToolTip(path);
    recentMenu_->setEnabled(!files.isEmpty());
}

int FileActions::offerRecovery() {
    int recovered = 0;
    for (const RecoveryEntry& entry : orphanedRecoveries()) {
        QMessageBox box(parts_.window);
        box.setObjectName(QStringLiteral("RecoveryOffer"));
        box.setIcon(QMessageBox::Question);
        box.setWindowTitle(tr("Recover Unsaved Work"));
        const QString where =
            entry.path.isEmpty() ? tr("never saved") : tr("from %1").arg(entry.path);
        box.setText(tr("Motus stopped without saving \"%1\" (%2).").arg(entry.title, where));
        const QString run = entry.runFile.isEmpty()
                                ? QString()
                                : tr(" and the recorded run (%1 frames)").arg(entry.runFrames);
        // What would be lost is told from the file on disk, not from an edit count (after a
        // recovery the count starts over while the document still differs from its file).
        const int differences = differencesFromFile(entry);
        const QString changes =
            differences < 0    ? (entry.path.isEmpty() ? tr("work never saved to a file")
                                                       : tr("work whose file cannot be read now"))
            : differences == 0 ? tr("no change from the file on disk")
            : differences == 1 ? tr("1 value changed from the file on disk")
                               : tr("%1 values changed from the file on disk").arg(differences);
        box.setInformativeText(
            tr("Its last autosave, %1, holds %2%3. Recover it as an unsaved document, or "
               "discard it?")
                .arg(QLocale().toString(entry.savedAt, QLocale::ShortFormat), changes, run));
        QString error;
        if (const auto preview = loadRecovery(entry, error))
            box.setDetailedText(tr("%1 parts, %2 joints, %3 forces, %4 motions.\nRecovery file: %5")
                                    .arg(preview->parts.size())
                                    .arg(preview->joints.size())
                                    .arg(preview->forces.size())
                                    .arg(preview->motions.size())
                                    .arg(entry.sceneFile));
        else
            box.setDetailedText(tr("The recovery file cannot be read: %1").arg(error));
        QPushButton* recover = box.addButton(tr("&Recover"), QMessageBox::AcceptRole);
        QPushButton* discard = box.addButton(tr("&Discard"), QMessageBox::DestructiveRole);
        box.addButton(tr("Decide &Later"), QMessageBox::RejectRole);
        box.setDefaultButton(recover);
        box.exec();
        if (box.clickedButton() == recover) {
            if (recoverFrom(entry)) ++recovered;
        } else if (box.clickedButton() == discard) {
            removeRecovery(entry);
            parts_.messages->add(MessageSeverity::Info,
                                 tr("Discarded the unsaved work of \"%1\".").arg(entry.title));
        }
    }
    return recovered;
}

bool FileActions::recoverFrom(const RecoveryEntry& entry) {
    QString error;
    std::unique_ptr<engine::SceneSpec> spec = loadRecovery(entry, error);
    if (!spec) {
        parts_.messages->add(MessageSeverity::Error,
                             tr("Cannot recover \"%1\": %2 (the recovery file %3 is kept)")
                                 .arg(entry.title, error, entry.sceneFile));
        return false;
    }
    if (!maybeSave()) return false;  // the open document's own edits are not lost either
    // Unsaved, with the document's own file: Save writes the recovered work there.
    showDocument(std::move(spec), entry.path, entry.title, /*unsavedWork=*/true);
    // The recorded run, ready to scrub, replay or continue as before the crash.
    QString run;
    if (!entry.runFile.isEmpty()) {
        std::string why;
        if (auto loaded = engine::io::loadRunFile(entry.runFile.toStdString(), why)) {
            // Edited after the run: as after any edit, Re-run From Here takes the edit in.
            if (const QString problem = parts_.runs->adoptRun(
                    loaded->model, std::move(loaded->recording), loaded->spec);
                problem.isEmpty()) {
                run = tr(" and its recorded run (%1 frames)").arg(entry.runFrames);
            } else {
                parts_.messages->add(
                    MessageSeverity::Warning,
                    tr("The recorded run could not be continued: %1").arg(problem));
            }
        } else {
            parts_.messages->add(MessageSeverity::Warning,
                                 tr("The recorded run kept with it cannot be read: %1")
                                     .arg(QString::fromStdString(why)));
        }
    }
    removeRecovery(entry);
    parts_.messages->add(
        MessageSeverity::Result,
        tr("Recovered \"%1\"%4 as of %2 (%3): File ▸ Save keeps it.")
            .arg(entry.title, QLocale().toString(entry.savedAt, QLocale::ShortFormat),
                 entry.edits == 1 ? tr("1 edit") : tr("%1 edits").arg(entry.edits), run));
    return true;
}

}  // namespace ui
