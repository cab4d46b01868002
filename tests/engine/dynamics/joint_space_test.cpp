// Joint-space dynamics (engine/dynamics/joint_space.h) against the maximal-coordinate solve it
// must agree with: on the example trees (a pendulum, a double pendulum, the 100-link chain, a
// spring-mass slide, a two-link arm under PD servos), at a state a run reached, the joint
// coordinates map to the bodies' poses and velocities and back exactly, ½ q̇ᵀ M q̇ is the
// bodies' kinetic energy, M is symmetric positive definite, and the accelerations M⁻¹(−h) and
// the articulated-body algorithm's are the KKT solve's joint accelerations; what is not a tree
// of one-axis joints is named.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <Eigen/Eigenvalues>

#include "engine/analysis/forward_dynamics.h"
#include "engine/constraints/constraints.h"
#include "engine/dynamics/dynamics.h"
#include "engine/dynamics/joint_space.h"
#include "engine/integrators/integrator.h"
#include "engine/io/scene_json.h"
#include "engine/io/scene_overrides.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/kinematics/kinematics.h"
#include "engine/math/constants.h"
#include "engine/model/layout.h"
#include "engine/record/recording.h"
#include "tests/support/formulation_agreement.h"
#include "tests/support/scene_builders.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

// The state a maximal-coordinate run reaches at `t` (moving, away from the start).
State stateAt(const std::shared_ptr<const Model>& loaded, double t) {
    auto model = std::make_shared<Model>(*loaded);
    model->settings.formulation = Formulation::Maximal;
    ForwardDynamics sim(model);
    EXPECT_TRUE(sim.initialize().ok);
    EXPECT_TRUE(sim.advance(t).ok);
    return sim.state();
}

// The joint tree of `model` at `state`; the reason it cannot be built is a test failure.
std::optional<JointTree> treeAt(const Model& model, const State& state) {
    std::string why;
    std::optional<JointTree> tree = buildJointTree(model, state, why);
    EXPECT_TRUE(tree) << why;
    return tree;
}

// The second derivative of a joint's first coordinate in the maximal solve's accelerations
// (ws.vdot, with the frames of its state).
double maximalCoordinateAcceleration(const Model& model, const Workspace& ws, int j) {
    const ConstraintRow c = jointCoordinate(model, ws.frames, j, 0);
    const JointModel& joint = model.joints[static_cast<std::size_t>(j)];
    const int bi = model.markers[static_cast<std::size_t>(joint.markerI)].body;
    const int bj = model.markers[static_cast<std::size_t>(joint.markerJ)].body;
    double maximal = -c.gamma;
    if (bi != kGround) maximal += c.Ji.dot(layout::twist(ws.vdot, bi));
    if (bj != kGround) maximal += c.Jj.dot(layout::twist(ws.vdot, bj));
    return maximal;
}

TEST(JointSpace, TheExampleTreesAgreeWithTheMaximalSolve) {
    for (const char* name : {"pendulum.json", "double_pendulum.json", "chain_100.json",
                             "mass_spring_damper.json", "two_link_arm_pd.json"}) {
        SCOPED_TRACE(name);
        const auto model = test::exampleModel(name);
        ASSERT_TRUE(model);
        const State state = stateAt(model, 0.37);
        const std::optional<JointTree> tree = treeAt(*model, state);
        ASSERT_TRUE(tree);
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
        for (int k = 0; k < tree->nv; ++k) largest = std::max(largest, std::abs(qdd(k)));
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
            const JointModel& joint = model->joints[static_cast<std::size_t>(link.joint)];
            const double maximal = maximalCoordinateAcceleration(*model, ws, link.joint);
            EXPECT_NEAR(qdd(link.iv), maximal, 1e-8 * largest) << "joint " << joint.name;
            EXPECT_NEAR(articulated(link.iv), maximal, 1e-8 * largest) << "joint " << joint.name;
        }
    }
}

// A copy of `loaded` asking for `formulation` and `integrator`, tight (rtol 1e-12).
std::shared_ptr<Model> variant(const Model& loaded, Formulation formulation,
                               IntegratorType integrator, double stepSize = 1e-4) {
    auto model = std::make_shared<Model>(loaded);
    model->settings.formulation = formulation;
    model->settings.integrator = integrator;
    model->settings.stepSize = stepSize;
    model->settings.relativeTolerance = 1e-12;
    model->settings.absoluteTolerance = 1e-14;
    return model;
}

// `model` run in both formulations (dopri45 at rtol 1e-12) and compared every 0.1 s over 1 s.
// (Call under ASSERT_NO_FATAL_FAILURE.)
void followBothOverOneSecond(const std::shared_ptr<const Model>& model,
                             test::FormulationAgreement& apart) {
    ForwardDynamics recursive(
        variant(*model, Formulation::Recursive, IntegratorType::DormandPrince45));
    ForwardDynamics maximal(variant(*model, Formulation::Maximal, IntegratorType::DormandPrince45));
    ASSERT_EQ(recursive.formulation().formulation, Formulation::Recursive)
        << recursive.formulation().reason;
    ASSERT_TRUE(recursive.initialize().ok);
    ASSERT_TRUE(maximal.initialize().ok);
    for (int k = 1; k <= 10; ++k)
        ASSERT_NO_FATAL_FAILURE(apart.follow(*model, recursive, maximal, 0.1 * k));
}

// Soft joints in joint coordinates: their soft equations pull as forces (as the smooth
// integrators take them in maximal coordinates), their exact ones, if any, close a loop. The
// double pendulum hung from a soft pin — its point gap held by 2e4 N/m and 20 N·s/m, its axis
// exact — and the engine on its four rubber mounts (every equation soft: a free part with a
// shaft on it) go where the maximal runs go, with the soft joints' reactions.
TEST(JointSpace, SoftJointsPullAsInMaximalCoordinates) {
    io::SceneLoadResult loaded =
        io::loadSceneFile(std::string(MOTUS_SOURCE_DIR) + "/scenes/double_pendulum.json");
    ASSERT_TRUE(loaded.scene);
    loaded.scene->joints.at(0).compliance.stiffness = 2e4;  // the shoulder
    loaded.scene->joints.at(0).compliance.damping = 20.0;
    const std::shared_ptr<const Model> pendulum = test::compiled(*loaded.scene);
    ASSERT_TRUE(pendulum);
    ASSERT_GT(pendulum->softRows, 0);
    ASSERT_GT(pendulum->joints[0].rows, 0);  // (the axis: exact)
    const auto mount = test::exampleModel("engine_mount.json");
    ASSERT_TRUE(mount);
    for (const auto& model : {pendulum, mount}) {
        test::FormulationAgreement apart;
        ASSERT_NO_FATAL_FAILURE(followBothOverOneSecond(model, apart));
        apart.expectWithin();
        EXPECT_GT(apart.largestReaction, 1.0);
        std::printf("soft joints (%s): positions within %.2g, reactions within %.2g of %.3g\n",
                    model->name.c_str(), apart.position, apart.reaction, apart.largestReaction);
    }
    // timeStepping holds them implicitly in joint coordinates too (the mounts:
    // joint_space_contact_test.cpp). The soft pin's exact axis closes a loop: its rows are kept
    // at the velocity level through the implicit change, and the pendulum swings as accurately
    // as the maximal step swings it, at first order (from a step 20 times finer).
    const FormulationChoice stepping = chooseFormulation(
        *variant(*mount, Formulation::Recursive, IntegratorType::TimeStepping, 1e-3));
    EXPECT_EQ(stepping.formulation, Formulation::Recursive) << stepping.reason;
    auto swing = [&](Formulation formulation, double h) {
        ForwardDynamics sim(variant(*pendulum, formulation, IntegratorType::TimeStepping, h));
        EXPECT_EQ(sim.formulation().formulation, formulation) << sim.formulation().reason;
        EXPECT_TRUE(sim.initialize().ok);
        std::vector<Eigen::VectorXd> poses;
        for (int k = 1; k <= 10; ++k) {
            const Status st = sim.advance(0.1 * k);
            EXPECT_TRUE(st.ok) << st.message;
            poses.push_back(sim.state().q);
        }
        return poses;
    };
    auto apart = [](const std::vector<Eigen::VectorXd>& a, const std::vector<Eigen::VectorXd>& b) {
        double d = 0.0;
        for (std::size_t k = 0; k < a.size(); ++k)
            d = std::max(d, (a[k] - b[k]).cwiseAbs().maxCoeff());
        return d;
    };
    const auto recursive = swing(Formulation::Recursive, 1e-3),
               halved = swing(Formulation::Recursive, 5e-4),
               maximal = swing(Formulation::Maximal, 1e-3),
               fine = swing(Formulation::Maximal, 5e-5);
    const double recursiveError = apart(recursive, fine), halvedError = apart(halved, fine),
                 maximalError = apart(maximal, fine);
    std::printf(
        "soft pin under timeStepping: from 0.05 ms, %.2g at 1 ms (maximal %.2g), %.2g at 0.5 "
        "ms\n",
        recursiveError, maximalError, halvedError);
    EXPECT_LT(recursiveError, 1.5 * maximalError);
    EXPECT_NEAR(halvedError / recursiveError, 0.5, 0.1);
}

