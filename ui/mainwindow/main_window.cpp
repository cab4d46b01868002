#include "ui/mainwindow/main_window.h"

#include <algorithm>
#include <tuple>

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QHeaderView>
#include <QIcon>
#include <QMenuBar>
#include <QSettings>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QToolBar>
#include <QUndoStack>

#include "engine/io/run_file.h"
#include "engine/model/scene_spec.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "ui/analysis/modes_panel.h"
#include "ui/document/recovery.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/analyses.h"
#include "ui/mainwindow/build_tools.h"
#include "ui/mainwindow/copies.h"
#include "ui/mainwindow/design_variables_panel.h"
#include "ui/mainwindow/dof_status.h"
#include "ui/mainwindow/export_actions.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/help_actions.h"
#include "ui/mainwindow/manipulation.h"
#include "ui/mainwindow/messages_panel.h"
#include "ui/mainwindow/run_control.h"
#include "ui/mainwindow/scene_tree_panel.h"
#include "ui/plots/plot_widget.h"
#include "ui/plots/plots_panel.h"
#include "ui/properties/properties_panel.h"
#include "ui/properties/wheel_guard.h"
#include "ui/session/simulation_session.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setObjectName(QStringLiteral("MainWindow"));
    // The wheel scrolls the panels; it never edits a value the user did not click into.
    WheelGuard::install();
    setWindowTitle(QStringLiteral("Motus"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/motus.png")));
    // The document, the run and the panels, then the groups that act on them.
    parts_.window = this;
    parts_.viewport = new ViewportWidget(this);
    parts_.viewport->setObjectName(QStringLiteral("Viewport"));
    setCentralWidget(parts_.viewport);
    parts_.session = new SimulationSession(this);
    parts_.document = new SceneDocument(this);
    parts_.autosaver = new Autosaver(parts_.document, this);
    parts_.messages = new MessagesPanel(parts_.document);
    parts_.timeline = new TimelineWidget(parts_.session);
    parts_.plots = new PlotsPanel(parts_.session);
    parts_.modes = new ModesPanel;
    parts_.modes->setObjectName(QStringLiteral("Modes"));
    parts_.manipulation = new Manipulation(parts_.document, parts_.viewport, this);
    dof_ = new DofStatus;
    parts_.mobility = dof_;
    parts_.runs = new RunControl(parts_);
    designVariables_ = new DesignVariablesPanel(parts_.document);
    designVariables_->setObjectName(QStringLiteral("DesignVariables"));
    properties_ = new PropertiesPanel;
    properties_->setObjectName(QStringLiteral("Properties"));
    tree_ = new SceneTreePanel(parts_);
    tools_ = new BuildTools(parts_.document, parts_.viewport, this);
    copies_ = new Copies(
        parts_.document, [this] { return tree_->selectedEntities(); }, this);
    files_ = new FileActions(parts_);
    analyses_ = new Analyses(parts_);
    exports_ = new ExportActions(parts_);
    help_ = new HelpActions(parts_.messages, this);

    createDocks();
    QMenu* file = menuBar()->addMenu(tr("&File"));
    createEditMenu();  // and Create
    createViewMenu();
    files_->createActions(file);
    exports_->createActions(file);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);  // closeEvent asks first
    quit->setObjectName(QStringLiteral("FileQuit"));
    quit->setShortcut(QKeySequence::Quit);
    QMenu* simulate = menuBar()->addMenu(tr("&Simulate"));
    parts_.runs->createActions(simulate);
    analyses_->createActions(simulate->addMenu(tr("&Analysis")));
    parts_.runs->createPlaybackActions(simulate);
    help_->createActions(menuBar()->addMenu(tr("&Help")));
    parts_.runs->createStatusWidgets(statusBar(), dof_);
    statusBar()->showMessage(tr("Open a scene with File ▸ Open (Ctrl+O)"));
    wire();

    QSettings settings;
    defaultLayout_ = saveState();
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        resize(1100, 720);
    if (!restoreState(settings.value(QStringLiteral("window/state")).toByteArray())) resetLayout();
}

MainWindow::~MainWindow() {
    parts_.autosaver->discard();  // destroyed on purpose, not crashed: nothing to offer next time
}

const engine::SceneSpec* MainWindow::scene() const {
    return parts_.document->scene();
}

QUndoStack* MainWindow::undoStack() const {
    return parts_.document->undoStack();
}

