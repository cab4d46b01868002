#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
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
#include <utility>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/common.h"
#include "engine/io/input_file.h"
#include "engine/solver/worker_pool.h"

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

// A case's end of the pipe on which it tells the batch that its results are computed.
int gToldFd = -1;

// The path of this program (for the scripts that run it elsewhere).
std::string selfPath() {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string(gArgv[0]) : self.string();
}

// A word for bash: single-quoted, a quote inside as '\''.
std::string shellWord(const std::string& text) {
    std::string out = "'";
    for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string absolutePath(const std::string& path) {
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

// "K/N": the K-th (from 0) of N slices of the cases, contiguous and as even as can be.
bool parseSlice(const std::string& text, std::size_t& k, std::size_t& n) {
    const std::size_t bar = text.find('/');
    if (bar == std::string::npos) return false;
    const char* end = text.data() + text.size();
    const auto [p1, e1] = std::from_chars(text.data(), text.data() + bar, k);
    const auto [p2, e2] = std::from_chars(text.data() + bar + 1, end, n);
    return e1 == std::errc() && e2 == std::errc() && p1 == text.data() + bar && p2 == end &&
           n >= 1 && n <= 100000 && k < n;
}

std::string sliceFileName(std::size_t k, std::size_t n) {
    return "summary.slice-" + std::to_string(k) + "-of-" + std::to_string(n) + ".csv";
}

// The progress of a batch on a terminal: one line, rewritten.
struct ProgressLine {
    bool shown = ::isatty(2) != 0;
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    void show(std::size_t done, std::size_t total, std::size_t failed) const {
        if (!shown || total == 0) return;
        constexpr std::size_t kWidth = 30;
        const std::size_t full = kWidth * done / total;
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        std::cerr << "\rmotus-cli: batch [" << std::string(full, '#')
                  << std::string(kWidth - full, '.') << "] " << done << "/" << total;
        if (failed > 0) std::cerr << ", " << failed << " failed";
        std::cerr << ", " << static_cast<long>(wall) << " s" << (done == total ? "\n" : "")
                  << std::flush;
    }
    // Before a message: the line the bar is on cleared.
    void clear() const {
        if (shown) std::cerr << "\r\033[K";
    }
};

// `batch --merge`: the slices' summaries in the output folder (summary.slice-K-of-N.csv) put
// together in the cases' order into summary.csv; slices missing are named, with the command
// that runs them again.
int mergeSlices(const BatchOptions& o) {
    std::error_code ec;
    std::map<std::size_t, std::map<std::size_t, std::string>> found;  // N → K → file
    for (const auto& entry : std::filesystem::directory_iterator(o.outDir, ec)) {
        const std::string name = entry.path().filename().string();
        std::size_t k = 0, n = 0;
        if (name.rfind("summary.slice-", 0) != 0 || name.size() < 20 ||
            name.substr(name.size() - 4) != ".csv")
            continue;
        const std::string middle = name.substr(14, name.size() - 18);  // "K-of-N"
        const std::size_t of = middle.find("-of-");
        if (of == std::string::npos ||
            !parseSlice(middle.substr(0, of) + "/" + middle.substr(of + 4), k, n))
            continue;
        found[n][k] = entry.path().string();
    }
    if (ec) {
        printError("cannot read the output folder: " + ec.message(), o.outDir);
        return kExitInvalidInput;
    }
    if (found.empty()) {
        printError("no slice summaries (summary.slice-K-of-N.csv) to merge", o.outDir);
        return kExitInvalidInput;
    }
    if (found.size() > 1) {
        printError("slice summaries of " + std::to_string(found.size()) +
                       " different slicings (summary.slice-K-of-N.csv with different N): "
                       "remove the stale ones",
                   o.outDir);
        return kExitInvalidInput;
    }
    const std::size_t n = found.begin()->first;
    const auto& slices = found.begin()->second;
    std::string header, merged, missing;
    int failed = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const auto it = slices.find(k);
        if (it == slices.end()) {
            missing += (missing.empty() ? "" : ", ") + std::to_string(k);
            continue;
        }
        std::istringstream in(readWhole(it->second));
        std::string line;
        if (!std::getline(in, line)) continue;
        if (header.empty()) {
            header = line;
        } else if (line != header) {
            printError("its header differs from slice 0's: the slices are of different studies",
                       it->second);
            return kExitInvalidInput;
        }
        const std::vector<std::string> columns = csvFields(header);
        const auto status = std::find(columns.begin(), columns.end(), "status") - columns.begin();
        while (std::getline(in, line)) {
            if (line.empty()) continue;
            const std::vector<std::string> fields = csvFields(line);
            if (static_cast<std::size_t>(status) < fields.size() &&
                fields[static_cast<std::size_t>(status)] != "ok")
                ++failed;
            merged += line + "\n";
        }
    }
    const std::string text = header + "\n" + merged;
    std::cout << text;
    if (const int written =
            writeText(text, (std::filesystem::path(o.outDir) / "summary.csv").string());
        written != 0)
        return written;
    if (!missing.empty()) {
        printError("slice(s) " + missing + " of " + std::to_string(n) +
                       " have no summary: their cases did not run (run them again with "
                       "--slice K/" +
                       std::to_string(n) + ", then --merge)",
                   o.outDir);
        return kExitInvalidInput;
    }
    if (failed > 0)
        std::cerr << "motus-cli: " << failed << " case(s) failed (" << o.outDir
                  << "/summary.csv)\n";
    return failed > 0 ? kExitInvalidInput : 0;
}

// `batch --emit-slurm FILE`: a script that runs the study on a Slurm cluster, each task of a
// job array a slice of the cases (on the task's cores), then the merge. `bash FILE` submits
// both; sbatch runs it as the array's tasks.
int emitSlurm(const BatchOptions& o, std::size_t caseCount) {
    const std::size_t slices = std::max<std::size_t>(
        1, std::min<std::size_t>(
               o.slices > 0 ? std::size_t(o.slices) : std::min<std::size_t>(caseCount, 100),
               std::max<std::size_t>(caseCount, 1)));
    const std::string out = absolutePath(o.outDir);
    std::ostringstream run;
    run << shellWord(absolutePath(o.scene)) << " --cases " << shellWord(absolutePath(o.cases))
        << " --out-dir " << shellWord(out) << " --analysis " << shellWord(o.analysis);
    if (o.duration > 0.0) run << " --duration " << shortest(o.duration);
    if (o.outputDt > 0.0) run << " --output-dt " << shortest(o.outputDt);
    for (const std::string& s : o.summarize) run << " --summarize " << shellWord(s);
    std::ostringstream script;
    script << "#!/bin/bash\n"
           << "# A Motus study on a Slurm cluster, written by motus-cli batch --emit-slurm:\n"
           << "# " << caseCount << " case(s) of " << shellWord(o.cases) << " in " << slices
           << " slice(s), each a task of a job array\n"
           << "# on its own cores, then merged into " << out << "/summary.csv.\n"
           << "#   bash " << std::filesystem::path(o.emitSlurm).filename().string()
           << "    submits the array and, after it, the merge (sbatch on PATH)\n"
           << "# motus-cli and the files must be at the same paths on the nodes (a shared file\n"
           << "# system); MOTUS_CLI names another motus-cli. Edit the #SBATCH lines for your "
              "cluster.\n"
           << "#SBATCH --job-name=motus-study\n"
           << "#SBATCH --array=0-" << slices - 1 << "\n"
           << "#SBATCH --cpus-per-task=1\n"
           << "#SBATCH --time=01:00:00\n"
           << "#SBATCH --output=" << out << "/slurm-%A_%a.log\n"
           << "set -euo pipefail\n"
           << "cli=\"${MOTUS_CLI:-" << absolutePath(selfPath()) << "}\"\n"
           << "if [ -z \"${SLURM_ARRAY_TASK_ID:-}\" ]; then\n"
           << "    mkdir -p " << shellWord(out) << "\n"
           << "    array=$(sbatch --parsable \"$0\")\n"
           << "    array=${array%%;*}\n"
           << "    merge=$(sbatch --parsable --dependency=afterany:$array --job-name=motus-merge "
              "--output="
           << shellWord(out + "/slurm-merge-%j.log")
           << " --wrap \"$(printf %q \"$cli\") batch --merge --out-dir " << shellWord(out)
           << "\")\n"
           << "    echo \"motus: submitted the study's array (job $array, " << slices
           << " task(s)) and its merge (job ${merge%%;*})\"\n"
           << "    exit 0\n"
           << "fi\n"
           << "exec \"$cli\" batch " << run.str() << " --slice \"$SLURM_ARRAY_TASK_ID/" << slices
           << "\" --jobs \"${SLURM_CPUS_PER_TASK:-1}\"\n";
    if (const int written = writeText(script.str(), o.emitSlurm); written != 0) return written;
    std::filesystem::permissions(o.emitSlurm, std::filesystem::perms::owner_exec,
                                 std::filesystem::perm_options::add);
    std::cerr << "motus-cli: wrote " << o.emitSlurm << ": " << caseCount << " case(s) in " << slices
              << " slice(s); bash " << o.emitSlurm << " submits them\n";
    return 0;
}

}  // namespace

