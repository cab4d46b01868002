// libFuzzer target for the scene reader. Any input must be read without a crash, a hang or
// undefined behaviour (the build adds AddressSanitizer and UBSan); and whatever is accepted
// must compile, and survive the writer: written and read again, it is the same scene.

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "engine/io/scene_json.h"
#include "engine/model/model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const engine::io::SceneLoadResult r = engine::io::parseScene(text);
    if (!r.scene) return 0;
    (void)engine::compile(*r.scene);
    const std::string written = engine::io::sceneToJson(*r.scene);
    const engine::io::SceneLoadResult back = engine::io::parseScene(written);
    if (!back.scene || engine::io::sceneToJson(*back.scene) != written)
        std::abort();  // round trip broken
    return 0;
}
