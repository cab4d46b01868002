// Couplers in the window as a user meets them: the scene tree lists them, the view draws the
// gears' pitch circles where the teeth mesh, Properties edits them, the Create menu makes them
// from two selected joints (or two clicked ones), deleting a joint takes its couplers along,
// and their forces are offered for plotting after a run.

#include <algorithm>
#include <cmath>

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>

#include <gtest/gtest.h>

#include <osg/Geode>

#include "engine/io/scene_json.h"
#include "engine/model/model.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "tests/ui/support/window_test.h"
#include "ui/common/coupler_layout.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/build_tools.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/messages_panel.h"
#include "ui/mainwindow/scene_tree_panel.h"
#include "ui/models/scene_tree.h"
#include "ui/plots/plot_widget.h"
#include "ui/plots/plots_panel.h"
#include "ui/properties/properties_panel.h"
#include "ui/session/simulation_session.h"
#include "ui/viewport/scene_graph.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {
namespace {

using engine::Vec3;

const QString kGearTrain = QStringLiteral(MOTUS_SOURCE_DIR "/scenes/gear_train.json");
const QString kSteering = QStringLiteral(MOTUS_SOURCE_DIR "/scenes/rack_and_pinion_steering.json");

using test::drawn;

class CouplersTest : public ::testing::Test {
protected:
    void SetUp() override {
        window.resize(1280, 800);
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    }
    void open(const QString& scene) {
        ASSERT_TRUE(window.files()->openScene(scene));
        drawn(window.viewport());
    }
    engine::EntityId idOf(const std::string& name) const {
        const engine::SceneSpec& s = *window.scene();
        for (const engine::Joint& j : s.joints)
            if (j.name == name) return j.id;
        for (const engine::CouplerSpec& c : s.couplers)
            if (c.name == name) return c.id;
        return engine::kNoEntity;
    }
    const engine::CouplerSpec* coupler(const std::string& name) const {
        for (const engine::CouplerSpec& c : window.scene()->couplers)
            if (c.name == name) return &c;
        return nullptr;
    }
    // Selects these entities' rows in the tree, in order, as Ctrl+clicks do.
    void select(const std::vector<engine::EntityId>& ids) {
        QTreeView* tree = window.sceneTree();
        tree->clearSelection();
        for (engine::EntityId id : ids) {
            const QModelIndexList rows = tree->model()->match(
                tree->model()->index(0, 0), kEntityIdRole, QVariant::fromValue(quint64(id)), 1,
                Qt::MatchExactly | Qt::MatchRecursive);
            ASSERT_FALSE(rows.isEmpty()) << id;
            tree->selectionModel()->select(rows.front(),
                                           QItemSelectionModel::Select | QItemSelectionModel::Rows);
        }
    }
    void trigger(const char* action) {
        QAction* a = window.findChild<QAction*>(QLatin1String(action));
        ASSERT_TRUE(a) << action;
        a->trigger();
    }
    QString lastMessage() const {
        const MessagesPanel* m = window.messages();
        return m->count() ? m->item(m->count() - 1)->text() : QString();
    }
    // A click in the view at a world point.
    void clickWorld(const Vec3& p_W) {
        ViewportWidget* view = window.viewport();
        drawn(view);
        const QPointF at = view->project(p_W.x(), p_W.y(), p_W.z());
        ASSERT_TRUE(view->rect().contains(at.toPoint())) << "off screen: " << p_W.transpose();
        QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, at.toPoint());
    }
    Vec3 markerWorld(const engine::MarkerRef& ref) const {
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
};

TEST_F(CouplersTest, TheTreeListsTheCouplersAndSelectingOneShowsItsProperties) {
    open(kGearTrain);
    QAbstractItemModel* model = window.sceneTree()->model();
    QModelIndex couplers;
    for (int k = 0; k < model->rowCount(); ++k)
        if (model->index(k, 0).data().toString() == QLatin1String("Couplers"))
            couplers = model->index(k, 0);
    ASSERT_TRUE(couplers.isValid());
    ASSERT_EQ(model->rowCount(couplers), 2);
    EXPECT_EQ(model->index(0, 0, couplers).data().toString(), "mesh1");
    EXPECT_EQ(model->index(0, 1, couplers).data().toString(),
              QString::fromUtf8("gear 1.5 : 1: inputShaft → idlerShaft"));
    EXPECT_EQ(model->index(1, 0, couplers).data().toString(), "mesh2");
    EXPECT_TRUE(window.sceneTree()->isExpanded(couplers));

    // Selected in the tree: its Properties, and the view highlights it.
    const engine::EntityId mesh1 = idOf("mesh1");
    select({mesh1});
    PropertiesPanel* panel = window.properties();
    EXPECT_EQ(panel->entity(), mesh1);
    EXPECT_EQ(panel->findChild<QLabel*>(QStringLiteral("PropertiesTitle"))->text(),
              "Coupler (gear pair)");
    const std::vector<quint64>& highlighted = window.viewport()->selection();
    EXPECT_NE(std::find(highlighted.begin(), highlighted.end(), quint64(mesh1)), highlighted.end());
    for (const char* key : {"name", "type", "jointI", "jointJ", "ratio", "internal"})
        EXPECT_TRUE(panel->editorForKey(QString::fromLatin1(key))) << key;
    EXPECT_EQ(qobject_cast<QComboBox*>(panel->editorForKey("jointI"))->currentText(), "inputShaft");
    // The pitch radii the ratio and the axles make: 20 and 30 mm, 50 mm apart.
    bool said = false;
    for (const QLabel* label : panel->findChildren<QLabel*>())
        said = said || label->text() == QStringLiteral("20 mm, 30 mm (axles 50 mm apart)");
    EXPECT_TRUE(said);
}

TEST_F(CouplersTest, TheViewDrawsTheMeshWhereTheTeethMeetAndAClickThereSelectsIt) {
    open(kGearTrain);
    // The pitch point of mesh1: on the line from the pinion's axle to the idler's, the
    // pinion's pitch radius (the engine's lever) from its axle.
    const engine::SceneSpec& spec = *window.scene();
    const CouplerLayout layout = couplerLayout(spec, spec.couplers[0]);
    ASSERT_TRUE(layout.drawn);
    const engine::CompileResult& compiled = window.document()->compiled();
    ASSERT_TRUE(compiled.model);
    EXPECT_NEAR(layout.radiusI, compiled.model->couplers[0].lever, 1e-12);
    EXPECT_NEAR(layout.radiusI, 0.02, 1e-9);  // 50 mm apart, ratio 1.5: 20 and 30 mm
    EXPECT_NEAR(layout.radiusJ, 0.03, 1e-9);
    std::vector<engine::Transform> poses;
    for (const engine::Part& p : spec.parts) poses.push_back(p.X_WP);
    const CouplerPose pose = couplerPose(layout, poses);
    ASSERT_TRUE(pose.valid);
    EXPECT_NEAR((pose.pitch - Vec3(0.02, 0.0, 0.2)).norm(), 0.0, 1e-9);
    // A click on its ball selects the coupler (the tree's row, its Properties).
    clickWorld(pose.pitch);
    EXPECT_EQ(window.properties()->entity(), spec.couplers[0].id);
}

TEST_F(CouplersTest, AGearPairFromTwoSelectedJointsIsOneUndoableEdit) {
    open(kGearTrain);
    // mesh2 deleted from the tree: the idler and the output turn freely.
    select({idOf("mesh2")});
    window.sceneTree()->deleteSelection();
    ASSERT_EQ(window.scene()->couplers.size(), 1u);
    const int steps = window.undoStack()->count();
    // The idler's and the output's shafts selected, then Create ▸ Coupler ▸ Gear Pair.
    select({idOf("idlerShaft"), idOf("outputShaft")});
    trigger("CreateCoupler_gear");
    ASSERT_EQ(window.scene()->couplers.size(), 2u) << lastMessage().toStdString();
    const engine::CouplerSpec& made = window.scene()->couplers.back();
    EXPECT_EQ(made.type, engine::CouplerType::Gear);
    EXPECT_EQ(made.jointI, "idlerShaft");
    EXPECT_EQ(made.jointJ, "outputShaft");
    EXPECT_NEAR(made.ratio, 2.0, 1e-12);  // the output's 60 mm cylinder over the idler's 30 mm
    EXPECT_EQ(window.undoStack()->count(), steps + 1);
    EXPECT_EQ(window.tools()->tool(), BuildTools::Tool::Select);  // made at once
    // Shown for editing, and undone in one step.
    EXPECT_EQ(window.properties()->entity(), made.id);
    window.undoStack()->undo();
    EXPECT_EQ(window.scene()->couplers.size(), 1u);
    window.undoStack()->redo();
    EXPECT_EQ(window.scene()->couplers.size(), 2u);
}

TEST_F(CouplersTest, AGearPairFromAJointAndAGearClickedInTheView) {
    open(kGearTrain);
    select({idOf("mesh2")});
    window.sceneTree()->deleteSelection();
    window.sceneTree()->clearSelection();
    trigger("CreateCoupler_gear");
    EXPECT_EQ(window.tools()->tool(), BuildTools::Tool::Coupler);
    const engine::Joint* idler = window.scene()->findJoint("idlerShaft");
    clickWorld(markerWorld(idler->markerI));
    EXPECT_EQ(window.scene()->couplers.size(), 1u);  // the first pick
    // The output gear itself, off its hub: it stands for its one shaft.
    clickWorld(window.scene()->findPart("output")->X_WP.p + Vec3(0.045, 0.0, 0.0));
    ASSERT_EQ(window.scene()->couplers.size(), 2u) << lastMessage().toStdString();
    EXPECT_EQ(window.scene()->couplers.back().jointI, "idlerShaft");
    EXPECT_EQ(window.scene()->couplers.back().jointJ, "outputShaft");
}

TEST_F(CouplersTest, JointsOfTheWrongKindAreRefusedWithWhy) {
    open(kSteering);
    const std::size_t before = window.scene()->couplers.size();
    const int steps = window.undoStack()->count();
    select({idOf("steering"), idOf("rackSlide")});
    trigger("CreateCoupler_gear");
    EXPECT_EQ(window.scene()->couplers.size(), before);
    EXPECT_EQ(window.undoStack()->count(), steps);
    EXPECT_TRUE(lastMessage().startsWith(
        "A gear pair couples two revolute or cylindrical joints: 'rackSlide' is a prismatic "
        "joint"))
        << lastMessage().toStdString();
    window.tools()->cancel();
    // A screw needs a cylindrical joint.
    select({idOf("steering")});
    trigger("CreateCoupler_screw");
    EXPECT_TRUE(lastMessage().startsWith(
        "A screw couples the angle and the slide of one cylindrical joint: 'steering' is a "
        "revolute joint"))
        << lastMessage().toStdString();
    window.tools()->cancel();
    // A rack and pinion picked rack first is made pinion first.
    select({idOf("teeth")});
    window.sceneTree()->deleteSelection();
    select({idOf("rackSlide"), idOf("steering")});
    trigger("CreateCoupler_rackPinion");
    ASSERT_EQ(window.scene()->couplers.size(), before) << lastMessage().toStdString();
    const engine::CouplerSpec& rack = window.scene()->couplers.back();
    EXPECT_EQ(rack.type, engine::CouplerType::RackPinion);
    EXPECT_EQ(rack.jointI, "steering");
    EXPECT_EQ(rack.jointJ, "rackSlide");
    EXPECT_NEAR(rack.radius, 0.02, 1e-12);  // the pinion's cylinder
}

TEST_F(CouplersTest, PropertiesEditTheRatioThroughTheUndoStack) {
    open(kGearTrain);
    select({idOf("mesh1")});
    PropertiesPanel* panel = window.properties();
    auto* ratio = qobject_cast<QLineEdit*>(panel->editorForKey(QStringLiteral("ratio")));
    ASSERT_TRUE(ratio);
    EXPECT_EQ(ratio->text(), "1.5");
    // An impossible ratio stays in its field with the reason; the scene keeps its own.
    ratio->setText(QStringLiteral("-2"));
    panel->commit(QStringLiteral("ratio"));
    EXPECT_TRUE(panel->message(QStringLiteral("ratio")).contains("positive"))
        << panel->message(QStringLiteral("ratio")).toStdString();
    EXPECT_EQ(coupler("mesh1")->ratio, 1.5);
    const int steps = window.undoStack()->count();
    ratio = qobject_cast<QLineEdit*>(panel->editorForKey(QStringLiteral("ratio")));
    ratio->setText(QStringLiteral("2.5"));
    panel->commit(QStringLiteral("ratio"));
    EXPECT_EQ(coupler("mesh1")->ratio, 2.5);
    EXPECT_EQ(window.undoStack()->count(), steps + 1);
    window.undoStack()->undo();
    EXPECT_EQ(coupler("mesh1")->ratio, 1.5);
    // Renamed in Properties: the tree follows.
    auto* name = qobject_cast<QLineEdit*>(panel->editorForKey(QStringLiteral("name")));
    ASSERT_TRUE(name);
    name->setText(QStringLiteral("firstMesh"));
    panel->commit(QStringLiteral("name"));
    ASSERT_TRUE(coupler("firstMesh"));
    const QModelIndexList rows = window.sceneTree()->model()->match(
        window.sceneTree()->model()->index(0, 0), Qt::DisplayRole, QStringLiteral("firstMesh"), 1,
        Qt::MatchExactly | Qt::MatchRecursive);
    EXPECT_FALSE(rows.isEmpty());
}

TEST_F(CouplersTest, DeletingAJointDeletesItsCouplersAndUndoBringsThemBack) {
    open(kGearTrain);
    select({idOf("idlerShaft")});
    window.sceneTree()->deleteSelection();
    EXPECT_FALSE(window.scene()->findJoint("idlerShaft"));
    EXPECT_TRUE(window.scene()->couplers.empty());  // both meshes named the idler's shaft
    EXPECT_TRUE(lastMessage().contains("mesh1") && lastMessage().contains("mesh2"))
        << lastMessage().toStdString();
    window.undoStack()->undo();
    EXPECT_TRUE(window.scene()->findJoint("idlerShaft"));
    EXPECT_EQ(window.scene()->couplers.size(), 2u);
    // A coupler deleted on its own leaves its joints.
    select({idOf("mesh1")});
    window.sceneTree()->deleteSelection();
    EXPECT_EQ(window.scene()->couplers.size(), 1u);
    EXPECT_EQ(window.scene()->joints.size(), 3u);
}

TEST_F(CouplersTest, TheCouplersForcesAreRecordedAndOfferedForPlotting) {
    open(kGearTrain);
    window.session()->runTo(0.2);
    ASSERT_TRUE(waitForRun(0.2));
    ASSERT_EQ(window.session()->snapshot()->error, "");
    const engine::Recording* recording = window.session()->recording();
    ASSERT_TRUE(recording);
    // The + Plot… picker lists the recording's channels: the couplers' are among them.
    for (const char* channel : {"mesh1.force", "mesh1.effortI", "mesh1.effortJ", "mesh2.force"})
        EXPECT_GE(recording->layout().findChannel(channel), 0) << channel;
    // The arrow drawn at a pitch point is the force gear I's teeth put on gear J: its torque
    // about gear J's axle is the effort the coupler puts on joint J (in the gear's sense), and
    // the opposite force's about gear I's axle the effort on joint I.
    const auto snap = window.session()->snapshot();
    const engine::SceneSpec& spec = *window.scene();
    ASSERT_EQ(snap->outputs.couplerForce.size(), spec.couplers.size());
    for (std::size_t k = 0; k < spec.couplers.size(); ++k) {
        const CouplerLayout layout = couplerLayout(spec, spec.couplers[k]);
        const CouplerPose pose = couplerPose(layout, snap->partPoses);
        ASSERT_TRUE(pose.valid);
        const Vec3 onJ = snap->outputs.couplerForce[k] * pose.forceOnJ;
        const double effortI = snap->outputs.couplerEffortI[k];
        const double effortJ = snap->outputs.couplerEffortJ[k];
        ASSERT_GT(std::abs(effortJ), 1e-6);
        EXPECT_NEAR((pose.pitch - pose.axleJ).cross(onJ).dot(pose.zJ), layout.senseJ * effortJ,
                    1e-6 * std::abs(effortJ))
            << spec.couplers[k].name;
        EXPECT_NEAR((pose.pitch - pose.axleI).cross(-onJ).dot(pose.zI), layout.senseI * effortI,
                    1e-6 * std::abs(effortI))
            << spec.couplers[k].name;
    }
    // The tree's context menu of a coupler plots its tooth force.
    QMenu menu;
    window.sceneTree()->fillMenu(menu, idOf("mesh1"));
    QAction* toothForce = nullptr;
    QStringList labels;
    for (QAction* a : menu.actions()) {
        labels << a->text();
        if (a->text() == QLatin1String("Plot Tooth Force")) toothForce = a;
    }
    ASSERT_TRUE(toothForce) << labels.join(", ").toStdString();
    EXPECT_TRUE(labels.contains("Plot Coupler Efforts on Its Joints"));
    const int plots = window.plots()->plotCount();  // the scene's own, reopened with it
    toothForce->trigger();
    ASSERT_EQ(window.plots()->plotCount(), plots + 1);
    EXPECT_EQ(window.plots()->plot(plots)->channels(), QStringList{"mesh1.force"});
}

TEST(CouplerGlyphs, ToothForceArrowsAreDrawnAtThePitchPointsAndFollowTheParts) {
    const auto loaded = engine::io::loadSceneFile(kSteering.toStdString());
    ASSERT_TRUE(loaded.scene);
    const engine::SceneSpec& spec = *loaded.scene;
    SceneGraph graph = buildSceneGraph(spec);
    ASSERT_EQ(graph.couplers.size(), 1u);
    const CouplerGlyph& teeth = graph.couplers[0];
    ASSERT_TRUE(teeth.pose.valid);
    // The pinion's pitch circle touches the rack's pitch line at the pitch point: the
    // pinion's radius from its axle, toward the rack.
    EXPECT_NEAR((teeth.pose.pitch - teeth.pose.axleI).norm(), 0.02, 1e-12);
    const engine::Part* rackPart = spec.findPart("rack");
    const Vec3 toRack = rackPart->X_WP.p - teeth.pose.axleI;
    EXPECT_GT(toRack.dot(teeth.pose.out), 0.0);
    // Where the engine meshes the teeth (the tooth force acts there on a shared carrier).
    const engine::CompileResult compiled = engine::compile(spec);
    ASSERT_TRUE(compiled.model);
    const engine::CouplerModel& model = compiled.model->couplers[0];
    ASSERT_TRUE(model.rolling);
    const Vec3 across = teeth.pose.zJ.cross(teeth.pose.zI).normalized();
    EXPECT_NEAR(
        (teeth.pose.axleI + model.pitchRadius * model.toward * across - teeth.pose.pitch).norm(),
        0.0, 1e-12);
    // The force on the rack is along its slide.
    EXPECT_NEAR(std::abs(teeth.pose.forceOnJ.dot(teeth.pose.zJ)), 1.0, 1e-12);
    auto arrowVertices = [&] {
        return static_cast<const osg::Vec3Array*>(graph.couplerArrows->getVertexArray())->size();
    };
    EXPECT_EQ(arrowVertices(), 0u);  // no run: no force
    updateCouplerForces(graph, {250.0});
    EXPECT_EQ(arrowVertices(), 6u);  // a shaft and a two-stroke head
    const osg::Vec3 from =
        (*static_cast<const osg::Vec3Array*>(graph.couplerArrows->getVertexArray()))[0];
    EXPECT_NEAR((Vec3(from.x(), from.y(), from.z()) - teeth.pose.pitch).norm(), 0.0, 1e-6);
    // The rack moved 10 mm along its slide: the pitch point stays on the pinion.
    std::vector<engine::Transform> poses;
    for (const engine::Part& p : spec.parts) poses.push_back(p.X_WP);
    const Vec3 before = graph.couplers[0].pose.pitch;
    poses[static_cast<std::size_t>(rackPart - spec.parts.data())].p += 0.01 * teeth.pose.zJ;
    updateCouplers(graph, poses);
    EXPECT_NEAR((graph.couplers[0].pose.pitch - before).norm(), 0.0, 1e-12);
    EXPECT_EQ(arrowVertices(), 6u);
    // Forces of another scene (a count that does not match) are not drawn.
    updateCouplerForces(graph, {1.0, 2.0});
    EXPECT_EQ(arrowVertices(), 0u);
}

}  // namespace
}  // namespace ui
