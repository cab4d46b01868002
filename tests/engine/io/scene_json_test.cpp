#include "engine/io/scene_json.h"

#include <cmath>

#include "engine/model/contact_model.h"

#include <gtest/gtest.h>

namespace engine::io {
namespace {

std::string messagesOf(const SceneLoadResult& r) {
    std::string all;
    for (const Diagnostic& d : r.diagnostics) all += d.where + ": " + d.message + "\n";
    return all;
}

bool has(const SceneLoadResult& r, const std::string& where, const std::string& fragment) {
    for (const Diagnostic& d : r.diagnostics)
        if (d.where == where && d.message.find(fragment) != std::string::npos) return true;
    return false;
}

const char* kPendulum = R"({
  "format": "motus-scene", "version": 1, "name": "Pendulum",
  "gravity": [0, 0, -9.81],
  "parts": [
    {"name": "ground", "ground": true, "markers": [{"name": "pivot"}]},
    {"name": "link", "mass": 2.0, "inertia": [1e-4, 2e-3, 2e-3],
     "position": [0.05, 0, 0], "color": "#ff8000",
     "geometry": [{"type": "box", "size": [0.1, 0.02, 0.02]},
                  {"type": "cylinder", "radius": 0.01, "length": 0.03,
                   "orientation": {"axis": [1, 0, 0], "angleDeg": 90}}],
     "markers": [{"name": "pivot", "position": [-0.05, 0, 0],
                  "orientation": {"rpyDeg": [-90, 0, 0]}}]}
  ],
  "joints": [{"name": "hinge", "type": "revolute", "markerI": "link.pivot", "markerJ": "ground.pivot"}]
})";

TEST(SceneJson, ReadsEveryFieldOfAValidScene) {
    const SceneLoadResult r = parseScene(kPendulum);
    ASSERT_TRUE(r.scene) << messagesOf(r);
    const SceneSpec& s = *r.scene;
    EXPECT_EQ(s.name, "Pendulum");
    ASSERT_EQ(s.parts.size(), 2u);
    EXPECT_TRUE(s.parts[0].ground);
    const Part& link = s.parts[1];
    EXPECT_EQ(link.mass, 2.0);
    EXPECT_EQ(link.I_Pcm_P(1, 1), 2e-3);
    EXPECT_EQ(link.colorRgb, 0xff8000u);
    EXPECT_EQ(link.X_WP.p, Vec3(0.05, 0, 0));
    ASSERT_EQ(link.shapes.size(), 2u);
    EXPECT_EQ(link.shapes[1].type, ShapeType::Cylinder);
    // A marker rolled -90 degrees about x has its z axis along +y (a hinge axis along y).
    EXPECT_LT((link.markers[0].X_PM.R * Vec3::UnitZ() - Vec3::UnitY()).norm(), 1e-15);
    ASSERT_EQ(s.joints.size(), 1u);
    EXPECT_EQ(s.joints[0].type, JointType::Revolute);
    EXPECT_EQ(s.joints[0].markerI.text(), "link.pivot");

    // Every entity got a distinct, non-zero id.
    EXPECT_NE(link.id, kNoEntity);
    EXPECT_NE(link.id, s.parts[0].id);
    EXPECT_NE(s.joints[0].id, link.markers[0].id);
}

TEST(SceneJson, OrientationFormsAgree) {
    // The same rotation written three ways: 90 degrees about z.
    auto partWith = [](const std::string& orientation) {
        return std::string(R"({"format":"motus-scene","version":1,"parts":[{"name":"p","mass":1,
            "inertia":[1,1,1],"orientation":)") +
               orientation + "}]}";
    };
    const SceneLoadResult q =
        parseScene(partWith(R"({"quaternion":[0.7071067811865476,0,0,0.7071067811865476]})"));
    const SceneLoadResult a = parseScene(partWith(R"({"axis":[0,0,2],"angleDeg":90})"));
    const SceneLoadResult e = parseScene(partWith(R"({"rpyDeg":[0,0,90]})"));
    ASSERT_TRUE(q.scene && a.scene && e.scene) << messagesOf(q) << messagesOf(a) << messagesOf(e);
    const Vec3 x = q.scene->parts[0].X_WP.R * Vec3::UnitX();
    EXPECT_LT((x - Vec3::UnitY()).norm(), 1e-15);
    EXPECT_LT((a.scene->parts[0].X_WP.R * Vec3::UnitX() - x).norm(), 1e-15);
    EXPECT_LT((e.scene->parts[0].X_WP.R * Vec3::UnitX() - x).norm(), 1e-15);
}

