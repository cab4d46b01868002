#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
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

// A CSV field as written: quoted when it holds a comma, a quote or a line break.
std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string out = "\"";
    for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

// The shortest text that reads back as `value`.
std::string shortest(double value) {
    char text[32];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
    return ec == std::errc() ? std::string(text, end) : std::string("nan");
}

// A column of the cases file as the scene path it sets: a design variable's bare name
// ("L_crank") is its value, "/designVariables/L_crank/value"; paths are as --set takes them.
std::string scenePath(const std::string& column) {
    if (column.find_first_of("/.") != std::string::npos) return column;
    return "/designVariables/" + column + "/value";
}

// One case of the cases file.
struct Case {
    std::string name;  // its file name, without ".csv"
    std::vector<std::string> values;
    int line = 0;
    std::string problem;  // the row cannot run (its error), else empty
};

// A result summarised over every row of a case's CSV: a channel, or NAME.|V| for the length
// of the vector NAME.Vx, NAME.Vy, NAME.Vz ("crankPin.|F|": the pin force's magnitude).
struct Summary {
    double min = std::numeric_limits<double>::quiet_NaN(), max = min, peak = min, final = min;
    bool found = false;
};

std::string readWhole(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << file.rdbuf();
    return std::move(bytes).str();
}

std::vector<Summary> summarise(const std::string& csvPath,
                               const std::vector<std::string>& channels) {
    std::vector<Summary> out(channels.size());
    std::istringstream in(readWhole(csvPath));
    std::string line;
    if (!std::getline(in, line)) return out;
    const std::vector<std::string> header = csvFields(line);
    auto column = [&](const std::string& name) -> int {
        const auto it = std::find(header.begin(), header.end(), name);
        return it == header.end() ? -1 : static_cast<int>(it - header.begin());
    };
    // Per channel, the columns whose values it is made of (one, or three for a length).
    std::vector<std::vector<int>> columns(channels.size());
    for (std::size_t c = 0; c < channels.size(); ++c) {
        const std::string& name = channels[c];
        if (const int k = column(name); k >= 0) columns[c] = {k};
        const std::size_t bar = name.rfind(".|");
        if (columns[c].empty() && bar != std::string::npos && name.size() > bar + 3 &&
            name.back() == '|') {
            const std::string base = name.substr(0, bar + 1),
                              quantity = name.substr(bar + 2, name.size() - bar - 3);
            const int x = column(base + quantity + "x"), y = column(base + quantity + "y"),
                      z = column(base + quantity + "z");
            if (x >= 0 && y >= 0 && z >= 0) columns[c] = {x, y, z};
        }
        out[c].found = !columns[c].empty();
    }
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const std::vector<std::string> row = csvFields(line);
        for (std::size_t c = 0; c < channels.size(); ++c) {
            if (columns[c].empty()) continue;
            double sum = 0.0, value = 0.0;
            bool ok = true;
            for (const int k : columns[c]) {
                if (static_cast<std::size_t>(k) >= row.size()) {
                    ok = false;
                    break;
                }
                double v = std::numeric_limits<double>::quiet_NaN();
                const std::string& t = row[static_cast<std::size_t>(k)];
                std::from_chars(t.data(), t.data() + t.size(), v);
                sum += v * v;
                value = v;
            }
            if (!ok) continue;
            if (columns[c].size() > 1) value = std::sqrt(sum);
            Summary& s = out[c];
            s.min = std::isnan(s.min) ? value : std::min(s.min, value);
            s.max = std::isnan(s.max) ? value : std::max(s.max, value);
            s.peak = std::isnan(s.peak) ? std::abs(value) : std::max(s.peak, std::abs(value));
            s.final = value;
        }
    }
    return out;
}

// The command line of one case run by a program of its own: the analysis' command with the
// case's values as --set.
std::vector<std::string> caseCommand(const BatchOptions& o, const std::vector<std::string>& paths,
                                     const Case& c, const std::string& file) {
    std::vector<std::string> args;
    const std::string& a = o.analysis;
    args.push_back(a == "statics" ? "statics" : a == "modes" ? "modes" : a);
    args.push_back(o.scene);
    if (a == "simulate" || a == "kinematics" || a == "inverse") {
        args.push_back("--duration");
        args.push_back(shortest(o.duration));
        if (o.outputDt > 0.0) {
            args.push_back("--output-dt");
            args.push_back(shortest(o.outputDt));
        }
    }
    if (a == "modes") args.push_back("--equilibrium");
    args.push_back("--out");
    args.push_back(file);
    for (std::size_t k = 0; k < paths.size(); ++k) {
        args.push_back("--set");
        args.push_back(paths[k] + "=" + c.values[k]);
    }
    return args;
}

