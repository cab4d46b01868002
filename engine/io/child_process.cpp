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

// The pipes of the children running now, both ends. Several children run at once (started by
// one thread in runInChildProcesses, or by several threads each running its own): a child that
// kept another child's pipe open would keep the parent from seeing that pipe's end until both
// children had ended. So each child closes the others' pipes as it
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

namespace {

// One child started by runInChildProcesses: its process, the read end of its pipe, what it has
// written so far and when it must have ended.
struct RunningChild {
    std::size_t job = 0;
    pid_t pid = -1;
    int fd = -1;
    std::string bytes;
    std::chrono::steady_clock::time_point deadline;
};

// Forks the child for `job`; false with the reason in `outcome` when it cannot be started.
bool startChild(const ChildJob& job, RunningChild& child, ChildOutcome& outcome) {
    int fds[2];
    if (!openChildPipe(fds)) {
        outcome.error = std::string("cannot start the reader process: ") + std::strerror(errno);
        return false;
    }
    std::fflush(nullptr);  // nothing buffered is written twice
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        outcome.error = std::string("cannot start the reader process: ") + std::strerror(errno);
        closeChildPipeEnd(fds[0]);
        closeChildPipeEnd(fds[1]);
        return false;
    }
    if (pid == 0) runChild(job.work, job.limits, fds[1], parent);  // (its read end closed there)
    closeChildPipeEnd(fds[1]);
    child.pid = pid;
    child.fd = fds[0];
    child.deadline = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(job.limits.seconds));
    return true;
}

// The child's end (its pipe read to the end, or its time up, or the work cancelled): the child
// killed when it must be, waited for, and what it gave or what happened to it.
void finishChild(const ChildLimits& limits, RunningChild& child, bool timedOut, bool cancelled,
                 ChildOutcome& outcome) {
    closeChildPipeEnd(child.fd);
    if (timedOut || cancelled) ::kill(child.pid, SIGKILL);
    int status = 0;
    while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
    }
    const std::string& bytes = child.bytes;
    const std::string memoryBound = std::to_string(limits.memoryBytes >> 20) + " MB memory bound";
    outcome.childFailed = true;
    if (cancelled) {
        outcome.error = "was cancelled";
    } else if (timedOut) {
        outcome.error =
            "took longer than " + numberText(limits.seconds, 6, "s") + " and was stopped";
    } else if (!bytes.empty() && bytes[0] == kOutOfMemory) {
        outcome.error = "ran out of its " + memoryBound;
    } else if (!bytes.empty() && bytes[0] == kResult && WIFEXITED(status) &&
               WEXITSTATUS(status) == 0) {
        outcome.childFailed = false;
        outcome.done = true;
        outcome.result = bytes.substr(1);
    } else if (!bytes.empty() && bytes[0] == kReason && WIFEXITED(status) &&
               WEXITSTATUS(status) == 0) {
        outcome.childFailed = false;
        outcome.error = bytes.substr(1);
    } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU) {
        outcome.error = "used more than " + std::to_string(static_cast<long>(limits.seconds) + 2) +
                        " s of processor time and was stopped";
    } else if (WIFSIGNALED(status)) {
        outcome.error = "crashed (" + signalName(WTERMSIG(status)) + ")";
        // An allocation refused by the bound ends some readers with abort(), not bad_alloc.
        if (WTERMSIG(status) == SIGABRT)
            outcome.error += " (it may have exceeded its " + memoryBound + ")";
    } else {
        outcome.error = "stopped without a result (exit status " +
                        std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")";
    }
}

}  // namespace

std::vector<ChildOutcome> runInChildProcesses(const std::vector<ChildJob>& jobs, int atOnce) {
    std::vector<ChildOutcome> outcomes(jobs.size());
    if (readersInProcess) {
        for (std::size_t k = 0; k < jobs.size(); ++k) {
            ChildOutcome& o = outcomes[k];
            o.done = runInThisProcess(jobs[k].work, o.result, o.error, &o.childFailed);
        }
        return outcomes;
    }
    const std::size_t most = static_cast<std::size_t>(std::max(1, atOnce));
    std::vector<RunningChild> running;
    std::vector<pollfd> polled;
    std::size_t next = 0;
    char buffer[65536];
    while (next < jobs.size() || !running.empty()) {
        // As many children running as allowed, started in the order of `jobs`.
        while (next < jobs.size() && running.size() < most) {
            RunningChild child;
            child.job = next;
            if (startChild(jobs[next], child, outcomes[next]))
                running.push_back(std::move(child));
            else
                outcomes[next].childFailed = true;
            ++next;
        }
        if (running.empty()) continue;
        // Each child's pipe read until the child closes it, its time is up or it is cancelled.
        const auto now = std::chrono::steady_clock::now();
        long long wait = 1000;  // ms between looks at the time left and the cancel flags
        polled.clear();
        for (std::size_t c = 0; c < running.size();) {
            RunningChild& child = running[c];
            const ChildLimits& limits = jobs[child.job].limits;
            const long long left =
                std::chrono::duration_cast<std::chrono::milliseconds>(child.deadline - now).count();
            const bool timedOut = left <= 0;
            const bool cancelled = !timedOut && limits.cancel && limits.cancel->load();
            if (timedOut || cancelled) {
                finishChild(limits, child, timedOut, cancelled, outcomes[child.job]);
                running.erase(running.begin() + static_cast<std::ptrdiff_t>(c));
                continue;
            }
            wait = std::min(wait, left);
            if (limits.cancel) wait = std::min(wait, 100LL);
            polled.push_back(pollfd{child.fd, POLLIN, 0});
            ++c;
        }
        if (running.empty()) continue;
        const int ready =
            ::poll(polled.data(), static_cast<nfds_t>(polled.size()), static_cast<int>(wait));
        if (ready <= 0) continue;  // (time to look again, or a signal)
        for (std::size_t c = running.size(); c-- > 0;) {
            if (polled[c].revents == 0) continue;
            RunningChild& child = running[c];
            const ssize_t n = ::read(child.fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) continue;
            if (n > 0) {
                child.bytes.append(buffer, static_cast<std::size_t>(n));
                continue;
            }
            finishChild(jobs[child.job].limits, child, false, false, outcomes[child.job]);
            running.erase(running.begin() + static_cast<std::ptrdiff_t>(c));
        }
    }
    return outcomes;
}

bool runInChildProcess(const std::function<bool(std::string& out, std::string& error)>& work,
                       const ChildLimits& limits, std::string& result, std::string& error,
                       bool* childFailed) {
    std::vector<ChildJob> jobs(1);
    jobs[0].work = work;
    jobs[0].limits = limits;
    std::vector<ChildOutcome> outcomes = runInChildProcesses(jobs, 1);
    ChildOutcome& outcome = outcomes[0];
    if (childFailed) *childFailed = outcome.childFailed;
    if (outcome.done)
        result = std::move(outcome.result);
    else
        error = std::move(outcome.error);
    return outcome.done;
}

}  // namespace engine::io
