// Crash recovery: a Motus killed after an autosave is recovered exactly at the next start; the
// user's own file is never written; a save, a discard or a clean exit leaves nothing behind.

#include <csignal>

#include <QDir>
#include <QFile>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include <gtest/gtest.h>

#include "engine/analysis/outputs.h"
#include "engine/io/scene_json.h"
#include "engine/record/recording.h"
#include "ui/document/recovery.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/session/simulation_session.h"

namespace ui {
namespace {

const QString kFourBar = QStringLiteral(MOTUS_SOURCE_DIR "/scenes/four_bar.json");

QByteArray bytesOf(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Recovery files go to a folder of the test's own.
class RecoveryTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(dir.isValid());
        qputenv("MOTUS_RECOVERY_DIR", dir.filePath("recovery").toUtf8());
        userFile = dir.filePath("mechanism.json");
        ASSERT_TRUE(QFile::copy(kFourBar, userFile));
        userBytes = bytesOf(userFile);
    }
    void TearDown() override { qunsetenv("MOTUS_RECOVERY_DIR"); }
    // Answers the next recovery question with the button labelled `answer`.
    void answerWith(const QString& answer) {
        auto* timer = new QTimer(&timers);
        timer->setInterval(20);
        QObject::connect(timer, &QTimer::timeout, [timer, answer] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box || box->objectName() != "RecoveryOffer") return;
            if (qEnvironmentVariableIsSet("MOTUS_SCREENSHOT_DIR"))
                box->grab().save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") +
                                 "/recovery_offer.png");
            for (QAbstractButton* b : box->buttons())
                if (b->text().remove('&') == answer) {
                    timer->stop();
                    timer->deleteLater();
                    b->click();
                    return;
                }
        });
        timer->start();
    }
    // Starts this test program as the child process `mode` (ui_test_main.cpp) on the user's
    // file, autosaving every second, writing what it holds to `expected`.
    void startChild(QProcess& child, const char* mode, const QString& expected) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("MOTUS_AUTOSAVE_SECONDS", "1");
        child.setProcessEnvironment(env);
        child.start(QCoreApplication::applicationFilePath(),
                    {QString::fromLatin1(mode), userFile, expected});
    }
    QTemporaryDir dir;
    QString userFile;
    QByteArray userBytes;
    QObject timers;  // parent of the answering timers
};

TEST_F(RecoveryTest, AKilledMotusIsRecoveredExactlyAtTheNextStart) {
    // A Motus process opens the user's file, takes three edits, autosaves (every second here),
    // and is killed with SIGKILL: no destructor, no clean exit.
    const QString expected = dir.filePath("expected.json");
    QProcess child;
    startChild(child, "--recovery-child", expected);
    ASSERT_TRUE(child.waitForStarted(10000));
    const qint64 pid = child.processId();
    ASSERT_TRUE(
        QTest::qWaitFor([&] { return child.readAllStandardOutput().contains("AUTOSAVED"); }, 60000))
        << child.readAllStandardError().toStdString();
    ASSERT_EQ(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
    ASSERT_TRUE(child.waitForFinished(10000));
    EXPECT_EQ(child.exitStatus(), QProcess::CrashExit);
    EXPECT_EQ(bytesOf(userFile), userBytes) << "the user's file is never written by an autosave";

    const std::vector<RecoveryEntry> left = orphanedRecoveries();
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left[0].pid, pid);
    EXPECT_EQ(left[0].edits, 3);
    EXPECT_EQ(left[0].path, QFileInfo(userFile).absoluteFilePath());

    // The next start offers it; Recover opens it as an unsaved document of the user's file.
    MainWindow window;
    window.show();
    answerWith("Recover");
    EXPECT_EQ(window.files()->offerRecovery(), 1);
    ASSERT_TRUE(window.scene());
    EXPECT_EQ(engine::io::sceneToJson(*window.scene()), bytesOf(expected).toStdString());
    EXPECT_EQ(window.scene()->parts[1].mass, 2.75);
    EXPECT_EQ(window.scene()->parts[2].name, "link");
    EXPECT_TRUE(window.document()->isModified());
    EXPECT_EQ(window.document()->path(), QFileInfo(userFile).absoluteFilePath());
    EXPECT_TRUE(orphanedRecoveries().empty()) << "the decision removes the recovery";
    EXPECT_FALSE(QFile::exists(left[0].sceneFile));
    // The recovered work is protected again at once, by this process.
    EXPECT_TRUE(QFile::exists(window.autosaver()->sceneFile()));
    // Saving writes the user's file and leaves no recovery.
    ASSERT_TRUE(window.files()->save());
    EXPECT_EQ(bytesOf(userFile).toStdString(), bytesOf(expected).toStdString());
    EXPECT_FALSE(QFile::exists(window.autosaver()->sceneFile()));
}

