#pragma once
// Pictures of a mechanism drawn off screen: the 3D view's scene graph (ui/viewport/scene_graph.h)
// in an OpenSceneGraph pbuffer, with the view's lighting and background, read back as RGBA.
// No Qt: motus-cli renders videos with it as the GUI does. OpenGL needs an X display (Xvfb
// will do: Mesa renders in software); everything happens on the thread that calls open().
// OpenSceneGraph stays out of this header.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/math/spatial.h"

namespace engine {
struct SceneSpec;
}

namespace ui {

struct ShownFrame;

// A perspective camera looking from `eye` at `centre` with `up` (world, m), as the 3D view's.
struct RenderCamera {
    engine::Vec3 eye = engine::Vec3(0.45, -1.0, 0.5);
    engine::Vec3 centre = engine::Vec3::Zero();
    engine::Vec3 up = engine::Vec3::UnitZ();
    double fovyDeg = 30.0;  // vertical field of view
};

// The standard viewing directions of the 3D view, by name: isometric, front, back, left,
// right, top, bottom. False for another name.
bool standardViewDirection(const std::string& name, engine::Vec3& toEye, engine::Vec3& up);

// Why nothing can be rendered off screen here (empty when DISPLAY names a display): the
// message says how to get one.
std::string offscreenDisplayProblem();

class OffscreenRenderer {
public:
    OffscreenRenderer();
    OffscreenRenderer(const OffscreenRenderer&) = delete;
    OffscreenRenderer& operator=(const OffscreenRenderer&) = delete;
    ~OffscreenRenderer();

    // Builds the scene graph of `spec` and an off-screen context of width × height pixels.
    // False with the reason (no display, no pbuffer) in `error`.
    bool open(const engine::SceneSpec& spec, int width, int height, std::string& error);

    // Which of the scene graph's node kinds are drawn (ui::NodeMask bits; by default parts,
    // markers, joints, grid, world axes and contact forces, as the 3D view starts).
    void setCullMask(unsigned mask);
    void setCamera(const RenderCamera& camera);
    // A camera looking along the standard view `toEye` that keeps the mechanism in the picture
    // in every one of `frames` (the box around all its poses, with a margin).
    RenderCamera framingCamera(const std::vector<ShownFrame>& frames, const engine::Vec3& toEye,
                               const engine::Vec3& up);

    // Draws the mechanism posed at `frame`: width × height RGBA pixels, rows bottom-up, valid
    // until the next call. Null if drawing failed.
    const std::uint8_t* render(const ShownFrame& frame);

    int width() const;
    int height() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ui
