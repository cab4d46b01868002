#include "ui/render/video_encoder.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

#include "engine/io/durable_file.h"
#include "engine/io/output_file.h"

namespace ui {
namespace {

constexpr int kMaxSide = 8192;  // pixels

// FFmpeg's error code in words ("No space left on device", "Permission denied", ...).
std::string avError(int code) {
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(code, text, sizeof text);
    return text;
}

std::string lowerExtension(const std::string& path) {
    std::string extension = std::filesystem::path(path).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return extension;
}

// Syncs a closed file's data to the disk; false when it cannot (the disk is full or gone).
bool syncFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool synced = ::fsync(fd) == 0;
    return ::close(fd) == 0 && synced;
}

}  // namespace

std::optional<VideoContainer> videoContainerFor(const std::string& path) {
    const std::string extension = lowerExtension(path);
    if (extension == ".mp4") return VideoContainer::Mp4;
    if (extension == ".webm") return VideoContainer::WebM;
    return std::nullopt;
}

std::string videoSizeProblem(int width, int height) {
    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    if (width <= 0 || height <= 0) return "the picture size " + size + " is not positive";
    if (width > kMaxSide || height > kMaxSide)
        return "the picture size " + size + " is larger than " + std::to_string(kMaxSide) +
               " pixels on a side";
    if (width % 2 != 0 || height % 2 != 0)
        return "the picture size " + size +
               " has an odd side: the video's 4:2:0 colour needs an even width and height";
    return {};
}

struct VideoEncoder::Impl {
    std::string path, temporary;
    int width = 0, height = 0;
    int frames = 0;
    bool open = false;
    bool temporaryMade = false;  // made by open(), not yet handed to the encoder
    AVFormatContext* format = nullptr;
    AVCodecContext* codec = nullptr;
    AVStream* stream = nullptr;
    AVFrame* picture = nullptr;
    AVPacket* packet = nullptr;
    SwsContext* scaler = nullptr;

    ~Impl() {
        release();
        dropTemporary();
    }
    // An open() that fails leaves no temporary behind.
    void dropTemporary() {
        if (!temporaryMade) return;
        std::error_code ignored;
        std::filesystem::remove(temporary, ignored);
        temporaryMade = false;
    }

    // The temporary file beside where the video goes (`path`, or the file its link names):
    // only ever a regular file is replaced, and the temporary's name is made exclusively, so
    // two exports to one name never write into each other.
    bool makeTemporary(const std::string& path, std::string& error) {
        Impl& d = *this;
        // Where the finished video goes: the file a link names (the link stays a link), and only
        // ever a regular file (a video is written with seeks, and a device or FIFO named by mistake
        // is never replaced). The temporary beside it has a name of its own, made exclusively, so
        // two exports to one name never write into each other.
        std::error_code ec;
        std::filesystem::path target(path);
        if (std::filesystem::is_symlink(target, ec)) {
            const std::filesystem::path resolved = std::filesystem::weakly_canonical(target, ec);
            if (!ec) target = resolved;
        }
        const std::filesystem::file_status status = std::filesystem::status(target, ec);
        if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
            error = "'" + path + "' is " +
                    (std::filesystem::is_directory(status) ? "a folder"
                     : std::filesystem::is_fifo(status)    ? "a FIFO"
                                                           : "a device or special file") +
                    ", not a file: a video is written to a regular file";
            return false;
        }
        std::string pattern = target.string() + ".XXXXXX.partial";
        const int fd = ::mkstemps(pattern.data(), static_cast<int>(std::strlen(".partial")));
        if (fd < 0) {
            error =
                "cannot write the video file '" + path + "': " + engine::io::fileErrorText(errno);
            return false;
        }
        ::close(fd);
        d.path = target.string();
        d.temporary = pattern;
        d.temporaryMade = true;

