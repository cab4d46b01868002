#include "engine/io/urdf_import.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string_view>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/io/scene_json.h"
#include "engine/model/model.h"
#include "tests/support/simulation.h"

namespace engine::io {
namespace {

const std::string kArm = MOTUS_SOURCE_DIR "/scenes/urdf/three_link_arm.urdf";

// Imports URDF text through a file of its own (the importer reads files).
UrdfImportResult importText(const std::string& text) {
    static int count = 0;
    const auto path =
        std::filesystem::temp_directory_path() /
        ("motus-urdf-" + std::to_string(::getpid()) + "-" + std::to_string(count++) + ".urdf");
    std::ofstream(path) << text;
    UrdfImportResult result = importUrdfFile(path.string());
    std::filesystem::remove(path);
    return result;
}

// The first error whose place starts with `where`, or nullptr.
const Diagnostic* errorAt(const UrdfImportResult& r, std::string_view where) {
    for (const Diagnostic& d : r.diagnostics)
        if (d.severity == Severity::Error && d.where.starts_with(where)) return &d;
    return nullptr;
}

// A small arm whose numbers the tests replace: world, a base on a fixed joint, and an upper
// arm on the revolute "shoulder".
struct ArmText {
    std::string upperArmMass = "1.2";
    std::string upperArmIxx = "0.0005";
    std::string upperArmCom = "0.15 0 0";
    std::string shoulderOrigin = "0 0 0.1";
    std::string shoulderAxis = "0 1 0";
    std::string shoulderLower = "-1.57";
    std::string upperArmName = "upper_arm";

