#include "engine/io/csv_export.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <random>
#include <sstream>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/record/channel_names.h"
#include "engine/record/recording.h"
#include "tests/support/mechanisms.h"

namespace engine::io {
namespace {

TEST(CsvExport, NumbersReadBackToTheSameDouble) {
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
    std::uniform_int_distribution<int> exponent(-300, 300);
    for (int k = 0; k < 10000; ++k) {
        const double x = std::ldexp(mantissa(rng), exponent(rng));
        const std::string text = formatDouble(x);
        EXPECT_EQ(std::stod(text), x) << text;
    }
    EXPECT_EQ(formatDouble(0.1), "0.1");  // shortest form, not 0.10000000000000001
    EXPECT_EQ(formatDouble(2.0), "2");
    EXPECT_EQ(formatDouble(std::nan("")), "nan");
}

// The CSV of one output: its header line and its one row.
std::pair<std::string, std::string> headerAndRow(const Model& model, const State& state,
                                                 const Outputs& out) {
    std::ostringstream text;
    CsvWriter csv(model, text);
    csv.writeHeader();
    csv.writeRow(state, out);
    std::istringstream lines(text.str());
    std::string header, row;
    std::getline(lines, header);
    std::getline(lines, row);
    return {header, row};
}

TEST(CsvExport, WritesOneColumnPerContractEntry) {
    const CompileResult c = compile(test::chain(2, IntegratorType::RungeKutta4, 1e-3));
    ASSERT_TRUE(c.model);
    ForwardDynamics sim(c.model);
    ASSERT_TRUE(sim.initialize().ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    const auto [header, row] = headerAndRow(*c.model, sim.state(), out);
    // time + 13 per part + (1 coordinate + 6 reaction) per joint + 6 energy/error columns
    // (kinetic, potential, total, driver work, dissipated, constraint error).
    const auto columns = [](const std::string& s) {
        return std::count(s.begin(), s.end(), ',') + 1;
    };
    EXPECT_EQ(columns(header), 1 + 2 * 13 + 2 * 7 + 6);
    EXPECT_EQ(columns(row), columns(header));
    EXPECT_EQ(header.substr(0, 40), "time,link0.x,link0.y,link0.z,link0.qw,li");
    EXPECT_NE(header.find(",j1.q0,j1.Fx,j1.Fy,j1.Fz,j1.Tx,j1.Ty,j1.Tz,"), std::string::npos);
    // The energy balance can be checked from the file: total − driverWork + dissipated.
    EXPECT_NE(header.find(",energy.total,energy.driverWork,energy.dissipated,constraint.error"),
              std::string::npos);
}

// One vocabulary: a CSV column and a recorded channel of the same name are the same quantity,
// value for value; the CSV's columns are all recorded except the orientation quaternions (the
// recording keeps the state itself, not these channels of it).
TEST(CsvExport, ItsColumnsAreTheRecordingsChannelsByNameAndValue) {
    // The four-bar driven at its crank: the motion's effort and power are columns too.
    SceneSpec spec = test::fourBar(IntegratorType::RungeKutta4, 1e-3);
    spec.motions.push_back(test::motion(spec, "drive", spec.joints.front().name, "2*time"));
    const CompileResult c = compile(spec);
    ASSERT_TRUE(c.model);
    ForwardDynamics sim(c.model);
    ASSERT_TRUE(sim.initialize().ok);
    ASSERT_TRUE(sim.advance(0.2).ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    const auto [header, row] = headerAndRow(*c.model, sim.state(), out);
    Recording recording(*c.model, {});
    ASSERT_EQ(recording.append(sim.state(), out), Recording::Append::Recorded);
    auto split = [](const std::string& line) {
        std::vector<std::string> out;
        std::istringstream in(line);
        for (std::string cell; std::getline(in, cell, ',');) out.push_back(cell);
        return out;
    };
    const std::vector<std::string> names = split(header), values = split(row);
    ASSERT_EQ(names.size(), values.size());
    std::size_t shared = 0;
    for (std::size_t k = 0; k < names.size(); ++k) {
        const std::string& name = names[k];
        const std::string quantity = name.substr(name.find('.') + 1);
        const bool quaternion =
            std::find(std::begin(channels::kOrientation), std::end(channels::kOrientation),
                      quantity) != std::end(channels::kOrientation);
        const int channel = recording.layout().findChannel(name);
        if (quaternion) {
            EXPECT_EQ(channel, -1) << name;
            continue;
        }
        ASSERT_GE(channel, 0) << "the CSV's column '" << name << "' is no recorded channel";
        std::vector<double> t, v;
        recording.series(channel, 0, 1, 1, t, v);
        ASSERT_EQ(v.size(), 1u);
        EXPECT_EQ(formatDouble(v[0]), values[k]) << name;
        ++shared;
    }
    EXPECT_GE(shared, names.size() - 4 * static_cast<std::size_t>(c.model->bodyCount()));
    for (const char* motion : {"drive.effort", "drive.power"})
        EXPECT_NE(std::find(names.begin(), names.end(), motion), names.end()) << motion;
    EXPECT_NE(out.driverEffort.at(0), 0.0);
    // The sums the CSV names are recorded too, as Energies sums them.
    const FrameLayout& layout = recording.layout();
    for (const char* name : {channels::kPotentialEnergy, channels::kTotalEnergy})
        EXPECT_EQ(layout.channels()[static_cast<std::size_t>(layout.findChannel(name))].unit, "J");
    std::vector<double> t, total;
    recording.series(layout.findChannel(channels::kTotalEnergy), 0, 1, 1, t, total);
    EXPECT_EQ(total.at(0), out.energies.total());
    EXPECT_GT(std::abs(out.energies.total()), 0.0);
}

}  // namespace
}  // namespace engine::io