// The fixed-step method in joint coordinates: each example tree and closed mechanism run for
// 2 s by rk4 at 1e-4 s in joint coordinates puts every part where the maximal coordinates'
// dopri45 at rtol 1e-12 puts it, to 1e-8 m and rad, with every joint's reaction, the motions'
// and servos' efforts and work to 1e-8 of the largest (dopri45 in both: formulations_test.cpp,
// over every scene). Measured: positions within 1.3e-11 but on the shaking table, 4.8e-10 (the
// maximal run holds its motion's rows to the projection tolerance, 1e-10); reactions within
// 4.6e-8 N of 21 N.
TEST(JointSpace, AFixedStepRunInJointCoordinatesGoesWhereTheMaximalOneGoes) {
    for (const char* name :
         {"pendulum.json", "double_pendulum.json", "mass_spring_damper.json",
          "two_link_arm_pd.json", "robot_arm_urdf.json", "shaking_table.json", "bead_on_hoop.json",
          "two_link_arm_computed_torque.json", "robot_arm_pick_and_place.json", "four_bar.json",
          "slider_crank.json", "quick_return.json", "dc_motor_crank.json", "spinning_top.json",
          "rssr_linkage.json", "benchmarks/spatial_slider_crank.json", "slider_crank.json",
          "quick_return.json", "rssr_linkage.json"}) {
        SCOPED_TRACE(name);
        const auto loaded = test::exampleModel(name);
        ASSERT_TRUE(loaded);
        ForwardDynamics maximal(
            variant(*loaded, Formulation::Maximal, IntegratorType::DormandPrince45));
        ForwardDynamics recursive(
            variant(*loaded, Formulation::Recursive, IntegratorType::RungeKutta4));
        ASSERT_EQ(recursive.formulation().formulation, Formulation::Recursive)
            << recursive.formulation().reason;
        ASSERT_TRUE(recursive.initialize().ok);
        ASSERT_TRUE(maximal.initialize().ok);
        test::FormulationAgreement apart;
        for (int k = 1; k <= 20; ++k)
            ASSERT_NO_FATAL_FAILURE(apart.follow(*loaded, recursive, maximal, 0.1 * k));
        apart.expectWithin();
        std::printf(
            "%s, rk4: positions within %.2g, reactions within %.2g of %.3g, the motions' work "
            "within %.2g of %.3g J, efforts within %.2g of %.3g\n",
            name, apart.position, apart.reaction, apart.largestReaction, apart.work,
            apart.largestWork, apart.effort, apart.largestEffort);
    }
}

// A run in joint coordinates goes on from any frame exactly as it went: from a state between
// two of dopri45's steps (its step origin kept in the parts' coordinates) and from a fixed
// step's end, bit for bit.
TEST(JointSpace, AResumedRunGoesOnBitForBit) {
    const auto loaded = test::exampleModel("double_pendulum.json");
    ASSERT_TRUE(loaded);
    for (IntegratorType integrator : {IntegratorType::DormandPrince45, IntegratorType::RungeKutta4,
                                      IntegratorType::SymplecticEuler}) {
        SCOPED_TRACE(integratorName(integrator));
        auto model = variant(*loaded, Formulation::Recursive, integrator, 1e-3);
        model->settings.relativeTolerance = 1e-10;
        ForwardDynamics whole(model);
        ASSERT_TRUE(whole.initialize().ok);
        ASSERT_TRUE(whole.advance(0.5).ok);
        const State middle = whole.state();
        ASSERT_TRUE(whole.advance(1.0).ok);
        ForwardDynamics resumed(model);
        ASSERT_TRUE(resumed.resume(middle).ok);
        ASSERT_TRUE(resumed.advance(1.0).ok);
        EXPECT_EQ(resumed.state().q, whole.state().q);
        EXPECT_EQ(resumed.state().v, whole.state().v);
        if (integrator == IntegratorType::DormandPrince45) {
            EXPECT_GT(middle.stepOrigin.size(), 0) << "0.5 s fell on a step's end";
        }
    }
}

// With one joint the mass matrix is a constant, and the semi-implicit Euler of joint
// coordinates is symplectic: the pendulum's energy error stays bounded (oscillating, O(h)) over
// 200 s (about 100 periods) instead of drifting: its largest over the last 100 s is no larger
// than over the first 100 s. (With a mass matrix that depends on q — a double pendulum — it is
// not, which is why auto keeps maximal coordinates for symplecticEuler: integrator.cpp.)
TEST(JointSpace, ThePendulumsEnergyStaysBoundedWithJointSpaceSymplecticEuler) {
    const auto loaded = test::exampleModel("pendulum.json");
    ASSERT_TRUE(loaded);
    auto model = variant(*loaded, Formulation::Recursive, IntegratorType::SymplecticEuler, 1e-3);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    const double e0 = out.energies.total();
    double exchanged = 0.0, firstHalf = 0.0, secondHalf = 0.0;
    for (int k = 1; k <= 2000; ++k) {
        ASSERT_TRUE(sim.advance(0.1 * k).ok);
        ASSERT_TRUE(sim.outputs(out).ok);
        exchanged = std::max(exchanged, out.energies.kinetic);
        double& worst = k <= 1000 ? firstHalf : secondHalf;
        worst = std::max(worst, std::abs(out.energies.total() - e0));
    }
    std::printf("energy error %.3g J, then %.3g J, of %.3g J exchanged\n", firstHalf, secondHalf,
                exchanged);
    EXPECT_LT(firstHalf, 1e-2 * exchanged);
    EXPECT_LT(secondHalf, 1.2 * firstHalf);
}

