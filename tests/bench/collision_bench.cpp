// Collision queries through Bullet: the pile-K layout (5 x 5 columns of 0.1 m cubes on a
// 0.11 m pitch, layers 0.11 m apart) settled by 2 mm so every resting contact is active.

#include <cmath>
#include <memory>

#include <benchmark/benchmark.h>
#include <btBulletCollisionCommon.h>

#include "engine/contact/collision_world.h"
#include "engine/contact/core_distance.h"
#include "engine/contact/polyhedron_plane.h"
#include "engine/contact/shape_pairs.h"
#include "tests/support/contact_scenes.h"

#include <BulletCollision/NarrowPhaseCollision/btPolyhedralContactClipping.h>

namespace {

engine::SceneSpec pile(int boxes) {
    engine::SceneSpec spec;
    engine::Part ground;
    ground.id = spec.newId();
    ground.name = "ground";
    ground.ground = true;
    engine::Shape slab;
    slab.size = engine::Vec3(4.0, 4.0, 0.2);
    slab.X_PG.p = engine::Vec3(0, 0, -0.1);
    ground.shapes.push_back(slab);
    spec.parts.push_back(ground);
    for (int k = 0; k < boxes; ++k) {
        const int layer = k / 25, column = k % 25;
        engine::Part box;
        box.id = spec.newId();
        box.name = "box" + std::to_string(k);
        box.I_Pcm_P = engine::Mat3::Identity() / 600.0;
        box.X_WP.p =
            engine::Vec3(0.11 * (column % 5 - 2), 0.11 * (column / 5 - 2), 0.048 + 0.098 * layer);
        engine::Shape cube;
        cube.size = engine::Vec3(0.1, 0.1, 0.1);
        box.shapes.push_back(cube);
        spec.parts.push_back(box);
    }
    return spec;
}

void BM_PileContacts(benchmark::State& state) {
    const int boxes = static_cast<int>(state.range(0));
    engine::contact::CollisionWorld world(pile(boxes));
    std::size_t contacts = 0;
    for (auto _ : state) {
        contacts = world.findContacts().size();
        benchmark::DoNotOptimize(contacts);
    }
    state.counters["contacts"] = static_cast<double>(contacts);
}
BENCHMARK(BM_PileContacts)->Arg(25)->Arg(100)->Arg(400)->Unit(benchmark::kMicrosecond);

// The query as a contact step runs it: the new points merged into those kept from the last
// query (every pair has kept points: each new point replaces one, then the pair is refreshed).
void BM_PileContactsKept(benchmark::State& state) {
    const int boxes = static_cast<int>(state.range(0));
    engine::contact::CollisionWorld world(pile(boxes));
    const double margin = 1e-3;
    engine::contact::ContactQuery last = world.query(margin, {}), next;
    for (auto _ : state) {
        world.query(margin, last.persistent, next);
        std::swap(last, next);
        benchmark::DoNotOptimize(last.points.data());
    }
    state.counters["contacts"] = static_cast<double>(last.points.size());
}
BENCHMARK(BM_PileContactsKept)->Arg(25)->Arg(100)->Arg(400)->Unit(benchmark::kMicrosecond);

// One shape on the ground plane, as scatter-10,000's narrow phase finds it each step (2,300
// such pairs a step once it has settled): Arg 0 a 0.1 m cube lying on a face (four corners
// within the breaking distance, four beyond), 1 a ball of radius 0.05 m, 2 a capsule on its
// side (both end spheres), 3 a cylinder on its side (two rim points), 4 a cylinder standing
// (four). Each sunk 10 µm, turned a little about the vertical; the breaking distance 2 cm.
void BM_ShapeOnPlanePoints(benchmark::State& state) {
    const int kind = static_cast<int>(state.range(0));
    std::unique_ptr<btCollisionShape> shape;
    btQuaternion turn(btVector3(0, 0, 1), 0.3);
    btScalar lowest = 0.05;
    switch (kind) {
    case 0:
        shape = std::make_unique<btBoxShape>(btVector3(0.05, 0.05, 0.05));
        break;
    case 1:
        shape = std::make_unique<btSphereShape>(0.05);
        break;
    case 2:  // (Bullet's capsule along y, turned to lie along x)
        shape = std::make_unique<btCapsuleShape>(0.035, 0.1);
        turn *= btQuaternion(btVector3(0, 0, 1), SIMD_HALF_PI);
        lowest = 0.035;
        break;
    case 3:  // (Bullet's cylinder along y: lying)
        shape = std::make_unique<btCylinderShape>(btVector3(0.05, 0.05, 0.05));
        break;
    default:  // (turned to stand on its base)
        shape = std::make_unique<btCylinderShape>(btVector3(0.05, 0.05, 0.05));
        turn *= btQuaternion(btVector3(1, 0, 0), SIMD_HALF_PI);
        break;
    }
    shape->setMargin(1e-3);
    const btStaticPlaneShape plane(btVector3(0, 0, 1), 0.0);
    const btTransform X_WS(turn, btVector3(0.2, -0.1, lowest - 1e-5));
    const btTransform X_WP = btTransform::getIdentity();
    engine::contact::PairPoints points;
    for (auto _ : state) {
        engine::contact::polyhedronPlanePoints(*shape, X_WS, plane, X_WP, 0.02, points);
        benchmark::DoNotOptimize(points.points[0].distance);
    }
    state.counters["points"] = points.count;
}
BENCHMARK(BM_ShapeOnPlanePoints)->DenseRange(0, 4)->Unit(benchmark::kNanosecond);

// A cylinder lying on the floor (scatter-10,000's, radius 0.05 m, length 0.1 m) with a shape
// resting against it, as the narrow phase's face pairs (facePoints: GJK, then the points over
// the faces its normal leaves by; 600 such pairs a step in the settled scatter): Arg 0 a ball
// against its side, 1 a ball on its cap, 2 a cube against its cap, 3 a second cylinder lying
// across it, side to side, 4 a capsule (radius 2 cm) lying across its side (the scatter's most
// frequent: 400 a step), 5 a cube on its side — each 10 µm into it; 6 a capsule lying across its
// rim, 7 a ball on its rim, 8 a cube leaning on its rim, each some millimetres off. The
// breaking distance 2 cm.
void BM_CylinderPairPoints(benchmark::State& state) {
    const int kind = static_cast<int>(state.range(0));
    btCylinderShape cylinder(btVector3(0.05, 0.05, 0.05));  // (along y)
    const btTransform X_WA(btQuaternion(btVector3(0, 0, 1), 0.2), btVector3(0.1, 0.2, 0.05));
    std::unique_ptr<btCollisionShape> other;
    btTransform X_AB = btTransform::getIdentity();  // B in A's frame
    const btScalar in = 1e-5;
    switch (kind) {
    case 0:
        other = std::make_unique<btSphereShape>(0.05);
        X_AB.setOrigin(btVector3(0.1 - in, 0.01, 0.0));
        break;
    case 1:
        other = std::make_unique<btSphereShape>(0.05);
        X_AB.setOrigin(btVector3(0.01, 0.1 - in, 0.0));
        break;
    case 2:
        other = std::make_unique<btBoxShape>(btVector3(0.05, 0.05, 0.05));
        X_AB.setOrigin(btVector3(0.02, 0.1 - in, 0.0));
        X_AB.setRotation(btQuaternion(btVector3(0, 1, 0), 0.4));
        break;
    case 3:
        other = std::make_unique<btCylinderShape>(btVector3(0.05, 0.05, 0.05));
        X_AB.setOrigin(btVector3(0.1 - in, 0.0, 0.0));
        X_AB.setRotation(btQuaternion(btVector3(1, 0, 0), SIMD_HALF_PI));
        break;
    case 4:  // (a capsule lying across the cylinder's side)
        other = std::make_unique<btCapsuleShape>(0.02, 0.1);
        X_AB.setOrigin(btVector3(0.07 - in, 0.01, 0.0));
        X_AB.setRotation(btQuaternion(btVector3(1, 0, 0), SIMD_HALF_PI));
        break;
    case 6:  // (a capsule lying across the cylinder's rim, falling away outwards)
        other = std::make_unique<btCapsuleShape>(0.02, 0.1);
        X_AB.setOrigin(btVector3(0.06, 0.08, 0.01));
        X_AB.setRotation(btQuaternion(btVector3(0, 0, 1), 1.27));
        break;
    case 7:  // (a ball on the cylinder's rim)
        other = std::make_unique<btSphereShape>(0.05);
        X_AB.setOrigin(
            btVector3(0.049 + 0.052 * std::cos(0.5), 0.049 + 0.052 * std::sin(0.5), 0.01));
        break;
    case 8:  // (a cube leaning on the cylinder's rim, tilted inwards)
        other = std::make_unique<btBoxShape>(btVector3(0.03, 0.03, 0.03));
        X_AB.setOrigin(btVector3(0.094, 0.075, 0.0));
        X_AB.setRotation(btQuaternion(btVector3(0, 0, 1), 0.3) *
                         btQuaternion(btVector3(0, 1, 0), 0.4));
        break;
    default:  // (a cube on the cylinder's side, turned about the axis)
        other = std::make_unique<btBoxShape>(btVector3(0.05, 0.05, 0.05));
        X_AB.setOrigin(btVector3(0.1 - in, 0.02, 0.0));
        X_AB.setRotation(btQuaternion(btVector3(1, 0, 0), 0.3));
        break;
    }
    // (the world's margin for such shapes: kShapeMargin, 1 mm)
    cylinder.setMargin(1e-3);
    other->setMargin(1e-3);
    const btTransform X_WB = X_WA * X_AB;
    engine::contact::PairPoints points;
    for (auto _ : state) {
        engine::contact::facePoints(cylinder, X_WA, *other, X_WB, 0.02, points);
        benchmark::DoNotOptimize(points.points[0].distance);
    }
    state.counters["points"] = points.count;
}
BENCHMARK(BM_CylinderPairPoints)->DenseRange(0, 8)->Unit(benchmark::kNanosecond);

// A rock (test::rockMesh: a hull of 42 corners, 6 × 5 × 4 cm) with a second rock, a ball (radius
// 3 cm) or a cylinder (radius 3 cm, length 6 cm) placed along a slanting direction from it: Arg
// 0 10 µm into it, 1 half a millimetre off, 2 a centimetre off (within the padded boxes, beyond
// the breaking distance of 2 mm); the rock pairs by the polytope pairs (Arg 1 of the second
// argument 0) or as Bullet's convex algorithm found them (1: its pair detector — GJK twice, EPA
// where they overlap — and its clipping where they overlap); the ball and the cylinder (kinds 3,
// 4) by the face pairs.
void BM_HullPairPoints(benchmark::State& state) {
    const int kind = static_cast<int>(state.range(0)) % 3,
              other = static_cast<int>(state.range(0)) / 3;
    const bool bullet = state.range(1) == 1;
    const auto hullOf = [](std::uint64_t seed) {
        auto hull = std::make_unique<btConvexHullShape>();
        for (const engine::Vec3& p : engine::test::rockMesh(seed)->vertices)
            hull->addPoint(btVector3(p.x(), p.y(), p.z()), false);
        hull->optimizeConvexHull();
        hull->setMargin(0.0);
        hull->recalcLocalAabb();
        engine::contact::setExactPolyhedron(*hull);
        return hull;
    };
    const std::unique_ptr<btConvexHullShape> rock = hullOf(11);
    std::unique_ptr<btCollisionShape> shape;
    if (other == 0)
        shape = hullOf(23);
    else if (other == 1)
        shape = std::make_unique<btSphereShape>(0.03);
    else
        shape = std::make_unique<btCylinderShapeZ>(btVector3(0.03, 0.03, 0.03));
    if (other == 2) shape->setMargin(1e-3);
    const btTransform X_WB(btQuaternion(btVector3(0.3, -0.2, 1).normalized(), 0.7));
    const btQuaternion turn(btVector3(-0.5, 0.4, 1).normalized(), 2.1);
    const btVector3 dir = btVector3(0.2, 0.3, 1).normalized();
    const auto gapAt = [&](double s) {
        engine::contact::CoreNearest nearest;
        return engine::contact::bulletNearest(*shape, btTransform(turn, s * dir), *rock, X_WB, 1.0,
                                              nearest)
                   ? double(nearest.distance)
                   : 1e9;
    };
    double lo = 0, hi = 0.3;
    for (int k = 0; k < 60; ++k) ((gapAt(0.5 * (lo + hi)) < 0) ? lo : hi) = 0.5 * (lo + hi);
    const double gap = std::array{-1e-5, 5e-4, 1e-2}[static_cast<std::size_t>(kind)];
    const btTransform X_WA(turn, (hi + gap) * dir);
    const btScalar breaking = 2e-3;
    engine::contact::PairPoints points;
    btVertexArray clipped, scratch;
    for (auto _ : state) {
        if (other > 0) {
            engine::contact::facePoints(*shape, X_WA, *rock, X_WB, breaking, points);
        } else if (!bullet) {
            engine::contact::polytopePoints(*shape, X_WA, *rock, X_WB, breaking, points);
        } else {
            engine::contact::CoreNearest nearest;
            points.count = 0;
            if (engine::contact::bulletNearest(*shape, X_WA, *rock, X_WB, breaking, nearest) &&
                nearest.distance < 0) {
                struct Count final : btDiscreteCollisionDetectorInterface::Result {
                    int count = 0;
                    void setShapeIdentifiersA(int, int) override {}
                    void setShapeIdentifiersB(int, int) override {}
                    void addContactPoint(const btVector3&, const btVector3&, btScalar) override {
                        ++count;
                    }
                } counted;
                btPolyhedralContactClipping::clipHullAgainstHull(
                    nearest.normalOnB,
                    *static_cast<const btConvexHullShape&>(*shape).getConvexPolyhedron(),
                    *rock->getConvexPolyhedron(), X_WA, X_WB, nearest.distance - breaking, breaking,
                    clipped, scratch, counted);
                points.count = counted.count;
            }
        }
        benchmark::DoNotOptimize(points.count);
    }
    state.counters["points"] = points.count;
}
BENCHMARK(BM_HullPairPoints)
    ->ArgsProduct({{0, 1, 2}, {0, 1}})
    ->Args({3, 0})
    ->Args({4, 0})
    ->Args({5, 0})
    ->Args({6, 0})
    ->Args({7, 0})
    ->Args({8, 0})
    ->ArgNames({"kind", "bullet"})
    ->Unit(benchmark::kNanosecond);

}  // namespace
