#include "ui/mainwindow/main_window.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <tuple>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QEventLoop>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QIcon>
#include <QInputDialog>
#include <QLineEdit>
#include <QProgressBar>
#include <QProgressDialog>
#include <QSaveFile>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

#include <QDateTime>
#include <QDesktopServices>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSet>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>
#include <QUndoStack>
#include <QUrl>
#include <QtMath>
#include <sstream>

#include "engine/analysis/mobility.h"
#include "engine/analysis/modes.h"
#include "engine/analysis/statics.h"
#include "engine/io/csv_export.h"
#include "engine/io/robot_import.h"
#include "engine/io/run_file.h"
#include "engine/io/scene_json.h"
#include "engine/model/construct.h"
#include "engine/model/edit.h"
#include "engine/model/scene_spec.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "engine/version.h"
#include "ui/analysis/modes_panel.h"
#include "ui/document/recovery.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/build_tools.h"
#include "ui/mainwindow/copies.h"
#include "ui/mainwindow/manipulation.h"
#include "ui/mainwindow/robot_import_dialog.h"
#include "ui/mainwindow/video_export_dialog.h"
#include "ui/models/scene_tree.h"
#include "ui/plots/plot_widget.h"
#include "ui/plots/plots_panel.h"
#include "ui/properties/properties_panel.h"
#include "ui/properties/wheel_guard.h"
#include "ui/render/video_export.h"
#include "ui/session/simulation_session.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {
namespace {

constexpr int kMaxRecentFiles = 8;
constexpr int kMessageEntityRole = Qt::UserRole + 1;  // the entity a message names
constexpr int kMessageError = 0, kMessageWarning = 1, kMessageInfo = 2;
constexpr int kMessageResult = 3;  // an analysis result: information the user waits for

QString toQString(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setObjectName(QStringLiteral("MainWindow"));
    // The wheel scrolls the panels; it never edits a value the user did not click into.
    WheelGuard::install();
    setWindowTitle(QStringLiteral("Motus"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/motus.png")));
    viewport_ = new ViewportWidget(this);
    viewport_->setObjectName(QStringLiteral("Viewport"));
    setCentralWidget(viewport_);
    session_ = new SimulationSession(this);
    document_ = new SceneDocument(this);
    autosaver_ = new Autosaver(document_, this);
    // A recorded run is work too: kept with the recovery while it fits the budget.
    autosaver_->setRunKeeper(
        {[this] {
             const engine::Recording* recording = session_->recording();
             return recording ? static_cast<int>(recording->size()) : 0;
         },
         [this] {
             const engine::Recording* recording = session_->recording();
             return recording ? static_cast<qint64>(recording->bytes()) : qint64(0);
         },
         [this](const QString& path, QString& error) {
             const engine::Recording* recording = session_->recording();
             std::string why;
             if (!scene() || !recording ||
                 !engine::io::saveRunFile(*scene(), *recording, path.toStdString(), why)) {
                 error = QString::fromStdString(why);
                 return false;
             }
             return true;
         }});
    connect(document_, &SceneDocument::documentReset, this, &MainWindow::documentReset);
    connect(document_, &SceneDocument::sceneChanged, this, &MainWindow::sceneEdited);
    connect(document_, &SceneDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(document_, &SceneDocument::pathChanged, this, &MainWindow::updateTitle);
    tools_ = new BuildTools(document_, viewport_, this);
    copies_ = new Copies(
        document_,
        [this] {
            std::vector<engine::EntityId> ids;
            for (const QModelIndex& index : tree_->selectionModel()->selectedRows())
                if (!index.data(kShapeRole).toInt())
                    if (const quint64 id = index.data(kEntityIdRole).toULongLong())
                        ids.push_back(static_cast<engine::EntityId>(id));
            return ids;
        },
        this);
    connect(copies_, &Copies::message, this,
            [this](int severity, const QString& text) { addMessage(severity, text); });
    connect(copies_, &Copies::created, this, [this](engine::EntityId id) { selectEntity(id); });
    manipulation_ = new Manipulation(document_, viewport_, this);
    connect(manipulation_, &Manipulation::message, this,
            [this](int severity, const QString& text) { addMessage(severity, text); });
    connect(manipulation_, &Manipulation::status, this, [this](const QString& text) {
        if (text.isEmpty())
            statusBar()->clearMessage();
        else
            statusBar()->showMessage(text);
    });
    connect(tools_, &BuildTools::toolChanged, manipulation_,
            [this] { manipulation_->setSelecting(tools_->tool() == BuildTools::Tool::Select); });
    // A drag edits the design pose: the run pauses first.
    connect(viewport_, &ViewportWidget::gizmoDragStarted, this, [this] { session_->pause(); });
    connect(
        tools_, &BuildTools::message, this,
        [this](int severity, const QString& text, const std::vector<engine::EntityId>& entities) {
            addMessage(severity, text, entities);
        });
    connect(tools_, &BuildTools::hint, this, [this](const QString& text) {
        if (text.isEmpty())
            statusBar()->clearMessage();
        else
            statusBar()->showMessage(text);
    });
    // A new entity is shown for editing; the commands that act on the selection (a motion on
    // a joint, ...) still wait for the user to pick what they act on.
    // Building happens on a still mechanism: a tool pauses the run.
    connect(tools_, &BuildTools::toolStarted, this, [this] { session_->pause(); });
    connect(tools_, &BuildTools::created, this, [this](engine::EntityId id) {
        selectEntity(id);
        tools_->setSelection(engine::kNoEntity);
    });
    connect(session_, &SimulationSession::snapshotChanged, this, &MainWindow::showSnapshot);
    connect(session_, &SimulationSession::runMessage, this,
            [this](bool error, const QString& text, const std::vector<engine::EntityId>& entities) {
                addMessage(error ? kMessageError : kMessageWarning, text, entities);
            });
    createDocks();
    createActions();
    // Progress of "Run to": bar, ETA and Cancel in the status bar (the engine thread does
    // the work; the GUI only polls).
    runProgress_ = new QProgressBar;
    runProgress_->setObjectName(QStringLiteral("RunProgress"));
    runProgress_->setMaximumWidth(260);
    runProgress_->setRange(0, 1000);
    runProgress_->hide();
    cancelRun_ = new QToolButton;
    cancelRun_->setText(tr("Cancel"));
    cancelRun_->setToolTip(tr("Stop the run here; everything computed so far is kept"));
    cancelRun_->hide();
    connect(cancelRun_, &QToolButton::clicked, this, [this] {
        if (analysisRunning_)
            cancelAnalysis();
        else
            session_->pause();
    });
    // An analysis's progress: bar, time left and Cancel, polled from its worker thread.
    analysisTimer_ = new QTimer(this);
    analysisTimer_->setInterval(100);
    connect(analysisTimer_, &QTimer::timeout, this, [this] {
        const double done = analysisProgress_.load();
        const double elapsed = QDateTime::currentMSecsSinceEpoch() / 1000.0 - analysisStarted_;
        runProgress_->setRange(0, 1000);
        runProgress_->setValue(static_cast<int>(done * 1000));
        runProgress_->setFormat(
            done > 0.02
                ? tr("analysis: %p% — %1 s left").arg(elapsed * (1.0 - done) / done, 0, 'f', 1)
                : tr("analysis: %p%"));
    });
    statusBar()->addPermanentWidget(runProgress_);
    statusBar()->addPermanentWidget(cancelRun_);
    // The mechanism's mobility, always in view; a click explains it.
    dofButton_ = new QToolButton;
    dofButton_->setObjectName(QStringLiteral("DegreesOfFreedom"));
    dofButton_->setAutoRaise(true);
    dofButton_->setToolTip(
        tr("Degrees of freedom: click for the redundant equations and how to remove them"));
    connect(dofButton_, &QToolButton::clicked, this, [this] {
        QDialog dialog(this);
        dialog.setObjectName(QStringLiteral("DegreesOfFreedomDialog"));
        dialog.setWindowTitle(tr("Degrees of freedom"));
        auto* layout = new QVBoxLayout(&dialog);
        auto* summary =
            new QLabel(QStringLiteral("<b>%1</b>").arg(degreesOfFreedomText().toHtmlEscaped()));
        layout->addWidget(summary);
        auto* text = new QTextBrowser;
        text->setHtml(degreesOfFreedomExplanation());
        layout->addWidget(text, 1);
        auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
        connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
        layout->addWidget(buttons);
        dialog.resize(640, 440);
        dialog.exec();
    });
    statusBar()->addPermanentWidget(dofButton_);
    simulationStatus_ = new QLabel;
    statusBar()->addPermanentWidget(simulationStatus_);
    statusBar()->showMessage(tr("Open a scene with File ▸ Open (Ctrl+O)"));

    QSettings settings;
    defaultLayout_ = saveState();
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        resize(1100, 720);
    if (!restoreState(settings.value(QStringLiteral("window/state")).toByteArray())) resetLayout();
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
    for (const char* name : {"MessagesDock", "PlotsDock", "ModesDock"})
        if (QDockWidget* d = dock(name)) d->hide();
    const int width = std::max(this->width(), 800), height = std::max(this->height(), 500);
    resizeDocks({dock("PropertiesDock")}, {std::clamp(width * 27 / 100, 280, 400)}, Qt::Horizontal);
    resizeDocks({dock("SceneDock"), dock("PropertiesDock")}, {height * 3 / 10, height * 7 / 10},
                Qt::Vertical);
    resizeDocks({dock("MessagesDock")}, {std::clamp(height / 6, 100, 240)}, Qt::Vertical);
}

const QString& MainWindow::scenePath() const {
    return document_->path();
}
QUndoStack* MainWindow::undoStack() const {
    return document_->undoStack();
}
const engine::SceneSpec* MainWindow::scene() const {
    return document_->scene();
}

MainWindow::~MainWindow() {
    cancelAnalysis_ = true;
    if (analysis_.joinable()) analysis_.join();
    autosaver_->discard();  // destroyed on purpose, not crashed: nothing to offer next time
}

void MainWindow::createDocks() {
    setDockNestingEnabled(true);

    treeModel_ = new QStandardItemModel(this);
    tree_ = new QTreeView;
    tree_->setObjectName(QStringLiteral("SceneTree"));
    tree_->setModel(treeModel_);
    tree_->setUniformRowHeights(true);
    tree_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    // One column on the right, the scene tree above the properties of what is selected in it;
    // the timeline and the messages under the view only: the view keeps most of the window.
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    auto* treeDock = new QDockWidget(tr("Scene"), this);
    treeDock->setObjectName(QStringLiteral("SceneDock"));
    treeDock->setWidget(tree_);
    addDockWidget(Qt::RightDockWidgetArea, treeDock);

    timeline_ = new TimelineWidget(session_);
    connect(timeline_, &TimelineWidget::resetRequested, this, &MainWindow::resetRun);
    auto* timelineDock = new QDockWidget(tr("Timeline"), this);
    timelineDock->setObjectName(QStringLiteral("TimelineDock"));
    timelineDock->setWidget(timeline_);
    addDockWidget(Qt::BottomDockWidgetArea, timelineDock);
    // As high as its controls, without a title bar of its own (View ▸ Timeline shows and hides
    // it): the space of a closed dock goes to the view.
    timeline_->setMaximumHeight(timeline_->sizeHint().height());
    timelineDock->setTitleBarWidget(new QWidget(timelineDock));

    plots_ = new PlotsPanel(session_);
    auto* plotsDock = new QDockWidget(tr("Plots"), this);
    plotsDock->setObjectName(QStringLiteral("PlotsDock"));
    plotsDock->setWidget(plots_);

    properties_ = new PropertiesPanel;
    properties_->setObjectName(QStringLiteral("Properties"));
    auto* propertiesDock = new QDockWidget(tr("Properties"), this);
    propertiesDock->setObjectName(QStringLiteral("PropertiesDock"));
    propertiesDock->setWidget(properties_);
    splitDockWidget(treeDock, propertiesDock, Qt::Vertical);
    connect(properties_, &PropertiesPanel::editRequested, this,
            [this](const engine::SceneSpec& after, const QString& description, const QString& key) {
                document_->changeFields(after, description, key);
            });

    messages_ = new QListWidget;
    messages_->setObjectName(QStringLiteral("Messages"));
    messages_->setWordWrap(true);
    connect(messages_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        if (const quint64 id = item->data(kMessageEntityRole).toULongLong()) selectEntity(id);
    });
    auto* messageDock = new QDockWidget(tr("Messages"), this);
    messageDock->setObjectName(QStringLiteral("MessagesDock"));
    messageDock->setWidget(messages_);
    addDockWidget(Qt::BottomDockWidgetArea, messageDock);
    splitDockWidget(timelineDock, messageDock,
                    Qt::Vertical);  // timeline full width, messages below
    addDockWidget(Qt::BottomDockWidgetArea, plotsDock);
    tabifyDockWidget(messageDock, plotsDock);
    // Vibration modes: a tab beside them, shown once an analysis has found some.
    modes_ = new ModesPanel;
    modes_->setObjectName(QStringLiteral("Modes"));
    auto* modesDock = new QDockWidget(tr("Modes"), this);
    modesDock->setObjectName(QStringLiteral("ModesDock"));
    modesDock->setWidget(modes_);
    addDockWidget(Qt::BottomDockWidgetArea, modesDock);
    tabifyDockWidget(plotsDock, modesDock);
    modesDock->hide();
    modes_->setShowPoses(
        [this](const std::vector<engine::Transform>& poses) { viewport_->setPartPoses(poses); },
        [this] { showSnapshot(); });
    messageDock->raise();

    connect(tree_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &MainWindow::treeSelectionChanged);
    connect(tree_, &QTreeView::expanded, this,
            [this] { fitNameColumn(tree_->header()->sectionSize(0)); });
    // Renaming in place: the new name goes through validation and the undo stack, after the
    // tree's own edit has finished (the tree is rebuilt by the edit).
    connect(treeModel_, &QStandardItemModel::itemChanged, this, [this](QStandardItem* item) {
        if (item->column() != 0) return;
        const auto id = static_cast<engine::EntityId>(item->data(kEntityIdRole).toULongLong());
        const QString text = item->text().trimmed();
        if (id == engine::kNoEntity) return;
        QMetaObject::invokeMethod(
            this, [this, id, text] { renameEntity(id, text); }, Qt::QueuedConnection);
    });
    // A click in the view goes to the active building tool, else it selects.
    connect(viewport_, &ViewportWidget::pointClicked, this,
            [this](const PickResult& hit, Qt::KeyboardModifiers modifiers) {
                if (!tools_->click(hit, modifiers)) selectEntity(hit.selectable);
            });

    tree_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(tree_, &QTreeView::customContextMenuRequested, this, &MainWindow::showTreeMenu);
    resizeDocks({treeDock, findChild<QDockWidget*>(QStringLiteral("PropertiesDock"))}, {300, 330},
                Qt::Horizontal);
    resizeDocks({timelineDock, messageDock}, {40, 110}, Qt::Vertical);
    // A new plot is shown at once, tall enough to read (the messages' height is too small).
    connect(plots_, &PlotsPanel::plotAdded, this, [this, plotsDock] {
        plotsDock->show();
        plotsDock->raise();
        if (plotsDock->height() < 280) resizeDocks({plotsDock}, {280}, Qt::Vertical);
    });
}

void MainWindow::createActions() {
    // File
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* newAction = file->addAction(tr("&New"), this, [this] {
        if (maybeSave()) newScene();
    });
    newAction->setObjectName(QStringLiteral("FileNew"));
    newAction->setShortcut(QKeySequence::New);
    QAction* open = file->addAction(tr("&Open…"), this, &MainWindow::openWithDialog);
    open->setObjectName(QStringLiteral("FileOpen"));
    open->setShortcut(QKeySequence::Open);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    QAction* save = file->addAction(tr("&Save"), this, &MainWindow::save);
    save->setObjectName(QStringLiteral("FileSave"));
    save->setShortcut(QKeySequence::Save);
    file->addAction(tr("Save &As…"), this, &MainWindow::saveWithDialog)
        ->setShortcut(QKeySequence::SaveAs);
    file->addSeparator();
    QAction* importAction = file->addAction(tr("&Import Robot…"), this, [this] {
        if (!maybeSave()) return;
        QSettings settings;
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Import Robot"),
            settings.value(QStringLiteral("robotImport/folder")).toString(),
            tr("Robot descriptions (*.urdf *.xml *.mjcf *.sdf *.world);;URDF (*.urdf *.xml);;"
               "MJCF: MuJoCo (*.xml *.mjcf);;SDF: Gazebo (*.sdf *.world);;All files (*)"));
        if (path.isEmpty()) return;
        settings.setValue(QStringLiteral("robotImport/folder"), QFileInfo(path).absolutePath());
        RobotImportDialog dialog(path, this);
        if (dialog.exec() != QDialog::Accepted) return;
        dialog.remember();
        importRobot(path, dialog.options());
    });
    importAction->setObjectName(QStringLiteral("FileImportRobot"));
    importAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    file->addAction(tr("Open R&un…"), this, [this] {
        if (!maybeSave()) return;
        const QString path = QFileDialog::getOpenFileName(this, tr("Open Run"), QString(),
                                                          tr("Motus runs (*.motusrun)"));
        if (!path.isEmpty()) openRun(path);
    });
    file->addAction(tr("Save Ru&n As…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save Run"), QString(),
                                                          tr("Motus runs (*.motusrun)"));
        if (!path.isEmpty())
            saveRun(path.endsWith(QLatin1String(".motusrun")) ? path
                                                              : path + QStringLiteral(".motusrun"));
    });
    file->addAction(tr("Export Run as &CSV…"), this, &MainWindow::exportRunCsvWithDialog);
    exportVideoAction_ =
        file->addAction(tr("Export &Video…"), this, &MainWindow::exportVideoWithDialog);
    exportVideoAction_->setObjectName(QStringLiteral("FileExportVideo"));
    exportVideoAction_->setStatusTip(tr("Write the recorded run as an MP4 or WebM video"));
    // Only a recorded run can be filmed (more than the start frame).
    connect(file, &QMenu::aboutToShow, this, [this] {
        const engine::Recording* recording = session_->recording();
        exportVideoAction_->setEnabled(recording && recording->size() > recording->first() + 1);
    });
    file->addAction(tr("Export &Plot…"), this, &MainWindow::exportPlotWithDialog);
    file->addAction(tr("Export Plots &Report (PDF)…"), this, [this] {
        if (plots_->plotCount() == 0) {
            addMessage(kMessageWarning, tr("There is no plot to put in a report: right-click a "
                                           "joint or part to plot it."));
            return;
        }
        const QString path = QFileDialog::getSaveFileName(this, tr("Export Plots Report"),
                                                          QString(), tr("PDF (*.pdf)"));
        if (path.isEmpty()) return;
        exportPlotsReport(path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive)
                              ? path
                              : path + QStringLiteral(".pdf"));
    });
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);  // closeEvent asks first
    quit->setObjectName(QStringLiteral("FileQuit"));
    quit->setShortcut(QKeySequence::Quit);

    // Edit
    QMenu* editMenu = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcuts({QKeySequence::Undo});
    QAction* redo = undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Y), QKeySequence::Redo});
    editMenu->addAction(undo);
    editMenu->addAction(redo);
    editMenu->addSeparator();
    editMenu->addAction(tr("Add &Part"), this, &MainWindow::addPart)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
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
    manipulation_->createActions(editMenu, manipulatorBar);
    tools_->createActions(create, partsBar, jointsBar, forcesBar);
    QAction* escape = new QAction(tr("End the Tool"), this);
    escape->setShortcut(Qt::Key_Escape);
    connect(escape, &QAction::triggered, tools_, &BuildTools::cancel);
    addAction(escape);
    QAction* remove = editMenu->addAction(tr("&Delete"), this, &MainWindow::deleteSelection);
    remove->setShortcut(QKeySequence::Delete);
    remove->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    tree_->addAction(remove);  // Delete in the tree or the view, not while typing in a field
    viewport_->addAction(remove);
    editMenu->addSeparator();
    copies_->createActions(editMenu, {tree_, viewport_});

    // View
    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* fit = view->addAction(tr("&Fit to Scene"), viewport_, &ViewportWidget::fitToScene);
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
        QAction* a =
            standard->addAction(label, this, [this, which] { viewport_->setStandardView(which); });
        a->setShortcut(
            QKeySequence(QKeyCombination(Qt::KeypadModifier, static_cast<Qt::Key>(key++))));
    }
    view->addSeparator();
    const std::pair<QString, void (ViewportWidget::*)(bool)> toggles[] = {
        {tr("Show &Markers"), &ViewportWidget::setMarkersVisible},
        {tr("Show &Joints"), &ViewportWidget::setJointsVisible},
        {tr("Show &Grid and Axes"), &ViewportWidget::setGridVisible},
        {tr("Show F&loor"), &ViewportWidget::setFloorVisible},
        {tr("Show &Contact Forces"), &ViewportWidget::setContactForcesVisible},
        {tr("Show &Previous Run (after Re-run)"), &ViewportWidget::setGhostEnabled},
    };
    for (const auto& [label, setter] : toggles) {
        QAction* a = view->addAction(label);
        a->setCheckable(true);
        a->setChecked(true);
        connect(a, &QAction::toggled, viewport_, setter);
    }
    QAction* centres = view->addAction(tr("Show C&entres of Mass"));
    centres->setCheckable(true);
    connect(centres, &QAction::toggled, viewport_, &ViewportWidget::setCentresOfMassVisible);
    QAction* translucent = view->addAction(tr("&Translucent Parts"));
    translucent->setObjectName(QStringLiteral("ViewTranslucentParts"));
    translucent->setCheckable(true);
    connect(translucent, &QAction::toggled, viewport_, &ViewportWidget::setPartsTranslucent);
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
            (viewport_->*setter)(QSettings().value(key).toBool());
        a->setChecked((viewport_->*getter)());
        connect(a, &QAction::toggled, viewport_, setter);
        connect(a, &QAction::toggled, this, [key = key](bool checked) {
            if (!ViewportWidget::qualityFromEnvironment()) QSettings().setValue(key, checked);
        });
        connect(quality, &QMenu::aboutToShow, a, [this, a, getter = getter] {
            const QSignalBlocker quiet(a);
            a->setChecked((viewport_->*getter)());
        });
    }
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
    view->addSeparator();
    view->addAction(tr("Reset &Layout"), this, &MainWindow::resetLayout)
        ->setObjectName(QStringLiteral("ResetLayout"));

    // Simulate
    QMenu* simulate = menuBar()->addMenu(tr("&Simulate"));
    // With no run because the scene cannot run, Play and Step say why instead of nothing.
    auto runnable = [this] {
        if (session_->active()) return true;
        if (!cannotRun_.isEmpty())
            addMessage(kMessageError, tr("Cannot run the scene: %1").arg(cannotRun_),
                       cannotRunEntities_);
        return false;
    };
    QAction* play = simulate->addAction(tr("&Play / Pause"), this, [this, runnable] {
        if (runnable()) session_->togglePlay();
    });
    play->setShortcut(Qt::Key_Space);
    QAction* step = simulate->addAction(tr("&Step"), this, [this, runnable] {
        if (runnable()) session_->step();
    });
    step->setShortcut(Qt::Key_Period);
    QAction* reset = simulate->addAction(tr("&Reset"), this, &MainWindow::resetRun);
    reset->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    rerunAction_ = simulate->addAction(tr("Re-run From &Here"), this, &MainWindow::rerunFromHere);
    rerunAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    rerunAction_->setEnabled(false);
    discardPreviousAction_ =
        simulate->addAction(tr("&Discard Previous Run"), this, [this] { discardPreviousRun(); });
    discardPreviousAction_->setToolTip(
        tr("Forget the run as it was before Re-run From Here (its ghost and dashed curves)"));
    discardPreviousAction_->setEnabled(false);
    simulate->addAction(tr("Run &to…"), this, &MainWindow::runToDialog)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    QMenu* analysis = simulate->addMenu(tr("&Analysis"));
    analysis->addAction(tr("&Dynamics (Run to…)"), this, [this] {
        // Back from a kinematic analysis: the run integrates the motion again.
        if (session_->kinematic() && scene()) {
            if (!confirmDropRun(tr("Going back to Dynamics"))) return;
            const engine::Diagnostics problems = session_->start(*scene(), /*kinematic=*/false);
            for (const engine::Diagnostic& d : problems)
                addMessage(d.severity == engine::Severity::Error ? kMessageError : kMessageWarning,
                           toQString(d.message), entitiesOf(d));
            if (!noteRunStart(problems, tr("Dynamics"))) return;
            documentEdited_ = false;
        }
        runToDialog();
    });
    analysis->addAction(tr("&Kinematics"), this, [this] { startKinematics(false); });
    analysis->addAction(tr("&Inverse Dynamics"), this, [this] { startKinematics(true); });
    analysis->addAction(tr("&Static Equilibrium"), this,
                        [this] { startAnalysis(Analysis::StaticEquilibrium); });
    analysis->addAction(tr("&Assemble"), this, [this] { startAnalysis(Analysis::Assemble); });
    analysis->addAction(tr("&Vibration Modes"), this, [this] { startAnalysis(Analysis::Modes); });
    analysis->addSeparator();
    analysis->addAction(tr("&Cancel Analysis"), this, &MainWindow::cancelAnalysis);
    // Frame by frame through the recording: the arrow keys in the 3D view and the timeline
    // (in the tree and the fields they keep their usual meaning); Shift steps ten frames.
    simulate->addSeparator();
    const std::tuple<QString, QKeySequence, int> frameSteps[] = {
        {tr("Previous Frame"), QKeySequence(Qt::Key_Left), -1},
        {tr("Next Frame"), QKeySequence(Qt::Key_Right), 1},
        {tr("Ten Frames Back"), QKeySequence(Qt::SHIFT | Qt::Key_Left), -10},
        {tr("Ten Frames On"), QKeySequence(Qt::SHIFT | Qt::Key_Right), 10},
        {tr("First Frame"), QKeySequence(Qt::Key_Home), std::numeric_limits<int>::min()},
        {tr("Last Recorded Frame"), QKeySequence(Qt::Key_End), std::numeric_limits<int>::max()},
    };
    for (const auto& [label, keys, frames] : frameSteps) {
        QAction* a =
            simulate->addAction(label, this, [this, frames = frames] { stepFrames(frames); });
        a->setShortcut(keys);
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        viewport_->addAction(a);
        timeline_->addAction(a);
    }
    simulate->addSeparator();
    QAction* loop = simulate->addAction(tr("&Loop Playback"));
    loop->setCheckable(true);
    loop->setChecked(session_->loop());
    loop->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    connect(loop, &QAction::toggled, session_, &SimulationSession::setLoop);
    connect(session_, &SimulationSession::loopChanged, loop, &QAction::setChecked);

    // Help
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* guide = help->addAction(tr("&User Guide"), this,
                                     [this] { openDocumentation(QStringLiteral("README.md")); });
    guide->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&Documentation Folder"), this,
                    [this] { openDocumentation(QStringLiteral("docs")); });
    help->addAction(tr("&Scene File Format"), this,
                    [this] { openDocumentation(QStringLiteral("docs/scene-format.md")); });
    help->addAction(tr("&Keyboard and Mouse…"), this, &MainWindow::showShortcuts)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
    help->addSeparator();
    help->addAction(tr("&About Motus"), this, &MainWindow::showAbout);
}

