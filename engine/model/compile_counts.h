#pragma once
// How many times this process has validated and compiled a scene. Both grow with the scene, so
// a front end does each once per edit: the GUI's document validates and compiles an edit once
// and shares the result with everything that shows it (a test counts them).

#include <atomic>
#include <cstdint>

namespace engine {

struct CompileCounts {
    std::uint64_t validations = 0;  // validate(), also the one compile() runs
    std::uint64_t compiles = 0;     // compile()
};

CompileCounts compileCounts();

namespace detail {
// Incremented by validate() and compile() (engine/model only).
extern std::atomic<std::uint64_t> validationCount;
extern std::atomic<std::uint64_t> compileCount;
}  // namespace detail

}  // namespace engine
