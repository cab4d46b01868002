#pragma once
// Input files checked before they are opened. Opening is not harmless: a FIFO blocks until a
// writer comes (forever, when none does), a device never ends (/dev/zero) or acts when opened,
// a folder opens as an empty stream of nonsense length. So every file Motus reads — scenes,
// run files, meshes and the files they name, robot descriptions and their includes, cases
// files — is first looked at with stat(), which follows symbolic links and opens nothing:
// only a regular file is read.

#include <cstdint>
#include <string>
#include <string_view>

namespace engine::io {

// "" when `path` is a regular file (its length then in `*size`); otherwise the problem, naming
// the file as `shown` (`path` when empty):
//   "'<shown>' is a FIFO, not a file" (a folder, a character device, a block device, a socket),
//   "cannot open <noun> '<shown>'" when nothing of that name exists,
//   "cannot open <noun> '<shown>': permission denied" (the cause from errno) otherwise.
std::string inputFileProblem(const std::string& path, std::string_view noun,
                             std::uintmax_t* size = nullptr, std::string_view shown = {});

// Whether `path` is a regular file (links followed); a stat that fails is false.
bool isRegularFile(const std::string& path);

}  // namespace engine::io
