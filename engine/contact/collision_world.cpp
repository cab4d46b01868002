#include "engine/contact/collision_world.h"

#include <btBulletCollisionCommon.h>

static_assert(sizeof(btScalar) == 8,
              "Motus needs double-precision Bullet (BT_USE_DOUBLE_PRECISION "
              "with the -float64 libraries)");

namespace engine::contact {
namespace {

btVector3 toBt(const Vec3& v) {
    return {v.x(), v.y(), v.z()};
}
Vec3 fromBt(const btVector3& v) {
    return {v.x(), v.y(), v.z()};
}
btTransform toBt(const Transform& X) {
    return btTransform(btQuaternion(X.R.x(), X.R.y(), X.R.z(), X.R.w()), toBt(X.p));
}

// Owns what Bullet shapes point to without owning (triangle data of static meshes).
using MeshStore = std::vector<std::unique_ptr<btTriangleMesh>>;

std::unique_ptr<btCollisionShape> makeShape(const Shape& s, bool isStatic, MeshStore& meshes) {
    switch (s.type) {
    case ShapeType::Box: return std::make_unique<btBoxShape>(toBt(s.size * 0.5));
    case ShapeType::Sphere: return std::make_unique<btSphereShape>(s.radius);
    case ShapeType::Cylinder:
        return std::make_unique<btCylinderShapeZ>(btVector3(s.radius, s.radius, 0.5 * s.length));
    case ShapeType::Capsule: return std::make_unique<btCapsuleShapeZ>(s.radius, s.length);
    case ShapeType::Cone: return std::make_unique<btConeShapeZ>(s.radius, s.length);
    case ShapeType::Mesh: {
        if (!s.mesh) return nullptr;
        auto vertex = [&](int k) { return toBt(s.scale.cwiseProduct(s.mesh->vertices[static_cast<std::size_t>(k)])); };
        if (isStatic) {
            // The ground may be concave: its exact triangles, in a bounding-volume tree.
            auto triangles = std::make_unique<btTriangleMesh>();
            for (const auto& t : s.mesh->triangles) triangles->addTriangle(vertex(t[0]), vertex(t[1]), vertex(t[2]));
            auto shape = std::make_unique<btBvhTriangleMeshShape>(triangles.get(), true);
            meshes.push_back(std::move(triangles));
            return shape;
        }
        // A moving part collides through the convex hull of its mesh.
        auto hull = std::make_unique<btConvexHullShape>();
        for (std::size_t k = 0; k < s.mesh->vertices.size(); ++k) hull->addPoint(vertex(static_cast<int>(k)), false);
        hull->optimizeConvexHull();
        // A hull's collision margin pads it outwards (Bullet's default 4 cm); Motus wants the
        // true surface, so contact depths are geometric.
        hull->setMargin(0.0);
        hull->recalcLocalAabb();
        return hull;
    }
    }
    return nullptr;
}

}  // namespace

struct CollisionWorld::Impl {
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher{&configuration};
    btDbvtBroadphase broadphase;
    btCollisionWorld world{&dispatcher, &broadphase, &configuration};

    std::vector<std::unique_ptr<btCollisionShape>> shapes;  // owns leaf and compound shapes
    MeshStore meshes;
    std::vector<std::unique_ptr<btCollisionObject>> objects;
    std::vector<btCollisionObject*> objectOfPart;  // per part; nullptr when it has no geometry

    ~Impl() {
        for (auto& object : objects) world.removeCollisionObject(object.get());
    }
};

CollisionWorld::CollisionWorld(const SceneSpec& spec) : impl_(std::make_unique<Impl>()) {
    impl_->objectOfPart.assign(spec.parts.size(), nullptr);
    for (std::size_t i = 0; i < spec.parts.size(); ++i) {
        const Part& part = spec.parts[i];
        if (part.shapes.empty()) continue;
        auto compound =
            std::make_unique<btCompoundShape>(/*enableDynamicAabbTree=*/part.shapes.size() > 8);
        for (const Shape& s : part.shapes) {
            auto leaf = makeShape(s, part.ground, impl_->meshes);
            if (!leaf) continue;
            compound->addChildShape(toBt(s.X_PG), leaf.get());
            impl_->shapes.push_back(std::move(leaf));
        }
        auto object = std::make_unique<btCollisionObject>();
        object->setCollisionShape(compound.get());
        object->setWorldTransform(toBt(part.X_WP));
        object->setUserIndex(static_cast<int>(i));
        if (part.ground) object->setCollisionFlags(btCollisionObject::CF_STATIC_OBJECT);
        impl_->world.addCollisionObject(object.get());
        impl_->objectOfPart[i] = object.get();
        impl_->shapes.push_back(std::move(compound));
        impl_->objects.push_back(std::move(object));
    }
}

CollisionWorld::~CollisionWorld() = default;

void CollisionWorld::setPartPose(std::size_t partIndex, const Transform& X_WP) {
    if (btCollisionObject* object = impl_->objectOfPart.at(partIndex))
        object->setWorldTransform(toBt(X_WP));
}

std::vector<ContactPoint> CollisionWorld::findContacts(double margin) {
    impl_->world.getDispatchInfo().m_allowedCcdPenetration = 0.0;
    impl_->world.updateAabbs();
    impl_->world.performDiscreteCollisionDetection();

    std::vector<ContactPoint> contacts;
    btDispatcher* dispatcher = impl_->world.getDispatcher();
    for (int m = 0; m < dispatcher->getNumManifolds(); ++m) {
        const btPersistentManifold* manifold = dispatcher->getManifoldByIndexInternal(m);
        const int a = manifold->getBody0()->getUserIndex();
        const int b = manifold->getBody1()->getUserIndex();
        for (int k = 0; k < manifold->getNumContacts(); ++k) {
            const btManifoldPoint& point = manifold->getContactPoint(k);
            if (point.getDistance() > margin) continue;
            // Bullet's normal points from body1 (B) towards body0 (A); Motus's from A to B.
            ContactPoint c;
            c.partA = static_cast<std::size_t>(a);
            c.partB = static_cast<std::size_t>(b);
            c.p_WA_W = fromBt(point.getPositionWorldOnA());
            c.p_WB_W = fromBt(point.getPositionWorldOnB());
            c.n_AB_W = -fromBt(point.m_normalWorldOnB);
            c.depth = -point.getDistance();
            contacts.push_back(c);
        }
    }
    return contacts;
}

std::size_t CollisionWorld::objectCount() const {
    return impl_->objects.size();
}

std::size_t bulletScalarBytes() {
    return sizeof(btScalar);
}

}  // namespace engine::contact
