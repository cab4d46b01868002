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

// Collision margin of the shapes with flat faces: Bullet rounds their edges and corners by it
// (faces stay exact). Bullet's default, 4 cm, would round a 10 cm box beyond recognition.
constexpr double kShapeMargin = 1e-3;

// Owns what Bullet shapes point to without owning (triangle data of static meshes).
using MeshStore = std::vector<std::unique_ptr<btTriangleMesh>>;

std::unique_ptr<btCollisionShape> makeShape(const Shape& s, bool isStatic, MeshStore& meshes) {
    std::unique_ptr<btCollisionShape> shape;
    switch (s.type) {
    case ShapeType::Box: {
        auto box = std::make_unique<btBoxShape>(toBt(s.size * 0.5));
        box->initializePolyhedralFeatures();  // box against hull: clipping, whole contact patches
        shape = std::move(box);
        break;
    }
    case ShapeType::Sphere:
        return std::make_unique<btSphereShape>(s.radius);
    case ShapeType::Cylinder:
        shape = std::make_unique<btCylinderShapeZ>(btVector3(s.radius, s.radius, 0.5 * s.length));
        break;
    case ShapeType::Capsule:
        return std::make_unique<btCapsuleShapeZ>(s.radius, s.length);
    case ShapeType::Cone:
        shape = std::make_unique<btConeShapeZ>(s.radius, s.length);
        break;
    case ShapeType::Plane:
        return std::make_unique<btStaticPlaneShape>(btVector3(0, 0, 1), 0.0);
    case ShapeType::Mesh: {
        if (!s.mesh) return nullptr;
        auto vertex = [&](int k) {
            return toBt(s.scale.cwiseProduct(s.mesh->vertices[static_cast<std::size_t>(k)]));
        };
        if (isStatic) {
            // The ground may be concave: its exact triangles, in a bounding-volume tree.
            auto triangles = std::make_unique<btTriangleMesh>();
            for (const auto& t : s.mesh->triangles)
                triangles->addTriangle(vertex(t[0]), vertex(t[1]), vertex(t[2]));
            auto mesh = std::make_unique<btBvhTriangleMeshShape>(triangles.get(), true);
            meshes.push_back(std::move(triangles));
            return mesh;
        }
        // A moving part collides through the convex hull of its mesh, with its true surface
        // (no margin padding it outwards), so contact depths are geometric.
        auto hull = std::make_unique<btConvexHullShape>();
        for (std::size_t k = 0; k < s.mesh->vertices.size(); ++k)
            hull->addPoint(vertex(static_cast<int>(k)), false);
        hull->optimizeConvexHull();
        hull->setMargin(0.0);
        hull->recalcLocalAabb();
        hull->initializePolyhedralFeatures();  // polyhedra against polyhedra: clipping
        return hull;
    }
    }
    if (shape) {
        const double smallest =
            s.type == ShapeType::Box ? s.size.minCoeff() : std::min(2.0 * s.radius, s.length);
        shape->setMargin(std::min(kShapeMargin, 0.1 * smallest));
    }
    return shape;
}

// Every manifold gets the solver's margin as its breaking threshold, so gaps up to the margin
// are reported (speculative contacts) and points persist while they stay that close.
class Dispatcher final : public btCollisionDispatcher {
public:
    using btCollisionDispatcher::btCollisionDispatcher;
    double threshold = 0.0;
    btPersistentManifold* getNewManifold(const btCollisionObject* b0,
                                         const btCollisionObject* b1) override {
        btPersistentManifold* manifold = btCollisionDispatcher::getNewManifold(b0, b1);
        manifold->setContactBreakingThreshold(
            std::max(manifold->getContactBreakingThreshold(), threshold));
        return manifold;
    }
};

// Pairs that may not touch never reach the narrow phase.
class PairFilter final : public btOverlapFilterCallback {
public:
    explicit PairFilter(const ContactModel& model) : model_(model) {}
    bool needBroadphaseCollision(btBroadphaseProxy* p0, btBroadphaseProxy* p1) const override {
        const auto* a = static_cast<const btCollisionObject*>(p0->m_clientObject);
        const auto* b = static_cast<const btCollisionObject*>(p1->m_clientObject);
        return model_.mayTouch(a->getUserIndex(), b->getUserIndex());
    }

private:
    const ContactModel& model_;
};

}  // namespace