// The path of this program, to run cases in programs of their own.
std::string selfPath() {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string(gArgv[0]) : self.string();
}

}  // namespace

// `batch`: a parameter study. Each row of the cases file sets the scene values its header
// names (--set's paths, or a design variable's name) and runs the analysis into
// <out-dir>/<case>.csv; summary.csv (and stdout) lists each case with its values, its outcome
// and, for each --summarize channel, its minimum, maximum, peak (largest magnitude) and final
// value. A failing case is reported and the others still run. With --jobs N above 1 the cases
// run N at a time, each in a program of its own; the results are those of one at a time.
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
    std::vector<std::string> channels;
    for (const std::string& list : o.summarize)
        for (std::string channel : csvFields(list))
            if (!(channel = trimmed(channel)).empty()) channels.push_back(channel);
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
    const std::vector<std::string> columns(header.begin() + (named ? 1 : 0), header.end());
    std::vector<std::string> paths;
    for (const std::string& column : columns) paths.push_back(scenePath(column));
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

    // The cases, named.
    std::vector<Case> cases;
    std::set<std::string> used;  // file names, compared without case
    while (std::getline(in, line)) {
        ++lineNumber;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::vector<std::string> fields = csvFields(line);
        Case c;
        c.line = lineNumber;
        std::string name = named && !fields.empty() ? fields.front() : "";
        name = fileNameOf(trimmed(name).empty() ? "case-" + std::to_string(cases.size() + 1)
                                                : trimmed(name));
        auto folded = [](std::string t) {
            for (char& ch : t) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            return t;
        };
        while (!used.insert(folded(name)).second) name += "_";
        c.name = name;
        if (fields.size() != header.size()) {
            c.problem = "line " + std::to_string(lineNumber) + " has " +
                        std::to_string(fields.size()) + " values for " +
                        std::to_string(header.size()) + " columns";
        } else {
            for (std::size_t k = named ? 1 : 0; k < header.size(); ++k)
                c.values.push_back(trimmed(fields[k]));
        }
        cases.push_back(std::move(c));
    }
    auto fileOf = [&](const Case& c) {
        return (std::filesystem::path(o.outDir) / (c.name + ".csv")).string();
    };

    // One case in this program.
    auto runHere = [&](const Case& c) {
        gOverrides.clear();
        for (std::size_t k = 0; k < paths.size(); ++k)
            gOverrides.push_back({paths[k], c.values[k]});
        std::cerr << "motus-cli: case " << c.name << "\n";
        int code = 0;
        const std::string file = fileOf(c);
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
        return code;
    };

    std::vector<int> codes(cases.size(), 0);
    std::vector<bool> ran(cases.size(), false);
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t jobs = std::min<std::size_t>(o.jobs > 0 ? std::size_t(o.jobs) : cores,
                                                   std::max<std::size_t>(cases.size(), 1));
    // Ctrl+C stops the batch between cases (a running case keeps what it computed); the summary
    // lists what ran.
    interrupted = 0;
    catchInterrupts();
    if (jobs <= 1) {
        for (std::size_t k = 0; k < cases.size() && !interrupted; ++k) {
            if (!cases[k].problem.empty()) {
                printError(cases[k].problem, o.cases);
                codes[k] = kExitInvalidInput;
            } else {
                codes[k] = runHere(cases[k]);
                catchInterrupts();
            }
            ran[k] = true;
        }
    } else {
        // N programs at a time, each case's messages printed when it ends.
        const std::string self = selfPath();
        struct Running {
            std::size_t index;
            std::string log;
        };
        std::map<pid_t, Running> running;
        std::size_t next = 0;
        auto launch = [&](std::size_t k) {
            const Case& c = cases[k];
            const std::string log =
                (std::filesystem::path(o.outDir) / ("." + c.name + ".messages")).string();
            std::vector<std::string> args = caseCommand(o, paths, c, fileOf(c));
            args.insert(args.begin(), self);
            std::vector<char*> argv;
            for (std::string& a : args) argv.push_back(a.data());
            argv.push_back(nullptr);
            posix_spawn_file_actions_t actions;
            posix_spawn_file_actions_init(&actions);
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
            posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                             0600);
            pid_t pid = 0;
            const int failed =
                posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), environ);
            posix_spawn_file_actions_destroy(&actions);
            if (failed != 0) {
                printError("cannot start the case: " + std::string(std::strerror(failed)), c.name);
                codes[k] = kExitInvalidInput;
                ran[k] = true;
                return;
            }
            running[pid] = {k, log};
        };
        while ((next < cases.size() && !interrupted) || !running.empty()) {
            while (running.size() < jobs && next < cases.size() && !interrupted) {
                const std::size_t k = next++;
                if (!cases[k].problem.empty()) {
                    printError(cases[k].problem, o.cases);
                    codes[k] = kExitInvalidInput;
                    ran[k] = true;
                    continue;
                }
                launch(k);
            }
            if (running.empty()) continue;
            int status = 0;
            const pid_t pid = ::waitpid(-1, &status, 0);
            if (pid < 0) {
                if (errno == EINTR) continue;
                break;
            }
            const auto it = running.find(pid);
            if (it == running.end()) continue;
            const std::size_t k = it->second.index;
            codes[k] =
                WIFEXITED(status) ? WEXITSTATUS(status)
                : WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM)
                    ? kExitInterrupted
                    : kExitInvalidInput;
            ran[k] = true;
            std::cerr << "motus-cli: case " << cases[k].name << "\n" << readWhole(it->second.log);
            if (WIFSIGNALED(status) && codes[k] == kExitInvalidInput)
                std::cerr << "motus-cli: case " << cases[k].name << " ended by signal "
                          << WTERMSIG(status) << "\n";
            std::filesystem::remove(it->second.log, ec);
            running.erase(it);
        }
    }
    releaseInterrupts();

    // The summary: each case's values, outcome and results.
    std::ostringstream summary;
    summary << "case";
    for (const std::string& column : columns) summary << ',' << csvField(column);
    summary << ",status,exit,file";
    for (const std::string& channel : channels)
        for (const char* stat : {"min", "max", "peak", "final"})
            summary << ',' << csvField(std::string(stat) + "(" + channel + ")");
    summary << '\n';
    int firstFailure = 0, count = 0;
    std::set<std::string> missing;
    for (std::size_t k = 0; k < cases.size(); ++k) {
        if (!ran[k]) continue;
        ++count;
        const Case& c = cases[k];
        const int code = codes[k];
        if (code != 0 && firstFailure == 0) firstFailure = code;
        summary << csvField(c.name);
        for (std::size_t v = 0; v < columns.size(); ++v)
            summary << ',' << csvField(v < c.values.size() ? c.values[v] : std::string());
        summary << ',' << (code == 0 ? "ok" : "failed") << ',' << code << ','
                << csvField(code == 0 ? fileOf(c) : std::string());
        const std::vector<Summary> results =
            code == 0 ? summarise(fileOf(c), channels) : std::vector<Summary>(channels.size());
        for (std::size_t r = 0; r < channels.size(); ++r) {
            if (code == 0 && !results[r].found) missing.insert(channels[r]);
            for (const double v :
                 {results[r].min, results[r].max, results[r].peak, results[r].final})
                summary << ',' << (std::isnan(v) ? std::string() : shortest(v));
        }
        summary << '\n';
    }
    for (const std::string& channel : missing)
        std::cerr << "motus-cli: warning: --summarize: no channel '" << channel
                  << "' in the results (a channel of their header, or NAME.|F| for the length of "
                     "NAME.Fx, NAME.Fy, NAME.Fz)\n";
    if (interrupted) {
        std::cerr << "motus-cli: batch interrupted after " << count << " case(s)\n";
        if (firstFailure == 0) firstFailure = kExitInterrupted;
    } else if (cases.empty()) {
        printError("the cases file has a header but no case (no line of values after it)", o.cases);
        if (firstFailure == 0) firstFailure = kExitInvalidInput;
    }
    std::cout << summary.str();
    if (const int written = writeText(summary.str(), summaryFile); written != 0) return written;
    return firstFailure;
}

}  // namespace cli
