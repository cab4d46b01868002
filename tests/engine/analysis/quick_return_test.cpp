// A pin in a slot: the crank-and-slotted-lever quick-return mechanism (scenes/quick_return.json)
// against its closed form. The lever swings to π/2 ± β, sin β = r / d (the slot tangent to the
// crank circle), and the crank turns π + 2β for the working stroke and π − 2β for the return:
// at one turn a second, 2/3 s out and 1/3 s back for r = d / 2.

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/io/scene_json.h"
#include "engine/math/constants.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

TEST(PinInSlot, TheQuickReturnLeverSwingsToItsTangentAnglesAndReturnsTwiceAsFast) {
    const io::SceneLoadResult r = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/quick_return.json");
    ASSERT_TRUE(r.scene);
    ForwardDynamics sim(test::compiled(*r.scene));
    ASSERT_TRUE(sim.initialize().ok);
    // The lever's angle sampled every millisecond; its extremes by a parabola through the
    // three samples around each.
    const double h = 1e-3;
    std::vector<double> q;
    for (int k = 0; k <= 2500; ++k) {
        if (k > 0) {
            ASSERT_TRUE(sim.advance(h * k).ok);
        }
        q.push_back(sim.state().jointCoordinates(1));
    }
    struct Extreme {
        double t, value;
    };
    std::vector<Extreme> extremes;
    for (std::size_t k = 1; k + 1 < q.size(); ++k) {
        const double a = q[k - 1], b = q[k], c = q[k + 1];
        if ((b - a) * (c - b) >= 0.0) continue;
        const double offset = 0.5 * (a - c) / (a - 2.0 * b + c);  // in samples
        extremes.push_back({h * (static_cast<double>(k) + offset), b - 0.25 * (a - c) * offset});
    }
    ASSERT_GE(extremes.size(), 4u);
    const double beta = std::asin(0.075 / 0.15);
    for (const Extreme& e : extremes)
        EXPECT_NEAR(std::abs(e.value - kPi / 2.0), beta, 1e-6) << "t " << e.t;
    // Out (the lever's angle rising, the crank turning the positive way) and back.
    for (std::size_t k = 0; k + 1 < extremes.size(); ++k) {
        const double duration = extremes[k + 1].t - extremes[k].t;
        const bool rising = extremes[k + 1].value > extremes[k].value;
        const double expected = (kPi + (rising ? 2.0 : -2.0) * beta) / (2.0 * kPi);
        EXPECT_NEAR(duration, expected, 1e-5) << "from t " << extremes[k].t;
    }
}

}  // namespace
}  // namespace engine
