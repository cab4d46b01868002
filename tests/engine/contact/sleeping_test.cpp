// Sleeping parts (ContactSettings::sleepTime): a settled pile falls asleep with the figures it
// had awake, costs no contact solve while it sleeps, wakes where a moving part reaches it and
// only there, and a run resumed from any of its states sleeps and wakes at the same steps.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/analysis/forward_dynamics.h"
#include "engine/model/layout.h"
#include "tests/support/contact_scenes.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

constexpr double g = 9.81;

struct Pile : test::Stepping {
    using Stepping::Stepping;
    int asleep() const {
        const std::vector<double>& rest = fd.state().rest;
        return static_cast<int>(
            std::count_if(rest.begin(), rest.end(), [](double r) { return r < 0.0; }));
    }
    bool bodyAsleep(int b) const { return fd.state().rest.at(static_cast<std::size_t>(b)) < 0.0; }
};

SceneSpec sleepingPile(int count, double sleepTime = 0.3) {
    SceneSpec spec = test::boxPile(count);
    spec.contact.sleepTime = sleepTime;
    return spec;
}

double totalNormalForce(const Outputs& out) {
    double f = 0.0;
    for (const ContactForce& c : out.contacts)
        if (c.partA == 0 || c.partB == 0) f += c.normalForce;  // on the ground (part 0)
    return f;
}

// pile-100 asleep and awake at 2 s: every box asleep, posed within a micrometre of the awake
// run's, the ground carrying the pile's weight through the same contacts with the same forces.
TEST(Sleeping, ASettledPileFallsAsleepWithTheFiguresItHadAwake) {
    Pile awake(test::boxPile(100)), sleeping(sleepingPile(100));
    ASSERT_TRUE(awake.to(2.0));
    ASSERT_TRUE(sleeping.to(2.0));
    EXPECT_EQ(sleeping.asleep(), 100);
    EXPECT_TRUE(awake.fd.state().rest.empty());
    double apart = 0.0;
    for (int b = 0; b < 100; ++b)
        apart = std::max(
            apart,
            (bodyPosition(awake.fd.state().q, b) - bodyPosition(sleeping.fd.state().q, b)).norm());
    EXPECT_LT(apart, 1e-6);
    EXPECT_EQ(sleeping.fd.state().v.cwiseAbs().maxCoeff(), 0.0);
    const Outputs a = awake.outputs(), s = sleeping.outputs();
    EXPECT_EQ(a.contacts.size(), s.contacts.size());
    // (asleep: the forces of the step it fell asleep at, within the solver's tolerance)
    EXPECT_NEAR(totalNormalForce(a), 100 * g, 1e-5 * 100 * g);
    EXPECT_NEAR(totalNormalForce(s), 100 * g, 1e-5 * 100 * g);
    double deepest = 0.0;
    for (const ContactForce& c : s.contacts) deepest = std::max(deepest, c.depth);
    EXPECT_LT(deepest, 5e-5);
    EXPECT_GT(deepest, 0.0);
    // The energy the pile had when it fell asleep (what the solver's tolerance left) is
    // counted as dissipated: the balance holds as it does awake.
    const auto balance = [](const Outputs& o) {
        return o.energies.kinetic + o.energies.gravitational + o.energies.dissipated -
               o.energies.driverWork;
    };
    EXPECT_NEAR(balance(s), balance(a), 1e-6);
    std::printf(
        "pile-100 at 2 s: %d of 100 asleep, %.2g m from the awake run, ground load "
        "%.9g N (awake %.9g)\n",
        sleeping.asleep(), apart, totalNormalForce(s), totalNormalForce(a));
}

