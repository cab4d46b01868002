#include "engine/io/mesh_loader.h"

#include <assimp/DefaultIOSystem.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/Importer.hpp>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <set>
#include <utility>
#include <vector>

#include "engine/io/input_file.h"
#include "engine/solver/worker_pool.h"

namespace engine::io {
namespace {

// Assimp's file access, reading regular files only: the files a mesh names (an OBJ's mtllib, a
// glTF's buffers, ...) are opened by Assimp itself, and a FIFO among them would block it.
class RegularFilesOnly : public Assimp::DefaultIOSystem {
public:
    using DefaultIOSystem::Open;
    bool Exists(const char* file) const override { return file && isRegularFile(file); }
    Assimp::IOStream* Open(const char* file, const char* mode) override {
        const bool reading = mode && mode[0] == 'r';
        if (!file || (reading && !isRegularFile(file))) return nullptr;
        return DefaultIOSystem::Open(file, mode);
    }
};

// The node tree's depth and the triangles it places (each node places its meshes' faces; a
// polygon of n corners is n − 2 triangles), walked without recursion. "" or the limit exceeded.
std::string nodeTreeProblem(const aiScene& scene, const MeshLimits& limits) {
    std::vector<std::uint64_t> meshTriangles(scene.mNumMeshes, 0);
    for (unsigned m = 0; m < scene.mNumMeshes; ++m)
        for (unsigned f = 0; f < scene.mMeshes[m]->mNumFaces; ++f)
            if (const unsigned n = scene.mMeshes[m]->mFaces[f].mNumIndices; n >= 3)
                meshTriangles[m] += n - 2;
    std::uint64_t triangles = 0;
    std::vector<std::pair<const aiNode*, int>> stack;  // node, its depth (the root is 1)
    if (scene.mRootNode) stack.emplace_back(scene.mRootNode, 1);
    while (!stack.empty()) {
        const auto [node, depth] = stack.back();
        stack.pop_back();
        if (depth > limits.maxNodeDepth)
            return "its node tree is deeper than the limit of " +
                   std::to_string(limits.maxNodeDepth) + " levels";
        for (unsigned k = 0; k < node->mNumMeshes; ++k)
            if (node->mMeshes[k] < scene.mNumMeshes) triangles += meshTriangles[node->mMeshes[k]];
        if (triangles > limits.maxTriangles)
            return "its nodes place more than the limit of " + std::to_string(limits.maxTriangles) +
                   " triangles";
        for (unsigned c = 0; c < node->mNumChildren; ++c)
            if (node->mChildren[c]) stack.emplace_back(node->mChildren[c], depth + 1);
    }
    return "";
}

// Assimp 5.2's PLY reader reads header lines until "end_header" and loops without end when there
// is none (a 200-byte file kept it busy until the reading process was stopped, 120 s later). So
// a file that starts as a PLY file must have that line within its first kMaxPlyHeader bytes.
// Assimp tells a PLY file by its first three bytes, "ply" in any case ("PLY", "plyy\n" too),
// whatever the extension, and finds the line's word after any spaces. "" or why not.
constexpr std::size_t kMaxPlyHeader = std::size_t{1} << 20;  // B
std::string plyHeaderProblem(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(3, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    if (in.gcount() != 3) return "";
    for (std::size_t k = 0; k < 3; ++k)
        if (std::tolower(static_cast<unsigned char>(head[k])) != "ply"[k]) return "";
    head.resize(kMaxPlyHeader);  // only a PLY file's first MB is read
    in.read(head.data() + 3, static_cast<std::streamsize>(head.size() - 3));
    head.resize(3 + static_cast<std::size_t>(in.gcount()));
    const auto space = [](char c) { return c == ' ' || c == '\t'; };
    const auto lineEnd = [](char c) { return c == '\n' || c == '\r'; };
    for (std::size_t at = 0; (at = head.find("end_header", at)) != std::string::npos; ++at) {
        std::size_t before = at;
        while (before > 0 && space(head[before - 1])) --before;
        const std::size_t end = at + 10;
        if (before > 0 && lineEnd(head[before - 1]) &&
            (end == head.size() || lineEnd(head[end]) || space(head[end])))
            return "";
    }
    return "its PLY header has no 'end_header' line" +
           std::string(head.size() == kMaxPlyHeader ? " in its first 1 MB" : "") +
           ": the file is malformed";
}

// Runs in the child process: reads the file and writes the merged mesh into `out` as
//   [vertex count: int64][triangle count: int64][vertices: 3 doubles each][triangles: 3 int32]
bool readMesh(const std::string& path, const MeshLimits& limits, std::string& out,
              std::string& error) {
    Assimp::Importer importer;
    importer.SetIOHandler(new RegularFilesOnly);  // the importer owns it
    // Points and lines are dropped: only faces bound a solid.
    importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE,
                                aiPrimitiveType_POINT | aiPrimitiveType_LINE);
    // First the file as it is, its indices checked; then, within the limits, flattened.
    const aiScene* scene = importer.ReadFile(path, aiProcess_ValidateDataStructure);
    if (scene) {
        if (error = nodeTreeProblem(*scene, limits); !error.empty()) return false;
        scene = importer.ApplyPostProcessing(
            aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
            aiProcess_PreTransformVertices | aiProcess_SortByPType | aiProcess_FindDegenerates);
    }
    if (!scene) {
        error = importer.GetErrorString();
        if (error.empty()) error = "cannot read the mesh file";
        return false;
    }
    std::vector<double> vertices;
    std::vector<std::int32_t> triangles;
    for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
        const aiMesh* part = scene->mMeshes[m];
        const auto offset = static_cast<std::int32_t>(vertices.size() / 3);
        for (unsigned v = 0; v < part->mNumVertices; ++v)
            vertices.insert(vertices.end(),
                            {part->mVertices[v].x, part->mVertices[v].y, part->mVertices[v].z});
        for (unsigned f = 0; f < part->mNumFaces; ++f) {
            const aiFace& face = part->mFaces[f];
            if (face.mNumIndices != 3) continue;
            for (int k = 0; k < 3; ++k)
                triangles.push_back(offset + static_cast<std::int32_t>(face.mIndices[k]));
        }
    }
    const std::int64_t counts[2] = {static_cast<std::int64_t>(vertices.size() / 3),
                                    static_cast<std::int64_t>(triangles.size() / 3)};
    out.resize(sizeof counts + vertices.size() * sizeof(double) +
               triangles.size() * sizeof(std::int32_t));
    char* at = out.data();
    std::memcpy(at, counts, sizeof counts);
    at += sizeof counts;
    // (an empty vector's data() may be null, which memcpy must not be given even for 0 bytes:
    // a mesh of no vertices, found by the mesh fuzzer)
    if (!vertices.empty()) std::memcpy(at, vertices.data(), vertices.size() * sizeof(double));
    at += vertices.size() * sizeof(double);
    if (!triangles.empty())
        std::memcpy(at, triangles.data(), triangles.size() * sizeof(std::int32_t));
    return true;
}

// What is checked before a reader child is started: empty when the file may be given to it.
std::string meshFileProblem(const std::string& path) {
    if (std::string problem = inputFileProblem(path, "mesh file"); !problem.empty()) return problem;
    return plyHeaderProblem(path);
}

ChildJob readerJob(const std::string& path, const MeshLimits& limits) {
    ChildJob job;
    job.work = [path, limits](std::string& out, std::string& reason) {
        return readMesh(path, limits, out, reason);
    };
    job.limits = limits.process;
    return job;
}

// The mesh from the reader child's answer, or null with `error` set.
std::shared_ptr<const TriangleMesh> meshFromChild(ChildOutcome& outcome, std::string& error) {
    if (!outcome.done) {
        error = std::move(outcome.error);
        if (outcome.childFailed)
            error = "the mesh reader " + error + ": the file is malformed or too large";
        return nullptr;
    }
    const std::string& bytes = outcome.result;
    // The child's bytes, sizes checked before they are used.
    std::int64_t counts[2] = {0, 0};
    if (bytes.size() < sizeof counts) {
        error = "the mesh reader returned no mesh";
        return nullptr;
    }
    std::memcpy(counts, bytes.data(), sizeof counts);
    const auto vertexCount = static_cast<std::uint64_t>(counts[0]);
    const auto triangleCount = static_cast<std::uint64_t>(counts[1]);
    if (counts[0] < 0 || counts[1] < 0 ||
        bytes.size() != sizeof counts + vertexCount * 3 * sizeof(double) +
                            triangleCount * 3 * sizeof(std::int32_t)) {
        error = "the mesh reader returned a malformed mesh";
        return nullptr;
    }
    auto mesh = std::make_shared<TriangleMesh>();
    const char* at = bytes.data() + sizeof counts;
    mesh->vertices.resize(vertexCount);
    for (Vec3& v : mesh->vertices) {
        double xyz[3];
        std::memcpy(xyz, at, sizeof xyz);
        at += sizeof xyz;
        v = Vec3(xyz[0], xyz[1], xyz[2]);
    }
    mesh->triangles.resize(triangleCount);
    for (auto& t : mesh->triangles) {
        std::int32_t abc[3];
        std::memcpy(abc, at, sizeof abc);
        at += sizeof abc;
        for (int k = 0; k < 3; ++k) {
            if (abc[k] < 0 || static_cast<std::uint64_t>(abc[k]) >= vertexCount) {
                error = "a face names a vertex the file does not have";
                return nullptr;
            }
        }
        t = {abc[0], abc[1], abc[2]};
    }
    if (mesh->triangles.empty()) {
        error = "the file holds no triangles";
        return nullptr;
    }
    for (const Vec3& v : mesh->vertices)
        if (!v.allFinite()) {
            error = "the mesh has a non-finite vertex";
            return nullptr;
        }
    return mesh;
}

}  // namespace

