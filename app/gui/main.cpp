// motus: the GUI. Builds the main window and wires it; the logic lives in ui/ and engine/.
//
//   motus [scene.json] [--analysis kinematics|inverse|assemble|statics|modes [--mode n]]
//         [--run-to seconds] [--plot joint]
//         [--quality high|low|shadows|aa] [--screenshot out.png]
//
// --help and --version work without a display (they are handled before QApplication, which
// needs one: app/gui/command_line.h). --screenshot renders the window once the 3D view has
// drawn, saves it and exits: the README screenshot and scripted checks use it.

#include <cstdio>
#include <memory>
#include <optional>

#include <QApplication>
#include <QTimer>

#include "app/gui/command_line.h"
#include "engine/import/robot_import.h"
#include "engine/runtime/simulator.h"
#include "engine/version.h"
#include "ui/analysis/modes_panel.h"
#include "ui/document/recovery.h"
#include "ui/mainwindow/analyses.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/robot_import_dialog.h"
#include "ui/mainwindow/scene_tree_panel.h"
#include "ui/session/simulation_session.h"
#include "ui/viewport/viewport_widget.h"

namespace {

// The scene of the command line (a robot description is imported with the last import's
// options), or a new one to build on; false when it cannot be opened.
bool openScene(ui::MainWindow& window, const gui::Options& o) {
    if (o.scene.isEmpty()) {
        window.files()->newScene();
        return true;
    }
    std::string why;
    if (!o.scene.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive) &&
        engine::io::robotFormatOf(o.scene.toStdString(), why))
        return window.files()->importRobot(o.scene, ui::RobotImportDialog::remembered());
    return window.files()->openScene(o.scene);
}

// Work a Motus that did not exit cleanly left behind: recovered when asked, else offered (not
// in scripted, non-interactive runs).
void recoverWork(ui::MainWindow& window, const gui::Options& o) {
    if (o.recover) {
        const std::vector<ui::RecoveryEntry> left = ui::orphanedRecoveries();
        if (left.empty()) {
            std::fprintf(stderr, "motus: --recover: there is no unsaved work to recover\n");
        } else if (!window.files()->recoverFrom(left.front())) {
            std::fprintf(stderr, "motus: --recover: %s could not be recovered (see Messages)\n",
                         qPrintable(left.front().sceneFile));
        }
    } else if (!o.screenshot && !(o.fps > 0.0)) {
        QTimer::singleShot(0, &window, [&window] { window.files()->offerRecovery(); });
    }
}

// The analysis of the command line; false when a kinematic one cannot run.
bool startAnalysis(ui::MainWindow& window, const gui::Options& o) {
    if (o.staticAnalysis()) {
        window.analyses()->start(
            o.analysis == QStringLiteral("assemble")  ? ui::Analyses::Kind::Assemble
            : o.analysis == QStringLiteral("statics") ? ui::Analyses::Kind::StaticEquilibrium
                                                      : ui::Analyses::Kind::Modes);
        // The mode asked for moves once the modes are found.
        if (o.mode > 0) {
            auto* poll = new QTimer(&window);
            QObject::connect(poll, &QTimer::timeout, &window, [&window, poll, mode = o.mode] {
                if (window.analyses()->running()) return;
                poll->stop();
                if (mode > window.modesPanel()->modeCount())
                    std::fprintf(stderr, "motus: error: there is no mode %d (command line)\n",
                                 mode);
                else
                    window.modesPanel()->animateMode(mode - 1);
            });
            poll->start(20);
        }
        return true;
    }
    if (!o.analysis.isEmpty() &&
        !window.analyses()->startKinematics(o.analysis == QStringLiteral("inverse"))) {
        std::fprintf(stderr,
                     "motus: error: the scene cannot be run as a %s analysis (see "
                     "Messages) (command line)\n",
                     qPrintable(o.analysis));
        return false;
    }
    return true;
}

