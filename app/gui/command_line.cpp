#include "app/gui/command_line.h"

#include <algorithm>
#include <cstdio>

#include <QCommandLineParser>
#include <QStringList>

#include "engine/version.h"

namespace gui {
namespace {

// A bad command line: said on stderr, exit status 2.
std::optional<Options> refuse(int& exitStatus, const QString& message) {
    std::fprintf(stderr, "motus: error: %s (command line)\n", qPrintable(message));
    exitStatus = 2;
    return std::nullopt;
}

}  // namespace

bool Options::staticAnalysis() const {
    return analysis == QStringLiteral("assemble") || analysis == QStringLiteral("statics") ||
           analysis == QStringLiteral("modes");
}

std::optional<Options> parseCommandLine(int argc, char** argv, int& exitStatus) {
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
    parser.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsOptions);
    if (!parser.parse(arguments)) return refuse(exitStatus, parser.errorText());
    if (parser.isSet(versionOption)) {
        std::printf("motus %s\n", engine::versionString().data());
        exitStatus = 0;
        return std::nullopt;
    }
    if (parser.isSet(helpOption) || parser.isSet(QStringLiteral("help-all"))) {
        // Without an application object Qt cannot name the executable; do it here.
        QString help = parser.helpText();
        help.replace(QStringLiteral("<executable_name>"), QStringLiteral("motus"));
        std::printf("%s", qPrintable(help));
        exitStatus = 0;
        return std::nullopt;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1)
        return refuse(exitStatus, QStringLiteral("expected at most one scene file"));

    Options o;
    if (!positional.isEmpty()) o.scene = positional.first();
    if (parser.isSet(screenshotOption)) o.screenshot = parser.value(screenshotOption);
    if (parser.isSet(plotOption)) o.plot = parser.value(plotOption);
    o.play = parser.isSet(playOption);
    o.recover = parser.isSet(recoverOption);
    if (parser.isSet(runToOption)) {
        bool ok = false;
        o.runTo = parser.value(runToOption).toDouble(&ok);
        if (!ok || !(o.runTo > 0.0))
            return refuse(exitStatus, QStringLiteral("--run-to needs a positive time in seconds"));
    }
    if (parser.isSet(fpsOption)) o.fps = std::max(0.5, parser.value(fpsOption).toDouble());

    o.analysis = parser.value(analysisOption);
    const QStringList analyses{QStringLiteral("kinematics"), QStringLiteral("inverse"),
                               QStringLiteral("assemble"), QStringLiteral("statics"),
                               QStringLiteral("modes")};
    if (parser.isSet(analysisOption) && !analyses.contains(o.analysis))
        return refuse(exitStatus, QStringLiteral("--analysis is kinematics, inverse, assemble, "
                                                 "statics or modes, got '%1'")
                                      .arg(o.analysis));
    o.mode = parser.isSet(modeOption) ? parser.value(modeOption).toInt() : 0;
    if (parser.isSet(modeOption) && (o.mode < 1 || o.analysis != QStringLiteral("modes")))
        return refuse(exitStatus, QStringLiteral("--mode needs --analysis modes and a mode "
                                                 "number from 1"));

    if (parser.isSet(qualityOption)) {
        o.quality = parser.value(qualityOption);
        const QStringList levels{QStringLiteral("high"), QStringLiteral("low"),
                                 QStringLiteral("shadows"), QStringLiteral("aa")};
        if (!levels.contains(o.quality))
            return refuse(
                exitStatus,
                QStringLiteral("--quality is high, low, shadows or aa, got '%1'").arg(o.quality));
    }
    return o;
}

}  // namespace gui