void MainWindow::showStatus(const QString& text) {
    if (text.isEmpty())
        statusBar()->clearMessage();
    else
        statusBar()->showMessage(text);
}

void MainWindow::wire() {
    SceneDocument* document = parts_.document;
    SimulationSession* session = parts_.session;
    ViewportWidget* viewport = parts_.viewport;
    Manipulation* manipulation = parts_.manipulation;
    MessagesPanel* messages = parts_.messages;
    // A recorded run is work too: kept with the recovery while it fits the budget.
    parts_.autosaver->setRunKeeper({[session] {
                                        const engine::Recording* recording = session->recording();
                                        return recording ? static_cast<int>(recording->size()) : 0;
                                    },
                                    [session] {
                                        const engine::Recording* recording = session->recording();
                                        return recording ? static_cast<qint64>(recording->bytes())
                                                         : qint64(0);
                                    },
                                    [session, document](const QString& path, QString& error) {
                                        const engine::Recording* recording = session->recording();
                                        std::string why;
                                        if (!document->scene() || !recording ||
                                            !engine::io::saveRunFile(*document->scene(), *recording,
                                                                     path.toStdString(), why)) {
                                            error = QString::fromStdString(why);
                                            return false;
                                        }
                                        return true;
                                    }});
    connect(document, &SceneDocument::documentReset, this, &MainWindow::documentReset);
    connect(document, &SceneDocument::sceneChanged, this, &MainWindow::sceneEdited);
    connect(document, &SceneDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(document, &SceneDocument::pathChanged, this, &MainWindow::updateTitle);
    // What is said, where the user looks; a message's entities highlighted and selectable.
    connect(messages, &MessagesPanel::said, this,
            [this](const QString& text) { statusBar()->showMessage(text, 10000); });
    connect(messages, &MessagesPanel::highlightRequested, viewport, &ViewportWidget::setSelection);
    connect(messages, &MessagesPanel::selectRequested, tree_,
            [this](quint64 id) { tree_->selectEntity(id); });
    connect(
        session, &SimulationSession::runMessage, messages,
        [messages](bool error, const QString& text, const std::vector<engine::EntityId>& entities) {
            messages->add(error ? MessageSeverity::Error : MessageSeverity::Warning, text,
                          entities);
        });
    connect(copies_, &Copies::message, messages,
            [messages](MessageSeverity severity, const QString& text) {
                messages->add(severity, text);
            });
    connect(copies_, &Copies::created, tree_,
            [this](engine::EntityId id) { tree_->selectEntity(id); });
    connect(manipulation, &Manipulation::message, messages,
            [messages](MessageSeverity severity, const QString& text) {
                messages->add(severity, text);
            });
    connect(manipulation, &Manipulation::status, this, &MainWindow::showStatus);
    connect(tools_, &BuildTools::message, messages, &MessagesPanel::add);
    connect(tools_, &BuildTools::hint, this, &MainWindow::showStatus);
    connect(tools_, &BuildTools::toolChanged, manipulation, [this, manipulation] {
        manipulation->setSelecting(tools_->tool() == BuildTools::Tool::Select);
    });
    // Building and dragging happen on a still mechanism: a tool or a drag pauses the run.
    // An expression of the state in Properties says its value at the frame on screen.
    properties_->setFrameState([session]() -> std::optional<engine::State> {
        const auto snap = session->snapshot();
        const engine::Recording* recording = session->recording();
        engine::State state;
        engine::Outputs outputs;
        if (!snap || !recording || !recording->read(snap->frame, state, outputs))
            return std::nullopt;
        return state;
    });
    connect(session, &SimulationSession::snapshotChanged, properties_,
            &PropertiesPanel::frameChanged);
    connect(tools_, &BuildTools::toolStarted, session, &SimulationSession::pause);
    connect(viewport, &ViewportWidget::gizmoDragStarted, session, &SimulationSession::pause);
    // A new entity is shown for editing; the commands that act on the selection (a motion on
    // a joint, ...) still wait for the user to pick what they act on.
    connect(tools_, &BuildTools::created, this, [this](engine::EntityId id) {
        tree_->selectEntity(id);
        tools_->setSelection(engine::kNoEntity);
    });
    // Selection: the tree's rows are the selection; a click in the view goes to the active
    // building tool, else it selects.
    connect(tree_, &SceneTreePanel::selectionChangedTo, this, &MainWindow::showSelection);
    connect(tree_, &SceneTreePanel::variableSelected, this,
            [this](int index) { properties_->showVariable(scene(), index); });
    connect(tree_, &SceneTreePanel::sensorSelected, this,
            [this](int index) { properties_->showSensor(scene(), index); });
    connect(tree_, &SceneTreePanel::tableSelected, this,
            [this](int index) { properties_->showTable(scene(), index); });
    connect(tree_, &SceneTreePanel::entityPicked, this, [this, manipulation](engine::EntityId id) {
        tools_->setSelection(id);
        manipulation->setSelection(id);
    });
    connect(viewport, &ViewportWidget::pointClicked, this,
            [this](const PickResult& hit, Qt::KeyboardModifiers modifiers) {
                if (!tools_->click(hit, modifiers)) tree_->selectEntity(hit.selectable);
            });
    // A Properties edit goes to the document, which validates and compiles it once; what it
    // refuses is said beside the field.
    connect(properties_, &PropertiesPanel::editRequested, document,
            [this, document](const engine::SceneSpec& after, const QString& description,
                             const QString& key) {
                if (const auto refused = document->changeFields(
                        after, description, key, properties_->entity(), properties_->editedField()))
                    properties_->refuseEdit(QString::fromStdString(refused->message));
            });
    connect(parts_.timeline, &TimelineWidget::resetRequested, parts_.runs, &RunControl::resetRun);
    parts_.modes->setShowPoses(
        [viewport](const std::vector<engine::Transform>& poses) { viewport->setPartPoses(poses); },
        [this] { parts_.runs->showSnapshot(); });
}

void MainWindow::showSelection(const std::vector<quint64>& selected, int shape) {
    parts_.viewport->setSelection(selected);
    tools_->setSelection(std::vector<engine::EntityId>(selected.begin(), selected.end()));
    parts_.manipulation->setSelection(
        selected.size() == 1 ? static_cast<engine::EntityId>(selected.front()) : engine::kNoEntity);
    properties_->showEntity(
        scene(),
        selected.empty() ? engine::kNoEntity : static_cast<engine::EntityId>(selected.front()),
        shape);
}

void MainWindow::resetLayout() {
    restoreState(defaultLayout_);
    // The view gets most of the window: narrow side panels, a low messages area, and a
    // timeline of its own height (closing a dock grows the view, not the timeline).
    auto dock = [this](const char* name) { return findChild<QDockWidget*>(QLatin1String(name)); };
    // Messages and Plots open when there is something to see in them (a problem or a result,
    // a plot); every message is said in the status bar as it comes.
    for (const char* name : {"SceneDock", "PropertiesDock", "TimelineDock"})
        if (QDockWidget* d = dock(name)) d->show();
    for (const char* name : {"MessagesDock", "PlotsDock", "ModesDock", "DesignVariablesDock"})
        if (QDockWidget* d = dock(name)) d->hide();
    const int width = std::max(this->width(), 800), height = std::max(this->height(), 500);
    resizeDocks({dock("PropertiesDock")}, {std::clamp(width * 27 / 100, 280, 400)}, Qt::Horizontal);
    resizeDocks({dock("SceneDock"), dock("PropertiesDock")}, {height * 3 / 10, height * 7 / 10},
                Qt::Vertical);
    resizeDocks({dock("MessagesDock")}, {std::clamp(height / 6, 100, 240)}, Qt::Vertical);
}

void MainWindow::createDocks() {
    setDockNestingEnabled(true);
    // One column on the right, the scene tree above the properties of what is selected in it;
    // the timeline and the messages under the view only: the view keeps most of the window.
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    auto dock = [this](const QString& title, const char* name, QWidget* widget) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(QLatin1String(name));
        d->setWidget(widget);
        return d;
    };
    QDockWidget* treeDock = dock(tr("Scene"), "SceneDock", tree_);
    addDockWidget(Qt::RightDockWidgetArea, treeDock);
    QDockWidget* timelineDock = dock(tr("Timeline"), "TimelineDock", parts_.timeline);
    addDockWidget(Qt::BottomDockWidgetArea, timelineDock);
    // As high as its controls, without a title bar of its own (View ▸ Timeline shows and hides
    // it): the space of a closed dock goes to the view.
    parts_.timeline->setMaximumHeight(parts_.timeline->sizeHint().height());
    timelineDock->setTitleBarWidget(new QWidget(timelineDock));
    QDockWidget* plotsDock = dock(tr("Plots"), "PlotsDock", parts_.plots);
    QDockWidget* propertiesDock = dock(tr("Properties"), "PropertiesDock", properties_);
    splitDockWidget(treeDock, propertiesDock, Qt::Vertical);
    QDockWidget* messageDock = dock(tr("Messages"), "MessagesDock", parts_.messages);
    addDockWidget(Qt::BottomDockWidgetArea, messageDock);
    splitDockWidget(timelineDock, messageDock,
                    Qt::Vertical);  // timeline full width, messages below
    addDockWidget(Qt::BottomDockWidgetArea, plotsDock);
    tabifyDockWidget(messageDock, plotsDock);
    // Vibration modes: a tab beside them, shown once an analysis has found some.
    QDockWidget* modesDock = dock(tr("Modes"), "ModesDock", parts_.modes);
    addDockWidget(Qt::BottomDockWidgetArea, modesDock);
    tabifyDockWidget(plotsDock, modesDock);
    modesDock->hide();
    messageDock->raise();
    // Design variables: a tab beside Properties, shown with a scene that has some.
    QDockWidget* variablesDock =
        dock(tr("Design Variables"), "DesignVariablesDock", designVariables_);
    addDockWidget(Qt::RightDockWidgetArea, variablesDock);
    tabifyDockWidget(propertiesDock, variablesDock);
    variablesDock->hide();
    propertiesDock->raise();
    connect(parts_.document, &SceneDocument::documentReset, variablesDock, [this, variablesDock] {
        if (scene() && !scene()->designVariables.empty()) {
            variablesDock->show();
            variablesDock->raise();
        }
    });
    resizeDocks({treeDock, propertiesDock}, {300, 330}, Qt::Horizontal);
    resizeDocks({timelineDock, messageDock}, {40, 110}, Qt::Vertical);
    // A new plot is shown at once, tall enough to read (the messages' height is too small).
    connect(parts_.plots, &PlotsPanel::plotAdded, this, [this, plotsDock] {
        plotsDock->show();
        plotsDock->raise();
        if (plotsDock->height() < 280) resizeDocks({plotsDock}, {280}, Qt::Vertical);
    });
}

