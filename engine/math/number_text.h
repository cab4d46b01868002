#pragma once
// Numbers as the engine's messages show them: one formatter, so every diagnostic, status and
// log line prints a number the same way (printf's %g family).

#include <string>
#include <string_view>

namespace engine {

// A number as messages show it: printf's %.<significant>g (6 = "%g"). numberText(x, 17)
// prints a double exactly (it reads back to the same value).
std::string numberText(double value, int significant = 6);

// The same followed by a space and its unit: numberText(0.25, 3, "m") == "0.25 m".
std::string numberText(double value, int significant, std::string_view unit);

}  // namespace engine
