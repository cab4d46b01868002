#include "ui/render/video_encoder.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "tests/ui/render/decoded_video.h"
#include "tests/ui/render/test_files.h"

namespace ui {
namespace {

namespace fs = std::filesystem;

using testing::contents;
using testing::freshFolder;

// An RGBA picture, rows bottom-up as OpenGL reads them: dark, with a white 8 × 8 square whose
// lower left corner is `x` pixels from the left and `y` from the bottom.
std::vector<std::uint8_t> pictureWithSquare(int width, int height, int x, int y) {
    std::vector<std::uint8_t> rgba(static_cast<std::size_t>(4 * width * height), 30);
    for (int row = y; row < y + 8; ++row)
        for (int column = x; column < x + 8; ++column)
            for (int c = 0; c < 3; ++c)
                rgba[static_cast<std::size_t>(4 * (row * width + column) + c)] = 240;
    return rgba;
}

// Where the bright pixels of a decoded luma plane (top row first) are: their mean column and row.
void brightCentre(const std::vector<std::uint8_t>& luma, int width, double& column, double& row) {
    double sumX = 0.0, sumY = 0.0, count = 0.0;
    for (std::size_t i = 0; i < luma.size(); ++i) {
        if (luma[i] < 128) continue;
        sumX += static_cast<double>(i % static_cast<std::size_t>(width));
        sumY += static_cast<double>(i / static_cast<std::size_t>(width));
        count += 1.0;
    }
    column = count > 0 ? sumX / count : -1.0;
    row = count > 0 ? sumY / count : -1.0;
}

class VideoEncoderFormats : public ::testing::TestWithParam<const char*> {};

TEST_P(VideoEncoderFormats, WritesEveryPictureUprightAtItsSizeAndTime) {
    // Ten pictures at 25 fps of a square moving right by 4 pixels a frame along the bottom:
    // decoded back, there are ten, 64 × 48, at k / 25 s, and the square is where it was put —
    // at the bottom of the picture (rows are turned the right way up) and 4 pixels further
    // right each frame.
    const std::string extension = GetParam();
    const fs::path file = freshFolder("square" + extension) / ("square" + extension);
    VideoEncoder encoder;
    std::string error;
    ASSERT_TRUE(encoder.open(file.string(), 64, 48, 25, error)) << error;
    for (int k = 0; k < 10; ++k)
        ASSERT_TRUE(encoder.addFrame(pictureWithSquare(64, 48, 4 + 4 * k, 4).data(), error))
            << error;
    ASSERT_TRUE(encoder.finish(error)) << error;
    EXPECT_EQ(encoder.frames(), 10);

    const testing::DecodedVideo video = testing::decodeVideo(file.string());
    ASSERT_TRUE(video.opened);
    EXPECT_EQ(video.codec, extension == ".mp4" ? "h264" : "vp9");
    EXPECT_EQ(video.width, 64);
    EXPECT_EQ(video.height, 48);
    EXPECT_DOUBLE_EQ(video.frameRate, 25.0);
    ASSERT_EQ(video.luma.size(), 10u);
    for (std::size_t k = 0; k < video.luma.size(); ++k) {
        EXPECT_NEAR(video.times[k], static_cast<double>(k) / 25.0, 1e-3) << "frame " << k;
        double column = 0.0, row = 0.0;
        brightCentre(video.luma[k], 64, column, row);
        EXPECT_NEAR(column, 4.0 + 4.0 * static_cast<double>(k) + 3.5, 1.0) << "frame " << k;
        EXPECT_NEAR(row, 48.0 - 4.0 - 4.5, 1.0) << "frame " << k;  // near the bottom
    }
    EXPECT_FALSE(fs::exists(file.string() + ".partial"));
}

INSTANTIATE_TEST_SUITE_P(Containers, VideoEncoderFormats, ::testing::Values(".mp4", ".webm"),
                         [](const auto& info) { return std::string(info.param).substr(1); });

TEST(VideoEncoder, NamesWhatItCannotWrite) {
    const fs::path folder = freshFolder("refusals");
    VideoEncoder encoder;
    std::string error;
    EXPECT_FALSE(encoder.open((folder / "run.avi").string(), 64, 48, 30, error));
    EXPECT_EQ(error, "unknown video file extension '.avi': expected .mp4 (H.264) or .webm (VP9)");
    EXPECT_FALSE(encoder.open((folder / "run").string(), 64, 48, 30, error));
    EXPECT_EQ(error, "the file name has no extension: expected .mp4 (H.264) or .webm (VP9)");
    EXPECT_FALSE(encoder.open((folder / "run.mp4").string(), 321, 240, 30, error));
    EXPECT_EQ(error,
              "the picture size 321x240 has an odd side: the video's 4:2:0 colour needs an even "
              "width and height");
    EXPECT_FALSE(encoder.open((folder / "missing" / "run.webm").string(), 64, 48, 30, error));
    EXPECT_EQ(error.rfind("cannot write the video file '", 0), 0u) << error;
    EXPECT_NE(error.find("no such folder"), std::string::npos) << error;
    EXPECT_TRUE(fs::is_empty(folder));  // nothing left behind by any of them
}

// Temporaries written beside a target ("<name>.XXXXXX.partial").
int partials(const fs::path& folder) {
    int n = 0;
    for (const auto& entry : fs::directory_iterator(folder))
        n += entry.path().extension() == ".partial";
    return n;
}

TEST(VideoEncoder, AbandonedFileLeavesNothingAndTheExistingTargetAsItWas) {
    const fs::path folder = freshFolder("abandon");
    const fs::path target = folder / "run.mp4";
    std::ofstream(target) << "an earlier video";
    {
        VideoEncoder encoder;
        std::string error;
        ASSERT_TRUE(encoder.open(target.string(), 64, 48, 30, error)) << error;
        ASSERT_TRUE(encoder.addFrame(pictureWithSquare(64, 48, 0, 0).data(), error)) << error;
        EXPECT_EQ(partials(folder), 1);  // written beside the target
        EXPECT_EQ(contents(target), "an earlier video");
        encoder.abandon();
    }
    EXPECT_EQ(contents(target), "an earlier video");
    EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 1);
    {
        // Destroyed unfinished (an error path that returns early): the same.
        VideoEncoder encoder;
        std::string error;
        ASSERT_TRUE(encoder.open(target.string(), 64, 48, 30, error)) << error;
        ASSERT_TRUE(encoder.addFrame(pictureWithSquare(64, 48, 0, 0).data(), error)) << error;
    }
    EXPECT_EQ(contents(target), "an earlier video");
    EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 1);
}

