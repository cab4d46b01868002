#pragma once
// The Messages panel: what Motus tells the user (problems, warnings, information, the results
// of analyses), newest last, each also said in the status bar as it comes. A message about
// entities carries their ids (never recovered from its words): an error or a warning
// highlights them in the 3D view at once, and clicking the message selects the first.

#include <vector>

#include <QListWidget>
#include <QString>

#include "engine/model/diagnostic.h"
#include "engine/model/entity_id.h"
#include "ui/mainwindow/message_severity.h"

namespace ui {

class SceneDocument;

class MessagesPanel : public QListWidget {
    Q_OBJECT

public:
    explicit MessagesPanel(SceneDocument* document, QWidget* parent = nullptr);

    void add(MessageSeverity severity, const QString& text,
             const std::vector<engine::EntityId>& entities = {});
    // Problems found on the way to a run or a file, each with what it is about;
    // `prefix`: "<prefix>: <message>" (an analysis's name).
    void addDiagnostics(const engine::Diagnostics& diagnostics, const QString& prefix = {});
    // Problems of a file being read (an import), not of the open scene: "<message> (<file>:
    // <place>)". Returns how many are warnings.
    int addFileDiagnostics(const engine::Diagnostics& diagnostics, const QString& file);
    // What a diagnostic is about: its entities, and the one its place in the scene names.
    std::vector<engine::EntityId> entitiesOf(const engine::Diagnostic& d) const;
    static MessageSeverity severityOf(const engine::Diagnostic& d);

signals:
    // A message's entity was clicked: select it.
    void selectRequested(quint64 entity);
    // An error or a warning about these entities: highlight them (the selection stays).
    void highlightRequested(const std::vector<quint64>& entities);
    // Every message, for the status bar (its first line).
    void said(const QString& text);

private:
    SceneDocument* document_;
};

}  // namespace ui
