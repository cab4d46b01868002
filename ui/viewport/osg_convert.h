#pragma once
// Engine (Eigen, column vectors) <-> OpenSceneGraph (row vectors) conversions: the only place
// where the convention flip happens. osg::Matrixd transforms a point as p' = p * M, so the
// matrix of X_AB = (R, p) is rotate(R) * translate(p) in OSG's multiplication order.

#include <osg/Matrixd>
#include <osg/Quat>
#include <osg/Vec3d>
#include <osg/Vec4>

#include "engine/math/spatial.h"

namespace ui {

inline osg::Vec3d toOsg(const engine::Vec3& v) {
    return {v.x(), v.y(), v.z()};
}
inline engine::Vec3 fromOsg(const osg::Vec3d& v) {
    return {v.x(), v.y(), v.z()};
}
inline osg::Quat toOsg(const engine::Quat& q) {
    return {q.x(), q.y(), q.z(), q.w()};
}

inline osg::Matrixd toOsg(const engine::Transform& X) {
    return osg::Matrixd::rotate(toOsg(X.R)) * osg::Matrixd::translate(toOsg(X.p));
}

// 0xRRGGBB -> RGBA in [0, 1].
inline osg::Vec4 colorFromRgb(std::uint32_t rgb, float alpha = 1.0f) {
    return {((rgb >> 16) & 0xff) / 255.0f, ((rgb >> 8) & 0xff) / 255.0f, (rgb & 0xff) / 255.0f,
            alpha};
}

}  // namespace ui