// A recorded run is work too: kept with the recovery (the scene itself unedited) and back,
// every frame, after a kill; over the budget it is left out and the info says why.
TEST_F(RecoveryTest, ARecordedRunSurvivesAKillWithinTheBudget) {
    const QString expected = dir.filePath("expected-run.txt");
    QProcess child;
    startChild(child, "--recovery-child-run", expected);
    ASSERT_TRUE(child.waitForStarted(10000));
    ASSERT_TRUE(
        QTest::qWaitFor([&] { return child.readAllStandardOutput().contains("AUTOSAVED"); }, 90000))
        << child.readAllStandardError().toStdString();
    ASSERT_EQ(::kill(static_cast<pid_t>(child.processId()), SIGKILL), 0);
    ASSERT_TRUE(child.waitForFinished(10000));
    const QList<QByteArray> want = bytesOf(expected).split(' ');
    ASSERT_GT(want.size(), 1);
    const int frames = want[0].toInt();
    ASSERT_GT(frames, 100);

    const std::vector<RecoveryEntry> left = orphanedRecoveries();
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left[0].edits, 0);
    ASSERT_FALSE(left[0].runFile.isEmpty());
    EXPECT_EQ(left[0].runFrames, frames);

    MainWindow window;
    window.show();
    answerWith("Recover");
    EXPECT_EQ(window.files()->offerRecovery(), 1);
    const engine::Recording* recording = window.session()->recording();
    ASSERT_TRUE(recording);
    ASSERT_EQ(static_cast<int>(recording->size()), frames);
    engine::State state;
    engine::Outputs outputs;
    ASSERT_TRUE(recording->read(recording->size() - 1, state, outputs));
    ASSERT_EQ(state.q.size() + 1, want.size());
    for (Eigen::Index k = 0; k < state.q.size(); ++k)
        EXPECT_EQ(QByteArray::number(state.q(k), 'a', 13), want[k + 1]) << "q(" << k << ")";
    EXPECT_FALSE(QFile::exists(left[0].runFile)) << "the decision removes the kept run";

    // Over the budget: the scene is kept, the run is not, and the info says so.
    window.autosaver()->setRunBudget(1024);
    ASSERT_TRUE(window.autosaver()->saveNow());
    EXPECT_FALSE(QFile::exists(window.autosaver()->runFile()));
    EXPECT_TRUE(bytesOf(window.autosaver()->infoFile()).contains("over the recovery budget"));
}

// A burst of edits is written once, within a second of its last edit, without waiting for the
// timer (a minute) and without holding up the edits.
TEST_F(RecoveryTest, EditsAreAutosavedWithinASecondWithoutWaitingForTheTimer) {
    MainWindow window;
    ASSERT_TRUE(window.files()->openScene(userFile));
    Autosaver* autosaver = window.autosaver();
    EXPECT_FALSE(QFile::exists(autosaver->sceneFile())) << "an unedited document needs no recovery";
    engine::SceneSpec edited = *window.scene();
    for (int k = 1; k < 20; ++k) {
        edited.parts[1].mass = 1.0 + 0.01 * k;
        window.document()->changeFields(edited, "mass", QString("edit %1").arg(k));
    }
    edited.parts[1].mass = 3.0;
    window.document()->changeFields(edited, "mass", "edit 20");
    EXPECT_EQ(autosaver->autosaves(), 0) << "written off the GUI thread, after the burst";
    ASSERT_TRUE(QTest::qWaitFor([&] { return autosaver->autosaves() > 0; }, 1500));
    QTest::qWait(600);
    EXPECT_EQ(autosaver->autosaves(), 1) << "one burst, one write";
    const engine::io::SceneLoadResult saved =
        engine::io::loadSceneFile(autosaver->sceneFile().toStdString());
    ASSERT_TRUE(saved.scene);
    EXPECT_EQ(engine::io::sceneToJson(*saved.scene), engine::io::sceneToJson(*window.scene()));
    EXPECT_EQ(bytesOf(userFile), userBytes);
    // Undone back to the file: nothing left to recover.
    while (window.undoStack()->canUndo()) window.undoStack()->undo();
    EXPECT_FALSE(QFile::exists(autosaver->sceneFile()));
}

