#include "engine/contact/collision_world.h"

#include <btBulletCollisionCommon.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include "engine/io/mesh_loader.h"

#include "engine/math/constants.h"
#include "engine/solver/worker_pool.h"
#include "tests/support/contact_scenes.h"
#include "tests/support/scene_builders.h"

namespace engine::contact {
namespace {

// A scene of the ground (one shape) and one moving part (its shapes, at X_WP).
SceneSpec groundAndPart(const Shape& floor, const std::string& name, std::vector<Shape> shapes,
                        const Transform& X_WP) {
    SceneSpec spec;
    Part ground;
    ground.id = spec.newId();
    ground.name = "ground";
    ground.ground = true;
    ground.shapes.push_back(floor);
    Part part;
    part.id = spec.newId();
    part.name = name;
    part.shapes = std::move(shapes);
    part.X_WP = X_WP;
    spec.parts = {ground, part};
    return spec;
}

// Ground slab (top face at z = 0) and a sphere of radius 0.1 whose centre is at `height`.
SceneSpec sphereOverSlab(double height) {
    Shape slab;
    slab.type = ShapeType::Box;
    slab.size = Vec3(2.0, 2.0, 0.2);
    slab.X_PG.p = Vec3(0, 0, -0.1);
    Shape sphere;
    sphere.type = ShapeType::Sphere;
    sphere.radius = 0.1;
    Transform X;
    X.p = Vec3(0.3, -0.2, height);
    return groundAndPart(slab, "ball", {sphere}, X);
}

TEST(CollisionWorld, UsesDoublePrecisionBullet) {
    EXPECT_EQ(bulletScalarBytes(), 8u);
}

// Boxes of the same edges share one Bullet shape; boxes of other edges (the same numbers in
// another order too) keep their own: each box sunk 1 mm into the floor touches it at its own
// four bottom corners, 1 mm deep, whatever box was made before it.
TEST(CollisionWorld, BoxesOfOtherEdgesTouchAtTheirOwnCorners) {
    SceneSpec spec = test::contactScene();
    const std::vector<Vec3> edges = {Vec3(0.1, 0.1, 0.1), Vec3(0.3, 0.1, 0.2), Vec3(0.1, 0.3, 0.2),
                                     Vec3(0.1, 0.1, 0.1), Vec3(0.2, 0.3, 0.1)};
    for (std::size_t k = 0; k < edges.size(); ++k) {
        Transform X;
        X.p = Vec3(1.0 * static_cast<double>(k), 0.0, 0.5 * edges[k].z() - 1e-3);
        test::addBox(spec, "box" + std::to_string(k), edges[k], X);
    }
    CollisionWorld world(spec);
    const std::vector<ContactPoint> contacts = world.findContacts();
    ASSERT_EQ(contacts.size(), 4 * edges.size());
    std::vector<std::set<std::pair<double, double>>> corners(edges.size());
    for (const ContactPoint& c : contacts) {
        ASSERT_EQ(c.partA, 0u);  // the ground
        const std::size_t k = c.partB - 1;
        ASSERT_LT(k, edges.size());
        EXPECT_NEAR(c.depth, 1e-3, 1e-12);
        const Vec3 local = c.p_WB_W - Vec3(1.0 * static_cast<double>(k), 0.0, 0.0);
        corners[k].insert({std::round(local.x() * 1e6) / 1e6, std::round(local.y() * 1e6) / 1e6});
    }
    for (std::size_t k = 0; k < edges.size(); ++k) {
        const double x = 0.5 * edges[k].x(), y = 0.5 * edges[k].y();
        EXPECT_EQ(corners[k],
                  (std::set<std::pair<double, double>>{{-x, -y}, {-x, y}, {x, -y}, {x, y}}))
            << "box " << k;
    }
}

// Balls, capsules and cylinders of the same dimensions share one Bullet shape, as boxes do;
// those of another radius or length keep their own: each part standing on the floor, sunk 1 mm
// at its own lowest points, touches there — a ball and a capsule at one point, a cylinder at
// four of its rim, its radius from its axis — 1 mm deep, whatever part was made before it.
TEST(CollisionWorld, RoundPartsAndCylindersOfOtherSizesTouchAtTheirOwnPoints) {
    SceneSpec spec = test::contactScene();
    struct Made {
        ShapeType type;
        double radius, length;
        int points;
    };
    const std::vector<Made> parts = {
        {ShapeType::Sphere, 0.05, 0.0, 1},    {ShapeType::Sphere, 0.07, 0.0, 1},
        {ShapeType::Sphere, 0.05, 0.0, 1},    {ShapeType::Capsule, 0.03, 0.1, 1},
        {ShapeType::Capsule, 0.03, 0.2, 1},   {ShapeType::Capsule, 0.04, 0.1, 1},
        {ShapeType::Capsule, 0.03, 0.1, 1},   {ShapeType::Cylinder, 0.05, 0.1, 4},
        {ShapeType::Cylinder, 0.05, 0.14, 4}, {ShapeType::Cylinder, 0.06, 0.1, 4},
        {ShapeType::Cylinder, 0.05, 0.1, 4}};
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const Made& m = parts[k];
        const double x = 0.5 * static_cast<double>(k);
        const std::string name = "part" + std::to_string(k);
        if (m.type == ShapeType::Sphere) {
            test::addBall(spec, name, m.radius, Vec3(x, 0.0, m.radius - 1e-3));
            continue;
        }
        Transform X;  // (standing: the axis along z)
        const double lowest = 0.5 * m.length + (m.type == ShapeType::Capsule ? m.radius : 0.0);
        X.p = Vec3(x, 0.0, lowest - 1e-3);
        test::addRod(spec, name, m.type, m.radius, m.length, X);
    }
    const std::vector<ContactPoint> contacts = CollisionWorld(spec).findContacts();
    std::vector<int> found(parts.size(), 0);
    for (const ContactPoint& c : contacts) {
        ASSERT_EQ(c.partA, 0u);  // the ground
        const std::size_t k = c.partB - 1;
        ASSERT_LT(k, parts.size());
        ++found[k];
        EXPECT_NEAR(c.depth, 1e-3, 1e-12) << "part " << k;
        const Vec3 fromAxis = c.p_WB_W - Vec3(0.5 * static_cast<double>(k), 0.0, c.p_WB_W.z());
        EXPECT_NEAR(fromAxis.norm(), parts[k].type == ShapeType::Cylinder ? parts[k].radius : 0.0,
                    1e-9)
            << "part " << k;
    }
    for (std::size_t k = 0; k < parts.size(); ++k)
        EXPECT_EQ(found[k], parts[k].points) << "part " << k;
}

// Quiet parts (setPartQuiet): a pair of two quiet parts, or of a quiet part and the ground,
// keeps its points, moved with its parts (deeper as a part sinks, gone once it separates beyond
// the margin), without the narrow phase; a pair with a part that is not quiet is looked at.
TEST(CollisionWorld, QuietPairsKeepTheirPointsMovedWithTheirParts) {
    SceneSpec spec = test::contactScene();
    const Vec3 edges(0.2, 0.1, 0.1);
    Transform X_box;
    X_box.p = Vec3(0.0, 0.0, 0.05 - 1e-3);  // 1 mm into the floor
    test::addBox(spec, "box", edges, X_box);
    test::addBall(spec, "ball", 0.05, Vec3(1.0, 0.0, 0.5));  // in the air
    CollisionWorld world(spec);
    const double margin = 5e-3;
    const ContactQuery first = world.query(margin, {});
    ASSERT_EQ(first.points.size(), 4u);

    // Both parts quiet; the box 0.5 mm deeper and 2 mm along x, the ball put 1 mm into the floor.
    world.setPartQuiet(1, true);
    world.setPartQuiet(2, true);
    Transform X_moved = X_box;
    X_moved.p += Vec3(2e-3, 0.0, -0.5e-3);
    world.setPartPose(1, X_moved);
    Transform X_ball;
    X_ball.p = Vec3(1.0, 0.0, 0.05 - 1e-3);
    world.setPartPose(2, X_ball);
    const ContactQuery second = world.query(margin, first.persistent);
    ASSERT_EQ(second.points.size(), 4u);  // the box's kept corners; nothing for the ball
    for (std::size_t k = 0; k < 4; ++k) {
        const ContactPoint& was = first.points[k];
        const ContactPoint& is = second.points[k];
        ASSERT_EQ(is.partB, 1u);
        EXPECT_NEAR(is.depth, 1.5e-3, 1e-12);
        // The corner on the box moved with it; the point on the floor is where it was found.
        EXPECT_LT((is.p_WB_W - (was.p_WB_W + Vec3(2e-3, 0.0, -0.5e-3))).norm(), 1e-12);
        EXPECT_LT((is.p_WA_W - was.p_WA_W).norm(), 1e-12);
        EXPECT_EQ(second.persistent[is.persistent].age, first.persistent[was.persistent].age + 1);
    }

    // The ball not quiet: its pair with the floor is looked at (one point, 1 mm deep).
    world.setPartQuiet(2, false);
    const ContactQuery third = world.query(margin, second.persistent);
    ASSERT_EQ(third.points.size(), 5u);
    int onBall = 0;
    for (const ContactPoint& c : third.points)
        if (c.partB == 2) {
            ++onBall;
            EXPECT_NEAR(c.depth, 1e-3, 1e-12);
        }
    EXPECT_EQ(onBall, 1);

    // A quiet box lifted 10 mm (beyond the margin) loses its points.
    X_moved.p.z() += 10e-3;
    world.setPartPose(1, X_moved);
    const ContactQuery fourth = world.query(margin, third.persistent);
    ASSERT_EQ(fourth.points.size(), 1u);
    EXPECT_EQ(fourth.points[0].partB, 2u);
}

// Pairs of quiet parts are looked at afresh in turn (setQuietTurn): with turns of eight, the
// quiet pair of parts a < b in the query whose step + 2a + b is a multiple of eight, once in
// any eight queries; without turns, never.
TEST(CollisionWorld, APairOfQuietPartsIsLookedAtAfreshInItsTurn) {
    SceneSpec spec = test::contactScene();
    test::addBall(spec, "ball1", 0.05, Vec3(0.0, 0.0, 0.5));  // parts 1 and 2, in the air
    test::addBall(spec, "ball2", 0.05, Vec3(1.0, 0.0, 0.5));
    CollisionWorld world(spec);
    const double margin = 5e-3;
    ContactQuery last = world.query(margin, {});
    ASSERT_TRUE(last.points.empty());
    // Both quiet, and put 1 mm into the floor (part 0): found only in their pairs' turns.
    world.setPartQuiet(1, true);
    world.setPartQuiet(2, true);
    for (std::size_t part : {1u, 2u}) {
        Transform X;
        X.p = Vec3(part == 1 ? 0.0 : 1.0, 0.0, 0.05 - 1e-3);
        world.setPartPose(part, X);
    }
    ContactQuery unturned = world.query(margin, last.persistent);
    EXPECT_TRUE(unturned.points.empty());  // no turns: never looked at
    for (long long step = 0; step < 16; ++step) {
        world.setQuietTurn(step, 8);
        const ContactQuery now = world.query(margin, {});  // (nothing kept: what is found now)
        std::set<std::size_t> found;
        for (const ContactPoint& c : now.points) {
            EXPECT_EQ(c.partA, 0u);
            EXPECT_NEAR(c.depth, 1e-3, 1e-12);
            found.insert(c.partB);
        }
        std::set<std::size_t> due;
        for (const std::size_t b : {1u, 2u})
            if ((step + static_cast<long long>(b)) % 8 == 0) due.insert(b);  // (a = 0)
        EXPECT_EQ(found, due) << "step " << step;
    }
    // Every query looks at a pair with a part that is not quiet.
    world.setPartQuiet(2, false);
    world.setQuietTurn(3, 8);  // (neither pair's turn)
    const ContactQuery loud = world.query(margin, {});
    ASSERT_EQ(loud.points.size(), 1u);
    EXPECT_EQ(loud.points[0].partB, 2u);
}

// Settled parts (setPartQuiet's `settled`): a pair of two settled parts (or a settled part and
// the ground) is looked at afresh only in its turn of settledEvery (step + 2a + b a multiple of
// it), one of its quiet turns; a pair of a settled and a quiet part in its quiet turns (every
// eighth); settledEvery made a multiple of every.
TEST(CollisionWorld, APairOfSettledPartsIsLookedAtAfreshInItsLongerTurn) {
    SceneSpec spec = test::contactScene();
    test::addBall(spec, "ball1", 0.05, Vec3(0.0, 0.0, 0.5));  // parts 1 to 3, in the air
    test::addBall(spec, "ball2", 0.05, Vec3(1.0, 0.0, 0.5));
    test::addBall(spec, "ball3", 0.05, Vec3(2.0, 0.0, 0.5));
    CollisionWorld world(spec);
    const double margin = 5e-3;
    ASSERT_TRUE(world.query(margin, {}).points.empty());
    // Balls 1 and 2 settled, ball 3 quiet only; each put 1 mm into the floor (part 0).
    world.setPartQuiet(1, true, true);
    world.setPartQuiet(2, true, true);
    world.setPartQuiet(3, true, false);
    for (std::size_t part : {1u, 2u, 3u}) {
        Transform X;
        X.p = Vec3(static_cast<double>(part) - 1.0, 0.0, 0.05 - 1e-3);
        world.setPartPose(part, X);
    }
    std::map<std::size_t, int> looks;
    for (long long step = 0; step < 64; ++step) {
        world.setQuietTurn(step, 8, 30);                   // (made 24: a multiple of 8)
        const ContactQuery now = world.query(margin, {});  // (nothing kept: what is found now)
        std::set<std::size_t> found;
        for (const ContactPoint& c : now.points) found.insert(c.partB);
        std::set<std::size_t> due;
        for (const std::size_t b : {1u, 2u, 3u}) {
            const long long every = b == 3 ? 8 : 24;
            if ((step + static_cast<long long>(b)) % every == 0) due.insert(b);  // (a = 0)
        }
        EXPECT_EQ(found, due) << "step " << step;
        for (const std::size_t b : found) ++looks[b];
    }
    EXPECT_EQ(looks[1], 2);  // (steps 23 and 47)
    EXPECT_EQ(looks[2], 2);  // (22 and 46)
    EXPECT_EQ(looks[3], 8);  // (5, 13, ..., 61)
}

TEST(CollisionWorld, SphereSunkIntoASlabGivesDepthAndNormalFromAToB) {
    const double penetration = 0.0123456789;
    CollisionWorld world(sphereOverSlab(0.1 - penetration));
    EXPECT_EQ(world.objectCount(), 2u);
    const std::vector<ContactPoint> contacts = world.findContacts();
    ASSERT_FALSE(contacts.empty());
    for (const ContactPoint& c : contacts) {
        // Depth to double precision, not float's 1e-7.
        EXPECT_NEAR(c.depth, penetration, 1e-12);
        // The normal points from A to B whichever way Bullet ordered the pair.
        const Vec3 groundToBall = Vec3::UnitZ();
        const Vec3 expected = c.partA == 0 ? groundToBall : Vec3(-groundToBall);
        EXPECT_LT((c.n_AB_W - expected).norm(), 1e-9);
        // The witness points sit on the two surfaces: under the sphere's centre, at the slab
        // face z = 0 and at the sphere's lowest point.
        const Vec3& onGround = c.partA == 0 ? c.p_WA_W : c.p_WB_W;
        const Vec3& onBall = c.partA == 0 ? c.p_WB_W : c.p_WA_W;
        EXPECT_NEAR(onGround.z(), 0.0, 1e-9);
        EXPECT_NEAR(onBall.z(), -penetration, 1e-9);
        EXPECT_NEAR(onBall.x(), 0.3, 1e-9);
        EXPECT_NEAR(onBall.y(), -0.2, 1e-9);
    }
}

// A pair that a Bullet algorithm takes (a ball on a slab: a sphere and a box) reads its parts'
// poses from their objects, which are given them only when such a pair is looked at: a ball
// moved from query to query has its point where its pose puts it, in the world and in its own
// frame (the point Bullet's manifold keeps there).
TEST(CollisionWorld, ABallMovedFromQueryToQueryHasItsPointWhereItsPosePutsIt) {
    CollisionWorld world(sphereOverSlab(0.5));
    for (int k = 0; k < 4; ++k) {
        const double sunk = 0.001 * (k + 1);
        Transform X;
        X.p = Vec3(0.3 + 0.05 * k, -0.2 + 0.02 * k, 0.1 - sunk);
        world.setPartPose(1, X);
        const ContactQuery found = world.query(0.0, {});
        ASSERT_EQ(found.points.size(), 1u) << k;
        const ContactPoint& c = found.points[0];
        EXPECT_NEAR(c.depth, sunk, 1e-12) << k;
        const bool ballIsB = c.partB == 1;
        const Vec3 onBall = ballIsB ? c.p_WB_W : c.p_WA_W;
        EXPECT_NEAR(onBall.x(), X.p.x(), 1e-12) << k;
        EXPECT_NEAR(onBall.y(), X.p.y(), 1e-12) << k;
        EXPECT_NEAR(onBall.z(), -sunk, 1e-12) << k;
        const ContactPointState& kept = found.persistent[c.persistent];
        EXPECT_LT((world.worldPoint(1, ballIsB ? kept.local_B : kept.local_A) - onBall).norm(),
                  1e-12)
            << k;
    }
}

// A 20 cm cube resting on the slab, sunk by 1 mm, turned by `yaw` about z and moved by `dx`.
Transform cubePose(double yaw, double dx) {
    Transform X;
    X.R = Quat(Eigen::AngleAxisd(yaw, Vec3::UnitZ()));
    X.p = Vec3(0.3 + dx, -0.2, 0.099);
    return X;
}

SceneSpec cubeOnSlab() {
    SceneSpec spec = sphereOverSlab(0.1);
    Shape cube;
    cube.type = ShapeType::Box;
    cube.size = Vec3(0.2, 0.2, 0.2);
    spec.parts[1].shapes = {cube};
    return spec;
}

bool samePoints(const ContactQuery& a, const ContactQuery& b) {
    if (a.points.size() != b.points.size() || a.persistent.size() != b.persistent.size())
        return false;
    for (std::size_t k = 0; k < a.points.size(); ++k)
        if (a.points[k].p_WB_W != b.points[k].p_WB_W || a.points[k].depth != b.points[k].depth ||
            a.points[k].normalImpulse != b.points[k].normalImpulse)
            return false;
    for (std::size_t k = 0; k < a.persistent.size(); ++k)
        if (a.persistent[k].local_A != b.persistent[k].local_A ||
            a.persistent[k].distance != b.persistent[k].distance ||
            a.persistent[k].age != b.persistent[k].age)
            return false;
    return true;
}

// The slab, a ball over it at `height` and a 20 cm cube on it beside the ball, its face at
// x = 0.1.
SceneSpec ballBesideCube(double height) {
    SceneSpec spec = sphereOverSlab(height);
    Part cube;
    cube.id = spec.newId();
    cube.name = "cube";
    Shape box;
    box.type = ShapeType::Box;
    box.size = Vec3(0.2, 0.2, 0.2);
    cube.shapes = {box};
    cube.X_WP.p = Vec3(0.0, -0.2, 0.1);
    spec.parts.push_back(cube);
    return spec;
}

// What one world finds as ballBesideCube's ball goes along `path` (its centre at each query):
// at every query the points a world made at that pose finds (and none beyond the margin),
// counted with the cube and with the slab, and how many times the ball's box was put into the
// broadphase's tree after query `counted`.
struct Walk {
    int withCube = 0, withSlab = 0;
    std::size_t putInTree = 0;
};
Walk walkTheBall(const std::vector<Vec3>& path, double margin, std::size_t counted) {
    const SceneSpec spec = ballBesideCube(path.front().z());
    CollisionWorld world(spec);
    Walk walk;
    const std::size_t before = world.boxesPutInTree();
    for (std::size_t k = 0; k < path.size(); ++k) {
        Transform X;
        X.p = path[k];
        world.setPartPose(1, X);
        const ContactQuery found = world.query(margin, {});
        if (k == counted) walk.putInTree = world.boxesPutInTree() - before;
        SceneSpec here = spec;
        here.parts[1].X_WP = X;
        CollisionWorld fresh(here);
        const ContactQuery expected = fresh.query(margin, {});
        EXPECT_TRUE(samePoints(found, expected))
            << "query " << k << ": " << found.points.size() << " points, a fresh world "
            << expected.points.size();
        for (const ContactPoint& c : found.points) {
            EXPECT_GE(c.depth, -margin - 1e-12) << k;
            const bool ball = c.partA == 1 || c.partB == 1;
            walk.withCube += ball && (c.partA == 2 || c.partB == 2);
            walk.withSlab += ball && (c.partA == 0 || c.partB == 0);
        }
    }
    return walk;
}

// A part's broadphase proxy holds a box grown beyond its own, so that a part barely moving is
// not put into the broadphase's tree again step after step: a ball creeping 0.2 mm a query
// toward a cube, into it, out of reach of the slab and back, and then sent away at once, has
// at every query the points a world made at these poses finds (and none beyond the margin).
// The slab, a ground part, meets the ball up to the whole margin, as any part does (a ground
// box left unpadded sees the ball within 2.5 mm only: 12 queries fewer).
TEST(CollisionWorld, APartCreepingFromQueryToQueryHasThePointsAFreshWorldFinds) {
    // The ball's path: from 30.1 mm clear of the cube's face (x = 0.1) into it by 2 mm, then up
    // from 0.1 mm above the slab to 12 mm above, then a jump of 0.5 m and back.
    std::vector<Vec3> path;
    for (int k = 0; k <= 160; ++k) path.emplace_back(0.2301 - 0.0002 * k, -0.2, 0.1001);
    for (int k = 1; k <= 60; ++k) path.emplace_back(0.198, -0.2, 0.1001 + 0.0002 * k);
    path.emplace_back(0.698, -0.2, 0.1121);
    path.emplace_back(0.198, -0.2, 0.1121);
    const Walk walk = walkTheBall(path, 0.005, 0);
    // One point a query: with the cube from x = 0.205 on (35 queries of the creep, the 60 up
    // and the one after the jump back), with the slab until 5 mm above it (161 and 24).
    EXPECT_EQ(walk.withCube, 35 + 60 + 1);
    EXPECT_EQ(walk.withSlab, 161 + 24);
}

// A part's proxy's box is also stretched along the way it moves: a ball falling 3 mm a query
// past a cube's face onto the slab is put into the broadphase's tree every few queries, not at
// every one, and has at every query the points a world made at its pose finds — falling, landing
// and rolling off the slab's edge; sent away at once and back, it has them too.
TEST(CollisionWorld, APartFallingIsPutIntoTheTreeSeldomAndHasThePointsAFreshWorldFinds) {
    // Down 3 mm a query from 0.4 m, 0.2 mm clear of the cube's face, to 1 mm into the slab; then
    // along the slab, 2 mm a query, past its edge (x = 1); then away 0.5 m and back.
    std::vector<Vec3> path;
    for (int k = 0; k <= 100; ++k)
        path.emplace_back(0.2002, -0.2, std::max(0.4 - 0.003 * k, 0.099));
    for (int k = 1; k <= 450; ++k) path.emplace_back(0.2002 + 0.002 * k, -0.2, 0.099);
    path.emplace_back(1.1002, 0.3, 0.099);
    path.emplace_back(1.1002, -0.2, 0.099);
    const Walk walk = walkTheBall(path, 0.005, 100);
    // Within the margin of the cube's top edge from 23 mm above its top (44 queries of the fall)
    // and the first two along; of the slab from 3 mm above it (2), along it (400) and past its
    // edge until its corner is 5 mm away (17).
    EXPECT_EQ(walk.withCube, 44 + 2);
    EXPECT_EQ(walk.withSlab, 2 + 400 + 17);
    // 101 queries falling 0.3 m, put into the tree 7 times (its box grown by its slack alone, 10
    // mm here, would be put in 28 times).
    EXPECT_LE(walk.putInTree, 10u);
}

// Many parts put elsewhere at once — their boxes moved in the broadphase's tree, whose new pairs
// are looked for on the threads from 16 moved boxes up — have at every query the points a
// world made at those poses finds: 144 balls and boxes on the plane, each overlapping its
// neighbours, dealt round the grid's places anew at each of 4 queries (every part among other
// neighbours), on one thread and on two.
TEST(CollisionWorld, ManyPartsPutElsewhereAtOnceHaveThePointsAFreshWorldFinds) {
    SceneSpec spec = test::contactScene();
    const int side = 12, parts = side * side;
    const double pitch = 0.095;  // (10 cm parts: 5 mm into each neighbour)
    const auto place = [&](int k) { return Vec3(pitch * (k % side), pitch * (k / side), 0.049); };
    for (int k = 0; k < parts; ++k) {
        if (k % 2 == 0) {
            test::addBall(spec, "ball" + std::to_string(k), 0.05, place(k));
        } else {
            Transform X;
            X.p = place(k);
            test::addBox(spec, "box" + std::to_string(k), Vec3::Constant(0.1), X);
        }
    }
    const int before = workerThreads();
    for (const int threads : {1, 2}) {
        setWorkerThreads(threads);
        CollisionWorld world(spec);
        SceneSpec here = spec;
        ContactQuery found = world.query(1e-3, {});
        for (int round = 1; round <= 4; ++round) {
            // (part k to the place (k·37 + 11·round) mod 144: a permutation, 37 prime to 144)
            for (int k = 0; k < parts; ++k) {
                Transform X = spec.parts[static_cast<std::size_t>(k) + 1].X_WP;
                X.p = place((k * 37 + 11 * round) % parts);
                world.setPartPose(static_cast<std::size_t>(k) + 1, X);
                here.parts[static_cast<std::size_t>(k) + 1].X_WP = X;
            }
            found = world.query(1e-3, {});
            CollisionWorld fresh(here);
            const ContactQuery expected = fresh.query(1e-3, {});
            EXPECT_TRUE(samePoints(found, expected))
                << threads << " threads, round " << round << ": " << found.points.size()
                << " points, a fresh world " << expected.points.size();
            // (every part on the plane, and each with its neighbours in the grid: 264 pairs)
            std::set<std::pair<std::size_t, std::size_t>> pairs;
            for (const ContactPoint& c : found.points) pairs.insert({c.partA, c.partB});
            EXPECT_EQ(pairs.size(), static_cast<std::size_t>(parts + 2 * side * (side - 1)))
                << threads << " threads, round " << round;
        }
    }
    setWorkerThreads(before);
}

// A part set from its body in one call (setPartFromBody) is set as by the three calls it stands
// for: the ball (its frame 5 cm off its body's, turned) moved with its body, quiet or not,
// asleep and woken, its pose left alone while asleep — the same points query after query, each
// query given the last one's points, and the same sleep.
TEST(CollisionWorld, APartSetFromItsBodyInOneCallIsSetAsByTheThreeCalls) {
    const SceneSpec spec = ballBesideCube(0.3);
    CollisionWorld one(spec), three(spec);
    Transform X_BP;
    X_BP.p = Vec3(0.05, 0.0, 0.0);
    X_BP.R = Quat(Eigen::AngleAxisd(0.3, Vec3::UnitY()));
    const std::vector<Transform> frames(spec.parts.size(), X_BP);
    one.setBodyFrames(frames);
    three.setBodyFrames(frames);
    ContactQuery lastOne, lastThree;
    for (int k = 0; k < 60; ++k) {
        Transform X_WB;
        X_WB.p = Vec3(0.15 + 0.0004 * k, -0.2, 0.1005 - 0.00002 * k);
        X_WB.R = Quat(Eigen::AngleAxisd(0.01 * k, Vec3::UnitZ()));
        const bool quiet = k % 3 != 0, settled = k % 5 == 0, asleep = k >= 30 && k < 45;
        const bool keepPose = asleep && k > 30;
        for (std::size_t p = 1; p < spec.parts.size(); ++p) {
            one.setPartFromBody(p, quiet, settled, asleep, keepPose ? nullptr : &X_WB);
            three.setPartQuiet(p, quiet, settled);
            three.setPartAsleep(p, asleep);
            if (!keepPose) three.setPartPoseFromBody(p, X_WB);
            ASSERT_EQ(one.partAsleep(p), three.partAsleep(p)) << k;
        }
        one.setQuietTurn(k, 4, 8);
        three.setQuietTurn(k, 4, 8);
        const ContactQuery foundOne = one.query(0.005, lastOne.persistent);
        const ContactQuery foundThree = three.query(0.005, lastThree.persistent);
        ASSERT_TRUE(samePoints(foundOne, foundThree)) << "query " << k;
        lastOne = foundOne;
        lastThree = foundThree;
    }
    EXPECT_FALSE(lastOne.persistent.empty());
}

// Bullet answers a pure geometric query: what a query returns depends on the poses and the
// points passed in, not on the queries the world answered before.
TEST(CollisionWorld, AQueryDependsOnThePosesAndTheGivenPointsOnly) {
    CollisionWorld busy(cubeOnSlab());
    ContactQuery last;
    std::vector<ContactPointState> before;
    for (int k = 0; k < 6; ++k) {
        busy.setPartPose(1, cubePose(0.01 * k, 1e-4 * k));
        before = last.persistent;
        last = busy.query(0.0, before);
        for (std::size_t i = 0; i < last.persistent.size(); ++i)
            last.persistent[i].normalImpulse = 0.1 * static_cast<double>(k + i);
    }
    ASSERT_EQ(last.points.size(), 4u);  // the face on the slab: its four corners

    CollisionWorld fresh(cubeOnSlab());
    fresh.setPartPose(1, cubePose(0.2, 0.01));  // a query elsewhere first
    fresh.query(0.0, {});
    fresh.setPartPose(1, cubePose(0.05, 5e-4));
    const ContactQuery again = fresh.query(0.0, before);
    ContactQuery expected = busy.query(0.0, before);
    EXPECT_TRUE(samePoints(again, expected));
}

// Two parts of two shapes each (a compound: a ball with a rod, as in Newton's cradle), their
// balls 0.1 mm into each other: one point between the balls, whatever the parts' order.
TEST(CollisionWorld, CompoundPartsTouchEachOther) {
    SceneSpec spec;
    for (int k = 0; k < 2; ++k) {
        Part part;
        part.id = spec.newId();
        part.name = "ball" + std::to_string(k);
        Shape ball;
        ball.type = ShapeType::Sphere;
        ball.radius = 0.025;
        Shape rod;
        rod.type = ShapeType::Cylinder;
        rod.radius = 0.0015;
        rod.length = 0.175;
        rod.X_PG.p = Vec3(0, 0, 0.1125);
        part.shapes = {ball, rod};
        part.X_WP.p = Vec3((0.05 - 1e-4) * k, 0, 0);
        spec.parts.push_back(part);
    }
    CollisionWorld world(spec);
    const ContactQuery found = world.query(0.0, {});
    ASSERT_EQ(found.points.size(), 1u);
    const ContactPoint& point = found.points[0];
    EXPECT_EQ(point.partA, 0u);
    EXPECT_EQ(point.partB, 1u);
    EXPECT_NEAR(point.depth, 1e-4, 1e-12);
    EXPECT_NEAR(point.n_AB_W.x(), 1.0, 1e-12);
    EXPECT_EQ(found.persistent[0].shapeA, 0);  // (the balls: each part's shape 0)
    EXPECT_EQ(found.persistent[0].shapeB, 0);
}

// A packed floor of 24 × 24 parts (cubes, and pairs of half cubes as one part), each turned a
// little and pressed 0.1 mm into its neighbours and the plane: over 1,600 pairs and 6,000 points,
// found and merged on the threads with two. A query, then one from slightly moved poses with
// the first one's points kept (their impulses set): the same bit for bit on one thread and on
// two.
// A world of `spec` on `threads` threads: a first query, then a second with the first's points
// kept, `between(world, first)` having moved parts and changed the kept points.
template <class Between>
std::pair<ContactQuery, ContactQuery> twoQueries(const SceneSpec& spec, int threads,
                                                 const Between& between) {
    const int before = workerThreads();
    setWorkerThreads(threads);
    CollisionWorld world(spec);
    ContactQuery first = world.query(1e-3, {});
    between(world, first);
    ContactQuery second = world.query(1e-3, first.persistent);
    setWorkerThreads(before);
    return {first, second};
}

TEST(CollisionWorld, AQueryIsTheSameBitForBitOnOneThreadAndOnTwo) {
    SceneSpec spec = test::contactScene();
    const int side = 24;
    const double pitch = 0.1 - 1e-4;
    for (int i = 0; i < side; ++i)
        for (int j = 0; j < side; ++j) {
            Transform X;
            X.R = Quat(Eigen::AngleAxisd(1e-3 * ((i * 7 + j * 3) % 5 - 2), Vec3::UnitZ()));
            X.p = Vec3(pitch * i, pitch * j, 0.05 - 1e-4);
            Part& part =
                test::addBox(spec, "part" + std::to_string(i * side + j), Vec3::Constant(0.1), X);
            if ((i + j) % 2 == 0) {  // two half cubes side by side
                Shape half = part.shapes[0];
                half.size = Vec3(0.05, 0.1, 0.1);
                half.X_PG.p = Vec3(-0.025, 0, 0);
                Shape other = half;
                other.X_PG.p = Vec3(0.025, 0, 0);
                part.shapes = {half, other};
            }
        }
    const auto run = [&spec](int threads) {
        return twoQueries(spec, threads, [&spec](CollisionWorld& world, ContactQuery& first) {
            for (std::size_t k = 0; k < first.persistent.size(); ++k)
                first.persistent[k].normalImpulse = 1e-3 * static_cast<double>(k % 17);
            for (std::size_t p = 1; p < spec.parts.size(); ++p) {
                Transform X = spec.parts[p].X_WP;
                X.p.z() -= 2e-5 * static_cast<double>(p % 3);
                world.setPartPose(p, X);
            }
        });
    };
    const auto [first1, second1] = run(1);
    const auto [first2, second2] = run(2);
    EXPECT_GT(first1.points.size(), 6000u);
    EXPECT_GT(second1.points.size(), 6000u);
    EXPECT_TRUE(samePoints(first1, first2));
    EXPECT_TRUE(samePoints(second1, second2));
    for (std::size_t k = 0; k < second1.points.size(); ++k)
        ASSERT_EQ(second1.points[k].persistent, second2.points[k].persistent);
    // (kept points warm-started: their impulses carried to the second query)
    std::size_t warm = 0;
    for (const ContactPoint& point : second1.points) warm += point.normalImpulse > 0.0;
    EXPECT_GT(warm, second1.points.size() / 2);
}

// A ball whose centre is inside a box (the cores meet: Motus's round pairs leave it to Bullet's
// algorithm, made in the narrow phase's chunk when it is needed, its parts' objects posed
// there) among balls beside their boxes (Motus's own points): 300 pairs, every other one sunk,
// each ball 2 cm to 6 cm into its box's top face. Every sunk ball is pushed out along the face,
// as deep as its radius and its centre's depth under the face; the queries (a first, then a
// second with the first's points kept, the balls moved) are the same bit for bit on one thread
// and on two, where the pairs are shared out in chunks.
TEST(CollisionWorld, BallsSunkPastTheirCentresIntoBoxesArePushedOutAlongTheFaceOnAnyThreads) {
    SceneSpec spec = test::contactScene();
    spec.parts[0].shapes.clear();  // (no floor: the pairs of balls and boxes alone)
    const int pairs = 300;
    const double r = 0.05, half = 0.1;
    const auto inset = [](int k) { return 0.02 + 0.04 * (k % 7) / 6.0; };  // centre under the face
    for (int k = 0; k < pairs; ++k) {
        Transform X;
        X.p = Vec3(1.0 * (k % 20), 1.0 * (k / 20), 0.0);
        test::addBox(spec, "box" + std::to_string(k), Vec3::Constant(2 * half), X);
        const double z = k % 2 == 0 ? half - inset(k) : half + r - 0.01;
        test::addBall(spec, "ball" + std::to_string(k), r, X.p + Vec3(0.01, -0.02, z));
    }
    const auto run = [&spec](int threads) {
        return twoQueries(spec, threads, [&spec](CollisionWorld& world, const ContactQuery&) {
            for (std::size_t p = 2; p < spec.parts.size(); p += 2) {
                Transform X = spec.parts[p].X_WP;
                X.p.x() += 1e-3;
                world.setPartPose(p, X);
            }
        });
    };
    const auto [first1, second1] = run(1);
    const auto [first2, second2] = run(2);
    EXPECT_TRUE(samePoints(first1, first2));
    EXPECT_TRUE(samePoints(second1, second2));
    for (const ContactQuery* query : {&first1, &second1}) {
        const double moved = query == &second1 ? 1e-3 : 0.0;
        int sunk = 0;
        for (const ContactPoint& c : query->points) {
            // (parts: the ground, then box k at 2k + 1 and its ball at 2k + 2)
            const auto k = static_cast<int>((c.partA - 1) / 2);
            ASSERT_EQ(c.partB, c.partA + 1);
            const Vec3 boxToBall = c.n_AB_W;
            if (k % 2 == 1) {
                EXPECT_NEAR(c.depth, 0.01, 1e-9) << k;
                continue;
            }
            ++sunk;
            EXPECT_NEAR(c.depth, r + inset(k), 1e-9) << k;
            EXPECT_LT((boxToBall - Vec3::UnitZ()).norm(), 1e-9) << k;
            // (under the ball's centre where this query put it, to Bullet's 1e-9 for a centre
            // inside a box: its object posed before Bullet's algorithm read it)
            EXPECT_NEAR(c.p_WB_W.x(), 1.0 * (k % 20) + 0.01 + moved, 1e-8) << k;
            EXPECT_NEAR(c.p_WB_W.y(), 1.0 * (k / 20) - 0.02, 1e-8) << k;
        }
        EXPECT_EQ(sunk, pairs / 2);
    }
}

// On two threads a query asked for its points in ranges leaves them in the ranges its threads
// wrote (no copy): joined, they are the points a query asked for them in one list finds, with
// the same records kept — a first query and a second with the first's points kept (the range
// buffers handed back and forth). On one thread there is one range: the points come in the list.
TEST(CollisionWorld, PointsLeftInTheThreadsRangesAreTheQuerysPointsInOrder) {
    SceneSpec spec = test::contactScene();
    for (int i = 0; i < 30; ++i)
        for (int j = 0; j < 20; ++j) {
            Transform X;
            X.R = Quat(Eigen::AngleAxisd(1e-3 * ((i * 7 + j * 3) % 5 - 2), Vec3::UnitZ()));
            X.p = Vec3((0.1 - 1e-4) * i, (0.1 - 1e-4) * j, 0.05 - 1e-4);
            test::addBox(spec, "box" + std::to_string(i * 20 + j), Vec3::Constant(0.1), X);
        }
    const int before = workerThreads();
    setWorkerThreads(2);
    CollisionWorld inList(spec), inRanges(spec);
    ContactQuery listed, ranged;
    for (int query = 0; query < 2; ++query) {
        const std::vector<ContactPointState> kept = listed.persistent;
        inList.query(1e-3, kept, listed);
        inRanges.query(1e-3, kept, ranged, PointsIn::Ranges);
        EXPECT_GT(ranged.rangeCount, 1u) << query;
        EXPECT_GT(listed.points.size(), 2000u) << query;
        ranged.joinRanges();
        EXPECT_EQ(ranged.rangeCount, 0u);
        EXPECT_TRUE(samePoints(listed, ranged)) << query;
        ASSERT_EQ(listed.points.size(), ranged.points.size());
        for (std::size_t k = 0; k < listed.points.size(); ++k)
            ASSERT_EQ(listed.points[k].persistent, ranged.points[k].persistent) << query;
    }
    setWorkerThreads(1);
    CollisionWorld alone(spec);
    ContactQuery one;
    alone.query(1e-3, {}, one, PointsIn::Ranges);
    setWorkerThreads(before);
    EXPECT_EQ(one.rangeCount, 0u);
    EXPECT_GT(one.points.size(), 2000u);
}

// Kept points handed back in another order than the query's own (a state put together
// elsewhere) are merged as the same points in canonical order are: the query's pairs' second
// half given first, each pair's points as they were, on one thread and on two.
TEST(CollisionWorld, KeptPointsGivenInAnotherOrderAreMergedAsInTheirOwn) {
    SceneSpec spec = test::contactScene();
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
            Transform X;
            X.R = Quat(Eigen::AngleAxisd(1e-3 * ((i * 5 + j) % 7 - 3), Vec3::UnitZ()));
            X.p = Vec3(0.0999 * i, 0.0999 * j, 0.05 - 1e-4);
            test::addBox(spec, "part" + std::to_string(i * 16 + j), Vec3::Constant(0.1), X);
        }
    for (int threads : {1, 2}) {
        const int before = workerThreads();
        setWorkerThreads(threads);
        CollisionWorld world(spec), other(spec);
        ContactQuery first = world.query(1e-3, {});
        (void)other.query(1e-3, {});
        for (std::size_t k = 0; k < first.persistent.size(); ++k)
            first.persistent[k].normalImpulse = 1e-3 * static_cast<double>(k % 13 + 1);
        // (each pair's points together, the pairs from the middle on first)
        std::vector<std::size_t> pairStart;
        for (std::size_t k = 0; k < first.persistent.size(); ++k) {
            const ContactPointState& c = first.persistent[k];
            if (k == 0 || c.partA != first.persistent[k - 1].partA ||
                c.partB != first.persistent[k - 1].partB ||
                c.shapeA != first.persistent[k - 1].shapeA ||
                c.shapeB != first.persistent[k - 1].shapeB)
                pairStart.push_back(k);
        }
        ASSERT_GT(pairStart.size(), 400u);
        const auto middle = static_cast<std::ptrdiff_t>(pairStart[pairStart.size() / 2]);
        std::vector<ContactPointState> turned(first.persistent.begin() + middle,
                                              first.persistent.end());
        turned.insert(turned.end(), first.persistent.begin(), first.persistent.begin() + middle);
        for (std::size_t p = 1; p < spec.parts.size(); ++p) {
            Transform X = spec.parts[p].X_WP;
            X.p.z() -= 1e-5 * static_cast<double>(p % 3);
            world.setPartPose(p, X);
            other.setPartPose(p, X);
        }
        const ContactQuery own = world.query(1e-3, first.persistent);
        const ContactQuery given = other.query(1e-3, turned);
        setWorkerThreads(before);
        EXPECT_GT(own.points.size(), 1000u) << threads;
        EXPECT_TRUE(samePoints(own, given)) << threads;
        std::size_t warm = 0;
        for (const ContactPoint& point : given.points) warm += point.normalImpulse > 0.0;
        EXPECT_GT(warm, given.points.size() / 2) << threads;
    }
}

