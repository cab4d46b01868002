#include "engine/io/scene_json.h"

#include <cmath>

#include "engine/model/contact_model.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace engine::io {
namespace {

std::string messagesOf(const SceneLoadResult& r) {
    std::string all;
    for (const Diagnostic& d : r.diagnostics) all += d.where + ": " + d.message + "\n";
    return all;
}

bool has(const SceneLoadResult& r, const std::string& where, const std::string& fragment) {
    for (const Diagnostic& d : r.diagnostics)
        if (d.where == where && d.message.find(fragment) != std::string::npos) return true;
    return false;
}

const char* kPendulum = R"({
  "format": "motus-scene", "version": 1, "name": "Pendulum",
  "gravity": [0, 0, -9.81],
  "parts": [
    {"name": "ground", "ground": true, "markers": [{"name": "pivot"}]},
    {"name": "link", "mass": 2.0, "inertia": [1e-4, 2e-3, 2e-3],
     "position": [0.05, 0, 0], "color": "#ff8000",
     "geometry": [{"type": "box", "size": [0.1, 0.02, 0.02]},
                  {"type": "cylinder", "radius": 0.01, "length": 0.03,
                   "orientation": {"axis": [1, 0, 0], "angleDeg": 90}}],
     "markers": [{"name": "pivot", "position": [-0.05, 0, 0],
                  "orientation": {"rpyDeg": [-90, 0, 0]}}]}
  ],
  "joints": [{"name": "hinge", "type": "revolute", "markerI": "link.pivot", "markerJ": "ground.pivot"}]
})";

TEST(SceneJson, ReadsEveryFieldOfAValidScene) {
    const SceneLoadResult r = parseScene(kPendulum);
    ASSERT_TRUE(r.scene) << messagesOf(r);
    const SceneSpec& s = *r.scene;
    EXPECT_EQ(s.name, "Pendulum");
    ASSERT_EQ(s.parts.size(), 2u);
    EXPECT_TRUE(s.parts[0].ground);
    const Part& link = s.parts[1];
    EXPECT_EQ(link.mass, 2.0);
    EXPECT_EQ(link.I_Pcm_P(1, 1), 2e-3);
    EXPECT_EQ(link.colorRgb, 0xff8000u);
    EXPECT_EQ(link.X_WP.p, Vec3(0.05, 0, 0));
    ASSERT_EQ(link.shapes.size(), 2u);
    EXPECT_EQ(link.shapes[1].type, ShapeType::Cylinder);
    // A marker rolled -90 degrees about x has its z axis along +y (a hinge axis along y).
    EXPECT_LT((link.markers[0].X_PM.R * Vec3::UnitZ() - Vec3::UnitY()).norm(), 1e-15);
    ASSERT_EQ(s.joints.size(), 1u);
    EXPECT_EQ(s.joints[0].type, JointType::Revolute);
    EXPECT_EQ(s.joints[0].markerI.text(), "link.pivot");

    // Every entity got a distinct, non-zero id.
    EXPECT_NE(link.id, kNoEntity);
    EXPECT_NE(link.id, s.parts[0].id);
    EXPECT_NE(s.joints[0].id, link.markers[0].id);
}