// What the recursive formulation cannot step, asked for, is refused at the start with the
// reason; auto keeps maximal coordinates and says why (and what recursive would step).
TEST(JointSpace, AskedOfAMechanismItCannotStepTheRecursiveFormulationIsRefused) {
    // (Coulomb friction on the four-bar's joint that closes its loop: joint coordinates take it
    // on the tree's joints only)
    const auto fourBar = test::exampleModel("four_bar.json");
    ASSERT_TRUE(fourBar);
    auto rubbing = variant(*fourBar, Formulation::Recursive, IntegratorType::TimeStepping);
    std::string why;
    const std::optional<JointTree> tree = buildJointTree(*rubbing, initialState(*rubbing), why);
    ASSERT_TRUE(tree && !tree->cuts.empty()) << why;
    JointFrictionModel friction;
    friction.joint = tree->cuts.front();
    friction.coefficient = 0.3;
    friction.radius = 0.01;
    rubbing->frictions.push_back(friction);
    ForwardDynamics refused(rubbing);
    EXPECT_TRUE(refused.formulation().refused);
    const Status s = refused.initialize();
    EXPECT_FALSE(s.ok);
    EXPECT_NE(s.message.find("asks for the recursive formulation"), std::string::npos) << s.message;
    EXPECT_NE(s.message.find("closes a loop and has Coulomb friction"), std::string::npos)
        << s.message;

    const auto pendulum = test::exampleModel("pendulum.json");
    ASSERT_TRUE(pendulum);
    ForwardDynamics implicit(
        variant(*pendulum, Formulation::Recursive, IntegratorType::ImplicitEuler));
    EXPECT_FALSE(implicit.initialize().ok);
    EXPECT_NE(implicit.formulation().reason.find("implicitEuler steps in maximal coordinates"),
              std::string::npos);

    const FormulationChoice automatic =
        chooseFormulation(*variant(*pendulum, Formulation::Auto, IntegratorType::DormandPrince45));
    EXPECT_EQ(automatic.formulation, Formulation::Maximal);
    EXPECT_FALSE(automatic.refused);
    EXPECT_NE(automatic.reason.find("a tree of 1 joint"), std::string::npos) << automatic.reason;
    // Under timeStepping: faster in joint coordinates, but they gain energy where links whip.
    const FormulationChoice stepping =
        chooseFormulation(*variant(*pendulum, Formulation::Auto, IntegratorType::TimeStepping));
    EXPECT_EQ(stepping.formulation, Formulation::Maximal);
    EXPECT_NE(stepping.reason.find("gain energy where links whip"), std::string::npos)
        << stepping.reason;
    EXPECT_NE(stepping.reason.find("1.5 to 6 times as fast"), std::string::npos) << stepping.reason;
    // A closed loop: faster too (the four-bar's step, measured), its cut joint's rows held.
    const FormulationChoice looped =
        chooseFormulation(*variant(*fourBar, Formulation::Auto, IntegratorType::SymplecticEuler));
    EXPECT_EQ(looped.formulation, Formulation::Maximal);
    EXPECT_NE(looped.reason.find("1 joint closing its loops"), std::string::npos) << looped.reason;
    EXPECT_NE(looped.reason.find("1.2 to 2 times as fast"), std::string::npos) << looped.reason;
}

// A motion whose rate races off (a pole at 0.3 s) stops a run in joint coordinates naming the
// motion, as in maximal coordinates, and nothing else: no lock-up of the mechanism is invented.
TEST(JointSpace, AMotionThatRacesOffIsNamedAsTheCause) {
    io::SceneLoadResult r =
        io::loadSceneFile(std::string(MOTUS_SOURCE_DIR) + "/scenes/bead_on_hoop.json");
    ASSERT_TRUE(r.scene);
    r.scene->motions.at(0).expression = "1/(0.3-time)";
    for (Formulation formulation : {Formulation::Recursive, Formulation::Maximal}) {
        r.scene->settings.formulation = formulation;
        r.scene->settings.stallSteps = 5000;
        ForwardDynamics sim(test::compiled(*r.scene));
        ASSERT_TRUE(sim.initialize().ok);
        const Status s = sim.advance(0.5);
        ASSERT_FALSE(s.ok);
        EXPECT_NE(s.message.find("motion 'turn': its"), std::string::npos) << s.message;
        EXPECT_EQ(s.message.find("locks up"), std::string::npos) << s.message;
    }
}

// The ship's crane: the deck a moving frame carries is a root whose six rates the frame gives,
// the load's ball joint a link on it; a model-based controller's model takes no moving frame
// (yet), and says so.
TEST(JointSpace, AMovingFramesPartIsARootWhoseRatesTheFrameGives) {
    const auto crane = test::exampleModel("ship_crane.json");
    ASSERT_TRUE(crane);
    std::string why;
    const std::optional<JointTree> tree = buildJointTree(*crane, initialState(*crane), why);
    ASSERT_TRUE(tree) << why;
    ASSERT_EQ(tree->size(), 2);
    EXPECT_EQ(tree->movingFrames(), 1);
    EXPECT_EQ(tree->freeParts(), 0);
    const JointTree::Link& deck = tree->links[0];
    EXPECT_TRUE(deck.frame);
    EXPECT_EQ(deck.joint, crane->frameJoints.front());
    EXPECT_EQ(tree->links[1].kind, LinkKind::Spherical);
    EXPECT_EQ(tree->links[1].parent, 0);
    for (int e = 0; e < tree->nv; ++e) EXPECT_EQ(tree->prescribed(*crane, e), e < 6) << e;
    const FormulationChoice choice =
        chooseFormulation(*variant(*crane, Formulation::Recursive, IntegratorType::RungeKutta4));
    EXPECT_EQ(choice.formulation, Formulation::Recursive);
    EXPECT_NE(choice.reason.find("a tree of 1 joint on 1 moving frame"), std::string::npos)
        << choice.reason;
    const State start = initialState(*crane);
    EXPECT_FALSE(buildJointTree(*crane, start.q, start.v, why, TreeScope::Control));
    EXPECT_NE(why.find("moving frames are not in a model-based controller's model"),
              std::string::npos)
        << why;
}

// A closed mechanism in joint coordinates: a spanning tree of its joints plus the cut joints
// whose rows close its loops. At a state a maximal run reached, the loop-closed accelerations
// are the KKT solve's (read on each tree joint's coordinate), and a closure broken by moving
// the free coordinates (1e-3 rad or m, rates by 1e-2) is closed again: every row of the
// mechanism met to the projection tolerance, its velocity rows too, the motions' coordinates
// untouched.
TEST(JointSpaceLoops, ClosedMechanismsAgreeWithTheMaximalSolveAtAnInstant) {
    const std::pair<const char*, int> cases[] = {
        {"four_bar.json", 1},           {"slider_crank.json", 1},
        {"quick_return.json", 2},       {"benchmarks/andrews_squeezer.json", 3},
        {"benchmarks/bricard.json", 1}, {"benchmarks/n_four_bar.json", 2}};
    for (const auto& [name, loops] : cases) {
        SCOPED_TRACE(name);
        const auto model = test::exampleModel(name);
        ASSERT_TRUE(model);
        const State state = stateAt(model, 0.0137);
        const std::optional<JointTree> tree = treeAt(*model, state);
        ASSERT_TRUE(tree);
        EXPECT_EQ(static_cast<int>(tree->cuts.size()), loops);
        EXPECT_EQ(tree->size() + static_cast<int>(tree->cuts.size()),
                  static_cast<int>(model->joints.size()));

        Workspace ws;
        ASSERT_TRUE(prepareWorkspace(*model, state, ws).ok);
        Eigen::VectorXd q, qd, qdd;
        const Status st = articulatedAccelerationsAt(*model, *tree, state, q, qd, ws, qdd);
        ASSERT_TRUE(st.ok) << st.message;
        ASSERT_TRUE(computeAccelerations(*model, state.t, state.q, state.v, state.jointCoordinates,
                                         state.lagged, ws)
                        .ok);
        double largest = 1.0;
        for (int k = 0; k < tree->nv; ++k) largest = std::max(largest, std::abs(qdd(k)));
        for (int k = 0; k < tree->size(); ++k) {
            const JointTree::Link& link = tree->links[static_cast<std::size_t>(k)];
            if (link.welded) continue;
            const JointModel& joint = model->joints[static_cast<std::size_t>(link.joint)];
            const double maximal = maximalCoordinateAcceleration(*model, ws, link.joint);
            EXPECT_NEAR(qdd(link.iv), maximal, 1e-9 * largest) << "joint " << joint.name;
        }

        // Broken, and closed again.
        Eigen::VectorXd q1 = q, qd1 = qd;
        for (int k = 0; k < tree->nv; ++k) {  // (one-axis links: a coordinate per rate)
            if (tree->rateDriver[static_cast<std::size_t>(k)] >= 0) continue;
            q1(k) += 1e-3 * std::cos(3.0 * k);
            qd1(k) += 1e-2 * std::sin(5.0 * k + 1.0);
        }
        int iterations = 0;
        const Status closed = projectLoopClosure(*model, *tree, state.t, q1, qd1, 0.0, &iterations);
        ASSERT_TRUE(closed.ok) << closed.message;
        EXPECT_GT(iterations, 0);
        for (int k = 0; k < tree->nv; ++k)
            if (tree->rateDriver[static_cast<std::size_t>(k)] >= 0) {
                EXPECT_EQ(q1(k), q(k));
                EXPECT_EQ(qd1(k), qd(k));
            }
        State moved = state;
        bodyStateFromJoints(*model, *tree, q1, qd1, moved);
        std::vector<BodyFrame> frames;
        computeBodyFrames(*model, moved.q, moved.v, frames);
        ConstraintEvaluation rows;
        evaluateConstraints(*model, moved.t, frames, rows);
        EXPECT_LE(maxPositionResidual(*model, rows), model->settings.projectionTolerance);
        const Eigen::VectorXd velocity = rows.Phi_q * moved.v - rows.nu;
        EXPECT_LT(velocity.lpNorm<Eigen::Infinity>(),
                  1e-9 * std::max(1.0, moved.v.lpNorm<Eigen::Infinity>()));
    }
}

