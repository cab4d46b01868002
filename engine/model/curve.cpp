#include "engine/model/curve.h"

#include <algorithm>
#include <cmath>

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include "engine/math/number_text.h"

namespace engine {
namespace {

constexpr int kSamplesPerSegment = 16;
constexpr int kMaxSamples = 4096;
constexpr int kExpressionSamples = 512;

}  // namespace

std::shared_ptr<const Curve> Curve::make(const CurveSpec& spec, std::string& error,
                                         std::string& key) {
    std::shared_ptr<Curve> c(new Curve);
    c->type_ = spec.type;
    c->closed_ = spec.closed;
    if (spec.type == CurveType::Spline) {
        const std::vector<Vec3>& p = spec.points;
        if (p.size() < 4) {
            key = "points";
            error = "a spline needs at least 4 points, got " + std::to_string(p.size());
            return nullptr;
        }
        double extent = 0.0;
        for (std::size_t k = 0; k < p.size(); ++k) {
            if (!p[k].allFinite()) {
                key = "points/" + std::to_string(k);
                error = "point " + std::to_string(k) + " is not a finite number";
                return nullptr;
            }
            extent = std::max(extent, (p[k] - p[0]).norm());
        }
        const double tiny = 1e-9 * std::max(extent, 1e-3);
        for (std::size_t k = 1; k < p.size(); ++k)
            if ((p[k] - p[k - 1]).norm() <= tiny) {
                key = "points/" + std::to_string(k);
                error = "point " + std::to_string(k) + " repeats point " + std::to_string(k - 1) +
                        ": a spline's consecutive points must be apart";
                return nullptr;
            }
        if (spec.closed && (p.back() - p.front()).norm() <= tiny) {
            key = "points/" + std::to_string(p.size() - 1);
            error =
                "the last point repeats the first: a closed spline runs from its last point "
                "back to its first by itself (leave the repeat out)";
            return nullptr;
        }
        // Knots at the chord lengths; the second derivatives M at the knots from the spline's
        // continuity of curvature: h₀M₀ + 2(h₀+h₁)M₁ + h₁M₂ = 6 (Δ₁/h₁ − Δ₀/h₀) at each inner
        // knot, M = 0 at an open spline's ends, indices taken round a closed one.
        const int n = static_cast<int>(p.size());
        const int segments = spec.closed ? n : n - 1;
        c->points_ = p;
        if (spec.closed) c->points_.push_back(p.front());
        c->knots_.assign(static_cast<std::size_t>(segments) + 1, 0.0);
        for (int i = 0; i < segments; ++i)
            c->knots_[static_cast<std::size_t>(i) + 1] =
                c->knots_[static_cast<std::size_t>(i)] +
                (c->points_[static_cast<std::size_t>(i) + 1] -
                 c->points_[static_cast<std::size_t>(i)])
                    .norm();
        auto h = [&](int i) {
            i = (i % segments + segments) % segments;
            return c->knots_[static_cast<std::size_t>(i) + 1] -
                   c->knots_[static_cast<std::size_t>(i)];
        };
        auto point = [&](int i) { return c->points_[static_cast<std::size_t>((i % n + n) % n)]; };
        c->moments_.assign(c->points_.size(), Vec3::Zero());
        const int first = spec.closed ? 0 : 1, last = spec.closed ? n - 1 : n - 2;
        const int unknowns = last - first + 1;
        if (unknowns > 0) {
            std::vector<Eigen::Triplet<double>> a;
            Eigen::MatrixXd rhs(unknowns, 3);
            for (int i = first; i <= last; ++i) {
                const int r = i - first;
                const double h0 = h(i - 1), h1 = h(i);
                a.emplace_back(r, r, 2.0 * (h0 + h1));
                const int before = spec.closed ? (i - 1 + n) % n : i - 1;
                const int after = spec.closed ? (i + 1) % n : i + 1;
                if (before >= first && before <= last) a.emplace_back(r, before - first, h0);
                if (after >= first && after <= last) a.emplace_back(r, after - first, h1);
                rhs.row(r) =
                    (6.0 * ((point(i + 1) - point(i)) / h1 - (point(i) - point(i - 1)) / h0))
                        .transpose();
            }
            Eigen::SparseMatrix<double> A(unknowns, unknowns);
            A.setFromTriplets(a.begin(), a.end());
            Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
            lu.compute(A);
            const Eigen::MatrixXd m = lu.solve(rhs);
            for (int i = first; i <= last; ++i)
                c->moments_[static_cast<std::size_t>(i)] = m.row(i - first).transpose();
            if (spec.closed) c->moments_.back() = c->moments_.front();
        }
        c->start_ = 0.0;
        c->end_ = c->knots_.back();
        c->sample(std::clamp(kMaxSamples / segments, 2, kSamplesPerSegment) * segments);
    } else {
        const std::string* texts[] = {&spec.x, &spec.y, &spec.z};
        for (int k = 0; k < 3; ++k) {
            std::string reason;
            auto e = Expression::parse(*texts[k], reason, {"s"});
            if (!e) {
                key = std::string(1, "xyz"[k]);
                error =
                    std::string(1, "xyz"[k]) + "(s) '" + *texts[k] + "' does not parse: " + reason;
                return nullptr;
            }
            c->xyz_[k] = *e;
        }
        for (auto [value, name] : {std::pair{spec.start, "start"}, std::pair{spec.end, "end"}})
            if (!std::isfinite(value)) {
                key = name;
                error = std::string("the curve's ") + name + " must be a finite number, got " +
                        numberText(value, 10);
                return nullptr;
            }
        if (!(spec.end > spec.start)) {
            key = "end";
            error = "the curve's range is empty: end " + numberText(spec.end, 10) +
                    " is not above start " + numberText(spec.start, 10);
            return nullptr;
        }
        c->start_ = spec.start;
        c->end_ = spec.end;
        c->sample(kExpressionSamples);
    }
    // Every sample a number, and a tangent everywhere (a curve that stops has no direction
    // to slide along).
    double extent = 0.0;
    for (const Vec3& x : c->samples_) extent = std::max(extent, (x - c->samples_[0]).norm());
    for (std::size_t k = 0; k < c->samples_.size(); ++k) {
        const double s = c->sampleParameters_[k];
        const Point pt = c->at(s);
        if (!pt.x.allFinite() || !pt.d1.allFinite() || !pt.d2.allFinite()) {
            key = spec.type == CurveType::Spline ? "points" : "x";
            error = "the curve is not a number at s = " + numberText(s, 6);
            return nullptr;
        }
        if (pt.d1.norm() <= 1e-9 * std::max(extent, 1e-6) / std::max(c->end_ - c->start_, 1e-12)) {
            key = spec.type == CurveType::Spline ? "points" : "x";
            error = "the curve stops at s = " + numberText(s, 6) +
                    " (its tangent vanishes there): a point cannot slide along it";
            return nullptr;
        }
    }
    if (extent <= 0.0) {
        key = spec.type == CurveType::Spline ? "points" : "x";
        error = "the curve is a single point";
        return nullptr;
    }
    if (c->closed_) {
        double area = 0.0;
        const std::vector<Vec3>& x = c->samples_;
        for (std::size_t k = 0; k < x.size(); ++k) {
            const Vec3& a = x[k];
            const Vec3& b = x[(k + 1) % x.size()];
            area += a.x() * b.y() - b.x() * a.y();
        }
        c->orientation_ = area >= 0.0 ? 1.0 : -1.0;
    }
    return c;
}

void Curve::sample(int count) {
    samples_.clear();
    sampleParameters_.clear();
    const int n = closed_ ? count : count + 1;
    for (int k = 0; k < n; ++k) {
        const double s = start_ + (end_ - start_) * k / count;
        sampleParameters_.push_back(s);
        samples_.push_back(at(s).x);
    }
}

double Curve::wrap(double s) const {
    if (!closed_) return s;
    const double period = end_ - start_;
    double w = start_ + std::fmod(s - start_, period);
    if (w < start_) w += period;
    if (w >= end_) w -= period;
    return w;
}

Curve::Point Curve::at(double s) const {
    Point pt;
    if (type_ == CurveType::Expression) {
        s = wrap(s);
        // Five-point central differences, fourth order, with a step of 2·10⁻⁴ of the range.
        const double h = std::max(2e-4 * (end_ - start_), 1e-9 * std::abs(s));
        for (int k = 0; k < 3; ++k) {
            const Expression& e = xyz_[k];
            const double f0 = e.eval(s);
            pt.x(k) = f0;
            if (e.isConstant()) continue;
            const double fm2 = e.eval(s - 2 * h), fm1 = e.eval(s - h);
            const double fp1 = e.eval(s + h), fp2 = e.eval(s + 2 * h);
            pt.d1(k) = (fm2 - 8.0 * fm1 + 8.0 * fp1 - fp2) / (12.0 * h);
            pt.d2(k) = (-fm2 + 16.0 * fm1 - 30.0 * f0 + 16.0 * fp1 - fp2) / (12.0 * h * h);
        }
        return pt;
    }
    // Spline: an open one goes on straight beyond its ends (its curvature is 0 there).
    const std::size_t segments = knots_.size() - 1;
    double beyond = 0.0;
    if (closed_) {
        s = wrap(s);
    } else if (s < knots_.front()) {
        beyond = s - knots_.front();
        s = knots_.front();
    } else if (s > knots_.back()) {
        beyond = s - knots_.back();
        s = knots_.back();
    }
    std::size_t i = static_cast<std::size_t>(std::upper_bound(knots_.begin(), knots_.end(), s) -
                                             knots_.begin());
    i = std::min(std::max<std::size_t>(i, 1), segments) - 1;
    const double h = knots_[i + 1] - knots_[i];
    const double a = (knots_[i + 1] - s) / h, b = (s - knots_[i]) / h;
    const Vec3& P0 = points_[i];
    const Vec3& P1 = points_[i + 1];
    const Vec3& M0 = moments_[i];
    const Vec3& M1 = moments_[i + 1];
    pt.x = a * P0 + b * P1 + ((a * a * a - a) * M0 + (b * b * b - b) * M1) * (h * h / 6.0);
    pt.d1 = (P1 - P0) / h + ((1.0 - 3.0 * a * a) * M0 + (3.0 * b * b - 1.0) * M1) * (h / 6.0);
    pt.d2 = a * M0 + b * M1;
    if (beyond != 0.0) {
        pt.x += beyond * pt.d1;
        pt.d2.setZero();
    }
    return pt;
}

double Curve::nearest(const Vec3& x) const {
    std::size_t best = 0;
    double bestDistance = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < samples_.size(); ++k)
        if (const double d = (samples_[k] - x).squaredNorm(); d < bestDistance) {
            bestDistance = d;
            best = k;
        }
    return refine(x, sampleParameters_[best]);
}

double Curve::refine(const Vec3& x, double s) const {
    // No step longer than two sample spacings: Newton stays on the stretch it starts on.
    const double spacing =
        (end_ - start_) / static_cast<double>(std::max<std::size_t>(samples_.size(), 2));
    for (int k = 0; k < 40; ++k) {
        const Point p = at(s);
        const Vec3 d = p.x - x;
        const double f = d.dot(p.d1);
        const double tt = p.d1.squaredNorm();
        double fp = tt + d.dot(p.d2);
        if (fp < 0.1 * tt) fp = tt;  // away from a minimum: a gradient step
        const double ds = std::clamp(-f / fp, -2.0 * spacing, 2.0 * spacing);
        s += ds;
        if (std::abs(ds) <= 1e-15 * std::max(1.0, std::abs(s)) + 1e-13 * spacing) break;
    }
    return wrap(s);
}

}  // namespace engine
