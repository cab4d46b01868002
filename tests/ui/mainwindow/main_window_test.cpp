#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/analyses.h"
#include "ui/mainwindow/dof_status.h"
#include "ui/mainwindow/export_actions.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/messages_panel.h"
#include "ui/mainwindow/run_control.h"
#include "ui/mainwindow/scene_tree_panel.h"

#include <QListWidget>
#include <QSet>
#include <QStandardItemModel>
#include <QTest>
#include <QTreeView>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

#include "engine/analysis/modes.h"
#include "engine/analysis/statics.h"
#include "engine/import/robot_import.h"
#include "engine/io/scene_json.h"
#include "engine/model/compile_counts.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "ui/session/simulation_session.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/viewport/viewport_widget.h"

#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QSlider>
#include <QTemporaryDir>
#include <QToolButton>

#include "ui/analysis/modes_panel.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/robot_import_dialog.h"
#include "ui/plots/plot_widget.h"
#include "ui/plots/plots_panel.h"
#include "ui/properties/properties_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QUndoStack>

namespace ui {
namespace {

const QString kFourBar = QStringLiteral(MOTUS_SOURCE_DIR "/scenes/four_bar.json");
const QString kBadScene =
    QStringLiteral(MOTUS_SOURCE_DIR "/tests/app/data/dangling_and_bad_mass.json");

// Waits until the view has drawn at least `frames` more frames, then grabs it.
QImage renderedImage(ViewportWidget* view, int frames = 2) {
    const int target = view->frameCount() + frames;
    const bool drawn = QTest::qWaitFor(
        [&] {
            view->update();
            return view->frameCount() >= target;
        },
        10000);
    EXPECT_TRUE(drawn) << "the view did not draw within 10 s";
    return view->grabFramebuffer();
}

struct PixelStats {
    int distinctColours = 0;
    double nonBackgroundFraction = 0.0;
    // Saturated pixels whose hue is within 12 degrees of the given hue.
    int pixelsNearHue(int hue) const {
        int n = 0;
        for (int h = hue - 12; h <= hue + 12; ++h)
            n += hueHistogram[static_cast<std::size_t>((h + 360) % 360)];
        return n;
    }
    // Distinct colours (tones) among those pixels: differently lit faces give different tones.
    int tonesNearHue(int hue) const {
        QSet<QRgb> tones;
        for (int h = hue - 12; h <= hue + 12; ++h)
            tones.unite(hueTones[static_cast<std::size_t>((h + 360) % 360)]);
        return static_cast<int>(tones.size());
    }
    std::array<int, 360> hueHistogram{};
    std::array<QSet<QRgb>, 360> hueTones{};
};

PixelStats analyse(const QImage& image) {
    PixelStats stats;
    QSet<QRgb> colours;
    const QRgb background = image.pixel(0, 0);
    qsizetype foreground = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QRgb rgb = image.pixel(x, y);
            colours.insert(rgb);
            if (rgb != background) ++foreground;
            const QColor c = QColor::fromRgb(rgb);
            if (c.hsvSaturation() > 90 && c.value() > 60 && c.hsvHue() >= 0) {
                ++stats.hueHistogram[static_cast<std::size_t>(c.hsvHue())];
                stats.hueTones[static_cast<std::size_t>(c.hsvHue())].insert(rgb);
            }
        }
    }
    stats.distinctColours = static_cast<int>(colours.size());
    stats.nonBackgroundFraction = double(foreground) / (double(image.width()) * image.height());
    return stats;
}

int hueOf(const char* hex) {
    return QColor(QString::fromLatin1(hex)).hsvHue();
}

class MainWindowTest : public ::testing::Test {
protected:
    void SetUp() override {
        window.resize(1280, 800);
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    }
    MainWindow window;
};

TEST_F(MainWindowTest, StartsWithAnEmptySceneShowingGridAndAxes) {
    EXPECT_TRUE(window.document()->path().isEmpty());
    const PixelStats stats = analyse(renderedImage(window.viewport()));
    EXPECT_GT(stats.nonBackgroundFraction, 0.01);                      // grid lines
    EXPECT_GT(stats.pixelsNearHue(QColor(242, 64, 51).hsvHue()), 20);  // red x axis
}

// A run file opened as a scene (File > Open, a recent file, the command line) opens as the run.
TEST_F(MainWindowTest, ARunFileOpenedAsASceneOpensAsTheRun) {
    ASSERT_TRUE(window.files()->openScene(
        QStringLiteral(MOTUS_SOURCE_DIR "/tests/fuzz/seeds-run/v3_four_bar.motusrun")));
    ASSERT_TRUE(window.session()->active());
    ASSERT_NE(window.session()->recording(), nullptr);
    EXPECT_GT(window.session()->recording()->size(), 5u);
    EXPECT_TRUE(window.windowTitle().contains(QStringLiteral("(run)")))
        << window.windowTitle().toStdString();
}

TEST_F(MainWindowTest, OpensTheFourBarAndListsItsParts) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    EXPECT_EQ(window.windowTitle(), QString::fromUtf8("Four-bar linkage — Motus"));
    const QAbstractItemModel* tree = window.sceneTree()->model();
    const QModelIndex parts = tree->index(0, 0);
    ASSERT_EQ(tree->rowCount(parts), 4);
    EXPECT_EQ(tree->index(1, 0, parts).data().toString(), "crank");
    EXPECT_EQ(tree->rowCount(tree->index(1, 0)), 4);  // joints
    EXPECT_FALSE(window.windowIcon().isNull());       // compiled-in resource found
}

TEST_F(MainWindowTest, DrawsEveryPartShadedInItsOwnColour) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    ViewportWidget* view = window.viewport();
    // Only the parts: hide the grid, axes, markers and joint glyphs, whose colours could be
    // mistaken for a part's.
    view->setGridVisible(false);
    view->setMarkersVisible(false);
    view->setJointsVisible(false);
    view->setStandardView(ViewportWidget::StandardView::Isometric);
    const PixelStats stats = analyse(renderedImage(view));

    // The fitted view fills a fair part of the picture without covering it all.
    EXPECT_GT(stats.nonBackgroundFraction, 0.03);
    EXPECT_LT(stats.nonBackgroundFraction, 0.9);
    // The crank (orange), coupler (blue) and rocker (green) are all visible, and lit: the
    // faces of each box turned differently to the light show different tones (a broken GL
    // set-up draws nothing or flat unlit colour).
    const std::pair<const char*, const char*> parts[] = {
        {"crank", "#e0703c"}, {"coupler", "#3c8ee0"}, {"rocker", "#4fb45a"}};
    for (const auto& [name, colour] : parts) {
        EXPECT_GT(stats.pixelsNearHue(hueOf(colour)), 150) << name;
        EXPECT_GE(stats.tonesNearHue(hueOf(colour)), 2) << name;
    }
}

TEST_F(MainWindowTest, JointGlyphsAndMarkersCanBeShownAndHidden) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    ViewportWidget* view = window.viewport();
    view->setGridVisible(false);
    view->setMarkersVisible(false);
    view->setStandardView(ViewportWidget::StandardView::Isometric);
    const int goldHue = QColor::fromRgbF(0.95f, 0.72f, 0.2f).hsvHue();
    view->setJointsVisible(true);
    const int withJoints = analyse(renderedImage(view)).pixelsNearHue(goldHue);
    view->setJointsVisible(false);
    const int withoutJoints = analyse(renderedImage(view)).pixelsNearHue(goldHue);
    EXPECT_GT(withJoints, withoutJoints + 100);
}

