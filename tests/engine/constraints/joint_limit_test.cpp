// Joint limits (end stops) against closed forms: a pendulum released level swings onto a stop
// at 45° and rebounds with e² of its kinetic energy without passing it; resting on the stop,
// the stop carries the static moment m g l cos θ; a block on a vertical slide rests on its
// lower stop with its weight; a compliant stop sinks as its spring says; a pendulum on a
// universal joint rests on the stop of either pin with gravity's moment about it, a block on a
// planar joint on the stop of its slide with its weight (their coordinates' rates and γ against
// finite differences); bad limits are refused at their JSON path.

#include <algorithm>
#include <cmath>
#include <sstream>

#include <gtest/gtest.h>

#include "engine/analysis/assembly.h"
#include "engine/analysis/drag.h"
#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/kinematic_analysis.h"
#include "engine/analysis/statics.h"
#include "engine/io/csv_export.h"
#include "engine/io/scene_json.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/kinematics/kinematics.h"
#include "engine/math/constants.h"
#include "engine/record/channel_names.h"
#include "engine/record/recording.h"
#include "tests/support/mechanisms.h"
#include "tests/support/scene_errors.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

using test::compiled;

constexpr double kMass = 1.0, kLength = 0.5, kWidth = 0.05, kStop = kPi / 4.0;
// The arm's moment of inertia about the pivot (a box pivoted at one end) and its centre of
// mass's distance from the pivot.
constexpr double kArm = 0.5 * kLength;
const double kPivotInertia =
    kMass * (kLength * kLength + kWidth * kWidth) / 12.0 + kMass * kArm * kArm;

// A 1 kg arm 0.5 m long, pivoted at the origin about +y and released level along +x: gravity
// turns it the positive way (its x axis toward −z). An upper stop at 45°.
SceneSpec pendulumOnStop(const JointLimit& limit, double step = 1e-3) {
    SceneSpec spec;
    spec.settings.integrator = IntegratorType::TimeStepping;
    spec.settings.stepSize = step;
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "pivot", Vec3::Zero(), Vec3::UnitY());
    spec.parts.push_back(ground);
    Part arm = test::box(spec, "arm", kMass, Vec3(kLength, kWidth, kWidth), Vec3(kArm, 0, 0));
    test::addMarker(spec, arm, "pivot", Vec3(-kArm, 0, 0), Vec3::UnitY());
    spec.parts.push_back(arm);
    Joint hinge = test::joint(spec, "hinge", JointType::Revolute, "arm.pivot", "ground.pivot");
    hinge.limits = {limit};
    spec.joints.push_back(hinge);
    return spec;
}

JointLimit upperStop(double upper, double restitution = 0.0) {
    JointLimit l;
    l.upper = upper;
    l.restitution = restitution;
    return l;
}

double kinetic(const ForwardDynamics& sim) {
    return kineticEnergy(sim.model(), sim.state());
}

TEST(JointLimits, APendulumReboundsFromItsStopWithESquaredOfItsEnergyAndDoesNotPassIt) {
    for (const double e : {0.0, 0.3, 0.6, 0.9}) {
        ForwardDynamics sim(compiled(pendulumOnStop(upperStop(kStop, e))));
        ASSERT_TRUE(sim.initialize().ok);
        // The impact begins in the first step that slows the arm (a speculative stop lets it
        // arrive exactly, at a lower speed, one step before the stop holds it when e = 0) and
        // has happened in the first step that leaves it at rest or turning back.
        double highest = 0.0, before = -1.0, after = 0.0, lastRate = 0.0;
        bool hit = false;
        for (int k = 1; k <= 1000 && !hit; ++k) {
            const double energy = kinetic(sim);
            ASSERT_TRUE(sim.advance(1e-3 * k).ok);
            highest = std::max(highest, sim.state().jointCoordinates(0));
            Outputs out;
            ASSERT_TRUE(sim.outputs(out).ok);
            const double rate = out.jointRates(0);
            if (before < 0.0 && rate < lastRate) before = energy;
            if (rate <= 0.0) {
                hit = true;
                after = out.energies.kinetic;
            }
            lastRate = rate;
        }
        ASSERT_TRUE(hit) << "e " << e;
        // Released level, it reaches the stop with the potential energy of a 45° drop.
        EXPECT_NEAR(before, kMass * 9.81 * kArm * std::sin(kStop), 0.03 * before) << "e " << e;
        EXPECT_NEAR(after, e * e * before, 0.03 * before) << "e " << e;
        EXPECT_LE(highest, kStop + 1e-3) << "e " << e;
        // And it never passes it afterwards either.
        for (int k = 1; k <= 500; ++k) {
            ASSERT_TRUE(sim.advance(sim.state().t + 1e-3).ok);
            ASSERT_LE(sim.state().jointCoordinates(0), kStop + 1e-3) << "e " << e;
        }
    }
}

