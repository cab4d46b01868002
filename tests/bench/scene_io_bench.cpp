// Reading and validating scene files.

#include <fstream>
#include <sstream>

#include <benchmark/benchmark.h>

#include "engine/import/robot_import.h"
#include "engine/io/scene_json.h"

namespace {

std::string readFile(const char* path) {
    std::ifstream in(path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

// A chain of N box links hinged end to end (the chain-N benchmark layout), as scene JSON.
std::string chainScene(int links) {
    std::ostringstream s;
    s << R"({"format":"motus-scene","version":1,"parts":[{"name":"ground","ground":true,)"
      << R"("markers":[{"name":"m0"}]})";
    for (int i = 0; i < links; ++i) {
        s << R"(,{"name":"link)" << i << R"(","mass":1,"inertia":[6.667e-5,8.667e-4,8.667e-4],)"
          << R"("position":[)" << 0.1 * i + 0.05
          << R"(,0,0],"geometry":[{"type":"box","size":[0.1,0.02,0.02]}],)"
          << R"("markers":[{"name":"a","position":[-0.05,0,0],"orientation":{"axis":[1,0,0],"angleDeg":-90}},)"
          << R"({"name":"b","position":[0.05,0,0],"orientation":{"axis":[1,0,0],"angleDeg":-90}}]})";
    }
    s << R"(],"joints":[)";
    for (int i = 0; i < links; ++i) {
        s << (i ? "," : "") << R"({"name":"j)" << i << R"(","type":"revolute","markerI":"link)" << i
          << R"(.a","markerJ":")"
          << (i == 0 ? std::string("ground.m0") : "link" + std::to_string(i - 1) + ".b") << R"("})";
    }
    s << "]}";
    return s.str();
}

void BM_ParseFourBar(benchmark::State& state) {
    const std::string text = readFile(MOTUS_SOURCE_DIR "/scenes/four_bar.json");
    for (auto _ : state) {
        auto result = engine::io::parseScene(text);
        benchmark::DoNotOptimize(result);
        if (!result.scene) state.SkipWithError("four_bar.json did not load");
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParseFourBar);

void BM_ParseChain(benchmark::State& state) {
    const std::string text = chainScene(static_cast<int>(state.range(0)));
    for (auto _ : state) {
        auto result = engine::io::parseScene(text);
        benchmark::DoNotOptimize(result);
        if (!result.scene) state.SkipWithError("chain scene did not load");
    }
    state.SetComplexityN(state.range(0));
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParseChain)->RangeMultiplier(4)->Range(16, 1024)->Complexity();

// Importing a robot description into a scene (read, checked, turned into parts and joints), the
// same file again and again in one process, as the GUI's import and a study of imports do.
void importRobot(benchmark::State& state, const char* path) {
    for (auto _ : state) {
        auto result = engine::io::importRobotFile(path);
        benchmark::DoNotOptimize(result);
        if (!result.scene) state.SkipWithError("the robot did not import");
    }
}
void BM_ImportSdfPendulum(benchmark::State& state) {
    importRobot(state, MOTUS_SOURCE_DIR "/tests/fuzz/seeds-sdf/pendulum.sdf");
}
BENCHMARK(BM_ImportSdfPendulum)->Unit(benchmark::kMillisecond);
void BM_ImportSdfKukaIiwa(benchmark::State& state) {
    importRobot(state, MOTUS_SOURCE_DIR "/tests/data/robots/sdf/kuka_iiwa/model.sdf");
}
BENCHMARK(BM_ImportSdfKukaIiwa)->Unit(benchmark::kMillisecond);
void BM_ImportMjcfWalker2d(benchmark::State& state) {
    importRobot(state, MOTUS_SOURCE_DIR "/tests/data/robots/mjcf/walker2d.xml");
}
BENCHMARK(BM_ImportMjcfWalker2d)->Unit(benchmark::kMillisecond);

}  // namespace
