#pragma once
// What motus-cli's commands share (app/cli/main.cpp states the conventions): the exit
// statuses, errors and warnings in the program's form, stdout's failures, the outputs checked
// against the inputs, Ctrl+C during a run, and scenes read with the command line's --set.

#include <csignal>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "engine/dynamics/status.h"
#include "engine/io/scene_json.h"
#include "engine/io/scene_overrides.h"
#include "engine/model/diagnostic.h"

namespace engine {
struct Model;
struct SolverSettings;
namespace io {
class OutputFile;
}
}  // namespace engine

namespace cli {

inline constexpr int kExitInvalidInput = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitCannotAssemble = 3;  // a failure with cannotAssemble(status)
inline constexpr int kExitRunStopped = 4;
inline constexpr int kExitInterrupted = 5;

// Whether a failure is the mechanism's assembly (exit status kExitCannotAssemble), by its cause,
// never by its words.
inline bool cannotAssemble(const engine::Status& status) {
    return status.cause == engine::Cause::CannotAssemble ||
           status.cause == engine::Cause::LoopCannotClose;
}

// The command line as given (render hands it to the renderer's program unchanged).
extern int gArgc;
extern char** gArgv;

// --set PATH=VALUE overrides of the command line (engine/io/scene_overrides.h), applied to
// every scene a command reads; batch sets them case by case.
extern std::vector<engine::io::SceneOverride> gOverrides;

// Files read by the command beyond the scene it names (batch's cases file): no output may be
// one of them.
extern std::vector<std::string> gInputs;

// SIGINT / SIGTERM / SIGHUP during a run (between catchInterrupts() and releaseInterrupts()):
// `interrupted` is set, the run stops at its next poll, what was computed is kept. At any other
// time they end the process as they would, but first remove the temporaries of outputs not yet
// complete (their targets are untouched).
extern volatile std::sig_atomic_t interrupted;
void catchInterrupts();
void releaseInterrupts();

// "motus-cli: error: <what> (<where>)" on stderr.
void printError(const std::string& what, const std::string& where);
// A formulation asked for that the mechanism cannot have (engine::chooseFormulation): said as
// an error where it was asked — the command line's --formulation when `onCommandLine`, else the
// scene's /settings/formulation in `path` — and true (the command exits kExitInvalidInput).
bool formulationRefused(const engine::Model& model, const std::string& path, bool onCommandLine);
// The same for a start the formulation refused (engine::Cause::FormulationRefused: joint
// coordinates at a singular position of the loops): said where it was asked, and true.
bool formulationRefusedAtStart(const engine::Status& status, const std::string& path,
                               bool onCommandLine);
// Each diagnostic as an error or a warning, where = file[:JSON pointer].
void printDiagnostics(const engine::Diagnostics& diagnostics, const std::string& file);

// Why a write to stdout failed, from the errno it left (`error`).
std::string stdoutFailure(int error);
// Called where a write to stdout is seen to have failed: keeps its cause.
void noteStdoutFailure();
// Says that stdout could not be written, with the first failure's cause.
void printStdoutError();
// Set once an error about stdout was printed (main() then does not print it again).
extern bool gStdoutReported;

// Called once a command's results are computed, before they are made durable in their file
// (fsync, rename): a batch starts its next case meanwhile (batch.cpp). Null: nobody to tell.
extern void (*gResultsComputed)();

// Refuses, before any work, an output that is the same file as an input (a CSV written over
// the scene it came from), or two outputs that are one file. `outputs`: option and path.
bool outputsAreSafe(const std::vector<std::pair<std::string, std::string>>& outputs,
                    std::vector<std::string> inputs);

// The scene at `path` with the command line's --set applied.
engine::io::SceneLoadResult loadScene(const std::string& path);
// Reads and compiles a scene (its solver settings replaced by `overrides` when given); prints
// every problem. Null on failure.
std::shared_ptr<const engine::Model> loadModel(const std::string& path,
                                               const engine::SolverSettings* overrides,
                                               engine::Diagnostics* diagnosticsOut = nullptr);

// Loads and compiles a scene for the static analyses (statics, modes); null after printing
// why, `exitCode` then the status to end with.
std::shared_ptr<const engine::Model> loadForStatics(const std::string& path, int& exitCode,
                                                    engine::Analysis analysis);

// Writes `text` to `out` atomically (engine/io/output_file.h), or to stdout: 0 or
// kExitInvalidInput, the error said.
int writeText(const std::string& text, const std::string& out);

// Writes `scene` as a scene file to `out` (engine/io/scene_json.h: atomically, its meshes
// beside it), or as JSON to stdout: 0 or kExitInvalidInput, the error said.
int writeScene(const engine::SceneSpec& scene, const std::string& out);

// A command's rows: to the file `path` names (a temporary renamed over it at the end, a FIFO
// or device written in place: engine/io/output_file.h), or to stdout when `path` is empty.
class ResultsOutput {
public:
    explicit ResultsOutput(std::string path);
    ~ResultsOutput();
    ResultsOutput(const ResultsOutput&) = delete;
    ResultsOutput& operator=(const ResultsOutput&) = delete;

    // Opens the file (nothing for stdout); false once the reason is said.
    bool open();
    std::ostream& stream();
    // After a row: false, with `error` set and the failure noted, when the stream failed.
    bool rowWritten(std::string& error);
    // Flushes what was written (rows reach a reader as the run goes).
    void flush();
    // At the end, also after a failure or an interruption: the file renamed into place with
    // every row written, or stdout flushed. 0, or kExitInvalidInput once the error is said (the
    // file then removed).
    int commit();
    // Removes the file's temporary (nothing for stdout).
    void abandon();

private:
    std::string path_;
    std::unique_ptr<engine::io::OutputFile> file_;
    bool failed_ = false;
};

}  // namespace cli
