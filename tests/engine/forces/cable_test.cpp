// Cables (multipoint springs, seed 003 §0.14) against closed forms: the Atwood machine over two
// fixed eyes, a slack rope that pushes nothing and then catches a falling load as a linear
// spring does, the energy of a rope through points on moving parts, and bad input refused.

#include <cmath>
#include <functional>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/io/scene_json.h"
#include "tests/support/mechanisms.h"
#include "tests/support/scene_errors.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

using test::compiled;

constexpr double g = 9.81;

// Two blocks of m1 and m2 kg on vertical guides 0.2 m apart, hung from a rope that runs up from
// each over an eye on the frame (1 m up, straight above it) and across between the eyes: the
// rope's vertical runs stay vertical, as over a frictionless pulley.
SceneSpec atwood(double m1, double m2, double k) {
    const std::string scene = R"j({"format": "motus-scene", "version": 1,
      "settings": {"integrator": "dopri45", "relativeTolerance": 1e-11, "absoluteTolerance": 1e-13},
      "parts": [{"name": "frame", "ground": true,
                 "markers": [{"name": "left", "position": [-0.1, 0, 1]},
                             {"name": "right", "position": [0.1, 0, 1]},
                             {"name": "guideL", "position": [-0.1, 0, 0]},
                             {"name": "guideR", "position": [0.1, 0, 0]}]},
                {"name": "heavy", "mass": 1, "inertia": [0.01, 0.01, 0.01], "position": [-0.1, 0, 0],
                 "markers": [{"name": "hook"}, {"name": "slide"}]},
                {"name": "light", "mass": 1, "inertia": [0.01, 0.01, 0.01], "position": [0.1, 0, 0],
                 "markers": [{"name": "hook"}, {"name": "slide"}]}],
      "joints": [{"name": "guideL", "type": "prismatic", "markerI": "heavy.slide", "markerJ": "frame.guideL"},
                 {"name": "guideR", "type": "prismatic", "markerI": "light.slide", "markerJ": "frame.guideR"}],
      "forces": [{"name": "rope", "type": "cable",
                  "points": ["heavy.hook", "frame.left", "frame.right", "light.hook"]}]})j";
    const io::SceneLoadResult r = io::parseScene(scene);
    for (const Diagnostic& d : r.diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    SceneSpec spec = *r.scene;
    spec.parts[1].mass = m1;
    spec.parts[2].mass = m2;
    ForceSpec& rope = spec.forces[0];
    rope.stiffness = k;
    // Stretched to the tension it will carry, 2 g m1 m2 / (m1 + m2): released, the blocks move
    // as one and the stretch stays as it is (an inextensible rope's motion from the start).
    const double tension = 2.0 * g * m1 * m2 / (m1 + m2);
    rope.freeLength = 1.0 + 0.2 + 1.0 - tension / k;
    return spec;
}

TEST(Cables, AnAtwoodMachineAcceleratesAtGTimesTheMassDifferenceOverTheSum) {
    const double m1 = 3.0, m2 = 2.0;
    const double a = g * (m1 - m2) / (m1 + m2), tension = 2.0 * g * m1 * m2 / (m1 + m2);
    // Adaptively to the closed form; with the implicit step (its Jacobian the cable's, exact)
    // to its first order, a h t in position, and the tension to 1e-3.
    for (IntegratorType integrator :
         {IntegratorType::DormandPrince45, IntegratorType::ImplicitEuler}) {
        SceneSpec spec = atwood(m1, m2, 1e6);
        spec.settings.integrator = integrator;
        spec.settings.stepSize = 1e-3;
        const bool exact = integrator == IntegratorType::DormandPrince45;
        ForwardDynamics sim(compiled(spec));
        ASSERT_TRUE(sim.initialize().ok);
        for (int k = 1; k <= 10; ++k) {
            const double t = 0.05 * k;
            ASSERT_TRUE(sim.advance(t).ok);
            Outputs out;
            ASSERT_TRUE(sim.outputs(out).ok);
            // The heavy block down by a t²/2, the light one up as much; the rope's tension
            // and its recorded length (the stretch unchanged).
            const double reach = exact ? 1e-9 : a * 1e-3 * t;
            EXPECT_NEAR(out.jointCoordinates(0), -0.5 * a * t * t, reach) << t;
            EXPECT_NEAR(out.jointCoordinates(1), 0.5 * a * t * t, reach) << t;
            ASSERT_EQ(out.springForce.size(), 1u);
            EXPECT_NEAR(out.springForce[0], tension, (exact ? 1e-6 : 1e-3) * tension) << t;
            EXPECT_NEAR(out.springLength[0], 2.2, 1e-6) << t;
        }
    }
}

