#include "engine/import/sdf_import.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string_view>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/io/scene_json.h"
#include "engine/math/constants.h"
#include "engine/model/model.h"
#include "tests/support/robot_runs.h"
#include "tests/support/simulation.h"
#include "tests/support/temp_text_file.h"

namespace engine::io {
namespace {

const std::string kRobots = MOTUS_SOURCE_DIR "/tests/data/robots/sdf/";

// Imports SDF text through a file of its own (the importer reads files).
RobotImportResult importText(const std::string& text, const RobotImportOptions& options = {}) {
    const test::TempTextFile file(text, ".sdf");
    return importSdfFile(file.path(), options);
}

bool mentions(const RobotImportResult& r, Severity severity, std::string_view text) {
    for (const Diagnostic& d : r.diagnostics)
        if (d.severity == severity && d.message.find(text) != std::string::npos) return true;
    return false;
}

std::string listed(const RobotImportResult& r) {
    std::string out;
    for (const Diagnostic& d : r.diagnostics)
        out += (d.severity == Severity::Error ? "error: " : "warning: ") + d.message + "\n";
    return out;
}

Transform markerInWorld(const SceneSpec& s, const MarkerRef& ref) {
    return s.findPart(ref.part)->X_WP * s.findMarker(ref)->X_PM;
}

// A model turned 90° about z and moved 1 m along x; the arm's link turned by 0.5 rad about z
// in the model; the hinge's axis given in the model's coordinates (x), so in the world it is
// y, and in the arm's own frame it is not x.
const char* kPendulum = R"(<?xml version="1.0"?>
<sdf version="1.8">
  <model name="pendulum">
    <pose>1 0 0 0 0 1.5707963267948966</pose>
    <link name="base">
      <pose>0 0 2 0 0 0</pose>
      <inertial><mass>3</mass>
        <inertia><ixx>0.1</ixx><iyy>0.2</iyy><izz>0.25</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
      </inertial>
      <visual name="body"><pose>0 0 0.1 0 0 0</pose>
        <geometry><box><size>0.2 0.3 0.4</size></box></geometry></visual>
    </link>
    <link name="arm">
      <pose>0.5 0 2 0 0 0.5</pose>
      <inertial><pose>0.25 0 0 0 0 0</pose><mass>2</mass>
        <inertia><ixx>0.01</ixx><iyy>0.05</iyy><izz>0.05</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
      </inertial>
      <collision name="tip"><pose>0.5 0 0 0 0 0</pose>
        <geometry><sphere><radius>0.05</radius></sphere></geometry></collision>
    </link>
    <joint name="bolt" type="fixed"><parent>world</parent><child>base</child></joint>
    <joint name="hinge" type="revolute">
      <pose>-0.1 0 0 0 0 0</pose>
      <parent>base</parent><child>arm</child>
      <axis><xyz expressed_in="__model__">1 0 0</xyz>
        <limit><lower>-1</lower><upper>1</upper></limit></axis>
    </joint>
  </model>
</sdf>
)";

// A base and the second link of the arm on it drawn 15 cm into one another (not jointed to each
// other): contact between them is switched off at import, as for URDF (urdf_import_test.cpp).
TEST(SdfImport, LinksThatOverlapWhereTheFilePlacesThemDoNotTouchEachOther) {
    const std::string link = R"(
      <inertial><mass>1</mass>
        <inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
      </inertial>
      <collision name="shell"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision>)";
    const RobotImportResult r = importText(R"(<?xml version="1.0"?>
<sdf version="1.8">
  <model name="arm">
    <link name="base"><pose>0 0 1 0 0 0</pose>)" +
                                           link + R"(</link>
    <link name="upper"><pose>0.3 0 1 0 0 0</pose>)" +
                                           link + R"(</link>
    <link name="lower"><pose>0.05 0 1 0 0 0</pose>)" +
                                           link + R"(</link>
    <joint name="bolt" type="fixed"><parent>world</parent><child>base</child></joint>
    <joint name="shoulder" type="revolute"><parent>base</parent><child>upper</child>
      <axis><xyz>0 1 0</xyz></axis></joint>
    <joint name="elbow" type="revolute"><parent>upper</parent><child>lower</child>
      <axis><xyz>0 1 0</xyz></axis></joint>
  </model>
</sdf>
)");
    ASSERT_TRUE(r.scene) << listed(r);
    ASSERT_EQ(r.scene->contact.pairs.size(), 1u);
    const ContactPairSpec& pair = r.scene->contact.pairs.front();
    EXPECT_EQ(pair.partA + "/" + pair.partB, "base/lower");
    EXPECT_FALSE(pair.enabled);
    EXPECT_TRUE(mentions(r, Severity::Warning,
                         "1 pair of links overlaps where the file places them ('base' and "
                         "'lower'): contact between them is switched off"))
        << listed(r);
}

