#pragma once
// The outcome of an engine operation.

#include <string>
#include <utility>
#include <vector>

#include "engine/model/entity_id.h"

namespace engine {

// What kind of failure, for front ends that act on it (an exit status, the nearest pose shown).
enum class Cause {
    Other,
    CannotAssemble,   // the joints and motions cannot all hold (no pose found)
    LoopCannotClose,  // ... and a loop's gap is known: the state is the nearest pose
    Cancelled,
    NotFinite,  // a value that is not a number (NaN or infinity): no solve can fix it
    LockUp,     // a driven mechanism cannot follow its motions beyond an instant (the entities:
                // first the joints and motions whose equations become dependent)
    FormulationRefused,  // the formulation the scene asks for cannot step the mechanism (joint
                         // coordinates from a singular position of its loops): the input's fault
};

// Failures carry a message naming the entity and time, for people; and the entities it names,
// by id, for programs: a front end highlights and selects from `entities`, never from the
// words of `message` (which may be reworded at any time).
struct Status {
    bool ok = true;
    std::string message;
    Cause cause = Cause::Other;
    std::vector<EntityId> entities = {};  // what the failure is about, the first the one to show
    // The failure is an expression of the scene (a motion's, or a force element's) that stops
    // being a number, jumps or races off, named in the message with its value: its own cause,
    // which nothing needs to explain further (ForwardDynamics::advance adds no diagnosis).
    bool expressionCause = false;

    static Status failure(std::string message, std::vector<EntityId> entities = {},
                          Cause cause = Cause::Other) {
        Status s;
        s.ok = false;
        s.message = std::move(message);
        s.cause = cause;
        s.entities = std::move(entities);
        return s;
    }
};

}  // namespace engine
