// Contact dynamics against analytic results: resting, stacking, sticking and sliding on an
// incline, rolling, stopping by friction, elastic impacts (Newton's cradle), a cam.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "engine/analysis/forward_dynamics.h"
#include "engine/contact/contact_solver.h"
#include "engine/math/constants.h"
#include "engine/solver/worker_pool.h"
#include "tests/support/contact_scenes.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

constexpr double g = 9.81;

struct Sim : test::Stepping {
    using Stepping::Stepping;
    Vec3 position(int body) const { return bodyPosition(fd.state().q, body); }
    Vec3 velocity(int body) const { return layout::linear(fd.state().v, body); }
    Vec3 angularVelocity(int body) const { return layout::angular(fd.state().v, body); }
    double maxSpeed() const {
        double s = 0.0;
        for (int b = 0; b < fd.model().bodyCount(); ++b) s = std::max(s, velocity(b).norm());
        return s;
    }
};

double maxDepth(const Outputs& out) {
    double d = 0.0;
    for (const ContactForce& c : out.contacts) d = std::max(d, c.depth);
    return d;
}

TEST(ContactDynamics, BoxRestsOnTheGroundCarryingItsWeight) {
    SceneSpec spec = test::contactScene();
    Transform X;
    X.p = Vec3(0.0, 0.0, 0.052);  // dropped from 2 mm
    test::addBox(spec, "box", Vec3(0.2, 0.1, 0.1), X, 2.0);
    Sim run(spec);
    ASSERT_TRUE(run.to(1.0));
    EXPECT_LT(run.maxSpeed(), 1e-3);
    const Outputs out = run.outputs();
    ASSERT_GE(out.contacts.size(), 4u);
    EXPECT_LT(maxDepth(out), 1e-3);
    double normal = 0.0;
    for (const ContactForce& c : out.contacts) normal += c.normalForce * c.normal_W.z();
    EXPECT_NEAR(normal, 2.0 * g, 0.01 * 2.0 * g);
    EXPECT_TRUE(out.contactSolver.converged);
    EXPECT_NEAR(run.position(0).z(), 0.05, 1e-3);
}

// A penetration is pushed out by the positions at a fifth of its depth a step, but no faster
// than the scene's pushSpeed: two boxes weightless and 5 cm into each other (a fifth a
// millisecond: 10 m/s) come apart at 0.5 m/s, 0.5 mm a step, and keep no velocity; 30 boxes
// started in one place on the floor come apart into a heap no faster than a fall from it (at
// 20 m/s, flying off 20 m high, when pushed out at a fifth of their overlap).
TEST(ContactDynamics, PartsStartedInsideOneAnotherComeApartAtThePushSpeed) {
    {
        SceneSpec spec = test::contactScene();
        spec.gravity = Vec3::Zero();
        spec.contact.pushSpeed = 0.5;
        Transform X;
        X.p = Vec3(0.0, 0.0, 1.0);
        test::addBox(spec, "left", Vec3::Constant(0.1), X);
        X.p.x() = 0.05;
        test::addBox(spec, "right", Vec3::Constant(0.1), X);
        Sim run(spec);
        for (int step = 1; step <= 20; ++step) {
            ASSERT_TRUE(run.to(1e-3 * step));
            EXPECT_NEAR(run.position(1).x() - run.position(0).x(), 0.05 + 5e-4 * step, 1e-6)
                << step;
        }
        EXPECT_LT(run.maxSpeed(), 1e-9);
    }
    SceneSpec spec = test::contactScene();
    for (int k = 0; k < 30; ++k) {
        Transform X;
        X.p = Vec3(0.001 * (k % 7), 0.001 * (k % 5), 0.06 + 0.0005 * k);
        test::addBox(spec, "box" + std::to_string(k), Vec3::Constant(0.1), X);
    }
    Sim run(spec);
    double fastest = 0.0, highest = 0.0;
    for (int sample = 1; sample <= 40; ++sample) {
        ASSERT_TRUE(run.to(0.01 * sample));
        fastest = std::max(fastest, run.maxSpeed());
        for (int b = 0; b < 30; ++b) highest = std::max(highest, run.position(b).z());
    }
    EXPECT_LT(fastest, 4.0);  // (a fall of 0.8 m)
    EXPECT_LT(highest, 0.8);
    EXPECT_GT(highest, 0.3);  // (a heap, some three boxes high)
}

