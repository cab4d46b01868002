#pragma once
// Building a mechanism one entity at a time, as the GUI's tools do: each function adds one
// entity with a fresh id, a name not yet taken ("box1", "m3", "revolute2") and sensible
// defaults, and returns its id. None of them validates the scene (validate() does); all of
// them keep names unique so a new entity never breaks a valid scene.
//
// Placement helpers work in the part frame P and the world frame W (X_WP the part's pose).

#include <string>
#include <string_view>

#include "engine/model/scene_spec.h"

namespace engine {

// A name `stem` + N (N = 1, 2, ...) not used by the entities of that kind: parts, markers of
// `part`, joints, forces, motions, couplers or contact pairs.
enum class NameSpace { Part, Joint, Force, Motion, Coupler, ContactPair };
std::string freshName(const SceneSpec& spec, NameSpace kind, std::string_view stem);
std::string freshMarkerName(const Part& part, std::string_view stem = "m");

// A part of one primitive of uniform density (steel, 7850 kg/m³), mass properties from its
// geometry. Default sizes suit a desktop mechanism: box 200 × 40 × 40 mm (a link along x),
// sphere r 40 mm, cylinder and capsule r 20 mm × 200 mm, cone r 40 mm × 100 mm. A mesh part
// is made by the caller (it needs the loaded mesh).
Part primitivePart(ShapeType type);
// Half the extent of the part's geometry along the unit direction n_P (part frame): how far
// to lift a new part off a surface with normal n so it rests on it.
double supportDistance(const Part& part, const Vec3& n_P);

EntityId addPart(SceneSpec& spec, Part part, std::string_view stem = "part");
EntityId addMarker(SceneSpec& spec, EntityId part, const Transform& X_PM,
                   std::string_view stem = "m");
// A joint of `type` from marker I to marker J (ids of markers; different parts are required
// by validate()).
EntityId addJoint(SceneSpec& spec, JointType type, EntityId markerI, EntityId markerJ);
// A force element between markers (springDamper, bushing; markerJ unused for point force and
// torque) or on a joint (rotationalSpringDamper, jointController: `joint` is a joint id).
// Stiffness and damping are sized to the parts they act on (damping ratio 0.3): a spring or a
// torsion spring at 2 Hz, a bushing at 10 Hz, a controller at 5 Hz; a point force of 10 N
// down, a point torque of 1 N·m about z.
EntityId addForce(SceneSpec& spec, ForceType type, EntityId markerI, EntityId markerJ,
                  EntityId joint);
// A joint servo's gains carried across a change of its type between jointController (kp in
// N·m/rad or N/m, kd in N·m·s/rad or N·s/m) and computedTorque (the error's own dynamics, kp
// in 1/s², kd in 1/s): divided or multiplied by what the joint moves (part I's mass or moment
// of inertia about the axis), so that on that part alone the servo keeps its frequency and
// damping ratio. Any other change of type leaves them.
void convertServoGains(const SceneSpec& spec, ForceSpec& force, ForceType from, ForceType to);
// A motion on a joint's coordinate: the angle for revolute and cylindrical joints (one turn
// a second), the slide for prismatic ones (a 50 mm sine at 1 Hz).
EntityId addMotion(SceneSpec& spec, EntityId joint);
EntityId addContactPair(SceneSpec& spec, EntityId partA, EntityId partB);
// A coupler of `type` between joints I and J (ids; a screw uses I alone, a linear coupler
// starts as qI − qJ = its initial value). Its size comes from the parts' geometry where they
// have it: a gear pair's ratio from each gear's cylinder (radius J / radius I), a pinion's
// pitch radius from its cylinder — of a gear's cylinders along its axle, the one reaching
// nearest the other joint's level (the largest of those; the gear's largest cylinder when
// none lies along the axle); else ratio 1, radius 50 mm, pitch 5 mm per turn. Returns
// kNoEntity when the joints do not have the coordinates the type needs.
EntityId addCoupler(SceneSpec& spec, CouplerType type, EntityId jointI, EntityId jointJ);

// Where things are: the part holding marker `marker` (null if none), and a marker's pose in
// the world at the parts' initial poses.
const Part* partOfMarker(const SceneSpec& spec, EntityId marker);
Part* partOfMarker(SceneSpec& spec, EntityId marker);
const Part* partById(const SceneSpec& spec, EntityId part);
Part* partById(SceneSpec& spec, EntityId part);
const Marker* markerById(const SceneSpec& spec, EntityId marker);
Transform markerWorldPose(const SceneSpec& spec, EntityId marker);
// The ground part, made (named "ground", no geometry) when the scene has none.
Part& groundPart(SceneSpec& spec);

// A rotation taking z to the unit vector n with the least turn (x stays where it can).
Quat rotationWithZAlong(const Vec3& n);

}  // namespace engine
