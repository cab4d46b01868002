#include "ui/viewport/viewport_widget.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <QCoreApplication>
#include <QCursor>
#include <QKeyEvent>
#include <QLabel>
#include <QLineF>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QSurfaceFormat>
#include <QWheelEvent>

#include <osg/ComputeBoundsVisitor>
#include <osg/FrameBufferObject>
#include <osg/GLObjects>
#include <osg/Notify>
#include <osg/Program>
#include <osg/Texture2D>
#include <osgGA/TrackballManipulator>
#include <osgUtil/IntersectionVisitor>
#include <osgUtil/LineSegmentIntersector>
#include <osgViewer/Viewer>

#include "engine/model/scene_spec.h"
#include "ui/viewport/ghost.h"
#include "ui/viewport/gizmo.h"
#include "ui/viewport/osg_convert.h"
#include "ui/viewport/scene_graph.h"
#include "ui/viewport/viewport_impl.h"

namespace ui {
namespace {

constexpr unsigned kDefaultCullMask =
    kMaskParts | kMaskMarkers | kMaskJoints | kMaskGrid | kMaskAxes | kMaskContacts | kMaskGizmo |
    kMaskFloor | kMaskSky | kMaskShadowPass | kMaskOutline | kMaskScreen | kMaskGhost;
// Opacity of parts drawn translucent.
constexpr float kTranslucentAlpha = 0.35f;

// Anti-aliasing: the scene is drawn into a texture, then onto the view through FXAA (fast
// approximate anti-aliasing, after Timothy Lottes): where the luminance of neighbouring
// pixels changes, the pixel is blended along the edge's direction. One pass over the
// pixels, about nine texture reads each, far cheaper than multisampling under software
// rendering.
const char* kScreenVertex = R"(#version 120
void main() { gl_Position = vec4(gl_Vertex.xy, 0.0, 1.0); }
)";
const char* kFxaaFragment = R"(#version 120
uniform sampler2D motus_frame;
uniform vec2 motus_texel;
void main() {
    vec2 uv = gl_FragCoord.xy * motus_texel;
    vec3 rgbNW = texture2D(motus_frame, uv + vec2(-1.0, -1.0) * motus_texel).rgb;
    vec3 rgbNE = texture2D(motus_frame, uv + vec2(1.0, -1.0) * motus_texel).rgb;
    vec3 rgbSW = texture2D(motus_frame, uv + vec2(-1.0, 1.0) * motus_texel).rgb;
    vec3 rgbSE = texture2D(motus_frame, uv + vec2(1.0, 1.0) * motus_texel).rgb;
    vec3 rgbM = texture2D(motus_frame, uv).rgb;
    vec3 toLuma = vec3(0.299, 0.587, 0.114);
    float lumaNW = dot(rgbNW, toLuma), lumaNE = dot(rgbNE, toLuma);
    float lumaSW = dot(rgbSW, toLuma), lumaSE = dot(rgbSE, toLuma);
    float lumaM = dot(rgbM, toLuma);
    float lumaMin = min(lumaM, min(min(lumaNW, lumaNE), min(lumaSW, lumaSE)));
    float lumaMax = max(lumaM, max(max(lumaNW, lumaNE), max(lumaSW, lumaSE)));
    if (lumaMax - lumaMin < max(0.04, 0.12 * lumaMax)) {
        gl_FragColor = vec4(rgbM, 1.0);
        return;
    }
    vec2 dir = vec2(-((lumaNW + lumaNE) - (lumaSW + lumaSE)), (lumaNW + lumaSW) - (lumaNE + lumaSE));
    float reduce = max((lumaNW + lumaNE + lumaSW + lumaSE) * (0.25 / 8.0), 1.0 / 128.0);
    float scale = 1.0 / (min(abs(dir.x), abs(dir.y)) + reduce);
    dir = clamp(dir * scale, vec2(-8.0), vec2(8.0)) * motus_texel;
    vec3 rgbA = 0.5 * (texture2D(motus_frame, uv + dir * (1.0 / 3.0 - 0.5)).rgb +
                       texture2D(motus_frame, uv + dir * (2.0 / 3.0 - 0.5)).rgb);
    vec3 rgbB = 0.5 * rgbA + 0.25 * (texture2D(motus_frame, uv - 0.5 * dir).rgb +
                                     texture2D(motus_frame, uv + 0.5 * dir).rgb);
    float lumaB = dot(rgbB, toLuma);
    gl_FragColor = vec4((lumaB < lumaMin || lumaB > lumaMax) ? rgbA : rgbB, 1.0);
}
)";
const osg::Vec4 kBackground = viewBackground();

