// Cables round pulleys (seed 003 §0.14, wrapping) against closed forms: the path's length over a
// pulley in its plane and off it (a helix), lift-off, the Atwood machine over a frictionless
// pulley and over one that turns with the rope (inertia J), the energy of a rope over pulleys on
// moving parts, and bad pulleys refused by their place.

#include <chrono>
#include <cmath>
#include <cstring>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/analysis/forward_dynamics.h"
#include "engine/forces/forces.h"
#include "engine/io/scene_json.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/kinematics/kinematics.h"
#include "engine/kinematics/retract.h"
#include "engine/math/cable_path.h"
#include "engine/math/constants.h"
#include "engine/math/dual.h"
#include "engine/model/edit.h"
#include "engine/model/layout.h"
#include "engine/runtime/simulator.h"
#include "engine/state/state.h"
#include "tests/support/mechanisms.h"
#include "tests/support/scene_errors.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

using test::compiled;

constexpr double g = 9.81;

CableAnchor point(const Vec3& p) {
    CableAnchor a;
    a.p = p;
    return a;
}
CableAnchor pulley(const Vec3& p, double radius, int sense, const Mat3& R = Mat3::Identity()) {
    CableAnchor a;
    a.R = R;
    a.p = p;
    a.radius = radius;
    a.sense = sense;
    return a;
}

// Over a pulley of radius r at the origin (axis z) from P = (−a, −h) to Q = (a, −h), over its
// top (clockwise about z): two tangents √(d² − r²) and the arc r θ, θ = 2π − 2 atan(a/h) −
// 2 acos(r/d), d = |P|. With P and Q at heights z apart the path unrolls onto a plane: the
// helix's length √(L² + Δz²) for the planar L.
TEST(Pulleys, APathOverAPulleyIsItsTangentsAndItsArcOrHelix) {
    const double r = 0.2, a = 0.5, h = 1.0, d = std::hypot(a, h);
    const double theta = 2.0 * kPi - 2.0 * std::atan(a / h) - 2.0 * std::acos(r / d);
    const double planar = 2.0 * std::sqrt(d * d - r * r) + r * theta;
    for (const double dz : {0.0, 0.3, -0.7}) {
        const std::vector<CableAnchor> anchors = {
            point(Vec3(-a, -h, 0.0)), pulley(Vec3::Zero(), r, -1), point(Vec3(a, -h, dz))};
        const CableContacts solved = solveCablePath(anchors);
        ASSERT_TRUE(solved.converged);
        ASSERT_GE(solved.slot[1], 0);
        const CablePathOf<double> path = cablePath(anchors, solved);
        EXPECT_NEAR(path.length, std::hypot(planar, dz), 1e-12) << dz;
        EXPECT_NEAR(-(path.phiOut[1] - path.phiIn[1]), theta, dz == 0.0 ? 1e-12 : 1e-9) << dz;
        // Tangent: each straight piece is perpendicular to the radius where it touches.
        for (const CablePieceOf<double>& piece : path.pieces) {
            const Vec3 touch = piece.from == 1 ? piece.a : piece.b;
            EXPECT_NEAR(piece.u.dot(Vec3(touch.x(), touch.y(), 0.0)), 0.0, 1e-10) << dz;
        }
    }
    // The same pulley turned over (its z down) with the wrap the other way: the same path.
    const Mat3 flipped = Eigen::AngleAxisd(kPi, Vec3::UnitX()).toRotationMatrix();
    const std::vector<CableAnchor> anchors = {
        point(Vec3(-a, -h, 0.0)), pulley(Vec3::Zero(), r, 1, flipped), point(Vec3(a, -h, 0.0))};
    EXPECT_NEAR(cablePath(anchors, solveCablePath(anchors)).length, planar, 1e-12);
    // A cable that would go round the pulley's underside (counterclockwise) from points below
    // it clears it: lifted, the line straight. From points above it, the same pulley must be
    // gone round the long way: a wrap beyond a half turn.
    const std::vector<CableAnchor> under = {point(Vec3(-a, -h, 0.0)), pulley(Vec3::Zero(), r, 1),
                                            point(Vec3(a, -h, 0.0))};
    const CableContacts clear = solveCablePath(under);
    EXPECT_EQ(clear.slot[1], -1);
    EXPECT_DOUBLE_EQ(cablePath(under, clear).length, 2.0 * a);
    const std::vector<CableAnchor> over = {point(Vec3(-a, 0.5, 0.0)), pulley(Vec3::Zero(), r, 1),
                                           point(Vec3(a, 0.5, 0.0))};
    const CableContacts round = solveCablePath(over);
    ASSERT_GE(round.slot[1], 0);
    const double c = std::hypot(a, 0.5);  // as above, the arc through the top left out
    EXPECT_NEAR(round.x(2) - round.x(0),
                2.0 * kPi - 2.0 * std::atan(a / 0.5) - 2.0 * std::acos(r / c), 1e-12);
    EXPECT_NEAR(cablePath(over, round).length,
                2.0 * std::sqrt(c * c - r * r) +
                    r * (2.0 * kPi - 2.0 * std::atan(a / 0.5) - 2.0 * std::acos(r / c)),
                1e-12);
}

