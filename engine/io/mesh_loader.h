#pragma once
// Triangle meshes from files (OBJ, STL and the other formats Assimp reads), merged into one
// mesh with node transforms applied and duplicate vertices joined.

#include <memory>
#include <string>

#include "engine/model/triangle_mesh.h"

namespace engine::io {

// Null with `error` set when the file cannot be read or holds no triangles.
std::shared_ptr<const TriangleMesh> loadMesh(const std::string& path, std::string& error);

}  // namespace engine::io
