// What an engineer must be able to trust, driven as a user drives the window: a run shown is
// the document's or is marked stale everywhere (and a scene that cannot run never runs); the
// mouse wheel scrolls Properties and never edits a value by accident; numbers are shown whole;
// an edit is autosaved within a second and the recovery offer counts what differs from the
// file on disk; dropping a recorded run asks first; the analysis a run computes is in view.

#include <cmath>
#include <cstdio>

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QProcess>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <gtest/gtest.h>

#include "engine/io/scene_json.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "tests/ui/support/modal_answer.h"
#include "ui/document/recovery.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/analyses.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/messages_panel.h"
#include "ui/mainwindow/run_control.h"
#include "ui/mainwindow/scene_tree_panel.h"
#include "ui/plots/plot_widget.h"
#include "ui/plots/plots_panel.h"
#include "ui/properties/properties_panel.h"
#include "ui/session/simulation_session.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {
namespace {

const QString kFourBar = QStringLiteral(MOTUS_SOURCE_DIR "/scenes/four_bar.json");

class TrustTest : public ::testing::Test {
protected:
    void SetUp() override {
        window.resize(1280, 800);
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    }
    QAction* action(const QString& text) const {
        for (QAction* a : window.findChildren<QAction*>())
            if (a->text().remove('&') == text) return a;
        return nullptr;
    }
    QString lastMessage() const {
        const int n = window.messages()->count();
        return n ? window.messages()->item(n - 1)->text() : QString();
    }
    // The ground's marker D moved to x (m): at 1.4 m the four-bar's loop is 600 mm too short.
    void moveGroundPivot(double x) {
        engine::SceneSpec edited = *window.scene();
        ASSERT_EQ(edited.parts[0].markers[1].name, "D");
        edited.parts[0].markers[1].X_PM.p.x() = x;
        window.document()->changeFields(edited, "Edit position of marker D", "D/position");
    }
    bool runTo(double t) {
        window.session()->runTo(t);
        return QTest::qWaitFor(
            [&] {
                const auto snap = window.session()->snapshot();
                return snap && snap->mode == engine::RunMode::Paused && snap->time >= t - 1e-9;
            },
            60000);
    }
    MainWindow window;
};

// The four-bar's ground pivot moved out of reach before any run: no run of the old four-bar is
// left to play, the view says why, and Play says why instead of recording the old mechanism.
// Undo brings the run back.
TEST_F(TrustTest, AnEditThatCannotAssembleLeavesNoRunToPlay) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    ASSERT_TRUE(window.session()->active());
    moveGroundPivot(1.4);
    EXPECT_FALSE(window.session()->active()) << "the old four-bar's run is not the document's";
    if (qEnvironmentVariableIsSet("MOTUS_SCREENSHOT_DIR")) {
        QTest::qWait(300);
        window.grab().save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") + "/cannot_run.png");
    }
    EXPECT_TRUE(window.viewport()->banner().contains("cannot run"))
        << window.viewport()->banner().toStdString();
    EXPECT_TRUE(window.timeline()->timeLabel()->text().contains("cannot run"));
    QAction* play = action("Play / Pause");
    ASSERT_TRUE(play);
    play->trigger();
    QTest::qWait(300);
    EXPECT_FALSE(window.session()->active());
    EXPECT_TRUE(lastMessage().startsWith("Cannot run the scene")) << lastMessage().toStdString();

    window.undoStack()->undo();
    ASSERT_TRUE(window.session()->active());
    EXPECT_FALSE(window.session()->stale());
    EXPECT_TRUE(window.viewport()->banner().isEmpty());
}