// Turned by `angle` about the y axis.
Quat aboutY(double angle) {
    return Quat(Eigen::AngleAxisd(angle, Vec3::UnitY()));
}

TEST(ContactDynamics, StackOfTenBoxesStandsForTenSeconds) {
    SceneSpec spec = test::contactScene();
    for (int k = 0; k < 10; ++k) {
        Transform X;
        X.p = Vec3(0.0, 0.0, 0.05 + 0.1 * k);
        test::addBox(spec, "box" + std::to_string(k), Vec3::Constant(0.1), X);
    }
    Sim run(spec);
    const Vec3 top0 = run.position(9);
    ASSERT_TRUE(run.to(10.0));
    EXPECT_LT((run.position(9) - top0).norm(), 0.01);
    EXPECT_LT(run.maxSpeed(), 1e-3);
}

// A column of sixteen cubes dropped 1 cm each (pile-400's column): the contact solve's coarse
// corrections carry the weight down the column, so the solve converges and the column comes to
// rest, each face carrying the weight above it — Gauss–Seidel alone needs about k² sweeps for
// k parts and ended most steps at its 100 sweeps unconverged, the column trembling at 1e-3 m/s.
// At the default tolerance (a sweep changing no velocity by more than 1e-6 m/s) the column's
// slowest mode may keep 3e-4 of the load; at 1e-9 m/s, 1e-6 of it.
TEST(ContactDynamics, ASixteenCubeColumnComesToRestCarryingItsWeightFaceByFace) {
    const int count = 16;
    for (const double tolerance : {1e-6, 1e-9}) {
        SceneSpec spec = test::boxStack(count);
        spec.contact.tolerance = tolerance;
        Sim run(spec);
        ASSERT_TRUE(run.to(3.0));
        EXPECT_LT(run.maxSpeed(), 1e-5);
        const Outputs out = run.outputs();
        EXPECT_TRUE(out.contactSolver.converged);
        // of 3000 steps (the first impacts)
        EXPECT_LT(out.contactSolver.unconvergedSteps, tolerance < 1e-6 ? 150 : 30);
        // Part k + 1 is box k (part 0 the ground): the face under box k carries (count − k) m g.
        std::vector<double> carried(static_cast<std::size_t>(count), 0.0);
        for (const ContactForce& c : out.contacts)
            carried[static_cast<std::size_t>(std::max(c.partA, c.partB) - 1)] += c.normalForce;
        const double share = tolerance < 1e-6 ? 1e-6 : 3e-4;
        for (int k = 0; k < count; ++k)
            EXPECT_NEAR(carried[static_cast<std::size_t>(k)], (count - k) * g, share * count * g)
                << "face under box " << k << ", tolerance " << tolerance;
        EXPECT_LT(maxDepth(out), 2e-5);
        for (int k = 0; k < count; ++k)
            EXPECT_LT((run.position(k) - spec.parts[static_cast<std::size_t>(k) + 1].X_WP.p)
                          .head<2>()
                          .norm(),
                      1e-3);
    }
}

