// Joints on curves (seed 004's curve end frames): the curves themselves (splines through their
// points with continuous curvature, expressions with their derivatives, the nearest point),
// the point-on-curve and cam-pair rows against finite differences, a bead sliding down a
// helix (v² = 2 g Δz, energy kept), and bad curves refused with their place.

#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "engine/analysis/lift_off_watch.h"
#include "engine/constraints/constraints.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/model/curve.h"
#include "engine/model/layout.h"
#include "engine/model/model.h"
#include "engine/model/surface.h"
#include "engine/state/state.h"
#include "tests/support/body_motion.h"
#include "tests/support/scene_builders.h"
#include "tests/support/scene_errors.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Where the first error is ("" when none).
std::string errorPlace(const Diagnostics& diagnostics) {
    const std::string e = test::firstError(diagnostics);
    return e.substr(0, e.find(": "));
}

std::shared_ptr<const Curve> makeCurve(const CurveSpec& spec) {
    std::string error, key;
    auto c = Curve::make(spec, error, key);
    EXPECT_TRUE(c) << key << ": " << error;
    return c;
}

// A helix about z of radius r rising `pitch` per turn, `turns` turns, as spline points.
CurveSpec helixSpline(double r, double pitch, double turns, int perTurn) {
    CurveSpec c;
    const int n = static_cast<int>(turns * perTurn);
    for (int k = 0; k <= n; ++k) {
        const double a = 2.0 * kPi * k / perTurn;
        c.points.emplace_back(r * std::cos(a), r * std::sin(a), pitch * a / (2.0 * kPi));
    }
    return c;
}

CurveSpec circleExpression(double cx, double cy, double radius) {
    CurveSpec c;
    c.type = CurveType::Expression;
    c.x = std::to_string(cx) + " + " + std::to_string(radius) + "*cos(s)";
    c.y = std::to_string(cy) + " + " + std::to_string(radius) + "*sin(s)";
    c.z = "0";
    c.start = 0.0;
    c.end = 2.0 * kPi;
    c.closed = true;
    return c;
}

TEST(Curves, ASplinePassesThroughItsPointsWithContinuousCurvature) {
    for (const bool closed : {false, true}) {
        CurveSpec spec;
        spec.points = {{0, 0, 0}, {1, 0.5, 0}, {2, -0.3, 0.2}, {3, 0.4, 0.1}, {3.5, 1.5, 0}};
        spec.closed = closed;
        const auto c = makeCurve(spec);
        ASSERT_TRUE(c);
        double s = 0.0;
        for (std::size_t k = 0; k < spec.points.size(); ++k) {
            if (k > 0) s += (spec.points[k] - spec.points[k - 1]).norm();
            EXPECT_LT((c->at(s).x - spec.points[k]).norm(), 1e-12) << "point " << k;
            // Across the knot: position, tangent and curvature continuous.
            const double e = 1e-9;
            const Curve::Point a = c->at(s - e), b = c->at(s + e);
            EXPECT_LT((a.d1 - b.d1).norm(), 1e-7);
            EXPECT_LT((a.d2 - b.d2).norm(), 1e-6);
            // The derivatives are those of the positions.
            const double h = 1e-5;
            const Vec3 d1 = (c->at(s + 0.3 + h).x - c->at(s + 0.3 - h).x) / (2 * h);
            EXPECT_LT((d1 - c->at(s + 0.3).d1).norm(), 1e-8);
            const Vec3 d2 = (c->at(s + 0.3 + h).d1 - c->at(s + 0.3 - h).d1) / (2 * h);
            EXPECT_LT((d2 - c->at(s + 0.3).d2).norm(), 1e-6);
        }
        if (closed) {
            // Round the loop: the end meets the start with its tangent and curvature.
            const Curve::Point a = c->at(c->end() - 1e-12), b = c->at(c->start());
            EXPECT_LT((a.x - b.x).norm(), 1e-10);
            EXPECT_LT((a.d1 - b.d1).norm(), 1e-8);
            EXPECT_LT((a.d2 - b.d2).norm(), 1e-6);
        } else {
            // Natural: straight at its ends, and beyond them.
            EXPECT_LT(c->at(c->start()).d2.norm(), 1e-12);
            const Curve::Point end = c->at(c->end()), past = c->at(c->end() + 0.5);
            EXPECT_LT((past.x - (end.x + 0.5 * end.d1)).norm(), 1e-12);
        }
    }
}

TEST(Curves, AnExpressionCurvesDerivativesAreItsOwn) {
    const auto c = makeCurve(circleExpression(0.01, 0.0, 0.04));
    ASSERT_TRUE(c);
    for (double s : {0.0, 0.7, 3.1, 6.0, 7.5}) {
        const Curve::Point p = c->at(s);
        EXPECT_NEAR(p.x.x(), 0.01 + 0.04 * std::cos(s), 1e-15);
        EXPECT_NEAR(p.d1.x(), -0.04 * std::sin(s), 1e-12);
        EXPECT_NEAR(p.d1.y(), 0.04 * std::cos(s), 1e-12);
        EXPECT_NEAR(p.d2.x(), -0.04 * std::cos(s), 1e-9);
        EXPECT_NEAR(p.d2.y(), -0.04 * std::sin(s), 1e-9);
    }
    EXPECT_EQ(c->orientation(), 1.0);  // counter-clockwise
}