void MainWindow::createEditMenu() {
    QMenu* editMenu = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcuts({QKeySequence::Undo});
    QAction* redo = undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Y), QKeySequence::Redo});
    editMenu->addAction(undo);
    editMenu->addAction(redo);
    editMenu->addSeparator();
    editMenu->addAction(tr("Add &Part"), tree_, &SceneTreePanel::addPart)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    // A named expression of the state for the forces to read (Scene ▸ Variables).
    editMenu->addAction(tr("Add &Variable"), tree_, [this] { tree_->addVariable(); })
        ->setObjectName(QStringLiteral("AddVariable"));
    // An expression of the state watched for crossing a level: it stops the run or marks the
    // instant (Scene ▸ Sensors).
    editMenu->addAction(tr("Add &Sensor"), tree_, [this] { tree_->addSensor(); })
        ->setObjectName(QStringLiteral("AddSensor"));
    // A curve through measured points: a spring's or damper's law, or a function expressions
    // read by name (Scene ▸ Tables).
    editMenu->addAction(tr("Add &Table"), tree_, [this] { tree_->addTable(); })
        ->setObjectName(QStringLiteral("AddTable"));
    QMenu* create = menuBar()->addMenu(tr("&Create"));
    auto* partsBar = addToolBar(tr("Parts"));
    partsBar->setObjectName(QStringLiteral("PartsToolBar"));
    auto* jointsBar = addToolBar(tr("Joints"));
    jointsBar->setObjectName(QStringLiteral("JointsToolBar"));
    auto* forcesBar = addToolBar(tr("Forces and Motions"));
    forcesBar->setObjectName(QStringLiteral("ForcesToolBar"));
    addToolBarBreak();  // the manipulator and its settings on a row of their own, never folded away
    auto* manipulatorBar = addToolBar(tr("Manipulator"));
    manipulatorBar->setObjectName(QStringLiteral("ManipulatorToolBar"));
    for (QToolBar* bar : {partsBar, jointsBar, forcesBar, manipulatorBar})
        bar->setIconSize(QSize(22, 22));
    editMenu->addSeparator();
    parts_.manipulation->createActions(editMenu, manipulatorBar);
    tools_->createActions(create, partsBar, jointsBar, forcesBar);
    QAction* escape = new QAction(tr("End the Tool"), this);
    escape->setShortcut(Qt::Key_Escape);
    connect(escape, &QAction::triggered, tools_, &BuildTools::cancel);
    addAction(escape);
    QAction* remove = editMenu->addAction(tr("&Delete"), tree_, &SceneTreePanel::deleteSelection);
    remove->setShortcut(QKeySequence::Delete);
    remove->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    tree_->addAction(remove);  // Delete in the tree or the view, not while typing in a field
    parts_.viewport->addAction(remove);
    editMenu->addSeparator();
    copies_->createActions(editMenu, {tree_, parts_.viewport});
}