// A column of forty cubes (4.4 m of 0.1 m cubes) dropped 1 cm each stands still and upright. Its
// corners sink past the slop now and then, and the stabilisation pushes them out; pushed out at
// the velocity level, that push stayed in the parts' velocities, tilted the column a little each
// time and rocked it ever more: from about 1.4 s every step ended at the sweep limit and the top
// moved at 6e-2 m/s by 3 s. The push-out now moves the positions only (ContactRows::bias: split
// stabilisation), and the column stays as still as the sixteen-cube one.
TEST(ContactDynamics, AFortyCubeColumnStaysStillAndUprightOnceLanded) {
    const int count = 40;
    const SceneSpec spec = test::boxStack(count);
    Sim run(spec);
    ASSERT_TRUE(run.to(1.0));
    const long unconvergedLanding = run.outputs().contactSolver.unconvergedSteps;
    double fastest = 0.0, deepest = 0.0;
    for (int k = 1; k <= 20; ++k) {
        ASSERT_TRUE(run.to(1.0 + 0.1 * k));
        fastest = std::max(fastest, run.maxSpeed());
        deepest = std::max(deepest, maxDepth(run.outputs()));
    }
    EXPECT_LT(fastest, 1e-3);
    EXPECT_LT(deepest, 2e-5);
    const Outputs out = run.outputs();
    // of the 2000 steps after landing (with the push-out in the velocities: some 1,560)
    EXPECT_LT(out.contactSolver.unconvergedSteps - unconvergedLanding, 100);
    for (int k = 0; k < count; ++k)
        EXPECT_LT(
            (run.position(k) - spec.parts[static_cast<std::size_t>(k) + 1].X_WP.p).head<2>().norm(),
            1e-3)
            << "box " << k;
    // Each face carries the weight above it.
    std::vector<double> carried(static_cast<std::size_t>(count), 0.0);
    for (const ContactForce& c : out.contacts)
        carried[static_cast<std::size_t>(std::max(c.partA, c.partB) - 1)] += c.normalForce;
    for (int k = 0; k < count; ++k)
        EXPECT_NEAR(carried[static_cast<std::size_t>(k)], (count - k) * g, 1e-3 * count * g)
            << "face under box " << k;
}

// The contact solve's islands (pile-400: 25 columns of sixteen, 1 600 contacts once landed)
// solved on one thread and on two: the same run bit for bit.
TEST(ContactDynamics, APileRunsTheSameBitForBitOnOneThreadAndOnTwo) {
    const test::OnOneThreadAndTwo runs = test::runOnOneThreadAndTwo(test::boxPile(400), 0.3);
    EXPECT_GT(runs.contacts, contact::kParallelContacts);
    EXPECT_TRUE(runs.one.q == runs.two.q);
    EXPECT_TRUE(runs.one.v == runs.two.v);
    EXPECT_GT(runs.one.v.cwiseAbs().maxCoeff(), 0.0);  // (moving: the layers still landing)
}

// The step's contact points lie island by island (each island's rows together, for the thread
// that solves it), each island's highest first (the first sweep carries a column's weight down
// to its base). pile-100: 25 columns of four, landed — each column's points in one run, by
// height from the top.
TEST(ContactDynamics, TheContactPointsComeIslandByIslandEachFromItsTop) {
    Sim run(test::boxPile(100));
    ASSERT_TRUE(run.to(0.5));
    const std::vector<ContactForce>& contacts = run.outputs().contacts;
    ASSERT_GE(contacts.size(), 4u * 100u);
    const auto column = [](const ContactForce& c) { return (std::max(c.partA, c.partB) - 1) % 25; };
    std::vector<char> ended(25, 0);
    for (std::size_t k = 1; k < contacts.size(); ++k) {
        const int before = column(contacts[k - 1]), now = column(contacts[k]);
        if (now == before) {
            EXPECT_GE(contacts[k - 1].point_W.z(), contacts[k].point_W.z()) << "point " << k;
            continue;
        }
        ended[static_cast<std::size_t>(before)] = 1;
        EXPECT_FALSE(ended[static_cast<std::size_t>(now)])
            << "column " << now << " again at point " << k;
    }
}

// A box on a slope of angle θ with friction μ (both materials μ, so the pair has μ).
struct Incline {
    Incline(double theta, double mu) : theta(theta) {
        SceneSpec spec = test::contactScene(1e-3, theta, mu);
        Transform X;
        X.R = aboutY(theta);
        X.p = X.R * Vec3(0.0, 0.0, 0.05);
        test::addBox(spec, "box", Vec3::Constant(0.1), X, 1.0, mu);
        run = std::make_unique<Sim>(spec);
    }
    Vec3 downSlope() const { return aboutY(theta) * Vec3::UnitX(); }
    double theta;
    std::unique_ptr<Sim> run;
};

