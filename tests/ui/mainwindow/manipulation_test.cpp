// Direct manipulation in the 3D view, driven by the mouse as a user drives it: the manipulator
// on the selection, a drag that carries the joined parts along with every joint closed, the
// whole drag one undo step, snapping to the grid and the angle increment, amounts typed during
// a drag, Esc, and no manipulator on a recorded run.

#include <cmath>

#include <QListWidget>
#include <QStatusBar>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>

#include <gtest/gtest.h>

#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/messages_panel.h"
#include "ui/mainwindow/run_control.h"
#include "ui/mainwindow/scene_tree_panel.h"

#include "tests/ui/support/modal_answer.h"
#include "ui/mainwindow/manipulation.h"
#include "ui/models/scene_tree.h"
#include "ui/session/simulation_session.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {
namespace {

using engine::Transform;
using engine::Vec3;

const QString kFourBar = QStringLiteral(MOTUS_SOURCE_DIR "/scenes/four_bar.json");

// The largest gap of the scene's joints with the parts where the view draws them: the distance
// of the two markers' origins, and for revolutes the angle between their z axes.
double drawnJointGap(const engine::SceneSpec& spec, const ViewportWidget& view) {
    double worst = 0.0;
    auto markerFrame = [&](const engine::MarkerRef& ref) {
        for (std::size_t p = 0; p < spec.parts.size(); ++p)
            if (spec.parts[p].name == ref.part)
                for (const engine::Marker& m : spec.parts[p].markers)
                    if (m.name == ref.marker) return view.partPose(p) * m.X_PM;
        ADD_FAILURE() << "no marker " << ref.part << "." << ref.marker;
        return Transform{};
    };
    for (const engine::Joint& joint : spec.joints) {
        const Transform I = markerFrame(joint.markerI), J = markerFrame(joint.markerJ);
        worst = std::max(worst, (I.p - J.p).norm());
        if (joint.type == engine::JointType::Revolute)
            worst = std::max(worst, ((I.R * Vec3::UnitZ()).cross(J.R * Vec3::UnitZ())).norm());
    }
    return worst;
}

class ManipulationTest : public ::testing::Test {
protected:
    void SetUp() override {
        window.resize(1100, 720);
        window.show();
        window.activateWindow();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
        ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
        window.manipulation()->setSnapping(false);
        window.manipulation()->setLocalAxes(false);
        window.manipulation()->setMode(GizmoMode::Translate);
    }
    void select(quint64 entity) {
        QTreeView* tree = window.sceneTree();
        QAbstractItemModel* model = tree->model();
        const QModelIndexList rows =
            model->match(model->index(0, 0), kEntityIdRole, QVariant::fromValue(entity), 1,
                         Qt::MatchExactly | Qt::MatchRecursive);
        ASSERT_FALSE(rows.isEmpty());
        tree->scrollTo(rows.front());
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {},
                          tree->visualRect(rows.front()).center());
    }
    // Lets the view draw (the camera settles) so positions on screen are what the user sees.
    void settle() {
        ViewportWidget* view = window.viewport();
        const int frames = view->frameCount();
        view->update();
        EXPECT_TRUE(QTest::qWaitFor([&] { return view->frameCount() > frames; }, 5000));
        QTest::qWait(20);
    }
    QPoint at(GizmoHandle handle, double along) {
        return window.viewport()->gizmoHandlePoint(handle, along).toPoint();
    }
    // One pointer move during a drag, as the window system delivers it (left button held).
    void moveTo(const QPoint& p) {
        QMouseEvent move(QEvent::MouseMove, QPointF(p), window.viewport()->mapToGlobal(QPointF(p)),
                         Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(window.viewport(), &move);
    }
    MainWindow window;
};

// The acceptance drag: the four-bar's crank turned with the ring about y (its pivot's axis)
// through 60 pointer moves; after every one the view shows every joint closed to 1e-10 m, and
// one Undo puts every part back.
TEST_F(ManipulationTest, DraggingTheCrankCarriesTheLoopWithEveryJointClosedAndUndoesInOneStep) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    const engine::SceneSpec before = *window.scene();
    select(before.parts[1].id);
    window.manipulation()->setMode(GizmoMode::Rotate);
    settle();
    ViewportWidget* view = window.viewport();
    ASSERT_TRUE(view->gizmoVisible());
    const int undoBefore = window.undoStack()->count();

