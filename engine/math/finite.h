#pragma once
// Whether every coefficient of a vector or matrix is finite, in one vectorised pass without a
// branch per coefficient (the checks every step makes of its state and forces): x·0 is 0 for
// a finite x and NaN for an infinite or NaN one, and a NaN survives the sum.

#include <Eigen/Core>

namespace engine {

template <typename Derived>
bool allFinite(const Eigen::DenseBase<Derived>& x) {
    return (x.derived().array() * 0.0).sum() == 0.0;
}

}  // namespace engine
