#pragma once
// For the fuzz targets whose input reaches a reader Motus runs in a forked child (MuJoCo's
// compiler, Assimp: engine/io/child_process.h). The child is there because those readers crash,
// recurse without end or allocate without bound on some files; the parent reports it and goes
// on. Under the fuzzer the child inherits what a release build does not have: libFuzzer's and
// AddressSanitizer's crash handlers, which would report the reader's crash as the fuzzer's own
// (a crash-* file for an input Motus refuses as it should), and AddressSanitizer's allocator,
// which ends the process on an allocation beyond the child's memory bound where the C++ runtime
// throws std::bad_alloc. So in each forked child the fatal signals go back to their default (the
// child dies of the signal, as a release build's does, and the parent names it), and the
// allocator returns null for what it cannot allocate (operator new then throws, as in a release
// build). Memory errors that AddressSanitizer finds in Motus's own code are still reported, in
// the child too (where the child's copy of libFuzzer writes the input as crash-*).

#include <pthread.h>

#include <csignal>
#include <initializer_list>

extern "C" const char* __asan_default_options() {
    return "allocator_may_return_null=1";
}

namespace fuzz {

inline void defaultCrashHandlingInForkedChildren() {
    static const bool installed = [] {
        return ::pthread_atfork(nullptr, nullptr, [] {
                   for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
                       std::signal(signal, SIG_DFL);
               }) == 0;
    }();
    (void)installed;
}

}  // namespace fuzz
