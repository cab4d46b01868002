// Physics validation of forward dynamics against analytic results and conservation laws.

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/statics.h"

#include <cmath>

#include <gtest/gtest.h>

#include "engine/io/scene_json.h"
#include "engine/io/scene_overrides.h"
#include "tests/support/mechanisms.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

using test::compiled;

// Angle of link 0 of a chain about +y from horizontal (+x), positive downwards... measured as
// the revolute coordinate of joint 0.
double angleOf(const ForwardDynamics& sim) {
    return sim.state().jointCoordinates(0);
}

TEST(ForwardDynamics, HangingPendulumReactionEqualsItsWeight) {
    // A link hanging straight down from a revolute at the origin, at rest.
    SceneSpec spec = test::chain(1, IntegratorType::DormandPrince45, 1e-2);
    spec.parts[1].X_WP = {quatFromAxisAngle(Vec3::UnitY(), kPi / 2), Vec3(0, 0, -0.05)};
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(0.5).ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    // The ground holds the link up with its weight, at the pivot, with no torque.
    EXPECT_NEAR(out.reactions[0].force_W.z(), 9.81, 1e-9);
    EXPECT_NEAR(out.reactions[0].force_W.x(), 0.0, 1e-9);
    EXPECT_NEAR(out.reactions[0].force_W.y(), 0.0, 1e-9);
    EXPECT_LT(out.reactions[0].torque_W.norm(), 1e-9);
    EXPECT_LT(sim.state().v.norm(), 1e-9);
}

TEST(ForwardDynamics, LargeAmplitudePendulumPeriodMatchesTheEllipticIntegral) {
    // chain-1 released horizontal (90° amplitude): T = 4 K(sin 45°) / ω0, ω0² = m g d / I_O.
    SceneSpec spec = test::chain(1, IntegratorType::DormandPrince45, 1e-3);
    spec.settings.relativeTolerance = 1e-11;
    spec.settings.absoluteTolerance = 1e-12;
    spec.settings.projectionTolerance = 1e-13;
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);

    const double I_O = (0.01 + 0.0004) / 12.0 + 0.05 * 0.05;
    const double omega0 = std::sqrt(9.81 * 0.05 / I_O);
    const double exact = 4.0 * std::comp_ellint_1(std::sin(kPi / 4)) / omega0;
    EXPECT_NEAR(exact, 0.614423429, 1e-9);  // the design notes' figure

    // Time the third pass through the bottom (θ = −90° is straight down for this joint
    // orientation; the sign convention does not matter: find where |θ| crosses 90° of swing).
    const double theta0 = angleOf(sim);
    std::vector<double> crossings;
    double tPrev = 0.0, sPrev = angleOf(sim) - theta0, ratePrev = 0.0;
    const double h = 1e-3;
    for (int k = 1; k <= 800 && crossings.size() < 3; ++k) {
        ASSERT_TRUE(sim.advance(k * h).ok);
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        const double s = angleOf(sim) - theta0, rate = out.jointRates(0);
        // Swing measured from the release angle: the bottom is at |s| = π/2.
        const double f0 = std::abs(sPrev) - kPi / 2, f1 = std::abs(s) - kPi / 2;
        if (k > 1 && (f0 < 0) != (f1 < 0)) {
            // Cubic Hermite interpolation of s on [tPrev, t], then bisection for |s| = π/2.
            auto hermite = [&](double t) {
                const double u = (t - tPrev) / h, u2 = u * u, u3 = u2 * u;
                return (2 * u3 - 3 * u2 + 1) * sPrev + (u3 - 2 * u2 + u) * h * ratePrev +
                       (-2 * u3 + 3 * u2) * s + (u3 - u2) * h * rate;
            };
            double lo = tPrev, hi = k * h;
            for (int it = 0; it < 60; ++it) {
                const double mid = 0.5 * (lo + hi);
                ((std::abs(hermite(mid)) - kPi / 2 < 0) == (f0 < 0) ? lo : hi) = mid;
            }
            crossings.push_back(0.5 * (lo + hi));
        }
        tPrev = k * h;
        sPrev = s;
        ratePrev = rate;
    }
    ASSERT_EQ(crossings.size(), 3u);
    const double period = crossings[2] - crossings[0];
    EXPECT_NEAR(period / exact - 1.0, 0.0, 1e-6) << "period " << period << " exact " << exact;
}

double energyBalance(ForwardDynamics& sim) {
    Outputs out;
    EXPECT_TRUE(sim.outputs(out).ok);
    return out.energies.balance();
}

TEST(ForwardDynamics, DoublePendulumConservesEnergyWithDormandPrince) {
    SceneSpec spec = test::chain(2, IntegratorType::DormandPrince45, 1e-2);
    spec.settings.relativeTolerance = 1e-10;
    spec.settings.absoluteTolerance = 1e-12;
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    const double e0 = energyBalance(sim);
    const double scale = 1.0 * 9.81 * 0.1 * 2;  // m g L N
    double worst = 0.0;
    for (int k = 1; k <= 1000; ++k) {
        ASSERT_TRUE(sim.advance(k * 0.01).ok);
        worst = std::max(worst, std::abs(energyBalance(sim) - e0));
    }
    EXPECT_LT(worst / scale, 1e-6);
    // The motion is chaotic, not trivial: the second link has turned through a large angle.
    EXPECT_GT(sim.state().jointCoordinates.cwiseAbs().maxCoeff(), 1.0);
}

TEST(ForwardDynamics, DoublePendulumEnergyStaysBoundedWithSymplecticEuler) {
    ForwardDynamics sim(compiled(test::chain(2, IntegratorType::SymplecticEuler, 1e-3)));
    ASSERT_TRUE(sim.initialize().ok);
    const double e0 = energyBalance(sim);
    const double scale = 1.0 * 9.81 * 0.1 * 2;
    double firstHalf = 0.0, secondHalf = 0.0;
    for (int k = 1; k <= 1000; ++k) {
        ASSERT_TRUE(sim.advance(k * 0.01).ok);
        const double error = std::abs(energyBalance(sim) - e0) / scale;
        (k <= 500 ? firstHalf : secondHalf) = std::max(k <= 500 ? firstHalf : secondHalf, error);
    }
    // Bounded (a few 1e-3 of m g L N at this step) and not growing: the second 5 s are no
    // worse than the first beyond the error's own oscillation.
    EXPECT_LT(std::max(firstHalf, secondHalf), 1e-2);
    EXPECT_LT(secondHalf, 1.5 * firstHalf);
}