        return true;
    }

    // The container (MP4 or WebM) and its encoder, the picture and the RGBA → YUV scaler, at
    // the size set; on failure everything is released and the temporary removed.
    bool startEncoder(bool mp4, int fps, std::string& error) {
        Impl& d = *this;
        // The container, named rather than guessed: the temporary file's name ends in .partial.
        int result = avformat_alloc_output_context2(&d.format, nullptr, mp4 ? "mp4" : "webm",
                                                    d.temporary.c_str());
        if (result < 0 || !d.format) {
            error = std::string("this FFmpeg cannot write ") + (mp4 ? "MP4" : "WebM") +
                    " files: " + avError(result);
            d.release();
            d.dropTemporary();
            return false;
        }
        // The encoder: the modern one of the container, else its older sibling.
        const AVCodec* encoder = avcodec_find_encoder(mp4 ? AV_CODEC_ID_H264 : AV_CODEC_ID_VP9);
        if (!encoder) encoder = avcodec_find_encoder(mp4 ? AV_CODEC_ID_MPEG4 : AV_CODEC_ID_VP8);
        if (!encoder) {
            error = std::string("no ") + (mp4 ? "H.264 or MPEG-4" : "VP9 or VP8") +
                    " encoder is installed (FFmpeg's libavcodec without " +
                    (mp4 ? "libx264" : "libvpx") + ")";
            d.release();
            d.dropTemporary();
            return false;
        }
        d.stream = avformat_new_stream(d.format, nullptr);
        d.codec = avcodec_alloc_context3(encoder);
        d.picture = av_frame_alloc();
        d.packet = av_packet_alloc();
        if (!d.stream || !d.codec || !d.picture || !d.packet) {
            error = "out of memory starting the video encoder";
            d.release();
            d.dropTemporary();
            return false;
        }
        d.codec->width = width;
        d.codec->height = height;
        d.codec->time_base = AVRational{1, fps};
        d.codec->framerate = AVRational{fps, 1};
        d.codec->pix_fmt = AV_PIX_FMT_YUV420P;
        d.codec->gop_size = 2 * fps;  // a key frame every 2 s: seeking stays quick
        // swscale's RGB → YUV is BT.601 with video range: say so, so players convert it back alike.
        d.codec->colorspace = AVCOL_SPC_SMPTE170M;
        d.codec->color_range = AVCOL_RANGE_MPEG;
        if (d.format->oformat->flags & AVFMT_GLOBALHEADER)
            d.codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
        // Quality: constant quality where the codec has it (sharp edges of parts on a flat
        // background cost little), a bit rate of about 0.15 bit per pixel otherwise.
        AVDictionary* options = nullptr;
        switch (encoder->id) {
        case AV_CODEC_ID_H264:
            av_dict_set(&options, "preset", "fast", 0);
            av_dict_set(&options, "crf", "20", 0);
            break;
        case AV_CODEC_ID_VP9:
            d.codec->bit_rate = 0;  // with crf: constant quality
            av_dict_set(&options, "crf", "32", 0);
            av_dict_set(&options, "deadline", "good", 0);
            av_dict_set(&options, "cpu-used", "5", 0);
            av_dict_set(&options, "row-mt", "1", 0);
            break;
        default:  // MPEG-4 part 2, VP8
            d.codec->bit_rate = std::max<std::int64_t>(
                400'000, static_cast<std::int64_t>(0.15 * width * height * fps));
            break;
        }
        result = avcodec_open2(d.codec, encoder, &options);
        av_dict_free(&options);
        if (result < 0) {
            error = "cannot start the " + std::string(encoder->name) + " encoder at " +
                    std::to_string(width) + "x" + std::to_string(height) + ": " + avError(result);
            d.release();
            d.dropTemporary();
            return false;
        }
        result = avcodec_parameters_from_context(d.stream->codecpar, d.codec);
        d.stream->time_base = d.codec->time_base;
        d.stream->avg_frame_rate = d.codec->framerate;
        if (result < 0) {
            error = "cannot set up the video stream: " + avError(result);
            d.release();
            d.dropTemporary();
            return false;
        }

        d.picture->format = d.codec->pix_fmt;
        d.picture->width = width;
        d.picture->height = height;
        if ((result = av_frame_get_buffer(d.picture, 0)) < 0) {
            error = "out of memory for a " + std::to_string(width) + "x" + std::to_string(height) +
                    " picture: " + avError(result);
            d.release();
            d.dropTemporary();
            return false;
        }
        d.scaler = sws_getContext(width, height, AV_PIX_FMT_RGBA, width, height, AV_PIX_FMT_YUV420P,
                                  SWS_BICUBIC, nullptr, nullptr, nullptr);
        if (!d.scaler) {
            error = "cannot convert RGBA pictures to YUV 4:2:0 at this size";
            d.release();
            d.dropTemporary();
            return false;
        }

        return true;
    }

    void release() {
        sws_freeContext(scaler);
        scaler = nullptr;
        av_packet_free(&packet);
        av_frame_free(&picture);
        avcodec_free_context(&codec);
        if (format) {
            if (format->pb) avio_closep(&format->pb);
            avformat_free_context(format);
            format = nullptr;
        }
        stream = nullptr;
    }

    // Sends `frame` (null: the end) and writes every packet the encoder has ready.
    bool encode(AVFrame* frame, std::string& error) {
        int result = avcodec_send_frame(codec, frame);
        if (result < 0) {
            error = "the " + std::string(codec->codec->name) +
                    " encoder refused a picture: " + avError(result);
            return false;
        }
        for (;;) {
            result = avcodec_receive_packet(codec, packet);
            if (result == AVERROR(EAGAIN) || result == AVERROR_EOF) return true;
            if (result < 0) {
                error = "the " + std::string(codec->codec->name) +
                        " encoder failed: " + avError(result);
                return false;
            }
            av_packet_rescale_ts(packet, codec->time_base, stream->time_base);
            packet->stream_index = stream->index;
            result = av_interleaved_write_frame(format, packet);  // takes the packet's data
            if (result < 0) {
                error = "cannot write the video file: " + avError(result);
                return false;
            }
        }
    }
};

