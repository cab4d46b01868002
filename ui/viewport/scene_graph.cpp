#include "ui/viewport/scene_graph.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include <osg/AutoTransform>
#include <osg/BlendFunc>
#include <osg/ComputeBoundsVisitor>
#include <osg/CullFace>
#include <osg/Depth>
#include <osg/Geode>
#include <osg/Geometry>
#include <osg/LOD>
#include <osg/Light>
#include <osg/LightSource>
#include <osg/LineWidth>
#include <osg/Material>
#include <osg/MatrixTransform>
#include <osg/PolygonMode>
#include <osg/PolygonOffset>
#include <osg/Program>
#include <osg/ShapeDrawable>
#include <osg/Texture2D>

#include "engine/math/cable_path.h"
#include "engine/model/curve.h"
#include "engine/model/mass_properties.h"
#include "engine/model/surface.h"
#include "ui/viewport/osg_convert.h"
#include "ui/viewport/scene_look.h"

namespace ui {
namespace {

using namespace look;
using engine::Shape;
using engine::ShapeType;
using engine::Vec3;

template <class T, class... Args>
osg::ref_ptr<T> makeRef(Args&&... args) {
    return osg::ref_ptr<T>(new T(std::forward<Args>(args)...));
}

// Tessellation: parts are smooth; joint glyphs are small, so they get far fewer facets (they
// are many in a long chain, and software rendering pays for every triangle).
osg::ref_ptr<osg::TessellationHints> glyphHints() {
    auto hints = makeRef<osg::TessellationHints>();
    hints->setDetailRatio(0.4f);
    return hints;
}

osg::ref_ptr<osg::TessellationHints> fineHints() {
    auto hints = makeRef<osg::TessellationHints>();
    hints->setDetailRatio(1.5f);
    return hints;
}

// A part with round shapes is drawn with coarse ones (a ball of 144 triangles, not 3,600) while
// it is small on screen: below kFinePixels (the projected size OSG's LOD measures, about the
// part's radius in pixels). A scatter of 10,000 parts seen whole is some 19 million triangles
// drawn finely, under a million coarsely.
osg::ref_ptr<osg::TessellationHints> coarseHints() {
    auto hints = makeRef<osg::TessellationHints>();
    hints->setDetailRatio(0.3f);
    return hints;
}
constexpr float kFinePixels = 24.0f;

// An OSG shape for a Motus primitive, in the part frame. OSG's cylinder, capsule and cone are
// along their local z, like Motus's; OSG puts a cone's centre at its centroid (a quarter of
// the height above the base) where Motus puts it half-way, hence the shift.
osg::ref_ptr<osg::Shape> makeShape(const Shape& s) {
    const osg::Quat rotation = toOsg(s.X_PG.R);
    const osg::Vec3 center = toOsg(s.X_PG.p);
    switch (s.type) {
    case ShapeType::Box: {
        auto box = makeRef<osg::Box>(center, s.size.x(), s.size.y(), s.size.z());
        box->setRotation(rotation);
        return box;
    }
    case ShapeType::Sphere:
        return makeRef<osg::Sphere>(center, s.radius);
    case ShapeType::Cylinder: {
        auto cylinder = makeRef<osg::Cylinder>(center, s.radius, s.length);
        cylinder->setRotation(rotation);
        return cylinder;
    }
    case ShapeType::Capsule: {
        auto capsule = makeRef<osg::Capsule>(center, s.radius, s.length);
        capsule->setRotation(rotation);
        return capsule;
    }
    case ShapeType::Cone: {
        const Vec3 shift = s.X_PG.R * Vec3(0.0, 0.0, -0.25 * s.length);
        auto cone = makeRef<osg::Cone>(center + toOsg(shift), s.radius, s.length);
        cone->setRotation(rotation);
        return cone;
    }
    case ShapeType::Plane:  // drawn with the environment, see makeScene
    case ShapeType::Mesh:
        break;  // drawn as geometry, see makeDrawable
    }
    return nullptr;
}

// A triangle mesh in the part frame (scale and X_PG baked in), flat-shaded: each triangle
// gets its own vertices and face normal.
osg::ref_ptr<osg::Geometry> makeMeshGeometry(const Shape& s) {
    auto vertices = makeRef<osg::Vec3Array>();
    auto normals = makeRef<osg::Vec3Array>();
    for (const auto& t : s.mesh->triangles) {
        Vec3 p[3];
        for (int k = 0; k < 3; ++k)
            p[k] = s.X_PG *
                   Vec3(s.scale.cwiseProduct(
                       s.mesh->vertices[static_cast<std::size_t>(t[static_cast<std::size_t>(k)])]));
        // A mirrored mesh (an odd number of negative scales) is wound the other way: turned
        // back, its faces and normals point outwards.
        if (s.scale.prod() < 0.0) std::swap(p[1], p[2]);
        Vec3 n = (p[1] - p[0]).cross(p[2] - p[0]);
        if (n.norm() > 0.0) n.normalize();
        for (const Vec3& q : p) {
            vertices->push_back(toOsg(q));
            normals->push_back(toOsg(n));
        }
    }
    auto geometry = makeRef<osg::Geometry>();
    geometry->setVertexArray(vertices);
    geometry->setNormalArray(normals, osg::Array::BIND_PER_VERTEX);
    geometry->addPrimitiveSet(
        new osg::DrawArrays(GL_TRIANGLES, 0, static_cast<GLsizei>(vertices->size())));
    return geometry;
}

osg::ref_ptr<osg::Drawable> makeDrawable(const Shape& s, osg::TessellationHints* hints) {
    if (s.type == ShapeType::Mesh) {
        if (!s.mesh) return nullptr;
        return makeMeshGeometry(s);
    }
    return makeRef<osg::ShapeDrawable>(makeShape(s).get(), hints);
}

// The bits of a few numbers, as a key that orders any of them (a NaN too) and tells apart only
// numbers that differ.
template <std::size_t N>
std::array<std::uint64_t, N> bitsOf(const std::array<double, N>& values) {
    std::array<std::uint64_t, N> bits{};
    for (std::size_t k = 0; k < N; ++k) std::memcpy(&bits[k], &values[k], sizeof(double));
    return bits;
}

// One drawable for each kind of shape the parts have — its type, dimensions, place in its part
// and, for a mesh, the mesh and its scale — shared by every part with a shape alike (each part
// keeps its own transform and material above it): a tessellation, or a mesh's triangles, is
// built and given to the graphics driver once, not once per part. A scatter of 10,000 parts of
// four shapes had 10,000 tessellations of its own: 2.3 GB and 19 s to open under Xvfb.
class SharedDrawables {
public:
    explicit SharedDrawables(osg::TessellationHints* hints) : hints_(hints) {}

    osg::ref_ptr<osg::Drawable> of(const Shape& s) {
        const Vec3& p = s.X_PG.p;
        const engine::Quat& R = s.X_PG.R;
        const Key key{static_cast<int>(s.type),
                      bitsOf(std::array{s.size.x(), s.size.y(), s.size.z(), s.radius, s.length,
                                        p.x(), p.y(), p.z(), R.w(), R.x(), R.y(), R.z(),
                                        s.scale.x(), s.scale.y(), s.scale.z()}),
                      s.type == ShapeType::Mesh ? s.mesh.get() : nullptr};
        auto [at, made] = drawables_.try_emplace(key);
        if (made) at->second = makeDrawable(s, hints_);
        return at->second;
    }

private:
    using Key = std::tuple<int, std::array<std::uint64_t, 15>, const engine::TriangleMesh*>;
    osg::TessellationHints* hints_;
    std::map<Key, osg::ref_ptr<osg::Drawable>> drawables_;
};

// Three coloured axes (x red, y green, z blue) of the given length, as lines.
osg::ref_ptr<osg::Geode> makeTriad(double length, float lineWidth) {
    auto vertices = makeRef<osg::Vec3Array>();
    auto colors = makeRef<osg::Vec4Array>();
    const osg::Vec4 axisColor[3] = {
        {0.95f, 0.25f, 0.2f, 1.0f}, {0.3f, 0.85f, 0.3f, 1.0f}, {0.3f, 0.5f, 1.0f, 1.0f}};
    for (int k = 0; k < 3; ++k) {
        osg::Vec3 tip;
        tip[k] = static_cast<float>(length);
        vertices->push_back(osg::Vec3());
        vertices->push_back(tip);
        colors->push_back(axisColor[k]);
        colors->push_back(axisColor[k]);
    }
    auto geometry = makeRef<osg::Geometry>();
    geometry->setVertexArray(vertices);
    geometry->setColorArray(colors, osg::Array::BIND_PER_VERTEX);
    geometry->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, 6));
    auto* state = geometry->getOrCreateStateSet();
    drawUnlit(state);
    state->setAttribute(new osg::LineWidth(lineWidth));
    auto geode = makeRef<osg::Geode>();
    geode->addDrawable(geometry);
    return geode;
}

