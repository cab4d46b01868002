#include "engine/io/run_file.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/io/input_file.h"
#include "engine/io/scene_json.h"
#include "engine/math/number_text.h"
#include "engine/model/layout.h"

namespace engine::io {
namespace {

constexpr char kMagic[8] = {'M', 'O', 'T', 'U', 'S', 'R', 'U', 'N'};
// 1: the rows, then the checksum; 2: each frame's contact forces after all the rows;
// 3: each frame's contact forces right after its row, the frame count in the trailer, so a
// run is written as it is computed; 4: each frame's persistent contact points after its
// contact forces (a run resumed from any frame goes on bit for bit).
constexpr std::uint32_t kRunFormatVersion = 4;

// One contact in a run file: two int32 part indices and 11 doubles.
constexpr std::size_t kContactBytes = 2 * sizeof(std::int32_t) + 11 * sizeof(double);
// One persistent contact point: five int32 (parts, shapes, age) and 14 doubles.
constexpr std::size_t kContactPointBytes = 5 * sizeof(std::int32_t) + 14 * sizeof(double);
constexpr double kMaxRunTime = 1e9;  // s: |time| of any frame (32 years)

// The first position, orientation or velocity of a part in `state` that is not a finite
// number, as "'crank.x' = nan: not a finite number"; "" when all are finite.
std::string nonFiniteState(const Model& model, const State& state) {
    static const char* const positions[] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
    static const char* const velocities[] = {"vx", "vy", "vz", "x", "y", "z"};
    for (int b = 0; b < model.bodyCount(); ++b) {
        const std::string& name = model.bodies[static_cast<std::size_t>(b)].name;
        for (int k = 0; k < layout::kPositionsPerBody; ++k) {
            const Eigen::Index i = layout::positionIndex(b) + k;
            if (i < state.q.size() && !std::isfinite(state.q(i)))
                return (k < 3 ? "'" + name + "." + positions[k] + "'"
                              : "part '" + name + "' orientation " + positions[k]) +
                       " = " + numberText(state.q(i)) + ": not a finite number";
        }
        for (int k = 0; k < layout::kVelocitiesPerBody; ++k) {
            const Eigen::Index i = layout::velocityIndex(b) + k;
            if (i < state.v.size() && !std::isfinite(state.v(i)))
                return (k < 3 ? "'" + name + "." + velocities[k] + "'"
                              : "part '" + name + "' angular velocity " + velocities[k]) +
                       " = " + numberText(state.v(i)) + ": not a finite number";
        }
    }
    return "";
}
constexpr std::uint64_t kTrailerBytes = 2 * sizeof(std::uint64_t);  // frame count, checksum

// FNV-1a, 64 bits: detects corruption (not tampering).
constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;
std::uint64_t fnv1a(const char* data, std::size_t size, std::uint64_t hash = kFnvOffset) {
    for (std::size_t k = 0; k < size; ++k) {
        hash ^= static_cast<unsigned char>(data[k]);
        hash *= 1099511628211ull;
    }
    return hash;
}

template <class T>
void put(std::string& out, T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out.append(bytes, sizeof(T));
}

void putContacts(std::string& out, const std::vector<ContactForce>& contacts) {
    put(out, static_cast<std::uint32_t>(contacts.size()));
    for (const ContactForce& c : contacts) {
        put(out, static_cast<std::int32_t>(c.partA));
        put(out, static_cast<std::int32_t>(c.partB));
        for (const Vec3* v : {&c.point_W, &c.normal_W})
            for (int i = 0; i < 3; ++i) put(out, (*v)(i));
        put(out, c.depth);
        put(out, c.normalForce);
        for (int i = 0; i < 3; ++i) put(out, c.frictionForce_W(i));
    }
}

void putContactPoints(std::string& out, const std::vector<ContactPointState>& points) {
    put(out, static_cast<std::uint32_t>(points.size()));
    for (const ContactPointState& c : points) {
        for (int i : {c.partA, c.partB, c.shapeA, c.shapeB, c.age})
            put(out, static_cast<std::int32_t>(i));
        for (const Vec3* v : {&c.local_A, &c.local_B, &c.n_AB_W})
            for (int i = 0; i < 3; ++i) put(out, (*v)(i));
        put(out, c.distance);
        put(out, c.normalImpulse);
        for (int i = 0; i < 3; ++i) put(out, c.frictionImpulse_W(i));
    }
}

// The bytes of a run file, read at any offset: a file (read in blocks) or memory.
class Source {
public:
    virtual ~Source() = default;
    virtual std::uint64_t size() const = 0;
    // Copies `n` bytes at `offset`; false on a read error (the caller stays within size()).
    virtual bool readAt(std::uint64_t offset, char* out, std::size_t n) = 0;
};

class MemorySource final : public Source {
public:
    explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
    std::uint64_t size() const override { return bytes_.size(); }
    bool readAt(std::uint64_t offset, char* out, std::size_t n) override {
        std::memcpy(out, bytes_.data() + offset, n);
        return true;
    }

private:
    std::string_view bytes_;
};

class FileSource final : public Source {
public:
    FileSource(std::ifstream& file, std::uint64_t size) : file_(file), size_(size) {}
    std::uint64_t size() const override { return size_; }
    bool readAt(std::uint64_t offset, char* out, std::size_t n) override {
        file_.clear();
        file_.seekg(static_cast<std::streamoff>(offset));
        return static_cast<bool>(file_.read(out, static_cast<std::streamsize>(n)));
    }

private:
    std::ifstream& file_;
    std::uint64_t size_;
};

// Sequential reads from a Source through a buffer of its own (two cursors may walk apart).
class Cursor {
public:
    Cursor(Source& source, std::uint64_t offset, std::uint64_t end)
        : source_(source), offset_(offset), end_(end) {}
    std::uint64_t offset() const { return offset_; }
    std::uint64_t left() const { return end_ - offset_; }
    bool bytes(char* out, std::size_t n) {
        if (n > left()) return false;
        while (n > 0) {
            if (offset_ < bufferStart_ || offset_ >= bufferStart_ + buffer_.size()) {
                bufferStart_ = offset_;
                buffer_.resize(
                    static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, end_ - offset_)));
                if (!source_.readAt(bufferStart_, buffer_.data(), buffer_.size())) return false;
            }
            const std::size_t at = static_cast<std::size_t>(offset_ - bufferStart_);
            const std::size_t chunk = std::min(n, buffer_.size() - at);
            std::memcpy(out, buffer_.data() + at, chunk);
            out += chunk;
            n -= chunk;
            offset_ += chunk;
        }
        return true;
    }
    template <class T>
    bool take(T& value) {
        char raw[sizeof(T)];
        if (!bytes(raw, sizeof(T))) return false;
        std::memcpy(&value, raw, sizeof(T));
        return true;
    }
    bool skip(std::uint64_t n) {
        if (n > left()) return false;
        offset_ += n;
        return true;
    }

private:
    static constexpr std::size_t kBlock = std::size_t(1) << 16;
    Source& source_;
    std::uint64_t offset_, end_;
    std::uint64_t bufferStart_ = 0;
    std::vector<char> buffer_;
};

