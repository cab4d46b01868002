#include "ui/mainwindow/messages_panel.h"

#include <algorithm>

#include <QStyle>

#include "engine/model/scene_spec.h"
#include "ui/common/text.h"
#include "ui/document/scene_document.h"

namespace ui {
namespace {

constexpr int kMessageEntityRole = Qt::UserRole + 1;  // the entity a message is about

}  // namespace

MessagesPanel::MessagesPanel(SceneDocument* document, QWidget* parent)
    : QListWidget(parent), document_(document) {
    setObjectName(QStringLiteral("Messages"));
    setWordWrap(true);
    connect(this, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        if (const quint64 id = item->data(kMessageEntityRole).toULongLong())
            emit selectRequested(id);
    });
}

int MessagesPanel::addFileDiagnostics(const engine::Diagnostics& diagnostics, const QString& file) {
    int warnings = 0;
    for (const engine::Diagnostic& d : diagnostics) {
        warnings += d.severity == engine::Severity::Warning;
        add(severityOf(d),
            QStringLiteral("%1 (%2%3)")
                .arg(toQString(d.message), file,
                     d.where.empty() ? QString() : QLatin1Char(':') + toQString(d.where)));
    }
    return warnings;
}

MessageSeverity MessagesPanel::severityOf(const engine::Diagnostic& d) {
    return d.severity == engine::Severity::Error ? MessageSeverity::Error
                                                 : MessageSeverity::Warning;
}

void MessagesPanel::addDiagnostics(const engine::Diagnostics& diagnostics, const QString& prefix) {
    for (const engine::Diagnostic& d : diagnostics)
        add(severityOf(d),
            prefix.isEmpty() ? toQString(d.message)
                             : tr("%1: %2").arg(prefix, toQString(d.message)),
            entitiesOf(d));
}

void MessagesPanel::add(MessageSeverity severity, const QString& text,
                        const std::vector<engine::EntityId>& entities) {
    // A result the user asked for is shown like information, and brought forward like a problem.
    const bool result = severity == MessageSeverity::Result;
    if (result) severity = MessageSeverity::Info;
    const QStyle::StandardPixmap icon =
        severity == MessageSeverity::Error     ? QStyle::SP_MessageBoxCritical
        : severity == MessageSeverity::Warning ? QStyle::SP_MessageBoxWarning
                                               : QStyle::SP_MessageBoxInformation;
    auto* item = new QListWidgetItem(style()->standardIcon(icon), text, this);
    item->setData(Qt::UserRole, static_cast<int>(severity));
    // Where the user looks: the status bar says it at once; problems and results bring the
    // Messages tab in front of the Plots tab.
    emit said(text.section(QLatin1Char('\n'), 0, 0));
    if ((severity != MessageSeverity::Info || result) && parentWidget()) {
        parentWidget()->show();
        parentWidget()->raise();
    }
    // A message about entities (a joint that cannot close and the parts of its loop, the
    // element a run stopped on, what a diagnostic's place names) is tied to the first: an
    // error or a warning highlights them all in the 3D view at once (the tree and the
    // properties stay on what the user was editing), and clicking the message selects it. The
    // entities come with the message, by id, never from its words.
    std::vector<quint64> shown;
    if (document_->scene())
        for (const engine::EntityId id : entities)
            if (id != engine::kNoEntity && std::find(shown.begin(), shown.end(), id) == shown.end())
                shown.push_back(id);
    if (!shown.empty()) {
        item->setData(kMessageEntityRole, shown.front());
        item->setToolTip(tr("Click to select it"));
        if (severity != MessageSeverity::Info) emit highlightRequested(shown);
    }
    scrollToItem(item);
}

std::vector<engine::EntityId> MessagesPanel::entitiesOf(const engine::Diagnostic& d) const {
    std::vector<engine::EntityId> ids = d.entities;
    if (document_->scene() && !d.where.empty())
        if (const engine::EntityId id = document_->scene()->entityAt(d.where);
            id != engine::kNoEntity)
            ids.insert(ids.begin(), id);
    return ids;
}

}  // namespace ui