    std::string text() const {
        return R"(<robot name="arm">
  <link name="world"/>
  <joint name="anchor" type="fixed"><parent link="world"/><child link="base"/></joint>
  <link name="base"><inertial><mass value="2"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link=")" +
               upperArmName + R"("/>
    <origin xyz=")" +
               shoulderOrigin + R"(" rpy="0 0 0"/><axis xyz=")" + shoulderAxis + R"("/>
    <limit lower=")" +
               shoulderLower + R"(" upper="1.57" effort="50" velocity="2"/></joint>
  <link name=")" +
               upperArmName + R"("><inertial><origin xyz=")" + upperArmCom + R"("/><mass value=")" +
               upperArmMass + R"("/>
    <inertia ixx=")" +
               upperArmIxx + R"(" ixy="0" ixz="0" iyy="0.0095" iyz="0" izz="0.0095"/></inertial>
  </link>
</robot>
)";
    }
};

TEST(UrdfImport, LinksBecomePartsAndJointsMeetAtTheirFrames) {
    const UrdfImportResult r = importUrdfFile(kArm);
    ASSERT_TRUE(r.scene);
    const SceneSpec& s = *r.scene;
    EXPECT_EQ(s.name, "three_link_arm");
    ASSERT_EQ(s.parts.size(), 6u);  // world (ground) + 5 links
    const Part* world = s.findPart("world");
    ASSERT_NE(world, nullptr);
    EXPECT_TRUE(world->ground);
    const Part* upper = s.findPart("upper_arm");
    ASSERT_NE(upper, nullptr);
    EXPECT_EQ(upper->mass, 1.2);
    EXPECT_LT((upper->p_PPcm - Vec3(0.15, 0, 0)).norm(), 1e-15);
    // base at z 0.05, turret +0.05, shoulder +0.1: the upper arm's frame is at z = 0.2.
    EXPECT_LT((upper->X_WP.p - Vec3(0, 0, 0.2)).norm(), 1e-15);
    ASSERT_EQ(s.joints.size(), 5u);
    int revolutes = 0, fixed = 0;
    for (const Joint& j : s.joints) {
        revolutes += j.type == JointType::Revolute;
        fixed += j.type == JointType::Fixed;
        // Both markers of every joint are at the same place with z along the same axis.
        const Part* pi = s.findPart(j.markerI.part);
        const Part* pj = s.findPart(j.markerJ.part);
        const Transform X_WI = pi->X_WP * s.findMarker(j.markerI)->X_PM;
        const Transform X_WJ = pj->X_WP * s.findMarker(j.markerJ)->X_PM;
        EXPECT_LT((X_WI.p - X_WJ.p).norm(), 1e-15) << j.name;
        EXPECT_LT((X_WI.R * Vec3::UnitZ() - X_WJ.R * Vec3::UnitZ()).norm(), 1e-15) << j.name;
    }
    EXPECT_EQ(revolutes, 3);
    EXPECT_EQ(fixed, 2);
    // The shoulder turns about y.
    const Joint* shoulder = s.findJoint("shoulder");
    ASSERT_NE(shoulder, nullptr);
    EXPECT_LT((s.findMarker(shoulder->markerJ)->X_PM.R * Vec3::UnitZ() - Vec3::UnitY()).norm(),
              1e-15);
    // The gripper's mesh was found through its package:// path, scaled by 0.5.
    const Part* gripper = s.findPart("gripper");
    ASSERT_EQ(gripper->shapes.size(), 1u);
    EXPECT_EQ(gripper->shapes[0].type, ShapeType::Mesh);
    EXPECT_EQ(gripper->shapes[0].scale, Vec3::Constant(0.5));
    // Limits are reported as not enforced yet.
    bool limitWarning = false;
    for (const Diagnostic& d : r.diagnostics)
        limitWarning |= d.message.find("not enforced") != std::string::npos;
    EXPECT_TRUE(limitWarning);
}

TEST(UrdfImport, TheImportedArmFallsUnderGravityWithItsEnergyConserved) {
    const UrdfImportResult r = importUrdfFile(kArm);
    ASSERT_TRUE(r.scene);
    const auto model = test::compiled(*r.scene);
    ASSERT_TRUE(model);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    const double e0 = out.energies.balance();
    ASSERT_TRUE(sim.advance(1.0).ok);
    ASSERT_TRUE(sim.outputs(out).ok);
    EXPECT_GT(out.energies.kinetic, 0.1);  // it fell
    EXPECT_NEAR(out.energies.balance(), e0, 1e-5 * out.energies.kinetic);
    EXPECT_LT(out.constraintError, 1e-9);
}

TEST(UrdfImport, ReportsMissingAndInvalidFiles) {
    EXPECT_FALSE(importUrdfFile("/nonexistent/robot.urdf").scene);
    const UrdfImportResult r = importUrdfFile(MOTUS_SOURCE_DIR "/scenes/four_bar.json");
    EXPECT_FALSE(r.scene);
    ASSERT_FALSE(r.diagnostics.empty());
    EXPECT_NE(r.diagnostics[0].message.find("not a valid URDF"), std::string::npos);
}

TEST(UrdfImport, TextImportsLikeTheFileItCameFrom) {
    std::ifstream file(kArm, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(file)),
                           std::istreambuf_iterator<char>());
    const UrdfImportResult fromFile = importUrdfFile(kArm);
    const UrdfImportResult fromText = importUrdf(text, kArm);
    ASSERT_TRUE(fromFile.scene);
    ASSERT_TRUE(fromText.scene);
    EXPECT_EQ(sceneToJson(*fromText.scene), sceneToJson(*fromFile.scene));

    const UrdfImportResult invalid = importUrdf("<robot");
    EXPECT_FALSE(invalid.scene);
    ASSERT_FALSE(invalid.diagnostics.empty());
    EXPECT_NE(invalid.diagnostics[0].message.find("the URDF text is not a valid URDF"),
              std::string::npos)
        << invalid.diagnostics[0].message;
}

// A file named without a folder (or text with no file) finds its meshes in the working
// directory and names them relative to it, not with an empty path.
TEST(UrdfImport, AFileInTheWorkingDirectoryKeepsItsMeshPaths) {
    const std::filesystem::path previous = std::filesystem::current_path();
    std::filesystem::current_path(std::filesystem::path(kArm).parent_path());
    const UrdfImportResult r = importUrdfFile("three_link_arm.urdf");
    std::filesystem::current_path(previous);
    ASSERT_TRUE(r.scene);
    std::vector<std::string> meshFiles;
    for (const Part& part : r.scene->parts)
        for (const Shape& shape : part.shapes)
            if (shape.type == ShapeType::Mesh) meshFiles.push_back(shape.meshFile);
    EXPECT_EQ(meshFiles, std::vector<std::string>{"meshes/gripper.obj"});
}

