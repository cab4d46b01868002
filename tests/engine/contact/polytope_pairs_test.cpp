// A convex hull with a hull or a box (shape_pairs.h: polytope pairs): a hull's polyhedral
// features lie on its own points; a cube resting on a cube, or on a box, touches at the corners
// of their faces' overlap (an octagon when turned by 45°, none of whose corners is a cube's) at
// the depth it rests at; random rocks overlapping or apart get points on both shapes, the
// deepest as deep as they overlap or as near as they are apart (by brute force over their
// faces, edges and corners); and a column of mesh cubes comes to rest carrying its weight face by
// face.

#include <gtest/gtest.h>

#include "engine/contact/core_distance.h"
#include "engine/contact/shape_pairs.h"
#include "engine/math/constants.h"
#include "engine/solver/worker_pool.h"
#include "tests/support/contact_scenes.h"
#include "tests/support/simulation.h"

#include <BulletCollision/CollisionShapes/btConvexPolyhedron.h>
#include <LinearMath/btConvexHullComputer.h>
#include <btBulletCollisionCommon.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <utility>
#include <vector>

namespace engine::contact {
namespace {

// A hull of these points as Motus makes a moving mesh part's: no margin, its polyhedral features.
struct Hull {
    btConvexHullShape shape;
    explicit Hull(const std::vector<btVector3>& points) {
        for (const btVector3& p : points) shape.addPoint(p, false);
        shape.optimizeConvexHull();
        shape.setMargin(0.0);
        shape.recalcLocalAabb();
        setExactPolyhedron(shape);
    }
};

std::vector<btVector3> cubeCorners(double half) {
    std::vector<btVector3> corners;
    for (int i = 0; i < 8; ++i)
        corners.emplace_back(i & 1 ? half : -half, i & 2 ? half : -half, i & 4 ? half : -half);
    return corners;
}

// `count` points on an ellipsoid of half axes (a, b, c), at random: a rock.
std::vector<btVector3> rockPoints(std::mt19937& rng, int count, const btVector3& axes) {
    std::normal_distribution<double> normal;
    std::vector<btVector3> points;
    for (int i = 0; i < count; ++i) {
        btVector3 u(normal(rng), normal(rng), normal(rng));
        u.normalize();
        points.push_back(u * axes);
    }
    return points;
}

// How far p (world) lies outside the hull at X_WH: the largest of its faces' plane distances,
// the faces the hull's own (btConvexHullComputer's, on the hull's points; Bullet's polyhedron
// merges nearly coplanar faces of a rock, its planes micrometres off its points).
double outside(const btConvexHullShape& hull, const btTransform& X_WH, const btVector3& p_W) {
    btConvexHullComputer exact;
    exact.compute(hull.getUnscaledPoints()[0].m_floats, static_cast<int>(sizeof(btVector3)),
                  hull.getNumPoints(), 0, 0);
    const btVector3 p = X_WH.invXform(p_W);
    // (the hull's own points: the computer's are rounded to its integer grid)
    const auto at = [&](int k) { return hull.getUnscaledPoints()[exact.original_vertex_index[k]]; };
    double most = -1e9;
    for (int f = 0; f < exact.faces.size(); ++f) {
        const btConvexHullComputer::Edge* e = &exact.edges[exact.faces[f]];
        const btVector3 a = at(e->getSourceVertex());
        const btVector3 b = at(e->getTargetVertex());
        const btVector3 c = at(e->getNextEdgeOfFace()->getTargetVertex());
        const btVector3 n = (b - a).cross(c - b).normalized();
        most = std::max(most, double(n.dot(p - a)));
    }
    return most;
}

// A hull's exact facets (btConvexHullComputer's, fanned into triangles) and edges.
struct Facets {
    std::vector<btVector3> v;
    std::vector<std::array<int, 3>> triangles;
    std::vector<std::pair<int, int>> edges;
    std::vector<btVector3> normals;  // (the faces' outward unit normals)
    explicit Facets(const btConvexHullShape& hull) {
        btConvexHullComputer exact;
        exact.compute(hull.getUnscaledPoints()[0].m_floats, static_cast<int>(sizeof(btVector3)),
                      hull.getNumPoints(), 0, 0);
        // (the hull's own points: the computer's are rounded to its integer grid)
        for (int i = 0; i < exact.vertices.size(); ++i)
            v.push_back(hull.getUnscaledPoints()[exact.original_vertex_index[i]]);
        for (int e = 0; e < exact.edges.size(); ++e) {
            const int s = exact.edges[e].getSourceVertex(), t = exact.edges[e].getTargetVertex();
            if (s < t) edges.emplace_back(s, t);
        }
        for (int f = 0; f < exact.faces.size(); ++f) {
            const btConvexHullComputer::Edge* first = &exact.edges[exact.faces[f]];
            const int o = first->getSourceVertex();
            for (const btConvexHullComputer::Edge* e = first->getNextEdgeOfFace();
                 e->getTargetVertex() != o; e = e->getNextEdgeOfFace())
                triangles.push_back({o, e->getSourceVertex(), e->getTargetVertex()});
            const btVector3& a = v[static_cast<std::size_t>(o)];
            const btVector3& b = v[static_cast<std::size_t>(first->getTargetVertex())];
            const btVector3& c =
                v[static_cast<std::size_t>(first->getNextEdgeOfFace()->getTargetVertex())];
            normals.push_back((b - a).cross(c - b).normalized());
        }
    }
};

// Ericson's closest point on triangle abc to p (Real-Time Collision Detection 5.1.5).
btVector3 onTriangle(const btVector3& p, const btVector3& a, const btVector3& b,
                     const btVector3& c) {
    const btVector3 ab = b - a, ac = c - a, ap = p - a;
    const double d1 = ab.dot(ap), d2 = ac.dot(ap);
    if (d1 <= 0 && d2 <= 0) return a;
    const btVector3 bp = p - b;
    const double d3 = ab.dot(bp), d4 = ac.dot(bp);
    if (d3 >= 0 && d4 <= d3) return b;
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + d1 / (d1 - d3) * ab;
    const btVector3 cp = p - c;
    const double d5 = ab.dot(cp), d6 = ac.dot(cp);
    if (d6 >= 0 && d5 <= d6) return c;
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + d2 / (d2 - d6) * ac;
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
        return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b);
    const double denominator = 1 / (va + vb + vc);
    return a + ab * (vb * denominator) + ac * (vc * denominator);
}

// The distance between segments p1q1 and p2q2 (Ericson 5.1.9).
double segments(const btVector3& p1, const btVector3& q1, const btVector3& p2,
                const btVector3& q2) {
    const btVector3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
    const double a = d1.dot(d1), e = d2.dot(d2), f = d2.dot(r), c = d1.dot(r), b = d1.dot(d2);
    const double denominator = a * e - b * b;
    double s = denominator > 0 ? std::clamp((b * f - c * e) / denominator, 0.0, 1.0) : 0.0;
    double t = (b * s + f) / e;
    if (t < 0) {
        t = 0;
        s = std::clamp(-c / a, 0.0, 1.0);
    } else if (t > 1) {
        t = 1;
        s = std::clamp((b - c) / a, 0.0, 1.0);
    }
    return double((p1 + s * d1 - (p2 + t * d2)).length());
}

// The signed distance of hulls A and B at X_WA and X_WB by brute force: overlapping, minus the
// least overlap over the separating axes (the faces' normals and the edges' cross products: the
// depth); apart, the least distance of a corner to a facet or an edge to an edge.
double exactGap(const Facets& A, const btTransform& X_WA, const Facets& B,
                const btTransform& X_WB) {
    std::vector<btVector3> a, b;
    for (const btVector3& p : A.v) a.push_back(X_WA(p));
    for (const btVector3& p : B.v) b.push_back(X_WB(p));
    const auto overlap = [&](btVector3 u) {
        if (!(u.length2() > 1e-24)) return 1e9;
        u.normalize();
        double loA = 1e9, hiA = -1e9, loB = 1e9, hiB = -1e9;
        for (const btVector3& p : a) {
            loA = std::min(loA, double(p.dot(u)));
            hiA = std::max(hiA, double(p.dot(u)));
        }
        for (const btVector3& p : b) {
            loB = std::min(loB, double(p.dot(u)));
            hiB = std::max(hiB, double(p.dot(u)));
        }
        return std::min(hiA - loB, hiB - loA);
    };
    double least = 1e9;
    for (const btVector3& n : A.normals) least = std::min(least, overlap(X_WA.getBasis() * n));
    for (const btVector3& n : B.normals) least = std::min(least, overlap(X_WB.getBasis() * n));
    for (const auto& [i, j] : A.edges)
        for (const auto& [k, l] : B.edges)
            least = std::min(
                least, overlap((a[static_cast<std::size_t>(j)] - a[static_cast<std::size_t>(i)])
                                   .cross(b[static_cast<std::size_t>(l)] -
                                          b[static_cast<std::size_t>(k)])));
    if (least > 0) return -least;
    double gap = 1e9;
    for (const auto& t : B.triangles)
        for (const btVector3& p : a)
            gap = std::min(gap, double((p - onTriangle(p, b[static_cast<std::size_t>(t[0])],
                                                       b[static_cast<std::size_t>(t[1])],
                                                       b[static_cast<std::size_t>(t[2])]))
                                           .length()));
    for (const auto& t : A.triangles)
        for (const btVector3& p : b)
            gap = std::min(gap, double((p - onTriangle(p, a[static_cast<std::size_t>(t[0])],
                                                       a[static_cast<std::size_t>(t[1])],
                                                       a[static_cast<std::size_t>(t[2])]))
                                           .length()));
    for (const auto& [i, j] : A.edges)
        for (const auto& [k, l] : B.edges)
            gap = std::min(
                gap, segments(a[static_cast<std::size_t>(i)], a[static_cast<std::size_t>(j)],
                              b[static_cast<std::size_t>(k)], b[static_cast<std::size_t>(l)]));
    return gap;
}

// A hull's polyhedral features (faces, their planes) lie on its own points: Bullet's
// initializePolyhedralFeatures put a rock's corners where its hull computer rounds them, 8 µm off
// its points on a 6 cm rock, and its points up to 8 µm outside its faces' planes; now every point
// is on or under every face's plane.
TEST(PolytopePairs, AHullsFacesLieOnItsOwnPoints) {
    std::mt19937 rng(3);
    for (int n = 0; n < 10; ++n) {
        const Hull rock(rockPoints(rng, 80, btVector3(0.03, 0.025, 0.02)));
        const btConvexPolyhedron& p = *rock.shape.getConvexPolyhedron();
        const btVector3* points = rock.shape.getUnscaledPoints();
        const int count = rock.shape.getNumPoints();
        for (int i = 0; i < p.m_vertices.size(); ++i) {
            bool found = false;
            for (int k = 0; k < count && !found; ++k) found = p.m_vertices[i] == points[k];
            EXPECT_TRUE(found) << n << ' ' << i;
        }
        EXPECT_GE(p.m_faces.size(), 4);
        for (int f = 0; f < p.m_faces.size(); ++f) {
            const btScalar* e = p.m_faces[f].m_plane;
            EXPECT_NEAR(btVector3(e[0], e[1], e[2]).length(), 1.0, 1e-15);
            for (int k = 0; k < count; ++k)
                EXPECT_LE(e[0] * points[k].x() + e[1] * points[k].y() + e[2] * points[k].z() + e[3],
                          1e-16)
                    << n << ' ' << f;
            // Its plane touches the hull, its corners on it (a face the hull computer found on
            // its grid may be a little out of plane on the points themselves, or a point beside
            // it a little farther out: within 20 µm here).
            double touching = -1e9, farthest = 0;
            for (int k = 0; k < count; ++k)
                touching = std::max(touching, double(e[0] * points[k].x() + e[1] * points[k].y() +
                                                     e[2] * points[k].z() + e[3]));
            for (int k = 0; k < p.m_faces[f].m_indices.size(); ++k) {
                const btVector3& v = p.m_vertices[p.m_faces[f].m_indices[k]];
                farthest =
                    std::max(farthest, -double(e[0] * v.x() + e[1] * v.y() + e[2] * v.z() + e[3]));
            }
            EXPECT_NEAR(touching, 0.0, 1e-16) << n << ' ' << f;
            EXPECT_LT(farthest, 2e-5) << n << ' ' << f;
        }
    }
    // Points on a plane have no inside: no features made.
    btConvexHullShape flat;
    for (int i = 0; i < 6; ++i) flat.addPoint(btVector3(std::cos(i), std::sin(i), 0), false);
    EXPECT_FALSE(setExactPolyhedron(flat));
}

// A 0.2 m cube resting 10 µm into another (a hull, or a box), moved across by (dx, dy) and turned
// about the vertical by `turn`.
void expectRestingFaceOnFace(bool onBox, double dx, double dy, double turn) {
    constexpr double half = 0.1, depth = 1e-5;
    const Hull top(cubeCorners(half));
    Hull bottomHull(cubeCorners(half));
    btBoxShape bottomBox(btVector3(half, half, half));
    bottomBox.setMargin(1e-3);
    bottomBox.initializePolyhedralFeatures();
    const btCollisionShape& bottom =
        onBox ? static_cast<const btCollisionShape&>(bottomBox) : bottomHull.shape;
    const btTransform X_WB = btTransform::getIdentity();
    const btTransform X_WA(btQuaternion(btVector3(0, 0, 1), turn),
                           btVector3(dx, dy, 2 * half - depth));
    ASSERT_TRUE(polytopePair(top.shape, bottom));
    PairPoints points;
    polytopePoints(top.shape, X_WA, bottom, X_WB, 0.01, points);
    ASSERT_EQ(points.count, 4) << onBox << ' ' << turn;
    for (int i = 0; i < points.count; ++i) {
        const PairPoint& p = points.points[i];
        EXPECT_NEAR(p.distance, -depth, 1e-12);
        EXPECT_NEAR(p.normalOnB.z(), 1.0, 1e-12);
        // On B's top face and A's bottom face, inside both squares.
        EXPECT_NEAR(p.worldB.z(), half, 1e-12);
        EXPECT_NEAR(p.worldA.z(), half - depth, 1e-12);
        EXPECT_LE(outside(top.shape, X_WA, p.worldA), 1e-12);
        EXPECT_LE(outside(bottomHull.shape, X_WB, p.worldB), 1e-12);
        EXPECT_NEAR((X_WA(p.localA) - p.worldA).length(), 0.0, 1e-12);
        EXPECT_NEAR((X_WB(p.localB) - p.worldB).length(), 0.0, 1e-12);
    }
    // Corners of the overlap, spread over it: the four points span at least half its area
    // (the square's overlap; of the octagon, the largest quadrilateral kept).
    btVector3 centre(0, 0, 0);
    for (int i = 0; i < 4; ++i) centre += 0.25 * points.points[i].worldB;
    std::vector<std::pair<double, btVector3>> around;
    for (int i = 0; i < 4; ++i) {
        const btVector3 r = points.points[i].worldB - centre;
        around.emplace_back(std::atan2(double(r.y()), double(r.x())), r);
    }
    std::sort(around.begin(), around.end(),
              [](const auto& l, const auto& r) { return l.first < r.first; });
    double spanned = 0;
    for (int i = 0; i < 4; ++i)
        spanned += 0.5 * double(around[i].second.cross(around[(i + 1) % 4].second).z());
    const double overlap = turn == 0.0 ? (2 * half - std::abs(dx)) * (2 * half - std::abs(dy))
                                       : 8 * half * half * (std::sqrt(2.0) - 1);  // the octagon
    EXPECT_GE(spanned, 0.5 * overlap) << onBox << ' ' << turn;
}

TEST(PolytopePairs, ACubeRestingOnACubeOrABoxTouchesAtTheCornersOfTheirFacesOverlap) {
    for (const bool onBox : {false, true}) {
        expectRestingFaceOnFace(onBox, 0.05, -0.03, 0.0);
        expectRestingFaceOnFace(onBox, 0.0, 0.0, 0.25 * kPi);  // an octagon: no cube's corner
    }
}

TEST(PolytopePairs, PointsLieOnBothHullsAndTheDeepestIsAsDeepAsTheyOverlapOrAsNearAsTheyAre) {
    constexpr double kBreaking = 1e-3;
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> uniform(-1, 1);
    int overlapping = 0, apart = 0, asDeep = 0;
    for (int n = 0; n < 400; ++n) {
        const Hull a(rockPoints(rng, 30 + n % 50, btVector3(0.03, 0.025, 0.02)));
        const Hull b(rockPoints(rng, 30 + (7 * n) % 50, btVector3(0.04, 0.02, 0.02)));
        const btTransform X_WB(
            btQuaternion(btVector3(uniform(rng), uniform(rng), uniform(rng) + 1e-3).normalized(),
                         3 * uniform(rng)));
        const btQuaternion turn(
            btVector3(uniform(rng), uniform(rng), uniform(rng) + 1e-3).normalized(),
            3 * uniform(rng));
        const btVector3 dir =
            btVector3(uniform(rng), uniform(rng), uniform(rng) + 1e-3).normalized();
        // Along dir until they touch (bisection on Bullet's GJK and EPA), then moved to a gap
        // between −0.2 mm (into each other) and 0.9 mm: within a breaking distance of 1 mm (a
        // point nearer than that to one kept replaces it, as in Bullet's manifold).
        const auto distanceAt = [&](double s) {
            CoreNearest nearest;
            return bulletNearest(a.shape, btTransform(turn, s * dir), b.shape, X_WB, 1.0, nearest)
                       ? double(nearest.distance)
                       : 1e9;
        };
        double lo = 0, hi = 0.2;
        for (int k = 0; k < 60; ++k)
            ((distanceAt(0.5 * (lo + hi)) < 0) ? lo : hi) = 0.5 * (lo + hi);
        const double gap = -2e-4 + 1.1e-3 * (0.5 + 0.5 * uniform(rng));
        const btTransform X_WA(turn, (hi + gap) * dir);
        const double truth = exactGap(Facets(a.shape), X_WA, Facets(b.shape), X_WB);
        PairPoints points;
        polytopePoints(a.shape, X_WA, b.shape, X_WB, kBreaking, points);
        ASSERT_GT(points.count, 0) << n;
        (truth < 0 ? overlapping : apart)++;
        double deepest = 1e9;
        for (int i = 0; i < points.count; ++i) {
            const PairPoint& p = points.points[i];
            EXPECT_NEAR(p.normalOnB.length(), 1.0, 1e-12);
            EXPECT_NEAR((p.worldA - p.worldB).dot(p.normalOnB), p.distance, 1e-12);
            EXPECT_NEAR((X_WA(p.localA) - p.worldA).length(), 0.0, 1e-12);
            EXPECT_NEAR((X_WB(p.localB) - p.worldB).length(), 0.0, 1e-12);
            // On B's surface and A's (overlapping, EPA's point to its accuracy: 20 µm); none
            // nearer than the shapes are apart, and, overlapping, none deeper than 5 µm past
            // their depth (a corner of the clipped face may lie deeper under the other's face
            // than the shapes overlap along the way they part).
            const double on = truth < 0 ? 2e-5 : 1e-12;
            EXPECT_LE(outside(b.shape, X_WB, p.worldB), on) << n;
            EXPECT_LE(outside(a.shape, X_WA, p.worldA), on) << n;
            EXPECT_GE(p.distance, truth - (truth < 0 ? 5e-6 : 1e-12)) << n;
            deepest = std::min(deepest, double(p.distance));
        }
        // The deepest as deep as the shapes overlap, or as near as they are apart: to the
        // nearest point's margin over the clipped ones (1e-5 of the inner radius) apart, to 5 µm
        // overlapping (EPA's depth, or a clipped point's), most to a micrometre.
        EXPECT_NEAR(deepest, truth, truth < 0 ? 5e-6 : 2e-7) << n << " truth " << truth;
        if (truth < 0 && std::abs(deepest - truth) < 1e-6) ++asDeep;
    }
    EXPECT_GT(overlapping, 60);
    EXPECT_GT(apart, 250);
    EXPECT_GE(asDeep, 0.85 * overlapping);
}

}  // namespace
}  // namespace engine::contact

