#include "engine/import/urdf_import.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/start_overlaps.h"
#include "engine/import/inertia_fixup.h"
#include "engine/io/scene_json.h"
#include "engine/model/contact_model.h"
#include "engine/model/model.h"
#include "engine/state/state.h"
#include "tests/support/robot_runs.h"
#include "tests/support/simulation.h"
#include "tests/support/temp_text_file.h"

namespace engine::io {
namespace {

const std::string kArm = MOTUS_SOURCE_DIR "/scenes/urdf/three_link_arm.urdf";

// Imports URDF text through a file of its own (the importer reads files).
UrdfImportResult importText(const std::string& text, const RobotImportOptions& options = {}) {
    const test::TempTextFile file(text, ".urdf");
    return importUrdfFile(file.path(), options);
}

RobotImportOptions strictOptions() {
    RobotImportOptions options;
    options.strict = true;
    return options;
}
RobotImportOptions fromGeometryOptions() {
    RobotImportOptions options;
    options.inertiaFromGeometry = true;
    return options;
}
RobotImportOptions searchOptions(const std::string& folder) {
    RobotImportOptions options;
    options.packagePath = {folder};
    return options;
}

// The first error whose place starts with `where`, or nullptr.
const Diagnostic* errorAt(const UrdfImportResult& r, std::string_view where) {
    for (const Diagnostic& d : r.diagnostics)
        if (d.severity == Severity::Error && d.where.starts_with(where)) return &d;
    return nullptr;
}

// A small arm whose numbers the tests replace: world, a base on a fixed joint, and an upper
// arm on the revolute "shoulder".
struct ArmText {
    std::string upperArmMass = "1.2";
    std::string upperArmIxx = "0.0005";
    std::string upperArmCom = "0.15 0 0";
    std::string shoulderOrigin = "0 0 0.1";
    std::string shoulderAxis = "0 1 0";
    std::string shoulderLower = "-1.57";
    std::string upperArmName = "upper_arm";

    std::string text() const {
        return R"(<robot name="arm">
  <link name="world"/>
  <joint name="anchor" type="fixed"><parent link="world"/><child link="base"/></joint>
  <link name="base"><inertial><mass value="2"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link=")" +
               upperArmName + R"("/>
    <origin xyz=")" +
               shoulderOrigin + R"(" rpy="0 0 0"/><axis xyz=")" + shoulderAxis + R"("/>
    <limit lower=")" +
               shoulderLower + R"(" upper="1.57" effort="50" velocity="2"/></joint>
  <link name=")" +
               upperArmName + R"("><inertial><origin xyz=")" + upperArmCom + R"("/><mass value=")" +
               upperArmMass + R"("/>
    <inertia ixx=")" +
               upperArmIxx + R"(" ixy="0" ixz="0" iyy="0.0095" iyz="0" izz="0.0095"/></inertial>
  </link>
</robot>
)";
    }
};

TEST(UrdfImport, LinksBecomePartsAndJointsMeetAtTheirFrames) {
    const UrdfImportResult r = importUrdfFile(kArm);
    ASSERT_TRUE(r.scene);
    const SceneSpec& s = *r.scene;
    EXPECT_EQ(s.name, "three_link_arm");
    ASSERT_EQ(s.parts.size(), 6u);  // world (ground) + 5 links
    const Part* world = s.findPart("world");
    ASSERT_NE(world, nullptr);
    EXPECT_TRUE(world->ground);
    const Part* upper = s.findPart("upper_arm");
    ASSERT_NE(upper, nullptr);
    EXPECT_EQ(upper->mass, 1.2);
    EXPECT_LT((upper->p_PPcm - Vec3(0.15, 0, 0)).norm(), 1e-15);
    // base at z 0.05, turret +0.05, shoulder +0.1: the upper arm's frame is at z = 0.2.
    EXPECT_LT((upper->X_WP.p - Vec3(0, 0, 0.2)).norm(), 1e-15);
    ASSERT_EQ(s.joints.size(), 5u);
    int revolutes = 0, fixed = 0;
    for (const Joint& j : s.joints) {
        revolutes += j.type == JointType::Revolute;
        fixed += j.type == JointType::Fixed;
        // Both markers of every joint are at the same place with z along the same axis.
        const Part* pi = s.findPart(j.markerI.part);
        const Part* pj = s.findPart(j.markerJ.part);
        const Transform X_WI = pi->X_WP * s.findMarker(j.markerI)->X_PM;
        const Transform X_WJ = pj->X_WP * s.findMarker(j.markerJ)->X_PM;
        EXPECT_LT((X_WI.p - X_WJ.p).norm(), 1e-15) << j.name;
        EXPECT_LT((X_WI.R * Vec3::UnitZ() - X_WJ.R * Vec3::UnitZ()).norm(), 1e-15) << j.name;
    }
    EXPECT_EQ(revolutes, 3);
    EXPECT_EQ(fixed, 2);
    // The shoulder turns about y.
    const Joint* shoulder = s.findJoint("shoulder");
    ASSERT_NE(shoulder, nullptr);
    EXPECT_LT((s.findMarker(shoulder->markerJ)->X_PM.R * Vec3::UnitZ() - Vec3::UnitY()).norm(),
              1e-15);
    // The gripper's mesh was found through its package:// path, scaled by 0.5.
    const Part* gripper = s.findPart("gripper");
    ASSERT_EQ(gripper->shapes.size(), 1u);
    EXPECT_EQ(gripper->shapes[0].type, ShapeType::Mesh);
    EXPECT_EQ(gripper->shapes[0].scale, Vec3::Constant(0.5));
    // The revolutes' limits are their stops; the continuous yaw has none.
    ASSERT_EQ(shoulder->limits.size(), 1u);
    EXPECT_EQ(shoulder->limits[0].lower, -1.57);
    EXPECT_EQ(shoulder->limits[0].upper, 1.57);
    ASSERT_EQ(s.findJoint("elbow")->limits.size(), 1u);
    EXPECT_EQ(s.findJoint("elbow")->limits[0].upper, 2.5);
    EXPECT_TRUE(s.findJoint("yaw")->limits.empty());
    EXPECT_EQ(s.settings.integrator, IntegratorType::TimeStepping);
    for (const Diagnostic& d : r.diagnostics)
        EXPECT_EQ(d.message.find("limit"), std::string::npos) << d.message;
}

// The arm falls for 1 s within its shoulder's and elbow's stops; without them (integrated by
// dopri45) its energy is conserved.
TEST(UrdfImport, TheImportedArmFallsWithinItsStopsAndWithoutThemWithItsEnergyConserved) {
    const UrdfImportResult r = importUrdfFile(kArm);
    ASSERT_TRUE(r.scene);
    ForwardDynamics stopped(test::compiled(*r.scene));
    ASSERT_TRUE(stopped.initialize().ok);
    ASSERT_EQ(stopped.model().limits.size(), 2u);
    double overshoot = 0.0;
    for (int k = 1; k <= 100; ++k) {
        ASSERT_TRUE(stopped.advance(0.01 * k).ok);
        for (const LimitModel& l : stopped.model().limits) {
            const double q = stopped.state().jointCoordinates(l.slot);
            overshoot = std::max({overshoot, l.lower - q, q - l.upper});
        }
    }
    EXPECT_LT(overshoot, 1e-3);

    SceneSpec free = *r.scene;
    for (Joint& j : free.joints) j.limits.clear();
    free.settings.integrator = SolverSettings{}.integrator;
    const test::FreeRun run = test::runFree(free, 1.0);
    ASSERT_TRUE(run.ran) << run.failure;
    EXPECT_GT(run.kinetic, 0.1);  // it fell
    EXPECT_NEAR(run.balanceAfter, run.balanceBefore, 1e-5 * run.kinetic);
    EXPECT_LT(run.constraintError, 1e-9);
}

// ---- Limits, damping, friction, mimic -------------------------------------------------------

// One link on one joint from the world at 1 m: a 1 kg arm 0.5 m long (its centre of mass
// 0.25 m along its x) on a revolute, or a 3 kg block on a prismatic; `joint` is the joint's
// type, `axis` its axis, `extra` what else the joint holds.
std::string oneJointRobot(const std::string& joint, const std::string& axis,
                          const std::string& extra) {
    const bool revolute = joint == "revolute" || joint == "continuous";
    return R"(<robot name="one">
  <link name="world"/>
  <joint name="j" type=")" +
           joint + R"("><parent link="world"/><child link="body"/>
    <origin xyz="0 0 1"/><axis xyz=")" +
           axis + R"("/>)" + extra + R"(</joint>
  <link name="body"><inertial><origin xyz=")" +
           (revolute ? "0.25 0 0" : "0 0 0") + R"("/><mass value=")" + (revolute ? "1" : "3") +
           R"("/>
    <inertia ixx="0.0004" ixy="0" ixz="0" iyy="0.021" iyz="0" izz="0.021"/></inertial></link>
</robot>
)";
}