TEST(UrdfImport, TheTestArmImports) {
    const UrdfImportResult r = importText(ArmText{}.text());
    ASSERT_TRUE(r.scene);
    EXPECT_EQ(r.scene->parts.size(), 3u);
    EXPECT_EQ(r.scene->joints.size(), 2u);
}

// A chain of 10,000 links (which overflowed the stack of the recursive link walk at ~8,000)
// imports: 10,000 moving parts, the ground, 10,000 joints, each link 0.1 m above its parent.
TEST(UrdfImport, AChainOfTenThousandLinksImports) {
    constexpr int kLinks = 10000;
    std::string text = "<robot name=\"chain\">\n<link name=\"world\"/>\n";
    for (int i = 0; i < kLinks; ++i) {
        const std::string link = "l" + std::to_string(i);
        const std::string parent = i == 0 ? "world" : "l" + std::to_string(i - 1);
        text += "<link name=\"" + link +
                "\"><inertial><origin xyz=\"0 0 0.05\"/><mass value=\"0.1\"/>"
                "<inertia ixx=\"1e-4\" ixy=\"0\" ixz=\"0\" iyy=\"1e-4\" iyz=\"0\" "
                "izz=\"1e-5\"/></inertial></link>\n"
                "<joint name=\"j" +
                std::to_string(i) + "\" type=\"continuous\"><parent link=\"" + parent +
                "\"/><child link=\"" + link +
                "\"/><origin xyz=\"0 0 0.1\"/><axis xyz=\"0 1 0\"/></joint>\n";
    }
    text += "</robot>\n";
    const UrdfImportResult r = importText(text);
    ASSERT_TRUE(r.scene);
    EXPECT_FALSE(hasErrors(r.diagnostics));
    const SceneSpec& s = *r.scene;
    ASSERT_EQ(s.parts.size(), std::size_t{kLinks} + 1);
    EXPECT_EQ(std::count_if(s.parts.begin(), s.parts.end(), [](const Part& p) { return p.ground; }),
              1);
    EXPECT_EQ(s.joints.size(), std::size_t{kLinks});
    // Parts come from the root down: the last is the chain's end, at the sum of the origins.
    double z = 0.0;
    for (int i = 0; i < kLinks; ++i) z += 0.1;
    EXPECT_EQ(s.parts.back().name, "l" + std::to_string(kLinks - 1));
    EXPECT_NEAR(s.parts.back().X_WP.p.z(), z, 1e-9);
    EXPECT_EQ(s.parts.back().markers.size(), 1u);  // its parent joint's marker only
}

// A mass that is not a positive finite number is an error naming the link and the value:
// never a substitute mass.
TEST(UrdfImport, ABadMassIsAnErrorNamingTheLinkAndTheValue) {
    const UrdfImportResult negative = importText(ArmText{.upperArmMass = "-5"}.text());
    EXPECT_FALSE(negative.scene);
    const Diagnostic* d = errorAt(negative, "link 'upper_arm'/inertial/mass");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->message, "link 'upper_arm': mass -5 kg is not positive");
    for (const std::string mass : {"0", "nan", "inf", "-inf", "1e999"}) {
        const UrdfImportResult r = importText(ArmText{.upperArmMass = mass}.text());
        EXPECT_FALSE(r.scene) << mass;
        d = errorAt(r, "link 'upper_arm'/inertial/mass");
        ASSERT_NE(d, nullptr) << mass;
        EXPECT_NE(d->message.find("link 'upper_arm'"), std::string::npos) << d->message;
        EXPECT_NE(d->message.find(mass), std::string::npos) << d->message;
    }
}