// Symplectic Euler in joint coordinates holds a closed mechanism's loops by impulses, as the
// maximal step holds its joints (LoopStepper: SHAKE–RATTLE on the cut rows, one factorisation a
// step). Over a second at 1 ms: the loops closed to the projection tolerance at every step, the
// motion that goes where the maximal coordinates' symplectic run goes to the two first-order
// methods' difference (centimetres over a second of a free swing), an energy balance within a
// few per cent of what is exchanged (semi-implicit Euler of joint coordinates: its mass matrix
// moves within the step), and a run resumed from a frame that goes on bit for bit — with the
// step's start kept from the step before (hinges: the four-bar, the double four-bar through its
// singular position, Bricard's linkage) and found afresh from the parts (a ball joint on the tree:
// the spatial slider-crank). Driven by a motion (the slider-crank and the quick-return turned at a
// constant rate, the RSSR linkage's crank swung sinusoidally), the parts go where the motion puts
// them (within 1e-8 m of the maximal run) and the motion's work is counted as the maximal step
// counts it: the balance within twice the maximal run's (the RSSR linkage: 5.7e-4 J against
// 2.9e-4 J; feeding the free rates only the motion's mean change of rate left 1.9e-2 J).
TEST(JointSpaceLoops, ASymplecticRunHoldsItsLoopsByImpulses) {
    for (const char* name : {"four_bar.json", "benchmarks/n_four_bar.json",
                             "benchmarks/bricard.json", "benchmarks/spatial_slider_crank.json",
                             "slider_crank.json", "quick_return.json", "rssr_linkage.json"}) {
        SCOPED_TRACE(name);
        const auto loaded = test::exampleModel(name);
        ASSERT_TRUE(loaded);
        const auto recursiveModel =
            variant(*loaded, Formulation::Recursive, IntegratorType::SymplecticEuler, 1e-3);
        const auto maximalModel =
            variant(*loaded, Formulation::Maximal, IntegratorType::SymplecticEuler, 1e-3);
        ForwardDynamics recursive(recursiveModel), maximal(maximalModel);
        ASSERT_TRUE(recursive.initialize().ok);
        ASSERT_EQ(recursive.formulation().formulation, Formulation::Recursive)
            << recursive.formulation().reason;
        ASSERT_TRUE(maximal.initialize().ok);
        Outputs out;
        ASSERT_TRUE(recursive.outputs(out).ok);
        const double e0 = out.energies.balance();
        ASSERT_TRUE(maximal.outputs(out).ok);
        const double m0 = out.energies.balance();
        double gap = 0.0, apart = 0.0, drift = 0.0, maximalDrift = 0.0, exchanged = 0.0;
        State middle;
        for (int k = 1; k <= 1000; ++k) {
            const Status st = recursive.advance(1e-3 * k);
            ASSERT_TRUE(st.ok) << st.message;
            ASSERT_TRUE(maximal.advance(1e-3 * k).ok);
            if (k == 500) middle = recursive.state();
            ASSERT_TRUE(recursive.outputs(out).ok);
            gap = std::max(gap, out.constraintError);
            drift = std::max(drift, std::abs(out.energies.balance() - e0));
            exchanged = std::max(exchanged, out.energies.kinetic);
            ASSERT_TRUE(maximal.outputs(out).ok);
            maximalDrift = std::max(maximalDrift, std::abs(out.energies.balance() - m0));
            for (int b = 0; b < loaded->bodyCount(); ++b)
                apart = std::max(apart, (layout::position(recursive.state().q, b) -
                                         layout::position(maximal.state().q, b))
                                            .norm());
        }
        std::printf(
            "%s: largest gap %.3g m, %.3g m from the maximal run, energy balance within "
            "%.3g J (maximal %.3g J) of %.3g J exchanged\n",
            name, gap, apart, drift, maximalDrift, exchanged);
        EXPECT_LE(gap, loaded->settings.projectionTolerance * (1.0 + 1e-9));
        const bool driven = !loaded->drivers.empty();
        EXPECT_LT(apart, driven ? 1e-8 : 0.02);
        EXPECT_LT(drift, 0.03 * exchanged);
        if (driven) {
            EXPECT_LT(drift, 2.0 * maximalDrift + 1e-6);
        }
        ForwardDynamics resumed(recursiveModel);
        ASSERT_TRUE(resumed.resume(middle).ok);
        ASSERT_TRUE(resumed.advance(1.0).ok);
        EXPECT_EQ(resumed.state().q, recursive.state().q);
        EXPECT_EQ(resumed.state().v, recursive.state().v);
    }
}

// The loop stepper carries what its first estimate of the impulses missed from step to step
// (LoopStepper::saveMemory): past the first steps, the first evaluation closes the loops (the
// four-bar 1.2 % of the steps, the double four-bar 2.6 % (through its singular position), the
// RSSR linkage none, where the estimate alone iterated in every step), and the carry goes with the state through a recorded frame, so that
// a run resumed from the frame goes on bit for bit. A state without it (set from elsewhere)
// steps from the estimate alone and closes its loops all the same; one whose carry is garbage (a
// hostile run file: NaN, or numbers far off) too.
TEST(JointSpaceLoops, AStepCarriesWhatItsEstimateMissed) {
    for (const char* name : {"four_bar.json", "benchmarks/n_four_bar.json", "rssr_linkage.json"}) {
        SCOPED_TRACE(name);
        const auto loaded = test::exampleModel(name);
        ASSERT_TRUE(loaded);
        const auto model =
            variant(*loaded, Formulation::Recursive, IntegratorType::SymplecticEuler, 1e-3);
        ASSERT_GT(LoopStepper::memorySize(*model), 0);
        ForwardDynamics sim(model);
        ASSERT_TRUE(sim.initialize().ok);
        const FrameLayout layout(*model);
        ASSERT_TRUE(layout.hasSolverMemory());
        std::vector<double> row(static_cast<std::size_t>(layout.size()));
        Outputs out;
        int iterating = 0, before = sim.statistics().projectionIterations;
        for (int k = 1; k <= 1000; ++k) {
            ASSERT_TRUE(sim.advance(1e-3 * k).ok);
            const int now = sim.statistics().projectionIterations;
            if (k > 10 && now > before) ++iterating;
            before = now;
            if (k == 400) {
                ASSERT_TRUE(sim.outputs(out).ok);
                layout.encode(sim.state(), out, row.data());
            }
        }
        std::printf("%s: %d of 990 steps iterated past the first evaluation\n", name, iterating);
        EXPECT_LT(iterating, 50);

        State frame;
        Outputs read;
        layout.decode(row.data(), frame, read);
        ForwardDynamics resumed(model);
        ASSERT_TRUE(resumed.resume(frame).ok);
        ASSERT_TRUE(resumed.advance(1.0).ok);
        EXPECT_EQ(resumed.state().q, sim.state().q);
        EXPECT_EQ(resumed.state().v, sim.state().v);

        // Without the carry, and with garbage for it: the loops closed at every step, the
        // motion within the tolerance's reach of the run's.
        const int carried =
            static_cast<int>(frame.solverMemory.size()) - LoopStepper::memorySize(*model);
        auto withMemory = [&](const char* what, auto&& fill) {
            SCOPED_TRACE(what);
            State from = frame;
            fill(from.solverMemory);
            ForwardDynamics other(model);
            ASSERT_TRUE(other.resume(from).ok);
            double gap = 0.0;
            for (int k = 401; k <= 1000; ++k) {
                const Status st = other.advance(1e-3 * k);
                ASSERT_TRUE(st.ok) << st.message;
                ASSERT_TRUE(other.outputs(out).ok);
                gap = std::max(gap, out.constraintError);
            }
            EXPECT_LE(gap, model->settings.projectionTolerance * (1.0 + 1e-9));
            for (int b = 0; b < model->bodyCount(); ++b)
                EXPECT_LT(
                    (layout::position(other.state().q, b) - layout::position(sim.state().q, b))
                        .norm(),
                    1e-6);
        };
        withMemory("none", [](std::vector<double>& memory) { memory.clear(); });
        withMemory("NaN", [&](std::vector<double>& memory) {
            std::fill(memory.begin() + carried, memory.end(), std::nan(""));
        });
        withMemory("far off", [&](std::vector<double>& memory) {
            for (std::size_t k = static_cast<std::size_t>(carried) + 4; k < memory.size(); ++k)
                memory[k] = 1e6 * (k % 2 == 0 ? 1.0 : -1.0);
        });
        withMemory("a bad header", [&](std::vector<double>& memory) {
            memory[static_cast<std::size_t>(carried)] = 7.5;
            memory[static_cast<std::size_t>(carried) + 3] = 1e9;
        });
        withMemory("a rank out of range", [&](std::vector<double>& memory) {
            memory[static_cast<std::size_t>(carried) + 2] = 1e300;
        });
    }
}

