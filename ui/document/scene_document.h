#pragma once
// The open scene as a document: the editable SceneSpec, its file, whether it differs from
// that file, and the undo stack through which every edit passes. Widgets read the scene and
// ask for edits; they never change it themselves. An edit is validated and compiled here,
// once: one that brings an error the scene did not have is refused with it (nothing changes),
// and the compiled model is shared with everything that shows the scene (the mobility, the
// run, the analyses). Each change says what kind it is, so each view updates what it shows
// of it. The main window wires the document to the tree, the view, the properties and the
// simulation, and asks before an unsaved edit would be lost.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <QObject>
#include <QString>

#include "engine/model/model.h"
#include "engine/model/scene_spec.h"

class QUndoStack;

namespace ui {

// What a change of the scene was, for the views to update what they show of it.
struct SceneChange {
    enum class Kind {
        Structure,  // entities added or removed
        Fields,     // fields of one entity (`entity`; `field`, as Properties labels it)
        Poses,      // parts moved (assembly, static equilibrium, a drag)
        Names,      // an entity renamed, with every reference to it
    };
    Kind kind = Kind::Structure;
    engine::EntityId entity = engine::kNoEntity;
    QString field = {};
};

class SceneDocument : public QObject {
    Q_OBJECT

public:
    // An edit refused: the error it would bring (see add()).
    using Refusal = std::optional<engine::Diagnostic>;

    explicit SceneDocument(QObject* parent = nullptr);
    ~SceneDocument() override;

    // The scene, null when no document is open.
    const engine::SceneSpec* scene() const { return scene_.get(); }
    // The scene compiled (its model null when it has errors, which its diagnostics say),
    // once per change.
    const engine::CompileResult& compiled() const { return compiled_; }
    QUndoStack* undoStack() const { return undo_; }
    // The file the document was read from or saved to (absolute), empty when it has none.
    const QString& path() const { return path_; }
    // What the title bar calls it: the scene's name, else the file's name, else "Untitled".
    const QString& title() const { return title_; }
    // The document differs from its file (or, with no file, holds work worth saving).
    bool isModified() const;

    // A new document (File ▸ New, Open, Import, a run): the undo history starts over.
    // `unsavedWork` marks a document with no file that holds work (an imported robot).
    void reset(std::unique_ptr<engine::SceneSpec> spec, const QString& path, const QString& title,
               bool unsavedWork = false);
    // Writes the scene to `path` atomically; on success the document is that file, unmodified.
    bool save(const QString& path, std::string& error);

    // Edits, each one undo step (see scene_commands.h): `after` is the whole scene after the
    // edit. Each is validated and compiled once; one that brings an error the scene did not
    // have is refused: nothing changes and that error is returned (empty: applied).
    Refusal add(engine::SceneSpec after, const QString& text);
    Refusal remove(engine::SceneSpec after, const QString& text);
    // `key` names the entity and fields edited; consecutive changes with one key merge.
    // `entity`, `field`: what changed (SceneChange).
    Refusal changeFields(engine::SceneSpec after, const QString& text,
                         const QString& key = QString(),
                         engine::EntityId entity = engine::kNoEntity,
                         const QString& field = QString());
    Refusal move(engine::SceneSpec after, const QString& text, const QString& key = QString());
    Refusal rename(engine::SceneSpec after, const QString& text);

    // The user's plots: kept with the scene (and saved) but not an undoable edit.
    void setPlots(std::vector<engine::PlotSpec> plots);

    // Commands call this on undo and redo.
    void setScene(const engine::SceneSpec& spec, const SceneChange& change);

signals:
    // A different document is open (or none).
    void documentReset();
    // The scene changed by an edit, its undo or its redo.
    void sceneChanged(const ui::SceneChange& change);
    void modifiedChanged(bool modified);
    void pathChanged(const QString& path);

private:
    void updateModified();
    // Validates and compiles `after`: its refusal, or empty with the result kept for the
    // command's redo (setScene).
    Refusal check(const engine::SceneSpec& after);
    // check(), then the edit as a `Command` on the undo stack.
    template <class Command, class... Args>
    Refusal apply(engine::SceneSpec after, const QString& text, Args&&... args);

    std::unique_ptr<engine::SceneSpec> scene_;
    engine::CompileResult compiled_;                // of scene_
    std::optional<engine::CompileResult> checked_;  // of the edit being pushed
    QUndoStack* undo_ = nullptr;
    QString path_;
    QString title_;
    bool unsavedWork_ = false;
    bool lastModified_ = false;
};

}  // namespace ui
