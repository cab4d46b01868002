#include "ui/plots/plots_panel.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
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
        QWidget* page = tabs_->widget(index);
        tabs_->removeTab(index);
        page->deleteLater();
    });
    auto* add = new QToolButton;
    add->setText(tr("+ Plot…"));
    add->setToolTip(
        tr("Plot recorded quantities (joint reactions, coordinates, part motion, energies)"));
    add->setAutoRaise(true);
    connect(add, &QToolButton::clicked, this, &PlotsPanel::addPlotWithPicker);
    tabs_->setCornerWidget(add, Qt::TopRightCorner);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(tabs_);

    refresh_.setInterval(100);
    connect(&refresh_, &QTimer::timeout, this, &PlotsPanel::refreshAll);
    refresh_.start();
    connect(session_, &SimulationSession::snapshotChanged, this, &PlotsPanel::moveCursors);
    connect(session_, &SimulationSession::started, this, &PlotsPanel::refreshAll);
}

PlotWidget* PlotsPanel::addPlot(const QStringList& channels, const QString& title) {
    auto* plot = new PlotWidget;
    plot->setChannels(channels);
    const auto snap = session_->snapshot();
    plot->refresh(session_->recording(), snap ? snap->time : 0.0);
    tabs_->setCurrentIndex(tabs_->addTab(plot, title.isEmpty() ? plot->title() : title));
    return plot;
}

std::vector<std::pair<QString, QStringList>> PlotsPanel::plots() const {
    std::vector<std::pair<QString, QStringList>> out;
    for (int k = 0; k < tabs_->count(); ++k)
        if (auto* plot = qobject_cast<PlotWidget*>(tabs_->widget(k)))
            out.emplace_back(tabs_->tabText(k), plot->channels());
    return out;
}

PlotWidget* PlotsPanel::currentPlot() const {
    return qobject_cast<PlotWidget*>(tabs_->currentWidget());
}
int PlotsPanel::plotCount() const {
    return tabs_->count();
}

void PlotsPanel::clear() {
    while (tabs_->count() > 0) {
        QWidget* page = tabs_->widget(0);
        tabs_->removeTab(0);
        delete page;
    }
}

void PlotsPanel::refreshAll() {
    if (!isVisible() && tabs_->count() == 0) return;
    const auto snap = session_->snapshot();
    for (int k = 0; k < tabs_->count(); ++k)
        if (auto* plot = qobject_cast<PlotWidget*>(tabs_->widget(k)))
            plot->refresh(session_->recording(), snap ? snap->time : 0.0);
}

void PlotsPanel::moveCursors() {
    const auto snap = session_->snapshot();
    if (!snap) return;
    for (int k = 0; k < tabs_->count(); ++k)
        if (auto* plot = qobject_cast<PlotWidget*>(tabs_->widget(k)))
            plot->setCursorTime(snap->time);
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
    for (const engine::Channel& channel : recording->layout().channels()) {
        if (channel.name == "time") continue;
        auto* item = new QListWidgetItem(
            QStringLiteral("%1  [%2]")
                .arg(QString::fromStdString(channel.name), QString::fromStdString(channel.unit)));
        item->setData(Qt::UserRole, QString::fromStdString(channel.name));
        list->addItem(item);
    }
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
    layout->addWidget(buttons);
    dialog.resize(420, 480);
    if (dialog.exec() != QDialog::Accepted) return;
    QStringList channels;
    for (QListWidgetItem* item : list->selectedItems())
        channels << item->data(Qt::UserRole).toString();
    if (!channels.isEmpty()) addPlot(channels);
}

}  // namespace ui
