#include "engine/import/resource_path.h"

#include "engine/io/input_file.h"

#include <sys/stat.h>

#include <cstdlib>
#include <deque>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

namespace engine::io {
namespace {

namespace fs = std::filesystem;

constexpr int kCrawlDepth = 4;                   // levels below a search folder looked into
constexpr int kCrawlFolders = 20000;             // folders looked into per search, at most
constexpr std::size_t kManifestBytes = 1 << 16;  // of a package.xml read for its name

bool isDirectory(const fs::path& p) {
    std::error_code ec;
    return fs::is_directory(p, ec);
}

// A folder's identity once links are followed, (device, inode); nullopt when it is no folder.
std::optional<std::pair<dev_t, ino_t>> folderIdentity(const fs::path& p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return std::nullopt;
    return std::pair{st.st_dev, st.st_ino};
}

// The <name> of the package.xml in `folder`, "" when there is none.
std::string manifestName(const fs::path& folder) {
    const fs::path manifest = folder / "package.xml";
    if (!isRegularFile(manifest.string())) return "";  // a FIFO would block the crawl
    std::ifstream in(manifest, std::ios::binary);
    if (!in) return "";
    std::string text(kManifestBytes, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    const std::size_t open = text.find("<name>");
    const std::size_t close = text.find("</name>", open);
    if (open == std::string::npos || close == std::string::npos) return "";
    std::string name = text.substr(open + 6, close - open - 6);
    const auto first = name.find_first_not_of(" \t\r\n");
    const auto last = name.find_last_not_of(" \t\r\n");
    return first == std::string::npos ? "" : name.substr(first, last - first + 1);
}

// Whether `folder` is package `name`: its manifest names it, or it has none and is called so.
bool isPackage(const fs::path& folder, const std::string& name) {
    const std::string manifest = manifestName(folder);
    return manifest.empty() ? folder.filename() == name : manifest == name;
}

}  // namespace

ResourceResolver::ResourceResolver(const std::string& descriptionFile,
                                   std::vector<std::string> searchPath) {
    dir_ = fs::path(descriptionFile).parent_path();
    if (dir_.empty()) dir_ = ".";
    for (const std::string& p : searchPath)
        if (!p.empty()) roots_.emplace_back(p);
    if (const char* ros = std::getenv("ROS_PACKAGE_PATH")) {
        std::string_view rest(ros);
        while (!rest.empty()) {
            const std::size_t colon = rest.find(':');
            const std::string_view entry = rest.substr(0, colon);
            if (!entry.empty()) roots_.emplace_back(std::string(entry));
            rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
        }
    }
}

void ResourceResolver::crawl() {
    // The search folders, each breadth first a few levels down, once for every package named
    // in the file: a folder's package.xml names it, else the folder's name does (a copied
    // description without its manifest). The first folder found for a name is kept.
    // Each folder is looked into once, however many links lead to it: a folder of links to
    // itself, or a loop of links (a/b → a), would otherwise be walked as a tree of its names,
    // as many entries queued as the folder holds, to the power of the depth.
    crawled_ = true;
    int budget = kCrawlFolders;
    std::set<std::pair<dev_t, ino_t>> seen;
    for (const fs::path& root : roots_) {
        std::deque<std::pair<fs::path, int>> queue;
        if (const auto id = folderIdentity(root); id && seen.insert(*id).second)
            queue.emplace_back(root, 0);
        while (!queue.empty() && budget-- > 0) {
            const auto [folder, depth] = queue.front();
            queue.pop_front();
            const std::string manifest = manifestName(folder);
            if (!manifest.empty())
                byManifest_.emplace(manifest, folder);
            else
                byFolderName_.emplace(folder.filename().string(), folder);
            if (depth == kCrawlDepth) continue;
            std::error_code ec;
            for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
                if (queue.size() >= static_cast<std::size_t>(kCrawlFolders)) break;
                const std::string leaf = it->path().filename().string();
                if (leaf.empty() || leaf[0] == '.') continue;
                const auto id = folderIdentity(it->path());
                if (!id) continue;
                if (seen.insert(*id).second)
                    queue.emplace_back(it->path(), depth + 1);
                else if (manifestName(it->path()).empty())    // a link to a folder met already:
                    byFolderName_.emplace(leaf, it->path());  // found by its name, not walked
            }
        }
    }
}

std::optional<fs::path> ResourceResolver::packageFolder(const std::string& name) {
    if (const auto known = found_.find(name); known != found_.end()) return known->second;
    if (!crawled_) crawl();
    std::optional<fs::path> result;
    if (const auto it = byManifest_.find(name); it != byManifest_.end())
        result = it->second;
    else if (const auto folder = byFolderName_.find(name); folder != byFolderName_.end())
        result = folder->second;
    // The folders above the file: one of them, or a folder beside one of them.
    std::error_code ec;
    fs::path folder = fs::absolute(dir_, ec).lexically_normal();
    for (int up = 0; !result && !ec && up < 64; ++up) {
        if (isPackage(folder, name))
            result = folder;
        else if (isDirectory(folder / name) && isPackage(folder / name, name))
            result = folder / name;
        if (folder == folder.parent_path()) break;
        folder = folder.parent_path();
    }
    found_.emplace(name, result);
    return result;
}

std::optional<std::string> ResourceResolver::packageFolderOf(const std::string& name) {
    if (const auto folder = packageFolder(name)) return folder->lexically_normal().string();
    return std::nullopt;
}

ResourceLookup ResourceResolver::resolve(const std::string& uri) {
    ResourceLookup out;
    // A file of that name, or something else than a folder there (a FIFO, a device): the
    // reader refuses that with its reason (input_file.h) instead of "not found".
    auto accept = [&](const fs::path& candidate) {
        std::error_code ec;
        const fs::file_type type = fs::status(candidate, ec).type();
        if (!ec && type != fs::file_type::not_found && type != fs::file_type::directory)
            out.file = candidate.lexically_normal().string();
        return out.file.has_value();
    };
    std::string_view rest(uri);
    for (std::string_view scheme : {"package://", "model://"}) {
        if (!rest.starts_with(scheme)) continue;
        rest.remove_prefix(scheme.size());
        const std::size_t slash = rest.find('/');
        const std::string name(rest.substr(0, slash));
        const std::string inside(slash == std::string_view::npos ? "" : rest.substr(slash + 1));
        if (const auto folder = packageFolder(name)) {
            out.tried = (*folder / inside).string();
            accept(*folder / inside);
        } else {
            out.tried = "package '" + name + "' in " +
                        (roots_.empty() ? std::string("no search folder")
                                        : std::to_string(roots_.size()) + " search folders") +
                        " or the folders above the file";
            // Description trees copied without their package: beside the file, or one up.
            for (const fs::path& base : {dir_, dir_.parent_path()})
                if (!out.file) accept(base / inside);
        }
        return out;
    }
    if (rest.starts_with("file://")) rest.remove_prefix(7);
    const fs::path path{std::string(rest)};
    const fs::path candidate = path.is_absolute() ? path : dir_ / path;
    out.tried = candidate.lexically_normal().string();
    accept(candidate);
    return out;
}

}  // namespace engine::io
