#include "ui/viewport/osg_convert.h"

#include <gtest/gtest.h>

namespace ui {
namespace {

TEST(OsgConvert, TransformMapsPointsLikeTheEngine) {
    engine::Transform X_WP;
    X_WP.R = engine::quatFromAxisAngle(engine::Vec3(1, -2, 0.5), 0.9);
    X_WP.p = engine::Vec3(0.4, -1.2, 2.0);
    const engine::Vec3 p_P(0.3, 0.7, -0.2);

    const engine::Vec3 expected = X_WP * p_P;
    // OSG multiplies row vectors from the left: p_W = p_P * M.
    const osg::Vec3d actual = toOsg(p_P) * toOsg(X_WP);
    EXPECT_LT((fromOsg(actual) - expected).norm(), 1e-12);
}

TEST(OsgConvert, ChainedTransformsMultiplyInReverseOrder) {
    engine::Transform X_WP{engine::quatFromAxisAngle(engine::Vec3::UnitZ(), 0.5),
                           engine::Vec3(1, 0, 0)};
    engine::Transform X_PM{engine::quatFromAxisAngle(engine::Vec3::UnitX(), -1.2),
                           engine::Vec3(0, 2, 0)};
    const engine::Vec3 p_M(0.1, 0.2, 0.3);
    // Engine: X_WM = X_WP * X_PM. OSG scene graph: parent (X_WP) applied after child (X_PM).
    const osg::Vec3d actual = toOsg(p_M) * (toOsg(X_PM) * toOsg(X_WP));
    EXPECT_LT((fromOsg(actual) - (X_WP * X_PM) * p_M).norm(), 1e-12);
}

TEST(OsgConvert, ColourChannelsComeFromRrggbb) {
    const osg::Vec4 c = colorFromRgb(0xff8000);
    EXPECT_FLOAT_EQ(c.r(), 1.0f);
    EXPECT_NEAR(c.g(), 128.0f / 255.0f, 1e-6);
    EXPECT_FLOAT_EQ(c.b(), 0.0f);
    EXPECT_FLOAT_EQ(c.a(), 1.0f);
}

}  // namespace
}  // namespace ui
