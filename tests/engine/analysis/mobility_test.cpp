// Mobility: the Grübler–Kutzbach count against the rank of Φq, and the redundant equations
// explained. The counts are checked against hand counts (6 per part, the rows of each joint
// type) and the planar mobility of each linkage; the remedies are checked by applying them and
// finding the redundancy gone with the motion unchanged.

#include "engine/analysis/mobility.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/io/scene_json.h"
#include "tests/support/mechanisms.h"
#include "tests/support/scene_builders.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

using test::compiled;

SceneSpec example(const std::string& name) {
    auto loaded = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/" + name);
    EXPECT_TRUE(loaded.scene) << name;
    return loaded.scene ? *loaded.scene : SceneSpec{};
}

using test::motion;

Joint& jointNamed(SceneSpec& spec, const std::string& name) {
    return *std::find_if(spec.joints.begin(), spec.joints.end(),
                         [&](const Joint& j) { return j.name == name; });
}

Marker& markerNamed(SceneSpec& spec, const std::string& part, const std::string& name) {
    Part& p = *std::find_if(spec.parts.begin(), spec.parts.end(),
                            [&](const Part& q) { return q.name == part; });
    return *std::find_if(p.markers.begin(), p.markers.end(),
                         [&](const Marker& m) { return m.name == name; });
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

TEST(Mobility, PendulumHasOneDegreeOfFreedomAndNoRedundancy) {
    // One part (6 coordinates) on a revolute (5 equations): 1 DOF, every equation independent.
    const MobilityReport report = mobility(compiled(test::pendulum()));
    EXPECT_TRUE(report.ok) << report.message;
    EXPECT_TRUE(report.analysed);
    EXPECT_EQ(report.coordinates, 6);
    EXPECT_EQ(report.equations, 5);
    EXPECT_EQ(report.grueblerDof, 1);
    EXPECT_EQ(report.actualDof, 1);
    EXPECT_EQ(report.redundantCount, 0);
    EXPECT_TRUE(report.redundant.empty());
    EXPECT_EQ(report.summary(), "1 DOF (Gr\u00fcbler 1, no redundant equations)");
}

TEST(Mobility, WithoutAModelSaysWhy) {
    const MobilityReport report = mobility(nullptr);
    EXPECT_FALSE(report.ok);
    EXPECT_FALSE(report.analysed);
    EXPECT_FALSE(report.message.empty());
    EXPECT_EQ(report.summary().rfind("mobility unknown: ", 0), 0u);
}

TEST(Mobility, PlanarFourBarOfSpatialRevolutesHasThreeRedundantEquationsOnItsLoop) {
    // 3 parts: 18 coordinates; 4 revolutes: 20 equations; Grübler 18 − 20 = −2. In the plane
    // the four-bar has 3·3 − 2·4 = 1 DOF, so the rank is 17 and 3 equations repeat: the
    // out-of-plane slide and the two out-of-plane turns of the loop's closure.
    const auto model = compiled(example("four_bar.json"));
    const MobilityReport report = mobility(model);
    EXPECT_TRUE(report.ok) << report.message;
    EXPECT_EQ(report.coordinates, 18);
    EXPECT_EQ(report.equations, 20);
    EXPECT_EQ(report.grueblerDof, -2);
    EXPECT_EQ(report.actualDof, 1);
    EXPECT_EQ(report.redundantCount, 3);
    ASSERT_EQ(report.redundant.size(), 3u);
    EXPECT_EQ(report.summary(), "1 DOF (Gr\u00fcbler \u22122, 3 redundant equations)");

    // The same rows the solver drops.
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    for (std::size_t k = 0; k < report.redundant.size(); ++k)
        EXPECT_EQ(report.redundant[k].row, sim.solver().redundantRows()[k]);

    const std::vector<std::string> loop = {"pivotA", "pinB", "pinC", "pivotD"};
    for (const RedundantEquation& r : report.redundant) {
        SCOPED_TRACE(r.joint + " " + r.equation);
        EXPECT_NE(std::find(loop.begin(), loop.end(), r.joint), loop.end());
        EXPECT_TRUE(r.motion.empty());
        EXPECT_FALSE(r.equation.empty());
        EXPECT_TRUE(contains(r.meaning, "closed loop")) << r.meaning;
        EXPECT_TRUE(contains(r.meaning, "world y")) << r.meaning;  // the common revolute axis
        EXPECT_TRUE(contains(r.remedy, "planar loop")) << r.remedy;
        EXPECT_TRUE(contains(r.remedy, "spherical")) << r.remedy;
        // The coupler's pins are the ones to loosen (the ground pivots keep their angles).
        EXPECT_TRUE(contains(r.remedy, "Make 'pinB' a spherical joint")) << r.remedy;
        EXPECT_TRUE(contains(r.remedy, "'pinC' a universal joint")) << r.remedy;
    }
    // The out-of-plane slide (along world y, the axes' direction) is among them.
    EXPECT_EQ(report.redundant[0].joint, "pivotD");
    EXPECT_EQ(report.redundant[0].equation, "coincident y");
}

TEST(Mobility, FourBarRemediesRemoveExactlyTheRedundancyAndKeepTheMotion) {
    // pinB spherical (3 equations) and pinC universal (4): 5 + 3 + 4 + 5 = 17 equations on 18
    // coordinates, all independent: 1 DOF, the crank-rocker motion.
    SceneSpec spec = example("four_bar.json");
    jointNamed(spec, "pinB").type = JointType::Spherical;
    jointNamed(spec, "pinC").type = JointType::Universal;
    // Universal cross pins: z of rocker.C along the old hinge axis (world y), z of coupler.C
    // in the plane of motion across the coupler (its part z axis), not pointing at pinB.
    markerNamed(spec, "coupler", "C").X_PM.R = Quat::Identity();
    MobilityReport report = mobility(compiled(spec));
    EXPECT_TRUE(report.ok) << report.message;
    EXPECT_EQ(report.grueblerDof, 1);
    EXPECT_EQ(report.actualDof, 1);
    EXPECT_EQ(report.redundantCount, 0);

    // The other remedy: pinC cylindrical on its present axis.
    spec = example("four_bar.json");
    jointNamed(spec, "pinB").type = JointType::Spherical;
    jointNamed(spec, "pinC").type = JointType::Cylindrical;
    report = mobility(compiled(spec));
    EXPECT_EQ(report.grueblerDof, 1);
    EXPECT_EQ(report.actualDof, 1);
    EXPECT_EQ(report.redundantCount, 0);

    // Why the universal's second pin must not point at pinB: along the coupler it lets the
    // coupler spin about its own axis, a second (passive) degree of freedom, while the loop's
    // out-of-plane closure is again imposed twice: 2 DOF, 1 redundant equation.
    spec = example("four_bar.json");
    jointNamed(spec, "pinB").type = JointType::Spherical;
    jointNamed(spec, "pinC").type = JointType::Universal;
    markerNamed(spec, "coupler", "C").X_PM.R = Quat::FromTwoVectors(Vec3::UnitZ(), Vec3::UnitX());
    report = mobility(compiled(spec));
    EXPECT_EQ(report.grueblerDof, 1);
    EXPECT_EQ(report.actualDof, 2);
    EXPECT_EQ(report.redundantCount, 1);
}

TEST(Mobility, DrivenSliderCrankHasNoFreedomLeft) {
    // 3 parts: 18 coordinates; 3 revolutes + 1 prismatic: 20 equations, + 1 motor = 21;
    // Grübler −3. In the plane the slider-crank has 1 DOF, which the motor takes: 0 DOF, and
    // the planar loop's 3 out-of-plane equations repeat.
    const MobilityReport report = mobility(compiled(example("slider_crank.json")));
    EXPECT_TRUE(report.ok) << report.message;
    EXPECT_EQ(report.coordinates, 18);
    EXPECT_EQ(report.equations, 21);
    EXPECT_EQ(report.grueblerDof, -3);
    EXPECT_EQ(report.actualDof, 0);
    EXPECT_EQ(report.redundantCount, 3);
    const std::vector<std::string> loop = {"crankPivot", "crankPin", "wristPin", "rail"};
    for (const RedundantEquation& r : report.redundant) {
        SCOPED_TRACE(r.joint + " " + r.equation);
        EXPECT_NE(std::find(loop.begin(), loop.end(), r.joint), loop.end());
        EXPECT_TRUE(contains(r.remedy, "planar loop built from revolutes and prismatic joints"))
            << r.remedy;
        // The motor's joint keeps its angle: the rod's pins are the ones to loosen.
        EXPECT_TRUE(contains(r.remedy, "Make 'crankPin' a spherical joint")) << r.remedy;
        EXPECT_TRUE(contains(r.remedy, "'wristPin' a universal joint")) << r.remedy;
    }
}

TEST(Mobility, MotionOnACoordinateTheJointsFixIsRedundant) {
    // The pendulum's link is also welded to the ground: the weld repeats the hinge's 5
    // equations (twin joints) and adds the one that stops the swing, which leaves the motor
    // on the hinge nothing to drive. 6 coordinates, 5 + 6 + 1 = 12 equations, rank 6. The
    // weld alone imposes all 6, so deleting the hinge is the remedy for the repeats.
    SceneSpec spec = test::pendulum();
    spec.joints.push_back(
        test::joint(spec, "weld", JointType::Fixed, "link.pivot", "ground.pivot"));
    spec.motions.push_back(motion(spec, "motor", "hinge", "time"));
    const MobilityReport report = mobility(compiled(spec));
    EXPECT_EQ(report.grueblerDof, -6);
    EXPECT_EQ(report.actualDof, 0);
    EXPECT_EQ(report.redundantCount, 6);
    ASSERT_EQ(report.redundant.size(), 6u);
    for (int k = 0; k < 5; ++k) {
        const RedundantEquation& r = report.redundant[static_cast<std::size_t>(k)];
        SCOPED_TRACE(r.equation);
        EXPECT_EQ(r.joint, "weld");
        EXPECT_TRUE(contains(r.meaning, "joint 'hinge' between the same two parts")) << r.meaning;
        EXPECT_TRUE(contains(r.remedy, "delete 'hinge' ('weld' already imposes all of it)"))
            << r.remedy;
    }
    const RedundantEquation& m = report.redundant[5];
    EXPECT_EQ(m.motion, "motor");
    EXPECT_TRUE(m.joint.empty());
    EXPECT_EQ(m.equation, "angle = f(time)");
    EXPECT_TRUE(contains(m.meaning, "joint 'weld' already holds that angle fixed")) << m.meaning;
    EXPECT_TRUE(contains(m.remedy, "delete motion 'motor'")) << m.remedy;
}

TEST(Mobility, SecondMotorOnAOneDegreeOfFreedomLinkageIsRedundant) {
    // The four-bar has 1 DOF: a motor on pivotA fixes the rocker's angle too, so a second one
    // on pivotD is one equation too many. 22 equations, rank 17 + 1: 0 DOF, 3 + 1 redundant.
    SceneSpec spec = example("four_bar.json");
    spec.motions.push_back(motion(spec, "crankMotor", "pivotA", "time"));
    spec.motions.push_back(motion(spec, "rockerMotor", "pivotD", "0"));
    const MobilityReport report = mobility(compiled(spec));
    EXPECT_EQ(report.grueblerDof, -4);
    EXPECT_EQ(report.actualDof, 0);
    EXPECT_EQ(report.redundantCount, 4);
    ASSERT_EQ(report.redundant.size(), 4u);
    const RedundantEquation& m = report.redundant.back();
    EXPECT_EQ(m.motion, "rockerMotor");
    EXPECT_TRUE(
        contains(m.meaning, "1 degree of freedom and motion 'crankMotor' already drives it"))
        << m.meaning;
    EXPECT_TRUE(contains(m.remedy, "delete motion 'rockerMotor' or motion 'crankMotor'"))
        << m.remedy;
}

TEST(Mobility, HingeOnTwoCoaxialBearingsRepeatsOneOfThem) {
    // A door on two revolutes on one axis: 6 coordinates, 10 equations (Grübler −4), but the
    // second bearing adds nothing: 1 DOF, all 5 of its equations redundant.
    SceneSpec spec;
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "lower", Vec3(0, 0, 0), Vec3::UnitZ());
    test::addMarker(spec, ground, "upper", Vec3(0, 0, 1), Vec3::UnitZ());
    Part door = test::box(spec, "door", 10.0, Vec3(0.8, 0.02, 1.0), Vec3(0.4, 0, 0.5));
    test::addMarker(spec, door, "lower", Vec3(-0.4, 0, -0.5), Vec3::UnitZ());
    test::addMarker(spec, door, "upper", Vec3(-0.4, 0, 0.5), Vec3::UnitZ());
    spec.parts = {ground, door};
    spec.joints.push_back(
        test::joint(spec, "lowerHinge", JointType::Revolute, "door.lower", "ground.lower"));
    spec.joints.push_back(
        test::joint(spec, "upperHinge", JointType::Revolute, "door.upper", "ground.upper"));
    MobilityReport report = mobility(compiled(spec));
    EXPECT_EQ(report.grueblerDof, -4);
    EXPECT_EQ(report.actualDof, 1);
    ASSERT_EQ(report.redundantCount, 5);
    for (const RedundantEquation& r : report.redundant) {
        SCOPED_TRACE(r.equation);
        EXPECT_EQ(r.joint, "upperHinge");
        EXPECT_TRUE(contains(r.meaning, "joint 'lowerHinge' between the same two parts"))
            << r.meaning;
        EXPECT_TRUE(contains(r.remedy, "two bearings of one hinge")) << r.remedy;
        EXPECT_TRUE(contains(r.remedy, "spherical")) << r.remedy;
        EXPECT_TRUE(contains(r.remedy, "pointOnLine")) << r.remedy;
    }

    // The remedy: a ball at the lower bearing and the upper one on the hinge line. 3 + 2
    // equations, all independent: still 1 DOF about the hinge axis.
    jointNamed(spec, "lowerHinge").type = JointType::Spherical;
    jointNamed(spec, "upperHinge").type = JointType::PointOnLine;
    report = mobility(compiled(spec));
    EXPECT_EQ(report.grueblerDof, 1);
    EXPECT_EQ(report.actualDof, 1);
    EXPECT_EQ(report.redundantCount, 0);
}

