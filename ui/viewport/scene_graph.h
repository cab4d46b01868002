#pragma once
// Builds the OpenSceneGraph scene for a mechanism: parts drawn from their geometry with
// per-part material, marker triads, joint glyphs by type, the curves of joints on curves
// (slots, cam and follower contours), spring coils, gear and rack meshes
// (pitch circles and pitch points) with their tooth forces, the ground grid and
// world axes, and the look that does not depend on the view: a sky gradient behind
// everything, a floor, a key light that casts soft shadows (a shadow map rendered from the
// light by a camera inside the graph) and a fill light. Any camera that draws `root` (the 3D
// view, an off-screen renderer) gets the same picture. No Qt here.
// World frame z up; sizes of glyphs and grid follow the size of the mechanism.

#include <utility>
#include <vector>

#include <osg/Camera>
#include <osg/Geometry>
#include <osg/Group>
#include <osg/MatrixTransform>
#include <osg/Node>
#include <osg/Uniform>
#include <osg/ref_ptr>

#include "engine/contact/contact_force.h"
#include "engine/model/scene_spec.h"
#include "ui/common/coupler_layout.h"

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
    kMaskFloor = 0x100,
    kMaskSky = 0x200,
    kMaskShadowPass = 0x400,  // the camera that renders the shadow map
    kMaskOutline = 0x800,     // selection outlines
    kMaskScreen = 0x1000,     // full-screen passes of the view (anti-aliasing)
    kMaskGhost = 0x2000,      // the previous run's parts (ui/viewport/ghost.h): never picked
};

// A spring-damper drawn as a coil between two markers, a line force as the straight line
// it acts along; its geometry is rebuilt whenever the parts move (updateSprings).
struct SpringGlyph {
    int partI = 0, partJ = 0;      // SceneSpec part indices
    engine::Transform X_PI, X_PJ;  // the markers in their parts
    osg::ref_ptr<osg::Geometry> geometry;
    double radius = 0.01;   // m
    bool straight = false;  // a line force or a cable: no coil
    // A cable's points between I and J, in order: part index, the marker in it, and a pulley's
    // radius (0 for a point), wrap sense (+1 counterclockwise about z) and whether the cable
    // may lift off it — its path drawn round the pulleys (engine/math/cable_path.h).
    struct Via {
        int part = 0;
        engine::Transform X_PM;
        double radius = 0.0;
        int sense = 1;
        bool liftsOff = true;
    };
    std::vector<Via> via;
};

// A coupler (SceneSpec::couplers, same order). A gear pair is drawn where its teeth mesh: both
// pitch circles, the line across the axles and a ball at the pitch point, with the common
// tangent through it; a rack and pinion as the pinion's pitch circle, the rack's pitch line
// along its slide and the ball where they touch. The lines are seen through the parts (the
// pitch circles lie on the gears' own surfaces). Rebuilt whenever the parts move
// (updateCouplers). Screws and linear couplers have no glyph (`lines` null): selected, the
// parts they couple are highlighted.
struct CouplerGlyph {
    engine::EntityId id = engine::kNoEntity;
    CouplerLayout layout;
    CouplerPose pose;  // at the poses last drawn
    osg::ref_ptr<osg::Geometry> lines;
    osg::ref_ptr<osg::MatrixTransform> ball;  // at the pitch point
    osg::ref_ptr<osg::Vec4Array> colour;      // of the lines: the selection's while selected
    double size = 0.01;                       // m: the ball's radius; the tangent's length
};

