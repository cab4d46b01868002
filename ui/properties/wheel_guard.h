#pragma once
// WheelGuard: the mouse wheel scrolls what it is over, never edits a value by accident. A wheel
// turn over a combo box or a spin box that does not have the keyboard focus is passed on to
// the panel around it (which scrolls), as if the editor were not there; once the user has
// clicked or tabbed into the editor, the wheel steps it as usual. Installed once on the
// application, it covers every panel and dialog.

#include <QObject>

namespace ui {

class WheelGuard : public QObject {
    Q_OBJECT

public:
    explicit WheelGuard(QObject* parent = nullptr);
    // The guard on the application, once (later calls do nothing).
    static void install();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};

}  // namespace ui
