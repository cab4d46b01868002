#include "engine/math/spatial.h"

#include <gtest/gtest.h>

namespace engine {
namespace {

Transform someTransform(double angle, const Vec3& axis, const Vec3& p) {
    return {quatFromAxisAngle(axis, angle), p};
}

TEST(Transform, ComposesLikeMatricesWithInnerFramesCancelling) {
    const Transform X_AB = someTransform(0.7, Vec3(1, 2, 3), Vec3(0.1, -0.2, 0.3));
    const Transform X_BC = someTransform(-1.3, Vec3(0, 1, -1), Vec3(1.0, 0.5, -2.0));
    const Vec3 p_C(0.3, 0.2, 0.1);

    const Vec3 viaChain = X_AB * (X_BC * p_C);
    const Vec3 viaProduct = (X_AB * X_BC) * p_C;
    EXPECT_LT((viaChain - viaProduct).norm(), 1e-14);

    // Independent check with homogeneous 4x4 matrices.
    auto homogeneous = [](const Transform& X) {
        Eigen::Matrix4d T = Eigen::Matrix4d::Identity();
        T.topLeftCorner<3, 3>() = X.rotationMatrix();
        T.topRightCorner<3, 1>() = X.p;
        return T;
    };
    const Eigen::Vector4d expected = homogeneous(X_AB) * homogeneous(X_BC) * p_C.homogeneous();
    EXPECT_LT((viaProduct - expected.head<3>()).norm(), 1e-14);
}

TEST(Transform, InverseUndoesTheTransform) {
    const Transform X_AB = someTransform(2.1, Vec3(-1, 0.5, 2), Vec3(3, -1, 0.25));
    const Transform identity = X_AB * X_AB.inverse();
    EXPECT_LT(identity.p.norm(), 1e-14);
    EXPECT_NEAR(std::abs(identity.R.w()), 1.0, 1e-14);
}

TEST(Rotation, RollPitchYawFollowsTheUrdfConvention) {
    // URDF: R = Rz(yaw) Ry(pitch) Rx(roll). A yaw of 90 degrees turns x into y.
    EXPECT_LT((quatFromRollPitchYaw(0, 0, degToRad(90)) * Vec3::UnitX() - Vec3::UnitY()).norm(),
              1e-15);
    // A pitch of 90 degrees turns x into -z (right-hand rule about y).
    EXPECT_LT((quatFromRollPitchYaw(0, degToRad(90), 0) * Vec3::UnitX() + Vec3::UnitZ()).norm(),
              1e-15);
    // Roll is applied first: roll 90 then yaw 90 maps y -> z -> z, and z -> -y -> x.
    const Quat q = quatFromRollPitchYaw(degToRad(90), 0, degToRad(90));
    EXPECT_LT((q * Vec3::UnitY() - Vec3::UnitZ()).norm(), 1e-15);
    EXPECT_LT((q * Vec3::UnitZ() - Vec3::UnitX()).norm(), 1e-15);
}

TEST(Rotation, AxisAngleNormalisesTheAxis) {
    const Quat q = quatFromAxisAngle(Vec3(0, 0, 5), kPi / 2);
    EXPECT_LT((q * Vec3::UnitX() - Vec3::UnitY()).norm(), 1e-15);
}

}  // namespace
}  // namespace engine