TEST_F(MainWindowTest, ABadFileIsReportedAndTheOpenSceneIsKept) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    const QString title = window.windowTitle();
    const QString path = window.document()->path();

    EXPECT_FALSE(window.files()->openScene(kBadScene));
    EXPECT_EQ(window.windowTitle(), title);
    EXPECT_EQ(window.document()->path(), path);
    EXPECT_EQ(window.sceneTree()->model()->rowCount(window.sceneTree()->model()->index(0, 0)), 4);

    QStringList texts;
    for (int k = 0; k < window.messages()->count(); ++k)
        texts << window.messages()->item(k)->text();
    const QString all = texts.join('\n');
    EXPECT_TRUE(all.contains("dangling_and_bad_mass.json:/parts/1/mass")) << all.toStdString();
    EXPECT_TRUE(all.contains("no marker 'link.tip'")) << all.toStdString();
}

TEST_F(MainWindowTest, WheelAwayFromTheUserZoomsInAndFitRestoresTheView) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    ViewportWidget* view = window.viewport();
    // Fit once the run's first frame is shown (assembly may move parts by a hair).
    QTest::qWait(50);
    view->fitToScene();
    renderedImage(view);
    const double fitted = view->cameraDistance();
    const QPointF centre(view->width() / 2.0, view->height() / 2.0);
    QWheelEvent wheel(centre, view->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(view, &wheel);
    renderedImage(view);
    EXPECT_LT(view->cameraDistance(), fitted * 0.95);
    view->fitToScene();
    renderedImage(view);
    EXPECT_NEAR(view->cameraDistance(), fitted, 1e-9 * fitted);
}

TEST_F(MainWindowTest, LeftDragRotatesTheCamera) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    ViewportWidget* view = window.viewport();
    const QImage before = renderedImage(view);
    const QPoint c(view->width() / 2, view->height() / 2);
    QTest::mousePress(view, Qt::LeftButton, Qt::NoModifier, c);
    QTest::mouseMove(view, c + QPoint(120, 40));
    QTest::mouseRelease(view, Qt::LeftButton, Qt::NoModifier, c + QPoint(120, 40));
    EXPECT_NE(renderedImage(view), before);
}

// Waits until the session's run is paused at `time` (or 30 s pass).
bool waitForTime(SimulationSession* session, double time) {
    return QTest::qWaitFor(
        [&] {
            const auto snap = session->snapshot();
            return snap && snap->mode == engine::RunMode::Paused &&
                   std::abs(snap->time - time) < 1e-9;
        },
        30000);
}

TEST_F(MainWindowTest, RunsScrubsAndShowsTheRecordedPoses) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    SimulationSession* session = window.session();
    ASSERT_TRUE(session->active());
    session->runTo(0.5);
    ASSERT_TRUE(waitForTime(session, 0.5));
    QTest::qWait(50);  // one display poll
    QSlider* slider = window.timeline()->slider();
    EXPECT_EQ(slider->maximum(), 500);  // 1 ms outputs
    EXPECT_EQ(slider->value(), 500);
    EXPECT_TRUE(window.timeline()->timeLabel()->text().contains("0.500"))
        << window.timeline()->timeLabel()->text().toStdString();

    // Scrub to 0.25 s as a user drags the slider: the view shows the recorded poses.
    const engine::Recording* recording = session->recording();
    const int frame = static_cast<int>(recording->frameAtOrBefore(0.25));
    slider->setSliderDown(true);  // a drag: press, move, release
    slider->setSliderPosition(frame);
    slider->setSliderDown(false);
    ASSERT_TRUE(waitForTime(session, 0.25));
    QTest::qWait(50);
    engine::State state;
    engine::Outputs outputs;
    ASSERT_TRUE(recording->read(static_cast<std::size_t>(frame), state, outputs));
    const engine::Model& model = *session->snapshot()->model;
    for (std::size_t p = 0; p < model.bodyOfPart.size(); ++p) {
        const int b = model.bodyOfPart[p];
        if (b == engine::kGround) continue;
        const engine::Transform X_WP = engine::Transform{engine::bodyOrientation(state.q, b),
                                                         engine::bodyPosition(state.q, b)} *
                                       model.bodies[static_cast<std::size_t>(b)].X_PB.inverse();
        const engine::Transform shown = window.viewport()->partPose(p);
        EXPECT_LT((shown.p - X_WP.p).norm(), 1e-12) << "part " << p;
        EXPECT_LT(shown.R.angularDistance(X_WP.R), 1e-9) << "part " << p;
    }
    // The crank has moved since t = 0 (the run did something visible).
    EXPECT_GT(window.viewport()->partPose(1).R.angularDistance(model.partPoses0[1].R), 0.01);
}

// A view slow to draw (many thousands of parts drawn in software take seconds a frame) asks a
// run's next state to wait as long as its last frame took, so that half the window's time is
// left to the user's clicks; a view that draws fast asks for no wait; a run still ends on its
// last state.
TEST_F(MainWindowTest, AViewSlowToDrawMakesTheRunWaitForItAndStillEndsOnTheLastState) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    SimulationSession* session = window.session();
    ASSERT_TRUE(session->active());
    ViewportWidget* view = window.viewport();
    renderedImage(view);
    // Each frame's drawing time and the wait asked right after it.
    double drawnBefore = view->drawingSeconds(), lastFrame = 0.0, waitAfter = -1.0;
    const auto connection = QObject::connect(view, &ViewportWidget::frameRendered, [&] {
        lastFrame = view->drawingSeconds() - drawnBefore;
        drawnBefore = view->drawingSeconds();
        waitAfter = view->secondsBeforeNextFrame();
    });
    renderedImage(view, 1);
    ASSERT_LT(lastFrame, 0.2);  // (a four-bar draws fast)
    EXPECT_EQ(waitAfter, 0.0);
    view->setSlowFrameSeconds(0.0);  // every frame taken as slow
    renderedImage(view, 1);
    ASSERT_GT(lastFrame, 0.0);
    EXPECT_GT(waitAfter, 0.0);
    EXPECT_LE(waitAfter, lastFrame);
    EXPECT_GT(waitAfter, lastFrame - 0.005);
    QTest::qWait(static_cast<int>(1000.0 * lastFrame) + 5);
    EXPECT_EQ(view->secondsBeforeNextFrame(), 0.0);
    QObject::disconnect(connection);
    // A run shown at the slow view's pace ends on its last state.
    session->runTo(1.0);
    ASSERT_TRUE(waitForTime(session, 1.0));
    const auto snap = session->snapshot();
    ASSERT_GE(snap->partPoses.size(), 2u);
    EXPECT_TRUE(QTest::qWaitFor(
        [&] {
            return (view->partPose(1).p - snap->partPoses[1].p).norm() < 1e-12 &&
                   view->partPose(1).R.angularDistance(snap->partPoses[1].R) < 1e-12;
        },
        5000));
}

TEST_F(MainWindowTest, DrawsContactForceArrowsThatCanBeHidden) {
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/cam_follower.json")));
    SimulationSession* session = window.session();
    session->runTo(0.25);  // the cam pushes the follower up hardest here
    ASSERT_TRUE(waitForTime(session, 0.25));
    QTest::qWait(50);  // one display poll: the view takes the frame's contacts
    ViewportWidget* view = window.viewport();
    view->setGridVisible(false);
    view->setMarkersVisible(false);
    view->setJointsVisible(false);
    view->setStandardView(ViewportWidget::StandardView::Front);
    const int normal = QColor::fromRgbF(1.0f, 0.55f, 0.1f).hsvHue();
    view->setContactForcesVisible(true);
    const PixelStats shown = analyse(renderedImage(view));
    view->setContactForcesVisible(false);
    const PixelStats hidden = analyse(renderedImage(view));
    // The normal force arrow (a quarter of the scene long, drawn over the parts) adds pixels
    // of its hue; hiding it takes them away.
    EXPECT_GT(shown.pixelsNearHue(normal), hidden.pixelsNearHue(normal) + 40);
}

