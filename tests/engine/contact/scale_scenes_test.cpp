// #49's scale scenes, small: a scatter of cubes, balls, capsules and cylinders dropped onto the
// floor (test::scatter), and a chain of capsules on spherical joints pulled through a pile of
// cubes (test::chainThroughPile) — joints and contact in one problem.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "engine/analysis/forward_dynamics.h"
#include "engine/contact/contact_solver.h"
#include "engine/model/layout.h"
#include "engine/solver/worker_pool.h"
#include "tests/support/contact_scenes.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

constexpr double g = 9.81;

// The lowest point of a part's one shape (its frame at the part's), given the part's pose.
double lowestPoint(const Shape& shape, const Vec3& p, const Quat& R) {
    const Vec3 axis = R * Vec3::UnitZ();
    const double up = std::abs(axis.z()), across = std::sqrt(std::max(0.0, 1.0 - up * up));
    switch (shape.type) {
    case ShapeType::Box: {
        const Mat3 A = R.toRotationMatrix();
        return p.z() -
               0.5 * (std::abs(A(2, 0)) * shape.size.x() + std::abs(A(2, 1)) * shape.size.y() +
                      std::abs(A(2, 2)) * shape.size.z());
    }
    case ShapeType::Sphere:
        return p.z() - shape.radius;
    case ShapeType::Capsule:
        return p.z() - 0.5 * shape.length * up - shape.radius;
    case ShapeType::Cylinder:
        return p.z() - 0.5 * shape.length * up - shape.radius * across;
    default:
        return p.z();
    }
}

// 64 parts of four shapes dropped from two layers (0.2 and 0.45 m) land on the floor and come to
// rest: none below it by more than the contact slop, every part on the floor or on another part
// (held there by contact forces that carry all the weight), the kinetic energy left a small part
// of the energy the fall released.
TEST(ScaleScenes, AScatterOfFourShapesLandsOnTheFloorAndComesToRest) {
    const SceneSpec spec = test::scatter(64);
    test::Stepping run(spec);
    double released = 0.0, weight = 0.0;
    for (std::size_t p = 1; p < spec.parts.size(); ++p) {
        const Part& part = spec.parts[p];
        const double mass =
            run.fd.model().bodies[static_cast<std::size_t>(run.fd.model().parts[p].body)].mass;
        released += mass * g * (lowestPoint(part.shapes.front(), part.X_WP.p, part.X_WP.R));
        weight += mass * g;
    }
    ASSERT_TRUE(run.to(3.0));
    const Eigen::VectorXd &q = run.fd.state().q, &v = run.fd.state().v;
    double lowest = 1.0, kinetic = 0.0;
    int onFloor = 0;
    for (std::size_t p = 1; p < spec.parts.size(); ++p) {
        const int b = run.fd.model().parts[p].body;
        const Transform X_WP =
            partPose(run.fd.model(), p, {bodyOrientation(q, b), bodyPosition(q, b)});
        const double z = lowestPoint(spec.parts[p].shapes.front(), X_WP.p, X_WP.R);
        lowest = std::min(lowest, z);
        if (z < 1e-3) ++onFloor;
        const double mass = run.fd.model().bodies[static_cast<std::size_t>(b)].mass;
        kinetic += 0.5 * mass * layout::linear(v, b).squaredNorm();
    }
    const Outputs out = run.outputs();
    double floorForce = 0.0;
    for (const ContactForce& c : out.contacts)
        if (c.partA == 0 || c.partB == 0) floorForce += c.normalForce;
    std::printf(
        "scatter-64 at 3 s: lowest point %.3g m, %d of 64 on the floor, kinetic %.3g J of "
        "%.3g J released, floor carries %.6g of %.6g N\n",
        lowest, onFloor, kinetic, released, floorForce, weight);
    EXPECT_GT(lowest, -5e-5);
    EXPECT_GE(onFloor, 56);  // (two layers offset by half a pitch: most land between)
    EXPECT_LT(kinetic, 1e-3 * released);
    EXPECT_NEAR(floorForce, weight, 1e-3 * weight);
}

