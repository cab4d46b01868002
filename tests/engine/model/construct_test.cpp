// Tests of building a scene entity by entity (engine/model/construct.h) and of the features a
// marker snaps to (engine/model/shape_features.h).
//
// Independent checks: the support function max_x n·x of each primitive against dense samples
// of its surface (every sample lies in the solid, so the samples never exceed it; the grid
// bounds how far below it they can stay), masses against the analytic volumes, poses against
// X_WP * X_PM written out, box features against the box's own geometry (a face centre lies on
// the supporting plane of its normal, an edge midpoint halfway between two vertices).

#include "engine/model/construct.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/expr/expression.h"
#include "engine/model/edit.h"
#include "engine/model/mass_properties.h"
#include "engine/model/model.h"
#include "engine/model/shape_features.h"

namespace engine {
namespace {

using Kind = ShapeFeature::Kind;

Vec3 randomUnit(std::mt19937& rng) {
    std::normal_distribution<double> normal(0.0, 1.0);
    for (;;) {
        const Vec3 v(normal(rng), normal(rng), normal(rng));
        if (v.norm() > 1e-3) return v.normalized();
    }
}

Quat randomRotation(std::mt19937& rng) {
    std::normal_distribution<double> normal(0.0, 1.0);
    return Quat(normal(rng), normal(rng), normal(rng), normal(rng)).normalized();
}

Transform randomPose(std::mt19937& rng) {
    std::uniform_real_distribution<double> offset(-0.3, 0.3);
    Transform X;
    X.R = randomRotation(rng);
    X.p = Vec3(offset(rng), offset(rng), offset(rng));
    return X;
}

// Angular grid step of the surface samples: π/200 in polar angle and in azimuth.
constexpr int kAzimuthSteps = 400;  // per turn
constexpr int kPolarSteps = 200;    // pole to pole
constexpr int kLinearSteps = 50;    // along a length or a radius
constexpr double kAngleStep = 2.0 * kPi / kAzimuthSteps;

// A sphere of radius r about c: a lat-long grid that includes both poles.
void sampleSphere(double r, const Vec3& c, std::vector<Vec3>& out) {
    for (int i = 0; i <= kPolarSteps; ++i) {
        const double theta = kPi * i / kPolarSteps;
        for (int j = 0; j < kAzimuthSteps; ++j) {
            const double phi = kAngleStep * j;
            out.emplace_back(c + r * Vec3(std::sin(theta) * std::cos(phi),
                                          std::sin(theta) * std::sin(phi), std::cos(theta)));
        }
    }
}

// Points of the shape's surface (and for the capsule also of its interior) in the shape frame G.
std::vector<Vec3> surfaceSamples_G(const Shape& s) {
    std::vector<Vec3> out;
    const double r = s.radius, L = s.length;
    switch (s.type) {
    case ShapeType::Box: {
        // A grid on each face, corners included.
        const Vec3 h = 0.5 * s.size;
        for (int k = 0; k < 3; ++k) {
            const int a = (k + 1) % 3, b = (k + 2) % 3;
            for (double sign : {-1.0, 1.0})
                for (int i = 0; i <= kLinearSteps; ++i)
                    for (int j = 0; j <= kLinearSteps; ++j) {
                        Vec3 p;
                        p(k) = sign * h(k);
                        p(a) = h(a) * (2.0 * i / kLinearSteps - 1.0);
                        p(b) = h(b) * (2.0 * j / kLinearSteps - 1.0);
                        out.push_back(p);
                    }
        }
        break;
    }
    case ShapeType::Sphere:
        sampleSphere(r, Vec3::Zero(), out);
        break;
    case ShapeType::Cylinder:
        // Side (rims included) and both caps.
        for (int j = 0; j < kAzimuthSteps; ++j) {
            const Vec3 radial(std::cos(kAngleStep * j), std::sin(kAngleStep * j), 0.0);
            for (int i = 0; i <= kLinearSteps; ++i) {
                out.push_back(r * radial + Vec3(0, 0, L * (double(i) / kLinearSteps - 0.5)));
                for (double sign : {-1.0, 1.0})
                    out.push_back(r * double(i) / kLinearSteps * radial +
                                  Vec3(0, 0, sign * 0.5 * L));
            }
        }
        break;
    case ShapeType::Capsule:
        // The straight side and the two spheres the hemispherical ends belong to (their inner
        // halves lie inside the capsule).
        for (int j = 0; j < kAzimuthSteps; ++j) {
            const Vec3 radial(std::cos(kAngleStep * j), std::sin(kAngleStep * j), 0.0);
            for (int i = 0; i <= kLinearSteps; ++i)
                out.push_back(r * radial + Vec3(0, 0, L * (double(i) / kLinearSteps - 0.5)));
        }
        sampleSphere(r, Vec3(0, 0, 0.5 * L), out);
        sampleSphere(r, Vec3(0, 0, -0.5 * L), out);
        break;
    case ShapeType::Cone:
        // Base at −L/2 (disc), apex at +L/2, the slanted side between them.
        for (int j = 0; j < kAzimuthSteps; ++j) {
            const Vec3 radial(std::cos(kAngleStep * j), std::sin(kAngleStep * j), 0.0);
            for (int i = 0; i <= kLinearSteps; ++i) {
                const double t = double(i) / kLinearSteps;
                out.push_back(r * t * radial + Vec3(0, 0, -0.5 * L));
                out.push_back(r * (1.0 - t) * radial + Vec3(0, 0, L * (t - 0.5)));
            }
        }
        break;
    case ShapeType::Mesh:
    case ShapeType::Plane:
        break;
    }
    return out;
}

// How far below the support function the samples can stay: zero for the box (its corners
// are sampled), else r (1 − cos δ) ≤ r δ²/2 with δ ≤ one angular step the largest angle
// between the maximizing direction on a sphere or rim and the nearest sampled one.
double samplingBound(const Shape& s) {
    if (s.type == ShapeType::Box) return 1e-15;
    return 0.5 * s.radius * kAngleStep * kAngleStep + 1e-15;
}

double sampledSupport(const Shape& s, const Vec3& n_P) {
    double h = -std::numeric_limits<double>::infinity();
    for (const Vec3& p_G : surfaceSamples_G(s)) h = std::max(h, n_P.dot(s.X_PG * p_G));
    return h;
}

Part partWith(const Shape& s) {
    Part part;
    part.shapes.push_back(s);
    return part;
}

// A tetrahedron with outward counter-clockwise triangles.
std::shared_ptr<const TriangleMesh> tetrahedron() {
    auto mesh = std::make_shared<TriangleMesh>();
    mesh->vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)};
    mesh->triangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    return mesh;
}

TEST(ConstructSupportDistance, MatchesDenseSurfaceSamplesOfEachRotatedPrimitive) {
    std::mt19937 rng(20240611);
    std::vector<Shape> shapes;
    for (ShapeType type : {ShapeType::Box, ShapeType::Sphere, ShapeType::Cylinder,
                           ShapeType::Capsule, ShapeType::Cone})
        shapes.push_back(primitivePart(type).shapes.front());
    Shape flat;  // a box with very different edges, a disc-like cylinder and a long cone
    flat.type = ShapeType::Box;
    flat.size = Vec3(0.3, 0.01, 0.12);
    shapes.push_back(flat);
    Shape disc;
    disc.type = ShapeType::Cylinder;
    disc.radius = 0.15;
    disc.length = 0.01;
    shapes.push_back(disc);
    Shape spike;
    spike.type = ShapeType::Cone;
    spike.radius = 0.01;
    spike.length = 0.4;
    shapes.push_back(spike);

    for (Shape s : shapes) {
        for (int trial = 0; trial < 4; ++trial) {
            s.X_PG = trial == 0 ? Transform{} : randomPose(rng);
            const Part part = partWith(s);
            const double size = std::max({s.size.maxCoeff(), s.radius, s.length});
            const double bound = samplingBound(s);
            ASSERT_LE(bound, 1e-3 * size);
            for (int d = 0; d < 6; ++d) {
                const Vec3 n = randomUnit(rng);
                const double analytic = supportDistance(part, n);
                const double sampled = sampledSupport(s, n);
                SCOPED_TRACE(std::string(shapeTypeName(s.type)) + " trial " +
                             std::to_string(trial));
                EXPECT_LE(sampled, analytic + 1e-14);
                EXPECT_LE(analytic - sampled, bound);
            }
        }
    }
}