TEST(SdfImport, LinksBecomePartsAndJointsMeetAtTheirFramesWithTheirAxesInTheWorld) {
    const RobotImportResult r = importText(kPendulum);
    ASSERT_TRUE(r.scene) << listed(r);
    const SceneSpec& s = *r.scene;
    EXPECT_EQ(s.name, "pendulum");
    ASSERT_EQ(s.parts.size(), 3u);  // the ground (for the fixed joint to the world), two links
    const Part* world = s.findPart("world");
    const Part* base = s.findPart("base");
    const Part* arm = s.findPart("arm");
    ASSERT_TRUE(world && base && arm);
    EXPECT_TRUE(world->ground);
    EXPECT_FALSE(base->ground);

    // Poses: X_WM = (Rz(π/2), (1, 0, 0)); the arm's link at (0.5, 0, 2) turned by 0.5 in M.
    const Quat R_WM = quatFromAxisAngle(Vec3::UnitZ(), M_PI / 2);
    const Vec3 p_WM(1, 0, 0);
    EXPECT_LT((base->X_WP.p - Vec3(1, 0, 2)).norm(), 1e-15);
    EXPECT_LT(base->X_WP.R.angularDistance(R_WM), 1e-15);
    const Quat R_WA = R_WM * quatFromAxisAngle(Vec3::UnitZ(), 0.5);
    const Vec3 p_WA = p_WM + R_WM * Vec3(0.5, 0, 2);
    EXPECT_LT((arm->X_WP.p - p_WA).norm(), 1e-15);
    EXPECT_LT(arm->X_WP.R.angularDistance(R_WA), 1e-15);

    // Masses and inertias in the part frames.
    EXPECT_EQ(base->mass, 3.0);
    EXPECT_LT((base->I_Pcm_P - Vec3(0.1, 0.2, 0.25).asDiagonal().toDenseMatrix()).norm(), 1e-15);
    EXPECT_EQ(arm->mass, 2.0);
    EXPECT_LT((arm->p_PPcm - Vec3(0.25, 0, 0)).norm(), 1e-15);
    EXPECT_LT((arm->I_Pcm_P - Vec3(0.01, 0.05, 0.05).asDiagonal().toDenseMatrix()).norm(), 1e-15);

    // Shapes: the base's box is drawn only, the arm's sphere touches only.
    ASSERT_EQ(base->shapes.size(), 1u);
    EXPECT_EQ(base->shapes[0].type, ShapeType::Box);
    EXPECT_EQ(base->shapes[0].role, ShapeRole::Visual);
    EXPECT_EQ(base->shapes[0].size, Vec3(0.2, 0.3, 0.4));
    EXPECT_LT((base->shapes[0].X_PG.p - Vec3(0, 0, 0.1)).norm(), 1e-15);
    ASSERT_EQ(arm->shapes.size(), 1u);
    EXPECT_EQ(arm->shapes[0].type, ShapeType::Sphere);
    EXPECT_EQ(arm->shapes[0].role, ShapeRole::Collision);
    EXPECT_EQ(arm->shapes[0].radius, 0.05);
    EXPECT_LT((arm->shapes[0].X_PG.p - Vec3(0.5, 0, 0)).norm(), 1e-15);

    // The hinge: at the arm's frame moved by (-0.1, 0, 0) in it, turning about the model's x,
    // the world's y. Both markers there, z along it; I on the child, J on the parent.
    ASSERT_EQ(s.joints.size(), 2u);
    const Joint* hinge = s.findJoint("hinge");
    ASSERT_NE(hinge, nullptr);
    EXPECT_EQ(hinge->type, JointType::Revolute);
    EXPECT_EQ(hinge->markerI.part, "arm");
    EXPECT_EQ(hinge->markerJ.part, "base");
    const Vec3 anchor = p_WA + R_WA * Vec3(-0.1, 0, 0);
    for (const MarkerRef& ref : {hinge->markerI, hinge->markerJ}) {
        const Transform X_WK = markerInWorld(s, ref);
        EXPECT_LT((X_WK.p - anchor).norm(), 1e-14) << ref.text();
        EXPECT_LT((X_WK.R * Vec3::UnitZ() - Vec3::UnitY()).norm(), 1e-14) << ref.text();
    }
    // The bolt: a fixed joint from the base to the ground, at the base's frame.
    const Joint* bolt = s.findJoint("bolt");
    ASSERT_NE(bolt, nullptr);
    EXPECT_EQ(bolt->type, JointType::Fixed);
    EXPECT_EQ(bolt->markerJ.part, "world");
    EXPECT_LT((markerInWorld(s, bolt->markerJ).p - Vec3(1, 0, 2)).norm(), 1e-15);
    EXPECT_LT((markerInWorld(s, bolt->markerI).p - Vec3(1, 0, 2)).norm(), 1e-15);

    // The axis's limits are the hinge's stops.
    ASSERT_EQ(hinge->limits.size(), 1u);
    EXPECT_EQ(hinge->limits[0].lower, -1.0);
    EXPECT_EQ(hinge->limits[0].upper, 1.0);
    EXPECT_EQ(s.settings.integrator, IntegratorType::TimeStepping);
    EXPECT_TRUE(r.diagnostics.empty()) << listed(r);
}

// Released level, the pendulum swings onto its stop at −1 rad (gravity turns its arm, whose
// centre of mass is on the world's −x side of the hinge, the negative way about +y) and rests
// there; without its stops it swings with its energy conserved.
TEST(SdfImport, ThePendulumSwingsOntoItsStopAndWithoutItsEnergyIsConserved) {
    const RobotImportResult r = importText(kPendulum);
    ASSERT_TRUE(r.scene) << listed(r);
    ForwardDynamics stopped(test::compiled(*r.scene));
    ASSERT_TRUE(stopped.initialize().ok);
    ASSERT_TRUE(stopped.advance(1.0).ok);
    EXPECT_NEAR(stopped.state().jointCoordinates(0), -1.0, 1e-6);

    SceneSpec free = *r.scene;
    for (Joint& j : free.joints) j.limits.clear();
    free.settings.integrator = SolverSettings{}.integrator;
    const test::FreeRun run = test::runFree(free, 1.0);
    ASSERT_TRUE(run.ran) << run.failure;
    EXPECT_GT(run.kinetic, 0.1);
    EXPECT_NEAR(run.balanceAfter, run.balanceBefore, 1e-5 * run.kinetic);
    EXPECT_LT(run.constraintError, 1e-9);
}

// ---- Limits, damping, springs -------------------------------------------------------------

// One link on one joint from the world at 1 m: a 1 kg arm (its centre of mass 0.25 m along its
// x) on a revolute, or a 3 kg block on a prismatic; `axis` is the <axis> element's content.
std::string oneJointModel(const std::string& type, const std::string& axis) {
    const bool revolute = type != "prismatic";
    return R"(<sdf version="1.8"><model name="one">
  <link name="body"><pose>0 0 1 0 0 0</pose>
    <inertial><pose>)" +
           std::string(revolute ? "0.25 0 0" : "0 0 0") + R"( 0 0 0</pose><mass>)" +
           (revolute ? "1" : "3") + R"(</mass>
      <inertia><ixx>0.0004</ixx><iyy>0.021</iyy><izz>0.021</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
    </inertial></link>
  <joint name="j" type=")" +
           type + R"("><parent>world</parent><child>body</child><axis>)" + axis +
           R"(</axis></joint>
</model></sdf>)";
}

// The sign: an SDF axis position is the Motus coordinate (the markers' z is the axis, and
// positions are zero in the model's pose). An arm on a revolute about +y, released level, is
// turned the positive way by gravity onto its upper stop, about −y onto its lower one, where
// the stop carries gravity's moment m g l cos θ; a block on a slide along +z rests on its lower
// stop with its weight, along −z on its upper one. The stops are unequal, so a stop taken
// with the wrong sign would hold it elsewhere.
TEST(SdfImport, AnArmOrABlockRestsOnTheStopGravityPullsItTowards) {
    const double g = 9.81;
    struct Case {
        std::string type, xyz;
        double rest, force;
    };
    const Case cases[] = {
        {"revolute", "0 1 0", 0.6, -1.0 * g * 0.25 * std::cos(0.6)},
        {"revolute", "0 -1 0", -1.0, 1.0 * g * 0.25 * std::cos(1.0)},
        {"prismatic", "0 0 1", -0.2, 3.0 * g},
        {"prismatic", "0 0 -1", 0.5, -3.0 * g},
    };
    for (const Case& c : cases) {
        const bool revolute = c.type == "revolute";
        const RobotImportResult r = importText(oneJointModel(
            c.type, "<xyz>" + c.xyz + "</xyz><limit><lower>" + (revolute ? "-1" : "-0.2") +
                        "</lower><upper>" + (revolute ? "0.6" : "0.5") +
                        "</upper></limit><dynamics><damping>0.5</damping></dynamics>"));
        ASSERT_TRUE(r.scene) << listed(r);
        const std::string what = c.type + " along " + c.xyz;
        EXPECT_TRUE(r.diagnostics.empty()) << what << "\n" << listed(r);
        ASSERT_EQ(r.scene->forces.size(), 1u);
        EXPECT_EQ(r.scene->forces[0].damping, 0.5);
        const test::Rested rested = test::restFor(*r.scene, 2.0);
        EXPECT_NEAR(rested.sim->state().jointCoordinates(0), c.rest, 1e-6) << what;
        ASSERT_EQ(rested.out.limitForce.size(), 1u);
        EXPECT_NEAR(rested.out.limitForce[0], c.force, 1e-6 * std::abs(c.force)) << what;
        std::printf("SDF %s: rests at %.9f (stop %.9g), stop force %.9g (expected %.9g)\n",
                    what.c_str(), rested.sim->state().jointCoordinates(0), c.rest,
                    rested.out.limitForce[0], c.force);
    }
}

