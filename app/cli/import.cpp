#include <filesystem>
#include <iostream>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "engine/import/robot_import.h"
#include "engine/io/scene_json.h"

namespace cli {

// `import` (and `import-urdf`): a robot description — URDF, MJCF or SDF, told by the file — as
// a Motus scene (stdout, or --out atomically).
int runImport(const std::string& path, const std::string& out,
              const engine::io::RobotImportOptions& options,
              const engine::io::CadImportOptions& cad, bool cadJoints) {
    if (!outputsAreSafe({{"--out", out}}, {path})) return kExitUsage;
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
    const auto robotDir = std::filesystem::absolute(path, ec).parent_path();
    const auto outDir = std::filesystem::absolute(out.empty() ? "." : out, ec).parent_path();
    for (engine::Part& part : scene.parts)
        for (engine::Shape& shape : part.shapes)
            if (shape.type == engine::ShapeType::Mesh && !shape.meshFile.empty()) {
                const auto file = (robotDir / shape.meshFile).lexically_normal();
                const auto relative = std::filesystem::relative(file, outDir, ec);
                if (out.empty())
                    shape.meshFile = file.string();
                else if (!ec && !relative.empty())
                    shape.meshFile = relative.string();
            }
    return writeScene(scene, out);
}

}  // namespace cli
