#pragma once
// Engine text (UTF-8 std::string) as Qt text, the one conversion every panel uses.

#include <string_view>

#include <QString>

namespace ui {

inline QString toQString(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

}  // namespace ui