TEST(ContactDynamics, BoxSticksOnASlopeFlatterThanItsFrictionAngle) {
    const double theta = 30.0 * kPi / 180.0;  // tan θ = 0.577 < μ = 0.7
    Incline incline(theta, 0.7);
    const Vec3 start = incline.run->position(0);
    ASSERT_TRUE(incline.run->to(1.0));
    EXPECT_LT((incline.run->position(0) - start).dot(incline.downSlope()), 1e-4);
    EXPECT_LT(incline.run->maxSpeed(), 1e-4);
}

TEST(ContactDynamics, BoxSlidesDownASteeperSlopeAtCoulombsAcceleration) {
    for (FrictionModel model : {FrictionModel::Box, FrictionModel::Cone}) {
        const double theta = 30.0 * kPi / 180.0, mu = 0.3;  // tan θ = 0.577 > μ
        SceneSpec spec = test::contactScene(1e-3, theta, mu);
        spec.contact.friction = model;
        Transform X;
        X.R = aboutY(theta);
        X.p = X.R * Vec3(0.0, 0.0, 0.05);
        test::addBox(spec, "box", Vec3::Constant(0.1), X, 1.0, mu);
        Sim run(spec);
        const Vec3 down = aboutY(theta) * Vec3::UnitX();
        ASSERT_TRUE(run.to(0.5));
        const double v1 = run.velocity(0).dot(down);
        ASSERT_TRUE(run.to(1.0));
        const double v2 = run.velocity(0).dot(down);
        const double expected = g * (std::sin(theta) - mu * std::cos(theta));
        EXPECT_NEAR((v2 - v1) / 0.5, expected, 0.02 * expected) << frictionModelName(model);
    }
}

TEST(ContactDynamics, BallRollsDownASlopeAtFiveSeventhsOfGSinTheta) {
    const double theta = 20.0 * kPi / 180.0, r = 0.05;
    SceneSpec spec = test::contactScene(1e-3, theta, 0.8);
    test::addBall(spec, "ball", r, aboutY(theta) * Vec3(0.0, 0.0, r), 1.0, 0.8);
    Sim run(spec);
    const Vec3 down = aboutY(theta) * Vec3::UnitX();
    ASSERT_TRUE(run.to(0.5));
    const double v1 = run.velocity(0).dot(down);
    ASSERT_TRUE(run.to(1.0));
    const double v2 = run.velocity(0).dot(down);
    const double expected = 5.0 / 7.0 * g * std::sin(theta);
    EXPECT_NEAR((v2 - v1) / 0.5, expected, 0.02 * expected);
    // Rolling, not slipping: the contact point is at rest, v = ω r.
    const Vec3 w = bodyOrientation(run.fd.state().q, 0) * run.angularVelocity(0);
    EXPECT_NEAR(w.norm() * r, run.velocity(0).norm(), 1e-3 * run.velocity(0).norm());
}

// A capsule or a cylinder (radius 2 cm, straight part 0.3 m, 1 kg) laid along x across a 0.2 m
// box (or a drum 0.2 m across) standing on the floor, its middle 3 cm off the support's centre,
// dropped from 1 mm: it lies level, touching the top face along the line where it crosses it
// (two points, at the face's edges or its rim, x = ±0.1: shape_pairs.h), and
// the face carries its weight by the lever rule, 0.35 mg at −0.1 and 0.65 mg at +0.1 — the
// vertical forces sum to mg and their moment about the support's centre is mg·3 cm.
void expectLaidAcrossByTheLeverRule(ShapeType type, ShapeType support) {
    SceneSpec spec = test::contactScene();
    Transform X_box;
    X_box.p = Vec3(0.0, 0.0, 0.05);
    Part& base = test::addBox(spec, "base", Vec3(0.2, 0.2, 0.1), X_box, 5.0);
    if (support == ShapeType::Cylinder) {  // a drum: its cap's rim at x = ±0.1 under the rod
        base.shapes.front().type = ShapeType::Cylinder;
        base.shapes.front().radius = 0.1;
        base.shapes.front().length = 0.1;
    }
    const double r = 0.02, length = 0.3, m = 1.0, offset = 0.03;
    Transform X_rod;
    X_rod.p = Vec3(offset, 0.0, 0.1 + r + 1e-3);
    X_rod.R = Quat(Eigen::AngleAxisd(0.5 * kPi, Vec3::UnitY()));  // its axis (z) along x
    test::addRod(spec, "rod", type, r, length, X_rod, m);
    Sim run(spec);
    const Quat start = bodyOrientation(run.fd.state().q, 1);
    ASSERT_TRUE(run.to(1.0));
    EXPECT_LT(run.maxSpeed(), 1e-3);
    const Vec3 axis = bodyOrientation(run.fd.state().q, 1) * (start.inverse() * Vec3::UnitX());
    EXPECT_LT(std::abs(axis.z()), 1e-3);  // level
    EXPECT_NEAR(run.position(1).x(), offset, 1e-3);
    const Outputs out = run.outputs();
    double lift = 0.0, moment = 0.0;
    int points = 0;
    for (const ContactForce& c : out.contacts) {
        if (c.partA != 1 || c.partB != 2) continue;
        const double up = c.normalForce * c.normal_W.z();  // on the rod (B)
        lift += up;
        moment += up * c.point_W.x();
        EXPECT_NEAR(std::abs(c.point_W.x()), 0.1, 1e-3);
        ++points;
    }
    EXPECT_GE(points, 2);
    EXPECT_NEAR(lift, m * g, 0.01 * m * g);
    EXPECT_NEAR(moment, m * g * offset, 0.02 * m * g * offset);
}

