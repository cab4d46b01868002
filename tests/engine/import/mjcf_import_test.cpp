#include "engine/import/mjcf_import.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string_view>

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/import/robot_import.h"
#include "engine/import/urdf_import.h"
#include "engine/io/scene_json.h"
#include "engine/model/model.h"
#include "tests/support/robot_runs.h"
#include "tests/support/simulation.h"
#include "tests/support/temp_text_file.h"

namespace engine::io {
namespace {

const std::string kRobots = MOTUS_SOURCE_DIR "/tests/data/robots";

// Imports MJCF text through a file of its own (MuJoCo reads files).
RobotImportResult importText(const std::string& text) {
    const test::TempTextFile file(text, ".xml");
    return importMjcfFile(file.path());
}

std::string allMessages(const RobotImportResult& r) {
    std::string text;
    for (const Diagnostic& d : r.diagnostics) text += d.where + ": " + d.message + "\n";
    return text;
}

bool mentions(const RobotImportResult& r, Severity severity, std::string_view text) {
    return std::any_of(r.diagnostics.begin(), r.diagnostics.end(), [&](const Diagnostic& d) {
        return d.severity == severity && d.message.find(text) != std::string::npos;
    });
}

Transform markerInWorld(const SceneSpec& s, const MarkerRef& ref) {
    return s.findPart(ref.part)->X_WP * s.findMarker(ref)->X_PM;
}

// Both markers of every joint are at one place with z along one axis (at qpos0).
void expectJointsClosed(const SceneSpec& s) {
    for (const Joint& j : s.joints) {
        const Transform X_WI = markerInWorld(s, j.markerI);
        const Transform X_WJ = markerInWorld(s, j.markerJ);
        EXPECT_LT((X_WI.p - X_WJ.p).norm(), 1e-12) << j.name;
        if (j.type != JointType::Universal && j.type != JointType::Spherical) {
            EXPECT_LT((X_WI.R * Vec3::UnitZ() - X_WJ.R * Vec3::UnitZ()).norm(), 1e-12) << j.name;
        }
    }
}

// Two bodies under the world: a hinge with a known anchor and axis, a slide, a box and a
// visual-only sphere, and a connect equality closing a loop to the ground.
const std::string kPair = R"(<mujoco model="pair">
  <compiler angle="radian" inertiafromgeom="false"/>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 2 0" pos="0.1 0 0"/>
      <inertial pos="0.3 0 0" mass="2" diaginertia="0.01 0.02 0.03"/>
      <geom type="box" size="0.3 0.05 0.02" pos="0.3 0 0" rgba="1 0 0 1"/>
      <geom type="sphere" size="0.04" pos="0.6 0 0" contype="0" conaffinity="0"/>
      <body name="link" pos="0.6 0 0">
        <joint name="slider" type="slide" axis="1 0 0"/>
        <inertial pos="0 0 0" mass="1" diaginertia="0.001 0.001 0.001"/>
      </body>
    </body>
  </worldbody>
  <equality><connect name="pin" body1="link" body2="world" anchor="0.2 0 0"/></equality>
</mujoco>
)";

TEST(MjcfImport, BodiesJointsGeomsAndAConnectBecomeExactlyTheExpectedScene) {
    const RobotImportResult r = importText(kPair);
    ASSERT_TRUE(r.scene) << allMessages(r);
    EXPECT_FALSE(hasErrors(r.diagnostics));
    const SceneSpec& s = *r.scene;
    EXPECT_EQ(s.name, "pair");
    EXPECT_EQ(s.gravity, Vec3(0, 0, -9.81));
    ASSERT_EQ(s.parts.size(), 3u) << allMessages(r);
    const Part* world = s.findPart("world");
    const Part* arm = s.findPart("arm");
    const Part* link = s.findPart("link");
    ASSERT_TRUE(world && arm && link);
    EXPECT_TRUE(world->ground);
    EXPECT_FALSE(arm->ground);
    EXPECT_LT((arm->X_WP.p - Vec3(0, 0, 1)).norm(), 1e-15);
    EXPECT_LT((link->X_WP.p - Vec3(0.6, 0, 1)).norm(), 1e-15);
    EXPECT_EQ(arm->mass, 2.0);
    EXPECT_LT((arm->p_PPcm - Vec3(0.3, 0, 0)).norm(), 1e-15);
    EXPECT_LT((arm->I_Pcm_P - Vec3(0.01, 0.02, 0.03).asDiagonal().toDenseMatrix()).norm(), 1e-15);

    // The box (half sizes in MJCF, edge lengths in Motus) and the sphere drawn only.
    ASSERT_EQ(arm->shapes.size(), 2u);
    EXPECT_EQ(arm->shapes[0].type, ShapeType::Box);
    EXPECT_LT((arm->shapes[0].size - Vec3(0.6, 0.1, 0.04)).norm(), 1e-15);
    EXPECT_LT((arm->shapes[0].X_PG.p - Vec3(0.3, 0, 0)).norm(), 1e-15);
    EXPECT_EQ(arm->shapes[0].role, ShapeRole::Both);
    EXPECT_EQ(arm->shapes[1].type, ShapeType::Sphere);
    EXPECT_EQ(arm->shapes[1].radius, 0.04);
    EXPECT_EQ(arm->shapes[1].role, ShapeRole::Visual);
    EXPECT_EQ(arm->colorRgb, 0xff0000u);

    // The hinge: on the arm at its anchor, on the world where that is at qpos0, z along y (the
    // axis normalised); the child is marker I.
    ASSERT_EQ(s.joints.size(), 3u);
    const Joint* hinge = s.findJoint("hinge");
    ASSERT_NE(hinge, nullptr);
    EXPECT_EQ(hinge->type, JointType::Revolute);
    EXPECT_EQ(hinge->markerI.part, "arm");
    EXPECT_EQ(hinge->markerJ.part, "world");
    EXPECT_LT((s.findMarker(hinge->markerI)->X_PM.p - Vec3(0.1, 0, 0)).norm(), 1e-15);
    EXPECT_LT((s.findMarker(hinge->markerJ)->X_PM.p - Vec3(0.1, 0, 1)).norm(), 1e-15);
    EXPECT_LT((s.findMarker(hinge->markerJ)->X_PM.R * Vec3::UnitZ() - Vec3::UnitY()).norm(), 1e-15);
    const Joint* slider = s.findJoint("slider");
    ASSERT_NE(slider, nullptr);
    EXPECT_EQ(slider->type, JointType::Prismatic);
    EXPECT_EQ(slider->markerI.part, "link");
    EXPECT_EQ(slider->markerJ.part, "arm");
    EXPECT_LT((s.findMarker(slider->markerI)->X_PM.R * Vec3::UnitZ() - Vec3::UnitX()).norm(),
              1e-15);
    // The connect: a spherical joint at the anchor, 0.2 m along the link.
    const Joint* pin = s.findJoint("pin");
    ASSERT_NE(pin, nullptr);
    EXPECT_EQ(pin->type, JointType::Spherical);
    EXPECT_EQ(pin->markerI.part, "link");
    EXPECT_EQ(pin->markerJ.part, "world");
    EXPECT_LT((s.findMarker(pin->markerI)->X_PM.p - Vec3(0.2, 0, 0)).norm(), 1e-15);
    EXPECT_LT((s.findMarker(pin->markerJ)->X_PM.p - Vec3(0.8, 0, 1)).norm(), 1e-15);
    expectJointsClosed(s);
    // Contact stays off.
    EXPECT_FALSE(s.contact.enabled);
}

// The same file through importRobotFile, which tells MJCF by its root element.
TEST(MjcfImport, RobotImportReadsMjcfByItsRootElement) {
    const RobotImportResult r = importRobotFile(kRobots + "/mjcf/walker2d.xml");
    ASSERT_TRUE(r.scene) << allMessages(r);
    EXPECT_NE(r.scene->findPart("torso"), nullptr);
}

// A body with several joints: MuJoCo composes them, Motus joins two parts with one joint.
TEST(MjcfImport, SeveralJointsInOneBodyBecomeOneJointWhereTheyAreOne) {
    const auto body = [](const std::string& joints) {
        return R"(<mujoco><worldbody><body name="base" pos="0 0 1">
  <inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
  <body name="b" pos="0 0 -0.5">)" +
               joints + R"(
    <inertial pos="0 0 -0.2" mass="2" diaginertia="0.02 0.02 0.01"/></body>
</body></worldbody></mujoco>)";
    };
    // Two perpendicular hinges through one point: a universal joint, first axis on the parent.
    {
        const RobotImportResult r =
            importText(body(R"(<joint name="ax" axis="1 0 0"/><joint name="ay" axis="0 1 0"/>)"));
        ASSERT_TRUE(r.scene) << allMessages(r);
        const Joint* j = r.scene->findJoint("ax_ay");
        ASSERT_NE(j, nullptr) << allMessages(r);
        EXPECT_EQ(j->type, JointType::Universal);
        EXPECT_LT((markerInWorld(*r.scene, j->markerJ).R * Vec3::UnitZ() - Vec3::UnitX()).norm(),
                  1e-15);
        EXPECT_LT((markerInWorld(*r.scene, j->markerI).R * Vec3::UnitZ() - Vec3::UnitY()).norm(),
                  1e-15);
        EXPECT_EQ(r.scene->parts.size(), 3u);  // world, base, b
    }
    // Three hinges through one point: a spherical joint, said in a warning.
    {
        const RobotImportResult r = importText(body(
            R"(<joint name="x" axis="1 0 0"/><joint name="y" axis="0 1 0"/><joint name="z" axis="0 0 1"/>)"));
        ASSERT_TRUE(r.scene) << allMessages(r);
        const Joint* j = r.scene->findJoint("x_y_z");
        ASSERT_NE(j, nullptr);
        EXPECT_EQ(j->type, JointType::Spherical);
        EXPECT_TRUE(mentions(r, Severity::Warning, "joined as one spherical joint"));
    }
    // Two slides and a hinge about their plane's normal: a planar joint.
    {
        const RobotImportResult r = importText(body(
            R"(<joint name="px" type="slide" axis="1 0 0"/><joint name="pz" type="slide" axis="0 0 1"/><joint name="ry" axis="0 1 0" pos="0 0 -0.1"/>)"));
        ASSERT_TRUE(r.scene) << allMessages(r);
        const Joint* j = r.scene->findJoint("px_pz_ry");
        ASSERT_NE(j, nullptr);
        EXPECT_EQ(j->type, JointType::Planar);
        EXPECT_LT((markerInWorld(*r.scene, j->markerI).p - Vec3(0, 0, 0.4)).norm(), 1e-15);
    }
    // Two hinges at different anchors: a chain through a light part, named in a warning.
    {
        const RobotImportResult r = importText(body(
            R"(<joint name="h1" axis="1 0 0"/><joint name="h2" axis="1 0 0" pos="0 0 -0.1"/>)"));
        ASSERT_TRUE(r.scene) << allMessages(r);
        const SceneSpec& s = *r.scene;
        ASSERT_EQ(s.parts.size(), 4u);
        const Part* light = s.findPart("b_h1");
        ASSERT_NE(light, nullptr);
        EXPECT_DOUBLE_EQ(light->mass, 2e-3);
        EXPECT_EQ(s.findJoint("h1")->markerI.part, "b_h1");
        EXPECT_EQ(s.findJoint("h2")->markerJ.part, "b_h1");
        EXPECT_EQ(s.findJoint("h2")->markerI.part, "b");
        EXPECT_TRUE(mentions(r, Severity::Warning, "chained through 1 light part of 0.002 kg"));
        expectJointsClosed(s);
        // It runs: the chain is a double pendulum.
        const auto model = test::compiled(s);
        ASSERT_TRUE(model);
        ForwardDynamics sim(model);
        ASSERT_TRUE(sim.initialize().ok);
    }
}