    const GizmoHandle ring{GizmoMode::Rotate, 1};
    // Along the ring from an eighth of the way round (away from where the rings cross), 60
    // moves over a sixth of a turn.
    std::vector<QPoint> path;
    for (int k = 0; k <= 60; ++k) path.push_back(at(ring, 0.125 + k / 360.0));
    GizmoHandle under;
    ASSERT_TRUE(view->gizmoHandleAt(path.front(), under));
    ASSERT_EQ(under.axis, 1);
    QTest::mousePress(view, Qt::LeftButton, {}, path.front());
    ASSERT_TRUE(view->gizmoDragging());
    for (std::size_t k = 1; k < path.size(); ++k) {
        moveTo(path[k]);
        ASSERT_LT(drawnJointGap(before, *view), 1e-10) << "after move " << k;
    }
    const auto& figures = window.manipulation()->figures();
    EXPECT_EQ(figures.events, 60);
    EXPECT_EQ(figures.held, 0);
    EXPECT_LT(figures.worstGap, 1e-10);
    QTest::mouseRelease(view, Qt::LeftButton, {}, path.back());
    EXPECT_FALSE(view->gizmoDragging());

    // The crank turned about its pivot (the mouse swept 60°; the crank follows its ring).
    const engine::SceneSpec& after = *window.scene();
    const Vec3 before_x = before.parts[1].X_WP.R * Vec3::UnitX(),
               after_x = after.parts[1].X_WP.R * Vec3::UnitX();
    const double turned = std::acos(std::clamp(before_x.dot(after_x), -1.0, 1.0));
    EXPECT_NEAR(engine::radToDeg(turned), 60.0, 3.0);
    EXPECT_LT((after.parts[1].X_WP * Vec3(-0.05, 0, 0)).norm(), 1e-10);  // still on its pivot A
    // The coupler and rocker moved with it; the ground did not.
    EXPECT_GT((after.parts[2].X_WP.p - before.parts[2].X_WP.p).norm(), 0.01);
    EXPECT_GT(after.parts[3].X_WP.R.angularDistance(before.parts[3].X_WP.R), engine::degToRad(1.0));
    EXPECT_EQ(after.parts[0].X_WP.p, before.parts[0].X_WP.p);
    // One drag, one undo step; Undo restores every pose exactly.
    ASSERT_EQ(window.undoStack()->count(), undoBefore + 1);
    window.undoStack()->undo();
    for (std::size_t p = 0; p < before.parts.size(); ++p) {
        EXPECT_EQ(window.scene()->parts[p].X_WP.p, before.parts[p].X_WP.p) << p;
        EXPECT_EQ(window.scene()->parts[p].X_WP.R.coeffs(), before.parts[p].X_WP.R.coeffs()) << p;
    }
    if (const QByteArray dir = qgetenv("MOTUS_SCREENSHOT_DIR"); !dir.isEmpty()) {
        window.undoStack()->redo();
        settle();
        window.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/manipulator_rotate.png"));
    }
}

