#pragma once
// Deactivation: elements kept in the scene and left out of the model, as Adams' DEACTIVATE
// leaves them out of a simulation.
//
// What is out: every part, joint, force, motion and coupler whose `active` is false, the
// contact pairs switched off, and what an analysis adds of its own (SceneSpec::analyses: the
// motor left out of the modes); then what hangs on them: a deactivated part takes along the
// joints and forces with a marker on it and the contact pairs naming it (the part itself stays
// where it is placed, drawn but not simulated), a joint left out takes its motions, couplers
// and the forces acting on its coordinate. An expression that still runs (an active force's,
// a variable's, a sensor's) reading a measure of something left out is refused: its value
// would mean nothing.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/diagnostic.h"
#include "engine/model/scene_spec.h"

namespace engine {

// What a model leaves out, per kind: name → why ("deactivated", "deactivated for modes",
// "on deactivated part 'crank'").
struct Deactivation {
    std::map<std::string, std::string, std::less<>> parts, joints, forces, motions, couplers,
        contactPairs;
    bool empty() const {
        return parts.empty() && joints.empty() && forces.empty() && motions.empty() &&
               couplers.empty() && contactPairs.empty();
    }
    // One line per element left out: "motion 'drive': deactivated for modes", kinds in the
    // scene file's order.
    std::vector<std::string> describe() const;
};

// What `spec` leaves out for `analysis` (none: the scene's own deactivations only). Names the
// analyses' sets give that the scene does not have are validate()'s to report; they are
// ignored here.
Deactivation deactivation(const SceneSpec& spec, std::optional<Analysis> analysis);

// The expressions still in the model that read a measure of an element left out, as errors
// at the expression's place ("/forces/2/magnitude: reads 'q(crank)', but joint 'crank' is
// deactivated for modes").
Diagnostics deactivationErrors(const SceneSpec& spec, const Deactivation& out);

// `spec` without what `out` leaves out: those joints, forces, motions, couplers, and contact
// pairs removed; each part left out kept as a fixed part at its pose, with no shapes to touch
// and no motion of its frame.
SceneSpec withoutInactive(const SceneSpec& spec, const Deactivation& out);

}  // namespace engine
