// Forces of the mechanism's state in the window as a user meets them: the Force tools make a
// line force between two clicked points and a joint force on the selected joint, each with
// the engine's default expression (a spring and a damper written out); Properties takes a
// magnitude that reads the state (-3*VR(...)) and refuses a measure of nothing, saying why;
// the scene's variables are added, edited, renamed with the expressions that read them,
// deleted and undone, each one undo step.

#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>

#include <gtest/gtest.h>

#include "engine/model/construct.h"
#include "engine/model/scene_spec.h"
#include "tests/ui/support/window_test.h"
#include "ui/common/variables.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/build_tools.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/messages_panel.h"
#include "ui/mainwindow/scene_tree_panel.h"
#include "ui/models/scene_tree.h"
#include "ui/properties/expression_editor.h"
#include "ui/properties/properties_panel.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {
namespace {

using test::drawn;

using engine::Vec3;

const QString kPendulum = QStringLiteral(MOTUS_SOURCE_DIR "/scenes/pendulum.json");

class StateForcesTest : public test::WindowTest {
protected:
    void SetUp() override { openWindow(kPendulum); }
    void clickWorld(const Vec3& p_W) {
        ViewportWidget* view = window.viewport();
        drawn(view);
        const QPointF at = view->project(p_W.x(), p_W.y(), p_W.z());
        ASSERT_TRUE(view->rect().contains(at.toPoint())) << "off screen: " << p_W.transpose();
        QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, at.toPoint());
    }
    // Types `text` into the expression field `label` of Properties and commits it.
    void typeExpression(const QString& label, const QString& text) {
        auto* editor = qobject_cast<ExpressionEditor*>(window.properties()->editor(label));
        ASSERT_TRUE(editor) << label.toStdString();
        editor->lineEdit()->setText(text);
        window.properties()->commit(label);
    }
    // The tree's Variables heading.
    QModelIndex variablesHeading() const {
        QAbstractItemModel* model = window.sceneTree()->model();
        for (int k = 0; k < model->rowCount(); ++k)
            if (model->index(k, 0).data().toString() == QLatin1String("Variables"))
                return model->index(k, 0);
        return {};
    }
};

TEST_F(StateForcesTest, ALineForceMadeBetweenTwoClickedPointsHasTheWrittenOutSpring) {
    trigger("CreateForce_lineForce");
    clickWorld(Vec3(0.09, -0.01, 0.0));  // the link's front face, near its tip
    clickWorld(Vec3(0.0, -0.025, 0.0));  // the end of the ground's pin
    ASSERT_EQ(scene().forces.size(), 1u) << lastMessage().toStdString();
    const engine::ForceSpec& line = scene().forces.front();
    EXPECT_EQ(line.type, engine::ForceType::LineForce);
    EXPECT_EQ(line.markerI.part, "link");
    EXPECT_EQ(line.markerJ.part, "ground");
    // What the engine gives a line force between these markers: -k*(DM - l0) - c*VR.
    engine::SceneSpec expected = scene();
    expected.forces.clear();
    const engine::EntityId made = engine::addForce(
        expected, engine::ForceType::LineForce, expected.findMarker(line.markerI)->id,
        expected.findMarker(line.markerJ)->id, engine::kNoEntity);
    ASSERT_NE(made, engine::kNoEntity);
    EXPECT_EQ(line.components[0], expected.forces.front().components[0]);
    EXPECT_NE(line.components[0].find("*VR(" + line.markerI.text()), std::string::npos)
        << line.components[0];
    // Shown for editing: its markers and its magnitude in N, an expression of the state.
    PropertiesPanel* panel = window.properties();
    EXPECT_EQ(panel->entity(), line.id);
    EXPECT_TRUE(panel->editor(QStringLiteral("Marker I")));
    EXPECT_TRUE(panel->editor(QStringLiteral("Marker J")));
    auto* magnitude = qobject_cast<ExpressionEditor*>(panel->editor(QStringLiteral("Magnitude")));
    ASSERT_TRUE(magnitude);
    EXPECT_EQ(magnitude->unit(), QStringLiteral("N"));
    EXPECT_TRUE(magnitude->isValid()) << magnitude->error().toStdString();
    EXPECT_TRUE(magnitude->readsState());
    EXPECT_EQ(window.undoStack()->count(), 1);  // one step, its markers with it
}

