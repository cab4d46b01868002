// engine::allFinite: the one-pass check every step makes of its state and forces.

#include "engine/math/finite.h"

#include <limits>

#include <gtest/gtest.h>

namespace {

using engine::allFinite;

TEST(AllFinite, FiniteValuesPassWhateverTheirSize) {
    Eigen::VectorXd x(5);
    x << 0.0, -0.0, 1e308, -1e308, std::numeric_limits<double>::denorm_min();
    EXPECT_TRUE(allFinite(x));  // (1e308 + 1e308 would overflow; 1e308 · 0 does not)
    EXPECT_TRUE(allFinite(Eigen::VectorXd()));
}

TEST(AllFinite, OneNonFiniteCoefficientAnywhereFails) {
    for (const double bad :
         {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
          -std::numeric_limits<double>::infinity()})
        for (int at = 0; at < 7; ++at) {
            Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(7, -3.0, 3.0);
            x(at) = bad;
            EXPECT_FALSE(allFinite(x)) << bad << " at " << at;
            EXPECT_EQ(allFinite(x), x.allFinite());
        }
    Eigen::Matrix3d m = Eigen::Matrix3d::Identity();
    m(2, 1) = std::numeric_limits<double>::infinity();
    EXPECT_FALSE(allFinite(m));
}

}  // namespace
