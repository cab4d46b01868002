// Joints suggested from faces (engine/import/cad_joints.h): each rule on faces given by hand, the
// markers of an accepted suggestion, and near misses that suggest nothing.

#include "engine/import/cad_joints.h"

#include <gtest/gtest.h>

#include "engine/math/constants.h"
#include "tests/support/simulation.h"

namespace engine::io {
namespace {

using Kind = CadFeature::Kind;

CadFeature cylinder(const Vec3& start, const Vec3& axis, double radius, double length,
                    bool convex) {
    CadFeature f;
    f.kind = Kind::Cylinder;
    f.point = start;
    f.direction = axis;
    f.radius = radius;
    f.length = length;
    f.convex = convex;
    return f;
}

CadFeature plane(const Vec3& centroid, const Vec3& normal, double size) {
    CadFeature f;
    f.kind = Kind::Plane;
    f.point = centroid;
    f.direction = normal;
    f.radius = size;
    return f;
}

CadFeature sphere(const Vec3& centre, double radius, bool convex) {
    CadFeature f;
    f.kind = Kind::Sphere;
    f.point = centre;
    f.radius = radius;
    f.convex = convex;
    return f;
}

// Two moving parts (and the ground, index 0): `a` at X_a, `b` at X_b.
SceneSpec twoParts(const Transform& X_a = {}, const Transform& X_b = {}) {
    SceneSpec spec;
    Part ground;
    ground.id = spec.newId();
    ground.name = "ground";
    ground.ground = true;
    spec.parts.push_back(ground);
    for (const char* name : {"a", "b"}) {
        Part part;
        part.id = spec.newId();
        part.name = name;
        part.X_WP = spec.parts.size() == 1 ? X_a : X_b;
        spec.parts.push_back(part);
    }
    return spec;
}

TEST(CadJoints, APinFreeToSlideInItsHoleIsACylindricalJointOnItsAxis) {
    // b's frame turned and moved: the features are in each part's own frame.
    Transform X_b;
    X_b.R = Quat(Eigen::AngleAxisd(kPi / 2, Vec3::UnitX()));  // b's y is the world's z
    X_b.p = Vec3(0.1, 0, 0);
    const SceneSpec spec = twoParts({}, X_b);
    const std::vector<std::vector<CadFeature>> features = {
        {},
        {cylinder(Vec3(0.1, 0, -0.05), Vec3::UnitZ(), 0.01, 0.1, true)},   // a's pin, z −5..5 cm
        {cylinder(Vec3(0, 0.02, 0), Vec3::UnitY(), 0.0101, 0.02, false)},  // b's hole, z 2..4 cm
    };
    const auto suggestions = suggestJoints(spec, features);
    ASSERT_EQ(suggestions.size(), 1u);
    const JointSuggestion& s = suggestions[0];
    EXPECT_EQ(s.type, JointType::Cylindrical) << s.reason;
    EXPECT_EQ(s.partI, 1u);
    EXPECT_EQ(s.partJ, 2u);
    EXPECT_LE((s.X_WJ.p - Vec3(0.1, 0, 0.03)).norm(), 1e-12);  // the middle of the overlap
    EXPECT_LE((s.X_WJ.R * Vec3::UnitZ() - Vec3::UnitZ()).norm(), 1e-12);
    EXPECT_NE(s.reason.find("nothing stops the slide"), std::string::npos) << s.reason;
}

TEST(CadJoints, AShoulderAgainstTheHoledPlateMakesItARevolute) {
    const SceneSpec spec = twoParts();
    const std::vector<std::vector<CadFeature>> features = {
        {},
        {cylinder(Vec3(0, 0, 0), Vec3::UnitZ(), 0.005, 0.02, true),
         plane(Vec3(0.01, 0, 0), -Vec3::UnitZ(), 0.03)},  // the shoulder's face, facing down
        {cylinder(Vec3(0, 0, 0), Vec3::UnitZ(), 0.005, 0.01, false),
         plane(Vec3(0.02, 0.01, 0), Vec3::UnitZ(), 0.04)},  // the plate's top face
    };
    const auto suggestions = suggestJoints(spec, features);
    ASSERT_EQ(suggestions.size(), 1u);  // (the touching faces explained by the revolute)
    EXPECT_EQ(suggestions[0].type, JointType::Revolute) << suggestions[0].reason;
}

TEST(CadJoints, ABallInItsSocketIsASphericalJointAtTheCentre) {
    const SceneSpec spec = twoParts();
    const std::vector<std::vector<CadFeature>> features = {
        {}, {sphere(Vec3(0.2, 0.1, 0.3), 0.02, false)}, {sphere(Vec3(0.2, 0.1, 0.3), 0.02, true)}};
    const auto suggestions = suggestJoints(spec, features);
    ASSERT_EQ(suggestions.size(), 1u);
    EXPECT_EQ(suggestions[0].type, JointType::Spherical);
    EXPECT_EQ(suggestions[0].partI, 2u);  // the ball's part first
    EXPECT_LE((suggestions[0].X_WJ.p - Vec3(0.2, 0.1, 0.3)).norm(), 1e-12);
}

TEST(CadJoints, FlatFacesSayPlanarOneWayAndPrismaticTwoWays) {
    const SceneSpec spec = twoParts();
    // A block on a table: one direction.
    {
        const std::vector<std::vector<CadFeature>> features = {
            {},
            {plane(Vec3(0, 0, 0.1), -Vec3::UnitZ(), 0.05)},
            {plane(Vec3(0.02, 0, 0.1), Vec3::UnitZ(), 0.5)}};
        const auto suggestions = suggestJoints(spec, features);
        ASSERT_EQ(suggestions.size(), 1u);
        EXPECT_EQ(suggestions[0].type, JointType::Planar);
        EXPECT_LE((suggestions[0].X_WJ.R * Vec3::UnitZ()).cross(Vec3::UnitZ()).norm(), 1e-12);
    }
    // A slider in a slot: its bottom on the slot's floor, its side on the slot's wall.
    {
        const std::vector<std::vector<CadFeature>> features = {
            {},
            {plane(Vec3(0, 0, 0), -Vec3::UnitZ(), 0.05),
             plane(Vec3(0, 0.02, 0.01), Vec3::UnitY(), 0.05)},
            {plane(Vec3(0.1, 0, 0), Vec3::UnitZ(), 0.3),
             plane(Vec3(0.1, 0.02, 0.01), -Vec3::UnitY(), 0.3)}};
        const auto suggestions = suggestJoints(spec, features);
        ASSERT_EQ(suggestions.size(), 1u);
        EXPECT_EQ(suggestions[0].type, JointType::Prismatic);
        EXPECT_LE((suggestions[0].X_WJ.R * Vec3::UnitZ()).cross(Vec3::UnitX()).norm(), 1e-12);
    }
    // In three directions (a block in a corner): nothing moves, nothing suggested.
    {
        const std::vector<std::vector<CadFeature>> features = {
            {},
            {plane(Vec3(0, 0, 0), -Vec3::UnitZ(), 0.05),
             plane(Vec3(0, 0.02, 0.01), Vec3::UnitY(), 0.05),
             plane(Vec3(0.02, 0, 0.01), Vec3::UnitX(), 0.05)},
            {plane(Vec3(0, 0, 0), Vec3::UnitZ(), 0.3),
             plane(Vec3(0, 0.02, 0.01), -Vec3::UnitY(), 0.3),
             plane(Vec3(0.02, 0, 0.01), -Vec3::UnitX(), 0.3)}};
        EXPECT_TRUE(suggestJoints(spec, features).empty());
    }
}

TEST(CadJoints, NearMissesSuggestNothing) {
    const SceneSpec spec = twoParts();
    const auto none = [&](const CadFeature& a, const CadFeature& b) {
        return suggestJoints(spec, {{}, {a}, {b}}).empty();
    };
    const CadFeature pin = cylinder(Vec3::Zero(), Vec3::UnitZ(), 0.01, 0.05, true);
    EXPECT_TRUE(none(pin, cylinder(Vec3::Zero(), Vec3::UnitZ(), 0.0105, 0.05, false)));     // loose
    EXPECT_TRUE(none(pin, cylinder(Vec3(0.001, 0, 0), Vec3::UnitZ(), 0.01, 0.05, false)));  // off
    EXPECT_TRUE(
        none(pin, cylinder(Vec3::Zero(), Vec3(0.01, 0, 1).normalized(), 0.01, 0.05, false)));
    EXPECT_TRUE(none(pin, cylinder(Vec3(0, 0, 0.1), Vec3::UnitZ(), 0.01, 0.05, false)));  // apart
    // end to end: a pin standing on a hole, not in it
    EXPECT_TRUE(none(pin, cylinder(Vec3(0, 0, 0.05), Vec3::UnitZ(), 0.01, 0.05, false)));
    EXPECT_TRUE(none(pin, cylinder(Vec3::Zero(), Vec3::UnitZ(), 0.01, 0.05, true)));  // two pins
    EXPECT_TRUE(none(plane(Vec3::Zero(), Vec3::UnitZ(), 0.05),
                     plane(Vec3(0, 0, 1e-3), -Vec3::UnitZ(), 0.05)));  // a gap
    EXPECT_TRUE(none(plane(Vec3::Zero(), Vec3::UnitZ(), 0.05),
                     plane(Vec3(0.2, 0, 0), -Vec3::UnitZ(), 0.05)));  // side by side
}

// An accepted suggestion is an ordinary joint whose markers coincide where it said; a second
// one between the same parts gets names of its own.
TEST(CadJoints, AnAcceptedSuggestionIsAJointWithItsMarkersOnTheFrame) {
    Transform X_a, X_b;
    X_a.R = Quat(Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized()));
    X_a.p = Vec3(0.1, -0.2, 0.3);
    X_b.p = Vec3(0.5, 0, 0);
    SceneSpec spec = twoParts(X_a, X_b);
    JointSuggestion s;
    s.type = JointType::Revolute;
    s.partI = 1;
    s.partJ = 2;
    s.X_WJ.R = Quat(Eigen::AngleAxisd(0.7, Vec3::UnitY()));
    s.X_WJ.p = Vec3(0.3, 0.1, 0.2);
    const std::size_t first = addSuggestedJoint(spec, s);
    const std::size_t second = addSuggestedJoint(spec, s);
    EXPECT_EQ(spec.joints[first].name, "a_b");
    EXPECT_EQ(spec.joints[second].name, "a_b_2");
    EXPECT_EQ(spec.joints[second].markerI.marker, "a_b_2");
    for (const Part& part : {spec.parts[1], spec.parts[2]}) {
        const Transform X_WM = part.X_WP * part.markers.front().X_PM;
        EXPECT_LE((X_WM.p - s.X_WJ.p).norm(), 1e-12);
        EXPECT_LE(X_WM.R.angularDistance(s.X_WJ.R), 1e-12);
    }
    spec.joints.pop_back();
    EXPECT_TRUE(test::compiled(spec));
}

}  // namespace
}  // namespace engine::io