TEST(SceneJson, ReportsEveryProblemOfAFileAtOnceWithItsPath) {
    const SceneLoadResult r = parseScene(R"({
      "format": "motus-scene", "version": 1, "colour": "red",
      "parts": [
        {"name": "a", "mass": "heavy", "inertia": [1, 1]},
        {"name": "b", "mass": 1, "inertia": [1, 1, 1], "geometry": [{"type": "torus"}]},
        {"mass": 1, "inertia": [1, 1, 1], "orientation": {"quaternion": [1, 1, 0, 0]}}
      ],
      "joints": [{"name": "j", "type": "hinge", "markerI": "a", "markerJ": "b.m"}]
    })");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(has(r, "/colour", "unknown key 'colour'")) << messagesOf(r);
    EXPECT_TRUE(has(r, "/parts/0/mass", "expected a number, got a string"));
    EXPECT_TRUE(has(r, "/parts/0/inertia", "[Ixx, Iyy, Izz]"));
    EXPECT_TRUE(has(r, "/parts/1/geometry/0/type", "unknown shape type 'torus'"));
    EXPECT_TRUE(has(r, "/parts/2", "missing required key 'name'"));
    EXPECT_TRUE(has(r, "/parts/2/orientation/quaternion", "unit length"));
    EXPECT_TRUE(has(r, "/joints/0/type", "unknown joint type 'hinge'"));
    EXPECT_TRUE(has(r, "/joints/0/markerI", "\"part.marker\""));
    EXPECT_GE(r.diagnostics.size(), 8u);
}

TEST(SceneJson, ReportsSemanticProblemsAfterTheStructureIsSound) {
    const SceneLoadResult r = parseScene(R"({"format":"motus-scene","version":1,
      "parts":[{"name":"a","mass":-1,"inertia":[1,1,1]}],
      "joints":[{"name":"j","type":"spherical","markerI":"a.m","markerJ":"ghost.m"}]})");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(has(r, "/parts/0/mass", "positive")) << messagesOf(r);
    EXPECT_TRUE(has(r, "/joints/0/markerJ", "no marker 'ghost.m'"));
}

TEST(SceneJson, ReportsSyntaxErrorsWithLineAndColumn) {
    const SceneLoadResult r =
        parseScene("{\n  \"format\": \"motus-scene\",\n  \"version\": 1,,\n}");
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].where, "line 3, column 16");
    EXPECT_NE(r.diagnostics[0].message.find("invalid JSON"), std::string::npos);
}

TEST(SceneJson, RejectsOtherFormatsAndNewerVersions) {
    EXPECT_TRUE(
        has(parseScene(R"({"format":"urdf","version":1})"), "/format", "expected \"motus-scene\""));
    EXPECT_TRUE(has(parseScene(R"({"format":"motus-scene","version":99})"), "/version",
                    "unsupported scene format version 99"));
    EXPECT_TRUE(has(parseScene(R"({"version":1})"), "", "missing required key 'format'"));
    EXPECT_TRUE(has(parseScene("[1, 2]"), "", "expected an object"));
}

TEST(SceneJson, RejectsNumbersThatOverflowToInfinity) {
    const SceneLoadResult r = parseScene(
        "{\"format\":\"motus-scene\",\"version\":1,\n"
        "\"parts\":[{\"name\":\"a\",\"mass\":1e999,\"inertia\":[1,1,1]}]}");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(has(r, "line 2, column 29", "number overflow parsing '1e999'")) << messagesOf(r);
}

