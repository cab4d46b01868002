// Collision queries through Bullet: the pile-K layout (5 x 5 columns of 0.1 m cubes on a
// 0.11 m pitch, layers 0.11 m apart) settled by 2 mm so every resting contact is active.

#include <benchmark/benchmark.h>

#include "engine/contact/collision_world.h"

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

}  // namespace
