// libFuzzer target for reading a scene and running it: any input must be read, compiled and,
// when it compiles, assembled and run for a few output steps without a crash, a hang or
// undefined behaviour (the build adds AddressSanitizer and UBSan); so must the model of each
// analysis that leaves elements of its own out (compiled; the simulation's run too). The run
// is bounded (see bounded_run.h), so one input never takes long; its failures are results, not
// findings. Mesh files are looked up in scenes/, as for the examples.

#include <cstdint>
#include <string_view>

#include "engine/io/scene_json.h"
#include "engine/model/model.h"
#include "tests/fuzz/bounded_run.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    engine::io::SceneLoadResult r = engine::io::parseScene(text, MOTUS_SOURCE_DIR "/scenes");
    if (!r.scene || !fuzz::runnable(*r.scene)) return 0;
    fuzz::boundSettings(*r.scene);
    const engine::CompileResult compiled = engine::compile(*r.scene);
    if (compiled.model) fuzz::runBriefly(compiled.model);
    // Each analysis with elements of its own left out (engine/model/deactivation.h) is a model
    // of its own: compiled, and the run's briefly.
    for (int a = 0; a < engine::kAnalysisCount; ++a) {
        if (r.scene->analyses[static_cast<std::size_t>(a)].inactive.empty()) continue;
        const engine::CompileResult own =
            engine::compile(*r.scene, static_cast<engine::Analysis>(a));
        if (own.model && a == static_cast<int>(engine::Analysis::Simulation))
            fuzz::runBriefly(own.model);
    }
    return 0;
}
