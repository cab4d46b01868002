// Moving frames in the window as a user meets them: a table selected in the tree is made a
// moving frame with the switch in Properties, its yaw typed as an expression of time; each is
// one undoable edit that marks the document modified, the tree says which part moves, a typo
// stays in its field with its reason, and undo takes the frame away again. The ground is never
// offered one, and a moving frame made the ground is refused with the reason beside the switch.

#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>

#include <gtest/gtest.h>

#include "engine/io/scene_json.h"
#include "tests/ui/support/window_test.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/scene_tree_panel.h"
#include "ui/models/scene_tree.h"
#include "ui/properties/expression_editor.h"
#include "ui/properties/properties_panel.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {
namespace {

using engine::Vec3;

const QString kSwitch = QStringLiteral("frameMotion");
const QString kYaw = QStringLiteral("frameMotion.rotation#2");

using test::drawn;

// The ground and a steel table top half a metre above it, nothing joining them.
engine::SceneSpec groundAndTable() {
    engine::SceneSpec spec;
    spec.name = "ground_and_table";
    engine::Part ground;
    ground.id = spec.newId();
    ground.name = "ground";
    ground.ground = true;
    spec.parts.push_back(ground);
    engine::Part table;
    table.id = spec.newId();
    table.name = "table";
    table.X_WP.p = Vec3(0.0, 0.0, 0.5);
    engine::Shape top;
    top.type = engine::ShapeType::Box;
    top.size = Vec3(0.4, 0.3, 0.02);
    table.shapes.push_back(top);
    table.density = 7850.0;
    spec.parts.push_back(table);
    return spec;
}

class MovingFrameTest : public ::testing::Test {
protected:
    void SetUp() override {
        window.resize(1280, 800);
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
        const engine::SceneSpec spec = groundAndTable();
        const QString path = dir.filePath(QStringLiteral("ground_and_table.json"));
        std::string error;
        ASSERT_TRUE(engine::io::saveSceneFile(spec, path.toStdString(), error)) << error;
        ASSERT_TRUE(window.files()->openScene(path));
        drawn(window.viewport());
    }
    const engine::Part& part(const std::string& name) const {
        return *window.scene()->findPart(name);
    }
    // The part's row in the tree, as a click selects it.
    QModelIndex rowOf(const std::string& name) const {
        QTreeView* tree = window.sceneTree();
        const QModelIndexList rows = tree->model()->match(
            tree->model()->index(0, 0), kEntityIdRole, QVariant::fromValue(quint64(part(name).id)),
            1, Qt::MatchExactly | Qt::MatchRecursive);
        return rows.isEmpty() ? QModelIndex() : rows.front();
    }
    void select(const std::string& name) {
        const QModelIndex row = rowOf(name);
        ASSERT_TRUE(row.isValid()) << name;
        QTreeView* tree = window.sceneTree();
        tree->clearSelection();
        tree->selectionModel()->select(row,
                                       QItemSelectionModel::Select | QItemSelectionModel::Rows);
        ASSERT_EQ(window.properties()->entity(), part(name).id);
    }
    QString details(const std::string& name) const {
        const QModelIndex row = rowOf(name);
        return row.sibling(row.row(), 1).data().toString();
    }
    QCheckBox* frameSwitch() const {
        return qobject_cast<QCheckBox*>(window.properties()->editorForKey(kSwitch));
    }
    // A switch flipped as a click does; the edit it makes rebuilds the panel (under the
    // switch's feet in a test, which has no event loop to defer the old editors' deletion to).
    void flip(const QString& key) {
        PropertiesPanel* panel = window.properties();
        auto* check = qobject_cast<QCheckBox*>(panel->editorForKey(key));
        ASSERT_TRUE(check) << key.toStdString();
        {
            const QSignalBlocker quiet(check);
            check->setChecked(!check->isChecked());
        }
        panel->commit(key);
    }
    ExpressionEditor* expression(const QString& key) const {
        return qobject_cast<ExpressionEditor*>(window.properties()->editorForKey(key));
    }
    // Typed over what the field holds and confirmed with Return, as the user does.
    static void type(ExpressionEditor* editor, const QString& text) {
        editor->lineEdit()->setFocus();
        editor->lineEdit()->selectAll();
        QTest::keyClicks(editor->lineEdit(), text);
        QTest::keyClick(editor->lineEdit(), Qt::Key_Return);
    }