// Joint springs and dampers are rotational spring-dampers; what has no counterpart is listed.
TEST(MjcfImport, JointSpringsBecomeForcesAndTheRestIsListed) {
    const RobotImportResult r = importText(R"(<mujoco><compiler angle="radian"/>
  <worldbody><body name="b">
  <joint name="h" axis="0 1 0" stiffness="5" damping="0.5" springref="0.3" ref="0.1"
         armature="0.01" frictionloss="0.2" limited="true" range="-1 1"/>
  <geom type="capsule" size="0.05 0.2"/></body></worldbody>
  <actuator><motor name="m" joint="h"/><position name="servo" joint="h" kp="40"/></actuator>
</mujoco>)");
    ASSERT_TRUE(r.scene) << allMessages(r);
    const SceneSpec& s = *r.scene;
    ASSERT_EQ(s.forces.size(), 2u) << allMessages(r);
    const ForceSpec& spring = s.forces[0];
    EXPECT_EQ(spring.type, ForceType::RotationalSpringDamper);
    EXPECT_EQ(spring.joint, "h");
    EXPECT_EQ(spring.stiffness, 5.0);
    EXPECT_EQ(spring.damping, 0.5);
    EXPECT_NEAR(spring.freeLength, 0.3 - 0.1, 1e-15);  // springref from qpos0 (= ref)
    const ForceSpec& servo = s.forces[1];
    EXPECT_EQ(servo.type, ForceType::JointController);
    EXPECT_EQ(servo.stiffness, 40.0);
    EXPECT_NEAR(std::stod(servo.components[0]), -0.1, 1e-15);  // q = 0 is 0.1 below qpos0
    // The range is the hinge's stops, from qpos0 (ref) as its angle is.
    const Joint* h = s.findJoint("h");
    ASSERT_EQ(h->limits.size(), 1u);
    EXPECT_NEAR(h->limits[0].lower, -1.1, 1e-15);
    EXPECT_NEAR(h->limits[0].upper, 0.9, 1e-15);
    EXPECT_EQ(s.settings.integrator, IntegratorType::TimeStepping);
    EXPECT_FALSE(mentions(r, Severity::Warning, "range")) << allMessages(r);
    // Friction loss: the hinge's constant Coulomb friction.
    ASSERT_EQ(h->friction.size(), 1u);
    EXPECT_EQ(h->friction[0].preload, 0.2);
    // Armature: a rotor of that inertia on a ground axle, geared 1 : 1 to the hinge.
    const Part* rotor = s.findPart("h_armature");
    ASSERT_NE(rotor, nullptr) << allMessages(r);
    EXPECT_EQ(rotor->I_Pcm_P(2, 2), 0.01);
    EXPECT_TRUE(rotor->shapes.empty());
    ASSERT_EQ(s.couplers.size(), 1u);
    EXPECT_EQ(s.couplers[0].type, CouplerType::Linear);
    ASSERT_EQ(s.couplers[0].terms.size(), 2u);
    EXPECT_EQ(s.couplers[0].terms[1].joint, "h");
    EXPECT_FALSE(mentions(r, Severity::Warning, "armature")) << allMessages(r);
    EXPECT_FALSE(mentions(r, Severity::Warning, "frictionloss")) << allMessages(r);
    EXPECT_TRUE(mentions(r, Severity::Warning,
                         "motor 'm' on joint 'h' has no control input in Motus: left out"));
    // The capsule: radius and the length of its straight part.
    const Part* b = s.findPart("b");
    ASSERT_EQ(b->shapes.size(), 1u);
    EXPECT_EQ(b->shapes[0].type, ShapeType::Capsule);
    EXPECT_EQ(b->shapes[0].length, 0.4);
}

