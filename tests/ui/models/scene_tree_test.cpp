#include "ui/models/scene_tree.h"

#include <QAbstractItemModelTester>
#include <QFont>
#include <QIcon>
#include <QStandardItemModel>

#include <gtest/gtest.h>

#include "tests/support/scene_builders.h"

namespace ui {
namespace {

TEST(SceneTree, ListsPartsWithGeometryAndMarkersThenJoints) {
    const engine::SceneSpec spec = engine::test::pendulum();
    QStandardItemModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    populateSceneTree(model, spec);

    // Parts, Joints, Forces, Motions, Couplers, Variables, Tables, Sensors, Contacts, Plots
    ASSERT_EQ(model.rowCount(), 10);
    const QModelIndex parts = model.index(0, 0);
    EXPECT_EQ(parts.data().toString(), "Parts");
    ASSERT_EQ(model.rowCount(parts), 2);
    const QModelIndex link = model.index(1, 0, parts);
    EXPECT_EQ(link.data().toString(), "link");
    EXPECT_EQ(link.data(kEntityIdRole).toULongLong(), spec.parts[1].id);
    EXPECT_EQ(model.index(1, 1, parts).data().toString(), "1 kg");
    // The link's box, then its marker.
    ASSERT_EQ(model.rowCount(link), 2);
    EXPECT_EQ(model.index(0, 1, link).data().toString(), QString::fromUtf8("box 100 × 20 × 20 mm"));
    EXPECT_EQ(model.index(1, 0, link).data().toString(), "pivot");
    EXPECT_EQ(model.index(1, 0, link).data(kEntityIdRole).toULongLong(),
              spec.parts[1].markers[0].id);

    const QModelIndex joints = model.index(1, 0);
    ASSERT_EQ(model.rowCount(joints), 1);
    EXPECT_EQ(model.index(0, 1, joints).data().toString(),
              QString::fromUtf8("revolute: link.pivot → ground.pivot"));
}

TEST(SceneTree, ListsForcesAndMotionsWithWhatTheyActOn) {
    engine::SceneSpec spec = engine::test::pendulum();
    engine::ForceSpec spring;
    spring.id = spec.newId();
    spring.name = "spring";
    spring.type = engine::ForceType::RotationalSpringDamper;
    spring.joint = "hinge";
    spec.forces.push_back(spring);
    engine::MotionSpec motor;
    motor.id = spec.newId();
    motor.name = "motor";
    motor.joint = "hinge";
    motor.expression = "90d*time";
    spec.motions.push_back(motor);
    QStandardItemModel model;
    populateSceneTree(model, spec);
    EXPECT_EQ(model.index(0, 1, model.index(2, 0)).data().toString(),
              "rotationalSpringDamper on hinge");
    EXPECT_EQ(model.index(0, 1, model.index(3, 0)).data().toString(), "hinge angle = 90d*time");
    EXPECT_EQ(model.index(0, 0, model.index(3, 0)).data(kEntityIdRole).toULongLong(), motor.id);
}

TEST(SceneTree, ListsForcesOfTheStateAndVariablesByTheirPlace) {
    engine::SceneSpec spec = engine::test::pendulum();
    engine::ForceSpec line;
    line.id = spec.newId();
    line.name = "rope";
    line.type = engine::ForceType::LineForce;
    line.markerI = {"link", "pivot"};
    line.markerJ = {"ground", "pivot"};
    spec.forces.push_back(line);
    engine::ForceSpec motor;
    motor.id = spec.newId();
    motor.name = "brake";
    motor.type = engine::ForceType::JointForce;
    motor.joint = "hinge";
    spec.forces.push_back(motor);
    spec.variables.push_back(
        {.name = "stretch", .expression = "DM(link.pivot, ground.pivot)", .extensions = {}});
    spec.variables.push_back(
        {.name = "rate", .expression = "VR(link.pivot, ground.pivot)", .extensions = {}});
    QStandardItemModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    populateSceneTree(model, spec);
    const QModelIndex forces = model.index(2, 0);
    EXPECT_EQ(model.index(0, 1, forces).data().toString(),
              QString::fromUtf8("lineForce: link.pivot → ground.pivot"));
    EXPECT_EQ(model.index(1, 1, forces).data().toString(), "jointForce on hinge");
    // Variables: no id; their place (+ 1) in their own role, names editable in place.
    const QModelIndex variables = model.index(5, 0);
    EXPECT_EQ(variables.data().toString(), "Variables");
    EXPECT_EQ(model.index(5, 1).data().toString(), "2");
    EXPECT_EQ(variables.data(kVariableRole).toInt(), -1);
    ASSERT_EQ(model.rowCount(variables), 2);
    const QModelIndex rate = model.index(1, 0, variables);
    EXPECT_EQ(rate.data().toString(), "rate");
    EXPECT_EQ(model.index(1, 1, variables).data().toString(), "= VR(link.pivot, ground.pivot)");
    EXPECT_EQ(rate.data(kVariableRole).toInt(), 2);
    EXPECT_EQ(rate.data(kEntityIdRole).toULongLong(), 0u);
    EXPECT_TRUE(model.flags(rate) & Qt::ItemIsEditable);
    EXPECT_FALSE(rate.data(Qt::DecorationRole).value<QIcon>().isNull());
}

TEST(SceneTree, ListsSensorsByTheirPlaceWithWhatTheyWatch) {
    engine::SceneSpec spec = engine::test::pendulum();
    spec.sensors.push_back({.name = "low",
                            .expression = "DZ(link.pivot)",
                            .value = -0.1,
                            .direction = engine::SensorDirection::Falling,
                            .action = engine::SensorAction::Stop,
                            .extensions = {}});
    spec.sensors.push_back({.name = "half",
                            .expression = "time",
                            .value = 0.5,
                            .direction = engine::SensorDirection::Either,
                            .action = engine::SensorAction::Mark,
                            .extensions = {}});
    QStandardItemModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    populateSceneTree(model, spec);
    const QModelIndex sensors = model.index(7, 0);
    EXPECT_EQ(sensors.data().toString(), "Sensors");
    EXPECT_EQ(model.index(7, 1).data().toString(), "2");
    EXPECT_EQ(sensors.data(kSensorRole).toInt(), -1);
    EXPECT_EQ(sensors.data(kVariableRole).toInt(), 0);
    ASSERT_EQ(model.rowCount(sensors), 2);
    const QModelIndex low = model.index(0, 0, sensors);
    EXPECT_EQ(low.data().toString(), "low");
    EXPECT_EQ(model.index(0, 1, sensors).data().toString(),
              QString::fromUtf8("DZ(link.pivot) ↓ -0.1 · stop"));
    EXPECT_EQ(model.index(1, 1, sensors).data().toString(), QString::fromUtf8("time ↕ 0.5 · mark"));
    EXPECT_EQ(model.index(1, 0, sensors).data(kSensorRole).toInt(), 2);
    EXPECT_EQ(low.data(kEntityIdRole).toULongLong(), 0u);
    EXPECT_TRUE(model.flags(low) & Qt::ItemIsEditable);
    EXPECT_FALSE(low.data(Qt::DecorationRole).value<QIcon>().isNull());
}

TEST(SceneTree, ShowsTheMassComputedFromDensity) {
    engine::SceneSpec spec = engine::test::pendulum();
    spec.parts[1].density = 2000.0;  // its 0.1 × 0.02 × 0.02 m box: 0.08 kg
    QStandardItemModel model;
    populateSceneTree(model, spec);
    EXPECT_EQ(model.index(1, 1, model.index(0, 0)).data().toString(),
              QString::fromUtf8("0.08 kg (2000 kg/m³)"));
}

TEST(SceneTree, SaysWhichPartIsAMovingFrame) {
    engine::SceneSpec spec = engine::test::pendulum();
    spec.parts[1].frameMotion.emplace();
    spec.parts[1].frameMotion->rotation[2] = "2*time";
    QStandardItemModel model;
    populateSceneTree(model, spec);
    const QModelIndex link = model.index(1, 1, model.index(0, 0));
    EXPECT_EQ(link.data().toString(), "moving frame, 1 kg");
    EXPECT_TRUE(link.data(Qt::ToolTipRole).toString().contains("moving frame"));
    EXPECT_EQ(model.index(0, 1, model.index(0, 0)).data().toString(), "ground");
}

// What the model leaves out is greyed and says why; what an analysis leaves out says which.
TEST(SceneTree, SaysWhatIsDeactivatedAndWhatAnAnalysisLeavesOut) {
    engine::SceneSpec spec = engine::test::pendulum();
    spec.parts[1].active = false;
    QStandardItemModel model;
    populateSceneTree(model, spec);
    const QModelIndex link = model.index(1, 1, model.index(0, 0));
    EXPECT_EQ(link.data().toString(), "inactive: deactivated · 1 kg");
    EXPECT_TRUE(link.data(Qt::FontRole).value<QFont>().italic());
    const QModelIndex hinge = model.index(0, 1, model.index(1, 0));
    EXPECT_TRUE(hinge.data().toString().startsWith("inactive: on deactivated part 'link' · "));

    spec.parts[1].active = true;
    spec.analyses[static_cast<std::size_t>(engine::Analysis::Modes)].inactive.joints = {
        spec.joints[0].name};
    spec.analyses[static_cast<std::size_t>(engine::Analysis::Statics)].inactive.joints = {
        spec.joints[0].name};
    populateSceneTree(model, spec);
    EXPECT_TRUE(model.index(0, 1, model.index(1, 0))
                    .data()
                    .toString()
                    .startsWith("left out of statics, modes · "));
    EXPECT_FALSE(model.index(0, 1, model.index(1, 0)).data(Qt::FontRole).value<QFont>().italic());
}

TEST(SceneTree, RepopulatingReplacesTheContents) {
    QStandardItemModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    populateSceneTree(model, engine::test::pendulum());
    populateSceneTree(model, engine::SceneSpec{});
    ASSERT_EQ(model.rowCount(), 10);
    EXPECT_EQ(model.rowCount(model.index(0, 0)), 0);
    EXPECT_EQ(model.rowCount(model.index(1, 0)), 0);
}

TEST(SceneTree, ListsTablesByTheirPlaceWithTheirInterpolationAndRange) {
    engine::SceneSpec spec = engine::test::pendulum();
    engine::TableSpec shock;
    shock.name = "shock";
    shock.x = {-1.5, 0.0, 0.25, 1.5};
    shock.y = {-1700, 0, 900, 2900};
    spec.tables.push_back(shock);
    QStandardItemModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    populateSceneTree(model, spec);
    const QModelIndex tables = model.index(6, 0);
    EXPECT_EQ(tables.data().toString(), "Tables");
    EXPECT_EQ(model.index(6, 1).data().toString(), "1");
    EXPECT_EQ(tables.data(kTableRole).toInt(), -1);
    EXPECT_EQ(model.index(5, 0).data().toString(), "Variables");
    ASSERT_EQ(model.rowCount(tables), 1);
    const QModelIndex row = model.index(0, 0, tables);
    EXPECT_EQ(row.data().toString(), "shock");
    EXPECT_EQ(row.data(kTableRole).toInt(), 1);
    EXPECT_EQ(row.data(kEntityIdRole).toULongLong(), 0u);
    EXPECT_TRUE(model.itemFromIndex(row)->isEditable());
    EXPECT_EQ(model.index(0, 1, tables).data().toString(),
              QString::fromUtf8("akima, 4 points, x -1.5 … 1.5"));
}

TEST(SceneTree, ListsContactPairsAndPlotsWithIconsAndRenamableEntities) {
    engine::SceneSpec spec = engine::test::pendulum();
    spec.contact.enabled = true;
    spec.contact.pairs.push_back(
        {spec.newId(), "slick", "ground", "link", true, 0.1, std::nullopt, {}});
    spec.plots.push_back({"hinge load", {"hinge.Fx", "hinge.F"}, {}, {}});
    QStandardItemModel model;
    populateSceneTree(model, spec);
    const QModelIndex contacts = model.index(8, 0), plots = model.index(9, 0);
    EXPECT_EQ(contacts.data().toString(), "Contacts");
    EXPECT_EQ(model.index(8, 1).data().toString(), "on: pgs, box friction");
    EXPECT_EQ(model.index(0, 1, contacts).data().toString(),
              QString::fromUtf8("ground ↔ link, μ 0.1"));
    EXPECT_EQ(model.index(0, 0, plots).data().toString(), "hinge load");
    EXPECT_EQ(model.index(0, 1, plots).data().toString(), "hinge.Fx, hinge.F");
    // Every row has an icon; entity names can be edited in place, group rows and details not.
    const QModelIndex link = model.index(1, 0, model.index(0, 0));
    EXPECT_FALSE(link.data(Qt::DecorationRole).value<QIcon>().isNull());
    EXPECT_TRUE(model.flags(link) & Qt::ItemIsEditable);
    EXPECT_FALSE(model.flags(model.index(1, 1, model.index(0, 0))) & Qt::ItemIsEditable);
    EXPECT_FALSE(model.flags(model.index(0, 0)) & Qt::ItemIsEditable);
}

TEST(SceneTree, ListsCouplersWithTheirKindSizeAndJoints) {
    engine::SceneSpec spec = engine::test::pendulum();
    using engine::CouplerType;
    auto add = [&](const char* name, CouplerType type, const char* jointI, const char* jointJ) {
        return engine::test::addCoupler(spec, name, type, jointI, jointJ);
    };
    add("mesh1", CouplerType::Gear, "inputShaft", "idlerShaft")->ratio = 1.5;
    engine::CouplerSpec* ring = add("ring", CouplerType::Gear, "sun", "annulus");
    ring->ratio = 3.0;
    ring->internal = true;
    add("teeth", CouplerType::RackPinion, "steering", "rackSlide")->radius = 0.02;
    add("thread", CouplerType::Screw, "lead", "")->pitch = -0.005;
    add("belt", CouplerType::Linear, "", "")->terms = {
        {"hinge", engine::JointAxis::Rotation, 1.0}, {"idler", engine::JointAxis::Rotation, -2.0}};
    QStandardItemModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    populateSceneTree(model, spec);
    // After the motions, before the contacts.
    const QModelIndex couplers = model.index(4, 0);
    EXPECT_EQ(couplers.data().toString(), "Couplers");
    EXPECT_EQ(model.index(4, 1).data().toString(), "5");
    ASSERT_EQ(model.rowCount(couplers), 5);
    const QString expected[][2] = {
        {"mesh1", QString::fromUtf8("gear 1.5 : 1: inputShaft → idlerShaft")},
        {"ring", QString::fromUtf8("gear 3 : 1 internal: sun → annulus")},
        {"teeth", QString::fromUtf8("rack, r 20 mm: steering → rackSlide")},
        {"thread", "screw, -5 mm/turn left-hand: lead"},
        {"belt", QString::fromUtf8("linear: hinge − 2·idler")},
    };
    for (int k = 0; k < 5; ++k) {
        const QModelIndex name = model.index(k, 0, couplers);
        EXPECT_EQ(name.data().toString(), expected[k][0]);
        EXPECT_EQ(model.index(k, 1, couplers).data().toString(), expected[k][1]);
        // Selectable by id, renamable in place, with the couplers' icon.
        EXPECT_EQ(name.data(kEntityIdRole).toULongLong(), spec.couplers[k].id);
        EXPECT_TRUE(model.flags(name) & Qt::ItemIsEditable);
        EXPECT_FALSE(name.data(Qt::DecorationRole).value<QIcon>().isNull());
    }
}

}  // namespace
}  // namespace ui
