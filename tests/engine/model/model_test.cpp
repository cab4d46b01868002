#include "engine/model/model.h"

#include <gtest/gtest.h>

#include "tests/support/contact_scenes.h"
#include "tests/support/mechanisms.h"

namespace engine {
namespace {

TEST(Compile, MovesTheBodyFrameToTheCentreOfMassOnPrincipalAxes) {
    SceneSpec spec;
    Part part;
    part.id = spec.newId();
    part.name = "p";
    part.mass = 3.0;
    part.p_PPcm = Vec3(0.1, -0.2, 0.05);
    Mat3 I;
    I << 0.5, 0.1, 0.0, 0.1, 0.4, 0.05, 0.0, 0.05, 0.3;
    part.I_Pcm_P = I;
    part.X_WP = {quatFromAxisAngle(Vec3(1, 1, 0), 0.7), Vec3(1, 2, 3)};
    part.w_WP_W = Vec3(0.0, 0.0, 2.0);
    part.v_WPo_W = Vec3(1.0, 0.0, 0.0);
    test::addMarker(spec, part, "m", Vec3(0.3, 0.1, -0.1), Vec3(0, 1, 0));
    spec.parts.push_back(part);

    const CompileResult c = compile(spec);
    ASSERT_TRUE(c.model);
    const BodyModel& body = c.model->bodies[0];
    // Diagonal inertia in B equals the tensor in P rotated: R_PB diag(J') R_PBᵀ = I.
    const Mat3 R_PB = body.X_PB.rotationMatrix();
    EXPECT_LT((R_PB * body.inertia.asDiagonal() * R_PB.transpose() - I).norm(), 1e-14);
    EXPECT_GT(R_PB.determinant(), 0.0);
    EXPECT_LT((body.X_PB.p - part.p_PPcm).norm(), 1e-15);
    // The marker is where the user put it, whatever frame the body uses.
    const Transform X_WM = body.X_WB0 * c.model->markers[0].X_BM;
    const Transform expected = part.X_WP * part.markers[0].X_PM;
    EXPECT_LT((X_WM.p - expected.p).norm(), 1e-14);
    EXPECT_LT(X_WM.R.angularDistance(expected.R), 1e-14);
    // COM velocity = v_origin + ω × (COM − origin); angular velocity in body axes.
    const Vec3 r = part.X_WP.R * part.p_PPcm;
    EXPECT_LT((body.v_WBcm0_W - (part.v_WPo_W + part.w_WP_W.cross(r))).norm(), 1e-14);
    EXPECT_LT((body.X_WB0.R * body.w_WB0_B - part.w_WP_W).norm(), 1e-14);
}

TEST(Compile, ComputesMassFromDensityAndGeometry) {
    SceneSpec spec;
    Part part;
    part.id = spec.newId();
    part.name = "rod";
    part.density = 7800.0;
    Shape cyl;
    cyl.type = ShapeType::Cylinder;
    cyl.radius = 0.01;
    cyl.length = 0.5;
    part.shapes.push_back(cyl);
    spec.parts.push_back(part);
    const CompileResult c = compile(spec);
    ASSERT_TRUE(c.model);
    const double m = 7800.0 * kPi * 1e-4 * 0.5;
    EXPECT_NEAR(c.model->bodies[0].mass, m, 1e-12);
    // Principal moments ascending: the axial one (½ m r²) first.
    EXPECT_NEAR(c.model->bodies[0].inertia(0), 0.5 * m * 1e-4, 1e-15);
    EXPECT_NEAR(c.model->bodies[0].inertia(2), m * (3e-4 + 0.25) / 12.0, 1e-12);
}

TEST(Compile, RefusesAnInvalidSpecWithItsDiagnostics) {
    SceneSpec spec = test::chain(1, IntegratorType::RungeKutta4, 1e-3);
    spec.parts[1].mass = -1.0;
    const CompileResult c = compile(spec);
    EXPECT_FALSE(c.model);
    ASSERT_FALSE(c.diagnostics.empty());
    EXPECT_EQ(c.diagnostics[0].where, "/parts/1/mass");
}

TEST(Compile, LaysOutRowsJointByJointThenDrivers) {
    SceneSpec spec = test::chain(3, IntegratorType::RungeKutta4, 1e-3);
    spec.motions.push_back(MotionSpec{.id = spec.newId(),
                                      .name = "drive",
                                      .joint = "j1",
                                      .axis = JointAxis::Rotation,
                                      .level = MotionLevel::Position,
                                      .expression = "time",
                                      .extensions = {}});
    const CompileResult c = compile(spec);
    ASSERT_TRUE(c.model);
    EXPECT_EQ(c.model->jointRows, 15);
    EXPECT_EQ(c.model->constraintRows(), 16);
    EXPECT_EQ(c.model->jointRowOffset, (std::vector<int>{0, 5, 10}));
    EXPECT_EQ(c.model->drivers[0].joint, 1);
    EXPECT_EQ(c.model->joints[0].rowLabels[2], "coincident z");
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

std::vector<Diagnostic> warningsAbout(const CompileResult& r, const std::string& text) {
    std::vector<Diagnostic> found;
    for (const Diagnostic& d : r.diagnostics)
        if (d.severity == Severity::Warning && d.message.find(text) != std::string::npos)
            found.push_back(d);
    return found;
}

// A 1e-9 kg part beside a 1e6 kg part: the joints' equations, weighed by the masses, cannot be
// met when they are that far apart, and the run's failure named neither. Compiling says it,
// naming both parts; an inertia spread as far is said the same way; ordinary scenes say nothing.
TEST(Compile, PartsWhoseMassesOrInertiasAreFarApartAreWarnedAboutNamingBoth) {
    SceneSpec spec = test::chain(2, IntegratorType::RungeKutta4, 1e-3);
    EXPECT_TRUE(warningsAbout(compile(spec), "differ in").empty());

    spec.parts[1].mass = 1e6;
    spec.parts[2].mass = 1e-9;
    const CompileResult masses = compile(spec);
    ASSERT_TRUE(masses.model);
    const auto said = warningsAbout(masses, "differ in mass by 1e+15");
    ASSERT_EQ(said.size(), 1u);
    EXPECT_EQ(said[0].where, "/parts/2");
    EXPECT_NE(said[0].message.find("part '" + spec.parts[2].name + "' (1e-09 kg) and part '" +
                                   spec.parts[1].name + "' (1e+06 kg)"),
              std::string::npos)
        << said[0].message;

    spec.parts[1].mass = spec.parts[2].mass = 1.0;
    spec.parts[2].I_Pcm_P = Mat3::Identity() * 1e-18;  // the others: 8.7e-4 kg·m²
    const auto inertia = warningsAbout(compile(spec), "differ in inertia by");
    ASSERT_EQ(inertia.size(), 1u);
    EXPECT_NE(inertia[0].message.find("part '" + spec.parts[2].name + "'"), std::string::npos);
}

// Free parts are in no joint's equation: a 5e9 kg slab with 1 kg boxes on it (contact alone)
// is not warned about, nor is a heavy free part beside a jointed chain — the chain's own parts,
// far apart, still are.
TEST(Compile, FreePartsFarApartInMassAreNotWarnedAboutJointEquations) {
    SceneSpec pile = test::contactScene();
    Transform slab;
    slab.p = Vec3(0.0, 0.0, 5.0);
    test::addBox(pile, "slab", Vec3(1000.0, 1000.0, 10.0), slab, 5e9);
    for (int k = 0; k < 4; ++k) {
        Transform X;
        X.p = Vec3(0.2 * k, 0.0, 10.06);
        test::addBox(pile, "box" + std::to_string(k), Vec3::Constant(0.1), X, 1e-3);
    }
    const CompileResult free = compile(pile);
    ASSERT_TRUE(free.model);
    EXPECT_TRUE(warningsAbout(free, "differ in").empty());

    SceneSpec spec = test::chain(2, IntegratorType::RungeKutta4, 1e-3);
    Transform away;
    away.p = Vec3(5.0, 0.0, 0.0);
    test::addBox(spec, "anvil", Vec3::Constant(1.0), away, 1e12);
    EXPECT_TRUE(warningsAbout(compile(spec), "differ in").empty());
    spec.parts[1].mass = 1e6;
    spec.parts[2].mass = 1e-9;
    const auto said = warningsAbout(compile(spec), "differ in mass by 1e+15");
    ASSERT_EQ(said.size(), 1u);
    EXPECT_EQ(said[0].message.find("anvil"), std::string::npos) << said[0].message;
}

}  // namespace
}  // namespace engine