TEST_F(MainWindowTest, PlotsAReactionAndExportsItAsPngSvgAndCsv) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    SimulationSession* session = window.session();
    session->runTo(0.5);
    ASSERT_TRUE(waitForTime(session, 0.5));
    PlotWidget* plot = window.sceneTree()->plotReactionForce("pivotA");
    ASSERT_NE(plot, nullptr);
    EXPECT_EQ(plot->channels(), (QStringList{"pivotA.Fx", "pivotA.Fy", "pivotA.Fz", "pivotA.F"}));
    EXPECT_EQ(window.plots()->plotCount(), 1);
    EXPECT_EQ(plot->pointCount(2), 501);  // every frame of the run (below the 2000-point cap)

    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString png = dir.filePath("reaction.png"), svg = dir.filePath("reaction.svg"),
                  csv = dir.filePath("reaction.csv");
    ASSERT_TRUE(plot->exportPng(png));
    const QImage image(png);
    EXPECT_FALSE(image.isNull());
    EXPECT_GT(image.width(), 200);
    ASSERT_TRUE(plot->exportSvg(svg));
    QFile svgFile(svg);
    ASSERT_TRUE(svgFile.open(QIODevice::ReadOnly));
    EXPECT_TRUE(svgFile.readAll().contains("<svg"));

    // The CSV holds the recording's numbers exactly, one row per frame.
    QString error;
    ASSERT_TRUE(plot->exportCsv(csv, &error)) << error.toStdString();
    QFile csvFile(csv);
    ASSERT_TRUE(csvFile.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList lines = QString::fromUtf8(csvFile.readAll()).split('\n', Qt::SkipEmptyParts);
    ASSERT_EQ(lines.size(), 502);
    EXPECT_EQ(lines[0], "time,pivotA.Fx,pivotA.Fy,pivotA.Fz,pivotA.F");
    engine::State state;
    engine::Outputs outputs;
    ASSERT_TRUE(session->recording()->read(250, state, outputs));
    const QStringList row = lines[251].split(',');
    EXPECT_EQ(row[0].toDouble(), state.t);
    EXPECT_EQ(row[3].toDouble(), outputs.reactions[0].force_W.z());
    EXPECT_EQ(row[4].toDouble(), outputs.reactions[0].force_W.norm());

    // The whole run, in the CLI's column contract.
    const QString run = dir.filePath("run.csv");
    ASSERT_TRUE(window.exports()->exportRunCsv(run));
    QFile runFile(run);
    ASSERT_TRUE(runFile.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList runLines =
        QString::fromUtf8(runFile.readAll()).split('\n', Qt::SkipEmptyParts);
    EXPECT_EQ(runLines.size(), 502);
    EXPECT_TRUE(runLines[0].startsWith("time,crank.x,"));
}

TEST_F(MainWindowTest, RunToShowsProgressAndCanBeCancelled) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    SimulationSession* session = window.session();
    auto* progress = window.findChild<QProgressBar*>("RunProgress");
    ASSERT_NE(progress, nullptr);
    EXPECT_FALSE(progress->isVisible());
    session->runTo(1000.0);  // far: it will be cancelled
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return progress->isVisible() && session->snapshot()->time > 0.05; }, 10000));
    EXPECT_GE(progress->value(), 0);
    EXPECT_LT(progress->value(), 1000);
    // The GUI stays responsive while the engine computes: events are processed (qWaitFor ran).
    session->pause();  // what the Cancel button does
    ASSERT_TRUE(QTest::qWaitFor([&] { return !progress->isVisible(); }, 10000));
    EXPECT_EQ(session->snapshot()->mode, engine::RunMode::Paused);
    EXPECT_LT(session->snapshot()->time, 1000.0);
}

TEST_F(MainWindowTest, ClickingAPartInTheViewSelectsItInTheTree) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    ViewportWidget* view = window.viewport();
    renderedImage(view);
    // The coupler's centre, as drawn.
    const engine::Vec3 centre = view->partPose(2).p;
    const QPointF at = view->project(centre.x(), centre.y(), centre.z());
    ASSERT_TRUE(view->rect().contains(at.toPoint()));
    const auto expected = engine::io::loadSceneFile(kFourBar.toStdString()).scene->parts[2].id;
    EXPECT_EQ(view->entityAt(at), expected);
    QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, at.toPoint());
    const QModelIndex current = window.sceneTree()->currentIndex();
    ASSERT_TRUE(current.isValid());
    EXPECT_EQ(current.data().toString(), "coupler");
    // A click on empty space (a corner, above the grid) clears the selection.
    QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, QPoint(5, 5));
    EXPECT_TRUE(window.sceneTree()->selectionModel()->selectedRows().isEmpty());
}

TEST_F(MainWindowTest, SaveAsWritesAFileThatReopensAsTheSameScene) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    QTemporaryDir dir;
    const QString copy = dir.filePath("copy.json");
    ASSERT_TRUE(window.files()->saveSceneAs(copy));
    EXPECT_EQ(window.document()->path(), QFileInfo(copy).absoluteFilePath());
    const auto original = engine::io::loadSceneFile(kFourBar.toStdString());
    const auto saved = engine::io::loadSceneFile(copy.toStdString());
    ASSERT_TRUE(original.scene && saved.scene);
    EXPECT_EQ(engine::io::sceneToJson(*saved.scene), engine::io::sceneToJson(*original.scene));
    // Saving where it cannot: a message, and the open document stays as it was.
    EXPECT_FALSE(window.files()->saveSceneAs(dir.filePath("no/such/folder/x.json")));
    EXPECT_EQ(window.document()->path(), QFileInfo(copy).absoluteFilePath());
}

// Types `text` into a properties field and commits it as leaving the field would.
void typeInto(PropertiesPanel* panel, const QString& label, int component, const QString& text) {
    auto* edit = qobject_cast<QLineEdit*>(panel->editor(label, component));
    ASSERT_TRUE(edit) << label.toStdString();
    edit->setText(text);
    panel->commit(label);
}

TEST_F(MainWindowTest, PropertiesEditsGoThroughTheUndoStackWithUnitsAndValidation) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    const engine::EntityId crank = window.scene()->parts[1].id;
    const double mass0 = window.scene()->parts[1].mass;
    // Selecting the crank in the tree shows its fields.
    const QModelIndexList hits = window.sceneTree()->model()->match(
        window.sceneTree()->model()->index(0, 0), Qt::UserRole + 1,
        QVariant::fromValue<quint64>(crank), 1, Qt::MatchExactly | Qt::MatchRecursive);
    ASSERT_FALSE(hits.isEmpty());
    window.sceneTree()->selectionModel()->select(
        hits.front(), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    PropertiesPanel* panel = window.properties();
    ASSERT_EQ(panel->entity(), crank);
    ASSERT_TRUE(panel->editor("Mass"));

    // An impossible value stays in its field with the reason; the scene is untouched.
    typeInto(panel, "Mass", 0, "-2");
    EXPECT_TRUE(panel->message("Mass").contains("positive"))
        << panel->message("Mass").toStdString();
    EXPECT_EQ(window.scene()->parts[1].mass, mass0);
    EXPECT_EQ(window.undoStack()->count(), 0);
    typeInto(panel, "Mass", 0, "abc");
    EXPECT_TRUE(panel->message("Mass").contains("not a number"));

    // A valid one is applied through the undo stack; undo and redo take it back and forth.
    typeInto(panel, "Mass", 0, "2.5");
    EXPECT_EQ(window.scene()->parts[1].mass, 2.5);
    EXPECT_EQ(window.undoStack()->count(), 1);
    window.undoStack()->undo();
    EXPECT_EQ(window.scene()->parts[1].mass, mass0);
    window.undoStack()->redo();
    EXPECT_EQ(window.scene()->parts[1].mass, 2.5);
    if (qEnvironmentVariableIsSet("MOTUS_SCREENSHOT_DIR")) {
        QTest::qWait(100);
        window.grab().save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") + "/properties.png");
    }

    // Angles are shown and typed in degrees: the crank starts pitched −45° about y (raised).
    const QString orientation = "Orientation (roll, pitch, yaw)";
    EXPECT_EQ(qobject_cast<QLineEdit*>(panel->editor(orientation, 1))->text(), "-45");
    qobject_cast<QLineEdit*>(panel->editor(orientation, 1))->setText("0");
    typeInto(panel, orientation, 2, "90");
    const engine::Vec3 x = window.scene()->parts[1].X_WP.R * engine::Vec3::UnitX();
    EXPECT_NEAR(x.y(), 1.0, 1e-12);

    // Renaming updates the joints that name the part, and the run restarts with the edit.
    typeInto(panel, "Name", 0, "driver");
    EXPECT_EQ(window.scene()->parts[1].name, "driver");
    for (const engine::Joint& j : window.scene()->joints)
        EXPECT_NE(j.markerI.part + j.markerJ.part, std::string()) << j.name;
    EXPECT_TRUE(engine::compile(*window.scene()).model);
    EXPECT_EQ(window.undoStack()->count(), 3);
}

