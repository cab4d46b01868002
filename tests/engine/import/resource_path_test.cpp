#include "engine/import/resource_path.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace engine::io {
namespace {

namespace fs = std::filesystem;

struct ResourcePathTest : ::testing::Test {
    void SetUp() override {
        root = fs::temp_directory_path() /
               ("motus-resource-test-" +
                std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
                std::to_string(::getpid()));
        fs::remove_all(root);
        fs::create_directories(root);
    }
    void TearDown() override { fs::remove_all(root); }
    fs::path root;
};

TEST_F(ResourcePathTest, PackagesAreFoundInTheSearchFolders) {
    fs::create_directories(root / "src" / "arm_description" / "meshes");
    std::ofstream(root / "src" / "arm_description" / "package.xml")
        << "<package><name>arm</name></package>";
    std::ofstream(root / "src" / "arm_description" / "meshes" / "base.stl") << "solid s\n";
    fs::create_directories(root / "copied" / "meshes");
    std::ofstream(root / "copied" / "meshes" / "tip.stl") << "solid s\n";
    ResourceResolver resolver((root / "elsewhere" / "robot.urdf").string(), {root.string()});
    const ResourceLookup byManifest = resolver.resolve("package://arm/meshes/base.stl");
    ASSERT_TRUE(byManifest.file) << byManifest.tried;
    EXPECT_EQ(fs::path(*byManifest.file),
              (root / "src" / "arm_description" / "meshes" / "base.stl").lexically_normal());
    const ResourceLookup byFolderName = resolver.resolve("model://copied/meshes/tip.stl");
    ASSERT_TRUE(byFolderName.file) << byFolderName.tried;
    EXPECT_FALSE(resolver.resolve("package://nowhere/x.stl").file);
}

// A folder of a thousand links to itself, and a loop of two folders (a/b → a): each folder is
// looked into once. Walked as a tree of names, the thousand links are 10¹² paths four levels
// down, queued by the million (gigabytes, minutes) before the crawl's folder budget runs out.
TEST_F(ResourcePathTest, LinkLoopsInTheSearchFoldersAreWalkedOnce) {
    fs::create_directories(root / "self");
    for (int k = 0; k < 1000; ++k)
        fs::create_directory_symlink(root / "self", root / "self" / ("link" + std::to_string(k)));
    fs::create_directories(root / "a");
    fs::create_directory_symlink(root / "a", root / "a" / "b");
    std::ofstream(root / "a" / "part.stl") << "solid s\n";
    fs::create_directories(root / "x" / "y" / "z" / "robot" / "meshes");
    std::ofstream(root / "x" / "y" / "z" / "robot" / "package.xml")
        << "<package><name>robot</name></package>";
    std::ofstream(root / "x" / "y" / "z" / "robot" / "meshes" / "base.stl") << "solid s\n";

    const auto start = std::chrono::steady_clock::now();
    ResourceResolver resolver((root / "elsewhere" / "robot.urdf").string(), {root.string()});
    const ResourceLookup deep = resolver.resolve("package://robot/meshes/base.stl");
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(deep.file) << deep.tried;
    EXPECT_EQ(fs::path(*deep.file),
              (root / "x" / "y" / "z" / "robot" / "meshes" / "base.stl").lexically_normal());
    EXPECT_LT(seconds, 2.0);
    // A link is a folder of its own name: package "b" is the folder "a" it leads to.
    const ResourceLookup throughLink = resolver.resolve("package://b/part.stl");
    ASSERT_TRUE(throughLink.file) << throughLink.tried;
    EXPECT_TRUE(fs::equivalent(*throughLink.file, root / "a" / "part.stl"));
}

}  // namespace
}  // namespace engine::io
