// libFuzzer target for the STEP importer (engine/import/step_import.h): any input must be
// imported or refused without a crash, a hang, a leak or undefined behaviour in Motus (the build
// adds AddressSanitizer and UBSan); what is imported must compile, and survive the scene writer:
// written (its drawings beside it) and read again, it loads with no errors.
//
// The importer is run as Motus runs it: OpenCASCADE's reader in a forked child bounded in memory
// and time (engine/io/child_process.h), its answer decoded and made a scene, joints suggested
// and accepted. OpenCASCADE is a system library, not instrumented: its crashes on malformed
// files are what the child process is for, and show here as refused files, not as findings.
// The child's bounds are tighter than a user's (5 s, 512 MB) so that it is stopped before
// libFuzzer's -timeout and -rss_limit_mb.

#include <cstdint>
#include <cstdlib>

#include "engine/import/step_import.h"
#include "engine/io/scene_json.h"
#include "engine/model/model.h"
#include "tests/fuzz/forked_readers.h"
#include "tests/fuzz/input_folder.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::defaultCrashHandlingInForkedChildren();
    static const fuzz::InputFolder folder("step", {});
    const std::string path = folder.write("input.step", data, size);
    engine::io::CadImportOptions options;
    options.readerLimits.memoryBytes = std::size_t{512} << 20;
    options.readerLimits.seconds = 5.0;
    // (as given: not raised for the file's size, which would let a stuck child outlast
    // libFuzzer's -timeout and show as a hang of the fuzzer instead of a refused file)
    options.limitsFromFileSize = false;
    const engine::io::CadImportResult r = engine::io::importStepFile(path, options);
    if (!r.scene) return 0;
    engine::SceneSpec spec = *r.scene;
    for (const engine::io::JointSuggestion& s : r.suggestions)
        engine::io::addSuggestedJoint(spec, s);
    (void)engine::compile(spec);
    const std::string scene = folder.path() + "/imported.json";
    std::string error;
    if (!engine::io::saveSceneFile(spec, scene, error)) std::abort();  // refused by the writer
    if (!engine::io::loadSceneFile(scene).scene) std::abort();         // written, but does not load
    return 0;
}
