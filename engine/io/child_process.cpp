#include "engine/io/child_process.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "engine/math/number_text.h"

namespace engine::io {
namespace {

// The child's first byte says what follows: its result, its reason, or that it ran out of memory.
constexpr char kResult = 'R';
constexpr char kReason = 'E';
constexpr char kOutOfMemory = 'M';

int childPipe = -1;  // the child's end, for the new-handler

std::atomic<bool> readersInProcess{false};  // runReadersInProcessForFuzzing()
thread_local bool inProcessWork = false;    // `work` is running in the caller's process

// failInChildProcess() inside `work` run in process: carries the reason back to the caller.
struct InProcessFailure {
    std::string reason;
};

bool writeAll(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

// In the child, the first allocation that fails ends it with "out of memory": a bad_alloc thrown
// through a reader's own catch-all would otherwise come back as some other, misleading error.
void reportOutOfMemory() {
    const char code = kOutOfMemory;
    writeAll(childPipe, &code, 1);
    ::_exit(3);
}

// Virtual memory the process has mapped already (B): the bound is set above it, since shared
// libraries and a sanitizer's shadow count towards RLIMIT_AS too.
std::size_t mappedBytes() {
    unsigned long pages = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
        std::fclose(f);
    }
    return static_cast<std::size_t>(pages) * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

// The pipes of the children running now, both ends. Readers run at once from several threads
// (loadMeshes): a child that kept another child's pipe open would keep the parent from seeing
// that pipe's end until both children had ended. So each child closes the others' pipes as it
// begins. The list changes under `pipesMutex` only, and a fork() anywhere in the process waits
// for it (pthread_atfork), so a child's copy of the list is whole and names every pipe open.
std::mutex pipesMutex;
std::vector<int> openPipes;

void holdPipesForFork() {
    pipesMutex.lock();
}
void releasePipesAfterFork() {
    pipesMutex.unlock();
}

// (once per process, before the first pipe)
void watchForks() {
    static const bool watched =
        ::pthread_atfork(holdPipesForFork, releasePipesAfterFork, releasePipesAfterFork) == 0;
    (void)watched;
}

bool openChildPipe(int fds[2]) {
    watchForks();
    const std::lock_guard<std::mutex> lock(pipesMutex);
    if (::pipe(fds) != 0) return false;
    openPipes.push_back(fds[0]);
    openPipes.push_back(fds[1]);
    return true;
}

// Closed under the lock: a number freed is not reused by another open() before it leaves the list.
void closeChildPipeEnd(int fd) {
    const std::lock_guard<std::mutex> lock(pipesMutex);
    openPipes.erase(std::remove(openPipes.begin(), openPipes.end(), fd), openPipes.end());
    ::close(fd);
}

// In a child: every other child's pipe closed, its own write end kept (`pipesMutex` is free
// here: the fork's child handler released it).
void closeOtherChildrensPipes(int own) {
    for (const int fd : openPipes)
        if (fd != own) ::close(fd);
}

[[noreturn]] void runChild(const std::function<bool(std::string&, std::string&)>& work,
                           const ChildLimits& limits, int fd, pid_t parent) {
    childPipe = fd;
    closeOtherChildrensPipes(fd);
    // The child dies with the process that waits for it: a Motus killed while a reader loops
    // (Assimp's PLY reader on a header without its end) leaves nothing running. (The signal is
    // sent when the forking thread ends; that thread waits here until the child is done.) The
    // parent may have died before this line: then there is no one to read the result.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(5);
    // And a processor-time bound as the wall-time bound's backstop (a parent stopped, not dead).
    const auto cpu = static_cast<rlim_t>(limits.seconds) + 2;
    const rlimit cpuBound{cpu, cpu};
    ::setrlimit(RLIMIT_CPU, &cpuBound);
    const rlimit noCore{0, 0};
    ::setrlimit(RLIMIT_CORE, &noCore);  // a crash is expected here, and reported: no core file
    const rlim_t memory = static_cast<rlim_t>(mappedBytes() + limits.memoryBytes);
    const rlimit bound{memory, memory};
    ::setrlimit(RLIMIT_AS, &bound);
    std::set_new_handler(reportOutOfMemory);

    std::string out, reason;
    char code = kReason;
    try {
        if (work(out, reason)) code = kResult;
    } catch (const std::bad_alloc&) {
        reportOutOfMemory();
    } catch (const std::exception& e) {
        reason = e.what();
    } catch (...) {
        reason = "an unknown exception";
    }
    const std::string& payload = code == kResult ? out : reason;
    const bool written = writeAll(fd, &code, 1) && writeAll(fd, payload.data(), payload.size());
    ::_exit(written ? 0 : 4);
}

}  // namespace

void failInChildProcess(const std::string& reason) {
    if (inProcessWork) throw InProcessFailure{reason};
    const char code = kReason;
    const bool written = childPipe >= 0 && writeAll(childPipe, &code, 1) &&
                         writeAll(childPipe, reason.data(), reason.size());
    ::_exit(written ? 0 : 4);
}

namespace {

std::string signalName(int signal) {
    switch (signal) {
    case SIGSEGV:
        return "segmentation fault";
    case SIGBUS:
        return "bus error";
    case SIGFPE:
        return "arithmetic exception";
    case SIGILL:
        return "illegal instruction";
    case SIGABRT:
        return "aborted";
    case SIGKILL:
        return "killed";
    default:
        return "signal " + std::to_string(signal);
    }
}

}  // namespace

void runReadersInProcessForFuzzing() {
    readersInProcess = true;
}

namespace {

bool runInThisProcess(const std::function<bool(std::string& out, std::string& error)>& work,
                      std::string& result, std::string& error, bool* childFailed) {
    std::string out, reason;
    bool done = false;
    inProcessWork = true;
    try {
        done = work(out, reason);
    } catch (const InProcessFailure& f) {
        reason = f.reason;
    } catch (const std::bad_alloc&) {
        inProcessWork = false;
        if (childFailed) *childFailed = true;
        error = "ran out of memory";
        return false;
    } catch (const std::exception& e) {
        reason = e.what();
    } catch (...) {
        reason = "an unknown exception";
    }
    inProcessWork = false;
    if (childFailed) *childFailed = false;
    if (done)
        result = std::move(out);
    else
        error = std::move(reason);
    return done;
}

}  // namespace

bool runInChildProcess(const std::function<bool(std::string& out, std::string& error)>& work,
                       const ChildLimits& limits, std::string& result, std::string& error,
                       bool* childFailed) {
    if (readersInProcess) return runInThisProcess(work, result, error, childFailed);
    if (childFailed) *childFailed = true;
    const std::string memoryBound = std::to_string(limits.memoryBytes >> 20) + " MB memory bound";
    int fds[2];
    if (!openChildPipe(fds)) {
        error = std::string("cannot start the reader process: ") + std::strerror(errno);
        return false;
    }
    std::fflush(nullptr);  // nothing buffered is written twice
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        error = std::string("cannot start the reader process: ") + std::strerror(errno);
        closeChildPipeEnd(fds[0]);
        closeChildPipeEnd(fds[1]);
        return false;
    }
    if (pid == 0) runChild(work, limits, fds[1], parent);  // (its read end closed there)
    closeChildPipeEnd(fds[1]);

