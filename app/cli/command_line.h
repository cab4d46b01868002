#pragma once
// motus-cli's command line: its subcommands and their options (CLI11), read into what each
// command needs, with the checks that need no file (numbers that must be positive, --set's
// PATH=VALUE). Apart from the commands (app/cli/main.cpp), so that the command line can be read
// without running any of them (tests/fuzz/cli_options_fuzzer.cpp).

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "engine/import/robot_import.h"
#include "engine/import/step_import.h"
#include "engine/io/scene_overrides.h"

namespace cli {

enum class Command {
    None,
    Check,
    Simulate,
    Kinematics,
    Inverse,
    Statics,
    Modes,
    Assemble,
    Batch,
    Format,
    Import,  // `import` and `import-urdf`
    Info,
    Render,
};

struct SimulateOptions {
    std::string scene;
    double duration = 0.0;
    double dt = 0.0;        // 0: the scene's step size
    double outputDt = 0.0;  // 0: the scene's output interval
    double maxStep = 0.0;   // 0: the scene's
    double rtol = 0.0;      // 0: the scene's
    double atol = 0.0;
    double projectionTolerance = 0.0;
    std::string integrator;
    std::string formulation;
    std::string out;
    std::string run;  // run file to write (scene + frames)
    int every = 1;
    double maxWallTime = 0.0;  // s; 0: no limit
};

struct KinematicCommandOptions {
    std::string scene;
    double duration = 0.0;
    double outputDt = 0.0;  // 0: the scene's output interval
    double dt = 0.0;        // 0: the scene's step size (the analysis solves at least this often)
    std::string out;
};

struct ModesOptions {
    std::string scene;
    bool atEquilibrium = false;
    double at = -1.0;      // s: about the pose the run reaches then (frozen); < 0: the scene's pose
    std::string out;       // CSV of the modes
    std::string matrices;  // JSON of the linearised equations
};

struct BatchOptions {
    std::string scene;
    std::string cases;   // CSV: a header of override paths, a row of values per case
    std::string outDir;  // one result file per case, and summary.csv
    std::string analysis = "simulate";
    double duration = 0.0;
    double outputDt = 0.0;
    int jobs = 0;                        // cases at a time; 0: one per core
    std::vector<std::string> summarize;  // channels summarised per case in summary.csv
    std::string slice;                   // "K/N": only the K-th of N slices of the cases
    std::string emitSlurm;               // a Slurm job-array script to write instead of running
    int slices = 0;                      // its tasks; 0: one per case, at most 100
    bool merge = false;                  // join the slices' summaries in outDir
};

struct RenderOptions {
    std::string run;  // a run file, or a scene (.json) run first for `duration`
    double duration = 0.0;
    std::string out;
    std::string size = "1280x720";
    int fps = 30;
    double from = 0.0;
    double to = -1.0;  // s; negative: the end of the run
    std::string view = "isometric";
};

// What the command line asks for: the command and its options (the fields of the other
// commands keep their defaults).
struct CommandLine {
    Command command = Command::None;
    // Set when the program ends here without running a command: 0 once the help or the version
    // is printed, 2 (a usage error) once the error is said.
    std::optional<int> exitStatus;
    std::string scenePath;  // check
    std::string infoPath;
    std::string staticsPath, staticsOut;
    std::string assemblePath, assembleOut;
    std::string formatPath, formatOut;
    std::string urdfPath, urdfOut;  // import, import-urdf: the description and --out
    SimulateOptions simulate;
    KinematicCommandOptions kinematic;  // kinematics, inverse
    ModesOptions modes;
    BatchOptions batch;
    RenderOptions render;
    engine::io::RobotImportOptions import;
    engine::io::CadImportOptions cad;  // import of a CAD assembly (.step, .stp)
    bool cadJoints = false;            // import --joints: the suggested joints accepted
    std::string cadUpdate;             // import --update: the scene read again from the file
    std::vector<engine::io::SceneOverride> overrides;  // --set, in order
    // --threads: the engine's threads for simulate, batch and render (0: not given — every
    // core, or MOTUS_THREADS); batch's cases share them.
    int threads = 0;
};

// Reads `argv` (argv[0] the program). The help and the version go to `out`; errors go to `err`
// as "motus-cli: error: <what> (command line)" with a pointer to --help.
CommandLine parseCommandLine(int argc, const char* const* argv, std::ostream& out,
                             std::ostream& err);

}  // namespace cli
