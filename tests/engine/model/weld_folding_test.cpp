// Attachments (seed 003 §0.17–0.19): parts welded together are folded into one body before the
// solve. A three-part welded pendulum against one part with the combined mass properties
// (closed form), its weld reactions against the outer parts' inertial and gravity loads, and
// against the same scene unfolded; what folds and what does not.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/modes.h"
#include "engine/analysis/state_value.h"
#include "engine/analysis/statics.h"
#include "engine/dynamics/dynamics.h"
#include "engine/import/robot_import.h"
#include "engine/io/csv_export.h"
#include "engine/math/constants.h"
#include "engine/model/layout.h"
#include "engine/model/model.h"
#include "engine/record/recording.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

using test::compiled;

constexpr double g = 9.81;

Part part(const std::string& name, double mass, const Vec3& com, const Mat3& inertia,
          const Transform& X_WP) {
    Part p;
    p.name = name;
    p.mass = mass;
    p.p_PPcm = com;
    p.I_Pcm_P = inertia;
    p.X_WP = X_WP;
    return p;
}

Marker marker(const std::string& name, const Transform& X_PM) {
    Marker m;
    m.name = name;
    m.X_PM = X_PM;
    return m;
}

Joint joint(const std::string& name, JointType type, const MarkerRef& i, const MarkerRef& j) {
    Joint k;
    k.name = name;
    k.type = type;
    k.markerI = i;
    k.markerJ = j;
    return k;
}

// A pendulum on a pivot about the world's y axis, started 40° from hanging and turning: an arm
// (2 kg, its COM off its origin), a plate welded at its tip turned 30° about z and 20° about x
// (1 kg, a full inertia tensor), a weight welded to the plate's corner (3 kg). Each weld's
// markers coincide at the parts' poses.
struct Pendulum {
    SceneSpec spec;
    Transform X_WA, X_WB, X_WC;
    Mat3 IA, IB, IC;
    Vec3 cA, cB, cC;  // COMs in the parts' frames
    double mA = 2.0, mB = 1.0, mC = 3.0;
};

Pendulum weldedPendulum() {
    Pendulum s;
    const Quat hang = quatFromAxisAngle(Vec3::UnitY(), 40.0 * kPi / 180.0);
    // About y: the pivot markers' z along the world's y.
    const Quat zAlongY = quatFromAxisAngle(Vec3::UnitX(), -kPi / 2.0);
    s.X_WA = Transform{hang, hang * Vec3(0.0, 0.0, -0.5)};
    s.IA = Vec3(0.05, 0.05, 0.004).asDiagonal();
    s.cA = Vec3(0.01, 0.0, 0.02);
    const Transform tipOnA{Quat::Identity(), Vec3(0.0, 0.0, -0.5)};
    const Quat turn =
        quatFromAxisAngle(Vec3::UnitZ(), kPi / 6.0) * quatFromAxisAngle(Vec3::UnitX(), kPi / 9.0);
    // The plate's weld marker at its origin's (0.1, 0, 0.05), turned `turn` from the plate.
    const Transform rootOnB{turn.conjugate(), Vec3(0.1, 0.0, 0.05)};
    s.X_WB = s.X_WA * tipOnA * rootOnB.inverse();
    s.IB << 0.02, 0.001, 0.002, 0.001, 0.01, -0.0015, 0.002, -0.0015, 0.015;
    s.cB = Vec3(-0.03, 0.02, 0.0);
    const Transform cornerOnB{Quat::Identity(), Vec3(-0.2, 0.1, -0.05)};
    const Transform baseOnC{quatFromAxisAngle(Vec3::UnitY(), 0.3), Vec3(0.0, 0.0, 0.08)};
    s.X_WC = s.X_WB * cornerOnB * baseOnC.inverse();
    s.IC = Vec3(0.004, 0.004, 0.006).asDiagonal();
    s.cC = Vec3(0.0, 0.0, -0.05);

    Part ground;
    ground.name = "ground";
    ground.ground = true;
    ground.markers.push_back(marker("pivot", Transform{zAlongY, Vec3::Zero()}));
    Part a = part("arm", s.mA, s.cA, s.IA, s.X_WA);
    a.markers.push_back(marker("pivot", s.X_WA.inverse() * Transform{zAlongY, Vec3::Zero()}));
    a.markers.push_back(marker("tip", tipOnA));
    a.w_WP_W = Vec3(0.0, 1.5, 0.0);
    Part b = part("plate", s.mB, s.cB, s.IB, s.X_WB);
    b.markers.push_back(marker("root", rootOnB));
    b.markers.push_back(marker("corner", cornerOnB));
    Part c = part("weight", s.mC, s.cC, s.IC, s.X_WC);
    c.markers.push_back(marker("base", baseOnC));
    s.spec.parts = {ground, a, b, c};
    s.spec.joints = {
        joint("pivot", JointType::Revolute, {"arm", "pivot"}, {"ground", "pivot"}),
        joint("armToPlate", JointType::Fixed, {"plate", "root"}, {"arm", "tip"}),
        joint("plateToWeight", JointType::Fixed, {"weight", "base"}, {"plate", "corner"})};
    s.spec.settings.integrator = IntegratorType::RungeKutta4;
    s.spec.settings.stepSize = 1e-3;
    // (the welded parts' spin: the arm's, from the start)
    s.spec.parts[2].w_WP_W = s.spec.parts[3].w_WP_W = a.w_WP_W;
    const Vec3 w = a.w_WP_W;
    for (int k : {2, 3}) {
        Part& p = s.spec.parts[static_cast<std::size_t>(k)];
        p.v_WPo_W = w.cross(p.X_WP.p);
    }
    s.spec.parts[1].v_WPo_W = w.cross(s.X_WA.p);
    return s;
}