struct CollisionWorld::Impl {
    explicit Impl(const ContactModel& m) : model(m), filter(model) {}

    ContactModel model;
    PairFilter filter;
    btDefaultCollisionConfiguration configuration;
    Dispatcher dispatcher{&configuration};
    btDbvtBroadphase broadphase;
    btCollisionWorld world{&dispatcher, &broadphase, &configuration};

    std::vector<std::unique_ptr<btCollisionShape>> shapes;  // owns leaf and compound shapes
    MeshStore meshes;
    std::vector<std::unique_ptr<btCollisionObject>> objects;
    std::vector<btCollisionObject*> objectOfPart;  // per part; nullptr when it has no geometry
    std::vector<Transform> X_PO;                   // per part: the object frame in the part frame
    std::vector<btManifoldPoint*> lastPoints;      // the points of the last query, in order
    std::vector<bool> lastSwapped;                 // whether that point's manifold is (B, A)

    ~Impl() {
        for (auto& object : objects) world.removeCollisionObject(object.get());
    }
};

CollisionWorld::CollisionWorld(const SceneSpec& spec) : CollisionWorld(buildContactModel(spec)) {}

CollisionWorld::CollisionWorld(const ContactModel& model) : impl_(std::make_unique<Impl>(model)) {
    Impl& m = *impl_;
    // A flat face on the ground plane gets its corner points in one query, not one point per
    // query accumulated over several steps. (Polyhedra against polyhedra get whole patches by
    // clipping; round shapes touch in one point, which perturbation would only blur.)
    m.configuration.setPlaneConvexMultipointIterations(3, 3);
    m.broadphase.getOverlappingPairCache()->setOverlapFilterCallback(&m.filter);
    m.objectOfPart.assign(m.model.parts.size(), nullptr);
    m.X_PO.assign(m.model.parts.size(), Transform{});
    for (std::size_t i = 0; i < m.model.parts.size(); ++i) {
        const ContactPartModel& part = m.model.parts[i];
        if (part.shapes.empty() || !part.filter.enabled) continue;
        btCollisionShape* shape = nullptr;
        if (part.shapes.size() == 1) {
            // One shape: the object sits in the shape's frame, no compound needed.
            auto leaf = makeShape(part.shapes.front(), part.ground, m.meshes);
            if (!leaf) continue;
            m.X_PO[i] = part.shapes.front().X_PG;
            shape = leaf.get();
            m.shapes.push_back(std::move(leaf));
        } else {
            auto compound =
                std::make_unique<btCompoundShape>(/*enableDynamicAabbTree=*/part.shapes.size() > 8);
            for (const Shape& s : part.shapes) {
                auto leaf = makeShape(s, part.ground, m.meshes);
                if (!leaf) continue;
                compound->addChildShape(toBt(s.X_PG), leaf.get());
                m.shapes.push_back(std::move(leaf));
            }
            shape = compound.get();
            m.shapes.push_back(std::move(compound));
        }
        auto object = std::make_unique<btCollisionObject>();
        object->setCollisionShape(shape);
        object->setUserIndex(static_cast<int>(i));
        if (part.ground) object->setCollisionFlags(btCollisionObject::CF_STATIC_OBJECT);
        m.objectOfPart[i] = object.get();
        m.objects.push_back(std::move(object));
        m.world.addCollisionObject(
            m.objectOfPart[i],
            part.ground ? btBroadphaseProxy::StaticFilter : btBroadphaseProxy::DefaultFilter,
            btBroadphaseProxy::AllFilter);
    }
    // Initial poses: parts where the spec puts them.
    for (std::size_t i = 0; i < m.objectOfPart.size(); ++i)
        if (m.objectOfPart[i])
            m.objectOfPart[i]->setWorldTransform(toBt(m.model.parts[i].X_WP0 * m.X_PO[i]));
}

CollisionWorld::~CollisionWorld() = default;

