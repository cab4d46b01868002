#pragma once
// A robot's links that overlap where its description places them. Collision shapes are often
// drawn into one another beyond the joint between two links (a thigh's motor inside the trunk, a
// hip's shell around the upper leg): with contact on, two links that overlap at the start are
// pushed apart against their joints and held from moving further into each other. As MoveIt's
// setup does for links "in collision by default", contact between such links is switched off,
// one contact pair each, and said.

#include "engine/model/diagnostic.h"
#include "engine/model/scene_spec.h"

namespace engine::io {

// Each pair of parts of `spec` whose collision shapes overlap deeper than the contact slop at
// their poses in it (the robot's zero pose), not jointed neighbours nor welded into one body,
// gets a contact pair switched off (`noTouch_<A>_<B>`); one warning says how many and which.
// Whether contact is on does not matter (it is looked at as if it were). Nothing is changed
// when the scene does not compile.
void switchOffOverlappingLinks(SceneSpec& spec, Diagnostics& diagnostics);

}  // namespace engine::io
