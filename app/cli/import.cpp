#include <filesystem>
#include <iostream>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "engine/import/cad_update.h"
#include "engine/import/robot_import.h"
#include "engine/import/step_import.h"
#include "engine/io/scene_json.h"

namespace cli {
namespace {

// Mesh files named relative to the folder `from`, renamed relative to `to` (the scene written
// elsewhere than it was read from), or by absolute path when `to` is empty (stdout's folder is
// not known).
void reanchorMeshes(engine::SceneSpec& scene, const std::filesystem::path& from,
                    const std::filesystem::path& to) {
    std::error_code ec;
    for (engine::Part& part : scene.parts)
        for (engine::Shape& shape : part.shapes)
            if (shape.type == engine::ShapeType::Mesh && !shape.meshFile.empty()) {
                const auto file = (from / shape.meshFile).lexically_normal();
                const auto relative = std::filesystem::relative(file, to, ec);
                if (to.empty())
                    shape.meshFile = file.string();
                else if (!ec && !relative.empty())
                    shape.meshFile = relative.string();
            }
}

// import --update: the scene `scenePath` built from the STEP file `path`, updated from the
// file as it is now (engine/import/cad_update.h) and written to `out`.
int updateFromCad(const std::string& path, const engine::io::CadImportResult& imported,
                  const std::string& scenePath, const std::string& out, bool cadJoints) {
    const engine::io::SceneLoadResult loaded = engine::io::loadSceneFile(scenePath);
    printDiagnostics(loaded.diagnostics, scenePath);
    if (!loaded.scene) return kExitInvalidInput;
    engine::SceneSpec scene = *loaded.scene;
    std::error_code ec;
    reanchorMeshes(scene, std::filesystem::absolute(scenePath, ec).parent_path(),
                   std::filesystem::absolute(out, ec).parent_path());
    const engine::io::CadUpdate update =
        engine::io::updateImportedScene(scene, *imported.scene, imported.suggestions);
    if (!update.ok) {
        printError("cannot read '" + path + "' again into it: " + update.error, scenePath);
        return kExitInvalidInput;
    }
    const engine::io::CadUpdateReport& r = update.report;
    auto list = [](const char* what, const std::vector<std::string>& names) {
        for (const std::string& name : names) std::cerr << "motus-cli: " << what << name << "\n";
    };
    list("updated: ", r.updated);
    list("added: ", r.added);
    list("not in the file, left as it was: ", r.missing);
    list("joint kept: ", r.jointsKept);
    list("joint moved: ", r.jointsRefitted);
    list("joint removed: ", r.jointsRemoved);
    list("note: ", r.notes);
    for (const engine::io::JointSuggestion& suggestion : update.suggestions) {
        std::string name;
        if (cadJoints) name = scene.joints[engine::io::addSuggestedJoint(scene, suggestion)].name;
        std::cerr << "motus-cli: " << (cadJoints ? "joined: " : "suggested: ")
                  << engine::jointTypeName(suggestion.type) << (name.empty() ? "" : " ") << name
                  << ": " << suggestion.reason << "\n";
    }
    return writeScene(scene, out);
}

}  // namespace

// `import` (and `import-urdf`): a robot description — URDF, MJCF or SDF, told by the file — as
// a Motus scene (stdout, or --out atomically).
int runImport(const std::string& path, const std::string& out,
              const engine::io::RobotImportOptions& options,
              const engine::io::CadImportOptions& cad, bool cadJoints,
              const std::string& cadUpdate) {
    if (!outputsAreSafe({{"--out", out}}, {path})) return kExitUsage;
    if (!cadUpdate.empty() && !engine::io::isCadFile(path)) {
        printError("--update reads a STEP assembly again into its scene: this is no STEP file",
                   path);
        return kExitUsage;
    }
    if (engine::io::isCadFile(path)) {
        // A CAD assembly's drawings are tessellations made now, in no file: written beside the
        // scene (NAME_meshes/), so the scene needs a file.
        if (out.empty()) {
            printError(
                "a CAD assembly's drawings are written as mesh files beside the scene: "
                "give the scene's file with --out",
                path);
            return kExitUsage;
        }
        const engine::io::CadImportResult imported = engine::io::importStepFile(path, cad);
        printDiagnostics(imported.diagnostics, path);
        if (!imported.scene) return kExitInvalidInput;
        const engine::io::CadImportStatistics& s = imported.statistics;
        std::cerr << "motus-cli: " << s.components << " components, " << s.solids << " solids, "
                  << s.faces << " faces: " << imported.scene->parts.size() - 1 << " parts, "
                  << s.triangles << " triangles drawn, in " << s.seconds << " s\n";
        if (!cadUpdate.empty()) return updateFromCad(path, imported, cadUpdate, out, cadJoints);
        // The joints the geometry suggests: listed, and added with --joints.
        engine::SceneSpec scene = *imported.scene;
        for (const engine::io::JointSuggestion& suggestion : imported.suggestions) {
            std::string name;
            if (cadJoints) {
                const std::size_t joint = engine::io::addSuggestedJoint(scene, suggestion);
                name = scene.joints[joint].name;
            }
            std::cerr << "motus-cli: " << (cadJoints ? "joined: " : "suggested: ")
                      << engine::jointTypeName(suggestion.type) << (name.empty() ? "" : " ") << name
                      << ": " << suggestion.reason << "\n";
        }
        return writeScene(scene, out);
    }
    const engine::io::RobotImportResult imported = engine::io::importRobotFile(path, options);
    printDiagnostics(imported.diagnostics, path);
    if (!imported.scene) return kExitInvalidInput;
    // Mesh files are named relative to the scene file: re-anchor them from the robot file's
    // folder to the scene's, or, on stdout (whose file and folder are not known), name them by
    // absolute path. Meshes in no file (an MJCF robot's, as MuJoCo compiled them) are written
    // beside the scene by saveSceneFile: they need --out.
    engine::SceneSpec scene = *imported.scene;
    if (out.empty() && engine::io::sceneHoldsMeshesInMemory(scene)) {
        printError(
            "the robot's meshes are in no file Motus can name (MuJoCo re-centres the "
            "meshes it compiles); they are written as files beside the scene: give the "
            "scene's file with --out",
            path);
        return kExitUsage;
    }
    std::error_code ec;
    reanchorMeshes(
        scene, std::filesystem::absolute(path, ec).parent_path(),
        out.empty() ? std::filesystem::path() : std::filesystem::absolute(out, ec).parent_path());
    return writeScene(scene, out);
}

}  // namespace cli