// Damping and a spring on an axis are one spring-damper on its coordinate, at rest at
// spring_reference: a rotational spring-damper on a revolute, a joint controller on a
// prismatic. Unreachable defaults (±1e16) are no stop. A revolute2's axes are the angles of
// its two revolutes and take their stops; a universal joint's axes are its two angles and take
// theirs, their damping is listed, as friction is everywhere.
// A universal joint's angles are SDF's axis positions: 0 in the model's pose, q0 the turn about
// axis 1. An arm held out along y on a universal joint (axis 1 along x) falls about axis 1 onto
// its stop at −0.5 rad and rests there, the stop holding gravity's moment m g d cos 0.5.
TEST(SdfImport, AnArmOnAUniversalJointFallsOntoItsAxisStop) {
    const RobotImportResult r = importText(R"(<sdf version="1.8"><model name="m">
  <link name="arm"><inertial><pose>0 0.3 0 0 0 0</pose><mass>2</mass>
    <inertia><ixx>0.01</ixx><iyy>0.001</iyy><izz>0.01</izz></inertia></inertial></link>
  <joint name="cross" type="universal"><parent>world</parent><child>arm</child>
    <axis><xyz>1 0 0</xyz><limit><lower>-0.5</lower><upper>0.5</upper></limit></axis>
    <axis2><xyz>0 0 1</xyz></axis2></joint>
</model></sdf>)");
    ASSERT_TRUE(r.scene) << listed(r);
    const auto model = test::compiled(*r.scene);
    ASSERT_TRUE(model);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    EXPECT_NEAR(sim.state().jointCoordinates(0), 0.0, 1e-12);
    EXPECT_NEAR(sim.state().jointCoordinates(1), 0.0, 1e-12);
    ASSERT_TRUE(sim.advance(3.0).ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_NEAR(out.jointCoordinates(0), -0.5, 1e-6);
    ASSERT_EQ(out.limitForce.size(), 1u);
    const double moment = 2.0 * 9.81 * 0.3 * std::cos(0.5);
    EXPECT_NEAR(out.limitForce[0], moment, 1e-6 * moment);
}

TEST(SdfImport, SpringsDampersAndStopsGoWhereTheAxisIsACoordinate) {
    const RobotImportResult r = importText(R"(<sdf version="1.8"><model name="m">
  <link name="a"/><link name="b"><pose>0 0 -1 0 0 0</pose></link>
  <link name="c"><pose>0 0 -2 0 0 0</pose></link><link name="d"><pose>0 0 -3 0 0 0</pose></link>
  <joint name="hinge" type="revolute"><parent>world</parent><child>a</child>
    <axis><xyz>0 1 0</xyz><limit><upper>0.7</upper></limit>
      <dynamics><damping>0.4</damping><friction>0.2</friction>
        <spring_stiffness>3</spring_stiffness><spring_reference>0.3</spring_reference></dynamics>
    </axis></joint>
  <joint name="slide" type="prismatic"><parent>a</parent><child>b</child>
    <axis><xyz>0 0 1</xyz><limit><lower>-0.1</lower><upper>0.2</upper></limit>
      <dynamics><damping>5</damping></dynamics></axis></joint>
  <joint name="wheel" type="revolute2"><parent>b</parent><child>c</child>
    <axis><xyz>0 0 1</xyz><limit><lower>-0.5</lower><upper>0.5</upper></limit></axis>
    <axis2><xyz>0 1 0</xyz><limit><lower>-0.25</lower><upper>1.5</upper></limit>
      <dynamics><damping>0.1</damping></dynamics></axis2></joint>
  <joint name="cross" type="universal"><parent>c</parent><child>d</child>
    <axis><xyz>1 0 0</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis>
    <axis2><xyz>0 1 0</xyz><dynamics><damping>0.3</damping></dynamics></axis2></joint>
</model></sdf>)");
    ASSERT_TRUE(r.scene) << listed(r);
    const SceneSpec& s = *r.scene;
    EXPECT_EQ(s.settings.integrator, IntegratorType::TimeStepping);
    auto stop = [&](const char* name) {
        const Joint* j = s.findJoint(name);
        EXPECT_NE(j, nullptr) << name;
        EXPECT_EQ(j ? j->limits.size() : 0u, 1u) << name;
        return j && j->limits.size() == 1 ? j->limits[0] : JointLimit{};
    };
    EXPECT_EQ(stop("hinge").lower, -std::numeric_limits<double>::infinity());
    EXPECT_EQ(stop("hinge").upper, 0.7);
    EXPECT_EQ(stop("slide").lower, -0.1);
    EXPECT_EQ(stop("slide").upper, 0.2);
    EXPECT_EQ(stop("wheel_1").lower, -0.5);
    EXPECT_EQ(stop("wheel_1").upper, 0.5);
    EXPECT_EQ(stop("wheel_2").lower, -0.25);
    EXPECT_EQ(stop("wheel_2").upper, 1.5);
    // A universal joint's axes are its two angles: axis 1's stops on q0.
    ASSERT_EQ(s.findJoint("cross")->limits.size(), 1u);
    EXPECT_EQ(s.findJoint("cross")->limits[0].lower, -1.0);
    EXPECT_EQ(s.findJoint("cross")->limits[0].upper, 1.0);

    ASSERT_EQ(s.forces.size(), 3u);
    const ForceSpec& spring = s.forces[0];
    EXPECT_EQ(spring.type, ForceType::RotationalSpringDamper);
    EXPECT_EQ(spring.name, "hinge_spring");
    EXPECT_EQ(spring.joint, "hinge");
    EXPECT_EQ(spring.stiffness, 3.0);
    EXPECT_EQ(spring.damping, 0.4);
    EXPECT_EQ(spring.freeLength, 0.3);
    const ForceSpec& damper = s.forces[1];
    EXPECT_EQ(damper.type, ForceType::JointController);
    EXPECT_EQ(damper.joint, "slide");
    EXPECT_EQ(damper.axis, JointAxis::Translation);
    EXPECT_EQ(damper.stiffness, 0.0);
    EXPECT_EQ(damper.damping, 5.0);
    EXPECT_EQ(std::stod(damper.components[0]), 0.0);
    const ForceSpec& wheel = s.forces[2];
    EXPECT_EQ(wheel.type, ForceType::RotationalSpringDamper);
    EXPECT_EQ(wheel.joint, "wheel_2");
    EXPECT_EQ(wheel.damping, 0.1);

    // The axis friction: the joint's constant Coulomb friction.
    ASSERT_EQ(s.findJoint("hinge")->friction.size(), 1u);
    EXPECT_EQ(s.findJoint("hinge")->friction[0].preload, 0.2);
    EXPECT_FALSE(mentions(r, Severity::Warning, "friction")) << listed(r);
    EXPECT_FALSE(mentions(r, Severity::Warning, "joint 'cross': axis limits")) << listed(r);
    EXPECT_TRUE(mentions(r, Severity::Warning, "joint 'cross': axis2 damping 0.3 is not modelled"))
        << listed(r);
    EXPECT_FALSE(mentions(r, Severity::Warning, "hinge': axis limits")) << listed(r);
}

// The spring runs as SDF says: an arm on a revolute with a spring at rest at 0.3 rad and
// damping, no gravity, comes to rest at 0.3 rad.
TEST(SdfImport, AnAxisSpringHoldsTheArmAtItsReference) {
    const RobotImportResult r = importText(oneJointModel(
        "revolute",
        "<xyz>0 1 0</xyz><dynamics><damping>1</damping><spring_stiffness>2</spring_stiffness>"
        "<spring_reference>0.3</spring_reference></dynamics>"));
    ASSERT_TRUE(r.scene) << listed(r);
    SceneSpec spec = *r.scene;
    spec.gravity = Vec3::Zero();
    const test::Rested rested = test::restFor(spec, 15.0);
    EXPECT_NEAR(rested.sim->state().jointCoordinates(0), 0.3, 1e-6);
}

// Two models in a world, each with a link called "body": their parts are named by model.
TEST(SdfImport, AWorldsModelsAreAllImportedWithTheWorldsGravity) {
    const RobotImportResult r = importText(R"(<sdf version="1.8"><world name="two">
  <gravity>0 0 -3</gravity>
  <model name="a"><pose>0 0 1 0 0 0</pose>
    <link name="body"><inertial><mass>2</mass></inertial>
      <collision name="c"><geometry><capsule><radius>0.1</radius><length>0.3</length></capsule></geometry></collision>
    </link></model>
  <model name="b"><pose>2 0 1 0 0 0</pose>
    <link name="body"><pose>0 1 0 0 0 0</pose>
      <visual name="v"><geometry><cylinder><radius>0.1</radius><length>0.5</length></cylinder></geometry></visual>
    </link></model>
</world></sdf>)");
    ASSERT_TRUE(r.scene) << listed(r);
    const SceneSpec& s = *r.scene;
    EXPECT_EQ(s.name, "two");
    EXPECT_EQ(s.gravity, Vec3(0, 0, -3));
    ASSERT_EQ(s.parts.size(), 2u);
    const Part* a = s.findPart("a__body");
    const Part* b = s.findPart("b__body");
    ASSERT_TRUE(a && b);
    EXPECT_LT((a->X_WP.p - Vec3(0, 0, 1)).norm(), 1e-15);
    EXPECT_LT((b->X_WP.p - Vec3(2, 1, 1)).norm(), 1e-15);
    EXPECT_EQ(a->mass, 2.0);
    // No <inertial>: libsdformat's (and SDF's) defaults, mass 1 and unit moments.
    EXPECT_EQ(b->mass, 1.0);
    EXPECT_EQ(b->I_Pcm_P, Mat3::Identity());
    ASSERT_EQ(a->shapes.size(), 1u);
    EXPECT_EQ(a->shapes[0].type, ShapeType::Capsule);
    EXPECT_EQ(a->shapes[0].length, 0.3);
    ASSERT_EQ(b->shapes.size(), 1u);
    EXPECT_EQ(b->shapes[0].type, ShapeType::Cylinder);
    EXPECT_EQ(b->shapes[0].role, ShapeRole::Visual);
}

// A static model's links are the ground: their shapes are placed on it where they are. SDF
// joins links of one model only, so the ball hangs from a static model nested in its own.
TEST(SdfImport, AStaticModelsLinksAreTheGround) {
    const RobotImportResult r = importText(R"(<sdf version="1.8"><world name="w">
  <model name="rig"><pose>0 0 0.5 0 0 0</pose>
    <model name="floor"><static>true</static><pose>0 0 -1 0 0 0</pose>
      <link name="slab">
        <collision name="top"><geometry><plane><normal>0 0 1</normal></plane></geometry></collision>
        <collision name="step"><pose>1 0 0 0 0 0</pose><geometry><box><size>1 1 1</size></box></geometry></collision>
      </link>
      <link name="post"><pose>0 0 3 0 0 0</pose></link>
      <joint name="weld" type="fixed"><parent>slab</parent><child>post</child></joint>
    </model>
    <link name="ball"><pose>0 0 1.5 0 0 0</pose>
      <collision name="c"><geometry><sphere><radius>0.1</radius></sphere></geometry></collision></link>
    <joint name="hang" type="ball"><pose>0 0 0.5 0 0 0</pose>
      <parent>floor::post</parent><child>ball</child></joint>
  </model>
</world></sdf>)");
    ASSERT_TRUE(r.scene) << listed(r);
    const SceneSpec& s = *r.scene;
    ASSERT_EQ(s.parts.size(), 2u) << listed(r);  // the ground and the ball
    const Part* ground = s.findPart("world");
    ASSERT_NE(ground, nullptr);
    EXPECT_TRUE(ground->ground);
    ASSERT_EQ(ground->shapes.size(), 2u);
    EXPECT_EQ(ground->shapes[0].type, ShapeType::Plane);
    EXPECT_LT((ground->shapes[0].X_PG.p - Vec3(0, 0, -0.5)).norm(), 1e-15);
    EXPECT_EQ(ground->shapes[1].type, ShapeType::Box);
    EXPECT_LT((ground->shapes[1].X_PG.p - Vec3(1, 0, -0.5)).norm(), 1e-15);
    const Part* ball = s.findPart("ball");
    ASSERT_NE(ball, nullptr);
    EXPECT_LT((ball->X_WP.p - Vec3(0, 0, 2)).norm(), 1e-15);
    // The ball hangs from the static post by a spherical joint 0.5 m above its frame.
    ASSERT_EQ(s.joints.size(), 1u);
    EXPECT_EQ(s.joints[0].type, JointType::Spherical);
    EXPECT_EQ(s.joints[0].markerJ.part, "world");
    EXPECT_LT((markerInWorld(s, s.joints[0].markerJ).p - Vec3(0, 0, 2.5)).norm(), 1e-15);
    EXPECT_LT((markerInWorld(s, s.joints[0].markerI).p - Vec3(0, 0, 2.5)).norm(), 1e-15);
}

TEST(SdfImport, FixedBaseBoltsTheRootLinkDown) {
    RobotImportOptions options;
    options.fixedBase = true;
    const RobotImportResult r = importText(R"(<sdf version="1.8"><model name="m">
  <link name="root"><pose>0 0 1 0 0 0</pose></link>
  <link name="swing"><pose>0.5 0 1 0 0 0</pose></link>
  <joint name="pin" type="continuous"><parent>root</parent><child>swing</child>
    <axis><xyz>0 1 0</xyz></axis></joint>
</model></sdf>)",
                                           options);
    ASSERT_TRUE(r.scene) << listed(r);
    ASSERT_EQ(r.scene->parts.size(), 2u);
    EXPECT_TRUE(r.scene->findPart("world")->ground);
    EXPECT_EQ(r.scene->joints[0].markerJ.part, "world");
}