// After a recorded run, an edit makes the run stale: the view, the timeline, the plots and the
// status bar say so, and nothing more is computed with the old model; Reset (confirmed) runs
// the scene as edited. An edit that cannot assemble keeps the stale run with the reason.
TEST_F(TrustTest, ARunOfTheSceneBeforeAnEditIsMarkedStaleAndNotExtended) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    ASSERT_TRUE(runTo(0.2));
    window.sceneTree()->plotReactionForce("pivotA");
    const std::size_t frames = window.session()->recording()->size();
    ASSERT_GT(frames, 10u);
    EXPECT_FALSE(window.session()->stale());

    engine::SceneSpec edited = *window.scene();
    edited.parts[1].mass *= 2.0;
    window.document()->changeFields(edited, "Edit mass of crank", "crank/mass");
    ASSERT_TRUE(window.session()->stale());
    EXPECT_TRUE(window.viewport()->banner().startsWith("Stale run"));
    EXPECT_FALSE(window.timeline()->noteLabel()->isHidden());
    auto* plotsNote = window.plots()->findChild<QLabel*>(QStringLiteral("PlotsStaleNote"));
    ASSERT_TRUE(plotsNote);
    EXPECT_FALSE(plotsNote->isHidden());
    if (qEnvironmentVariableIsSet("MOTUS_SCREENSHOT_DIR")) {
        QTest::qWait(300);
        window.grab().save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") + "/stale_run.png");
    }
    EXPECT_TRUE(QTest::qWaitFor(
        [&] {
            for (QLabel* label : window.statusBar()->findChildren<QLabel*>())
                if (label->text().contains("stale run")) return true;
            return false;
        },
        3000));

    // Play at the end of a stale run computes nothing and says why.
    window.session()->play();
    QTest::qWait(400);
    EXPECT_EQ(window.session()->recording()->size(), frames);
    EXPECT_TRUE(lastMessage().contains("Nothing more is computed")) << lastMessage().toStdString();
    window.session()->runTo(1.0);
    QTest::qWait(300);
    EXPECT_EQ(window.session()->recording()->size(), frames);
    // Replaying it is fine: it is what the user looks at.
    window.session()->seekFrame(0);
    ASSERT_TRUE(QTest::qWaitFor([&] { return window.session()->snapshot()->frame == 0; }, 5000));
    window.session()->step();
    ASSERT_TRUE(QTest::qWaitFor([&] { return window.session()->snapshot()->frame == 1; }, 5000));

    // Undoing the edit makes the run the document's again.
    window.undoStack()->undo();
    EXPECT_FALSE(window.session()->stale());
    EXPECT_TRUE(window.viewport()->banner().isEmpty());
    EXPECT_TRUE(plotsNote->isHidden());
    window.undoStack()->redo();
    ASSERT_TRUE(window.session()->stale());

    // Out of reach: Reset asks, then cannot start the edited scene; the run stays stale and
    // the reason is given.
    moveGroundPivot(1.4);
    int asked = 0;
    test::answerModal(&window, QStringLiteral("DiscardRunQuestion"), QStringLiteral("Discard Run"),
                      &asked);
    window.runs()->resetRun();
    EXPECT_EQ(asked, 1);
    ASSERT_TRUE(window.session()->active());
    EXPECT_TRUE(window.session()->stale());
    EXPECT_TRUE(window.session()->staleReason().contains("cannot run"))
        << window.session()->staleReason().toStdString();
    EXPECT_EQ(window.session()->recording()->size(), frames);

    // Back within reach: Reset runs the edited scene, current.
    window.undoStack()->undo();
    test::answerModal(&window, QStringLiteral("DiscardRunQuestion"), QStringLiteral("Discard Run"),
                      &asked);
    window.runs()->resetRun();
    EXPECT_EQ(asked, 2);
    EXPECT_FALSE(window.session()->stale());
    EXPECT_EQ(window.session()->recording()->size(), 1u);
    EXPECT_EQ(window.session()->snapshot()->partPoses.size(), window.scene()->parts.size());
}

