#pragma once
// What the window's action groups act on: the document, the run, the 3D view and the panels.
// The window makes them (main_window.cpp) and gives each group this list; a group keeps only
// what it uses. A group reaches another only through the pointers here, never through the
// window.

class QMainWindow;

namespace ui {

class Autosaver;
class DofStatus;
class MessagesPanel;
class ModesPanel;
class PlotsPanel;
class RunControl;
class SceneDocument;
class SimulationSession;
class TimelineWidget;
class ViewportWidget;
class Manipulation;

struct WindowParts {
    QMainWindow* window = nullptr;  // the parent of the groups' dialogs
    SceneDocument* document = nullptr;
    SimulationSession* session = nullptr;
    ViewportWidget* viewport = nullptr;
    TimelineWidget* timeline = nullptr;
    MessagesPanel* messages = nullptr;
    PlotsPanel* plots = nullptr;
    ModesPanel* modes = nullptr;
    Manipulation* manipulation = nullptr;
    Autosaver* autosaver = nullptr;
    DofStatus* mobility = nullptr;  // the status bar's degrees of freedom of the scene
    RunControl* runs = nullptr;     // the run shown and what it is of (run_control.h)
};

}  // namespace ui
