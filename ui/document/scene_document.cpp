#include "ui/document/scene_document.h"

#include <algorithm>
#include <filesystem>

#include <QFileInfo>
#include <QUndoStack>

#include "engine/io/scene_json.h"
#include "ui/document/scene_commands.h"

namespace ui {

SceneDocument::SceneDocument(QObject* parent) : QObject(parent), undo_(new QUndoStack(this)) {
    connect(undo_, &QUndoStack::cleanChanged, this, [this] { updateModified(); });
    connect(undo_, &QUndoStack::indexChanged, this, [this] { updateModified(); });
}

SceneDocument::~SceneDocument() = default;

bool SceneDocument::isModified() const {
    return scene_ && (unsavedWork_ || !undo_->isClean());
}

void SceneDocument::updateModified() {
    const bool modified = isModified();
    if (modified == lastModified_) return;
    lastModified_ = modified;
    emit modifiedChanged(modified);
}

void SceneDocument::reset(std::unique_ptr<engine::SceneSpec> spec, const QString& path,
                          const QString& title, bool unsavedWork) {
    undo_->clear();  // before the scene goes: commands hold copies, not references
    scene_ = std::move(spec);
    compiled_ = scene_ ? engine::compile(*scene_) : engine::CompileResult{};
    path_ = path;
    title_ = title;
    unsavedWork_ = unsavedWork;
    undo_->setClean();
    emit documentReset();
    emit pathChanged(path_);
    updateModified();
}

bool SceneDocument::save(const QString& path, std::string& error) {
    if (!scene_) {
        error = "no scene is open";
        return false;
    }
    // Mesh files are named relative to the scene file, so the scene and its meshes move
    // together (parts from the palette and imported robots hold absolute paths until saved).
    engine::SceneSpec written = *scene_;
    const std::filesystem::path folder =
        std::filesystem::absolute(path.toStdString()).parent_path();
    for (engine::Part& part : written.parts)
        for (engine::Shape& shape : part.shapes) {
            if (shape.type != engine::ShapeType::Mesh || shape.meshFile.empty()) continue;
            const std::filesystem::path file(shape.meshFile);
            if (!file.is_absolute()) continue;
            std::error_code ec;
            const std::filesystem::path relative = std::filesystem::relative(file, folder, ec);
            if (!ec && !relative.empty()) shape.meshFile = relative.generic_string();
        }
    if (!engine::io::saveSceneFile(written, path.toStdString(), error)) return false;
    path_ = QFileInfo(path).absoluteFilePath();
    if (scene_->name.empty() || title_.isEmpty()) title_ = QFileInfo(path).fileName();
    unsavedWork_ = false;
    undo_->setClean();
    emit pathChanged(path_);
    updateModified();
    return true;
}

SceneDocument::Refusal SceneDocument::check(const engine::SceneSpec& after) {
    engine::CompileResult compiled = engine::compile(after);
    for (const engine::Diagnostic& d : compiled.diagnostics) {
        if (d.severity != engine::Severity::Error) continue;
        const bool old =
            std::any_of(compiled_.diagnostics.begin(), compiled_.diagnostics.end(),
                        [&](const engine::Diagnostic& b) {
                            return b.severity == engine::Severity::Error && b.message == d.message;
                        });
        if (!old) return d;
    }
    checked_ = std::move(compiled);
    return std::nullopt;
}

template <class Command, class... Args>
SceneDocument::Refusal SceneDocument::apply(engine::SceneSpec after, const QString& text,
                                            Args&&... args) {
    if (!scene_) return std::nullopt;
    if (Refusal refused = check(after)) return refused;
    undo_->push(new Command(this, *scene_, std::move(after), text, std::forward<Args>(args)...));
    return std::nullopt;
}

SceneDocument::Refusal SceneDocument::add(engine::SceneSpec after, const QString& text) {
    return apply<AddCommand>(std::move(after), text);
}

SceneDocument::Refusal SceneDocument::remove(engine::SceneSpec after, const QString& text) {
    return apply<RemoveCommand>(std::move(after), text);
}

SceneDocument::Refusal SceneDocument::changeFields(engine::SceneSpec after, const QString& text,
                                                   const QString& key, engine::EntityId entity,
                                                   const QString& field) {
    return apply<ChangeFieldsCommand>(std::move(after), text, key,
                                      SceneChange{SceneChange::Kind::Fields, entity, field});
}

SceneDocument::Refusal SceneDocument::move(engine::SceneSpec after, const QString& text,
                                           const QString& key) {
    return apply<MoveCommand>(std::move(after), text, key);
}

SceneDocument::Refusal SceneDocument::rename(engine::SceneSpec after, const QString& text) {
    return apply<RenameCommand>(std::move(after), text);
}

void SceneDocument::setPlots(std::vector<engine::PlotSpec> plots) {
    if (scene_) scene_->plots = std::move(plots);
}

void SceneDocument::setScene(const engine::SceneSpec& spec, const SceneChange& change) {
    if (!scene_) return;
    // The user's plots are not part of the undo history: they stay as they are.
    std::vector<engine::PlotSpec> plots = std::move(scene_->plots);
    *scene_ = spec;
    scene_->plots = std::move(plots);
    // A new edit was compiled when it was checked; an undo or a redo is compiled here.
    if (checked_) {
        compiled_ = std::move(*checked_);
        checked_.reset();
    } else {
        compiled_ = engine::compile(*scene_);
    }
    emit sceneChanged(change);
}

}  // namespace ui
