#include <cmath>

#include <QLineF>

#include <osgUtil/IntersectionVisitor>
#include <osgUtil/LineSegmentIntersector>

#include "ui/viewport/osg_convert.h"
#include "ui/viewport/viewport_impl.h"

// The 3D view's picking (what is under a point: entity, surface point and normal, snap
// targets) and its manipulator (the gizmo's handles, drags, typed amounts).

namespace ui {
namespace {

// The manipulator's arrows are this many logical pixels long, wherever it is.
constexpr double kGizmoPixels = 95.0;
// A press within this many pixels of a handle takes it.
constexpr double kGizmoReach = 8.0;

}  // namespace

quint64 ViewportWidget::entityAt(const QPointF& position) const {
    const qreal dpr = devicePixelRatioF();
    osg::Camera* camera = impl_->viewer->getCamera();
    const osg::Viewport* viewport = camera->getViewport();
    if (!viewport) return 0;
    // OSG's window coordinates start at the bottom left.
    const double x = position.x() * dpr, y = viewport->height() - position.y() * dpr;
    osg::ref_ptr<osgUtil::LineSegmentIntersector> picker =
        new osgUtil::LineSegmentIntersector(osgUtil::Intersector::WINDOW, x, y);
    osgUtil::IntersectionVisitor visitor(picker);
    visitor.setTraversalMask(camera->getCullMask() &
                             ~(kMaskGrid | kMaskAxes | kMaskContacts | kMaskGizmo | kMaskFloor |
                               kMaskSky | kMaskShadowPass | kMaskOutline | kMaskScreen));
    camera->accept(visitor);
    if (!picker->containsIntersections()) return 0;
    return entityOf(picker->getFirstIntersection().nodePath);
}

PickResult ViewportWidget::pick(const QPointF& position) const {
    PickResult result;
    osg::Camera* camera = impl_->viewer->getCamera();
    const osg::Viewport* viewport = camera->getViewport();
    if (!viewport) return result;
    auto setPoint = [&](const osg::Vec3d& p, const osg::Vec3d& n) {
        for (int k = 0; k < 3; ++k) {
            result.point[k] = p[k];
            result.normal[k] = n[k];
        }
    };
    // What lies under the pointer: a part's surface or a joint glyph.
    const qreal dpr = devicePixelRatioF();
    const double x = position.x() * dpr, y = viewport->height() - position.y() * dpr;
    osg::ref_ptr<osgUtil::LineSegmentIntersector> picker =
        new osgUtil::LineSegmentIntersector(osgUtil::Intersector::WINDOW, x, y);
    osgUtil::IntersectionVisitor visitor(picker);
    visitor.setTraversalMask(camera->getCullMask() & (kMaskParts | kMaskJoints));
    camera->accept(visitor);
    engine::EntityId under = engine::kNoEntity;
    bool underJoint = false;
    if (picker->containsIntersections()) {
        under = entityOf(picker->getFirstIntersection().nodePath);
        for (const engine::Joint& j : impl_->spec.joints) underJoint = underJoint || j.id == under;
        // A coupler's pitch point is a glyph as a joint's is (no surface to build on).
        for (const engine::CouplerSpec& c : impl_->spec.couplers)
            underJoint = underJoint || c.id == under;
    }
    // Markers first for the tools: they are thin lines, so the nearest origin within a few
    // pixels wins.
    if (camera->getCullMask() & kMaskMarkers) {
        double best = 8.0;
        for (std::size_t i = 0;
             i < impl_->spec.parts.size() && i < impl_->scene.partTransforms.size(); ++i) {
            const engine::Transform X_WP = partPose(i);
            for (const engine::Marker& marker : impl_->spec.parts[i].markers) {
                const engine::Vec3 p = X_WP * marker.X_PM.p;
                const double d = QLineF(project(p.x(), p.y(), p.z()), position).length();
                if (d < best) {
                    best = d;
                    result.kind = PickResult::Kind::Marker;
                    result.entity = marker.id;
                    const engine::Vec3 z = (X_WP.R * marker.X_PM.R) * engine::Vec3::UnitZ();
                    setPoint(toOsg(p), toOsg(z));
                }
            }
        }
        if (result.kind == PickResult::Kind::Marker) {
            result.selectable = underJoint ? under : result.entity;
            return result;
        }
    }
    // Then the couplers' pitch points: drawn over the gears, which hide them from a ray.
    {
        double best = 8.0;
        for (const CouplerGlyph& coupler : impl_->scene.couplers) {
            if (!coupler.pose.valid || !(camera->getCullMask() & kMaskJoints)) continue;
            const engine::Vec3& p = coupler.pose.pitch;
            const double d = QLineF(project(p.x(), p.y(), p.z()), position).length();
            if (d < best) {
                best = d;
                result.kind = PickResult::Kind::Joint;
                result.entity = result.selectable = coupler.id;
                setPoint(toOsg(p), toOsg(coupler.pose.out));
            }
        }
        if (result.kind == PickResult::Kind::Joint) return result;
    }
    result.selectable = under;
    if (under != engine::kNoEntity) {
        const auto& hit = picker->getFirstIntersection();
        result.kind = underJoint ? PickResult::Kind::Joint : PickResult::Kind::Part;
        result.entity = under;
        osg::Vec3d n = hit.getWorldIntersectNormal();
        n.normalize();
        setPoint(hit.getWorldIntersectPoint(), n);
        return result;
    }
    // The ray through the pixel, from the near to the far plane.
    const osg::Matrixd toWindow =
        camera->getViewMatrix() * camera->getProjectionMatrix() * viewport->computeWindowMatrix();
    const osg::Matrixd fromWindow = osg::Matrixd::inverse(toWindow);
    const osg::Vec3d nearPoint = osg::Vec3d(x, y, 0.0) * fromWindow,
                     farPoint = osg::Vec3d(x, y, 1.0) * fromWindow;
    osg::Vec3d direction = farPoint - nearPoint;
    direction.normalize();
    osg::Vec3d eye, centre, up;
    camera->getViewMatrixAsLookAt(eye, centre, up, impl_->manipulator->getDistance());
    // The ground plane, unless the view grazes it (then points on it run off to the horizon).
    if (std::abs(direction.z()) > 0.17) {
        const double t = -nearPoint.z() / direction.z();
        if (t > 0.0 && t < 50.0 * std::max(1.0, impl_->manipulator->getDistance())) {
            result.kind = PickResult::Kind::Ground;
            setPoint(nearPoint + direction * t,
                     osg::Vec3d(0.0, 0.0, nearPoint.z() > 0.0 ? 1.0 : -1.0));
            return result;
        }
    }
    // Empty space: on the plane through the view's centre, facing the camera.
    const osg::Vec3d focus = impl_->manipulator->getCenter();
    osg::Vec3d towardEye = eye - focus;
    towardEye.normalize();
    const double denominator = direction * towardEye;
    if (std::abs(denominator) < 1e-12) return result;
    const double t = ((focus - nearPoint) * towardEye) / denominator;
    result.kind = PickResult::Kind::Space;
    setPoint(nearPoint + direction * t, towardEye);
    return result;
}

QPointF ViewportWidget::project(double x, double y, double z) const {
    osg::Camera* camera = impl_->viewer->getCamera();
    const osg::Viewport* viewport = camera->getViewport();
    if (!viewport) return {};
    const osg::Matrixd toWindow =
        camera->getViewMatrix() * camera->getProjectionMatrix() * viewport->computeWindowMatrix();
    const osg::Vec3d w = osg::Vec3d(x, y, z) * toWindow;
    const qreal dpr = devicePixelRatioF();
    return {w.x() / dpr, (viewport->height() - w.y()) / dpr};
}

void ViewportWidget::showGizmo(const engine::Transform& X_WG) {
    impl_->gizmo.setFrame(toOsg(X_WG.p), toOsg(X_WG.R));
    if (!impl_->gizmo.visible()) {
        impl_->gizmo.setVisible(true);
        setMouseTracking(true);  // hovering lights up the handle a press would take
    }
    updateGizmoScale();
    update();
}

void ViewportWidget::hideGizmo() {
    if (impl_->gizmoDragging) finishGizmoDrag(false);
    impl_->gizmo.setVisible(false);
    impl_->gizmo.setHighlight(std::nullopt);
    setMouseTracking(false);
    update();
}

bool ViewportWidget::gizmoVisible() const {
    return impl_->gizmo.visible();
}

void ViewportWidget::setGizmoMode(GizmoMode mode) {
    if (impl_->gizmoDragging) finishGizmoDrag(false);
    impl_->gizmo.setMode(mode);
    update();
}

GizmoMode ViewportWidget::gizmoMode() const {
    return impl_->gizmo.mode();
}

void ViewportWidget::setGizmoSnapping(bool on, double step, double angleStep, bool worldAxes) {
    impl_->snapping = on;
    impl_->snapStep = step;
    impl_->snapAngle = angleStep;
    impl_->snapWorld = worldAxes;
}

bool ViewportWidget::gizmoDragging() const {
    return impl_->gizmoDragging;
}

QString ViewportWidget::gizmoEntry() const {
    return impl_->gizmoEntry;
}

void ViewportWidget::updateGizmoScale() const {
    // The world length of kGizmoPixels at the gizmo's distance from the eye.
    if (!impl_->gizmo.visible()) return;
    osg::Camera* camera = impl_->viewer->getCamera();
    const osg::Viewport* viewport = camera->getViewport();
    if (!viewport || viewport->height() <= 0) return;
    double fovy = 30.0, aspect = 1.0, zNear = 0.01, zFar = 1000.0;
    camera->getProjectionMatrixAsPerspective(fovy, aspect, zNear, zFar);
    const osg::Vec3d inView = impl_->gizmo.origin() * camera->getViewMatrix();
    const double depth = std::max(-inView.z(), 1e-6);
    const double perPixel =
        2.0 * depth * std::tan(0.5 * osg::DegreesToRadians(fovy)) / viewport->height();
    impl_->gizmo.setScale(kGizmoPixels * devicePixelRatioF() * perPixel);
}

QPointF ViewportWidget::gizmoHandlePoint(GizmoHandle handle, double along) const {
    updateGizmoScale();
    const std::vector<osg::Vec3d> points = impl_->gizmo.handlePolyline(handle);
    const double at = std::clamp(along, 0.0, 1.0) * (points.size() - 1);
    const std::size_t i = std::min(static_cast<std::size_t>(at), points.size() - 2);
    const osg::Vec3d p = points[i] + (points[i + 1] - points[i]) * (at - i);
    return project(p.x(), p.y(), p.z());
}

bool ViewportWidget::gizmoHandleAt(const QPointF& position, GizmoHandle& handle) const {
    if (!impl_->gizmo.visible()) return false;
    updateGizmoScale();
    double best = kGizmoReach;
    bool found = false;
    for (int axis = 0; axis < 3; ++axis) {
        const GizmoHandle candidate{impl_->gizmo.mode(), axis};
        const std::vector<osg::Vec3d> points = impl_->gizmo.handlePolyline(candidate);
        for (std::size_t i = 0; i + 1 < points.size(); ++i) {
            const QPointF a = project(points[i].x(), points[i].y(), points[i].z());
            const QPointF b = project(points[i + 1].x(), points[i + 1].y(), points[i + 1].z());
            const QPointF ab = b - a;
            const double length2 = QPointF::dotProduct(ab, ab);
            const double t =
                length2 > 0.0
                    ? std::clamp(QPointF::dotProduct(position - a, ab) / length2, 0.0, 1.0)
                    : 0.0;
            const double d = QLineF(a + ab * t, position).length();
            if (d < best) {
                best = d;
                handle = candidate;
                found = true;
            }
        }
    }
    return found;
}

void ViewportWidget::gizmoMoved(const QPointF& position, Qt::KeyboardModifiers modifiers) {
    const GizmoHandle& handle = impl_->gizmo.handle();
    if (!impl_->gizmoEntry.isEmpty()) {
        // Typed: millimetres or degrees, exactly.
        bool ok = false;
        const double typed = impl_->gizmoEntry.toDouble(&ok);
        impl_->gizmoAmount = !ok                                   ? 0.0
                             : handle.mode == GizmoMode::Translate ? typed * 1e-3
                                                                   : osg::DegreesToRadians(typed);
    } else {
        const auto raw = impl_->gizmo.amount(impl_->ray(position, devicePixelRatioF()));
        if (!raw) return;  // along the line of sight: the last amount stays
        const bool snap = impl_->snapping != bool(modifiers & Qt::ControlModifier);
        impl_->gizmoAmount =
            snap ? impl_->gizmo.snapped(*raw, impl_->snapStep, impl_->snapAngle, impl_->snapWorld)
                 : *raw;
    }
    emit gizmoDragged(impl_->gizmoAmount);
    showGizmoAmount();
    update();
}

void ViewportWidget::showGizmoAmount() {
    if (!impl_->gizmoDragging) {
        impl_->gizmoLabel->hide();
        return;
    }
    const GizmoHandle& handle = impl_->gizmo.handle();
    const char* axis = handle.axis == 0 ? "x" : handle.axis == 1 ? "y" : "z";
    const bool move = handle.mode == GizmoMode::Translate;
    QString value =
        impl_->gizmoEntry.isEmpty()
            ? (move ? tr("%1 mm").arg(impl_->gizmoAmount * 1e3, 0, 'f', 3)
                    : tr("%1°").arg(osg::RadiansToDegrees(impl_->gizmoAmount), 0, 'f', 2))
            : (move ? tr("%1▏ mm").arg(impl_->gizmoEntry) : tr("%1▏°").arg(impl_->gizmoEntry));
    impl_->gizmoLabel->setText((move ? tr("Move along %1: %2") : tr("Rotate about %1: %2"))
                                   .arg(QLatin1String(axis), value) +
                               tr("   (type an amount · Enter applies · Esc cancels)"));
    impl_->gizmoLabel->adjustSize();
    impl_->gizmoLabel->show();
}

void ViewportWidget::finishGizmoDrag(bool accepted) {
    if (!impl_->gizmoDragging) return;
    impl_->gizmoDragging = false;
    impl_->gizmoEntry.clear();
    impl_->gizmo.setHighlight(std::nullopt);
    impl_->leftPressed = false;
    showGizmoAmount();
    emit gizmoDragFinished(accepted);
    update();
}

}  // namespace ui