// ---- Ranges as stops ----------------------------------------------------------------------

// MuJoCo's own run of the same file: the joint's qpos after `seconds` from qpos0.
double mujocoRestsAt(const std::string& text, const char* joint, double seconds) {
    const test::TempTextFile file(text, ".xml");
    char error[512] = "";
    std::unique_ptr<mjModel, void (*)(mjModel*)> m(
        mj_loadXML(file.path().c_str(), nullptr, error, sizeof error), mj_deleteModel);
    EXPECT_TRUE(m) << error;
    if (!m) return 0.0;
    std::unique_ptr<mjData, void (*)(mjData*)> d(mj_makeData(m.get()), mj_deleteData);
    while (d->time < seconds) mj_step(m.get(), d.get());
    return d->qpos[m->jnt_qposadr[mj_name2id(m.get(), mjOBJ_JOINT, joint)]];
}

// The sign and the zero: MuJoCo's range is on qpos, in degrees in the file (the compiler's
// default) and radians in the model; the Motus coordinate is qpos − qpos0, qpos0 being the
// joint's ref (the pose the bodies are placed in). An arm placed level with ref 10° and range
// [−60°, 30°] has stops at −70° and 20°: gravity turns it about +y the positive way onto the
// upper one, 20° below level, where the stop carries m g l cos 20°; about −y, onto the lower
// one at 70° below. A 3 kg block on a vertical slide (ref 0.1 m, range [−0.2, 0.5] m: stops at
// −0.3 and 0.4) rests on the lower stop with its weight, on a slide along −z on the upper one.
// MuJoCo's own run of each file rests where Motus does (its stops are soft: within 0.01).
// Armature is inertia on the joint's coordinate alone: a pendulum with armature 0.05 kg·m²
// released at 0.5 rad starts with MuJoCo's own angular acceleration (mj_forward's qacc), and
// keeps its energy, the rotor's included. A joint equality couples two hinges as MuJoCo's
// polycoef says: q2 − q2₀ = 0.1 + 0.5 (q1 − q1₀) (here the second hinge's is joint 1).
TEST(MjcfImport, ArmatureAddsTheRotorsInertiaAndAJointEqualityCouplesTheHinges) {
    const std::string text = R"(<mujoco><compiler angle="radian"/><option timestep="0.001"/>
  <worldbody><body name="arm"><joint name="h" axis="0 1 0" armature="0.05"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/></body></worldbody>
  <keyframe><key qpos="0.5"/></keyframe>
</mujoco>)";
    const RobotImportResult r = importText(text);
    ASSERT_TRUE(r.scene) << allMessages(r);
    EXPECT_FALSE(mentions(r, Severity::Warning, "armature")) << allMessages(r);
    // MuJoCo at 0.5 rad, from rest.
    char error[512] = "";
    std::unique_ptr<mjModel, void (*)(mjModel*)> m(
        mj_loadXML(test::TempTextFile(text, ".xml").path().c_str(), nullptr, error, sizeof error),
        mj_deleteModel);
    ASSERT_TRUE(m) << error;
    std::unique_ptr<mjData, void (*)(mjData*)> d(mj_makeData(m.get()), mj_deleteData);
    d->qpos[0] = 0.5;
    mj_forward(m.get(), d.get());
    const double alphaMujoco = d->qacc[0];
    // Motus, the arm turned to 0.5 rad (about +y, as MuJoCo's hinge), a short dopri45 run.
    SceneSpec spec = *r.scene;
    Part* arm = nullptr;
    for (Part& p : spec.parts)
        if (p.name == "arm") arm = &p;
    ASSERT_NE(arm, nullptr);
    arm->X_WP.R = quatFromAxisAngle(Vec3::UnitY(), 0.5) * arm->X_WP.R;
    ForwardDynamics sim(test::compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    Outputs start;
    ASSERT_TRUE(sim.outputs(start).ok);
    const double h = 1e-5;
    ASSERT_TRUE(sim.advance(h).ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    const double alpha = out.jointRates(0) / h;
    EXPECT_NEAR(alpha, alphaMujoco, 1e-3 * std::abs(alphaMujoco))
        << "Motus " << alpha << ", MuJoCo " << alphaMujoco;
    // Without the armature the arm would start faster (I = m l² / 3 + ... alone).
    EXPECT_GT(std::abs(alpha) * 1.2, std::abs(alphaMujoco));
    ASSERT_TRUE(sim.advance(1.0).ok);
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_NEAR(out.energies.balance(), start.energies.balance(),
                1e-7 * std::max(1.0, out.energies.kinetic));
    std::printf("MJCF armature: Motus starts at %.9g rad/s², MuJoCo at %.9g\n", alpha, alphaMujoco);

    // The equality: hinge b follows hinge a.
    const RobotImportResult coupled = importText(R"(<mujoco><compiler angle="radian"/>
  <worldbody><body name="a"><joint name="ja" axis="0 1 0"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/>
    <body name="b" pos="0.3 0 0"><joint name="jb" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/></body></body></worldbody>
  <equality><joint name="follow" joint1="jb" joint2="ja" polycoef="0.1 0.5 0 0 0"/></equality>
</mujoco>)");
    ASSERT_TRUE(coupled.scene) << allMessages(coupled);
    EXPECT_FALSE(mentions(coupled, Severity::Warning, "equality")) << allMessages(coupled);
    ASSERT_EQ(coupled.scene->couplers.size(), 1u);
    ForwardDynamics pair(test::compiled(*coupled.scene));
    ASSERT_TRUE(pair.initialize().ok);
    for (int k = 1; k <= 10; ++k) {
        ASSERT_TRUE(pair.advance(0.1 * k).ok);
        const Eigen::VectorXd& q = pair.state().jointCoordinates;
        EXPECT_NEAR(q(1), 0.1 + 0.5 * q(0), 1e-9);
    }
    EXPECT_GT(std::abs(pair.state().jointCoordinates(0)), 0.1);  // it swung
    // A polynomial of higher order is left out, with its reason.
    const RobotImportResult curved = importText(R"(<mujoco><compiler angle="radian"/>
  <worldbody><body name="a"><joint name="ja" axis="0 1 0"/>
    <geom type="sphere" size="0.02" mass="1"/>
    <body name="b"><joint name="jb" axis="1 0 0"/><geom type="sphere" size="0.02" mass="1"/>
    </body></body></worldbody>
  <equality><joint joint1="jb" joint2="ja" polycoef="0 1 0.5 0 0"/></equality>
</mujoco>)");
    ASSERT_TRUE(curved.scene) << allMessages(curved);
    EXPECT_TRUE(curved.scene->couplers.empty());
    EXPECT_TRUE(mentions(curved, Severity::Warning, "is not linear")) << allMessages(curved);
}

TEST(MjcfImport, ARangeIsTheStopsOfTheJointsCoordinateFromItsReferencePose) {
    const double g = 9.81, deg = M_PI / 180.0;
    struct Case {
        std::string joint;  // MJCF joint element
        bool hinge;
        double lower, upper;  // the Motus stops
        double rest, force;
    };
    const double up = 20 * deg, down = -70 * deg;
    const Case cases[] = {
        {R"(type="hinge" axis="0 1 0" ref="10" range="-60 30")", true, down, up, up,
         -1.0 * g * 0.25 * std::cos(up)},
        {R"(type="hinge" axis="0 -1 0" ref="10" range="-60 30")", true, down, up, down,
         1.0 * g * 0.25 * std::cos(down)},
        {R"(type="slide" axis="0 0 1" ref="0.1" range="-0.2 0.5")", false, -0.3, 0.4, -0.3,
         3.0 * g},
        {R"(type="slide" axis="0 0 -1" ref="0.1" range="-0.2 0.5")", false, -0.3, 0.4, 0.4,
         -3.0 * g},
    };
    for (const Case& c : cases) {
        const std::string text = R"(<mujoco model="one"><option gravity="0 0 -9.81"/>
  <worldbody><body name="b" pos="0 0 1">
    <joint name="j" limited="true" damping="0.5" )" +
                                 c.joint + R"(/>
    <inertial pos=")" + (c.hinge ? "0.25 0 0" : "0 0 0") +
                                 R"(" mass=")" + (c.hinge ? "1" : "3") +
                                 R"(" diaginertia="0.0004 0.021 0.021"/>
  </body></worldbody></mujoco>)";
        const RobotImportResult r = importText(text);
        ASSERT_TRUE(r.scene) << allMessages(r);
        const Joint* j = r.scene->findJoint("j");
        ASSERT_EQ(j->limits.size(), 1u) << c.joint;
        EXPECT_NEAR(j->limits[0].lower, c.lower, 1e-14) << c.joint;
        EXPECT_NEAR(j->limits[0].upper, c.upper, 1e-14) << c.joint;
        EXPECT_EQ(r.scene->settings.integrator, IntegratorType::TimeStepping);
        const test::Rested rested = test::restFor(*r.scene, 2.0);
        const double at = rested.sim->state().jointCoordinates(0);
        EXPECT_NEAR(at, c.rest, 1e-6) << c.joint;
        ASSERT_EQ(rested.out.limitForce.size(), 1u);
        EXPECT_NEAR(rested.out.limitForce[0], c.force, 1e-6 * std::abs(c.force)) << c.joint;
        const double zero = c.hinge ? 10 * deg : 0.1;
        const double mujoco = mujocoRestsAt(text, "j", 2.0);
        EXPECT_NEAR(mujoco - zero, at, 0.01) << c.joint;
        std::printf(
            "MJCF %s: rests at %.9f (stop %.9g), stop force %.9g (expected %.9g); "
            "MuJoCo at %.6f from qpos0\n",
            c.joint.c_str(), at, c.rest, rested.out.limitForce[0], c.force, mujoco - zero);
    }
}

