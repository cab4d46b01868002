#pragma once
// Run files (.motusrun): a whole simulated run — the scene it came from and every recorded
// frame — so it can be reopened, scrubbed, plotted and continued without re-simulating.
// Layout in docs/run-file.md. Reading checks sizes against the file length before allocating
// and a checksum over the contents, so a truncated or corrupted file fails cleanly.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "engine/model/model.h"
#include "engine/record/recording.h"

namespace engine::io {

bool saveRunFile(const SceneSpec& spec, const Recording& recording, const std::string& path, std::string& error);

struct LoadedRun {
    SceneSpec spec;
    std::shared_ptr<const Model> model;
    std::unique_ptr<Recording> recording;
};

// Mesh files named by the scene are looked up next to the run file.
std::optional<LoadedRun> loadRunFile(const std::string& path, std::string& error);

// The same from a run file's bytes; mesh files are looked up in `baseDirectory` (the working
// directory when empty).
std::optional<LoadedRun> parseRunFile(std::string_view bytes, const std::string& baseDirectory,
                                      std::string& error);

}  // namespace engine::io
