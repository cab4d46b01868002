#include "ui/mainwindow/study_dialog.h"

#include <signal.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QVBoxLayout>
#include <QValueAxis>

#include "engine/io/scene_json.h"
#include "ui/common/text.h"
#include "ui/document/scene_document.h"

namespace ui {
namespace {

// The fields of one CSV line ("…" quotes a field with commas; "" inside quotes is a quote).
QStringList csvFields(const QString& line) {
    QStringList fields(QString{});
    bool quoted = false;
    for (qsizetype k = 0; k < line.size(); ++k) {
        const QChar c = line[k];
        if (quoted && c == u'"' && k + 1 < line.size() && line[k + 1] == u'"') {
            fields.back() += u'"';
            ++k;
        } else if (c == u'"') {
            quoted = !quoted;
        } else if (c == u',' && !quoted) {
            fields.append(QString());
        } else if (c != u'\r') {
            fields.back() += c;
        }
    }
    return fields;
}

QString csvField(const QString& text) {
    if (!text.contains(u',') && !text.contains(u'"') && !text.contains(u'\n')) return text;
    QString quoted = text;
    quoted.replace(QStringLiteral("\""), QStringLiteral("\"\""));
    return u'"' + quoted + u'"';
}

}  // namespace

struct StudyDialog::Impl {
    SceneDocument* document = nullptr;
    QTableWidget* cases = nullptr;
    QSpinBox* rows = nullptr;
    QComboBox* analysis = nullptr;
    QDoubleSpinBox* duration = nullptr;
    QComboBox* channel = nullptr;
    QComboBox* statistic = nullptr;
    QComboBox* variable = nullptr;
    QPushButton* runButton = nullptr;
    QPushButton* cancelButton = nullptr;
    QProgressBar* progress = nullptr;
    QLabel* status = nullptr;
    QTableWidget* summary = nullptr;
    QChart* chart = nullptr;
    QProcess* process = nullptr;
    std::unique_ptr<QTemporaryDir> work;
    QString summaryText;
    QStringList variables;  // the design variables the table was made for
    QString errors;         // what the study said on stderr, beyond its progress
    int done = 0;
    int plotted = 0;
};

StudyDialog::StudyDialog(SceneDocument* document, QWidget* parent)
    : QDialog(parent), impl_(std::make_unique<Impl>()) {
    impl_->document = document;
    setObjectName(QStringLiteral("StudyDialog"));
    setWindowTitle(tr("Design Study"));
    resize(900, 640);
    auto* layout = new QVBoxLayout(this);
    auto* splitter = new QSplitter(Qt::Vertical);
    layout->addWidget(splitter, 1);

    // The cases.
    auto* top = new QWidget;
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    auto* casesTitle = new QLabel(tr("<b>Cases</b>: one row per run; edit the values, add rows"));
    topLayout->addWidget(casesTitle);
    impl_->cases = new QTableWidget;
    impl_->cases->setObjectName(QStringLiteral("StudyCases"));
    impl_->cases->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    topLayout->addWidget(impl_->cases, 1);
    auto* rowButtons = new QHBoxLayout;
    auto* addRow = new QPushButton(tr("Add Row"));
    auto* removeRow = new QPushButton(tr("Remove Row"));
    impl_->rows = new QSpinBox;
    impl_->rows->setRange(2, 200);
    impl_->rows->setValue(5);
    auto* fill = new QPushButton(tr("Fill Evenly"));
    fill->setToolTip(
        tr("That many cases, the first design variable from its minimum to its "
           "maximum, the others at their values"));
    rowButtons->addWidget(addRow);
    rowButtons->addWidget(removeRow);
    rowButtons->addStretch();
    rowButtons->addWidget(new QLabel(tr("Cases:")));
    rowButtons->addWidget(impl_->rows);
    rowButtons->addWidget(fill);
    topLayout->addLayout(rowButtons);

    auto* form = new QFormLayout;
    impl_->analysis = new QComboBox;
    impl_->analysis->setObjectName(QStringLiteral("StudyAnalysis"));
    impl_->analysis->addItem(tr("Simulation"), QStringLiteral("simulate"));
    impl_->analysis->addItem(tr("Kinematics"), QStringLiteral("kinematics"));
    impl_->analysis->addItem(tr("Inverse dynamics"), QStringLiteral("inverse"));
    impl_->analysis->addItem(tr("Static equilibrium"), QStringLiteral("statics"));
    impl_->analysis->addItem(tr("Vibration modes"), QStringLiteral("modes"));
    impl_->duration = new QDoubleSpinBox;
    impl_->duration->setObjectName(QStringLiteral("StudyDuration"));
    impl_->duration->setRange(1e-4, 1e6);
    impl_->duration->setDecimals(4);
    impl_->duration->setSuffix(QStringLiteral(" s"));
    impl_->duration->setValue(1.0);
    impl_->channel = new QComboBox;
    impl_->channel->setObjectName(QStringLiteral("StudyChannel"));
    impl_->channel->setEditable(true);
    impl_->channel->setToolTip(
        tr("A channel of the results (as plots name them), or NAME.|F| "
           "for the length of NAME.Fx, Fy, Fz"));
    impl_->statistic = new QComboBox;
    impl_->statistic->setObjectName(QStringLiteral("StudyStatistic"));
    for (const char* s : {"peak", "max", "min", "final"})
        impl_->statistic->addItem(QLatin1String(s));
    impl_->statistic->setToolTip(tr("Peak: the largest magnitude over the run"));
    impl_->variable = new QComboBox;
    impl_->variable->setObjectName(QStringLiteral("StudyVariable"));
    auto* analysisRow = new QHBoxLayout;
    analysisRow->addWidget(impl_->analysis);
    analysisRow->addWidget(new QLabel(tr("for")));
    analysisRow->addWidget(impl_->duration);
    analysisRow->addStretch();
    form->addRow(tr("Analysis:"), analysisRow);
    auto* resultRow = new QHBoxLayout;
    resultRow->addWidget(impl_->statistic);
    resultRow->addWidget(new QLabel(tr("of")));
    resultRow->addWidget(impl_->channel, 1);
    resultRow->addWidget(new QLabel(tr("against")));
    resultRow->addWidget(impl_->variable);
    form->addRow(tr("Plot:"), resultRow);
    topLayout->addLayout(form);
    auto* runRow = new QHBoxLayout;
    impl_->runButton = new QPushButton(tr("Run Study"));
    impl_->runButton->setObjectName(QStringLiteral("StudyRun"));
    impl_->runButton->setDefault(true);
    impl_->cancelButton = new QPushButton(tr("Stop"));
    impl_->cancelButton->setEnabled(false);
    impl_->progress = new QProgressBar;
    impl_->status = new QLabel;
    impl_->status->setObjectName(QStringLiteral("StudyStatus"));
    impl_->status->setWordWrap(true);
    impl_->status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    runRow->addWidget(impl_->runButton);
    runRow->addWidget(impl_->cancelButton);
    runRow->addWidget(impl_->progress, 1);
    topLayout->addLayout(runRow);
    topLayout->addWidget(impl_->status);
    splitter->addWidget(top);

    // The results.
    auto* bottom = new QSplitter(Qt::Horizontal);
    impl_->summary = new QTableWidget;
    impl_->summary->setObjectName(QStringLiteral("StudySummary"));
    impl_->summary->setEditTriggers(QAbstractItemView::NoEditTriggers);
    bottom->addWidget(impl_->summary);
    impl_->chart = new QChart;
    impl_->chart->legend()->hide();
    auto* view = new QChartView(impl_->chart);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(220);
    bottom->addWidget(view);
    bottom->setStretchFactor(0, 3);
    bottom->setStretchFactor(1, 2);
    bottom->setSizes({520, 380});
    splitter->addWidget(bottom);
    splitter->setSizes({330, 310});

    connect(addRow, &QPushButton::clicked, this, [this] {
        const int r = impl_->cases->rowCount();
        impl_->cases->insertRow(r);
        for (int c = 0; c < impl_->cases->columnCount(); ++c) {
            const QTableWidgetItem* above = r > 0 ? impl_->cases->item(r - 1, c) : nullptr;
            impl_->cases->setItem(r, c,
                                  new QTableWidgetItem(c == 0  ? QStringLiteral("case%1").arg(r + 1)
                                                       : above ? above->text()
                                                               : QString()));
        }
    });
    connect(removeRow, &QPushButton::clicked, this, [this] {
        const int r = impl_->cases->currentRow();
        impl_->cases->removeRow(r >= 0 ? r : impl_->cases->rowCount() - 1);
    });
    connect(fill, &QPushButton::clicked, this, [this] {
        impl_->variables.clear();
        prepare();
    });
    connect(impl_->runButton, &QPushButton::clicked, this, [this] { run(); });
    connect(impl_->cancelButton, &QPushButton::clicked, this, &StudyDialog::cancel);
    connect(impl_->analysis, &QComboBox::currentIndexChanged, this, [this] {
        const QString a = impl_->analysis->currentData().toString();
        impl_->duration->setEnabled(a == QStringLiteral("simulate") ||
                                    a == QStringLiteral("kinematics") ||
                                    a == QStringLiteral("inverse"));
    });
    for (QComboBox* box : {impl_->statistic, impl_->variable})
        connect(box, &QComboBox::currentIndexChanged, this, [this] { plot(); });
    connect(impl_->channel, &QComboBox::currentTextChanged, this, [this] { plot(); });
}

StudyDialog::~StudyDialog() {
    if (impl_->process && impl_->process->state() != QProcess::NotRunning) {
        impl_->process->kill();
        impl_->process->waitForFinished(5000);
    }
}

void StudyDialog::prepare() {
    const engine::SceneSpec* spec = impl_->document->scene();
    if (!spec) return;
    QStringList names;
    for (const engine::DesignVariableSpec& v : spec->designVariables) names << toQString(v.name);
    if (spec->settings.endTime > 0.0 && impl_->variables.isEmpty())
        impl_->duration->setValue(spec->settings.endTime);
    // Result suggestions: each joint's force and torque, each motion's effort, each part's place.
    const QString current = impl_->channel->currentText();
    impl_->channel->clear();
    for (const engine::Joint& j : spec->joints)
        impl_->channel->addItems({toQString(j.name) + QStringLiteral(".|F|"),
                                  toQString(j.name) + QStringLiteral(".|T|")});
    for (const engine::MotionSpec& m : spec->motions)
        impl_->channel->addItem(toQString(m.name) + QStringLiteral(".effort"));
    for (const engine::Part& p : spec->parts)
        if (!p.ground)
            for (const char* q : {".x", ".y", ".z"})
                impl_->channel->addItem(toQString(p.name) + QLatin1String(q));
    if (!current.isEmpty()) impl_->channel->setCurrentText(current);
    if (names == impl_->variables && impl_->cases->rowCount() > 0) return;
    impl_->variables = names;
    impl_->variable->clear();
    impl_->variable->addItems(names);
    const int n = impl_->rows->value();
    impl_->cases->clear();
    impl_->cases->setColumnCount(static_cast<int>(names.size()) + 1);
    impl_->cases->setHorizontalHeaderLabels(QStringList{tr("case")} + names);
    impl_->cases->setRowCount(names.isEmpty() ? 0 : n);
    for (int r = 0; r < impl_->cases->rowCount(); ++r) {
        impl_->cases->setItem(r, 0, new QTableWidgetItem(QStringLiteral("case%1").arg(r + 1)));
        for (int c = 0; c < static_cast<int>(names.size()); ++c) {
            const engine::DesignVariableSpec& v =
                spec->designVariables[static_cast<std::size_t>(c)];
            double value = v.value;
            if (c == 0) {
                const double lo = std::isnan(v.minimum) ? v.value / 2 : v.minimum;
                const double hi = std::isnan(v.maximum) ? v.value * 2 : v.maximum;
                value = lo + (hi - lo) * r / std::max(1, n - 1);
            }
            impl_->cases->setItem(r, c + 1, new QTableWidgetItem(QString::number(value, 'g', 6)));
        }
    }
}

void StudyDialog::setCases(const QList<QPair<QString, QStringList>>& cases) {
    prepare();
    impl_->cases->setRowCount(static_cast<int>(cases.size()));
    for (int r = 0; r < static_cast<int>(cases.size()); ++r) {
        impl_->cases->setItem(r, 0, new QTableWidgetItem(cases[r].first));
        for (int c = 0; c < static_cast<int>(cases[r].second.size()); ++c)
            impl_->cases->setItem(r, c + 1, new QTableWidgetItem(cases[r].second[c]));
    }
}

void StudyDialog::setAnalysis(const QString& analysis, double duration) {
    impl_->analysis->setCurrentIndex(std::max(0, impl_->analysis->findData(analysis)));
    impl_->duration->setValue(duration);
}

void StudyDialog::setResult(const QString& channel, const QString& statistic,
                            const QString& variable) {
    impl_->channel->setCurrentText(channel);
    impl_->statistic->setCurrentText(statistic);
    if (!variable.isEmpty()) impl_->variable->setCurrentText(variable);
}

bool StudyDialog::isRunning() const {
    return impl_->process && impl_->process->state() != QProcess::NotRunning;
}

QString StudyDialog::status() const {
    return impl_->status->text();
}

QString StudyDialog::summary() const {
    return impl_->summaryText;
}

QTableWidget* StudyDialog::casesTable() const {
    return impl_->cases;
}

QTableWidget* StudyDialog::summaryTable() const {
    return impl_->summary;
}

int StudyDialog::plottedPoints() const {
    return impl_->plotted;
}

bool StudyDialog::run() {
    const engine::SceneSpec* spec = impl_->document->scene();
    auto refuse = [this](const QString& why) {
        impl_->status->setText(why);
        impl_->status->setStyleSheet(QStringLiteral("color: #c0392b"));
        return false;
    };
    if (!spec) return refuse(tr("No scene is open"));
    if (isRunning()) return refuse(tr("A study is running"));
    if (impl_->cases->rowCount() == 0) return refuse(tr("The table has no case"));
    const QString program = QCoreApplication::applicationDirPath() + QStringLiteral("/motus-cli");
    if (!QFileInfo(program).isExecutable())
        return refuse(
            tr("motus-cli is not beside this program (%1): a study runs it").arg(program));
    impl_->work = std::make_unique<QTemporaryDir>();
    if (!impl_->work->isValid()) return refuse(tr("Cannot make a folder for the study's files"));
    // The scene as it is on screen, its meshes named by absolute paths (or written beside it).
    engine::SceneSpec scene = *spec;
    const QString base = impl_->document->path().isEmpty()
                             ? QString()
                             : QFileInfo(impl_->document->path()).absolutePath();
    for (engine::Part& part : scene.parts)
        for (engine::Shape& shape : part.shapes)
            if (!shape.meshFile.empty() && QFileInfo(toQString(shape.meshFile)).isRelative() &&
                !base.isEmpty())
                shape.meshFile = (base + u'/' + toQString(shape.meshFile)).toStdString();
    const QString scenePath = impl_->work->filePath(QStringLiteral("scene.json"));
    std::string error;
    if (!engine::io::saveSceneFile(scene, scenePath.toStdString(), error))
        return refuse(tr("Cannot write the scene for the study: %1").arg(toQString(error)));
    QString casesText = QStringLiteral("case");
    for (int c = 1; c < impl_->cases->columnCount(); ++c)
        casesText += u',' + csvField(impl_->cases->horizontalHeaderItem(c)->text());
    casesText += u'\n';
    for (int r = 0; r < impl_->cases->rowCount(); ++r) {
        for (int c = 0; c < impl_->cases->columnCount(); ++c) {
            const QTableWidgetItem* item = impl_->cases->item(r, c);
            if (c > 0) casesText += u',';
            casesText += csvField(item ? item->text().trimmed() : QString());
        }
        casesText += u'\n';
    }
    const QString casesPath = impl_->work->filePath(QStringLiteral("cases.csv"));
    QFile cases(casesPath);
    if (!cases.open(QIODevice::WriteOnly) || cases.write(casesText.toUtf8()) < 0)
        return refuse(tr("Cannot write the cases for the study"));
    cases.close();

    const QString analysis = impl_->analysis->currentData().toString();
    QStringList args = {QStringLiteral("batch"),
                        scenePath,
                        QStringLiteral("--cases"),
                        casesPath,
                        QStringLiteral("--out-dir"),
                        impl_->work->filePath(QStringLiteral("results")),
                        QStringLiteral("--analysis"),
                        analysis,
                        QStringLiteral("--jobs"),
                        QString::number(std::max(1u, std::thread::hardware_concurrency()))};
    if (impl_->duration->isEnabled())
        args << QStringLiteral("--duration") << QString::number(impl_->duration->value(), 'g', 17);
    const QString channel = impl_->channel->currentText().trimmed();
    if (!channel.isEmpty()) args << QStringLiteral("--summarize") << channel;

    delete impl_->process;
    impl_->process = new QProcess(this);
    impl_->done = 0;
    impl_->errors.clear();
    impl_->summaryText.clear();
    impl_->progress->setRange(0, impl_->cases->rowCount());
    impl_->progress->setValue(0);
    connect(impl_->process, &QProcess::readyReadStandardError, this, [this] {
        while (impl_->process->canReadLine()) {
            const QString line = QString::fromUtf8(impl_->process->readLine()).trimmed();
            if (line.startsWith(QStringLiteral("motus-cli: case "))) {
                impl_->progress->setValue(++impl_->done);
            } else if (!line.isEmpty()) {
                impl_->errors += line + u'\n';
            }
        }
    });
    impl_->process->setReadChannel(QProcess::StandardError);
    connect(impl_->process, &QProcess::finished, this,
            [this](int exitCode, QProcess::ExitStatus) { finishedRun(exitCode); });
    impl_->process->start(program, args);
    if (!impl_->process->waitForStarted(10000))
        return refuse(tr("Cannot start motus-cli: %1").arg(impl_->process->errorString()));
    impl_->runButton->setEnabled(false);
    impl_->cancelButton->setEnabled(true);
    impl_->status->setStyleSheet(QString());
    impl_->status->setText(tr("Running %n case(s) on %1 core(s)…", "", impl_->cases->rowCount())
                               .arg(std::max(1u, std::thread::hardware_concurrency())));
    return true;
}

void StudyDialog::cancel() {
    if (!isRunning()) return;
    // As Ctrl+C: the study stops between cases and writes the summary of what ran.
    ::kill(static_cast<pid_t>(impl_->process->processId()), SIGINT);
}

void StudyDialog::finishedRun(int exitCode) {
    impl_->runButton->setEnabled(true);
    impl_->cancelButton->setEnabled(false);
    const QByteArray rest = impl_->process->readAllStandardError();
    for (const QString& line : QString::fromUtf8(rest).split(u'\n', Qt::SkipEmptyParts))
        if (!line.startsWith(QStringLiteral("motus-cli: case "))) impl_->errors += line + u'\n';
    QFile file(impl_->work->filePath(QStringLiteral("results/summary.csv")));
    if (file.open(QIODevice::ReadOnly)) impl_->summaryText = QString::fromUtf8(file.readAll());
    showSummary();
    plot();
    int failed = 0;
    for (int r = 0; r < impl_->summary->rowCount(); ++r)
        for (int c = 0; c < impl_->summary->columnCount(); ++c)
            if (impl_->summary->horizontalHeaderItem(c)->text() == QStringLiteral("status") &&
                impl_->summary->item(r, c) &&
                impl_->summary->item(r, c)->text() == QStringLiteral("failed"))
                ++failed;
    const bool ok = exitCode == 0 && !impl_->summaryText.isEmpty();
    QString text = impl_->summaryText.isEmpty()
                       ? tr("The study did not run")
                       : tr("%n case(s) ran", "", impl_->summary->rowCount()) +
                             (failed ? tr(", %n failed", "", failed) : QString());
    if (!impl_->errors.isEmpty()) text += QStringLiteral(":\n") + impl_->errors.trimmed();
    impl_->status->setText(text);
    impl_->status->setStyleSheet(ok ? QString() : QStringLiteral("color: #c0392b"));
    emit studyFinished(ok);
}

void StudyDialog::showSummary() {
    impl_->summary->clear();
    const QStringList lines = impl_->summaryText.split(u'\n', Qt::SkipEmptyParts);
    if (lines.isEmpty()) {
        impl_->summary->setRowCount(0);
        impl_->summary->setColumnCount(0);
        return;
    }
    const QStringList header = csvFields(lines.front());
    impl_->summary->setColumnCount(static_cast<int>(header.size()));
    impl_->summary->setHorizontalHeaderLabels(header);
    impl_->summary->setRowCount(static_cast<int>(lines.size()) - 1);
    for (int r = 1; r < lines.size(); ++r) {
        const QStringList fields = csvFields(lines[r]);
        for (int c = 0; c < fields.size() && c < header.size(); ++c) {
            auto* item = new QTableWidgetItem(fields[c]);
            if (header[c] == QStringLiteral("file")) item->setToolTip(fields[c]);
            impl_->summary->setItem(r - 1, c, item);
        }
    }
    // The file column names temporary files: kept last and narrow.
    impl_->summary->resizeColumnsToContents();
    for (int c = 0; c < header.size(); ++c)
        if (header[c] == QStringLiteral("file")) impl_->summary->setColumnWidth(c, 80);
}

void StudyDialog::plot() {
    for (QAbstractAxis* axis : impl_->chart->axes()) impl_->chart->removeAxis(axis);
    impl_->chart->removeAllSeries();
    impl_->plotted = 0;
    const QString x = impl_->variable->currentText();
    const QString y =
        impl_->statistic->currentText() + u'(' + impl_->channel->currentText().trimmed() + u')';
    int xc = -1, yc = -1, sc = -1;
    for (int c = 0; c < impl_->summary->columnCount(); ++c) {
        const QString h = impl_->summary->horizontalHeaderItem(c)->text();
        if (h == x) xc = c;
        if (h == y) yc = c;
        if (h == QStringLiteral("status")) sc = c;
    }
    impl_->chart->setTitle(xc >= 0 && yc >= 0 ? tr("%1 against %2").arg(y, x) : QString());
    if (xc < 0 || yc < 0) return;
    QList<QPointF> points;
    for (int r = 0; r < impl_->summary->rowCount(); ++r) {
        auto text = [&](int c) {
            return impl_->summary->item(r, c) ? impl_->summary->item(r, c)->text() : QString();
        };
        if (sc >= 0 && text(sc) != QStringLiteral("ok")) continue;
        bool okX = false, okY = false;
        const double vx = text(xc).toDouble(&okX), vy = text(yc).toDouble(&okY);
        if (okX && okY) points.append({vx, vy});
    }
    std::sort(points.begin(), points.end(),
              [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
    auto* line = new QLineSeries;
    auto* dots = new QScatterSeries;
    dots->setMarkerSize(8);
    line->append(points);
    dots->append(points);
    impl_->chart->addSeries(line);
    impl_->chart->addSeries(dots);
    auto* ax = new QValueAxis;
    auto* ay = new QValueAxis;
    ax->setTitleText(x);
    ay->setTitleText(y);
    impl_->chart->addAxis(ax, Qt::AlignBottom);
    impl_->chart->addAxis(ay, Qt::AlignLeft);
    for (QAbstractSeries* s :
         {static_cast<QAbstractSeries*>(line), static_cast<QAbstractSeries*>(dots)}) {
        s->attachAxis(ax);
        s->attachAxis(ay);
    }
    if (!points.isEmpty()) {
        auto [minX, maxX] = std::minmax_element(points.begin(), points.end(),
                                                [](auto& a, auto& b) { return a.x() < b.x(); });
        auto [minY, maxY] = std::minmax_element(points.begin(), points.end(),
                                                [](auto& a, auto& b) { return a.y() < b.y(); });
        const double padX = std::max(1e-12, (maxX->x() - minX->x()) * 0.05);
        const double padY = std::max(1e-12, (maxY->y() - minY->y()) * 0.08);
        ax->setRange(minX->x() - padX, maxX->x() + padX);
        ay->setRange(minY->y() - padY, maxY->y() + padY);
        ax->applyNiceNumbers();
        ay->applyNiceNumbers();
    }
    impl_->plotted = static_cast<int>(points.size());
}

}  // namespace ui