void MainWindow::stepFrames(int frames) {
    const auto snap = session_->snapshot();
    const engine::Recording* recording = session_->recording();
    if (!snap || !recording || recording->size() == 0) return;
    session_->pause();
    const auto last = static_cast<long long>(recording->size()) - 1;
    const auto current = static_cast<long long>(snap->frame);
    // Past the last recorded frame, one step forward computes the next one.
    if (frames == 1 && current >= last) {
        session_->step();
        return;
    }
    long long target = frames == std::numeric_limits<int>::min()   ? 0
                       : frames == std::numeric_limits<int>::max() ? last
                                                                   : current + frames;
    target = std::clamp(target, 0LL, last);
    if (target != current) session_->seekFrame(static_cast<int>(target));
}

QString MainWindow::documentationPath(const QString& relative) {
    // Installed: <prefix>/share/doc/motus next to <prefix>/bin; in a build tree: the sources.
    const QStringList roots = {
        QCoreApplication::applicationDirPath() + QStringLiteral("/../share/doc/motus"),
        QStringLiteral(MOTUS_SOURCE_DIR)};
    for (const QString& root : roots) {
        const QFileInfo file(root + QLatin1Char('/') + relative);
        if (file.exists()) return file.canonicalFilePath();
    }
    return QString();
}