// A ball dropped on the middle column of a sleeping pile-100 (5 × 5 columns of four): the
// column it lands on wakes, the 24 others sleep on; once it has settled, all sleep again.
TEST(Sleeping, ABallDroppedOnASleepingPileWakesTheColumnItReachesAndOnlyThat) {
    SceneSpec spec = sleepingPile(100, 0.2);
    // Over the middle column (x = y = 0), whose top face settles at 4 × 0.1 = 0.4 m: the
    // ball falls 1.27 m, landing at t ≈ 0.51 s at about 5 m/s.
    test::addBall(spec, "ball", 0.03, Vec3(0.0, 0.0, 0.44 + 0.03 + 1.2), 0.05);
    Pile run(spec);
    const int ball = 100;
    const auto column = [](int b) { return b % 25 == 12; };  // the middle column's boxes
    // Before the ball arrives, every box is asleep.
    ASSERT_TRUE(run.to(0.45));
    EXPECT_EQ(run.asleep(), 100);
    EXPECT_FALSE(run.bodyAsleep(ball));
    // Watched step by step until the ball has woken something.
    std::set<int> woken;
    for (double t = 0.45; t < 0.6 && woken.empty(); t += 1e-3) {
        ASSERT_TRUE(run.to(t + 1e-3));
        for (int b = 0; b < 100; ++b)
            if (!run.bodyAsleep(b)) woken.insert(b);
    }
    ASSERT_FALSE(woken.empty()) << "the ball never reached the pile";
    EXPECT_EQ(woken.size(), 4u);
    for (const int b : woken) EXPECT_TRUE(column(b)) << "box " << b << " woke";
    // The column carries the ball, and the pile sleeps again with it.
    ASSERT_TRUE(run.to(2.5));
    EXPECT_EQ(run.asleep(), 101);
    EXPECT_NEAR(bodyPosition(run.fd.state().q, ball).z(), 0.4 + 0.03, 1e-4);
}

// A run resumed from a state of the first sleeps and wakes at the same steps: the same run bit
// for bit. States every 20 ms from 0.2 s (the columns falling asleep one by one, then all
// asleep, then the ball's column woken) to 0.6 s.
TEST(Sleeping, ARunResumedFromAnyOfItsStatesSleepsAndWakesAtTheSameSteps) {
    SceneSpec spec = sleepingPile(100, 0.2);
    test::addBall(spec, "ball", 0.03, Vec3(0.0, 0.0, 0.44 + 0.03 + 1.2), 0.05);
    Pile first(spec);
    std::vector<State> states;
    for (int k = 10; k <= 30; ++k) {
        ASSERT_TRUE(first.to(0.02 * k));
        states.push_back(first.fd.state());
    }
    ASSERT_TRUE(first.to(1.2));
    std::set<long> asleepCounts;
    for (const State& from : states) {
        asleepCounts.insert(
            std::count_if(from.rest.begin(), from.rest.end(), [](double r) { return r < 0.0; }));
        ForwardDynamics again(test::compiled(spec));
        ASSERT_TRUE(again.resume(from).ok);
        ASSERT_TRUE(again.advance(1.2).ok);
        EXPECT_TRUE(again.state().q == first.fd.state().q) << "resumed at t = " << from.t;
        EXPECT_TRUE(again.state().v == first.fd.state().v) << "resumed at t = " << from.t;
        EXPECT_EQ(again.state().rest, first.fd.state().rest) << "resumed at t = " << from.t;
        EXPECT_EQ(again.state().dissipatedEnergy, first.fd.state().dissipatedEnergy);
    }
    EXPECT_GT(asleepCounts.size(), 2u);  // (resumed with none, some and all asleep)
}

// A pendulum hanging at rest by the pile never sleeps (a part on a joint), nor does a box a
// spring holds; the boxes resting beside them do.
TEST(Sleeping, PartsOnJointsOrForceElementsNeverSleep) {
    SceneSpec spec = sleepingPile(4, 0.2);  // four boxes on the ground
    Part& held = test::addBox(spec, "held", Vec3::Constant(0.1), Transform{}, 1.0);
    held.X_WP.p = Vec3(1.0, 0.0, 0.05);
    Marker top;
    top.id = spec.newId();
    top.name = "top";
    top.X_PM.p = Vec3(0.0, 0.0, 0.05);
    held.markers.push_back(top);
    Marker anchor;
    anchor.id = spec.newId();
    anchor.name = "anchor";
    anchor.X_PM.p = Vec3(1.0, 0.0, 0.1);
    spec.parts.front().markers.push_back(anchor);
    ForceSpec spring;
    spring.id = spec.newId();
    spring.name = "spring";
    spring.type = ForceType::SpringDamper;
    spring.markerI = {"ground", "anchor"};
    spring.markerJ = {"held", "top"};
    spring.stiffness = 10.0;
    spring.damping = 1.0;
    spring.freeLength = 0.0;
    spec.forces.push_back(spring);
    Pile run(spec);
    ASSERT_TRUE(run.to(1.5));
    for (int b = 0; b < 4; ++b) EXPECT_TRUE(run.bodyAsleep(b)) << b;
    EXPECT_FALSE(run.bodyAsleep(4));
    EXPECT_GT(run.fd.state().rest[4], -1.0);
}

