#pragma once
// A surface fixed in a marker's frame (SurfaceSpec): x(u, v), y(u, v), z(u, v) as expressions,
// or a grid of heights over x and y. The point-on-surface joint evaluates it, with its first
// and second derivatives in the parameters, and finds the point of it nearest to a given one.
// Immutable once made: shared inside a Model across threads.

#include <memory>
#include <string>
#include <vector>

#include "engine/expr/expression.h"
#include "engine/math/spatial.h"
#include "engine/model/scene_spec.h"

namespace engine {

class Surface {
public:
    // The surface a spec says, or null with `error` and `key` (where in the spec, relative to
    // it: "x", "uEnd", "heights/3/2") when it is not one: an expression that does not parse or
    // is not a number, an empty range, a grid of fewer than 4 × 4 heights or with coordinates
    // that do not ascend, a surface without a normal somewhere (Su × Sv = 0).
    static std::shared_ptr<const Surface> make(const SurfaceSpec& spec, std::string& error,
                                               std::string& key);

    struct Point {
        Vec3 x = Vec3::Zero();
        Vec3 du = Vec3::Zero(), dv = Vec3::Zero();
        Vec3 duu = Vec3::Zero(), duv = Vec3::Zero(), dvv = Vec3::Zero();
    };
    Point at(double u, double v) const;

    // The parameters of the point nearest to x (surface frame): the nearest sample, then
    // Newton's method on (S − x)·Su = (S − x)·Sv = 0.
    void nearest(const Vec3& x, double& u, double& v) const;

    // Samples on a grid of rows() × columns() (row-major, u along a row), to draw it and to
    // start a search from.
    const std::vector<Vec3>& samples() const { return samples_; }
    int columns() const { return columns_; }
    int rows() const { return rows_; }

private:
    Surface() = default;
    void sample(int columns, int rows);

    SurfaceType type_ = SurfaceType::Expression;
    double u0_ = 0.0, u1_ = 1.0, v0_ = 0.0, v1_ = 1.0;
    Expression xyz_[3];
    // Grid: per row j (y = ys[j]) the heights and their second derivatives along x.
    std::vector<double> xs_, ys_;
    std::vector<std::vector<double>> heights_, moments_;
    std::vector<Vec3> samples_;
    std::vector<double> sampleU_, sampleV_;
    int columns_ = 0, rows_ = 0;
};

}  // namespace engine