TEST(SdfImport, Revolute2BecomesTwoRevolutesThroughALightPart) {
    const RobotImportResult r = importText(R"(<sdf version="1.8"><model name="m">
  <link name="a"/><link name="b"><pose>0 0 -1 0 0 0</pose></link>
  <joint name="wheel" type="revolute2"><parent>a</parent><child>b</child>
    <axis><xyz>0 0 1</xyz></axis><axis2><xyz>0 1 0</xyz></axis2></joint>
  <joint name="cross" type="universal"><parent>world</parent><child>a</child>
    <axis><xyz>1 0 0</xyz></axis><axis2><xyz>0 1 0</xyz></axis2></joint>
</model></sdf>)");
    ASSERT_TRUE(r.scene) << listed(r);
    const SceneSpec& s = *r.scene;
    ASSERT_EQ(s.joints.size(), 3u);
    const Part* cross = s.findPart("wheel_cross");
    ASSERT_NE(cross, nullptr);
    EXPECT_EQ(cross->mass, kIntermediateMass);
    EXPECT_EQ(s.findJoint("wheel_1")->type, JointType::Revolute);
    EXPECT_EQ(s.findJoint("wheel_2")->type, JointType::Revolute);
    EXPECT_TRUE(mentions(r, Severity::Warning, "revolute2"));
    const Joint* universal = s.findJoint("cross");
    ASSERT_NE(universal, nullptr);
    EXPECT_EQ(universal->type, JointType::Universal);
    // The cross pins: the parent's marker along axis (x), the child's along axis2 (y).
    EXPECT_LT((markerInWorld(s, universal->markerJ).R * Vec3::UnitZ() - Vec3::UnitX()).norm(),
              1e-15);
    EXPECT_LT((markerInWorld(s, universal->markerI).R * Vec3::UnitZ() - Vec3::UnitY()).norm(),
              1e-15);
}

