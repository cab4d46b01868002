// The 3D view's look, checked against what can be computed: where the key light's shadows
// must fall on the floor (the parts' points cast along the light onto the floor plane and
// projected with the view's camera), that the slider-crank's parts do not pass through each
// other as the crank turns (their boxes, at the engine's poses), that joint glyphs differ by
// type, that a translucent part is blended, that parts of alike shapes share one drawable yet
// are picked and tinted alone, and that contact force arrows keep to the size of the parts.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <QImage>
#include <QTest>

#include <gtest/gtest.h>
#include <osg/AutoTransform>
#include <osg/BlendFunc>
#include <osg/Depth>
#include <osg/Geode>
#include <osg/LOD>
#include <osg/Material>
#include <osg/MatrixTransform>
#include <osg/NodeVisitor>
#include <osg/ShapeDrawable>
#include <osgUtil/IntersectionVisitor>
#include <osgUtil/LineSegmentIntersector>

#include "engine/contact/contact_force.h"
#include "engine/io/scene_json.h"
#include "engine/model/mass_properties.h"
#include "engine/model/model.h"
#include "engine/runtime/simulator.h"
#include "ui/viewport/scene_graph.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {
namespace {

using engine::Transform;
using engine::Vec3;
using namespace std::chrono_literals;

engine::SceneSpec sliderCrank() {
    auto loaded = engine::io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/slider_crank.json");
    EXPECT_TRUE(loaded.scene.has_value());
    return *loaded.scene;
}

std::size_t partIndex(const engine::SceneSpec& spec, const std::string& name) {
    for (std::size_t p = 0; p < spec.parts.size(); ++p)
        if (spec.parts[p].name == name) return p;
    ADD_FAILURE() << "no part " << name;
    return 0;
}

// A box shape in the world: centre, axes (columns) and half sizes.
struct WorldBox {
    Vec3 centre;
    engine::Mat3 axes;
    Vec3 half;
};

std::vector<WorldBox> boxesOf(const engine::Part& part, const Transform& X_WP) {
    std::vector<WorldBox> boxes;
    for (const engine::Shape& s : part.shapes)
        if (s.type == engine::ShapeType::Box) {
            const Transform X_WG = X_WP * s.X_PG;
            boxes.push_back({X_WG.p, X_WG.R.toRotationMatrix(), 0.5 * s.size});
        }
    return boxes;
}

// Separating-axis test of two boxes: some axis among their 15 candidates separates them by
// more than `clearance`.
bool separated(const WorldBox& a, const WorldBox& b, double clearance) {
    std::vector<Vec3> axes;
    for (int i = 0; i < 3; ++i) {
        axes.push_back(a.axes.col(i));
        axes.push_back(b.axes.col(i));
        for (int j = 0; j < 3; ++j) {
            const Vec3 c = a.axes.col(i).cross(b.axes.col(j));
            if (c.norm() > 1e-9) axes.push_back(c.normalized());
        }
    }
    const Vec3 d = b.centre - a.centre;
    for (const Vec3& n : axes) {
        double ra = 0.0, rb = 0.0;
        for (int k = 0; k < 3; ++k) {
            ra += a.half(k) * std::abs(a.axes.col(k).dot(n));
            rb += b.half(k) * std::abs(b.axes.col(k).dot(n));
        }
        if (std::abs(d.dot(n)) > ra + rb + clearance) return true;
    }
    return false;
}

// The parts' poses at `times`, from the engine.
std::vector<std::vector<Transform>> posesAt(const engine::SceneSpec& spec,
                                            const std::vector<double>& times) {
    engine::CompileResult compiled = engine::compile(spec);
    EXPECT_TRUE(compiled.model);
    engine::Simulator sim(compiled.model);
    EXPECT_TRUE(sim.initialization().ok) << sim.initialization().message;
    std::vector<std::vector<Transform>> poses;
    for (double t : times) {
        if (t > 0.0) {
            sim.runTo(t);
            EXPECT_TRUE(sim.waitUntilIdle(30s));
        }
        poses.push_back(sim.snapshot()->partPoses);
    }
    return poses;
}

double brightness(const QImage& image, const QPointF& at) {
    const QColor c = image.pixelColor(at.toPoint());
    return 0.299 * c.red() + 0.587 * c.green() + 0.114 * c.blue();
}

// A view of a fixed size showing `spec` from the isometric standard view.
struct View {
    ViewportWidget widget;
    explicit View(const engine::SceneSpec& spec) {
        widget.resize(640, 480);
        widget.show();
        widget.showScene(spec);
        widget.setStandardView(ViewportWidget::StandardView::Isometric);
        EXPECT_TRUE(QTest::qWaitForWindowExposed(&widget));
    }
    QImage frame() { return widget.grabFramebuffer(); }
};

TEST(ViewLook, TheKeyLightShadowsTheFloorWhereThePartsCastAlongIt) {
    const engine::SceneSpec spec = sliderCrank();
    const SceneGraph graph = buildSceneGraph(spec);
    const Vec3 toLight(graph.keyLight_W.x(), graph.keyLight_W.y(), graph.keyLight_W.z());
    ASSERT_GT(toLight.z(), 0.5);  // a light from above, for a z-up world
    View view(spec);
    ASSERT_TRUE(view.widget.shadowsEnabled());
    const QImage shadowed = view.frame();
    view.widget.setShadowsEnabled(false);
    const QImage unshadowed = view.frame();
    view.widget.setShadowsEnabled(true);

    // Floor points in the shadow of the parts' boxes (points inside them cast along the light
    // onto the floor), where no part covers the floor in the view.
    auto onFloor = [&](const Vec3& p) {
        return Vec3(p - toLight * ((p.z() - graph.floorZ) / toLight.z()));
    };
    std::vector<QPointF> inShadow;
    for (const engine::Part& part : spec.parts) {
        for (const WorldBox& box : boxesOf(part, part.X_WP))
            for (double u : {-0.5, 0.0, 0.5})
                for (double v : {-0.5, 0.0, 0.5}) {
                    const Vec3 p = box.centre + box.axes.col(0) * (u * box.half.x()) +
                                   box.axes.col(1) * (v * box.half.y());
                    const Vec3 q = onFloor(p);
                    const QPointF at = view.widget.project(q.x(), q.y(), q.z());
                    if (view.widget.entityAt(at) == 0 && view.widget.rect().contains(at.toPoint()))
                        inShadow.push_back(at);
                }
    }
    // Floor points that the light reaches: left of the mechanism (x < -0.07 m), on the side
    // the light comes from along x.
    ASSERT_LT(toLight.x(), 0.0);
    std::vector<QPointF> inLight;
    for (double x : {-0.14, -0.17, -0.2})
        for (double y : {-0.1, -0.05, 0.0}) {
            const QPointF at = view.widget.project(x, y, graph.floorZ);
            if (view.widget.entityAt(at) == 0 && view.widget.rect().contains(at.toPoint()))
                inLight.push_back(at);
        }
    ASSERT_GE(inShadow.size(), 10u);
    ASSERT_GE(inLight.size(), 5u);

    // Shadowed floor is darker than lit floor in the same picture, and darker than itself
    // without shadows; lit floor is the same either way.
    double shadowMean = 0.0, lightMean = 0.0;
    for (const QPointF& at : inShadow) {
        shadowMean += brightness(shadowed, at) / inShadow.size();
        EXPECT_LT(brightness(shadowed, at), brightness(unshadowed, at) - 25.0)
            << "floor at " << at.x() << ", " << at.y() << " is not in shadow";
    }
    for (const QPointF& at : inLight) {
        lightMean += brightness(shadowed, at) / inLight.size();
        EXPECT_NEAR(brightness(shadowed, at), brightness(unshadowed, at), 3.0);
    }
    EXPECT_LT(shadowMean, lightMean - 30.0);
}

// The floor is a backdrop: a part that swings below it (a hanging chain, a pendulum) is still
// drawn, over the floor, where it is, instead of vanishing under it.
TEST(ViewLook, APartBelowTheFloorIsStillSeen) {
    const engine::SceneSpec spec = sliderCrank();
    const SceneGraph graph = buildSceneGraph(spec);
    View view(spec);
    const std::size_t slider = partIndex(spec, "slider");
    std::vector<Transform> poses;
    for (const engine::Part& part : spec.parts) poses.push_back(part.X_WP);
    // The slider lowered to 5 cm under the floor, below where it was.
    poses[slider].p.z() = graph.floorZ - 0.05;
    view.widget.setPartPoses(poses);
    const QImage below = view.frame();
    const Vec3 c = poses[slider].p;
    const QPointF at = view.widget.project(c.x(), c.y(), c.z());
    ASSERT_TRUE(view.widget.rect().contains(at.toPoint()));
    EXPECT_EQ(view.widget.entityAt(at), spec.parts[slider].id);
    // The slider's green, not the floor's grey, at its centre.
    const QColor seen = below.pixelColor(at.toPoint());
    EXPECT_GT(seen.green(), seen.red() + 40) << seen.name().toStdString();
    EXPECT_GT(seen.green(), seen.blue() + 40) << seen.name().toStdString();
}

// At `count` instants over the first second of `scene`'s run, no box of one part comes within
// `clearance` of a box of another. Pins (cylinders) and balls go through the eyes of the parts
// they join, as in the real mechanisms, and are left out.
void expectBoxesApart(const engine::SceneSpec& spec, const std::string& scene, int count,
                      double clearance) {
    std::vector<double> times;
    for (int k = 0; k < count; ++k) times.push_back(static_cast<double>(k) / count);
    const auto poses = posesAt(spec, times);
    for (std::size_t k = 0; k < poses.size(); ++k)
        for (std::size_t a = 0; a < spec.parts.size(); ++a)
            for (std::size_t b = a + 1; b < spec.parts.size(); ++b)
                for (const WorldBox& boxA : boxesOf(spec.parts[a], poses[k][a]))
                    for (const WorldBox& boxB : boxesOf(spec.parts[b], poses[k][b]))
                        EXPECT_TRUE(separated(boxA, boxB, clearance))
                            << scene << ": " << spec.parts[a].name << " runs into "
                            << spec.parts[b].name << " at t = " << times[k] << " s";
}

TEST(ViewLook, TheExamplesLinksPassBesideEachOtherAsTheyMove) {
    for (const char* scene : {"four_bar", "two_link_arm_pd", "cam_follower", "double_pendulum"}) {
        auto loaded =
            engine::io::loadSceneFile(std::string(MOTUS_SOURCE_DIR "/scenes/") + scene + ".json");
        ASSERT_TRUE(loaded.scene.has_value()) << scene;
        expectBoxesApart(*loaded.scene, scene, 8, 0.0);
    }
}

TEST(ViewLook, TheSliderCranksPartsPassBesideEachOtherThroughAWholeTurn) {
    // Geometry: at twelve crank angles over a turn (the motor turns it once a second), no box
    // of one part comes within 1 mm of a box of another.
    const engine::SceneSpec spec = sliderCrank();
    expectBoxesApart(spec, "slider_crank", 12, 1e-3);

    // Picture: the end of the rod at the slider is seen (its top and its near side), not
    // buried in the slider's block, and it is drawn in the rod's blue (joint glyphs and
    // markers hidden: the wrist pin's glyph sits on that end).
    View view(spec);
    view.widget.setJointsVisible(false);
    view.widget.setMarkersVisible(false);
    const QImage image = view.frame();
    const std::size_t rod = partIndex(spec, "rod");
    const engine::Part& rodPart = spec.parts[rod];
    const WorldBox rodBox = boxesOf(rodPart, rodPart.X_WP).front();
    int seen = 0;
    for (double u : {0.82, 0.86, 0.9})  // the slider block spans u > 0.8; the pin is at 0.95
        for (const Vec3& face : {Vec3(0.0, 0.0, 1.0), Vec3(0.0, -1.0, 0.0)}) {
            const Vec3 p = rodBox.centre + rodBox.axes.col(0) * (u * rodBox.half.x()) +
                           rodBox.axes * face.cwiseProduct(rodBox.half) * 0.99;
            const QPointF at = view.widget.project(p.x(), p.y(), p.z());
            EXPECT_EQ(view.widget.entityAt(at), rodPart.id)
                << "the rod's end at " << u << " of its half length is hidden";
            const QColor c = image.pixelColor(at.toPoint());
            EXPECT_GT(c.blue(), c.red() + 20)
                << "not the rod's blue at " << at.x() << ", " << at.y();
            ++seen;
        }
    EXPECT_EQ(seen, 6);
}

// The drawables of a joint glyph, as a sorted list of their kinds; with `extents`, each
// followed by its size along x, y and z in hundredths of the glyph's size.
std::string signature(const osg::Geode& glyph, double size = 0.0) {
    std::vector<std::string> kinds;
    for (unsigned k = 0; k < glyph.getNumDrawables(); ++k) {
        const osg::Drawable* d = glyph.getDrawable(k);
        const auto* shape = dynamic_cast<const osg::ShapeDrawable*>(d);
        std::string kind = shape && shape->getShape() ? shape->getShape()->className() : "lines";
        if (size > 0.0) {
            const osg::BoundingBox& box = d->getBoundingBox();
            for (int i = 0; i < 3; ++i)
                kind +=
                    "/" + std::to_string(std::lround(100.0 * (box._max[i] - box._min[i]) / size));
        }
        kinds.push_back(kind);
    }
    std::sort(kinds.begin(), kinds.end());
    std::string out;
    for (const std::string& kind : kinds) out += kind + " ";
    return out;
}

struct FindGeodes : osg::NodeVisitor {
    FindGeodes() : osg::NodeVisitor(TRAVERSE_ALL_CHILDREN) {}
    void apply(osg::Geode& geode) override {
        if (geode.getName().rfind("joint glyph ", 0) == 0) glyphs[geode.getName()] = &geode;
        traverse(geode);
    }
    void apply(osg::Transform& transform) override {
        if (auto* a = dynamic_cast<osg::AutoTransform*>(&transform)) autoScaled.insert(a);
        traverse(transform);
    }
    // (The mechanism is reached twice: drawn, and drawn into the shadow map.)
    std::map<std::string, osg::Geode*> glyphs;
    std::set<osg::AutoTransform*> autoScaled;
};

TEST(ViewLook, JointGlyphsShowTheirTypeAndMarkersKeepTheirSizeOnScreen) {
    // Two parts and one joint of every type between them.
    engine::SceneSpec spec;
    engine::Part a, b;
    a.id = 1;
    a.name = "a";
    a.ground = true;
    b.id = 2;
    b.name = "b";
    b.mass = 1.0;
    engine::Shape box;
    box.type = engine::ShapeType::Box;
    box.size = Vec3(0.2, 0.1, 0.1);
    b.shapes.push_back(box);
    engine::EntityId next = 10;
    const engine::JointType types[] = {
        engine::JointType::Fixed,        engine::JointType::Revolute,
        engine::JointType::Prismatic,    engine::JointType::Cylindrical,
        engine::JointType::Spherical,    engine::JointType::Universal,
        engine::JointType::Planar,       engine::JointType::Distance,
        engine::JointType::PointOnLine,  engine::JointType::PointOnPlane,
        engine::JointType::ParallelAxes, engine::JointType::PerpendicularAxes,
    };
    for (engine::JointType type : types) {
        const std::string name(engine::jointTypeName(type));
        engine::Marker mi, mj;
        mi.id = next++;
        mi.name = "i_" + name;
        mj.id = next++;
        mj.name = "j_" + name;
        a.markers.push_back(mi);
        b.markers.push_back(mj);
        engine::Joint joint;
        joint.id = next++;
        joint.name = name;
        joint.type = type;
        joint.markerI = {"a", mi.name};
        joint.markerJ = {"b", mj.name};
        spec.joints.push_back(joint);
    }
    spec.parts = {a, b};
    const SceneGraph graph = buildSceneGraph(spec);
    FindGeodes found;
    graph.root->accept(found);
    ASSERT_EQ(found.glyphs.size(), std::size(types));
    std::set<std::string> signatures;
    for (const auto& [name, glyph] : found.glyphs)
        signatures.insert(signature(*glyph, 0.05 * graph.characteristicLength));
    EXPECT_EQ(signatures.size(), std::size(types)) << "two joint types share a glyph";
    EXPECT_EQ(signature(*found.glyphs.at("joint glyph revolute")), "Cylinder lines ");
    EXPECT_EQ(signature(*found.glyphs.at("joint glyph prismatic")), "Box Box Cone Cone ");
    EXPECT_EQ(signature(*found.glyphs.at("joint glyph spherical")), "Sphere ");
    EXPECT_EQ(signature(*found.glyphs.at("joint glyph universal")), "Box Cylinder Cylinder ");
    EXPECT_EQ(signature(*found.glyphs.at("joint glyph cylindrical")), "Box Cylinder lines ");
    EXPECT_EQ(signature(*found.glyphs.at("joint glyph planar")), "Box ");

    // Every marker is a triad scaled to the screen.
    ASSERT_EQ(found.autoScaled.size(), 2 * std::size(types));
    for (const osg::AutoTransform* triad : found.autoScaled)
        EXPECT_TRUE(triad->getAutoScaleToScreen());
}

TEST(ViewLook, ATranslucentPartIsBlendedSortedAndSeenThrough) {
    const engine::SceneSpec spec = sliderCrank();
    SceneGraph graph = buildSceneGraph(spec);
    const int slider = static_cast<int>(partIndex(spec, "slider"));
    osg::StateSet* state =
        graph.partShapes[static_cast<std::size_t>(slider)]->getOrCreateStateSet();
    EXPECT_FLOAT_EQ(translucency(graph, slider), 1.0f);
    EXPECT_FALSE(state->getMode(GL_BLEND) & osg::StateAttribute::ON);

    setTranslucent(graph, slider, 0.4f);
    EXPECT_FLOAT_EQ(translucency(graph, slider), 0.4f);
    EXPECT_TRUE(state->getMode(GL_BLEND) & osg::StateAttribute::ON);
    EXPECT_EQ(state->getRenderingHint(), osg::StateSet::TRANSPARENT_BIN);
    const auto* blend =
        dynamic_cast<const osg::BlendFunc*>(state->getAttribute(osg::StateAttribute::BLENDFUNC));
    ASSERT_NE(blend, nullptr);
    EXPECT_EQ(blend->getSource(), GLenum(osg::BlendFunc::SRC_ALPHA));
    EXPECT_EQ(blend->getDestination(), GLenum(osg::BlendFunc::ONE_MINUS_SRC_ALPHA));
    const auto* depth =
        dynamic_cast<const osg::Depth*>(state->getAttribute(osg::StateAttribute::DEPTH));
    ASSERT_NE(depth, nullptr);
    EXPECT_FALSE(depth->getWriteMask());
    // The other parts stay opaque.
    EXPECT_FLOAT_EQ(translucency(graph, static_cast<int>(partIndex(spec, "rod"))), 1.0f);

    setTranslucent(graph, slider, 1.0f);
    EXPECT_FALSE(state->getMode(GL_BLEND) & osg::StateAttribute::ON);
    EXPECT_EQ(state->getRenderingHint(), osg::StateSet::DEFAULT_BIN);

    // In the view, the slider's centre shows what lies behind it when it is see-through.
    View view(spec);
    const Vec3 c = spec.parts[static_cast<std::size_t>(slider)].X_WP.p;
    const QPointF at = view.widget.project(c.x(), c.y(), c.z());
    const QColor opaque = view.frame().pixelColor(at.toPoint());
    view.widget.setPartsTranslucent(true);
    const QColor seeThrough = view.frame().pixelColor(at.toPoint());
    EXPECT_GT(
        std::abs(opaque.green() - seeThrough.green()) + std::abs(opaque.red() - seeThrough.red()),
        30);
}

TEST(ViewLook, ASelectedPartIsOutlined) {
    const engine::SceneSpec spec = sliderCrank();
    View view(spec);
    auto outlinePixels = [](const QImage& image) {
        int n = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                n += c.red() > 220 && c.green() > 120 && c.green() < 190 && c.blue() < 60;
            }
        return n;
    };
    const int before = outlinePixels(view.frame());
    view.widget.setSelection({spec.parts[partIndex(spec, "slider")].id});
    const int after = outlinePixels(view.frame());
    EXPECT_GT(after, before + 100);
}