void MainWindow::createViewMenu() {
    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* fit =
        view->addAction(tr("&Fit to Scene"), parts_.viewport, &ViewportWidget::fitToScene);
    fit->setShortcut(Qt::Key_F);
    QMenu* standard = view->addMenu(tr("Standard &Views"));
    const std::pair<QString, ViewportWidget::StandardView> views[] = {
        {tr("&Isometric"), ViewportWidget::StandardView::Isometric},
        {tr("&Front"), ViewportWidget::StandardView::Front},
        {tr("&Back"), ViewportWidget::StandardView::Back},
        {tr("&Left"), ViewportWidget::StandardView::Left},
        {tr("&Right"), ViewportWidget::StandardView::Right},
        {tr("&Top"), ViewportWidget::StandardView::Top},
        {tr("B&ottom"), ViewportWidget::StandardView::Bottom},
    };
    int key = Qt::Key_0;
    for (const auto& [label, which] : views) {
        QAction* a = standard->addAction(
            label, this, [this, which] { parts_.viewport->setStandardView(which); });
        a->setShortcut(
            QKeySequence(QKeyCombination(Qt::KeypadModifier, static_cast<Qt::Key>(key++))));
    }
    view->addSeparator();
    const std::pair<QString, void (ViewportWidget::*)(bool)> toggles[] = {
        {tr("Show &Markers"), &ViewportWidget::setMarkersVisible},
        {tr("Show &Joints"), &ViewportWidget::setJointsVisible},
        {tr("Show &Grid and Axes"), &ViewportWidget::setGridVisible},
        {tr("Show F&loor"), &ViewportWidget::setFloorVisible},
        {tr("Show &Contact and Tooth Forces"), &ViewportWidget::setContactForcesVisible},
        {tr("Show &Previous Run (after Re-run)"), &ViewportWidget::setGhostEnabled},
    };
    for (const auto& [label, setter] : toggles) {
        QAction* a = view->addAction(label);
        a->setCheckable(true);
        a->setChecked(true);
        connect(a, &QAction::toggled, parts_.viewport, setter);
    }
    QAction* centres = view->addAction(tr("Show C&entres of Mass"));
    centres->setCheckable(true);
    connect(centres, &QAction::toggled, parts_.viewport, &ViewportWidget::setCentresOfMassVisible);
    QAction* translucent = view->addAction(tr("&Translucent Parts"));
    translucent->setObjectName(QStringLiteral("ViewTranslucentParts"));
    translucent->setCheckable(true);
    connect(translucent, &QAction::toggled, parts_.viewport, &ViewportWidget::setPartsTranslucent);
    // Quality: the user's choice is kept in the settings; $MOTUS_VIEW_QUALITY (tests,
    // scripted screenshots) overrides it for the session without changing it. With neither,
    // the view's own default holds (anti-aliasing off under software rendering, found when its
    // GL context starts: the ticks are read again whenever the menu opens).
    QMenu* quality = view->addMenu(tr("&Quality"));
    const std::tuple<QString, QString, void (ViewportWidget::*)(bool),
                     bool (ViewportWidget::*)() const>
        qualities[] = {
            {tr("&Shadows"), QStringLiteral("view/shadows"), &ViewportWidget::setShadowsEnabled,
             &ViewportWidget::shadowsEnabled},
            {tr("&Anti-aliasing"), QStringLiteral("view/antiAliasing"),
             &ViewportWidget::setAntiAliasing, &ViewportWidget::antiAliasing},
        };
    for (const auto& [label, key, setter, getter] : qualities) {
        QAction* a = quality->addAction(label);
        a->setObjectName(QStringLiteral("ViewQuality") + key.section(QLatin1Char('/'), 1));
        a->setCheckable(true);
        if (!ViewportWidget::qualityFromEnvironment() && QSettings().contains(key))
            (parts_.viewport->*setter)(QSettings().value(key).toBool());
        a->setChecked((parts_.viewport->*getter)());
        connect(a, &QAction::toggled, parts_.viewport, setter);
        connect(a, &QAction::toggled, this, [key = key](bool checked) {
            if (!ViewportWidget::qualityFromEnvironment()) QSettings().setValue(key, checked);
        });
        connect(quality, &QMenu::aboutToShow, a, [this, a, getter = getter] {
            const QSignalBlocker quiet(a);
            a->setChecked((parts_.viewport->*getter)());
        });
    }
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
    view->addSeparator();
    view->addAction(tr("Reset &Layout"), this, &MainWindow::resetLayout)
        ->setObjectName(QStringLiteral("ResetLayout"));
}