TEST_F(RecoveryTest, DiscardAndDecideLaterAreTheUsersChoice) {
    // A recovery left by a process that no longer runs (pid 0 is no process).
    {
        MainWindow writer;
        ASSERT_TRUE(writer.files()->openScene(userFile));
        engine::SceneSpec edited = *writer.scene();
        edited.parts[1].mass = 4.0;
        writer.document()->changeFields(edited, "mass");
        ASSERT_TRUE(writer.autosaver()->saveNow());
        // As if killed: copy its files under the name of a process that is gone.
        const QString gone = dir.filePath("recovery/session-999999999.");
        ASSERT_TRUE(QFile::copy(writer.autosaver()->sceneFile(), gone + "json"));
        QByteArray info = bytesOf(writer.autosaver()->infoFile());
        info.replace(QByteArray::number(QCoreApplication::applicationPid()), "999999999");
        info.replace(QFileInfo(writer.autosaver()->sceneFile()).fileName().toUtf8(),
                     "session-999999999.json");
        QFile out(gone + "info");
        ASSERT_TRUE(out.open(QIODevice::WriteOnly));
        out.write(info);
    }
    ASSERT_EQ(orphanedRecoveries().size(), 1u);
    MainWindow window;
    window.show();
    answerWith("Decide Later");
    EXPECT_EQ(window.files()->offerRecovery(), 0);
    EXPECT_EQ(orphanedRecoveries().size(), 1u) << "kept for the next start";
    answerWith("Discard");
    EXPECT_EQ(window.files()->offerRecovery(), 0);
    EXPECT_TRUE(orphanedRecoveries().empty());
    EXPECT_TRUE(QDir(dir.filePath("recovery")).entryList(QDir::Files).isEmpty());
}

// Damaged recovery files: an info file that is not one is never offered; a recovery whose
// scene cannot be read says so, and Recover keeps its file and the open document.
TEST_F(RecoveryTest, DamagedRecoveryFilesAreNamedNotOpened) {
    QDir().mkpath(dir.filePath("recovery"));
    auto write = [&](const QString& name, const QByteArray& text) {
        QFile f(dir.filePath("recovery/" + name));
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(text);
    };
    write("session-999999997.info", "{ not json");
    write(
        "session-999999998.info",
        R"({"format": "motus-recovery", "version": 1, "scene": "session-999999998.json", "pid": 999999998,
              "program": "motus", "path": "", "title": "Broken", "savedAt": "2026-11-24T10:00:00.000", "edits": 2})");
    write("session-999999998.json",
          "{\"format\": \"motus-scene\", \"version\": 1, \"parts\": [{]}");
    const std::vector<RecoveryEntry> left = orphanedRecoveries();
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left[0].title, "Broken");
    MainWindow window;
    window.show();
    ASSERT_TRUE(window.files()->openScene(userFile));
    answerWith("Recover");
    EXPECT_EQ(window.files()->offerRecovery(), 0);
    EXPECT_EQ(window.document()->path(), QFileInfo(userFile).absoluteFilePath())
        << "the open document stays";
    EXPECT_TRUE(QFile::exists(left[0].sceneFile)) << "kept for another try";
    EXPECT_TRUE(QFile::exists(dir.filePath("recovery/session-999999997.info")));
}

}  // namespace
}  // namespace ui