// A 2 kg block on a vertical guide, thrown up, hung from a rope 1.2 m long tied to the frame
// 1 m above the block's start: slack until the block falls 0.2 m below its start, then a spring
// of k that catches it.
SceneSpec ropeAndLoad(double k) {
    const std::string scene = R"j({"format": "motus-scene", "version": 1,
      "settings": {"integrator": "dopri45", "relativeTolerance": 1e-11, "absoluteTolerance": 1e-13},
      "parts": [{"name": "frame", "ground": true,
                 "markers": [{"name": "tie", "position": [0, 0, 1]}, {"name": "guide"}]},
                {"name": "load", "mass": 2, "inertia": [0.01, 0.01, 0.01],
                 "velocity": [0, 0, 1.5], "markers": [{"name": "hook"}, {"name": "slide"}]}],
      "joints": [{"name": "guide", "type": "prismatic", "markerI": "load.slide", "markerJ": "frame.guide"}],
      "forces": [{"name": "rope", "type": "cable", "points": ["frame.tie", "load.hook"],
                  "freeLength": 1.2}]})j";
    const io::SceneLoadResult r = io::parseScene(scene);
    for (const Diagnostic& d : r.diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    SceneSpec spec = *r.scene;
    spec.forces[0].stiffness = k;
    return spec;
}

TEST(Cables, ASlackRopePushesNothingAndCatchesAFallingLoadAsALinearSpring) {
    // Thrown up at 1.5 m/s from 1 m below the tie with 1.2 m of rope: while the load is within
    // 1.2 m of the tie the rope is slack, the load flies free, exactly z = 1.5 t − g t²/2, and
    // the rope's tension is exactly 0. It tightens as the load comes back down 0.2 m below its
    // start, at a speed v (v² = v₀² + 2 g 0.2): the load then falls on a spring, and the rope's
    // greatest stretch x solves ½ k x² − m g x = ½ m v², its peak tension k x.
    const double k = 2e4, m = 2.0, v0 = 1.5;
    const SceneSpec spec = ropeAndLoad(k);
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    double peak = 0.0, t = 0.0;
    bool slackChecked = false, caught = false;
    for (int step = 1; step <= 8000; ++step) {
        t = 1e-4 * step;
        ASSERT_TRUE(sim.advance(t).ok);
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        const double z = out.jointCoordinates(0);
        caught = caught || 1.0 - z > 1.2;       // (after the catch the load flies on a bounce)
        if (!caught && 1.0 - z < 1.2 - 1e-6) {  // within the rope's reach of the tie: slack
            EXPECT_EQ(out.springForce[0], 0.0) << t;
            EXPECT_NEAR(z, v0 * t - 0.5 * g * t * t, 1e-9) << t;
            slackChecked = true;
        }
        peak = std::max(peak, out.springForce[0]);
    }
    EXPECT_TRUE(slackChecked);
    const double vTaut2 = v0 * v0 + 2.0 * g * 0.2;
    const double x = (m * g + std::sqrt(m * g * m * g + k * m * vTaut2)) / k;
    EXPECT_NEAR(peak, k * x, 0.02 * k * x);
    EXPECT_GT(peak, 5.0 * m * g);  // a real catch, not a gentle hang
}

