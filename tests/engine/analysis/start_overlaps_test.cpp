// Parts that start a run inside one another: which pairs, how deep, and the run's statistics
// and words (the CLI and the window say them). Depths are exact for the shapes placed: two
// 0.1 m cubes 0.07 m apart overlap 0.03 m, a 5 cm ball 3 cm above the floor 2 cm.

#include "engine/analysis/start_overlaps.h"

#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "engine/model/model.h"
#include "engine/runtime/simulator.h"
#include "engine/state/state.h"
#include "tests/support/contact_scenes.h"
#include "tests/support/scene_builders.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

using namespace std::chrono_literals;

const Vec3 kCube(0.1, 0.1, 0.1);

Transform at(double x, double y, double z) {
    Transform X;
    X.p = Vec3(x, y, z);
    return X;
}

StartOverlaps overlapsOf(const SceneSpec& spec) {
    const std::shared_ptr<const Model> model = test::compiled(spec);
    EXPECT_TRUE(model);
    if (!model) return {};
    return findStartOverlaps(*model, initialState(*model));
}

TEST(StartOverlaps, NameTheDeepestPairAndCountThePairsBeyondOneStepsPushOut) {
    SceneSpec spec = test::contactScene();
    test::addBox(spec, "a", kCube, at(0.0, 0.0, 0.05));       // resting on the floor: depth 0
    test::addBox(spec, "b", kCube, at(0.07, 0.0, 0.05));      // 3 cm into a
    test::addBall(spec, "ball", 0.05, Vec3(1.0, 0.0, 0.03));  // 2 cm into the floor
    const StartOverlaps found = overlapsOf(spec);
    // The slop (10 µm) and one 1 ms step at the push-out speed (1 m/s).
    EXPECT_DOUBLE_EQ(found.threshold, 1e-5 + 1.0 * 1e-3);
    EXPECT_EQ(found.pairs, 2u);
    EXPECT_NEAR(found.depth, 0.03, 1e-9);
    EXPECT_EQ(found.partA, 1);
    EXPECT_EQ(found.partB, 2);
}

TEST(StartOverlaps, APartSetIntoTheFloorIsFoundWithTheGround) {
    SceneSpec spec = test::contactScene();
    test::addBall(spec, "ball", 0.05, Vec3(0.0, 0.0, 0.03));
    const StartOverlaps found = overlapsOf(spec);
    EXPECT_EQ(found.pairs, 1u);
    EXPECT_NEAR(found.depth, 0.02, 1e-9);
    EXPECT_EQ(found.partA, 0);  // the ground
    EXPECT_EQ(found.partB, 1);
}

TEST(StartOverlaps, OverlapsOneStepPushesOutAreLeftAloneAndTheThresholdFollowsTheSettings) {
    SceneSpec spec = test::contactScene();
    test::addBox(spec, "a", kCube, at(0.0, 0.0, 0.05));
    test::addBox(spec, "b", kCube, at(0.0995, 0.0, 0.05));  // 0.5 mm into a
    EXPECT_EQ(overlapsOf(spec).pairs, 0u);
    spec.contact.pushSpeed = 0.1;  // a step pushes out 0.1 mm
    const StartOverlaps slow = overlapsOf(spec);
    EXPECT_DOUBLE_EQ(slow.threshold, 1e-5 + 0.1 * 1e-3);
    EXPECT_EQ(slow.pairs, 1u);
    EXPECT_NEAR(slow.depth, 5e-4, 1e-9);
    spec.contact.enabled = false;
    EXPECT_EQ(overlapsOf(spec).pairs, 0u);
}