int osgButton(Qt::MouseButton button) {
    switch (button) {
    case Qt::LeftButton:
        return 1;
    case Qt::MiddleButton:
        return 2;
    case Qt::RightButton:
        return 3;
    default:
        return 0;
    }
}

int osgKey(const QKeyEvent* event) {
    using K = osgGA::GUIEventAdapter::KeySymbol;
    switch (event->key()) {
    case Qt::Key_Escape:
        return K::KEY_Escape;
    case Qt::Key_Left:
        return K::KEY_Left;
    case Qt::Key_Right:
        return K::KEY_Right;
    case Qt::Key_Up:
        return K::KEY_Up;
    case Qt::Key_Down:
        return K::KEY_Down;
    case Qt::Key_Home:
        return K::KEY_Home;
    case Qt::Key_Space:
        return K::KEY_Space;
    case Qt::Key_Return:
        return K::KEY_Return;
    case Qt::Key_Shift:
        return K::KEY_Shift_L;
    case Qt::Key_Control:
        return K::KEY_Control_L;
    case Qt::Key_Alt:
        return K::KEY_Alt_L;
    default:
        return event->text().isEmpty() ? 0 : event->text().at(0).unicode();
    }
}

// Eye direction (from the target towards the eye) and up vector of each standard view; z up.
void viewDirection(ViewportWidget::StandardView view, osg::Vec3d& toEye, osg::Vec3d& up) {
    using V = ViewportWidget::StandardView;
    up = osg::Vec3d(0, 0, 1);
    switch (view) {
    case V::Isometric:
        toEye = osg::Vec3d(0.45, -1.0, 0.5);
        break;
    case V::Front:
        toEye = osg::Vec3d(0, -1, 0);
        break;
    case V::Back:
        toEye = osg::Vec3d(0, 1, 0);
        break;
    case V::Left:
        toEye = osg::Vec3d(-1, 0, 0);
        break;
    case V::Right:
        toEye = osg::Vec3d(1, 0, 0);
        break;
    case V::Top:
        toEye = osg::Vec3d(0, 0, 1);
        up = osg::Vec3d(0, 1, 0);
        break;
    case V::Bottom:
        toEye = osg::Vec3d(0, 0, -1);
        up = osg::Vec3d(0, 1, 0);
        break;
    }
    toEye.normalize();
}

}  // namespace

void ViewportWidget::configureDefaultSurfaceFormat(int samples) {
    if (samples < 0) {
        bool ok = false;
        samples = qEnvironmentVariableIntValue("MOTUS_GL_SAMPLES", &ok);
        if (!ok || samples < 0) samples = 0;  // the view anti-aliases with FXAA instead
    }
    QSurfaceFormat format;
    format.setRenderableType(QSurfaceFormat::OpenGL);
    format.setVersion(2, 1);
    format.setProfile(QSurfaceFormat::CompatibilityProfile);
    format.setDepthBufferSize(24);
    format.setStencilBufferSize(8);
    format.setSamples(samples);
    QSurfaceFormat::setDefaultFormat(format);
    QCoreApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
}

