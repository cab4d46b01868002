// Deactivation in the window as a user meets it: a part switched off in Properties leaves the
// model with its joints (the DOF readout counts without them and lists what is out), its row
// and its joints' rows are greyed in the tree, it is drawn see-through where it stays, and one
// undo brings it back.

#include <QCheckBox>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>

#include <gtest/gtest.h>

#include "ui/document/scene_document.h"
#include "ui/mainwindow/dof_status.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/scene_tree_panel.h"
#include "ui/models/scene_tree.h"
#include "ui/properties/properties_panel.h"

namespace ui {
namespace {

TEST(DeactivationWindow, APartSwitchedOffLeavesTheModelAndOneUndoBringsItBack) {
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/four_bar.json")));
    EXPECT_EQ(window.degreesOfFreedom()->text(), "DOF 1 · Grübler -2 · 3 redundant");

    engine::EntityId rocker = engine::kNoEntity;
    for (const engine::Part& p : window.scene()->parts)
        if (p.name == "rocker") rocker = p.id;
    QTreeView* tree = window.sceneTree();
    const QModelIndexList rows = tree->model()->match(tree->model()->index(0, 0), kEntityIdRole,
                                                      QVariant::fromValue(quint64(rocker)), 1,
                                                      Qt::MatchExactly | Qt::MatchRecursive);
    ASSERT_FALSE(rows.isEmpty());
    tree->selectionModel()->select(rows.front(),
                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    auto* active =
        qobject_cast<QCheckBox*>(window.properties()->editorForKey(QStringLiteral("active")));
    ASSERT_TRUE(active);
    EXPECT_TRUE(active->isChecked());
    active->click();

    ASSERT_FALSE(window.scene()->findPart("rocker")->active);
    // The crank and the coupler swing free: two degrees of freedom, three elements out.
    EXPECT_EQ(window.degreesOfFreedom()->text(), "DOF 2 · Grübler 2 · 3 inactive");
    EXPECT_TRUE(window.degreesOfFreedom()->explanation().contains(
                    "joint &#x27;pivotD&#x27;: on deactivated part &#x27;rocker&#x27;") ||
                window.degreesOfFreedom()->explanation().contains(
                    "joint 'pivotD': on deactivated part 'rocker'"))
        << window.degreesOfFreedom()->explanation().toStdString();
    const QModelIndexList after = tree->model()->match(tree->model()->index(0, 0), kEntityIdRole,
                                                       QVariant::fromValue(quint64(rocker)), 1,
                                                       Qt::MatchExactly | Qt::MatchRecursive);
    ASSERT_FALSE(after.isEmpty());
    EXPECT_TRUE(
        after.front().siblingAtColumn(1).data().toString().startsWith("inactive: deactivated"));

    window.document()->undoStack()->undo();
    EXPECT_TRUE(window.scene()->findPart("rocker")->active);
    EXPECT_EQ(window.degreesOfFreedom()->text(), "DOF 1 · Grübler -2 · 3 redundant");
}

}  // namespace
}  // namespace ui