TEST(ForwardDynamics, TorqueFreeBodyFlipsAboutItsIntermediateAxis) {
    // Dzhanibekov: spin about the intermediate axis (y) with a tiny perturbation; energy and
    // |angular momentum| are conserved while the body flips over.
    SceneSpec spec;
    spec.gravity = Vec3::Zero();
    spec.settings.integrator = IntegratorType::DormandPrince45;
    spec.settings.stepSize = 0.01;
    spec.settings.relativeTolerance = 1e-12;
    spec.settings.absoluteTolerance = 1e-14;
    Part body = test::box(spec, "wingnut", 1.0, Vec3(0.1, 0.2, 0.3), Vec3::Zero());
    body.I_Pcm_P = Vec3(1.0, 2.0, 3.0).asDiagonal();
    body.w_WP_W = Vec3(1e-3, 5.0, 0.0);
    spec.parts.push_back(body);
    auto model = compiled(spec);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);

    auto momentum = [&] {
        const Vec3 w = sim.state().v.segment<3>(3);
        const Vec3 L_B = model->bodies[0].inertia.cwiseProduct(w);
        return Vec3(bodyOrientation(sim.state().q, 0) * L_B);  // world axes: constant vector
    };
    const double e0 = kineticEnergy(*model, sim.state());
    const Vec3 L0 = momentum();
    // The intermediate axis is the body's principal axis with moment 2 (index 1, ascending).
    auto spinComponent = [&] { return sim.state().v(3 + 1); };
    const double s0 = spinComponent();
    bool flipped = false;
    for (int k = 1; k <= 1500; ++k) {
        ASSERT_TRUE(sim.advance(k * 0.01).ok);
        flipped = flipped || (spinComponent() * s0 < 0);
    }
    EXPECT_TRUE(flipped);
    EXPECT_NEAR(kineticEnergy(*model, sim.state()) / e0 - 1.0, 0.0, 1e-8);
    EXPECT_LT((momentum() - L0).norm() / L0.norm(), 1e-8);
}

TEST(ForwardDynamics, HeavyTopPrecessesAtTheGyroscopicRate) {
    // Symmetric top on a spherical joint at its tip; axis tilted 30° from vertical, spinning
    // fast. Released on the slow steady-precession solution of
    //     A cos θ Ωp² − I3 ω3 Ωp + m g l = 0     (A = I1 + m l², about the pivot)
    // so nutation is negligible. The mean precession rate must match that root closely and the
    // gyroscopic formula Ωp ≈ m g l / (I3 ω3) within 1%.
    SceneSpec spec;
    spec.settings.integrator = IntegratorType::DormandPrince45;
    spec.settings.stepSize = 0.05;
    spec.settings.relativeTolerance = 1e-8;
    spec.settings.absoluteTolerance = 1e-10;
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "tip", Vec3::Zero());
    spec.parts.push_back(ground);

    const double m = 0.5, l = 0.05, I1 = 2e-4, I3 = 4e-4, spin = 1000.0, tilt = kPi / 6;
    const double A = I1 + m * l * l, mgl = m * 9.81 * l;
    const Quat R = quatFromAxisAngle(Vec3::UnitX(), tilt);  // body z axis = symmetry axis
    const Vec3 axis = R * Vec3::UnitZ();
    // ω3 = spin + Ωp cos θ; solve the quadratic in Ωp with ω3 fixed by a few fixed-point passes.
    double precession = mgl / (I3 * spin);
    for (int k = 0; k < 20; ++k) {
        const double w3 = spin + precession * std::cos(tilt);
        const double a = A * std::cos(tilt), b = -I3 * w3;
        precession = (-b - std::sqrt(b * b - 4 * a * mgl)) / (2 * a);
    }
    const double gyroscopic = mgl / (I3 * (spin + precession * std::cos(tilt)));

    Part top;
    top.id = spec.newId();
    top.name = "top";
    top.mass = m;
    top.I_Pcm_P = Vec3(I1, I1, I3).asDiagonal();
    top.X_WP = {R, l * axis};
    top.w_WP_W = spin * axis + precession * Vec3::UnitZ();
    top.v_WPo_W = (precession * Vec3::UnitZ()).cross(l * axis);
    test::addMarker(spec, top, "tip", Vec3(0, 0, -l));
    spec.parts.push_back(top);
    spec.joints.push_back(
        test::joint(spec, "pivot", JointType::Spherical, "top.tip", "ground.tip"));

    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    // Azimuth of the COM about z (unwound) over one precession period.
    const double duration = 2.0 * kPi / precession;
    double last = std::atan2(sim.state().q(1), sim.state().q(0)), total = 0.0;
    const int steps = 200;
    for (int k = 1; k <= steps; ++k) {
        ASSERT_TRUE(sim.advance(duration * k / steps).ok);
        const double azimuth = std::atan2(sim.state().q(1), sim.state().q(0));
        total += std::remainder(azimuth - last, 2.0 * kPi);
        last = azimuth;
    }
    const double measured = total / duration;
    EXPECT_NEAR(measured / precession - 1.0, 0.0, 1e-3) << "measured " << measured << " rad/s";
    EXPECT_NEAR(measured / gyroscopic - 1.0, 0.0, 0.01);
    // The tilt stays put (no nutation to speak of).
    const Vec3 axisNow = bodyOrientation(sim.state().q, 0) * Vec3::UnitZ();
    EXPECT_NEAR(std::acos(axisNow.z()), tilt, 1e-3);
}