TEST(UrdfImport, ABadMomentOfInertiaIsAnErrorNamingTheLinkAndTheValue) {
    for (const std::string ixx : {"-0.001", "0", "nan"}) {
        const UrdfImportResult r = importText(ArmText{.upperArmIxx = ixx}.text());
        EXPECT_FALSE(r.scene) << ixx;
        const Diagnostic* d = errorAt(r, "link 'upper_arm'/inertial/inertia");
        ASSERT_NE(d, nullptr) << ixx;
        EXPECT_NE(d->message.find("ixx"), std::string::npos) << d->message;
        EXPECT_NE(d->message.find(ixx), std::string::npos) << d->message;
    }
}

// URDF's massless links (no <inertial>) keep importing as before: a root named "world" is the
// ground, any other link gets 1 g and a warning.
TEST(UrdfImport, ALinkWithoutInertialGetsOneGramAndAWarning) {
    const UrdfImportResult r = importText(R"(<robot name="floating">
  <link name="base_link"/>
  <joint name="mount" type="fixed"><parent link="base_link"/><child link="body"/></joint>
  <link name="body"><inertial><mass value="3"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
</robot>)");
    ASSERT_TRUE(r.scene);
    const Part* base = r.scene->findPart("base_link");
    ASSERT_NE(base, nullptr);
    EXPECT_FALSE(base->ground);
    EXPECT_EQ(base->mass, 1e-3);
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].severity, Severity::Warning);
    EXPECT_EQ(r.diagnostics[0].where, "link 'base_link'");
}

TEST(UrdfImport, AZeroOrNonFiniteJointAxisIsAnErrorNamingTheJoint) {
    for (const std::string axis : {"0 0 0", "0 nan 1", "inf 0 0"}) {
        const UrdfImportResult r = importText(ArmText{.shoulderAxis = axis}.text());
        EXPECT_FALSE(r.scene) << axis;
        const Diagnostic* d = errorAt(r, "joint 'shoulder'/axis");
        ASSERT_NE(d, nullptr) << axis;
        EXPECT_NE(d->message.find("joint 'shoulder'"), std::string::npos) << d->message;
    }
}

// URDF normalises the axis: its length does not matter, however small or large.
TEST(UrdfImport, ANonUnitJointAxisIsNormalised) {
    for (const std::string axis : {"0 2 0", "0 1e-200 0", "0 1e300 0"}) {
        const UrdfImportResult r = importText(ArmText{.shoulderAxis = axis}.text());
        ASSERT_TRUE(r.scene) << axis;
        const SceneSpec& s = *r.scene;
        const Joint* shoulder = s.findJoint("shoulder");
        ASSERT_NE(shoulder, nullptr);
        for (const MarkerRef& ref : {shoulder->markerI, shoulder->markerJ})
            EXPECT_LT((s.findMarker(ref)->X_PM.R * Vec3::UnitZ() - Vec3::UnitY()).norm(), 1e-15)
                << axis;
    }
}

// Every number read from the file must be finite; the error names the element.
TEST(UrdfImport, ANonFiniteNumberIsAnErrorNamingItsElement) {
    const UrdfImportResult origin = importText(ArmText{.shoulderOrigin = "nan 0 0.1"}.text());
    EXPECT_FALSE(origin.scene);
    const Diagnostic* d = errorAt(origin, "joint 'shoulder'/origin");
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("nan"), std::string::npos) << d->message;

    const UrdfImportResult com = importText(ArmText{.upperArmCom = "0.15 -inf 0"}.text());
    EXPECT_FALSE(com.scene);
    EXPECT_NE(errorAt(com, "link 'upper_arm'/inertial/origin"), nullptr);

    const UrdfImportResult limit = importText(ArmText{.shoulderLower = "NaN"}.text());
    EXPECT_FALSE(limit.scene);
    EXPECT_NE(errorAt(limit, "joint 'shoulder'/limit"), nullptr);

    const UrdfImportResult huge = importText(ArmText{.shoulderOrigin = "0 0 1e400"}.text());
    EXPECT_FALSE(huge.scene);
    EXPECT_NE(errorAt(huge, "joint 'shoulder'/origin"), nullptr);
}

