#pragma once
// Indices ordered by a key, in linear time.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace engine {

// order = 0 … n−1 sorted by keys[k] ascending, equal keys (−0 and +0 among them) in index
// order: what std::sort on (key, index) pairs gives, by a least-significant-digit radix sort of
// the keys' bits (8 bits a pass for a few thousand keys, 11 beyond; passes where every key has
// the same digit skipped). A contact step orders thousands of points by height so: O(n) against
// O(n log n) comparisons. Keys must not be NaN. `scratch` keeps its storage between calls.
struct RadixOrderScratch {
    std::vector<std::uint64_t> bits, bitsOut;
    std::vector<std::size_t> orderOut;
    std::vector<std::uint32_t> counts;
};
void radixOrder(const std::vector<double>& keys, std::vector<std::size_t>& order,
                RadixOrderScratch& scratch);

}  // namespace engine