TEST(ContactDynamics, ACapsuleLaidAcrossABoxRestsLevelCarryingItsWeightByTheLeverRule) {
    expectLaidAcrossByTheLeverRule(ShapeType::Capsule, ShapeType::Box);
}

// (with Bullet's one point a query, a cylinder so laid still crept at 5 mm/s after a second)
TEST(ContactDynamics, ACylinderLaidAcrossABoxRestsLevelCarryingItsWeightByTheLeverRule) {
    expectLaidAcrossByTheLeverRule(ShapeType::Cylinder, ShapeType::Box);
}

// (on a drum's cap, with one point a query: 2 mm/s for the capsule, 9 mm/s for the cylinder)
TEST(ContactDynamics, ACapsuleLaidAcrossADrumRestsLevelCarryingItsWeightByTheLeverRule) {
    expectLaidAcrossByTheLeverRule(ShapeType::Capsule, ShapeType::Cylinder);
}

TEST(ContactDynamics, ACylinderLaidAcrossADrumRestsLevelCarryingItsWeightByTheLeverRule) {
    expectLaidAcrossByTheLeverRule(ShapeType::Cylinder, ShapeType::Cylinder);
}

// Two cylinders (radius 5 cm, 0.1 m long, 1 kg) standing one on the other on the floor, the
// upper 2 cm off the lower's axis and 1 mm above it: the column lands and stands still and
// upright, the upper's cap on the lower's carrying its weight.
TEST(ContactDynamics, ACylinderStandingOnACylinderStaysUprightAndStill) {
    SceneSpec spec = test::contactScene();
    const double r = 0.05, length = 0.1, m = 1.0;
    for (int k = 0; k < 2; ++k) {
        Transform X;
        X.p = Vec3(0.02 * k, 0.0, 0.5 * length + k * (length + 1e-3));
        test::addRod(spec, "can" + std::to_string(k), ShapeType::Cylinder, r, length, X, m);
    }
    Sim run(spec);
    const Quat start = bodyOrientation(run.fd.state().q, 1);
    ASSERT_TRUE(run.to(2.0));
    EXPECT_LT(run.maxSpeed(), 1e-3);
    EXPECT_NEAR(run.position(1).x(), 0.02, 1e-3);
    const Vec3 axis = bodyOrientation(run.fd.state().q, 1) * (start.inverse() * Vec3::UnitZ());
    EXPECT_GT(std::abs(axis.z()), 1.0 - 1e-6);
    const Outputs out = run.outputs();
    double lift = 0.0;
    for (const ContactForce& c : out.contacts)
        if (c.partA == 1 && c.partB == 2) lift += c.normalForce * c.normal_W.z();
    EXPECT_NEAR(lift, m * g, 0.01 * m * g);
}

