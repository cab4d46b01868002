// Speed work must not change the physics: every bundled example, every published benchmark and
// the canonical chain-N and four-bar scenes are run with their own settings and their positions
// and velocities compared, at several times, with the trajectories the solver produced before
// the speed work (tests/regression/data/trajectories/, one text file per scene). They must agree
// to 1e-10 (positions in m and quaternion units, velocities relative to their largest entry):
// a faster factorisation, a cheaper evaluation or a reordered product changes round-off only.
//
// Two kinds of scene amplify round-off by their own design, and are held to what their method
// guarantees instead:
//   * dopri45 chooses its steps from an error estimate: a change of round-off in it lengthens
//     or shortens a step, which moves the solution by up to that step's local error (rtol
//     1e-10 per step, the examples' default): 1e-9.
//   * contact runs (timeStepping) iterate their contact impulses to a tolerance (1e-6 m/s by
//     default, docs/contact.md): a change of round-off ends the sweeps on another iterate
//     within it, and a cam or an impact passes that on: 1e-5 m and 1e-3 of the velocities.
//
// A deliberate change of the physics (a new integrator step, another tolerance) rewrites the
// files: MOTUS_WRITE_TRAJECTORIES=1 motus_engine_tests --gtest_filter='ExampleTrajectories.*'
// — the change and its reason then belong in the commit that carries the new files.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/io/scene_json.h"
#include "tests/support/mechanisms.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

namespace fs = std::filesystem;

struct Tolerance {
    double position, velocity;  // m (and quaternion units); relative to the largest velocity
};
constexpr Tolerance kExact{1e-10, 1e-10};
constexpr Tolerance kAdaptive{1e-9, 1e-9};
constexpr Tolerance kContact{1e-5, 1e-3};

Tolerance toleranceFor(const Model& model) {
    if (model.contact.enabled) return kContact;
    if (model.settings.integrator == IntegratorType::DormandPrince45) return kAdaptive;
    return kExact;
}

const fs::path kDataDir = fs::path(MOTUS_SOURCE_DIR) / "tests/regression/data/trajectories";

struct Sample {
    double t = 0.0;
    std::vector<double> q, v;
};

bool writing() {
    const char* flag = std::getenv("MOTUS_WRITE_TRAJECTORIES");
    return flag && std::string(flag) == "1";
}

// The run sampled at `samples` equal intervals up to `duration` (outputs change no step: the
// fixed-step methods step on their grid, dopri45 interpolates).
std::vector<Sample> run(const std::shared_ptr<const Model>& model, double duration, int samples) {
    std::vector<Sample> out;
    ForwardDynamics sim(model);
    const Status init = sim.initialize();
    EXPECT_TRUE(init.ok) << init.message;
    if (!init.ok) return out;
    for (int k = 1; k <= samples; ++k) {
        const double t = duration * k / samples;
        const Status s = sim.advance(t);
        EXPECT_TRUE(s.ok) << "t = " << t << ": " << s.message;
        if (!s.ok) break;
        const State& state = sim.state();
        out.push_back({t, std::vector<double>(state.q.data(), state.q.data() + state.q.size()),
                       std::vector<double>(state.v.data(), state.v.data() + state.v.size())});
    }
    return out;
}

void write(const fs::path& file, const std::vector<Sample>& samples) {
    fs::create_directories(file.parent_path());
    std::ofstream f(file);
    f << std::setprecision(17);
    for (const Sample& s : samples) {
        f << "t " << s.t << "\nq";
        for (const double x : s.q) f << ' ' << x;
        f << "\nv";
        for (const double x : s.v) f << ' ' << x;
        f << '\n';
    }
}

std::vector<Sample> read(const fs::path& file) {
    std::vector<Sample> samples;
    std::ifstream f(file);
    std::string line;
    while (std::getline(f, line)) {
        std::istringstream in(line);
        std::string tag;
        in >> tag;
        if (tag == "t") {
            samples.emplace_back();
            in >> samples.back().t;
            continue;
        }
        if (samples.empty()) break;
        std::vector<double>& target = tag == "q" ? samples.back().q : samples.back().v;
        double x = 0.0;
        while (in >> x) target.push_back(x);
    }
    return samples;
}

