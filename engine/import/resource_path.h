#pragma once
// Where a robot description's `package://NAME/rest`, `model://NAME/rest`, `file://path` or
// plain path points. A package is found, in order, in each folder of the search path given
// by the user, then in each folder of ROS_PACKAGE_PATH (':'-separated), then in the folders
// above the description file: a folder is package NAME when its package.xml names NAME
// (<name>NAME</name>) or, without a package.xml, when the folder itself is called NAME; the
// search folders are crawled once, four levels down and at most 20 000 folders, however
// many packages a file names; a folder reached again through a symbolic link (a loop of links,
// a folder of links to itself) is known by the link's name but not looked into again.
// Relative paths are relative to the file.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace engine::io {

struct ResourceLookup {
    std::optional<std::string> file;  // the file found (or a FIFO, a device: not a folder)
    std::string tried;                // what was looked for, for the warning when not found
};

class ResourceResolver {
public:
    // `descriptionFile`: the file whose resources are looked up (its folder, "." when empty).
    ResourceResolver(const std::string& descriptionFile, std::vector<std::string> searchPath);

    ResourceLookup resolve(const std::string& uri);
    // The folder of package `name` (a model's folder for `model://NAME`), when found.
    std::optional<std::string> packageFolderOf(const std::string& name);

private:
    std::optional<std::filesystem::path> packageFolder(const std::string& name);
    void crawl();

    std::filesystem::path dir_;
    std::vector<std::filesystem::path> roots_;  // the user's, then ROS_PACKAGE_PATH's
    bool crawled_ = false;
    // What the search folders hold, found once: packages by their manifest's name, folders
    // without a manifest by their own name (a copied description), the first found of each.
    std::map<std::string, std::filesystem::path> byManifest_, byFolderName_;
    std::map<std::string, std::optional<std::filesystem::path>> found_;  // answers given
};

}  // namespace engine::io
