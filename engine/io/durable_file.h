#pragma once
// Durable writes: what Motus saves (scenes, run files, CSV results) is on the disk when the
// save says so — the file's data and the directory entry that names it — so a power cut right
// after a save loses nothing. Saves write a temporary file next to the target, sync it, rename
// it over the target and sync the directory.

#include <fstream>
#include <string>

namespace engine::io {

// Flushes and closes `file` (open on `path`), then syncs `path`'s data to the disk. False
// when any of it fails (a full disk shows here).
bool syncAndClose(std::ofstream& file, const std::string& path);

// Syncs the directory holding `path` (after a rename into it). Best effort: false when the
// directory cannot be opened or synced.
bool syncDirectoryOf(const std::string& path);

}  // namespace engine::io
