// The GUI's simulation session: set-up of a mechanism runs off the GUI thread.

#include "ui/session/simulation_session.h"

#include <string>

#include <QTimer>

#include <gtest/gtest.h>

#include "engine/io/scene_json.h"
#include "engine/runtime/simulator.h"

namespace ui {
namespace {

// A horizontal chain of `links` hinged 0.1 m links, as scene text.
std::string chainScene(int links) {
    std::string parts = R"({"name": "ground", "ground": true, "markers": [{"name": "pin"}]})";
    std::string joints;
    for (int k = 0; k < links; ++k) {
        const std::string name = "l" + std::to_string(k);
        parts +=
            R"(, {"name": ")" + name +
            R"(", "mass": 1, "inertia": [1e-4, 1e-3, 1e-3], "position": [)" +
            std::to_string(0.1 * k + 0.05) +
            R"(, 0, 0], "markers": [{"name": "a", "position": [-0.05, 0, 0]}, {"name": "b", "position": [0.05, 0, 0]}]})";
        const std::string previous = k == 0 ? "ground.pin" : "l" + std::to_string(k - 1) + ".b";
        joints += std::string(k == 0 ? "" : ", ") + R"({"name": "j)" + std::to_string(k) +
                  R"(", "type": "revolute", "markerI": ")" + name + R"(.a", "markerJ": ")" +
                  previous + R"("})";
    }
    return R"({"format": "motus-scene", "version": 1, "parts": [)" + parts + R"(], "joints": [)" +
           joints + "]}";
}

TEST(SimulationSession, SettingUpALargeMechanismKeepsTheWindowRunning) {
    auto loaded = engine::io::parseScene(chainScene(3000), "");
    ASSERT_TRUE(loaded.scene) << loaded.diagnostics.front().message;
    SimulationSession session;
    int ticks = 0;
    QTimer timer;
    timer.setInterval(1);
    QObject::connect(&timer, &QTimer::timeout, [&] { ++ticks; });
    timer.start();
    const engine::Diagnostics problems = session.start(*loaded.scene);
    timer.stop();
    for (const engine::Diagnostic& d : problems) ADD_FAILURE() << d.message;
    ASSERT_TRUE(session.active());
    EXPECT_EQ(session.snapshot()->model->bodyCount(), 3000);
    // The GUI thread ran its timers (it would paint, too) while a worker set the chain up.
    EXPECT_GT(ticks, 0);
}

TEST(SimulationSession, AMechanismThatCannotBeAssembledIsSaidAndThePreviousRunKept) {
    auto good = engine::io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/four_bar.json");
    auto bad = engine::io::loadSceneFile(MOTUS_SOURCE_DIR "/tests/app/data/cannot_assemble.json");
    ASSERT_TRUE(good.scene && bad.scene);
    SimulationSession session;
    EXPECT_TRUE(session.start(*good.scene).empty());
    const auto model = session.snapshot()->model;
    const engine::Diagnostics problems = session.start(*bad.scene);
    ASSERT_FALSE(problems.empty());
    EXPECT_NE(problems.back().message.find("cannot start"), std::string::npos)
        << problems.back().message;
    EXPECT_EQ(session.snapshot()->model, model);
}

}  // namespace
}  // namespace ui
