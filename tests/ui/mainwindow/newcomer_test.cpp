// Defects a newcomer met in a first session, each pinned by a test: names cut in the scene
// tree, a geometry row showing the wrong properties, results hidden behind the Plots tab,
// Re-run From Here that did not go on, frames the arrow keys could not step, a Help menu with
// nothing but About. (README command 1 with options: ui.smoke.run_script_keeps_the_example_scene.)

#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QStatusBar>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>

#include <gtest/gtest.h>

#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/analyses.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/help_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/scene_tree_panel.h"
#include "ui/models/scene_tree.h"
#include "ui/plots/plots_panel.h"
#include "ui/properties/properties_panel.h"
#include "ui/session/simulation_session.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {
namespace {

const QString kFourBar = QStringLiteral(MOTUS_SOURCE_DIR "/scenes/four_bar.json");
const QString kBadScene =
    QStringLiteral(MOTUS_SOURCE_DIR "/tests/app/data/dangling_and_bad_mass.json");

class NewcomerTest : public ::testing::Test {
protected:
    void SetUp() override {
        window.resize(1100, 720);  // the size the program opens at
        window.show();
        window.activateWindow();  // keyboard shortcuts go to the active window
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
        ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
    }
    QModelIndex rowOf(quint64 entity, int shape = 0) {
        QAbstractItemModel* model = window.sceneTree()->model();
        for (const QModelIndex& index :
             model->match(model->index(0, 0), kEntityIdRole, QVariant::fromValue(entity), -1,
                          Qt::MatchExactly | Qt::MatchRecursive))
            if (index.data(kShapeRole).toInt() == shape) return index;
        return {};
    }
    // A click on the row, as the user selects it.
    void clickRow(const QModelIndex& index) {
        QTreeView* tree = window.sceneTree();
        tree->scrollTo(index);
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualRect(index).center());
    }
    // Simulates to `time` and waits until the run stands there.
    bool runTo(double time) {
        window.session()->runTo(time);
        return QTest::qWaitFor(
            [&] {
                const auto snap = window.session()->snapshot();
                return snap && snap->mode == engine::RunMode::Paused && snap->time >= time - 1e-9;
            },
            30000);
    }
    bool waitForFrame(std::size_t frame) {
        return QTest::qWaitFor(
            [&] {
                const auto snap = window.session()->snapshot();
                return snap && snap->frame == frame && snap->mode == engine::RunMode::Paused;
            },
            10000);
    }
    QDockWidget* dock(const char* name) {
        return window.findChild<QDockWidget*>(QString::fromLatin1(name));
    }
    MainWindow window;
};

// Every name in the tree fits its column after any edit; the width the user gave it stays.
TEST_F(NewcomerTest, NamesStayReadableInTheTreeAfterPropertiesEdits) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    QTreeView* tree = window.sceneTree();
    const engine::Part& crank = window.scene()->parts[1];
    tree->expand(rowOf(crank.id));
    // A marker with a long name, as users name them.
    engine::SceneSpec renamed = *window.scene();
    renamed.parts[1].markers[0].name = "crankPivotBracket";
    window.document()->rename(renamed, "rename");
    QTest::qWait(20);
    auto namesFit = [&] {
        for (const QModelIndex& index :
             tree->model()->match(tree->model()->index(0, 0), Qt::DisplayRole, QString("*"), -1,
                                  Qt::MatchWildcard | Qt::MatchRecursive)) {
            const QRect cell = tree->visualRect(index);
            if (!cell.isValid() || index.column() != 0) continue;
            const int needed =
                tree->fontMetrics().horizontalAdvance(index.data().toString()) + 16 /*icon*/ + 8;
            if (cell.width() < needed) return false;
        }
        return true;
    };
    tree->expand(rowOf(window.scene()->parts[1].id));
    QTest::qWait(20);
    EXPECT_TRUE(namesFit());
    const int before = tree->header()->sectionSize(0);
    EXPECT_GE(before, 120);

    // An edit in the Properties panel (the mass) rebuilds the tree: the names still fit.
    clickRow(rowOf(window.scene()->parts[1].id));
    auto* mass = qobject_cast<QLineEdit*>(window.properties()->editor("Mass"));
    ASSERT_TRUE(mass);
    mass->setText("2.5");
    window.properties()->commit("Mass");
    QTest::qWait(20);
    EXPECT_EQ(window.scene()->parts[1].mass, 2.5);
    EXPECT_GE(tree->header()->sectionSize(0), before);
    EXPECT_TRUE(namesFit());

    // The user's own wider column stays wider across edits.
    tree->header()->resizeSection(0, before + 60);
    window.undoStack()->undo();
    QTest::qWait(20);
    EXPECT_EQ(tree->header()->sectionSize(0), before + 60);
}

