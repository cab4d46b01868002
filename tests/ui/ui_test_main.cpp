// GoogleTest main for the GUI tests: one QApplication for the whole run, on the xcb platform
// with a compatibility OpenGL context and no multisampling (cheap on llvmpipe).
//
// `motus_ui_tests --recovery-child SCENE EXPECTED` is the process the crash-recovery test
// kills (tests/ui/mainwindow/recovery_test.cpp): a Motus window opens SCENE, takes three
// edits, waits for its autosave, writes the edited scene to EXPECTED, prints AUTOSAVED and
// waits to be killed. `--recovery-child-run SCENE EXPECTED` instead runs the unedited scene to
// 0.2 s and waits until the autosave keeps the recorded run; EXPECTED gets its frame count and
// the last frame's positions (hexadecimal, exact).

#include <cstdio>
#include <cstring>

#include <QApplication>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

#include <gtest/gtest.h>

#include "engine/analysis/outputs.h"
#include "engine/io/scene_json.h"
#include "engine/model/edit.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "ui/document/recovery.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/session/simulation_session.h"
#include "ui/viewport/viewport_widget.h"

namespace {

int recoveryChildRun(const QString& scene, const QString& expected) {
    ui::MainWindow window;
    window.show();
    if (!window.files()->openScene(scene)) return 3;
    window.session()->runTo(0.2);
    if (!QTest::qWaitFor(
            [&] {
                const auto snap = window.session()->snapshot();
                return snap && snap->mode == engine::RunMode::Paused && snap->time >= 0.2 - 1e-9;
            },
            60000))
        return 4;
    const QString run = window.autosaver()->runFile();
    if (!QTest::qWaitFor(
            [&] { return QFile::exists(run) && QFile::exists(window.autosaver()->infoFile()); },
            30000))
        return 4;
    const engine::Recording& recording = *window.session()->recording();
    engine::State state;
    engine::Outputs outputs;
    if (!recording.read(recording.size() - 1, state, outputs)) return 5;
    QFile out(expected);
    if (!out.open(QIODevice::WriteOnly)) return 5;
    out.write(QByteArray::number(qulonglong(recording.size())));
    for (Eigen::Index k = 0; k < state.q.size(); ++k)
        out.write(" " + QByteArray::number(state.q(k), 'a', 13));
    out.close();
    std::printf("AUTOSAVED\n");
    std::fflush(stdout);
    for (;;) QTest::qWait(1000);  // until killed
}

int recoveryChild(const QString& scene, const QString& expected) {
    ui::MainWindow window;
    window.show();
    if (!window.files()->openScene(scene)) return 3;
    engine::SceneSpec edited = *window.scene();
    edited.parts[1].mass = 2.75;
    window.document()->changeFields(edited, "mass");
    edited.gravity = engine::Vec3(0.0, -9.81, 0.0);
    window.document()->changeFields(edited, "gravity");
    engine::renameEntity(edited, edited.parts[2].id, "link");
    window.document()->rename(edited, "rename");
    const QString info = window.autosaver()->infoFile();
    if (!QTest::qWaitFor([&] { return window.autosaver()->autosaves() > 0 && QFile::exists(info); },
                         30000))
        return 4;
    QFile out(expected);
    if (!out.open(QIODevice::WriteOnly)) return 5;
    out.write(QByteArray::fromStdString(engine::io::sceneToJson(*window.scene())));
    out.close();
    std::printf("AUTOSAVED\n");
    std::fflush(stdout);
    for (;;) QTest::qWait(1000);  // until killed
}

// Every test starts from the settings of a first start: a window state, a tool setting or an
// export size saved by an earlier test (or an earlier run) never changes what a test sees.
class FreshSettings : public ::testing::EmptyTestEventListener {
    void OnTestStart(const ::testing::TestInfo&) override { QSettings().clear(); }
};

}  // namespace

int main(int argc, char** argv) {
    const bool child = argc == 4 && std::strcmp(argv[1], "--recovery-child") == 0;
    const bool childRun = argc == 4 && std::strcmp(argv[1], "--recovery-child-run") == 0;
    if (!child && !childRun) ::testing::InitGoogleTest(&argc, argv);
    QStandardPaths::setTestModeEnabled(true);  // keep QSettings away from the user's config
    QCoreApplication::setOrganizationName(QStringLiteral("Motus"));
    QCoreApplication::setApplicationName(QStringLiteral("motus-ui-tests"));
    ui::ViewportWidget::configureDefaultSurfaceFormat(0);
    QApplication app(argc, argv);
    if (child)
        return recoveryChild(QString::fromLocal8Bit(argv[2]), QString::fromLocal8Bit(argv[3]));
    if (childRun)
        return recoveryChildRun(QString::fromLocal8Bit(argv[2]), QString::fromLocal8Bit(argv[3]));
    ::testing::UnitTest::GetInstance()->listeners().Append(new FreshSettings);
    return RUN_ALL_TESTS();
}
