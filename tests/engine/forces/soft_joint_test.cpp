// Soft joints (JointCompliance) against closed forms: a block on a soft mount rings at the
// frequency it is given with the damping ratio it is given and sags m g / k; a soft torsion
// added to an exact revolute makes a torsional oscillator; the velocity-level step takes soft
// rows implicitly (its discrete recurrence reproduced exactly), stable far beyond the explicit
// limit; reactions and energy balance include them.

#include <cmath>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/io/scene_json.h"
#include "engine/math/constants.h"
#include "tests/support/mechanisms.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

using test::compiled;

constexpr double kMass = 2.0;

// A 2 kg block held to the ground by a soft fixed joint whose markers sit at its centre of
// mass (so its vertical row's effective mass is the block's mass).
SceneSpec softMount(IntegratorType integrator, double step, const JointCompliance& compliance) {
    SceneSpec spec;
    spec.settings.integrator = integrator;
    spec.settings.stepSize = step;
    spec.settings.relativeTolerance = 1e-11;
    spec.settings.absoluteTolerance = 1e-13;
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "mount", Vec3(0, 0, 0.5));
    spec.parts.push_back(ground);
    Part block = test::box(spec, "block", kMass, Vec3(0.2, 0.1, 0.1), Vec3(0, 0, 0.5));
    test::addMarker(spec, block, "centre", Vec3::Zero());
    spec.parts.push_back(block);
    Joint mount = test::joint(spec, "mount", JointType::Fixed, "block.centre", "ground.mount");
    mount.compliance = compliance;
    spec.joints.push_back(mount);
    return spec;
}

JointCompliance byFrequency(double hertz, double ratio) {
    JointCompliance c;
    c.frequency = hertz;
    c.dampingRatio = ratio;
    return c;
}

double blockHeight(const ForwardDynamics& sim) {
    return sim.state().q(2) - 0.5;
}

TEST(SoftJoints, AMountGivenInHertzRingsAtThatFrequencyWithThatDampingRatio) {
    // z(t) = (v0 / ω_d) e^{−ζ ω t} sin(ω_d t), ω = 2π f, ω_d = ω √(1 − ζ²); no gravity.
    for (const double zeta : {0.0, 0.1, 0.5}) {
        SceneSpec spec = softMount(IntegratorType::DormandPrince45, 1e-3, byFrequency(5.0, zeta));
        spec.gravity = Vec3::Zero();
        spec.parts[1].v_WPo_W = Vec3(0, 0, 0.1);
        ForwardDynamics sim(compiled(spec));
        ASSERT_TRUE(sim.initialize().ok);
        const double omega = 2.0 * kPi * 5.0, omegaD = omega * std::sqrt(1.0 - zeta * zeta);
        for (int k = 1; k <= 40; ++k) {
            const double t = 0.025 * k;
            ASSERT_TRUE(sim.advance(t).ok);
            EXPECT_NEAR(blockHeight(sim),
                        0.1 / omegaD * std::exp(-zeta * omega * t) * std::sin(omegaD * t), 1e-9)
                << "ζ " << zeta << ", t " << t;
        }
    }
}

