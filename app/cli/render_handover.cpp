#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "app/cli/commands.h"
#include "app/cli/common.h"

namespace cli {

// `render` in motus-cli: the renderer (OpenSceneGraph, FFmpeg: over a hundred libraries) lives
// in a program of its own next to this one (render.cpp, motus-render), so that every other
// command starts at once; it takes over this process with the same arguments.
int runRender(const RenderOptions& options) {
    if (!outputsAreSafe({{"--out", options.out}}, {options.run})) return kExitUsage;
#ifdef MOTUS_RENDER_PROGRAM
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    const std::filesystem::path program = self.parent_path() / MOTUS_RENDER_PROGRAM;
    if (!error && gArgv) {
        std::vector<char*> argv(gArgv, gArgv + gArgc);
        argv.push_back(nullptr);
        ::execv(program.c_str(), argv.data());
    }
    printError("the renderer " + program.string() + " cannot be started (" +
                   (error ? error.message() : std::string(std::strerror(errno))) +
                   "): it is installed next to motus-cli",
               options.out);
    return kExitInvalidInput;
#else
    printError("this motus-cli was built without the renderer (MOTUS_BUILD_GUI=OFF)", options.run);
    return kExitUsage;
#endif
}

}  // namespace cli
