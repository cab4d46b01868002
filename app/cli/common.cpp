#include "app/cli/common.h"

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <iostream>

#include "engine/integrators/integrator.h"
#include "engine/io/output_file.h"
#include "engine/model/model.h"

namespace cli {
namespace {

extern "C" void onInterrupt(int) {
    interrupted = 1;
}
extern "C" void onFatalSignal(int signal) {
    engine::io::removePendingTemporaries();
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

// The errno of the first failed write to stdout, kept where it happened (errno is per thread,
// and later calls overwrite it): 0 until one fails.
std::atomic<int> gStdoutErrno{0};

}  // namespace

int gArgc = 0;
char** gArgv = nullptr;
volatile std::sig_atomic_t interrupted = 0;

void catchInterrupts() {
    for (const int signal : kStopSignals) std::signal(signal, onInterrupt);
}
void releaseInterrupts() {
    for (const int signal : kStopSignals) std::signal(signal, onFatalSignal);
}

void printError(const std::string& what, const std::string& where) {
    std::cerr << "motus-cli: error: " << what << " (" << where << ")\n";
}

bool formulationRefused(const engine::Model& model, const std::string& path, bool onCommandLine) {
    const engine::FormulationChoice f = engine::chooseFormulation(model);
    if (!f.refused) return false;
    printError(std::string(onCommandLine ? "--formulation recursive"
                                         : "the scene asks for the recursive formulation") +
                   ", but " + f.reason,
               onCommandLine ? std::string("command line: --formulation")
                             : path + ":/settings/formulation");
    return true;
}

bool formulationRefusedAtStart(const engine::Status& status, const std::string& path,
                               bool onCommandLine) {
    if (status.ok || status.cause != engine::Cause::FormulationRefused) return false;
    const std::string asked = "the scene asks for the recursive formulation, but ";
    std::string what = status.message;
    if (onCommandLine && what.rfind(asked, 0) == 0)
        what = "--formulation recursive, but " + what.substr(asked.size());
    printError(what, onCommandLine ? std::string("command line: --formulation")
                                   : path + ":/settings/formulation");
    return true;
}

bool gStdoutReported = false;
void (*gResultsComputed)() = nullptr;

// Why a write to stdout failed, from the errno it left (`error`); without one the system gave
// no cause, and none is guessed.
std::string stdoutFailure(int error) {
    const bool writeError = error == ENOSPC || error == EDQUOT || error == EIO || error == EFBIG ||
                            error == EPIPE || error == EBADF;
    return "cannot write the output: " +
           (writeError ? engine::io::fileErrorText(error)
                       : std::string("the system gave no cause (the output may have been closed)"));
}

// Called where a write to stdout is seen to have failed: keeps its cause.
void noteStdoutFailure() {
    int none = 0;
    if (errno != 0) gStdoutErrno.compare_exchange_strong(none, errno);
}

void printStdoutError() {
    printError(stdoutFailure(gStdoutErrno != 0 ? gStdoutErrno.load() : errno), "stdout");
    gStdoutReported = true;
}

std::vector<std::string> gInputs;

bool outputsAreSafe(const std::vector<std::pair<std::string, std::string>>& outputs,
                    std::vector<std::string> inputs) {
    inputs.insert(inputs.end(), gInputs.begin(), gInputs.end());
    for (std::size_t k = 0; k < outputs.size(); ++k) {
        const auto& [option, path] = outputs[k];
        if (path.empty()) continue;
        if (const std::string problem = engine::io::sameFileProblem(path, inputs);
            !problem.empty()) {
            printError(problem, "command line: " + option);
            return false;
        }
        // Two outputs to one regular file (or one new name) would leave one of them; a device
        // or a FIFO may take both.
        for (std::size_t j = 0; j < k; ++j) {
            const std::string& other = outputs[j].second;
            if (other.empty()) continue;
            std::error_code ec;
            const bool device =
                std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec);
            const bool same = std::filesystem::equivalent(path, other, ec) ||
                              std::filesystem::weakly_canonical(path, ec) ==
                                  std::filesystem::weakly_canonical(other, ec);
            if (same && !device) {
                printError(outputs[j].first + " and " + option + " name the same file '" + path +
                               "': one would replace the other",
                           "command line: " + option);
                return false;
            }
        }
    }
    return true;
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

std::vector<engine::io::SceneOverride> gOverrides;

engine::io::SceneLoadResult loadScene(const std::string& path) {
    return engine::io::loadSceneFile(path, gOverrides);
}

std::shared_ptr<const engine::Model> loadModel(const std::string& path,
                                               const engine::SolverSettings* overrides,
                                               engine::Diagnostics* diagnosticsOut) {
    engine::io::SceneLoadResult loaded = loadScene(path);
    if (diagnosticsOut) *diagnosticsOut = loaded.diagnostics;
    printDiagnostics(loaded.diagnostics, path);
    if (!loaded.scene) return nullptr;
    if (overrides) loaded.scene->settings = *overrides;
    engine::CompileResult compiled = engine::compile(*loaded.scene);
    if (diagnosticsOut)
        diagnosticsOut->insert(diagnosticsOut->end(), compiled.diagnostics.begin(),
                               compiled.diagnostics.end());
    printDiagnostics(compiled.diagnostics, path);
    return compiled.model;
}

int writeText(const std::string& text, const std::string& out) {
    if (out.empty()) {
        std::cout << text;
        if (!std::cout.flush()) {
            printStdoutError();
            return kExitInvalidInput;
        }
        return 0;
    }
    if (gResultsComputed) gResultsComputed();
    std::string error;
    if (!engine::io::writeFileSafely(out, text, error)) {
        printError(error, out);
        return kExitInvalidInput;
    }
    return 0;
}

std::shared_ptr<const engine::Model> loadForStatics(const std::string& path, int& exitCode,
                                                    engine::Analysis analysis) {
    engine::io::SceneLoadResult loaded = loadScene(path);
    printDiagnostics(loaded.diagnostics, path);
    exitCode = kExitInvalidInput;
    if (!loaded.scene) return nullptr;
    const engine::CompileResult compiled = engine::compile(*loaded.scene, analysis);
    printDiagnostics(compiled.diagnostics, path);
    return compiled.model;
}

int writeScene(const engine::SceneSpec& scene, const std::string& out) {
    if (out.empty()) {
        std::cout << engine::io::sceneToJson(scene);
        return 0;
    }
    std::string error;
    if (!engine::io::saveSceneFile(scene, out, error)) {
        printError(error, out);
        return kExitInvalidInput;
    }
    return 0;
}

ResultsOutput::ResultsOutput(std::string path)
    : path_(std::move(path)), file_(std::make_unique<engine::io::OutputFile>()) {}

ResultsOutput::~ResultsOutput() = default;

bool ResultsOutput::open() {
    if (path_.empty()) return true;
    std::string error;
    if (file_->open(path_, error)) return true;
    printError(error, path_);
    return false;
}

std::ostream& ResultsOutput::stream() {
    return path_.empty() ? std::cout : file_->stream();
}

bool ResultsOutput::rowWritten(std::string& error) {
    if (stream()) return true;
    if (path_.empty()) noteStdoutFailure();
    failed_ = true;
    error = path_.empty() ? "cannot write results to stdout" : file_->failure();
    return false;
}

void ResultsOutput::flush() {
    if (!stream().flush() && path_.empty()) noteStdoutFailure();
}

int ResultsOutput::commit() {
    if (!path_.empty()) {
        if (gResultsComputed) gResultsComputed();
        std::string error;
        if (failed_ || !file_->commit(error)) {
            printError(failed_ ? file_->failure() : error, path_);
            file_->abandon();
            return kExitInvalidInput;
        }
    } else if (!std::cout.flush() || failed_) {
        noteStdoutFailure();
        printStdoutError();
        return kExitInvalidInput;
    }
    return 0;
}

void ResultsOutput::abandon() {
    if (!path_.empty()) file_->abandon();
}

}  // namespace cli
