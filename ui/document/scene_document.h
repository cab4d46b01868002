#pragma once
// The open scene as a document: the editable SceneSpec, its file, whether it differs from
// that file, and the undo stack through which every edit passes. Widgets read the scene and
// ask for edits; they never change it themselves. The main window wires the document to the
// tree, the view, the properties and the simulation, and asks before an unsaved edit would be
// lost.

#include <memory>
#include <string>
#include <vector>

#include <QObject>
#include <QString>

#include "engine/model/scene_spec.h"

class QUndoStack;

namespace ui {

class SceneDocument : public QObject {
    Q_OBJECT

public:
    explicit SceneDocument(QObject* parent = nullptr);
    ~SceneDocument() override;

    // The scene, null when no document is open.
    const engine::SceneSpec* scene() const { return scene_.get(); }
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

    // Edits, each one undo step (see scene_commands.h): `after` is the whole scene after the edit.
    void add(engine::SceneSpec after, const QString& text);
    void remove(engine::SceneSpec after, const QString& text);
    // `key` names the entity and fields edited; consecutive changes with one key merge.
    void changeFields(engine::SceneSpec after, const QString& text, const QString& key = QString());
    void move(engine::SceneSpec after, const QString& text, const QString& key = QString());
    void rename(engine::SceneSpec after, const QString& text);

    // The user's plots: kept with the scene (and saved) but not an undoable edit.
    void setPlots(std::vector<engine::PlotSpec> plots);

    // Commands call this on undo and redo.
    void setScene(const engine::SceneSpec& spec);

signals:
    // A different document is open (or none).
    void documentReset();
    // The scene changed by an edit, its undo or its redo.
    void sceneChanged();
    void modifiedChanged(bool modified);
    void pathChanged(const QString& path);

private:
    void updateModified();

    std::unique_ptr<engine::SceneSpec> scene_;
    QUndoStack* undo_ = nullptr;
    QString path_;
    QString title_;
    bool unsavedWork_ = false;
    bool lastModified_ = false;
};

}  // namespace ui