// Grid on the plane z = `z`, centred on the mechanism's footprint, `cells` lines per side.
osg::ref_ptr<osg::Geode> makeGrid(double spacing, int cells, const osg::Vec3d& center, double z) {
    auto vertices = makeRef<osg::Vec3Array>();
    const double half = spacing * cells / 2.0;
    const double cx = std::round(center.x() / spacing) * spacing;
    const double cy = std::round(center.y() / spacing) * spacing;
    for (int k = 0; k <= cells; ++k) {
        const double t = -half + k * spacing;
        vertices->push_back(osg::Vec3(cx + t, cy - half, z));
        vertices->push_back(osg::Vec3(cx + t, cy + half, z));
        vertices->push_back(osg::Vec3(cx - half, cy + t, z));
        vertices->push_back(osg::Vec3(cx + half, cy + t, z));
    }
    auto colors = makeRef<osg::Vec4Array>();
    colors->push_back(osg::Vec4(0.55f, 0.58f, 0.62f, 0.55f));
    auto geometry = makeRef<osg::Geometry>();
    geometry->setVertexArray(vertices);
    geometry->setColorArray(colors, osg::Array::BIND_OVERALL);
    geometry->addPrimitiveSet(
        new osg::DrawArrays(GL_LINES, 0, static_cast<GLsizei>(vertices->size())));
    auto* state = geometry->getOrCreateStateSet();
    drawUnlit(state);
    state->setMode(GL_BLEND, osg::StateAttribute::ON);
    state->setRenderBinDetails(6, "RenderBin");  // over the floor and after the parts
    state->setAttributeAndModes(new osg::Depth(osg::Depth::LEQUAL, 0.0, 1.0, false));
    auto geode = makeRef<osg::Geode>();
    geode->addDrawable(geometry);
    return geode;
}

// Joint glyphs share their look (one material, one unlit line state) and, for a type, their
// geometry: a chain of a hundred hinges costs a hundred draws but no change of state between
// them.
struct GlyphStyle {
    GlyphStyle() {
        solid->setAttribute(makeMaterial(osg::Vec4(0.95f, 0.72f, 0.2f, 1.0f), 80.0f));
        drawUnlit(lines.get());
        lines->setAttribute(new osg::LineWidth(1.5f));
    }
    osg::ref_ptr<osg::StateSet> solid = new osg::StateSet;
    osg::ref_ptr<osg::StateSet> lines = new osg::StateSet;
    std::map<engine::JointType, osg::ref_ptr<osg::Node>> made;
};

// Line segments in one colour (axis lines of joint glyphs).
osg::ref_ptr<osg::Geometry> makeLines(const std::vector<osg::Vec3>& ends, const osg::Vec4& color,
                                      osg::StateSet* state) {
    auto vertices = makeRef<osg::Vec3Array>(ends.begin(), ends.end());
    auto colors = makeRef<osg::Vec4Array>();
    colors->push_back(color);
    auto geometry = makeRef<osg::Geometry>();
    geometry->setVertexArray(vertices);
    geometry->setColorArray(colors, osg::Array::BIND_OVERALL);
    geometry->addPrimitiveSet(
        new osg::DrawArrays(GL_LINES, 0, static_cast<GLsizei>(vertices->size())));
    geometry->setStateSet(state);
    return geometry;
}

// A glyph showing the joint at marker I, in marker I's frame (joint axis = marker z), `size`
// metres across (a twentieth of the mechanism): what the joint lets the parts do, in a shape.
//   revolute       a hinge pin along the axis, with the axis line through it
//   prismatic      a rail along the axis with arrow heads at both ends and a small carriage
//   cylindrical    a pin on a rail (turns and slides), with the axis line
//   spherical      a ball
//   universal      a cross of two pins (about z and about x)
//   planar         a thin plate in the xy plane it slides in
//   fixed          a small bracket: a cube with a foot plate
//   distance       a small ball with a line along z (the length is held from its centre)
//   pointOnLine    a small ball on a long line along z
//   pointOnPlane   a small ball on a square plate
//   parallelAxes   two parallel lines along z
//   perpendicularAxes  two lines, along z and along x
osg::ref_ptr<osg::Node> makeJointGlyph(engine::JointType type, double size, GlyphStyle& style) {
    if (auto made = style.made.find(type); made != style.made.end()) return made->second;
    auto geode = makeRef<osg::Geode>();
    auto hints = glyphHints();
    const float s = static_cast<float>(size), r = 0.22f * s;
    auto add = [&](osg::Shape* shape) {
        geode->addDrawable(makeRef<osg::ShapeDrawable>(shape, hints.get()));
    };
    auto cone = [&](float z, bool up) {
        auto c = makeRef<osg::Cone>(osg::Vec3(0.0f, 0.0f, z), 0.7f * r, 1.2f * r);
        if (!up) c->setRotation(osg::Quat(osg::PI, osg::Vec3(1.0f, 0.0f, 0.0f)));
        add(c.get());
    };
    const osg::Vec4 axisColor(0.33f, 0.33f, 0.38f, 1.0f);
    auto lines = [&](const std::vector<osg::Vec3>& ends) {
        geode->addDrawable(makeLines(ends, axisColor, style.lines.get()));
    };
    const osg::Vec3 z(0.0f, 0.0f, 1.0f), x(1.0f, 0.0f, 0.0f);
    using engine::JointType;
    switch (type) {
    case JointType::Revolute:
        add(new osg::Cylinder(osg::Vec3(), r, s));
        lines({-z * (0.9f * s), z * (0.9f * s)});
        break;
    case JointType::Prismatic:
        add(new osg::Box(osg::Vec3(), 0.3f * r, 0.3f * r, 3.0f * s));
        add(new osg::Box(osg::Vec3(), 1.3f * r, 1.3f * r, 0.9f * r));
        cone(1.5f * s, true);
        cone(-1.5f * s, false);
        break;
    case JointType::Cylindrical:
        add(new osg::Cylinder(osg::Vec3(), r, 0.8f * s));
        add(new osg::Box(osg::Vec3(), 0.3f * r, 0.3f * r, 3.0f * s));
        lines({-z * (1.6f * s), z * (1.6f * s)});
        break;
    case JointType::Spherical:
        add(new osg::Sphere(osg::Vec3(), 1.4f * r));
        break;
    case JointType::Universal: {
        add(new osg::Cylinder(osg::Vec3(), 0.45f * r, 1.6f * s));
        auto across = makeRef<osg::Cylinder>(osg::Vec3(), 0.45f * r, 1.6f * s);
        across->setRotation(osg::Quat(osg::PI_2, osg::Vec3(0.0f, 1.0f, 0.0f)));
        add(across.get());
        add(new osg::Box(osg::Vec3(), 1.2f * r, 1.2f * r, 1.2f * r));
        break;
    }
    case JointType::Planar:
        add(new osg::Box(osg::Vec3(), 2.4f * s, 2.4f * s, 0.15f * r));
        break;
    case JointType::Fixed:
        add(new osg::Box(osg::Vec3(0.0f, 0.0f, 0.8f * r), 1.6f * r, 1.6f * r, 1.6f * r));
        add(new osg::Box(osg::Vec3(), 2.8f * r, 2.8f * r, 0.3f * r));
        break;
    case JointType::Distance:
        add(new osg::Sphere(osg::Vec3(), 0.8f * r));
        lines({osg::Vec3(), z * (1.5f * s)});
        break;
    case JointType::PointOnLine:
        add(new osg::Sphere(osg::Vec3(), 0.8f * r));
        lines({-z * (2.0f * s), z * (2.0f * s)});
        break;
    case JointType::PointOnPlane:
        add(new osg::Sphere(osg::Vec3(), 0.8f * r));
        add(new osg::Box(osg::Vec3(0.0f, 0.0f, -0.8f * r), 2.0f * s, 2.0f * s, 0.1f * r));
        break;
    case JointType::ParallelAxes:
        lines({x * r - z * s, x * r + z * s, -x * r - z * s, -x * r + z * s});
        break;
    case JointType::PerpendicularAxes:
        lines({-z * s, z * s, -x * s, x * s});
        break;
    case JointType::PointOnCurve:
    case JointType::CurveOnCurve:
    case JointType::PointOnSurface:
        // The point riding on it (the curves themselves are drawn with their part).
        add(new osg::Sphere(osg::Vec3(), 0.8f * r));
        break;
    }
    geode->setName(std::string("joint glyph ") + std::string(engine::jointTypeName(type)));
    geode->setStateSet(style.solid.get());
    style.made[type] = geode;
    return geode;
}