ViewportWidget::ViewportWidget(QWidget* parent)
    : QOpenGLWidget(parent), impl_(std::make_unique<Impl>()) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    setMinimumSize(200, 150);

    // OSG prints notices (e.g. on GL context re-creation) to stdout; keep warnings only
    // unless the user asked for more with OSG_NOTIFY_LEVEL.
    if (qEnvironmentVariableIsEmpty("OSG_NOTIFY_LEVEL")) osg::setNotifyLevel(osg::WARN);

    impl_->viewer = new osgViewer::Viewer;
    impl_->window = impl_->viewer->setUpViewerAsEmbeddedInWindow(0, 0, 640, 480);
    // The context is current only inside paintGL, and Esc or a window-close event must never
    // stop the viewer (frame() would silently do nothing afterwards).
    impl_->viewer->setThreadingModel(osgViewer::Viewer::SingleThreaded);
    impl_->viewer->setKeyEventSetsDone(0);
    impl_->viewer->setQuitEventSetsDone(false);
    impl_->viewer->getCamera()->setClearColor(kBackground);
    impl_->viewer->getCamera()->setCullMask(kDefaultCullMask);
    impl_->viewer->getCamera()->setSmallFeatureCullingPixelSize(-1.0f);

    impl_->manipulator = new osgGA::TrackballManipulator;
    impl_->manipulator->setAllowThrow(false);
    impl_->manipulator->setAutoComputeHomePosition(false);
    impl_->viewer->setCameraManipulator(impl_->manipulator, false);
    // The headlight follows the camera; a second, fixed light from above keeps faces that
    // look up (tops of parts, the ground) readable from every viewing direction.
    osg::Group* top = impl_->top.get();
    top->addChild(makeOverheadLight());
    top->addChild(impl_->root);
    top->addChild(impl_->gizmo.node());  // kept when the mechanism is rebuilt
    top->getOrCreateStateSet()->setMode(GL_LIGHT1, osg::StateAttribute::ON);

    // Anti-aliasing pass (see kFxaaFragment): a camera inside the view's own that draws the
    // scene into a texture the size of the view, with the view's matrices.
    impl_->frame = new osg::Texture2D;
    impl_->frame->setTextureSize(640, 480);
    impl_->frame->setInternalFormat(GL_RGBA);
    impl_->frame->setFilter(osg::Texture::MIN_FILTER, osg::Texture::LINEAR);
    impl_->frame->setFilter(osg::Texture::MAG_FILTER, osg::Texture::LINEAR);
    impl_->frame->setWrap(osg::Texture::WRAP_S, osg::Texture::CLAMP_TO_EDGE);
    impl_->frame->setWrap(osg::Texture::WRAP_T, osg::Texture::CLAMP_TO_EDGE);
    impl_->frameCamera = new osg::Camera;
    impl_->frameCamera->setName("anti-aliased frame");
    impl_->frameCamera->setRenderOrder(osg::Camera::PRE_RENDER);
    impl_->frameCamera->setReferenceFrame(osg::Transform::RELATIVE_RF);
    impl_->frameCamera->setRenderTargetImplementation(osg::Camera::FRAME_BUFFER_OBJECT);
    impl_->frameCamera->attach(osg::Camera::COLOR_BUFFER, impl_->frame.get());
    impl_->frameCamera->attach(osg::Camera::PACKED_DEPTH_STENCIL_BUFFER, GL_DEPTH24_STENCIL8_EXT);
    impl_->frameCamera->setClearMask(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT |
                                     GL_STENCIL_BUFFER_BIT);
    impl_->frameCamera->setClearColor(kBackground);
    impl_->frameCamera->setViewport(0, 0, 640, 480);
    impl_->frameCamera->addChild(top);
    {
        osg::ref_ptr<osg::Geometry> quad = new osg::Geometry;
        osg::ref_ptr<osg::Vec3Array> corners = new osg::Vec3Array;
        corners->push_back(osg::Vec3(-1.0f, -1.0f, 0.0f));
        corners->push_back(osg::Vec3(1.0f, -1.0f, 0.0f));
        corners->push_back(osg::Vec3(1.0f, 1.0f, 0.0f));
        corners->push_back(osg::Vec3(-1.0f, 1.0f, 0.0f));
        quad->setVertexArray(corners);
        quad->addPrimitiveSet(new osg::DrawArrays(GL_QUADS, 0, 4));
        // Placed by its shader: no bounds, so neither culled nor counted for near and far.
        struct Nowhere : osg::Drawable::ComputeBoundingBoxCallback {
            osg::BoundingBox computeBound(const osg::Drawable&) const override { return {}; }
        };
        quad->setComputeBoundingBoxCallback(new Nowhere);
        quad->setCullingActive(false);
        impl_->fxaaQuad = new osg::Geode;
        impl_->fxaaQuad->addDrawable(quad);
        impl_->fxaaQuad->setCullingActive(false);
        impl_->fxaaQuad->setNodeMask(kMaskScreen);
        osg::StateSet* state = impl_->fxaaQuad->getOrCreateStateSet();
        osg::ref_ptr<osg::Program> program = new osg::Program;
        program->addShader(new osg::Shader(osg::Shader::VERTEX, kScreenVertex));
        program->addShader(new osg::Shader(osg::Shader::FRAGMENT, kFxaaFragment));
        state->setAttribute(program);
        state->setTextureAttribute(0, impl_->frame.get());
        state->addUniform(new osg::Uniform("motus_frame", 0));
        impl_->texel = new osg::Uniform("motus_texel", osg::Vec2(1.0f / 640, 1.0f / 480));
        state->addUniform(impl_->texel);
        state->setMode(GL_DEPTH_TEST, osg::StateAttribute::OFF);
        state->setMode(GL_LIGHTING, osg::StateAttribute::OFF);
    }
    impl_->viewer->setSceneData(impl_->drawn);
    setAntiAliasing(defaultQuality().antiAliasing);
    impl_->antiAliasingChosen = qualityFromEnvironment();
    setShadowsEnabled(defaultQuality().shadows);
    impl_->gizmoLabel = new QLabel(this);
    impl_->gizmoLabel->setObjectName(QStringLiteral("GizmoAmount"));
    impl_->gizmoLabel->setStyleSheet(
        QStringLiteral("QLabel { background: rgba(20, 22, 26, 200); color: #f0f0f0; padding: 4px "
                       "8px; border-radius: 4px; }"));
    impl_->gizmoLabel->move(10, 10);
    impl_->gizmoLabel->hide();
    impl_->banner = new QLabel(this);
    impl_->banner->setObjectName(QStringLiteral("ViewBanner"));
    impl_->banner->setWordWrap(true);
    impl_->banner->setAttribute(Qt::WA_TransparentForMouseEvents);
    impl_->banner->setStyleSheet(
        QStringLiteral("QLabel { background: rgba(255, 243, 205, 235); color: #5c3b00; padding: "
                       "4px 8px; border-bottom: 2px solid #e0a800; }"));
    impl_->banner->hide();
    clearScene();
}