TEST(SdfImport, ZeroMassIsFixedWithAWarningOrRefusedWhenStrict) {
    const std::string text = R"(<sdf version="1.8"><model name="m">
  <link name="frame"><inertial><mass>0</mass></inertial></link>
</model></sdf>)";
    const RobotImportResult lenient = importText(text);
    ASSERT_TRUE(lenient.scene) << listed(lenient);
    EXPECT_GT(lenient.scene->parts[0].mass, 0.0);
    EXPECT_TRUE(mentions(lenient, Severity::Warning, "link 'frame'")) << listed(lenient);
    RobotImportOptions strict;
    strict.strict = true;
    const RobotImportResult refused = importText(text, strict);
    EXPECT_FALSE(refused.scene);
    EXPECT_TRUE(mentions(refused, Severity::Error, "link 'frame'")) << listed(refused);
}

// A screw joint is a cylindrical joint and a screw coupler: Gazebo's thread_pitch of
// −2π / 0.004 rad/m is a right-hand thread advancing 4 mm a turn. A nut on a vertical screw,
// under gravity, screws itself down: its slide stays 4 mm a turn of its angle.
TEST(SdfImport, AScrewJointIsACylindricalJointWithAScrewCoupler) {
    const RobotImportResult r = importText(R"(<sdf version="1.8"><model name="m">
  <link name="nut"><inertial><mass>0.5</mass>
    <inertia><ixx>0.001</ixx><iyy>0.001</iyy><izz>0.001</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
  </inertial></link>
  <joint name="s" type="screw"><parent>world</parent><child>nut</child>
    <thread_pitch>-1570.7963267948966</thread_pitch><axis><xyz>0 0 1</xyz></axis></joint>
</model></sdf>)");
    ASSERT_TRUE(r.scene) << listed(r);
    ASSERT_EQ(r.scene->joints.size(), 1u);
    EXPECT_EQ(r.scene->joints[0].type, JointType::Cylindrical);
    ASSERT_EQ(r.scene->couplers.size(), 1u);
    EXPECT_EQ(r.scene->couplers[0].type, CouplerType::Screw);
    EXPECT_NEAR(r.scene->couplers[0].pitch, 0.004, 1e-15);
    EXPECT_FALSE(mentions(r, Severity::Warning, "screw")) << listed(r);
    ForwardDynamics sim(test::compiled(*r.scene));
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(0.5).ok);
    const Eigen::VectorXd& q = sim.state().jointCoordinates;
    EXPECT_LT(q(1), -1e-4);  // it went down
    EXPECT_NEAR(q(1), 0.004 * q(0) / (2.0 * kPi), 1e-10);
    // A gearbox joint has no Motus counterpart yet.
    const RobotImportResult gearbox = importText(R"(<sdf version="1.8"><model name="m">
  <link name="a"/><link name="b"/>
  <joint name="g" type="gearbox"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis></joint>
</model></sdf>)");
    ASSERT_TRUE(gearbox.scene) << listed(gearbox);
    EXPECT_TRUE(mentions(gearbox, Severity::Warning, "gearbox joint: left out"));
}

TEST(SdfImport, RobotImportReadsSdfFilesAndWorlds) {
    const RobotImportResult r = importRobotFile(kRobots + "kuka_iiwa/model.sdf");
    ASSERT_TRUE(r.scene) << listed(r);
    EXPECT_EQ(r.scene->parts.size(), 8u);
    EXPECT_EQ(r.scene->joints.size(), 7u);
    // The base link's mass of 0 (as Bullet wanted it) raised, with a warning naming it.
    EXPECT_TRUE(mentions(r, Severity::Warning, "link 'lbr_iiwa_link_0': mass 0 kg")) << listed(r);
    // Collision and visual meshes found next to the file, each in its role.
    const Part* link1 = r.scene->findPart("lbr_iiwa_link_1");
    ASSERT_NE(link1, nullptr);
    ASSERT_EQ(link1->shapes.size(), 2u);
    EXPECT_EQ(link1->shapes[0].type, ShapeType::Mesh);
    EXPECT_EQ(link1->shapes[0].role, ShapeRole::Visual);
    EXPECT_EQ(link1->shapes[1].role, ShapeRole::Collision);
    EXPECT_EQ(link1->shapes[1].meshFile, "meshes/link_1.stl");
    EXPECT_TRUE(link1->shapes[1].mesh);
}

TEST(SdfImport, InertiaFromGeometryKeepsTheMassAndTakesTheShape) {
    RobotImportOptions options;
    options.inertiaFromGeometry = true;
    const RobotImportResult r = importText(R"(<sdf version="1.8"><model name="m">
  <link name="brick"><inertial><mass>6</mass></inertial>
    <visual name="v"><geometry><sphere><radius>5</radius></sphere></geometry></visual>
    <collision name="c"><pose>0.1 0 0 0 0 0</pose><geometry><box><size>1 2 3</size></box></geometry></collision>
  </link></model></sdf>)",
                                           options);
    ASSERT_TRUE(r.scene) << listed(r);
    const Part& brick = r.scene->parts[0];
    EXPECT_EQ(brick.mass, 6.0);
    EXPECT_LT((brick.p_PPcm - Vec3(0.1, 0, 0)).norm(), 1e-15);
    // m/12 (b² + c²), … for a 1 × 2 × 3 box of 6 kg (the collision box, not the visual ball).
    EXPECT_LT((brick.I_Pcm_P - Vec3(6.5, 5.0, 2.5).asDiagonal().toDenseMatrix()).norm(), 1e-12);
}

