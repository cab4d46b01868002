#pragma once
// File ▸ Import CAD…: a STEP assembly as parts, in a new scene or the open one (one undo step),
// or read again into the scene built from it (re-import). The file is read on a worker thread
// (the reader itself in a process of its own) while the window goes on, with a progress dialog
// whose Cancel stops it within 0.1 s; then the user reviews the joints the geometry suggests
// and chooses the ground (cad_import_dialog.h). What was read, changed or left out is listed in
// Messages.

#include <optional>
#include <string>
#include <vector>

#include <QObject>
#include <QString>

#include "ui/mainwindow/cad_import_dialog.h"
#include "ui/mainwindow/window_parts.h"

namespace engine::io {
struct CadImportOptions;
struct CadImportResult;
}  // namespace engine::io

namespace ui {

class FileActions;

// The review's answers given beforehand (scripts, tests): the suggestions accepted, by index
// (all when not given), and the ground's name (none: every part moves).
struct CadReview {
    std::optional<std::vector<std::size_t>> accepted;
    std::optional<std::string> ground;
};

class CadImport : public QObject {
    Q_OBJECT

public:
    CadImport(const WindowParts& parts, FileActions* files);

    // The File menu's dialog path: the file, the options, the reading, the review.
    void importWithDialog();
    // Imports `path` into `target`: read with progress and Cancel, then reviewed in the joints
    // dialog, or by `review` when given. True when the scene changed (or a new one opened).
    bool importFile(const QString& path, const engine::io::CadImportOptions& options,
                    CadTarget target, const CadReview* review = nullptr);

private:
    // Reads on a worker thread while the window goes on; the progress dialog's Cancel stops it.
    engine::io::CadImportResult read(const QString& path, engine::io::CadImportOptions options);
    QString summary(const QString& path, const engine::io::CadImportResult& result) const;

    WindowParts parts_;
    FileActions* files_;
};

}  // namespace ui