// Reset and a change of analysis drop the recorded run only when the user says so.
TEST_F(TrustTest, DroppingARecordedRunAsksFirst) {
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/slider_crank.json")));
    ASSERT_TRUE(runTo(0.1));
    const std::size_t frames = window.session()->recording()->size();
    int asked = 0;
    test::answerModal(&window, QStringLiteral("DiscardRunQuestion"), QStringLiteral("Cancel"),
                      &asked);
    window.runs()->resetRun();
    EXPECT_EQ(asked, 1);
    EXPECT_EQ(window.session()->recording()->size(), frames) << "Cancel keeps the run";
    test::answerModal(&window, QStringLiteral("DiscardRunQuestion"), QStringLiteral("Cancel"),
                      &asked);
    EXPECT_FALSE(window.analyses()->startKinematics(true));
    EXPECT_EQ(asked, 2);
    EXPECT_EQ(window.session()->recording()->size(), frames);
    EXPECT_FALSE(window.session()->kinematic());

    // Said yes: the analysis changes, and the timeline and status bar show which it is.
    test::answerModal(&window, QStringLiteral("DiscardRunQuestion"), QStringLiteral("Discard Run"),
                      &asked);
    EXPECT_TRUE(window.analyses()->startKinematics(true));
    EXPECT_EQ(asked, 3);
    EXPECT_TRUE(window.session()->kinematic());
    auto* analysis = window.timeline()->findChild<QLabel*>(QStringLiteral("TimelineAnalysis"));
    ASSERT_TRUE(analysis);
    EXPECT_EQ(analysis->text(), "Inverse dynamics");
    ASSERT_TRUE(runTo(0.05));
    EXPECT_TRUE(QTest::qWaitFor(
        [&] {
            for (QLabel* label : window.statusBar()->findChildren<QLabel*>())
                if (label->text().startsWith("Inverse dynamics · t = ")) return true;
            return false;
        },
        3000));
}

// New, Open and Quit drop the recorded run with the document: even when the scene itself is
// saved, a run not saved as a run file is not dropped without asking. Save Run… keeps it (and
// the question is not asked again for it), Cancel keeps the document.
TEST_F(TrustTest, NewOpenAndQuitAskBeforeDroppingAnUnsavedRun) {
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/slider_crank.json")));
    ASSERT_TRUE(runTo(0.1));
    ASSERT_FALSE(window.isWindowModified()) << "an unmodified document";
    const std::size_t frames = window.session()->recording()->size();
    QAction* newAction = window.findChild<QAction*>(QStringLiteral("FileNew"));
    ASSERT_TRUE(newAction);

    int asked = 0;
    test::answerModal(&window, QStringLiteral("KeepRunQuestion"), QStringLiteral("Cancel"), &asked);
    newAction->trigger();
    EXPECT_EQ(asked, 1);
    EXPECT_EQ(window.scene()->name, "Slider-crank") << "Cancel keeps the document";
    EXPECT_EQ(window.session()->recording()->size(), frames) << "and its run";

    // Quit asks the same; Cancel keeps the window open.
    test::answerModal(&window, QStringLiteral("KeepRunQuestion"), QStringLiteral("Cancel"), &asked);
    EXPECT_FALSE(window.close());
    EXPECT_EQ(asked, 2);

    // Save Run… writes the run file; nothing is asked again for the run as saved.
    QTemporaryDir dir;
    const QString runPath = dir.filePath(QStringLiteral("kept.motusrun"));
    ASSERT_TRUE(window.files()->saveRun(runPath));
    newAction->trigger();
    EXPECT_EQ(asked, 2) << "a saved run is not asked about";
    EXPECT_NE(window.scene()->name, "Slider-crank");
    ASSERT_TRUE(QFileInfo::exists(runPath));

    // A run opened from its file is saved as it is; once it grows, it is not.
    ASSERT_TRUE(window.files()->openRun(runPath));
    EXPECT_TRUE(window.files()->maybeSave());
    EXPECT_EQ(asked, 2);
    ASSERT_TRUE(runTo(0.2));
    test::answerModal(&window, QStringLiteral("KeepRunQuestion"), QStringLiteral("Discard Run"),
                      &asked);
    EXPECT_TRUE(window.files()->maybeSave());
    EXPECT_EQ(asked, 3);
}

