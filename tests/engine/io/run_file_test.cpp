#include "engine/io/run_file.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <unistd.h>

#include <gtest/gtest.h>

#include "engine/import/mjcf_import.h"
#include "engine/import/robot_import.h"
#include "engine/io/scene_json.h"
#include "engine/model/layout.h"
#include "engine/runtime/simulator.h"
#include "tests/support/simulation.h"

namespace engine::io {
namespace {

using namespace std::chrono_literals;

std::vector<std::vector<double>> rows(const Recording& r) {
    return test::recordedRows(r);
}

struct RunFileTest : ::testing::Test {
    void SetUp() override {
        // One folder per test and process: CTest runs the tests of this file in parallel.
        dir = std::filesystem::temp_directory_path() /
              ("motus-run-test-" +
               std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
               std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        path = (dir / "four_bar.motusrun").string();
        auto loaded = loadSceneFile(MOTUS_SOURCE_DIR "/scenes/four_bar.json");
        ASSERT_TRUE(loaded.scene);
        spec = *loaded.scene;
        model = compile(spec).model;
    }
    void TearDown() override { std::filesystem::remove_all(dir); }
    // Temporaries (`<name>.XXXXXX.partial`) in the folder.
    int temporaries() const {
        int count = 0;
        for (const auto& entry : std::filesystem::directory_iterator(dir))
            count += entry.path().extension() == ".partial" ? 1 : 0;
        return count;
    }
    std::string bytes() {
        std::ifstream in(path, std::ios::binary);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
    void write(const std::string& content) {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << content;
    }
    std::filesystem::path dir;
    std::string path;
    SceneSpec spec;
    std::shared_ptr<const Model> model;
};

TEST_F(RunFileTest, ARunReopensFrameForFrameAndContinuesAsIfNeverStopped) {
    Simulator original(model);
    original.runTo(0.2);
    ASSERT_TRUE(original.waitUntilIdle(30s));
    std::string error;
    ASSERT_TRUE(saveRunFile(spec, original.recording(), path, error)) << error;
    EXPECT_FALSE(std::filesystem::exists(path + ".saving"));

    auto run = loadRunFile(path, error);
    ASSERT_TRUE(run) << error;
    EXPECT_EQ(sceneToJson(run->spec), sceneToJson(spec));
    EXPECT_EQ(rows(*run->recording), rows(original.recording()));

    // Continue the reopened run to 0.4 s: the same frames as a run that never stopped.
    Simulator resumed(run->model, std::move(run->recording));
    ASSERT_TRUE(resumed.initialization().ok) << resumed.initialization().message;
    resumed.runTo(0.4);
    original.runTo(0.4);
    ASSERT_TRUE(resumed.waitUntilIdle(30s));
    ASSERT_TRUE(original.waitUntilIdle(30s));
    const auto a = rows(resumed.recording()), b = rows(original.recording());
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k)
        for (std::size_t i = 0; i < a[k].size(); ++i)
            ASSERT_NEAR(a[k][i], b[k][i], 1e-12 * (1 + std::abs(b[k][i]))) << k;
}

// A run written before welds folded into one body kept a body per part: it opens with its
// scene read as it was run (the welds held as joints), its frames as they were, and goes on.
// A run written folded opens folded.
TEST_F(RunFileTest, ARunWrittenWithABodyPerWeldedPartStillOpens) {
    auto loaded = loadSceneFile(MOTUS_SOURCE_DIR "/scenes/bolted_pendulum.json");
    ASSERT_TRUE(loaded.scene);
    const SceneSpec bolted = *loaded.scene;
    ASSERT_TRUE(bolted.settings.foldWelds);
    SceneSpec apart = bolted;
    apart.settings.foldWelds = false;
    std::string error;
    for (const bool foldedRun : {false, true}) {
        const auto runModel = compile(foldedRun ? bolted : apart).model;
        ASSERT_TRUE(runModel);
        EXPECT_EQ(runModel->bodyCount(), foldedRun ? 1 : 3);
        Simulator original(runModel);
        original.runTo(0.1);
        ASSERT_TRUE(original.waitUntilIdle(30s));
        // (the scene as a Motus without the setting wrote it: no foldWelds key, folding's default)
        ASSERT_TRUE(saveRunFile(bolted, original.recording(), path, error)) << error;
        auto run = loadRunFile(path, error);
        ASSERT_TRUE(run) << error;
        EXPECT_EQ(run->spec.settings.foldWelds, foldedRun);
        EXPECT_EQ(run->model->bodyCount(), foldedRun ? 1 : 3);
        EXPECT_EQ(rows(*run->recording), rows(original.recording()));
        Simulator resumed(run->model, std::move(run->recording));
        ASSERT_TRUE(resumed.initialization().ok) << resumed.initialization().message;
        resumed.runTo(0.2);
        ASSERT_TRUE(resumed.waitUntilIdle(30s));
        EXPECT_NEAR(resumed.recording().time(resumed.recording().size() - 1), 0.2, 1e-12);
    }
}

TEST_F(RunFileTest, AContactRunKeepsEveryFramesContactForces) {
    auto loaded = loadSceneFile(MOTUS_SOURCE_DIR "/scenes/newtons_cradle.json");
    ASSERT_TRUE(loaded.scene);
    Simulator original(compile(*loaded.scene).model);
    original.runTo(0.3);  // past the first impacts
    ASSERT_TRUE(original.waitUntilIdle(30s));
    std::string error;
    ASSERT_TRUE(saveRunFile(*loaded.scene, original.recording(), path, error)) << error;
    auto run = loadRunFile(path, error);
    ASSERT_TRUE(run) << error;
    ASSERT_EQ(run->recording->size(), original.recording().size());
    std::size_t withForces = 0;
    for (std::size_t k = 0; k < original.recording().size(); ++k) {
        State s1, s2;
        Outputs a, b;
        original.recording().read(k, s1, a);
        run->recording->read(k, s2, b);
        ASSERT_EQ(a.contacts.size(), b.contacts.size()) << k;
        for (std::size_t c = 0; c < a.contacts.size(); ++c) {
            EXPECT_EQ(a.contacts[c].partA, b.contacts[c].partA);
            EXPECT_EQ(a.contacts[c].partB, b.contacts[c].partB);
            EXPECT_EQ(a.contacts[c].point_W, b.contacts[c].point_W);
            EXPECT_EQ(a.contacts[c].normalForce, b.contacts[c].normalForce);
            EXPECT_EQ(a.contacts[c].frictionForce_W, b.contacts[c].frictionForce_W);
            withForces += a.contacts[c].normalForce > 0.0;
        }
    }
    EXPECT_GT(withForces, 0u);
}

// A reopened box pile goes on from any of its frames exactly as the original run did: the
// frames keep their persistent contact points and warm-start impulses.
TEST_F(RunFileTest, AReopenedContactRunReRunsFromAFrameBitForBit) {
    auto loaded = loadSceneFile(MOTUS_SOURCE_DIR "/scenes/box_pile.json");
    ASSERT_TRUE(loaded.scene);
    Simulator original(compile(*loaded.scene).model);
    original.runTo(0.5);
    ASSERT_TRUE(original.waitUntilIdle(60s));
    std::string error;
    ASSERT_TRUE(saveRunFile(*loaded.scene, original.recording(), path, error)) << error;
    auto run = loadRunFile(path, error);
    ASSERT_TRUE(run) << error;
    std::size_t points = 0;
    for (std::size_t k = 0; k < original.recording().size(); ++k) {
        State s1, s2;
        Outputs a, b;
        original.recording().read(k, s1, a);
        run->recording->read(k, s2, b);
        ASSERT_EQ(s1.contacts.size(), s2.contacts.size()) << k;
        for (std::size_t c = 0; c < s1.contacts.size(); ++c) {
            EXPECT_EQ(s1.contacts[c].partB, s2.contacts[c].partB);
            EXPECT_EQ(s1.contacts[c].local_A, s2.contacts[c].local_A);
            EXPECT_EQ(s1.contacts[c].normalImpulse, s2.contacts[c].normalImpulse);
            EXPECT_EQ(s1.contacts[c].frictionImpulse_W, s2.contacts[c].frictionImpulse_W);
        }
        points += s1.contacts.size();
    }
    EXPECT_GT(points, 10 * original.recording().size());  // boxes rest on boxes

    Simulator reopened(run->model, std::move(run->recording));
    reopened.rerunFrom(reopened.recording().frameAtOrBefore(0.2));
    reopened.runTo(0.5);
    ASSERT_TRUE(reopened.waitUntilIdle(60s));
    const auto again = rows(reopened.recording()), before = rows(original.recording());
    ASSERT_EQ(again.size(), before.size());
    for (std::size_t k = 0; k < again.size(); ++k)
        ASSERT_EQ(std::memcmp(again[k].data(), before[k].data(), again[k].size() * sizeof(double)),
                  0)
            << "frame " << k;
}

// The double four-bar through its singular positions (rk4: stages on the manifold next to
// them), saved, reopened and re-run from frames after the first and the second flat position:
// the frames keep what the solver remembers of the singular positions passed
// (State::solverMemory), so the re-run follows the original bit for bit.
TEST_F(RunFileTest, AReopenedRunThroughSingularPositionsReRunsFromAFrameBitForBit) {
    auto loaded = loadSceneFile(MOTUS_SOURCE_DIR "/scenes/benchmarks/n_four_bar.json");
    ASSERT_TRUE(loaded.scene);
    loaded.scene->settings.integrator = IntegratorType::RungeKutta4;
    Simulator original(compile(*loaded.scene).model);
    original.runTo(1.5);
    ASSERT_TRUE(original.waitUntilIdle(60s));
    ASSERT_TRUE(original.snapshot()->error.empty()) << original.snapshot()->error;
    std::string error;
    ASSERT_TRUE(saveRunFile(*loaded.scene, original.recording(), path, error)) << error;
    const auto before = rows(original.recording());
    for (const double t : {0.6, 1.1}) {
        auto run = loadRunFile(path, error);
        ASSERT_TRUE(run) << error;
        EXPECT_EQ(rows(*run->recording), before);
        State state;
        Outputs outputs;
        ASSERT_TRUE(run->recording->read(run->recording->frameAtOrBefore(t), state, outputs));
        EXPECT_FALSE(state.solverMemory.empty());
        Simulator reopened(run->model, std::move(run->recording));
        reopened.rerunFrom(reopened.recording().frameAtOrBefore(t));
        reopened.runTo(1.5);
        ASSERT_TRUE(reopened.waitUntilIdle(60s));
        const auto again = rows(reopened.recording());
        ASSERT_EQ(again.size(), before.size());
        for (std::size_t k = 0; k < again.size(); ++k)
            ASSERT_EQ(
                std::memcmp(again[k].data(), before[k].data(), again[k].size() * sizeof(double)), 0)
                << "re-run from t = " << t << ": frame " << k;
    }
}

TEST_F(RunFileTest, TruncatedOrCorruptedFilesFailCleanly) {
    Simulator sim(model);
    sim.runTo(0.05);
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    std::string error;
    ASSERT_TRUE(saveRunFile(spec, sim.recording(), path, error));
    const std::string good = bytes();

    for (std::size_t cut : {std::size_t(0), std::size_t(5), std::size_t(14), good.size() / 3,
                            good.size() - 9, good.size() - 1}) {
        write(good.substr(0, cut));
        EXPECT_FALSE(loadRunFile(path, error)) << cut;
        EXPECT_TRUE(error.find("truncated") != std::string::npos ||
                    error.find("not a Motus run file") != std::string::npos)
            << cut << ": " << error;
    }
    std::string flipped = good;
    flipped[good.size() - 100] ^= 0x40;  // a bit in the last frame
    write(flipped);
    EXPECT_FALSE(loadRunFile(path, error));
    EXPECT_NE(error.find("corrupted"), std::string::npos) << error;

    write("MOTUSXXX" + good.substr(8));
    EXPECT_FALSE(loadRunFile(path, error));
    EXPECT_NE(error.find("not a Motus run file"), std::string::npos);

    EXPECT_FALSE(loadRunFile((dir / "missing.motusrun").string(), error));
    EXPECT_NE(error.find("cannot open"), std::string::npos);
}

TEST_F(RunFileTest, BytesInMemoryReadLikeTheFileTheyCameFrom) {
    Simulator sim(model);
    sim.runTo(0.05);
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    std::string error;
    ASSERT_TRUE(saveRunFile(spec, sim.recording(), path, error));
    const std::string good = bytes();

    auto fromFile = loadRunFile(path, error);
    ASSERT_TRUE(fromFile) << error;
    auto fromBytes = parseRunFile(good, dir.string(), error);
    ASSERT_TRUE(fromBytes) << error;
    EXPECT_EQ(sceneToJson(fromBytes->spec), sceneToJson(fromFile->spec));
    EXPECT_EQ(rows(*fromBytes->recording), rows(*fromFile->recording));

    EXPECT_FALSE(parseRunFile("MOTUSXXX" + good.substr(8), dir.string(), error));
    EXPECT_NE(error.find("not a Motus run file"), std::string::npos) << error;
    EXPECT_FALSE(parseRunFile(good.substr(0, good.size() - 1), dir.string(), error));
    EXPECT_NE(error.find("truncated"), std::string::npos) << error;
}

// A run streamed to its file while the recording keeps only its latest frames (the CLI's way)
// holds every frame, the same as a run recorded whole and saved at the end.
TEST_F(RunFileTest, AStreamedRunHoldsEveryFrameEvenWhenTheRecordingDroppedThem) {
    Simulator whole(model);
    whole.runTo(1.0);
    ASSERT_TRUE(whole.waitUntilIdle(30s));

    RecordingOptions options;
    options.policy = MemoryPolicy::DropOldest;
    options.maxBytes = 64 * 1024;
    Simulator streamed(model, options);
    RunFileWriter writer;
    std::string error;
    ASSERT_TRUE(writer.open(spec, streamed.recording().layout(), path, error)) << error;
    streamed.setFrameSink([&](const State& state, const Outputs& outputs, std::string& why) {
        return writer.append(state, outputs, why);
    });
    streamed.runTo(1.0);
    ASSERT_TRUE(streamed.waitUntilIdle(30s));
    EXPECT_GT(streamed.recording().first(), 0u);
    EXPECT_FALSE(std::filesystem::exists(path));  // under its final name only when finished
    EXPECT_EQ(temporaries(), 1);
    ASSERT_TRUE(writer.finish(error)) << error;
    EXPECT_EQ(temporaries(), 0);

    auto run = loadRunFile(path, error);
    ASSERT_TRUE(run) << error;
    EXPECT_EQ(writer.frames(), whole.recording().size());
    EXPECT_EQ(rows(*run->recording), rows(whole.recording()));
}

TEST_F(RunFileTest, AnUnfinishedRunFileLeavesNoFileAndTheTargetUntouched) {
    write("the user's earlier run");
    {
        RunFileWriter writer;
        std::string error;
        ASSERT_TRUE(writer.open(spec, FrameLayout(*model), path, error)) << error;
        State state;
        Outputs outputs;
        Simulator sim(model);
        sim.recording().read(0, state, outputs);
        ASSERT_TRUE(writer.append(state, outputs, error));
    }  // never finished (the program stopped)
    EXPECT_EQ(bytes(), "the user's earlier run");
    EXPECT_EQ(temporaries(), 0);

    RunFileWriter writer;
    std::string error;
    EXPECT_FALSE(writer.open(spec, FrameLayout(*model),
                             (dir / "no-such-folder" / "x.motusrun").string(), error));
    EXPECT_NE(error.find("cannot write"), std::string::npos) << error;
}

// A run whose last time is inf or 1e300 (with a valid checksum) aborted `render` asking for
// that many video frames: each frame's time must be finite, within 1e9 s and after the last.
TEST_F(RunFileTest, FrameTimesMustBeFiniteBoundedAndIncreasing) {
    const struct {
        double last;
        const char* reason;
    } cases[] = {{std::numeric_limits<double>::infinity(), "inf s: not a finite number"},
                 {std::nan(""), "nan s: not a finite number"},
                 {1e300, "1.0000000000000001e+300 s: beyond the 1000000000 s a run may span"},
                 {0.0, "0 s: not after the frame before it"}};
    for (const auto& c : cases) {
        RunFileWriter writer;
        std::string error;
        ASSERT_TRUE(writer.open(spec, FrameLayout(*model), path, error)) << error;
        State state;
        Outputs outputs;
        Simulator sim(model);
        sim.recording().read(0, state, outputs);
        state.t = 0.0;
        ASSERT_TRUE(writer.append(state, outputs, error));
        state.t = c.last;
        ASSERT_TRUE(writer.append(state, outputs, error));
        ASSERT_TRUE(writer.finish(error)) << error;
        EXPECT_FALSE(loadRunFile(path, error));
        EXPECT_EQ(error, std::string("frame 1 of the run has time ") + c.reason);
    }
}

// Two writers of one run file (two runs saved to the same name at once) each write their own
// temporary: the file is whole after either finishes, and holds the run finished last.
TEST_F(RunFileTest, TwoWritersOfOneFileEachLeaveAWholeFile) {
    Simulator sim(model);
    sim.runTo(0.05);
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    const Recording& recording = sim.recording();
    ASSERT_GT(recording.size(), 3u);
    RunFileWriter first, second;
    std::string error;
    ASSERT_TRUE(first.open(spec, recording.layout(), path, error)) << error;
    ASSERT_TRUE(second.open(spec, recording.layout(), path, error)) << error;
    EXPECT_EQ(temporaries(), 2);
    for (std::size_t k = 0; k < recording.size(); ++k) {
        State state;
        Outputs outputs;
        ASSERT_TRUE(recording.read(k, state, outputs));
        ASSERT_TRUE(first.append(state, outputs, error)) << error;
        if (k < 3) {
            ASSERT_TRUE(second.append(state, outputs, error)) << error;
        }
    }
    ASSERT_TRUE(first.finish(error)) << error;
    auto run = loadRunFile(path, error);
    ASSERT_TRUE(run) << error;
    EXPECT_EQ(run->recording->size(), recording.size());
    ASSERT_TRUE(second.finish(error)) << error;
    run = loadRunFile(path, error);
    ASSERT_TRUE(run) << error;
    EXPECT_EQ(run->recording->size(), 3u);
    EXPECT_EQ(temporaries(), 0);
}

// A run file saved over a symbolic link replaces the file the link names, not the link.
TEST_F(RunFileTest, ASymbolicLinkIsFollowedNotReplaced) {
    Simulator sim(model);
    sim.runTo(0.01);
    ASSERT_TRUE(sim.waitUntilIdle(30s));
    const std::string link = (dir / "latest.motusrun").string();
    std::filesystem::create_symlink("four_bar.motusrun", link);
    std::string error;
    ASSERT_TRUE(saveRunFile(spec, sim.recording(), link, error)) << error;
    EXPECT_TRUE(std::filesystem::is_symlink(link));
    EXPECT_TRUE(loadRunFile(path, error)) << error;
}

// The fuzzer's hostile seeds of the current format (tests/fuzz/make_run_seeds.py): each is
// refused by the check it was made for, with a message saying so; the example runs load.
TEST(RunFileFormats, HostileFilesAreRefusedByTheCheckMadeForThem) {
    const std::string seeds = MOTUS_SOURCE_DIR "/tests/fuzz/seeds-run/";
    const std::vector<std::pair<std::string, std::string>> refused = {
        {"v4_future_version", "unsupported run file version 5"},
        {"v4_frames_huge", "truncated or has extra bytes"},
        {"v4_frames_one_more", "truncated or has extra bytes"},
        {"v4_frames_one_fewer", "truncated or has extra bytes"},
        {"v4_trailer_missing", "truncated or has extra bytes"},
        {"v4_last_frame_cut", "truncated or has extra bytes"},
        {"v4_contact_count_huge", "truncated or has extra bytes"},
        {"v4_contact_point_count_huge", "truncated or has extra bytes"},
        {"v4_values_zero", "truncated or has extra bytes"},
        {"v4_contact_names_no_part", "names no part"},
        {"v4_contact_negative_part", "names no part"},
        {"v4_contact_point_names_no_pair", "names no pair of parts"},
        // Format 3 (no persistent contact points) with a layout its version does not have.
        {"v3_frames_one_more", "truncated or has extra bytes"},
        {"v3_contact_names_no_part", "names no part"},
    };
    for (const auto& [name, reason] : refused) {
        std::string error;
        EXPECT_FALSE(loadRunFile(seeds + name + ".motusrun", error)) << name;
        EXPECT_NE(error.find(reason), std::string::npos) << name << ": " << error;
    }
    for (const char* name : {"v4_pendulum", "v4_four_bar", "v4_cam_follower", "v4_two_link_arm_pd",
                             "v4_n_four_bar_rk4", "v4_n_four_bar_memory_nonsense", "v3_pendulum",
                             "v3_four_bar", "v3_cam_follower", "v3_two_link_arm_pd"}) {
        std::string error;
        auto run = loadRunFile(seeds + name + ".motusrun", error);
        ASSERT_TRUE(run) << name << ": " << error;
        EXPECT_GT(run->recording->size(), 5u) << name;
    }
}

// A frame's solver memory made nonsense (a rank beyond the rows, a NaN and a 2⁶⁰ for the rows
// dropped, infinite, negative and huge pivots): the run still continues from it, its rows
// checked as always and every joint closed.
TEST(RunFileFormats, ANonsenseSolverMemoryIsIgnoredWhereTheRunContinues) {
    std::string error;
    for (const char* name : {"v4_n_four_bar_rk4", "v4_n_four_bar_memory_nonsense"}) {
        auto run = loadRunFile(
            std::string(MOTUS_SOURCE_DIR "/tests/fuzz/seeds-run/") + name + ".motusrun", error);
        ASSERT_TRUE(run) << name << ": " << error;
        const std::size_t last = run->recording->size() - 1;
        const double t = run->recording->time(last);
        Simulator sim(run->model, std::move(run->recording));
        ASSERT_TRUE(sim.initialization().ok) << name << ": " << sim.initialization().message;
        sim.runTo(t + 0.5);  // through the next flat position
        ASSERT_TRUE(sim.waitUntilIdle(60s));
        EXPECT_TRUE(sim.snapshot()->error.empty()) << name << ": " << sim.snapshot()->error;
        EXPECT_NEAR(sim.snapshot()->time, t + 0.5, 1e-9) << name;
        State state;
        Outputs outputs;
        ASSERT_TRUE(sim.recording().read(sim.recording().size() - 1, state, outputs));
        EXPECT_LT(outputs.constraintError, 1e-9) << name;
    }
}

// Files written by earlier versions of Motus (format 1: rows only; 2: contacts after the rows)
// still read.
TEST(RunFileFormats, EarlierVersionsStillRead) {
    std::string error;
    auto v2 = loadRunFile(MOTUS_SOURCE_DIR "/tests/fuzz/seeds-run/cam_follower.motusrun", error);
    ASSERT_TRUE(v2) << error;
    ASSERT_GT(v2->recording->size(), 1u);
    std::size_t contacts = 0;
    for (std::size_t k = 0; k < v2->recording->size(); ++k) {
        State state;
        Outputs outputs;
        ASSERT_TRUE(v2->recording->read(k, state, outputs));
        contacts += outputs.contacts.size();
    }
    EXPECT_GT(contacts, 0u);
    auto v1 =
        loadRunFile(MOTUS_SOURCE_DIR "/tests/fuzz/seeds-run/pendulum_version1.motusrun", error);
    ASSERT_TRUE(v1) << error;
    EXPECT_GT(v1->recording->size(), 1u);
}

}  // namespace
}  // namespace engine::io

namespace engine::io {
namespace {

TEST(RunFileHostile, ADirectoryNamedLikeARunFileIsRefusedNotRead) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("motus-run-dir-" + std::to_string(::getpid()) + ".motusrun");
    std::filesystem::create_directories(dir);
    std::string error;
    EXPECT_FALSE(loadRunFile(dir.string(), error));
    EXPECT_NE(error.find("is a folder, not a file"), std::string::npos) << error;
    std::filesystem::remove_all(dir);
    // A missing file says so.
    EXPECT_FALSE(loadRunFile(dir.string(), error));
    EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
}

}  // namespace
}  // namespace engine::io