TEST(ForwardDynamics, SpringMassOscillatesAtSqrtKOverM) {
    SceneSpec spec;
    spec.gravity = Vec3::Zero();
    spec.settings.integrator = IntegratorType::DormandPrince45;
    spec.settings.stepSize = 1e-3;
    spec.settings.relativeTolerance = 1e-10;
    spec.settings.absoluteTolerance = 1e-12;
    Part ground = test::groundPart(spec);
    test::addMarker(spec, ground, "anchor", Vec3::Zero(), Vec3::UnitX());
    spec.parts.push_back(ground);
    Part mass = test::box(spec, "mass", 2.0, Vec3(0.05, 0.05, 0.05), Vec3(0.6, 0, 0));
    test::addMarker(spec, mass, "m", Vec3::Zero(), Vec3::UnitX());
    spec.parts.push_back(mass);
    spec.joints.push_back(
        test::joint(spec, "rail", JointType::Prismatic, "mass.m", "ground.anchor"));
    ForceSpec spring;
    spring.id = spec.newId();
    spring.name = "spring";
    spring.type = ForceType::SpringDamper;
    spring.markerI = {"mass", "m"};
    spring.markerJ = {"ground", "anchor"};
    spring.stiffness = 800.0;
    spring.freeLength = 0.5;
    spec.forces.push_back(spring);

    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    // x(t) = 0.5 + 0.1 cos(ω t), ω = sqrt(k/m) = 20 rad/s.
    for (int k = 1; k <= 100; ++k) {
        const double t = 0.01 * k;
        ASSERT_TRUE(sim.advance(t).ok);
        EXPECT_NEAR(sim.state().q(0), 0.5 + 0.1 * std::cos(20.0 * t), 1e-8) << "t = " << t;
    }
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    // Energy is 80 J/m times a position error (k·A): 1e-9 m of error is 8e-8 J.
    EXPECT_NEAR(out.energies.balance(), 0.5 * 800.0 * 0.01, 1e-7);
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

TEST(ForwardDynamics, FourBarFromSpatialRevolutesReportsRedundancyAndFollowsFreudenstein) {
    auto model = compiled(test::fourBar(IntegratorType::DormandPrince45, 1e-2));
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    // 3 moving links × 6 − 4 revolutes × 5 = −2 by Gruebler, but the loop is planar: the true
    // mobility is 1, so rank(Φq) = 17 and 3 of the 20 rows are redundant.
    EXPECT_EQ(sim.solver().rank(), 17);
    EXPECT_EQ(sim.solver().redundantRows().size(), 3u);

    // Freudenstein: K1 cos ψ − K2 cos φ + K3 = cos(φ − ψ) for crank angle φ and rocker angle ψ
    // measured from the ground line AD.
    const double a = 0.1, b = 0.4, c = 0.3, d = 0.4;
    const double K1 = d / a, K2 = d / c, K3 = (a * a - b * b + c * c + d * d) / (2 * a * c);
    double worstClosure = 0.0, worstFreudenstein = 0.0, crankTravel = 0.0, lastPhi = 0.0;
    for (int k = 0; k <= 1000; ++k) {
        if (k > 0) {
            ASSERT_TRUE(sim.advance(k * 0.01).ok) << "t = " << k * 0.01;
        }
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        worstClosure = std::max(worstClosure, out.constraintError);
        std::vector<BodyFrame> frames;
        computeBodyFrames(*model, sim.state().q, sim.state().v, frames);
        const Vec3 B = markerFrame(*model, frames, 3).p;  // crank.B
        const Vec3 C = markerFrame(*model, frames, 7).p;  // rocker.C
        const double phi = std::atan2(B.z(), B.x());
        const double psi = std::atan2(C.z(), C.x() - d);
        worstFreudenstein =
            std::max(worstFreudenstein,
                     std::abs(K1 * std::cos(psi) - K2 * std::cos(phi) + K3 - std::cos(phi - psi)));
        if (k > 0) crankTravel += std::abs(std::remainder(phi - lastPhi, 2 * kPi));
        lastPhi = phi;
    }
    EXPECT_LT(worstClosure, 1e-10);
    // The equation is |BC|² = b² divided by 2ac: a position error δ shows as ~ δ b / (a c) ≈ 13 δ.
    EXPECT_LT(worstFreudenstein, 1e-8);
    EXPECT_GT(crankTravel, 2.0);  // the linkage really moved (it swings under gravity)
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

// Scenes that are legal but degenerate run like any other: ground alone (what File ▸ New
// makes), a free part with no joint, a part welded to the ground (no degree of freedom).
TEST(ForwardDynamicsDegenerate, GroundAloneAFreePartAndAWeldedPartRunWithEveryIntegrator) {
    const IntegratorType integrators[] = {
        IntegratorType::DormandPrince45, IntegratorType::RungeKutta4,
        IntegratorType::SymplecticEuler, IntegratorType::ImplicitEuler,
        IntegratorType::TimeStepping};
    for (const IntegratorType integrator : integrators) {
        SCOPED_TRACE(std::string(integratorName(integrator)));
        SceneSpec ground;
        Part g;
        g.id = ground.newId();
        g.name = "ground";
        g.ground = true;
        ground.parts.push_back(g);
        ground.settings.integrator = integrator;
        {
            ForwardDynamics sim(compiled(ground));
            ASSERT_TRUE(sim.initialize().ok);
            ASSERT_TRUE(sim.advance(1.0).ok);  // nothing moves; time passes
            EXPECT_EQ(sim.state().t, 1.0);
            Outputs out;
            ASSERT_TRUE(sim.outputs(out).ok);
            EXPECT_EQ(out.energies.total(), 0.0);
        }
        // A free box falls: z = z0 − g t²/2 (exactly for the higher-order integrators; to the
        // first-order error g h t / 2 for the Euler-type ones).
        SceneSpec free = ground;
        Part box;
        box.id = free.newId();
        box.name = "box";
        box.mass = 2.0;
        box.I_Pcm_P = Mat3::Identity() * 1e-3;
        box.X_WP.p = Vec3(0.0, 0.0, 1.0);
        free.parts.push_back(box);
        {
            ForwardDynamics sim(compiled(free));
            ASSERT_TRUE(sim.initialize().ok);
            ASSERT_TRUE(sim.advance(0.5).ok);
            const double exact = 1.0 - 0.5 * 9.81 * 0.25;
            const bool firstOrder = integrator == IntegratorType::SymplecticEuler ||
                                    integrator == IntegratorType::ImplicitEuler ||
                                    integrator == IntegratorType::TimeStepping;
            EXPECT_NEAR(sim.state().q(2), exact,
                        firstOrder ? 0.5 * 9.81 * 1e-3 * 0.5 + 1e-12 : 1e-9);
        }
        // Welded to the ground: stays where it is, held up with its weight — folded into the
        // ground (no body, no row), and held as a joint of six rows.
        SceneSpec welded = free;
        Marker mg, mb;
        mg.id = welded.newId();
        mg.name = "m";
        mg.X_PM.p = Vec3(0.0, 0.0, 1.0);
        mb.id = welded.newId();
        mb.name = "m";
        welded.parts[0].markers.push_back(mg);
        welded.parts[1].markers.push_back(mb);
        Joint weld;
        weld.id = welded.newId();
        weld.name = "weld";
        weld.type = JointType::Fixed;
        weld.markerI = {"box", "m"};
        weld.markerJ = {"ground", "m"};
        welded.joints.push_back(weld);
        for (const bool fold : {true, false}) {
            welded.settings.foldWelds = fold;
            ForwardDynamics sim(compiled(welded));
            EXPECT_EQ(sim.model().bodyCount(), fold ? 0 : 1);
            ASSERT_TRUE(sim.initialize().ok);
            ASSERT_TRUE(sim.advance(0.5).ok);
            EXPECT_NEAR(partPoses(sim.model(), sim.state())[1].p.z(), 1.0, 1e-9);
            Outputs out;
            ASSERT_TRUE(sim.outputs(out).ok);
            EXPECT_NEAR(out.reactions[0].force_W.z(), 2.0 * 9.81, 1e-6) << fold;
        }
    }
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

TEST(ForwardDynamicsFaults, AMotionThatStopsBeingANumberStopsTheRunNamingIt) {
    // The drive is real until t = 0.05 s, then the square root of a negative number: the run
    // must stop there and say so, not hold the joint at some value.
    for (const IntegratorType integrator :
         {IntegratorType::RungeKutta4, IntegratorType::DormandPrince45}) {
        SCOPED_TRACE(std::string(integratorName(integrator)));
        SceneSpec spec = test::chain(1, integrator, 1e-3);
        MotionSpec drive;
        drive.id = spec.newId();
        drive.name = "drive";
        drive.joint = spec.joints[0].name;
        drive.expression = "sqrt(0.05 - time)";
        spec.motions.push_back(drive);
        ForwardDynamics sim(compiled(spec));
        ASSERT_TRUE(sim.initialize().ok);
        const Status s = sim.advance(0.2);
        ASSERT_FALSE(s.ok);
        EXPECT_NE(s.message.find("motion 'drive'"), std::string::npos) << s.message;
        EXPECT_NE(s.message.find("not finite"), std::string::npos) << s.message;
        EXPECT_LT(sim.state().t, 0.0501);
    }
}

// A force element whose expression stops being a number, or has a pole, is named with the
// expression, the time and the value: not blamed on a part's motion "changing too fast", nor on
// a controller's damping.
TEST(ForwardDynamicsFaults, AForceExpressionThatStopsBeingANumberIsNamedWithItsTimeAndValue) {
    for (const IntegratorType integrator :
         {IntegratorType::RungeKutta4, IntegratorType::DormandPrince45}) {
        SCOPED_TRACE(std::string(integratorName(integrator)));
        SceneSpec spec = test::chain(1, integrator, 1e-3);
        ForceSpec push;
        push.id = spec.newId();
        push.name = "push";
        push.type = ForceType::PointForce;
        push.markerI = spec.joints[0].markerI;
        push.components[2] = "sqrt(0.05 - time)";
        spec.forces.push_back(push);
        ForwardDynamics sim(compiled(spec));
        ASSERT_TRUE(sim.initialize().ok);
        const Status s = sim.advance(0.2);
        ASSERT_FALSE(s.ok);
        EXPECT_NE(s.message.find("force 'push'"), std::string::npos) << s.message;
        EXPECT_NE(s.message.find("its expression 'sqrt(0.05 - time)' (z component) is nan"),
                  std::string::npos)
            << s.message;
        EXPECT_NE(s.message.find("t = 0.05"), std::string::npos) << s.message;
        EXPECT_EQ(s.message.find("too fast"), std::string::npos) << s.message;
        EXPECT_EQ(s.message.find("Likely cause"), std::string::npos) << s.message;
        EXPECT_LT(sim.state().t, 0.0501);
    }
}

TEST(ForwardDynamicsFaults, AControllerTargetThatStopsBeingANumberIsNamedNotItsDamping) {
    for (const IntegratorType integrator :
         {IntegratorType::RungeKutta4, IntegratorType::DormandPrince45}) {
        SCOPED_TRACE(std::string(integratorName(integrator)));
        SceneSpec spec = test::chain(1, integrator, 1e-3);
        ForceSpec servo;
        servo.id = spec.newId();
        servo.name = "servo";
        servo.type = ForceType::JointController;
        servo.joint = spec.joints[0].name;
        servo.components[0] = "asin(20*time)";  // not a number from t = 0.05 s
        servo.stiffness = 50.0;
        servo.damping = 2.0;
        spec.forces.push_back(servo);
        ForwardDynamics sim(compiled(spec));
        ASSERT_TRUE(sim.initialize().ok);
        const Status s = sim.advance(0.2);
        ASSERT_FALSE(s.ok);
        EXPECT_NE(s.message.find("force 'servo'"), std::string::npos) << s.message;
        EXPECT_NE(s.message.find("its expression 'asin(20*time)' (target)"), std::string::npos)
            << s.message;
        EXPECT_NE(s.message.find("nan"), std::string::npos) << s.message;
        EXPECT_EQ(s.message.find("damping"), std::string::npos) << s.message;
        EXPECT_EQ(s.message.find("too fast"), std::string::npos) << s.message;
        EXPECT_LT(sim.state().t, 0.0501);
    }
}

TEST(ForwardDynamicsFaults, AForceExpressionWithAPoleIsNamedNotThePartsMotion) {
    SceneSpec spec = test::chain(1, IntegratorType::DormandPrince45, 1e-3);
    ForceSpec push;
    push.id = spec.newId();
    push.name = "push";
    push.type = ForceType::PointForce;
    push.markerI = {"link0", "b"};  // the free end
    push.components[2] = "1/(time - 0.0537)^3";
    spec.forces.push_back(push);
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    Status s;
    for (int frame = 1; frame <= 200 && s.ok; ++frame) s = sim.advance(1e-3 * frame);
    ASSERT_FALSE(s.ok);
    EXPECT_NE(s.message.find("force 'push': its expression '1/(time - 0.0537)^3' (z component) "
                             "races off"),
              std::string::npos)
        << s.message;
    EXPECT_NE(s.message.find("at t = 0.0536"), std::string::npos) << s.message;
    EXPECT_EQ(s.message.find("too fast"), std::string::npos) << s.message;
    EXPECT_EQ(s.message.find("Likely cause"), std::string::npos) << s.message;
}

// A slider on a prismatic guide along x, pulled to the origin by a spring of stiffness k.
io::SceneLoadResult sliderOnSpring(IntegratorType integrator, double step, double mass,
                                   double stiffness) {
    io::SceneLoadResult loaded = io::parseScene(R"({"format": "motus-scene", "version": 1,
      "parts": [
        {"name": "ground", "ground": true, "markers": [
          {"name": "rail", "orientation": {"axis": [0, 1, 0], "angleDeg": 90}}, {"name": "anchor"}]},
        {"name": "slider", "mass": 1, "inertia": [1e-4, 1e-4, 1e-4], "position": [0.1, 0, 0],
         "markers": [{"name": "slide", "position": [-0.1, 0, 0], "orientation": {"axis": [0, 1, 0], "angleDeg": 90}},
                     {"name": "hook"}]}],
      "joints": [{"name": "guide", "type": "prismatic", "markerI": "slider.slide", "markerJ": "ground.rail"}],
      "forces": [{"name": "spring", "type": "springDamper", "markerI": "slider.hook", "markerJ": "ground.anchor",
                  "stiffness": 1, "freeLength": 0.05}]})",
                                                "");
    if (!loaded.scene) return loaded;
    loaded.scene->settings.integrator = integrator;
    loaded.scene->settings.stepSize = step;
    loaded.scene->parts[1].mass = mass;
    loaded.scene->forces[0].stiffness = stiffness;
    return loaded;
}

// A run that blows up because a spring is too stiff for the step names the spring (and the
// step it needs), not the joint that fails first; compiling the scene already warns.
TEST(ForwardDynamicsFaults, ASpringTooStiffForTheStepIsNamedBeforeAndWhenTheRunBlowsUp) {
    auto loaded = sliderOnSpring(IntegratorType::RungeKutta4, 0.001, 0.5, 1e9);
    ASSERT_TRUE(loaded.scene);
    // ω = √(k/m) = √(1e9 / 0.5) = 4.47e4 rad/s; rk4 needs ω h < 2.78: h < 6.22e-5 s.
    const CompileResult result = compile(*loaded.scene);
    ASSERT_TRUE(result.model);
    ASSERT_EQ(result.diagnostics.size(), 1u);
    EXPECT_EQ(result.diagnostics[0].severity, Severity::Warning);
    EXPECT_EQ(result.diagnostics[0].where, "/forces/0");
    EXPECT_NE(result.diagnostics[0].message.find("4.47e+04 rad/s"), std::string::npos)
        << result.diagnostics[0].message;
    EXPECT_NE(result.diagnostics[0].message.find("6.22e-05 s"), std::string::npos)
        << result.diagnostics[0].message;
    ForwardDynamics sim(result.model);
    ASSERT_TRUE(sim.initialize().ok);
    const Status s = sim.advance(0.5);
    ASSERT_FALSE(s.ok);
    EXPECT_NE(s.message.find("Likely cause: force 'spring'"), std::string::npos) << s.message;

    // The same scene with a step it allows, or with implicit Euler, warns of nothing and runs.
    for (const auto& [integrator, step] : {std::pair{IntegratorType::RungeKutta4, 5e-5},
                                           std::pair{IntegratorType::ImplicitEuler, 1e-3}}) {
        SceneSpec spec = *loaded.scene;
        spec.settings.integrator = integrator;
        spec.settings.stepSize = step;
        const CompileResult fine = compile(spec);
        EXPECT_TRUE(fine.diagnostics.empty()) << fine.diagnostics[0].message;
        ForwardDynamics ok(fine.model);
        ASSERT_TRUE(ok.initialize().ok);
        const Status run = ok.advance(0.02);
        EXPECT_TRUE(run.ok) << run.message;
    }
}

// An adaptive run whose steps come down to 1e-9 s would look like a hang: it stops as stalled,
// naming the spring that holds it back, once stallSteps steps in a row have averaged less
// than 1e-7 s.
TEST(ForwardDynamicsFaults, AnAdaptiveRunThatWouldCrawlStopsAsStalledNamingTheSpring) {
    auto loaded = sliderOnSpring(IntegratorType::DormandPrince45, 0.005, 0.001, 1e14);
    ASSERT_TRUE(loaded.scene);
    loaded.scene->settings.stallSteps = 2000;
    const CompileResult result = compile(*loaded.scene);
    ASSERT_TRUE(result.model);
    EXPECT_TRUE(result.diagnostics.empty());  // dopri45 has no stability limit to warn of
    ForwardDynamics sim(result.model);
    ASSERT_TRUE(sim.initialize().ok);
    const Status s = sim.advance(0.005);
    ASSERT_FALSE(s.ok);
    EXPECT_NE(s.message.find("stalled"), std::string::npos) << s.message;
    EXPECT_NE(s.message.find("Likely cause: force 'spring'"), std::string::npos) << s.message;
    EXPECT_LE(sim.statistics().steps + sim.statistics().rejected, 2001 + 1);
}

// The IFToMM double four-bar with its middle pivot moved from 1 m to 3 m: crank, coupler and
// crank (1 m each) can only lie stretched straight between the two pivots, 3 m apart, and
// gravity across them asks an unbounded tension of the joints. dopri45's steps fall below 1e-9 s
// there; the whole stall window (50 000 steps, each with its stages projected) took 80 s. It
// stops after a fiftieth of that window (1000 steps) instead, in under a second, and says why.
std::shared_ptr<const Model> doubleFourBarHeldStraight(const std::string& integrator,
                                                       std::vector<io::SceneOverride> more = {}) {
    more.insert(more.begin(), {{"/parts/ground/markers/A1/position", "[3, 0, 0]"},
                               {"/settings", R"({"integrator": ")" + integrator + R"("})"}});
    const auto loaded = io::loadSceneFile(
        std::string(MOTUS_SOURCE_DIR) + "/scenes/benchmarks/n_four_bar.json", more);
    if (!loaded.scene) return nullptr;
    return compile(*loaded.scene).model;
}

TEST(ForwardDynamicsFaults, AnAdaptiveRunHeldAtASingularPositionStopsSoonNamingIt) {
    const auto model = doubleFourBarHeldStraight("dopri45");
    ASSERT_TRUE(model);
    ASSERT_EQ(model->settings.integrator, IntegratorType::DormandPrince45);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    const Status s = sim.advance(0.1);
    ASSERT_FALSE(s.ok);
    EXPECT_NE(s.message.find("stalled"), std::string::npos) << s.message;
    EXPECT_NE(s.message.find("all of them taken next to a singular position"), std::string::npos)
        << s.message;
    EXPECT_NE(s.message.find("The mechanism is at a singular position"), std::string::npos)
        << s.message;
    EXPECT_NE(s.message.find("joint 'pivotA1'"), std::string::npos) << s.message;
    // (the window opens at the first step taken next to it: a few steps before it count too)
    EXPECT_LE(sim.statistics().steps + sim.statistics().rejected, 1001 + 10);
    EXPECT_LT(sim.state().t, 1e-4);
}

// Next to a singular position the stages of a step are projected 1000 times tighter than the
// scene asks (kStageTolerance). Held at one, Newton cannot get there (the rows stay dependent)
// and every stage ran to the iteration limit, a factorisation each: the tighter goal is given
// up once Newton no longer halves a gap that meets the scene's tolerance.
TEST(ForwardDynamicsFaults, ATighterProjectionGivesUpWhereNewtonStallsAtAHeldSingularPosition) {
    const auto model = doubleFourBarHeldStraight("rk4");
    ASSERT_TRUE(model);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(0.002).ok);  // rk4 holds it (with reactions the tolerance sets)
    State state = sim.state();
    Workspace ws;
    ASSERT_TRUE(prepareWorkspace(*model, state, ws).ok);
    int iterations = -1;
    const Status s = projectState(*model, state, ws, &iterations, 1e-3 * 1e-10);
    ASSERT_TRUE(s.ok) << s.message;
    EXPECT_LE(iterations, 3);
    EXPECT_LE(maxPositionResidual(*model, ws.constraints), model->settings.projectionTolerance);
}