const ForceSpec* forceNamed(const SceneSpec& s, std::string_view name) {
    for (const ForceSpec& f : s.forces)
        if (f.name == name) return &f;
    return nullptr;
}

// The index in Model::limits of joint `name`'s stop.
std::size_t limitOf(const Model& model, const std::string& name) {
    for (std::size_t k = 0; k < model.limits.size(); ++k)
        if (model.joints[static_cast<std::size_t>(model.limits[k].joint)].name == name) return k;
    ADD_FAILURE() << "no stop on joint " << name;
    return 0;
}

TEST(UrdfImport, LimitsBecomeStopsAndDampingDampersWhatIsNotModelledIsListed) {
    const UrdfImportResult r = importText(R"(<robot name="many">
  <link name="world"/>
  <joint name="hinge" type="revolute"><parent link="world"/><child link="a"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="0.6" effort="5" velocity="2"/>
    <dynamics damping="0.3" friction="0.1"/></joint>
  <link name="a"><inertial><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <joint name="slide" type="prismatic"><parent link="a"/><child link="b"/>
    <axis xyz="1 0 0"/><limit lower="-0.2" upper="0.5" effort="5" velocity="2"/>
    <dynamics damping="2"/></joint>
  <link name="b"><inertial><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <joint name="spin" type="continuous"><parent link="b"/><child link="c"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="5" velocity="2"/></joint>
  <link name="c"><inertial><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <joint name="free" type="revolute"><parent link="c"/><child link="d"/>
    <axis xyz="0 0 1"/><limit effort="5" velocity="2"/></joint>
  <link name="d"><inertial><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <joint name="upside" type="revolute"><parent link="d"/><child link="e"/>
    <axis xyz="0 0 1"/><limit lower="1" upper="-1" effort="5" velocity="2"/></joint>
  <link name="e"><inertial><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <joint name="follower" type="revolute"><parent link="e"/><child link="f"/>
    <axis xyz="0 0 1"/><limit lower="-2" upper="2" effort="5" velocity="2"/>
    <mimic joint="upside" multiplier="-1" offset="0.1"/></joint>
  <link name="f"><inertial><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
</robot>)");
    ASSERT_TRUE(r.scene);
    const SceneSpec& s = *r.scene;
    auto stops = [&](const char* name) { return s.findJoint(name)->limits; };
    ASSERT_EQ(stops("hinge").size(), 1u);
    EXPECT_EQ(stops("hinge")[0].lower, -1.0);
    EXPECT_EQ(stops("hinge")[0].upper, 0.6);
    EXPECT_EQ(stops("hinge")[0].restitution, 0.0);  // rigid, plastic stops
    EXPECT_EQ(stops("hinge")[0].frequency, 0.0);
    ASSERT_EQ(stops("slide").size(), 1u);
    EXPECT_EQ(stops("slide")[0].lower, -0.2);
    EXPECT_EQ(stops("slide")[0].upper, 0.5);
    EXPECT_TRUE(stops("spin").empty());    // continuous: no limits
    EXPECT_TRUE(stops("free").empty());    // lower = upper = 0: none given, not locked
    EXPECT_TRUE(stops("upside").empty());  // lower above upper: left out, with a warning
    EXPECT_EQ(stops("follower").size(), 1u);
    EXPECT_EQ(s.settings.integrator, IntegratorType::TimeStepping);

    // Damping: a rotational damper on the revolute, a controller of kp 0 on the prismatic.
    ASSERT_EQ(s.forces.size(), 2u);
    const ForceSpec* hinge = forceNamed(s, "hinge_damper");
    ASSERT_NE(hinge, nullptr);
    EXPECT_EQ(hinge->type, ForceType::RotationalSpringDamper);
    EXPECT_EQ(hinge->joint, "hinge");
    EXPECT_EQ(hinge->stiffness, 0.0);
    EXPECT_EQ(hinge->damping, 0.3);
    const ForceSpec* slide = forceNamed(s, "slide_damper");
    ASSERT_NE(slide, nullptr);
    EXPECT_EQ(slide->type, ForceType::JointController);
    EXPECT_EQ(slide->joint, "slide");
    EXPECT_EQ(slide->axis, JointAxis::Translation);
    EXPECT_EQ(slide->stiffness, 0.0);
    EXPECT_EQ(slide->damping, 2.0);
    EXPECT_EQ(slide->maxEffort, 0.0);

    // What is not modelled is listed; nothing else (no "limits are not enforced", and no
    // integrator warning: the import chose time stepping itself).
    std::vector<std::string> warnings;
    for (const Diagnostic& d : r.diagnostics) {
        EXPECT_EQ(d.severity, Severity::Warning) << d.message;
        warnings.push_back(d.where + ": " + d.message);
    }
    const std::vector<std::string> expected = {
        "joint 'upside'/limit: joint 'upside': limit lower 1 rad is above upper -1 rad: no stops",
    };
    EXPECT_EQ(warnings, expected);

    // Friction: the joint's constant Coulomb friction torque.
    ASSERT_EQ(s.findJoint("hinge")->friction.size(), 1u);
    EXPECT_EQ(s.findJoint("hinge")->friction[0].preload, 0.1);
    EXPECT_EQ(s.findJoint("hinge")->friction[0].coefficient, 0.0);
    EXPECT_TRUE(s.findJoint("slide")->friction.empty());
    // Mimic: follower = −1 × upside + 0.1, a linear coupler.
    ASSERT_EQ(s.couplers.size(), 1u);
    const CouplerSpec& mimic = s.couplers[0];
    EXPECT_EQ(mimic.name, "follower_mimic");
    EXPECT_EQ(mimic.type, CouplerType::Linear);
    ASSERT_EQ(mimic.terms.size(), 2u);
    EXPECT_EQ(mimic.terms[0].joint, "follower");
    EXPECT_EQ(mimic.terms[0].coefficient, 1.0);
    EXPECT_EQ(mimic.terms[1].joint, "upside");
    EXPECT_EQ(mimic.terms[1].coefficient, 1.0);
    EXPECT_EQ(mimic.offset, 0.1);
}