void ViewportWidget::setBanner(const QString& text) {
    impl_->banner->setText(text);
    impl_->banner->setVisible(!text.isEmpty());
    if (text.isEmpty()) return;
    impl_->banner->setFixedWidth(width());
    impl_->banner->setFixedHeight(impl_->banner->heightForWidth(width()));
    impl_->banner->move(0, 0);
    impl_->banner->raise();
}

QString ViewportWidget::banner() const {
    return impl_->banner->isHidden() ? QString() : impl_->banner->text();
}

ViewportWidget::~ViewportWidget() {
    // The base destructor would fire aboutToBeDestroyed after our members are gone.
    QObject::disconnect(impl_->contextConnection);
    releaseGlObjects();
}

void ViewportWidget::showScene(const engine::SceneSpec& spec, bool fit) {
    impl_->root->removeChildren(0, impl_->root->getNumChildren());
    impl_->scene = buildSceneGraph(spec);
    impl_->spec = spec;
    impl_->root->addChild(impl_->scene.root);
    impl_->ghost = buildGhost(impl_->scene);
    impl_->root->addChild(impl_->ghost.root);
    ui::setShadowsEnabled(impl_->scene, impl_->shadows);
    applyTranslucency();
    if (fit)
        fitToScene();
    else
        update();
}

void ViewportWidget::clearScene() {
    // An empty mechanism still has the grid and the world axes, one metre across.
    showScene(engine::SceneSpec{});
}

void ViewportWidget::setPartPoses(const std::vector<engine::Transform>& partPoses) {
    const auto& transforms = impl_->scene.partTransforms;
    const std::size_t n = std::min(transforms.size(), partPoses.size());
    for (std::size_t p = 0; p < n; ++p) transforms[p]->setMatrix(toOsg(partPoses[p]));
    updateSprings(impl_->scene, partPoses);
    updateCouplers(impl_->scene, partPoses);
    update();
}

void ViewportWidget::setGhostPoses(const std::vector<engine::Transform>& partPoses) {
    const bool wasShown = ghostShown(impl_->ghost);
    poseGhost(impl_->ghost, partPoses);
    if (wasShown || !partPoses.empty()) update();
}

bool ViewportWidget::ghostVisible() const {
    return ghostShown(impl_->ghost) &&
           (impl_->viewer->getCamera()->getCullMask() & kMaskGhost) != 0u;
}

void ViewportWidget::setGhostEnabled(bool on) {
    setMaskBit(kMaskGhost, on);
}

