// Copies of parts from the Edit menu and its keys: Copy/Paste through the clipboard, Duplicate,
// Mirror (through its dialog) and Array, each one undo step, each with the joints between the
// copied parts.

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QListWidget>
#include <QMimeData>
#include <QPushButton>
#include <QTest>
#include <QTimer>
#include <QTreeView>
#include <QUndoStack>

#include <gtest/gtest.h>

#include "ui/mainwindow/copies.h"
#include "ui/mainwindow/dof_status.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/messages_panel.h"
#include "ui/mainwindow/scene_tree_panel.h"
#include "ui/models/scene_tree.h"

namespace ui {
namespace {

const QString kFourBar = QStringLiteral(MOTUS_SOURCE_DIR "/scenes/four_bar.json");

class CopiesTest : public ::testing::Test {
protected:
    void SetUp() override {
        window.resize(1100, 720);
        window.show();
        window.activateWindow();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
        ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
        ASSERT_TRUE(window.files()->openScene(kFourBar));
    }
    // Selects these entities' rows in the tree, as Ctrl+clicks do.
    void select(const std::vector<engine::EntityId>& ids) {
        QTreeView* tree = window.sceneTree();
        tree->clearSelection();
        for (engine::EntityId id : ids) {
            const QModelIndexList rows = tree->model()->match(
                tree->model()->index(0, 0), kEntityIdRole, QVariant::fromValue(quint64(id)), 1,
                Qt::MatchExactly | Qt::MatchRecursive);
            ASSERT_FALSE(rows.isEmpty());
            tree->selectionModel()->select(rows.front(),
                                           QItemSelectionModel::Select | QItemSelectionModel::Rows);
        }
        tree->setFocus();
    }
    std::vector<engine::EntityId> moving() const {
        std::vector<engine::EntityId> ids;
        for (const engine::Part& p : window.scene()->parts)
            if (!p.ground) ids.push_back(p.id);
        return ids;
    }
    MainWindow window;
};

TEST_F(CopiesTest, CopyAndPasteTakeTheJointsBetweenThePartsInOneUndoStep) {
    select(moving());
    const int undo = window.undoStack()->count();
    QTest::keyClick(window.sceneTree(), Qt::Key_C, Qt::ControlModifier);
    ASSERT_TRUE(QApplication::clipboard()->mimeData()->hasFormat(Copies::mimeType()));
    QTest::keyClick(window.sceneTree(), Qt::Key_V, Qt::ControlModifier);
    const engine::SceneSpec& after = *window.scene();
    ASSERT_EQ(after.parts.size(), 7u);
    EXPECT_EQ(after.joints.size(), 6u);  // pinB_2 and pinC_2 with the copies
    EXPECT_EQ(after.parts[4].name, "crank_2");
    EXPECT_EQ(window.undoStack()->count(), undo + 1);
    // Pasted beside the originals, the copied joints as closed as the originals.
    EXPECT_GT(after.parts[4].X_WP.p.x() - after.parts[1].X_WP.p.x(), 0.1);
    EXPECT_NEAR(after.parts[5].X_WP.p.x() - after.parts[2].X_WP.p.x(),
                after.parts[4].X_WP.p.x() - after.parts[1].X_WP.p.x(), 1e-15);
    // The first pasted part is selected; the copied mechanism has its own degrees of freedom:
    // the copies are free (3 free parts joined by two revolutes: 18 − 10 = 8 more).
    EXPECT_EQ(window.degreesOfFreedom()->freeDegreesOfFreedom(), 1 + 8);
    window.undoStack()->undo();
    EXPECT_EQ(window.scene()->parts.size(), 4u);

    // A damaged clipboard (another program's bytes under Motus's type): refused with the reason.
    auto* junk = new QMimeData;
    junk->setData(Copies::mimeType(),
                  QByteArray("{\"format\": \"motus-scene\", \"parts\": [{\"name\": 7"));
    QApplication::clipboard()->setMimeData(junk);
    EXPECT_FALSE(window.copies()->paste());
    EXPECT_EQ(window.scene()->parts.size(), 4u);
    EXPECT_EQ(window.undoStack()->index(), undo);  // no new edit
    EXPECT_TRUE(
        window.messages()->item(window.messages()->count() - 1)->text().contains("cannot be read"));
}

TEST_F(CopiesTest, DuplicateMirrorAndArray) {
    const engine::EntityId crank = window.scene()->parts[1].id;
    select({crank});
    QTest::keyClick(window.sceneTree(), Qt::Key_D, Qt::ControlModifier);
    ASSERT_EQ(window.scene()->parts.size(), 5u);
    EXPECT_EQ(window.scene()->parts[4].name, "crank_2");

    // Mirror through its dialog: the YZ plane through x = 200 mm.
    select(moving());
    const int undo = window.undoStack()->count();
    bool dialogSeen = false;
    QTimer::singleShot(0, [&] {
        auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
        ASSERT_TRUE(dialog);
        dialogSeen = dialog->objectName() == QLatin1String("MirrorDialog");
        dialog->findChild<QComboBox*>(QStringLiteral("MirrorPlane"))->setCurrentIndex(0);
        dialog->findChildren<QDoubleSpinBox*>().front()->setValue(200.0);  // x of the point
        dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
    });
    window.findChild<QAction*>(QStringLiteral("EditMirror"))->trigger();
    EXPECT_TRUE(dialogSeen);
    const engine::SceneSpec& mirrored = *window.scene();
    ASSERT_EQ(mirrored.parts.size(), 9u);
    EXPECT_EQ(window.undoStack()->count(), undo + 1);
    // The crank's copy: its pivot end at the mirror image of A (0, 0, 0) in x = 0.2: (0.4, 0, 0).
    const engine::Part& crankMirror = mirrored.parts[5];
    EXPECT_EQ(crankMirror.name, "crank_3");
    const engine::Vec3 pivot = crankMirror.X_WP * crankMirror.markers[0].X_PM.p;
    const engine::Part& crankPart = mirrored.parts[1];
    const engine::Vec3 original = crankPart.X_WP * crankPart.markers[0].X_PM.p;
    EXPECT_NEAR(pivot.x(), 0.4 - original.x(), 1e-15);
    EXPECT_NEAR(pivot.z(), original.z(), 1e-15);

    // Three copies of the crank along y, 0.2 m apart, in one step.
    select({crank});
    ASSERT_TRUE(window.copies()->array(3, engine::Vec3(0.0, 0.2, 0.0)));
    ASSERT_EQ(window.scene()->parts.size(), 12u);
    for (int k = 1; k <= 3; ++k)
        EXPECT_NEAR(window.scene()->parts[8 + k].X_WP.p.y(),
                    0.2 * k + window.scene()->parts[1].X_WP.p.y(), 1e-15);
    window.undoStack()->undo();
    EXPECT_EQ(window.scene()->parts.size(), 9u);
    // Nothing selected: a warning, no edit.
    window.sceneTree()->clearSelection();
    EXPECT_FALSE(window.copies()->duplicate());
    EXPECT_EQ(window.scene()->parts.size(), 9u);
}

}  // namespace
}  // namespace ui
