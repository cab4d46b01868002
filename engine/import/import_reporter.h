#pragma once
// What the three robot importers (URDF, MJCF, SDF) share in saying what they found: the
// reporter of their diagnostics, the places they name ("link 'upper_arm'"), excerpts of the
// file's text, and the closing validation of the scene.
//
// A hostile file can hold a million bad numbers: the first kMaxErrors errors and kMaxWarnings
// warnings are listed one by one, the others counted in a closing line. Warnings are many in
// real robots (a humanoid's meshes left out and frames merged run to hundreds) and each says
// what changed: they are all listed.

#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "engine/import/robot_import.h"
#include "engine/io/scene_json.h"
#include "engine/math/number_text.h"
#include "engine/model/diagnostic.h"
#include "engine/model/scene_spec.h"

namespace engine::io {

constexpr std::size_t kExcerptLength = 60;  // characters of a name or value quoted in a message

// At most `limit` characters of `text` (a name or value from the file), "…" when cut.
inline std::string excerpt(std::string_view text, std::size_t limit = kExcerptLength) {
    if (text.size() <= limit) return std::string(text);
    std::size_t end = limit;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // UTF-8
    return std::string(text.substr(0, end)) + "…";
}

inline std::string linkPlace(std::string_view name) {
    return "link '" + excerpt(name) + "'";
}
inline std::string jointPlace(std::string_view name) {
    return "joint '" + excerpt(name) + "'";
}

// A name from the file as a Motus name: letters, digits, '_' and '-', not starting with a digit
// or '-', at most 120 characters (URDF names hold '/', '.', spaces).
inline std::string sanitize(const std::string& name) {
    std::string out = name.empty() ? std::string("_") : name;
    for (char& c : out)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
    if (std::isdigit(static_cast<unsigned char>(out[0])) || out[0] == '-')
        out.insert(out.begin(), '_');
    return out.substr(0, 120);
}

class ImportReporter {
public:
    static constexpr int kMaxErrors = 50;
    static constexpr int kMaxWarnings = 1000;

    explicit ImportReporter(Diagnostics& out) : out_(out) {}
    void error(std::string where, std::string message) {
        add(Severity::Error, std::move(where), std::move(message));
    }
    void warning(std::string where, std::string message) {
        add(Severity::Warning, std::move(where), std::move(message));
    }
    void add(const Diagnostic& d) { add(d.severity, d.where, d.message); }
    // Diagnostics from elsewhere (the inertia fix-ups), counted like the others.
    void take(const Diagnostics& diagnostics) {
        for (const Diagnostic& d : diagnostics) add(d);
    }
    bool hasErrors() const { return count_[0] > 0; }
    void finish() {
        if (count_[0] > kMaxErrors)
            out_.push_back({Severity::Error, "",
                            std::to_string(count_[0] - kMaxErrors) + " more errors not listed"});
        if (count_[1] > kMaxWarnings)
            out_.push_back(
                {Severity::Warning, "",
                 std::to_string(count_[1] - kMaxWarnings) + " more warnings not listed"});
    }

private:
    void add(Severity severity, std::string where, std::string message) {
        const int kind = severity == Severity::Error ? 0 : 1;
        if (++count_[kind] <= (kind == 0 ? kMaxErrors : kMaxWarnings))
            out_.push_back({severity, std::move(where), std::move(message)});
    }
    Diagnostics& out_;
    int count_[2] = {0, 0};  // errors, warnings
};

// The end of an import: the scene built (nullopt after errors) is validated as any scene is,
// and kept when neither the import nor the validation found an error. The free text taken from
// the file (the robot's name, the path in the description) is made UTF-8, as a scene holds.
inline void finishImport(std::optional<SceneSpec> spec, RobotImportResult& result) {
    if (!spec) return;
    spec->name = detail::withValidUtf8(spec->name);
    spec->description = detail::withValidUtf8(spec->description);
    Diagnostics problems = validate(*spec);
    result.diagnostics.insert(result.diagnostics.end(), problems.begin(), problems.end());
    if (!hasErrors(result.diagnostics)) result.scene = std::move(spec);
}

}  // namespace engine::io
