// Building mechanisms in the window as a user does: the toolbar's tools and clicks in the 3D
// view at the points where the parts are drawn. Nothing here edits the scene directly.

#include <cmath>
#include <filesystem>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QUndoStack>

#include <gtest/gtest.h>

#include "engine/io/scene_json.h"
#include "engine/model/construct.h"
#include "engine/model/mass_properties.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "tests/ui/support/window_test.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/build_tools.h"
#include "ui/mainwindow/dof_status.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/messages_panel.h"
#include "ui/mainwindow/scene_tree_panel.h"
#include "ui/properties/expression_editor.h"
#include "ui/properties/properties_panel.h"
#include "ui/session/simulation_session.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {
namespace {

using engine::Vec3;

using test::drawn;

// Screenshots of the stages, for the README walkthrough, when MOTUS_SCREENSHOT_DIR is set.
void shot(MainWindow& window, const char* name) {
    if (!qEnvironmentVariableIsSet("MOTUS_SCREENSHOT_DIR")) return;
    drawn(window.viewport(), 3);
    QTest::qWait(150);
    window.grab().save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") + QLatin1Char('/') +
                       QLatin1String(name) + ".png");
}

class BuildMechanismTest : public ::testing::Test {
protected:
    void SetUp() override {
        QSettings().remove(QStringLiteral("recentFiles"));
        window.resize(1280, 800);
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
        window.files()->newScene();
        drawn(window.viewport());
    }

    // One user action: a menu or toolbar entry.
    void trigger(const char* action) {
        QAction* a = window.findChild<QAction*>(QLatin1String(action));
        ASSERT_TRUE(a) << action;
        a->trigger();
        ++actions;
    }
    // One click in the view at a world point, with the keyboard modifiers held.
    void clickWorld(const Vec3& p_W, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
        ViewportWidget* view = window.viewport();
        drawn(view);
        const QPointF at = view->project(p_W.x(), p_W.y(), p_W.z());
        ASSERT_TRUE(view->rect().contains(at.toPoint())) << "off screen: " << p_W.transpose();
        QTest::mouseClick(view, Qt::LeftButton, modifiers, at.toPoint());
        ++actions;
    }
    // A click on a point given in a part's frame, where that part is now.
    void clickOn(const std::string& part, const Vec3& p_P,
                 Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
        const engine::Part* p = window.scene()->findPart(part);
        ASSERT_TRUE(p) << part;
        clickWorld(p->X_WP * p_P, modifiers);
    }
    const engine::Part& part(const std::string& name) {
        const engine::Part* p = window.scene()->findPart(name);
        EXPECT_TRUE(p) << name;
        return *p;
    }
    const engine::Joint* joint(engine::JointType type, int nth = 0) {
        for (const engine::Joint& j : window.scene()->joints)
            if (j.type == type && nth-- == 0) return &j;
        return nullptr;
    }
    Vec3 markerWorld(const engine::MarkerRef& ref) {
        return window.scene()->findPart(ref.part)->X_WP * window.scene()->findMarker(ref)->X_PM.p;
    }
    bool waitForRun(double t) {
        return QTest::qWaitFor(
            [&] {
                const auto snap = window.session()->snapshot();
                return snap && snap->mode == engine::RunMode::Paused &&
                       (snap->time >= t - 1e-9 || !snap->error.empty());
            },
            60000);
    }

    MainWindow window;
    int actions = 0;
};

// Answers the next "Save changes?" question with `button`.
void answerSaveChanges(QMessageBox::StandardButton button, bool* asked) {
    QTimer::singleShot(0, [button, asked] {
        ASSERT_TRUE(QTest::qWaitFor(
            [] { return qobject_cast<QMessageBox*>(QApplication::activeModalWidget()); }, 5000));
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        EXPECT_EQ(box->objectName(), "SaveChangesDialog");
        if (asked) *asked = true;
        box->button(button)->click();
    });
}