// Minor versions never change what a key means: before minor version 2 a dopri45 scene's step
// size was also its largest step, and such a file keeps that (and writes it out as maxStep).
TEST(SceneJson, AnOlderDopriSceneKeepsItsStepAsItsLargestStep) {
    auto settingsOf = [](const std::string& text) {
        const SceneLoadResult r = parseScene(text);
        EXPECT_TRUE(r.scene) << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
        return r.scene ? r.scene->settings : SolverSettings{};
    };
    const std::string head = R"({"format": "motus-scene", "version": 1, )";
    const std::string parts = R"("parts": [{"name": "ground", "ground": true}]})";
    const SolverSettings old = settingsOf(head + R"("settings": {"stepSize": 0.005}, )" + parts);
    EXPECT_EQ(old.maxStep, 0.005);
    EXPECT_EQ(old.outputSpacing(), 0.005);
    const SolverSettings oldDefault = settingsOf(head + R"("minorVersion": 1, )" + parts);
    EXPECT_EQ(oldDefault.maxStep, 1e-3);
    const SolverSettings oldRk4 =
        settingsOf(head + R"("settings": {"integrator": "rk4", "stepSize": 0.005}, )" + parts);
    EXPECT_EQ(oldRk4.maxStep, 0.0);
    const SolverSettings current = settingsOf(
        head + R"("minorVersion": 2, "settings": {"stepSize": 0.005, "outputInterval": 0.02}, )" +
        parts);
    EXPECT_EQ(current.maxStep, 0.0);
    EXPECT_EQ(current.outputSpacing(), 0.02);
    // Saved again, the older file says what it meant.
    SceneSpec spec;
    spec.settings = old;
    spec.parts.push_back(Part{});
    const std::string written = sceneToJson(spec);
    EXPECT_NE(written.find("\"maxStep\": 0.005"), std::string::npos) << written;
    EXPECT_NE(written.find("\"minorVersion\": " + std::to_string(kSceneFormatMinor)),
              std::string::npos);
}

// A fixed-step run lands on every output time: an interval between steps is refused.
TEST(SceneJson, AnOutputIntervalOfFixedStepsIsAWholeNumberOfSteps) {
    const std::string head = R"({"format": "motus-scene", "version": 1, "minorVersion": 2, )";
    const std::string parts = R"("parts": [{"name": "ground", "ground": true}]})";
    const SceneLoadResult r = parseScene(
        head +
        R"("settings": {"integrator": "rk4", "stepSize": 0.002, "outputInterval": 0.005}, )" +
        parts);
    ASSERT_FALSE(r.scene);
    ASSERT_FALSE(r.diagnostics.empty());
    EXPECT_EQ(r.diagnostics[0].where, "/settings/outputInterval");
    EXPECT_NE(r.diagnostics[0].message.find("not a whole number of steps of 0.002 s"),
              std::string::npos)
        << r.diagnostics[0].message;
    const SceneLoadResult ok = parseScene(
        head + R"("settings": {"integrator": "rk4", "stepSize": 0.002, "outputInterval": 0.01}, )" +
        parts);
    EXPECT_TRUE(ok.diagnostics.empty());
    const SceneLoadResult dopri =
        parseScene(head + R"("settings": {"stepSize": 0.002, "outputInterval": 0.005}, )" + parts);
    EXPECT_TRUE(dopri.diagnostics.empty()) << "dopri45 interpolates to any output time";
}

// A largest step or output interval too small to get anywhere is refused, named.
TEST(SceneJson, ALargestStepTooSmallToAdvanceIsRefused) {
    const SceneLoadResult r = parseScene(
        R"({"format": "motus-scene", "version": 1, "minorVersion": 2, "settings": {"maxStep": 1e-300, "outputInterval": 1e-12},
            "parts": [{"name": "ground", "ground": true}]})");
    ASSERT_FALSE(r.scene);
    ASSERT_EQ(r.diagnostics.size(), 2u);
    EXPECT_EQ(r.diagnostics[0].where, "/settings/outputInterval");
    EXPECT_EQ(r.diagnostics[1].where, "/settings/maxStep");
    EXPECT_NE(r.diagnostics[1].message.find("below 1e-7 s"), std::string::npos)
        << r.diagnostics[1].message;
}

