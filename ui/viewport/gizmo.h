#pragma once
// The manipulator drawn on the selected part or marker: three arrows (translate along an axis)
// or three rings (rotate about an axis), red, green and blue for x, y and z of its frame (the
// world's axes or the selection's own), always on top of the mechanism and of a constant size on
// screen. The geometry is built once in a unit frame; the view scales it every frame.
//
// The drag arithmetic lives here too, free of any widget, so it can be tested alone:
//   translate: the moved amount is the change of the point on the axis nearest the pointer's ray;
//   rotate:    the angle swept by the pointer's ray on the plane of the ring, unwound past ±180°.
// Snapping rounds the amount to the grid step (world axes: the origin's coordinate lands on the
// grid) or to the angle increment.

#include <optional>
#include <vector>

#include <osg/Group>
#include <osg/MatrixTransform>
#include <osg/Vec3d>
#include <osg/ref_ptr>

#include "ui/viewport/gizmo_handle.h"

namespace ui {

// A ray through a pixel, in world coordinates (direction unit, away from the eye).
struct Ray {
    osg::Vec3d origin, direction;
};

class Gizmo {
public:
    Gizmo();

    osg::Node* node() const { return transform_.get(); }

    // Placement: origin and axes (columns of the rotation) in the world, and the world length
    // of one unit of the gizmo (its arrows are one unit long).
    void setFrame(const osg::Vec3d& origin, const osg::Quat& rotation);
    void setScale(double worldUnit);
    void setMode(GizmoMode mode);
    void setVisible(bool visible);
    bool visible() const { return visible_; }
    GizmoMode mode() const { return mode_; }
    const osg::Vec3d& origin() const { return origin_; }
    osg::Vec3d axis(int k) const;
    double scale() const { return scale_; }
    // The handle drawn highlighted (hovered or dragged), none for nothing.
    void setHighlight(std::optional<GizmoHandle> handle);

    // Points of a handle in the world, for hit testing in the view (a polyline) and for tests
    // (its middle is a good place to press).
    std::vector<osg::Vec3d> handlePolyline(const GizmoHandle& handle) const;

    // Drag arithmetic. begin() fixes the frame, the axis and the pointer's first ray; amount()
    // gives the raw moved amount for a later ray (m or rad, unsnapped), nullopt when the ray
    // runs parallel to the axis or edge-on to the ring (keep the last amount then).
    void begin(const GizmoHandle& handle, const Ray& ray);
    std::optional<double> amount(const Ray& ray);
    // The amount rounded to `step` (translate) or `angleStep` (rotate); in world axes a
    // translation lands the origin's coordinate on the grid.
    double snapped(double amount, double step, double angleStep, bool worldAxes) const;
    const GizmoHandle& handle() const { return handle_; }

private:
    void rebuild();
    std::optional<double> axisParameter(const Ray& ray) const;
    std::optional<osg::Vec3d> onRingPlane(const Ray& ray) const;

    osg::ref_ptr<osg::MatrixTransform> transform_;
    osg::ref_ptr<osg::Group> arrows_, rings_;
    osg::Vec3d origin_;
    osg::Quat rotation_;
    double scale_ = 1.0;
    GizmoMode mode_ = GizmoMode::Translate;
    bool visible_ = false;
    std::optional<GizmoHandle> highlight_;
    // The drag under way.
    GizmoHandle handle_;
    osg::Vec3d dragOrigin_, dragAxis_;
    double startParameter_ = 0.0;
    osg::Vec3d lastRadial_;
    double angle_ = 0.0;
};

}  // namespace ui
