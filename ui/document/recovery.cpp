#include "ui/document/recovery.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <filesystem>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>

#include "engine/io/scene_json.h"
#include "ui/document/scene_document.h"

namespace ui {
namespace {

// Whether process `pid` still runs the program `program` (a pid reused by another program is
// not the writer).
bool running(qint64 pid, const QString& program) {
    if (pid <= 0) return false;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return false;
    QFile comm(QStringLiteral("/proc/%1/comm").arg(pid));
    if (!comm.open(QIODevice::ReadOnly)) return true;  // cannot tell: leave it to its owner
    const QString name = QString::fromUtf8(comm.readAll()).trimmed();
    return program.isEmpty() || program.startsWith(name);  // comm is cut to 15 characters
}

QString fileFor(const char* suffix) {
    return recoveryDirectory() + QStringLiteral("/session-%1.%2")
                                     .arg(QCoreApplication::applicationPid())
                                     .arg(QLatin1String(suffix));
}

}  // namespace

QString recoveryDirectory() {
    QString dir = qEnvironmentVariable("MOTUS_RECOVERY_DIR");
    if (dir.isEmpty())
        dir = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) +
              QStringLiteral("/recovery");
    return dir;
}

std::vector<RecoveryEntry> orphanedRecoveries() {
    std::vector<RecoveryEntry> found;
    const QDir dir(recoveryDirectory());
    for (const QFileInfo& info :
         dir.entryInfoList({QStringLiteral("session-*.info")}, QDir::Files)) {
        QFile file(info.absoluteFilePath());
        if (!file.open(QIODevice::ReadOnly)) continue;
        const QJsonObject o = QJsonDocument::fromJson(file.readAll()).object();
        // Not a recovery Motus wrote (damaged, or another program's): left alone, never offered.
        if (o.value(QStringLiteral("format")).toString() != QStringLiteral("motus-recovery") ||
            o.value(QStringLiteral("scene")).toString().isEmpty())
            continue;
        RecoveryEntry e;
        e.infoFile = info.absoluteFilePath();
        e.sceneFile = dir.absoluteFilePath(o.value(QStringLiteral("scene")).toString());
        e.pid = o.value(QStringLiteral("pid")).toInteger();
        e.path = o.value(QStringLiteral("path")).toString();
        e.title = o.value(QStringLiteral("title")).toString();
        e.savedAt =
            QDateTime::fromString(o.value(QStringLiteral("savedAt")).toString(), Qt::ISODateWithMs);
        e.edits = o.value(QStringLiteral("edits")).toInt();
        // A run file named by the info, in the same folder (never a path from elsewhere).
        const QString run = QFileInfo(o.value(QStringLiteral("run")).toString()).fileName();
        if (!run.isEmpty() && QFileInfo::exists(QDir(recoveryDirectory()).filePath(run))) {
            e.runFile = QDir(recoveryDirectory()).filePath(run);
            e.runFrames = o.value(QStringLiteral("runFrames")).toInt();
        }
        if (e.pid == QCoreApplication::applicationPid()) continue;  // this process's own
        if (running(e.pid, o.value(QStringLiteral("program")).toString())) continue;
        if (!QFileInfo::exists(e.sceneFile)) {
            QFile::remove(e.infoFile);  // a scene never completed: nothing to offer
            continue;
        }
        found.push_back(e);
    }
    std::sort(found.begin(), found.end(),
              [](const RecoveryEntry& a, const RecoveryEntry& b) { return a.savedAt > b.savedAt; });
    return found;
}

std::unique_ptr<engine::SceneSpec> loadRecovery(const RecoveryEntry& entry, QString& error) {
    engine::io::SceneLoadResult r = engine::io::loadSceneFile(entry.sceneFile.toStdString());
    if (!r.scene) {
        error = r.diagnostics.empty() ? QStringLiteral("cannot read %1").arg(entry.sceneFile)
                                      : QString::fromStdString(r.diagnostics.front().message);
        return nullptr;
    }
    return std::make_unique<engine::SceneSpec>(std::move(*r.scene));
}

void removeRecovery(const RecoveryEntry& entry) {
    QFile::remove(entry.infoFile);  // the info first: a scene without one is never offered
    QFile::remove(entry.sceneFile);
    if (!entry.runFile.isEmpty()) QFile::remove(entry.runFile);
}

Autosaver::Autosaver(SceneDocument* document, QObject* parent)
    : QObject(parent), document_(document) {
    const double seconds = qEnvironmentVariableIsSet("MOTUS_AUTOSAVE_SECONDS")
                               ? qEnvironmentVariable("MOTUS_AUTOSAVE_SECONDS").toDouble()
                               : 60.0;
    setInterval(seconds > 0.0 ? seconds : 60.0);
    bool budgetOk = false;
    const double megabytes = qEnvironmentVariable("MOTUS_RECOVERY_RUN_MB").toDouble(&budgetOk);
    if (budgetOk && megabytes >= 0.0) runBudget_ = static_cast<qint64>(megabytes * (1 << 20));
    connect(&timer_, &QTimer::timeout, this, [this] {
        // Edits since the last autosave, or a run that grew.
        const int frames = keeper_.frames ? keeper_.frames() : 0;
        if (editsSinceAutosave_ > 0 || (frames > 1 && frames != runFramesWritten_)) saveNow();
    });
    timer_.start();
    connect(document_, &SceneDocument::sceneChanged, this, &Autosaver::edited);
    connect(document_, &SceneDocument::documentReset, this, [this] {
        editsSinceOpen_ = editsSinceAutosave_ = 0;
        saveNow();  // a new document: an unsaved import is kept at once, anything else removed
    });
    connect(document_, &SceneDocument::modifiedChanged, this, [this](bool modified) {
        if (!modified) {
            editsSinceOpen_ = editsSinceAutosave_ = 0;
            discard();  // saved (or undone back to the file): nothing to recover
        }
    });
}

