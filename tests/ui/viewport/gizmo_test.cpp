// The manipulator's drag arithmetic, free of any window: rays built by hand.
#include "ui/viewport/gizmo.h"

#include <cmath>

#include <gtest/gtest.h>

namespace ui {
namespace {

// A ray from `eye` through world point `p`.
Ray through(const osg::Vec3d& eye, const osg::Vec3d& p) {
    osg::Vec3d d = p - eye;
    d.normalize();
    return {eye, d};
}

TEST(Gizmo, ARingSweptByThePointerGivesTheAngleUnwoundPastAHalfTurn) {
    Gizmo gizmo;
    const osg::Vec3d origin(0.3, -0.2, 0.1);
    gizmo.setFrame(origin, osg::Quat(0.4, osg::Vec3d(1, 0, 0)));
    gizmo.setScale(0.2);
    const osg::Vec3d axis = gizmo.axis(1);
    osg::Vec3d u = axis ^ osg::Vec3d(0, 0, 1);
    u.normalize();
    const osg::Vec3d v = axis ^ u;
    const osg::Vec3d eye = origin + axis * 2.0 + u * 0.7 + v * 0.3;  // an oblique view
    auto onRing = [&](double phi) {
        return origin + (u * std::cos(phi) + v * std::sin(phi)) * 0.17;
    };
    gizmo.begin({GizmoMode::Rotate, 1}, through(eye, onRing(0.2)));
    double amount = 0.0;
    for (int k = 1; k <= 100; ++k) amount = *gizmo.amount(through(eye, onRing(0.2 + 0.04 * k)));
    EXPECT_NEAR(amount, 4.0, 1e-9);  // 229°: unwound, not wrapped to −131°
    // Snapping to 15°: a whole number of increments.
    EXPECT_NEAR(gizmo.snapped(amount, 0.01, osg::DegreesToRadians(15.0), true),
                osg::DegreesToRadians(225.0), 1e-12);
}

TEST(Gizmo, AnArrowFollowsThePointNearestThePointersRay) {
    Gizmo gizmo;
    const osg::Vec3d origin(0.013, 0.0, 0.5);
    gizmo.setFrame(origin, osg::Quat());
    const osg::Vec3d eye(0.4, -2.0, 1.1);
    gizmo.begin({GizmoMode::Translate, 0}, through(eye, origin + osg::Vec3d(0.05, 0, 0)));
    EXPECT_NEAR(*gizmo.amount(through(eye, origin + osg::Vec3d(0.123, 0, 0))), 0.073, 1e-12);
    // A ray off the axis: the nearest point on the axis.
    EXPECT_NEAR(*gizmo.amount(through(eye, origin + osg::Vec3d(0.123, 0, 0.0))), 0.073, 1e-12);
    // World axes: the origin's coordinate lands on the 25 mm grid; local axes: the amount does.
    EXPECT_NEAR(gizmo.snapped(0.073, 0.025, 0.1, true), 0.075 - 0.013, 1e-15);
    EXPECT_NEAR(gizmo.snapped(0.073, 0.025, 0.1, false), 0.075, 1e-15);
    // Looking straight down the axis there is no amount.
    EXPECT_FALSE(gizmo.amount(through(origin + osg::Vec3d(3, 0, 0), origin)).has_value());
}

}  // namespace
}  // namespace ui
