#pragma once
// File ▸ Import CAD…'s two dialogs.
//   - CadImportDialog, before reading: what becomes a part (each component or each solid,
//     sub-assemblies kept rigid), the density of solids whose file names no material, the
//     drawing's tolerance, and where the parts go: a new scene, the open scene as new parts, or
//     the open scene's parts of the same names updated (a re-import of a changed file). The
//     choices are remembered between imports (QSettings, "cadImport/…").
//   - CadJointsDialog, after reading: the joints the geometry suggests, each ticked to be added,
//     and the component that becomes the ground.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <QDialog>
#include <QString>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace engine {
struct SceneSpec;
}
namespace engine::io {
struct CadImportOptions;
struct JointSuggestion;
}  // namespace engine::io

namespace ui {

// Where an import's parts go.
enum class CadTarget {
    NewScene,    // a new, unsaved scene
    AddToScene,  // the open scene, as new parts (one undo step)
    UpdateScene  // the open scene's parts of the same names (a re-import; one undo step)
};

class CadImportDialog : public QDialog {
    Q_OBJECT

public:
    // `openScene`: the scene open now (null: none, a new scene is the only target).
    CadImportDialog(const QString& path, const engine::SceneSpec* openScene,
                    QWidget* parent = nullptr);

    engine::io::CadImportOptions options() const;
    void setOptions(const engine::io::CadImportOptions& options);
    CadTarget target() const;
    void setTarget(CadTarget target);
    // Saves the choices (not the target) for the next import.
    void remember() const;
    // The choices of the last import (defaults the first time: per component, steel, automatic
    // tolerance).
    static engine::io::CadImportOptions remembered();

private:
    void densityEdited();

    QComboBox* grouping_ = nullptr;
    QLineEdit* rigid_ = nullptr;
    QComboBox* material_ = nullptr;
    QDoubleSpinBox* density_ = nullptr;
    QDoubleSpinBox* tolerance_ = nullptr;
    QButtonGroup* targets_ = nullptr;
};

class CadJointsDialog : public QDialog {
    Q_OBJECT

public:
    // `spec`: the scene the suggestions' part indices refer to. `chooseGround`: offer the choice
    // of the ground among its moving parts (a new import; not when updating a scene, whose
    // ground stays). `summary`: what was read, for the heading.
    CadJointsDialog(const engine::SceneSpec& spec,
                    const std::vector<engine::io::JointSuggestion>& suggestions, bool chooseGround,
                    const QString& summary, QWidget* parent = nullptr);

    // The suggestions ticked, by index.
    std::vector<std::size_t> accepted() const;
    void setAccepted(const std::vector<std::size_t>& indices);
    // The part chosen as the ground (its name), none when every part moves.
    std::optional<std::string> ground() const;
    void setGround(const std::optional<std::string>& name);

private:
    void updateButton();

    QComboBox* ground_ = nullptr;
    QTableWidget* table_ = nullptr;
    QPushButton* ok_ = nullptr;
};

}  // namespace ui