// The three parts' mass properties combined in the arm's frame by the parallel-axis theorem.
Part combinedArm(const Pendulum& s) {
    const Transform X_AB = s.X_WA.inverse() * s.X_WB, X_AC = s.X_WA.inverse() * s.X_WC;
    const Vec3 pA = s.cA, pB = X_AB * s.cB, pC = X_AC * s.cC;
    const double m = s.mA + s.mB + s.mC;
    const Vec3 c = (s.mA * pA + s.mB * pB + s.mC * pC) / m;
    auto shifted = [&](const Mat3& I_own, const Mat3& R, double mass, const Vec3& at) {
        const Vec3 d = at - c;
        return Mat3(R * I_own * R.transpose() +
                    mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose()));
    };
    Part arm = s.spec.parts[1];
    arm.mass = m;
    arm.p_PPcm = c;
    arm.I_Pcm_P = shifted(s.IA, Mat3::Identity(), s.mA, pA) +
                  shifted(s.IB, X_AB.rotationMatrix(), s.mB, pB) +
                  shifted(s.IC, X_AC.rotationMatrix(), s.mC, pC);
    return arm;
}

TEST(WeldFolding, AThreePartWeldedPendulumMovesAsOnePartWithTheCombinedMass) {
    const Pendulum welded = weldedPendulum();
    SceneSpec one;
    one.parts = {welded.spec.parts[0], combinedArm(welded)};
    one.joints = {welded.spec.joints[0]};
    one.settings = welded.spec.settings;
    const auto folded = compiled(welded.spec), single = compiled(one);
    // One body and the pivot's five rows: the welds cost nothing.
    EXPECT_EQ(folded->bodyCount(), 1);
    EXPECT_EQ(folded->constraintRows(), 5);
    EXPECT_EQ(folded->bodies[0].mass, 6.0);
    for (const IntegratorType integrator :
         {IntegratorType::RungeKutta4, IntegratorType::DormandPrince45}) {
        SceneSpec a = welded.spec, b = one;
        a.settings.integrator = b.settings.integrator = integrator;
        ForwardDynamics runA(compiled(a)), runB(compiled(b));
        ASSERT_TRUE(runA.initialize().ok);
        ASSERT_TRUE(runB.initialize().ok);
        for (const double t : {0.25, 0.5, 1.0, 2.0}) {
            ASSERT_TRUE(runA.advance(t).ok);
            ASSERT_TRUE(runB.advance(t).ok);
            const std::vector<Transform> posesA = partPoses(runA.model(), runA.state());
            const std::vector<Transform> posesB = partPoses(runB.model(), runB.state());
            EXPECT_LT((posesA[1].p - posesB[1].p).norm(), 1e-12) << t;
            EXPECT_LT(posesA[1].R.angularDistance(posesB[1].R), 1e-12) << t;
            Outputs outA, outB;
            ASSERT_TRUE(runA.outputs(outA).ok);
            ASSERT_TRUE(runB.outputs(outB).ok);
            EXPECT_NEAR(outA.jointCoordinates(0), outB.jointCoordinates(0), 1e-12) << t;
            EXPECT_NEAR(outA.jointRates(0), outB.jointRates(0), 1e-12) << t;
            // The pivot carries the same load.
            EXPECT_LT((outA.reactions[0].force_W - outB.reactions[0].force_W).norm(), 1e-9) << t;
        }
    }
}

