#pragma once
// The application window: the 3D view in the centre, the scene tree and the properties of
// what is selected on the right, timeline, messages, plots and modes at the bottom, the
// building toolbars above. The window only makes and wires: the document (ui/document) owns
// the scene, its file and the undo stack; each menu is an action group of its own (files,
// runs, analyses, exports, help, the building tools, the manipulator, copies) acting on the
// parts the window hands it (window_parts.h). Window layout and recent files are kept in
// QSettings.

#include <vector>

#include <QByteArray>
#include <QMainWindow>

#include "ui/mainwindow/window_parts.h"

class QUndoStack;

namespace engine {
struct SceneSpec;
}

namespace ui {

class Analyses;
class BuildTools;
class Copies;
class DofStatus;
class ExportActions;
class FileActions;
class HelpActions;
class PropertiesPanel;
class DesignVariablesPanel;
class SceneTreePanel;
struct SceneChange;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // The action groups.
    FileActions* files() const { return files_; }
    RunControl* runs() const { return parts_.runs; }
    Analyses* analyses() const { return analyses_; }
    ExportActions* exports() const { return exports_; }
    HelpActions* help() const { return help_; }
    BuildTools* tools() const { return tools_; }
    Manipulation* manipulation() const { return parts_.manipulation; }
    Copies* copies() const { return copies_; }

    // The document, the run and the panels.
    SceneDocument* document() const { return parts_.document; }
    const engine::SceneSpec* scene() const;
    QUndoStack* undoStack() const;
    SimulationSession* session() const { return parts_.session; }
    Autosaver* autosaver() const { return parts_.autosaver; }
    ViewportWidget* viewport() const { return parts_.viewport; }
    SceneTreePanel* sceneTree() const { return tree_; }
    PropertiesPanel* properties() const { return properties_; }
    DesignVariablesPanel* designVariables() const { return designVariables_; }
    MessagesPanel* messages() const { return parts_.messages; }
    PlotsPanel* plots() const { return parts_.plots; }
    ModesPanel* modesPanel() const { return parts_.modes; }
    TimelineWidget* timeline() const { return parts_.timeline; }
    // The mechanism's degrees of freedom as the status bar shows them (a click explains).
    DofStatus* degreesOfFreedom() const { return dof_; }

    // View ▸ Reset Layout: the docks where they start, sized so the 3D view has most of the
    // window.
    void resetLayout();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createDocks();
    void createEditMenu();
    void createViewMenu();
    void wire();
    // After an edit, its undo or redo: tree, view, properties and mobility follow, then the
    // run (RunControl::sceneEdited).
    void sceneEdited(const SceneChange& change);
    // A different document is open: everything starts over with it.
    void documentReset();
    void updateTitle();
    // The tree's selection (or a pick) everywhere else: the view, the tools, the manipulator,
    // the properties.
    void showSelection(const std::vector<quint64>& entities, int shape);
    void showStatus(const QString& text);

    WindowParts parts_;
    SceneTreePanel* tree_ = nullptr;
    PropertiesPanel* properties_ = nullptr;
    DesignVariablesPanel* designVariables_ = nullptr;
    DofStatus* dof_ = nullptr;
    FileActions* files_ = nullptr;
    Analyses* analyses_ = nullptr;
    ExportActions* exports_ = nullptr;
    HelpActions* help_ = nullptr;
    BuildTools* tools_ = nullptr;
    Copies* copies_ = nullptr;
    QByteArray defaultLayout_;  // the docks as made (View ▸ Reset Layout)
};

}  // namespace ui