TEST_F(MainWindowTest, APropertiesEditIsValidatedAndCompiledOnceAndTheTreeKeepsItsState) {
    // A hundred links: the tree scrolls, and compiling is not free.
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/chain_100.json")));
    SceneTreePanel* tree = window.sceneTree();
    QAbstractItemModel* model = tree->model();
    // The user opens link 40's row (its markers and shape) and scrolls down to it.
    const engine::EntityId link = window.scene()->parts[40].id;
    const QModelIndexList hits =
        model->match(model->index(0, 0), Qt::UserRole + 1, QVariant::fromValue<quint64>(link), 1,
                     Qt::MatchExactly | Qt::MatchRecursive);
    ASSERT_FALSE(hits.isEmpty());
    tree->expand(hits.front());
    tree->selectionModel()->select(hits.front(),
                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    tree->scrollTo(hits.front(), QAbstractItemView::PositionAtTop);
    QTest::qWait(50);
    const int scrolled = tree->verticalScrollBar()->value();
    ASSERT_GT(scrolled, 0);
    PropertiesPanel* panel = window.properties();
    ASSERT_EQ(panel->entity(), link);

    // One field edited: one validation and one compile, shared by the document, the mobility
    // readout and the run (before, 4 and 2).
    const engine::CompileCounts before = engine::compileCounts();
    typeInto(panel, "Mass", 0, "2.5");
    ASSERT_EQ(window.scene()->parts[40].mass, 2.5);
    const engine::CompileCounts after = engine::compileCounts();
    EXPECT_EQ(after.validations - before.validations, 1u);
    EXPECT_EQ(after.compiles - before.compiles, 1u);
    // The tree as the user left it: the row still open, the scroll where it was.
    const QModelIndexList again =
        model->match(model->index(0, 0), Qt::UserRole + 1, QVariant::fromValue<quint64>(link), 1,
                     Qt::MatchExactly | Qt::MatchRecursive);
    ASSERT_FALSE(again.isEmpty());
    EXPECT_TRUE(tree->isExpanded(again.front()));
    EXPECT_EQ(tree->verticalScrollBar()->value(), scrolled);

    // A refused edit costs the same and changes nothing; an undo compiles the scene it gives
    // back, once.
    typeInto(panel, "Mass", 0, "-1");
    EXPECT_FALSE(panel->message("Mass").isEmpty());
    const engine::CompileCounts refused = engine::compileCounts();
    EXPECT_EQ(refused.validations - after.validations, 1u);
    EXPECT_EQ(refused.compiles - after.compiles, 1u);
    EXPECT_EQ(window.scene()->parts[40].mass, 2.5);
    window.undoStack()->undo();
    const engine::CompileCounts undone = engine::compileCounts();
    EXPECT_EQ(undone.validations - refused.validations, 1u);
    EXPECT_EQ(undone.compiles - refused.compiles, 1u);
    EXPECT_EQ(tree->verticalScrollBar()->value(), scrolled);
}

TEST_F(MainWindowTest, NewStartsAnUnsavedSceneWithAGroundPart) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    window.files()->newScene();
    ASSERT_TRUE(window.scene());
    ASSERT_EQ(window.scene()->parts.size(), 1u);
    EXPECT_TRUE(window.scene()->parts[0].ground);
    EXPECT_TRUE(window.document()->path().isEmpty());
    EXPECT_TRUE(window.windowTitle().contains("unsaved"));
    EXPECT_EQ(window.undoStack()->count(), 0);
}

TEST_F(MainWindowTest, CentresOfMassCanBeShown) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    ViewportWidget* view = window.viewport();
    view->setGridVisible(false);
    view->setMarkersVisible(false);
    view->setJointsVisible(false);
    view->setStandardView(ViewportWidget::StandardView::Front);
    const QImage hidden = renderedImage(view);
    view->setCentresOfMassVisible(true);
    const QImage shown = renderedImage(view);
    if (qEnvironmentVariableIsSet("MOTUS_SCREENSHOT_DIR"))
        shown.save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") + "/com.png");
    ASSERT_EQ(hidden.size(), shown.size());
    int changed = 0;
    for (int y = 0; y < shown.height(); ++y)
        for (int x = 0; x < shown.width(); ++x) changed += shown.pixel(x, y) != hidden.pixel(x, y);
    EXPECT_GT(changed, 100);  // three balls with their axes
}

TEST_F(MainWindowTest, StaticEquilibriumMovesThePartsThereAsAnUndoableEdit) {
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/pendulum.json")));
    const engine::Vec3 p0 = window.scene()->parts[1].X_WP.p;
    ASSERT_TRUE(window.analyses()->start(Analyses::Kind::StaticEquilibrium));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !window.analyses()->running(); }, 60000));
    // The link hangs straight down from its pivot: its centre 0.05 m below it.
    const engine::Part& link = window.scene()->parts[1];
    const engine::Vec3 com = link.X_WP * link.p_PPcm;
    EXPECT_NEAR(com.x(), 0.0, 1e-6);
    EXPECT_NEAR(com.z(), -0.05, 1e-6);
    EXPECT_EQ(window.undoStack()->count(), 1);
    window.undoStack()->undo();
    EXPECT_EQ(window.scene()->parts[1].X_WP.p, p0);
}

TEST_F(MainWindowTest, ALongAnalysisShowsProgressAndCanBeCancelled) {
    // A torque the pendulum's weight cannot balance: there is no equilibrium, and the search
    // would run to its step limit. (Parts that nothing holds are refused at once instead.)
    ASSERT_TRUE(window.files()->openScene(
        QStringLiteral(MOTUS_SOURCE_DIR "/tests/ui/data/unbalanced_pendulum.json")));
    ASSERT_TRUE(window.analyses()->start(Analyses::Kind::StaticEquilibrium));
    QProgressBar* bar = window.findChild<QProgressBar*>("RunProgress");
    ASSERT_TRUE(bar);
    QToolButton* cancel = nullptr;
    for (QToolButton* b : window.findChildren<QToolButton*>())
        if (b->text() == "Cancel") cancel = b;
    ASSERT_TRUE(cancel);
    QTest::qWait(300);
    EXPECT_TRUE(bar->isVisible());
    EXPECT_TRUE(cancel->isVisible());
    EXPECT_TRUE(window.analyses()->running());
    QTest::mouseClick(cancel, Qt::LeftButton);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !window.analyses()->running(); }, 30000));
    EXPECT_FALSE(bar->isVisible());
    EXPECT_TRUE(
        window.messages()->item(window.messages()->count() - 1)->text().contains("cancelled"));
    EXPECT_EQ(window.undoStack()->count(), 0);  // nothing applied
}

