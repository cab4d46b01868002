#pragma once
// Exporting a recorded run as a video file (File ▸ Export Video… and `motus-cli render`):
// pictures rendered off screen from the recording (ui/render/offscreen_renderer.h), encoded
// by FFmpeg (ui/render/video_encoder.h).
//
// Frame times: the video's frame k shows the run at t = from + k / fps, for every such t up
// to and including `to` (1 µs of slack for rounding). A 2 s run at 30 fps therefore gives 61
// frames, the first at t = 0 and the last at t = 2 s: both ends of the run are in the video,
// which plays for 61 / 30 s. Poses between recorded frames are interpolated
// (ui/render/shown_frame.h).
//
// The export runs on the calling thread, which owns its OpenGL context from start to end;
// `progress` is called after each frame and stops the export when it returns false. A
// cancelled or failed export leaves no file behind and an existing file of the target's name
// as it was.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ui/render/offscreen_renderer.h"
#include "ui/render/shown_frame.h"

namespace engine {
struct Model;
struct SceneSpec;
class Recording;
}  // namespace engine

namespace ui {

struct VideoExportOptions {
    std::string path;                // .mp4 or .webm
    int width = 1280, height = 720;  // pixels, even
    int fps = 30;
    double from = 0.0;  // s
    double to = -1.0;   // s; negative: the end of the recording
    // The camera; none: the standard view `view` framing the mechanism over the whole export.
    std::optional<RenderCamera> camera;
    std::string view = "isometric";
    unsigned cullMask = 0;  // the node kinds drawn (ui::NodeMask); 0: as the 3D view starts
};

// Why the options cannot be used (empty when they can): the file's extension, an odd or
// out-of-range size, the frame rate, the view's name, a reversed time range. Needs no display.
std::string videoOptionsProblem(const VideoExportOptions& options);

// Frames of a video at `fps` from `from` to `to` (see the convention above); 0 for an
// empty range.
int videoFrameCount(double from, double to, int fps);

// The recorded run's frames the video shows (the range clamped to the recording's first and
// last held frames, `to` < 0 meaning the end). Empty when nothing is recorded.
std::vector<ShownFrame> videoFrames(const engine::Model& model, const engine::Recording& recording,
                                    const VideoExportOptions& options);

struct VideoExportResult {
    enum class Outcome { Written, Cancelled, Failed };
    Outcome outcome = Outcome::Failed;
    std::string error;     // Failed: what went wrong, naming the file
    int frames = 0;        // pictures encoded
    std::string codec;     // the encoder used, e.g. "libx264"
    double seconds = 0.0;  // wall-clock time taken
};

// Renders `frames` of the mechanism `spec` and writes them to options.path.
VideoExportResult exportVideo(const engine::SceneSpec& spec, const std::vector<ShownFrame>& frames,
                              const VideoExportOptions& options,
                              const std::function<bool(int done, int total)>& progress = {});

}  // namespace ui
