// The contact solvers: Lemke on LCPs with known solutions, the friction polygon, and PGS
// against Lemke on small frictional problems taken from real contact configurations.

#include "engine/contact/contact_solver.h"
#include "engine/math/constants.h"
#include "engine/solver/worker_pool.h"

#include <gtest/gtest.h>

#include <Eigen/LU>

#include <cmath>
#include <random>

#include "engine/analysis/forward_dynamics.h"
#include "tests/support/contact_scenes.h"
#include "tests/support/simulation.h"

namespace engine::contact {
namespace {

TEST(Lemke, SolvesRandomLcpsWithSymmetricPositiveDefiniteMatrices) {
    std::mt19937 rng(7);
    std::normal_distribution<double> normal;
    for (int trial = 0; trial < 20; ++trial) {
        const int n = 3 + trial % 10;
        Eigen::MatrixXd A(n, n);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) A(i, j) = normal(rng);
        const Eigen::MatrixXd M = A.transpose() * A + Eigen::MatrixXd::Identity(n, n);
        Eigen::VectorXd q(n);
        for (int i = 0; i < n; ++i) q(i) = normal(rng);
        Eigen::VectorXd x;
        ASSERT_TRUE(lemke(M, q, x, 1000));
        const Eigen::VectorXd w = M * x + q;
        EXPECT_GE(x.minCoeff(), 0.0);
        EXPECT_GE(w.minCoeff(), -1e-10);
        EXPECT_LT(std::abs(x.dot(w)), 1e-10);
    }
}

TEST(Lemke, ReportsAnLcpWithoutSolution) {
    // w = −x − 1 ≥ 0 has no solution with x ≥ 0.
    Eigen::MatrixXd M(1, 1);
    M << -1.0;
    Eigen::VectorXd q(1), x;
    q << -1.0;
    EXPECT_FALSE(lemke(M, q, x, 100));
}

TEST(FrictionPolygon, KeepsInsidePointsAndProjectsOutsideOnesToTheBoundary) {
    EXPECT_TRUE(projectOntoPolygon({0.3, 0.2}, 1.0, 8).isApprox(Eigen::Vector2d(0.3, 0.2)));
    // Along a vertex direction the boundary is at R; half-way between two, at R cos(π/K).
    EXPECT_TRUE(projectOntoPolygon({2.0, 0.0}, 1.0, 8).isApprox(Eigen::Vector2d(1.0, 0.0)));
    const double a = kPi / 8.0;
    const Eigen::Vector2d p = projectOntoPolygon({2.0 * std::cos(a), 2.0 * std::sin(a)}, 1.0, 8);
    EXPECT_NEAR(p.norm(), std::cos(a), 1e-12);
    EXPECT_TRUE(projectOntoPolygon({1.0, 1.0}, 0.0, 8).isZero());
}

// One step of `spec` from its initial state with the given solver; the contact forces and the
// velocities after the step.
struct StepResult {
    Eigen::VectorXd v;
    std::vector<ContactForce> contacts;
    ContactSolverReport report;
    Eigen::VectorXd q;
};
StepResult oneStep(SceneSpec spec, ContactSolverType solver) {
    spec.contact.solver = solver;
    spec.contact.tolerance = 1e-12;
    spec.contact.iterations = 20000;
    ForwardDynamics fd(test::compiled(spec));
    EXPECT_TRUE(fd.initialize().ok);
    EXPECT_TRUE(fd.advance(spec.settings.stepSize).ok);
    Outputs out;
    EXPECT_TRUE(fd.outputs(out).ok);
    return {fd.state().v, out.contacts, out.contactSolver, fd.state().q};
}

// A ball on the ground with another leaning on it, both moving: two contacts, sliding and
// spinning, a problem with a unique solution.
SceneSpec leaningBalls(FrictionModel model) {
    SceneSpec spec = test::contactScene(1e-3, 0.0, 0.4);
    spec.contact.friction = model;
    const double r = 0.05;
    test::addBall(spec, "lower", r, Vec3(0, 0, r - 1e-4), 1.0, 0.4).v_WPo_W = Vec3(0.3, -0.1, -0.2);
    spec.parts.back().w_WP_W = Vec3(2.0, 1.0, 0.5);
    const Vec3 offset = Vec3(0.6, 0.3, 0.74).normalized() * (2 * r - 1e-4);
    test::addBall(spec, "upper", r, Vec3(0, 0, r) + offset, 2.0, 0.4).v_WPo_W =
        Vec3(-0.2, 0.4, -0.5);
    return spec;
}

TEST(ContactSolvers, PgsAgreesWithLemkeOnASmallFrictionalProblem) {
    for (FrictionModel model : {FrictionModel::Box, FrictionModel::Cone}) {
        const SceneSpec spec = leaningBalls(model);
        const StepResult pgs = oneStep(spec, ContactSolverType::ProjectedGaussSeidel);
        const StepResult exact = oneStep(spec, ContactSolverType::Lemke);
        ASSERT_TRUE(pgs.report.converged);
        ASSERT_TRUE(exact.report.converged);
        ASSERT_EQ(pgs.contacts.size(), 2u);
        ASSERT_EQ(exact.contacts.size(), 2u);
        EXPECT_LT((pgs.v - exact.v).cwiseAbs().maxCoeff(), 1e-9) << frictionModelName(model);
        for (std::size_t k = 0; k < 2; ++k) {
            EXPECT_NEAR(pgs.contacts[k].normalForce, exact.contacts[k].normalForce, 1e-6)
                << frictionModelName(model);
            EXPECT_LT((pgs.contacts[k].frictionForce_W - exact.contacts[k].frictionForce_W).norm(),
                      1e-6)
                << frictionModelName(model);
            // Something to agree on: both contacts push, and at least one slides at the limit.
            EXPECT_GT(exact.contacts[k].normalForce, 1.0);
        }
    }
}

TEST(ContactSolvers, PgsAgreesWithLemkeOnABoxLandingWhileSliding) {
    // A face landing flat: its four corners touch. Their normal forces are not unique, and with
    // friction (each corner's limit is μ times its own normal force) neither is the sliding
    // motion: both solvers must give the same motion along the normals (the fall stopped, no
    // tilt) and the same total normal impulse, and each a valid contact solution: pushing
    // forces, friction within its limit.
    const double mu = 0.5;
    for (FrictionModel model : {FrictionModel::Box, FrictionModel::Cone}) {
        SceneSpec spec = test::contactScene(1e-3, 0.0, mu);
        spec.contact.friction = model;
        Transform X;
        X.p = Vec3(0.0, 0.0, 0.05 - 2e-4);
        X.R = Quat(Eigen::AngleAxisd(0.3, Vec3::UnitZ()));
        Part& box = test::addBox(spec, "box", Vec3(0.2, 0.1, 0.1), X, 1.0, mu);
        box.v_WPo_W = Vec3(0.5, 0.2, -0.3);
        box.w_WP_W = Vec3(0.0, 0.0, 3.0);
        const StepResult pgs = oneStep(spec, ContactSolverType::ProjectedGaussSeidel);
        const StepResult exact = oneStep(spec, ContactSolverType::Lemke);
        ASSERT_TRUE(pgs.report.converged && exact.report.converged);
        EXPECT_GE(exact.contacts.size(), 3u);
        // Along the normals: v_z, ω_x, ω_y (the box's twist is v_W, ω in body axes, which
        // share z with the world here).
        for (int k : {2, 3, 4})
            EXPECT_NEAR(pgs.v(k), exact.v(k), 1e-8) << frictionModelName(model) << " " << k;
        double totalPgs = 0.0, totalExact = 0.0;
        for (const StepResult* r : {&pgs, &exact})
            for (const ContactForce& c : r->contacts) {
                (r == &pgs ? totalPgs : totalExact) += c.normalForce;
                EXPECT_GE(c.normalForce, 0.0);
                // Box friction bounds each tangent direction by μ N: at most √2 μ N in all.
                const double limit = (model == FrictionModel::Box ? std::sqrt(2.0) : 1.0) * mu;
                EXPECT_LE(c.frictionForce_W.norm(), limit * c.normalForce * (1 + 1e-9) + 1e-9);
            }
        EXPECT_NEAR(totalPgs, totalExact, 1e-6 * totalExact) << frictionModelName(model);
        // The fall is stopped, and the 0.2 mm overlap pushed out of by the positions alone
        // (split stabilisation): the box rises by the stabilisation's share of the depth beyond
        // the slop, and leaves the step with no velocity along the normal.
        const double rise = spec.contact.stabilization * (2e-4 - spec.contact.slop);
        for (const StepResult* r : {&pgs, &exact}) {
            EXPECT_NEAR(layout::position(r->q, 0).z(), X.p.z() + rise, 1e-12)
                << frictionModelName(model);
            EXPECT_NEAR(r->v(2), 0.0, 1e-10) << frictionModelName(model);
        }
    }
}

// A jointed mechanism's contacts (responses through the joints: U = A Jᵀ, A a mechanism's
// inverse mass, coupling every body) solved by PGS: the velocities it returns are the free ones
// plus U x for the impulses it returns — on every body the responses move, those no contact
// touches too — and the impulses meet the conditions of the problem (pushing, friction within
// its limit, no approach where a contact pushes, friction at its limit where it slides). Two
// mechanisms: a row-space island PGS sweeps on the rows' velocities (two contacts, ten bodies
// moved: a push reaches 6 rows, against 72 numbers on the velocities), and one it sweeps on the
// velocities (fourteen contacts on one body of four: 42 rows a push against 36 numbers).
TEST(ContactSolvers, PgsOnAMechanismsRowsMeetsTheConditionsWhicheverWayItSweeps) {
    struct Case {
        int bodies, contacts;
    };
    for (const Case mechanism : {Case{10, 2}, Case{4, 14}}) {
        std::mt19937_64 random(11);
        std::uniform_real_distribution<double> uniform(-1.0, 1.0);
        const int n = 6 * mechanism.bodies;
        const Eigen::MatrixXd L =
            Eigen::MatrixXd::NullaryExpr(n, n, [&] { return uniform(random); });
        const Eigen::MatrixXd A = L * L.transpose() / n + 0.1 * Eigen::MatrixXd::Identity(n, n);
        ContactProblem p;
        p.friction = FrictionModel::Box;
        Eigen::MatrixXd J = Eigen::MatrixXd::Zero(3 * mechanism.contacts, n);
        for (int k = 0; k < mechanism.contacts; ++k) {
            ContactRows c;
            c.bodyB = 0;  // against the ground, on body 0; the others moved through the joints
            c.friction = 0.4;
            c.Minv[0].setZero();
            c.Minv[1] = Vec6::Ones();
            c.target = 0.05 * (uniform(random) + 1.0);  // (a gap closed, or pushed out)
            // A point of body 0's lower face (its frame the world's here), the ground's normal
            // and tangents: row J_d = (a × d, d) on its twist (ω, ẋ), a the point's arm.
            const Vec3 arm(0.1 * uniform(random), 0.1 * uniform(random), -0.05);
            const Vec3 directions[3] = {Vec3::UnitZ(), Vec3::UnitX(), Vec3::UnitY()};
            for (int r = 0; r < 3; ++r) {
                c.J[r][0].setZero();
                c.J[r][1] << arm.cross(directions[r]), directions[r];
                J.block<1, 6>(3 * k + r, 0) = c.J[r][1].transpose();
            }
            p.contacts.push_back(c);
        }
        const Eigen::MatrixXd U = A * J.transpose();
        p.U.assign(U);
        Eigen::VectorXd vFree(n);
        for (int i = 0; i < n; ++i) vFree(i) = uniform(random);
        vFree(5) = -1.0;  // (body 0 falls onto the ground)
        Eigen::VectorXd v = vFree;
        const ContactSolveReport report = solvePgs(p, v, 20000, 1e-13);
        ASSERT_TRUE(report.converged) << mechanism.bodies << " bodies";
        Eigen::VectorXd x(3 * mechanism.contacts);
        for (int k = 0; k < mechanism.contacts; ++k)
            for (int r = 0; r < 3; ++r)
                x(3 * k + r) = p.contacts[static_cast<std::size_t>(k)].impulse[r];
        // v⁺ = v_f + U x on every body (the last ones no contact touches).
        EXPECT_LT((v - (vFree + U * x)).cwiseAbs().maxCoeff(), 1e-9) << mechanism.bodies;
        const Eigen::VectorXd w = J * v;
        int pushing = 0, sliding = 0;
        for (int k = 0; k < mechanism.contacts; ++k) {
            const ContactRows& c = p.contacts[static_cast<std::size_t>(k)];
            const double z = c.impulse[0], gap = w(3 * k) - c.target, limit = c.friction * z;
            EXPECT_GE(z, 0.0);
            EXPECT_GE(gap, -1e-9) << "contact " << k << " approaches";
            EXPECT_LT(std::abs(z * gap), 1e-9) << "contact " << k;
            pushing += z > 1e-9;
            for (int r = 1; r < 3; ++r) {
                const double beta = c.impulse[r], slip = w(3 * k + r);
                EXPECT_LE(std::abs(beta), limit * (1 + 1e-12) + 1e-15);
                if (!(limit > 0.0)) continue;  // (a contact that does not push holds nothing)
                if (std::abs(beta) < limit * (1 - 1e-6)) {
                    EXPECT_LT(std::abs(slip), 1e-9)
                        << "contact " << k << " slides within its limit";
                } else if (std::abs(slip) > 1e-9) {
                    EXPECT_LT(beta * slip, 0.0) << "contact " << k << "'s friction does not oppose";
                    ++sliding;
                }
            }
        }
        // Something to meet: contacts that push, and some at their friction limit.
        EXPECT_GT(pushing, 0) << mechanism.bodies;
        EXPECT_GT(sliding, 0) << mechanism.bodies;
    }
}

// A chain of 30 links on ball joints lying on the ground, four contacts at each link's corners,
// the chain sliding sideways and falling onto the ground: each contact's response moves every
// link through the joints (U = A Jᵀ, A the chain's inverse mass with its joints held), so the
// contacts couple along the chain as the nodes of a string do — Gauss–Seidel on them takes
// some n² sweeps for n links (docs/performance.md: a chain dragged through a pile). Solved on
// the velocities (its 360 rows' W columns hold more than its pushes move) to 1e-9 m/s from a
// cold start, the solution meets every condition: v⁺ = v_f + U x on every link, pushing
// impulses, no approach, friction within its limit and opposing the slip where it slides, and
// the ground's impulses are the chain's change of vertical momentum.
// Jointed bodies' exact responses: the constrained inverse mass
// A = M⁻¹ − M⁻¹Φᵀ (Φ M⁻¹ Φᵀ)⁻¹ Φ M⁻¹ (twists (ω, ẋ) in world axes, M⁻¹ diagonal).
Eigen::MatrixXd constrainedInverseMass(const Eigen::VectorXd& minv, const Eigen::MatrixXd& Phi) {
    const Eigen::MatrixXd MinvPhiT = minv.asDiagonal() * Phi.transpose();
    return Eigen::MatrixXd(minv.asDiagonal()) -
           MinvPhiT * (Phi * MinvPhiT).ldlt().solve(MinvPhiT.transpose());
}

// A contact of body `body` on the ground at `arm` from its centre (normal +z, tangents x and
// y, friction 0.5), its three rows also into J (3 rows a contact, 6 columns a body).
void addGroundContact(ContactProblem& p, Eigen::MatrixXd& J, const Eigen::VectorXd& minv, int body,
                      const Vec3& arm) {
    ContactRows c;
    c.bodyB = body;
    c.friction = 0.5;
    c.Minv[0].setZero();
    c.Minv[1] = minv.segment<6>(6 * body);
    const Vec3 directions[3] = {Vec3::UnitZ(), Vec3::UnitX(), Vec3::UnitY()};
    for (int r = 0; r < 3; ++r) {
        c.J[r][0].setZero();
        c.J[r][1] << arm.cross(directions[r]), directions[r];
        J.block<1, 6>(3 * static_cast<int>(p.contacts.size()) + r, 6 * body) =
            c.J[r][1].transpose();
    }
    p.contacts.push_back(c);
}

// Every condition of a ground-contact problem at v: v = v_f + U x, impulses within their
// limits, no approach, no impulse where a contact separates, friction that sticks holds,
// friction that slips opposes. Returns how many contacts push and how many rows slip, and the
// ground's whole normal impulse.
struct GroundContacts {
    int pushing = 0, sliding = 0;
    double load = 0.0;
};
GroundContacts expectSolved(const ContactProblem& p, const Eigen::MatrixXd& J,
                            const Eigen::MatrixXd& U, const Eigen::VectorXd& vFree,
                            const Eigen::VectorXd& v) {
    const auto contacts = static_cast<Eigen::Index>(p.contacts.size());
    Eigen::VectorXd x(3 * contacts);
    for (Eigen::Index k = 0; k < contacts; ++k)
        for (int r = 0; r < 3; ++r)
            x(3 * k + r) = p.contacts[static_cast<std::size_t>(k)].impulse[r];
    EXPECT_LT((v - (vFree + U * x)).cwiseAbs().maxCoeff(), 1e-9);
    const Eigen::VectorXd w = J * v;
    GroundContacts found;
    for (Eigen::Index k = 0; k < contacts; ++k) {
        const ContactRows& c = p.contacts[static_cast<std::size_t>(k)];
        const double z = c.impulse[0], limit = c.friction * z;
        EXPECT_GE(z, 0.0);
        EXPECT_GE(w(3 * k), -1e-8) << "contact " << k << " approaches";
        EXPECT_LT(std::abs(z * w(3 * k)), 1e-9) << "contact " << k;
        found.pushing += z > 1e-9;
        found.load += z;
        for (int r = 1; r < 3; ++r) {
            const double beta = c.impulse[r], slip = w(3 * k + r);
            EXPECT_LE(std::abs(beta), limit * (1 + 1e-12) + 1e-15);
            if (!(limit > 0.0)) continue;
            if (std::abs(beta) < limit * (1 - 1e-6)) {
                EXPECT_LT(std::abs(slip), 1e-8) << "contact " << k << " slides within its limit";
            } else if (std::abs(slip) > 1e-8) {
                EXPECT_LT(beta * slip, 0.0) << "contact " << k << "'s friction does not oppose";
                ++found.sliding;
            }
        }
    }
    return found;
}

TEST(ContactSolvers, AChainsContactsCoupledThroughItsJointsAreSolvedOnItsVelocities) {
    constexpr int kLinks = 30;
    const int n = 6 * kLinks;
    // Links 0.1 m long (along x) with their joints at their ends; twists (ω, ẋ) in world axes.
    const double pitch = 0.1, mass = 0.2, inertia = 2e-4;
    Eigen::VectorXd minv(n);
    for (int k = 0; k < kLinks; ++k)
        minv.segment<6>(6 * k) << Vec3::Constant(1.0 / inertia), Vec3::Constant(1.0 / mass);
    const auto centre = [&](int k) { return Vec3(-pitch * k, 0.0, 0.025); };
    // The joints' rows: the joint point's velocity on link k minus on link k + 1.
    Eigen::MatrixXd Phi = Eigen::MatrixXd::Zero(3 * (kLinks - 1), n);
    for (int k = 0; k + 1 < kLinks; ++k) {
        const Vec3 joint = centre(k) - Vec3(0.5 * pitch, 0.0, 0.0);
        for (int side = 0; side < 2; ++side) {
            const int link = k + side;
            const Vec3 arm = joint - centre(link);
            Eigen::Matrix3d cross;  // (ω × arm = −[arm]× ω)
            cross << 0, arm.z(), -arm.y(), -arm.z(), 0, arm.x(), arm.y(), -arm.x(), 0;
            const double sign = side == 0 ? 1.0 : -1.0;
            Phi.block<3, 3>(3 * k, 6 * link) = sign * cross;
            Phi.block<3, 3>(3 * k, 6 * link + 3) = sign * Eigen::Matrix3d::Identity();
        }
    }
    const Eigen::MatrixXd A = constrainedInverseMass(minv, Phi);
    ContactProblem p;
    p.friction = FrictionModel::Box;
    const int contacts = 4 * kLinks;
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(3 * contacts, n);
    for (int k = 0; k < kLinks; ++k)
        for (int corner = 0; corner < 4; ++corner)
            addGroundContact(p, J, minv, k,
                             Vec3(corner & 1 ? 0.04 : -0.04, corner & 2 ? 0.02 : -0.02, -0.025));
    const Eigen::MatrixXd U = A * J.transpose();
    p.U.assign(U);
    // Falling at 0.1 m/s, sliding sideways at 0.2 m/s at the head and less along the chain
    // (the joints hold the links together: the free velocity is the chain's own motion).
    Eigen::VectorXd vFree = Eigen::VectorXd::Zero(n);
    for (int k = 0; k < kLinks; ++k) {
        vFree(6 * k + 5) = -0.1;
        vFree(6 * k + 4) = 0.2 * (1.0 - static_cast<double>(k) / kLinks);
        vFree(6 * k + 2) = -0.2 / (pitch * kLinks);  // (ω_z turning the chain so)
    }
    Eigen::VectorXd v = vFree;
    const ContactSolveReport report = solvePgs(p, v, 10000, 1e-9);
    ASSERT_TRUE(report.converged) << report.iterations << " sweeps, " << report.residual;
    EXPECT_LT(report.iterations, 5000);  // (3,656 on 2026-12-06: the string's slow decay)
    std::printf("a chain of %d links on the ground: solved to 1e-9 m/s in %d sweeps\n", kLinks,
                report.iterations);
    const GroundContacts found = expectSolved(p, J, U, vFree, v);
    // The ground's impulses are the chain's change of vertical momentum (the joints' cancel),
    // and they stopped its fall: its links' centres no longer sink.
    double momentum = 0.0;
    for (int k = 0; k < kLinks; ++k) {
        momentum += mass * (v(6 * k + 5) - vFree(6 * k + 5));
        EXPECT_GT(v(6 * k + 5), -1e-8) << "link " << k;
    }
    EXPECT_NEAR(found.load, momentum, 1e-12);
    std::printf("  the ground's impulse %.6g N s, of the fall's %.6g\n", found.load,
                kLinks * mass * 0.1);
    EXPECT_GT(found.pushing, kLinks);
    EXPECT_GT(found.sliding, 0);
}

// A small mechanism whose parts differ in mass by 2,000×, as a legged robot's trunk and feet
// do: a 10 kg top held up by four 5 g legs on ball joints at its corners, each leg's foot on the
// ground at four corners (16 contacts, box friction), falling and sliding. The top's weight
// reaches the ground only through the light legs, and PGS carries it there slowly (to 1e-9 m/s
// in ~22,500 sweeps); with the island's Newton steps (solvePgs with its accelerations) it takes
// a thirtieth of them. Both meet every condition of the problem.
TEST(ContactSolvers, ASmallMechanismOfHeavyAndLightPartsIsSolvedByItsNewtonStep) {
    constexpr int kBodies = 5;  // the top, then the legs
    const int n = 6 * kBodies;
    const auto mass = [](int k) { return k == 0 ? 10.0 : 0.005; };
    const auto inertia = [](int k) { return k == 0 ? 0.1 : 1e-5; };
    Eigen::VectorXd minv(n);
    for (int k = 0; k < kBodies; ++k)
        minv.segment<6>(6 * k) << Vec3::Constant(1.0 / inertia(k)), Vec3::Constant(1.0 / mass(k));
    const double height = 0.3, leg = 0.25;
    const auto corner = [&](int k) {  // leg k's joint, at a corner of the top
        return Vec3(k & 1 ? 0.2 : -0.2, k & 2 ? 0.1 : -0.1, height);
    };
    const auto centre = [&](int body) {
        return body == 0 ? Vec3(0.0, 0.0, height)
                         : Vec3(corner(body - 1) - Vec3(0.0, 0.0, 0.5 * leg));
    };
    const auto rows = [](const Vec3& arm, const Vec3& direction) {
        Eigen::Matrix<double, 1, 6> row;
        row << arm.cross(direction).transpose(), direction.transpose();
        return row;
    };
    // The joints' rows: the joint point's velocity on the top minus on the leg.
    Eigen::MatrixXd Phi = Eigen::MatrixXd::Zero(3 * (kBodies - 1), n);
    for (int k = 0; k + 1 < kBodies; ++k)
        for (int axis = 0; axis < 3; ++axis) {
            const Vec3 direction = Vec3::Unit(axis);
            Phi.block<1, 6>(3 * k + axis, 0) = rows(corner(k) - centre(0), direction);
            Phi.block<1, 6>(3 * k + axis, 6 * (k + 1)) =
                -rows(corner(k) - centre(k + 1), direction);
        }
    const Eigen::MatrixXd A = constrainedInverseMass(minv, Phi);
    ContactProblem problem;
    problem.friction = FrictionModel::Box;
    const int contacts = 4 * (kBodies - 1);
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(3 * contacts, n);
    for (int body = 1; body < kBodies; ++body)
        for (int point = 0; point < 4; ++point)
            addGroundContact(problem, J, minv, body,
                             Vec3(point & 1 ? 0.01 : -0.01, point & 2 ? 0.01 : -0.01, -0.5 * leg));
    const Eigen::MatrixXd U = A * J.transpose();
    problem.U.assign(U);
    // Falling at 0.1 m/s and sliding along x at 0.05 m/s, all together.
    Eigen::VectorXd vFree = Eigen::VectorXd::Zero(n);
    for (int k = 0; k < kBodies; ++k) {
        vFree(6 * k + 5) = -0.1;
        vFree(6 * k + 3) = 0.05;
    }
    // Every condition of the problem at v (expectSolved), and the ground's impulses are the
    // mechanism's change of vertical momentum: the top no longer falls.
    const auto check = [&](const ContactProblem& p, const Eigen::VectorXd& v) {
        const GroundContacts found = expectSolved(p, J, U, vFree, v);
        double momentum = 0.0;
        for (int k = 0; k < kBodies; ++k) momentum += mass(k) * (v(6 * k + 5) - vFree(6 * k + 5));
        EXPECT_NEAR(found.load, momentum, 1e-9 * momentum);
        EXPECT_GT(v(5), -1e-8);
    };
    ContactProblem withNewton = problem, plain = problem;
    Eigen::VectorXd v = vFree, vPlain = vFree;
    const ContactSolveReport report = solvePgs(withNewton, v, 5000, 1e-9);
    ASSERT_TRUE(report.converged) << report.iterations << " sweeps, " << report.residual;
    EXPECT_GE(report.newtonSteps, 1);
    check(withNewton, v);
    const ContactSolveReport reference = solvePgs(plain, vPlain, 100000, 1e-9, false);
    ASSERT_TRUE(reference.converged) << reference.iterations << " sweeps";
    EXPECT_EQ(reference.newtonSteps, 0);
    check(plain, vPlain);
    // (759 sweeps with 47 Newton steps against 22,541 on 2026-12-06)
    EXPECT_GT(reference.iterations, 10 * report.iterations);
    std::printf("a heavy top on light legs: %d sweeps with %d Newton steps; plain PGS %d\n",
                report.iterations, report.newtonSteps, reference.iterations);

    // The same mechanism in coordinates of its own (as joint coordinates give it): a basis T of
    // the motions its joints allow (Φ T = 0, 18 rates), its mass in them Tᵀ M T, its rows over
    // them R = Tᵀ Jᵀ and their responses Z = (Tᵀ M T)⁻¹ R, with U = T Z = A Jᵀ as before. Its
    // 48 rows outnumber its 18 rates: the Newton step solves its system through the rates,
    // and meets every condition as the rows' own system does, in as few sweeps.
    const Eigen::MatrixXd T = Eigen::FullPivLU<Eigen::MatrixXd>(Phi).kernel();
    ASSERT_EQ(T.cols(), n - 3 * (kBodies - 1));
    const Eigen::MatrixXd Mr = T.transpose() * minv.cwiseInverse().asDiagonal() * T;
    const Eigen::MatrixXd R = T.transpose() * J.transpose();
    const Eigen::MatrixXd Z = Mr.ldlt().solve(R);
    ASSERT_LT((T * Z - U).cwiseAbs().maxCoeff(), 1e-9 * U.cwiseAbs().maxCoeff());
    ContactProblem inRates = problem;
    inRates.rowsInRates = &R;
    inRates.rateResponses = &Z;
    Eigen::VectorXd vRates = vFree;
    const ContactSolveReport throughRates = solvePgs(inRates, vRates, 5000, 1e-9);
    ASSERT_TRUE(throughRates.converged)
        << throughRates.iterations << " sweeps, " << throughRates.residual;
    EXPECT_GE(throughRates.newtonSteps, 1);
    check(inRates, vRates);
    EXPECT_LT(throughRates.iterations, 2 * report.iterations + 100);
    EXPECT_LT((vRates - v).cwiseAbs().maxCoeff(), 1e-6);  // (the same motion)
    std::printf("  through its %d rates: %d sweeps with %d Newton steps\n",
                static_cast<int>(T.cols()), throughRates.iterations, throughRates.newtonSteps);
}

TEST(ContactSolvers, ReportTheStepsWhosePgsSolveDidNotConverge) {
    SceneSpec spec = test::boxPile(50);
    spec.contact.iterations = 2;
    spec.contact.tolerance = 1e-9;
    ForwardDynamics fd(test::compiled(spec));
    ASSERT_TRUE(fd.initialize().ok);
    ASSERT_TRUE(fd.advance(0.2).ok);
    Outputs out;
    ASSERT_TRUE(fd.outputs(out).ok);
    EXPECT_FALSE(out.contactSolver.converged);
    EXPECT_GT(out.contactSolver.unconvergedSteps, 0);
    EXPECT_EQ(out.contactSolver.iterations, 2);
    EXPECT_GT(out.contactSolver.residual, 1e-9);
}

// Free parts of 1 kg (inertia 0.1 kg·m² about each axis, frames along the world's) touching at
// the given pairs (A < B, A = −1 the ground): four points a pair, around the middle of their
// centres, pushing along the line from A's centre to B's (up from the ground), friction 0.5.
ContactProblem touchingParts(const std::vector<Vec3>& centres,
                             const std::vector<std::pair<int, int>>& pairs) {
    ContactProblem p;
    for (const auto& [a, b] : pairs) {
        const Vec3 from = a < 0 ? Vec3(centres[static_cast<std::size_t>(b)].x(),
                                       centres[static_cast<std::size_t>(b)].y(), -0.5)
                                : centres[static_cast<std::size_t>(a)];
        const Vec3 to = centres[static_cast<std::size_t>(b)];
        const Vec3 n = (to - from).normalized();
        const Vec3 t1 = n.unitOrthogonal(), t2 = n.cross(t1);
        const Vec3 middle = 0.5 * (from + to);
        for (int corner = 0; corner < 4; ++corner) {
            const Vec3 point =
                middle + 0.2 * ((corner & 1 ? 1.0 : -1.0) * t1 + (corner & 2 ? 1.0 : -1.0) * t2);
            ContactRows c;
            c.bodyA = a;
            c.bodyB = b;
            c.friction = 0.5;
            const Vec3 directions[3] = {n, t1, t2};
            for (int side = 0; side < 2; ++side) {
                const int body = side == 0 ? a : b;
                if (body < 0) continue;
                const Vec3 arm = point - centres[static_cast<std::size_t>(body)];
                for (int r = 0; r < 3; ++r)
                    c.J[r][side] << (side == 0 ? -1.0 : 1.0) * directions[r],
                        (side == 0 ? -1.0 : 1.0) * arm.cross(directions[r]);
                c.Minv[side] << 1.0, 1.0, 1.0, 10.0, 10.0, 10.0;
            }
            p.contacts.push_back(c);
        }
    }
    return p;
}

// The coarse correction carries a stack's weight down in few sweeps, and is not made where its
// system would cost more than every sweep of the solve: 40 parts pressed together, each
// touching all the others (as parts started inside one another do), give 780 interfaces each
// sharing a part with 76 others, a system whose factor fills in to 4,680 unknowns square (about
// 3e10 flops a correction, against 1.4e8 for 100 sweeps of their 3,120 contacts). Both solves
// give pushing impulses within the friction limits and finite velocities.
TEST(ContactSolvers, CoarseCorrectionsAreMadeWhereTheyPayOnly) {
    constexpr int kStack = 30, kPressed = 40;
    struct Case {
        std::vector<Vec3> centres;
        std::vector<std::pair<int, int>> pairs;
        Eigen::VectorXd v;
    };
    Case stack, pressed;
    stack.v = Eigen::VectorXd::Zero(6 * kStack);
    for (int i = 0; i < kStack; ++i) {
        stack.centres.emplace_back(0.0, 0.0, i);
        stack.pairs.emplace_back(i - 1, i);
        stack.v(6 * i + 2) = -9.81e-3;  // a millisecond of gravity
    }
    std::mt19937 random(7);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    pressed.v = Eigen::VectorXd::Zero(6 * kPressed);
    for (int i = 0; i < kPressed; ++i) {
        pressed.centres.emplace_back(uniform(random), uniform(random), uniform(random));
        pressed.v.segment<3>(6 * i) = -0.1 * pressed.centres.back();  // (towards the others)
        for (int j = 0; j < i; ++j) pressed.pairs.emplace_back(j, i);
    }
    for (Case* c : {&stack, &pressed}) {
        ContactProblem problem = touchingParts(c->centres, c->pairs);
        const ContactSolveReport report =
            solvePgs(problem, c->v, 100, 1e-6, /*coarse=*/true, nullptr);
        if (c == &stack)
            EXPECT_GT(report.coarseSteps, 0);
        else
            EXPECT_EQ(report.coarseSteps, 0);
        EXPECT_TRUE(c->v.allFinite());
        double pushed = 0.0;
        for (const ContactRows& row : problem.contacts) {
            EXPECT_GE(row.impulse[0], 0.0);
            EXPECT_LE(std::hypot(row.impulse[1], row.impulse[2]),
                      std::sqrt(2.0) * 0.5 * row.impulse[0] * (1 + 1e-9) + 1e-12);
            pushed += row.impulse[0];
        }
        EXPECT_GT(pushed, 0.0);
    }
}

// The islands given by the caller (ContactProblem::islandStart) are solved as those the solver
// finds: eight stacks of 6 to 27 parts side by side (each converging in its own number of
// sweeps), each stack's contacts together (528 contacts: solved on the threads when there
// are two), some rows biased (each stack solved twice, for the whole targets and for the
// targets less the biases), warm-started. The impulses, v⁺ and the positions' velocities are
// the same bit for bit, found or given, on one thread or two; two stacks given as one island
// are not (the sweeps of both go on until both converge); ranges that are no islands are not
// taken. A part after each stack touches nothing: its velocity is left as it was, in v⁺ and in
// the positions' velocities (each island writes its own parts' only).
TEST(ContactSolvers, IslandsGivenAreSolvedAsIslandsFound) {
    constexpr int kStacks = 8;
    const auto height = [](int stack) { return 6 + 3 * stack; };
    std::vector<Vec3> centres;
    std::vector<std::pair<int, int>> pairs;
    std::vector<std::size_t> islandStart{0};
    std::vector<int> alone;  // (the parts touching nothing)
    // (6 + 9 + … + 27 parts in the stacks, one alone after each)
    Eigen::VectorXd v0 = Eigen::VectorXd::Zero(6 * (132 + kStacks));
    for (int s = 0, part = 0; s < kStacks; ++s, ++part) {
        for (int i = 0; i < height(s); ++i, ++part) {
            centres.emplace_back(3.0 * s, 0.1 * s, i);
            pairs.emplace_back(i == 0 ? -1 : part - 1, part);
            v0(6 * part + 2) = -9.81e-3 * (1.0 + 0.1 * s);
            v0(6 * part) = 1e-3 * (s - 3);  // (sliding a little: friction at work)
        }
        islandStart.push_back(4 * pairs.size());        // (four points a pair)
        centres.emplace_back(3.0 * s + 1.5, 0.0, 5.0);  // (flying between the stacks)
        alone.push_back(part);
        for (int i = 0; i < 6; ++i) v0(6 * part + i) = 0.01 * (i + 1) - 0.003 * s;
    }
    ContactProblem base = touchingParts(centres, pairs);
    for (std::size_t k = 0; k < base.contacts.size(); ++k) {
        ContactRows& c = base.contacts[k];
        c.impulse[0] = 0.002 * static_cast<double>(k % 7);  // (a warm start)
        if (k % 5 == 0) {
            c.target = 0.01;
            c.bias = 0.01;
        }
    }
    ASSERT_GE(base.contacts.size(), kParallelContacts);
    struct Solved {
        std::vector<double> impulses;
        Eigen::VectorXd v, positionVelocity;
        ContactSolveReport report;
    };
    const int threadsBefore = workerThreads();
    const auto solve = [&](bool given, int threads, bool joined = false) {
        setWorkerThreads(threads);
        ContactProblem problem = base;
        if (given) problem.islandStart = islandStart;
        if (joined) problem.islandStart.erase(problem.islandStart.begin() + 1);
        Solved out;
        out.v = v0;
        out.report = solvePgs(problem, out.v, 500, 1e-7, true, &out.positionVelocity);
        for (const ContactRows& c : problem.contacts)
            out.impulses.insert(out.impulses.end(), c.impulse, c.impulse + 3);
        return out;
    };
    const Solved found = solve(false, 1);
    for (int part = 0; part < static_cast<int>(centres.size()); ++part) {  // (stacks stopped)
        if (std::find(alone.begin(), alone.end(), part) != alone.end()) continue;
        EXPECT_GT(found.v(6 * part + 2), -1e-5) << part;  // (from about −0.01 m/s)
    }
    for (const int part : alone) {
        EXPECT_EQ(found.v.segment<6>(6 * part), v0.segment<6>(6 * part)) << part;
        EXPECT_EQ(found.positionVelocity.segment<6>(6 * part), v0.segment<6>(6 * part)) << part;
    }
    double pushed = 0.0;
    for (std::size_t k = 0; k < found.impulses.size(); k += 3) pushed += found.impulses[k];
    EXPECT_GT(pushed, 0.0);
    for (const auto& [given, threads] : {std::pair{true, 1}, {false, 2}, {true, 2}}) {
        const Solved other = solve(given, threads);
        EXPECT_EQ(other.impulses, found.impulses) << given << " " << threads;
        EXPECT_EQ(other.v, found.v) << given << " " << threads;
        EXPECT_EQ(other.positionVelocity, found.positionVelocity) << given << " " << threads;
        EXPECT_EQ(other.report.iterations, found.report.iterations);
        EXPECT_EQ(other.report.residual, found.report.residual);
    }
    EXPECT_NE(solve(true, 1, true).impulses, found.impulses);
    // Ranges that cannot be islands (not increasing, an empty one, not ending at the last
    // contact, not starting at the first) are not taken: the solver finds the islands itself.
    for (const std::vector<std::size_t>& bad :
         {std::vector<std::size_t>{0, 40, 20, base.contacts.size()},
          std::vector<std::size_t>{0, 24, 24, base.contacts.size()},
          std::vector<std::size_t>{0, 24, base.contacts.size() + 8},
          std::vector<std::size_t>{4, 24, base.contacts.size()}}) {
        setWorkerThreads(2);
        ContactProblem problem = base;
        problem.islandStart = bad;
        Eigen::VectorXd v = v0, positionVelocity;
        (void)solvePgs(problem, v, 500, 1e-7, true, &positionVelocity);
        std::vector<double> impulses;
        for (const ContactRows& c : problem.contacts)
            impulses.insert(impulses.end(), c.impulse, c.impulse + 3);
        EXPECT_EQ(impulses, found.impulses);
        EXPECT_EQ(v, found.v);
    }
    setWorkerThreads(threadsBefore);
}

}  // namespace
}  // namespace engine::contact