// A helix of `turns` turns from p0 to p1 with straight leads, as a line strip.
void coil(osg::Vec3Array& points, const Vec3& p0, const Vec3& p1, double radius, int turns) {
    points.clear();
    const Vec3 axis = p1 - p0;
    const double length = axis.norm();
    if (length < 1e-12) {
        points.push_back(toOsg(p0));
        points.push_back(toOsg(p1));
        return;
    }
    const Vec3 u = axis / length;
    const Vec3 a = u.unitOrthogonal(), b = u.cross(a);
    const double lead = 0.1 * length;
    points.push_back(toOsg(p0));
    const int samples = turns * 16;
    for (int k = 0; k <= samples; ++k) {
        const double s = static_cast<double>(k) / samples;
        const double angle = 2.0 * engine::kPi * turns * s;
        const Vec3 p = p0 + u * (lead + s * (length - 2 * lead)) +
                       radius * (std::cos(angle) * a + std::sin(angle) * b);
        points.push_back(toOsg(p));
    }
    points.push_back(toOsg(p1));
}

// The sky: a quad covering the view, drawn first, without depth (kSkyVertex).
// The outline of a selected part: its shapes again, back faces only, as thick lines in the
// selection colour. Where the part's own front faces are, they hide the lines; at its
// silhouette the lines stick out, drawing the outline.
osg::ref_ptr<osg::Geode> makeOutline(const osg::Geode& shapes, osg::Program* flat) {
    auto geode = makeRef<osg::Geode>();
    geode->setName("outline");
    for (unsigned k = 0; k < shapes.getNumDrawables(); ++k)
        geode->addDrawable(const_cast<osg::Drawable*>(shapes.getDrawable(k)));
    auto* state = geode->getOrCreateStateSet();
    state->setAttribute(flat);
    state->addUniform(new osg::Uniform("motus_color", osg::Vec4(1.0f, 0.62f, 0.05f, 1.0f)));
    state->setAttributeAndModes(new osg::CullFace(osg::CullFace::FRONT));
    state->setAttributeAndModes(
        new osg::PolygonMode(osg::PolygonMode::FRONT_AND_BACK, osg::PolygonMode::LINE));
    state->setAttributeAndModes(new osg::LineWidth(3.5f));
    state->setMode(GL_BLEND, osg::StateAttribute::OFF);
    geode->setNodeMask(0);  // shown while the part is selected
    return geode;
}

// An arrow from `from` along `along` (m) as lines: a shaft and a two-stroke head in the plane
// of the arrow and a perpendicular; none when shorter than a ten-thousandth of `size`.
void addArrow(osg::Vec3Array& points, osg::Vec4Array& colors, const Vec3& from, const Vec3& along,
              const osg::Vec4& color, double size) {
    const double length = along.norm();
    if (length < 1e-4 * size) return;
    const Vec3 to = from + along, u = along / length;
    const Vec3 side =
        (std::abs(u.z()) < 0.9 ? u.cross(Vec3::UnitZ()) : u.cross(Vec3::UnitX())).normalized();
    const double head = std::min(0.25 * length, 0.03 * size);
    const Vec3 ends[6] = {
        from, to, to, to - head * (u - 0.5 * side), to, to - head * (u + 0.5 * side)};
    for (const Vec3& p : ends) {
        points.push_back(toOsg(p));
        colors.push_back(color);
    }
}

// After its vertices changed: a GL_LINES geometry draws them all.
void finishLines(osg::Geometry& geometry) {
    auto* points = static_cast<osg::Vec3Array*>(geometry.getVertexArray());
    points->dirty();
    if (osg::Array* colors = geometry.getColorArray()) colors->dirty();
    static_cast<osg::DrawArrays*>(geometry.getPrimitiveSet(0))
        ->setCount(static_cast<GLsizei>(points->size()));
    geometry.dirtyBound();
}

// A geometry of lines in world coordinates that changes every frame.
osg::ref_ptr<osg::Geometry> makeDynamicLines(osg::Vec4Array* colors, osg::Array::Binding binding) {
    auto geometry = makeRef<osg::Geometry>();
    geometry->setDataVariance(osg::Object::DYNAMIC);
    geometry->setUseDisplayList(false);
    geometry->setUseVertexBufferObjects(true);
    geometry->setVertexArray(new osg::Vec3Array);
    geometry->setColorArray(colors, binding);
    geometry->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, 0));
    return geometry;
}

// A circle about `centre` in the plane across unit `axis`, as line segments.
void addCircle(osg::Vec3Array& points, const Vec3& centre, const Vec3& axis, double radius) {
    constexpr int kSegments = 64;
    const Vec3 a = axis.unitOrthogonal(), b = axis.cross(a);
    auto at = [&](int k) {
        const double angle = 2.0 * engine::kPi * k / kSegments;
        return centre + radius * (std::cos(angle) * a + std::sin(angle) * b);
    };
    for (int k = 0; k < kSegments; ++k) {
        points.push_back(toOsg(at(k)));
        points.push_back(toOsg(at(k + 1)));
    }
}

const osg::Vec4 kCouplerColour(0.72f, 0.52f, 1.0f, 1.0f);    // violet: gears and racks
const osg::Vec4 kSelectedColour(1.0f, 0.62f, 0.05f, 1.0f);   // as the parts' outline
const osg::Vec4 kToothForceColour(1.0f, 0.3f, 0.75f, 1.0f);  // magenta: tooth forces
const osg::Vec4 kCurveColour(0.25f, 0.9f, 0.78f, 1.0f);      // teal: slots, cams, followers
constexpr float kHiddenCurveAlpha = 0.6f;                    // a curve where parts hide it

}  // namespace

engine::EntityId entityOf(const osg::NodePath& path) {
    // The innermost node that carries an entity: a marker or joint glyph before its part.
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
        unsigned int id = 0;
        if ((*it)->getUserValue(kEntityKey, id)) return static_cast<engine::EntityId>(id);
    }
    return engine::kNoEntity;
}