TEST(ContactDynamics, SlidingBoxStopsAfterVSquaredOverTwoMuG) {
    const double v = 2.0, mu = 0.5;
    SceneSpec spec = test::contactScene(1e-3, 0.0, mu);
    Transform X;
    X.p = Vec3(0.0, 0.0, 0.05);
    test::addBox(spec, "box", Vec3::Constant(0.1), X, 1.0, mu).v_WPo_W = Vec3(v, 0.0, 0.0);
    Sim run(spec);
    ASSERT_TRUE(run.to(1.0));  // stops after v / (μ g) = 0.41 s
    const double expected = v * v / (2.0 * mu * g);
    EXPECT_NEAR(run.position(0).x(), expected, 0.02 * expected);
    EXPECT_LT(run.maxSpeed(), 1e-3);
}

TEST(ContactDynamics, NewtonsCradleHandsTheFirstBallsSpeedToTheLast) {
    // Five elastic balls in a row in zero gravity, 1.5 mm apart; the first comes in at 1 m/s.
    SceneSpec spec = test::contactScene();
    spec.gravity = Vec3::Zero();
    const double r = 0.05, gap = 0.0015;
    for (int k = 0; k < 5; ++k)
        test::addBall(spec, "ball" + std::to_string(k), r, Vec3(k * (2 * r + gap), 0.0, 1.0), 1.0,
                      0.0, 1.0);
    spec.parts[1].X_WP.p.x() = -0.1;
    spec.parts[1].v_WPo_W = Vec3(1.0, 0.0, 0.0);
    Sim run(spec);
    ASSERT_TRUE(run.to(0.3));
    EXPECT_NEAR(run.velocity(4).x(), 1.0, 0.05);
    double momentum = 0.0;
    for (int k = 0; k < 5; ++k) {
        momentum += run.velocity(k).x();
        if (k < 4) {
            EXPECT_LT(std::abs(run.velocity(k).x()), 0.05) << "ball " << k;
        }
    }
    EXPECT_NEAR(momentum, 1.0, 1e-9);
}

TEST(ContactDynamics, BallBouncesBackToRestitutionSquaredTimesItsHeight) {
    const double e = 0.8, r = 0.05, drop = 0.5;
    SceneSpec spec = test::contactScene(1e-4);
    test::addBall(spec, "ball", r, Vec3(0.0, 0.0, r + drop), 1.0, 0.0, e);
    Sim run(spec);
    // First impact at √(2 drop / g) = 0.319 s; apex e² drop after a further e √(2 drop/g).
    double apex = 0.0;
    for (double t = 0.33; t < 0.319 * (1.0 + 2.0 * e) - 0.01; t += 1e-3) {
        ASSERT_TRUE(run.to(t));
        apex = std::max(apex, run.position(0).z() - r);
    }
    EXPECT_NEAR(apex, e * e * drop, 0.02 * e * e * drop);
}

TEST(ContactDynamics, SoftContactSettlesAtItsStaticDeflection) {
    SceneSpec spec = test::contactScene();
    spec.contact.stiffness = 2e4;
    spec.contact.damping = 400.0;
    Transform X;
    X.p = Vec3(0.0, 0.0, 0.05);
    test::addBox(spec, "box", Vec3::Constant(0.1), X, 2.0);
    Sim run(spec);
    ASSERT_TRUE(run.to(1.0));
    // Four corner springs in parallel carry m g: the box sinks m g / (4 k)... per contact point;
    // the deflection is that of the whole face: m g / (n k) with n the contact points.
    const Outputs out = run.outputs();
    ASSERT_FALSE(out.contacts.empty());
    const double n = static_cast<double>(out.contacts.size());
    EXPECT_NEAR(0.05 - run.position(0).z(), 2.0 * g / (n * 2e4), 0.02 * 2.0 * g / (n * 2e4));
}

