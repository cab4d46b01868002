#include "engine/io/child_process.h"

#include <gtest/gtest.h>

#include <csignal>
#include <stdexcept>
#include <thread>
#include <vector>

namespace engine::io {
namespace {

TEST(ChildProcess, ReturnsTheChildsResultOrItsReason) {
    std::string result, error;
    EXPECT_TRUE(runInChildProcess(
        [](std::string& out, std::string&) {
            out = std::string(200000, 'x') + "end";  // more than one pipe buffer
            return true;
        },
        {}, result, error));
    EXPECT_EQ(result.size(), 200003u);
    EXPECT_EQ(result.substr(200000), "end");

    EXPECT_FALSE(runInChildProcess(
        [](std::string&, std::string& reason) {
            reason = "no triangles";
            return false;
        },
        {}, result, error));
    EXPECT_EQ(error, "no triangles");

    EXPECT_FALSE(runInChildProcess(
        [](std::string&, std::string&) -> bool { throw std::runtime_error("bad header"); }, {},
        result, error));
    EXPECT_EQ(error, "bad header");
}

TEST(ChildProcess, ACrashInTheChildIsReportedAndTheParentGoesOn) {
    std::string result, error;
    EXPECT_FALSE(runInChildProcess(
        [](std::string&, std::string&) {
            std::raise(SIGSEGV);
            return true;
        },
        {}, result, error));
    EXPECT_EQ(error, "crashed (segmentation fault)");
}

TEST(ChildProcess, TheChildsMemoryIsBounded) {
    ChildLimits limits;
    limits.memoryBytes = std::size_t{64} << 20;
    std::string result, error;
    EXPECT_FALSE(runInChildProcess(
        [](std::string& out, std::string&) {
            std::vector<std::vector<char>> blocks;
            for (int k = 0; k < 1024; ++k) blocks.emplace_back(std::size_t{1} << 20, 'x');
            out = "1 GB allocated";
            return true;
        },
        limits, result, error));
    EXPECT_EQ(error, "ran out of its 64 MB memory bound");
}

TEST(ChildProcess, TheChildsTimeIsBounded) {
    ChildLimits limits;
    limits.seconds = 0.3;
    std::string result, error;
    EXPECT_FALSE(runInChildProcess(
        [](std::string&, std::string&) {
            std::this_thread::sleep_for(std::chrono::seconds(30));
            return true;
        },
        limits, result, error));
    EXPECT_EQ(error, "took longer than 0.3 s and was stopped");
}

}  // namespace
}  // namespace engine::io
