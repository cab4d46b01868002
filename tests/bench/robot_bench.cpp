// Imported robots in both formulations: how much faster than real time a run goes, per
// second simulated (#46's acceptance: the canonical robots faster than real time by a stated
// factor). From tests/data/robots: ANYmal C (URDF, floating base, 12 joints with stops) and
// Unitree Go1 (URDF, floating base, 12 joints with stops and 0.2 N·m of joint friction), each
// dropped 0.1 m onto a floor that their parts touch (but not each other);
// Franka Panda (URDF, bolted down, 7 joints with stops, its fingers coupled) hanging limp
// against its stops; the iCub humanoid (URDF, floating base, 32 joints with stops and dampers,
// mesh collision shapes) dropped as the quadrupeds are. The `real_time` counter is simulated
// seconds per wall second, `base_z` where the root link ends after 1 s (m). MuJoCo's runs of the
// same robots: mujoco_robot_bench.cpp.

#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/import/robot_import.h"
#include "engine/kinematics/part_motion.h"
#include "engine/model/model.h"
#include "engine/state/state.h"
#include "tests/support/mechanisms.h"
#include "tests/support/robots.h"

namespace {

using namespace engine;

// 1 s of motion of a compiled robot, its set-up untimed.
void runRobot(benchmark::State& bench, const std::shared_ptr<const Model>& model, bool bolted) {
    const double seconds = 1.0;
    double baseZ = 0.0, unconverged = 0.0;
    std::size_t root = 0;  // the root link: the first part off the ground
    while (root + 1 < model->parts.size() && isGroundPart(*model, root)) ++root;
    for (auto _ : bench) {
        // The run's set-up (assembly; the collision world and the meshes' hulls, built by the
        // first step: 1 ms run untimed first) is not timed, as MuJoCo's twin is timed from
        // mj_resetData on, its model compiled.
        bench.PauseTiming();
        ForwardDynamics sim(model);
        if (sim.formulation().refused) {
            bench.SkipWithError(sim.formulation().reason.c_str());
            return;
        }
        if (Status s = sim.initialize(); !s.ok) {
            bench.SkipWithError(s.message.c_str());
            return;
        }
        if (Status s = sim.advance(1e-3); !s.ok) {
            bench.SkipWithError(s.message.c_str());
            return;
        }
        bench.ResumeTiming();
        if (Status s = sim.advance(1e-3 + seconds); !s.ok) {
            bench.SkipWithError(s.message.c_str());
            return;
        }
        benchmark::DoNotOptimize(sim.state().q.data());
        baseZ = partMotion(*model, root, sim.state().q, sim.state().v).com.z();
        unconverged = static_cast<double>(sim.state().unconvergedContactSteps);
    }
    bench.counters["real_time"] =
        benchmark::Counter(seconds, benchmark::Counter::kIsIterationInvariantRate);
    if (!bolted) bench.counters["base_z"] = baseZ;
    bench.counters["unconverged"] = unconverged;  // steps whose contact solve ran out of sweeps
}

// Args: the robot (test::Robot), the formulation (0 maximal, 1 joint coordinates). 1 s of motion.
void BM_RobotRealTime(benchmark::State& bench) {
    const int which = static_cast<int>(bench.range(0));
    const bool joints = bench.range(1) == 1;
    std::string error;
    const bool bolted = static_cast<test::Robot>(which) == test::Robot::Panda;
    std::optional<SceneSpec> spec = test::robot(static_cast<test::Robot>(which), bolted, error);
    if (!spec) {
        bench.SkipWithError(error.c_str());
        return;
    }
    spec->settings.formulation = joints ? Formulation::Recursive : Formulation::Maximal;
    const CompileResult compiled = compile(*spec);
    if (!compiled.model) {
        bench.SkipWithError("the robot's scene did not compile");
        return;
    }
    runRobot(bench, compiled.model, bolted);
}
BENCHMARK(BM_RobotRealTime)
    ->ArgsProduct({{0, 1, 2, 3}, {0, 1}})
    ->ArgNames({"robot", "joints"})
    ->Unit(benchmark::kMillisecond);

// Robots with links bolted on (fixed joints: mounts, sensors, covers), their welds folded into
// the links they hold (1) or held as joints of six rows each (0): ANYmal C dropped onto the
// floor as above (47 welds; 59 bodies folded to 12), Baxter bolted down hanging limp against its
// stops (37 welds; 56 bodies to 19). Maximal coordinates, 1 s of motion. Args: robot, fold.
void BM_WeldedRobot(benchmark::State& bench) {
    const bool baxter = bench.range(0) == 1;
    std::optional<SceneSpec> spec;
    std::string error;
    if (baxter) {
        io::RobotImportOptions options;
        options.fixedBase = true;
        const io::RobotImportResult r =
            io::importRobotFile(MOTUS_SOURCE_DIR
                                "/tests/data/robots/urdf/example-robot-data/robots/"
                                "baxter_description/urdf/baxter.urdf",
                                options);
        if (r.scene) spec = *r.scene;
    } else {
        spec = test::robot(test::Robot::AnymalC, false, error);
    }
    if (!spec) {
        bench.SkipWithError("the robot did not import");
        return;
    }
    spec->settings.formulation = Formulation::Maximal;
    spec->settings.foldWelds = bench.range(1) == 1;
    const CompileResult compiled = compile(*spec);
    if (!compiled.model) {
        bench.SkipWithError("the robot's scene did not compile");
        return;
    }
    bench.counters["bodies"] = compiled.model->bodyCount();
    bench.counters["rows"] = compiled.model->constraintRows();
    runRobot(bench, compiled.model, baxter);
}
BENCHMARK(BM_WeldedRobot)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"robot", "fold"})
    ->Unit(benchmark::kMillisecond);

