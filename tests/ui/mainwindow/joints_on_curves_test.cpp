// Joints on curves in the window as a user meets them: a pin in a slot made from the toolbar,
// its slot straight through the pin, its points edited in Properties (a list that is no curve
// refused beside the field with the engine's reason, the text kept); a cam pair whose contours
// start as a disc cam and a roller touching where the parts are; a joint made a point on a
// curve in Properties, its curve turned into expressions of s; and the view drawing each curve
// with the part it is fixed in.

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFocusEvent>
#include <QImage>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalBlocker>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <gtest/gtest.h>

#include <osg/Geode>
#include <osg/Geometry>
#include <osg/MatrixTransform>
#include <osg/NodeVisitor>

#include "engine/expr/expression.h"
#include "engine/io/scene_json.h"
#include "engine/math/constants.h"
#include "engine/model/curve.h"
#include "tests/ui/support/window_test.h"
#include "ui/common/joint_curves.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/build_tools.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/messages_panel.h"
#include "ui/properties/expression_editor.h"
#include "ui/properties/properties_panel.h"
#include "ui/viewport/osg_convert.h"
#include "ui/viewport/scene_graph.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {
namespace {

using engine::Vec3;

using test::drawn;

// How far a point is from a curve (the curve's frame).
double offCurve(const engine::CurveSpec& spec, const Vec3& p) {
    std::string error, key;
    const auto curve = engine::Curve::make(spec, error, key);
    EXPECT_TRUE(curve) << error;
    if (!curve) return 1e9;
    return (curve->at(curve->nearest(p)).x - p).norm();
}

engine::Marker marker(engine::SceneSpec& spec, const std::string& name,
                      const engine::Transform& X_PM) {
    engine::Marker m;
    m.id = spec.newId();
    m.name = name;
    m.X_PM = X_PM;
    return m;
}

// A disc cam (r 50 mm, its axis along −y, facing the default view) on the ground and a
// follower block above it, nothing joining them yet.
engine::SceneSpec camAndBlock() {
    engine::SceneSpec spec;
    spec.name = "cam_and_block";
    engine::Part ground;
    ground.id = spec.newId();
    ground.name = "ground";
    ground.ground = true;
    spec.parts.push_back(ground);
    const engine::Quat alongMinusY(Eigen::AngleAxisd(engine::kPi / 2.0, Vec3::UnitX()));
    engine::Part cam;
    cam.id = spec.newId();
    cam.name = "cam";
    cam.X_WP.p = Vec3(0.0, 0.0, 0.3);
    cam.X_WP.R = alongMinusY;  // the disc's axis (its z) along −y
    cam.colorRgb = 0xe0703c;
    engine::Shape disc;
    disc.type = engine::ShapeType::Cylinder;
    disc.radius = 0.05;
    disc.length = 0.02;
    cam.shapes.push_back(disc);
    cam.density = 7850.0;
    spec.parts.push_back(cam);
    engine::Part block;
    block.id = spec.newId();
    block.name = "follower";
    block.X_WP.p = Vec3(0.0, 0.0, 0.4);
    block.colorRgb = 0x3c8ee0;
    engine::Shape box;
    box.type = engine::ShapeType::Box;
    box.size = Vec3(0.02, 0.02, 0.06);
    block.shapes.push_back(box);
    block.density = 7850.0;
    spec.parts.push_back(block);
    return spec;
}

class JointsOnCurvesTest : public ::testing::Test {
protected:
    void SetUp() override {
        window.resize(1280, 800);
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
        window.files()->newScene();
        drawn(window.viewport());
    }
    void trigger(const char* action) {
        QAction* a = window.findChild<QAction*>(QLatin1String(action));
        ASSERT_TRUE(a) << action;
        a->trigger();
    }
    void clickWorld(const Vec3& p_W, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
        ViewportWidget* view = window.viewport();
        drawn(view);
        const QPointF at = view->project(p_W.x(), p_W.y(), p_W.z());
        ASSERT_TRUE(view->rect().contains(at.toPoint())) << "off screen: " << p_W.transpose();
        QTest::mouseClick(view, Qt::LeftButton, modifiers, at.toPoint());
    }
    void clickOn(const std::string& part, const Vec3& p_P,
                 Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
        const engine::Part* p = window.scene()->findPart(part);
        ASSERT_TRUE(p) << part;
        clickWorld(p->X_WP * p_P, modifiers);
    }
    // A switch flipped; the edit it makes may rebuild the panel (under the switch's feet in a
    // test, which has no event loop to defer the old editors' deletion to).
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
    const engine::Joint* joint(engine::JointType type) const {
        for (const engine::Joint& j : window.scene()->joints)
            if (j.type == type) return &j;
        return nullptr;
    }
    // Marker I's origin in marker J's frame.
    Vec3 iInJ(const engine::Joint& j) const {
        const engine::SceneSpec& s = *window.scene();
        const engine::Transform X_WJ =
            s.findPart(j.markerJ.part)->X_WP * s.findMarker(j.markerJ)->X_PM;
        return X_WJ.inverse() *
               (s.findPart(j.markerI.part)->X_WP * s.findMarker(j.markerI)->X_PM.p);
    }
    QString lastMessage() const {
        const MessagesPanel* m = window.messages();
        return m->count() ? m->item(m->count() - 1)->text() : QString();
    }
    void open(const engine::SceneSpec& spec) {
        const QString path = dir.filePath(QString::fromStdString(spec.name) + ".json");
        std::string error;
        ASSERT_TRUE(engine::io::saveSceneFile(spec, path.toStdString(), error)) << error;
        ASSERT_TRUE(window.files()->openScene(path));
        drawn(window.viewport());
    }
    // Types `text` into a list of points and applies it as the user does (Ctrl+Return).
    static void typePoints(QPlainTextEdit* edit, const QString& text) {
        edit->setFocus();
        edit->selectAll();
        edit->setPlainText(text);
        QTest::keyClick(edit, Qt::Key_Return, Qt::ControlModifier);
    }