void MainWindow::openDocumentation(const QString& relative) {
    const QString path = documentationPath(relative);
    if (path.isEmpty()) {
        addMessage(
            kMessageError,
            tr("The documentation (%1) is not installed next to this program.").arg(relative));
        return;
    }
    if (!QDesktopServices::openUrl(QUrl::fromLocalFile(path)))
        addMessage(kMessageWarning,
                   tr("No program to show %1 was found: open it with a text viewer or a browser.")
                       .arg(path));
    else
        addMessage(kMessageInfo, tr("Opened %1").arg(path));
}

QString MainWindow::shortcutsText() const {
    // Every menu command with a key, as the menus hold them, then the mouse.
    QString html = tr("<h3>Keyboard</h3><table cellspacing=\"2\">");
    QSet<QString> seen;
    for (QAction* menu : menuBar()->actions()) {
        if (!menu->menu()) continue;
        QList<QAction*> actions = menu->menu()->actions();
        for (int k = 0; k < actions.size(); ++k) {
            QAction* a = actions[k];
            if (a->menu()) actions.append(a->menu()->actions());  // submenus, after their menu
            if (a->shortcuts().isEmpty() || a->isSeparator()) continue;
            QStringList keys;
            for (const QKeySequence& key : a->shortcuts())
                keys << key.toString(QKeySequence::NativeText);
            const QString what = QString(a->text()).remove(QLatin1Char('&'));
            if (seen.contains(what + keys.join(QString()))) continue;
            seen.insert(what + keys.join(QString()));
            html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td><td>%3</td></tr>")
                        .arg(keys.join(QStringLiteral(", ")).toHtmlEscaped(), what.toHtmlEscaped(),
                             QString(menu->text()).remove(QLatin1Char('&')));
        }
    }
    html +=
        tr("</table><p>The frame keys (arrows, Home, End) act in the 3D view and the timeline; in "
           "the scene "
           "tree and the fields the arrows move as usual.</p>"
           "<h3>Mouse in the 3D view</h3><table cellspacing=\"2\">"
           "<tr><td><b>Left drag</b></td><td>turn the view about the scene</td></tr>"
           "<tr><td><b>Middle drag</b></td><td>pan</td></tr>"
           "<tr><td><b>Right drag</b>, wheel</td><td>zoom</td></tr>"
           "<tr><td><b>Click</b></td><td>select a part, marker or joint (or use the active "
           "tool)</td></tr>"
           "<tr><td><b>Shift + click</b> with a tool</td><td>snap to a face centre, edge, vertex "
           "or axis</td></tr>"
           "<tr><td><b>Drag an arrow or ring</b> of the manipulator</td><td>move or turn the "
           "selected part "
           "or marker (joined parts follow); type an amount, <b>Enter</b> applies, <b>Esc</b> "
           "cancels, "
           "<b>Ctrl</b> inverts snapping</td></tr>"
           "</table>");
    return html;
}

void MainWindow::showShortcuts() {
    QMessageBox box(this);
    box.setWindowTitle(tr("Keyboard and Mouse"));
    box.setTextFormat(Qt::RichText);
    box.setText(shortcutsText());
    box.exec();
}

void MainWindow::newScene() {
    auto spec = std::make_unique<engine::SceneSpec>();  // no name: the file's name is its title
    engine::Part ground;
    ground.id = spec->newId();
    ground.name = "ground";
    ground.ground = true;
    spec->parts.push_back(ground);
    showDocument(std::move(spec), QString(), tr("Untitled"));
    viewport_->setStandardView(ViewportWidget::StandardView::Front);
    addMessage(
        kMessageInfo,
        tr("New scene, seen from the front: place parts from the toolbar (click in the view), "
           "then connect them with joints."));
}

bool MainWindow::openScene(const QString& path) {
    // A run file opened as a scene (File > Open, a recent file, the command line) opens as the run.
    {
        QFile file(path);
        if (file.open(QIODevice::ReadOnly) && file.read(8) == QByteArrayLiteral("MOTUSRUN"))
            return openRun(path);
    }
    const engine::io::SceneLoadResult result = engine::io::loadSceneFile(path.toStdString());
    const QString name = QFileInfo(path).fileName();
    for (const engine::Diagnostic& d : result.diagnostics) {
        const QString where = d.where.empty() ? name : name + QLatin1Char(':') + toQString(d.where);
        // About the file being read, not the open document: no entity of it is named.
        addMessage(d.severity == engine::Severity::Error ? kMessageError : kMessageWarning,
                   QStringLiteral("%1 (%2)").arg(toQString(d.message), where));
    }
    if (!result.scene) {
        addMessage(kMessageError,
                   tr("Could not open %1; the current scene is unchanged.").arg(path));
        statusBar()->showMessage(tr("Could not open %1 — see Messages").arg(name));
        return false;
    }

    showDocument(std::make_unique<engine::SceneSpec>(*result.scene),
                 QFileInfo(path).absoluteFilePath(),
                 result.scene->name.empty() ? name : toQString(result.scene->name));
    addMessage(kMessageInfo, tr("Opened %1").arg(document_->path()));
    addRecentFile(document_->path());
    return true;
}

