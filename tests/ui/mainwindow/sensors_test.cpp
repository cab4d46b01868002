// Sensors in the window as a user meets them: Edit ▸ Add Sensor makes "sensor1" watching "0",
// listed under Sensors and shown in Properties; its expression (of the state), level,
// direction and action are edited there, a bad expression refused with its reason; renamed in
// the tree or in Properties (a duplicate or a name that is no identifier refused, saying why),
// deleted and undone, each one undo step; a sensor that stops the run says so, and the
// timeline marks each crossing.

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSlider>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>

#include <gtest/gtest.h>

#include "engine/model/scene_spec.h"
#include "engine/runtime/simulator.h"
#include "tests/ui/support/window_test.h"
#include "ui/common/variables.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/messages_panel.h"
#include "ui/mainwindow/scene_tree_panel.h"
#include "ui/models/scene_tree.h"
#include "ui/properties/expression_editor.h"
#include "ui/properties/properties_panel.h"
#include "ui/session/simulation_session.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {
namespace {

using test::drawn;

const QString kPendulum = QStringLiteral(MOTUS_SOURCE_DIR "/scenes/pendulum.json");

class SensorsTest : public test::WindowTest {
protected:
    void SetUp() override { openWindow(kPendulum); }
    // Types `text` into the field `label` of Properties (a line or an expression) and commits it.
    void type(const QString& label, const QString& text) {
        QWidget* editor = window.properties()->editor(label);
        if (auto* expression = qobject_cast<ExpressionEditor*>(editor))
            expression->lineEdit()->setText(text);
        else if (auto* line = qobject_cast<QLineEdit*>(editor))
            line->setText(text);
        else
            FAIL() << label.toStdString() << ": no field to type into";
        window.properties()->commit(label);
    }
    QModelIndex sensorsHeading() const {
        QAbstractItemModel* model = window.sceneTree()->model();
        for (int k = 0; k < model->rowCount(); ++k)
            if (model->index(k, 0).data().toString() == QLatin1String("Sensors"))
                return model->index(k, 0);
        return {};
    }
    bool waitForRun() {
        return QTest::qWaitFor(
            [&] {
                const auto snap = window.session()->snapshot();
                return snap && snap->mode == engine::RunMode::Paused && snap->time > 0.0;
            },
            60000);
    }
};

TEST_F(SensorsTest, AreAddedEditedRenamedDeletedAndUndone) {
    QUndoStack* undo = window.undoStack();
    ASSERT_TRUE(sensorsHeading().isValid());
    trigger("AddSensor");
    ASSERT_EQ(scene().sensors.size(), 1u);
    const engine::SensorSpec& added = scene().sensors[0];
    EXPECT_EQ(added.name, "sensor1");
    EXPECT_EQ(added.expression, "0");
    EXPECT_EQ(added.value, 0.0);
    EXPECT_EQ(added.direction, engine::SensorDirection::Either);
    EXPECT_EQ(added.action, engine::SensorAction::Stop);
    EXPECT_EQ(undo->count(), 1);
    // Listed under Sensors (after Variables and Tables), selected, shown in Properties.
    QAbstractItemModel* model = window.sceneTree()->model();
    const QModelIndex heading = sensorsHeading();
    EXPECT_EQ(model->index(heading.row() - 2, 0).data().toString(), QStringLiteral("Variables"));
    EXPECT_EQ(model->index(heading.row() - 1, 0).data().toString(), QStringLiteral("Tables"));
    ASSERT_EQ(model->rowCount(heading), 1);
    EXPECT_EQ(model->index(0, 0, heading).data().toString(), QStringLiteral("sensor1"));
    EXPECT_EQ(window.sceneTree()->selectedSensor(), 0);
    EXPECT_EQ(window.properties()->sensor(), 0);
    for (const char* label : {"Name", "Expression", "Value", "Direction", "Action"})
        EXPECT_TRUE(window.properties()->editor(QString::fromUtf8(label))) << label;

    // Its expression: of the state, no unit of its own.
    type(QStringLiteral("Expression"), QStringLiteral("q(hinge)"));
    EXPECT_EQ(window.properties()->message(QStringLiteral("Expression")), QString());
    EXPECT_EQ(scene().sensors[0].expression, "q(hinge)");
    auto* expression =
        qobject_cast<ExpressionEditor*>(window.properties()->editor(QStringLiteral("Expression")));
    ASSERT_TRUE(expression);
    EXPECT_TRUE(expression->unit().isEmpty());
    EXPECT_TRUE(expression->readsState());
    EXPECT_EQ(window.properties()->sensor(), 0);  // still shown after the edit
    // A bad one is refused with its reason beside the field; the scene keeps its expression.
    type(QStringLiteral("Expression"), QStringLiteral("DM(nope.x)"));
    EXPECT_TRUE(window.properties()
                    ->message(QStringLiteral("Expression"))
                    .contains(QStringLiteral("no marker 'nope.x'")))
        << window.properties()->message(QStringLiteral("Expression")).toStdString();
    EXPECT_EQ(scene().sensors[0].expression, "q(hinge)");
    type(QStringLiteral("Expression"), QStringLiteral("q(hinge"));
    EXPECT_FALSE(window.properties()->message(QStringLiteral("Expression")).isEmpty());
    EXPECT_EQ(scene().sensors[0].expression, "q(hinge)");
    // The level, which crossings count, what one does.
    type(QStringLiteral("Value"), QStringLiteral("-0.5"));
    EXPECT_EQ(scene().sensors[0].value, -0.5);
    pick(QStringLiteral("Direction"), QStringLiteral("falling"));
    EXPECT_EQ(scene().sensors[0].direction, engine::SensorDirection::Falling);
    pick(QStringLiteral("Action"), QStringLiteral("mark"));
    EXPECT_EQ(scene().sensors[0].action, engine::SensorAction::Mark);
    EXPECT_EQ(undo->count(), 5);
    EXPECT_EQ(model->index(0, 1, sensorsHeading()).data().toString(),
              QString::fromUtf8("q(hinge) ↓ -0.5 · mark"));

    // A second, "sensor2".
    trigger("AddSensor");
    ASSERT_EQ(scene().sensors.size(), 2u);
    EXPECT_EQ(scene().sensors[1].name, "sensor2");
    EXPECT_EQ(window.properties()->sensor(), 1);

    // Renamed in the tree; a duplicate or a name that is no identifier is refused, saying why.
    window.sceneTree()->renameSensor(0, QStringLiteral("swung"));
    EXPECT_EQ(scene().sensors[0].name, "swung");
    const int steps = undo->count();
    window.sceneTree()->renameSensor(1, QStringLiteral("swung"));
    EXPECT_EQ(scene().sensors[1].name, "sensor2");
    EXPECT_TRUE(lastMessage().contains(QStringLiteral("duplicate sensor name 'swung'")))
        << lastMessage().toStdString();
    window.sceneTree()->renameSensor(1, QStringLiteral("2fast"));
    EXPECT_EQ(scene().sensors[1].name, "sensor2");
    EXPECT_TRUE(lastMessage().startsWith(QStringLiteral("Cannot rename 'sensor2' to '2fast'")))
        << lastMessage().toStdString();
    EXPECT_EQ(undo->count(), steps);
    EXPECT_EQ(model->index(1, 0, sensorsHeading()).data().toString(), QStringLiteral("sensor2"));
    // And in Properties.
    window.sceneTree()->selectSensor(1);
    ASSERT_EQ(window.properties()->sensor(), 1);
    type(QStringLiteral("Name"), QStringLiteral("swung"));
    EXPECT_FALSE(window.properties()->message(QStringLiteral("Name")).isEmpty());
    EXPECT_EQ(scene().sensors[1].name, "sensor2");
    type(QStringLiteral("Name"), QStringLiteral("late"));
    EXPECT_EQ(scene().sensors[1].name, "late");
    EXPECT_EQ(undo->count(), steps + 1);

    // Deleted from the tree.
    window.sceneTree()->selectSensor(0);
    window.sceneTree()->deleteSelection();
    ASSERT_EQ(scene().sensors.size(), 1u);
    EXPECT_EQ(scene().sensors[0].name, "late");
    EXPECT_EQ(undo->count(), steps + 2);

    // Undone step by step: the deletion, the renames, the addition, the edits.
    undo->undo();
    ASSERT_EQ(scene().sensors.size(), 2u);
    EXPECT_EQ(scene().sensors[0].name, "swung");
    undo->undo();
    EXPECT_EQ(scene().sensors[1].name, "sensor2");
    undo->undo();
    EXPECT_EQ(scene().sensors[0].name, "sensor1");
    undo->undo();
    ASSERT_EQ(scene().sensors.size(), 1u);
    undo->undo();
    EXPECT_EQ(scene().sensors[0].action, engine::SensorAction::Stop);
    undo->undo();
    EXPECT_EQ(scene().sensors[0].direction, engine::SensorDirection::Either);
    undo->undo();
    EXPECT_EQ(scene().sensors[0].value, 0.0);
    undo->undo();
    EXPECT_EQ(scene().sensors[0].expression, "0");
    undo->undo();
    EXPECT_TRUE(scene().sensors.empty());
    EXPECT_EQ(model->rowCount(sensorsHeading()), 0);
    EXPECT_EQ(window.properties()->sensor(), -1);  // no longer there to show
    undo->redo();
    ASSERT_EQ(scene().sensors.size(), 1u);
    EXPECT_EQ(model->rowCount(sensorsHeading()), 1);
}

TEST_F(SensorsTest, ASensorThatStopsTheRunSaysSoAndTheTimelineMarksEachCrossing) {
    engine::SceneSpec after = scene();
    after.sensors.push_back({.name = "early",
                             .expression = "time",
                             .value = 0.1,
                             .direction = engine::SensorDirection::Rising,
                             .action = engine::SensorAction::Mark,
                             .extensions = {}});
    after.sensors.push_back({.name = "enough",
                             .expression = "time",
                             .value = 0.25,
                             .direction = engine::SensorDirection::Either,
                             .action = engine::SensorAction::Stop,
                             .extensions = {}});
    ASSERT_FALSE(window.document()->add(after, QStringLiteral("Add the sensors")));
    window.session()->runTo(1.0);
    ASSERT_TRUE(waitForRun());
    const auto snap = window.session()->snapshot();
    EXPECT_EQ(snap->error, "");
    EXPECT_EQ(snap->stoppedBy, "enough");
    EXPECT_NEAR(snap->time, 0.25, 1e-6);
    // Said in the messages (and so in the status bar).
    EXPECT_TRUE(
        QTest::qWaitFor([&] { return lastMessage().contains(QStringLiteral("enough")); }, 2000));
    EXPECT_TRUE(lastMessage().contains(QStringLiteral("sensor 'enough' stopped the run")))
        << lastMessage().toStdString();
    // The timeline marks both crossings, each named in its tooltip.
    auto* slider = window.findChild<QSlider*>(QStringLiteral("TimelineSlider"));
    ASSERT_TRUE(slider);
    QStringList marks = slider->property("marks").toStringList();
    ASSERT_EQ(marks.size(), 2) << marks.join(QLatin1Char(',')).toStdString();
    EXPECT_TRUE(marks[0].startsWith(QStringLiteral("early")));
    EXPECT_TRUE(marks[1].startsWith(QStringLiteral("enough")));
}

void shot(MainWindow& window, const QString& name);

// A sensor that acts, set up in Properties as a user would: a held variable counts the swings
// (a sensor 'set's it), and a brake that starts off is switched on by another sensor; the run
// then counts and brakes, and the Expression field of a variable of the state says its value at
// the frame shown.
TEST_F(SensorsTest, ASensorSetsAHeldVariableAndSwitchesAForceAsTheRunGoes) {
    // A held variable: Add Variable, then "Make it held".
    trigger("AddVariable");
    ASSERT_EQ(scene().variables.size(), 1u);
    type(QStringLiteral("Name"), QStringLiteral("swings"));
    ASSERT_TRUE(window.properties()->press(QStringLiteral("Make it held (set by sensors)")));
    ASSERT_TRUE(scene().variables[0].initial);
    EXPECT_EQ(*scene().variables[0].initial, 0.0);
    ASSERT_TRUE(window.properties()->editor(QStringLiteral("Initial value")));
    // A brake that starts off.
    engine::SceneSpec after = scene();
    engine::ForceSpec brake;
    brake.id = after.newId();
    brake.name = "brake";
    brake.type = engine::ForceType::JointForce;
    brake.joint = "hinge";
    brake.components[0] = "-0.05*qd(hinge)";
    brake.startsOn = false;
    after.forces.push_back(brake);
    ASSERT_FALSE(window.document()->add(after, QStringLiteral("Add the brake")));
    // A sensor counting the swings down through the bottom (q rising through 90°)…
    trigger("AddSensor");
    type(QStringLiteral("Expression"), QStringLiteral("q(hinge)"));
    type(QStringLiteral("Value"), QStringLiteral("1.5708"));
    pick(QStringLiteral("Direction"), QStringLiteral("rising"));
    pick(QStringLiteral("Action"), QStringLiteral("set"));
    // …its target the only held variable, and what it sets it to.
    EXPECT_EQ(scene().sensors[0].target, "swings");
    type(QStringLiteral("Set to"), QStringLiteral("swings + 1"));
    EXPECT_EQ(scene().sensors[0].to, "swings + 1");
    shot(window, QStringLiteral("sensor-actions-set"));
    // …and one switching the brake on at 0.3 s.
    trigger("AddSensor");
    type(QStringLiteral("Expression"), QStringLiteral("time"));
    type(QStringLiteral("Value"), QStringLiteral("0.3"));
    pick(QStringLiteral("Action"), QStringLiteral("switchOn"));
    pick(QStringLiteral("Force or motion"), QStringLiteral("brake"));
    ASSERT_EQ(scene().sensors.size(), 2u);
    EXPECT_EQ(scene().sensors[1].action, engine::SensorAction::SwitchOn);
    EXPECT_EQ(scene().sensors[1].target, "brake");
    // Listed with what they do.
    window.sceneTree()->expandAll();
    const QModelIndex heading = sensorsHeading();
    QAbstractItemModel* model = window.sceneTree()->model();
    EXPECT_TRUE(model->index(0, 1, heading)
                    .data()
                    .toString()
                    .endsWith(QStringLiteral("swings = swings + 1")))
        << model->index(0, 1, heading).data().toString().toStdString();
    EXPECT_TRUE(model->index(1, 1, heading).data().toString().endsWith(QStringLiteral("brake on")));

    window.session()->runTo(2.0);
    ASSERT_TRUE(waitForRun());
    const auto snap = window.session()->snapshot();
    ASSERT_EQ(snap->error, "");
    // Each swing through the bottom counted, the brake on from 0.3 s (the timeline marks all).
    engine::State state;
    engine::Outputs outputs;
    ASSERT_TRUE(window.session()->recording()->read(snap->frame, state, outputs));
    ASSERT_EQ(state.switches.size(), 2u);
    const int swings = static_cast<int>(state.switches[0]);
    EXPECT_GE(swings, 3);  // about 0.6 s a swing
    EXPECT_EQ(state.switches[1], 1.0);
    auto* slider = window.findChild<QSlider*>(QStringLiteral("TimelineSlider"));
    ASSERT_TRUE(slider);
    EXPECT_EQ(slider->property("marks").toStringList().size(), swings + 1);

    // A variable of the state shows its value at the frame on screen.
    trigger("AddVariable");
    ASSERT_EQ(window.properties()->variable(), 1);
    type(QStringLiteral("Expression"), QStringLiteral("qd(hinge)"));
    ASSERT_EQ(scene().variables[1].expression, "qd(hinge)");
    auto* expression =
        qobject_cast<ExpressionEditor*>(window.properties()->editor(QStringLiteral("Expression")));
    ASSERT_TRUE(expression);
    EXPECT_TRUE(QTest::qWaitFor(
        [&] { return expression->message().contains(QStringLiteral("at the frame shown")); }, 2000))
        << expression->message().toStdString();
    shot(window, QStringLiteral("sensor-actions-live-value"));
}

// Screenshots of what a user sees, when MOTUS_SCREENSHOT_DIR is set.
void shot(MainWindow& window, const QString& name) {
    if (!qEnvironmentVariableIsSet("MOTUS_SCREENSHOT_DIR")) return;
    drawn(window.viewport(), 3);
    QTest::qWait(200);
    window.grab().save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") + QLatin1Char('/') + name +
                       QStringLiteral(".png"));
}

