#include "engine/import/robot_import.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "engine/import/mjcf_import.h"
#include "engine/import/sdf_import.h"
#include "engine/import/urdf_import.h"
#include "engine/io/input_file.h"

namespace engine::io {
namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

// The name of the first element of an XML file (after its declaration, comments and
// doctype), "" when none is found in its first 64 kB.
std::string rootElement(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string text(1 << 16, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    std::size_t i = 0;
    while ((i = text.find('<', i)) != std::string::npos) {
        if (text.compare(i, 4, "<!--") == 0) {
            i = text.find("-->", i);
            if (i == std::string::npos) return "";
            continue;
        }
        if (text.compare(i, 2, "<?") == 0 || text.compare(i, 2, "<!") == 0) {
            i = text.find('>', i);
            if (i == std::string::npos) return "";
            continue;
        }
        std::size_t end = i + 1;
        while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) ||
                                     text[end] == '_' || text[end] == ':' || text[end] == '-'))
            ++end;
        return text.substr(i + 1, end - i - 1);
    }
    return "";
}

}  // namespace

std::string_view robotFormatName(RobotFormat format) {
    switch (format) {
    case RobotFormat::Urdf:
        return "URDF";
    case RobotFormat::Mjcf:
        return "MJCF";
    case RobotFormat::Sdf:
        return "SDF";
    }
    return "URDF";
}

std::optional<RobotFormat> robotFormatOf(const std::string& path, std::string& why) {
    const std::string extension = lower(std::filesystem::path(path).extension().string());
    if (extension == ".urdf") return RobotFormat::Urdf;
    if (extension == ".mjcf") return RobotFormat::Mjcf;
    if (extension == ".sdf" || extension == ".world") return RobotFormat::Sdf;
    if (extension == ".xml") {
        if (const std::string problem = inputFileProblem(path, "file"); !problem.empty()) {
            why = problem;
            return std::nullopt;
        }
        const std::string root = rootElement(path);
        if (root == "robot") return RobotFormat::Urdf;
        if (root == "mujoco") return RobotFormat::Mjcf;
        if (root == "sdf") return RobotFormat::Sdf;
        why = "'" + path + "' is XML but not a robot description: its root element is " +
              (root.empty() ? std::string("missing") : "<" + root.substr(0, 60) + ">") +
              " (expected <robot> for URDF, <mujoco> for MJCF or <sdf> for SDF)";
        return std::nullopt;
    }
    why = "cannot tell the format of '" + path +
          "' from its extension (expected .urdf, .xml or .mjcf for MuJoCo, .sdf or .world)";
    return std::nullopt;
}

RobotImportResult importRobotFile(const std::string& path, const RobotImportOptions& options) {
    std::string why;
    const std::optional<RobotFormat> format = robotFormatOf(path, why);
    if (!format) {
        RobotImportResult result;
        result.diagnostics.push_back({Severity::Error, "", why});
        return result;
    }
    switch (*format) {
    case RobotFormat::Urdf:
        return importUrdfFile(path, options);
    case RobotFormat::Mjcf:
        return importMjcfFile(path, options);
    case RobotFormat::Sdf:
        return importSdfFile(path, options);
    }
    return importUrdfFile(path, options);  // every format is handled above
}

}  // namespace engine::io
