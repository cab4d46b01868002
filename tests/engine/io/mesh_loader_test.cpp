#include "engine/io/mesh_loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <thread>

#include <pthread.h>

#include "engine/io/scene_json.h"
#include "engine/model/mass_properties.h"
#include "engine/model/model.h"
#include "engine/solver/worker_pool.h"

namespace engine::io {
namespace {

const std::string kData = MOTUS_SOURCE_DIR "/tests/engine/io/data/";

// Mesh coordinates come through Assimp in single precision (as binary STL stores them), so
// results built on them are exact to ~1e-7 relative, not to double precision.
constexpr double kFloat = 2e-7;

TEST(MeshLoader, ReadsObjAndStlIntoClosedMeshes) {
    std::string error;
    const auto box = loadMesh(kData + "box.obj", error);
    ASSERT_TRUE(box) << error;
    EXPECT_EQ(box->vertices.size(), 8u);
    EXPECT_EQ(box->triangles.size(), 12u);
    EXPECT_TRUE(box->isClosed());
    EXPECT_NEAR(box->signedVolume() / (0.2 * 0.1 * 0.05), 1.0, kFloat);

    const auto tetra = loadMesh(kData + "tetra.stl", error);
    ASSERT_TRUE(tetra) << error;
    EXPECT_EQ(tetra->vertices.size(), 4u);  // STL's repeated corners are joined
    EXPECT_TRUE(tetra->isClosed());
    EXPECT_NEAR(tetra->signedVolume() / (1e-3 / 6.0), 1.0, kFloat);

    const auto open = loadMesh(kData + "open_square.obj", error);
    ASSERT_TRUE(open);
    EXPECT_FALSE(open->isClosed());
}

TEST(MeshLoader, ReportsAMissingOrUnreadableFile) {
    std::string error;
    EXPECT_FALSE(loadMesh(kData + "nowhere.stl", error));
    EXPECT_FALSE(error.empty());
    EXPECT_FALSE(loadMesh(MOTUS_SOURCE_DIR "/README.md", error));
    EXPECT_FALSE(error.empty());
}

// Files read at once on the engine's threads, each as loadMesh reads it: the results in the
// order asked, a file named twice read the same both times, a missing or unreadable one with
// its reason — with one thread and with two.
TEST(MeshLoader, ReadsSeveralFilesAtOnceAsEachAlone) {
    const std::vector<std::string> paths = {
        kData + "box.obj",         kData + "nowhere.stl",
        kData + "tetra.stl",       MOTUS_SOURCE_DIR "/README.md",
        kData + "open_square.obj", kData + "box.obj"};
    std::vector<LoadedMesh> alone(paths.size());
    for (std::size_t k = 0; k < paths.size(); ++k)
        alone[k].mesh = loadMesh(paths[k], alone[k].error);
    const int before = workerThreads();
    for (const int threads : {1, 2}) {
        setWorkerThreads(threads);
        const std::vector<LoadedMesh> loaded = loadMeshes(paths);
        ASSERT_EQ(loaded.size(), paths.size());
        for (std::size_t k = 0; k < paths.size(); ++k) {
            SCOPED_TRACE(paths[k] + ", " + std::to_string(threads) + " threads");
            ASSERT_EQ(!loaded[k].mesh, !alone[k].mesh);
            EXPECT_EQ(loaded[k].error, alone[k].error);
            if (!alone[k].mesh) {
                EXPECT_FALSE(loaded[k].error.empty());
                continue;
            }
            EXPECT_EQ(loaded[k].mesh->vertices, alone[k].mesh->vertices);
            EXPECT_EQ(loaded[k].mesh->triangles, alone[k].mesh->triangles);
        }
    }
    setWorkerThreads(before);
    EXPECT_TRUE(loadMeshes({}).empty());
}

// The threads that forked since the last reset (a fork handler's record).
std::mutex forkersMutex;
std::set<std::thread::id> forkers;
void recordForker() {
    const std::lock_guard<std::mutex> lock(forkersMutex);
    forkers.insert(std::this_thread::get_id());
}

// Many files read at once on two threads: every reader child is forked by the calling thread.
// Children forked by several threads at once can inherit a lock another thread held at that
// moment and hang on it (clang 14's AddressSanitizer allocator; a scene of the STEP fuzzer's
// waited 79 s for one).
TEST(MeshLoader, ReadsSeveralFilesAtOnceForkingFromTheCallingThreadOnly) {
    static const bool watched = ::pthread_atfork(recordForker, nullptr, nullptr) == 0;
    ASSERT_TRUE(watched);
    const int before = workerThreads();
    setWorkerThreads(2);
    {
        const std::lock_guard<std::mutex> lock(forkersMutex);
        forkers.clear();
    }
    const std::vector<std::string> paths(6, kData + "box.obj");
    const std::vector<LoadedMesh> loaded = loadMeshes(paths);
    setWorkerThreads(before);
    for (const LoadedMesh& m : loaded) EXPECT_TRUE(m.mesh) << m.error;
    const std::lock_guard<std::mutex> lock(forkersMutex);
    ASSERT_EQ(forkers.size(), 1u);
    EXPECT_EQ(*forkers.begin(), std::this_thread::get_id());
}

// One scene's files: read once each, whether prefetched (named twice) or asked for later.
TEST(MeshLoader, MeshFilesReadEachFileOnce) {
    MeshFiles files;
    files.prefetch({kData + "box.obj", kData + "nowhere.stl", kData + "box.obj"});
    const LoadedMesh& box = files.read(kData + "box.obj");
    ASSERT_TRUE(box.mesh) << box.error;
    EXPECT_EQ(files.read(kData + "box.obj").mesh, box.mesh);  // (the same mesh, not read again)
    files.prefetch({kData + "box.obj"});
    EXPECT_EQ(files.read(kData + "box.obj").mesh, box.mesh);
    std::string error;
    EXPECT_FALSE(loadMesh(kData + "nowhere.stl", error));
    EXPECT_FALSE(files.read(kData + "nowhere.stl").mesh);
    EXPECT_EQ(files.read(kData + "nowhere.stl").error, error);
    const LoadedMesh& tetra = files.read(kData + "tetra.stl");  // (not prefetched)
    ASSERT_TRUE(tetra.mesh) << tetra.error;
    EXPECT_EQ(files.read(kData + "tetra.stl").mesh, tetra.mesh);
}

TEST(MeshMassProperties, BoxMeshMatchesTheBoxFormula) {
    std::string error;
    const auto box = loadMesh(kData + "box.obj", error);
    ASSERT_TRUE(box);
    const MassProperties mp = meshMassProperties(*box, Vec3::Ones(), 1000.0);
    const double m = 1000.0 * 0.2 * 0.1 * 0.05;
    EXPECT_NEAR(mp.mass / m, 1.0, kFloat);
    EXPECT_LT(mp.p_PPcm.norm(), kFloat * 0.1);
    const Vec3 expected = m / 12.0 * Vec3(0.01 + 0.0025, 0.04 + 0.0025, 0.04 + 0.01);
    EXPECT_LT((mp.I_Pcm_P.diagonal() - expected).norm() / expected.norm(), 3 * kFloat);
    EXPECT_LT((mp.I_Pcm_P - Mat3(mp.I_Pcm_P.diagonal().asDiagonal())).norm() / expected.norm(),
              3 * kFloat);
}

TEST(MeshMassProperties, TetrahedronMatchesItsClosedForm) {
    // Unit-right tetrahedron of edge a: V = a³/6, centroid a/4 (1, 1, 1); about the origin
    // ∫x² dV = a⁵/60 and ∫xy dV = a⁵/120, so I_O,xx = a⁵/30 · ρ and I_O,xy = −a⁵/120 · ρ.
    std::string error;
    const auto tetra = loadMesh(kData + "tetra.stl", error);
    ASSERT_TRUE(tetra);
    const double a = 0.1, rho = 2.0;
    const MassProperties mp = meshMassProperties(*tetra, Vec3::Ones(), rho);
    EXPECT_NEAR(mp.mass / (rho * a * a * a / 6.0), 1.0, 3 * kFloat);
    EXPECT_LT((mp.p_PPcm - Vec3::Constant(a / 4)).norm(), kFloat * a);
    const double a5 = std::pow(a, 5);
    Mat3 I_O;
    I_O << a5 / 30, -a5 / 120, -a5 / 120, -a5 / 120, a5 / 30, -a5 / 120, -a5 / 120, -a5 / 120,
        a5 / 30;
    I_O *= rho;
    const Vec3 c = mp.p_PPcm;
    const Mat3 expected = I_O - mp.mass * (c.squaredNorm() * Mat3::Identity() - c * c.transpose());
    EXPECT_LT((mp.I_Pcm_P - expected).norm(), 5 * kFloat * expected.norm());
}

std::string meshScene(const std::string& file, const std::string& extra) {
    return R"({"format":"motus-scene","version":1,"parts":[{"name":"p",)" + extra +
           R"("geometry":[{"type":"mesh","file":")" + file + R"(","scale":[2,1,1]}]}]})";
}

TEST(SceneJson, MeshShapesAreReadRelativeToTheSceneAndGiveMass) {
    const SceneLoadResult r = parseScene(meshScene("box.obj", R"("density":1000,)"), kData);
    ASSERT_TRUE(r.scene) << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
    const CompileResult c = compile(*r.scene);
    ASSERT_TRUE(c.model);
    // Scaled ×2 along x: 0.4 × 0.1 × 0.05 m of 1000 kg/m³.
    EXPECT_NEAR(c.model->bodies[0].mass, 2.0, 2.0 * kFloat);
}

TEST(SceneJson, MeshProblemsAreReportedAtTheShape) {
    SceneLoadResult r = parseScene(meshScene("missing.stl", R"("density":1000,)"), kData);
    EXPECT_FALSE(r.scene);
    ASSERT_FALSE(r.diagnostics.empty());
    EXPECT_EQ(r.diagnostics[0].where, "/parts/0/geometry/0/file");
    EXPECT_NE(r.diagnostics[0].message.find("cannot read mesh 'missing.stl'"), std::string::npos);

    r = parseScene(meshScene("open_square.obj", R"("density":1000,)"), kData);
    EXPECT_FALSE(r.scene);
    ASSERT_FALSE(r.diagnostics.empty());
    EXPECT_NE(r.diagnostics[0].message.find("does not enclose a volume"), std::string::npos);

    // An open mesh is fine for display when the mass is given.
    r = parseScene(meshScene("open_square.obj", R"("mass":1,"inertia":[1,1,1],)"), kData);
    EXPECT_TRUE(r.scene);
}

// A scene's mesh files are read before the scene (at once on the engine's threads): a file
// named by several shapes is read once and shared, one that cannot be read is reported once,
// where it is first named, and the scene is the same with one thread and with two.
TEST(SceneJson, MeshFilesNamedSeveralTimesAreReadOnceOnAnyThreads) {
    const auto shape = [](const char* file) {
        return std::string(R"({"type":"mesh","file":")") + file + R"("})";
    };
    const std::string scene =
        R"({"format":"motus-scene","version":1,"parts":[{"name":"a","density":1000,"geometry":[)" +
        shape("box.obj") + "," + shape("tetra.stl") +
        R"(]},{"name":"b","density":1000,"geometry":[)" + shape("./box.obj") + R"(]}]})";
    const int before = workerThreads();
    std::vector<std::shared_ptr<const TriangleMesh>> first;
    for (const int threads : {1, 2}) {
        setWorkerThreads(threads);
        const SceneLoadResult r = parseScene(scene, kData);
        ASSERT_TRUE(r.scene) << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
        const auto& a = r.scene->parts[0].shapes;
        const auto& b = r.scene->parts[1].shapes;
        ASSERT_EQ(a.size(), 2u);
        ASSERT_EQ(b.size(), 1u);
        EXPECT_EQ(a[0].mesh, b[0].mesh);  // (one file, one mesh)
        ASSERT_TRUE(a[0].mesh && a[1].mesh);
        if (first.empty()) {
            first = {a[0].mesh, a[1].mesh};
        } else {
            EXPECT_EQ(a[0].mesh->vertices, first[0]->vertices);
            EXPECT_EQ(a[1].mesh->triangles, first[1]->triangles);
        }
    }
    setWorkerThreads(before);

    const std::string missing =
        R"({"format":"motus-scene","version":1,"parts":[{"name":"a","density":1000,"geometry":[)" +
        shape("box.obj") + "," + shape("missing.stl") +
        R"(]},{"name":"b","density":1000,"geometry":[)" + shape("missing.stl") + R"(]}]})";
    const SceneLoadResult r = parseScene(missing, kData);
    EXPECT_FALSE(r.scene);
    int reported = 0;
    for (const Diagnostic& d : r.diagnostics)
        if (d.message.find("cannot read mesh 'missing.stl'") != std::string::npos) {
            ++reported;
            EXPECT_EQ(d.where, "/parts/0/geometry/1/file");
        }
    EXPECT_EQ(reported, 1);
}

// Hostile mesh files: each used to crash the process inside Assimp or take gigabytes.
const std::string kMeshes = MOTUS_SOURCE_DIR "/tests/data/meshes/";

// A Collada file whose single triangle sits `depth` nodes deep.
std::string deepColladaFile(int depth) {
    std::string nodes;
    for (int k = 0; k < depth; ++k) nodes += "<node>";
    nodes += "<instance_geometry url=\"#tri\"/>";
    for (int k = 0; k < depth; ++k) nodes += "</node>";
    std::ifstream in(kMeshes + "one_triangle.dae");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string placed = "<node id=\"root\"><instance_geometry url=\"#tri\"/></node>";
    text.replace(text.find(placed), placed.size(), nodes);
    const std::string path = ::testing::TempDir() + "deep_" + std::to_string(depth) + ".dae";
    std::ofstream(path) << text;
    return path;
}

TEST(MeshLoader, ReadsAColladaTriangle) {
    std::string error;
    const auto mesh = loadMesh(kMeshes + "one_triangle.dae", error);
    ASSERT_TRUE(mesh) << error;
    EXPECT_EQ(mesh->triangles.size(), 1u);
}

TEST(MeshLoader, RefusesAFaceNamingAVertexTheFileDoesNotHave) {
    std::string error;
    EXPECT_FALSE(loadMesh(kMeshes + "face_index_out_of_range.ply", error));
    EXPECT_NE(error.find("mIndices[2] is out of range"), std::string::npos) << error;
}

// A glTF mesh whose primitive names no positions (a misspelt "attributes" key): Assimp reads
// a mesh of no vertices, which the reader's child passed on with a null pointer to memcpy
// (undefined behaviour the mesh fuzzer found; the fuzz test over tests/fuzz/seeds-mesh holds
// it). Refused as a mesh with nothing to draw or weigh.
TEST(MeshLoader, RefusesAMeshWithNoVertices) {
    std::string error;
    EXPECT_FALSE(loadMesh(kMeshes + "mesh_without_vertices.gltf", error));
    EXPECT_FALSE(error.empty());
}

TEST(MeshLoader, RefusesAPlyHeaderWithoutItsEndBeforeTheReaderLoopsOnIt) {
    // Assimp's PLY reader looks for "end_header" without end: found by tests/fuzz/mesh_fuzzer.
    // The time bound only says "took longer": the file is refused, saying why, before that.
    MeshLimits limits;
    limits.process.seconds = 10.0;
    std::string error;
    EXPECT_FALSE(loadMesh(kMeshes + "ply_without_end_header.ply", error, limits));
    EXPECT_EQ(error, "its PLY header has no 'end_header' line: the file is malformed");
    // The same header with its end is read (a PLY file of another extension is told the same).
    std::ifstream in(kMeshes + "ply_without_end_header.ply");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    text.replace(text.find("end_hXeader"), 11, "end_header");
    const std::string path = ::testing::TempDir() + "ply_with_end_header.ply";
    std::ofstream(path) << text;
    const auto mesh = loadMesh(path, error, limits);
    ASSERT_TRUE(mesh) << error;
    EXPECT_EQ(mesh->triangles.size(), 1u);
}

TEST(MeshLoader, TellsAPlyFileAsTheReaderDoesByItsFirstThreeLettersInAnyCase) {
    // The fast mesh fuzzer (2026-11-28): "plyy" on the first line is a PLY file to Assimp, which
    // then looped on its header without end ("took longer than 120 s").
    MeshLimits limits;
    limits.process.seconds = 10.0;
    std::string error;
    EXPECT_FALSE(
        loadMesh(kMeshes + "ply_magic_then_letters_without_end_header.ply", error, limits));
    EXPECT_EQ(error, "its PLY header has no 'end_header' line: the file is malformed");
    // "PLY" in capitals, under another extension, is a PLY file too; and the end of the header
    // may follow spaces on its line, as Assimp reads it.
    const std::string path = ::testing::TempDir() + "capital_ply.obj";
    std::ofstream(path) << "PLY\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                           "property float y\nproperty float z\n";
    EXPECT_FALSE(loadMesh(path, error, limits));
    EXPECT_EQ(error, "its PLY header has no 'end_header' line: the file is malformed");
    const std::string complete = ::testing::TempDir() + "capital_ply.ply";
    std::filesystem::copy_file(path, complete, std::filesystem::copy_options::overwrite_existing);
    std::ofstream(complete, std::ios::app)
        << "element face 1\nproperty list uchar int vertex_indices\n  end_header\n"
           "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
    const auto mesh = loadMesh(complete, error, limits);
    ASSERT_TRUE(mesh) << error;
    EXPECT_EQ(mesh->triangles.size(), 1u);
}

TEST(MeshLoader, SurvivesAnInstanceLoopThatCrashesTheReader) {
    std::string error;
    EXPECT_FALSE(loadMesh(kMeshes + "instance_node_loop.dae", error));
    EXPECT_EQ(error.rfind("the mesh reader crashed (segmentation fault)", 0), 0u) << error;
}

TEST(MeshLoader, RefusesANodeTreeDeeperThanTheLimit) {
    std::string error;
    ASSERT_TRUE(loadMesh(deepColladaFile(900), error)) << error;
    EXPECT_FALSE(loadMesh(deepColladaFile(1500), error));
    EXPECT_EQ(error, "its node tree is deeper than the limit of 1000 levels");
    // Deep enough to overflow the stack inside Assimp's Collada importer.
    EXPECT_FALSE(loadMesh(deepColladaFile(20000), error));
    EXPECT_EQ(error.rfind("the mesh reader crashed", 0), 0u) << error;
}

TEST(MeshLoader, RefusesInstancedTrianglesBeyondTheLimitBeforeFlatteningThem) {
    // Ten instances of ten instances ... of one triangle: 10⁸ triangles in 3 KB. Assimp expands
    // the instances itself before it returns, so the reading process's memory bound stops it.
    MeshLimits limits;
    limits.process.memoryBytes = std::size_t{256} << 20;
    std::string error;
    EXPECT_FALSE(loadMesh(kMeshes + "instancing_bomb.dae", error, limits));
    EXPECT_EQ(error.rfind("the mesh reader ran out of its 256 MB memory bound", 0), 0u) << error;

    // Fewer levels fit in memory and are refused by the triangle count before they are merged.
    std::ifstream in(kMeshes + "instancing_bomb.dae");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    text.replace(text.find("#L8\"/></node></visual_scene>"), 3, "#L4");
    const std::string path = ::testing::TempDir() + "ten_thousand_instances.dae";
    std::ofstream(path) << text;
    limits.maxTriangles = 9999;
    EXPECT_FALSE(loadMesh(path, error, limits));
    EXPECT_EQ(error, "its nodes place more than the limit of 9999 triangles");
    limits.maxTriangles = 10000;
    const auto mesh = loadMesh(path, error, limits);
    ASSERT_TRUE(mesh) << error;
    EXPECT_EQ(mesh->triangles.size(), 10000u);
}

}  // namespace
}  // namespace engine::io