TEST(JointLimits, AnArmRestingOnItsStopCarriesTheStaticMoment) {
    ForwardDynamics sim(compiled(pendulumOnStop(upperStop(kStop))));
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(2.0).ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_NEAR(out.jointCoordinates(0), kStop, 1e-9);
    EXPECT_LT(std::abs(out.jointRates(0)), 1e-9);
    // The stop pushes the arm back (the negative way) with gravity's moment about the pivot.
    const double moment = kMass * 9.81 * kArm * std::cos(kStop);
    ASSERT_EQ(out.limitForce.size(), 1u);
    EXPECT_NEAR(out.limitForce[0], -moment, 1e-8 * moment);
    // The joint's reaction includes it: the torque on the arm about the axis (J's z).
    EXPECT_NEAR(out.reactions[0].torque_J.z(), -moment, 1e-8 * moment);
    // The stop's channel records it.
    const FrameLayout layout(sim.model());
    std::vector<double> row(static_cast<std::size_t>(layout.size()));
    layout.encode(sim.state(), out, row.data());
    const int channel = layout.findChannel(channels::of("hinge", channels::kLimit));
    ASSERT_GE(channel, 0);
    EXPECT_NEAR(layout.channels()[static_cast<std::size_t>(channel)].value(row.data()), -moment,
                1e-8 * moment);
    // And `motus-cli simulate`'s CSV has it, after the joint's reaction.
    std::ostringstream csv;
    io::CsvWriter writer(sim.model(), csv);
    writer.writeHeader();
    writer.writeRow(sim.state(), out);
    std::istringstream lines(csv.str());
    std::string header, values;
    std::getline(lines, header);
    std::getline(lines, values);
    EXPECT_NE(header.find("hinge.Tz,hinge.limit,"), std::string::npos) << header;
    const auto column =
        std::count(header.begin(), header.begin() + header.find("hinge.limit"), ',');
    std::istringstream cells(values);
    std::string cell;
    for (long k = 0; k <= column; ++k) std::getline(cells, cell, ',');
    EXPECT_NEAR(std::stod(cell), -moment, 1e-8 * moment);
}

// A 1 kg arm hanging 0.3 m below a universal joint at the origin: J's pin (z) along world x,
// its x along world y; I's pin (z) along world y, its x along world x (both angles 0 hanging).
// The arm starts turned by `start` about pin `pin` (0: J's, world x; 1: I's, world y).
constexpr double kHang = 0.3;
SceneSpec universalPendulum(int pin, double start, const std::vector<JointLimit>& limits,
                            IntegratorType integrator = IntegratorType::TimeStepping) {
    SceneSpec spec;
    spec.settings.integrator = integrator;
    spec.settings.stepSize = 1e-3;
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "cross", Vec3::Zero(), Vec3::UnitX());
    Mat3 R_J;
    R_J << Vec3::UnitY(), Vec3::UnitZ(), Vec3::UnitX();
    ground.markers.back().X_PM.R = Quat(R_J);
    spec.parts.push_back(ground);
    const Quat turn(Eigen::AngleAxisd(start, pin == 0 ? Vec3::UnitX() : Vec3::UnitY()));
    Part arm =
        test::box(spec, "arm", kMass, Vec3(0.04, 0.04, 2 * kHang), turn * Vec3(0, 0, -kHang), turn);
    test::addMarker(spec, arm, "cross", Vec3(0, 0, kHang), Vec3::UnitY());
    Mat3 R_I;
    R_I << Vec3::UnitX(), -Vec3::UnitZ(), Vec3::UnitY();
    arm.markers.back().X_PM.R = Quat(R_I);
    spec.parts.push_back(arm);
    Joint cross = test::joint(spec, "cross", JointType::Universal, "arm.cross", "ground.cross");
    cross.limits = limits;
    spec.joints.push_back(cross);
    return spec;
}