TEST(Cables, ARopeThroughPointsOnMovingPartsKeepsTheEnergyBalance) {
    // The Atwood machine with its eyes on a swinging beam instead of the frame, the rope
    // elastic and released unstretched: the blocks bounce on it, the rope going slack and taut
    // again, and the beam swings. Undamped, the balance holds to the integrator's accuracy;
    // damped along the path as a spring (not slack), the dissipated energy is what the motion
    // lost, to the same accuracy. A damped rope that goes slack has a tension that jumps by c l̇
    // as it tightens: dopri45 steps over those jumps with an error of its own (measured 0.010 J
    // of 75 J at its tolerance; steps of at most 0.1 ms take it 100 times lower), the
    // accounting still exact.
    for (const auto& [damping, slack] :
         {std::pair{0.0, true}, std::pair{20.0, false}, std::pair{20.0, true}}) {
        SceneSpec spec = atwood(3.0, 2.0, 5e3);
        spec.forces[0].freeLength = 2.2;
        spec.forces[0].damping = damping;
        // (its eyes off centre, the right one outboard of its block: the rope's pulls turn it)
        Part beam = test::box(spec, "beam", 1.0, Vec3(0.6, 0.05, 0.05), Vec3(0, 0, 1.0));
        test::addMarker(spec, beam, "pivot", Vec3::Zero(), Vec3::UnitY());
        test::addMarker(spec, beam, "left", Vec3(-0.1, 0, 0));
        test::addMarker(spec, beam, "right", Vec3(0.25, 0, 0));
        spec.parts.push_back(beam);
        test::addMarker(spec, spec.parts[0], "pivot", Vec3(0, 0, 1.0), Vec3::UnitY());
        spec.joints.push_back(
            test::joint(spec, "beamPivot", JointType::Revolute, "beam.pivot", "frame.pivot"));
        spec.forces[0].via = {CableVia{.marker = {"beam", "left"}},
                              CableVia{.marker = {"beam", "right"}}};
        spec.parts[1].mass = 3.0;
        spec.forces[0].slack = slack;
        const test::FreeRun run = test::runFree(spec, 2.0);
        ASSERT_TRUE(run.ran) << run.failure;
        EXPECT_NEAR(run.balanceAfter, run.balanceBefore, damping > 0.0 && slack ? 3e-2 : 1e-7)
            << damping << " " << slack;
        EXPECT_GT(run.kinetic, 0.1) << damping;
    }
}

// An inextensible rope (a unilateral row of the velocity-level contact problem, no stiffness):
// the Atwood machine over the two eyes, its rope exactly 2.2 m, moves at the closed form with
// the closed-form tension from the first step, in maximal and in joint coordinates alike.
TEST(Cables, AnInextensibleRopesAtwoodMachineMovesAtTheClosedForm) {
    const double m1 = 3.0, m2 = 2.0, h = 1e-3;
    const double a = g * (m1 - m2) / (m1 + m2), tension = 2.0 * g * m1 * m2 / (m1 + m2);
    for (const Formulation formulation : {Formulation::Maximal, Formulation::Recursive}) {
        SceneSpec spec = atwood(m1, m2, 0.0);
        spec.forces[0].stiffness = 0.0;
        spec.forces[0].freeLength = 2.2;
        spec.forces[0].inextensible = true;
        spec.settings.integrator = IntegratorType::TimeStepping;
        spec.settings.stepSize = h;
        spec.settings.formulation = formulation;
        ForwardDynamics sim(compiled(spec));
        ASSERT_TRUE(sim.initialize().ok);
        for (int k = 1; k <= 10; ++k) {
            const double t = 0.05 * k;
            ASSERT_TRUE(sim.advance(t).ok);
            Outputs out;
            ASSERT_TRUE(sim.outputs(out).ok);
            // Velocity-level steps: the speed exact at each step, the position a h t / 2 ahead.
            EXPECT_NEAR(out.jointRates(0), -a * t, 1e-9) << t;
            EXPECT_NEAR(out.jointCoordinates(0), -0.5 * a * t * t, 0.6 * a * h * t) << t;
            EXPECT_NEAR(out.jointCoordinates(1), -out.jointCoordinates(0), 1e-9) << t;
            EXPECT_NEAR(out.springForce[0], tension, 1e-6 * tension) << t;
            EXPECT_NEAR(out.springLength[0], 2.2, 1e-9) << t;
            // The guides carry nothing along the fall: each block's weight less the tension
            // is its m a.
            EXPECT_NEAR(out.reactions[0].force_W.z(), 0.0, 1e-6) << t;
        }
    }
}

