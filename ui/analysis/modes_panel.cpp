#include "ui/analysis/modes_panel.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <QElapsedTimer>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "engine/analysis/modes.h"
#include "engine/analysis/statics.h"
#include "engine/integrators/detail.h"
#include "engine/integrators/integrator.h"
#include "engine/model/layout.h"

namespace ui {

namespace {

constexpr double kCycle = 1.5;          // s of wall time per swing through a mode
constexpr double kSizeFraction = 0.08;  // the largest part motion, of the mechanism's size
constexpr double kTurn = 0.35;          // rad: the amplitude of a mode that only turns parts

enum Column { kMode, kFrequency, kPeriod, kDamping, kStability, kColumns };

}  // namespace

struct ModesPanel::Impl {
    QLabel* about = nullptr;
    QTableWidget* table = nullptr;
    QPushButton* stop = nullptr;
    QTimer timer;
    QElapsedTimer clock;
    std::shared_ptr<const engine::Model> model;
    engine::State state;
    std::vector<engine::Mode> modes;
    double amplitude = 0.0;  // multiplies a shape (largest translation 1, else rotation 1)
    double largestMotion = 0.0;
    int animated = -1;
    ShowPoses show;
    std::function<void()> stopped;
    mutable engine::Workspace ws;
    mutable bool wsReady = false;
};

ModesPanel::ModesPanel(QWidget* parent) : QWidget(parent), impl_(std::make_unique<Impl>()) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    impl_->about =
        new QLabel(tr("Simulate ▸ Analysis ▸ Vibration Modes finds the natural "
                      "frequencies about the equilibrium the mechanism rests in."));
    impl_->about->setWordWrap(true);
    impl_->about->setObjectName(QStringLiteral("ModesAbout"));
    layout->addWidget(impl_->about);
    impl_->table = new QTableWidget(0, kColumns);
    impl_->table->setObjectName(QStringLiteral("ModesTable"));
    impl_->table->setHorizontalHeaderLabels(
        {tr("Mode"), tr("Frequency [Hz]"), tr("Period [s]"), tr("Damping ratio"), tr("Stability")});
    impl_->table->verticalHeader()->hide();
    impl_->table->setSelectionBehavior(QAbstractItemView::SelectRows);
    impl_->table->setSelectionMode(QAbstractItemView::SingleSelection);
    impl_->table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    impl_->table->horizontalHeader()->setStretchLastSection(true);
    impl_->table->setToolTip(tr("Select a mode to see it move in the 3D view"));
    layout->addWidget(impl_->table, 1);
    impl_->stop = new QPushButton(tr("Stop Animation"));
    impl_->stop->setEnabled(false);
    layout->addWidget(impl_->stop, 0, Qt::AlignLeft);
    connect(impl_->stop, &QPushButton::clicked, this, [this] { animateMode(-1); });
    connect(impl_->table, &QTableWidget::itemSelectionChanged, this, [this] {
        const QList<QTableWidgetItem*> items = impl_->table->selectedItems();
        if (!items.isEmpty()) animateMode(items.front()->row());
    });
    impl_->timer.setInterval(33);
    connect(&impl_->timer, &QTimer::timeout, this, &ModesPanel::tick);
}

ModesPanel::~ModesPanel() = default;

