#include "engine/math/number_text.h"

#include <cstdio>

namespace engine {

std::string numberText(double value, int significant) {
    // The longest %.17g is 24 characters ("-2.2250738585072014e-308"): 64 leave room, and
    // snprintf cuts rather than overruns.
    char text[64];
    std::snprintf(text, sizeof text, "%.*g", significant, value);
    return text;
}

std::string numberText(double value, int significant, std::string_view unit) {
    std::string text = numberText(value, significant);
    text += ' ';
    text += unit;
    return text;
}

}  // namespace engine
