#include "ui/document/scene_commands.h"

#include "ui/document/scene_document.h"

namespace ui {
namespace {

constexpr qint64 kMergeWindowMs = 1000;  // edits closer than this merge into one step

}  // namespace

SceneCommand::SceneCommand(SceneDocument* document, engine::SceneSpec before,
                           engine::SceneSpec after, const QString& text, SceneChange change)
    : QUndoCommand(text),
      document_(document),
      before_(std::move(before)),
      after_(std::move(after)),
      change_(std::move(change)) {}

void SceneCommand::redo() {
    document_->setScene(after_, change_);
}

void SceneCommand::undo() {
    document_->setScene(before_, change_);
}

ChangeFieldsCommand::ChangeFieldsCommand(SceneDocument* document, engine::SceneSpec before,
                                         engine::SceneSpec after, const QString& text, QString key,
                                         SceneChange change)
    : SceneCommand(document, std::move(before), std::move(after), text, std::move(change)),
      key_(std::move(key)) {
    lastChange_.start();
}

bool ChangeFieldsCommand::mergeWith(const QUndoCommand* other) {
    const auto* next = static_cast<const ChangeFieldsCommand*>(other);
    if (key_.isEmpty() || next->key_ != key_ || lastChange_.elapsed() > kMergeWindowMs)
        return false;
    after_ = next->after_;
    lastChange_.restart();
    return true;
}

MoveCommand::MoveCommand(SceneDocument* document, engine::SceneSpec before, engine::SceneSpec after,
                         const QString& text, QString key)
    : SceneCommand(document, std::move(before), std::move(after), text, {SceneChange::Kind::Poses}),
      key_(std::move(key)) {
    lastChange_.start();
}

bool MoveCommand::mergeWith(const QUndoCommand* other) {
    const auto* next = static_cast<const MoveCommand*>(other);
    if (key_.isEmpty() || next->key_ != key_ || lastChange_.elapsed() > kMergeWindowMs)
        return false;
    after_ = next->after_;
    lastChange_.restart();
    return true;
}

}  // namespace ui