// A gripper whose right finger mimics the left (multiplier −1, offset 0.01): the two close
// together under a push, the relation held to the joints' tolerance all the way, and the
// finger friction makes a weak push stick.
TEST(UrdfImport, AMimicFingerFollowsItsLeaderAndFrictionHoldsAWeakPull) {
    auto gripper = [](const std::string& friction) {
        return R"(<robot name="gripper">
  <link name="palm"/>
  <joint name="left" type="prismatic"><parent link="palm"/><child link="l"/>
    <origin xyz="0 0.05 0"/><axis xyz="0 -1 0"/>
    <limit lower="-0.02" upper="0.04" effort="5" velocity="2"/>)" +
               friction + R"(</joint>
  <link name="l"><inertial><mass value="0.1"/>
    <inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-5"/></inertial></link>
  <joint name="right" type="prismatic"><parent link="palm"/><child link="r"/>
    <origin xyz="0 -0.05 0"/><axis xyz="0 1 0"/>
    <limit lower="-0.04" upper="0.04" effort="5" velocity="2"/>
    <mimic joint="left" multiplier="-1" offset="0.01"/></joint>
  <link name="r"><inertial><mass value="0.1"/>
    <inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-5"/></inertial></link>
</robot>)";
    };
    // In both formulations: in joint coordinates the mimic is a row over the tree's coordinates,
    // Φ = q_right + q_left − offset as in maximal coordinates.
    for (const int run : {0, 1, 2, 3}) {
        const bool withFriction = run % 2 == 1;
        const Formulation formulation = run < 2 ? Formulation::Recursive : Formulation::Maximal;
        SCOPED_TRACE(formulationName(formulation));
        const UrdfImportResult r =
            importText(gripper(withFriction ? R"(<dynamics friction="2"/>)" : ""));
        ASSERT_TRUE(r.scene);
        SceneSpec spec = *r.scene;
        spec.gravity = Vec3::Zero();
        // A 1 N push closing the left finger (along its slide, +q).
        ForceSpec push;
        push.id = spec.newId();
        push.name = "push";
        push.type = ForceType::PointForce;
        push.markerI = {"l", "j_left"};
        push.components[1] = "-1";
        spec.forces.push_back(push);
        spec.settings.formulation = formulation;
        ForwardDynamics sim(test::compiled(spec));
        ASSERT_EQ(sim.formulation().formulation, formulation) << sim.formulation().reason;
        const Status started = sim.initialize();
        ASSERT_TRUE(started.ok) << started.message;
        // Assembled: the fingers meet the mimic's offset half each (the pose had both at 0).
        const double start = sim.state().jointCoordinates(0);
        EXPECT_NEAR(start, 0.005, 1e-9);
        for (int k = 1; k <= 10; ++k) {
            ASSERT_TRUE(sim.advance(0.01 * k).ok);
            Outputs out;
            ASSERT_TRUE(sim.outputs(out).ok);
            const double left = out.jointCoordinates(0), right = out.jointCoordinates(1);
            EXPECT_NEAR(right, -left + 0.01, 1e-9) << "t " << 0.01 * k;
        }
        const double moved = sim.state().jointCoordinates(0) - start;
        if (withFriction) {
            EXPECT_LT(std::abs(moved), 1e-9);  // 2 N of friction holds the 1 N push
        } else {
            // 1 N on 0.1 kg + 0.1 kg (the mimic finger moves with it): a = 5 m/s² for 0.1 s,
            // to time stepping's first order.
            EXPECT_NEAR(moved, 0.5 * 5.0 * 0.1 * 0.1, 5e-4);
        }
    }
}

// The sign: a URDF joint position is the Motus coordinate. An arm on a revolute about +y,
// released level, is turned the positive way by gravity (its x toward −z) and rests on its
// upper stop; about −y, the negative way onto its lower stop. The limits are unequal, so a
// stop taken with the wrong sign would hold it elsewhere. Resting there, the stop carries
// gravity's moment m g l cos θ (limitForce is positive from the lower stop). A block on a
// slide along +z rests on its lower stop with its weight, along −z on its upper one.
TEST(UrdfImport, AnArmOrABlockRestsOnTheStopGravityPullsItTowards) {
    const double g = 9.81;
    struct Case {
        std::string joint, axis;
        double rest, force;  // the coordinate it rests at and the stop's force
    };
    const double moment = 1.0 * g * 0.25 * std::cos(0.6);
    const Case cases[] = {
        {"revolute", "0 1 0", 0.6, -moment},
        {"revolute", "0 -1 0", -1.0, 1.0 * g * 0.25 * std::cos(1.0)},
        {"prismatic", "0 0 1", -0.2, 3.0 * g},
        {"prismatic", "0 0 -1", 0.5, -3.0 * g},
    };
    for (const Case& c : cases) {
        const std::string limits =
            c.joint == "revolute" ? R"(<limit lower="-1" upper="0.6" effort="5" velocity="2"/>)"
                                  : R"(<limit lower="-0.2" upper="0.5" effort="5" velocity="2"/>)";
        const UrdfImportResult r =
            importText(oneJointRobot(c.joint, c.axis, limits + R"(<dynamics damping="0.5"/>)"));
        ASSERT_TRUE(r.scene) << c.joint << " " << c.axis;
        ASSERT_EQ(r.scene->gravity, Vec3(0, 0, -g));
        const test::Rested rested = test::restFor(*r.scene);
        const std::string what = c.joint + " about " + c.axis;
        EXPECT_NEAR(rested.sim->state().jointCoordinates(0), c.rest, 1e-6) << what;
        ASSERT_EQ(rested.out.limitForce.size(), 1u) << what;
        EXPECT_NEAR(rested.out.limitForce[0], c.force, 1e-6 * std::abs(c.force)) << what;
        std::printf("URDF %s: rests at %.9f (stop %.9g), stop force %.9g (expected %.9g)\n",
                    what.c_str(), rested.sim->state().jointCoordinates(0), c.rest,
                    rested.out.limitForce[0], c.force);
    }
}

// A two-link arm released level from the world comes to rest on both of its stops: each
// stop carries the moment of gravity on what hangs beyond its joint (both axes along +y, so
// gravity turns both joints the positive way onto their upper stops):
//   elbow:    m2 g l2 cos(θ1 + θ2)
//   shoulder: m1 g l1 cos θ1 + m2 g (L1 cos θ1 + l2 cos(θ1 + θ2))
TEST(UrdfImport, ATwoLinkArmComesToRestOnItsStopsWhichCarryGravitysMoments) {
    const double m1 = 2.0, l1 = 0.2, L1 = 0.4, m2 = 1.0, l2 = 0.15, g = 9.81;
    const double up1 = 0.4, up2 = 0.5;
    const UrdfImportResult r = importText(R"(<robot name="two">
  <link name="world"/>
  <joint name="shoulder" type="revolute"><parent link="world"/><child link="upper"/>
    <origin xyz="0 0 1"/><axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="0.4" effort="50" velocity="2"/><dynamics damping="0.2"/></joint>
  <link name="upper"><inertial><origin xyz="0.2 0 0"/><mass value="2"/>
    <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.027" iyz="0" izz="0.027"/></inertial></link>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="fore"/>
    <origin xyz="0.4 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="0.5" effort="50" velocity="2"/><dynamics damping="0.1"/></joint>
  <link name="fore"><inertial><origin xyz="0.15 0 0"/><mass value="1"/>
    <inertia ixx="0.0005" ixy="0" ixz="0" iyy="0.0075" iyz="0" izz="0.0075"/></inertial></link>
</robot>)");
    ASSERT_TRUE(r.scene);
    const test::Rested rested = test::restFor(*r.scene, 3.0);
    const Model& model = rested.sim->model();
    const std::size_t shoulder = limitOf(model, "shoulder"), elbow = limitOf(model, "elbow");
    const Eigen::VectorXd& q = rested.sim->state().jointCoordinates;
    const double q1 = q(model.limits[shoulder].slot), q2 = q(model.limits[elbow].slot);
    EXPECT_NEAR(q1, up1, 1e-6);
    EXPECT_NEAR(q2, up2, 1e-6);
    EXPECT_LT(rested.out.jointRates.cwiseAbs().maxCoeff(), 1e-6);
    const double elbowMoment = m2 * g * l2 * std::cos(up1 + up2);
    const double shoulderMoment =
        m1 * g * l1 * std::cos(up1) + m2 * g * (L1 * std::cos(up1) + l2 * std::cos(up1 + up2));
    EXPECT_NEAR(rested.out.limitForce[elbow], -elbowMoment, 1e-6 * elbowMoment);
    EXPECT_NEAR(rested.out.limitForce[shoulder], -shoulderMoment, 1e-6 * shoulderMoment);
    std::printf(
        "URDF two-link arm: at rest at %.9f, %.9f; stops carry %.9g, %.9g N·m (by hand %.9g, "
        "%.9g)\n",
        q1, q2, rested.out.limitForce[shoulder], rested.out.limitForce[elbow], -shoulderMoment,
        -elbowMoment);
}

