// STEP import (engine/import/step_import.h) against assemblies written here with OpenCASCADE:
// placements, exact mass properties against the closed forms, names, colours, materials, and
// files that are not what they claim.

#include "engine/import/step_import.h"

#include <BRepAlgoAPI_Cut.hxx>
#include <BRepBuilderAPI_MakeFace.hxx>
#include <BRepBuilderAPI_MakePolygon.hxx>
#include <BRepBuilderAPI_Transform.hxx>
#include <BRepPrimAPI_MakeBox.hxx>
#include <BRepPrimAPI_MakeCylinder.hxx>
#include <BRepPrimAPI_MakeSphere.hxx>
#include <Quantity_Color.hxx>
#include <TCollection_HAsciiString.hxx>
#include <TDataStd_Name.hxx>
#include <TDocStd_Document.hxx>
#include <TopoDS_Solid.hxx>
#include <XCAFDoc_ColorTool.hxx>
#include <XCAFDoc_DocumentTool.hxx>
#include <XCAFDoc_MaterialTool.hxx>
#include <XCAFDoc_ShapeTool.hxx>
#include <gp_Ax1.hxx>
#include <gp_Pln.hxx>
#include <gp_Quaternion.hxx>
#include <gp_Trsf.hxx>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/mobility.h"
#include "engine/analysis/statics.h"
#include "engine/io/scene_json.h"
#include "engine/math/constants.h"
#include "tests/support/cad_examples.h"
#include "tests/support/simulation.h"

namespace engine::io {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / "motus-step-import-test";
    fs::create_directories(dir);
    return dir / name;
}

// A rigid placement in millimetres: a rotation by `angle` about `axis` through the origin, then
// a translation.
gp_Trsf placement(const gp_Dir& axis, double angle, const gp_Vec& translation) {
    gp_Trsf rotation;
    rotation.SetRotation(gp_Ax1(gp::Origin(), axis), angle);
    gp_Trsf shift;
    shift.SetTranslation(translation);
    return shift * rotation;
}

Transform toTransform(const gp_Trsf& X, double scale) {
    const gp_Quaternion q = X.GetRotation();
    Transform out;
    out.R = Quat(q.W(), q.X(), q.Y(), q.Z());
    const gp_XYZ t = X.TranslationPart();
    out.p = scale * Vec3(t.X(), t.Y(), t.Z());
    return out;
}

// The test assembly, in millimetres:
//   machine
//   ├── block   a 100 × 60 × 20 box, turned 30° about z inside its own product (steel)
//   └── arm     a sub-assembly, turned and moved
//       ├── pin     a cylinder, radius 8, length 50, turned 90° about x (red)
//       └── sleeve  a tube, radii 15 and 9, length 40 (aluminium, 2.7 g/cm³; blue)
struct Assembly {
    static constexpr double a = 100, b = 60, c = 20;  // block [mm]
    static constexpr double r = 8, h = 50;            // pin
    static constexpr double R = 15, ri = 9, L = 40;   // sleeve
    gp_Trsf blockPlace = placement(gp::DZ(), 0.3, gp_Vec(200, -50, 10));
    gp_Trsf blockInside = placement(gp::DZ(), kPi / 6, gp_Vec(0, 0, 0));
    gp_Trsf armPlace = placement(gp_Dir(1, 1, 1), 0.7, gp_Vec(-30, 40, 120));
    gp_Trsf pinPlace = placement(gp::DX(), kPi / 2, gp_Vec(5, 0, 0));
    gp_Trsf sleevePlace = placement(gp::DY(), 0.2, gp_Vec(0, 70, -5));

