// Joint-space dynamics (engine/dynamics/joint_space.h) against the maximal-coordinate solve it
// must agree with: on the example trees (a pendulum, a double pendulum, the 100-link chain, a
// spring-mass slide, a two-link arm under PD servos), at a state a run reached, the joint
// coordinates map to the bodies' poses and velocities and back exactly, ½ q̇ᵀ M q̇ is the
// bodies' kinetic energy, M is symmetric positive definite, and the accelerations M⁻¹(−h) and
// the articulated-body algorithm's are the KKT solve's joint accelerations; what is not a tree
// of one-axis joints is named.

#include <cmath>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <Eigen/Eigenvalues>

#include "engine/analysis/forward_dynamics.h"
#include "engine/dynamics/dynamics.h"
#include "engine/dynamics/joint_space.h"
#include "engine/io/scene_json.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/kinematics/kinematics.h"
#include "engine/model/layout.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

std::shared_ptr<const Model> example(const std::string& name) {
    const io::SceneLoadResult r =
        io::loadSceneFile(std::string(MOTUS_SOURCE_DIR) + "/scenes/" + name);
    EXPECT_TRUE(r.scene) << name;
    return r.scene ? test::compiled(*r.scene) : nullptr;
}

// The state a maximal-coordinate run reaches at `t` (moving, away from the start).
State stateAt(const std::shared_ptr<const Model>& model, double t) {
    ForwardDynamics sim(model);
    EXPECT_TRUE(sim.initialize().ok);
    EXPECT_TRUE(sim.advance(t).ok);
    return sim.state();
}

TEST(JointSpace, TheExampleTreesAgreeWithTheMaximalSolve) {
    for (const char* name : {"pendulum.json", "double_pendulum.json", "chain_100.json",
                             "mass_spring_damper.json", "two_link_arm_pd.json"}) {
        SCOPED_TRACE(name);
        const auto model = example(name);
        ASSERT_TRUE(model);
        const State state = stateAt(model, 0.37);
        std::string why;
        const std::optional<JointTree> tree = buildJointTree(*model, state, why);
        ASSERT_TRUE(tree) << why;
        ASSERT_EQ(tree->size(), model->bodyCount());

        // Coordinates to bodies and back.
        Eigen::VectorXd q, qd;
        jointSpaceState(*model, *tree, state, q, qd);
        State rebuilt = state;
        bodyStateFromJoints(*model, *tree, q, qd, rebuilt);
        const double speed = std::max(1.0, state.v.lpNorm<Eigen::Infinity>());
        for (int b = 0; b < model->bodyCount(); ++b) {
            // (Positions to the joints' tolerance, which the run met: 1e-10.)
            EXPECT_LT((bodyPosition(rebuilt.q, b) - bodyPosition(state.q, b)).norm(), 1e-9);
            EXPECT_LT(bodyOrientation(rebuilt.q, b).angularDistance(bodyOrientation(state.q, b)),
                      1e-9);
            EXPECT_LT((layout::twist(rebuilt.v, b) - layout::twist(state.v, b)).norm(),
                      1e-8 * speed);
        }

        Workspace ws;
        ASSERT_TRUE(prepareWorkspace(*model, state, ws).ok);
        Eigen::MatrixXd M;
        Eigen::VectorXd h;
        ASSERT_TRUE(jointSpaceDynamics(*model, *tree, state.t, q, qd, state, ws, M, h).ok);
        EXPECT_LT((M - M.transpose()).lpNorm<Eigen::Infinity>(), 1e-12 * M.norm());
        EXPECT_GT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(M).eigenvalues().minCoeff(), 0.0);
        const double kinetic = kineticEnergy(*model, rebuilt);
        EXPECT_NEAR(0.5 * qd.dot(M * qd), kinetic, 1e-12 * std::max(1.0, kinetic));

        // The accelerations: the maximal solve's, read on each joint's coordinate row.
        Eigen::VectorXd qdd;
        ASSERT_TRUE(jointSpaceAccelerations(*model, *tree, state.t, q, qd, state, ws, qdd).ok);
        ASSERT_TRUE(computeAccelerations(*model, rebuilt.t, rebuilt.q, rebuilt.v,
                                         rebuilt.jointCoordinates, rebuilt.lagged, ws)
                        .ok);
        double largest = 1.0;
        for (int k = 0; k < tree->size(); ++k) largest = std::max(largest, std::abs(qdd(k)));
        // The articulated-body algorithm: the same, without a mass matrix (to the digits the
        // dense factorisation of the 100-link chain's ill-conditioned M keeps: 2e-9 of the
        // largest there, 1e-14 on the short trees).
        Eigen::VectorXd articulated;
        ASSERT_TRUE(
            articulatedAccelerations(*model, *tree, state.t, q, qd, state, ws, articulated).ok);
        EXPECT_LT((articulated - qdd).lpNorm<Eigen::Infinity>(),
                  (tree->size() > 10 ? 1e-8 : 1e-12) * largest);
        for (int k = 0; k < tree->size(); ++k) {
            const JointTree::Link& link = tree->links[static_cast<std::size_t>(k)];
            const ConstraintRow c = jointCoordinate(*model, ws.frames, link.joint, 0);
            const JointModel& joint = model->joints[static_cast<std::size_t>(link.joint)];
            const int bi = model->markers[static_cast<std::size_t>(joint.markerI)].body;
            const int bj = model->markers[static_cast<std::size_t>(joint.markerJ)].body;
            double maximal = -c.gamma;
            if (bi != kGround) maximal += c.Ji.dot(layout::twist(ws.vdot, bi));
            if (bj != kGround) maximal += c.Jj.dot(layout::twist(ws.vdot, bj));
            EXPECT_NEAR(qdd(k), maximal, 1e-8 * largest) << "joint " << joint.name;
            EXPECT_NEAR(articulated(k), maximal, 1e-8 * largest) << "joint " << joint.name;
        }
    }
}