TEST(Curves, TheNearestPointIsFoundOnTheRightTurnOfAHelix) {
    const auto c = makeCurve(helixSpline(0.1, 0.03, 3.0, 16));
    ASSERT_TRUE(c);
    for (double s = 0.05; s < c->end(); s += 0.137) {
        const Curve::Point p = c->at(s);
        const Vec3 off = p.d1.cross(Vec3::UnitZ()).normalized() * 2e-3;  // off the curve
        EXPECT_NEAR(c->nearest(p.x + off), s, 1e-4) << "s = " << s;
        EXPECT_NEAR(c->nearest(p.x), s, 1e-12) << "s = " << s;
    }
}

// ---- Rows against finite differences.

using test::moved;
using test::perturb;

// Φ and the joint's coordinate at q.
Eigen::VectorXd evaluate(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
    std::vector<BodyFrame> frames;
    computeBodyFrames(model, q, v, frames);
    ConstraintEvaluation e;
    evaluateConstraints(model, 0.0, frames, e);
    const int coordinates = static_cast<int>(model.joints[0].coordinates.size());
    Eigen::VectorXd out(e.Phi.size() + coordinates);
    out.head(e.Phi.size()) = e.Phi;
    for (int k = 0; k < coordinates; ++k)
        out(e.Phi.size() + k) = jointCoordinateValue(model, frames, 0, k);
    return out;
}

// The rows and the coordinate: Jacobian column by column, rate and γ along a motion at
// constant body velocities.
void checkRows(const Model& model, const State& s, const std::string& what, double gammaTol) {
    std::vector<BodyFrame> frames;
    computeBodyFrames(model, s.q, s.v, frames);
    ConstraintEvaluation e;
    evaluateConstraints(model, 0.0, frames, e);
    const int n = static_cast<int>(e.Phi.size());
    const int coordinates = static_cast<int>(model.joints[0].coordinates.size());
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(n + coordinates, model.velocitySize());
    J.topRows(n) = Eigen::MatrixXd(e.Phi_q);
    Eigen::VectorXd gamma(n + coordinates);
    gamma.head(n) = e.gamma;
    const MarkerModel& mi = model.markers[static_cast<std::size_t>(model.joints[0].markerI)];
    const MarkerModel& mj = model.markers[static_cast<std::size_t>(model.joints[0].markerJ)];
    for (int k = 0; k < coordinates; ++k) {
        const ConstraintRow c = jointCoordinate(model, frames, 0, k);
        if (mi.body >= 0) J.block<1, 6>(n + k, layout::velocityIndex(mi.body)) += c.Ji;
        if (mj.body >= 0) J.block<1, 6>(n + k, layout::velocityIndex(mj.body)) += c.Jj;
        gamma(n + k) = c.gamma;
    }

    const double eps = 1e-6;
    for (int b = 0; b < model.bodyCount(); ++b)
        for (int k = 0; k < 6; ++k) {
            Eigen::VectorXd qp = s.q, qm = s.q;
            perturb(qp, b, k, eps);
            perturb(qm, b, k, -eps);
            const Eigen::VectorXd fd =
                (evaluate(model, qp, s.v) - evaluate(model, qm, s.v)) / (2 * eps);
            const int col = layout::velocityIndex(b) + k;
            EXPECT_LT((fd - J.col(col)).cwiseAbs().maxCoeff(), 1e-6)
                << what << ": column " << col << "\nfd " << fd.transpose() << "\nJ  "
                << J.col(col).transpose();
        }
    const double h = 1e-4;
    const Eigen::VectorXd p0 = evaluate(model, s.q, s.v);
    const Eigen::VectorXd pp = evaluate(model, moved(model, s, h), s.v);
    const Eigen::VectorXd pm = evaluate(model, moved(model, s, -h), s.v);
    const Eigen::VectorXd rate = (pp - pm) / (2 * h);
    const Eigen::VectorXd accel = (pp - 2 * p0 + pm) / (h * h);
    EXPECT_LT((rate - J * s.v).cwiseAbs().maxCoeff(), 1e-6)
        << what << " rate\nfd " << rate.transpose() << "\nJv " << (J * s.v).transpose();
    EXPECT_LT((accel + gamma).cwiseAbs().maxCoeff(), gammaTol)
        << what << " gamma\nΦ̈ " << accel.transpose() << "\n−γ " << -gamma.transpose();
}

Part freePart(SceneSpec& spec, const std::string& name, const Transform& X_WP) {
    Part part;
    part.id = spec.newId();
    part.name = name;
    part.mass = 2.0;
    part.I_Pcm_P = Vec3(0.3, 0.4, 0.5).asDiagonal();
    part.p_PPcm = Vec3(0.02, -0.01, 0.03);
    part.X_WP = X_WP;
    return part;
}

