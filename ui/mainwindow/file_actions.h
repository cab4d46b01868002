#pragma once
// The File menu's documents: New, Open (and Open Recent), Save, Save As, Import Robot, Import
// CAD (cad_import.h), Open Run and Save Run As; the questions before unsaved work would be lost
// (an edited scene, a recorded run not saved); and crash recovery at start-up. A document that cannot be read
// leaves the open one as it was, with every problem (and its place in the file) in Messages.

#include <memory>

#include <QObject>
#include <QString>

#include "ui/mainwindow/window_parts.h"

class QMenu;

namespace engine {
struct SceneSpec;
}
namespace engine::io {
struct RobotImportOptions;
}

namespace ui {

struct RecoveryEntry;
class CadImport;

class FileActions : public QObject {
    Q_OBJECT

public:
    explicit FileActions(const WindowParts& parts);

    // The document entries of the File menu (New … Save Run As).
    void createActions(QMenu* file);

    // Loads a scene file (a run file opens as the run). On any error the messages panel lists
    // every problem (with its place in the file) and the current scene stays open; returns
    // whether the file was loaded.
    bool openScene(const QString& path);
    // A new, unsaved scene holding only a ground part, seen from the front (the xz plane, as
    // planar mechanisms are drawn).
    void newScene();
    // Shows `spec` as the open document (from a file at `path`, or unsaved when empty).
    // `unsavedWork`: it has no file yet but holds work (an imported robot): closing it asks.
    void showDocument(std::unique_ptr<engine::SceneSpec> spec, const QString& path,
                      const QString& title, bool unsavedWork = false);
    // Writes the open scene to `path` (atomically) and makes it the document's file.
    bool saveSceneAs(const QString& path);
    // File > Save: to the document's file, or through Save As when it has none.
    bool save();
    // Before the document is replaced or the window closes: when it holds unsaved edits, asks
    // "Save changes?" (Save / Discard / Cancel; Discard drops the recorded run too); with no
    // edits, or after Save, a recorded run that is not saved is asked about: "Keep the run?"
    // (maybeKeepRun: Save Run… / Discard Run / Cancel). True when it is fine to go on.
    bool maybeSave();
    bool maybeKeepRun();
    // Run files: the scene and every recorded frame (reopened without re-simulating).
    bool saveRun(const QString& path);
    bool openRun(const QString& path);
    // A robot description (URDF, MJCF, SDF) as a new unsaved scene; its warnings are listed.
    bool importRobot(const QString& path, const engine::io::RobotImportOptions& options);
    // Crash recovery (ui/document/recovery.h): at start-up the offer to recover what a Motus
    // that did not exit cleanly left behind (one question per recovery: Recover, Discard or
    // Decide Later). Returns how many were recovered.
    int offerRecovery();
    bool recoverFrom(const RecoveryEntry& entry);

    // File ▸ Import CAD… (cad_import.h).
    CadImport* cad() const { return cad_; }

private:
    const engine::SceneSpec* scene() const;
    // The plots panel's plots into the document, and back out of it.
    void keepPlotsInScene();
    void restorePlots();
    void openWithDialog();
    void saveWithDialog();
    void importWithDialog();
    void openRunWithDialog();
    void saveRunWithDialog();
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();

    WindowParts parts_;
    QMenu* recentMenu_ = nullptr;
    CadImport* cad_ = nullptr;
};

}  // namespace ui
