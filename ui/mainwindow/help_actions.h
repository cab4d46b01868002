#pragma once
// The Help menu: the user guide and the documentation shipped with Motus, the keyboard and
// mouse (every command's keys read from the menus), About.

#include <QObject>
#include <QString>

class QMainWindow;
class QMenu;

namespace ui {

class MessagesPanel;

class HelpActions : public QObject {
    Q_OBJECT

public:
    HelpActions(MessagesPanel* messages, QMainWindow* window);

    void createActions(QMenu* help);

    // A file or folder of the documentation shipped with Motus (README.md, docs/...), as an
    // absolute path; empty when it cannot be found.
    static QString documentationPath(const QString& relative);
    // Help ▸ Keyboard and Mouse: every command's keys (from the window's menus) and the view's
    // mouse use.
    QString shortcutsText() const;

private:
    void openDocumentation(const QString& relative);
    void showShortcuts();
    void showAbout();

    MessagesPanel* messages_;
    QMainWindow* window_;
};

}  // namespace ui