TEST_F(StateForcesTest, AJointForceOnTheSelectedJointHasTheWrittenOutDamper) {
    const engine::Joint& hinge = scene().joints.front();
    window.sceneTree()->selectEntity(hinge.id);
    trigger("CreateForce_jointForce");
    ASSERT_EQ(scene().forces.size(), 1u) << lastMessage().toStdString();
    const engine::ForceSpec& motor = scene().forces.front();
    EXPECT_EQ(motor.type, engine::ForceType::JointForce);
    EXPECT_EQ(motor.joint, "hinge");
    EXPECT_EQ(motor.axis, engine::JointAxis::Rotation);
    engine::SceneSpec expected = scene();
    expected.forces.clear();
    engine::addForce(expected, engine::ForceType::JointForce, engine::kNoEntity, engine::kNoEntity,
                     hinge.id);
    ASSERT_EQ(expected.forces.size(), 1u);
    EXPECT_EQ(motor.components[0], expected.forces.front().components[0]);
    EXPECT_NE(motor.components[0].find("*qd(hinge)"), std::string::npos) << motor.components[0];
    // Properties: its joint and a torque in N·m; a revolute joint has no choice of axis.
    PropertiesPanel* panel = window.properties();
    EXPECT_EQ(panel->entity(), motor.id);
    EXPECT_TRUE(panel->editor(QStringLiteral("Joint")));
    EXPECT_FALSE(panel->editor(QStringLiteral("Axis")));
    auto* magnitude = qobject_cast<ExpressionEditor*>(panel->editor(QStringLiteral("Magnitude")));
    ASSERT_TRUE(magnitude);
    EXPECT_EQ(magnitude->unit(), QStringLiteral("N·m"));
    EXPECT_TRUE(magnitude->isValid()) << magnitude->error().toStdString();
}

TEST_F(StateForcesTest, ALineForcesMagnitudeReadsTheStateAndAMeasureOfNothingIsRefused) {
    engine::SceneSpec after = scene();
    engine::addForce(after, engine::ForceType::LineForce, after.findMarker({"link", "pivot"})->id,
                     after.findMarker({"ground", "pivot"})->id, engine::kNoEntity);
    ASSERT_FALSE(window.document()->add(after, QStringLiteral("Add line force")));
    const engine::EntityId id = scene().forces.front().id;
    window.sceneTree()->selectEntity(id);
    ASSERT_EQ(window.properties()->entity(), id);

    typeExpression(QStringLiteral("Magnitude"), QStringLiteral("-3*VR(link.pivot, ground.pivot)"));
    EXPECT_EQ(window.properties()->message(QStringLiteral("Magnitude")), QString());
    EXPECT_EQ(scene().forces.front().components[0], "-3*VR(link.pivot, ground.pivot)");

    // A marker that is not there: refused with the reason, beside the field; the scene keeps
    // its magnitude.
    typeExpression(QStringLiteral("Magnitude"), QStringLiteral("DM(nope.x)"));
    const QString reason = window.properties()->message(QStringLiteral("Magnitude"));
    EXPECT_TRUE(reason.contains(QStringLiteral("no marker 'nope.x'"))) << reason.toStdString();
    EXPECT_EQ(scene().forces.front().components[0], "-3*VR(link.pivot, ground.pivot)");
    // A measure that is not one: the same.
    typeExpression(QStringLiteral("Magnitude"), QStringLiteral("DM(link.pivot"));
    EXPECT_TRUE(window.properties()
                    ->message(QStringLiteral("Magnitude"))
                    .contains(QStringLiteral("no closing ')'")));
    EXPECT_EQ(window.undoStack()->count(), 2);  // the force, its magnitude
}