TEST(UrdfImport, ReportsMissingAndInvalidFiles) {
    EXPECT_FALSE(importUrdfFile("/nonexistent/robot.urdf").scene);
    const UrdfImportResult r = importUrdfFile(MOTUS_SOURCE_DIR "/scenes/four_bar.json");
    EXPECT_FALSE(r.scene);
    ASSERT_FALSE(r.diagnostics.empty());
    EXPECT_NE(r.diagnostics[0].message.find("not a valid URDF"), std::string::npos);
}

// What is not a robot description is refused whatever the options, with urdfdom's reason: an
// empty file, a robot with no links, a joint naming a link the file does not have.
TEST(UrdfImport, AFileThatIsNotARobotIsRefusedWithTheReason) {
    struct Case {
        std::string text;
        std::string reason;
    };
    const Case cases[] = {
        {"", "not a valid URDF robot description"},
        {R"(<robot name="nothing"/>)", "not a valid URDF robot description"},
        {R"(<robot name="r"><link name="a"/>
  <joint name="j" type="fixed"><parent link="a"/><child link="ghost"/></joint></robot>)",
         "child link [ghost] of joint [j] not found"},
    };
    for (const Case& c : cases) {
        const UrdfImportResult r = importText(c.text);
        EXPECT_FALSE(r.scene) << c.text;
        const Diagnostic* d = errorAt(r, "");
        ASSERT_NE(d, nullptr) << c.text;
        EXPECT_NE(d->message.find(c.reason), std::string::npos) << d->message;
        EXPECT_FALSE(importText(c.text, strictOptions()).scene);
    }
}

TEST(UrdfImport, TextImportsLikeTheFileItCameFrom) {
    std::ifstream file(kArm, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(file)),
                           std::istreambuf_iterator<char>());
    const UrdfImportResult fromFile = importUrdfFile(kArm);
    const UrdfImportResult fromText = importUrdf(text, kArm);
    ASSERT_TRUE(fromFile.scene);
    ASSERT_TRUE(fromText.scene);
    EXPECT_EQ(sceneToJson(*fromText.scene), sceneToJson(*fromFile.scene));

    const UrdfImportResult invalid = importUrdf("<robot");
    EXPECT_FALSE(invalid.scene);
    ASSERT_FALSE(invalid.diagnostics.empty());
    EXPECT_NE(invalid.diagnostics[0].message.find("the URDF text is not a valid URDF"),
              std::string::npos)
        << invalid.diagnostics[0].message;
}

// A file named without a folder (or text with no file) finds its meshes in the working
// directory and names them relative to it, not with an empty path.
TEST(UrdfImport, AFileInTheWorkingDirectoryKeepsItsMeshPaths) {
    const std::filesystem::path previous = std::filesystem::current_path();
    std::filesystem::current_path(std::filesystem::path(kArm).parent_path());
    const UrdfImportResult r = importUrdfFile("three_link_arm.urdf");
    std::filesystem::current_path(previous);
    ASSERT_TRUE(r.scene);
    std::vector<std::string> meshFiles;
    for (const Part& part : r.scene->parts)
        for (const Shape& shape : part.shapes)
            if (shape.type == ShapeType::Mesh) meshFiles.push_back(shape.meshFile);
    EXPECT_EQ(meshFiles, std::vector<std::string>{"meshes/gripper.obj"});
}

TEST(UrdfImport, TheTestArmImports) {
    const UrdfImportResult r = importText(ArmText{}.text());
    ASSERT_TRUE(r.scene);
    EXPECT_EQ(r.scene->parts.size(), 3u);
    EXPECT_EQ(r.scene->joints.size(), 2u);
}

// A chain of 10,000 links (which overflowed the stack of the recursive link walk at ~8,000)
// imports: 10,000 moving parts, the ground, 10,000 joints, each link 0.1 m above its parent.
TEST(UrdfImport, AChainOfTenThousandLinksImports) {
    constexpr int kLinks = 10000;
    std::string text = "<robot name=\"chain\">\n<link name=\"world\"/>\n";
    for (int i = 0; i < kLinks; ++i) {
        const std::string link = "l" + std::to_string(i);
        const std::string parent = i == 0 ? "world" : "l" + std::to_string(i - 1);
        text += "<link name=\"" + link +
                "\"><inertial><origin xyz=\"0 0 0.05\"/><mass value=\"0.1\"/>"
                "<inertia ixx=\"1e-4\" ixy=\"0\" ixz=\"0\" iyy=\"1e-4\" iyz=\"0\" "
                "izz=\"1e-5\"/></inertial></link>\n"
                "<joint name=\"j" +
                std::to_string(i) + "\" type=\"continuous\"><parent link=\"" + parent +
                "\"/><child link=\"" + link +
                "\"/><origin xyz=\"0 0 0.1\"/><axis xyz=\"0 1 0\"/></joint>\n";
    }
    text += "</robot>\n";
    const UrdfImportResult r = importText(text);
    ASSERT_TRUE(r.scene);
    EXPECT_FALSE(hasErrors(r.diagnostics));
    const SceneSpec& s = *r.scene;
    ASSERT_EQ(s.parts.size(), std::size_t{kLinks} + 1);
    EXPECT_EQ(std::count_if(s.parts.begin(), s.parts.end(), [](const Part& p) { return p.ground; }),
              1);
    EXPECT_EQ(s.joints.size(), std::size_t{kLinks});
    // Parts come from the root down: the last is the chain's end, at the sum of the origins.
    double z = 0.0;
    for (int i = 0; i < kLinks; ++i) z += 0.1;
    EXPECT_EQ(s.parts.back().name, "l" + std::to_string(kLinks - 1));
    EXPECT_NEAR(s.parts.back().X_WP.p.z(), z, 1e-9);
    EXPECT_EQ(s.parts.back().markers.size(), 1u);  // its parent joint's marker only
}

