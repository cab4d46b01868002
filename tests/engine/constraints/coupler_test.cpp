// Couplers against closed forms: a gear pair of ratio 2 keeps its speed ratio to round-off over
// many turns, its tooth force balances the driven gear's torques (inertia included), an idler
// leaves a train's ratio as it is and turns the output the other way; a rack follows its
// pinion's pitch circle and carries its mass's force; a screw advances its pitch per turn and
// holds its nut's weight; a free gear pair keeps its energy; bad couplers are refused at their
// JSON path with the reason.

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "engine/analysis/drag.h"
#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/kinematic_analysis.h"
#include "engine/analysis/mobility.h"
#include "engine/analysis/statics.h"
#include "engine/io/csv_export.h"
#include "engine/io/scene_json.h"
#include "engine/math/constants.h"
#include "engine/model/construct.h"
#include "engine/model/edit.h"
#include "engine/record/channel_names.h"
#include "engine/record/recording.h"
#include "tests/support/mechanisms.h"
#include "tests/support/scene_builders.h"
#include "tests/support/scene_errors.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

using test::compiled;

constexpr double kGearMass = 1.0, kGearSide = 0.1, kGearThickness = 0.02;
// A gear's moment of inertia about its axle (a square plate about its normal).
constexpr double kGearInertia = kGearMass * (2.0 * kGearSide * kGearSide) / 12.0;

// A gear: a plate at (x, 0, 0) on an axle along +z to the ground, the revolute `joint` from its
// "hub" to the ground's marker `axle`.
void addGear(SceneSpec& spec, Part& ground, const std::string& name, double x,
             const std::string& joint, bool groundIsI = false) {
    const std::string axle = name + "_axle";
    test::addMarker(spec, ground, axle, Vec3(x, 0, 0));
    Part gear =
        test::box(spec, name, kGearMass, Vec3(kGearSide, kGearSide, kGearThickness), Vec3(x, 0, 0));
    test::addMarker(spec, gear, "hub", Vec3::Zero());
    spec.parts.push_back(gear);
    spec.joints.push_back(
        groundIsI ? test::joint(spec, joint, JointType::Revolute, "ground." + axle, name + ".hub")
                  : test::joint(spec, joint, JointType::Revolute, name + ".hub", "ground." + axle));
}

void gear(SceneSpec& spec, const std::string& name, const std::string& jointI,
          const std::string& jointJ, double ratio, bool internal = false) {
    CouplerSpec* c = test::addCoupler(spec, name, CouplerType::Gear, jointI, jointJ);
    c->ratio = ratio;
    c->internal = internal;
}

// Gear 1 (pitch radius 0.1 m) at the origin meshing with gear 2 (0.2 m) 0.3 m away: ratio 2.
// No gravity; the ground is joint 2's part I when `groundIsI` (its angle then counts gear 2's
// turn the other way).
SceneSpec gearPair(double ratio = 2.0, bool groundIsI = false) {
    SceneSpec spec;
    spec.gravity = Vec3::Zero();
    Part ground = test::groundPart(spec);
    addGear(spec, ground, "gear1", 0.0, "axle1");
    addGear(spec, ground, "gear2", 0.1 * (1.0 + ratio), "axle2", groundIsI);
    spec.parts.insert(spec.parts.begin(), ground);
    gear(spec, "mesh", "axle1", "axle2", ratio);
    return spec;
}

Outputs outputsOf(ForwardDynamics& sim) {
    Outputs out;
    EXPECT_TRUE(sim.outputs(out).ok);
    return out;
}