// The same linkage with a fixed-step method: the run goes on (stretched straight, it stays put),
// but the reactions that hold it there are set by the joint tolerance, not by the physics, and
// came out different for every step: rk4 gave 0.6 MN at 1 ms and 0.9 MN at 0.1 ms, implicit
// Euler and time stepping jumped between 14 N (a row dropped) and 1e8 N. Every fixed-step method
// now stops once the rows have stayed dependent for 50 steps and reactions the tolerance sets
// have been seen there twice, 0.05 s apart, showing the reactions found with
// the joints met to the scene's tolerance and 100 times more closely, and why (symplectic Euler
// may stop before, its impulses not converging there: with the same explanation).
TEST(ForwardDynamicsFaults, AFixedStepRunHeldAtASingularPositionStopsWhateverTheMethodAndStep) {
    for (const char* integrator : {"rk4", "implicitEuler", "timeStepping", "symplecticEuler"}) {
        for (const double dt : {1e-3, 1e-4}) {
            SCOPED_TRACE(std::string(integrator) + " at " + std::to_string(dt) + " s");
            const auto model =
                doubleFourBarHeldStraight(integrator, {{"/settings/stepSize", std::to_string(dt)}});
            ASSERT_TRUE(model);
            ASSERT_EQ(model->settings.stepSize, dt);
            ForwardDynamics sim(model);
            ASSERT_TRUE(sim.initialize().ok);
            const Status s = sim.advance(0.5);
            ASSERT_FALSE(s.ok);
            // (seen after 50 steps, confirmed 0.05 s later)
            EXPECT_LE(sim.state().t, 100 * dt + 0.05 + 1e-9);
            EXPECT_NE(s.message.find("The mechanism is at a singular position"), std::string::npos)
                << s.message;
            EXPECT_NE(s.message.find("a soft joint among them gives them a value"),
                      std::string::npos)
                << s.message;
            if (std::string(integrator) != "symplecticEuler") {
                EXPECT_NE(s.message.find("the reactions depend on how closely the joints are met: "
                                         "joint '"),
                          std::string::npos)
                    << s.message;
                EXPECT_NE(s.message.find("N with the joints met to the scene's projection "
                                         "tolerance, "),
                          std::string::npos)
                    << s.message;
                EXPECT_NE(s.message.find("N with them met 100 times more closely"),
                          std::string::npos)
                    << s.message;
            }
        }
    }
}