// Asked of a mechanism whose loops are at a singular position at the start (the double
// four-bar's middle pivot moved out to 3 m: crank, coupler and crank can only lie stretched
// straight between its pivots), the recursive formulation says so, naming the loops' joints.
TEST(JointSpaceLoops, ASingularClosureAtTheStartIsNamed) {
    const io::SceneLoadResult held =
        io::loadSceneFile(std::string(MOTUS_SOURCE_DIR) + "/scenes/benchmarks/n_four_bar.json",
                          {{"/parts/ground/markers/A1/position", "[3, 0, 0]"},
                           {"/settings", R"({"formulation": "recursive"})"}});
    ASSERT_TRUE(held.scene);
    ForwardDynamics sim(test::compiled(*held.scene));
    ASSERT_EQ(sim.formulation().formulation, Formulation::Recursive);
    const Status s = sim.initialize();
    ASSERT_FALSE(s.ok);
    EXPECT_NE(s.message.find("next to a singular position at t = 0"), std::string::npos)
        << s.message;
    EXPECT_NE(s.message.find("the loops closed by joints"), std::string::npos) << s.message;

    // As the file has it, the same linkage starts (a regular position), and so do the other
    // closed examples.
    for (const char* name : {"benchmarks/n_four_bar.json", "four_bar.json", "slider_crank.json",
                             "benchmarks/bricard.json", "benchmarks/andrews_squeezer.json"}) {
        const auto model = test::exampleModel(name);
        ASSERT_TRUE(model);
        ForwardDynamics regular(
            variant(*model, Formulation::Recursive, IntegratorType::DormandPrince45));
        const Status r = regular.initialize();
        EXPECT_TRUE(r.ok) << name << ": " << r.message;
    }
}

// A loop of welds (two parts welded to the ground and to each other, a pendulum hinged to the
// second): joint coordinates cut a weld like any other joint, its six rows all dependent on the
// tree's (dropped, as the maximal solver drops them), so the run agrees with the maximal one,
// reactions and all.
TEST(JointSpaceLoops, ALoopOfWeldsIsCutLikeAnyOther) {
    SceneSpec spec;
    spec.name = "welded loop";
    Part ground = test::groundPart(spec);
    ground.markers = {test::marker(spec, "a", Vec3::Zero()),
                      test::marker(spec, "b", Vec3(1.0, 0.0, 0.0))};
    Part a = test::boxPart(spec, "A", Vec3(1.0, 0.1, 0.1), Vec3(0.5, 0.0, 0.0));
    a.markers = {test::marker(spec, "l", Vec3(-0.5, 0.0, 0.0)),
                 test::marker(spec, "r", Vec3(0.5, 0.0, 0.0))};
    Part b = test::boxPart(spec, "B", Vec3(1.0, 0.1, 0.1), Vec3(1.5, 0.0, 0.0));
    b.markers = {test::marker(spec, "l", Vec3(-0.5, 0.0, 0.0)),
                 test::marker(spec, "h", Vec3::Zero())};
    Part c = test::boxPart(spec, "C", Vec3(0.1, 0.5, 0.1), Vec3(1.5, 0.0, -0.25));
    c.markers = {test::marker(spec, "p", Vec3(0.0, 0.0, 0.25))};
    c.markers[0].X_PM.R = quatFromRollPitchYaw(kPi / 2, 0.0, 0.0);
    b.markers[1].X_PM.R = c.markers[0].X_PM.R;
    c.w_WP_W = Vec3(0.0, 2.0, 0.0);  // swinging about the hinge (its axis: y)
    c.v_WPo_W = Vec3(-0.5, 0.0, 0.0);
    spec.parts = {ground, a, b, c};
    spec.joints = {test::joint(spec, "w1", JointType::Fixed, {"A", "l"}, {"ground", "a"}),
                   test::joint(spec, "w2", JointType::Fixed, {"B", "l"}, {"A", "r"}),
                   test::joint(spec, "w3", JointType::Fixed, {"B", "l"}, {"ground", "b"}),
                   test::joint(spec, "hinge", JointType::Revolute, {"C", "p"}, {"B", "h"})};
    // Folded, the welds make A and B the ground's: the hinge is all there is.
    {
        const std::shared_ptr<const Model> folded = test::compiled(spec);
        EXPECT_EQ(folded->bodyCount(), 1);
        std::string why;
        const std::optional<JointTree> tree = buildJointTree(*folded, initialState(*folded), why);
        ASSERT_TRUE(tree) << why;
        EXPECT_TRUE(tree->cuts.empty());
        EXPECT_EQ(tree->nv, 1);
    }
    // Held as joints of six rows, the loop of welds is cut at its last.
    spec.settings.foldWelds = false;
    const std::shared_ptr<const Model> model = test::compiled(spec);
    ASSERT_TRUE(model);
    std::string why;
    const std::optional<JointTree> tree = buildJointTree(*model, initialState(*model), why);
    ASSERT_TRUE(tree) << why;
    ASSERT_EQ(tree->cuts.size(), 1u);
    EXPECT_EQ(model->joints[static_cast<std::size_t>(tree->cuts[0])].name, "w3");
    EXPECT_EQ(tree->nv, 1);
    test::FormulationAgreement apart;
    ASSERT_NO_FATAL_FAILURE(followBothOverOneSecond(model, apart));
    apart.expectWithin();
    EXPECT_GT(apart.largestReaction, 1.0);
}