// A wheel turn over Properties scrolls it: the combo boxes under the pointer change nothing
// (the turn goes in through the X server, as a mouse's would). Clicked into, the combo box
// takes the wheel as usual.
TEST_F(TrustTest, TheWheelScrollsPropertiesAndNeverEditsAnUnfocusedField) {
    if (QProcess::execute(QStringLiteral("xdotool"), {QStringLiteral("version")}) != 0)
        GTEST_FAIL() << "xdotool is needed (tools/setup-deps.sh installs it)";
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    window.resize(1100, 560);  // Properties taller than its dock: it scrolls
    QTest::qWait(200);
    window.properties()->showEntity(window.scene(), window.scene()->parts[1].id);
    auto* combo = qobject_cast<QComboBox*>(window.properties()->editor("Mass properties"));
    ASSERT_TRUE(combo);
    QTest::qWait(200);
    const std::string before = engine::io::sceneToJson(*window.scene());
    const int undoBefore = window.undoStack()->count();
    const QPoint at = combo->mapToGlobal(combo->rect().center());
    auto wheel = [&](int times, const char* button) {
        QProcess::execute(
            QStringLiteral("xdotool"),
            {QStringLiteral("mousemove"), QString::number(at.x()), QString::number(at.y())});
        QTest::qWait(100);
        for (int k = 0; k < times; ++k) {
            QProcess::execute(QStringLiteral("xdotool"),
                              {QStringLiteral("click"), QString::fromLatin1(button)});
            QTest::qWait(60);
        }
        QTest::qWait(200);
    };
    window.setFocus();
    wheel(3, "5");  // down
    wheel(3, "4");  // up
    EXPECT_EQ(engine::io::sceneToJson(*window.scene()), before);
    EXPECT_EQ(window.undoStack()->count(), undoBefore);
    EXPECT_FALSE(combo->hasFocus());
}

// Numbers are shown whole, from their first digit, with the full value in the tooltip.
TEST_F(TrustTest, NumbersAreShownWhole) {
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    engine::SceneSpec edited = *window.scene();
    edited.parts[0].markers[1].X_PM.p = engine::Vec3(0.325926, -0.0520506, 1.23456789e-5);
    window.document()->changeFields(edited, "Edit position of marker D", "D/position");
    window.properties()->showEntity(window.scene(), window.scene()->parts[0].markers[1].id);
    QTest::qWait(200);
    QStringList shown;
    for (int k = 0; k < 3; ++k) {
        auto* edit = qobject_cast<QLineEdit*>(window.properties()->editor("Position", k));
        ASSERT_TRUE(edit) << k;
        shown << edit->text();
        EXPECT_EQ(edit->cursorPosition(), 0) << "the field shows its first characters";
        // The whole text fits in the field as laid out.
        EXPECT_GE(edit->width(), edit->fontMetrics().horizontalAdvance(edit->text()) + 4)
            << edit->text().toStdString() << " in " << edit->width() << " px";
        EXPECT_FALSE(edit->toolTip().isEmpty());
    }
    // In mm or m, whichever the panel uses, every digit of each value is there.
    EXPECT_TRUE(shown[0].contains("325926")) << shown.join(' ').toStdString();
    EXPECT_TRUE(shown[1].startsWith('-')) << shown[1].toStdString();
    EXPECT_TRUE(shown[1].contains("520506")) << shown[1].toStdString();
}

class TrustRecoveryTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(dir.isValid());
        qputenv("MOTUS_RECOVERY_DIR", dir.filePath("recovery").toUtf8());
        userFile = dir.filePath("mechanism.json");
        ASSERT_TRUE(QFile::copy(kFourBar, userFile));
        QFile::setPermissions(userFile, QFile::ReadOwner | QFile::WriteOwner);
    }
    void TearDown() override { qunsetenv("MOTUS_RECOVERY_DIR"); }
    QTemporaryDir dir;
    QString userFile;
};