// What is watched is a hold, not a singular position: the IFToMM double four-bar passes ten
// flat positions in 5 s (its rows dependent for a step or two at each at 1 ms, up to 12 steps
// at 0.1 ms), and the held linkage without gravity and at rest has nothing pushing it across
// (its reactions are zero whatever the tolerance). Neither is stopped, with any method.
TEST(ForwardDynamicsFaults, PassingSingularPositionsOrRestingAtOneUnloadedIsNotStopped) {
    for (const char* integrator : {"rk4", "implicitEuler", "timeStepping", "symplecticEuler"}) {
        SCOPED_TRACE(integrator);
        const auto loaded =
            io::loadSceneFile(std::string(MOTUS_SOURCE_DIR) + "/scenes/benchmarks/n_four_bar.json",
                              {{"/settings", R"({"integrator": ")" + std::string(integrator) +
                                                 R"(", "stepSize": 2e-4})"}});
        ASSERT_TRUE(loaded.scene);
        ForwardDynamics passing(compile(*loaded.scene).model);
        ASSERT_TRUE(passing.initialize().ok);
        const Status s = passing.advance(5.0);
        EXPECT_TRUE(s.ok) << s.message;

        std::vector<io::SceneOverride> still = {{"/gravity", "[0, 0, 0]"}};
        for (const char* part : {"crank0", "crank1", "crank2", "coupler0", "coupler1"})
            still.push_back({"/parts/" + std::string(part) + "/velocity", "[0, 0, 0]"});
        for (const char* crank : {"crank0", "crank1", "crank2"})
            still.push_back({"/parts/" + std::string(crank) + "/angularVelocity", "[0, 0, 0]"});
        const auto model = doubleFourBarHeldStraight(integrator, still);
        ASSERT_TRUE(model);
        ForwardDynamics resting(model);
        ASSERT_TRUE(resting.initialize().ok);
        const Status r = resting.advance(0.5);
        EXPECT_TRUE(r.ok) << r.message;
        Outputs out;
        ASSERT_TRUE(resting.outputs(out).ok);
        for (const JointReaction& reaction : out.reactions)
            EXPECT_LT(reaction.force_W.norm(), 1e-6);
    }
}

