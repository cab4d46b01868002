#pragma once
// The mechanism's mobility in the status bar, always in view: "DOF 1 · Grübler 1" (and how
// many equations are redundant); a click explains it, each redundant equation in words with
// what would remove it.

#include <QString>
#include <QToolButton>

namespace engine {
struct CompileResult;
}

namespace ui {

class DofStatus : public QToolButton {
    Q_OBJECT

public:
    explicit DofStatus(QWidget* parent = nullptr);

    // The counts of a compiled scene (the document's; none: blank).
    void showScene(const engine::CompileResult* compiled);
    // The explanation the click shows, as rich text.
    const QString& explanation() const { return explanation_; }

    // Degrees of freedom the scene shown leaves free by joints and motions, the same count as
    // the status bar's and `motus-cli info`'s (−1 with the reason in `problem` when it cannot
    // be counted).
    int freeDegreesOfFreedom(QString* problem = nullptr) const;

private:
    void explain();

    QString explanation_;
    int free_ = -1;    // freeDegreesOfFreedom()
    QString problem_;  // why it is −1
};

}  // namespace ui