// A geometry row shows that shape: its type, dimensions and place, under a title naming it.
TEST_F(NewcomerTest, AGeometryRowShowsItsShapesProperties) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    const engine::EntityId crank = window.scene()->parts[1].id;
    window.sceneTree()->expand(rowOf(crank));
    const QModelIndex shapeRow = rowOf(crank, 1);
    ASSERT_TRUE(shapeRow.isValid());
    clickRow(shapeRow);
    PropertiesPanel* panel = window.properties();
    EXPECT_EQ(panel->entity(), crank);
    EXPECT_EQ(panel->shape(), 1);
    const QStringList keys = panel->keys();
    EXPECT_TRUE(keys.contains("shape.size")) << keys.join(", ").toStdString();
    EXPECT_TRUE(keys.contains("shape.position"));
    EXPECT_FALSE(keys.contains("mass")) << "the part's own fields stay with the part's row";
    EXPECT_FALSE(keys.contains("name"));
    if (qEnvironmentVariableIsSet("MOTUS_SCREENSHOT_DIR")) {
        QTest::qWait(100);
        window.grab().save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") + "/shape_properties.png");
        QLabel help;
        help.setTextFormat(Qt::RichText);
        help.setText(window.help()->shortcutsText());
        help.adjustSize();
        help.grab().save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") + "/shortcuts.png");
    }

    // Editing it edits that shape, through the undo stack; the shape stays shown.
    auto* sx = qobject_cast<QLineEdit*>(panel->editorForKey("shape.size", 0));
    ASSERT_TRUE(sx);
    sx->setText("0.2");
    panel->commit("shape.size");
    EXPECT_DOUBLE_EQ(window.scene()->parts[1].shapes[0].size.x(), 0.2);
    EXPECT_EQ(panel->shape(), 1);
    EXPECT_EQ(window.sceneTree()->currentIndex().data(kShapeRole).toInt(), 1);
    window.undoStack()->undo();
    EXPECT_DOUBLE_EQ(window.scene()->parts[1].shapes[0].size.x(), 0.1);

    // The part's row shows the whole part again.
    clickRow(rowOf(crank));
    EXPECT_EQ(panel->shape(), 0);
    EXPECT_TRUE(panel->keys().contains("mass"));
}

// Load errors and analysis results come to the front (the Messages tab over Plots) and to the
// status bar; plain information stays where it is.
TEST_F(NewcomerTest, ProblemsAndResultsAreShownWhereTheUserLooks) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    QDockWidget* messages = dock("MessagesDock");
    QDockWidget* plots = dock("PlotsDock");
    ASSERT_TRUE(messages && plots);
    plots->show();
    plots->raise();
    QTest::qWait(20);
    ASSERT_TRUE(messages->visibleRegion().isEmpty()) << "Plots in front to begin with";

    EXPECT_FALSE(window.files()->openScene(kBadScene));
    QTest::qWait(20);
    EXPECT_FALSE(messages->visibleRegion().isEmpty()) << "the errors of the file are in front";
    EXPECT_FALSE(window.statusBar()->currentMessage().isEmpty());

    plots->raise();
    QTest::qWait(20);
    ASSERT_TRUE(window.analyses()->start(Analyses::Kind::Assemble));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !window.analyses()->running(); }, 20000));
    QTest::qWait(20);
    EXPECT_FALSE(messages->visibleRegion().isEmpty()) << "the result is in front";
    EXPECT_TRUE(window.statusBar()->currentMessage().contains("Assembled"))
        << window.statusBar()->currentMessage().toStdString();
}