// The loop stepper evaluates the cut joints' rows directly from the world-frame rates of their
// points and axes (cutRows, direct); the accelerations and reactions through the general joint
// evaluation the maximal solver uses. Both give the same Φ and J, and J is Φ's derivative
// (central differences along each rate), for every example with loops (revolute, ball,
// prismatic and distance joints cut, couplers and gears) and for the four-bar closed at its
// last pivot by each kind of joint whose rows the stepper evaluates directly (each of the
// primitives: coincident points, perpendicular axes, a point on a line or a plane), at poses
// away from the closed one (Φ ≠ 0: the rows alone are compared; but for the rows a planar
// motion keeps: the four-bar closed by a plane, a point on a plane or parallel axes).
TEST(JointSpaceLoops, TheStepperEvaluatesTheCutRowsAsTheGeneralEvaluationDoes) {
    struct Case {
        std::string name;
        std::shared_ptr<const Model> model;
        bool off = true;  // moved off the closed pose by the rates' change
    };
    std::vector<Case> models;
    for (const char* name :
         {"four_bar.json", "benchmarks/n_four_bar.json", "benchmarks/bricard.json",
          "benchmarks/spatial_slider_crank.json", "benchmarks/andrews_squeezer.json",
          "slider_crank.json", "quick_return.json", "rssr_linkage.json", "gear_train.json",
          "rack_and_pinion_steering.json", "dc_motor_crank.json"})
        models.push_back({name, test::exampleModel(name)});
    const io::SceneLoadResult fourBar =
        io::loadSceneFile(std::string(MOTUS_SOURCE_DIR) + "/scenes/four_bar.json");
    ASSERT_TRUE(fourBar.scene);
    for (const JointType type :
         {JointType::Spherical, JointType::Cylindrical, JointType::Prismatic, JointType::Universal,
          JointType::Planar, JointType::PointOnLine, JointType::PointOnPlane,
          JointType::ParallelAxes, JointType::PerpendicularAxes}) {
        SceneSpec spec = *fourBar.scene;
        for (Joint& joint : spec.joints)
            if (joint.name == "pivotD") joint.type = type;
        const bool keptInPlane = type == JointType::Planar || type == JointType::PointOnPlane ||
                                 type == JointType::ParallelAxes;
        models.push_back({"four_bar.json closed by a " + std::string(jointTypeName(type)),
                          test::compiled(spec), !keptInPlane});
    }
    int compared = 0;
    for (const auto& [name, model, off] : models) {
        SCOPED_TRACE(name);
        ASSERT_TRUE(model);
        const State start = initialState(*model);
        const std::optional<JointTree> tree = treeAt(*model, start);
        ASSERT_TRUE(tree);
        ASSERT_GT(tree->cutRows, 0);
        Eigen::VectorXd q, qd;
        jointSpaceState(*model, *tree, start, q, qd);
        // Off the closed pose: every rate moved by a few hundredths.
        Eigen::VectorXd rates(tree->nv);
        for (int e = 0; e < tree->nv; ++e) rates(e) = 0.03 * std::sin(1.7 * e + 0.4);
        integrateJointCoordinates(*tree, q, rates, 1.0);
        Eigen::VectorXd directPhi, generalPhi;
        Eigen::MatrixXd directJ, generalJ;
        cutRows(*model, *tree, q, true, directPhi, directJ);
        cutRows(*model, *tree, q, false, generalPhi, generalJ);
        const double scale = std::max(1.0, generalJ.cwiseAbs().maxCoeff());
        EXPECT_LE((directPhi - generalPhi).cwiseAbs().maxCoeff(), 1e-14 * scale);
        EXPECT_LE((directJ - generalJ).cwiseAbs().maxCoeff(), 1e-13 * scale);
        if (off) {
            EXPECT_GT(directPhi.cwiseAbs().maxCoeff(), 1e-4);
        }
        // J = ∂Φ/∂(q ⊕ ε e) by central differences.
        const double eps = 1e-6;
        double worst = 0.0;
        for (int e = 0; e < tree->nv; ++e) {
            Eigen::VectorXd unit = Eigen::VectorXd::Zero(tree->nv), qp = q, qm = q, phiP, phiM;
            Eigen::MatrixXd unused;
            unit(e) = 1.0;
            integrateJointCoordinates(*tree, qp, unit, eps);
            integrateJointCoordinates(*tree, qm, unit, -eps);
            cutRows(*model, *tree, qp, true, phiP, unused);
            cutRows(*model, *tree, qm, true, phiM, unused);
            worst = std::max(worst,
                             ((phiP - phiM) / (2.0 * eps) - directJ.col(e)).cwiseAbs().maxCoeff());
        }
        EXPECT_LE(worst, 1e-7 * scale);
        ++compared;
    }
    EXPECT_EQ(compared, static_cast<int>(models.size()));
}

// Couplers in joint coordinates: rows over the tree's coordinates, held with multipliers after
// the cut joints' (joint_space.h). Two pendulums of different lengths hinged side by side and made
// to turn together by a linear coupler (q₁ − q₂ = its initial value), a third driven by a motion
// and coupled 2:1 to the second's slide along a prismatic joint: the coupler carries the torque
// between them. Joint coordinates put the parts where maximal coordinates do and report the same
// couplers' forces, joint reactions and motion effort (dopri45 at rtol 1e-12, 1e-8 of the
// largest) over 1 s.
TEST(JointSpaceCouplers, PendulumsMadeToTurnTogetherGoWhereTheMaximalRunGoes) {
    SceneSpec spec;
    spec.gravity = Vec3(0.0, -9.81, 0.0);
    Part ground = test::groundPart(spec);
    ground.markers = {test::marker(spec, "a", Vec3::Zero()),
                      test::marker(spec, "b", Vec3(0.5, 0.0, 0.0)),
                      test::marker(spec, "c", Vec3(1.0, 0.0, 0.0))};
    Part short_ = test::boxPart(spec, "short", Vec3(0.2, 0.02, 0.02), Vec3(0.1, 0.0, 0.0));
    short_.markers = {test::marker(spec, "p", Vec3(-0.1, 0.0, 0.0))};
    Part long_ = test::boxPart(spec, "long", Vec3(0.4, 0.02, 0.02), Vec3(0.7, 0.0, 0.0));
    long_.markers = {test::marker(spec, "p", Vec3(-0.2, 0.0, 0.0))};
    long_.mass = 2.0;
    Part slider = test::boxPart(spec, "slider", Vec3(0.05, 0.05, 0.05), Vec3(1.0, 0.0, 0.0));
    slider.markers = {test::marker(spec, "p", Vec3::Zero())};
    Part spinner = test::boxPart(spec, "spinner", Vec3(0.3, 0.02, 0.02), Vec3(1.15, 0.0, 0.0));
    spinner.markers = {test::marker(spec, "p", Vec3(-0.15, 0.0, 0.0))};
    spec.parts = {ground, short_, long_, slider, spinner};
    spec.joints = {
        test::joint(spec, "hingeA", JointType::Revolute, {"short", "p"}, {"ground", "a"}),
        test::joint(spec, "hingeB", JointType::Revolute, {"long", "p"}, {"ground", "b"}),
        test::joint(spec, "slide", JointType::Prismatic, {"slider", "p"}, {"ground", "c"}),
        test::joint(spec, "spin", JointType::Revolute, {"spinner", "p"}, {"slider", "p"})};
    for (const auto& [name, terms] :
         {std::pair<std::string, std::vector<CouplerTerm>>{
              "together",
              {{"hingeA", JointAxis::Rotation, 1.0}, {"hingeB", JointAxis::Rotation, -1.0}}},
          {"lead",
           {{"slide", JointAxis::Translation, 2.0}, {"hingeB", JointAxis::Rotation, -0.1}}}}) {
        CouplerSpec c;
        c.id = spec.newId();
        c.name = name;
        c.type = CouplerType::Linear;
        c.terms = terms;
        spec.couplers.push_back(c);
    }
    MotionSpec turn;
    turn.id = spec.newId();
    turn.name = "turn";
    turn.joint = "spin";
    turn.expression = "3*time";
    spec.motions.push_back(turn);
    const std::shared_ptr<const Model> model = test::compiled(spec);
    ASSERT_TRUE(model);
    std::string why;
    const std::optional<JointTree> tree = buildJointTree(*model, initialState(*model), why);
    ASSERT_TRUE(tree) << why;
    EXPECT_TRUE(tree->cuts.empty());
    EXPECT_EQ(tree->couplerRows.size(), 2u);
    EXPECT_TRUE(tree->closed());
    test::FormulationAgreement apart;
    ASSERT_NO_FATAL_FAILURE(followBothOverOneSecond(model, apart));
    apart.expectWithin();
    EXPECT_GT(apart.largestEffort, 0.5);  // N·m: the couplers carry load
    std::printf(
        "coupled pendulums: positions within %.2g, reactions within %.2g of %.3g N, "
        "couplers' forces and the motion's effort within %.2g of %.3g\n",
        apart.position, apart.reaction, apart.largestReaction, apart.effort, apart.largestEffort);
}

