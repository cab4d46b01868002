// libFuzzer target for the SDF importer (libsdformat): any input must be imported or refused
// without a crash, a hang, a leak or undefined behaviour (the build adds AddressSanitizer and
// UBSan); and what is imported must compile, and survive the scene writer: written and read
// again, it loads with no errors (what `motus-cli import` writes, Motus opens). The input is a
// file beside copies of the example meshes, so a seed's <mesh><uri>box.obj</uri> is found.

#include <cstdint>
#include <cstdlib>

#include "engine/import/sdf_import.h"
#include "engine/io/scene_json.h"
#include "engine/model/model.h"
#include "tests/fuzz/input_folder.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const fuzz::InputFolder folder("sdf",
                                          {MOTUS_SOURCE_DIR "/tests/engine/io/data/box.obj",
                                           MOTUS_SOURCE_DIR "/tests/engine/io/data/tetra.stl"});
    const std::string path = folder.write("input.sdf", data, size);
    const engine::io::RobotImportResult r = engine::io::importSdfFile(path);
    if (!r.scene) return 0;
    (void)engine::compile(*r.scene);
    const engine::io::SceneLoadResult back =
        engine::io::parseScene(engine::io::sceneToJson(*r.scene), folder.path());
    if (!back.scene) std::abort();  // the imported scene does not load once written
    return 0;
}
