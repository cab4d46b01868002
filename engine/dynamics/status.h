#pragma once
// The outcome of an engine operation.

#include <string>
#include <utility>

namespace engine {

// Failures carry a message naming the entity and time.
struct Status {
    bool ok = true;
    std::string message;
    static Status failure(std::string message) { return {false, std::move(message)}; }
};

}  // namespace engine