// The scene `name`'s run against its stored trajectory (or the trajectory written).
void compareWithStored(const std::string& name, const std::shared_ptr<const Model>& model,
                       double duration, int samples) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(model);
    const std::vector<Sample> now = run(model, duration, samples);
    ASSERT_EQ(static_cast<int>(now.size()), samples);
    const fs::path file = kDataDir / (name + ".txt");
    if (writing()) {
        write(file, now);
        return;
    }
    const Tolerance tolerance = toleranceFor(*model);
    const std::vector<Sample> stored = read(file);
    ASSERT_EQ(stored.size(), now.size()) << file << " (missing? see the top of this file)";
    for (std::size_t k = 0; k < now.size(); ++k) {
        const Sample &a = now[k], &b = stored[k];
        ASSERT_NEAR(a.t, b.t, 1e-12);
        ASSERT_EQ(a.q.size(), b.q.size());
        ASSERT_EQ(a.v.size(), b.v.size());
        double dq = 0.0, dv = 0.0, vScale = 1.0;
        for (std::size_t i = 0; i < a.q.size(); ++i) dq = std::max(dq, std::abs(a.q[i] - b.q[i]));
        for (std::size_t i = 0; i < a.v.size(); ++i) {
            dv = std::max(dv, std::abs(a.v[i] - b.v[i]));
            vScale = std::max(vScale, std::abs(b.v[i]));
        }
        EXPECT_LE(dq, tolerance.position) << "positions at t = " << a.t;
        EXPECT_LE(dv, tolerance.velocity * vScale) << "velocities at t = " << a.t;
    }
}

std::shared_ptr<const Model> sceneFile(const fs::path& file) {
    const io::SceneLoadResult r = io::loadSceneFile(file.string());
    EXPECT_TRUE(r.scene) << file;
    return r.scene ? test::compiled(*r.scene) : nullptr;
}

std::vector<fs::path> scenesIn(const fs::path& dir) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

// How long each example is compared: long enough to pass through its motion's character (a
// pendulum's swing, a linkage's turn, a pile's landing), short enough that the round-off of a
// different evaluation order, grown by the motion, stays far below the tolerance.
double durationOf(const std::string& stem) {
    if (stem == "box_pile" || stem == "newtons_cradle") return 0.3;  // impacts
    if (stem == "chain_100") return 0.5;
    return 1.0;
}

TEST(ExampleTrajectories, EveryExampleFollowsItsStoredTrajectory) {
    const auto files = scenesIn(fs::path(MOTUS_SOURCE_DIR) / "scenes");
    ASSERT_GE(files.size(), 10u);
    for (const fs::path& file : files) {
        const std::string stem = file.stem().string();
        compareWithStored("example_" + stem, sceneFile(file), durationOf(stem), 5);
    }
}

TEST(ExampleTrajectories, EveryPublishedBenchmarkFollowsItsStoredTrajectory) {
    const auto files = scenesIn(fs::path(MOTUS_SOURCE_DIR) / "scenes/benchmarks");
    ASSERT_GE(files.size(), 5u);
    for (const fs::path& file : files) {
        // Andrews' squeezer over the span of its published problem (its crank turns 15 rad in
        // it); the others for half a second.
        const std::string stem = file.stem().string();
        compareWithStored("benchmark_" + stem, sceneFile(file),
                          stem == "andrews_squeezer" ? 0.03 : 0.5, 5);
    }
}

TEST(ExampleTrajectories, CanonicalScenesFollowTheirStoredTrajectories) {
    for (const int n : {1, 4, 16, 64}) {
        compareWithStored("chain" + std::to_string(n) + "_symplectic",
                          test::compiled(test::chain(n, IntegratorType::SymplecticEuler, 1e-3)),
                          1.0, 5);
        compareWithStored("chain" + std::to_string(n) + "_rk4",
                          test::compiled(test::chain(n, IntegratorType::RungeKutta4, 1e-3)), 1.0,
                          5);
    }
    compareWithStored("chain256_symplectic",
                      test::compiled(test::chain(256, IntegratorType::SymplecticEuler, 1e-3)), 0.2,
                      2);
    compareWithStored("fourbar_symplectic",
                      test::compiled(test::fourBar(IntegratorType::SymplecticEuler, 1e-3)), 2.0, 5);
    compareWithStored("fourbar_rk4",
                      test::compiled(test::fourBar(IntegratorType::RungeKutta4, 1e-3)), 2.0, 5);
    compareWithStored("fourbar_dopri45",
                      test::compiled(test::fourBar(IntegratorType::DormandPrince45, 1e-3)), 2.0, 5);
}

}  // namespace
}  // namespace engine
