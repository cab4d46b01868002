// #49's contact scenes in Bullet 3.24's own rigid-body world, beside BM_ContactPile,
// BM_ContactScatter and BM_ChainThroughPile: the same SceneSpec (tests/support/contact_scenes.h)
// as btRigidBody objects, as a Bullet user would set them up and as ../shared/peers sets up
// pile-K — btDiscreteDynamicsWorld, btDbvtBroadphase, btSequentialImpulseConstraintSolver with
// its defaults (10 iterations, split impulse, the shapes' default collision margin), one step of
// 1 ms per stepSimulation, no sleeping (every part does the same work every step, as Motus's
// `sleep:0` runs). Each part's mass and inertia are the SceneSpec's (exact for its shape and
// density); friction μ = 0.5 per contact (Bullet multiplies the two bodies': √0.5 each), no
// restitution. The chain's links are joined by btPoint2PointConstraint (a spherical joint, the
// neighbours' collisions switched off as Motus does), its head held by one more to a world point
// moved at the scene's speed each step (Bullet's way to drag a part; the constraint is soft, as
// MuJoCo's `connect`). Counters as Motus's: µs per step, the share of it in Bullet's collision
// detection (performDiscreteCollisionDetection: broadphase and narrow phase), and at the end the
// largest speed, the deepest penetration, the parts below the floor and the contact points.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <vector>

#include <benchmark/benchmark.h>
#include <btBulletDynamicsCommon.h>

#include "engine/math/constants.h"
#include "tests/support/contact_scenes.h"

namespace {

using namespace engine;

btVector3 bt(const Vec3& v) {
    return {v.x(), v.y(), v.z()};
}
btTransform bt(const Transform& X) {
    return btTransform(btQuaternion(X.R.x(), X.R.y(), X.R.z(), X.R.w()), bt(X.p));
}

// Bullet's world with the time it spends in collision detection.
class TimedWorld final : public btDiscreteDynamicsWorld {
public:
    using btDiscreteDynamicsWorld::btDiscreteDynamicsWorld;
    double collisionSeconds = 0.0;
    void performDiscreteCollisionDetection() override {
        const auto start = std::chrono::steady_clock::now();
        btDiscreteDynamicsWorld::performDiscreteCollisionDetection();
        collisionSeconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
};

// A part's only shape, its mass and its principal inertia about its centre (the shapes of these
// scenes sit at the part's origin, their axes along the part's), for the part's density or mass.
struct Body {
    std::unique_ptr<btCollisionShape> shape;
    double mass = 0.0;
    btVector3 inertia;
};

Body bodyOf(const Part& part) {
    const Shape& s = part.shapes.front();
    const double r = s.radius, L = s.length;
    double volume = 0.0;
    Body body;
    switch (s.type) {
    case ShapeType::Box:
        body.shape = std::make_unique<btBoxShape>(bt(0.5 * s.size));
        volume = s.size.prod();
        break;
    case ShapeType::Sphere:
        body.shape = std::make_unique<btSphereShape>(r);
        volume = 4.0 / 3.0 * kPi * r * r * r;
        break;
    case ShapeType::Capsule:
        body.shape = std::make_unique<btCapsuleShapeZ>(r, L);
        volume = kPi * r * r * L + 4.0 / 3.0 * kPi * r * r * r;
        break;
    case ShapeType::Cylinder:
        body.shape = std::make_unique<btCylinderShapeZ>(btVector3(r, r, 0.5 * L));
        volume = kPi * r * r * L;
        break;
    default:
        return body;
    }
    const double m = part.density ? *part.density * volume : part.mass;
    body.mass = m;
    switch (s.type) {
    case ShapeType::Box: {
        const Vec3 e2 = s.size.cwiseProduct(s.size);
        body.inertia = btVector3(e2.y() + e2.z(), e2.x() + e2.z(), e2.x() + e2.y()) * (m / 12.0);
        break;
    }
    case ShapeType::Sphere:
        body.inertia = btVector3(1, 1, 1) * (0.4 * m * r * r);
        break;
    case ShapeType::Capsule: {  // the straight part and the two half balls
        const double mc = m * (kPi * r * r * L) / volume, ms = m - mc;
        const double axial = 0.5 * mc * r * r + 0.4 * ms * r * r;
        const double across = mc * (L * L / 12.0 + r * r / 4.0) +
                              ms * (0.4 * r * r + L * L / 4.0 + 3.0 * L * r / 8.0);
        body.inertia = btVector3(across, across, axial);
        break;
    }
    case ShapeType::Cylinder: {
        const double across = m * (3.0 * r * r + L * L) / 12.0;
        body.inertia = btVector3(across, across, 0.5 * m * r * r);
        break;
    }
    default:
        break;
    }
    return body;
}

// A SceneSpec's ground plane and free parts in Bullet (parts with a frame motion or without
// geometry left out; the chain's links are added by the chain's benchmark).
struct Sim {
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher{&configuration};
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    TimedWorld world{&dispatcher, &broadphase, &solver, &configuration};
    std::vector<std::unique_ptr<btCollisionShape>> shapes;
    std::vector<std::unique_ptr<btRigidBody>> bodies;  // the ground first
    std::vector<std::unique_ptr<btTypedConstraint>> joints;
    const double friction = std::sqrt(0.5);