VideoEncoder::VideoEncoder() : impl_(std::make_unique<Impl>()) {}

VideoEncoder::~VideoEncoder() {
    abandon();
}

void VideoEncoder::abandon() {
    const bool started = impl_->open;
    impl_->release();
    impl_->open = false;
    if (started) {
        std::error_code ignored;
        std::filesystem::remove(impl_->temporary, ignored);
    }
}

int VideoEncoder::frames() const {
    return impl_->frames;
}

std::string VideoEncoder::codecName() const {
    return impl_->codec && impl_->codec->codec ? impl_->codec->codec->name : "";
}

bool VideoEncoder::open(const std::string& path, int width, int height, int fps,
                        std::string& error) {
    abandon();
    Impl& d = *impl_;
    const std::optional<VideoContainer> container = videoContainerFor(path);
    if (!container) {
        const std::string extension = lowerExtension(path);
        error = (extension.empty() ? std::string("the file name has no extension")
                                   : "unknown video file extension '" + extension + "'") +
                ": expected .mp4 (H.264) or .webm (VP9)";
        return false;
    }
    if (const std::string problem = videoSizeProblem(width, height); !problem.empty()) {
        error = problem;
        return false;
    }
    if (fps < 1 || fps > 240) {
        error = "the frame rate " + std::to_string(fps) + " is not between 1 and 240 per second";
        return false;
    }
    av_log_set_level(AV_LOG_ERROR);  // the codecs' chatter stays out of the user's terminal
    if (!d.makeTemporary(path, error)) return false;
    d.width = width;
    d.height = height;
    d.frames = 0;
    const bool mp4 = *container == VideoContainer::Mp4;
    if (!d.startEncoder(mp4, fps, error)) return false;
    // The file: from here on, failing removes it.
    int result = avio_open(&d.format->pb, d.temporary.c_str(), AVIO_FLAG_WRITE);
    if (result < 0) {
        error = "cannot create the video file: " + avError(result);
        d.release();
        d.dropTemporary();
        return false;
    }
    d.open = true;
    d.temporaryMade = false;  // abandon() removes it from now on
    // MP4: the index goes before the pictures once they are all written, so that a player (or
    // a browser) starts playing before it has the whole file.
    AVDictionary* muxerOptions = nullptr;
    if (mp4) av_dict_set(&muxerOptions, "movflags", "+faststart", 0);
    result = avformat_write_header(d.format, &muxerOptions);
    av_dict_free(&muxerOptions);
    if (result < 0) {
        error = "cannot write the video file's header: " + avError(result);
        abandon();
        return false;
    }
    return true;
}

bool VideoEncoder::addFrame(const std::uint8_t* rgba, std::string& error) {
    Impl& d = *impl_;
    if (!d.open) {
        error = "the video file is not open";
        return false;
    }
    int result = av_frame_make_writable(d.picture);
    if (result < 0) {
        error = "out of memory for a picture: " + avError(result);
        return false;
    }
    // OpenGL's rows run bottom-up: start at the last row and step backwards.
    const int stride = 4 * d.width;
    const std::uint8_t* const source[1] = {rgba +
                                           static_cast<std::ptrdiff_t>(d.height - 1) * stride};
    const int sourceStride[1] = {-stride};
    sws_scale(d.scaler, source, sourceStride, 0, d.height, d.picture->data, d.picture->linesize);
    d.picture->pts = d.frames;
    if (!d.encode(d.picture, error)) return false;
    ++d.frames;
    return true;
}

bool VideoEncoder::finish(std::string& error) {
    Impl& d = *impl_;
    if (!d.open) {
        error = "the video file is not open";
        return false;
    }
    if (d.frames == 0) {
        error = "no picture was rendered";
        abandon();
        return false;
    }
    if (!d.encode(nullptr, error)) {
        abandon();
        return false;
    }
    int result = av_write_trailer(d.format);
    if (result < 0) {
        error = "cannot write the video file's trailer: " + avError(result);
        abandon();
        return false;
    }
    avio_flush(d.format->pb);
    const int ioError = d.format->pb->error;
    result = avio_closep(&d.format->pb);
    if (ioError < 0 || result < 0) {
        error = "cannot write the video file: " + avError(ioError < 0 ? ioError : result);
        abandon();
        return false;
    }
    if (!syncFile(d.temporary)) {
        error = "cannot write the video file: " + std::string(std::strerror(errno));
        abandon();
        return false;
    }
    std::error_code ec;
    if (struct stat before; ::stat(d.path.c_str(), &before) == 0)
        ::chmod(d.temporary.c_str(), before.st_mode & 07777);  // the replaced file's permissions
    std::filesystem::rename(d.temporary, d.path, ec);
    if (ec) {
        error = "cannot rename the finished video into place: " + ec.message();
        abandon();
        return false;
    }
    engine::io::syncDirectoryOf(d.path);
    d.open = false;  // the file is the target now: nothing to remove
    d.release();
    return true;
}

}  // namespace ui
