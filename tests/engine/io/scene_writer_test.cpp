#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

#include <unistd.h>

#include <gtest/gtest.h>

#include "engine/io/scene_json.h"
#include "engine/model/model.h"

namespace engine::io {
namespace {

std::vector<std::filesystem::path> examples() {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(MOTUS_SOURCE_DIR "/scenes"))
        if (entry.path().extension() == ".json") files.push_back(entry.path());
    return files;
}

TEST(SceneWriter, EveryExampleRoundTripsExactly) {
    for (const auto& file : examples()) {
        SCOPED_TRACE(file.string());
        const SceneLoadResult first = loadSceneFile(file.string());
        ASSERT_TRUE(first.scene);
        const std::string text = sceneToJson(*first.scene);
        const SceneLoadResult second = parseScene(text, file.parent_path().string());
        ASSERT_TRUE(second.scene) << (second.diagnostics.empty()
                                          ? ""
                                          : second.diagnostics[0].where + ": " +
                                                second.diagnostics[0].message);
        // The written form of the reloaded scene is the same text: every value came back.
        EXPECT_EQ(sceneToJson(*second.scene), text);
        // And the mechanics did not change by a bit.
        const CompileResult a = compile(*first.scene), b = compile(*second.scene);
        ASSERT_TRUE(a.model && b.model);
        ASSERT_EQ(a.model->bodyCount(), b.model->bodyCount());
        for (int k = 0; k < a.model->bodyCount(); ++k) {
            EXPECT_EQ(a.model->bodies[static_cast<std::size_t>(k)].mass,
                      b.model->bodies[static_cast<std::size_t>(k)].mass);
            EXPECT_EQ(a.model->bodies[static_cast<std::size_t>(k)].X_WB0.p,
                      b.model->bodies[static_cast<std::size_t>(k)].X_WB0.p);
            EXPECT_EQ(a.model->bodies[static_cast<std::size_t>(k)].X_WB0.R.coeffs(),
                      b.model->bodies[static_cast<std::size_t>(k)].X_WB0.R.coeffs());
        }
    }
}

TEST(SceneWriter, WritesArraysOfNumbersOnOneLine) {
    const SceneLoadResult r = loadSceneFile(MOTUS_SOURCE_DIR "/scenes/pendulum.json");
    ASSERT_TRUE(r.scene);
    const std::string text = sceneToJson(*r.scene);
    EXPECT_NE(text.find("\"gravity\": [0, 0, -9.81]"), std::string::npos) << text;
    EXPECT_NE(text.find("\"quaternion\": ["), std::string::npos);
    EXPECT_EQ(text.find("\"velocity\""), std::string::npos);  // defaults are left out
}

TEST(SceneWriter, SavesAtomicallyAndReportsFailures) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("motus-writer-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const SceneLoadResult r = loadSceneFile(MOTUS_SOURCE_DIR "/scenes/four_bar.json");
    ASSERT_TRUE(r.scene);
    const std::string path = (dir / "four_bar.json").string();
    {
        std::ofstream old(path);
        old << "previous contents";
    }
    std::string error;
    ASSERT_TRUE(saveSceneFile(*r.scene, path, error)) << error;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        EXPECT_EQ(entry.path().filename(), "four_bar.json");  // no temporary left
    const SceneLoadResult back = loadSceneFile(path);
    ASSERT_TRUE(back.scene);
    EXPECT_EQ(sceneToJson(*back.scene), sceneToJson(*r.scene));

    // A folder that does not exist: an error, and nothing written anywhere.
    const std::string bad = (dir / "missing" / "scene.json").string();
    EXPECT_FALSE(saveSceneFile(*r.scene, bad, error));
    EXPECT_NE(error.find("no such folder"), std::string::npos) << error;
    EXPECT_FALSE(std::filesystem::exists(bad));
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace engine::io

namespace engine::io {
namespace {

TEST(SceneWriter, ContactSettingsRoundTrip) {
    SceneSpec spec;
    spec.name = "contact";
    Part ground;
    ground.id = spec.newId();
    ground.name = "ground";
    ground.ground = true;
    Shape plane;
    plane.type = ShapeType::Plane;
    ground.shapes = {plane};
    ground.material = {0.7, 0.3};
    ground.collision = {true, 6u, 0xfffffff0u};
    Part ball;
    ball.id = spec.newId();
    ball.name = "ball";
    Shape sphere;
    sphere.type = ShapeType::Sphere;
    ball.shapes = {sphere};
    ball.collision.enabled = false;
    spec.parts = {ground, ball};
    spec.contact.enabled = true;
    spec.contact.friction = FrictionModel::Cone;
    spec.contact.stiffness = 3e4;
    spec.contact.pairs.push_back(
        {spec.newId(), "p", "ground", "ball", false, 0.2, std::nullopt, {}});
    spec.settings.integrator = IntegratorType::TimeStepping;
    const std::string text = sceneToJson(spec);
    const SceneLoadResult back = parseScene(text);
    ASSERT_TRUE(back.scene);
    EXPECT_EQ(sceneToJson(*back.scene), text);
    EXPECT_EQ(back.scene->parts[0].collision.mask, 0xfffffff0u);
    EXPECT_FALSE(back.scene->parts[1].collision.enabled);
    EXPECT_EQ(back.scene->contact.friction, FrictionModel::Cone);
    EXPECT_FALSE(back.scene->contact.pairs[0].enabled);
    EXPECT_DOUBLE_EQ(*back.scene->contact.pairs[0].friction, 0.2);
}

}  // namespace
}  // namespace engine::io

namespace engine::io {
namespace {

// A file from a newer minor version: keys this Motus does not know, on several entities.
const char* kNewerScene = R"({
  "format": "motus-scene", "version": 1, "minorVersion": 99, "name": "future",
  "provenance": {"tool": "Motus 9"},
  "settings": {"integrator": "rk4", "gpu": true},
  "parts": [
    {"name": "ground", "ground": true, "markers": [{"name": "pivot", "label": "P"}], "layer": 3},
    {"name": "link", "mass": 1, "inertia": [1e-3, 1e-3, 1e-3], "position": [0.1, 0, 0],
     "geometry": [{"type": "box", "size": [0.2, 0.02, 0.02], "texture": "steel.png"}],
     "markers": [{"name": "pivot", "position": [-0.1, 0, 0]}]}
  ],
  "joints": [{"name": "hinge", "type": "revolute", "markerI": "link.pivot", "markerJ": "ground.pivot",
              "backlash": {"model": "dahl", "sigma": 2.5}}],
  "forces": [{"name": "push", "type": "pointForce", "marker": "link.pivot", "components": [0, 0, 1], "ramp": 0.1}],
  "motions": [{"name": "turn", "joint": "hinge", "expression": "time", "smoothing": "cubic"}]
})";

TEST(SceneWriter, KeysOfANewerMinorVersionAreKeptAndWrittenBack) {
    const SceneLoadResult first = parseScene(kNewerScene);
    ASSERT_TRUE(first.scene);
    // Each unknown key is a warning naming where it is, not an error.
    int warnings = 0;
    for (const Diagnostic& d : first.diagnostics) {
        EXPECT_EQ(d.severity, Severity::Warning) << d.where << ": " << d.message;
        warnings += d.message.find("kept as it is") != std::string::npos;
    }
    EXPECT_EQ(warnings, 8);
    EXPECT_EQ(first.scene->formatMinor, 99);

    const std::string text = sceneToJson(*first.scene);
    for (const char* key : {"\"provenance\"", "\"gpu\"", "\"label\"", "\"layer\"", "\"texture\"",
                            "\"dahl\"", "\"ramp\"", "\"smoothing\"", "\"minorVersion\": 99"})
        EXPECT_NE(text.find(key), std::string::npos) << key;
    // Load → save → load → save gives the same text, and the same scene.
    const SceneLoadResult second = parseScene(text);
    ASSERT_TRUE(second.scene);
    EXPECT_EQ(sceneToJson(*second.scene), text);
    EXPECT_EQ(second.scene->joints[0].extensions, first.scene->joints[0].extensions);
}

TEST(SceneWriter, UnknownKeysInAFileOfThisVersionAreStillErrors) {
    const SceneLoadResult r =
        parseScene(R"({"format": "motus-scene", "version": 1, "minorVersion": 1,
      "parts": [{"name": "ground", "ground": true, "layer": 3}]})");
    EXPECT_FALSE(r.scene);
    ASSERT_FALSE(r.diagnostics.empty());
    EXPECT_EQ(r.diagnostics[0].where, "/parts/0/layer");
    EXPECT_NE(r.diagnostics[0].message.find("unknown key 'layer'"), std::string::npos);
}

}  // namespace
}  // namespace engine::io