// Links whose collision shapes overlap where the file places them (the Go1's four thigh motors
// drawn inside its trunk, 11 mm deep) would push each other apart against their joints with
// contact on: each such pair is a contact pair switched off, said once; with contact on, the
// imported robot starts with no part inside another. An arm whose links are apart gets none.
TEST(UrdfImport, LinksThatOverlapWhereTheFilePlacesThemDoNotTouchEachOther) {
    const UrdfImportResult r = importUrdfFile(
        MOTUS_SOURCE_DIR
        "/tests/data/robots/urdf/example-robot-data/robots/go1_description/urdf/go1.urdf");
    ASSERT_TRUE(r.scene);
    SceneSpec spec = *r.scene;
    std::vector<std::string> switched;
    for (const ContactPairSpec& pair : spec.contact.pairs) {
        EXPECT_FALSE(pair.enabled);
        EXPECT_EQ(pair.name, "noTouch_" + pair.partA + "_" + pair.partB);
        switched.push_back(pair.partA + "/" + pair.partB);
    }
    EXPECT_EQ(switched, (std::vector<std::string>{"trunk/FL_thigh_rotor", "trunk/FR_thigh_rotor",
                                                  "trunk/RL_thigh_rotor", "trunk/RR_thigh_rotor"}));
    int said = 0;
    for (const Diagnostic& d : r.diagnostics)
        said += d.severity == Severity::Warning &&
                d.message.starts_with(
                    "4 pairs of links overlap where the file places them "
                    "('trunk' and 'FL_thigh_rotor', ");
    EXPECT_EQ(said, 1);
    const auto overlaps = [](SceneSpec s) {
        s.contact.enabled = true;
        const std::shared_ptr<const Model> model = test::compiled(s);
        return findStartOverlaps(*model, initialState(*model), s.contact.slop);
    };
    EXPECT_EQ(overlaps(spec).pairs, 0u);
    spec.contact.pairs.clear();  // as it was drawn
    const StartOverlaps drawn = overlaps(spec);
    EXPECT_EQ(drawn.pairs, 4u);
    // (each rotor, 2 cm long about y, sits 0.15 mm inside the trunk's side face at y = 46.75 mm
    // from its centre: 10.15 mm of it inside)
    EXPECT_NEAR(drawn.depth, 0.01015, 1e-6);

    const UrdfImportResult arm = importUrdfFile(kArm);
    ASSERT_TRUE(arm.scene);
    EXPECT_TRUE(arm.scene->contact.pairs.empty());
    for (const Diagnostic& d : arm.diagnostics)
        EXPECT_EQ(d.message.find("overlap"), std::string::npos) << d.message;
}

// A mass that is not a finite number is malformed: an error naming the link and the value,
// never a substitute.
TEST(UrdfImport, ANonFiniteMassIsAnErrorNamingTheLinkAndTheValue) {
    for (const std::string mass : {"nan", "inf", "-inf", "1e999"}) {
        const UrdfImportResult r = importText(ArmText{.upperArmMass = mass}.text());
        EXPECT_FALSE(r.scene) << mass;
        const Diagnostic* d = errorAt(r, "link 'upper_arm'/inertial/mass");
        ASSERT_NE(d, nullptr) << mass;
        EXPECT_NE(d->message.find("link 'upper_arm'"), std::string::npos) << d->message;
        EXPECT_NE(d->message.find(mass), std::string::npos) << d->message;
    }
    const UrdfImportResult r = importText(ArmText{.upperArmIxx = "nan"}.text());
    EXPECT_FALSE(r.scene);
    const Diagnostic* d = errorAt(r, "link 'upper_arm'/inertial/inertia");
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("ixx"), std::string::npos) << d->message;
}

// The warnings about one place, joined.
std::string warningsAt(const UrdfImportResult& r, std::string_view where) {
    std::string out;
    for (const Diagnostic& d : r.diagnostics)
        if (d.severity == Severity::Warning && d.where.starts_with(where)) out += d.message + "\n";
    return out;
}

// A mass of zero is raised to the bound (1 g at most, a thousandth of the robot's mass: here
// 3.2 kg, so 1 g) with a warning saying so; --strict refuses it. A negative mass, or a negative
// moment of inertia, has no physical reading: refused in any mode, naming the link.
TEST(UrdfImport, AZeroMassIsRaisedWithAWarningOrRefusedWhenStrict) {
    const UrdfImportResult r = importText(ArmText{.upperArmMass = "0"}.text());
    ASSERT_TRUE(r.scene);
    EXPECT_EQ(r.scene->findPart("upper_arm")->mass, 1e-3);
    const std::string said = warningsAt(r, "link 'upper_arm'/inertial");
    EXPECT_NE(said.find("mass 0 kg is not positive: raised to 0.001 kg"), std::string::npos)
        << said;
    const UrdfImportResult strict =
        importText(ArmText{.upperArmMass = "0"}.text(), strictOptions());
    EXPECT_FALSE(strict.scene);
    const Diagnostic* d = errorAt(strict, "link 'upper_arm'/inertial");
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("mass 0 kg is not positive (refused: --strict)"), std::string::npos)
        << d->message;
}

TEST(UrdfImport, ANegativeMassOrMomentOfInertiaIsRefusedNamingTheLink) {
    const UrdfImportResult mass = importText(ArmText{.upperArmMass = "-5"}.text());
    EXPECT_FALSE(mass.scene);
    const Diagnostic* d = errorAt(mass, "link 'upper_arm'/inertial");
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("link 'upper_arm': mass -5 kg is negative"), std::string::npos)
        << d->message;
    const UrdfImportResult moment = importText(ArmText{.upperArmIxx = "-0.001"}.text());
    EXPECT_FALSE(moment.scene);
    d = errorAt(moment, "link 'upper_arm'/inertial");
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("link 'upper_arm': moment of inertia ixx -0.001 kg·m² is negative"),
              std::string::npos)
        << d->message;
}

// Hand-computed fix-ups of the upper arm (mass 1.2 kg, Iyy = Izz = 0.0095 kg·m²):
//  - Ixx = 0: principal moments (0, 0.0095, 0.0095) satisfy the triangle inequality, the
//    smallest is raised to the bound max(1e-6 × 0.0095, 1.2 kg × (0.1 mm)²) = 1.2e-8 kg·m²;
//  - Ixx = 0.03 > 0.0095 + 0.0095: the triangle inequality fails, balanced to
//    (0.03 + 0.019) / 3 = 0.016333… each.
TEST(UrdfImport, InertiaFixUpsMatchHandComputedValues) {
    struct Case {
        std::string ixx;
        Vec3 expected;
        std::string said;
    };
    const Case cases[] = {
        {"0", Vec3(1.2e-8, 0.0095, 0.0095), "is below the bound 1.2e-08 kg·m²: raised to it"},
        {"0.03", Vec3::Constant(0.049 / 3.0),
         "violate the triangle inequality (0.0095 + 0.0095 < 0.03): balanced to their mean"},
    };
    for (const Case& c : cases) {
        const UrdfImportResult r = importText(ArmText{.upperArmIxx = c.ixx}.text());
        ASSERT_TRUE(r.scene) << c.ixx;
        const Part& arm = *r.scene->findPart("upper_arm");
        EXPECT_EQ(arm.mass, 1.2);
        EXPECT_TRUE(arm.p_PPcm.isApprox(Vec3(0.15, 0, 0)));
        const Mat3 expected = c.expected.asDiagonal();
        EXPECT_LT((arm.I_Pcm_P - expected).norm(), 1e-15) << c.ixx << "\n" << arm.I_Pcm_P;
        const std::string said = warningsAt(r, "link 'upper_arm'/inertial");
        EXPECT_NE(said.find(c.said), std::string::npos) << said;
        // --strict: the same data is refused, and nothing is changed silently.
        const UrdfImportResult strict =
            importText(ArmText{.upperArmIxx = c.ixx}.text(), strictOptions());
        EXPECT_FALSE(strict.scene) << c.ixx;
        EXPECT_NE(errorAt(strict, "link 'upper_arm'/inertial"), nullptr) << c.ixx;
    }
}

