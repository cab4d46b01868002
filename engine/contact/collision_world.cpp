#include "engine/contact/collision_world.h"

#include "engine/contact/box_box.h"
#include "engine/contact/pair_manifold.h"
#include "engine/contact/polyhedron_plane.h"
#include "engine/contact/shape_pairs.h"
#include "engine/solver/worker_pool.h"

#include <BulletCollision/CollisionDispatch/btCompoundCollisionAlgorithm.h>
#include <LinearMath/btPoolAllocator.h>
#include <btBulletCollisionCommon.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>

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

// (`polyhedral`: a box gets its polyhedral features, for Bullet's clipping against hulls and
// mesh triangles — whole contact patches; with neither in the world they are never read)
std::unique_ptr<btCollisionShape> makeShape(const Shape& s, bool isStatic, bool polyhedral,
                                            MeshStore& meshes) {
    std::unique_ptr<btCollisionShape> shape;
    switch (s.type) {
    case ShapeType::Box: {
        auto box = std::make_unique<btBoxShape>(toBt(s.size * 0.5));
        if (polyhedral) box->initializePolyhedralFeatures();
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
        // (polyhedra against polyhedra: clipping, on the hull's own points)
        if (!setExactPolyhedron(*hull)) hull->initializePolyhedralFeatures();
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
//
// The narrow phase may run on several threads at once (each pair on one): what the pairs'
// algorithms share, the dispatcher's pools of manifolds and algorithms and its list of
// manifolds, is taken under a lock.
class Dispatcher final : public btCollisionDispatcher {
public:
    using btCollisionDispatcher::btCollisionDispatcher;
    double threshold = 0.0;
    btPersistentManifold* getNewManifold(const btCollisionObject* b0,
                                         const btCollisionObject* b1) override {
        const std::lock_guard<std::mutex> lock(mutex_);
        btPersistentManifold* manifold = btCollisionDispatcher::getNewManifold(b0, b1);
        manifold->setContactBreakingThreshold(
            std::max(manifold->getContactBreakingThreshold(), threshold));
        return manifold;
    }
    void releaseManifold(btPersistentManifold* manifold) override {
        const std::lock_guard<std::mutex> lock(mutex_);
        btCollisionDispatcher::releaseManifold(manifold);
    }
    void* allocateCollisionAlgorithm(int size) override {
        const std::lock_guard<std::mutex> lock(mutex_);
        return btCollisionDispatcher::allocateCollisionAlgorithm(size);
    }
    void freeCollisionAlgorithm(void* ptr) override {
        const std::lock_guard<std::mutex> lock(mutex_);
        btCollisionDispatcher::freeCollisionAlgorithm(ptr);
    }

private:
    std::mutex mutex_;
};

// Which manifold a point belongs to: the part pair (A < B) and, for a part of several shapes,
// which of them touch.
// Two words, compared as integers (a sort of a few hundred keys runs every step).
struct PairKey {
    std::uint64_t parts = 0, shapes = 0;  // (partA, partB) and (shapeA, shapeB), high word first

    PairKey() = default;
    PairKey(int partA, int partB, int shapeA, int shapeB)
        : parts(pack(partA, partB)), shapes(pack(shapeA, shapeB)) {}
    int partA() const { return high(parts); }
    int partB() const { return low(parts); }
    int shapeA() const { return high(shapes); }
    int shapeB() const { return low(shapes); }

    static std::uint64_t pack(int high, int low) {
        return std::uint64_t{static_cast<std::uint32_t>(high)} << 32 |
               static_cast<std::uint32_t>(low);
    }
    static int high(std::uint64_t word) { return static_cast<int>(word >> 32); }
    static int low(std::uint64_t word) { return static_cast<int>(word & 0xffffffffu); }
};

bool operator<(const PairKey& x, const PairKey& y) {
    return x.parts != y.parts ? x.parts < y.parts : x.shapes < y.shapes;
}
bool operator==(const PairKey& x, const PairKey& y) {
    return x.parts == y.parts && x.shapes == y.shapes;
}

// The manifolds a pair's algorithm holds. (Bullet's compound–compound algorithm works as the
// compound–shape one when a compound has no tree of its children, a few shapes, but reports
// the manifolds of the tree's pairs only: the compound–shape algorithm's are asked for too.)
void manifoldsOf(btCollisionAlgorithm& algorithm, const btCollisionObject& a,
                 const btCollisionObject& b, btManifoldArray& manifolds) {
    manifolds.resize(0);
    algorithm.getAllContactManifolds(manifolds);
    if (a.getCollisionShape()->isCompound() && b.getCollisionShape()->isCompound())
        static_cast<btCompoundCollisionAlgorithm&>(algorithm)
            .btCompoundCollisionAlgorithm::getAllContactManifolds(manifolds);
}

// A part's shape as the narrow phase tells pairs apart: a box, a sphere or capsule (shape_pairs.h),
// a cylinder, a convex hull, a static plane, anything else (a compound, a cone, a static mesh).
enum class ShapeClass : std::uint8_t { Box, Round, Cylinder, Hull, Plane, Other };
ShapeClass shapeClassOf(const btCollisionShape& shape) {
    const int type = shape.getShapeType();
    if (type == BOX_SHAPE_PROXYTYPE) return ShapeClass::Box;
    if (type == SPHERE_SHAPE_PROXYTYPE || type == CAPSULE_SHAPE_PROXYTYPE) return ShapeClass::Round;
    if (type == CYLINDER_SHAPE_PROXYTYPE) return ShapeClass::Cylinder;
    if (type == CONVEX_HULL_SHAPE_PROXYTYPE) return ShapeClass::Hull;
    if (type == STATIC_PLANE_PROXYTYPE) return ShapeClass::Plane;
    return ShapeClass::Other;
}

// How a pair's points are found: by its Bullet algorithm (into its manifolds), or without a
// manifold: two boxes (box_box.h), a whole shape on a static plane (polyhedron_plane.h, the
// shape as A), a sphere or capsule with a sphere, capsule or box (shape_pairs.h; by the
// algorithm where their cores meet), a cylinder with a box, cylinder, hull, capsule or sphere
// and a hull with a capsule or sphere (shape_pairs.h), a hull with a hull or a box
// (shape_pairs.h).
enum class PairKind : std::uint8_t {
    Algorithm,
    Boxes,
    ShapeOnPlane,
    PlaneUnderShape,
    Round,
    Faces,
    Polytopes
};
PairKind pairKind(ShapeClass a, ShapeClass b) {
    const auto onPlane = [](ShapeClass c) {
        return c == ShapeClass::Box || c == ShapeClass::Round || c == ShapeClass::Cylinder ||
               c == ShapeClass::Hull;
    };
    if (a == ShapeClass::Box && b == ShapeClass::Box) return PairKind::Boxes;
    if ((a == ShapeClass::Round && (b == ShapeClass::Round || b == ShapeClass::Box)) ||
        (b == ShapeClass::Round && a == ShapeClass::Box))
        return PairKind::Round;
    const auto withCylinder = [](ShapeClass c) {
        return c == ShapeClass::Box || c == ShapeClass::Round || c == ShapeClass::Cylinder ||
               c == ShapeClass::Hull;
    };
    if ((a == ShapeClass::Cylinder && withCylinder(b)) ||
        (b == ShapeClass::Cylinder && withCylinder(a)) ||
        (a == ShapeClass::Hull && b == ShapeClass::Round) ||
        (b == ShapeClass::Hull && a == ShapeClass::Round))
        return PairKind::Faces;
    if ((a == ShapeClass::Hull && (b == ShapeClass::Hull || b == ShapeClass::Box)) ||
        (b == ShapeClass::Hull && a == ShapeClass::Box))
        return PairKind::Polytopes;
    if (b == ShapeClass::Plane && onPlane(a)) return PairKind::ShapeOnPlane;
    if (a == ShapeClass::Plane && onPlane(b)) return PairKind::PlaneUnderShape;
    return PairKind::Algorithm;
}

bool onPlane(PairKind kind) {
    return kind == PairKind::ShapeOnPlane || kind == PairKind::PlaneUnderShape;
}

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
    btDefaultCollisionConfiguration configuration{constructionInfo(model)};
    Dispatcher dispatcher{&configuration};
    btDbvtBroadphase broadphase;
    btCollisionWorld world{&dispatcher, &broadphase, &configuration};

    std::vector<std::unique_ptr<btCollisionShape>> shapes;  // owns leaf and compound shapes
    // Primitive shapes of the same type and dimensions share one shape (Bullet's shapes are
    // shared by objects as they are): a box's polyhedral features are built once, not once per
    // part — 400 cubes of a pile took 20 ms to make in the first step — and the narrow phase
    // reads one shape's data: scatter-10,000's balls, capsules and cylinders were 7,500 shapes,
    // each a heap block read at its part's every pair and box (a cache miss each).
    std::map<std::array<double, 4>, btCollisionShape*> sharedShapes;
    MeshStore meshes;
    std::vector<std::unique_ptr<btCollisionObject>> objects;
    std::vector<btCollisionObject*> objectOfPart;  // per part; nullptr when it has no geometry
    std::vector<Transform> X_PO;                   // per part: the object frame in the part frame
    std::vector<char> objectAtPart;                // per part: X_PO is the identity, exactly
    // per part: the object frame in its body's frame (setBodyFrames: X_BP X_PO), and whether
    // that is the identity, exactly
    std::vector<Transform> X_BO;
    std::vector<char> objectAtBody;
    // The object's pose into the parts' array of poses (setPartPose, setPartPoseFromBody).
    void setObjectPose(std::size_t partIndex, const Transform& X_WO);
    // A part with an object, moved with its body (setPartPoseFromBody), told it is quiet
    // (setPartQuiet) or asleep (setPartAsleep): what those set, each part checked by the caller
    // (setPartFromBody does all three with one check). The ground is neither quiet nor asleep.
    void poseFromBody(std::size_t partIndex, const Transform& X_WB) {
        setObjectPose(partIndex, objectAtBody[partIndex] ? X_WB : X_WB * X_BO[partIndex]);
    }
    void setQuiet(std::size_t partIndex, bool isQuiet, bool settled) {
        if (!ground[partIndex])
            quiet[partIndex] = static_cast<char>(isQuiet ? (settled ? 2 : 1) : 0);
    }
    void setAsleep(std::size_t partIndex, bool sleeps) {
        if (bool(asleep[partIndex]) == sleeps || ground[partIndex]) return;
        asleep[partIndex] = sleeps;
        still[partIndex] = sleeps;
        objectOfPart[partIndex]->forceActivationState(sleeps ? ISLAND_SLEEPING : ACTIVE_TAG);
    }
    // Per part: its object's world transform, also kept here (the merge reads it pair by pair:
    // from one array, not from 10,000 objects each a heap block of its own).
    std::vector<btTransform> pose;
    std::vector<const btCollisionShape*> shapeOfPart;  // per part: its object's shape
    // Per part: its object has the pose in `pose` (Bullet's algorithms read the objects' world
    // transforms; the narrow phase without them reads `pose`).
    std::vector<char> objectPosed;
    // Per part: its filter's group and mask (ContactModel::mayTouch without reading the part's
    // model: touches()).
    std::vector<std::uint32_t> group, mask;
    std::vector<double> breaking;  // per part: its shape's breaking distance (Bullet's rule)
    std::vector<char> moved;       // per part: its pose changed since its box was last set
    std::vector<char> asleep;      // per part: setPartAsleep
    // What the pairs are sorted out by, without reading Bullet's objects and shapes (each one
    // its own allocation: at 10,000 parts every such read is a cache miss): the part of each
    // broadphase proxy (by its unique id), and per part the class of its shape and whether it
    // stays still (the ground, or asleep: Bullet's inactive objects).
    std::vector<int> partOfProxy;
    std::vector<ShapeClass> shapeClass;
    std::vector<char> still;
    std::vector<char> compound;  // per part: its object is a compound of its shapes
    std::vector<char> ground;    // per part: ContactPartModel::ground
    // per part: setPartQuiet, 0 (moving), 1 (quiet) or 2 (settled; the ground always)
    std::vector<char> quiet;
    long long quietStep = 0;  // setQuietTurn
    int quietEvery = 0;
    int settledEvery = 0;
    std::vector<btDbvtProxy*> proxyOfPart;  // per part: its object's broadphase proxy, or null

    // Buffers of query(), kept from call to call (no allocation in a steady run).
    struct Entry {
        PairKey key;
        // ≥ 0: a new point, index kChunkBits-wide into the chunk above those bits
        // (foundPoint()); < 0: kept point −source − 1 of the previous query
        int source;
        // Kept points between parts that sleep, passed on as they are: how many, from −source − 1
        // on in the previous query's (a run of them: mergeEntries); 0 for any other point.
        int resting = 0;
    };
    static constexpr int kChunkBits = 24;
    std::vector<Entry> fresh, kept;  // the new points; the kept ones, when listed (listKept)
    // The order of the new points (a total one: no two have the same source).
    static bool byKeyAndSource(const Entry& x, const Entry& y) {
        return x.key == y.key ? x.source < y.source : x.key < y.key;
    }
    std::vector<std::size_t> runs;  // sorted runs of `fresh` being merged: their bounds
    std::vector<Entry> merged;      // (the merge's output)
    // A point of the query, with A the lower part index, and the shapes it lies on.
    struct Found {
        MergePoint point;
        int shapeA, shapeB;
    };
    // One task's share of the narrow phase: its pairs' points, read from their manifolds as
    // soon as they are found (on the thread that found them, while they are in its cache), and
    // their keys.
    struct alignas(64) Chunk {     // (a cache line of its own: chunks run on different threads)
        std::vector<Found> found;  // the first count hold this query's points
        std::size_t count = 0;
        std::vector<Entry> fresh;
        // (the sort of `fresh`: its runs of one key — where each begins, as `source`, and how
        // many, as `resting` — and its entries in their order)
        std::vector<Entry> runs, sorted;
        btManifoldArray manifolds;  // one pair's
        PairPoints direct;          // one pair's points, found without a manifold
    };
    std::vector<Chunk> chunks;
    // A kept point moved with its parts: its points in W and its gap along its normal.
    struct KeptMove {
        btVector3 p_WA, p_WB;
        double distance;
    };
    // A pair the narrow phase takes: its parts (a: Bullet's body 0), how its points are found,
    // and Bullet's pair (whose algorithm finds them, for PairKind::Algorithm).
    struct NarrowPair {
        int a, b;
        PairKind kind;
        btBroadphasePair* pair;
    };
    std::vector<NarrowPair> pairs;
    // One range of Bullet's pair array: its pairs whose boxes overlap (gathered on its own
    // thread for many pairs), an algorithm still to be made for some.
    struct alignas(64) Gathered {  // (a cache line of its own, as Chunk)
        std::vector<NarrowPair> pairs;
    };
    std::vector<Gathered> gathered;
    // One range of pairs merged and written out, on its own thread for many points (then
    // copied into the query's result in order).
    struct alignas(64) Output {  // (a cache line of its own, as Chunk)
        PairManifold merge;      // one pair's points being merged
        MergePoint keptPoint;    // a kept point being put back
        std::vector<ContactPointState> persistent;
        std::vector<ContactPoint> points;
        std::vector<std::size_t> resting;
        // Its pairs: those of keys from `from` (unless the first range) up to `to` (unless the
        // last); their kept points [keptFirst, keptLast) of the previous query's (or of `kept`,
        // when listed) and new ones [freshFirst, freshLast) of `fresh`, merged into `entries`.
        PairKey from, to;
        bool first = false, last = false;
        std::size_t keptFirst = 0, keptLast = 0, freshFirst = 0, freshLast = 0;
        std::vector<Entry> entries;
        bool unsorted = false;          // a kept point out of canonical order found
        std::array<KeptMove, 4> moves;  // one pair's kept points moved (keptOnly)
    };
    std::vector<Output> outputs;
    struct Box {
        btVector3 lo, hi;
    };
    // Per part: its padded bounding box, computed when it moved. The pairs whose boxes overlap
    // are found by these, not by the boxes the proxies hold.
    std::vector<Box> boxes;
    // Per part: the box its broadphase proxy was last given, its padded box grown by a slack
    // (kBoxSlack): a part that barely moves is not put into the broadphase's tree again step
    // after step (the tree's leaf holds this box, so Bullet's pairs still hold every pair whose
    // padded boxes overlap).
    std::vector<Box> heldBox;
    // Bullet's pair array as last gathered, pair by pair: its two proxies, and their parts
    // (read from the proxies, each a heap block of its own, only for a pair new at its place),
    // the parts apart (what each query reads, while the array is as gathered).
    struct PairProxies {
        const btBroadphaseProxy* proxy0 = nullptr;
        const btBroadphaseProxy* proxy1 = nullptr;
    };
    std::vector<PairProxies> pairProxies;
    // (with the pair's turn among quiet and settled pairs, (2a + b) mod settledEvery for a < b:
    // setQuietTurn)
    struct PairOfParts {
        int a, b;
        int turn, quietTurn;  // (mod settledEvery, and mod quietEvery: no division a query)
    };
    std::vector<PairOfParts> pairParts;
    bool pairsChanged = true;  // Bullet's pair array may have changed since it was gathered
    int pairTurnsEvery = 0;    // the settledEvery of the pairs' turns as gathered
    int pairTurnsQuiet = 0;    // and their quietEvery
    // The pairs' indices in the array by their turn among quiet pairs (turn mod quietEvery):
    // those of turn t from turnStart[t] to turnStart[t + 1] in byTurn (sorted when every part is
    // quiet, while turnsSorted).
    std::vector<std::size_t> turnStart, byTurn;
    bool turnsSorted = false;
    std::vector<std::size_t> toSet;  // (query's: the parts whose proxies are given a box)
    // (query's: the proxies whose tree leaves setAabb moved, and each one's new pairs — the
    // leaves its leaf overlaps —, found by ranges of them, on the threads for many)
    std::vector<btDbvtProxy*> leavesMoved;
    struct alignas(64) LeafOverlaps {  // (a cache line of its own, as Chunk)
        std::vector<btBroadphaseProxy*> found;
        std::vector<std::size_t> end;  // per proxy of the range: where its pairs end in `found`
    };
    std::vector<LeafOverlaps> leafOverlaps;
    // The pairs of the proxies whose leaves moved into Bullet's pair cache (leavesMoved).
    void addPairsOfMovedLeaves();
    std::size_t boxesPutInTree = 0;  // (boxesPutInTree())
    // (query's: where each range's records go in the result)
    struct RangeAt {
        std::size_t persistent, points, resting;
    };
    std::vector<RangeAt> rangeAt;

    bool anyMesh = false;  // the world has a mesh shape (a hull or a static mesh)
    // A leaf shape for `s` (shared for primitives: makeShape makes them from the dimensions in
    // the key alone), owned by `shapes`; nullptr: none (a mesh without vertices).
    btCollisionShape* leafShape(const Shape& s, bool ground) {
        std::array<double, 4> key{static_cast<double>(s.type), 0.0, 0.0, 0.0};
        bool shared = true;
        switch (s.type) {
        case ShapeType::Box:
            key = {key[0], s.size.x(), s.size.y(), s.size.z()};
            break;
        case ShapeType::Sphere:
            key[1] = s.radius;
            break;
        case ShapeType::Capsule:
        case ShapeType::Cylinder:
        case ShapeType::Cone:
            key[1] = s.radius;
            key[2] = s.length;
            break;
        default:  // (a plane, one a scene; a mesh's hull or triangles of its own)
            shared = false;
            break;
        }
        // (a dimension that is not a number — a scene not validated — gets a shape of its own:
        // NaN keys would break the map's order)
        for (const double k : key) shared = shared && std::isfinite(k);
        if (shared)
            if (const auto found = sharedShapes.find(key); found != sharedShapes.end())
                return found->second;
        auto leaf = makeShape(s, ground, anyMesh, meshes);
        if (!leaf) return nullptr;
        btCollisionShape* made = leaf.get();
        shapes.push_back(std::move(leaf));
        if (shared) sharedShapes.emplace(key, made);
        return made;
    }

    // ContactModel::mayTouch for two parts that have objects (each has shapes and is switched on).
    bool touches(int a, int b) const {
        const auto i = static_cast<std::size_t>(a), j = static_cast<std::size_t>(b);
        if (a == b || (ground[i] && ground[j])) return false;
        if ((group[i] & mask[j]) == 0 || (group[j] & mask[i]) == 0) return false;
        return model.excluded.empty() || model.mayTouch(a, b);  // (joined or switched off)
    }

    void narrowPhase(double margin);
    // A pair of a shape and a static plane (kind ShapeOnPlane or PlaneUnderShape, a and b as
    // Bullet's bodies) whose shape's box lies wholly beyond the pair's breaking distance from
    // the plane: no vertex of the shape can be that near (each lies in the box), so the pair
    // has no point to find (polyhedronPlanePoints would find none). A part that falls, or rests
    // on others above the floor, is paired with the floor all the while (a plane's box is
    // unbounded).
    bool beyondPlane(const NarrowPair& pair, double margin) const {
        const bool shapeFirst = pair.kind == PairKind::ShapeOnPlane;
        const auto shape = static_cast<std::size_t>(shapeFirst ? pair.a : pair.b),
                   plane = static_cast<std::size_t>(shapeFirst ? pair.b : pair.a);
        const auto& planeShape = static_cast<const btStaticPlaneShape&>(*shapeOfPart[plane]);
        const btTransform& X_WL = pose[plane];
        const btVector3 n_W = X_WL.getBasis() * planeShape.getPlaneNormal();
        const btScalar c_W = planeShape.getPlaneConstant() + n_W.dot(X_WL.getOrigin());
        const Box& box = boxes[shape];
        const btVector3 centre = btScalar(0.5) * (box.lo + box.hi),
                        half = btScalar(0.5) * (box.hi - box.lo);
        const btScalar lowest = n_W.dot(centre) - btFabs(n_W.x()) * half.x() -
                                btFabs(n_W.y()) * half.y() - btFabs(n_W.z()) * half.z();
        return lowest - c_W >= std::max(std::min(breaking[shape], breaking[plane]), margin);
    }
    // The pair's parts' objects given their poses (Bullet's algorithms read the objects' world
    // transforms) and its algorithm made if it has none; false: Bullet has none for it.
    bool withAlgorithm(const NarrowPair& found) {
        for (const int part : {found.a, found.b}) {
            const auto i = static_cast<std::size_t>(part);
            if (objectPosed[i]) continue;
            objectOfPart[i]->getWorldTransform() = pose[i];
            objectPosed[i] = 1;
        }
        btBroadphasePair& pair = *found.pair;
        if (pair.m_algorithm) return true;
        const auto* A = static_cast<const btCollisionObject*>(pair.m_pProxy0->m_clientObject);
        const auto* B = static_cast<const btCollisionObject*>(pair.m_pProxy1->m_clientObject);
        const btCollisionObjectWrapper wa(nullptr, A->getCollisionShape(), A,
                                          A->getWorldTransform(), -1, -1);
        const btCollisionObjectWrapper wb(nullptr, B->getCollisionShape(), B,
                                          B->getWorldTransform(), -1, -1);
        pair.m_algorithm = dispatcher.findAlgorithm(&wa, &wb, nullptr, BT_CONTACT_POINT_ALGORITHMS);
        return pair.m_algorithm != nullptr;
    }
    // (withAlgorithm in the chunks: a round pair's, whose cores meet. No other pair's objects
    // are posed while the chunks run: the chunks read those posed before them; a part posed
    // here was read by none of them, and is not written again.)
    std::mutex roundMutex;
    void collect(Chunk& chunk, const btPersistentManifold& manifold) const;
    // Points found without a manifold, of parts a (their A) and b, whole shapes.
    void collect(Chunk& chunk, int a, int b, const PairPoints& points) const {
        for (int i = 0; i < points.count; ++i) {
            const PairPoint& p = points.points[i];
            collectPoint(chunk, a, b, p.localA, p.localB, p.worldA, p.worldB, p.normalOnB,
                         p.distance, -1, -1);
        }
    }
    // One point of the pair of parts a and b (Bullet's bodies 0 and 1), on shapes index0 and
    // index1 of theirs.
    void collectPoint(Chunk& chunk, int a, int b, const btVector3& localA, const btVector3& localB,
                      const btVector3& worldA, const btVector3& worldB, const btVector3& normalOnB,
                      btScalar distance, int index0, int index1) const;
    MergePoint& foundPoint(int source) {
        const auto s = static_cast<std::uint32_t>(source);
        return chunks[s >> kChunkBits].found[s & ((1u << kChunkBits) - 1)].point;
    }
    void emit(Output& out, double margin, const std::vector<ContactPointState>& previous);
    // The kept point of `previous` as an entry; false when its parts may not touch (any more).
    // `lastA`, `lastB`, `touch`, `resting`: the pair last looked at (a pair's points come
    // together: each pair is looked at once).
    bool keptEntry(const std::vector<ContactPointState>& previous, std::size_t k, int& lastA,
                   int& lastB, bool& touch, bool& resting, Entry& entry) const {
        const ContactPointState& c = previous[k];
        if (c.partA != lastA || c.partB != lastB) {
            lastA = c.partA;
            lastB = c.partB;
            const int parts = static_cast<int>(objectOfPart.size());
            touch = c.partA >= 0 && c.partA < c.partB && c.partB < parts &&
                    objectOfPart[static_cast<std::size_t>(c.partA)] &&
                    objectOfPart[static_cast<std::size_t>(c.partB)] && touches(c.partA, c.partB);
            if (touch) {
                // A sleeping part and a sleeping part or the ground: nothing moved there.
                const auto a = static_cast<std::size_t>(c.partA),
                           b = static_cast<std::size_t>(c.partB);
                resting = (asleep[a] || asleep[b]) && (asleep[a] || ground[a]) &&
                          (asleep[b] || ground[b]);
            }
        }
        if (!touch) return false;
        entry = {PairKey(c.partA, c.partB, c.shapeA, c.shapeB), -static_cast<int>(k) - 1,
                 resting ? 1 : 0};
        return true;
    }
    // Every kept point of `previous` into `kept`, in canonical order (sorted if given in another).
    void listKept(const std::vector<ContactPointState>& previous);
    // The range's kept and new entries merged (kept first among equal keys) into out.entries;
    // out.unsorted when a kept point of `previous` is out of order (listed: from `kept`).
    void mergeEntries(Output& out, const std::vector<ContactPointState>& previous,
                      bool listed) const;
    // The ranges' keys and where each range's kept and new points begin (Output).
    void splitRanges(std::size_t ranges, const std::vector<ContactPointState>& previous,
                     bool listed);
    // Entries [first, last), all kept points, moved with the parts (into out.moves) as
    // PairManifold::refresh moves them; false when refresh would drop one.
    bool keptOnly(Output& out, std::size_t first, std::size_t last, double breaking,
                  const btTransform& X_WA, const btTransform& X_WB,
                  const std::vector<ContactPointState>& previous) const {
        for (std::size_t e = first; e < last; ++e) {
            const ContactPointState& c =
                previous[static_cast<std::size_t>(-out.entries[e].source - 1)];
            KeptMove& moved = out.moves[e - first];
            const btVector3 n_BA = -toBt(c.n_AB_W);
            moved.p_WA = X_WA(toBt(c.local_A));
            moved.p_WB = X_WB(toBt(c.local_B));
            moved.distance = (moved.p_WA - moved.p_WB).dot(n_BA);
            if (moved.distance > breaking) return false;  // separated along the normal
            const btVector3 slid = moved.p_WB - (moved.p_WA - n_BA * moved.distance);
            if (slid.dot(slid) > breaking * breaking) return false;  // slid along the surface
        }
        return true;
    }

    ~Impl() {
        for (auto& object : objects) world.removeCollisionObject(object.get());
    }

    // The pool of collision algorithms in blocks large enough for Motus's own (a block too small
    // for the polyhedron–plane algorithm was written past, into its neighbours: the fuzzer found
    // a box pile whose pairs' algorithms were corrupted so). Both pools sized for the scene:
    // Bullet zeroes what it allocates, and its default 4096 blocks each (5.4 MB) made every
    // compile of a two-part scene zero and fault in 5 MB; a pool that runs out is extended
    // block by block from the heap.
    static btDefaultCollisionConstructionInfo constructionInfo(const ContactModel& model) {
        // (sized for the shapes whose pairs may go through Bullet's algorithms and manifolds:
        // a box, a cylinder or the ground plane on its own pairs without them — shape_pairs.h,
        // box_box.h, polyhedron_plane.h — and a block of a pool is a page touched when the
        // world is made: 8 per shape took 6 ms for a pile of 100 cubes that used none)
        std::size_t shapes = 0;
        for (const ContactPartModel& part : model.parts)
            for (const Shape& s : part.shapes)
                shapes += part.shapes.size() > 1 ||
                          (s.type != ShapeType::Box && s.type != ShapeType::Cylinder &&
                           s.type != ShapeType::Plane);
        const int blocks = static_cast<int>(std::clamp<std::size_t>(8 * shapes, 64, 4096));
        btDefaultCollisionConstructionInfo info;
        info.m_customCollisionAlgorithmMaxElementSize =
            static_cast<int>(polyhedronPlaneAlgorithmSize());
        info.m_defaultMaxPersistentManifoldPoolSize = blocks;
        info.m_defaultMaxCollisionAlgorithmPoolSize = blocks;
        return info;
    }
};

// From this many pairs up, the pairs whose boxes overlap are gathered on the worker threads.
constexpr std::size_t kParallelPairs = 256;
// From this many pairs whose boxes overlap up, their points are found on the worker threads.
constexpr std::size_t kParallelNarrowPairs = 64;
// From this many points up, they are merged and written out on the worker threads.
constexpr std::size_t kParallelPoints = 1024;
// From this many parts up, their bounding boxes are computed on the worker threads.
constexpr std::size_t kParallelBoxes = 1024;
// From this many proxies whose tree leaves moved up, their new pairs are looked for on the
// threads (a few µs each at 10,000 parts).
constexpr std::size_t kParallelLeaves = 16;
// A part's broadphase proxy holds its padded box grown by this many times the padding (1 cm at
// the default margin): a part resting, or moving 1 mm a step, is put into the tree again
// seldom, and the tree pairs few parts beyond those whose padded boxes overlap. (Bullet's own
// slack, a leaf grown by gDbvtMargin = 5 cm whenever it moves, is set to none: in a pile of
// 10 cm cubes it paired each cube with its neighbours two cubes away.)
constexpr double kBoxSlack = 4.0;
// A part's proxy's box is also stretched along its motion, by this many times how far its box
// moved since it was last computed, up to kBoxAheadMost paddings: a part falling 3 mm a step
// is put into the tree again every few steps, not every one.
constexpr double kBoxAhead = 16.0;
constexpr double kBoxAheadMost = 32.0;

void CollisionWorld::Impl::addPairsOfMovedLeaves() {
    // A moved leaf's overlaps in a tree (btDbvtTreeCollider's, without the pair cache).
    struct Overlaps final : btDbvt::ICollide {
        using btDbvt::ICollide::Process;
        Overlaps(const btDbvtNode* self, std::vector<btBroadphaseProxy*>& found)
            : self_(self), found_(found) {}
        void Process(const btDbvtNode* node) override {
            if (node != self_) found_.push_back(static_cast<btBroadphaseProxy*>(node->data));
        }

    private:
        const btDbvtNode* self_;
        std::vector<btBroadphaseProxy*>& found_;
    };
    const std::size_t count = leavesMoved.size();
    const int threads = workerThreads();
    const std::size_t ranges =
        threads < 2 || count < kParallelLeaves
            ? 1
            : std::min(4 * static_cast<std::size_t>(threads), count / (kParallelLeaves / 4));
    if (leafOverlaps.size() < ranges) leafOverlaps.resize(ranges);
    // (each range's pairs in its own list: fixed tree, then dynamic, as Bullet's setAabb)
    runTasks(static_cast<int>(ranges), [&](int r) {
        LeafOverlaps& out = leafOverlaps[static_cast<std::size_t>(r)];
        out.found.clear();
        out.end.clear();
        for (std::size_t k = count * static_cast<std::size_t>(r) / ranges,
                         last = count * static_cast<std::size_t>(r + 1) / ranges;
             k < last; ++k) {
            const btDbvtNode* leaf = leavesMoved[k]->leaf;
            Overlaps overlaps(leaf, out.found);
            broadphase.m_sets[1].collideTV(broadphase.m_sets[1].m_root, leaf->volume, overlaps);
            broadphase.m_sets[0].collideTV(broadphase.m_sets[0].m_root, leaf->volume, overlaps);
            out.end.push_back(out.found.size());
        }
    });
    btOverlappingPairCache& cache = *broadphase.getOverlappingPairCache();
    std::size_t k = 0;
    for (std::size_t r = 0; r < ranges; ++r) {
        const LeafOverlaps& in = leafOverlaps[r];
        std::size_t begin = 0;
        for (const std::size_t end : in.end) {
            for (std::size_t f = begin; f < end; ++f)
                cache.addOverlappingPair(in.found[f], leavesMoved[k]);
            broadphase.m_newpairs += static_cast<int>(end - begin);
            begin = end;
            ++k;
        }
    }
}

// Bullet's dispatchAllCollisionPairs with its default near callback, but over the pairs whose
// padded bounding boxes overlap: the broadphase keeps a pair while its tree's leaves overlap,
// and a leaf is the box grown by a slack (kBoxSlack) so that it is moved seldom. The
// algorithms of new pairs are made first, in turn; then the pairs are processed, on several
// threads for many, in chunks of consecutive pairs (each pair's algorithm writes its
// own manifolds only; a pair's points do not depend on the order, and query() puts them in a
// canonical one). Each pair's points are read into its chunk and its manifolds emptied at once.
void CollisionWorld::Impl::narrowPhase(double margin) {
    Impl& m = *this;
    const btDispatcherInfo& info = m.world.getDispatchInfo();
    btBroadphasePairArray& all = m.broadphase.getOverlappingPairCache()->getOverlappingPairArray();
    // The pairs whose boxes overlap, in ranges of Bullet's array (on the threads for many), then
    // put together in order; a pair's parts are read from its proxies (at 10,000 parts two
    // cache misses) only when it is new at its place in the array (pairProxies), and the array
    // is read only when the broadphase may have changed it (pairsChanged);
    // the algorithms of new pairs are made there, in turn (Bullet's dispatcher allocates them).
    const auto size = static_cast<std::size_t>(all.size());
    const int threads = workerThreads();
    const std::size_t ranges =
        threads < 2 || size < kParallelPairs ? 1 : 4 * static_cast<std::size_t>(threads);
    if (m.gathered.size() < ranges) m.gathered.resize(ranges);
    if (m.pairParts.size() < size) {
        m.pairParts.resize(size);
        m.pairProxies.resize(size);
    }
    // (a quiet pair's turn to be looked at afresh, setQuietTurn: (step + 2a + b) mod every = 0;
    // a settled pair's, of two settled parts or one and the ground: mod settledEvery)
    const int every = std::max(m.quietEvery, 1);
    const int settledEvery = std::max(m.settledEvery, every);
    const int settledTurn =
        m.quietEvery > 0
            ? static_cast<int>((settledEvery - m.quietStep % settledEvery) % settledEvery)
            : -1;
    const int turn = m.quietEvery > 0 ? settledTurn % every : -1;
    // (each pair's turn computed anew)
    const bool turnsChanged = settledEvery != m.pairTurnsEvery || every != m.pairTurnsQuiet;
    const bool read = m.pairsChanged || turnsChanged;
    m.pairsChanged = false;
    m.pairTurnsEvery = settledEvery;
    m.pairTurnsQuiet = every;
    // Whether a pair of quiet (or settled, or sleeping) parts is left out of this query: not in
    // its turn.
    const auto notInTurn = [&](const Impl::PairOfParts& parts) {
        const auto ia = static_cast<std::size_t>(parts.a), ib = static_cast<std::size_t>(parts.b);
        const bool settled = (m.quiet[ia] == 2 || m.still[ia]) && (m.quiet[ib] == 2 || m.still[ib]);
        return settled ? parts.turn != settledTurn : parts.quietTurn != turn;
    };
    if (read) m.turnsSorted = false;
    runTasks(static_cast<int>(read ? ranges : 0), [&](int r) {
        const std::size_t begin = size * static_cast<std::size_t>(r) / ranges,
                          end = size * static_cast<std::size_t>(r + 1) / ranges;
        for (std::size_t k = begin; k < end; ++k) {
            const btBroadphasePair& pair = all[static_cast<int>(k)];
            Impl::PairProxies& known = m.pairProxies[k];
            if (known.proxy0 == pair.m_pProxy0 && known.proxy1 == pair.m_pProxy1 && !turnsChanged)
                continue;
            known = {pair.m_pProxy0, pair.m_pProxy1};
            const int a = m.partOfProxy[static_cast<std::size_t>(pair.m_pProxy0->m_uniqueId)];
            const int b = m.partOfProxy[static_cast<std::size_t>(pair.m_pProxy1->m_uniqueId)];
            const long long order = 2 * static_cast<long long>(std::min(a, b)) + std::max(a, b);
            m.pairParts[k] = {a, b, static_cast<int>(order % settledEvery),
                              static_cast<int>(order % every)};
        }
    });
    // Every part quiet or still (a pile come to rest): the pairs in their turn are all there is
    // to look at, taken from the pairs sorted by turn (in their order in the array, as below).
    bool allQuiet = turn >= 0;
    for (std::size_t i = 0; i < m.quiet.size() && allQuiet; ++i)
        allQuiet = !m.objectOfPart[i] || m.quiet[i] || m.still[i];
    if (allQuiet) {
        if (!m.turnsSorted) {
            m.turnStart.assign(static_cast<std::size_t>(every) + 1, 0);
            for (std::size_t k = 0; k < size; ++k)
                ++m.turnStart[static_cast<std::size_t>(m.pairParts[k].quietTurn) + 1];
            for (std::size_t t = 0; t < static_cast<std::size_t>(every); ++t)
                m.turnStart[t + 1] += m.turnStart[t];
            m.byTurn.resize(size);
            std::vector<std::size_t> at(m.turnStart.begin(), m.turnStart.end() - 1);
            for (std::size_t k = 0; k < size; ++k)
                m.byTurn[at[static_cast<std::size_t>(m.pairParts[k].quietTurn)]++] = k;
            m.turnsSorted = true;
        }
        std::vector<NarrowPair>& out = m.gathered[0].pairs;
        out.clear();
        for (std::size_t j = m.turnStart[static_cast<std::size_t>(turn)],
                         end = m.turnStart[static_cast<std::size_t>(turn) + 1];
             j < end; ++j) {
            const std::size_t k = m.byTurn[j];
            const auto ia = static_cast<std::size_t>(m.pairParts[k].a),
                       ib = static_cast<std::size_t>(m.pairParts[k].b);
            if ((m.still[ia] && m.still[ib]) || notInTurn(m.pairParts[k])) continue;
            if (!TestAabbAgainstAabb2(m.boxes[ia].lo, m.boxes[ia].hi, m.boxes[ib].lo,
                                      m.boxes[ib].hi))
                continue;
            const NarrowPair found{m.pairParts[k].a, m.pairParts[k].b,
                                   pairKind(m.shapeClass[ia], m.shapeClass[ib]),
                                   &all[static_cast<int>(k)]};
            if (onPlane(found.kind) && m.beyondPlane(found, margin)) continue;
            out.push_back(found);
        }
        for (std::size_t r = 1; r < ranges; ++r) m.gathered[r].pairs.clear();
    }
    runTasks(static_cast<int>(allQuiet ? 0 : ranges), [&](int r) {
        std::vector<NarrowPair>& out = m.gathered[static_cast<std::size_t>(r)].pairs;
        out.clear();
        const std::size_t begin = size * static_cast<std::size_t>(r) / ranges,
                          end = size * static_cast<std::size_t>(r + 1) / ranges;
        for (std::size_t k = begin; k < end; ++k) {
            const Impl::PairOfParts parts = m.pairParts[k];
            const auto ia = static_cast<std::size_t>(parts.a),
                       ib = static_cast<std::size_t>(parts.b);
            // (Bullet's needsCollision: not when neither part moves; nor when both are quiet —
            // a sleeping part is — but in their turn: their kept points are moved with them)
            if (m.still[ia] && m.still[ib]) continue;
            if ((m.quiet[ia] || m.still[ia]) && (m.quiet[ib] || m.still[ib]) && notInTurn(parts))
                continue;
            const Impl::Box& boxA = m.boxes[ia];
            const Impl::Box& boxB = m.boxes[ib];
            if (!TestAabbAgainstAabb2(boxA.lo, boxA.hi, boxB.lo, boxB.hi)) continue;
            const NarrowPair found{parts.a, parts.b, pairKind(m.shapeClass[ia], m.shapeClass[ib]),
                                   &all[static_cast<int>(k)]};
            if (onPlane(found.kind) && m.beyondPlane(found, margin)) continue;
            out.push_back(found);
        }
    });
    m.pairs.clear();
    // (a round pair's algorithm, for cores that meet, is made in its chunk when needed: few are)
    for (std::size_t r = 0; r < ranges; ++r)
        for (const NarrowPair& found : m.gathered[r].pairs) {
            if (found.kind == PairKind::Algorithm && !m.withAlgorithm(found)) continue;
            m.pairs.push_back(found);
        }
    const std::size_t n = m.pairs.size();
    // Chunks of at least 32 pairs, four per thread: even work without a hand-out per pair.
    // (From 64 pairs up: pile-400's quiet columns send ~185 box pairs a step, 0.45 µs each;
    // on one chunk they took 80–110 µs of its two-thread step, on five 58.)
    const std::size_t chunks =
        threads < 2 || n < kParallelNarrowPairs
            ? 1
            : std::min<std::size_t>({4 * static_cast<std::size_t>(threads), n / 32, 64});
    if (m.chunks.size() < chunks) m.chunks.resize(chunks);
    runTasks(static_cast<int>(chunks), [&](int c) {
        Chunk& chunk = m.chunks[static_cast<std::size_t>(c)];
        chunk.count = 0;
        chunk.fresh.clear();
        for (std::size_t k = n * static_cast<std::size_t>(c) / chunks,
                         last = n * static_cast<std::size_t>(c + 1) / chunks;
             k < last; ++k) {
            const NarrowPair& pair = m.pairs[k];
            const auto ia = static_cast<std::size_t>(pair.a), ib = static_cast<std::size_t>(pair.b);
            // (the breaking distance a manifold of the pair gets: its parts' nearer one, at least
            // the margin)
            const auto breaking = [&] {
                return std::max(std::min(m.breaking[static_cast<std::size_t>(pair.a)],
                                         m.breaking[static_cast<std::size_t>(pair.b)]),
                                margin);
            };
            switch (pair.kind) {
            case PairKind::Boxes:
                boxBoxPoints(*static_cast<const btBoxShape*>(m.shapeOfPart[ia]), m.pose[ia],
                             *static_cast<const btBoxShape*>(m.shapeOfPart[ib]), m.pose[ib],
                             breaking(), chunk.direct);
                collect(chunk, pair.a, pair.b, chunk.direct);
                continue;
            case PairKind::ShapeOnPlane:
                polyhedronPlanePoints(*m.shapeOfPart[ia], m.pose[ia], *m.shapeOfPart[ib],
                                      m.pose[ib], breaking(), chunk.direct);
                collect(chunk, pair.a, pair.b, chunk.direct);
                continue;
            case PairKind::PlaneUnderShape:
                polyhedronPlanePoints(*m.shapeOfPart[ib], m.pose[ib], *m.shapeOfPart[ia],
                                      m.pose[ia], breaking(), chunk.direct);
                collect(chunk, pair.b, pair.a, chunk.direct);
                continue;
            case PairKind::Round:
                if (!roundPoints(*m.shapeOfPart[ia], m.pose[ia], *m.shapeOfPart[ib], m.pose[ib],
                                 breaking(), chunk.direct)) {
                    // (the cores meet: the algorithm's points; its objects posed and the
                    // algorithm made here, under a lock, as other chunks run)
                    const std::lock_guard<std::mutex> lock(m.roundMutex);
                    if (!m.withAlgorithm(pair)) continue;
                    break;
                }
                collect(chunk, pair.a, pair.b, chunk.direct);
                continue;
            case PairKind::Polytopes:
                polytopePoints(*m.shapeOfPart[ia], m.pose[ia], *m.shapeOfPart[ib], m.pose[ib],
                               breaking(), chunk.direct);
                collect(chunk, pair.a, pair.b, chunk.direct);
                continue;
            case PairKind::Faces:
                facePoints(*m.shapeOfPart[ia], m.pose[ia], *m.shapeOfPart[ib], m.pose[ib],
                           breaking(), chunk.direct);
                collect(chunk, pair.a, pair.b, chunk.direct);
                continue;
            case PairKind::Algorithm:
                break;
            }
            const btCollisionObject* a = m.objectOfPart[ia];
            const btCollisionObject* b = m.objectOfPart[ib];
            const btCollisionObjectWrapper wa(nullptr, a->getCollisionShape(), a, m.pose[ia], -1,
                                              -1);
            const btCollisionObjectWrapper wb(nullptr, b->getCollisionShape(), b, m.pose[ib], -1,
                                              -1);
            btManifoldResult result(&wa, &wb);
            pair.pair->m_algorithm->processCollision(&wa, &wb, info, &result);
            manifoldsOf(*pair.pair->m_algorithm, *a, *b, chunk.manifolds);
            for (int i = 0; i < chunk.manifolds.size(); ++i) {
                btPersistentManifold* manifold = chunk.manifolds[i];
                if (manifold->getNumContacts() == 0) continue;
                collect(chunk, *manifold);
                manifold->clearManifold();
            }
        }
        // (sorted by key and source: a pair's points are found together, in the order of their
        // sources, so its runs of one key are sorted whole — a quarter of the elements a
        // point-by-point sort moves — and written out in their order)
        std::vector<Entry>& runs = chunk.runs;
        runs.clear();
        for (std::size_t k = 0; k < chunk.fresh.size();) {
            std::size_t last = k + 1;
            while (last < chunk.fresh.size() && chunk.fresh[last].key == chunk.fresh[k].key) ++last;
            runs.push_back({chunk.fresh[k].key, static_cast<int>(k), static_cast<int>(last - k)});
            k = last;
        }
        if (!std::is_sorted(runs.begin(), runs.end(), byKeyAndSource)) {
            std::sort(runs.begin(), runs.end(), byKeyAndSource);
            chunk.sorted.clear();
            for (const Entry& run : runs)
                chunk.sorted.insert(chunk.sorted.end(), chunk.fresh.begin() + run.source,
                                    chunk.fresh.begin() + run.source + run.resting);
            chunk.fresh.swap(chunk.sorted);
        }
    });
    // The chunks' sorted points merged, two runs at a time (the order is total: the same as
    // one sort of them all).
    m.fresh.clear();
    m.runs.assign(1, 0);
    for (std::size_t c = 0; c < chunks; ++c) {
        m.fresh.insert(m.fresh.end(), m.chunks[c].fresh.begin(), m.chunks[c].fresh.end());
        m.runs.push_back(m.fresh.size());
    }
    while (m.runs.size() > 2) {
        m.merged.resize(m.fresh.size());
        std::size_t kept = 1;
        for (std::size_t r = 0; r + 1 < m.runs.size(); r += 2) {
            const auto at = [&](std::size_t k) {
                return m.fresh.begin() + static_cast<std::ptrdiff_t>(m.runs[k]);
            };
            const auto to = m.merged.begin() + static_cast<std::ptrdiff_t>(m.runs[r]);
            if (r + 2 < m.runs.size())
                std::merge(at(r), at(r + 1), at(r + 1), at(r + 2), to, byKeyAndSource);
            else
                std::copy(at(r), at(r + 1), to);
            m.runs[kept++] = m.runs[std::min(r + 2, m.runs.size() - 1)];
        }
        m.runs.resize(kept);
        m.fresh.swap(m.merged);
    }
}

// A manifold's points into the chunk.
void CollisionWorld::Impl::collect(Chunk& chunk, const btPersistentManifold& manifold) const {
    const int a = manifold.getBody0()->getUserIndex();
    const int b = manifold.getBody1()->getUserIndex();
    for (int p = 0; p < manifold.getNumContacts(); ++p) {
        const btManifoldPoint& point = manifold.getContactPoint(p);
        collectPoint(chunk, a, b, point.m_localPointA, point.m_localPointB,
                     point.m_positionWorldOnA, point.m_positionWorldOnB, point.m_normalWorldOnB,
                     point.m_distance1, point.m_index0, point.m_index1);
    }
}

// A point into the chunk, with the lower part index as A.
void CollisionWorld::Impl::collectPoint(Chunk& chunk, int a, int b, const btVector3& localA,
                                        const btVector3& localB, const btVector3& worldA,
                                        const btVector3& worldB, const btVector3& normalOnB,
                                        btScalar distance, int index0, int index1) const {
    const Impl& m = *this;
    auto shapeIndex = [&](int part, int index) {
        return m.compound[static_cast<std::size_t>(part)] ? std::max(0, index) : 0;
    };
    const int partA = std::min(a, b), partB = std::max(a, b);
    const auto tag = static_cast<std::uint32_t>(&chunk - m.chunks.data()) << kChunkBits;
    // Reported with the lower part index first: sides exchanged, the normal reversed.
    // (The buffer grows once and its slots are overwritten: no zeroing per point.)
    if (chunk.count == chunk.found.size()) chunk.found.emplace_back();
    Found& found = chunk.found[chunk.count++];
    MergePoint& point = found.point;
    // (copied coordinate by coordinate: the pair's points were written so a moment ago, and a
    // vector copied whole reads them back wider than they were stored, a stall each)
    const auto put = [](btVector3& to, const btVector3& from) {
        to.setValue(from.x(), from.y(), from.z());
    };
    put(point.local_A, a < b ? localA : localB);
    put(point.local_B, a < b ? localB : localA);
    put(point.p_WA, a < b ? worldA : worldB);
    put(point.p_WB, a < b ? worldB : worldA);
    if (a < b)
        put(point.n_BA, normalOnB);
    else
        point.n_BA.setValue(-normalOnB.x(), -normalOnB.y(), -normalOnB.z());
    point.distance = distance;
    point.age = 0;  // new: no age, no impulses yet
    point.normalImpulse = 0.0;
    point.friction_W.setZero();
    found.shapeA = shapeIndex(partA, a < b ? index0 : index1);
    found.shapeB = shapeIndex(partB, a < b ? index1 : index0);
    chunk.fresh.push_back({PairKey(partA, partB, found.shapeA, found.shapeB),
                           static_cast<int>(tag | static_cast<std::uint32_t>(chunk.count - 1))});
}

CollisionWorld::CollisionWorld(const SceneSpec& spec) : CollisionWorld(buildContactModel(spec)) {}

CollisionWorld::CollisionWorld(const ContactModel& model) : impl_(std::make_unique<Impl>(model)) {
    // (the broadphase's leaves hold the boxes given them, no more: kBoxSlack)
    static std::once_flag tightLeaves;
    std::call_once(tightLeaves, [] { gDbvtMargin = 0.0; });
    Impl& m = *impl_;
    // A flat face on the ground plane gets its corner points in one query, not one point per
    // query accumulated over several steps: every vertex of a polyhedron near the plane, a
    // cylinder's rim points (polyhedron_plane.h), and Bullet's perturbed support searches for the
    // other convex shapes (a cone). Polyhedra against polyhedra get whole patches by clipping;
    // round shapes touch in one point.
    m.configuration.setPlaneConvexMultipointIterations(3, 3);
    if (m.configuration.getCollisionAlgorithmPool()->getElementSize() <
        static_cast<int>(polyhedronPlaneAlgorithmSize()))
        throw std::logic_error(
            "CollisionWorld: Bullet's algorithm blocks are smaller than "
            "the polyhedron-plane algorithm");
    registerPolyhedronPlane(m.dispatcher);
    m.broadphase.getOverlappingPairCache()->setOverlapFilterCallback(&m.filter);
    // Bullet's upkeep of its tree of parts at rest and of its pairs, each step that a box is
    // set: of the tree, one pass (by default one per hundred of its leaves: at 10,000 parts a
    // hundred passes down a tree out of cache, each step); of the pairs, one in a hundred checked
    // for boxes that no longer overlap (by default one in ten). The pairs held are not the
    // pairs looked at (those whose padded boxes overlap, gathered by the query): what a pair
    // checked later costs is a few more pairs held a while. Scatter-10,000's pair update: 320
    // µs a step down to 75.
    m.broadphase.m_fupdates = 0;
    m.broadphase.m_cupdates = 1;
    for (const ContactPartModel& part : m.model.parts)
        for (const Shape& s : part.shapes) m.anyMesh = m.anyMesh || s.type == ShapeType::Mesh;
    m.objectOfPart.assign(m.model.parts.size(), nullptr);
    m.breaking.assign(m.model.parts.size(), 0.0);
    m.X_PO.assign(m.model.parts.size(), Transform{});
    m.objectAtPart.assign(m.model.parts.size(), 0);
    m.pose.assign(m.model.parts.size(), btTransform::getIdentity());
    m.shapeOfPart.assign(m.model.parts.size(), nullptr);
    m.objectPosed.assign(m.model.parts.size(), 1);
    m.group.assign(m.model.parts.size(), 0);
    m.mask.assign(m.model.parts.size(), 0);
    m.moved.assign(m.model.parts.size(), 1);
    m.boxes.assign(m.model.parts.size(), {btVector3(0, 0, 0), btVector3(0, 0, 0)});
    m.heldBox.assign(m.model.parts.size(), {btVector3(0, 0, 0), btVector3(0, 0, 0)});
    m.asleep.assign(m.model.parts.size(), 0);
    m.shapeClass.assign(m.model.parts.size(), ShapeClass::Other);
    m.still.assign(m.model.parts.size(), 0);
    m.compound.assign(m.model.parts.size(), 0);
    m.ground.assign(m.model.parts.size(), 0);
    m.quiet.assign(m.model.parts.size(), 0);
    m.proxyOfPart.assign(m.model.parts.size(), nullptr);
    for (std::size_t i = 0; i < m.model.parts.size(); ++i) {
        const ContactPartModel& part = m.model.parts[i];
        if (part.shapes.empty() || !part.filter.enabled) continue;
        btCollisionShape* shape = nullptr;
        if (part.shapes.size() == 1) {
            // One shape: the object sits in the shape's frame, no compound needed.
            shape = m.leafShape(part.shapes.front(), part.ground);
            if (!shape) continue;
            m.X_PO[i] = part.shapes.front().X_PG;
        } else {
            auto compound =
                std::make_unique<btCompoundShape>(/*enableDynamicAabbTree=*/part.shapes.size() > 8);
            for (const Shape& s : part.shapes) {
                btCollisionShape* leaf = m.leafShape(s, part.ground);
                if (!leaf) continue;
                compound->addChildShape(toBt(s.X_PG), leaf);
            }
            shape = compound.get();
            m.shapes.push_back(std::move(compound));
        }
        auto object = std::make_unique<btCollisionObject>();
        object->setCollisionShape(shape);
        object->setUserIndex(static_cast<int>(i));
        if (part.ground) {
            object->setCollisionFlags(btCollisionObject::CF_STATIC_OBJECT);
            // (inactive: the narrow phase takes a pair with a moving part only, as for any
            // pair of a sleeping part and the ground)
            object->setActivationState(ISLAND_SLEEPING);
        }
        // Placed before it is added: the broadphase pairs an object with every object its
        // bounding box overlaps when it is added, and at the origin all of them overlap (N²/2
        // pairs: 10,000 boxes took 47 s and 3.5 GB before the first step).
        object->setWorldTransform(toBt(part.X_WP0 * m.X_PO[i]));
        m.pose[i] = object->getWorldTransform();
        m.objectAtPart[i] = isIdentity(m.X_PO[i]);
        m.shapeOfPart[i] = shape;
        m.group[i] = part.filter.group;
        m.mask[i] = part.filter.mask;
        m.objectOfPart[i] = object.get();
        m.breaking[i] = shape->getContactBreakingThreshold(gContactBreakingThreshold);
        m.shapeClass[i] = shapeClassOf(*shape);
        m.still[i] = part.ground;
        m.compound[i] = shape->isCompound();
        m.objects.push_back(std::move(object));
        m.world.addCollisionObject(
            m.objectOfPart[i],
            part.ground ? btBroadphaseProxy::StaticFilter : btBroadphaseProxy::DefaultFilter,
            btBroadphaseProxy::AllFilter);
        m.ground[i] = part.ground;
        m.quiet[i] = part.ground ? 2 : 0;
        m.proxyOfPart[i] = static_cast<btDbvtProxy*>(m.objectOfPart[i]->getBroadphaseHandle());
        m.boxes[i] = m.heldBox[i] = {m.proxyOfPart[i]->m_aabbMin, m.proxyOfPart[i]->m_aabbMax};
        const auto id =
            static_cast<std::size_t>(m.objectOfPart[i]->getBroadphaseHandle()->m_uniqueId);
        if (m.partOfProxy.size() <= id) m.partOfProxy.resize(id + 1, -1);
        m.partOfProxy[id] = static_cast<int>(i);
    }
}

CollisionWorld::~CollisionWorld() = default;

void CollisionWorld::setPartPose(std::size_t partIndex, const Transform& X_WP) {
    Impl& m = *impl_;
    // (a part whose object frame is its own: its pose as given)
    if (m.objectOfPart.at(partIndex))
        m.setObjectPose(partIndex, m.objectAtPart[partIndex] ? X_WP : X_WP * m.X_PO[partIndex]);
}

void CollisionWorld::setBodyFrames(const std::vector<Transform>& X_BP) {
    Impl& m = *impl_;
    const std::size_t n = m.objectOfPart.size();
    m.X_BO.assign(n, Transform{});
    m.objectAtBody.assign(n, 0);
    for (std::size_t i = 0; i < n && i < X_BP.size(); ++i) {
        m.X_BO[i] = m.objectAtPart[i] ? X_BP[i] : X_BP[i] * m.X_PO[i];
        m.objectAtBody[i] = isIdentity(m.X_BO[i]);
    }
}

void CollisionWorld::setPartPoseFromBody(std::size_t partIndex, const Transform& X_WB) {
    Impl& m = *impl_;
    if (partIndex >= m.X_BO.size()) throw std::out_of_range("setPartPoseFromBody: no frames");
    if (m.objectOfPart[partIndex]) m.poseFromBody(partIndex, X_WB);
}

void CollisionWorld::Impl::setObjectPose(std::size_t partIndex, const Transform& X_WO) {
    Impl& m = *this;
    // Into the parts' array of poses only: each object, a heap block of its own (at 10,000 parts
    // each a cache miss), is given its pose when a Bullet algorithm is to read it (narrowPhase).
    // (as toBt(X_WO), compared and stored number by number: the pose built aside and
    // copied whole was read back before its stores had landed, a stall every 16 bytes)
    const btMatrix3x3 R(btQuaternion(X_WO.R.x(), X_WO.R.y(), X_WO.R.z(), X_WO.R.w()));
    btTransform& pose = m.pose[partIndex];
    btMatrix3x3& basis = pose.getBasis();
    btVector3& origin = pose.getOrigin();
    bool same = origin.x() == X_WO.p.x() && origin.y() == X_WO.p.y() && origin.z() == X_WO.p.z();
    for (int i = 0; i < 3 && same; ++i)
        same = basis[i].x() == R[i].x() && basis[i].y() == R[i].y() && basis[i].z() == R[i].z();
    if (same) return;
    for (int i = 0; i < 3; ++i) basis[i].setValue(R[i].x(), R[i].y(), R[i].z());
    origin.setValue(X_WO.p.x(), X_WO.p.y(), X_WO.p.z());
    m.objectPosed[partIndex] = 0;
    m.moved[partIndex] = 1;
}

void CollisionWorld::setPartAsleep(std::size_t partIndex, bool asleep) {
    Impl& m = *impl_;
    if (m.objectOfPart.at(partIndex)) m.setAsleep(partIndex, asleep);
}

Vec3 CollisionWorld::worldPoint(std::size_t partIndex, const Vec3& local) const {
    const Impl& m = *impl_;
    return m.objectOfPart.at(partIndex) ? fromBt(m.pose[partIndex] * toBt(local)) : local;
}

void CollisionWorld::setPartQuiet(std::size_t partIndex, bool quiet, bool settled) {
    Impl& m = *impl_;
    if (m.objectOfPart.at(partIndex)) m.setQuiet(partIndex, quiet, settled);
}

void CollisionWorld::setPartFromBody(std::size_t partIndex, bool quiet, bool settled, bool asleep,
                                     const Transform* X_WB) {
    Impl& m = *impl_;
    if (partIndex >= m.X_BO.size()) throw std::out_of_range("setPartFromBody: no frames");
    if (!m.objectOfPart[partIndex]) return;
    m.setQuiet(partIndex, quiet, settled);
    m.setAsleep(partIndex, asleep);
    if (X_WB) m.poseFromBody(partIndex, *X_WB);
}

void CollisionWorld::setQuietTurn(long long step, int every, int settledEvery) {
    impl_->quietStep = step;
    impl_->quietEvery = every;
    // (a multiple of every: a settled pair's turn is then one of its turns as a quiet pair)
    impl_->settledEvery = every > 0 && settledEvery > every ? settledEvery / every * every : every;
}

bool CollisionWorld::partAsleep(std::size_t partIndex) const {
    return impl_->asleep.at(partIndex) != 0;
}

ContactQuery CollisionWorld::query(double margin, const std::vector<ContactPointState>& previous) {
    ContactQuery result;
    query(margin, previous, result);
    return result;
}

void CollisionWorld::query(double margin, const std::vector<ContactPointState>& previous,
                           ContactQuery& result, PointsIn pointsIn) {
    Impl& m = *impl_;
    result.rangeCount = 0;
    // A pure geometric query: every manifold starts empty (each query empties the manifolds it
    // read; a new manifold is empty) and breaks contact no closer than the margin.
    btDispatcher* dispatcher = m.world.getDispatcher();
    if (margin != m.dispatcher.threshold) {
        for (int k = 0; k < dispatcher->getNumManifolds(); ++k) {
            btPersistentManifold* manifold = dispatcher->getManifoldByIndexInternal(k);
            if (manifold->getContactBreakingThreshold() < margin)
                manifold->setContactBreakingThreshold(margin);
        }
        m.dispatcher.threshold = margin;
        std::fill(m.moved.begin(), m.moved.end(), 1);  // (boxes padded by the margin)
    }
    m.world.getDispatchInfo().m_allowedCcdPenetration = 0.0;
    // Bounding boxes, pairs, narrow phase: Bullet's performDiscreteCollisionDetection, except for
    // the padding of the boxes. Bullet pads every box by 2 cm (gContactBreakingThreshold) so that
    // its own persistent manifolds see points coming; here a pair's points are wanted up to its
    // breaking distance T = max(min(T_A, T_B), margin) only (nearer points are all the narrow
    // phase reports), and two shapes that close have boxes apart by at most T along every axis:
    // each box padded by half its own max(T_i, margin) meets the other's. In a pile of 10 cm
    // cubes 1 cm apart, Bullet's padding sent each cube's 26 neighbours to the narrow phase; this
    // sends the ones it touches.
    // (the boxes on the threads for many parts, then put in the broadphase's tree in turn)
    // (the ground's on the first query only, padded as the others')
    const auto changed = [&m](std::size_t i) { return m.moved[i] && m.objectOfPart[i]; };
    // A box still inside the one its proxy holds is not given to the broadphase again.
    runRanges(m.objectOfPart.size(), kParallelBoxes, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) {
            if (!changed(i)) continue;
            Impl::Box& box = m.boxes[i];
            const btVector3 before = box.lo + box.hi;  // (twice the last box's centre)
            m.shapeOfPart[i]->getAabb(m.pose[i], box.lo, box.hi);
            const double pad = 0.5 * std::max(m.breaking[i], margin);
            const btVector3 padding(pad, pad, pad);
            box.lo -= padding;
            box.hi += padding;
            Impl::Box& held = m.heldBox[i];
            m.moved[i] = 0;
            if (held.lo.x() <= box.lo.x() && held.lo.y() <= box.lo.y() &&
                held.lo.z() <= box.lo.z() && box.hi.x() <= held.hi.x() &&
                box.hi.y() <= held.hi.y() && box.hi.z() <= held.hi.z())
                continue;
            held.lo = box.lo - kBoxSlack * padding;
            held.hi = box.hi + kBoxSlack * padding;
            // (and stretched along the way the box moved since it was last computed, for
            // kBoxAhead more such moves, up to kBoxAheadMost paddings)
            const btScalar most = kBoxAheadMost * pad;
            for (int k = 0; k < 3; ++k) {
                const btScalar ahead = btClamped(
                    btScalar(0.5 * kBoxAhead) * (box.lo[k] + box.hi[k] - before[k]), -most, most);
                (ahead < 0 ? held.lo[k] : held.hi[k]) += ahead;
            }
            m.moved[i] = 2;  // (its proxy to be given `held`)
        }
    });
    // (Bullet's setAabb reads a part's proxy and its tree leaf, two allocations of their own:
    // at 10,000 parts each was a cache miss, most of its time. Both are fetched some parts
    // ahead: the proxy, then its leaf.)
    m.toSet.clear();
    for (std::size_t i = 0; i < m.objectOfPart.size(); ++i)
        if (m.moved[i] == 2) m.toSet.push_back(i);
    constexpr std::size_t kAhead = 8;
    const std::size_t objects = m.objectOfPart.size();
    const std::size_t setting = m.toSet.size();
    // (Bullet's setAabb moves the proxy's leaf in its tree and, when it did, looks for the
    // leaf's new pairs in both trees at once: a tree query per proxy, in turn, a cache miss per
    // node — at 10,000 parts settling, 40 proxies took 170 µs, all of it on one thread. Here the
    // leaves are moved in turn, Bullet's collision deferred, and the queries run on the threads,
    // their pairs added in the proxies' order: the pairs Bullet's own queries add, but for
    // pairs with a leaf not moved yet in Bullet's turn, which its clean-up removes.)
    m.leavesMoved.clear();
    m.broadphase.m_deferedcollide = true;
    for (std::size_t k = 0; k < setting; ++k) {
        if (k + 2 * kAhead < setting) __builtin_prefetch(m.proxyOfPart[m.toSet[k + 2 * kAhead]]);
        if (k + kAhead < setting) __builtin_prefetch(m.proxyOfPart[m.toSet[k + kAhead]]->leaf);
        const std::size_t i = m.toSet[k];
        m.moved[i] = 0;
        btDbvtProxy* proxy = m.proxyOfPart[i];
        // (moved: from the fixed tree into the dynamic one, or its leaf's volume changed)
        const bool fixed = proxy->stage == btDbvtBroadphase::STAGECOUNT;
        const btDbvtVolume before = proxy->leaf->volume;
        m.broadphase.setAabb(proxy, m.heldBox[i].lo, m.heldBox[i].hi, &m.dispatcher);
        if (fixed || NotEqual(before, proxy->leaf->volume)) m.leavesMoved.push_back(proxy);
    }
    m.broadphase.m_deferedcollide = false;
    m.addPairsOfMovedLeaves();
    m.boxesPutInTree += setting;
    const bool boxesSet = setting > 0;
    // (no box set: the same pairs as the last query; nothing but the ground and sleeping parts:
    // no pair for the narrow phase — a sleeping pile's step looks at none of its pairs)
    if (boxesSet) {
        m.broadphase.calculateOverlappingPairs(&m.dispatcher);
        m.pairsChanged = true;
    }
    bool awake = false;
    for (std::size_t i = 0; i < objects && !awake; ++i) awake = m.objectOfPart[i] && !m.still[i];
    if (awake) {
        m.narrowPhase(margin);
    } else {
        m.fresh.clear();
    }

    // The new points and the kept ones by manifold, in a canonical order: by part pair and
    // shape pair, kept points before new ones, each in its own order (Bullet's order of
    // manifolds depends on the history of its pair cache; a manifold's points do not).
    if (!awake) {
        m.listKept(previous);
        if (std::all_of(m.kept.begin(), m.kept.end(),
                        [](const Impl::Entry& e) { return e.resting > 0; })) {
            // Nothing but sleeping parts and the ground: every kept point passed on as it is
            // (as emit() passes a sleeping pair's), no point to solve.
            result.points.clear();
            result.persistent.clear();
            result.resting.clear();
            for (const Impl::Entry& e : m.kept) {
                const ContactPointState& c = previous[static_cast<std::size_t>(-e.source - 1)];
                result.persistent.push_back(c);
                if (c.distance <= margin) result.resting.push_back(result.persistent.size() - 1);
            }
            return;
        }
    }
    // The pairs in ranges of keys, each range's kept points read from the last query's (in
    // canonical order already: its own order) and merged with its new ones, then merged and
    // written out on its own (on the threads for many points), then put together in order: the
    // same result whatever the ranges. Kept points given in another order are listed and
    // sorted first (listKept), and the ranges made again.
    bool listed = !awake;
    const std::size_t total = previous.size() + m.fresh.size();
    const int threads = workerThreads();
    const std::size_t ranges =
        threads < 2 || total < kParallelPoints ? 1 : 4 * static_cast<std::size_t>(threads);
    if (m.outputs.size() < ranges) m.outputs.resize(ranges);
    const auto mergeAndEmit = [&](Impl::Output& out) {
        m.mergeEntries(out, previous, listed);
        if (!out.unsorted) m.emit(out, margin, previous);
    };
    for (;;) {
        m.splitRanges(ranges, previous, listed);
        if (ranges == 1) {  // straight into the result
            Impl::Output& out = m.outputs[0];
            out.persistent.swap(result.persistent);
            out.points.swap(result.points);
            out.resting.swap(result.resting);
            mergeAndEmit(out);
            out.persistent.swap(result.persistent);
            out.points.swap(result.points);
            out.resting.swap(result.resting);
        } else {
            runTasks(static_cast<int>(ranges),
                     [&](int r) { mergeAndEmit(m.outputs[static_cast<std::size_t>(r)]); });
        }
        if (!std::any_of(m.outputs.begin(), m.outputs.begin() + static_cast<std::ptrdiff_t>(ranges),
                         [](const Impl::Output& out) { return out.unsorted; }))
            break;
        m.listKept(previous);
        listed = true;
    }
    if (ranges == 1) return;
    // Where each range's records go, counted before the tasks (the result's vectors resized
    // from their last size: only growth is zeroed), then each range's copied there on its
    // thread; its points handed over as they are when asked for in ranges (the world takes
    // the result's range buffer back, so no task may read another range's points).
    const bool inRanges = pointsIn == PointsIn::Ranges;
    std::size_t persistent = 0, points = 0, resting = 0;
    m.rangeAt.resize(ranges);
    for (std::size_t r = 0; r < ranges; ++r) {
        m.rangeAt[r] = {persistent, points, resting};
        persistent += m.outputs[r].persistent.size();
        points += m.outputs[r].points.size();
        resting += m.outputs[r].resting.size();
    }
    result.persistent.resize(persistent);
    if (inRanges) {
        result.rangeCount = ranges;
        if (result.pointRanges.size() < ranges) result.pointRanges.resize(ranges);
    } else {
        result.points.resize(points);
    }
    result.resting.resize(resting);
    runTasks(static_cast<int>(ranges), [&](int t) {
        const auto r = static_cast<std::size_t>(t);
        const auto [toPersistent, toPoints, toResting] = m.rangeAt[r];
        Impl::Output& out = m.outputs[r];
        std::copy(out.persistent.begin(), out.persistent.end(),
                  result.persistent.begin() + static_cast<std::ptrdiff_t>(toPersistent));
        if (inRanges) {
            for (ContactPoint& point : out.points) point.persistent += toPersistent;
            out.points.swap(result.pointRanges[r]);
        } else {
            for (std::size_t k = 0; k < out.points.size(); ++k) {
                ContactPoint& point = result.points[toPoints + k];
                point = out.points[k];
                point.persistent += toPersistent;
            }
        }
        for (std::size_t k = 0; k < out.resting.size(); ++k)
            result.resting[toResting + k] = out.resting[k] + toPersistent;
    });
}