namespace engine::io {
namespace {

TEST(SceneWriter, PlotsTheUserSetUpAreSavedWithTheScene) {
    const SceneLoadResult r = parseScene(R"({"format": "motus-scene", "version": 1, "units": "SI",
      "plots": [{"name": "pin", "channels": ["pin.Fx", "pin.F"]}, {"channels": ["energy.kinetic"]},
                {"name": "coupler curve", "channels": ["coupler.y"], "x": "coupler.x"}]})");
    ASSERT_TRUE(r.scene);
    ASSERT_EQ(r.scene->plots.size(), 3u);
    EXPECT_EQ(r.scene->plots[0].x, "");  // against time
    EXPECT_EQ(r.scene->plots[2].x, "coupler.x");
    EXPECT_EQ(r.scene->plots[0].name, "pin");
    EXPECT_EQ(r.scene->plots[0].channels, (std::vector<std::string>{"pin.Fx", "pin.F"}));
    const std::string text = sceneToJson(*r.scene);
    const SceneLoadResult back = parseScene(text);
    ASSERT_TRUE(back.scene);
    EXPECT_EQ(sceneToJson(*back.scene), text);
    EXPECT_EQ(back.scene->plots[1].channels, (std::vector<std::string>{"energy.kinetic"}));
    EXPECT_EQ(back.scene->plots[2].x, "coupler.x");

