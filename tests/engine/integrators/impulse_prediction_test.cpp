// Symplectic Euler starts each step's constraint impulse iterations from the impulses of the
// steps before it (State::impulseRates, extrapolated to the step): the iterations are fewer,
// the step's equations and its accuracy are those of iterations from zero, a prediction that
// is wrong costs iterations but never the step, and a run resumed from a recorded frame (or a
// run file) predicts exactly as the run that recorded it.

#include <unistd.h>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/io/run_file.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "tests/support/mechanisms.h"

namespace engine {
namespace {

using namespace std::chrono_literals;

std::shared_ptr<const Model> compiled(const SceneSpec& spec) {
    CompileResult c = compile(spec);
    EXPECT_TRUE(c.model) << (c.diagnostics.empty() ? "" : c.diagnostics[0].message);
    return c.model;
}

struct Outcome {
    State state;
    long steps = 0, iterations = 0, restarts = 0;
    double separation = 0.0;  // largest joint gap at the 1 ms outputs [m]
    double energyDrift = 0.0;
};

// `duration` in 1 ms outputs; `forget`: every step's history cleared (iterations from zero).
Outcome run(const std::shared_ptr<const Model>& model, double duration, bool forget) {
    Outcome r;
    ForwardDynamics sim(model);
    const Status init = sim.initialize();
    EXPECT_TRUE(init.ok) << init.message;
    Outputs out;
    EXPECT_TRUE(sim.outputs(out).ok);
    const double e0 = out.energies.balance();
    const int n = static_cast<int>(std::lround(duration * 1e3));
    for (int k = 1; k <= n; ++k) {
        if (forget) {
            State s = sim.state();
            s.impulseRates.resize(0, 0);
            s.impulseSteps.resize(0);
            sim.restore(s);
        }
        const Status s = sim.advance(1e-3 * k);
        EXPECT_TRUE(s.ok) << s.message;
        if (!s.ok) break;
        EXPECT_TRUE(sim.outputs(out).ok);
        r.separation = std::max(r.separation, out.constraintError);
        r.energyDrift = std::max(r.energyDrift, std::abs(out.energies.balance() - e0));
    }
    r.state = sim.state();
    r.steps = sim.statistics().steps;  // restore() keeps the integrator and its counts
    r.iterations = sim.statistics().impulseIterations;
    r.restarts = sim.statistics().impulseRestarts;
    return r;
}

double largestDifference(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    return (a - b).cwiseAbs().maxCoeff();
}

TEST(ImpulsePrediction, TakesFewerIterationsForTheSameStep) {
    struct Case {
        const char* name;
        SceneSpec spec;
        double maxRatio;  // iterations with prediction ÷ from zero
    };
    // Measured over the first second: four-bar 1.46 a step against 2.52 from zero, chain-16
    // (whipping, its tension changing within a few steps) 2.38 against 3.06.
    for (const Case& c :
         {Case{"four-bar", test::fourBar(IntegratorType::SymplecticEuler, 1e-3), 0.6},
          Case{"chain-16", test::chain(16, IntegratorType::SymplecticEuler, 1e-3), 0.85}}) {
        SCOPED_TRACE(c.name);
        const auto model = compiled(c.spec);
        ASSERT_TRUE(model);
        const Outcome predicted = run(model, 1.0, false);
        const Outcome fromZero = run(model, 1.0, true);
        ASSERT_GT(fromZero.iterations, 0);
        const double perStep = static_cast<double>(predicted.iterations) / predicted.steps;
        const double perStepFromZero = static_cast<double>(fromZero.iterations) / fromZero.steps;
        EXPECT_LT(perStep, c.maxRatio * perStepFromZero) << perStep << " vs " << perStepFromZero;
        EXPECT_EQ(predicted.restarts, 0);
        // Both close the joints to the tolerance at every step and keep the same energy error
        // (symplectic: bounded, not drifting).
        EXPECT_LE(predicted.separation, 1e-10);
        EXPECT_LE(fromZero.separation, 1e-10);
        EXPECT_NEAR(predicted.energyDrift, fromZero.energyDrift, 1e-3 * fromZero.energyDrift);
        // The runs differ by the tolerance at each step, carried on by the motion (the whipping
        // chain: 2.9e-7 m after 1 s).
        EXPECT_LT(largestDifference(predicted.state.q, fromZero.state.q), 1e-6);
    }
}

TEST(ImpulsePrediction, AWrongPredictionCostsIterationsNotTheStep) {
    const auto model = compiled(test::fourBar(IntegratorType::SymplecticEuler, 1e-3));
    ASSERT_TRUE(model);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(0.2).ok);
    const State start = sim.state();
    ASSERT_EQ(start.impulseRates.rows(), model->constraintRows());
    ASSERT_EQ(start.impulseRates.cols(), kImpulseHistory);

