#include "engine/record/recording.h"

#include <cstring>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "tests/support/mechanisms.h"

namespace engine {
namespace {

struct Fixture {
    std::shared_ptr<const Model> model;
    std::unique_ptr<ForwardDynamics> sim;
    Fixture() {
        model = compile(test::fourBar(IntegratorType::RungeKutta4, 1e-3)).model;
        sim = std::make_unique<ForwardDynamics>(model);
        EXPECT_TRUE(sim->initialize().ok);
    }
    Outputs outputs() {
        Outputs o;
        EXPECT_TRUE(sim->outputs(o).ok);
        return o;
    }
};

TEST(Recording, AFrameReadsBackBitForBit) {
    Fixture f;
    ASSERT_TRUE(f.sim->advance(0.05).ok);
    const Outputs o = f.outputs();
    Recording recording(*f.model, {});
    ASSERT_EQ(recording.append(f.sim->state(), o), Recording::Append::Recorded);
    State s;
    Outputs back;
    ASSERT_TRUE(recording.read(0, s, back));
    EXPECT_EQ(s.t, f.sim->state().t);
    EXPECT_TRUE(s.q == f.sim->state().q);
    EXPECT_TRUE(s.v == f.sim->state().v);
    EXPECT_TRUE(s.jointCoordinates == f.sim->state().jointCoordinates);
    EXPECT_EQ(back.reactions[1].force_W, o.reactions[1].force_W);
    EXPECT_EQ(back.reactions[3].torque_J, o.reactions[3].torque_J);
    EXPECT_EQ(back.energies.kinetic, o.energies.kinetic);
    EXPECT_EQ(back.constraintError, o.constraintError);
}

TEST(Recording, ChannelsNameEveryQuantityWithItsUnit) {
    Fixture f;
    Recording recording(*f.model, {});
    const FrameLayout& layout = recording.layout();
    const int fz = layout.findChannel("B.Fz");
    ASSERT_GE(fz, 0);
    EXPECT_EQ(layout.channels()[static_cast<std::size_t>(fz)].unit, "N");
    EXPECT_GE(layout.findChannel("crank.vx"), 0);
    EXPECT_GE(layout.findChannel("A.q0rate"), 0);
    EXPECT_GE(layout.findChannel("energy.kinetic"), 0);
    EXPECT_EQ(layout.findChannel("nothing"), -1);

    // A channel's series equals the quantity in each frame.
    for (int k = 1; k <= 20; ++k) {
        ASSERT_TRUE(f.sim->advance(0.001 * k).ok);
        recording.append(f.sim->state(), f.outputs());
    }
    std::vector<double> times, values;
    recording.series(fz, 0, recording.size(), 5, times, values);
    ASSERT_EQ(values.size(), 4u);
    State s;
    Outputs o;
    recording.read(15, s, o);
    EXPECT_EQ(times[3], s.t);
    EXPECT_EQ(values[3], o.reactions[1].force_W.z());
    EXPECT_EQ(recording.frameAtOrBefore(0.0105), 9u);  // frame k holds t = 0.001 (k + 1)
    EXPECT_EQ(recording.frameAtOrBefore(-1.0), 0u);
}

TEST(Recording, DecimatesWhenFullAndSaysSo) {
    Fixture f;
    RecordingOptions options;
    options.maxBytes = 3 * Recording::kChunkFrames *
                       static_cast<std::size_t>(Recording(*f.model, {}).layout().size()) * 8;
    Recording recording(*f.model, options);
    int decimated = 0;
    for (int k = 0; k < 8000; ++k) {
        State s = f.sim->state();
        s.t = 0.001 * k;  // content does not matter here, times do
        if (recording.append(s, f.outputs()) == Recording::Append::Decimated) ++decimated;
    }
    EXPECT_GT(decimated, 0);
    EXPECT_EQ(recording.decimations(), decimated);
    EXPECT_LE(recording.bytes(), options.maxBytes + 8 * 8000);
    EXPECT_GE(recording.recordEvery(), 2);
    // Times still ascend, start at 0 and reach the end of the run at a coarser spacing.
    EXPECT_EQ(recording.time(0), 0.0);
    for (std::size_t k = 1; k < recording.size(); ++k)
        EXPECT_GT(recording.time(k), recording.time(k - 1));
    EXPECT_GT(recording.time(recording.size() - 1), 7.0);
}

TEST(Recording, StopPolicyRefusesFramesBeyondTheLimit) {
    Fixture f;
    RecordingOptions options;
    options.policy = MemoryPolicy::StopRun;
    options.maxBytes = Recording::kChunkFrames *
                       static_cast<std::size_t>(Recording(*f.model, {}).layout().size()) * 8;
    Recording recording(*f.model, options);
    Recording::Append last = Recording::Append::Recorded;
    int k = 0;
    for (; k < 5000 && last != Recording::Append::Full; ++k)
        last = recording.append(f.sim->state(), f.outputs());
    EXPECT_EQ(last, Recording::Append::Full);
    EXPECT_EQ(recording.size(), Recording::kChunkFrames);
}

TEST(Recording, DropOldestForgetsTheOldestFramesAndKeepsNumberingTheRun) {
    Fixture f;
    RecordingOptions options;
    options.policy = MemoryPolicy::DropOldest;
    options.maxBytes = 64 * static_cast<std::size_t>(FrameLayout(*f.model).size()) * sizeof(double);
    Recording recording(*f.model, options);
    std::vector<double> times;
    for (int k = 0; k <= 600; ++k) {
        ASSERT_TRUE(f.sim->advance(k * 1e-3).ok);
        ASSERT_EQ(recording.append(f.sim->state(), f.outputs()), Recording::Append::Recorded);
        times.push_back(f.sim->state().t);
    }
    ASSERT_EQ(recording.size(), 601u);
    const std::size_t first = recording.first();
    EXPECT_GT(first, 500u);
    EXPECT_LE(recording.bytes(), options.maxBytes + sizeof(double) * 601);
    State s;
    Outputs o;
    EXPECT_FALSE(recording.read(first - 1, s, o));
    ASSERT_TRUE(recording.read(first, s, o));
    EXPECT_EQ(s.t, times[first]);
    ASSERT_TRUE(recording.read(600, s, o));
    EXPECT_EQ(s.t, times[600]);
    EXPECT_EQ(recording.time(first + 3), times[first + 3]);
    EXPECT_EQ(recording.frameAtOrBefore(times[first + 3]), first + 3);
    EXPECT_EQ(recording.frameAtOrBefore(0.0), first);  // before what is held: the first held
    std::vector<double> t, values;
    recording.series(recording.layout().findChannel("energy.kinetic"), 0, 601, 1, t, values);
    ASSERT_EQ(t.size(), 601 - first);
    EXPECT_EQ(t.front(), times[first]);
    EXPECT_EQ(t.back(), times[600]);
}

TEST(Recording, TruncatedFramesStayReadableAsThePreviousRunUntilDiscarded) {
    Fixture f;
    Recording recording(*f.model, {});
    const int kinetic = recording.layout().findChannel("energy.kinetic");
    for (int k = 0; k < 10; ++k) {
        State s = f.sim->state();
        s.t = 0.1 * k;
        recording.append(s, f.outputs());
    }
    EXPECT_FALSE(recording.hasPrevious());
    recording.truncateAfter(4);
    EXPECT_EQ(recording.size(), 5u);
    ASSERT_TRUE(recording.hasPrevious());
    EXPECT_NEAR(recording.previousFrom(), 0.4, 1e-15);  // from the frame re-run from
    EXPECT_NEAR(recording.previousUntil(), 0.9, 1e-15);
    State s;
    Outputs o;
    EXPECT_TRUE(recording.readPrevious(0.75, s, o));
    EXPECT_NEAR(s.t, 0.7, 1e-15);
    EXPECT_FALSE(recording.readPrevious(0.35, s, o));
    // New frames of the same times leave the previous run as it was.
    s = f.sim->state();
    s.t = 0.5;
    recording.append(s, f.outputs());
    s.t = 0.8;
    recording.append(s, f.outputs());
    EXPECT_TRUE(recording.readPrevious(0.75, s, o));
    EXPECT_NEAR(s.t, 0.7, 1e-15);
    std::vector<double> t, v;
    recording.previousSeries(kinetic, 4, t, v);  // frames 0, 4 and the last of 6 (0.4 … 0.9)
    ASSERT_EQ(t.size(), 3u);
    EXPECT_NEAR(t[0], 0.4, 1e-15);
    EXPECT_NEAR(t[1], 0.8, 1e-15);
    EXPECT_NEAR(t[2], 0.9, 1e-15);
    ASSERT_EQ(v.size(), 3u);
    recording.discardPrevious();
    EXPECT_FALSE(recording.hasPrevious());
    EXPECT_FALSE(recording.readPrevious(0.75, s, o));
    recording.previousSeries(kinetic, 1, t, v);
    EXPECT_TRUE(t.empty());
}

}  // namespace
}  // namespace engine