TEST_F(BuildMechanismTest, APendulumThenASliderCrankFromAnEmptySceneMatchTheClosedForm) {
    const QTemporaryDir dir;
    // --- A pendulum: a box on a hinge to the ground, two tools and three clicks.
    trigger("CreatePart_box");
    clickWorld(Vec3(0.0, 0.0, 0.5));
    ASSERT_EQ(window.scene()->parts.size(), 2u);
    const std::string box = window.scene()->parts[1].name;
    EXPECT_EQ(box, "box1");
    EXPECT_NEAR(part(box).X_WP.p.z(), 0.5, 0.01);
    trigger("CreateJoint_revolute");
    clickOn(box, Vec3(-0.08, -0.02, 0.0));  // on the front face, near the left end
    clickWorld(Vec3(-0.3, 0.0, 0.75));      // empty space: the ground
    const engine::Joint* hinge = joint(engine::JointType::Revolute);
    ASSERT_TRUE(hinge);
    EXPECT_EQ(hinge->markerJ.part, "ground");
    // The hinge is where the user clicked, its axis along the face normal (−y).
    const Vec3 pivot = markerWorld(hinge->markerI);
    EXPECT_NEAR(pivot.x(), part(box).X_WP.p.x() - 0.08, 0.005);
    EXPECT_NEAR(pivot.y(), -0.02, 1e-9);
    const engine::Marker* mi = window.scene()->findMarker(hinge->markerI);
    EXPECT_NEAR((part(box).X_WP.R * mi->X_PM.R * Vec3::UnitZ()).dot(-Vec3::UnitY()), 1.0, 1e-12);
    EXPECT_EQ((markerWorld(hinge->markerJ) - pivot).norm(), 0.0);
    EXPECT_EQ(window.degreesOfFreedom()->text(), "DOF 1 · Grübler 1");
    // It swings about the hinge: after 0.3 s the box has fallen and its centre of mass is
    // still as far from the pivot as at the start.
    const double arm = (part(box).X_WP.p - pivot).norm();
    window.session()->runTo(0.3);
    ASSERT_TRUE(waitForRun(0.3));
    const auto pendulum = window.session()->snapshot();
    EXPECT_LT(pendulum->partPoses[1].p.z(), 0.5 - 0.02);
    EXPECT_NEAR((pendulum->partPoses[1].p - pivot).norm(), arm, 1e-9);

    // --- File ▸ New asks about the unsaved pendulum; Discard.
    bool asked = false;
    answerSaveChanges(QMessageBox::Discard, &asked);
    trigger("FileNew");
    EXPECT_TRUE(asked);
    ASSERT_EQ(window.scene()->parts.size(), 1u);
    const std::string empty = [&] {
        std::string error;
        const QString path = dir.filePath("empty.json");
        EXPECT_TRUE(window.files()->saveSceneAs(path));
        QFile f(path);
        f.open(QIODevice::ReadOnly);
        return f.readAll().toStdString();
    }();
    EXPECT_FALSE(window.document()->isModified());
    actions = 0;  // the walkthrough counts from the empty scene

    // --- A slider-crank: three links placed in the front view...
    trigger("CreatePart_box");
    clickWorld(Vec3(-0.3, 0.0, 0.4));
    clickWorld(Vec3(0.0, 0.0, 0.4));
    clickWorld(Vec3(0.3, 0.0, 0.4));
    ASSERT_EQ(window.scene()->parts.size(), 4u);
    const std::string crank = "box1", rod = "box2", slider = "box3";
    shot(window, "walkthrough-1-parts");
    // ... pinned: the crank to the ground, the rod to the crank, the slider to the rod. Each
    // pin moves the part clicked second so the pin closes.
    trigger("CreateJoint_revolute");
    clickOn(crank, Vec3(-0.05, -0.02, 0.0));
    clickWorld(Vec3(-0.35, 0.0, 0.75));
    clickOn(crank, Vec3(0.07, -0.02, 0.0));
    clickOn(rod, Vec3(-0.08, -0.02, 0.0));
    clickOn(rod, Vec3(0.08, -0.02, 0.0));
    clickOn(slider, Vec3(-0.08, -0.02, 0.0));
    ASSERT_EQ(window.scene()->joints.size(), 3u);
    shot(window, "walkthrough-2-pins");
    // The slider runs along x on the ground: Shift snaps the click to the slider's lower front
    // edge, whose direction (x) becomes the prismatic joint's axis.
    trigger("CreateJoint_prismatic");
    clickOn(slider, Vec3(0.01, -0.02, -0.015), Qt::ShiftModifier);
    clickWorld(Vec3(0.4, 0.0, 0.75));
    const engine::Joint* guide = joint(engine::JointType::Prismatic);
    ASSERT_TRUE(guide);
    const engine::Marker* guideMarker = window.scene()->findMarker(guide->markerI);
    const Vec3 axis = part(slider).X_WP.R * guideMarker->X_PM.R * Vec3::UnitZ();
    EXPECT_NEAR(std::abs(axis.x()), 1.0, 1e-12);
    EXPECT_NEAR(guideMarker->X_PM.p.y(), -0.02, 1e-12);  // snapped onto the edge
    EXPECT_NEAR(guideMarker->X_PM.p.z(), -0.02, 1e-12);
    // Planar loop of spatial joints: 1 DOF, three redundant equations, said in the status bar.
    EXPECT_EQ(window.degreesOfFreedom()->text(), "DOF 1 · Grübler -2 · 3 redundant");
    EXPECT_TRUE(window.degreesOfFreedom()->explanation().contains("planar"))
        << window.degreesOfFreedom()->explanation().toStdString();
    // Clicking the readout explains it.
    {
        bool explained = false;
        QTimer::singleShot(0, [&] {
            ASSERT_TRUE(
                QTest::qWaitFor([] { return QApplication::activeModalWidget() != nullptr; }, 5000));
            QWidget* box = QApplication::activeModalWidget();
            auto* text = box->findChild<QTextBrowser*>();
            explained = box->objectName() == "DegreesOfFreedomDialog" && text &&
                        text->toPlainText().contains("planar loop");
            if (qEnvironmentVariableIsSet("MOTUS_SCREENSHOT_DIR")) {
                QTest::qWait(100);
                box->grab().save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") +
                                 "/walkthrough-dof.png");
            }
            box->close();
        });
        auto* readout = window.findChild<QToolButton*>("DegreesOfFreedom");
        ASSERT_TRUE(readout);
        QTest::mouseClick(readout, Qt::LeftButton);
        EXPECT_TRUE(explained);
    }

    // A motor on the crank's pivot: Motion, then a click on the pivot's glyph.
    const engine::Joint* pivotJoint = joint(engine::JointType::Revolute, 0);
    const std::string pivotName = pivotJoint->name;
    trigger("CreateMotion");
    clickWorld(markerWorld(pivotJoint->markerI));
    ASSERT_EQ(window.scene()->motions.size(), 1u);
    EXPECT_EQ(window.scene()->motions[0].joint, pivotName);
    EXPECT_EQ(window.scene()->motions[0].expression, "360d*time");
    EXPECT_EQ(window.degreesOfFreedom()->text(), "DOF 0 · Grübler -3 · 3 redundant");
    shot(window, "walkthrough-3-motor");

    // Saved now and after undoing everything and redoing it: the same file, byte for byte.
    const QString built = dir.filePath("built.json"), redone = dir.filePath("redone.json"),
                  undone = dir.filePath("undone.json");
    ASSERT_TRUE(window.files()->saveSceneAs(built));
    QUndoStack* undo = window.undoStack();
    const int steps = undo->index();
    EXPECT_EQ(steps, 8);  // three parts, four joints (each with its assembly), one motion
    while (undo->canUndo()) undo->undo();
    ASSERT_TRUE(window.files()->saveSceneAs(undone));
    while (undo->canRedo()) undo->redo();
    ASSERT_TRUE(window.files()->saveSceneAs(redone));
    auto bytes = [](const QString& path) {
        QFile f(path);
        f.open(QIODevice::ReadOnly);
        return f.readAll().toStdString();
    };
    EXPECT_EQ(bytes(undone), empty);
    EXPECT_EQ(bytes(redone), bytes(built));

    // Run one revolution and compare the slider with the closed form
    //   x_B(φ) = r cos φ + sqrt(L² − (r sin φ − e)²)
    // in the plane of the mechanism (x along the guide, z up), measured from the crank pivot O,
    // with r = |OA|, L = |AB| from the markers the clicks made, e the height of the guide line
    // through B above O, and φ the crank angle: from the crank's recorded pose (the relation
    // holds to the joints' closure), and itself 2πt from the start by the motion.
    const Vec3 O = markerWorld(pivotJoint->markerI);
    const engine::Joint* pinA = joint(engine::JointType::Revolute, 1);
    const engine::Joint* pinB = joint(engine::JointType::Revolute, 2);
    const Vec3 A = markerWorld(pinA->markerI), B = markerWorld(pinB->markerI),
               C = part(crank).X_WP.p;
    const double r = (A - O).norm(), L = (B - A).norm(), e = (B - O).z();
    EXPECT_NEAR(r, 0.12, 0.01);
    EXPECT_NEAR(L, 0.16, 0.01);
    EXPECT_EQ(A.y(), O.y());  // a planar mechanism, drawn in the xz plane
    auto angle = [](const Vec3& v) { return std::atan2(v.z(), v.x()); };
    const double armOffset = angle(A - O) - angle(C - O);  // OA and OC turn together
    const double sliderOffset = part(slider).X_WP.p.x() - B.x();
    window.session()->runTo(1.0);  // Space (play) in the walkthrough
    ++actions;
    ASSERT_TRUE(waitForRun(1.0));
    const engine::Recording* recording = window.session()->recording();
    ASSERT_TRUE(recording);
    ASSERT_EQ(window.session()->snapshot()->error, "");
    auto series = [&](const std::string& channel) {
        std::vector<double> times, values;
        recording->series(recording->layout().findChannel(channel), 0, recording->size(), 1, times,
                          values);
        return std::make_pair(times, values);
    };
    const auto [times, xs] = series(slider + ".x");
    const auto cx = series(crank + ".x").second, cz = series(crank + ".z").second;
    ASSERT_GT(times.size(), 100u);
    double worstClosedForm = 0.0, worstDrive = 0.0, turn = 0.0, last = 0.0;
    for (std::size_t k = 0; k < times.size(); ++k) {
        const Vec3 Ck(cx[k], O.y(), cz[k]);
        const double phiC = angle(Ck - O);
        const double phi = phiC + armOffset;
        const double xB = r * std::cos(phi) + std::sqrt(L * L - std::pow(r * std::sin(phi) - e, 2));
        worstClosedForm = std::max(worstClosedForm, std::abs(xs[k] - (O.x() + xB + sliderOffset)));
        // The crank turns 2π t (unwrapped), in the sense the pivot's axis gives.
        if (k > 0) turn += std::remainder(phiC - last, 2.0 * engine::kPi);
        last = phiC;
        worstDrive = std::max(worstDrive, std::abs(std::abs(turn) - 2.0 * engine::kPi * times[k]));
    }
    EXPECT_LT(worstClosedForm, 1e-8) << "slider position against the closed-form slider-crank";
    EXPECT_LT(worstDrive, 1e-6) << "crank angle against the motion 360°/s";
    EXPECT_NEAR(std::abs(turn), 2.0 * engine::kPi, 1e-6);

    // The crank-pin reaction, plotted from the tree's menu (two more actions in the README).
    EXPECT_TRUE(window.sceneTree()->plotReactionForce(QString::fromStdString(pinA->name)));
    shot(window, "walkthrough-4-plot");
    actions += 2;
    EXPECT_LT(actions, 20) << "actions from the empty scene to the plot";
}

