#pragma once
// Work that may crash, recurse without end or allocate without bound, done in a child process.
//
// Third-party readers (Assimp's importers, MuJoCo's compiler) crash on some malformed files
// inside their own code, before they return: Assimp's Collada importer recurses once per node
// level and per <instance_node> (a loop of instances, or 10,000 nested nodes, overflow the stack)
// and copies every instanced node before it returns (a 3 KB file instancing one triangle 10⁶
// times takes 1.3 GB and 5 s), MuJoCo's compiler indexes an OBJ's faces unchecked. No check
// after they return can prevent that, and a check before would have to re-implement each of
// Assimp's ~40 formats. So the reader runs in a forked child under a memory bound and a time
// bound; the parent receives the child's result as bytes, or an error saying what happened to
// it (crashed, ran out of memory, took too long). The child shares nothing back but the bytes.

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace engine::io {

struct ChildLimits {
    std::size_t memoryBytes = std::size_t{2} << 30;  // B the child may allocate beyond the parent's
    double seconds = 120.0;                          // s of wall time before the child is killed
    // When given and set (by another thread: a Cancel button), the child is killed within 0.1 s
    // and the work fails with "was cancelled".
    const std::atomic<bool>* cancel = nullptr;
};

// Runs `work` in a forked child. `work` returns true with its result in `out`, or false with the
// reason in `error`; an exception it throws is caught in the child and reported. Returns true
// with the child's `out` in `result`, or false with `error` saying what went wrong — the child's
// own reason, or "crashed (segmentation fault)", "ran out of its 2048 MB memory bound", "took
// longer than 120 s" — to be prefixed by the caller with what was being done.
// `*childFailed`, when given, tells the two kinds of failure apart: true when the child crashed,
// ran out of memory or time (`error` then says only that), false when `work` gave its reason.
bool runInChildProcess(const std::function<bool(std::string& out, std::string& error)>& work,
                       const ChildLimits& limits, std::string& result, std::string& error,
                       bool* childFailed = nullptr);

// Several works, each in a child of its own, at most `atOnce` running at a time; the outcomes in
// the order of `jobs`, each as runInChildProcess gives it. The calling thread forks every child
// and waits for them all: forks from several threads at once leave a child holding whatever lock
// another forking thread held at that moment — glibc's allocator guards itself against that, a
// sanitizer's allocator (clang 14's AddressSanitizer) does not, and such a child hangs.
struct ChildJob {
    std::function<bool(std::string& out, std::string& error)> work;
    ChildLimits limits;
};
struct ChildOutcome {
    bool done = false;         // `result` holds the child's answer; otherwise `error` says why not
    bool childFailed = false;  // as runInChildProcess's `*childFailed`
    std::string result, error;
};
std::vector<ChildOutcome> runInChildProcesses(const std::vector<ChildJob>& jobs, int atOnce);

// For a reader's fatal-error callback inside `work` (a C library that would otherwise exit the
// process): ends the child at once with `reason` as its error. Only valid inside `work`.
[[noreturn]] void failInChildProcess(const std::string& reason);

// For the fuzz targets' fast variants only (tests/fuzz, docs/performance.md "Fuzzing"): from now
// on `work` runs in the calling process, unbounded (a fork of a process under AddressSanitizer
// costs more than most readers' work). Results, reasons and exceptions come back as from a
// child; a reader's crash is then the caller's. Never used by Motus itself.
void runReadersInProcessForFuzzing();

}  // namespace engine::io