JointLimit lowerStop(double lower) {
    JointLimit l;
    l.lower = lower;
    return l;
}

TEST(JointLimits, APendulumOnAUniversalJointRestsOnEitherPinsStopWithGravitysMoment) {
    for (const int pin : {0, 1}) {
        std::vector<JointLimit> limits(2);
        limits[static_cast<std::size_t>(pin)] = lowerStop(0.5);
        const auto model = compiled(universalPendulum(pin, 1.0, limits));
        ASSERT_TRUE(model);
        ASSERT_EQ(model->limits.size(), 1u);
        ForwardDynamics sim(model);
        ASSERT_TRUE(sim.initialize().ok);
        EXPECT_NEAR(sim.state().jointCoordinates(pin), 1.0, 1e-9) << "pin " << pin;
        EXPECT_NEAR(sim.state().jointCoordinates(1 - pin), 0.0, 1e-9) << "pin " << pin;
        double lowest = 1.0;
        for (int k = 1; k <= 200; ++k) {
            ASSERT_TRUE(sim.advance(0.01 * k).ok);
            lowest = std::min(lowest, sim.state().jointCoordinates(pin));
        }
        EXPECT_GE(lowest, 0.5 - 1e-3) << "pin " << pin;
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        EXPECT_NEAR(out.jointCoordinates(pin), 0.5, 1e-6) << "pin " << pin;
        // Resting on it: the stop holds gravity's moment about the pin, from below (positive).
        const double moment = kMass * 9.81 * kHang * std::sin(0.5);
        ASSERT_EQ(out.limitForce.size(), 1u);
        EXPECT_NEAR(out.limitForce[0], moment, 1e-6 * moment) << "pin " << pin;
        // Recorded as the coordinate's stop: "cross.q0limit" or "cross.q1limit".
        const FrameLayout layout(sim.model());
        EXPECT_GE(layout.findChannel(channels::of("cross", channels::limit(pin, 2))), 0);
    }
}

// Along a free swing about both pins (and on a planar joint, a free slide and turn), each
// coordinate's rate is its value's derivative, and its acceleration Ji v̇ᵢ + Jj v̇ⱼ − γ its
// rate's.
TEST(JointLimits, UniversalAndPlanarCoordinatesMatchFiniteDifferences) {
    SceneSpec universal = universalPendulum(0, 0.4, {}, IntegratorType::DormandPrince45);
    universal.parts[1].w_WP_W = Vec3(1.5, -2.0, 0.7);
    SceneSpec planar;
    planar.settings.integrator = IntegratorType::DormandPrince45;
    Part ground = test::groundPart(planar);
    test::addMarker(planar, ground, "plane", Vec3::Zero(), Vec3::UnitY());
    planar.parts.push_back(ground);
    Part block = test::box(planar, "block", 2.0, Vec3(0.1, 0.1, 0.1), Vec3(0.05, 0, -0.02));
    test::addMarker(planar, block, "plane", Vec3(-0.05, 0, 0.02), Vec3::UnitY());
    block.v_WPo_W = Vec3(0.3, 0.0, 0.8);
    block.w_WP_W = Vec3(0.0, 2.5, 0.0);
    planar.parts.push_back(block);
    planar.joints.push_back(
        test::joint(planar, "plane", JointType::Planar, "block.plane", "ground.plane"));
    for (const SceneSpec* spec : {&universal, &planar}) {
        const auto model = compiled(*spec);
        ASSERT_TRUE(model);
        const int n = static_cast<int>(model->joints[0].coordinates.size());
        ASSERT_EQ(n, spec == &universal ? 2 : 3);
        ForwardDynamics sim(model);
        ASSERT_TRUE(sim.initialize().ok);
        const double h = 1e-5;
        std::vector<double> value[3], rate[3], accel[3];
        for (int k = 0; k < 3; ++k) {
            ASSERT_TRUE(sim.advance(0.3 + h * k).ok);
            Outputs out;
            ASSERT_TRUE(sim.outputs(out).ok);
            std::vector<BodyFrame> frames;
            computeBodyFrames(*model, sim.state().q, sim.state().v, frames);
            for (int c = 0; c < n; ++c) {
                const ConstraintRow row = jointCoordinate(*model, frames, 0, c);
                value[c].push_back(out.jointCoordinates(c));
                rate[c].push_back(row.rate);
                const int b =
                    model->markers[static_cast<std::size_t>(model->joints[0].markerI)].body;
                accel[c].push_back(row.Ji.dot(sim.accelerations().segment<6>(6 * b)) - row.gamma);
            }
        }
        for (int c = 0; c < n; ++c) {
            EXPECT_NEAR((value[c][2] - value[c][0]) / (2 * h), rate[c][1], 1e-6)
                << "coordinate " << c;
            EXPECT_NEAR((rate[c][2] - rate[c][0]) / (2 * h), accel[c][1], 1e-4)
                << "coordinate " << c;
            EXPECT_GT(std::abs(rate[c][1]), 0.01) << "coordinate " << c << " moves";
        }
    }
}

