#pragma once
// The undo commands of the scene document, one per kind of edit. Each keeps the scene before
// and after it (scenes are small and meshes are shared, not copied), so undo and redo give
// back the document exactly, byte for byte when saved.
//
// Merging: consecutive changes of the same fields of the same entity (a value stepped with
// the arrow keys or the wheel, a part dragged) merge into one undo step while they follow each
// other within a second; an edit of something else, or a pause, starts a new step.

#include <QElapsedTimer>
#include <QString>
#include <QUndoCommand>

#include "engine/model/scene_spec.h"
#include "ui/document/scene_document.h"

namespace ui {

class SceneCommand : public QUndoCommand {
public:
    enum Kind { Add = 1, Remove, ChangeFields, Move, Rename, Replace };

    // `change`: what the edit changes (its undo changes the same).
    SceneCommand(SceneDocument* document, engine::SceneSpec before, engine::SceneSpec after,
                 const QString& text, SceneChange change);
    void redo() override;
    void undo() override;

    const engine::SceneSpec& before() const { return before_; }
    const engine::SceneSpec& after() const { return after_; }

protected:
    SceneDocument* document_;
    engine::SceneSpec before_, after_;
    SceneChange change_;
};

// New entities: a part from the palette, a marker, a joint (with the assembly it triggers),
// a force, a motion, a contact pair.
class AddCommand final : public SceneCommand {
public:
    AddCommand(SceneDocument* document, engine::SceneSpec before, engine::SceneSpec after,
               const QString& text)
        : SceneCommand(document, std::move(before), std::move(after), text,
                       {SceneChange::Kind::Structure}) {}
    int id() const override { return Add; }
};

// Entities deleted together with what cannot exist without them.
class RemoveCommand final : public SceneCommand {
public:
    RemoveCommand(SceneDocument* document, engine::SceneSpec before, engine::SceneSpec after,
                  const QString& text)
        : SceneCommand(document, std::move(before), std::move(after), text,
                       {SceneChange::Kind::Structure}) {}
    int id() const override { return Remove; }
};

// Fields of one entity changed (`key` names the entity and the fields, e.g. "42/Size").
class ChangeFieldsCommand final : public SceneCommand {
public:
    ChangeFieldsCommand(SceneDocument* document, engine::SceneSpec before, engine::SceneSpec after,
                        const QString& text, QString key, SceneChange change);
    int id() const override { return ChangeFields; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    QString key_;
    QElapsedTimer lastChange_;
};

// Parts moved (assembly, static equilibrium, a drag); `key` names what moved.
class MoveCommand final : public SceneCommand {
public:
    MoveCommand(SceneDocument* document, engine::SceneSpec before, engine::SceneSpec after,
                const QString& text, QString key = QString());
    int id() const override { return Move; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    QString key_;
    QElapsedTimer lastChange_;
};

// An entity renamed, with every reference to it.
class RenameCommand final : public SceneCommand {
public:
    RenameCommand(SceneDocument* document, engine::SceneSpec before, engine::SceneSpec after,
                  const QString& text)
        : SceneCommand(document, std::move(before), std::move(after), text,
                       {SceneChange::Kind::Names}) {}
    int id() const override { return Rename; }
};

}  // namespace ui