// Soft contact by frequency f and damping ratio ζ: a ball resting on the floor (one contact
// under its centre, effective mass m) is a mass on a spring-damper with k = m ω², c = 2 ζ m ω,
// so it sinks g / ω² whatever its mass. Released just touching, it overshoots that by
// exp(−ζπ / √(1 − ζ²)) in continuous time; the step takes the spring-damper implicitly (backward
// Euler, which damps a little more: hω/2 of damping ratio), and the run follows that recurrence.
TEST(ContactDynamics, SoftContactByFrequencySinksEveryMassAlikeAndRingsWithItsDampingRatio) {
    const double f = 10.0, omega = 2.0 * kPi * f, r = 0.05, h = 1e-3;
    const double staticDepth = g / (omega * omega);
    for (const double mass : {0.5, 20.0}) {
        for (const double zeta : {0.2, 1.0}) {
            SceneSpec spec = test::contactScene(h);
            spec.contact.frequency = f;
            spec.contact.dampingRatio = zeta;
            test::addBall(spec, "ball", r, Vec3(0.0, 0.0, r), mass);
            Sim run(spec);
            // x'' = g − ω² x − 2ζω x' by backward Euler, from rest at x = 0.
            double x = 0.0, xd = 0.0, expectedPeak = 0.0, deepest = 0.0;
            for (int n = 1; n <= 2000; ++n) {
                xd = (xd + h * g - h * omega * omega * x) /
                     (1.0 + 2.0 * zeta * omega * h + omega * omega * h * h);
                x += h * xd;
                expectedPeak = std::max(expectedPeak, x);
                ASSERT_TRUE(run.to(n * h));
                deepest = std::max(deepest, r - run.position(0).z());
            }
            SCOPED_TRACE("mass " + std::to_string(mass) + " kg, ζ = " + std::to_string(zeta));
            EXPECT_NEAR(r - run.position(0).z(), staticDepth, 1e-3 * staticDepth);
            EXPECT_NEAR(deepest, expectedPeak, 2e-3 * staticDepth);
            // Between the continuous overshoot and that of ζ + hω/2.
            auto overshoot = [](double z) {
                return z < 1.0 ? std::exp(-z * kPi / std::sqrt(1.0 - z * z)) : 0.0;
            };
            EXPECT_LE(deepest / staticDepth, 1.0 + overshoot(zeta) + 1e-3);
            EXPECT_GE(deepest / staticDepth, 1.0 + overshoot(zeta + 0.5 * omega * h) - 5e-3);
        }
    }
}

