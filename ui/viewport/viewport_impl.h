#pragma once
// The 3D view's state behind its pimpl (viewport_widget.h), shared by the files that
// implement it: viewport_widget.cpp (the viewer, the camera, drawing, the mouse) and
// viewport_picking.cpp (picking and the manipulator).

#include <chrono>
#include <vector>

#include <QLabel>
#include <QMetaObject>
#include <QPointF>
#include <QString>

#include <osg/Camera>
#include <osg/Geode>
#include <osg/Group>
#include <osg/Texture2D>
#include <osg/Uniform>
#include <osgGA/TrackballManipulator>
#include <osgViewer/Viewer>

#include "engine/model/scene_spec.h"
#include "ui/viewport/ghost.h"
#include "ui/viewport/gizmo.h"
#include "ui/viewport/scene_graph.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {

struct ViewportWidget::Impl {
    osg::ref_ptr<osgViewer::Viewer> viewer;
    osg::ref_ptr<osgViewer::GraphicsWindowEmbedded> window;
    osg::ref_ptr<osgGA::TrackballManipulator> manipulator;
    osg::ref_ptr<osg::Group> root = new osg::Group;
    // What the viewer draws: `top` (the mechanism's scene and the manipulator) directly, or,
    // with anti-aliasing, `frameCamera` drawing `top` into `frame` and a quad drawing `frame`
    // through FXAA. Children are swapped; the viewer's scene stays (setting it again would
    // send the camera home).
    osg::ref_ptr<osg::Group> drawn = new osg::Group;
    osg::ref_ptr<osg::Group> top = new osg::Group;
    osg::ref_ptr<osg::Camera> frameCamera;
    osg::ref_ptr<osg::Texture2D> frame;
    osg::ref_ptr<osg::Geode> fxaaQuad;
    osg::ref_ptr<osg::Uniform> texel;
    bool antiAliasing = true;
    bool antiAliasingChosen = false;  // by the user, a caller or $MOTUS_VIEW_QUALITY
    bool shadows = true;
    bool allTranslucent = false;
    std::vector<engine::EntityId> translucentParts;  // drawn translucent on their own
    SceneGraph scene;
    Ghost ghost;             // the previous run's parts
    engine::SceneSpec spec;  // what is shown (for highlighting)
    std::vector<quint64> selection;
    QPointF pressPosition;
    bool leftPressed = false;
    StandardView view = StandardView::Isometric;
    bool contextLost = false;
    QMetaObject::Connection contextConnection;
    int frames = 0;
    double paintSeconds = 0.0;  // the last frame's drawing
    double paintTotal = 0.0;    // every frame's
    double slowFrameSeconds = 0.2;
    std::chrono::steady_clock::time_point paintEnd;
    Gizmo gizmo;
    bool gizmoDragging = false;
    bool snapping = false, snapWorld = true;
    double snapStep = 0.01, snapAngle = osg::DegreesToRadians(15.0);
    double gizmoAmount = 0.0;  // m or rad, as last reported
    QString gizmoEntry;        // typed during the drag (mm or degrees)
    QLabel* gizmoLabel = nullptr;
    QLabel* banner = nullptr;  // setBanner()

    osgGA::EventQueue* events() { return window->getEventQueue(); }
    // The ray through a widget position (logical pixels), from the near plane away from the eye.
    Ray ray(const QPointF& position, qreal dpr) const {
        osg::Camera* camera = viewer->getCamera();
        const osg::Viewport* viewport = camera->getViewport();
        if (!viewport) return {};
        const double x = position.x() * dpr, y = viewport->height() - position.y() * dpr;
        const osg::Matrixd toWindow = camera->getViewMatrix() * camera->getProjectionMatrix() *
                                      viewport->computeWindowMatrix();
        const osg::Matrixd fromWindow = osg::Matrixd::inverse(toWindow);
        const osg::Vec3d nearPoint = osg::Vec3d(x, y, 0.0) * fromWindow,
                         farPoint = osg::Vec3d(x, y, 1.0) * fromWindow;
        osg::Vec3d direction = farPoint - nearPoint;
        direction.normalize();
        return {nearPoint, direction};
    }
};

}  // namespace ui
