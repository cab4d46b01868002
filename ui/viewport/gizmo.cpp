#include "ui/viewport/gizmo.h"

#include <cmath>

#include <osg/Depth>
#include <osg/Geode>
#include <osg/Geometry>
#include <osg/LineWidth>

#include "ui/viewport/scene_graph.h"

namespace ui {
namespace {

constexpr int kRingSegments = 72;
constexpr double kShaftStart = 0.12, kShaftEnd = 0.84, kConeRadius = 0.055, kRingRadius = 0.85;

const osg::Vec4 kAxisColours[3] = {
    {0.92f, 0.26f, 0.24f, 1.0f}, {0.35f, 0.80f, 0.30f, 1.0f}, {0.30f, 0.52f, 0.98f, 1.0f}};
const osg::Vec4 kHighlight(1.0f, 0.86f, 0.25f, 1.0f);

osg::Vec3d unit(int k) {
    return {k == 0 ? 1.0 : 0.0, k == 1 ? 1.0 : 0.0, k == 2 ? 1.0 : 0.0};
}

// Two unit vectors completing `a` to a right-handed frame.
void perpendiculars(const osg::Vec3d& a, osg::Vec3d& u, osg::Vec3d& v) {
    u = std::abs(a.x()) < 0.9 ? osg::Vec3d(1, 0, 0) ^ a : osg::Vec3d(0, 1, 0) ^ a;
    u.normalize();
    v = a ^ u;
}

osg::ref_ptr<osg::Geode> lines(const std::vector<osg::Vec3d>& points, GLenum mode,
                               const osg::Vec4& colour) {
    osg::ref_ptr<osg::Vec3Array> vertices = new osg::Vec3Array;
    for (const osg::Vec3d& p : points) vertices->push_back(osg::Vec3(p));
    osg::ref_ptr<osg::Vec4Array> colours = new osg::Vec4Array;
    colours->push_back(colour);
    osg::ref_ptr<osg::Geometry> geometry = new osg::Geometry;
    geometry->setVertexArray(vertices);
    geometry->setColorArray(colours, osg::Array::BIND_OVERALL);
    geometry->addPrimitiveSet(new osg::DrawArrays(mode, 0, static_cast<GLsizei>(vertices->size())));
    osg::ref_ptr<osg::Geode> geode = new osg::Geode;
    geode->addDrawable(geometry);
    return geode;
}

}  // namespace

Gizmo::Gizmo()
    : transform_(new osg::MatrixTransform), arrows_(new osg::Group), rings_(new osg::Group) {
    transform_->addChild(arrows_);
    transform_->addChild(rings_);
    // On top of the mechanism, unlit, thick lines.
    osg::StateSet* state = transform_->getOrCreateStateSet();
    state->setMode(GL_LIGHTING, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
    state->setMode(GL_DEPTH_TEST, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
    state->setAttributeAndModes(new osg::Depth(osg::Depth::ALWAYS, 0.0, 1.0, false));
    state->setAttributeAndModes(new osg::LineWidth(3.0f));
    state->setRenderBinDetails(1000, "RenderBin");
    transform_->setNodeMask(0);
    rebuild();
}

void Gizmo::rebuild() {
    arrows_->removeChildren(0, arrows_->getNumChildren());
    rings_->removeChildren(0, rings_->getNumChildren());
    for (int k = 0; k < 3; ++k) {
        auto colour = [&](GizmoMode mode) {
            return highlight_ && highlight_->mode == mode && highlight_->axis == k
                       ? kHighlight
                       : kAxisColours[k];
        };
        const osg::Vec3d a = unit(k);
        osg::Vec3d u, v;
        perpendiculars(a, u, v);
        arrows_->addChild(
            lines({a * kShaftStart, a * kShaftEnd}, GL_LINES, colour(GizmoMode::Translate)));
        std::vector<osg::Vec3d> cone{a * 1.0};
        for (int i = 0; i <= 16; ++i) {
            const double phi = 2.0 * osg::PI * i / 16;
            cone.push_back(a * kShaftEnd + (u * std::cos(phi) + v * std::sin(phi)) * kConeRadius);
        }
        arrows_->addChild(lines(cone, GL_TRIANGLE_FAN, colour(GizmoMode::Translate)));
        std::vector<osg::Vec3d> ring;
        for (int i = 0; i < kRingSegments; ++i) {
            const double phi = 2.0 * osg::PI * i / kRingSegments;
            ring.push_back((u * std::cos(phi) + v * std::sin(phi)) * kRingRadius);
        }
        rings_->addChild(lines(ring, GL_LINE_LOOP, colour(GizmoMode::Rotate)));
    }
    arrows_->setNodeMask(mode_ == GizmoMode::Translate ? ~0u : 0u);
    rings_->setNodeMask(mode_ == GizmoMode::Rotate ? ~0u : 0u);
}

void Gizmo::setFrame(const osg::Vec3d& origin, const osg::Quat& rotation) {
    origin_ = origin;
    rotation_ = rotation;
    transform_->setMatrix(osg::Matrixd::scale(scale_, scale_, scale_) *
                          osg::Matrixd::rotate(rotation_) * osg::Matrixd::translate(origin_));
}

void Gizmo::setScale(double worldUnit) {
    scale_ = worldUnit;
    setFrame(origin_, rotation_);
}

void Gizmo::setMode(GizmoMode mode) {
    if (mode == mode_) return;
    mode_ = mode;
    rebuild();
}

void Gizmo::setVisible(bool visible) {
    visible_ = visible;
    transform_->setNodeMask(visible ? kMaskGizmo : 0u);
}

void Gizmo::setHighlight(std::optional<GizmoHandle> handle) {
    const bool same =
        handle.has_value() == highlight_.has_value() &&
        (!handle || (handle->mode == highlight_->mode && handle->axis == highlight_->axis));
    if (same) return;
    highlight_ = handle;
    rebuild();
}

osg::Vec3d Gizmo::axis(int k) const {
    return rotation_ * unit(k);
}

std::vector<osg::Vec3d> Gizmo::handlePolyline(const GizmoHandle& handle) const {
    std::vector<osg::Vec3d> points;
    const osg::Vec3d a = axis(handle.axis);
    if (handle.mode == GizmoMode::Translate) {
        for (int i = 0; i <= 8; ++i)
            points.push_back(origin_ +
                             a * (scale_ * (kShaftStart + (1.0 - kShaftStart) * i / 8.0)));
        return points;
    }
    osg::Vec3d u, v;
    perpendiculars(unit(handle.axis), u, v);
    u = rotation_ * u;
    v = rotation_ * v;
    for (int i = 0; i <= kRingSegments; ++i) {
        const double phi = 2.0 * osg::PI * i / kRingSegments;
        points.push_back(origin_ +
                         (u * std::cos(phi) + v * std::sin(phi)) * (scale_ * kRingRadius));
    }
    return points;
}

std::optional<double> Gizmo::axisParameter(const Ray& ray) const {
    // The point o + s a nearest the ray p + t d (both lines): s = (b e − c d') / (a c − b²)
    // with the usual dot products; parallel lines have none.
    const osg::Vec3d w = dragOrigin_ - ray.origin;
    const double b = dragAxis_ * ray.direction, d = dragAxis_ * w, e = ray.direction * w;
    const double denominator = 1.0 - b * b;
    if (denominator < 1e-4) return std::nullopt;  // within about half a degree of parallel
    return (b * e - d) / denominator;
}

std::optional<osg::Vec3d> Gizmo::onRingPlane(const Ray& ray) const {
    const double denominator = ray.direction * dragAxis_;
    if (std::abs(denominator) < 0.02) return std::nullopt;  // the ring seen edge-on
    const double t = ((dragOrigin_ - ray.origin) * dragAxis_) / denominator;
    osg::Vec3d radial = ray.origin + ray.direction * t - dragOrigin_;
    radial -= dragAxis_ * (radial * dragAxis_);
    if (radial.length() < 1e-12) return std::nullopt;
    radial.normalize();
    return radial;
}

void Gizmo::begin(const GizmoHandle& handle, const Ray& ray) {
    handle_ = handle;
    dragOrigin_ = origin_;
    dragAxis_ = axis(handle.axis);
    angle_ = 0.0;
    startParameter_ = axisParameter(ray).value_or(0.0);
    lastRadial_ = onRingPlane(ray).value_or(osg::Vec3d());
}

std::optional<double> Gizmo::amount(const Ray& ray) {
    if (handle_.mode == GizmoMode::Translate) {
        const auto s = axisParameter(ray);
        if (!s) return std::nullopt;
        return *s - startParameter_;
    }
    const auto radial = onRingPlane(ray);
    if (!radial) return std::nullopt;
    if (lastRadial_.length2() == 0.0) {
        lastRadial_ = *radial;
        return angle_;
    }
    // Unwound: the increments since the last event add up, past ±180° too.
    angle_ += std::atan2(dragAxis_ * (lastRadial_ ^ *radial), lastRadial_ * *radial);
    lastRadial_ = *radial;
    return angle_;
}

double Gizmo::snapped(double amount, double step, double angleStep, bool worldAxes) const {
    if (handle_.mode == GizmoMode::Rotate)
        return angleStep > 0.0 ? std::round(amount / angleStep) * angleStep : amount;
    if (!(step > 0.0)) return amount;
    if (!worldAxes) return std::round(amount / step) * step;
    const double start = dragOrigin_ * dragAxis_;  // the origin's coordinate along a world axis
    return std::round((start + amount) / step) * step - start;
}

}  // namespace ui
