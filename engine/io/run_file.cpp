#include "engine/io/run_file.h"

#include "engine/io/durable_file.h"

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "engine/io/scene_json.h"

namespace engine::io {
namespace {

constexpr char kMagic[8] = {'M', 'O', 'T', 'U', 'S', 'R', 'U', 'N'};
constexpr std::uint32_t kRunFormatVersion = 2;  // 2: per-frame contact forces after the rows

// One contact in a run file: two int32 part indices and 11 doubles.
constexpr std::size_t kContactBytes = 2 * sizeof(std::int32_t) + 11 * sizeof(double);

// FNV-1a, 64 bits: detects corruption (not tampering).
std::uint64_t fnv1a(const char* data, std::size_t size, std::uint64_t hash = 14695981039346656037ull) {
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

template <class T>
bool take(std::string_view in, std::size_t& offset, T& value) {
    if (offset > in.size() || in.size() - offset < sizeof(T)) return false;
    std::memcpy(&value, in.data() + offset, sizeof(T));
    offset += sizeof(T);
    return true;
}

}  // namespace

bool saveRunFile(const SceneSpec& spec, const Recording& recording, const std::string& path, std::string& error) {
    // Header, scene, frames, then the checksum of all that.
    const std::string scene = sceneToJson(spec);
    const auto doubles = static_cast<std::uint32_t>(recording.layout().size());
    const std::uint64_t frames = recording.size();
    std::string out(kMagic, sizeof kMagic);
    put(out, kRunFormatVersion);
    put(out, static_cast<std::uint64_t>(scene.size()));
    out += scene;
    put(out, doubles);
    put(out, frames);
    std::vector<double> row(doubles);
    std::string contacts;
    for (std::uint64_t k = 0; k < frames; ++k) {
        State state;
        Outputs outputs;
        recording.read(static_cast<std::size_t>(k), state, outputs);
        recording.layout().encode(state, outputs, row.data());
        out.append(reinterpret_cast<const char*>(row.data()), doubles * sizeof(double));
        put(contacts, static_cast<std::uint32_t>(outputs.contacts.size()));
        for (const ContactForce& c : outputs.contacts) {
            put(contacts, static_cast<std::int32_t>(c.partA));
            put(contacts, static_cast<std::int32_t>(c.partB));
            for (const Vec3* v : {&c.point_W, &c.normal_W})
                for (int i = 0; i < 3; ++i) put(contacts, (*v)(i));
            put(contacts, c.depth);
            put(contacts, c.normalForce);
            for (int i = 0; i < 3; ++i) put(contacts, c.frictionForce_W(i));
        }
    }
    out += contacts;
    put(out, fnv1a(out.data(), out.size()));

    // Atomically: a temporary file renamed over the target.
    const std::string temporary = path + ".saving";
    {
        std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
        if (!file || !file.write(out.data(), static_cast<std::streamsize>(out.size())) ||
            !syncAndClose(file, temporary)) {
            error = "cannot write '" + temporary + "' (the disk may be full)";
            std::error_code ignored;
            std::filesystem::remove(temporary, ignored);
            return false;
        }
    }
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
        error = ec.message();
        std::filesystem::remove(temporary, ec);
        return false;
    }
    syncDirectoryOf(path);
    return true;
}

std::optional<LoadedRun> loadRunFile(const std::string& path, std::string& error) {
    // Only a regular file is read (a directory opens as a stream on Linux, then fails).
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
        error = "'" + path + "' is not a file (a directory?)";
        return std::nullopt;
    }
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        error = "cannot open run file '" + path + "'";
        return std::nullopt;
    }
    const std::string in((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (in.size() < sizeof kMagic || std::memcmp(in.data(), kMagic, sizeof kMagic) != 0) {
        error = "'" + path + "' is not a Motus run file";
        return std::nullopt;
    }
    return parseRunFile(in, std::filesystem::path(path).parent_path().string(), error);
}

std::optional<LoadedRun> parseRunFile(std::string_view in, const std::string& baseDirectory,
                                      std::string& error) {
    if (in.size() < sizeof kMagic || std::memcmp(in.data(), kMagic, sizeof kMagic) != 0) {
        error = "not a Motus run file (it does not start with \"MOTUSRUN\")";
        return std::nullopt;
    }
    std::size_t offset = sizeof kMagic;
    std::uint32_t version = 0;
    std::uint64_t sceneBytes = 0;
    if (!take(in, offset, version) || !take(in, offset, sceneBytes)) {
        error = "run file is truncated (in its header)";
        return std::nullopt;
    }
    if (version < 1 || version > kRunFormatVersion) {
        error = "unsupported run file version " + std::to_string(version) + " (this Motus reads versions 1 to " +
                std::to_string(kRunFormatVersion) + ")";
        return std::nullopt;
    }
    if (sceneBytes > in.size() - offset) {
        error = "run file is truncated (in its scene)";
        return std::nullopt;
    }
    const std::string_view scene = in.substr(offset, static_cast<std::size_t>(sceneBytes));
    offset += static_cast<std::size_t>(sceneBytes);
    std::uint32_t doubles = 0;
    std::uint64_t frames = 0;
    if (!take(in, offset, doubles) || !take(in, offset, frames)) {
        error = "run file is truncated (before its frames)";
        return std::nullopt;
    }
    const std::size_t remaining = in.size() - offset;
    // Version 1 ends with the rows; version 2 has each frame's contacts after them.
    const std::size_t rowBytes = doubles * sizeof(double);
    const std::size_t contactSection =
        doubles == 0 || frames > remaining / rowBytes ? 0 : remaining - frames * rowBytes;
    if (doubles == 0 || frames > remaining / rowBytes || contactSection < sizeof(std::uint64_t) ||
        (version == 1 && contactSection != sizeof(std::uint64_t)) ||
        (version >= 2 && contactSection < sizeof(std::uint64_t) + frames * sizeof(std::uint32_t))) {
        error = "run file is truncated or has extra bytes (" + std::to_string(frames) + " frames of " +
                std::to_string(doubles) + " values announced, " + std::to_string(remaining) + " bytes left)";
        return std::nullopt;
    }
    std::uint64_t checksum = 0;
    std::size_t checksumAt = in.size() - sizeof checksum;
    take(in, checksumAt, checksum);
    if (checksum != fnv1a(in.data(), in.size() - sizeof checksum)) {
        error = "run file is corrupted (its checksum does not match its contents)";
        return std::nullopt;
    }

    LoadedRun run;
    SceneLoadResult parsed = parseScene(scene, baseDirectory);
    if (!parsed.scene) {
        error = "the run's scene does not load: " +
                (parsed.diagnostics.empty() ? std::string("unknown error")
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
    options.maxBytes = std::max<std::size_t>(options.maxBytes, 2 * remaining);
    run.recording = std::make_unique<Recording>(*run.model, options);
    if (run.recording->layout().size() != static_cast<int>(doubles)) {
        error = "the run's frames do not match its scene (" + std::to_string(doubles) + " values per frame, expected " +
                std::to_string(run.recording->layout().size()) + ")";
        return std::nullopt;
    }
    std::vector<double> row(doubles);
    std::size_t contactOffset = offset + static_cast<std::size_t>(frames) * rowBytes;
    const std::size_t end = in.size() - sizeof(std::uint64_t);
    for (std::uint64_t k = 0; k < frames; ++k) {
        std::memcpy(row.data(), in.data() + offset, rowBytes);
        offset += rowBytes;
        State state;
        Outputs outputs;
        run.recording->layout().decode(row.data(), state, outputs);
        if (version >= 2) {
            std::uint32_t count = 0;
            if (!take(in, contactOffset, count) || count > (end - std::min(end, contactOffset)) / kContactBytes) {
                error = "run file is truncated (in the contact forces of frame " + std::to_string(k) + ")";
                return std::nullopt;
            }
            outputs.contacts.resize(count);
            for (ContactForce& c : outputs.contacts) {
                std::int32_t a = 0, b = 0;
                double v[11] = {};
                take(in, contactOffset, a);
                take(in, contactOffset, b);
                for (double& x : v) take(in, contactOffset, x);
                const auto parts = static_cast<std::int32_t>(run.spec.parts.size());
                if (a < 0 || b < 0 || a >= parts || b >= parts) {
                    error = "run file is corrupted (a contact of frame " + std::to_string(k) + " names no part)";
                    return std::nullopt;
                }
                c.partA = a;
                c.partB = b;
                c.point_W = Vec3(v[0], v[1], v[2]);
                c.normal_W = Vec3(v[3], v[4], v[5]);
                c.depth = v[6];
                c.normalForce = v[7];
                c.frictionForce_W = Vec3(v[8], v[9], v[10]);
            }
        }
        run.recording->append(state, outputs, true);
    }
    if (version >= 2 && contactOffset != end) {
        error = "run file has extra bytes after its contact forces";
        return std::nullopt;
    }
    return run;
}

}  // namespace engine::io