// A hinge and a slide on one line are one cylindrical joint: its angle's stops are the hinge's
// range, its slide's the slide's, turned round when the slide's axis is against the hinge's
// (the joint's z). A 2 kg body on a vertical one (hinge along +z, slide along −z, range
// [−0.1, 0.3] m from ref 0.05: Motus stops −0.25 and 0.15) falls onto its lower slide stop.
TEST(MjcfImport, ACylindricalJointTakesTheRangesOfItsHingeAndSlide) {
    const RobotImportResult r = importText(R"(<mujoco model="cyl"><option gravity="0 0 -9.81"/>
  <worldbody><body name="b" pos="0 0 1">
    <joint name="turn" type="hinge" axis="0 0 1" limited="true" range="-30 45"/>
    <joint name="lift" type="slide" axis="0 0 -1" limited="true" range="-0.1 0.3" ref="0.05"/>
    <inertial pos="0 0 0" mass="2" diaginertia="0.01 0.01 0.02"/>
  </body></worldbody></mujoco>)");
    ASSERT_TRUE(r.scene) << allMessages(r);
    const Joint* j = r.scene->findJoint("turn_lift");
    ASSERT_NE(j, nullptr);
    ASSERT_EQ(j->type, JointType::Cylindrical);
    ASSERT_EQ(j->limits.size(), 2u);
    EXPECT_NEAR(j->limits[0].lower, -30 * M_PI / 180, 1e-14);
    EXPECT_NEAR(j->limits[0].upper, 45 * M_PI / 180, 1e-14);
    EXPECT_NEAR(j->limits[1].lower, -0.25, 1e-14);
    EXPECT_NEAR(j->limits[1].upper, 0.15, 1e-14);
    EXPECT_FALSE(mentions(r, Severity::Warning, "range")) << allMessages(r);
    const test::Rested rested = test::restFor(*r.scene, 2.0);
    const Model& model = rested.sim->model();
    ASSERT_EQ(model.limits.size(), 2u);
    const std::size_t slide = model.limits[0].coordinate == 1 ? 0 : 1;
    EXPECT_NEAR(rested.sim->state().jointCoordinates(model.limits[slide].slot), -0.25, 1e-6);
    EXPECT_NEAR(rested.out.limitForce[slide], 2.0 * 9.81, 1e-6 * 2.0 * 9.81);
}

// What has no coordinate keeps its range as a warning: a ball joint's (the largest angle of
// its turn), a hinge's in a universal joint; a model whose options switch limits off has none.
TEST(MjcfImport, RangesWithoutACoordinateOrSwitchedOffAreListed) {
    const RobotImportResult r = importText(R"(<mujoco><compiler angle="radian"/>
  <worldbody>
    <body name="a"><joint name="ball" type="ball" limited="true" range="0 0.7"/>
      <inertial pos="0 0 -0.2" mass="1" diaginertia="0.01 0.01 0.01"/></body>
    <body name="b" pos="1 0 0"><joint name="bx" axis="1 0 0" limited="true" range="-1 1"/>
      <joint name="by" axis="0 1 0"/>
      <inertial pos="0 0 -0.2" mass="1" diaginertia="0.01 0.01 0.01"/></body>
  </worldbody></mujoco>)");
    ASSERT_TRUE(r.scene) << allMessages(r);
    for (const Joint& j : r.scene->joints) EXPECT_TRUE(j.limits.empty()) << j.name;
    EXPECT_NE(r.scene->settings.integrator, IntegratorType::TimeStepping);
    EXPECT_TRUE(mentions(r, Severity::Warning,
                         "joint 'ball': range [0, 0.7] rad (the largest angle of a ball joint's "
                         "turn) has no counterpart: not enforced"))
        << allMessages(r);
    EXPECT_TRUE(mentions(r, Severity::Warning,
                         "joint 'bx': range [-1, 1] rad on a joint that is part of a combined "
                         "joint: not enforced"))
        << allMessages(r);

    const RobotImportResult off = importText(R"(<mujoco><compiler angle="radian"/>
  <option><flag limit="disable"/></option>
  <worldbody><body name="a"><joint name="h" axis="0 1 0" limited="true" range="-1 1"/>
    <inertial pos="0.2 0 0" mass="1" diaginertia="0.01 0.01 0.01"/></body></worldbody>
</mujoco>)");
    ASSERT_TRUE(off.scene) << allMessages(off);
    EXPECT_TRUE(off.scene->findJoint("h")->limits.empty());
    EXPECT_TRUE(mentions(off, Severity::Warning,
                         "range [-1, 1] rad is switched off by the model's options (limit)"))
        << allMessages(off);
}