TEST(Mobility, LoopFoundThroughTheJointsThatImplyTheEquation) {
    // The four-bar's rocker is also held by a point-on-plane joint at C (the pose has no DOF
    // left: 21 equations, rank 18). That joint joins the rocker straight to the ground, so the
    // shortest cycle through pivotD is the two-joint one, which does not explain pivotD's
    // repeats; the joints that do are found one by one and again form the planar loop.
    SceneSpec spec = example("four_bar.json");
    const Part& rocker = *std::find_if(spec.parts.begin(), spec.parts.end(),
                                       [](const Part& p) { return p.name == "rocker"; });
    const Vec3 p_WC = rocker.X_WP * markerNamed(spec, "rocker", "C").X_PM.p;
    for (Part& part : spec.parts)
        if (part.ground) test::addMarker(spec, part, "stop", p_WC, Vec3::UnitX());
    spec.joints.insert(spec.joints.begin() + 3, test::joint(spec, "stop", JointType::PointOnPlane,
                                                            "ground.stop", "rocker.C"));
    const MobilityReport report = mobility(compiled(spec));
    EXPECT_EQ(report.equations, 21);
    EXPECT_EQ(report.grueblerDof, -3);
    EXPECT_EQ(report.actualDof, 0);
    ASSERT_EQ(report.redundantCount, 3);
    for (const RedundantEquation& r : report.redundant) {
        SCOPED_TRACE(r.equation);
        EXPECT_EQ(r.joint, "pivotD");
        EXPECT_TRUE(contains(r.meaning, "closed loop ('pivotA', 'pinB' and 'pinC')")) << r.meaning;
        EXPECT_TRUE(contains(
            r.remedy, "planar loop built from revolutes ('pivotA', 'pinB', 'pinC' and 'pivotD')"))
            << r.remedy;
    }
}

