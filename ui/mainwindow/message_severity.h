#pragma once
// How much a message to the user weighs: a problem, a warning, information, or the result of
// an analysis the user waits for (shown as information, brought forward as a problem is). The
// building tools, the copies, the manipulator and the window's groups say things with it; the
// Messages panel (messages_panel.h) shows them.

namespace ui {

enum class MessageSeverity { Error, Warning, Info, Result };

}  // namespace ui
