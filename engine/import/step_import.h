#pragma once
// Mechanisms from CAD: a STEP assembly (AP203, AP214, AP242; .step, .stp) as Motus parts, read
// through OpenCASCADE's data exchange (XDE: the assembly tree, names, colours, materials).
//
// Each component (or each solid, when asked) becomes a part, placed as in the assembly, named
// from the product tree, coloured as in the file, with its mass properties computed exactly
// from its B-rep solids (volume, centre of mass, inertia tensor) at the density of the file's
// material, else the default given. Lengths are converted from the file's unit to metres.
// A solid that is a box, a cylinder or a sphere is drawn and touched as that exact primitive;
// any other is drawn as a tessellation (kept in memory; the scene writer saves it beside the
// scene) and touches through its convex hull.
//
// The reader runs in a child process under memory and time bounds (engine/io/child_process.h):
// a corrupt file that makes OpenCASCADE crash or loop is reported, never fatal to the caller.
// OpenCASCADE stays inside this library: nothing here includes it.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/import/cad_joints.h"
#include "engine/io/child_process.h"
#include "engine/model/diagnostic.h"
#include "engine/model/scene_spec.h"

namespace engine::io {

// What becomes a part.
enum class CadGrouping {
    Component,  // each leaf component of the assembly, all its solids as one part
    Solid,      // each solid on its own
};

struct CadImportOptions {
    CadGrouping grouping = CadGrouping::Component;
    // Sub-assemblies kept rigid as one part each, by their instance or product name.
    std::vector<std::string> rigidAssemblies;
    // Density of solids whose file gives no material density [kg/m³]: steel's by default.
    double defaultDensity = 7850.0;
    // The drawing's tessellation: the largest distance of a triangle from the true surface [m]
    // (0: 0.2 % of each part's size) and the largest angle between neighbouring triangles [rad].
    double linearDeflection = 0.0;
    double angularDeflection = 0.35;
    // The component (by its instance or product name) that becomes the ground part: fixed,
    // its shapes the ground's. Empty: a ground part without shapes is added.
    std::string groundComponent;
    // Memory and time given to the reader, which runs in a process of its own (and its cancel
    // flag: set from another thread, the import stops within 0.1 s). With `limitsFromFileSize`
    // they are raised for a large file: memory to 16 times its size and 1 GB more (OpenCASCADE
    // holds every entity of the file; a 200 MB file of 4 million entities took 1.7 GB), up to
    // three quarters of the machine's memory, and time to 2 min and 1 s per MB.
    ChildLimits readerLimits;
    bool limitsFromFileSize = true;
};

struct CadImportStatistics {
    int components = 0;  // leaf components read (instances)
    int solids = 0;
    int faces = 0;
    std::size_t triangles = 0;  // in the drawings made
    double seconds = 0.0;       // reading, mass properties and tessellation
};

struct CadImportResult {
    std::optional<SceneSpec> scene;  // set when there are no errors: a ground and the parts
    Diagnostics diagnostics;         // errors, and warnings for what was changed or left out
    CadImportStatistics statistics;
    // Joints the geometry suggests (cad_joints.h), for the user to review; not in the scene.
    std::vector<JointSuggestion> suggestions;
    bool cancelled = false;  // stopped by readerLimits.cancel
};

// Whether `path` names a CAD file this importer reads (by its extension: .step, .stp, any case).
bool isCadFile(const std::string& path);

// Reads the assembly in `path`. The scene holds a ground part (the ground component, or one
// named "ground" without shapes) and one part per component or solid; its joints are left to
// the user, who may accept the suggestions (addSuggestedJoint).
CadImportResult importStepFile(const std::string& path, const CadImportOptions& options = {});

}  // namespace engine::io
