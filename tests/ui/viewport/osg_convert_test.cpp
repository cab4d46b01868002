#include "ui/viewport/osg_convert.h"

#include <gtest/gtest.h>

namespace ui {
namespace {

TEST(OsgConvert, TransformMapsPointsLikeTheEngine) {
    engine::Transform X_WP;
    X_WP.R = engine::quatFromAxisAngle(engine::Vec3(1, -2, 0.5), 0.9);
    X_WP.p = engine::Vec3(0.4, -1.2, 2.0);
    const engine::Vec3 p_P(0.3, 0.7, -0.2);

    const engine::Vec3 expected = X_WP * p_P;
    // OSG multiplies row vectors from the left: p_W = p_P * M.
    const osg::Vec3d actual = toOsg(p_P) * toOsg(X_WP);
    EXPECT_LT((fromOsg(actual) - expected).norm(), 1e-12);
}

TEST(OsgConvert, ChainedTransformsMultiplyInReverseOrder) {
    engine::Transform X_WP{engine::quatFromAxisAngle(engine::Vec3::UnitZ(), 0.5),
                           engine::Vec3(1, 0, 0)};
    engine::Transform X_PM{engine::quatFromAxisAngle(engine::Vec3::UnitX(), -1.2),
                           engine::Vec3(0, 2, 0)};
    const engine::Vec3 p_M(0.1, 0.2, 0.3);
    // Engine: X_WM = X_WP * X_PM. OSG scene graph: parent (X_WP) applied after child (X_PM).
    const osg::Vec3d actual = toOsg(p_M) * (toOsg(X_PM) * toOsg(X_WP));
    EXPECT_LT((fromOsg(actual) - (X_WP * X_PM) * p_M).norm(), 1e-12);
}

TEST(OsgConvert, ColourChannelsComeFromRrggbb) {
    const osg::Vec4 c = colorFromRgb(0xff8000);
    EXPECT_FLOAT_EQ(c.r(), 1.0f);
    EXPECT_NEAR(c.g(), 128.0f / 255.0f, 1e-6);
    EXPECT_FLOAT_EQ(c.b(), 0.0f);
    EXPECT_FLOAT_EQ(c.a(), 1.0f);
}

}  // namespace
}  // namespace ui

#include <osg/Geode>
#include <osg/Geometry>

#include "engine/io/mesh_loader.h"
#include "ui/viewport/scene_graph.h"

namespace ui {
namespace {

TEST(SceneGraph, DrawsAMeshShapeAsFlatShadedTriangles) {
    engine::SceneSpec spec;
    engine::Part part;
    part.id = spec.newId();
    part.name = "p";
    engine::Shape mesh;
    mesh.type = engine::ShapeType::Mesh;
    std::string error;
    mesh.mesh = engine::io::loadMesh(MOTUS_SOURCE_DIR "/tests/engine/io/data/box.obj", error);
    ASSERT_TRUE(mesh.mesh) << error;
    mesh.scale = engine::Vec3(2, 1, 1);
    part.shapes.push_back(mesh);
    spec.parts.push_back(part);
    const SceneGraph g = buildSceneGraph(spec);
    ASSERT_EQ(g.partTransforms.size(), 1u);
    auto* geode = dynamic_cast<osg::Geode*>(g.partTransforms[0]->getChild(0));
    ASSERT_NE(geode, nullptr);
    auto* geometry = dynamic_cast<osg::Geometry*>(geode->getDrawable(0));
    ASSERT_NE(geometry, nullptr);
    // 12 triangles, 3 vertices each, scaled ×2 along x: the box spans ±0.2 m in x.
    const auto* vertices = dynamic_cast<const osg::Vec3Array*>(geometry->getVertexArray());
    ASSERT_NE(vertices, nullptr);
    EXPECT_EQ(vertices->size(), 36u);
    float maxX = 0.0f;
    for (const osg::Vec3& v : *vertices) maxX = std::max(maxX, v.x());
    EXPECT_NEAR(maxX, 0.2f, 1e-6f);
}

}  // namespace
}  // namespace ui

namespace ui {
namespace {

TEST(SceneGraph, DrawsASpringAsACoilThatFollowsItsMarkers) {
    engine::SceneSpec spec;
    engine::Part ground;
    ground.id = spec.newId();
    ground.name = "ground";
    ground.ground = true;
    engine::Marker anchor;
    anchor.id = spec.newId();
    anchor.name = "anchor";
    ground.markers.push_back(anchor);
    engine::Part mass;
    mass.id = spec.newId();
    mass.name = "mass";
    mass.X_WP.p = engine::Vec3(0, 0, -0.5);
    engine::Marker hook;
    hook.id = spec.newId();
    hook.name = "hook";
    hook.X_PM.p = engine::Vec3(0, 0, 0.1);
    mass.markers.push_back(hook);
    spec.parts = {ground, mass};
    engine::ForceSpec spring;
    spring.id = spec.newId();
    spring.name = "spring";
    spring.type = engine::ForceType::SpringDamper;
    spring.markerI = {"mass", "hook"};
    spring.markerJ = {"ground", "anchor"};
    spec.forces.push_back(spring);

    SceneGraph g = buildSceneGraph(spec);
    ASSERT_EQ(g.springs.size(), 1u);
    auto* points = dynamic_cast<osg::Vec3Array*>(g.springs[0].geometry->getVertexArray());
    ASSERT_NE(points, nullptr);
    EXPECT_GT(points->size(), 100u);               // a coil, not a line
    EXPECT_NEAR(points->front().z(), -0.4, 1e-6);  // from the hook
    EXPECT_NEAR(points->back().z(), 0.0, 1e-6);    // to the anchor
    // The mass drops by 0.2 m: the coil stretches with it.
    std::vector<engine::Transform> poses = {ground.X_WP, mass.X_WP};
    poses[1].p.z() -= 0.2;
    updateSprings(g, poses);
    EXPECT_NEAR(points->front().z(), -0.6, 1e-6);
}

}  // namespace
}  // namespace ui