void setHighlighted(SceneGraph& graph, const engine::SceneSpec& spec,
                    const std::vector<engine::EntityId>& selected) {
    auto isSelected = [&](engine::EntityId id) {
        return std::find(selected.begin(), selected.end(), id) != selected.end();
    };
    // A selected coupler: its glyph in the selection's colour, and the parts it couples glow.
    std::vector<int> coupled;
    for (CouplerGlyph& coupler : graph.couplers) {
        const bool on = isSelected(coupler.id);
        if (on)
            coupled.insert(coupled.end(), coupler.layout.parts.begin(), coupler.layout.parts.end());
        if (!coupler.colour) continue;
        (*coupler.colour)[0] = on ? kSelectedColour : kCouplerColour;
        coupler.colour->dirty();
        coupler.lines->getOrCreateStateSet()->setAttribute(new osg::LineWidth(on ? 3.5f : 2.0f));
    }
    for (CurveGlyph& curve : graph.curves) {
        const bool on = isSelected(curve.joint);
        osg::Vec4 colour = on ? kSelectedColour : kCurveColour;
        (*curve.colour)[0] = colour;
        colour.a() = kHiddenCurveAlpha;
        (*curve.hiddenColour)[0] = colour;
        curve.colour->dirty();
        curve.hiddenColour->dirty();
    }
    for (std::size_t p = 0; p < graph.partShapes.size() && p < spec.parts.size(); ++p) {
        const bool on =
            isSelected(spec.parts[p].id) ||
            std::find(coupled.begin(), coupled.end(), static_cast<int>(p)) != coupled.end();
        auto* material =
            dynamic_cast<osg::Material*>(graph.partShapes[p]->getOrCreateStateSet()->getAttribute(
                osg::StateAttribute::MATERIAL));
        if (material)
            material->setEmission(
                osg::Material::FRONT_AND_BACK,
                on ? osg::Vec4(0.16f, 0.12f, 0.02f, 1.0f) : osg::Vec4(0.0f, 0.0f, 0.0f, 1.0f));
        if (p < graph.partOutlines.size() && graph.partOutlines[p])
            graph.partOutlines[p]->setNodeMask(on ? kMaskOutline : 0u);
    }
}

void setTranslucent(SceneGraph& graph, int part, float alpha) {
    if (part < 0 || static_cast<std::size_t>(part) >= graph.partShapes.size()) return;
    osg::StateSet* state = graph.partShapes[static_cast<std::size_t>(part)]->getOrCreateStateSet();
    alpha = std::clamp(alpha, 0.0f, 1.0f);
    if (auto* material =
            dynamic_cast<osg::Material*>(state->getAttribute(osg::StateAttribute::MATERIAL))) {
        osg::Vec4 diffuse = material->getDiffuse(osg::Material::FRONT);
        diffuse.a() = alpha;
        material->setDiffuse(osg::Material::FRONT_AND_BACK, diffuse);
    }
    if (alpha < 1.0f) {
        // Blended over what is behind, sorted back to front with the other transparent
        // drawables, writing no depth (so its own far side shows through its near side,
        // which back-face culling keeps from being drawn twice over).
        state->setMode(GL_BLEND, osg::StateAttribute::ON);
        state->setAttributeAndModes(
            new osg::BlendFunc(osg::BlendFunc::SRC_ALPHA, osg::BlendFunc::ONE_MINUS_SRC_ALPHA));
        state->setAttributeAndModes(new osg::Depth(osg::Depth::LESS, 0.0, 1.0, false));
        state->setAttributeAndModes(new osg::CullFace(osg::CullFace::BACK));
        state->setRenderingHint(osg::StateSet::TRANSPARENT_BIN);
    } else {
        state->removeMode(GL_BLEND);
        state->removeAttribute(osg::StateAttribute::BLENDFUNC);
        state->removeAttribute(osg::StateAttribute::DEPTH);
        state->removeAttribute(osg::StateAttribute::CULLFACE);
        state->removeMode(GL_CULL_FACE);
        state->setRenderingHint(osg::StateSet::DEFAULT_BIN);
    }
}

float translucency(const SceneGraph& graph, int part) {
    if (part < 0 || static_cast<std::size_t>(part) >= graph.partShapes.size()) return 1.0f;
    const osg::StateSet* state = graph.partShapes[static_cast<std::size_t>(part)]->getStateSet();
    const auto* material =
        state
            ? dynamic_cast<const osg::Material*>(state->getAttribute(osg::StateAttribute::MATERIAL))
            : nullptr;
    return material ? material->getDiffuse(osg::Material::FRONT).a() : 1.0f;
}

void setShadowsEnabled(SceneGraph& graph, bool on) {
    if (graph.shadowsOn) graph.shadowsOn->set(on ? 1.0f : 0.0f);
    if (graph.shadowCamera) graph.shadowCamera->setNodeMask(on ? kMaskShadowPass : 0u);
}

bool shadowsEnabled(const SceneGraph& graph) {
    float on = 0.0f;
    return graph.shadowsOn && graph.shadowsOn->get(on) && on > 0.5f;
}

void updateSprings(SceneGraph& graph, const std::vector<engine::Transform>& partPoses) {
    for (SpringGlyph& spring : graph.springs) {
        if (static_cast<std::size_t>(std::max(spring.partI, spring.partJ)) >= partPoses.size())
            continue;
        const Vec3 p0 = (partPoses[static_cast<std::size_t>(spring.partI)] * spring.X_PI).p;
        const Vec3 p1 = (partPoses[static_cast<std::size_t>(spring.partJ)] * spring.X_PJ).p;
        auto* points = static_cast<osg::Vec3Array*>(spring.geometry->getVertexArray());
        if (spring.straight) {
            // A cable's path: through its points and round its pulleys.
            std::vector<engine::CableAnchor> anchors(1);
            anchors[0].p = p0;
            for (const SpringGlyph::Via& v : spring.via) {
                if (static_cast<std::size_t>(v.part) >= partPoses.size()) continue;
                const engine::Transform X_WM = partPoses[static_cast<std::size_t>(v.part)] * v.X_PM;
                engine::CableAnchor& a = anchors.emplace_back();
                a.R = X_WM.R.toRotationMatrix();
                a.p = X_WM.p;
                a.radius = v.radius;
                a.sense = v.sense;
                a.liftsOff = v.liftsOff;
            }
            anchors.emplace_back().p = p1;
            points->clear();
            for (const Vec3& p : engine::cablePolyline(anchors)) points->push_back(toOsg(p));
        } else {
            coil(*points, p0, p1, spring.radius, 10);
        }
        points->dirty();
        static_cast<osg::DrawArrays*>(spring.geometry->getPrimitiveSet(0))
            ->setCount(static_cast<GLsizei>(points->size()));
        spring.geometry->dirtyBound();
    }
}

void updateContactArrows(SceneGraph& graph, const std::vector<engine::ContactForce>& contacts) {
    if (!graph.contactArrows) return;
    auto* points = static_cast<osg::Vec3Array*>(graph.contactArrows->getVertexArray());
    auto* colors = static_cast<osg::Vec4Array*>(graph.contactArrows->getColorArray());
    points->clear();
    colors->clear();
    const osg::Vec4 normalColor(1.0f, 0.55f, 0.1f, 1.0f), frictionColor(0.3f, 0.9f, 1.0f, 1.0f);
    // Scale: the heaviest part's weight, or the frame's largest contact force if that is
    // larger, is drawn forceLength long.
    double largest = graph.referenceForce;
    for (const engine::ContactForce& c : contacts)
        largest = std::max({largest, c.normalForce, c.frictionForce_W.norm()});
    const double newtonsToMetres = graph.forceLength / largest;
    for (const engine::ContactForce& c : contacts) {
        addArrow(*points, *colors, c.point_W, c.normalForce * newtonsToMetres * c.normal_W,
                 normalColor, graph.characteristicLength);
        addArrow(*points, *colors, c.point_W, newtonsToMetres * c.frictionForce_W, frictionColor,
                 graph.characteristicLength);
    }
    finishLines(*graph.contactArrows);
}