TEST(ConstructSupportDistance, EqualsTheClosedFormOfEachPrimitive) {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 20; ++trial) {
        const Transform X_PG = randomPose(rng);
        const Mat3 R = X_PG.rotationMatrix();
        const Vec3 c = X_PG.p, a = R.col(2);
        const Vec3 n = randomUnit(rng);
        const double along = n.dot(a), across = std::sqrt(1.0 - along * along);

        Shape box;
        box.size = Vec3(0.2, 0.05, 0.03);
        box.X_PG = X_PG;
        const double boxExpected = n.dot(c) + 0.1 * std::abs(n.dot(R.col(0))) +
                                   0.025 * std::abs(n.dot(R.col(1))) +
                                   0.015 * std::abs(n.dot(R.col(2)));
        EXPECT_NEAR(supportDistance(partWith(box), n), boxExpected, 1e-15);

        Shape sphere;
        sphere.type = ShapeType::Sphere;
        sphere.radius = 0.04;
        sphere.X_PG = X_PG;
        EXPECT_NEAR(supportDistance(partWith(sphere), n), n.dot(c) + 0.04, 1e-15);

        Shape cylinder;
        cylinder.type = ShapeType::Cylinder;
        cylinder.radius = 0.02;
        cylinder.length = 0.2;
        cylinder.X_PG = X_PG;
        EXPECT_NEAR(supportDistance(partWith(cylinder), n),
                    n.dot(c) + 0.02 * across + 0.1 * std::abs(along), 1e-15);

        Shape capsule = cylinder;
        capsule.type = ShapeType::Capsule;
        EXPECT_NEAR(supportDistance(partWith(capsule), n), n.dot(c) + 0.02 + 0.1 * std::abs(along),
                    1e-15);

        // Cone: the apex (+L/2) or the point of the base rim furthest along n.
        Shape cone;
        cone.type = ShapeType::Cone;
        cone.radius = 0.04;
        cone.length = 0.1;
        cone.X_PG = X_PG;
        const double apex = n.dot(c + 0.05 * a);
        const double rim = n.dot(c - 0.05 * a) + 0.04 * across;
        EXPECT_NEAR(supportDistance(partWith(cone), n), std::max(apex, rim), 1e-15);
    }
}

TEST(ConstructSupportDistance, OfAMeshIsTheLargestOfItsScaledPlacedVertices) {
    std::mt19937 rng(11);
    Shape s;
    s.type = ShapeType::Mesh;
    s.mesh = tetrahedron();
    s.scale = Vec3(0.1, 0.2, 0.05);
    for (int trial = 0; trial < 20; ++trial) {
        s.X_PG = randomPose(rng);
        const Vec3 n = randomUnit(rng);
        double expected = -std::numeric_limits<double>::infinity();
        for (const Vec3& v : s.mesh->vertices)
            expected = std::max(expected, n.dot(s.X_PG.p + s.X_PG.rotationMatrix() *
                                                               Vec3(s.scale.cwiseProduct(v))));
        EXPECT_NEAR(supportDistance(partWith(s), n), expected, 1e-15);
    }
    // Without its loaded mesh a mesh shape is a point at its origin.
    s.mesh = nullptr;
    const Vec3 n = randomUnit(rng);
    EXPECT_DOUBLE_EQ(supportDistance(partWith(s), n), n.dot(s.X_PG.p));
}

TEST(ConstructSupportDistance, OfAPartIsTheLargestOverItsShapesIgnoringPlanes) {
    Part part;
    EXPECT_EQ(supportDistance(part, Vec3::UnitZ()), 0.0);  // no geometry: rests on its origin
    Shape plane;
    plane.type = ShapeType::Plane;
    part.shapes.push_back(plane);
    EXPECT_EQ(supportDistance(part, Vec3::UnitZ()), 0.0);

    Shape sphere;
    sphere.type = ShapeType::Sphere;
    sphere.radius = 0.05;
    sphere.X_PG.p = Vec3(0.3, 0, 0);
    Shape box;
    box.size = Vec3(0.2, 0.2, 0.2);
    part.shapes = {box, sphere, plane};
    EXPECT_NEAR(supportDistance(part, Vec3::UnitX()), 0.35, 1e-15);  // the sphere
    EXPECT_NEAR(supportDistance(part, -Vec3::UnitX()), 0.1, 1e-15);  // the box
    EXPECT_NEAR(supportDistance(part, Vec3::UnitZ()), 0.1, 1e-15);
    // A part lying entirely on the far side still gets its (negative) support.
    part.shapes = {sphere};
    EXPECT_NEAR(supportDistance(part, -Vec3::UnitX()), -0.25, 1e-15);
    // The default box link rests 20 mm above a floor it lies flat on, 100 mm on its end.
    EXPECT_NEAR(supportDistance(primitivePart(ShapeType::Box), -Vec3::UnitZ()), 0.02, 1e-15);
    EXPECT_NEAR(supportDistance(primitivePart(ShapeType::Box), -Vec3::UnitX()), 0.1, 1e-15);
}

TEST(ConstructPrimitivePart, IsSteelWithTheMassOfItsAnalyticVolume) {
    constexpr double rho = 7850.0;
    struct Case {
        ShapeType type;
        double volume;
        Vec3 p_PPcm;
    };
    const double r2 = 0.02 * 0.02;
    const Case cases[] = {
        {ShapeType::Box, 0.2 * 0.04 * 0.04, Vec3::Zero()},
        {ShapeType::Sphere, 4.0 / 3.0 * kPi * 0.04 * 0.04 * 0.04, Vec3::Zero()},
        {ShapeType::Cylinder, kPi * r2 * 0.2, Vec3::Zero()},
        {ShapeType::Capsule, kPi * r2 * 0.2 + 4.0 / 3.0 * kPi * r2 * 0.02, Vec3::Zero()},
        {ShapeType::Cone, kPi * 0.04 * 0.04 * 0.1 / 3.0,
         Vec3(0, 0, -0.025)},  // a quarter up from the base
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(std::string(shapeTypeName(c.type)));
        const Part part = primitivePart(c.type);
        ASSERT_TRUE(part.density);
        EXPECT_EQ(*part.density, rho);
        ASSERT_EQ(part.shapes.size(), 1u);
        EXPECT_EQ(part.shapes[0].type, c.type);
        EXPECT_TRUE(part.shapes[0].X_PG.p.isZero());
        EXPECT_TRUE(part.shapes[0].X_PG.R.isApprox(Quat::Identity(), 0.0));
        EXPECT_FALSE(part.ground);
        const MassProperties mp = partMassProperties(part);
        EXPECT_NEAR(mp.mass, rho * c.volume, 1e-12 * rho * c.volume);
        EXPECT_LE((mp.p_PPcm - c.p_PPcm).norm(), 1e-15);
        EXPECT_GT(mp.I_Pcm_P.diagonal().minCoeff(), 0.0);
    }
    // The default sizes of the header.
    EXPECT_EQ(primitivePart(ShapeType::Box).shapes[0].size, Vec3(0.2, 0.04, 0.04));
    EXPECT_EQ(primitivePart(ShapeType::Sphere).shapes[0].radius, 0.04);
    for (ShapeType type : {ShapeType::Cylinder, ShapeType::Capsule}) {
        EXPECT_EQ(primitivePart(type).shapes[0].radius, 0.02);
        EXPECT_EQ(primitivePart(type).shapes[0].length, 0.2);
    }
    EXPECT_EQ(primitivePart(ShapeType::Cone).shapes[0].radius, 0.04);
    EXPECT_EQ(primitivePart(ShapeType::Cone).shapes[0].length, 0.1);
}

TEST(ConstructFreshName, FillsTheFirstFreeNumberOfItsOwnKind) {
    SceneSpec spec;
    EXPECT_EQ(freshName(spec, NameSpace::Part, "box"), "box1");
    Part a;
    a.name = "box1";
    Part b;
    b.name = "box3";
    spec.parts = {a, b};
    EXPECT_EQ(freshName(spec, NameSpace::Part, "box"), "box2");
    spec.parts.back().name = "box2";
    EXPECT_EQ(freshName(spec, NameSpace::Part, "box"), "box3");
    // Kinds are separate name spaces: a part "revolute1" leaves the joint name free.
    spec.parts.back().name = "revolute1";
    EXPECT_EQ(freshName(spec, NameSpace::Joint, "revolute"), "revolute1");
    spec.joints.push_back({});
    spec.joints.back().name = "revolute1";
    spec.forces.push_back({});
    spec.forces.back().name = "spring1";
    spec.motions.push_back({});
    spec.motions.back().name = "motion1";
    spec.contact.pairs.push_back({});
    spec.contact.pairs.back().name = "contact1";
    EXPECT_EQ(freshName(spec, NameSpace::Joint, "revolute"), "revolute2");
    EXPECT_EQ(freshName(spec, NameSpace::Force, "spring"), "spring2");
    EXPECT_EQ(freshName(spec, NameSpace::Motion, "motion"), "motion2");
    EXPECT_EQ(freshName(spec, NameSpace::ContactPair, "contact"), "contact2");
    EXPECT_EQ(freshName(spec, NameSpace::Force, "revolute"), "revolute1");

    Part part;
    EXPECT_EQ(freshMarkerName(part), "m1");
    for (const char* name : {"m1", "m2", "m4", "pin1"}) {
        part.markers.push_back({});
        part.markers.back().name = name;
    }
    EXPECT_EQ(freshMarkerName(part), "m3");
    EXPECT_EQ(freshMarkerName(part, "pin"), "pin2");
    EXPECT_EQ(freshMarkerName(part, "hub"), "hub1");
}