// A sleeping pile beside a ball rolling past it on the floor: while the ball rolls, the step
// leaves the sleeping boxes out (no free velocity, no motion, their frames as they were) and
// each stays where it fell asleep to the last bit, at rest; the ball rolls on as it would
// without them (its speed kept: no rolling resistance), and the pile's contacts are reported
// with the forces they had.
TEST(Sleeping, SleepingPartsStayWhereTheyFellAsleepToTheLastBitWhileOthersMove) {
    SceneSpec spec = sleepingPile(25, 0.2);
    test::addBall(spec, "ball", 0.05, Vec3(-1.5, 1.0, 0.05), 1.0, 0.5);
    spec.parts.back().v_WPo_W = Vec3(1.0, 0.0, 0.0);
    spec.parts.back().w_WP_W = Vec3(0.0, 1.0 / 0.05, 0.0);  // rolling: v = ω r
    Pile run(spec);
    const int ball = 25;
    ASSERT_TRUE(run.to(1.0));
    ASSERT_EQ(run.asleep(), 25);
    ASSERT_FALSE(run.bodyAsleep(ball));
    const Eigen::VectorXd q = run.fd.state().q;
    // (the boxes' load on the ground, part 0: the ball is part 26, after the 25 boxes)
    const auto pileLoad = [](const Outputs& out) {
        double f = 0.0;
        for (const ContactForce& c : out.contacts)
            if ((c.partA == 0 || c.partB == 0) && c.partA != 26 && c.partB != 26)
                f += c.normalForce;
        return f;
    };
    const double load = pileLoad(run.outputs());
    EXPECT_NEAR(load, 25 * g, 1e-5 * 25 * g);  // (the boxes' weight: 1 kg each)
    for (int k = 1; k <= 5; ++k) {
        ASSERT_TRUE(run.to(1.0 + 0.1 * k));
        ASSERT_EQ(run.asleep(), 25);
        for (int b = 0; b < 25; ++b) {
            EXPECT_TRUE(layout::pose(run.fd.state().q, b) == layout::pose(q, b)) << "box " << b;
            EXPECT_TRUE(layout::twist(run.fd.state().v, b).isZero(0.0)) << "box " << b;
        }
        EXPECT_EQ(pileLoad(run.outputs()), load);
    }
    // The ball rolled half a metre in the half second, at its speed.
    const double rolled = bodyPosition(run.fd.state().q, ball).x() - bodyPosition(q, ball).x();
    EXPECT_NEAR(rolled, 0.5, 1e-3);
    EXPECT_NEAR(layout::linear(run.fd.state().v, ball).x(), 1.0, 1e-3);
}

// Sleeping parts wake when asked (ForwardDynamics::wake) and go on from where they slept.
TEST(Sleeping, WakingAllPartsGoesOnFromWhereTheySlept) {
    Pile run(sleepingPile(25, 0.2));
    ASSERT_TRUE(run.to(1.0));
    ASSERT_EQ(run.asleep(), 25);
    const Eigen::VectorXd q = run.fd.state().q;
    run.fd.wake();
    EXPECT_EQ(run.asleep(), 0);
    ASSERT_TRUE(run.to(1.1));
    double moved = 0.0;
    for (int b = 0; b < 25; ++b)
        moved = std::max(moved, (bodyPosition(run.fd.state().q, b) - bodyPosition(q, b)).norm());
    EXPECT_LT(moved, 1e-6);
    ASSERT_TRUE(run.to(1.5));
    EXPECT_EQ(run.asleep(), 25);
}

TEST(Sleeping, ASleepSpeedThatIsNotPositiveIsRefused) {
    SceneSpec spec = sleepingPile(1);
    spec.contact.sleepSpeed = 0.0;
    const CompileResult r = compile(spec);
    EXPECT_FALSE(r.model);
    bool said = false;
    for (const Diagnostic& d : r.diagnostics) said = said || d.where == "/contact/sleepSpeed";
    EXPECT_TRUE(said);
    spec.contact.sleepSpeed = 1e-3;
    spec.contact.sleepTime = -1.0;
    const CompileResult negative = compile(spec);
    EXPECT_FALSE(negative.model);
}

}  // namespace
}  // namespace engine