// A point found again near a kept one inherits its impulses (the solver's warm start) and
// its age; points that moved apart beyond the breaking distance are forgotten.
TEST(CollisionWorld, KeptPointsCarryTheirImpulsesToTheNextQuery) {
    CollisionWorld world(cubeOnSlab());
    world.setPartPose(1, cubePose(0.0, 0.0));
    ContactQuery first = world.query(0.0, {});
    ASSERT_EQ(first.points.size(), 4u);
    for (std::size_t i = 0; i < first.persistent.size(); ++i) {
        EXPECT_EQ(first.persistent[i].partA, 0);
        EXPECT_EQ(first.persistent[i].partB, 1);
        EXPECT_EQ(first.persistent[i].age, 1);
        first.persistent[i].normalImpulse = 1.0 + static_cast<double>(i);
        first.persistent[i].frictionImpulse_W = Vec3(0.5, 0.0, 0.0);
    }
    world.setPartPose(1, cubePose(0.0, 2e-4));  // slid by 0.2 mm
    const ContactQuery second = world.query(0.0, first.persistent);
    ASSERT_EQ(second.points.size(), 4u);
    std::set<double> impulses;
    for (const ContactPoint& c : second.points) {
        impulses.insert(c.normalImpulse);
        EXPECT_EQ(c.frictionImpulse_W, Vec3(0.5, 0.0, 0.0));
        const ContactPointState& kept = second.persistent[c.persistent];
        EXPECT_EQ(kept.age, 2);
        EXPECT_NEAR(c.depth, 1e-3, 1e-9);
        EXPECT_NEAR(-kept.distance, c.depth, 1e-15);
        EXPECT_LT((c.n_AB_W - Vec3::UnitZ()).norm(), 1e-9);  // slab (A) to cube (B)
    }
    EXPECT_EQ(impulses, (std::set<double>{1.0, 2.0, 3.0, 4.0}));

    // Lifted 5 cm: nothing touches, nothing is kept.
    Transform lifted = cubePose(0.0, 0.0);
    lifted.p.z() += 0.05;
    world.setPartPose(1, lifted);
    const ContactQuery third = world.query(0.0, second.persistent);
    EXPECT_TRUE(third.points.empty());
    EXPECT_TRUE(third.persistent.empty());

    // Points naming parts that are not in the scene are ignored, never read out of range.
    std::vector<ContactPointState> hostile(1);
    hostile[0].partA = 1;
    hostile[0].partB = 7;
    world.setPartPose(1, cubePose(0.0, 0.0));
    EXPECT_EQ(world.query(0.0, hostile).points.size(), 4u);
}

