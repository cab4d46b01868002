#include "engine/io/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <string>

#include <gtest/gtest.h>

#include "engine/import/mjcf_import.h"
#include "engine/import/sdf_import.h"
#include "engine/import/urdf_import.h"
#include "engine/io/mesh_loader.h"
#include "engine/io/run_file.h"
#include "engine/io/scene_json.h"

namespace engine::io {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct InputFileTest : ::testing::Test {
    void SetUp() override {
        dir = std::filesystem::temp_directory_path() /
              ("motus-input-test-" +
               std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
               std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
    }
    void TearDown() override { std::filesystem::remove_all(dir); }
    std::string at(const std::string& name) const { return (dir / name).string(); }
    std::string fifo(const std::string& name) const {
        const std::string path = at(name);
        EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
        return path;
    }
    // Runs `read`, which must come back without waiting on the FIFO `pipe`; when it blocks, the
    // FIFO gets a writer that closes at once (the read then ends) and the test fails.
    // The first error of an import, "" when there is none.
    static std::string firstError(const RobotImportResult& r) {
        for (const Diagnostic& d : r.diagnostics)
            if (d.severity == Severity::Error) return d.message;
        return "";
    }
    static void expectNoWait(const std::string& pipe, const std::function<void()>& read) {
        auto done = std::async(std::launch::async, read);
        if (done.wait_for(10s) == std::future_status::ready) return;
        ADD_FAILURE() << "blocked on the FIFO " << pipe;
        while (done.wait_for(100ms) != std::future_status::ready) {
            const int fd = ::open(pipe.c_str(), O_WRONLY | O_NONBLOCK);
            if (fd >= 0) ::close(fd);
        }
    }
    std::filesystem::path dir;
};

TEST_F(InputFileTest, OnlyARegularFileIsRead) {
    std::ofstream(at("scene.json")) << "{}";
    std::uintmax_t size = 0;
    EXPECT_EQ(inputFileProblem(at("scene.json"), "scene file", &size), "");
    EXPECT_EQ(size, 2u);
    EXPECT_EQ(inputFileProblem(fifo("pipe"), "scene file", nullptr, "pipe"),
              "'pipe' is a FIFO, not a file");
    EXPECT_EQ(inputFileProblem(dir.string(), "scene file", nullptr, "d"),
              "'d' is a folder, not a file");
    EXPECT_EQ(inputFileProblem("/dev/zero", "cases file"),
              "'/dev/zero' is a character device, not a file");
    EXPECT_EQ(inputFileProblem(at("none.json"), "scene file", nullptr, "none.json"),
              "cannot open scene file 'none.json'");
}

TEST_F(InputFileTest, ASceneThatIsAFifoOrAFolderIsRefusedWithoutWaiting) {
    const std::string pipe = fifo("scene.json");
    SceneLoadResult result;
    expectNoWait(pipe, [&] { result = loadSceneFile(pipe); });
    ASSERT_FALSE(result.diagnostics.empty());
    EXPECT_NE(result.diagnostics[0].message.find("is a FIFO, not a file"), std::string::npos)
        << result.diagnostics[0].message;
    // A folder: no nonsense size.
    result = loadSceneFile(dir.string());
    ASSERT_FALSE(result.diagnostics.empty());
    EXPECT_NE(result.diagnostics[0].message.find("is a folder, not a file"), std::string::npos)
        << result.diagnostics[0].message;
}

TEST_F(InputFileTest, AMeshThatIsAFifoIsRefusedWithoutWaiting) {
    const std::string pipe = fifo("part.stl");
    std::string error;
    expectNoWait(pipe, [&] { EXPECT_FALSE(loadMesh(pipe, error)); });
    EXPECT_NE(error.find("is a FIFO, not a file"), std::string::npos) << error;
}

// Assimp opens the files a mesh names itself: an OBJ's material library that is a FIFO is
// skipped (as a missing one is), and the mesh loads.
TEST_F(InputFileTest, AnObjsMaterialLibraryThatIsAFifoIsSkipped) {
    const std::string pipe = fifo("colours.mtl");
    std::ofstream(at("tri.obj")) << "mtllib colours.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    std::shared_ptr<const TriangleMesh> mesh;
    std::string error;
    expectNoWait(pipe, [&] { mesh = loadMesh(at("tri.obj"), error); });
    ASSERT_TRUE(mesh) << error;
    EXPECT_EQ(mesh->triangles.size(), 1u);
}

TEST_F(InputFileTest, RobotDescriptionsAndRunFilesThatAreFifosAreRefusedWithoutWaiting) {
    const std::string urdf = fifo("arm.urdf");
    UrdfImportResult imported;
    expectNoWait(urdf, [&] { imported = importUrdfFile(urdf, {}); });
    ASSERT_FALSE(imported.diagnostics.empty());
    EXPECT_NE(imported.diagnostics[0].message.find("is a FIFO, not a file"), std::string::npos)
        << imported.diagnostics[0].message;

    const std::string run = fifo("old.motusrun");
    std::string error;
    expectNoWait(run, [&] { EXPECT_FALSE(loadRunFile(run, error)); });
    EXPECT_NE(error.find("is a FIFO, not a file"), std::string::npos) << error;
}

// MuJoCo's compiler opens the files an MJCF model names itself: an include, a mesh, a texture
// that is a FIFO is refused, naming the element, before the compiler runs (it waited on the
// FIFO until its 120 s bound).
TEST_F(InputFileTest, FilesAnMjcfModelNamesThatAreFifosAreRefusedWithoutWaiting) {
    const std::string body = fifo("body.xml");
    std::ofstream(at("robot.xml")) << R"(<mujoco model="r">
  <worldbody><body name="b"><geom type="sphere" size="0.1"/></body>
  <include file="body.xml"/></worldbody></mujoco>)";
    RobotImportResult r;
    expectNoWait(body, [&] { r = importMjcfFile(at("robot.xml")); });
    EXPECT_FALSE(r.scene);
    EXPECT_NE(firstError(r).find("robot.xml' line 3: <include file='body.xml'>: '"),
              std::string::npos)
        << firstError(r);
    EXPECT_NE(firstError(r).find("body.xml' is a FIFO, not a file"), std::string::npos)
        << firstError(r);

