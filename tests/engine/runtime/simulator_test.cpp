// The simulation runtime: its own thread, commands from anywhere, a recording that resumes
// exactly, failures that keep what was computed.

#include "engine/runtime/simulator.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "engine/io/scene_json.h"
#include "tests/support/mechanisms.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

using test::compiled;

std::vector<std::vector<double>> rows(const Recording& r, std::size_t first = 0) {
    return test::recordedRows(r, first);
}

using namespace std::chrono_literals;

std::shared_ptr<const Model> example(const std::string& name,
                                     Formulation formulation = Formulation::Auto) {
    auto r = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/" + name);
    EXPECT_TRUE(r.scene);
    if (formulation != Formulation::Auto) r.scene->settings.formulation = formulation;
    return compiled(*r.scene);
}

bool bitwiseEqual(const std::vector<std::vector<double>>& a,
                  const std::vector<std::vector<double>>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k)
        if (a[k].size() != b[k].size() ||
            std::memcmp(a[k].data(), b[k].data(), a[k].size() * sizeof(double)) != 0)
            return false;
    return true;
}

// Runs `model` to `duration`, then re-runs it from each of `frames` to `duration` (each time
// from a run of its own, so that one re-run's new future is not compared with the next): every
// re-run reproduces the original recording bit for bit.
void expectReRunsReproduce(const std::shared_ptr<const Model>& model, double duration,
                           const std::vector<std::size_t>& frames) {
    std::vector<std::vector<double>> original;
    {
        Simulator sim(model);
        sim.runTo(duration);
        ASSERT_TRUE(sim.waitUntilIdle(60s));
        ASSERT_TRUE(sim.snapshot()->error.empty()) << sim.snapshot()->error;
        original = rows(sim.recording());
    }
    for (const std::size_t frame : frames) {
        ASSERT_LT(frame, original.size());
        Simulator sim(model);
        sim.runTo(duration);
        ASSERT_TRUE(sim.waitUntilIdle(60s));
        sim.rerunFrom(frame);
        sim.runTo(duration);
        ASSERT_TRUE(sim.waitUntilIdle(60s));
        EXPECT_TRUE(bitwiseEqual(rows(sim.recording()), original))
            << "re-run from frame " << frame << " of " << original.size();
    }
}

TEST(Simulator, RunsToATimeAndRecordsEveryOutputOnTheGrid) {
    Simulator sim(example("slider_crank.json"));  // dopri45, output every 5 ms
    ASSERT_TRUE(sim.initialization().ok) << sim.initialization().message;
    sim.runTo(0.5);
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    const auto snap = sim.snapshot();
    EXPECT_EQ(snap->mode, RunMode::Paused);
    EXPECT_DOUBLE_EQ(snap->time, 0.5);
    EXPECT_TRUE(snap->error.empty()) << snap->error;
    ASSERT_EQ(sim.recording().size(), 101u);
    for (std::size_t k = 0; k < 101; ++k)
        EXPECT_NEAR(sim.recording().time(k), 0.005 * static_cast<double>(k), 1e-12);
    EXPECT_EQ(snap->frame, 100u);
    EXPECT_GT(snap->statistics.steps, 0);
}

TEST(Simulator, SameSceneGivesBitwiseIdenticalRecordings) {
    for (const char* scene : {"four_bar.json", "slider_crank.json"}) {
        Simulator a(example(scene)), b(example(scene));
        a.runTo(0.3);
        b.runTo(0.3);
        ASSERT_TRUE(a.waitUntilIdle(30s));
        ASSERT_TRUE(b.waitUntilIdle(30s));
        EXPECT_TRUE(bitwiseEqual(rows(a.recording()), rows(b.recording()))) << scene;
    }
}

