#include "ui/render/video_export.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "tests/ui/render/decoded_video.h"
#include "tests/ui/render/recorded_run.h"
#include "tests/ui/render/test_files.h"

namespace ui {
namespace {

namespace fs = std::filesystem;

using testing::contents;
using testing::freshFolder;

// The pendulum (scenes/pendulum.json) run for 2 s, a frame recorded every 10 ms: recorded
// once for every test here.
const testing::RecordedRun& pendulumRun() {
    static const testing::RecordedRun run = testing::recordExample("pendulum", 2.0, 0.01);
    return run;
}

VideoExportOptions smallVideo(const fs::path& file) {
    VideoExportOptions options;
    options.path = file.string();
    options.width = 320;
    options.height = 240;
    options.fps = 30;
    return options;
}

TEST(VideoExport, FramesRunFromTheStartToTheEndBothIncluded) {
    EXPECT_EQ(videoFrameCount(0.0, 2.0, 30), 61);  // t = 0, 1/30, ..., 60/30
    EXPECT_EQ(videoFrameCount(0.0, 1.99, 30), 60);
    EXPECT_EQ(videoFrameCount(0.5, 0.5, 30), 1);
    EXPECT_EQ(videoFrameCount(1.0, 0.5, 30), 0);
    EXPECT_EQ(videoFrameCount(0.0, 0.1, 30), 4);  // 0.1 s is 3/30 s within rounding

    // Taken from the recording: the range clamped to it, each frame at from + k / fps.
    VideoExportOptions options = smallVideo("run.mp4");
    const std::vector<ShownFrame> all =
        videoFrames(*pendulumRun().model, pendulumRun().recording(), options);
    ASSERT_EQ(all.size(), 61u);
    EXPECT_DOUBLE_EQ(all[30].time, 1.0);
    options.from = 0.5;
    options.to = 9.0;  // past the end: the end
    const std::vector<ShownFrame> tail =
        videoFrames(*pendulumRun().model, pendulumRun().recording(), options);
    ASSERT_EQ(tail.size(), 46u);  // 0.5 s to 2 s
    EXPECT_DOUBLE_EQ(tail.front().time, 0.5);
    EXPECT_NEAR(tail.back().time, 2.0, 1e-12);
}

TEST(VideoExport, RefusesOptionsItCannotHonourBeforeRendering) {
    VideoExportOptions options = smallVideo("run.mov");
    EXPECT_EQ(videoOptionsProblem(options),
              "the video file must end in .mp4 (H.264) or .webm (VP9)");
    options = smallVideo("run.webm");
    options.width = 319;
    EXPECT_NE(videoOptionsProblem(options).find("odd side"), std::string::npos);
    options = smallVideo("run.webm");
    options.view = "sideways";
    EXPECT_NE(videoOptionsProblem(options).find("unknown view 'sideways'"), std::string::npos);
    options = smallVideo("run.webm");
    options.from = 1.0;
    options.to = 0.5;
    EXPECT_EQ(videoOptionsProblem(options), "the time range ends before it starts");
    options.to = 2.0;
    EXPECT_EQ(videoOptionsProblem(options), "");
}

class VideoExportFormats : public ::testing::TestWithParam<const char*> {};

TEST_P(VideoExportFormats, TwoSecondPendulumRunDecodesBackFrameForFrame) {
    // 2 s at 30 fps, 320 × 240: decoded back with libavformat, 61 pictures (both ends of the
    // run) of 320 × 240 at 1/30 s apart. Each shows the mechanism (the picture is far from
    // uniform), and the pendulum, which swings through its whole arc about three times in
    // 2 s, moves between consecutive pictures except where it turns back.
    const std::string extension = GetParam();
    const fs::path file = freshFolder("pendulum" + extension) / ("pendulum" + extension);
    const testing::RecordedRun& run = pendulumRun();
    const VideoExportOptions options = smallVideo(file);
    const std::vector<ShownFrame> frames = videoFrames(*run.model, run.recording(), options);
    int calls = 0;
    const VideoExportResult result =
        exportVideo(run.spec, frames, options, [&](int done, int total) {
            ++calls;
            EXPECT_EQ(done, calls);
            EXPECT_EQ(total, 61);
            return true;
        });
    ASSERT_EQ(result.outcome, VideoExportResult::Outcome::Written) << result.error;
    EXPECT_EQ(result.frames, 61);
    EXPECT_EQ(calls, 61);

    const testing::DecodedVideo video = testing::decodeVideo(file.string());
    ASSERT_TRUE(video.opened);
    EXPECT_EQ(video.codec, extension == ".mp4" ? "h264" : "vp9");
    EXPECT_EQ(video.width, 320);
    EXPECT_EQ(video.height, 240);
    EXPECT_DOUBLE_EQ(video.frameRate, 30.0);
    ASSERT_EQ(video.luma.size(), 61u);
    std::vector<double> change(video.luma.size(), 0.0);  // from the picture before, luma levels
    int moving = 0;
    for (std::size_t k = 0; k < video.luma.size(); ++k) {
        EXPECT_NEAR(video.times[k], static_cast<double>(k) / 30.0, 1e-3) << "frame " << k;
        const auto [darkest, brightest] =
            std::minmax_element(video.luma[k].begin(), video.luma[k].end());
        EXPECT_GT(*brightest - *darkest, 100) << "frame " << k << " is nearly uniform";
        if (k == 0) continue;
        change[k] = testing::meanDifference(video.luma[k - 1], video.luma[k]);
        if (change[k] > 0.2) ++moving;
    }
    // Only near the two ends of its swing, where the link turns back, may it barely move.
    EXPECT_GE(moving, 54) << "of 60 consecutive pairs";
    // And it turns back every half period (the scene's 0.614423 s period for its release from
    // horizontal): within a frame of those times the picture nearly stands still (about one
    // level of change per frame at mid-swing).
    const double halfPeriod = 0.614423429 / 2.0;  // s
    for (int n = 1; n * halfPeriod < 2.0 - 1.0 / 30.0; ++n) {
        double least = 255.0;
        for (std::size_t k = 1; k < change.size(); ++k)
            if (std::abs((static_cast<double>(k) - 0.5) / 30.0 - n * halfPeriod) <= 1.0 / 30.0)
                least = std::min(least, change[k]);
        EXPECT_LT(least, 0.6) << "no standstill near t = " << n * halfPeriod << " s";
    }
    // At mid-swing the link sweeps a clear change (about 1.1 levels in the mean over the
    // picture for the thin link on the light floor and sky, VP9 smoothing the edges).
    EXPECT_GT(*std::max_element(change.begin(), change.end()), 0.9);
}

INSTANTIATE_TEST_SUITE_P(Containers, VideoExportFormats, ::testing::Values(".mp4", ".webm"),
                         [](const auto& info) { return std::string(info.param).substr(1); });

TEST(VideoExport, CancelLeavesNoFileAndTheExistingVideoAsItWas) {
    const fs::path folder = freshFolder("cancel");
    const fs::path target = folder / "pendulum.mp4";
    std::ofstream(target) << "an earlier video";
    const testing::RecordedRun& run = pendulumRun();
    const VideoExportOptions options = smallVideo(target);
    const VideoExportResult result =
        exportVideo(run.spec, videoFrames(*run.model, run.recording(), options), options,
                    [](int done, int) { return done < 10; });
    EXPECT_EQ(result.outcome, VideoExportResult::Outcome::Cancelled);
    EXPECT_EQ(result.frames, 10);
    EXPECT_EQ(contents(target), "an earlier video");
    EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 1);
}

TEST(VideoExport, FailureNamesTheReasonAndLeavesTheExistingVideoAsItWas) {
    const fs::path folder = freshFolder("failure");
    const testing::RecordedRun& run = pendulumRun();
    // A folder that does not exist: the encoder cannot create the file.
    VideoExportOptions options = smallVideo(folder / "missing" / "pendulum.webm");
    VideoExportResult result =
        exportVideo(run.spec, videoFrames(*run.model, run.recording(), options), options);
    EXPECT_EQ(result.outcome, VideoExportResult::Outcome::Failed);
    EXPECT_EQ(result.error, "cannot write the video file '" + options.path + "': no such folder");
    // Nothing recorded in the range.
    options = smallVideo(folder / "pendulum.webm");
    std::ofstream(options.path) << "an earlier video";
    result = exportVideo(run.spec, {}, options);
    EXPECT_EQ(result.outcome, VideoExportResult::Outcome::Failed);
    EXPECT_EQ(result.error, "there is nothing recorded in the time range to show");
    EXPECT_EQ(contents(options.path), "an earlier video");
    EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 1);
}

TEST(VideoExport, WithoutAnXDisplaySaysSoAndWritesNothing) {
    const fs::path folder = freshFolder("nodisplay");
    const testing::RecordedRun& run = pendulumRun();
    const VideoExportOptions options = smallVideo(folder / "pendulum.mp4");
    const std::vector<ShownFrame> frames = videoFrames(*run.model, run.recording(), options);
    const char* display = std::getenv("DISPLAY");
    const std::string saved = display ? display : "";
    ::unsetenv("DISPLAY");
    const VideoExportResult result = exportVideo(run.spec, frames, options);
    if (!saved.empty()) ::setenv("DISPLAY", saved.c_str(), 1);
    EXPECT_EQ(result.outcome, VideoExportResult::Outcome::Failed);
    EXPECT_EQ(result.error,
              "drawing off screen needs an X display and DISPLAY is not set (xvfb-run provides "
              "one, rendering in software)");
    EXPECT_TRUE(fs::is_empty(folder));
}

}  // namespace
}  // namespace ui