void updateCouplers(SceneGraph& graph, const std::vector<engine::Transform>& partPoses) {
    for (CouplerGlyph& coupler : graph.couplers) {
        if (!coupler.lines) continue;
        coupler.pose = couplerPose(coupler.layout, partPoses);
        auto* points = static_cast<osg::Vec3Array*>(coupler.lines->getVertexArray());
        points->clear();
        const CouplerPose& pose = coupler.pose;
        coupler.ball->setNodeMask(pose.valid ? ~0u : 0u);
        if (pose.valid) {
            const CouplerLayout& layout = coupler.layout;
            auto line = [&](const Vec3& a, const Vec3& b) {
                points->push_back(toOsg(a));
                points->push_back(toOsg(b));
            };
            const Vec3 tangent = pose.zI.cross(pose.out);
            if (layout.type == engine::CouplerType::Gear) {
                // Both pitch circles, touching at the pitch point, and the line across the
                // axles through it (to the pitch point when it lies beyond an axle).
                if (layout.radiusI > 0.0) {
                    addCircle(*points, pose.axleI, pose.zI, layout.radiusI);
                    addCircle(*points, pose.axleJ, pose.zJ, layout.radiusJ);
                }
                const Vec3 ends[3] = {pose.axleI, pose.axleJ, pose.pitch};
                const Vec3 along = pose.axleJ - pose.axleI;
                const double denominator = std::max(along.squaredNorm(), 1e-24);
                auto at = [&](const Vec3& p) { return (p - pose.axleI).dot(along) / denominator; };
                const Vec3* lo = &ends[0];
                const Vec3* hi = &ends[0];
                for (const Vec3& p : ends) {
                    if (at(p) < at(*lo)) lo = &p;
                    if (at(p) > at(*hi)) hi = &p;
                }
                line(*lo, *hi);
            } else {
                // The pinion's pitch circle, its radius to the pitch point, and the rack's
                // pitch line along its slide through that point.
                addCircle(*points, pose.axleI, pose.zI, layout.radiusI);
                line(pose.axleI, pose.pitch);
                Vec3 slide = pose.zJ - pose.zJ.dot(pose.zI) * pose.zI;
                slide = slide.norm() > 1e-12 ? Vec3(slide.normalized()) : tangent;
                const double half = std::max(2.0 * layout.radiusI, 10.0 * coupler.size);
                line(pose.pitch - half * slide, pose.pitch + half * slide);
            }
            // The common tangent through the pitch point (the teeth's line of contact).
            line(pose.pitch - 2.5 * coupler.size * tangent,
                 pose.pitch + 2.5 * coupler.size * tangent);
            coupler.ball->setMatrix(osg::Matrix::translate(toOsg(pose.pitch)));
        }
        finishLines(*coupler.lines);
    }
    updateCouplerForces(graph, graph.couplerForces);
}

void updateCouplerForces(SceneGraph& graph, const std::vector<double>& forces) {
    if (&forces != &graph.couplerForces) graph.couplerForces = forces;
    if (!graph.couplerArrows) return;
    auto* points = static_cast<osg::Vec3Array*>(graph.couplerArrows->getVertexArray());
    auto* colors = static_cast<osg::Vec4Array*>(graph.couplerArrows->getColorArray());
    points->clear();
    colors->clear();
    // Forces of another scene (a run of the scene before an edit) are not drawn.
    if (graph.couplerForces.size() == graph.couplers.size()) {
        // Scaled as the contact forces: the heaviest part's weight, or the frame's largest
        // tooth force when larger, forceLength long.
        double largest = graph.referenceForce;
        for (std::size_t k = 0; k < graph.couplers.size(); ++k)
            if (graph.couplers[k].pose.valid)
                largest = std::max(largest, std::abs(graph.couplerForces[k]));
        const double newtonsToMetres = graph.forceLength / largest;
        for (std::size_t k = 0; k < graph.couplers.size(); ++k) {
            const CouplerPose& pose = graph.couplers[k].pose;
            if (!pose.valid || !std::isfinite(graph.couplerForces[k])) continue;
            addArrow(*points, *colors, pose.pitch,
                     graph.couplerForces[k] * newtonsToMetres * pose.forceOnJ, kToothForceColour,
                     graph.characteristicLength);
        }
    }
    finishLines(*graph.couplerArrows);
}

osg::Vec4 viewBackground() {
    return osg::Vec4(0.20f, 0.22f, 0.25f, 1.0f);
}

osg::ref_ptr<osg::Node> makeOverheadLight() {
    osg::ref_ptr<osg::Light> light = new osg::Light(1);
    light->setPosition(osg::Vec4(0.3f, -0.2f, 1.0f, 0.0f));  // directional, in world axes
    light->setDiffuse(osg::Vec4(0.45f, 0.45f, 0.45f, 1.0f));
    light->setAmbient(osg::Vec4(0.0f, 0.0f, 0.0f, 1.0f));
    light->setSpecular(osg::Vec4(0.0f, 0.0f, 0.0f, 1.0f));
    osg::ref_ptr<osg::LightSource> source = new osg::LightSource;
    source->setLight(light);
    return source;
}

namespace {

void addParts(SceneGraph& g, const engine::SceneSpec& spec) {
    // Parts with their geometry.
    auto hints = fineHints();
    auto coarse = coarseHints();
    SharedDrawables drawables(hints.get()), coarseDrawables(coarse.get());
    auto outlineProgram = makeOutlineProgram();
    const auto round = [](const Shape& s) {
        return s.type == ShapeType::Sphere || s.type == ShapeType::Cylinder ||
               s.type == ShapeType::Capsule || s.type == ShapeType::Cone;
    };
    for (const engine::Part& part : spec.parts) {
        auto transform = makeRef<osg::MatrixTransform>(toOsg(part.X_WP));
        transform->setName(part.name);
        transform->setUserValue(kEntityKey, static_cast<unsigned int>(part.id));
        transform->setDataVariance(osg::Object::DYNAMIC);
        auto geode = makeRef<osg::Geode>();
        geode->setNodeMask(kMaskParts);
        bool anyRound = false;
        for (const Shape& s : part.shapes)
            if (s.type != ShapeType::Plane && s.drawn())
                if (auto drawable = drawables.of(s)) {
                    geode->addDrawable(drawable);
                    anyRound = anyRound || round(s);
                }
        geode->getOrCreateStateSet()->setAttribute(makeMaterial(colorFromRgb(part.colorRgb)));
        geode->setName("shapes");
        if (anyRound) {
            // The same shapes coarsely (boxes and meshes as they are), with the same state
            // (material, translucency); both below one node the ghost takes as the part's shapes.
            auto far = makeRef<osg::Geode>();
            far->setNodeMask(kMaskParts);
            far->setStateSet(geode->getStateSet());
            for (const Shape& s : part.shapes)
                if (s.type != ShapeType::Plane && s.drawn())
                    if (auto drawable = round(s) ? coarseDrawables.of(s) : drawables.of(s))
                        far->addDrawable(drawable);
            auto lod = makeRef<osg::LOD>();
            lod->setName("shapes");
            lod->setRangeMode(osg::LOD::PIXEL_SIZE_ON_SCREEN);
            lod->addChild(far, 0.0f, kFinePixels);
            lod->addChild(geode, kFinePixels, std::numeric_limits<float>::max());
            transform->addChild(lod);
        } else {
            transform->addChild(geode);
        }
        auto outline = makeOutline(*geode, outlineProgram.get());
        transform->addChild(outline);
        g.mechanism->addChild(transform);
        g.partTransforms.push_back(transform);
        g.partShapes.push_back(geode);
        g.partOutlines.push_back(outline);
    }
}

void addCentresOfMass(SceneGraph& g, const engine::SceneSpec& spec, double size) {
    // Centres of mass: a small white ball with black axes through it, on each moving part (one
    // glyph for all the parts whose centre of mass is at the same place in their frame).
    std::map<std::array<std::uint64_t, 3>, osg::ref_ptr<osg::Geode>> glyphs;
    for (std::size_t i = 0; i < spec.parts.size(); ++i) {
        const engine::Part& part = spec.parts[i];
        if (part.ground) continue;
        const Vec3 c = engine::partMassProperties(part).p_PPcm;
        osg::ref_ptr<osg::Geode>& geode = glyphs[bitsOf(std::array{c.x(), c.y(), c.z()})];
        if (geode) {
            g.partTransforms[i]->addChild(geode);
            continue;
        }
        const double r = 0.02 * size;
        geode = makeRef<osg::Geode>();
        geode->setName("centre of mass");
        geode->setNodeMask(kMaskCentreOfMass);
        geode->addDrawable(makeRef<osg::ShapeDrawable>(
            makeRef<osg::Sphere>(toOsg(c), float(r)).get(), glyphHints().get()));
        geode->getOrCreateStateSet()->setAttribute(
            makeMaterial(osg::Vec4(0.95f, 0.95f, 0.95f, 1.0f)));
        auto lines = makeRef<osg::Geometry>();
        auto points = makeRef<osg::Vec3Array>();
        for (int k = 0; k < 3; ++k) {
            Vec3 d = Vec3::Zero();
            d(k) = 1.8 * r;
            points->push_back(toOsg(Vec3(c - d)));
            points->push_back(toOsg(Vec3(c + d)));
        }
        lines->setVertexArray(points);
        auto black = makeRef<osg::Vec4Array>();
        black->push_back(osg::Vec4(0.05f, 0.05f, 0.05f, 1.0f));
        lines->setColorArray(black, osg::Array::BIND_OVERALL);
        lines->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, 6));
        drawUnlit(lines->getOrCreateStateSet());
        lines->getOrCreateStateSet()->setAttribute(new osg::LineWidth(2.0f));
        geode->addDrawable(lines);
        g.partTransforms[i]->addChild(geode);
    }
}

