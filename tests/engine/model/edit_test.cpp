#include "engine/model/edit.h"

#include <gtest/gtest.h>

#include <set>

#include "engine/io/scene_json.h"
#include "engine/model/mass_properties.h"
#include "engine/model/model.h"

namespace engine {
namespace {

TEST(RenameEntity, RewritesEveryReferenceSoTheSceneStillCompiles) {
    auto loaded = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/slider_crank.json");
    ASSERT_TRUE(loaded.scene);
    SceneSpec spec = *loaded.scene;
    spec.plots.push_back({"p", {spec.joints[0].name + ".Fx", "energy.kinetic"}, "crank.x", {}});
    const std::string oldJoint = spec.joints[0].name;
    const Part& crank = spec.parts[1];
    const EntityId crankId = crank.id, markerId = crank.markers.front().id,
                   jointId = spec.joints[0].id;

    ASSERT_TRUE(renameEntity(spec, crankId, "arm"));
    ASSERT_TRUE(renameEntity(spec, markerId, "hub"));
    ASSERT_TRUE(renameEntity(spec, jointId, "mainPin"));
    EXPECT_EQ(entityName(spec, crankId), "arm");
    EXPECT_EQ(entityName(spec, markerId), "arm.hub");
    EXPECT_EQ(spec.plots[0].channels[0], "mainPin.Fx");
    EXPECT_EQ(spec.plots[0].channels[1], "energy.kinetic");
    EXPECT_EQ(spec.plots[0].x, "arm.x");  // an x-y plot's horizontal channel follows too
    for (const MotionSpec& m : spec.motions) EXPECT_NE(m.joint, oldJoint);
    const CompileResult c = compile(spec);
    for (const Diagnostic& d : c.diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    EXPECT_TRUE(c.model);
    EXPECT_FALSE(renameEntity(spec, 999999, "x"));
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

TEST(DeleteEntity, APartTakesItsJointsAndTheMotionsOnThemAndTheRestCompiles) {
    auto loaded = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/slider_crank.json");
    ASSERT_TRUE(loaded.scene);
    SceneSpec spec = *loaded.scene;
    const Part& crank = spec.parts[1];
    ASSERT_EQ(crank.name, "crank");
    const std::size_t joints = spec.joints.size();
    const std::vector<std::string> removed = deleteEntity(spec, crank.id);
    ASSERT_FALSE(removed.empty());
    EXPECT_EQ(removed.front(), "crank");
    EXPECT_EQ(spec.parts.size(), 3u);
    EXPECT_EQ(spec.joints.size(), joints - 2);  // the crank's pivot and pin
    EXPECT_TRUE(spec.motions.empty());          // the motor drove the crank's pivot
    const CompileResult c = compile(spec);
    for (const Diagnostic& d : c.diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    // The ground cannot be deleted; an unknown id deletes nothing.
    EXPECT_TRUE(deleteEntity(spec, spec.parts[0].id).empty());
    EXPECT_TRUE(deleteEntity(spec, 999999).empty());
}

TEST(DeleteEntity, AJointTakesWhatActsOnItOnly) {
    auto loaded = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/two_link_arm_pd.json");
    ASSERT_TRUE(loaded.scene);
    SceneSpec spec = *loaded.scene;
    const std::vector<std::string> removed = deleteEntity(spec, spec.joints[1].id);  // the elbow
    EXPECT_EQ(removed, (std::vector<std::string>{"elbow", "elbowServo"}));
    EXPECT_EQ(spec.forces.size(), 1u);
    EXPECT_EQ(spec.parts.size(), 3u);
}

// The four-bar's moving parts, for copies.
struct CopyTest : ::testing::Test {
    void SetUp() override {
        auto loaded = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/four_bar.json");
        ASSERT_TRUE(loaded.scene);
        spec = *loaded.scene;
        for (const Part& p : spec.parts)
            if (!p.ground) moving.push_back(p.id);
    }
    Transform markerInWorld(const SceneSpec& s, const MarkerRef& ref) {
        const Part* part = s.findPart(ref.part);
        const Marker* marker = s.findMarker(ref);
        EXPECT_TRUE(part && marker) << ref.part << "." << ref.marker;
        return part && marker ? part->X_WP * marker->X_PM : Transform{};
    }
    SceneSpec spec;
    std::vector<EntityId> moving;
};

TEST_F(CopyTest, CopiesPartsWithTheJointsBetweenThemUnderFreshIdsAndNames) {
    SceneSpec after = spec;
    std::string error;
    CopyPlacement place;
    place.X.p = Vec3(0.0, 0.3, 0.0);
    const auto created = copyParts(after, spec, moving, place, error);
    ASSERT_EQ(created.size(), 3u) << error;
    EXPECT_EQ(after.parts.size(), 7u);
    // pinB and pinC join copied parts; the pivots to the ground are left out.
    ASSERT_EQ(after.joints.size(), 6u);
    EXPECT_EQ(after.parts[4].name, "crank_2");
    EXPECT_EQ(after.joints[4].name, "pinB_2");
    EXPECT_EQ(after.joints[4].markerI.part, "coupler_2");
    std::set<EntityId> ids;
    for (const Part& p : after.parts) {
        EXPECT_TRUE(ids.insert(p.id).second);
        for (const Marker& m : p.markers) EXPECT_TRUE(ids.insert(m.id).second);
    }
    for (const Joint& j : after.joints) EXPECT_TRUE(ids.insert(j.id).second);
    // Moved rigidly: the copied joints are exactly as closed as the originals.
    for (std::size_t j = 4; j < 6; ++j) {
        const Transform I = markerInWorld(after, after.joints[j].markerI),
                        J = markerInWorld(after, after.joints[j].markerJ);
        const Transform I0 = markerInWorld(spec, spec.joints[j - 3].markerI),
                        J0 = markerInWorld(spec, spec.joints[j - 3].markerJ);
        EXPECT_NEAR((I.p - J.p).norm(), (I0.p - J0.p).norm(), 1e-15);
        EXPECT_NEAR((I.p - I0.p - place.X.p).norm(), 0.0, 1e-15);
    }
    EXPECT_TRUE(compile(after).model);
    // A second copy takes the next number; copying the ground alone is refused.
    SceneSpec again = after;
    ASSERT_EQ(copyParts(again, spec, {moving[0]}, place, error).size(), 1u);
    EXPECT_EQ(again.parts.back().name, "crank_3");
    EXPECT_TRUE(copyParts(again, spec, {spec.parts[0].id}, place, error).empty());
    EXPECT_NE(error.find("ground"), std::string::npos);
}

// Mirrored in the plane x = 0.2: every point of every copy is the mirror image of the original
// point, joints between mirrored parts stay closed, and the world inertia is S I S.
TEST_F(CopyTest, AMirroredCopyIsTheMirrorImageAndStillARigidMechanism) {
    // A cone on the crank, off its axis: the shape every axis of mirror must get right.
    Shape cone;
    cone.type = ShapeType::Cone;
    cone.radius = 0.01;
    cone.length = 0.03;
    cone.X_PG = {Quat(Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized())), Vec3(0.01, 0.02, -0.01)};
    spec.parts[1].shapes.push_back(cone);
    for (int axis = 0; axis < 3; ++axis) {
        SceneSpec after = spec;
        std::string error;
        CopyPlacement place;
        place.mirrorAxis = axis;
        place.mirrorPoint = Vec3(0.2, -0.1, 0.05);
        ASSERT_EQ(copyParts(after, spec, moving, place, error).size(), 3u) << error;
        Mat3 S = Mat3::Identity();
        S(axis, axis) = -1.0;
        auto mirrored = [&](const Vec3& p) {
            return Vec3(place.mirrorPoint + S * (p - place.mirrorPoint));
        };
        for (std::size_t k = 0; k < 3; ++k) {
            const Part& original = spec.parts[k + 1];
            const Part& copy = after.parts[k + 4];
            EXPECT_NEAR(copy.X_WP.R.norm(), 1.0, 1e-15);
            EXPECT_GT(copy.X_WP.rotationMatrix().determinant(), 0.0);
            for (const Vec3& local :
                 {Vec3(0.05, 0.01, 0.01), Vec3(-0.05, -0.01, 0.01), Vec3(0.0, 0.01, -0.01)})
                EXPECT_LT((copy.X_WP * (S * local) - mirrored(original.X_WP * local)).norm(),
                          1e-15);
            // Marker origins and axes (as lines) are mirror images.
            for (std::size_t m = 0; m < original.markers.size(); ++m) {
                const Transform a = original.X_WP * original.markers[m].X_PM,
                                b = copy.X_WP * copy.markers[m].X_PM;
                EXPECT_LT((b.p - mirrored(a.p)).norm(), 1e-15);
                EXPECT_LT(((b.R * Vec3::UnitZ()).cross(S * (a.R * Vec3::UnitZ()))).norm(), 1e-14);
            }
            // Mass properties in the world: the centre of mass mirrored, the inertia S I S.
            const MassProperties m0 = partMassProperties(original), m1 = partMassProperties(copy);
            EXPECT_NEAR(m1.mass, m0.mass, 1e-15);
            const Mat3 I0 = original.X_WP.rotationMatrix() * m0.I_Pcm_P *
                            original.X_WP.rotationMatrix().transpose();
            const Mat3 I1 =
                copy.X_WP.rotationMatrix() * m1.I_Pcm_P * copy.X_WP.rotationMatrix().transpose();
            EXPECT_LT((I1 - S * I0 * S).norm(), 1e-15);
            EXPECT_LT((copy.X_WP * m1.p_PPcm - mirrored(original.X_WP * m0.p_PPcm)).norm(), 1e-15);
        }
        // The cone's apex and base centre land on their mirror images.
        const Part& crank = spec.parts[1];
        const Part& copy = after.parts[4];
        for (double z : {0.015, -0.015}) {
            const Vec3 a = crank.X_WP * (crank.shapes.back().X_PG * Vec3(0, 0, z));
            const Shape& mirroredCone = copy.shapes.back();
            const Vec3 b = copy.X_WP * (mirroredCone.X_PG * Vec3(0, 0, z));
            EXPECT_LT((b - mirrored(a)).norm(), 1e-15) << "axis " << axis << " z " << z;
        }
        // Joints between mirrored parts are as closed as the originals (the file's rounding).
        for (std::size_t j = 4; j < after.joints.size(); ++j) {
            const Transform I = markerInWorld(after, after.joints[j].markerI),
                            J = markerInWorld(after, after.joints[j].markerJ);
            const Transform I0 = markerInWorld(spec, spec.joints[j - 3].markerI),
                            J0 = markerInWorld(spec, spec.joints[j - 3].markerJ);
            EXPECT_NEAR((I.p - J.p).norm(), (I0.p - J0.p).norm(), 1e-15);
        }
        EXPECT_TRUE(compile(after).model);
    }
}

TEST_F(CopyTest, MeshShapesAreNotMirroredSilently) {
    Shape mesh;
    mesh.type = ShapeType::Mesh;
    mesh.meshFile = "bracket.stl";
    spec.parts[1].shapes.push_back(mesh);
    SceneSpec after = spec;
    std::string error;
    CopyPlacement place;
    place.mirrorAxis = 0;
    EXPECT_TRUE(copyParts(after, spec, moving, place, error).empty());
    EXPECT_NE(error.find("mesh"), std::string::npos) << error;
    EXPECT_EQ(after.parts.size(), spec.parts.size());
}

}  // namespace
}  // namespace engine