// Reads one frame's contact forces; false with `error` set when they are cut or name no part.
bool readContacts(Cursor& in, std::uint64_t frame, std::size_t parts,
                  std::vector<ContactForce>& contacts, std::string& error) {
    std::uint32_t count = 0;
    if (!in.take(count) || count > in.left() / kContactBytes) {
        error =
            "run file is truncated (in the contact forces of frame " + std::to_string(frame) + ")";
        return false;
    }
    contacts.resize(count);
    for (ContactForce& c : contacts) {
        std::int32_t a = 0, b = 0;
        double v[11] = {};
        in.take(a);
        in.take(b);
        for (double& x : v) in.take(x);
        if (a < 0 || b < 0 || static_cast<std::size_t>(a) >= parts ||
            static_cast<std::size_t>(b) >= parts) {
            error = "run file is corrupted (a contact of frame " + std::to_string(frame) +
                    " names no part)";
            return false;
        }
        c.partA = a;
        c.partB = b;
        c.point_W = Vec3(v[0], v[1], v[2]);
        c.normal_W = Vec3(v[3], v[4], v[5]);
        c.depth = v[6];
        c.normalForce = v[7];
        c.frictionForce_W = Vec3(v[8], v[9], v[10]);
    }
    return true;
}

// Reads one frame's persistent contact points; false with `error` set when they are cut or
// name no pair of parts.
bool readContactPoints(Cursor& in, std::uint64_t frame, std::size_t parts,
                       std::vector<ContactPointState>& points, std::string& error) {
    std::uint32_t count = 0;
    if (!in.take(count) || count > in.left() / kContactPointBytes) {
        error =
            "run file is truncated (in the contact points of frame " + std::to_string(frame) + ")";
        return false;
    }
    points.resize(count);
    for (ContactPointState& c : points) {
        std::int32_t i[5] = {};
        double v[14] = {};
        for (std::int32_t& x : i) in.take(x);
        for (double& x : v) in.take(x);
        if (i[0] < 0 || i[0] >= i[1] || static_cast<std::size_t>(i[1]) >= parts || i[2] < 0 ||
            i[3] < 0 || i[4] < 0) {
            error = "run file is corrupted (a contact point of frame " + std::to_string(frame) +
                    " names no pair of parts)";
            return false;
        }
        c.partA = i[0];
        c.partB = i[1];
        c.shapeA = i[2];
        c.shapeB = i[3];
        c.age = i[4];
        c.local_A = Vec3(v[0], v[1], v[2]);
        c.local_B = Vec3(v[3], v[4], v[5]);
        c.n_AB_W = Vec3(v[6], v[7], v[8]);
        c.distance = v[9];
        c.normalImpulse = v[10];
        c.frictionImpulse_W = Vec3(v[11], v[12], v[13]);
    }
    return true;
}

