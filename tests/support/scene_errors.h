#pragma once
// What the scene reader says about scene text, for the tests of its checks.

#include <string>

#include <gtest/gtest.h>

#include "engine/io/scene_json.h"
#include "engine/model/diagnostic.h"

namespace engine::test {

// The first error among `diagnostics` as "where: message"; "" when there is none.
inline std::string firstError(const Diagnostics& diagnostics) {
    for (const Diagnostic& d : diagnostics)
        if (d.severity == Severity::Error) return d.where + ": " + d.message;
    return "";
}

// The first error the reader finds in a scene of a ground and a 1 kg part "arm", each with a
// marker "m", and one joint, `jointJson` (a joint object of the scene format); "" when none.
inline std::string firstJointError(const std::string& jointJson) {
    const std::string scene = R"({"format": "motus-scene", "version": 1,
      "parts": [{"name": "ground", "ground": true, "markers": [{"name": "m"}]},
                {"name": "arm", "mass": 1, "inertia": [1, 1, 1], "markers": [{"name": "m"}]}],
      "joints": [)" + jointJson +
                              "]}";
    return firstError(io::parseScene(scene).diagnostics);
}

// The scene `text` reads as; every error is a test failure (an empty scene then).
inline SceneSpec parsedScene(const std::string& text) {
    const io::SceneLoadResult r = io::parseScene(text);
    for (const Diagnostic& d : r.diagnostics)
        if (d.severity == Severity::Error) ADD_FAILURE() << d.where << ": " << d.message;
    return r.scene ? *r.scene : SceneSpec{};
}

// Whether `text` with `from` replaced by `to` is refused by the reader with a diagnostic at
// `where` whose message holds `words` (every word of it: a test failure otherwise).
inline void expectEditRefused(const std::string& text, const std::string& from,
                              const std::string& to, const std::string& where,
                              const std::string& words = "") {
    std::string bad = text;
    const std::size_t at = bad.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    bad.replace(at, from.size(), to);
    const io::SceneLoadResult r = io::parseScene(bad);
    EXPECT_FALSE(r.scene) << where;
    bool found = false;
    for (const Diagnostic& d : r.diagnostics)
        found = found || (d.where == where && d.message.find(words) != std::string::npos);
    EXPECT_TRUE(found) << where << " '" << words << "'";
}

}  // namespace engine::test