// The double four-bar driven slowly (0.01 rad/s) through its flat position, where its rows stay
// within a pivot of being dropped for a tenth of a second. rk4 stopped there: "constraints could
// not be satisfied … off by 1.12e-10 m after 10 Newton iterations" (at 0.5, 1 and 0.1 ms) — a
// stage's tighter projection took a Newton step that widened a gap of 9e-11 m to 1e-5 m, and
// after the position a row dropped there stayed dropped, its gap at 1.0003e-10 m. Now the
// widening step is taken back, and a stalled projection first takes back the rows its
// correction misses: the run passes, every crank on the parallelogram branch.
// With dopri45 the same passage is held back by its error control instead: the couplers of a
// parallelogram do not turn, so their angular velocities are judged by the absolute tolerance
// alone (1e-12 rad/s by default), and next to the flat position the rows' near dependence
// amplifies round-off beyond that. The run says so, and gets through with 1e-10.
TEST(ForwardDynamicsFaults, AnAdaptivePassageHeldBackByTheAbsoluteToleranceSaysSo) {
    for (const std::string atol : {"1e-12", "1e-10"}) {
        SCOPED_TRACE(atol);
        const auto loaded = io::loadSceneFile(
            std::string(MOTUS_SOURCE_DIR) + "/scenes/benchmarks/n_four_bar.json",
            {{"/settings", R"({"integrator": "dopri45", "absoluteTolerance": )" + atol + "}"},
             {"/motions", R"([{"name": "drive", "joint": "pivotA0", "axis": "rotation",
                               "level": "velocity", "expression": "time < 1.5 ? -1 : -0.01"}])"}});
        ASSERT_TRUE(loaded.scene);
        ForwardDynamics sim(compile(*loaded.scene).model);
        ASSERT_TRUE(sim.initialize().ok);
        const Status s = sim.advance(9.0);
        if (atol == "1e-12") {
            ASSERT_FALSE(s.ok);
            EXPECT_NE(s.message.find("is judged by the absolute tolerance alone (1e-12), which "
                                     "round-off exceeds next to a singular position"),
                      std::string::npos)
                << s.message;
            EXPECT_GT(sim.state().t, 8.0);
        } else {
            ASSERT_TRUE(s.ok) << s.message;
            Outputs out;
            ASSERT_TRUE(sim.outputs(out).ok);
            EXPECT_NEAR(out.jointCoordinates(0), -1.575, 1e-5);
            EXPECT_NEAR(out.jointCoordinates(2), out.jointCoordinates(0), 1e-6);
        }
    }
}

TEST(ForwardDynamicsFaults, ALinkageDrivenSlowlyThroughItsFlatPositionPassesIt) {
    for (const char* integrator : {"rk4", "timeStepping"}) {
        SCOPED_TRACE(integrator);
        const auto loaded = io::loadSceneFile(
            std::string(MOTUS_SOURCE_DIR) + "/scenes/benchmarks/n_four_bar.json",
            {{"/settings",
              R"({"integrator": ")" + std::string(integrator) + R"(", "stepSize": 5e-4})"},
             {"/motions", R"([{"name": "drive", "joint": "pivotA0", "axis": "rotation",
                               "level": "velocity", "expression": "time < 1.5 ? -1 : -0.01"}])"}});
        ASSERT_TRUE(loaded.scene);
        ForwardDynamics sim(compile(*loaded.scene).model);
        ASSERT_TRUE(sim.initialize().ok);
        const Status s = sim.advance(9.0);  // flat at about 8.58 s
        ASSERT_TRUE(s.ok) << s.message;
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        // 1.5 rad at 1 rad/s, then 7.5 s at 0.01 rad/s: 0.004 rad past the flat position.
        EXPECT_NEAR(out.jointCoordinates(0), -1.575, 2e-3);
        EXPECT_LT(out.jointCoordinates(0), -kPi / 2);
        EXPECT_NEAR(out.jointCoordinates(1), out.jointCoordinates(0), 1e-6);
        EXPECT_NEAR(out.jointCoordinates(2), out.jointCoordinates(0), 1e-6);
    }
}