// A block on a planar joint in a vertical plane (J's z along world y, its y pointing down),
// released at rest: it falls along J's y onto the slide's stop at 0.2 m and rests there with its
// weight on it, without moving along x or turning.
TEST(JointLimits, ABlockOnAPlanarJointRestsOnItsSlidesStopWithItsWeight) {
    SceneSpec spec;
    spec.settings.integrator = IntegratorType::TimeStepping;
    spec.settings.stepSize = 1e-3;
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "plane", Vec3::Zero(), Vec3::UnitY());
    Mat3 R;
    R << Vec3::UnitX(), -Vec3::UnitZ(), Vec3::UnitY();
    ground.markers.back().X_PM.R = Quat(R);
    spec.parts.push_back(ground);
    Part block = test::box(spec, "block", 2.0, Vec3(0.1, 0.1, 0.1), Vec3::Zero());
    test::addMarker(spec, block, "plane", Vec3::Zero(), Vec3::UnitY());
    block.markers.back().X_PM.R = Quat(R);
    spec.parts.push_back(block);
    Joint plane = test::joint(spec, "plane", JointType::Planar, "block.plane", "ground.plane");
    JointLimit stop;
    stop.upper = 0.2;
    plane.limits = {JointLimit{}, stop, JointLimit{}};
    spec.joints.push_back(plane);
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    double highest = 0.0;
    for (int k = 1; k <= 150; ++k) {
        ASSERT_TRUE(sim.advance(0.01 * k).ok);
        highest = std::max(highest, sim.state().jointCoordinates(1));
    }
    EXPECT_LE(highest, 0.2 + 1e-3);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_NEAR(out.jointCoordinates(1), 0.2, 1e-6);
    EXPECT_NEAR(out.jointCoordinates(0), 0.0, 1e-9);
    EXPECT_NEAR(out.jointCoordinates(2), 0.0, 1e-9);
    ASSERT_EQ(out.limitForce.size(), 1u);
    EXPECT_NEAR(out.limitForce[0], -2.0 * 9.81, 1e-6 * 2.0 * 9.81);  // from the upper stop
}

