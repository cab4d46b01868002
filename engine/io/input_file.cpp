#include "engine/io/input_file.h"

#include <sys/stat.h>

#include <cerrno>

#include "engine/io/output_file.h"

namespace engine::io {

std::string inputFileProblem(const std::string& path, std::string_view noun, std::uintmax_t* size,
                             std::string_view shown) {
    const std::string name =
        "'" + std::string(shown.empty() ? std::string_view(path) : shown) + "'";
    struct stat st {};
    if (path.empty() || ::stat(path.c_str(), &st) != 0) {
        const int error = path.empty() ? ENOENT : errno;
        std::string problem = "cannot open " + std::string(noun) + " " + name;
        if (error != ENOENT) problem += ": " + fileErrorText(error);
        return problem;
    }
    if (S_ISREG(st.st_mode)) {
        if (size) *size = static_cast<std::uintmax_t>(st.st_size);
        return "";
    }
    const char* kind = S_ISDIR(st.st_mode)    ? "a folder"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    return name + " is " + kind + ", not a file";
}

bool isRegularFile(const std::string& path) {
    struct stat st {};
    return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace engine::io
