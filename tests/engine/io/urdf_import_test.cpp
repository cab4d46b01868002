#include "engine/io/urdf_import.h"

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/model/model.h"
#include "tests/support/simulation.h"

namespace engine::io {
namespace {

const std::string kArm = MOTUS_SOURCE_DIR "/scenes/urdf/three_link_arm.urdf";

TEST(UrdfImport, LinksBecomePartsAndJointsMeetAtTheirFrames) {
    const UrdfImportResult r = importUrdfFile(kArm);
    ASSERT_TRUE(r.scene);
    const SceneSpec& s = *r.scene;
    EXPECT_EQ(s.name, "three_link_arm");
    ASSERT_EQ(s.parts.size(), 6u);  // world (ground) + 5 links
    const Part* world = s.findPart("world");
    ASSERT_NE(world, nullptr);
    EXPECT_TRUE(world->ground);
    const Part* upper = s.findPart("upper_arm");
    ASSERT_NE(upper, nullptr);
    EXPECT_EQ(upper->mass, 1.2);
    EXPECT_LT((upper->p_PPcm - Vec3(0.15, 0, 0)).norm(), 1e-15);
    // base at z 0.05, turret +0.05, shoulder +0.1: the upper arm's frame is at z = 0.2.
    EXPECT_LT((upper->X_WP.p - Vec3(0, 0, 0.2)).norm(), 1e-15);
    ASSERT_EQ(s.joints.size(), 5u);
    int revolutes = 0, fixed = 0;
    for (const Joint& j : s.joints) {
        revolutes += j.type == JointType::Revolute;
        fixed += j.type == JointType::Fixed;
        // Both markers of every joint are at the same place with z along the same axis.
        const Part* pi = s.findPart(j.markerI.part);
        const Part* pj = s.findPart(j.markerJ.part);
        const Transform X_WI = pi->X_WP * s.findMarker(j.markerI)->X_PM;
        const Transform X_WJ = pj->X_WP * s.findMarker(j.markerJ)->X_PM;
        EXPECT_LT((X_WI.p - X_WJ.p).norm(), 1e-15) << j.name;
        EXPECT_LT((X_WI.R * Vec3::UnitZ() - X_WJ.R * Vec3::UnitZ()).norm(), 1e-15) << j.name;
    }
    EXPECT_EQ(revolutes, 3);
    EXPECT_EQ(fixed, 2);
    // The shoulder turns about y.
    const Joint* shoulder = s.findJoint("shoulder");
    ASSERT_NE(shoulder, nullptr);
    EXPECT_LT((s.findMarker(shoulder->markerJ)->X_PM.R * Vec3::UnitZ() - Vec3::UnitY()).norm(), 1e-15);
    // The gripper's mesh was found through its package:// path, scaled by 0.5.
    const Part* gripper = s.findPart("gripper");
    ASSERT_EQ(gripper->shapes.size(), 1u);
    EXPECT_EQ(gripper->shapes[0].type, ShapeType::Mesh);
    EXPECT_EQ(gripper->shapes[0].scale, Vec3::Constant(0.5));
    // Limits are reported as not enforced yet.
    bool limitWarning = false;
    for (const Diagnostic& d : r.diagnostics) limitWarning |= d.message.find("not enforced") != std::string::npos;
    EXPECT_TRUE(limitWarning);
}

TEST(UrdfImport, TheImportedArmFallsUnderGravityWithItsEnergyConserved) {
    const UrdfImportResult r = importUrdfFile(kArm);
    ASSERT_TRUE(r.scene);
    const auto model = test::compiled(*r.scene);
    ASSERT_TRUE(model);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    const double e0 = out.energies.balance();
    ASSERT_TRUE(sim.advance(1.0).ok);
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_GT(out.energies.kinetic, 0.1);  // it fell
    EXPECT_NEAR(out.energies.balance(), e0, 1e-5 * out.energies.kinetic);
    EXPECT_LT(out.constraintError, 1e-9);
}

TEST(UrdfImport, ReportsMissingAndInvalidFiles) {
    EXPECT_FALSE(importUrdfFile("/nonexistent/robot.urdf").scene);
    const UrdfImportResult r = importUrdfFile(MOTUS_SOURCE_DIR "/scenes/four_bar.json");
    EXPECT_FALSE(r.scene);
    ASSERT_FALSE(r.diagnostics.empty());
    EXPECT_NE(r.diagnostics[0].message.find("not a valid URDF"), std::string::npos);
}

}  // namespace
}  // namespace engine::io