// Contact filters follow contype/conaffinity (MuJoCo's "either way" rule), exclusions are
// pairs switched off.
TEST(MjcfImport, ContactFiltersAndExclusionsFollowTheModel) {
    const RobotImportResult r = importText(R"(<mujoco><worldbody>
  <geom name="floor" type="plane" size="5 5 0.1" contype="1" conaffinity="1"/>
  <body name="a" pos="0 0 1"><freejoint/><geom type="sphere" size="0.1" contype="1" conaffinity="0"/></body>
  <body name="b" pos="1 0 1"><freejoint/><geom type="sphere" size="0.1" contype="1" conaffinity="0"/></body>
  <body name="c" pos="2 0 1"><freejoint/><geom type="sphere" size="0.1" contype="0" conaffinity="1"/></body>
</worldbody><contact><exclude body1="a" body2="c"/></contact></mujoco>)");
    ASSERT_TRUE(r.scene) << allMessages(r);
    const SceneSpec& s = *r.scene;
    const auto touch = [&](const char* p, const char* q) {
        const CollisionFilter& f = s.findPart(p)->collision;
        const CollisionFilter& g = s.findPart(q)->collision;
        return f.enabled && g.enabled && (f.group & g.mask) != 0 && (g.group & f.mask) != 0;
    };
    EXPECT_TRUE(touch("a", "world"));
    EXPECT_TRUE(touch("a", "c"));
    EXPECT_FALSE(touch("a", "b"));  // neither one's contype meets the other's conaffinity
    EXPECT_EQ(s.findPart("world")->shapes.at(0).type, ShapeType::Plane);
    ASSERT_EQ(s.contact.pairs.size(), 1u);
    EXPECT_EQ(s.contact.pairs[0].partA, "a");
    EXPECT_EQ(s.contact.pairs[0].partB, "c");
    EXPECT_FALSE(s.contact.pairs[0].enabled);
    EXPECT_TRUE(s.joints.empty());  // free bodies float
}

// MuJoCo's compiler crashed on a face naming a vertex the mesh does not have (inline or in an
// OBJ file) and took 10 GB for <size nkey="1e8"/>: each is now an error naming the file.
TEST(MjcfImport, FilesThatCrashOrExhaustTheCompilerAreErrors) {
    const RobotImportResult inlineMesh = importText(
        R"(<mujoco><asset><mesh name="m" vertex="0 0 0 1 0 0 0 1 0 0 0 1")"
        R"( face="0 1 2 0 1 3 0 2 3 1 2 70000"/></asset><worldbody><body name="b"><freejoint/>)"
        R"(<geom type="mesh" mesh="m"/></body></worldbody></mujoco>)");
    EXPECT_FALSE(inlineMesh.scene);
    // MuJoCo reads the missing vertex out of bounds: it crashes, or its model is refused.
    EXPECT_TRUE(mentions(inlineMesh, Severity::Error, "is not a valid MJCF model: "))
        << allMessages(inlineMesh);

    const std::filesystem::path folder = ::testing::TempDir() + "mjcf_bad_obj";
    std::filesystem::create_directories(folder);
    std::ofstream(folder / "bad.obj")
        << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 99999\n";
    std::ofstream(folder / "robot.xml")
        << R"(<mujoco><asset><mesh name="m" file="bad.obj"/></asset><worldbody><body name="b">)"
           R"(<freejoint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>)";
    const RobotImportResult objMesh = importMjcfFile((folder / "robot.xml").string());
    EXPECT_FALSE(objMesh.scene);
    EXPECT_TRUE(mentions(objMesh, Severity::Error, "robot.xml' is not a valid MJCF model"))
        << allMessages(objMesh);

    RobotImportOptions bounded;
    bounded.compilerLimits.memoryBytes = std::size_t{256} << 20;
    const test::TempTextFile keysFile(
        R"(<mujoco><size nkey="100000000"/><worldbody><body name="b"><freejoint/>)"
        R"(<geom type="box" size="0.1 0.1 0.1"/></body></worldbody></mujoco>)",
        ".xml");
    const RobotImportResult keys = importMjcfFile(keysFile.path(), bounded);
    EXPECT_FALSE(keys.scene);
    EXPECT_TRUE(mentions(keys, Severity::Error,
                         "is not a valid MJCF model: MuJoCo's compiler ran out of its 256 MB "
                         "memory bound"))
        << allMessages(keys);
}

// What MuJoCo refuses is an error with its message; a model without bodies is not a robot.
TEST(MjcfImport, RefusedFilesAreErrorsNamingTheProblem) {
    const RobotImportResult missing = importMjcfFile("/nonexistent/robot.xml");
    EXPECT_FALSE(missing.scene);
    EXPECT_TRUE(mentions(missing, Severity::Error, "cannot open"));

    const RobotImportResult broken = importText("<mujoco><worldbody><body></mujoco>");
    EXPECT_FALSE(broken.scene);
    EXPECT_TRUE(mentions(broken, Severity::Error, "is not a valid MJCF model: MuJoCo says:"))
        << allMessages(broken);

    const RobotImportResult unknown =
        importText(R"(<mujoco><worldbody><body><joint type="screw"/></body></worldbody></mujoco>)");
    EXPECT_FALSE(unknown.scene);
    EXPECT_TRUE(mentions(unknown, Severity::Error, "MuJoCo says")) << allMessages(unknown);

    const RobotImportResult empty = importText("<mujoco><worldbody/></mujoco>");
    EXPECT_FALSE(empty.scene);
    EXPECT_TRUE(mentions(empty, Severity::Error, "is not a robot description"));

    // Garbage of several kinds: an error each, never a crash.
    for (
        const std::string& text :
        {std::string(""), std::string("\x01\x02\xff\xfe garbage"), std::string("<mujoco"),
         std::string(
             R"(<mujoco><worldbody><body pos="nan 0 0"><geom size="1"/></body></worldbody></mujoco>)"),
         std::string(R"(<mujoco><worldbody><body><geom size="-1"/></body></worldbody></mujoco>)"),
         std::string(
             R"(<mujoco><worldbody><body><inertial pos="0 0 0" mass="1e400" diaginertia="1 1 1"/></body></worldbody></mujoco>)"),
         "<mujoco><worldbody>" + std::string(20000, ' ') + std::string(5000, '<') + "</mujoco>"}) {
        const RobotImportResult r = importText(text);
        EXPECT_FALSE(r.scene && hasErrors(r.diagnostics)) << text.substr(0, 80);
        if (!r.scene) {
            EXPECT_TRUE(hasErrors(r.diagnostics)) << text.substr(0, 80);
        }
    }
}

TEST(MjcfImport, ANonFiniteNumberIsAnErrorNamingItsElement) {
    // MuJoCo 2.2 reads "nan" and "inf" without complaint; the file's own attributes are checked.
    const RobotImportResult r = importText(
        "<mujoco>\n<worldbody>\n  <body name=\"arm\" pos=\"nan 0 0\"><geom size=\"1\"/></body>\n"
        "</worldbody></mujoco>");
    EXPECT_FALSE(r.scene);
    ASSERT_FALSE(r.diagnostics.empty());
    EXPECT_EQ(r.diagnostics[0].where, "line 3: <body name='arm'>");
    EXPECT_TRUE(mentions(r, Severity::Error, "pos 'nan 0 0' is not a finite number"))
        << allMessages(r);
    const RobotImportResult inf = importText(
        R"(<mujoco><worldbody><body><inertial pos="0 0 0" mass="-Inf" diaginertia="1 1 1"/>)"
        R"(</body></worldbody></mujoco>)");
    EXPECT_FALSE(inf.scene);
    EXPECT_TRUE(mentions(inf, Severity::Error, "mass '-Inf' is not a finite number"))
        << allMessages(inf);
    // A name may be anything.
    const RobotImportResult named =
        importText(R"(<mujoco><worldbody><body name="inf"><freejoint/><geom size="0.1"/></body>)"
                   R"(</worldbody></mujoco>)");
    EXPECT_TRUE(named.scene) << allMessages(named);
}

