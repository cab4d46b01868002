// Tables in the window as a user meets them: Edit ▸ Add Table makes "table1" (the line y = x
// through two points), listed under Tables and shown in Properties with its curve drawn; its
// points are typed or pasted (a bad list refused, saying which line), its interpolation picked;
// a spring takes it as its stiffness law from Properties; renamed in the tree, the spring's law
// follows; deleting it while the spring uses it is refused, naming why; each one undo step. The
// CSV reader behind Import CSV… reads a data sheet's columns. A cable's points are edited one
// marker a line.

#include <cmath>
#include <cstdlib>

#include <QAbstractItemModel>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>

#include <gtest/gtest.h>

#include "engine/io/table_csv.h"
#include "engine/math/table_curve.h"
#include "engine/model/scene_spec.h"
#include "tests/ui/support/window_test.h"
#include "ui/mainwindow/scene_tree_panel.h"
#include "ui/models/scene_tree.h"
#include "ui/properties/expression_editor.h"
#include "ui/properties/properties_panel.h"

namespace ui {
namespace {

const QString kSpring = QStringLiteral(MOTUS_SOURCE_DIR "/scenes/mass_spring_damper.json");

class TablesTest : public test::WindowTest {
protected:
    void SetUp() override { openWindow(kSpring); }
    void typePoints(const QString& text) {
        auto* lines = qobject_cast<QPlainTextEdit*>(
            window.properties()->editor(QStringLiteral("Points (x, y)")));
        ASSERT_TRUE(lines);
        lines->setPlainText(text);
        window.properties()->commit(QStringLiteral("Points (x, y)"));
    }
    QModelIndex tablesHeading() const {
        QAbstractItemModel* model = window.sceneTree()->model();
        for (int k = 0; k < model->rowCount(); ++k)
            if (model->index(k, 0).data().toString() == QLatin1String("Tables"))
                return model->index(k, 0);
        return {};
    }
};

TEST_F(TablesTest, AreAddedEditedTakenByASpringRenamedAndRefusedDeletionWhileUsed) {
    QUndoStack* undo = window.undoStack();
    const int before = undo->count();
    trigger("AddTable");
    ASSERT_EQ(scene().tables.size(), 1u);
    EXPECT_EQ(scene().tables[0].name, "table1");
    EXPECT_EQ(scene().tables[0].interpolation, engine::TableInterpolation::Akima);
    EXPECT_EQ(scene().tables[0].x, (std::vector<double>{0.0, 1.0}));
    EXPECT_EQ(undo->count(), before + 1);
    // Listed under Tables, selected, shown in Properties with its rows.
    const QModelIndex heading = tablesHeading();
    ASSERT_TRUE(heading.isValid());
    QAbstractItemModel* model = window.sceneTree()->model();
    ASSERT_EQ(model->rowCount(heading), 1);
    EXPECT_EQ(model->index(0, 0, heading).data().toString(), QStringLiteral("table1"));
    EXPECT_EQ(window.sceneTree()->selectedTable(), 0);
    EXPECT_EQ(window.properties()->table(), 0);
    for (const char* label : {"Name", "Interpolation", "Points (x, y)", "Curve"})
        EXPECT_TRUE(window.properties()->editor(QString::fromUtf8(label))) << label;

    // Points typed as a spreadsheet's two columns: a coil spring stiffening at its end.
    typePoints(QStringLiteral("-0.1\t-80\n-0.05\t-40\n0\t0\n0.05\t40\n0.1\t95"));
    ASSERT_EQ(scene().tables[0].x.size(), 5u);
    EXPECT_EQ(scene().tables[0].y.back(), 95.0);
    // A list whose x does not increase is refused, saying where; the table keeps its points.
    typePoints(QStringLiteral("0, 0\n0.2, 1\n0.1, 2"));
    EXPECT_TRUE(window.properties()
                    ->message(QStringLiteral("Points (x, y)"))
                    .contains(QStringLiteral("point 3")))
        << window.properties()->message(QStringLiteral("Points (x, y)")).toStdString();
    EXPECT_EQ(scene().tables[0].x.size(), 5u);
    pick(QStringLiteral("Interpolation"), QStringLiteral("cubic"));
    EXPECT_EQ(scene().tables[0].interpolation, engine::TableInterpolation::Cubic);
    // Its curve drawn over its points and a tenth of their span beyond: the table's own values.
    auto* curve =
        qobject_cast<ExpressionEditor*>(window.properties()->editor(QStringLiteral("Curve")));
    ASSERT_TRUE(curve);
    EXPECT_TRUE(curve->isValid()) << curve->error().toStdString();
    ASSERT_EQ(curve->previewTimes().size(), static_cast<std::size_t>(ExpressionEditor::kSamples));
    EXPECT_DOUBLE_EQ(curve->previewTimes().front(), -0.12);
    EXPECT_DOUBLE_EQ(curve->previewTimes().back(), 0.12);
    std::string error;
    const engine::TableSpec& t = scene().tables[0];
    const auto made = engine::TableCurve::make(t.interpolation, t.x, t.y, error);
    ASSERT_TRUE(made);
    for (std::size_t k = 0; k < curve->previewTimes().size(); k += 20)
        EXPECT_DOUBLE_EQ(curve->previewValues()[k], made->value(curve->previewTimes()[k]));
    const int edits = undo->count();

    // The spring takes it as its stiffness law.
    window.sceneTree()->selectEntity(scene().forces[0].id);
    ASSERT_EQ(window.properties()->entity(), scene().forces[0].id);
    pick(QStringLiteral("Stiffness law"), QStringLiteral("table table1"));
    EXPECT_EQ(scene().forces[0].stiffnessTable, "table1");
    EXPECT_EQ(undo->count(), edits + 1);
    // Its number row gives way to what the table is.
    EXPECT_FALSE(
        qobject_cast<QLineEdit*>(window.properties()->editor(QStringLiteral("Stiffness"))));

    // Renamed in the tree: the spring's law follows, one undo step.
    window.sceneTree()->renameTable(0, QStringLiteral("coil"));
    EXPECT_EQ(scene().tables[0].name, "coil");
    EXPECT_EQ(scene().forces[0].stiffnessTable, "coil");
    EXPECT_EQ(undo->count(), edits + 2);
    // A name that is a function's is refused, saying why.
    window.sceneTree()->renameTable(0, QStringLiteral("sin"));
    EXPECT_EQ(scene().tables[0].name, "coil");
    EXPECT_TRUE(lastMessage().contains(QStringLiteral("already a function")))
        << lastMessage().toStdString();

    // Deleting it while the spring uses it is refused, naming the law.
    window.sceneTree()->selectTable(0);
    window.sceneTree()->deleteSelection();
    EXPECT_EQ(scene().tables.size(), 1u);
    EXPECT_EQ(lastMessage(), QStringLiteral("Cannot delete table 'coil': force spring: stiffness "
                                            "reads it (give it another law or expression first)"));
    // The spring back to its constant, the table then goes; undo brings both back.
    window.sceneTree()->selectEntity(scene().forces[0].id);
    pick(QStringLiteral("Stiffness law"), QStringLiteral("constant"));
    EXPECT_TRUE(scene().forces[0].stiffnessTable.empty());
    window.sceneTree()->selectTable(0);
    window.sceneTree()->deleteSelection();
    EXPECT_TRUE(scene().tables.empty());
    undo->undo();
    undo->undo();
    ASSERT_EQ(scene().tables.size(), 1u);
    EXPECT_EQ(scene().forces[0].stiffnessTable, "coil");

    if (const char* shot = std::getenv("MOTUS_TABLE_SCREENSHOT")) {
        window.sceneTree()->selectTable(0);
        QTest::qWait(300);
        window.grab().save(QString::fromUtf8(shot));
    }
}

class CablesTest : public test::WindowTest {
protected:
    void SetUp() override {
        openWindow(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/atwood_machine.json"));
    }
};

TEST_F(CablesTest, ACablesPointsAreEditedOneMarkerALineAndBadOnesRefused) {
    // The rope of the Atwood machine: its path in the tree, its points in Properties.
    const engine::ForceSpec& rope = scene().forces[0];
    ASSERT_EQ(rope.type, engine::ForceType::Cable);
    window.sceneTree()->selectEntity(rope.id);
    auto* points =
        qobject_cast<QPlainTextEdit*>(window.properties()->editor(QStringLiteral("Points")));
    ASSERT_TRUE(points);
    EXPECT_EQ(points->toPlainText(),
              QStringLiteral("heavy.hook\nframe.left\nframe.right\nlight.hook"));
    // One eye taken out: the rope runs straight across from the left eye to the light block.
    QUndoStack* undo = window.undoStack();
    const int before = undo->count();
    points->setPlainText(QStringLiteral("heavy.hook\nframe.left\nlight.hook"));
    window.properties()->commit(QStringLiteral("Points"));
    ASSERT_EQ(scene().forces[0].via.size(), 1u);
    EXPECT_EQ(scene().forces[0].via[0].marker.text(), "frame.left");
    EXPECT_EQ(undo->count(), before + 1);
    // A marker that is not there, or a single point, is refused, saying why.
    points->setPlainText(QStringLiteral("heavy.hook\nframe.nowhere\nlight.hook"));
    window.properties()->commit(QStringLiteral("Points"));
    EXPECT_TRUE(window.properties()
                    ->message(QStringLiteral("Points"))
                    .contains(QStringLiteral("no marker 'frame.nowhere'")));
    points->setPlainText(QStringLiteral("heavy.hook"));
    window.properties()->commit(QStringLiteral("Points"));
    EXPECT_TRUE(window.properties()
                    ->message(QStringLiteral("Points"))
                    .contains(QStringLiteral("two ends")));
    EXPECT_EQ(scene().forces[0].via.size(), 1u);
    // Slack off: a spring along the path.
    auto* slack =
        qobject_cast<QCheckBox*>(window.properties()->editor(QStringLiteral("Slack (a rope)")));
    ASSERT_TRUE(slack);
    EXPECT_TRUE(slack->isChecked());
    slack->click();
    EXPECT_FALSE(scene().forces[0].slack);
    undo->undo();
    undo->undo();
    EXPECT_TRUE(scene().forces[0].slack);
    EXPECT_EQ(scene().forces[0].via.size(), 2u);
}

class PulleysTest : public test::WindowTest {
protected:
    void SetUp() override { openWindow(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/jib_crane.json")); }
};

// A crane's rope over pulleys: each pulley a line "part.marker r=radius [cw] [joint=name]
// [mu=friction]".
TEST_F(PulleysTest, APulleyIsWrittenWithItsRadiusSenseAndJointAndBadOnesRefused) {
    const engine::ForceSpec& rope = scene().forces[0];
    window.sceneTree()->selectEntity(rope.id);
    auto* points =
        qobject_cast<QPlainTextEdit*>(window.properties()->editor(QStringLiteral("Points")));
    ASSERT_TRUE(points);
    EXPECT_EQ(points->toPlainText(),
              QStringLiteral("ground.deadEnd\ndrum.axle r=0.15 joint=winch\n"
                             "ground.mastHead r=0.1\nground.jibTip r=0.1\nload.hook"));
    // The jib-tip sheave made larger and wrapped the other way; the drum's joint dropped.
    points->setPlainText(
        QStringLiteral("ground.deadEnd\ndrum.axle r=0.15\n"
                       "ground.mastHead r=0.1\nground.jibTip r=0.2 cw\n"
                       "load.hook"));
    window.properties()->commit(QStringLiteral("Points"));
    const engine::ForceSpec& edited = scene().forces[0];
    ASSERT_EQ(edited.via.size(), 3u);
    EXPECT_TRUE(edited.via[0].pulley);
    EXPECT_TRUE(edited.via[0].joint.empty());
    EXPECT_DOUBLE_EQ(edited.via[2].radius, 0.2);
    EXPECT_TRUE(edited.via[2].clockwise);
    // Belt friction on the mast-head sheave, written back as it was typed.
    points->setPlainText(
        QStringLiteral("ground.deadEnd\ndrum.axle r=0.15\n"
                       "ground.mastHead r=0.1 mu=0.25\nground.jibTip r=0.2 cw\n"
                       "load.hook"));
    window.properties()->commit(QStringLiteral("Points"));
    EXPECT_DOUBLE_EQ(scene().forces[0].via[1].friction, 0.25);
    EXPECT_TRUE(points->toPlainText().contains(QStringLiteral("ground.mastHead r=0.1 mu=0.25")))
        << points->toPlainText().toStdString();
    // Refused, saying why: no radius, a radius of 0, a word it does not know, a pulley at an end.
    for (const auto& [text, why] :
         {std::pair{"ground.deadEnd\ndrum.axle cw\nload.hook", "give its radius"},
          std::pair{"ground.deadEnd\ndrum.axle r=0\nload.hook", "positive number"},
          std::pair{"ground.deadEnd\ndrum.axle r=0.1 fast\nload.hook", "'fast'"},
          std::pair{"ground.deadEnd\ndrum.axle r=0.1 mu=-1\nload.hook", "0 or more"},
          std::pair{"ground.deadEnd\ndrum.axle r=0.1 mu=0.2 joint=winch\nload.hook",
                    "does not turn"},
          std::pair{"ground.deadEnd r=0.1\ndrum.axle\nload.hook", "ends are points"}}) {
        points->setPlainText(QString::fromUtf8(text));
        window.properties()->commit(QStringLiteral("Points"));
        EXPECT_TRUE(
            window.properties()->message(QStringLiteral("Points")).contains(QString::fromUtf8(why)))
            << why << ": " << window.properties()->message(QStringLiteral("Points")).toStdString();
    }
    EXPECT_DOUBLE_EQ(scene().forces[0].via[2].radius, 0.2);
    // A joint that is not there: the scene's own check refuses it, naming the place.
    points->setPlainText(
        QStringLiteral("ground.deadEnd\ndrum.axle r=0.15 joint=nowhere\nload.hook"));
    window.properties()->commit(QStringLiteral("Points"));
    EXPECT_TRUE(scene().forces[0].via[0].joint.empty());
    EXPECT_DOUBLE_EQ(scene().forces[0].via[2].radius, 0.2);
    EXPECT_TRUE(window.properties()
                    ->message(QStringLiteral("Points"))
                    .contains(QStringLiteral("no joint 'nowhere'")))
        << window.properties()->message(QStringLiteral("Points")).toStdString();
}

// The crane's rope made inextensible: one click, its stiffness and damping gone with it in the
// same edit (a rope that cannot stretch has no law of its own), undone as one.
TEST_F(PulleysTest, ARopeMadeInextensibleLosesItsLawInOneUndoableEdit) {
    const engine::ForceSpec& rope = scene().forces[0];
    ASSERT_GT(rope.stiffness, 0.0);
    window.sceneTree()->selectEntity(rope.id);
    auto* inextensible =
        qobject_cast<QCheckBox*>(window.properties()->editorForKey(QStringLiteral("inextensible")));
    ASSERT_TRUE(inextensible);
    EXPECT_FALSE(inextensible->isChecked());
    inextensible->click();
    EXPECT_TRUE(scene().forces[0].inextensible);
    EXPECT_EQ(scene().forces[0].stiffness, 0.0);
    EXPECT_EQ(scene().forces[0].damping, 0.0);
    for (const engine::Diagnostic& d : engine::validate(scene()))
        EXPECT_NE(d.severity, engine::Severity::Error) << d.where << ": " << d.message;
    if (qEnvironmentVariableIsSet("MOTUS_SCREENSHOT_DIR")) {
        window.findChild<QDockWidget*>(QStringLiteral("PropertiesDock"))->raise();
        QTest::qWait(100);
        window.grab().save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") + "/inextensible.png");
    }
    window.undoStack()->undo();
    EXPECT_FALSE(scene().forces[0].inextensible);
    EXPECT_GT(scene().forces[0].stiffness, 0.0);
}

TEST(TableCsv, ReadsADataSheetsColumnsWhateverItsSeparatorsAndDecimalCommas) {
    engine::io::TableColumns c;
    std::string error;
    // A header, commas, a third column left out.
    ASSERT_TRUE(
        engine::io::readTableColumns("velocity (m/s),force (N),note\n-1.0,-1800,a\n"
                                     "0,0,b\n0.5,1500,c\n",
                                     c, error))
        << error;
    EXPECT_EQ(c.x, (std::vector<double>{-1.0, 0.0, 0.5}));
    EXPECT_EQ(c.y, (std::vector<double>{-1800.0, 0.0, 1500.0}));
    EXPECT_EQ(c.xName, "velocity (m/s)");
    EXPECT_EQ(c.yName, "force (N)");
    EXPECT_EQ(c.extraColumns, 1);
    // A European spreadsheet: semicolons and decimal commas; Windows line ends; comments.
    ASSERT_TRUE(
        engine::io::readTableColumns("# damper, rebound\r\nv;F\r\n0,25;400,5\r\n"
                                     "0,5;900\r\n\r\n1;1500\r\n",
                                     c, error))
        << error;
    EXPECT_EQ(c.x, (std::vector<double>{0.25, 0.5, 1.0}));
    EXPECT_EQ(c.y, (std::vector<double>{400.5, 900.0, 1500.0}));
    // Tabs; listed with x falling: turned round.
    ASSERT_TRUE(engine::io::readTableColumns("3\t30\n2\t20\n1\t10\n", c, error)) << error;
    EXPECT_EQ(c.x, (std::vector<double>{1.0, 2.0, 3.0}));
    EXPECT_EQ(c.y, (std::vector<double>{10.0, 20.0, 30.0}));
    // Spaces only.
    ASSERT_TRUE(engine::io::readTableColumns("  0   1\n  1   2e3\n", c, error)) << error;
    EXPECT_EQ(c.y.back(), 2000.0);
    // What holds no table, and why.
    EXPECT_FALSE(engine::io::readTableColumns("x,y\n0,0\n1,n/a\n", c, error));
    EXPECT_EQ(error, "line 3: 'n/a' is not a number");
    EXPECT_FALSE(engine::io::readTableColumns("x,y\n0,0\n", c, error));
    EXPECT_EQ(error, "only 1 row of numbers: a table needs 2");
    EXPECT_FALSE(engine::io::readTableColumns("", c, error));
    EXPECT_EQ(error, "no rows of two numbers (x, y)");
    EXPECT_FALSE(engine::io::readTableColumns("0,0\n1\n", c, error));
    EXPECT_EQ(error, "line 2: one column; x and y are two");
    EXPECT_FALSE(engine::io::readTableColumns("0,0\n1,1e999\n", c, error));
    EXPECT_EQ(error, "line 2: '1e999' is not a number");
}

}  // namespace
}  // namespace ui