TEST(JointLimits, ABlockOnAVerticalSlideRestsOnItsLowerStopWithItsWeight) {
    SceneSpec spec;
    spec.settings.integrator = IntegratorType::TimeStepping;
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "rail", Vec3::Zero());
    spec.parts.push_back(ground);
    Part block = test::box(spec, "block", 3.0, Vec3(0.1, 0.1, 0.1), Vec3(0, 0, 0.2));
    test::addMarker(spec, block, "rail", Vec3::Zero());
    spec.parts.push_back(block);
    Joint slide = test::joint(spec, "slide", JointType::Prismatic, "block.rail", "ground.rail");
    JointLimit l;
    l.lower = 0.05;
    l.upper = 0.5;
    slide.limits = {l};
    spec.joints.push_back(slide);
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    double lowest = 1.0;
    for (int k = 1; k <= 1000; ++k) {
        ASSERT_TRUE(sim.advance(1e-3 * k).ok);
        lowest = std::min(lowest, sim.state().jointCoordinates(0));
    }
    EXPECT_GE(lowest, 0.05 - 1e-9);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_NEAR(out.jointCoordinates(0), 0.05, 1e-9);
    EXPECT_NEAR(out.limitForce[0], 3.0 * 9.81, 1e-8 * 3.0 * 9.81);
}

TEST(JointLimits, ACompliantStopSinksAsItsSpringSays) {
    // A stop of frequency f on the arm's effective mass (its moment of inertia about the pivot):
    // k = I ω², resting where k δ = m g l cos θ.
    JointLimit l = upperStop(kStop);
    l.frequency = 20.0;
    l.dampingRatio = 1.0;
    ForwardDynamics sim(compiled(pendulumOnStop(l)));
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(2.0).ok);
    const double omega = 2.0 * kPi * 20.0, k = kPivotInertia * omega * omega;
    const double sink = kMass * 9.81 * kArm * std::cos(kStop) / k;
    EXPECT_NEAR(sim.state().jointCoordinates(0) - kStop, sink, 0.02 * sink);
}

TEST(JointLimits, AStopPastAFullTurnHoldsTheUnwoundAngle) {
    // A stop at 1.25 turns: the arm turns the positive way (driven by gravity through a slow
    // start and kept going by its speed) and stops there, not at the same angle wrapped.
    JointLimit l = upperStop(2.5 * kPi);
    SceneSpec spec = pendulumOnStop(l);
    spec.gravity = Vec3::Zero();
    spec.parts[1].w_WP_W = Vec3(0, 20.0, 0);  // turning about +y
    spec.parts[1].v_WPo_W = Vec3(0, 0, -20.0 * kArm);
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(1.5).ok);
    EXPECT_NEAR(sim.state().jointCoordinates(0), 2.5 * kPi, 1e-6);
}

// ---- Every analysis ----------------------------------------------------------------------

TEST(JointLimits, AtRestOnItsStopBeforeAnyStepTheStopCarriesTheArm) {
    // Placed on its stop: the outputs of the initial state (no step yet, solved at the
    // acceleration level) have the stop's moment and no acceleration.
    SceneSpec spec = pendulumOnStop(upperStop(kStop));
    const Quat turned(Eigen::AngleAxisd(kStop, Vec3::UnitY()));
    spec.parts[1].X_WP = Transform{turned, turned * Vec3(kArm, 0, 0)};
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    const double moment = kMass * 9.81 * kArm * std::cos(kStop);
    EXPECT_NEAR(out.jointCoordinates(0), kStop, 1e-12);
    EXPECT_NEAR(out.limitForce[0], -moment, 1e-9 * moment);
    EXPECT_LT(sim.accelerations().cwiseAbs().maxCoeff(), 1e-9);
}

TEST(JointLimits, AssemblyPutsAnArmPlacedPastItsStopOnTheStop) {
    SceneSpec spec = pendulumOnStop(upperStop(kStop));
    const Quat turned(Eigen::AngleAxisd(1.2, Vec3::UnitY()));  // 0.41 rad past it
    spec.parts[1].X_WP = Transform{turned, turned * Vec3(kArm, 0, 0)};
    const auto model = compiled(spec);
    const AssemblyResult r = assembleMechanism(*model, initialState(*model));
    ASSERT_TRUE(r.status.ok) << r.status.message;
    EXPECT_NEAR(r.state.jointCoordinates(0), kStop, 1e-9);
}