TEST(MjcfImport, AWeldHoldsTheBodiesAsMuJoCoHoldsThem) {
    const RobotImportResult r = importText(R"(<mujoco><worldbody>
      <body name="a" pos="0 0 1"><freejoint/><geom size="0.1"/></body>
      <body name="b" pos="0.5 0 1" euler="0 0 30"><freejoint/><geom size="0.1"/></body>
      <body name="c" pos="1 0 1"><freejoint/><geom size="0.1"/></body>
      </worldbody><equality>
      <weld name="asIs" body1="a" body2="b"/>
      <weld name="turned" body1="b" body2="c" relpose="0.5 0 0 0.7071067811865476 0 0 0.7071067811865476"/>
      </equality></mujoco>)");
    ASSERT_TRUE(r.scene) << allMessages(r);
    const SceneSpec& s = *r.scene;
    // Welded as they are: the markers meet at the reference pose.
    const Joint* asIs = s.findJoint("asIs");
    ASSERT_NE(asIs, nullptr);
    EXPECT_EQ(asIs->type, JointType::Fixed);
    const Transform X_WI = markerInWorld(s, asIs->markerI), X_WJ = markerInWorld(s, asIs->markerJ);
    EXPECT_LT((X_WI.p - X_WJ.p).norm(), 1e-15);
    EXPECT_LT(X_WI.R.angularDistance(X_WJ.R), 1e-12);
    // Welded at the relative pose the file gives (c 0.5 m along b's x, turned 90° about z),
    // which the run assembles.
    const Joint* turned = s.findJoint("turned");
    ASSERT_NE(turned, nullptr);
    const Marker* onB = s.findMarker(turned->markerI);
    const Marker* onC = s.findMarker(turned->markerJ);
    ASSERT_EQ(turned->markerI.part, "b");
    const Transform X_BC = onB->X_PM * onC->X_PM.inverse();  // c in b when the markers meet
    EXPECT_LT((X_BC.p - Vec3(0.5, 0, 0)).norm(), 1e-12);
    EXPECT_LT(X_BC.R.angularDistance(quatFromAxisAngle(Vec3::UnitZ(), M_PI / 2)), 1e-12);
    EXPECT_TRUE(mentions(r, Severity::Warning, "is not met at the reference pose"));
}

TEST(MjcfImport, ANonFiniteNumberInAnIncludedFileIsAnErrorNamingTheFileAndElement) {
    // MuJoCo placed the included body at the origin.
    const auto folder = std::filesystem::temp_directory_path() /
                        ("motus-mjcf-include-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder / "parts");
    std::ofstream(folder / "parts" / "arm.xml")
        << "<mujoco>\n<worldbody>\n<body name=\"arm\" pos=\"0 NaN 0\"><freejoint/>"
           "<geom size=\"0.1\"/></body>\n</worldbody>\n</mujoco>";
    std::ofstream(folder / "robot.xml") << "<mujoco><include file=\"parts/arm.xml\"/></mujoco>";
    const RobotImportResult r = importMjcfFile((folder / "robot.xml").string());
    std::filesystem::remove_all(folder);
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(mentions(r, Severity::Error,
                         "'parts/arm.xml' line 3: <body name='arm'> pos '0 NaN 0' is not a "
                         "finite number"))
        << allMessages(r);
}

// The scene of an MJCF robot with mesh geoms named the mesh assets ("wedge"), files that do not
// exist, so the written scene did not load. MuJoCo re-centres the meshes it compiles, which are
// not the asset files: saving writes them beside the scene, and the scene loads from anywhere.
TEST(MjcfImport, MeshGeomsAreSavedBesideTheSceneAndLoadFromAnyFolder) {
    const RobotImportResult imported = importMjcfFile(kRobots + "/mjcf/arm_with_meshes.xml");
    ASSERT_TRUE(imported.scene) << allMessages(imported);
    std::vector<const Shape*> meshes;
    for (const Part& part : imported.scene->parts)
        for (const Shape& s : part.shapes)
            if (s.type == ShapeType::Mesh) meshes.push_back(&s);
    ASSERT_EQ(meshes.size(), 2u);
    EXPECT_EQ(meshes[0]->mesh, meshes[1]->mesh);  // one asset, one mesh
    EXPECT_TRUE(sceneHoldsMeshesInMemory(*imported.scene));

    const std::filesystem::path folder = ::testing::TempDir() + "mjcf_meshes_saved";
    std::filesystem::remove_all(folder);
    std::filesystem::create_directories(folder / "out");
    std::filesystem::create_directories(folder / "elsewhere");
    const std::string scenePath = (folder / "out" / "arm.json").string();
    std::string error;
    ASSERT_TRUE(saveSceneFile(*imported.scene, scenePath, error)) << error;
    const std::filesystem::path written = folder / "out" / "arm_meshes" / "base_0.obj";
    ASSERT_TRUE(std::filesystem::is_regular_file(written));
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(folder / "out" / "arm_meshes"),
                            std::filesystem::directory_iterator()),
              1);  // shared by both geoms

    // Loaded with another working folder: the mesh file is named relative to the scene.
    const std::filesystem::path workingFolder = std::filesystem::current_path();
    std::filesystem::current_path(folder / "elsewhere");
    const SceneLoadResult loaded = loadSceneFile(scenePath);
    std::filesystem::current_path(workingFolder);
    ASSERT_TRUE(loaded.scene) << (loaded.diagnostics.empty() ? std::string()
                                                             : loaded.diagnostics[0].message);
    std::vector<const Shape*> reloaded;
    for (const Part& part : loaded.scene->parts)
        for (const Shape& s : part.shapes)
            if (s.type == ShapeType::Mesh) reloaded.push_back(&s);
    ASSERT_EQ(reloaded.size(), 2u);
    for (std::size_t k = 0; k < 2; ++k) {
        EXPECT_EQ(reloaded[k]->meshFile, "arm_meshes/base_0.obj");
        EXPECT_LT((reloaded[k]->X_PG.p - meshes[k]->X_PG.p).norm(), 1e-12);
        ASSERT_TRUE(reloaded[k]->mesh);
        ASSERT_EQ(reloaded[k]->mesh->triangles.size(), meshes[k]->mesh->triangles.size());
        // The same solid: its volume as MuJoCo compiled it (0.2 x 0.1 x 0.05 / 2 m³).
        EXPECT_NEAR(reloaded[k]->mesh->signedVolume(), 0.0005, 1e-9);
        EXPECT_NEAR(reloaded[k]->mesh->signedVolume(), meshes[k]->mesh->signedVolume(), 1e-12);
    }
    // And it runs: the compiled model has the imported masses.
    const CompileResult compiled = compile(*loaded.scene);
    ASSERT_TRUE(compiled.model);

    // Saved again, a mesh file holding the same mesh is left as it is.
    const auto before = std::filesystem::last_write_time(written);
    struct stat first {};
    ASSERT_EQ(::stat(written.c_str(), &first), 0);
    ASSERT_TRUE(saveSceneFile(*imported.scene, scenePath, error)) << error;
    struct stat second {};
    ASSERT_EQ(::stat(written.c_str(), &second), 0);
    EXPECT_EQ(first.st_ino, second.st_ino);
    EXPECT_EQ(before, std::filesystem::last_write_time(written));

    // The scene text alone cannot name such meshes: a device as the target is refused.
    EXPECT_FALSE(saveSceneFile(*imported.scene, "/dev/null", error));
    EXPECT_NE(error.find("written as files beside the scene"), std::string::npos) << error;
}

