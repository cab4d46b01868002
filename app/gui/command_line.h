#pragma once
// The GUI's command line, read before QApplication exists (so --help and --version need no
// display): what to open, what to run once it is open, and what to leave behind (a
// screenshot, a frame rate). Qt's own options (-platform, -style, ...) are left for
// QApplication.

#include <optional>

#include <QString>

namespace gui {

struct Options {
    QString scene;  // a scene (.json) or a robot (URDF, MJCF, SDF); empty: a new scene
    std::optional<QString> screenshot;  // a PNG of the window once the view has drawn, then exit
    std::optional<QString> plot;        // a joint whose reaction force is plotted
    QString analysis;      // kinematics, inverse, assemble, statics or modes; empty: dynamics
    QString quality;       // high, low, shadows or aa; empty: the View > Quality settings
    double runTo = 0.0;    // > 0: simulate up to this time [s]
    double fps = 0.0;      // > 0: play, print the view's frame rate over this many seconds, exit
    int mode = 0;          // with analysis "modes": animate this mode (1 = the lowest)
    bool play = false;     // start playing once the scene is open
    bool recover = false;  // recover the newest unsaved work left behind, without asking

    // assemble, statics and modes: analyses of one pose, not runs.
    bool staticAnalysis() const;
};

// The options of `argv`; nothing when the program is to stop at once with `exitStatus` (after
// --help or --version: 0; a bad command line, said on stderr: 2).
std::optional<Options> parseCommandLine(int argc, char** argv, int& exitStatus);

}  // namespace gui