// With snapping on, a part dragged along x lands on the grid (in world axes its coordinate is
// a whole number of grid steps), and a turn is a whole number of angle increments.
TEST_F(ManipulationTest, SnappingLandsOnTheGridAndTheAngleIncrement) {
    window.files()->newScene();
    window.sceneTree()->addPart();  // a free cube 0.5 m above the origin, selected
    ASSERT_EQ(window.scene()->parts.size(), 2u);
    window.manipulation()->setSnapping(true);
    window.manipulation()->setGridStep(0.025);
    window.manipulation()->setAngleStep(engine::degToRad(15.0));
    settle();
    ViewportWidget* view = window.viewport();
    ASSERT_TRUE(view->gizmoVisible());

    // Nudge the cube off the grid first (typed: 7 mm), then drag it: it lands on the grid.
    const GizmoHandle xArrow{GizmoMode::Translate, 0};
    QTest::mousePress(view, Qt::LeftButton, {}, at(xArrow, 0.6));
    QTest::keyClicks(view, QStringLiteral("7"));
    QTest::keyClick(view, Qt::Key_Return);
    EXPECT_NEAR(window.scene()->parts[1].X_WP.p.x(), 0.007, 1e-15);
    QTest::mouseRelease(view, Qt::LeftButton, {}, at(xArrow, 0.6));
    settle();
    const QPoint from = at(xArrow, 0.6), to = at(xArrow, 2.4);
    QTest::mousePress(view, Qt::LeftButton, {}, from);
    for (int k = 1; k <= 10; ++k) moveTo(from + (to - from) * k / 10);
    QTest::mouseRelease(view, Qt::LeftButton, {}, to);
    const Vec3 p = window.scene()->parts[1].X_WP.p;
    EXPECT_GT(p.x(), 0.03);
    EXPECT_NEAR(p.x() / 0.025, std::round(p.x() / 0.025), 1e-9) << p.x();
    EXPECT_EQ(p.y(), 0.0);
    EXPECT_EQ(p.z(), 0.5);
    if (const QByteArray dir = qgetenv("MOTUS_SCREENSHOT_DIR"); !dir.isEmpty()) {
        settle();
        window.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/manipulator_move.png"));
    }

    // Turned about z with the ring: a whole number of 15° increments.
    window.manipulation()->setMode(GizmoMode::Rotate);
    settle();
    const GizmoHandle zRing{GizmoMode::Rotate, 2};
    QTest::mousePress(view, Qt::LeftButton, {}, at(zRing, 0.1));
    for (int k = 1; k <= 12; ++k) moveTo(at(zRing, 0.1 + 0.01 * k + 0.003));
    QTest::mouseRelease(view, Qt::LeftButton, {}, at(zRing, 0.223));
    const engine::Quat R = window.scene()->parts[1].X_WP.R;
    const double angle = engine::radToDeg(2.0 * std::atan2(R.vec().norm(), R.w()));
    EXPECT_GT(angle, 10.0);
    EXPECT_NEAR(angle / 15.0, std::round(angle / 15.0), 1e-9) << angle;
    EXPECT_NEAR(std::abs(R.z()), R.vec().norm(), 1e-12);  // about z only
}

// Amounts typed during a drag are exact (mm, degrees); Esc puts everything back and leaves no
// undo step.
TEST_F(ManipulationTest, TypedAmountsAreExactAndEscCancels) {
    window.files()->newScene();
    window.sceneTree()->addPart();
    settle();
    ViewportWidget* view = window.viewport();
    const Vec3 start = window.scene()->parts[1].X_WP.p;
    const int undoBefore = window.undoStack()->count();
    const GizmoHandle zArrow{GizmoMode::Translate, 2};
    QTest::mousePress(view, Qt::LeftButton, {}, at(zArrow, 0.5));
    moveTo(at(zArrow, 0.9));  // the pointer moved, then the user types
    QTest::keyClicks(view, QStringLiteral("-12.5"));
    EXPECT_EQ(view->gizmoEntry(), QStringLiteral("-12.5"));
    QTest::mouseRelease(view, Qt::LeftButton, {}, at(zArrow, 0.9));
    EXPECT_NEAR(window.scene()->parts[1].X_WP.p.z(), start.z() - 0.0125, 1e-15);
    EXPECT_EQ(window.undoStack()->count(), undoBefore + 1);

    // Esc: the drag is undone on the spot.
    settle();
    const engine::SceneSpec before = *window.scene();
    QTest::mousePress(view, Qt::LeftButton, {}, at(zArrow, 0.5));
    moveTo(at(zArrow, 1.5));
    EXPECT_GT(std::abs(view->partPose(1).p.z() - before.parts[1].X_WP.p.z()), 1e-3);
    QTest::keyClick(view, Qt::Key_Escape);
    EXPECT_FALSE(view->gizmoDragging());
    QTest::mouseRelease(view, Qt::LeftButton, {}, at(zArrow, 1.5));
    EXPECT_EQ(window.undoStack()->count(), undoBefore + 1);
    EXPECT_EQ(window.scene()->parts[1].X_WP.p, before.parts[1].X_WP.p);
    EXPECT_EQ(view->partPose(1).p, before.parts[1].X_WP.p);
}

