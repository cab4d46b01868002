// Scene values set from outside the file (motus-cli --set, batch): JSON pointers whose array
// steps may be names, the dotted form, JSON values and plain text, keys added, and overrides
// that name nothing refused with the step that fails.

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/io/scene_overrides.h"
#include "engine/model/triangle_mesh.h"

namespace engine::io {
namespace {

const std::string kScene = MOTUS_SOURCE_DIR "/scenes/slider_crank.json";

SceneLoadResult load(const std::vector<std::string>& texts) {
    std::vector<SceneOverride> overrides;
    for (const std::string& t : texts) {
        SceneOverride o;
        std::string error;
        EXPECT_TRUE(parseOverride(t, o, error)) << error;
        overrides.push_back(o);
    }
    return loadSceneFile(kScene, overrides);
}

std::string firstError(const SceneLoadResult& r) {
    return r.diagnostics.empty() ? std::string() : r.diagnostics.front().message;
}

TEST(SceneOverrides, SetValuesByNameByIndexAndWithDots) {
    const SceneLoadResult plain = loadSceneFile(kScene);
    ASSERT_TRUE(plain.scene);
    const SceneLoadResult r =
        load({"/parts/crank/mass=2.5", "/parts/2/mass=0.125", "motions.motor.expression=720d*time",
              "/gravity=[0, 0, -1.62]"});
    ASSERT_TRUE(r.scene) << firstError(r);
    const SceneSpec& s = *r.scene;
    EXPECT_EQ(s.parts[1].name, "crank");
    EXPECT_EQ(s.parts[1].mass, 2.5);
    EXPECT_EQ(s.parts[2].mass, 0.125);
    EXPECT_EQ(s.motions.front().expression, "720d*time");  // not JSON: the text itself
    EXPECT_EQ(s.gravity, Vec3(0, 0, -1.62));
    // Everything else as in the file.
    EXPECT_EQ(s.parts.size(), plain.scene->parts.size());
    EXPECT_EQ(s.parts[3].mass, plain.scene->parts[3].mass);
    EXPECT_EQ(s.joints.size(), plain.scene->joints.size());
}

// The scene's sections a file may leave out (settings, contact: their defaults) are there to
// set keys in; a misspelt section is still refused.
TEST(SceneOverrides, ASectionTheFileLeavesOutIsThereToSetKeysIn) {
    const std::string bare = MOTUS_SOURCE_DIR "/scenes/robot_arm_urdf.json";
    ASSERT_TRUE(loadSceneFile(bare).scene);
    SceneLoadResult r =
        loadSceneFile(bare, {{"settings.foldWelds", "false"}, {"contact.enabled", "true"}});
    ASSERT_TRUE(r.scene) << firstError(r);
    EXPECT_FALSE(r.scene->settings.foldWelds);
    EXPECT_TRUE(r.scene->contact.enabled);
    r = loadSceneFile(bare, {{"setings.foldWelds", "false"}});
    EXPECT_FALSE(r.scene);
    EXPECT_NE(firstError(r).find("/ has no key 'setings'"), std::string::npos) << firstError(r);
}

TEST(SceneOverrides, ANumberBeyondADoubleIsSaidToBeOutOfRangeNotAString) {
    for (const std::string& text :
         {std::string("/parts/crank/mass=1e999"), std::string("/gravity=[0, 0, -1e999]")}) {
        const SceneLoadResult r = load({text});
        EXPECT_FALSE(r.scene) << text;
        const std::string said = firstError(r);
        EXPECT_NE(said.find("e999 is out of range of a double"), std::string::npos) << said;
        EXPECT_EQ(said.find("string"), std::string::npos) << said;
    }
    // Text that is not JSON stays text (an expression), and a small number stays a number.
    const SceneLoadResult r =
        load({"motions.motor.expression=720d*time", "/parts/crank/mass=1e-300"});
    ASSERT_TRUE(r.scene) << firstError(r);
    EXPECT_EQ(r.scene->parts[1].mass, 1e-300);
}

TEST(SceneOverrides, WhatNamesNothingIsRefusedAtTheStepThatFails) {
    SceneLoadResult r = load({"/parts/crnak/mass=2"});
    EXPECT_FALSE(r.scene);
    EXPECT_NE(firstError(r).find("/parts has no element named 'crnak'"), std::string::npos)
        << firstError(r);
    r = load({"/parts/17/mass=2"});
    EXPECT_NE(firstError(r).find("/parts has no element 17"), std::string::npos) << firstError(r);
    r = load({"/nothing/here=2"});
    EXPECT_NE(firstError(r).find("/ has no key 'nothing'"), std::string::npos) << firstError(r);
    r = load({"/parts/crank/mass/x=2"});
    EXPECT_NE(firstError(r).find("/parts/crank/mass is a value"), std::string::npos)
        << firstError(r);
    // A key the format does not have is added, and the reader says so as for a file.
    r = load({"/parts/crank/mas=2"});
    EXPECT_FALSE(r.scene);
    EXPECT_NE(firstError(r).find("unknown key 'mas'"), std::string::npos) << firstError(r);
    // A value the reader refuses is refused as in a file.
    r = load({"/parts/crank/mass=-1"});
    EXPECT_FALSE(r.scene);
    // Hostile values: not UTF-8 (a Latin-1 cases file), nested past what a scene may, a path
    // that ends in a separator.
    r = loadSceneFile(kScene, {{"/parts/crank/name", "caf\xe9"}});
    EXPECT_FALSE(r.scene);
    EXPECT_NE(firstError(r).find("an override is not UTF-8 text (byte 22 of PATH=VALUE is not)"),
              std::string::npos)
        << firstError(r);
    EXPECT_EQ(detail::invalidUtf8Offset(firstError(r)), std::string::npos);  // not quoted back
    r = loadSceneFile(kScene, {{"/parts/crank/mass", std::string(100000, '[')}});
    EXPECT_FALSE(r.scene);
    EXPECT_NE(firstError(r).find("deeper than a scene file may"), std::string::npos)
        << firstError(r);
    r = load({"parts.crank.mass.=2"});
    EXPECT_NE(firstError(r).find("ends with a separator"), std::string::npos) << firstError(r);
    SceneOverride o;
    std::string error;
    EXPECT_FALSE(parseOverride("/parts/crank/name=caf\xe9", o, error));
    EXPECT_NE(error.find("UTF-8"), std::string::npos);
    EXPECT_FALSE(parseOverride("mass", o, error));
    EXPECT_NE(error.find("PATH=VALUE"), std::string::npos);
    EXPECT_FALSE(parseOverride("=2", o, error));
}

// A scene read with overrides loads each mesh file once: the overridden text takes the meshes of
// the plain read, shape by shape, where a shape still names the same file; one whose file an
// override changed is read from its new file.
TEST(SceneOverrides, AMeshIsTakenFromThePlainReadUnlessItsFileChanged) {
    const std::string arm = MOTUS_SOURCE_DIR "/scenes/robot_arm_urdf.json";
    const std::string other = MOTUS_SOURCE_DIR "/tests/data/meshes/one_triangle.dae";
    const SceneLoadResult plain = loadSceneFile(arm);
    ASSERT_TRUE(plain.scene) << firstError(plain);
    const auto gripper = [](const SceneSpec& s) -> const Shape& {
        for (const Part& p : s.parts)
            if (p.name == "gripper") return p.shapes.at(0);
        throw std::runtime_error("no gripper");
    };
    const std::size_t own = gripper(*plain.scene).mesh->triangles.size();
    ASSERT_GT(own, 1u);

    // From the file, with the gripper's file overridden: the new file's one triangle.
    const SceneLoadResult changed = loadSceneFile(arm, {{"/parts/gripper/geometry/0/file", other}});
    ASSERT_TRUE(changed.scene) << firstError(changed);
    ASSERT_TRUE(gripper(*changed.scene).mesh);
    EXPECT_EQ(gripper(*changed.scene).mesh->triangles.size(), 1u);
    EXPECT_EQ(gripper(*changed.scene).meshFile, other);
    // Another value overridden: the gripper's mesh as in the file.
    const SceneLoadResult heavier = loadSceneFile(arm, {{"/parts/gripper/mass", "0.5"}});
    ASSERT_TRUE(heavier.scene) << firstError(heavier);
    EXPECT_EQ(heavier.scene->parts.size(), plain.scene->parts.size());
    EXPECT_EQ(gripper(*heavier.scene).mesh->triangles.size(), own);

    // The reuse itself: a scene read before holding a mesh of its own (one triangle) for the
    // gripper's file gives that very mesh to the text naming the same file, and none to a shape
    // naming another.
    std::ifstream in(arm);
    std::stringstream text;
    text << in.rdbuf();
    SceneSpec before = *plain.scene;
    auto held = std::make_shared<TriangleMesh>();
    held->vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
    held->triangles = {{0, 1, 2}};
    for (Part& p : before.parts)
        if (p.name == "gripper") p.shapes.at(0).mesh = held;
    const std::string base = MOTUS_SOURCE_DIR "/scenes";
    const SceneLoadResult same = detail::parseSceneWithMeshesOf(text.str(), base, before);
    ASSERT_TRUE(same.scene) << firstError(same);
    EXPECT_EQ(gripper(*same.scene).mesh, held);
    for (Part& p : before.parts)
        if (p.name == "gripper") p.shapes.at(0).meshFile = "urdf/meshes/elsewhere.obj";
    const SceneLoadResult read = detail::parseSceneWithMeshesOf(text.str(), base, before);
    ASSERT_TRUE(read.scene) << firstError(read);
    ASSERT_TRUE(gripper(*read.scene).mesh);
    EXPECT_NE(gripper(*read.scene).mesh, held);
    EXPECT_EQ(gripper(*read.scene).mesh->triangles.size(), own);
}

}  // namespace
}  // namespace engine::io
