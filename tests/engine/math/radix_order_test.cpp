#include "engine/math/radix_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

namespace engine {
namespace {

// What the contact step's height order was before: std::sort on (key, index).
std::vector<std::size_t> byPairs(const std::vector<double>& keys) {
    std::vector<std::pair<double, std::size_t>> pairs;
    for (std::size_t k = 0; k < keys.size(); ++k) pairs.emplace_back(keys[k], k);
    std::sort(pairs.begin(), pairs.end());
    std::vector<std::size_t> order;
    for (const auto& p : pairs) order.push_back(p.second);
    return order;
}

TEST(RadixOrder, EqualsTheComparisonSortOnKeysOfEveryKind) {
    std::mt19937_64 random(7);
    RadixOrderScratch scratch;
    std::vector<std::size_t> order;
    for (const std::size_t n : {0, 1, 2, 3, 17, 1000, 4999, 5000, 24000}) {
        // Heights as a pile has them (many equal, both signs, ±0), and wide-ranging keys.
        std::uniform_int_distribution<int> level(-20, 20);
        std::uniform_real_distribution<double> wide(-1e6, 1e6);
        std::vector<double> keys(n);
        for (std::size_t k = 0; k < n; ++k) {
            switch (k % 5) {
            case 0:
                keys[k] = 0.11 * level(random);
                break;
            case 1:
                keys[k] = wide(random);
                break;
            case 2:
                keys[k] = (k % 2 ? -0.0 : 0.0);
                break;
            case 3:
                keys[k] = std::ldexp(wide(random), level(random) * 40);
                break;
            default:
                keys[k] = k % 3 ? std::numeric_limits<double>::denorm_min() : -1e-320;
                break;
            }
        }
        std::shuffle(keys.begin(), keys.end(), random);
        radixOrder(keys, order, scratch);
        EXPECT_EQ(order, byPairs(keys)) << n << " keys";
    }
}

TEST(RadixOrder, KeysSharingTheirHighDigitsStillSort) {
    // Heights of a tall stack: the same sign and exponent, only the low digits differ.
    std::vector<double> keys;
    for (int k = 0; k < 300; ++k) keys.push_back(1.0 + 1e-12 * ((k * 37) % 300));
    std::vector<std::size_t> order;
    RadixOrderScratch scratch;
    radixOrder(keys, order, scratch);
    EXPECT_EQ(order, byPairs(keys));
    EXPECT_TRUE(std::is_sorted(order.begin(), order.end(),
                               [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; }));
}

}  // namespace
}  // namespace engine
