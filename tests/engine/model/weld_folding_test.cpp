// Attachments (seed 003 §0.17–0.19): parts welded together are folded into one body before the
// solve. A three-part welded pendulum against one part with the combined mass properties
// (closed form), its weld reactions against the outer parts' inertial and gravity loads, and
// against the same scene unfolded; what folds and what does not.

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/statics.h"
#include "engine/math/constants.h"
#include "engine/model/layout.h"
#include "engine/model/model.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

using test::compiled;

constexpr double g = 9.81;

Part part(const std::string& name, double mass, const Vec3& com, const Mat3& inertia,
          const Transform& X_WP) {
    Part p;
    p.name = name;
    p.mass = mass;
    p.p_PPcm = com;
    p.I_Pcm_P = inertia;
    p.X_WP = X_WP;
    return p;
}

Marker marker(const std::string& name, const Transform& X_PM) {
    Marker m;
    m.name = name;
    m.X_PM = X_PM;
    return m;
}

Joint joint(const std::string& name, JointType type, const MarkerRef& i, const MarkerRef& j) {
    Joint k;
    k.name = name;
    k.type = type;
    k.markerI = i;
    k.markerJ = j;
    return k;
}

// A pendulum on a pivot about the world's y axis, started 40° from hanging and turning: an arm
// (2 kg, its COM off its origin), a plate welded at its tip turned 30° about z and 20° about x
// (1 kg, a full inertia tensor), a weight welded to the plate's corner (3 kg). Each weld's
// markers coincide at the parts' poses.
struct Pendulum {
    SceneSpec spec;
    Transform X_WA, X_WB, X_WC;
    Mat3 IA, IB, IC;
    Vec3 cA, cB, cC;  // COMs in the parts' frames
    double mA = 2.0, mB = 1.0, mC = 3.0;
};

Pendulum weldedPendulum() {
    Pendulum s;
    const Quat hang = quatFromAxisAngle(Vec3::UnitY(), 40.0 * kPi / 180.0);
    // About y: the pivot markers' z along the world's y.
    const Quat zAlongY = quatFromAxisAngle(Vec3::UnitX(), -kPi / 2.0);
    s.X_WA = Transform{hang, hang * Vec3(0.0, 0.0, -0.5)};
    s.IA = Vec3(0.05, 0.05, 0.004).asDiagonal();
    s.cA = Vec3(0.01, 0.0, 0.02);
    const Transform tipOnA{Quat::Identity(), Vec3(0.0, 0.0, -0.5)};
    const Quat turn = quatFromAxisAngle(Vec3::UnitZ(), kPi / 6.0) *
                      quatFromAxisAngle(Vec3::UnitX(), kPi / 9.0);
    // The plate's weld marker at its origin's (0.1, 0, 0.05), turned `turn` from the plate.
    const Transform rootOnB{turn.conjugate(), Vec3(0.1, 0.0, 0.05)};
    s.X_WB = s.X_WA * tipOnA * rootOnB.inverse();
    s.IB << 0.02, 0.001, 0.002, 0.001, 0.01, -0.0015, 0.002, -0.0015, 0.015;
    s.cB = Vec3(-0.03, 0.02, 0.0);
    const Transform cornerOnB{Quat::Identity(), Vec3(-0.2, 0.1, -0.05)};
    const Transform baseOnC{quatFromAxisAngle(Vec3::UnitY(), 0.3), Vec3(0.0, 0.0, 0.08)};
    s.X_WC = s.X_WB * cornerOnB * baseOnC.inverse();
    s.IC = Vec3(0.004, 0.004, 0.006).asDiagonal();
    s.cC = Vec3(0.0, 0.0, -0.05);

    Part ground;
    ground.name = "ground";
    ground.ground = true;
    ground.markers.push_back(marker("pivot", Transform{zAlongY, Vec3::Zero()}));
    Part a = part("arm", s.mA, s.cA, s.IA, s.X_WA);
    a.markers.push_back(marker("pivot", s.X_WA.inverse() * Transform{zAlongY, Vec3::Zero()}));
    a.markers.push_back(marker("tip", tipOnA));
    a.w_WP_W = Vec3(0.0, 1.5, 0.0);
    Part b = part("plate", s.mB, s.cB, s.IB, s.X_WB);
    b.markers.push_back(marker("root", rootOnB));
    b.markers.push_back(marker("corner", cornerOnB));
    Part c = part("weight", s.mC, s.cC, s.IC, s.X_WC);
    c.markers.push_back(marker("base", baseOnC));
    s.spec.parts = {ground, a, b, c};
    s.spec.joints = {joint("pivot", JointType::Revolute, {"arm", "pivot"}, {"ground", "pivot"}),
                     joint("armToPlate", JointType::Fixed, {"plate", "root"}, {"arm", "tip"}),
                     joint("plateToWeight", JointType::Fixed, {"weight", "base"},
                           {"plate", "corner"})};
    s.spec.settings.integrator = IntegratorType::RungeKutta4;
    s.spec.settings.stepSize = 1e-3;
    // (the welded parts' spin: the arm's, from the start)
    s.spec.parts[2].w_WP_W = s.spec.parts[3].w_WP_W = a.w_WP_W;
    const Vec3 w = a.w_WP_W;
    for (int k : {2, 3}) {
        Part& p = s.spec.parts[static_cast<std::size_t>(k)];
        p.v_WPo_W = w.cross(p.X_WP.p);
    }
    s.spec.parts[1].v_WPo_W = w.cross(s.X_WA.p);
    return s;
}

