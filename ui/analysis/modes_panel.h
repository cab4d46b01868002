#pragma once
// The Modes panel (Simulate ▸ Analysis ▸ Vibration Modes): the natural frequencies, damping
// ratios and stability of small vibrations about an equilibrium (engine/analysis/modes), one
// row per mode; the selected mode moves in the 3D view, the parts swinging through its shape
// (held on the joints) once every 1.5 s whatever its frequency.

#include <functional>
#include <memory>
#include <vector>

#include <QWidget>

namespace engine {
struct Model;
struct State;
struct Transform;
struct ModesResult;
}  // namespace engine

namespace ui {

class ModesPanel : public QWidget {
    Q_OBJECT

public:
    using ShowPoses = std::function<void(const std::vector<engine::Transform>& partPoses)>;

    explicit ModesPanel(QWidget* parent = nullptr);
    ~ModesPanel() override;

    // The modes of `model` about `state` (at rest), with a line saying what they are about.
    void setModes(std::shared_ptr<const engine::Model> model, const engine::State& state,
                  const engine::ModesResult& modes, const QString& about);
    void clear();
    int modeCount() const;
    double frequency(int mode) const;  // Hz

    // Where the animation shows its poses, and what shows the scene again when it stops.
    void setShowPoses(ShowPoses show, std::function<void()> stopped);
    // Moves mode `mode` (0-based) in the view; −1 stops.
    void animateMode(int mode);
    int animatedMode() const;
    // The part poses of mode `mode` at phase φ [rad]: the equilibrium displaced by sin φ times
    // the animation amplitude along the shape, projected back onto the joints.
    std::vector<engine::Transform> posesAt(int mode, double phase) const;
    // The largest displacement of a part origin in the animation [m].
    double amplitude() const;

private:
    void tick();

    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ui