TEST_F(StateForcesTest, VariablesAreAddedEditedRenamedDeletedAndUndone) {
    QUndoStack* undo = window.undoStack();
    ASSERT_TRUE(variablesHeading().isValid());
    trigger("AddVariable");
    ASSERT_EQ(scene().variables.size(), 1u);
    EXPECT_EQ(scene().variables[0].name, "v1");
    EXPECT_EQ(scene().variables[0].expression, "0");
    EXPECT_EQ(undo->count(), 1);
    // Listed under Variables, selected, and shown in Properties.
    QAbstractItemModel* model = window.sceneTree()->model();
    const QModelIndex heading = variablesHeading();
    ASSERT_EQ(model->rowCount(heading), 1);
    EXPECT_EQ(model->index(0, 0, heading).data().toString(), QStringLiteral("v1"));
    EXPECT_EQ(model->index(0, 1, heading).data().toString(), QStringLiteral("= 0"));
    EXPECT_EQ(window.sceneTree()->selectedVariable(), 0);
    EXPECT_EQ(window.properties()->variable(), 0);

    // Its expression, edited in Properties: a measure of the state.
    typeExpression(QStringLiteral("Expression"),
                   QStringLiteral("DM(link.pivot, ground.pivot) - 0.1"));
    EXPECT_EQ(window.properties()->message(QStringLiteral("Expression")), QString());
    EXPECT_EQ(scene().variables[0].expression, "DM(link.pivot, ground.pivot) - 0.1");
    EXPECT_EQ(undo->count(), 2);
    EXPECT_EQ(window.properties()->variable(), 0);  // still shown after the edit
    // A second one, "v2", reading the first; a force reads the second.
    trigger("AddVariable");
    ASSERT_EQ(scene().variables.size(), 2u);
    EXPECT_EQ(scene().variables[1].name, "v2");
    EXPECT_EQ(window.properties()->variable(), 1);
    typeExpression(QStringLiteral("Expression"), QStringLiteral("2*v1"));
    EXPECT_EQ(scene().variables[1].expression, "2*v1");
    // One that reads itself is refused (a cycle), the reason said beside the field.
    typeExpression(QStringLiteral("Expression"), QStringLiteral("v2 + 1"));
    EXPECT_FALSE(window.properties()->message(QStringLiteral("Expression")).isEmpty());
    EXPECT_EQ(scene().variables[1].expression, "2*v1");

    // Renamed in the tree: what reads it follows.
    window.sceneTree()->renameVariable(0, QStringLiteral("stretch"));
    EXPECT_EQ(scene().variables[0].name, "stretch");
    EXPECT_EQ(scene().variables[1].expression, "2*stretch");
    // And in Properties.
    window.sceneTree()->selectVariable(0);
    ASSERT_EQ(window.properties()->variable(), 0);
    auto* name = qobject_cast<QLineEdit*>(window.properties()->editor(QStringLiteral("Name")));
    ASSERT_TRUE(name);
    EXPECT_EQ(name->text(), QStringLiteral("stretch"));
    name->setText(QStringLiteral("gap"));
    window.properties()->commit(QStringLiteral("Name"));
    EXPECT_EQ(scene().variables[0].name, "gap");
    EXPECT_EQ(scene().variables[1].expression, "2*gap");
    // A name that cannot be one is refused.
    name->setText(QStringLiteral("DM"));
    window.properties()->commit(QStringLiteral("Name"));
    EXPECT_FALSE(window.properties()->message(QStringLiteral("Name")).isEmpty());
    EXPECT_EQ(scene().variables[0].name, "gap");

    // Deleting one another reads is refused, saying why; the last one goes.
    const int steps = undo->count();
    window.sceneTree()->selectVariable(0);
    window.sceneTree()->deleteSelection();
    EXPECT_EQ(scene().variables.size(), 2u);
    EXPECT_EQ(undo->count(), steps);
    window.sceneTree()->selectVariable(1);
    window.sceneTree()->deleteSelection();
    ASSERT_EQ(scene().variables.size(), 1u);
    EXPECT_EQ(undo->count(), steps + 1);

    // Undone step by step: the deletion, the renames, the edits, the additions.
    undo->undo();
    ASSERT_EQ(scene().variables.size(), 2u);
    undo->undo();
    EXPECT_EQ(scene().variables[0].name, "stretch");
    undo->undo();
    EXPECT_EQ(scene().variables[0].name, "v1");
    EXPECT_EQ(scene().variables[1].expression, "2*v1");
    undo->undo();
    EXPECT_EQ(scene().variables[1].expression, "0");
    undo->undo();
    ASSERT_EQ(scene().variables.size(), 1u);
    undo->undo();
    EXPECT_EQ(scene().variables[0].expression, "0");
    undo->undo();
    EXPECT_TRUE(scene().variables.empty());
    EXPECT_EQ(model->rowCount(variablesHeading()), 0);
    EXPECT_EQ(window.properties()->variable(), -1);  // no longer there to show
    undo->redo();
    ASSERT_EQ(scene().variables.size(), 1u);
    EXPECT_EQ(model->rowCount(variablesHeading()), 1);
}

// Screenshots of what a user sees, when MOTUS_SCREENSHOT_DIR is set.
void shot(MainWindow& window, const QString& name) {
    if (!qEnvironmentVariableIsSet("MOTUS_SCREENSHOT_DIR")) return;
    drawn(window.viewport(), 3);
    QTest::qWait(200);
    window.grab().save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") + QLatin1Char('/') + name +
                       QStringLiteral(".png"));
}

