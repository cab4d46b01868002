// Motus against published MSC ADAMS results (tests/reference/adams): a 1 kg, 4 m pendulum,
// centroidal inertia (0.04, 0.1, 0.1) kg·m² (small about its long axis), released at rest on
// one joint. Compared as root-mean-square differences over the 501 samples. The bounds are
// those of the reference itself (six significant digits, and ADAMS's own error against the
// exact solution), 20 to 100 times tighter than the tolerances Project Chrono uses against
// the same data.

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "tests/support/mechanisms.h"

namespace engine {
namespace {

using Series = std::vector<Eigen::Vector4d>;  // t, x, y, z

Series readAdams(const std::string& name) {
    std::ifstream in(MOTUS_SOURCE_DIR "/tests/reference/adams/" + name);
    Series rows;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#' || line[0] == 'T') continue;
        std::istringstream fields(line);
        Eigen::Vector4d r;
        fields >> r(0) >> r(1) >> r(2) >> r(3);
        if (fields) rows.push_back(r);
    }
    return rows;
}

// Pendulum along +x from a joint at p_joint, the joint axis (marker z) along `axis`.
SceneSpec pendulum(JointType type, const Vec3& p_joint, const Vec3& axis) {
    SceneSpec spec;
    spec.gravity = Vec3(0, 0, -9.80665);
    spec.settings.integrator = IntegratorType::DormandPrince45;
    spec.settings.stepSize = 0.01;
    spec.settings.relativeTolerance = 1e-10;
    spec.settings.absoluteTolerance = 1e-12;
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "joint", p_joint, axis);
    spec.parts.push_back(ground);
    Part body;
    body.id = spec.newId();
    body.name = "pendulum";
    body.mass = 1.0;
    body.I_Pcm_P = Vec3(0.04, 0.1, 0.1).asDiagonal();
    body.X_WP.p = p_joint + Vec3(2, 0, 0);
    test::addMarker(spec, body, "joint", Vec3(-2, 0, 0), axis);
    spec.parts.push_back(body);
    spec.joints.push_back(test::joint(spec, "joint", type, "pendulum.joint", "ground.joint"));
    return spec;
}

struct History {
    Series com, forceOnGround, torqueOnGround;
};

History simulate(const SceneSpec& spec) {
    const CompileResult c = compile(spec);
    EXPECT_TRUE(c.model);
    ForwardDynamics sim(c.model);
    EXPECT_TRUE(sim.initialize().ok);
    History run;
    for (int k = 0; k <= 500; ++k) {
        const double t = 0.01 * k;
        if (k > 0) {
            EXPECT_TRUE(sim.advance(t).ok);
        }
        Outputs out;
        EXPECT_TRUE(sim.outputs(out).ok);
        const Vec3 r = bodyPosition(sim.state().q, 0);
        run.com.push_back({t, r.x(), r.y(), r.z()});
        // Motus reports what the ground exerts on the pendulum at its marker; ADAMS what the
        // pendulum exerts on the ground at the same point.
        const Vec3 F = -out.reactions[0].force_W, T = -out.reactions[0].torque_W;
        run.forceOnGround.push_back({t, F.x(), F.y(), F.z()});
        run.torqueOnGround.push_back({t, T.x(), T.y(), T.z()});
    }
    return run;
}

// Largest per-column RMS difference (x, y, z) between two series on the same times.
double rms(const Series& motus, const Series& adams) {
    EXPECT_EQ(motus.size(), adams.size());
    Eigen::Vector3d sum = Eigen::Vector3d::Zero();
    const std::size_t n = std::min(motus.size(), adams.size());
    for (std::size_t k = 0; k < n; ++k) {
        EXPECT_NEAR(motus[k](0), adams[k](0), 1e-9);
        sum += (motus[k].tail<3>() - adams[k].tail<3>()).cwiseAbs2();
    }
    return (sum / static_cast<double>(n)).cwiseSqrt().maxCoeff();
}

TEST(AdamsReference, RevoluteAboutGlobalY) {
    const History run = simulate(pendulum(JointType::Revolute, Vec3::Zero(), Vec3::UnitY()));
    EXPECT_LT(rms(run.com, readAdams("Revolute_Case01_ADAMS_Pos.txt")), 1e-5);  // Chrono: 1e-3
    EXPECT_LT(rms(run.forceOnGround, readAdams("Revolute_Case01_ADAMS_Rforce.txt")),
              3e-4);  // Chrono: 2e-2
}

TEST(AdamsReference, RevoluteAboutASkewAxisCarriesBendingMoments) {
    const Vec3 axis = Vec3(0, 1, 1).normalized();
    const History run = simulate(pendulum(JointType::Revolute, Vec3(1, 2, 3), axis));
    EXPECT_LT(rms(run.com, readAdams("Revolute_Case02_ADAMS_Pos.txt")), 1e-5);
    EXPECT_LT(rms(run.forceOnGround, readAdams("Revolute_Case02_ADAMS_Rforce.txt")),
              5e-4);  // Chrono: 2e-2
    EXPECT_LT(rms(run.torqueOnGround, readAdams("Revolute_Case02_ADAMS_Rtorque.txt")),
              5e-4);  // Chrono: 1e-2
}

TEST(AdamsReference, SphericalPendulumInAPlane) {
    // The ADAMS spherical run itself drifts by 6e-4 m by t = 5 s (see the data's notes), so
    // this comparison is bounded by ADAMS's error, not Motus's.
    const History run = simulate(pendulum(JointType::Spherical, Vec3::Zero(), Vec3::UnitZ()));
    EXPECT_LT(rms(run.com, readAdams("Spherical_Case01_ADAMS_Pos.txt")), 2e-3);  // Chrono: 2e-3
    EXPECT_LT(rms(run.forceOnGround, readAdams("Spherical_Case01_ADAMS_Rforce.txt")), 2e-2);
}

TEST(AdamsReference, PrismaticFreeFallAlongItsGuide) {
    const History run = simulate(pendulum(JointType::Prismatic, Vec3::Zero(), Vec3::UnitZ()));
    // Positions reach 122 m, printed to six digits: the reference rounds to ~5e-4 m.
    EXPECT_LT(rms(run.com, readAdams("Prismatic_Case01_ADAMS_Pos.txt")), 5e-4);  // Chrono: 1e-2
    // Against the exact free fall z = −g t²/2, Motus is exact to round-off.
    for (const auto& p : run.com)
        EXPECT_NEAR(p(3), -0.5 * 9.80665 * p(0) * p(0), 1e-9 * (1 + p(0) * p(0)));
    for (const auto& f : run.forceOnGround) EXPECT_LT(f.tail<3>().norm(), 1e-9);
}

}  // namespace
}  // namespace engine