TEST(Mobility, StretchedLinkageRepeatsAnEquationOnlyAtItsDeadCentre) {
    // Two links hinged in a line along x, the tip tied to the origin by a rod of exactly the
    // stretched length: 12 coordinates, 5 + 5 + 1 = 11 equations, Grübler 1. Stretched, no
    // hinge rate moves the tip along the rod (both links turn it across the line), so the
    // rod's equation repeats the hinges' and the linkage has 2 DOF at that instant.
    SceneSpec spec = test::chain(2, IntegratorType::DormandPrince45, 1e-3);
    for (Part& part : spec.parts)
        if (part.name == "link1") test::addMarker(spec, part, "tip", Vec3(0.05, 0, 0));
    Joint rod = test::joint(spec, "rod", JointType::Distance, "link1.tip", "ground.j0");
    rod.length = 0.2;
    spec.joints.push_back(rod);
    MobilityReport report = mobility(compiled(spec));
    EXPECT_EQ(report.grueblerDof, 1);
    EXPECT_EQ(report.actualDof, 2);
    ASSERT_EQ(report.redundantCount, 1);
    EXPECT_EQ(report.redundant[0].joint, "rod");
    EXPECT_EQ(report.redundant[0].equation, "distance");
    EXPECT_TRUE(contains(report.redundant[0].meaning, "along world x"))
        << report.redundant[0].meaning;
    EXPECT_TRUE(contains(report.redundant[0].meaning, "closed loop ('j0' and 'j1')"))
        << report.redundant[0].meaning;
    EXPECT_TRUE(contains(report.redundant[0].remedy, "dead centre")) << report.redundant[0].remedy;

    // Bent by 60° at the middle hinge, with the rod as long as the tip's distance then: the
    // tip can slide along the rod's line, 1 DOF, nothing repeated.
    const Quat R = quatFromAxisAngle(Vec3::UnitY(), kPi / 3);
    const Vec3 knee(0.1, 0, 0);
    spec.parts[2].X_WP = {R, knee + R * Vec3(0.05, 0, 0)};
    spec.joints.back().length = (knee + R * Vec3(0.1, 0, 0)).norm();
    report = mobility(compiled(spec));
    EXPECT_TRUE(report.ok) << report.message;
    EXPECT_EQ(report.grueblerDof, 1);
    EXPECT_EQ(report.actualDof, 1);
    EXPECT_EQ(report.redundantCount, 0);
}

