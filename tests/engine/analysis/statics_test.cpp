#include "engine/analysis/statics.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/outputs.h"
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
