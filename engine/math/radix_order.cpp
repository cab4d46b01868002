#include "engine/math/radix_order.h"

#include <cstring>

namespace engine {
namespace {

constexpr std::size_t kWideDigitsFrom = 5000;

// The key's bits as an unsigned number in the key's order: negative keys' bits flipped, the
// sign bit set on the others (−0 taken as +0 first).
std::uint64_t orderedBits(double key) {
    key += 0.0;  // (−0 + 0 = +0)
    std::uint64_t bits;
    std::memcpy(&bits, &key, sizeof bits);
    return (bits >> 63) ? ~bits : bits | (std::uint64_t{1} << 63);
}

// The passes of DigitBits bits each over `bits` (the keys' ordered bits), `order` following.
template <int DigitBits>
void sortByDigits(std::vector<std::uint64_t>& bits, std::vector<std::size_t>& order,
                  RadixOrderScratch& scratch) {
    constexpr int kPasses = (64 + DigitBits - 1) / DigitBits;
    constexpr std::size_t kBuckets = std::size_t{1} << DigitBits;
    const auto digit = [](std::uint64_t b, int pass) {
        return static_cast<unsigned>((b >> (DigitBits * pass)) & (kBuckets - 1));
    };
    const std::size_t n = bits.size();
    // Every pass's histogram at once.
    std::vector<std::uint32_t>& counts = scratch.counts;
    counts.assign(kPasses * kBuckets, 0);
    for (const std::uint64_t b : bits)
        for (int pass = 0; pass < kPasses; ++pass) ++counts[pass * kBuckets + digit(b, pass)];
    scratch.bitsOut.resize(n);
    scratch.orderOut.resize(n);
    for (int pass = 0; pass < kPasses; ++pass) {
        std::uint32_t* count = counts.data() + pass * kBuckets;
        if (count[digit(bits[0], pass)] == n) continue;  // one digit for all: nothing moves
        std::uint32_t start = 0;                         // counts into first places
        for (std::size_t d = 0; d < kBuckets; ++d) {
            const std::uint32_t c = count[d];
            count[d] = start;
            start += c;
        }
        for (std::size_t k = 0; k < n; ++k) {
            const std::uint32_t at = count[digit(bits[k], pass)]++;
            scratch.bitsOut[at] = bits[k];
            scratch.orderOut[at] = order[k];
        }
        bits.swap(scratch.bitsOut);
        order.swap(scratch.orderOut);
    }
}

}  // namespace

void radixOrder(const std::vector<double>& keys, std::vector<std::size_t>& order,
                RadixOrderScratch& scratch) {
    const std::size_t n = keys.size();
    order.resize(n);
    for (std::size_t k = 0; k < n; ++k) order[k] = k;
    if (n < 2) return;
    std::vector<std::uint64_t>& bits = scratch.bits;
    bits.resize(n);
    for (std::size_t k = 0; k < n; ++k) bits[k] = orderedBits(keys[k]);
    // A pass costs n moves and a sweep of its histogram: 8-bit digits (8 passes of 256 buckets)
    // for a few thousand keys, 11-bit ones (6 of 2,048) beyond — where the histograms' sweeps no
    // longer outweigh the two passes fewer. (A pile-100 step's ~800 points spent more in the
    // 2,048-bucket histograms than in moving its keys.)
    if (n < kWideDigitsFrom)
        sortByDigits<8>(bits, order, scratch);
    else
        sortByDigits<11>(bits, order, scratch);
}

}  // namespace engine
