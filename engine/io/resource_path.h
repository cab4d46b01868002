#pragma once
// Where a robot description's `package://NAME/rest`, `model://NAME/rest`, `file://path` or
// plain path points. A package is found, in order, in each folder of the search path given
// by the user, then in each folder of ROS_PACKAGE_PATH (':'-separated), then in the folders
// above the description file: a folder is package NAME when its package.xml names NAME
// (<name>NAME</name>) or, without a package.xml, when the folder itself is called NAME; each
// search folder is crawled for it a few levels down. Relative paths are relative to the file.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace engine::io {

struct ResourceLookup {
    std::optional<std::string> file;  // the file found
    std::string tried;                // what was looked for, for the warning when not found
};

class ResourceResolver {
public:
    // `descriptionFile`: the file whose resources are looked up (its folder, "." when empty).
    ResourceResolver(const std::string& descriptionFile, std::vector<std::string> searchPath);

    ResourceLookup resolve(const std::string& uri);

private:
    std::optional<std::filesystem::path> packageFolder(const std::string& name);

    std::filesystem::path dir_;
    std::vector<std::filesystem::path> roots_;  // user's, ROS_PACKAGE_PATH's, then above the file
    std::vector<std::pair<std::string, std::optional<std::filesystem::path>>> found_;  // cache
};

}  // namespace engine::io