// Lifting off is smooth: as the line from P to Q sweeps across the pulley's free side, the
// length goes from wrapped to straight without a jump in it or its slope.
TEST(Pulleys, ACableLiftsOffAPulleyWithoutAJump) {
    const double r = 0.1;
    auto length = [&](double y) {
        const std::vector<CableAnchor> anchors = {
            point(Vec3(-1.0, y, 0.0)), pulley(Vec3::Zero(), r, -1), point(Vec3(1.0, y, 0.0))};
        return cablePath(anchors, solveCablePath(anchors)).length;
    };
    // Lifted when the line is above the top (y > r): 2 exactly; below it, longer.
    EXPECT_DOUBLE_EQ(length(r + 1e-3), 2.0);
    EXPECT_GT(length(r - 1e-3), 2.0);
    const double e = 1e-6;
    EXPECT_NEAR(length(r - e), 2.0, 1e-9);
    EXPECT_NEAR((length(r - e) - length(r - 2.0 * e)) / e, 0.0, 1e-3);
}

// Two pulleys with parallel axes, a crossed (figure-eight) belt and an open one: the common
// tangents' closed forms, L = 2 √(D² − (r1 ∓ r2)²) + arcs.
TEST(Pulleys, TwoPulleysMeetOnTheirCommonTangents) {
    const double r1 = 0.3, r2 = 0.1, D = 1.0;
    // From a point far left, over pulley 1, under pulley 2, to a point far right: between the
    // pulleys the internal tangent, of length √(D² − (r1 + r2)²).
    const std::vector<CableAnchor> anchors = {
        point(Vec3(-5.0, r1, 0.0)), pulley(Vec3::Zero(), r1, -1), pulley(Vec3(D, 0.0, 0.0), r2, 1),
        point(Vec3(D + 5.0, -r2, 0.0))};
    const CableContacts solved = solveCablePath(anchors);
    ASSERT_GE(solved.slot[1], 0);
    ASSERT_GE(solved.slot[2], 0);
    const CablePathOf<double> path = cablePath(anchors, solved);
    ASSERT_EQ(path.pieces.size(), 3u);
    EXPECT_NEAR(path.pieces[1].length, std::sqrt(D * D - (r1 + r2) * (r1 + r2)), 1e-12);
    // The wraps: each π/2 − asin((r1 + r2)/D)... the angle the internal tangent turns by.
    const double turn = std::asin((r1 + r2) / D);
    EXPECT_NEAR(path.wrapped[1], r1 * turn, 1e-12);
    EXPECT_NEAR(path.wrapped[2], r2 * turn, 1e-12);
    EXPECT_NEAR(path.pieces[0].length, 5.0, 1e-12);
    EXPECT_NEAR(path.pieces[2].length, 5.0, 1e-12);
}

// The path on dual numbers: its length's tangent is the finite difference of the length, and
// its pieces' ends move with the pulleys (the implicit function theorem's tangent).
TEST(Pulleys, ThePathsTangentsAreItsDerivatives) {
    const Mat3 tilt = Eigen::AngleAxisd(0.3, Vec3(1, 2, 0).normalized()).toRotationMatrix();
    auto anchorsAt = [&](double s) {
        return std::vector<CableAnchor>{point(Vec3(-1.0 + 0.1 * s, -1.0, 0.2 * s)),
                                        pulley(Vec3(0.0, 0.05 * s, 0.0), 0.2, -1, tilt),
                                        pulley(Vec3(0.8, -0.05 * s, 0.1 - 0.3 * s), 0.15, -1),
                                        point(Vec3(1.8, -1.0 + 0.2 * s, 0.3))};
    };
    const double s0 = 0.4, h = 1e-6;
    const std::vector<CableAnchor> at = anchorsAt(s0);
    const CableContacts solved = solveCablePath(at);
    ASSERT_GE(solved.slot[1], 0);
    ASSERT_GE(solved.slot[2], 0);
    std::vector<CableAnchorOf<Dual>> dual(at.size());
    const std::vector<CableAnchor> plus = anchorsAt(s0 + h), minus = anchorsAt(s0 - h);
    for (std::size_t k = 0; k < at.size(); ++k) {
        dual[k].R = at[k].R.cast<Dual>();
        for (int i = 0; i < 3; ++i)
            dual[k].p(i) = Dual(at[k].p(i), (plus[k].p(i) - minus[k].p(i)) / (2 * h));
        dual[k].radius = at[k].radius;
        dual[k].sense = at[k].sense;
    }
    const CablePathOf<Dual> path = cablePath(dual, solved);
    const CablePathOf<double> up = cablePath(plus, solveCablePath(plus)),
                              down = cablePath(minus, solveCablePath(minus));
    EXPECT_NEAR(path.length.b, (up.length - down.length) / (2 * h), 1e-7);
    for (std::size_t i = 0; i < path.pieces.size(); ++i)
        for (int c = 0; c < 3; ++c)
            EXPECT_NEAR(path.pieces[i].a(c).b, (up.pieces[i].a(c) - down.pieces[i].a(c)) / (2 * h),
                        1e-6)
                << i << " " << c;
}