TEST(Couplers, AGearPairKeepsItsSpeedRatioExactlyOverManyTurns) {
    for (const bool groundIsI : {false, true}) {
        for (const double ratio : {2.0, 1.5}) {
            SceneSpec spec = gearPair(ratio, groundIsI);
            // Gear 1 driven at 1.5 turns a second, accelerating: many turns of both gears.
            spec.motions.push_back(test::motion(spec, "drive", "axle1", "3*pi*time + time^2"));
            ForwardDynamics sim(compiled(spec));
            ASSERT_TRUE(sim.initialize().ok);
            for (int k = 1; k <= 40; ++k) {
                ASSERT_TRUE(sim.advance(0.1 * k).ok);
                const Outputs out = outputsOf(sim);
                const double w1 = out.jointRates(0), w2 = out.jointRates(1);
                // External gears turn opposite ways about the common direction +z: with the
                // ground as joint 2's part I its angle counts gear 2 the other way round.
                const double sense = groundIsI ? 1.0 : -1.0;
                EXPECT_NEAR(w1, sense * ratio * w2, 1e-10 * std::abs(w1)) << "t " << 0.1 * k;
                EXPECT_NEAR(out.jointCoordinates(0), sense * ratio * out.jointCoordinates(1), 1e-9)
                    << "t " << 0.1 * k;
                EXPECT_LT(out.constraintError, 1e-9);
            }
            // Four seconds at 1.5 turns a second and more: past six turns of gear 1.
            EXPECT_GT(sim.state().jointCoordinates(0), 12.0 * kPi);
        }
    }
}

TEST(Couplers, TheToothForceBalancesTheDrivenGearsTorques) {
    // Gear 1 driven with angular acceleration 4 rad/s²; gear 2 resists with a constant torque
    // of 3 N·m about +z. Gear 2: J α2 = (tooth torque on it) + 3, α2 = −α1 / 2.
    SceneSpec spec = gearPair();
    spec.motions.push_back(test::motion(spec, "drive", "axle1", "2*time^2"));
    ForceSpec load;
    load.id = spec.newId();
    load.name = "load";
    load.type = ForceType::PointTorque;
    load.markerI = {"gear2", "hub"};
    load.components[2] = "3";
    spec.forces.push_back(load);
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    for (const double t : {0.0, 0.5, 1.3}) {
        if (t > 0.0) {
            ASSERT_TRUE(sim.advance(t).ok);
        }
        const Outputs out = outputsOf(sim);
        ASSERT_EQ(out.couplerForce.size(), 1u);
        const double alpha2 = -4.0 / 2.0;
        const double toothTorque2 = kGearInertia * alpha2 - 3.0;
        EXPECT_NEAR(out.couplerEffortJ[0], toothTorque2, 1e-8 * std::abs(toothTorque2));
        // Gear 1 takes the opposite power: τ1 ω1 + τ2 ω2 = 0, so τ1 = τ2 / 2.
        EXPECT_NEAR(out.couplerEffortI[0], toothTorque2 / 2.0, 1e-8 * std::abs(toothTorque2));
        // The tooth force: the torque on gear 1 over its pitch radius 0.1 m, and the same from
        // gear 2's side over 0.2 m.
        EXPECT_NEAR(out.couplerForce[0], out.couplerEffortI[0] / 0.1, 1e-12);
        EXPECT_NEAR(std::abs(out.couplerForce[0]), std::abs(toothTorque2) / 0.2,
                    1e-8 * std::abs(toothTorque2) / 0.2);
        // The teeth push at the pitch point along the common tangent (±y: the pitch point is
        // on the line of centres, x): each gear's bearing (its revolute's reaction, the gear
        // being part I) carries that force back, the two opposite.
        const double F = std::abs(toothTorque2) / 0.2;
        for (int j = 0; j < 2; ++j) {
            const Vec3& bearing = out.reactions[static_cast<std::size_t>(j)].force_W;
            EXPECT_NEAR(std::abs(bearing.y()), F, 1e-8 * F) << "joint " << j << " t " << t;
            EXPECT_NEAR(bearing.x(), 0.0, 1e-8 * F);
            EXPECT_NEAR(bearing.z(), 0.0, 1e-8 * F);
        }
        EXPECT_NEAR(out.reactions[0].force_W.y(), -out.reactions[1].force_W.y(), 1e-8 * F);
        // The motor drives gear 1 through both gears' inertia and the load.
        const double motor = kGearInertia * 4.0 - toothTorque2 / 2.0;
        EXPECT_NEAR(out.driverEffort[0], motor, 1e-8 * std::abs(motor));
    }
    // Recorded as channels and written to CSV.
    const FrameLayout layout(sim.model());
    EXPECT_GE(layout.findChannel(channels::of("mesh", channels::kCouplerForce)), 0);
    EXPECT_GE(layout.findChannel(channels::of("mesh", channels::kCouplerEffort[1])), 0);
    std::ostringstream csv;
    io::CsvWriter writer(sim.model(), csv);
    writer.writeHeader();
    EXPECT_NE(csv.str().find("mesh.force,mesh.effortI,mesh.effortJ"), std::string::npos);
}