// Each weld's reaction is the load of the parts it carries: at every instant their inertial
// loads less their weight, m (a − g) and I α + ω × I ω about their centres, the pendulum's α
// from its moment of inertia about the pivot and gravity's moment (closed form from the pose and
// the rate) — on the plate at the arm's tip (plate and weight), on the weight at the plate's
// corner (the weight alone); and the same as the unfolded scene's weld rows give.
TEST(WeldFolding, AWeldsReactionIsTheInertialAndGravityLoadOfThePartsItCarries) {
    const Pendulum welded = weldedPendulum();
    SceneSpec apart = welded.spec;
    apart.settings.foldWelds = false;
    const auto folded = compiled(welded.spec);
    ASSERT_TRUE(folded->joints[1].folded && folded->joints[2].folded);
    EXPECT_EQ(folded->joints[1].carried, (std::vector<int>{2, 3}));
    EXPECT_EQ(folded->joints[2].carried, (std::vector<int>{3}));
    ForwardDynamics run(folded), rows(compiled(apart));
    ASSERT_TRUE(run.initialize().ok);
    ASSERT_TRUE(rows.initialize().ok);
    const double masses[] = {0.0, welded.mA, welded.mB, welded.mC};
    const Mat3 inertias[] = {Mat3::Zero(), welded.IA, welded.IB, welded.IC};
    const Vec3 coms[] = {Vec3::Zero(), welded.cA, welded.cB, welded.cC};
    const Vec3 gravity(0.0, 0.0, -g);
    for (const double t : {0.0, 0.3, 0.7, 1.5}) {
        ASSERT_TRUE(run.advance(t).ok);
        ASSERT_TRUE(rows.advance(t).ok);
        Outputs out, outRows;
        ASSERT_TRUE(run.outputs(out).ok);
        ASSERT_TRUE(rows.outputs(outRows).ok);
        const std::vector<Transform> poses = partPoses(run.model(), run.state());
        // The pendulum's turn about the pivot (the world's y axis, through the origin).
        const Vec3 w = out.jointRates(0) * Vec3::UnitY();
        Mat3 Ipivot = Mat3::Zero();
        Vec3 moment = Vec3::Zero();
        for (int p = 1; p <= 3; ++p) {
            const Vec3 d = poses[static_cast<std::size_t>(p)] * coms[p];
            const Mat3 R = poses[static_cast<std::size_t>(p)].rotationMatrix();
            Ipivot += R * inertias[p] * R.transpose() +
                      masses[p] * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
            moment += d.cross(masses[p] * gravity);
        }
        const Vec3 alpha = moment.y() / Ipivot(1, 1) * Vec3::UnitY();
        auto load = [&](std::initializer_list<int> carried, const Vec3& about, Vec3& force,
                        Vec3& torque) {
            force = torque = Vec3::Zero();
            for (const int p : carried) {
                const Vec3 d = poses[static_cast<std::size_t>(p)] * coms[p];
                const Mat3 R = poses[static_cast<std::size_t>(p)].rotationMatrix();
                const Mat3 I = R * inertias[p] * R.transpose();
                const Vec3 a = alpha.cross(d) + w.cross(w.cross(d));
                const Vec3 f = masses[p] * (a - gravity);
                force += f;
                torque += I * alpha + w.cross(I * w) + (d - about).cross(f);
            }
        };
        Vec3 F, T;
        load({2, 3}, poses[2] * welded.spec.parts[2].markers[0].X_PM.p, F, T);
        EXPECT_LT((out.reactions[1].force_W - F).norm(), 1e-9 * 60.0) << t;
        EXPECT_LT((out.reactions[1].torque_W - T).norm(), 1e-9 * 60.0) << t;
        load({3}, poses[3] * welded.spec.parts[3].markers[0].X_PM.p, F, T);
        EXPECT_LT((out.reactions[2].force_W - F).norm(), 1e-9 * 60.0) << t;
        EXPECT_LT((out.reactions[2].torque_W - T).norm(), 1e-9 * 60.0) << t;
        // The unfolded scene's weld rows say the same (its own run, to its projection's 1e-10).
        for (int j : {1, 2}) {
            EXPECT_LT((out.reactions[static_cast<std::size_t>(j)].force_W -
                       outRows.reactions[static_cast<std::size_t>(j)].force_W)
                          .norm(),
                      1e-6)
                << t << " " << j;
            EXPECT_LT((out.reactions[static_cast<std::size_t>(j)].force_J -
                       outRows.reactions[static_cast<std::size_t>(j)].force_J)
                          .norm(),
                      1e-6)
                << t << " " << j;
        }
    }
}

