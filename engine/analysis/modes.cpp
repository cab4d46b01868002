#include "engine/analysis/modes.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <Eigen/Eigenvalues>

#include "engine/analysis/linearisation.h"
#include "engine/kinematics/part_motion.h"
#include "engine/model/layout.h"

namespace engine {
namespace {

// How closely K is known, relative to the size of its terms (Linearisation::stiffnessScale).
constexpr double kStiffnessPrecision = 1e-9;

}  // namespace

ModesResult modes(const Model& model, const State& state) {
    ModesResult out;
    Workspace ws;
    if (Status s = prepareWorkspace(model, state, ws); !s.ok) {
        out.status = s;
        return out;
    }
    const Linearisation L = linearise(model, state, ws, /*withDamping=*/true);
    if (!L.status.ok) {
        out.status = L.status;
        return out;
    }
    out.residual = L.residual;
    out.N = L.N;
    out.K = L.K;
    out.C = L.C;
    out.force = L.force;
    const Eigen::Index f = L.K.rows();
    if (f == 0) return out;  // nothing can move

    // The first-order system A = [0 I; −K −C]: one eigenvalue of each conjugate pair (or each
    // real one: overdamped or unstable) per mode.
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(2 * f, 2 * f);
    A.topRightCorner(f, f).setIdentity();
    A.bottomLeftCorner(f, f) = -L.K;
    A.bottomRightCorner(f, f) = -L.C;
    const Eigen::EigenSolver<Eigen::MatrixXd> eigen(A);
    if (eigen.info() != Eigen::Success) {
        out.status = Status::failure("the eigenvalues of the linearised motion did not converge");
        return out;
    }
    // Rates |s| with s² below what K is known to (1e-9 of its terms' size) are zero: a
    // neutral motion (a mechanism in gravity along its hinges turns freely, as without
    // gravity) reads frequency 0, neither oscillating nor unstable, instead of a rate of
    // ±√(round-off) (~1e-7 /s) that would flag it unstable.
    Eigen::VectorXcd values = eigen.eigenvalues();
    const double zeroRate = std::sqrt(kStiffnessPrecision * L.stiffnessScale);
    for (Eigen::Index k = 0; k < values.size(); ++k)
        if (std::abs(values(k)) <= zeroRate) values(k) = 0.0;
    const Eigen::MatrixXcd vectors = eigen.eigenvectors();
    // Pairs: an eigenvalue with Im s > 0 stands for its conjugate; real ones are taken in
    // pairs of the same mode when the system is overdamped (the slower one kept).
    std::vector<bool> used(static_cast<std::size_t>(2 * f), false);
    const double scale = std::max(1.0, values.cwiseAbs().maxCoeff());
    // Without damping (C = 0: nothing in the linearisation dissipates) an oscillation neither
    // decays nor grows: the real parts the eigensolver leaves (~1e-15 of |s|) are round-off,
    // and the modes read ζ = 0 and growth 0 exactly, whatever order the sums were taken in.
    const bool conservative = L.C.isZero(0.0);
    for (Eigen::Index k = 0; k < 2 * f; ++k) {
        if (used[static_cast<std::size_t>(k)]) continue;
        const std::complex<double> s = values(k);
        if (s.imag() < -1e-12 * scale) continue;  // the conjugate of another
        used[static_cast<std::size_t>(k)] = true;
        Mode mode;
        Eigen::VectorXd z = vectors.col(k).head(f).real();
        if (std::abs(s.imag()) > 1e-12 * scale) {
            // An oscillation: ω = |s|, ζ = −Re s / |s|; the shape from the larger of the
            // vector's real and imaginary parts (the same for a classically damped system).
            const Eigen::VectorXd zi = vectors.col(k).head(f).imag();
            if (zi.norm() > z.norm()) z = zi;
            mode.frequency = std::abs(s) / (2 * std::numbers::pi);
            mode.dampingRatio = conservative ? 0.0 : -s.real() / std::abs(s);
        } else {
            // A real eigenvalue: overdamped (two decaying rates of one mode: ω² = s1 s2, 2ζω =
            // −(s1 + s2)) or unstable (a positive rate).
            Eigen::Index partner = -1;
            double best = 0.0;
            for (Eigen::Index j = 0; j < 2 * f; ++j) {
                if (used[static_cast<std::size_t>(j)] || std::abs(values(j).imag()) > 1e-12 * scale)
                    continue;
                const Eigen::VectorXd zj = vectors.col(j).head(f).real();
                const double alignment =
                    std::abs(zj.normalized().dot(z.normalized()));  // the same shape
                if (alignment > best) {
                    best = alignment;
                    partner = j;
                }
            }
            double s1 = s.real(), s2 = s1;
            if (partner >= 0 && best > 0.999) {
                used[static_cast<std::size_t>(partner)] = true;
                s2 = values(partner).real();
            }
            mode.growthRate = std::max(s1, s2);
            mode.unstable = mode.growthRate > 1e-9 * scale;
            const double omega2 = s1 * s2;
            mode.frequency = std::sqrt(std::abs(omega2)) / (2 * std::numbers::pi);
            mode.dampingRatio = omega2 > 0.0 ? -(s1 + s2) / (2 * std::sqrt(omega2)) : 0.0;
        }
        if (!mode.unstable) {
            mode.growthRate = conservative && std::abs(s.imag()) > 1e-12 * scale ? 0.0 : s.real();
            mode.unstable = s.real() > 1e-9 * scale;
        }
        mode.dampingRatio += 0.0;  // no −0 for an undamped mode
        mode.shape = L.N * z;
        // Scaled by the largest displacement of a part's centre of mass (welded parts share a
        // body, engine/model/welds.h, whose centre is none of theirs).
        double largest = 0.0;
        for (const PartModel& part : model.parts)  // (the shape as velocities)
            largest = std::max(largest, partMotion(part, state.q, mode.shape).velocity.norm());
        if (largest < 1e-9 * mode.shape.cwiseAbs().maxCoeff())
            largest = mode.shape.cwiseAbs().maxCoeff();
        if (largest > 0.0) mode.shape /= largest;
        out.modes.push_back(std::move(mode));
    }
    std::sort(out.modes.begin(), out.modes.end(), [](const Mode& a, const Mode& b) {
        return a.unstable != b.unstable ? a.unstable : a.frequency < b.frequency;
    });
    return out;
}

std::vector<std::size_t> modeShapeParts(const Model& model) {
    std::vector<std::size_t> parts;
    for (std::size_t p = 0; p < model.parts.size(); ++p)
        if (!isGroundPart(model, p)) parts.push_back(p);
    return parts;
}

void modeShapeByPart(const Model& model, const Eigen::VectorXd& q, const Mode& mode,
                     std::vector<double>& out) {
    out.clear();
    for (const std::size_t p : modeShapeParts(model)) {
        // The shape as the bodies' velocities: the part's centre's and its turn.
        const PartMotion shape = partMotion(model.parts[p], q, mode.shape);
        const Vec3 &t = shape.velocity, &w = shape.angularVelocity;
        out.insert(out.end(), {t.x(), t.y(), t.z(), w.x(), w.y(), w.z()});
    }
}

}  // namespace engine
