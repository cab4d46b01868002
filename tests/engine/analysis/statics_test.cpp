#include "engine/analysis/statics.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/modes.h"
#include "engine/analysis/outputs.h"
#include "engine/io/scene_json.h"
#include "tests/support/mechanisms.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

// The chain-1 link (1 kg, COM 0.05 m from its hinge about +y, horizontal at θ = 0) on a
// torsion spring of stiffness k with its free angle at 0.
SceneSpec linkOnTorsionSpring(double k, const std::string& joint = "j0") {
    SceneSpec spec = test::chain(1, IntegratorType::SymplecticEuler, 1e-3);
    spec.forces.emplace_back();
    ForceSpec& spring = spec.forces.back();
    spring.id = spec.newId();
    spring.name = "spring";
    spring.type = ForceType::RotationalSpringDamper;
    spring.joint = joint;
    spring.stiffness = k;
    return spec;
}

TEST(Statics, FindsWhereASpringBalancesGravity) {
    const double k = 1.0;
    const auto model = test::compiled(linkOnTorsionSpring(k));
    std::atomic<double> progress{0.0};
    const StaticResult r =
        staticEquilibrium(*model, initialState(*model), 1e-8, 200000, nullptr, &progress);
    ASSERT_TRUE(r.status.ok) << r.status.message;
    EXPECT_DOUBLE_EQ(progress.load(), 1.0);
    // k θ = m g d cos θ.
    double theta = 0.0;
    for (int i = 0; i < 200; ++i) theta = 9.81 * 0.05 * std::cos(theta) / k;
    EXPECT_NEAR(std::abs(r.state.jointCoordinates(0)), theta, 1e-6);
    EXPECT_LE(r.residual, 1e-8);
    EXPECT_TRUE(r.state.v.isZero(0.0));
    // At rest there, a run stays put.
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize(r.state).ok);
    ASSERT_TRUE(sim.advance(0.5).ok);
    EXPECT_LT(sim.state().v.cwiseAbs().maxCoeff(), 1e-6);
}

TEST(Statics, AFreePartHasNoEquilibriumAndIsNamed) {
    SceneSpec spec = test::chain(1, IntegratorType::SymplecticEuler, 1e-3);
    spec.joints.clear();  // the link falls freely
    const auto model = test::compiled(spec);
    const StaticResult r = staticEquilibrium(*model, initialState(*model), 1e-8, 2000);
    ASSERT_FALSE(r.status.ok);
    EXPECT_NE(r.status.message.find("part 'link0'"), std::string::npos) << r.status.message;
}