namespace engine::io {
namespace {

// A run file whose poses hold NaN or infinity (a valid checksum) rendered a blank video with
// exit status 0: a frame's positions, orientations and velocities must be finite numbers, and
// the message names the frame, its time and the value.
TEST_F(RunFileTest, FramePosesAndVelocitiesMustBeFinite) {
    const double inf = std::numeric_limits<double>::infinity();
    int crank = -1;
    for (int b = 0; b < model->bodyCount(); ++b)
        if (model->bodies[static_cast<std::size_t>(b)].name == "crank") crank = b;
    ASSERT_GE(crank, 0);
    const struct {
        bool velocity;
        int component;
        double value;
        const char* said;
    } cases[] = {{false, 1, std::nan(""), "'crank.y' = nan: not a finite number"},
                 {false, 4, inf, "part 'crank' orientation qx = inf: not a finite number"},
                 {true, 2, -inf, "'crank.vz' = -inf: not a finite number"},
                 {true, 5, std::nan(""),
                  "part 'crank' angular velocity z = nan: not a finite "
                  "number"}};
    for (const auto& c : cases) {
        RunFileWriter writer;
        std::string error;
        ASSERT_TRUE(writer.open(spec, FrameLayout(*model), path, error)) << error;
        State state;
        Outputs outputs;
        Simulator sim(model);
        sim.recording().read(0, state, outputs);
        for (int k = 0; k < 3; ++k) {
            state.t = 0.01 * k;
            if (k == 2) {
                if (c.velocity)
                    state.v(layout::velocityIndex(crank) + c.component) = c.value;
                else
                    state.q(layout::positionIndex(crank) + c.component) = c.value;
            }
            ASSERT_TRUE(writer.append(state, outputs, error));
        }
        ASSERT_TRUE(writer.finish(error)) << error;
        EXPECT_FALSE(loadRunFile(path, error));
        EXPECT_EQ(error, std::string("frame 2 of the run (at 0.02 s) has ") + c.said);
    }
    // A kinematic run's reactions are NaN (not computed): outputs are not poses, and load.
    RunFileWriter writer;
    std::string error;
    ASSERT_TRUE(writer.open(spec, FrameLayout(*model), path, error)) << error;
    State state;
    Outputs outputs;
    Simulator sim(model);
    sim.recording().read(0, state, outputs);
    ASSERT_FALSE(outputs.reactions.empty());
    for (JointReaction& r : outputs.reactions) r.force_W = Vec3::Constant(std::nan(""));
    ASSERT_TRUE(writer.append(state, outputs, error));
    ASSERT_TRUE(writer.finish(error)) << error;
    EXPECT_TRUE(loadRunFile(path, error)) << error;
}

}  // namespace
}  // namespace engine::io