TEST(VideoEncoder, FinishedFileReplacesTheExistingTarget) {
    const fs::path folder = freshFolder("replace");
    const fs::path target = folder / "run.webm";
    std::ofstream(target) << "an earlier video";
    VideoEncoder encoder;
    std::string error;
    ASSERT_TRUE(encoder.open(target.string(), 64, 48, 30, error)) << error;
    for (int k = 0; k < 3; ++k)
        ASSERT_TRUE(encoder.addFrame(pictureWithSquare(64, 48, 8 * k, 0).data(), error)) << error;
    ASSERT_TRUE(encoder.finish(error)) << error;
    EXPECT_EQ(testing::decodeVideo(target.string()).luma.size(), 3u);
    EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 1);
}

// A FIFO or a device named as the video is refused and stays what it is (the encoder seeks, and
// used to rename its temporary over it); a link is followed and stays a link; two exports to one
// name write temporaries of their own.
TEST(VideoEncoder, OnlyARegularFileIsReplacedAndTwoExportsNeverShareATemporary) {
    const fs::path folder = freshFolder("targets");
    const fs::path fifo = folder / "pipe.mp4";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string error;
    {
        VideoEncoder encoder;
        EXPECT_FALSE(encoder.open(fifo.string(), 64, 48, 30, error));
        EXPECT_NE(error.find("a FIFO, not a file"), std::string::npos) << error;
    }
    EXPECT_TRUE(fs::is_fifo(fifo));
    EXPECT_EQ(partials(folder), 0);

    const fs::path real = folder / "real.webm", link = folder / "link.webm";
    std::ofstream(real) << "an earlier video";
    fs::create_symlink(real.filename(), link);
    VideoEncoder a, b;
    ASSERT_TRUE(a.open(link.string(), 64, 48, 30, error)) << error;
    ASSERT_TRUE(b.open(real.string(), 64, 48, 30, error)) << error;
    EXPECT_EQ(partials(folder), 2) << "one temporary each";
    for (int k = 0; k < 2; ++k) {
        ASSERT_TRUE(a.addFrame(pictureWithSquare(64, 48, 8 * k, 0).data(), error)) << error;
        ASSERT_TRUE(b.addFrame(pictureWithSquare(64, 48, 8 * k, 8).data(), error)) << error;
    }
    ASSERT_TRUE(b.addFrame(pictureWithSquare(64, 48, 0, 0).data(), error)) << error;
    ASSERT_TRUE(a.finish(error)) << error;
    EXPECT_TRUE(fs::is_symlink(link)) << "the link stays a link";
    EXPECT_EQ(testing::decodeVideo(real.string()).luma.size(), 2u);
    ASSERT_TRUE(b.finish(error)) << error;
    EXPECT_EQ(testing::decodeVideo(real.string()).luma.size(), 3u) << "each export whole";
    EXPECT_EQ(partials(folder), 0);
}

}  // namespace
}  // namespace ui
