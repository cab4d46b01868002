#pragma once
// The engine's threads for work that splits into independent tasks (the contact solve's
// islands). A run's tasks are split into as many consecutive blocks as there are threads: each
// thread (the caller the first block) takes its own block's tasks in order, then helps with
// what is left of the others' — so work over the same data lands on the same core run after
// run. A task's result must not depend on which thread runs it (each works on its own data),
// so a run is the same bit for bit with any number of threads.
//
// One run at a time: a call made while another is running (a second simulation on another
// thread, or a task that runs tasks) runs its tasks itself, in order. A process made by fork()
// gets a pool of its own on its first call (the parent's workers are not in it).

#include <cstddef>
#include <functional>

namespace engine {

// The threads used, the caller included: 1 runs every task on the calling thread. By default
// the machine's cores (std::thread::hardware_concurrency), or MOTUS_THREADS when set. Inside a
// task of a run it answers 1: the task's own runs run on its thread.
int workerThreads();
void setWorkerThreads(int threads);

// While one lives, the thread that made it runs every task itself: runTasks and runRanges run
// there in order, and workerThreads() answers 1 on that thread (other threads are not
// affected). For work whose result does not depend on the threads, run alone when that is
// faster (OnThreadsOrNot).
class SerialHere {
public:
    SerialHere();
    ~SerialHere();
    SerialHere(const SerialHere&) = delete;
    SerialHere& operator=(const SerialHere&) = delete;

private:
    bool before_;
};

// Whether a recurring piece of work (a step's collision query) runs on the engine's threads or
// on the calling thread alone, whichever took less time lately. Where the result is the same
// either way, bit for bit, which way is faster depends on the machine and its moment: two
// cores sharing a cache share the work's data cheaply, two whose caches are apart (a virtual
// machine's CPUs placed on different dies of the host, which can change minute to minute) may
// spend more moving it between them than they gain. Every `kCycle` runs, the first `kTrial`
// take the way chosen and the next `kTrial` the other (each run timed); the rest of the cycle
// takes whichever of the two trials' medians was less. With one thread it always says
// threads (there is nothing to choose) and times nothing.
class OnThreadsOrNot {
public:
    static constexpr int kTrial = 8;
    static constexpr int kCycle = 256;

    // work() run the way chosen, and timed for the choice; the seconds it took.
    double run(const std::function<void()>& work);

    // Whether this run is to be serial (a SerialHere around it).
    bool serial();
    // The time the run just chosen took.
    void took(double seconds);

private:
    long runs_ = 0;                 // runs timed so far (−1: one thread, none timed)
    bool chosen_ = false;           // serial chosen for the rest of the cycle
    double trial_[2][kTrial] = {};  // the trials' times: [0] the chosen way, [1] the other
};

// Runs task(0) … task(count − 1), on the caller and the pool's workers, and returns when all
// have ended. An exception thrown by a task is thrown again here (the first one, once all
// tasks have ended).
void runTasks(int count, const std::function<void(int)>& task);

// Runs range(first, last) over consecutive ranges that cover [0, count): as one range on the
// caller when there is one thread or fewer than `parallelFrom` items, else as four tasks per
// thread (even work without a hand-out per item). Each item must be independent of the others.
void runRanges(std::size_t count, std::size_t parallelFrom,
               const std::function<void(std::size_t, std::size_t)>& range);
// From this many bodies up, a step's work on each body alone (its frame, its applied forces, its
// new pose) is shared out by runRanges.
constexpr std::size_t kParallelBodies = 1024;

}  // namespace engine