TEST(SceneJson, ReportsAMissingFileWithoutThrowing) {
    const SceneLoadResult r = loadSceneFile("/nonexistent/dir/scene.json");
    EXPECT_FALSE(r.scene);
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_NE(r.diagnostics[0].message.find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace engine::io

namespace engine::io {
namespace {

const char* kContactScene = R"({
  "format": "motus-scene", "version": 1, "name": "Contact",
  "contact": {"solver": "lemke", "friction": "cone", "coneFacets": 6, "iterations": 50,
              "tolerance": 1e-7, "margin": 0.002, "restitutionThreshold": 0.1,
              "stabilization": 0.3, "slop": 2e-5, "stiffness": 1e5, "damping": 50,
              "pairs": [{"name": "slick", "partA": "ground", "partB": "box", "friction": 0.1, "restitution": 0.2},
                        {"name": "apart", "partA": "box", "partB": "ball", "enabled": false}]},
  "parts": [
    {"name": "ground", "ground": true, "geometry": [{"type": "plane"}], "material": {"friction": 0.9},
     "markers": [{"name": "m"}]},
    {"name": "box", "mass": 1, "inertia": [1e-3, 1e-3, 1e-3], "geometry": [{"type": "box", "size": [0.1, 0.1, 0.1]}],
     "material": {"friction": 0.4, "restitution": 0.5}, "collision": {"group": [0, 3], "mask": 9},
     "markers": [{"name": "m"}]},
    {"name": "ball", "mass": 1, "inertia": [1e-3, 1e-3, 1e-3], "geometry": [{"type": "sphere", "radius": 0.05}],
     "collision": {"enabled": false}}
  ],
  "joints": [{"name": "slider", "type": "prismatic", "markerI": "box.m", "markerJ": "ground.m", "collide": true}]
})";

TEST(SceneJson, ReadsContactSettingsMaterialsFiltersAndPairs) {
    const SceneLoadResult r = parseScene(kContactScene);
    ASSERT_TRUE(r.scene) << messagesOf(r);
    const SceneSpec& s = *r.scene;
    EXPECT_TRUE(s.contact.enabled);  // a contact block switches contact on
    EXPECT_EQ(s.settings.integrator, IntegratorType::TimeStepping);  // and the velocity-level stepper
    EXPECT_EQ(s.contact.solver, ContactSolverType::Lemke);
    EXPECT_EQ(s.contact.friction, FrictionModel::Cone);
    EXPECT_EQ(s.contact.coneFacets, 6);
    EXPECT_EQ(s.contact.iterations, 50);
    EXPECT_DOUBLE_EQ(s.contact.stiffness, 1e5);
    EXPECT_EQ(s.parts[0].shapes[0].type, ShapeType::Plane);
    EXPECT_DOUBLE_EQ(s.parts[1].material.restitution, 0.5);
    EXPECT_EQ(s.parts[1].collision.group, 9u);  // bits 0 and 3
    EXPECT_EQ(s.parts[1].collision.mask, 9u);
    EXPECT_FALSE(s.parts[2].collision.enabled);
    EXPECT_TRUE(s.joints[0].collide);
    ASSERT_EQ(s.contact.pairs.size(), 2u);
    EXPECT_DOUBLE_EQ(*s.contact.pairs[0].friction, 0.1);
    EXPECT_FALSE(s.contact.pairs[1].enabled);

    // The compiled contact model: combined materials with the pair's overrides, filters.
    const ContactModel c = buildContactModel(s);
    EXPECT_DOUBLE_EQ(c.combined(0, 1).friction, 0.1);
    EXPECT_DOUBLE_EQ(c.combined(0, 1).restitution, 0.2);
    EXPECT_DOUBLE_EQ(c.combined(0, 2).friction, std::sqrt(0.9 * 0.5));
    EXPECT_TRUE(c.mayTouch(0, 1));   // jointed, but the joint lets them collide
    EXPECT_FALSE(c.mayTouch(1, 2));  // the ball does not collide at all
}

TEST(SceneJson, ContactNeedsTheTimeSteppingIntegratorAndSaneSettings) {
    const SceneLoadResult r = parseScene(R"({"format":"motus-scene","version":1,
      "settings": {"integrator": "rk4"},
      "contact": {"coneFacets": 2, "stabilization": 1.5, "pairs": [{"name": "p", "partA": "a", "partB": "ghost"}]},
      "parts":[{"name":"a","mass":1,"inertia":[1,1,1],"geometry":[{"type":"plane"}],
                "material": {"restitution": 2}}]})");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(has(r, "/settings/integrator", "timeStepping")) << messagesOf(r);
    EXPECT_TRUE(has(r, "/contact/coneFacets", "3 to 64"));
    EXPECT_TRUE(has(r, "/contact/stabilization", "between 0 and 1"));
    EXPECT_TRUE(has(r, "/contact/pairs/0/partB", "no part 'ghost'"));
    EXPECT_TRUE(has(r, "/parts/0/geometry/0", "only the ground part"));
    EXPECT_TRUE(has(r, "/parts/0/material/restitution", "between 0 and 1"));
}

}  // namespace
}  // namespace engine::io
