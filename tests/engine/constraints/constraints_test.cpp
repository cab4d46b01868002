// Every constraint primitive and joint: the Jacobian against central finite differences,
// the rate Φ̇ = Φq v, and γ against a numerical second derivative along a motion with
// constant body velocities (so v̇ = 0 and Φ̈ = −γ).

#include "engine/constraints/constraints.h"

#include <random>

#include <gtest/gtest.h>

#include "engine/kinematics/joint_coordinates.h"
#include "engine/model/layout.h"
#include "engine/model/model.h"
#include "engine/state/state.h"
#include "tests/support/body_motion.h"

namespace engine {
namespace {

Vec3 randomVec(std::mt19937& rng, double scale) {
    std::uniform_real_distribution<double> u(-scale, scale);
    return {u(rng), u(rng), u(rng)};
}

Quat randomQuat(std::mt19937& rng) {
    std::normal_distribution<double> n;
    return Quat(n(rng), n(rng), n(rng), n(rng)).normalized();
}

// Two parts "a" and "b" (or ground and "b") with randomly placed markers, one joint I on a, J on b.
SceneSpec twoBodyScene(JointType type, bool groundI, std::mt19937& rng) {
    SceneSpec spec;
    for (const char* name : {"a", "b"}) {
        Part part;
        part.id = spec.newId();
        part.name = name;
        part.ground = groundI && part.name == "a";
        part.mass = 2.0;
        part.I_Pcm_P = Vec3(0.3, 0.4, 0.5).asDiagonal();
        part.p_PPcm = randomVec(rng, 0.1);
        part.X_WP = {randomQuat(rng), randomVec(rng, 0.5)};
        Marker m;
        m.id = spec.newId();
        m.name = "m";
        m.X_PM = {randomQuat(rng), randomVec(rng, 0.3)};
        part.markers.push_back(m);
        spec.parts.push_back(part);
    }
    Joint joint;
    joint.id = spec.newId();
    joint.name = "j";
    joint.type = type;
    joint.markerI = {"a", "m"};
    joint.markerJ = {"b", "m"};
    joint.length = 0.37;
    spec.joints.push_back(joint);
    return spec;
}

using test::moved;
using test::perturb;

Eigen::VectorXd evaluatePhi(const Model& model, double t, const Eigen::VectorXd& q,
                            const Eigen::VectorXd& v) {
    std::vector<BodyFrame> frames;
    computeBodyFrames(model, q, v, frames);
    ConstraintEvaluation e;
    evaluateConstraints(model, t, frames, e);
    return e.Phi;
}

void checkJacobianRateAndGamma(const Model& model, const State& s, const std::string& what) {
    std::vector<BodyFrame> frames;
    computeBodyFrames(model, s.q, s.v, frames);
    ConstraintEvaluation e;
    evaluateConstraints(model, s.t, frames, e);
    const Eigen::MatrixXd J = Eigen::MatrixXd(e.Phi_q);

    // Jacobian, column by column.
    const double eps = 1e-6;
    for (int b = 0; b < model.bodyCount(); ++b) {
        for (int c = 0; c < 6; ++c) {
            Eigen::VectorXd qp = s.q, qm = s.q;
            perturb(qp, b, c, eps);
            perturb(qm, b, c, -eps);
            const Eigen::VectorXd fd =
                (evaluatePhi(model, s.t, qp, s.v) - evaluatePhi(model, s.t, qm, s.v)) / (2 * eps);
            EXPECT_LT((fd - J.col(layout::velocityIndex(b) + c)).cwiseAbs().maxCoeff(), 1e-7)
                << what << ": column " << layout::velocityIndex(b) + c << "\nfd " << fd.transpose()
                << "\nJ  " << J.col(layout::velocityIndex(b) + c).transpose();
        }
    }
    // Rate and γ along the constant-velocity motion.
    const double h = 1e-4;
    const Eigen::VectorXd p0 = evaluatePhi(model, s.t, s.q, s.v);
    const Eigen::VectorXd pp = evaluatePhi(model, s.t, moved(model, s, h), s.v);
    const Eigen::VectorXd pm = evaluatePhi(model, s.t, moved(model, s, -h), s.v);
    const Eigen::VectorXd rate = (pp - pm) / (2 * h);
    const Eigen::VectorXd accel = (pp - 2 * p0 + pm) / (h * h);
    EXPECT_LT((rate - J * s.v).cwiseAbs().maxCoeff(), 1e-6) << what << " rate";
    EXPECT_LT((accel + e.gamma).cwiseAbs().maxCoeff(), 2e-5)
        << what << " gamma\nΦ̈ " << accel.transpose() << "\n−γ " << -e.gamma.transpose();
}

const JointType kAllJoints[] = {
    JointType::Fixed,        JointType::Revolute,     JointType::Prismatic,
    JointType::Cylindrical,  JointType::Spherical,    JointType::Universal,
    JointType::Planar,       JointType::Distance,     JointType::PointOnLine,
    JointType::PointOnPlane, JointType::ParallelAxes, JointType::PerpendicularAxes,
};

TEST(Constraints, EveryJointMatchesFiniteDifferencesBetweenTwoMovingBodies) {
    std::mt19937 rng(7);
    for (JointType type : kAllJoints) {
        for (int trial = 0; trial < 3; ++trial) {
            const CompileResult c = compile(twoBodyScene(type, false, rng));
            ASSERT_TRUE(c.model) << jointTypeName(type);
            State s = initialState(*c.model);
            s.v = Eigen::VectorXd::Random(s.v.size()) * 2.0;
            checkJacobianRateAndGamma(*c.model, s, std::string(jointTypeName(type)));
        }
    }
}

TEST(Constraints, EveryJointMatchesFiniteDifferencesAgainstGround) {
    std::mt19937 rng(11);
    for (JointType type : kAllJoints) {
        const CompileResult c = compile(twoBodyScene(type, true, rng));
        ASSERT_TRUE(c.model);
        ASSERT_EQ(c.model->bodyCount(), 1);
        State s = initialState(*c.model);
        s.v = Eigen::VectorXd::Random(s.v.size()) * 2.0;
        checkJacobianRateAndGamma(*c.model, s, std::string(jointTypeName(type)) + " (I on ground)");
    }
}

TEST(Constraints, JointsHaveTheRowCountsOfSeed001) {
    const std::pair<JointType, int> expected[] = {
        {JointType::Fixed, 6},        {JointType::Revolute, 5},
        {JointType::Prismatic, 5},    {JointType::Cylindrical, 4},
        {JointType::Spherical, 3},    {JointType::Universal, 4},
        {JointType::Planar, 3},       {JointType::Distance, 1},
        {JointType::PointOnLine, 2},  {JointType::PointOnPlane, 1},
        {JointType::ParallelAxes, 2}, {JointType::PerpendicularAxes, 1},
    };
    for (const auto& [type, rows] : expected) {
        int n = 0;
        for (const Primitive& p : jointPrimitives(type, 1.0)) n += p.rows();
        EXPECT_EQ(n, rows) << jointTypeName(type);
    }
}

// A revolute-aligned pair: markers coincide with z axes aligned, I turned by `angle` about z_J.
SceneSpec alignedPair(JointType type, double angle, std::mt19937& rng) {
    SceneSpec spec = twoBodyScene(type, false, rng);
    Part& a = spec.parts[0];
    const Part& b = spec.parts[1];
    const Transform X_WJ = b.X_WP * b.markers[0].X_PM;
    Transform X_JI;
    X_JI.R = quatFromAxisAngle(Vec3::UnitZ(), angle);
    X_JI.p = type == JointType::Revolute ? Vec3::Zero() : Vec3(0, 0, 0.123);
    // X_WP(a) = X_WI · X_PI⁻¹
    a.X_WP = X_WJ * X_JI * a.markers[0].X_PM.inverse();
    return spec;
}

TEST(JointCoordinates, AngleAndSlideMatchTheirGeometryAndDerivatives) {
    std::mt19937 rng(3);
    for (JointType type : {JointType::Revolute, JointType::Cylindrical}) {
        const double angle = 2.5;  // beyond π/2 to exercise atan2
        const CompileResult c = compile(alignedPair(type, angle, rng));
        ASSERT_TRUE(c.model);
        const Model& model = *c.model;
        State s = initialState(model);
        std::vector<BodyFrame> frames;
        computeBodyFrames(model, s.q, s.v, frames);
        EXPECT_NEAR(jointCoordinate(model, frames, 0, 0).value, angle, 1e-12);
        if (type == JointType::Cylindrical) {
            EXPECT_NEAR(jointCoordinate(model, frames, 0, 1).value, 0.123, 1e-12);
        }

        // Jacobian of each coordinate against finite differences in all 12 directions.
        for (int coordinate = 0; coordinate < static_cast<int>(model.joints[0].coordinates.size());
             ++coordinate) {
            const ConstraintRow row = jointCoordinate(model, frames, 0, coordinate);
            for (int b = 0; b < 2; ++b)
                for (int k = 0; k < 6; ++k) {
                    Eigen::VectorXd qp = s.q, qm = s.q;
                    perturb(qp, b, k, 1e-6);
                    perturb(qm, b, k, -1e-6);
                    std::vector<BodyFrame> fp, fm;
                    computeBodyFrames(model, qp, s.v, fp);
                    computeBodyFrames(model, qm, s.v, fm);
                    const double fd = (jointCoordinate(model, fp, 0, coordinate).value -
                                       jointCoordinate(model, fm, 0, coordinate).value) /
                                      2e-6;
                    const double analytic = b == 0 ? row.Ji(k) : row.Jj(k);
                    EXPECT_NEAR(fd, analytic, 1e-7)
                        << jointTypeName(type) << " coordinate " << coordinate << " body " << b
                        << " direction " << k;
                }
        }
    }
}

TEST(JointCoordinates, AngleSecondDerivativeMatchesGammaForARelativeSpin) {
    std::mt19937 rng(5);
    const CompileResult c = compile(alignedPair(JointType::Revolute, 0.4, rng));
    ASSERT_TRUE(c.model);
    const Model& model = *c.model;
    State s = initialState(model);
    std::vector<BodyFrame> frames;
    computeBodyFrames(model, s.q, s.v, frames);
    // Body b tumbles; body a follows it plus a spin about the joint axis (so the axes stay
    // aligned to first order): ω_a = ω_b + 3 z_J, and the origins move consistently.
    const Vec3 wb = Vec3(0.7, -1.1, 0.4);
    const Vec3 zJ = markerFrame(model, frames, 1).R.col(2);
    const Vec3 wa = wb + 3.0 * zJ;
    const Vec3 vb = Vec3(0.2, 0.1, -0.3);
    const Vec3 pJ = markerFrame(model, frames, 1).p;
    // Marker origins coincide and move together: v_a + ω_a × (P − r_a) = v_b + ω_b × (P − r_b).
    const Vec3 vP = vb + wb.cross(pJ - frames[1].r);
    const Vec3 va = vP - wa.cross(pJ - frames[0].r);
    s.v << va, frames[0].R.transpose() * wa, vb, frames[1].R.transpose() * wb;

    const double h = 1e-4;
    auto angleAt = [&](double t) {
        std::vector<BodyFrame> f;
        computeBodyFrames(model, moved(model, s, t), s.v, f);
        return jointCoordinate(model, f, 0, 0).value;
    };
    computeBodyFrames(model, s.q, s.v, frames);
    const ConstraintRow row = jointCoordinate(model, frames, 0, 0);
    EXPECT_NEAR((angleAt(h) - angleAt(-h)) / (2 * h), 3.0, 1e-7);
    EXPECT_NEAR(row.rate, 3.0, 1e-12);
    // With v̇ = 0 in body coordinates the second derivative is −γ.
    EXPECT_NEAR((angleAt(h) - 2 * angleAt(0) + angleAt(-h)) / (h * h), -row.gamma, 1e-5);
}

}  // namespace
}  // namespace engine