// Joints put the whole contact solve in row space (each row's response through the joints). Its
// islands there are the contacts joined through the parts those responses move: the chain's
// with the cubes it pushes, each column of the pile it has not reached alone. Solved on one
// thread and on two (from kParallelContacts contacts), the same run bit for bit.
TEST(ScaleScenes, AChainInAPileRunsTheSameBitForBitOnOneThreadAndOnTwo) {
    const test::OnOneThreadAndTwo runs =
        test::runOnOneThreadAndTwo(test::chainThroughPile(10, 200, 4.0), 0.3);
    EXPECT_GT(runs.contacts, contact::kParallelContacts);
    EXPECT_TRUE(runs.one.q == runs.two.q);
    EXPECT_TRUE(runs.one.v == runs.two.v);
    EXPECT_GT(runs.one.v.cwiseAbs().maxCoeff(), 0.1);  // (the chain on the move, in the pile)
}

// A scatter of more parts than kParallelBodies: every step's work on each part alone (frames,
// applied forces, collision poses, new poses) and its sums over parts and contacts (the energy
// balance) shared out on two threads, the parts landing: the same run bit for bit, energies
// included, as on one.
TEST(ScaleScenes, AScatterOfManyPartsRunsTheSameBitForBitOnOneThreadAndOnTwo) {
    // (at 0.25 s the first layer has landed, at 0.2 s, the second is in the air)
    const test::OnOneThreadAndTwo runs =
        test::runOnOneThreadAndTwo(test::scatter(static_cast<int>(kParallelBodies) + 100), 0.25);
    EXPECT_GT(runs.contacts, contact::kParallelContacts);
    EXPECT_TRUE(runs.one.q == runs.two.q);
    EXPECT_TRUE(runs.one.v == runs.two.v);
    EXPECT_EQ(runs.one.dissipatedEnergy, runs.two.dissipatedEnergy);
    EXPECT_GT(runs.one.dissipatedEnergy, 0.0);         // (landings and the stabilisation booked)
    EXPECT_GT(runs.one.v.cwiseAbs().maxCoeff(), 1.0);  // (the second layer still falling)
}

// The time a step takes is booked phase by phase (IntegratorStatistics): the collision query,
// the ordering of the points, the assembly, the solve, the integration and the finish each take
// some of a landing scatter's run, and together they account for most of it and no more than
// all of it.
TEST(ScaleScenes, AStepsTimeIsBookedPhaseByPhase) {
    test::Stepping run(test::scatter(64));
    const auto start = std::chrono::steady_clock::now();
    ASSERT_TRUE(run.to(0.4));  // (both layers landed)
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const IntegratorStatistics& s = run.fd.statistics();
    const double phases[] = {s.collisionSeconds, s.orderingSeconds,    s.assemblySeconds,
                             s.solveSeconds,     s.integrationSeconds, s.finishSeconds};
    double sum = 0.0;
    for (const double seconds : phases) {
        EXPECT_GT(seconds, 0.0);
        sum += seconds;
    }
    EXPECT_LE(sum, wall);
    EXPECT_GT(sum, 0.5 * wall);
    EXPECT_EQ(s.steps, 400);
}

// A mechanism beside a pile (a chain of three capsules on spherical joints lying 0.75 m away)
// puts the contact problem in row space, but the pile's islands hold free parts only: they are
// swept on the parts' velocities as without the chain, and the pile lands and settles exactly
// as pile-100 alone does, bit for bit, cube by cube.
TEST(ScaleScenes, AMechanismBesideAPileChangesNothingInThePile) {
    test::Stepping alone(test::boxPile(100)), beside(test::chainThroughPile(3, 100, 0.0));
    ASSERT_TRUE(alone.to(0.5));
    ASSERT_TRUE(beside.to(0.5));
    EXPECT_GT(beside.fd.model().constraintRows(), 0);  // (joints: responses through them)
    const Eigen::VectorXd &qa = alone.fd.state().q, &qb = beside.fd.state().q;
    const Eigen::VectorXd &va = alone.fd.state().v, &vb = beside.fd.state().v;
    int same = 0;
    for (int b = 0; b < 100; ++b)
        if (layout::position(qa, b) == layout::position(qb, b) &&
            layout::orientation(qa, b) == layout::orientation(qb, b) &&
            layout::twist(va, b) == layout::twist(vb, b))
            ++same;
    EXPECT_EQ(same, 100);
    EXPECT_GT(alone.outputs().contacts.size(), 300u);  // (landed: four corners a cube)
}