TEST_F(StateForcesTest, EachIsShownWithItsUnitsAndNoRowIsCutShort) {
    // A rope from the link's tip to a point above, its stretch a variable, and a brake.
    engine::SceneSpec after = scene();
    engine::Marker tip;
    tip.id = after.newId();
    tip.name = "tip";
    tip.X_PM.p = Vec3(0.05, 0.0, 0.0);
    after.parts[1].markers.push_back(tip);
    engine::Marker anchor;
    anchor.id = after.newId();
    anchor.name = "anchor";
    anchor.X_PM.p = Vec3(0.1, 0.0, 0.1);
    after.parts[0].markers.push_back(anchor);
    const engine::EntityId rope =
        engine::addForce(after, engine::ForceType::LineForce, tip.id, anchor.id, engine::kNoEntity);
    const engine::EntityId brake =
        engine::addForce(after, engine::ForceType::JointForce, engine::kNoEntity, engine::kNoEntity,
                         after.joints.front().id);
    after.variables.push_back(
        {.name = "stretch", .expression = "DM(link.tip, ground.anchor) - 0.05", .extensions = {}});
    after.forces.front().components[0] = "-200*stretch - 3*VR(link.tip, ground.anchor)";
    ASSERT_FALSE(window.document()->add(after, QStringLiteral("Add the rope and the brake")));
    window.viewport()->fitToScene();
    QTreeView* tree = window.sceneTree();
    tree->expandAll();

    // Each page: every label and its field whole (nothing cut at the dock's edge), the
    // magnitude's unit said and its state said in words.
    auto check = [&](const QString& name, const QString& unit) {
        PropertiesPanel* panel = window.properties();
        auto* expression = qobject_cast<ExpressionEditor*>(
            panel->editor(name == QLatin1String("variable") ? QStringLiteral("Expression")
                                                            : QStringLiteral("Magnitude")));
        ASSERT_TRUE(expression) << name.toStdString();
        EXPECT_EQ(expression->unit(), unit) << name.toStdString();
        EXPECT_TRUE(expression->isValid()) << expression->error().toStdString();
        EXPECT_TRUE(expression->readsState());
        EXPECT_TRUE(expression->message().contains(QStringLiteral("state")))
            << expression->message().toStdString();
        // The unit said under the field (there is no label beside it).
        EXPECT_TRUE(unit.isEmpty() ||
                    expression->message().contains(QStringLiteral("in ") + unit) ||
                    expression->message().contains(unit + QStringLiteral(" at the frame shown")))
            << expression->message().toStdString();
        // Read from its start.
        EXPECT_EQ(expression->lineEdit()->cursorPosition(), 0);
        for (QLabel* label : panel->findChildren<QLabel*>()) {
            if (!label->isVisible() || label->wordWrap() || label->text().isEmpty()) continue;
            EXPECT_GE(label->width(), label->minimumSizeHint().width())
                << name.toStdString() << ": '" << label->text().toStdString() << "' cut";
        }
        shot(window, QStringLiteral("state-") + name);
    };
    tree->selectionModel()->clear();
    window.sceneTree()->selectEntity(rope);
    check(QStringLiteral("lineForce"), QStringLiteral("N"));
    window.sceneTree()->selectEntity(brake);
    check(QStringLiteral("jointForce"), QStringLiteral("N·m"));
    window.sceneTree()->selectVariable(0);
    ASSERT_EQ(window.properties()->variable(), 0);
    check(QStringLiteral("variable"), QString());
    // The tree says what each is: the rope's ends, the brake's joint, the variable's value.
    const QModelIndex variables = variablesHeading();
    EXPECT_EQ(tree->model()->index(0, 1, variables).data().toString(),
              QStringLiteral("= DM(link.tip, ground.anchor) - 0.05"));
}

TEST(VariableRename, OnlyTheVariableIsRenamedNotPartsMarkersOrFunctions) {
    EXPECT_EQ(renamedInExpression("2*v1 + v10 - sin(v1)", "v1", "s"), "2*s + v10 - sin(s)");
    // A part and a marker of that name, inside a measure or not, stay.
    EXPECT_EQ(renamedInExpression("DM(v1.m, v1) + v1.m*v1", "v1", "s"), "DM(v1.m, v1) + v1.m*s");
    // Numbers with an exponent or a postfix are not names.
    EXPECT_EQ(renamedInExpression("1e5*e + 90d", "e", "x"), "1e5*x + 90d");
    // A function call is no variable.
    EXPECT_EQ(renamedInExpression("v(1) + v", "v", "w"), "v(1) + w");
}

// A sensor reads variables too: renaming one reaches it.
TEST(VariableRename, ReachesTheSensorsThatReadIt) {
    engine::SceneSpec spec;
    spec.variables.push_back({"height", "DZ(ball)", "", std::nullopt});
    engine::SensorSpec sensor;
    sensor.name = "landed";
    sensor.expression = "height - 0.1";
    spec.sensors.push_back(sensor);
    ASSERT_TRUE(renameVariable(spec, 0, "z"));
    EXPECT_EQ(spec.sensors[0].expression, "z - 0.1");
}

}  // namespace
}  // namespace ui
