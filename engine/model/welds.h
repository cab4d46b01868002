#pragma once
// Attachments (seed 003 §0.17–0.19): parts welded together by `fixed` joints move as one rigid
// body, so the model folds each group of them into one body before the solve (its mass, centre
// of mass and inertia combined; every part's markers carried over) and a weld costs no rows.
// Which welds fold, and into which groups, is decided here from the scene alone.

#include <string>
#include <vector>

#include "engine/model/diagnostic.h"
#include "engine/model/scene_spec.h"

namespace engine {

struct WeldGroups {
    // Per part: the first part of its group (itself when it is welded to nothing), the group's
    // root, whose frame the group's body is placed in; −1 for a part of the ground's group (a
    // ground part, or one welded to one).
    std::vector<int> root;
    // Per joint: a weld folded away (no rows; its reaction recovered from the parts' motion).
    std::vector<bool> folded;
    // Per joint, for a folded weld: the part on the side away from the group's root (or from
    // the ground), whose subtree of welds the weld carries, and the parts of that subtree.
    std::vector<std::vector<int>> carried;
    // Welds that could fold and do not, and why (what `motus-cli info` tells the user).
    std::vector<std::string> notes;
    // A weld that closes a loop of welds whose markers do not meet: no motion can close it (the
    // loop's parts are one rigid body). `where`: "/joints/<index in spec>".
    Diagnostics errors;
    bool any() const;
};

// The groups of `spec` (SolverSettings::foldWelds off: none). A weld folds when it is exact
// (not soft), neither of its parts is a moving frame, and its markers coincide at the parts'
// poses; a group that would hold both ends of another joint is not folded at all (that joint
// would join a rigid body to itself). A rigid weld whose markers are apart, closing a loop of
// welds that fold, is an error (errors).
WeldGroups weldGroups(const SceneSpec& spec);

}  // namespace engine
