// Kinematic analysis and inverse dynamics against closed forms: the slider-crank's slider
// position, velocity and acceleration over a revolution, the crank torque against the energy
// balance, and the lock-up of a slider-driven slider-crank at its dead centre.

#include <gtest/gtest.h>

#include "engine/analysis/kinematic_analysis.h"
#include "engine/kinematics/kinematics.h"
#include "engine/model/layout.h"
#include "engine/model/model.h"
#include "tests/support/mechanisms.h"

#include <cmath>
#include <numbers>

namespace engine {
namespace {

constexpr double kCrank = 0.1;  // r [m]
constexpr double kRod = 0.35;   // l [m]

// A planar slider-crank in the x–z plane, revolute axes along y, the slider on the x axis:
// crank pivot at the origin, crank at angle theta0 from +x towards +z. Masses 1, 2, 3 kg.
SceneSpec sliderCrank(double theta0) {
    SceneSpec spec;
    Part ground = test::groundPart(spec);
    const Vec3 d(std::cos(theta0), 0.0, std::sin(theta0));
    const Vec3 pin = kCrank * d;
    const double x0 =
        kCrank * std::cos(theta0) +
        std::sqrt(kRod * kRod - kCrank * kCrank * std::sin(theta0) * std::sin(theta0));
    const Vec3 wrist(x0, 0.0, 0.0);
    const Vec3 e = (wrist - pin) / kRod;

    test::addMarker(spec, ground, "pivot", Vec3::Zero(), Vec3::UnitY());
    test::addMarker(spec, ground, "rail", wrist, Vec3::UnitX());
    Part crank = test::box(spec, "crank", 1.0, Vec3(kCrank, 0.02, 0.02), 0.5 * pin,
                           Quat::FromTwoVectors(Vec3::UnitX(), d));
    test::addMarker(spec, crank, "pivot", Vec3(-0.5 * kCrank, 0, 0), Vec3::UnitY());
    test::addMarker(spec, crank, "pin", Vec3(0.5 * kCrank, 0, 0), Vec3::UnitY());
    Part rod = test::box(spec, "rod", 2.0, Vec3(kRod, 0.02, 0.02), 0.5 * (pin + wrist),
                         Quat::FromTwoVectors(Vec3::UnitX(), e));
    test::addMarker(spec, rod, "big", Vec3(-0.5 * kRod, 0, 0), Vec3::UnitY());
    test::addMarker(spec, rod, "small", Vec3(0.5 * kRod, 0, 0), Vec3::UnitY());
    Part slider = test::box(spec, "slider", 3.0, Vec3(0.05, 0.04, 0.04), wrist);
    test::addMarker(spec, slider, "pin", Vec3::Zero(), Vec3::UnitY());
    test::addMarker(spec, slider, "slide", Vec3::Zero(), Vec3::UnitX());
    spec.parts = {ground, crank, rod, slider};
    spec.joints.push_back(
        test::joint(spec, "crankPivot", JointType::Revolute, "crank.pivot", "ground.pivot"));
    spec.joints.push_back(
        test::joint(spec, "crankPin", JointType::Revolute, "rod.big", "crank.pin"));
    spec.joints.push_back(
        test::joint(spec, "wristPin", JointType::Revolute, "rod.small", "slider.pin"));
    spec.joints.push_back(
        test::joint(spec, "rail", JointType::Prismatic, "slider.slide", "ground.rail"));
    spec.settings.stepSize = 1e-3;
    return spec;
}

std::shared_ptr<const Model> compiled(const SceneSpec& spec) {
    CompileResult result = compile(spec);
    EXPECT_TRUE(result.model) << (result.diagnostics.empty() ? std::string()
                                                             : result.diagnostics.front().message);
    return result.model;
}

int bodyOf(const Model& model, const std::string& name) {
    for (int b = 0; b < model.bodyCount(); ++b)
        if (model.bodies[static_cast<std::size_t>(b)].name == name) return b;
    ADD_FAILURE() << "no body " << name;
    return 0;
}

TEST(KinematicAnalysis, SliderCrankFollowsItsClosedFormOverARevolution) {
    SceneSpec spec = sliderCrank(0.0);
    const double omega = 2.0 * std::numbers::pi;  // one revolution per second
    MotionSpec motor;
    motor.id = spec.newId();
    motor.name = "motor";
    motor.joint = "crankPivot";
    motor.expression = "6.283185307179586*time";
    spec.motions.push_back(motor);
    const auto model = compiled(spec);
    ASSERT_TRUE(model);
    const int slider = bodyOf(*model, "slider");

    KinematicOptions options;
    options.duration = 1.0;
    options.outputInterval = 1e-3;
    double worstX = 0.0, worstV = 0.0, worstA = 0.0, worstPower = 0.0, largestPower = 0.0;
    long frames = 0;
    const KinematicResult result =
        kinematicAnalysis(model, options, [&](const KinematicFrame& f, std::string&) {
            const double t = f.state.t;
            const double S = std::sin(omega * t), C = std::cos(omega * t);
            const double D = std::sqrt(kRod * kRod - kCrank * kCrank * S * S);
            const double x = kCrank * C + D;
            const double v = -kCrank * omega * S - kCrank * kCrank * omega * S * C / D;
            const double a = -kCrank * omega * omega * C -
                             kCrank * kCrank * omega * omega * (C * C - S * S) / D -
                             std::pow(kCrank, 4) * omega * omega * S * S * C * C / (D * D * D);
            worstX = std::max(worstX, std::abs(bodyPosition(f.state.q, slider).x() - x));
            worstV = std::max(worstV, std::abs(layout::linear(f.state.v, slider).x() - v));
            worstA = std::max(worstA, std::abs(layout::linear(f.vdot, slider).x() - a));
            // The energy balance at this instant: the motor's power is the rate of change of
            // the kinetic and gravitational energy, Σ m v·a + ω'ᵀJ'ω̇' − m g·v.
            double dE = 0.0;
            for (int b = 0; b < model->bodyCount(); ++b) {
                const BodyModel& body = model->bodies[static_cast<std::size_t>(b)];
                const Vec3 vb = layout::linear(f.state.v, b), ab = layout::linear(f.vdot, b);
                const Vec3 w = layout::angular(f.state.v, b), dw = layout::angular(f.vdot, b);
                dE += body.mass * vb.dot(ab) + w.dot(body.inertia.cwiseProduct(dw)) -
                      body.mass * model->gravity.dot(vb);
            }
            worstPower = std::max(worstPower, std::abs(f.motionPower[0] - dE));
            largestPower = std::max(largestPower, std::abs(dE));
            ++frames;
            return true;
        });
    ASSERT_TRUE(result.status.ok) << result.status.message;
    EXPECT_EQ(frames, 1001);
    EXPECT_FALSE(result.lockedUp);
    EXPECT_LT(worstX, 1e-9);
    EXPECT_LT(worstV, 1e-9);
    EXPECT_LT(worstA, 1e-9);
    EXPECT_GT(largestPower, 1.0);  // the motor does real work: a balance that can fail
    EXPECT_LT(worstPower, 1e-6 * largestPower);
}

TEST(KinematicAnalysis, ASliderDrivenSliderCrankLocksUpAtItsDeadCentre) {
    // The crank starts upright; the slider is pushed out at 0.1 m/s until crank and rod line up
    // (the outer dead centre, x = r + l), where the crank's angle has nowhere to go.
    const double theta0 = 0.5 * std::numbers::pi;
    SceneSpec spec = sliderCrank(theta0);
    MotionSpec push;
    push.id = spec.newId();
    push.name = "push";
    push.joint = "rail";
    push.axis = JointAxis::Translation;
    push.expression = "0.1*time";
    spec.motions.push_back(push);
    const auto model = compiled(spec);
    ASSERT_TRUE(model);
    const double x0 = std::sqrt(kRod * kRod - kCrank * kCrank);
    const double deadCentre = (kCrank + kRod - x0) / 0.1;

    KinematicOptions options;
    options.duration = 2.0;
    options.outputInterval = 0.01;
    double lastTime = -1.0;
    const KinematicResult result =
        kinematicAnalysis(model, options, [&](const KinematicFrame& f, std::string&) {
            lastTime = f.state.t;
            return true;
        });
    ASSERT_FALSE(result.status.ok);
    EXPECT_TRUE(result.lockedUp);
    EXPECT_NEAR(result.lockUpTime, deadCentre, 1e-6) << result.status.message;
    EXPECT_LT(lastTime, deadCentre);
    EXPECT_GT(lastTime, deadCentre - 0.01 - 1e-9);  // every frame before it was delivered
    EXPECT_NE(result.status.message.find("lock-up at t = 1.14"), std::string::npos)
        << result.status.message;
    EXPECT_FALSE(result.lockUpEquation.empty());
}

// The direction of a part's long axis (its part frame's x) in the world.
Vec3 axisOf(const Model& model, const State& state, int b) {
    const Quat R_WP =
        bodyOrientation(state.q, b) * model.bodies[static_cast<std::size_t>(b)].X_PB.R.conjugate();
    return R_WP * Vec3::UnitX();
}

TEST(KinematicAnalysis, FourBarRockerFollowsFreudensteinAndEveryLinkBalances) {
    // Ground a = 0.4, crank b = 0.1, coupler c = 0.4, rocker d = 0.3: a crank-rocker (Grashof),
    // driven at one revolution per second from 45°. Planar, from spatial revolutes: three
    // redundant equations, whose share the analysis gives to the rows kept.
    SceneSpec spec = test::fourBar(IntegratorType::SymplecticEuler, 1e-3);
    MotionSpec motor;
    motor.id = spec.newId();
    motor.name = "motor";
    motor.joint = "A";
    motor.expression = "6.283185307179586*time";
    spec.motions.push_back(motor);
    const auto model = compiled(spec);
    ASSERT_TRUE(model);
    const double a = 0.4, b = 0.1, c = 0.4, d = 0.3;
    const double K1 = a / b, K2 = a / d, K3 = (a * a + b * b - c * c + d * d) / (2 * b * d);
    const int crank = bodyOf(*model, "crank"), rocker = bodyOf(*model, "rocker");

    KinematicOptions options;
    options.duration = 1.0;
    options.outputInterval = 2e-3;
    double worstFreudenstein = 0.0, worstForce = 0.0, worstMoment = 0.0;
    double turned = 0.0, lastCrank = 0.0;
    std::vector<BodyFrame> frames;
    const KinematicResult result =
        kinematicAnalysis(model, options, [&](const KinematicFrame& f, std::string&) {
            // Angles in the plane of motion, both from +x towards +z (Freudenstein's equation
            // holds in any one sense): crank θ2 at A, rocker θ4 at D.
            const Vec3 u2 = axisOf(*model, f.state, crank), u4 = axisOf(*model, f.state, rocker);
            const double theta2 = std::atan2(u2.z(), u2.x());
            const double theta4 = std::atan2(u4.z(), u4.x());
            // K1 cos θ4 − K2 cos θ2 + K3 = cos(θ2 − θ4): |C − B| = c with B = b e(θ2) and
            // C = D + d e(θ4), the ground link from A to D (Freudenstein).
            worstFreudenstein =
                std::max(worstFreudenstein, std::abs(K1 * std::cos(theta4) - K2 * std::cos(theta2) +
                                                     K3 - std::cos(theta2 - theta4)));
            if (f.state.t > 0.0) {
                double step = theta2 - lastCrank;
                step -= 2 * std::numbers::pi * std::round(step / (2 * std::numbers::pi));
                turned += step;
            }
            lastCrank = theta2;

            // Every link: the reactions of its joints, the motor's torque and its weight make
            // its mass times its acceleration, and their moment its rate of angular momentum.
            computeBodyFrames(*model, f.state.q, f.state.v, frames);
            for (int body = 0; body < model->bodyCount(); ++body) {
                const BodyModel& link = model->bodies[static_cast<std::size_t>(body)];
                const BodyFrame& frame = frames[static_cast<std::size_t>(body)];
                Vec3 force = link.mass * model->gravity, moment = Vec3::Zero();
                for (std::size_t j = 0; j < model->joints.size(); ++j) {
                    const JointModel& joint = model->joints[j];
                    const MarkerModel& I = model->markers[static_cast<std::size_t>(joint.markerI)];
                    const MarkerModel& J = model->markers[static_cast<std::size_t>(joint.markerJ)];
                    const double sign = I.body == body ? 1.0 : J.body == body ? -1.0 : 0.0;
                    if (sign == 0.0) continue;
                    const JointReaction& r = f.outputs.reactions[j];
                    const Vec3 p_I = markerFrame(*model, frames, joint.markerI).p;
                    force += sign * r.force_W;
                    moment += sign * (r.torque_W + (p_I - frame.r).cross(r.force_W));
                }
                if (body == crank) {
                    // The motor's torque on the crank (part I of joint A), about A's axis.
                    const JointModel& A = model->joints[0];
                    moment +=
                        f.outputs.driverEffort[0] * markerFrame(*model, frames, A.markerJ).R.col(2);
                }
                const Vec3 w = layout::angular(f.state.v, body);
                const Vec3 dw = layout::angular(f.vdot, body);
                const Vec3 Jw = link.inertia.cwiseProduct(w);
                const Vec3 dH = frame.R * (link.inertia.cwiseProduct(dw) + w.cross(Jw));
                worstForce = std::max(
                    worstForce, (force - link.mass * Vec3(layout::linear(f.vdot, body))).norm());
                worstMoment = std::max(worstMoment, (moment - dH).norm());
            }
            return true;
        });
    ASSERT_TRUE(result.status.ok) << result.status.message;
    EXPECT_EQ(result.redundantEquations, 3);
    EXPECT_NEAR(std::abs(turned), 2 * std::numbers::pi, 1e-6);  // one whole revolution
    EXPECT_LT(worstFreudenstein, 1e-9);
    EXPECT_LT(worstForce, 1e-8);   // N, against weights of 9.81 N
    EXPECT_LT(worstMoment, 1e-8);  // N·m
}

TEST(KinematicAnalysis, AMechanismWithAFreeDegreeOfFreedomIsRefusedWithItsCount) {
    const auto model = compiled(sliderCrank(0.3));
    ASSERT_TRUE(model);
    KinematicOptions options;
    const KinematicResult result =
        kinematicAnalysis(model, options, [](const KinematicFrame&, std::string&) { return true; });
    ASSERT_FALSE(result.status.ok);
    EXPECT_NE(result.status.message.find("1 left free"), std::string::npos)
        << result.status.message;
    EXPECT_EQ(result.frames, 0);
}

}  // namespace
}  // namespace engine
