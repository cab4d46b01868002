#include "engine/model/scene_spec.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "tests/support/mechanisms.h"
#include "tests/support/scene_builders.h"

namespace engine {
namespace {

bool hasDiagnostic(const Diagnostics& diagnostics, const std::string& where,
                   const std::string& fragment) {
    for (const Diagnostic& d : diagnostics)
        if (d.where == where && d.message.find(fragment) != std::string::npos) return true;
    return false;
}

TEST(Validate, AcceptsAWellFormedPendulum) {
    const Diagnostics diagnostics = validate(test::pendulum());
    EXPECT_TRUE(diagnostics.empty())
        << diagnostics.front().where << ": " << diagnostics.front().message;
}

TEST(Validate, RejectsAJointWhoseMarkerDoesNotExist) {
    SceneSpec spec = test::pendulum();
    spec.joints[0].markerJ = {"ground", "nowhere"};
    EXPECT_TRUE(hasDiagnostic(validate(spec), "/joints/0/markerJ", "no marker 'ground.nowhere'"));
}

TEST(Validate, RejectsAJointBetweenTwoMarkersOfOnePart) {
    SceneSpec spec = test::pendulum();
    spec.parts[1].markers.push_back(test::marker(spec, "tip", Vec3(0.05, 0, 0)));
    spec.joints[0].markerJ = {"link", "tip"};
    EXPECT_TRUE(hasDiagnostic(validate(spec), "/joints/0", "same part 'link'"));
}

TEST(Validate, RejectsDuplicateNamesAndInvalidNames) {
    SceneSpec spec = test::pendulum();
    spec.parts.push_back(spec.parts[1]);
    spec.parts[0].markers.push_back(test::marker(spec, "pivot", Vec3::Zero()));
    spec.joints[0].name = "has.dot";
    const Diagnostics d = validate(spec);
    EXPECT_TRUE(hasDiagnostic(d, "/parts/2/name", "duplicate part name 'link'"));
    EXPECT_TRUE(hasDiagnostic(d, "/parts/0/markers/1/name", "duplicate marker name 'pivot'"));
    EXPECT_TRUE(hasDiagnostic(d, "/joints/0/name", "not valid"));
}

TEST(Validate, RejectsNonPhysicalMassProperties) {
    SceneSpec spec = test::pendulum();
    spec.parts[1].mass = 0.0;
    EXPECT_TRUE(hasDiagnostic(validate(spec), "/parts/1/mass", "positive"));

    // Principal moments (1, 1, 3): I1 + I2 < I3, which no mass distribution can produce.
    spec = test::pendulum();
    spec.parts[1].I_Pcm_P = Vec3(1.0, 1.0, 3.0).asDiagonal();
    EXPECT_TRUE(hasDiagnostic(validate(spec), "/parts/1/inertia", "triangle inequality"));

    spec = test::pendulum();
    spec.parts[1].I_Pcm_P(0, 1) = 0.5;  // not symmetric
    EXPECT_TRUE(hasDiagnostic(validate(spec), "/parts/1/inertia", "symmetric"));

    spec = test::pendulum();
    spec.parts[1].I_Pcm_P = Vec3(1.0, -1.0, 1.0).asDiagonal();
    EXPECT_TRUE(hasDiagnostic(validate(spec), "/parts/1/inertia", "positive definite"));
}

TEST(Validate, AcceptsTheThinRodLimitOfTheTriangleInequality) {
    // A thin rod along x: (0+, mL²/12, mL²/12) sits on the boundary I1 + I2 = I3 up to I1.
    SceneSpec spec = test::pendulum();
    spec.parts[1].I_Pcm_P = Vec3(1e-9, 1.0, 1.0).asDiagonal();
    EXPECT_TRUE(validate(spec).empty());
}

TEST(Validate, AllowsOnlyOneGroundPart) {
    SceneSpec spec = test::pendulum();
    spec.parts[1].ground = true;
    EXPECT_TRUE(hasDiagnostic(validate(spec), "/parts/1/ground", "only one part can be ground"));
}

TEST(Validate, RequiresAPositiveLengthOnDistanceJoints) {
    SceneSpec spec = test::pendulum();
    spec.joints[0].type = JointType::Distance;
    spec.joints[0].length = -0.1;
    EXPECT_TRUE(hasDiagnostic(validate(spec), "/joints/0/length", "positive"));
}

TEST(Validate, RejectsExpressionsThatAreNotANumberWhereTheRunStarts) {
    // sqrt(-1) and 1/0 parse but would reach the solver as NaN and infinity.
    SceneSpec spec = test::pendulum();
    MotionSpec motion;
    motion.id = spec.newId();
    motion.name = "drive";
    motion.joint = spec.joints[0].name;
    motion.expression = "sqrt(-1)";
    spec.motions.push_back(motion);
    ForceSpec push;
    push.id = spec.newId();
    push.name = "push";
    push.type = ForceType::PointForce;
    push.markerI = spec.joints[0].markerI;
    push.components[1] = "1/0";
    spec.forces.push_back(push);
    ForceSpec servo;
    servo.id = spec.newId();
    servo.name = "servo";
    servo.type = ForceType::JointController;
    servo.joint = spec.joints[0].name;
    servo.components[0] = "ln(0)";
    spec.forces.push_back(servo);
    const Diagnostics d = validate(spec);
    EXPECT_TRUE(hasDiagnostic(d, "/motions/0/expression", "'sqrt(-1)' is not a number at t = 0 s"));
    EXPECT_TRUE(hasDiagnostic(d, "/forces/0/components/1", "'1/0' is infinite at t = 0 s"));
    EXPECT_TRUE(hasDiagnostic(d, "/forces/1/target", "'ln(0)' is infinite at t = 0 s"));
    // A pole later in the run is legal here (the run stops there, naming the motion).
    spec.motions[0].expression = "1/(time-1)";
    spec.forces[0].components[1] = "0";
    spec.forces[1].components[0] = "0";
    EXPECT_FALSE(hasDiagnostic(validate(spec), "/motions/0/expression", "t = 0 s"));
}

TEST(Validate, RefusesADecimalCommaAnAssignmentAndAHiddenNotANumberNamingTheirPlace) {
    // muparser reads "0,5" as 5 and "time=5" as 5, and sign(sqrt(-1)) as 0.
    SceneSpec spec = test::pendulum();
    MotionSpec motion;
    motion.id = spec.newId();
    motion.name = "drive";
    motion.joint = spec.joints[0].name;
    motion.expression = "0,5*time";
    spec.motions.push_back(motion);
    ForceSpec push;
    push.id = spec.newId();
    push.name = "push";
    push.type = ForceType::PointForce;
    push.markerI = spec.joints[0].markerI;
    push.components[2] = "time=5";
    spec.forces.push_back(push);
    ForceSpec servo;
    servo.id = spec.newId();
    servo.name = "servo";
    servo.type = ForceType::JointController;
    servo.joint = spec.joints[0].name;
    servo.components[0] = "sign(sqrt(-1))";
    spec.forces.push_back(servo);
    const Diagnostics d = validate(spec);
    EXPECT_TRUE(hasDiagnostic(d, "/motions/0/expression", "a decimal comma? write 0.5"));
    EXPECT_TRUE(hasDiagnostic(d, "/forces/0/components/2", "'=' at position 4 assigns; compare"));
    EXPECT_TRUE(hasDiagnostic(d, "/forces/1/target", "'sign(sqrt(-1))' is not a number"));
}

TEST(Validate, RefusesADensityOnAPartWhoseShapesAreAllVisual) {
    SceneSpec spec = test::pendulum();
    Part& link = spec.parts[1];
    link.density = 1000.0;
    link.shapes[0].role = ShapeRole::Visual;
    EXPECT_TRUE(hasDiagnostic(validate(spec), "/parts/1/density", "only visual shapes"));
    link.shapes[0].role = ShapeRole::Collision;
    EXPECT_FALSE(hasDiagnostic(validate(spec), "/parts/1/density", "only visual shapes"));
}

TEST(JointTypeNames, RoundTripForEveryType) {
    for (int k = 0; k <= static_cast<int>(JointType::PerpendicularAxes); ++k) {
        const auto type = static_cast<JointType>(k);
        const auto parsed = jointTypeFromName(jointTypeName(type));
        ASSERT_TRUE(parsed.has_value()) << jointTypeName(type);
        EXPECT_EQ(*parsed, type);
    }
    EXPECT_FALSE(jointTypeFromName("hinge").has_value());
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

TEST(Validate, MessagesQuoteAtMostAShortExcerptOfWhatTheSceneSays) {
    // A 1 MB motion expression that does not parse, and a 1 MB joint name: each message stays
    // one short line, the quote cut with "…".
    SceneSpec spec = test::pendulum();
    MotionSpec motion;
    motion.id = spec.newId();
    motion.name = "drive";
    motion.joint = spec.joints[0].name;
    motion.expression = std::string(1 << 20, '(');
    spec.motions.push_back(motion);
    spec.forces.push_back({});
    spec.forces.back().id = spec.newId();
    spec.forces.back().name = "spring";
    spec.forces.back().type = ForceType::RotationalSpringDamper;
    spec.forces.back().joint = std::string(1 << 20, 'j') + "\n";
    const Diagnostics d = validate(spec);
    ASSERT_FALSE(d.empty());
    for (const Diagnostic& x : d) {
        EXPECT_LT(x.message.size(), 400u) << x.where;
        EXPECT_EQ(x.message.find('\n'), std::string::npos) << x.where;
    }
    EXPECT_TRUE(std::any_of(d.begin(), d.end(), [](const Diagnostic& x) {
        return x.where == "/forces/0/joint" && x.message.find("…") != std::string::npos;
    }));
}

// A solved pose is written back to the moving parts only; poses beyond the parts are ignored.
TEST(SceneSpec, PlacePartsMovesTheMovingPartsAndLeavesTheGround) {
    SceneSpec spec = test::fourBar(IntegratorType::RungeKutta4, 1e-3);
    const SceneSpec before = spec;
    std::vector<Transform> poses;
    for (std::size_t p = 0; p < spec.parts.size() + 2; ++p)
        poses.push_back(Transform{Quat(Eigen::AngleAxisd(0.1 * double(p), Vec3::UnitZ())),
                                  Vec3(double(p), 1.0, 2.0)});
    spec.placeParts(poses);
    for (std::size_t p = 0; p < spec.parts.size(); ++p) {
        const Transform& expected = spec.parts[p].ground ? before.parts[p].X_WP : poses[p];
        EXPECT_EQ(spec.parts[p].X_WP.p, expected.p) << spec.parts[p].name;
        EXPECT_EQ(spec.parts[p].X_WP.R.coeffs(), expected.R.coeffs()) << spec.parts[p].name;
    }
    EXPECT_TRUE(
        std::any_of(spec.parts.begin(), spec.parts.end(), [](const Part& p) { return p.ground; }));
}

// A diagnostic's place, a JSON pointer into the scene file, names the entity it is about.
TEST(SceneSpec, APointerNamesTheEntityItPointsInto) {
    const SceneSpec spec = test::fourBar(IntegratorType::RungeKutta4, 1e-3);
    ASSERT_GE(spec.parts.size(), 2u);
    ASSERT_FALSE(spec.parts[1].markers.empty());
    EXPECT_EQ(spec.entityAt("/parts/1"), spec.parts[1].id);
    EXPECT_EQ(spec.entityAt("/parts/1/mass"), spec.parts[1].id);
    EXPECT_EQ(spec.entityAt("/parts/1/markers/0/position"), spec.parts[1].markers[0].id);
    EXPECT_EQ(spec.entityAt("/joints/2/markerJ"), spec.joints[2].id);
    EXPECT_EQ(spec.entityAt("/joints/" + std::to_string(spec.joints.size())), kNoEntity);
    EXPECT_EQ(spec.entityAt("/joints/x"), kNoEntity);
    EXPECT_EQ(spec.entityAt("/joints/99999999999999999999"), kNoEntity);
    EXPECT_EQ(spec.entityAt("/settings/stepSize"), kNoEntity);
    EXPECT_EQ(spec.entityAt(""), kNoEntity);
    EXPECT_EQ(spec.entityAt("/"), kNoEntity);
}

}  // namespace
}  // namespace engine