TEST_F(BuildMechanismTest, UnsavedEditsAskBeforeNewOpenAndQuit) {
    trigger("CreatePart_sphere");
    clickWorld(Vec3(0.0, 0.0, 0.3));
    ASSERT_EQ(window.scene()->parts.size(), 2u);
    EXPECT_TRUE(window.document()->isModified());
    EXPECT_TRUE(window.windowTitle().startsWith("Untitled*")) << window.windowTitle().toStdString();

    // Cancel keeps everything as it was.
    bool asked = false;
    answerSaveChanges(QMessageBox::Cancel, &asked);
    trigger("FileNew");
    EXPECT_TRUE(asked);
    EXPECT_EQ(window.scene()->parts.size(), 2u);
    EXPECT_TRUE(window.document()->isModified());
    asked = false;
    answerSaveChanges(QMessageBox::Cancel, &asked);
    trigger("FileOpen");  // asks before the file dialog
    EXPECT_TRUE(asked);
    EXPECT_EQ(window.scene()->parts.size(), 2u);
    asked = false;
    answerSaveChanges(QMessageBox::Cancel, &asked);
    window.close();
    EXPECT_TRUE(asked);
    EXPECT_TRUE(window.isVisible());
    EXPECT_EQ(window.scene()->parts.size(), 2u);

    // Save As: the title names the file, the star goes, the recent list has it.
    const QTemporaryDir dir;
    const QString path = dir.filePath("ball.json");
    ASSERT_TRUE(window.files()->saveSceneAs(path));
    EXPECT_EQ(window.windowTitle(), QString::fromUtf8("ball.json — Motus"));
    EXPECT_TRUE(QSettings()
                    .value("recentFiles")
                    .toStringList()
                    .contains(QFileInfo(path).absoluteFilePath()));
    // No question once saved; an edit brings the star (and the question) back.
    asked = false;
    trigger("FileNew");
    EXPECT_FALSE(asked);
    ASSERT_TRUE(window.files()->openScene(path));
    trigger("CreatePart_cone");
    clickOn("sphere1", Vec3::Zero());  // on the ball: the cone sits on its surface
    ASSERT_EQ(window.scene()->parts.size(), 3u);
    const engine::Part& ball = window.scene()->parts[1];
    const engine::Part& cone = window.scene()->parts[2];
    // Resting on the ball where the click hit it: the cone's support towards the ball reaches
    // the ball's surface (to its drawn facets, 2 mm).
    const Vec3 n = (cone.X_WP.p - ball.X_WP.p).normalized();
    EXPECT_NEAR((cone.X_WP.p - ball.X_WP.p).dot(n) - engine::supportDistance(cone, -n), 0.04, 2e-3);
    EXPECT_TRUE(window.windowTitle().startsWith("ball.json*"));
    // Undoing back to the file clears the star.
    window.undoStack()->undo();
    EXPECT_FALSE(window.document()->isModified());
    window.undoStack()->redo();
    // Discard loses the edit and quits.
    answerSaveChanges(QMessageBox::Discard, &asked);
    window.close();
    EXPECT_FALSE(window.isVisible());
}