    void write(const fs::path& path, bool materials = true) const {
        Handle(TDocStd_Document) document = test::newXdeDocument();
        Handle(XCAFDoc_ShapeTool) shapes = XCAFDoc_DocumentTool::ShapeTool(document->Main());
        Handle(XCAFDoc_ColorTool) colors = XCAFDoc_DocumentTool::ColorTool(document->Main());
        Handle(XCAFDoc_MaterialTool) mats = XCAFDoc_DocumentTool::MaterialTool(document->Main());

        const TopoDS_Shape box =
            BRepBuilderAPI_Transform(BRepPrimAPI_MakeBox(a, b, c).Shape(), blockInside, true)
                .Shape();
        const TopoDS_Shape cylinder = BRepPrimAPI_MakeCylinder(r, h).Shape();
        const TopoDS_Shape tube = BRepAlgoAPI_Cut(BRepPrimAPI_MakeCylinder(R, L).Shape(),
                                                  BRepPrimAPI_MakeCylinder(ri, L).Shape())
                                      .Shape();
        const TDF_Label block = shapes->AddShape(box, false);
        TDataStd_Name::Set(block, "block");
        const TDF_Label pin = shapes->AddShape(cylinder, false);
        TDataStd_Name::Set(pin, "pin");
        colors->SetColor(pin, Quantity_Color(1.0, 0.0, 0.0, Quantity_TOC_sRGB), XCAFDoc_ColorGen);
        const TDF_Label sleeve = shapes->AddShape(tube, false);
        TDataStd_Name::Set(sleeve, "sleeve");
        colors->SetColor(sleeve, Quantity_Color(0.2, 0.4, 0.8, Quantity_TOC_sRGB),
                         XCAFDoc_ColorGen);
        if (materials) {
            const TDF_Label aluminium = mats->AddMaterial(
                new TCollection_HAsciiString("aluminium"), new TCollection_HAsciiString("6061"),
                2.7, new TCollection_HAsciiString("density"),
                new TCollection_HAsciiString("POSITIVE_RATIO_MEASURE"));
            mats->SetMaterial(sleeve, aluminium);
        }
        const TDF_Label arm = shapes->NewShape();
        TDataStd_Name::Set(arm, "arm");
        shapes->AddComponent(arm, pin, TopLoc_Location(pinPlace));
        shapes->AddComponent(arm, sleeve, TopLoc_Location(sleevePlace));
        const TDF_Label machine = shapes->NewShape();
        TDataStd_Name::Set(machine, "machine");
        shapes->AddComponent(machine, block, TopLoc_Location(blockPlace));
        shapes->AddComponent(machine, arm, TopLoc_Location(armPlace));
        shapes->UpdateAssemblies();
        test::writeStep(document, path.string(), materials);
    }
};

// The assembly's sizes in metres, as the import gives them.
namespace si {
constexpr double a = Assembly::a * 1e-3, b = Assembly::b * 1e-3, c = Assembly::c * 1e-3;
constexpr double r = Assembly::r * 1e-3, h = Assembly::h * 1e-3;
constexpr double R = Assembly::R * 1e-3, ri = Assembly::ri * 1e-3, L = Assembly::L * 1e-3;
}  // namespace si

const Part& partNamed(const SceneSpec& spec, const std::string& name) {
    for (const Part& part : spec.parts)
        if (part.name == name) return part;
    ADD_FAILURE() << "no part " << name;
    return spec.parts.front();
}

void expectInertia(const Mat3& actual, const Mat3& expected, const std::string& what) {
    const double scale = expected.norm();
    EXPECT_LE((actual - expected).norm(), 1e-6 * scale) << what << "\nactual\n"
                                                        << actual << "\nexpected\n"
                                                        << expected;
}

