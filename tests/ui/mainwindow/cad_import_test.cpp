// File ▸ Import CAD…: a STEP assembly into a new scene, into the open one (one undo step), and
// read again after it changed (re-import); the review of the suggested joints; the reading on a
// worker thread with the window going on and Cancel stopping it.

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProgressDialog>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>

#include <cstdlib>

#include "engine/analysis/mobility.h"
#include "engine/import/step_import.h"
#include "tests/support/cad_examples.h"
#include "tests/ui/support/window_test.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/cad_import.h"
#include "ui/mainwindow/cad_import_dialog.h"

namespace ui {
namespace {

const QString kFourBarStep = QStringLiteral(MOTUS_SOURCE_DIR "/scenes/cad/four_bar.step");

// For a look at the dialogs: MOTUS_UI_SHOTS=<folder> saves them there as PNG.
void shoot(QWidget* widget, const QString& name) {
    if (const char* folder = std::getenv("MOTUS_UI_SHOTS"))
        widget->grab().save(QDir(QString::fromLocal8Bit(folder)).filePath(name + ".png"));
}

int dof(const MainWindow& window) {
    const auto& model = window.document()->compiled().model;
    EXPECT_TRUE(model);
    if (!model) return -1;
    const engine::MobilityReport report = engine::mobility(model);
    EXPECT_TRUE(report.ok) << report.message;
    return report.actualDof;
}

class CadImportTest : public test::WindowTest {
protected:
    void SetUp() override {
        window.resize(1280, 800);
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    }
    CadImport* cad() { return window.files()->cad(); }
};

// Into a new scene, through the review dialog as a user goes: the frame is offered as the
// ground, the four revolutes ticked; the scene is unsaved work with one degree of freedom.
TEST_F(CadImportTest, TheFourBarIntoANewSceneThroughTheReview) {
    bool reviewed = false;
    // The reading's progress, then the review: answered when it shows.
    QTimer answer;
    QObject::connect(&answer, &QTimer::timeout, &window, [&] {
        CadJointsDialog* dialog = nullptr;
        for (QWidget* w : QApplication::topLevelWidgets())
            if (auto* d = qobject_cast<CadJointsDialog*>(w); d && d->isVisible()) dialog = d;
        if (!dialog) return;
        answer.stop();
        EXPECT_EQ(dialog->ground(), std::optional<std::string>("frame"));
        auto* table = dialog->findChild<QTableWidget*>(QStringLiteral("CadSuggestions"));
        ASSERT_TRUE(table);
        EXPECT_EQ(table->rowCount(), 4);
        EXPECT_EQ(table->item(0, 0)->text(), QStringLiteral("Revolute"));
        EXPECT_EQ(dialog->accepted().size(), 4u);
        auto* ok = dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
        EXPECT_EQ(ok->text(), QStringLiteral("Import With 4 Joints"));
        shoot(dialog, QStringLiteral("cad_joints_dialog"));
        reviewed = true;
        dialog->accept();
    });
    answer.start(50);
    engine::io::CadImportOptions options;
    ASSERT_TRUE(cad()->importFile(kFourBarStep, options, CadTarget::NewScene));
    EXPECT_TRUE(reviewed);
    const engine::SceneSpec& spec = scene();
    ASSERT_EQ(spec.parts.size(), 4u);
    EXPECT_EQ(spec.parts[0].name, "frame");
    EXPECT_TRUE(spec.parts[0].ground);
    EXPECT_EQ(spec.joints.size(), 4u);
    EXPECT_EQ(dof(window), 1);
    EXPECT_TRUE(window.document()->path().isEmpty());
    EXPECT_TRUE(window.document()->isModified());  // closing it asks
    EXPECT_TRUE(
        lastMessage().contains("Imported four_bar.step: 3 parts, 4 joints, frame the "
                               "ground"))
        << lastMessage().toStdString();
    test::drawn(window.viewport());
    shoot(&window, QStringLiteral("cad_imported_window"));
}

// Into the open scene: one undo step; the frame's pins land on the scene's ground.
TEST_F(CadImportTest, IntoTheOpenSceneIsOneUndoStep) {
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/four_bar.json")));
    const engine::SceneSpec before = scene();
    const int undoBefore = window.document()->undoStack()->count();
    CadReview review;
    review.ground = "frame";
    ASSERT_TRUE(cad()->importFile(kFourBarStep, {}, CadTarget::AddToScene, &review));
    EXPECT_EQ(scene().parts.size(), before.parts.size() + 3);
    EXPECT_EQ(scene().joints.size(), before.joints.size() + 4);
    EXPECT_EQ(scene().parts[0].shapes.size(), before.parts[0].shapes.size() + 3);  // plate, pins
    EXPECT_EQ(window.document()->undoStack()->count(), undoBefore + 1);
    EXPECT_TRUE(lastMessage().contains("Edit ▸ Undo takes it back")) << lastMessage().toStdString();
    window.document()->undoStack()->undo();
    EXPECT_EQ(scene().parts.size(), before.parts.size());
    EXPECT_EQ(scene().joints.size(), before.joints.size());
    EXPECT_EQ(scene().parts[0].shapes.size(), before.parts[0].shapes.size());
}

// The crank turned in the CAD file: re-imported, the joints at B and C follow their pins, the
// others stay; one undo step takes it back; the options dialog offers the re-import first for a
// scene built from this file.
TEST_F(CadImportTest, AChangedFileReadAgainMovesTheJointsAndUndoes) {
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("linkage.step"));
    engine::test::writeFourBarStep(file.toStdString(), M_PI / 3);
    CadReview review;
    review.ground = "frame";
    ASSERT_TRUE(cad()->importFile(file, {}, CadTarget::NewScene, &review));
    const engine::SceneSpec first = scene();
    ASSERT_EQ(first.joints.size(), 4u);

