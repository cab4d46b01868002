#pragma once
// The application window: the 3D view in the centre, the scene tree on the left, properties on
// the right, timeline, messages and plots at the bottom; the building toolbars above. It wires
// the widgets to the scene document (ui/document), which owns the scene, its file and the undo
// stack; the window asks before an unsaved edit would be lost. Window layout and recent files
// are kept in QSettings.

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include <QByteArray>
#include <QMainWindow>
#include <QString>

#include "engine/model/entity_id.h"

class QLabel;
class QListWidget;
class QMenu;
class QProgressBar;
class QTimer;
class QToolButton;
class QUndoStack;
class QStandardItemModel;
class QToolBar;
class QTreeView;

namespace engine {
struct Diagnostic;
using Diagnostics = std::vector<Diagnostic>;
struct SceneSpec;
struct Model;
struct StaticResult;
struct ModesResult;
class Recording;
}  // namespace engine
namespace engine::io {
struct RobotImportOptions;
}

namespace ui {

class Autosaver;
class BuildTools;
class Copies;
class Manipulation;
struct RecoveryEntry;
class PlotWidget;
class SceneDocument;
class PlotsPanel;
class ModesPanel;
class PropertiesPanel;
class SimulationSession;
class TimelineWidget;
class ViewportWidget;
struct VideoExportOptions;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Loads a scene file. On any error the messages panel lists every problem (with its place
    // in the file) and the current scene stays open; returns whether the file was loaded.
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
    // The plots panel's plots into the document, and back out of it.
    void keepPlotsInScene();
    void restorePlots();
    // Run files: the scene and every recorded frame (reopened without re-simulating).
    bool saveRun(const QString& path);
    bool openRun(const QString& path);
    // A robot description (URDF, MJCF, SDF) as a new unsaved scene; its warnings are listed.
    bool importRobot(const QString& path, const engine::io::RobotImportOptions& options);

    const QString& scenePath() const;
    ViewportWidget* viewport() const { return viewport_; }
    QTreeView* sceneTree() const { return tree_; }
    QListWidget* messages() const { return messages_; }
    SimulationSession* session() const { return session_; }
    PlotsPanel* plots() const { return plots_; }
    // A PDF of every plot, headed by the scene's name and the run's length.
    bool exportPlotsReport(const QString& path, QString* error = nullptr);
    // Simulate ▸ Discard Previous Run: the run before the last Re-run From Here is forgotten.
    void discardPreviousRun();
    PropertiesPanel* properties() const { return properties_; }
    QUndoStack* undoStack() const;
    const engine::SceneSpec* scene() const;
    SceneDocument* document() const { return document_; }
    BuildTools* tools() const { return tools_; }
    Manipulation* manipulation() const { return manipulation_; }
    Copies* copies() const { return copies_; }
    // The mechanism's degrees of freedom as the status bar shows them, and its explanation.
    QString degreesOfFreedomText() const;
    QString degreesOfFreedomExplanation() const;
    // Analyses (Simulate > Analysis). Static ones run on a worker thread and end in an undoable
    // edit that moves the parts (and, for equilibrium, stops them); kinematics and inverse
    // dynamics need a fully driven mechanism and run through the simulator.
    enum class Analysis { Assemble, StaticEquilibrium, Modes };
    bool startAnalysis(Analysis analysis);
    ModesPanel* modesPanel() const { return modes_; }
    bool analysisRunning() const { return analysisRunning_; }
    void cancelAnalysis() { cancelAnalysis_ = true; }
    // Degrees of freedom left free by joints and motions (−1 when the scene does not compile).
    int freeDegreesOfFreedom(QString* problem = nullptr) const;
    bool startKinematics(bool inverseDynamics);
    // Edit > Delete: the selected entities and what depends on them, as one undoable edit.
    void deleteSelection();
    // Edit > Add Part: a 0.1 m, 1 kg cube 0.5 m above the origin, selected for editing.
    void addPart();
    // Renames an entity (as typed in the tree), through validation and the undo stack.
    void renameEntity(quint64 id, const QString& name);
    // Continues the run from the shown frame with the edited scene.
    void rerunFromHere();
    // Starts the run over (with the document as edited).
    void resetRun();

    // Plots the reaction force (world Fx, Fy, Fz and |F|) of a joint of the open scene.
    PlotWidget* plotReactionForce(const QString& joint);
    // Writes the recorded run as CSV (the motus-cli simulate column contract).
    bool exportRunCsv(const QString& path, QString* error = nullptr);
    // File ▸ Export Video…: the recorded run (the part `options` names) as a video, drawn off
    // screen from the recording as the 3D view shows it (its camera, the kinds of node it
    // shows), with a progress dialog whose Cancel stops it. Rendering runs on a worker thread
    // that owns its OpenGL context; the window stays responsive. False with the reason when no
    // file was written (nothing recorded, cancelled, an error): then nothing is left on the
    // disk and a file of that name is as it was.
    bool exportVideo(const VideoExportOptions& options, QString* error = nullptr);
    TimelineWidget* timeline() const { return timeline_; }
    // Crash recovery (ui/document/recovery.h): the autosaver of the open document, and at
    // start-up the offer to recover what a Motus that did not exit cleanly left behind (one
    // question per recovery: Recover, Discard or Decide Later). Returns how many were recovered.
    Autosaver* autosaver() const { return autosaver_; }
    int offerRecovery();
    bool recoverFrom(const RecoveryEntry& entry);
    // View ▸ Reset Layout: the docks where they start, sized so the 3D view has most of the
    // window.
    void resetLayout();
    // Moves the shown frame by `frames` recorded frames (paused; INT_MIN: the first, INT_MAX:
    // the last); one frame past the last recorded one computes it.
    void stepFrames(int frames);
    // A file or folder of the documentation shipped with Motus (README.md, docs/...), as an
    // absolute path; empty when it cannot be found.
    static QString documentationPath(const QString& relative);
    // Help ▸ Keyboard and Mouse: every command's keys (from the menus) and the view's mouse use.
    QString shortcutsText() const;

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    // After an edit, its undo or redo: tree, view and properties follow; an unstarted run
    // restarts with the edit, a run with recorded frames keeps them and offers Simulate >
    // Re-run From Here.
    void sceneEdited();
    // A different document is open: everything starts over with it.
    void documentReset();
    void updateTitle();
    void updateDegreesOfFreedom();
    // After session_->start() for the document: a run that started is the document's (its
    // scene kept to tell a stale run); one that failed says why the scene cannot run. Then
    // updateRunState().
    bool noteRunStart(const engine::Diagnostics& problems, const QString& analysis);
    // Whether the run shown is the document's: a stale one is marked so in the view, the
    // timeline, the plots and the status bar, and computes nothing new; with no run, why the
    // scene cannot run (when it cannot).
    void updateRunState();
    // Before an action that drops the recorded run (`action`, e.g. "Reset"): asks the user
    // when there is one worth keeping. True when it is fine to go on.
    bool confirmDropRun(const QString& action);
    // The recorded run as it was last saved to (or opened from) a run file: New, Open and Quit
    // ask before dropping a run that is not (maybeKeepRun).
    bool runIsSaved() const;
    void noteRunSaved();
    void createActions();
    void createDocks();
    // A finished modes analysis: the Modes tab filled and in front, the frequencies said.
    // About a frame of the run at frameTime ≥ 0, else about the stable equilibrium.
    void showModes(const std::shared_ptr<const engine::Model>& model,
                   const engine::StaticResult& at, const engine::ModesResult& modes,
                   double frameTime);
    void openWithDialog();
    void saveWithDialog();
    void showAbout();
    void showShortcuts();
    void openDocumentation(const QString& relative);
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void addMessage(int severity, const QString& text,
                    const std::vector<engine::EntityId>& entities = {});
    // What a diagnostic is about: its entities, and the one its place in the scene names.
    std::vector<engine::EntityId> entitiesOf(const engine::Diagnostic& d) const;
    void showSnapshot();
    void showTreeMenu(const QPoint& position);
    // Selects the entity's row in the tree; `shape` (1-based) a part's geometry row.
    void selectEntity(quint64 entity, int shape = 0);
    void treeSelectionChanged();
    // After the tree is filled again: the Name column at least `width` and wide enough for the
    // names it shows.
    void fitNameColumn(int width);
    void exportRunCsvWithDialog();
    void exportVideoWithDialog();
    void exportPlotWithDialog();
    void runToDialog();

    ViewportWidget* viewport_ = nullptr;
    QTreeView* tree_ = nullptr;
    QStandardItemModel* treeModel_ = nullptr;
    QListWidget* messages_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    SimulationSession* session_ = nullptr;
    TimelineWidget* timeline_ = nullptr;
    PlotsPanel* plots_ = nullptr;
    ModesPanel* modes_ = nullptr;
    PropertiesPanel* properties_ = nullptr;
    SceneDocument* document_ = nullptr;
    BuildTools* tools_ = nullptr;
    Manipulation* manipulation_ = nullptr;
    Copies* copies_ = nullptr;
    Autosaver* autosaver_ = nullptr;
    QToolButton* dofButton_ = nullptr;
    QString dofExplanation_;
    QAction* rerunAction_ = nullptr;
    QAction* discardPreviousAction_ = nullptr;
    QAction* exportVideoAction_ = nullptr;
    quint64 documentRevision_ = 0;  // counts edits and documents: a result's scene is current
    bool documentEdited_ = false;   // the document changed since the run's model was compiled
    std::string runSceneJson_;      // the scene the session's run was computed from
    QString cannotRun_;             // why the document as edited cannot run (empty: it can)
    std::vector<engine::EntityId> cannotRunEntities_;  // what cannotRun_ is about
    QString analysisName_;      // what the run computes: Dynamics, Kinematics, ...
    QByteArray defaultLayout_;  // the docks as made (View ▸ Reset Layout)
    const engine::Recording* savedRun_ = nullptr;  // noteRunSaved()
    std::size_t savedRunFrames_ = 0;
    long singularTold_ = 0;         // singular passages of the run the user was told of
    bool branchTold_ = false;       // the run's change of branch was said
    bool energyDriftTold_ = false;  // the run's energy drift was said
    std::thread analysis_;
    std::atomic<bool> cancelAnalysis_{false};
    std::atomic<double> analysisProgress_{0.0};
    QTimer* analysisTimer_ = nullptr;
    double analysisStarted_ = 0.0;  // seconds since the epoch
    bool analysisRunning_ = false;
    QLabel* simulationStatus_ = nullptr;
    QProgressBar* runProgress_ = nullptr;
    QToolButton* cancelRun_ = nullptr;
    double runStartTime_ = -1.0;  // simulated time when the current run-to began
};

}  // namespace ui