TEST(CollisionWorld, SeparatedPartsGiveNoContactUnlessWithinTheMargin) {
    CollisionWorld world(sphereOverSlab(0.15));  // 5 cm gap
    EXPECT_TRUE(world.findContacts().empty());

    // Moving the ball down through setPartPose brings it into contact.
    Transform X_WP;
    X_WP.p = Vec3(0.0, 0.0, 0.095);
    world.setPartPose(1, X_WP);
    const auto contacts = world.findContacts();
    ASSERT_FALSE(contacts.empty());
    EXPECT_NEAR(contacts.front().depth, 0.005, 1e-12);
}

TEST(CollisionWorld, AMovingMeshCollidesThroughItsConvexHull) {
    // The 0.2 × 0.1 × 0.05 m box mesh, sunk 2 mm into the slab.
    SceneSpec spec = sphereOverSlab(1.0);
    std::string error;
    Shape mesh;
    mesh.type = ShapeType::Mesh;
    mesh.mesh = io::loadMesh(MOTUS_SOURCE_DIR "/tests/engine/io/data/box.obj", error);
    ASSERT_TRUE(mesh.mesh) << error;
    spec.parts[1].shapes = {mesh};
    spec.parts[1].X_WP.p = Vec3(0, 0, 0.025 - 0.002);
    CollisionWorld world(spec);
    const auto contacts = world.findContacts();
    ASSERT_FALSE(contacts.empty());
    for (const ContactPoint& c : contacts) EXPECT_NEAR(c.depth, 0.002, 1e-6);  // float mesh data
}