    Sim() {
        world.setGravity(btVector3(0, 0, -9.81));
        shapes.push_back(std::make_unique<btStaticPlaneShape>(btVector3(0, 0, 1), 0.0));
        btRigidBody::btRigidBodyConstructionInfo info(0.0, nullptr, shapes.back().get());
        info.m_friction = friction;
        info.m_restitution = 0.0;
        bodies.push_back(std::make_unique<btRigidBody>(info));
        world.addRigidBody(bodies.back().get());
    }
    ~Sim() {
        for (auto& joint : joints) world.removeConstraint(joint.get());
        for (auto& body : bodies) world.removeRigidBody(body.get());
    }
    Sim(const Sim&) = delete;
    Sim& operator=(const Sim&) = delete;

    btRigidBody* add(const Part& part) {
        Body body = bodyOf(part);
        if (!body.shape) return nullptr;
        btRigidBody::btRigidBodyConstructionInfo info(body.mass, nullptr, body.shape.get(),
                                                      body.inertia);
        info.m_startWorldTransform = bt(part.X_WP);
        info.m_friction = friction;
        info.m_restitution = 0.0;
        shapes.push_back(std::move(body.shape));
        bodies.push_back(std::make_unique<btRigidBody>(info));
        btRigidBody* rigid = bodies.back().get();
        rigid->setActivationState(DISABLE_DEACTIVATION);  // no sleeping
        world.addRigidBody(rigid);
        return rigid;
    }
    void addFreeParts(const SceneSpec& spec, const char* skipPrefix = nullptr) {
        for (const Part& part : spec.parts) {
            if (part.ground || part.frameMotion || part.shapes.empty()) continue;
            if (skipPrefix && part.name.rfind(skipPrefix, 0) == 0) continue;
            add(part);
        }
    }

    // Steps of 1 ms, timed; `before` runs before each step (untimed share of nothing: it is
    // inside the timing, as Motus's frame motion is inside its step).
    template <class Before>
    double run(int steps, Before before) {
        const auto start = std::chrono::steady_clock::now();
        for (int k = 0; k < steps; ++k) {
            before(k);
            world.stepSimulation(1e-3, 0);  // maxSubSteps 0: exactly one step of 1 ms
        }
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }

    void counters(benchmark::State& state, double seconds, int steps) const {
        double speed = 0.0, depth = 0.0;
        int fell = 0, contacts = 0;
        for (std::size_t b = 1; b < bodies.size(); ++b) {
            speed = std::max(speed, bodies[b]->getLinearVelocity().length());
            if (bodies[b]->getCenterOfMassPosition().z() < 0.0) ++fell;
        }
        const btDispatcher& d = dispatcher;
        for (int i = 0; i < d.getNumManifolds(); ++i) {
            const btPersistentManifold* manifold =
                const_cast<btDispatcher&>(d).getManifoldByIndexInternal(i);
            for (int p = 0; p < manifold->getNumContacts(); ++p) {
                const double distance = manifold->getContactPoint(p).getDistance();
                if (distance <= 0.0) ++contacts;
                depth = std::max(depth, -distance);
            }
        }
        state.counters["us_per_step"] = 1e6 * seconds / steps;
        state.counters["collision_share"] = world.collisionSeconds / seconds;
        state.counters["max_speed"] = speed;
        state.counters["max_depth_m"] = depth;
        state.counters["fell"] = fell;
        state.counters["contacts"] = contacts;
    }
};

// A scene of free parts on the floor, 3 s (3,000 steps), timed.
void runFreeParts(benchmark::State& state, const SceneSpec& spec) {
    const int steps = 3000;
    for (auto _ : state) {
        Sim sim;
        sim.addFreeParts(spec);
        const double seconds = sim.run(steps, [](int) {});
        sim.counters(state, seconds, steps);
    }
}

// pile-K (test::boxPile), 3 s: as ../shared/peers's pile-K in Bullet.
void BM_BulletPile(benchmark::State& state) {
    runFreeParts(state, test::boxPile(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_BulletPile)->Arg(400)->Arg(1000)->Unit(benchmark::kMillisecond)->Iterations(1);

// The scatter of K parts (test::scatter), 3 s, no sleeping: beside BM_ContactScatter/…/sleep:0.
void BM_BulletScatter(benchmark::State& state) {
    runFreeParts(state, test::scatter(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_BulletScatter)
    ->Arg(1000)
    ->Arg(10000)
    ->ArgName("parts")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// The chain of 30 capsules dragged through pile-100 (test::chainThroughPile), 4 s: beside
// BM_ChainThroughPile. Counters head_lag_m: how far the head's front end trails the point that
// drags it at the end; max_joint_gap_m: the widest a joint between links stands open then.
void BM_BulletChainThroughPile(benchmark::State& state) {
    const int links = static_cast<int>(state.range(0)), boxes = static_cast<int>(state.range(1));
    const double speed = 1.0;
    const SceneSpec spec = test::chainThroughPile(links, boxes, speed);
    const Part* tractor = nullptr;
    std::vector<const Part*> chain;
    for (const Part& part : spec.parts) {
        if (part.frameMotion) tractor = &part;
        if (part.name.rfind("link", 0) == 0) chain.push_back(&part);
    }
    if (!tractor || chain.empty()) {
        state.SkipWithError("the chain scene has no tractor or no links");
        return;
    }
    const int steps = 4000;
    for (auto _ : state) {
        Sim sim;
        sim.addFreeParts(spec, "link");
        std::vector<btRigidBody*> rigid;
        for (const Part* link : chain) rigid.push_back(sim.add(*link));
        // (the markers: "front" and "back" on every link)
        const btVector3 front = bt(chain.front()->markers.front().X_PM.p);
        const btVector3 back = bt(chain.front()->markers.back().X_PM.p);
        for (std::size_t k = 1; k < rigid.size(); ++k) {
            sim.joints.push_back(
                std::make_unique<btPoint2PointConstraint>(*rigid[k - 1], *rigid[k], back, front));
            sim.world.addConstraint(sim.joints.back().get(), /*disable collisions*/ true);
        }
        auto hitch = std::make_unique<btPoint2PointConstraint>(*rigid.front(), front);
        btPoint2PointConstraint* drag = hitch.get();
        sim.joints.push_back(std::move(hitch));
        sim.world.addConstraint(drag);
        const double x0 = tractor->X_WP.p.x();
        const double seconds = sim.run(steps, [&](int k) {
            drag->setPivotB(
                btVector3(x0 + speed * 1e-3 * (k + 1), tractor->X_WP.p.y(), tractor->X_WP.p.z()));
        });
        sim.counters(state, seconds, steps);
        const btVector3 head = rigid.front()->getWorldTransform()(front);
        state.counters["head_lag_m"] = x0 + speed * 1e-3 * steps - head.x();
        double gap = 0.0;  // the widest a joint stands open at the end
        for (std::size_t k = 1; k < rigid.size(); ++k)
            gap = std::max(gap, (rigid[k - 1]->getWorldTransform()(back) -
                                 rigid[k]->getWorldTransform()(front))
                                    .length());
        state.counters["max_joint_gap_m"] = gap;
    }
}
BENCHMARK(BM_BulletChainThroughPile)
    ->Args({30, 100})
    ->ArgNames({"links", "boxes"})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