TEST_F(BuildMechanismTest, BadEditsAreRefusedBesideTheFieldAndNothingIsLost) {
    trigger("CreatePart_box");
    clickWorld(Vec3(0.0, 0.0, 0.5));
    const engine::EntityId box = window.tools()->lastCreated();
    PropertiesPanel* panel = window.properties();
    ASSERT_EQ(panel->entity(), box);
    const int steps = window.undoStack()->count();
    auto type = [&](const QString& label, int component, const QString& text) {
        auto* edit = qobject_cast<QLineEdit*>(panel->editor(label, component));
        ASSERT_TRUE(edit) << label.toStdString();
        edit->setText(text);
        panel->commit(label);
    };
    // A zero dimension, a negative density.
    type("Shape 1 size", 1, "0");
    EXPECT_TRUE(panel->message("Shape 1 size").contains("positive"))
        << panel->message("Shape 1 size").toStdString();
    type("Density", 0, "-7800");
    EXPECT_TRUE(panel->message("Density").contains("positive"))
        << panel->message("Density").toStdString();
    EXPECT_EQ(window.undoStack()->count(), steps);
    EXPECT_EQ(window.scene()->parts[1].shapes[0].size.y(), 0.04);

    // A joint between two markers of one part.
    trigger("CreateMarker");
    clickOn("box1", Vec3(-0.05, -0.02, 0.0));
    clickOn("box1", Vec3(0.05, -0.02, 0.0));
    ASSERT_EQ(window.scene()->parts[1].markers.size(), 2u);
    trigger("CreateJoint_revolute");
    clickOn("box1", Vec3(0.0, -0.02, 0.0));
    clickWorld(Vec3(0.35, 0.0, 0.75));
    const engine::EntityId hinge = window.tools()->lastCreated();
    trigger("ToolSelect");
    window.properties()->showEntity(window.scene(), hinge);
    auto* markerJ = qobject_cast<QComboBox*>(panel->editor("Marker J"));
    ASSERT_TRUE(markerJ);
    const int before = window.undoStack()->count();
    markerJ->setCurrentText("box1.m1");
    panel->commit("Marker J");
    EXPECT_TRUE(panel->message("Marker J").contains("same part"))
        << panel->message("Marker J").toStdString();
    EXPECT_EQ(window.undoStack()->count(), before);

    // A motion whose expression does not parse: refused, the old one kept.
    trigger("CreateMotion");
    clickWorld(markerWorld(window.scene()->joints.back().markerI));
    ASSERT_EQ(window.scene()->motions.size(), 1u);
    window.properties()->showEntity(window.scene(), window.scene()->motions[0].id);
    auto* expression = qobject_cast<ExpressionEditor*>(panel->editor("Expression"));
    ASSERT_TRUE(expression);
    expression->lineEdit()->setFocus();
    expression->lineEdit()->selectAll();
    QTest::keyClicks(expression->lineEdit(), "2*tme");
    QTest::keyClick(expression->lineEdit(), Qt::Key_Return);
    EXPECT_FALSE(expression->isValid());
    EXPECT_TRUE(expression->error().contains("tme"));
    EXPECT_EQ(window.scene()->motions[0].expression, "360d*time");
    // A valid one goes through.
    expression->lineEdit()->selectAll();
    QTest::keyClicks(expression->lineEdit(), "180d*time");
    QTest::keyClick(expression->lineEdit(), Qt::Key_Return);
    EXPECT_EQ(window.scene()->motions[0].expression, "180d*time");
}