void MainWindow::sceneEdited(const SceneChange& change) {
    parts_.modes->clear();  // of the scene as it was
    if (!scene()) return;
    const engine::EntityId shown = properties_->entity();
    const int shownShape = properties_->shape();
    const int shownVariable = properties_->variable();
    const int shownSensor = properties_->sensor();
    const int shownTable = properties_->table();
    // Each shows what the change touched: moved parts change no row of the tree, a name no
    // count of the mobility. The tree keeps the user's expansion, scroll and column widths.
    if (change.kind != SceneChange::Kind::Poses) tree_->update(*scene());
    parts_.viewport->showScene(*scene(), /*fit=*/false);
    if (shown != engine::kNoEntity) tree_->selectEntity(shown, shownShape, /*scroll=*/false);
    // A variable (a sensor) shown stays shown while it is there (an undone addition takes it away).
    if (shownVariable >= 0 && shownVariable < static_cast<int>(scene()->variables.size())) {
        {
            const QSignalBlocker quiet(tree_->selectionModel());
            tree_->selectVariable(shownVariable, /*scroll=*/false);
        }
        properties_->showVariable(scene(), shownVariable);
    } else if (shownSensor >= 0 && shownSensor < static_cast<int>(scene()->sensors.size())) {
        {
            const QSignalBlocker quiet(tree_->selectionModel());
            tree_->selectSensor(shownSensor, /*scroll=*/false);
        }
        properties_->showSensor(scene(), shownSensor);
    } else if (shownTable >= 0 && shownTable < static_cast<int>(scene()->tables.size())) {
        {
            const QSignalBlocker quiet(tree_->selectionModel());
            tree_->selectTable(shownTable, /*scroll=*/false);
        }
        properties_->showTable(scene(), shownTable);
    } else {
        properties_->showEntity(scene(), shown, shownShape);
    }
    if (change.kind != SceneChange::Kind::Names) dof_->showScene(&parts_.document->compiled());
    parts_.runs->sceneEdited();
}

