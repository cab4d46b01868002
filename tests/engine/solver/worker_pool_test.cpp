#include "engine/solver/worker_pool.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/worker_threads.h"

namespace engine {
namespace {

using Threads = test::WorkerThreads;

TEST(WorkerPool, RunsEveryTaskOnceWithAnyNumberOfThreads) {
    for (const int n : {1, 2, 3}) {
        const Threads threads(n);
        EXPECT_EQ(workerThreads(), n);
        for (const int count : {0, 1, 7, 1000}) {
            std::vector<std::atomic<int>> runs(static_cast<std::size_t>(count));
            for (auto& r : runs) r = 0;
            runTasks(count, [&](int i) { ++runs[static_cast<std::size_t>(i)]; });
            for (const auto& r : runs) EXPECT_EQ(r.load(), 1) << n << " threads, " << count;
        }
    }
}

TEST(WorkerPool, UsesTheWorkersWhenAsked) {
    const Threads threads(2);
    std::atomic<int> inside{0}, most{0};
    // Each task waits (a little) for another to be running beside it.
    runTasks(2, [&](int) {
        const int now = ++inside;
        most = std::max(most.load(), now);
        for (int k = 0; k < 2000 && inside.load() < 2; ++k)
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        most = std::max(most.load(), inside.load());
        --inside;
    });
    EXPECT_EQ(most.load(), 2);
}

// Each thread takes its own consecutive block of a run's tasks first (the caller the first), so
// the same tasks of runs over the same data find it in the same core's cache. Four tasks on two
// threads, each long enough (50 ms) for a worker woken late to be there: the caller runs tasks
// 0 and 1, one worker 2 and 3 — in every run.
TEST(WorkerPool, EachThreadTakesItsOwnBlockOfTasksFirst) {
    const Threads threads(2);
    for (int run = 0; run < 3; ++run) {
        std::vector<std::thread::id> ranOn(4);
        runTasks(4, [&](int i) {
            ranOn[static_cast<std::size_t>(i)] = std::this_thread::get_id();
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        });
        EXPECT_EQ(ranOn[0], std::this_thread::get_id()) << "run " << run;
        EXPECT_EQ(ranOn[1], std::this_thread::get_id()) << "run " << run;
        EXPECT_NE(ranOn[2], std::this_thread::get_id()) << "run " << run;
        EXPECT_EQ(ranOn[3], ranOn[2]) << "run " << run;
    }
}

// SerialHere: the thread that holds it runs every task itself, and sees one thread.
TEST(WorkerPool, SerialHereRunsEveryTaskOnTheCallingThread) {
    const Threads threads(2);
    {
        const SerialHere alone;
        EXPECT_EQ(workerThreads(), 1);
        std::vector<std::thread::id> ranOn(64);
        runTasks(64,
                 [&](int i) { ranOn[static_cast<std::size_t>(i)] = std::this_thread::get_id(); });
        for (const std::thread::id id : ranOn) EXPECT_EQ(id, std::this_thread::get_id());
        std::size_t covered = 0;
        runRanges(1000, 1, [&](std::size_t first, std::size_t last) { covered += last - first; });
        EXPECT_EQ(covered, 1000u);
    }
    EXPECT_EQ(workerThreads(), 2);
}

// OnThreadsOrNot, fed times: each cycle tries the way chosen, then the other, and keeps the one
// whose trial's median was less — an outlier in a trial does not decide.
TEST(WorkerPool, OnThreadsOrNotKeepsTheWayWhoseTrialsWereFaster) {
    const Threads threads(2);
    constexpr int trial = OnThreadsOrNot::kTrial, cycle = OnThreadsOrNot::kCycle;
    OnThreadsOrNot choice;
    // Serial at 1 ms a run, threads at 2 ms (one trial run at 0.1 ms).
    std::vector<bool> ways;
    for (int run = 0; run < 2 * cycle; ++run) {
        const bool serial = choice.serial();
        ways.push_back(serial);
        choice.took(serial ? 1e-3 : run == 3 ? 1e-4 : 2e-3);
    }
    for (int run = 0; run < trial; ++run) EXPECT_FALSE(ways[run]) << run;  // the first choice
    for (int run = trial; run < 2 * trial; ++run) EXPECT_TRUE(ways[run]) << run;  // the other
    for (int run = 2 * trial; run < cycle; ++run) EXPECT_TRUE(ways[run]) << run;  // kept
    for (int run = cycle; run < cycle + trial; ++run) EXPECT_TRUE(ways[run]) << run;
    for (int run = cycle + trial; run < cycle + 2 * trial; ++run) EXPECT_FALSE(ways[run]) << run;
    for (int run = cycle + 2 * trial; run < 2 * cycle; ++run) EXPECT_TRUE(ways[run]) << run;
    // Now the threads faster: the next cycle's trial turns back to them.
    for (int run = 0; run < cycle; ++run) {
        const bool serial = choice.serial();
        if (run >= 2 * trial) {
            EXPECT_FALSE(serial) << run;
        }
        choice.took(serial ? 3e-3 : 1e-3);
    }
    // One thread: always threads, nothing timed.
    const Threads one(1);
    OnThreadsOrNot single;
    for (int run = 0; run < 3 * trial; ++run) {
        EXPECT_FALSE(single.serial());
        single.took(run < trial ? 1.0 : 1e-9);
    }
}

// A run ends when its tasks are done, not when every worker has woken: a worker that wakes
// late (asleep between runs, or held up inside a task of its own) must find the run closed and
// never run one of its tasks after the run returned, nor a task of the next run twice. Many runs
// of a few tasks each, some with the workers asleep before them, others back to back.
TEST(WorkerPool, WorkersWakingLateRunNoTaskTwiceNorAfterTheRun) {
    const Threads threads(3);
    std::vector<int> done(17, -1);
    std::atomic<int> after{0};
    std::atomic<bool> inRun{false};
    for (int round = 0; round < 3000; ++round) {
        const int count = 1 + round % 17;
        inRun = true;
        runTasks(count, [&](int i) {
            if (!inRun.load()) ++after;
            if ((round + i) % 7 == 0)
                std::this_thread::sleep_for(std::chrono::microseconds(round % 5));
            EXPECT_EQ(done[static_cast<std::size_t>(i)], -1) << "round " << round << ", task " << i;
            done[static_cast<std::size_t>(i)] = round;
        });
        inRun = false;
        for (int i = 0; i < count; ++i) {
            ASSERT_EQ(done[static_cast<std::size_t>(i)], round) << "task " << i;
            done[static_cast<std::size_t>(i)] = -1;
        }
        if (round % 300 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(after.load(), 0);
}

// A task's own runs run on its thread, in order, and it is told one thread (it sizes its work
// for one); outside the run the count is the pool's again.
TEST(WorkerPool, ATaskThatRunsTasksRunsThemItself) {
    const Threads threads(2);
    std::atomic<int> inner{0}, elsewhere{0}, outOfOrder{0}, toldMore{0};
    runTasks(4, [&](int) {
        if (workerThreads() != 1) ++toldMore;
        const std::thread::id self = std::this_thread::get_id();
        int last = -1;
        runTasks(3, [&](int i) {
            ++inner;
            if (std::this_thread::get_id() != self) ++elsewhere;
            if (i != last + 1) ++outOfOrder;
            last = i;
        });
        runRanges(5000, 1, [&](std::size_t first, std::size_t last) {
            if (first != 0 || last != 5000) ++outOfOrder;
        });
    });
    EXPECT_EQ(inner.load(), 12);
    EXPECT_EQ(elsewhere.load(), 0);
    EXPECT_EQ(outOfOrder.load(), 0);
    EXPECT_EQ(toldMore.load(), 0);
    EXPECT_EQ(workerThreads(), 2);
}

// A second simulation on a thread of its own, not a task, while a run holds the pool: its runs
// run on its thread (every task once), and both end.
TEST(WorkerPool, ARunFromAnotherThreadWhileThePoolIsHeldRunsItself) {
    const Threads threads(2);
    std::atomic<bool> holding{false}, release{false};
    std::atomic<int> outer{0}, other{0};
    std::thread holder([&] {
        runTasks(2, [&](int) {
            holding = true;
            while (!release.load()) std::this_thread::sleep_for(std::chrono::microseconds(50));
            ++outer;
        });
    });
    while (!holding.load()) std::this_thread::sleep_for(std::chrono::microseconds(50));
    std::thread second([&] {
        EXPECT_EQ(workerThreads(), 2);  // (not inside a task)
        runTasks(100, [&](int) { ++other; });
    });
    second.join();
    release = true;
    holder.join();
    EXPECT_EQ(other.load(), 100);
    EXPECT_EQ(outer.load(), 2);
}

TEST(WorkerPool, AnExceptionOfATaskReachesTheCallerAfterAllTasksEnd) {
    const Threads threads(2);
    std::atomic<int> ended{0};
    EXPECT_THROW(runTasks(50,
                          [&](int i) {
                              ++ended;
                              if (i == 7) throw std::runtime_error("task 7");
                          }),
                 std::runtime_error);
    EXPECT_EQ(ended.load(), 50);
    // The pool still works after.
    std::atomic<int> again{0};
    runTasks(10, [&](int) { ++again; });
    EXPECT_EQ(again.load(), 10);
}

// A process made by fork() (motus-cli batch's cases, Python's sweep) has none of its parent's
// workers: it gets a pool of its own instead of waiting for them.
TEST(WorkerPool, AForkedProcessRunsItsTasks) {
    const Threads threads(2);
    runTasks(4, [](int) {});  // the parent's pool exists
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        std::atomic<int> runs{0};
        runTasks(100, [&](int) { ++runs; });
        _exit(runs.load() == 100 ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace engine