// One edit is autosaved within a second (a crash loses at most that), and what a recovery
// holds is counted against the file on disk: after a recovery the document still differs from
// its file, and the next offer says so (it said "0 edits").
TEST_F(TrustRecoveryTest, AnEditIsAutosavedAtOnceAndCountedAgainstTheFile) {
    MainWindow window;
    ASSERT_TRUE(window.files()->openScene(userFile));
    Autosaver* autosaver = window.autosaver();
    engine::SceneSpec edited = *window.scene();
    edited.parts[1].mass = 2.5;
    window.document()->changeFields(edited, "Edit mass of crank", "crank/mass");
    ASSERT_TRUE(QTest::qWaitFor([&] { return autosaver->autosaves() > 0; }, 1500))
        << "an edit is kept within a second";
    const engine::io::SceneLoadResult kept =
        engine::io::loadSceneFile(autosaver->sceneFile().toStdString());
    ASSERT_TRUE(kept.scene);
    EXPECT_EQ(kept.scene->parts[1].mass, 2.5);

    // The recovery as another process would find it: one value differs from the file.
    RecoveryEntry entry;
    entry.sceneFile = autosaver->sceneFile();
    entry.path = userFile;
    EXPECT_EQ(differencesFromFile(entry), 1);
    edited.parts[2].mass = 0.75;
    window.document()->changeFields(edited, "Edit mass of coupler", "coupler/mass");
    autosaver->saveNow();
    EXPECT_GE(differencesFromFile(entry), 2);
    entry.path.clear();
    EXPECT_EQ(differencesFromFile(entry), -1);
}

// A recovery info naming a file outside the recovery folder is not a recovery: it is never
// offered, and no decision deletes the file it names.
TEST_F(TrustRecoveryTest, ARecoveryNeverNamesAFileOutsideItsFolder) {
    const QString folder = dir.filePath("recovery");
    ASSERT_TRUE(QDir().mkpath(folder));
    const QString victim = dir.filePath("victim.json");
    ASSERT_TRUE(QFile::copy(kFourBar, victim));
    auto writeInfo = [&](const QString& name, const QString& scene) {
        QJsonObject o;
        o.insert("format", "motus-recovery");
        o.insert("scene", scene);
        o.insert("run", scene);
        o.insert("pid", 0);
        o.insert("title", "x");
        QFile f(folder + "/" + name);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(o).toJson());
    };
    writeInfo("session-1.info", "../victim.json");
    writeInfo("session-2.info", victim);  // absolute
    EXPECT_TRUE(orphanedRecoveries().empty());
    // Asked to remove it anyway (as Recover and Discard do), nothing outside the folder goes.
    RecoveryEntry forged;
    forged.infoFile = folder + "/session-1.info";
    forged.sceneFile = victim;
    forged.runFile = victim;
    removeRecovery(forged);
    EXPECT_TRUE(QFile::exists(victim));
    EXPECT_FALSE(QFile::exists(folder + "/session-1.info"));
}

}  // namespace
}  // namespace ui

