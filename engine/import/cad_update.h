#pragma once
// An imported CAD assembly made part of a scene: the component chosen as the ground, and a STEP
// file that changed read again into the scene built from it (re-import), keeping the joints
// whose markers still fit the new geometry. Plain scene edits: no OpenCASCADE.

#include <string>
#include <vector>

#include "engine/import/cad_joints.h"
#include "engine/model/scene_spec.h"

namespace engine::io {

// Part `part` of an imported scene made its ground (the frame of the machine, a base plate):
// the import's placeholder ground (no shapes, markers or joints) is removed and the part, where
// it is, becomes the ground under its own name. False with `error` when there is no such moving
// part, or the scene's ground is more than a placeholder (choose the ground before adding an
// import to an open scene: addImportedScene then moves it onto that scene's ground).
// `suggestions` (indices into spec.parts), when given, follow the parts' new indices.
bool makeImportedGround(SceneSpec& spec, EntityId part, std::string& error,
                        std::vector<JointSuggestion>* suggestions = nullptr);

// What a re-import changed, by name, for the user to read.
struct CadUpdateReport {
    std::vector<std::string> updated;     // parts given the file's geometry, mass and placement
    std::vector<std::string> added;       // parts new in the file
    std::vector<std::string> missing;     // parts of the scene not in the file: left as they were
    std::vector<std::string> jointsKept;  // joints whose markers still fit
    std::vector<std::string> jointsRefitted;  // joints whose markers moved onto the new axis
    std::vector<std::string> jointsRemoved;   // "name: why", with what went with them
    std::vector<std::string> notes;           // anything else the user should know
};

struct CadUpdate {
    bool ok = false;
    std::string error;  // when not ok: why (the scene is then unchanged)
    CadUpdateReport report;
    // The file's joint suggestions that no joint of the scene already makes, with indices into
    // the updated scene's parts: for the user to review, as after a first import.
    std::vector<JointSuggestion> suggestions;
};

// Reads `imported` (a fresh import of the file `target` was built from, with its suggestions)
// into `target`. Parts are matched by name (the importer names them from the product tree):
//   - a part of both takes the file's shapes, mass properties, colour and placement, and keeps
//     its id, name, markers (in its own frame), velocities and settings; the scene's ground
//     takes the shapes and placement of the file's part of its name, if any;
//   - a part only in the file is added (a new component);
//   - a part only in the scene is left as it was (made by hand, or removed from the assembly:
//     the user decides).
// Then every joint with a marker on an updated part is checked against the new geometry:
//   - a joint the geometry still makes where it is (its type between its parts, marker I on
//     the axis: a pin still in its hole) is kept as it is;
//   - a joint whose geometry moved within its parts (a hole drilled elsewhere, a link made
//     longer) is moved onto the nearest axis the geometry gives for its type between its parts,
//     each marker keeping its orientation when its z axis lies along it (a motion's zero is
//     kept), and kept when its equations then hold to `tolerance` (m; rad for axes);
//   - a joint the geometry does not make (a motor's mount, a joint to a part made by hand) is
//     kept when its equations hold at the new placements;
//   - any other is removed, with what cannot exist without it (its motions), and the report
//     says by how much it missed.
// Returns with `ok` false and `target` unchanged when the updated scene would not compile.
CadUpdate updateImportedScene(SceneSpec& target, const SceneSpec& imported,
                              const std::vector<JointSuggestion>& suggestions,
                              double tolerance = 1e-6);

}  // namespace engine::io