// What a run reports per part is the same folded or not: the recording's channels and the CSV
// columns (names and values: each part's centre, orientation, velocities; seen from a moving
// frame; the kinematic columns' accelerations), for the pendulum hung from a heaving deck
// with a bracket welded to the ground as well.
TEST(WeldFolding, EveryPartReportsTheSameChannelsFoldedOrNot) {
    Pendulum welded = weldedPendulum();
    SceneSpec& spec = welded.spec;
    Part deck;
    deck.name = "deck";
    deck.mass = 50.0;
    deck.I_Pcm_P = Vec3(5.0, 5.0, 5.0).asDiagonal();
    deck.frameMotion = FrameMotion{};
    deck.frameMotion->translation[2] = "0.05 * sin(4 * time)";
    deck.frameMotion->rotation[0] = "0.1 * sin(3 * time)";
    deck.markers.push_back(spec.parts[0].markers[0]);
    Part bracket = part("bracket", 0.5, Vec3(0.01, 0.0, 0.0), Vec3(1e-3, 2e-3, 3e-3).asDiagonal(),
                        Transform{Quat::Identity(), Vec3(1.0, 0.0, 0.0)});
    bracket.markers.push_back(marker("foot", Transform{}));
    spec.parts[0].markers.push_back(marker("bolt", Transform{Quat::Identity(), Vec3(1.0, 0, 0)}));
    spec.parts.push_back(deck);
    spec.parts.push_back(bracket);
    spec.joints[0].markerJ = {"deck", "pivot"};
    spec.joints.push_back(
        joint("bracketBolt", JointType::Fixed, {"bracket", "foot"}, {"ground", "bolt"}));
    SceneSpec apart = spec;
    apart.settings.foldWelds = false;
    const auto folded = compiled(spec), separate = compiled(apart);
    ASSERT_EQ(folded->bodyCount(), 2);  // the pendulum, the deck
    ASSERT_EQ(separate->bodyCount(), 5);

    ForwardDynamics runA(folded), runB(separate);
    ASSERT_TRUE(runA.initialize().ok);
    ASSERT_TRUE(runB.initialize().ok);
    ASSERT_TRUE(runA.advance(0.4).ok);
    ASSERT_TRUE(runB.advance(0.4).ok);
    struct Table {
        std::vector<std::string> names;
        std::vector<double> values;
    };
    auto csv = [](const Model& model, const State& state, ForwardDynamics& run) {
        Outputs out;
        EXPECT_TRUE(run.outputs(out).ok);
        Workspace ws;
        EXPECT_TRUE(prepareWorkspace(model, state, ws).ok);
        EXPECT_TRUE(computeAccelerations(model, state.t, state.q, state.v, state.jointCoordinates,
                                         state.lagged, ws)
                        .ok);
        std::ostringstream text;
        io::CsvWriter writer(model, text);
        writer.addKinematicColumns();
        writer.writeHeader();
        writer.writeRow(state, out, ws.vdot, {});
        std::istringstream lines(text.str());
        std::string header, row, cell;
        std::getline(lines, header);
        std::getline(lines, row);
        Table t;
        std::istringstream h(header), r(row);
        while (std::getline(h, cell, ',')) t.names.push_back(cell);
        while (std::getline(r, cell, ',')) t.values.push_back(std::stod(cell));
        return t;
    };
    const Table a = csv(*folded, runA.state(), runA), b = csv(*separate, runB.state(), runB);
    ASSERT_EQ(a.names, b.names);
    ASSERT_EQ(a.values.size(), a.names.size());
    ASSERT_EQ(b.values.size(), b.names.size());
    for (const char* column :
         {"plate.x", "weight.qx", "weight.vz", "plate.wy", "weight.deck.x", "weight.deck.vy",
          "bracket.x", "bracket.deck.z", "weight.ax", "plate.alphay", "bracket.ax"})
        EXPECT_NE(std::find(a.names.begin(), a.names.end(), column), a.names.end()) << column;
    for (std::size_t k = 0; k < a.names.size(); ++k) {
        const std::string& n = a.names[k];
        // (the welds' own rows: the unfolded run's reactions to its projection's 1e-6; its
        // constraint error is its own)
        if (n == "constraint.error") continue;
        const bool load = n.find(".F") != std::string::npos || n.find(".T") != std::string::npos;
        EXPECT_NEAR(a.values[k], b.values[k], load ? 1e-5 : 1e-7) << n;
    }
    // The recording: the same channel names, the same values.
    const FrameLayout la(*folded), lb(*separate);
    std::vector<double> rowA(static_cast<std::size_t>(la.size())),
        rowB(static_cast<std::size_t>(lb.size()));
    Outputs outA, outB;
    ASSERT_TRUE(runA.outputs(outA).ok);
    ASSERT_TRUE(runB.outputs(outB).ok);
    la.encode(runA.state(), outA, rowA.data());
    lb.encode(runB.state(), outB, rowB.data());
    for (const Channel& c : lb.channels()) {
        const int k = la.findChannel(c.name);
        ASSERT_GE(k, 0) << c.name;
        if (c.name == "constraint.error") continue;
        const bool load = c.unit == "N" || c.unit == "N·m";
        EXPECT_NEAR(la.channels()[static_cast<std::size_t>(k)].value(rowA.data()),
                    c.value(rowB.data()), load ? 1e-5 : 1e-7)
            << c.name;
    }
}