namespace ui {
namespace {

// At the default size the 3D view has half the window or more; closing the bottom docks gives
// their room to the view, not to the timeline; View ▸ Reset Layout puts the docks back.
TEST(TrustLayoutTest, TheViewHasHalfTheWindowAndResetLayoutRestoresIt) {
    QSettings().remove(QStringLiteral("window"));
    MainWindow window;
    window.resize(1100, 720);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    window.resetLayout();
    QTest::qWait(200);
    auto viewShare = [&] {
        const QSize v = window.viewport()->size(), w = window.size();
        return double(v.width()) * v.height() / (double(w.width()) * w.height());
    };
    const QSize view = window.viewport()->size();
    std::printf("view %d x %d of 1100 x 720: %.0f %% (tree %d, properties %d)\n", view.width(),
                view.height(), 100.0 * viewShare(),
                window.findChild<QDockWidget*>("SceneDock")->width(),
                window.findChild<QDockWidget*>("PropertiesDock")->width());
    EXPECT_GE(viewShare(), 0.5);
    // A problem opens the messages; closing them gives the room back to the view, not to the
    // timeline.
    const int timelineHeight = window.timeline()->height();
    EXPECT_FALSE(window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/no/such/scene.json")));
    QTest::qWait(200);
    auto* messages = window.findChild<QDockWidget*>("MessagesDock");
    EXPECT_TRUE(messages->isVisible());
    EXPECT_LT(window.viewport()->height(), view.height() - 40);
    messages->close();
    QTest::qWait(200);
    EXPECT_LE(window.timeline()->height(), timelineHeight + 2) << "the timeline does not grow";
    EXPECT_NEAR(window.viewport()->height(), view.height(), 4) << "the view does";
    // Docks moved about: Reset Layout puts them back.
    window.findChild<QDockWidget*>("SceneDock")->close();
    window.findChild<QDockWidget*>("PlotsDock")->show();
    window.findChild<QAction*>("ResetLayout")->trigger();
    QTest::qWait(200);
    EXPECT_TRUE(window.findChild<QDockWidget*>("SceneDock")->isVisible());
    EXPECT_FALSE(window.findChild<QDockWidget*>("PlotsDock")->isVisible());
    EXPECT_NEAR(window.viewport()->height(), view.height(), 4);
    EXPECT_NEAR(window.viewport()->width(), view.width(), 4);
}

}  // namespace
}  // namespace ui

namespace ui {
namespace {

// A slider-crank whose crank is as long as its rod passes a singular position twice a turn
// (the slider at the crank's pivot): the run says so, once, with the time; the example's
// regular slider-crank says nothing.
TEST_F(TrustTest, ASingularPassageIsSaid) {
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/slider_crank.json")));
    ASSERT_TRUE(runTo(1.0));
    auto warned = [&] {
        for (int k = 0; k < window.messages()->count(); ++k)
            if (window.messages()->item(k)->text().contains("passed a singular position"))
                return true;
        return false;
    };
    QTest::qWait(100);
    EXPECT_FALSE(warned()) << "a crank shorter than its rod is regular";
    ASSERT_TRUE(window.files()->openScene(
        QStringLiteral(MOTUS_SOURCE_DIR "/tests/ui/data/equal_slider_crank.json")));
    ASSERT_TRUE(runTo(0.5));
    EXPECT_TRUE(QTest::qWaitFor(warned, 3000));
    EXPECT_GE(window.session()->snapshot()->statistics.singularPassages, 1);
    // At the first passage: the crank at 90° (0.25 s at one turn a second).
    const double t = window.session()->snapshot()->statistics.lastSingularTime;
    EXPECT_GT(t, 0.2);
    EXPECT_LT(t, 0.5);
}

}  // namespace
}  // namespace ui

namespace ui {
namespace {

// Parts placed inside one another: the run says so as it leaves its first frame, naming the
// deepest pair and highlighting it; a pile set down apart says nothing.
TEST_F(TrustTest, PartsStartedInsideOneAnotherAreSaid) {
    auto warning = [&] {
        for (int k = 0; k < window.messages()->count(); ++k)
            if (window.messages()->item(k)->text().contains("inside one another"))
                return window.messages()->item(k)->text();
        return QString();
    };
    ASSERT_TRUE(
        window.files()->openScene(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/box_pile.json")));
    ASSERT_TRUE(runTo(0.05));
    QTest::qWait(100);
    EXPECT_TRUE(warning().isEmpty()) << "the example pile starts 1 cm apart";
    ASSERT_TRUE(window.files()->openScene(
        QStringLiteral(MOTUS_SOURCE_DIR "/tests/ui/data/overlapping_boxes.json")));
    ASSERT_TRUE(runTo(0.05));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !warning().isEmpty(); }, 3000));
    EXPECT_TRUE(warning().startsWith("Parts 'left' and 'right' start 0.03 m inside one another"))
        << warning().toStdString();
    EXPECT_EQ(window.session()->snapshot()->statistics.startOverlaps, 1u);
    const engine::SceneSpec* scene = window.document()->scene();
    ASSERT_TRUE(scene);
    const std::vector<quint64>& highlighted = window.viewport()->selection();
    for (const char* name : {"left", "right"})
        EXPECT_NE(
            std::find(highlighted.begin(), highlighted.end(), quint64(scene->findPart(name)->id)),
            highlighted.end())
            << name << " is highlighted";
}

// A scene with an end time: Play stops there (it ran until paused), and the timeline says
// where the run ends.
TEST_F(TrustTest, PlayStopsAtTheScenesEndTime) {
    ASSERT_TRUE(window.files()->openScene(
        QStringLiteral(MOTUS_SOURCE_DIR "/tests/app/data/pendulum_end_time.json")));
    window.session()->setSpeed(10.0);
    window.session()->play();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            const auto snap = window.session()->snapshot();
            return snap && snap->mode == engine::RunMode::Paused && snap->time > 0.0;
        },
        10000));
    EXPECT_DOUBLE_EQ(window.session()->snapshot()->time, 0.02);
    QTest::qWait(300);
    EXPECT_DOUBLE_EQ(window.session()->snapshot()->time, 0.02) << "it stays stopped";
    EXPECT_TRUE(window.timeline()->timeLabel()->text().contains("ends at 0.02 s"))
        << window.timeline()->timeLabel()->text().toStdString();
}

}  // namespace
}  // namespace ui