// Every kind of link, each way round: a hinged arm from the ground with a second part on a joint
// of each lower-pair type, marker I on the second part (the link's body holds I) and on the
// arm (it holds J: the joint reversed), set moving in every direction the joint leaves free
// (the start's velocities projected onto the joints), and driven by a motion where one can drive
// it (a cylindrical joint's slide: a multi-axis link with a prescribed rate, q̈ by the mass
// matrix). Joint coordinates put the parts where maximal coordinates do, to 1e-8 m and rad over
// 1 s (dopri45 at rtol 1e-12), with the same reactions and motion efforts: each kind's
// coordinates, rates, motion subspace and velocity products, both ways.
TEST(JointSpace, EveryKindOfLinkEachWayRoundGoesWhereTheMaximalRunGoes) {
    const std::pair<JointType, const char*> kinds[] = {
        {JointType::Revolute, "revolute"},       {JointType::Prismatic, "prismatic"},
        {JointType::Cylindrical, "cylindrical"}, {JointType::Universal, "universal"},
        {JointType::Spherical, "spherical"},     {JointType::Planar, "planar"},
    };
    for (const auto& [type, kindName] : kinds)
        for (const int way : {0, 1, 2}) {  // as built, reversed, driven by a motion
            const bool reversed = way == 1, driven = way == 2;
            // (Motions drive hinges' and slides' coordinates: revolute, prismatic, cylindrical.)
            if (driven && type != JointType::Revolute && type != JointType::Prismatic &&
                type != JointType::Cylindrical)
                continue;
            SCOPED_TRACE(std::string(kindName) + (reversed ? ", reversed" : "") +
                         (driven ? ", driven" : ""));
            SceneSpec spec;
            spec.name = kindName;
            Part ground = test::groundPart(spec);
            Marker pivot = test::marker(spec, "pivot", Vec3::Zero());
            pivot.X_PM.R = quatFromRollPitchYaw(-kPi / 2, 0.0, 0.0);  // z along the world's y
            ground.markers = {pivot};
            Part arm = test::boxPart(spec, "arm", Vec3(1.0, 0.1, 0.1), Vec3(0.5, 0.0, 0.0));
            Marker armPivot = test::marker(spec, "pivot", Vec3(-0.5, 0.0, 0.0));
            armPivot.X_PM.R = pivot.X_PM.R;
            Marker tip = test::marker(spec, "tip", Vec3(0.5, 0.0, 0.0));
            Part second = test::boxPart(spec, "second", Vec3(0.2, 0.3, 0.6), Vec3(1.0, 0.0, -0.3));
            Marker mount = test::marker(spec, "mount", Vec3(0.0, 0.0, 0.3));
            // The joint's markers: a common tilted axis, or a universal's pins at right angles.
            const Quat axis = quatFromRollPitchYaw(0.3, 0.4, 0.5);
            tip.X_PM.R = axis;
            mount.X_PM.R = type == JointType::Universal
                               ? Quat(axis * quatFromRollPitchYaw(0.0, kPi / 2, 0.0))
                               : axis;
            arm.markers = {armPivot, tip};
            second.markers = {mount};
            arm.w_WP_W = Vec3(0.0, 2.0, 0.0);
            arm.v_WPo_W = arm.w_WP_W.cross(Vec3(0.5, 0.0, 0.0));
            second.w_WP_W = Vec3(1.0, -1.5, 3.0);
            second.v_WPo_W = Vec3(0.4, 0.3, -0.2);
            spec.parts = {ground, arm, second};
            spec.joints = {
                test::joint(spec, "hinge", JointType::Revolute, {"arm", "pivot"},
                            {"ground", "pivot"}),
                test::joint(spec, "joint", type,
                            reversed ? MarkerRef{"arm", "tip"} : MarkerRef{"second", "mount"},
                            reversed ? MarkerRef{"second", "mount"} : MarkerRef{"arm", "tip"})};
            if (driven) {  // a motion on the joint's first slide, or else its first angle
                MotionSpec motion;
                motion.id = spec.newId();
                motion.name = "drive";
                motion.joint = "joint";
                const bool slides = type == JointType::Prismatic ||
                                    type == JointType::Cylindrical || type == JointType::Planar;
                motion.axis = slides ? JointAxis::Translation : JointAxis::Rotation;
                motion.expression = slides ? "0.1*sin(3*time)" : "0.5*sin(2*time)";
                spec.motions = {motion};
            }
            const std::shared_ptr<const Model> model = test::compiled(spec);
            ASSERT_TRUE(model);
            ForwardDynamics recursive(
                variant(*model, Formulation::Recursive, IntegratorType::DormandPrince45));
            ForwardDynamics maximal(
                variant(*model, Formulation::Maximal, IntegratorType::DormandPrince45));
            ASSERT_EQ(recursive.formulation().formulation, Formulation::Recursive)
                << recursive.formulation().reason;
            const Status ready = recursive.initialize();
            ASSERT_TRUE(ready.ok) << ready.message;
            ASSERT_TRUE(maximal.initialize().ok);
            // (Moving along the joint's every freedom: its relative motion is not nothing.)
            EXPECT_GT(
                (layout::twist(maximal.state().v, 1) - layout::twist(maximal.state().v, 0)).norm(),
                driven ? 0.1 : 0.5);
            test::FormulationAgreement apart;
            for (int k = 1; k <= 10; ++k)
                ASSERT_NO_FATAL_FAILURE(apart.follow(*model, recursive, maximal, 0.1 * k));
            apart.expectWithin();
            std::printf(
                "%s%s: positions within %.2g, reactions within %.2g of %.3g, efforts "
                "within %.2g of %.3g\n",
                kindName,
                reversed ? " (reversed)"
                : driven ? " (driven)"
                         : "",
                apart.position, apart.reaction, apart.largestReaction, apart.effort,
                apart.largestEffort);
            if (driven) {
                EXPECT_GT(apart.largestEffort, 1e-3);
            }
        }
}

// ---- Free parts: six coordinates from the ground (a unit quaternion among them) --------------

// The momenta of a model's parts about the world origin at `state`: linear, angular.
std::pair<Vec3, Vec3> momenta(const Model& model, const State& state) {
    Vec3 P = Vec3::Zero(), L = Vec3::Zero();
    for (int b = 0; b < model.bodyCount(); ++b) {
        const BodyModel& body = model.bodies[static_cast<std::size_t>(b)];
        const Mat3 R = bodyOrientation(state.q, b).toRotationMatrix();
        const Vec3 p = bodyPosition(state.q, b), v = layout::linear(state.v, b);
        const Vec3 w = layout::angular(state.v, b);  // (body axes)
        P += body.mass * v;
        L += body.mass * p.cross(v) + R * body.inertia.cwiseProduct(w);
    }
    return {P, L};
}

