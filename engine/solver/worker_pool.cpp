#include "engine/solver/worker_pool.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace engine {
namespace {

// A thread that waits for the others (a worker for the next run, the caller for the workers'
// last tasks) first spins this long: a step hands out tasks a few times per millisecond, and
// waking a sleeping thread costs tens of microseconds — as much as the tasks it would share.
constexpr std::chrono::microseconds kSpin{400};

// Whether `ready()` became true within kSpin, checked in a busy loop.
template <class Ready>
bool spinUntil(Ready ready) {
    const auto end = std::chrono::steady_clock::now() + kSpin;
    for (int round = 0;; ++round) {
        for (int k = 0; k < 64; ++k) {
            if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
        if (std::chrono::steady_clock::now() > end) return false;
    }
}

int defaultThreads() {
    if (const char* text = std::getenv("MOTUS_THREADS")) {
        const int n = std::atoi(text);
        if (n >= 1) return std::min(n, 256);
    }
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// Set by SerialHere on its thread.
thread_local bool serialHere = false;
// Set on a thread while it runs a run's tasks: a task that runs tasks runs them itself, known
// without touching the pool's shared state (a second simulation on another thread finds the
// pool held instead).
thread_local bool insideRun = false;

class Pool {
public:
    explicit Pool(int threads) : blocks_(static_cast<std::size_t>(threads)) {
        for (int k = 1; k < threads; ++k) workers_.emplace_back([this, k] { work(k); });
    }
    // Never destroyed: its workers wait until the process ends (a pool left behind by fork()
    // has no workers to join).
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;

    int threads() const { return static_cast<int>(workers_.size()) + 1; }

    // False when another run holds the pool: the caller then runs the tasks itself.
    //
    // The caller waits for the tasks, not for the workers: a worker asleep when the run begins
    // (its kernel wake-up takes tens of microseconds on a virtual CPU) is not waited for when
    // the caller and the workers awake have taken every task by then — it wakes, finds the run
    // closed and sleeps again. A worker joins a run only while the run is open (`state_`), and the run
    // is closed, and the workers inside it waited for, before run() returns: no worker touches
    // a run's tasks after that.
    bool run(int count, const std::function<void(int)>& task) {
        std::unique_lock<std::mutex> running(running_, std::try_to_lock);
        if (!running.owns_lock()) return false;
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            task_ = &task;
            const int threads = this->threads();
            for (int t = 0; t < threads; ++t) {
                Block& block = blocks_[static_cast<std::size_t>(t)];
                block.next.store(static_cast<int>(static_cast<long>(count) * t / threads));
                block.end = static_cast<int>(static_cast<long>(count) * (t + 1) / threads);
            }
            error_ = nullptr;
            const long generation = generation_.load() + 1;
            state_.store(static_cast<std::uint64_t>(generation) << 32);  // open, nobody inside
            generation_.store(generation);  // (last: a spinning worker reads it, then the rest)
        }
        wake_.notify_all();
        insideRun = true;
        take(0);
        insideRun = false;
        // Every task is taken now (by this thread or by a worker inside the run). The run is
        // closed: no worker enters it any more; those inside finish their tasks and leave.
        state_.fetch_or(kClosed);
        const auto nobodyInside = [this] { return (state_.load() & kInside) == 0; };
        if (!spinUntil(nobodyInside)) {
            std::unique_lock<std::mutex> lock(mutex_);
            done_.wait(lock, nobodyInside);
        }
        task_ = nullptr;
        if (error_) std::rethrow_exception(error_);
        return true;
    }

private:
    // state_: the run's generation (high 32 bits), closed (bit 31), workers inside (the rest).
    static constexpr std::uint64_t kClosed = std::uint64_t{1} << 31;
    static constexpr std::uint64_t kInside = kClosed - 1;

    // Tasks taken until none is left: the thread's own block first, in order, then what is
    // left of the others'. A run's tasks split the same way each time (thread t: the t-th of
    // `threads` consecutive blocks), so work over the same data — a step's parts, pairs,
    // rows, islands — lands on the same core step after step and finds its data in that
    // core's cache; between cores a cache line costs up to half a microsecond on a virtual
    // machine.
    void take(int self) {
        const int threads = this->threads();
        for (int k = 0; k < threads; ++k) {
            Block& block = blocks_[static_cast<std::size_t>((self + k) % threads)];
            for (int i = block.next.fetch_add(1); i < block.end; i = block.next.fetch_add(1)) {
                try {
                    (*task_)(i);
                } catch (...) {
                    const std::lock_guard<std::mutex> lock(mutex_);
                    if (!error_) error_ = std::current_exception();
                }
            }
        }
    }

    // Into run `generation` if it is still open (a worker woken late finds it closed, or a
    // later run: it then waits for the next).
    bool enter(long generation) {
        std::uint64_t s = state_.load();
        for (;;) {
            if ((s >> 32) != (static_cast<std::uint64_t>(generation) & 0xffffffffu) ||
                (s & kClosed))
                return false;
            if (state_.compare_exchange_weak(s, s + 1)) return true;
        }
    }

    void leave() {
        if ((state_.fetch_sub(1) & (kClosed | kInside)) == (kClosed | 1)) {
            const std::lock_guard<std::mutex> lock(mutex_);  // the last one out of a closed run
            done_.notify_all();
        }
    }

    void work(int self) {
        long seen = 0;
        for (;;) {
            if (!spinUntil([&] { return generation_.load() != seen; })) {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return generation_.load() != seen; });
            }
            seen = generation_.load();
            if (!enter(seen)) continue;
            insideRun = true;
            take(self);
            insideRun = false;
            leave();
        }
    }

