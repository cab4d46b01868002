#pragma once
// Mass properties of solid primitives of uniform density and of their unions, in the part
// frame P: mass [kg], centre of mass p_PPcm [m], inertia about the centre of mass expressed
// in P [kg·m²].

#include "engine/math/spatial.h"
#include "engine/model/scene_spec.h"

namespace engine {

struct MassProperties {
    double mass = 0.0;
    Vec3 p_PPcm = Vec3::Zero();
    Mat3 I_Pcm_P = Mat3::Zero();
};

// A closed, outward-facing triangle mesh scaled per axis, in its own frame.
MassProperties meshMassProperties(const TriangleMesh& mesh, const Vec3& scale, double density);

// One shape of the given density, placed in P by its X_PG.
MassProperties shapeMassProperties(const Shape& shape, double density);

// The union of two bodies (parallel-axis theorem about the combined centre of mass).
MassProperties combine(const MassProperties& a, const MassProperties& b);

// The part's mass properties: from its shapes when it has a density, else as given.
MassProperties partMassProperties(const Part& part);

}  // namespace engine
