#include "ui/mainwindow/video_export_dialog.h"

#include <algorithm>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "ui/render/video_export.h"

namespace ui {

VideoExportDialog::VideoExportDialog(QSize viewSize, double start, double end, QWidget* parent)
    : QDialog(parent) {
    setObjectName(QStringLiteral("VideoExportDialog"));
    setWindowTitle(tr("Export Video"));
    auto* form = new QFormLayout;

    // The file: .mp4 (H.264) or .webm (VP9).
    path_ = new QLineEdit;
    path_->setObjectName(QStringLiteral("VideoPath"));
    path_->setPlaceholderText(tr("run.mp4"));
    auto* browse = new QPushButton(tr("Browse…"));
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString chosen =
            QFileDialog::getSaveFileName(this, tr("Export Video"), path_->text(),
                                         tr("MP4 video, H.264 (*.mp4);;WebM video, VP9 (*.webm)"));
        if (!chosen.isEmpty()) setPath(chosen);
    });
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(path_, 1);
    fileRow->addWidget(browse);
    form->addRow(tr("File:"), fileRow);

    // The size: the view's (rounded down to even), presets, or typed in.
    const int viewWidth = std::max(2, viewSize.width() / 2 * 2);
    const int viewHeight = std::max(2, viewSize.height() / 2 * 2);
    preset_ = new QComboBox;
    preset_->setObjectName(QStringLiteral("VideoSizePreset"));
    preset_->addItem(tr("As the 3D view (%1 × %2)").arg(viewWidth).arg(viewHeight),
                     QSize(viewWidth, viewHeight));
    preset_->addItem(tr("1280 × 720 (HD)"), QSize(1280, 720));
    preset_->addItem(tr("1920 × 1080 (Full HD)"), QSize(1920, 1080));
    preset_->addItem(tr("Custom"), QSize());
    width_ = new QSpinBox;
    width_->setObjectName(QStringLiteral("VideoWidth"));
    height_ = new QSpinBox;
    height_->setObjectName(QStringLiteral("VideoHeight"));
    for (QSpinBox* side : {width_, height_}) {
        side->setRange(2, 8192);
        side->setSingleStep(2);
        side->setSuffix(tr(" px"));
    }
    width_->setValue(viewWidth);
    height_->setValue(viewHeight);
    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(preset_, 1);
    sizeRow->addWidget(width_);
    sizeRow->addWidget(new QLabel(QStringLiteral("×")));
    sizeRow->addWidget(height_);
    form->addRow(tr("Size:"), sizeRow);
    connect(preset_, &QComboBox::activated, this, &VideoExportDialog::presetChosen);

    fps_ = new QSpinBox;
    fps_->setObjectName(QStringLiteral("VideoFps"));
    fps_->setRange(1, 240);
    fps_->setValue(30);
    fps_->setSuffix(tr(" frames/s"));
    form->addRow(tr("Frame rate:"), fps_);

    // The part of the run: all of it unless narrowed.
    from_ = new QDoubleSpinBox;
    from_->setObjectName(QStringLiteral("VideoFrom"));
    to_ = new QDoubleSpinBox;
    to_->setObjectName(QStringLiteral("VideoTo"));
    for (QDoubleSpinBox* time : {from_, to_}) {
        time->setDecimals(3);
        time->setRange(start, end);
        time->setSingleStep(0.1);
        time->setSuffix(tr(" s"));
    }
    from_->setValue(start);
    to_->setValue(end);
    auto* rangeRow = new QHBoxLayout;
    rangeRow->addWidget(from_);
    rangeRow->addWidget(new QLabel(tr("to")));
    rangeRow->addWidget(to_);
    form->addRow(tr("Time:"), rangeRow);

    problem_ = new QLabel;
    problem_->setObjectName(QStringLiteral("VideoProblem"));
    problem_->setWordWrap(true);
    problem_->setStyleSheet(QStringLiteral("color: #c0392b;"));

    buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons_->button(QDialogButtonBox::Ok)->setText(tr("Export"));
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(problem_);
    layout->addWidget(buttons_);

    // Any edit re-checks; a size typed in makes the preset "Custom".
    connect(path_, &QLineEdit::textChanged, this, &VideoExportDialog::check);
    for (QSpinBox* box : {width_, height_, fps_})
        connect(box, &QSpinBox::valueChanged, this, &VideoExportDialog::check);
    for (QDoubleSpinBox* box : {from_, to_})
        connect(box, &QDoubleSpinBox::valueChanged, this, &VideoExportDialog::check);
    check();
}

void VideoExportDialog::setPath(const QString& path) {
    path_->setText(path);
}

void VideoExportDialog::presetChosen(int index) {
    const QSize size = preset_->itemData(index).toSize();
    if (!size.isValid()) return;  // Custom: the sides as they are
    width_->setValue(size.width());
    height_->setValue(size.height());
}

VideoExportOptions VideoExportDialog::options() const {
    VideoExportOptions options;
    options.path = path_->text().trimmed().toStdString();
    options.width = width_->value();
    options.height = height_->value();
    options.fps = fps_->value();
    options.from = from_->value();
    options.to = to_->value();
    return options;
}

QString VideoExportDialog::problem() const {
    return problem_->text();
}

void VideoExportDialog::check() {
    // The preset follows the sides.
    int matching = preset_->count() - 1;
    for (int k = 0; k + 1 < preset_->count(); ++k)
        if (preset_->itemData(k).toSize() == QSize(width_->value(), height_->value())) {
            matching = k;
            break;
        }
    preset_->setCurrentIndex(matching);

    const VideoExportOptions current = options();
    QString problem;
    if (current.path.empty())
        problem = tr("Choose the file to write (.mp4 or .webm).");
    else if (const std::string why = videoOptionsProblem(current); !why.empty())
        problem = QString::fromStdString(why) + QLatin1Char('.');
    if (!problem.isEmpty()) problem[0] = problem[0].toUpper();  // a sentence
    problem_->setText(problem);
    problem_->setVisible(!problem.isEmpty());
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}

}  // namespace ui
