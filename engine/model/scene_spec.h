#pragma once
// SceneSpec: the editable description of a mechanism, exactly what the user (or a scene file)
// says. SI units throughout. It is plain data: the GUI edits it through undo commands, the io/
// layer reads and writes it, validate() checks it; the solver never sees it directly.
//
// Frames: each part has a reference frame P whose pose in the world is X_WP. Mass properties,
// geometry and markers are given in P. A marker M is a frame fixed on its part (X_PM).
// A joint connects marker I (on part i) to marker J (on part j).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/math/spatial.h"
#include "engine/model/diagnostic.h"

namespace engine {

// Stable identity of an entity within a document: never reused, survives renames and
// reordering, so the GUI can select, edit and undo by id.
using EntityId = std::uint32_t;
constexpr EntityId kNoEntity = 0;

enum class ShapeType { Box, Sphere, Cylinder, Capsule, Cone };

// A primitive solid in the part frame. Cylinder, capsule and cone have their axis along the
// local z axis of X_PG, centred at its origin (the cone's base at -height/2).
struct Shape {
    ShapeType type = ShapeType::Box;
    Transform X_PG;                   // shape frame G in the part frame P
    Vec3 size = Vec3(0.1, 0.1, 0.1);  // box edge lengths [m]
    double radius = 0.05;             // sphere, cylinder, capsule, cone [m]
    double length = 0.1;              // cylinder, capsule (straight part), cone [m]
};

struct Marker {
    EntityId id = kNoEntity;
    std::string name;
    Transform X_PM;  // marker frame M in its part frame P
};

struct Part {
    EntityId id = kNoEntity;
    std::string name;
    bool ground = false;                     // the fixed part: never moves, needs no mass
    double mass = 1.0;                       // kg
    Vec3 p_PPcm = Vec3::Zero();              // centre of mass in P [m]
    Mat3 I_Pcm_P = Mat3::Identity() * 1e-3;  // inertia about the COM, expressed in P [kg·m²]
    Transform X_WP;                          // initial pose
    Vec3 v_WPo_W = Vec3::Zero();             // initial velocity of P's origin [m/s]
    Vec3 w_WP_W = Vec3::Zero();              // initial angular velocity [rad/s]
    std::uint32_t colorRgb = 0x8c9bab;       // display colour, 0xRRGGBB
    std::vector<Shape> shapes;
    std::vector<Marker> markers;
};

enum class JointType {
    Fixed,
    Revolute,
    Prismatic,
    Cylindrical,
    Spherical,
    Universal,
    Planar,
    Distance,
    PointOnLine,
    PointOnPlane,
    ParallelAxes,
    PerpendicularAxes,
};

// File and display names of joint types ("revolute", "pointOnLine", ...), and back.
std::string_view jointTypeName(JointType type);
std::optional<JointType> jointTypeFromName(std::string_view name);
std::string_view shapeTypeName(ShapeType type);
std::optional<ShapeType> shapeTypeFromName(std::string_view name);

// A reference to a marker by name: "part.marker".
struct MarkerRef {
    std::string part;
    std::string marker;
    std::string text() const { return part + "." + marker; }
};

struct Joint {
    EntityId id = kNoEntity;
    std::string name;
    JointType type = JointType::Revolute;
    MarkerRef markerI;
    MarkerRef markerJ;
    double length = 0.0;  // distance joint only [m]
};

struct SceneSpec {
    std::string name;
    std::string description;
    Vec3 gravity = Vec3(0.0, 0.0, -9.81);  // m/s²
    std::vector<Part> parts;
    std::vector<Joint> joints;
    EntityId nextId = 1;  // next id to hand out; ids are never reused within a document

    EntityId newId() { return nextId++; }

    const Part* findPart(std::string_view name) const;
    const Marker* findMarker(const MarkerRef& ref) const;
    std::size_t markerCount() const;
};

// Semantic checks on a spec (the file structure is checked by the reader): names unique and
// well formed, references resolve, mass properties physical, joints between distinct parts.
// `where` paths follow the scene file layout ("/parts/2/mass").
Diagnostics validate(const SceneSpec& spec);

}  // namespace engine