namespace engine::io {
namespace {

// The run of an imported MJCF robot with mesh geoms (meshes held in memory, as MuJoCo compiled
// them) named its meshes by asset in the run's scene, and the run file did not open: they are
// written beside the run, where its reader looks for them.
TEST_F(RunFileTest, ARunOfARobotWithMeshesInNoFileOpens) {
    const RobotImportResult imported =
        importMjcfFile(MOTUS_SOURCE_DIR "/tests/data/robots/mjcf/arm_with_meshes.xml");
    ASSERT_TRUE(imported.scene);
    ASSERT_TRUE(sceneHoldsMeshesInMemory(*imported.scene));
    const auto robot = compile(*imported.scene).model;
    ASSERT_TRUE(robot);
    RunFileWriter writer;
    std::string error;
    ASSERT_TRUE(writer.open(*imported.scene, FrameLayout(*robot), path, error)) << error;
    State state;
    Outputs outputs;
    Simulator sim(robot);
    sim.recording().read(0, state, outputs);
    ASSERT_TRUE(writer.append(state, outputs, error)) << error;
    ASSERT_TRUE(writer.finish(error)) << error;
    EXPECT_TRUE(std::filesystem::is_regular_file(dir / "four_bar_meshes" / "base_0.obj"));
    const auto run = loadRunFile(path, error);
    ASSERT_TRUE(run) << error;
    int meshes = 0;
    for (const Part& part : run->spec.parts)
        for (const Shape& s : part.shapes)
            if (s.type == ShapeType::Mesh) {
                ++meshes;
                EXPECT_EQ(s.meshFile, "four_bar_meshes/base_0.obj");
                ASSERT_TRUE(s.mesh);
                EXPECT_EQ(s.mesh->triangles.size(), 8u);
            }
    EXPECT_EQ(meshes, 2);
}

}  // namespace
}  // namespace engine::io