TEST(Simulator, ReRunningFromAFrameReproducesTheFramesAfterIt) {
    for (IntegratorType integrator :
         {IntegratorType::DormandPrince45, IntegratorType::SymplecticEuler,
          IntegratorType::RungeKutta4}) {
        Simulator sim(compiled(test::fourBar(integrator, 2e-3)));
        sim.runTo(0.4);
        ASSERT_TRUE(sim.waitUntilIdle(30s));
        const auto original = rows(sim.recording(), 80);
        sim.rerunFrom(80);
        ASSERT_TRUE(sim.waitUntilIdle(30s));
        EXPECT_EQ(sim.recording().size(), 81u);
        EXPECT_NEAR(sim.recording().previousUntil(), 0.4, 1e-12);  // the old future, kept
        EXPECT_NEAR(sim.recording().previousFrom(), sim.recording().time(80), 1e-15);
        EXPECT_EQ(sim.snapshot()->frame, 80u);
        sim.runTo(0.4);
        ASSERT_TRUE(sim.waitUntilIdle(30s));
        EXPECT_TRUE(bitwiseEqual(rows(sim.recording(), 80), original))
            << static_cast<int>(integrator);
        EXPECT_TRUE(sim.recording().hasPrevious());  // kept while the new run overtook it
        sim.reset();                                 // starting over leaves nothing to compare with
        ASSERT_TRUE(sim.waitUntilIdle(30s));
        EXPECT_FALSE(sim.recording().hasPrevious());
    }
}

// Symplectic Euler's step ends form their body frames as every other evaluation at that pose
// does (R from the stored quaternion, made unit again the same way), so a re-run from any
// recorded frame starts from the Φq the original run factored there, to the last bit. Before,
// the four-bar re-run from frames 1147 and 1432 of 2001 left the original by 1e-34 on
// coordinates that are zero.
TEST(Simulator, ReRunningASymplecticRunFromAnyFrameReproducesItBitForBit) {
    SceneSpec spec = *io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/four_bar.json").scene;
    spec.settings.integrator = IntegratorType::SymplecticEuler;
    expectReRunsReproduce(compiled(spec), 2.0, {7, 292, 577, 862, 1147, 1432, 1717});
}

// The IFToMM double four-bar passes a singular position twice a second (every link on one
// line: the mechanism gains two degrees of freedom for an instant), where the solver drops the
// rows that became dependent and the fixed-step methods take their stages on the manifold. A
// re-run from any recorded frame reproduces the run bit for bit with every method all the
// same: what the solver remembers of the singular positions passed (the rows dropped, the
// best pivots seen) is recorded with each frame (State::solverMemory). Before, rk4 left the
// original run from 3 of these 7 frames and dopri45 from 5, by up to 0.2 m a second later.
TEST(Simulator, ReRunningThroughSingularPositionsFromAnyFrameReproducesItBitForBit) {
    SceneSpec spec =
        *io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/benchmarks/n_four_bar.json").scene;
    for (const IntegratorType integrator :
         {IntegratorType::RungeKutta4, IntegratorType::DormandPrince45,
          IntegratorType::SymplecticEuler}) {
        SCOPED_TRACE("integrator " + std::to_string(static_cast<int>(integrator)));
        spec.settings.integrator = integrator;
        expectReRunsReproduce(compiled(spec), 2.0, {6, 292, 578, 862, 1148, 1432, 1718});
    }
}

// A contact run resumed from a frame starts from the persistent contact points and warm-start
// impulses recorded with the frame (State::contacts), so it reproduces the original bit for
// bit: the box pile (boxes on boxes on the ground, many points per pair), the cam follower
// (a roller on a cam) and Newton's cradle (impacts); the last two in joint coordinates too.
TEST(Simulator, ReRunningAContactSceneFromAnyFrameReproducesItBitForBit) {
    struct Run {
        const char* scene;
        double duration;
        Formulation formulation;
    };
    for (const auto& [scene, duration, formulation] :
         {Run{"box_pile.json", 1.0, Formulation::Auto},
          Run{"cam_follower.json", 0.6, Formulation::Auto},
          Run{"newtons_cradle.json", 0.6, Formulation::Auto},
          Run{"cam_follower.json", 0.6, Formulation::Recursive},
          Run{"newtons_cradle.json", 0.6, Formulation::Recursive}}) {
        SCOPED_TRACE(formulationName(formulation));
        Simulator sim(example(scene, formulation));
        sim.runTo(duration);
        ASSERT_TRUE(sim.waitUntilIdle(120s)) << scene;
        ASSERT_TRUE(sim.snapshot()->error.empty()) << scene << ": " << sim.snapshot()->error;
        const auto original = rows(sim.recording());
        const std::size_t frames = sim.recording().size();
        // The resumed frames hold contact points to start from.
        State state;
        Outputs outputs;
        std::size_t withPoints = 0;
        for (std::size_t k = 0; k < frames; ++k) {
            ASSERT_TRUE(sim.recording().read(k, state, outputs));
            withPoints += !state.contacts.empty();
        }
        EXPECT_GT(withPoints, frames / 2) << scene;
        for (const double fraction : {0.15, 0.5, 0.85}) {
            const std::size_t frame = sim.recording().frameAtOrBefore(fraction * duration);
            sim.rerunFrom(frame);
            sim.runTo(duration);
            ASSERT_TRUE(sim.waitUntilIdle(120s)) << scene;
            EXPECT_TRUE(bitwiseEqual(rows(sim.recording()), original))
                << scene << " re-run from frame " << frame;
        }
    }
    // The impacts happened: the last ball of the cradle swung out.
    Simulator cradle(example("newtons_cradle.json"));
    cradle.runTo(0.6);
    ASSERT_TRUE(cradle.waitUntilIdle(60s));
    EXPECT_GT(cradle.snapshot()->partPoses[5].p.x(), 0.15);
}

