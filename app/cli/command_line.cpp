#include "app/cli/command_line.h"

#include <cmath>
#include <ostream>
#include <utility>

#include <CLI/CLI.hpp>

#include "engine/version.h"

namespace cli {
namespace {

constexpr int kExitUsage = 2;

void usageError(std::ostream& err, const std::string& what) {
    err << "motus-cli: error: " << what << " (command line)\n";
}

// Option checks that say what is wrong in words (CLI11's own print the whole range of a double).
const CLI::Validator kPositive(
    [](const std::string& text) {
        double v = 0.0;
        return CLI::detail::lexical_cast(text, v) && std::isfinite(v) && v > 0.0
                   ? std::string()
                   : "must be a positive number, got '" + text + "'";
    },
    "POSITIVE");
const CLI::Validator kNonNegative(
    [](const std::string& text) {
        double v = 0.0;
        return CLI::detail::lexical_cast(text, v) && std::isfinite(v) && v >= 0.0
                   ? std::string()
                   : "must be zero or a positive number, got '" + text + "'";
    },
    "NON-NEGATIVE");

const CLI::Validator kThreadCount(
    [](const std::string& text) {
        int n = 0;
        return CLI::detail::lexical_cast(text, n) && n >= 1 && n <= 256
                   ? std::string()
                   : "must be a whole number from 1 to 256, got '" + text + "'";
    },
    "1..256");

// An output of text named '-' is stdout, as for most command-line tools (it wrote a file named
// '-' in the working folder).
const CLI::Validator kDashIsStdout(
    [](std::string& path) {
        if (path == "-") path.clear();
        return std::string();
    },
    "");

}  // namespace

CommandLine parseCommandLine(int argc, const char* const* argv, std::ostream& out,
                             std::ostream& err) {
    CommandLine line;
    CLI::App app{"Motus: rigid multibody mechanism simulator (headless).", "motus-cli"};
    app.set_version_flag("--version", "motus-cli " + std::string(engine::versionString()));
    app.require_subcommand(1);
    app.footer(
        "Errors are printed as 'motus-cli: error: <what> (<where>)'; exit status 1 for "
        "invalid input, 2 for usage errors.");

    std::string& scenePath = line.scenePath;
    CLI::App* check =
        app.add_subcommand("check", "Read and validate a scene file; print a summary.");
    check->add_option("scene", scenePath, "Scene file (.json)")->required();

    SimulateOptions& sim = line.simulate;
    CLI::App* simulate = app.add_subcommand(
        "simulate", "Run forward dynamics and write the results as CSV (stdout or --out).");
    simulate->add_option("scene", sim.scene, "Scene file (.json)")->required();
    simulate
        ->add_option("--duration", sim.duration,
                     "Simulated time [s]; default: the scene's end time (settings.endTime)")
        ->check(kPositive);
    simulate
        ->add_option(
            "--dt", sim.dt,
            "Step size [s] of the fixed-step integrators (rk4, symplecticEuler, implicitEuler, "
            "trapezoidal, "
            "timeStepping); also the output interval unless --output-dt or the scene sets one; "
            "default: the scene's")
        ->check(kPositive);
    simulate
        ->add_option(
            "--output-dt", sim.outputDt,
            "Time between output rows [s]; fixed-step integrators need a whole number of steps; "
            "dopri45 interpolates, so its solution does not depend on it (default: the scene's)")
        ->check(kPositive);
    simulate
        ->add_option("--max-step", sim.maxStep,
                     "Largest step of dopri45 [s] (default: the scene's; none)")
        ->check(kPositive);
    simulate
        ->add_option("--rtol", sim.rtol,
                     "Relative tolerance of dopri45 per step (default: the scene's)")
        ->check(kPositive);
    simulate
        ->add_option("--atol", sim.atol,
                     "Absolute tolerance of dopri45 per step (default: the scene's)")
        ->check(kPositive);
    simulate
        ->add_option(
            "--projection-tolerance", sim.projectionTolerance,
            "Largest joint gap [m] and angular error [rad] after every step (default: the scene's)")
        ->check(kPositive);
    simulate->add_option(
        "--integrator", sim.integrator,
        "symplecticEuler, rk4, dopri45, implicitEuler, trapezoidal or timeStepping (default: the "
        "scene's)");
    simulate->add_option("--formulation", sim.formulation,
                         "auto, recursive (joint coordinates) or maximal (default: the scene's)");
    simulate->add_option("--out", sim.out, "CSV file to write (default, or -: stdout)")
        ->transform(kDashIsStdout);
    simulate->add_option("--every", sim.every, "Write every K-th output (default 1)")
        ->check(kPositive);
    simulate
        ->add_option(
            "--max-wall-time", sim.maxWallTime,
            "Stop after this many seconds of wall-clock time (exit status 4), keeping every row")
        ->check(kNonNegative);
    simulate->add_option("--run", sim.run,
                         "Also save the whole run (scene + frames) to this .motusrun file, frame "
                         "by frame as it runs");

    KinematicCommandOptions& kin = line.kinematic;
    CLI::App* kinematics = app.add_subcommand(
        "kinematics",
        "Kinematic analysis of a fully driven mechanism: positions, velocities and "
        "accelerations from the constraints alone, as CSV (stdout or --out); stops at a "
        "lock-up, saying when and where.");
    CLI::App* inverseDynamics = app.add_subcommand(
        "inverse",
        "Inverse dynamics of a fully driven mechanism: the kinematic analysis plus every joint's "
        "reaction and every motion's effort and power, as CSV (stdout or --out).");
    for (CLI::App* command : {kinematics, inverseDynamics}) {
        command->add_option("scene", kin.scene, "Scene file (.json)")->required();
        command->add_option("--duration", kin.duration, "Analysed time [s]")
            ->required()
            ->check(kPositive);
        command
            ->add_option("--output-dt", kin.outputDt,
                         "Time between output rows [s] (default: the scene's output interval)")
            ->check(kPositive);
        command
            ->add_option("--dt", kin.dt,
                         "Solve at least this often between outputs [s] (default: the scene's "
                         "step size)")
            ->check(kPositive);
        command->add_option("--out", kin.out, "CSV file to write (default, or -: stdout)")
            ->transform(kDashIsStdout);
    }

    std::string &staticsPath = line.staticsPath, &staticsOut = line.staticsOut;
    CLI::App* statics = app.add_subcommand(
        "statics",
        "Static equilibrium nearest the scene's pose (stable or not), as one CSV row with the "
        "reactions there; its stability on stderr.");
    statics->add_option("scene", staticsPath, "Scene file (.json)")->required();
    statics->add_option("--out", staticsOut, "CSV file to write (default, or -: stdout)")
        ->transform(kDashIsStdout);

    ModesOptions& modesOptions = line.modes;
    CLI::App* modesCommand = app.add_subcommand(
        "modes",
        "Natural frequencies, damping ratios and mode shapes about the scene's pose, as CSV; "
        "--matrices writes the linearised equations.");
    modesCommand->add_option("scene", modesOptions.scene, "Scene file (.json)")->required();
    modesCommand->add_flag("--equilibrium", modesOptions.atEquilibrium,
                           "About the stable equilibrium the mechanism settles in from its pose");
    modesCommand
        ->add_option("--at", modesOptions.at,
                     "About the pose a run reaches at this time [s], frozen there (its velocities "
                     "are not part of the linearisation)")
        ->check(kNonNegative);
    modesCommand->add_option("--out", modesOptions.out, "CSV file to write (default, or -: stdout)")
        ->transform(kDashIsStdout);
    modesCommand->add_option("--matrices", modesOptions.matrices,
                             "Also write the linearised equations z'' + C z' + K z = f in minimal "
                             "coordinates (N, K, C, f) to this JSON file");
    modesCommand->get_option("--at")->excludes(modesCommand->get_option("--equilibrium"));

    std::string &assemblePath = line.assemblePath, &assembleOut = line.assembleOut;
    CLI::App* assembleCommand = app.add_subcommand(
        "assemble",
        "Move the parts, as little as possible, to where every joint and motion holds and write "
        "the scene; explain a mechanism that cannot close (which joint, by how much, the loop).");
    assembleCommand->add_option("scene", assemblePath, "Scene file (.json)")->required();
    assembleCommand->add_option("--out", assembleOut, "Scene file to write (default, or -: stdout)")
        ->transform(kDashIsStdout);

    BatchOptions& batchOptions = line.batch;
    CLI::App* batch = app.add_subcommand(
        "batch",
        "A parameter study: each row of a cases file sets the scene values its header names "
        "(paths as --set takes them, or a design variable's name) and runs the analysis, one CSV "
        "per case in --out-dir, with summary.csv listing each case's values, outcome and "
        "summarised results; the cases run on every core.");
    batch->add_option("scene", batchOptions.scene, "Scene file (.json)");
    batch->add_option("--cases", batchOptions.cases,
                      "CSV file: a header of scene paths (an optional first column 'case' names "
                      "the cases), then a row of values per case");
    batch->add_option("--out-dir", batchOptions.outDir, "Folder for the results")->required();
    batch->add_option("--analysis", batchOptions.analysis,
                      "simulate (default), kinematics, inverse, statics or modes");
    batch->add_option("--duration", batchOptions.duration, "Simulated time [s] (timed analyses)")
        ->check(kPositive);
    batch->add_option("--output-dt", batchOptions.outputDt, "Time between output rows [s]")
        ->check(kPositive);
    batch
        ->add_option("--jobs", batchOptions.jobs,
                     "Cases run at a time, each in a program of its own (default: one per core)")
        ->check(CLI::Range(1, 1024));
    batch->add_option("--slice", batchOptions.slice,
                      "K/N: run only the K-th (from 0) of N contiguous slices of the cases, its "
                      "summary in summary.slice-K-of-N.csv (a cluster's task; --merge joins them)");
    batch->add_option("--emit-slurm", batchOptions.emitSlurm,
                      "Write a Slurm script that runs the study as a job array of --slices "
                      "slices and merges them (bash FILE submits it) instead of running it");
    batch
        ->add_option("--slices", batchOptions.slices,
                     "With --emit-slurm: the array's tasks (default: one per case, at most 100)")
        ->check(CLI::Range(1, 100000));
    batch->add_flag("--merge", batchOptions.merge,
                    "Join the slices' summaries in --out-dir into summary.csv, in the cases' "
                    "order, naming slices that are missing");
    batch->add_option("--summarize", batchOptions.summarize,
                      "Channels to summarise per case in summary.csv (repeatable, or separated "
                      "by commas): their min, max, peak (largest magnitude) and final value; "
                      "NAME.|F| is the length of NAME.Fx, NAME.Fy, NAME.Fz");

    std::string &formatPath = line.formatPath, &formatOut = line.formatOut;
    CLI::App* format = app.add_subcommand("format",
                                          "Rewrite a scene in Motus's documented form (exact "
                                          "numbers, quaternions, defaults left out).");
    format->add_option("scene", formatPath, "Scene file (.json)")->required();
    format->add_option("--out", formatOut, "Write here (atomically) instead of stdout (-: stdout)")
        ->transform(kDashIsStdout);

    std::string &urdfPath = line.urdfPath, &urdfOut = line.urdfOut;
    engine::io::RobotImportOptions& importOptions = line.import;
    // The options of `import` and `import-urdf`.
    auto addImportOptions = [&](CLI::App* command) {
        command
            ->add_option("--out", urdfOut,
                         "Write the scene here (atomically) instead of stdout; meshes are "
                         "referenced relative to the scene file (-: stdout)")
            ->transform(kDashIsStdout);
        command->add_flag("--strict", importOptions.strict,
                          "Refuse inertia data that is degenerate or physically inconsistent "
                          "instead of fixing it with a warning per link");
        command->add_option("--package-path", importOptions.packagePath,
                            "Folder searched for package://NAME/… and model://NAME/… "
                            "(repeatable; then ROS_PACKAGE_PATH, then the folders above the file)");
        command->add_flag("--inertia-from-geometry", importOptions.inertiaFromGeometry,
                          "Compute every link's centre of mass and inertia from its collision "
                          "geometry (visual when it has none), keeping its mass (URDF, SDF)");
        command->add_flag("--fixed-base", importOptions.fixedBase,
                          "Weld the root link to the ground (a robot arm bolted down)");
    };
    CLI::App* importRobot = app.add_subcommand(
        "import",
        "Convert a robot description or a CAD assembly into a Motus scene: URDF (.urdf), MJCF "
        "(.xml, .mjcf: MuJoCo), SDF (.sdf, .world: Gazebo) or STEP (.step, .stp: one part per "
        "component, exact mass properties), told by the file.");
    importRobot->add_option("file", urdfPath, "Robot description or STEP assembly")->required();
    addImportOptions(importRobot);
    engine::io::CadImportOptions& cad = line.cad;
    importRobot
        ->add_option("--density", cad.defaultDensity,
                     "STEP: density of solids whose file gives no material density [kg/m³] "
                     "(default 7850, steel)")
        ->check(CLI::PositiveNumber);
    importRobot->add_flag_function(
        "--per-solid", [&cad](std::int64_t) { cad.grouping = engine::io::CadGrouping::Solid; },
        "STEP: one part per solid (default: one per component)");
    importRobot->add_option("--rigid", cad.rigidAssemblies,
                            "STEP: keep this sub-assembly rigid as one part, by its name "
                            "(repeatable)");
    importRobot->add_option("--ground", cad.groundComponent,
                            "STEP: the component that becomes the ground part (fixed), by name");
    importRobot->add_flag("--joints", line.cadJoints,
                          "STEP: add every joint the geometry suggests (pins in holes, balls in "
                          "sockets, flat faces); without it they are listed only");
    importRobot
        ->add_option_function<double>(
            "--reader-memory",
            [&cad](double megabytes) {
                cad.readerLimits.memoryBytes = static_cast<std::size_t>(megabytes * 1048576.0);
                cad.limitsFromFileSize = false;
            },
            "STEP: the memory the reader may take [MB] (default: 16 times the file's size and "
            "1 GB more, at least 2048, at most three quarters of the machine's)")
        ->check(CLI::PositiveNumber);
    importRobot->add_option(
        "--update", line.cadUpdate,
        "STEP: read a changed assembly again into the scene built from it (this scene file): "
        "parts of the same names take the file's geometry, mass and placement, joints that "
        "still fit are kept, those whose pins moved follow them, others are removed (each "
        "listed); the result goes to --out");
    importRobot
        ->add_option("--tolerance", cad.linearDeflection,
                     "STEP: the drawing's tessellation, the largest distance of a triangle "
                     "from the surface [m] (default: 0.2 % of each part's size)")
        ->check(CLI::PositiveNumber);
    CLI::App* importUrdf =
        app.add_subcommand("import-urdf", "Convert a URDF robot description into a Motus scene.");
    importUrdf->add_option("urdf", urdfPath, "URDF file")->required();
    addImportOptions(importUrdf);

    std::string& infoPath = line.infoPath;
    CLI::App* info = app.add_subcommand("info",
                                        "Print the mechanism's parts, joints, degrees of freedom "
                                        "and redundant constraints as JSON.");
    info->add_option("scene", infoPath, "Scene file (.json)")->required();

    RenderOptions& renderOptions = line.render;
    CLI::App* render = app.add_subcommand(
        "render",
        "Render a recorded run (.motusrun, or a scene run for --duration) as a video, MP4 "
        "(H.264) or WebM (VP9), off screen as the GUI's 3D view draws it; needs an X display "
        "(xvfb-run).");
    render
        ->add_option("run", renderOptions.run,
                     "Run file (.motusrun), or a scene (.json) run for --duration first")
        ->required();
    render
        ->add_option("--duration", renderOptions.duration,
                     "With a scene: simulated time [s] to run and film (as simulate runs it)")
        ->check(kPositive);
    render->add_option("--out", renderOptions.out, "Video file to write: .mp4 or .webm")
        ->required();
    render->add_option("--size", renderOptions.size,
                       "Picture size WIDTHxHEIGHT in pixels, both even (default 1280x720)");
    render->add_option("--fps", renderOptions.fps, "Frames per second (default 30)")
        ->check(CLI::Range(1, 240));
    render
        ->add_option("--from", renderOptions.from,
                     "Start at this time of the run [s] (default: its start)")
        ->check(kNonNegative);
    render
        ->add_option("--to", renderOptions.to,
                     "End at this time of the run [s], included (default: its end)")
        ->check(kNonNegative);
    render->add_option("--view", renderOptions.view,
                       "isometric (default), front, back, left, right, top or bottom; the "
                       "camera frames the mechanism over the whole video");

    // --set PATH=VALUE on every command that reads a scene (engine/io/scene_overrides.h).
    std::vector<std::string> overrides;
    for (CLI::App* command : {check, simulate, kinematics, inverseDynamics, statics, modesCommand,
                              assembleCommand, format, info, render})
        command->add_option("--set", overrides,
                            "Set a scene value before reading it, PATH=VALUE (repeatable): a "
                            "JSON pointer whose array steps may be names, e.g. "
                            "/parts/crank/mass=2 or motions.drive.expression=720d*time");

    // --threads N on every command that runs a simulation: the results are the same on any
    // number, bit for bit; only the time changes.
    for (CLI::App* command : {simulate, batch, render})
        command
            ->add_option("--threads", line.threads,
                         "Engine threads to use (default: one per core, or MOTUS_THREADS); the "
                         "results are the same on any number")
            ->check(kThreadCount);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        line.exitStatus = app.exit(e, out, err);
        return line;
    } catch (const CLI::CallForAllHelp& e) {
        line.exitStatus = app.exit(e, out, err);
        return line;
    } catch (const CLI::CallForVersion& e) {
        line.exitStatus = app.exit(e, out, err);
        return line;
    } catch (const CLI::ParseError& e) {
        usageError(err, e.what());
        err << "Run 'motus-cli --help' for usage.\n";
        line.exitStatus = kExitUsage;
        return line;
    }

    for (const std::string& text : overrides) {
        engine::io::SceneOverride o;
        std::string error;
        if (!engine::io::parseOverride(text, o, error)) {
            usageError(err, error);
            line.exitStatus = kExitUsage;
            return line;
        }
        line.overrides.push_back(o);
    }
    const std::pair<CLI::App*, Command> commands[] = {
        {batch, Command::Batch},
        {check, Command::Check},
        {simulate, Command::Simulate},
        {info, Command::Info},
        {kinematics, Command::Kinematics},
        {statics, Command::Statics},
        {modesCommand, Command::Modes},
        {inverseDynamics, Command::Inverse},
        {assembleCommand, Command::Assemble},
        {format, Command::Format},
        {importUrdf, Command::Import},
        {importRobot, Command::Import},
        {render, Command::Render},
    };
    for (const auto& [command, name] : commands)
        if (command->parsed()) {
            line.command = name;
            break;
        }
    if (line.command == Command::None) line.exitStatus = kExitUsage;  // require_subcommand(1)
    return line;
}

}  // namespace cli
