#pragma once
// Inertia data as found in robot descriptions, made physical. Vendors' files hold links with
// no mass, moments of inertia of zero (a link drawn as a line, a frame given a point mass) and
// principal moments that violate the triangle inequality (A + B < C: no rigid body has them,
// often one value mistyped). The fix-ups are MuJoCo's compiler's, documented there
// (boundmass, boundinertia, balanceinertia), and each change is reported:
// A negative mass, or a negative moment about an axis (checkMomentsNotNegative), has no
// physical reading and is refused in any mode: it is not a degenerate value but a wrong one.
//   1. a mass of zero is raised to the mass bound;
//   2. principal moments that violate the triangle inequality are each set to their mean
//      (A + B + C) / 3 — the balanced inertia keeps the trace, so the mean moment;
//   3. principal moments below the moment bound are raised to it: kMomentBoundRatio of the
//      largest moment, and at least mass × kMomentBoundRadius².
// The principal axes are kept. In strict mode nothing is changed: each problem is an error.
// Values that are not finite are never fixed (the reader reports them as malformed).

#include <string>

#include "engine/model/diagnostic.h"
#include "engine/model/mass_properties.h"

namespace engine::io {

// A moment is at least 1e-6 of the link's largest (the link's inertia is then conditioned to
// 1e6 at worst, as the solver needs) and at least that of its mass at 0.1 mm from the axis (a
// point mass, all moments zero, gets a ball's worth). Real links are far above both: a 1 g
// screw of 1 mm radius has 4e-10 kg·m², a 1 m rod of 1 mm radius 5e-7 of its largest moment.
constexpr double kMomentBoundRatio = 1e-6;
constexpr double kMomentBoundRadius = 1e-4;  // m

struct InertiaFixupOptions {
    bool strict = false;
    double massBound = 1e-3;  // kg: the least mass of a moving link
};

// Checks and, unless strict, fixes `props` (mass, centre of mass, inertia about it, in the
// link frame). Warnings (or errors when strict) name `owner` ("link 'upper_arm'") and say
// exactly what was changed, from what to what. Returns false when an error was added.
bool fixInertia(MassProperties& props, const std::string& owner, const InertiaFixupOptions& options,
                Diagnostics& out);

// The moments about the axes of the frame the file gives its inertia in (ixx, iyy, izz): each
// ∫(y² + z²) dm is never negative, so a negative one is an error naming `owner` (a matrix whose
// products of inertia make a principal moment negative is left to fixInertia's balancing).
// Returns false when an error was added.
bool checkMomentsNotNegative(const Vec3& moments, const std::string& owner, Diagnostics& out);

}  // namespace engine::io
