#pragma once
// The diagnostics of a robot import (URDF, MJCF, SDF). A hostile file can hold a million bad
// numbers: the first kMaxErrors errors and kMaxWarnings warnings are listed one by one, the
// others counted in a closing line. Warnings are many in real robots (a humanoid's meshes left
// out and frames merged run to hundreds) and each says what changed: they are all listed.

#include <string>
#include <utility>

#include "engine/model/diagnostic.h"

namespace engine::io {

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
            out_.push_back({Severity::Warning, "", std::to_string(count_[1] - kMaxWarnings) +
                                                       " more warnings not listed"});
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

}  // namespace engine::io
