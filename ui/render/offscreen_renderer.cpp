#include "ui/render/offscreen_renderer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <osg/ComputeBoundsVisitor>
#include <osg/GraphicsContext>
#include <osg/Image>
#include <osg/Notify>
#include <osgViewer/Viewer>

#include "engine/model/scene_spec.h"
#include "ui/render/shown_frame.h"
#include "ui/viewport/osg_convert.h"
#include "ui/viewport/scene_graph.h"

namespace ui {
namespace {

// As the 3D view starts: everything but the centres of mass and the manipulator.
constexpr unsigned kDefaultCullMask =
    kMaskParts | kMaskMarkers | kMaskJoints | kMaskGrid | kMaskAxes | kMaskContacts;
// Frames looked at when framing a long run: the box around this many poses, evenly spread.
constexpr std::size_t kFramingSamples = 400;

}  // namespace

bool standardViewDirection(const std::string& name, engine::Vec3& toEye, engine::Vec3& up) {
    // The 3D view's standard views (ViewportWidget::StandardView); z up.
    up = engine::Vec3::UnitZ();
    if (name == "isometric")
        toEye = engine::Vec3(0.45, -1.0, 0.5);
    else if (name == "front")
        toEye = engine::Vec3(0, -1, 0);
    else if (name == "back")
        toEye = engine::Vec3(0, 1, 0);
    else if (name == "left")
        toEye = engine::Vec3(-1, 0, 0);
    else if (name == "right")
        toEye = engine::Vec3(1, 0, 0);
    else if (name == "top" || name == "bottom") {
        toEye = engine::Vec3(0, 0, name == "top" ? 1 : -1);
        up = engine::Vec3::UnitY();
    } else {
        return false;
    }
    toEye.normalize();
    return true;
}

std::string offscreenDisplayProblem() {
    const char* display = std::getenv("DISPLAY");
    if (display && *display) return {};
    return "drawing off screen needs an X display and DISPLAY is not set (xvfb-run provides one, "
           "rendering in software)";
}

struct OffscreenRenderer::Impl {
    int width = 0, height = 0;
    SceneGraph scene;
    osg::ref_ptr<osgViewer::Viewer> viewer;
    osg::ref_ptr<osg::Image> image;
    RenderCamera camera;
};

OffscreenRenderer::OffscreenRenderer() : impl_(std::make_unique<Impl>()) {}
OffscreenRenderer::~OffscreenRenderer() = default;

int OffscreenRenderer::width() const {
    return impl_->width;
}
int OffscreenRenderer::height() const {
    return impl_->height;
}

bool OffscreenRenderer::open(const engine::SceneSpec& spec, int width, int height,
                             std::string& error) {
    if (const std::string problem = offscreenDisplayProblem(); !problem.empty()) {
        error = problem;
        return false;
    }
    // OSG prints notices to stdout; warnings only unless the user asked for more.
    if (!std::getenv("OSG_NOTIFY_LEVEL")) osg::setNotifyLevel(osg::WARN);
    Impl& d = *impl_;
    d.width = width;
    d.height = height;

    // A pbuffer of the picture's size on $DISPLAY: single-buffered, 8-bit RGBA, 24-bit depth.
    osg::ref_ptr<osg::GraphicsContext::Traits> traits = new osg::GraphicsContext::Traits;
    traits->readDISPLAY();  // the Traits would otherwise assume :0
    traits->x = 0;
    traits->y = 0;
    traits->width = width;
    traits->height = height;
    traits->red = traits->green = traits->blue = traits->alpha = 8;
    traits->depth = 24;
    traits->windowDecoration = false;
    traits->doubleBuffer = false;
    traits->pbuffer = true;
    traits->sharedContext = nullptr;
    osg::ref_ptr<osg::GraphicsContext> context =
        osg::GraphicsContext::createGraphicsContext(traits.get());
    if (!context || !context->valid()) {
        error = "cannot create an off-screen OpenGL context of " + std::to_string(width) + "x" +
                std::to_string(height) + " pixels on display '" +
                std::string(std::getenv("DISPLAY")) +
                "' (is the X server running? xvfb-run provides one)";
        return false;
    }

    d.viewer = new osgViewer::Viewer;
    d.viewer->setThreadingModel(osgViewer::Viewer::SingleThreaded);
    d.viewer->setKeyEventSetsDone(0);
    d.viewer->setQuitEventSetsDone(false);
    osg::Camera* camera = d.viewer->getCamera();
    camera->setGraphicsContext(context.get());
    camera->setViewport(0, 0, width, height);
    camera->setClearColor(viewBackground());
    camera->setCullMask(kDefaultCullMask);
    camera->setSmallFeatureCullingPixelSize(-1.0f);
    camera->setDrawBuffer(GL_FRONT);
    camera->setReadBuffer(GL_FRONT);
    // The pixels come back into this image after every frame (glReadPixels).
    d.image = new osg::Image;
    d.image->allocateImage(width, height, 1, GL_RGBA, GL_UNSIGNED_BYTE);
    camera->attach(osg::Camera::COLOR_BUFFER, d.image.get());

    // The 3D view's lights: the viewer's headlight, and the fixed light from above.
    d.scene = buildSceneGraph(spec);
    osg::ref_ptr<osg::Group> top = new osg::Group;
    top->addChild(makeOverheadLight());
    top->addChild(d.scene.root);
    top->getOrCreateStateSet()->setMode(GL_LIGHT1, osg::StateAttribute::ON);
    d.viewer->setSceneData(top);
    d.viewer->realize();
    if (!d.viewer->isRealized()) {
        error = "cannot start OpenGL in the off-screen context";
        d.viewer = nullptr;
        return false;
    }
    setCamera(d.camera);
    return true;
}

void OffscreenRenderer::setCullMask(unsigned mask) {
    if (impl_->viewer) impl_->viewer->getCamera()->setCullMask(mask);
}

void OffscreenRenderer::setCamera(const RenderCamera& view) {
    impl_->camera = view;
    if (!impl_->viewer) return;
    osg::Camera* camera = impl_->viewer->getCamera();
    const double aspect = impl_->height > 0 ? double(impl_->width) / impl_->height : 1.0;
    camera->setProjectionMatrixAsPerspective(view.fovyDeg, aspect, 0.01, 1000.0);
    camera->setViewMatrixAsLookAt(toOsg(view.eye), toOsg(view.centre), toOsg(view.up));
}

RenderCamera OffscreenRenderer::framingCamera(const std::vector<ShownFrame>& frames,
                                              const engine::Vec3& toEye, const engine::Vec3& up) {
    // The box around the mechanism in (a sample of) the frames.
    osg::BoundingBox box;
    const std::size_t stride = std::max<std::size_t>(1, frames.size() / kFramingSamples);
    for (std::size_t k = 0; k < frames.size(); k += stride) {
        poseSceneGraph(impl_->scene, frames[k]);
        osg::ComputeBoundsVisitor visitor;
        impl_->scene.mechanism->accept(visitor);
        box.expandBy(visitor.getBoundingBox());
    }
    if (!frames.empty()) {
        poseSceneGraph(impl_->scene, frames.back());
        osg::ComputeBoundsVisitor visitor;
        impl_->scene.mechanism->accept(visitor);
        box.expandBy(visitor.getBoundingBox());
    }
    osg::BoundingSphere bound;
    if (box.valid()) bound.expandBy(box);
    // An empty mechanism: the space about a metre across above the origin, as the 3D view.
    if (!bound.valid() || bound.radius() <= 0.0)
        bound = osg::BoundingSphere(osg::Vec3d(0.0, 0.0, 0.25), 0.55);

    // The distance at which the sphere fills the narrower field of view, with a margin (the
    // 3D view's fit).
    RenderCamera camera;
    const double aspect = impl_->height > 0 ? double(impl_->width) / impl_->height : 1.0;
    const double halfFov = 0.5 * osg::DegreesToRadians(camera.fovyDeg) * std::min(1.0, aspect);
    const double distance = 1.05 * bound.radius() / std::sin(halfFov);
    camera.centre = fromOsg(bound.center());
    camera.eye = camera.centre + toEye.normalized() * distance;
    camera.up = up;
    return camera;
}

const std::uint8_t* OffscreenRenderer::render(const ShownFrame& frame) {
    Impl& d = *impl_;
    if (!d.viewer) return nullptr;
    poseSceneGraph(d.scene, frame);
    setCamera(d.camera);
    d.viewer->frame(frame.time);
    return d.image->data();
}

}  // namespace ui
