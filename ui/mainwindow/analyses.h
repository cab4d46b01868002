#pragma once
// Simulate ▸ Analysis: Dynamics (the run integrates the motion), Kinematics and Inverse
// Dynamics (a fully driven mechanism solved at each instant), and the analyses that run as
// jobs of the session beside the run, with progress and Cancel: Assemble and Static
// Equilibrium end in an undoable edit that moves the parts (equilibrium also stops them),
// Vibration Modes fills the Modes tab. A result computed for a scene that has changed since
// is not applied.

#include <memory>

#include <QObject>
#include <QString>

#include "ui/mainwindow/window_parts.h"

class QMenu;

namespace engine {
struct Model;
struct ModesResult;
struct StaticResult;
}  // namespace engine

namespace ui {

class Analyses : public QObject {
    Q_OBJECT

public:
    enum class Kind { Assemble, StaticEquilibrium, Modes };

    explicit Analyses(const WindowParts& parts);

    // The Analysis submenu of Simulate.
    void createActions(QMenu* analysis);

    bool start(Kind kind);
    bool running() const;
    void cancel();
    bool startKinematics(bool inverseDynamics);

private:
    // Back from a kinematic analysis to Dynamics, then Run to.
    void startDynamics();
    // A finished modes analysis: the Modes tab filled and in front, the frequencies said.
    // About a frame of the run at frameTime ≥ 0, else about the stable equilibrium.
    void showModes(const std::shared_ptr<const engine::Model>& model,
                   const engine::StaticResult& at, const engine::ModesResult& modes,
                   double frameTime);
    // The analysis's result, on the GUI thread.
    void finish(Kind kind, const QString& what, const std::shared_ptr<const engine::Model>& model,
                const engine::StaticResult& result, const engine::ModesResult& modes,
                double frameTime, quint64 revision);

    WindowParts parts_;
    quint64 revision_ = 0;  // counts edits and documents: a result's scene is current
};

}  // namespace ui