// Direct cases of the fix-up itself: a rotated rod (0, 0.5, 0.5) keeps its principal axes and
// gets 1e-6 × 0.5 about its own; a point mass
// (all moments zero) gets mass × (0.1 mm)² about every axis.
TEST(InertiaFixup, KeepsPrincipalAxesAndBoundsAPointMass) {
    const Quat R(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
    const Mat3 Rm = R.toRotationMatrix();
    MassProperties rod{2.0, Vec3(0.1, 0, 0),
                       Rm * Vec3(0.0, 0.5, 0.5).asDiagonal() * Rm.transpose()};
    Diagnostics said;
    EXPECT_TRUE(fixInertia(rod, "link 'rod'", {}, said));
    const Mat3 expected = Rm * Vec3(1e-6 * 0.5, 0.5, 0.5).asDiagonal() * Rm.transpose();
    EXPECT_LT((rod.I_Pcm_P - expected).norm(), 1e-14);
    ASSERT_EQ(said.size(), 1u);
    EXPECT_EQ(said[0].severity, Severity::Warning);

    MassProperties point{0.5, Vec3::Zero(), Mat3::Zero()};
    said.clear();
    EXPECT_TRUE(fixInertia(point, "link 'point'", {}, said));
    EXPECT_LT((point.I_Pcm_P - Mat3::Identity() * 0.5e-8).norm(), 1e-22);

    // Physical data is left exactly as it was, without a word.
    MassProperties good{1.0, Vec3::Zero(), Vec3(0.01, 0.02, 0.025).asDiagonal()};
    const Mat3 before = good.I_Pcm_P;
    said.clear();
    EXPECT_TRUE(fixInertia(good, "link 'good'", {}, said));
    EXPECT_TRUE(said.empty());
    EXPECT_EQ(good.I_Pcm_P, before);
}

// URDF's massless links (no <inertial>): on a fixed joint they merge into their parent (a
// tool flange, a sensor frame), and a link fixed to a massless parent merges into it (a
// base_footprint above a base_link); a massless part between moving joints gets 1 g.
TEST(UrdfImport, MasslessLinksOnFixedJointsMergeIntoTheirParent) {
    const UrdfImportResult r = importText(R"(<robot name="floating">
  <link name="base_link"/>
  <joint name="mount" type="fixed"><parent link="base_link"/><child link="body"/>
    <origin xyz="0 0 0.5"/></joint>
  <link name="body"><inertial><mass value="3"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <joint name="flange_joint" type="fixed"><parent link="body"/><child link="flange"/>
    <origin xyz="0.2 0 0" rpy="0 0 1.5707963267948966"/></joint>
  <link name="flange"><visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual></link>
  <joint name="wrist" type="continuous"><parent link="flange"/><child link="hand"/>
    <origin xyz="0.1 0 0"/><axis xyz="0 0 1"/></joint>
  <link name="hand"><inertial><mass value="0.5"/>
    <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial></link>
  <joint name="gimbal_a" type="continuous"><parent link="hand"/><child link="gimbal"/>
    <axis xyz="1 0 0"/></joint>
  <link name="gimbal"/>
  <joint name="gimbal_b" type="continuous"><parent link="gimbal"/><child link="finger"/>
    <axis xyz="0 1 0"/></joint>
  <link name="finger"><inertial><mass value="0.1"/>
    <inertia ixx="0.0001" ixy="0" ixz="0" iyy="0.0001" iyz="0" izz="0.0001"/></inertial></link>
</robot>)");
    ASSERT_TRUE(r.scene);
    const SceneSpec& spec = *r.scene;
    // body went into base_link, flange into it too: four parts, three joints.
    ASSERT_EQ(spec.parts.size(), 4u);
    EXPECT_EQ(spec.findPart("body"), nullptr);
    EXPECT_EQ(spec.findPart("flange"), nullptr);
    EXPECT_EQ(spec.joints.size(), 3u);
    const Part& base = *spec.findPart("base_link");
    EXPECT_EQ(base.mass, 3.0);
    EXPECT_TRUE(base.p_PPcm.isApprox(Vec3(0, 0, 0.5)));
    // The flange's box is at (0.2, 0, 0.5), turned 90° about z.
    ASSERT_EQ(base.shapes.size(), 1u);
    EXPECT_TRUE(base.shapes[0].X_PG.p.isApprox(Vec3(0.2, 0, 0.5)));
    // The wrist's marker on base_link: body at z 0.5, flange 0.2 along x turned 90°, the wrist
    // 0.1 along the flange's x (the world's y): (0.2, 0.1, 0.5).
    const Marker* wrist = spec.findMarker({"base_link", "j_wrist"});
    ASSERT_NE(wrist, nullptr);
    EXPECT_LT((wrist->X_PM.p - Vec3(0.2, 0.1, 0.5)).norm(), 1e-15);
    const Part& hand = *spec.findPart("hand");
    EXPECT_LT((hand.X_WP.p - Vec3(0.2, 0.1, 0.5)).norm(), 1e-15);
    // The gimbal between two revolute joints is kept, given 1 g (0.001 × 3.6 kg > 1 g).
    const Part& gimbal = *spec.findPart("gimbal");
    EXPECT_EQ(gimbal.mass, 1e-3);
    EXPECT_NE(warningsAt(r, "link 'gimbal'").find("has no mass"), std::string::npos);
    EXPECT_NE(warningsAt(r, "joint 'flange_joint'").find("merged into part 'base_link'"),
              std::string::npos);
    // It falls as one rigid robot, joints closed and energy kept.
    const test::FreeRun run = test::runFree(spec, 0.5);
    ASSERT_TRUE(run.ran) << run.failure;
    EXPECT_NEAR(run.balanceAfter, run.balanceBefore, 1e-6 * run.kinetic);
    EXPECT_LT(run.constraintError, 1e-9);
}

TEST(UrdfImport, AZeroOrNonFiniteJointAxisIsAnErrorNamingTheJoint) {
    for (const std::string axis : {"0 0 0", "0 nan 1", "inf 0 0"}) {
        const UrdfImportResult r = importText(ArmText{.shoulderAxis = axis}.text());
        EXPECT_FALSE(r.scene) << axis;
        const Diagnostic* d = errorAt(r, "joint 'shoulder'/axis");
        ASSERT_NE(d, nullptr) << axis;
        EXPECT_NE(d->message.find("joint 'shoulder'"), std::string::npos) << d->message;
    }
}

// URDF normalises the axis: its length does not matter, however small or large.
TEST(UrdfImport, ANonUnitJointAxisIsNormalised) {
    for (const std::string axis : {"0 2 0", "0 1e-200 0", "0 1e300 0"}) {
        const UrdfImportResult r = importText(ArmText{.shoulderAxis = axis}.text());
        ASSERT_TRUE(r.scene) << axis;
        const SceneSpec& s = *r.scene;
        const Joint* shoulder = s.findJoint("shoulder");
        ASSERT_NE(shoulder, nullptr);
        for (const MarkerRef& ref : {shoulder->markerI, shoulder->markerJ})
            EXPECT_LT((s.findMarker(ref)->X_PM.R * Vec3::UnitZ() - Vec3::UnitY()).norm(), 1e-15)
                << axis;
    }
}

// Every number read from the file must be finite; the error names the element.
TEST(UrdfImport, ANonFiniteNumberIsAnErrorNamingItsElement) {
    const UrdfImportResult origin = importText(ArmText{.shoulderOrigin = "nan 0 0.1"}.text());
    EXPECT_FALSE(origin.scene);
    const Diagnostic* d = errorAt(origin, "joint 'shoulder'/origin");
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("nan"), std::string::npos) << d->message;

    const UrdfImportResult com = importText(ArmText{.upperArmCom = "0.15 -inf 0"}.text());
    EXPECT_FALSE(com.scene);
    EXPECT_NE(errorAt(com, "link 'upper_arm'/inertial/origin"), nullptr);

    const UrdfImportResult limit = importText(ArmText{.shoulderLower = "NaN"}.text());
    EXPECT_FALSE(limit.scene);
    EXPECT_NE(errorAt(limit, "joint 'shoulder'/limit"), nullptr);

    const UrdfImportResult huge = importText(ArmText{.shoulderOrigin = "0 0 1e400"}.text());
    EXPECT_FALSE(huge.scene);
    EXPECT_NE(errorAt(huge, "joint 'shoulder'/origin"), nullptr);
}