void MainWindow::showSnapshot() {
    const auto snap = session_->snapshot();
    if (!snap) {
        simulationStatus_->clear();
        return;
    }
    if (viewport_->gizmoDragging()) return;  // the drag's poses are shown
    // Time moved or the scene changed: the mode animation gives the view back (its stop
    // shows this snapshot).
    if (modes_->animatedMode() >= 0) {
        modes_->animateMode(-1);
        return;
    }
    viewport_->setPartPoses(snap->partPoses);
    viewport_->setContacts(snap->outputs.contacts);
    viewport_->setGhostPoses(snap->previousPoses);
    // The manipulator edits the design pose: not while a recorded run is shown.
    const engine::Recording* recording = session_->recording();
    discardPreviousAction_->setEnabled(recording && recording->hasPrevious());
    manipulation_->setDesignPoseShown(!recording || recording->size() <= 1);
    // An energy balance that drifts (in a mechanism that conserves it) is said once per run:
    // the integrator's step is too coarse for the motion.
    const engine::RunStatistics& stats = snap->statistics;
    if (stats.energyDriftTime < 0.0) energyDriftTold_ = false;  // a new run
    if (stats.energyDriftTime >= 0.0 && !energyDriftTold_) {
        energyDriftTold_ = true;
        addMessage(kMessageWarning,
                   tr("The energy balance drifted by more than 1 % of the energy the motion "
                      "exchanges by t = %1 s (%2 J of %3 J so far), in a mechanism that "
                      "conserves it: the integrator's step is too coarse for this motion. A "
                      "smaller step size, or dopri45, keeps it.")
                       .arg(stats.energyDriftTime, 0, 'f', 3)
                       .arg(stats.energyDrift, 0, 'g', 3)
                       .arg(stats.energyScale, 0, 'g', 3));
    }
    // A singular position passed (a dead centre, a linkage lying flat) is said once per run:
    // the motion may be right, but the reactions there are not to be trusted blindly.
    if (snap->statistics.singularPassages < singularTold_) singularTold_ = 0;  // a new run
    if (snap->statistics.singularPassages > 0 && singularTold_ == 0) {
        singularTold_ = snap->statistics.singularPassages;
        addMessage(kMessageWarning,
                   tr("The mechanism passed a singular position at t = %1 s: its joints' "
                      "equations came close to depending on each other (a dead centre, a "
                      "linkage lying flat, a crank as long as its rod). There the reactions "
                      "peak and depend on small errors in the geometry, and the mechanism can "
                      "change branch; check the lengths, or plot the reactions around it.")
                       .arg(snap->statistics.lastSingularTime, 0, 'f', 3));
    }
    // A change of branch at a singular position is said once per run: from there on the run
    // is another mechanism's motion (a slider-crank folded, a parallelogram crossed).
    if (snap->statistics.branchChangeTime < 0.0) branchTold_ = false;  // a new run
    if (snap->statistics.branchChangeTime >= 0.0 && !branchTold_) {
        branchTold_ = true;
        addMessage(kMessageWarning,
                   tr("The mechanism changed branch at the singular position it passed at "
                      "t = %1 s: its direction of motion turned by %2° at once, as a step "
                      "landed on the other way its joints can close (a slider-crank folding, a "
                      "parallelogram crossing) and kinetic energy was lost. The run from there "
                      "is not the motion of the mechanism as built; a smaller step size (or "
                      "dopri45 with a tighter tolerance) passes on its branch, and lengths "
                      "that are not equal avoid the singular position.")
                       .arg(snap->statistics.branchChangeTime, 0, 'f', 3)
                       .arg(qRadiansToDegrees(snap->statistics.branchTurn), 0, 'f', 0));
    }
    simulationStatus_->setText(tr("%1 · t = %2 s")
                                   .arg(analysisName_.isEmpty() ? tr("Dynamics") : analysisName_)
                                   .arg(snap->time, 0, 'f', 3) +
                               (session_->stale() ? tr(" · stale run") : QString()) +
                               (snap->error.empty() ? QString() : tr("  — stopped: see Messages")));

    const bool runningTo = snap->mode == engine::RunMode::AsFastAsPossible;
    if (runningTo) {
        if (runStartTime_ < 0.0) runStartTime_ = snap->time;
        const double span = std::max(1e-12, snap->runToTime - runStartTime_);
        const double done = std::clamp((snap->time - runStartTime_) / span, 0.0, 1.0);
        runProgress_->setValue(static_cast<int>(done * 1000));
        const double rate = snap->statistics.realTimeFactor;
        runProgress_->setFormat(rate > 0
                                    ? tr("to %1 s: %p% — %2 s left")
                                          .arg(snap->runToTime, 0, 'g', 4)
                                          .arg((snap->runToTime - snap->time) / rate, 0, 'f', 0)
                                    : tr("to %1 s: %p%").arg(snap->runToTime, 0, 'g', 4));
    } else {
        runStartTime_ = -1.0;
    }
    if (!analysisRunning_) {
        runProgress_->setVisible(runningTo);
        cancelRun_->setVisible(runningTo);
    }
}