namespace ui {
namespace {

// A scene whose plot names 100,000 channels (none recorded) opens with one plot of the first
// channels and a message or two, instead of freezing the window with a curve and a warning per
// channel.
TEST_F(TrustTest, APlotOfAHundredThousandChannelsOpensBounded) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    QFile source(kFourBar);
    ASSERT_TRUE(source.open(QIODevice::ReadOnly));
    QJsonObject scene = QJsonDocument::fromJson(source.readAll()).object();
    QJsonArray channels;
    for (int k = 0; k < 100000; ++k) channels.append(QStringLiteral("nothing%1.x").arg(k));
    QJsonObject plot;
    plot.insert("name", "everything");
    plot.insert("channels", channels);
    scene.insert("plots", QJsonArray{plot});
    const QString path = dir.filePath("many_channels.json");
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(scene).toJson());
    file.close();
    const int messagesBefore = window.messages()->count();
    ASSERT_TRUE(window.files()->openScene(path));
    EXPECT_EQ(window.plots()->plotCount(), 1);
    EXPECT_EQ(window.plots()->plot(0)->channels().size(), PlotsPanel::kMaxCurves);
    EXPECT_LE(window.messages()->count() - messagesBefore, 4);
    bool said = false;
    for (int k = messagesBefore; k < window.messages()->count(); ++k)
        said = said || window.messages()->item(k)->text().contains("(100000 in all)");
    EXPECT_TRUE(said);
}

}  // namespace
}  // namespace ui

namespace ui {
namespace {

// Plots are kept with the scene but are no part of the mechanism: a plot added and the scene
// saved leave the run current.
TEST_F(TrustTest, PlotsKeptWithTheSceneLeaveTheRunCurrent) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    ASSERT_TRUE(window.files()->openScene(kFourBar));
    ASSERT_TRUE(runTo(0.05));
    window.sceneTree()->plotReactionForce("pinB");
    ASSERT_TRUE(window.files()->saveSceneAs(dir.filePath("four_bar.json")));
    EXPECT_FALSE(window.scene()->plots.empty());
    EXPECT_FALSE(window.session()->stale());
    // An edit and its undo: current again, plots and all.
    engine::SceneSpec edited = *window.scene();
    edited.gravity.z() = -1.62;
    window.document()->changeFields(edited, "Edit gravity", "gravity");
    EXPECT_TRUE(window.session()->stale());
    window.undoStack()->undo();
    EXPECT_FALSE(window.session()->stale());
}

}  // namespace
}  // namespace ui
