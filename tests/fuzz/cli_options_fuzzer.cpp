// libFuzzer target for motus-cli's command line (app/cli/command_line.h): the input is the
// words after the program's name, one a line. Any command line must be read or refused without
// a crash, a leak or undefined behaviour (the build adds AddressSanitizer and UBSan), no command
// is run, and the outcome is one of three: the help or the version printed (status 0), a usage
// error said on stderr in motus-cli's form (status 2), or one command with its options. The
// --set overrides of a command line that is read are then applied to the pendulum example, as
// every command that reads a scene applies them.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/command_line.h"
#include "engine/io/scene_overrides.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> words = {"motus-cli"};
    for (std::size_t at = 0; at <= text.size() && words.size() < 1000;) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        words.emplace_back(text.substr(at, end - at));
        at = end + 1;
    }
    if (!text.empty() && text.back() == '\n') words.pop_back();  // a last newline ends a word
    std::vector<const char*> argv;
    for (const std::string& w : words) argv.push_back(w.c_str());
    argv.push_back(nullptr);

    std::ostringstream out, err;
    const cli::CommandLine line =
        cli::parseCommandLine(static_cast<int>(words.size()), argv.data(), out, err);
    if (line.exitStatus) {
        if (*line.exitStatus == 0 && out.str().empty()) std::abort();  // help without the help
        if (*line.exitStatus == 2 && !err.str().starts_with("motus-cli: error: "))
            std::abort();  // a usage error not said in motus-cli's form
        if (*line.exitStatus != 0 && *line.exitStatus != 2) std::abort();
        return 0;
    }
    if (line.command == cli::Command::None) std::abort();  // read, but no command to run
    if (!line.overrides.empty())
        (void)engine::io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/pendulum.json", line.overrides);
    return 0;
}
