#include "engine/import/inertia_fixup.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

#include "engine/math/number_text.h"

namespace engine::io {
namespace {

std::string moments(const Vec3& m) {
    return "(" + numberText(m.x()) + ", " + numberText(m.y()) + ", " + numberText(m.z()) +
           ") kg·m²";
}

}  // namespace

bool fixInertia(MassProperties& props, const std::string& owner, const InertiaFixupOptions& options,
                Diagnostics& out) {
    const Severity severity = options.strict ? Severity::Error : Severity::Warning;
    const std::string refused = options.strict ? " (refused: --strict)" : "";
    bool ok = true;
    auto problem = [&](const std::string& message) {
        out.push_back({severity, owner, owner + ": " + message + refused});
        if (options.strict) ok = false;
    };

    // 0. What no body has, refused whatever the mode: a negative mass (a NaN one is refused as
    //    malformed by the readers).
    if (std::isnan(props.mass) || props.mass < 0.0) {
        out.push_back({Severity::Error, owner,
                       owner + ": mass " + numberText(props.mass) +
                           " kg is negative, which no body has (refused)"});
        return false;
    }

    // 1. The mass.
    if (!(props.mass > 0.0)) {
        problem("mass " + numberText(props.mass) + " kg is not positive" +
                (options.strict ? std::string()
                                : ": raised to " + numberText(options.massBound) + " kg"));
        if (!options.strict) props.mass = options.massBound;
    }

    // The principal moments, in the principal axes (kept by every fix-up).
    const Mat3 I = 0.5 * (props.I_Pcm_P + props.I_Pcm_P.transpose());
    Eigen::SelfAdjointEigenSolver<Mat3> eigen(I);
    Vec3 principal = eigen.eigenvalues();  // ascending
    const Mat3 axes = eigen.eigenvectors();
    const Vec3 original = principal;

    // 2. The triangle inequality: the largest moment is at most the sum of the other two
    //    (to rounding: a thin rod's A + B = C exactly).
    const double slack = 1e-9 * std::max(principal.cwiseAbs().maxCoeff(), 1e-300);
    if (principal.x() < -slack || principal.x() + principal.y() < principal.z() - slack) {
        const double mean = std::max(principal.sum() / 3.0, 0.0);
        if (principal.x() < -slack)
            problem("principal moments " + moments(original) + " are not all positive" +
                    (options.strict
                         ? std::string()
                         : ": balanced to their mean " + numberText(mean) + " kg·m² each"));
        else
            problem("principal moments " + moments(original) +
                    " violate the triangle inequality (" + numberText(principal.x()) + " + " +
                    numberText(principal.y()) + " < " + numberText(principal.z()) + ")" +
                    (options.strict
                         ? std::string()
                         : ": balanced to their mean " + numberText(mean) + " kg·m² each"));
        principal = Vec3::Constant(mean);
    }

    // 3. The bound below.
    const double bound = std::max(kMomentBoundRatio * principal.maxCoeff(),
                                  props.mass * kMomentBoundRadius * kMomentBoundRadius);
    if (principal.minCoeff() < bound) {
        const Vec3 before = principal;
        principal = principal.cwiseMax(Vec3::Constant(bound));
        problem("smallest principal moment " + numberText(before.minCoeff()) + " kg·m² of " +
                moments(before) + " is below the bound " + numberText(bound) + " kg·m²" +
                (options.strict ? std::string() : ": raised to it"));
    }

    if (!options.strict && principal != original)
        props.I_Pcm_P = axes * principal.asDiagonal() * axes.transpose();
    return ok;
}

bool checkMomentsNotNegative(const Vec3& moments, const std::string& owner, Diagnostics& out) {
    static constexpr const char* names[3] = {"ixx", "iyy", "izz"};
    bool ok = true;
    for (int k = 0; k < 3; ++k)
        if (std::isnan(moments(k)) || moments(k) < 0.0) {
            out.push_back({Severity::Error, owner,
                           owner + ": moment of inertia " + names[k] + " " +
                               numberText(moments(k)) +
                               " kg·m² is negative, which no body has (refused)"});
            ok = false;
        }
    return ok;
}

}  // namespace engine::io