// Thrown up under an inextensible rope 1.2 m long: slack, the load flies free and the rope
// pulls exactly nothing; taut, it stops the load dead (a plastic catch: the rope does not
// stretch, nothing bounces), which takes out ½ m v² at the catch as dissipated energy (the
// balance holding to the step's own first-order error, m g² h t), and the load hangs at the
// rope's length with its weight as the tension.
TEST(Cables, AnInextensibleRopeCatchesAFallingLoadDead) {
    const double m = 2.0, v0 = 1.5, h = 1e-4;
    SceneSpec spec = ropeAndLoad(0.0);
    spec.forces[0].inextensible = true;
    spec.settings.integrator = IntegratorType::TimeStepping;
    spec.settings.stepSize = h;
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    const double balance0 = out.energies.balance();
    const double vTaut = std::sqrt(v0 * v0 + 2.0 * g * 0.2), tTaut = (v0 + vTaut) / g;
    bool slackChecked = false;
    for (int step = 1; step <= 8000; ++step) {
        const double t = h * step;
        ASSERT_TRUE(sim.advance(t).ok);
        ASSERT_TRUE(sim.outputs(out).ok);
        const double z = out.jointCoordinates(0);
        if (t < tTaut - 2.0 * h) {
            EXPECT_EQ(out.springForce[0], 0.0) << t;
            EXPECT_NEAR(z, v0 * t - 0.5 * g * t * t, 0.6 * g * h * t) << t;
            slackChecked = true;
        }
        EXPECT_GT(z, -0.2 - 1e-9) << t;  // never beyond the rope's length
        if (t > tTaut + 2.0 * h) {
            EXPECT_NEAR(z, -0.2, 1e-9) << t;
            EXPECT_NEAR(out.jointRates(0), 0.0, 1e-9) << t;
            EXPECT_NEAR(out.springForce[0], m * g, 1e-6 * m * g) << t;
        }
    }
    EXPECT_TRUE(slackChecked);
    EXPECT_NEAR(out.energies.dissipated, 0.5 * m * vTaut * vTaut, 0.01 * 0.5 * m * vTaut * vTaut);
    EXPECT_NEAR(out.energies.balance(), balance0, m * g * g * h * 0.8);
}