void addMarkers(SceneGraph& g, const engine::SceneSpec& spec, double size) {
    // Markers: small triads attached to their part that keep their size on screen (kTriadPixels
    // long however far the camera is). Until a camera has drawn them they are a fifteenth of
    // the mechanism long.
    constexpr double kTriadPixels = 30.0;
    auto triadGeode = makeTriad(kTriadPixels, 2.0f);
    for (std::size_t i = 0; i < spec.parts.size(); ++i) {
        for (const engine::Marker& marker : spec.parts[i].markers) {
            auto triad = makeRef<osg::AutoTransform>();
            triad->setPosition(toOsg(marker.X_PM.p));
            triad->setRotation(toOsg(marker.X_PM.R));
            triad->setAutoScaleToScreen(true);
            triad->setScale(0.06 * size / kTriadPixels);
            triad->setName(marker.name);
            triad->setUserValue(kEntityKey, static_cast<unsigned int>(marker.id));
            triad->setNodeMask(kMaskMarkers);
            triad->addChild(triadGeode);
            g.partTransforms[i]->addChild(triad);
        }
    }
}

void addJointGlyphs(SceneGraph& g, const engine::SceneSpec& spec, double size) {
    // Joints: a glyph at marker I, carried by marker I's part.
    GlyphStyle glyphStyle;
    for (const engine::Joint& joint : spec.joints) {
        const engine::Part* part = spec.findPart(joint.markerI.part);
        const engine::Marker* marker = spec.findMarker(joint.markerI);
        if (!part || !marker) continue;
        const auto partIndex = static_cast<std::size_t>(part - spec.parts.data());
        auto glyph = makeRef<osg::MatrixTransform>(toOsg(marker->X_PM));
        glyph->setName(joint.name);
        glyph->setUserValue(kEntityKey, static_cast<unsigned int>(joint.id));
        glyph->setNodeMask(kMaskJoints);
        glyph->addChild(makeJointGlyph(joint.type, 0.05 * size, glyphStyle));
        g.partTransforms[partIndex]->addChild(glyph);
    }
}

void addCurves(SceneGraph& g, const engine::SceneSpec& spec) {
    // Joints on curves: each curve a line through its samples in its marker's frame, below its
    // part's transform (it moves with the part). Where parts hide it, it shows through fainter.
    auto seenState = makeRef<osg::StateSet>();
    drawUnlit(seenState.get());
    seenState->setAttribute(new osg::LineWidth(2.5f));
    auto hiddenState = makeRef<osg::StateSet>();
    drawUnlit(hiddenState.get());
    hiddenState->setAttribute(new osg::LineWidth(2.0f));
    hiddenState->setMode(GL_DEPTH_TEST, osg::StateAttribute::OFF);
    hiddenState->setMode(GL_BLEND, osg::StateAttribute::ON);
    hiddenState->setAttribute(
        new osg::BlendFunc(osg::BlendFunc::SRC_ALPHA, osg::BlendFunc::ONE_MINUS_SRC_ALPHA));
    hiddenState->setAttributeAndModes(new osg::Depth(osg::Depth::ALWAYS, 0.0, 1.0, false));
    hiddenState->setRenderBinDetails(19, "RenderBin");
    for (const engine::Joint& joint : spec.joints) {
        const bool cam = joint.type == engine::JointType::CurveOnCurve;
        const bool onSurface = joint.type == engine::JointType::PointOnSurface;
        if (joint.type != engine::JointType::PointOnCurve && !cam && !onSurface) continue;
        CurveGlyph glyph;
        glyph.joint = joint.id;
        glyph.colour = new osg::Vec4Array;
        glyph.colour->push_back(kCurveColour);
        glyph.hiddenColour = new osg::Vec4Array;
        osg::Vec4 faint = kCurveColour;
        faint.a() = kHiddenCurveAlpha;
        glyph.hiddenColour->push_back(faint);
        // One curve on the part of marker `ref`; false when it is no curve (not drawn).
        // (a surface, when given instead: a wire grid of its samples, every fourth row and
        // column, as line segments)
        auto draw = [&](const engine::CurveSpec& curve, const engine::MarkerRef& ref,
                        const std::string& what, const engine::SurfaceSpec* surface = nullptr) {
            const engine::Part* part = spec.findPart(ref.part);
            const engine::Marker* marker = spec.findMarker(ref);
            if (!part || !marker) return false;
            std::string error, key;
            auto points = makeRef<osg::Vec3Array>();
            GLenum mode = GL_LINES;
            if (surface) {
                const std::shared_ptr<const engine::Surface> made =
                    engine::Surface::make(*surface, error, key);
                if (!made) return false;
                const std::vector<Vec3>& x = made->samples();
                const int nu = made->columns(), nv = made->rows();
                auto at = [&](int i, int j) {
                    return toOsg(x[static_cast<std::size_t>(j * nu + i)]);
                };
                const int every = std::max(1, std::min(nu, nv) / 10);
                for (int j = 0; j < nv; j += every)
                    for (int i = 0; i + 1 < nu; ++i) {
                        points->push_back(at(i, j));
                        points->push_back(at(i + 1, j));
                    }
                for (int i = 0; i < nu; i += every)
                    for (int j = 0; j + 1 < nv; ++j) {
                        points->push_back(at(i, j));
                        points->push_back(at(i, j + 1));
                    }
            } else {
                const std::shared_ptr<const engine::Curve> made =
                    engine::Curve::make(curve, error, key);
                if (!made || made->samples().size() < 2) return false;
                for (const Vec3& p : made->samples()) points->push_back(toOsg(p));
                mode = made->closed() ? GL_LINE_LOOP : GL_LINE_STRIP;
            }
            if (points->size() < 2) return false;
            auto geode = makeRef<osg::Geode>();
            geode->setName(what + " of " + joint.name);
            for (osg::Vec4Array* colour : {glyph.colour.get(), glyph.hiddenColour.get()}) {
                auto line = makeRef<osg::Geometry>();
                // Drawn from buffers, not a display list: its colour changes with the selection.
                line->setUseDisplayList(false);
                line->setUseVertexBufferObjects(true);
                line->setVertexArray(points);
                line->setColorArray(colour, osg::Array::BIND_OVERALL);
                line->addPrimitiveSet(
                    new osg::DrawArrays(mode, 0, static_cast<GLsizei>(points->size())));
                line->setStateSet(colour == glyph.colour.get() ? seenState.get()
                                                               : hiddenState.get());
                geode->addDrawable(line);
            }
            auto frame = makeRef<osg::MatrixTransform>(toOsg(marker->X_PM));
            frame->setName(joint.name);
            frame->setUserValue(kEntityKey, static_cast<unsigned int>(joint.id));
            frame->setNodeMask(kMaskJoints);
            frame->addChild(geode);
            g.partTransforms[static_cast<std::size_t>(part - spec.parts.data())]->addChild(frame);
            return true;
        };
        bool drawn = onSurface ? draw({}, joint.markerJ, "surface", &joint.surface)
                               : draw(joint.curve, joint.markerJ, cam ? "cam contour" : "curve");
        if (cam) drawn = draw(joint.follower, joint.markerI, "follower contour") || drawn;
        if (drawn) g.curves.push_back(std::move(glyph));
    }
}