TEST(SceneJson, OrientationFormsAgree) {
    // The same rotation written three ways: 90 degrees about z.
    auto partWith = [](const std::string& orientation) {
        return std::string(R"({"format":"motus-scene","version":1,"parts":[{"name":"p","mass":1,
            "inertia":[1,1,1],"orientation":)") +
               orientation + "}]}";
    };
    const SceneLoadResult q =
        parseScene(partWith(R"({"quaternion":[0.7071067811865476,0,0,0.7071067811865476]})"));
    const SceneLoadResult a = parseScene(partWith(R"({"axis":[0,0,2],"angleDeg":90})"));
    const SceneLoadResult e = parseScene(partWith(R"({"rpyDeg":[0,0,90]})"));
    ASSERT_TRUE(q.scene && a.scene && e.scene) << messagesOf(q) << messagesOf(a) << messagesOf(e);
    const Vec3 x = q.scene->parts[0].X_WP.R * Vec3::UnitX();
    EXPECT_LT((x - Vec3::UnitY()).norm(), 1e-15);
    EXPECT_LT((a.scene->parts[0].X_WP.R * Vec3::UnitX() - x).norm(), 1e-15);
    EXPECT_LT((e.scene->parts[0].X_WP.R * Vec3::UnitX() - x).norm(), 1e-15);
}

TEST(SceneJson, ReportsEveryProblemOfAFileAtOnceWithItsPath) {
    const SceneLoadResult r = parseScene(R"({
      "format": "motus-scene", "version": 1, "colour": "red",
      "parts": [
        {"name": "a", "mass": "heavy", "inertia": [1, 1]},
        {"name": "b", "mass": 1, "inertia": [1, 1, 1], "geometry": [{"type": "torus"}]},
        {"mass": 1, "inertia": [1, 1, 1], "orientation": {"quaternion": [1, 1, 0, 0]}}
      ],
      "joints": [{"name": "j", "type": "hinge", "markerI": "a", "markerJ": "b.m"}]
    })");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(has(r, "/colour", "unknown key 'colour'")) << messagesOf(r);
    EXPECT_TRUE(has(r, "/parts/0/mass", "expected a number, got a string"));
    EXPECT_TRUE(has(r, "/parts/0/inertia", "[Ixx, Iyy, Izz]"));
    EXPECT_TRUE(has(r, "/parts/1/geometry/0/type", "unknown shape type 'torus'"));
    EXPECT_TRUE(has(r, "/parts/2", "missing required key 'name'"));
    EXPECT_TRUE(has(r, "/parts/2/orientation/quaternion", "unit length"));
    EXPECT_TRUE(has(r, "/joints/0/type", "unknown joint type 'hinge'"));
    EXPECT_TRUE(has(r, "/joints/0/markerI", "\"part.marker\""));
    EXPECT_GE(r.diagnostics.size(), 8u);
}

TEST(SceneJson, ReportsSemanticProblemsAfterTheStructureIsSound) {
    const SceneLoadResult r = parseScene(R"({"format":"motus-scene","version":1,
      "parts":[{"name":"a","mass":-1,"inertia":[1,1,1]}],
      "joints":[{"name":"j","type":"spherical","markerI":"a.m","markerJ":"ghost.m"}]})");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(has(r, "/parts/0/mass", "positive")) << messagesOf(r);
    EXPECT_TRUE(has(r, "/joints/0/markerJ", "no marker 'ghost.m'"));
}

TEST(SceneJson, ReportsSyntaxErrorsWithLineAndColumn) {
    const SceneLoadResult r =
        parseScene("{\n  \"format\": \"motus-scene\",\n  \"version\": 1,,\n}");
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].where, "line 3, column 16");
    EXPECT_NE(r.diagnostics[0].message.find("invalid JSON"), std::string::npos);
}

TEST(SceneJson, RejectsOtherFormatsAndNewerVersions) {
    EXPECT_TRUE(
        has(parseScene(R"({"format":"urdf","version":1})"), "/format", "expected \"motus-scene\""));
    EXPECT_TRUE(has(parseScene(R"({"format":"motus-scene","version":99})"), "/version",
                    "unsupported scene format version 99"));
    EXPECT_TRUE(has(parseScene(R"({"version":1})"), "", "missing required key 'format'"));
    EXPECT_TRUE(has(parseScene("[1, 2]"), "", "expected an object"));
}

