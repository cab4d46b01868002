#include "ui/mainwindow/cad_import.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMainWindow>
#include <QProgressDialog>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>

#include <atomic>
#include <memory>
#include <thread>

#include "engine/import/cad_update.h"
#include "engine/import/step_import.h"
#include "engine/model/scene_spec.h"
#include "ui/common/text.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/messages_panel.h"

namespace ui {
namespace {

QString joined(const std::vector<std::string>& names) {
    QStringList list;
    for (const std::string& name : names) list << toQString(name);
    return list.join(QStringLiteral(", "));
}

}  // namespace

CadImport::CadImport(const WindowParts& parts, FileActions* files)
    : QObject(files), parts_(parts), files_(files) {}

void CadImport::importWithDialog() {
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        parts_.window, tr("Import CAD"),
        settings.value(QStringLiteral("cadImport/folder")).toString(),
        tr("STEP assemblies (*.step *.stp *.STEP *.STP);;All files (*)"));
    if (path.isEmpty()) return;
    settings.setValue(QStringLiteral("cadImport/folder"), QFileInfo(path).absolutePath());
    CadImportDialog dialog(path, parts_.document->scene(), parts_.window);
    if (dialog.exec() != QDialog::Accepted) return;
    dialog.remember();
    importFile(path, dialog.options(), dialog.target());
}

engine::io::CadImportResult CadImport::read(const QString& path,
                                            engine::io::CadImportOptions options) {
    const QString name = QFileInfo(path).fileName();
    QProgressDialog progress(tr("Reading %1…").arg(name), tr("Cancel"), 0, 0, parts_.window);
    progress.setObjectName(QStringLiteral("CadImportProgress"));
    progress.setWindowTitle(tr("Import CAD"));
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(300);  // a small file comes and goes without a flash
    progress.setValue(0);              // (starts the clock that shows it)
    std::atomic<bool> cancel{false}, finished{false};
    options.readerLimits.cancel = &cancel;
    engine::io::CadImportResult result;
    std::thread worker([&] {
        result = engine::io::importStepFile(path.toStdString(), options);
        finished = true;
    });
    // The window's events go on while the worker reads; the dialog tells the time it has taken.
    QElapsedTimer clock;
    clock.start();
    QEventLoop loop;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (progress.wasCanceled()) cancel = true;
        if (finished) {
            loop.quit();
            return;
        }
        const qint64 seconds = clock.elapsed() / 1000;
        if (seconds >= 1 && !cancel)
            progress.setLabelText(
                tr("Reading %1… %2 s (solids, their mass properties and drawings)")
                    .arg(name)
                    .arg(seconds));
    });
    poll.start(30);
    loop.exec();
    worker.join();
    progress.reset();
    return result;
}

QString CadImport::summary(const QString& path, const engine::io::CadImportResult& result) const {
    const engine::io::CadImportStatistics& s = result.statistics;
    const QLocale locale;
    return tr("<b>%1</b>: %2 components, %3 solids, %4 faces, read in %5 s (%6 triangles "
              "drawn).")
        .arg(QFileInfo(path).fileName().toHtmlEscaped())
        .arg(s.components)
        .arg(s.solids)
        .arg(locale.toString(s.faces))
        .arg(locale.toString(s.seconds, 'f', 1))
        .arg(locale.toString(static_cast<qulonglong>(s.triangles)));
}

