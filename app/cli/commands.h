#pragma once
// motus-cli's commands, one a file (app/cli/<command>.cpp), each run with what its part of the
// command line says (app/cli/command_line.h) and returning the exit status (app/cli/main.cpp
// states the conventions).

#include <string>

#include "app/cli/command_line.h"

namespace engine {
struct SceneSpec;
}

namespace cli {

int runCheck(const std::string& path);
int runSimulate(const SimulateOptions& options);
// The run itself once its length is known: `spec` with the command line's settings applied.
int runSimulateFor(const SimulateOptions& options, engine::SceneSpec& spec);
int runKinematic(const KinematicCommandOptions& options, bool inverse);
int runStatics(const std::string& path, const std::string& out);
int runModes(const ModesOptions& options);
int runAssemble(const std::string& path, const std::string& out);
int runBatch(const BatchOptions& options);
int runFormat(const std::string& path, const std::string& out);
int runImport(const std::string& path, const std::string& out,
              const engine::io::RobotImportOptions& options,
              const engine::io::CadImportOptions& cad, bool cadJoints,
              const std::string& cadUpdate);
int runInfo(const std::string& path);
// In motus-render the renderer itself (render.cpp); in motus-cli a hand-over to motus-render
// (render_handover.cpp).
int runRender(const RenderOptions& options);

}  // namespace cli
