#pragma once
// Text in a file of its own in the temporary folder, for code that reads files (the robot
// importers); removed when this goes. Names are unique within the test process.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace engine::test {

class TempTextFile {
public:
    // `extension` with its dot (".urdf"): the importers tell formats by it.
    TempTextFile(const std::string& text, const std::string& extension) {
        static int count = 0;
        path_ =
            (std::filesystem::temp_directory_path() / ("motus-test-" + std::to_string(::getpid()) +
                                                       "-" + std::to_string(count++) + extension))
                .string();
        std::ofstream(path_, std::ios::binary) << text;
    }
    ~TempTextFile() {
        std::error_code ec;
        std::filesystem::remove(path_, ec);
    }
    TempTextFile(const TempTextFile&) = delete;
    TempTextFile& operator=(const TempTextFile&) = delete;

    const std::string& path() const { return path_; }

private:
    std::string path_;
};

}  // namespace engine::test