TEST(ContactDynamics, CamDrivesASpringLoadedFollowerAlongItsProfile) {
    // A disc cam of radius R, offset e from its shaft (the y axis), turning at ω; a flat-faced
    // follower on a vertical prismatic joint, pulled down by a spring. The face's height is
    // R − e sin ωt.
    const double R = 0.05, e = 0.02, omega = 2.0 * kPi;
    SceneSpec spec = test::contactScene();
    spec.parts[0].shapes.clear();  // no floor: the cam and follower only
    const Quat zAlongY(Eigen::AngleAxisd(-0.5 * kPi, Vec3::UnitX()));
    auto marker = [&](const std::string& name, const Vec3& p, const Quat& R_PM) {
        Marker m;
        m.id = spec.newId();
        m.name = name;
        m.X_PM = Transform{R_PM, p};
        return m;
    };
    spec.parts[0].markers = {marker("shaft", Vec3::Zero(), zAlongY),
                             marker("guide", Vec3(0, 0, 0.06), Quat::Identity()),
                             marker("anchor", Vec3(0, 0, -0.3), Quat::Identity())};
    Part cam;
    cam.id = spec.newId();
    cam.name = "cam";
    cam.mass = 1.0;
    Shape disc;
    disc.type = ShapeType::Cylinder;
    disc.radius = R;
    disc.length = 0.02;
    disc.X_PG = Transform{zAlongY, Vec3(e, 0.0, 0.0)};
    cam.shapes = {disc};
    cam.markers = {marker("shaft", Vec3::Zero(), zAlongY)};
    spec.parts.push_back(cam);
    Transform X;
    X.p = Vec3(0.0, 0.0, R + 0.01);
    Part& follower = test::addBox(spec, "follower", Vec3(0.08, 0.04, 0.02), X, 0.5);
    follower.markers = {marker("guide", Vec3::Zero(), Quat::Identity())};
    Joint shaft;
    shaft.id = spec.newId();
    shaft.name = "shaft";
    shaft.type = JointType::Revolute;
    shaft.markerI = {"cam", "shaft"};
    shaft.markerJ = {"ground", "shaft"};
    Joint guide = shaft;
    guide.id = spec.newId();
    guide.name = "guide";
    guide.type = JointType::Prismatic;
    guide.markerI = {"follower", "guide"};
    guide.markerJ = {"ground", "guide"};
    spec.joints = {shaft, guide};
    MotionSpec drive;
    drive.id = spec.newId();
    drive.name = "drive";
    drive.joint = "shaft";
    drive.expression = "2*pi*time";
    spec.motions = {drive};
    ForceSpec spring;
    spring.id = spec.newId();
    spring.name = "spring";
    spring.markerI = {"follower", "guide"};
    spring.markerJ = {"ground", "anchor"};
    spring.stiffness = 200.0;
    spec.forces = {spring};

    Sim run(spec);
    double worst = 0.0;
    for (double t = 0.01; t <= 2.0 + 1e-9; t += 0.01) {
        ASSERT_TRUE(run.to(t));
        const double face = run.position(1).z() - 0.01;
        worst = std::max(worst, std::abs(face - (R - e * std::sin(omega * t))));
    }
    EXPECT_LT(worst, 1e-3);
    // The cam's push on the follower balances spring, weight and inertia (the guide takes no
    // vertical load): at t = 2 s the face is at R, moving down at e ω, accelerating at 0.
    const Outputs out = run.outputs();
    ASSERT_FALSE(out.contacts.empty());
    double push = 0.0;
    for (const ContactForce& c : out.contacts)
        push += (c.partB == 2 ? 1.0 : -1.0) * (c.normalForce * c.normal_W + c.frictionForce_W).z();
    const double springForce = 200.0 * (run.position(1).z() + 0.3);
    EXPECT_NEAR(push, springForce + 0.5 * g, 0.02 * (springForce + 0.5 * g));
    EXPECT_NEAR(out.reactions[1].force_W.z(), 0.0, 0.02 * push);
}

}  // namespace
}  // namespace engine

#include "engine/model/layout.h"
#include "engine/record/recording.h"

namespace engine {
namespace {

TEST(ContactRecording, FramesKeepTheirContactForcesAndPairTotals) {
    SceneSpec spec = test::contactScene();
    Transform X;
    X.p = Vec3(0.0, 0.0, 0.05);
    test::addBox(spec, "box", Vec3::Constant(0.1), X, 3.0);
    spec.contact.pairs.push_back(
        {spec.newId(), "floor", "box", "ground", true, std::nullopt, std::nullopt, {}});
    const auto model = test::compiled(spec);
    ForwardDynamics fd(model);
    ASSERT_TRUE(fd.initialize().ok);
    Recording recording(*model, {});
    for (int k = 1; k <= 100; ++k) {
        ASSERT_TRUE(fd.advance(0.01 * k).ok);
        Outputs out;
        ASSERT_TRUE(fd.outputs(out).ok);
        recording.append(fd.state(), out);
    }
    State s;
    Outputs back;
    ASSERT_TRUE(recording.read(99, s, back));
    ASSERT_GE(back.contacts.size(), 3u);
    double normal = 0.0;
    for (const ContactForce& c : back.contacts) normal += c.normalForce;
    EXPECT_NEAR(normal, 3.0 * g, 0.01 * 3.0 * g);
    const int total = recording.layout().findChannel("contact.normalForce");
    const int pair = recording.layout().findChannel("floor.Fn");
    ASSERT_GE(total, 0);
    ASSERT_GE(pair, 0);
    std::vector<double> times, totals, pairs;
    recording.series(total, 99, 100, 1, times, totals);
    recording.series(pair, 99, 100, 1, times, pairs);
    EXPECT_NEAR(totals[0], normal, 1e-9);
    EXPECT_NEAR(pairs[0], normal, 1e-9);
    EXPECT_EQ(back.contactSolver.contacts, static_cast<int>(back.contacts.size()));
    EXPECT_GT(recording.bytes(), 100 * back.contacts.size() * sizeof(ContactForce));
}

}  // namespace
}  // namespace engine
