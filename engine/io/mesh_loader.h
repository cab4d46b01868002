#pragma once
// Triangle meshes from files (OBJ, STL and the other formats Assimp reads), merged into one
// mesh with node transforms applied and duplicate vertices joined.
//
// A mesh file is untrusted input read by Assimp, which crashes inside its own importers on some
// malformed files and expands instanced nodes before it returns (see child_process.h). So the
// file is read in a child process bounded in memory and time; its data structure is validated
// (faces indexing vertices that do not exist are refused), and its node tree is walked before
// the nodes are flattened into one mesh, refusing a tree deeper than `maxNodeDepth` or one that
// instances more than `maxTriangles` triangles in all.

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/io/child_process.h"
#include "engine/model/triangle_mesh.h"

namespace engine::io {

struct MeshLimits {
    std::size_t maxTriangles = 5'000'000;  // triangles after every instance is placed
    int maxNodeDepth = 1000;               // levels of the file's node tree
    ChildLimits process;                   // memory and time of the reading process
};

// Null with `error` set when the file cannot be read, holds no triangles or exceeds `limits`;
// `error` does not repeat the file's name.
std::shared_ptr<const TriangleMesh> loadMesh(const std::string& path, std::string& error,
                                             const MeshLimits& limits = {});

// A file as loadMesh read it: the mesh, or null and the reason.
struct LoadedMesh {
    std::shared_ptr<const TriangleMesh> mesh;
    std::string error;
};

// Several files, each read as loadMesh reads it (in a child process of its own), as many
// children at once as the engine has threads (engine/solver/worker_pool.h): a robot names dozens
// of mesh files, and a child spends most of its time in the reader, on its own core. The calling
// thread starts the children and waits for them (runInChildProcesses). The results in the order
// of `paths`, the same whatever the threads.
std::vector<LoadedMesh> loadMeshes(const std::vector<std::string>& paths,
                                   const MeshLimits& limits = {});

// The mesh files of one scene or robot, each read once by its path: those known before the
// rest is read all at once (prefetch), any other when first asked for.
class MeshFiles {
public:
    // The files among `paths` not read yet (each once however often named), read at once.
    void prefetch(const std::vector<std::string>& paths, const MeshLimits& limits = {});
    // The file as read, read now when it was not.
    const LoadedMesh& read(const std::string& path, const MeshLimits& limits = {});

private:
    std::map<std::string, LoadedMesh> files_;
};

}  // namespace engine::io