// Two blocks of m1 and m2 kg on vertical guides 2r apart, hung from a rope over a pulley of
// radius r 1 m above them: frictionless, fixed on the frame; or turning on an axle, inertia J.
SceneSpec atwood(double m1, double m2, double r, double k, double J) {
    const bool turning = J > 0.0;
    const std::string R = std::to_string(r);  // (exact for the radii below)
    std::string scene = R"j({"format": "motus-scene", "version": 1,
      "settings": {"integrator": "dopri45", "relativeTolerance": 1e-11, "absoluteTolerance": 1e-13},
      "parts": [{"name": "frame", "ground": true,
                 "markers": [{"name": "axle", "position": [0, 0, 1], "orientation": {"axis": [1, 0, 0], "angleDeg": -90}},
                             {"name": "guideL", "position": [-RADIUS, 0, 0]},
                             {"name": "guideR", "position": [RADIUS, 0, 0]}]},
                {"name": "sheave", "mass": 1, "inertia": [0.01, 0.01, 0.01], "position": [0, 0, 1],
                 "markers": [{"name": "axle", "orientation": {"axis": [1, 0, 0], "angleDeg": -90}}]},
                {"name": "heavy", "mass": 1, "inertia": [0.01, 0.01, 0.01], "position": [-RADIUS, 0, 0],
                 "markers": [{"name": "hook"}, {"name": "slide"}]},
                {"name": "light", "mass": 1, "inertia": [0.01, 0.01, 0.01], "position": [RADIUS, 0, 0],
                 "markers": [{"name": "hook"}, {"name": "slide"}]}],
      "joints": [{"name": "guideL", "type": "prismatic", "markerI": "heavy.slide", "markerJ": "frame.guideL"},
                 {"name": "guideR", "type": "prismatic", "markerI": "light.slide", "markerJ": "frame.guideR"},
                 {"name": "axle", "type": "revolute", "markerI": "sheave.axle", "markerJ": "frame.axle"}],
      "forces": [{"name": "rope", "type": "cable",
                  "points": ["heavy.hook", PULLEY, "light.hook"]}]})j";
    auto replace = [&](const std::string& from, const std::string& to) {
        for (std::size_t at = scene.find(from); at != std::string::npos;
             at = scene.find(from, at + to.size()))
            scene.replace(at, from.size(), to);
    };
    replace("PULLEY", turning ? R"({"marker": "sheave.axle", "radius": RADIUS, "joint": "axle"})"
                              : R"({"marker": "frame.axle", "radius": RADIUS})");
    replace("RADIUS", R);
    const io::SceneLoadResult loaded = io::parseScene(scene);
    for (const Diagnostic& d : loaded.diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    SceneSpec spec = *loaded.scene;
    spec.parts[2].mass = m1;
    spec.parts[3].mass = m2;
    // The sheave's inertia about its axle (the world's y), J.
    spec.parts[1].I_Pcm_P = Vec3(0.01, turning ? J : 0.01, 0.01).asDiagonal();
    ForceSpec& rope = spec.forces[0];
    rope.stiffness = k;
    // Stretched to the frictionless machine's tension: two runs of 1 m and half the pulley.
    const double tension = 2.0 * g * m1 * m2 / (m1 + m2);
    rope.freeLength = 2.0 + kPi * r - tension / k;
    return spec;
}

TEST(Pulleys, AnAtwoodMachineOverAFrictionlessPulleyAcceleratesAtTheClosedForm) {
    const double m1 = 3.0, m2 = 2.0, r = 0.1;
    const double a = g * (m1 - m2) / (m1 + m2), tension = 2.0 * g * m1 * m2 / (m1 + m2);
    ForwardDynamics sim(compiled(atwood(m1, m2, r, 1e6, 0.0)));
    ASSERT_TRUE(sim.initialize().ok);
    for (int k = 1; k <= 10; ++k) {
        const double t = 0.05 * k;
        ASSERT_TRUE(sim.advance(t).ok);
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        EXPECT_NEAR(out.jointCoordinates(0), -0.5 * a * t * t, 1e-9) << t;
        EXPECT_NEAR(out.jointCoordinates(1), 0.5 * a * t * t, 1e-9) << t;
        ASSERT_EQ(out.springForce.size(), 1u);
        EXPECT_NEAR(out.springForce[0], tension, 1e-6 * tension) << t;
        // Its length: the two runs and the half turn, stretched by T/k.
        EXPECT_NEAR(out.springLength[0], 2.0 + kPi * r, 1e-6) << t;
    }
}

