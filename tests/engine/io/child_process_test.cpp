#include "engine/io/child_process.h"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace engine::io {
namespace {

// Work that would take 30 s.
bool sleepHalfAMinute(std::string&, std::string&) {
    std::this_thread::sleep_for(std::chrono::seconds(30));
    return true;
}

TEST(ChildProcess, ReturnsTheChildsResultOrItsReason) {
    std::string result, error;
    EXPECT_TRUE(runInChildProcess(
        [](std::string& out, std::string&) {
            out = std::string(200000, 'x') + "end";  // more than one pipe buffer
            return true;
        },
        {}, result, error));
    EXPECT_EQ(result.size(), 200003u);
    EXPECT_EQ(result.substr(200000), "end");

    EXPECT_FALSE(runInChildProcess(
        [](std::string&, std::string& reason) {
            reason = "no triangles";
            return false;
        },
        {}, result, error));
    EXPECT_EQ(error, "no triangles");

    EXPECT_FALSE(runInChildProcess(
        [](std::string&, std::string&) -> bool { throw std::runtime_error("bad header"); }, {},
        result, error));
    EXPECT_EQ(error, "bad header");
}

TEST(ChildProcess, ACrashInTheChildIsReportedAndTheParentGoesOn) {
    std::string result, error;
    EXPECT_FALSE(runInChildProcess(
        [](std::string&, std::string&) {
            std::raise(SIGSEGV);
            return true;
        },
        {}, result, error));
    EXPECT_EQ(error, "crashed (segmentation fault)");
}

TEST(ChildProcess, TheChildsMemoryIsBounded) {
    ChildLimits limits;
    limits.memoryBytes = std::size_t{64} << 20;
    std::string result, error;
    EXPECT_FALSE(runInChildProcess(
        [](std::string& out, std::string&) {
            std::vector<std::vector<char>> blocks;
            for (int k = 0; k < 1024; ++k) blocks.emplace_back(std::size_t{1} << 20, 'x');
            out = "1 GB allocated";
            return true;
        },
        limits, result, error));
    EXPECT_EQ(error, "ran out of its 64 MB memory bound");
}

TEST(ChildProcess, TheChildsTimeIsBounded) {
    ChildLimits limits;
    limits.seconds = 0.3;
    std::string result, error;
    EXPECT_FALSE(runInChildProcess(sleepHalfAMinute, limits, result, error));
    EXPECT_EQ(error, "took longer than 0.3 s and was stopped");
}

// Cancelled from another thread (a progress dialog's Cancel), a looping child is stopped within
// a fraction of a second, its reason "was cancelled".
TEST(ChildProcess, TheChildIsStoppedWhenCancelled) {
    std::atomic<bool> cancel{false};
    ChildLimits limits;
    limits.cancel = &cancel;
    std::thread canceller([&cancel] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        cancel = true;
    });
    const auto start = std::chrono::steady_clock::now();
    std::string result, error;
    EXPECT_FALSE(runInChildProcess(sleepHalfAMinute, limits, result, error));
    canceller.join();
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(error, "was cancelled");
    EXPECT_LT(took, 5.0);  // (30 s had it run on)
}

// A reader child dies with the process that started it: killed while its child loops, a Motus
// leaves nothing running (a looping reader ran on for 28 minutes after its parent was killed).
// The pipes open in a process (its own descriptors' targets), counted from /proc/self/fd.
int openPipes() {
    int pipes = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        const auto target = std::filesystem::read_symlink(entry.path(), ec);
        if (!ec && target.string().rfind("pipe:", 0) == 0) ++pipes;
    }
    return pipes;
}

// Readers run at once from several threads (loadMeshes): a child holds its own pipe only, none
// of another running child's, which would keep that one's end from its parent. Child A waits
// (told it started through a pipe of the test's own, closed before B starts); child B, started
// meanwhile, counts the pipes it holds: those the test process held before (its standard
// streams may be pipes) and its own write end — not A's.
TEST(ChildProcess, AChildHoldsNoOtherChildsPipe) {
    const int before = openPipes();
    int started[2];
    ASSERT_EQ(::pipe(started), 0);
    std::atomic<bool> stop{false};
    ChildLimits waiting;
    waiting.cancel = &stop;
    std::string resultA, errorA;
    std::thread a([&] {
        runInChildProcess(
            [&](std::string&, std::string&) {
                const char byte = 1;
                if (::write(started[1], &byte, 1) != 1) return false;
                for (;;) ::pause();
            },
            waiting, resultA, errorA);
    });
    char byte = 0;
    ASSERT_EQ(::read(started[0], &byte, 1), 1);
    ::close(started[0]);
    ::close(started[1]);
    std::string result, error;
    const bool counted = runInChildProcess(
        [](std::string& out, std::string&) {
            out = std::to_string(openPipes());
            return true;
        },
        ChildLimits{}, result, error);
    stop = true;
    a.join();
    ASSERT_TRUE(counted) << error;
    EXPECT_EQ(result, std::to_string(before + 1));
    EXPECT_EQ(errorA, "was cancelled");
}

