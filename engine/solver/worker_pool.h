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
// the machine's cores (std::thread::hardware_concurrency), or MOTUS_THREADS when set.
int workerThreads();
void setWorkerThreads(int threads);

// Runs task(0) … task(count − 1), on the caller and the pool's workers, and returns when all
// have ended. An exception thrown by a task is thrown again here (the first one, once all
// tasks have ended).
void runTasks(int count, const std::function<void(int)>& task);

// Runs range(first, last) over consecutive ranges that cover [0, count): as one range on the
// caller when there is one thread or fewer than `parallelFrom` items, else as four tasks per
// thread (even work without a hand-out per item). Each item must be independent of the others.
void runRanges(std::size_t count, std::size_t parallelFrom,
               const std::function<void(std::size_t, std::size_t)>& range);

}  // namespace engine