// Messages quote at most ~60 characters of what the file holds, however long it is.
TEST(UrdfImport, MessagesQuoteABoundedExcerptOfTheFile) {
    const std::string longName(100000, 'a');
    const std::string longNumber(100000, '7');
    const UrdfImportResult r =
        importText(ArmText{.upperArmCom = longNumber + " 0 0", .upperArmName = longName}.text());
    EXPECT_FALSE(r.scene);
    ASSERT_FALSE(r.diagnostics.empty());
    for (const Diagnostic& d : r.diagnostics) {
        EXPECT_LT(d.message.size() + d.where.size(), 400u) << d.message.substr(0, 400);
        EXPECT_NE(d.message.find("…"), std::string::npos) << d.message.substr(0, 400);
    }
}

// TinyXML parses nested elements recursively: nesting is refused before it parses.
TEST(UrdfImport, DeeplyNestedElementsAreAnErrorNotAStackOverflow) {
    constexpr int kDepth = 100000;
    std::string text = R"(<robot name="deep"><link name="world"/><link name="a">)";
    for (int i = 0; i < kDepth; ++i) text += "<x>";
    for (int i = 0; i < kDepth; ++i) text += "</x>";
    text += "</link></robot>";
    // Also when hidden after a declaration: TinyXML ends "<?..." at its first '>'.
    for (const std::string& before : {std::string(), std::string("<?x > ")}) {
        const UrdfImportResult r = importText(before + text);
        EXPECT_FALSE(r.scene);
        ASSERT_EQ(r.diagnostics.size(), 1u);
        EXPECT_NE(r.diagnostics[0].message.find("nested more than"), std::string::npos)
            << r.diagnostics[0].message;
    }
    // Tags inside comments, CDATA and quoted attribute values are not elements.
    std::string tags;
    for (int i = 0; i < 1000; ++i) tags += "<x>";
    std::string commented = ArmText{}.text();
    commented.insert(commented.find("<link name=\"base\">"),
                     "<!-- " + tags + " --><data><![CDATA[" + tags + "]]></data><data a=\"" + tags +
                         "\" b='" + tags + "'/>");
    EXPECT_TRUE(importText(commented).scene);
}

// TinyXML (under urdfdom) reads a multi-byte UTF-8 sequence by the length its lead byte
// announces, past the end of a text that cuts it short (found by the fuzzer: a heap overflow).
// Text that is not UTF-8 is refused with its place; a document declaring a single-byte encoding
// is read as such; proper UTF-8 (here in a comment and a name) imports.
TEST(UrdfImport, TextThatIsNotUtf8IsAnErrorNamingThePlace) {
    const std::string arm = ArmText{}.text();
    for (const std::string& tail :
         {std::string("\xed\xed"), std::string("\xff"), std::string("\xc3"),
          std::string("\xe0\x80\x80"), std::string("\xed\xa0\x80")}) {
        const UrdfImportResult r = importText(arm + "\n" + tail);
        EXPECT_FALSE(r.scene);
        ASSERT_EQ(r.diagnostics.size(), 1u);
        const std::string line = std::to_string(1 + std::count(arm.begin(), arm.end(), '\n') + 1);
        EXPECT_NE(r.diagnostics[0].message.find("not UTF-8 at line " + line + ", column 1"),
                  std::string::npos)
            << r.diagnostics[0].message;
    }
    std::string latin1 = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n" + arm;
    latin1.insert(latin1.find("<link name=\"base\">"),
                  "<!-- Gr\xf6\xdf"
                  "e -->");
    EXPECT_TRUE(importText(latin1).scene);
    std::string utf8 = arm;
    utf8.insert(utf8.find("<link name=\"base\">"),
                "<!-- Gr\xc3\xb6\xc3\x9f"
                "e \xe2\x86\x92 \xf0\x9f\xa4\x96 -->");
    EXPECT_TRUE(importText(utf8).scene);
}