// Messages quote at most ~60 characters of what the file holds, however long it is.
TEST(UrdfImport, MessagesQuoteABoundedExcerptOfTheFile) {
    const std::string longName(100000, 'a');
    const std::string longNumber(100000, '7');
    const UrdfImportResult r =
        importText(ArmText{.upperArmCom = longNumber + " 0 0", .upperArmName = longName}.text());
    EXPECT_FALSE(r.scene);
    ASSERT_FALSE(r.diagnostics.empty());
    for (const Diagnostic& d : r.diagnostics) {
        EXPECT_LT(d.message.size() + d.where.size(), 400u) << d.message.substr(0, 400);
        EXPECT_NE(d.message.find("…"), std::string::npos) << d.message.substr(0, 400);
    }
}

// TinyXML parses nested elements recursively: nesting is refused before it parses.
TEST(UrdfImport, DeeplyNestedElementsAreAnErrorNotAStackOverflow) {
    constexpr int kDepth = 100000;
    std::string text = R"(<robot name="deep"><link name="world"/><link name="a">)";
    for (int i = 0; i < kDepth; ++i) text += "<x>";
    for (int i = 0; i < kDepth; ++i) text += "</x>";
    text += "</link></robot>";
    // Also when hidden after a declaration: TinyXML ends "<?..." at its first '>'.
    for (const std::string& before : {std::string(), std::string("<?x > ")}) {
        const UrdfImportResult r = importText(before + text);
        EXPECT_FALSE(r.scene);
        ASSERT_EQ(r.diagnostics.size(), 1u);
        EXPECT_NE(r.diagnostics[0].message.find("nested more than"), std::string::npos)
            << r.diagnostics[0].message;
    }
    // Tags inside comments, CDATA and quoted attribute values are not elements.
    std::string tags;
    for (int i = 0; i < 1000; ++i) tags += "<x>";
    std::string commented = ArmText{}.text();
    commented.insert(commented.find("<link name=\"base\">"),
                     "<!-- " + tags + " --><data><![CDATA[" + tags + "]]></data><data a=\"" + tags +
                         "\" b='" + tags + "'/>");
    EXPECT_TRUE(importText(commented).scene);
}

// TinyXML (under urdfdom) reads a multi-byte UTF-8 sequence by the length its lead byte
// announces, past the end of a text that cuts it short (found by the fuzzer: a heap overflow).
// Text that is not UTF-8 is refused with its place; a document declaring a single-byte encoding
// is read as such; proper UTF-8 (here in a comment and a name) imports.
TEST(UrdfImport, TextThatIsNotUtf8IsAnErrorNamingThePlace) {
    const std::string arm = ArmText{}.text();
    for (const std::string& tail :
         {std::string("\xed\xed"), std::string("\xff"), std::string("\xc3"),
          std::string("\xe0\x80\x80"), std::string("\xed\xa0\x80")}) {
        const UrdfImportResult r = importText(arm + "\n" + tail);
        EXPECT_FALSE(r.scene);
        ASSERT_EQ(r.diagnostics.size(), 1u);
        const std::string line = std::to_string(1 + std::count(arm.begin(), arm.end(), '\n') + 1);
        EXPECT_NE(r.diagnostics[0].message.find("not UTF-8 at line " + line + ", column 1"),
                  std::string::npos)
            << r.diagnostics[0].message;
    }
    std::string latin1 = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n" + arm;
    latin1.insert(latin1.find("<link name=\"base\">"),
                  "<!-- Gr\xf6\xdf"
                  "e -->");
    EXPECT_TRUE(importText(latin1).scene);
    std::string utf8 = arm;
    utf8.insert(utf8.find("<link name=\"base\">"),
                "<!-- Gr\xc3\xb6\xc3\x9f"
                "e \xe2\x86\x92 \xf0\x9f\xa4\x96 -->");
    EXPECT_TRUE(importText(utf8).scene);
}

// urdfdom accepts joints that make a loop away from the root, and a link with two parents.
TEST(UrdfImport, ALoopOfJointsOrALinkWithTwoParentsIsAnError) {
    const std::string inertial =
        R"(<inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>)";
    const UrdfImportResult loop =
        importText(R"(<robot name="loop"><link name="world"/><link name="a">)" + inertial +
                   R"(</link><link name="b">)" + inertial + R"(</link>
  <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>
  <joint name="ba" type="fixed"><parent link="b"/><child link="a"/></joint></robot>)");
    EXPECT_FALSE(loop.scene);
    const Diagnostic* d = errorAt(loop, "link 'a'");
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("loop"), std::string::npos) << d->message;

    const UrdfImportResult twoParents =
        importText(R"(<robot name="two"><link name="world"/><link name="a">)" + inertial +
                   R"(</link><link name="b">)" + inertial + R"(</link>
  <joint name="wa" type="fixed"><parent link="world"/><child link="a"/></joint>
  <joint name="wb" type="fixed"><parent link="world"/><child link="b"/></joint>
  <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint></robot>)");
    EXPECT_FALSE(twoParents.scene);
    d = errorAt(twoParents, "joint '");
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("link 'b'"), std::string::npos) << d->message;

    // A joint whose child is its own parent, after another joint made it a child (found by
    // fuzzing: urdfdom builds the cycle, and its links were never freed).
    const UrdfImportResult self = importText(
        R"(<robot name="self"><link name="world"/><link name="a">)" + inertial + R"(</link>
  <joint name="wa" type="fixed"><parent link="world"/><child link="a"/></joint>
  <joint name="aa" type="fixed"><parent link="a"/><child link="a"/></joint></robot>)");
    EXPECT_FALSE(self.scene);
    d = errorAt(self, "joint 'aa'");
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("child of two joints"), std::string::npos) << d->message;
    const UrdfImportResult alone = importText(
        R"(<robot name="alone"><link name="world"/><link name="a">)" + inertial + R"(</link>
  <joint name="aa" type="fixed"><parent link="a"/><child link="a"/></joint></robot>)");
    EXPECT_FALSE(alone.scene);
    d = errorAt(alone, "link 'a'");
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("loop"), std::string::npos) << d->message;
}