engine::Transform ViewportWidget::partPose(std::size_t part) const {
    const auto& transforms = impl_->scene.partTransforms;
    if (part >= transforms.size()) return {};
    const osg::Matrixd& m = transforms[part]->getMatrix();
    const osg::Quat q = m.getRotate();
    return {engine::Quat(q.w(), q.x(), q.y(), q.z()), fromOsg(m.getTrans())};
}

void ViewportWidget::setSelection(const std::vector<quint64>& entities) {
    impl_->selection = entities;
    std::vector<engine::EntityId> ids(entities.begin(), entities.end());
    setHighlighted(impl_->scene, impl_->spec, ids);
    update();
}

const std::vector<quint64>& ViewportWidget::selection() const {
    return impl_->selection;
}

void ViewportWidget::fitToScene() {
    setStandardView(impl_->view);
}

void ViewportWidget::setStandardView(StandardView view) {
    impl_->view = view;
    // Frame the sphere around the mechanism's bounding box (node bounding spheres of shape
    // drawables are loose and would leave the mechanism small in the view).
    osg::BoundingSphere bound;
    if (impl_->scene.mechanism) {
        osg::ComputeBoundsVisitor visitor;
        visitor.setTraversalMask(kMaskParts | kMaskJoints);  // marker triads size with the view
        impl_->scene.mechanism->accept(visitor);
        if (visitor.getBoundingBox().valid()) bound.expandBy(visitor.getBoundingBox());
    }
    // An empty scene frames a desktop-sized space above the origin (about a metre across), where
    // the first parts of a mechanism go.
    if (!bound.valid() || bound.radius() <= 0.0)
        bound = osg::BoundingSphere(osg::Vec3d(0.0, 0.0, 0.25), 0.55);

    // Distance at which the bounding sphere fills the narrower field of view, with a margin.
    double fovy = 30.0, aspect = 1.0, zNear = 1.0, zFar = 100.0;
    impl_->viewer->getCamera()->getProjectionMatrixAsPerspective(fovy, aspect, zNear, zFar);
    const double halfFov = 0.5 * osg::DegreesToRadians(fovy) * std::min(1.0, aspect);
    const double distance = 1.05 * bound.radius() / std::sin(halfFov);

    osg::Vec3d toEye, up;
    viewDirection(view, toEye, up);
    impl_->manipulator->setHomePosition(bound.center() + toEye * distance, bound.center(), up);
    impl_->manipulator->home(0.0);
    update();
}

void ViewportWidget::setMaskBit(unsigned bit, bool on) {
    osg::Camera* camera = impl_->viewer->getCamera();
    const unsigned mask = camera->getCullMask();
    camera->setCullMask(on ? (mask | bit) : (mask & ~bit));
    update();
}

void ViewportWidget::setCentresOfMassVisible(bool visible) {
    setMaskBit(kMaskCentreOfMass, visible);
}

void ViewportWidget::setContactForcesVisible(bool visible) {
    setMaskBit(kMaskContacts, visible);
}

void ViewportWidget::setContacts(const std::vector<engine::ContactForce>& contacts) {
    updateContactArrows(impl_->scene, contacts);
    update();
}

void ViewportWidget::setCouplerForces(const std::vector<double>& forces) {
    updateCouplerForces(impl_->scene, forces);
    update();
}

void ViewportWidget::setMarkersVisible(bool visible) {
    setMaskBit(kMaskMarkers, visible);
}
void ViewportWidget::setJointsVisible(bool visible) {
    setMaskBit(kMaskJoints, visible);
}
void ViewportWidget::setGridVisible(bool visible) {
    setMaskBit(kMaskGrid | kMaskAxes, visible);
}
void ViewportWidget::setFloorVisible(bool visible) {
    setMaskBit(kMaskFloor, visible);
}

ViewportWidget::Quality ViewportWidget::defaultQuality() {
    // MOTUS_VIEW_QUALITY: "high" (shadows and anti-aliasing), "low" (neither), or a comma
    // list of "shadows" and "aa".
    Quality quality;
    const QString value = qEnvironmentVariable("MOTUS_VIEW_QUALITY").trimmed().toLower();
    if (value.isEmpty() || value == QLatin1String("high")) return quality;
    const QStringList parts = value.split(QLatin1Char(','), Qt::SkipEmptyParts);
    quality.shadows = parts.contains(QLatin1String("shadows"));
    quality.antiAliasing = parts.contains(QLatin1String("aa"));
    return quality;
}

