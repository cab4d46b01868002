// Real robot descriptions as their vendors publish them (tests/data/robots/, LICENSES.md there
// says where each comes from): each imports as found — degenerate inertia data fixed with a
// warning per link, massless frames merged, joint limits as stops, joint damping as dampers —
// and, its base bolted down, swings its limbs for 1 s under gravity, no drive, no contact: as
// imported (its stops time-stepped) within its stops with its joints closed, and without its
// stops and dampers (integrated by dopri45) with its energy kept. The fix-ups counted here were found by
// an independent reading of the files (principal moments of each <inertial>).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "engine/import/robot_import.h"
#include "tests/support/robot_runs.h"
#include "tests/support/simulation.h"

namespace engine::io {
namespace {

const std::string kRobots = MOTUS_SOURCE_DIR "/tests/data/robots/";

struct CorpusRobot {
    std::string file;   // under tests/data/robots/
    int raisedMoments;  // links whose smallest principal moment (zero) is raised to the bound
    int balanced;       // links whose moments are not all positive or violate the triangle
                        // inequality, balanced to their mean
    int meshesMissing;  // meshes not committed with the file (warned about, left out)
    // Dampers the compiler's stability estimate (the two parts a force joins, alone) says the
    // time-stepping integrator's explicit step of 1 ms cannot follow; they run (what hangs
    // beyond their joints, which the estimate leaves out, slows them).
    int stepWarnings = 0;
};

void PrintTo(const CorpusRobot& robot, std::ostream* out) {
    *out << robot.file;
}

int countWarnings(const Diagnostics& diagnostics, std::string_view text) {
    int n = 0;
    for (const Diagnostic& d : diagnostics)
        n += d.severity == Severity::Warning && d.message.find(text) != std::string::npos;
    return n;
}

class RobotCorpus : public ::testing::TestWithParam<CorpusRobot> {};

TEST_P(RobotCorpus, ImportsAsFoundAndFallsWithItsJointsClosedAndItsEnergyKept) {
    const CorpusRobot& robot = GetParam();
    const std::string path = kRobots + robot.file;
    // Bolted down: a floating robot in free fall moves as one body and its joints never turn;
    // bolted, its limbs swing and its joints carry load.
    RobotImportOptions bolted;
    bolted.fixedBase = true;
    const RobotImportResult r = importRobotFile(path, bolted);
    for (const Diagnostic& d : r.diagnostics)
        if (d.severity == Severity::Error) ADD_FAILURE() << d.where << ": " << d.message;
    ASSERT_TRUE(r.scene);
    EXPECT_EQ(countWarnings(r.diagnostics, ": raised to it"), robot.raisedMoments);
    EXPECT_EQ(countWarnings(r.diagnostics, "balanced to their mean"), robot.balanced);
    EXPECT_EQ(countWarnings(r.diagnostics, "not found (looked for"), robot.meshesMissing);

    // --strict refuses exactly the files that needed fixing.
    RobotImportOptions strict = bolted;
    strict.strict = true;
    const bool fixed = robot.raisedMoments > 0 || robot.balanced > 0;
    EXPECT_EQ(importRobotFile(path, strict).scene.has_value(), !fixed);

    // Gravity a little off the vertical: a limb hanging straight down at zero joint angles (a
    // pendulum, a leg) would otherwise stay at rest.
    SceneSpec scene = *r.scene;
    scene.gravity = Vec3(2.0, 1.5, -9.81);

    // As imported: the stops hold (to the reach of one step: a stop is taken into a step's
    // problem when the step's motion may reach it), the joints stay closed. Time stepping is
    // first order: its energy balance (the stops' and dampers' work accounted) drifts by its
    // own error, a few percent of what the motion exchanges, not more.
    // (Joint friction left out: a leg whose bearings hold it would not swing onto its stops.)
    const test::StoppedRun stopped = test::runWithStops(test::withoutFriction(scene), 1.0);
    EXPECT_EQ(test::countStepWarnings(stopped.diagnostics), robot.stepWarnings);
    ASSERT_TRUE(stopped.ran) << stopped.failure;
    EXPECT_GT(stopped.kinetic, 1e-3);  // its limbs swung
    EXPECT_LT(stopped.overshoot, 1e-3);
    EXPECT_LT(stopped.constraintError, 1e-9);
    EXPECT_LT(stopped.drift, 0.05 * stopped.exchanged);
    std::printf(
        "%s with its stops: kinetic %.4g J, balance drift %.3g of %.4g J exchanged, "
        "stops passed by %.3g at most, joints closed to %.3g\n",
        robot.file.c_str(), stopped.kinetic, stopped.drift / stopped.exchanged, stopped.exchanged,
        stopped.overshoot, stopped.constraintError);

    // With its joints' friction as imported: still within its stops and closed, its energy
    // balance (the friction's work accounted) as good, and no livelier than without it.
    const bool rubs = std::any_of(scene.joints.begin(), scene.joints.end(),
                                  [](const Joint& j) { return j.hasFriction(); });
    if (rubs) {
        const test::StoppedRun rubbing = test::runWithStops(scene, 1.0);
        ASSERT_TRUE(rubbing.ran) << rubbing.failure;
        EXPECT_LT(rubbing.overshoot, 1e-3);
        EXPECT_LT(rubbing.constraintError, 1e-9);
        EXPECT_LT(rubbing.drift, 0.05 * rubbing.exchanged + 1e-9);
        EXPECT_LT(rubbing.kinetic, stopped.kinetic);
        std::printf("%s with its joint friction: kinetic %.4g J, balance drift %.3g J\n",
                    robot.file.c_str(), rubbing.kinetic, rubbing.drift);
    }

    // Without its stops and dampers, integrated by dopri45: the energy kept to 1e-6 of the
    // kinetic energy. (With them dopri45 follows Baxter's shoulder dampers, on a 0.1 g arm
    // mount, with steps of microseconds: 2 minutes for the second.)
    const test::FreeRun run =
        test::runFree(test::withoutStops(scene, /*withoutDampers=*/true), 1.0);
    ASSERT_TRUE(run.ran) << run.failure;
    EXPECT_GT(run.kinetic, 1e-3);  // its limbs swung
    EXPECT_NEAR(run.balanceAfter, run.balanceBefore, 1e-6 * run.kinetic);
    EXPECT_LT(run.constraintError, 1e-9);
}

const std::string kErd = "urdf/example-robot-data/robots/";

INSTANTIATE_TEST_SUITE_P(
    Urdf, RobotCorpus,
    ::testing::Values(
        // STL meshes in a package:// tree (package://example-robot-data/…, the package.xml two
        // folders up), and a zero principal moment.
        CorpusRobot{kErd + "finger_edu_description/robots/finger_edu.urdf", 1, 0, 0},
        CorpusRobot{kErd + "hyq_description/robots/hyq_no_sensors.urdf", 1, 5, 22},
        CorpusRobot{kErd + "baxter_description/urdf/baxter.urdf", 2, 0, 30, 0},
        CorpusRobot{kErd + "anymal_c_simple_description/urdf/anymal.urdf", 0, 5, 45},
        CorpusRobot{kErd + "panda_description/urdf/panda.urdf", 0, 0, 20},
        CorpusRobot{kErd + "ur_description/urdf/ur5_robot.urdf", 0, 0, 14},
        CorpusRobot{kErd + "quadruped_description/urdf/quadruped.urdf", 4, 0, 13},
        CorpusRobot{kErd + "romeo_description/urdf/romeo_small.urdf", 0, 2, 40},
        CorpusRobot{kErd + "kinova_description/robots/kinova.urdf", 0, 0, 28},
        CorpusRobot{kErd + "double_pendulum_description/urdf/double_pendulum_simple.urdf", 0, 0, 0},
        CorpusRobot{kErd + "solo_description/robots/solo12.urdf", 0, 0, 34},
        CorpusRobot{kErd + "go1_description/urdf/go1.urdf", 0, 1, 21},
        CorpusRobot{kErd + "simple_humanoid_description/urdf/simple_humanoid.urdf", 0, 0, 1},
        // The iCub humanoid (robotology/icub-models): 213 links, 174 of them massless frames on
        // fixed joints (merged), 32 revolutes with stops and dampers, binary STL meshes in a
        // package://iCub/… tree with no package.xml (the folder named as the package).
        // Eight of its dampers (1 N·m·s/rad on links of 2.4e-4 to 4.5e-4 kg·m²) warned about at
        // 1 ms (ten before its welded links were folded into their parents).
        CorpusRobot{"urdf/icub-models/iCub/robots/iCubGazeboV2_5/model.urdf", 0, 0, 0, 8}),
    [](const ::testing::TestParamInfo<CorpusRobot>& info) {
        std::string name = std::filesystem::path(info.param.file).stem().string();
        for (char& c : name)
            if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
        return name;
    });

}  // namespace
}  // namespace engine::io