TEST(StepImport, AnAssemblyInMillimetresGivesPlacedPartsWithExactMassProperties) {
    const Assembly assembly;
    const fs::path file = scratch("machine.step");
    assembly.write(file);
    const CadImportResult imported = importStepFile(file.string());
    for (const Diagnostic& d : imported.diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    ASSERT_TRUE(imported.scene);
    const SceneSpec& spec = *imported.scene;
    ASSERT_EQ(spec.parts.size(), 4u);  // the ground and the three components
    EXPECT_TRUE(spec.parts[0].ground);
    EXPECT_EQ(imported.statistics.components, 3);
    EXPECT_EQ(imported.statistics.solids, 3);

    const double mm = 1e-3, steel = 7850.0, aluminium = 2700.0;
    // block: a steel box, placed as the assembly places it; inside its frame, turned 30°.
    {
        const Part& block = partNamed(spec, "block");
        const Transform X = toTransform(assembly.blockPlace, mm);
        EXPECT_LE((block.X_WP.p - X.p).norm(), 1e-9);
        EXPECT_LE(block.X_WP.R.angularDistance(X.R), 1e-12);
        const double m = steel * si::a * si::b * si::c;
        EXPECT_NEAR(block.mass, m, 1e-6 * m);
        const Mat3 R = Eigen::AngleAxisd(kPi / 6, Vec3::UnitZ()).toRotationMatrix();
        const Vec3 centre = R * Vec3(si::a, si::b, si::c) / 2;
        EXPECT_LE((block.p_PPcm - centre).norm(), 1e-9);
        const Vec3 d(si::b * si::b + si::c * si::c, si::a * si::a + si::c * si::c,
                     si::a * si::a + si::b * si::b);
        expectInertia(block.I_Pcm_P, R * (m / 12 * d).asDiagonal() * R.transpose(), "block");
        // drawn and touched as the exact box
        ASSERT_EQ(block.shapes.size(), 1u);
        EXPECT_EQ(block.shapes[0].type, ShapeType::Box);
        const Vec3 size = block.shapes[0].size;
        EXPECT_NEAR(size.maxCoeff(), si::a, 1e-12);
        EXPECT_NEAR(size.minCoeff(), si::c, 1e-12);
        EXPECT_LE((block.shapes[0].X_PG.p - centre).norm(), 1e-9);
        EXPECT_EQ(block.colorRgb, Part().colorRgb);  // (no colour in the file: Motus's)
    }
    // pin: in the sub-assembly, turned and moved twice; red.
    {
        const Part& pin = partNamed(spec, "pin");
        const Transform X = toTransform(assembly.armPlace * assembly.pinPlace, mm);
        EXPECT_LE((pin.X_WP.p - X.p).norm(), 1e-9);
        EXPECT_LE(pin.X_WP.R.angularDistance(X.R), 1e-12);
        const double m = steel * kPi * si::r * si::r * si::h;
        EXPECT_NEAR(pin.mass, m, 1e-6 * m);
        EXPECT_LE((pin.p_PPcm - Vec3(0, 0, si::h / 2)).norm(), 1e-9);
        const double across = m * (3 * si::r * si::r + si::h * si::h) / 12;
        expectInertia(pin.I_Pcm_P, Vec3(across, across, m * si::r * si::r / 2).asDiagonal(), "pin");
        ASSERT_EQ(pin.shapes.size(), 1u);
        EXPECT_EQ(pin.shapes[0].type, ShapeType::Cylinder);
        EXPECT_NEAR(pin.shapes[0].radius, si::r, 1e-12);
        EXPECT_NEAR(pin.shapes[0].length, si::h, 1e-12);
        EXPECT_EQ(pin.colorRgb, 0xff0000u);
    }
    // sleeve: a hollow tube of aluminium (the file's material); drawn as a tessellation.
    {
        const Part& sleeve = partNamed(spec, "sleeve");
        const Transform X = toTransform(assembly.armPlace * assembly.sleevePlace, mm);
        EXPECT_LE((sleeve.X_WP.p - X.p).norm(), 1e-9);
        EXPECT_LE(sleeve.X_WP.R.angularDistance(X.R), 1e-12);
        const double m = aluminium * kPi * (si::R * si::R - si::ri * si::ri) * si::L;
        EXPECT_NEAR(sleeve.mass, m, 1e-6 * m);
        EXPECT_LE((sleeve.p_PPcm - Vec3(0, 0, si::L / 2)).norm(), 1e-9);
        const double s = si::R * si::R + si::ri * si::ri;
        const double across = m * (3 * s + si::L * si::L) / 12;
        expectInertia(sleeve.I_Pcm_P, Vec3(across, across, m * s / 2).asDiagonal(), "sleeve");
        ASSERT_EQ(sleeve.shapes.size(), 1u);
        EXPECT_EQ(sleeve.shapes[0].type, ShapeType::Mesh);
        ASSERT_TRUE(sleeve.shapes[0].mesh);
        EXPECT_GT(sleeve.shapes[0].mesh->triangles.size(), 50u);
        // the drawing lies on the tube: every vertex between the radii, within the tolerance
        for (const Vec3& v : sleeve.shapes[0].mesh->vertices) {
            const double radius = v.head<2>().norm();
            EXPECT_GE(radius, si::ri - 1e-4);
            EXPECT_LE(radius, si::R + 1e-9);
            EXPECT_GE(v.z(), -1e-9);
            EXPECT_LE(v.z(), si::L + 1e-9);
        }
        EXPECT_EQ(sleeve.colorRgb, 0x3366ccu);
    }
}

// By solid or with a sub-assembly kept rigid, with the default density the user gives.
TEST(StepImport, ASubAssemblyKeptRigidIsOnePartWithItsSolidsMassProperties) {
    const Assembly assembly;
    const fs::path file = scratch("machine-rigid.step");
    assembly.write(file, /*materials=*/false);
    CadImportOptions options;
    options.rigidAssemblies = {"arm"};
    options.defaultDensity = 1000.0;
    const CadImportResult imported = importStepFile(file.string(), options);
    ASSERT_TRUE(imported.scene);
    ASSERT_EQ(imported.scene->parts.size(), 3u);  // ground, block, arm
    const Part& arm = partNamed(*imported.scene, "arm");
    const double mm = 1e-3;
    const Transform X = toTransform(assembly.armPlace, mm);
    EXPECT_LE((arm.X_WP.p - X.p).norm(), 1e-9);
    // The pin and the sleeve about their common centre of mass, in the arm's frame.
    const double mPin = 1000.0 * kPi * si::r * si::r * si::h;
    const double mSleeve = 1000.0 * kPi * (si::R * si::R - si::ri * si::ri) * si::L;
    EXPECT_NEAR(arm.mass, mPin + mSleeve, 1e-6 * (mPin + mSleeve));
    const Transform pinAt = toTransform(assembly.pinPlace, mm);
    const Transform sleeveAt = toTransform(assembly.sleevePlace, mm);
    const Vec3 cPin = pinAt * Vec3(0, 0, si::h / 2), cSleeve = sleeveAt * Vec3(0, 0, si::L / 2);
    const Vec3 c = (mPin * cPin + mSleeve * cSleeve) / (mPin + mSleeve);
    EXPECT_LE((arm.p_PPcm - c).norm(), 1e-9);
    const auto about = [&](double m, const Mat3& I_own, const Transform& at, const Vec3& centre) {
        const Mat3 Rm = at.rotationMatrix();
        const Vec3 d = centre - c;
        return Mat3(Rm * I_own * Rm.transpose() +
                    m * (d.squaredNorm() * Mat3::Identity() - d * d.transpose()));
    };
    const double pinAcross = mPin * (3 * si::r * si::r + si::h * si::h) / 12;
    const double s = si::R * si::R + si::ri * si::ri;
    const double sleeveAcross = mSleeve * (3 * s + si::L * si::L) / 12;
    const Mat3 expected =
        about(mPin, Vec3(pinAcross, pinAcross, mPin * si::r * si::r / 2).asDiagonal(), pinAt,
              cPin) +
        about(mSleeve, Vec3(sleeveAcross, sleeveAcross, mSleeve * s / 2).asDiagonal(), sleeveAt,
              cSleeve);
    expectInertia(arm.I_Pcm_P, expected, "arm kept rigid");
    EXPECT_EQ(arm.shapes.size(), 2u);  // the exact cylinder and the tube's tessellation
}

TEST(StepImport, ComponentsWithoutVolumeAreLeftOutByNameAndAFileOfNoneRefused) {
    const TopoDS_Shape face = BRepBuilderAPI_MakeFace(gp_Pln(gp::XOY()), 0, 10, 0, 10).Shape();
    {
        Handle(TDocStd_Document) document = test::newXdeDocument();
        Handle(XCAFDoc_ShapeTool) shapes = XCAFDoc_DocumentTool::ShapeTool(document->Main());
        const TDF_Label top = shapes->NewShape();
        TDataStd_Name::Set(top, "assembly");
        const TDF_Label good = shapes->AddShape(BRepPrimAPI_MakeBox(10, 10, 10).Shape(), false);
        TDataStd_Name::Set(good, "good");
        const TDF_Label skin = shapes->AddShape(face, false);
        TDataStd_Name::Set(skin, "skin");
        const TDF_Label leaky = shapes->AddShape(BRepPrimAPI_MakeBox(20, 10, 10).Shape(), false);
        TDataStd_Name::Set(leaky, "leaky");
        for (const TDF_Label& label : {good, skin, leaky})
            shapes->AddComponent(top, label, TopLoc_Location());
        shapes->UpdateAssemblies();
        test::writeStep(document, scratch("partly-solid.step").string());
    }
    // 'leaky': its solid's closed shell made open, one face left out of the file's list (the
    // second box's shell, the last CLOSED_SHELL written).
    {
        std::ifstream in(scratch("partly-solid.step"));
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const std::size_t shell = text.rfind("CLOSED_SHELL('',(");
        ASSERT_NE(shell, std::string::npos);
        const std::size_t close = text.find("))", shell);
        const std::size_t lastComma = text.rfind(',', close);
        text.erase(lastComma, close - lastComma);
        std::ofstream(scratch("partly-solid.step")) << text;
    }
    const CadImportResult imported = importStepFile(scratch("partly-solid.step").string());
    ASSERT_TRUE(imported.scene);
    ASSERT_EQ(imported.scene->parts.size(), 2u);  // the ground and 'good'
    EXPECT_EQ(imported.scene->parts[1].name, "good");
    std::string warnings;
    for (const Diagnostic& d : imported.diagnostics) {
        EXPECT_EQ(d.severity, Severity::Warning) << d.message;
        warnings += d.where + ": " + d.message + "\n";
    }
    EXPECT_NE(warnings.find("component 'assembly/skin': has no solid (surfaces only"),
              std::string::npos)
        << warnings;
    // (OpenCASCADE's reader gives a solid whose shell does not close as that shell)
    EXPECT_NE(warnings.find("component 'assembly/leaky': has no solid (surfaces only, or a shell "
                            "that does not close)"),
              std::string::npos)
        << warnings;

    {
        Handle(TDocStd_Document) document = test::newXdeDocument();
        Handle(XCAFDoc_ShapeTool) shapes = XCAFDoc_DocumentTool::ShapeTool(document->Main());
        TDataStd_Name::Set(shapes->AddShape(face, false), "sheet");
        test::writeStep(document, scratch("sheet.step").string());
    }
    const CadImportResult sheet = importStepFile(scratch("sheet.step").string());
    EXPECT_FALSE(sheet.scene);
    ASSERT_FALSE(sheet.diagnostics.empty());
    EXPECT_NE(sheet.diagnostics.back().message.find("holds no solid"), std::string::npos)
        << sheet.diagnostics.back().message;
}

// A cube ten assemblies deep, each turning and moving its child: placed through every level.
TEST(StepImport, TenLevelsOfNestingArePlacedThroughEveryLevel) {
    Handle(TDocStd_Document) document = test::newXdeDocument();
    Handle(XCAFDoc_ShapeTool) shapes = XCAFDoc_DocumentTool::ShapeTool(document->Main());
    TDF_Label child = shapes->AddShape(BRepPrimAPI_MakeBox(10, 10, 10).Shape(), false);
    TDataStd_Name::Set(child, "cube");
    gp_Trsf expected;
    for (int level = 10; level >= 1; --level) {
        const TDF_Label parent = shapes->NewShape();
        TDataStd_Name::Set(parent,
                           TCollection_ExtendedString(("level" + std::to_string(level)).c_str()));
        const gp_Trsf step = placement(gp_Dir(0, std::sin(0.1 * level), std::cos(0.1 * level)),
                                       0.05 * level, gp_Vec(level, -2.0 * level, 0.5));
        shapes->AddComponent(parent, child, TopLoc_Location(step));
        expected = step * expected;
        child = parent;
    }
    shapes->UpdateAssemblies();
    test::writeStep(document, scratch("deep.step").string());
    const CadImportResult imported = importStepFile(scratch("deep.step").string());
    for (const Diagnostic& d : imported.diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    ASSERT_TRUE(imported.scene);
    ASSERT_EQ(imported.scene->parts.size(), 2u);
    const Part& cube = imported.scene->parts[1];
    EXPECT_EQ(cube.name, "cube");
    const Transform X = toTransform(expected, 1e-3);
    EXPECT_LE((cube.X_WP.p - X.p).norm(), 1e-9);
    EXPECT_LE(cube.X_WP.R.angularDistance(X.R), 1e-12);
}

TEST(StepImport, FilesThatAreNotAssembliesAreRefusedWithTheReason) {
    const Assembly assembly;
    const fs::path good = scratch("whole.step");
    assembly.write(good);
    std::string text;
    {
        std::ifstream in(good);
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    // Truncated half-way.
    const fs::path truncated = scratch("truncated.step");
    std::ofstream(truncated) << text.substr(0, text.size() / 2);
    // Not STEP at all.
    const fs::path garbage = scratch("garbage.stp");
    std::ofstream(garbage) << "solid cube\nendsolid\n";
    for (const fs::path& file : {truncated, garbage}) {
        const CadImportResult imported = importStepFile(file.string());
        EXPECT_FALSE(imported.scene) << file;
        ASSERT_FALSE(imported.diagnostics.empty()) << file;
        EXPECT_EQ(imported.diagnostics[0].severity, Severity::Error);
        const std::string& message = imported.diagnostics[0].message;
        EXPECT_NE(message.find(file.filename().string()), std::string::npos) << message;
        EXPECT_NE(message.find("Incorrect syntax"), std::string::npos) << message;  // (why)
    }
    const CadImportResult missing = importStepFile(scratch("missing.step").string());
    ASSERT_FALSE(missing.scene);
    EXPECT_NE(missing.diagnostics[0].message.find("no such file"), std::string::npos);
    EXPECT_TRUE(isCadFile("a/B.STEP"));
    EXPECT_TRUE(isCadFile("part.stp"));
    EXPECT_FALSE(isCadFile("robot.urdf"));
}

// A large file: the four-bar with 8 MB of points nothing uses (as a large assembly's file holds
// millions of entities). The reader's memory bound is raised for the file's size (by default),
// and it is read: its parts and suggestions as without the padding. (Refused under a bound too
// small, with the bound and the size said: the app test cli.import_of_a_step_beyond_the_
// readers_memory, in a fresh process, whose memory the child's bound is counted beyond.)
TEST(StepImport, ALargeFileIsReadWithinBoundsRaisedForItsSize) {
    const fs::path large = scratch("four_bar_large.step");
    test::writeFourBarStep(large.string());
    test::padStep(large.string(), std::size_t{8} << 20);
    CadImportOptions options;
    options.readerLimits.memoryBytes = std::size_t{48} << 20;  // raised: 16 × 8 MB + 1 GB
    const CadImportResult read = importStepFile(large.string(), options);
    for (const Diagnostic& d : read.diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    ASSERT_TRUE(read.scene);
    EXPECT_EQ(read.scene->parts.size(), 5u);
    EXPECT_EQ(read.suggestions.size(), 4u);
}

// The four-bar from STEP (tests/support/cad_examples.h, as scenes/cad/four_bar.step holds it):
// the frame as the ground, the suggestions are the four revolutes (each pin in its hole, the
// plates across the axis touching), their axes along the pins (world y); accepted, the linkage
// has one degree of freedom and swings under gravity with its loop closed.
void expectFourBarJoinsAndRuns(const std::string& file) {
    CadImportOptions options;
    options.groundComponent = "frame";
    const CadImportResult imported = importStepFile(file, options);
    for (const Diagnostic& d : imported.diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    ASSERT_TRUE(imported.scene);
    SceneSpec spec = *imported.scene;
    ASSERT_EQ(spec.parts.size(), 4u);
    EXPECT_EQ(spec.parts[0].name, "frame");
    EXPECT_TRUE(spec.parts[0].ground);
    std::set<std::pair<std::string, std::string>> pairs;
    for (const JointSuggestion& s : imported.suggestions) {
        EXPECT_EQ(s.type, JointType::Revolute) << s.reason;
        EXPECT_LE((s.X_WJ.R * Vec3::UnitZ()).cross(Vec3::UnitY()).norm(), 1e-9) << s.reason;
        std::string a = spec.parts[s.partI].name, b = spec.parts[s.partJ].name;
        pairs.insert({std::min(a, b), std::max(a, b)});
    }
    EXPECT_EQ(imported.suggestions.size(), 4u);
    const std::set<std::pair<std::string, std::string>> expected = {
        {"crank", "frame"}, {"coupler", "crank"}, {"coupler", "rocker"}, {"frame", "rocker"}};
    EXPECT_EQ(pairs, expected);
    for (const JointSuggestion& s : imported.suggestions) addSuggestedJoint(spec, s);
    const auto model = test::compiled(spec);
    ASSERT_TRUE(model);
    const MobilityReport report = mobility(model);
    ASSERT_TRUE(report.ok) << report.message;
    EXPECT_EQ(report.actualDof, 1);
    ForwardDynamics sim(model);
    ASSERT_TRUE(sim.initialize().ok);
    Outputs out;
    ASSERT_TRUE(sim.outputs(out).ok);
    const double balance0 = out.energies.balance();
    const Part& crank = spec.parts[1];
    const Vec3 crankAt = partPoses(*model, sim.state())[1] * crank.p_PPcm;
    double fastest = 0.0, farthest = 0.0, worstClosure = 0.0, worstDrift = 0.0;
    for (int k = 1; k <= 20; ++k) {
        ASSERT_TRUE(sim.advance(0.05 * k).ok);
        ASSERT_TRUE(sim.outputs(out).ok);
        const Vec3 crankNow = partPoses(*model, sim.state())[1] * crank.p_PPcm;
        EXPECT_LE(std::abs(crankNow.y() - crankAt.y()), 1e-9);  // in its plane
        farthest = std::max(farthest, (crankNow - crankAt).norm());
        fastest = std::max(fastest, out.energies.kinetic);
        worstClosure = std::max(worstClosure, out.constraintError);
        worstDrift = std::max(worstDrift, std::abs(out.energies.balance() - balance0));
    }
    EXPECT_GT(farthest, 0.01);  // it swings (the crank's centre a few cm)
    EXPECT_GT(fastest, 0.01);
    EXPECT_LT(worstClosure, 1e-8);
    EXPECT_LT(worstDrift, 1e-6 * fastest);  // energy kept
}

TEST(StepImport, TheFourBarFromStepIsJoinedByItsSuggestionsAndRuns) {
    const fs::path file = scratch("four_bar.step");
    test::writeFourBarStep(file.string());
    expectFourBarJoinsAndRuns(file.string());
}

TEST(StepImport, TheBundledFourBarStepIsTheOneTheExampleWasMadeFrom) {
    expectFourBarJoinsAndRuns(MOTUS_SOURCE_DIR "/scenes/cad/four_bar.step");
    // The example scene: imported, joined, saved; it loads and compiles as it is.
    const SceneLoadResult loaded = loadSceneFile(MOTUS_SOURCE_DIR "/scenes/cad/four_bar.json");
    for (const Diagnostic& d : loaded.diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    ASSERT_TRUE(loaded.scene);
    EXPECT_EQ(loaded.scene->joints.size(), 4u);
    EXPECT_TRUE(test::compiled(*loaded.scene));
}

// The joined four-bar added to an open scene (File ▸ Import CAD… into a document): its moving
// parts copied under names of their own, its frame's shapes and markers onto the scene's ground
// (placed elsewhere) where they were, its joints re-pointed; one more degree of freedom.
TEST(StepImport, AnImportedMechanismJoinsAnOpenScene) {
    const fs::path file = scratch("four_bar_into.step");
    test::writeFourBarStep(file.string());
    CadImportOptions options;
    options.groundComponent = "frame";
    const CadImportResult imported = importStepFile(file.string(), options);
    ASSERT_TRUE(imported.scene);
    SceneSpec joined = *imported.scene;
    for (const JointSuggestion& s : imported.suggestions) addSuggestedJoint(joined, s);

    SceneSpec target;
    Part ground;
    ground.id = target.newId();
    ground.name = "ground";
    ground.ground = true;
    ground.X_WP.p = Vec3(1, 2, 3);
    ground.X_WP.R = Quat(Eigen::AngleAxisd(0.4, Vec3::UnitZ()));
    target.parts.push_back(ground);
    Part crank;  // a part of the same name already there
    crank.id = target.newId();
    crank.name = "crank";
    target.parts.push_back(crank);
    std::string error;
    const std::vector<EntityId> added = addImportedScene(target, joined, error);
    ASSERT_EQ(added.size(), 3u) << error;
    ASSERT_EQ(target.parts.size(), 5u);
    EXPECT_EQ(target.parts[2].name, "crank_2");
    EXPECT_EQ(target.joints.size(), 4u);
    const Part& frame = joined.parts[0];
    ASSERT_EQ(target.parts[0].shapes.size(), frame.shapes.size());
    for (std::size_t k = 0; k < frame.shapes.size(); ++k) {
        const Transform was = frame.X_WP * frame.shapes[k].X_PG;
        const Transform now = target.parts[0].X_WP * target.parts[0].shapes[k].X_PG;
        EXPECT_LE((now.p - was.p).norm(), 1e-12);
        EXPECT_LE(now.R.angularDistance(was.R), 1e-12);
    }
    const auto model = test::compiled(target);
    ASSERT_TRUE(model);
    const MobilityReport report = mobility(model);
    ASSERT_TRUE(report.ok) << report.message;
    EXPECT_EQ(report.actualDof, 1 + 6);  // the four-bar's one and the free part's six

    SceneSpec empty;  // no ground: the imported one taken whole
    ASSERT_EQ(addImportedScene(empty, joined, error).size(), 4u) << error;
    EXPECT_TRUE(empty.parts[0].ground);
    EXPECT_EQ(empty.parts[0].name, "frame");
    EXPECT_EQ(empty.joints.size(), 4u);
    EXPECT_TRUE(test::compiled(empty));
}

}  // namespace
}  // namespace engine::io