// The box pile with sleeping parts: which parts sleep and how long the others have rested is
// recorded with every frame (State::rest), so a run resumed from a frame where some sleep,
// or none yet, falls asleep at the same steps as the original: bit for bit.
TEST(Simulator, ReRunningASleepingPileFromAnyFrameReproducesItBitForBit) {
    auto r = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/box_pile.json");
    ASSERT_TRUE(r.scene);
    r.scene->contact.sleepTime = 0.2;
    const double duration = 1.5;
    Simulator sim(compiled(*r.scene));
    sim.runTo(duration);
    ASSERT_TRUE(sim.waitUntilIdle(120s));
    ASSERT_TRUE(sim.snapshot()->error.empty()) << sim.snapshot()->error;
    const auto original = rows(sim.recording());
    State state;
    Outputs outputs;
    auto asleep = [&](std::size_t frame) {
        EXPECT_TRUE(sim.recording().read(frame, state, outputs));
        return std::count_if(state.rest.begin(), state.rest.end(),
                             [](double x) { return x < 0.0; });
    };
    const std::size_t last = sim.recording().size() - 1;
    EXPECT_EQ(asleep(last), 100);
    EXPECT_EQ(asleep(0), 0);
    for (const double fraction : {0.1, 0.3, 0.6, 0.9}) {
        const std::size_t frame = sim.recording().frameAtOrBefore(fraction * duration);
        const long sleeping = asleep(frame);
        std::printf("sleeping pile re-run from t = %.3f s: %ld of 100 parts asleep there\n",
                    state.t, sleeping);
        sim.rerunFrom(frame);
        sim.runTo(duration);
        ASSERT_TRUE(sim.waitUntilIdle(120s));
        EXPECT_TRUE(bitwiseEqual(rows(sim.recording()), original))
            << "re-run from frame " << frame << " (" << sleeping << " parts asleep)";
    }
}

TEST(Simulator, ReRunningWithChangedParametersChangesOnlyTheFuture) {
    SceneSpec spec = test::chain(1, IntegratorType::RungeKutta4, 1e-3);
    Simulator sim(compiled(spec));
    sim.runTo(0.2);
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    const auto before = rows(sim.recording());
    spec.gravity = Vec3(0, 0, -20.0);  // a parameter edit
    sim.rerunFrom(100, compiled(spec));
    sim.runTo(0.2);
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    const auto after = rows(sim.recording());
    ASSERT_EQ(after.size(), before.size());
    EXPECT_TRUE(
        bitwiseEqual({before.begin(), before.begin() + 101}, {after.begin(), after.begin() + 101}));
    EXPECT_FALSE(
        bitwiseEqual({before.begin() + 150, before.end()}, {after.begin() + 150, after.end()}));

    // A structural change cannot continue a run.
    sim.rerunFrom(50, compiled(test::chain(2, IntegratorType::RungeKutta4, 1e-3)));
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    EXPECT_NE(sim.snapshot()->error.find("another structure"), std::string::npos);
}

TEST(Simulator, SnapshotShowsTheRecordedFrameAfterARerun) {
    Simulator sim(example("four_bar.json"));
    sim.runTo(0.2);
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    const std::size_t frame = sim.recording().frameAtOrBefore(0.1);
    sim.rerunFrom(frame);
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    const auto snap = sim.snapshot();
    State s;
    Outputs o;
    ASSERT_TRUE(sim.recording().read(frame, s, o));
    EXPECT_EQ(snap->time, s.t);
    const Model& model = *snap->model;
    for (std::size_t p = 0; p < model.bodyOfPart.size(); ++p) {
        const int b = model.bodyOfPart[p];
        if (b == kGround) continue;
        const Transform X_WP = Transform{bodyOrientation(s.q, b), bodyPosition(s.q, b)} *
                               model.bodies[static_cast<std::size_t>(b)].X_PB.inverse();
        EXPECT_LT((snap->partPoses[p].p - X_WP.p).norm(), 1e-15);
    }
    EXPECT_EQ(snap->outputs.reactions[0].force_W, o.reactions[0].force_W);
}

