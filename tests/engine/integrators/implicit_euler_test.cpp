// Implicit Euler: stable on stiff force elements where explicit methods blow up, and
// first-order accurate on ordinary ones.

#include <cmath>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "tests/support/mechanisms.h"

namespace engine {
namespace {

using test::blockOnBushing;

TEST(ImplicitEuler, SettlesAStiffBushingWhereExplicitMethodsDiverge) {
    // k = 1e7 N/m: ω = 3162 rad/s, so ω h = 3.2 at h = 1 ms, beyond the stability limit of
    // RK4 (2.8) and of symplectic Euler (2).
    const double k = 1e7, h = 1e-3;
    {
        const CompileResult c = compile(blockOnBushing(k, IntegratorType::ImplicitEuler, h));
        ASSERT_TRUE(c.model);
        ForwardDynamics sim(c.model);
        ASSERT_TRUE(sim.initialize().ok);
        const Status s = sim.advance(1.0);
        ASSERT_TRUE(s.ok) << s.message;
        EXPECT_NEAR(bodyPosition(sim.state().q, 0).z(), -9.81 / k, 1e-12);
        EXPECT_LT(sim.state().v.norm(), 1e-9);
    }
    {
        const CompileResult c = compile(blockOnBushing(k, IntegratorType::RungeKutta4, h));
        ForwardDynamics sim(c.model);
        ASSERT_TRUE(sim.initialize().ok);
        const Status s = sim.advance(1.0);
        // Either the run stops on a non-finite state or the block has flown off.
        EXPECT_TRUE(!s.ok || bodyPosition(sim.state().q, 0).norm() > 1.0);
    }
}

TEST(ImplicitEuler, IsFirstOrderAccurateOnASoftOscillator) {
    // k = 100 N/m: ω = 10 rad/s, released 1 cm from its equilibrium. The error at t = 0.5 s
    // halves when the step halves, and energy only decreases (numerical damping).
    auto errorAt = [](double h, double* energyLoss) {
        SceneSpec spec = blockOnBushing(100.0, IntegratorType::ImplicitEuler, h);
        spec.gravity = Vec3::Zero();
        spec.parts[1].X_WP.p = Vec3(0.01, 0, 0);
        const CompileResult c = compile(spec);
        ForwardDynamics sim(c.model);
        EXPECT_TRUE(sim.initialize().ok);
        Outputs out;
        EXPECT_TRUE(sim.outputs(out).ok);
        const double e0 = out.energies.balance();
        EXPECT_TRUE(sim.advance(0.5).ok);
        EXPECT_TRUE(sim.outputs(out).ok);
        *energyLoss = e0 - out.energies.balance();
        return std::abs(bodyPosition(sim.state().q, 0).x() - 0.01 * std::cos(10.0 * 0.5));
    };
    double loss1 = 0.0, loss2 = 0.0;
    const double e1 = errorAt(1e-3, &loss1);
    const double e2 = errorAt(5e-4, &loss2);
    EXPECT_LT(e1, 1e-3 * 0.01 * 50);  // a few percent of the amplitude
    EXPECT_NEAR(e1 / e2, 2.0, 0.3);
    EXPECT_GT(loss1, 0.0);
    EXPECT_GT(loss1, loss2);  // less damping with smaller steps
}

}  // namespace
}  // namespace engine