// Simulate ▸ Re-run From Here continues at once, as its message says.
TEST_F(NewcomerTest, ReRunFromHereGoesOnWithoutPressingPlay) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    SimulationSession* session = window.session();
    ASSERT_TRUE(runTo(0.3));
    const std::size_t frame = session->recording()->frameAtOrBefore(0.1);
    session->seekFrame(static_cast<int>(frame));
    ASSERT_TRUE(waitForFrame(frame));
    engine::SceneSpec heavier = *window.scene();
    heavier.gravity.z() *= 2.0;
    window.document()->changeFields(heavier, "gravity");
    QTest::qWait(20);
    QAction* rerun = nullptr;
    for (QAction* a : window.findChildren<QAction*>())
        if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R)) rerun = a;
    ASSERT_TRUE(rerun && rerun->isEnabled());
    rerun->trigger();
    // No Play pressed: the time moves on past the frame it re-ran from.
    EXPECT_TRUE(QTest::qWaitFor(
        [&] {
            const auto snap = session->snapshot();
            return snap && snap->time > 0.1 + 0.05;
        },
        10000));
    session->pause();
}

// ← and → step one recorded frame in the 3D view (Shift: ten), Home and End go to the ends;
// → on the last recorded frame computes the next one.
TEST_F(NewcomerTest, ArrowKeysStepThroughTheRecordedFrames) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    SimulationSession* session = window.session();
    ASSERT_TRUE(runTo(0.05));
    const std::size_t last = session->recording()->size() - 1;
    ASSERT_EQ(last, 50u);  // 1 ms outputs
    ViewportWidget* view = window.viewport();
    view->setFocus();
    QTest::qWait(20);
    QTest::keyClick(view, Qt::Key_Left);
    EXPECT_TRUE(waitForFrame(last - 1));
    QTest::keyClick(view, Qt::Key_Left, Qt::ShiftModifier);
    EXPECT_TRUE(waitForFrame(last - 11));
    QTest::keyClick(view, Qt::Key_Right);
    EXPECT_TRUE(waitForFrame(last - 10));
    QTest::keyClick(view, Qt::Key_Home);
    EXPECT_TRUE(waitForFrame(0));
    QTest::keyClick(view, Qt::Key_Left);  // nothing before the first
    QTest::qWait(50);
    EXPECT_EQ(session->snapshot()->frame, 0u);
    QTest::keyClick(view, Qt::Key_End);
    EXPECT_TRUE(waitForFrame(last));
    QTest::keyClick(view, Qt::Key_Right);
    EXPECT_TRUE(waitForFrame(last + 1)) << "a new frame computed";
    EXPECT_EQ(session->recording()->size(), last + 2);

    // In the scene tree the arrows keep their meaning (they move the current row).
    QTreeView* tree = window.sceneTree();
    tree->setFocus();
    tree->setCurrentIndex(tree->model()->index(0, 0));
    const std::size_t shown = session->snapshot()->frame;
    QTest::keyClick(tree, Qt::Key_Down);
    QTest::keyClick(tree, Qt::Key_Left);
    QTest::qWait(50);
    EXPECT_EQ(session->snapshot()->frame, shown);
}

// Help has the keyboard and mouse reference (from the menus' own shortcuts) and opens the
// documentation that comes with the program.
TEST_F(NewcomerTest, HelpListsTheShortcutsAndFindsTheDocumentation) {
    QStringList helpItems;
    for (QAction* menu : window.menuBar()->actions())
        if (menu->text().remove('&') == "Help")
            for (QAction* a : menu->menu()->actions()) helpItems << a->text().remove('&');
    EXPECT_TRUE(helpItems.contains("User Guide")) << helpItems.join(", ").toStdString();
    EXPECT_TRUE(helpItems.contains("Keyboard and Mouse…"));
    EXPECT_TRUE(helpItems.contains("About Motus"));
    const QString text = window.help()->shortcutsText();
    for (const char* expected :
         {"Previous Frame", "Next Frame", "Re-run From Here", "Play / Pause", "Undo", "Left drag"})
        EXPECT_TRUE(text.contains(expected)) << expected;
    EXPECT_TRUE(text.contains(
        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R).toString(QKeySequence::NativeText)));
    const QString guide = HelpActions::documentationPath("README.md");
    ASSERT_FALSE(guide.isEmpty());
    EXPECT_TRUE(QFileInfo(guide).isFile());
    EXPECT_TRUE(QFileInfo(HelpActions::documentationPath("docs/scene-format.md")).isFile());
    EXPECT_TRUE(HelpActions::documentationPath("docs/no-such-page.md").isEmpty());
}

}  // namespace
}  // namespace ui