void ModesPanel::setModes(std::shared_ptr<const engine::Model> model, const engine::State& state,
                          const engine::ModesResult& modes, const QString& about) {
    animateMode(-1);
    impl_->model = std::move(model);
    impl_->state = state;
    impl_->modes = modes.modes;
    impl_->wsReady = false;
    impl_->about->setText(about);

    // The animation's size: a fraction of the mechanism's (the spread of its bodies, at least
    // 5 cm), reached by the part that moves most.
    const engine::Model& m = *impl_->model;
    double size = 0.05;
    for (int a = 0; a < m.bodyCount(); ++a)
        for (int b = a + 1; b < m.bodyCount(); ++b)
            size = std::max(
                size, (engine::bodyPosition(state.q, a) - engine::bodyPosition(state.q, b)).norm());
    impl_->amplitude = kSizeFraction * size;
    impl_->largestMotion = impl_->amplitude;

    double highest = 0.0;
    for (const engine::Mode& mode : impl_->modes) highest = std::max(highest, mode.frequency);
    QTableWidget* t = impl_->table;
    QSignalBlocker block(t);
    t->clearContents();
    t->setRowCount(static_cast<int>(impl_->modes.size()));
    for (int k = 0; k < t->rowCount(); ++k) {
        const engine::Mode& mode = impl_->modes[static_cast<std::size_t>(k)];
        auto cell = [&](int column, const QString& text) {
            auto* item = new QTableWidgetItem(text);
            item->setTextAlignment(column == kStability ? Qt::AlignLeft | Qt::AlignVCenter
                                                        : Qt::AlignRight | Qt::AlignVCenter);
            t->setItem(k, column, item);
        };
        cell(kMode, QString::number(k + 1));
        cell(kFrequency, QString::number(mode.frequency, 'g', 6));
        cell(kPeriod, mode.frequency > 0.0 ? QString::number(1.0 / mode.frequency, 'g', 4)
                                           : QStringLiteral("—"));
        // Round-off of an undamped mode's ζ (1e-18) reads as none.
        cell(kDamping,
             QString::number(std::abs(mode.dampingRatio) < 1e-9 ? 0.0 : mode.dampingRatio, 'g', 3));
        // A frequency at round-off of the highest: a direction nothing restores.
        const bool neutral = mode.frequency <= 1e-6 * highest;
        cell(kStability, mode.unstable ? tr("grows at %1 1/s").arg(mode.growthRate, 0, 'g', 3)
                         : neutral     ? tr("neutral")
                                       : tr("stable"));
    }
    t->resizeColumnsToContents();
}

void ModesPanel::clear() {
    animateMode(-1);
    impl_->table->setRowCount(0);
    impl_->modes.clear();
    impl_->model.reset();
}

int ModesPanel::modeCount() const {
    return static_cast<int>(impl_->modes.size());
}

double ModesPanel::frequency(int mode) const {
    return impl_->modes.at(static_cast<std::size_t>(mode)).frequency;
}

double ModesPanel::amplitude() const {
    return impl_->largestMotion;
}

void ModesPanel::setShowPoses(ShowPoses show, std::function<void()> stopped) {
    impl_->show = std::move(show);
    impl_->stopped = std::move(stopped);
}

void ModesPanel::animateMode(int mode) {
    if (mode < 0 || mode >= modeCount() || !impl_->model) {
        const bool was = impl_->animated >= 0;
        impl_->animated = -1;
        impl_->timer.stop();
        impl_->stop->setEnabled(false);
        {
            QSignalBlocker block(impl_->table);
            impl_->table->clearSelection();
        }
        if (was && impl_->stopped) impl_->stopped();
        return;
    }
    impl_->animated = mode;
    impl_->stop->setEnabled(true);
    {
        QSignalBlocker block(impl_->table);
        impl_->table->selectRow(mode);
    }
    impl_->clock.start();
    impl_->timer.start();
    tick();
}

int ModesPanel::animatedMode() const {
    return impl_->animated;
}

std::vector<engine::Transform> ModesPanel::posesAt(int mode, double phase) const {
    const engine::Model& m = *impl_->model;
    const engine::Mode& shape = impl_->modes.at(static_cast<std::size_t>(mode));
    bool translates = false;
    for (int b = 0; b < m.bodyCount(); ++b)
        translates = translates || engine::layout::linear(shape.shape, b).norm() > 1e-9;
    const double scale = translates ? impl_->amplitude : kTurn;
    engine::State s = impl_->state;
    engine::detail::retract(m, s.q, std::sin(phase) * scale * shape.shape);
    // Back onto the joints (the shape is their tangent: a large swing leaves them open to
    // second order); the linear pose where that fails.
    if (!impl_->wsReady) impl_->wsReady = engine::prepareWorkspace(m, s, impl_->ws).ok;
    if (impl_->wsReady) {
        engine::State projected = s;
        impl_->ws.factored = false;
        if (engine::projectState(m, projected, impl_->ws).ok) s = projected;
    }
    return engine::partPoses(m, s);
}

void ModesPanel::tick() {
    if (impl_->animated < 0 || !impl_->show) return;
    const double t = static_cast<double>(impl_->clock.elapsed()) / 1000.0;
    impl_->show(posesAt(impl_->animated, 2.0 * std::numbers::pi * t / kCycle));
}

}  // namespace ui