TEST(JointLimits, TheStaticEquilibriumOfAnArmRestsOnItsStop) {
    // Without the stop the arm hangs straight down (90°); with it, it rests on it at 45°, the
    // stop carrying the static moment. (The stable equilibrium: from level, the nearest one of
    // all is the arm standing straight up.)
    const auto model = compiled(pendulumOnStop(upperStop(kStop)));
    const StaticResult r =
        equilibrium(*model, initialState(*model), 1e-8, nullptr, nullptr, /*stable=*/true);
    ASSERT_TRUE(r.status.ok) << r.status.message;
    EXPECT_NEAR(r.state.jointCoordinates(0), kStop, 1e-9);
    Workspace ws;
    Outputs out;
    ASSERT_TRUE(prepareWorkspace(*model, r.state, ws).ok);
    ASSERT_TRUE(computeOutputs(*model, r.state, ws, out).ok);
    const double moment = kMass * 9.81 * kArm * std::cos(kStop);
    EXPECT_NEAR(out.limitForce[0], -moment, 1e-8 * moment);
    // A stop it does not reach (below the hanging arm) does nothing.
    const auto far = compiled(pendulumOnStop(upperStop(2.0)));
    const StaticResult hanging =
        equilibrium(*far, initialState(*far), 1e-8, nullptr, nullptr, /*stable=*/true);
    ASSERT_TRUE(hanging.status.ok) << hanging.status.message;
    EXPECT_NEAR(hanging.state.jointCoordinates(0), kPi / 2.0, 1e-7);
}

TEST(JointLimits, AMotionThatDrivesAJointPastItsStopIsANamedLockUp) {
    // The hinge turned at 1 rad/s: it reaches its 45° stop at t = π/4 s.
    SceneSpec spec = pendulumOnStop(upperStop(kStop));
    spec.motions.push_back(test::motion(spec, "turn", "hinge", "time"));
    spec.joints[0].id = 77;
    KinematicOptions options;
    options.duration = 2.0;
    const KinematicResult r = kinematicAnalysis(
        compiled(spec), options, [](const KinematicFrame&, std::string&) { return true; });
    ASSERT_FALSE(r.status.ok);
    EXPECT_EQ(r.status.cause, Cause::LockUp);
    EXPECT_NE(r.status.message.find("joint 'hinge' would pass its upper stop at 0.785398163"),
              std::string::npos)
        << r.status.message;
    EXPECT_EQ(r.status.message.find("dead centre"), std::string::npos) << r.status.message;
    const double lockedAt = std::stod(r.status.message.substr(r.status.message.find("t = ") + 4));
    EXPECT_NEAR(lockedAt, kStop, 1e-6);
    EXPECT_NE(std::find(r.status.entities.begin(), r.status.entities.end(), EntityId{77}),
              r.status.entities.end());
}

TEST(JointLimits, ADraggedArmStopsAtItsStopAndLeavesItWhenDraggedBack) {
    const auto model = compiled(pendulumOnStop(upperStop(kStop)));
    const AssemblyResult start = assembleMechanism(*model, initialState(*model));
    ASSERT_TRUE(start.status.ok);
    DragAssembly drag(*model, start.state, 1, DragKind::Turn);
    ASSERT_TRUE(drag.ok());
    auto turnTo = [&](double angle) {
        const Quat R(Eigen::AngleAxisd(angle, Vec3::UnitY()));
        return drag.moveTo(Transform{R, R * Vec3(kArm, 0, 0)});
    };
    for (double angle = 0.1; angle <= 1.5; angle += 0.1) {
        turnTo(angle);
        ASSERT_LE(drag.state().jointCoordinates(0), kStop + 1e-9) << angle;
    }
    EXPECT_NEAR(drag.state().jointCoordinates(0), kStop, 1e-9);
    ASSERT_TRUE(turnTo(0.3).status.ok);
    EXPECT_NEAR(drag.state().jointCoordinates(0), 0.3, 1e-6);
}

// ---- Bad limits --------------------------------------------------------------------------