std::shared_ptr<const TriangleMesh> loadMesh(const std::string& path, std::string& error,
                                             const MeshLimits& limits) {
    std::vector<LoadedMesh> loaded = loadMeshes({path}, limits);
    error = std::move(loaded[0].error);
    return std::move(loaded[0].mesh);
}

// The children are started and awaited by this thread (runInChildProcesses), never by several.
std::vector<LoadedMesh> loadMeshes(const std::vector<std::string>& paths,
                                   const MeshLimits& limits) {
    std::vector<LoadedMesh> loaded(paths.size());
    std::vector<ChildJob> jobs;
    std::vector<std::size_t> read;  // the paths given to a reader, in the order of `jobs`
    for (std::size_t k = 0; k < paths.size(); ++k) {
        loaded[k].error = meshFileProblem(paths[k]);
        if (!loaded[k].error.empty()) continue;
        jobs.push_back(readerJob(paths[k], limits));
        read.push_back(k);
    }
    std::vector<ChildOutcome> outcomes = runInChildProcesses(jobs, workerThreads());
    for (std::size_t j = 0; j < read.size(); ++j)
        loaded[read[j]].mesh = meshFromChild(outcomes[j], loaded[read[j]].error);
    return loaded;
}

void MeshFiles::prefetch(const std::vector<std::string>& paths, const MeshLimits& limits) {
    std::vector<std::string> unread;
    std::set<std::string> named;
    for (const std::string& path : paths)
        if (!files_.count(path) && named.insert(path).second) unread.push_back(path);
    std::vector<LoadedMesh> loaded = loadMeshes(unread, limits);
    for (std::size_t k = 0; k < unread.size(); ++k) files_.emplace(unread[k], std::move(loaded[k]));
}

const LoadedMesh& MeshFiles::read(const std::string& path, const MeshLimits& limits) {
    auto it = files_.find(path);
    if (it == files_.end()) {
        LoadedMesh loaded;
        loaded.mesh = loadMesh(path, loaded.error, limits);
        it = files_.emplace(path, std::move(loaded)).first;
    }
    return it->second;
}

}  // namespace engine::io
