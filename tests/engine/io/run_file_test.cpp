#include "engine/io/run_file.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include "engine/io/scene_json.h"
#include "engine/runtime/simulator.h"
#include "tests/support/simulation.h"

namespace engine::io {
namespace {

using namespace std::chrono_literals;

std::vector<std::vector<double>> rows(const Recording& r) { return test::recordedRows(r); }

struct RunFileTest : ::testing::Test {
    void SetUp() override {
        // One folder per test and process: CTest runs the tests of this file in parallel.
        dir = std::filesystem::temp_directory_path() /
              ("motus-run-test-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
               std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        path = (dir / "four_bar.motusrun").string();
        auto loaded = loadSceneFile(MOTUS_SOURCE_DIR "/scenes/four_bar.json");
        ASSERT_TRUE(loaded.scene);
        spec = *loaded.scene;
        model = compile(spec).model;
    }
    void TearDown() override { std::filesystem::remove_all(dir); }
    std::string bytes() {
        std::ifstream in(path, std::ios::binary);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
    void write(const std::string& content) {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << content;
    }
    std::filesystem::path dir;
    std::string path;
    SceneSpec spec;
    std::shared_ptr<const Model> model;
};

TEST_F(RunFileTest, ARunReopensFrameForFrameAndContinuesAsIfNeverStopped) {
    Simulator original(model);
    original.runTo(0.2);
    ASSERT_TRUE(original.waitUntilIdle(30s));
    std::string error;
    ASSERT_TRUE(saveRunFile(spec, original.recording(), path, error)) << error;
    EXPECT_FALSE(std::filesystem::exists(path + ".saving"));

    auto run = loadRunFile(path, error);
    ASSERT_TRUE(run) << error;
    EXPECT_EQ(sceneToJson(run->spec), sceneToJson(spec));
    EXPECT_EQ(rows(*run->recording), rows(original.recording()));

    // Continue the reopened run to 0.4 s: the same frames as a run that never stopped.
    Simulator resumed(run->model, std::move(run->recording));
    ASSERT_TRUE(resumed.initialization().ok) << resumed.initialization().message;
    resumed.runTo(0.4);
    original.runTo(0.4);
    ASSERT_TRUE(resumed.waitUntilIdle(30s));
    ASSERT_TRUE(original.waitUntilIdle(30s));
    const auto a = rows(resumed.recording()), b = rows(original.recording());
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k)
        for (std::size_t i = 0; i < a[k].size(); ++i) ASSERT_NEAR(a[k][i], b[k][i], 1e-12 * (1 + std::abs(b[k][i]))) << k;
}

TEST_F(RunFileTest, AContactRunKeepsEveryFramesContactForces) {
    auto loaded = loadSceneFile(MOTUS_SOURCE_DIR "/scenes/newtons_cradle.json");
    ASSERT_TRUE(loaded.scene);
    Simulator original(compile(*loaded.scene).model);
    original.runTo(0.3);  // past the first impacts
    ASSERT_TRUE(original.waitUntilIdle(30s));
    std::string error;
    ASSERT_TRUE(saveRunFile(*loaded.scene, original.recording(), path, error)) << error;
    auto run = loadRunFile(path, error);
    ASSERT_TRUE(run) << error;
    ASSERT_EQ(run->recording->size(), original.recording().size());
    std::size_t withForces = 0;
    for (std::size_t k = 0; k < original.recording().size(); ++k) {
        State s1, s2;
        Outputs a, b;
        original.recording().read(k, s1, a);
        run->recording->read(k, s2, b);
        ASSERT_EQ(a.contacts.size(), b.contacts.size()) << k;
        for (std::size_t c = 0; c < a.contacts.size(); ++c) {
            EXPECT_EQ(a.contacts[c].partA, b.contacts[c].partA);
            EXPECT_EQ(a.contacts[c].partB, b.contacts[c].partB);
            EXPECT_EQ(a.contacts[c].point_W, b.contacts[c].point_W);
            EXPECT_EQ(a.contacts[c].normalForce, b.contacts[c].normalForce);
            EXPECT_EQ(a.contacts[c].frictionForce_W, b.contacts[c].frictionForce_W);
            withForces += a.contacts[c].normalForce > 0.0;
        }
    }
    EXPECT_GT(withForces, 0u);
}

TEST_F(RunFileTest, TruncatedOrCorruptedFilesFailCleanly) {
    Simulator sim(model);
    sim.runTo(0.05);
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    std::string error;
    ASSERT_TRUE(saveRunFile(spec, sim.recording(), path, error));
    const std::string good = bytes();

    for (std::size_t cut : {std::size_t(0), std::size_t(5), std::size_t(14), good.size() / 3, good.size() - 9, good.size() - 1}) {
        write(good.substr(0, cut));
        EXPECT_FALSE(loadRunFile(path, error)) << cut;
        EXPECT_TRUE(error.find("truncated") != std::string::npos || error.find("not a Motus run file") != std::string::npos)
            << cut << ": " << error;
    }
    std::string flipped = good;
    flipped[good.size() - 100] ^= 0x40;  // a bit in the last frame
    write(flipped);
    EXPECT_FALSE(loadRunFile(path, error));
    EXPECT_NE(error.find("corrupted"), std::string::npos) << error;

    write("MOTUSXXX" + good.substr(8));
    EXPECT_FALSE(loadRunFile(path, error));
    EXPECT_NE(error.find("not a Motus run file"), std::string::npos);

    EXPECT_FALSE(loadRunFile((dir / "missing.motusrun").string(), error));
    EXPECT_NE(error.find("cannot open"), std::string::npos);
}

TEST_F(RunFileTest, BytesInMemoryReadLikeTheFileTheyCameFrom) {
    Simulator sim(model);
    sim.runTo(0.05);
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    std::string error;
    ASSERT_TRUE(saveRunFile(spec, sim.recording(), path, error));
    const std::string good = bytes();

    auto fromFile = loadRunFile(path, error);
    ASSERT_TRUE(fromFile) << error;
    auto fromBytes = parseRunFile(good, dir.string(), error);
    ASSERT_TRUE(fromBytes) << error;
    EXPECT_EQ(sceneToJson(fromBytes->spec), sceneToJson(fromFile->spec));
    EXPECT_EQ(rows(*fromBytes->recording), rows(*fromFile->recording));

    EXPECT_FALSE(parseRunFile("MOTUSXXX" + good.substr(8), dir.string(), error));
    EXPECT_NE(error.find("not a Motus run file"), std::string::npos) << error;
    EXPECT_FALSE(parseRunFile(good.substr(0, good.size() - 1), dir.string(), error));
    EXPECT_NE(error.find("truncated"), std::string::npos) << error;
}

}  // namespace
}  // namespace engine::io

namespace engine::io {
namespace {

TEST(RunFileHostile, ADirectoryNamedLikeARunFileIsRefusedNotRead) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("motus-run-dir-" + std::to_string(::getpid()) + ".motusrun");
    std::filesystem::create_directories(dir);
    std::string error;
    EXPECT_FALSE(loadRunFile(dir.string(), error));
    EXPECT_NE(error.find("is not a file"), std::string::npos) << error;
    std::filesystem::remove_all(dir);
    // A missing file says so.
    EXPECT_FALSE(loadRunFile(dir.string(), error));
    EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
}

}  // namespace
}  // namespace engine::io