TEST(Couplers, AnIdlerLeavesTheRatioAndReversesTheOutput) {
    // Gear 1 (r 0.1) drives idler 2 (r 0.2) which drives gear 3 (r 0.1): ω3 = ω1, the same way
    // round, where a direct mesh of 1 and 3 would turn 3 the other way.
    SceneSpec spec;
    spec.gravity = Vec3::Zero();
    Part ground = test::groundPart(spec);
    addGear(spec, ground, "gear1", 0.0, "axle1");
    addGear(spec, ground, "idler", 0.3, "axle2");
    addGear(spec, ground, "gear3", 0.6, "axle3");
    spec.parts.insert(spec.parts.begin(), ground);
    gear(spec, "mesh12", "axle1", "axle2", 2.0);
    gear(spec, "mesh23", "axle2", "axle3", 0.5);
    spec.motions.push_back(test::motion(spec, "drive", "axle1", "5*time"));
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(2.0).ok);
    const Outputs out = outputsOf(sim);
    EXPECT_NEAR(out.jointRates(2), out.jointRates(0), 1e-10 * 5.0);
    EXPECT_NEAR(out.jointRates(1), -0.5 * out.jointRates(0), 1e-10 * 5.0);
    EXPECT_NEAR(out.jointCoordinates(2), 10.0, 1e-9);
    // At constant speed without load the idler carries no tooth force.
    for (double f : out.couplerForce) EXPECT_NEAR(f, 0.0, 1e-8);
}

TEST(Couplers, APlanetaryGearTurnsItsCarrierAtTheSunsSpeedOverOnePlusTheRingRatio) {
    // Sun (r 0.1) and carrier on the ground's axle, a planet (r 0.05) on the carrier, the
    // ring (r 0.2) the ground itself: two linear couplers (rs qsun − rs qcarrier + rp qplanet
    // = 0 at the sun's mesh, rR qcarrier + rp qplanet = 0 at the fixed ring's), each on three
    // parts. ω_carrier = ω_sun rs / (rs + rR), ω_planet (on the carrier) = −ω_carrier rR / rp.
    SceneSpec spec;
    spec.gravity = Vec3::Zero();
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "axle", Vec3::Zero());
    addGear(spec, ground, "sun", 0.0, "sunAxle");
    spec.parts.back().markers.clear();
    test::addMarker(spec, spec.parts.back(), "hub", Vec3::Zero());
    Part carrier = test::box(spec, "carrier", 0.5, Vec3(0.2, 0.02, 0.01), Vec3(0.075, 0, 0.02));
    test::addMarker(spec, carrier, "hub", Vec3(-0.075, 0, -0.02));
    test::addMarker(spec, carrier, "pin", Vec3(0.075, 0, -0.02));
    spec.parts.push_back(carrier);
    Part planet = test::box(spec, "planet", 0.2, Vec3(0.07, 0.07, 0.01), Vec3(0.15, 0, 0));
    test::addMarker(spec, planet, "hub", Vec3::Zero());
    spec.parts.push_back(planet);
    spec.parts.insert(spec.parts.begin(), ground);
    spec.joints.push_back(
        test::joint(spec, "carrierAxle", JointType::Revolute, "carrier.hub", "ground.axle"));
    spec.joints.push_back(
        test::joint(spec, "planetPin", JointType::Revolute, "planet.hub", "carrier.pin"));
    auto linear = [&](const std::string& name, std::vector<CouplerTerm> terms) {
        CouplerSpec c;
        c.id = spec.newId();
        c.name = name;
        c.type = CouplerType::Linear;
        c.terms = std::move(terms);
        spec.couplers.push_back(c);
    };
    const double rs = 0.1, rp = 0.05, rR = 0.2;
    linear("sunMesh", {{"sunAxle", JointAxis::Rotation, rs},
                       {"carrierAxle", JointAxis::Rotation, -rs},
                       {"planetPin", JointAxis::Rotation, rp}});
    linear("ringMesh",
           {{"carrierAxle", JointAxis::Rotation, rR}, {"planetPin", JointAxis::Rotation, rp}});
    spec.motions.push_back(test::motion(spec, "drive", "sunAxle", "6*time"));
    // In maximal coordinates and in joint coordinates (the couplers rows over the tree's
    // angles, held with multipliers as the cut joints' rows are).
    for (const Formulation formulation : {Formulation::Maximal, Formulation::Recursive}) {
        SCOPED_TRACE(formulationName(formulation));
        spec.settings.formulation = formulation;
        ForwardDynamics sim(compiled(spec));
        ASSERT_EQ(sim.formulation().formulation, formulation) << sim.formulation().reason;
        ASSERT_TRUE(sim.initialize().ok);
        ASSERT_TRUE(sim.advance(2.0).ok);
        const Outputs out = outputsOf(sim);
        const double carrierRate = 6.0 * rs / (rs + rR);
        EXPECT_NEAR(out.jointRates(1), carrierRate, 1e-10);
        EXPECT_NEAR(out.jointRates(2), -carrierRate * rR / rp, 1e-9);
        EXPECT_NEAR(out.jointCoordinates(1), 2.0 * carrierRate, 1e-9);
        EXPECT_LT(out.constraintError, 1e-9);
        // At constant speed without load nothing needs a tooth force.
        for (double f : out.couplerForce) EXPECT_NEAR(f, 0.0, 1e-8);
    }
}

