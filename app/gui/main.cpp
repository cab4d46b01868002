// motus: the GUI. Builds the main window and wires it; the logic lives in ui/ and engine/.
//
//   motus [scene.json] [--analysis kinematics|inverse|assemble|statics|modes [--mode n]]
//         [--run-to seconds] [--plot joint]
//         [--quality high|low|shadows|aa] [--screenshot out.png]
//
// --help and --version work without a display (they are handled before QApplication, which
// needs one). --screenshot renders the window once the 3D view has drawn, saves it and exits:
// the README screenshot and scripted checks use it.

#include <cstdio>

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

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

int main(int argc, char** argv) {
    QCoreApplication::setOrganizationName(QStringLiteral("Motus"));
    QCoreApplication::setApplicationName(QStringLiteral("motus"));
    QCoreApplication::setApplicationVersion(QString::fromLatin1(
        engine::versionString().data(), static_cast<qsizetype>(engine::versionString().size())));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Motus: rigid multibody mechanism simulator."));
    const QCommandLineOption helpOption = parser.addHelpOption();
    const QCommandLineOption versionOption = parser.addVersionOption();
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QStringLiteral("Save a PNG of the main window once the 3D view has drawn, then exit."),
        QStringLiteral("file"));
    parser.addOption(screenshotOption);
    const QCommandLineOption runToOption(
        QStringLiteral("run-to"),
        QStringLiteral("Simulate the scene up to this time [s] once it is open."),
        QStringLiteral("seconds"));
    parser.addOption(runToOption);
    const QCommandLineOption plotOption(
        QStringLiteral("plot"),
        QStringLiteral("Plot this joint's reaction force once the scene is open."),
        QStringLiteral("joint"));
    parser.addOption(plotOption);
    const QCommandLineOption analysisOption(
        QStringLiteral("analysis"),
        QStringLiteral("Run this analysis once the scene is open: kinematics or inverse (a fully "
                       "driven mechanism's motion solved at each instant; inverse adds reactions "
                       "and motion efforts, and plots the efforts), assemble, statics (the "
                       "equilibrium nearest the pose) or modes (vibration modes about the stable "
                       "equilibrium)."),
        QStringLiteral("kind"));
    parser.addOption(analysisOption);
    const QCommandLineOption modeOption(
        QStringLiteral("mode"),
        QStringLiteral("With --analysis modes: animate this mode (1 = the lowest) in the 3D view."),
        QStringLiteral("n"));
    parser.addOption(modeOption);
    const QCommandLineOption playOption(QStringLiteral("play"),
                                        QStringLiteral("Start playing once the scene is open."));
    parser.addOption(playOption);
    const QCommandLineOption fpsOption(
        QStringLiteral("measure-fps"),
        QStringLiteral("Play the scene and print the 3D view's frame rate measured over this many "
                       "seconds, then exit."),
        QStringLiteral("seconds"));
    parser.addOption(fpsOption);
    const QCommandLineOption qualityOption(
        QStringLiteral("quality"),
        QStringLiteral("3D view quality for this session (the View > Quality settings are left "
                       "as they are): high (shadows and anti-aliasing), low (neither), shadows "
                       "or aa."),
        QStringLiteral("level"));
    parser.addOption(qualityOption);
    const QCommandLineOption recoverOption(
        QStringLiteral("recover"),
        QStringLiteral(
            "Recover the newest unsaved work a Motus that stopped without saving left behind, "
            "without asking (as an unsaved document of its file)."));
    parser.addOption(recoverOption);
    parser.addPositionalArgument(
        QStringLiteral("scene"),
        QStringLiteral("Scene file to open (.json), or a robot to import (.urdf, "
                       "MJCF .xml, .sdf)."),
        QStringLiteral("[scene]"));

    QStringList arguments;
    for (int k = 0; k < argc; ++k) arguments << QString::fromLocal8Bit(argv[k]);
    // Parse before QApplication exists: --help and --version must not need a display.
    // Qt's own options (-platform, -style, ...) are left for QApplication.
    parser.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsOptions);
    if (!parser.parse(arguments)) {
        std::fprintf(stderr, "motus: error: %s (command line)\n", qPrintable(parser.errorText()));
        return 2;
    }
    if (parser.isSet(versionOption)) {
        std::printf("motus %s\n", engine::versionString().data());
        return 0;
    }
    if (parser.isSet(helpOption) || parser.isSet(QStringLiteral("help-all"))) {
        // Without an application object Qt cannot name the executable; do it here.
        QString help = parser.helpText();
        help.replace(QStringLiteral("<executable_name>"), QStringLiteral("motus"));
        std::printf("%s", qPrintable(help));
        return 0;
    }
    if (parser.positionalArguments().size() > 1) {
        std::fprintf(stderr, "motus: error: expected at most one scene file (command line)\n");
        return 2;
    }

    double runTo = 0.0;
    if (parser.isSet(runToOption)) {
        bool ok = false;
        runTo = parser.value(runToOption).toDouble(&ok);
        if (!ok || !(runTo > 0.0)) {
            std::fprintf(
                stderr, "motus: error: --run-to needs a positive time in seconds (command line)\n");
            return 2;
        }
    }

    const QString analysis = parser.value(analysisOption);
    const QStringList analyses{QStringLiteral("kinematics"), QStringLiteral("inverse"),
                               QStringLiteral("assemble"), QStringLiteral("statics"),
                               QStringLiteral("modes")};
    if (parser.isSet(analysisOption) && !analyses.contains(analysis)) {
        std::fprintf(stderr,
                     "motus: error: --analysis is kinematics, inverse, assemble, statics or "
                     "modes, got '%s' (command line)\n",
                     qPrintable(analysis));
        return 2;
    }
    const int mode = parser.isSet(modeOption) ? parser.value(modeOption).toInt() : 0;
    if (parser.isSet(modeOption) && (mode < 1 || analysis != QStringLiteral("modes"))) {
        std::fprintf(stderr,
                     "motus: error: --mode needs --analysis modes and a mode number from "
                     "1 (command line)\n");
        return 2;
    }

    if (parser.isSet(qualityOption)) {
        const QString quality = parser.value(qualityOption);
        const QStringList levels{QStringLiteral("high"), QStringLiteral("low"),
                                 QStringLiteral("shadows"), QStringLiteral("aa")};
        if (!levels.contains(quality)) {
            std::fprintf(stderr,
                         "motus: error: --quality is high, low, shadows or aa, got '%s' "
                         "(command line)\n",
                         qPrintable(quality));
            return 2;
        }
        // The view reads the variable when it is built.
        qputenv("MOTUS_VIEW_QUALITY", quality.toLatin1());
    }

    ui::ViewportWidget::configureDefaultSurfaceFormat();
    QApplication app(argc, argv);

    ui::MainWindow window;
    window.show();
    bool loaded = true;
    if (!parser.positionalArguments().isEmpty()) {
        // A robot description (URDF, MJCF, SDF) is imported with the last import's options.
        const QString file = parser.positionalArguments().first();
        std::string why;
        if (!file.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive) &&
            engine::io::robotFormatOf(file.toStdString(), why))
            loaded = window.files()->importRobot(file, ui::RobotImportDialog::remembered());
        else
            loaded = window.files()->openScene(file);
    } else
        window.files()->newScene();  // an empty scene to build on

    // Work a Motus that did not exit cleanly left behind (not in scripted, non-interactive runs).
    if (parser.isSet(recoverOption)) {
        const std::vector<ui::RecoveryEntry> left = ui::orphanedRecoveries();
        if (left.empty()) {
            std::fprintf(stderr, "motus: --recover: there is no unsaved work to recover\n");
        } else if (!window.files()->recoverFrom(left.front())) {
            std::fprintf(stderr, "motus: --recover: %s could not be recovered (see Messages)\n",
                         qPrintable(left.front().sceneFile));
        }
    } else if (!parser.isSet(screenshotOption) && !parser.isSet(fpsOption)) {
        QTimer::singleShot(0, &window, [&window] { window.files()->offerRecovery(); });
    }

    const bool staticAnalysis = analysis == QStringLiteral("assemble") ||
                                analysis == QStringLiteral("statics") ||
                                analysis == QStringLiteral("modes");
    if (loaded && staticAnalysis) {
        window.analyses()->start(
            analysis == QStringLiteral("assemble")  ? ui::Analyses::Kind::Assemble
            : analysis == QStringLiteral("statics") ? ui::Analyses::Kind::StaticEquilibrium
                                                    : ui::Analyses::Kind::Modes);
        // The mode asked for moves once the modes are found.
        if (mode > 0) {
            auto* poll = new QTimer(&window);
            QObject::connect(poll, &QTimer::timeout, &window, [&window, poll, mode] {
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
    }
    if (loaded && parser.isSet(analysisOption) && !staticAnalysis &&
        !window.analyses()->startKinematics(analysis == QStringLiteral("inverse"))) {
        std::fprintf(stderr,
                     "motus: error: the scene cannot be run as a %s analysis (see "
                     "Messages) (command line)\n",
                     qPrintable(analysis));
        loaded = false;
    }
    if (loaded && runTo > 0.0) window.session()->runTo(runTo);
    if (loaded && (parser.isSet(playOption) || parser.isSet(fpsOption))) window.session()->play();
    if (parser.isSet(fpsOption)) {
        // Frames the view draws while the engine plays in real time, after a 1 s warm-up.
        const double seconds = std::max(0.5, parser.value(fpsOption).toDouble());
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
    if (loaded && parser.isSet(plotOption) &&
        !window.sceneTree()->plotReactionForce(parser.value(plotOption))) {
        std::fprintf(stderr, "motus: error: cannot plot joint '%s' (command line)\n",
                     qPrintable(parser.value(plotOption)));
        return 2;
    }
    // The screenshot waits for the run (if any) to reach its time.
    auto runFinished = [&] {
        const auto snap = window.session()->snapshot();
        if (window.analyses()->running()) return false;
        return runTo <= 0.0 || !snap ||
               (snap->mode == engine::RunMode::Paused &&
                (snap->time >= runTo - 1e-9 || !snap->error.empty()));
    };

    int screenshotExit = loaded ? 0 : 1;
    bool shotScheduled = false;
    if (parser.isSet(screenshotOption)) {
        // Wait for the view to draw a few frames (the first realises the viewer), then grab the
        // whole window, which includes the GL content.
        const QString file = parser.value(screenshotOption);
        QObject::connect(window.viewport(), &ui::ViewportWidget::frameRendered, &window, [&] {
            if (!runFinished()) {
                QTimer::singleShot(20, window.viewport(), [&] { window.viewport()->update(); });
                return;
            }
            if (window.viewport()->frameCount() >= 3 && !shotScheduled) {
                shotScheduled = true;
                QTimer::singleShot(200, &window, [&] {
                    if (!window.grab().save(file, "PNG")) {
                        std::fprintf(stderr, "motus: error: cannot write screenshot (%s)\n",
                                     qPrintable(file));
                        screenshotExit = 1;
                    }
                    app.exit(screenshotExit);
                });
            } else if (!shotScheduled) {
                window.viewport()->update();
            }
        });
    }
    return app.exec();
}