// A model's name is free text, and a file in another encoding (Latin-1 "walkér") holds bytes
// that are not UTF-8: the scene keeps the name with U+FFFD in their place, so it is saved and
// read back as it was imported.
TEST(MjcfImport, AModelNameThatIsNotUtf8IsKeptReadableAndTheSceneSavesAndLoads) {
    std::string text = kPair;
    text.replace(text.find("model=\"pair\""), 12, "model=\"walk\xe9r\"");
    const RobotImportResult imported = importText(text);
    ASSERT_TRUE(imported.scene) << allMessages(imported);
    EXPECT_EQ(imported.scene->name, "walk\xEF\xBF\xBDr");
    const std::filesystem::path folder = ::testing::TempDir() + "mjcf_latin1_name";
    std::filesystem::create_directories(folder);
    const std::string scenePath = (folder / "walker.json").string();
    std::string error;
    ASSERT_TRUE(saveSceneFile(*imported.scene, scenePath, error)) << error;
    const SceneLoadResult loaded = loadSceneFile(scenePath);
    ASSERT_TRUE(loaded.scene);
    EXPECT_EQ(loaded.scene->name, imported.scene->name);
}

TEST(MjcfImport, DeepNestingAndIncludeLoopsAreErrorsNotCrashes) {
    std::string deep = "<mujoco><worldbody>";
    for (int k = 0; k < 5000; ++k) deep += R"(<body><joint type="hinge"/><geom size="0.1"/>)";
    for (int k = 0; k < 5000; ++k) deep += "</body>";
    deep += "</worldbody></mujoco>";
    const RobotImportResult r = importText(deep);
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(mentions(r, Severity::Error, "MuJoCo says")) << allMessages(r);

    const auto self = std::filesystem::temp_directory_path() /
                      ("motus-mjcf-self-" + std::to_string(::getpid()) + ".xml");
    std::ofstream(self) << "<mujoco><include file=\"" << self.filename().string()
                        << "\"/><worldbody><body><geom size=\"1\"/></body></worldbody></mujoco>";
    const RobotImportResult loop = importMjcfFile(self.string());
    std::filesystem::remove(self);
    EXPECT_FALSE(loop.scene);
    EXPECT_TRUE(mentions(loop, Severity::Error, "already included")) << allMessages(loop);
}

// ---- Real models: each imports, compiles and falls for 1 s with its joints closed -----------

struct RealModel {
    const char* name;
    // Dampers the compiler's stability estimate (the two parts a force joins, alone) says the
    // time-stepping integrator's explicit step of 1 ms cannot follow: the humanoids' ankle
    // dampers on the light part between their two ankle hinges. They run (the foot beyond,
    // which the estimate leaves out, slows them).
    int stepWarnings = 0;
};

void PrintTo(const RealModel& model, std::ostream* out) {
    *out << model.name;
}

class MjcfRealModel : public ::testing::TestWithParam<RealModel> {};

// As imported, its ranges are stops and the run is time-stepped: it runs 1 s within its stops
// (to the reach of one step), its joints closed, its energy balance within the first-order
// method's error (a few percent of what the motion exchanges). Without its stops, integrated
// by dopri45, its energy is balanced to 1e-5 of the kinetic energy.
TEST_P(MjcfRealModel, ImportsAndRunsOneSecondUnderGravityWithEnergyBalanced) {
    const std::string path = kRobots + "/mjcf/" + GetParam().name + ".xml";
    const RobotImportResult r = importMjcfFile(path);
    ASSERT_TRUE(r.scene) << allMessages(r);
    EXPECT_FALSE(hasErrors(r.diagnostics)) << allMessages(r);
    if (std::getenv("MOTUS_PRINT_DIAGNOSTICS")) std::printf("%s", allMessages(r).c_str());
    SceneSpec spec = *r.scene;
    EXPECT_FALSE(spec.contact.enabled);
    expectJointsClosed(spec);
    // Gravity a little off vertical, so that a model balanced upright (the inverted double
    // pendulum) swings too and its energy balance is measured against a real motion.
    spec.gravity = Vec3(2.0, 1.5, -9.81);

    const test::StoppedRun stopped = test::runWithStops(spec, 1.0);
    EXPECT_EQ(test::countStepWarnings(stopped.diagnostics), GetParam().stepWarnings);
    ASSERT_TRUE(stopped.ran) << stopped.failure;
    EXPECT_GT(stopped.kinetic, 1e-4);
    EXPECT_LT(stopped.overshoot, 1e-3);
    EXPECT_LT(stopped.constraintError, 1e-8);
    EXPECT_LT(stopped.drift, 0.05 * stopped.exchanged);

    const test::FreeRun run = test::runFree(test::withoutStops(spec), 1.0);
    ASSERT_TRUE(run.ran) << run.failure;
    EXPECT_LT(run.constraintError, 1e-8);
    EXPECT_GT(run.kinetic, 1e-4);  // it moved (the ant's damped legs least: 8e-4 J)
    EXPECT_NEAR(run.balanceAfter, run.balanceBefore, 1e-5 * run.kinetic)
        << "kinetic " << run.kinetic;
    std::printf(
        "%s: %zu parts, %zu joints, %zu forces, %zu diagnostics; after 1 s with its stops: "
        "kinetic %.6g J, balance drift %.3g of %.4g J exchanged, stops passed by %.3g at most, "
        "constraint error %.3g; without: kinetic %.6g J, balance drift %.3g J, constraint error "
        "%.3g\n",
        GetParam().name, spec.parts.size(), spec.joints.size(), spec.forces.size(),
        r.diagnostics.size(), stopped.kinetic, stopped.drift / stopped.exchanged, stopped.exchanged,
        stopped.overshoot, stopped.constraintError, run.kinetic,
        run.balanceAfter - run.balanceBefore, run.constraintError);
}

