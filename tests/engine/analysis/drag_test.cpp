#include "engine/analysis/drag.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/analysis/outputs.h"
#include "engine/analysis/statics.h"
#include "tests/support/mechanisms.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

// The largest joint gap of `state` (m for points, rad for axes).
double jointGap(const Model& model, const State& state) {
    Workspace ws;
    EXPECT_TRUE(prepareWorkspace(model, state, ws).ok);
    Outputs out;
    EXPECT_TRUE(computeOutputs(model, state, ws, out).ok);
    return out.constraintError;
}

// `X` turned by `angle` about the axis through `centre` along `axis`.
Transform turned(const Transform& X, const Vec3& centre, const Vec3& axis, double angle) {
    const Quat R(Eigen::AngleAxisd(angle, axis.normalized()));
    return {(R * X.R).normalized(), centre + R * (X.p - centre)};
}

double angleBetween(const Quat& a, const Quat& b) {
    return 2.0 * std::asin(std::min(1.0, (a.conjugate() * b).vec().norm()));
}

struct FourBar : ::testing::Test {
    SceneSpec spec = test::fourBar(IntegratorType::RungeKutta4, 1e-3);
    std::shared_ptr<const Model> model = test::compiled(spec);
    State start = assemble(*model, initialState(*model)).state;
};

TEST_F(FourBar, TurningTheCrankCarriesTheLoopRoundWithEveryJointClosed) {
    DragAssembly drag(*model, start, 1);
    ASSERT_TRUE(drag.ok()) << drag.status().message;
    const Transform crank0 = partPoses(*model, start)[1];
    // A full turn in 2° drag events, as a mouse gives them: the crank-rocker's crank turns
    // all the way round and the rocker rocks.
    double rockerMin = 10.0, rockerMax = -10.0;
    for (int k = 1; k <= 180; ++k) {
        const Transform target = turned(crank0, Vec3::Zero(), Vec3::UnitY(), degToRad(2.0 * k));
        const DragResult r = drag.moveTo(target);
        ASSERT_TRUE(r.status.ok) << "event " << k << ": " << r.status.message;
        EXPECT_EQ(r.followed, 1.0);
        EXPECT_LT(jointGap(*model, drag.state()), 1e-10) << "event " << k;
        // The crank is where it was dragged to (its pivot allows that pose exactly); the
        // others gave way.
        EXPECT_LT((drag.draggedPose().p - target.p).norm(), 1e-6) << "event " << k;
        EXPECT_LT(angleBetween(drag.draggedPose().R, target.R), 1e-6) << "event " << k;
        const Vec3 rockerAxis = drag.partPoses()[3].R * Vec3::UnitX();
        const double rocker = std::atan2(rockerAxis.z(), rockerAxis.x());
        rockerMin = std::min(rockerMin, rocker);
        rockerMax = std::max(rockerMax, rocker);
    }
    EXPECT_GT(rockerMax - rockerMin, 0.3);  // the rocker swung, it did not spin
    EXPECT_LT(rockerMax - rockerMin, kPi);
    // The ground never moves.
    EXPECT_LT((drag.partPoses()[0].p - spec.parts[0].X_WP.p).norm(), 1e-15);
}

TEST_F(FourBar, APinnedCrankTurnsTowardsADragItsPivotForbids) {
    DragAssembly drag(*model, start, 1);
    const Transform crank0 = partPoses(*model, start)[1];
    Transform target = crank0;
    target.p += Vec3(0.0, 0.0, 0.03);  // straight up: the pivot at A forbids translation
    const DragResult r = drag.moveTo(target);
    ASSERT_TRUE(r.status.ok) << r.status.message;
    EXPECT_LT(jointGap(*model, drag.state()), 1e-10);
    // The crank's pivot end stays on A; its centre went up as far as turning allows.
    const Transform crank = drag.draggedPose();
    EXPECT_LT((crank * Vec3(-0.05, 0.0, 0.0)).norm(), 1e-10);
    EXPECT_GT(crank.p.z(), crank0.p.z() + 0.005);
}

