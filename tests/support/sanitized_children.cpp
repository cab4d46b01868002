// Under AddressSanitizer (the `asan` preset), a reader Motus runs in a forked child (MuJoCo's
// compiler, Assimp: engine/io/child_process.h) that crashes ends the child as in a release
// build: the fatal signals go back to their defaults in each forked child, so the child dies of
// its signal and the parent names it (AddressSanitizer's inherited handler would report it and
// abort instead). Memory errors in Motus's own code are still reported, in the parent and the
// child. The same set-up as the fuzz targets' (tests/fuzz/forked_readers.h, whose allocator
// option comes with it). The three tests of a child's memory bound are left out of the `asan`
// test preset, as of the `tsan` one: under RLIMIT_AS the sanitizer's own bookkeeping runs out of
// memory before the allocation Motus bounds, and the child hangs in its report. Nothing in other
// builds.

#if defined(__SANITIZE_ADDRESS__)
#define MOTUS_TESTS_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MOTUS_TESTS_UNDER_ASAN 1
#endif
#endif

#ifdef MOTUS_TESTS_UNDER_ASAN
#include "tests/fuzz/forked_readers.h"

namespace {
const bool kChildrenFailAsInRelease = [] {
    fuzz::defaultCrashHandlingInForkedChildren();
    return true;
}();
}  // namespace
#endif