void addSprings(SceneGraph& g, const engine::SceneSpec& spec, double size) {
    // Spring-dampers: coils between their markers, in world coordinates; line forces: the
    // line they act along; cables: their path through their points.
    std::vector<engine::Transform> poses;
    for (const engine::Part& part : spec.parts) poses.push_back(part.X_WP);
    for (const engine::ForceSpec& force : spec.forces) {
        const bool line = force.type == engine::ForceType::LineForce;
        const bool cable = force.type == engine::ForceType::Cable;
        if (force.type != engine::ForceType::SpringDamper && !line && !cable) continue;
        const engine::Part* pi = spec.findPart(force.markerI.part);
        const engine::Part* pj = spec.findPart(force.markerJ.part);
        const engine::Marker* mi = spec.findMarker(force.markerI);
        const engine::Marker* mj = spec.findMarker(force.markerJ);
        if (!pi || !pj || !mi || !mj) continue;
        SpringGlyph spring;
        spring.partI = static_cast<int>(pi - spec.parts.data());
        spring.partJ = static_cast<int>(pj - spec.parts.data());
        spring.X_PI = mi->X_PM;
        spring.X_PJ = mj->X_PM;
        spring.radius = 0.02 * size;
        spring.straight = line || cable;
        bool viaFound = true;
        for (const engine::CableVia& v : force.via) {
            const engine::Part* p = spec.findPart(v.marker.part);
            const engine::Marker* m = spec.findMarker(v.marker);
            if (!p || !m) {
                viaFound = false;
                break;
            }
            spring.via.push_back({static_cast<int>(p - spec.parts.data()), m->X_PM,
                                  v.pulley && v.radius > 0.0 ? v.radius : 0.0, v.clockwise ? -1 : 1,
                                  v.joint.empty()});
        }
        if (!viaFound) continue;
        spring.geometry = new osg::Geometry;
        spring.geometry->setDataVariance(osg::Object::DYNAMIC);
        spring.geometry->setUseDisplayList(false);
        spring.geometry->setUseVertexBufferObjects(true);
        spring.geometry->setVertexArray(new osg::Vec3Array);
        auto colors = makeRef<osg::Vec4Array>();
        // A line force in the orange-red of the force pictograms, a spring in yellow, a cable
        // in a rope's dark grey.
        colors->push_back(line    ? osg::Vec4(0.9f, 0.4f, 0.25f, 1.0f)
                          : cable ? osg::Vec4(0.25f, 0.25f, 0.28f, 1.0f)
                                  : osg::Vec4(0.85f, 0.85f, 0.3f, 1.0f));
        spring.geometry->setColorArray(colors, osg::Array::BIND_OVERALL);
        spring.geometry->addPrimitiveSet(new osg::DrawArrays(GL_LINE_STRIP, 0, 0));
        auto* state = spring.geometry->getOrCreateStateSet();
        drawUnlit(state);
        state->setAttribute(new osg::LineWidth(2.0f));
        auto geode = makeRef<osg::Geode>();
        geode->setNodeMask(kMaskJoints);
        geode->addDrawable(spring.geometry);
        g.mechanism->addChild(geode);
        g.springs.push_back(spring);
    }
    updateSprings(g, poses);
}

void addCouplers(SceneGraph& g, const engine::SceneSpec& spec, double size) {
    // Couplers: a glyph per gear pair and rack where the teeth mesh (updateCouplers), in world
    // coordinates; their tooth force arrows (updateCouplerForces).
    auto material = makeMaterial(kCouplerColour, 60.0f);
    for (const engine::CouplerSpec& spec_c : spec.couplers) {
        CouplerGlyph coupler;
        coupler.id = spec_c.id;
        coupler.layout = couplerLayout(spec, spec_c);
        if (coupler.layout.drawn) {
            // A ball a little larger than a joint pin's radius, kept inside a small pinion.
            coupler.size = 0.012 * size;
            if (coupler.layout.radiusI > 0.0)
                coupler.size = std::min(coupler.size, 0.3 * coupler.layout.radiusI);
            coupler.colour = new osg::Vec4Array;
            coupler.colour->push_back(kCouplerColour);
            coupler.lines = makeDynamicLines(coupler.colour.get(), osg::Array::BIND_OVERALL);
            auto* state = coupler.lines->getOrCreateStateSet();
            drawUnlit(state);
            state->setMode(GL_DEPTH_TEST, osg::StateAttribute::OFF);  // on the gears' surfaces
            state->setRenderBinDetails(19, "RenderBin");
            state->setAttribute(new osg::LineWidth(2.0f));
            auto lines = makeRef<osg::Geode>();
            lines->addDrawable(coupler.lines);
            auto ballGeode = makeRef<osg::Geode>();
            ballGeode->addDrawable(makeRef<osg::ShapeDrawable>(
                makeRef<osg::Sphere>(osg::Vec3(), float(coupler.size)).get(), glyphHints().get()));
            // Over the gears as the lines are (its centre lies on both gears' surfaces).
            osg::StateSet* ballState = ballGeode->getOrCreateStateSet();
            ballState->setAttribute(material);
            ballState->setMode(GL_DEPTH_TEST, osg::StateAttribute::OFF);
            ballState->setAttributeAndModes(new osg::CullFace(osg::CullFace::BACK));
            ballState->setRenderBinDetails(19, "RenderBin");
            coupler.ball = makeRef<osg::MatrixTransform>();
            coupler.ball->setDataVariance(osg::Object::DYNAMIC);
            coupler.ball->addChild(ballGeode);
            auto glyph = makeRef<osg::Group>();
            glyph->setName(spec_c.name);
            glyph->setUserValue(kEntityKey, static_cast<unsigned int>(spec_c.id));
            glyph->setNodeMask(kMaskJoints);
            glyph->addChild(lines);
            glyph->addChild(coupler.ball);
            g.mechanism->addChild(glyph);
        }
        g.couplers.push_back(std::move(coupler));
    }
    g.couplerArrows =
        makeDynamicLines(new osg::Vec4Array, osg::Array::BIND_PER_VERTEX);  // one colour a vertex
    auto* state = g.couplerArrows->getOrCreateStateSet();
    drawUnlit(state);
    state->setMode(GL_DEPTH_TEST, osg::StateAttribute::OFF);  // seen through the gears
    state->setRenderBinDetails(20, "RenderBin");
    state->setAttribute(new osg::LineWidth(2.5f));
    auto geode = makeRef<osg::Geode>();
    geode->setNodeMask(kMaskContacts);
    geode->setName("tooth forces");
    geode->addDrawable(g.couplerArrows);
    g.environment->addChild(geode);
    std::vector<engine::Transform> poses;
    for (const engine::Part& part : spec.parts) poses.push_back(part.X_WP);
    updateCouplers(g, poses);
}