// Parts that nothing holds are found before any work, with or without joints among them:
// 10,000 free boxes took 173 s of relaxation (200,000 steps) to be refused, one part named.
TEST(Statics, PartsNothingHoldsAreRefusedAtOnceAndCounted) {
    SceneSpec spec = test::chain(1, IntegratorType::SymplecticEuler, 1e-3);
    spec.joints.clear();
    const Part link = spec.parts.back();
    spec.parts.pop_back();
    for (int k = 0; k < 10000; ++k) {
        Part part = link;
        part.id = spec.newId();
        part.name = "box" + std::to_string(k);
        part.X_WP.p.x() += 0.2 * k;
        for (Marker& marker : part.markers) marker.id = spec.newId();
        spec.parts.push_back(std::move(part));
    }
    const auto model = test::compiled(spec);
    const auto started = std::chrono::steady_clock::now();
    const StaticResult relaxed = staticEquilibrium(*model, initialState(*model));
    const StaticResult nearest = equilibrium(*model, initialState(*model));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    for (const StaticResult* r : {&relaxed, &nearest}) {
        ASSERT_FALSE(r->status.ok);
        EXPECT_NE(r->status.message.find("part 'box0' (and 9999 other parts) is held by no joint "
                                         "or force, only pulled by gravity"),
                  std::string::npos)
            << r->status.message;
    }
    EXPECT_LT(seconds, 1.0);
    // Two links joined to each other, and not to the ground, fall together just the same.
    SceneSpec pair = test::chain(2, IntegratorType::SymplecticEuler, 1e-3);
    pair.joints.erase(pair.joints.begin());  // the hinge to the ground
    const auto pairModel = test::compiled(pair);
    const StaticResult falling = equilibrium(*pairModel, initialState(*pairModel));
    ASSERT_FALSE(falling.status.ok);
    EXPECT_NE(falling.status.message.find("(and 1 other parts) is held by no joint"),
              std::string::npos)
        << falling.status.message;
    // A point force on a free part may hold it: left to the analysis, which finds it held
    // (1 kg, g = 9.81 m/s² up).
    SceneSpec held = test::chain(1, IntegratorType::SymplecticEuler, 1e-3);
    held.joints.clear();
    ForceSpec& lift = held.forces.emplace_back();
    lift.id = held.newId();
    lift.name = "lift";
    lift.type = ForceType::PointForce;
    lift.markerI = {held.parts.back().name, held.parts.back().markers.front().name};
    lift.components[2] = "9.81";
    const auto heldModel = test::compiled(held);
    const StaticResult balanced =
        staticEquilibrium(*heldModel, initialState(*heldModel), 1e-8, 2000);
    EXPECT_TRUE(balanced.status.ok) << balanced.status.message;
}

TEST(Statics, AssemblyClosesAnOpenLoop) {
    SceneSpec spec = test::fourBar(IntegratorType::RungeKutta4, 1e-3);
    spec.parts[2].X_WP.p += Vec3(0.01, 0.0, -0.02);  // the coupler knocked out of place
    const auto model = test::compiled(spec);
    const StaticResult r = assemble(*model, initialState(*model));
    ASSERT_TRUE(r.status.ok) << r.status.message;
    Workspace ws;
    ASSERT_TRUE(prepareWorkspace(*model, r.state, ws).ok);
    Outputs out;
    ASSERT_TRUE(computeOutputs(*model, r.state, ws, out).ok);
    EXPECT_LT(out.constraintError, 1e-10);
    EXPECT_EQ(partPoses(*model, r.state).size(), spec.parts.size());
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

constexpr double kLength = 0.5;  // pivot to centre of mass [m]
constexpr double kMass = 1.0;

// An inverted pendulum: a 1 kg rod standing on a pivot about +y at the origin, its centre of
// mass 0.5 m from it, tilted by `tilt` from upright, on a torsion spring of stiffness k whose
// free angle is upright. Where k < m g l the upright pose is an unstable equilibrium and the
// spring holds the rod at the angle θ* where k θ = m g l sin θ.
SceneSpec invertedPendulum(double k, double tilt) {
    SceneSpec spec;
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "pivot", Vec3::Zero(), Vec3::UnitY());
    const Quat R(Eigen::AngleAxisd(tilt, Vec3::UnitY()));
    Part rod =
        test::box(spec, "rod", kMass, Vec3(0.02, 0.02, 2 * kLength), R * Vec3(0, 0, kLength), R);
    test::addMarker(spec, rod, "pivot", Vec3(0, 0, -kLength), Vec3::UnitY());
    spec.parts = {ground, rod};
    spec.joints.push_back(
        test::joint(spec, "hinge", JointType::Revolute, "rod.pivot", "ground.pivot"));
    ForceSpec spring;
    spring.id = spec.newId();
    spring.name = "spring";
    spring.type = ForceType::RotationalSpringDamper;
    spring.joint = "hinge";
    spring.stiffness = k;
    spec.forces.push_back(spring);
    return spec;
}

// The rod's tilt from upright in the x–z plane.
double tiltOf(const Model& model, const State& state) {
    const Vec3 up =
        bodyOrientation(state.q, 0) * (model.bodies[0].X_PB.R.conjugate() * Vec3::UnitZ());
    return std::atan2(up.x(), up.z());
}