TEST(SdfImport, ModelUrisAreFoundThroughThePackagePath) {
    const auto root =
        std::filesystem::temp_directory_path() / ("motus-sdf-models-" + std::to_string(::getpid()));
    std::filesystem::create_directories(root / "robot_meshes" / "meshes");
    std::filesystem::copy_file(kRobots + "kuka_iiwa/meshes/finger_tip_left.stl",
                               root / "robot_meshes" / "meshes" / "tip.stl",
                               std::filesystem::copy_options::overwrite_existing);
    const std::string text = R"(<sdf version="1.8"><model name="m"><link name="a">
  <visual name="v"><geometry><mesh><uri>model://robot_meshes/meshes/tip.stl</uri>
    <scale>2 2 2</scale></mesh></geometry></visual></link></model></sdf>)";
    const RobotImportResult unfound = importText(text);
    ASSERT_TRUE(unfound.scene) << listed(unfound);
    EXPECT_TRUE(unfound.scene->parts[0].shapes.empty());
    EXPECT_TRUE(mentions(unfound, Severity::Warning, "tip.stl' not found")) << listed(unfound);
    RobotImportOptions options;
    options.packagePath = {root.string()};
    const RobotImportResult found = importText(text, options);
    ASSERT_TRUE(found.scene) << listed(found);
    ASSERT_EQ(found.scene->parts[0].shapes.size(), 1u);
    EXPECT_EQ(found.scene->parts[0].shapes[0].type, ShapeType::Mesh);
    EXPECT_EQ(found.scene->parts[0].shapes[0].scale, Vec3::Constant(2));
    EXPECT_TRUE(found.scene->parts[0].shapes[0].mesh);
    std::filesystem::remove_all(root);
}

// A world that includes one model twice: each copy's joints join that copy's own links (they
// were all joined to the last copy's links, whose names are the same).
TEST(SdfImport, EachIncludedCopyOfAModelKeepsItsJointsOnItsOwnLinks) {
    const auto root =
        std::filesystem::temp_directory_path() / ("motus-sdf-copies-" + std::to_string(::getpid()));
    std::filesystem::create_directories(root / "arm");
    std::ofstream(root / "arm" / "model.config")
        << R"(<?xml version="1.0"?><model><name>arm</name><sdf version="1.8">model.sdf</sdf></model>)";
    std::ofstream(root / "arm" / "model.sdf") << R"(<?xml version="1.0"?>
<sdf version="1.8"><model name="arm">
  <link name="base"><inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz>
    </inertia></inertial></link>
  <link name="tip"><pose>0.5 0 0 0 0 0</pose><inertial><mass>1</mass><inertia><ixx>0.01</ixx>
    <iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
  <joint name="hinge" type="revolute"><parent>base</parent><child>tip</child>
    <axis><xyz>0 1 0</xyz></axis></joint>
</model></sdf>)";
    const std::string arm = (root / "arm").string();
    std::ofstream(root / "world.sdf") << R"(<?xml version="1.0"?>
<sdf version="1.8"><world name="w">
  <include><uri>)" + arm + R"(</uri><name>left</name><pose>0 -1 0 0 0 0</pose></include>
  <include><uri>)" + arm + R"(</uri><name>right</name><pose>0 1 0 0 0 0</pose></include>
</world></sdf>)";
    const RobotImportResult r = importSdfFile((root / "world.sdf").string());
    std::filesystem::remove_all(root);
    ASSERT_TRUE(r.scene) << listed(r);
    ASSERT_EQ(r.scene->joints.size(), 2u);
    for (const Joint& joint : r.scene->joints) {
        const std::string copy = joint.name.substr(0, joint.name.find_first_of(":_"));
        SCOPED_TRACE(joint.name);
        EXPECT_TRUE(copy == "left" || copy == "right");
        EXPECT_EQ(joint.markerI.part.rfind(copy, 0), 0u) << joint.markerI.part;
        EXPECT_EQ(joint.markerJ.part.rfind(copy, 0), 0u) << joint.markerJ.part;
        // The markers meet where the copy's tip is: y = −1 for the left one, +1 for the right.
        const Vec3 p = markerInWorld(*r.scene, joint.markerI).p;
        EXPECT_NEAR(p.y(), copy == "left" ? -1.0 : 1.0, 1e-12);
        EXPECT_NEAR((markerInWorld(*r.scene, joint.markerJ).p - p).norm(), 0.0, 1e-12);
    }
}

// A model folder for the include tests: model.config naming model.sdf, which holds `body`.
void writeModel(const std::filesystem::path& folder, const std::string& body) {
    std::filesystem::create_directories(folder);
    std::ofstream(folder / "model.config")
        << R"(<?xml version="1.0"?><model><name>m</name><sdf version="1.8">model.sdf</sdf></model>)";
    std::ofstream(folder / "model.sdf")
        << "<?xml version=\"1.0\"?>\n<sdf version=\"1.8\">" + body + "</sdf>";
}

const std::string kLink = R"(<link name="base"><inertial><mass>1</mass><inertia><ixx>0.01</ixx>
  <iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>)";

// libsdformat follows an <include> cycle without end (its memory grows until the process dies):
// a model that includes itself, or A including B including A, is refused naming the chain,
// found as libsdformat finds the files (an absolute path, SDF_PATH) and through the package
// path; a chain of includes deeper than 32 files is refused too.
TEST(SdfImport, IncludeCyclesAreRefusedNamingTheChain) {
    namespace fs = std::filesystem;
    const fs::path root =
        fs::temp_directory_path() / ("motus-sdf-cycles-" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root);
    // Itself, by its absolute path.
    const std::string self = (root / "self.sdf").string();
    std::ofstream(self) << R"(<?xml version="1.0"?>
<sdf version="1.8"><model name="m">)" +
                               kLink + R"(
  <include><uri>)" + self + R"(</uri><name>again</name></include></model></sdf>)";
    RobotImportResult r = importSdfFile(self);
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(mentions(r, Severity::Error,
                         "self.sdf' line 4: <include> '" + self +
                             "': the includes form a cycle, which libsdformat would follow "
                             "without end: " +
                             self + " → " + self))
        << listed(r);

    // A → B → A through model:// URIs, found in SDF_PATH (libsdformat's own search).
    writeModel(
        root / "models" / "arm",
        "<model name=\"arm\">" + kLink + "<include><uri>model://gripper</uri></include></model>");
    writeModel(root / "models" / "gripper",
               "<model name=\"gripper\">" + kLink +
                   "<include><uri>model://arm</uri><name>arm2</name></include></model>");
    std::ofstream(root / "world.sdf") << R"(<?xml version="1.0"?>