void ContactQuery::joinRanges() {
    if (rangeCount == 0) return;
    std::size_t total = 0;
    for (std::size_t r = 0; r < rangeCount; ++r) total += pointRanges[r].size();
    points.resize(total);
    auto to = points.begin();
    for (std::size_t r = 0; r < rangeCount; ++r)
        to = std::copy(pointRanges[r].begin(), pointRanges[r].end(), to);
    rangeCount = 0;
}

void CollisionWorld::Impl::listKept(const std::vector<ContactPointState>& previous) {
    kept.clear();
    int lastA = -1, lastB = -1;
    bool touch = false, resting = false;
    Entry entry;
    for (std::size_t k = 0; k < previous.size(); ++k)
        if (keptEntry(previous, k, lastA, lastB, touch, resting, entry)) kept.push_back(entry);
    const auto byKey = [](const Entry& x, const Entry& y) { return x.key < y.key; };
    if (!std::is_sorted(kept.begin(), kept.end(), byKey))
        std::stable_sort(kept.begin(), kept.end(), byKey);
}

// The ranges' keys: taken from the larger of the kept points and the new ones at even steps
// (a pair's points all in one range), and where each range's points begin in both.
void CollisionWorld::Impl::splitRanges(std::size_t ranges,
                                       const std::vector<ContactPointState>& previous,
                                       bool listed) {
    const std::size_t keptCount = listed ? kept.size() : previous.size();
    const auto keptKey = [&](std::size_t k) {
        if (listed) return kept[k].key;
        const ContactPointState& c = previous[k];
        return PairKey(c.partA, c.partB, c.shapeA, c.shapeB);
    };
    // (the first of [first, count) whose key is not below `key`: a binary search, also over
    // kept points out of order — their range then finds them so, and they are listed)
    const auto lowerBound = [](std::size_t first, std::size_t count, const PairKey& key,
                               const auto& keyAt) {
        while (count > 0) {
            const std::size_t half = count / 2;
            if (keyAt(first + half) < key) {
                first += half + 1;
                count -= half + 1;
            } else {
                count = half;
            }
        }
        return first;
    };
    const bool byKept = keptCount >= fresh.size();
    const std::size_t count = byKept ? keptCount : fresh.size();
    for (std::size_t r = 0; r < ranges; ++r) {
        Output& out = outputs[r];
        out.first = r == 0;
        out.last = r + 1 == ranges;
        out.unsorted = false;
        if (r > 0) {
            const std::size_t at = count * r / ranges;
            PairKey key = byKept ? keptKey(at) : fresh[at].key;
            if (key < outputs[r - 1].from && !outputs[r - 1].first) key = outputs[r - 1].from;
            out.from = key;
            outputs[r - 1].to = key;
        }
    }
    const auto freshKey = [&](std::size_t k) { return fresh[k].key; };
    for (std::size_t r = 0; r < ranges; ++r) {
        Output& out = outputs[r];
        out.keptFirst = r == 0 ? 0 : outputs[r - 1].keptLast;
        out.freshFirst = r == 0 ? 0 : outputs[r - 1].freshLast;
        out.keptLast = out.last
                           ? keptCount
                           : lowerBound(out.keptFirst, keptCount - out.keptFirst, out.to, keptKey);
        out.freshLast =
            out.last ? fresh.size()
                     : lowerBound(out.freshFirst, fresh.size() - out.freshFirst, out.to, freshKey);
    }
}