std::optional<LoadedRun> parseRun(Source& source, const std::string& baseDirectory,
                                  std::string& error) {
    const std::uint64_t size = source.size();
    Cursor in(source, 0, size);
    char magic[sizeof kMagic] = {};
    if (!in.bytes(magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof kMagic) != 0) {
        error = "not a Motus run file (it does not start with \"MOTUSRUN\")";
        return std::nullopt;
    }
    std::uint32_t version = 0;
    std::uint64_t sceneBytes = 0;
    if (!in.take(version) || !in.take(sceneBytes)) {
        error = "run file is truncated (in its header)";
        return std::nullopt;
    }
    if (version < 1 || version > kRunFormatVersion) {
        error = "unsupported run file version " + std::to_string(version) +
                " (this Motus reads versions 1 to " + std::to_string(kRunFormatVersion) + ")";
        return std::nullopt;
    }
    if (sceneBytes > in.left()) {
        error = "run file is truncated (in its scene)";
        return std::nullopt;
    }
    std::string scene(static_cast<std::size_t>(sceneBytes), '\0');
    std::uint32_t doubles = 0;
    std::uint64_t frames = 0;
    if (!in.bytes(scene.data(), scene.size()) || !in.take(doubles) ||
        (version < 3 && !in.take(frames))) {
        error = "run file is truncated (before its frames)";
        return std::nullopt;
    }

    // The frames' extent, checked against the file's length before anything is allocated.
    const std::uint64_t framesStart = in.offset();
    const std::uint64_t rowBytes = std::uint64_t(doubles) * sizeof(double);
    const std::uint64_t trailer = version >= 3 ? kTrailerBytes : sizeof(std::uint64_t);
    const std::uint64_t remaining = in.left();
    auto sizeMismatch = [&] {
        error = "run file is truncated or has extra bytes (" + std::to_string(frames) +
                " frames of " + std::to_string(doubles) + " values announced, " +
                std::to_string(remaining) + " bytes left)";
        return std::nullopt;
    };
    if (doubles == 0 || remaining < trailer) return sizeMismatch();
    std::uint64_t contactsStart = 0;
    if (version >= 3) {
        Cursor tail(source, size - kTrailerBytes, size);
        tail.take(frames);
        if (frames > (remaining - trailer) / (rowBytes + sizeof(std::uint32_t)))
            return sizeMismatch();
        // Walk the frames (rows and contact counts) to their end: it must be the trailer.
        Cursor walk(source, framesStart, size - trailer);
        for (std::uint64_t k = 0; k < frames; ++k) {
            std::uint32_t count = 0, points = 0;
            if (!walk.skip(rowBytes) || !walk.take(count) ||
                !walk.skip(std::uint64_t(count) * kContactBytes) ||
                (version >= 4 &&
                 (!walk.take(points) || !walk.skip(std::uint64_t(points) * kContactPointBytes))))
                return sizeMismatch();
        }
        if (walk.left() != 0) return sizeMismatch();
    } else {
        // Version 1 ends with the rows; version 2 has each frame's contacts after them.
        if (frames > (remaining - trailer) / rowBytes) return sizeMismatch();
        const std::uint64_t contactSection = remaining - trailer - frames * rowBytes;
        if ((version == 1 && contactSection != 0) ||
            (version == 2 && contactSection < frames * sizeof(std::uint32_t)))
            return sizeMismatch();
        contactsStart = framesStart + frames * rowBytes;
    }

    // The checksum, over everything before it, in blocks.
    {
        Cursor all(source, 0, size);
        std::uint64_t hash = kFnvOffset;
        std::vector<char> block(std::size_t(1) << 16);
        for (std::uint64_t left = size - sizeof(std::uint64_t); left > 0;) {
            const std::size_t n =
                static_cast<std::size_t>(std::min<std::uint64_t>(left, block.size()));
            if (!all.bytes(block.data(), n)) {
                error = "cannot read the run file";
                return std::nullopt;
            }
            hash = fnv1a(block.data(), n, hash);
            left -= n;
        }
        std::uint64_t checksum = 0;
        all.take(checksum);
        if (checksum != hash) {
            error = "run file is corrupted (its checksum does not match its contents)";
            return std::nullopt;
        }
    }

    LoadedRun run;
    SceneLoadResult parsed = parseScene(scene, baseDirectory);
    if (!parsed.scene) {
        error = "the run's scene does not load: " +
                (parsed.diagnostics.empty()
                     ? std::string("unknown error")
                     : parsed.diagnostics[0].where + ": " + parsed.diagnostics[0].message);
        return std::nullopt;
    }
    run.spec = std::move(*parsed.scene);
    CompileResult compiled = compile(run.spec);
    if (!compiled.model) {
        error = "the run's scene does not compile: " + compiled.diagnostics[0].message;
        return std::nullopt;
    }
    run.model = compiled.model;
    RecordingOptions options;
    options.maxBytes = std::max<std::uint64_t>(options.maxBytes, 2 * remaining);
    // A run written before frames kept the springs' force, length and rate, before they kept
    // the solvers' memory or the loop stepper's, or (an adaptive integrator's) before they kept
    // their step's origin.
    const auto findLayout = [&] {
        run.recording = std::make_unique<Recording>(*run.model, options);
        for (const bool springs : {true, false})
            for (const bool memory : {true, false})
                for (const bool stepper : {true, false})
                    for (const bool origins : {true, false}) {
                        if (run.recording->layout().size() == static_cast<int>(doubles)) return;
                        if (!memory && !stepper) continue;  // (the same layout as with it)
                        if (FrameLayout(*run.model, origins, memory, springs, stepper).size() ==
                            static_cast<int>(doubles)) {
                            RecordingOptions older = options;
                            older.stepOrigins = origins;
                            older.solverMemory = memory;
                            older.springChannels = springs;
                            older.stepperMemory = stepper;
                            run.recording = std::make_unique<Recording>(*run.model, older);
                        }
                    }
    };
    findLayout();
    // A run written before welds folded into one body (engine/model/welds.h) kept a body per
    // part: its scene is read as it was run, the welds held as joints.
    if (run.recording->layout().size() != static_cast<int>(doubles) && run.model->unfolded) {
        run.spec.settings.foldWelds = false;
        if (const CompileResult apart = compile(run.spec); apart.model) {
            run.model = apart.model;
            findLayout();
        }
        if (run.recording->layout().size() != static_cast<int>(doubles)) {
            run.spec.settings.foldWelds = true;
            run.model = compiled.model;
            findLayout();
        }
    }
    if (run.recording->layout().size() != static_cast<int>(doubles)) {
        error = "the run's frames do not match its scene (" + std::to_string(doubles) +
                " values per frame, expected " + std::to_string(run.recording->layout().size()) +
                ")";
        return std::nullopt;
    }

    Cursor rows(source, framesStart, size - trailer);
    Cursor separate(source, contactsStart, size - trailer);
    Cursor& contacts = version >= 3 ? rows : separate;
    std::vector<double> row(doubles);
    double previousTime = 0.0;
    for (std::uint64_t k = 0; k < frames; ++k) {
        rows.bytes(reinterpret_cast<char*>(row.data()), static_cast<std::size_t>(rowBytes));
        State state;
        Outputs outputs;
        run.recording->layout().decode(row.data(), state, outputs);
        // Times finite, within a bound and increasing: a player, a plot or a video of the run
        // sizes itself by them (a last time of 1e300 asked for 10³⁰¹ video frames).
        if (!std::isfinite(state.t) || std::abs(state.t) > kMaxRunTime ||
            (k > 0 && !(state.t > previousTime))) {
            error = "frame " + std::to_string(k) + " of the run has time " +
                    numberText(state.t, 17, "s") + ": " +
                    (!std::isfinite(state.t) ? std::string("not a finite number")
                     : std::abs(state.t) > kMaxRunTime
                         ? "beyond the " + std::to_string(static_cast<long long>(kMaxRunTime)) +
                               " s a run may span"
                         : std::string("not after the frame before it"));
            return std::nullopt;
        }
        previousTime = state.t;
        // Poses and velocities finite: a pose of NaN or infinity draws nothing (a video of such
        // a run was blank, exit status 0) and a run resumed from it fails at once. (Outputs may
        // be NaN: a kinematic run computes no reactions.)
        if (const std::string bad = nonFiniteState(*run.model, state); !bad.empty()) {
            error = "frame " + std::to_string(k) + " of the run (at " +
                    numberText(state.t, 17, "s") + ") has " + bad;
            return std::nullopt;
        }
        if (version >= 2 &&
            !readContacts(contacts, k, run.spec.parts.size(), outputs.contacts, error))
            return std::nullopt;
        if (version >= 4 &&
            !readContactPoints(contacts, k, run.spec.parts.size(), state.contacts, error))
            return std::nullopt;
        run.recording->append(state, outputs, true);
    }
    if (version == 2 && separate.left() != 0) {
        error = "run file has extra bytes after its contact forces";
        return std::nullopt;
    }
    return run;
}

}  // namespace

