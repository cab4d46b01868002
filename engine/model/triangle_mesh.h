#pragma once
// A triangle mesh in its own frame (as loaded from an OBJ or STL file), with outward
// counter-clockwise triangles when it encloses a solid.

#include <array>
#include <vector>

#include "engine/math/spatial.h"

namespace engine {

struct TriangleMesh {
    std::vector<Vec3> vertices;
    std::vector<std::array<int, 3>> triangles;

    bool empty() const { return triangles.empty(); }
    // Signed volume by the divergence theorem (positive for a closed, outward-facing mesh).
    double signedVolume() const;
    // Every edge shared by exactly two triangles, traversed once in each direction.
    bool isClosed() const;
};

}  // namespace engine