// Objects are placed before they are added to the broadphase: added at the origin, every
// bounding box overlapped every other and the pair cache held N²/2 pairs (10,000 boxes: 47 s
// and 3.5 GB before the first step; 25,000 crashed Bullet).
TEST(CollisionWorld, BoxesApartOnAPlaneOnlyPairWithThePlane) {
    SceneSpec spec = test::contactScene();  // the ground plane
    const int side = 30;
    for (int k = 0; k < side * side; ++k) {
        Transform X_WP;
        X_WP.p = Vec3(0.2 * (k % side), 0.2 * (k / side), 0.049);
        test::addBox(spec, "box" + std::to_string(k), Vec3::Constant(0.1), X_WP);
    }
    CollisionWorld world(spec);
    EXPECT_EQ(world.objectCount(), std::size_t{side * side + 1});
    EXPECT_EQ(world.overlappingPairCount(), std::size_t{side * side});     // each box and the plane
    EXPECT_EQ(world.findContacts().size(), std::size_t{4 * side * side});  // each box's corners
    // A query pads each box by Bullet's 5 cm margin: neighbours 0.1 m apart pair too, so each
    // box has at most its 8 neighbours and the plane (O(N), where it was N²/2).
    EXPECT_LE(world.overlappingPairCount(), std::size_t{9 * side * side});
}