void MainWindow::selectEntity(quint64 entity, int shape) {
    // Picking in the view selects the entity's row in the tree (empty space clears it).
    if (entity == 0) {
        tree_->clearSelection();
        return;
    }
    QModelIndexList hits =
        treeModel_->match(treeModel_->index(0, 0), kEntityIdRole, QVariant::fromValue(entity), -1,
                          Qt::MatchExactly | Qt::MatchRecursive);
    // A part's own row comes first; a shape's row is the one carrying its index.
    hits.removeIf([shape](const QModelIndex& index) {
        return index.column() != 0 || index.data(kShapeRole).toInt() != shape;
    });
    if (hits.isEmpty()) return;
    tree_->setCurrentIndex(hits.front());
    tree_->selectionModel()->select(
        hits.front(), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    tree_->scrollTo(hits.front());
    tools_->setSelection(
        static_cast<engine::EntityId>(entity));  // also when it was selected already
    manipulation_->setSelection(static_cast<engine::EntityId>(entity));
}

void MainWindow::fitNameColumn(int width) {
    // The width the user gave it, widened until the names shown fit (the details keep at least
    // 80 pixels).
    int needed = 0;
    const QFontMetrics metrics = tree_->fontMetrics();
    const int icon = tree_->style()->pixelMetric(QStyle::PM_SmallIconSize);
    for (QModelIndex row = treeModel_->index(0, 0); row.isValid(); row = tree_->indexBelow(row)) {
        int depth = tree_->rootIsDecorated() ? 1 : 0;
        for (QModelIndex up = row.parent(); up.isValid(); up = up.parent()) ++depth;
        needed = std::max(needed, depth * tree_->indentation() + icon +
                                      metrics.horizontalAdvance(row.data().toString()) + 16);
    }
    const int names = std::min(needed, tree_->viewport()->width() - 80);
    tree_->header()->resizeSection(0, std::max({width, names, 120}));
}

void MainWindow::treeSelectionChanged() {
    std::vector<quint64> selected;
    int shape = 0;  // a geometry row: its part, narrowed to that shape
    for (const QModelIndex& index : tree_->selectionModel()->selectedRows())
        if (const quint64 id = index.data(kEntityIdRole).toULongLong()) {
            if (selected.empty()) shape = index.data(kShapeRole).toInt();
            selected.push_back(id);
        }
    viewport_->setSelection(selected);
    tools_->setSelection(selected.empty() ? engine::kNoEntity
                                          : static_cast<engine::EntityId>(selected.front()));
    manipulation_->setSelection(
        selected.size() == 1 ? static_cast<engine::EntityId>(selected.front()) : engine::kNoEntity);
    properties_->showEntity(
        scene(),
        selected.empty() ? engine::kNoEntity : static_cast<engine::EntityId>(selected.front()),
        shape);
}

void MainWindow::sceneEdited() {
    ++documentRevision_;
    modes_->clear();  // of the scene as it was
    if (!scene()) return;
    const engine::EntityId shown = properties_->entity();
    const int shownShape = properties_->shape();
    {
        // The tree is rebuilt: the user's column widths stay.
        const QSignalBlocker block(tree_->selectionModel());
        const int nameWidth = tree_->header()->sectionSize(0);
        populateSceneTree(*treeModel_, *scene());
        tree_->expandToDepth(0);
        fitNameColumn(nameWidth);
    }
    viewport_->showScene(*scene(), /*fit=*/false);
    if (shown != engine::kNoEntity) selectEntity(shown, shownShape);
    properties_->showEntity(scene(), shown, shownShape);
    updateDegreesOfFreedom();

    // A run not yet under way simply restarts with the edit; one with recorded frames keeps
    // them (they are what the user is looking at) until Re-run From Here or Reset.
    const auto snap = session_->snapshot();
    const engine::Recording* recording = session_->recording();
    if (!snap || !recording || recording->size() <= 1) {
        // The analysis stays what the user chose (and shown), as long as it can run: a
        // mechanism no longer fully driven goes back to Dynamics, and says so.
        bool kinematic = session_->active() && session_->kinematic();
        QString analysis = analysisName_;
        if (kinematic && freeDegreesOfFreedom() != 0) {
            kinematic = false;
            analysis = tr("Dynamics");
            addMessage(kMessageInfo, tr("%1 needs every degree of freedom driven: the analysis "
                                        "is Dynamics again.")
                                         .arg(analysisName_));
        }
        const engine::Diagnostics problems = session_->start(*scene(), kinematic);
        for (const engine::Diagnostic& d : problems)
            addMessage(d.severity == engine::Severity::Error ? kMessageError : kMessageWarning,
                       toQString(d.message), entitiesOf(d));
        // A scene that cannot run has no run: the one before the edit is not its own.
        if (!noteRunStart(problems, analysis)) session_->clear();
        documentEdited_ = false;
        rerunAction_->setEnabled(false);
        updateRunState();
    } else {
        if (!documentEdited_)
            addMessage(kMessageInfo, tr("Scene edited: Simulate > Re-run From Here (Ctrl+Shift+R) "
                                        "continues from t = %1 s "
                                        "with the change; Reset (Ctrl+R) starts over with it.")
                                         .arg(snap->time, 0, 'f', 3));
        documentEdited_ = true;
        rerunAction_->setEnabled(true);
        viewport_->setPartPoses(snap->partPoses);
        updateRunState();
    }
}

// What a run is computed from: the scene as the writer writes it, without the user's plots
// (kept with the scene, but no part of the mechanism: a plot added or saved leaves a run
// current).
namespace {
std::string mechanismText(const engine::SceneSpec& spec) {
    engine::SceneSpec mechanism = spec;
    mechanism.plots.clear();
    return engine::io::sceneToJson(mechanism);
}
}  // namespace

bool MainWindow::noteRunStart(const engine::Diagnostics& problems, const QString& analysis) {
    const auto error = std::find_if(problems.begin(), problems.end(), [](const auto& d) {
        return d.severity == engine::Severity::Error;
    });
    if (error != problems.end()) {
        cannotRun_ = toQString(error->message);
        cannotRunEntities_ = entitiesOf(*error);
        updateRunState();
        return false;
    }
    cannotRun_.clear();
    runSceneJson_ = scene() ? mechanismText(*scene()) : std::string();
    analysisName_ = analysis;
    updateRunState();
    return true;
}

void MainWindow::updateRunState() {
    const QString analysis = analysisName_.isEmpty() ? tr("Dynamics") : analysisName_;
    timeline_->setAnalysis(analysis);
    if (!session_->active() || !scene()) {
        const QString why =
            cannotRun_.isEmpty() ? QString() : tr("The scene cannot run: %1").arg(cannotRun_);
        viewport_->setBanner(why);
        timeline_->setIdleText(cannotRun_.isEmpty() ? QString() : tr("cannot run (see the view)"));
        return;
    }
    timeline_->setIdleText(QString());
    QString stale;
    if (mechanismText(*scene()) != runSceneJson_)
        stale = cannotRun_.isEmpty()
                    ? tr("the scene was edited after this run, so its frames, plots and exports "
                         "are of the scene before the edit. Simulate ▸ Re-run From Here "
                         "(Ctrl+Shift+R) or Reset (Ctrl+R) runs the scene as edited.")
                    : tr("the scene as edited cannot run (%1); the frames shown are of the scene "
                         "before the edit.")
                          .arg(cannotRun_);
    session_->markStale(stale);
    viewport_->setBanner(stale.isEmpty() ? QString() : tr("Stale run: %1").arg(stale));
}

bool MainWindow::confirmDropRun(const QString& action) {
    const engine::Recording* recording = session_->recording();
    if (!recording || recording->size() <= 1) return true;
    const double from = recording->time(recording->first());
    const double until = recording->time(recording->size() - 1);
    QMessageBox box(
        QMessageBox::Question, tr("Discard the run?"),
        tr("%1 discards the recorded run (%2–%3 s, %4 frames)%5 and what its plots "
           "show. This cannot be undone.")
            .arg(action)
            .arg(from, 0, 'f', 3)
            .arg(until, 0, 'f', 3)
            .arg(recording->size() - recording->first())
            .arg(recording->hasPrevious() ? tr(", the previous run's ghost") : QString()),
        QMessageBox::NoButton, this);
    box.setObjectName(QStringLiteral("DiscardRunQuestion"));
    QPushButton* go = box.addButton(tr("Discard Run"), QMessageBox::DestructiveRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    return box.clickedButton() == go;
}

void MainWindow::renameEntity(quint64 entity, const QString& name) {
    const auto id = static_cast<engine::EntityId>(entity);
    if (!scene()) return;
    std::string old = engine::entityName(*scene(), id);
    old = old.substr(old.rfind('.') + 1);  // a marker's own name
    if (old.empty() || name.toStdString() == old) return;
    engine::SceneSpec after = *scene();
    engine::renameEntity(after, id, name.toStdString());
    for (const engine::Diagnostic& d : engine::validate(after)) {
        if (d.severity != engine::Severity::Error) continue;
        addMessage(
            kMessageError,
            tr("Cannot rename '%1' to '%2': %3").arg(toQString(old), name, toQString(d.message)));
        const QSignalBlocker block(tree_->selectionModel());
        const int nameWidth = tree_->header()->sectionSize(0);
        populateSceneTree(*treeModel_, *scene());  // the old name back in the tree
        tree_->expandToDepth(0);
        fitNameColumn(nameWidth);
        return;
    }
    document_->rename(std::move(after), tr("Rename %1 to %2").arg(toQString(old), name));
}

void MainWindow::updateDegreesOfFreedom() {
    dofExplanation_.clear();
    if (!scene()) {
        dofButton_->setText(QString());
        return;
    }
    const engine::CompileResult compiled = engine::compile(*scene());
    if (!compiled.model) {
        dofButton_->setText(tr("DOF: —"));
        dofExplanation_ = compiled.diagnostics.empty()
                              ? QString()
                              : toQString(compiled.diagnostics.front().message);
        return;
    }
    const engine::MobilityReport report = engine::mobility(compiled.model);
    if (!report.analysed) {
        dofButton_->setText(tr("DOF: —"));
        dofExplanation_ = toQString(report.message);
        return;
    }
    dofButton_->setText(
        report.redundantCount > 0
            ? tr("DOF %1 · Grübler %2 · %3 redundant")
                  .arg(report.actualDof)
                  .arg(report.grueblerDof)
                  .arg(report.redundantCount)
            : tr("DOF %1 · Grübler %2").arg(report.actualDof).arg(report.grueblerDof));
    // The explanation, as rich text: the counts, each redundant equation in words, and what
    // would remove them (a remedy shared by several equations is said once).
    auto sentence = [](const std::string& text) {
        QString out = toQString(text).toHtmlEscaped();
        if (!out.isEmpty()) out[0] = out[0].toUpper();
        return out;
    };
    QString html = tr("<p>%1 coordinates (6 per moving part), %2 equations from joints and "
                      "motions. Grübler count: "
                      "%1 − %2 = %3. Rank of the constraint Jacobian at the start pose: %4, so the "
                      "mechanism moves "
                      "with <b>%5 degree(s) of freedom</b>.</p>")
                       .arg(report.coordinates)
                       .arg(report.equations)
                       .arg(report.grueblerDof)
                       .arg(report.coordinates - report.actualDof)
                       .arg(report.actualDof);
    if (report.redundant.empty()) {
        html += tr("<p>No equation is redundant.</p>");
    } else {
        html += tr("<p><b>%1 redundant equation(s)</b> repeat what the others impose (Motus solves "
                   "through them, but "
                   "their share of the reactions is not unique):</p><ul>")
                    .arg(report.redundantCount);
        QStringList remedies;
        for (const engine::RedundantEquation& e : report.redundant) {
            const QString who = e.joint.empty() ? tr("motion '%1'").arg(toQString(e.motion))
                                                : tr("joint '%1'").arg(toQString(e.joint));
            html += QStringLiteral("<li><b>%1</b>, %2: %3</li>")
                        .arg(who.toHtmlEscaped(), toQString(e.equation).toHtmlEscaped(),
                             sentence(e.meaning));
            if (!remedies.contains(sentence(e.remedy))) remedies << sentence(e.remedy);
        }
        html += tr("</ul><p><b>What removes them</b></p><ul>");
        for (const QString& r : remedies) html += QStringLiteral("<li>%1</li>").arg(r);
        html += QStringLiteral("</ul>");
    }
    if (!report.ok) html += QStringLiteral("<p>%1</p>").arg(sentence(report.message));
    dofExplanation_ = html;
}

QString MainWindow::degreesOfFreedomText() const {
    return dofButton_->text();
}

QString MainWindow::degreesOfFreedomExplanation() const {
    return dofExplanation_;
}

int MainWindow::freeDegreesOfFreedom(QString* problem) const {
    if (!scene()) return -1;
    const engine::CompileResult compiled = engine::compile(*scene());
    if (!compiled.model) {
        if (problem && !compiled.diagnostics.empty())
            *problem = toQString(compiled.diagnostics.front().message);
        return -1;
    }
    // The same count as the status bar's and `motus-cli info`'s.
    const engine::MobilityReport report = engine::mobility(compiled.model);
    if (!report.ok) {
        if (problem) *problem = toQString(report.message);
        return -1;
    }
    return report.actualDof;
}

bool MainWindow::startKinematics(bool inverseDynamics) {
    const QString what = inverseDynamics ? tr("Inverse dynamics") : tr("Kinematics");
    QString problem;
    const int dof = freeDegreesOfFreedom(&problem);
    if (dof < 0) {
        addMessage(kMessageError, tr("%1: %2").arg(what, problem));
        return false;
    }
    if (dof > 0) {
        addMessage(kMessageError,
                   tr("%1 needs every degree of freedom driven: this mechanism has %2 left free "
                      "(add motions, or run Dynamics)")
                       .arg(what)
                       .arg(dof));
        return false;
    }
    // A fully driven mechanism moves as its motions say: the run solves its positions,
    // velocities and accelerations at each instant from the joints and motions (no
    // integration), and the reactions and motion efforts that produce them (inverse dynamics).
    if (!confirmDropRun(what)) return false;
    const engine::Diagnostics problems = session_->start(*scene(), /*kinematic=*/true);
    bool failed = false;
    for (const engine::Diagnostic& d : problems) {
        failed = failed || d.severity == engine::Severity::Error;
        addMessage(d.severity == engine::Severity::Error ? kMessageError : kMessageWarning,
                   tr("%1: %2").arg(what, toQString(d.message)), entitiesOf(d));
    }
    if (failed) return false;
    noteRunStart(problems, what);
    documentEdited_ = false;
    rerunAction_->setEnabled(false);
    addMessage(kMessageResult,
               tr("%1: the mechanism is fully driven; its motion is solved at each instant from "
                  "the joints and motions (Play or Run to…; a lock-up stops the run and says "
                  "where). Simulate > Analysis > Dynamics goes back to integrating it.")
                   .arg(what));
    // (The efforts' plot is raised after the message, which shows the Messages dock.)
    if (inverseDynamics) {
        QStringList efforts;
        for (const engine::MotionSpec& m : scene()->motions)
            efforts << toQString(m.name) + QStringLiteral(".effort");
        if (!efforts.isEmpty()) {
            plots_->addPlot(efforts, tr("Driver efforts"));
        }
    }
    return true;
}

namespace {

// The stability of an equilibrium, as a user reads it.
QString stabilityText(const engine::StaticResult& result) {
    switch (result.stability) {
    case engine::Stability::Stable:
        return QObject::tr("stable (every small displacement is pushed back)");
    case engine::Stability::Unstable:
        return QObject::tr(
                   "UNSTABLE: %n direction(s) of motion lead away from it (the smallest "
                   "pushes away at %1 1/s²)",
                   nullptr, result.unstableDirections)
            .arg(result.stiffnessEigenvalues.size() > 0 ? result.stiffnessEigenvalues(0) : 0.0, 0,
                 'g', 3);
    case engine::Stability::Neutral:
        return QObject::tr("neutral: along one direction nothing pushes the mechanism back");
    case engine::Stability::Unknown:
        break;
    }
    return QObject::tr("stability not determined");
}

}  // namespace

bool MainWindow::startAnalysis(Analysis analysis) {
    if (!scene() || analysisRunning_) return false;
    const engine::CompileResult compiled = engine::compile(*scene());
    if (!compiled.model) {
        addMessage(kMessageError, tr("The scene does not compile: %1")
                                      .arg(compiled.diagnostics.empty()
                                               ? QString()
                                               : toQString(compiled.diagnostics.front().message)));
        return false;
    }
    if (analysis_.joinable()) analysis_.join();
    analysisRunning_ = true;
    cancelAnalysis_ = false;
    const QString what = analysis == Analysis::Assemble            ? tr("Assembly")
                         : analysis == Analysis::StaticEquilibrium ? tr("Static equilibrium")
                                                                   : tr("Vibration modes");
    addMessage(kMessageInfo,
               tr("%1: computing… (Simulate > Analysis > Cancel Analysis stops it)").arg(what));
    analysisProgress_ = 0.0;
    analysisStarted_ = QDateTime::currentMSecsSinceEpoch() / 1000.0;
    runProgress_->setRange(0, 1000);
    runProgress_->setValue(0);
    runProgress_->show();
    cancelRun_->show();
    analysisTimer_->start();
    auto model = compiled.model;
    // Modes at a moment of a run: with a recorded frame after the start shown (of the scene as
    // it is), about that frame's pose, frozen; otherwise about the stable equilibrium the
    // mechanism rests in.
    std::optional<engine::State> frame;
    if (analysis == Analysis::Modes && !documentEdited_) {
        const auto snap = session_->snapshot();
        const engine::Recording* recording = session_->recording();
        engine::State state;
        engine::Outputs outputs;
        if (snap && recording && snap->time > 0.0 && snap->model && !snap->model->kinematic &&
            recording->read(snap->frame, state, outputs)) {
            frame = state;
            model = snap->model;
        }
    }
    const quint64 revision = documentRevision_;
    analysis_ = std::thread([this, model, analysis, what, frame, revision] {
        const engine::State start = engine::initialState(*model);
        engine::StaticResult result;
        if (frame) {
            result.state = *frame;
            result.state.v.setZero();
        } else {
            result =
                analysis == Analysis::Assemble
                    ? engine::assemble(*model, start)
                    : engine::equilibrium(*model, start, 1e-8, &cancelAnalysis_, &analysisProgress_,
                                          /*stable=*/analysis == Analysis::Modes);
        }
        engine::ModesResult modes;
        if (analysis == Analysis::Modes && result.status.ok) {
            modes = engine::modes(*model, result.state);
            if (frame) result.residual = modes.residual;
        }
        const double frameTime = frame ? frame->t : -1.0;
        QMetaObject::invokeMethod(
            this,
            [this, model, analysis, what, frameTime, revision, result = std::move(result),
             modes = std::move(modes)] {
                analysisRunning_ = false;
                analysisTimer_->stop();
                runProgress_->hide();
                cancelRun_->hide();
                // An edit (or another file) while it ran: its poses belong to a scene that is
                // gone.
                if (revision != documentRevision_) {
                    addMessage(kMessageWarning,
                               tr("%1: the scene changed while it ran, so its result is not "
                                  "applied; run it again.")
                                   .arg(what));
                    return;
                }
                if (!result.status.ok || !modes.status.ok) {
                    // A loop that cannot close: the view shows the nearest the mechanism comes
                    // (the gap in plain sight) until time moves or the scene changes.
                    const bool explained = analysis == Analysis::Assemble &&
                                           result.status.cause == engine::Cause::LoopCannotClose;
                    if (explained) viewport_->setPartPoses(engine::partPoses(*model, result.state));
                    const engine::Status& failed = result.status.ok ? modes.status : result.status;
                    addMessage(kMessageError,
                               tr("%1: %2").arg(what, toQString(failed.message)) +
                                   (explained ? tr(" (the 3D view shows the nearest the mechanism "
                                                   "comes)")
                                              : QString()),
                               failed.entities);
                    return;
                }
                if (!scene()) return;
                if (analysis == Analysis::Modes) {
                    showModes(model, result, modes, frameTime);
                    return;
                }
                // The parts where the analysis put them, as an undoable edit.
                engine::SceneSpec after = *scene();
                after.placeParts(engine::partPoses(*model, result.state));
                if (analysis == Analysis::StaticEquilibrium)
                    for (engine::Part& part : after.parts) {  // at rest there
                        if (part.ground) continue;
                        part.v_WPo_W.setZero();
                        part.w_WP_W.setZero();
                    }
                document_->move(std::move(after), analysis == Analysis::Assemble
                                                      ? tr("Assemble")
                                                      : tr("Move to static equilibrium"));
                addMessage(
                    kMessageResult,
                    analysis == Analysis::Assemble
                        ? tr("Assembled: the parts now start where every joint and motion holds.")
                        : tr("Static equilibrium found (%1; largest acceleration at rest %2): "
                             "%3. The parts now start there, at rest (Ctrl+Z undoes).")
                              .arg(result.steps > 0
                                       ? tr("%1 relaxation steps, then %2 Newton iterations")
                                             .arg(result.steps)
                                             .arg(result.newtonIterations)
                                       : tr("%1 Newton iterations").arg(result.newtonIterations))
                              .arg(result.residual, 0, 'g', 3)
                              .arg(stabilityText(result)));
            },
            Qt::QueuedConnection);
    });
    return true;
}

void MainWindow::showModes(const std::shared_ptr<const engine::Model>& model,
                           const engine::StaticResult& at, const engine::ModesResult& modes,
                           double frameTime) {
    const QString about =
        frameTime >= 0.0
            ? tr("About the pose at t = %1 s of the run, frozen there: its velocities are not "
                 "part of it%2. Select a mode to see it move.")
                  .arg(frameTime, 0, 'f', 3)
                  .arg(at.residual > 1e-6
                           ? tr(", and it is not an equilibrium (largest acceleration at rest "
                                "%1): the modes are those of the mechanism held there")
                                 .arg(at.residual, 0, 'g', 3)
                           : QString())
            : tr("About the stable equilibrium the mechanism rests in (largest acceleration at "
                 "rest %1; found in %2 Newton iterations%3). Select a mode to see it move.")
                  .arg(at.residual, 0, 'g', 3)
                  .arg(at.newtonIterations)
                  .arg(at.steps > 0 ? tr(" after %1 relaxation steps").arg(at.steps) : QString());
    // The message first: the Modes tab, raised after it, stays in front of Messages.
    QStringList list;
    for (std::size_t k = 0; k < modes.modes.size() && k < 6; ++k)
        list << tr("%1 Hz").arg(modes.modes[k].frequency, 0, 'g', 4);
    if (modes.modes.size() > 6) list << QStringLiteral("…");
    addMessage(
        kMessageResult,
        modes.modes.empty()
            ? tr("Vibration modes: none (the mechanism has no free motion).")
            : tr("Vibration modes: %n mode(s) about %2: %1. The Modes tab lists them; "
                 "select one to see it move.",
                 nullptr, static_cast<int>(modes.modes.size()))
                  .arg(list.join(QStringLiteral(", ")))
                  .arg(frameTime >= 0.0 ? tr("the pose at t = %1 s").arg(frameTime, 0, 'f', 3)
                                        : tr("the stable equilibrium")));
    modes_->setModes(model, at.state, modes, about);
    if (auto* dock = qobject_cast<QDockWidget*>(modes_->parentWidget())) {
        dock->show();
        dock->raise();
        resizeDocks({dock}, {std::max(dock->height(), 190)}, Qt::Vertical);
    }
    // The lowest mode moves at once, framed in the view (the equilibrium may hang elsewhere
    // than the parts were drawn).
    if (!modes.modes.empty()) {
        viewport_->setPartPoses(engine::partPoses(*model, at.state));
        viewport_->fitToScene();
        modes_->animateMode(0);
    }
}

void MainWindow::deleteSelection() {
    if (!scene()) return;
    engine::SceneSpec after = *scene();
    QStringList removed;
    // Shapes first, highest index first, so the indices of the others stay valid.
    std::vector<std::pair<engine::EntityId, int>> shapes;
    for (const QModelIndex& index : tree_->selectionModel()->selectedRows())
        if (const int shape = index.data(kShapeRole).toInt())
            shapes.emplace_back(
                static_cast<engine::EntityId>(index.data(kEntityIdRole).toULongLong()), shape - 1);
    std::sort(shapes.begin(), shapes.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [partId, shape] : shapes)
        if (engine::Part* part = engine::partById(after, partId);
            part && shape < static_cast<int>(part->shapes.size())) {
            part->shapes.erase(part->shapes.begin() + shape);
            removed << tr("shape %1 of %2").arg(shape + 1).arg(toQString(part->name));
        }
    for (const QModelIndex& index : tree_->selectionModel()->selectedRows()) {
        if (index.data(kShapeRole).toInt()) continue;
        const auto id = static_cast<engine::EntityId>(index.data(kEntityIdRole).toULongLong());
        for (const std::string& name : engine::deleteEntity(after, id)) removed << toQString(name);
    }
    for (const engine::Diagnostic& d : engine::validate(after))
        if (d.severity == engine::Severity::Error) {
            addMessage(kMessageError, tr("Cannot delete that: %1").arg(toQString(d.message)));
            return;
        }
    if (removed.isEmpty()) {
        addMessage(
            kMessageWarning,
            tr("Nothing to delete: select parts, markers, joints, forces, motions or contact "
               "pairs (the ground part stays)."));
        return;
    }
    document_->remove(std::move(after), tr("Delete %1").arg(removed.front()));
    if (removed.size() > 1)
        addMessage(kMessageInfo,
                   tr("Deleted %1 (Ctrl+Z undoes).").arg(removed.join(QStringLiteral(", "))));
}

void MainWindow::addPart() {
    if (!scene()) return;
    engine::SceneSpec after = *scene();
    std::string name;
    for (int k = 1; name.empty() || after.findPart(name); ++k) name = "part" + std::to_string(k);
    engine::Part part;
    part.id = after.newId();
    part.name = name;
    part.density = 1000.0;  // a 0.1 m cube of water-like density: 1 kg
    engine::Shape cube;
    cube.size = engine::Vec3::Constant(0.1);
    part.shapes.push_back(cube);
    part.X_WP.p = engine::Vec3(0.0, 0.0, 0.5);
    after.parts.push_back(part);
    document_->add(std::move(after), tr("Add %1").arg(toQString(name)));
    selectEntity(part.id);
}

void MainWindow::rerunFromHere() {
    const auto snap = session_->snapshot();
    if (!scene() || !snap) return;
    const engine::Diagnostics problems =
        session_->rerunFrom(static_cast<int>(snap->frame), *scene());
    bool failed = false;
    for (const engine::Diagnostic& d : problems) {
        failed = failed || d.severity == engine::Severity::Error;
        addMessage(d.severity == engine::Severity::Error ? kMessageError : kMessageWarning,
                   toQString(d.message));
    }
    if (failed) {
        // The run stays as it was: stale, and why the scene as edited cannot run.
        noteRunStart(problems, analysisName_);
        return;
    }
    noteRunStart(problems, analysisName_);
    documentEdited_ = false;
    rerunAction_->setEnabled(false);
    // As the menu says: the run goes on from here with the edit.
    session_->play();
}

void MainWindow::resetRun() {
    if (!confirmDropRun(tr("Reset"))) return;
    if ((documentEdited_ || session_->stale() || !session_->active()) && scene()) {
        const engine::Diagnostics problems = session_->start(*scene(), session_->kinematic());
        for (const engine::Diagnostic& d : problems)
            addMessage(d.severity == engine::Severity::Error ? kMessageError : kMessageWarning,
                       toQString(d.message), entitiesOf(d));
        // A scene that cannot run keeps the run shown, marked stale with the reason.
        if (!noteRunStart(problems, analysisName_)) return;
        documentEdited_ = false;
        rerunAction_->setEnabled(false);
        return;
    }
    session_->reset();
}

PlotWidget* MainWindow::plotReactionForce(const QString& joint) {
    if (!session_->active() || !scene()) return nullptr;
    if (std::none_of(scene()->joints.begin(), scene()->joints.end(), [&](const engine::Joint& j) {
            return QString::fromStdString(j.name) == joint;
        }))
        return nullptr;  // no such joint: nothing to plot
    return plots_->addPlot({joint + ".Fx", joint + ".Fy", joint + ".Fz", joint + ".F"});
}

void MainWindow::showTreeMenu(const QPoint& position) {
    const QModelIndex index = tree_->indexAt(position);
    if (!index.isValid() || !scene()) return;
    const auto id = static_cast<engine::EntityId>(index.data(kEntityIdRole).toULongLong());
    if (id == engine::kNoEntity) return;
    QMenu menu;
    // Plots need a run to plot; drawing a part translucent does not.
    auto plot = [&](const QString& label, const QString& entity, QStringList quantities) {
        if (!session_->active()) return;
        menu.addAction(label, this, [this, entity, quantities] {
            QStringList channels;
            for (const QString& q : quantities) channels << entity + QLatin1Char('.') + q;
            plots_->addPlot(channels);
        });
    };
    for (const engine::Joint& joint : scene()->joints)
        if (joint.id == id) {
            const QString name = QString::fromStdString(joint.name);
            if (session_->active())
                menu.addAction(tr("Plot Reaction Force"), this,
                               [this, name] { plotReactionForce(name); });
            plot(tr("Plot Reaction Torque"), name, {"Tx", "Ty", "Tz", "T"});
            plot(tr("Plot Reaction in Marker J Axes"), name, {"FxJ", "FyJ", "FzJ"});
            if (joint.type == engine::JointType::Revolute ||
                joint.type == engine::JointType::Prismatic ||
                joint.type == engine::JointType::Cylindrical)
                plot(tr("Plot Joint Coordinate"), name, {"q0"});
        }
    for (const engine::Part& part : scene()->parts)
        if (part.id == id && !part.ground) {
            const QString name = QString::fromStdString(part.name);
            plot(tr("Plot Position"), name, {"x", "y", "z"});
            plot(tr("Plot Velocity"), name, {"vx", "vy", "vz"});
            plot(tr("Plot Angular Velocity"), name, {"wx", "wy", "wz"});
            QAction* see = menu.addAction(tr("Draw Translucent"));
            see->setCheckable(true);
            see->setChecked(viewport_->partTranslucent(id));
            connect(see, &QAction::toggled, viewport_,
                    [this, id](bool on) { viewport_->setPartTranslucent(id, on); });
        }
    for (const engine::MotionSpec& motion : scene()->motions) {
        if (motion.id != id) continue;
        plot(tr("Plot Motor Effort"), QString::fromStdString(motion.name), {"effort"});
        plot(tr("Plot Motor Power"), QString::fromStdString(motion.name), {"power"});
    }
    for (const engine::ForceSpec& force : scene()->forces) {
        if (force.id != id || force.type != engine::ForceType::JointController) continue;
        plot(tr("Plot Controller Effort"), QString::fromStdString(force.name), {"effort"});
        plot(tr("Plot Controller Power"), QString::fromStdString(force.name), {"power"});
    }
    for (const engine::ContactPairSpec& pair : scene()->contact.pairs)
        if (pair.id == id)
            plot(tr("Plot Contact Forces"), QString::fromStdString(pair.name), {"Fn", "Ft"});
    if (!menu.isEmpty()) menu.exec(tree_->viewport()->mapToGlobal(position));
}

bool MainWindow::exportRunCsv(const QString& path, QString* error) {
    const engine::Recording* recording = session_->recording();
    const auto snap = session_->snapshot();
    if (!recording || !snap) {
        if (error) *error = tr("nothing has been simulated");
        return false;
    }
    std::ostringstream text;
    engine::io::CsvWriter csv(*snap->model, text);
    csv.writeHeader();
    for (std::size_t k = 0; k < recording->size(); ++k) {
        engine::State state;
        engine::Outputs outputs;
        recording->read(k, state, outputs);
        csv.writeRow(state, outputs);
    }
    QSaveFile file(path);  // temporary file renamed on commit: all or nothing
    if (!file.open(QIODevice::WriteOnly)) {
        if (error) *error = file.errorString();
        return false;
    }
    file.write(QByteArray::fromStdString(text.str()));
    if (!file.commit()) {
        if (error) *error = file.errorString();
        return false;
    }
    return true;
}

void MainWindow::exportRunCsvWithDialog() {
    if (!session_->active()) return;
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export Run as CSV"), QString(), tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    QString error;
    if (exportRunCsv(path, &error))
        addMessage(kMessageInfo, tr("Exported the run to %1").arg(path));
    else
        addMessage(kMessageError, tr("Could not export the run (%1): %2").arg(path, error));
}

bool MainWindow::exportVideo(const VideoExportOptions& requested, QString* error) {
    const engine::Recording* recording = session_->recording();
    const auto snap = session_->snapshot();
    if (!recording || !snap || !scene() || recording->size() <= recording->first() + 1) {
        if (error) *error = tr("nothing has been simulated: run the scene first");
        return false;
    }
    if (const std::string problem = videoOptionsProblem(requested); !problem.empty()) {
        if (error) *error = QString::fromStdString(problem);
        return false;
    }
    // The 3D view's camera and what it shows; the frames' poses read here, on the GUI thread,
    // so the worker needs nothing that the session may change.
    VideoExportOptions options = requested;
    RenderCamera camera;
    double eye[3], centre[3], up[3];
    viewport_->cameraView(eye, centre, up, camera.fovyDeg, options.cullMask);
    camera.eye = engine::Vec3(eye[0], eye[1], eye[2]);
    camera.centre = engine::Vec3(centre[0], centre[1], centre[2]);
    camera.up = engine::Vec3(up[0], up[1], up[2]);
    options.camera = camera;
    const std::vector<ShownFrame> frames = videoFrames(*snap->model, *recording, options);
    const engine::SceneSpec spec = *scene();

    QProgressDialog progress(
        tr("Rendering %1…").arg(QFileInfo(QString::fromStdString(options.path)).fileName()),
        tr("Cancel"), 0, static_cast<int>(frames.size()), this);
    progress.setObjectName(QStringLiteral("VideoExportProgress"));
    progress.setWindowTitle(tr("Export Video"));
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(0);
    progress.setValue(0);
    std::atomic<int> done{0};
    std::atomic<bool> cancelled{false}, finished{false};
    VideoExportResult result;
    std::thread worker([&] {
        result = ui::exportVideo(spec, frames, options, [&](int count, int) {
            done = count;
            return !cancelled;
        });
        finished = true;
    });
    // The window's events go on while the worker renders; the dialog follows it.
    QEventLoop loop;
    QTimer poll;
    connect(&poll, &QTimer::timeout, &loop, [&] {
        if (progress.wasCanceled()) cancelled = true;
        if (finished) {
            loop.quit();
            return;
        }
        progress.setValue(done);
    });
    poll.start(30);
    loop.exec();
    worker.join();
    progress.reset();
    switch (result.outcome) {
    case VideoExportResult::Outcome::Written:
        return true;
    case VideoExportResult::Outcome::Cancelled:
        if (error) *error = tr("cancelled: no video was written");
        return false;
    case VideoExportResult::Outcome::Failed:
        break;
    }
    if (error) *error = QString::fromStdString(result.error);
    return false;
}

void MainWindow::exportVideoWithDialog() {
    const engine::Recording* recording = session_->recording();
    if (!recording || recording->size() <= recording->first() + 1) {
        QMessageBox::information(this, tr("Export Video"),
                                 tr("Nothing is recorded yet: run the simulation first (Simulate "
                                    "▸ Play or Run to…), then export the run as a video."));
        return;
    }
    const qreal dpr = viewport_->devicePixelRatioF();
    VideoExportDialog dialog(viewport_->size() * dpr, recording->time(recording->first()),
                             recording->time(recording->size() - 1), this);
    if (!document_->path().isEmpty())
        dialog.setPath(QFileInfo(document_->path())
                           .dir()
                           .filePath(QFileInfo(document_->path()).completeBaseName() +
                                     QStringLiteral(".mp4")));
    if (dialog.exec() != QDialog::Accepted) return;
    const VideoExportOptions options = dialog.options();
    const QString path = QString::fromStdString(options.path);
    QString error;
    if (exportVideo(options, &error))
        addMessage(kMessageInfo, tr("Exported the run as a video to %1").arg(path));
    else
        addMessage(kMessageError, tr("Could not export the video (%1): %2").arg(path, error));
}

void MainWindow::exportPlotWithDialog() {
    PlotWidget* plot = plots_->currentPlot();
    if (!plot) {
        addMessage(kMessageWarning,
                   tr("There is no plot to export: right-click a joint or part to plot it."));
        return;
    }
    QString filter;
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export Plot"), QString(),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf);;CSV data (*.csv)"),
        &filter);
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty())
        path += filter.contains(QLatin1String("*.svg"))   ? QStringLiteral(".svg")
                : filter.contains(QLatin1String("*.pdf")) ? QStringLiteral(".pdf")
                : filter.contains(QLatin1String("*.csv")) ? QStringLiteral(".csv")
                                                          : QStringLiteral(".png");
    QString error;
    bool ok = false;
    if (path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive)) {
        ok = plot->exportCsv(path, &error);
    } else {
        // Title, size and resolution, remembered from the last export.
        QSettings settings;
        QDialog dialog(this);
        dialog.setWindowTitle(tr("Export Plot"));
        auto* title = new QLineEdit(plots_->titleOf(plot));
        auto* width = new QSpinBox;
        auto* height = new QSpinBox;
        for (QSpinBox* box : {width, height}) {
            box->setRange(64, 20000);
            box->setSuffix(tr(" px"));
        }
        width->setValue(settings.value(QStringLiteral("plotExport/width"), 1600).toInt());
        height->setValue(settings.value(QStringLiteral("plotExport/height"), 900).toInt());
        auto* dpi = new QSpinBox;
        dpi->setRange(24, 2400);
        dpi->setSuffix(tr(" dpi"));
        dpi->setValue(settings.value(QStringLiteral("plotExport/dpi"), 150).toInt());
        dpi->setToolTip(
            tr("Text and lines keep their printed size: 150 dpi at 1600 px wide is "
               "a plot 27 cm wide"));
        auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
        connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
        connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
        auto* form = new QFormLayout(&dialog);
        form->addRow(tr("Title:"), title);
        form->addRow(tr("Width:"), width);
        form->addRow(tr("Height:"), height);
        form->addRow(tr("Resolution:"), dpi);
        form->addRow(buttons);
        if (dialog.exec() != QDialog::Accepted) return;
        settings.setValue(QStringLiteral("plotExport/width"), width->value());
        settings.setValue(QStringLiteral("plotExport/height"), height->value());
        settings.setValue(QStringLiteral("plotExport/dpi"), dpi->value());
        PlotExportOptions options;
        options.pixels = QSize(width->value(), height->value());
        options.dpi = dpi->value();
        ok = plot->exportImage(path, options, title->text(), &error);
    }
    addMessage(ok ? kMessageInfo : kMessageError,
               ok ? tr("Exported the plot to %1").arg(path)
                  : tr("Could not export the plot (%1): %2").arg(path, error));
}