// A chain of 10 capsules pulled at 1 m/s through the 25 cubes of one layer: the joints hold
// (their points stay together to projection accuracy), the links follow the head in order, the
// cubes in the chain's way are pushed along or aside and none sinks into the floor.
TEST(ScaleScenes, AChainPulledThroughAPileHoldsItsJointsAndPushesTheCubesAside) {
    const SceneSpec spec = test::chainThroughPile(10, 25, 1.0);
    test::Stepping run(spec);
    const Model& model = run.fd.model();
    const auto bodyOf = [&](const std::string& name) {
        for (std::size_t p = 0; p < spec.parts.size(); ++p)
            if (spec.parts[p].name == name) return model.parts[p].body;
        return kGround;
    };
    const auto pointOf = [&](const MarkerRef& ref) {
        for (std::size_t p = 0; p < spec.parts.size(); ++p)
            if (spec.parts[p].name == ref.part)
                for (const Marker& m : spec.parts[p].markers)
                    if (m.name == ref.marker) {
                        const int b = model.parts[p].body;
                        const Vec3 local = model.parts[p].X_BP * m.X_PM.p;
                        const Eigen::VectorXd& q = run.fd.state().q;
                        return Vec3(bodyPosition(q, b) + bodyOrientation(q, b) * local);
                    }
        return Vec3(Vec3::Constant(std::nan("")));
    };
    double gap = 0.0;
    for (int sample = 1; sample <= 250; ++sample) {
        ASSERT_TRUE(run.to(0.01 * sample));
        for (const Joint& joint : spec.joints) {
            if (joint.markerI.part == "tractor") continue;
            gap = std::max(gap, (pointOf(joint.markerI) - pointOf(joint.markerJ)).norm());
        }
    }
    const Eigen::VectorXd& q = run.fd.state().q;
    double pushed = 0.0, deepest = 0.0;
    for (int k = 0; k < 25; ++k) {
        const Vec3 p = bodyPosition(q, bodyOf("box" + std::to_string(k)));
        const Vec3 p0 = spec.parts[static_cast<std::size_t>(k) + 1].X_WP.p;
        EXPECT_GT(p.z(), 0.0) << "box" << k;
        if (std::abs(p0.y()) < 0.01) pushed = std::max(pushed, (p - p0).norm());
    }
    for (const ContactForce& c : run.outputs().contacts) deepest = std::max(deepest, c.depth);
    double previous = 10.0;
    for (int k = 0; k < 10; ++k) {  // each link behind the one before
        const double x = bodyPosition(q, bodyOf("link" + std::to_string(k))).x();
        EXPECT_LT(x, previous) << "link" << k;
        previous = x;
    }
    const double head = bodyPosition(q, bodyOf("link0")).x();
    std::printf(
        "chain-10 through pile-25 at 2.5 s: joint gap %.3g m, head at %.4g m, a cube in "
        "its way moved %.3g m, deepest %.3g m\n",
        gap, head, pushed, deepest);
    EXPECT_LT(gap, 1e-8);
    EXPECT_NEAR(head, -1.0 + 2.5 - 0.05, 0.02);  // a link behind the tractor's hitch
    EXPECT_GT(pushed, 0.1);
    EXPECT_LT(deepest, 5e-4);
}

}  // namespace
}  // namespace engine