    std::vector<std::thread> workers_;
    std::mutex running_;  // held by the run in progress
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    // A thread's block of a run's tasks: the next one to take and the end.
    struct alignas(64) Block {
        std::atomic<int> next{0};
        int end = 0;
    };
    const std::function<void(int)>* task_ = nullptr;
    std::vector<Block> blocks_;
    std::atomic<long> generation_{0};      // runs begun
    std::atomic<std::uint64_t> state_{0};  // see kClosed
    std::exception_ptr error_;
};

// What every call reads (the threads chosen, the pool) is read without a lock: a step calls
// workerThreads() and runTasks() several times, on both threads at once when tasks run tasks,
// and a lock taken there passed its cache line between the cores each time. The mutex only
// orders the making of a pool and a change of the count.
std::mutex& poolMutex() {
    static std::mutex m;
    return m;
}
std::atomic<int>& chosenThreads() {
    static std::atomic<int> threads{defaultThreads()};
    return threads;
}
std::atomic<Pool*>& currentPool() {
    static std::atomic<Pool*> pool{nullptr};
    return pool;
}

// The pool for the threads chosen, made on first use (and again after fork() or a new count;
// the pool it replaces is left as it is: its workers wait on). A child made by fork() has
// none of the parent's workers: it forgets the parent's pool as it begins.
Pool* pool() {
    const int threads = chosenThreads().load(std::memory_order_relaxed);
    Pool* current = currentPool().load(std::memory_order_acquire);
    if (current && current->threads() == threads) return current;
    const std::lock_guard<std::mutex> lock(poolMutex());
    static const bool forgotInChildren =
        pthread_atfork(nullptr, nullptr, [] { currentPool().store(nullptr); }) == 0;
    (void)forgotInChildren;
    current = currentPool().load(std::memory_order_acquire);
    if (!current || current->threads() != chosenThreads().load()) {
        current = new Pool(chosenThreads().load());
        currentPool().store(current, std::memory_order_release);
    }
    return current;
}

}  // namespace

SerialHere::SerialHere() : before_(serialHere) {
    serialHere = true;
}
SerialHere::~SerialHere() {
    serialHere = before_;
}

double OnThreadsOrNot::run(const std::function<void()>& work) {
    const bool alone = serial();
    const auto start = std::chrono::steady_clock::now();
    if (alone) {
        const SerialHere here;
        work();
    } else {
        work();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    took(seconds);
    return seconds;
}

bool OnThreadsOrNot::serial() {
    if (workerThreads() < 2) {
        runs_ = -1;  // (nothing timed)
        return false;
    }
    if (runs_ < 0) runs_ = 0;
    const long at = runs_ % kCycle;
    return at >= kTrial && at < 2 * kTrial ? !chosen_ : chosen_;  // (the other way's trial)
}

void OnThreadsOrNot::took(double seconds) {
    if (runs_ < 0) return;
    const long at = runs_ % kCycle;
    ++runs_;
    if (at >= 2 * kTrial) return;
    trial_[at < kTrial ? 0 : 1][at % kTrial] = seconds;
    if (at + 1 != 2 * kTrial) return;
    const auto median = [](double* t) {
        std::nth_element(t, t + kTrial / 2, t + kTrial);
        return t[kTrial / 2];
    };
    const double kept = median(trial_[0]), other = median(trial_[1]);
    if (other < kept) chosen_ = !chosen_;
}

int workerThreads() {
    if (serialHere || insideRun) return 1;
    return chosenThreads().load(std::memory_order_relaxed);
}

void setWorkerThreads(int threads) {
    const std::lock_guard<std::mutex> lock(poolMutex());
    chosenThreads().store(std::clamp(threads, 1, 256));
}

void runTasks(int count, const std::function<void(int)>& task) {
    if (count <= 0) return;
    if (count > 1 && workerThreads() > 1 && pool()->run(count, task)) return;
    for (int i = 0; i < count; ++i) task(i);
}

void runRanges(std::size_t count, std::size_t parallelFrom,
               const std::function<void(std::size_t, std::size_t)>& range) {
    const int threads = workerThreads();
    if (threads < 2 || count < std::max<std::size_t>(parallelFrom, 2)) {
        if (count > 0) range(0, count);
        return;
    }
    const std::size_t tasks = std::min(count, 4 * static_cast<std::size_t>(threads));
    runTasks(static_cast<int>(tasks), [&](int t) {
        const auto k = static_cast<std::size_t>(t);
        range(count * k / tasks, count * (k + 1) / tasks);
    });
}

}  // namespace engine