    // Read everything the child writes, until it closes the pipe or the time is up.
    std::string bytes;
    bool timedOut = false, cancelled = false;
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(limits.seconds));
    char buffer[65536];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timedOut = true;
            break;
        }
        if (limits.cancel && limits.cancel->load()) {
            cancelled = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        const long long wait = limits.cancel ? 100 : 1000;  // ms between looks at the cancel flag
        const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), wait)));
        if (ready < 0 && errno != EINTR) break;
        if (ready <= 0) continue;
        const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        bytes.append(buffer, static_cast<std::size_t>(n));
    }
    closeChildPipeEnd(fds[0]);
    if (timedOut || cancelled) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }

    if (cancelled) {
        error = "was cancelled";
        return false;
    }
    if (timedOut) {
        error = "took longer than " + numberText(limits.seconds, 6, "s") + " and was stopped";
        return false;
    }
    if (!bytes.empty() && bytes[0] == kOutOfMemory) {
        error = "ran out of its " + memoryBound;
        return false;
    }
    if (!bytes.empty() && bytes[0] == kResult && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        if (childFailed) *childFailed = false;
        result = bytes.substr(1);
        return true;
    }
    if (!bytes.empty() && bytes[0] == kReason && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        if (childFailed) *childFailed = false;
        error = bytes.substr(1);
        return false;
    }
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU) {
        error = "used more than " + std::to_string(static_cast<long>(limits.seconds) + 2) +
                " s of processor time and was stopped";
        return false;
    }
    if (WIFSIGNALED(status)) {
        error = "crashed (" + signalName(WTERMSIG(status)) + ")";
        // An allocation refused by the bound ends some readers with abort(), not bad_alloc.
        if (WTERMSIG(status) == SIGABRT) error += " (it may have exceeded its " + memoryBound + ")";
        return false;
    }
    error = "stopped without a result (exit status " +
            std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")";
    return false;
}

}  // namespace engine::io
