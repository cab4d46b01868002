#include "ui/document/recovery.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>
#include <QThreadPool>

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

// "session-<digits>.<suffix>": the only names Motus gives its recovery files.
bool isRecoveryName(const QString& name, const char* suffix) {
    static const QRegularExpression pattern(QStringLiteral("^session-[0-9]+\\.([a-z]+)$"));
    const QRegularExpressionMatch m = pattern.match(name);
    return m.hasMatch() && m.captured(1) == QLatin1String(suffix);
}

QString fileFor(const char* suffix) {
    return recoveryDirectory() + QStringLiteral("/session-%1.%2")
                                     .arg(QCoreApplication::applicationPid())
                                     .arg(QLatin1String(suffix));
}

// Meshes by absolute path: the recovery lives in another folder than the document.
void absoluteMeshPaths(engine::SceneSpec& scene, const QString& documentPath) {
    if (documentPath.isEmpty()) return;
    const std::filesystem::path folder =
        std::filesystem::path(documentPath.toStdString()).parent_path();
    for (engine::Part& part : scene.parts)
        for (engine::Shape& shape : part.shapes)
            if (shape.type == engine::ShapeType::Mesh && !shape.meshFile.empty() &&
                std::filesystem::path(shape.meshFile).is_relative())
                shape.meshFile = (folder / shape.meshFile).lexically_normal().string();
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
        // The scene named by the info, in the same folder and named as Motus names it: an info
        // naming a file elsewhere ("../x.json", an absolute path) is not a recovery, and a
        // decision about it must never delete that file.
        const QString scene = o.value(QStringLiteral("scene")).toString();
        if (scene != QFileInfo(scene).fileName() || !isRecoveryName(scene, "json")) continue;
        e.sceneFile = dir.absoluteFilePath(scene);
        e.pid = o.value(QStringLiteral("pid")).toInteger();
        e.path = o.value(QStringLiteral("path")).toString();
        e.title = o.value(QStringLiteral("title")).toString();
        e.savedAt =
            QDateTime::fromString(o.value(QStringLiteral("savedAt")).toString(), Qt::ISODateWithMs);
        e.edits = o.value(QStringLiteral("edits")).toInt();
        // A run file named by the info, in the same folder (never a path from elsewhere).
        const QString run = o.value(QStringLiteral("run")).toString();
        if (run == QFileInfo(run).fileName() && isRecoveryName(run, "motusrun") &&
            QFileInfo(QDir(recoveryDirectory()).filePath(run)).isFile()) {
            e.runFile = QDir(recoveryDirectory()).filePath(run);
            e.runFrames = o.value(QStringLiteral("runFrames")).toInt();
        }
        if (e.pid == QCoreApplication::applicationPid()) continue;  // this process's own
        if (running(e.pid, o.value(QStringLiteral("program")).toString())) continue;
        if (!QFileInfo(e.sceneFile).isFile()) {
            if (!QFileInfo::exists(e.sceneFile))
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

namespace {

// The meshes a scene holds in no file (an MJCF robot's), written beside its recovery scene and
// run ("<name>_meshes/*.obj", engine/io/scene_json.h; the two share the name and so the
// folder): removed with them, links never followed.
void removeMeshesBeside(const QString& file) {
    const QFileInfo scene(file);
    const QFileInfo folder(scene.absolutePath() + QLatin1Char('/') + scene.completeBaseName() +
                           QStringLiteral("_meshes"));
    if (!folder.isDir() || folder.isSymLink()) return;
    QDir meshes(folder.absoluteFilePath());
    for (const QFileInfo& mesh :
         meshes.entryInfoList({QStringLiteral("*.obj")}, QDir::Files | QDir::NoSymLinks))
        QFile::remove(mesh.absoluteFilePath());
    QDir(scene.absolutePath()).rmdir(folder.fileName());  // only when nothing else is in it
}

}  // namespace

void removeRecovery(const RecoveryEntry& entry) {
    // The info first: a scene without one is never offered. Nothing outside the folder, and
    // nothing not named as Motus names its recovery files, is deleted.
    const QString folder = QDir(recoveryDirectory()).canonicalPath();
    auto remove = [&](const QString& file, const char* suffix) {
        const QFileInfo info(file);
        if (file.isEmpty() || !isRecoveryName(info.fileName(), suffix) || info.isSymLink() ||
            QFileInfo(info.absolutePath()).canonicalFilePath() != folder)
            return;
        QFile::remove(file);
        if (std::strcmp(suffix, "info") != 0) removeMeshesBeside(file);
    };
    remove(entry.infoFile, "info");
    remove(entry.sceneFile, "json");
    remove(entry.runFile, "motusrun");
}

namespace {

// Values that differ between two JSON values: a leaf that changed, or an entry (member,
// element) that one has and the other has not, counts one.
int differences(const QJsonValue& a, const QJsonValue& b) {
    if (a.isObject() && b.isObject()) {
        const QJsonObject x = a.toObject(), y = b.toObject();
        int n = 0;
        for (auto it = x.begin(); it != x.end(); ++it)
            n += y.contains(it.key()) ? differences(it.value(), y.value(it.key())) : 1;
        for (auto it = y.begin(); it != y.end(); ++it) n += x.contains(it.key()) ? 0 : 1;
        return n;
    }
    if (a.isArray() && b.isArray()) {
        const QJsonArray x = a.toArray(), y = b.toArray();
        int n = static_cast<int>(std::abs(x.size() - y.size()));
        for (qsizetype k = 0; k < std::min(x.size(), y.size()); ++k)
            n += differences(x.at(k), y.at(k));
        return n;
    }
    return a == b ? 0 : 1;
}

}  // namespace

int differencesFromFile(const RecoveryEntry& entry) {
    if (entry.path.isEmpty() || !QFileInfo(entry.path).isFile()) return -1;
    // Both as the scene writer writes them: the file's own layout and comments do not count.
    const engine::io::SceneLoadResult onDisk = engine::io::loadSceneFile(entry.path.toStdString());
    const engine::io::SceneLoadResult recovered =
        engine::io::loadSceneFile(entry.sceneFile.toStdString());
    if (!onDisk.scene || !recovered.scene) return -1;
    const QJsonDocument a =
        QJsonDocument::fromJson(QByteArray::fromStdString(engine::io::sceneToJson(*onDisk.scene)));
    const QJsonDocument b = QJsonDocument::fromJson(
        QByteArray::fromStdString(engine::io::sceneToJson(*recovered.scene)));
    return differences(a.object(), b.object());
}

Autosaver::Autosaver(SceneDocument* document, QObject* parent)
    : QObject(parent), document_(document), writer_(new QThreadPool(this)) {
    writer_->setMaxThreadCount(1);
    editTimer_.setSingleShot(true);
    connect(&editTimer_, &QTimer::timeout, this, &Autosaver::saveSceneInBackground);
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
        editTimer_.stop();
        saveNow();  // a new document: an unsaved import is kept at once, anything else removed
    });
    connect(document_, &SceneDocument::modifiedChanged, this, [this](bool modified) {
        if (!modified) {
            editsSinceOpen_ = editsSinceAutosave_ = 0;
            editTimer_.stop();
            discard();  // saved (or undone back to the file): nothing to recover
        }
    });
}