bool ViewportWidget::qualityFromEnvironment() {
    return !qEnvironmentVariableIsEmpty("MOTUS_VIEW_QUALITY");
}

void ViewportWidget::setShadowsEnabled(bool on) {
    impl_->shadows = on;
    ui::setShadowsEnabled(impl_->scene, on);
    update();
}

bool ViewportWidget::shadowsEnabled() const {
    return impl_->shadows;
}

void ViewportWidget::setAntiAliasing(bool on) {
    impl_->antiAliasingChosen = true;
    impl_->antiAliasing = on;
    impl_->drawn->removeChildren(0, impl_->drawn->getNumChildren());
    if (on) {
        impl_->drawn->addChild(impl_->frameCamera);
        impl_->drawn->addChild(impl_->fxaaQuad);
    } else {
        impl_->drawn->addChild(impl_->top);
    }
    update();
}

bool ViewportWidget::antiAliasing() const {
    return impl_->antiAliasing;
}

void ViewportWidget::setPartsTranslucent(bool on) {
    impl_->allTranslucent = on;
    applyTranslucency();
    update();
}

bool ViewportWidget::partsTranslucent() const {
    return impl_->allTranslucent;
}

void ViewportWidget::setPartTranslucent(quint64 part, bool on) {
    auto& parts = impl_->translucentParts;
    const auto id = static_cast<engine::EntityId>(part);
    const auto at = std::find(parts.begin(), parts.end(), id);
    if (on && at == parts.end()) parts.push_back(id);
    if (!on && at != parts.end()) parts.erase(at);
    applyTranslucency();
    update();
}

bool ViewportWidget::partTranslucent(quint64 part) const {
    const auto& parts = impl_->translucentParts;
    return std::find(parts.begin(), parts.end(), static_cast<engine::EntityId>(part)) !=
           parts.end();
}

void ViewportWidget::applyTranslucency() {
    for (std::size_t p = 0; p < impl_->spec.parts.size(); ++p) {
        const engine::Part& part = impl_->spec.parts[p];
        // A deactivated part is drawn where it stays, see-through: in the scene, out of the
        // model.
        const bool on =
            !part.ground && (impl_->allTranslucent || partTranslucent(part.id) || !part.active);
        ui::setTranslucent(impl_->scene, static_cast<int>(p), on ? kTranslucentAlpha : 1.0f);
    }
}

double ViewportWidget::cameraDistance() const {
    return impl_->manipulator->getDistance();
}

void ViewportWidget::cameraView(double eye[3], double centre[3], double up[3], double& fovyDeg,
                                unsigned& cullMask) const {
    // From the manipulator, which has the latest view even before the next paint.
    osg::Vec3d e, c, u;
    impl_->manipulator->getInverseMatrix().getLookAt(e, c, u, impl_->manipulator->getDistance());
    for (int k = 0; k < 3; ++k) {
        eye[k] = e[k];
        centre[k] = c[k];
        up[k] = u[k];
    }
    const osg::Camera* camera = impl_->viewer->getCamera();
    double aspect = 1.0, zNear = 0.01, zFar = 1000.0;
    fovyDeg = 30.0;
    camera->getProjectionMatrix().getPerspective(fovyDeg, aspect, zNear, zFar);
    cullMask = camera->getCullMask();
}
int ViewportWidget::frameCount() const {
    return impl_->frames;
}

void ViewportWidget::initializeGL() {
    // Qt re-creates the GL context when the widget moves to another top-level window. OSG's
    // cached GL objects then belong to a dead context: release them while it is still
    // current, and start the next context with a fresh GraphicsWindowEmbedded (new State).
    QObject::disconnect(impl_->contextConnection);
    impl_->contextConnection = connect(
        context(), &QOpenGLContext::aboutToBeDestroyed, this, [this] { releaseGlObjects(); },
        Qt::DirectConnection);
    if (impl_->contextLost) {
        const qreal dpr = devicePixelRatioF();
        impl_->window = impl_->viewer->setUpViewerAsEmbeddedInWindow(
            0, 0, static_cast<int>(width() * dpr), static_cast<int>(height() * dpr));
        impl_->viewer->getCamera()->setClearColor(kBackground);
        impl_->contextLost = false;
    }
    // Software rendering (Mesa's llvmpipe) pays for every pixel of the anti-aliasing pass: a
    // hundred-link chain with shadows keeps 30 frames per second there only without it. Unless
    // someone chose, it starts off there (View > Quality turns it on).
    if (!impl_->antiAliasingChosen) {
        const auto* name =
            reinterpret_cast<const char*>(context()->functions()->glGetString(GL_RENDERER));
        const QByteArray renderer = name ? QByteArray(name).toLower() : QByteArray();
        if (renderer.contains("llvmpipe") || renderer.contains("softpipe") ||
            renderer.contains("swrast")) {
            setAntiAliasing(false);
            impl_->antiAliasingChosen = false;
        }
    }
}