void MainWindow::documentReset() {
    parts_.modes->clear();
    const engine::SceneSpec* spec = scene();
    tools_->cancel();
    tree_->rebuild(spec, 150);
    if (spec)
        parts_.viewport->showScene(*spec);
    else
        parts_.viewport->clearScene();
    parts_.plots->clear();
    parts_.runs->documentReset();
    properties_->showEntity(spec, engine::kNoEntity);
    updateTitle();
    dof_->showScene(spec ? &parts_.document->compiled() : nullptr);
}

void MainWindow::updateTitle() {
    if (!scene()) {
        setWindowTitle(QStringLiteral("Motus"));
        return;
    }
    const bool modified = parts_.document->isModified();
    // The name, a star while it differs from its file, and a note when it has no file yet.
    setWindowTitle(QStringLiteral("%1%2%3 — Motus")
                       .arg(parts_.document->title(), modified ? QStringLiteral("*") : QString(),
                            parts_.document->path().isEmpty() &&
                                    !parts_.document->title().endsWith(tr("(run)"))
                                ? tr(" (unsaved)")
                                : QString()));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!files_->maybeSave()) {
        event->ignore();
        return;
    }
    parts_.autosaver->discard();  // a clean exit: saved, or the user chose not to keep the edits
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    event->accept();
}

}  // namespace ui
