#include "ui/render/shown_frame.h"

#include <gtest/gtest.h>

#include "engine/analysis/outputs.h"
#include "engine/analysis/statics.h"
#include "engine/state/state.h"
#include "tests/ui/render/recorded_run.h"

namespace ui {
namespace {

// The pendulum's link (part 1) in the recorded frame k.
engine::Transform recordedLinkPose(const testing::RecordedRun& run, std::size_t k) {
    engine::State state;
    engine::Outputs outputs;
    run.recording().read(k, state, outputs);
    return engine::partPoses(*run.model, state)[1];
}

TEST(ShownFrame, IsTheRecordedFrameExactlyAtItsTime) {
    const testing::RecordedRun run = testing::recordExample("pendulum", 0.1, 0.01);
    ASSERT_GE(run.recording().size(), 11u);
    for (std::size_t k : {std::size_t(0), std::size_t(4), run.recording().size() - 1}) {
        const ShownFrame shown = shownFrameAt(*run.model, run.recording(), run.recording().time(k));
        const engine::Transform expected = recordedLinkPose(run, k);
        ASSERT_EQ(shown.partPoses.size(), run.spec.parts.size());
        EXPECT_EQ(shown.partPoses[1].p, expected.p) << "frame " << k;
        EXPECT_EQ(shown.partPoses[1].R.coeffs(), expected.R.coeffs()) << "frame " << k;
    }
}

TEST(ShownFrame, InterpolatesPositionAndRotationBetweenRecordedFrames) {
    // A quarter of the way from the frame at 0.05 s to the one at 0.06 s: the position a
    // quarter along the chord, the rotation a quarter of the relative turn.
    const testing::RecordedRun run = testing::recordExample("pendulum", 0.1, 0.01);
    const std::size_t k = 5;
    const double t0 = run.recording().time(k), t1 = run.recording().time(k + 1);
    const ShownFrame shown = shownFrameAt(*run.model, run.recording(), t0 + 0.25 * (t1 - t0));
    const engine::Transform X0 = recordedLinkPose(run, k), X1 = recordedLinkPose(run, k + 1);
    EXPECT_NEAR((shown.partPoses[1].p - (0.75 * X0.p + 0.25 * X1.p)).norm(), 0.0, 1e-12);
    const double turn = X0.R.angularDistance(X1.R);
    ASSERT_GT(turn, 1e-3);  // the link swings between the two frames
    EXPECT_NEAR(X0.R.angularDistance(shown.partPoses[1].R), 0.25 * turn, 1e-9);
    EXPECT_NEAR(shown.partPoses[1].R.angularDistance(X1.R), 0.75 * turn, 1e-9);
}

TEST(ShownFrame, ClampsTimesOutsideTheRecordingToItsEnds) {
    const testing::RecordedRun run = testing::recordExample("pendulum", 0.05, 0.01);
    const std::size_t last = run.recording().size() - 1;
    EXPECT_EQ(shownFrameAt(*run.model, run.recording(), -1.0).partPoses[1].p,
              recordedLinkPose(run, 0).p);
    EXPECT_EQ(shownFrameAt(*run.model, run.recording(), 9.0).partPoses[1].p,
              recordedLinkPose(run, last).p);
}

}  // namespace
}  // namespace ui