// Children run at once from one thread, each outcome in the order of the works: a result, a
// reason, a crash, one stopped at its time bound and one cancelled, as runInChildProcess gives
// each alone. The first two meet through two pipes (each waits for the other's byte), so they
// can only end when both run at the same time; started one after the other, both would reach
// their time bound instead.
TEST(ChildProcess, SeveralChildrenRunAtOnceFromOneThread) {
    int aToB[2], bToA[2];
    ASSERT_EQ(::pipe(aToB), 0);
    ASSERT_EQ(::pipe(bToA), 0);
    const auto meet = [](int send, int receive) {
        const char byte = 1;
        char got = 0;
        return ::write(send, &byte, 1) == 1 && ::read(receive, &got, 1) == 1;
    };
    std::atomic<bool> cancel{true};
    std::vector<ChildJob> jobs(5);
    jobs[0].work = [&](std::string& out, std::string&) {
        out = "A";
        return meet(aToB[1], bToA[0]);
    };
    jobs[1].work = [&](std::string&, std::string& reason) {
        reason = meet(bToA[1], aToB[0]) ? "B met A" : "B did not meet A";
        return false;
    };
    jobs[2].work = [](std::string&, std::string&) -> bool { std::abort(); };
    jobs[3].work = sleepHalfAMinute;
    jobs[3].limits.seconds = 0.5;
    jobs[4].work = sleepHalfAMinute;
    jobs[4].limits.cancel = &cancel;
    for (ChildJob& job : jobs)
        if (job.limits.seconds > 1.0) job.limits.seconds = 20.0;
    const std::vector<ChildOutcome> outcomes = runInChildProcesses(jobs, 2);
    for (const int fd : {aToB[0], aToB[1], bToA[0], bToA[1]}) ::close(fd);
    ASSERT_EQ(outcomes.size(), jobs.size());
    EXPECT_TRUE(outcomes[0].done) << outcomes[0].error;
    EXPECT_EQ(outcomes[0].result, "A");
    EXPECT_FALSE(outcomes[1].done);
    EXPECT_FALSE(outcomes[1].childFailed);
    EXPECT_EQ(outcomes[1].error, "B met A");
    EXPECT_TRUE(outcomes[2].childFailed);
    EXPECT_EQ(outcomes[2].error.rfind("crashed (aborted)", 0), 0u) << outcomes[2].error;
    EXPECT_TRUE(outcomes[3].childFailed);
    EXPECT_EQ(outcomes[3].error, "took longer than 0.5 s and was stopped");
    EXPECT_EQ(outcomes[4].error, "was cancelled");
    EXPECT_TRUE(runInChildProcesses({}, 2).empty());
}

TEST(ChildProcess, TheChildDiesWithItsParent) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t parent = ::fork();
    ASSERT_GE(parent, 0);
    if (parent == 0) {
        ::close(fds[0]);
        std::string result, error;
        runInChildProcess(
            [&](std::string&, std::string&) {
                const pid_t self = ::getpid();
                if (::write(fds[1], &self, sizeof self) != sizeof self) return false;
                for (;;) ::pause();  // a reader that never ends
            },
            ChildLimits{}, result, error);
        ::_exit(0);
    }
    ::close(fds[1]);
    pid_t reader = 0;
    ASSERT_EQ(::read(fds[0], &reader, sizeof reader), static_cast<ssize_t>(sizeof reader));
    ::close(fds[0]);
    ASSERT_GT(reader, 0);
    ::kill(parent, SIGKILL);
    ::waitpid(parent, nullptr, 0);
    // Gone (or a zombie waiting for whoever adopted it) within 5 s.
    auto alive = [reader] {
        std::ifstream stat("/proc/" + std::to_string(reader) + "/stat");
        std::string pid, name, state;
        if (!(stat >> pid >> name >> state)) return false;
        return state != "Z" && state != "X";
    };
    for (int k = 0; k < 100 && alive(); ++k)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const bool survived = alive();
    if (survived) ::kill(reader, SIGKILL);
    EXPECT_FALSE(survived) << "the reader " << reader << " outlived its parent";
}

}  // namespace
}  // namespace engine::io
