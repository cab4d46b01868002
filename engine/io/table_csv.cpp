#include "engine/io/table_csv.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace engine::io {
namespace {

std::string trimmed(std::string_view s) {
    std::size_t a = 0, b = s.size();
    while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '"' || s[a] == '\r')) ++a;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '"' || s[b - 1] == '\r'))
        --b;
    return std::string(s.substr(a, b - a));
}

// The fields of one line split at `separator` (' ': at runs of spaces and tabs).
std::vector<std::string> fields(std::string_view line, char separator) {
    std::vector<std::string> out;
    std::string field;
    auto push = [&] {
        out.push_back(trimmed(field));
        field.clear();
    };
    for (char c : line) {
        const bool split = separator == ' ' ? (c == ' ' || c == '\t') : c == separator;
        if (!split) {
            field += c;
        } else if (separator != ' ' || !trimmed(field).empty()) {
            push();
        }
    }
    if (separator != ' ' || !trimmed(field).empty()) push();
    return out;
}

// A whole field as a finite number.
bool number(std::string text, bool decimalComma, double& out) {
    if (decimalComma) std::replace(text.begin(), text.end(), ',', '.');
    if (text.empty()) return false;
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v)) return false;
    out = v;
    return true;
}

}  // namespace

bool readTableColumns(std::string_view text, TableColumns& out, std::string& error) {
    out = {};
    // The separator: the first of ';', tab, ',' the text holds, else spaces.
    char separator = ' ';
    for (char candidate : {';', '\t', ','})
        if (text.find(candidate) != std::string_view::npos) {
            separator = candidate;
            break;
        }
    const bool decimalComma = separator == ';' || separator == '\t';
    std::vector<std::string> header;
    int lineNumber = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(start, end - start);
        start = end + 1;
        ++lineNumber;
        if (trimmed(line).empty() || trimmed(line)[0] == '#') continue;
        const std::vector<std::string> f = fields(line, separator);
        double x = 0.0, y = 0.0;
        const bool numbers =
            f.size() >= 2 && number(f[0], decimalComma, x) && number(f[1], decimalComma, y);
        if (!numbers) {
            if (out.x.empty()) {  // a header, before the numbers
                header = f;
                continue;
            }
            const std::string bad =
                f.empty()      ? std::string()
                : f.size() < 2 ? f[0]
                               : [&] { return number(f[0], decimalComma, x) ? f[1] : f[0]; }();
            error = "line " + std::to_string(lineNumber) + ": " +
                    (f.size() < 2 ? "one column; x and y are two"
                                  : "'" + bad.substr(0, 40) + "' is not a number");
            return false;
        }
        out.x.push_back(x);
        out.y.push_back(y);
        out.extraColumns = std::max(out.extraColumns, static_cast<int>(f.size()) - 2);
    }
    if (out.x.size() < 2) {
        error = out.x.empty() ? "no rows of two numbers (x, y)"
                              : "only 1 row of numbers: a table needs 2";
        return false;
    }
    if (header.size() >= 2) {
        out.xName = header[0];
        out.yName = header[1];
    }
    // Listed with x falling throughout: turned round.
    bool falling = true;
    for (std::size_t k = 1; k < out.x.size(); ++k) falling = falling && out.x[k] < out.x[k - 1];
    if (falling) {
        std::reverse(out.x.begin(), out.x.end());
        std::reverse(out.y.begin(), out.y.end());
    }
    return true;
}

}  // namespace engine::io
