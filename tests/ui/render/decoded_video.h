#pragma once
// A video file decoded back with FFmpeg's libavformat and libavcodec, independently of the
// encoder under test: its container, codec, size, frame rate, and every picture's luma plane
// with its presentation time.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

namespace ui::testing {

struct DecodedVideo {
    bool opened = false;
    std::string container;  // libavformat's name, e.g. "mov,mp4,m4a,3gp,3g2,mj2"
    std::string codec;      // e.g. "h264", "vp9"
    int width = 0, height = 0;
    double frameRate = 0.0;                       // frames per second, as the stream states it
    std::vector<std::vector<std::uint8_t>> luma;  // per frame, width × height, top row first
    std::vector<double> times;                    // per frame, s
};

inline DecodedVideo decodeVideo(const std::string& path) {
    DecodedVideo video;
    AVFormatContext* format = nullptr;
    if (avformat_open_input(&format, path.c_str(), nullptr, nullptr) < 0) return video;
    const AVCodec* decoder = nullptr;
    const int index = avformat_find_stream_info(format, nullptr) >= 0
                          ? av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0)
                          : -1;
    AVCodecContext* codec = index >= 0 ? avcodec_alloc_context3(decoder) : nullptr;
    if (!codec || avcodec_parameters_to_context(codec, format->streams[index]->codecpar) < 0 ||
        avcodec_open2(codec, decoder, nullptr) < 0) {
        avcodec_free_context(&codec);
        avformat_close_input(&format);
        return video;
    }
    const AVStream* stream = format->streams[index];
    video.opened = true;
    video.container = format->iformat->name;
    video.codec = decoder->name;
    video.width = codec->width;
    video.height = codec->height;
    video.frameRate =
        av_q2d(stream->avg_frame_rate.num ? stream->avg_frame_rate : stream->r_frame_rate);
    AVPacket* packet = av_packet_alloc();
    AVFrame* frame = av_frame_alloc();
    auto drain = [&] {
        while (avcodec_receive_frame(codec, frame) == 0) {
            std::vector<std::uint8_t> plane(static_cast<std::size_t>(frame->width * frame->height));
            for (int y = 0; y < frame->height; ++y)
                std::copy_n(frame->data[0] + static_cast<std::ptrdiff_t>(y) * frame->linesize[0],
                            frame->width,
                            plane.begin() + static_cast<std::ptrdiff_t>(y) * frame->width);
            video.luma.push_back(std::move(plane));
            video.times.push_back(static_cast<double>(frame->best_effort_timestamp) *
                                  av_q2d(stream->time_base));
            av_frame_unref(frame);
        }
    };
    while (av_read_frame(format, packet) >= 0) {
        if (packet->stream_index == index && avcodec_send_packet(codec, packet) == 0) drain();
        av_packet_unref(packet);
    }
    avcodec_send_packet(codec, nullptr);  // flush the decoder's delayed pictures
    drain();
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&codec);
    avformat_close_input(&format);
    return video;
}

// Mean absolute difference of two luma planes (0–255).
inline double meanDifference(const std::vector<std::uint8_t>& a,
                             const std::vector<std::uint8_t>& b) {
    if (a.size() != b.size() || a.empty()) return 255.0;
    double sum = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) sum += std::abs(int(a[i]) - int(b[i]));
    return sum / static_cast<double>(a.size());
}

}  // namespace ui::testing