// Small vibrations see the same mechanism folded or not: the same frequency, and mode shapes
// scaled alike (by the part whose centre moves most, not by the folded body's centre).
TEST(WeldFolding, ModesAreTheSameFoldedOrNot) {
    const Pendulum welded = weldedPendulum();
    SceneSpec apart = welded.spec;
    apart.settings.foldWelds = false;
    ForwardDynamics a(compiled(welded.spec)), b(compiled(apart));
    ASSERT_TRUE(a.initialize().ok);
    ASSERT_TRUE(b.initialize().ok);
    const ModesResult ma = modes(a.model(), a.state()), mb = modes(b.model(), b.state());
    ASSERT_TRUE(ma.status.ok && mb.status.ok);
    ASSERT_EQ(ma.modes.size(), 1u);
    ASSERT_EQ(mb.modes.size(), 1u);
    EXPECT_NEAR(ma.modes[0].frequency, mb.modes[0].frequency, 1e-9 * mb.modes[0].frequency);
    // Each part's centre: the body's translation plus its turn about the body's centre.
    for (int p = 1; p <= 3; ++p) {
        auto centre = [&](const Model& m, const State& s, const Eigen::VectorXd& shape) {
            const PartModel& part = m.parts[static_cast<std::size_t>(p)];
            const Quat R = bodyOrientation(s.q, part.body);
            return Vec3(Vec3(layout::linear(shape, part.body)) +
                        (R * Vec3(layout::angular(shape, part.body))).cross(R * part.com_B));
        };
        const Vec3 ca = centre(a.model(), a.state(), ma.modes[0].shape);
        const Vec3 cb = centre(b.model(), b.state(), mb.modes[0].shape);
        EXPECT_LT(std::min((ca - cb).norm(), (ca + cb).norm()), 1e-9) << p;
        if (p == 3) {
            EXPECT_NEAR(ca.norm(), 1.0, 1e-12);  // (the weight swings furthest)
        }
    }
}

