#pragma once
// What the fuzz targets of file readers share: the readers read files (MuJoCo's compiler,
// libsdformat and Assimp open them by name, and the files they name beside them), so each input
// is written to a file in a folder of the fuzzing process's own. The folder also holds copies of
// the example meshes the seeds name (box.obj, tetra.stl), and is removed when the
// process ends normally (a crash leaves it behind, with the input that did it).

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>

namespace fuzz {

class InputFolder {
public:
    // `name` tells the fuzzers' folders apart; `copies` are files (from the source tree) copied in.
    InputFolder(const std::string& name, std::initializer_list<const char*> copies) {
        namespace fs = std::filesystem;
        // In memory when the system has a tmpfs there: the scene writer syncs what it writes.
        std::error_code ec;
        const fs::path base =
            fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
        folder_ = base / ("motus-fuzz-" + name + "-" + std::to_string(::getpid()));
        fs::create_directories(folder_);
        for (const char* file : copies)
            fs::copy_file(file, folder_ / fs::path(file).filename(),
                          fs::copy_options::overwrite_existing);
    }
    ~InputFolder() {
        std::error_code ec;
        std::filesystem::remove_all(folder_, ec);
    }
    InputFolder(const InputFolder&) = delete;
    InputFolder& operator=(const InputFolder&) = delete;

    std::string path() const { return folder_.string(); }

    // The bytes as the file `fileName` of the folder; its path.
    std::string write(const std::string& fileName, const std::uint8_t* data,
                      std::size_t size) const {
        const std::string file = (folder_ / fileName).string();
        std::ofstream(file, std::ios::binary | std::ios::trunc)
            .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
        return file;
    }

private:
    std::filesystem::path folder_;
};

}  // namespace fuzz