// A plate on three legs with ball joints at both ends, the legs standing at x = 0, 1, 2 and
// the third one's foot at y = `foot2`.
SceneSpec threeLegs(double foot2) {
    SceneSpec spec;
    Part ground = test::groundPart(spec);
    Part plate = test::box(spec, "plate", 1.0, Vec3(2.2, 0.1, 0.05), Vec3(1, 0, 1));
    std::vector<Part> legs;
    for (int k = 0; k < 3; ++k) {
        const std::string n = std::to_string(k);
        const double y = k == 2 ? foot2 : 0.0;
        test::addMarker(spec, ground, "g" + n, Vec3(k, y, 0));
        test::addMarker(spec, plate, "p" + n, Vec3(k - 1.0, 0, 0));
        const Vec3 foot(k, y, 0), head(k, 0, 1);
        const Quat R = Quat::FromTwoVectors(Vec3::UnitZ(), head - foot);
        const double L = (head - foot).norm();
        Part leg = test::box(spec, "leg" + n, 1.0, Vec3(0.05, 0.05, L), 0.5 * (foot + head), R);
        test::addMarker(spec, leg, "bottom", Vec3(0, 0, -0.5 * L));
        test::addMarker(spec, leg, "top", Vec3(0, 0, 0.5 * L));
        legs.push_back(leg);
    }
    spec.parts = {ground, plate, legs[0], legs[1], legs[2]};
    for (int k = 0; k < 3; ++k) {
        const std::string n = std::to_string(k);
        spec.joints.push_back(test::joint(spec, "base" + n, JointType::Spherical,
                                          "leg" + n + ".bottom", "ground.g" + n));
        spec.joints.push_back(
            test::joint(spec, "top" + n, JointType::Spherical, "leg" + n + ".top", "plate.p" + n));
    }
    return spec;
}