Autosaver::~Autosaver() {
    writer_->waitForDone();
}

void Autosaver::waitForWrites() {
    writer_->waitForDone();
}

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
    ++editsSinceAutosave_;
    // Written editDelay_ after the last edit of a burst, and never later than twice that after
    // its first: a crash loses at most about a second of work.
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (!editTimer_.isActive()) firstPendingEdit_ = now;
    const qint64 due = std::min<qint64>(now + editDelay_, firstPendingEdit_ + 2 * editDelay_);
    editTimer_.start(static_cast<int>(std::max<qint64>(0, due - now)));
}

QByteArray Autosaver::infoJson(int runFrames, int framesNow, qint64 runBytes) const {
    QJsonObject o;
    o.insert(QStringLiteral("format"), QStringLiteral("motus-recovery"));
    if (runFrames > 0) {
        o.insert(QStringLiteral("run"), QFileInfo(runFile()).fileName());
        o.insert(QStringLiteral("runFrames"), runFrames);
    } else if (framesNow > 1) {
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
    return QJsonDocument(o).toJson();
}

void Autosaver::saveSceneInBackground() {
    const engine::SceneSpec* scene = document_->scene();
    if (!scene || !document_->isModified()) return;  // saved or undone meanwhile
    // What is written is fixed here, on the GUI thread: a copy of the scene, and the info.
    auto written = std::make_shared<engine::SceneSpec>(*scene);
    absoluteMeshPaths(*written, document_->path());
    const int frames = keeper_.frames ? keeper_.frames() : 0;
    const QByteArray info =
        infoJson(runFramesWritten_, frames, frames > 1 && keeper_.bytes ? keeper_.bytes() : 0);
    const QString scenePath = sceneFile(), infoPath = infoFile();
    editsSinceAutosave_ = 0;
    writer_->start([this, written, info, scenePath, infoPath] {
        QDir().mkpath(recoveryDirectory());
        std::string why;
        QString failure;
        if (!engine::io::saveSceneFile(*written, scenePath.toStdString(), why)) {
            failure = QStringLiteral("cannot write the recovery file %1: %2")
                          .arg(scenePath, QString::fromStdString(why));
        } else {
            QSaveFile file(infoPath);
            if (!file.open(QIODevice::WriteOnly) || file.write(info) < 0 || !file.commit())
                failure = QStringLiteral("cannot write the recovery file %1: %2")
                              .arg(infoPath, file.errorString());
        }
        QMetaObject::invokeMethod(this, [this, failure, scenePath] {
            if (!failure.isEmpty()) {
                emit failed(failure);
                return;
            }
            ++autosaves_;
            emit autosaved(scenePath);
        });
    });
}

bool Autosaver::saveNow(QString* error) {
    editTimer_.stop();
    writer_->waitForDone();  // in order, after the autosave under way
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
    engine::SceneSpec written = *scene;
    absoluteMeshPaths(written, document_->path());
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
    QSaveFile info(infoFile());
    if (!info.open(QIODevice::WriteOnly) ||
        info.write(infoJson(runFramesWritten_, frames, runBytes)) < 0 || !info.commit())
        return fail(QStringLiteral("cannot write the recovery file %1: %2")
                        .arg(infoFile(), info.errorString()));
    editsSinceAutosave_ = 0;
    ++autosaves_;
    emit autosaved(sceneFile());
    return true;
}

void Autosaver::discard() {
    editTimer_.stop();
    writer_->waitForDone();
    QFile::remove(infoFile());
    QFile::remove(sceneFile());
    QFile::remove(runFile());
    removeMeshesBeside(sceneFile());  // the scene's and the run's: one folder, one name
    runFramesWritten_ = 0;
}

}  // namespace ui
