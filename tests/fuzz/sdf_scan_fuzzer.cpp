// libFuzzer target for what Motus reads of an SDF file before libsdformat does
// (engine/import/sdf_import.h, sdfReadProblem): its own scan of the XML text for elements and
// <include> URIs, the includes found as libsdformat finds them (and through the package path),
// cycles, depth and the memory estimate. Any input must be scanned, accepted or refused with a
// reason, without a crash, a hang, a leak or undefined behaviour (AddressSanitizer, UBSan).
//
// The scan runs on every SDF a user imports, on text nobody checked; libsdformat's own reading
// (which sdf_fuzzer covers, at a few inputs a second) costs 25–100 ms a file even in a release
// build, so this target gives Motus's part the millions of inputs the whole import cannot get.
//
// One input is up to four files, a.sdf to d.sdf, separated by lines "=====": includes between
// them (<uri>b.sdf</uri>, or model://…) make chains and cycles. The seeds are in
// tests/fuzz/seeds-sdf-scan (and tests/fuzz/seeds-sdf, one file each).

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/import/sdf_import.h"
#include "tests/fuzz/input_folder.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const fuzz::InputFolder folder("sdf-scan", {});
    static const char* const kNames[] = {"a.sdf", "b.sdf", "c.sdf", "d.sdf"};
    std::string_view rest(reinterpret_cast<const char*>(data), size);
    constexpr std::string_view kSeparator = "\n=====\n";
    for (std::size_t k = 0; k < 4; ++k) {
        const std::size_t end = k == 3 ? std::string_view::npos : rest.find(kSeparator);
        const std::string_view file = rest.substr(0, end);
        folder.write(kNames[k], reinterpret_cast<const std::uint8_t*>(file.data()), file.size());
        rest = end == std::string_view::npos ? std::string_view()
                                             : rest.substr(end + kSeparator.size());
    }
    const std::string problem = engine::io::sdfReadProblem(folder.path() + "/a.sdf");
    // A refusal names what it refuses: the file or the chain of includes.
    if (!problem.empty() && problem.find(".sdf") == std::string::npos) std::abort();
    return 0;
}