TEST(Mobility, ParallelLegsInOnePlaneRepeatAnEquationThroughTwoLoops) {
    // 4 parts: 24 coordinates; 6 ball joints: 18 equations; Grübler 6 (the plate's 3 DOF
    // left by three rods, plus each leg's spin about its own axis). Each ball-ended leg holds
    // the plate along its line; three parallel lines in one plane are dependent (two of them
    // already stop any motion along the third), so one equation repeats and the plate has a
    // fourth DOF at that instant: 7. It takes both other legs, two loops, to imply it.
    MobilityReport report = mobility(compiled(threeLegs(0.0)));
    EXPECT_EQ(report.coordinates, 24);
    EXPECT_EQ(report.equations, 18);
    EXPECT_EQ(report.grueblerDof, 6);
    EXPECT_EQ(report.actualDof, 7);
    ASSERT_EQ(report.redundantCount, 1);
    const RedundantEquation& r = report.redundant[0];
    EXPECT_EQ(r.joint, "top2");
    EXPECT_EQ(r.equation, "coincident z");  // along the legs
    EXPECT_TRUE(contains(r.meaning, "joints 'base0', 'top0', 'base1', 'top1' and 'base2'"))
        << r.meaning;
    EXPECT_TRUE(contains(r.meaning, "more than one closed loop")) << r.meaning;
    EXPECT_TRUE(contains(r.remedy, "special")) << r.remedy;

    // Leaning the third leg out of the plane makes the three lines independent: 6 DOF.
    report = mobility(compiled(threeLegs(0.3)));
    EXPECT_EQ(report.grueblerDof, 6);
    EXPECT_EQ(report.actualDof, 6);
    EXPECT_EQ(report.redundantCount, 0);
}

