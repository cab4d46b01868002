// File ▸ Export Video…: the dialog's defaults and checks, and MainWindow::exportVideo — the
// recorded run filmed with the 3D view's camera, cancelled from its progress dialog, refused
// when nothing is recorded.

#include "ui/mainwindow/video_export_dialog.h"

#include <cmath>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QProgressDialog>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <gtest/gtest.h>

#include "engine/runtime/simulator.h"
#include "tests/ui/render/decoded_video.h"
#include "ui/mainwindow/export_actions.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/render/video_export.h"
#include "ui/session/simulation_session.h"
#include "ui/viewport/viewport_widget.h"

namespace ui {
namespace {

const QString kPendulum = QStringLiteral(MOTUS_SOURCE_DIR "/scenes/pendulum.json");

TEST(VideoExportDialog, OffersTheViewSizeRoundedToEvenAndTheWholeRecording) {
    VideoExportDialog dialog(QSize(801, 601), 0.0, 2.5);
    const VideoExportOptions options = dialog.options();
    EXPECT_EQ(options.width, 800);
    EXPECT_EQ(options.height, 600);
    EXPECT_EQ(options.fps, 30);
    EXPECT_EQ(options.from, 0.0);
    EXPECT_EQ(options.to, 2.5);
    auto* preset = dialog.findChild<QComboBox*>(QStringLiteral("VideoSizePreset"));
    ASSERT_TRUE(preset);
    EXPECT_EQ(preset->currentIndex(), 0);
    EXPECT_TRUE(preset->currentText().contains(QStringLiteral("800 × 600")));
    // No file yet: Export waits for one.
    auto* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    EXPECT_FALSE(ok->isEnabled());
    dialog.setPath(QStringLiteral("/tmp/run.webm"));
    EXPECT_TRUE(ok->isEnabled());
    EXPECT_TRUE(dialog.problem().isEmpty());

    // The Full HD preset sets both sides; a typed size that matches none is Custom.
    preset->setCurrentIndex(2);
    emit preset->activated(2);
    EXPECT_EQ(dialog.options().width, 1920);
    EXPECT_EQ(dialog.options().height, 1080);
    dialog.findChild<QSpinBox*>(QStringLiteral("VideoWidth"))->setValue(640);
    EXPECT_EQ(preset->currentText(), QStringLiteral("Custom"));
}

TEST(VideoExportDialog, SaysWhyOptionsCannotBeUsedAndDisablesExport) {
    VideoExportDialog dialog(QSize(640, 480), 0.0, 1.0);
    auto* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    dialog.setPath(QStringLiteral("/tmp/run.avi"));
    EXPECT_EQ(dialog.problem(),
              QStringLiteral("The video file must end in .mp4 (H.264) or .webm (VP9)."));
    EXPECT_FALSE(ok->isEnabled());
    dialog.setPath(QStringLiteral("/tmp/run.mp4"));
    dialog.findChild<QSpinBox*>(QStringLiteral("VideoHeight"))->setValue(481);
    EXPECT_TRUE(dialog.problem().contains(QStringLiteral("odd side")))
        << dialog.problem().toStdString();
    EXPECT_FALSE(ok->isEnabled());
}

class VideoExportWindowTest : public ::testing::Test {
protected:
    void SetUp() override {
        window.resize(1000, 700);
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    }
    // Opens the pendulum and runs it to `time`, paused there.
    void runPendulumTo(double time) {
        ASSERT_TRUE(window.files()->openScene(kPendulum));
        window.session()->runTo(time);
        ASSERT_TRUE(QTest::qWaitFor(
            [&] {
                const auto snap = window.session()->snapshot();
                return snap && snap->mode == engine::RunMode::Paused &&
                       std::abs(snap->time - time) < 1e-9;
            },
            30000));
        QTest::qWait(50);  // one display poll: the view shows the last frame
    }
    MainWindow window;
    QTemporaryDir dir;
};

TEST_F(VideoExportWindowTest, RefusesWhenNothingIsRecorded) {
    window.files()->newScene();
    VideoExportOptions options;
    options.path = dir.filePath(QStringLiteral("empty.mp4")).toStdString();
    QString error;
    EXPECT_FALSE(window.exports()->exportVideo(options, &error));
    EXPECT_EQ(error, QStringLiteral("nothing has been simulated: run the scene first"));
    EXPECT_FALSE(QFileInfo::exists(QString::fromStdString(options.path)));
}

TEST_F(VideoExportWindowTest, FilmsTheRunAsTheViewShowsIt) {
    // The run's last instant, filmed at the view's own size, is the picture the view shows:
    // the same camera, lights and node kinds (luma within a level or two, block by block).
    // Turned to the top view, the view differs clearly.
    runPendulumTo(0.5);
    ViewportWidget* view = window.viewport();
    view->setStandardView(ViewportWidget::StandardView::Front);
    const int target = view->frameCount() + 2;
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            view->update();
            return view->frameCount() >= target;
        },
        10000));
    const QImage shown = view->grabFramebuffer().convertToFormat(QImage::Format_RGB32);
    VideoExportOptions options;
    options.path = dir.filePath(QStringLiteral("last.mp4")).toStdString();
    options.width = shown.width() / 2 * 2;
    options.height = shown.height() / 2 * 2;
    options.fps = 30;
    options.from = 0.4;
    options.to = 0.5;
    QString error;
    ASSERT_TRUE(window.exports()->exportVideo(options, &error)) << error.toStdString();
    const testing::DecodedVideo video = testing::decodeVideo(options.path);
    ASSERT_EQ(video.luma.size(), 4u);  // 0.4, 0.4 + 1/30, 0.4 + 2/30, 0.5
    ASSERT_EQ(video.width, options.width);
    ASSERT_EQ(video.height, options.height);

    // Mean luma difference over 4 × 4 blocks (so the encoder's softened edges and 4:2:0 colour
    // average out), the view's pixels taken to BT.601 luma in video range as the encoder does.
    auto differenceFromView = [&](const std::vector<std::uint8_t>& luma) {
        constexpr int kBlock = 4;
        double sum = 0.0;
        int blocks = 0;
        for (int by = 0; by + kBlock <= video.height; by += kBlock)
            for (int bx = 0; bx + kBlock <= video.width; bx += kBlock) {
                double difference = 0.0;
                for (int y = by; y < by + kBlock; ++y)
                    for (int x = bx; x < bx + kBlock; ++x) {
                        const QRgb rgb = shown.pixel(x, y);
                        difference +=
                            16.0 +
                            (65.481 * qRed(rgb) + 128.553 * qGreen(rgb) + 24.966 * qBlue(rgb)) /
                                255.0 -
                            luma[static_cast<std::size_t>(y * video.width + x)];
                    }
                sum += std::abs(difference) / (kBlock * kBlock);
                ++blocks;
            }
        return sum / blocks;
    };
    const double same = differenceFromView(video.luma.back());
    EXPECT_LT(same, 2.0);  // about 0.9 levels here

    view->setStandardView(ViewportWidget::StandardView::Top);
    ASSERT_TRUE(window.exports()->exportVideo(options, &error)) << error.toStdString();
    const double turned = differenceFromView(testing::decodeVideo(options.path).luma.back());
    EXPECT_GT(turned, 8.0) << "the same as the view: " << same;
}

TEST_F(VideoExportWindowTest, CancelInTheProgressDialogLeavesTheEarlierFile) {
    runPendulumTo(1.0);
    const QString path = dir.filePath(QStringLiteral("run.webm"));
    {
        QFile earlier(path);
        ASSERT_TRUE(earlier.open(QIODevice::WriteOnly));
        earlier.write("an earlier video");
    }
    // The user presses Cancel once a few frames are done.
    QTimer press;
    QObject::connect(&press, &QTimer::timeout, &window, [&] {
        auto* progress = window.findChild<QProgressDialog*>(QStringLiteral("VideoExportProgress"));
        if (progress && progress->value() >= 3) progress->cancel();
    });
    press.start(10);
    VideoExportOptions options;
    options.path = path.toStdString();
    options.width = 320;
    options.height = 240;
    QString error;
    EXPECT_FALSE(window.exports()->exportVideo(options, &error));
    EXPECT_EQ(error, QStringLiteral("cancelled: no video was written"));
    QFile earlier(path);
    ASSERT_TRUE(earlier.open(QIODevice::ReadOnly));
    EXPECT_EQ(earlier.readAll(), QByteArray("an earlier video"));
    EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files).size(), 1);
}

}  // namespace
}  // namespace ui