RunFileWriter::~RunFileWriter() = default;  // the OutputFile removes an unfinished temporary

bool RunFileWriter::write(const void* data, std::size_t size) {
    const char* bytes = static_cast<const char*>(data);
    checksum_ = fnv1a(bytes, size, checksum_);
    if (!file_.write(bytes, size)) failed_ = true;
    return !failed_;
}

bool RunFileWriter::open(const SceneSpec& spec, const FrameLayout& layout, const std::string& path,
                         std::string& error) {
    layout_ = layout;
    frames_ = 0;
    checksum_ = kFnvOffset;
    failed_ = false;
    row_.assign(static_cast<std::size_t>(layout.size()), 0.0);
    // Meshes held in memory only (an MJCF robot's) are written beside the run, where its
    // reader looks for the scene's meshes.
    SceneSpec written;
    if (sceneHoldsMeshesInMemory(spec)) {
        written = spec;
        if (!writeMeshesBeside(written, path, error)) return false;
    }
    if (!file_.open(path, error)) return false;
    const std::string scene = sceneToJson(sceneHoldsMeshesInMemory(spec) ? written : spec);
    std::string header(kMagic, sizeof kMagic);
    put(header, kRunFormatVersion);
    put(header, static_cast<std::uint64_t>(scene.size()));
    header += scene;
    put(header, static_cast<std::uint32_t>(layout.size()));
    if (!write(header.data(), header.size())) {
        error = file_.failure();
        file_.abandon();
        return false;
    }
    return true;
}

