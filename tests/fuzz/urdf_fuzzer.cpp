// libFuzzer target for the URDF importer: any input must be imported or refused without a
// crash, a hang, a leak or undefined behaviour (the build adds AddressSanitizer and UBSan);
// and what is imported must compile, and survive the scene writer: written and read again, it
// loads with no errors (what `motus-cli import-urdf` writes, Motus opens). The input is read as
// if it were a file in scenes/urdf, so the example's meshes are found.

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "engine/import/urdf_import.h"
#include "engine/io/scene_json.h"
#include "engine/model/model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const engine::io::UrdfImportResult r =
        engine::io::importUrdf(text, MOTUS_SOURCE_DIR "/scenes/urdf/input.urdf");
    if (!r.scene) return 0;
    (void)engine::compile(*r.scene);
    const engine::io::SceneLoadResult back =
        engine::io::parseScene(engine::io::sceneToJson(*r.scene), MOTUS_SOURCE_DIR "/scenes/urdf");
    if (!back.scene) std::abort();  // the imported scene does not load once written
    return 0;
}
