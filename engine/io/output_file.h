#pragma once
// Output files written safely: every file Motus writes (results, run files, scenes) reaches
// its target whole or not at all, and nothing that is not a regular file is ever replaced.
//
//   * A regular file, or a name that does not exist yet, is written as a temporary next to it,
//     `<name>.XXXXXX.partial` (a unique name, created exclusively: two writers of the same
//     output never share one), synced and renamed over the target, then the folder is synced.
//     A symbolic link is followed: the temporary goes next to the file it names and the rename
//     replaces that file; the link stays a link.
//   * A character device or a FIFO (/dev/null, a pipe a reader waits on) is written in place:
//     opened and written, never replaced. A folder, a block device or a socket is refused.
//   * Failures give their cause from the system's error number ("the disk is full", "no such
//     folder", "permission denied", "name too long", ...).
//   * A temporary not yet renamed is listed so that a signal handler can remove it:
//     removePendingTemporaries() is async-signal-safe.

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace engine::io {

// The cause of a failed file operation, in words, from its errno value.
std::string fileErrorText(int error);

// Why `output` must not be written because it is the same file (device and inode, links
// followed) as one of `inputs`, naming both; "" when it is none of them (names that do not
// exist are never the same file).
std::string sameFileProblem(const std::string& output, const std::vector<std::string>& inputs);

class OutputFile {
public:
    OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    ~OutputFile();  // an uncommitted temporary is removed; the target is never touched

    // Starts writing `path` (see above). False with the reason in `error`.
    bool open(const std::string& path, std::string& error);
    bool isOpen() const;
    // Whether `path` is written in place (a character device or a FIFO).
    bool inPlace() const { return inPlace_; }
    // The temporary written until commit() ("" when written in place or not open).
    const std::string& temporaryPath() const { return temporary_; }

    // A stream onto the file: writes are buffered; a failed write sets its failbit.
    std::ostream& stream() { return stream_; }
    // Raw bytes, through the same buffer. False once any write failed.
    bool write(const void* data, std::size_t size);
    bool flush();
    // Whether a write failed, and why ("cannot write '<path>': the disk is full").
    bool failed() const;
    std::string failure() const;

    // Flushes, syncs, renames the temporary over the target and syncs its folder (in place:
    // flushes and closes). False with the reason in `error`; the temporary is then removed.
    bool commit(std::string& error);
    // Closes and removes the temporary (nothing happens to the target).
    void abandon();

private:
    class Buffer;
    std::unique_ptr<Buffer> buffer_;
    std::ostream stream_;
    std::string path_;       // as the user gave it (for messages)
    std::string target_;     // the file the rename replaces (links followed)
    std::string temporary_;  // "" when in place
    bool inPlace_ = false;
    int slot_ = -1;  // in the list of pending temporaries
};

// `bytes` written to `path` through an OutputFile. False with the reason in `error`.
bool writeFileSafely(const std::string& path, std::string_view bytes, std::string& error);

// Removes every temporary of an OutputFile not yet committed or abandoned. Only
// async-signal-safe calls: for a handler of SIGINT, SIGTERM or SIGHUP before it ends the
// process.
void removePendingTemporaries();

}  // namespace engine::io