// A crank its motor holds cannot be turned: the drag moves nothing and says so, naming the
// motor, instead of reporting a turn that did not happen; with the motions suspended while
// dragging it turns, one undo step.
TEST_F(ManipulationTest, AMotorHoldingTheDragSaysSoAndCanBeSuspended) {
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/slider_crank.json")));
    const engine::SceneSpec before = *window.scene();
    ASSERT_EQ(before.parts[1].name, "crank");
    select(before.parts[1].id);
    window.manipulation()->setMode(GizmoMode::Rotate);
    window.manipulation()->setSuspendMotions(false);
    settle();
    ViewportWidget* view = window.viewport();
    ASSERT_TRUE(view->gizmoVisible());
    const int undoBefore = window.undoStack()->count();
    const GizmoHandle ring{GizmoMode::Rotate, 1};
    auto drag = [&] {
        std::vector<QPoint> path;
        for (int k = 0; k <= 20; ++k) path.push_back(at(ring, 0.125 + k / 360.0));
        QTest::mousePress(view, Qt::LeftButton, {}, path.front());
        for (std::size_t k = 1; k < path.size(); ++k) moveTo(path[k]);
        QTest::mouseRelease(view, Qt::LeftButton, {}, path.back());
    };
    drag();
    const QString said = window.messages()->item(window.messages()->count() - 1)->text();
    EXPECT_TRUE(said.startsWith("Nothing moved")) << said.toStdString();
    EXPECT_TRUE(said.contains("motor")) << said.toStdString();
    EXPECT_FALSE(said.contains("Turned"));
    EXPECT_EQ(window.undoStack()->count(), undoBefore) << "nothing moved, nothing to undo";

    window.manipulation()->setSuspendMotions(true);
    settle();
    drag();
    ASSERT_EQ(window.undoStack()->count(), undoBefore + 1);
    const double turned = window.scene()->parts[1].X_WP.R.angularDistance(before.parts[1].X_WP.R);
    EXPECT_GT(engine::radToDeg(turned), 10.0);
    EXPECT_EQ(window.scene()->motions.size(), 1u) << "the motor is only suspended while dragging";
}

// The manipulator edits the design pose: it leaves while a recorded run is shown and comes back
// with Reset; the ground has none.
TEST_F(ManipulationTest, NoManipulatorOnARecordedRunOrOnTheGround) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    select(window.scene()->parts[0].id);
    EXPECT_FALSE(window.viewport()->gizmoVisible());
    select(window.scene()->parts[2].id);
    EXPECT_TRUE(window.viewport()->gizmoVisible());
    window.session()->runTo(0.05);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !window.viewport()->gizmoVisible(); }, 20000));
    test::answerModal(&window, QStringLiteral("DiscardRunQuestion"), QStringLiteral("Discard Run"));
    window.runs()->resetRun();
    ASSERT_TRUE(QTest::qWaitFor([&] { return window.viewport()->gizmoVisible(); }, 20000));
}