// An edit while an analysis runs: its result belongs to a scene that is gone and is not
// applied (the poses would land on the parts of the scene as edited).
TEST_F(MainWindowTest, AnAnalysisOfAnEditedSceneIsNotApplied) {
    ASSERT_TRUE(window.files()->openScene(
        QStringLiteral(MOTUS_SOURCE_DIR "/tests/ui/data/unbalanced_pendulum.json")));
    ASSERT_TRUE(window.analyses()->start(Analyses::Kind::StaticEquilibrium));
    engine::SceneSpec edited = *window.scene();
    edited.gravity.z() *= 2.0;
    window.document()->changeFields(edited, "gravity");
    window.analyses()->cancel();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !window.analyses()->running(); }, 30000));
    QTest::qWait(20);
    const QString said = window.messages()->item(window.messages()->count() - 1)->text();
    EXPECT_TRUE(said.contains("the scene changed while it ran")) << said.toStdString();
    EXPECT_EQ(window.undoStack()->count(), 1);  // the edit alone
}

TEST_F(MainWindowTest, KinematicsNeedsAFullyDrivenMechanism) {
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/pendulum.json")));
    EXPECT_EQ(window.degreesOfFreedom()->freeDegreesOfFreedom(), 1);
    EXPECT_FALSE(window.analyses()->startKinematics(false));
    EXPECT_TRUE(
        window.messages()->item(window.messages()->count() - 1)->text().contains("1 left free"));
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/slider_crank.json")));
    EXPECT_EQ(window.degreesOfFreedom()->freeDegreesOfFreedom(), 0);
    const int plotsBefore = window.plots()->plotCount();
    EXPECT_TRUE(window.analyses()->startKinematics(true));
    EXPECT_EQ(window.plots()->plotCount(), plotsBefore + 1);  // the driver efforts

    // The run solves the motion at each instant: the slider where the closed form puts it
    // (crank r = 0.05 m at 360°/s, rod l = 0.2 m), and the motor's effort recorded.
    SimulationSession* session = window.session();
    ASSERT_TRUE(session->kinematic());
    ASSERT_TRUE(session->snapshot()->model->kinematic);
    session->runTo(0.3);
    ASSERT_TRUE(waitForTime(session, 0.3));
    const auto snap = session->snapshot();
    EXPECT_TRUE(snap->error.empty()) << snap->error;
    const double theta = 2.0 * std::numbers::pi * 0.3, r = 0.05, l = 0.2;
    const double x =
        r * std::cos(theta) + std::sqrt(l * l - r * r * std::sin(theta) * std::sin(theta));
    const std::size_t slider = 3;  // ground, crank, rod, slider
    ASSERT_EQ(window.scene()->parts[slider].name, "slider");
    EXPECT_NEAR(snap->partPoses[slider].p.x(), x, 1e-9);
    ASSERT_EQ(snap->outputs.driverEffort.size(), 1u);
    EXPECT_TRUE(std::isfinite(snap->outputs.driverEffort[0]));
    EXPECT_NE(snap->outputs.driverEffort[0], 0.0);
}

TEST_F(MainWindowTest, RenamingInTheTreeRenamesEverywhereAndUndoes) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    auto* model = qobject_cast<QStandardItemModel*>(window.sceneTree()->model());
    ASSERT_TRUE(model);
    QStandardItem* crank = model->item(0, 0)->child(1, 0);
    ASSERT_EQ(crank->text(), "crank");
    crank->setText("driver");  // what an in-place edit does
    QTest::qWait(20);
    EXPECT_EQ(window.scene()->parts[1].name, "driver");
    EXPECT_EQ(window.scene()->joints[0].markerI.part, "driver");
    EXPECT_EQ(model->item(0, 0)->child(1, 0)->text(), "driver");
    window.undoStack()->undo();
    EXPECT_EQ(window.scene()->parts[1].name, "crank");
    EXPECT_EQ(window.scene()->joints[0].markerI.part, "crank");

    // A name that is taken is refused with the reason, and the tree shows the old name again.
    model->item(0, 0)->child(1, 0)->setText("rocker");
    QTest::qWait(20);
    EXPECT_EQ(window.scene()->parts[1].name, "crank");
    EXPECT_EQ(model->item(0, 0)->child(1, 0)->text(), "crank");
    EXPECT_TRUE(
        window.messages()->item(window.messages()->count() - 1)->text().contains("duplicate"));
}

TEST_F(MainWindowTest, TheScenesSettingsAreEditableWhenNothingIsSelected) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    window.sceneTree()->clearSelection();
    PropertiesPanel* panel = window.properties();
    // The integrator is chosen from the ones Motus has; a step size must be positive.
    auto* integrator = qobject_cast<QComboBox*>(panel->editor("Integrator"));
    ASSERT_TRUE(integrator);
    EXPECT_EQ(integrator->findText("euler"), -1);
    typeInto(panel, "Step size", 0, "0");
    EXPECT_TRUE(panel->message("Step size").contains("positive"))
        << panel->message("Step size").toStdString();
    EXPECT_EQ(window.undoStack()->count(), 0);
    integrator->setCurrentText("rk4");
    panel->commit("Integrator");
    EXPECT_EQ(window.scene()->settings.integrator, engine::IntegratorType::RungeKutta4);
    EXPECT_EQ(window.session()->snapshot()->model->settings.integrator,
              engine::IntegratorType::RungeKutta4);
}

TEST_F(MainWindowTest, ClickingAnErrorThatNamesAnEntitySelectsIt) {
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/pendulum.json")));
    // A 0.5 m rod between the two markers the hinge holds together: no assembly exists.
    engine::SceneSpec broken = *window.scene();
    engine::Joint rod = broken.joints[0];
    rod.id = broken.newId();
    rod.name = "rod";
    rod.type = engine::JointType::Distance;
    rod.length = 0.5;
    broken.joints.push_back(rod);
    window.document()->changeFields(broken, "test edit");
    QListWidget* messages = window.messages();
    QListWidgetItem* error = nullptr;
    for (int k = 0; k < messages->count(); ++k)
        if (messages->item(k)->text().contains("joint '")) error = messages->item(k);
    ASSERT_TRUE(error) << "no message names a joint";
    const QString named = error->text().section('\'', 1, 1);
    window.sceneTree()->clearSelection();
    window.sceneTree()->setCurrentIndex(QModelIndex());
    const QRect rect = messages->visualItemRect(error);
    QTest::mouseClick(messages->viewport(), Qt::LeftButton, Qt::NoModifier, rect.center());
    EXPECT_EQ(window.sceneTree()->currentIndex().data().toString(), named);
}

TEST_F(MainWindowTest, AContactPairsOverridesAreEditable) {
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/box_pile.json")));
    engine::SceneSpec withPair = *window.scene();
    withPair.contact.pairs.push_back(
        {withPair.newId(), "floor", "ground", "box0", true, std::nullopt, std::nullopt, {}});
    window.document()->changeFields(withPair, "test edit");
    const engine::EntityId pair = window.scene()->contact.pairs[0].id;
    window.properties()->showEntity(window.scene(), pair);
    PropertiesPanel* panel = window.properties();
    typeInto(panel, "Friction", 0, "slippery");
    EXPECT_TRUE(panel->message("Friction").contains("not a number"));
    typeInto(panel, "Friction", 0, "0.1");
    ASSERT_TRUE(window.scene()->contact.pairs[0].friction);
    EXPECT_EQ(*window.scene()->contact.pairs[0].friction, 0.1);
    window.properties()->showEntity(window.scene(), pair);
    typeInto(panel, "Friction", 0, "");
    EXPECT_FALSE(window.scene()->contact.pairs[0].friction);
}