TEST(Couplers, AnInternalPairTurnsTheSameWay) {
    // A pinion of radius 0.1 inside a ring of radius 0.3, axes 0.2 apart: ratio 3.
    SceneSpec spec;
    spec.gravity = Vec3::Zero();
    Part ground = test::groundPart(spec);
    addGear(spec, ground, "pinion", 0.2, "pinionAxle");
    addGear(spec, ground, "ring", 0.0, "ringAxle");
    spec.parts.insert(spec.parts.begin(), ground);
    gear(spec, "mesh", "pinionAxle", "ringAxle", 3.0, true);
    spec.motions.push_back(test::motion(spec, "drive", "pinionAxle", "3*time"));
    const auto model = compiled(spec);
    ASSERT_TRUE(model);
    EXPECT_NEAR(model->couplers[0].lever, 0.1, 1e-12);  // the pinion's pitch radius
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(1.0).ok);
    const Outputs out = outputsOf(sim);
    EXPECT_NEAR(out.jointRates(1), 1.0, 1e-10);
}

TEST(Couplers, AFreeGearPairKeepsItsEnergyAndMomentumRatio) {
    // Gear 1 spun at 10 rad/s, gear 2 at the speed the mesh needs, nothing else acting.
    SceneSpec spec = gearPair();
    spec.parts[1].w_WP_W = Vec3(0, 0, 10.0);
    spec.parts[2].w_WP_W = Vec3(0, 0, -5.0);
    const test::FreeRun run = test::runFree(spec, 3.0);
    ASSERT_TRUE(run.ran) << run.failure;
    const double energy = 0.5 * kGearInertia * (100.0 + 25.0);
    EXPECT_NEAR(run.kinetic, energy, 1e-8 * energy);
    EXPECT_NEAR(run.balanceAfter, run.balanceBefore, 1e-8 * energy);
    EXPECT_LT(run.constraintError, 1e-9);
}

// A pinion (revolute about +z at the origin) and a rack of mass `rackMass` sliding along +x
// on a prismatic joint, its pitch line 0.05 m below the pinion's axis (y = −0.05).
SceneSpec rackAndPinion(double rackMass) {
    SceneSpec spec;
    spec.gravity = Vec3::Zero();
    Part ground = test::groundPart(spec);
    addGear(spec, ground, "pinion", 0.0, "pinionAxle");
    test::addMarker(spec, ground, "way", Vec3(0, -0.05, 0), Vec3::UnitX());
    Part rack = test::box(spec, "rack", rackMass, Vec3(0.4, 0.02, 0.02), Vec3(0, -0.05, 0));
    test::addMarker(spec, rack, "slider", Vec3::Zero(), Vec3::UnitX());
    spec.parts.push_back(rack);
    spec.parts.insert(spec.parts.begin(), ground);
    spec.joints.push_back(
        test::joint(spec, "slide", JointType::Prismatic, "rack.slider", "ground.way"));
    test::addCoupler(spec, "teeth", CouplerType::RackPinion, "pinionAxle", "slide")->radius = 0.05;
    return spec;
}