// A weld whose reaction an expression reads keeps its rows: reactions are what the solve finds
// (read as of the previous step), and a folded weld has none. The other weld still folds; the
// variable reads the weld's reaction as the outputs report it; an expression preview reading a
// weld the run folded says why it has no value rather than a wrong one.
TEST(WeldFolding, AWeldWhoseReactionAnExpressionReadsIsHeldAsAJoint) {
    Pendulum welded = weldedPendulum();
    const auto before = compiled(welded.spec);
    ForwardDynamics plain(before);
    ASSERT_TRUE(plain.initialize().ok);
    ASSERT_TRUE(plain.advance(0.01).ok);
    std::string error;
    EXPECT_FALSE(stateExpressionValue(welded.spec, plain.state(), "FM(plateToWeight)", error));
    EXPECT_NE(error.find("'plateToWeight' is a weld this run folded"), std::string::npos) << error;

    for (const bool sensor : {false, true}) {
        SceneSpec spec = welded.spec;
        if (sensor) {
            SensorSpec s;
            s.name = "overload";
            s.expression = "FM(plateToWeight)";
            s.value = 1e6;
            spec.sensors.push_back(s);
        } else {
            spec.variables.push_back({"load", "FM(plateToWeight) + 0 * TX(pivot)", "", {}});
        }
        const auto model = compiled(spec);
        EXPECT_TRUE(model->joints[1].folded);
        EXPECT_FALSE(model->joints[2].folded);
        EXPECT_EQ(model->bodyCount(), 2);
        EXPECT_EQ(model->constraintRows(), 5 + 6);
        ASSERT_EQ(model->weldNotes.size(), 1u);
        EXPECT_NE(model->weldNotes[0].find(sensor ? "sensor 'overload' reads its reaction"
                                                  : "variable 'load' reads its reaction"),
                  std::string::npos)
            << model->weldNotes[0];
        if (sensor) continue;
        ForwardDynamics run(model);
        ASSERT_TRUE(run.initialize().ok);
        Outputs out;
        for (const double t : {0.1, 0.4}) {
            ASSERT_TRUE(run.advance(t).ok);
            ASSERT_TRUE(run.outputs(out).ok);
            const std::optional<double> load =
                stateExpressionValue(spec, run.state(), "load", error);
            ASSERT_TRUE(load) << error;
            // (the weight's pull, 15 to 30 N over the swing: as the step's end found it)
            EXPECT_GT(out.reactions[2].force_W.norm(), 10.0);
            EXPECT_NEAR(*load, out.reactions[2].force_W.norm(), 1e-9 * 60.0) << t;
        }
    }
}

