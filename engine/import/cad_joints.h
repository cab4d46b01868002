#pragma once
// Joints suggested from a CAD assembly's geometry: the surfaces by which two parts meet say how
// they move against each other, as an engineer reads a drawing.
//   - a pin in a hole (coaxial cylinders, one convex, one concave, of the same radius to the
//     fit's clearance): a revolute when a face across the axis stops the slide (a shoulder, the
//     plates the pin joins), a cylindrical joint otherwise;
//   - a ball in a socket (concentric spheres, convex in concave): a spherical joint;
//   - flat faces against each other (coplanar, opposed): a planar joint when all face one way;
//     a prismatic joint along the line two such directions leave free (a slider in a slot).
// Markers go on the axes (z along a revolute's, cylindrical's or prismatic's axis, or a planar
// joint's normal), at the middle of the pin's length in the hole. Plain geometry: no OpenCASCADE.

#include <cstddef>
#include <string>
#include <vector>

#include "engine/model/scene_spec.h"

namespace engine::io {

// A face of a part's solid that a joint may be made of, in the part frame P.
struct CadFeature {
    enum class Kind { Plane, Cylinder, Sphere };
    Kind kind = Kind::Plane;
    // Plane: the face's centroid. Cylinder: a point on the axis, where the face begins along
    // `direction`. Sphere: the centre.
    Vec3 point = Vec3::Zero();
    // Plane: the outward normal (out of the material). Cylinder: the axis (unit).
    Vec3 direction = Vec3::UnitZ();
    double radius = 0.0;  // cylinder, sphere [m]; plane: the largest distance of its vertices
                          // from its centroid
    double length = 0.0;  // cylinder: the face's extent along the axis from `point` [m]
    bool convex = true;   // cylinder, sphere: material inside (a pin, a ball), not outside
    double area = 0.0;    // m²
};

struct JointSuggestion {
    JointType type = JointType::Revolute;
    std::size_t partI = 0, partJ = 0;  // indices into the scene's parts (I the pin's, the ball's)
    Transform X_WJ;                    // the joint's frame in the world (z its axis or normal)
    std::string reason;                // what in the geometry says so, for the user's review
};

// The suggestions for the parts of `spec`, whose faces are `features[p]` (for part p; the
// ground and parts without features may have none). `tolerance` [m]: how far apart surfaces
// may be and still meet, and a fit's largest clearance.
std::vector<JointSuggestion> suggestJoints(const SceneSpec& spec,
                                           const std::vector<std::vector<CadFeature>>& features,
                                           double tolerance = 1e-5);

// The suggestion as an ordinary joint of `spec`: a marker on each part at the joint frame and a
// joint between them (named after the parts, unique). Returns the joint's index in spec.joints.
std::size_t addSuggestedJoint(SceneSpec& spec, const JointSuggestion& suggestion);

// An imported scene (a CAD assembly joined or not) added to an open one, `target`: its moving
// parts and the joints among them copied with fresh ids and names unique in `target` (edit.h's
// copyParts); its ground part's shapes and markers moved onto target's ground where they were in
// the world, and the joints to it re-pointed there (a scene without a ground takes the imported
// one whole). Returns the ids of the parts added; empty with `error` set when there is nothing
// to add.
std::vector<EntityId> addImportedScene(SceneSpec& target, const SceneSpec& imported,
                                       std::string& error);

}  // namespace engine::io
