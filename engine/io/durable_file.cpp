#include "engine/io/durable_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

namespace engine::io {
namespace {

bool syncPath(const std::string& path, int flags) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd < 0) return false;
    const bool synced = ::fsync(fd) == 0;
    return ::close(fd) == 0 && synced;
}

}  // namespace

bool syncAndClose(std::ofstream& file, const std::string& path) {
    file.flush();
    const bool written = static_cast<bool>(file);
    file.close();
    return written && !file.fail() && syncPath(path, O_RDONLY);
}

bool syncDirectoryOf(const std::string& path) {
    std::error_code ec;
    std::filesystem::path directory = std::filesystem::absolute(path, ec).parent_path();
    if (ec) return false;
    if (directory.empty()) directory = ".";
    return syncPath(directory.string(), O_RDONLY | O_DIRECTORY);
}

}  // namespace engine::io
