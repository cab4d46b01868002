#include "engine/io/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <limits.h>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <streambuf>

#include "engine/io/durable_file.h"

namespace engine::io {
namespace {

std::string inQuotes(const std::string& path) {
    return "'" + path + "'";
}

// What a file that is not a regular file is, for messages ("a FIFO").
std::string kindOf(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

// Temporaries not yet renamed, for removePendingTemporaries() in a signal handler: fixed
// storage, each slot claimed and released with an atomic flag (no allocation, no lock).
constexpr int kPendingSlots = 16;
struct PendingSlot {
    std::atomic<bool> used{false};
    std::atomic<bool> ready{false};
    char path[PATH_MAX] = {};
};
std::array<PendingSlot, kPendingSlots> pendingSlots;

int claimSlot(const std::string& path) {
    if (path.size() >= PATH_MAX) return -1;
    for (int k = 0; k < kPendingSlots; ++k) {
        bool expected = false;
        if (!pendingSlots[k].used.compare_exchange_strong(expected, true)) continue;
        std::memcpy(pendingSlots[k].path, path.c_str(), path.size() + 1);
        pendingSlots[k].ready.store(true, std::memory_order_release);
        return k;
    }
    return -1;  // more than 16 at once: still removed by the writer, not by a signal
}

void releaseSlot(int& slot) {
    if (slot < 0) return;
    pendingSlots[slot].ready.store(false, std::memory_order_release);
    pendingSlots[slot].used.store(false, std::memory_order_release);
    slot = -1;
}

// Follows symbolic links (at most 40, as the kernel does) to the file a write should replace;
// the last name need not exist. False with `error` set (errno) on a loop.
bool resolveLinks(const std::string& path, std::string& target, int& error) {
    std::filesystem::path current = path;
    for (int hops = 0; hops < 40; ++hops) {
        struct stat st {};
        if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
            target = current.string();
            return true;
        }
        std::string link(PATH_MAX, '\0');
        const ssize_t n = ::readlink(current.c_str(), link.data(), link.size());
        if (n < 0) {
            error = errno;
            return false;
        }
        link.resize(static_cast<std::size_t>(n));
        const std::filesystem::path next = link;
        current = next.is_absolute() ? next : current.parent_path() / next;
    }
    error = ELOOP;
    return false;
}

// A name for the temporary of `target`: `<name>.XXXXXX.partial` in its folder, the name cut
// so that the whole stays within a file name's 255 bytes.
std::string temporaryName(const std::string& target) {
    static thread_local std::mt19937_64 random(
        std::random_device{}() ^
        static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
        static_cast<std::uint64_t>(::getpid()));
    static constexpr char kLetters[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    std::string suffix = ".";
    for (int k = 0; k < 6; ++k) suffix += kLetters[random() % (sizeof kLetters - 1)];
    suffix += ".partial";
    const std::filesystem::path path = target;
    std::string name = path.filename().string();
    if (name.size() + suffix.size() > 255) name.resize(255 - suffix.size());
    return (path.parent_path() / (name + suffix)).string();
}

bool writeAll(int fd, const char* data, std::size_t size, int& error) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            error = errno;
            return false;
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace

std::string fileErrorText(int error) {
    switch (error) {
    case ENOSPC:
        return "the disk is full";
    case EDQUOT:
        return "the disk quota is used up";
    case ENOENT:
        return "no such folder";
    case ENOTDIR:
        return "a part of the path is not a folder";
    case EACCES:
    case EPERM:
        return "permission denied";
    case EROFS:
        return "the file system is read-only";
    case ENAMETOOLONG:
        return "name too long";
    case EISDIR:
        return "it is a folder";
    case ELOOP:
        return "too many symbolic links";
    case EFBIG:
        return "the file is too large for the file system";
    case EIO:
        return "an input/output error (the disk or the device failed)";
    case EPIPE:
        return "the reader closed it";
    case ENXIO:
        return "no device or no reader behind it";
    case EEXIST:
        return "a file of that name appeared meanwhile";
    default:
        return std::strerror(error);
    }
}

std::string sameFileProblem(const std::string& output, const std::vector<std::string>& inputs) {
    struct stat out {};
    if (output.empty() || ::stat(output.c_str(), &out) != 0) return "";
    for (const std::string& input : inputs) {
        struct stat in {};
        if (input.empty() || ::stat(input.c_str(), &in) != 0) continue;
        if (in.st_dev == out.st_dev && in.st_ino == out.st_ino)
            return "the output " + inQuotes(output) + " is the input " + inQuotes(input) +
                   ": writing it would destroy what is being read (choose another output)";
    }
    return "";
}

// The file's buffer: bytes go to the descriptor in blocks; the first failed write is kept
// with its errno and every later write fails.
class OutputFile::Buffer : public std::streambuf {
public:
    Buffer() { setp(block_.data(), block_.data() + block_.size()); }
    ~Buffer() override { close(); }

    void attach(int fd) {
        fd_ = fd;
        error_ = 0;
        setp(block_.data(), block_.data() + block_.size());
    }
    int fd() const { return fd_; }
    int error() const { return error_; }
    bool drain() {
        if (error_ != 0 || fd_ < 0) {
            setp(block_.data(), block_.data() + block_.size());
            return false;
        }
        const bool ok = writeAll(fd_, pbase(), static_cast<std::size_t>(pptr() - pbase()), error_);
        setp(block_.data(), block_.data() + block_.size());
        return ok;
    }
    // Closes the descriptor; false (with the errno kept) when closing reports a lost write.
    bool close() {
        if (fd_ < 0) return error_ == 0;
        const int closed = ::close(fd_);
        if (closed != 0 && error_ == 0 && errno != EINTR) error_ = errno;
        fd_ = -1;
        return error_ == 0;
    }
    void fail(int error) {
        if (error_ == 0) error_ = error;
    }

protected:
    int_type overflow(int_type c) override {
        if (!drain()) return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return drain() ? 0 : -1; }

private:
    std::array<char, 1 << 16> block_{};
    int fd_ = -1;
    int error_ = 0;
};

OutputFile::OutputFile() : buffer_(std::make_unique<Buffer>()), stream_(buffer_.get()) {}

OutputFile::~OutputFile() {
    abandon();
}

bool OutputFile::isOpen() const {
    return buffer_->fd() >= 0;
}

bool OutputFile::open(const std::string& path, std::string& error) {
    abandon();
    path_ = path;
    inPlace_ = false;
    stream_.clear();
    auto fail = [&](const std::string& why) {
        error = "cannot write " + inQuotes(path) + ": " + why;
        return false;
    };
    if (path.empty()) return fail("no file name");
    int linkError = 0;
    if (!resolveLinks(path, target_, linkError)) return fail(fileErrorText(linkError));

    // What is there already decides how it is written.
    struct stat existing {};
    const bool exists = ::stat(target_.c_str(), &existing) == 0;
    if (exists && !S_ISREG(existing.st_mode)) {
        if (!S_ISCHR(existing.st_mode) && !S_ISFIFO(existing.st_mode)) {
            error = inQuotes(path) + " is " + kindOf(existing.st_mode) +
                    ", not a file: results are written to files, character devices or FIFOs";
            return false;
        }
        // In place: a FIFO waits here for its reader, as a shell's redirection does.
        int fd = -1;
        do {
            fd = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
        } while (fd < 0 && errno == EINTR);
        if (fd < 0) return fail(fileErrorText(errno));
        buffer_->attach(fd);
        inPlace_ = true;
        return true;
    }

    // A unique temporary next to the target, created exclusively.
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        temporary_ = temporaryName(target_);
        fd = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST && errno != EINTR) break;
    }
    if (fd < 0) {
        const int cause = errno;
        temporary_.clear();
        return fail(fileErrorText(cause));
    }
    // A file replaced keeps its permissions.
    if (exists) (void)::fchmod(fd, existing.st_mode & 07777);
    slot_ = claimSlot(temporary_);
    buffer_->attach(fd);
    return true;
}

bool OutputFile::write(const void* data, std::size_t size) {
    stream_.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    return !failed();
}

bool OutputFile::flush() {
    stream_.flush();
    return !failed();
}

bool OutputFile::failed() const {
    return buffer_->error() != 0 || stream_.fail();
}

std::string OutputFile::failure() const {
    const int error = buffer_->error();
    return "cannot write " + inQuotes(path_) + ": " +
           (error != 0 ? fileErrorText(error) : std::string("the file is not open"));
}

bool OutputFile::commit(std::string& error) {
    if (!isOpen()) {
        error = failure();
        abandon();
        return false;
    }
    stream_.flush();
    if (!inPlace_ && !failed() && ::fsync(buffer_->fd()) != 0) buffer_->fail(errno);
    if (!buffer_->close() || failed()) {
        error = failure();
        abandon();
        return false;
    }
    if (inPlace_) {
        inPlace_ = false;
        return true;
    }
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) {
        error = "cannot write " + inQuotes(path_) + ": " + fileErrorText(errno);
        abandon();
        return false;
    }
    releaseSlot(slot_);
    temporary_.clear();
    syncDirectoryOf(target_);
    return true;
}

void OutputFile::abandon() {
    buffer_->close();
    buffer_->attach(-1);
    stream_.clear();
    if (!temporary_.empty()) ::unlink(temporary_.c_str());
    releaseSlot(slot_);
    temporary_.clear();
    inPlace_ = false;
}

bool writeFileSafely(const std::string& path, std::string_view bytes, std::string& error) {
    OutputFile file;
    if (!file.open(path, error)) return false;
    file.write(bytes.data(), bytes.size());
    return file.commit(error);
}

void removePendingTemporaries() {
    for (PendingSlot& slot : pendingSlots)
        if (slot.ready.load(std::memory_order_acquire)) ::unlink(slot.path);
}

}  // namespace engine::io
