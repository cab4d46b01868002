#pragma once
// Crash recovery: the open document's unsaved work is written to a recovery file of its own
// at most a second after every edit (edits in a burst are written once, at most a second after
// the first of them; the writing runs on a worker thread, atomically) and every 60 s while a
// recorded run grows, never over the user's file. A clean exit, a save or a document without
// edits removes it; what a crashed (or killed) Motus leaves behind is offered at the next
// start, with how much it differs from the document's file on disk.
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

class QThreadPool;

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
    int edits = 0;    // edits since the document was opened or last saved (or recovered)
    QString runFile;  // the recorded run kept with it (empty: none)
    int runFrames = 0;
};

// Where recovery files are kept (created on demand).
QString recoveryDirectory();
// Recoveries left by processes that are no longer running, newest first.
std::vector<RecoveryEntry> orphanedRecoveries();
// The scene of a recovery (null with `error` when it cannot be read).
std::unique_ptr<engine::SceneSpec> loadRecovery(const RecoveryEntry& entry, QString& error);
// Deletes a recovery's files (the user decided). Only files inside recoveryDirectory() that
// are named as Motus names them are ever deleted.
void removeRecovery(const RecoveryEntry& entry);
// How many values (numbers, names, entries added or removed) the recovered scene changes
// from the document's file as it is on disk now; -1 when the document has no file or it cannot
// be read (then all of the recovery is new).
int differencesFromFile(const RecoveryEntry& entry);

class Autosaver : public QObject {
    Q_OBJECT

public:
    explicit Autosaver(SceneDocument* document, QObject* parent = nullptr);
    ~Autosaver() override;

    // Seconds between autosaves of a growing run (default 60, or MOTUS_AUTOSAVE_SECONDS).
    void setInterval(double seconds);
    // Milliseconds from an edit to its autosave (default 500; a burst of edits is written at
    // most twice that after its first edit).
    void setEditDelay(int milliseconds) { editDelay_ = milliseconds; }
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

    // Writes the recovery now (and waits for it) when the document holds unsaved work or a
    // run worth keeping, else removes it.
    bool saveNow(QString* error = nullptr);
    // Waits until the autosave under way, if any, has been written.
    void waitForWrites();
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
    // The document's scene (and the info naming it) written on the worker thread.
    void saveSceneInBackground();
    QByteArray infoJson(int runFrames, int framesNow, qint64 runBytes) const;

    SceneDocument* document_;
    QTimer timer_;
    QTimer editTimer_;             // one shot: the edits waiting to be written
    qint64 firstPendingEdit_ = 0;  // ms since the epoch of the first edit not yet written
    int editDelay_ = 500;
    QThreadPool* writer_;  // one thread: writes happen in order
    int editsSinceAutosave_ = 0;
    int editsSinceOpen_ = 0;
    int autosaves_ = 0;
    RunKeeper keeper_;
    qint64 runBudget_ = 64ll << 20;
    int runFramesWritten_ = 0;  // frames of the run file written last (0: none)
};

}  // namespace ui