bool MainWindow::exportPlotsReport(const QString& path, QString* error) {
    // Heading: the scene and the run shown.
    QString heading = scene() && !scene()->name.empty() ? toQString(scene()->name) : tr("Motus");
    if (const engine::Recording* recording = session_->recording(); recording && recording->size())
        heading += tr(" — run to %1 s").arg(recording->time(recording->size() - 1), 0, 'g', 4);
    QString why;
    const bool ok = plots_->exportReport(path, heading, &why);
    addMessage(ok ? kMessageInfo : kMessageError,
               ok ? tr("Exported %1 plots to the report %2").arg(plots_->plotCount()).arg(path)
                  : tr("Could not export the plots report (%1): %2").arg(path, why));
    if (error) *error = why;
    return ok;
}

void MainWindow::discardPreviousRun() {
    session_->discardPrevious();
    discardPreviousAction_->setEnabled(false);
}

void MainWindow::runToDialog() {
    const auto snap = session_->snapshot();
    if (!snap) {
        if (!cannotRun_.isEmpty())
            addMessage(kMessageError, tr("Cannot run the scene: %1").arg(cannotRun_),
                       cannotRunEntities_);
        return;
    }
    if (session_->stale()) {  // says why nothing more is computed for it
        session_->runTo(snap->time + 1.0);
        return;
    }
    bool ok = false;
    // The scene's end time when the run is short of it, else a second on.
    const double endTime = scene() ? scene()->settings.endTime : 0.0;
    const double t = QInputDialog::getDouble(
        this, tr("Run to"), tr("Simulate as fast as possible until t [s]:"),
        endTime > snap->time + 1e-9 ? endTime : snap->time + 1.0, snap->time, 1e6, 3, &ok);
    if (ok) session_->runTo(t);
}

