#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "engine/io/input_file.h"

namespace cli {

namespace {

// The fields of one CSV line: "…" quotes a field that holds commas ([0, 0, 1]); "" inside
// quotes is a quote.
std::vector<std::string> csvFields(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t k = 0; k < line.size(); ++k) {
        const char c = line[k];
        if (quoted && c == '"' && k + 1 < line.size() && line[k + 1] == '"') {
            fields.back() += '"';
            ++k;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            fields.emplace_back();
        } else if (c != '\r') {
            fields.back() += c;
        }
    }
    return fields;
}

// A case name as a file name: letters, digits, '-', '_' and '.' kept, the rest '_'; "summary"
// is the batch's own.
std::string fileNameOf(const std::string& name) {
    std::string out = name;
    for (char& c : out)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
            c = '_';
    if (out.empty() || out.front() == '.') out = "case" + out;
    std::string lower = out;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower == "summary" ? out + "_case" : out;
}

std::string trimmed(const std::string& text) {
    const std::size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

}  // namespace

// `batch`: a parameter study. Each row of the cases file sets the scene values its header
// names (--set's paths) and runs the analysis into <out-dir>/<case>.csv; summary.csv (and
// stdout) lists each case with its outcome. A failing case is reported and the others still
// run.
int runBatch(const BatchOptions& o) {
    // The cases file, whole: a regular file of at most 16 MiB (a FIFO would block, /dev/zero
    // never end), its lines ended by LF, CR LF or CR alone.
    constexpr std::uintmax_t kMaxCasesBytes = std::uintmax_t(16) << 20;
    std::uintmax_t size = 0;
    if (std::string problem = engine::io::inputFileProblem(o.cases, "the cases file", &size);
        !problem.empty() || size > kMaxCasesBytes) {
        if (problem.empty())
            problem = "the cases file is " + std::to_string(size >> 20) +
                      " MiB; a cases file is limited to 16 MiB";
        printError(problem, o.cases);
        return kExitInvalidInput;
    }
    std::string text;
    {
        std::ifstream file(o.cases, std::ios::binary);
        std::ostringstream bytes;
        if (!file || !(bytes << file.rdbuf())) {
            printError("cannot read the cases file", o.cases);
            return kExitInvalidInput;
        }
        text = std::move(bytes).str();
    }
    std::string lines;  // every line ended by LF alone
    lines.reserve(text.size());
    for (std::size_t k = 0; k < text.size(); ++k) {
        if (text[k] != '\r') {
            lines += text[k];
            continue;
        }
        lines += '\n';
        if (k + 1 < text.size() && text[k + 1] == '\n') ++k;
    }
    std::istringstream in(lines);
    const std::set<std::string> analyses{"simulate", "kinematics", "inverse", "statics", "modes"};
    if (!analyses.count(o.analysis)) {
        printError("--analysis is simulate, kinematics, inverse, statics or modes, got '" +
                       o.analysis + "'",
                   "command line");
        return kExitUsage;
    }
    const bool timed =
        o.analysis == "simulate" || o.analysis == "kinematics" || o.analysis == "inverse";
    if (timed && !(o.duration > 0.0)) {
        printError("--duration is needed for a " + o.analysis + " batch", "command line");
        return kExitUsage;
    }
    std::string line;
    std::vector<std::string> header;
    int lineNumber = 0;
    while (header.empty() && std::getline(in, line)) {
        ++lineNumber;
        if (lineNumber == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a BOM
        if (line.find_first_not_of(" \t\r") != std::string::npos) header = csvFields(line);
    }
    for (std::string& column : header) column = trimmed(column);
    const bool named = !header.empty() && header.front() == "case";
    if (header.size() < (named ? 2u : 1u)) {
        printError("the cases file has no header of scene paths to set", o.cases);
        return kExitInvalidInput;
    }
    // No result may replace the scene or the cases file (a case named like the cases file).
    const std::string summaryFile = (std::filesystem::path(o.outDir) / "summary.csv").string();
    if (!outputsAreSafe({{"--out-dir", summaryFile}}, {o.scene, o.cases})) return kExitUsage;
    gInputs = {o.cases};
    std::error_code ec;
    std::filesystem::create_directories(o.outDir, ec);
    if (ec) {
        printError("cannot create the output folder: " + ec.message(), o.outDir);
        return kExitInvalidInput;
    }
    std::ostringstream summary;
    summary << "case,status,exit,file\n";
    int firstFailure = 0, cases = 0;
    std::set<std::string> used;  // file names, compared without case
    // Ctrl+C stops the batch between cases (a running case keeps what it computed); the summary
    // lists what ran.
    interrupted = 0;
    while (!interrupted && std::getline(in, line)) {
        catchInterrupts();
        ++lineNumber;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::vector<std::string> fields = csvFields(line);
        ++cases;
        std::string name = named && !fields.empty() ? fields.front() : "";
        name = fileNameOf(trimmed(name).empty() ? "case-" + std::to_string(cases) : trimmed(name));
        auto folded = [](std::string text) {
            for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            return text;
        };
        while (!used.insert(folded(name)).second) name += "_";
        const std::string file = (std::filesystem::path(o.outDir) / (name + ".csv")).string();
        int code = 0;
        if (fields.size() != header.size()) {
            printError("line " + std::to_string(lineNumber) + " has " +
                           std::to_string(fields.size()) + " values for " +
                           std::to_string(header.size()) + " columns",
                       o.cases);
            code = kExitInvalidInput;
        } else {
            gOverrides.clear();
            for (std::size_t k = named ? 1 : 0; k < header.size(); ++k)
                gOverrides.push_back({header[k], trimmed(fields[k])});
            std::cerr << "motus-cli: case " << name << "\n";
            if (o.analysis == "simulate") {
                SimulateOptions sim;
                sim.scene = o.scene;
                sim.duration = o.duration;
                sim.outputDt = o.outputDt;
                sim.out = file;
                code = runSimulate(sim);
            } else if (o.analysis == "kinematics" || o.analysis == "inverse") {
                KinematicCommandOptions kin;
                kin.scene = o.scene;
                kin.duration = o.duration;
                kin.outputDt = o.outputDt;
                kin.out = file;
                code = runKinematic(kin, o.analysis == "inverse");
            } else if (o.analysis == "statics") {
                code = runStatics(o.scene, file);
            } else {
                ModesOptions m;
                m.scene = o.scene;
                m.atEquilibrium = true;
                m.out = file;
                code = runModes(m);
            }
            gOverrides.clear();
        }
        if (code != 0 && firstFailure == 0) firstFailure = code;
        summary << name << ',' << (code == 0 ? "ok" : "failed") << ',' << code << ','
                << (code == 0 ? file : std::string()) << '\n';
    }
    releaseInterrupts();
    if (interrupted) {
        std::cerr << "motus-cli: batch interrupted after " << cases << " case(s)\n";
        if (firstFailure == 0) firstFailure = kExitInterrupted;
    } else if (cases == 0) {
        printError("the cases file has a header but no case (no line of values after it)", o.cases);
        if (firstFailure == 0) firstFailure = kExitInvalidInput;
    }
    std::cout << summary.str();
    if (const int written = writeText(summary.str(), summaryFile); written != 0) return written;
    return firstFailure;
}

}  // namespace cli