// urdfdom accepts joints that make a loop away from the root, and a link with two parents.
TEST(UrdfImport, ALoopOfJointsOrALinkWithTwoParentsIsAnError) {
    const std::string inertial =
        R"(<inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>)";
    const UrdfImportResult loop =
        importText(R"(<robot name="loop"><link name="world"/><link name="a">)" + inertial +
                   R"(</link><link name="b">)" + inertial + R"(</link>
  <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>
  <joint name="ba" type="fixed"><parent link="b"/><child link="a"/></joint></robot>)");
    EXPECT_FALSE(loop.scene);
    const Diagnostic* d = errorAt(loop, "link 'a'");
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("loop"), std::string::npos) << d->message;

    const UrdfImportResult twoParents =
        importText(R"(<robot name="two"><link name="world"/><link name="a">)" + inertial +
                   R"(</link><link name="b">)" + inertial + R"(</link>
  <joint name="wa" type="fixed"><parent link="world"/><child link="a"/></joint>
  <joint name="wb" type="fixed"><parent link="world"/><child link="b"/></joint>
  <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint></robot>)");
    EXPECT_FALSE(twoParents.scene);
    d = errorAt(twoParents, "joint '");
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("link 'b'"), std::string::npos) << d->message;

    // A joint whose child is its own parent, after another joint made it a child (found by
    // fuzzing: urdfdom builds the cycle, and its links were never freed).
    const UrdfImportResult self = importText(
        R"(<robot name="self"><link name="world"/><link name="a">)" + inertial + R"(</link>
  <joint name="wa" type="fixed"><parent link="world"/><child link="a"/></joint>
  <joint name="aa" type="fixed"><parent link="a"/><child link="a"/></joint></robot>)");
    EXPECT_FALSE(self.scene);
    d = errorAt(self, "joint 'aa'");
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("child of two joints"), std::string::npos) << d->message;
    const UrdfImportResult alone = importText(
        R"(<robot name="alone"><link name="world"/><link name="a">)" + inertial + R"(</link>
  <joint name="aa" type="fixed"><parent link="a"/><child link="a"/></joint></robot>)");
    EXPECT_FALSE(alone.scene);
    d = errorAt(alone, "link 'a'");
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("loop"), std::string::npos) << d->message;
}

// A mesh name the file system cannot look up (longer than a path may be) is a mesh not found,
// not an exception (found by fuzzing: std::filesystem::exists threw ENAMETOOLONG).
TEST(UrdfImport, AMeshNameTooLongForTheFileSystemIsNotFoundNotAnException) {
    const std::string name(5000, 'm');
    const UrdfImportResult r = importText(
        R"(<robot name="r"><link name="world"/><link name="a"><inertial><mass value="1"/>)"
        R"(<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>)"
        R"(<visual><geometry><mesh filename="package://p/)" +
        name +
        R"(.stl"/></geometry></visual></link>)"
        R"(<joint name="wa" type="fixed"><parent link="world"/><child link="a"/></joint></robot>)");
    ASSERT_TRUE(r.scene);
    bool warned = false;
    for (const Diagnostic& d : r.diagnostics)
        warned |= d.message.find("not found") != std::string::npos;
    EXPECT_TRUE(warned);
}

// A file with thousands of bad numbers lists the first 50 errors and counts the others.
TEST(UrdfImport, ThousandsOfErrorsAreCountedNotAllListed) {
    std::string text = R"(<robot name="bad"><link name="world"/>)";
    for (int i = 0; i < 2000; ++i)
        text += "<link name=\"l" + std::to_string(i) +
                "\"><inertial><mass value=\"nan\"/></inertial></link>";
    text += "</robot>";
    const UrdfImportResult r = importText(text);
    EXPECT_FALSE(r.scene);
    ASSERT_EQ(r.diagnostics.size(), 51u);
    EXPECT_EQ(r.diagnostics.back().message, "1950 more errors not listed");
}

}  // namespace
}  // namespace engine::io