TEST_F(MainWindowTest, PartsAreAddedAndDeletedWithWhatDependsOnThem) {
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/slider_crank.json")));
    const std::size_t parts = window.scene()->parts.size(), joints = window.scene()->joints.size();
    window.sceneTree()->addPart();
    ASSERT_EQ(window.scene()->parts.size(), parts + 1);
    EXPECT_EQ(window.scene()->parts.back().name, "part1");
    EXPECT_EQ(window.properties()->entity(), window.scene()->parts.back().id);  // ready to edit
    // Delete the crank: its joints and the motor on its pivot go too, in one undoable edit.
    const engine::EntityId crank = window.scene()->parts[1].id;
    window.sceneTree()->clearSelection();
    const QModelIndexList hits = window.sceneTree()->model()->match(
        window.sceneTree()->model()->index(0, 0), Qt::UserRole + 1,
        QVariant::fromValue<quint64>(crank), 1, Qt::MatchExactly | Qt::MatchRecursive);
    ASSERT_FALSE(hits.isEmpty());
    window.sceneTree()->selectionModel()->select(
        hits.front(), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    window.sceneTree()->deleteSelection();
    EXPECT_EQ(window.scene()->parts.size(), parts);
    EXPECT_EQ(window.scene()->joints.size(), joints - 2);
    EXPECT_TRUE(window.scene()->motions.empty());
    window.undoStack()->undo();
    EXPECT_EQ(window.scene()->parts.size(), parts + 1);
    EXPECT_EQ(window.scene()->joints.size(), joints);
    EXPECT_EQ(window.scene()->motions.size(), 1u);
}

TEST_F(MainWindowTest, EditingWhileScrubbedOffersReRunFromHere) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    SimulationSession* session = window.session();
    session->runTo(0.4);
    ASSERT_TRUE(waitForTime(session, 0.4));
    const engine::Recording* recording = session->recording();
    const int frame = static_cast<int>(recording->frameAtOrBefore(0.2));
    session->seekFrame(frame);
    ASSERT_TRUE(waitForTime(session, 0.2));
    QTest::qWait(50);

    // Gravity doubled in the scene's properties (nothing selected): the recording stays.
    window.sceneTree()->clearSelection();
    PropertiesPanel* panel = window.properties();
    typeInto(panel, "Gravity", 2, "-19.62");
    EXPECT_EQ(window.scene()->gravity.z(), -19.62);
    EXPECT_GT(recording->size(), static_cast<std::size_t>(frame) + 100);

    // Re-run from here: frames up to 0.2 s are kept, the future is computed with the edit.
    window.runs()->rerunFromHere();
    session->runTo(0.4);
    ASSERT_TRUE(waitForTime(session, 0.4));
    const engine::Recording* rerun = session->recording();
    engine::State a, b;
    engine::Outputs oa, ob;
    ASSERT_TRUE(rerun->read(static_cast<std::size_t>(frame), a, oa));
    ASSERT_TRUE(rerun->read(rerun->size() - 1, b, ob));
    EXPECT_NEAR(a.t, 0.2, 1e-9);
    EXPECT_NEAR(b.t, 0.4, 1e-9);
    EXPECT_TRUE(engine::compile(*window.scene()).model->gravity.z() == -19.62);
    EXPECT_EQ(session->snapshot()->model->gravity.z(), -19.62);
}

// After Re-run From Here the run before it stays: the view draws its parts as a translucent
// ghost where they were at the shown time, the plots draw its curves dashed; Simulate ▸
// Discard Previous Run takes both away.
TEST_F(MainWindowTest, ReRunKeepsThePreviousRunAsAGhostUntilDiscarded) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    SimulationSession* session = window.session();
    session->runTo(0.4);
    ASSERT_TRUE(waitForTime(session, 0.4));
    PlotWidget* plot = window.sceneTree()->plotReactionForce("pivotA");
    ASSERT_NE(plot, nullptr);
    const engine::Recording* recording = session->recording();
    session->seekFrame(static_cast<int>(recording->frameAtOrBefore(0.1)));
    ASSERT_TRUE(waitForTime(session, 0.1));
    QTest::qWait(50);
    window.sceneTree()->clearSelection();
    typeInto(window.properties(), "Gravity", 2, "-39.24");  // four times the gravity
    ViewportWidget* view = window.viewport();
    EXPECT_FALSE(view->ghostVisible());
    EXPECT_EQ(plot->previousCurveCount(), 0);

    window.runs()->rerunFromHere();
    session->runTo(0.3);
    ASSERT_TRUE(waitForTime(session, 0.3));
    QTest::qWait(250);  // a plot refresh and a display poll
    ASSERT_TRUE(recording->hasPrevious());
    EXPECT_NEAR(recording->previousFrom(), 0.1, 1e-9);
    EXPECT_NEAR(recording->previousUntil(), 0.4, 1e-9);
    // The ghost: the old run's crank where it was at 0.3 s, away from the new run's.
    const auto snap = session->snapshot();
    ASSERT_EQ(snap->previousPoses.size(), snap->partPoses.size());
    engine::State old;
    engine::Outputs oldOutputs;
    ASSERT_TRUE(recording->readPrevious(0.3, old, oldOutputs));
    EXPECT_NEAR(old.t, 0.3, 1e-9);
    const std::vector<engine::Transform> oldPoses = engine::partPoses(*snap->model, old);
    for (std::size_t p = 0; p < oldPoses.size(); ++p) {
        EXPECT_LT((snap->previousPoses[p].p - oldPoses[p].p).norm(), 1e-12) << "part " << p;
        EXPECT_LT(snap->previousPoses[p].R.angularDistance(oldPoses[p].R), 1e-9) << "part " << p;
    }
    double apart = 0.0;
    for (std::size_t p = 0; p < snap->partPoses.size(); ++p)
        apart = std::max(apart, (snap->partPoses[p].p - snap->previousPoses[p].p).norm());
    EXPECT_GT(apart, 1e-3);  // four times the gravity moved the mechanism elsewhere
    EXPECT_TRUE(view->ghostVisible());
    view->setGridVisible(false);
    const QImage withGhost = renderedImage(view);
    if (qEnvironmentVariableIsSet("MOTUS_KEEP_TEST_FILES")) withGhost.save("/tmp/motus-ghost.png");
    // The plot: each curve's previous run, dashed, from 0.1 s to 0.4 s.
    EXPECT_EQ(plot->previousCurveCount(), 4);
    const PlotPicture picture = plot->picture("pivotA");
    int dashed = 0;
    for (const PlotCurve& c : picture.curves)
        if (c.dashed && !c.points.isEmpty()) {
            ++dashed;
            EXPECT_NEAR(c.points.front().x(), 0.1, 1e-9);
            EXPECT_NEAR(c.points.back().x(), 0.4, 1e-9);
        }
    EXPECT_EQ(dashed, 4);

    window.runs()->discardPreviousRun();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !recording->hasPrevious(); }, 5000));
    QTest::qWait(250);
    EXPECT_FALSE(view->ghostVisible());
    EXPECT_TRUE(session->snapshot()->previousPoses.empty());
    EXPECT_EQ(plot->previousCurveCount(), 0);
    const QImage withoutGhost = renderedImage(view);
    // The ghost's pixels are gone from the picture.
    ASSERT_EQ(withGhost.size(), withoutGhost.size());
    int changed = 0;
    for (int y = 0; y < withGhost.height(); ++y)
        for (int x = 0; x < withGhost.width(); ++x)
            if (withGhost.pixel(x, y) != withoutGhost.pixel(x, y)) ++changed;
    EXPECT_GT(changed, 200);
}