<sdf version="1.8"><world name="w"><include><uri>model://arm</uri></include></world></sdf>)";
    ::setenv("SDF_PATH", (root / "models").c_str(), 1);
    r = importSdfFile((root / "world.sdf").string());
    ::unsetenv("SDF_PATH");
    EXPECT_FALSE(r.scene);
    const std::string arm = (root / "models" / "arm" / "model.sdf").string();
    const std::string gripper = (root / "models" / "gripper" / "model.sdf").string();
    EXPECT_TRUE(mentions(r, Severity::Error,
                         "gripper/model.sdf' line 3: <include> 'model://arm': the includes form "
                         "a cycle, which libsdformat would follow without end: " +
                             arm + " → " + gripper + " → " + arm))
        << listed(r);
    // The same files found through the package path; and the checks alone (sdfReadProblem,
    // which the import makes first) say the same without libsdformat reading anything.
    RobotImportOptions options;
    options.packagePath = {(root / "models").string()};
    r = importSdfFile((root / "world.sdf").string(), options);
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(mentions(r, Severity::Error, "the includes form a cycle")) << listed(r);
    EXPECT_EQ(sdfReadProblem((root / "world.sdf").string(), options),
              "'" + gripper +
                  "' line 3: <include> 'model://arm': the includes form a cycle, which "
                  "libsdformat would follow without end: " +
                  arm + " → " + gripper + " → " + arm);
    EXPECT_NE(sdfReadProblem((root / "models").string()).find("models' is a folder"),
              std::string::npos);
    EXPECT_EQ(sdfReadProblem((root / "models" / "arm" / "model.config").string()), "");

    // Forty models each including the next, without a cycle: refused at 32 files.
    for (int k = 0; k < 40; ++k)
        writeModel(
            root / "chain" / ("m" + std::to_string(k)),
            "<model name=\"m" + std::to_string(k) + "\">" + kLink +
                (k + 1 < 40 ? "<include><uri>model://m" + std::to_string(k + 1) + "</uri></include>"
                            : std::string()) +
                "</model>");
    options.packagePath = {(root / "chain").string()};
    r = importSdfFile((root / "chain" / "m0" / "model.sdf").string(), options);
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(mentions(r, Severity::Error, "includes nested more than 32 deep: ")) << listed(r);
    // Eight deep is a robot like any other, its models found through the package path.
    r = importSdfFile((root / "chain" / "m32" / "model.sdf").string(), options);
    ASSERT_TRUE(r.scene) << listed(r);
    EXPECT_EQ(r.scene->parts.size(), 8u);
    fs::remove_all(root);
}

// libsdformat keeps about a megabyte for every link it reads (2,000 links: 1.8 GB, 10 s;
// 10,000: 9.9 GB). The elements are counted first, an included file as often as it is
// included, and a file libsdformat would need more than 1.5 GB for is refused with the counts.
TEST(SdfImport, FilesTooLargeForLibsdformatAreRefusedBeforeItReadsThem) {
    std::string links;
    for (int k = 0; k < 2000; ++k)
        links += "<link name=\"l" + std::to_string(k) + "\"><pose>" + std::to_string(k) +
                 " 0 0 0 0 0</pose></link>";
    RobotImportResult r =
        importText("<sdf version=\"1.8\"><model name=\"big\">" + links + "</model></sdf>");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(mentions(r, Severity::Error,
                         "is too large to import: it holds 1 model, 2000 links, 0 visuals or "
                         "collisions and 2001 other elements (an included file counted each time "
                         "it is included), which libsdformat would take about 1.8 GB to read "
                         "(0.9 MB a link, 2.3 MB a model), more than 1.5 GB"))
        << listed(r);

    // A model of 100 links included twenty times.
    namespace fs = std::filesystem;
    const fs::path root =
        fs::temp_directory_path() / ("motus-sdf-large-" + std::to_string(::getpid()));
    fs::remove_all(root);
    writeModel(root / "hundred", "<model name=\"hundred\">" +
                                     links.substr(0, links.find("<link name=\"l100\"")) +
                                     "</model>");
    std::string world = "<?xml version=\"1.0\"?><sdf version=\"1.8\"><world name=\"w\">";
    for (int k = 0; k < 20; ++k)
        world += "<include><uri>" + (root / "hundred").string() + "</uri><name>h" +
                 std::to_string(k) + "</name></include>";
    std::ofstream(root / "world.sdf") << world + "</world></sdf>";
    r = importSdfFile((root / "world.sdf").string());
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(mentions(r, Severity::Error, "it holds 20 models, 2000 links")) << listed(r);
    fs::remove_all(root);
}

// libsdformat prints its reasons to the terminal, in colour, and the URDF parser it then tries
// the file with prints its own: both become diagnostics, and nothing is printed.
TEST(SdfImport, LibsdformatsOwnMessagesBecomeDiagnosticsNotTerminalOutput) {
    ::testing::internal::CaptureStderr();
    ::testing::internal::CaptureStdout();
    const RobotImportResult r = importText(R"(<?xml version="1.0"?>
<sdf version="1.8"><model name="m"><link name="a"><pose>1 2 3</pose></link></model></sdf>)");
    const std::string printed =
        ::testing::internal::GetCapturedStderr() + ::testing::internal::GetCapturedStdout();
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(mentions(r, Severity::Error, "libsdformat: The value for //pose")) << listed(r);
    EXPECT_TRUE(mentions(r, Severity::Error, "must have 6 values, but 3 were found")) << listed(r);
    EXPECT_EQ(printed, "");
    // What libsdformat writes straight to std::cerr (a name with its scope delimiter), and
    // no word from the URDF parser it then tries, since libsdformat said why.
    ::testing::internal::CaptureStderr();
    ::testing::internal::CaptureStdout();
    const RobotImportResult d = importText(R"(<?xml version="1.0"?>
<sdf version="1.8"><model name="m"><link name="b::c"><inertial><mass>1</mass></inertial></link>
</model></sdf>)");
    const std::string written =
        ::testing::internal::GetCapturedStderr() + ::testing::internal::GetCapturedStdout();
    EXPECT_FALSE(d.scene);
    EXPECT_TRUE(mentions(d, Severity::Error,
                         "libsdformat: Detected delimiter '::' in element name in <link "
                         "name='b::c'> <inertial> <mass>1</mass>"))
        << listed(d);
    EXPECT_FALSE(mentions(d, Severity::Error, "as URDF")) << listed(d);
    EXPECT_EQ(written, "");
}

// libsdformat's description of the format is parsed once per process and copied for each
// file: what one file reads, adds or gets wrong never shows in the next one.
TEST(SdfImport, EachFileIsReadFromItsOwnCopyOfTheFormatsDescription) {
    const test::TempTextFile pendulum(kPendulum, ".sdf");
    const RobotImportResult first = importSdfFile(pendulum.path());
    ASSERT_TRUE(first.scene) << listed(first);
    const std::string expected = sceneToJson(*first.scene);
    // A file that fails half way, one of an older version (converted as it is read), a world
    // with custom elements and attributes, then the pendulum again.
    EXPECT_FALSE(importText(R"(<sdf version="1.8"><model name="m"><link name="a">)").scene);
    const RobotImportResult older = importText(R"(<sdf version="1.6"><model name="old">
  <link name="a"><inertial><mass>2</mass></inertial></link></model></sdf>)");
    EXPECT_TRUE(older.scene) << listed(older);
    const RobotImportResult custom =
        importText(R"(<sdf version="1.8" xmlns:acme="http://example.com"><world name="w">
  <acme:extra acme:note="x"/><gravity>0 0 -3</gravity>
  <model name="m"><link name="a"><inertial><mass>1</mass></inertial></link></model></world></sdf>)");
    ASSERT_TRUE(custom.scene) << listed(custom);
    EXPECT_EQ(custom.scene->gravity, Vec3(0, 0, -3));
    const RobotImportResult again = importSdfFile(pendulum.path());
    ASSERT_TRUE(again.scene) << listed(again);
    EXPECT_EQ(sceneToJson(*again.scene), expected);
    EXPECT_EQ(listed(again), listed(first));
}