// `batch`: a parameter study. Each row of the cases file sets the scene values its header
// names (--set's paths, or a design variable's name) and runs the analysis into
// <out-dir>/<case>.csv; summary.csv (and stdout) lists each case with its values, its outcome
// and, for each --summarize channel, its minimum, maximum, peak (largest magnitude) and final
// value. A failing case is reported and the others still run. With --jobs N above 1 the cases
// run N at a time, each in a program of its own; the results are those of one at a time.
int runBatch(const BatchOptions& o) {
    if (o.merge) {
        if (!o.scene.empty() || !o.cases.empty()) {
            printError("--merge takes only --out-dir (the folder of the slices' summaries)",
                       "command line");
            return kExitUsage;
        }
        return mergeSlices(o);
    }
    if (o.scene.empty() || o.cases.empty()) {
        printError("batch needs a scene and --cases (or --merge --out-dir DIR)", "command line");
        return kExitUsage;
    }
    std::size_t sliceIndex = 0, sliceCount = 1;
    if (!o.slice.empty() && !parseSlice(o.slice, sliceIndex, sliceCount)) {
        printError(
            "--slice is K/N, the K-th (0 ≤ K < N) of N slices of the cases, got '" + o.slice + "'",
            "command line");
        return kExitUsage;
    }
    if (!o.slice.empty() && !o.emitSlurm.empty()) {
        printError("--emit-slurm writes a script whose tasks take --slice: give one or the other",
                   "command line");
        return kExitUsage;
    }
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
    const std::string summaryFile =
        (std::filesystem::path(o.outDir) /
         (o.slice.empty() ? "summary.csv" : sliceFileName(sliceIndex, sliceCount)))
            .string();
    if (!outputsAreSafe({{"--out-dir", summaryFile}}, {o.scene, o.cases})) return kExitUsage;
    if (!o.emitSlurm.empty() &&
        !outputsAreSafe({{"--emit-slurm", o.emitSlurm}}, {o.scene, o.cases}))
        return kExitUsage;
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
    if (!o.emitSlurm.empty()) return emitSlurm(o, cases.size());
    // The slice of the cases this run makes (all of them without --slice).
    const std::size_t begin = sliceIndex * cases.size() / sliceCount,
                      end = (sliceIndex + 1) * cases.size() / sliceCount;
    auto fileOf = [&](const Case& c) {
        return (std::filesystem::path(o.outDir) / (c.name + ".csv")).string();
    };

    // One case in this program.
    auto runHere = [&](const Case& c, bool announce) {
        gOverrides.clear();
        for (std::size_t k = 0; k < paths.size(); ++k)
            gOverrides.push_back({paths[k], c.values[k]});
        if (announce) std::cerr << "motus-cli: case " << c.name << "\n";
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
    // (the engine's threads: every core unless --threads or MOTUS_THREADS says fewer)
    const auto cores = static_cast<unsigned>(std::max(1, engine::workerThreads()));
    const std::size_t jobs = std::min<std::size_t>(o.jobs > 0 ? std::size_t(o.jobs) : cores,
                                                   std::max<std::size_t>(end - begin, 1));
    // Ctrl+C stops the batch between cases (a running case keeps what it computed); the summary
    // lists what ran.
    interrupted = 0;
    catchInterrupts();
    const ProgressLine progress;
    std::size_t done = 0, failed = 0;
    // Each case's summary, read from its file as soon as it ends (while others still run).
    std::vector<std::vector<Summary>> results(cases.size(), std::vector<Summary>(channels.size()));
    auto ended = [&](std::size_t k) {
        ran[k] = true;
        if (codes[k] == 0 && !channels.empty()) results[k] = summarise(fileOf(cases[k]), channels);
        ++done;
        if (codes[k] != 0) ++failed;
        progress.show(done, end - begin, failed);
    };
    if (jobs <= 1) {
        for (std::size_t k = begin; k < end && !interrupted; ++k) {
            progress.clear();
            if (!cases[k].problem.empty()) {
                printError(cases[k].problem, o.cases);
                codes[k] = kExitInvalidInput;
            } else {
                codes[k] = runHere(cases[k], /*announce=*/true);
                catchInterrupts();
            }
            ended(k);
        }
    } else {
        // N cases computing at a time, each in a program of its own, its messages printed when
        // it ends. A case whose results are computed says so (its pid, on a pipe) before it
        // makes its file durable (fsync, rename: the disk's time, not a core's), and the next
        // case starts meanwhile; one that ends says so too (its pid negated).
        struct Running {
            std::size_t index;
            std::string log;
            bool computing = true;
        };
        std::map<pid_t, Running> running;
        std::size_t next = begin;
        int told[2] = {-1, -1};
        if (::pipe(told) != 0) {
            printError("cannot make a pipe: " + std::string(std::strerror(errno)), o.outDir);
            return kExitInvalidInput;
        }
        ::fcntl(told[0], F_SETFL, ::fcntl(told[0], F_GETFL) | O_NONBLOCK);
        auto computing = [&] {
            std::size_t n = 0;
            for (const auto& [pid, r] : running) n += r.computing ? 1 : 0;
            return n;
        };
        auto launch = [&](std::size_t k) {
            const Case& c = cases[k];
            const std::string log =
                (std::filesystem::path(o.outDir) / ("." + c.name + ".messages")).string();
            std::cout.flush();
            std::cerr.flush();
            // A copy of this program (fork, no exec: nothing loaded or read again) runs the
            // case, its output to nowhere and its messages to the log; this one stays
            // single-threaded, so the copy is whole.
            const pid_t pid = ::fork();
            if (pid == 0) {
                // The cases share the cores: each copy's contact solves keep to its share.
                engine::setWorkerThreads(
                    std::max(1, engine::workerThreads() / static_cast<int>(jobs)));
                ::close(told[0]);
                gToldFd = told[1];
                gResultsComputed = [] {
                    const pid_t self = ::getpid();
                    [[maybe_unused]] const auto n = ::write(gToldFd, &self, sizeof self);
                    gResultsComputed = nullptr;
                };
                const int null = ::open("/dev/null", O_WRONLY);
                const int messages = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
                if (null < 0 || messages < 0 || ::dup2(null, 1) < 0 || ::dup2(messages, 2) < 0)
                    ::_exit(kExitInvalidInput);
                int code = kExitInvalidInput;
                try {
                    code = runHere(c, /*announce=*/false);
                } catch (...) {
                }
                std::cout.flush();
                std::cerr.flush();
                const pid_t ending = -::getpid();
                [[maybe_unused]] const auto n = ::write(told[1], &ending, sizeof ending);
                ::_exit(code);
            }
            if (pid < 0) {
                progress.clear();
                printError("cannot start the case: " + std::string(std::strerror(errno)), c.name);
                codes[k] = kExitInvalidInput;
                ended(k);
                return;
            }
            running[pid] = {k, log, true};
        };
        // A case that has ended: its outcome, its messages.
        auto reap = [&](pid_t pid, int status) {
            const auto it = running.find(pid);
            if (it == running.end()) return;
            const std::size_t k = it->second.index;
            codes[k] =
                WIFEXITED(status) ? WEXITSTATUS(status)
                : WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM)
                    ? kExitInterrupted
                    : kExitInvalidInput;
            progress.clear();
            std::cerr << "motus-cli: case " << cases[k].name << "\n" << readWhole(it->second.log);
            if (WIFSIGNALED(status) && codes[k] == kExitInvalidInput)
                std::cerr << "motus-cli: case " << cases[k].name << " ended by signal "
                          << WTERMSIG(status) << "\n";
            std::filesystem::remove(it->second.log, ec);
            running.erase(it);
            ended(k);
        };
        while ((next < end && !interrupted) || !running.empty()) {
            while (computing() < jobs && next < end && !interrupted) {
                const std::size_t k = next++;
                if (!cases[k].problem.empty()) {
                    progress.clear();
                    printError(cases[k].problem, o.cases);
                    codes[k] = kExitInvalidInput;
                    ended(k);
                    continue;
                }
                launch(k);
            }
            if (running.empty()) continue;
            // What the cases say (or, for one that died without a word, a look every 0.1 s).
            pollfd wait{told[0], POLLIN, 0};
            if (::poll(&wait, 1, 100) < 0 && errno != EINTR) break;
            pid_t said = 0;
            while (::read(told[0], &said, sizeof said) == static_cast<ssize_t>(sizeof said)) {
                if (said > 0) {
                    if (const auto it = running.find(said); it != running.end())
                        it->second.computing = false;
                } else if (running.count(-said)) {
                    int status = 0;
                    if (::waitpid(-said, &status, 0) == -said) reap(-said, status);
                }
            }
            int status = 0;
            for (pid_t pid; (pid = ::waitpid(-1, &status, WNOHANG)) > 0;) reap(pid, status);
        }
        ::close(told[0]);
        ::close(told[1]);
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
        const std::vector<Summary>& result = results[k];
        for (std::size_t r = 0; r < channels.size(); ++r) {
            if (code == 0 && !result[r].found) missing.insert(channels[r]);
            for (const double v : {result[r].min, result[r].max, result[r].peak, result[r].final})
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
    } else if (cases.empty() && o.slice.empty()) {
        printError("the cases file has a header but no case (no line of values after it)", o.cases);
        if (firstFailure == 0) firstFailure = kExitInvalidInput;
    }
    std::cout << summary.str();
    if (const int written = writeText(summary.str(), summaryFile); written != 0) return written;
    return firstFailure;
}

}  // namespace cli