TEST(Couplers, ARackFollowsItsPinionsPitchCircleAndCarriesItsMassForce) {
    // Turning +z, the pinion's lowest point moves +x: the rack slides r θ along +x.
    SceneSpec spec = rackAndPinion(2.0);
    spec.motions.push_back(test::motion(spec, "drive", "pinionAxle", "3*time^2"));
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(1.5).ok);
    const Outputs out = outputsOf(sim);
    const double theta = 3.0 * 1.5 * 1.5;
    EXPECT_NEAR(out.jointCoordinates(1), 0.05 * theta, 1e-10);
    EXPECT_NEAR(out.jointRates(1), 0.05 * 6.0 * 1.5, 1e-10);
    // The teeth push the 2 kg rack at its acceleration 0.05 × 6 m/s².
    EXPECT_NEAR(out.couplerForce[0], 2.0 * 0.05 * 6.0, 1e-8);
    EXPECT_NEAR(out.couplerEffortJ[0], out.couplerForce[0], 1e-12);
    // The pinion's bearing takes the tooth force back along the rack (x), the rack's slide
    // nothing along it.
    EXPECT_NEAR(std::abs(out.reactions[0].force_W.x()), 2.0 * 0.05 * 6.0, 1e-8);
    EXPECT_NEAR(out.reactions[1].force_J.z(), 0.0, 1e-8);
}

TEST(Couplers, AScrewAdvancesItsPitchPerTurnAndHoldsItsNutsWeight) {
    // A 3 kg nut on a vertical cylindrical joint, 4 mm per turn, turned at a steady 2 turns/s.
    SceneSpec spec;
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "thread", Vec3::Zero());
    spec.parts.push_back(ground);
    Part nut = test::box(spec, "nut", 3.0, Vec3(0.05, 0.05, 0.02), Vec3::Zero());
    test::addMarker(spec, nut, "bore", Vec3::Zero());
    spec.parts.push_back(nut);
    spec.joints.push_back(
        test::joint(spec, "spindle", JointType::Cylindrical, "nut.bore", "ground.thread"));
    test::addCoupler(spec, "thread", CouplerType::Screw, "spindle")->pitch = 0.004;
    spec.motions.push_back(test::motion(spec, "turn", "spindle", "4*pi*time"));
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(2.5).ok);
    const Outputs out = outputsOf(sim);
    EXPECT_NEAR(out.jointCoordinates(1), 0.004 * 5.0, 1e-10);  // five turns
    // At constant speed the thread carries the nut's weight, and the motor its lift's power:
    // torque × ω = weight × rise rate.
    const double weight = 3.0 * 9.81;
    EXPECT_NEAR(out.couplerForce[0], weight, 1e-8 * weight);
    EXPECT_NEAR(out.driverEffort[0], weight * 0.004 / (2.0 * kPi), 1e-8 * weight);
}

TEST(Couplers, ALinearCouplerHoldsItsSumFromTheGivenOffset) {
    // Two gears as a belt would tie them: θ1 − 2 θ2 = 0.3 from the start (the parts placed at
    // zero: assembly turns gear 1 to meet it).
    SceneSpec spec = gearPair();
    spec.couplers.clear();
    CouplerSpec c;
    c.id = spec.newId();
    c.name = "belt";
    c.type = CouplerType::Linear;
    c.terms = {{"axle1", JointAxis::Rotation, 1.0}, {"axle2", JointAxis::Rotation, -2.0}};
    c.offset = 0.3;
    spec.couplers.push_back(c);
    spec.motions.push_back(test::motion(spec, "drive", "axle2", "time"));
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(1.0).ok);
    const Outputs out = outputsOf(sim);
    EXPECT_NEAR(out.jointCoordinates(0) - 2.0 * out.jointCoordinates(1), 0.3, 1e-10);
    EXPECT_NEAR(out.jointRates(0), 2.0, 1e-10);
}

