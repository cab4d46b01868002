// libFuzzer target for the run-file reader (docs/run-file.md): any input must be read or
// refused without a crash, a hang or undefined behaviour (the build adds AddressSanitizer and
// UBSan). What loads is used as the application uses a reopened run: its frames are read,
// searched by time and plotted, and the run continues from its last frame for a few bounded
// output steps (bounded_run.h). Mesh files are looked up in scenes/, as for the examples.
//
// A run file ends with a checksum of everything before it, which almost every mutation
// breaks. So each input is read twice: as it is (the checksum test), then with the checksum
// replaced by the right one, so that mutations reach the scene, the frames and the contacts.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "engine/io/run_file.h"
#include "tests/fuzz/bounded_run.h"

namespace {

// FNV-1a, 64 bits, as the run file's checksum.
std::uint64_t fnv1a(std::string_view bytes) {
    std::uint64_t hash = 14695981039346656037ull;
    for (const char c : bytes) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 1099511628211ull;
    }
    return hash;
}

void use(engine::io::LoadedRun& run) {
    const engine::Recording& recording = *run.recording;
    const std::size_t frames = recording.size();
    if (frames == 0) return;

    // Scrubbing and plotting: times, the frame at a time, every channel over the run.
    (void)recording.frameAtOrBefore(recording.time(frames / 2));
    std::vector<double> times, values;
    for (int channel = 0; channel < static_cast<int>(recording.layout().channels().size());
         ++channel)
        recording.series(channel, 0, frames, 1 + frames / 64, times, values);

    // Continuing from the last frame, with the solver settings bounded.
    engine::State last;
    engine::Outputs outputs;
    if (!recording.read(frames - 1, last, outputs) || !fuzz::runnable(run.spec)) return;
    fuzz::boundSettings(run.spec);
    const engine::CompileResult compiled = engine::compile(run.spec);
    if (compiled.model) fuzz::runBriefly(compiled.model, &last);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    std::string error;
    if (auto run = engine::io::parseRunFile(bytes, MOTUS_SOURCE_DIR "/scenes", error)) {
        use(*run);
        return 0;
    }
    constexpr std::size_t kChecksumBytes = sizeof(std::uint64_t);
    if (size < kChecksumBytes) return 0;
    std::string fixed(bytes);
    const std::uint64_t checksum = fnv1a(bytes.substr(0, size - kChecksumBytes));
    std::memcpy(fixed.data() + size - kChecksumBytes, &checksum, kChecksumBytes);
    if (fixed == bytes) return 0;  // the checksum was right: already read
    if (auto run = engine::io::parseRunFile(fixed, MOTUS_SOURCE_DIR "/scenes", error)) use(*run);
    return 0;
}
