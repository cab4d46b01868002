// CAD import (docs/cad-import.md): a STEP assembly read in its child process, its parts' exact
// mass properties, tessellations and joint suggestions, from the file to the scene. The example
// four-bar (40 faces), and chains of links up to 5,000 faces written once by OpenCASCADE.

#include <filesystem>
#include <string>

#include <benchmark/benchmark.h>

#include "engine/import/step_import.h"
#include "tests/support/cad_examples.h"

namespace {

void reportImport(benchmark::State& state, const std::string& path) {
    engine::io::CadImportResult last;
    for (auto _ : state) {
        last = engine::io::importStepFile(path);
        benchmark::DoNotOptimize(last.scene);
    }
    if (!last.scene) {
        state.SkipWithError("the import failed");
        return;
    }
    state.counters["faces"] = last.statistics.faces;
    state.counters["parts"] = static_cast<double>(last.scene->parts.size() - 1);
    state.counters["triangles"] = static_cast<double>(last.statistics.triangles);
    state.counters["suggested"] = static_cast<double>(last.suggestions.size());
}

void BM_StepImportFourBar(benchmark::State& state) {
    reportImport(state, MOTUS_SOURCE_DIR "/scenes/cad/four_bar.step");
}
BENCHMARK(BM_StepImportFourBar)->Unit(benchmark::kMillisecond);

void BM_StepImportLinkChain(benchmark::State& state) {
    const int links = static_cast<int>(state.range(0));
    const auto path = std::filesystem::temp_directory_path() /
                      ("motus-bench-chain-" + std::to_string(links) + ".step");
    if (!std::filesystem::exists(path)) engine::test::writeLinkChainStep(path.string(), links);
    reportImport(state, path.string());
}
BENCHMARK(BM_StepImportLinkChain)->Arg(50)->Arg(500)->Unit(benchmark::kMillisecond);

}  // namespace
