#pragma once
// Motus version, from the top-level CMake project() (one place to bump it).

#include <string_view>

namespace engine {

std::string_view versionString();  // "0.1.0"

}  // namespace engine
