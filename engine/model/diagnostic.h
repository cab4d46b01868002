#pragma once
// A problem found in user input (a scene file, an edit), reported to the user rather than
// thrown: the UI lists them, the CLI prints them as "motus-cli: error: <message> (<where>)".

#include <string>
#include <vector>

#include "engine/math/number_text.h"
#include "engine/model/entity_id.h"

namespace engine {

enum class Severity { Error, Warning };

struct Diagnostic {
    Severity severity = Severity::Error;
    std::string where;    // JSON pointer into the scene ("/joints/3/markerJ"), "" for the whole
    std::string message;  // what is wrong and what was expected
    // The entities it is about, by id, when they are known without the file (a run that cannot
    // start names its joints); SceneSpec::entityAt(where) gives the one `where` names.
    std::vector<EntityId> entities = {};
};

using Diagnostics = std::vector<Diagnostic>;

// "0.5 s": a time for messages.
inline std::string timeText(double seconds) {
    return numberText(seconds, 6, "s");
}

inline bool hasErrors(const Diagnostics& diagnostics) {
    for (const Diagnostic& d : diagnostics)
        if (d.severity == Severity::Error) return true;
    return false;
}

}  // namespace engine