// Where joint coordinates start to pay under timeStepping (the `auto` rule): chain-N of 10 cm
// links released horizontal above a floor 15 cm below its pivot, which its links touch (not each
// other), in both formulations; 1 s of motion, set-up untimed as above. Args: N, formulation.
void BM_ChainOnAFloor(benchmark::State& bench) {
    const int links = static_cast<int>(bench.range(0));
    SceneSpec spec = test::chain(links, IntegratorType::TimeStepping, 1e-3);
    spec.settings.formulation = bench.range(1) == 1 ? Formulation::Recursive : Formulation::Maximal;
    for (Part& part : spec.parts) {
        part.collision.group = part.ground ? 1 : 2;
        part.collision.mask = part.ground ? 2 : 1;
        if (!part.ground) continue;
        Shape plane;  // the floor, on the ground part
        plane.type = ShapeType::Plane;
        plane.role = ShapeRole::Collision;
        plane.X_PG.p = Vec3(0.0, 0.0, -0.15);
        part.shapes.push_back(plane);
    }
    spec.contact.enabled = true;
    const CompileResult compiled = compile(spec);
    if (!compiled.model) {
        bench.SkipWithError("the chain did not compile");
        return;
    }
    for (auto _ : bench) {
        bench.PauseTiming();
        ForwardDynamics sim(compiled.model);
        if (Status s = sim.initialize(); !s.ok || sim.formulation().refused) {
            bench.SkipWithError("the chain did not start");
            return;
        }
        if (Status s = sim.advance(1e-3); !s.ok) {
            bench.SkipWithError(s.message.c_str());
            return;
        }
        bench.ResumeTiming();
        if (Status s = sim.advance(1e-3 + 1.0); !s.ok) {
            bench.SkipWithError(s.message.c_str());
            return;
        }
    }
    bench.counters["real_time"] =
        benchmark::Counter(1.0, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ChainOnAFloor)
    ->ArgsProduct({{1, 2, 4, 8, 16, 32}, {0, 1}})
    ->ArgNames({"links", "joints"})
    ->Unit(benchmark::kMillisecond);

}  // namespace
