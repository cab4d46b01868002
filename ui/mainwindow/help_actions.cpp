#include "ui/mainwindow/help_actions.h"

#include <QCoreApplication>
#include <QDesktopServices>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSet>
#include <QUrl>

#include "engine/version.h"
#include "ui/common/text.h"
#include "ui/mainwindow/messages_panel.h"

namespace ui {

HelpActions::HelpActions(MessagesPanel* messages, QMainWindow* window)
    : QObject(window), messages_(messages), window_(window) {}

void HelpActions::createActions(QMenu* help) {
    QAction* guide = help->addAction(tr("&User Guide"), this,
                                     [this] { openDocumentation(QStringLiteral("README.md")); });
    guide->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&Documentation Folder"), this,
                    [this] { openDocumentation(QStringLiteral("docs")); });
    help->addAction(tr("&Scene File Format"), this,
                    [this] { openDocumentation(QStringLiteral("docs/scene-format.md")); });
    help->addAction(tr("&Keyboard and Mouse…"), this, &HelpActions::showShortcuts)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
    help->addSeparator();
    help->addAction(tr("&About Motus"), this, &HelpActions::showAbout);
}

QString HelpActions::documentationPath(const QString& relative) {
    // Installed: <prefix>/share/doc/motus next to <prefix>/bin; in a build tree: the sources.
    const QStringList roots = {
        QCoreApplication::applicationDirPath() + QStringLiteral("/../share/doc/motus"),
        QStringLiteral(MOTUS_SOURCE_DIR)};
    for (const QString& root : roots) {
        const QFileInfo file(root + QLatin1Char('/') + relative);
        if (file.exists()) return file.canonicalFilePath();
    }
    return QString();
}

void HelpActions::openDocumentation(const QString& relative) {
    const QString path = documentationPath(relative);
    if (path.isEmpty()) {
        messages_->add(
            MessageSeverity::Error,
            tr("The documentation (%1) is not installed next to this program.").arg(relative));
        return;
    }
    if (!QDesktopServices::openUrl(QUrl::fromLocalFile(path)))
        messages_->add(
            MessageSeverity::Warning,
            tr("No program to show %1 was found: open it with a text viewer or a browser.")
                .arg(path));
    else
        messages_->add(MessageSeverity::Info, tr("Opened %1").arg(path));
}

QString HelpActions::shortcutsText() const {
    // Every menu command with a key, as the menus hold them, then the mouse.
    QString html = tr("<h3>Keyboard</h3><table cellspacing=\"2\">");
    QSet<QString> seen;
    for (QAction* menu : window_->menuBar()->actions()) {
        if (!menu->menu()) continue;
        QList<QAction*> actions = menu->menu()->actions();
        for (int k = 0; k < actions.size(); ++k) {
            QAction* a = actions[k];
            if (a->menu()) actions.append(a->menu()->actions());  // submenus, after their menu
            if (a->shortcuts().isEmpty() || a->isSeparator()) continue;
            QStringList keys;
            for (const QKeySequence& key : a->shortcuts())
                keys << key.toString(QKeySequence::NativeText);
            const QString what = QString(a->text()).remove(QLatin1Char('&'));
            if (seen.contains(what + keys.join(QString()))) continue;
            seen.insert(what + keys.join(QString()));
            html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td><td>%3</td></tr>")
                        .arg(keys.join(QStringLiteral(", ")).toHtmlEscaped(), what.toHtmlEscaped(),
                             QString(menu->text()).remove(QLatin1Char('&')));
        }
    }
    html +=
        tr("</table><p>The frame keys (arrows, Home, End) act in the 3D view and the timeline; in "
           "the scene "
           "tree and the fields the arrows move as usual.</p>"
           "<h3>Mouse in the 3D view</h3><table cellspacing=\"2\">"
           "<tr><td><b>Left drag</b></td><td>turn the view about the scene</td></tr>"
           "<tr><td><b>Middle drag</b></td><td>pan</td></tr>"
           "<tr><td><b>Right drag</b>, wheel</td><td>zoom</td></tr>"
           "<tr><td><b>Click</b></td><td>select a part, marker or joint (or use the active "
           "tool)</td></tr>"
           "<tr><td><b>Shift + click</b> with a tool</td><td>snap to a face centre, edge, vertex "
           "or axis</td></tr>"
           "<tr><td><b>Drag an arrow or ring</b> of the manipulator</td><td>move or turn the "
           "selected part "
           "or marker (joined parts follow); type an amount, <b>Enter</b> applies, <b>Esc</b> "
           "cancels, "
           "<b>Ctrl</b> inverts snapping</td></tr>"
           "</table>");
    return html;
}

void HelpActions::showShortcuts() {
    QMessageBox box(window_);
    box.setWindowTitle(tr("Keyboard and Mouse"));
    box.setTextFormat(Qt::RichText);
    box.setText(shortcutsText());
    box.exec();
}

void HelpActions::showAbout() {
    QMessageBox::about(window_, tr("About Motus"),
                       tr("<h3>Motus %1</h3><p>Rigid multibody mechanism simulator: parts, "
                          "markers, joints, forces and contact, solved in maximal coordinates."
                          "</p>")
                           .arg(toQString(engine::versionString())));
}

}  // namespace ui
