// The canonical robots in MuJoCo, beside BM_RobotRealTime (#46's acceptance: the robots' real-time
// factor measured for MuJoCo on their twins too). The twin is made from the same URDF by MuJoCo's
// own URDF compiler (the libmujoco that reads MJCF for Motus): visuals discarded, fixed links fused
// as MuJoCo does, the same collision shapes, limits, damping and friction; a floating base gets a
// free joint; the floor is the plane Motus's scene puts under the robot (tests/support/robots.h),
// touched by the robot's shapes but not theirs by each other, μ = 0.5 as Motus's default; a 1 ms
// step, MuJoCo's defaults otherwise (Euler with implicit damping, Newton solver, pyramidal cones).
// The `real_time` counter is simulated seconds per wall second; `base_z` where the robot's root
// ends after 1 s (m), to compare with Motus's run.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include "tests/support/robots.h"

namespace {

using namespace engine;

std::string readText(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void writeText(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

struct ModelDeleter {
    void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct DataDeleter {
    void operator()(mjData* d) const { mj_deleteData(d); }
};
using ModelPtr = std::unique_ptr<mjModel, ModelDeleter>;

// Where MuJoCo finds each robot's collision meshes (it keeps a URDF mesh's file name only).
const char* const kMeshFolders[] = {
    "example-robot-data/robots/anymal_c_simple_description/meshes",
    "example-robot-data/robots/go1_description/meshes",
    "example-robot-data/robots/panda_description/meshes/collision",
    "icub-models/iCub/meshes/simmechanics",
};

// The twin of test::robot(which, bolted): nullptr and `error` when MuJoCo refuses it.
ModelPtr mujocoTwin(test::Robot which, bool bolted, double& floorZ, std::string& error) {
    std::optional<SceneSpec> spec = test::robot(which, bolted, error);
    if (!spec) return nullptr;
    floorZ = 0.0;
    for (const Part& part : spec->parts)
        if (part.ground && !part.shapes.empty()) floorZ = part.shapes.front().X_PG.p.z();

    std::string urdf = readText(test::robotFile(which));
    const std::size_t robotTag = urdf.find("<robot");
    const std::size_t tagEnd = robotTag == std::string::npos ? robotTag : urdf.find('>', robotTag);
    if (tagEnd == std::string::npos) {
        error = "no <robot> element";
        return nullptr;
    }
    std::string extension = std::string("<mujoco><compiler meshdir=\"") + MOTUS_SOURCE_DIR +
                            "/tests/data/robots/urdf/" + kMeshFolders[static_cast<int>(which)] +
                            "/\" discardvisual=\"true\" balanceinertia=\"true\"/></mujoco>";
    if (!bolted)
        extension +=
            "<link name=\"world\"/><joint name=\"motus_free\" type=\"floating\"><parent "
            "link=\"world\"/><child link=\"" +
            spec->parts.front().name + "\"/></joint>";
    urdf.insert(tagEnd + 1, extension);
    if (bolted) {
        // No contact in a bolted robot's run (Motus's as MuJoCo's): its collision shapes go, with
        // the meshes they name (the Panda's are not in tests/data).
        for (std::size_t at = urdf.find("<collision"); at != std::string::npos;
             at = urdf.find("<collision", at)) {
            const std::size_t end = urdf.find("</collision>", at);
            if (end == std::string::npos) break;
            urdf.erase(at, end + std::string("</collision>").size() - at);
        }
    }

    const std::filesystem::path folder = std::filesystem::temp_directory_path();
    const std::string stem = "motus_twin_" + std::to_string(static_cast<int>(which));
    const std::filesystem::path urdfPath = folder / (stem + ".urdf");
    const std::filesystem::path mjcfPath = folder / (stem + ".xml");
    writeText(urdfPath, urdf);
    char message[1000] = "";
    ModelPtr fromUrdf(mj_loadXML(urdfPath.c_str(), nullptr, message, sizeof message));
    std::filesystem::remove(urdfPath);
    if (!fromUrdf) {
        error = std::string("MuJoCo refused the URDF: ") + message;
        return nullptr;
    }
    if (bolted) return fromUrdf;

    // The floor: a plane in the world body of the compiled model's MJCF.
    if (!mj_saveLastXML(mjcfPath.c_str(), fromUrdf.get(), message, sizeof message)) {
        error = std::string("MuJoCo did not save the MJCF: ") + message;
        return nullptr;
    }
    std::string mjcf = readText(mjcfPath);
    const std::size_t world = mjcf.find("<worldbody>");
    if (world == std::string::npos) {
        error = "no <worldbody> in MuJoCo's MJCF";
        return nullptr;
    }
    char floor[160];
    std::snprintf(floor, sizeof floor,
                  "<geom name=\"motus_floor\" type=\"plane\" size=\"0 0 1\" pos=\"0 0 %.17g\"/>",
                  floorZ);
    mjcf.insert(world + std::string("<worldbody>").size(), floor);
    writeText(mjcfPath, mjcf);
    ModelPtr twin(mj_loadXML(mjcfPath.c_str(), nullptr, message, sizeof message));
    std::filesystem::remove(mjcfPath);
    if (!twin) error = std::string("MuJoCo refused the twin's MJCF: ") + message;
    return twin;
}

// Args: the robot (test::Robot). 1 s of motion at 1 ms.
void BM_RobotRealTimeMuJoCo(benchmark::State& bench) {
    const auto which = static_cast<test::Robot>(bench.range(0));
    const bool bolted = which == test::Robot::Panda;
    std::string error;
    double floorZ = 0.0;
    ModelPtr model = mujocoTwin(which, bolted, floorZ, error);
    if (!model) {
        bench.SkipWithError(error.c_str());
        return;
    }
    mjModel* m = model.get();
    m->opt.timestep = 1e-3;
    if (bolted) m->opt.disableflags |= mjDSBL_CONTACT;  // as Motus's bolted Panda: no contact
    for (int g = 0; g < m->ngeom; ++g) {
        const bool floor = m->geom_bodyid[g] == 0;
        m->geom_contype[g] = floor ? 1 : 2;  // the floor touches the robot, the robot not itself
        m->geom_conaffinity[g] = floor ? 2 : 1;
        m->geom_friction[3 * g] = 0.5;
    }
    std::unique_ptr<mjData, DataDeleter> data(mj_makeData(m));
    const int steps = 1000;
    for (auto _ : bench) {
        mj_resetData(m, data.get());
        for (int k = 0; k < steps; ++k) mj_step(m, data.get());
        benchmark::DoNotOptimize(data->qpos);
    }
    bench.counters["real_time"] =
        benchmark::Counter(steps * m->opt.timestep, benchmark::Counter::kIsIterationInvariantRate);
    if (!bolted) bench.counters["base_z"] = data->xpos[3 * 1 + 2];
    bench.counters["contacts"] = data->ncon;
}
BENCHMARK(BM_RobotRealTimeMuJoCo)
    ->DenseRange(0, 3)
    ->ArgName("robot")
    ->Unit(benchmark::kMillisecond);

}  // namespace