TEST(SceneJson, RejectsNumbersThatOverflowToInfinity) {
    const SceneLoadResult r = parseScene(
        "{\"format\":\"motus-scene\",\"version\":1,\n"
        "\"parts\":[{\"name\":\"a\",\"mass\":1e999,\"inertia\":[1,1,1]}]}");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(has(r, "line 2, column 29", "number overflow parsing '1e999'")) << messagesOf(r);
}

TEST(SceneJson, ReportsAMissingFileWithoutThrowing) {
    const SceneLoadResult r = loadSceneFile("/nonexistent/dir/scene.json");
    EXPECT_FALSE(r.scene);
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_NE(r.diagnostics[0].message.find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace engine::io

namespace engine::io {
namespace {

const char* kContactScene = R"({
  "format": "motus-scene", "version": 1, "name": "Contact",
  "contact": {"solver": "lemke", "friction": "cone", "coneFacets": 6, "iterations": 50,
              "tolerance": 1e-7, "margin": 0.002, "restitutionThreshold": 0.1,
              "stabilization": 0.3, "slop": 2e-5, "stiffness": 1e5, "damping": 50,
              "pairs": [{"name": "slick", "partA": "ground", "partB": "box", "friction": 0.1, "restitution": 0.2},
                        {"name": "apart", "partA": "box", "partB": "ball", "enabled": false}]},
  "parts": [
    {"name": "ground", "ground": true, "geometry": [{"type": "plane"}], "material": {"friction": 0.9},
     "markers": [{"name": "m"}]},
    {"name": "box", "mass": 1, "inertia": [1e-3, 1e-3, 1e-3], "geometry": [{"type": "box", "size": [0.1, 0.1, 0.1]}],
     "material": {"friction": 0.4, "restitution": 0.5}, "collision": {"group": [0, 3], "mask": 9},
     "markers": [{"name": "m"}]},
    {"name": "ball", "mass": 1, "inertia": [1e-3, 1e-3, 1e-3], "geometry": [{"type": "sphere", "radius": 0.05}],
     "collision": {"enabled": false}}
  ],
  "joints": [{"name": "slider", "type": "prismatic", "markerI": "box.m", "markerJ": "ground.m", "collide": true}]
})";

TEST(SceneJson, ReadsContactSettingsMaterialsFiltersAndPairs) {
    const SceneLoadResult r = parseScene(kContactScene);
    ASSERT_TRUE(r.scene) << messagesOf(r);
    const SceneSpec& s = *r.scene;
    EXPECT_TRUE(s.contact.enabled);  // a contact block switches contact on
    EXPECT_EQ(s.settings.integrator,
              IntegratorType::TimeStepping);  // and the velocity-level stepper
    EXPECT_EQ(s.contact.solver, ContactSolverType::Lemke);
    EXPECT_EQ(s.contact.friction, FrictionModel::Cone);
    EXPECT_EQ(s.contact.coneFacets, 6);
    EXPECT_EQ(s.contact.iterations, 50);
    EXPECT_DOUBLE_EQ(s.contact.stiffness, 1e5);
    EXPECT_EQ(s.parts[0].shapes[0].type, ShapeType::Plane);
    EXPECT_DOUBLE_EQ(s.parts[1].material.restitution, 0.5);
    EXPECT_EQ(s.parts[1].collision.group, 9u);  // bits 0 and 3
    EXPECT_EQ(s.parts[1].collision.mask, 9u);
    EXPECT_FALSE(s.parts[2].collision.enabled);
    EXPECT_TRUE(s.joints[0].collide);
    ASSERT_EQ(s.contact.pairs.size(), 2u);
    EXPECT_DOUBLE_EQ(*s.contact.pairs[0].friction, 0.1);
    EXPECT_FALSE(s.contact.pairs[1].enabled);

    // The compiled contact model: combined materials with the pair's overrides, filters.
    const ContactModel c = buildContactModel(s);
    EXPECT_DOUBLE_EQ(c.combined(0, 1).friction, 0.1);
    EXPECT_DOUBLE_EQ(c.combined(0, 1).restitution, 0.2);
    EXPECT_DOUBLE_EQ(c.combined(0, 2).friction, std::sqrt(0.9 * 0.5));
    EXPECT_TRUE(c.mayTouch(0, 1));   // jointed, but the joint lets them collide
    EXPECT_FALSE(c.mayTouch(1, 2));  // the ball does not collide at all
}

TEST(SceneJson, ContactNeedsTheTimeSteppingIntegratorAndSaneSettings) {
    const SceneLoadResult r = parseScene(R"({"format":"motus-scene","version":1,
      "settings": {"integrator": "rk4"},
      "contact": {"coneFacets": 2, "stabilization": 1.5, "pairs": [{"name": "p", "partA": "a", "partB": "ghost"}]},
      "parts":[{"name":"a","mass":1,"inertia":[1,1,1],"geometry":[{"type":"plane"}],
                "material": {"restitution": 2}}]})");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(has(r, "/settings/integrator", "timeStepping")) << messagesOf(r);
    EXPECT_TRUE(has(r, "/contact/coneFacets", "3 to 64"));
    EXPECT_TRUE(has(r, "/contact/stabilization", "between 0 and 1"));
    EXPECT_TRUE(has(r, "/contact/pairs/0/partB", "no part 'ghost'"));
    EXPECT_TRUE(has(r, "/parts/0/geometry/0", "only the ground part"));
    EXPECT_TRUE(has(r, "/parts/0/material/restitution", "between 0 and 1"));
}

TEST(SceneJson, SoftContactIsGivenByFrequencyOrByStiffnessNotBoth) {
    const std::string parts =
        R"("parts":[{"name":"g","ground":true,"geometry":[{"type":"plane"}]}]})";
    const SceneLoadResult both = parseScene(R"({"format":"motus-scene","version":1,
      "settings": {"integrator": "timeStepping"},
      "contact": {"stiffness": 1e4, "frequency": 10, "dampingRatio": -1},)" +
                                            parts);
    EXPECT_FALSE(both.scene);
    EXPECT_TRUE(has(both, "/contact/frequency", "not both")) << messagesOf(both);
    EXPECT_TRUE(has(both, "/contact/dampingRatio", "critically damped")) << messagesOf(both);
    const SceneLoadResult byFrequency = parseScene(R"({"format":"motus-scene","version":1,
      "settings": {"integrator": "timeStepping"},
      "contact": {"frequency": 12.5, "dampingRatio": 0.7},)" +
                                                   parts);
    ASSERT_TRUE(byFrequency.scene) << messagesOf(byFrequency);
    EXPECT_EQ(byFrequency.scene->contact.frequency, 12.5);
    EXPECT_EQ(byFrequency.scene->contact.dampingRatio, 0.7);
    // Written back as read.
    const std::string text = sceneToJson(*byFrequency.scene);
    EXPECT_NE(text.find("\"frequency\": 12.5"), std::string::npos) << text;
    EXPECT_NE(text.find("\"dampingRatio\": 0.7"), std::string::npos) << text;
}

}  // namespace
}  // namespace engine::io

