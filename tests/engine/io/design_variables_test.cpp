// Design variables and the numeric fields bound to them: read, evaluated, written back as
// expressions while they hold, following their entities through edits, re-evaluated when a
// variable changes, and refused with the field's pointer when they cannot be evaluated.

#include "engine/io/design_variables.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "engine/io/scene_json.h"
#include "engine/io/scene_overrides.h"
#include "engine/math/constants.h"
#include "engine/model/edit.h"
#include "engine/model/model.h"

namespace engine::io {
namespace {

// A crank of length L on a pivot, tilted by `tilt` degrees about y, with a pin at its end.
const char* kScene = R"({
  "format": "motus-scene", "version": 1, "minorVersion": 14,
  "designVariables": [
    {"name": "L", "value": 0.05, "minimum": 0.02, "maximum": 0.1},
    {"name": "tilt", "value": 30}
  ],
  "parts": [
    {"name": "ground", "ground": true, "markers": [{"name": "pivot"}]},
    {"name": "crank", "mass": "=4*L", "inertia": [1e-5, 1e-4, 1e-4],
     "position": ["=L/2", 0, 0],
     "orientation": {"axis": [0, 1, 0], "angleDeg": "=tilt"},
     "geometry": [{"type": "box", "size": ["=L", 0.01, 0.01]}],
     "markers": [{"name": "pivot", "position": ["=-L/2", 0, 0]},
                 {"name": "pin", "position": ["=L/2", 0, 0]}]}
  ],
  "joints": [{"name": "hinge", "type": "revolute",
              "markerI": "ground.pivot", "markerJ": "crank.pivot"}]
})";

