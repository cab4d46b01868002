#include "ui/plots/plots_panel.h"

#include <algorithm>
#include <cmath>

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QScrollArea>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "ui/plots/plot_render.h"
#include "ui/plots/plot_widget.h"
#include "ui/session/simulation_session.h"

namespace ui {

PlotsPanel::PlotsPanel(SimulationSession* session, QWidget* parent)
    : QWidget(parent), session_(session) {
    setObjectName(QStringLiteral("Plots"));
    tabs_ = new QTabWidget;
    tabs_->setTabsClosable(true);
    tabs_->setDocumentMode(true);
    connect(tabs_, &QTabWidget::tabCloseRequested, this, [this](int index) {
        const QWidget* page = tabs_->widget(index);
        for (std::size_t k = 0; k < plots_.size(); ++k)
            if (plots_[k].plot == page) removePlot(static_cast<int>(k));
    });
    grid_ = new QWidget;
    gridLayout_ = new QGridLayout(grid_);
    gridLayout_->setContentsMargins(2, 2, 2, 2);
    gridLayout_->setSpacing(4);
    scroll_ = new QScrollArea;
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    scroll_->setWidget(grid_);

    auto* add = new QToolButton;
    add->setText(tr("+ Plot…"));
    add->setToolTip(
        tr("Plot recorded quantities (joint reactions, coordinates, part motion, tooth "
           "forces, energies) against time or against each other"));
    add->setAutoRaise(true);
    connect(add, &QToolButton::clicked, this, &PlotsPanel::addPlotWithPicker);
    sideBySideButton_ = new QToolButton;
    sideBySideButton_->setText(tr("Side by Side"));
    sideBySideButton_->setToolTip(tr("Show every plot at once, two to a row"));
    sideBySideButton_->setCheckable(true);
    sideBySideButton_->setAutoRaise(true);
    connect(sideBySideButton_, &QToolButton::toggled, this, &PlotsPanel::setSideBySide);
    auto* corner = new QWidget;
    auto* cornerLayout = new QHBoxLayout(corner);
    cornerLayout->setContentsMargins(0, 0, 0, 0);
    cornerLayout->setSpacing(2);
    cornerLayout->addWidget(sideBySideButton_);
    cornerLayout->addWidget(add);

    tabs_->setCornerWidget(corner, Qt::TopRightCorner);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    staleNote_ = new QLabel;
    staleNote_->setObjectName(QStringLiteral("PlotsStaleNote"));
    staleNote_->setWordWrap(true);
    staleNote_->setStyleSheet(
        QStringLiteral("QLabel { background: #fff3cd; color: #5c3b00; padding: 3px 6px; }"));
    staleNote_->hide();
    layout->addWidget(staleNote_);
    layout->addWidget(tabs_);
    connect(session_, &SimulationSession::staleChanged, this, [this] {
        staleNote_->setText(tr("Stale run: %1").arg(session_->staleReason()));
        staleNote_->setVisible(session_->stale());
    });

    refresh_.setInterval(100);
    connect(&refresh_, &QTimer::timeout, this, &PlotsPanel::refreshAll);
    refresh_.start();
    connect(session_, &SimulationSession::snapshotChanged, this, &PlotsPanel::moveCursors);
    connect(session_, &SimulationSession::started, this, &PlotsPanel::refreshAll);
}

PlotWidget* PlotsPanel::addPlot(const QStringList& channels, const QString& title,
                                const QString& x) {
    if (plotCount() >= kMaxPlots) return nullptr;
    auto* plot = new PlotWidget;
    plot->setChannels(channels.mid(0, kMaxCurves), x);
    const auto snap = session_->snapshot();
    plot->refresh(session_->recording(), snap ? snap->time : 0.0);
    connect(plot, &PlotWidget::seekRequested, this, &PlotsPanel::seek);
    plots_.push_back({plot, title.isEmpty() ? plot->title() : title});
    relayout();
    if (!sideBySide_) tabs_->setCurrentWidget(plot);
    emit plotAdded(plot);
    return plot;
}

std::vector<PlotEntry> PlotsPanel::plots() const {
    std::vector<PlotEntry> out;
    for (const Entry& e : plots_) out.push_back({e.title, e.plot->channels(), e.plot->xChannel()});
    return out;
}

PlotWidget* PlotsPanel::plot(int index) const {
    return index >= 0 && index < plotCount() ? plots_[static_cast<std::size_t>(index)].plot
                                             : nullptr;
}

PlotWidget* PlotsPanel::currentPlot() const {
    if (sideBySide_) {
        // The plot holding the keyboard focus, else the last one.
        for (const Entry& e : plots_)
            if (e.plot->isAncestorOf(focusWidget())) return e.plot;
        return plots_.empty() ? nullptr : plots_.back().plot;
    }
    return qobject_cast<PlotWidget*>(tabs_->currentWidget());
}

QString PlotsPanel::titleOf(const PlotWidget* plot) const {
    for (const Entry& e : plots_)
        if (e.plot == plot) return e.title;
    return {};
}

int PlotsPanel::plotCount() const {
    return static_cast<int>(plots_.size());
}

void PlotsPanel::removePlot(int index) {
    if (index < 0 || index >= plotCount()) return;
    PlotWidget* plot = plots_[static_cast<std::size_t>(index)].plot;
    plots_.erase(plots_.begin() + index);
    plot->hide();
    plot->setParent(nullptr);
    plot->deleteLater();
    relayout();
}

void PlotsPanel::clear() {
    for (const Entry& e : plots_) delete e.plot;
    plots_.clear();
    relayout();
}

void PlotsPanel::setSideBySide(bool sideBySide) {
    if (sideBySide == sideBySide_) return;
    sideBySide_ = sideBySide;
    const QSignalBlocker block(sideBySideButton_);
    sideBySideButton_->setChecked(sideBySide);
    relayout();
}

// Puts every plot where the mode wants it: a tab each, or a cell of the grid (one tab holding
// them all) with its title above it.
void PlotsPanel::relayout() {
    QWidget* current = tabs_->currentWidget();
    {
        const QSignalBlocker block(tabs_);
        while (tabs_->count() > 0) tabs_->removeTab(0);
    }
    scroll_->hide();
    while (QLayoutItem* item = gridLayout_->takeAt(0)) delete item;
    const int n = plotCount();
    for (int k = 0; k < n; ++k) {
        const Entry& e = plots_[static_cast<std::size_t>(k)];
        if (sideBySide_) {
            e.plot->setHeading(e.title);
            // One plot takes the whole width; more go two to a row.
            gridLayout_->addWidget(e.plot, k / 2, k % 2, 1, n == 1 ? 2 : 1);
            e.plot->show();
        } else {
            e.plot->setHeading(QString());
            tabs_->addTab(e.plot, e.title);
        }
    }
    for (int row = 0; row < (n + 1) / 2; ++row) gridLayout_->setRowMinimumHeight(row, 230);
    if (sideBySide_ && n > 0) {
        tabs_->addTab(scroll_, tr("All plots (%1)").arg(n));
        tabs_->tabBar()->setTabButton(0, QTabBar::RightSide, nullptr);  // Side by Side undoes it
    }
    if (!sideBySide_ && current && tabs_->indexOf(current) >= 0) tabs_->setCurrentWidget(current);
}

bool PlotsPanel::exportReport(const QString& path, const QString& heading, QString* error) const {
    std::vector<PlotPicture> pictures;
    for (const Entry& e : plots_) pictures.push_back(e.plot->picture(e.title));
    // A stale run says so on paper too.
    return exportPlotReport(pictures,
                            session_->stale()
                                ? tr("%1 — STALE RUN: %2").arg(heading, session_->staleReason())
                                : heading,
                            path, error);
}

void PlotsPanel::refreshAll() {
    if (!isVisible() && plots_.empty()) return;
    const auto snap = session_->snapshot();
    for (const Entry& e : plots_) e.plot->refresh(session_->recording(), snap ? snap->time : 0.0);
}

void PlotsPanel::moveCursors() {
    const auto snap = session_->snapshot();
    if (!snap) return;
    for (const Entry& e : plots_) e.plot->setCursorTime(snap->time);
}

// The recorded frame nearest to `time` becomes the current one (the timeline and the view
// follow).
void PlotsPanel::seek(double time) {
    const engine::Recording* recording = session_->recording();
    if (!recording || recording->size() == 0) return;
    std::size_t frame = recording->frameAtOrBefore(time);
    if (frame + 1 < recording->size() &&
        std::abs(recording->time(frame + 1) - time) < std::abs(recording->time(frame) - time))
        ++frame;
    session_->seekFrame(static_cast<int>(frame));
}

void PlotsPanel::addPlotWithPicker() {
    const engine::Recording* recording = session_->recording();
    if (!recording) return;
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Plot channels"));
    auto* filter = new QLineEdit;
    filter->setPlaceholderText(tr("Filter, e.g. pivotA or Fz"));
    auto* list = new QListWidget;
    list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    auto* xAxis = new QComboBox;
    xAxis->addItem(tr("time [s]"), QString());
    for (const engine::Channel& channel : recording->layout().channels()) {
        if (channel.name == "time") continue;
        const QString name = QString::fromStdString(channel.name);
        const QString label =
            QStringLiteral("%1  [%2]").arg(name, QString::fromStdString(channel.unit));
        auto* item = new QListWidgetItem(label);
        item->setData(Qt::UserRole, name);
        list->addItem(item);
        xAxis->addItem(label, name);
    }
    xAxis->setToolTip(
        tr("Another channel here makes an x-y plot, e.g. a coupler point's y "
           "against its x traces the coupler curve"));
    connect(filter, &QLineEdit::textChanged, list, [list](const QString& text) {
        for (int k = 0; k < list->count(); ++k)
            list->item(k)->setHidden(!list->item(k)->text().contains(text, Qt::CaseInsensitive));
    });
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto* layout = new QVBoxLayout(&dialog);
    layout->addWidget(
        new QLabel(tr("Choose one or more quantities (Ctrl/Shift to select several):")));
    layout->addWidget(filter);
    layout->addWidget(list);
    auto* form = new QFormLayout;
    form->addRow(tr("Horizontal axis:"), xAxis);
    layout->addLayout(form);
    layout->addWidget(buttons);
    dialog.resize(440, 520);
    if (dialog.exec() != QDialog::Accepted) return;
    QStringList channels;
    for (QListWidgetItem* item : list->selectedItems())
        channels << item->data(Qt::UserRole).toString();
    if (!channels.isEmpty()) addPlot(channels, QString(), xAxis->currentData().toString());
}

}  // namespace ui
