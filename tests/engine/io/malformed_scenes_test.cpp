// A corpus of broken scene files (tests/io/malformed, listed with the problem each must be
// reported as in expected.json): every one is refused with its place and reason, none crashes.

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/io/scene_json.h"

namespace engine::io {
namespace {

const std::string kCorpus = MOTUS_SOURCE_DIR "/tests/io/malformed/";

TEST(MalformedScenes, EveryFileIsRefusedWithItsPlaceAndReason) {
    std::ifstream in(kCorpus + "expected.json");
    const nlohmann::json cases = nlohmann::json::parse(in);
    ASSERT_GE(cases.size(), 30u);
    for (const auto& c : cases) {
        const std::string file = c["file"], where = c["where"], contains = c["contains"];
        SCOPED_TRACE(file);
        const SceneLoadResult r = loadSceneFile(kCorpus + file);
        EXPECT_FALSE(r.scene);
        bool found = false;
        std::string all;
        for (const Diagnostic& d : r.diagnostics) {
            all += d.where + ": " + d.message + "\n";
            const bool placeMatches =
                where.empty() ? d.where.empty() : d.where.rfind(where, 0) == 0;
            found = found || (placeMatches && d.message.find(contains) != std::string::npos);
        }
        EXPECT_TRUE(found) << "expected '" << contains << "' at '" << where << "', got:\n" << all;
    }
}

TEST(MalformedScenes, AFiftyMegabyteFileIsRefusedBeforeParsing) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("motus-50MB-" + std::to_string(::getpid()) + ".json");
    {
        std::ofstream out(path, std::ios::binary);
        const std::string chunk(1 << 20, ' ');
        out << "{\"format\": \"motus-scene\", \"version\": 1, \"name\": \"";
        for (int k = 0; k < 50; ++k) out << chunk;
        out << "\"}";
    }
    const SceneLoadResult r = loadSceneFile(path.string());
    std::filesystem::remove(path);
    EXPECT_FALSE(r.scene);
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_NE(r.diagnostics[0].message.find("50 MiB; scene files are limited to 16 MiB"),
              std::string::npos)
        << r.diagnostics[0].message;
}

}  // namespace
}  // namespace engine::io
