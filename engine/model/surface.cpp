#include "engine/model/surface.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/math/number_text.h"

namespace engine {
namespace {

constexpr int kExpressionSamples = 40;  // per parameter
constexpr int kGridSamplesPerCell = 4;
constexpr int kMaxGridSamples = 200;  // per parameter

// The second derivatives at the knots of the natural cubic spline through (t, f) (tridiagonal,
// by the Thomas algorithm; 0 at the ends).
std::vector<double> naturalMoments(const std::vector<double>& t, const std::vector<double>& f) {
    const std::size_t n = t.size();
    std::vector<double> M(n, 0.0);
    if (n < 3) return M;
    std::vector<double> c(n, 0.0), d(n, 0.0);
    for (std::size_t i = 1; i + 1 < n; ++i) {
        const double h0 = t[i] - t[i - 1], h1 = t[i + 1] - t[i];
        const double a = h0, b = 2.0 * (h0 + h1),
                     r = 6.0 * ((f[i + 1] - f[i]) / h1 - (f[i] - f[i - 1]) / h0);
        const double den = b - (i > 1 ? a * c[i - 1] : 0.0);
        c[i] = h1 / den;
        d[i] = (r - (i > 1 ? a * d[i - 1] : 0.0)) / den;
    }
    for (std::size_t i = n - 2; i >= 1; --i) {
        M[i] = d[i] - (i + 2 < n ? c[i] * M[i + 1] : 0.0);
        if (i == 1) break;
    }
    return M;
}

// Value, first and second derivative of the spline at x; straight beyond its ends.
void splineAt(const std::vector<double>& t, const std::vector<double>& f,
              const std::vector<double>& M, double x, double out[3]) {
    const std::size_t n = t.size();
    double beyond = 0.0;
    if (x < t.front()) {
        beyond = x - t.front();
        x = t.front();
    } else if (x > t.back()) {
        beyond = x - t.back();
        x = t.back();
    }
    std::size_t i = static_cast<std::size_t>(std::upper_bound(t.begin(), t.end(), x) - t.begin());
    i = std::min(std::max<std::size_t>(i, 1), n - 1) - 1;
    const double h = t[i + 1] - t[i];
    const double a = (t[i + 1] - x) / h, b = (x - t[i]) / h;
    out[0] = a * f[i] + b * f[i + 1] +
             ((a * a * a - a) * M[i] + (b * b * b - b) * M[i + 1]) * h * h / 6.0;
    out[1] = (f[i + 1] - f[i]) / h +
             ((1.0 - 3.0 * a * a) * M[i] + (3.0 * b * b - 1.0) * M[i + 1]) * h / 6.0;
    out[2] = a * M[i] + b * M[i + 1];
    if (beyond != 0.0) {
        out[0] += beyond * out[1];
        out[2] = 0.0;
    }
}

}  // namespace

std::shared_ptr<const Surface> Surface::make(const SurfaceSpec& spec, std::string& error,
                                             std::string& key) {
    std::shared_ptr<Surface> s(new Surface);
    s->type_ = spec.type;
    if (spec.type == SurfaceType::Expression) {
        const std::string* texts[] = {&spec.x, &spec.y, &spec.z};
        for (int k = 0; k < 3; ++k) {
            std::string reason;
            auto e = Expression::parse(*texts[k], reason, {"u", "v"});
            if (!e) {
                key = std::string(1, "xyz"[k]);
                error = std::string(1, "xyz"[k]) + "(u, v) '" + *texts[k] +
                        "' does not parse: " + reason;
                return nullptr;
            }
            s->xyz_[k] = *e;
        }
        for (auto [value, name] : {std::pair{spec.uStart, "uStart"}, std::pair{spec.uEnd, "uEnd"},
                                   std::pair{spec.vStart, "vStart"}, std::pair{spec.vEnd, "vEnd"}})
            if (!std::isfinite(value)) {
                key = name;
                error = std::string("the surface's ") + name + " must be a finite number";
                return nullptr;
            }
        for (auto [lo, hi, name] : {std::tuple{spec.uStart, spec.uEnd, "uEnd"},
                                    std::tuple{spec.vStart, spec.vEnd, "vEnd"}})
            if (!(hi > lo)) {
                key = name;
                error = std::string("the surface's range is empty: ") + name + " " +
                        numberText(hi, 10) + " is not above its start " + numberText(lo, 10);
                return nullptr;
            }
        s->u0_ = spec.uStart;
        s->u1_ = spec.uEnd;
        s->v0_ = spec.vStart;
        s->v1_ = spec.vEnd;
        s->sample(kExpressionSamples, kExpressionSamples);
    } else {
        for (auto [values, name] : {std::pair{&spec.xs, "xs"}, std::pair{&spec.ys, "ys"}}) {
            if (values->size() < 4) {
                key = name;
                error = std::string("a grid needs at least 4 values in '") + name + "', got " +
                        std::to_string(values->size());
                return nullptr;
            }
            for (std::size_t k = 0; k < values->size(); ++k)
                if (!std::isfinite((*values)[k]) || (k > 0 && !((*values)[k] > (*values)[k - 1]))) {
                    key = std::string(name) + "/" + std::to_string(k);
                    error = std::string("'") + name + "' must ascend, value " + std::to_string(k) +
                            " does not";
                    return nullptr;
                }
        }
        if (spec.heights.size() != spec.ys.size()) {
            key = "heights";
            error = "a grid has a row of heights per y value: " + std::to_string(spec.ys.size()) +
                    " rows expected, got " + std::to_string(spec.heights.size());
            return nullptr;
        }
        for (std::size_t j = 0; j < spec.heights.size(); ++j) {
            if (spec.heights[j].size() != spec.xs.size()) {
                key = "heights/" + std::to_string(j);
                error = "row " + std::to_string(j) + " has " +
                        std::to_string(spec.heights[j].size()) + " heights, one per x value (" +
                        std::to_string(spec.xs.size()) + ") expected";
                return nullptr;
            }
            for (std::size_t i = 0; i < spec.xs.size(); ++i)
                if (!std::isfinite(spec.heights[j][i])) {
                    key = "heights/" + std::to_string(j) + "/" + std::to_string(i);
                    error = "a height is not a finite number";
                    return nullptr;
                }
        }
        s->xs_ = spec.xs;
        s->ys_ = spec.ys;
        s->heights_ = spec.heights;
        for (const std::vector<double>& row : spec.heights)
            s->moments_.push_back(naturalMoments(spec.xs, row));
        s->u0_ = spec.xs.front();
        s->u1_ = spec.xs.back();
        s->v0_ = spec.ys.front();
        s->v1_ = spec.ys.back();
        const auto count = [](std::size_t n) {
            return std::min(static_cast<int>(n - 1) * kGridSamplesPerCell, kMaxGridSamples);
        };
        s->sample(count(spec.xs.size()), count(spec.ys.size()));
    }
    // A number everywhere, and a normal.
    for (int j = 0; j < s->rows_; ++j)
        for (int i = 0; i < s->columns_; ++i) {
            const std::size_t k = static_cast<std::size_t>(j * s->columns_ + i);
            const Point p = s->at(s->sampleU_[k], s->sampleV_[k]);
            const std::string where = "(u, v) = (" + numberText(s->sampleU_[k], 6) + ", " +
                                      numberText(s->sampleV_[k], 6) + ")";
            if (!p.x.allFinite() || !p.du.allFinite() || !p.dv.allFinite()) {
                key = spec.type == SurfaceType::Grid ? "heights" : "x";
                error = "the surface is not a number at " + where;
                return nullptr;
            }
            if (p.du.cross(p.dv).norm() <= 1e-12 * std::max(1.0, p.du.norm() * p.dv.norm())) {
                key = spec.type == SurfaceType::Grid ? "heights" : "x";
                error = "the surface has no normal at " + where +
                        " (its tangents ∂/∂u and ∂/∂v are parallel or vanish there)";
                return nullptr;
            }
        }
    return s;
}

void Surface::sample(int columns, int rows) {
    columns_ = columns + 1;
    rows_ = rows + 1;
    for (int j = 0; j < rows_; ++j)
        for (int i = 0; i < columns_; ++i) {
            const double u = u0_ + (u1_ - u0_) * i / columns, v = v0_ + (v1_ - v0_) * j / rows;
            sampleU_.push_back(u);
            sampleV_.push_back(v);
            samples_.push_back(at(u, v).x);
        }
}

Surface::Point Surface::at(double u, double v) const {
    Point p;
    if (type_ == SurfaceType::Grid) {
        const std::size_t rows = ys_.size();
        std::vector<double> along[3];  // per row: value, ∂u, ∂uu at u
        for (auto& a : along) a.resize(rows);
        for (std::size_t j = 0; j < rows; ++j) {
            double g[3];
            splineAt(xs_, heights_[j], moments_[j], u, g);
            for (int k = 0; k < 3; ++k) along[k][j] = g[k];
        }
        double z[3], zu[3], zuu[3];
        splineAt(ys_, along[0], naturalMoments(ys_, along[0]), v, z);
        splineAt(ys_, along[1], naturalMoments(ys_, along[1]), v, zu);
        splineAt(ys_, along[2], naturalMoments(ys_, along[2]), v, zuu);
        p.x = Vec3(u, v, z[0]);
        p.du = Vec3(1.0, 0.0, zu[0]);
        p.dv = Vec3(0.0, 1.0, z[1]);
        p.duu = Vec3(0.0, 0.0, zuu[0]);
        p.duv = Vec3(0.0, 0.0, zu[1]);
        p.dvv = Vec3(0.0, 0.0, z[2]);
        return p;
    }
    // Fourth-order differences along each parameter, second-order across (steps of 2·10⁻⁴
    // and 10⁻³ of the ranges).
    const double hu = 2e-4 * (u1_ - u0_), hv = 2e-4 * (v1_ - v0_);
    const double ku = 1e-3 * (u1_ - u0_), kv = 1e-3 * (v1_ - v0_);
    for (int c = 0; c < 3; ++c) {
        const Expression& e = xyz_[c];
        const double f = e.eval(u, v);
        p.x(c) = f;
        if (e.isConstant()) continue;
        const double um2 = e.eval(u - 2 * hu, v), um1 = e.eval(u - hu, v), up1 = e.eval(u + hu, v),
                     up2 = e.eval(u + 2 * hu, v);
        const double vm2 = e.eval(u, v - 2 * hv), vm1 = e.eval(u, v - hv), vp1 = e.eval(u, v + hv),
                     vp2 = e.eval(u, v + 2 * hv);
        p.du(c) = (um2 - 8.0 * um1 + 8.0 * up1 - up2) / (12.0 * hu);
        p.dv(c) = (vm2 - 8.0 * vm1 + 8.0 * vp1 - vp2) / (12.0 * hv);
        p.duu(c) = (-um2 + 16.0 * um1 - 30.0 * f + 16.0 * up1 - up2) / (12.0 * hu * hu);
        p.dvv(c) = (-vm2 + 16.0 * vm1 - 30.0 * f + 16.0 * vp1 - vp2) / (12.0 * hv * hv);
        p.duv(c) = (e.eval(u + ku, v + kv) - e.eval(u + ku, v - kv) - e.eval(u - ku, v + kv) +
                    e.eval(u - ku, v - kv)) /
                   (4.0 * ku * kv);
    }
    return p;
}

void Surface::nearest(const Vec3& x, double& u, double& v) const {
    std::size_t best = 0;
    double bestDistance = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < samples_.size(); ++k)
        if (const double d = (samples_[k] - x).squaredNorm(); d < bestDistance) {
            bestDistance = d;
            best = k;
        }
    u = sampleU_[best];
    v = sampleV_[best];
    const double stepU = 2.0 * (u1_ - u0_) / std::max(columns_ - 1, 1);
    const double stepV = 2.0 * (v1_ - v0_) / std::max(rows_ - 1, 1);
    for (int it = 0; it < 40; ++it) {
        const Point p = at(u, v);
        const Vec3 d = p.x - x;
        const double fu = d.dot(p.du), fv = d.dot(p.dv);
        double a = p.du.squaredNorm() + d.dot(p.duu), b = p.du.dot(p.dv) + d.dot(p.duv),
               c = p.dv.squaredNorm() + d.dot(p.dvv);
        double det = a * c - b * b;
        if (!(det > 0.0) || a <= 0.0) {  // away from a minimum: Gauss–Newton
            a = p.du.squaredNorm();
            b = p.du.dot(p.dv);
            c = p.dv.squaredNorm();
            det = a * c - b * b;
        }
        const double du = std::clamp(-(c * fu - b * fv) / det, -stepU, stepU);
        const double dv = std::clamp(-(a * fv - b * fu) / det, -stepV, stepV);
        u += du;
        v += dv;
        if (std::abs(du) <= 1e-13 * stepU && std::abs(dv) <= 1e-13 * stepV) break;
    }
}

}  // namespace engine