TEST(Couplers, AKinematicAnalysisDrivesTheCoupledGearAndFindsTheMotorTorque) {
    // One motion and the mesh fix both gears: a fully driven mechanism.
    SceneSpec spec = gearPair();
    spec.motions.push_back(test::motion(spec, "drive", "axle1", "time^2"));
    const auto model = compiled(spec);
    ASSERT_TRUE(model);
    EXPECT_TRUE(fullyDrivenProblem(model).ok);
    const MobilityReport report = mobility(model);
    EXPECT_EQ(report.actualDof, 0);
}

TEST(Couplers, StaticsBalancesASpringOnOneGearAgainstAWeightOnTheOther) {
    // Gravity in the gears' plane (−y); gear 2 carries its 1 kg 50 mm off its axle, gear 1 a
    // torsion spring of 1 N·m/rad. Virtual work with θ1 = −2 θ2: −4 k θ2 = m g e cos θ2.
    SceneSpec spec = gearPair();
    spec.gravity = Vec3(0, -9.81, 0);
    spec.parts[2].p_PPcm = Vec3(0.05, 0, 0);
    ForceSpec spring;
    spring.id = spec.newId();
    spring.name = "spring";
    spring.type = ForceType::RotationalSpringDamper;
    spring.joint = "axle1";
    spring.stiffness = 1.0;
    spring.damping = 0.05;
    spec.forces.push_back(spring);
    const auto model = compiled(spec);
    ASSERT_TRUE(model);
    const StaticResult r = equilibrium(*model, initialState(*model));
    ASSERT_TRUE(r.status.ok) << r.status.message;
    double theta2 = 0.0;  // Newton on −4 θ − 0.4905 cos θ = 0
    for (int k = 0; k < 50; ++k) {
        const double f = -4.0 * theta2 - 9.81 * 0.05 * std::cos(theta2);
        const double df = -4.0 + 9.81 * 0.05 * std::sin(theta2);
        theta2 -= f / df;
    }
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize(r.state).ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_NEAR(out.jointCoordinates(1), theta2, 1e-8);
    EXPECT_NEAR(out.jointCoordinates(0), -2.0 * theta2, 1e-8);
    EXPECT_EQ(r.stability, Stability::Stable);
}

TEST(Couplers, DraggingOneGearTurnsTheOther) {
    const SceneSpec spec = gearPair();
    const auto model = compiled(spec);
    ASSERT_TRUE(model);
    State start = initialState(*model);
    DragAssembly drag(*model, start, 1, DragKind::Turn);
    ASSERT_TRUE(drag.ok()) << drag.status().message;
    Transform target = spec.parts[1].X_WP;
    target.R = quatFromAxisAngle(Vec3::UnitZ(), 0.5);
    const DragResult moved = drag.moveTo(target);
    ASSERT_TRUE(moved.status.ok) << moved.status.message;
    const std::vector<Transform> poses = drag.partPoses();
    const Eigen::AngleAxisd gear1(poses[1].R), gear2(poses[2].R);
    EXPECT_NEAR(gear1.angle() * gear1.axis().z(), 0.5, 1e-6);
    EXPECT_NEAR(gear2.angle() * gear2.axis().z(), -0.25, 1e-9);
}

TEST(Couplers, ACouplerRepeatingAMotionIsNamedRedundant) {
    // Both gears driven and meshed: one equation too many, and the report names the coupler.
    SceneSpec spec = gearPair();
    spec.motions.push_back(test::motion(spec, "drive1", "axle1", "time"));
    spec.motions.push_back(test::motion(spec, "drive2", "axle2", "-time/2"));
    const MobilityReport report = mobility(compiled(spec));
    ASSERT_FALSE(report.redundant.empty());
    bool named = false;
    for (const RedundantEquation& r : report.redundant)
        named = named || r.joint == "mesh" || r.motion == "drive1" || r.motion == "drive2";
    EXPECT_TRUE(named);
}