TEST(SoftJoints, AMountGivenAsStiffnessSagsMgOverKAndCarriesTheWeight) {
    JointCompliance c;
    c.stiffness = 2e4;
    c.damping = 2.0 * std::sqrt(c.stiffness * kMass);  // critically damped: settles in 0.1 s
    c.rotationalStiffness = 50.0;
    c.rotationalDamping = 1.0;
    for (const IntegratorType integrator :
         {IntegratorType::DormandPrince45, IntegratorType::RungeKutta4,
          IntegratorType::SymplecticEuler, IntegratorType::ImplicitEuler,
          IntegratorType::TimeStepping}) {
        ForwardDynamics sim(compiled(softMount(integrator, 1e-3, c)));
        ASSERT_TRUE(sim.initialize().ok);
        Outputs start;
        ASSERT_TRUE(sim.outputs(start).ok);
        ASSERT_TRUE(sim.advance(1.5).ok);
        const double sag = kMass * 9.81 / c.stiffness;
        EXPECT_NEAR(blockHeight(sim), -sag, 1e-9) << integratorName(integrator);
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        // The mount holds the block up with its weight (force on the block, +z), and stores
        // ½ k sag².
        EXPECT_NEAR(out.reactions[0].force_W.z(), kMass * 9.81, 1e-6) << integratorName(integrator);
        EXPECT_NEAR(out.reactions[0].force_W.head<2>().norm(), 0.0, 1e-9);
        EXPECT_NEAR(out.energies.elastic, 0.5 * c.stiffness * sag * sag, 1e-9);
        // Nothing created: what the mount's damper (and the step) took out is dissipated, to
        // the order of the method (of the m g sag = 0.019 J that changed hands). Implicit Euler
        // also damps the mount's ringing by itself (L-stable: its purpose), uncounted: 2.3 %
        // measured.
        const double relative = integrator == IntegratorType::ImplicitEuler     ? 5e-2
                                : integrator == IntegratorType::SymplecticEuler ? 2e-3
                                : integrator == IntegratorType::RungeKutta4     ? 1e-5
                                                                                : 1e-8;
        EXPECT_NEAR(out.energies.balance(), start.energies.balance(), relative * kMass * 9.81 * sag)
            << integratorName(integrator);
        EXPECT_GT(out.energies.dissipated, 0.0);
    }
}

TEST(SoftJoints, TheVelocityLevelStepTakesSoftRowsImplicitly) {
    // Undamped, no gravity: the step is v⁺ = v − h ω² (x + h v⁺), x⁺ = x + h v⁺ exactly, whose
    // amplitude falls by 1 / √(1 + ω²h²) per step (the implicit step's damping ratio ≈ ω h / 2)
    // at a phase of atan(ω h) per step. Stable at 2 kHz on 1 ms steps, where an explicit step
    // (ω h = 12.6 > 2) blows up.
    for (const double hertz : {5.0, 2000.0}) {
        SceneSpec spec = softMount(IntegratorType::TimeStepping, 1e-3, byFrequency(hertz, 0.0));
        spec.gravity = Vec3::Zero();
        spec.parts[1].v_WPo_W = Vec3(0, 0, 0.1);
        ForwardDynamics sim(compiled(spec));
        ASSERT_TRUE(sim.initialize().ok);
        const double h = 1e-3, omega = 2.0 * kPi * hertz;
        double x = 0.0, v = 0.1;
        for (int n = 1; n <= 500; ++n) {
            v = (v - h * omega * omega * x) / (1.0 + h * h * omega * omega);
            x += h * v;
            if (n % 50 != 0) continue;
            ASSERT_TRUE(sim.advance(n * h).ok);
            EXPECT_NEAR(blockHeight(sim), x, 1e-12 + 1e-9 * std::abs(x)) << hertz << " Hz, " << n;
            EXPECT_NEAR(sim.state().v(2), v, 1e-12 + 1e-9 * std::abs(v)) << hertz << " Hz, " << n;
        }
        ASSERT_TRUE(std::isfinite(x));
        EXPECT_LT(std::abs(x), 0.1 / omega);  // never beyond the first swing
    }
    // At 5 Hz the run stays close to the undamped oscillator: frequency within (ωh)²/3, and
    // the amplitude after 0.5 s (2.5 periods) within the implicit step's damping.
    const double omega = 2.0 * kPi * 5.0, h = 1e-3;
    EXPECT_NEAR(std::atan(omega * h) / h / omega, 1.0, 1e-3);
    EXPECT_GT(std::pow(1.0 + omega * omega * h * h, -250.0), 0.75);
}