Autosaver::~Autosaver() = default;

void Autosaver::setInterval(double seconds) {
    timer_.setInterval(std::max(1, static_cast<int>(seconds * 1000.0)));
}

QString Autosaver::sceneFile() const {
    return fileFor("json");
}
QString Autosaver::infoFile() const {
    return fileFor("info");
}
QString Autosaver::runFile() const {
    return fileFor("motusrun");
}

void Autosaver::edited() {
    ++editsSinceOpen_;
    if (++editsSinceAutosave_ >= editThreshold_) saveNow();
}

bool Autosaver::saveNow(QString* error) {
    const engine::SceneSpec* scene = document_->scene();
    const int frames = scene && keeper_.frames ? keeper_.frames() : 0;
    const qint64 runBytes = frames > 1 && keeper_.bytes ? keeper_.bytes() : 0;
    const bool keepRun = frames > 1 && keeper_.write && runBytes <= runBudget_;
    if (!scene || (!document_->isModified() && !keepRun)) {
        discard();
        editsSinceAutosave_ = 0;
        return true;
    }
    QDir().mkpath(recoveryDirectory());
    // Meshes by absolute path: the recovery lives in another folder than the document.
    engine::SceneSpec written = *scene;
    if (!document_->path().isEmpty()) {
        const std::filesystem::path folder =
            std::filesystem::path(document_->path().toStdString()).parent_path();
        for (engine::Part& part : written.parts)
            for (engine::Shape& shape : part.shapes)
                if (shape.type == engine::ShapeType::Mesh && !shape.meshFile.empty() &&
                    std::filesystem::path(shape.meshFile).is_relative())
                    shape.meshFile = (folder / shape.meshFile).lexically_normal().string();
    }
    auto fail = [&](const QString& reason) {
        if (error) *error = reason;
        emit failed(reason);
        return false;
    };
    std::string why;
    if (!engine::io::saveSceneFile(written, sceneFile().toStdString(), why))
        return fail(QStringLiteral("cannot write the recovery file %1: %2")
                        .arg(sceneFile(), QString::fromStdString(why)));
    // The run (atomically, like every file here), only when it changed since the last one.
    if (keepRun && frames != runFramesWritten_) {
        QString reason;
        if (keeper_.write(runFile(), reason)) {
            runFramesWritten_ = frames;
        } else {
            QFile::remove(runFile());
            runFramesWritten_ = 0;
            emit failed(
                QStringLiteral("the recorded run is not kept for recovery: %1").arg(reason));
        }
    } else if (!keepRun) {
        QFile::remove(runFile());
        runFramesWritten_ = 0;
    }
    QJsonObject o;
    o.insert(QStringLiteral("format"), QStringLiteral("motus-recovery"));
    if (runFramesWritten_ > 0) {
        o.insert(QStringLiteral("run"), QFileInfo(runFile()).fileName());
        o.insert(QStringLiteral("runFrames"), runFramesWritten_);
    } else if (frames > 1) {
        o.insert(QStringLiteral("runLeftOut"),
                 QStringLiteral("%1 MB, over the recovery budget of %2 MB")
                     .arg(runBytes / double(1 << 20), 0, 'f', 1)
                     .arg(runBudget_ / double(1 << 20), 0, 'f', 1));
    }
    o.insert(QStringLiteral("version"), 1);
    o.insert(QStringLiteral("scene"), QFileInfo(sceneFile()).fileName());
    o.insert(QStringLiteral("pid"), QCoreApplication::applicationPid());
    o.insert(QStringLiteral("program"),
             QFileInfo(QCoreApplication::applicationFilePath()).fileName());
    o.insert(QStringLiteral("path"), document_->path());
    o.insert(QStringLiteral("title"), document_->title());
    o.insert(QStringLiteral("savedAt"), QDateTime::currentDateTime().toString(Qt::ISODateWithMs));
    o.insert(QStringLiteral("edits"), editsSinceOpen_);
    QSaveFile info(infoFile());
    if (!info.open(QIODevice::WriteOnly) || info.write(QJsonDocument(o).toJson()) < 0 ||
        !info.commit())
        return fail(QStringLiteral("cannot write the recovery file %1: %2")
                        .arg(infoFile(), info.errorString()));
    editsSinceAutosave_ = 0;
    ++autosaves_;
    emit autosaved(sceneFile());
    return true;
}

void Autosaver::discard() {
    QFile::remove(infoFile());
    QFile::remove(sceneFile());
    QFile::remove(runFile());
    runFramesWritten_ = 0;
}

}  // namespace ui