TEST_F(BuildMechanismTest, EveryKindOfEntityIsMadeFromTheToolsAndTheSceneRuns) {
    // The palette: each primitive, placed in a row; mass from steel's density and the volume.
    const std::pair<const char*, double> palette[] = {
        {"CreatePart_box", 0.2 * 0.04 * 0.04},
        {"CreatePart_sphere", 4.0 / 3.0 * engine::kPi * std::pow(0.04, 3)},
        {"CreatePart_cylinder", engine::kPi * 0.02 * 0.02 * 0.2},
        {"CreatePart_capsule",
         engine::kPi * 0.02 * 0.02 * 0.2 + 4.0 / 3.0 * engine::kPi * std::pow(0.02, 3)},
        {"CreatePart_cone", engine::kPi * 0.04 * 0.04 * 0.1 / 3.0},
    };
    double x = -0.45;
    for (const auto& [action, volume] : palette) {
        trigger(action);
        clickWorld(Vec3(x, 0.0, 0.45));
        x += 0.22;
        const engine::Part& made = window.scene()->parts.back();
        EXPECT_NEAR(engine::partMassProperties(made).mass, 7850.0 * volume, 1e-9 * 7850.0 * volume)
            << action;
    }
    ASSERT_EQ(window.scene()->parts.size(), 6u);
    // A part from a mesh file (an OBJ in the repository).
    window.tools()->placeMesh(QStringLiteral(MOTUS_SOURCE_DIR "/tests/engine/io/data/box.obj"));
    clickWorld(Vec3(0.0, 0.0, 0.1));
    ASSERT_EQ(window.scene()->parts.size(), 7u);
    EXPECT_EQ(window.scene()->parts.back().shapes[0].type, engine::ShapeType::Mesh);
    EXPECT_TRUE(window.scene()->parts.back().shapes[0].mesh);
    // Saved, the mesh is named relative to the scene file, and the scene reopens with it.
    {
        const QTemporaryDir dir;
        const QString path = dir.filePath("with_mesh.json");
        std::string error;
        ASSERT_TRUE(window.document()->save(path, error)) << error;
        const engine::io::SceneLoadResult reread = engine::io::loadSceneFile(path.toStdString());
        ASSERT_TRUE(reread.scene);
        const engine::Shape& mesh = reread.scene->parts.back().shapes[0];
        EXPECT_FALSE(std::filesystem::path(mesh.meshFile).is_absolute()) << mesh.meshFile;
        EXPECT_TRUE(mesh.mesh);
    }

    // Markers: on the box's front face (z along the outward normal −y), and Shift-snapped to
    // the middle of its top front edge (z along the edge, x).
    trigger("CreateMarker");
    clickOn("box1", Vec3(0.05, -0.02, 0.005));
    clickOn("box1", Vec3(0.004, -0.018, 0.019), Qt::ShiftModifier);
    const engine::Part& box = part("box1");
    ASSERT_EQ(box.markers.size(), 2u);
    EXPECT_NEAR((box.markers[0].X_PM.R * Vec3::UnitZ() - Vec3(0, -1, 0)).norm(), 0.0, 1e-12);
    EXPECT_NEAR(box.markers[0].X_PM.p.y(), -0.02, 1e-12);
    EXPECT_NEAR((box.markers[1].X_PM.p - Vec3(0.0, -0.02, 0.02)).norm(), 0.0, 1e-12);
    EXPECT_NEAR(std::abs((box.markers[1].X_PM.R * Vec3::UnitZ()).x()), 1.0, 1e-12);

    // Force elements between two points, at one point, and a contact pair.
    trigger("CreateForce_springDamper");
    clickOn("box1", Vec3(0.09, -0.02, 0.0));
    clickOn("sphere1", Vec3(0.0, -0.04, 0.0));
    trigger("CreateForce_bushing");
    clickOn("cylinder1", Vec3(0.0, -0.02, 0.0));
    clickOn("capsule1", Vec3(0.0, -0.02, 0.0));
    trigger("CreateForce_pointForce");
    clickOn("cone1", Vec3(0.0, -0.03, 0.0));
    trigger("CreateForce_pointTorque");
    clickOn("sphere1", Vec3(0.0, -0.04, 0.0));
    trigger("CreateContactPair");
    clickOn("box1", Vec3(-0.05, -0.02, 0.0));
    clickOn("sphere1", Vec3(0.02, -0.03, 0.0));
    const auto& forces = window.scene()->forces;
    ASSERT_EQ(forces.size(), 4u);
    EXPECT_EQ(forces[0].type, engine::ForceType::SpringDamper);
    EXPECT_EQ(forces[0].markerI.part, "box1");
    EXPECT_EQ(forces[0].markerJ.part, "sphere1");
    // Made at rest: the spring's free length is the distance between its ends.
    EXPECT_NEAR(forces[0].freeLength,
                (markerWorld(forces[0].markerI) - markerWorld(forces[0].markerJ)).norm(), 1e-12);
    EXPECT_EQ(forces[1].type, engine::ForceType::Bushing);
    EXPECT_EQ(forces[2].type, engine::ForceType::PointForce);
    EXPECT_EQ(forces[2].markerI.part, "cone1");
    EXPECT_EQ(forces[3].type, engine::ForceType::PointTorque);
    ASSERT_EQ(window.scene()->contact.pairs.size(), 1u);
    EXPECT_TRUE(window.scene()->contact.enabled);  // a contact pair switches contact on
    EXPECT_EQ(window.scene()->settings.integrator, engine::IntegratorType::TimeStepping);

    // On a joint: a hinge, then the selected joint gets a rotational spring and a controller.
    trigger("CreateJoint_revolute");
    clickOn("cylinder1", Vec3(0.0, -0.02, 0.05));
    clickWorld(Vec3(-0.01, 0.0, 0.75));
    const engine::EntityId hinge = window.tools()->lastCreated();
    EXPECT_EQ(window.properties()->entity(), hinge);  // a new entity is shown for editing
    // A joint the user selects takes a rotational spring at once; a controller asks for its
    // joint, clicked in the view.
    trigger("ToolSelect");
    clickWorld(markerWorld(window.scene()->joints.back().markerI));
    EXPECT_EQ(window.properties()->entity(), hinge);
    trigger("CreateForce_rotationalSpringDamper");
    trigger("CreateForce_jointController");
    clickWorld(markerWorld(window.scene()->joints.back().markerI));
    ASSERT_EQ(forces.size(), 6u);
    EXPECT_EQ(forces[4].type, engine::ForceType::RotationalSpringDamper);
    EXPECT_EQ(forces[5].type, engine::ForceType::JointController);
    EXPECT_EQ(forces[4].joint, "revolute1");
    // The capsule fixed to the ground: select it, then Fix to Ground.
    trigger("ToolSelect");
    clickOn("capsule1", Vec3(0.0, -0.02, 0.06));
    trigger("FixToGround");
    const engine::Joint& weld = window.scene()->joints.back();
    EXPECT_EQ(weld.type, engine::JointType::Fixed);
    EXPECT_EQ(weld.markerI.part, "capsule1");
    EXPECT_EQ((markerWorld(weld.markerI) - markerWorld(weld.markerJ)).norm(), 0.0);

    // Every creation was one undo step, and the scene is valid and runs.
    EXPECT_EQ(window.undoStack()->count(), 5 + 1 + 2 + 5 + 1 + 2 + 1);
    for (const engine::Diagnostic& d : engine::validate(*window.scene()))
        EXPECT_NE(d.severity, engine::Severity::Error) << d.where << ": " << d.message;
    window.viewport()->setStandardView(ViewportWidget::StandardView::Isometric);
    shot(window, "every-kind");
    window.session()->runTo(0.05);
    ASSERT_TRUE(waitForRun(0.05));
    EXPECT_EQ(window.session()->snapshot()->error, "");
}