TEST(Couplers, NewCouplersTakeTheirSizeFromTheGears) {
    SceneSpec spec = gearPair();
    spec.couplers.clear();
    // Cylinders of radius 0.1 and 0.2 on the two gears: ratio 2.
    for (auto [part, r] : {std::pair{1, 0.1}, std::pair{2, 0.2}}) {
        Shape s;
        s.type = ShapeType::Cylinder;
        s.radius = r;
        s.length = 0.02;
        spec.parts[static_cast<std::size_t>(part)].shapes.push_back(s);
    }
    const EntityId id = addCoupler(spec, CouplerType::Gear, spec.joints[0].id, spec.joints[1].id);
    ASSERT_NE(id, kNoEntity);
    EXPECT_EQ(spec.couplers.back().name, "gear1");
    EXPECT_DOUBLE_EQ(spec.couplers.back().ratio, 2.0);
    // A revolute has no slide: no screw on it, no rack on two revolutes.
    EXPECT_EQ(addCoupler(spec, CouplerType::Screw, spec.joints[0].id, kNoEntity), kNoEntity);
    EXPECT_EQ(addCoupler(spec, CouplerType::RackPinion, spec.joints[0].id, spec.joints[1].id),
              kNoEntity);
}

TEST(Couplers, APinionsRadiusIsItsCylinderNearestTheRackNotTheWheelOnItsShaft) {
    // The steering column carries the pinion (r 20 mm) at the rack's level, a shaft (r 10 mm)
    // and the wheel (r 180 mm) 0.4 m up the axle.
    io::SceneLoadResult loaded =
        io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/rack_and_pinion_steering.json");
    ASSERT_TRUE(loaded.scene);
    SceneSpec& spec = *loaded.scene;
    spec.couplers.clear();
    const EntityId id = addCoupler(spec, CouplerType::RackPinion, spec.findJoint("steering")->id,
                                   spec.findJoint("rackSlide")->id);
    ASSERT_NE(id, kNoEntity);
    EXPECT_DOUBLE_EQ(spec.couplers.back().radius, 0.02);
}

TEST(Couplers, RenamingAndDeletingAJointCarryToItsCouplers) {
    SceneSpec spec = gearPair();
    ASSERT_TRUE(renameEntity(spec, spec.joints[1].id, "output"));
    EXPECT_EQ(spec.couplers[0].jointJ, "output");
    const std::vector<std::string> removed = deleteEntity(spec, spec.joints[0].id);
    EXPECT_NE(std::find(removed.begin(), removed.end(), "mesh"), removed.end());
    EXPECT_TRUE(spec.couplers.empty());
}

TEST(Couplers, ASceneWithCouplersSurvivesWritingAndReading) {
    SceneSpec spec = rackAndPinion(1.0);
    CouplerSpec belt;
    belt.id = spec.newId();
    belt.name = "belt";
    belt.type = CouplerType::Linear;
    belt.terms = {{"pinionAxle", JointAxis::Rotation, 0.05}, {"slide", JointAxis::Translation, -1}};
    spec.couplers.push_back(belt);
    const io::SceneLoadResult read = io::parseScene(io::sceneToJson(spec));
    ASSERT_TRUE(read.scene) << test::firstError(read.diagnostics);
    ASSERT_EQ(read.scene->couplers.size(), 2u);
    EXPECT_EQ(read.scene->couplers[0].type, CouplerType::RackPinion);
    EXPECT_EQ(read.scene->couplers[0].jointJ, "slide");
    EXPECT_DOUBLE_EQ(read.scene->couplers[0].radius, 0.05);
    EXPECT_EQ(read.scene->couplers[1].terms.size(), 2u);
    EXPECT_EQ(read.scene->couplers[1].terms[1].axis, JointAxis::Translation);
    EXPECT_TRUE(std::isnan(read.scene->couplers[1].offset));
}