// A velocity-level motion 'turn' of joint `joint` at the rate `expression`.
void addTurn(SceneSpec& spec, const std::string& joint, const std::string& expression) {
    MotionSpec turn;
    turn.id = spec.newId();
    turn.name = "turn";
    turn.joint = joint;
    turn.level = MotionLevel::Velocity;
    turn.expression = expression;
    spec.motions.push_back(turn);
}

// A motion whose speed is switched at an instant: the crank of the four-bar turned at 3 rad/s
// for 0.25 s, then at 1 rad/s, is 1.5 rad from its start at t = 1 s. dopri45's stages take the
// rate the expression has on the near side of the switch, so its error estimate never saw it,
// and the projection at the end of the step that straddled it moved the crank instead: the step
// grew to what the smooth motion allowed, and the crank ended off by the old rate's excess over
// that step (the double four-bar switched from 1 to 0.01 rad/s: 0.017 rad). What the motion's
// row misses at a step's end now rejects the step, as its error would.
TEST(ForwardDynamicsFaults, AnAdaptiveRunFollowsAMotionWhoseSpeedIsSwitched) {
    for (const double atol : {1e-12, 1e-8, 1e-6}) {
        SCOPED_TRACE(atol);
        SceneSpec spec = test::fourBar(IntegratorType::DormandPrince45, 1e-3);
        spec.settings.absoluteTolerance = atol;
        spec.settings.relativeTolerance = 1e-6;
        addTurn(spec, "A", "time < 0.25 ? 3 : 1");
        ForwardDynamics sim(compiled(spec));
        ASSERT_TRUE(sim.initialize().ok);
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        const double start = out.jointCoordinates(0);
        ASSERT_TRUE(sim.advance(1.0).ok);
        ASSERT_TRUE(sim.outputs(out).ok);
        // (the step that holds the switch misses by ten tolerances of the angle at most, the
        // rest of the run by as many again)
        EXPECT_NEAR(out.jointCoordinates(0) - start, 1.5, 20 * (atol + 1e-6 * 1.5) + 1e-6);
    }
}

// A position-level motion whose expression jumps (`time < 1 ? 0 : 90d` on the slider-crank's
// motor) was met by every method by moving the parts there in one step's projection, with a
// spike of reaction that depended on the step. The run now stops before the step that holds
// the jump, naming the motion, the size and the time; a turn by a whole turn is no jump, and
// the same change made over 0.2 s with step() runs.
TEST(ForwardDynamicsFaults, APositionMotionThatJumpsStopsTheRunNamingIt) {
    const std::string file = std::string(MOTUS_SOURCE_DIR) + "/scenes/slider_crank.json";
    for (const char* integrator : {"dopri45", "rk4", "symplecticEuler", "timeStepping"}) {
        SCOPED_TRACE(integrator);
        auto run = [&](const std::string& expression, Status& status) {
            const auto loaded = io::loadSceneFile(
                file, {{"/settings/integrator", '"' + std::string(integrator) + '"'},
                       {"/motions/motor/expression", '"' + expression + '"'}});
            EXPECT_TRUE(loaded.scene);
            if (!loaded.scene) return -1.0;
            ForwardDynamics sim(compile(*loaded.scene).model);
            EXPECT_TRUE(sim.initialize().ok);
            status = sim.advance(2.0);
            return sim.state().t;
        };
        Status s;
        const double stopped = run("time < 1 ? 0 : 90d", s);
        ASSERT_FALSE(s.ok);
        EXPECT_NE(s.message.find("motion 'motor' jumps by 1.571 rad at t = 1 s (time < 1 ? 0 : "
                                 "90d): the parts cannot be somewhere else"),
                  std::string::npos)
            << s.message;
        EXPECT_EQ(s.message.find("singular position"), std::string::npos) << s.message;
        EXPECT_LT(stopped, 1.0);
        EXPECT_GT(stopped, 0.5);
        run("time < 1 ? 0 : 360d", s);
        EXPECT_TRUE(s.ok) << s.message;
        run("step(time, 0.9, 0, 1.1, 90d)", s);
        EXPECT_TRUE(s.ok) << s.message;
    }
}

// A crank of 1e11 kg with the moments of inertia of a 1 kg rod: the joints' equations weighed
// by masses and inertias that span 1e13 cannot be met to the tolerance, whatever the method.
// The run stops naming the part and its mass properties, not a singular position (S is near
// singular by its weights only: the same rows with unit weights are well conditioned).
TEST(ForwardDynamicsFaults, MassPropertiesSpanningThirteenOrdersAreNamedNotASingularPosition) {
    for (const IntegratorType integrator :
         {IntegratorType::DormandPrince45, IntegratorType::RungeKutta4,
          IntegratorType::SymplecticEuler, IntegratorType::ImplicitEuler}) {
        SCOPED_TRACE(std::string(integratorName(integrator)));
        SceneSpec spec = test::fourBar(integrator, 1e-3);
        spec.parts[1].mass = 1e11;  // the crank; its inertia stays that of the 1 kg rod
        ASSERT_EQ(spec.parts[1].name, "crank");
        // Said before it runs (a warning naming both parts), and again when it stops.
        const CompileResult c = compile(spec);
        ASSERT_EQ(c.diagnostics.size(), 1u);
        EXPECT_NE(c.diagnostics[0].message.find("and part 'crank' (1e+11 kg) differ in mass"),
                  std::string::npos)
            << c.diagnostics[0].message;
        ForwardDynamics sim(c.model);
        ASSERT_TRUE(sim.initialize().ok);
        const Status s = sim.advance(0.1);
        ASSERT_FALSE(s.ok);
        EXPECT_NE(s.message.find("masses and inertias"), std::string::npos) << s.message;
        EXPECT_NE(s.message.find("part 'crank': 1e+11 kg"), std::string::npos) << s.message;
        EXPECT_EQ(s.message.find("singular position"), std::string::npos) << s.message;
    }
}