TEST_F(SensorsTest, ItsPageShowsEveryFieldAndNoRowIsCutShort) {
    engine::SceneSpec after = scene();
    after.sensors.push_back({.name = "swungDown",
                             .expression = "q(hinge) + 0.5*qd(hinge)",
                             .value = -1.2,
                             .direction = engine::SensorDirection::Falling,
                             .action = engine::SensorAction::Stop,
                             .extensions = {}});
    ASSERT_FALSE(window.document()->add(after, QStringLiteral("Add a sensor")));
    window.viewport()->fitToScene();
    window.sceneTree()->expandAll();
    window.sceneTree()->selectSensor(0);
    PropertiesPanel* panel = window.properties();
    ASSERT_EQ(panel->sensor(), 0);
    auto* expression = qobject_cast<ExpressionEditor*>(panel->editor(QStringLiteral("Expression")));
    ASSERT_TRUE(expression);
    EXPECT_TRUE(expression->isValid()) << expression->error().toStdString();
    EXPECT_TRUE(expression->readsState());
    EXPECT_EQ(expression->lineEdit()->cursorPosition(), 0);
    EXPECT_EQ(qobject_cast<QLineEdit*>(panel->editor(QStringLiteral("Value")))->text(),
              QStringLiteral("-1.2"));
    EXPECT_EQ(qobject_cast<QComboBox*>(panel->editor(QStringLiteral("Direction")))->currentText(),
              QStringLiteral("falling"));
    EXPECT_EQ(qobject_cast<QComboBox*>(panel->editor(QStringLiteral("Action")))->currentText(),
              QStringLiteral("stop"));
    for (QLabel* label : panel->findChildren<QLabel*>()) {
        if (!label->isVisible() || label->wordWrap() || label->text().isEmpty()) continue;
        EXPECT_GE(label->width(), label->minimumSizeHint().width())
            << "'" << label->text().toStdString() << "' cut";
    }
    shot(window, QStringLiteral("sensor-page"));
    // After a run the sensor stopped: the timeline's mark and the message.
    window.session()->runTo(3.0);
    ASSERT_TRUE(waitForRun());
    shot(window, QStringLiteral("sensor-stopped"));
}

}  // namespace
}  // namespace ui