namespace engine {
namespace {

// A column of eight 0.1 m cubes as convex meshes (each turned by 45° from the one under it, so
// their faces overlap in octagons), dropped 1 cm each onto the floor, comes to rest carrying its
// weight face by face. Through Bullet's convex algorithm (GJK's one point a step for cubes a
// little apart, EPA's and the clipped face for cubes overlapping) the column crept 1.2–1.5 mm
// sideways.
TEST(ContactDynamics, AColumnOfMeshCubesComesToRestCarryingItsWeightFaceByFace) {
    const int count = 8;
    auto cube = std::make_shared<TriangleMesh>();
    for (int i = 0; i < 8; ++i)
        cube->vertices.emplace_back(i & 1 ? 0.05 : -0.05, i & 2 ? 0.05 : -0.05,
                                    i & 4 ? 0.05 : -0.05);
    cube->triangles = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                       {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
    ASSERT_GT(cube->signedVolume(), 0.0);
    SceneSpec spec = test::contactScene();
    for (int k = 0; k < count; ++k) {
        Transform X;
        X.p = Vec3(0.0, 0.0, 0.06 + 0.11 * k);
        X.R = Quat(Eigen::AngleAxisd(0.25 * kPi * k, Vec3::UnitZ()));
        Part& part = test::addBox(spec, "cube" + std::to_string(k), Vec3::Constant(0.1), X);
        Shape mesh;
        mesh.type = ShapeType::Mesh;
        mesh.mesh = cube;
        part.shapes = {mesh};
    }
    test::Stepping run(spec);
    ASSERT_TRUE(run.to(3.0));
    const Outputs out = run.outputs();
    double fastest = 0;
    for (int b = 0; b < run.fd.model().bodyCount(); ++b)
        fastest = std::max(fastest, layout::linear(run.fd.state().v, b).norm());
    EXPECT_LT(fastest, 1e-4);
    std::vector<double> carried(static_cast<std::size_t>(count), 0.0);
    double deepest = 0;
    for (const ContactForce& c : out.contacts) {
        carried[static_cast<std::size_t>(std::max(c.partA, c.partB) - 1)] += c.normalForce;
        deepest = std::max(deepest, c.depth);
    }
    for (int k = 0; k < count; ++k)
        EXPECT_NEAR(carried[static_cast<std::size_t>(k)], (count - k) * 9.81, 1e-3 * count * 9.81)
            << "face under cube " << k;
    EXPECT_LT(deepest, 2e-5);
    for (int k = 0; k < count; ++k)
        EXPECT_LT(
            (bodyPosition(run.fd.state().q, k) - spec.parts[static_cast<std::size_t>(k) + 1].X_WP.p)
                .head<2>()
                .norm(),
            1e-3);
}

// A heap of rocks runs the same bit for bit on one thread and on two: its hull pairs found in
// chunks on both threads (from 64 pairs), their points merged in one order.
TEST(ContactDynamics, AHeapOfRocksRunsTheSameBitForBitOnOneThreadAndOnTwo) {
    const test::OnOneThreadAndTwo runs = test::runOnOneThreadAndTwo(test::rockHeap(200), 0.25);
    EXPECT_GT(runs.contacts, 100u);  // (the lowest layers landed on the floor and on one another)
    EXPECT_TRUE(runs.one.q == runs.two.q);
    EXPECT_TRUE(runs.one.v == runs.two.v);
}

}  // namespace
}  // namespace engine