// Hostile files: nesting deeper than any scene, huge values quoted in messages, bytes that are
// not UTF-8 (scene_json.h).

namespace engine::io {
namespace {

const std::string kHeader = R"({"format": "motus-scene", "version": 1, )";

// The CLI prints diagnostics as JSON, and nlohmann's dump throws on bytes that are not UTF-8.
bool printableAsJson(const std::string& text) {
    try {
        (void)nlohmann::json(text).dump();
        return true;
    } catch (const nlohmann::json::type_error&) {
        return false;
    }
}

// The one diagnostic of a refused file.
Diagnostic onlyDiagnostic(const SceneLoadResult& r) {
    EXPECT_FALSE(r.scene);
    EXPECT_EQ(r.diagnostics.size(), 1u) << messagesOf(r);
    return r.diagnostics.empty() ? Diagnostic{} : r.diagnostics[0];
}

TEST(SceneJsonHostile, NestingAHundredThousandDeepIsRefusedUnreadUnderAnyKey) {
    constexpr int kDeep = 100000;
    // Each case: the text before the nested value (one line), how deep that text already is,
    // and the value's opening and closing pieces, repeated kDeep times.
    struct Case {
        std::string prefix;
        int depth;
        std::string open, close, suffix;
    };
    const std::vector<Case> cases = {
        {kHeader + R"("parts": [{"name": "p", "mass": 1, "inertia": [1, 1, 1], "geometry": [)", 4,
         "[", "]", "]}]}"},
        {kHeader + R"("description": )", 1, R"({"a": )", "}", "}"},
        // An unknown key of a newer minor version, whose value would be kept and written back.
        {kHeader + R"("minorVersion": 99, "future": )", 1, R"([{"k": )", "}]", "}"},
        // Values an error message used to print whole (and recursively).
        {kHeader + R"("minorVersion": )", 1, "[", "]", "}"},
        {kHeader +
             R"("parts": [{"name": "p", "mass": 1, "inertia": [1, 1, 1], "collision": {"mask": )",
         4, "[", "]", "}}]}"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.prefix);
        std::string text = c.prefix;
        for (int k = 0; k < kDeep; ++k) text += c.open;
        text += "1";
        for (int k = 0; k < kDeep; ++k) text += c.close;
        text += c.suffix;
        // The 65th bracket is the first too deep.
        std::size_t offset = 0;
        int seen = c.depth;
        for (std::size_t k = c.prefix.size(); k < text.size(); ++k) {
            if (text[k] != '[' && text[k] != '{') continue;
            if (++seen > kMaxSceneNesting) {
                offset = k;
                break;
            }
        }
        const Diagnostic d = onlyDiagnostic(parseScene(text));
        EXPECT_EQ(d.where, "line 1, column " + std::to_string(offset + 1));
        EXPECT_NE(d.message.find("nesting deeper than 64 levels"), std::string::npos) << d.message;
        EXPECT_NE(d.message.find("at offset " + std::to_string(offset) + ":"), std::string::npos)
            << d.message;
    }
}

TEST(SceneJsonHostile, NestingUpToTheLimitIsReadAndBracketsInStringsDoNotCount) {
    // 64 levels in all: the root object, then 63 arrays under a key of a newer minor version.
    std::string nested;
    for (int k = 1; k < kMaxSceneNesting; ++k) nested += "[";
    nested += "true";
    for (int k = 1; k < kMaxSceneNesting; ++k) nested += "]";
    const SceneLoadResult deepest =
        parseScene(kHeader + R"("minorVersion": 99, "future": )" + nested + "}");
    ASSERT_TRUE(deepest.scene) << messagesOf(deepest);
    EXPECT_EQ(deepest.scene->extensions, R"({"future":)" + nested + "}");
    // Kept and written back, it reads back the same.
    const std::string written = sceneToJson(*deepest.scene);
    const SceneLoadResult again = parseScene(written);
    ASSERT_TRUE(again.scene) << messagesOf(again);
    EXPECT_EQ(sceneToJson(*again.scene), written);

    // One level more is refused.
    const Diagnostic d =
        onlyDiagnostic(parseScene(kHeader + R"("minorVersion": 99, "future": [)" + nested + "]}"));
    EXPECT_NE(d.message.find("nesting deeper than 64 levels"), std::string::npos) << d.message;

    // Brackets inside a string, after escaped quotes and backslashes, are text.
    const std::string brackets = std::string(100000, '[') + R"(\"{{\\)" + std::string(1000, '{');
    const SceneLoadResult text = parseScene(kHeader + R"("description": ")" + brackets + R"("})");
    ASSERT_TRUE(text.scene) << messagesOf(text);
    EXPECT_EQ(text.scene->description,
              std::string(100000, '[') + "\"{{\\" + std::string(1000, '{'));
}

TEST(SceneJsonHostile, MessagesQuoteAtMostSixtyCharactersOfAHugeValue) {
    // A value of 10 MB in the wrong place, or that breaks the syntax.
    const std::string huge(10'000'000, 'a');
    const std::string part = R"("parts": [{"name": "p", "mass": 1, "inertia": [1, 1, 1], )";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {kHeader + part + R"("color": ")" + huge + R"("}]})", "/parts/0/color"},
        {R"({"format": ")" + huge + R"(", "version": 1})", "/format"},
        {kHeader + R"("units": ")" + huge + R"("})", "/units"},
        {kHeader + R"(")" + huge + R"(": 1})", "/" + std::string(60, 'a') + "…"},
        {kHeader + R"("joints": [{"name": "j", "type": ")" + huge +
             R"(", "markerI": "a.m", "markerJ": "b.m"}]})",
         "/joints/0/type"},
        {kHeader + part + R"("geometry": [{"type": ")" + huge + R"("}]}]})",
         "/parts/0/geometry/0/type"},
        {kHeader + R"("settings": {"integrator": ")" + huge + R"("}})", "/settings/integrator"},
        {kHeader + R"("minorVersion": [")" + huge + R"("]})", "/minorVersion"},
        {kHeader + R"("description": ")" + huge, "line 1, column "},  // no closing quote
        {kHeader + R"("gravity": [0, 0, )" + std::string(5'000'000, '9') + "]}",
         "line 1, column 59"},
    };
    for (const auto& [text, where] : cases) {
        SCOPED_TRACE(where);
        const SceneLoadResult r = parseScene(text);
        EXPECT_FALSE(r.scene);
        ASSERT_FALSE(r.diagnostics.empty());
        EXPECT_EQ(r.diagnostics[0].where.rfind(where, 0), 0u) << r.diagnostics[0].where;
        for (const Diagnostic& d : r.diagnostics) {
            EXPECT_LE(d.where.size(), 80u);
            EXPECT_LE(d.message.size(), 400u) << d.message.substr(0, 400);
            // The value is quoted as at most 60 characters and an ellipsis.
            for (char c : {'a', '9'})
                EXPECT_EQ(d.message.find(std::string(61, c)), std::string::npos);
        }
        EXPECT_NE(r.diagnostics[0].message.find("…"), std::string::npos)
            << r.diagnostics[0].message;
    }
}

