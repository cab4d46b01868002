#pragma once
// The mechanism's mobility in the status bar, always in view: "DOF 1 · Grübler 1" (and how
// many equations are redundant); a click explains it, each redundant equation in words with
// what would remove it.

#include <QString>
#include <QToolButton>

namespace engine {
struct SceneSpec;
}

namespace ui {

class DofStatus : public QToolButton {
    Q_OBJECT

public:
    explicit DofStatus(QWidget* parent = nullptr);

    // The counts of `scene` (none: blank).
    void showScene(const engine::SceneSpec* scene);
    // The explanation the click shows, as rich text.
    const QString& explanation() const { return explanation_; }

    // Degrees of freedom left free by joints and motions, the same count as the status bar's
    // and `motus-cli info`'s (−1 with the reason in `problem` when it cannot be counted).
    static int freeDegreesOfFreedom(const engine::SceneSpec* scene, QString* problem = nullptr);

private:
    void explain();

    QString explanation_;
};

}  // namespace ui
