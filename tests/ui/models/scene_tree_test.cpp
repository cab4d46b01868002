#include "ui/models/scene_tree.h"

#include <QAbstractItemModelTester>
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

    ASSERT_EQ(model.rowCount(), 6);  // Parts, Joints, Forces, Motions, Contacts, Plots
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

TEST(SceneTree, ShowsTheMassComputedFromDensity) {
    engine::SceneSpec spec = engine::test::pendulum();
    spec.parts[1].density = 2000.0;  // its 0.1 × 0.02 × 0.02 m box: 0.08 kg
    QStandardItemModel model;
    populateSceneTree(model, spec);
    EXPECT_EQ(model.index(1, 1, model.index(0, 0)).data().toString(),
              QString::fromUtf8("0.08 kg (2000 kg/m³)"));
}

TEST(SceneTree, RepopulatingReplacesTheContents) {
    QStandardItemModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    populateSceneTree(model, engine::test::pendulum());
    populateSceneTree(model, engine::SceneSpec{});
    ASSERT_EQ(model.rowCount(), 6);
    EXPECT_EQ(model.rowCount(model.index(0, 0)), 0);
    EXPECT_EQ(model.rowCount(model.index(1, 0)), 0);
}

TEST(SceneTree, ListsContactPairsAndPlotsWithIconsAndRenamableEntities) {
    engine::SceneSpec spec = engine::test::pendulum();
    spec.contact.enabled = true;
    spec.contact.pairs.push_back(
        {spec.newId(), "slick", "ground", "link", true, 0.1, std::nullopt, {}});
    spec.plots.push_back({"hinge load", {"hinge.Fx", "hinge.F"}, {}, {}});
    QStandardItemModel model;
    populateSceneTree(model, spec);
    const QModelIndex contacts = model.index(4, 0), plots = model.index(5, 0);
    EXPECT_EQ(contacts.data().toString(), "Contacts");
    EXPECT_EQ(model.index(4, 1).data().toString(), "on: pgs, box friction");
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

}  // namespace
}  // namespace ui