TEST(Simulator, SeekShowsARecordedFrameAndPlayReplaysBeforeComputingOn) {
    Simulator sim(example("four_bar.json"));  // dopri45, output every 1 ms
    sim.runTo(0.5);
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    const auto before = rows(sim.recording());
    const std::size_t middle = sim.recording().frameAtOrBefore(0.25);
    sim.seek(middle);
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    EXPECT_EQ(sim.snapshot()->frame, middle);
    EXPECT_NEAR(sim.snapshot()->time, 0.25, 1e-12);
    EXPECT_EQ(sim.recording().size(), before.size());  // nothing discarded
    sim.step();  // the next recorded frame, not a new computation
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    EXPECT_EQ(sim.snapshot()->frame, middle + 1);
    EXPECT_EQ(sim.recording().size(), before.size());

    sim.setSpeed(100.0);
    sim.play();
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (sim.snapshot()->time < 0.6 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(5ms);
    sim.pause();
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    EXPECT_GE(sim.snapshot()->time, 0.6);
    // The replayed part of the run is the original, untouched.
    const auto after = rows(sim.recording());
    ASSERT_GT(after.size(), before.size());
    EXPECT_TRUE(
        bitwiseEqual({after.begin(), after.begin() + static_cast<long>(before.size())}, before));
}

TEST(Simulator, LoopPlaybackReplaysTheRecordingOverAndOverWithoutComputing) {
    Simulator sim(example("four_bar.json"));  // output every 1 ms
    sim.runTo(0.2);
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    const auto before = rows(sim.recording());
    sim.seek(100);
    sim.setLoop(true);
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    EXPECT_TRUE(sim.snapshot()->loop);
    sim.play();
    // At real time the 0.2 s recording wraps about five times a second: wait for two wraps.
    int wraps = 0;
    std::size_t last = 100;
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (wraps < 2 && std::chrono::steady_clock::now() < deadline) {
        const auto snap = sim.snapshot();
        EXPECT_LE(snap->time, 0.2 + 1e-12);  // never beyond the recording
        if (snap->frame < last) ++wraps;
        last = snap->frame;
        std::this_thread::sleep_for(2ms);
    }
    sim.pause();
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    EXPECT_EQ(wraps, 2);
    EXPECT_TRUE(bitwiseEqual(rows(sim.recording()), before));  // nothing computed, nothing changed

    // Played from the end of the recording, a looping simulator still computes on.
    sim.seek(before.size() - 1);
    sim.setSpeed(100.0);
    sim.play();
    const auto deadline2 = std::chrono::steady_clock::now() + 20s;
    while (sim.snapshot()->time < 0.3 && std::chrono::steady_clock::now() < deadline2)
        std::this_thread::sleep_for(5ms);
    sim.pause();
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    EXPECT_GE(sim.snapshot()->time, 0.3);
    EXPECT_GT(sim.recording().size(), before.size());

    // Without loop, replay ends at the end of the recording and computes on from there.
    sim.setLoop(false);
    sim.seek(0);
    sim.play();
    const auto deadline3 = std::chrono::steady_clock::now() + 20s;
    const double end = sim.recording().time(sim.recording().size() - 1);
    while (sim.snapshot()->time <= end && std::chrono::steady_clock::now() < deadline3)
        std::this_thread::sleep_for(5ms);
    sim.pause();
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    EXPECT_GT(sim.snapshot()->time, end);
    EXPECT_FALSE(sim.snapshot()->loop);
}

TEST(Simulator, ANonFiniteForcePausesAtTheLastGoodFrameAndNamesIt) {
    auto r = io::loadSceneFile(MOTUS_SOURCE_DIR "/tests/app/data/nan_force.json");
    ASSERT_TRUE(r.scene);
    Simulator sim(compiled(*r.scene));  // rk4, 10 ms outputs, NaN from t = 0.5 s
    sim.runTo(2.0);
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    const auto snap = sim.snapshot();
    EXPECT_EQ(snap->mode, RunMode::Paused);
    EXPECT_NE(snap->error.find("force 'kick'"), std::string::npos) << snap->error;
    EXPECT_NE(snap->error.find("t = 0.5"), std::string::npos) << snap->error;
    // Everything computed before is kept, and it is all finite.
    ASSERT_EQ(sim.recording().size(), 50u);
    EXPECT_NEAR(snap->time, 0.49, 1e-12);
    for (const auto& row : rows(sim.recording()))
        for (double x : row) ASSERT_TRUE(std::isfinite(x));
    // Play does nothing until the user resets or re-runs.
    sim.play();
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    EXPECT_EQ(sim.recording().size(), 50u);
    sim.reset();
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    EXPECT_TRUE(sim.snapshot()->error.empty());
    EXPECT_EQ(sim.snapshot()->time, 0.0);
}

TEST(Simulator, MemoryLimitDecimatesOrStopsAndSays) {
    auto model = compiled(test::chain(4, IntegratorType::SymplecticEuler, 1e-3));
    const std::size_t row = static_cast<std::size_t>(FrameLayout(*model).size()) * sizeof(double);
    {
        RecordingOptions options;
        options.maxBytes = 2 * Recording::kChunkFrames * row;
        Simulator sim(model, options);
        sim.runTo(6.0);
        ASSERT_TRUE(sim.waitUntilIdle(60s));
        const auto snap = sim.snapshot();
        EXPECT_DOUBLE_EQ(snap->time, 6.0);
        EXPECT_NE(snap->notice.find("thinned out"), std::string::npos) << snap->notice;
        EXPECT_LE(sim.recording().bytes(), options.maxBytes + 8 * 8000);
        EXPECT_GT(sim.recording().time(sim.recording().size() - 1), 5.9);
    }
    {
        RecordingOptions options;
        options.maxBytes = Recording::kChunkFrames * row;
        options.policy = MemoryPolicy::StopRun;
        Simulator sim(model, options);
        sim.runTo(6.0);
        ASSERT_TRUE(sim.waitUntilIdle(60s));
        const auto snap = sim.snapshot();
        EXPECT_EQ(snap->mode, RunMode::Paused);
        EXPECT_NE(snap->notice.find("memory limit"), std::string::npos);
        EXPECT_EQ(sim.recording().size(), Recording::kChunkFrames);
        EXPECT_LT(snap->time, 1.1);
    }
}

// The CLI's way to run: every frame goes to a sink as it is recorded, and the recording keeps
// only its latest frames, so a run of any length takes bounded memory and loses no frame.
TEST(Simulator, AFrameSinkGetsEveryFrameOnceInOrderWhileTheRecordingKeepsOnlyTheLatest) {
    auto model = compiled(test::chain(4, IntegratorType::SymplecticEuler, 1e-3));
    Simulator reference(model);
    reference.runTo(3.0);
    ASSERT_TRUE(reference.waitUntilIdle(60s));

    const std::size_t row = static_cast<std::size_t>(FrameLayout(*model).size()) * sizeof(double);
    RecordingOptions options;
    options.policy = MemoryPolicy::DropOldest;
    options.maxBytes = 2 * Recording::kChunkFrames * row;
    Simulator sim(model, options);
    std::vector<std::vector<double>> sunk;
    sim.setFrameSink([&](const State& state, const Outputs& outputs, std::string&) {
        std::vector<double> r(static_cast<std::size_t>(sim.recording().layout().size()));
        sim.recording().layout().encode(state, outputs, r.data());
        sunk.push_back(std::move(r));
        return true;
    });
    sim.runTo(3.0);
    ASSERT_TRUE(sim.waitUntilIdle(60s));
    EXPECT_TRUE(sim.snapshot()->error.empty()) << sim.snapshot()->error;
    EXPECT_DOUBLE_EQ(sim.snapshot()->time, 3.0);
    EXPECT_TRUE(bitwiseEqual(sunk, rows(reference.recording())));
    // The recording dropped its oldest frames and stayed within its limit.
    EXPECT_EQ(sim.recording().size(), reference.recording().size());
    EXPECT_GT(sim.recording().first(), 0u);
    EXPECT_LE(sim.recording().bytes(), options.maxBytes + 8 * sim.recording().size());
    State state;
    Outputs outputs;
    EXPECT_FALSE(sim.recording().read(0, state, outputs));
    EXPECT_TRUE(sim.recording().read(sim.recording().size() - 1, state, outputs));
}

// Reset, seek and loop playback stay within the frames a dropping recording still holds.
TEST(Simulator, ResetAndSeekUseTheFramesADroppingRecordingStillHolds) {
    auto model = compiled(test::chain(4, IntegratorType::SymplecticEuler, 1e-3));
    const std::size_t row = static_cast<std::size_t>(FrameLayout(*model).size()) * sizeof(double);
    RecordingOptions options;
    options.policy = MemoryPolicy::DropOldest;
    options.maxBytes = 2 * Recording::kChunkFrames * row;
    Simulator sim(model, options);
    sim.runTo(3.0);
    ASSERT_TRUE(sim.waitUntilIdle(60s));
    const std::size_t first = sim.recording().first();
    ASSERT_GT(first, 0u);
    sim.seek(0);
    ASSERT_TRUE(sim.waitUntilIdle(60s));
    EXPECT_EQ(sim.snapshot()->frame, first);
    EXPECT_DOUBLE_EQ(sim.snapshot()->time, sim.recording().time(first));
    sim.reset();
    ASSERT_TRUE(sim.waitUntilIdle(60s));
    EXPECT_EQ(sim.snapshot()->frame, first);
    EXPECT_EQ(sim.recording().size(), first + 1);
    sim.runTo(3.2);  // and the run goes on from there
    ASSERT_TRUE(sim.waitUntilIdle(60s));
    EXPECT_TRUE(sim.snapshot()->error.empty()) << sim.snapshot()->error;
    EXPECT_DOUBLE_EQ(sim.snapshot()->time, 3.2);
}

TEST(Simulator, ASinkThatCannotWriteStopsTheRunWithItsReason) {
    Simulator sim(example("four_bar.json"));
    int frames = 0;
    sim.setFrameSink([&](const State&, const Outputs&, std::string& error) {
        if (++frames <= 100) return true;
        error = "cannot write 'out.csv' (the disk may be full)";
        return false;
    });
    sim.runTo(5.0);
    ASSERT_TRUE(sim.waitUntilIdle(60s));
    const auto snap = sim.snapshot();
    EXPECT_EQ(snap->mode, RunMode::Paused);
    EXPECT_NE(snap->error.find("disk may be full"), std::string::npos) << snap->error;
    EXPECT_EQ(frames, 101);  // nothing more is offered to a sink that failed
    EXPECT_LT(snap->time, 0.2);
}

// Skipped output steps (record one in k) cost no output work: reactions and energies are
// computed for the recorded frames only, and those are the same as in a run recording all.
TEST(Simulator, OutputsAreComputedOnlyForTheFramesRecorded) {
    auto model = example("four_bar.json");
    Simulator every(model);
    every.runTo(1.0);
    ASSERT_TRUE(every.waitUntilIdle(60s));
    RecordingOptions options;
    options.recordEvery = 10;
    Simulator tenth(model, options);
    tenth.runTo(1.0);
    ASSERT_TRUE(tenth.waitUntilIdle(60s));
    const auto all = rows(every.recording()), some = rows(tenth.recording());
    ASSERT_EQ(some.size(), (all.size() - 1) / 10 + 1);
    for (std::size_t k = 0; k < some.size(); ++k)
        ASSERT_TRUE(bitwiseEqual({some[k]}, {all[std::min(10 * k, all.size() - 1)]})) << k;
    // Frame 0 is computed at set-up; each recorded frame after it once.
    EXPECT_EQ(tenth.snapshot()->statistics.outputsComputed, static_cast<long>(some.size()) - 1);
    EXPECT_EQ(every.snapshot()->statistics.outputsComputed, static_cast<long>(all.size()) - 1);
}

TEST(Simulator, RealTimePlayNeverRunsAheadOfTheWallClock) {
    Simulator sim(example("pendulum.json"));
    sim.setSpeed(2.0);
    const auto start = std::chrono::steady_clock::now();
    sim.play();
    std::this_thread::sleep_for(300ms);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double simulated = sim.snapshot()->time;
    sim.pause();
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    EXPECT_LE(simulated, 2.0 * wall + 0.01);
    EXPECT_GT(simulated, 0.0);
}

// Commands from two threads while a third reads snapshots and frames (run under
// ThreadSanitizer in the tsan preset).
TEST(Simulator, ToleratesCommandsFromManyThreadsWhileBeingRead) {
    Simulator sim(example("four_bar.json"));
    std::atomic<bool> done{false};
    auto commander = [&](unsigned seed) {
        std::mt19937 rng(seed);
        while (!done) {
            switch (rng() % 7) {
            case 0:
                sim.play();
                break;
            case 1:
                sim.pause();
                break;
            case 2:
                sim.step();
                break;
            case 3:
                sim.runTo(sim.snapshot()->time + 0.05);
                break;
            case 4:
                sim.setSpeed(0.5 + (rng() % 100) * 0.1);
                break;
            case 5:
                sim.rerunFrom(rng() % std::max<std::size_t>(1, sim.recording().size()));
                break;
            case 6:
                if (rng() % 10 == 0)
                    sim.reset();
                else
                    sim.seek(rng() % std::max<std::size_t>(1, sim.recording().size()));
                break;
            }
            std::this_thread::sleep_for(std::chrono::microseconds(200 + rng() % 800));
        }
    };
    std::thread a(commander, 1), b(commander, 2);
    std::uint64_t lastSequence = 0;
    bool monotonic = true, finite = true;
    const auto end = std::chrono::steady_clock::now() + 1500ms;
    while (std::chrono::steady_clock::now() < end) {
        const auto snap = sim.snapshot();
        monotonic = monotonic && snap->sequence >= lastSequence;
        lastSequence = snap->sequence;
        for (const Transform& X : snap->partPoses) finite = finite && X.p.allFinite();
        State s;
        Outputs o;
        const std::size_t n = sim.recording().size();
        if (n > 0 && sim.recording().read(n - 1, s, o)) finite = finite && s.q.allFinite();
    }
    done = true;
    a.join();
    b.join();
    sim.pause();
    EXPECT_TRUE(sim.waitUntilIdle(30s));
    EXPECT_TRUE(monotonic);
    EXPECT_TRUE(finite);
    EXPECT_TRUE(sim.snapshot()->error.empty()) << sim.snapshot()->error;
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

// Singular positions passed are counted in the run's statistics (the window says so): none for
// the regular examples (a crank shorter than its rod, Grashof four-bars), one or more for a
// slider-crank whose crank is as long as its rod and for the parallelogram four-bars lying
// flat.
TEST(Simulator, CountsTheSingularPositionsARunPasses) {
    using namespace std::chrono_literals;
    auto passages = [](const std::string& path, double duration) {
        auto r = io::loadSceneFile(MOTUS_SOURCE_DIR "/" + path);
        EXPECT_TRUE(r.scene) << path;
        Simulator sim(test::compiled(*r.scene));
        sim.runTo(duration);
        EXPECT_TRUE(sim.waitUntilIdle(120s)) << path;
        EXPECT_TRUE(sim.snapshot()->error.empty()) << path << ": " << sim.snapshot()->error;
        return sim.snapshot()->statistics;
    };
    EXPECT_EQ(passages("scenes/slider_crank.json", 2.0).singularPassages, 0);
    EXPECT_EQ(passages("scenes/four_bar.json", 2.0).singularPassages, 0);
    // Thin plates from CAD, whose inertias lie far apart: the loop's pivots move by two orders
    // of magnitude in the mass metric as it swings, but the rows stay independent where only
    // the geometry counts (its pivots there stay above 0.27): no singular position.
    EXPECT_EQ(passages("scenes/cad/four_bar.json", 2.0).singularPassages, 0);
    const RunStatistics equal = passages("tests/ui/data/equal_slider_crank.json", 1.0);
    EXPECT_GE(equal.singularPassages, 2) << "twice a turn";
    EXPECT_NEAR(equal.lastSingularTime, 0.75, 0.05) << "the crank at 270°";
    // The slider passes the crank pivot and runs on (x = 2L cos θ, checked in the run): the
    // same branch, no change said.
    EXPECT_EQ(equal.branchChanges, 0);
    EXPECT_EQ(equal.branchChangeTime, -1.0);
    // The published benchmark passes each flat position as a parallelogram.
    const RunStatistics parallelogram = passages("scenes/benchmarks/n_four_bar.json", 2.0);
    EXPECT_GE(parallelogram.singularPassages, 1);
    EXPECT_EQ(parallelogram.branchChanges, 0);
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

// Waits until a played run has paused by itself (the engine's idle means paused with no
// command pending).
bool waitForPause(Simulator& sim) {
    using namespace std::chrono_literals;
    std::this_thread::sleep_for(20ms);
    return sim.waitUntilIdle(30s) && sim.snapshot()->mode == RunMode::Paused;
}

// A scene's end time: Play stops there, on that instant, with the last frame recorded there;
// Play again replays the run from its start and computes nothing new; Run to goes on past it
// when asked.
TEST(Simulator, PlayStopsAtTheScenesEndTime) {
    using namespace std::chrono_literals;
    auto r = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/pendulum.json");
    ASSERT_TRUE(r.scene);
    r.scene->settings.integrator = IntegratorType::RungeKutta4;
    r.scene->settings.stepSize = 0.001;
    r.scene->settings.outputInterval = 0.004;
    r.scene->settings.endTime = 0.0103;  // off the output grid: the last frame is on it
    Simulator sim(test::compiled(*r.scene));
    sim.setSpeed(100.0);
    sim.play();
    ASSERT_TRUE(waitForPause(sim));
    const auto snap = sim.snapshot();
    EXPECT_EQ(snap->mode, RunMode::Paused);
    EXPECT_DOUBLE_EQ(snap->time, 0.0103);
    const std::size_t frames = sim.recording().size();
    EXPECT_DOUBLE_EQ(sim.recording().time(frames - 1), 0.0103);
    EXPECT_EQ(frames, 4u);  // t = 0, 0.004, 0.008 and the end

    sim.play();  // at the end: replays from the start, nothing new
    ASSERT_TRUE(waitForPause(sim));
    EXPECT_EQ(sim.recording().size(), frames);
    EXPECT_DOUBLE_EQ(sim.snapshot()->time, 0.0103);

    sim.runTo(0.02);  // asked for: goes on
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    EXPECT_DOUBLE_EQ(sim.snapshot()->time, 0.02);
    EXPECT_GT(sim.recording().size(), frames);
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

// A run of no frames (a crafted run file, a recovery cut short) cannot be continued: the
// simulator says so, shows the design poses and survives every command (the window crashed).
TEST(Simulator, ARunOfNoFramesIsRefusedAndNothingCrashes) {
    using namespace std::chrono_literals;
    auto r = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/four_bar.json");
    ASSERT_TRUE(r.scene);
    const auto model = test::compiled(*r.scene);
    Simulator sim(model, std::make_unique<Recording>(*model, RecordingOptions{}));
    EXPECT_FALSE(sim.initialization().ok);
    EXPECT_EQ(sim.initialization().message, "the run has no frames");
    const auto snap = sim.snapshot();
    ASSERT_TRUE(snap);
    EXPECT_EQ(snap->partPoses.size(), r.scene->parts.size());
    sim.play();
    sim.step();
    sim.seek(3);
    sim.runTo(1.0);
    sim.reset();
    EXPECT_TRUE(sim.waitUntilIdle(10s));
    EXPECT_EQ(sim.recording().size(), 0u);
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

// A conserved energy balance that drifts is measured and flagged (the window and the CLI say
// so): implicit Euler's numerical damping takes energy out of an undamped pendulum; dopri45 at
// its default tolerances keeps the balance to far below 1 %; a damped run keeps its balance
// too (the dampers' share is bookkept), and a scene with applied forces is not judged.
TEST(Simulator, AnEnergyBalanceThatDriftsIsFlagged) {
    using namespace std::chrono_literals;
    auto run = [](SceneSpec spec, double duration) {
        Simulator sim(test::compiled(spec));
        sim.runTo(duration);
        EXPECT_TRUE(sim.waitUntilIdle(60s));
        EXPECT_TRUE(sim.snapshot()->error.empty()) << sim.snapshot()->error;
        return sim.snapshot()->statistics;
    };
    const SceneSpec pendulum = *io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/pendulum.json").scene;
    SceneSpec coarse = pendulum;
    coarse.settings.integrator = IntegratorType::ImplicitEuler;
    coarse.settings.stepSize = 0.01;
    const RunStatistics drifted = run(coarse, 2.0);
    EXPECT_GE(drifted.energyDriftTime, 0.0);
    EXPECT_GT(drifted.energyDrift, 0.01 * drifted.energyScale);
    EXPECT_GT(drifted.energyScale, 0.0);

    const RunStatistics kept = run(pendulum, 2.0);
    EXPECT_LT(kept.energyDriftTime, 0.0);
    EXPECT_LT(kept.energyDrift, 1e-6 * kept.energyScale);
}

}  // namespace
}  // namespace engine