TEST(CollisionWorld, PartsWithoutGeometryHaveNoCollisionObject) {
    const SceneSpec spec = test::pendulum();  // the ground has no shapes
    CollisionWorld world(spec);
    EXPECT_EQ(world.objectCount(), 1u);
    EXPECT_TRUE(world.findContacts().empty());
}

}  // namespace
}  // namespace engine::contact

namespace engine::contact {
namespace {

// Two boxes overlapping a plane and each other.
SceneSpec overlappingBoxes() {
    SceneSpec spec = test::contactScene();
    Transform X;
    X.p = Vec3(0.0, 0.0, 0.049);
    test::addBox(spec, "a", Vec3::Constant(0.1), X);
    X.p = Vec3(0.0, 0.0, 0.148);
    test::addBox(spec, "b", Vec3::Constant(0.1), X);
    return spec;
}

std::set<std::pair<std::size_t, std::size_t>> touchingPairs(const SceneSpec& spec) {
    CollisionWorld world(spec);
    std::set<std::pair<std::size_t, std::size_t>> pairs;
    for (const ContactPoint& c : world.findContacts()) pairs.insert({c.partA, c.partB});
    return pairs;
}

using Pairs = std::set<std::pair<std::size_t, std::size_t>>;

TEST(CollisionFiltering, EveryOverlappingPairTouchesByDefault) {
    EXPECT_EQ(touchingPairs(overlappingBoxes()), (Pairs{{0, 1}, {1, 2}}));
}

// overlappingBoxes() with a and b joined by a hinge.
SceneSpec hingedBoxes() {
    SceneSpec spec = overlappingBoxes();
    spec.parts[1].markers = {test::marker(spec, "m", Vec3(0, 0, 0.05))};
    spec.parts[2].markers = {test::marker(spec, "m", Vec3(0, 0, -0.05))};
    Joint hinge;
    hinge.id = spec.newId();
    hinge.name = "hinge";
    hinge.markerI = {"b", "m"};
    hinge.markerJ = {"a", "m"};
    spec.joints = {hinge};
    return spec;
}

TEST(CollisionFiltering, PartsJoinedByAJointDoNotTouchUnlessTheJointSaysSo) {
    SceneSpec spec = hingedBoxes();
    EXPECT_EQ(touchingPairs(spec), (Pairs{{0, 1}}));
    spec.joints[0].collide = true;
    EXPECT_EQ(touchingPairs(spec), (Pairs{{0, 1}, {1, 2}}));
}

TEST(CollisionFiltering, SwitchGroupsMasksAndPairEntriesLeavePairsOut) {
    SceneSpec spec = overlappingBoxes();
    spec.parts[2].collision.enabled = false;
    EXPECT_EQ(touchingPairs(spec), (Pairs{{0, 1}}));

    spec = overlappingBoxes();
    spec.parts[1].collision.group = 2;  // a is in group 2, b's mask leaves it out
    spec.parts[2].collision.mask = ~2u;
    EXPECT_EQ(touchingPairs(spec), (Pairs{{0, 1}}));

    spec = overlappingBoxes();
    spec.contact.pairs.push_back(
        {spec.newId(), "off", "ground", "a", false, std::nullopt, std::nullopt, {}});
    EXPECT_EQ(touchingPairs(spec), (Pairs{{1, 2}}));
}

// Kept points handed to a query between parts that may not touch (a group and mask, a pair
// entry, a joint) are dropped, not merged: the points of a and b found where they may touch,
// handed to worlds where they may not.
TEST(CollisionFiltering, KeptPointsOfPartsThatMayNotTouchAreDropped) {
    const auto between = [](const std::vector<ContactPointState>& points) {
        return std::count_if(points.begin(), points.end(), [](const ContactPointState& c) {
            return c.partA == 1 && c.partB == 2;
        });
    };
    const SceneSpec touching = overlappingBoxes();
    const std::vector<ContactPointState> kept = CollisionWorld(touching).query(0.0, {}).persistent;
    ASSERT_GT(between(kept), 0);
    EXPECT_EQ(between(CollisionWorld(touching).query(0.0, kept).persistent), between(kept));

    SceneSpec grouped = overlappingBoxes();
    grouped.parts[1].collision.group = 2;
    grouped.parts[2].collision.mask = ~2u;
    SceneSpec entry = overlappingBoxes();
    entry.contact.pairs.push_back(
        {entry.newId(), "off", "a", "b", false, std::nullopt, std::nullopt, {}});
    for (const SceneSpec& spec : {grouped, entry, hingedBoxes()}) {
        const ContactQuery found = CollisionWorld(spec).query(0.0, kept);
        EXPECT_EQ(between(found.persistent), 0);
        EXPECT_FALSE(found.persistent.empty());  // (a on the ground kept)
    }
}

// A ground plane (z = 0) and one moving part with the given shapes at X_WP.
SceneSpec onPlane(std::vector<Shape> shapes, const Transform& X_WP) {
    Shape plane;
    plane.type = ShapeType::Plane;
    return groundAndPart(plane, "body", std::move(shapes), X_WP);
}

// Polyhedra meet the ground plane at their vertices, all of them in one query: a face resting
// on the plane gives its corners, an edge its two ends, with exact depths.
TEST(CollisionWorld, APolyhedronOnThePlaneTouchesAtEveryVertexBelowIt) {
    Shape cube;
    cube.type = ShapeType::Box;
    cube.size = Vec3(0.2, 0.1, 0.1);
    Transform flat;
    flat.R = Quat(Eigen::AngleAxisd(0.4, Vec3::UnitZ()));
    flat.p = Vec3(0.3, -0.2, 0.05 - 1e-3);  // sunk 1 mm
    {
        CollisionWorld world(onPlane({cube}, flat));
        const std::vector<ContactPoint> points = world.findContacts();
        ASSERT_EQ(points.size(), 4u);
        std::set<std::pair<long, long>> corners;
        for (const ContactPoint& c : points) {
            EXPECT_EQ(c.partA, 0u);  // plane (A) to cube (B): the normal points up
            EXPECT_LT((c.n_AB_W - Vec3::UnitZ()).norm(), 1e-12);
            EXPECT_NEAR(c.depth, 1e-3, 1e-12);
            EXPECT_NEAR(c.p_WA_W.z(), 0.0, 1e-12);    // on the plane
            EXPECT_NEAR(c.p_WB_W.z(), -1e-3, 1e-12);  // the cube's corner
            const Vec3 local = flat.R.inverse() * (c.p_WB_W - flat.p);
            EXPECT_NEAR(std::abs(local.x()), 0.1, 1e-12);
            EXPECT_NEAR(std::abs(local.y()), 0.05, 1e-12);
            corners.insert({std::lround(local.x() * 100), std::lround(local.y() * 100)});
        }
        EXPECT_EQ(corners.size(), 4u);  // four different corners
    }
    {
        // Tipped 30° about its long axis onto an edge sunk 1 mm: the edge's two ends.
        Transform edge;
        edge.R = Quat(Eigen::AngleAxisd(kPi / 6, Vec3::UnitX()));
        const double reach = 0.05 * std::cos(kPi / 6) + 0.05 * std::sin(kPi / 6);
        edge.p = Vec3(0, 0, reach - 1e-3);
        CollisionWorld world(onPlane({cube}, edge));
        const std::vector<ContactPoint> points = world.findContacts();
        ASSERT_EQ(points.size(), 2u);
        EXPECT_NEAR(std::abs(points[0].p_WB_W.x() - points[1].p_WB_W.x()), 0.2, 1e-12);
        for (const ContactPoint& c : points) EXPECT_NEAR(c.depth, 1e-3, 1e-12);
    }
    {
        // A part of two boxes side by side (a compound): each box's four corners.
        Shape left = cube, right = cube;
        left.X_PG.p = Vec3(-0.15, 0, 0);
        right.X_PG.p = Vec3(0.15, 0, 0);
        CollisionWorld world(onPlane({left, right}, flat));
        const ContactQuery found = world.query(0.0, {});
        ASSERT_EQ(found.points.size(), 8u);
        int onRight = 0;
        for (const ContactPointState& kept : found.persistent) onRight += kept.shapeB == 1;
        EXPECT_EQ(onRight, 4);
        for (const ContactPoint& c : found.points) EXPECT_NEAR(c.depth, 1e-3, 1e-12);
    }
    {
        // The convex hull of a mesh: a triangular prism lying on a rectangular face.
        auto prism = std::make_shared<TriangleMesh>();
        for (double x : {-0.1, 0.1}) {
            prism->vertices.push_back(Vec3(x, -0.05, 0.0));
            prism->vertices.push_back(Vec3(x, 0.05, 0.0));
            prism->vertices.push_back(Vec3(x, 0.0, 0.08));
        }
        prism->triangles = {{0, 2, 1}, {3, 4, 5}, {0, 1, 4}, {0, 4, 3},
                            {1, 2, 5}, {1, 5, 4}, {2, 0, 3}, {2, 3, 5}};
        Shape hull;
        hull.type = ShapeType::Mesh;
        hull.mesh = prism;
        Transform resting;
        resting.p = Vec3(0, 0, -1e-3);
        CollisionWorld world(onPlane({hull}, resting));
        const std::vector<ContactPoint> points = world.findContacts();
        ASSERT_EQ(points.size(), 4u);
        for (const ContactPoint& c : points) EXPECT_NEAR(c.depth, 1e-3, 1e-12);
    }
}

// A part near the ground plane keeps every point within its breaking distance (the pair's
// points are wanted up to it: the ones beyond the margin are kept for later queries), however
// the plane and the part are turned: the narrow phase passes a shape–plane pair by only when
// the shape's box lies beyond that distance, never a pair with a point in reach. A box on a
// face, a ball, a capsule and a cylinder lying, a cylinder standing, each its lowest point(s) a
// gap above the plane, from 0.98 to 1.02 of the breaking distance Bullet gives the shape; the
// plane level (the parts' boxes as low as the parts: the pass-by decides at the edge of reach)
// and tilted 0.5 rad.
TEST(CollisionWorld, APartNearThePlaneKeepsEveryPointWithinItsBreakingDistance) {
    for (const bool tilted : {false, true}) {
        Transform X_WG;  // the ground: its plane tilted or not, its origin off the world's
        if (tilted) X_WG.R = Quat(Eigen::AngleAxisd(0.5, Vec3(1, 2, 0).normalized()));
        X_WG.p = Vec3(0.3, -0.2, 0.1);
        Shape plane;
        plane.type = ShapeType::Plane;
        struct Case {
            Shape shape;
            Quat R_GP;      // the part in the ground's frame
            double lowest;  // its lowest points below its origin, along the plane's normal
            int points;     // as many at the same gap
            std::unique_ptr<btCollisionShape> bullet;  // the shape as the world makes it
        };
        std::vector<Case> cases;
        const Quat yaw(Eigen::AngleAxisd(0.7, Vec3::UnitZ()));
        const Quat lying = yaw * Quat(Eigen::AngleAxisd(kPi / 2, Vec3::UnitX()));
        {
            Shape box;
            box.type = ShapeType::Box;
            box.size = Vec3(0.2, 0.1, 0.06);
            auto bullet = std::make_unique<btBoxShape>(btVector3(0.1, 0.05, 0.03));
            bullet->setMargin(1e-3);
            cases.push_back({box, yaw, 0.03, 4, std::move(bullet)});
        }
        {
            Shape ball;
            ball.type = ShapeType::Sphere;
            ball.radius = 0.05;
            cases.push_back({ball, yaw, 0.05, 1, std::make_unique<btSphereShape>(0.05)});
        }
        {
            Shape capsule;
            capsule.type = ShapeType::Capsule;
            capsule.radius = 0.035;
            capsule.length = 0.1;
            cases.push_back(
                {capsule, lying, 0.035, 2, std::make_unique<btCapsuleShapeZ>(0.035, 0.1)});
        }
        for (const bool standing : {false, true}) {
            Shape cylinder;
            cylinder.type = ShapeType::Cylinder;
            cylinder.radius = 0.05;
            cylinder.length = 0.12;
            auto bullet = std::make_unique<btCylinderShapeZ>(btVector3(0.05, 0.05, 0.06));
            bullet->setMargin(1e-3);
            cases.push_back({cylinder, standing ? yaw : lying, standing ? 0.06 : 0.05,
                             standing ? 4 : 2, std::move(bullet)});
        }
        for (const Case& c : cases) {
            const double breaking =
                c.bullet->getContactBreakingThreshold(gContactBreakingThreshold);
            ASSERT_GT(breaking, 1e-4);
            for (const double fraction : {0.98, 0.995, 1.005, 1.02}) {
                const double gap = fraction * breaking;
                Transform X_WP;
                X_WP.R = X_WG.R * c.R_GP;
                X_WP.p = X_WG * Vec3(0.2, -0.1, c.lowest + gap);
                SceneSpec spec = groundAndPart(plane, "part", {c.shape}, X_WP);
                spec.parts[0].X_WP = X_WG;
                const ContactQuery found = CollisionWorld(spec).query(0.0, {});
                SCOPED_TRACE(::testing::Message() << (tilted ? "tilted, " : "level, ") << "shape "
                                                  << static_cast<int>(c.shape.type) << ", gap "
                                                  << fraction << " of " << breaking);
                if (fraction < 1.0) {
                    ASSERT_EQ(found.persistent.size(), static_cast<std::size_t>(c.points));
                    for (const ContactPointState& kept : found.persistent)
                        EXPECT_NEAR(kept.distance, gap, 1e-12);
                } else {
                    EXPECT_TRUE(found.persistent.empty());
                }
                EXPECT_TRUE(found.points.empty());  // (none within the margin, 0)
            }
        }
    }
}

}  // namespace
}  // namespace engine::contact