TEST(SdfImport, MalformedFilesAreErrorsNotCrashes) {
    // Not there.
    RobotImportResult r = importSdfFile("/nonexistent/robot.sdf");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(mentions(r, Severity::Error, "cannot open"));
    // Not XML.
    r = importText("<sdf version=\"1.8\"><model name=\"m\"><link name=\"a\">");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(hasErrors(r.diagnostics));
    EXPECT_TRUE(mentions(r, Severity::Error, "motus-test-")) << listed(r);  // names the file
    r = importText("this is not XML at all");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(hasErrors(r.diagnostics));
    // A model with no link.
    r = importText(R"(<sdf version="1.8"><model name="empty"></model></sdf>)");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(hasErrors(r.diagnostics));
    // A world with no model.
    r = importText(R"(<sdf version="1.8"><world name="empty"></world></sdf>)");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(mentions(r, Severity::Error, "holds no model")) << listed(r);
    // Numbers that are not finite.
    r = importText(R"(<sdf version="1.8"><model name="m">
  <link name="a"><pose>nan 0 0 0 0 0</pose></link></model></sdf>)");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(hasErrors(r.diagnostics)) << listed(r);
    r = importText(R"(<sdf version="1.8"><model name="m">
  <link name="a"><inertial><mass>inf</mass></inertial></link></model></sdf>)");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(hasErrors(r.diagnostics)) << listed(r);
    // A joint naming a link that is not there.
    r = importText(R"(<sdf version="1.8"><model name="m"><link name="a"/>
  <joint name="j" type="revolute"><parent>a</parent><child>ghost</child><axis><xyz>0 0 1</xyz></axis></joint>
</model></sdf>)");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(hasErrors(r.diagnostics)) << listed(r);
    // A zero axis.
    r = importText(R"(<sdf version="1.8"><model name="m"><link name="a"/><link name="b"/>
  <joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 0</xyz></axis></joint>
</model></sdf>)");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(hasErrors(r.diagnostics)) << listed(r);
    // Elements nested a hundred thousand deep.
    std::string deep = "<sdf version=\"1.8\"><model name=\"m\"><link name=\"a\">";
    for (int k = 0; k < 100000; ++k) deep += "<x>";
    r = importText(deep);
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(hasErrors(r.diagnostics));
}

// Real models: each imports without errors, compiles, and swings (bolted down) or falls
// (floating) for 1 s under gravity, no contact, no drive: as imported, its limits stops and
// the run time-stepped, within its stops (to the reach of one step) with its joints closed and
// its energy balance within the first-order method's error (a few percent of what the motion
// exchanges); without its stops, integrated by dopri45, with its energy balanced to 1e-5 of
// the kinetic energy. A floating robot falls as one body (no joint moves in free fall); bolted
// down, its joints swing. Cassie bolted down runs the second without its stops now that its
// knee and heel springs and its joints' damping are modelled (without them its foot's
// four-bar, tarsus crank, plantar rod and foot, reached its dead point at 0.084 s, where the
// solver rightly stopped). With its stops it does not start: the file's pose has the tarsus
// crank and the foot at 0, beyond their stops [−2.44, −0.61], and with the farthest passed
// stop held at its end (the assembly holds them one at a time) the four-bar cannot close.
struct RealModel {
    const char* name;
    const char* file;
    bool fixedBase;
    bool startsWithinStops = true;
    // Dampers the compiler's stability estimate (the two parts a force joins, alone) says the
    // time-stepping integrator's explicit step of 1 ms cannot follow: Cassie's on its tarsus
    // crank and foot, parts of the foot's four-bar, which the estimate leaves out.
    int stepWarnings = 0;
};

class SdfRealModel : public ::testing::TestWithParam<RealModel> {};

TEST_P(SdfRealModel, ImportsAndRunsUnderGravityWithEnergyBalanced) {
    RobotImportOptions options;
    options.fixedBase = GetParam().fixedBase;
    const RobotImportResult r = importSdfFile(kRobots + GetParam().file, options);
    ASSERT_TRUE(r.scene) << listed(r);
    EXPECT_FALSE(hasErrors(r.diagnostics)) << listed(r);

    const test::StoppedRun stopped = test::runWithStops(*r.scene, 1.0);
    EXPECT_EQ(test::countStepWarnings(stopped.diagnostics), GetParam().stepWarnings);
    if (GetParam().startsWithinStops) {
        ASSERT_TRUE(stopped.ran) << stopped.failure;
        EXPECT_GT(stopped.kinetic, 1e-3);
        EXPECT_LT(stopped.overshoot, 1e-3);
        EXPECT_LT(stopped.constraintError, 1e-8);
        EXPECT_LT(stopped.drift, 0.05 * stopped.exchanged);
        std::printf(
            "%s with its stops: kinetic %.4g J, balance drift %.3g of %.4g J exchanged, "
            "stops passed by %.3g at most, joints closed to %.3g\n",
            GetParam().name, stopped.kinetic, stopped.drift / stopped.exchanged, stopped.exchanged,
            stopped.overshoot, stopped.constraintError);
    } else {
        EXPECT_FALSE(stopped.ran);
        EXPECT_NE(stopped.failure.find("cannot be assembled within its joints' end stops"),
                  std::string::npos)
            << stopped.failure;
    }

    const test::FreeRun run = test::runFree(test::withoutStops(*r.scene), 1.0);
    ASSERT_TRUE(run.ran) << run.failure;
    EXPECT_GT(run.kinetic, 1e-3);
    EXPECT_NEAR(run.balanceAfter, run.balanceBefore, 1e-5 * run.kinetic);
    EXPECT_LT(run.constraintError, 1e-8);
}

INSTANTIATE_TEST_SUITE_P(
    Sdf, SdfRealModel,
    ::testing::Values(RealModel{"kuka_iiwa", "kuka_iiwa/model.sdf", true},
                      RealModel{"kuka_iiwa_floating", "kuka_iiwa/model.sdf", false},
                      RealModel{"kuka_iiwa_with_wsg50", "kuka_iiwa/kuka_with_gripper2.sdf", true},
                      RealModel{"cassie", "cassie/cassie_v2.sdf", true, false, 4},
                      RealModel{"cassie_floating", "cassie/cassie_v2.sdf", false, false, 4}),
    [](const ::testing::TestParamInfo<RealModel>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace engine::io
