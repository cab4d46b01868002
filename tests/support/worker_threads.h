#pragma once
// The engine's thread count set for a test's scope, and put back as it was after it.

#include "engine/solver/worker_pool.h"

namespace engine::test {

struct WorkerThreads {
    explicit WorkerThreads(int n) : before(workerThreads()) { setWorkerThreads(n); }
    ~WorkerThreads() { setWorkerThreads(before); }
    WorkerThreads(const WorkerThreads&) = delete;
    WorkerThreads& operator=(const WorkerThreads&) = delete;
    int before;
};

}  // namespace engine::test