    const SceneLoadResult imperial =
        parseScene(R"({"format": "motus-scene", "version": 1, "units": "imperial"})");
    EXPECT_FALSE(imperial.scene);
    ASSERT_FALSE(imperial.diagnostics.empty());
    EXPECT_EQ(imperial.diagnostics[0].where, "/units");
}

}  // namespace
}  // namespace engine::io

// The writer writes only what the reader takes back: orientations as quaternions of unit
// length to round-off; a scene it cannot write so is refused, naming the value.
namespace engine::io {
namespace {

const char* kOnePart = R"({"format": "motus-scene", "version": 1, "parts": [
  {"name": "ground", "ground": true},
  {"name": "link", "mass": 1, "inertia": [1, 1, 1], "orientation": {"axis": [1e300, 0, 0], "angleDeg": 30}}]})";

// Written, read back and written again: the same text, and the scene read back.
SceneSpec roundTrip(const SceneSpec& spec) {
    const std::string text = sceneToJson(spec);
    const SceneLoadResult back = parseScene(text);
    EXPECT_TRUE(back.scene) << text
                            << (back.diagnostics.empty() ? "" : back.diagnostics[0].message);
    if (!back.scene) return {};
    EXPECT_EQ(sceneToJson(*back.scene), text);
    return *back.scene;
}

TEST(SceneWriter, AnAxisWhoseLengthOverflowsIsReadAsItsDirectionAndRoundTrips) {
    // `motus-cli format` wrote this rotation as [0.966, 0, 0, 0], which `check` then refused.
    const SceneLoadResult r = parseScene(kOnePart);
    ASSERT_TRUE(r.scene);
    const Quat expected = quatFromAxisAngle(Vec3::UnitX(), degToRad(30.0));
    EXPECT_EQ(r.scene->parts[1].X_WP.R.coeffs(), expected.coeffs());
    const SceneSpec back = roundTrip(*r.scene);
    ASSERT_EQ(back.parts.size(), 2u);
    EXPECT_EQ(back.parts[1].X_WP.R.coeffs(), expected.coeffs());
}

TEST(SceneWriter, OrientationsThatAreNotOfUnitLengthAreWrittenNormalised) {
    const SceneLoadResult r = parseScene(kOnePart);
    ASSERT_TRUE(r.scene);
    // 90 degrees about z, given with components that overflow a squared length, and twice too long.
    for (const Quat& q : {Quat(1e300, 0, 0, 1e300), Quat(2, 0, 0, 2), Quat(1 + 1e-9, 0, 0, 1)}) {
        SceneSpec spec = *r.scene;
        spec.parts[1].X_WP.R = q;
        spec.parts[1].markers.push_back({});
        spec.parts[1].markers[0].name = "m";
        spec.parts[1].markers[0].X_PM.R = q;
        const SceneSpec back = roundTrip(spec);
        ASSERT_EQ(back.parts.size(), 2u);
        for (const Quat& R : {back.parts[1].X_WP.R, back.parts[1].markers[0].X_PM.R}) {
            EXPECT_NEAR(R.norm(), 1.0, 1e-15);
            EXPECT_LT((R * Vec3::UnitX() - Vec3::UnitY()).norm(), 2e-9);  // the last is 1e-9 off
        }
    }
}

TEST(SceneWriter, ASceneThatWouldNotReadBackIsNotSavedAndTheErrorNamesTheValue) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("motus-unreadable-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "scene.json").string();
    const SceneLoadResult r = parseScene(kOnePart);
    ASSERT_TRUE(r.scene);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<std::pair<std::function<void(SceneSpec&)>, std::string>> cases = {
        {[](SceneSpec& s) { s.parts[1].X_WP.R = Quat(0, 0, 0, 0); },
         "/parts/1/orientation/quaternion: "},
        {[&](SceneSpec& s) { s.parts[1].X_WP.R = Quat(nan, 0, 0, 1); },
         "/parts/1/orientation/quaternion"},
        {[&](SceneSpec& s) { s.parts[1].mass = nan; },
         "/parts/1/mass: the number nan is not finite"},
        {[](SceneSpec& s) { s.parts[1].name = "li\xffnk"; },
         "/parts/1/name: the text is not UTF-8 (byte 2)"},
    };
    for (const auto& [spoil, expected] : cases) {
        SCOPED_TRACE(expected);
        SceneSpec spec = *r.scene;
        spoil(spec);
        std::string error;
        EXPECT_FALSE(saveSceneFile(spec, path, error));
        EXPECT_NE(error.find("the scene would not read back: " + expected), std::string::npos)
            << error;
        EXPECT_FALSE(std::filesystem::exists(path));
        EXPECT_NO_THROW((void)sceneToJson(spec));  // the text of it, for a look, never throws
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace engine::io
