#include "ui/properties/wheel_guard.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QEvent>

namespace ui {

WheelGuard::WheelGuard(QObject* parent) : QObject(parent) {}

void WheelGuard::install() {
    static WheelGuard* installed = nullptr;
    if (installed || !qApp) return;
    installed = new WheelGuard(qApp);
    qApp->installEventFilter(installed);
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
    if (!watched->isWidgetType()) return false;
    if (event->type() == QEvent::Polish) {
        // A combo box takes the focus from a wheel turn (Qt::WheelFocus) before any filter
        // sees the turn: only a click or Tab focuses an editor.
        auto* widget = static_cast<QWidget*>(watched);
        if ((qobject_cast<QComboBox*>(widget) || qobject_cast<QAbstractSpinBox*>(widget)) &&
            widget->focusPolicy() == Qt::WheelFocus)
            widget->setFocusPolicy(Qt::StrongFocus);
        return false;
    }
    if (event->type() != QEvent::Wheel) return false;
    auto* widget = static_cast<QWidget*>(watched);
    // The editor itself, or a part of it (a spin box's line edit, a combo box's own line edit).
    QWidget* editor = nullptr;
    for (QWidget* w = widget; w && !w->isWindow(); w = w->parentWidget())
        if (qobject_cast<QComboBox*>(w) || qobject_cast<QAbstractSpinBox*>(w)) {
            editor = w;
            break;
        }
    if (!editor || editor->hasFocus() || editor->isAncestorOf(QApplication::focusWidget()))
        return false;
    // Not delivered to the editor; ignored, so the application offers it to the parents (a
    // scroll area scrolls).
    event->ignore();
    return true;
}

}  // namespace ui