TEST(StartOverlaps, PartsJoinedByAJointMayOverlapWhereTheyAreJoined) {
    SceneSpec spec = test::contactScene();
    test::addBox(spec, "a", kCube, at(0.0, 0.0, 0.5))
        .markers.push_back(test::marker(spec, "pin", Vec3(0.035, 0.0, 0.0)));
    test::addBox(spec, "b", kCube, at(0.07, 0.0, 0.5))  // 3 cm into a
        .markers.push_back(test::marker(spec, "pin", Vec3(-0.035, 0.0, 0.0)));
    spec.joints.push_back(
        test::joint(spec, "hinge", JointType::Revolute, {"a", "pin"}, {"b", "pin"}));
    EXPECT_EQ(overlapsOf(spec).pairs, 0u);
}

TEST(StartOverlaps, APileSetDownInOnePlaceHasEveryPairInsideOneAnother) {
    SceneSpec spec = test::contactScene();
    constexpr int kBoxes = 12;
    for (int k = 0; k < kBoxes; ++k)
        test::addBox(spec, "box" + std::to_string(k), kCube,
                     at(1e-3 * (k % 3), 1e-3 * (k % 4), 0.06 + 1e-3 * k));
    const StartOverlaps found = overlapsOf(spec);
    EXPECT_EQ(found.pairs, static_cast<std::size_t>(kBoxes * (kBoxes - 1) / 2));
    EXPECT_GT(found.depth, 0.09);
}

// The run's statistics say it once the run leaves its first frame, and the words name the
// pair, the depth, the others and the push-out speed; a reset clears them until the run goes on.
TEST(StartOverlaps, ARunSaysItAsItLeavesItsFirstFrame) {
    SceneSpec spec = test::contactScene();
    test::addBox(spec, "left", kCube, at(0.0, 0.0, 0.05));
    test::addBox(spec, "right", kCube, at(0.07, 0.0, 0.05));
    test::addBox(spec, "top", kCube, at(-0.04, 0.0, 0.13));  // 2 cm into left only
    Simulator sim(test::compiled(spec));
    EXPECT_EQ(sim.snapshot()->statistics.startOverlaps, 0u);
    sim.runTo(0.01);
    ASSERT_TRUE(sim.waitUntilIdle(60s));
    RunStatistics stats = sim.snapshot()->statistics;
    EXPECT_EQ(stats.startOverlaps, 2u);
    EXPECT_NEAR(stats.startOverlapDepth, 0.03, 1e-9);
    EXPECT_EQ(stats.startOverlapPartA, "left");
    EXPECT_EQ(stats.startOverlapPartB, "right");
    EXPECT_EQ(stats.startOverlapText,
              "parts 'left' and 'right' start 0.03 m inside one another (1 more pair of parts "
              "deeper than 0.00101 m): contact pushes them apart at up to the push-out speed "
              "(contact.pushSpeed, 1 m/s), so the run does not start from the scene as placed; "
              "move them apart, or switch contact between them off (a contact pair with "
              "enabled false)");
    // Going on from a later frame says nothing new.
    sim.runTo(0.02);
    ASSERT_TRUE(sim.waitUntilIdle(60s));
    EXPECT_EQ(sim.snapshot()->statistics.startOverlapText, stats.startOverlapText);
    sim.reset();
    ASSERT_TRUE(sim.waitUntilIdle(60s));
    EXPECT_EQ(sim.snapshot()->statistics.startOverlaps, 0u);
    sim.runTo(0.01);
    ASSERT_TRUE(sim.waitUntilIdle(60s));
    EXPECT_EQ(sim.snapshot()->statistics.startOverlaps, 2u);

    SceneSpec apart = test::contactScene();
    test::addBox(apart, "left", kCube, at(0.0, 0.0, 0.05));
    test::addBox(apart, "right", kCube, at(0.1, 0.0, 0.05));  // touching, not inside
    Simulator clean(test::compiled(apart));
    clean.runTo(0.01);
    ASSERT_TRUE(clean.waitUntilIdle(60s));
    EXPECT_EQ(clean.snapshot()->statistics.startOverlaps, 0u);
    EXPECT_TRUE(clean.snapshot()->statistics.startOverlapText.empty());
}

}  // namespace
}  // namespace engine