void CollisionWorld::setPartPose(std::size_t partIndex, const Transform& X_WP) {
    if (btCollisionObject* object = impl_->objectOfPart.at(partIndex))
        object->setWorldTransform(toBt(X_WP * impl_->X_PO[partIndex]));
}

std::vector<ContactPoint> CollisionWorld::findContacts(double margin) {
    Impl& m = *impl_;
    m.dispatcher.threshold = margin;
    m.world.getDispatchInfo().m_allowedCcdPenetration = 0.0;
    m.world.updateAabbs();
    m.world.performDiscreteCollisionDetection();

    std::vector<ContactPoint> contacts;
    m.lastPoints.clear();
    m.lastSwapped.clear();
    btDispatcher* dispatcher = m.world.getDispatcher();
    for (int k = 0; k < dispatcher->getNumManifolds(); ++k) {
        btPersistentManifold* manifold = dispatcher->getManifoldByIndexInternal(k);
        if (manifold->getContactBreakingThreshold() < margin)
            manifold->setContactBreakingThreshold(margin);
        int a = manifold->getBody0()->getUserIndex();
        int b = manifold->getBody1()->getUserIndex();
        // Reported with the lower part index first, whatever order Bullet keeps.
        const bool swapped = a > b;
        for (int p = 0; p < manifold->getNumContacts(); ++p) {
            btManifoldPoint& point = manifold->getContactPoint(p);
            if (point.getDistance() > margin) continue;
            // Bullet's normal points from body1 towards body0; Motus's from A to B.
            ContactPoint c;
            c.partA = static_cast<std::size_t>(swapped ? b : a);
            c.partB = static_cast<std::size_t>(swapped ? a : b);
            const Vec3 onBody0 = fromBt(point.getPositionWorldOnA());
            const Vec3 onBody1 = fromBt(point.getPositionWorldOnB());
            const Vec3 normal0to1 = -fromBt(point.m_normalWorldOnB);
            c.p_WA_W = swapped ? onBody1 : onBody0;
            c.p_WB_W = swapped ? onBody0 : onBody1;
            c.n_AB_W = swapped ? Vec3(-normal0to1) : normal0to1;
            c.depth = -point.getDistance();
            // Stored impulses act on body1 of the manifold as Motus's "B" of that order.
            const double sign = swapped ? -1.0 : 1.0;
            c.normalImpulse = point.m_appliedImpulse;
            c.handle = m.lastPoints.size();
            c.frictionImpulse_W = sign * Vec3(point.m_appliedImpulseLateral1,
                                              point.m_appliedImpulseLateral2, point.m_prevRHS);
            contacts.push_back(c);
            m.lastPoints.push_back(&point);
            m.lastSwapped.push_back(swapped);
        }
    }
    return contacts;
}

void CollisionWorld::storeImpulses(const std::vector<ContactPoint>& contacts) {
    Impl& m = *impl_;
    for (const ContactPoint& c : contacts) {
        if (c.handle >= m.lastPoints.size()) continue;
        btManifoldPoint& point = *m.lastPoints[c.handle];
        const double sign = m.lastSwapped[c.handle] ? -1.0 : 1.0;
        point.m_appliedImpulse = c.normalImpulse;
        // The friction impulse vector (world axes) rides in the three slots Bullet carries over
        // when it refreshes a persistent point (Motus uses no other Bullet solver state).
        const Vec3 friction = sign * c.frictionImpulse_W;
        point.m_appliedImpulseLateral1 = friction.x();
        point.m_appliedImpulseLateral2 = friction.y();
        point.m_prevRHS = friction.z();
    }
}

void CollisionWorld::clearCache() {
    Impl& m = *impl_;
    btDispatcher* dispatcher = m.world.getDispatcher();
    for (int k = 0; k < dispatcher->getNumManifolds(); ++k)
        dispatcher->getManifoldByIndexInternal(k)->clearManifold();
    m.lastPoints.clear();
    m.lastSwapped.clear();
}

std::size_t CollisionWorld::objectCount() const {
    return impl_->objects.size();
}

std::size_t bulletScalarBytes() {
    return sizeof(btScalar);
}

}  // namespace engine::contact