    // The same step from the true history, from none, and from histories that are wrong: a
    // thousand times too large, of the wrong sign, not numbers, of the wrong size.
    struct Step {
        State end;
        long iterations = 0, restarts = 0;
    };
    auto stepFrom = [&](const State& s) {
        ForwardDynamics one(model);
        EXPECT_TRUE(one.resume(s).ok);
        const Status status = one.advance(0.201);
        EXPECT_TRUE(status.ok) << status.message;
        return Step{one.state(), one.statistics().impulseIterations,
                    one.statistics().impulseRestarts};
    };
    State none = start;
    none.impulseRates.resize(0, 0);
    none.impulseSteps.resize(0);
    const Step reference = stepFrom(none);
    State large = start, reversed = start, notANumber = start, wrongSize = start;
    large.impulseRates *= 1e3;
    reversed.impulseRates *= -1.0;
    notANumber.impulseRates(0, 0) = std::nan("");
    wrongSize.impulseRates.conservativeResize(start.impulseRates.rows() - 1, Eigen::NoChange);
    for (const State* s :
         std::initializer_list<const State*>{&start, &large, &reversed, &notANumber, &wrongSize}) {
        const Step step = stepFrom(*s);
        // Equal to the step from zero to within the tolerance the impulses are met to.
        EXPECT_LT(largestDifference(step.end.q, reference.end.q), 1e-9);
        EXPECT_LT(largestDifference(step.end.v, reference.end.v), 1e-6);
        EXPECT_EQ(step.end.impulseRates.rows(), model->constraintRows());
        // A history that is not one (not numbers, other rows) is no prediction: the same
        // iterations as from zero, no restart.
        if (s == &notANumber || s == &wrongSize) {
            EXPECT_EQ(step.iterations, reference.iterations);
            EXPECT_EQ(step.restarts, 0);
        }
        // The true one saves iterations; a wrong one costs some, or a restart from zero.
        if (s == &start) {
            EXPECT_LT(step.iterations, reference.iterations);
        }
        if (s == &large) {
            EXPECT_TRUE(step.iterations > reference.iterations || step.restarts == 1);
        }
    }
}

// A re-run from a recorded frame, and a run reopened from its file, go on as the original: each
// frame keeps the impulses its next step predicts from. To round-off: a resumed step takes its
// body frames from the recorded q, the original from the step that reached q, and a planar
// chain's out-of-plane coordinates (1e-31 m) tell the two apart.
TEST(ImpulsePrediction, ARunResumedFromAFrameOrAFilePredictsAsTheOriginal) {
    const SceneSpec spec = test::chain(4, IntegratorType::SymplecticEuler, 1e-3);
    const auto model = compiled(spec);
    ASSERT_TRUE(model);
    Simulator original(model);
    original.runTo(0.3);
    ASSERT_TRUE(original.waitUntilIdle(30s));
    const std::size_t frames = original.recording().size();
    ASSERT_GT(frames, 10u);
    State state;
    Outputs outputs;
    ASSERT_TRUE(original.recording().read(frames / 2, state, outputs));
    EXPECT_EQ(state.impulseRates.cols(), kImpulseHistory);

    const auto dir = std::filesystem::temp_directory_path() /
                     ("motus_impulse_prediction_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "chain.motusrun").string();
    std::string error;
    ASSERT_TRUE(io::saveRunFile(spec, original.recording(), path, error)) << error;
    auto reopened = io::loadRunFile(path, error);
    ASSERT_TRUE(reopened) << error;
    Simulator resumed(reopened->model, std::move(reopened->recording));
    ASSERT_TRUE(resumed.initialization().ok);
    resumed.rerunFrom(frames / 2);
    original.rerunFrom(frames / 2);
    ASSERT_TRUE(resumed.waitUntilIdle(30s));
    ASSERT_TRUE(original.waitUntilIdle(30s));
    Simulator straight(model);
    for (Simulator* s : {&resumed, &original, &straight}) s->runTo(0.5);
    for (Simulator* s : {&resumed, &original, &straight}) ASSERT_TRUE(s->waitUntilIdle(30s));
    State a, b, c;
    Outputs oa, ob, oc;
    const std::size_t last = straight.recording().size() - 1;
    ASSERT_EQ(resumed.recording().size(), last + 1);
    ASSERT_EQ(original.recording().size(), last + 1);
    ASSERT_TRUE(resumed.recording().read(last, a, oa));
    ASSERT_TRUE(original.recording().read(last, b, ob));
    ASSERT_TRUE(straight.recording().read(last, c, oc));
    EXPECT_LT(largestDifference(a.q, c.q), 1e-14);
    EXPECT_LT(largestDifference(a.v, c.v), 1e-13);
    EXPECT_LT(largestDifference(b.q, c.q), 1e-14);
    EXPECT_LT(largestDifference(b.v, c.v), 1e-13);
    std::filesystem::remove_all(dir);
}

// Frames recorded without the history (run files written before Motus kept it) resume with
// iterations from zero: the same motion to within the tolerance the impulses are met to.
TEST(ImpulsePrediction, FramesWithoutTheHistoryResumeFromZero) {
    const SceneSpec spec = test::chain(4, IntegratorType::SymplecticEuler, 1e-3);
    const auto model = compiled(spec);
    ASSERT_TRUE(model);
    EXPECT_TRUE(FrameLayout(*model).hasResumeData());
    EXPECT_FALSE(FrameLayout(*model, false).hasResumeData());
    EXPECT_EQ(FrameLayout(*model).size() - FrameLayout(*model, false).size(),
              1 + kImpulseHistory * (1 + model->constraintRows()));

    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(0.2).ok);
    Outputs outputs;
    ASSERT_TRUE(sim.outputs(outputs).ok);
    const FrameLayout without(*model, false);
    std::vector<double> row(static_cast<std::size_t>(without.size()));
    without.encode(sim.state(), outputs, row.data());
    State decoded;
    Outputs decodedOutputs;
    without.decode(row.data(), decoded, decodedOutputs);
    EXPECT_EQ(decoded.impulseRates.size(), 0);

    ForwardDynamics resumed(model);
    ASSERT_TRUE(resumed.resume(decoded).ok);
    ASSERT_TRUE(resumed.advance(0.3).ok);
    ASSERT_TRUE(sim.advance(0.3).ok);
    EXPECT_LT(largestDifference(resumed.state().q, sim.state().q), 1e-9);
}

}  // namespace
}  // namespace engine