osg::Vec3d addEnvironment(SceneGraph& g, const engine::SceneSpec& spec, double size,
                          const osg::BoundingSphere& bound) {
    // Environment: the floor and a grid on it whose spacing is a 1-2-5 step near a tenth of
    // the mechanism's size, and the world axes. The floor is the plane z = 0 or, when the
    // mechanism reaches below it as it starts, the plane under its lowest point (a machine's
    // base, its ground part's lowest geometry, is usually that point); a scene with a ground
    // plane shape has that plane as its floor. Parts that later swing lower are drawn over it
    // (makeFloor).
    osg::ComputeBoundsVisitor boxVisitor;
    boxVisitor.setTraversalMask(kMaskParts);
    g.mechanism->accept(boxVisitor);
    const osg::BoundingBox& box = boxVisitor.getBoundingBox();
    double floorZ = box.valid() ? std::min(0.0, double(box.zMin())) : 0.0;
    bool groundPlane = false;
    for (const engine::Part& part : spec.parts)
        for (const Shape& s : part.shapes)
            if (s.type == ShapeType::Plane && part.ground) {
                const engine::Transform X_WG = part.X_WP * s.X_PG;
                if ((X_WG.R * Vec3::UnitZ()).z() > 0.999) {
                    floorZ = groundPlane ? std::max(floorZ, X_WG.p.z()) : X_WG.p.z();
                    groundPlane = true;
                }
            }
    g.floorZ = floorZ;
    const osg::Vec3d centre = box.valid() ? osg::Vec3d(box.center()) : osg::Vec3d(bound.center());
    if (!groundPlane) {
        osg::Vec3d toLight = kKeyLight_W;
        toLight.normalize();
        g.floor = makeFloor(centre, 1.5 * size, floorZ, toLight);
        g.environment->addChild(g.floor);
    }
    const double raw = size / 10.0;
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    const double spacing = raw / decade < 2.0   ? decade
                           : raw / decade < 5.0 ? 2.0 * decade
                                                : 5.0 * decade;
    auto grid = makeGrid(spacing, 2 * static_cast<int>(std::ceil(size / spacing)), bound.center(),
                         floorZ + (groundPlane ? 1e-4 * size : 0.0));
    grid->setNodeMask(kMaskGrid);
    g.environment->addChild(grid);

    return centre;
}

void addContactArrows(SceneGraph& g, const engine::SceneSpec& spec) {
    // Contact force arrows, scaled against the heaviest part's weight (updateContactArrows).
    double heaviest = 0.0;
    std::size_t heaviestPart = spec.parts.size();
    for (std::size_t i = 0; i < spec.parts.size(); ++i) {
        if (spec.parts[i].ground) continue;
        const double mass = engine::partMassProperties(spec.parts[i]).mass;
        if (heaviestPart == spec.parts.size() || mass > heaviest) {
            heaviest = mass;
            heaviestPart = i;
        }
    }
    g.referenceForce = std::max(1e-6, heaviest * std::max(1.0, spec.gravity.norm()));
    // A quarter of the mechanism, but no longer than one and a half times the heaviest part
    // across: in a pile, a scatter or a heap of many small parts, the mechanism's size would
    // draw their weights metres long, a forest of arrows hiding the parts.
    g.forceLength = 0.25 * g.characteristicLength;
    if (heaviestPart < g.partShapes.size()) {
        const osg::BoundingSphere& part = g.partShapes[heaviestPart]->getBound();
        if (part.valid() && part.radius() > 0.0)
            g.forceLength = std::min(g.forceLength, 3.0 * part.radius());
    }
    g.contactArrows = new osg::Geometry;
    g.contactArrows->setDataVariance(osg::Object::DYNAMIC);
    g.contactArrows->setUseDisplayList(false);
    g.contactArrows->setUseVertexBufferObjects(true);
    g.contactArrows->setVertexArray(new osg::Vec3Array);
    g.contactArrows->setColorArray(new osg::Vec4Array, osg::Array::BIND_PER_VERTEX);
    g.contactArrows->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, 0));
    {
        auto* state = g.contactArrows->getOrCreateStateSet();
        drawUnlit(state);
        state->setMode(GL_DEPTH_TEST,
                       osg::StateAttribute::OFF);  // seen through the parts they push
        state->setRenderBinDetails(20, "RenderBin");
        state->setAttribute(new osg::LineWidth(2.5f));
        auto geode = makeRef<osg::Geode>();
        geode->setNodeMask(kMaskContacts);
        geode->setName("contact forces");
        geode->addDrawable(g.contactArrows);
        g.environment->addChild(geode);
    }
}

void addGroundPlanes(SceneGraph& g, const engine::SceneSpec& spec, double size) {
    // Ground planes (infinite half-spaces, for contact): an opaque slab twice the
    // mechanism's size under it, top face on the plane. Kept out of the mechanism's bounds so
    // fitting the view frames the parts, not the plane.
    for (const engine::Part& part : spec.parts) {
        for (const Shape& s : part.shapes) {
            if (s.type != ShapeType::Plane) continue;
            const engine::Transform X_WG = part.X_WP * s.X_PG;
            const Vec3 centre = X_WG * Vec3(0.0, 0.0, -0.001 * size);
            auto slab = makeRef<osg::Box>(toOsg(centre), float(2.0 * size), float(2.0 * size),
                                          float(0.002 * size));
            slab->setRotation(toOsg(X_WG.R));
            auto geode = makeRef<osg::Geode>();
            geode->addDrawable(makeRef<osg::ShapeDrawable>(slab.get()));
            geode->getOrCreateStateSet()->setAttribute(makeMaterial(colorFromRgb(part.colorRgb)));
            geode->setNodeMask(kMaskParts);
            geode->setName(part.name + " plane");
            geode->setUserValue(kEntityKey,
                                static_cast<unsigned int>(part.id));  // picked as the ground
            g.environment->addChild(geode);
        }
    }
    auto axes = makeTriad(0.25 * size, 3.0f);
    axes->setNodeMask(kMaskAxes);
    g.environment->addChild(axes);
}

}  // namespace

SceneGraph buildSceneGraph(const engine::SceneSpec& spec) {
    SceneGraph g;
    g.root = new osg::Group;
    g.mechanism = new osg::Group;
    g.environment = new osg::Group;
    g.root->addChild(g.mechanism);
    g.root->addChild(g.environment);
    addParts(g, spec);
    // The mechanism's size sets the scale of glyphs and grid. Points that carry no geometry
    // (markers) count too, so a scene of bare markers still gets a sensible scale.
    osg::BoundingSphere bound = g.mechanism->getBound();
    for (const engine::Part& part : spec.parts)
        for (const engine::Marker& marker : part.markers)
            bound.expandBy(toOsg(part.X_WP * marker.X_PM.p));
    const double size = bound.valid() && bound.radius() > 1e-9 ? 2.0 * bound.radius() : 1.0;
    g.characteristicLength = size;

    addCentresOfMass(g, spec, size);
    addMarkers(g, spec, size);
    addJointGlyphs(g, spec, size);
    addCurves(g, spec);
    addSprings(g, spec, size);
    const osg::Vec3d centre = addEnvironment(g, spec, size, bound);
    addContactArrows(g, spec);
    addCouplers(g, spec, size);
    addGroundPlanes(g, spec, size);
    applyLook(g, centre, size);
    return g;
}

}  // namespace ui