std::string realModelName(const ::testing::TestParamInfo<RealModel>& info) {
    return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(BulletMjcfModels, MjcfRealModel,
                         ::testing::Values(RealModel{"ant"}, RealModel{"humanoid", 4},
                                           RealModel{"walker2d"},
                                           RealModel{"inverted_double_pendulum"}),
                         realModelName);
INSTANTIATE_TEST_SUITE_P(MuJoCoModels, MjcfRealModel,
                         ::testing::Values(RealModel{"humanoid_mujoco", 4}), realModelName);

// ---- Cross-format: the UR5 as URDF and as MJCF ----------------------------------------------

// Mass, centre of mass and joint-space mass matrix of a scene whose joints form a tree from the
// ground (revolute, prismatic and fixed joints), at joint coordinates q (by joint name; the
// matrix's rows follow `order`): parts placed down the tree, X_WC = X_WP X_PJ Z(q) X_CI⁻¹, and
// M_q = Σ_b m_b J_vbᵀ J_vb + J_ωbᵀ (R_b I_b R_bᵀ) J_ωb with J_vb = z_k × (c_b − o_k) (revolute k),
// z_k (prismatic k), J_ωb = z_k (revolute k), for each joint k above part b.
struct JointSpaceInertia {
    double mass = 0.0;
    Vec3 com = Vec3::Zero();
    Eigen::MatrixXd M;
};

JointSpaceInertia jointSpaceInertia(const SceneSpec& s, const std::map<std::string, double>& q,
                                    const std::vector<std::string>& order) {
    std::map<std::string, Transform> X_W;           // part → pose
    std::map<std::string, std::vector<int>> above;  // part → movable joints above it (indices)
    std::map<std::string, std::pair<Vec3, Vec3>> axisOf;  // joint → (o_k, z_k) in the world
    for (const Part& p : s.parts)
        if (p.ground) X_W[p.name] = p.X_WP;
    for (bool placed = true; placed;) {  // sweep until every part hangs from a placed one
        placed = false;
        for (const Joint& j : s.joints) {
            if (!X_W.count(j.markerJ.part) || X_W.count(j.markerI.part)) continue;
            const Transform X_WJ = X_W[j.markerJ.part] * s.findMarker(j.markerJ)->X_PM;
            Transform Z = Transform::identity();
            std::vector<int> chain = above[j.markerJ.part];
            const auto k = std::find(order.begin(), order.end(), j.name);
            if (j.type == JointType::Revolute)
                Z.R = Quat(Eigen::AngleAxisd(q.at(j.name), Vec3::UnitZ()));
            if (j.type == JointType::Prismatic) Z.p = Vec3(0, 0, q.at(j.name));
            if (j.type != JointType::Fixed) {
                chain.push_back(static_cast<int>(k - order.begin()));
                axisOf[j.name] = {X_WJ.p, X_WJ.R * Vec3::UnitZ()};
            }
            X_W[j.markerI.part] = X_WJ * Z * s.findMarker(j.markerI)->X_PM.inverse();
            above[j.markerI.part] = chain;
            placed = true;
        }
    }
    JointSpaceInertia out;
    const Eigen::Index n = static_cast<Eigen::Index>(order.size());
    out.M = Eigen::MatrixXd::Zero(n, n);
    for (const Part& p : s.parts) {
        if (p.ground) continue;
        EXPECT_TRUE(X_W.count(p.name)) << p.name << " is not in the tree";
        const Transform& X = X_W[p.name];
        const Vec3 c = X * p.p_PPcm;
        out.mass += p.mass;
        out.com += p.mass * c;
        Eigen::MatrixXd Jv = Eigen::MatrixXd::Zero(3, n), Jw = Eigen::MatrixXd::Zero(3, n);
        for (int k : above[p.name]) {
            const std::string& name = order[static_cast<std::size_t>(k)];
            const auto [o, z] = axisOf[name];
            if (s.findJoint(name)->type == JointType::Revolute) {
                Jv.col(k) = z.cross(c - o);
                Jw.col(k) = z;
            } else {
                Jv.col(k) = z;
            }
        }
        const Mat3 R = X.R.toRotationMatrix();
        const Mat3 I_W = R * p.I_Pcm_P * R.transpose();
        out.M += p.mass * Jv.transpose() * Jv + Jw.transpose() * I_W * Jw;
    }
    out.com /= out.mass;
    return out;
}

TEST(MjcfImport, TheUr5AsUrdfAndAsMjcfHasOneMassCentreAndJointSpaceMassMatrix) {
    const std::string urdfPath =
        kRobots + "/urdf/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf";
    const std::string mjcfPath = kRobots + "/ur5/ur5_robot.xml";
    const RobotImportResult urdf = importUrdfFile(urdfPath);
    const RobotImportResult mjcf = importMjcfFile(mjcfPath);
    ASSERT_TRUE(urdf.scene) << allMessages(urdf);
    ASSERT_TRUE(mjcf.scene) << allMessages(mjcf);
    EXPECT_FALSE(hasErrors(mjcf.diagnostics));
    const std::vector<std::string> order = {"shoulder_pan_joint", "shoulder_lift_joint",
                                            "elbow_joint",        "wrist_1_joint",
                                            "wrist_2_joint",      "wrist_3_joint"};
    const std::map<std::string, double> q = {
        {"shoulder_pan_joint", 0.3}, {"shoulder_lift_joint", -0.7}, {"elbow_joint", 1.1},
        {"wrist_1_joint", -0.4},     {"wrist_2_joint", 0.9},        {"wrist_3_joint", 2.0}};
    const JointSpaceInertia a = jointSpaceInertia(*urdf.scene, q, order);
    const JointSpaceInertia b = jointSpaceInertia(*mjcf.scene, q, order);
    EXPECT_NEAR(a.mass, 20.9939, 1e-12);
    EXPECT_LE(std::abs(b.mass - a.mass), 1e-9 * a.mass);
    EXPECT_LE((b.com - a.com).norm(), 1e-9 * a.com.norm());
    EXPECT_LE((b.M - a.M).norm(), 1e-9 * a.M.norm()) << "URDF\n" << a.M << "\nMJCF\n" << b.M;

    // MuJoCo's own mass matrix of the MJCF (armature 0) at the same angles: a third witness.
    char error[512] = "";
    std::unique_ptr<mjModel, void (*)(mjModel*)> m(
        mj_loadXML(mjcfPath.c_str(), nullptr, error, sizeof error), mj_deleteModel);
    ASSERT_TRUE(m) << error;
    std::unique_ptr<mjData, void (*)(mjData*)> d(mj_makeData(m.get()), mj_deleteData);
    ASSERT_EQ(m->nv, 6);
    std::vector<int> dofOf(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
        const int j = mj_name2id(m.get(), mjOBJ_JOINT, order[k].c_str());
        ASSERT_GE(j, 0) << order[k];
        d->qpos[m->jnt_qposadr[j]] = q.at(order[k]);
        dofOf[k] = m->jnt_dofadr[j];
    }
    mj_forward(m.get(), d.get());
    std::vector<mjtNum> full(static_cast<std::size_t>(m->nv * m->nv));
    mj_fullM(m.get(), full.data(), d->qM);
    Eigen::MatrixXd M_mujoco(6, 6);
    for (int r = 0; r < 6; ++r)
        for (int c = 0; c < 6; ++c)
            M_mujoco(r, c) = full[static_cast<std::size_t>(dofOf[static_cast<std::size_t>(r)] * 6 +
                                                           dofOf[static_cast<std::size_t>(c)])];
    EXPECT_LE((M_mujoco - a.M).norm(), 1e-9 * a.M.norm()) << "MuJoCo\n" << M_mujoco;
    EXPECT_LE(std::abs(mj_getTotalmass(m.get()) - a.mass), 1e-9 * a.mass);
    const Vec3 comMujoco(d->subtree_com[0], d->subtree_com[1], d->subtree_com[2]);
    EXPECT_LE((comMujoco - a.com).norm(), 1e-9 * a.com.norm());
    std::printf(
        "UR5, relative differences from the URDF import: MJCF import mass %.3g, centre of "
        "mass %.3g, M_q %.3g; MuJoCo mass %.3g, centre of mass %.3g, M_q %.3g\n",
        std::abs(b.mass - a.mass) / a.mass, (b.com - a.com).norm() / a.com.norm(),
        (b.M - a.M).norm() / a.M.norm(), std::abs(mj_getTotalmass(m.get()) - a.mass) / a.mass,
        (comMujoco - a.com).norm() / a.com.norm(), (M_mujoco - a.M).norm() / a.M.norm());
}

}  // namespace
}  // namespace engine::io