TEST(Statics, NewtonFindsBothEquilibriaOfASpringHeldInvertedPendulumWithTheirStability) {
    const double k = 4.0, mgl = kMass * 9.81 * kLength;  // k < m g l: upright is unstable
    // θ* of k θ = m g l sin θ, by Newton on the scalar equation.
    double theta = 1.0;
    for (int i = 0; i < 50; ++i)
        theta -= (k * theta - mgl * std::sin(theta)) / (k - mgl * std::cos(theta));
    ASSERT_GT(theta, 0.5);
    const double inertia = kMass * (4 * kLength * kLength + 0.02 * 0.02) / 12.0 +
                           kMass * kLength * kLength;  // about the pivot

    // From a tilt of 0.9 rad: the tilted, stable equilibrium (θ* = 1.05 rad).
    {
        const auto model = test::compiled(invertedPendulum(k, 0.9));
        const StaticResult r = equilibrium(*model, initialState(*model));
        ASSERT_TRUE(r.status.ok) << r.status.message;
        EXPECT_NEAR(std::abs(tiltOf(*model, r.state)), theta, 1e-9);
        EXPECT_LT(r.residual, 1e-8);
        EXPECT_EQ(r.stability, Stability::Stable);
        ASSERT_EQ(r.stiffnessEigenvalues.size(), 1);
        // The reduced stiffness (mass metric) is (k − m g l cos θ*) / I about the pivot.
        EXPECT_NEAR(r.stiffnessEigenvalues(0), (k - mgl * std::cos(theta)) / inertia,
                    1e-5 * mgl / inertia);
        EXPECT_LT(r.newtonIterations, 10);
    }
    // From a tilt of 0.05 rad: the upright equilibrium, reported unstable.
    {
        const auto model = test::compiled(invertedPendulum(k, 0.05));
        const StaticResult r = equilibrium(*model, initialState(*model));
        ASSERT_TRUE(r.status.ok) << r.status.message;
        EXPECT_NEAR(tiltOf(*model, r.state), 0.0, 1e-9);
        EXPECT_EQ(r.stability, Stability::Unstable);
        EXPECT_EQ(r.unstableDirections, 1);
        EXPECT_NEAR(r.stiffnessEigenvalues(0), (k - mgl) / inertia, 1e-5 * mgl / inertia);
    }
    // The relaxation alone finds only the stable one, from either start.
    {
        const auto model = test::compiled(invertedPendulum(k, 0.05));
        const StaticResult r = staticEquilibrium(*model, initialState(*model));
        ASSERT_TRUE(r.status.ok) << r.status.message;
        EXPECT_NEAR(std::abs(tiltOf(*model, r.state)), theta, 1e-6);
    }
}