void ViewportWidget::releaseGlObjects() {
    if (impl_->contextLost || !impl_->window) return;
    makeCurrent();
    if (osg::State* state = impl_->window->getState()) {
        impl_->viewer->releaseGLObjects(state);
        osg::flushAllDeletedGLObjects(state->getContextID());
        osg::discardAllGLObjects(state->getContextID());
        state->reset();
    }
    doneCurrent();
    impl_->contextLost = true;
}

void ViewportWidget::resizeGL(int width, int height) {
    if (!impl_->banner->isHidden()) {
        impl_->banner->setFixedWidth(width);
        impl_->banner->setFixedHeight(impl_->banner->heightForWidth(width));
    }
    // Qt gives logical pixels; OSG works in device pixels (the ratio can be fractional).
    const qreal dpr = devicePixelRatioF();
    const int w = static_cast<int>(std::lround(width * dpr));
    const int h = static_cast<int>(std::lround(height * dpr));
    impl_->window->resized(0, 0, w, h);
    impl_->events()->windowResize(0, 0, w, h);
    osg::Camera* camera = impl_->viewer->getCamera();
    camera->setViewport(0, 0, w, h);
    camera->setProjectionMatrixAsPerspective(30.0, h > 0 ? double(w) / h : 1.0, 0.01, 1000.0);
    // The anti-aliasing pass draws into a texture of the view's size.
    if (w > 0 && h > 0 &&
        (impl_->frame->getTextureWidth() != w || impl_->frame->getTextureHeight() != h)) {
        impl_->frame->setTextureSize(w, h);
        impl_->frame->dirtyTextureObject();
        impl_->frameCamera->setViewport(0, 0, w, h);
        impl_->frameCamera->dirtyAttachmentMap();
        impl_->texel->set(osg::Vec2(1.0f / w, 1.0f / h));
    }
}

void ViewportWidget::paintGL() {
    const auto start = std::chrono::steady_clock::now();  // (the frame's drawing timed)
    // QOpenGLWidget renders into its own framebuffer object, whose id can change.
    impl_->window->setDefaultFboId(defaultFramebufferObject());
    updateGizmoScale();
    impl_->viewer->frame();
    ++impl_->frames;
    impl_->paintEnd = std::chrono::steady_clock::now();
    impl_->paintSeconds = std::chrono::duration<double>(impl_->paintEnd - start).count();
    impl_->paintTotal += impl_->paintSeconds;
    emit frameRendered();
}

double ViewportWidget::secondsBeforeNextFrame() const {
    if (impl_->frames == 0 || impl_->paintSeconds < impl_->slowFrameSeconds) return 0.0;
    const double since =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - impl_->paintEnd).count();
    return std::max(0.0, impl_->paintSeconds - since);
}

void ViewportWidget::setSlowFrameSeconds(double seconds) {
    impl_->slowFrameSeconds = seconds;
}

double ViewportWidget::drawingSeconds() const {
    return impl_->paintTotal;
}

// Mouse positions go to OSG in device pixels; OSG's y axis already points down like Qt's.
void ViewportWidget::mousePressEvent(QMouseEvent* event) {
    // A press on a handle of the manipulator drags it; the camera stays.
    GizmoHandle handle;
    if (event->button() == Qt::LeftButton && !impl_->gizmoDragging &&
        gizmoHandleAt(event->position(), handle)) {
        impl_->gizmoDragging = true;
        impl_->gizmoAmount = 0.0;
        impl_->gizmoEntry.clear();
        impl_->gizmo.begin(handle, impl_->ray(event->position(), devicePixelRatioF()));
        impl_->gizmo.setHighlight(handle);
        emit gizmoDragStarted(handle);
        showGizmoAmount();
        update();
        return;
    }
    if (impl_->gizmoDragging) return;  // other buttons wait for the drag to end
    if (event->button() == Qt::LeftButton) {
        impl_->pressPosition = event->position();
        impl_->leftPressed = true;
    }
    const QPointF p = event->position() * devicePixelRatioF();
    impl_->events()->mouseButtonPress(p.x(), p.y(), osgButton(event->button()));
    update();
}

