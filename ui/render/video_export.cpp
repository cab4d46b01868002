#include "ui/render/video_export.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "engine/model/model.h"
#include "engine/record/recording.h"
#include "ui/render/video_encoder.h"
#include "ui/viewport/scene_graph.h"

namespace ui {
namespace {

// Slack on the last frame's time, so that 2 s at 30 fps ends on 60/30 s despite rounding.
constexpr double kFrameTimeSlack = 1e-6;  // s

}  // namespace

std::string videoOptionsProblem(const VideoExportOptions& options) {
    if (!videoContainerFor(options.path))
        return "the video file must end in .mp4 (H.264) or .webm (VP9)";
    if (std::string problem = videoSizeProblem(options.width, options.height); !problem.empty())
        return problem;
    if (options.fps < 1 || options.fps > 240)
        return "the frame rate must be between 1 and 240 per second, got " +
               std::to_string(options.fps);
    engine::Vec3 toEye, up;
    if (!options.camera && !standardViewDirection(options.view, toEye, up))
        return "unknown view '" + options.view +
               "' (expected isometric, front, back, left, right, top or bottom)";
    if (!std::isfinite(options.from) || !std::isfinite(options.to) || options.from < 0.0)
        return "the time range must start at zero or later";
    if (options.to >= 0.0 && options.to < options.from)
        return "the time range ends before it starts";
    return {};
}

int videoFrameCount(double from, double to, int fps) {
    if (!(to >= from) || fps < 1) return 0;
    return static_cast<int>(std::floor((to - from) * fps + kFrameTimeSlack)) + 1;
}

std::vector<ShownFrame> videoFrames(const engine::Model& model, const engine::Recording& recording,
                                    const VideoExportOptions& options) {
    std::vector<ShownFrame> frames;
    if (recording.size() == 0 || recording.size() <= recording.first()) return frames;
    const double start = recording.time(recording.first());
    const double end = recording.time(recording.size() - 1);
    const double from = std::max(options.from, start);
    const double to = options.to < 0.0 ? end : std::min(options.to, end);
    const int count = videoFrameCount(from, to, options.fps);
    frames.reserve(static_cast<std::size_t>(count));
    for (int k = 0; k < count; ++k)
        frames.push_back(shownFrameAt(model, recording, from + double(k) / options.fps));
    return frames;
}

VideoExportResult exportVideo(const engine::SceneSpec& spec, const std::vector<ShownFrame>& frames,
                              const VideoExportOptions& options,
                              const std::function<bool(int done, int total)>& progress) {
    const auto started = std::chrono::steady_clock::now();
    VideoExportResult result;
    auto fail = [&](const std::string& what) {
        result.outcome = VideoExportResult::Outcome::Failed;
        result.error = what;
        return result;
    };
    if (const std::string problem = videoOptionsProblem(options); !problem.empty())
        return fail(problem);
    if (frames.empty()) return fail("there is nothing recorded in the time range to show");

    OffscreenRenderer renderer;
    std::string error;
    if (!renderer.open(spec, options.width, options.height, error)) return fail(error);
    renderer.setCullMask(options.cullMask ? options.cullMask
                                          : kMaskParts | kMaskMarkers | kMaskJoints | kMaskGrid |
                                                kMaskAxes | kMaskContacts);
    if (options.camera) {
        renderer.setCamera(*options.camera);
    } else {
        engine::Vec3 toEye, up;
        standardViewDirection(options.view, toEye, up);
        renderer.setCamera(renderer.framingCamera(frames, toEye, up));
    }

    VideoEncoder encoder;
    if (!encoder.open(options.path, options.width, options.height, options.fps, error))
        return fail(error);
    result.codec = encoder.codecName();
    const int total = static_cast<int>(frames.size());
    for (int k = 0; k < total; ++k) {
        const std::uint8_t* pixels = renderer.render(frames[static_cast<std::size_t>(k)]);
        if (!pixels) {
            encoder.abandon();
            return fail("drawing the frame at t = " +
                        std::to_string(frames[static_cast<std::size_t>(k)].time) +
                        " s failed (OpenGL)");
        }
        if (!encoder.addFrame(pixels, error)) {
            encoder.abandon();
            return fail(error);
        }
        result.frames = k + 1;
        if (progress && !progress(k + 1, total)) {
            encoder.abandon();
            result.outcome = VideoExportResult::Outcome::Cancelled;
            return result;
        }
    }
    if (!encoder.finish(error)) return fail(error);
    result.outcome = VideoExportResult::Outcome::Written;
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

}  // namespace ui
