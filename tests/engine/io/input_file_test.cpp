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

#include "engine/io/mesh_loader.h"
#include "engine/io/run_file.h"
#include "engine/io/scene_json.h"
#include "engine/io/urdf_import.h"

namespace engine::io {
namespace {

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

}  // namespace
}  // namespace engine::io