void CollisionWorld::Impl::mergeEntries(Output& out, const std::vector<ContactPointState>& previous,
                                        bool listed) const {
    out.entries.clear();
    std::size_t f = out.freshFirst;
    // (the new points before a kept one of the same key: std::merge's order)
    const auto freshBelow = [&](const PairKey& key) {
        while (f < out.freshLast && fresh[f].key < key) out.entries.push_back(fresh[f++]);
    };
    if (listed) {
        for (std::size_t k = out.keptFirst; k < out.keptLast; ++k) {
            freshBelow(kept[k].key);
            out.entries.push_back(kept[k]);
        }
    } else {
        int lastA = -1, lastB = -1;
        bool touch = false, resting = false, any = false;
        Entry entry;
        PairKey lastKey;
        for (std::size_t k = out.keptFirst; k < out.keptLast; ++k) {
            if (!keptEntry(previous, k, lastA, lastB, touch, resting, entry)) continue;
            // (in canonical order: within the range's keys, each not below the one before)
            if ((!out.first && entry.key < out.from) || (!out.last && !(entry.key < out.to)) ||
                (any && entry.key < lastKey)) {
                out.unsorted = true;
                return;
            }
            lastKey = entry.key;
            any = true;
            freshBelow(entry.key);
            // (a sleeping pair's points right after the last entry's, itself sleeping ones: one
            // run, passed on at once)
            if (entry.resting && !out.entries.empty()) {
                Entry& run = out.entries.back();
                if (run.resting > 0 && entry.source == run.source - run.resting) {
                    ++run.resting;
                    continue;
                }
            }
            out.entries.push_back(entry);
        }
    }
    while (f < out.freshLast) out.entries.push_back(fresh[f++]);
}