TEST(SoftJoints, ASoftTorsionOnAnExactRevoluteMakesATorsionalOscillator) {
    // A flywheel (I = 0.01 kg·m²) on an exact revolute, with a soft fixed joint on the same
    // markers whose angle equations have k = 4 N·m/rad (its point rows are exact and repeat
    // the revolute's: redundant, dropped): θ(t) = (ω0 / ω) sin(ω t), ω = √(k / I) = 20 rad/s.
    // The soft equation about the axis is x_I · y_J = −sin θ, so the torque is k sin θ cos θ =
    // (k/2) sin 2θ: a pendulum in 2θ, whose frequency at amplitude θ0 is ω (1 − θ0²/4) to
    // fourth order (θ0 = 1e-3 rad here).
    for (const IntegratorType integrator :
         {IntegratorType::DormandPrince45, IntegratorType::TimeStepping}) {
        SceneSpec spec = test::flywheel(0.01);
        spec.parts[1].w_WP_W = Vec3(0, 0, 0.02);
        spec.settings.integrator = integrator;
        spec.settings.stepSize = integrator == IntegratorType::TimeStepping ? 1e-4 : 1e-3;
        spec.settings.relativeTolerance = 1e-11;
        spec.settings.absoluteTolerance = 1e-13;
        Joint torsion = test::joint(spec, "torsion", JointType::Fixed, "wheel.hub", "ground.axle");
        torsion.compliance.rotationalStiffness = 4.0;
        spec.joints.push_back(torsion);
        ForwardDynamics sim(compiled(spec));
        ASSERT_TRUE(sim.initialize().ok);
        // dopri45: the closed form to the small-angle error; the implicit step at 0.1 ms: its
        // phase error (ωh)²/3 · ω t and damping e^{−ω²h t / 2} (≤ 1 %).
        const double tolerance = integrator == IntegratorType::TimeStepping ? 2e-5 : 2e-10;
        const double omega = 20.0 * (1.0 - 0.25 * 1e-6);
        for (int k = 1; k <= 20; ++k) {
            const double t = 0.025 * k;
            ASSERT_TRUE(sim.advance(t).ok);
            EXPECT_NEAR(sim.state().jointCoordinates(0), 1e-3 * std::sin(omega * t), tolerance)
                << integratorName(integrator) << ", t " << t;
        }
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        EXPECT_LT(out.constraintError, 1e-10);  // the exact revolute stays exact
    }
}

TEST(SoftJoints, ASoftPinStretchesWhileItsAnglesStayExact) {
    // A pendulum hanging at rest on a revolute whose point is soft (k = 1e5 N/m) and whose
    // axis is exact: the pin stretches m g / k downwards, the axis holds to round-off.
    SceneSpec spec;
    spec.settings.integrator = IntegratorType::TimeStepping;
    spec.settings.stepSize = 1e-3;
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "pivot", Vec3::Zero(), Vec3::UnitY());
    spec.parts.push_back(ground);
    Part bob = test::box(spec, "bob", kMass, Vec3(0.02, 0.02, 0.3), Vec3(0, 0, -0.15));
    test::addMarker(spec, bob, "top", Vec3(0, 0, 0.15), Vec3::UnitY());
    spec.parts.push_back(bob);
    Joint pin = test::joint(spec, "pin", JointType::Revolute, "bob.top", "ground.pivot");
    pin.compliance.stiffness = 1e5;
    pin.compliance.damping = 2.0 * std::sqrt(1e5 * kMass);
    spec.joints.push_back(pin);
    std::shared_ptr<const Model> model = compiled(spec);
    ASSERT_EQ(model->constraintRows(), 2);  // the axis: two exact rows
    ASSERT_EQ(model->softRows, 3);          // the point: three soft ones
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(1.0).ok);
    EXPECT_NEAR(sim.state().q(2), -0.15 - kMass * 9.81 / 1e5, 1e-10);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_LT(out.constraintError, 1e-10);
    EXPECT_NEAR(out.reactions[0].force_W.z(), kMass * 9.81, 1e-6);
}