TEST_F(MainWindowTest, PlotsAreSavedWithTheSceneAndShownWhenItReopens) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    EXPECT_EQ(window.plots()->plotCount(), 0);
    window.plots()->addPlot({"pinB.Fx", "pinB.F"});
    window.plots()->addPlot({"energy.kinetic"}, "Energy");
    window.plots()->addPlot({"coupler.z"}, "Coupler curve", "coupler.x");
    QTemporaryDir dir;
    const QString copy = dir.filePath("with_plots.json");
    ASSERT_TRUE(window.files()->saveSceneAs(copy));
    const auto saved = engine::io::loadSceneFile(copy.toStdString());
    ASSERT_TRUE(saved.scene);
    ASSERT_EQ(saved.scene->plots.size(), 3u);
    EXPECT_EQ(saved.scene->plots[1].name, "Energy");
    EXPECT_EQ(saved.scene->plots[2].x, "coupler.x");

    window.plots()->clear();
    ASSERT_TRUE(window.files()->openScene(copy));
    const auto plots = window.plots()->plots();
    ASSERT_EQ(plots.size(), 3u);
    EXPECT_EQ(plots[0].channels, (QStringList{"pinB.Fx", "pinB.F"}));
    EXPECT_EQ(plots[0].x, QString());
    EXPECT_EQ(plots[1].title, "Energy");
    EXPECT_EQ(plots[1].channels, QStringList{"energy.kinetic"});
    EXPECT_EQ(plots[2].title, "Coupler curve");
    EXPECT_EQ(plots[2].x, "coupler.x");
}

TEST_F(MainWindowTest, ARunSavedFromTheGuiReopensWithEveryFrame) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    window.session()->runTo(0.3);
    ASSERT_TRUE(waitForTime(window.session(), 0.3));
    QTemporaryDir dir;
    const QString run = dir.filePath("four_bar.motusrun");
    ASSERT_TRUE(window.files()->saveRun(run));
    const std::size_t frames = window.session()->recording()->size();

    MainWindow other;
    other.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&other));
    ASSERT_TRUE(other.files()->openRun(run));
    ASSERT_NE(other.session()->recording(), nullptr);
    EXPECT_EQ(other.session()->recording()->size(), frames);
    EXPECT_DOUBLE_EQ(other.session()->snapshot()->time, 0.3);
    // Scrub the reopened run: no simulation needed.
    other.session()->seekFrame(100);
    ASSERT_TRUE(waitForTime(other.session(), 0.1));
    // And a broken file leaves the window as it was.
    QFile broken(dir.filePath("broken.motusrun"));
    ASSERT_TRUE(broken.open(QIODevice::WriteOnly));
    broken.write("MOTUSRUN");
    broken.close();
    EXPECT_FALSE(other.files()->openRun(broken.fileName()));
    EXPECT_EQ(other.session()->recording()->size(), frames);
}

TEST_F(MainWindowTest, ImportsAUrdfRobotAsAnUnsavedSceneThatRuns) {
    ASSERT_TRUE(
        window.files()->importRobot(MOTUS_SOURCE_DIR "/scenes/urdf/three_link_arm.urdf", {}));
    EXPECT_TRUE(window.document()->path().isEmpty());
    EXPECT_TRUE(window.windowTitle().contains("three_link_arm"))
        << window.windowTitle().toStdString();
    EXPECT_EQ(window.sceneTree()->model()->rowCount(window.sceneTree()->model()->index(0, 0)), 6);
    window.session()->runTo(0.2);
    ASSERT_TRUE(waitForTime(window.session(), 0.2));
    QTemporaryDir dir;
    ASSERT_TRUE(
        window.files()->saveSceneAs(dir.filePath("arm.json")));  // meshes were anchored: it reloads
    EXPECT_TRUE(
        engine::io::loadSceneFile(dir.filePath("arm.json").toStdString()).scene.has_value());
}

// The import dialog tells the format from the file, and remembers its choices for the next
// import; a file of no known format cannot be imported.
TEST_F(MainWindowTest, TheRobotImportDialogRemembersItsChoices) {
    engine::io::RobotImportOptions chosen;
    chosen.strict = true;
    chosen.fixedBase = true;
    chosen.packagePath = {"/opt/robots", "/home/me/ws/src"};
    {
        RobotImportDialog dialog(MOTUS_SOURCE_DIR "/scenes/urdf/three_link_arm.urdf");
        EXPECT_FALSE(dialog.options().strict);  // defaults the first time
        dialog.setOptions(chosen);
        dialog.remember();
        const QLabel* format = dialog.findChild<QLabel*>();
        ASSERT_NE(format, nullptr);
        EXPECT_TRUE(format->text().contains("URDF")) << format->text().toStdString();
    }
    RobotImportDialog again(MOTUS_SOURCE_DIR "/scenes/urdf/three_link_arm.urdf");
    const engine::io::RobotImportOptions o = again.options();
    EXPECT_TRUE(o.strict);
    EXPECT_TRUE(o.fixedBase);
    EXPECT_FALSE(o.inertiaFromGeometry);
    EXPECT_EQ(o.packagePath, chosen.packagePath);
    RobotImportDialog unknown(MOTUS_SOURCE_DIR "/README.md");
    QPushButton* import = unknown.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    EXPECT_FALSE(import->isEnabled());
}

TEST_F(MainWindowTest, PlayButtonRunsAndPausesTheSimulation) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    SimulationSession* session = window.session();
    QTest::mouseClick(window.timeline()->playButton(), Qt::LeftButton);
    ASSERT_TRUE(QTest::qWaitFor([&] { return session->snapshot()->time > 0.05; }, 10000));
    QTest::mouseClick(window.timeline()->playButton(), Qt::LeftButton);
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return session->snapshot()->mode == engine::RunMode::Paused; }, 10000));
    const double stopped = session->snapshot()->time;
    QTest::qWait(200);
    EXPECT_EQ(session->snapshot()->time, stopped);
}

TEST_F(MainWindowTest, LoopPlaybackFromTheMenuOrTheTimelineReplaysTheRecording) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    SimulationSession* session = window.session();
    session->runTo(0.2);
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return session->snapshot()->time >= 0.2 &&
                   session->snapshot()->mode == engine::RunMode::Paused;
        },
        20000));
    const std::size_t frames = session->recording()->size();
    session->seekFrame(0);
    auto* loopButton = window.findChild<QToolButton*>("LoopButton");
    ASSERT_NE(loopButton, nullptr);
    EXPECT_FALSE(loopButton->isChecked());
    QAction* loopAction = nullptr;
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == QStringLiteral("&Loop Playback")) loopAction = a;
    ASSERT_NE(loopAction, nullptr);
    EXPECT_EQ(loopAction->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_L));
    loopAction->trigger();  // Simulate > Loop Playback
    EXPECT_TRUE(session->loop());
    EXPECT_TRUE(loopButton->isChecked());

    QTest::mouseClick(window.timeline()->playButton(), Qt::LeftButton);
    std::size_t highest = 0;
    bool wrapped = false;
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            const auto snap = session->snapshot();
            EXPECT_LE(snap->time, 0.2 + 1e-12);
            if (snap->frame + 20 < highest) wrapped = true;
            highest = std::max(highest, snap->frame);
            return wrapped;
        },
        10000));
    session->pause();
    EXPECT_EQ(session->recording()->size(), frames);  // replayed, nothing computed

    QTest::mouseClick(loopButton, Qt::LeftButton);  // the button turns it off again
    EXPECT_FALSE(session->loop());
    EXPECT_FALSE(loopAction->isChecked());
}

