// An imported CAD assembly made part of a scene (engine/import/cad_update.h): a component chosen
// as the ground, and a STEP file that changed read again, keeping the joints that still fit.

#include "engine/import/cad_update.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "engine/analysis/assembly.h"
#include "engine/analysis/mobility.h"
#include "engine/import/step_import.h"
#include "engine/state/state.h"
#include "tests/support/cad_examples.h"
#include "tests/support/simulation.h"

namespace engine::io {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / "motus-cad-update-test";
    fs::create_directories(dir);
    return dir / name;
}

const Part* named(const SceneSpec& spec, const std::string& name) {
    return spec.findPart(name);
}

// The joint between parts a and b (either way round), or null.
const Joint* jointBetween(const SceneSpec& spec, const std::string& a, const std::string& b) {
    for (const Joint& j : spec.joints)
        if ((j.markerI.part == a && j.markerJ.part == b) ||
            (j.markerI.part == b && j.markerJ.part == a))
            return &j;
    return nullptr;
}

Vec3 markerInWorld(const SceneSpec& spec, const MarkerRef& ref) {
    const Part* part = spec.findPart(ref.part);
    const Marker* marker = spec.findMarker(ref);
    EXPECT_TRUE(part && marker) << ref.text();
    return part && marker ? (part->X_WP * marker->X_PM).p : Vec3::Constant(NAN);
}

double largestGap(const SceneSpec& spec) {
    const auto model = test::compiled(spec);
    EXPECT_TRUE(model);
    if (!model) return INFINITY;
    double largest = 0.0;
    for (const JointGap& gap : jointGapsAt(*model, initialState(*model)))
        largest = std::max({largest, gap.length, gap.angle});
    return largest;
}

// The four-bar as the GUI's review makes it: imported without a ground, the frame chosen as
// the ground, every suggestion accepted.
SceneSpec joinedFourBar(const std::string& file) {
    const CadImportResult imported = importStepFile(file);
    EXPECT_TRUE(imported.scene);
    if (!imported.scene) return {};
    SceneSpec spec = *imported.scene;
    std::vector<JointSuggestion> suggestions = imported.suggestions;
    std::string error;
    EXPECT_TRUE(makeImportedGround(spec, spec.findPart("frame")->id, error, &suggestions)) << error;
    for (const JointSuggestion& s : suggestions) addSuggestedJoint(spec, s);
    return spec;
}

// Choosing the ground after the import is the same as naming it to the importer (the CLI's
// --ground): the same parts in the same order, the same suggestions, one degree of freedom.
TEST(CadUpdate, AComponentMadeTheGroundAfterTheImportIsAsIfTheImporterWasToldIt) {
    const fs::path file = scratch("four_bar.step");
    test::writeFourBarStep(file.string());
    const CadImportResult plain = importStepFile(file.string());
    ASSERT_TRUE(plain.scene);
    ASSERT_EQ(plain.scene->parts.size(), 5u);  // a placeholder ground and the four links
    CadImportOptions told;
    told.groundComponent = "frame";
    const CadImportResult grounded = importStepFile(file.string(), told);
    ASSERT_TRUE(grounded.scene);

    SceneSpec spec = *plain.scene;
    std::vector<JointSuggestion> suggestions = plain.suggestions;
    std::string error;
    ASSERT_TRUE(makeImportedGround(spec, spec.findPart("frame")->id, error, &suggestions)) << error;
    ASSERT_EQ(spec.parts.size(), grounded.scene->parts.size());
    for (std::size_t k = 0; k < spec.parts.size(); ++k) {
        EXPECT_EQ(spec.parts[k].name, grounded.scene->parts[k].name);
        EXPECT_EQ(spec.parts[k].ground, grounded.scene->parts[k].ground);
        EXPECT_EQ(spec.parts[k].shapes.size(), grounded.scene->parts[k].shapes.size());
    }
    ASSERT_EQ(suggestions.size(), grounded.suggestions.size());
    for (std::size_t k = 0; k < suggestions.size(); ++k) {
        EXPECT_EQ(suggestions[k].partI, grounded.suggestions[k].partI);
        EXPECT_EQ(suggestions[k].partJ, grounded.suggestions[k].partJ);
        EXPECT_LE((suggestions[k].X_WJ.p - grounded.suggestions[k].X_WJ.p).norm(), 1e-12);
    }
    for (const JointSuggestion& s : suggestions) addSuggestedJoint(spec, s);
    const MobilityReport report = mobility(test::compiled(spec));
    ASSERT_TRUE(report.ok) << report.message;
    EXPECT_EQ(report.actualDof, 1);

    // Refused: the ground again, no such part, a ground that is more than a placeholder.
    EXPECT_FALSE(makeImportedGround(spec, spec.parts[0].id, error));
    EXPECT_FALSE(makeImportedGround(spec, EntityId{987654}, error));
    EXPECT_FALSE(makeImportedGround(spec, spec.findPart("crank")->id, error));
    EXPECT_NE(error.find("'frame'"), std::string::npos) << error;
}