// The plots on screen become part of the document (a scene file keeps them).
void MainWindow::keepPlotsInScene() {
    if (!scene()) return;
    std::vector<engine::PlotSpec> plots;
    for (const PlotEntry& entry : plots_->plots()) {
        engine::PlotSpec plot;
        plot.name = entry.title.toStdString();
        for (const QString& channel : entry.channels)
            plot.channels.push_back(channel.toStdString());
        plot.x = entry.x.toStdString();
        plots.push_back(std::move(plot));
    }
    document_->setPlots(std::move(plots));
}

// The scene's plots, shown again; channels the run does not record are reported.
void MainWindow::restorePlots() {
    if (!scene()) return;
    const engine::Recording* recording = session_->recording();
    // Whatever a file holds, the window stays responsive: a few plots of a few curves each are
    // drawn, the rest said in one message per plot (a scene of 100,000 channels froze it).
    int shown = 0;
    for (const engine::PlotSpec& plot : scene()->plots) {
        if (shown == PlotsPanel::kMaxPlots) {
            addMessage(kMessageWarning, tr("The scene keeps %1 plots: the first %2 are shown.")
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
                addMessage(kMessageWarning, unknown);
            }
        }
        if (plot.channels.size() > static_cast<std::size_t>(PlotsPanel::kMaxCurves))
            addMessage(kMessageWarning, tr("Plot '%1' names %2 channels: its first %3 are drawn.")
                                            .arg(toQString(plot.name))
                                            .arg(plot.channels.size())
                                            .arg(PlotsPanel::kMaxCurves));
        QStringList channels;
        for (std::size_t k = 0;
             k < plot.channels.size() && k < static_cast<std::size_t>(PlotsPanel::kMaxCurves); ++k)
            channels << toQString(plot.channels[k]);
        plots_->addPlot(channels, toQString(plot.name), toQString(plot.x));
        ++shown;
    }
}

bool MainWindow::saveSceneAs(const QString& path) {
    if (!scene()) {
        addMessage(kMessageWarning, tr("There is no scene to save."));
        return false;
    }
    keepPlotsInScene();
    std::string error;
    if (!document_->save(path, error)) {
        addMessage(kMessageError, tr("Could not save %1: %2 (the scene is still open, unchanged)")
                                      .arg(path, QString::fromStdString(error)));
        return false;
    }
    addMessage(kMessageInfo, tr("Saved %1").arg(document_->path()));
    addRecentFile(document_->path());
    return true;
}

bool MainWindow::save() {
    if (!scene()) return false;
    if (document_->path().isEmpty()) {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save Scene As"), QString(),
                                                          tr("Motus scenes (*.json)"));
        if (path.isEmpty()) return false;
        return saveSceneAs(path.endsWith(QLatin1String(".json")) ? path
                                                                 : path + QStringLiteral(".json"));
    }
    return saveSceneAs(document_->path());
}