// A joint on curves' curve, drawn with the part it is fixed in (under its marker, so it moves
// with the part): a point on a curve's curve on marker J's part; a cam pair's contours, the
// cam's on J's part and the follower's on I's. A line where it is in sight, and fainter where
// parts hide it; in the selection's colour while its joint is selected.
struct CurveGlyph {
    engine::EntityId joint = engine::kNoEntity;
    osg::ref_ptr<osg::Vec4Array> colour, hiddenColour;  // of its line in sight and hidden
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
    // heaviest part's weight and the frame's largest force is forceLength long, a quarter of
    // the mechanism or one and a half times the heaviest part across, whichever is shorter.
    osg::ref_ptr<osg::Geometry> contactArrows;
    double referenceForce = 1.0;  // N
    double forceLength = 0.25;    // m
    // Couplers, and their tooth forces: an arrow per gear pair or rack at its pitch point, the
    // force gear I puts on gear J (the pinion on the rack), scaled as the contact forces (the
    // frame's largest tooth force when it is above the reference). Under kMaskContacts.
    std::vector<CouplerGlyph> couplers;
    osg::ref_ptr<osg::Geometry> couplerArrows;
    std::vector<double> couplerForces;  // per coupler, as recorded (`<name>.force`) [N]
    std::vector<CurveGlyph> curves;     // joints on curves (a curve that is none: not drawn)
    // Per part: the geode with its shapes (material, translucency) and the outline drawn
    // around it while it is selected.
    std::vector<osg::ref_ptr<osg::Geode>> partShapes;
    std::vector<osg::ref_ptr<osg::Node>> partOutlines;
    // The floor: a plane z = floorZ under the mechanism (see buildSceneGraph) that receives
    // the shadows, fading into the sky at its edges.
    osg::ref_ptr<osg::Node> floor;
    double floorZ = 0.0;  // m
    // The key light: the direction towards it in world axes (unit), and the camera that
    // renders the parts' depth as seen from it.
    osg::Vec3d keyLight_W;
    osg::ref_ptr<osg::Camera> shadowCamera;
    osg::ref_ptr<osg::Uniform> shadowsOn;  // float: 1 shadows, 0 none
};

// Nodes that stand for a scene entity (part transform, marker triad, joint glyph) carry its id
// as the user value kEntityKey.
constexpr const char* kEntityKey = "motus.entity";

// The entity a picked node path belongs to (kNoEntity for grid, axes or nothing).
engine::EntityId entityOf(const osg::NodePath& path);

// Shows the selected parts highlighted: a warm glow on their material and an outline. A
// selected coupler's glyph takes the selection's colour, and the parts it couples glow; so do
// a selected joint's curves.
void setHighlighted(SceneGraph& graph, const engine::SceneSpec& spec,
                    const std::vector<engine::EntityId>& selected);

// Draws part `part` (index into SceneSpec::parts) see-through with opacity `alpha` (1: opaque
// again): blended, depth-sorted with the other transparent drawables, its faces behind not
// hidden by its own front. The same call draws the translucent ghost of a previous run.
void setTranslucent(SceneGraph& graph, int part, float alpha);
float translucency(const SceneGraph& graph, int part);  // the part's opacity (1: opaque)

// Shadows of the key light on (a shadow-map pass per frame) or off (no pass).
void setShadowsEnabled(SceneGraph& graph, bool on);
bool shadowsEnabled(const SceneGraph& graph);

// Rebuilds the spring coils for parts at `partPoses` (X_WP per part).
void updateSprings(SceneGraph& graph, const std::vector<engine::Transform>& partPoses);

// Redraws the contact force arrows (normal force orange, friction cyan) for `contacts`.
void updateContactArrows(SceneGraph& graph, const std::vector<engine::ContactForce>& contacts);

// Redraws the coupler glyphs for parts at `partPoses`, with their tooth force arrows.
void updateCouplers(SceneGraph& graph, const std::vector<engine::Transform>& partPoses);
// The couplers' recorded forces (Outputs::couplerForce, one per coupler; empty: none shown),
// drawn as magenta arrows at the pitch points.
void updateCouplerForces(SceneGraph& graph, const std::vector<double>& forces);

SceneGraph buildSceneGraph(const engine::SceneSpec& spec);

// What every camera drawing a SceneGraph adds around it, so the 3D view and the off-screen
// renderer look alike: the clear colour behind the sky, and a fixed light from above
// (GL_LIGHT1, to be enabled above it) beside the viewer's headlight.
osg::Vec4 viewBackground();
osg::ref_ptr<osg::Node> makeOverheadLight();

}  // namespace ui
