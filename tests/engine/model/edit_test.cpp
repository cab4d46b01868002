#include "engine/model/edit.h"

#include <gtest/gtest.h>

#include "engine/io/scene_json.h"
#include "engine/model/model.h"

namespace engine {
namespace {

TEST(RenameEntity, RewritesEveryReferenceSoTheSceneStillCompiles) {
    auto loaded = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/slider_crank.json");
    ASSERT_TRUE(loaded.scene);
    SceneSpec spec = *loaded.scene;
    spec.plots.push_back({"p", {spec.joints[0].name + ".Fx", "energy.kinetic"}, {}});
    const std::string oldJoint = spec.joints[0].name;
    const Part& crank = spec.parts[1];
    const EntityId crankId = crank.id, markerId = crank.markers.front().id, jointId = spec.joints[0].id;

    ASSERT_TRUE(renameEntity(spec, crankId, "arm"));
    ASSERT_TRUE(renameEntity(spec, markerId, "hub"));
    ASSERT_TRUE(renameEntity(spec, jointId, "mainPin"));
    EXPECT_EQ(entityName(spec, crankId), "arm");
    EXPECT_EQ(entityName(spec, markerId), "arm.hub");
    EXPECT_EQ(spec.plots[0].channels[0], "mainPin.Fx");
    EXPECT_EQ(spec.plots[0].channels[1], "energy.kinetic");
    for (const MotionSpec& m : spec.motions) EXPECT_NE(m.joint, oldJoint);
    const CompileResult c = compile(spec);
    for (const Diagnostic& d : c.diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    EXPECT_TRUE(c.model);
    EXPECT_FALSE(renameEntity(spec, 999999, "x"));
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

TEST(DeleteEntity, APartTakesItsJointsAndTheMotionsOnThemAndTheRestCompiles) {
    auto loaded = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/slider_crank.json");
    ASSERT_TRUE(loaded.scene);
    SceneSpec spec = *loaded.scene;
    const Part& crank = spec.parts[1];
    ASSERT_EQ(crank.name, "crank");
    const std::size_t joints = spec.joints.size();
    const std::vector<std::string> removed = deleteEntity(spec, crank.id);
    ASSERT_FALSE(removed.empty());
    EXPECT_EQ(removed.front(), "crank");
    EXPECT_EQ(spec.parts.size(), 3u);
    EXPECT_EQ(spec.joints.size(), joints - 2);  // the crank's pivot and pin
    EXPECT_TRUE(spec.motions.empty());          // the motor drove the crank's pivot
    const CompileResult c = compile(spec);
    for (const Diagnostic& d : c.diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    // The ground cannot be deleted; an unknown id deletes nothing.
    EXPECT_TRUE(deleteEntity(spec, spec.parts[0].id).empty());
    EXPECT_TRUE(deleteEntity(spec, 999999).empty());
}

TEST(DeleteEntity, AJointTakesWhatActsOnItOnly) {
    auto loaded = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/two_link_arm_pd.json");
    ASSERT_TRUE(loaded.scene);
    SceneSpec spec = *loaded.scene;
    const std::vector<std::string> removed = deleteEntity(spec, spec.joints[1].id);  // the elbow
    EXPECT_EQ(removed, (std::vector<std::string>{"elbow", "elbowServo"}));
    EXPECT_EQ(spec.forces.size(), 1u);
    EXPECT_EQ(spec.parts.size(), 3u);
}

}  // namespace
}  // namespace engine