TEST(CurveJoints, APointOnACurvesRowsMatchFiniteDifferences) {
    std::mt19937 rng(3);
    std::normal_distribution<double> g;
    for (int trial = 0; trial < 4; ++trial) {
        const bool ground = trial == 3;
        SceneSpec spec;
        const Transform X_WB{Quat(g(rng), g(rng), g(rng), g(rng)).normalized(),
                             Vec3(g(rng), g(rng), g(rng)) * 0.2};
        Part b = freePart(spec, "b", X_WB);
        b.ground = ground;
        Marker frame = test::marker(spec, "frame", Vec3(0.05, 0.02, -0.03));
        frame.X_PM.R = Quat(g(rng), g(rng), g(rng), g(rng)).normalized();
        b.markers.push_back(frame);
        CurveSpec curve = trial % 2 ? helixSpline(0.1, 0.05, 2.0, 12) : CurveSpec{};
        if (trial % 2 == 0) {
            curve.type = CurveType::Expression;
            curve.x = "0.1*cos(s) + 0.02*s";
            curve.y = "0.07*sin(2*s)";
            curve.z = "0.03*s*s";
            curve.start = -1.0;
            curve.end = 2.0;
        }
        const auto c = makeCurve(curve);
        ASSERT_TRUE(c);
        const double s0 = c->start() + 0.37 * (c->end() - c->start());
        const Vec3 onCurve_W = X_WB * (frame.X_PM * c->at(s0).x);
        const Transform X_WA{Quat(g(rng), g(rng), g(rng), g(rng)).normalized(),
                             Vec3(g(rng), g(rng), g(rng)) * 0.2};
        Part a = freePart(spec, "a", X_WA);
        a.markers.push_back(test::marker(spec, "pin", X_WA.inverse() * onCurve_W));
        spec.parts = {a, b};
        Joint j;
        j.id = spec.newId();
        j.name = "slot";
        j.type = JointType::PointOnCurve;
        j.markerI = {"a", "pin"};
        j.markerJ = {"b", "frame"};
        j.curve = curve;
        spec.joints = {j};
        const auto model = test::compiled(spec);
        ASSERT_TRUE(model);
        ASSERT_EQ(model->jointRows, 2);
        State s = initialState(*model);
        // Velocities that keep the point on the curve.
        s.v = Eigen::VectorXd::Random(s.v.size());
        std::vector<BodyFrame> frames;
        computeBodyFrames(*model, s.q, s.v, frames);
        ConstraintEvaluation e;
        evaluateConstraints(*model, 0.0, frames, e);
        EXPECT_LT(e.Phi.cwiseAbs().maxCoeff(), 1e-12);
        const Eigen::MatrixXd J = Eigen::MatrixXd(e.Phi_q);
        s.v -= J.transpose() * (J * J.transpose()).ldlt().solve(J * s.v);
        EXPECT_NEAR(jointCoordinateValue(*model, frames, 0, 0), s0, 1e-10);
        checkRows(*model, s, "pointOnCurve trial " + std::to_string(trial), 2e-5);
    }
}

TEST(CurveJoints, APointOnASurfacesRowMatchesFiniteDifferences) {
    std::mt19937 rng(9);
    std::normal_distribution<double> g;
    for (int trial = 0; trial < 4; ++trial) {
        SceneSpec spec;
        const Transform X_WB{Quat(g(rng), g(rng), g(rng), g(rng)).normalized(),
                             Vec3(g(rng), g(rng), g(rng)) * 0.2};
        Part b = freePart(spec, "b", X_WB);
        b.ground = trial == 3;
        Marker frame = test::marker(spec, "frame", Vec3(0.05, 0.02, -0.03));
        frame.X_PM.R = Quat(g(rng), g(rng), g(rng), g(rng)).normalized();
        b.markers.push_back(frame);
        SurfaceSpec surface;
        if (trial % 2 == 0) {
            surface.x = "u + 0.1*v^2";
            surface.y = "v + 0.05*u*v";
            surface.z = "0.3*sin(2*u)*cos(v)";
            surface.uStart = surface.vStart = -1.0;
            surface.uEnd = surface.vEnd = 1.0;
        } else {
            surface.type = SurfaceType::Grid;
            surface.xs = {-0.4, -0.2, 0.0, 0.15, 0.4};
            surface.ys = {-0.3, -0.1, 0.1, 0.3};
            std::uniform_real_distribution<double> h(-0.01, 0.01);
            for (std::size_t j = 0; j < surface.ys.size(); ++j) {
                surface.heights.emplace_back();
                for (std::size_t i = 0; i < surface.xs.size(); ++i)
                    surface.heights[j].push_back(h(rng));
            }
        }
        std::string error, key;
        const auto made = Surface::make(surface, error, key);
        ASSERT_TRUE(made) << key << ": " << error;
        const Vec3 on_W = X_WB * (frame.X_PM * made->at(0.13, -0.07).x);
        const Transform X_WA{Quat(g(rng), g(rng), g(rng), g(rng)).normalized(),
                             Vec3(g(rng), g(rng), g(rng)) * 0.2};
        Part a = freePart(spec, "a", X_WA);
        a.markers.push_back(test::marker(spec, "tip", X_WA.inverse() * on_W));
        spec.parts = {a, b};
        Joint j;
        j.id = spec.newId();
        j.name = "on";
        j.type = JointType::PointOnSurface;
        j.markerI = {"a", "tip"};
        j.markerJ = {"b", "frame"};
        j.surface = surface;
        spec.joints = {j};
        const auto model = test::compiled(spec);
        ASSERT_TRUE(model);
        ASSERT_EQ(model->jointRows, 1);
        State s = initialState(*model);
        s.v = Eigen::VectorXd::Random(s.v.size());
        std::vector<BodyFrame> frames;
        computeBodyFrames(*model, s.q, s.v, frames);
        ConstraintEvaluation e;
        evaluateConstraints(*model, 0.0, frames, e);
        EXPECT_LT(e.Phi.cwiseAbs().maxCoeff(), 1e-12);
        EXPECT_NEAR(jointCoordinateValue(*model, frames, 0, 0), 0.13, 1e-9);
        EXPECT_NEAR(jointCoordinateValue(*model, frames, 0, 1), -0.07, 1e-9);
        const Eigen::MatrixXd J = Eigen::MatrixXd(e.Phi_q);
        s.v -= J.transpose() * (J * J.transpose()).ldlt().solve(J * s.v);
        checkRows(*model, s, "pointOnSurface trial " + std::to_string(trial), 2e-4);
    }
}

