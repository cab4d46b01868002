#pragma once
// Crash recovery: the open document's unsaved work is written to a recovery file of its own
// every 60 s and after every 20 edits, never over the user's file. A clean exit, a save or a
// document without edits removes it; what a crashed (or killed) Motus leaves behind is offered
// at the next start.
//
// Files, in recoveryDirectory() (MOTUS_RECOVERY_DIR, else the user's local data folder):
//   session-<pid>.json   the scene, in the documented scene format, written atomically
//   session-<pid>.motusrun  the recorded run, when there is one and it fits the budget
//                        (MOTUS_RECOVERY_RUN_MB, default 64 MB; docs/run-file.md)
//   session-<pid>.info   what it is: the document's file and title, when, how many edits, the
//                        program and process that wrote it (JSON, written atomically after the
//                        scene, so an info file always names a complete scene)
// A recovery is an orphan when the process that wrote it is no longer running. A recorded run
// is kept even when the scene has no unsaved edits: a long run is work too.

#include <functional>
#include <memory>
#include <vector>

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QTimer>

namespace engine {
struct SceneSpec;
}

namespace ui {

class SceneDocument;

struct RecoveryEntry {
    QString infoFile, sceneFile;
    qint64 pid = 0;
    QString path;   // the document's own file (empty: never saved)
    QString title;  // as the title bar showed it
    QDateTime savedAt;
    int edits = 0;    // edits since the document was opened or last saved
    QString runFile;  // the recorded run kept with it (empty: none)
    int runFrames = 0;
};

// Where recovery files are kept (created on demand).
QString recoveryDirectory();
// Recoveries left by processes that are no longer running, newest first.
std::vector<RecoveryEntry> orphanedRecoveries();
// The scene of a recovery (null with `error` when it cannot be read).
std::unique_ptr<engine::SceneSpec> loadRecovery(const RecoveryEntry& entry, QString& error);
// Deletes a recovery's files (the user decided).
void removeRecovery(const RecoveryEntry& entry);

class Autosaver : public QObject {
    Q_OBJECT

public:
    explicit Autosaver(SceneDocument* document, QObject* parent = nullptr);
    ~Autosaver() override;

    // Seconds between autosaves (default 60, or MOTUS_AUTOSAVE_SECONDS) and edits that force
    // one (default 20).
    void setInterval(double seconds);
    void setEditThreshold(int edits) { editThreshold_ = edits; }
    // The recorded run, kept with the recovery while it fits the budget: how many frames it
    // has (≤ 1: nothing to keep), its size in bytes, and how to write it as a run file.
    struct RunKeeper {
        std::function<int()> frames;
        std::function<qint64()> bytes;
        std::function<bool(const QString& path, QString& error)> write;
    };
    void setRunKeeper(RunKeeper keeper) { keeper_ = std::move(keeper); }
    void setRunBudget(qint64 bytes) { runBudget_ = bytes; }
    qint64 runBudget() const { return runBudget_; }
    QString runFile() const;

    // Writes the recovery now when the document holds unsaved work or a run worth keeping,
    // else removes it.
    bool saveNow(QString* error = nullptr);
    // Removes this process's recovery (a clean exit).
    void discard();
    QString sceneFile() const;
    QString infoFile() const;
    int autosaves() const { return autosaves_; }

signals:
    void autosaved(const QString& sceneFile);
    void failed(const QString& reason);

private:
    void edited();

    SceneDocument* document_;
    QTimer timer_;
    int editThreshold_ = 20;
    int editsSinceAutosave_ = 0;
    int editsSinceOpen_ = 0;
    int autosaves_ = 0;
    RunKeeper keeper_;
    qint64 runBudget_ = 64ll << 20;
    int runFramesWritten_ = 0;  // frames of the run file written last (0: none)
};

}  // namespace ui