    CadImportDialog options(file, window.scene());
    EXPECT_EQ(options.target(), CadTarget::UpdateScene);
    shoot(&options, QStringLiteral("cad_import_dialog"));

    engine::test::writeFourBarStep(file.toStdString(), M_PI / 4);
    ASSERT_TRUE(cad()->importFile(file, {}, CadTarget::UpdateScene, &review));
    EXPECT_EQ(scene().joints.size(), 4u);
    EXPECT_EQ(dof(window), 1);
    EXPECT_TRUE(
        lastMessage().contains("4 parts updated, 0 added; joints: 2 kept, 2 moved onto "
                               "their new axes, 0 removed"))
        << lastMessage().toStdString();
    // The crank's centre of mass moved with its solid.
    EXPECT_GT((scene().findPart("crank")->p_PPcm - first.findPart("crank")->p_PPcm).norm(), 1e-3);
    window.document()->undoStack()->undo();
    EXPECT_EQ(scene().findPart("crank")->p_PPcm, first.findPart("crank")->p_PPcm);
}

// A long reading leaves the window going (its timers fire) and Cancel stops it at once: nothing
// changes, and Messages says so.
TEST_F(CadImportTest, CancelStopsALongReadingAndTheWindowGoesOnMeanwhile) {
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("chain.step"));
    engine::test::writeLinkChainStep(file.toStdString(), 400);
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/four_bar.json")));
    const std::size_t parts = scene().parts.size();
    int ticks = 0;
    QTimer heartbeat;
    QObject::connect(&heartbeat, &QTimer::timeout, [&] { ++ticks; });
    heartbeat.start(20);
    QElapsedTimer clock, waited;
    waited.start();
    QTimer::singleShot(600, &window, [&] {
        auto* progress = window.findChild<QProgressDialog*>(QStringLiteral("CadImportProgress"));
        ASSERT_TRUE(progress);
        EXPECT_TRUE(progress->isVisible());
        shoot(progress, QStringLiteral("cad_import_progress"));
        clock.start();
        progress->cancel();
    });
    EXPECT_FALSE(cad()->importFile(file, {}, CadTarget::AddToScene));
    EXPECT_LT(clock.elapsed(), 1000);  // stopped within 0.1 s (and the poll's 30 ms)
    // The window's timers went on meanwhile: a blocked event loop fires none during the reading
    // (over 600 ms); under load (tests in parallel, the 3D view drawn in software) it served
    // one every 85 ms, not every 20.
    EXPECT_GE(ticks, 3) << "in " << waited.elapsed() << " ms";
    EXPECT_EQ(scene().parts.size(), parts);
    EXPECT_TRUE(lastMessage().contains("cancelled: nothing changed"))
        << lastMessage().toStdString();
}

// A file that is no STEP: refused in Messages with the reader's reason; the scene stays.
TEST_F(CadImportTest, AFileThatIsNoStepIsRefusedWithItsReason) {
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/four_bar.json")));
    const std::size_t parts = scene().parts.size();
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("broken.step"));
    QFile out(file);
    ASSERT_TRUE(out.open(QIODevice::WriteOnly));
    out.write("ISO-10303-21;\nHEADER;\nFILE_DESCRIPTION((''),'2;1');\n#1=CARTESIAN_POINT(");
    out.close();
    EXPECT_FALSE(cad()->importFile(file, {}, CadTarget::AddToScene, nullptr));
    EXPECT_EQ(scene().parts.size(), parts);
    EXPECT_TRUE(lastMessage().contains("Could not import")) << lastMessage().toStdString();
    bool named = false;
    for (int k = 0; k < window.messages()->count(); ++k)
        named |= window.messages()->item(k)->text().contains("broken.step");
    EXPECT_TRUE(named);
}

// The options dialog: the material sets the density and a density typed picks its material;
// the choices are remembered; with no scene open only a new scene can be the target.
TEST_F(CadImportTest, TheOptionsDialogRemembersItsChoices) {
    {
        CadImportDialog dialog(kFourBarStep, nullptr);
        EXPECT_EQ(dialog.target(), CadTarget::NewScene);
        auto* material = dialog.findChild<QComboBox*>(QStringLiteral("CadMaterial"));
        ASSERT_TRUE(material);
        material->setCurrentIndex(material->findText(QStringLiteral("Aluminium")));
        emit material->activated(material->currentIndex());
        EXPECT_EQ(dialog.options().defaultDensity, 2700.0);
        engine::io::CadImportOptions o = dialog.options();
        o.grouping = engine::io::CadGrouping::Solid;
        o.rigidAssemblies = {"gearbox", "wheel hub"};
        o.defaultDensity = 8500.0;
        o.linearDeflection = 0.05e-3;
        dialog.setOptions(o);
        EXPECT_EQ(material->currentText(), QStringLiteral("Brass"));
        dialog.setTarget(CadTarget::UpdateScene);  // no scene open: refused
        EXPECT_EQ(dialog.target(), CadTarget::NewScene);
        dialog.remember();
    }
    const engine::io::CadImportOptions again = CadImportDialog::remembered();
    EXPECT_EQ(again.grouping, engine::io::CadGrouping::Solid);
    EXPECT_EQ(again.rigidAssemblies, (std::vector<std::string>{"gearbox", "wheel hub"}));
    EXPECT_EQ(again.defaultDensity, 8500.0);
    EXPECT_NEAR(again.linearDeflection, 0.05e-3, 1e-12);
    CadImportDialog reset(kFourBarStep, nullptr);
    reset.setOptions({});
    reset.remember();
}

}  // namespace
}  // namespace ui
