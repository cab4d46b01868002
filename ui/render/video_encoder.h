#pragma once
// Video files from rendered pictures, through FFmpeg's libavcodec and libavformat: the
// container comes from the file's extension (.mp4: H.264, else MPEG-4 part 2 when no H.264
// encoder is installed; .webm: VP9, else VP8), 4:2:0 colour (so width and height are even),
// a constant frame rate with frame k shown at k / fps.
//
// The file is written next to the target as `<file>.partial` and renamed over it by finish()
// once the trailer is on the disk: a cancelled or failed export leaves no partial file, and an
// existing file of that name stays as it was until the new one is complete. No FFmpeg header
// leaves video_encoder.cpp.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace ui {

enum class VideoContainer { Mp4, WebM };

// The container a file name asks for (its extension, in any case); none for other names.
std::optional<VideoContainer> videoContainerFor(const std::string& path);

// Why a picture size cannot be encoded (empty when it can): both sides positive, even and at
// most 8192 pixels.
std::string videoSizeProblem(int width, int height);

class VideoEncoder {
public:
    VideoEncoder();
    VideoEncoder(const VideoEncoder&) = delete;
    VideoEncoder& operator=(const VideoEncoder&) = delete;
    ~VideoEncoder();  // an unfinished file is removed (the target is never touched)

    // Starts `path` for pictures of width × height pixels at `fps` frames per second. False
    // with the reason in `error` (unknown extension, odd size, no encoder, cannot create the
    // file); nothing is left on the disk then.
    bool open(const std::string& path, int width, int height, int fps, std::string& error);
    // The next picture: width × height pixels of 8-bit RGBA, rows from the bottom up (the order
    // OpenGL reads them in). False once a write failed (a full disk), with the reason.
    bool addFrame(const std::uint8_t* rgba, std::string& error);
    // Drains the encoder, writes the trailer, syncs and renames the file over the target.
    bool finish(std::string& error);
    // Stops and removes the partial file.
    void abandon();

    int frames() const;             // pictures added so far
    std::string codecName() const;  // e.g. "libx264", "libvpx-vp9" (after open)

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ui