// A mesh name the file system cannot look up (longer than a path may be) is a mesh not found,
// not an exception (found by fuzzing: std::filesystem::exists threw ENAMETOOLONG).
TEST(UrdfImport, AMeshNameTooLongForTheFileSystemIsNotFoundNotAnException) {
    const std::string name(5000, 'm');
    const UrdfImportResult r = importText(
        R"(<robot name="r"><link name="world"/><link name="a"><inertial><mass value="1"/>)"
        R"(<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>)"
        R"(<visual><geometry><mesh filename="package://p/)" +
        name +
        R"(.stl"/></geometry></visual></link>)"
        R"(<joint name="wa" type="fixed"><parent link="world"/><child link="a"/></joint></robot>)");
    ASSERT_TRUE(r.scene);
    bool warned = false;
    for (const Diagnostic& d : r.diagnostics)
        warned |= d.message.find("not found") != std::string::npos;
    EXPECT_TRUE(warned);
}

// A robot's package, as a ROS workspace holds it: ws/src/acme_robot/ with a package.xml
// naming it "acme_description" (not the folder's name) and a mesh under meshes/.
struct PackageTree {
    std::filesystem::path root =
        std::filesystem::temp_directory_path() / ("motus-packages-" + std::to_string(::getpid()));
    std::filesystem::path package = root / "ws" / "src" / "acme_robot";
    PackageTree() {
        std::filesystem::create_directories(package / "meshes");
        std::filesystem::create_directories(package / "urdf");
        std::filesystem::create_directories(root / "elsewhere");
        std::ofstream(package / "package.xml")
            << "<?xml version=\"1.0\"?>\n<package format=\"2\">\n  <name> acme_description "
               "</name>\n</package>\n";
        std::filesystem::copy_file(MOTUS_SOURCE_DIR "/tests/engine/io/data/tetra.stl",
                                   package / "meshes" / "tetra.stl");
    }
    ~PackageTree() { std::filesystem::remove_all(root); }
    // The robot, written at `at`: a visual mesh from the package and a collision box.
    std::string write(const std::filesystem::path& at) const {
        std::ofstream(at) << R"(<robot name="acme"><link name="world"/>
  <link name="arm"><inertial><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <visual><geometry><mesh filename="package://acme_description/meshes/tetra.stl"/></geometry></visual>
    <collision><origin xyz="0 0 0.05"/><geometry><box size="0.1 0.2 0.3"/></geometry></collision>
  </link>
  <joint name="pin" type="continuous"><parent link="world"/><child link="arm"/><axis xyz="0 1 0"/></joint>
</robot>)";
        return at.string();
    }
};

const Shape* shapeWithRole(const Part& part, ShapeRole role) {
    for (const Shape& s : part.shapes)
        if (s.role == role) return &s;
    return nullptr;
}

// package:// is found through --package-path (crawled for the package.xml that names it),
// ROS_PACKAGE_PATH, or the folders above the file; when it is not, one warning names the
// package and where it was looked for, and the rest of the robot imports.
TEST(UrdfImport, PackagePathsAreSearchedForTheNamedPackage) {
    const PackageTree tree;
    const std::string outside = tree.write(tree.root / "elsewhere" / "acme.urdf");
    ::unsetenv("ROS_PACKAGE_PATH");
    const UrdfImportResult lost = importUrdfFile(outside);
    ASSERT_TRUE(lost.scene);
    EXPECT_EQ(shapeWithRole(*lost.scene->findPart("arm"), ShapeRole::Visual), nullptr);
    const std::string said = warningsAt(lost, "link 'arm'");
    EXPECT_NE(said.find("visual mesh 'package://acme_description/meshes/tetra.stl' not found "
                        "(looked for package 'acme_description'"),
              std::string::npos)
        << said;

    auto meshFound = [](const UrdfImportResult& r) {
        if (!r.scene) return false;
        const Shape* mesh = shapeWithRole(*r.scene->findPart("arm"), ShapeRole::Visual);
        return mesh && mesh->type == ShapeType::Mesh && mesh->mesh &&
               mesh->mesh->triangles.size() == 4;
    };
    EXPECT_TRUE(meshFound(importUrdfFile(outside, searchOptions((tree.root / "ws").string()))));
    ::setenv("ROS_PACKAGE_PATH", ("/nonexistent:" + (tree.root / "ws" / "src").string()).c_str(),
             1);
    EXPECT_TRUE(meshFound(importUrdfFile(outside)));
    ::unsetenv("ROS_PACKAGE_PATH");
    EXPECT_TRUE(meshFound(importUrdfFile(tree.write(tree.package / "urdf" / "acme.urdf"))));
}

// Visual geometry is drawn, collision geometry is what touches: the contact model of the
// imported robot holds the collision box only.
TEST(UrdfImport, CollisionGeometryBecomesTheCollisionShapes) {
    const PackageTree tree;
    const UrdfImportResult r = importUrdfFile(tree.write(tree.package / "urdf" / "acme.urdf"));
    ASSERT_TRUE(r.scene);
    const Part& arm = *r.scene->findPart("arm");
    ASSERT_EQ(arm.shapes.size(), 2u);
    const Shape* box = shapeWithRole(arm, ShapeRole::Collision);
    ASSERT_NE(box, nullptr);
    EXPECT_EQ(box->type, ShapeType::Box);
    EXPECT_EQ(box->size, Vec3(0.1, 0.2, 0.3));
    EXPECT_EQ(box->X_PG.p, Vec3(0, 0, 0.05));
    const ContactModel contact = buildContactModel(*r.scene);
    const auto& touching = contact.parts[1].shapes;
    ASSERT_EQ(touching.size(), 1u);
    EXPECT_EQ(touching[0].type, ShapeType::Box);
    // Saved and read back, the roles stay.
    const std::string written = sceneToJson(*r.scene);
    EXPECT_NE(written.find("\"role\": \"collision\""), std::string::npos);
    EXPECT_NE(written.find("\"role\": \"visual\""), std::string::npos);
}

// Inertia from geometry, on request: the collision box of 1 kg, centred at (0, 0, 0.05):
// I = m/12 (b² + c², a² + c², a² + b²) = (0.010833…, 0.008333…, 0.004166…) kg·m².
TEST(UrdfImport, InertiaFromTheCollisionGeometryOnRequest) {
    const PackageTree tree;
    const UrdfImportResult r =
        importUrdfFile(tree.write(tree.package / "urdf" / "acme.urdf"), fromGeometryOptions());
    ASSERT_TRUE(r.scene);
    const Part& arm = *r.scene->findPart("arm");
    EXPECT_DOUBLE_EQ(arm.mass, 1.0);
    EXPECT_LT((arm.p_PPcm - Vec3(0, 0, 0.05)).norm(), 1e-15);
    const Vec3 expected = Vec3(0.04 + 0.09, 0.01 + 0.09, 0.01 + 0.04) / 12.0;
    EXPECT_LT((arm.I_Pcm_P - Mat3(expected.asDiagonal())).norm(), 1e-15) << arm.I_Pcm_P;
    EXPECT_NE(warningsAt(r, "link 'arm'").find("inertia from its collision geometry"),
              std::string::npos);
}

// A file with thousands of bad numbers lists the first 50 errors and counts the others.
TEST(UrdfImport, ThousandsOfErrorsAreCountedNotAllListed) {
    std::string text = R"(<robot name="bad"><link name="world"/>)";
    for (int i = 0; i < 2000; ++i)
        text += "<link name=\"l" + std::to_string(i) +
                "\"><inertial><mass value=\"nan\"/></inertial></link>";
    text += "</robot>";
    const UrdfImportResult r = importText(text);
    EXPECT_FALSE(r.scene);
    ASSERT_EQ(r.diagnostics.size(), 51u);
    EXPECT_EQ(r.diagnostics.back().message, "1950 more errors not listed");
}

}  // namespace
}  // namespace engine::io