    QTemporaryDir dir;
    MainWindow window;
};

TEST_F(MovingFrameTest, ATableIsMadeAMovingFrameInPropertiesAndUndoTakesItAway) {
    select("table");
    PropertiesPanel* panel = window.properties();
    ASSERT_TRUE(frameSwitch());
    EXPECT_FALSE(frameSwitch()->isChecked());
    EXPECT_FALSE(expression(kYaw));  // no expressions until the part is a moving frame
    EXPECT_FALSE(window.document()->isModified());
    EXPECT_FALSE(details("table").contains(QStringLiteral("moving frame")));
    const int steps = window.undoStack()->count();

    // Switched on: one edit, the part at rest where it is until its expressions are typed.
    flip(kSwitch);
    ASSERT_TRUE(part("table").frameMotion) << panel->message(kSwitch).toStdString();
    for (int c = 0; c < 3; ++c) {
        EXPECT_EQ(part("table").frameMotion->translation[c], "0");
        EXPECT_EQ(part("table").frameMotion->rotation[c], "0");
    }
    EXPECT_EQ(window.undoStack()->count(), steps + 1);
    EXPECT_TRUE(window.document()->isModified());
    EXPECT_TRUE(frameSwitch()->isChecked());
    EXPECT_TRUE(details("table").contains(QStringLiteral("moving frame")))
        << details("table").toStdString();
    // Six expressions of time, each with its unit, found by label as by key.
    for (const char* key :
         {"frameMotion.translation", "frameMotion.translation#1", "frameMotion.translation#2",
          "frameMotion.rotation", "frameMotion.rotation#1", "frameMotion.rotation#2"})
        ASSERT_TRUE(expression(QString::fromLatin1(key))) << key;
    EXPECT_EQ(expression(QStringLiteral("frameMotion.translation#1"))->unit(), "m");
    EXPECT_EQ(expression(kYaw)->unit(), "rad");
    EXPECT_EQ(expression(kYaw)->variable(), "time");
    EXPECT_EQ(panel->editor(QStringLiteral("Yaw (about z)")), expression(kYaw));
    EXPECT_EQ(panel->editor(QStringLiteral("Translation x")),
              expression(QStringLiteral("frameMotion.translation")));

    // A turntable at 2 rad/s: the yaw typed in, one more edit.
    type(expression(kYaw), QStringLiteral("2*time"));
    EXPECT_EQ(panel->message(QStringLiteral("Yaw (about z)")), QString());
    EXPECT_EQ(part("table").frameMotion->rotation[2], "2*time");
    EXPECT_EQ(part("table").frameMotion->rotation[0], "0");
    EXPECT_EQ(part("table").frameMotion->translation[2], "0");
    EXPECT_EQ(window.undoStack()->count(), steps + 2);
    EXPECT_EQ(expression(kYaw)->lineEdit()->text(), "2*time");

    // A typo: its reason under the field, the text kept, the scene as it was.
    ExpressionEditor* yaw = expression(kYaw);
    type(yaw, QStringLiteral("2*tme"));
    EXPECT_FALSE(yaw->isValid());
    EXPECT_FALSE(yaw->error().isEmpty());
    EXPECT_EQ(yaw->lineEdit()->text(), "2*tme");
    EXPECT_EQ(part("table").frameMotion->rotation[2], "2*time");
    EXPECT_EQ(window.undoStack()->count(), steps + 2);
    // Committed anyway (a script, or Properties asked to apply it): refused with that reason.
    panel->commit(QStringLiteral("Yaw (about z)"));
    EXPECT_EQ(panel->message(QStringLiteral("Yaw (about z)")), yaw->error());
    EXPECT_EQ(part("table").frameMotion->rotation[2], "2*time");
    EXPECT_EQ(window.undoStack()->count(), steps + 2);

    // Undone: the yaw, then the moving frame itself; the document is its file again.
    window.undoStack()->undo();
    ASSERT_TRUE(part("table").frameMotion);
    EXPECT_EQ(part("table").frameMotion->rotation[2], "0");
    ASSERT_TRUE(expression(kYaw));
    EXPECT_EQ(expression(kYaw)->lineEdit()->text(), "0");
    window.undoStack()->undo();
    EXPECT_FALSE(part("table").frameMotion);
    EXPECT_FALSE(window.document()->isModified());
    ASSERT_TRUE(frameSwitch());
    EXPECT_FALSE(frameSwitch()->isChecked());
    EXPECT_FALSE(expression(kYaw));
    EXPECT_FALSE(details("table").contains(QStringLiteral("moving frame")));

    // Redone, then switched off: the frame motion goes with its expressions.
    window.undoStack()->redo();
    window.undoStack()->redo();
    ASSERT_TRUE(part("table").frameMotion);
    EXPECT_EQ(part("table").frameMotion->rotation[2], "2*time");
    flip(kSwitch);
    EXPECT_FALSE(part("table").frameMotion);
    EXPECT_FALSE(expression(kYaw));
    EXPECT_EQ(window.undoStack()->count(), steps + 3);
}

TEST_F(MovingFrameTest, TheGroundCannotBeAMovingFrame) {
    // The ground's page offers no switch: a line says why.
    select("ground");
    PropertiesPanel* panel = window.properties();
    EXPECT_FALSE(frameSwitch());
    EXPECT_FALSE(expression(kYaw));
    bool said = false;
    for (const QLabel* label : panel->findChildren<QLabel*>())
        if (label->text() == QStringLiteral("the ground cannot move")) {
            said = true;
            EXPECT_TRUE(label->parentWidget()->toolTip().contains(QStringLiteral("another part")))
                << label->parentWidget()->toolTip().toStdString();
        }
    EXPECT_TRUE(said);

    // A moving frame cannot become the ground either: refused beside the switch, with the
    // engine's reason, the scene as it was.
    select("table");
    flip(kSwitch);
    ASSERT_TRUE(part("table").frameMotion);
    const int steps = window.undoStack()->count();
    flip(QStringLiteral("ground"));
    EXPECT_FALSE(part("table").ground);
    EXPECT_TRUE(part("table").frameMotion);
    EXPECT_EQ(window.undoStack()->count(), steps);
    EXPECT_TRUE(panel->message(QStringLiteral("ground")).contains(QStringLiteral("cannot move")))
        << panel->message(QStringLiteral("ground")).toStdString();
}

}  // namespace
}  // namespace ui
