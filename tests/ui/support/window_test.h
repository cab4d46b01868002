#pragma once
// What window-level tests start from: the main window shown at a desktop size with a scene
// open and drawn, and the few things such tests do everywhere (trigger an action by its object
// name, read the last message).

#include <QAction>
#include <QComboBox>
#include <QString>
#include <QTest>

#include <gtest/gtest.h>

#include "engine/model/scene_spec.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/messages_panel.h"
#include "ui/properties/properties_panel.h"
#include "ui/viewport/viewport_widget.h"

namespace ui::test {

// Waits until the view has drawn `frames` more frames (its camera matrices are then current).
inline void drawn(ViewportWidget* view, int frames = 2) {
    const int target = view->frameCount() + frames;
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            view->update();
            return view->frameCount() >= target;
        },
        10000));
}

class WindowTest : public ::testing::Test {
protected:
    // Shows the window and opens `scene` in it, drawn.
    void openWindow(const QString& scene) {
        window.resize(1280, 800);
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
        ASSERT_TRUE(window.files()->openScene(scene));
        drawn(window.viewport());
    }
    void trigger(const char* action) {
        QAction* a = window.findChild<QAction*>(QLatin1String(action));
        ASSERT_TRUE(a) << action;
        a->trigger();
    }
    const engine::SceneSpec& scene() const { return *window.scene(); }
    // Picks `word` in the combo `label` of Properties and commits it, as the user would.
    void pick(const QString& label, const QString& word) {
        auto* combo = qobject_cast<QComboBox*>(window.properties()->editor(label));
        ASSERT_TRUE(combo) << label.toStdString();
        const int k = combo->findText(word);
        ASSERT_GE(k, 0) << word.toStdString();
        combo->setCurrentIndex(k);
        window.properties()->commit(label);
    }
    QString lastMessage() const {
        const MessagesPanel* m = window.messages();
        return m->count() ? m->item(m->count() - 1)->text() : QString();
    }

    MainWindow window;
};

}  // namespace ui::test