// A box of three different moments of inertia thrown spinning near its middle axis (the
// tumbling that axis is unstable in): a free part, so joint coordinates take it whole, its
// origin and a unit quaternion. Over 2 s (dopri45, rtol 1e-12) its centre follows the
// parabola p0 + v0 t + ½ g t² and its angular momentum and kinetic energy stay what they were
// thrown with, and the maximal run puts it at the same place.
TEST(JointSpaceFreeParts, ATumblingBoxKeepsItsMomentumAndEnergyAndFallsOnItsParabola) {
    SceneSpec spec;
    spec.name = "tumbling box";
    const Part ground = test::groundPart(spec);
    Part box = test::boxPart(spec, "box", Vec3(0.3, 0.2, 0.1), Vec3(0.0, 0.0, 1.0));
    box.X_WP.R = quatFromRollPitchYaw(0.3, -0.2, 0.5);
    box.v_WPo_W = Vec3(1.0, 0.5, 4.0);
    box.w_WP_W = box.X_WP.R * Vec3(0.05, 6.0, 0.1);  // near the middle axis
    spec.parts = {ground, box};
    spec.settings.integrator = IntegratorType::DormandPrince45;
    spec.settings.relativeTolerance = 1e-12;
    spec.settings.absoluteTolerance = 1e-14;
    const std::shared_ptr<const Model> model = test::compiled(spec);
    ASSERT_TRUE(model);
    std::string why;
    const std::optional<JointTree> tree = buildJointTree(*model, initialState(*model), why);
    ASSERT_TRUE(tree) << why;
    ASSERT_EQ(tree->size(), 1);
    EXPECT_EQ(tree->links[0].kind, LinkKind::Free);
    EXPECT_EQ(tree->nq, 7);
    EXPECT_EQ(tree->nv, 6);
    EXPECT_NE(
        chooseFormulation(*variant(*model, Formulation::Recursive, IntegratorType::DormandPrince45))
            .reason.find("1 free part"),
        std::string::npos);

    ForwardDynamics recursive(
        variant(*model, Formulation::Recursive, IntegratorType::DormandPrince45));
    ForwardDynamics maximal(variant(*model, Formulation::Maximal, IntegratorType::DormandPrince45));
    ASSERT_EQ(recursive.formulation().formulation, Formulation::Recursive);
    ASSERT_TRUE(recursive.initialize().ok);
    ASSERT_TRUE(maximal.initialize().ok);
    const auto [P0, L0] = momenta(*model, recursive.state());
    const double T0 = kineticEnergy(*model, recursive.state());
    const Vec3 Lc0 = L0 - Vec3(0.0, 0.0, 1.0).cross(P0);  // about the centre
    double worstPath = 0.0, worstL = 0.0, worstT = 0.0, worstApart = 0.0;
    for (int k = 1; k <= 20; ++k) {
        const double t = 0.1 * k;
        ASSERT_TRUE(recursive.advance(t).ok);
        ASSERT_TRUE(maximal.advance(t).ok);
        const State& s = recursive.state();
        const Vec3 p = bodyPosition(s.q, 0);
        const Vec3 expected = Vec3(0.0, 0.0, 1.0) + box.v_WPo_W * t + 0.5 * model->gravity * t * t;
        worstPath = std::max(worstPath, (p - expected).norm());
        const auto [P, L] = momenta(*model, s);
        worstL = std::max(worstL, (L - p.cross(P) - Lc0).norm() / Lc0.norm());
        const double rotational = kineticEnergy(*model, s) - 0.5 * P.squaredNorm();
        worstT = std::max(worstT, std::abs(rotational - (T0 - 0.5 * P0.squaredNorm())) / T0);
        worstApart = std::max(
            {worstApart, (p - bodyPosition(maximal.state().q, 0)).norm(),
             bodyOrientation(s.q, 0).angularDistance(bodyOrientation(maximal.state().q, 0))});
        EXPECT_NEAR(bodyOrientation(s.q, 0).norm(), 1.0, 1e-14);
    }
    EXPECT_LT(worstPath, 1e-11);
    EXPECT_LT(worstL, 1e-10);
    EXPECT_LT(worstT, 1e-10);
    EXPECT_LT(worstApart, 1e-8);
    std::printf(
        "tumbling box: parabola within %.2g m, |ΔL|/|L| %.2g, ΔT/T %.2g, maximal run "
        "within %.2g\n",
        worstPath, worstL, worstT, worstApart);
}

// A floating base with an arm: a free part and a part hinged to it, in no gravity, set
// spinning and swinging. Joint coordinates step it as a tree hanging from a free root, its
// quaternion unit and the arm's hinge exact: rk4 at 1 ms keeps its linear and angular momenta
// (1e-12); semi-implicit Euler, first order, lets them drift by O(h) (as MuJoCo's step does in
// these coordinates: the momenta are not linear in them with a constant matrix), halving with
// the step.
TEST(JointSpaceFreeParts, AFloatingBaseWithAnArmKeepsItsMomenta) {
    SceneSpec spec;
    spec.name = "floating base";
    spec.gravity = Vec3::Zero();
    const Part ground = test::groundPart(spec);
    Part base = test::boxPart(spec, "base", Vec3(0.4, 0.3, 0.2), Vec3(0.0, 0.0, 0.0));
    base.w_WP_W = Vec3(0.3, -0.4, 2.0);
    base.v_WPo_W = Vec3(0.2, 0.0, 0.1);
    base.markers.push_back(test::marker(spec, "shoulder", Vec3(0.2, 0.0, 0.0)));
    Part arm = test::boxPart(spec, "arm", Vec3(0.5, 0.05, 0.05), Vec3(0.45, 0.0, 0.0));
    arm.markers.push_back(test::marker(spec, "shoulder", Vec3(-0.25, 0.0, 0.0)));
    arm.X_WP.R = Quat::Identity();
    spec.parts = {ground, base, arm};
    spec.joints = {test::joint(spec, "shoulder", JointType::Revolute, {"arm", "shoulder"},
                               {"base", "shoulder"})};
    // The arm moves with the base (its velocity at its place) and swings at 1 rad/s more.
    arm.w_WP_W = base.w_WP_W + Vec3(0.0, 0.0, 1.0);
    arm.v_WPo_W = base.v_WPo_W + base.w_WP_W.cross(Vec3(0.2, 0.0, 0.0)) +
                  arm.w_WP_W.cross(Vec3(0.25, 0.0, 0.0));
    spec.parts[2] = arm;
    const std::shared_ptr<const Model> model = test::compiled(spec);
    ASSERT_TRUE(model);
    auto drift = [&](IntegratorType integrator, double h, double& P_, double& L_) {
        ForwardDynamics sim(variant(*model, Formulation::Recursive, integrator, h));
        ASSERT_EQ(sim.formulation().formulation, Formulation::Recursive)
            << sim.formulation().reason;
        ASSERT_TRUE(sim.initialize().ok);
        const auto [P0, L0] = momenta(*model, sim.state());
        double gap = 0.0;
        P_ = L_ = 0.0;
        for (int k = 1; k <= 20; ++k) {
            ASSERT_TRUE(sim.advance(0.1 * k).ok);
            const auto [P, L] = momenta(*model, sim.state());
            P_ = std::max(P_, (P - P0).norm() / P0.norm());
            L_ = std::max(L_, (L - L0).norm() / L0.norm());
            Outputs out;
            ASSERT_TRUE(sim.outputs(out).ok);
            gap = std::max(gap, out.constraintError);
            EXPECT_NEAR(bodyOrientation(sim.state().q, 0).norm(), 1.0, 1e-14);
        }
        EXPECT_LT(gap, 1e-12);
    };
    double P = 0.0, L = 0.0;
    drift(IntegratorType::RungeKutta4, 1e-3, P, L);
    EXPECT_LT(P, 1e-12);
    EXPECT_LT(L, 1e-12);
    std::printf("floating base, rk4 at 1 ms: |ΔP|/|P| %.2g, |ΔL|/|L| %.2g\n", P, L);
    double P1 = 0.0, L1 = 0.0, P2 = 0.0, L2 = 0.0;
    drift(IntegratorType::SymplecticEuler, 1e-3, P1, L1);
    drift(IntegratorType::SymplecticEuler, 5e-4, P2, L2);
    EXPECT_LT(P1, 1e-2);
    EXPECT_LT(L1, 1e-2);
    EXPECT_NEAR(P1 / P2, 2.0, 0.3);
    EXPECT_NEAR(L1 / L2, 2.0, 0.3);
    std::printf(
        "floating base, symplecticEuler: |ΔP|/|P| %.2g at 1 ms, %.2g at 0.5 ms; |ΔL|/|L| "
        "%.2g, %.2g\n",
        P1, P2, L1, L2);
}

}  // namespace
}  // namespace engine
