// The whole-state passes every step makes, shared out on the engine's threads for many bodies
// (allFiniteOnThreads, normaliseQuaternions): the same answers, bit for bit, on any threads.

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "engine/dynamics/dynamics.h"
#include "engine/kinematics/retract.h"
#include "engine/math/finite.h"
#include "engine/model/layout.h"
#include "engine/solver/worker_pool.h"
#include "tests/support/contact_scenes.h"
#include "tests/support/worker_threads.h"

namespace engine {
namespace {

using Threads = test::WorkerThreads;

TEST(StateChecks, ANonFiniteEntryAnywhereInALongStateIsFoundOnAnyThreads) {
    // 100,003 entries: blocks of 4,096 on the threads, the last one short.
    const Eigen::Index n = 100'003;
    for (const int threads : {1, 2, 3}) {
        const Threads here(threads);
        Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(n, -1e300, 1e300);
        EXPECT_TRUE(allFiniteOnThreads(x)) << threads;
        for (const double bad :
             {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
              -std::numeric_limits<double>::infinity()})
            for (const Eigen::Index at : {Eigen::Index{0}, Eigen::Index{4095}, Eigen::Index{4096},
                                          Eigen::Index{65'537}, n - 1}) {
                const double kept = x(at);
                x(at) = bad;
                EXPECT_FALSE(allFiniteOnThreads(x)) << bad << " at " << at << ", " << threads;
                x(at) = kept;
            }
        EXPECT_TRUE(allFiniteOnThreads(x)) << threads;
        EXPECT_TRUE(allFiniteOnThreads(Eigen::VectorXd()));
        Eigen::VectorXd shortOne = Eigen::VectorXd::Ones(7);
        shortOne(3) = std::numeric_limits<double>::quiet_NaN();
        EXPECT_FALSE(allFiniteOnThreads(shortOne));
    }
}

TEST(StateChecks, QuaternionsOfThousandsOfBodiesAreNormalisedAsOneByOneOnAnyThreads) {
    const CompileResult compiled = compile(test::scatter(6000));
    ASSERT_TRUE(compiled.model);
    const Model& model = *compiled.model;
    ASSERT_EQ(model.bodyCount(), 6000);
    // Each body's quaternion scaled off unit length by its own factor.
    Eigen::VectorXd q(7 * model.bodyCount());
    for (int b = 0; b < model.bodyCount(); ++b) {
        layout::position(q, b) = Vec3(b, -b, 0.5 * b);
        const double s = 1.0 + 1e-6 * (b % 97) - 3e-7 * (b % 13);
        layout::orientation(q, b) =
            s * Quat(Eigen::AngleAxisd(0.001 * b, Vec3(1.0, 0.3 * (b % 5), -0.2).normalized()))
                    .coeffs();
    }
    Eigen::VectorXd expected = q;
    for (int b = 0; b < model.bodyCount(); ++b) layout::orientation(expected, b).normalize();
    for (const int threads : {1, 2, 3}) {
        const Threads here(threads);
        Eigen::VectorXd got = q;
        normaliseQuaternions(model, got);
        EXPECT_EQ(got, expected) << threads << " threads";  // (bit for bit)
    }
}

}  // namespace
}  // namespace engine