TEST(JointLimits, BadLimitsAreRefusedWithTheirPathAndReason) {
    const std::string hinge =
        R"({"name": "hinge", "type": "revolute", "markerI": "arm.m", "markerJ": "ground.m", )";
    EXPECT_EQ(test::firstJointError(hinge + R"("limits": {"lower": 1, "upper": -1}})"),
              "/joints/0/limits: joint 'hinge': the lower stop 1 rad is above the upper stop -1 "
              "rad");
    EXPECT_EQ(test::firstJointError(hinge + R"("limits": {"upper": 1, "restitution": 1.5}})"),
              "/joints/0/limits/restitution: restitution must be from 0 to 1, got 1.5");
    EXPECT_EQ(test::firstJointError(hinge + R"("limits": {"upper": "far"}})"),
              "/joints/0/limits/upper: expected a number, got a string");
    EXPECT_EQ(test::firstJointError(hinge + R"("limits": {"upper": 1, "stiffness": 3}})")
                  .rfind("/joints/0/limits/stiffness: unknown key 'stiffness'", 0),
              0u);
    EXPECT_EQ(test::firstJointError(hinge + R"("limits": [{"upper": 1}]})")
                  .rfind("/joints/0/limits: a revolute joint has one coordinate", 0),
              0u);
    EXPECT_EQ(
        test::firstJointError(
            R"({"name": "ball", "type": "spherical", "markerI": "arm.m", "markerJ": "ground.m",
                      "limits": {"lower": -1, "upper": 1}})")
            .rfind("/joints/0/limits: joint 'ball' (spherical): a ball joint's stop is a cone", 0),
        0u);
    EXPECT_EQ(
        test::firstJointError(
            R"({"name": "sleeve", "type": "cylindrical", "markerI": "arm.m", "markerJ": "ground.m",
                      "limits": [null, {"lower": 0.2, "upper": 0.1}]})"),
        "/joints/0/limits/1: joint 'sleeve': the lower stop 0.2 m is above the upper stop "
        "0.1 m");
    EXPECT_EQ(
        test::firstJointError(
            R"({"name": "sleeve", "type": "cylindrical", "markerI": "arm.m", "markerJ": "ground.m",
                      "limits": [null, null, {"lower": 0}]})"),
        "/joints/0/limits: a cylindrical joint has 2 coordinates, got a list of 3");
    // A NaN end, which no file can hold, from an edit.
    SceneSpec spec = pendulumOnStop(upperStop(NAN));
    const Diagnostics found = validate(spec);
    ASSERT_FALSE(found.empty());
    EXPECT_EQ(found[0].where, "/joints/0/limits/upper");
}

TEST(JointLimits, LimitsSurviveASaveAndALoad) {
    SceneSpec spec = pendulumOnStop(upperStop(kStop, 0.4));
    Joint sleeve = spec.joints[0];
    sleeve.name = "sleeve";
    sleeve.type = JointType::Cylindrical;
    JointLimit slide;
    slide.lower = -0.1;
    slide.frequency = 30;
    slide.dampingRatio = 0.2;
    sleeve.limits = {JointLimit{}, slide};
    spec.joints.push_back(sleeve);
    const std::string text = io::sceneToJson(spec);
    const io::SceneLoadResult loaded = io::parseScene(text);
    ASSERT_TRUE(loaded.scene) << (loaded.diagnostics.empty() ? "" : loaded.diagnostics[0].message);
    const std::vector<JointLimit>& hinge = loaded.scene->joints[0].limits;
    ASSERT_EQ(hinge.size(), 1u);
    EXPECT_EQ(hinge[0].upper, kStop);
    EXPECT_EQ(hinge[0].restitution, 0.4);
    EXPECT_TRUE(std::isinf(hinge[0].lower));
    const std::vector<JointLimit>& back = loaded.scene->joints[1].limits;
    ASSERT_EQ(back.size(), 2u);
    EXPECT_FALSE(back[0].limited());
    EXPECT_EQ(back[1].lower, -0.1);
    EXPECT_EQ(back[1].frequency, 30.0);
    EXPECT_EQ(back[1].dampingRatio, 0.2);
    EXPECT_EQ(loaded.scene->settings.integrator, IntegratorType::TimeStepping);
}

}  // namespace
}  // namespace engine