// A part of one shape, at `p` in the world.
engine::Part shapedPart(engine::SceneSpec& spec, const std::string& name, engine::Shape shape,
                        const Vec3& p) {
    engine::Part part;
    part.id = spec.newId();
    part.name = name;
    part.density = 500.0;
    part.X_WP.p = p;
    part.shapes.push_back(std::move(shape));
    return part;
}

engine::Shape shapeOf(engine::ShapeType type, double size) {
    engine::Shape shape;
    shape.type = type;
    shape.size = Vec3::Constant(size);
    shape.radius = 0.5 * size;
    shape.length = size;
    return shape;
}

// Parts whose shapes are alike share one drawable (a tessellation made once), each with its own
// transform and material: picked as itself, made translucent alone.
TEST(ViewLook, PartsOfAlikeShapesShareTheirDrawablesYetArePickedAndTintedAlone) {
    using engine::ShapeType;
    engine::SceneSpec spec;
    for (int k = 0; k < 3; ++k)
        spec.parts.push_back(shapedPart(spec, "cube" + std::to_string(k),
                                        shapeOf(ShapeType::Box, 0.1), Vec3(0.3 * k, 0.0, 0.05)));
    spec.parts.push_back(
        shapedPart(spec, "big cube", shapeOf(ShapeType::Box, 0.2), Vec3(0.0, 0.5, 0.1)));
    spec.parts.push_back(
        shapedPart(spec, "ball", shapeOf(ShapeType::Sphere, 0.1), Vec3(0.3, 0.5, 0.05)));
    engine::Shape offset = shapeOf(ShapeType::Sphere, 0.1);
    offset.X_PG.p = Vec3(0.0, 0.0, 0.02);
    spec.parts.push_back(shapedPart(spec, "ball off its centre", offset, Vec3(0.6, 0.5, 0.05)));
    const SceneGraph graph = buildSceneGraph(spec);
    ASSERT_EQ(graph.partShapes.size(), spec.parts.size());
    const auto drawableOf = [&](std::size_t p) { return graph.partShapes[p]->getDrawable(0); };
    EXPECT_EQ(drawableOf(0), drawableOf(1));
    EXPECT_EQ(drawableOf(0), drawableOf(2));
    EXPECT_NE(drawableOf(0), drawableOf(3));              // another size
    EXPECT_NE(drawableOf(0), drawableOf(4));              // another type
    EXPECT_NE(drawableOf(4), drawableOf(5));              // another place in its part
    EXPECT_NE(graph.partShapes[0], graph.partShapes[1]);  // each its own material
    // A round part is drawn coarsely while small on screen, finely when near, in one state; a
    // cube as it is.
    const auto lodOf = [&](std::size_t p) -> const osg::LOD* {
        const osg::MatrixTransform& part = *graph.partTransforms[p];
        for (unsigned k = 0; k < part.getNumChildren(); ++k)
            if (const auto* lod = dynamic_cast<const osg::LOD*>(part.getChild(k))) return lod;
        return nullptr;
    };
    EXPECT_EQ(lodOf(0), nullptr);
    const osg::LOD* ball = lodOf(4);
    ASSERT_NE(ball, nullptr);
    ASSERT_EQ(ball->getNumChildren(), 2u);
    EXPECT_EQ(ball->getChild(1), graph.partShapes[4].get());
    EXPECT_GT(ball->getMaxRange(1), ball->getMaxRange(0));
    const osg::Geode* far = ball->getChild(0)->asGeode();
    ASSERT_NE(far, nullptr);
    EXPECT_EQ(far->getStateSet(), graph.partShapes[4]->getStateSet());
    const auto vertices = [](const osg::Drawable* d) {
        return d->asGeometry()->getVertexArray()->getNumElements();
    };
    EXPECT_LT(10 * vertices(far->getDrawable(0)), vertices(drawableOf(4)));
    ASSERT_NE(lodOf(5), nullptr);  // another ball's coarse drawable: its own place in its part
    EXPECT_NE(lodOf(5)->getChild(0)->asGeode()->getDrawable(0), far->getDrawable(0));
    // Picked as itself: a ray straight down at (x, y) meets the part there, at its top.
    const auto pickedDownAt = [&](double x, double y, engine::EntityId& entity, double& top) {
        auto picker = osg::ref_ptr<osgUtil::LineSegmentIntersector>(
            new osgUtil::LineSegmentIntersector(osg::Vec3d(x, y, 1.0), osg::Vec3d(x, y, -1.0)));
        osgUtil::IntersectionVisitor visitor(picker.get());
        graph.mechanism->accept(visitor);
        if (!picker->containsIntersections()) return false;
        entity = entityOf(picker->getFirstIntersection().nodePath);
        top = picker->getFirstIntersection().getWorldIntersectPoint().z();
        return true;
    };
    engine::EntityId entity = engine::kNoEntity;
    double top = 0.0;
    ASSERT_TRUE(pickedDownAt(0.3, 0.0, entity, top));  // the middle cube
    EXPECT_EQ(entity, spec.parts[1].id);
    EXPECT_NEAR(top, 0.1, 1e-6);
    ASSERT_TRUE(pickedDownAt(0.3, 0.5, entity, top));  // a ball, drawn at two levels of detail
    EXPECT_EQ(entity, spec.parts[4].id);
    EXPECT_NEAR(top, 0.1, 1e-3);
    // Tinted alone.
    SceneGraph tinted = buildSceneGraph(spec);
    setTranslucent(tinted, 1, 0.4f);
    EXPECT_FLOAT_EQ(translucency(tinted, 1), 0.4f);
    EXPECT_FLOAT_EQ(translucency(tinted, 0), 1.0f);
    EXPECT_FLOAT_EQ(translucency(tinted, 2), 1.0f);
}

