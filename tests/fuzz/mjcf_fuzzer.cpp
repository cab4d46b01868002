// libFuzzer target for the MJCF importer: any input must be imported or refused without a
// crash, a hang, a leak or undefined behaviour in Motus (the build adds AddressSanitizer and
// UBSan); and what is imported must compile, and survive the scene writer: written and read
// again, it loads with no errors (what `motus-cli import` writes, Motus opens).
//
// The importer is run as Motus runs it: the scan of the file's numbers, then MuJoCo's compiler
// (mj_loadXML) in a forked child bounded in memory and time (engine/io/child_process.h), the
// compiled model read back, checked and walked into a scene. MuJoCo is a system library, not
// instrumented: its crashes on malformed files are what the child process is for, and show
// here as refused files, not as findings. The child's bounds are tighter than a user's (5 s,
// 512 MB) so that it is stopped before libFuzzer's -timeout and -rss_limit_mb.

#include <cstdint>
#include <cstdlib>

#include "engine/import/mjcf_import.h"
#include "engine/io/child_process.h"
#include "engine/io/scene_json.h"
#include "engine/model/model.h"
#include "tests/fuzz/forked_readers.h"
#include "tests/fuzz/input_folder.h"

#ifdef MOTUS_FUZZ_READERS_IN_PROCESS
// The fast variant runs the reader in the fuzzing process: what the reader leaks (Assimp and
// MuJoCo leak on some malformed files; in a child the leak ends with it) is the reader's.
extern "C" const char* __lsan_default_suppressions() {
    return "leak:libassimp.so\nleak:libmujoco.so\n";
}
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
#ifdef MOTUS_FUZZ_READERS_IN_PROCESS
    static const bool inProcess = (engine::io::runReadersInProcessForFuzzing(), true);
    (void)inProcess;
#else
    fuzz::defaultCrashHandlingInForkedChildren();
#endif
    static const fuzz::InputFolder folder("mjcf",
                                          {MOTUS_SOURCE_DIR "/tests/engine/io/data/box.obj",
                                           MOTUS_SOURCE_DIR "/tests/engine/io/data/tetra.stl"});
    const std::string path = folder.write("input.xml", data, size);
    engine::io::RobotImportOptions options;
    options.compilerLimits.memoryBytes = std::size_t{512} << 20;
    options.compilerLimits.seconds = 5.0;
    const engine::io::RobotImportResult r = engine::io::importMjcfFile(path, options);
    if (!r.scene) return 0;
    (void)engine::compile(*r.scene);
    // Written as `motus-cli import --out` writes it (with the meshes MuJoCo compiled, when
    // they are in no file, beside it), and read again.
    const std::string scene = folder.path() + "/imported.json";
    std::string error;
    if (!engine::io::saveSceneFile(*r.scene, scene, error)) std::abort();  // refused by the writer
    if (!engine::io::loadSceneFile(scene).scene) std::abort();  // written, but does not load
    return 0;
}