bool MainWindow::maybeSave() {
    if (!document_->isModified()) return maybeKeepRun();
    const engine::Recording* recording = session_->recording();
    const bool run = recording && recording->size() > 1 && !runIsSaved();
    QMessageBox box(QMessageBox::Warning, tr("Save changes?"),
                    tr("“%1” has changes that are not saved.").arg(document_->title()),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
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
bool MainWindow::maybeKeepRun() {
    const engine::Recording* recording = session_->recording();
    if (!recording || recording->size() <= 1 || runIsSaved()) return true;
    const double from = recording->time(recording->first());
    const double until = recording->time(recording->size() - 1);
    QMessageBox box(QMessageBox::Question, tr("Keep the run?"),
                    tr("The recorded run of “%1” (%2–%3 s, %4 frames) is not saved.")
                        .arg(document_->title())
                        .arg(from, 0, 'f', 3)
                        .arg(until, 0, 'f', 3)
                        .arg(recording->size() - recording->first()),
                    QMessageBox::NoButton, this);
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
    QString start = document_->path().isEmpty()
                        ? QString()
                        : QFileInfo(document_->path()).path() + QLatin1Char('/') +
                              QFileInfo(document_->path()).completeBaseName() +
                              QStringLiteral(".motusrun");
    QString path =
        QFileDialog::getSaveFileName(this, tr("Save Run As"), start, tr("Motus runs (*.motusrun)"));
    if (path.isEmpty()) return false;
    if (!path.endsWith(QLatin1String(".motusrun"))) path += QStringLiteral(".motusrun");
    return saveRun(path);
}

bool MainWindow::runIsSaved() const {
    const engine::Recording* recording = session_->recording();
    return recording && recording == savedRun_ && recording->size() == savedRunFrames_;
}

void MainWindow::noteRunSaved() {
    const engine::Recording* recording = session_->recording();
    savedRun_ = recording;
    savedRunFrames_ = recording ? recording->size() : 0;
}

bool MainWindow::saveRun(const QString& path) {
    const engine::Recording* recording = session_->recording();
    if (!scene() || !recording) {
        addMessage(kMessageWarning, tr("There is no run to save."));
        return false;
    }
    keepPlotsInScene();
    std::string error;
    if (!engine::io::saveRunFile(*scene(), *recording, path.toStdString(), error)) {
        addMessage(kMessageError,
                   tr("Could not save the run to %1: %2").arg(path, QString::fromStdString(error)));
        return false;
    }
    noteRunSaved();
    addMessage(kMessageInfo,
               tr("Saved the run (%1 frames) to %2").arg(recording->size()).arg(path));
    return true;
}

bool MainWindow::openRun(const QString& path) {
    std::string error;
    auto run = engine::io::loadRunFile(path.toStdString(), error);
    if (!run) {
        addMessage(kMessageError, tr("Could not open %1: %2; the current scene is unchanged.")
                                      .arg(path, QString::fromStdString(error)));
        return false;
    }
    auto spec = std::make_unique<engine::SceneSpec>(std::move(run->spec));
    const QString title =
        spec->name.empty() ? QFileInfo(path).fileName() : QString::fromStdString(spec->name);
    // A run is not a scene file: the document has none (Save As writes one).
    document_->reset(std::move(spec), QString(), tr("%1 (run)").arg(title));
    session_->clear();
    if (const QString problem = session_->adopt(run->model, std::move(run->recording));
        !problem.isEmpty()) {
        addMessage(kMessageError, tr("Could not continue the run: %1").arg(problem));
    }
    noteRunStart({}, tr("Dynamics"));
    noteRunSaved();  // as it is in its file
    restorePlots();
    addMessage(kMessageInfo, tr("Opened the run %1").arg(path));
    return true;
}

void MainWindow::saveWithDialog() {
    if (!scene()) return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Scene As"), document_->path(),
                                                      tr("Motus scenes (*.json)"));
    if (!path.isEmpty())
        saveSceneAs(path.endsWith(QLatin1String(".json")) ? path : path + QStringLiteral(".json"));
}

void MainWindow::showDocument(std::unique_ptr<engine::SceneSpec> spec, const QString& path,
                              const QString& title, bool unsavedWork) {
    document_->reset(std::move(spec), path, title, unsavedWork);
    modes_->clear();
    session_->clear();
    const engine::Diagnostics runProblems = session_->start(*scene());
    for (const engine::Diagnostic& d : runProblems)
        addMessage(d.severity == engine::Severity::Error ? kMessageError : kMessageWarning,
                   QStringLiteral("%1 (%2)").arg(
                       toQString(d.message),
                       d.where.empty() ? title : title + QLatin1Char(':') + toQString(d.where)),
                   entitiesOf(d));
    noteRunStart(runProblems, tr("Dynamics"));
    restorePlots();
    statusBar()->showMessage(tr("%1: %2 parts, %3 markers, %4 joints")
                                 .arg(title)
                                 .arg(scene()->parts.size())
                                 .arg(scene()->markerCount())
                                 .arg(scene()->joints.size()));
}

void MainWindow::documentReset() {
    ++documentRevision_;
    modes_->clear();
    const engine::SceneSpec* spec = scene();
    tools_->cancel();
    {
        const QSignalBlocker block(tree_->selectionModel());
        if (spec)
            populateSceneTree(*treeModel_, *spec);
        else
            treeModel_->clear();
        tree_->expandToDepth(0);
    }
    fitNameColumn(150);
    if (spec)
        viewport_->showScene(*spec);
    else
        viewport_->clearScene();
    plots_->clear();
    documentEdited_ = false;
    rerunAction_->setEnabled(false);
    properties_->showEntity(spec, engine::kNoEntity);
    updateTitle();
    updateDegreesOfFreedom();
}

void MainWindow::updateTitle() {
    if (!scene()) {
        setWindowTitle(QStringLiteral("Motus"));
        return;
    }
    const bool modified = document_->isModified();
    // The name, a star while it differs from its file, and a note when it has no file yet.
    setWindowTitle(QStringLiteral("%1%2%3 — Motus")
                       .arg(document_->title(), modified ? QStringLiteral("*") : QString(),
                            document_->path().isEmpty() && !document_->title().endsWith(tr("(run)"))
                                ? tr(" (unsaved)")
                                : QString()));
}

bool MainWindow::importRobot(const QString& path, const engine::io::RobotImportOptions& options) {
    QApplication::setOverrideCursor(Qt::WaitCursor);  // meshes of a big robot take seconds
    const engine::io::RobotImportResult imported =
        engine::io::importRobotFile(path.toStdString(), options);
    QApplication::restoreOverrideCursor();
    const QString name = QFileInfo(path).fileName();
    int warnings = 0;
    for (const engine::Diagnostic& d : imported.diagnostics) {
        warnings += d.severity == engine::Severity::Warning;
        addMessage(d.severity == engine::Severity::Error ? kMessageError : kMessageWarning,
                   QStringLiteral("%1 (%2%3)")
                       .arg(toQString(d.message), name,
                            d.where.empty() ? QString() : QLatin1Char(':') + toQString(d.where)));
    }
    if (!imported.scene) {
        addMessage(kMessageError,
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
    addMessage(
        kMessageInfo,
        tr("Imported %1: %2 parts, %3 joints%4. File ▸ Save As keeps it as a Motus scene")
            .arg(path)
            .arg(parts)
            .arg(joints)
            .arg(warnings
                     ? tr(", %1 warnings above saying what was changed or left out").arg(warnings)
                     : QString()));
    return true;
}

void MainWindow::openWithDialog() {
    if (!maybeSave()) return;
    const QString start =
        document_->path().isEmpty() ? QString() : QFileInfo(document_->path()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Scene"), start,
                                                      tr("Motus scenes (*.json);;All files (*)"));
    if (!path.isEmpty()) openScene(path);
}

void MainWindow::showAbout() {
    QMessageBox::about(this, tr("About Motus"),
                       tr("<h3>Motus %1</h3><p>Rigid multibody mechanism simulator: parts, "
                          "markers, joints, forces and contact, solved in maximal coordinates."
                          "</p>")
                           .arg(toQString(engine::versionString())));
}

void MainWindow::addRecentFile(const QString& path) {
    QSettings settings;
    QStringList files = settings.value(QStringLiteral("recentFiles")).toStringList();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles) files.removeLast();
    settings.setValue(QStringLiteral("recentFiles"), files);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
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

void MainWindow::addMessage(int severity, const QString& text,
                            const std::vector<engine::EntityId>& entities) {
    static const QStyle::StandardPixmap icons[] = {QStyle::SP_MessageBoxCritical,
                                                   QStyle::SP_MessageBoxWarning,
                                                   QStyle::SP_MessageBoxInformation};
    // A result the user asked for is shown like information, and brought forward like a problem.
    const bool result = severity == kMessageResult;
    if (result) severity = kMessageInfo;
    auto* item = new QListWidgetItem(style()->standardIcon(icons[severity]), text, messages_);
    item->setData(Qt::UserRole, severity);
    // Where the user looks: the status bar says it at once; problems and results bring the
    // Messages tab in front of the Plots tab.
    statusBar()->showMessage(text.section(QLatin1Char('\n'), 0, 0), 10000);
    if (severity != kMessageInfo || result) {
        messages_->parentWidget()->show();
        messages_->parentWidget()->raise();
    }
    // A message about entities (a joint that cannot close and the parts of its loop, the
    // element a run stopped on, what a diagnostic's place names) is tied to the first: an
    // error or a warning highlights them all in the 3D view at once (the tree and the
    // properties stay on what the user was editing), and clicking the message selects it. The
    // entities come with the message, by id, never from its words.
    std::vector<quint64> shown;
    if (scene())
        for (const engine::EntityId id : entities)
            if (id != engine::kNoEntity && std::find(shown.begin(), shown.end(), id) == shown.end())
                shown.push_back(id);
    if (!shown.empty()) {
        item->setData(kMessageEntityRole, shown.front());
        item->setToolTip(tr("Click to select it"));
        if (severity != kMessageInfo) viewport_->setSelection(shown);
    }
    messages_->scrollToItem(item);
}

std::vector<engine::EntityId> MainWindow::entitiesOf(const engine::Diagnostic& d) const {
    std::vector<engine::EntityId> ids = d.entities;
    if (scene() && !d.where.empty())
        if (const engine::EntityId id = scene()->entityAt(d.where); id != engine::kNoEntity)
            ids.insert(ids.begin(), id);
    return ids;
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    autosaver_->discard();  // a clean exit: saved, or the user chose not to keep the edits
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    event->accept();
}

int MainWindow::offerRecovery() {
    int recovered = 0;
    for (const RecoveryEntry& entry : orphanedRecoveries()) {
        QMessageBox box(this);
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
            addMessage(kMessageInfo, tr("Discarded the unsaved work of \"%1\".").arg(entry.title));
        }
    }
    return recovered;
}

bool MainWindow::recoverFrom(const RecoveryEntry& entry) {
    QString error;
    std::unique_ptr<engine::SceneSpec> spec = loadRecovery(entry, error);
    if (!spec) {
        addMessage(kMessageError, tr("Cannot recover \"%1\": %2 (the recovery file %3 is kept)")
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
            const bool sameScene =
                engine::io::sceneToJson(loaded->spec) == engine::io::sceneToJson(*scene());
            session_->clear();
            if (const QString problem =
                    session_->adopt(loaded->model, std::move(loaded->recording));
                problem.isEmpty()) {
                run = tr(" and its recorded run (%1 frames)").arg(entry.runFrames);
                // Edited after the run: as after any edit, Re-run From Here takes the edit in.
                documentEdited_ = !sameScene;
                rerunAction_->setEnabled(!sameScene);
                cannotRun_.clear();
                analysisName_ = tr("Dynamics");
                runSceneJson_ = mechanismText(loaded->spec);
                updateRunState();
            } else {
                addMessage(kMessageWarning,
                           tr("The recorded run could not be continued: %1").arg(problem));
            }
        } else {
            addMessage(kMessageWarning, tr("The recorded run kept with it cannot be read: %1")
                                            .arg(QString::fromStdString(why)));
        }
    }
    removeRecovery(entry);
    addMessage(kMessageResult,
               tr("Recovered \"%1\"%4 as of %2 (%3): File ▸ Save keeps it.")
                   .arg(entry.title, QLocale().toString(entry.savedAt, QLocale::ShortFormat),
                        entry.edits == 1 ? tr("1 edit") : tr("%1 edits").arg(entry.edits), run));
    return true;
}

}  // namespace ui