    QTemporaryDir dir;
    MainWindow window;
};

TEST_F(JointsOnCurvesTest, APinInASlotIsMadeFromTheToolbarAndItsPointsAreEditedInProperties) {
    trigger("CreatePart_box");
    clickWorld(Vec3(0.0, 0.0, 0.5));
    ASSERT_EQ(window.scene()->parts.size(), 2u);
    const std::string box = window.scene()->parts[1].name;
    // The tool is offered in the Create menu and the toolbar, and made like any joint: the pin
    // on the box's front face, then empty space (the slot in the ground).
    trigger("CreateJoint_pointOnCurve");
    clickOn(box, Vec3(0.0, -0.02, 0.0));
    clickWorld(Vec3(0.3, 0.0, 0.75));
    const engine::Joint* slot = joint(engine::JointType::PointOnCurve);
    ASSERT_TRUE(slot) << lastMessage().toStdString();
    EXPECT_EQ(slot->markerJ.part, "ground");
    // A straight spline of 4 points along J's x axis, centred on the pin: three times the box's
    // length (the ground has no geometry), the pin on it at once.
    ASSERT_EQ(slot->curve.type, engine::CurveType::Spline);
    ASSERT_EQ(slot->curve.points.size(), 4u);
    EXPECT_FALSE(slot->curve.closed);
    EXPECT_NEAR((slot->curve.points.back() - slot->curve.points.front()).norm(), 0.6, 1e-9);
    for (const Vec3& p : slot->curve.points) {
        EXPECT_NEAR(p.y(), 0.0, 1e-12);
        EXPECT_NEAR(p.z(), 0.0, 1e-12);
    }
    EXPECT_LT(offCurve(slot->curve, iInJ(*slot)), 1e-9);
    EXPECT_TRUE(slot->follower.empty());

    // Properties shows the new joint with its curve: one point a line.
    PropertiesPanel* panel = window.properties();
    ASSERT_EQ(panel->entity(), slot->id);
    auto* type = qobject_cast<QComboBox*>(panel->editorForKey(QStringLiteral("type")));
    ASSERT_TRUE(type);
    EXPECT_EQ(type->currentText(), "pointOnCurve");
    EXPECT_GE(type->findText(QStringLiteral("curveOnCurve")), 0);
    auto* kind = qobject_cast<QComboBox*>(panel->editorForKey(QStringLiteral("curve")));
    ASSERT_TRUE(kind);
    EXPECT_EQ(kind->currentText(), "spline");
    auto* points =
        qobject_cast<QPlainTextEdit*>(panel->editorForKey(QStringLiteral("curve.points")));
    ASSERT_TRUE(points);
    EXPECT_EQ(points->toPlainText(), "-0.3, 0, 0\n-0.1, 0, 0\n0.1, 0, 0\n0.3, 0, 0");
    EXPECT_FALSE(panel->editorForKey(QStringLiteral("friction")));  // none on a curve

    // A curved slot typed in: one undoable edit, the points in the scene as typed.
    const int steps = window.undoStack()->count();
    typePoints(points, "-0.3, 0.05, 0\n-0.1, 0, 0\n0.1, 0, 0\n0.3, 0.05, 0\n0.4, 0.12, 0");
    EXPECT_EQ(panel->message(QStringLiteral("curve.points")), QString());
    ASSERT_EQ(window.undoStack()->count(), steps + 1);
    slot = joint(engine::JointType::PointOnCurve);
    ASSERT_EQ(slot->curve.points.size(), 5u);
    EXPECT_EQ(slot->curve.points[0], Vec3(-0.3, 0.05, 0.0));
    EXPECT_EQ(slot->curve.points[4], Vec3(0.4, 0.12, 0.0));

    // A point repeated: the engine's reason beside the field, the typed text kept, the scene
    // as it was.
    points = qobject_cast<QPlainTextEdit*>(panel->editorForKey(QStringLiteral("curve.points")));
    ASSERT_TRUE(points);
    const QString repeated = "-0.3, 0.05, 0\n-0.1, 0, 0\n-0.1, 0, 0\n0.3, 0.05, 0";
    typePoints(points, repeated);
    EXPECT_TRUE(panel->message(QStringLiteral("curve.points")).contains("repeats"))
        << panel->message(QStringLiteral("curve.points")).toStdString();
    EXPECT_EQ(points->toPlainText(), repeated);
    EXPECT_EQ(window.undoStack()->count(), steps + 1);
    EXPECT_EQ(joint(engine::JointType::PointOnCurve)->curve.points.size(), 5u);
    // A line that is no point: which line, before the engine sees it.
    typePoints(points, "-0.3, 0.05, 0\n-0.1, 0\n0.1, 0, 0\n0.3, 0.05, 0");
    EXPECT_TRUE(panel->message(QStringLiteral("curve.points")).contains("line 2"))
        << panel->message(QStringLiteral("curve.points")).toStdString();
    EXPECT_EQ(window.undoStack()->count(), steps + 1);
    // Pasted from a file or a spreadsheet, applied when the field is left.
    points->setPlainText("[-0.2, 0, 0],\n[0, 0, 0],\n[0.2, 0.02, 0],\n[0.3\t0.05\t0]");
    QFocusEvent out(QEvent::FocusOut, Qt::TabFocusReason);
    QApplication::sendEvent(points, &out);
    EXPECT_EQ(panel->message(QStringLiteral("curve.points")), QString());
    slot = joint(engine::JointType::PointOnCurve);
    ASSERT_EQ(slot->curve.points.size(), 4u);
    EXPECT_EQ(slot->curve.points[3], Vec3(0.3, 0.05, 0.0));

    // Closed, then undone back to the straight slot.
    auto* closed = qobject_cast<QCheckBox*>(panel->editorForKey(QStringLiteral("curve.closed")));
    ASSERT_TRUE(closed);
    closed->click();
    EXPECT_TRUE(joint(engine::JointType::PointOnCurve)->curve.closed);
    window.undoStack()->setIndex(steps);
    slot = joint(engine::JointType::PointOnCurve);
    EXPECT_FALSE(slot->curve.closed);
    EXPECT_EQ(slot->curve.points.back(), Vec3(0.3, 0.0, 0.0));
}

TEST_F(JointsOnCurvesTest, ACamPairStartsAsADiscCamAndARollerTouchingWhereThePartsAre) {
    open(camAndBlock());
    const engine::Transform camBefore = window.scene()->findPart("cam")->X_WP;
    const engine::Transform blockBefore = window.scene()->findPart("follower")->X_WP;
    // The follower's front face at its centre, then the cam's front face at its axis (Shift:
    // snapped to the faces' centres).
    trigger("CreateJoint_curveOnCurve");
    clickOn("follower", Vec3(0.0, -0.01, 0.0), Qt::ShiftModifier);
    clickOn("cam", Vec3(0.0, 0.0, 0.01), Qt::ShiftModifier);
    const engine::Joint* cam = joint(engine::JointType::CurveOnCurve);
    ASSERT_TRUE(cam) << lastMessage().toStdString();
    EXPECT_EQ(cam->markerI.part, "follower");
    EXPECT_EQ(cam->markerJ.part, "cam");
    // The parts stay: the contours are sized to them. The axes are 100 mm apart: the cam as
    // large as its disc (50 mm), the roller the rest.
    EXPECT_TRUE(window.scene()->findPart("cam")->X_WP.p.isApprox(camBefore.p));
    EXPECT_TRUE(window.scene()->findPart("follower")->X_WP.p.isApprox(blockBefore.p));
    EXPECT_EQ(cam->curve.type, engine::CurveType::Expression);
    EXPECT_EQ(cam->curve.x, "0.05*cos(s)");
    EXPECT_EQ(cam->curve.y, "0.05*sin(s)");
    EXPECT_TRUE(cam->curve.closed);
    EXPECT_DOUBLE_EQ(cam->curve.end, 2.0 * engine::kPi);
    EXPECT_EQ(cam->follower.x, "0.05*cos(s)");
    EXPECT_FALSE(cam->liftOff);
    EXPECT_NEAR(std::hypot(iInJ(*cam).x(), iInJ(*cam).y()), 0.1, 1e-9);

    // Properties: both contours, and lift-off, which brings the contact's restitution.
    PropertiesPanel* panel = window.properties();
    ASSERT_EQ(panel->entity(), cam->id);
    for (const char* key : {"curve", "curve.x", "curve.y", "curve.z", "curve.start", "curve.end",
                            "follower", "follower.x", "follower.closed", "liftOff"})
        EXPECT_TRUE(panel->editorForKey(QString::fromLatin1(key))) << key;
    EXPECT_FALSE(panel->editorForKey(QStringLiteral("limits")));  // a cam has no stops
    EXPECT_FALSE(panel->editorForKey(QStringLiteral("limit.restitution")));
    flip(QStringLiteral("liftOff"));
    EXPECT_TRUE(joint(engine::JointType::CurveOnCurve)->liftOff);
    auto* restitution =
        qobject_cast<QLineEdit*>(panel->editorForKey(QStringLiteral("limit.restitution")));
    ASSERT_TRUE(restitution);
    restitution->setText("0.3");
    panel->commit(QStringLiteral("limit.restitution"));
    ASSERT_EQ(joint(engine::JointType::CurveOnCurve)->limits.size(), 1u);
    EXPECT_EQ(joint(engine::JointType::CurveOnCurve)->limits[0].restitution, 0.3);
    EXPECT_FALSE(joint(engine::JointType::CurveOnCurve)->limits[0].limited());
    // Held on again: the contact's restitution goes with it.
    flip(QStringLiteral("liftOff"));
    EXPECT_FALSE(joint(engine::JointType::CurveOnCurve)->liftOff);
    EXPECT_TRUE(joint(engine::JointType::CurveOnCurve)->limits.empty());
}

TEST_F(JointsOnCurvesTest, AJointMadeAPointOnACurveInPropertiesGetsACurveOfExpressionsOfS) {
    trigger("CreatePart_box");
    clickWorld(Vec3(0.0, 0.0, 0.5));
    const std::string box = window.scene()->parts[1].name;
    trigger("CreateJoint_revolute");
    clickOn(box, Vec3(-0.08, -0.02, 0.0));
    clickWorld(Vec3(-0.3, 0.0, 0.75));
    const engine::Joint* hinge = joint(engine::JointType::Revolute);
    ASSERT_TRUE(hinge);
    const engine::EntityId id = hinge->id;
    PropertiesPanel* panel = window.properties();
    panel->showEntity(window.scene(), id);
    // Made a point on a curve: a straight slot through the pin, at once.
    auto* type = qobject_cast<QComboBox*>(panel->editorForKey(QStringLiteral("type")));
    ASSERT_TRUE(type);
    type->setCurrentText(QStringLiteral("pointOnCurve"));
    panel->commit(QStringLiteral("type"));
    const engine::Joint* pin = joint(engine::JointType::PointOnCurve);
    ASSERT_TRUE(pin) << panel->message(QStringLiteral("type")).toStdString();
    ASSERT_EQ(pin->curve.points.size(), 4u);
    EXPECT_LT(offCurve(pin->curve, iInJ(*pin)), 1e-9);
    // Its curve as expressions: the line from its first point to its last, s from 0 to 1.
    auto* kind = qobject_cast<QComboBox*>(panel->editorForKey(QStringLiteral("curve")));
    ASSERT_TRUE(kind);
    kind->setCurrentText(QStringLiteral("expression"));
    panel->commit(QStringLiteral("curve"));
    pin = joint(engine::JointType::PointOnCurve);
    ASSERT_EQ(pin->curve.type, engine::CurveType::Expression);
    EXPECT_EQ(pin->curve.start, 0.0);
    EXPECT_EQ(pin->curve.end, 1.0);
    EXPECT_LT(offCurve(pin->curve, iInJ(*pin)), 1e-9);
    EXPECT_FALSE(panel->editorForKey(QStringLiteral("curve.points")));
    // x(s) is an expression of s: one of time is refused as it is typed, one of s goes in.
    auto* y = qobject_cast<ExpressionEditor*>(panel->editorForKey(QStringLiteral("curve.y")));
    ASSERT_TRUE(y);
    EXPECT_EQ(y->variable(), "s");
    y->lineEdit()->setFocus();
    y->lineEdit()->selectAll();
    QTest::keyClicks(y->lineEdit(), "0.05*sin(2*pi*time)");
    QTest::keyClick(y->lineEdit(), Qt::Key_Return);
    EXPECT_FALSE(y->isValid());
    EXPECT_TRUE(y->error().contains("time")) << y->error().toStdString();
    EXPECT_EQ(joint(engine::JointType::PointOnCurve)->curve.y, "0");
    y->lineEdit()->selectAll();
    QTest::keyClicks(y->lineEdit(), "0.05*sin(2*pi*s)");
    QTest::keyClick(y->lineEdit(), Qt::Key_Return);
    EXPECT_TRUE(y->isValid()) << y->error().toStdString();
    EXPECT_EQ(joint(engine::JointType::PointOnCurve)->curve.y, "0.05*sin(2*pi*s)");
    // A revolute joint again: the curve goes.
    type = qobject_cast<QComboBox*>(panel->editorForKey(QStringLiteral("type")));
    type->setCurrentText(QStringLiteral("revolute"));
    panel->commit(QStringLiteral("type"));
    ASSERT_TRUE(joint(engine::JointType::Revolute));
    EXPECT_TRUE(joint(engine::JointType::Revolute)->curve.empty());
}

TEST_F(JointsOnCurvesTest, AMotionDrivesAPinAlongItsSlot) {
    trigger("CreatePart_box");
    clickWorld(Vec3(0.0, 0.0, 0.5));
    const std::string box = window.scene()->parts[1].name;
    trigger("CreateJoint_pointOnCurve");
    clickOn(box, Vec3(0.0, -0.02, 0.0));
    clickWorld(Vec3(0.3, 0.0, 0.75));
    const engine::Joint* slot = joint(engine::JointType::PointOnCurve);
    ASSERT_TRUE(slot) << lastMessage().toStdString();
    trigger("ToolSelect");
    ASSERT_TRUE(window.tools()->addMotion(slot->id)) << lastMessage().toStdString();
    ASSERT_EQ(window.scene()->motions.size(), 1u);
    const engine::MotionSpec& motion = window.scene()->motions[0];
    EXPECT_EQ(motion.joint, slot->name);
    EXPECT_EQ(motion.axis, engine::JointAxis::Translation);
    // From the pin's place, the slot's middle (s = 0.3 m along it).
    std::string error;
    const auto along = engine::Expression::parse(motion.expression, error);
    ASSERT_TRUE(along) << error;
    EXPECT_NEAR(along->eval(0.0), 0.3, 1e-9);
    EXPECT_GT(along->eval(0.25), 0.3);
}

// The nodes of a scene graph by name, with the transform each hangs from.
struct FindNamed : osg::NodeVisitor {
    FindNamed() : osg::NodeVisitor(TRAVERSE_ALL_CHILDREN) {}
    void apply(osg::Geode& geode) override {
        if (!geode.getName().empty() && !found.count(geode.getName()))
            found[geode.getName()] = &geode;
        traverse(geode);
    }
    std::map<std::string, osg::Geode*> found;
};

TEST(JointsOnCurvesView, TheViewDrawsEachCurveWithThePartItIsFixedIn) {
    engine::SceneSpec spec = camAndBlock();
    // A slot in the cam's face for the block's pin, a cam pair between them, and a joint whose
    // curve is none (three points).
    engine::Part& cam = spec.parts[1];
    engine::Part& block = spec.parts[2];
    cam.markers.push_back(
        marker(spec, "face", engine::Transform{engine::Quat::Identity(), Vec3(0.0, 0.0, 0.01)}));
    cam.markers.push_back(marker(spec, "axis", engine::Transform{}));
    block.markers.push_back(marker(spec, "pin", engine::Transform{}));
    auto add = [&](const std::string& name, engine::JointType type, const std::string& i,
                   const std::string& j) -> engine::Joint& {
        engine::Joint joint;
        joint.id = spec.newId();
        joint.name = name;
        joint.type = type;
        joint.markerI = {"follower", i};
        joint.markerJ = {"cam", j};
        spec.joints.push_back(joint);
        return spec.joints.back();
    };
    add("slot", engine::JointType::PointOnCurve, "pin", "face").curve.points = {
        {-0.04, 0.0, 0.0}, {-0.01, 0.01, 0.0}, {0.01, 0.01, 0.0}, {0.04, 0.0, 0.0}};
    engine::Joint& pair = add("pair", engine::JointType::CurveOnCurve, "pin", "axis");
    pair.curve.type = pair.follower.type = engine::CurveType::Expression;
    pair.curve.x = "0.05*cos(s)";
    pair.curve.y = "0.05*sin(s)";
    pair.follower.x = "0.01*cos(s)";
    pair.follower.y = "0.01*sin(s)";
    pair.curve.end = pair.follower.end = 2.0 * engine::kPi;
    pair.curve.closed = pair.follower.closed = true;
    add("broken", engine::JointType::PointOnCurve, "pin", "face").curve.points = {
        {0.0, 0.0, 0.0}, {0.01, 0.0, 0.0}, {0.02, 0.0, 0.0}};

    SceneGraph graph = buildSceneGraph(spec);
    FindNamed named;
    graph.root->accept(named);
    ASSERT_TRUE(named.found.count("curve of slot"));
    ASSERT_TRUE(named.found.count("cam contour of pair"));
    ASSERT_TRUE(named.found.count("follower contour of pair"));
    EXPECT_FALSE(named.found.count("curve of broken"));  // not drawn, and no harm done
    EXPECT_EQ(graph.curves.size(), 2u);
    // Each under its marker's frame, on the part it is fixed in: the slot and the cam's
    // contour on the cam, the roller on the follower.
    auto check = [&](const std::string& name, const engine::CurveSpec& curve,
                     const engine::Marker& m, std::size_t part, GLenum mode) {
        SCOPED_TRACE(name);
        osg::Geode* geode = named.found.at(name);
        ASSERT_EQ(geode->getNumParents(), 1u);
        auto* frame = dynamic_cast<osg::MatrixTransform*>(geode->getParent(0));
        ASSERT_TRUE(frame);
        EXPECT_TRUE(frame->getMatrix() == toOsg(m.X_PM));
        EXPECT_EQ(frame->getNodeMask(), unsigned(kMaskJoints));
        ASSERT_EQ(frame->getNumParents(), 1u);
        EXPECT_EQ(frame->getParent(0), graph.partTransforms[part].get());
        std::string error, key;
        const auto made = engine::Curve::make(curve, error, key);
        ASSERT_TRUE(made) << error;
        ASSERT_GE(geode->getNumDrawables(), 1u);
        const auto* line = geode->getDrawable(0)->asGeometry();
        ASSERT_TRUE(line);
        EXPECT_EQ(line->getVertexArray()->getNumElements(), made->samples().size());
        EXPECT_EQ(line->getPrimitiveSet(0)->getMode(), mode);
    };
    check("curve of slot", spec.joints[0].curve, cam.markers[0], 1, GL_LINE_STRIP);
    check("cam contour of pair", spec.joints[1].curve, cam.markers[1], 1, GL_LINE_LOOP);
    check("follower contour of pair", spec.joints[1].follower, block.markers[0], 2, GL_LINE_LOOP);
    // Selected, a joint's curves take the selection's colour; the others keep theirs.
    const osg::Vec4 before = (*graph.curves[0].colour)[0];
    setHighlighted(graph, spec, {spec.joints[0].id});
    EXPECT_NE((*graph.curves[0].colour)[0], before);
    EXPECT_EQ((*graph.curves[1].colour)[0], before);

    // In the view: the curves' teal is drawn, and goes with the joints when they are hidden.
    ViewportWidget view;
    view.resize(640, 480);
    view.show();
    view.showScene(spec);
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    auto teal = [&] {
        const QImage image = view.grabFramebuffer();
        int n = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                n += c.red() < 120 && c.green() > 170 && c.blue() > 140 && c.blue() < 230;
            }
        return n;
    };
    const int shown = teal();
    view.setJointsVisible(false);
    const int hidden = teal();
    EXPECT_GT(shown, hidden + 100)
        << shown << " teal pixels with the joints, " << hidden << " without";
}

}  // namespace
}  // namespace ui