TEST(Statics, ATwoLinkArmHoldingATipLoadNeedsTheTextbookJointTorques) {
    // Two horizontal 1 kg links of 0.5 m hinged about +y, held by locked joints (motions at
    // their start angle) with 2 kg at the tip: shoulder torque g (m1 l1/2 + m2 (l1 + l2/2) +
    // M (l1 + l2)), elbow torque g (m2 l2/2 + M l2), in magnitude.
    SceneSpec spec;
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "shoulder", Vec3::Zero(), Vec3::UnitY());
    Part upper = test::box(spec, "upper", 1.0, Vec3(0.5, 0.04, 0.04), Vec3(0.25, 0, 0));
    test::addMarker(spec, upper, "shoulder", Vec3(-0.25, 0, 0), Vec3::UnitY());
    test::addMarker(spec, upper, "elbow", Vec3(0.25, 0, 0), Vec3::UnitY());
    Part fore = test::box(spec, "fore", 1.0, Vec3(0.5, 0.04, 0.04), Vec3(0.75, 0, 0));
    test::addMarker(spec, fore, "elbow", Vec3(-0.25, 0, 0), Vec3::UnitY());
    test::addMarker(spec, fore, "tip", Vec3(0.25, 0, 0), Vec3::UnitY());
    spec.parts = {ground, upper, fore};
    spec.joints.push_back(
        test::joint(spec, "shoulder", JointType::Revolute, "upper.shoulder", "ground.shoulder"));
    spec.joints.push_back(
        test::joint(spec, "elbow", JointType::Revolute, "fore.elbow", "upper.elbow"));
    for (const char* name : {"shoulder", "elbow"}) {
        MotionSpec hold;
        hold.id = spec.newId();
        hold.name = std::string(name) + "Hold";
        hold.joint = name;
        hold.expression = "0";
        spec.motions.push_back(hold);
    }
    ForceSpec load;
    load.id = spec.newId();
    load.name = "load";
    load.type = ForceType::PointForce;
    load.markerI = {"fore", "tip"};
    load.components[2] = "-2*9.81";
    spec.forces.push_back(load);
    const auto model = test::compiled(spec);

    const StaticResult r = equilibrium(*model, initialState(*model));
    ASSERT_TRUE(r.status.ok) << r.status.message;
    EXPECT_EQ(r.stability, Stability::Stable);  // nothing can move: held
    Workspace ws;
    ASSERT_TRUE(prepareWorkspace(*model, r.state, ws).ok);
    Outputs out;
    ASSERT_TRUE(computeOutputs(*model, r.state, ws, out).ok);
    const double g = 9.81;
    EXPECT_NEAR(std::abs(out.driverEffort[0]), g * (0.25 + 1.0 * 0.75 + 2.0 * 1.0), 1e-9);
    EXPECT_NEAR(std::abs(out.driverEffort[1]), g * (0.25 + 2.0 * 0.5), 1e-9);
}

// The 100-link chain released horizontal (scenes/chain_100.json: 0.05 m links of 0.1 kg,
// pivot at the origin) comes to rest hanging straight down, whatever the gravity. Its first
// fall whips the end round at hundreds of rad/s; the relaxation's own explicit step gained
// energy there and, but for the scene's exact 9.81, never came to rest (200 000 steps, parts
// still accelerating at 1e-6 … 1e-4). The lowest mode is that of the hanging chain,
// ω₁ = (j₀₁ / 2) √(g / L) (Bernoulli), j₀₁ the first zero of J₀.
TEST(Statics, ALongChainComesToRestHangingStraightDownWhateverTheGravity) {
    const auto loaded = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/chain_100.json");
    ASSERT_TRUE(loaded.scene);
    for (const double g : {9.8101, 9.9, 9.5}) {
        SceneSpec spec = *loaded.scene;
        spec.gravity = Vec3(0.0, 0.0, -g);
        const auto model = test::compiled(spec);
        const StaticResult r = equilibrium(*model, initialState(*model), 1e-8, nullptr, nullptr,
                                           /*stable=*/true);
        ASSERT_TRUE(r.status.ok) << "g = " << g << ": " << r.status.message;
        EXPECT_EQ(r.stability, Stability::Stable);
        EXPECT_LE(r.residual, 1e-8);
        for (int b = 0; b < model->bodyCount(); ++b)
            EXPECT_LT((bodyPosition(r.state.q, b) - Vec3(0.0, 0.0, -0.05 * (b + 0.5))).norm(), 1e-7)
                << "link " << b << ", g = " << g;
        const ModesResult m = modes(*model, r.state);
        ASSERT_TRUE(m.status.ok) << m.status.message;
        const double j01 = 2.404825557695773;
        const double f1 = j01 / 2.0 * std::sqrt(g / 5.0) / (2.0 * kPi);
        EXPECT_NEAR(m.modes.front().frequency, f1, 1e-4 * f1) << "g = " << g;
    }
}

}  // namespace
}  // namespace engine