// Frames the view draws while the engine plays in real time, after a 1 s warm-up, printed;
// then the program exits.
void measureFrameRate(ui::MainWindow& window, QApplication& app, double seconds, bool loaded) {
    static int counted = -1;
    QObject::connect(window.viewport(), &ui::ViewportWidget::frameRendered, &window, [] {
        if (counted >= 0) ++counted;
    });
    QTimer::singleShot(1000, &window, [] { counted = 0; });
    QTimer::singleShot(
        1000 + static_cast<int>(seconds * 1000), &window, [&window, &app, seconds, loaded] {
            const auto snap = window.session()->snapshot();
            std::printf(
                "view: %.1f frames per second over %.1f s while the engine ran at %.2fx real "
                "time "
                "(%zu parts, t = %.3f s)\n",
                counted / seconds, seconds, snap ? snap->statistics.realTimeFactor : 0.0,
                snap ? snap->partPoses.size() : std::size_t(0), snap ? snap->time : 0.0);
            app.exit(loaded ? 0 : 1);
        });
}

// The window saved as a PNG once the view has drawn a few frames (the first realises the
// viewer) and the run, if any, has reached its time; then the program exits.
void takeScreenshot(ui::MainWindow& window, QApplication& app, const QString& file, double runTo,
                    bool loaded) {
    auto runFinished = [&window, runTo] {
        const auto snap = window.session()->snapshot();
        if (window.analyses()->running()) return false;
        return runTo <= 0.0 || !snap ||
               (snap->mode == engine::RunMode::Paused &&
                (snap->time >= runTo - 1e-9 || !snap->error.empty()));
    };
    auto scheduled = std::make_shared<bool>(false);
    QObject::connect(window.viewport(), &ui::ViewportWidget::frameRendered, &window,
                     [&window, &app, file, loaded, runFinished, scheduled] {
                         if (!runFinished()) {
                             QTimer::singleShot(20, window.viewport(),
                                                [&window] { window.viewport()->update(); });
                             return;
                         }
                         if (window.viewport()->frameCount() >= 3 && !*scheduled) {
                             *scheduled = true;
                             QTimer::singleShot(200, &window, [&window, &app, file, loaded] {
                                 int status = loaded ? 0 : 1;
                                 // The whole window, which includes the GL content.
                                 if (!window.grab().save(file, "PNG")) {
                                     std::fprintf(stderr,
                                                  "motus: error: cannot write screenshot (%s)\n",
                                                  qPrintable(file));
                                     status = 1;
                                 }
                                 app.exit(status);
                             });
                         } else if (!*scheduled) {
                             window.viewport()->update();
                         }
                     });
}

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication::setOrganizationName(QStringLiteral("Motus"));
    QCoreApplication::setApplicationName(QStringLiteral("motus"));
    QCoreApplication::setApplicationVersion(QString::fromLatin1(
        engine::versionString().data(), static_cast<qsizetype>(engine::versionString().size())));

    int exitStatus = 0;
    const std::optional<gui::Options> options = gui::parseCommandLine(argc, argv, exitStatus);
    if (!options) return exitStatus;
    const gui::Options& o = *options;
    // The view reads the variable when it is built.
    if (!o.quality.isEmpty()) qputenv("MOTUS_VIEW_QUALITY", o.quality.toLatin1());

    ui::ViewportWidget::configureDefaultSurfaceFormat();
    QApplication app(argc, argv);
    ui::MainWindow window;
    window.show();
    bool loaded = openScene(window, o);
    recoverWork(window, o);
    if (loaded) loaded = startAnalysis(window, o);
    if (loaded && o.runTo > 0.0) window.session()->runTo(o.runTo);
    if (loaded && (o.play || o.fps > 0.0)) window.session()->play();
    if (o.fps > 0.0) measureFrameRate(window, app, o.fps, loaded);
    if (loaded && o.plot && !window.sceneTree()->plotReactionForce(*o.plot)) {
        std::fprintf(stderr, "motus: error: cannot plot joint '%s' (command line)\n",
                     qPrintable(*o.plot));
        return 2;
    }
    if (o.screenshot) takeScreenshot(window, app, *o.screenshot, o.runTo, loaded);
    return app.exec();
}