TEST(Mobility, SpatialRssrHasOnlyTheCouplerSpinLeftWhenDriven) {
    // 3 parts: 18 coordinates. Revolute 5 + spherical 3 + spherical 3 + revolute 5 = 16, + the
    // motor = 17: Grübler 1. Nothing is redundant (the revolute axes, z and x, are skew, so no
    // equation repeats); the one DOF left is the coupler spinning about the line through its
    // two ball centres, which no joint resists (it moves nothing else).
    SceneSpec spec = example("rssr_linkage.json");
    MobilityReport report = mobility(compiled(spec));
    EXPECT_TRUE(report.ok) << report.message;
    EXPECT_EQ(report.coordinates, 18);
    EXPECT_EQ(report.equations, 17);
    EXPECT_EQ(report.grueblerDof, 1);
    EXPECT_EQ(report.actualDof, 1);
    EXPECT_EQ(report.redundantCount, 0);

    // Without the motor: the spatial four-bar's own motion plus the spin (Kutzbach:
    // 6·3 − 5 − 3 − 3 − 5 = 2).
    spec.motions.clear();
    report = mobility(compiled(spec));
    EXPECT_EQ(report.grueblerDof, 2);
    EXPECT_EQ(report.actualDof, 2);
    EXPECT_EQ(report.redundantCount, 0);
}

}  // namespace
}  // namespace engine
