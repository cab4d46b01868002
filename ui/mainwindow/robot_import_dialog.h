#pragma once
// File ▸ Import Robot…: how a robot description (URDF, MJCF or SDF, told by the file) becomes a
// scene — the folders searched for package:// and model:// meshes, whether inertia data that
// needs fixing is refused (strict) or fixed with a warning per link, whether links' inertia is
// computed from their geometry, and whether the root is welded to the ground. The choices are
// remembered between imports (QSettings, "robotImport/…").

#include <QDialog>
#include <QString>

class QCheckBox;
class QLabel;
class QListWidget;

namespace engine::io {
struct RobotImportOptions;
}

namespace ui {

class RobotImportDialog : public QDialog {
    Q_OBJECT

public:
    explicit RobotImportDialog(const QString& path, QWidget* parent = nullptr);

    engine::io::RobotImportOptions options() const;
    void setOptions(const engine::io::RobotImportOptions& options);
    // Saves the choices for the next import.
    void remember() const;
    // The choices of the last import (defaults the first time).
    static engine::io::RobotImportOptions remembered();

private:
    void addFolder();

    QLabel* format_ = nullptr;
    QListWidget* folders_ = nullptr;
    QCheckBox* strict_ = nullptr;
    QCheckBox* fromGeometry_ = nullptr;
    QCheckBox* fixedBase_ = nullptr;
};

}  // namespace ui