void ViewportWidget::mouseReleaseEvent(QMouseEvent* event) {
    if (impl_->gizmoDragging) {
        if (event->button() == Qt::LeftButton) {
            gizmoMoved(event->position(), event->modifiers());
            finishGizmoDrag(true);
        }
        return;
    }
    const QPointF p = event->position() * devicePixelRatioF();
    impl_->events()->mouseButtonRelease(p.x(), p.y(), osgButton(event->button()));
    // A click (the pointer barely moved) picks; a drag turned the camera.
    if (event->button() == Qt::LeftButton && impl_->leftPressed) {
        impl_->leftPressed = false;
        if ((event->position() - impl_->pressPosition).manhattanLength() < 4.0) {
            emit entityClicked(entityAt(event->position()));
            emit pointClicked(pick(event->position()), event->modifiers());
        }
    }
    update();
}

void ViewportWidget::mouseDoubleClickEvent(QMouseEvent* event) {
    const QPointF p = event->position() * devicePixelRatioF();
    impl_->events()->mouseDoubleButtonPress(p.x(), p.y(), osgButton(event->button()));
    update();
}

void ViewportWidget::mouseMoveEvent(QMouseEvent* event) {
    if (impl_->gizmoDragging) {
        gizmoMoved(event->position(), event->modifiers());
        return;
    }
    if (impl_->gizmo.visible() && !(event->buttons() & Qt::LeftButton)) {
        // Hovering: the handle a press would take lights up.
        GizmoHandle handle;
        const bool over = gizmoHandleAt(event->position(), handle);
        impl_->gizmo.setHighlight(over ? std::optional<GizmoHandle>(handle) : std::nullopt);
        update();
        if (event->buttons() == Qt::NoButton) return;
    }
    const QPointF p = event->position() * devicePixelRatioF();
    impl_->events()->mouseMotion(p.x(), p.y());
    update();
}

void ViewportWidget::wheelEvent(QWheelEvent* event) {
    // Wheel away from the user zooms in (OSG's trackball zooms out on SCROLL_UP).
    if (event->angleDelta().y() == 0) return;
    impl_->events()->mouseScroll(event->angleDelta().y() > 0 ? osgGA::GUIEventAdapter::SCROLL_DOWN
                                                             : osgGA::GUIEventAdapter::SCROLL_UP);
    update();
}

bool ViewportWidget::event(QEvent* event) {
    // During a drag the keys are the amount typed: no shortcut takes them.
    if (event->type() == QEvent::ShortcutOverride && impl_->gizmoDragging) {
        event->accept();
        return true;
    }
    return QOpenGLWidget::event(event);
}

void ViewportWidget::keyPressEvent(QKeyEvent* event) {
    if (impl_->gizmoDragging) {
        const QString text = event->text();
        if (event->key() == Qt::Key_Escape) {
            finishGizmoDrag(false);
        } else if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) {
            finishGizmoDrag(true);
        } else if (event->key() == Qt::Key_Backspace) {
            impl_->gizmoEntry.chop(1);
            gizmoMoved(mapFromGlobal(QCursor::pos()), event->modifiers());
        } else if (text.size() == 1 && (text.at(0).isDigit() || text == QLatin1String(".") ||
                                        text == QLatin1String(",") || text == QLatin1String("-"))) {
            impl_->gizmoEntry += text == QLatin1String(",") ? QStringLiteral(".") : text;
            gizmoMoved(QPointF(), event->modifiers());
        }
        return;
    }
    if (const int key = osgKey(event)) impl_->events()->keyPress(key);
    update();
}

void ViewportWidget::keyReleaseEvent(QKeyEvent* event) {
    if (const int key = osgKey(event)) impl_->events()->keyRelease(key);
    update();
}

}  // namespace ui
