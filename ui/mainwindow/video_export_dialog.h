#pragma once
// File ▸ Export Video…: where to write the video and how — the picture size (the 3D view's
// size rounded down to even, or 1280 × 720, 1920 × 1080, or any even size), the frame rate
// and the part of the recording (the whole run by default). The options are checked as they
// are typed (ui/render/video_export.h says why they cannot be used); Export is enabled only
// for options that can.

#include <QDialog>
#include <QSize>

class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace ui {

struct VideoExportOptions;

class VideoExportDialog : public QDialog {
    Q_OBJECT

public:
    // `viewSize`: the 3D view's size in pixels; the recording runs from `start` to `end` [s].
    VideoExportDialog(QSize viewSize, double start, double end, QWidget* parent = nullptr);

    // What the dialog holds (path, size, frame rate, time range); the camera is the caller's.
    VideoExportOptions options() const;
    void setPath(const QString& path);
    // Why the options cannot be used, as shown under them (empty when they can).
    QString problem() const;

private:
    void presetChosen(int index);
    void check();

    QLineEdit* path_ = nullptr;
    QComboBox* preset_ = nullptr;
    QSpinBox* width_ = nullptr;
    QSpinBox* height_ = nullptr;
    QSpinBox* fps_ = nullptr;
    QDoubleSpinBox* from_ = nullptr;
    QDoubleSpinBox* to_ = nullptr;
    QLabel* problem_ = nullptr;
    QDialogButtonBox* buttons_ = nullptr;
};

}  // namespace ui