#include "engine/analysis/forward_dynamics.h"
#include "engine/io/scene_json.h"

namespace engine {
namespace {

TEST(RecordingChannels, DriverPowerIsEffortTimesTheDrivenRateAndIntegratesToItsWork) {
    auto loaded = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/slider_crank.json");
    ASSERT_TRUE(loaded.scene);
    const auto model = compile(*loaded.scene).model;
    ASSERT_TRUE(model);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    Recording recording(*model, {});
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    recording.append(sim.state(), out);
    for (int k = 1; k <= 400; ++k) {
        ASSERT_TRUE(sim.advance(0.001 * k).ok);
        ASSERT_TRUE(sim.outputs(out).ok);
        recording.append(sim.state(), out);
    }
    const std::string motor = model->drivers[0].name;
    const int power = recording.layout().findChannel(motor + ".power");
    ASSERT_GE(power, 0);
    EXPECT_EQ(recording.layout().channels()[static_cast<std::size_t>(power)].unit, "W");
    std::vector<double> t, p;
    recording.series(power, 0, recording.size(), 1, t, p);
    // Trapezoidal integral of the power against the run's accumulated driver work.
    double work = 0.0;
    for (std::size_t k = 1; k < t.size(); ++k) work += 0.5 * (p[k] + p[k - 1]) * (t[k] - t[k - 1]);
    EXPECT_NEAR(work, out.energies.driverWork,
                1e-3 * std::max(1.0, std::abs(out.energies.driverWork)));
    EXPECT_GT(std::abs(out.energies.driverWork), 1e-3);
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

TEST(RecordingMemory, TheLimitHoldsFromTheFirstFrameOfAHugeModel) {
    // 5,000 free parts: a row is 5,000 × 16 numbers (640 kB). A first chunk of 1,024 rows
    // would be 655 MB against a 64 MiB limit; chunks shrink so the limit holds from frame 0.
    SceneSpec spec;
    for (int k = 0; k < 5000; ++k) {
        Part p;
        p.id = spec.newId();
        p.name = "p" + std::to_string(k);
        p.mass = 1.0;
        p.X_WP.p = Vec3(0.0, 0.0, 0.01 * k);
        spec.parts.push_back(p);
    }
    const auto model = compile(spec).model;
    ASSERT_TRUE(model);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    Outputs o;
    ASSERT_TRUE(sim.outputs(o).ok);
    RecordingOptions options;
    options.policy = MemoryPolicy::StopRun;
    options.maxBytes = std::size_t(64) << 20;
    Recording recording(*model, options);
    ASSERT_EQ(recording.append(sim.state(), o), Recording::Append::Recorded);
    EXPECT_LE(recording.bytes(), options.maxBytes / 16);
    Recording::Append last = Recording::Append::Recorded;
    for (int k = 0; k < 1000 && last != Recording::Append::Full; ++k)
        last = recording.append(sim.state(), o);
    EXPECT_EQ(last, Recording::Append::Full);
    EXPECT_LE(recording.bytes(), options.maxBytes);
    EXPECT_GE(recording.bytes(),
              options.maxBytes - options.maxBytes / 16);  // filled, not refused early
}

}  // namespace
}  // namespace engine