// The crank turned from 60° to 45° in the CAD assembly: every link's solid is drawn where the
// link now is (the part frames stay), so the pins B and C moved within their parts. Re-imported:
// the joints at A and D still sit on their pins and are kept; those at B and C are moved onto
// the new pins; the motion on the crank, the weight welded to the coupler (made by hand) and
// its weld are kept; the loop closes at the new placement and the mechanism still has one
// degree of freedom.
TEST(CadUpdate, AReimportAfterTheCrankTurnedMovesTheJointsWhosePinsMoved) {
    const fs::path file = scratch("four_bar_reimport.step");
    test::writeFourBarStep(file.string(), M_PI / 3);
    SceneSpec spec = joinedFourBar(file.string());
    ASSERT_EQ(spec.joints.size(), 4u);
    const Joint* drive = jointBetween(spec, "frame", "crank");
    ASSERT_TRUE(drive);
    MotionSpec motion;
    motion.id = spec.newId();
    motion.name = "drive";
    motion.joint = drive->name;
    motion.level = MotionLevel::Velocity;
    motion.expression = "1";
    spec.motions.push_back(motion);
    Part weight;  // made by hand, welded to the coupler
    weight.id = spec.newId();
    weight.name = "weight";
    weight.mass = 0.2;
    weight.X_WP = named(spec, "coupler")->X_WP;
    Marker m;
    m.id = spec.newId();
    m.name = "mount";
    weight.markers.push_back(m);
    spec.parts.push_back(weight);
    Part& coupler = spec.parts[static_cast<std::size_t>(named(spec, "coupler") - &spec.parts[0])];
    m.id = spec.newId();
    m.name = "weld";
    coupler.markers.push_back(m);
    Joint weld;
    weld.id = spec.newId();
    weld.name = "weld";
    weld.type = JointType::Fixed;
    weld.markerI = {"weight", "mount"};
    weld.markerJ = {"coupler", "weld"};
    spec.joints.push_back(weld);
    ASSERT_LE(largestGap(spec), 1e-9);
    const std::string atB = jointBetween(spec, "crank", "coupler")->name;
    const std::string atC = jointBetween(spec, "coupler", "rocker")->name;
    const SceneSpec before = spec;

    test::writeFourBarStep(file.string(), M_PI / 4);
    const CadImportResult again = importStepFile(file.string());
    ASSERT_TRUE(again.scene);
    const CadUpdate update = updateImportedScene(spec, *again.scene, again.suggestions);
    ASSERT_TRUE(update.ok) << update.error;
    const CadUpdateReport& r = update.report;
    EXPECT_EQ(std::set<std::string>(r.updated.begin(), r.updated.end()),
              (std::set<std::string>{"frame", "crank", "coupler", "rocker"}));
    EXPECT_TRUE(r.added.empty());
    EXPECT_EQ(r.missing, std::vector<std::string>{"weight"});
    EXPECT_EQ(r.jointsKept.size(), 3u);  // A, D and the weld
    ASSERT_EQ(r.jointsRefitted.size(), 2u);
    EXPECT_TRUE(r.jointsRemoved.empty()) << r.jointsRemoved.front();
    EXPECT_TRUE(update.suggestions.empty());  // every suggestion is a joint of the scene
    EXPECT_EQ(spec.joints.size(), 5u);
    EXPECT_EQ(spec.motions.size(), 1u);
    EXPECT_EQ(spec.parts.size(), before.parts.size());

    // The refitted joints' markers are on the new pins: B at 45° on the crank's circle.
    const Vec3 A = markerInWorld(spec, jointBetween(spec, "frame", "crank")->markerI);
    const Joint* b = jointBetween(spec, "crank", "coupler");
    ASSERT_TRUE(b);
    EXPECT_EQ(b->name, atB);
    const Vec3 B = markerInWorld(spec, b->markerI);
    EXPECT_LE((markerInWorld(spec, b->markerJ) - B).norm(), 1e-12);
    const Vec3 AB = B - A;
    EXPECT_NEAR(std::hypot(AB.x(), AB.z()), 0.060, 1e-12);  // the crank's length, in x-z
    EXPECT_NEAR(std::atan2(AB.z(), AB.x()), M_PI / 4, 1e-12);
    EXPECT_EQ(jointBetween(spec, "coupler", "rocker")->name, atC);
    // The loop closes at the new placement; one degree of freedom, as before.
    EXPECT_LE(largestGap(spec), 1e-9);
    SceneSpec free = spec;
    free.motions.clear();
    const MobilityReport report = mobility(test::compiled(free));
    ASSERT_TRUE(report.ok) << report.message;
    EXPECT_EQ(report.actualDof, 1);
    // The crank's mass properties are the new solid's: the same mass, its centre turned 15°.
    const Part* crankWas = named(before, "crank");
    const Part* crankNow = named(spec, "crank");
    EXPECT_NEAR(crankNow->mass, crankWas->mass, 1e-12 * crankWas->mass);
    EXPECT_GT((crankNow->p_PPcm - crankWas->p_PPcm).norm(), 1e-3);

    // Read again unchanged: everything fits where it is, nothing moves.
    SceneSpec same = spec;
    const CadUpdate idle = updateImportedScene(same, *again.scene, again.suggestions);
    ASSERT_TRUE(idle.ok) << idle.error;
    EXPECT_EQ(idle.report.jointsKept.size(), 5u);
    EXPECT_TRUE(idle.report.jointsRefitted.empty());
    for (std::size_t k = 0; k < spec.parts.size(); ++k)
        for (std::size_t i = 0; i < spec.parts[k].markers.size(); ++i)
            EXPECT_EQ(same.parts[k].markers[i].X_PM.p, spec.parts[k].markers[i].X_PM.p)
                << spec.parts[k].name;
}

