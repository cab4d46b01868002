#pragma once
// Builds the OpenSceneGraph scene for a mechanism: parts drawn from their geometry with
// per-part colour, marker triads, joint glyphs by type, the ground grid and world axes.
// World frame z up; sizes of glyphs and grid follow the size of the mechanism.

#include <osg/Geometry>
#include <osg/Group>
#include <osg/MatrixTransform>
#include <osg/Node>
#include <osg/ref_ptr>

#include "engine/contact/contact_force.h"
#include "engine/model/scene_spec.h"

namespace ui {

// Node masks: the viewport shows or hides each kind by its camera's cull mask.
enum NodeMask : unsigned {
    kMaskParts = 0x1,
    kMaskMarkers = 0x2,
    kMaskJoints = 0x4,
    kMaskGrid = 0x8,
    kMaskAxes = 0x10,
    kMaskContacts = 0x20,
    kMaskCentreOfMass = 0x40,
    kMaskGizmo = 0x80,
};

// A spring-damper drawn as a coil between two markers; its geometry is rebuilt whenever the
// parts move (updateSprings).
struct SpringGlyph {
    int partI = 0, partJ = 0;      // SceneSpec part indices
    engine::Transform X_PI, X_PJ;  // the markers in their parts
    osg::ref_ptr<osg::Geometry> geometry;
    double radius = 0.01;  // m
};

struct SceneGraph {
    osg::ref_ptr<osg::Group> root;         // everything below
    osg::ref_ptr<osg::Group> mechanism;    // parts with their markers and joint glyphs
    osg::ref_ptr<osg::Group> environment;  // grid and world axes
    // Per part (index into SceneSpec::parts): the transform carrying X_WP. Markers, shapes and
    // joint glyphs hang below it, so updating these moves everything attached to the part.
    std::vector<osg::ref_ptr<osg::MatrixTransform>> partTransforms;
    double characteristicLength = 1.0;  // m: size used to scale glyphs and the grid
    std::vector<SpringGlyph> springs;
    // Contact forces: an arrow per contact point along the force on part B (normal and
    // friction as separate arrows), length proportional to the force: the larger of the
    // heaviest part's weight and the frame's largest force is a quarter of the mechanism.
    osg::ref_ptr<osg::Geometry> contactArrows;
    double referenceForce = 1.0;  // N
};

// Nodes that stand for a scene entity (part transform, marker triad, joint glyph) carry its id
// as the user value kEntityKey.
constexpr const char* kEntityKey = "motus.entity";

// The entity a picked node path belongs to (kNoEntity for grid, axes or nothing).
engine::EntityId entityOf(const osg::NodePath& path);

// Shows the selected parts highlighted (a warm glow on their material).
void setHighlighted(SceneGraph& graph, const engine::SceneSpec& spec,
                    const std::vector<engine::EntityId>& selected);

// Rebuilds the spring coils for parts at `partPoses` (X_WP per part).
void updateSprings(SceneGraph& graph, const std::vector<engine::Transform>& partPoses);

// Redraws the contact force arrows (normal force orange, friction cyan) for `contacts`.
void updateContactArrows(SceneGraph& graph, const std::vector<engine::ContactForce>& contacts);

SceneGraph buildSceneGraph(const engine::SceneSpec& spec);

}  // namespace ui