// A turn weighs the orientation: the crank turned about its middle turns about its pivot by
// the angle asked. A move weighs the position: the crank dragged by its middle swings round
// its pivot towards the pointer.
TEST_F(FourBar, ATurnKeepsTheAngleAndAMoveKeepsThePosition) {
    const Transform crank0 = partPoses(*model, start)[1];
    DragAssembly turn(*model, start, 1, DragKind::Turn);
    for (int k = 1; k <= 30; ++k) {
        const Transform target = turned(crank0, crank0.p, Vec3::UnitY(), degToRad(2.0 * k));
        const DragResult r = turn.moveTo(target);
        ASSERT_TRUE(r.status.ok && r.followed == 1.0) << "event " << k << ": " << r.status.message;
        EXPECT_LT(jointGap(*model, turn.state()), 1e-10);
        EXPECT_LT(angleBetween(turn.draggedPose().R, target.R), 1e-8) << "event " << k;
        EXPECT_LT((turn.draggedPose() * Vec3(-0.05, 0.0, 0.0)).norm(), 1e-10);  // on its pivot
    }
    DragAssembly move(*model, start, 1, DragKind::Move);
    const Vec3 pointer(0.0, 0.0, 0.05);  // straight above the pivot, as far as the centre is
    for (int k = 1; k <= 20; ++k) {
        Transform target = crank0;
        target.p = crank0.p + (pointer - crank0.p) * (k / 20.0);
        const DragResult r = move.moveTo(target);
        ASSERT_TRUE(r.status.ok) << "event " << k << ": " << r.status.message;
        EXPECT_LT(jointGap(*model, move.state()), 1e-10);
    }
    EXPECT_LT((move.draggedPose().p - pointer).norm(), 1e-6);
}

TEST_F(FourBar, TheRockerStopsAtTheLastConsistentPoseBeyondItsReach) {
    DragAssembly drag(*model, start, 3);
    ASSERT_TRUE(drag.ok());
    const Transform rocker0 = partPoses(*model, start)[3];
    const Vec3 D(0.4, 0.0, 0.0);
    // Swing the rocker round its pivot D in 3° steps, half a turn: a crank-rocker's rocker
    // cannot go round, so the drag must stop somewhere, closed, and stay there.
    int stopped = 0;
    Transform last = rocker0;
    for (int k = 1; k <= 60; ++k) {
        const DragResult r = drag.moveTo(turned(rocker0, D, Vec3::UnitY(), degToRad(-3.0 * k)));
        EXPECT_LT(jointGap(*model, drag.state()), 1e-10) << "event " << k;
        if (!r.status.ok || r.followed < 1.0) ++stopped;
        if (!r.status.ok) {
            // Nothing moved.
            EXPECT_LT((drag.draggedPose().p - last.p).norm(), 1e-15);
        }
        last = drag.draggedPose();
    }
    EXPECT_GT(stopped, 0);
    // The rocker's far end stayed on the coupler's reach: |C − B| = 0.4 (the loop closed).
    const auto poses = drag.partPoses();
    const Vec3 B = poses[1] * Vec3(0.05, 0.0, 0.0), C = poses[3] * Vec3(0.15, 0.0, 0.0);
    const Vec3 C2 = poses[3] * Vec3(-0.15, 0.0, 0.0);
    EXPECT_TRUE(std::abs((C - B).norm() - 0.4) < 1e-9 || std::abs((C2 - B).norm() - 0.4) < 1e-9);
}

TEST(Drag, AGroundPartCannotBeDraggedAndADrivenPartStaysOnItsDriver) {
    SceneSpec spec = test::chain(2, IntegratorType::RungeKutta4, 1e-3);
    // The first link driven at 30° about its hinge.
    spec.motions.emplace_back();
    MotionSpec& motion = spec.motions.back();
    motion.id = spec.newId();
    motion.name = "drive";
    motion.joint = spec.joints.front().name;
    motion.expression = "30d";
    const auto model = test::compiled(spec);
    const StaticResult assembled = assemble(*model, initialState(*model));
    ASSERT_TRUE(assembled.status.ok) << assembled.status.message;
    EXPECT_FALSE(DragAssembly(*model, assembled.state, 0).ok());

    const Transform link0 = partPoses(*model, assembled.state)[1];
    DragAssembly drag(*model, assembled.state, 1);
    ASSERT_TRUE(drag.ok()) << drag.status().message;
    const DragResult r = drag.moveTo(turned(link0, Vec3::Zero(), Vec3::UnitY(), 0.4));
    EXPECT_LT(jointGap(*model, drag.state()), 1e-10);
    // Held by its driver: it does not turn, whatever the drag asks.
    EXPECT_LT(angleBetween(drag.draggedPose().R, link0.R), 1e-9) << r.status.message;
    EXPECT_LT((drag.draggedPose().p - link0.p).norm(), 1e-10);
}

}  // namespace
}  // namespace engine
