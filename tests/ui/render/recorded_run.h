#pragma once
// A run of an example scene recorded through the runtime, as the GUI and `motus-cli simulate`
// record it, for the video tests.

#include <chrono>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "engine/io/scene_json.h"
#include "engine/model/model.h"
#include "engine/runtime/simulator.h"

namespace ui::testing {

struct RecordedRun {
    engine::SceneSpec spec;
    std::shared_ptr<const engine::Model> model;
    std::unique_ptr<engine::Simulator> simulator;  // stopped; holds the recording
    const engine::Recording& recording() const { return simulator->recording(); }
};

// scenes/<name>.json run for `seconds`, a frame every `outputInterval` seconds.
inline RecordedRun recordExample(const std::string& name, double seconds, double outputInterval) {
    RecordedRun run;
    engine::io::SceneLoadResult loaded =
        engine::io::loadSceneFile(std::string(MOTUS_SOURCE_DIR) + "/scenes/" + name + ".json");
    EXPECT_TRUE(loaded.scene.has_value()) << name;
    if (!loaded.scene) return run;
    run.spec = *loaded.scene;
    run.spec.settings.outputInterval = outputInterval;
    run.model = engine::compile(run.spec).model;
    EXPECT_TRUE(run.model) << name;
    if (!run.model) return run;
    run.simulator = std::make_unique<engine::Simulator>(run.model);
    run.simulator->runTo(seconds);
    while (!run.simulator->waitUntilIdle(std::chrono::milliseconds(50))) {
    }
    run.simulator->stop();
    return run;
}

}  // namespace ui::testing
