#pragma once
// A curve fixed in a marker's frame (CurveSpec): a cubic spline through points or x(s), y(s),
// z(s) as expressions. The point-on-curve joint and the cam pair evaluate it, with its first
// and second derivatives in the parameter, and find the point of it nearest to a given one.
// Immutable once made: shared inside a Model across threads.

#include <memory>
#include <string>
#include <vector>

#include "engine/expr/expression.h"
#include "engine/math/spatial.h"
#include "engine/model/scene_spec.h"

namespace engine {

class Curve {
public:
    // The curve a spec says, or null with `error` (the reason) and `key` (where in the spec,
    // relative to it: "points/3", "x", "end") when it is not one: a spline of fewer than 4
    // points or with a point repeated, an expression that does not parse or is not a number
    // on its range, a range that is empty, a curve that stops (no tangent) somewhere.
    static std::shared_ptr<const Curve> make(const CurveSpec& spec, std::string& error,
                                             std::string& key);

    // The point at parameter s and its first and second derivatives in s (curve frame).
    struct Point {
        Vec3 x = Vec3::Zero();
        Vec3 d1 = Vec3::Zero();
        Vec3 d2 = Vec3::Zero();
    };
    Point at(double s) const;

    bool closed() const { return closed_; }
    double start() const { return start_; }
    double end() const { return end_; }
    // A closed curve's parameter taken into [start, end); an open one's as it is.
    double wrap(double s) const;

    // The parameter of the point of the curve nearest to x (curve frame): the nearest of its
    // samples, then Newton's method on (C(s) − x)·C'(s) = 0.
    double nearest(const Vec3& x) const;
    // Newton's method on the same from s (a point already near the curve).
    double refine(const Vec3& x, double s) const;

    // Points along the curve (curve frame), closely enough to draw it and to start a search
    // from, at parameters sampleParameters().
    const std::vector<Vec3>& samples() const { return samples_; }
    const std::vector<double>& sampleParameters() const { return sampleParameters_; }
    // +1 when a closed curve runs counter-clockwise about its frame's z axis (seen from +z),
    // −1 clockwise; +1 for an open one.
    double orientation() const { return orientation_; }

private:
    Curve() = default;
    void sample(int count);

    CurveType type_ = CurveType::Spline;
    bool closed_ = false;
    double start_ = 0.0, end_ = 1.0;
    // Spline: knots (chord lengths), points, and second derivatives at the knots.
    std::vector<double> knots_;
    std::vector<Vec3> points_, moments_;
    // Expression.
    Expression xyz_[3];
    std::vector<Vec3> samples_;
    std::vector<double> sampleParameters_;
    double orientation_ = 1.0;
};

}  // namespace engine