// Made by hand, without geometry: a part that moved 5 mm in the file loses its joint (the motion
// on it goes too, both named in the report); a component new in the file is added; a part only
// in the scene stays; an update that would leave the scene uncompilable changes nothing.
TEST(CadUpdate, AJointTheNewPlacementsCannotHoldIsRemovedAndSaysByHowMuch) {
    SceneSpec target;
    auto addPart = [](SceneSpec& spec, const std::string& name, bool ground, const Vec3& at) {
        Part part;
        part.id = spec.newId();
        part.name = name;
        part.ground = ground;
        part.X_WP.p = at;
        spec.parts.push_back(part);
        return &spec.parts.back();
    };
    addPart(target, "ground", true, Vec3::Zero());
    addPart(target, "arm", false, Vec3(0.1, 0, 0));
    addPart(target, "handmade", false, Vec3(0, 0, 1));
    Marker m;
    m.id = target.newId();
    m.name = "pivot";
    target.parts[1].markers.push_back(m);
    m.id = target.newId();
    m.X_PM.p = Vec3(0.1, 0, 0);
    target.parts[0].markers.push_back(m);
    Joint hinge;
    hinge.id = target.newId();
    hinge.name = "hinge";
    hinge.type = JointType::Revolute;
    hinge.markerI = {"arm", "pivot"};
    hinge.markerJ = {"ground", "pivot"};
    target.joints.push_back(hinge);
    MotionSpec motion;
    motion.id = target.newId();
    motion.name = "spin";
    motion.joint = "hinge";
    motion.level = MotionLevel::Velocity;
    motion.expression = "2";
    target.motions.push_back(motion);
    ASSERT_TRUE(test::compiled(target));

    SceneSpec imported;
    addPart(imported, "ground", true, Vec3::Zero());
    addPart(imported, "arm", false, Vec3(0.105, 0, 0))->mass = 3.0;
    addPart(imported, "bracket", false, Vec3(0, 1, 0));

    SceneSpec spec = target;
    const CadUpdate update = updateImportedScene(spec, imported, {});
    ASSERT_TRUE(update.ok) << update.error;
    const CadUpdateReport& r = update.report;
    EXPECT_EQ(r.updated, std::vector<std::string>{"arm"});
    EXPECT_EQ(r.added, std::vector<std::string>{"bracket"});
    EXPECT_EQ(r.missing, std::vector<std::string>{"handmade"});
    ASSERT_EQ(r.jointsRemoved.size(), 1u);
    EXPECT_NE(r.jointsRemoved[0].find("hinge: its markers are 5 mm apart"), std::string::npos)
        << r.jointsRemoved[0];
    EXPECT_NE(r.jointsRemoved[0].find("spin"), std::string::npos) << r.jointsRemoved[0];
    EXPECT_TRUE(spec.joints.empty());
    EXPECT_TRUE(spec.motions.empty());
    EXPECT_EQ(spec.findPart("arm")->mass, 3.0);
    EXPECT_EQ(spec.findPart("arm")->markers.size(), 1u);  // its marker stays, unused
    ASSERT_TRUE(spec.findPart("bracket"));
    EXPECT_EQ(spec.findPart("bracket")->X_WP.p, Vec3(0, 1, 0));

    // A 5 mm gap is within a tolerance of 1 cm: kept.
    SceneSpec loose = target;
    const CadUpdate lenient = updateImportedScene(loose, imported, {}, 0.01);
    ASSERT_TRUE(lenient.ok) << lenient.error;
    EXPECT_EQ(lenient.report.jointsKept, std::vector<std::string>{"hinge"});

    // A file whose arm has a negative mass would not compile: nothing changes.
    imported.parts[1].mass = -1.0;
    SceneSpec kept = target;
    const CadUpdate refused = updateImportedScene(kept, imported, {});
    EXPECT_FALSE(refused.ok);
    EXPECT_NE(refused.error.find("does not compile"), std::string::npos) << refused.error;
    EXPECT_EQ(kept.parts.size(), target.parts.size());
    EXPECT_EQ(kept.findPart("arm")->X_WP.p, target.findPart("arm")->X_WP.p);
}

}  // namespace
}  // namespace engine::io