TEST(ConstructFreshName, NeverCollidesOverManyAdditions) {
    SceneSpec spec;
    std::set<std::string> names;
    for (int k = 0; k < 40; ++k) {
        const std::string name = freshName(spec, NameSpace::Part, "link");
        EXPECT_TRUE(names.insert(name).second) << name;
        Part p;
        p.name = name;
        spec.parts.push_back(p);
        if (k % 7 == 3) {  // leave a hole now and then: it is filled next
            const std::string hole = spec.parts[static_cast<std::size_t>(k / 2)].name;
            names.erase(hole);
            spec.parts.erase(spec.parts.begin() + k / 2);
            EXPECT_EQ(freshName(spec, NameSpace::Part, "link"), hole);
        }
    }
    std::set<std::string> inSpec;
    for (const Part& p : spec.parts) EXPECT_TRUE(inSpec.insert(p.name).second) << p.name;
}

// Ids handed out are fresh: never seen before, below nextId, and nextId moved past them.
class IdLedger {
public:
    void expectFresh(const SceneSpec& spec, EntityId id, const char* what) {
        EXPECT_NE(id, kNoEntity) << what;
        EXPECT_LT(id, spec.nextId) << what;
        EXPECT_GE(id, nextBefore_) << what;
        EXPECT_TRUE(seen_.insert(id).second) << what << " reused id " << id;
        nextBefore_ = spec.nextId;
    }
    // Several ids handed out by one call (a part and its markers).
    void expectFresh(const SceneSpec& spec, const std::vector<EntityId>& ids, const char* what) {
        const EntityId before = nextBefore_;
        for (EntityId id : ids) {
            nextBefore_ = before;
            expectFresh(spec, id, what);
        }
    }
    void sync(const SceneSpec& spec) { nextBefore_ = spec.nextId; }

private:
    std::set<EntityId> seen_;
    EntityId nextBefore_ = 1;
};

// Ground, two box links along x, hinged to the ground and to each other, a spring from the
// tip of the second link to the ground, a motor on the first hinge, contact between the links.
struct TwoLinkScene {
    SceneSpec spec;
    EntityId ground = kNoEntity, link1 = kNoEntity, link2 = kNoEntity;
    EntityId groundPivot = kNoEntity, groundAnchor = kNoEntity;
    EntityId link1Pivot = kNoEntity, link1Elbow = kNoEntity, link2Elbow = kNoEntity,
             link2Tip = kNoEntity;
    EntityId shoulder = kNoEntity, elbow = kNoEntity, spring = kNoEntity, motor = kNoEntity,
             contact = kNoEntity;
};

TwoLinkScene twoLinkScene(IdLedger& ids) {
    TwoLinkScene s;
    SceneSpec& spec = s.spec;
    s.ground = groundPart(spec).id;
    ids.expectFresh(spec, s.ground, "ground");
    Part box = primitivePart(ShapeType::Box);
    box.X_WP.p = Vec3(0.1, 0, 0);
    s.link1 = addPart(spec, box, "link");
    ids.expectFresh(spec, s.link1, "link1");
    box.X_WP.p = Vec3(0.3, 0, 0);
    s.link2 = addPart(spec, box, "link");
    ids.expectFresh(spec, s.link2, "link2");

    Transform X;
    s.groundPivot = addMarker(spec, s.ground, X);
    ids.expectFresh(spec, s.groundPivot, "ground.m1");
    X.p = Vec3(0.5, 0, 0.2);
    s.groundAnchor = addMarker(spec, s.ground, X);
    ids.expectFresh(spec, s.groundAnchor, "ground.m2");
    X.p = Vec3(-0.1, 0, 0);
    s.link1Pivot = addMarker(spec, s.link1, X);
    ids.expectFresh(spec, s.link1Pivot, "link1.m1");
    X.p = Vec3(0.1, 0, 0);
    s.link1Elbow = addMarker(spec, s.link1, X);
    ids.expectFresh(spec, s.link1Elbow, "link1.m2");
    X.p = Vec3(-0.1, 0, 0);
    s.link2Elbow = addMarker(spec, s.link2, X);
    ids.expectFresh(spec, s.link2Elbow, "link2.m1");
    X.p = Vec3(0.1, 0, 0);
    s.link2Tip = addMarker(spec, s.link2, X);
    ids.expectFresh(spec, s.link2Tip, "link2.m2");

    s.shoulder = addJoint(spec, JointType::Revolute, s.link1Pivot, s.groundPivot);
    ids.expectFresh(spec, s.shoulder, "shoulder");
    s.elbow = addJoint(spec, JointType::Revolute, s.link2Elbow, s.link1Elbow);
    ids.expectFresh(spec, s.elbow, "elbow");
    s.spring = addForce(spec, ForceType::SpringDamper, s.link2Tip, s.groundAnchor, kNoEntity);
    ids.expectFresh(spec, s.spring, "spring");
    s.motor = addMotion(spec, s.shoulder);
    ids.expectFresh(spec, s.motor, "motor");
    s.contact = addContactPair(spec, s.link1, s.link2);
    ids.expectFresh(spec, s.contact, "contact");
    return s;
}