bool RunFileWriter::append(const State& state, const Outputs& outputs, std::string& error) {
    if (!file_.isOpen() || failed_) {
        error = file_.failure();
        return false;
    }
    layout_->encode(state, outputs, row_.data());
    contacts_.clear();
    putContacts(contacts_, outputs.contacts);
    putContactPoints(contacts_, state.contacts);
    if (!write(row_.data(), row_.size() * sizeof(double)) ||
        !write(contacts_.data(), contacts_.size())) {
        error = file_.failure();
        return false;
    }
    ++frames_;
    return true;
}

bool RunFileWriter::finish(std::string& error) {
    if (!file_.isOpen() || failed_) {
        error = file_.failure();
        file_.abandon();
        return false;
    }
    std::string trailer;
    put(trailer, frames_);
    write(trailer.data(), trailer.size());
    const std::uint64_t checksum = checksum_;
    write(&checksum, sizeof checksum);
    return file_.commit(error);  // sync, rename over the target, sync the folder
}

bool saveRunFile(const SceneSpec& spec, const Recording& recording, const std::string& path,
                 std::string& error) {
    RunFileWriter writer;
    if (!writer.open(spec, recording.layout(), path, error)) return false;
    for (std::size_t k = 0, n = recording.size(); k < n; ++k) {
        State state;
        Outputs outputs;
        if (recording.read(k, state, outputs) && !writer.append(state, outputs, error))
            return false;
    }
    return writer.finish(error);
}

std::optional<LoadedRun> loadRunFile(const std::string& path, std::string& error) {
    // Only a regular file is read (a FIFO would block, a folder opens as an empty stream).
    std::uintmax_t size = 0;
    if (const std::string problem = inputFileProblem(path, "run file", &size); !problem.empty()) {
        error = problem;
        return std::nullopt;
    }
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        error = "cannot open run file '" + path + "'";
        return std::nullopt;
    }
    char magic[sizeof kMagic] = {};
    if (!file.read(magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof kMagic) != 0) {
        error = "'" + path + "' is not a Motus run file";
        return std::nullopt;
    }
    FileSource source(file, size);
    return parseRun(source, std::filesystem::path(path).parent_path().string(), error);
}

std::optional<LoadedRun> parseRunFile(std::string_view bytes, const std::string& baseDirectory,
                                      std::string& error) {
    MemorySource source(bytes);
    return parseRun(source, baseDirectory, error);
}

}  // namespace engine::io