// A point mass in a frictionless spherical bowl of radius R: it rocks at √(g/R) about the
// bottom, its energy kept.
TEST(CurveJoints, ABallInASphericalBowlRocksAtTheRootOfGOverR) {
    const double R = 0.5, x0 = 0.02;
    SceneSpec spec;
    Part ground;
    ground.id = spec.newId();
    ground.name = "ground";
    ground.ground = true;
    ground.markers.push_back(test::marker(spec, "bowl", Vec3::Zero()));
    Part ball = test::boxPart(spec, "ball", Vec3(0.01, 0.01, 0.01),
                              Vec3(x0, 0.0, R - std::sqrt(R * R - x0 * x0)));
    ball.mass = 0.2;
    ball.I_Pcm_P = Vec3::Constant(1e-6).asDiagonal();
    ball.markers.push_back(test::marker(spec, "centre", Vec3::Zero()));
    spec.parts = {ground, ball};
    Joint j;
    j.id = spec.newId();
    j.name = "bowl";
    j.type = JointType::PointOnSurface;
    j.markerI = {"ball", "centre"};
    j.markerJ = {"ground", "bowl"};
    j.surface.x = "u";
    j.surface.y = "v";
    j.surface.z = "0.5 - sqrt(0.25 - u^2 - v^2)";
    j.surface.uStart = j.surface.vStart = -0.3;
    j.surface.uEnd = j.surface.vEnd = 0.3;
    spec.joints = {j};
    ForwardDynamics sim(test::compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    const double balance0 = out.energies.balance();
    double worst = 0.0, previous = x0;
    std::vector<double> crossings;
    for (int k = 1; k <= 4000; ++k) {
        const double t = 1e-3 * k;
        ASSERT_TRUE(sim.advance(t).ok);
        const double x = layout::position(sim.state().q, 0).x();
        if ((previous > 0.0) != (x > 0.0))
            crossings.push_back(t - 1e-3 * x / (x - previous));  // linear between the two
        previous = x;
        if (k % 100 == 0) {
            ASSERT_TRUE(sim.outputs(out).ok);
            worst = std::max(worst, std::abs(out.energies.balance() - balance0));
        }
    }
    ASSERT_GE(crossings.size(), 4u);
    const double period =
        2.0 * (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
    EXPECT_NEAR(2.0 * kPi / period, std::sqrt(9.81 / R), 0.01 * std::sqrt(9.81 / R));
    const double energy = 0.2 * 9.81 * (R - std::sqrt(R * R - x0 * x0));
    EXPECT_LT(worst, 1e-7 * energy);
}

// A ball joint's cone angle (its one coordinate, what a cone limit stops) against finite
// differences, between two turning bodies.
TEST(ConeLimits, ABallJointsConeAngleMatchesFiniteDifferences) {
    std::mt19937 rng(21);
    std::normal_distribution<double> g;
    for (int trial = 0; trial < 3; ++trial) {
        SceneSpec spec;
        Part a = freePart(spec, "a",
                          Transform{Quat(g(rng), g(rng), g(rng), g(rng)).normalized(),
                                    Vec3(g(rng), g(rng), g(rng)) * 0.1});
        Part b = freePart(spec, "b",
                          Transform{Quat(g(rng), g(rng), g(rng), g(rng)).normalized(),
                                    Vec3(g(rng), g(rng), g(rng)) * 0.1});
        b.ground = trial == 2;
        a.markers.push_back(test::marker(spec, "m", Vec3(0.1, 0.0, 0.02)));
        b.markers.push_back(test::marker(spec, "m", Vec3(-0.05, 0.03, 0.0)));
        spec.parts = {a, b};
        Joint j;
        j.id = spec.newId();
        j.name = "ball";
        j.type = JointType::Spherical;
        j.markerI = {"a", "m"};
        j.markerJ = {"b", "m"};
        spec.joints = {j};
        const auto model = test::compiled(spec);
        ASSERT_TRUE(model);
        ASSERT_EQ(model->joints[0].coordinates.size(), 1u);
        State s = initialState(*model);
        s.v = Eigen::VectorXd::Random(s.v.size()) * 2.0;
        checkRows(*model, s, "cone trial " + std::to_string(trial), 2e-5);
    }
}

// An inverted pendulum on a ball joint, its cone limit 30° about the vertical: it falls onto
// the cone and rests there, the cone carrying gravity's moment m g l sin 30°.
TEST(ConeLimits, AnInvertedPendulumRestsOnItsConeWithTheStaticMoment) {
    const double m = 2.0, l = 0.4, cone = kPi / 6;
    SceneSpec spec;
    spec.settings.integrator = IntegratorType::TimeStepping;
    spec.settings.stepSize = 1e-3;
    Part ground;
    ground.id = spec.newId();
    ground.name = "ground";
    ground.ground = true;
    ground.markers.push_back(test::marker(spec, "socket", Vec3::Zero()));
    const double lean = 0.1;  // released 0.1 rad off the vertical, in the x-z plane
    Part rod = test::boxPart(spec, "rod", Vec3(0.02, 0.02, 2 * l),
                             Vec3(l * std::sin(lean), 0.0, l * std::cos(lean)));
    rod.mass = m;
    rod.I_Pcm_P = Vec3(m * 4 * l * l / 12, m * 4 * l * l / 12, 1e-4).asDiagonal();
    rod.X_WP.R = Quat(Eigen::AngleAxisd(lean, Vec3::UnitY()));
    rod.markers.push_back(test::marker(spec, "ball", Vec3(0.0, 0.0, -l)));
    spec.parts = {ground, rod};
    Joint j;
    j.id = spec.newId();
    j.name = "ball";
    j.type = JointType::Spherical;
    j.markerI = {"rod", "ball"};
    j.markerJ = {"ground", "socket"};
    JointLimit limit;
    limit.upper = cone;
    j.limits = {limit};
    spec.joints = {j};
    ForwardDynamics sim(test::compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    double largest = 0.0;
    for (int k = 1; k <= 3000; ++k) {
        ASSERT_TRUE(sim.advance(1e-3 * k).ok);
        largest = std::max(largest, sim.state().jointCoordinates(0));
    }
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_NEAR(out.jointCoordinates(0), cone, 1e-8);
    EXPECT_LT(largest, cone + 1e-3);  // no overshoot past the cone
    const double moment = m * 9.81 * l * std::sin(cone);
    ASSERT_EQ(out.limitForce.size(), 1u);
    EXPECT_NEAR(std::abs(out.limitForce[0]), moment, 1e-6 * moment);
}

TEST(ConeLimits, AConeIsAnUpperAngleOnly) {
    SceneSpec spec = test::pendulum();
    spec.joints[0].type = JointType::Spherical;
    JointLimit limit;
    limit.lower = -0.2;
    limit.upper = 0.5;
    spec.joints[0].limits = {limit};
    EXPECT_EQ(errorPlace(validate(spec)), "/joints/0/limits");
    spec.joints[0].limits[0].lower = -std::numeric_limits<double>::infinity();
    spec.joints[0].limits[0].upper = 4.0;
    EXPECT_EQ(errorPlace(validate(spec)), "/joints/0/limits");
    spec.joints[0].limits[0].upper = 0.5;
    EXPECT_EQ(errorPlace(validate(spec)), "");
}

// A cam turning about z and a follower moving in its plane, apart by `gap`.
SceneSpec camScene(double gap, bool followerOnGround) {
    SceneSpec spec;
    Part cam =
        freePart(spec, "cam",
                 Transform{Quat(Eigen::AngleAxisd(0.3, Vec3::UnitZ())), Vec3(0.01, -0.02, 0.0)});
    cam.markers.push_back(test::marker(spec, "profile", Vec3(-0.01, 0.005, 0.0)));
    // Follower: a roller's circle of radius 0.012 above the cam's profile (an ellipse
    // 0.05 × 0.035 about the marker).
    const double a = 0.05, b = 0.035, r = 0.012, t = 1.1;
    const Vec3 K_local(a * std::cos(t), b * std::sin(t), 0.0);
    const Vec3 normal_local = Vec3(b * std::cos(t), a * std::sin(t), 0.0).normalized();
    const Transform X_WM = cam.X_WP * cam.markers[0].X_PM;
    const Vec3 centre_W = X_WM * (K_local + (r + gap) * normal_local);
    Part follower = freePart(spec, "follower",
                             Transform{Quat(Eigen::AngleAxisd(-0.4, Vec3::UnitZ())), centre_W});
    follower.ground = followerOnGround;
    follower.markers.push_back(test::marker(spec, "roller", Vec3::Zero()));
    spec.parts = {follower, cam};
    Joint j;
    j.id = spec.newId();
    j.name = "contact";
    j.type = JointType::CurveOnCurve;
    j.markerI = {"follower", "roller"};
    j.markerJ = {"cam", "profile"};
    j.curve.type = CurveType::Expression;
    j.curve.x = "0.05*cos(s)";
    j.curve.y = "0.035*sin(s)";
    j.curve.z = "0";
    j.curve.start = 0.0;
    j.curve.end = 2.0 * kPi;
    j.curve.closed = true;
    j.follower = circleExpression(0.0, 0.0, r);
    j.liftOff = gap > 0.0;
    spec.joints = {j};
    if (j.liftOff) spec.settings.integrator = IntegratorType::TimeStepping;
    return spec;
}

TEST(CurveJoints, ACamPairsGapAndItsRowMatchTheGeometryAndFiniteDifferences) {
    for (const double gap : {0.0, 0.004}) {
        for (const bool ground : {false, true}) {
            const auto model = test::compiled(camScene(gap, ground));
            ASSERT_TRUE(model);
            State s = initialState(*model);
            std::vector<BodyFrame> frames;
            computeBodyFrames(*model, s.q, s.v, frames);
            EXPECT_NEAR(jointCoordinateValue(*model, frames, 0, 0), gap, 1e-12);
            // Planar velocities: in x-y, turning about z.
            std::mt19937 rng(5);
            std::uniform_real_distribution<double> u(-1.0, 1.0);
            for (int b = 0; b < model->bodyCount(); ++b) {
                const Vec3 w_W(0.0, 0.0, 3.0 * u(rng));
                layout::linear(s.v, b) = Vec3(u(rng), u(rng), 0.0);
                layout::angular(s.v, b) =
                    bodyOrientation(s.q, b).toRotationMatrix().transpose() * w_W;
            }
            if (gap == 0.0) {
                // In contact and staying so (only then is the gap's rate the row's).
                std::vector<BodyFrame> f;
                computeBodyFrames(*model, s.q, s.v, f);
                ConstraintEvaluation e;
                evaluateConstraints(*model, 0.0, f, e);
                ASSERT_EQ(e.Phi.size(), 1);
                const Eigen::MatrixXd J = Eigen::MatrixXd(e.Phi_q);
                s.v -= J.transpose() * (J * J.transpose()).ldlt().solve(J * s.v);
            }
            checkRows(*model, s,
                      "cam gap " + std::to_string(gap) + (ground ? " (follower on ground)" : ""),
                      2e-4);
        }
    }
}

// ---- A bead on a frictionless helix.

SceneSpec beadOnHelix(double radius, double pitch) {
    SceneSpec spec;
    spec.name = "bead on a helix";
    Part ground;
    ground.id = spec.newId();
    ground.name = "ground";
    ground.ground = true;
    ground.markers.push_back(test::marker(spec, "axis", Vec3::Zero()));
    const CurveSpec helix = helixSpline(radius, -pitch, 5.0, 16);  // descending
    const auto c = makeCurve(helix);
    const Vec3 start = c->at(0.05).x;
    Part bead = test::boxPart(spec, "bead", Vec3(0.01, 0.01, 0.01), start);
    bead.mass = 0.05;
    bead.I_Pcm_P = Vec3::Constant(1e-6).asDiagonal();
    bead.markers.push_back(test::marker(spec, "centre", Vec3::Zero()));
    spec.parts = {ground, bead};
    Joint j;
    j.id = spec.newId();
    j.name = "wire";
    j.type = JointType::PointOnCurve;
    j.markerI = {"bead", "centre"};
    j.markerJ = {"ground", "axis"};
    j.curve = helix;
    spec.joints = {j};
    return spec;
}

TEST(CurveJoints, ABeadSlidesDownAFrictionlessHelixWithTheSpeedItsDropGives) {
    const SceneSpec spec = beadOnHelix(0.1, 0.2);
    const auto model = test::compiled(spec);
    ASSERT_TRUE(model);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    const double z0 = layout::position(sim.state().q, 0).z();
    const double balance0 = out.energies.balance();
    double largest = 0.0, worstEnergy = 0.0, worstSpeed = 0.0;
    for (int k = 1; k <= 40; ++k) {
        ASSERT_TRUE(sim.advance(0.025 * k).ok);
        ASSERT_TRUE(sim.outputs(out).ok);
        const double dz = z0 - layout::position(sim.state().q, 0).z();
        const double v2 = layout::linear(sim.state().v, 0).squaredNorm();
        largest = std::max(largest, out.energies.kinetic);
        worstSpeed = std::max(worstSpeed, std::abs(v2 - 2.0 * 9.81 * dz) / (2.0 * 9.81 * dz));
        worstEnergy = std::max(worstEnergy, std::abs(out.energies.balance() - balance0));
    }
    EXPECT_GT(z0 - layout::position(sim.state().q, 0).z(), 0.3);  // down a turn and more
    EXPECT_LT(worstSpeed, 1e-6);
    EXPECT_LT(worstEnergy, 1e-7 * largest);
    EXPECT_LT(out.constraintError, 1e-9);
}

// ---- A cam and its follower: an eccentric disc turning at ω about z, a roller follower on a
// slide along y pulled down by its spring (extension = its height y) and its weight.

struct EccentricCam {
    double R = 0.04, r = 0.01, e = 0.01;  // disc radius, roller radius, eccentricity [m]
    double m = 0.5, k = 200.0, g = 9.81;  // follower mass, spring rate
    double omega = 20.0;
    // The follower's height in contact: the disc's centre at e (cos θ, sin θ), θ = ωt − π/2.
    double lift(double t) const {
        const double th = omega * t - kPi / 2;
        return e * std::sin(th) +
               std::sqrt((R + r) * (R + r) - e * e * std::cos(th) * std::cos(th));
    }
    double accel(double t) const {
        const double h = 1e-5;
        return (-lift(t + 2 * h) + 16 * lift(t + h) - 30 * lift(t) + 16 * lift(t - h) -
                lift(t - 2 * h)) /
               (12 * h * h);
    }
    // The contact's push on the follower along y: m ÿ + m g + k y (> 0 while it holds it).
    double push(double t) const { return m * accel(t) + m * g + k * lift(t); }
};

SceneSpec camAndFollower(const EccentricCam& c, bool liftOff) {
    SceneSpec spec;
    spec.name = "cam and follower";
    spec.gravity = Vec3(0.0, -c.g, 0.0);
    const Quat alongY(Eigen::AngleAxisd(-kPi / 2, Vec3::UnitX()));  // z → y
    Part ground;
    ground.id = spec.newId();
    ground.name = "ground";
    ground.ground = true;
    ground.markers.push_back(test::marker(spec, "shaft", Vec3::Zero()));
    Marker guide = test::marker(spec, "guide", Vec3::Zero());
    guide.X_PM.R = alongY;
    ground.markers.push_back(guide);
    ground.markers.push_back(test::marker(spec, "anchor", Vec3(0.0, -0.1, 0.0)));
    Part cam = test::boxPart(spec, "cam", Vec3(0.08, 0.08, 0.01), Vec3::Zero());
    cam.markers.push_back(test::marker(spec, "shaft", Vec3::Zero()));
    Part follower =
        test::boxPart(spec, "follower", Vec3(0.02, 0.02, 0.01), Vec3(0.0, c.lift(0.0), 0.0));
    follower.mass = c.m;
    follower.markers.push_back(test::marker(spec, "roller", Vec3::Zero()));
    Marker slide = test::marker(spec, "slide", Vec3::Zero());
    slide.X_PM.R = alongY;
    follower.markers.push_back(slide);
    spec.parts = {ground, cam, follower};
    auto joint = [&](const std::string& name, JointType type, MarkerRef i, MarkerRef j) {
        Joint jt;
        jt.id = spec.newId();
        jt.name = name;
        jt.type = type;
        jt.markerI = std::move(i);
        jt.markerJ = std::move(j);
        spec.joints.push_back(jt);
        return &spec.joints.back();
    };
    joint("shaft", JointType::Revolute, {"cam", "shaft"}, {"ground", "shaft"});
    joint("guide", JointType::Prismatic, {"follower", "slide"}, {"ground", "guide"});
    Joint* pair =
        joint("contact", JointType::CurveOnCurve, {"follower", "roller"}, {"cam", "shaft"});
    pair->curve = circleExpression(0.0, -c.e, c.R);
    pair->follower = circleExpression(0.0, 0.0, c.r);
    pair->liftOff = liftOff;
    if (liftOff) spec.settings.integrator = IntegratorType::TimeStepping;
    MotionSpec drive;
    drive.id = spec.newId();
    drive.name = "drive";
    drive.joint = "shaft";
    drive.expression = std::to_string(c.omega) + "*time";
    spec.motions = {drive};
    ForceSpec spring;
    spring.id = spec.newId();
    spring.name = "spring";
    spring.type = ForceType::SpringDamper;
    spring.markerI = {"follower", "roller"};
    spring.markerJ = {"ground", "anchor"};
    spring.stiffness = c.k;
    spring.freeLength = 0.1;
    spec.forces = {spring};
    return spec;
}

TEST(CamPairs, TheFollowerRisesAsTheCamProfileSays) {
    const EccentricCam c;
    for (double t = 0.0; t < 0.4; t += 1e-3) ASSERT_GT(c.push(t), 0.0);  // below lift-off speed
    ForwardDynamics sim(test::compiled(camAndFollower(c, false)));
    ASSERT_TRUE(sim.initialize().ok);
    double worst = 0.0;
    for (int k = 1; k <= 80; ++k) {
        const double t = 0.005 * k;
        ASSERT_TRUE(sim.advance(t).ok);
        worst = std::max(worst, std::abs(layout::position(sim.state().q, 1).y() - c.lift(t)));
    }
    EXPECT_LT(worst, 1e-8);
}

TEST(CamPairs, AFollowerFreeToLiftOffStaysOnBelowTheLiftOffSpeedAndLeavesWhenTheClosedFormSays) {
    for (const double omega : {20.0, 60.0}) {
        EccentricCam c;
        c.omega = omega;
        SceneSpec spec = camAndFollower(c, true);
        spec.settings.stepSize = 1e-4;
        const auto model = test::compiled(spec);
        ASSERT_TRUE(model);
        EXPECT_EQ(model->settings.integrator, IntegratorType::TimeStepping);
        ForwardDynamics sim(model);
        ASSERT_TRUE(sim.initialize().ok);
        LiftOffWatch watch(*model);
        ASSERT_TRUE(watch.watching());
        // The first instant the contact would have to pull (none below the lift-off speed).
        double expected = -1.0;
        for (double t = 0.0; t < 0.1 && expected < 0.0; t += 1e-4)
            if (c.push(t) < 0.0) {
                double lo = t - 1e-4, hi = t;
                for (int i = 0; i < 60; ++i)
                    (c.push(0.5 * (lo + hi)) > 0.0 ? lo : hi) = 0.5 * (lo + hi);
                expected = 0.5 * (lo + hi);
            }
        double worst = 0.0;
        for (int k = 1; k <= 1000; ++k) {
            const double t = 1e-4 * k;
            ASSERT_TRUE(sim.advance(t).ok);
            watch.observe(sim.state().t, sim.lastStep().limitForce);
            if (watch.liftOffs() == 0)
                worst =
                    std::max(worst, std::abs(layout::position(sim.state().q, 1).y() - c.lift(t)));
        }
        if (omega == 20.0) {
            EXPECT_EQ(expected, -1.0);
            EXPECT_EQ(watch.liftOffs(), 0);
            EXPECT_LT(worst, 1e-6) << "ω " << omega;
        } else {
            ASSERT_GT(expected, 0.0);
            EXPECT_GE(watch.liftOffs(), 1);
            EXPECT_EQ(watch.firstJoint(), "contact");
            EXPECT_NEAR(watch.firstTime(), expected, 2e-4) << "closed form " << expected;
            EXPECT_LT(worst, 1e-6) << "ω " << omega << " before lifting off";
        }
    }
}

// ---- Bad curves.

TEST(CurveJoints, BadCurvesAreRefusedWithTheirPlace) {
    auto withCurve = [](const CurveSpec& curve) {
        SceneSpec spec = beadOnHelix(0.1, 0.04);
        spec.joints[0].curve = curve;
        return spec;
    };
    CurveSpec three;
    three.points = {{0, 0, 0}, {1, 0, 0}, {2, 1, 0}};
    EXPECT_EQ(errorPlace(validate(withCurve(three))), "/joints/0/curve/points");
    CurveSpec repeated = three;
    repeated.points.insert(repeated.points.begin() + 2, Vec3(1, 0, 0));
    EXPECT_EQ(errorPlace(validate(withCurve(repeated))), "/joints/0/curve/points/2");
    CurveSpec loop = three;
    loop.points.push_back(Vec3(0, 0, 0));
    loop.closed = true;
    EXPECT_EQ(errorPlace(validate(withCurve(loop))), "/joints/0/curve/points/3");
    CurveSpec bad = circleExpression(0, 0, 1);
    bad.y = "sin(s";
    EXPECT_EQ(errorPlace(validate(withCurve(bad))), "/joints/0/curve/y");
    CurveSpec empty = circleExpression(0, 0, 1);
    empty.end = empty.start;
    EXPECT_EQ(errorPlace(validate(withCurve(empty))), "/joints/0/curve/end");
    CurveSpec stops = circleExpression(0, 0, 1);
    stops.x = "0";
    stops.y = "0";
    stops.z = "(s - pi)^3";  // still at s = π
    EXPECT_EQ(errorPlace(validate(withCurve(stops))), "/joints/0/curve/x");
    EXPECT_EQ(errorPlace(validate(withCurve(CurveSpec{}))), "/joints/0/curve");
    // A curve on a joint of another type, a cam without a follower, lifting off a slot.
    SceneSpec other = beadOnHelix(0.1, 0.04);
    other.joints[0].type = JointType::Spherical;
    EXPECT_EQ(errorPlace(validate(other)), "/joints/0/curve");
    SceneSpec cam = camScene(0.0, false);
    cam.joints[0].follower = CurveSpec{};
    EXPECT_EQ(errorPlace(validate(cam)), "/joints/0/follower");
    // Bad surfaces.
    auto withSurface = [](const SurfaceSpec& surface) {
        SceneSpec spec = beadOnHelix(0.1, 0.04);
        spec.joints[0].type = JointType::PointOnSurface;
        spec.joints[0].curve = CurveSpec{};
        spec.joints[0].surface = surface;
        return spec;
    };
    SurfaceSpec unparsed;
    unparsed.x = "u";
    unparsed.y = "v";
    unparsed.z = "u^";
    EXPECT_EQ(errorPlace(validate(withSurface(unparsed))), "/joints/0/surface/z");
    SurfaceSpec flat = unparsed;
    flat.z = "0";
    flat.y = "u";  // no normal: it does not depend on v
    EXPECT_EQ(errorPlace(validate(withSurface(flat))), "/joints/0/surface/x");
    SurfaceSpec grid;
    grid.type = SurfaceType::Grid;
    grid.xs = {0, 1, 2, 3};
    grid.ys = {0, 1, 1, 3};
    grid.heights.assign(4, std::vector<double>(4, 0.0));
    EXPECT_EQ(errorPlace(validate(withSurface(grid))), "/joints/0/surface/ys/2");
    grid.ys = {0, 1, 2, 3};
    grid.heights[2].pop_back();
    EXPECT_EQ(errorPlace(validate(withSurface(grid))), "/joints/0/surface/heights/2");
    EXPECT_EQ(errorPlace(validate(withSurface(SurfaceSpec{}))), "/joints/0/surface");
    SceneSpec lift = beadOnHelix(0.1, 0.04);
    lift.joints[0].liftOff = true;
    EXPECT_EQ(errorPlace(validate(lift)), "/joints/0/liftOff");
}

}  // namespace
}  // namespace engine