TEST(SceneJsonHostile, QuotedValuesHaveTheirControlCharactersEscaped) {
    const SceneLoadResult r = parseScene(kHeader + R"("units": "S\nI\u001b\t", "parts": [
      {"name": "p", "mass": 1, "inertia": [1, 1, 1], "collision": {"mask": {"bits": [1, "\u0007"]}}}]})");
    EXPECT_TRUE(has(r, "/units", R"(got "S\nI\u001b\t")")) << messagesOf(r);
    EXPECT_TRUE(has(r, "/parts/0/collision/mask", R"(got {"bits":[1,"\u0007"]})")) << messagesOf(r);
    for (const Diagnostic& d : r.diagnostics)
        for (char c : d.message) EXPECT_GE(static_cast<unsigned char>(c), 0x20) << d.message;
}

TEST(SceneJsonHostile, BytesThatAreNotUtf8AreRefusedWithTheirOffset) {
    struct Case {
        std::string text;
        std::string bad;       // the offending bytes, as they are in the text
        std::string expected;  // what the message says about them
    };
    const std::string part = R"("parts": [{"name": "gr)";
    const std::vector<Case> cases = {
        {kHeader + part + "\xff" + R"(ound", "ground": true}]})", "\xff", "invalid byte 0xff"},
        {kHeader + R"("description": "ab)" + "\xe2\x28\xa1" + R"("})", "\xe2\x28",
         "invalid byte sequence 0xe2 0x28"},
        {kHeader + R"("name": "overlong /: )" + "\xc0\xaf" + R"("})", "\xc0", "invalid byte 0xc0"},
        {kHeader + R"("name": "surrogate )" + "\xed\xa0\x80" + R"("})", "\xed\xa0",
         "invalid byte sequence 0xed 0xa0"},
        {kHeader + R"("name": "beyond U+10FFFF )" + "\xf4\x90\x80\x80" + R"("})", "\xf4\x90",
         "invalid byte sequence 0xf4 0x90"},
        {kHeader + "\n" + R"("description": "cut )" + "\xf0\x9f\x98", "\xf0\x9f\x98",
         "byte sequence 0xf0 0x9f 0x98"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.expected);
        const std::size_t offset = c.text.find(c.bad);
        const Diagnostic d = onlyDiagnostic(parseScene(c.text));
        EXPECT_NE(d.message.find("the file is not UTF-8 text: " + c.expected + " at offset " +
                                 std::to_string(offset)),
                  std::string::npos)
            << d.message;
        EXPECT_EQ(d.where.rfind("line ", 0), 0u) << d.where;
        EXPECT_TRUE(printableAsJson(d.message));
    }
    // The last one says why.
    EXPECT_NE(onlyDiagnostic(parseScene(cases.back().text))
                  .message.find("cut short by the end of the file"),
              std::string::npos);
    EXPECT_EQ(onlyDiagnostic(parseScene(cases.back().text)).where, "line 2, column 21");

    // Two, three and four byte characters up to U+10FFFF are text.
    const SceneLoadResult ok =
        parseScene(kHeader + R"("description": "é € 😀 )" + "\xf4\x8f\xbf\xbf" + R"("})");
    ASSERT_TRUE(ok.scene) << messagesOf(ok);
    EXPECT_EQ(ok.scene->description, "é € 😀 \xf4\x8f\xbf\xbf");
}

