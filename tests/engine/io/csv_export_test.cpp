#include "engine/io/csv_export.h"

#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
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

TEST(CsvExport, WritesOneColumnPerContractEntry) {
    const CompileResult c = compile(test::chain(2, IntegratorType::RungeKutta4, 1e-3));
    ASSERT_TRUE(c.model);
    ForwardDynamics sim(c.model);
    ASSERT_TRUE(sim.initialize().ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    std::ostringstream text;
    CsvWriter csv(*c.model, text);
    csv.writeHeader();
    csv.writeRow(sim.state(), out);
    std::istringstream lines(text.str());
    std::string header, row;
    std::getline(lines, header);
    std::getline(lines, row);
    // time + 13 per part + (1 coordinate + 6 reaction) per joint + 4 energy/error columns.
    const auto columns = [](const std::string& s) {
        return std::count(s.begin(), s.end(), ',') + 1;
    };
    EXPECT_EQ(columns(header), 1 + 2 * 13 + 2 * 7 + 4);
    EXPECT_EQ(columns(row), columns(header));
    EXPECT_EQ(header.substr(0, 40), "time,link0.x,link0.y,link0.z,link0.qw,li");
    EXPECT_NE(header.find(",j1.q0,j1.Fx,j1.Fy,j1.Fz,j1.Tx,j1.Ty,j1.Tz,"), std::string::npos);
}

}  // namespace
}  // namespace engine::io