// Moving the view to another window re-creates its GL context; OpenSceneGraph must draw
// again in the new one (not just the clear colour).
TEST(ViewportWidget, DrawsAfterMovingToAnotherWindow) {
    const engine::io::SceneLoadResult loaded = engine::io::loadSceneFile(kFourBar.toStdString());
    ASSERT_TRUE(loaded.scene);
    QWidget first, second;
    for (QWidget* w : {&first, &second}) {
        w->setLayout(new QVBoxLayout);
        w->resize(480, 360);
    }
    auto* view = new ViewportWidget;
    first.layout()->addWidget(view);
    first.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&first));
    view->showScene(*loaded.scene);
    EXPECT_GT(analyse(renderedImage(view)).distinctColours, 50);

    second.layout()->addWidget(view);  // reparent: new top-level window, new context
    second.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&second));
    EXPECT_GT(analyse(renderedImage(view)).distinctColours, 50);
}

// A mechanism that cannot close says which joint, by how much and the loop, and shows the joint
// and the loop's parts highlighted in the 3D view.
TEST_F(MainWindowTest, AnAssemblyThatCannotCloseShowsTheLoop) {
    ASSERT_TRUE(window.files()->openScene(
        QStringLiteral(MOTUS_SOURCE_DIR "/tests/app/data/four_bar_coupler_short.json")));
    ASSERT_TRUE(window.analyses()->start(Analyses::Kind::Assemble));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !window.analyses()->running(); }, 20000));
    QTest::qWait(20);
    const QString said = window.messages()->item(window.messages()->count() - 1)->text();
    EXPECT_TRUE(said.contains("joint 'C' cannot close")) << said.toStdString();
    EXPECT_TRUE(said.contains("12 mm too short")) << said.toStdString();
    const engine::SceneSpec& s = *window.scene();
    std::vector<quint64> expected{s.joints[3].id};
    for (const char* part : {"crank", "coupler", "rocker"})
        for (const engine::Part& p : s.parts)
            if (p.name == part) expected.push_back(p.id);
    EXPECT_EQ(window.viewport()->selection(), expected);
    EXPECT_EQ(window.undoStack()->count(), 0);  // nothing moved
}

// What a message highlights comes with it, by id, never from its words: a message whose words
// name joint 'A' but which is about joint 'D' highlights D (and a click selects D); a message
// that names joints in its words but carries no entity highlights nothing. Engine messages may
// be reworded at will.
TEST_F(MainWindowTest, AMessageHighlightsTheEntitiesItCarriesNotTheOnesItsWordsName) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    const engine::SceneSpec& s = *window.scene();
    ASSERT_GE(s.joints.size(), 4u);
    const engine::EntityId named = s.joints[0].id, meant = s.joints[3].id;
    ASSERT_NE(named, meant);
    window.viewport()->setSelection({});
    emit window.session()->runMessage(
        true,
        QStringLiteral("joint '%1' (coincident x) is not finite at t = 1 s")
            .arg(QString::fromStdString(s.joints[0].name)),
        {meant});
    EXPECT_EQ(window.viewport()->selection(), std::vector<quint64>{meant});
    QListWidget* list = window.messages();
    QListWidgetItem* item = list->item(list->count() - 1);
    list->scrollToItem(item);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(item).center());
    EXPECT_EQ(window.viewport()->selection(), std::vector<quint64>{meant});

    window.viewport()->setSelection({});
    emit window.session()->runMessage(
        true, QStringLiteral("joint '%1' and part 'crank' and /joints/0 are named here")
                  .arg(QString::fromStdString(s.joints[0].name)));
    EXPECT_TRUE(window.viewport()->selection().empty());
}

// Simulate ▸ Analysis ▸ Vibration Modes: the double pendulum's two frequencies in the Modes tab
// (the 2 × 2 eigenproblem's, as motus-cli modes gives them), and a selected mode swings the
// parts through its shape with the joints held, until time moves.
TEST_F(MainWindowTest, VibrationModesAreListedAndMoveInTheView) {
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/double_pendulum.json")));
    ASSERT_TRUE(window.analyses()->start(Analyses::Kind::Modes));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !window.analyses()->running(); }, 20000));
    QTest::qWait(20);
    ModesPanel* modes = window.modesPanel();
    ASSERT_EQ(modes->modeCount(), 2)
        << window.messages()->item(window.messages()->count() - 1)->text().toStdString();
    EXPECT_NEAR(modes->frequency(0), 0.77848961, 1e-7);
    EXPECT_NEAR(modes->frequency(1), 2.0821966742, 1e-8);
    QDockWidget* modesDock = window.findChild<QDockWidget*>(QStringLiteral("ModesDock"));
    ASSERT_TRUE(modesDock);
    EXPECT_FALSE(modesDock->visibleRegion().isEmpty()) << "the Modes tab is in front";
    EXPECT_EQ(window.undoStack()->count(), 0);  // the parts stay where they were
    EXPECT_EQ(modes->animatedMode(), 0) << "the lowest mode moves at once";

    // A quarter period on, every joint is still closed and the parts have moved by about the
    // animation's amplitude.
    const engine::SceneSpec& s = *window.scene();
    for (int mode = 0; mode < 2; ++mode) {
        const std::vector<engine::Transform> rest = modes->posesAt(mode, 0.0);
        const std::vector<engine::Transform> swung = modes->posesAt(mode, std::numbers::pi / 2);
        ASSERT_EQ(swung.size(), s.parts.size());
        auto markerAt = [&](const std::vector<engine::Transform>& poses,
                            const engine::MarkerRef& ref) {
            for (std::size_t p = 0; p < s.parts.size(); ++p)
                if (s.parts[p].name == ref.part)
                    for (const engine::Marker& m : s.parts[p].markers)
                        if (m.name == ref.marker) return engine::Vec3(poses[p] * m.X_PM.p);
            ADD_FAILURE() << ref.text();
            return engine::Vec3(engine::Vec3::Zero());
        };
        for (const engine::Joint& j : s.joints)
            EXPECT_LT((markerAt(swung, j.markerI) - markerAt(swung, j.markerJ)).norm(), 1e-9)
                << j.name;
        double moved = 0.0;
        for (std::size_t p = 0; p < s.parts.size(); ++p)
            moved = std::max(moved, (swung[p].p - rest[p].p).norm());
        EXPECT_GT(moved, 0.3 * modes->amplitude());
        EXPECT_LT(moved, 3.0 * modes->amplitude());
    }

    // At a moment of a run: about the pose of the frame shown, frozen there, with the
    // frequencies of the mechanism held in that pose.
    SimulationSession* session = window.session();
    session->runTo(0.5);
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            const auto snap = session->snapshot();
            return snap && snap->mode == engine::RunMode::Paused && snap->time >= 0.5 - 1e-9;
        },
        20000));
    ASSERT_TRUE(window.analyses()->start(Analyses::Kind::Modes));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !window.analyses()->running(); }, 20000));
    QTest::qWait(20);
    ASSERT_EQ(modes->modeCount(), 2);
    EXPECT_TRUE(modes->findChild<QLabel*>("ModesAbout")->text().contains("t = 0.500 s"));
    {
        const auto snap = session->snapshot();
        engine::State frame;
        engine::Outputs outputs;
        ASSERT_TRUE(session->recording()->read(snap->frame, frame, outputs));
        frame.v.setZero();
        const engine::ModesResult held = engine::modes(*snap->model, frame);
        ASSERT_TRUE(held.status.ok);
        ASSERT_EQ(held.modes.size(), 2u);
        EXPECT_EQ(modes->frequency(0), held.modes[0].frequency);
        EXPECT_GT(std::abs(modes->frequency(0) - 0.77848961), 1e-3) << "not the equilibrium's";
    }

    modes->animateMode(1);
    QTest::qWait(300);
    EXPECT_EQ(modes->animatedMode(), 1) << "it keeps moving while time stands still";
    window.session()->step();
    ASSERT_TRUE(QTest::qWaitFor([&] { return modes->animatedMode() < 0; }, 5000))
        << "a step of the run gives the view back";
}

}  // namespace
}  // namespace ui
