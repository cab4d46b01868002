// Every bundled example in scenes/ must load without a diagnostic, simulate 2 s without an
// error, keep its joints together and balance its energy (kinetic + potential − driver work +
// dissipated stays constant).

#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/io/scene_json.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

std::vector<std::filesystem::path> exampleScenes() {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(MOTUS_SOURCE_DIR "/scenes"))
        if (entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

TEST(ExampleScenes, EveryBundledSceneLoadsCleanly) {
    const auto files = exampleScenes();
    ASSERT_GE(files.size(), 2u);
    for (const auto& file : files) {
        const io::SceneLoadResult r = io::loadSceneFile(file.string());
        EXPECT_TRUE(r.scene.has_value()) << file;
        for (const Diagnostic& d : r.diagnostics)
            ADD_FAILURE() << file << ":" << d.where << ": " << d.message;
    }
}

// The scene of `file`, compiled; load or compile problems fail the test.
std::shared_ptr<const Model> compiledScene(const std::string& file) {
    const io::SceneLoadResult r = io::loadSceneFile(file);
    for (const Diagnostic& d : r.diagnostics)
        if (d.severity == Severity::Error)
            ADD_FAILURE() << file << ":" << d.where << ": " << d.message;
    return r.scene ? test::compiled(*r.scene) : nullptr;
}

TEST(ExampleScenes, EveryBundledSceneSimulatesTwoSecondsAndBalancesItsEnergy) {
    for (const auto& file : exampleScenes()) {
        SCOPED_TRACE(file.string());
        const auto model = compiledScene(file.string());
        ASSERT_TRUE(model);
        ForwardDynamics sim(model);
        ASSERT_TRUE(sim.initialize().ok);
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        const double balance0 = out.energies.balance();
        double worstDrift = 0.0, scale = 1e-12, worstClosure = 0.0;
        for (int k = 1; k <= 200; ++k) {
            const Status s = sim.advance(0.01 * k);
            ASSERT_TRUE(s.ok) << s.message;
            ASSERT_TRUE(sim.outputs(out).ok);
            worstDrift = std::max(worstDrift, std::abs(out.energies.balance() - balance0));
            scale = std::max({scale, out.energies.kinetic, std::abs(out.energies.driverWork)});
            worstClosure = std::max(worstClosure, out.constraintError);
        }
        // First-order methods (symplectic, implicit Euler) hold energy to O(h): a looser bound.
        const IntegratorType integrator = model->settings.integrator;
        const bool firstOrder = integrator == IntegratorType::SymplecticEuler ||
                                integrator == IntegratorType::ImplicitEuler ||
                                integrator == IntegratorType::TimeStepping;
        // Contact scenes step at the velocity level with impacts inside a step: their balance
        // holds to O(h v) (e.g. the free fall of a pile's upper layers before they land).
        const double bound = model->contact.enabled ? 2.5e-2 : firstOrder ? 2e-3 : 1e-4;
        EXPECT_LT(worstDrift / scale, bound)
            << "energy drift " << worstDrift << " J against " << scale << " J";
        EXPECT_LT(worstClosure, 1e-9);
    }
}

// The four-bar is the 'fourbar' benchmark: its joint markers must coincide in the initial
// pose (loop closed), to the 7 digits the file carries.
TEST(ExampleScenes, FourBarStartsAssembled) {
    const io::SceneLoadResult r = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/four_bar.json");
    ASSERT_TRUE(r.scene);
    const SceneSpec& s = *r.scene;
    ASSERT_EQ(s.joints.size(), 4u);
    for (const Joint& joint : s.joints) {
        const Part* pi = s.findPart(joint.markerI.part);
        const Part* pj = s.findPart(joint.markerJ.part);
        const Marker* mi = s.findMarker(joint.markerI);
        const Marker* mj = s.findMarker(joint.markerJ);
        ASSERT_TRUE(pi && pj && mi && mj);
        const Transform X_WI = pi->X_WP * mi->X_PM;
        const Transform X_WJ = pj->X_WP * mj->X_PM;
        EXPECT_LT((X_WI.p - X_WJ.p).norm(), 2e-7) << joint.name;
        // Revolute axes (marker z) parallel, along world y.
        EXPECT_LT((X_WI.R * Vec3::UnitZ() - Vec3::UnitY()).norm(), 1e-9) << joint.name;
        EXPECT_LT((X_WJ.R * Vec3::UnitZ() - Vec3::UnitY()).norm(), 1e-9) << joint.name;
    }
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

// The 100-link chain, released from horizontal, swings and whips for 15 s without stopping
// or losing its joints. Its tip turns at up to ~1000 rad/s, a radian per 1 ms step: those steps
// are taken as substeps of at most 0.1 rad (FixedStepIntegrator), and the energy the whips cost
// the (otherwise conservative) symplectic scheme stays within 9 % of the largest kinetic energy
// (measured: 17.8 J of 242 J; substeps of 0.05 rad would lose 5.9 J at twice the cost in the
// whips; without substeps the run stopped at t = 3.08 s). dopri45 holds it to 2e-3 J.
TEST(ExampleScenes, TheHundredLinkChainSwingsForFifteenSeconds) {
    const auto model = compiledScene(MOTUS_SOURCE_DIR "/scenes/chain_100.json");
    ASSERT_TRUE(model);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    const double e0 = out.energies.total();
    double worst = 0.0, kinetic = 0.0;
    for (int k = 1; k <= 15; ++k) {
        const Status s = sim.advance(k);
        ASSERT_TRUE(s.ok) << s.message;
        ASSERT_TRUE(sim.outputs(out).ok);
        worst = std::max(worst, std::abs(out.energies.total() - e0));
        kinetic = std::max(kinetic, out.energies.kinetic);
        EXPECT_LT(out.constraintError, 1e-9);
    }
    EXPECT_LT(worst, 0.09 * kinetic);
    EXPECT_GT(sim.statistics().subdivided, 0);
}

}  // namespace
}  // namespace engine