TEST(Pulleys, AnAtwoodMachineOverATurningPulleyCarriesItsInertia) {
    // No slip: the rope turns the pulley, a = g (m1 − m2)/(m1 + m2 + J/r²), the tensions
    // m1 (g − a) and m2 (g + a) on the two sides, their difference times r turning the pulley.
    const double m1 = 3.0, m2 = 2.0, r = 0.1, J = 0.02;
    const double a = g * (m1 - m2) / (m1 + m2 + J / (r * r));
    ForwardDynamics sim(compiled(atwood(m1, m2, r, 1e7, J)));
    ASSERT_TRUE(sim.initialize().ok);
    const double t = 0.5;
    ASSERT_TRUE(sim.advance(t).ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    // The rope's stretch rings at √(k/m) from the start's one tension; its amplitude, ~T/k,
    // is 1e-6 m: the fall to 1e-3 of a t²/2.
    EXPECT_NEAR(out.jointCoordinates(0), -0.5 * a * t * t, 1e-3 * 0.5 * a * t * t);
    EXPECT_NEAR(out.jointCoordinates(1), 0.5 * a * t * t, 1e-3 * 0.5 * a * t * t);
    // The pulley turned with the rope: r ψ = the fall (clockwise about y, its joint's axis).
    EXPECT_NEAR(std::abs(out.jointCoordinates(2)) * r, 0.5 * a * t * t, 1e-3 * 0.5 * a * t * t);
    // The recorded tension is the greater span's, m1 (g − a), within the ring's amplitude.
    EXPECT_NEAR(out.springForce[0], m1 * (g - a), 0.05 * m1 * (g - a));
    // Frictionless (no joint), the same machine falls as if the pulley had no inertia.
    SceneSpec free = atwood(m1, m2, r, 1e7, J);
    free.forces[0].via[0].joint.clear();
    free.forces[0].via[0].marker = {"frame", "axle"};
    ForwardDynamics slides(compiled(free));
    ASSERT_TRUE(slides.initialize().ok);
    ASSERT_TRUE(slides.advance(t).ok);
    ASSERT_TRUE(slides.outputs(out).ok);
    const double aFree = g * (m1 - m2) / (m1 + m2);
    EXPECT_NEAR(out.jointCoordinates(0), -0.5 * aFree * t * t, 1e-6);
}

// The Atwood machine with a second pulley on a swinging beam: a rope over pulleys on moving
// parts (the first frictionless, or turning with the rope). The beam hangs from a pivot at its
// left end, level at first, its wheel at the right end pressing the heavy block's run aside;
// as it swings down the wheel leaves the rope (the wrap gone to nothing), and meets it again
// on the way back.
SceneSpec swingingPulleys(bool turning) {
    SceneSpec spec = atwood(3.0, 2.0, 0.1, 5e3, turning ? 0.02 : 0.0);
    Part beam = test::box(spec, "beam", 1.0, Vec3(0.6, 0.05, 0.05), Vec3(-0.4, 0, 0.55));
    test::addMarker(spec, beam, "pivot", Vec3(-0.25, 0, 0), Vec3::UnitY());
    test::addMarker(spec, beam, "wheel", Vec3(0.27, 0, 0), Vec3::UnitY());
    spec.parts.push_back(beam);
    test::addMarker(spec, spec.parts[0], "pivot", Vec3(-0.65, 0, 0.55), Vec3::UnitY());
    spec.joints.push_back(
        test::joint(spec, "beamPivot", JointType::Revolute, "beam.pivot", "frame.pivot"));
    CableVia wheel{.marker = {"beam", "wheel"}};
    wheel.pulley = true;
    wheel.radius = 0.05;
    wheel.clockwise = true;
    spec.forces[0].via.insert(spec.forces[0].via.begin(), wheel);
    spec.forces[0].freeLength = 2.3;
    return spec;
}

// The same machine with an inextensible rope (rows of the velocity-level contact problem, one
// per span): over the turning pulley each span's tension is its own, m1 (g − a) and m2 (g + a),
// and the pulley's inertia slows the fall to the closed form from the first step — in maximal
// and joint coordinates; over the frictionless one the fall is J's-free.
TEST(Pulleys, AnInextensibleRopeOverATurningPulleyCarriesItsInertia) {
    const double m1 = 3.0, m2 = 2.0, r = 0.1, J = 0.02, h = 1e-3;
    for (const bool turning : {true, false})
        for (const Formulation formulation : {Formulation::Maximal, Formulation::Recursive}) {
            const double a = g * (m1 - m2) / (m1 + m2 + (turning ? J / (r * r) : 0.0));
            SceneSpec spec = atwood(m1, m2, r, 1.0, J);
            if (!turning) {
                spec.forces[0].via[0].joint.clear();
                spec.forces[0].via[0].marker = {"frame", "axle"};
            }
            ForceSpec& rope = spec.forces[0];
            rope.stiffness = 0.0;
            rope.freeLength = 2.0 + kPi * r;
            rope.inextensible = true;
            spec.settings.integrator = IntegratorType::TimeStepping;
            spec.settings.stepSize = h;
            spec.settings.formulation = formulation;
            ForwardDynamics sim(compiled(spec));
            ASSERT_TRUE(sim.initialize().ok);
            for (const double t : {0.1, 0.5}) {
                ASSERT_TRUE(sim.advance(t).ok);
                Outputs out;
                ASSERT_TRUE(sim.outputs(out).ok);
                EXPECT_NEAR(out.jointRates(0), -a * t, 1e-8) << turning << " " << t;
                EXPECT_NEAR(out.jointRates(1), a * t, 1e-8) << turning << " " << t;
                if (turning) {
                    EXPECT_NEAR(std::abs(out.jointRates(2)) * r, a * t, 1e-8) << t;
                }
                // The greater span's tension (the heavy side's).
                EXPECT_NEAR(out.springForce[0], m1 * (g - a), 1e-6 * m1 * g) << turning << " " << t;
                EXPECT_NEAR(out.springLength[0], 2.0 + kPi * r, 1e-8) << turning << " " << t;
            }
        }
}

// The rope's force is its energy's gradient: its generalised force on every part against
// central differences of its elastic energy as each part moves and turns (the force along the
// pieces at their ends — the envelope theorem — and the turning pulley's spans included).
TEST(Pulleys, ARopesForceIsTheGradientOfItsEnergy) {
    for (const bool turning : {false, true}) {
        SceneSpec spec = swingingPulleys(turning);
        spec.forces[0].freeLength = 2.0;  // taut
        const auto model = compiled(spec);
        ASSERT_TRUE(model);
        const State initial = initialState(*model);
        Eigen::VectorXd q = initial.q, v = Eigen::VectorXd::Zero(initial.v.size());
        // Off the guides a little and turned: out of the mechanism's plane where the pulleys
        // are frictionless; in it where one turns (a turning pulley's spans are taken in its
        // plane, engine/math/cable_path.h).
        const double off = turning ? 0.0 : 1.0;
        for (int b = 0; b < model->bodyCount(); ++b) {
            layout::position(q, b) += Vec3(0.01 * b, 0.02 * off, -0.01 * b);
            rotateBody(q, b, Vec3(0.02 * off, 0.1 * b, -0.03 * off));
        }
        const ForceModel& rope = model->forces[0];
        auto evaluate = [&](const Eigen::VectorXd& at, double& energy) {
            std::vector<BodyFrame> frames;
            computeBodyFrames(*model, at, v, frames);
            Eigen::VectorXd g = Eigen::VectorXd::Zero(model->velocitySize());
            ForceEnergies energies;
            applyForceElement(*model, rope, 0.0, frames, Eigen::VectorXd(), Eigen::VectorXd(),
                              jointCoordinateOffsets(*model), g, energies);
            energy = energies.elastic;
            return g;
        };
        double energy = 0.0;
        const Eigen::VectorXd g = evaluate(q, energy);
        EXPECT_GT(energy, 1.0) << turning;
        const double h = 1e-6;
        for (int b = 0; b < model->bodyCount(); ++b)
            for (int c = 0; c < 6; ++c) {
                if (turning && (c == 1 || c == 3 || c == 5)) continue;  // in the plane
                Eigen::VectorXd plus = q, minus = q;
                if (c < 3) {
                    layout::position(plus, b)(c) += h;
                    layout::position(minus, b)(c) -= h;
                } else {
                    rotateBody(plus, b, h * Vec3::Unit(c - 3));
                    rotateBody(minus, b, -h * Vec3::Unit(c - 3));
                }
                double up = 0.0, down = 0.0;
                evaluate(plus, up);
                evaluate(minus, down);
                EXPECT_NEAR(-(up - down) / (2 * h), g(6 * b + c), 1e-5 * (1.0 + g.norm()))
                    << (turning ? "turning" : "frictionless") << " body " << b << ", " << c;
            }
    }
}

TEST(Pulleys, ARopeOverPulleysOnMovingPartsKeepsTheEnergyBalance) {
    // Released slack, the blocks bounce on the rope, which slackens and tightens; the beam
    // swings down, its wheel leaving the rope (the wrap gone to nothing) and meeting it again.
    // Undamped, the energy stays to the integrator's accuracy — over a frictionless sheave with
    // the wheel, over a turning one (its spans' tensions differing) alone and with the wheel.
    struct Case {
        bool turning, wheel;
        double seconds;
    };
    for (const Case c : {Case{false, true, 1.5}, Case{true, false, 1.5}, Case{true, true, 1.5}}) {
        SceneSpec spec = swingingPulleys(c.turning);
        if (!c.wheel) spec.forces[0].via.erase(spec.forces[0].via.begin());
        const test::FreeRun run = test::runFree(spec, c.seconds);
        ASSERT_TRUE(run.ran) << run.failure;
        EXPECT_NEAR(run.balanceAfter, run.balanceBefore, 1e-6) << c.turning << c.wheel;
        EXPECT_GT(run.kinetic, 0.1) << c.turning << c.wheel;
    }
}

// The capstan (belt friction): a rope over a fixed drum of radius 0.1 m with friction μ, wrapped
// half a turn (θ = π), blocks of m1 and m2 hanging on it. It holds while m1 g ≤ e^{μθ} m2 g, and
// slips beyond, the tensions' ratio held at e^{μθ}: the heavy block then falls at
// a = g (m1 − e^{μθ} m2) / (m1 + e^{μθ} m2).
TEST(Pulleys, ARopeOverADrumWithFrictionHoldsUpToTheCapstanRatio) {
    const double mu = 0.3, grip = std::exp(mu * kPi), m2 = 1.0;
    for (const double over : {0.99, 1.01, 1.5}) {
        const double m1 = over * grip * m2;
        SceneSpec spec = atwood(m1, m2, 0.1, 1e6, 0.0);
        spec.forces[0].via[0].friction = mu;
        spec.forces[0].damping = 2000.0;
        spec.forces[0].freeLength = 2.0 + kPi * 0.1;  // unstretched: both spans take their load
        ForwardDynamics sim(compiled(spec));
        ASSERT_TRUE(sim.initialize().ok);
        ASSERT_TRUE(sim.advance(0.5).ok);
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        const double z0 = out.jointCoordinates(0), v0 = out.jointRates(0);
        const Status ran = sim.advance(1.0);
        ASSERT_TRUE(ran.ok) << ran.message;
        ASSERT_TRUE(sim.outputs(out).ok);
        const double fall = z0 - out.jointCoordinates(0);
        if (over < 1.0) {
            // Held: the blocks at rest (the spans stretched to m1 g and m2 g).
            EXPECT_LT(std::abs(fall), 1e-6) << over;
            EXPECT_NEAR(std::abs(out.jointRates(0)), 0.0, 1e-6) << over;
        } else {
            // Slipping: from 0.5 s to 1 s its speed grows by a × 0.5 s (the start's jerk, the
            // rope taking up the load, left behind), the heavy side's tension (the recorded
            // greater one) e^{μθ} times the light side's, m2 (g + a).
            const double a = g * (m1 - grip * m2) / (m1 + grip * m2);
            EXPECT_NEAR(out.springForce[0], grip * m2 * (g + a), 0.01 * grip * m2 * (g + a))
                << over;
            EXPECT_GT(fall, 0.0) << over;
            EXPECT_NEAR(out.jointRates(0) - v0, -a * 0.5, 0.01 * a * 0.5) << over;
        }
    }
}

// Slipping over the drum, the friction's work is what the energy balance misses: with it counted
// as dissipated the balance holds to the integrator's accuracy — released slack, the rope
// taking up the load, gripping and slipping by turns as it bounces, then slipping for good.
TEST(Pulleys, ARopeSlippingOverADrumDissipatesWhatTheFrictionTakes) {
    const double mu = 0.3, grip = std::exp(mu * kPi), m2 = 1.0;
    SceneSpec spec = atwood(1.5 * grip * m2, m2, 0.1, 1e5, 0.0);
    spec.forces[0].via[0].friction = mu;
    spec.forces[0].freeLength = 2.0 + kPi * 0.1 + 0.01;  // 1 cm slack
    spec.settings.integrator = IntegratorType::DormandPrince45;
    // (0.8 s: the light block 0.6 m up, well short of the drum)
    const test::FreeRun run = test::runFree(spec, 0.8);
    ASSERT_TRUE(run.ran) << run.failure;
    EXPECT_NEAR(run.balanceAfter, run.balanceBefore, 1e-6);
    EXPECT_GT(run.kinetic, 0.1);
    // Without the friction's work in it the balance would be off by the tension's difference
    // times the slip: about (e^{μθ} − 1) m2 g × the fall, here several joules.
    ForwardDynamics sim(compiled(spec));
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(0.8).ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_GT(out.energies.dissipated, 1.0);
}

// The grip and the slip are the run's switches, recorded with each frame: a run re-run from
// any of its frames (gripping, slipping toward either end) goes on bit for bit.
TEST(Pulleys, ARunOverADrumWithFrictionReRunsFromAnyFrameBitForBit) {
    using namespace std::chrono_literals;
    const double mu = 0.3, grip = std::exp(mu * kPi), m2 = 1.0;
    SceneSpec spec = atwood(1.2 * grip * m2, m2, 0.1, 1e5, 0.0);
    spec.forces[0].via[0].friction = mu;
    spec.forces[0].freeLength = 2.0 + kPi * 0.1 + 0.005;
    spec.settings.integrator = IntegratorType::SymplecticEuler;
    spec.settings.stepSize = 1e-4;
    const auto model = compiled(spec);
    auto rowsOf = [](const Recording& r) { return test::recordedRows(r); };
    Simulator original(model);
    original.runTo(0.5);
    ASSERT_TRUE(original.waitUntilIdle(60s));
    ASSERT_TRUE(original.snapshot()->error.empty()) << original.snapshot()->error;
    const auto expected = rowsOf(original.recording());
    // It slipped, and gripped at times on the way.
    const int slipping = original.recording().layout().findChannel("rope.slipping1");
    ASSERT_GE(slipping, 0);
    std::vector<double> times, values;
    original.recording().series(slipping, 0, expected.size(), 1, times, values);
    const std::set<double> modes(values.begin(), values.end());
    EXPECT_TRUE(modes.count(-1.0) == 1 && modes.count(0.0) == 1);
    for (const std::size_t frame : {std::size_t{3}, expected.size() / 3, expected.size() / 2}) {
        Simulator sim(model);
        sim.runTo(0.5);
        ASSERT_TRUE(sim.waitUntilIdle(60s));
        sim.rerunFrom(frame);
        sim.runTo(0.5);
        ASSERT_TRUE(sim.waitUntilIdle(60s));
        const auto again = rowsOf(sim.recording());
        ASSERT_EQ(again.size(), expected.size());
        for (std::size_t k = 0; k < again.size(); ++k)
            ASSERT_EQ(
                std::memcmp(again[k].data(), expected[k].data(), again[k].size() * sizeof(double)),
                0)
                << "re-run from frame " << frame << ", frame " << k;
    }
}

// The tendon-driven finger (scenes/tendon_finger.json): a tendon pulled with T through a sheath,
// round a pulley of radius r1 at the knuckle, two guides and a pulley of r2 at the middle joint
// to the fingertip, against torsion springs k1, k2. Wrapped, the tendon's moment arm about each
// joint is its pulley's radius whatever the angle: at rest θ = T r / k, exactly — with the
// implicit step (its Jacobian the tendon's, pulleys' tangents included) and with dopri45.
TEST(Pulleys, ATendonDrivenFingerCurlsUntilEachSpringHoldsTheTendonsTorque) {
    const io::SceneLoadResult loaded =
        io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/tendon_finger.json");
    ASSERT_TRUE(loaded.scene);
    const double T = 10.0, r1 = 0.01, r2 = 0.008, k1 = 0.5, k2 = 0.3;
    for (const IntegratorType integrator :
         {IntegratorType::ImplicitEuler, IntegratorType::DormandPrince45}) {
        SceneSpec spec = *loaded.scene;
        spec.settings.integrator = integrator;
        ForwardDynamics sim(compiled(spec));
        ASSERT_TRUE(sim.initialize().ok);
        ASSERT_TRUE(sim.advance(3.0).ok);
        Outputs out;
        ASSERT_TRUE(sim.outputs(out).ok);
        EXPECT_NEAR(out.springForce[0], T, 1e-6);
        EXPECT_NEAR(out.jointCoordinates(0), T * r1 / k1, 1e-6);
        EXPECT_NEAR(out.jointCoordinates(1), T * r2 / k2, 1e-6);
    }
}

// Hostile paths give a path, never a hang or a non-number: two pulleys on one spot, a pulley
// round its own neighbour, a neighbour inside a pulley, radii from 1e-9 m to 1e6 m, every point
// on one spot, a pulley whose axis lies along the cable.
TEST(Pulleys, DegeneratePathsAreSolvedOrPassedBy) {
    const Mat3 along = Eigen::AngleAxisd(0.5 * kPi, Vec3::UnitY()).toRotationMatrix();
    const std::vector<std::vector<CableAnchor>> cases = {
        {point(Vec3(-1, -1, 0)), pulley(Vec3::Zero(), 0.1, -1), pulley(Vec3::Zero(), 0.1, -1),
         point(Vec3(1, -1, 0))},
        {point(Vec3(-1, -1, 0)), pulley(Vec3(-1, -1, 0), 0.1, 1), point(Vec3(1, -1, 0))},
        {point(Vec3(0.01, 0, 0)), pulley(Vec3::Zero(), 0.1, 1), point(Vec3(1, -1, 0))},
        {point(Vec3(-1, -1, 0)), pulley(Vec3::Zero(), 1e-9, -1), point(Vec3(1, -1, 0))},
        {point(Vec3(-1, -1, 0)), pulley(Vec3::Zero(), 1e6, -1), point(Vec3(1, -1, 0))},
        {point(Vec3::Zero()), pulley(Vec3::Zero(), 0.1, 1), point(Vec3::Zero())},
        {point(Vec3(-1, -1, 0)), pulley(Vec3::Zero(), 0.1, -1, along), point(Vec3(1, -1, 0))},
        {point(Vec3(-1, -1, 0)), pulley(Vec3(0, 0.05, 0), 0.1, -1), pulley(Vec3(0.1, 0, 0), 0.1, 1),
         pulley(Vec3(0.2, 0.05, 0), 0.1, -1), point(Vec3(1, -1, 0))}};
    for (std::size_t c = 0; c < cases.size(); ++c) {
        const CableContacts solved = solveCablePath(cases[c]);
        const CablePathOf<double> path = cablePath(cases[c], solved);
        EXPECT_TRUE(std::isfinite(path.length)) << c;
        EXPECT_GE(path.length, (cases[c].back().p - cases[c].front().p).norm() - 1e-9) << c;
        for (const CablePieceOf<double>& piece : path.pieces)
            EXPECT_TRUE(piece.u.allFinite() && piece.a.allFinite() && piece.b.allFinite()) << c;
    }
}

// Editing what a turning pulley names: renaming its joint follows; deleting the joint leaves the
// pulley frictionless (the rope slides over it from then on) and the scene valid; deleting the
// pulley's marker takes the cable with it.
TEST(Pulleys, ATurningPulleysJointRenamedOrDeletedIsFollowed) {
    const io::SceneLoadResult loaded = io::loadSceneFile(MOTUS_SOURCE_DIR "/scenes/jib_crane.json");
    ASSERT_TRUE(loaded.scene);
    SceneSpec spec = *loaded.scene;
    ASSERT_EQ(spec.forces[0].via[0].joint, "winch");
    ASSERT_TRUE(renameEntity(spec, spec.joints[0].id, "hoistAxle"));
    EXPECT_EQ(spec.forces[0].via[0].joint, "hoistAxle");
    SceneSpec without = spec;
    deleteEntity(without, without.joints[0].id);
    ASSERT_EQ(without.forces.size(), 1u);
    EXPECT_TRUE(without.forces[0].via[0].pulley);
    EXPECT_TRUE(without.forces[0].via[0].joint.empty());
    for (const Diagnostic& d : validate(without))
        EXPECT_NE(d.severity, Severity::Error) << d.where << ": " << d.message;
    const Part* drum = spec.findPart("drum");
    ASSERT_TRUE(drum);
    deleteEntity(spec, drum->markers[0].id);
    EXPECT_TRUE(spec.forces.empty());
}

TEST(Pulleys, BadPulleysAreRefusedByTheirPlace) {
    const SceneSpec good = atwood(3.0, 2.0, 0.1, 1e6, 0.02);
    const io::SceneLoadResult back = io::parseScene(io::sceneToJson(good));
    ASSERT_TRUE(back.scene);
    EXPECT_EQ(io::sceneToJson(*back.scene), io::sceneToJson(good));
    // On the file's text, written on one line (keys in order).
    const std::string text = nlohmann::json::parse(io::sceneToJson(good)).dump();
    const std::string pulley = R"({"joint":"axle","marker":"sheave.axle","radius":0.1})";
    ASSERT_NE(text.find(pulley), std::string::npos) << text;
    auto refuses = [&](const std::string& to, const std::string& where, const std::string& words) {
        test::expectEditRefused(text, pulley, to, where, words);
    };
    refuses(R"({"joint":"axle","marker":"sheave.axle","radius":0})", "/forces/0/points/1/radius",
            "radius must be positive");
    refuses(R"({"marker":"sheave.axle","radius":-0.1})", "/forces/0/points/1/radius",
            "radius must be positive");
    refuses(R"({"marker":"sheave.axle","radius":0.1,"wrap":"left"})", "/forces/0/points/1/wrap",
            "\"ccw\" or \"cw\"");
    refuses(R"({"marker":"sheave.axle","radius":0.1,"spin":1})", "/forces/0/points/1/spin",
            "unknown key");
    refuses(R"({"marker":"sheave.nowhere","radius":0.1})", "/forces/0/points/1",
            "no marker 'sheave.nowhere'");
    // Belt friction: negative, not a number, or on a pulley that turns with the cable.
    refuses(R"({"friction":-0.2,"marker":"sheave.axle","radius":0.1})",
            "/forces/0/points/1/friction", "zero or positive");
    refuses(R"({"friction":"high","marker":"sheave.axle","radius":0.1})",
            "/forces/0/points/1/friction", "number");
    refuses(R"({"friction":0.3,"joint":"axle","marker":"sheave.axle","radius":0.1})",
            "/forces/0/points/1/friction", "a pulley that does not turn");
    // A turning pulley's joint: none of that name, one that slides, one that does not hold it.
    refuses(R"({"joint":"spindle","marker":"sheave.axle","radius":0.1})",
            "/forces/0/points/1/joint", "no joint 'spindle'");
    refuses(R"({"joint":"guideL","marker":"sheave.axle","radius":0.1})", "/forces/0/points/1/joint",
            "revolute or cylindrical");
    refuses(R"({"joint":"axle","marker":"heavy.hook","radius":0.1})", "/forces/0/points/1/joint",
            "does not hold part 'heavy'");
    // An end that is a pulley; a wrap without a radius.
    test::expectEditRefused(text, R"("heavy.hook",{)", R"({"marker":"heavy.hook","radius":0.1},{)",
                            "/forces/0/points/0", "ends are points");
    refuses(R"({"marker":"sheave.axle","wrap":"cw"})", "/forces/0/points/1", "give its radius");
}

}  // namespace
}  // namespace engine
