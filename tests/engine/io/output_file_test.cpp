#include "engine/io/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "engine/io/scene_json.h"

namespace engine::io {
namespace {

struct OutputFileTest : ::testing::Test {
    void SetUp() override {
        dir = std::filesystem::temp_directory_path() /
              ("motus-output-test-" +
               std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
               std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
    }
    void TearDown() override { std::filesystem::remove_all(dir); }
    std::string at(const std::string& name) const { return (dir / name).string(); }
    static std::string contents(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
    std::filesystem::path dir;
};

TEST_F(OutputFileTest, ARegularFileIsWrittenThroughAUniqueTemporaryNextToIt) {
    const std::string path = at("results.csv");
    OutputFile first, second;
    std::string error;
    ASSERT_TRUE(first.open(path, error)) << error;
    ASSERT_TRUE(second.open(path, error)) << error;
    const std::regex pattern(".*/results\\.csv\\.[A-Za-z0-9]{6}\\.partial");
    EXPECT_TRUE(std::regex_match(first.temporaryPath(), pattern)) << first.temporaryPath();
    EXPECT_NE(first.temporaryPath(), second.temporaryPath());
    first.stream() << "first\n";
    second.stream() << "second\n";
    ASSERT_TRUE(first.commit(error)) << error;
    EXPECT_EQ(contents(path), "first\n");
    ASSERT_TRUE(second.commit(error)) << error;
    EXPECT_EQ(contents(path), "second\n");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
}

// A scene saved to a FIFO goes to its reader; the FIFO stays a FIFO.
TEST_F(OutputFileTest, AFifoIsWrittenInPlaceNeverReplaced) {
    const std::string fifo = at("pipe.json");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // The reader is there first (opened without waiting), so opening for writing does not block.
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    ASSERT_GE(reader, 0);
    const SceneLoadResult scene = loadSceneFile(MOTUS_SOURCE_DIR "/scenes/pendulum.json");
    ASSERT_TRUE(scene.scene);
    std::string error;
    const bool saved = saveSceneFile(*scene.scene, fifo, error);
    std::string received;
    char block[4096];
    for (ssize_t n; (n = ::read(reader, block, sizeof block)) > 0;) received.append(block, n);
    ::close(reader);
    struct stat st {};
    ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced by a file";
    EXPECT_TRUE(saved) << error;
    EXPECT_EQ(received, sceneToJson(*scene.scene));
}

TEST_F(OutputFileTest, ASymbolicLinkIsFollowedAndStaysALink) {
    std::filesystem::create_directories(dir / "real");
    std::ofstream(at("real/scene.json")) << "old";
    std::filesystem::create_symlink("real/scene.json", at("link.json"));
    std::string error;
    ASSERT_TRUE(writeFileSafely(at("link.json"), "new", error)) << error;
    EXPECT_TRUE(std::filesystem::is_symlink(at("link.json")));
    EXPECT_EQ(contents(at("real/scene.json")), "new");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir / "real"), {}), 1);
}

// A full disk (/dev/full fails every write with ENOSPC) is named as such; the device stays.
TEST_F(OutputFileTest, FailuresNameTheirCause) {
    std::string error;
    EXPECT_FALSE(writeFileSafely("/dev/full", "rows", error));
    EXPECT_NE(error.find("cannot write '/dev/full': the disk is full"), std::string::npos) << error;
    struct stat st {};
    ASSERT_EQ(::stat("/dev/full", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));

    EXPECT_FALSE(writeFileSafely(at("missing/x.csv"), "rows", error));
    EXPECT_NE(error.find("no such folder"), std::string::npos) << error;
    EXPECT_FALSE(writeFileSafely(at(std::string(300, 'n')), "rows", error));
    EXPECT_NE(error.find("name too long"), std::string::npos) << error;
    std::filesystem::create_directories(dir / "folder");
    EXPECT_FALSE(writeFileSafely(at("folder"), "rows", error));
    EXPECT_NE(error.find("is a folder"), std::string::npos) << error;
    EXPECT_EQ(fileErrorText(EACCES), "permission denied");
}

TEST_F(OutputFileTest, AnOutputThatIsAnInputIsNamedWithBoth) {
    std::ofstream(at("scene.json")) << "{}";
    std::filesystem::create_symlink("scene.json", at("alias.json"));
    const std::string problem = sameFileProblem(at("alias.json"), {at("scene.json")});
    EXPECT_NE(problem.find("alias.json"), std::string::npos) << problem;
    EXPECT_NE(problem.find("is the input '" + at("scene.json") + "'"), std::string::npos)
        << problem;
    EXPECT_EQ(sameFileProblem(at("new.csv"), {at("scene.json")}), "");
}

// What a signal handler calls: the temporaries of unfinished outputs go, the targets stay.
TEST_F(OutputFileTest, PendingTemporariesAreRemovedForASignal) {
    std::ofstream(at("results.csv")) << "earlier";
    OutputFile file;
    std::string error;
    ASSERT_TRUE(file.open(at("results.csv"), error)) << error;
    ASSERT_TRUE(std::filesystem::exists(file.temporaryPath()));
    removePendingTemporaries();
    EXPECT_FALSE(std::filesystem::exists(file.temporaryPath()));
    EXPECT_EQ(contents(at("results.csv")), "earlier");
}

}  // namespace
}  // namespace engine::io
