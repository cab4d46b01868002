// How often a run is written never changes what it computes: dopri45 takes the steps its error
// control chooses and interpolates to each output time (dense output); the fixed-step methods
// step on the grid k·h whatever the outputs are. A run resumed from any output (a recorded
// frame between two of dopri45's steps) goes on exactly as the original. The largest step and
// the tolerances are what their names say.

#include <cmath>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/io/scene_json.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

SceneSpec exampleScene(const std::string& name) {
    const io::SceneLoadResult r = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/" + name);
    EXPECT_TRUE(r.scene) << name << " does not load";
    return r.scene ? *r.scene : SceneSpec{};
}

// The state at every multiple of `every` up to T, outputs written at that interval. Output
// times are binary fractions, so the same instants are asked for exactly in every run.
std::vector<State> run(const std::shared_ptr<const Model>& model, double every, double T) {
    ForwardDynamics sim(model);
    EXPECT_TRUE(sim.initialize().ok);
    std::vector<State> out;
    for (int k = 1; k * every <= T + 1e-12; ++k) {
        const Status s = sim.advance(k * every);
        EXPECT_TRUE(s.ok) << s.message;
        if (!s.ok) break;
        out.push_back(sim.state());
    }
    return out;
}

void expectSameStates(const State& a, const State& b) {
    EXPECT_EQ(a.t, b.t);
    EXPECT_EQ(a.q, b.q) << "at t = " << a.t << ": " << (a.q - b.q).cwiseAbs().maxCoeff();
    EXPECT_EQ(a.v, b.v) << "at t = " << a.t << ": " << (a.v - b.v).cwiseAbs().maxCoeff();
}

// The double pendulum is chaotic: anything that touched the steps would show within seconds.
TEST(OutputDensity, Dopri45GivesTheSameSolutionWhateverTheOutputInterval) {
    SceneSpec spec = exampleScene("double_pendulum.json");
    spec.settings.integrator = IntegratorType::DormandPrince45;
    spec.settings.maxStep = 0.0;
    const auto model = test::compiled(spec);
    const double T = 4.0;
    const std::vector<State> dense = run(model, 1.0 / 1024, T);
    const std::vector<State> sparse = run(model, 1.0 / 8, T);
    const std::vector<State> single = run(model, T, T);
    ASSERT_EQ(dense.size(), 4096u);
    ASSERT_EQ(sparse.size(), 32u);
    ASSERT_EQ(single.size(), 1u);
    for (std::size_t k = 0; k < sparse.size(); ++k)
        expectSameStates(sparse[k], dense[128 * k + 127]);
    expectSameStates(single[0], dense.back());
    // The outputs lie inside steps, each named in its state (a few land on a step's end).
    int inside = 0;
    for (const State& s : sparse) inside += s.stepOrigin.size() > 0;
    EXPECT_GT(inside, 24);
}

TEST(OutputDensity, FixedStepMethodsGiveTheSameSolutionWhateverTheOutputInterval) {
    for (const IntegratorType integrator :
         {IntegratorType::RungeKutta4, IntegratorType::SymplecticEuler,
          IntegratorType::ImplicitEuler}) {
        SCOPED_TRACE(std::string(integratorName(integrator)));
        SceneSpec spec = exampleScene("double_pendulum.json");
        spec.settings.integrator = integrator;
        spec.settings.stepSize = 1.0 / 1024;
        spec.settings.outputInterval = 0.0;
        const auto model = test::compiled(spec);
        const std::vector<State> everyStep = run(model, 1.0 / 1024, 1.0);
        const std::vector<State> everySixteenth = run(model, 1.0 / 64, 1.0);
        ASSERT_EQ(everySixteenth.size(), 64u);
        for (std::size_t k = 0; k < everySixteenth.size(); ++k)
            expectSameStates(everySixteenth[k], everyStep[16 * k + 15]);
    }
}

// Resumed from an output that lies inside a step (as from a recorded frame), the run takes
// that step again and then the original's steps: the same numbers to the last bit.
TEST(OutputDensity, Dopri45ResumedFromAnOutputInsideAStepGoesOnExactly) {
    SceneSpec spec = exampleScene("double_pendulum.json");
    spec.settings.integrator = IntegratorType::DormandPrince45;
    spec.settings.maxStep = 0.0;
    const auto model = test::compiled(spec);
    ForwardDynamics original(model);
    ASSERT_TRUE(original.initialize().ok);
    ASSERT_TRUE(original.advance(1.0).ok);
    const State frame = original.state();
    ASSERT_GT(frame.stepOrigin.size(), 0) << "t = 1 landed on a step's end: pick another time";
    EXPECT_LT(frame.stepStart, 1.0);
    ASSERT_TRUE(original.advance(3.0).ok);

    ForwardDynamics resumed(model);
    ASSERT_TRUE(resumed.resume(frame).ok);
    ASSERT_TRUE(resumed.advance(3.0).ok);
    expectSameStates(resumed.state(), original.state());
}

// maxStep bounds every step; without it the steps are what the tolerances allow.
TEST(OutputDensity, Dopri45LargestStepIsHeld) {
    SceneSpec spec = exampleScene("pendulum.json");
    spec.settings.integrator = IntegratorType::DormandPrince45;
    spec.settings.outputInterval = 0.25;
    spec.settings.relativeTolerance = 1e-6;
    spec.settings.absoluteTolerance = 1e-8;
    spec.settings.maxStep = 0.0;
    auto steps = [&](const SceneSpec& s) {
        ForwardDynamics sim(test::compiled(s));
        EXPECT_TRUE(sim.initialize().ok);
        EXPECT_TRUE(sim.advance(2.0).ok);
        return sim.statistics().steps;
    };
    const long free = steps(spec);
    spec.settings.maxStep = 2e-3;
    const long bounded = steps(spec);
    EXPECT_GE(bounded, 1000);
    EXPECT_LT(bounded, 1004);  // the last step may run past the end
    EXPECT_LT(free, bounded / 4) << "the pendulum needs no steps of 2 ms at these tolerances";
}

// Tighter tolerances, a smaller error: the global error follows the tolerance down.
TEST(OutputDensity, Dopri45ErrorFollowsItsTolerance) {
    // The damped mass on a spring, against rk4 at a step where its error is round-off.
    SceneSpec spec = exampleScene("mass_spring_damper.json");
    ASSERT_FALSE(spec.forces.empty());
    SceneSpec fine = spec;
    fine.settings.integrator = IntegratorType::RungeKutta4;
    fine.settings.stepSize = 1.0 / 8192;
    fine.settings.outputInterval = 0.0;
    const std::vector<State> reference = run(test::compiled(fine), 1.0 / 8, 2.0);
    double previous = 1.0;
    for (const double rtol : {1e-5, 1e-7, 1e-9}) {
        spec.settings.integrator = IntegratorType::DormandPrince45;
        spec.settings.relativeTolerance = rtol;
        spec.settings.absoluteTolerance = rtol * 1e-2;
        spec.settings.maxStep = 0.0;
        const std::vector<State> states = run(test::compiled(spec), 1.0 / 8, 2.0);
        ASSERT_EQ(states.size(), reference.size());
        double error = 0.0;
        for (std::size_t k = 0; k < states.size(); ++k)
            error = std::max(error, (states[k].q - reference[k].q).cwiseAbs().maxCoeff());
        EXPECT_LT(error, 100.0 * rtol) << "rtol " << rtol;
        EXPECT_LT(error, 0.3 * previous) << "rtol " << rtol;
        previous = error;
    }
}

}  // namespace
}  // namespace engine