bool CadImport::importFile(const QString& path, const engine::io::CadImportOptions& options,
                           CadTarget target, const CadReview* review) {
    const engine::SceneSpec* open = parts_.document->scene();
    if (!open) target = CadTarget::NewScene;
    // Asked before the reading, not after it.
    if (target == CadTarget::NewScene && !files_->maybeSave()) return false;
    const QString name = QFileInfo(path).fileName();
    const engine::io::CadImportResult result = read(path, options);
    if (result.cancelled) {
        parts_.messages->add(MessageSeverity::Info,
                             tr("Import of %1 cancelled: nothing changed.").arg(name));
        return false;
    }
    const int warnings = parts_.messages->addFileDiagnostics(result.diagnostics, name);
    if (!result.scene) {
        parts_.messages->add(MessageSeverity::Error,
                             tr("Could not import %1; the scene is unchanged.").arg(path));
        parts_.window->statusBar()->showMessage(tr("Could not import %1 — see Messages").arg(name));
        return false;
    }
    const QString read = summary(path, result);
    const QString warned =
        warnings ? tr(" %1 warnings in Messages say what was changed or left out.").arg(warnings)
                 : QString();

    // A re-import: the open scene's parts updated, its joints checked against the new geometry.
    if (target == CadTarget::UpdateScene) {
        engine::SceneSpec after = *open;
        const engine::io::CadUpdate update =
            engine::io::updateImportedScene(after, *result.scene, result.suggestions);
        if (!update.ok) {
            parts_.messages->add(MessageSeverity::Error,
                                 tr("Could not re-import %1: %2; the scene is unchanged.")
                                     .arg(name, toQString(update.error)));
            return false;
        }
        std::vector<std::size_t> accepted;
        if (review) {
            if (review->accepted)
                accepted = *review->accepted;
            else
                for (std::size_t k = 0; k < update.suggestions.size(); ++k) accepted.push_back(k);
        } else if (!update.suggestions.empty()) {
            CadJointsDialog dialog(
                after, update.suggestions, /*chooseGround=*/false,
                read + tr("<br>The geometry suggests joints the scene does not have yet: tick "
                          "those to add."),
                parts_.window);
            if (dialog.exec() != QDialog::Accepted) {
                parts_.messages->add(MessageSeverity::Info,
                                     tr("Re-import of %1 cancelled: nothing changed.").arg(name));
                return false;
            }
            accepted = dialog.accepted();
        }
        for (std::size_t k : accepted)
            if (k < update.suggestions.size())
                engine::io::addSuggestedJoint(after, update.suggestions[k]);
        if (const auto refusal =
                parts_.document->add(std::move(after), tr("Re-import %1").arg(name))) {
            parts_.messages->add(MessageSeverity::Error,
                                 tr("Could not re-import %1: %2; the scene is unchanged.")
                                     .arg(name, toQString(refusal->message)));
            return false;
        }
        const engine::io::CadUpdateReport& r = update.report;
        for (const std::string& removed : r.jointsRemoved)
            parts_.messages->add(
                MessageSeverity::Warning,
                tr("Joint %1 (removed by the re-import of %2)").arg(toQString(removed), name));
        for (const std::string& moved : r.jointsRefitted)
            parts_.messages->add(MessageSeverity::Info, tr("Joint %1").arg(toQString(moved)));
        for (const std::string& note : r.notes)
            parts_.messages->add(MessageSeverity::Warning, toQString(note));
        if (!r.missing.empty())
            parts_.messages->add(
                MessageSeverity::Info,
                tr("Not in %1, left as they were: %2").arg(name, joined(r.missing)));
        parts_.messages->add(
            MessageSeverity::Result,
            tr("Re-imported %1: %2 parts updated, %3 added%4; joints: %5 kept, %6 moved onto "
               "their new axes, %7 removed, %8 added. Edit ▸ Undo takes it back.%9")
                .arg(name)
                .arg(r.updated.size())
                .arg(r.added.size())
                .arg(r.added.empty() ? QString() : QStringLiteral(" (%1)").arg(joined(r.added)))
                .arg(r.jointsKept.size())
                .arg(r.jointsRefitted.size())
                .arg(r.jointsRemoved.size())
                .arg(accepted.size())
                .arg(warned));
        return true;
    }

    // A first import: the ground and the joints chosen, then the parts placed.
    engine::SceneSpec imported = *result.scene;
    std::vector<engine::io::JointSuggestion> suggestions = result.suggestions;
    std::optional<std::string> ground;
    std::vector<std::size_t> accepted;
    if (review) {
        ground = review->ground;
        if (review->accepted)
            accepted = *review->accepted;
        else
            for (std::size_t k = 0; k < suggestions.size(); ++k) accepted.push_back(k);
    } else {
        CadJointsDialog dialog(
            imported, suggestions,
            /*chooseGround=*/!imported.parts.empty() && imported.parts[0].shapes.empty(),
            read + (suggestions.empty()
                        ? tr("<br>The geometry suggests no joint: join the parts afterwards "
                             "with the joint tools.")
                        : tr("<br>Choose the ground and tick the joints to add.")),
            parts_.window);
        if (dialog.exec() != QDialog::Accepted) {
            parts_.messages->add(MessageSeverity::Info,
                                 tr("Import of %1 cancelled: nothing changed.").arg(name));
            return false;
        }
        ground = dialog.ground();
        accepted = dialog.accepted();
    }
    // The joints first (the suggestions' indices are the import's), then the ground chosen.
    std::vector<engine::io::JointSuggestion> chosen;
    for (std::size_t k : accepted)
        if (k < suggestions.size()) chosen.push_back(suggestions[k]);
    for (const engine::io::JointSuggestion& s : chosen) engine::io::addSuggestedJoint(imported, s);
    if (ground) {
        const engine::Part* part = imported.findPart(*ground);
        std::string error;
        if (!part || !engine::io::makeImportedGround(imported, part->id, error)) {
            parts_.messages->add(
                MessageSeverity::Error,
                tr("Cannot make %1 the ground: %2")
                    .arg(toQString(*ground), part ? toQString(error) : tr("no such part")));
            return false;
        }
    }
    const std::size_t partCount = imported.parts.size() - 1;  // (the ground is not counted)
    const QString done =
        tr("Imported %1: %2 parts, %3 joints%4.%5")
            .arg(name)
            .arg(partCount)
            .arg(chosen.size())
            .arg(ground ? tr(", %1 the ground").arg(toQString(*ground)) : QString())
            .arg(warned);
    if (target == CadTarget::NewScene) {
        const QString title = toQString(imported.name);
        files_->showDocument(std::make_unique<engine::SceneSpec>(std::move(imported)), QString(),
                             title, /*unsavedWork=*/true);
        parts_.messages->add(MessageSeverity::Result,
                             done + tr(" File ▸ Save As keeps it as a Motus scene (its drawings "
                                       "in a folder beside it)."));
        return true;
    }
    engine::SceneSpec after = *open;
    std::string error;
    if (engine::io::addImportedScene(after, imported, error).empty()) {
        parts_.messages->add(MessageSeverity::Error,
                             tr("Could not add %1 to the scene: %2").arg(name, toQString(error)));
        return false;
    }
    if (const auto refusal = parts_.document->add(std::move(after), tr("Import %1").arg(name))) {
        parts_.messages->add(MessageSeverity::Error,
                             tr("Could not add %1 to the scene: %2; the scene is unchanged.")
                                 .arg(name, toQString(refusal->message)));
        return false;
    }
    parts_.messages->add(MessageSeverity::Result, done + tr(" Edit ▸ Undo takes it back."));
    return true;
}

}  // namespace ui
