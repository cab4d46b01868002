// Substeps of the fixed-step methods (FixedStepIntegrator): fast turns are split, failed steps
// retried in more substeps, and the output grid is kept.

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/integrators/detail.h"
#include "tests/support/mechanisms.h"

namespace engine {
namespace {

// A stand-in method: exact free motion (x += h v, no forces), failing any step longer than
// `longest` as a method fails a step its iterations cannot close.
class Probe final : public detail::FixedStepIntegrator {
public:
    Probe(double stepSize, double longest) : FixedStepIntegrator(stepSize), longest_(longest) {}
    std::vector<double> taken;  // every (sub)step size tried and accepted

private:
    Status step(const Model&, State& state, Workspace&, double h) override {
        if (h > longest_) return Status::failure("the impulses did not converge");
        taken.push_back(h);
        state.q(0) += h * state.v(0);
        state.t += h;
        return {};
    }
    double longest_;
};

struct Fixture {
    std::shared_ptr<const Model> model =
        compile(test::chain(1, IntegratorType::SymplecticEuler, 1e-3)).model;
    Workspace ws;
    State state;
    Fixture() {
        state.q = Eigen::VectorXd::Zero(model->positionSize());
        state.v = Eigen::VectorXd::Zero(model->velocitySize());
    }
};

TEST(FixedStepSubsteps, AFailedStepIsRetriedInMoreSubstepsOnTheSameGrid) {
    Fixture f;
    f.state.v(0) = 2.0;
    Probe probe(1e-3, 0.3e-3);  // only quarter steps succeed
    ASSERT_TRUE(probe.advance(*f.model, f.state, f.ws, 0.01).ok);
    EXPECT_DOUBLE_EQ(f.state.t, 0.01);
    EXPECT_NEAR(f.state.q(0), 0.02, 1e-15);
    EXPECT_EQ(probe.statistics().steps, 10);
    EXPECT_EQ(probe.statistics().subdivided, 10);
    EXPECT_EQ(probe.statistics().retried, 20);  // each step: whole, halves, then quarters
    ASSERT_EQ(probe.taken.size(), 40u);
    for (double h : probe.taken) EXPECT_NEAR(h, 0.25e-3, 1e-15);
}

TEST(FixedStepSubsteps, AFastTurnIsSplitSoNoSubstepTurnsMoreThanTheLimit) {
    Fixture f;
    f.state.v(5) = 350.0;  // rad/s about z: 0.35 rad in a 1 ms step
    Probe probe(1e-3, 1.0);
    ASSERT_TRUE(probe.advance(*f.model, f.state, f.ws, 0.002).ok);
    EXPECT_EQ(probe.statistics().retried, 0);
    EXPECT_EQ(probe.statistics().subdivided, 2);
    ASSERT_EQ(probe.taken.size(), 8u);  // 0.35 / 0.1 → 4 substeps a step
    for (double h : probe.taken)
        EXPECT_LE(350.0 * h, detail::FixedStepIntegrator::kMaxTurn + 1e-12);
    // A slow body is stepped whole.
    Fixture slow;
    slow.state.v(5) = 50.0;
    Probe whole(1e-3, 1.0);
    ASSERT_TRUE(whole.advance(*slow.model, slow.state, slow.ws, 0.002).ok);
    EXPECT_EQ(whole.taken.size(), 2u);
    EXPECT_EQ(whole.statistics().subdivided, 0);
}

TEST(FixedStepSubsteps, AStepThatFailsAtEverySizeReportsItsFailure) {
    Fixture f;
    Probe probe(1e-3, 0.0);
    f.state.v(0) = 2.0;
    const Status s = probe.advance(*f.model, f.state, f.ws, 0.001);
    EXPECT_FALSE(s.ok);
    EXPECT_NE(s.message.find("did not converge"), std::string::npos);
    EXPECT_DOUBLE_EQ(f.state.t, 0.0);  // the state is the step's start, nothing of the failure
    EXPECT_DOUBLE_EQ(f.state.q(0), 0.0);
    EXPECT_EQ(probe.statistics().retried, 10);  // 1, 2, 4, … 1024 substeps tried
}

// A stand-in contact stepper: each (sub)step that succeeds makes a new list of contact points
// the state's as its last act (one point more, aged by the steps so far), as the time
// stepping's merge does. A whole step fails; of two halves the second fails, after the first
// has changed the points; quarters succeed.
class ContactProbe final : public detail::FixedStepIntegrator {
public:
    explicit ContactProbe(double stepSize) : FixedStepIntegrator(stepSize) {}

private:
    Status step(const Model&, State& state, Workspace&, double h) override {
        const bool secondHalf = std::abs(std::fmod(state.t, 1e-3) - 0.5e-3) < 1e-12;
        if (h > 0.6e-3 || (h > 0.3e-3 && secondHalf))
            return Status::failure("the impulses did not converge");
        std::vector<ContactPointState> merged = state.contacts;
        merged.push_back({.partA = 0, .partB = 1, .age = static_cast<int>(merged.size())});
        state.t += h;
        state.contacts.swap(merged);
        return {};
    }
};

TEST(FixedStepSubsteps, ARetriedStepStartsAgainFromItsContactPoints) {
    Fixture f;
    f.state.contacts.push_back({.partA = 0, .partB = 1, .age = 7});
    ContactProbe probe(1e-3);
    ASSERT_TRUE(probe.advance(*f.model, f.state, f.ws, 2e-3).ok);
    EXPECT_EQ(probe.statistics().retried, 4);  // each step: whole, halves, then quarters
    // The given point and one a quarter step: nothing of the half step that failed.
    ASSERT_EQ(f.state.contacts.size(), 9u);
    EXPECT_EQ(f.state.contacts[0].age, 7);
    for (std::size_t k = 1; k < f.state.contacts.size(); ++k)
        EXPECT_EQ(f.state.contacts[k].age, static_cast<int>(k)) << k;
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

// Symplectic Euler refreshes the joint coordinates only every radian of turn (and where a run
// stops): a flywheel at 50 rad/s advanced 2 s in one call (16 turns) reads ω t, continuous
// past ±π, as does the same run stopped every 0.25 s (12.5 rad between stops), on the same
// steps.
TEST(JointCoordinates, SymplecticEulerUnwindsAnglesRefreshedOnlyEveryRadian) {
    SceneSpec spec = test::flywheel(0.01);
    spec.settings.integrator = IntegratorType::SymplecticEuler;
    spec.settings.stepSize = 1e-3;
    spec.parts[1].w_WP_W = Vec3(0, 0, 50.0);
    const auto model = compile(spec).model;
    ASSERT_TRUE(model);
    ForwardDynamics once(model), often(model);
    ASSERT_TRUE(once.initialize().ok);
    ASSERT_TRUE(often.initialize().ok);
    ASSERT_TRUE(once.advance(2.0).ok);
    EXPECT_NEAR(once.state().jointCoordinates(0), 100.0, 1e-9);
    for (int k = 1; k <= 8; ++k) {
        ASSERT_TRUE(often.advance(0.25 * k).ok);
        EXPECT_NEAR(often.state().jointCoordinates(0), 12.5 * k, 1e-9) << k;
    }
    EXPECT_EQ(once.state().q, often.state().q);
    EXPECT_DOUBLE_EQ(once.state().jointCoordinates(0), often.state().jointCoordinates(0));
}

}  // namespace
}  // namespace engine
