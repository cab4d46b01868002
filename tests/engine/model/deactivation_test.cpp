// Deactivation (engine/model/deactivation.h): elements kept in the scene and left out of the
// model, for every analysis or for one.

#include <algorithm>
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/modes.h"
#include "engine/analysis/statics.h"
#include "engine/io/scene_json.h"
#include "engine/model/deactivation.h"
#include "engine/model/edit.h"
#include "engine/model/model.h"
#include "engine/state/state.h"

namespace engine {
namespace {

SceneSpec fourBar() {
    const io::SceneLoadResult loaded =
        io::loadSceneFile(std::string(MOTUS_SOURCE_DIR) + "/scenes/four_bar.json");
    EXPECT_TRUE(loaded.scene);
    return *loaded.scene;
}

// The four-bar with its crank driven at one turn per second.
SceneSpec drivenFourBar() {
    SceneSpec spec = fourBar();
    MotionSpec drive;
    drive.id = spec.newId();
    drive.name = "drive";
    drive.joint = "pivotA";
    drive.expression = "2*pi*time";
    spec.motions.push_back(drive);
    return spec;
}

// A rotational spring of stiffness k on `joint`.
ForceSpec coilOn(const std::string& joint, double k) {
    ForceSpec coil;
    coil.name = "coil";
    coil.type = ForceType::RotationalSpringDamper;
    coil.joint = joint;
    coil.stiffness = k;
    return coil;
}

// The positions of `spec`'s bodies after a run of `seconds` from its start.
Eigen::VectorXd positionsAfter(const SceneSpec& spec, double seconds) {
    const CompileResult c = compile(spec);
    EXPECT_TRUE(c.model);
    if (!c.model) return {};
    ForwardDynamics run(c.model);
    EXPECT_TRUE(run.initialize().ok);
    EXPECT_TRUE(run.advance(seconds).ok);
    return run.state().q;
}

bool mentions(const Diagnostics& diagnostics, std::string_view where, std::string_view text) {
    return std::any_of(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& d) {
        return d.severity == Severity::Error && d.where == where &&
               d.message.find(text) != std::string::npos;
    });
}

// The modes about the stable equilibrium `model` rests in.
ModesResult modesAtRest(const Model& model) {
    const StaticResult rest = equilibrium(model, initialState(model), 1e-10, nullptr, nullptr,
                                          /*stable=*/true);
    EXPECT_TRUE(rest.status.ok) << rest.status.message;
    return modes(model, rest.state);
}

// The acceptance case: the modes of the four-bar with its motor deactivated for the modes
// analysis are the modes of the same scene without the motor, and the saved scene keeps the
// motor (and the analysis' set).
TEST(Deactivation, ModesWithTheMotorLeftOutForThemAreThoseOfTheSceneWithoutIt) {
    SceneSpec spec = drivenFourBar();
    spec.analyses[static_cast<std::size_t>(Analysis::Modes)].inactive.motions = {"drive"};

    const CompileResult forModes = compile(spec, Analysis::Modes);
    ASSERT_TRUE(forModes.model);
    EXPECT_TRUE(forModes.model->drivers.empty());
    ASSERT_EQ(forModes.model->inactive.size(), 1u);
    EXPECT_EQ(forModes.model->inactive[0], "motion 'drive': deactivated for modes");
    // Every other analysis (and the scene as such) keeps the motor.
    for (const std::optional<Analysis> other :
         {std::optional<Analysis>{}, std::optional(Analysis::Simulation),
          std::optional(Analysis::Statics), std::optional(Analysis::Kinematics)}) {
        const CompileResult c = compile(spec, other);
        ASSERT_TRUE(c.model);
        EXPECT_EQ(c.model->drivers.size(), 1u);
        EXPECT_TRUE(c.model->inactive.empty());
    }

    const CompileResult free = compile(fourBar());
    ASSERT_TRUE(free.model);
    const ModesResult left = modesAtRest(*forModes.model);
    const ModesResult without = modesAtRest(*free.model);
    ASSERT_TRUE(left.status.ok) << left.status.message;
    ASSERT_EQ(left.modes.size(), 1u);  // the four-bar's one degree of freedom, under gravity
    ASSERT_EQ(without.modes.size(), left.modes.size());
    EXPECT_GT(left.modes[0].frequency, 0.1);
    EXPECT_NEAR(left.modes[0].frequency, without.modes[0].frequency,
                1e-12 * without.modes[0].frequency);
    EXPECT_LT((left.modes[0].shape - without.modes[0].shape).norm(), 1e-9);

    // With the motor the mechanism has no degree of freedom left: no mode at all.
    const CompileResult driven = compile(spec);
    ASSERT_TRUE(driven.model);
    EXPECT_TRUE(modes(*driven.model, initialState(*driven.model)).modes.empty());

    // Saved and read again: the motor and the set are both there.
    const io::SceneLoadResult back = io::parseScene(io::sceneToJson(spec));
    ASSERT_TRUE(back.scene);
    ASSERT_EQ(back.scene->motions.size(), 1u);
    EXPECT_TRUE(back.scene->motions[0].active);
    EXPECT_EQ(back.scene->analyses[static_cast<std::size_t>(Analysis::Modes)].inactive.motions,
              std::vector<std::string>{"drive"});
}

// A deactivated part stays where it is placed and takes along what hangs on it: the joints
// with a marker on it, and through them their motions and the forces on their coordinates.
TEST(Deactivation, APartLeftOutTakesItsJointsAndWhatActsOnThem) {
    SceneSpec spec = drivenFourBar();
    spec.forces.push_back(coilOn("pinC", 3.0));
    for (Part& part : spec.parts)
        if (part.name == "rocker") part.active = false;

    const CompileResult c = compile(spec);
    ASSERT_TRUE(c.model);
    EXPECT_EQ(c.model->bodyCount(), 2);  // crank and coupler
    EXPECT_EQ(c.model->joints.size(), 2u);
    EXPECT_TRUE(c.model->forces.empty());
    EXPECT_EQ(c.model->drivers.size(), 1u);  // on pivotA, between crank and ground
    const std::vector<std::string> expected = {"part 'rocker': deactivated",
                                               "joint 'pinC': on deactivated part 'rocker'",
                                               "joint 'pivotD': on deactivated part 'rocker'",
                                               "force 'coil': on deactivated joint 'pinC'"};
    EXPECT_EQ(c.model->inactive, expected);
    // It is drawn where it was placed: a part of no body, at its initial pose.
    std::size_t rocker = 0;
    while (spec.parts[rocker].name != "rocker") ++rocker;
    EXPECT_EQ(c.model->bodyOfPart[rocker], kGround);
    EXPECT_TRUE(c.model->partPoses0[rocker].p.isApprox(spec.parts[rocker].X_WP.p));

    // The crank and coupler then swing as a double pendulum: the run equals that of the scene
    // with the rocker and its joints deleted.
    SceneSpec deleted = fourBar();
    std::erase_if(deleted.parts, [](const Part& p) { return p.name == "rocker"; });
    std::erase_if(deleted.joints,
                  [](const Joint& j) { return j.name == "pinC" || j.name == "pivotD"; });
    spec.motions.clear();
    const Eigen::VectorXd left = positionsAfter(spec, 0.5);
    const Eigen::VectorXd without = positionsAfter(deleted, 0.5);
    ASSERT_EQ(left.size(), without.size());
    EXPECT_LT((left - without).norm(), 1e-13);
}

// An expression still in the model that reads a measure of what is left out is refused, at
// its place, saying what is out and why; the ground cannot be deactivated; an analysis' set
// names elements the scene has.
TEST(Deactivation, ReadingWhatIsLeftOutAndNamingWhatIsNotThereAreErrors) {
    SceneSpec spec = drivenFourBar();
    ForceSpec push;
    push.name = "push";
    push.type = ForceType::JointForce;
    push.joint = "pivotA";
    push.components[0] = "-0.1*qd(pinC)";
    spec.forces.push_back(push);
    spec.analyses[static_cast<std::size_t>(Analysis::Statics)].inactive.joints = {"pinC"};
    EXPECT_TRUE(compile(spec).model);  // pinC is in for every other analysis
    const CompileResult statics = compile(spec, Analysis::Statics);
    EXPECT_FALSE(statics.model);
    EXPECT_TRUE(mentions(statics.diagnostics, "/forces/0/magnitude",
                         "reads 'qd(pinC)', but joint 'pinC' is deactivated for statics"));

    // A variable reading a part that is out.
    SceneSpec parts = fourBar();
    parts.variables.push_back({"height", "DZ(rocker.C)", "", std::nullopt});
    parts.parts[3].active = false;
    ASSERT_EQ(parts.parts[3].name, "rocker");
    EXPECT_TRUE(mentions(compile(parts).diagnostics, "/variables/0/expression",
                         "part 'rocker' is deactivated"));

    SceneSpec ground = fourBar();
    ground.parts[0].active = false;
    EXPECT_TRUE(mentions(compile(ground).diagnostics, "/parts/0/active",
                         "the ground cannot be deactivated"));

    SceneSpec unknown = fourBar();
    unknown.analyses[static_cast<std::size_t>(Analysis::Modes)].inactive.motions = {"motor"};
    unknown.analyses[static_cast<std::size_t>(Analysis::Simulation)].inactive.parts = {"ground"};
    const Diagnostics d = validate(unknown);
    EXPECT_TRUE(mentions(d, "/analyses/modes/inactive/motions/0", "no motion 'motor'"));
    EXPECT_TRUE(mentions(d, "/analyses/simulate/inactive/parts/0", "the ground cannot"));
}

// A deactivated force is no force: the run equals the run without it, and the saved scene
// writes `"active": false` and reads it back.
TEST(Deactivation, AForceLeftOutIsNoForceAndIsSavedAsDeactivated) {
    SceneSpec spec = fourBar();
    spec.forces.push_back(coilOn("pivotA", 40.0));
    spec.forces.back().active = false;
    const Eigen::VectorXd without = positionsAfter(fourBar(), 0.3);
    EXPECT_EQ(positionsAfter(spec, 0.3), without);

    const std::string text = io::sceneToJson(spec);
    EXPECT_NE(text.find("\"active\": false"), std::string::npos);
    const io::SceneLoadResult back = io::parseScene(text);
    ASSERT_TRUE(back.scene);
    EXPECT_FALSE(back.scene->forces[0].active);

    // Switched on again, it acts.
    spec.forces[0].active = true;
    EXPECT_GT((positionsAfter(spec, 0.3) - without).norm(), 1e-3);
}

// An analysis' set follows the edits of what it names: a rename keeps the element in it, a
// deletion takes it out (with what was deleted along), so an edit never leaves a set naming
// nothing.
TEST(Deactivation, AnAnalysisSetFollowsRenamesAndDeletions) {
    SceneSpec spec = drivenFourBar();
    InactiveSet& set = spec.analyses[static_cast<std::size_t>(Analysis::Modes)].inactive;
    set.motions = {"drive"};
    set.joints = {"pinC"};
    set.parts = {"rocker"};
    const auto idOf = [](const auto& list, const std::string& name) {
        for (const auto& e : list)
            if (e.name == name) return e.id;
        return kNoEntity;
    };
    ASSERT_TRUE(renameEntity(spec, idOf(spec.motions, "drive"), "motor"));
    ASSERT_TRUE(renameEntity(spec, idOf(spec.parts, "rocker"), "lever"));
    EXPECT_EQ(set.motions, std::vector<std::string>{"motor"});
    EXPECT_EQ(set.parts, std::vector<std::string>{"lever"});
    EXPECT_TRUE(validate(spec).empty());

    // Deleting the rocker takes pinC along, and both leave the set.
    EXPECT_FALSE(deleteEntity(spec, idOf(spec.parts, "lever")).empty());
    EXPECT_TRUE(set.parts.empty());
    EXPECT_TRUE(set.joints.empty());
    EXPECT_EQ(set.motions, std::vector<std::string>{"motor"});
    EXPECT_TRUE(validate(spec).empty());
}

}  // namespace
}  // namespace engine