TEST(ConstructAdd, BuildsAValidSceneThatCompilesWithFreshIdsAndNames) {
    IdLedger ids;
    const TwoLinkScene s = twoLinkScene(ids);
    const SceneSpec& spec = s.spec;

    ASSERT_EQ(spec.parts.size(), 3u);
    EXPECT_EQ(spec.parts[0].name, "ground");
    EXPECT_EQ(spec.parts[1].name, "link1");
    EXPECT_EQ(spec.parts[2].name, "link2");
    EXPECT_EQ(markerById(spec, s.link1Elbow)->name, "m2");
    EXPECT_EQ(markerById(spec, s.link2Elbow)->name, "m1");
    ASSERT_EQ(spec.joints.size(), 2u);
    EXPECT_EQ(spec.joints[0].name, "revolute1");
    EXPECT_EQ(spec.joints[1].name, "revolute2");
    EXPECT_EQ(spec.joints[1].markerI.text(), "link2.m1");
    EXPECT_EQ(spec.joints[1].markerJ.text(), "link1.m2");
    ASSERT_EQ(spec.forces.size(), 1u);
    EXPECT_EQ(spec.forces[0].name, "springDamper1");
    EXPECT_EQ(spec.forces[0].markerI.text(), "link2.m2");
    EXPECT_EQ(spec.forces[0].markerJ.text(), "ground.m2");
    ASSERT_EQ(spec.motions.size(), 1u);
    EXPECT_EQ(spec.motions[0].name, "motion1");
    EXPECT_EQ(spec.motions[0].joint, "revolute1");
    ASSERT_EQ(spec.contact.pairs.size(), 1u);
    EXPECT_EQ(spec.contact.pairs[0].name, "contact1");
    EXPECT_EQ(spec.contact.pairs[0].partA, "link1");
    EXPECT_EQ(spec.contact.pairs[0].partB, "link2");

    const Diagnostics diagnostics = validate(spec);
    for (const Diagnostic& d : diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    const CompileResult compiled = compile(spec);
    for (const Diagnostic& d : compiled.diagnostics)
        if (d.severity == Severity::Error) ADD_FAILURE() << d.where << ": " << d.message;
    ASSERT_TRUE(compiled.model);
    const Model& model = *compiled.model;
    EXPECT_EQ(model.bodyCount(), 2);
    EXPECT_EQ(model.joints.size(), 2u);
    EXPECT_EQ(model.forces.size(), 1u);
    EXPECT_EQ(model.drivers.size(), 1u);
    EXPECT_EQ(model.jointRows, 10);  // two revolutes, 5 equations each
    // Mass from the steel density: 7850 × 0.2 × 0.04 × 0.04 kg.
    EXPECT_NEAR(model.bodies[0].mass, 7850.0 * 0.2 * 0.04 * 0.04, 1e-12);
}

TEST(ConstructAdd, IdsAreNeverReusedAndNamesStayUniqueAfterDeletions) {
    IdLedger ids;
    TwoLinkScene s = twoLinkScene(ids);
    SceneSpec& spec = s.spec;
    ASSERT_FALSE(deleteEntity(spec, s.link2).empty());  // takes the elbow, the spring, the pair
    ids.sync(spec);
    const EntityId link = addPart(spec, primitivePart(ShapeType::Sphere), "link");
    ids.expectFresh(spec, link, "new link");
    EXPECT_EQ(partById(spec, link)->name, "link2");  // the freed name, a new id
    EXPECT_GT(link, s.contact);

    // A part keeps its own name when free, gets a fresh one when taken; its markers get ids.
    Part named = primitivePart(ShapeType::Cylinder);
    named.name = "shaft";
    named.markers.resize(2);
    named.markers[0].name = "a";
    named.markers[1].name = "b";
    const EntityId shaft = addPart(spec, named, "link");
    std::vector<EntityId> shaftIds = {shaft};
    for (const Marker& m : partById(spec, shaft)->markers) shaftIds.push_back(m.id);
    ids.expectFresh(spec, shaftIds, "shaft and its markers");
    EXPECT_EQ(partById(spec, shaft)->name, "shaft");
    const EntityId again = addPart(spec, named, "link");
    ids.expectFresh(spec, again, "second shaft");
    EXPECT_EQ(partById(spec, again)->name, "link3");

    // Many more of every kind.
    for (int k = 0; k < 5; ++k) {
        const EntityId mi = addMarker(spec, again, Transform{});
        ids.expectFresh(spec, mi, "marker");
        const EntityId mj = addMarker(spec, s.link1, Transform{});
        ids.expectFresh(spec, mj, "marker");
        ids.expectFresh(spec, addJoint(spec, JointType::Spherical, mi, mj), "joint");
        ids.expectFresh(spec, addForce(spec, ForceType::Bushing, mi, mj, kNoEntity), "bushing");
        ids.expectFresh(spec, addForce(spec, ForceType::PointForce, mi, kNoEntity, kNoEntity),
                        "point force");
    }
    ids.expectFresh(spec, addContactPair(spec, again, shaft), "contact");
    std::set<std::string> jointNames;
    for (const Joint& j : spec.joints) EXPECT_TRUE(jointNames.insert(j.name).second) << j.name;
    std::set<std::string> forceNames;
    for (const ForceSpec& f : spec.forces) EXPECT_TRUE(forceNames.insert(f.name).second) << f.name;
    const Diagnostics diagnostics = validate(spec);
    for (const Diagnostic& d : diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
}

TEST(ConstructAdd, RefusesUnknownReferencesWithoutSpendingAnId) {
    IdLedger ids;
    TwoLinkScene s = twoLinkScene(ids);
    SceneSpec& spec = s.spec;
    const SceneSpec before = spec;
    constexpr EntityId unknown = 999999;
    EXPECT_EQ(addMarker(spec, unknown, Transform{}), kNoEntity);
    EXPECT_EQ(addMarker(spec, s.shoulder, Transform{}), kNoEntity);  // a joint, not a part
    EXPECT_EQ(addJoint(spec, JointType::Revolute, s.link1Pivot, unknown), kNoEntity);
    EXPECT_EQ(addJoint(spec, JointType::Revolute, unknown, s.link1Pivot), kNoEntity);
    EXPECT_EQ(addForce(spec, ForceType::SpringDamper, s.link1Pivot, unknown, kNoEntity), kNoEntity);
    EXPECT_EQ(addForce(spec, ForceType::PointTorque, unknown, kNoEntity, kNoEntity), kNoEntity);
    EXPECT_EQ(addForce(spec, ForceType::RotationalSpringDamper, kNoEntity, kNoEntity, unknown),
              kNoEntity);
    EXPECT_EQ(addForce(spec, ForceType::JointController, kNoEntity, kNoEntity, s.link1), kNoEntity);
    EXPECT_EQ(addMotion(spec, unknown), kNoEntity);
    EXPECT_EQ(addMotion(spec, s.spring), kNoEntity);  // a force, not a joint
    EXPECT_EQ(addContactPair(spec, s.link1, s.link1), kNoEntity);
    EXPECT_EQ(addContactPair(spec, s.link1, unknown), kNoEntity);
    EXPECT_EQ(spec.nextId, before.nextId);
    EXPECT_EQ(spec.markerCount(), before.markerCount());
    EXPECT_EQ(spec.joints.size(), before.joints.size());
    EXPECT_EQ(spec.forces.size(), before.forces.size());
    EXPECT_EQ(spec.motions.size(), before.motions.size());
    EXPECT_EQ(spec.contact.pairs.size(), before.contact.pairs.size());
}

TEST(ConstructAddMarker, StoresTheGivenPoseWithAUnitQuaternion) {
    SceneSpec spec;
    const EntityId part = addPart(spec, primitivePart(ShapeType::Box));
    Transform X_PM;
    X_PM.R = Quat(2.0, 0.4, -1.0, 0.6);  // not unit
    X_PM.p = Vec3(0.1, -0.02, 0.03);
    const EntityId m = addMarker(spec, part, X_PM, "pin");
    const Marker* marker = markerById(spec, m);
    ASSERT_TRUE(marker);
    EXPECT_EQ(marker->name, "pin1");
    EXPECT_NEAR(marker->X_PM.R.norm(), 1.0, 1e-15);
    EXPECT_TRUE(marker->X_PM.R.isApprox(X_PM.R.normalized(), 1e-15));
    EXPECT_EQ(marker->X_PM.p, X_PM.p);
    EXPECT_EQ(partOfMarker(spec, m), partById(spec, part));
}

TEST(ConstructAddJoint, ADistanceJointTakesTheCurrentMarkerDistance) {
    std::mt19937 rng(3);
    SceneSpec spec;
    Part a = primitivePart(ShapeType::Box);
    a.X_WP = randomPose(rng);
    Part b = primitivePart(ShapeType::Sphere);
    b.X_WP = randomPose(rng);
    const EntityId partA = addPart(spec, a), partB = addPart(spec, b);
    Transform X_AM, X_BM;
    X_AM.p = Vec3(0.1, 0.02, -0.01);
    X_BM.p = Vec3(-0.03, 0.04, 0.0);
    X_BM.R = randomRotation(rng);
    const EntityId mi = addMarker(spec, partA, X_AM), mj = addMarker(spec, partB, X_BM);
    const EntityId rod = addJoint(spec, JointType::Distance, mi, mj);
    ASSERT_NE(rod, kNoEntity);
    const Joint& joint = spec.joints.back();
    EXPECT_EQ(joint.id, rod);
    EXPECT_EQ(joint.type, JointType::Distance);
    EXPECT_EQ(joint.name, "distance1");
    EXPECT_EQ(joint.markerI.text(), spec.parts[0].name + ".m1");
    EXPECT_EQ(joint.markerJ.text(), spec.parts[1].name + ".m1");
    const Vec3 p_WI = a.X_WP.p + a.X_WP.rotationMatrix() * X_AM.p;
    const Vec3 p_WJ = b.X_WP.p + b.X_WP.rotationMatrix() * X_BM.p;
    EXPECT_NEAR(joint.length, (p_WI - p_WJ).norm(), 1e-15);
    EXPECT_GT(joint.length, 0.0);

    // Coincident markers: a rod of 0.1 m rather than an invalid zero length.
    const EntityId ci = addMarker(spec, partA, Transform{});
    Transform X_BC;
    X_BC.p = b.X_WP.inverse() * a.X_WP.p;  // the same world point as A's origin
    const EntityId cj = addMarker(spec, partB, X_BC);
    ASSERT_NE(addJoint(spec, JointType::Distance, ci, cj), kNoEntity);
    EXPECT_EQ(spec.joints.back().length, 0.1);
    EXPECT_EQ(spec.joints.back().name, "distance2");
    // Other joint types leave the length alone.
    ASSERT_NE(addJoint(spec, JointType::Revolute, mi, mj), kNoEntity);
    EXPECT_EQ(spec.joints.back().length, 0.0);
    for (const Diagnostic& d : validate(spec)) ADD_FAILURE() << d.where << ": " << d.message;
}

TEST(ConstructAddForce, ASpringIsMadeAtItsFreeLength) {
    std::mt19937 rng(5);
    SceneSpec spec;
    Part a = primitivePart(ShapeType::Box);
    a.X_WP = randomPose(rng);
    Part b = primitivePart(ShapeType::Cylinder);
    b.X_WP = randomPose(rng);
    const EntityId partA = addPart(spec, a), partB = addPart(spec, b);
    Transform X_AM, X_BM;
    X_AM.p = Vec3(0.1, 0, 0);
    X_BM.p = Vec3(0, 0, -0.1);
    const EntityId mi = addMarker(spec, partA, X_AM), mj = addMarker(spec, partB, X_BM);
    const EntityId id = addForce(spec, ForceType::SpringDamper, mi, mj, kNoEntity);
    ASSERT_NE(id, kNoEntity);
    const ForceSpec& spring = spec.forces.back();
    EXPECT_EQ(spring.id, id);
    EXPECT_EQ(spring.type, ForceType::SpringDamper);
    const double distance = ((a.X_WP.p + a.X_WP.rotationMatrix() * X_AM.p) -
                             (b.X_WP.p + b.X_WP.rotationMatrix() * X_BM.p))
                                .norm();
    EXPECT_NEAR(spring.freeLength, distance, 1e-15);
    EXPECT_GT(spring.stiffness, 0.0);
    EXPECT_GE(spring.damping, 0.0);
    EXPECT_EQ(spring.markerI.text(), spec.parts[0].name + ".m1");
    EXPECT_EQ(spring.markerJ.text(), spec.parts[1].name + ".m1");

    const EntityId bushing = addForce(spec, ForceType::Bushing, mi, mj, kNoEntity);
    ASSERT_NE(bushing, kNoEntity);
    EXPECT_GT(spec.forces.back().translationalStiffness.minCoeff(), 0.0);
    EXPECT_GT(spec.forces.back().rotationalStiffness.minCoeff(), 0.0);
    const EntityId push = addForce(spec, ForceType::PointForce, mi, kNoEntity, kNoEntity);
    ASSERT_NE(push, kNoEntity);
    EXPECT_EQ(spec.forces.back().markerI.text(), spec.parts[0].name + ".m1");
    EXPECT_EQ(spec.forces.back().name, "pointForce1");
    for (const Diagnostic& d : validate(spec)) ADD_FAILURE() << d.where << ": " << d.message;
}

// Ground plus one box hinged (or slid, or ball-jointed) to it.
struct OneJoint {
    SceneSpec spec;
    EntityId joint = kNoEntity;
};

OneJoint oneJoint(JointType type) {
    OneJoint s;
    const EntityId ground = groundPart(s.spec).id;
    Part box = primitivePart(ShapeType::Box);
    box.X_WP.p = Vec3(0.1, 0, 0);
    const EntityId link = addPart(s.spec, box, "link");
    const EntityId mg = addMarker(s.spec, ground, Transform{});
    Transform X_PM;
    X_PM.p = Vec3(-0.1, 0, 0);
    const EntityId ml = addMarker(s.spec, link, X_PM);
    s.joint = addJoint(s.spec, type, ml, mg);
    return s;
}

double evalExpression(const std::string& text, double time) {
    std::string error;
    const auto e = Expression::parse(text, error);
    EXPECT_TRUE(e) << text << ": " << error;
    return e ? e->eval(time) : std::nan("");
}

TEST(ConstructAddMotion, TurnsARevoluteOnceASecondAndSlidesAPrismatic) {
    for (JointType type : {JointType::Revolute, JointType::Cylindrical}) {
        OneJoint s = oneJoint(type);
        const EntityId id = addMotion(s.spec, s.joint);
        ASSERT_NE(id, kNoEntity);
        const MotionSpec& motion = s.spec.motions.back();
        EXPECT_EQ(motion.id, id);
        EXPECT_EQ(motion.joint, s.spec.joints.back().name);
        EXPECT_EQ(motion.axis, JointAxis::Rotation);
        EXPECT_EQ(motion.level, MotionLevel::Position);
        EXPECT_EQ(motion.expression, "360d*time");
        EXPECT_NEAR(evalExpression(motion.expression, 0.25), 0.5 * kPi, 1e-14);
        EXPECT_NEAR(evalExpression(motion.expression, 1.0), 2.0 * kPi, 1e-14);
        for (const Diagnostic& d : validate(s.spec)) ADD_FAILURE() << d.where << ": " << d.message;
        EXPECT_TRUE(compile(s.spec).model);
    }
    {
        OneJoint s = oneJoint(JointType::Prismatic);
        ASSERT_NE(addMotion(s.spec, s.joint), kNoEntity);
        const MotionSpec& motion = s.spec.motions.back();
        EXPECT_EQ(motion.axis, JointAxis::Translation);
        EXPECT_NEAR(evalExpression(motion.expression, 0.0), 0.0, 1e-15);
        EXPECT_NEAR(evalExpression(motion.expression, 0.25), 0.05, 1e-15);  // 50 mm at 1 Hz
        EXPECT_NEAR(evalExpression(motion.expression, 1.25), 0.05, 1e-14);
        for (const Diagnostic& d : validate(s.spec)) ADD_FAILURE() << d.where << ": " << d.message;
        EXPECT_TRUE(compile(s.spec).model);
    }
    // Joints without a coordinate to drive get no motion, and spend no id.
    for (JointType type :
         {JointType::Spherical, JointType::Fixed, JointType::Universal, JointType::Distance}) {
        OneJoint s = oneJoint(type);
        const EntityId next = s.spec.nextId;
        EXPECT_EQ(addMotion(s.spec, s.joint), kNoEntity);
        EXPECT_TRUE(s.spec.motions.empty());
        EXPECT_EQ(s.spec.nextId, next);
    }
}

TEST(ConstructAddForce, JointForcesNeedAJointWithThatCoordinate) {
    // A torsion spring needs an angle; a controller an angle or a slide. Others get nothing.
    for (JointType type :
         {JointType::Spherical, JointType::Fixed, JointType::Universal, JointType::Planar}) {
        OneJoint s = oneJoint(type);
        EXPECT_EQ(
            addForce(s.spec, ForceType::RotationalSpringDamper, kNoEntity, kNoEntity, s.joint),
            kNoEntity);
        EXPECT_EQ(addForce(s.spec, ForceType::JointController, kNoEntity, kNoEntity, s.joint),
                  kNoEntity);
        EXPECT_TRUE(s.spec.forces.empty());
    }
    OneJoint slide = oneJoint(JointType::Prismatic);
    EXPECT_EQ(
        addForce(slide.spec, ForceType::RotationalSpringDamper, kNoEntity, kNoEntity, slide.joint),
        kNoEntity);
    EXPECT_NE(addForce(slide.spec, ForceType::JointController, kNoEntity, kNoEntity, slide.joint),
              kNoEntity);
}

TEST(ConstructAddForce, JointForcesNameTheJointAndControlItsCoordinate) {
    {
        OneJoint s = oneJoint(JointType::Revolute);
        const EntityId spring =
            addForce(s.spec, ForceType::RotationalSpringDamper, kNoEntity, kNoEntity, s.joint);
        ASSERT_NE(spring, kNoEntity);
        EXPECT_EQ(s.spec.forces.back().joint, s.spec.joints.back().name);
        EXPECT_EQ(s.spec.forces.back().name, "rotationalSpringDamper1");
        EXPECT_GT(s.spec.forces.back().stiffness, 0.0);
        const EntityId servo =
            addForce(s.spec, ForceType::JointController, kNoEntity, kNoEntity, s.joint);
        ASSERT_NE(servo, kNoEntity);
        EXPECT_EQ(s.spec.forces.back().joint, s.spec.joints.back().name);
        EXPECT_EQ(s.spec.forces.back().axis, JointAxis::Rotation);
        EXPECT_EQ(evalExpression(s.spec.forces.back().components[0], 0.7), 0.0);  // hold at zero
        for (const Diagnostic& d : validate(s.spec)) ADD_FAILURE() << d.where << ": " << d.message;
        EXPECT_TRUE(compile(s.spec).model);
    }
    {
        OneJoint s = oneJoint(JointType::Prismatic);
        ASSERT_NE(addForce(s.spec, ForceType::JointController, kNoEntity, kNoEntity, s.joint),
                  kNoEntity);
        EXPECT_EQ(s.spec.forces.back().joint, s.spec.joints.back().name);
        EXPECT_EQ(s.spec.forces.back().axis, JointAxis::Translation);
        for (const Diagnostic& d : validate(s.spec)) ADD_FAILURE() << d.where << ": " << d.message;
        EXPECT_TRUE(compile(s.spec).model);
    }
}

// A stiffness k and damping c tuned to an inertia J: the natural frequency √(k/J) is `hz` and
// the damping ratio c / (2√(kJ)) is 0.3, both within the rounding of k and c to two
// significant digits (at most 5 % each).
void expectTuned(double k, double c, double J, double hz) {
    const double omega = 2.0 * kPi * hz;
    EXPECT_NEAR(k, J * omega * omega, 0.05 * J * omega * omega) << "J " << J;
    EXPECT_NEAR(c, 0.6 * J * omega, 0.05 * 0.6 * J * omega) << "J " << J;
    EXPECT_NEAR(std::sqrt(k / J) / (2.0 * kPi), hz, 0.026 * hz);
    EXPECT_NEAR(c / (2.0 * std::sqrt(k * J)), 0.3, 0.3 * 0.08);
}

TEST(ConstructAddForce, SizesStiffnessAndDampingToThePartsTheyAct) {
    constexpr double m = 7850.0 * 0.2 * 0.04 * 0.04;  // the default box link [kg]
    IdLedger ids;
    TwoLinkScene s = twoLinkScene(ids);
    SceneSpec& spec = s.spec;
    // Link to ground: the link's mass at 2 Hz. Link to link: half of it (the reduced mass).
    const ForceSpec toGround = spec.forces[0];
    expectTuned(toGround.stiffness, toGround.damping, m, 2.0);
    ASSERT_NE(addForce(spec, ForceType::SpringDamper, s.link1Elbow, s.link2Tip, kNoEntity),
              kNoEntity);
    expectTuned(spec.forces.back().stiffness, spec.forces.back().damping, 0.5 * m, 2.0);
    // A bushing between the links at 10 Hz: the reduced mass, and the reduced smallest
    // principal moment, about the long axis: m (0.04² + 0.04²) / 12.
    ASSERT_NE(addForce(spec, ForceType::Bushing, s.link1Elbow, s.link2Elbow, kNoEntity), kNoEntity);
    const ForceSpec& bushing = spec.forces.back();
    for (int k = 0; k < 3; ++k) {
        expectTuned(bushing.translationalStiffness(k), bushing.translationalDamping(k), 0.5 * m,
                    10.0);
        expectTuned(bushing.rotationalStiffness(k), bushing.rotationalDamping(k),
                    0.5 * m * 2.0 * 0.04 * 0.04 / 12.0, 10.0);
    }
    for (const Diagnostic& d : validate(spec)) ADD_FAILURE() << d.where << ": " << d.message;

    // On a joint: the moment of inertia of part I about the joint axis (z through its end
    // marker: m (0.2² + 0.04²) / 12 + m 0.1²), or its mass for a slide.
    const double J = m * (0.2 * 0.2 + 0.04 * 0.04) / 12.0 + m * 0.1 * 0.1;
    OneJoint hinge = oneJoint(JointType::Revolute);
    ASSERT_NE(
        addForce(hinge.spec, ForceType::RotationalSpringDamper, kNoEntity, kNoEntity, hinge.joint),
        kNoEntity);
    expectTuned(hinge.spec.forces.back().stiffness, hinge.spec.forces.back().damping, J, 2.0);
    ASSERT_NE(addForce(hinge.spec, ForceType::JointController, kNoEntity, kNoEntity, hinge.joint),
              kNoEntity);
    expectTuned(hinge.spec.forces.back().stiffness, hinge.spec.forces.back().damping, J, 5.0);
    OneJoint slider = oneJoint(JointType::Prismatic);
    ASSERT_NE(addForce(slider.spec, ForceType::JointController, kNoEntity, kNoEntity, slider.joint),
              kNoEntity);
    expectTuned(slider.spec.forces.back().stiffness, slider.spec.forces.back().damping, m, 5.0);

    // Point loads: 10 N down, 1 N·m about z.
    ASSERT_NE(addForce(spec, ForceType::PointForce, s.link1Elbow, kNoEntity, kNoEntity), kNoEntity);
    EXPECT_EQ(evalExpression(spec.forces.back().components[0], 0.3), 0.0);
    EXPECT_EQ(evalExpression(spec.forces.back().components[1], 0.3), 0.0);
    EXPECT_EQ(evalExpression(spec.forces.back().components[2], 0.3), -10.0);
    ASSERT_NE(addForce(spec, ForceType::PointTorque, s.link1Elbow, kNoEntity, kNoEntity),
              kNoEntity);
    EXPECT_EQ(evalExpression(spec.forces.back().components[2], 0.3), 1.0);
}

// A PD servo turned into computed torque (or back) keeps its frequency and damping ratio on the
// part it moves: its gains divided (multiplied) by the part's moment of inertia about the axis,
// or its mass for a slide; the 5 Hz servo becomes computed torque's kp = ω² (ζ kept).
TEST(ConstructServoGains, ATypeChangeBetweenPdAndComputedTorqueKeepsTheServosFrequency) {
    constexpr double m = 7850.0 * 0.2 * 0.04 * 0.04;
    const double J = m * (0.2 * 0.2 + 0.04 * 0.04) / 12.0 + m * 0.1 * 0.1;
    for (const auto& [type, inertia] :
         {std::pair{JointType::Revolute, J}, std::pair{JointType::Prismatic, m}}) {
        OneJoint one = oneJoint(type);
        ASSERT_NE(addForce(one.spec, ForceType::JointController, kNoEntity, kNoEntity, one.joint),
                  kNoEntity);
        ForceSpec servo = one.spec.forces.back();
        const double kp = servo.stiffness, kd = servo.damping;
        convertServoGains(one.spec, servo, ForceType::JointController, ForceType::ComputedTorque);
        const double omega = 2.0 * kPi * 5.0;
        EXPECT_NEAR(servo.stiffness, omega * omega, 0.05 * omega * omega);  // (tuned: rounded)
        EXPECT_NEAR(servo.stiffness, kp / inertia, 1e-12 * kp / inertia);
        EXPECT_NEAR(servo.damping, kd / inertia, 1e-12 * kd / inertia);
        convertServoGains(one.spec, servo, ForceType::ComputedTorque, ForceType::JointController);
        EXPECT_NEAR(servo.stiffness, kp, 1e-12 * kp);
        EXPECT_NEAR(servo.damping, kd, 1e-12 * kd);
        // Any other change leaves them.
        const double before = servo.stiffness;
        convertServoGains(one.spec, servo, ForceType::JointController,
                          ForceType::RotationalSpringDamper);
        EXPECT_EQ(servo.stiffness, before);
    }
}

TEST(ConstructMarkerWorldPose, IsThePartPoseTimesTheMarkerPose) {
    std::mt19937 rng(13);
    SceneSpec spec;
    Part part = primitivePart(ShapeType::Capsule);
    part.X_WP = randomPose(rng);
    const EntityId id = addPart(spec, part);
    for (int k = 0; k < 10; ++k) {
        const Transform X_PM = randomPose(rng);
        const EntityId m = addMarker(spec, id, X_PM);
        const Transform X_WM = markerWorldPose(spec, m);
        const Mat3 R_WP = part.X_WP.rotationMatrix(), R_PM = X_PM.rotationMatrix();
        EXPECT_LE((X_WM.p - (part.X_WP.p + R_WP * X_PM.p)).norm(), 1e-15);
        EXPECT_LE((X_WM.rotationMatrix() - R_WP * R_PM).norm(), 1e-14);
        EXPECT_NEAR(X_WM.R.norm(), 1.0, 1e-15);
    }
    const Transform none = markerWorldPose(spec, 999999);
    EXPECT_TRUE(none.p.isZero());
    EXPECT_TRUE(none.R.isApprox(Quat::Identity(), 0.0));
}

TEST(ConstructLookup, FindsPartsAndMarkersByIdAndNothingElse) {
    IdLedger ids;
    TwoLinkScene s = twoLinkScene(ids);
    const SceneSpec& spec = s.spec;
    EXPECT_EQ(partOfMarker(spec, s.link2Tip), &spec.parts[2]);
    EXPECT_EQ(partOfMarker(spec, s.groundAnchor), &spec.parts[0]);
    EXPECT_EQ(markerById(spec, s.link2Tip), &spec.parts[2].markers[1]);
    EXPECT_EQ(partById(spec, s.link1), &spec.parts[1]);
    EXPECT_EQ(partOfMarker(spec, s.link1), nullptr);  // a part id is no marker
    EXPECT_EQ(markerById(spec, s.shoulder), nullptr);
    EXPECT_EQ(partById(spec, s.link1Pivot), nullptr);
    EXPECT_EQ(partById(spec, kNoEntity), nullptr);
    // The mutable overloads give the same objects.
    SceneSpec& mutableSpec = s.spec;
    EXPECT_EQ(partOfMarker(mutableSpec, s.link2Tip), &mutableSpec.parts[2]);
    EXPECT_EQ(partById(mutableSpec, s.link2), &mutableSpec.parts[2]);
}

TEST(ConstructGroundPart, IsMadeAtTheFrontOnceAndFoundAfterwards) {
    SceneSpec empty;
    Part& made = groundPart(empty);
    EXPECT_TRUE(made.ground);
    EXPECT_EQ(made.name, "ground");
    EXPECT_TRUE(made.shapes.empty());
    EXPECT_EQ(made.id, 1u);
    EXPECT_EQ(empty.nextId, 2u);

    SceneSpec spec;
    addPart(spec, primitivePart(ShapeType::Box));
    addPart(spec, primitivePart(ShapeType::Sphere));
    const EntityId next = spec.nextId;
    const EntityId ground = groundPart(spec).id;
    EXPECT_EQ(ground, next);
    ASSERT_EQ(spec.parts.size(), 3u);
    EXPECT_EQ(spec.parts.front().id, ground);
    EXPECT_TRUE(spec.parts.front().ground);
    EXPECT_FALSE(spec.parts[1].ground);
    // Asked again, the same part: nothing added, no id spent.
    Part& again = groundPart(spec);
    EXPECT_EQ(&again, &spec.parts.front());
    EXPECT_EQ(spec.parts.size(), 3u);
    EXPECT_EQ(spec.nextId, next + 1);
    for (const Diagnostic& d : validate(spec)) ADD_FAILURE() << d.where << ": " << d.message;

    // A ground that is not the first part is found where it is.
    std::swap(spec.parts[0], spec.parts[2]);
    EXPECT_EQ(&groundPart(spec), &spec.parts[2]);
    EXPECT_EQ(spec.parts.size(), 3u);

    // A moving part already called "ground": the new ground takes another name.
    SceneSpec taken;
    Part notGround = primitivePart(ShapeType::Box);
    notGround.name = "ground";
    addPart(taken, notGround);
    EXPECT_EQ(groundPart(taken).name, "ground1");
    for (const Diagnostic& d : validate(taken)) ADD_FAILURE() << d.where << ": " << d.message;
}

void expectZAlong(const Vec3& n) {
    const Quat q = rotationWithZAlong(n);
    const Vec3 u = n.normalized();
    EXPECT_NEAR(q.norm(), 1.0, 1e-15) << n.transpose();
    EXPECT_LE((q * Vec3::UnitZ() - u).norm(), 1e-15) << n.transpose();
    const Mat3 R = q.toRotationMatrix();
    EXPECT_NEAR(R.determinant(), 1.0, 1e-14);
    EXPECT_LE((R.transpose() * R - Mat3::Identity()).norm(), 1e-14);
    EXPECT_LE((R.col(2) - u).norm(), 1e-15) << n.transpose();
    // The least turn: the angle of the rotation is the angle from z to n, about z × n.
    const double angle = std::atan2(Vec3::UnitZ().cross(u).norm(), u.z());
    const Eigen::AngleAxisd aa(q);
    EXPECT_NEAR(aa.angle(), angle, 1e-12) << n.transpose();
    if (angle > 1e-6 && angle < kPi - 1e-6) {
        EXPECT_LE((aa.axis() - Vec3::UnitZ().cross(u).normalized()).norm(), 1e-9) << n.transpose();
    }
}

TEST(ConstructRotationWithZAlong, TakesZExactlyToNWithAProperRotation) {
    std::mt19937 rng(17);
    for (int k = 0; k < 200; ++k) expectZAlong(randomUnit(rng) * (k % 2 ? 3.7 : 1.0));
    for (const Vec3& n :
         {Vec3(Vec3::UnitZ()), Vec3(-Vec3::UnitZ()), Vec3(Vec3::UnitX()), Vec3(-Vec3::UnitX()),
          Vec3(Vec3::UnitY()), Vec3(0.0, 0.0, 2.0), Vec3(1e-9, 0.0, 1.0), Vec3(1e-9, 0.0, -1.0),
          Vec3(0.0, 1e-7, -1.0), Vec3(1e-4, -1e-4, -1.0), Vec3(0.3, 0.4, -1e-12)})
        expectZAlong(n);
    // z itself: no turn. −z: a half turn that keeps x.
    EXPECT_TRUE(rotationWithZAlong(Vec3::UnitZ()).isApprox(Quat::Identity(), 1e-15));
    const Quat flip = rotationWithZAlong(-Vec3::UnitZ());
    EXPECT_LE((flip * Vec3::UnitX() - Vec3::UnitX()).norm(), 1e-15);
    // No direction at all: no turn.
    EXPECT_TRUE(rotationWithZAlong(Vec3::Zero()).isApprox(Quat::Identity(), 0.0));
    // A turn about x or y keeps the other horizontal axis.
    const Quat toY = rotationWithZAlong(Vec3::UnitY());
    EXPECT_LE((toY * Vec3::UnitX() - Vec3::UnitX()).norm(), 1e-15);
}

// The feature of `kind` at p with z along z, or fails.
void expectFeature(const std::vector<ShapeFeature>& features, Kind kind, const Vec3& p,
                   const Vec3& z) {
    for (const ShapeFeature& f : features)
        if (f.kind == kind && (f.p_P - p).norm() <= 1e-14 && (f.z_P - z).norm() <= 1e-14) return;
    ADD_FAILURE() << "no feature of kind " << static_cast<int>(kind) << " at " << p.transpose()
                  << " with z " << z.transpose();
}

std::vector<ShapeFeature> ofKind(const std::vector<ShapeFeature>& features, Kind kind) {
    std::vector<ShapeFeature> out;
    std::copy_if(features.begin(), features.end(), std::back_inserter(out),
                 [&](const ShapeFeature& f) { return f.kind == kind; });
    return out;
}

TEST(ShapeFeatures, OfABoxAreFaceCentresEdgeMidpointsAndVertices) {
    Shape box;
    box.size = Vec3(0.2, 0.06, 0.04);
    const Vec3 h = 0.5 * box.size;
    const std::vector<ShapeFeature> features = shapeFeatures(box);
    const auto faces = ofKind(features, Kind::FaceCentre);
    const auto edges = ofKind(features, Kind::EdgeMidpoint);
    const auto vertices = ofKind(features, Kind::Vertex);
    ASSERT_EQ(faces.size(), 6u);
    ASSERT_EQ(edges.size(), 12u);
    ASSERT_EQ(vertices.size(), 8u);
    EXPECT_EQ(ofKind(features, Kind::Axis).size(), 0u);
    for (const ShapeFeature& f : features) EXPECT_NEAR(f.z_P.norm(), 1.0, 1e-15);

    // Faces: ±h_k along axis k, z the outward normal.
    for (int k = 0; k < 3; ++k)
        for (double sign : {-1.0, 1.0})
            expectFeature(faces, Kind::FaceCentre, sign * h(k) * Vec3::Unit(k),
                          sign * Vec3::Unit(k));

    // Vertices: the 8 corners.
    std::set<std::vector<double>> corners;
    for (const ShapeFeature& v : vertices) {
        EXPECT_LE((v.p_P.cwiseAbs() - h).norm(), 1e-17);
        corners.insert({v.p_P.x(), v.p_P.y(), v.p_P.z()});
    }
    EXPECT_EQ(corners.size(), 8u);

    // Edges: midpoints of the 12 edges (two coordinates at ±h, one zero), z along the edge,
    // the edge's ends two of the vertices.
    std::set<std::vector<double>> midpoints;
    for (const ShapeFeature& e : edges) {
        int along = -1;
        for (int k = 0; k < 3; ++k)
            if (e.p_P(k) == 0.0) along = k;
        ASSERT_GE(along, 0) << e.p_P.transpose();
        for (int k = 0; k < 3; ++k)
            if (k != along) {
                EXPECT_EQ(std::abs(e.p_P(k)), h(k));
            }
        EXPECT_NEAR(std::abs(e.z_P(along)), 1.0, 1e-15);
        EXPECT_NEAR(e.z_P.cross(Vec3::Unit(along)).norm(), 0.0, 1e-15);
        for (double sign : {-1.0, 1.0}) {
            const Vec3 end = e.p_P + sign * h(along) * e.z_P;
            bool found = false;
            for (const ShapeFeature& v : vertices) found = found || (v.p_P - end).norm() <= 1e-15;
            EXPECT_TRUE(found) << end.transpose();
        }
        midpoints.insert({e.p_P.x(), e.p_P.y(), e.p_P.z()});
    }
    EXPECT_EQ(midpoints.size(), 12u);
    // The centre is listed too.
    expectFeature(features, Kind::Centre, Vec3::Zero(), Vec3::UnitZ());
}

TEST(ShapeFeatures, OfAPlacedBoxAreThoseOfTheBoxAtTheOriginMovedByXPG) {
    std::mt19937 rng(19);
    Shape box;
    box.size = Vec3(0.2, 0.06, 0.04);
    const std::vector<ShapeFeature> local = shapeFeatures(box);
    for (int trial = 0; trial < 5; ++trial) {
        box.X_PG = randomPose(rng);
        const Mat3 R_PG = box.X_PG.rotationMatrix();
        const std::vector<ShapeFeature> placed = shapeFeatures(box);
        ASSERT_EQ(placed.size(), local.size());
        for (const ShapeFeature& f : local)
            expectFeature(placed, f.kind, box.X_PG.p + R_PG * f.p_P, R_PG * f.z_P);
        // Each face centre lies on the supporting plane of its normal: z is the outward normal.
        const Part part = partWith(box);
        for (const ShapeFeature& f : ofKind(placed, Kind::FaceCentre))
            EXPECT_NEAR(supportDistance(part, f.z_P), f.z_P.dot(f.p_P), 1e-15);
        // Each edge midpoint lies on the supporting planes of both faces it joins.
        for (const ShapeFeature& e : ofKind(placed, Kind::EdgeMidpoint)) {
            const Vec3 outward = e.p_P - box.X_PG.p;
            for (int k = 0; k < 3; ++k) {
                const Vec3 axis = R_PG.col(k);
                if (std::abs(axis.dot(e.z_P)) > 0.5) continue;  // the edge direction
                const Vec3 normal = axis.dot(outward) > 0.0 ? axis : Vec3(-axis);
                EXPECT_NEAR(supportDistance(part, normal), normal.dot(e.p_P), 1e-15);
            }
        }
        for (const ShapeFeature& v : ofKind(placed, Kind::Vertex))
            EXPECT_NEAR(supportDistance(part, (v.p_P - box.X_PG.p).normalized()),
                        (v.p_P - box.X_PG.p).normalized().dot(v.p_P), 1e-15);
    }
}

TEST(ShapeFeatures, OfBodiesOfRevolutionAreTheirAxisEndsAndCentre) {
    std::mt19937 rng(23);
    for (ShapeType type : {ShapeType::Cylinder, ShapeType::Cone, ShapeType::Capsule}) {
        Shape s = primitivePart(type).shapes.front();
        s.X_PG = randomPose(rng);
        const Vec3 c = s.X_PG.p, a = s.X_PG.rotationMatrix().col(2);
        const std::vector<ShapeFeature> features = shapeFeatures(s);
        EXPECT_EQ(features.size(), 3u);
        expectFeature(features, Kind::Centre, c, a);
        // The ends (cap centres; cone apex at +L/2, base centre at −L/2), z outward.
        expectFeature(features, Kind::FaceCentre, c + 0.5 * s.length * a, a);
        expectFeature(features, Kind::FaceCentre, c - 0.5 * s.length * a, -a);
        if (type == ShapeType::Cone) {
            // The +L/2 end is the apex: the support along any direction tilted towards it
            // is reached there, with no rim beyond it.
            const Part part = partWith(s);
            EXPECT_NEAR(supportDistance(part, a), a.dot(c) + 0.5 * s.length, 1e-15);
        }
    }
    Shape sphere;
    sphere.type = ShapeType::Sphere;
    sphere.X_PG.p = Vec3(0.1, 0.2, 0.3);
    const std::vector<ShapeFeature> features = shapeFeatures(sphere);
    ASSERT_EQ(features.size(), 1u);
    expectFeature(features, Kind::Centre, sphere.X_PG.p, Vec3::UnitZ());
    Shape plane;
    plane.type = ShapeType::Plane;
    EXPECT_TRUE(shapeFeatures(plane).empty());
}

TEST(ShapeFeatures, OfAMeshAreItsScaledPlacedVertices) {
    std::mt19937 rng(29);
    Shape s;
    s.type = ShapeType::Mesh;
    s.mesh = tetrahedron();
    s.scale = Vec3(0.1, 0.2, 0.05);
    s.X_PG = randomPose(rng);
    const Mat3 R = s.X_PG.rotationMatrix();
    const std::vector<ShapeFeature> features = shapeFeatures(s);
    ASSERT_EQ(features.size(), 4u);
    for (const Vec3& v : s.mesh->vertices)
        expectFeature(features, Kind::Vertex, s.X_PG.p + R * Vec3(s.scale.cwiseProduct(v)),
                      R.col(2));
    s.mesh = nullptr;
    EXPECT_TRUE(shapeFeatures(s).empty());
}

TEST(ShapeFeatureSnap, APointNearABoxFeatureSnapsToIt) {
    std::mt19937 rng(31);
    for (int trial = 0; trial < 5; ++trial) {
        Part part = primitivePart(ShapeType::Box);
        Shape& box = part.shapes.front();
        box.size = Vec3(0.2, 0.06, 0.04);
        box.X_PG = trial == 0 ? Transform{} : randomPose(rng);
        const Mat3 R = box.X_PG.rotationMatrix();
        auto toP = [&](const Vec3& p_G) { return Vec3(box.X_PG.p + R * p_G); };

        // Near the +x face centre.
        ShapeFeature f = snapFeature(part, toP(Vec3(0.1 + 0.002, 0.004, -0.003)));
        EXPECT_EQ(f.kind, Kind::FaceCentre);
        EXPECT_LE((f.p_P - toP(Vec3(0.1, 0, 0))).norm(), 1e-14);
        EXPECT_LE((f.z_P - R.col(0)).norm(), 1e-14);
        // Near the −z face centre, a little inside the box.
        f = snapFeature(part, toP(Vec3(-0.005, 0.003, -0.02 + 0.001)));
        EXPECT_EQ(f.kind, Kind::FaceCentre);
        EXPECT_LE((f.p_P - toP(Vec3(0, 0, -0.02))).norm(), 1e-14);
        EXPECT_LE((f.z_P + R.col(2)).norm(), 1e-14);
        // Near the midpoint of the edge along y at (+x, +z): z along the edge.
        f = snapFeature(part, toP(Vec3(0.1 - 0.002, 0.004, 0.02 + 0.001)));
        EXPECT_EQ(f.kind, Kind::EdgeMidpoint);
        EXPECT_LE((f.p_P - toP(Vec3(0.1, 0, 0.02))).norm(), 1e-14);
        EXPECT_NEAR(std::abs(f.z_P.dot(R.col(1))), 1.0, 1e-15);
        EXPECT_NEAR(f.z_P.norm(), 1.0, 1e-15);
        // Near the midpoint of the edge along x at (−y, −z).
        f = snapFeature(part, toP(Vec3(0.01, -0.03 - 0.001, -0.02 + 0.002)));
        EXPECT_EQ(f.kind, Kind::EdgeMidpoint);
        EXPECT_LE((f.p_P - toP(Vec3(0, -0.03, -0.02))).norm(), 1e-14);
        EXPECT_NEAR(std::abs(f.z_P.dot(R.col(0))), 1.0, 1e-15);
        // Near a corner.
        f = snapFeature(part, toP(Vec3(-0.1 + 0.003, 0.03 + 0.001, -0.02)));
        EXPECT_EQ(f.kind, Kind::Vertex);
        EXPECT_LE((f.p_P - toP(Vec3(-0.1, 0.03, -0.02))).norm(), 1e-14);
    }
}

TEST(ShapeFeatureSnap, APointBesideAShaftSnapsToTheAxisAtItsHeightClampedToTheEnds) {
    std::mt19937 rng(37);
    for (ShapeType type : {ShapeType::Cylinder, ShapeType::Cone, ShapeType::Capsule}) {
        for (int trial = 0; trial < 4; ++trial) {
            SCOPED_TRACE(std::string(shapeTypeName(type)) + " trial " + std::to_string(trial));
            Part part = primitivePart(type);
            Shape& s = part.shapes.front();
            s.X_PG = trial == 0 ? Transform{} : randomPose(rng);
            const Vec3 c = s.X_PG.p, a = s.X_PG.rotationMatrix().col(2);
            const Vec3 across = a.unitOrthogonal();
            const double halfLength = 0.5 * s.length;
            for (double height :
                 {-0.7 * halfLength, -0.2 * halfLength, 0.35 * halfLength, 0.9 * halfLength}) {
                // On the side (or just outside it) at this height.
                const ShapeFeature f =
                    snapFeature(part, c + height * a + (s.radius + 0.001) * across);
                EXPECT_EQ(f.kind, Kind::Axis);
                EXPECT_LE((f.p_P - (c + height * a)).norm(), 1e-15);
                EXPECT_LE((f.z_P - a).norm(), 1e-15);
            }
            // Beyond the ends: the end of the axis, z along it and outward.
            for (double sign : {-1.0, 1.0}) {
                const ShapeFeature f =
                    snapFeature(part, c + sign * (halfLength + 0.03) * a + 0.5 * s.radius * across);
                EXPECT_LE((f.p_P - (c + sign * halfLength * a)).norm(), 1e-15);
                EXPECT_LE((f.z_P - sign * a).norm(), 1e-15);
            }
        }
    }
}

TEST(ShapeFeatureSnap, PicksTheNearestShapeAndGivesTheOriginWithoutShapes) {
    Part empty;
    ShapeFeature f = snapFeature(empty, Vec3(0.3, -0.2, 0.1));
    EXPECT_EQ(f.kind, Kind::Centre);
    EXPECT_TRUE(f.p_P.isZero());
    EXPECT_EQ(f.z_P, Vec3::UnitZ());
    Part ground;  // a plane has no features either
    Shape plane;
    plane.type = ShapeType::Plane;
    ground.shapes.push_back(plane);
    f = snapFeature(ground, Vec3(0.3, -0.2, 0.1));
    EXPECT_TRUE(f.p_P.isZero());

    // A box at the origin and a sphere 0.5 m along y: a point near the sphere snaps to its centre.
    Part part = primitivePart(ShapeType::Box);
    Shape sphere;
    sphere.type = ShapeType::Sphere;
    sphere.radius = 0.05;
    sphere.X_PG.p = Vec3(0, 0.5, 0);
    part.shapes.push_back(sphere);
    f = snapFeature(part, Vec3(0.03, 0.46, 0.02));
    EXPECT_EQ(f.kind, Kind::Centre);
    EXPECT_EQ(f.p_P, sphere.X_PG.p);
    f = snapFeature(part, Vec3(0.1, 0.001, 0.0));
    EXPECT_EQ(f.kind, Kind::FaceCentre);
    EXPECT_EQ(f.p_P, Vec3(0.1, 0, 0));
    EXPECT_EQ(f.z_P, Vec3::UnitX());
}

}  // namespace
}  // namespace engine