// The first error of a scene of two gears on revolutes "a" and "b", a prismatic "p" and a
// spherical "s", with `couplers` (a JSON list).
std::string firstCouplerError(const std::string& couplers) {
    const std::string scene = R"({"format": "motus-scene", "version": 1,
      "parts": [{"name": "ground", "ground": true, "markers": [{"name": "m"}]},
                {"name": "g1", "mass": 1, "inertia": [1, 1, 1], "markers": [{"name": "m"}]},
                {"name": "g2", "mass": 1, "inertia": [1, 1, 1], "markers": [{"name": "m"}]},
                {"name": "r", "mass": 1, "inertia": [1, 1, 1], "markers": [{"name": "m"}]},
                {"name": "s", "mass": 1, "inertia": [1, 1, 1], "markers": [{"name": "m"}]}],
      "joints": [{"name": "a", "type": "revolute", "markerI": "g1.m", "markerJ": "ground.m"},
                 {"name": "b", "type": "revolute", "markerI": "g2.m", "markerJ": "ground.m"},
                 {"name": "p", "type": "prismatic", "markerI": "r.m", "markerJ": "ground.m"},
                 {"name": "s", "type": "spherical", "markerI": "s.m", "markerJ": "ground.m"}],
      "couplers": )" + couplers +
                              "}";
    return test::firstError(io::parseScene(scene).diagnostics);
}

TEST(Couplers, BadCouplersAreRefusedWithTheirPathAndReason) {
    EXPECT_EQ(firstCouplerError(R"([{"name": "c", "type": "gear", "jointI": "a", "jointJ": "b",
                                     "ratio": 0}])"),
              "/couplers/0/ratio: gear ratio must be a positive number, got 0");
    EXPECT_EQ(firstCouplerError(R"([{"name": "c", "type": "gear", "jointI": "a", "jointJ": "a",
                                     "ratio": 2}])"),
              "/couplers/0/jointJ: a gear pair needs two different joints; both are 'a'");
    EXPECT_EQ(firstCouplerError(R"([{"name": "c", "type": "gear", "jointI": "a", "jointJ": "s",
                                     "ratio": 2}])"),
              "/couplers/0/jointJ: a gear needs a joint with an angle; 's' is spherical");
    EXPECT_EQ(firstCouplerError(R"([{"name": "c", "type": "gear", "jointI": "a", "jointJ": "x",
                                     "ratio": 2}])"),
              "/couplers/0/jointJ: no joint 'x'");
    EXPECT_EQ(firstCouplerError(R"([{"name": "c", "type": "rackPinion", "jointI": "a",
                                     "jointJ": "b", "radius": 0.1}])"),
              "/couplers/0/jointJ: a rack needs a joint with a slide; 'b' is revolute");
    EXPECT_EQ(firstCouplerError(R"([{"name": "c", "type": "screw", "joint": "a", "pitch": 0.01}])"),
              "/couplers/0/joint: a screw needs a joint with a slide; 'a' is revolute");
    EXPECT_EQ(firstCouplerError(R"([{"name": "c", "type": "screw", "joint": "p", "pitch": 0}])"),
              "/couplers/0/joint: a screw needs a joint with an angle; 'p' is prismatic");
    EXPECT_EQ(firstCouplerError(R"([{"name": "c", "type": "linear", "terms":
                                     [{"joint": "a", "coefficient": 1}]}])"),
              "/couplers/0/terms: a linear coupler needs at least two terms, got 1");
    EXPECT_EQ(firstCouplerError(R"([{"name": "c", "type": "linear", "terms":
                                     [{"joint": "a", "coefficient": 1},
                                      {"joint": "a", "coefficient": 2}]}])"),
              "/couplers/0/terms/1: joint 'a' angle appears twice in the coupler");
    EXPECT_EQ(firstCouplerError(R"([{"name": "c", "type": "linear", "terms":
                                     [{"joint": "a", "coefficient": 1},
                                      {"joint": "b", "coefficient": 0}]}])"),
              "/couplers/0/terms/1/coefficient: coefficient must be a non-zero number, got 0");
    EXPECT_EQ(firstCouplerError(R"([{"name": "c", "type": "belt"}])"),
              "/couplers/0/type: unknown coupler type 'belt' (expected gear, rackPinion, screw or "
              "linear)");
    EXPECT_EQ(firstCouplerError(R"([{"name": "c", "type": "gear", "jointI": "a", "jointJ": "b",
                                     "ratio": 2, "pitch": 1}])")
                  .rfind("/couplers/0/pitch: ", 0),
              0u);
}

}  // namespace
}  // namespace engine