// A drag whose assembly is slower than the limit goes on on a worker thread (here: after the
// first event): the view keeps drawing closed poses, and the drag ends where the pointer left it.
TEST_F(ManipulationTest, SlowAssembliesMoveToAWorkerAndTheDragEndsWhereThePointerLeftIt) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    const engine::SceneSpec before = *window.scene();
    select(before.parts[1].id);
    window.manipulation()->setMode(GizmoMode::Rotate);
    window.manipulation()->setAsyncAfter(0.0);
    settle();
    ViewportWidget* view = window.viewport();
    const GizmoHandle ring{GizmoMode::Rotate, 1};
    std::vector<QPoint> path;
    for (int k = 0; k <= 40; ++k) path.push_back(at(ring, 0.125 + k / 540.0));
    const int undo = window.undoStack()->count();
    QTest::mousePress(view, Qt::LeftButton, {}, path.front());
    for (std::size_t k = 1; k < path.size(); ++k) {
        moveTo(path[k]);
        QTest::qWait(1);  // answers from the worker are shown as they come
        ASSERT_LT(drawnJointGap(before, *view), 1e-10) << "after move " << k;
    }
    QTest::mouseRelease(view, Qt::LeftButton, {}, path.back());
    window.manipulation()->setAsyncAfter(1.0 / 60.0);
    EXPECT_GT(window.manipulation()->figures().workerSolves, 0);
    ASSERT_EQ(window.undoStack()->count(), undo + 1);
    const engine::SceneSpec& after = *window.scene();
    const Vec3 before_x = before.parts[1].X_WP.R * Vec3::UnitX(),
               after_x = after.parts[1].X_WP.R * Vec3::UnitX();
    EXPECT_NEAR(engine::radToDeg(std::acos(std::clamp(before_x.dot(after_x), -1.0, 1.0))),
                360.0 * 40 / 540, 2.0);
    QTest::qWait(20);  // a late answer of the worker changes nothing now
    EXPECT_EQ(window.scene()->parts[2].X_WP.p, after.parts[2].X_WP.p);
    EXPECT_LT(drawnJointGap(before, *view), 1e-10);
}

// A marker dragged moves on its part; the part stays, and the joint on the marker closes again
// by moving the parts on its other side.
TEST_F(ManipulationTest, AMarkerDraggedMovesOnItsPartAndItsJointClosesAgain) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    const engine::SceneSpec before = *window.scene();
    const engine::Part& crank = before.parts[1];
    const engine::Marker& pin = crank.markers[1];  // B, where the coupler is pinned
    ASSERT_EQ(pin.name, "B");
    select(pin.id);
    settle();
    ViewportWidget* view = window.viewport();
    ASSERT_TRUE(view->gizmoVisible());
    const GizmoHandle xArrow{GizmoMode::Translate, 0};
    QTest::mousePress(view, Qt::LeftButton, {}, at(xArrow, 0.6));
    QTest::keyClicks(view, QStringLiteral("10"));
    QTest::keyClick(view, Qt::Key_Return);
    QTest::mouseRelease(view, Qt::LeftButton, {}, at(xArrow, 0.6));
    const engine::SceneSpec& after = *window.scene();
    // The crank stayed; B moved 10 mm along world x, on the crank.
    EXPECT_LT((after.parts[1].X_WP.p - crank.X_WP.p).norm(), 1e-7);
    const Vec3 B0 = crank.X_WP * pin.X_PM.p,
               B1 = after.parts[1].X_WP * after.parts[1].markers[1].X_PM.p;
    EXPECT_LT((B1 - B0 - Vec3(0.01, 0.0, 0.0)).norm(), 1e-7);
    // Every joint closed again in the edited scene (the coupler and rocker moved).
    EXPECT_LT(drawnJointGap(after, *view), 1e-9);
    EXPECT_GT((after.parts[2].X_WP.p - before.parts[2].X_WP.p).norm(), 1e-3);
}

}  // namespace
}  // namespace ui
