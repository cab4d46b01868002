#include "engine/import/inertia_fixup.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <Eigen/Eigenvalues>

namespace engine::io {
namespace {

std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

std::string moments(const Vec3& m) {
    return "(" + number(m.x()) + ", " + number(m.y()) + ", " + number(m.z()) + ") kg·m²";
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
                       owner + ": mass " + number(props.mass) +
                           " kg is negative, which no body has (refused)"});
        return false;
    }

    // 1. The mass.
    if (!(props.mass > 0.0)) {
        problem(
            "mass " + number(props.mass) + " kg is not positive" +
            (options.strict ? std::string() : ": raised to " + number(options.massBound) + " kg"));
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
                    (options.strict ? std::string()
                                    : ": balanced to their mean " + number(mean) + " kg·m² each"));
        else
            problem("principal moments " + moments(original) +
                    " violate the triangle inequality (" + number(principal.x()) + " + " +
                    number(principal.y()) + " < " + number(principal.z()) + ")" +
                    (options.strict ? std::string()
                                    : ": balanced to their mean " + number(mean) + " kg·m² each"));
        principal = Vec3::Constant(mean);
    }

    // 3. The bound below.
    const double bound = std::max(kMomentBoundRatio * principal.maxCoeff(),
                                  props.mass * kMomentBoundRadius * kMomentBoundRadius);
    if (principal.minCoeff() < bound) {
        const Vec3 before = principal;
        principal = principal.cwiseMax(Vec3::Constant(bound));
        problem("smallest principal moment " + number(before.minCoeff()) + " kg·m² of " +
                moments(before) + " is below the bound " + number(bound) + " kg·m²" +
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
                           owner + ": moment of inertia " + names[k] + " " + number(moments(k)) +
                               " kg·m² is negative, which no body has (refused)"});
            ok = false;
        }
    return ok;
}

}  // namespace engine::io