// A loop of welds closes when its markers meet (the last weld redundant, carrying nothing), and
// is refused where they do not: the loop's parts are one rigid body that no motion can bend to
// close it. The error names the weld, its place in the file and the gap; a soft weld, which
// may stay apart, is not refused.
TEST(WeldFolding, ALoopOfWeldsThatCannotCloseIsRefusedWithItsPlace) {
    for (const double gap : {0.0, 0.01}) {
        Pendulum welded = weldedPendulum();
        SceneSpec& spec = welded.spec;
        // A third weld from the weight back to the arm, at the weight's base (where the arm's new
        // marker is placed, `gap` off along the arm's x).
        const Transform X_AW = welded.X_WA.inverse() * welded.X_WC;
        const Transform baseOnC = spec.parts[3].markers[0].X_PM;
        Transform onArm = X_AW * baseOnC;
        onArm.p.x() += gap;
        spec.parts[1].markers.push_back(marker("far", onArm));
        spec.joints.push_back(
            joint("closing", JointType::Fixed, {"weight", "base"}, {"arm", "far"}));
        const CompileResult r = compile(spec);
        if (gap == 0.0) {
            ASSERT_TRUE(r.model);
            EXPECT_EQ(r.model->bodyCount(), 1);
            EXPECT_EQ(r.model->constraintRows(), 5);
            EXPECT_TRUE(r.model->joints[3].folded);
            continue;
        }
        ASSERT_FALSE(r.model);
        ASSERT_FALSE(r.diagnostics.empty());
        const Diagnostic& d = r.diagnostics.front();
        EXPECT_EQ(d.where, "/joints/3");
        EXPECT_NE(d.message.find("weld 'closing' closes a loop of welds that hold 'weight' and "
                                 "'arm' together as one rigid body, but its markers are 0.01 m"),
                  std::string::npos)
            << d.message;
        // Soft, it is a stiff spring pulling the loop: accepted.
        spec.joints.back().compliance.stiffness = 1e6;
        spec.joints.back().compliance.rotationalStiffness = 1e4;
        EXPECT_TRUE(compile(spec).model);
    }
}

// Robots as their files come: links bolted to their parents (sensors, covers, mounts, the base
// to the world) fold into their parents, and the solver holds fewer rows over fewer bodies. The
// welded links' own loads stay visible as the welds' reactions.
TEST(WeldFolding, ImportedRobotsWithWeldedLinksSolveFewerRows) {
    struct Robot {
        std::string file;
        int bodies, rows;  // folded: bodies and constraint rows
    };
    const std::string robots =
        MOTUS_SOURCE_DIR "/tests/data/robots/urdf/example-robot-data/robots/";
    for (const Robot& robot :
         {Robot{"baxter_description/urdf/baxter.urdf", 19, 97},              // from 56 and 319
          Robot{"anymal_c_simple_description/urdf/anymal.urdf", 12, 60}}) {  // from 59, 342
        io::RobotImportOptions bolted;
        bolted.fixedBase = true;
        const io::RobotImportResult r = io::importRobotFile(robots + robot.file, bolted);
        ASSERT_TRUE(r.scene) << robot.file;
        SceneSpec apart = *r.scene;
        apart.settings.foldWelds = false;
        const CompileResult folded = compile(*r.scene), separate = compile(apart);
        ASSERT_TRUE(folded.model && separate.model) << robot.file;
        const int welds = static_cast<int>(
            std::count_if(r.scene->joints.begin(), r.scene->joints.end(),
                          [](const Joint& j) { return j.type == JointType::Fixed; }));
        std::printf("%s: %d welds; bodies %d -> %d, constraint rows %d -> %d\n", robot.file.c_str(),
                    welds, separate.model->bodyCount(), folded.model->bodyCount(),
                    separate.model->constraintRows(), folded.model->constraintRows());
        EXPECT_EQ(folded.model->bodyCount(), robot.bodies);
        EXPECT_EQ(folded.model->constraintRows(), robot.rows);
        // Every weld folded: six rows each fewer, a body each fewer.
        EXPECT_EQ(separate.model->constraintRows() - folded.model->constraintRows(), 6 * welds);
        EXPECT_EQ(separate.model->bodyCount() - folded.model->bodyCount(), welds);
    }
}

}  // namespace
}  // namespace engine