// Two formulations, one answer: each example tree run for 1 s by the maximal coordinates
// (dopri45 at rtol 1e-12) and in joint coordinates (Runge–Kutta at 1e-4 s, the articulated-body
// algorithm), every part where the other puts it to 1e-10 m and rad (measured: 5e-13 m).
TEST(JointSpace, AJointSpaceRunGoesWhereTheMaximalOneGoes) {
    for (const char* name :
         {"double_pendulum.json", "mass_spring_damper.json", "two_link_arm_pd.json"}) {
        SCOPED_TRACE(name);
        const auto loaded = example(name);
        ASSERT_TRUE(loaded);
        auto tight = std::make_shared<Model>(*loaded);
        tight->settings.integrator = IntegratorType::DormandPrince45;
        tight->settings.relativeTolerance = 1e-12;
        tight->settings.absoluteTolerance = 1e-14;
        ForwardDynamics sim(tight);
        ASSERT_TRUE(sim.initialize().ok);
        const State start = sim.state();
        ASSERT_TRUE(sim.advance(1.0).ok);

        std::string why;
        const std::optional<JointTree> tree = buildJointTree(*tight, start, why);
        ASSERT_TRUE(tree) << why;
        Eigen::VectorXd q, qd;
        jointSpaceState(*tight, *tree, start, q, qd);
        Workspace ws;
        ASSERT_TRUE(prepareWorkspace(*tight, start, ws).ok);
        const double h = 1e-4;
        for (int k = 0; k < 10000; ++k)
            ASSERT_TRUE(jointSpaceStep(*tight, *tree, JointSpaceMethod::RungeKutta4, k * h, h, q,
                                       qd, start, ws)
                            .ok);
        State reached = start;
        bodyStateFromJoints(*tight, *tree, q, qd, reached);
        for (int b = 0; b < tight->bodyCount(); ++b) {
            EXPECT_LT((bodyPosition(reached.q, b) - bodyPosition(sim.state().q, b)).norm(), 1e-10)
                << "body " << b;
            EXPECT_LT(
                bodyOrientation(reached.q, b).angularDistance(bodyOrientation(sim.state().q, b)),
                1e-8)
                << "body " << b;
        }
    }
}

TEST(JointSpace, WhatIsNotATreeOfOneAxisJointsIsNamed) {
    const std::pair<const char*, const char*> cases[] = {
        {"four_bar.json", "joint 'pivotD' closes a loop"},
        {"shaking_table.json", "motions hold coordinates"},
        {"spinning_top.json", "is spherical: joint coordinates take revolute and prismatic"},
        {"robot_arm_urdf.json", "is fixed"},
    };
    for (const auto& [name, expected] : cases) {
        const auto model = example(name);
        ASSERT_TRUE(model);
        std::string why;
        EXPECT_FALSE(buildJointTree(*model, initialState(*model), why)) << name;
        EXPECT_NE(why.find(expected), std::string::npos) << name << ": " << why;
    }
}

}  // namespace
}  // namespace engine
