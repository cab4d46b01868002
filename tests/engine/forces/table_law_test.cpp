// Force laws from tables (a scene's `tables`): springs, dampers, rotational springs and bushings
// whose law is a curve through measured points, and tables read by name in expressions —
// against the linear laws they reproduce, the energy they store and dissipate, and the scene
// file's refusals.

#include <cmath>
#include <functional>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/io/scene_json.h"
#include "engine/math/table_curve.h"
#include "engine/record/recording.h"
#include "tests/support/mechanisms.h"
#include "tests/support/scene_errors.h"
#include "tests/support/simulation.h"

namespace engine {
namespace {

using test::compiled;

constexpr TableInterpolation kAll[] = {TableInterpolation::Linear, TableInterpolation::Cubic,
                                       TableInterpolation::Akima};

// The example block on a spring (800 N/m) and a damper (4 N·s/m), guided vertically.
SceneSpec blockOnSpring(IntegratorType integrator) {
    const io::SceneLoadResult r =
        io::loadSceneFile(std::string(MOTUS_SOURCE_DIR) + "/scenes/mass_spring_damper.json");
    EXPECT_TRUE(r.scene);
    SceneSpec spec = *r.scene;
    spec.settings.integrator = integrator;
    if (integrator == IntegratorType::DormandPrince45) {
        spec.settings.stepSize = 1e-3;
        spec.settings.relativeTolerance = 1e-11;
        spec.settings.absoluteTolerance = 1e-13;
    } else {
        spec.settings.stepSize = 1e-3;
    }
    return spec;
}

// A table of f(x) = slope · x through `x`.
TableSpec linearTable(const std::string& name, TableInterpolation interpolation, double slope,
                      std::vector<double> x) {
    TableSpec t;
    t.name = name;
    t.interpolation = interpolation;
    t.x = std::move(x);
    for (double xi : t.x) t.y.push_back(slope * xi);
    return t;
}

struct Sample {
    double q = 0.0, rate = 0.0, elastic = 0.0, dissipated = 0.0, balance = 0.0;
};

// The block's slide, its rate and the energies every `dt` to `duration`.
std::vector<Sample> run(const SceneSpec& spec, double duration, double dt = 0.01) {
    std::vector<Sample> out;
    const auto model = compiled(spec);
    if (!model) return out;
    ForwardDynamics sim(model);
    EXPECT_TRUE(sim.initialize().ok);
    const int steps = static_cast<int>(std::lround(duration / dt));
    for (int k = 0; k <= steps; ++k) {
        if (k > 0) {
            const Status s = sim.advance(k * dt);
            EXPECT_TRUE(s.ok) << s.message;
            if (!s.ok) break;
        }
        Outputs o;
        EXPECT_TRUE(sim.outputs(o).ok);
        out.push_back({o.jointCoordinates(0), o.jointRates(0), o.energies.elastic,
                       o.energies.dissipated, o.energies.balance()});
    }
    return out;
}

double largestDifference(const std::vector<Sample>& a, const std::vector<Sample>& b,
                         double Sample::*field) {
    EXPECT_EQ(a.size(), b.size());
    double worst = 0.0;
    for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k)
        worst = std::max(worst, std::abs(a[k].*field - b[k].*field));
    return worst;
}

TEST(TableLaws, ASpringAndADamperGivenAsTablesOfTheirLinearLawsRunAsTheLinearOnes) {
    // k x through 5 points (the run's deflection, 0.0245 ± 0.1 m, goes past the last point, where
    // the curve goes on with its slope) and c v likewise: the same motion to 1e-9 m, the same
    // energies, by every interpolation, adaptively and with the implicit integrator (whose
    // Jacobian takes the tables' exact slopes).
    for (IntegratorType integrator :
         {IntegratorType::DormandPrince45, IntegratorType::ImplicitEuler}) {
        const SceneSpec linear = blockOnSpring(integrator);
        const std::vector<Sample> reference = run(linear, 2.0);
        for (TableInterpolation interpolation : kAll) {
            SceneSpec tabled = linear;
            tabled.tables = {
                linearTable("coil", interpolation, 800.0, {-0.1, -0.05, 0.0, 0.04, 0.1}),
                linearTable("shock", interpolation, 4.0, {-1.0, -0.3, 0.0, 0.2, 0.5})};
            tabled.forces[0].stiffnessTable = "coil";
            tabled.forces[0].dampingTable = "shock";
            tabled.forces[0].stiffness = tabled.forces[0].damping = 0.0;  // unused
            const std::vector<Sample> tableRun = run(tabled, 2.0);
            const std::string what =
                std::string(tableInterpolationName(interpolation)) + " " +
                (integrator == IntegratorType::ImplicitEuler ? "implicit" : "dopri45");
            EXPECT_LT(largestDifference(reference, tableRun, &Sample::q), 1e-9) << what;
            EXPECT_LT(largestDifference(reference, tableRun, &Sample::rate), 1e-8) << what;
            EXPECT_LT(largestDifference(reference, tableRun, &Sample::elastic), 1e-9) << what;
            EXPECT_LT(largestDifference(reference, tableRun, &Sample::dissipated), 1e-9) << what;
        }
        // The motion reaches beyond the table's points, and rings down.
        double highest = 0.0;
        for (const Sample& s : reference) highest = std::max(highest, std::abs(s.q));
        EXPECT_GT(highest, 0.09);
        EXPECT_GT(reference.back().dissipated, 0.05);
    }
}

TEST(TableLaws, ANonlinearDamperDissipatesWhatItsCurveSays) {
    // A digressive damper (steep at low speed, flatter above) on the block: the energy balance
    // holds, and what it counts as dissipated is ∫ f(v) v dt taken along the motion.
    SceneSpec spec = blockOnSpring(IntegratorType::DormandPrince45);
    TableSpec shock;
    shock.name = "shock";
    shock.interpolation = TableInterpolation::Akima;
    shock.x = {-1.0, -0.3, -0.05, 0.0, 0.05, 0.3, 1.0};
    shock.y = {-18.0, -11.0, -4.0, 0.0, 6.0, 15.0, 24.0};  // N, rebound stiffer than bump
    spec.tables = {shock};
    spec.forces[0].dampingTable = "shock";
    const double dt = 1e-4;
    const std::vector<Sample> samples = run(spec, 1.0, dt);
    ASSERT_FALSE(samples.empty());
    std::string error;
    const auto curve = TableCurve::make(shock.interpolation, shock.x, shock.y, error);
    ASSERT_TRUE(curve);
    // The block's rate is the spring's rate l̇ with the opposite sign (the hook is above the
    // block, the anchor fixed): l = anchor − hook, so l̇ = −q̇ and the power is f(l̇) l̇.
    double work = 0.0;
    for (std::size_t k = 1; k < samples.size(); ++k) {
        auto power = [&](const Sample& s) { return curve->value(-s.rate) * -s.rate; };
        work += 0.5 * dt * (power(samples[k - 1]) + power(samples[k]));
    }
    const double dissipated = samples.back().dissipated;
    EXPECT_GT(dissipated, 0.2);
    EXPECT_NEAR(dissipated, work, 1e-5 * dissipated);
    for (const Sample& s : samples) EXPECT_NEAR(s.balance, samples.front().balance, 1e-8);
}

TEST(TableLaws, AHardeningSpringStoresTheIntegralOfItsCurve) {
    // f(x) = k x + k₃ x³ through 9 points, cubic spline: the elastic energy is the curve's
    // integral, so the balance of an undamped run holds to the integrator's accuracy; the
    // block, stiffer than on the linear spring, turns back sooner.
    SceneSpec spec = blockOnSpring(IntegratorType::DormandPrince45);
    spec.forces[0].damping = 0.0;
    TableSpec coil;
    coil.name = "coil";
    coil.interpolation = TableInterpolation::Cubic;
    for (int k = -4; k <= 4; ++k) {
        const double x = 0.05 * k;
        coil.x.push_back(x);
        coil.y.push_back(800.0 * x + 2e5 * x * x * x);
    }
    spec.tables = {coil};
    spec.forces[0].stiffnessTable = "coil";
    const std::vector<Sample> samples = run(spec, 2.0, 0.005);
    ASSERT_FALSE(samples.empty());
    double worst = 0.0, highest = 0.0;
    for (const Sample& s : samples) {
        worst = std::max(worst, std::abs(s.balance - samples.front().balance));
        highest = std::max(highest, s.elastic);
    }
    EXPECT_LT(worst, 1e-8);
    EXPECT_GT(highest, 1.0);  // J: the spring does store and return energy
}

TEST(TableLaws, ARotationalSpringFromATableRingsAsTheLinearOne) {
    // The torsional oscillator θ = 0.1 sin 20 t (k = 4 N·m/rad, I = 0.01 kg·m²), its spring a
    // table of k θ through 5 points with the swing (0.1 rad) past the last one (0.06 rad).
    for (TableInterpolation interpolation : kAll) {
        SceneSpec spec = test::flywheel(0.01);
        spec.settings.integrator = IntegratorType::DormandPrince45;
        spec.settings.relativeTolerance = 1e-10;
        spec.settings.absoluteTolerance = 1e-12;
        spec.parts[1].w_WP_W = Vec3(0, 0, 2.0);
        spec.tables = {linearTable("torsion", interpolation, 4.0, {-0.06, -0.02, 0, 0.03, 0.06})};
        ForceSpec spring;
        spring.id = spec.newId();
        spring.name = "torsion";
        spring.type = ForceType::RotationalSpringDamper;
        spring.joint = "axle";
        spring.stiffnessTable = "torsion";
        spec.forces.push_back(spring);
        ForwardDynamics sim(compiled(spec));
        ASSERT_TRUE(sim.initialize().ok);
        for (int k = 1; k <= 50; ++k) {
            const double t = 0.01 * k;
            ASSERT_TRUE(sim.advance(t).ok);
            EXPECT_NEAR(sim.state().jointCoordinates(0), 0.1 * std::sin(20.0 * t), 1e-8)
                << tableInterpolationName(interpolation) << " " << t;
        }
    }
}

TEST(TableLaws, ABushingAxisFromATableActsAsItsConstant) {
    // A block on a bushing, pushed along its vertical axis: that axis's stiffness as a table of
    // k z gives the same motion as the constant.
    const double k = 2e4;
    SceneSpec constant = test::blockOnBushing(k, IntegratorType::DormandPrince45, 1e-3);
    constant.settings.relativeTolerance = 1e-11;
    constant.settings.absoluteTolerance = 1e-13;
    constant.parts[1].v_WPo_W = Vec3(0.1, 0.0, 0.3);
    constant.parts[1].w_WP_W = Vec3(0.0, 2.0, 0.0);
    SceneSpec tabled = constant;
    tabled.tables = {linearTable("rubber", TableInterpolation::Akima, k, {-0.01, 0, 0.01}),
                     linearTable("twist", TableInterpolation::Cubic, k * 1e-3, {-0.1, 0, 0.1})};
    tabled.forces[0].translationalStiffnessTables[2] = "rubber";
    tabled.forces[0].rotationalStiffnessTables[1] = "twist";
    std::vector<Outputs> runs;
    for (const SceneSpec* spec : {&constant, &tabled}) {
        ForwardDynamics sim(compiled(*spec));
        ASSERT_TRUE(sim.initialize().ok);
        ASSERT_TRUE(sim.advance(0.5).ok);
        ASSERT_TRUE(sim.outputs(runs.emplace_back()).ok);
        ASSERT_TRUE(runs.back().energies.elastic > 0.0);
        const double moved = sim.state().q.head<3>().norm();
        EXPECT_GT(moved, 1e-3);  // the block does move (q: its position first)
    }
    EXPECT_NEAR(runs[0].energies.elastic, runs[1].energies.elastic, 1e-9);
    EXPECT_NEAR(runs[0].energies.kinetic, runs[1].energies.kinetic, 1e-9);
}

TEST(TableLaws, AnExpressionReadsATableByItsNameWithItsExactSlope) {
    // The spring replaced by a line force −coil(DM(hook, anchor) − l0) (negative pulls the
    // hook and anchor together, as the spring's tension): the same motion; the expression's
    // tangent along its input is the table's slope, exactly.
    SceneSpec spring = blockOnSpring(IntegratorType::ImplicitEuler);
    spring.forces[0].damping = 0.0;
    SceneSpec line = spring;
    line.tables = {linearTable("coil", TableInterpolation::Akima, 800.0, {-0.2, 0.0, 0.2})};
    ForceSpec& f = line.forces[0];
    f.type = ForceType::LineForce;
    f.stiffness = 0.0;
    f.components[0] = "-coil(DM(block.hook, frame.anchor) - 0.4355)";
    const std::vector<Sample> a = run(spring, 1.0), b = run(line, 1.0);
    EXPECT_LT(largestDifference(a, b, &Sample::q), 1e-9);

    std::string error;
    StateText split;
    const auto e =
        parseStateExpression(line, "3 * coil(DM(block.hook, frame.anchor))", split, error);
    ASSERT_TRUE(e) << error;
    EXPECT_TRUE(e->exactTangents());
    const double in[1] = {0.05}, along[1] = {1.0};
    double value = 0.0;
    EXPECT_DOUBLE_EQ(e->inputTangent(0.0, in, along, &value), 3.0 * 800.0);
    EXPECT_DOUBLE_EQ(value, 3.0 * 800.0 * 0.05);
    EXPECT_DOUBLE_EQ(e->eval(0.0, in), 3.0 * 800.0 * 0.05);
    // A motion may follow a table of time (a measured profile).
    EXPECT_TRUE(Expression::parseWithConstants("coil(time)", error, {}, {}, sceneTables(line)))
        << error;
}

TEST(TableLaws, ASpringsForceLengthAndRateAreRecordedAsItsLawGivesThem) {
    // The block on its coil (800 N/m) and a digressive damper table: the recorded damper force
    // is k (l − l0) + shock(l̇), the length the anchor's height above the hook, its rate −q̇ of
    // the block's slide; the channels "spring.force", "spring.length", "spring.lengthRate" carry
    // them through a recorded frame unchanged.
    SceneSpec spec = blockOnSpring(IntegratorType::DormandPrince45);
    spec.tables = {{"shock",
                    TableInterpolation::Akima,
                    {-1.0, -0.2, 0.0, 0.2, 1.0},
                    {-8.0, -3.0, 0.0, 4.0, 12.0},
                    ""}};
    spec.forces[0].dampingTable = "shock";
    const auto model = compiled(spec);
    ASSERT_TRUE(model);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(0.13).ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    ASSERT_EQ(out.springForce.size(), 1u);
    std::string error;
    const auto shock =
        TableCurve::make(spec.tables[0].interpolation, spec.tables[0].x, spec.tables[0].y, error);
    ASSERT_TRUE(shock);
    // The hook is 0.04 m above the block's origin, the slide marker 0.1 m below it on the
    // guide at z = −0.5; the anchor at z = 0.
    const double blockZ = -0.4 + out.jointCoordinates(0);
    const double length = 0.0 - (blockZ + 0.04);
    EXPECT_NEAR(out.springLength[0], length, 1e-12);
    EXPECT_NEAR(out.springRate[0], -out.jointRates(0), 1e-12);
    EXPECT_GT(std::abs(out.springRate[0]), 0.1);  // moving: the damper's part counts
    EXPECT_NEAR(out.springForce[0], 800.0 * (length - 0.4355) + shock->value(-out.jointRates(0)),
                1e-9);
    const FrameLayout layout(*model);
    std::vector<double> row(static_cast<std::size_t>(layout.size()));
    layout.encode(sim.state(), out, row.data());
    for (const auto& [channel, value] : {std::pair{"spring.force", out.springForce[0]},
                                         std::pair{"spring.length", out.springLength[0]},
                                         std::pair{"spring.lengthRate", out.springRate[0]}}) {
        const int c = layout.findChannel(channel);
        ASSERT_GE(c, 0) << channel;
        EXPECT_EQ(layout.channels()[static_cast<std::size_t>(c)].value(row.data()), value);
    }
    State state;
    Outputs back;
    layout.decode(row.data(), state, back);
    EXPECT_EQ(back.springForce, out.springForce);
    EXPECT_EQ(back.springRate, out.springRate);
}

TEST(TableLaws, TheSceneFileKeepsTablesAndRefusesBadOnesByTheirPlace) {
    SceneSpec spec = blockOnSpring(IntegratorType::DormandPrince45);
    spec.tables = {linearTable("coil", TableInterpolation::Cubic, 800.0, {-0.1, 0.0, 0.1}),
                   linearTable("shock", TableInterpolation::Linear, 4.0, {-1.0, 1.0})};
    spec.forces[0].stiffnessTable = "coil";
    spec.forces[0].dampingTable = "shock";
    const std::string text = io::sceneToJson(spec);
    EXPECT_NE(text.find("\"stiffness\": {\n        \"table\": \"coil\""), std::string::npos)
        << text;
    const io::SceneLoadResult back = io::parseScene(text);
    ASSERT_TRUE(back.scene);
    ASSERT_EQ(back.scene->tables.size(), 2u);
    EXPECT_EQ(back.scene->tables[0].interpolation, TableInterpolation::Cubic);
    EXPECT_EQ(back.scene->tables[1].x, spec.tables[1].x);
    EXPECT_EQ(back.scene->tables[1].y, spec.tables[1].y);
    EXPECT_EQ(back.scene->forces[0].stiffnessTable, "coil");
    EXPECT_EQ(back.scene->forces[0].dampingTable, "shock");
    EXPECT_EQ(io::sceneToJson(*back.scene), text);

    // What is refused, and where.
    auto refused = [&](const std::function<void(SceneSpec&)>& edit, const std::string& where,
                       const std::string& words) {
        SceneSpec bad = spec;
        edit(bad);
        const CompileResult c = compile(bad);
        bool found = false;
        for (const Diagnostic& d : c.diagnostics)
            found = found || (d.severity == Severity::Error && d.where == where &&
                              d.message.find(words) != std::string::npos);
        EXPECT_TRUE(found) << where << " '" << words << "'";
        EXPECT_FALSE(c.model) << where;
    };
    refused(
        [](SceneSpec& s) {
            s.tables[0].x = {-0.1, 0.1, 0.0};
        },
        "/tables/0/x/2", "does not increase");
    refused([](SceneSpec& s) { s.tables[0].y[1] = std::nan(""); }, "/tables/0/y/1",
            "not a finite number");
    refused([](SceneSpec& s) { s.tables[0].x[0] = std::nan(""); }, "/tables/0/x/0",
            "not a finite number");
    refused([](SceneSpec& s) { s.tables[1].x = {0.0}, s.tables[1].y = {0.0}; }, "/tables/1",
            "at least 2 points");
    refused([](SceneSpec& s) { s.tables[1].y.push_back(1.0); }, "/tables/1/y", "one y for each x");
    refused([](SceneSpec& s) { s.tables[1].name = "coil"; }, "/tables/1/name", "duplicate");
    refused([](SceneSpec& s) { s.tables[1].name = "sin"; }, "/tables/1/name", "already a function");
    refused([](SceneSpec& s) { s.forces[0].stiffnessTable = "spring"; },
            "/forces/0/stiffness/table", "no table 'spring'");
    refused(
        [](SceneSpec& s) {
            s.variables.push_back({"coil", "1", "", std::nullopt});
        },
        "/variables/0/name", "names a table too");

    // A damping table whose force goes along the rate feeds energy in: said, not refused.
    {
        SceneSpec bad = spec;
        bad.tables[1].y = {4.0, -4.0};
        bool warned = false;
        for (const Diagnostic& d : validate(bad))
            warned = warned ||
                     (d.severity == Severity::Warning && d.where == "/forces/0/damping/table" &&
                      d.message.find("feeds energy in") != std::string::npos);
        EXPECT_TRUE(warned);
    }
    // An expression calling a table whose points make no curve says so, not "unexpected token".
    refused(
        [](SceneSpec& s) {
            s.forces[0].stiffnessTable.clear();
            s.tables[0].x = {0.1, 0.0, 0.2};
            ForceSpec push;
            push.id = s.newId();
            push.name = "push";
            push.type = ForceType::LineForce;
            push.markerI = s.forces[0].markerI;
            push.markerJ = s.forces[0].markerJ;
            push.components[0] = "coil(DM(block.hook, frame.anchor))";
            s.forces.push_back(push);
        },
        "/forces/1/magnitude", "it calls table 'coil', whose points make no curve");

    // In the file: a law that is neither a number nor a table, a table's interpolation unknown.
    auto fileRefuses = [&](const std::string& from, const std::string& to,
                           const std::string& where) {
        test::expectEditRefused(text, from, to, where);
    };
    fileRefuses("\"table\": \"coil\"", "\"tabel\": \"coil\"", "/forces/0/stiffness/tabel");
    fileRefuses("\"table\": \"shock\"", "\"table\": true", "/forces/0/damping/table");
    fileRefuses("\"interpolation\": \"cubic\"", "\"interpolation\": \"spline\"",
                "/tables/0/interpolation");
    const std::size_t open = text.find("\"stiffness\": {");
    const std::string law = text.substr(open, text.find('}', open) + 1 - open);
    fileRefuses(law, "\"stiffness\": [800]", "/forces/0/stiffness");
}

}  // namespace
}  // namespace engine
