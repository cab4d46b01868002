// motus-cli: the headless front end. Links the engine only (no Qt).
//
// Conventions, shared by every subcommand:
//   * results go to stdout (or to the file named by an option);
//   * errors go to stderr, one per line, as "motus-cli: error: <what> (<where>)", where <where>
//     is a file and JSON pointer, a file, or "command line";
//   * exit status 0 on success, 1 when the input is invalid or an operation fails,
//     2 for command-line usage errors.

#include <cstdio>
#include <iostream>
#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "engine/io/scene_json.h"
#include "engine/version.h"

namespace {

constexpr int kExitInvalidInput = 1;
constexpr int kExitUsage = 2;

void printError(const std::string& what, const std::string& where) {
    std::cerr << "motus-cli: error: " << what << " (" << where << ")\n";
}

void printDiagnostics(const engine::Diagnostics& diagnostics, const std::string& file) {
    for (const engine::Diagnostic& d : diagnostics) {
        const std::string where = d.where.empty() ? file : file + ":" + d.where;
        if (d.severity == engine::Severity::Error)
            printError(d.message, where);
        else
            std::cerr << "motus-cli: warning: " << d.message << " (" << where << ")\n";
    }
}

// `check <scene>`: read and validate a scene, print what it contains.
int runCheck(const std::string& path) {
    const engine::io::SceneLoadResult result = engine::io::loadSceneFile(path);
    printDiagnostics(result.diagnostics, path);
    if (!result.scene) return kExitInvalidInput;

    const engine::SceneSpec& scene = *result.scene;
    std::size_t grounds = 0;
    for (const engine::Part& part : scene.parts) grounds += part.ground ? 1 : 0;
    std::map<std::string, int> jointsByType;
    for (const engine::Joint& joint : scene.joints)
        ++jointsByType[std::string(engine::jointTypeName(joint.type))];

    std::cout << "scene:   " << (scene.name.empty() ? "(unnamed)" : scene.name) << "\n"
              << "file:    " << path << "\n"
              << "parts:   " << scene.parts.size() << " (" << grounds << " ground)\n"
              << "markers: " << scene.markerCount() << "\n"
              << "joints:  " << scene.joints.size();
    if (!jointsByType.empty()) {
        std::cout << " (";
        bool first = true;
        for (const auto& [type, count] : jointsByType) {
            std::cout << (first ? "" : ", ") << count << " " << type;
            first = false;
        }
        std::cout << ")";
    }
    std::cout << "\nstatus:  valid\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Motus: rigid multibody mechanism simulator (headless).", "motus-cli"};
    app.set_version_flag("--version", "motus-cli " + std::string(engine::versionString()));
    app.require_subcommand(1);
    app.footer(
        "Errors are printed as 'motus-cli: error: <what> (<where>)'; exit status 1 for "
        "invalid input, 2 for usage errors.");

    std::string scenePath;
    CLI::App* check =
        app.add_subcommand("check", "Read and validate a scene file; print a summary.");
    check->add_option("scene", scenePath, "Scene file (.json)")->required();

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        printError(e.what(), "command line");
        std::cerr << "Run 'motus-cli --help' for usage.\n";
        return kExitUsage;
    }

    if (check->parsed()) return runCheck(scenePath);
    return kExitUsage;
}