    fs::create_directories(dir / "assets");
    const std::string mesh = fifo("assets/hull.stl");
    std::ofstream(at("meshed.xml")) << R"(<mujoco model="m"><compiler meshdir="assets"/>
  <asset><mesh name="hull" file="hull.stl"/></asset>
  <worldbody><body name="b"><freejoint/><geom type="mesh" mesh="hull"/></body></worldbody>
</mujoco>)";
    expectNoWait(mesh, [&] { r = importMjcfFile(at("meshed.xml")); });
    EXPECT_FALSE(r.scene);
    EXPECT_NE(firstError(r).find("line 2: <mesh file='hull.stl'>: '"), std::string::npos)
        << firstError(r);
    EXPECT_NE(firstError(r).find("hull.stl' is a FIFO, not a file"), std::string::npos)
        << firstError(r);
}

// libsdformat opens the files that <include> names (and a model folder's model.config): one
// that is a FIFO is refused, naming the include, before libsdformat reads anything. A mesh
// that is a FIFO is left out with the reason.
TEST_F(InputFileTest, FilesAnSdfModelNamesThatAreFifosAreRefusedWithoutWaiting) {
    const std::string arm = fifo("arm.sdf");
    std::ofstream(at("world.sdf")) << R"(<?xml version="1.0"?>
<sdf version="1.8"><world name="w">
  <include><uri>)" + arm + R"(</uri></include></world></sdf>)";
    RobotImportResult r;
    expectNoWait(arm, [&] { r = importSdfFile(at("world.sdf")); });
    EXPECT_FALSE(r.scene);
    EXPECT_NE(firstError(r).find("world.sdf' line 3: <include> '"), std::string::npos)
        << firstError(r);
    EXPECT_NE(firstError(r).find("arm.sdf' is a FIFO, not a file"), std::string::npos)
        << firstError(r);

    fs::create_directories(dir / "gripper");
    const std::string config = fifo("gripper/model.config");
    std::ofstream(at("with_gripper.sdf")) << R"(<?xml version="1.0"?>
<sdf version="1.8"><world name="w">
  <include><uri>)" + at("gripper") + R"(</uri></include></world></sdf>)";
    expectNoWait(config, [&] { r = importSdfFile(at("with_gripper.sdf")); });
    EXPECT_FALSE(r.scene);
    EXPECT_NE(firstError(r).find("model.config' is a FIFO, not a file"), std::string::npos)
        << firstError(r);

    const std::string mesh = fifo("hull.stl");
    std::ofstream(at("meshed.sdf")) << R"(<?xml version="1.0"?>
<sdf version="1.8"><model name="m"><link name="a"><visual name="v"><geometry><mesh>
  <uri>hull.stl</uri></mesh></geometry></visual></link></model></sdf>)";
    expectNoWait(mesh, [&] { r = importSdfFile(at("meshed.sdf")); });
    ASSERT_TRUE(r.scene);
    EXPECT_TRUE(r.scene->parts[0].shapes.empty());
    bool said = false;
    for (const Diagnostic& d : r.diagnostics)
        said = said || d.message.find("hull.stl' is a FIFO, not a file") != std::string::npos;
    EXPECT_TRUE(said) << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
}

}  // namespace
}  // namespace engine::io
