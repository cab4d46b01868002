#pragma once
// Run files (.motusrun): a whole simulated run — the scene it came from and every recorded
// frame — so it can be reopened, scrubbed, plotted and continued without re-simulating.
// Layout in docs/run-file.md.
//
// Writing streams: RunFileWriter puts each frame on the disk as it comes (the CLI writes a run
// of any length in constant memory) through an OutputFile (engine/io/output_file.h): a unique
// temporary renamed over the target once the trailer (frame count, checksum) is written and
// synced, or a FIFO or device written in place. Reading checks sizes against the file
// length before allocating and a checksum over the contents, so a truncated or corrupted file
// fails cleanly; it reads the file in blocks, never whole.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/io/output_file.h"
#include "engine/model/model.h"
#include "engine/record/recording.h"

namespace engine::io {

class RunFileWriter {
public:
    RunFileWriter() = default;
    RunFileWriter(const RunFileWriter&) = delete;
    RunFileWriter& operator=(const RunFileWriter&) = delete;
    ~RunFileWriter();  // an unfinished file is removed (the target is never touched)

    // Starts `path` (written as a temporary `path`.XXXXXX.partial until finish(), or in place
    // when it is a FIFO or a character device) with the scene and the frame layout of its
    // recording.
    bool open(const SceneSpec& spec, const FrameLayout& layout, const std::string& path,
              std::string& error);
    // One frame; false once a write failed (a full disk), with the reason in `error`.
    bool append(const State& state, const Outputs& outputs, std::string& error);
    // Trailer, sync, rename over `path`, sync the directory.
    bool finish(std::string& error);
    std::uint64_t frames() const { return frames_; }

private:
    bool write(const void* data, std::size_t size);

    std::optional<FrameLayout> layout_;  // a copy: the writer may outlive the recording
    OutputFile file_;
    std::uint64_t frames_ = 0;
    std::uint64_t checksum_ = 0;
    std::vector<double> row_;
    std::string contacts_;
    bool failed_ = false;
};

// Every frame of `recording` (frames it no longer holds are skipped).
bool saveRunFile(const SceneSpec& spec, const Recording& recording, const std::string& path,
                 std::string& error);

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