TEST_F(BuildMechanismTest, APartsShapesMassAndMarkersAreEditedInProperties) {
    trigger("CreatePart_box");
    clickWorld(Vec3(0.0, 0.0, 0.4));
    PropertiesPanel* panel = window.properties();
    auto type = [&](const QString& label, int component, const QString& text) {
        auto* edit = qobject_cast<QLineEdit*>(panel->editor(label, component));
        ASSERT_TRUE(edit) << label.toStdString();
        edit->setText(text);
        panel->commit(label);
        EXPECT_EQ(panel->message(label), "") << label.toStdString();
    };
    // Dimensions follow into the mass: a 0.3 m long bar of steel.
    type("Shape 1 size", 0, "0.3");
    EXPECT_NEAR(engine::partMassProperties(window.scene()->parts[1]).mass, 7850 * 0.3 * 0.04 * 0.04,
                1e-12);
    // A second shape: a sphere at the end, moved there; the centre of mass moves towards it.
    ASSERT_TRUE(panel->press("Add shape"));
    ASSERT_EQ(window.scene()->parts[1].shapes.size(), 2u);
    auto* shapeType = qobject_cast<QComboBox*>(panel->editor("Shape 2 type"));
    ASSERT_TRUE(shapeType);
    shapeType->setCurrentText("sphere");
    panel->commit("Shape 2 type");
    type("Shape 2 position", 0, "0.15");
    const engine::MassProperties both = engine::partMassProperties(window.scene()->parts[1]);
    EXPECT_GT(both.p_PPcm.x(), 0.0);
    // Typed-in mass properties override the geometry, starting from its values ...
    auto* mode = qobject_cast<QComboBox*>(panel->editor("Mass properties"));
    ASSERT_TRUE(mode);
    mode->setCurrentIndex(1);
    panel->commit("Mass properties");
    EXPECT_FALSE(window.scene()->parts[1].density);
    EXPECT_NEAR(window.scene()->parts[1].mass, both.mass, 1e-12);
    type("Mass", 0, "5");
    EXPECT_EQ(window.scene()->parts[1].mass, 5.0);
    // ... and "from geometry" comes back with the density that gives the typed mass.
    mode = qobject_cast<QComboBox*>(panel->editor("Mass properties"));
    mode->setCurrentIndex(0);
    panel->commit("Mass properties");
    ASSERT_TRUE(window.scene()->parts[1].density);
    EXPECT_NEAR(engine::partMassProperties(window.scene()->parts[1]).mass, 5.0, 1e-9);
    // Colour, ground switch.
    type("Colour", 0, "#123456");
    EXPECT_EQ(window.scene()->parts[1].colorRgb, 0x123456u);

    // A marker, placed by typing its world position.
    trigger("CreateMarker");
    clickOn("box1", Vec3(0.0, -0.02, 0.0));
    trigger("ToolSelect");
    const engine::EntityId marker = window.scene()->parts[1].markers[0].id;
    window.properties()->showEntity(window.scene(), marker);
    window.properties()->setMarkerInWorld(true);
    type("Position", 2, "0.5");
    const engine::Transform X_WM = engine::markerWorldPose(*window.scene(), marker);
    EXPECT_NEAR(X_WM.p.z(), 0.5, 1e-12);
    EXPECT_NEAR(window.scene()->parts[1].markers[0].X_PM.p.z(),
                0.5 - window.scene()->parts[1].X_WP.p.z(), 1e-12);

    // A geometry row of the tree shows its part; Delete there removes that shape only.
    QTreeView* tree = window.sceneTree();
    const QModelIndexList rows =
        tree->model()->match(tree->model()->index(0, 0), Qt::DisplayRole, "shape 2", 1,
                             Qt::MatchExactly | Qt::MatchRecursive);
    ASSERT_FALSE(rows.isEmpty());
    tree->selectionModel()->select(rows.front(),
                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    EXPECT_EQ(window.properties()->entity(), window.scene()->parts[1].id);
    window.sceneTree()->deleteSelection();
    EXPECT_EQ(window.scene()->parts[1].shapes.size(), 1u);
    EXPECT_EQ(window.scene()->parts.size(), 2u);
}

TEST_F(BuildMechanismTest, AJointThatCannotCloseIsRefusedWithWhyAndTheSceneIsKept) {
    // Two links hinged to the ground 0.76 m apart reach 0.32 m together: no pin joins them.
    trigger("CreatePart_box");
    clickWorld(Vec3(-0.3, 0.0, 0.4));
    clickWorld(Vec3(0.3, 0.0, 0.4));
    trigger("CreateJoint_revolute");
    clickOn("box1", Vec3(-0.08, -0.02, 0.0));
    clickWorld(Vec3(-0.38, 0.0, 0.7));
    clickOn("box2", Vec3(0.08, -0.02, 0.0));
    clickWorld(Vec3(0.38, 0.0, 0.7));
    ASSERT_EQ(window.scene()->joints.size(), 2u);
    const std::string before = engine::io::sceneToJson(*window.scene());
    const int steps = window.undoStack()->count();
    clickOn("box1", Vec3(0.08, -0.02, 0.0));
    clickOn("box2", Vec3(-0.08, -0.02, 0.0));
    // Refused: the message names the joint and how far apart its markers are; nothing changed.
    EXPECT_EQ(window.scene()->joints.size(), 2u);
    EXPECT_EQ(window.undoStack()->count(), steps);
    EXPECT_EQ(engine::io::sceneToJson(*window.scene()), before);
    const QString last = window.messages()->item(window.messages()->count() - 1)->text();
    EXPECT_TRUE(last.contains("joint 'revolute3' cannot close")) << last.toStdString();
    // 440 mm as placed, to the precision of a click (a pixel is about a millimetre here).
    const QRegularExpressionMatch gap =
        QRegularExpression(QStringLiteral("markers are ([0-9.]+) mm apart")).match(last);
    ASSERT_TRUE(gap.hasMatch()) << last.toStdString();
    EXPECT_NEAR(gap.captured(1).toDouble(), 440.0, 1.5) << last.toStdString();
    EXPECT_TRUE(last.contains("left as it was")) << last.toStdString();
}

TEST_F(BuildMechanismTest, SteppingAValueWithTheArrowKeysIsOneUndoStep) {
    trigger("CreatePart_box");
    clickWorld(Vec3(0.0, 0.0, 0.4));
    PropertiesPanel* panel = window.properties();
    auto* length = qobject_cast<QLineEdit*>(panel->editor("Shape 1 size", 0));
    ASSERT_TRUE(length);
    const int steps = window.undoStack()->count();
    length->setFocus();
    for (int k = 0; k < 5; ++k) QTest::keyClick(length, Qt::Key_Up);
    // The same editor all along (focus kept), each step applied, one undo step for the burst.
    EXPECT_EQ(panel->editor("Shape 1 size", 0), length);
    EXPECT_NEAR(window.scene()->parts[1].shapes[0].size.x(), 0.25, 1e-12);
    EXPECT_EQ(length->text(), "0.25");
    EXPECT_EQ(window.undoStack()->count(), steps + 1);
    QTest::keyClick(length, Qt::Key_Down, Qt::ShiftModifier);  // ten times the step
    EXPECT_NEAR(window.scene()->parts[1].shapes[0].size.x(), 0.15, 1e-12);
    window.undoStack()->undo();
    EXPECT_NEAR(window.scene()->parts[1].shapes[0].size.x(), 0.2, 1e-12);
    EXPECT_EQ(length->text(), "0.2");
}

TEST_F(BuildMechanismTest, AnUndoBetweenTwoPicksStartsTheToolOver) {
    trigger("CreatePart_box");
    clickWorld(Vec3(-0.2, 0.0, 0.4));
    clickWorld(Vec3(0.2, 0.0, 0.4));
    trigger("CreateJoint_revolute");
    clickOn("box2", Vec3(0.0, -0.02, 0.0));  // the first pick is on box2 ...
    window.undoStack()->undo();              // ... which the undo takes away
    ASSERT_EQ(window.scene()->parts.size(), 2u);
    clickOn("box1", Vec3(0.05, -0.02, 0.0));  // a first pick again, not a joint to a lost part
    EXPECT_TRUE(window.scene()->joints.empty());
    clickWorld(Vec3(0.0, 0.0, 0.75));
    ASSERT_EQ(window.scene()->joints.size(), 1u);
    EXPECT_EQ(window.scene()->joints[0].markerI.part, "box1");
    EXPECT_EQ(window.scene()->joints[0].markerJ.part, "ground");
}

TEST_F(BuildMechanismTest, AnEmptySceneRunsNothingMoves) {
    // File ▸ New, then Play: time passes, nothing moves, nothing breaks.
    ASSERT_EQ(window.scene()->parts.size(), 1u);
    window.session()->runTo(1.0);
    ASSERT_TRUE(waitForRun(1.0));
    EXPECT_EQ(window.session()->snapshot()->error, "");
    EXPECT_NEAR(window.session()->snapshot()->time, 1.0, 1e-12);
}

TEST_F(BuildMechanismTest, NewPartsRestOnTheGroundOrOnThePartClicked) {
    window.viewport()->setStandardView(ViewportWidget::StandardView::Isometric);
    trigger("CreatePart_box");
    clickWorld(Vec3(0.1, 0.1, 0.0));  // on the ground plane: the box rests on it
    const engine::Part& box = window.scene()->parts.back();
    EXPECT_NEAR(box.X_WP.p.x(), 0.1, 0.005);
    EXPECT_NEAR(box.X_WP.p.y(), 0.1, 0.005);
    EXPECT_DOUBLE_EQ(box.X_WP.p.z(), 0.02);
    trigger("CreatePart_sphere");
    clickOn(box.name, Vec3(0.03, 0.0, 0.02));  // on the box's top face: the ball sits on it
    const engine::Part& ball = window.scene()->parts.back();
    EXPECT_EQ(ball.name, "sphere1");
    EXPECT_DOUBLE_EQ(ball.X_WP.p.z(), 0.04 + 0.04);
    EXPECT_NEAR(ball.X_WP.p.x(), window.scene()->parts[1].X_WP.p.x() + 0.03, 0.005);
}

// Shift on a bar's end edge places a hinge at the edge's midpoint but keeps the clicked face's
// normal as its axis (the edge's direction, in the mechanism's plane, built a spatially wrong
// linkage); a slide placed the same way takes the edge's direction.
TEST_F(BuildMechanismTest, ShiftSnappedHingesTurnAboutTheFaceNormalSlidesAlongTheEdge) {
    trigger("CreatePart_box");
    clickWorld(Vec3(-0.2, 0.0, 0.4));
    clickWorld(Vec3(0.2, 0.0, 0.4));
    ASSERT_EQ(window.scene()->parts.size(), 3u);
    trigger("CreateJoint_revolute");
    // Near the crank's right end edge on its front face (y = -0.02): the edge at x = +0.1 runs
    // along z.
    clickOn("box1", Vec3(0.097, -0.02, 0.004), Qt::ShiftModifier);
    clickOn("box2", Vec3(-0.097, -0.02, 0.004), Qt::ShiftModifier);
    const engine::Joint* pin = joint(engine::JointType::Revolute);
    ASSERT_TRUE(pin);
    const engine::Marker* m = window.scene()->findMarker(pin->markerI);
    const engine::Part* p = window.scene()->findPart(pin->markerI.part);
    ASSERT_TRUE(m && p);
    const Vec3 axis = p->X_WP.R * m->X_PM.R * Vec3::UnitZ();
    EXPECT_NEAR(std::abs(axis.y()), 1.0, 1e-12) << "the hinge turns about the face normal";
    EXPECT_NEAR(std::abs(m->X_PM.p.x()), 0.1, 1e-12) << "at the edge's midpoint";
    EXPECT_NEAR(m->X_PM.p.z(), 0.0, 1e-12);

    trigger("CreateJoint_prismatic");
    clickOn("box2", Vec3(0.097, -0.02, 0.004), Qt::ShiftModifier);
    clickWorld(Vec3(0.3, 0.0, 0.7));
    const engine::Joint* slide = joint(engine::JointType::Prismatic);
    ASSERT_TRUE(slide);
    const engine::Marker* s = window.scene()->findMarker(slide->markerI);
    const engine::Part* q = window.scene()->findPart(slide->markerI.part);
    ASSERT_TRUE(s && q);
    EXPECT_NEAR(std::abs((q->X_WP.R * s->X_PM.R * Vec3::UnitZ()).z()), 1.0, 1e-12)
        << "the slide runs along the edge";

    // A spring from a part to a point in empty space (the ground): its ground end stays where
    // it was clicked, so it has a length (its free length) and a line of action.
    trigger("CreateForce_springDamper");
    clickOn("box1", Vec3(0.0, -0.02, 0.0));
    clickWorld(Vec3(-0.2, 0.0, 0.8));
    ASSERT_EQ(window.scene()->forces.size(), 1u);
    const engine::ForceSpec& spring = window.scene()->forces[0];
    const Vec3 ground =
        markerWorld(spring.markerJ.part == "ground" ? spring.markerJ : spring.markerI);
    EXPECT_NEAR(ground.z(), 0.8, 2e-3) << "where it was clicked (to a pixel)";
    EXPECT_NEAR(spring.freeLength,
                (markerWorld(spring.markerI) - markerWorld(spring.markerJ)).norm(), 1e-12);
    EXPECT_GT(spring.freeLength, 0.3);
}

}  // namespace
}  // namespace ui