// The length of the first arrow drawn (its shaft).
double firstArrowLength(const SceneGraph& graph) {
    const auto& points = *static_cast<const osg::Vec3Array*>(graph.contactArrows->getVertexArray());
    EXPECT_GE(points.size(), 2u);
    return points.size() < 2 ? 0.0 : (points[1] - points[0]).length();
}

// A contact force of the heaviest part's weight is drawn a quarter of the mechanism long, but
// no longer than one and a half times that part across: a pile keeps its arrows, a wide
// scatter of small parts gets arrows about as long as its parts (not metres long).
TEST(ViewLook, ContactForcesAreDrawnNoLongerThanTheHeaviestPartIsAcross) {
    const auto weightArrow = [](SceneGraph& graph, const engine::SceneSpec& spec) {
        double heaviest = 0.0;
        for (const engine::Part& part : spec.parts)
            if (!part.ground) heaviest = std::max(heaviest, engine::partMassProperties(part).mass);
        engine::ContactForce force;
        force.point_W = Vec3(0.0, 0.0, 0.0);
        force.normal_W = Vec3::UnitZ();
        force.normalForce = heaviest * spec.gravity.norm();
        updateContactArrows(graph, {force});
        return firstArrowLength(graph);
    };
    // The pile of the examples: a quarter of the pile, as before.
    auto pile = engine::io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/box_pile.json");
    ASSERT_TRUE(pile.scene.has_value());
    SceneGraph pileGraph = buildSceneGraph(*pile.scene);
    EXPECT_NEAR(weightArrow(pileGraph, *pile.scene), 0.25 * pileGraph.characteristicLength, 1e-5);
    EXPECT_LT(0.25 * pileGraph.characteristicLength, 1.5 * std::sqrt(3.0) * 0.1);
    // 20 × 20 cubes of 0.1 m, 0.3 m apart (a mechanism of some 8 m): the cube's weight drawn
    // 1.5 × 0.173 m long, and a force twice as large (the frame's largest) as long.
    engine::SceneSpec scatter;
    for (int k = 0; k < 400; ++k)
        scatter.parts.push_back(shapedPart(scatter, "cube" + std::to_string(k),
                                           shapeOf(engine::ShapeType::Box, 0.1),
                                           Vec3(0.3 * (k % 20), 0.3 * (k / 20), 0.05)));
    SceneGraph scatterGraph = buildSceneGraph(scatter);
    EXPECT_GT(scatterGraph.characteristicLength, 8.0);
    const double across = 1.5 * std::sqrt(3.0) * 0.1;
    EXPECT_NEAR(weightArrow(scatterGraph, scatter), across, 1e-5);
    engine::ContactForce twice;
    twice.normal_W = Vec3::UnitZ();
    twice.normalForce = 2.0 * 0.5 * scatter.gravity.norm();
    updateContactArrows(scatterGraph, {twice});
    EXPECT_NEAR(firstArrowLength(scatterGraph), across, 1e-5);
}

}  // namespace
}  // namespace ui
