#include "engine/io/mesh_loader.h"

#include <assimp/DefaultIOSystem.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/Importer.hpp>

#include "engine/io/input_file.h"

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

}  // namespace

std::shared_ptr<const TriangleMesh> loadMesh(const std::string& path, std::string& error) {
    if (const std::string problem = inputFileProblem(path, "mesh file"); !problem.empty()) {
        error = problem;
        return nullptr;
    }
    Assimp::Importer importer;
    importer.SetIOHandler(new RegularFilesOnly);  // the importer owns it
    // Points and lines are dropped: only faces bound a solid.
    importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE,
                                aiPrimitiveType_POINT | aiPrimitiveType_LINE);
    const aiScene* scene =
        importer.ReadFile(path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                                    aiProcess_PreTransformVertices | aiProcess_SortByPType |
                                    aiProcess_FindDegenerates);
    if (!scene) {
        error = importer.GetErrorString();
        if (error.empty()) error = "cannot read the mesh file";
        return nullptr;
    }
    auto mesh = std::make_shared<TriangleMesh>();
    for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
        const aiMesh* part = scene->mMeshes[m];
        const int offset = static_cast<int>(mesh->vertices.size());
        for (unsigned v = 0; v < part->mNumVertices; ++v)
            mesh->vertices.emplace_back(part->mVertices[v].x, part->mVertices[v].y,
                                        part->mVertices[v].z);
        for (unsigned f = 0; f < part->mNumFaces; ++f) {
            const aiFace& face = part->mFaces[f];
            if (face.mNumIndices != 3) continue;
            mesh->triangles.push_back({offset + static_cast<int>(face.mIndices[0]),
                                       offset + static_cast<int>(face.mIndices[1]),
                                       offset + static_cast<int>(face.mIndices[2])});
        }
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

}  // namespace engine::io