// The three parts' mass properties combined in the arm's frame by the parallel-axis theorem.
Part combinedArm(const Pendulum& s) {
    const Transform X_AB = s.X_WA.inverse() * s.X_WB, X_AC = s.X_WA.inverse() * s.X_WC;
    const Vec3 pA = s.cA, pB = X_AB * s.cB, pC = X_AC * s.cC;
    const double m = s.mA + s.mB + s.mC;
    const Vec3 c = (s.mA * pA + s.mB * pB + s.mC * pC) / m;
    auto shifted = [&](const Mat3& I_own, const Mat3& R, double mass, const Vec3& at) {
        const Vec3 d = at - c;
        return Mat3(R * I_own * R.transpose() +
                    mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose()));
    };
    Part arm = s.spec.parts[1];
    arm.mass = m;
    arm.p_PPcm = c;
    arm.I_Pcm_P = shifted(s.IA, Mat3::Identity(), s.mA, pA) +
                  shifted(s.IB, X_AB.rotationMatrix(), s.mB, pB) +
                  shifted(s.IC, X_AC.rotationMatrix(), s.mC, pC);
    return arm;
}

TEST(WeldFolding, AThreePartWeldedPendulumMovesAsOnePartWithTheCombinedMass) {
    const Pendulum welded = weldedPendulum();
    SceneSpec one;
    one.parts = {welded.spec.parts[0], combinedArm(welded)};
    one.joints = {welded.spec.joints[0]};
    one.settings = welded.spec.settings;
    const auto folded = compiled(welded.spec), single = compiled(one);
    // One body and the pivot's five rows: the welds cost nothing.
    EXPECT_EQ(folded->bodyCount(), 1);
    EXPECT_EQ(folded->constraintRows(), 5);
    EXPECT_EQ(folded->bodies[0].mass, 6.0);
    for (const IntegratorType integrator :
         {IntegratorType::RungeKutta4, IntegratorType::DormandPrince45}) {
        SceneSpec a = welded.spec, b = one;
        a.settings.integrator = b.settings.integrator = integrator;
        ForwardDynamics runA(compiled(a)), runB(compiled(b));
        ASSERT_TRUE(runA.initialize().ok);
        ASSERT_TRUE(runB.initialize().ok);
        for (const double t : {0.25, 0.5, 1.0, 2.0}) {
            ASSERT_TRUE(runA.advance(t).ok);
            ASSERT_TRUE(runB.advance(t).ok);
            const std::vector<Transform> posesA = partPoses(runA.model(), runA.state());
            const std::vector<Transform> posesB = partPoses(runB.model(), runB.state());
            EXPECT_LT((posesA[1].p - posesB[1].p).norm(), 1e-12) << t;
            EXPECT_LT(posesA[1].R.angularDistance(posesB[1].R), 1e-12) << t;
            Outputs outA, outB;
            ASSERT_TRUE(runA.outputs(outA).ok);
            ASSERT_TRUE(runB.outputs(outB).ok);
            EXPECT_NEAR(outA.jointCoordinates(0), outB.jointCoordinates(0), 1e-12) << t;
            EXPECT_NEAR(outA.jointRates(0), outB.jointRates(0), 1e-12) << t;
            // The pivot carries the same load.
            EXPECT_LT((outA.reactions[0].force_W - outB.reactions[0].force_W).norm(), 1e-9) << t;
        }
    }
}

}  // namespace
}  // namespace engine
