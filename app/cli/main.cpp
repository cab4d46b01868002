// motus-cli: the headless front end. Links the engine only (no Qt).
//
// Conventions, shared by every subcommand:
//   * results go to stdout (or to the file named by an option);
//   * errors go to stderr, one per line, as "motus-cli: error: <what> (<where>)", where <where>
//     is a file and JSON pointer, a file, or "command line";
//   * exit status (scripts can tell the cases apart):
//       0  success
//       1  invalid input: a file that cannot be read or is not a valid scene (or URDF, run file),
//          or an output that cannot be written
//       2  command-line usage error
//       3  the mechanism cannot be assembled (its joints and motions cannot all hold at t = 0)
//       4  the run stopped on a numerical fault (the message gives the time and the element)
//       5  interrupted (SIGINT, SIGTERM or SIGHUP): every row computed so far is written
//   * output files are written through engine/io/output_file.h: a unique temporary renamed
//     over the target, a FIFO or device written in place, never an input overwritten; what
//     goes to stdout is checked once written (a full disk is an error, exit status 1).
//
// One command a file (app/cli/<command>.cpp, declared in commands.h), what they share in
// common.h, the command line in command_line.h; this file is the dispatch.

#include <cerrno>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include "app/cli/command_line.h"
#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "engine/solver/worker_pool.h"

namespace {

using cli::CommandLine;

struct CommandEntry {
    cli::Command command;
    int (*run)(const CommandLine&);
};

constexpr CommandEntry kCommands[] = {
    {cli::Command::Check, [](const CommandLine& l) { return cli::runCheck(l.scenePath); }},
    {cli::Command::Simulate, [](const CommandLine& l) { return cli::runSimulate(l.simulate); }},
    {cli::Command::Kinematics,
     [](const CommandLine& l) { return cli::runKinematic(l.kinematic, false); }},
    {cli::Command::Inverse,
     [](const CommandLine& l) { return cli::runKinematic(l.kinematic, true); }},
    {cli::Command::Statics,
     [](const CommandLine& l) { return cli::runStatics(l.staticsPath, l.staticsOut); }},
    {cli::Command::Modes, [](const CommandLine& l) { return cli::runModes(l.modes); }},
    {cli::Command::Assemble,
     [](const CommandLine& l) { return cli::runAssemble(l.assemblePath, l.assembleOut); }},
    {cli::Command::Batch, [](const CommandLine& l) { return cli::runBatch(l.batch); }},
    {cli::Command::Format,
     [](const CommandLine& l) { return cli::runFormat(l.formatPath, l.formatOut); }},
    {cli::Command::Import,
     [](const CommandLine& l) {
         return cli::runImport(l.urdfPath, l.urdfOut, l.import, l.cad, l.cadJoints, l.cadUpdate);
     }},
    {cli::Command::Info, [](const CommandLine& l) { return cli::runInfo(l.infoPath); }},
    {cli::Command::Render, [](const CommandLine& l) { return cli::runRender(l.render); }},
};

int runCommand(int argc, char** argv) {
    cli::gArgc = argc;
    cli::gArgv = argv;
    const CommandLine line = cli::parseCommandLine(argc, argv, std::cout, std::cerr);
    if (line.exitStatus) return *line.exitStatus;
    cli::gOverrides = line.overrides;
    if (line.threads > 0) engine::setWorkerThreads(line.threads);
    for (const CommandEntry& entry : kCommands)
        if (entry.command == line.command) return entry.run(line);
    return cli::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
    cli::releaseInterrupts();
    // No exception ends the program unexplained: what escapes a command is said and is an error.
    int code = cli::kExitInvalidInput;
    const std::string command = argc > 1 ? argv[1] : "motus-cli";
    try {
        code = runCommand(argc, argv);
    } catch (const std::bad_alloc&) {
        cli::printError("out of memory while running '" + command +
                            "': the input asks for more memory than this machine has",
                        command);
    } catch (const std::exception& e) {
        cli::printError("'" + command + "' stopped on an unexpected error: " + e.what(), command);
    }
    // What went to stdout is checked once all of it is written: on a full disk or a closed
    // output the loss shows only now (`import robot.urdf > robot.json`), and exit status 0
    // would say the output is there.
    const int earlier = errno;  // a failed write's cause, when nothing changed it since
    std::cout.flush();
    errno = 0;
    const bool flushed = std::fflush(stdout) == 0;
    if ((!flushed || std::ferror(stdout) || !std::cout) && !cli::gStdoutReported) {
        cli::printError(cli::stdoutFailure(errno != 0 ? errno : earlier), "stdout");
        if (code == 0) code = cli::kExitInvalidInput;
    }
    return code;
}