// Turning the rocker of a crank–rocker four-bar all the way round cannot be done: where crank
// and coupler line up (a toggle) the motion cannot be followed. The run stops there and says
// so, naming the motion and the joints that lock, whatever the integrator. Turned back from
// its start at 90° from the ground line, the rocker reaches the toggle where AC = BC − AB =
// 0.3 m: at 131.8°, 0.73 rad on, at t = 0.365 s.
TEST(ForwardDynamicsFaults, ALockUpAtAToggleIsNamedAsSuch) {
    for (const IntegratorType integrator :
         {IntegratorType::RungeKutta4, IntegratorType::DormandPrince45,
          IntegratorType::SymplecticEuler}) {
        SCOPED_TRACE(std::string(integratorName(integrator)));
        SceneSpec spec = test::fourBar(integrator, 1e-3);
        addTurn(spec, "D", "-2");
        ForwardDynamics sim(compiled(spec));
        ASSERT_TRUE(sim.initialize().ok);
        const Status s = sim.advance(4.0);
        ASSERT_FALSE(s.ok);
        EXPECT_NE(s.message.find("locks up"), std::string::npos) << s.message;
        EXPECT_NE(s.message.find("motion 'turn'"), std::string::npos) << s.message;
        EXPECT_NE(s.message.find("joint 'B'"), std::string::npos) << s.message;
        EXPECT_NEAR(sim.state().t, 0.365, 0.01);
    }
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

// A chain released from horizontal whips: its tip turns at up to ~1000 rad/s, a radian per
// millisecond. Every integrator runs through it at h = 1 ms (fast steps are taken as substeps,
// failed ones retried in more), keeps its joints closed and, the chain being conservative,
// its energy within bounds set against the energy the fall releases (time stepping, a
// velocity-level scheme, dissipates: it may lose much, never gain).
struct WhipCase {
    int links;
    IntegratorType integrator;
    double duration;
    double maxGain, maxLoss;  // of the energy released by the fall, m g (L/2)
};

class WhippingChain : public ::testing::TestWithParam<WhipCase> {};

TEST_P(WhippingChain, RunsFromHorizontalThroughTheWhip) {
    const WhipCase c = GetParam();
    ForwardDynamics sim(compiled(test::chain(c.links, c.integrator, 1e-3)));
    ASSERT_TRUE(sim.initialize().ok);
    Outputs start;
    ASSERT_TRUE(sim.outputs(start).ok);
    const double released = c.links * 1.0 * 9.81 * (0.1 * c.links / 2);
    double worstGap = 0.0, gain = 0.0, loss = 0.0;
    for (int k = 1; k <= static_cast<int>(c.duration * 10); ++k) {
        const Status s = sim.advance(0.1 * k);
        ASSERT_TRUE(s.ok) << s.message;
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        worstGap = std::max(worstGap, out.constraintError);
        const double drift = (out.energies.kinetic + out.energies.gravitational) -
                             (start.energies.kinetic + start.energies.gravitational);
        gain = std::max(gain, drift);
        loss = std::max(loss, -drift);
    }
    RecordProperty("subdivided", std::to_string(sim.statistics().subdivided));
    RecordProperty("retried", std::to_string(sim.statistics().retried));
    EXPECT_LT(worstGap, 1e-8);
    EXPECT_LE(gain, c.maxGain * released) << gain << " J gained of " << released << " J";
    EXPECT_LE(loss, c.maxLoss * released) << loss << " J lost of " << released << " J";
    if (c.integrator != IntegratorType::DormandPrince45) {
        EXPECT_GT(sim.statistics().subdivided, 0);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Integrators, WhippingChain,
    // Past the whip the motion is chaotic, so the largest loss over 10 s moves with round-off:
    // chain-16 symplectic, gravity changed by k·1e-9 (k = 0 … 11), lost 0.015 … 0.031 of
    // the released energy (chain-64 over 5 s: 0.0013 … 0.0024); the bound sits above that.
    ::testing::Values(WhipCase{16, IntegratorType::SymplecticEuler, 10.0, 0.03, 0.05},
                      WhipCase{16, IntegratorType::RungeKutta4, 10.0, 0.002, 0.002},
                      WhipCase{16, IntegratorType::DormandPrince45, 10.0, 0.001, 0.001},
                      WhipCase{16, IntegratorType::ImplicitEuler, 10.0, 0.05, 0.05},
                      WhipCase{16, IntegratorType::TimeStepping, 10.0, 0.01, 0.7},
                      WhipCase{64, IntegratorType::SymplecticEuler, 5.0, 0.03, 0.03},
                      WhipCase{64, IntegratorType::RungeKutta4, 5.0, 0.002, 0.002},
                      WhipCase{64, IntegratorType::ImplicitEuler, 5.0, 0.05, 0.05},
                      WhipCase{64, IntegratorType::TimeStepping, 5.0, 0.01, 0.7}),
    [](const ::testing::TestParamInfo<WhipCase>& info) {
        return "chain" + std::to_string(info.param.links) + "_" +
               std::string(integratorName(info.param.integrator));
    });

}  // namespace
}  // namespace engine

namespace engine {
namespace {

// The projection tolerance bounds each joint's point gap as a user would measure it: the
// distance between the two markers' origins, not each of its components (which could leave
// √3 times the tolerance). Measured here from the parts' poses, independently of the solver.
TEST(ProjectionTolerance, BoundsEveryJointsPointGapAsADistance) {
    for (const IntegratorType integrator :
         {IntegratorType::SymplecticEuler, IntegratorType::RungeKutta4,
          IntegratorType::DormandPrince45, IntegratorType::ImplicitEuler,
          IntegratorType::TimeStepping}) {
        SCOPED_TRACE(std::string(integratorName(integrator)));
        SceneSpec spec = test::chain(16, integrator, 1e-3);
        spec.settings.projectionTolerance = 1e-9;
        const auto model = compiled(spec);
        ForwardDynamics sim(model);
        ASSERT_TRUE(sim.initialize().ok);
        auto markerOrigin = [&](int marker) {
            const MarkerModel& m = model->markers[static_cast<std::size_t>(marker)];
            if (m.body == kGround) return m.X_BM.p;
            const Transform X_WB{bodyOrientation(sim.state().q, m.body).normalized(),
                                 bodyPosition(sim.state().q, m.body)};
            return (X_WB * m.X_BM).p;
        };
        double worst = 0.0;
        for (int k = 1; k <= 20; ++k) {
            ASSERT_TRUE(sim.advance(0.1 * k).ok);
            for (const JointModel& joint : model->joints)
                worst = std::max(
                    worst, (markerOrigin(joint.markerI) - markerOrigin(joint.markerJ)).norm());
            Outputs out;
            ASSERT_TRUE(sim.outputs(out).ok);
            EXPECT_LE(out.constraintError, 1e-9);
        }
        EXPECT_LE(worst, 1e-9 * (1 + 1e-6));
        EXPECT_GT(worst, 0.0);
    }
}

}  // namespace
}  // namespace engine

namespace engine {
namespace {

// A fixed-step run whose force has a pole between two steps failed in the joints' projection,
// and the message blamed the joint ("joint 'hinge' is off by 0.000135 m after 8 Newton
// iterations"): the force, its expression and where it races off come first.
TEST(ForwardDynamicsFaults, AFixedStepRunBrokenByAForcePoleNamesTheForceNotTheJoint) {
    io::SceneLoadResult loaded =
        io::loadSceneFile(MOTUS_SOURCE_DIR "/tests/app/data/nan_force.json");
    ASSERT_TRUE(loaded.scene);
    SceneSpec spec = *loaded.scene;
    spec.forces[0].components[2] = "1e3/(time - 0.5003)^2";
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    Status s;
    for (int frame = 1; frame <= 100 && s.ok; ++frame) s = sim.advance(0.01 * frame);
    ASSERT_FALSE(s.ok);
    EXPECT_EQ(s.message.rfind("force 'kick': its expression '1e3/(time - 0.5003)^2' (z "
                              "component) races off to ",
                              0),
              0u)
        << s.message;
    EXPECT_NE(s.message.find("a pole?"), std::string::npos) << s.message;
}

}  // namespace
}  // namespace engine