// The merge of the range's pairs (out.entries), written out into `out` (its records indexed
// within it).
void CollisionWorld::Impl::emit(Output& out, double margin,
                                const std::vector<ContactPointState>& previous) {
    Impl& m = *this;
    out.points.clear();
    out.persistent.clear();
    out.resting.clear();
    // (Each record is built whole and appended: emplace_back() would zero it first.)
    auto write = [&](const PairKey& key, const MergePoint& point) {
        const Vec3 n_AB_W = -fromBt(point.n_BA);
        const Vec3 friction_W = fromBt(point.friction_W);
        out.persistent.push_back({.partA = key.partA(),
                                  .partB = key.partB(),
                                  .shapeA = key.shapeA(),
                                  .shapeB = key.shapeB(),
                                  .age = point.age,
                                  .local_A = fromBt(point.local_A),
                                  .local_B = fromBt(point.local_B),
                                  .n_AB_W = n_AB_W,
                                  .distance = point.distance,
                                  .normalImpulse = point.normalImpulse,
                                  .frictionImpulse_W = friction_W});
        if (point.distance > margin) return;
        out.points.push_back({.partA = static_cast<std::size_t>(key.partA()),
                              .partB = static_cast<std::size_t>(key.partB()),
                              .p_WA_W = fromBt(point.p_WA),
                              .p_WB_W = fromBt(point.p_WB),
                              .n_AB_W = n_AB_W,
                              .depth = -point.distance,
                              .normalImpulse = point.normalImpulse,
                              .frictionImpulse_W = friction_W,
                              .persistent = out.persistent.size() - 1});
    };
    PairManifold& manifold = out.merge;
    const std::vector<Entry>& entries = out.entries;
    for (std::size_t first = 0; first < entries.size();) {
        const PairKey key = entries[first].key;
        std::size_t last = first;
        while (last < entries.size() && entries[last].key == key) ++last;
        if (entries[first].resting) {
            // Sleeping pairs (their parts found no new points: the narrow phase passed them by),
            // a run of their points at a time.
            for (std::size_t e = first; e < last; ++e) {
                const auto k = static_cast<std::size_t>(-entries[e].source - 1);
                const auto n = static_cast<std::size_t>(entries[e].resting);
                const std::size_t at = out.persistent.size();
                out.persistent.insert(out.persistent.end(),
                                      previous.begin() + static_cast<std::ptrdiff_t>(k),
                                      previous.begin() + static_cast<std::ptrdiff_t>(k + n));
                for (std::size_t i = 0; i < n; ++i)
                    if (previous[k + i].distance <= margin) out.resting.push_back(at + i);
            }
            first = last;
            continue;
        }
        if (entries[first].source >= 0) {
            // Nothing kept for this pair (kept points sort first): its new points, found at
            // these poses by one Bullet manifold (at most four, merged there), as they are.
            // (Aged by one, as the refresh of a merge would.)
            for (std::size_t e = first; e < last; ++e) {
                MergePoint& point = m.foundPoint(entries[e].source);
                point.age = 1;
                write(key, point);
            }
            first = last;
            continue;
        }
        // The breaking distance Bullet's dispatcher gives a new manifold, at least the margin.
        const double breaking =
            std::max(std::min(m.breaking[static_cast<std::size_t>(key.partA())],
                              m.breaking[static_cast<std::size_t>(key.partB())]),
                     margin);
        const btTransform& X_WA = m.pose[static_cast<std::size_t>(key.partA())];
        const btTransform& X_WB = m.pose[static_cast<std::size_t>(key.partB())];
        // Kept points only (a pair of quiet parts, the most of a resting pile's): each moved
        // with its parts as the merge's refresh moves it, the same arithmetic, written out
        // straight from the last query's record while none of them is dropped (no point
        // found to merge, none dropped: the merge keeps them all in their order).
        if (last - first <= 4 && entries[last - 1].source < 0 &&
            keptOnly(out, first, last, breaking, X_WA, X_WB, previous)) {
            for (std::size_t e = first; e < last; ++e) {
                const ContactPointState& c =
                    previous[static_cast<std::size_t>(-entries[e].source - 1)];
                const KeptMove& moved = out.moves[e - first];
                out.persistent.push_back(c);
                ContactPointState& s = out.persistent.back();
                s.distance = moved.distance;
                ++s.age;
                if (moved.distance > margin) continue;
                out.points.push_back({.partA = static_cast<std::size_t>(c.partA),
                                      .partB = static_cast<std::size_t>(c.partB),
                                      .p_WA_W = fromBt(moved.p_WA),
                                      .p_WB_W = fromBt(moved.p_WB),
                                      .n_AB_W = c.n_AB_W,
                                      .depth = -moved.distance,
                                      .normalImpulse = c.normalImpulse,
                                      .frictionImpulse_W = c.frictionImpulse_W,
                                      .persistent = out.persistent.size() - 1});
            }
            first = last;
            continue;
        }
        manifold.reset(breaking);
        for (std::size_t e = first; e < last; ++e) {
            const int source = entries[e].source;
            if (source < 0) {
                const ContactPointState& c = previous[static_cast<std::size_t>(-source - 1)];
                MergePoint& point = out.keptPoint;
                point.local_A = toBt(c.local_A);
                point.local_B = toBt(c.local_B);
                point.n_BA = -toBt(c.n_AB_W);
                point.distance = c.distance;
                point.age = c.age;
                point.normalImpulse = c.normalImpulse;
                point.friction_W = toBt(c.frictionImpulse_W);
                manifold.add(point);  // (world points: set by the refresh)
                continue;
            }
            const MergePoint& point = m.foundPoint(source);
            const int kept = manifold.nearest(point);
            if (kept >= 0)
                manifold.replace(point, kept);
            else
                manifold.add(point);
        }
        manifold.refresh(m.pose[static_cast<std::size_t>(key.partA())],
                         m.pose[static_cast<std::size_t>(key.partB())]);
        for (int p = 0; p < manifold.size(); ++p) write(key, manifold[p]);
        first = last;
    }
}

std::vector<ContactPoint> CollisionWorld::findContacts(double margin) {
    return query(margin, {}).points;
}

std::size_t CollisionWorld::overlappingPairCount() const {
    return static_cast<std::size_t>(
        impl_->broadphase.getOverlappingPairCache()->getNumOverlappingPairs());
}

std::size_t CollisionWorld::boxesPutInTree() const {
    return impl_->boxesPutInTree;
}

std::size_t CollisionWorld::objectCount() const {
    return impl_->objects.size();
}

std::size_t bulletScalarBytes() {
    return sizeof(btScalar);
}

}  // namespace engine::contact