SceneSpec read(const std::string& text) {
    SceneLoadResult r = parseScene(text);
    for (const Diagnostic& d : r.diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    return r.scene ? *r.scene : SceneSpec();
}

std::string firstError(const std::string& text) {
    const SceneLoadResult r = parseScene(text);
    EXPECT_FALSE(r.scene);
    for (const Diagnostic& d : r.diagnostics)
        if (d.severity == Severity::Error) return d.where + ": " + d.message;
    return "";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

TEST(DesignVariables, BoundFieldsTakeTheirExpressionsValues) {
    const SceneSpec s = read(kScene);
    ASSERT_EQ(s.designVariables.size(), 2u);
    EXPECT_EQ(s.designVariables[0].minimum, 0.02);
    const Part& crank = s.parts[1];
    EXPECT_DOUBLE_EQ(crank.mass, 0.2);
    EXPECT_DOUBLE_EQ(crank.X_WP.p.x(), 0.025);
    EXPECT_DOUBLE_EQ(crank.shapes[0].size.x(), 0.05);
    EXPECT_DOUBLE_EQ(crank.markers[0].X_PM.p.x(), -0.025);
    EXPECT_DOUBLE_EQ(crank.markers[1].X_PM.p.x(), 0.025);
    // 30° about y.
    EXPECT_NEAR(crank.X_WP.R.w(), std::cos(kPi / 12), 1e-15);
    EXPECT_NEAR(crank.X_WP.R.y(), std::sin(kPi / 12), 1e-15);
    EXPECT_EQ(s.bindings.size(), 6u);
    const std::vector<BoundField> fields = boundFields(s);
    ASSERT_EQ(fields.size(), 6u);
    const std::optional<BoundField> mass = boundFieldAt(s, "/parts/1/mass");
    ASSERT_TRUE(mass);
    EXPECT_EQ(mass->expression, "4*L");
    EXPECT_DOUBLE_EQ(mass->value, 0.2);
    EXPECT_TRUE(boundFieldAt(s, "/parts/1/markers/1/position/0"));
    EXPECT_TRUE(boundFieldAt(s, "/parts/1/orientation/angleDeg"));
    EXPECT_FALSE(boundFieldAt(s, "/parts/1/markers/1/position/1"));
}

TEST(DesignVariables, TheFileKeepsTheBindingsAndReadsBackExactly) {
    const SceneSpec s = read(kScene);
    const std::string written = sceneToJson(s);
    EXPECT_NE(written.find("\"mass\": \"=4*L\""), std::string::npos) << written;
    EXPECT_NE(written.find("\"angleDeg\": \"=tilt\""), std::string::npos) << written;
    EXPECT_NE(written.find("\"size\": [\"=L\", 0.01, 0.01]"), std::string::npos) << written;
    EXPECT_NE(written.find("\"designVariables\""), std::string::npos);
    const SceneSpec again = read(written);
    EXPECT_EQ(sceneToJson(again), written);
    EXPECT_EQ(again.bindings.size(), 6u);
}

TEST(DesignVariables, AVectorLeftOutAsZeroIsWrittenBackWithItsBinding) {
    // L = 0: the positions are zero, which the writer would leave out.
    const std::string zero =
        replaced(replaced(replaced(kScene, "\"value\": 0.05, \"minimum\": 0.02,", "\"value\": 0,"),
                          "\"=4*L\"", "0.2"),
                 "[\"=L\", 0.01", "[0.05, 0.01");
    SceneSpec s = read(zero);
    EXPECT_EQ(s.parts[1].X_WP.p, Vec3::Zero());
    const std::string written = sceneToJson(s);
    EXPECT_NE(written.find("\"position\": [\"=L/2\", 0, 0]"), std::string::npos) << written;
    EXPECT_EQ(read(written).bindings.size(), 4u);
}

TEST(DesignVariables, AFieldEditedToAnotherNumberIsNoLongerBound) {
    SceneSpec s = read(kScene);
    s.parts[1].mass = 0.3;
    s.parts[1].X_WP.R = Quat::Identity();  // the orientation replaced
    const std::string written = sceneToJson(s);
    EXPECT_NE(written.find("\"mass\": 0.3"), std::string::npos) << written;
    EXPECT_EQ(written.find("=tilt"), std::string::npos) << written;
    EXPECT_NE(written.find("=L/2"), std::string::npos) << written;
    EXPECT_EQ(boundFields(s).size(), 4u);
    EXPECT_FALSE(boundFieldAt(s, "/parts/1/mass"));
    // A change of L then leaves the edited mass alone.
    std::string error;
    ASSERT_TRUE(setDesignVariables(s, {{"L", 0.08}}, "", error)) << error;
    EXPECT_DOUBLE_EQ(s.parts[1].mass, 0.3);
    EXPECT_DOUBLE_EQ(s.parts[1].markers[1].X_PM.p.x(), 0.04);
}

TEST(DesignVariables, ChangingAVariableReevaluatesEveryBoundFieldAndKeepsTheIds) {
    SceneSpec s = read(kScene);
    const EntityId crank = s.parts[1].id, pin = s.parts[1].markers[1].id, hinge = s.joints[0].id;
    std::string error;
    ASSERT_TRUE(setDesignVariables(s, {{"L", 0.08}, {"tilt", 90}}, "", error)) << error;
    EXPECT_EQ(s.designVariables[0].value, 0.08);
    EXPECT_DOUBLE_EQ(s.parts[1].mass, 0.32);
    EXPECT_DOUBLE_EQ(s.parts[1].shapes[0].size.x(), 0.08);
    EXPECT_DOUBLE_EQ(s.parts[1].markers[1].X_PM.p.x(), 0.04);
    EXPECT_NEAR(s.parts[1].X_WP.R.y(), std::sqrt(0.5), 1e-15);
    EXPECT_EQ(s.parts[1].id, crank);
    EXPECT_EQ(s.parts[1].markers[1].id, pin);
    EXPECT_EQ(s.joints[0].id, hinge);
    EXPECT_EQ(boundFields(s).size(), 6u);

    EXPECT_FALSE(setDesignVariables(s, {{"Lc", 0.1}}, "", error));
    EXPECT_EQ(error, "no design variable 'Lc'");
    EXPECT_FALSE(setDesignVariables(s, {{"L", std::nan("")}}, "", error));
    EXPECT_DOUBLE_EQ(s.parts[1].mass, 0.32);  // unchanged by the refusals
}

TEST(DesignVariables, ABindingFollowsItsEntityWhenOthersComeAndGo) {
    SceneSpec s = read(kScene);
    Part extra;
    extra.name = "weight";
    extra.id = s.newId();
    s.parts.insert(s.parts.begin() + 1, extra);  // the crank is now /parts/2
    const std::optional<BoundField> mass = boundFieldAt(s, "/parts/2/mass");
    ASSERT_TRUE(mass);
    EXPECT_EQ(mass->expression, "4*L");
    EXPECT_NE(sceneToJson(s).find("\"mass\": \"=4*L\""), std::string::npos);
    // The crank deleted: its bindings go with it.
    deleteEntity(s, s.parts[2].id);
    EXPECT_TRUE(boundFields(s).empty());
    EXPECT_EQ(sceneToJson(s).find("\"=L"), std::string::npos);
}

TEST(DesignVariables, BindingAndUnbindingAField) {
    SceneSpec s = read(kScene);
    std::string error;
    ASSERT_TRUE(bindField(s, "/parts/1/markers/1/position/1", "L/5", "", error)) << error;
    EXPECT_DOUBLE_EQ(s.parts[1].markers[1].X_PM.p.y(), 0.01);
    ASSERT_TRUE(bindField(s, "/parts/0/markers/0/position/2", "-L", "", error)) << error;
    EXPECT_DOUBLE_EQ(s.parts[0].markers[0].X_PM.p.z(), -0.05);  // a vector left out as zero
    EXPECT_EQ(boundFields(s).size(), 8u);
    EXPECT_FALSE(bindField(s, "/parts/1/mass", "L*time", "", error));
    EXPECT_NE(error.find("reads time"), std::string::npos) << error;
    EXPECT_FALSE(bindField(s, "/parts/1/mass", "Lx", "", error));
    EXPECT_NE(error.find("the design variables are L, tilt"), std::string::npos) << error;
    EXPECT_FALSE(bindField(s, "/parts/1/name", "L", "", error));
    EXPECT_FALSE(bindField(s, "/parts/7/mass", "L", "", error));
    EXPECT_TRUE(unbindField(s, "/parts/1/mass"));
    EXPECT_FALSE(unbindField(s, "/parts/1/mass"));
    EXPECT_DOUBLE_EQ(s.parts[1].mass, 0.2);
    EXPECT_NE(sceneToJson(s).find("\"mass\": 0.2"), std::string::npos);
}

TEST(DesignVariables, RenamingAVariableReachesItsBindings) {
    SceneSpec s = read(kScene);
    s.designVariables[0].name = "L_crank";
    renameDesignVariableInBindings(s, "L", "L_crank");
    const std::string written = sceneToJson(s);
    EXPECT_NE(written.find("\"=4*L_crank\""), std::string::npos) << written;
    EXPECT_EQ(read(written).bindings.size(), 6u);
}

TEST(DesignVariables, BadBindingsAreRefusedWithTheFieldsPointer) {
    EXPECT_EQ(firstError(replaced(kScene, "\"=4*L\"", "\"=4*Lc\"")).substr(0, 15),
              "/parts/1/mass: ");
    EXPECT_NE(firstError(replaced(kScene, "\"=4*L\"", "\"=4*Lc\"")).find("Lc"), std::string::npos);
    EXPECT_NE(firstError(replaced(kScene, "\"=4*L\"", "\"=\"")).find("followed by an expression"),
              std::string::npos);
    EXPECT_NE(firstError(replaced(kScene, "\"=4*L\"", "\"=L/(tilt-30)\"")).find("infinite"),
              std::string::npos);
    EXPECT_NE(firstError(replaced(kScene, "\"=4*L\"", "\"=sin(time)\"")).find("reads time"),
              std::string::npos);
    // Where the field takes no number: the reader's own message, at the field.
    EXPECT_EQ(firstError(replaced(kScene, "\"ground\": true", "\"ground\": \"=L\"")).substr(0, 17),
              "/parts/0/ground: ");
    // Design variables' own checks.
    EXPECT_NE(firstError(replaced(replaced(kScene, "\"name\": \"tilt\"", "\"name\": \"L\""),
                                  "\"=tilt\"", "30"))
                  .find("duplicate"),
              std::string::npos);
    EXPECT_NE(firstError(replaced(kScene, "\"name\": \"tilt\"", "\"name\": \"sin\"")), "");
    EXPECT_NE(firstError(replaced(kScene, "\"maximum\": 0.1", "\"maximum\": 0.01"))
                  .find("above the minimum"),
              std::string::npos);
    // A description is text, whatever it starts with.
    const SceneSpec s = read(replaced(kScene, "\"minorVersion\": 14,",
                                      "\"minorVersion\": 14, \"description\": \"=L\","));
    EXPECT_EQ(s.description, "=L");
    EXPECT_NE(sceneToJson(s).find("\"description\": \"=L\""), std::string::npos);
}

// A file bound all through is refused before it takes long to read: at most 100 000 bindings.
TEST(DesignVariables, AFileOfTooManyBindingsIsRefusedQuickly) {
    std::string shapes;
    for (int k = 0; k < 34000; ++k)
        shapes += std::string(k ? "," : "") + R"({"type": "box", "size": ["=L", "=L", "=L"]})";
    const std::string text =
        R"({"format": "motus-scene", "version": 1, "designVariables": [{"name": "L", "value": 1}],
            "parts": [{"name": "ground", "ground": true, "geometry": [)" +
        shapes + "]}]}";
    const std::string error = firstError(text);
    EXPECT_NE(error.find("a scene binds at most 100000"), std::string::npos) << error;
    EXPECT_EQ(error.rfind("/parts/0/geometry/33333/size/1: ", 0), 0u) << error;
}

// A stale binding among many: the writer reads the file back a few times, not once a binding.
TEST(DesignVariables, OneEditedFieldAmongThousandsOfBindingsIsFoundInAFewReadings) {
    std::string parts = R"({"name": "ground", "ground": true})";
    for (int k = 0; k < 2000; ++k)
        parts += R"(, {"name": "p)" + std::to_string(k) +
                 R"(", "mass": "=m", "inertia": [1, 1, 1], "position": ["=L*)" + std::to_string(k) +
                 R"(", 0, 0]})";
    SceneSpec s = read(R"({"format": "motus-scene", "version": 1,
        "designVariables": [{"name": "m", "value": 1}, {"name": "L", "value": 0.1}],
        "parts": [)" + parts +
                       "]}");
    ASSERT_EQ(s.bindings.size(), 4000u);
    s.parts[700].mass = 2.0;
    s.parts[1300].X_WP.p.x() = -1.0;
    const std::vector<BoundField> fields = boundFields(s);
    EXPECT_EQ(fields.size(), 3998u);
    const std::string written = sceneToJson(s);
    const SceneSpec again = read(written);
    EXPECT_EQ(again.bindings.size(), 3998u);
    EXPECT_EQ(again.parts[700].mass, 2.0);
    EXPECT_EQ(again.parts[1300].X_WP.p.x(), -1.0);
    EXPECT_EQ(sceneToJson(again), written);
}

// Expressions read design variables as named constants: a motion's speed, a force's gain.
TEST(DesignVariables, ExpressionsReadDesignVariablesByName) {
    std::string text =
        replaced(kScene, R"("joints": [)", R"js("motions": [{"name": "drive", "joint": "hinge",
        "expression": "w0*time"}],
      "forces": [{"name": "drag", "type": "jointForce", "joint": "hinge",
        "magnitude": "-c*qd(hinge)"}],
      "joints": [)js");
    text = replaced(text, R"({"name": "tilt", "value": 30})",
                    R"({"name": "tilt", "value": 30}, {"name": "w0", "value": 6.25},
                       {"name": "c", "value": 0.5})");
    SceneLoadResult r = parseScene(text);
    for (const Diagnostic& d : r.diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    ASSERT_TRUE(r.scene);
    const CompileResult compiled = compile(*r.scene);
    ASSERT_TRUE(compiled.model);
    ASSERT_EQ(compiled.model->drivers.size(), 1u);
    EXPECT_DOUBLE_EQ(compiled.model->drivers[0].f.eval(2.0), 12.5);
    // A changed value reaches the compiled expressions.
    SceneSpec s = *r.scene;
    std::string error;
    ASSERT_TRUE(setDesignVariables(s, {{"w0", 1.5}}, "", error)) << error;
    EXPECT_DOUBLE_EQ(compile(s).model->drivers[0].f.eval(2.0), 3.0);
    // An unknown name is still refused, saying design variables count.
    const std::string bad = firstError(replaced(text, "\"w0*time\"", "\"w1*time\""));
    EXPECT_NE(bad.find("/motions/0/expression"), std::string::npos) << bad;
    const std::string badForce = firstError(replaced(text, "-c*qd", "-cc*qd"));
    EXPECT_NE(badForce.find("not a variable or design variable"), std::string::npos) << badForce;
}

TEST(DesignVariables, AnOverrideSetsADesignVariableByItsName) {
    const std::string path = ::testing::TempDir() + "/design_variables_override.json";
    std::string error;
    ASSERT_TRUE(saveSceneFile(read(kScene), path, error)) << error;
    SceneOverride o;
    ASSERT_TRUE(parseOverride("/designVariables/L/value=0.07", o, error)) << error;
    const SceneLoadResult r = loadSceneFile(path, {o});
    ASSERT_TRUE(r.scene);
    EXPECT_DOUBLE_EQ(r.scene->parts[1].mass, 0.28);
    EXPECT_DOUBLE_EQ(r.scene->parts[1].markers[1].X_PM.p.x(), 0.035);
}

}  // namespace
}  // namespace engine::io