TEST(SceneJsonHostile, EveryMessageIsUtf8Text) {
    // Text the messages quote whole or in part: names, expressions, a path.
    const SceneLoadResult r = parseScene(kHeader + R"("parts": [
      {"name": "g€", "ground": true, "markers": [{"name": "m"}]},
      {"name": "p", "mass": 1, "inertia": [1, 1, 1], "color": "#€€€€€€€€", "markers": [{"name": "m"}]}],
      "joints": [{"name": "j", "type": "revolute", "markerI": "p.m", "markerJ": "g€.m€"}],
      "motions": [{"name": "m", "joint": "j", "expression": "2*€"}]})");
    EXPECT_FALSE(r.scene);
    EXPECT_TRUE(has(r, "/parts/1/color", "\"#€€€€€€€€\"")) << messagesOf(r);
    const SceneLoadResult semantic = parseScene(kHeader + R"("parts": [
      {"name": "g€", "ground": true, "markers": [{"name": "m"}]},
      {"name": "p", "mass": 1, "inertia": [1, 1, 1], "markers": [{"name": "m"}]}],
      "joints": [{"name": "j", "type": "revolute", "markerI": "p.m", "markerJ": "g€.m€"}],
      "motions": [{"name": "m", "joint": "j", "expression": "2*€"}]})");
    EXPECT_FALSE(semantic.scene);
    EXPECT_TRUE(has(semantic, "/motions/0/expression", "bad expression '2*€'"))
        << messagesOf(semantic);
    const SceneLoadResult missing = loadSceneFile("/nonexistent/\xff\xfe.json");
    EXPECT_TRUE(has(missing, "", "cannot open scene file '/nonexistent/\\xff\\xfe.json'"))
        << messagesOf(missing);
    for (const SceneLoadResult* result : {&r, &semantic, &missing})
        for (const Diagnostic& d : result->diagnostics) {
            EXPECT_TRUE(printableAsJson(d.where)) << d.where;
            EXPECT_TRUE(printableAsJson(d.message)) << d.message;
        }
}

}  // namespace
}  // namespace engine::io
