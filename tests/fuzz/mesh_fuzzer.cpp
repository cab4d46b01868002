// libFuzzer target for mesh files: any input must be read or refused without a crash, a hang,
// a leak or undefined behaviour in Motus (the build adds AddressSanitizer and UBSan), and a mesh
// that is read goes where the engine takes meshes: its volume and closedness, mass properties
// from its geometry (density, and the robot importers' inertia from geometry with its fix-ups),
// a scene with the mesh as the ground's shape (Bullet's triangle tree) and as a moving part's
// (its convex hull), compiled, and the two parts' contacts found.
//
// The first byte picks the format (the file's extension, which is how Assimp chooses its
// importer); the rest is the file. The seeds (tests/fuzz/seeds-mesh) start with '0' (.obj) to
// '7' (.3ds). The reader runs as Motus runs it, in a forked child bounded
// in memory and time (engine/io/mesh_loader.h), with tighter bounds than a user's so that it is
// stopped before libFuzzer's -timeout and -rss_limit_mb: 5 s, 512 MB, 20,000 triangles placed.
// Assimp is a system library, not instrumented: its crashes show here as refused files.

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/contact/collision_world.h"
#include "engine/import/inertia_fixup.h"
#include "engine/io/child_process.h"
#include "engine/io/mesh_loader.h"
#include "engine/model/mass_properties.h"
#include "engine/model/model.h"
#include "tests/fuzz/forked_readers.h"
#include "tests/fuzz/input_folder.h"

#ifdef MOTUS_FUZZ_READERS_IN_PROCESS
// The fast variant runs the reader in the fuzzing process: what the reader leaks (Assimp and
// MuJoCo leak on some malformed files; in a child the leak ends with it) is the reader's.
extern "C" const char* __lsan_default_suppressions() {
    return "leak:libassimp.so\nleak:libmujoco.so\n";
}
#endif

namespace {

// The formats of the first byte (modulo their number), by extension.
constexpr std::array<const char*, 8> kFormats = {".obj", ".stl",  ".ply", ".dae",
                                                 ".off", ".gltf", ".glb", ".3ds"};

engine::Shape meshShape(const std::shared_ptr<const engine::TriangleMesh>& mesh) {
    engine::Shape s;
    s.type = engine::ShapeType::Mesh;
    s.meshFile = "input";
    s.mesh = mesh;
    return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
#ifdef MOTUS_FUZZ_READERS_IN_PROCESS
    static const bool inProcess = (engine::io::runReadersInProcessForFuzzing(), true);
    (void)inProcess;
#else
    fuzz::defaultCrashHandlingInForkedChildren();
#endif
    static const fuzz::InputFolder folder("mesh", {});
    const std::string path = folder.write(
        std::string("input") + kFormats[data[0] % kFormats.size()], data + 1, size - 1);
    engine::io::MeshLimits limits;
    limits.maxTriangles = 20'000;
    limits.process.memoryBytes = std::size_t{512} << 20;
    limits.process.seconds = 5.0;
    std::string error;
    const std::shared_ptr<const engine::TriangleMesh> mesh =
        engine::io::loadMesh(path, error, limits);
    if (!mesh) {
        if (error.empty()) std::abort();  // refused without a reason
        return 0;
    }

    (void)mesh->isClosed();
    (void)mesh->signedVolume();
    engine::MassProperties props = engine::meshMassProperties(*mesh, engine::Vec3(1, -2, 0.5), 1.0);
    engine::Diagnostics fixes;
    if (std::isfinite(props.mass) && props.mass > 0.0)
        (void)engine::io::fixInertia(props, "link 'input'", {}, fixes);

    engine::SceneSpec spec;
    engine::Part ground;
    ground.id = spec.newId();
    ground.name = "ground";
    ground.ground = true;
    ground.shapes.push_back(meshShape(mesh));
    engine::Part body;
    body.id = spec.newId();
    body.name = "body";
    body.density = 1000.0;
    body.X_WP.p = engine::Vec3(0.0, 0.0, 0.01);
    body.shapes.push_back(meshShape(mesh));
    spec.parts = {ground, body};
    spec.contact.enabled = true;
    const engine::CompileResult compiled = engine::compile(spec);
    engine::contact::CollisionWorld world(spec);
    world.setPartPose(0, spec.parts[0].X_WP);
    world.setPartPose(1, spec.parts[1].X_WP);
    (void)world.findContacts(spec.contact.margin);
    (void)compiled;
    return 0;
}