TEST(SoftJoints, AMountTooStiffForAnExplicitStepIsSaidBeforeTheRunAndTakenImplicitlyElsewhere) {
    // 2 kHz on 1 ms steps: ω h = 12.6, beyond every explicit method's limit.
    for (const IntegratorType integrator :
         {IntegratorType::RungeKutta4, IntegratorType::SymplecticEuler,
          IntegratorType::ImplicitEuler, IntegratorType::TimeStepping}) {
        const SceneSpec spec = softMount(integrator, 1e-3, byFrequency(2000.0, 1.0));
        const CompileResult compiled = compile(spec);
        ASSERT_TRUE(compiled.model);
        bool warned = false;
        for (const Diagnostic& d : compiled.diagnostics)
            if (d.severity == Severity::Warning && d.where == "/joints/0/soft") {
                warned = true;
                EXPECT_NE(d.message.find("soft joint 'mount'"), std::string::npos) << d.message;
                EXPECT_NE(d.message.find("timeStepping"), std::string::npos) << d.message;
            }
        const bool implicit = integrator == IntegratorType::ImplicitEuler ||
                              integrator == IntegratorType::TimeStepping;
        EXPECT_EQ(warned, !implicit) << integratorName(integrator);
        if (!implicit) continue;
        // The implicit methods settle where the mount holds the weight: m g / (m ω²).
        ForwardDynamics sim(compiled.model);
        ASSERT_TRUE(sim.initialize().ok);
        ASSERT_TRUE(sim.advance(0.5).ok);
        const double omega = 2.0 * kPi * 2000.0;
        EXPECT_NEAR(blockHeight(sim), -9.81 / (omega * omega), 1e-12) << integratorName(integrator);
    }
}

TEST(SoftJoints, AreSaidOneWayWithValuesThatMeanSomething) {
    SceneSpec spec = softMount(IntegratorType::TimeStepping, 1e-3, byFrequency(5.0, 1.0));
    spec.joints[0].compliance.stiffness = 10.0;
    auto errorsAt = [](const SceneSpec& s, const std::string& where) {
        for (const Diagnostic& d : validate(s))
            if (d.severity == Severity::Error && d.where == where) return true;
        return false;
    };
    EXPECT_TRUE(errorsAt(spec, "/joints/0/soft"));  // frequency and stiffness both
    spec.joints[0].compliance = {};
    spec.joints[0].compliance.damping = -1.0;
    EXPECT_TRUE(errorsAt(spec, "/joints/0/soft/damping"));
    spec.joints[0].compliance.damping = std::nan("");
    EXPECT_TRUE(errorsAt(spec, "/joints/0/soft/damping"));
    // Stiffness on a joint that holds no lengths acts on nothing: said, not refused.
    spec.joints[0].compliance = {};
    spec.joints[0].type = JointType::ParallelAxes;
    spec.joints[0].compliance.stiffness = 10.0;
    bool warned = false;
    for (const Diagnostic& d : validate(spec))
        warned |= d.severity == Severity::Warning && d.where == "/joints/0/soft/stiffness";
    EXPECT_TRUE(warned);
}

TEST(SoftJoints, RoundTripThroughTheSceneFile) {
    JointCompliance c;
    c.stiffness = 1.5e5;
    c.damping = 120.0;
    c.rotationalDamping = 0.25;
    SceneSpec spec = softMount(IntegratorType::TimeStepping, 1e-3, c);
    spec.joints[0].type = JointType::Revolute;
    const io::SceneLoadResult back = io::parseScene(io::sceneToJson(spec));
    ASSERT_TRUE(back.scene);
    const JointCompliance& read = back.scene->joints[0].compliance;
    EXPECT_EQ(read.stiffness, 1.5e5);
    EXPECT_EQ(read.damping, 120.0);
    EXPECT_EQ(read.rotationalStiffness, 0.0);
    EXPECT_EQ(read.rotationalDamping, 0.25);
    EXPECT_EQ(read.frequency, 0.0);
    // A negative value in a file is refused at its place.
    std::string text = io::sceneToJson(spec);
    text.replace(text.find("120"), 3, "-12");
    const io::SceneLoadResult bad = io::parseScene(text);
    EXPECT_FALSE(bad.scene);
    bool named = false;
    for (const Diagnostic& d : bad.diagnostics) named |= d.where == "/joints/0/soft/damping";
    EXPECT_TRUE(named);
}

}  // namespace
}  // namespace engine