// An inextensible rope with a law of its own, that pushes, over a pulley with friction, or
// whose span pulls three moving parts: refused, saying where and why.
TEST(Cables, BadInextensibleRopesAreRefusedByTheirPlace) {
    SceneSpec good = atwood(3.0, 2.0, 0.0);
    good.forces[0].stiffness = 0.0;
    good.forces[0].freeLength = 2.2;
    good.forces[0].inextensible = true;
    good.settings.integrator = IntegratorType::TimeStepping;
    for (const Diagnostic& d : validate(good))
        EXPECT_NE(d.severity, Severity::Error) << d.where << ": " << d.message;
    const std::string text = io::sceneToJson(good);
    ASSERT_NE(text.find("\"inextensible\": true"), std::string::npos);
    EXPECT_EQ(io::sceneToJson(*io::parseScene(text).scene), text);
    auto refuses = [&](const std::function<void(SceneSpec&)>& edit, const std::string& where,
                       const std::string& words) {
        SceneSpec bad = good;
        edit(bad);
        bool said = false;
        for (const Diagnostic& d : validate(bad))
            said = said || (d.severity == Severity::Error && d.where == where &&
                            d.message.find(words) != std::string::npos);
        EXPECT_TRUE(said) << where << ": " << words;
    };
    refuses([](SceneSpec& s) { s.forces[0].stiffness = 1e5; }, "/forces/0/stiffness",
            "no stiffness");
    refuses([](SceneSpec& s) { s.forces[0].dampingTable = "wind"; }, "/forces/0/damping",
            "no damping");
    refuses([](SceneSpec& s) { s.forces[0].preload = 3.0; }, "/forces/0/preload", "no preload");
    refuses([](SceneSpec& s) { s.forces[0].slack = false; }, "/forces/0/slack", "pushes nothing");
    refuses(
        [](SceneSpec& s) {
            s.forces[0].via[0].pulley = true;
            s.forces[0].via[0].radius = 0.05;
            s.forces[0].via[0].friction = 0.3;
        },
        "/forces/0/points/1/friction", "not modelled");
    // Its second eye on a third block that slides: one span pulling three parts.
    refuses(
        [](SceneSpec& s) {
            Part third = s.parts[2];
            third.name = "third";
            s.parts.push_back(third);
            s.forces[0].via[1].marker = {"third", "hook"};
        },
        "/forces/0/points", "at most two");
    // Any other integrator is replaced by the velocity-level one, and said so.
    SceneSpec dopri = good;
    dopri.settings.integrator = IntegratorType::DormandPrince45;
    bool warned = false;
    for (const Diagnostic& d : validate(dopri))
        warned = warned || (d.where == "/settings/integrator" && d.severity == Severity::Warning &&
                            d.message.find("inextensible") != std::string::npos);
    EXPECT_TRUE(warned);
    EXPECT_EQ(compile(dopri).model->settings.integrator, IntegratorType::TimeStepping);
}

TEST(Cables, BadCablesAreRefusedByTheirPlace) {
    const SceneSpec good = atwood(3.0, 2.0, 1e6);
    const std::string text = io::sceneToJson(good);
    EXPECT_NE(text.find("\"points\": ["), std::string::npos);
    const io::SceneLoadResult back = io::parseScene(text);
    ASSERT_TRUE(back.scene);
    EXPECT_EQ(back.scene->forces[0].via.size(), 2u);
    EXPECT_EQ(io::sceneToJson(*back.scene), text);
    // One point; a via marker on no part; a point that is no marker reference.
    auto fileRefuses = [&](const std::string& from, const std::string& to, const std::string& where,
                           const std::string& words) {
        test::expectEditRefused(text, from, to, where, words);
    };
    const std::size_t open = text.find("\"points\": [");
    const std::string points = text.substr(open, text.find(']', open) + 1 - open);
    fileRefuses(points, "\"points\": [\"heavy.hook\"]", "/forces/0/points", "at least 2 points");
    fileRefuses("\"frame.right\"", "\"pulley.rim\"", "/forces/0/points/2",
                "no marker 'pulley.rim'");
    fileRefuses("\"frame.left\"", "\"frame\"", "/forces/0/points/1", "marker reference");
    // A slack rope with a pushing preload, a rope on one part only.
    SceneSpec bad = good;
    bad.forces[0].preload = -5.0;
    bool said = false;
    for (const Diagnostic& d : validate(bad))
        said = said || (d.where == "/forces/0/preload" && d.severity == Severity::Error);
    EXPECT_TRUE(said);
    bad = good;
    bad.forces[0].markerI = {"frame", "guideL"};
    bad.forces[0].markerJ = {"frame", "guideR"};
    said = false;
    for (const Diagnostic& d : validate(bad))
        said = said ||
               (d.where == "/forces/0/points" && d.message.find("one part") != std::string::npos);
    EXPECT_TRUE(said);
}

}  // namespace
}  // namespace engine
